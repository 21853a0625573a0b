/* test-record-samples.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The Python side's sampled stacks as the recorder receives them (wire
 * messages fed to a connection, as the receiving thread does) and writes
 * them: one SAMPLING_CALLCHAINS chain per distinct stack, shared by the
 * samples of every thread and process through COMPOSITE_EVENTS.callchainId;
 * a sample without frames (KS_WIRE_PY_SAMPLE, n_frames 0) repeating its
 * thread's previous stack; and what is dropped, and said so, when a
 * repeat has no previous stack or the recorder's stacks are full. */

#include "config.h"

#include <glib/gstdio.h>
#include <sqlite3.h>
#include <string.h>

#include "ks-record-private.h"
#include "ks-trace-loader.h"

#include "test-record-sql.h"

static char *tmp_dir;

static char *
tmp_file (const char *name)
{
  return g_build_filename (tmp_dir, name, NULL);
}

static void
add_string (GByteArray *s,
            guint32     id,
            const char *text)
{
  KsWireString m;
  guint8 buf[128] = { 0 };
  guint32 size = ks_wire_align ((guint32) (sizeof m + strlen (text) + 1));

  memset (&m, 0, sizeof m);
  m.h.type = KS_WIRE_STRING;
  m.h.size = size;
  m.id = id;
  memcpy (buf, &m, sizeof m);
  memcpy (buf + sizeof m, text, strlen (text));
  g_byte_array_append (s, buf, size);
}

/* A sample of @tid at @ts with @n_frames frames (file, function, line),
 * innermost first; n_frames 0: the thread's previous stack again. */
static void
add_sample (GByteArray          *s,
            guint64              ts,
            guint32              tid,
            guint32              n_frames,
            const KsWirePyFrame *frames)
{
  KsWirePySample m;
  guint32 size = ks_wire_align ((guint32) (sizeof m + n_frames * sizeof (KsWirePyFrame)));
  guint len = s->len;

  memset (&m, 0, sizeof m);
  m.h.type = KS_WIRE_PY_SAMPLE;
  m.h.size = size;
  m.timestamp = ts;
  m.tid = tid;
  m.n_frames = n_frames;
  g_byte_array_set_size (s, len + size);
  memset (s->data + len, 0, size);
  memcpy (s->data + len, &m, sizeof m);
  if (n_frames > 0)
    memcpy (s->data + len + sizeof m, frames, n_frames * sizeof (KsWirePyFrame));
}

/* Feeds @stream as process @pid's connection, in two pieces split inside
 * a message, as a socket may deliver it. */
static void
feed (KsRecordSession *session,
      gint64           pid,
      GByteArray      *stream)
{
  KsRecordConnection *conn = ks_record_connection_new (session);
  KsWireHello hello;

  ks_wire_hello_init (&hello, pid);
  g_assert_true (ks_record_connection_feed (conn, (const guint8 *) &hello, sizeof hello));
  g_assert_true (ks_record_connection_feed (conn, stream->data, 29));
  g_assert_true (ks_record_connection_feed (conn, stream->data + 29, stream->len - 29));
  ks_record_connection_free (conn);
}

static KsRecordSession *
new_session (const char *path)
{
  g_autoptr(GError) error = NULL;
  KsRecordOptions options = { 0 };
  KsRecordSession *session;

  options.capture_range = (char *) "none";
  session = ks_record_session_new (path, &options, &error);
  g_assert_no_error (error);
  return session;
}

static void
finish (KsRecordSession *session)
{
  g_autoptr(GError) error = NULL;

  g_assert_true (ks_record_session_finish (session, 0, TRUE, "test", &error));
  g_assert_no_error (error);
  ks_record_session_free (session);
}

typedef struct
{
  gint64  tid;
  gint64  ts;
  char   *text;
} Line;

static int
compare_lines (gconstpointer a,
               gconstpointer b)
{
  const Line *x = a;
  const Line *y = b;

  if (x->tid != y->tid)
    return x->tid < y->tid ? -1 : 1;
  return (x->ts > y->ts) - (x->ts < y->ts);
}

/* "tid time: function:line caller:line …" of each sample of @trace, one a
 * line, by thread id and time; times from the first sample */
static char *
trace_stacks (KsTrace *trace)
{
  g_autoptr(GArray) lines = g_array_new (FALSE, FALSE, sizeof (Line));
  GString *s = g_string_new (NULL);
  gint64 first = G_MAXINT64;

  for (guint32 i = 0; i < trace->n_samples; i++)
    first = MIN (first, trace->samples[i].ts);
  for (guint32 i = 0; i < trace->n_samples; i++)
    {
      const KsSample *sample = &trace->samples[i];
      GString *text = g_string_new (NULL);
      Line line = { trace->threads[sample->thread].tid, sample->ts - first, NULL };

      for (guint32 n = sample->node; n != KS_NO_INDEX; n = trace->stack_nodes[n].parent)
        g_string_append_printf (text, " %s:%u", ks_trace_string (trace, trace->stack_nodes[n].function),
                                trace->stack_nodes[n].line);
      line.text = g_string_free (text, FALSE);
      g_array_append_val (lines, line);
    }
  g_array_sort (lines, compare_lines);
  for (guint i = 0; i < lines->len; i++)
    {
      Line *line = &g_array_index (lines, Line, i);

      g_string_append_printf (s, "%" G_GINT64_FORMAT " %" G_GINT64_FORMAT ":%s\n", line->tid, line->ts, line->text);
      g_free (line->text);
    }
  return g_string_free (s, FALSE);
}

static KsTrace *
load (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KsTrace *trace = ks_trace_load (file, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

/* Two threads of one process and a thread of another with the same stack
 * share one chain; a thread's samples without frames repeat its own
 * previous stack; a repeat on a thread that sent no stack yet is counted
 * and skipped. */
static void
test_shared_and_repeated (void)
{
  g_autofree char *path = tmp_file ("shared.kscope");
  g_autoptr(GByteArray) a = g_byte_array_new ();
  g_autoptr(GByteArray) b = g_byte_array_new ();
  g_autoptr(KsTrace) trace = NULL;
  g_autofree char *stacks = NULL;
  g_autofree char *diag = NULL;
  g_autofree char *dropped = NULL;
  KsRecordSession *session = new_session (path);
  /* process A's string ids: file 1, step 2, <module> 3, loader 4 */
  const KsWirePyFrame step[] = { { 1, 2, 57 }, { 1, 3, 120 } };
  const KsWirePyFrame loader[] = { { 1, 4, 9 }, { 1, 3, 120 } };
  /* process B names the same strings with other ids */
  const KsWirePyFrame step_b[] = { { 8, 7, 57 }, { 8, 9, 120 } };
  guint64 t = ks_record_now_mono () + 1000000;
  sqlite3 *db;

  add_string (a, 1, "/srv/train.py");
  add_string (a, 2, "step");
  add_string (a, 3, "<module>");
  add_string (a, 4, "loader");
  add_sample (a, t + 50, 10, 0, NULL);          /* no stack yet: skipped */
  add_sample (a, t + 100, 10, 2, step);
  add_sample (a, t + 150, 11, 2, step);
  add_sample (a, t + 200, 10, 0, NULL);
  add_sample (a, t + 250, 11, 0, NULL);
  add_sample (a, t + 300, 10, 0, NULL);
  add_sample (a, t + 400, 10, 2, loader);
  add_sample (a, t + 500, 10, 0, NULL);         /* loader's, not step's */
  add_sample (a, t + 600, 12, 0, NULL);         /* no stack yet: skipped */
  feed (session, 4242, a);

  add_string (b, 7, "step");
  add_string (b, 8, "/srv/train.py");
  add_string (b, 9, "<module>");
  add_sample (b, t + 700, 4343, 2, step_b);
  add_sample (b, t + 800, 4343, 0, NULL);
  feed (session, 4343, b);
  finish (session);

  db = open_db (path);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM COMPOSITE_EVENTS"), ==, 9);
  /* two stacks of two frames: four rows, not one set per sample */
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM SAMPLING_CALLCHAINS"), ==, 4);
  g_assert_cmpint (query_int (db, "SELECT COUNT(DISTINCT id) FROM SAMPLING_CALLCHAINS"), ==, 2);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM COMPOSITE_EVENTS e WHERE NOT EXISTS "
                                  "(SELECT 1 FROM SAMPLING_CALLCHAINS c WHERE c.id = e.callchainId)"), ==, 0);
  /* 7 samples of step (both processes, three threads), 2 of loader */
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM COMPOSITE_EVENTS e "
                                  "JOIN SAMPLING_CALLCHAINS c ON c.id = e.callchainId AND c.stackDepth = 0 "
                                  "JOIN StringIds f ON f.id = c.symbol WHERE f.value = 'step' AND c.lineNumber = 57"), ==, 7);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM COMPOSITE_EVENTS e "
                                  "JOIN SAMPLING_CALLCHAINS c ON c.id = e.callchainId AND c.stackDepth = 0 "
                                  "JOIN StringIds f ON f.id = c.symbol WHERE f.value = 'loader'"), ==, 2);
  g_assert_cmpint (query_int (db, "SELECT COUNT(DISTINCT globalTid) FROM COMPOSITE_EVENTS"), ==, 3);
  dropped = query_text (db, "SELECT value FROM KS_META WHERE name = 'dropped_records'");
  g_assert_cmpstr (dropped, ==, "2");
  diag = query_text (db, "SELECT text FROM KS_DIAGNOSTICS WHERE source = 'python'");
  g_assert_cmpstr (diag, ==, "2 Python samples repeated a thread's previous stack "
                             "before the recorder had one; they were dropped");
  sqlite3_close (db);

  trace = load (path);
  stacks = trace_stacks (trace);
  g_assert_cmpstr (stacks, ==,
                   "10 0: step:57 <module>:120\n"
                   "10 100: step:57 <module>:120\n"
                   "10 200: step:57 <module>:120\n"
                   "10 300: loader:9 <module>:120\n"
                   "10 400: loader:9 <module>:120\n"
                   "11 50: step:57 <module>:120\n"
                   "11 150: step:57 <module>:120\n"
                   "4343 600: step:57 <module>:120\n"
                   "4343 700: step:57 <module>:120\n");
  g_unlink (path);
}

/* Past the most stack frames the recorder keeps (lowered here), a new
 * stack's samples, and its repeats, are dropped and counted; known
 * stacks go on being written. */
static void
test_stack_limit (void)
{
  g_autofree char *path = tmp_file ("limit.kscope");
  g_autoptr(GByteArray) a = g_byte_array_new ();
  g_autofree char *diag = NULL;
  g_autofree char *dropped = NULL;
  KsRecordSession *session = new_session (path);
  /* 3 frames; the second stack shares the outer two, the third none */
  const KsWirePyFrame first[] = { { 1, 2, 10 }, { 1, 3, 20 }, { 1, 4, 30 } };
  const KsWirePyFrame second[] = { { 1, 2, 11 }, { 1, 3, 20 }, { 1, 4, 30 } };
  const KsWirePyFrame third[] = { { 1, 2, 40 }, { 1, 3, 50 }, { 1, 4, 60 } };
  guint64 t = ks_record_now_mono () + 1000000;
  sqlite3 *db;

  ks_record_writer_set_stack_limit (session->writer, 4);
  add_string (a, 1, "/srv/train.py");
  add_string (a, 2, "f");
  add_string (a, 3, "g");
  add_string (a, 4, "h");
  add_sample (a, t + 100, 10, 3, first);        /* 3 frames kept */
  add_sample (a, t + 200, 10, 3, second);       /* 1 more: 4 */
  add_sample (a, t + 300, 10, 3, third);        /* 3 more: dropped */
  add_sample (a, t + 400, 10, 0, NULL);         /* third's: dropped */
  add_sample (a, t + 500, 11, 3, first);        /* known: written */
  add_sample (a, t + 600, 11, 0, NULL);
  feed (session, 4242, a);
  finish (session);

  db = open_db (path);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM COMPOSITE_EVENTS"), ==, 4);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM SAMPLING_CALLCHAINS"), ==, 6);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM COMPOSITE_EVENTS e JOIN SAMPLING_CALLCHAINS c "
                                  "ON c.id = e.callchainId AND c.stackDepth = 0 WHERE c.lineNumber = 40"), ==, 0);
  dropped = query_text (db, "SELECT value FROM KS_META WHERE name = 'dropped_records'");
  g_assert_cmpstr (dropped, ==, "2");
  diag = query_text (db, "SELECT text FROM KS_DIAGNOSTICS WHERE source = 'python'");
  g_assert_cmpstr (diag, ==, "2 Python samples were dropped: their stacks would have gone past "
                             "the 4 distinct stack frames the recorder keeps");
  sqlite3_close (db);
  g_unlink (path);
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("ks-test-record-samples-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);

  g_test_add_func ("/collector/samples/shared-and-repeated", test_shared_and_repeated);
  g_test_add_func ("/collector/samples/stack-limit", test_stack_limit);

  ret = g_test_run ();
  g_rmdir (tmp_dir);
  g_free (tmp_dir);
  return ret;
}
