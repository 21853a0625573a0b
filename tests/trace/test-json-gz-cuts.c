/* test-json-gz-cuts.c: a .json.gz's inflated text cut as it lies, each
 * chunk copied and compacted by the thread that parses it, gives the
 * model, the errors and the warnings that one thread gives
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "test-dump.h"
#include "test-raw-trace.h"

static char *tmp_dir;
static guint n_debug_inflated;  /* chunks cut from the inflated text, last load */
static guint n_debug_chunks;
static guint n_debug_gave_up;   /* cuts as it lies given up, last load */
static guint n_debug_merged;    /* cuts not between two events */
static guint n_debug_runs;      /* times the inflated text was cut as it lies */

static void
log_handler (const char     *domain,
             GLogLevelFlags  level,
             const char     *message,
             gpointer        user_data)
{
  const char *p = g_strrstr (message, ": ");
  guint threads;

  if (p == NULL)
    return;
  if (sscanf (p + 2, "%u chunks on %u threads, %u cuts", &n_debug_chunks, &threads, &n_debug_merged) == 3)
    return;
  if (strstr (message, ": cuts as it lies given up: ") != NULL)
    n_debug_gave_up++;
  if (strstr (p, " chunks cut from the inflated text as it lies") != NULL)
    {
      sscanf (p + 2, "%u chunks", &n_debug_inflated);
      n_debug_runs++;
    }
}

/* @data gzipped into @name in the temporary folder: its path. */
static char *
write_gz (const char *name,
          const char *data,
          gsize       len)
{
  char *path = g_build_filename (tmp_dir, name, NULL);
  gzFile gz = gzopen (path, "wb6");

  g_assert_nonnull (gz);
  g_assert_cmpint (gzwrite (gz, data, len), ==, (int) len);
  g_assert_cmpint (gzclose (gz), ==, Z_OK);
  return path;
}

/* What a load of @path on @threads with chunks of @chunk bytes (NULL:
 * the default) gives, its white space dropped as @compact says
 * (KINESCOPE_GZ_COMPACT; NULL: the default). */
static GBytes *
load_dump (const char *path,
           const char *threads,
           const char *chunk,
           const char *compact)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;

  n_debug_inflated = n_debug_chunks = n_debug_merged = n_debug_runs = n_debug_gave_up = 0;
  if (compact != NULL)
    g_setenv ("KINESCOPE_GZ_COMPACT", compact, TRUE);
  trace = test_dump_load (path, threads, "KINESCOPE_JSON_CHUNK_BYTES", chunk, &error);
  g_unsetenv ("KINESCOPE_GZ_COMPACT");
  return test_dump_bytes (trace, error, tmp_dir);
}

/* @path loaded on @threads at each chunk size of @chunks, cut from the
 * inflated text (=chunks, and the default where @chunks' size is NULL)
 * and compacted on the reading thread first (=read): the same dump as
 * @serial, byte for byte. Returns whether any load found a cut not
 * between two events. */
static gboolean
check_same (const char        *path,
            GBytes            *serial,
            const char        *threads,
            const char *const *chunks,
            guint              n_chunks)
{
  gboolean merged = FALSE;

  for (guint i = 0; i < n_chunks; i++)
    {
      const char *ways[] = { "chunks", "read", NULL };

      for (guint w = 0; w < G_N_ELEMENTS (ways); w++)
        {
          g_autofree char *how = NULL;
          g_autoptr(GBytes) other = NULL;

          /* the default way once, with the default chunks */
          if (ways[w] == NULL && chunks[i] != NULL)
            continue;
          how = g_strdup_printf ("%s threads, chunks of %s bytes, KINESCOPE_GZ_COMPACT=%s", threads,
                                 chunks[i] ? chunks[i] : "default", ways[w] ? ways[w] : "(default)");
          other = load_dump (path, threads, chunks[i], ways[w]);
          test_dump_assert_same (path, how, serial, other);
          if (w == 1)
            {
              g_assert_cmpuint (n_debug_inflated, ==, 0);
              continue;
            }
          /* all but the first block's chunks, and the tail's */
          g_assert_cmpuint (2 * n_debug_inflated, >, n_debug_chunks);
          merged |= n_debug_merged > 0;
        }
    }
  return merged;
}

/* White space of every kind between events and inside them, cuts'
 * look-alikes in strings and args, runs of white space longer than a
 * look for a cut, text after the array: the same model as one thread on
 * three and eight threads with small chunks and the default, and cuts
 * inside strings and args found out. */
static void
test_white_space (void)
{
  g_autoptr(GString) s = test_raw_trace (24000);
  g_autofree char *path = NULL;
  g_autoptr(GBytes) serial = NULL;
  static const char *const chunks3[] = { "61", "4096", NULL };
  static const char *const chunks8[] = { "4096", NULL };

  g_assert_cmpuint (s->len, >, 3000 * 1000);
  path = write_gz ("gz-cuts.json.gz", s->str, s->len);
  serial = load_dump (path, "1", NULL, NULL);
  g_assert_false (g_str_has_prefix (g_bytes_get_data (serial, NULL), "error: "));
  g_assert_cmpuint (n_debug_inflated, ==, 0);
  g_assert_true (check_same (path, serial, "3", chunks3, G_N_ELEMENTS (chunks3)));
  check_same (path, serial, "8", chunks8, G_N_ELEMENTS (chunks8));
}

/* The model: the slices the generator wrote, each with its args, so that
 * a chunk compacted from the wrong state (a cut inside a string, its
 * white space dropped) shows. */
static void
test_model (void)
{
  g_autoptr(GString) s = test_raw_trace (16000);
  g_autofree char *path = write_gz ("gz-model.json.gz", s->str, s->len);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  n_debug_inflated = n_debug_merged = 0;
  g_setenv ("KINESCOPE_GZ_COMPACT", "chunks", TRUE);
  trace = test_dump_load (path, "3", "KINESCOPE_JSON_CHUNK_BYTES", "61", &error);
  g_unsetenv ("KINESCOPE_GZ_COMPACT");
  g_assert_no_error (error);
  g_assert_cmpuint (n_debug_inflated, >, 1000);
  g_assert_cmpuint (n_debug_merged, >, 0);
  test_raw_trace_check_model (trace, 16000);
}

/* A syntax error 2 MB into the inflated text, in a chunk whose thread
 * counted its place from 0, and one right at a cut: the line and byte
 * of the inflated text, counted here, as on one thread. */
static void
test_errors (void)
{
  g_autoptr(GString) s = test_raw_trace (24000);
  static const char *const chunks[] = { "61", "4096", NULL };
  const char *marks[] = { "\"dur\": ", "}\r\n,\r\n{" };

  for (guint m = 0; m < G_N_ELEMENTS (marks); m++)
    {
      g_autoptr(GString) broken = g_string_new_len (s->str, s->len);
      char *at = strstr (broken->str + 2 * 1024 * 1024 + 1000 * m, marks[m]);
      g_autofree char *name = g_strdup_printf ("gz-broken-%u.json.gz", m);
      g_autofree char *path = NULL;
      g_autofree char *where = NULL;
      g_autoptr(GBytes) serial = NULL;
      guint line = 1;

      g_assert_nonnull (at);
      at += m == 0 ? 5 : 1;
      *at = ';';
      for (const char *c = broken->str; c < at; c++)
        line += *c == '\n';
      /* bytes counted from 1 */
      where = g_strdup_printf ("invalid JSON at line %u, byte %" G_GSIZE_FORMAT ": ", line,
                               (gsize) (at - broken->str) + 1);
      path = write_gz (name, broken->str, broken->len);
      serial = load_dump (path, "1", NULL, NULL);
      g_test_message ("%s (looked for \"%s\")", (const char *) g_bytes_get_data (serial, NULL), where);
      g_assert_true (g_str_has_prefix (g_bytes_get_data (serial, NULL), "error: "));
      g_assert_nonnull (strstr (g_bytes_get_data (serial, NULL), where));
      for (guint i = 0; i < G_N_ELEMENTS (chunks); i++)
        {
          g_autoptr(GBytes) other = load_dump (path, "3", chunks[i], "chunks");

          test_dump_assert_same (path, chunks[i] ? chunks[i] : "default chunks", serial, other);
          g_assert_cmpuint (n_debug_inflated, >, 0);
        }
      {
        g_autoptr(GBytes) other = load_dump (path, "8", NULL, NULL);

        test_dump_assert_same (path, "8 threads, the default way", serial, other);
        g_assert_cmpuint (n_debug_inflated, >, 0);
      }
    }
}

/* The compressed data cut short two thirds in: the same events and
 * warning as one thread; damaged there (garbage inflated, found out by
 * the checksum at the end): the same error as when the reading thread
 * compacts on as many threads (on one thread the checksum's, on several
 * the garbage's syntax error, as before). */
static void
test_truncated (void)
{
  g_autoptr(GString) s = test_raw_trace (24000);
  g_autofree char *path = write_gz ("gz-whole.json.gz", s->str, s->len);
  g_autofree char *data = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));
  for (guint damaged = 0; damaged <= 1; damaged++)
    {
      g_autofree char *cut_path = NULL;
      g_autoptr(GBytes) serial = NULL;
      const char *text;

      if (damaged)
        memset (data + len * 2 / 3, 0xff, 64);
      cut_path = test_dump_write_file (tmp_dir, damaged ? "gz-damaged.json.gz" : "gz-cut.json.gz",
                                       data, damaged ? len : len * 2 / 3);
      serial = load_dump (cut_path, "1", NULL, NULL);
      text = g_bytes_get_data (serial, NULL);
      if (damaged)
        {
          g_assert_true (g_str_has_prefix (text, "error: "));
          g_assert_nonnull (strstr (text, "gzip checksum"));
        }
      else
        {
          g_autoptr(GError) error = NULL;
          g_autoptr(KsTrace) trace = NULL;
          g_autoptr(GFile) file = g_file_new_for_path (cut_path);
          guint n_slices = 0;

          g_assert_false (g_str_has_prefix (text, "error: "));
          g_setenv ("KINESCOPE_THREADS", "3", TRUE);
          g_setenv ("KINESCOPE_GZ_COMPACT", "chunks", TRUE);
          trace = ks_trace_load (file, NULL, NULL, &error);
          g_unsetenv ("KINESCOPE_GZ_COMPACT");
          g_unsetenv ("KINESCOPE_THREADS");
          g_assert_no_error (error);
          g_assert_nonnull (strstr (ks_trace_get_metadata (trace, "warnings"), "compressed data ends early"));
          /* more than the first MiB's events, fewer than all */
          for (guint t = 0; t < trace->n_tracks; t++)
            n_slices += trace->tracks[t].n_slices;
          g_assert_cmpuint (n_slices, >, 8000);
          g_assert_cmpuint (n_slices, <, 24000);
        }
      for (guint threads = 3; threads <= 8; threads += 5)
        {
          g_autofree char *n = g_strdup_printf ("%u", threads);
          const char *chunk = threads == 3 ? "4096" : "65536";
          g_autoptr(GBytes) before = load_dump (cut_path, n, chunk, "read");
          g_autoptr(GBytes) other = load_dump (cut_path, n, chunk, "chunks");

          g_assert_cmpuint (n_debug_inflated, >, 0);
          test_dump_assert_same (cut_path, n, before, other);
          if (!damaged)
            test_dump_assert_same (cut_path, n, serial, other);
          else
            g_assert_nonnull (strstr (g_bytes_get_data (other, NULL), cut_path));
        }
    }
}

/* An event of 6 MB in the middle, longer than the reading thread looks
 * through a .json.gz's blocks for a cut, its string full of cuts'
 * look-alikes: the text around it compacted on the reading thread and
 * cut as before, then cut as it lies again after it; the same model as
 * one thread. */
static void
test_giant_event (void)
{
  g_autoptr(GString) s = g_string_new ("{\"traceEvents\": [\n");
  g_autofree char *path = NULL;
  g_autoptr(GBytes) serial = NULL;
  static const char *const chunks[] = { "4096", NULL };

  for (guint i = 0; i < 40000; i++)
    {
      if (i > 0)
        g_string_append (s, ",\n");
      g_string_append_printf (s, "{\"ph\": \"X\", \"name\": \"op %u\", \"pid\": 1, \"tid\": %u, \"ts\": %u, \"dur\": 2",
                              i % 50, 1 + i % 3, 10 * i);
      if (i == 20000)
        {
          g_string_append (s, ", \"args\": {\"s\": \"");
          for (guint k = 0; k < 6 * 1024 * 1024 / 8; k++)
            g_string_append (s, "x},{\\\"  ");
          g_string_append (s, "\"}");
        }
      g_string_append (s, "}");
    }
  g_string_append (s, "\n]}");
  path = write_gz ("gz-giant.json.gz", s->str, s->len);
  serial = load_dump (path, "1", NULL, NULL);
  g_assert_false (g_str_has_prefix (g_bytes_get_data (serial, NULL), "error: "));
  for (guint i = 0; i < G_N_ELEMENTS (chunks); i++)
    {
      g_autoptr(GBytes) other = load_dump (path, "3", chunks[i], "chunks");

      test_dump_assert_same (path, chunks[i] ? chunks[i] : "default chunks", serial, other);
      /* before the event and after it */
      g_assert_cmpuint (n_debug_runs, >=, 2);
      g_assert_cmpuint (n_debug_inflated, >, 0);
    }
}

/* Every event's args end in a string ending in `},{`, so that nearly
 * every cut looked for in a .json.gz's inflated text as it lies falls inside a string and the
 * chunks are parsed again with the next, and again: the cuts as it lies
 * are given up once such a chunk grows past a few chunks' text, the rest
 * cut from the compacted text (which is cut from its last `},{"` back):
 * the same model as one thread, and a load that is not parsed again and
 * again to its end. */
static void
test_look_alikes (void)
{
  g_autoptr(GString) s = test_raw_trace_look_alikes (300000);
  g_autofree char *path = write_gz ("look-alikes.json.gz", s->str, s->len);
  g_autoptr(GBytes) serial = load_dump (path, "1", NULL, NULL);
  static const char *const threads[] = { "2", "3", "8" };

  g_assert_false (g_str_has_prefix (g_bytes_get_data (serial, NULL), "error: "));
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    {
      g_autoptr(GBytes) other = load_dump (path, threads[i], NULL, NULL);

      test_dump_assert_same (path, threads[i], serial, other);
      g_assert_cmpuint (n_debug_gave_up, ==, 1);
      g_assert_cmpuint (n_debug_inflated, >, 0);
      /* most chunks cut from the compacted text, few of them wrongly */
      g_assert_cmpuint (2 * n_debug_merged, <, n_debug_chunks);
    }
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  g_setenv ("G_MESSAGES_DEBUG", "ks-json-reader", TRUE);
  g_test_init (&argc, &argv, NULL);
  g_log_set_handler ("ks-json-reader", G_LOG_LEVEL_DEBUG, log_handler, NULL);
  tmp_dir = g_dir_make_tmp ("ks-json-gz-cuts-XXXXXX", NULL);

  g_test_add_func ("/json-gz-cuts/white-space", test_white_space);
  g_test_add_func ("/json-gz-cuts/model", test_model);
  g_test_add_func ("/json-gz-cuts/errors", test_errors);
  g_test_add_func ("/json-gz-cuts/truncated", test_truncated);
  g_test_add_func ("/json-gz-cuts/giant-event", test_giant_event);
  g_test_add_func ("/json-gz-cuts/look-alikes", test_look_alikes);
  ret = g_test_run ();

  test_dump_remove_dir (tmp_dir);
  return ret;
}
