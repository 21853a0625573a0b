/* replay-main.c: runs a fuzz harness over files, without libFuzzer
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Linked with each harness in ordinary builds, so that the seed corpora
 * and the inputs of past findings in fuzz/ are tests:
 *
 *   fuzz-json-replay FILE-OR-FOLDER...
 */

#include "config.h"

#include <stdint.h>
#include <stdio.h>

#include <glib.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);
int LLVMFuzzerInitialize (int *argc, char ***argv) __attribute__((weak));

static guint
replay (const char *path)
{
  g_autofree char *data = NULL;
  g_autoptr(GError) error = NULL;
  gsize len;

  if (g_file_test (path, G_FILE_TEST_IS_DIR))
    {
      g_autoptr(GDir) dir = g_dir_open (path, 0, &error);
      g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
      const char *name;
      guint n = 0;

      if (dir == NULL)
        g_error ("%s", error->message);
      while ((name = g_dir_read_name (dir)))
        g_ptr_array_add (names, g_build_filename (path, name, NULL));
      g_ptr_array_sort (names, (GCompareFunc) g_strcmp0);
      for (guint i = 0; i < names->len; i++)
        n += replay (g_ptr_array_index (names, i));
      return n;
    }

  if (!g_file_get_contents (path, &data, &len, &error))
    g_error ("%s", error->message);
  LLVMFuzzerTestOneInput ((const uint8_t *) data, len);
  printf ("ok %s\n", path);
  return 1;
}

int
main (int    argc,
      char **argv)
{
  guint n = 0;

  if (LLVMFuzzerInitialize != NULL)
    LLVMFuzzerInitialize (&argc, &argv);
  for (int i = 1; i < argc; i++)
    n += replay (argv[i]);
  printf ("%u inputs\n", n);
  return n > 0 ? 0 : 1;
}
