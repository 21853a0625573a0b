/* test-json-raw-cuts.c: chunks cut from a plain file's text as it lies,
 * each compacted by the thread that parses it, give the model that one
 * thread builds
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>
#include <unistd.h>

#include "ks-progress.h"

#include "test-dump.h"
#include "test-raw-trace.h"

static char *tmp_dir;
static guint n_debug_raw;      /* chunks cut from the file's text, last load */
static guint n_debug_chunks;
static guint n_debug_gave_up;   /* cuts as it lies given up, last load */
static guint n_debug_merged;   /* cuts not between two events */

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
  if (strstr (p, " chunks cut from the file's text as it lies") != NULL)
    sscanf (p + 2, "%u chunks", &n_debug_raw);
}

/* What a load of @path on @threads with chunks of @chunk bytes (NULL:
 * the default) gives, cutting the text as it lies (@raw) or compacted. */
static GBytes *
load_dump (const char *path,
           const char *threads,
           const char *chunk,
           gboolean    raw)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;

  n_debug_raw = n_debug_chunks = n_debug_merged = n_debug_gave_up = 0;
  g_setenv ("KINESCOPE_JSON_CUT", raw ? "raw" : "compacted", TRUE);
  trace = test_dump_load (path, threads, "KINESCOPE_JSON_CHUNK_BYTES", chunk, &error);
  g_unsetenv ("KINESCOPE_JSON_CUT");
  return test_dump_bytes (trace, error, tmp_dir);
}

/* @path loaded on one thread, and on @threads with the text cut as it
 * lies at each chunk size of @chunks and the default, and compacted
 * first: the same dump, byte for byte. Returns whether any load found a
 * cut not between two events. */
static gboolean
check_same (const char        *path,
            const char        *threads,
            const char *const *chunks,
            guint              n_chunks)
{
  g_autoptr(GBytes) serial = load_dump (path, "1", NULL, TRUE);
  gboolean merged = FALSE;

  g_assert_cmpuint (n_debug_raw, ==, 0);
  for (guint i = 0; i <= n_chunks; i++)
    for (guint raw = 0; raw <= 1; raw++)
      {
        const char *chunk = i < n_chunks ? chunks[i] : NULL;
        g_autofree char *how = g_strdup_printf ("%s threads, chunks of %s bytes, %s", threads,
                                                chunk ? chunk : "default",
                                                raw ? "cut as it lies" : "compacted first");
        g_autoptr(GBytes) other = load_dump (path, threads, chunk, raw);

        test_dump_assert_same (path, how, serial, other);
        /* all but the first MiB's chunks, and the tail's */
        if (raw)
          g_assert_cmpuint (2 * n_debug_raw, >, n_debug_chunks);
        else
          g_assert_cmpuint (n_debug_raw, ==, 0);
        merged |= raw && n_debug_merged > 0;
      }
  return merged;
}

/* White space of every kind between events and inside them, cuts'
 * look-alikes in strings and args, runs of white space longer than a
 * look for a cut, text after the array: the same model as one thread at
 * every chunk size, on three, four and eight threads, and cuts inside
 * strings and args found out. */
static void
test_white_space (void)
{
  g_autoptr(GString) s = test_raw_trace (24000);
  g_autofree char *path = NULL;
  static const char *const chunks[] = { "1", "61", "4096", "100000" };

  g_assert_cmpuint (s->len, >, 3000 * 1000);
  path = test_dump_write_file (tmp_dir, "raw-cuts.json", s->str, s->len);
  g_assert_true (check_same (path, "3", chunks, G_N_ELEMENTS (chunks)));
  check_same (path, "4", chunks + 1, 2);
  check_same (path, "8", chunks + 2, 1);
}

/* The model: the slices the generator wrote, each with its args, so that
 * a chunk compacted from the wrong state (white space dropped inside a
 * string, or kept outside) shows. */
static void
test_model (void)
{
  g_autoptr(GString) s = test_raw_trace (16000);
  g_autofree char *path = test_dump_write_file (tmp_dir, "raw-model.json", s->str, s->len);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_setenv ("KINESCOPE_JSON_CUT", "raw", TRUE);
  trace = test_dump_load (path, "3", "KINESCOPE_JSON_CHUNK_BYTES", "61", &error);
  g_unsetenv ("KINESCOPE_JSON_CUT");
  g_assert_no_error (error);
  g_assert_cmpuint (n_debug_raw, >, 1000);
  g_assert_cmpuint (n_debug_merged, >, 0);
  test_raw_trace_check_model (trace, 16000);
}

/* A syntax error far into the text cut as it lies, in a chunk whose
 * thread counted its place from 0: the same line and byte as one
 * thread; and one right at a cut. */
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
      g_autofree char *name = g_strdup_printf ("raw-broken-%u.json", m);
      g_autofree char *path = NULL;
      g_autoptr(GBytes) serial = NULL;

      g_assert_nonnull (at);
      at[m == 0 ? 5 : 1] = ';';
      path = test_dump_write_file (tmp_dir, name, broken->str, broken->len);
      serial = load_dump (path, "1", NULL, TRUE);
      g_assert_true (g_str_has_prefix (g_bytes_get_data (serial, NULL), "error: "));
      g_assert_nonnull (strstr (g_bytes_get_data (serial, NULL), "invalid JSON at line "));
      for (guint i = 0; i < G_N_ELEMENTS (chunks); i++)
        {
          g_autoptr(GBytes) other = load_dump (path, "3", chunks[i], TRUE);

          test_dump_assert_same (path, chunks[i] ? chunks[i] : "default chunks", serial, other);
          g_assert_cmpuint (n_debug_raw, >, 0);
        }
    }
}

static gboolean shrunk;

static void
shrink_on_progress (KsProgress *progress,
                    gpointer    user_data)
{
  if (!shrunk && ks_progress_get_fraction (progress) > 0.3)
    {
      shrunk = TRUE;
      g_assert_no_errno (truncate (user_data, 1536 * 1024));
    }
}

/* Another program truncating the file while its chunks are cut: the
 * threads that parse them read it later, so the text ends where the
 * file now ends, as with any file cut short: every event that it still
 * holds, and a warning. */
static void
test_shrunk (void)
{
  g_autoptr(GString) json = g_string_new ("[\n");
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsProgress) progress = ks_progress_new ();
  g_autoptr(GFile) file = NULL;
  g_autofree char *path = NULL;
  const KsTrack *track;
  guint n = 0, n_kept = 0;

  while (json->len < 6 * 1024 * 1024)
    {
      g_string_append_printf (json, "{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": %u, \"dur\": 1},\n",
                              n++ * 2);
      if (json->len <= 1536 * 1024)
        n_kept = n;
    }
  g_string_append (json, "{\"ph\":\"i\",\"name\":\"end\",\"pid\":1,\"tid\":1,\"ts\":0}]");
  path = test_dump_write_file (tmp_dir, "shrinking.json", json->str, json->len);
  file = g_file_new_for_path (path);

  ks_progress_set_notify (progress, shrink_on_progress, g_strdup (path), g_free);
  g_setenv ("KINESCOPE_JSON_CUT", "raw", TRUE);
  g_setenv ("KINESCOPE_THREADS", "3", TRUE);
  n_debug_raw = 0;
  trace = ks_trace_load (file, progress, NULL, &error);
  g_unsetenv ("KINESCOPE_THREADS");
  g_unsetenv ("KINESCOPE_JSON_CUT");
  g_assert_no_error (error);
  g_assert_true (shrunk);
  g_assert_cmpuint (n_debug_raw, >, 0);
  g_assert_nonnull (strstr (ks_trace_get_metadata (trace, "warnings"), "truncated"));
  g_assert_cmpuint (trace->n_threads, ==, 1);
  track = &trace->tracks[trace->threads[0].track];
  /* the events it still holds; at most those cut before it shrank */
  g_assert_cmpuint (track->n_slices, >=, n_kept);
  g_assert_cmpuint (track->n_slices, <, n / 2);
  g_unlink (path);
}

/* Every event's args end in a string ending in `},{`, so that nearly
 * every cut looked for in a plain file's text as it lies falls inside a string and the
 * chunks are parsed again with the next, and again: the cuts as it lies
 * are given up once such a chunk grows past a few chunks' text, the rest
 * cut from the compacted text (which is cut from its last `},{"` back):
 * the same model as one thread, and a load that is not parsed again and
 * again to its end. */
static void
test_look_alikes (void)
{
  g_autoptr(GString) s = test_raw_trace_look_alikes (300000);
  g_autofree char *path = test_dump_write_file (tmp_dir, "look-alikes.json", s->str, s->len);
  g_autoptr(GBytes) serial = load_dump (path, "1", NULL, TRUE);
  static const char *const threads[] = { "2", "3", "8" };

  g_assert_false (g_str_has_prefix (g_bytes_get_data (serial, NULL), "error: "));
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    {
      g_autoptr(GBytes) other = load_dump (path, threads[i], NULL, TRUE);

      test_dump_assert_same (path, threads[i], serial, other);
      g_assert_cmpuint (n_debug_gave_up, ==, 1);
      g_assert_cmpuint (n_debug_raw, >, 0);
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
  tmp_dir = g_dir_make_tmp ("ks-json-raw-cuts-XXXXXX", NULL);

  g_test_add_func ("/json-raw-cuts/white-space", test_white_space);
  g_test_add_func ("/json-raw-cuts/model", test_model);
  g_test_add_func ("/json-raw-cuts/errors", test_errors);
  g_test_add_func ("/json-raw-cuts/shrunk", test_shrunk);
  g_test_add_func ("/json-raw-cuts/look-alikes", test_look_alikes);
  ret = g_test_run ();

  test_dump_remove_dir (tmp_dir);
  return ret;
}
