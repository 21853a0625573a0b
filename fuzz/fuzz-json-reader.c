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

#include "fuzz-common.h"
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

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  GInputStream *stream;
  KsTrace *trace;
  GError *error = NULL;

  fuzz_init ();

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

  fuzz_walk_trace (trace, TRUE);
  g_object_unref (trace);
  return 0;
}
