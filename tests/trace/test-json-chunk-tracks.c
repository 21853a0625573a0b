/* test-json-chunk-tracks.c: complete events gathered by track where
 * their chunk is parsed, and added in bulk by the replay, build the
 * model that adding them one by one builds
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
static gboolean saw_bulk_debug;  /* the reader gathered slices by track: */
static guint64 n_gathered;       /* so many, */
static guint64 n_bulk;           /* of them added in bulk */

static void
log_handler (const char     *domain,
             GLogLevelFlags  level,
             const char     *message,
             gpointer        user_data)
{
  const char *p = g_strrstr (message, ": ");

  if (p != NULL && sscanf (p + 2, "slices gathered by track %" G_GUINT64_FORMAT ", added in bulk %" G_GUINT64_FORMAT,
                           &n_gathered, &n_bulk) == 2)
    saw_bulk_debug = TRUE;
}

static KsTrace *
load_trace (const char  *path,
            const char  *threads,
            const char  *chunk,
            GError     **error)
{
  saw_bulk_debug = FALSE;
  n_gathered = n_bulk = 0;
  return test_dump_load (path, threads, "KINESCOPE_JSON_CHUNK_BYTES", chunk, error);
}

static GBytes *
load_dump (const char *path,
           const char *threads,
           const char *chunk)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_trace (path, threads, chunk, &error);

  return test_dump_bytes (trace, error, tmp_dir);
}



/* The CPU pairs of the generated trace; the last two are one thread (a
 * missing tid is the pid's), two groups of a chunk on one track. */
static const struct
{
  const char *pid;
  const char *tid;
  gint64      thread_pid;   /* the thread's, as the model numbers it */
  gint64      thread_tid;
} pairs[] = {
  { "1", "5", 1, 5 },
  { "1", "6", 1, 6 },
  { "2", "5", 2, 5 },
  { "3", NULL, 3, 3 },
  { "3", "3", 3, 3 },
  { "\"proc a\"", "\"w 1\"", -1, -1 },
};

#define N_STEPS 3000

/* Appends a complete event of pair @p at @ts µs, its name kept in
 * @names by the pair's thread. */
static void
append_complete (GString    *s,
                 GPtrArray **names,
                 guint       p,
                 const char *name,
                 guint64     ts,
                 int         dur,
                 const char *args)
{
  g_string_append_printf (s, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s\",\"pid\":%s,", name, pairs[p].pid);
  if (pairs[p].tid != NULL)
    g_string_append_printf (s, "\"tid\":%s,", pairs[p].tid);
  g_string_append_printf (s, "\"ts\":%" G_GUINT64_FORMAT ",\"dur\":%d%s},\n", ts, dur, args);
  /* pairs 3 and 4 are one thread */
  g_ptr_array_add (names[p == 4 ? 3 : p], g_strdup (name));
}

/* Complete events of six pairs and three GPU streams, in runs and
 * interleaved, among begin/end pairs and instants on the same threads
 * (each makes the replay add what it gathered first), flows (which do
 * not), counters, metadata, complete events that go the usual way (args
 * to repair, a negative duration, a time out of range), and ties: two
 * slices of one start and end, whose order the file gives. @names gets
 * each CPU thread's complete events in file order, which is their
 * start's, and @n_gpu the slices of each stream. */
static GString *
generate (GPtrArray **names,
          guint      *n_gpu)
{
  GString *s = g_string_new ("{\"traceEvents\":[\n");

  g_string_append (s, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":5,\"args\":{\"name\":\"main\"}},\n");
  for (guint i = 0; i < N_STEPS; i++)
    {
      guint p = i < 600 ? (i / 50) % G_N_ELEMENTS (pairs) : (i * 7) % G_N_ELEMENTS (pairs);
      guint64 ts = 1000 + 10 * (guint64) i;
      g_autofree char *name = g_strdup_printf ("x%u_%u", p, i);
      g_autofree char *args = NULL;

      if (i % 17 == 0)
        args = g_strdup (",\"args\":{\"k\":\"caf\xc3\xa9\"}");
      else if (i % 3 == 0)
        args = g_strdup ("");
      else
        args = g_strdup_printf (",\"args\":{\"External id\":%u,\"k\":\"v%u\"}", i, i % 5);
      append_complete (s, names, p, name, ts, i % 13 == 0 ? -2 : 5, args);
      if (i % 9 == 0)
        {
          /* a twin: same start and end, after it in the file, every
           * other one with args to repair (the usual way, after what
           * was gathered before it) */
          g_autofree char *twin = g_strdup_printf ("t%u_%u", p, i);

          append_complete (s, names, p, twin, ts, i % 13 == 0 ? -2 : 5,
                           i % 2 ? ",\"args\":{\"k\":\"\xc3\xa9\"}" : args);
        }
      if (i % 7 == 0)
        {
          g_string_append_printf (s, "{\"ph\":\"B\",\"name\":\"b%u\",\"pid\":%s,\"tid\":%s,\"ts\":%" G_GUINT64_FORMAT "},\n",
                                  i, pairs[p].pid, pairs[p].tid != NULL ? pairs[p].tid : pairs[p].pid, ts + 6);
          g_string_append_printf (s, "{\"ph\":\"E\",\"pid\":%s,\"tid\":%s,\"ts\":%" G_GUINT64_FORMAT "},\n",
                                  pairs[p].pid, pairs[p].tid != NULL ? pairs[p].tid : pairs[p].pid, ts + 8);
        }
      if (i % 11 == 0)
        g_string_append_printf (s, "{\"ph\":\"i\",\"name\":\"mark\",\"s\":\"t\",\"pid\":1,\"tid\":5,\"ts\":%" G_GUINT64_FORMAT "},\n", ts + 1);
      if (i % 5 == 0)
        g_string_append_printf (s, "{\"ph\":\"%s\",\"cat\":\"fwd\",\"name\":\"f\",\"id\":%u,\"pid\":1,\"tid\":6,\"ts\":%" G_GUINT64_FORMAT "},\n",
                                i % 10 == 0 ? "s" : "f", i / 10, ts + 2);
      if (i % 4 == 0)
        {
          /* a kernel launch's flow: counted, its time noted */
          g_string_append_printf (s, "{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"launch\",\"id\":%u,\"pid\":1,\"tid\":5,"
                                  "\"ts\":%" G_GUINT64_FORMAT "},\n", i, ts + 2);
          g_string_append_printf (s, "{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"launch\",\"id\":%u,\"pid\":0,\"tid\":7,"
                                  "\"ts\":%" G_GUINT64_FORMAT ",\"bp\":\"e\"},\n", i, ts + 4);
        }
      if (i % 19 == 0)
        g_string_append_printf (s, "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":1,\"ts\":%" G_GUINT64_FORMAT ",\"args\":{\"bytes\":%u}},\n", ts, i);
      if (i % 2 == 0)
        {
          guint stream = 7 + (i / 2) % 3;
          const char *cat = i % 46 == 0 ? "gpu_memcpy" : "kernel";

          /* a stream named in text once in a while: "stream 9" is 9 */
          if (i % 58 == 0)
            g_string_append_printf (s, "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"k%u\",\"pid\":0,\"tid\":\"stream %u\",", cat, i, stream);
          else
            g_string_append_printf (s, "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"k%u\",\"pid\":0,\"tid\":%u,", cat, i, stream);
          g_string_append_printf (s, "\"ts\":%" G_GUINT64_FORMAT ",\"dur\":3,\"args\":{\"correlation\":%u,\"device\":0,"
                                  "\"stream\":%u,\"registers per thread\":32,\"bytes\":%u}},\n", ts + 4, i, stream, 64 * i);
          n_gpu[stream - 7]++;
        }
    }
  /* beyond the builder's range: counted, not kept */
  g_string_append (s, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"far\",\"pid\":1,\"tid\":5,\"ts\":100000000000000000,\"dur\":1},\n");
  g_string_append (s, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"last\",\"pid\":1,\"tid\":6,\"ts\":99999,\"dur\":1},\n");
  /* a slice left open lasts to the trace's last time, a launch flow's */
  g_string_append (s, "{\"ph\":\"B\",\"name\":\"open\",\"pid\":1,\"tid\":6,\"ts\":99990},\n");
  for (guint i = 0; i < 40; i++)
    g_string_append_printf (s, "{\"ph\":\"f\",\"cat\":\"ac2g\",\"id\":%u,\"pid\":0,\"tid\":7,\"ts\":%u,\"bp\":\"e\"},\n",
                            i, 199960 + i);
  g_string_append (s, "{\"ph\":\"f\",\"cat\":\"ac2g\",\"id\":1,\"pid\":0,\"tid\":7,\"ts\":200000,\"bp\":\"e\"}]}\n");
  g_ptr_array_add (names[1], g_strdup ("last"));
  return s;
}

/* The names of the complete slices of (@pid, @tid)'s track in the
 * model, in order (NULL: no such thread). */
static GPtrArray *
model_names (KsTrace *trace,
             gint64   pid,
             gint64   tid)
{
  for (guint32 i = 0; i < trace->n_threads; i++)
    {
      const KsThread *t = &trace->threads[i];
      const KsTrack *track;
      GPtrArray *names;

      if (t->tid != tid || trace->processes[t->process].pid != pid || t->track == KS_NO_INDEX)
        continue;
      track = &trace->tracks[t->track];
      names = g_ptr_array_new ();
      for (guint32 k = 0; k < track->n_slices; k++)
        {
          const char *name = ks_trace_string (trace, track->name_id[k]);

          /* begin/end pairs' and instants' slices are not complete events */
          if (name[0] == 'x' || name[0] == 't' || strcmp (name, "last") == 0)
            g_ptr_array_add (names, (gpointer) name);
        }
      return names;
    }
  return NULL;
}

static void
assert_names (GPtrArray  *expected,
              GPtrArray  *got)
{
  g_assert_nonnull (got);
  g_assert_cmpuint (got->len, ==, expected->len);
  for (guint i = 0; i < expected->len; i++)
    g_assert_cmpstr (g_ptr_array_index (got, i), ==, g_ptr_array_index (expected, i));
}

/* The generated trace: the same .kscope on one thread and on three and
 * four, chunks of 61 and 4,096 bytes and the default, gathered by track
 * and not; each thread's track holds the complete events the generator
 * put on it, in its order; each stream the kernels it put there. */
static void
test_generated (void)
{
  static const char *const chunks[] = { "61", "4096", NULL };
  static const char *const threads_n[] = { "3", "4" };
  GPtrArray *names[G_N_ELEMENTS (pairs)];
  guint n_gpu[3] = { 0, 0, 0 };
  g_autoptr(GString) s = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GBytes) serial = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    names[i] = g_ptr_array_new_with_free_func (g_free);
  s = generate (names, n_gpu);
  path = test_dump_write_file (tmp_dir, "chunk-tracks.json", s->str, s->len);
  serial = load_dump (path, "1", NULL);
  g_assert_false (test_dump_is_error (serial));
  g_assert_false (saw_bulk_debug);

  for (guint c = 0; c < G_N_ELEMENTS (chunks); c++)
    for (guint t = 0; t < G_N_ELEMENTS (threads_n); t++)
      for (guint bulk = 0; bulk <= 1; bulk++)
        {
          g_autoptr(GBytes) other = NULL;
          g_autofree char *how = g_strdup_printf ("%s threads, chunks of %s bytes, slices %s", threads_n[t],
                                                  chunks[c] ? chunks[c] : "default",
                                                  bulk ? "gathered by track" : "added one by one");

          if (!bulk)
            g_setenv ("KINESCOPE_JSON_CHUNK_TRACKS", "replay", TRUE);
          other = load_dump (path, threads_n[t], chunks[c]);
          g_unsetenv ("KINESCOPE_JSON_CHUNK_TRACKS");
          test_dump_assert_same (path, how, serial, other);
          g_assert_true (saw_bulk_debug == bulk);
          if (bulk)
            {
              /* chunks of one event each: every gathered slice is
               * added (a run of one); larger ones: two groups of a chunk
               * on one thread (pairs 3 and 4) go the usual way from the
               * second's first event on */
              g_assert_cmpuint (n_bulk, >, 0);
              if (chunks[c] != NULL && strcmp (chunks[c], "61") == 0)
                g_assert_cmpuint (n_bulk, ==, n_gathered);
              else
                g_assert_cmpuint (n_bulk, <, n_gathered);
              if (chunks[c] != NULL && strcmp (chunks[c], "4096") == 0)
                g_assert_cmpuint (n_bulk, >, n_gathered / 2);
            }
        }

  /* what the generator put on each track, against the model */
  trace = load_trace (path, "4", "4096", &error);
  g_assert_no_error (error);
  g_assert_true (saw_bulk_debug);
  for (guint p = 0; p < G_N_ELEMENTS (names); p++)
    {
      g_autoptr(GPtrArray) got = NULL;

      /* pair 4's are with pair 3's; the string pair is not numbered */
      if (p == 4 || pairs[p].thread_pid < 0)
        continue;
      got = model_names (trace, pairs[p].thread_pid, pairs[p].thread_tid);
      assert_names (names[p], got);
    }
  for (guint32 i = 0; i < trace->n_tracks; i++)
    {
      const KsTrack *track = &trace->tracks[i];

      if (track->kind == KS_TRACK_STREAM && track->stream >= 7 && track->stream <= 9)
        {
          g_assert_cmpuint (track->n_slices, ==, n_gpu[track->stream - 7]);
          n_gpu[track->stream - 7] = 0;
        }
    }
  g_assert_cmpuint (n_gpu[0] + n_gpu[1] + n_gpu[2], ==, 0);
  for (guint32 i = 0; i < trace->n_threads; i++)
    {
      const KsThread *t = &trace->threads[i];
      const KsTrack *track = &trace->tracks[t->track];

      if (t->tid != 6 || trace->processes[t->process].pid != 1)
        continue;
      for (guint32 k = 0; k < track->n_slices; k++)
        if (strcmp (ks_trace_string (trace, track->name_id[k]), "open") == 0)
          {
            g_assert_cmpint (track->end[k] - track->start[k], ==, (G_GINT64_CONSTANT (200000) - 99990) * 1000);
            n_gpu[0]++;
          }
    }
  g_assert_cmpuint (n_gpu[0], ==, 1);

  for (guint i = 0; i < G_N_ELEMENTS (names); i++)
    g_ptr_array_unref (names[i]);
}

/* A folder's second file is shifted by its base time: its slices are
 * shifted as they are taken, and one the shift puts out of range goes
 * the usual way (counted, left out): the same .kscope as one thread,
 * most of the file's slices added in bulk. */
static void
test_shifted (void)
{
  static const char *const chunks[] = { "61", "4096" };
  static const char *const threads_n[] = { "3", "4" };
  g_autofree char *dir = g_build_filename (tmp_dir, "shifted", NULL);
  g_autoptr(GString) a = g_string_new ("{\"baseTimeNanoseconds\":1000000000000000000,\"traceEvents\":[\n");
  g_autoptr(GString) b = g_string_new ("{\"baseTimeNanoseconds\":4000000000000000000,\"traceEvents\":[\n");
  g_autoptr(GBytes) serial = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  guint64 n_far = 0;

  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  g_string_append (a, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5}]}\n");
  for (guint i = 0; i < 2000; i++)
    {
      /* shifted by 3e18 ns: 2e15 µs more is past the builder's range */
      guint64 ts = i % 97 == 5 ? G_GUINT64_CONSTANT (2000000000000000) + i : 100 + 10 * (guint64) i;

      /* it, and its kernel */
      n_far += i % 97 == 5 ? 1 + (i % 4 == 0) : 0;
      g_string_append_printf (b, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x%u\",\"pid\":2,\"tid\":%u,"
                              "\"ts\":%" G_GUINT64_FORMAT ",\"dur\":%d,\"args\":{\"External id\":%u}},\n",
                              i % 50, 1 + i % 3, ts, i % 13 == 0 ? -1 : 4, i);
      if (i % 4 == 0)
        g_string_append_printf (b, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%u\",\"pid\":0,\"tid\":7,"
                                "\"ts\":%" G_GUINT64_FORMAT ",\"dur\":2,\"args\":{\"correlation\":%u}},\n"
                                "{\"ph\":\"f\",\"cat\":\"ac2g\",\"id\":%u,\"pid\":0,\"tid\":7,"
                                "\"ts\":%" G_GUINT64_FORMAT ",\"bp\":\"e\"},\n", i % 20, ts + 1, i, i, ts + 1);
    }
  g_string_append (b, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"end\",\"pid\":2,\"tid\":1,\"ts\":99999,\"dur\":1}]}\n");
  g_free (test_dump_write_file (tmp_dir, "shifted/rank-0.json", a->str, a->len));
  g_free (test_dump_write_file (tmp_dir, "shifted/rank-1.json", b->str, b->len));

  serial = load_dump (dir, "1", NULL);
  g_assert_false (test_dump_is_error (serial));
  for (guint c = 0; c < G_N_ELEMENTS (chunks); c++)
    for (guint t = 0; t < G_N_ELEMENTS (threads_n); t++)
      {
        g_autoptr(GBytes) other = load_dump (dir, threads_n[t], chunks[c]);
        g_autofree char *how = g_strdup_printf ("%s threads, chunks of %s bytes", threads_n[t], chunks[c]);

        test_dump_assert_same (dir, how, serial, other);
        g_assert_true (saw_bulk_debug);
        /* all but those shifted out of range */
        g_assert_cmpuint (n_bulk, ==, n_gathered - n_far);
      }

  /* the ones shifted out of range are counted and left out */
  trace = load_trace (dir, "4", "4096", &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n_far, >, 0);
  g_assert_nonnull (strstr (ks_trace_get_metadata (trace, "warnings"), "146 years"));
}

/* A real trace, chunk after chunk, gathered by default from three
 * threads: the same .kscope as one thread, most of its complete events
 * added in bulk. */
static void
test_gpt (void)
{
  static const char *const threads_n[] = { "3", "4", "8" };
  g_autoptr(GString) gpt = test_dump_inflate_fixture ("gpt_3steps.pt.trace.json.gz");
  g_autofree char *path = test_dump_write_file (tmp_dir, "gpt-tracks.json", gpt->str, gpt->len);
  g_autoptr(GBytes) serial = load_dump (path, "1", NULL);

  for (guint t = 0; t < G_N_ELEMENTS (threads_n); t++)
    for (guint small = 0; small <= 1; small++)
      {
        g_autoptr(GBytes) other = load_dump (path, threads_n[t], small ? "4096" : NULL);

        test_dump_assert_same (path, small ? "chunks of 4096 bytes" : "default chunks", serial, other);
        g_assert_true (saw_bulk_debug);
        g_assert_cmpuint (n_bulk, >, n_gathered / 2);
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
  tmp_dir = g_dir_make_tmp ("ks-json-chunk-tracks-XXXXXX", NULL);

  g_test_add_func ("/json-chunk-tracks/generated", test_generated);
  g_test_add_func ("/json-chunk-tracks/shifted", test_shifted);
  g_test_add_func ("/json-chunk-tracks/gpt", test_gpt);

  ret = g_test_run ();
  test_dump_remove_dir (tmp_dir);
  g_free (tmp_dir);
  return ret;
}
