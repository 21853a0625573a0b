/* test-json-parallel.c: the JSON reader on several threads builds the
 * model that it builds on one
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <zlib.h>

#include "ks-kscope-writer.h"
#include "ks-trace-loader.h"

#include "test-dump.h"

/* Chunk sizes: one event a chunk (cuts after every event), a few, and
 * the size that puts cuts inside strings and args now and then. */
static const char *const small_chunks[] = { "1", "61", "4096" };

static char *tmp_dir;
static guint n_debug_chunks;   /* from the reader's debug line of the last load */
static guint n_debug_merged;
static gboolean saw_debug;
static guint n_debug_ahead;    /* a folder's files inflated ahead, of n_debug_files */
static guint n_debug_files;
static guint n_debug_compacted; /* blocks compacted on a thread of their own */
static guint n_debug_shared;    /* chunks that took their text from such a block */
static gboolean saw_args_debug; /* the args' thread ran: */
static guint n_debug_args_thread; /* args stored on it */
static guint n_debug_args_here;   /* and on the reading thread at a barrier */

/* The reader's debug line after a load on several threads: how many
 * chunks it cut, and how many cuts it found inside an event. */
static void
log_handler (const char     *domain,
             GLogLevelFlags  level,
             const char     *message,
             gpointer        user_data)
{
  const char *p = g_strrstr (message, ": ");
  guint threads;

  if (p != NULL && sscanf (p + 2, "%u chunks on %u threads, %u cuts", &n_debug_chunks, &threads,
                           &n_debug_merged) == 3)
    saw_debug = TRUE;
  if (p != NULL && sscanf (p + 2, "%u of %u files inflated ahead on %u threads", &n_debug_ahead, &n_debug_files,
                           &threads) == 3)
    g_assert_cmpuint (threads, ==, 2);
  if (p != NULL && strstr (p, " blocks compacted on a thread of their own") != NULL &&
      sscanf (p + 2, "%u blocks", &threads) == 1)
    n_debug_compacted += threads;
  if (p != NULL && sscanf (p + 2, "compacted blocks gave %u chunks their text", &threads) == 1)
    n_debug_shared += threads;
  if (p != NULL && sscanf (p + 2, "stored %u on their own thread, %u on the reading thread", &n_debug_args_thread,
                           &n_debug_args_here) == 2)
    saw_args_debug = TRUE;
}

/* The .kscope of @path loaded with @threads threads and chunks of @chunk
 * bytes (NULL: the default), or "error: " and the message. */
static KsTrace *
load_trace (const char  *path,
            const char  *threads,
            const char  *chunk,
            GError     **error)
{
  saw_debug = FALSE;
  n_debug_chunks = n_debug_merged = 0;
  n_debug_ahead = n_debug_files = 0;
  n_debug_compacted = 0;
  n_debug_shared = 0;
  saw_args_debug = FALSE;
  n_debug_args_thread = n_debug_args_here = 0;
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

static void
assert_same_bytes (const char *path,
                   GBytes     *serial,
                   GBytes     *parallel,
                   const char *chunk)
{
  g_autofree char *how = g_strdup_printf ("chunks of %s bytes", chunk ? chunk : "default");

  test_dump_assert_same (path, how, serial, parallel);
}

/* Loads @path on one thread and on three with every chunk size of
 * @chunks: the same dump, byte for byte, or the same error. A .json.gz
 * has its white space dropped by the threads of its chunks (every other
 * load: its inflated text cut as it lies), by the inflating thread and
 * by the reading thread in turn, a plain file (past its first MiB) by a thread
 * of its own and by the reading thread; and the reading thread, while it
 * waits, parses only the chunk it waits for or any; the args of the
 * replayed slices are stored on a thread of their own or in the replay
 * (the first and third of every three loads, and the second); the
 * workers number the events' (pid, tid) pairs or the replay looks each
 * event's up (all loads but the second of every four, and the second);
 * chunks take their text from the compacted blocks or the reading
 * thread copies the blocks (all but the third of every four, and the
 * third); a plain file's text is cut as it lies in the file or compacted
 * first (the same). Returns the largest number of chunks that a load used. */
static guint
check_same (const char        *path,
            const char *const *chunks,
            guint              n_chunks)
{
  g_autoptr(GBytes) serial = load_dump (path, "1", NULL);
  guint most = 0;

  g_assert_false (saw_debug);
  for (guint i = 0; i <= n_chunks; i++)
    {
      const char *chunk = i < n_chunks ? chunks[i] : NULL;
      g_autoptr(GBytes) parallel = NULL;

      g_setenv ("KINESCOPE_GZ_COMPACT", i % 2 == 0 ? "chunks" : i % 4 == 1 ? "inflate" : "read", TRUE);
      g_setenv ("KINESCOPE_JSON_COMPACT", i % 2 == 0 ? "thread" : "read", TRUE);
      g_setenv ("KINESCOPE_JSON_HELP", i % 2 == 0 ? "head" : "any", TRUE);
      g_setenv ("KINESCOPE_JSON_ARGS", i % 3 != 1 ? "thread" : "replay", TRUE);
      g_setenv ("KINESCOPE_JSON_THREAD_KEYS", i % 4 != 1 ? "chunk" : "replay", TRUE);
      g_setenv ("KINESCOPE_JSON_BLOCKS", i % 4 != 2 ? "share" : "copy", TRUE);
      g_setenv ("KINESCOPE_JSON_CUT", i % 4 != 2 ? "raw" : "compacted", TRUE);
      parallel = load_dump (path, "3", chunk);
      g_unsetenv ("KINESCOPE_JSON_CUT");
      g_unsetenv ("KINESCOPE_JSON_BLOCKS");
      g_unsetenv ("KINESCOPE_JSON_ARGS");
      g_unsetenv ("KINESCOPE_JSON_THREAD_KEYS");
      g_unsetenv ("KINESCOPE_GZ_COMPACT");
      g_unsetenv ("KINESCOPE_JSON_COMPACT");
      g_unsetenv ("KINESCOPE_JSON_HELP");
      assert_same_bytes (path, serial, parallel, chunk);
      most = MAX (most, n_debug_chunks);
    }
  return most;
}

static gboolean
is_json (const char *path)
{
  return g_str_has_suffix (path, ".json") || g_str_has_suffix (path, ".json.gz");
}

static GPtrArray *
list_json (const char *dir,
           gboolean    recursive,
           GPtrArray  *into)
{
  return test_dump_list_files (dir, recursive, is_json, into);
}

static void
test_fixtures (void)
{
  g_autoptr(GPtrArray) files = list_json (g_getenv ("KS_FIXTURES_DIR"), FALSE, NULL);

  g_assert_cmpuint (files->len, ==, 12);
  for (guint i = 0; i < files->len; i++)
    {
      guint most = check_same (files->pdata[i], small_chunks, G_N_ELEMENTS (small_chunks));

      /* one event a chunk: hundreds of them (the CUDA-graphs trace has
       * 275 events, the others thousands) */
      g_assert_cmpuint (most, >, 200);
    }
}

static void
test_fuzz_seeds (void)
{
  g_autofree char *dir = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "..", "..", "fuzz", "corpus", NULL);
  g_autoptr(GPtrArray) files = list_json (dir, FALSE, NULL);
  guint with_chunks = 0;

  g_assert_cmpuint (files->len, >=, 20);
  for (guint i = 0; i < files->len; i++)
    if (check_same (files->pdata[i], small_chunks, G_N_ELEMENTS (small_chunks)) > 1)
      with_chunks++;
  /* the seeds of more than one event (7 have one, or none) */
  g_assert_cmpuint (with_chunks, >=, 16);
}

static void
test_corpus (void)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  g_autofree char *dir = shared ? g_build_filename (shared, "corpus", NULL) : NULL;
  g_autoptr(GPtrArray) files = NULL;
  static const char *const chunks[] = { "4096" };

  if (dir == NULL || !g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("the shared corpus is absent (KS_SHARED_DIR/corpus)");
      return;
    }
  files = list_json (dir, TRUE, NULL);
  g_assert_cmpuint (files->len, >, 0);
  for (guint i = 0; i < files->len; i++)
    check_same (files->pdata[i], chunks, G_N_ELEMENTS (chunks));
}

/* A trace whose events pair, chain and nest across any cut: B/E pairs
 * on two threads, async ranges, flows, counters, metadata, and strings
 * and args that hold the text of a cut, `},{"`. */
static GString *
tricky_trace (guint n)
{
  GString *s = g_string_new ("{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"G\"}],\n"
                             "\"traceEvents\": [\n");

  for (guint i = 0; i < n; i++)
    {
      guint tid = 1 + i % 2;

      if (i > 0)
        g_string_append (s, ",\n");
      switch (i % 9)
        {
        case 0:
          g_string_append_printf (s, "{\"ph\": \"B\", \"name\": \"step %u\", \"pid\": 1, \"tid\": %u, \"ts\": %u}",
                                  i / 9, tid, i * 10);
          break;
        case 1:
          g_string_append_printf (s, "{\"name\": \"odd },{\\\"name\\\": 1 %u\", \"cat\": \"ends like a cut },{\", "
                                  "\"ph\": \"X\", \"pid\": 1, "
                                  "\"tid\": %u, \"ts\": %u, \"dur\": 3, "
                                  "\"args\": {\"list\": [{\"a\": %u},{\"b\": \"x\"}], \"External id\": %u}}",
                                  i % 5, tid, i * 10, i, i);
          break;
        case 2:
          g_string_append_printf (s, "{\"ph\": \"b\", \"cat\": \"c%u\", \"id\": \"0x%x\", \"name\": \"req\", "
                                  "\"pid\": 1, \"tid\": %u, \"ts\": %u}", i % 3, i % 7, tid, i * 10);
          break;
        case 3:
          g_string_append_printf (s, "{\"ph\": \"s\", \"cat\": \"flow\", \"id\": %u, \"name\": \"f\", "
                                  "\"pid\": 1, \"tid\": %u, \"ts\": %u}", i, tid, i * 10);
          break;
        case 4:
          g_string_append_printf (s, "{\"ph\": \"C\", \"name\": \"mem\", \"pid\": 1, \"ts\": %u, "
                                  "\"args\": {\"used\": %u, \"free\": %u.5}}", i * 10, i, i);
          break;
        case 5:
          g_string_append_printf (s, "{\"ph\": \"f\", \"bp\": \"e\", \"cat\": \"flow\", \"id\": %u, \"name\": \"f\", "
                                  "\"pid\": 1, \"tid\": %u, \"ts\": %u}", i - 2, 3 - tid, i * 10 + 5);
          break;
        case 6:
          g_string_append_printf (s, "{\"ph\": \"e\", \"cat\": \"c%u\", \"id\": \"0x%x\", \"name\": \"req\", "
                                  "\"pid\": 1, \"tid\": %u, \"ts\": %u}", (i - 4) % 3, (i - 4) % 7, tid, i * 10);
          break;
        case 7:
          g_string_append_printf (s, "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": %u, "
                                  "\"args\": {\"name\": \"w\\u00e9 %u\"}}", tid, i);
          break;
        default:
          g_string_append_printf (s, "{\"ph\": \"E\", \"pid\": 1, \"tid\": %u, \"ts\": %u, \"cat\": \"kernel\"}",
                                  1 + (i - 8) % 2, i * 10 + 7);
          break;
        }
    }
  g_string_append (s, "\n],\n\"baseTimeNanoseconds\": 1700000000000000000, \"displayTimeUnit\": \"ns\"}\n");
  return s;
}

/* The shapes Perfetto reads that pair or accumulate across events, for
 * cuts between any two of them: flows v2 (bind_id) as chains and as
 * fan-out, thread times as numbers and strings, counters with string
 * values and of one series, async ranges on id2.local (one per process)
 * and id2.global (across processes), events without a tid, {} items,
 * sort indices as strings, and top-level metadata before and after the
 * array. @n is a multiple of 14. */
static GString *
perfetto_trace (guint n)
{
  GString *s = g_string_new ("{\"metadata\": {\"source\": \"gen },{\\\"\", \"nested\": {\"list\": [1, true, null, "
                             "{\"k\": \"v\"}]}},\n\"traceEvents\": [\n"
                             "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 2, \"args\": {\"name\": \"two\"}},\n"
                             "{\"ph\": \"M\", \"name\": \"process_sort_index\", \"pid\": 2, "
                             "\"args\": {\"sort_index\": \"-1\"}}");

  for (guint i = 0; i < n; i++)
    {
      guint k = i / 14;

      g_string_append (s, ",\n");
      switch (i % 14)
        {
        case 0:   /* a chain: out, in and out, in */
          g_string_append_printf (s, "{\"ph\": \"X\", \"name\": \"send\", \"pid\": 1, \"tid\": 1, \"ts\": %u, "
                                  "\"dur\": 4, \"tts\": %u, \"tdur\": 2, \"bind_id\": \"0x%x\", \"flow_out\": true}",
                                  i * 10, i * 7, k);
          break;
        case 1:
          g_string_append_printf (s, "{\"ph\": \"X\", \"name\": \"relay\", \"pid\": 1, \"tid\": 2, \"ts\": %u, "
                                  "\"dur\": 3, \"tts\": \"%u.5\", \"tdur\": \"1\", \"bind_id\": \"0x%x\", "
                                  "\"flow_in\": true, \"flow_out\": true}", i * 10, i * 7, k);
          break;
        case 2:
          g_string_append_printf (s, "{\"ph\": \"X\", \"name\": \"recv\", \"pid\": 2, \"tid\": 1, \"ts\": %u, "
                                  "\"dur\": 2, \"bind_id\": \"0x%x\", \"flow_in\": true, \"flow_out\": false}",
                                  i * 10, k);
          break;
        case 3:   /* fan-out: one out, two in, numeric ids */
          g_string_append_printf (s, "{\"ph\": \"X\", \"name\": \"scatter\", \"pid\": 1, \"tid\": 1, \"ts\": %u, "
                                  "\"dur\": 1, \"bind_id\": %u, \"flow_out\": true}", i * 10, 1000 + k);
          break;
        case 4:
        case 5:
          g_string_append_printf (s, "{\"ph\": \"X\", \"name\": \"gather\", \"pid\": %u, \"tid\": 3, \"ts\": %u, "
                                  "\"dur\": 1, \"tts\": \"bad\", \"bind_id\": %u, \"flow_in\": true}",
                                  i % 14 - 3, i * 10, 1000 + k);
          break;
        case 6:
          g_string_append_printf (s, "{\"ph\": \"C\", \"name\": \"load\", \"pid\": 1, \"ts\": %u, "
                                  "\"args\": {\"a\": \".%u5\", \"b\": \"+1%u.5\", \"c\": \"0%u\"}}", i * 10, k % 10, k, k);
          break;
        case 7:
          g_string_append_printf (s, "{\"ph\": \"C\", \"name\": \"single\", \"id\": %u, \"pid\": 2, \"ts\": %u, "
                                  "\"args\": {\"value\": %u}}", k % 2, i * 10, k);
          break;
        case 8:   /* the same local id in two processes: two ranges */
        case 9:
          g_string_append_printf (s, "{\"ph\": \"b\", \"cat\": \"io\", \"name\": \"local\", \"id2\": {\"local\": \"0x%x\"}, "
                                  "\"pid\": %u, \"tid\": 1, \"ts\": %u}", k % 3, i % 14 - 7, i * 10);
          break;
        case 10:
          g_string_append_printf (s, "{\"ph\": \"e\", \"cat\": \"io\", \"name\": \"local\", \"id2\": {\"local\": \"0x%x\"}, "
                                  "\"pid\": 2, \"tid\": 1, \"ts\": %u},\n"
                                  "{\"ph\": \"e\", \"cat\": \"io\", \"name\": \"local\", \"id2\": {\"local\": \"0x%x\"}, "
                                  "\"pid\": 1, \"tid\": 1, \"ts\": %u}", k % 3, i * 10, k % 3, i * 10 + 1);
          break;
        case 11:   /* a global id: begins in one process, ends in another */
          g_string_append_printf (s, "{\"ph\": \"b\", \"cat\": \"rpc\", \"name\": \"global\", "
                                  "\"id2\": {\"global\": \"0x%x\"}, \"pid\": 1, \"tid\": 2, \"ts\": %u},\n"
                                  "{\"ph\": \"e\", \"cat\": \"rpc\", \"name\": \"global\", "
                                  "\"id2\": {\"global\": \"0x%x\"}, \"pid\": 2, \"tid\": 2, \"ts\": %u}",
                                  k, i * 10, k, i * 10 + 5);
          break;
        case 12:   /* no tid: the thread tid = pid, then a tid of another name */
          g_string_append_printf (s, "{\"ph\": \"i\", \"name\": \"mark\", \"pid\": 3, \"s\": \"t\", \"ts\": %u},\n"
                                  "{\"ph\": \"X\", \"name\": \"untid\", \"pid\": \"host\", \"ts\": %u, \"dur\": 2, "
                                  "\"tts\": %u},\n{\"ph\": \"X\", \"name\": \"main\", \"pid\": \"host\", "
                                  "\"tid\": \"main\", \"ts\": %u, \"dur\": 1}", i * 10, i * 10 + 1, i, i * 10 + 3);
          break;
        default:
          g_string_append (s, "{}");
          break;
        }
    }
  g_string_append (s, ",\n{}\n],\n\"displayTimeUnit\": \"ns\", \"distributedInfo\": {\"rank\": 3, "
                   "\"backend\": \"nccl\", \"ranks\": [0, 3]}}\n");
  return s;
}


static char *
write_gzip (const char *name,
            const char *data,
            gsize       len)
{
  char *path = g_build_filename (tmp_dir, name, NULL);
  gzFile gz = gzopen (path, "wb");

  g_assert_nonnull (gz);
  g_assert_cmpint (gzwrite (gz, data, len), ==, (int) len);
  g_assert_cmpint (gzclose (gz), ==, Z_OK);
  return path;
}

/* More flows than one part of their resolution takes: their ends are
 * found on several threads, and the trace is the one-thread one. */
static void
test_many_flows (void)
{
  g_autoptr(GString) s = g_string_new ("{\"traceEvents\":[");
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  guint n = 70000, unbound = 0;

  for (guint i = 0; i < n; i++)
    {
      guint64 t = 10 * (guint64)i;
      /* every 7th flow ends on no slice of its thread: its time is past the last */
      guint64 f = i % 7 == 0 ? 10 * (guint64)n + i : t + 3;

      unbound += i % 7 == 0;
      g_string_append_printf (s, "%s{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":%" G_GUINT64_FORMAT ",\"dur\":5},"
                              "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":2,\"ts\":%" G_GUINT64_FORMAT ",\"dur\":5},"
                              "{\"ph\":\"s\",\"name\":\"x\",\"cat\":\"c\",\"id\":%u,\"pid\":1,\"tid\":1,\"ts\":%" G_GUINT64_FORMAT "},"
                              "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"x\",\"cat\":\"c\",\"id\":%u,\"pid\":1,\"tid\":2,\"ts\":%" G_GUINT64_FORMAT "}",
                              i > 0 ? "," : "", t, t + 2, i, t + 1, i, f);
    }
  g_string_append (s, "]}");
  path = test_dump_write_file (tmp_dir, "flows.json", s->str, s->len);
  check_same (path, NULL, 0);

  trace = load_trace (path, "3", NULL, &error);
  g_assert_no_error (error);
  /* more pending flows than a part takes; those past the last slice
   * are dropped, the others join slice k of one thread to slice k of
   * the other */
  g_assert_cmpuint (n, >, 65536);
  g_assert_cmpuint (trace->n_flows, ==, n - unbound);
  for (guint32 k = 0; k < trace->n_flows; k++)
    {
      const KsFlow *fl = &trace->flows[k];

      g_assert_cmpuint (fl->from_track, !=, fl->to_track);
      g_assert_cmpuint (fl->from_slice, ==, fl->to_slice);
      g_assert_cmpuint (fl->from_slice % 7, !=, 0);
    }
  g_test_message ("%u flows, %u of them ending past the last slice", trace->n_flows, unbound);
}

static void
test_across_cuts (void)
{
  g_autoptr(GString) s = tricky_trace (3000);
  g_autofree char *path = test_dump_write_file (tmp_dir, "tricky.json", s->str, s->len);
  g_autofree char *gz = write_gzip ("tricky.json.gz", s->str, s->len);
  g_autofree char *array = NULL;
  g_autoptr(GString) top = NULL;
  g_autofree char *first = NULL;
  const char *events;
  static const char *const chunks[] = { "1", "7", "200", "4096" };
  gboolean merged = FALSE;

  /* more cuts than events: some fall inside an event */
  g_assert_cmpuint (check_same (path, small_chunks, G_N_ELEMENTS (small_chunks)), >, 3000);
  check_same (gz, chunks, G_N_ELEMENTS (chunks));

  /* cuts inside the strings and args that look like one are found out */
  for (guint i = 0; i < G_N_ELEMENTS (chunks); i++)
    {
      g_autoptr(GBytes) serial = load_dump (path, "1", NULL);
      g_autoptr(GBytes) parallel = load_dump (path, "2", chunks[i]);

      assert_same_bytes (path, serial, parallel, chunks[i]);
      g_assert_true (saw_debug);
      merged |= n_debug_merged > 0;
    }
  g_assert_true (merged);

  /* the same events as a top-level array, and with the array first */
  events = strchr (strstr (s->str, "\"traceEvents\""), '[');
  top = g_string_new_len (events, strrchr (s->str, ']') + 1 - events);
  array = test_dump_write_file (tmp_dir, "array.json", top->str, top->len);
  check_same (array, chunks, G_N_ELEMENTS (chunks));
  g_string_prepend (top, "{\"traceEvents\":");
  g_string_append (top, ", \"deviceProperties\": [{\"id\": 0, \"name\": \"G\"},{\"id\": 1, \"name\": \"H\"}]}");
  first = test_dump_write_file (tmp_dir, "first.json", top->str, top->len);
  check_same (first, chunks, G_N_ELEMENTS (chunks));
}

static guint
count_text (const char *haystack,
            const char *needle)
{
  guint n = 0;

  for (const char *p = haystack; p != NULL && (p = strstr (p, needle)) != NULL; p += strlen (needle))
    n++;
  return n;
}

static guint
count_thread_times (KsTrace *trace)
{
  guint n = 0;

  for (guint32 t = 0; t < trace->n_tracks; t++)
    n += trace->tracks[t].n_thread_times;
  return n;
}

/* Perfetto's shapes across cuts: the same .kscope on one thread and on
 * several, and that model holds what the shapes are read as. */
static void
test_perfetto_shapes (void)
{
  g_autoptr(GString) s = perfetto_trace (14 * 200);
  g_autofree char *path = test_dump_write_file (tmp_dir, "perfetto.json", s->str, s->len);
  g_autofree char *gz = write_gzip ("perfetto.json.gz", s->str, s->len);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) serial = NULL;
  g_autoptr(KsTrace) parallel = NULL;
  static const char *const chunks[] = { "1", "7", "200", "4096" };
  const char *warnings;

  /* more cuts than the 3,002 items: the array is cut after every one */
  g_assert_cmpuint (check_same (path, small_chunks, G_N_ELEMENTS (small_chunks)), >, 3002);
  check_same (gz, chunks, G_N_ELEMENTS (chunks));

  serial = load_trace (path, "1", NULL, &error);
  g_assert_no_error (error);
  parallel = load_trace (path, "3", "1", &error);
  g_assert_no_error (error);
  for (guint i = 0; i < 2; i++)
    {
      KsTrace *trace = i == 0 ? serial : parallel;

      /* per 14 items: a chain of two flows and a fan-out of two */
      g_assert_cmpuint (trace->n_flows, ==, 4 * 200);
      /* send (both), relay (both), untid (its start) */
      g_assert_cmpuint (count_thread_times (trace), ==, 3 * 200);
      g_assert_cmpstr (ks_trace_get_metadata (trace, "metadata.source"), ==, "gen },{\"");
      g_assert_cmpstr (ks_trace_get_metadata (trace, "metadata.nested.list.3.k"), ==, "v");
      g_assert_cmpstr (ks_trace_get_metadata (trace, "distributedInfo.ranks.1"), ==, "3");
      warnings = ks_trace_get_metadata (trace, "warnings");
      /* the {} items followed by an event; the two at the end are not said */
      g_assert_nonnull (strstr (warnings, ": 199 objects without a phase"));
    }
}

/* Trailing commas and raw control characters: the file is read again,
 * leniently, on several threads as on one, with its one warning. */
static void
test_lenient (void)
{
  g_autoptr(GString) s = perfetto_trace (14 * 40);
  g_autofree char *path = NULL;
  g_autofree char *gz = NULL;
  g_autofree char *in_events = NULL;
  g_autoptr(GError) error = NULL;
  static const char *const chunks[] = { "1", "7", "200", "4096" };
  guint n;

  /* in events (send, relay and scatter end so), before the array's `]`,
   * in the metadata before and after it */
  n = g_string_replace (s, "\"flow_out\": true}", "\"flow_out\": true,}", 0);
  g_assert_cmpuint (n, ==, 3 * 40);
  /* first only there: the first read stops on a worker */
  in_events = test_dump_write_file (tmp_dir, "in-events.json", s->str, s->len);
  {
    g_autoptr(KsTrace) trace = load_trace (in_events, "3", "1", &error);

    g_assert_no_error (error);
    g_assert_nonnull (strstr (ks_trace_get_metadata (trace, "warnings"), "in-events.json: not strict JSON, read as "
                              "Chrome reads it: 120 trailing commas were ignored and 0 control characters"));
  }
  check_same (in_events, small_chunks, G_N_ELEMENTS (small_chunks));

  /* in a folder, after a strict file: read again, that file alone */
  {
    g_autofree char *dir = g_build_filename (tmp_dir, "lenient-folder", NULL);
    g_autofree char *a = g_build_filename (dir, "a.pt.trace.json", NULL);
    g_autofree char *b = g_build_filename (dir, "b.pt.trace.json", NULL);
    g_autoptr(GString) strict = perfetto_trace (14 * 20);
    static const char *const folder_chunks[] = { "1", "4096" };
    g_autoptr(KsTrace) trace = NULL;
    const char *warnings;

    g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
    g_assert_true (g_file_set_contents (a, strict->str, strict->len, NULL));
    g_assert_true (g_file_set_contents (b, s->str, s->len, NULL));
    trace = load_trace (dir, "3", "1", &error);
    g_assert_no_error (error);
    g_assert_cmpuint (trace->n_flows, ==, 4 * 20 + 4 * 40);
    warnings = ks_trace_get_metadata (trace, "warnings");
    g_assert_cmpuint (count_text (warnings, "not strict JSON"), ==, 1);
    g_assert_nonnull (strstr (warnings, "b.pt.trace.json: not strict JSON, read as Chrome reads it: 120 trailing"));
    check_same (dir, folder_chunks, G_N_ELEMENTS (folder_chunks));
    g_unlink (a);
    g_unlink (b);
    g_rmdir (dir);
  }
  g_assert_cmpuint (g_string_replace (s, "{}\n]", "{},\n]", 1), ==, 1);
  g_assert_cmpuint (g_string_replace (s, "{\"k\": \"v\"}", "{\"k\": \"v\",}", 1), ==, 1);
  g_assert_cmpuint (g_string_replace (s, "[0, 3]", "[0, 3 ,]", 1), ==, 1);
  /* a tab in the names of the chains' first slices, a ^A in the head */
  g_assert_cmpuint (g_string_replace (s, "\"name\": \"send\"", "\"name\": \"se\tnd\"", 0), ==, 40);
  g_assert_cmpuint (g_string_replace (s, "\"gen ", "\"g\001en ", 1), ==, 1);
  path = test_dump_write_file (tmp_dir, "lenient.json", s->str, s->len);
  gz = write_gzip ("lenient.json.gz", s->str, s->len);

  for (guint i = 0; i < 2; i++)
    {
      g_autoptr(KsTrace) trace = load_trace (path, i == 0 ? "1" : "3", i == 0 ? NULL : "1", &error);
      const char *warnings;

      g_assert_no_error (error);
      g_assert_cmpuint (trace->n_flows, ==, 4 * 40);
      warnings = ks_trace_get_metadata (trace, "warnings");
      g_assert_cmpuint (count_text (warnings, "not strict JSON"), ==, 1);
      g_assert_nonnull (strstr (warnings, "lenient.json: not strict JSON, read as Chrome reads it: 123 trailing "
                                          "commas were ignored and 41 control characters"));
      g_assert_cmpstr (ks_trace_get_metadata (trace, "metadata.source"), ==, "g\001en },{\"");
    }
  check_same (path, small_chunks, G_N_ELEMENTS (small_chunks));
  check_same (gz, chunks, G_N_ELEMENTS (chunks));
}

/* Invalid text in the middle of the array: the same error, with the
 * same line and byte, from one thread or several. */
static void
test_errors (void)
{
  static const char *const faults[] = {
    "{\"ph\": \"X\",, \"ts\": 1}",                 /* a syntax error */
    "{\"ph\": \"X\", \"ts\": 1]",                   /* a bracket that does not close */
    "{\"ph\": \"X\", \"ts\": tru}",                 /* a bad word */
    "DEEP",                                        /* nesting deeper than the limit */
    "LONG",                                        /* a number longer than the limit */
    "{\"ph\": \"X\", \"ts\": 1}, ]",               /* a trailing comma */
  };

  for (guint f = 0; f < G_N_ELEMENTS (faults); f++)
    {
      g_autoptr(GString) s = tricky_trace (900);
      g_autofree char *name = g_strdup_printf ("fault%u.json", f);
      g_autofree char *path = NULL;
      char *at = strstr (s->str, "{\"ph\": \"C\", \"name\": \"mem\", \"pid\": 1, \"ts\": 4000");
      GString *fault = g_string_new (NULL);
      g_autoptr(GBytes) serial = NULL;
      gsize len;
      const char *text;

      g_assert_nonnull (at);
      if (strcmp (faults[f], "DEEP") == 0)
        {
          g_string_append (fault, "{\"ph\": \"X\", \"ts\": 1, \"args\": ");
          for (guint i = 0; i < 200; i++)
            g_string_append_c (fault, '[');
        }
      else if (strcmp (faults[f], "LONG") == 0)
        {
          g_string_append (fault, "{\"ph\": \"X\", \"ts\": 1");
          for (guint i = 0; i < 5000; i++)
            g_string_append_c (fault, '7');
          g_string_append (fault, "}");
        }
      else
        g_string_append (fault, faults[f]);
      g_string_append (fault, ",\n");
      g_string_insert (s, at - s->str, fault->str);
      g_string_free (fault, TRUE);
      path = test_dump_write_file (tmp_dir, name, s->str, s->len);

      serial = load_dump (path, "1", NULL);
      text = g_bytes_get_data (serial, &len);
      g_assert_true (g_str_has_prefix (text, "error: "));
      g_assert_nonnull (strstr (text, name));
      g_assert_nonnull (strstr (text, " at line "));
      check_same (path, small_chunks, G_N_ELEMENTS (small_chunks));
    }
}

/* A file cut short anywhere: the same events and warnings, or the same
 * error. */
static void
test_truncated (void)
{
  g_autoptr(GString) s = tricky_trace (300);
  static const char *const chunks[] = { "1", "300" };

  for (guint i = 1; i <= 23; i++)
    {
      gsize len = s->len * i / 24 + i;
      g_autofree char *name = g_strdup_printf ("cut%u.json", i);
      g_autofree char *path = test_dump_write_file (tmp_dir, name, s->str, len);
      g_autofree char *gz_name = g_strdup_printf ("cut%u.json.gz", i);
      g_autofree char *gz = write_gzip (gz_name, s->str, len);

      check_same (path, chunks, G_N_ELEMENTS (chunks));
      check_same (gz, chunks, G_N_ELEMENTS (chunks));
    }
}

/* A folder: a file whose error stops its parse with chunks still on the
 * workers, between two good ones. The same trace, with the same
 * warning, on one thread and on several. */
static void
test_folder (void)
{
  g_autofree char *dir = g_build_filename (tmp_dir, "folder", NULL);
  g_autoptr(GString) good = tricky_trace (2000);
  g_autoptr(GString) bad = tricky_trace (2000);
  g_autofree char *a = g_build_filename (dir, "a.pt.trace.json", NULL);
  g_autofree char *b = g_build_filename (dir, "b.pt.trace.json", NULL);
  g_autofree char *c = g_build_filename (dir, "c.pt.trace.json", NULL);
  static const char *const chunks[] = { "1", "4096" };
  char *at;

  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  at = strstr (bad->str, "\"ts\": 200}");
  g_assert_nonnull (at);
  memcpy (at, "\"ts\": 2;0}", 10);
  g_assert_true (g_file_set_contents (a, good->str, good->len, NULL));
  g_assert_true (g_file_set_contents (b, bad->str, bad->len, NULL));
  g_assert_true (g_file_set_contents (c, good->str, good->len, NULL));
  check_same (dir, chunks, G_N_ELEMENTS (chunks));
  g_unlink (a);
  g_unlink (b);
  g_unlink (c);
  g_rmdir (dir);
}

/* Folders load their files in parallel, the gzip files after the one
 * being read inflated ahead on a pool: the same .kscope as on one
 * thread, the same warnings for a file cut short and one that is no
 * JSON, on the corpus's rank folders and a folder written here. */
static void
test_rank_folders (void)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  g_autofree char *dir = g_build_filename (tmp_dir, "ranks", NULL);
  static const char *const chunks[] = { "4096" };
  static const char *const hta[] = {
    "timeline_analysis/sampled_rank-0.json.gz", "trace_filter/sampled_rank-1.json.gz",
    "rank_unavailable/rank_not_found.json.gz", "nccl_parser_config/nccl_data.json.gz",
  };
  g_autoptr(GString) t0 = tricky_trace (2000);
  g_autoptr(GString) t1 = tricky_trace (3000);
  g_autoptr(GString) t2 = tricky_trace (500);
  g_autoptr(GString) t5 = tricky_trace (1000);
  const char *junk = "neither JSON nor a trace";
  g_autofree char *cut = NULL;
  g_autofree char *cut_data = NULL;
  gsize cut_len;

  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  g_free (write_gzip ("ranks/rank-0.json.gz", t0->str, t0->len));
  g_free (write_gzip ("ranks/rank-1.json.gz", t1->str, t1->len));
  g_free (test_dump_write_file (tmp_dir, "ranks/rank-2.json", t2->str, t2->len));
  /* the gzip data cut at two thirds: the reader warns of it */
  cut = write_gzip ("ranks/rank-3.json.gz", t1->str, t1->len);
  g_assert_true (g_file_get_contents (cut, &cut_data, &cut_len, NULL));
  g_assert_true (g_file_set_contents (cut, cut_data, cut_len * 2 / 3, NULL));
  g_free (write_gzip ("ranks/rank-4.json.gz", junk, strlen (junk)));
  g_free (write_gzip ("ranks/rank-5.json.gz", t5->str, t5->len));

  check_same (dir, chunks, G_N_ELEMENTS (chunks));
  /* all but the first and the one cut short (read as on one thread) */
  g_assert_cmpuint (n_debug_files, ==, 6);
  g_assert_cmpuint (n_debug_ahead, ==, 3);
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(KsTrace) trace = load_trace (dir, "3", NULL, &error);
    const char *warnings;

    g_assert_no_error (error);
    warnings = ks_trace_get_metadata (trace, "warnings");
    g_assert_nonnull (strstr (warnings, "rank-3.json.gz: the compressed data ends early"));
    g_assert_nonnull (strstr (warnings, "rank-4.json.gz: "));
    g_assert_cmpuint (trace->n_ranks, ==, 5);
  }
  for (guint k = 0; k < 6; k++)
    {
      g_autofree char *name = g_strdup_printf (k == 2 ? "rank-%u.json" : "rank-%u.json.gz", k);
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (dir);

  for (guint k = 0; shared != NULL && k < G_N_ELEMENTS (hta); k++)
    {
      g_autofree char *target = g_build_filename (shared, "corpus", "hta", hta[k], NULL);

      if (!g_file_test (target, G_FILE_TEST_IS_REGULAR))
        shared = NULL;
    }
  if (shared != NULL)
    {
      g_autofree char *docs = g_build_filename (shared, "corpus", "kineto", "docs_traces", NULL);

      if (!g_file_test (docs, G_FILE_TEST_IS_DIR))
        shared = NULL;
    }
  if (shared == NULL)
    {
      g_test_skip ("the shared corpus is absent (KS_SHARED_DIR/corpus/hta)");
      return;
    }
  /* HTA's ranks in a folder, and Kineto's two plain traces */
  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  for (guint k = 0; k < G_N_ELEMENTS (hta); k++)
    {
      g_autofree char *target = g_build_filename (shared, "corpus", "hta", hta[k], NULL);
      g_autofree char *name = g_strdup_printf ("rank-%u.json.gz", k);
      g_autofree char *link = g_build_filename (dir, name, NULL);

      g_assert_cmpint (symlink (target, link), ==, 0);
    }
  check_same (dir, chunks, G_N_ELEMENTS (chunks));
  g_assert_cmpuint (n_debug_files, ==, 4);
  g_assert_cmpuint (n_debug_ahead, ==, 3);
  for (guint k = 0; k < G_N_ELEMENTS (hta); k++)
    {
      g_autofree char *name = g_strdup_printf ("rank-%u.json.gz", k);
      g_autofree char *link = g_build_filename (dir, name, NULL);

      g_unlink (link);
    }
  g_rmdir (dir);
  {
    g_autofree char *docs = g_build_filename (shared, "corpus", "kineto", "docs_traces", NULL);

    check_same (docs, chunks, G_N_ELEMENTS (chunks));
    g_assert_cmpuint (n_debug_files, ==, 2);
    g_assert_cmpuint (n_debug_ahead, ==, 0);
  }
}

/* The text of the fixture @name, inflated. */

/* @path loaded on one thread and on three, with its white space
 * dropped by the reading thread, by a thread of its own, and by the
 * thread that parses each chunk cut from the file's text as it lies: the
 * same dump, byte for byte, or the same error; the thread compacted the
 * mapped text only when asked to. */
static void
check_compaction_threads (const char *path)
{
  g_autoptr(GBytes) serial = load_dump (path, "1", NULL);
  static const char *const threads[] = { "1", "3" };
  static const char *const how_names[] = { "the reading thread", "a thread of its own", "the chunks' threads" };

  for (guint t = 0; t < G_N_ELEMENTS (threads); t++)
    for (guint thread = 0; thread <= 2; thread++)
      {
        g_autoptr(GBytes) other = NULL;
        g_autofree char *how = g_strdup_printf ("%s threads, compaction on %s", threads[t], how_names[thread]);

        g_setenv ("KINESCOPE_JSON_COMPACT", thread == 1 ? "thread" : "read", TRUE);
        g_setenv ("KINESCOPE_JSON_CUT", thread == 2 ? "raw" : "compacted", TRUE);
        other = load_dump (path, threads[t], NULL);
        g_unsetenv ("KINESCOPE_JSON_CUT");
        g_unsetenv ("KINESCOPE_JSON_COMPACT");
        test_dump_assert_same (path, how, serial, other);
        if (thread == 1)
          g_assert_cmpuint (n_debug_compacted, >, 0);
        else
          g_assert_cmpuint (n_debug_compacted, ==, 0);
      }
}

/* A plain file is mapped past its first MiB; on many threads a thread of
 * its own drops the white space of the mapped text. The same model as
 * when the reading thread does, for a real trace (13 MB of indented
 * Kineto JSON), for one followed by megabytes of text past its end (the
 * read stops early), and for one with a syntax error 8 MB in (the same
 * line and byte). */
static void
test_mapped_compaction (void)
{
  g_autoptr(GString) s = test_dump_inflate_fixture ("gpt_3steps.pt.trace.json.gz");
  g_autofree char *path = NULL;
  g_autofree char *tail = NULL;
  g_autofree char *broken = NULL;
  g_autoptr(GBytes) error_dump = NULL;
  char *at;

  g_assert_cmpuint (s->len, >, 8 * 1024 * 1024);
  path = test_dump_write_file (tmp_dir, "gpt.json", s->str, s->len);
  check_compaction_threads (path);

  /* text after the trace: nothing past its first bytes is compacted */
  {
    g_autoptr(GString) t = g_string_new_len (s->str, s->len);

    for (guint i = 0; i < 3 * 1024 * 1024 / 64; i++)
      g_string_append (t, "not JSON after the trace, not JSON after the trace, not JSON!\n");
    tail = test_dump_write_file (tmp_dir, "gpt-tail.json", t->str, t->len);
    check_compaction_threads (tail);
  }

  /* a colon become a semicolon, far into the mapped text */
  at = strstr (s->str + 8 * 1024 * 1024, "\"ph\": \"X\"");
  g_assert_nonnull (at);
  at[4] = ';';
  broken = test_dump_write_file (tmp_dir, "gpt-broken.json", s->str, s->len);
  check_compaction_threads (broken);
  error_dump = load_dump (broken, "3", NULL);
  g_assert_true (g_str_has_prefix (g_bytes_get_data (error_dump, NULL), "error: "));
  g_assert_nonnull (strstr (g_bytes_get_data (error_dump, NULL), "gpt-broken.json: invalid JSON at line "));
}

/* @path loaded on one thread, and on @threads with its white space
 * dropped by a thread of its own (a .json.gz: by the inflating thread and
 * the reading thread in turn) and chunks of each size of @chunks (and
 * the default): the same dump, byte for byte; chunks took their text
 * from the compacted blocks, and with @merges some were cut inside a
 * string and parsed again with the next. */
static void
check_shared_blocks (const char        *path,
                     const char        *threads,
                     const char *const *chunks,
                     guint              n_chunks,
                     gboolean           merges)
{
  g_autoptr(GBytes) serial = load_dump (path, "1", NULL);
  gboolean merged = FALSE;

  for (guint i = 0; i <= n_chunks; i++)
    {
      const char *chunk = i < n_chunks ? chunks[i] : NULL;
      g_autofree char *how = g_strdup_printf ("%s threads, chunks of %s bytes from the compacted blocks",
                                              threads, chunk ? chunk : "default");
      g_autoptr(GBytes) parallel = NULL;

      g_setenv ("KINESCOPE_JSON_COMPACT", "thread", TRUE);
      g_setenv ("KINESCOPE_JSON_CUT", "compacted", TRUE);
      g_setenv ("KINESCOPE_GZ_COMPACT", i % 2 == 0 ? "inflate" : "read", TRUE);
      parallel = load_dump (path, threads, chunk);
      g_unsetenv ("KINESCOPE_JSON_CUT");
      g_unsetenv ("KINESCOPE_JSON_COMPACT");
      g_unsetenv ("KINESCOPE_GZ_COMPACT");
      test_dump_assert_same (path, how, serial, parallel);
      g_assert_true (saw_debug);
      if (!g_str_has_suffix (path, ".gz"))
        g_assert_cmpuint (n_debug_compacted, >, 0);
      g_assert_cmpuint (n_debug_shared, >, 0);
      /* most: all but those of a plain file's first MiB, which is read,
       * not mapped */
      if (chunk == NULL)
        g_assert_cmpuint (2 * n_debug_shared, >, n_debug_chunks);
      merged |= n_debug_merged > 0;
    }
  g_assert_true (merged == merges);
}

/* Past its first MiB a plain file's compacted blocks, and a .json.gz's
 * inflated ones, are cut where they lie, and the parse copies a chunk's
 * text from the block: the same model as one thread for a trace with
 * `},{"` inside strings and args (each such cut found out and parsed
 * again), events that pair and nest across any cut, at every chunk
 * size, and for the 13 MB GPT trace. */
static void
test_shared_blocks (void)
{
  g_autoptr(GString) s = tricky_trace (40000);
  g_autoptr(GString) gpt = test_dump_inflate_fixture ("gpt_3steps.pt.trace.json.gz");
  g_autofree char *path = NULL;
  g_autofree char *gz = NULL;
  g_autofree char *gpt_path = NULL;
  static const char *const chunks[] = { "61", "4096", "100000" };
  static const char *const gpt_chunks[] = { "4096" };

  g_assert_cmpuint (s->len, >, 3 * 1024 * 1024);
  path = test_dump_write_file (tmp_dir, "tricky-shared.json", s->str, s->len);
  check_shared_blocks (path, "3", chunks, G_N_ELEMENTS (chunks), TRUE);
  check_shared_blocks (path, "4", chunks, 1, TRUE);
  gz = write_gzip ("tricky-shared.json.gz", s->str, s->len);
  check_shared_blocks (gz, "3", chunks, G_N_ELEMENTS (chunks), TRUE);

  /* an error in the first blocks, while the inflating thread is blocks
   * ahead and waits for one back: the same error, not a hang */
  {
    char *at = strstr (s->str + 100000, "\"ph\": \"X\"");
    g_autofree char *broken = NULL;
    g_autoptr(GBytes) serial = NULL;

    g_assert_nonnull (at);
    at[4] = ';';
    broken = write_gzip ("tricky-broken.json.gz", s->str, s->len);
    serial = load_dump (broken, "1", NULL);
    g_assert_true (g_str_has_prefix (g_bytes_get_data (serial, NULL), "error: "));
    for (guint i = 0; i < G_N_ELEMENTS (chunks); i++)
      {
        g_autoptr(GBytes) parallel = load_dump (broken, "3", chunks[i]);

        assert_same_bytes (broken, serial, parallel, chunks[i]);
      }
    at[4] = ':';
  }
  gpt_path = test_dump_write_file (tmp_dir, "gpt-shared.json", gpt->str, gpt->len);
  check_shared_blocks (gpt_path, "4", gpt_chunks, G_N_ELEMENTS (gpt_chunks), FALSE);
}

/* The args ids of every slice and the store's size: a .kscope keeps the
 * text, so only the model shows the store's order. */
static void
assert_same_args (const char *path,
                  const char *chunk,
                  gboolean    thread)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) serial = load_trace (path, "1", NULL, &error);
  g_autoptr(KsTrace) other = NULL;

  g_assert_no_error (error);
  g_setenv ("KINESCOPE_JSON_ARGS", thread ? "thread" : "replay", TRUE);
  other = load_trace (path, "3", chunk, &error);
  g_unsetenv ("KINESCOPE_JSON_ARGS");
  g_assert_no_error (error);
  g_assert_cmpuint (ks_args_store_get_memory_size (other->args), ==, ks_args_store_get_memory_size (serial->args));
  g_assert_cmpuint (other->n_tracks, ==, serial->n_tracks);
  for (guint t = 0; t < serial->n_tracks; t++)
    {
      g_assert_cmpuint (other->tracks[t].n_slices, ==, serial->tracks[t].n_slices);
      g_assert_cmpmem (other->tracks[t].args, other->tracks[t].n_slices * sizeof (guint32),
                       serial->tracks[t].args, serial->tracks[t].n_slices * sizeof (guint32));
    }
}

/* @path on one thread and on three with the args stored on a thread of
 * their own and in the replay, with chunks of @chunk bytes: the same
 * dump byte for byte and the same args ids; the thread stored args only
 * when asked to. */
static void
check_args_thread (const char *path,
                   const char *chunk,
                   guint      *n_thread,
                   guint      *n_here)
{
  g_autoptr(GBytes) serial = load_dump (path, "1", NULL);
  guint n_thread_seen = 0, n_here_seen = 0;

  g_assert_false (saw_args_debug);
  for (guint thread = 0; thread <= 1; thread++)
    {
      g_autoptr(GBytes) other = NULL;
      g_autofree char *how = g_strdup_printf ("chunks of %s bytes, args %s", chunk ? chunk : "default",
                                              thread ? "on their own thread" : "in the replay");

      g_setenv ("KINESCOPE_JSON_ARGS", thread ? "thread" : "replay", TRUE);
      other = load_dump (path, "3", chunk);
      g_unsetenv ("KINESCOPE_JSON_ARGS");
      test_dump_assert_same (path, how, serial, other);
      g_assert_true (saw_args_debug == thread);
      n_thread_seen = n_debug_args_thread;
      n_here_seen = n_debug_args_here;
      assert_same_args (path, chunk, thread);
    }
  *n_thread = n_thread_seen;
  *n_here = n_here_seen;
}

/* The args of complete events stored on a thread of their own while the
 * next chunk is replayed, and everything else that stores args (a B/E
 * pair's merged args, an instant's, an async range's, args repaired for
 * invalid UTF-8) storing what was handed over first: the same records in
 * the same order, so the same ids, at every chunk size. Every complete
 * event with args whose text needs no repair goes through the thread or,
 * at a barrier, the reading thread; the count is the generator's. */
static void
test_args_thread (void)
{
  g_autoptr(GString) s = g_string_new ("{\"traceEvents\":[\n");
  g_autoptr(GString) gpt = test_dump_inflate_fixture ("gpt_3steps.pt.trace.json.gz");
  g_autofree char *path = NULL;
  g_autofree char *gpt_path = NULL;
  static const char *const chunks[] = { "1", "61", "4096", NULL };
  guint n_deferrable = 0, n_thread, n_here, all_thread = 0;

  for (guint i = 0; i < 400; i++)
    {
      guint ts = 10 * i;

      g_string_append_printf (s, "{\"ph\":\"X\",\"name\":\"x%u\",\"pid\":1,\"tid\":%u,\"ts\":%u,\"dur\":3,"
                              "\"args\":{\"n\":%u,\"s\":\"v%u\",\"t\":[%u,\"w%u\"]}},\n",
                              i % 5, i % 3, ts, i, i % 17, i * 7, i % 29);
      n_deferrable++;
      if (i % 9 == 0)
        {
          /* a B/E pair: its args merged and stored at the E */
          g_string_append_printf (s, "{\"ph\":\"B\",\"name\":\"b\",\"pid\":1,\"tid\":7,\"ts\":%u,"
                                  "\"args\":{\"b\":%u}},\n", ts, i);
          g_string_append_printf (s, "{\"ph\":\"E\",\"pid\":1,\"tid\":7,\"ts\":%u,\"args\":{\"e\":\"e%u\"}},\n",
                                  ts + 5, i % 4);
        }
      if (i % 11 == 0)
        g_string_append_printf (s, "{\"ph\":\"i\",\"name\":\"i\",\"pid\":1,\"tid\":0,\"ts\":%u,"
                                "\"args\":{\"k\":\"v%u\"}},\n", ts + 1, i % 17);
      if (i % 13 == 0)
        g_string_append_printf (s, "{\"ph\":\"b\",\"cat\":\"c\",\"id\":%u,\"name\":\"a\",\"pid\":1,\"ts\":%u,"
                                "\"args\":{\"a\":%u}},\n{\"ph\":\"e\",\"cat\":\"c\",\"id\":%u,\"name\":\"a\","
                                "\"pid\":1,\"ts\":%u},\n", i, ts, i, i, ts + 4);
      if (i % 17 == 0)
        {
          /* repaired into a buffer of the reader's: stored in the replay */
          g_string_append_printf (s, "{\"ph\":\"X\",\"name\":\"u\",\"pid\":1,\"tid\":1,\"ts\":%u,\"dur\":1,"
                                  "\"args\":{\"u\":\"\xff%u\"}},\n", ts + 2, i);
          /* valid UTF-8 is not repaired */
          g_string_append_printf (s, "{\"ph\":\"X\",\"name\":\"\xc3\xa9\",\"pid\":1,\"tid\":2,\"ts\":%u,\"dur\":1,"
                                  "\"args\":{\"\xc3\xa9\":\"\xc3\xa9%u\"}},\n", ts + 2, i);
          n_deferrable++;
        }
    }
  g_string_append (s, "{\"ph\":\"X\",\"name\":\"last\",\"pid\":1,\"tid\":0,\"ts\":5000,\"dur\":1}]}\n");
  path = test_dump_write_file (tmp_dir, "args-thread.json", s->str, s->len);

  for (guint i = 0; i < G_N_ELEMENTS (chunks); i++)
    {
      check_args_thread (path, chunks[i], &n_thread, &n_here);
      g_assert_cmpuint (n_thread + n_here, ==, n_deferrable);
      all_thread += n_thread;
      /* the B/E pairs, instants, async ranges and repaired args came
       * between complete events of the same chunk */
      if (chunks[i] != NULL && strcmp (chunks[i], "4096") == 0)
        g_assert_cmpuint (n_here, >, 0);
    }
  /* (the default chunk holds the whole file: stored at its end) */
  g_assert_cmpuint (all_thread, >, 0);

  /* a real trace: its Kineto args on the thread, chunk after chunk */
  gpt_path = test_dump_write_file (tmp_dir, "gpt-args.json", gpt->str, gpt->len);
  check_args_thread (gpt_path, NULL, &n_thread, &n_here);
  g_assert_cmpuint (n_thread, >, 10000);
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  g_setenv ("G_MESSAGES_DEBUG", "ks-json-reader", TRUE);
  g_test_init (&argc, &argv, NULL);
  g_log_set_handler ("ks-json-reader", G_LOG_LEVEL_DEBUG, log_handler, NULL);
  tmp_dir = g_dir_make_tmp ("ks-json-parallel-XXXXXX", NULL);

  g_test_add_func ("/json-parallel/fixtures", test_fixtures);
  g_test_add_func ("/json-parallel/fuzz-seeds", test_fuzz_seeds);
  g_test_add_func ("/json-parallel/corpus", test_corpus);
  g_test_add_func ("/json-parallel/across-cuts", test_across_cuts);
  g_test_add_func ("/json-parallel/many-flows", test_many_flows);
  g_test_add_func ("/json-parallel/perfetto-shapes", test_perfetto_shapes);
  g_test_add_func ("/json-parallel/lenient", test_lenient);
  g_test_add_func ("/json-parallel/errors", test_errors);
  g_test_add_func ("/json-parallel/truncated", test_truncated);
  g_test_add_func ("/json-parallel/folder", test_folder);
  g_test_add_func ("/json-parallel/rank-folders", test_rank_folders);
  g_test_add_func ("/json-parallel/mapped-compaction", test_mapped_compaction);
  g_test_add_func ("/json-parallel/shared-blocks", test_shared_blocks);
  g_test_add_func ("/json-parallel/args-thread", test_args_thread);
  ret = g_test_run ();

  test_dump_remove_dir (tmp_dir);
  return ret;
}
