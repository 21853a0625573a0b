/* test-dump.h: a load as the bytes of the .kscope it saves to, for the
 * tests that two ways of loading a file give the same model
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <string.h>
#include <glib/gstdio.h>
#include <zlib.h>

#include "ks-kscope-writer.h"
#include "ks-trace.h"
#include "ks-trace-loader.h"

/* @path loaded on @threads threads with the environment variable
 * @unit_var (the reader's chunk or block size) set to @unit, or unset
 * when @unit is NULL; both are unset again after the load. */
static inline KsTrace *
test_dump_load (const char  *path,
                const char  *threads,
                const char  *unit_var,
                const char  *unit,
                GError     **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  KsTrace *trace;

  g_setenv ("KINESCOPE_THREADS", threads, TRUE);
  if (unit != NULL)
    g_setenv (unit_var, unit, TRUE);
  else
    g_unsetenv (unit_var);
  trace = ks_trace_load (file, NULL, NULL, error);
  g_unsetenv ("KINESCOPE_THREADS");
  g_unsetenv (unit_var);
  return trace;
}

/* What a load gave: the .kscope @trace saves to (written in @dir), or,
 * when @trace is NULL, "error: " and @error's message. */
static inline GBytes *
test_dump_bytes (KsTrace      *trace,
                 const GError *error,
                 const char   *dir)
{
  g_autofree char *out = g_build_filename (dir, "dump.kscope", NULL);
  g_autoptr(GFile) out_file = g_file_new_for_path (out);
  g_autoptr(GError) write_error = NULL;
  char *data = NULL;
  gsize len = 0;

  if (trace == NULL)
    {
      char *text = g_strdup_printf ("error: %s", error->message);

      return g_bytes_new_take (text, strlen (text));
    }
  g_unlink (out);
  g_assert_true (ks_kscope_write (trace, out_file, NULL, NULL, &write_error));
  g_assert_no_error (write_error);
  g_assert_true (g_file_get_contents (out, &data, &len, NULL));
  g_unlink (out);
  return g_bytes_new_take (data, len);
}

static inline gboolean
test_dump_is_error (GBytes *dump)
{
  gsize len;
  const char *bytes = g_bytes_get_data (dump, &len);

  return len > 6 && memcmp (bytes, "error:", 6) == 0;
}

/* Fails, saying which of @path's loads gave what, unless @one and @other
 * are the same bytes. */
static inline void
test_dump_assert_same (const char *path,
                       const char *how,
                       GBytes     *one,
                       GBytes     *other)
{
  if (g_bytes_equal (one, other))
    return;
  g_test_message ("%s, %s: one thread %.200s (%" G_GSIZE_FORMAT " bytes), several %.200s (%" G_GSIZE_FORMAT " bytes)",
                  path, how, test_dump_is_error (one) ? (const char *) g_bytes_get_data (one, NULL) : "a trace",
                  g_bytes_get_size (one),
                  test_dump_is_error (other) ? (const char *) g_bytes_get_data (other, NULL) : "a trace",
                  g_bytes_get_size (other));
  g_assert_not_reached ();
}

typedef gboolean (*TestDumpKeep) (const char *path);

/* The files below @dir (in its folders too when @recursive) that @keep
 * keeps, added to @into (a new array when NULL), sorted. */
static inline GPtrArray *
test_dump_list_files (const char   *dir,
                      gboolean      recursive,
                      TestDumpKeep  keep,
                      GPtrArray    *into)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (into == NULL)
    into = g_ptr_array_new_with_free_func (g_free);
  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          if (recursive)
            test_dump_list_files (path, TRUE, keep, into);
        }
      else if (keep (path))
        g_ptr_array_add (into, g_steal_pointer (&path));
    }
  g_ptr_array_sort (into, (GCompareFunc) g_strcmp0);
  return into;
}

/* Removes the files of @dir, then @dir. */
static inline void
test_dump_remove_dir (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *p = g_build_filename (dir, name, NULL);

      g_unlink (p);
    }
  g_rmdir (dir);
}

/* @data written to @dir/@name; the path, to free. */
static inline char *
test_dump_write_file (const char *dir,
                      const char *name,
                      const char *data,
                      gsize       len)
{
  char *path = g_build_filename (dir, name, NULL);

  g_assert_true (g_file_set_contents (path, data, len, NULL));
  return path;
}

/* The text of the gzip fixture @name of $KS_FIXTURES_DIR. */
static inline GString *
test_dump_inflate_fixture (const char *name)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);
  gzFile gz = gzopen (path, "rb");
  GString *s = g_string_new (NULL);
  char buf[65536];
  int n;

  g_assert_nonnull (gz);
  while ((n = gzread (gz, buf, sizeof buf)) > 0)
    g_string_append_len (s, buf, n);
  g_assert_cmpint (n, ==, 0);
  g_assert_cmpint (gzclose (gz), ==, Z_OK);
  return s;
}
