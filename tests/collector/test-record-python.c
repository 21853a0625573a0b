/* test-record-python.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* `kinescope-cli record` of real python3 programs (tests/collector/python):
 * sampled stacks in COMPOSITE_EVENTS / SAMPLING_CALLCHAINS with the right
 * functions, files, lines and threads; the program's own sitecustomize
 * and sys.path left as they are; programs that exit at once, fork, or
 * empty sys.path; and PyTorch's side against a stand-in torch package
 * (python/fake-torch) that logs every call the recorder makes.
 *
 * argv after the GTest options: kinescope-cli, the directory of
 * libkinescope-inject.so (or "-"), tests/collector/python, python3 (or
 * "-"). */

#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <utime.h>

#include "ks-memsnap.h"
#include "ks-trace-loader.h"
#include "test-record-sql.h"

static const char *cli_path;
static const char *inject_dir;
static const char *py_dir;
static const char *python;
static const char *nvtx_shim;
static char *tmp_dir;
static char *cache_dir;

static gboolean
need_python (void)
{
  if (g_str_equal (inject_dir, "-"))
    {
      g_test_skip ("libkinescope-inject.so was not built (no CUDA toolkit)");
      return FALSE;
    }
  if (g_str_equal (python, "-"))
    {
      g_test_skip ("no python3");
      return FALSE;
    }
  return TRUE;
}

static char *
py_file (const char *name)
{
  return g_build_filename (py_dir, name, NULL);
}

static char *
tmp_file (const char *name)
{
  return g_build_filename (tmp_dir, name, NULL);
}

/* the standard error of spawn()'s last run */
static char *last_err;

/* Runs argv (NULL-terminated after @first) with @env_extra ("NAME=VALUE",
 * NULL-terminated, may be NULL) added; returns the exit status. */
static int
spawn (char               **out,
       const char * const  *env_extra,
       const char          *first,
       ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(GStrv) env = g_get_environ ();
  g_autoptr(GError) error = NULL;
  g_autofree char *err = NULL;
  int wait_status = 0;
  va_list args;

  env = g_environ_setenv (env, "KINESCOPE_INJECT_DIR", inject_dir, TRUE);
  env = g_environ_unsetenv (env, "PYTHONPATH");
  /* where the PyTorch observer is built: not the home folder */
  env = g_environ_setenv (env, "XDG_CACHE_HOME", cache_dir, TRUE);
  for (guint i = 0; env_extra != NULL && env_extra[i] != NULL; i++)
    {
      g_auto(GStrv) kv = g_strsplit (env_extra[i], "=", 2);

      env = g_environ_setenv (env, kv[0], kv[1], TRUE);
    }
  va_start (args, first);
  for (const char *a = first; a != NULL; a = va_arg (args, const char *))
    g_ptr_array_add (argv, (char *) a);
  va_end (args);
  g_ptr_array_add (argv, NULL);

  g_spawn_sync (tmp_dir, (char **) argv->pdata, env, out == NULL ? G_SPAWN_STDOUT_TO_DEV_NULL : 0,
                NULL, NULL, out, &err, &wait_status, &error);
  g_assert_no_error (error);
  if (!WIFEXITED (wait_status) || WEXITSTATUS (wait_status) != 0)
    g_test_message ("%s: %s", first, err);
  g_free (last_err);
  last_err = g_steal_pointer (&err);
  g_assert_true (WIFEXITED (wait_status));
  return WEXITSTATUS (wait_status);
}

/* @argv with exactly @env, stdout and stderr kept */
static void
spawn_env (const char * const  *argv,
           char               **env,
           char               **out,
           char               **err)
{
  g_autoptr(GError) error = NULL;
  int status;

  g_spawn_sync (tmp_dir, (char **) argv, env, 0, NULL, NULL, out, err, &status, &error);
  g_assert_no_error (error);
}

static gboolean
has_table (sqlite3    *db,
           const char *name)
{
  return query_intf (db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = '%s'", name) == 1;
}

/* Samples whose innermost frame is @function at @file:@line, on threads
 * of pid @pid (0: any) with tid = pid (@main) or not. */
static gint64
count_samples (sqlite3    *db,
               const char *function,
               const char *file,
               guint       line,
               const char *thread_cond)
{
  return query_intf (db,
                    "SELECT COUNT(*) FROM COMPOSITE_EVENTS e "
                    "JOIN SAMPLING_CALLCHAINS c ON c.id = e.callchainId AND c.stackDepth = 0 "
                    "JOIN StringIds f ON f.id = c.symbol JOIN StringIds m ON m.id = c.module "
                    "JOIN KS_THREADS t ON t.globalTid = e.globalTid "
                    "WHERE f.value = '%s' AND m.value = '%s' AND c.lineNumber = %u AND %s",
                    function, file, line, thread_cond);
}

/* Each distinct stack is one chain, written once: no two chains hold the
 * same frames, every chain is some sample's, every sample's chain is in
 * the file; and far fewer rows than one set of frames per sample. */
static void
assert_shared_chains (sqlite3 *db)
{
  gint64 rows = query_intf (db, "SELECT COUNT(*) FROM SAMPLING_CALLCHAINS");
  gint64 frames_of_samples = query_intf (db, "SELECT COUNT(*) FROM COMPOSITE_EVENTS e "
                                            "JOIN SAMPLING_CALLCHAINS c ON c.id = e.callchainId");

  g_test_message ("%" G_GINT64_FORMAT " samples, %" G_GINT64_FORMAT " chains in %" G_GINT64_FORMAT
                  " rows for %" G_GINT64_FORMAT " frames of samples",
                  query_intf (db, "SELECT COUNT(*) FROM COMPOSITE_EVENTS"),
                  query_intf (db, "SELECT COUNT(DISTINCT id) FROM SAMPLING_CALLCHAINS"), rows, frames_of_samples);
  g_assert_cmpint (rows, >, 0);
  g_assert_cmpint (rows * 10, <, frames_of_samples);
  /* pairs of chains with the same frames at every depth */
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM (SELECT a.id FROM SAMPLING_CALLCHAINS a "
                                  "JOIN SAMPLING_CALLCHAINS b ON b.id > a.id AND b.stackDepth = a.stackDepth "
                                  "AND b.symbol = a.symbol AND b.module = a.module AND b.lineNumber IS a.lineNumber "
                                  "GROUP BY a.id, b.id "
                                  "HAVING COUNT(*) = (SELECT COUNT(*) FROM SAMPLING_CALLCHAINS WHERE id = a.id) "
                                  "AND COUNT(*) = (SELECT COUNT(*) FROM SAMPLING_CALLCHAINS WHERE id = b.id))"), ==, 0);
  g_assert_cmpint (query_intf (db, "SELECT COUNT(DISTINCT callchainId) FROM COMPOSITE_EVENTS"), ==,
                   query_intf (db, "SELECT COUNT(DISTINCT id) FROM SAMPLING_CALLCHAINS"));
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM COMPOSITE_EVENTS e WHERE NOT EXISTS "
                                  "(SELECT 1 FROM SAMPLING_CALLCHAINS c WHERE c.id = e.callchainId)"), ==, 0);
}

/* The samples the reader makes of the file are its rows: per thread,
 * innermost frame and depth, as many in the model as in the tables. */
static void
assert_reader_stacks (sqlite3    *db,
                      const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = ks_trace_load (file, NULL, NULL, &error);
  g_autoptr(GHashTable) want = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sqlite3_stmt *s = NULL;
  guint64 n_rows = 0;

  g_assert_no_error (error);
  g_assert_cmpint (sqlite3_prepare_v2 (db,
                                       "SELECT t.tid, f.value, m.value, IFNULL(c.lineNumber, 0), "
                                       "(SELECT COUNT(*) FROM SAMPLING_CALLCHAINS d WHERE d.id = e.callchainId), COUNT(*) "
                                       "FROM COMPOSITE_EVENTS e "
                                       "JOIN SAMPLING_CALLCHAINS c ON c.id = e.callchainId AND c.stackDepth = 0 "
                                       "JOIN StringIds f ON f.id = c.symbol JOIN StringIds m ON m.id = c.module "
                                       "JOIN KS_THREADS t ON t.globalTid = e.globalTid GROUP BY 1, 2, 3, 4, 5",
                                       -1, &s, NULL), ==, SQLITE_OK);
  while (sqlite3_step (s) == SQLITE_ROW)
    {
      g_hash_table_insert (want, g_strdup_printf ("%s %s %s:%s depth %s", sqlite3_column_text (s, 0),
                                                  sqlite3_column_text (s, 1), sqlite3_column_text (s, 2),
                                                  sqlite3_column_text (s, 3), sqlite3_column_text (s, 4)),
                           GSIZE_TO_POINTER (sqlite3_column_int64 (s, 5)));
      n_rows += sqlite3_column_int64 (s, 5);
    }
  sqlite3_finalize (s);

  g_assert_cmpuint (trace->n_samples, ==, n_rows);
  for (guint32 i = 0; i < trace->n_samples; i++)
    {
      const KsStackNode *inner = &trace->stack_nodes[trace->samples[i].node];
      g_autofree char *key = g_strdup_printf ("%" G_GINT64_FORMAT " %s %s:%u depth %u",
                                              trace->threads[trace->samples[i].thread].tid,
                                              ks_trace_string (trace, inner->function),
                                              ks_trace_string (trace, inner->file), inner->line, inner->depth + 1);
      gsize left = GPOINTER_TO_SIZE (g_hash_table_lookup (want, key));

      if (left == 0)
        g_error ("the model has a sample the file does not: %s", key);
      g_hash_table_insert (want, g_steal_pointer (&key), GSIZE_TO_POINTER (left - 1));
    }
}

static void
assert_loads (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KsTrace *trace = ks_trace_load (file, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  g_object_unref (trace);
}

static char *
record (const char         *name,
        const char * const *env_extra,
        const char         *option,
        const char         *script,
        const char         *arg,
        int                 want_status)
{
  char *out = tmp_file (name);
  g_autofree char *program = py_file (script);

  g_assert_cmpint (spawn (NULL, env_extra, cli_path, "record", "-f", "-t", "nvtx", "-o", out,
                          option != NULL ? option : "--python-sampling=true",
                          "--", python, program, arg, NULL), ==, want_status);
  return out;
}

static void
test_sampling (void)
{
  g_autofree char *path = NULL;
  g_autofree char *script = py_file ("sampling.py");
  guint spin = marker_line (script, "SPIN");
  guint nap = marker_line (script, "NAP");
  gint64 n_spin;
  gint64 n_nap;
  gint64 span_ns;
  sqlite3 *db;

  if (!need_python ())
    return;
  path = record ("sampling.kscope", NULL, NULL, "sampling.py", "1.0", 0);
  db = open_db (path);

  n_spin = count_samples (db, "spin", script, spin, "t.tid = t.pid");
  n_nap = count_samples (db, "nap", script, nap, "t.tid != t.pid");
  g_test_message ("spin %" G_GINT64_FORMAT ", nap %" G_GINT64_FORMAT, n_spin, n_nap);
  /* at least 100 samples a second of the busy thread, over 1 s of its CPU time */
  g_assert_cmpint (n_spin, >=, 100);
  g_assert_cmpint (n_nap, >=, 100);
  /* the frames below: <module> calls spin(); Thread.run calls nap() */
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM COMPOSITE_EVENTS e "
                                  "JOIN SAMPLING_CALLCHAINS c0 ON c0.id = e.callchainId AND c0.stackDepth = 0 "
                                  "JOIN SAMPLING_CALLCHAINS c1 ON c1.id = e.callchainId AND c1.stackDepth = 1 "
                                  "JOIN StringIds f ON f.id = c1.symbol WHERE c0.lineNumber = %u "
                                  "AND f.value = '<module>'", spin), ==, n_spin);
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM COMPOSITE_EVENTS e "
                                  "JOIN SAMPLING_CALLCHAINS c0 ON c0.id = e.callchainId AND c0.stackDepth = 0 "
                                  "JOIN SAMPLING_CALLCHAINS c1 ON c1.id = e.callchainId AND c1.stackDepth = 1 "
                                  "JOIN StringIds f ON f.id = c1.symbol WHERE c0.lineNumber = %u "
                                  "AND f.value = 'Thread.run'", nap), ==, n_nap);
  /* Nsight's columns: cpu and threadState NULL, cpuCycles 0 */
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM COMPOSITE_EVENTS WHERE cpu IS NOT NULL "
                                  "OR threadState IS NOT NULL OR cpuCycles != 0"), ==, 0);
  /* the sampler's own thread is not sampled, nor are other threads */
  g_assert_cmpint (query_intf (db, "SELECT COUNT(DISTINCT globalTid) FROM COMPOSITE_EVENTS"), ==, 2);
  /* the samples span the second of spinning, within the recording */
  span_ns = query_intf (db, "SELECT MAX(start) - MIN(start) FROM COMPOSITE_EVENTS");
  g_assert_cmpint (span_ns, >, 800000000);
  g_assert_cmpint (span_ns, <, query_intf (db, "SELECT duration FROM ANALYSIS_DETAILS"));
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM KS_META WHERE name = 'python' "
                                  "AND value = 'pytorch=autograd-nvtx;memory=1;sampling=1000'"), ==, 1);
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM META_DATA_CAPTURE WHERE "
                                  "(name = 'python_sampling_frequency' AND value = '1000') "
                                  "OR (name = 'pytorch' AND value = 'autograd-nvtx') "
                                  "OR (name = 'pytorch_memory' AND value = 'true') "
                                  "OR (name = 'python_sampling' AND value = 'true')"), ==, 4);
  assert_shared_chains (db);
  assert_reader_stacks (db, path);
  sqlite3_close (db);
}

/* A thread that waits in one place from before a capture range opens is
 * sampled inside the range: its stack is sent whole once the range is on
 * (a repeat of a stack the recorder never got would stand for nothing). */
static void
test_capture_range (void)
{
  g_autofree char *path = NULL;
  g_autofree char *script = py_file ("capture.py");
  g_autoptr(GRegex) summary = NULL;
  g_autoptr(GMatchInfo) match = NULL;
  g_autofree char *reads_text = NULL;
  g_autofree char *skipped_text = NULL;
  gint64 n_idle;
  gint64 outside;
  gint64 span_ns;
  gint64 reads;
  gint64 skipped;
  sqlite3 *db;

  if (!need_python ())
    return;
  path = record ("capture.kscope", NULL, "--capture-range=nvtx:go", "capture.py", nvtx_shim, 0);
  db = open_db (path);
  n_idle = count_samples (db, "idle", script, marker_line (script, "IDLE"), "t.tid != t.pid");
  g_test_message ("idle %" G_GINT64_FORMAT, n_idle);
  /* 0.6 s inside the range at 1000 Hz, for a thread that waits */
  g_assert_cmpint (n_idle, >=, 200);
  /* and nothing outside it */
  outside = query_intf (db, "SELECT COUNT(*) FROM COMPOSITE_EVENTS e WHERE e.start < "
                           "(SELECT start FROM NVTX_EVENTS WHERE text = 'go') OR e.start > "
                           "(SELECT end FROM NVTX_EVENTS WHERE text = 'go')");
  g_assert_cmpint (outside, ==, 0);
  /* Nor were its stacks read outside it (0.3 s before, 0.4 s after): at
   * 1000 Hz, not more rounds than the range lasted and a tenth of a
   * second for its marks to arrive and a late round to be made up. */
  span_ns = query_intf (db, "SELECT end - start FROM NVTX_EVENTS WHERE text = 'go'");
  summary = g_regex_new ("stacks read ([0-9]+) times; ([0-9]+) times not", 0, 0, NULL);
  g_assert_true (g_regex_match (summary, last_err, 0, &match));
  reads_text = g_match_info_fetch (match, 1);
  skipped_text = g_match_info_fetch (match, 2);
  reads = g_ascii_strtoll (reads_text, NULL, 10);
  skipped = g_ascii_strtoll (skipped_text, NULL, 10);
  g_test_message ("read %" G_GINT64_FORMAT " times, %" G_GINT64_FORMAT " not, in a range of %"
                  G_GINT64_FORMAT " ns", reads, skipped, span_ns);
  g_assert_cmpint (reads, >=, n_idle);
  g_assert_cmpint (reads * 1000000, <=, span_ns + 100000000);
  g_assert_cmpint (skipped, >, 0);
  sqlite3_close (db);
}

/* --python-sampling-frequency: about as many samples as asked for */
static void
test_sampling_frequency (void)
{
  g_autofree char *path = NULL;
  g_autofree char *script = py_file ("sampling.py");
  gint64 n;
  gint64 span_ns;
  sqlite3 *db;

  if (!need_python ())
    return;
  path = record ("sampling-50.kscope", NULL, "--python-sampling-frequency=50", "sampling.py", "1.0", 0);
  db = open_db (path);
  n = count_samples (db, "nap", script, marker_line (script, "NAP"), "t.tid != t.pid");
  span_ns = query_intf (db, "SELECT MAX(start) - MIN(start) FROM COMPOSITE_EVENTS e "
                           "JOIN KS_THREADS t ON t.globalTid = e.globalTid WHERE t.tid != t.pid");
  g_test_message ("%" G_GINT64_FORMAT " samples in %" G_GINT64_FORMAT " ns", n, span_ns);
  /* 50 a second of the time the thread napped (a busy machine makes
   * that more than the 1 s of spinning) */
  g_assert_cmpint (n, >=, 40);
  g_assert_cmpint (n * 1000000000, >=, 40 * span_ns);
  g_assert_cmpint (n * 1000000000, <=, 55 * span_ns + 1000000000);
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM KS_META WHERE name = 'python' "
                                  "AND value = 'pytorch=autograd-nvtx;memory=1;sampling=50'"), ==, 1);
  sqlite3_close (db);
}

static void
test_bad_options (void)
{
  static const char * const bad[] = {
    "--pytorch=autograd", "--pytorch-memory=yes", "--python-sampling=1",
    "--python-sampling-frequency=0", "--python-sampling-frequency=10001",
  };

  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *out = tmp_file ("bad.kscope");

      g_assert_cmpint (spawn (NULL, NULL, cli_path, "record", "-f", "-o", out, bad[i], "--", "true", NULL), ==, 2);
      g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
    }
}

/* The program's own sitecustomize runs, as module sitecustomize, and
 * sys.path is what it is without the recorder. */
static void
test_chain (void)
{
  g_autofree char *chain_dir = py_file ("chain");
  g_autofree char *program = py_file ("chain-program.py");
  g_autofree char *log = tmp_file ("chain.log");
  g_autofree char *pythonpath = g_strconcat ("PYTHONPATH=", chain_dir, NULL);
  g_autofree char *log_env = g_strconcat ("CHAIN_LOG=", log, NULL);
  const char *env[] = { pythonpath, log_env, NULL };
  g_autofree char *plain = NULL;
  g_autofree char *recorded = NULL;
  g_autofree char *log_text = NULL;
  g_autofree char *out = tmp_file ("chain.kscope");

  if (!need_python ())
    return;
  g_unlink (log);
  g_assert_cmpint (spawn (&plain, env, python, program, NULL), ==, 0);
  g_assert_cmpint (spawn (&recorded, env, cli_path, "record", "-f", "-t", "nvtx", "-o", out, "--",
                          python, program, NULL), ==, 0);
  g_assert_nonnull (strstr (plain, "chain/sitecustomize.py"));
  g_assert_cmpstr (recorded, ==, plain);
  g_assert_true (g_file_get_contents (log, &log_text, NULL, NULL));
  g_assert_cmpstr (log_text, ==, "sitecustomize ran as sitecustomize\nsitecustomize ran as sitecustomize\n");

  /* no sitecustomize of the program's: none, and not a word from site.py */
  {
    const char *argv_rec[] = { cli_path, "record", "-f", "-t", "nvtx", "-o", out, "--",
                               python, "-c", "import sys; print(sys.path, 'sitecustomize' in sys.modules)", NULL };
    const char *argv_plain[] = { python, "-c", "import sys; print(sys.path, 'sitecustomize' in sys.modules)", NULL };
    g_auto(GStrv) env_rec = g_environ_setenv (g_environ_unsetenv (g_get_environ (), "PYTHONPATH"),
                                              "KINESCOPE_INJECT_DIR", inject_dir, TRUE);
    g_auto(GStrv) env_plain = g_environ_unsetenv (g_get_environ (), "PYTHONPATH");
    g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL;

    spawn_env (argv_plain, env_plain, &o1, &e1);
    spawn_env (argv_rec, env_rec, &o2, &e2);
    g_assert_cmpstr (o2, ==, o1);
    g_assert_null (strstr (e2, "sitecustomize"));
  }

  /* a program's sitecustomize that fails is reported by site.py as without us */
  {
    g_autofree char *bad_dir = tmp_file ("bad-site");
    g_autofree char *bad_file = g_build_filename (bad_dir, "sitecustomize.py", NULL);
    const char *argv_plain[] = { python, "-c", "import sys; print(sys.path)", NULL };
    const char *argv_rec[] = { cli_path, "record", "-f", "-t", "nvtx", "-o", out, "--",
                               python, "-c", "import sys; print(sys.path)", NULL };
    g_autofree char *o1 = NULL, *e1 = NULL, *o2 = NULL, *e2 = NULL;
    g_auto(GStrv) env1 = g_environ_setenv (g_get_environ (), "PYTHONPATH", bad_dir, TRUE);
    g_auto(GStrv) env2 = g_environ_setenv (g_environ_setenv (g_get_environ (), "PYTHONPATH", bad_dir, TRUE),
                                           "KINESCOPE_INJECT_DIR", inject_dir, TRUE);

    g_mkdir_with_parents (bad_dir, 0700);
    g_assert_true (g_file_set_contents (bad_file, "raise ValueError('broken site')\n", -1, NULL));
    spawn_env (argv_plain, env1, &o1, &e1);
    spawn_env (argv_rec, env2, &o2, &e2);
    g_assert_cmpstr (o2, ==, o1);
    g_assert_nonnull (strstr (e1, "Error in sitecustomize; set PYTHONVERBOSE for traceback:\nValueError: broken site\n"));
    g_assert_nonnull (strstr (e2, "Error in sitecustomize; set PYTHONVERBOSE for traceback:\nValueError: broken site\n"));
  }
}

/* Exits while the sampler starts: the status is the program's and the
 * recording complete. */
static void
test_exit_at_start (void)
{
  g_autofree char *out = tmp_file ("exit.kscope");
  sqlite3 *db;

  if (!need_python ())
    return;
  g_assert_cmpint (spawn (NULL, NULL, cli_path, "record", "-f", "-t", "nvtx", "-o", out, "--",
                          python, "-c", "import sys; sys.exit(7)", NULL), ==, 7);
  g_assert_cmpint (spawn (NULL, NULL, cli_path, "record", "-f", "-t", "nvtx", "-o", out, "--",
                          python, "-c", "import os; os._exit(5)", NULL), ==, 5);
  db = open_db (out);
  g_assert_cmpint (query_intf (db, "SELECT value FROM KS_META WHERE name = 'complete'"), ==, 1);
  sqlite3_close (db);
}

/* A sample e's innermost frame c, its function's name f and its thread t */
#define SAMPLE_FRAME "JOIN SAMPLING_CALLCHAINS c ON c.id = e.callchainId AND c.stackDepth = 0 " \
                     "JOIN StringIds f ON f.id = c.symbol JOIN KS_THREADS t ON t.globalTid = e.globalTid "
#define PARENT_PID "(SELECT t.pid FROM COMPOSITE_EVENTS e " SAMPLE_FRAME "WHERE f.value = 'parent_wait' LIMIT 1)"

/* The child's samples are the child's: its own pid and thread. */
static void
test_fork (void)
{
  g_autofree char *path = NULL;
  g_autofree char *script = py_file ("fork.py");
  sqlite3 *db;

  if (!need_python ())
    return;
  path = record ("fork.kscope", NULL, NULL, "fork.py", NULL, 0);
  db = open_db (path);
  /* the parent is the process that waited in parent_wait(): pids wrap,
   * so the child's may be the smaller */
  g_assert_cmpint (query_intf (db, "SELECT COUNT(DISTINCT t.pid) FROM COMPOSITE_EVENTS e " SAMPLE_FRAME "WHERE f.value = '%s'",
                               "parent_wait"), ==, 1);
  g_assert_cmpint (query_intf (db, "SELECT COUNT(DISTINCT t.pid) FROM COMPOSITE_EVENTS e " SAMPLE_FRAME "WHERE f.value = '%s'",
                               "child_spin"), ==, 1);
  g_assert_cmpint (count_samples (db, "child_spin", script, marker_line (script, "CHILD"),
                                  "t.tid = t.pid AND t.pid != " PARENT_PID), >=, 50);
  g_assert_cmpint (count_samples (db, "child_spin", script, marker_line (script, "CHILD"),
                                  "t.pid = " PARENT_PID), ==, 0);
  g_assert_cmpint (count_samples (db, "parent_wait", script, marker_line (script, "PARENT"),
                                  "t.tid = t.pid AND t.pid = " PARENT_PID), >=, 50);
  /* the parent's and the child's stacks share their chains too */
  assert_shared_chains (db);
  assert_reader_stacks (db, path);
  sqlite3_close (db);
}

static void
test_path_clear (void)
{
  g_autofree char *path = NULL;
  g_autofree char *script = py_file ("path-clear.py");
  sqlite3 *db;

  if (!need_python ())
    return;
  path = record ("path-clear.kscope", NULL, NULL, "path-clear.py", NULL, 0);
  db = open_db (path);
  /* in the parent and in the forked child */
  g_assert_cmpint (query_intf (db, "SELECT COUNT(DISTINCT t.pid) FROM COMPOSITE_EVENTS e "
                                  "JOIN SAMPLING_CALLCHAINS c ON c.id = e.callchainId AND c.stackDepth = 0 "
                                  "JOIN StringIds f ON f.id = c.symbol "
                                  "JOIN KS_THREADS t ON t.globalTid = e.globalTid "
                                  "WHERE f.value = 'after_clear' AND c.lineNumber = %u",
                                  marker_line (script, "CLEARED")), ==, 2);
  g_assert_false (has_table (db, "KS_DIAGNOSTICS") && query_intf (db, "SELECT COUNT(*) FROM KS_DIAGNOSTICS WHERE source = 'python'") > 0);
  sqlite3_close (db);
}

/* The library ctypes loads is the copy LD_PRELOAD (and CUDA, NVTX) put
 * in the process: one mapping of one file. */
static void
test_same_library (void)
{
  g_autofree char *out = tmp_file ("same.kscope");
  g_autofree char *printed = NULL;
  const char *program =
    "import ctypes, os\n"
    "ctypes.CDLL(os.environ['KINESCOPE_INJECT_LIBRARY'])\n"
    "files = set()\n"
    "for line in open('/proc/self/maps'):\n"
    "    f = line.split()\n"
    "    if len(f) >= 6 and f[5].endswith('libkinescope-inject.so'):\n"
    "        files.add((f[3], f[4]))\n"
    "print(len(files), os.environ['LD_PRELOAD'].count('libkinescope-inject.so'))\n";

  if (!need_python ())
    return;
  g_assert_cmpint (spawn (&printed, NULL, cli_path, "record", "-f", "-t", "cuda,nvtx,osrt", "-o", out, "--",
                          python, "-c", program, NULL), ==, 0);
  g_assert_cmpstr (printed, ==, "1 1\n");
}

/* --- PyTorch, against python/fake-torch ---------------------------------- */

typedef struct
{
  char  *log;
  char  *path;
} TorchRun;

/* @file and all under it */
static void
remove_tree (GFile *file)
{
  g_autoptr(GFileEnumerator) e = g_file_enumerate_children (file, G_FILE_ATTRIBUTE_STANDARD_NAME,
                                                            G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL);
  GFileInfo *info;

  while (e != NULL && (info = g_file_enumerator_next_file (e, NULL, NULL)) != NULL)
    {
      g_autoptr(GFile) child = g_file_get_child (file, g_file_info_get_name (info));

      remove_tree (child);
      g_object_unref (info);
    }
  g_file_delete (file, NULL, NULL);
}

static void
torch_run_clear (TorchRun *r)
{
  g_free (r->log);
  g_free (r->path);
}

static void
record_torch_env (TorchRun   *r,
                  const char *name,
                  const char *option,
                  const char *mode,
                  const char *extra_env)
{
  g_autofree char *fake = py_file ("fake-torch");
  g_autofree char *log = tmp_file ("torch.log");
  g_autofree char *pythonpath = g_strconcat ("PYTHONPATH=", fake, NULL);
  g_autofree char *log_env = g_strconcat ("FAKE_TORCH_LOG=", log, NULL);
  const char *env[] = { pythonpath, log_env, extra_env, NULL };

  g_unlink (log);
  r->path = record (name, env, option, "torch-program.py", mode, 0);
  g_assert_true (g_file_get_contents (log, &r->log, NULL, NULL));
  g_test_message ("%s", r->log);
}

static void
record_torch (TorchRun   *r,
              const char *name,
              const char *option,
              const char *mode)
{
  record_torch_env (r, name, option, mode, NULL);
}

/* The value of "tid=N" of the first log line with @call. */
static char *
tid_of (const char *log,
        const char *call)
{
  g_auto(GStrv) lines = g_strsplit (log, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *space = strchr (lines[i], ' ');

      if (space != NULL && g_str_has_prefix (space + 1, call))
        return g_strndup (lines[i], space - lines[i]);
    }
  return NULL;
}

/* The log without tids: the calls, in order. */
static char *
calls_of (const char *log)
{
  g_auto(GStrv) lines = g_strsplit (log, "\n", -1);
  GString *s = g_string_new (NULL);

  for (guint i = 0; lines[i] != NULL; i++)
    {
      const char *space = strchr (lines[i], ' ');
      g_autofree char *text = g_strdup (space != NULL ? space + 1 : lines[i]);
      char *mono = strstr (text, " mono_ns=");

      if (mono != NULL)
        *mono = 0;
      if (*text)
        g_string_append_printf (s, "%s\n", text);
    }
  return g_string_free (s, FALSE);
}

#define OURS "enable NVTX shapes=False experimental=True activities=set()\n"
/* the observer's build, which fails unless FAKE_TORCH_OBSERVER is set */
/* NDEBUG: torch's debug-only checks would throw in the observer */
#define LOAD "cpp-extension-load kinescope_observer kinescope_observer.cpp exists=True " \
             "is_python_module=False with_cuda=False cflags=-O2,-DNDEBUG\n"

static void
test_torch (void)
{
  TorchRun r = { 0 };
  g_autofree char *calls = NULL;
  g_autofree char *main_tid = NULL;
  g_autofree char *worker_tid = NULL;
  g_autofree char *first_enable = NULL;
  g_autofree char *worker_enable = NULL;
  sqlite3 *db;
  gint64 t0;

  if (!need_python ())
    return;
  record_torch (&r, "torch.kscope", NULL, NULL);
  calls = calls_of (r.log);
  g_assert_cmpstr (calls, ==,
                   "imported\n"
                   LOAD                                   /* no observer: NVTX emission */
                   OURS                                   /* the importing thread, at once */
                   "program-after-import\n"
                   OURS                                   /* the new thread */
                   "worker-runs\n"
                   "disable\n"                            /* where it ends (torch warns otherwise) */
                   "cuda-init\n"
                   "record-memory-history enabled=all context=None stacks=python max_entries=1000000\n"
                   /* emit_nvtx: ours steps aside, theirs runs, ours comes back */
                   "synchronize\n"
                   "disable\n"
                   "enable NVTX shapes=True experimental=True activities=set()\n"
                   "inside-emit-nvtx\n"
                   "synchronize\n"
                   "disable\n"
                   OURS
                   /* torch.autograd.profiler.profile: the same around prepare + enable */
                   "disable\n"
                   "prepare KINETO\n"
                   "enable KINETO shapes=False experimental=True activities={'CPU'}\n"
                   "inside-profile\n"
                   "disable\n"
                   OURS
                   "program-end\n"
                   "snapshot\n"
                   "disable\n");                          /* the main thread, at exit */
  main_tid = tid_of (r.log, "imported");
  first_enable = tid_of (r.log, "enable");
  g_assert_cmpstr (first_enable, ==, main_tid);
  worker_tid = tid_of (r.log, "worker-runs");
  g_assert_cmpstr (worker_tid, !=, main_tid);
  worker_enable = g_strdup_printf ("%s " OURS, worker_tid);
  g_assert_nonnull (strstr (r.log, worker_enable));

  db = open_db (r.path);
  /* the fixed history: totals from the segments, times 1 ms apart, on the
   * process (a program this short may have no thread sampled) */
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM KS_MEMORY_EVENTS"), ==, 6);
  t0 = query_intf (db, "SELECT MIN(timestamp) FROM KS_MEMORY_EVENTS");
  g_assert_cmpint (t0, >, 0);
  g_assert_cmpint (t0, <, query_intf (db, "SELECT duration FROM ANALYSIS_DETAILS"));
  {
    static const struct { int dev; gint64 bytes, allocated, reserved; int ms; } want[] = {
      { 0, 512, 512, 2 << 20, 2 },
      { 0, 1024, 1536, 2 << 20, 3 },
      { 0, -512, 1024, 2 << 20, 4 },
      { 0, 4096, 5120, 6 << 20, 7 },
      { 1, 128, 384, 1 << 20, 10 },
      { 1, -128, 256, 1 << 20, 11 },
    };

    for (guint i = 0; i < G_N_ELEMENTS (want); i++)
      g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM KS_MEMORY_EVENTS WHERE deviceId = %d "
                                      "AND bytes = %" G_GINT64_FORMAT " AND totalAllocated = %" G_GINT64_FORMAT
                                      " AND totalReserved = %" G_GINT64_FORMAT " AND timestamp = %" G_GINT64_FORMAT
                                      " AND globalTid = (SELECT globalPid FROM PROCESSES LIMIT 1)",
                                      want[i].dev, want[i].bytes, want[i].allocated, want[i].reserved,
                                      t0 + (gint64) (want[i].ms - 2) * 1000000), ==, 1);
  }
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM KS_DIAGNOSTICS WHERE source = 'python' AND text = "
                                  "'PyTorch allocator events without a time (time_us), left out: 1'"), ==, 1);
  sqlite3_close (db);
  assert_loads (r.path);
  torch_run_clear (&r);
}

/* No CUDA: the allocator's history is never asked for. */
static void
test_torch_no_cuda (void)
{
  TorchRun r = { 0 };
  g_autofree char *calls = NULL;

  if (!need_python ())
    return;
  record_torch (&r, "torch-no-cuda.kscope", NULL, "no-cuda");
  calls = calls_of (r.log);
  g_assert_cmpstr (calls, ==, "imported\n" LOAD OURS "program-after-import\n" OURS "worker-runs\ndisable\nprogram-end\ndisable\n");
  torch_run_clear (&r);
}

static void
test_torch_off (void)
{
  TorchRun r = { 0 };
  g_autofree char *calls = NULL;
  sqlite3 *db;

  if (!need_python ())
    return;

  record_torch (&r, "torch-none.kscope", "--pytorch=none", "no-cuda spin");
  calls = calls_of (r.log);
  g_assert_cmpstr (calls, ==, "imported\nprogram-after-import\nworker-runs\nprogram-end\n");
  db = open_db (r.path);
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM KS_META WHERE name = 'python' "
                                  "AND value = 'pytorch=none;memory=0;sampling=1000'"), ==, 1);
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM COMPOSITE_EVENTS"), >, 0);
  sqlite3_close (db);
  torch_run_clear (&r);

  record_torch (&r, "torch-no-memory.kscope", "--pytorch-memory=false", NULL);
  g_assert_null (strstr (r.log, "record-memory-history"));
  g_assert_null (strstr (r.log, "snapshot"));
  g_assert_nonnull (strstr (r.log, OURS));
  db = open_db (r.path);
  g_assert_false (has_table (db, "KS_MEMORY_EVENTS"));
  sqlite3_close (db);
  torch_run_clear (&r);

  /* os._exit() skips the exit hooks; the allocator's events still come */
  record_torch (&r, "torch-os-exit.kscope", NULL, "os-exit");
  g_assert_nonnull (strstr (r.log, "snapshot"));
  db = open_db (r.path);
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM KS_MEMORY_EVENTS"), ==, 6);
  sqlite3_close (db);
  torch_run_clear (&r);

  /* input shapes only when asked for */
  record_torch (&r, "torch-shapes.kscope", "--pytorch=autograd-shapes-nvtx", NULL);
  {
    g_autofree char *shapes_calls = calls_of (r.log);

    g_assert_true (g_str_has_prefix (shapes_calls, "imported\n" LOAD "enable NVTX shapes=True experimental=True activities=set()\n"));
    g_assert_null (strstr (shapes_calls, OURS));
  }
  torch_run_clear (&r);

  record_torch (&r, "torch-no-sampling.kscope", "--python-sampling=false", NULL);
  g_assert_nonnull (strstr (r.log, "record-memory-history"));
  db = open_db (r.path);
  g_assert_false (has_table (db, "COMPOSITE_EVENTS"));
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM KS_MEMORY_EVENTS"), ==, 6);
  sqlite3_close (db);
  torch_run_clear (&r);
}

/* The operators' rows: text and nesting as the observer sent them */
#define OBSERVER_OPS "SELECT COUNT(*) FROM NVTX_EVENTS a JOIN NVTX_EVENTS b " \
                     "ON a.text = '%s' AND b.text = 'aten::fake_inner, op_id = 2' " \
                     "AND a.eventType = 59 AND b.eventType = 59 AND a.globalTid = b.globalTid " \
                     "AND a.start <= b.start AND b.end <= a.end"

/* Operators from the RecordFunction observer, built once per torch into
 * the cache and loaded from there after; torch's NVTX emission when it
 * cannot be built or is not wanted. */
static void
test_torch_observer (void)
{
  g_autoptr(GFile) cache = NULL;
  TorchRun r = { 0 };
  g_autofree char *calls = NULL;
  sqlite3 *db;

  if (!need_python ())
    return;
  cache = g_file_new_for_path (cache_dir);
  remove_tree (cache);

  /* built, and used instead of NVTX emission on every thread; paused
   * while the program's own emit_nvtx sends torch's NVTX ranges, not
   * while torch.profiler runs */
  record_torch_env (&r, "torch-observer.kscope", NULL, NULL, "FAKE_TORCH_OBSERVER=1");
  calls = calls_of (r.log);
  g_assert_cmpstr (calls, ==,
                   "imported\n"
                   LOAD
                   "program-after-import\n"
                   "worker-runs\n"
                   "cuda-init\n"
                   "record-memory-history enabled=all context=None stacks=python max_entries=1000000\n"
                   "synchronize\n"
                   "enable NVTX shapes=True experimental=True activities=set()\n"
                   "observer-pause\n"
                   "inside-emit-nvtx\n"
                   "synchronize\n"
                   "disable\n"
                   "observer-resume\n"
                   "prepare KINETO\n"
                   "enable KINETO shapes=False experimental=True activities={'CPU'}\n"
                   "inside-profile\n"
                   "disable\n"
                   "program-end\n"
                   "snapshot\n");
  db = open_db (r.path);
  g_assert_cmpint (query_intf (db, OBSERVER_OPS, "aten::fake_add, seq = 7, op_id = 1"), ==, 1);
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM KS_DIAGNOSTICS WHERE source = 'python' AND text LIKE "
                                  "'PyTorch operators from the RecordFunction observer, built in %% s into %s/"
                                  "kinescope/observer/0.0-fake-%%'", cache_dir), ==, 1);
  sqlite3_close (db);
  assert_loads (r.path);
  torch_run_clear (&r);

  /* from the cache: no build; the input sizes when asked for */
  record_torch_env (&r, "torch-observer-cached.kscope", "--pytorch=autograd-shapes-nvtx", "no-cuda",
                    "FAKE_TORCH_OBSERVER=1");
  g_assert_null (strstr (r.log, "cpp-extension-load"));
  g_assert_null (strstr (r.log, "enable NVTX"));
  db = open_db (r.path);
  g_assert_cmpint (query_intf (db, OBSERVER_OPS, "aten::fake_add, seq = 7, op_id = 1, sizes = [[2, 3]]"), ==, 1);
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM KS_DIAGNOSTICS WHERE source = 'python' AND text LIKE "
                                  "'PyTorch operators from the RecordFunction observer in %s/%%'", cache_dir), ==, 1);
  sqlite3_close (db);
  torch_run_clear (&r);

  /* a build killed on its way leaves torch's lock file, which would
   * block the next build for ever: an old one is taken away */
  {
    g_autofree char *observers = g_build_filename (cache_dir, "kinescope", "observer", NULL);
    g_autoptr(GDir) dir = g_dir_open (observers, 0, NULL);
    g_autofree char *key = g_strdup (dir ? g_dir_read_name (dir) : NULL);
    g_autofree char *lock = NULL;
    g_autofree char *marker = NULL;
    struct utimbuf old = { 0 };

    g_assert_nonnull (key);
    lock = g_build_filename (observers, key, "lock", NULL);
    marker = g_build_filename (observers, key, "built", NULL);
    g_assert_true (g_file_set_contents (lock, "", 0, NULL));
    old.actime = old.modtime = time (NULL) - 3600;
    g_assert_cmpint (utime (lock, &old), ==, 0);
    g_assert_cmpint (g_unlink (marker), ==, 0);
    record_torch_env (&r, "torch-observer-lock.kscope", NULL, "no-cuda", "FAKE_TORCH_OBSERVER=1");
    g_assert_nonnull (strstr (r.log, LOAD));
    g_assert_false (g_file_test (lock, G_FILE_TEST_EXISTS));
    g_assert_true (g_file_test (marker, G_FILE_TEST_EXISTS));
    torch_run_clear (&r);
  }

  /* not wanted: NVTX emission, as before */
  record_torch_env (&r, "torch-observer-off.kscope", NULL, "no-cuda", "KINESCOPE_TORCH_OPERATORS=nvtx");
  g_free (calls);
  calls = calls_of (r.log);
  g_assert_cmpstr (calls, ==, "imported\n" OURS "program-after-import\n" OURS "worker-runs\ndisable\nprogram-end\ndisable\n");
  torch_run_clear (&r);

  /* no build (no ninja here): NVTX emission, and the recording says why */
  remove_tree (cache);
  record_torch (&r, "torch-observer-failed.kscope", NULL, "no-cuda");
  g_free (calls);
  calls = calls_of (r.log);
  g_assert_cmpstr (calls, ==, "imported\n" LOAD OURS "program-after-import\n" OURS "worker-runs\ndisable\nprogram-end\ndisable\n");
  db = open_db (r.path);
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM KS_DIAGNOSTICS WHERE source = 'python' AND severity = 'warning' "
                                  "AND text LIKE 'PyTorch operators come from NVTX emission, which costs the program "
                                  "more: the RecordFunction observer could not be built or loaded (%%): "
                                  "Ninja is required to load C++ extensions'"), ==, 1);
  sqlite3_close (db);
  torch_run_clear (&r);
  remove_tree (cache);
}

/* Nothing at all: no PYTHONPATH, the program runs as without us. */
static void
test_all_off (void)
{
  g_autofree char *out = tmp_file ("off.kscope");
  g_autofree char *printed = NULL;
  sqlite3 *db;

  if (!need_python ())
    return;
  g_assert_cmpint (spawn (&printed, NULL, cli_path, "record", "-f", "-t", "nvtx", "-o", out,
                          "--pytorch=none", "--python-sampling=false", "--",
                          python, "-c", "import os; print(os.environ.get('PYTHONPATH'), os.environ.get('KINESCOPE_PYTHON'))",
                          NULL), ==, 0);
  g_assert_cmpstr (printed, ==, "None None\n");
  db = open_db (out);
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM KS_META WHERE name = 'python' AND value = 'none'"), ==, 1);
  sqlite3_close (db);
}

/* kinescope-cli stats --report memory-snapshot -f json FILE */
static char *
memory_report (const char *path)
{
  char *out = NULL;

  g_assert_cmpint (spawn (&out, NULL, cli_path, "stats", "--report", "memory-snapshot", "-f", "json", path, NULL),
                   ==, 0);
  return out;
}

/* --cuda-memory-history: the allocator's history with the stacks of frees
 * too, an observer of out-of-memory errors, and the snapshot kept in the
 * file at the error and at exit, whole: the recording's report is the
 * snapshot's own (a real one, from the H200, that the fake torch hands
 * out), with or without a program that dies of its error. */
static void
test_memory_history (void)
{
  g_autofree char *fake = py_file ("fake-torch");
  g_autofree char *program = py_file ("torch-program.py");
  g_autofree char *log = tmp_file ("torch.log");
  g_autofree char *pythonpath = g_strconcat ("PYTHONPATH=", fake, NULL);
  g_autofree char *log_env = g_strconcat ("FAKE_TORCH_LOG=", log, NULL);
  g_autofree char *pickle = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "memsnap_oom.pickle", NULL);
  g_autofree char *snapshot_env = g_strconcat ("FAKE_TORCH_SNAPSHOT=", pickle, NULL);
  g_autofree char *out = tmp_file ("history.kscope");
  g_autofree char *killed = tmp_file ("history-killed.kscope");
  g_autofree char *plain = tmp_file ("history-off.kscope");
  g_autofree char *want = NULL;
  g_autofree char *got = NULL;
  g_autofree char *got_killed = NULL;
  g_autofree char *text = NULL;
  g_autofree char *calls = NULL;
  const char *env[] = { pythonpath, log_env, snapshot_env, NULL };
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  guint ooms = 0;
  sqlite3 *db;

  if (!need_python ())
    return;

  g_unlink (log);
  g_assert_cmpint (spawn (NULL, env, cli_path, "record", "-f", "-t", "nvtx", "-o", out, "--cuda-memory-history",
                          "--pytorch-memory=false", "--", python, program, "oom", NULL), ==, 0);
  g_assert_true (g_file_get_contents (log, &text, NULL, NULL));
  calls = calls_of (text);
  g_assert_nonnull (strstr (calls, "cuda-init\n"
                                   "record-memory-history enabled=all context=all stacks=python max_entries=1000000\n"
                                   "attach-out-of-memory-observer\n"));
  g_assert_nonnull (strstr (calls, "out-of-memory request=29360128\nsnapshot\nprogram-end\nsnapshot\n"));
  db = open_db (out);
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM KS_META WHERE name = 'python' "
                                  "AND value = 'pytorch=autograd-nvtx;memory=0;sampling=1000;history=1'"), ==, 1);
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM META_DATA_CAPTURE WHERE name = 'cuda_memory_history' "
                                  "AND value = 'true'"), ==, 1);
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM KS_CUDA_MEMORY_SNAPSHOTS WHERE reason = 'exit' "
                                  "AND globalPid = (SELECT globalPid FROM PROCESSES LIMIT 1)"), ==, 1);
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM KS_CUDA_MEMORY_SNAPSHOTS WHERE reason = 'out-of-memory' "
                                  "AND globalPid = (SELECT globalPid FROM PROCESSES LIMIT 1)"), ==, 1);
  /* taken at the error, before the exit, within the recording */
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM KS_CUDA_MEMORY_SNAPSHOTS a JOIN KS_CUDA_MEMORY_SNAPSHOTS b "
                                  "ON a.reason = 'out-of-memory' AND b.reason = 'exit' "
                                  "WHERE 0 < a.timestamp AND a.timestamp < b.timestamp "
                                  "AND b.timestamp < (SELECT duration FROM ANALYSIS_DETAILS)"), ==, 1);
  g_assert_false (has_table (db, "KS_MEMORY_EVENTS"));
  sqlite3_close (db);
  want = memory_report (pickle);
  got = memory_report (out);
  g_assert_cmpstr (got, ==, want);
  g_assert_nonnull (strstr (want, "\"request_bytes\":29360128"));

  /* opened: the snapshot's out-of-memory error is an instant of the process */
  file = g_file_new_for_path (out);
  trace = ks_trace_load (file, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ks_trace_get_metadata (trace, "cuda_memory_snapshots"), ==, "2");
  for (guint32 i = 0; i < trace->n_instants; i++)
    if (g_str_equal (ks_trace_string (trace, trace->instants[i].category), "oom"))
      {
        const KsThread *t = &trace->threads[trace->tracks[trace->instants[i].track].thread];

        /* on the main thread of the process that kept it */
        g_assert_cmpuint (trace->tracks[trace->instants[i].track].process, ==, trace->instants[i].process);
        g_assert_cmpint (t->tid, ==, trace->processes[trace->instants[i].process].pid);
        ooms++;
      }
  g_assert_cmpuint (ooms, ==, 1);
  /* at the error's time_us on the recording's clock, as the snapshot
   * read from the recording says to place it */
  {
    g_autoptr(KsMemsnap) snap = ks_memsnap_load (file, NULL, &error);
    g_autoptr(KsMemsnapReplay) replay = NULL;
    const KsMemsnapOom *oom;
    gint64 want_ts;
    gboolean found = FALSE;

    g_assert_no_error (error);
    replay = ks_memsnap_replay (snap, 0);
    g_assert_cmpuint (replay->ooms->len, ==, 1);
    oom = &g_array_index (replay->ooms, KsMemsnapOom, 0);
    want_ts = oom->time_us * 1000 + ks_memsnap_get_time_shift (snap) - trace->origin_ns;
    g_assert_cmpint (ks_memsnap_get_time_shift (snap), !=, 0);
    for (guint32 i = 0; i < trace->n_instants; i++)
      found |= g_str_equal (ks_trace_string (trace, trace->instants[i].category), "oom")
               && trace->instants[i].ts == want_ts;
    g_assert_true (found);
  }

  /* killed right after its error: the snapshot taken at the error is kept */
  g_assert_cmpint (spawn (NULL, env, cli_path, "record", "-f", "-t", "nvtx", "-o", killed, "--cuda-memory-history",
                          "--pytorch-memory=false", "--", python, program, "oom kill", NULL), ==, 128 + SIGKILL);
  db = open_db (killed);
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM KS_CUDA_MEMORY_SNAPSHOTS"), ==, 1);
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM KS_CUDA_MEMORY_SNAPSHOTS WHERE reason = 'out-of-memory'"), ==, 1);
  sqlite3_close (db);
  got_killed = memory_report (killed);
  g_assert_cmpstr (got_killed, ==, want);

  /* without the option: no observer, no snapshot, the history without free stacks */
  g_unlink (log);
  g_assert_cmpint (spawn (NULL, env, cli_path, "record", "-f", "-t", "nvtx", "-o", plain, "--pytorch-memory=false",
                          "--", python, program, "oom", NULL), ==, 0);
  g_clear_pointer (&text, g_free);
  g_assert_true (g_file_get_contents (log, &text, NULL, NULL));
  g_assert_null (strstr (text, "attach-out-of-memory-observer"));
  g_assert_null (strstr (text, "record-memory-history"));
  db = open_db (plain);
  g_assert_false (has_table (db, "KS_CUDA_MEMORY_SNAPSHOTS"));
  sqlite3_close (db);
}

int
main (int    argc,
      char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  if (argc < 6)
    g_error ("usage: %s KINESCOPE-CLI INJECT-DIR PYTHON-DIR PYTHON3 NVTX-SHIM", argv[0]);
  cli_path = argv[1];
  inject_dir = argv[2];
  py_dir = argv[3];
  python = argv[4];
  nvtx_shim = argv[5];
  tmp_dir = g_dir_make_tmp ("ks-record-python-XXXXXX", NULL);
  cache_dir = g_build_filename (tmp_dir, "cache", NULL);

  g_test_add_func ("/collector/python/sampling", test_sampling);
  g_test_add_func ("/collector/python/sampling-frequency", test_sampling_frequency);
  g_test_add_func ("/collector/python/capture-range", test_capture_range);
  g_test_add_func ("/collector/python/bad-options", test_bad_options);
  g_test_add_func ("/collector/python/chain", test_chain);
  g_test_add_func ("/collector/python/exit-at-start", test_exit_at_start);
  g_test_add_func ("/collector/python/fork", test_fork);
  g_test_add_func ("/collector/python/path-clear", test_path_clear);
  g_test_add_func ("/collector/python/same-library", test_same_library);
  g_test_add_func ("/collector/python/torch", test_torch);
  g_test_add_func ("/collector/python/torch-no-cuda", test_torch_no_cuda);
  g_test_add_func ("/collector/python/torch-off", test_torch_off);
  g_test_add_func ("/collector/python/torch-observer", test_torch_observer);
  g_test_add_func ("/collector/python/all-off", test_all_off);
  g_test_add_func ("/collector/python/memory-history", test_memory_history);

  ret = g_test_run ();

  {
    g_autoptr(GFile) dir = g_file_new_for_path (tmp_dir);
    g_autoptr(GFileEnumerator) e = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME,
                                                              G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL);
    GFileInfo *info;

    while (e != NULL && (info = g_file_enumerator_next_file (e, NULL, NULL)) != NULL)
      {
        g_autoptr(GFile) child = g_file_get_child (dir, g_file_info_get_name (info));

        remove_tree (child);
        g_object_unref (info);
      }
  }
  return ret;
}
