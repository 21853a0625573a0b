/* fuzz-common.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <glib/gstdio.h>

#include "fuzz-common.h"
#include "ks-analysis.h"

/* abort(), not the breakpoint trap of GLib's fatal messages: libFuzzer
 * catches SIGABRT and saves the input, but not SIGTRAP. */
static void
abort_on_message (const char     *domain,
                  GLogLevelFlags  level,
                  const char     *message,
                  gpointer        user_data)
{
  g_log_default_handler (domain, level, message, user_data);
  if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
    abort ();
}

void
fuzz_init (void)
{
  static gboolean initialised;

  if (!initialised)
    {
      g_log_set_default_handler (abort_on_message, NULL);
      initialised = TRUE;
    }
}

static char *temp_dir;
static char *temp_path;

static void
remove_temp (void)
{
  g_unlink (temp_path);
  g_rmdir (temp_dir);
}

const char *
fuzz_temp_file (const char *name)
{
  if (temp_path == NULL)
    {
      temp_dir = g_dir_make_tmp ("ks-fuzz-XXXXXX", NULL);
      g_assert (temp_dir != NULL);
      temp_path = g_build_filename (temp_dir, name, NULL);
      atexit (remove_temp);
    }
  return temp_path;
}

static gboolean
visit (const KsTrack *track,
       guint32        slice,
       gpointer       user_data)
{
  guint64 *n = user_data;

  (*n)++;
  return TRUE;
}

void
fuzz_walk_trace (KsTrace  *trace,
                 gboolean  args_are_objects)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  g_autoptr(KsAnalysis) analysis = NULL;
  g_autoptr(GError) error = NULL;
  KsTraceCounts counts;
  guint64 n = 0;

  ks_trace_get_counts (trace, &counts);
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      ks_track_foreach_in_range (track, 0, trace->duration_ns + 1, visit, &n);
      for (guint32 i = 0; i < track->n_slices; i++)
        {
          const char *args = ks_trace_slice_args (trace, track, i, args_buf);

          g_assert (track->start[i] <= track->end[i]);
          g_assert (track->name_id[i] < trace->n_strings);
          if (args != NULL && args_are_objects)
            g_assert (args[0] == '{');
          else if (args != NULL)
            n += strlen (args);
          ks_track_parent_slice (track, i);
          ks_track_self_time (track, i);
        }
    }
  for (guint32 i = 0; i < trace->n_flows; i++)
    {
      g_assert (trace->flows[i].from_track < trace->n_tracks);
      g_assert (trace->flows[i].to_track < trace->n_tracks);
      g_assert (trace->flows[i].from_slice < trace->tracks[trace->flows[i].from_track].n_slices);
      g_assert (trace->flows[i].to_slice < trace->tracks[trace->flows[i].to_track].n_slices);
    }

  /* Every analysis the window and kinescope-cli stats show. */
  analysis = ks_analysis_compute (trace, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert (analysis != NULL);
}
