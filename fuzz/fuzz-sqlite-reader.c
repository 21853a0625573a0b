/* fuzz-sqlite-reader.c: libFuzzer harness for the SQLite trace reader
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Writes each input to a file and opens it with ks_sqlite_reader_load(),
 * the reader of .kscope files and Nsight Systems exports, then walks the
 * trace. The SQLite magic is put back in front of every input, so that
 * the mutations are spent on pages and rows instead of the first 16
 * bytes. Seeds: fuzz/make-sqlite-seeds.sh. See README.md, "Fuzzing".
 */

#include "config.h"

#include <stdint.h>
#include <string.h>

#include "fuzz-common.h"
#include "ks-sqlite-reader.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static const char magic[16] = "SQLite format 3";

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const char *path = fuzz_temp_file ("fuzz.kscope");
  g_autoptr(GFile) file = NULL;
  g_autofree guint8 *copy = NULL;
  GError *error = NULL;
  KsTrace *trace;

  fuzz_init ();

  copy = g_memdup2 (data, size);
  if (size >= sizeof magic)
    memcpy (copy, magic, sizeof magic);
  g_assert (g_file_set_contents (path, (const char *) copy, size, NULL));

  file = g_file_new_for_path (path);
  trace = ks_sqlite_reader_load (file, NULL, NULL, &error);
  if (trace == NULL)
    {
      g_assert (error != NULL);
      g_assert (strstr (error->message, "fuzz.kscope") != NULL);
      g_error_free (error);
      return 0;
    }

  fuzz_walk_trace (trace, FALSE);
  g_object_unref (trace);
  return 0;
}
