/* test-json-thread-keys.c: threads looked up once per chunk and (pid,
 * tid) build the model that a look-up per event builds
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>
#include <glib/gstdio.h>
#include <zlib.h>

#include "ks-trace-loader.h"

#include "test-dump.h"

static char *tmp_dir;
static gboolean saw_pairs_debug;  /* workers numbered the (pid, tid) pairs: */
static guint64 n_debug_pairs;     /* the chunks' pairs, */
static guint64 n_debug_resolved;  /* of them looked up in the replay */

/* The reader's debug line after a load on several threads with the
 * pairs numbered in the chunks. */
static void
log_handler (const char     *domain,
             GLogLevelFlags  level,
             const char     *message,
             gpointer        user_data)
{
  const char *p = g_strrstr (message, ": ");
  guint n_chunks;

  if (p != NULL && sscanf (p + 2, "thread pairs numbered in %u chunks, %" G_GUINT64_FORMAT " pairs, %" G_GUINT64_FORMAT
                           " resolved", &n_chunks, &n_debug_pairs, &n_debug_resolved) == 3)
    saw_pairs_debug = TRUE;
}

/* @path loaded with @threads threads and chunks of @chunk bytes (NULL:
 * the default). */
static KsTrace *
load_trace (const char  *path,
            const char  *threads,
            const char  *chunk,
            GError     **error)
{
  saw_pairs_debug = FALSE;
  n_debug_pairs = n_debug_resolved = 0;
  return test_dump_load (path, threads, "KINESCOPE_JSON_CHUNK_BYTES", chunk, error);
}

/* The .kscope of @path so loaded, or "error: " and the message. */
static GBytes *
load_dump (const char *path,
           const char *threads,
           const char *chunk)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_trace (path, threads, chunk, &error);

  return test_dump_bytes (trace, error, tmp_dir);
}



/* 5 and "5" name the same thread, 5 and "x5" two: the text of a quoted
 * number without its quotes (in one of two static buffers, enough for
 * the two arguments of one call). */
static const char *
unquote_number (const char *v)
{
  static char buf[2][32];
  static guint turn;
  gsize len = strlen (v);

  if (len < 3 || v[0] != '"' || !g_ascii_isdigit (v[1]) || len - 2 >= sizeof buf[0])
    return v;
  turn = (turn + 1) % 2;
  memcpy (buf[turn], v + 1, len - 2);
  buf[turn][len - 2] = '\0';
  return buf[turn];
}

/* Appends an event of phase @ph on (@pid, @tid), each a JSON value or
 * NULL for none, and notes the thread it is on in @threads: one without
 * a tid is on tid = pid, one without a pid in process 0. */
static void
append_on_pair (GString    *s,
                GHashTable *threads,
                const char *ph,
                const char *pid,
                const char *tid,
                guint       ts,
                const char *extra)
{
  const char *p = pid != NULL ? pid : "0";
  const char *t = tid != NULL ? tid : p;

  g_string_append_printf (s, "{\"ph\":\"%s\",\"name\":\"n%s\",\"cat\":\"c\",\"ts\":%u%s", ph, ph, ts, extra);
  if (pid != NULL)
    g_string_append_printf (s, ",\"pid\":%s", pid);
  if (tid != NULL)
    g_string_append_printf (s, ",\"tid\":%s", tid);
  g_string_append (s, "},\n");
  g_hash_table_add (threads, g_strdup_printf ("%s|%s", unquote_number (p), unquote_number (t)));
}

/* Threads and tracks looked up once per chunk and pair: numeric,
 * string and missing pids and tids (an event without a tid takes its
 * pid's, without a pid process 0), the same tid in two processes, and
 * every phase that finds its thread, in runs and interleaved, cut
 * anywhere: the same .kscope as one thread, on three and four threads,
 * with the pairs numbered in the chunks and looked up in the replay;
 * the model's threads are those the generator placed its events on. */
static void
test_thread_keys (void)
{
  static const char *const pids[] = { "1", "2", "\"proc a\"", "\"x1\"", "-3", "4294967296", NULL, "\"2\"" };
  static const char *const tids[] = { "5", "\"worker 5\"", NULL, "4294967295", "0", "\"5\"", "\"\"" };
  static const char *const chunks[] = { "1", "61", "4096", NULL };
  static const char *const threads_n[] = { "3", "4" };
  g_autoptr(GString) s = g_string_new ("{\"traceEvents\":[\n");
  g_autoptr(GHashTable) threads = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GString) gpt = test_dump_inflate_fixture ("gpt_3steps.pt.trace.json.gz");
  g_autofree char *path = NULL;
  g_autofree char *gpt_path = NULL;
  g_autoptr(GBytes) serial = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;

  for (guint i = 0; i < 600; i++)
    {
      /* runs of a pair, then pairs in turn */
      guint pair = i < 200 ? i / 25 : i * 7;
      const char *pid = pids[pair % G_N_ELEMENTS (pids)];
      const char *tid = tids[(pair / G_N_ELEMENTS (pids)) % G_N_ELEMENTS (tids)];
      g_autofree char *flow = g_strdup_printf (",\"id\":\"f%u\",\"bp\":\"e\"", i / 2);

      /* the tid an event without one took from its string pid is not
       * left in the next event's string tid */
      if (i % 50 == 0)
        {
          append_on_pair (s, threads, "X", "\"proc a\"", NULL, 10 * i, ",\"dur\":1");
          append_on_pair (s, threads, "X", "1", "\"worker 5\"", 10 * i, ",\"dur\":1");
        }
      switch (i % 5)
        {
        case 0:
        case 1:
          append_on_pair (s, threads, "X", pid, tid, 10 * i, ",\"dur\":4");
          break;
        case 2:
          append_on_pair (s, threads, "B", pid, tid, 10 * i, "");
          append_on_pair (s, threads, "E", pid, tid, 10 * i + 3, "");
          break;
        case 3:
          append_on_pair (s, threads, "i", pid, tid, 10 * i, ",\"s\":\"t\"");
          break;
        default:
          append_on_pair (s, threads, i % 2 ? "f" : "s", pid, tid, 10 * i, flow);
          break;
        }
    }
  g_string_append (s, "{\"ph\":\"X\",\"name\":\"last\",\"pid\":1,\"tid\":5,\"ts\":9000,\"dur\":1}]}\n");
  path = test_dump_write_file (tmp_dir, "thread-keys.json", s->str, s->len);
  serial = load_dump (path, "1", NULL);
  g_assert_false (saw_pairs_debug);

  for (guint c = 0; c < G_N_ELEMENTS (chunks); c++)
    for (guint t = 0; t < G_N_ELEMENTS (threads_n); t++)
      for (guint keys = 0; keys <= 1; keys++)
        {
          g_autoptr(GBytes) other = NULL;
          g_autofree char *how = g_strdup_printf ("%s threads, chunks of %s bytes, pairs %s", threads_n[t],
                                                  chunks[c] ? chunks[c] : "default",
                                                  keys ? "numbered in the chunks" : "looked up in the replay");

          g_setenv ("KINESCOPE_JSON_THREAD_KEYS", keys ? "chunk" : "replay", TRUE);
          other = load_dump (path, threads_n[t], chunks[c]);
          g_unsetenv ("KINESCOPE_JSON_THREAD_KEYS");
          test_dump_assert_same (path, how, serial, other);
          g_assert_true (saw_pairs_debug == keys);
          if (keys)
            {
              /* every pair a chunk saw was looked up once, in it (the
               * text before the first cut is parsed on the reading
               * thread, its pairs not numbered) */
              g_assert_cmpuint (n_debug_pairs, >, 0);
              g_assert_cmpuint (n_debug_resolved, ==, n_debug_pairs);
            }
        }

  trace = load_trace (path, "3", "61", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (trace->n_threads, ==, g_hash_table_size (threads));

  /* a real trace, chunk after chunk, numbered by default from three threads */
  gpt_path = test_dump_write_file (tmp_dir, "gpt-pairs.json", gpt->str, gpt->len);
  g_clear_pointer (&serial, g_bytes_unref);
  serial = load_dump (gpt_path, "1", NULL);
  for (guint t = 0; t < G_N_ELEMENTS (threads_n); t++)
    {
      g_autoptr(GBytes) other = load_dump (gpt_path, threads_n[t], "4096");

      test_dump_assert_same (gpt_path, "chunks of 4096 bytes", serial, other);
      g_assert_true (saw_pairs_debug);
      g_assert_cmpuint (n_debug_pairs, >, 0);
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
  tmp_dir = g_dir_make_tmp ("ks-json-thread-keys-XXXXXX", NULL);

  g_test_add_func ("/json-thread-keys/pairs", test_thread_keys);

  ret = g_test_run ();
  test_dump_remove_dir (tmp_dir);
  g_free (tmp_dir);
  return ret;
}
