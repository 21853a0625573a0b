/* fuzz-json-reader.c: libFuzzer harness for the JSON trace reader
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Feeds arbitrary bytes (plain or gzip) to ks_json_reader_load_stream()
 * and, when a trace comes back, walks it the way the views do. GLib
 * criticals and warnings abort, so they count as findings. See README.md,
 * "Fuzzing".
 */

#include "config.h"

#include <stdint.h>
#include <string.h>

#include <yajl/yajl_parse.h>

#include "ks-json-reader.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* yajl on the raw bytes, without the reader's white-space compaction: a
 * document it accepts must not be reported as invalid JSON. */
static gboolean
plain_yajl_accepts (const uint8_t *data,
                    size_t         size)
{
  yajl_handle h = yajl_alloc (NULL, NULL, NULL);
  gboolean ok;

  yajl_config (h, yajl_allow_trailing_garbage, 1);
  ok = yajl_parse (h, data, size) == yajl_status_ok && yajl_complete_parse (h) == yajl_status_ok;
  yajl_free (h);
  return ok;
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

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  static gboolean initialised;
  GInputStream *stream;
  KsTrace *trace;
  GError *error = NULL;

  if (!initialised)
    {
      g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING);
      initialised = TRUE;
    }

  stream = g_memory_input_stream_new_from_data (data, size, NULL);
  trace = ks_json_reader_load_stream (stream, "fuzz.json", size, NULL, NULL, &error);
  g_object_unref (stream);

  if (trace == NULL)
    {
      g_assert (error != NULL);
      g_assert (g_str_has_prefix (error->message, "fuzz.json: "));
      if (strstr (error->message, "invalid JSON") != NULL && !(size >= 2 && data[0] == 0x1f && data[1] == 0x8b))
        g_assert (!plain_yajl_accepts (data, size));
      g_error_free (error);
      return 0;
    }

  {
    KsTraceCounts counts;
    guint64 n = 0;

    ks_trace_get_counts (trace, &counts);
    for (guint32 t = 0; t < trace->n_tracks; t++)
      {
        const KsTrack *track = &trace->tracks[t];

        ks_track_foreach_in_range (track, 0, trace->duration_ns + 1, visit, &n);
        for (guint32 i = 0; i < track->n_slices; i++)
          {
            const char *args = ks_trace_slice_args (trace, track, i);

            g_assert (track->start[i] <= track->end[i]);
            g_assert (track->name_id[i] < trace->n_strings);
            if (args != NULL)
              g_assert (args[0] == '{');
            ks_track_parent_slice (track, i);
            ks_track_self_time (track, i);
          }
      }
    for (guint32 i = 0; i < trace->n_flows; i++)
      {
        g_assert (trace->flows[i].from_track < trace->n_tracks);
        g_assert (trace->flows[i].from_slice < trace->tracks[trace->flows[i].from_track].n_slices);
        g_assert (trace->flows[i].to_slice < trace->tracks[trace->flows[i].to_track].n_slices);
      }
  }

  g_object_unref (trace);
  return 0;
}
