/* test-kscope-conventions.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The same kernels and threads written by both .kscope writers: converted
 * from a Chrome trace (ks-kscope-writer.c) and received over the wire as
 * a recorded process sends them (ks-record-writer.c). Both files must
 * give each kernel the same shortName and each thread the same role. */

#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <string.h>

#include "ks-json-reader.h"
#include "ks-kscope-conventions.h"
#include "ks-kscope-writer.h"
#include "ks-record-session.h"
#include "ks-wire.h"

/* A pid no Linux system hands out (pid_max is at most 2^22), so that the
 * recorder finds nothing of it in /proc. */
#define PID 5000000

static const struct {
  const char *mangled;
  const char *demangled;   /* what __cxa_demangle and the JSON give */
  const char *expected;
} kernels[] = {
  { "_ZN2ns3FooIiE3barEi", "ns::Foo<int>::bar(int)", "bar" },
  { "_ZN2ns4kernIfLi4EEEvPfi", "void ns::kern<float, 4>(float*, int)", "kern" },
  { "_ZN12_GLOBAL__N_16helperEv", "(anonymous namespace)::helper()", "helper" },
  { "_ZN2ns5OuterIiE5InnerIfE3runIdEEvT_", "void ns::Outer<int>::Inner<float>::run<double>(double)", "run" },
  { "plain_kernel", "plain_kernel", "plain_kernel" },
};

static const struct {
  gint64      tid;
  const char *name;
  const char *expected;
} threads[] = {
  /* a DataLoader worker process: PyTorch renames its first thread */
  { PID, "pt_data_worker", "dataloader" },
  { PID + 1, "pt_autograd_0", "autograd" },
  { PID + 2, "DataLoader pin_memory", "dataloader" },
  { PID + 3, "worker", NULL },
};

static char *
write_json (const char *dir)
{
  g_autoptr(GString) json = g_string_new ("{\"traceEvents\":[\n");
  g_autofree char *path = g_build_filename (dir, "names.json", NULL);
  g_autoptr(GError) error = NULL;

  g_string_append_printf (json, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":\"python\"}},\n", PID);
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    {
      g_string_append_printf (json, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%" G_GINT64_FORMAT ","
                              "\"args\":{\"name\":\"%s\"}},\n", PID, threads[i].tid, threads[i].name);
      g_string_append_printf (json, "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\",\"pid\":%d,\"tid\":%" G_GINT64_FORMAT ","
                              "\"ts\":%u,\"dur\":1},\n", PID, threads[i].tid, 1 + i);
    }
  for (guint i = 0; i < G_N_ELEMENTS (kernels); i++)
    {
      g_string_append_printf (json, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":%d,"
                              "\"tid\":%d,\"ts\":%u,\"dur\":2,\"args\":{\"correlation\":%u}},\n",
                              PID, PID, 10 + 10 * i, 1 + i);
      g_string_append_printf (json, "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":7,"
                              "\"ts\":%u,\"dur\":3,\"args\":{\"correlation\":%u,\"device\":0,\"stream\":7}}%s\n",
                              kernels[i].demangled, 15 + 10 * i, 1 + i, i + 1 < G_N_ELEMENTS (kernels) ? "," : "");
    }
  g_string_append (json, "]}\n");
  g_assert_true (g_file_set_contents (path, json->str, (gssize) json->len, &error));
  g_assert_no_error (error);
  return g_steal_pointer (&path);
}

static char *
convert (const char *dir)
{
  g_autofree char *json = write_json (dir);
  g_autofree char *path = g_build_filename (dir, "converted.kscope", NULL);
  g_autoptr(GFile) in = g_file_new_for_path (json);
  g_autoptr(GFile) out = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = ks_json_reader_load (in, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_true (ks_kscope_write (trace, out, NULL, NULL, &error));
  g_assert_no_error (error);
  return g_steal_pointer (&path);
}

static void
feed (KsRecordConnection *conn,
      KsWireType          type,
      const void         *fixed,
      gsize               fixed_size,
      const char         *text)
{
  gsize len = text != NULL ? strlen (text) + 1 : 0;
  gsize size = (fixed_size + len + 7) & ~(gsize) 7;
  g_autofree guint8 *msg = g_malloc0 (size);
  KsWireHeader *h = (KsWireHeader *) msg;

  memcpy (msg, fixed, fixed_size);
  if (len > 0)
    memcpy (msg + fixed_size, text, len);
  h->size = (guint32) size;
  h->type = (guint16) type;
  g_assert_true (ks_record_connection_feed (conn, msg, size));
}

static char *
record (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "recorded.kscope", NULL);
  g_autoptr(GError) error = NULL;
  KsRecordOptions options = { 0 };
  KsRecordSession *session;
  KsRecordConnection *conn;
  KsWireHello hello;
  guint64 t0;

  options.capture_range = (char *) "none";
  session = ks_record_session_new (path, &options, &error);
  g_assert_no_error (error);
  /* CLOCK_MONOTONIC, after the session started: nothing is filtered */
  t0 = (guint64) g_get_monotonic_time () * 1000 + 1000000;

  conn = ks_record_connection_new (session);
  ks_wire_hello_init (&hello, PID);
  g_assert_true (ks_record_connection_feed (conn, (const guint8 *) &hello, sizeof hello));
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    {
      KsWireThreadName m = { { 0 } };

      m.tid = (guint32) threads[i].tid;
      feed (conn, KS_WIRE_THREAD_NAME, &m, sizeof m, threads[i].name);
    }
  for (guint i = 0; i < G_N_ELEMENTS (kernels); i++)
    {
      KsWireString s = { { 0 } };
      KsWireKernel k = { { 0 } };

      s.id = 1 + i;
      feed (conn, KS_WIRE_STRING, &s, sizeof s, kernels[i].mangled);
      k.start = t0 + 1000 * i;
      k.end = k.start + 500;
      k.stream_id = 7;
      k.correlation_id = 1 + i;
      k.name_id = 1 + i;
      feed (conn, KS_WIRE_KERNEL, &k, sizeof k, NULL);
    }
  ks_record_connection_free (conn);
  g_assert_true (ks_record_session_finish (session, 0, TRUE, "test", &error));
  g_assert_no_error (error);
  ks_record_session_free (session);
  return g_steal_pointer (&path);
}

static char *
query_text (sqlite3    *db,
            const char *sql,
            const char *arg)
{
  sqlite3_stmt *s = NULL;
  char *text = NULL;

  if (sqlite3_prepare_v2 (db, sql, -1, &s, NULL) != SQLITE_OK)
    g_error ("%s: %s", sql, sqlite3_errmsg (db));
  sqlite3_bind_text (s, 1, arg, -1, SQLITE_TRANSIENT);
  if (sqlite3_step (s) == SQLITE_ROW)
    text = g_strdup ((const char *) sqlite3_column_text (s, 0));
  g_assert_cmpint (sqlite3_step (s), ==, SQLITE_DONE);
  sqlite3_finalize (s);
  return text;
}

static char *
short_name (sqlite3    *db,
            const char *demangled)
{
  return query_text (db, "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                         "JOIN StringIds d ON d.id = k.demangledName JOIN StringIds s ON s.id = k.shortName "
                         "WHERE d.value = ?1", demangled);
}

static char *
role (sqlite3 *db,
      gint64   tid)
{
  g_autofree char *text = g_strdup_printf ("%" G_GINT64_FORMAT, tid);

  return query_text (db, "SELECT COALESCE(role, '(none)') FROM KS_THREADS WHERE pid = "
                         G_STRINGIFY (PID) " AND tid = CAST(?1 AS INTEGER)", text);
}

static void
test_both_writers (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-conventions-XXXXXX", NULL);
  g_autofree char *converted = convert (dir);
  g_autofree char *recorded = record (dir);
  sqlite3 *a;
  sqlite3 *b;

  g_assert_cmpint (sqlite3_open_v2 (converted, &a, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_open_v2 (recorded, &b, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);

  for (guint i = 0; i < G_N_ELEMENTS (kernels); i++)
    {
      g_autofree char *from_json = short_name (a, kernels[i].demangled);
      g_autofree char *from_wire = short_name (b, kernels[i].demangled);

      g_test_message ("%s: convert %s, record %s", kernels[i].demangled, from_json, from_wire);
      g_assert_cmpstr (from_json, ==, from_wire);
      g_assert_cmpstr (from_json, ==, kernels[i].expected);
    }
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    {
      g_autofree char *from_json = role (a, threads[i].tid);
      g_autofree char *from_wire = role (b, threads[i].tid);

      g_test_message ("%s: convert %s, record %s", threads[i].name, from_json, from_wire);
      g_assert_cmpstr (from_json, ==, from_wire);
      g_assert_cmpstr (from_json, ==, threads[i].expected ? threads[i].expected : "(none)");
    }

  sqlite3_close (a);
  sqlite3_close (b);
  g_unlink (converted);
  g_unlink (recorded);
  g_rmdir (dir);
}

/* Names that are not UTF-8 (a program's NVTX text, a thread's name, a
 * frame read from a process's memory as it changed) are written as
 * UTF-8, bad bytes replaced: SQLite's readers (Python's sqlite3 among
 * them) refuse to decode anything else. */
static void
test_not_utf8 (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-conventions-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "bad.kscope", NULL);
  g_autoptr(GError) error = NULL;
  KsRecordOptions options = { 0 };
  KsRecordSession *session;
  KsRecordConnection *conn;
  KsWireHello hello;
  KsWireThreadName name = { { 0 } };
  KsWireString string = { { 0 } };
  KsWireKernel kernel = { { 0 } };
  g_autofree char *kernel_name = NULL;
  g_autofree char *thread_name = NULL;
  sqlite3_stmt *st;
  sqlite3 *db;
  guint n = 0;

  options.capture_range = (char *) "none";
  session = ks_record_session_new (path, &options, &error);
  g_assert_no_error (error);
  conn = ks_record_connection_new (session);
  ks_wire_hello_init (&hello, PID);
  g_assert_true (ks_record_connection_feed (conn, (const guint8 *) &hello, sizeof hello));
  name.tid = PID;
  feed (conn, KS_WIRE_THREAD_NAME, &name, sizeof name, "loader\xc3(");
  string.id = 1;
  feed (conn, KS_WIRE_STRING, &string, sizeof string, "bad\xff\xfe_kernel");
  kernel.start = (guint64) g_get_monotonic_time () * 1000 + 1000000;
  kernel.end = kernel.start + 500;
  kernel.stream_id = 7;
  kernel.correlation_id = 1;
  kernel.name_id = 1;
  feed (conn, KS_WIRE_KERNEL, &kernel, sizeof kernel, NULL);
  ks_record_connection_free (conn);
  g_assert_true (ks_record_session_finish (session, 0, TRUE, "test", &error));
  g_assert_no_error (error);
  ks_record_session_free (session);

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT value FROM StringIds UNION ALL SELECT name FROM KS_THREADS "
                                           "WHERE name IS NOT NULL", -1, &st, NULL), ==, SQLITE_OK);
  while (sqlite3_step (st) == SQLITE_ROW)
    {
      const char *text = (const char *) sqlite3_column_text (st, 0);

      if (!g_utf8_validate (text, -1, NULL))
        g_error ("not UTF-8 in the recording: %s", text);
      n++;
    }
  sqlite3_finalize (st);
  g_assert_cmpuint (n, >, 2);
  kernel_name = query_text (db, "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                                "JOIN StringIds s ON s.id = k.demangledName WHERE ?1 IS NOT NULL", "");
  g_assert_cmpstr (kernel_name, ==, "bad\xef\xbf\xbd\xef\xbf\xbd_kernel");
  thread_name = query_text (db, "SELECT name FROM KS_THREADS WHERE tid = CAST(?1 AS INTEGER)",
                            G_STRINGIFY (PID));
  g_assert_cmpstr (thread_name, ==, "loader\xef\xbf\xbd(");
  sqlite3_close (db);
  g_unlink (path);
  g_rmdir (dir);
}

/* The rule against Nsight itself: every kernel row of its export of the
 * CloverLeaf run (templates whose arguments hold lambdas, parameter lists
 * and std::array<int, (unsigned long)4>) gets Nsight's own shortName. */
static void
test_nsight_export (void)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  g_autofree char *path = NULL;
  sqlite3 *db;
  sqlite3_stmt *s;
  guint rows = 0;

  if (shared != NULL)
    path = g_build_filename (shared, "corpus", "pipit", "cloverleaf-nsys", "perlmutter-cloverleaf-cuda.sqlite", NULL);
  if (path == NULL || !g_file_test (path, G_FILE_TEST_IS_REGULAR))
    {
      g_test_skip ("the corpus (KS_SHARED_DIR/corpus/pipit/cloverleaf-nsys) is not available");
      return;
    }
  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT d.value, s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                                           "JOIN StringIds d ON d.id = k.demangledName "
                                           "JOIN StringIds s ON s.id = k.shortName", -1, &s, NULL), ==, SQLITE_OK);
  while (sqlite3_step (s) == SQLITE_ROW)
    {
      g_autofree char *ours = ks_kscope_kernel_short_name ((const char *) sqlite3_column_text (s, 0));

      g_assert_cmpstr (ours, ==, (const char *) sqlite3_column_text (s, 1));
      rows++;
    }
  sqlite3_finalize (s);
  sqlite3_close (db);
  g_assert_cmpuint (rows, ==, 1312);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/kscope-conventions/both-writers", test_both_writers);
  g_test_add_func ("/kscope-conventions/nsight-export", test_nsight_export);
  g_test_add_func ("/kscope-conventions/not-utf8", test_not_utf8);
  return g_test_run ();
}
