/* test-json-util.h: helpers shared by the JSON reader's tests
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "config.h"
#include <string.h>
#include <unistd.h>
#include <gio/gunixinputstream.h>
#include <glib/gstdio.h>
#include <zlib.h>
#include "ks-json-reader.h"
#include "ks-kscope-writer.h"
#include "ks-trace-loader.h"

static inline char *
fixture_path (const char *name)
{
  const char *dir = g_getenv ("KS_FIXTURES_DIR");

  g_assert_nonnull (dir);
  return g_build_filename (dir, name, NULL);
}

static inline KsTrace *
load_path (const char  *path,
           GError     **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  return ks_trace_load (file, NULL, NULL, error);
}

static inline KsTrace *
load_text (const char  *json,
           gssize       len,
           GError     **error)
{
  g_autoptr(GInputStream) stream = NULL;

  if (len < 0)
    len = strlen (json);
  stream = g_memory_input_stream_new_from_data (g_memdup2 (json, len), len, g_free);
  return ks_json_reader_load_stream (stream, "inline.json", len, NULL, NULL, error);
}

static inline char *
write_temp (const char *name,
            const void *data,
            gsize       len)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-json-XXXXXX", NULL);
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, data, len, NULL));
  return path;
}

static inline void
remove_temp (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);

  g_unlink (path);
  g_rmdir (dir);
}

static const char *
warnings (KsTrace *trace)
{
  const char *w = ks_trace_get_metadata (trace, "warnings");

  return w ? w : "";
}

/* The track of the trace's one thread. */
static const KsTrack *
only_thread_track (KsTrace *trace)
{
  g_assert_cmpuint (trace->n_threads, ==, 1);
  return &trace->tracks[trace->threads[0].track];
}

static guint n_warnings (KsTrace *trace);

/* Bad input */

static inline void
assert_load_fails (const char *json,
                   gssize      len,
                   const char *expect)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, len, &error);

  g_assert_null (trace);
  g_assert_nonnull (error);
  g_test_message ("%s", error->message);
  g_assert_true (g_str_has_prefix (error->message, "inline.json: "));
  if (expect != NULL && strstr (error->message, expect) == NULL)
    g_error ("expected “%s” in “%s”", expect, error->message);
}

/* A digest of the names and argument texts of every slice. */
static inline char *
slices_digest (KsTrace *trace)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  g_autoptr(GChecksum) sum = g_checksum_new (G_CHECKSUM_SHA256);
  guint64 n = 0;

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      for (guint32 i = 0; i < track->n_slices; i++)
        {
          const char *args = ks_trace_slice_args (trace, track, i, args_buf);
          const char *name = ks_trace_string (trace, track->name_id[i]);

          g_checksum_update (sum, (const guchar *)name, strlen (name) + 1);
          if (args != NULL)
            g_checksum_update (sum, (const guchar *)args, strlen (args) + 1);
          n++;
        }
    }
  return g_strdup_printf ("%" G_GUINT64_FORMAT " slices %s", n, g_checksum_get_string (sum));
}

/* Whether this processor drops white space 64 bytes at a time (AVX-512). */
static inline gboolean
have_avx512 (void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  return __builtin_cpu_supports ("avx512bw") && __builtin_cpu_supports ("avx512vbmi2");
#else
  return FALSE;
#endif
}

/* Runs the current test again in a subprocess that drops white space 16
 * bytes at a time, and expects it to pass. */
static inline void
trap_without_avx512 (void)
{
  g_setenv ("KS_JSON_NO_AVX512", "1", TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_unsetenv ("KS_JSON_NO_AVX512");
  g_test_trap_assert_passed ();
}

static inline gint
compare_strings (gconstpointer a,
                 gconstpointer b,
                 gpointer      user_data)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* The trace's flows other than launches as "from>to" slice names,
 * sorted, each checked to be of @category. */
static inline char *
flow_pairs (KsTrace    *trace,
            const char *category)
{
  g_autoptr(GPtrArray) pairs = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; i < trace->n_flows; i++)
    {
      const KsFlow *f = &trace->flows[i];

      if (f->kind == KS_FLOW_LAUNCH)
        continue;
      g_assert_cmpuint (f->kind, ==, KS_FLOW_OTHER);
      g_assert_cmpstr (ks_trace_string (trace, f->category), ==, category);
      g_ptr_array_add (pairs, g_strdup_printf ("%s>%s",
                                               ks_trace_string (trace, trace->tracks[f->from_track].name_id[f->from_slice]),
                                               ks_trace_string (trace, trace->tracks[f->to_track].name_id[f->to_slice])));
    }
  g_ptr_array_sort_with_data (pairs, compare_strings, NULL);
  g_ptr_array_add (pairs, NULL);
  return g_strjoinv (" ", (char **) pairs->pdata);
}

/* The samples of the counter named @name, as "ts=value" (ts relative to
 * the trace's origin, in ns); NULL when there is no such counter. */
static inline char *
counter_samples (KsTrace    *trace,
                 const char *name)
{
  for (guint32 i = 0; i < trace->n_counters; i++)
    if (g_str_equal (ks_trace_string (trace, trace->counters[i].name), name))
      {
        const KsCounter *c = &trace->counters[i];
        GString *out = g_string_new (NULL);

        for (guint32 k = 0; k < c->n_samples; k++)
          g_string_append_printf (out, "%s%" G_GINT64_FORMAT "=%g", k ? " " : "", c->ts[k], c->value[k]);
        return g_string_free (out, FALSE);
      }
  return NULL;
}

/* The number of lines of the trace's "warnings" metadata */
static inline guint
n_warnings (KsTrace *trace)
{
  g_auto(GStrv) lines = g_strsplit (warnings (trace), "\n", -1);
  guint n = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    n += lines[i][0] != '\0';
  return n;
}
