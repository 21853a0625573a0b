/* test-record.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* `kinescope-cli record` end to end on CPU-only commands: exit status,
 * missing commands, overwriting, two recorders on one file, NVTX through
 * NVTX_INJECTION64_PATH (no GPU needed), OS runtime calls, a program that
 * closes the collector's socket, the NVTX capture range, signals to the
 * recorder and to the command, a killed recorder, a file size limit, the
 * NVML sampler against a stand-in library, and progress lines.
 *
 * argv after the GTest options: kinescope-cli, the directory of
 * libkinescope-inject.so (or "-" when it was not built), nvtx-app, the
 * fake NVML library, fd-closer (or "-"), wire-resume. */

#include "config.h"

#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test-record-run.h"
#include "test-record-sql.h"

static const char *cli_path;
static const char *inject_dir;
static const char *nvtx_app;
static const char *fake_nvml;
static const char *fd_closer;
static const char *wire_resume;
static char *tmp_dir;

static char *
out_path (const char *name)
{
  return g_build_filename (tmp_dir, name, NULL);
}

static char **
make_env (void)
{
  char **env = g_get_environ ();

  env = g_environ_setenv (env, "KINESCOPE_INJECT_DIR", inject_dir, TRUE);
  env = g_environ_setenv (env, "KINESCOPE_NVML_LIBRARY", fake_nvml, TRUE);
  return env;
}

/* `kinescope-cli record [-o @output] @first…` */
static void
run_cli_valist (Result     *r,
                gsize       fsize_limit,
                const char *output,
                const char *first,
                va_list     args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(GStrv) env = make_env ();

  g_ptr_array_add (argv, (char *) cli_path);
  g_ptr_array_add (argv, (char *) "record");
  if (output != NULL)
    {
      g_ptr_array_add (argv, (char *) "-o");
      g_ptr_array_add (argv, (char *) output);
    }
  for (const char *arg = first; arg != NULL; arg = va_arg (args, const char *))
    g_ptr_array_add (argv, (char *) arg);
  g_ptr_array_add (argv, NULL);
  run_in (r, tmp_dir, (const char **) argv->pdata, env, fsize_limit);
}

static void
run_cli (Result      *r,
         gsize        fsize_limit,
         const char  *first,
         ...)
{
  va_list args;

  va_start (args, first);
  run_cli_valist (r, fsize_limit, NULL, first, args);
  va_end (args);
}

/* Records `-o @path @first…`, checks that the recorder exited with 0 and
 * opens the recording; @r keeps what it printed, for the caller to check
 * and clear. */
static sqlite3 *
record_ok (Result     *r,
           const char *path,
           const char *first,
           ...)
{
  va_list args;

  va_start (args, first);
  run_cli_valist (r, 0, path, first, args);
  va_end (args);
  g_assert_cmpint (r->status, ==, 0);
  return open_db (path);
}

/* `kinescope-cli info @path` */
static void
run_info (Result     *r,
          const char *path)
{
  const char *argv[] = { cli_path, "info", path, NULL };

  run_in (r, tmp_dir, argv, NULL, 0);
}

static void
assert_meta (sqlite3    *db,
             const char *name,
             const char *want)
{
  g_autofree char *sql = g_strdup_printf ("SELECT value FROM KS_META WHERE name = '%s'", name);
  g_autofree char *value = query_text (db, sql);

  g_assert_cmpstr (value, ==, want);
}

static gboolean
need_inject (void)
{
  if (g_str_equal (inject_dir, "-"))
    {
      g_test_skip ("libkinescope-inject.so was not built (no CUDA toolkit)");
      return FALSE;
    }
  return TRUE;
}

static void
test_exit_status (void)
{
  g_autofree char *path = out_path ("exit.kscope");
  Result r;
  sqlite3 *db;

  run_cli (&r, 0, "-o", path, "--", "sh", "-c", "exit 3", NULL);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_nonnull (strstr (r.err, "exited with status 3"));
  g_assert_nonnull (strstr (r.err, "no CUDA activity was recorded"));
  result_clear (&r);

  db = open_db (path);
  g_assert_cmpint (query_int (db, "PRAGMA application_id"), ==, 0x4B53434F);
  assert_meta (db, "complete", "1");
  assert_meta (db, "end_reason", "command-exited");
  assert_meta (db, "source_format", "cupti");
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM PROCESSES"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM TARGET_INFO_SESSION_START_TIME WHERE utcEpochNs > 0"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT duration > 0 FROM ANALYSIS_DETAILS"), ==, 1);
  sqlite3_close (db);

  /* Killed by a signal: 128 + signal, like a shell. */
  run_cli (&r, 0, "-f", "-o", path, "--", "sh", "-c", "kill -9 $$", NULL);
  g_assert_cmpint (r.status, ==, 137);
  result_clear (&r);
  db = open_db (path);
  assert_meta (db, "complete", "0");
  assert_meta (db, "end_reason", "command-killed");
  sqlite3_close (db);
}

static void
test_descendants (void)
{
  g_autofree char *path = out_path ("descendants.kscope");
  Result r;
  sqlite3 *db;

  /* processes that never connect (no CUDA, no NVTX) are listed too */
  db = record_ok (&r, path, "-t", "cuda", "--", "sh", "-c", "sleep 1.5 & sleep 1.5; wait", NULL);
  g_assert_nonnull (strstr (r.err, "Processes         3 (0 using CUDA)"));
  result_clear (&r);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM PROCESSES WHERE name = 'sleep'"), ==, 2);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM PROCESSES WHERE name = 'sh'"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM PROCESSES WHERE globalPid = pid * 16777216"), ==, 3);
  sqlite3_close (db);
}

static void
test_duration (void)
{
  g_autofree char *path = out_path ("duration.kscope");
  Result r;
  sqlite3 *db;

  /* --duration ends the command (SIGINT) and is a planned, complete end */
  run_cli (&r, 0, "--duration", "0.4", "-t", "gpu-metrics", "-o", path, "--", "sleep", "30", NULL);
  g_assert_cmpint (r.status, ==, 128 + SIGINT);
  g_assert_nonnull (strstr (r.err, "after the requested duration"));
  result_clear (&r);
  db = open_db (path);
  assert_meta (db, "complete", "1");
  assert_meta (db, "end_reason", "duration");
  sqlite3_close (db);
}

static void
test_missing_command (void)
{
  g_autofree char *path = out_path ("missing.kscope");
  Result r;

  run_cli (&r, 0, "-o", path, "--", "kinescope-no-such-command", NULL);
  g_assert_cmpint (r.status, ==, 127);
  g_assert_nonnull (strstr (r.err, "kinescope-no-such-command: command not found"));
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
  result_clear (&r);

  run_cli (&r, 0, "-o", path, NULL);
  g_assert_cmpint (r.status, ==, 2);
  result_clear (&r);

  run_cli (&r, 0, "-t", "cuda,bogus", "--", "true", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "bogus"));
  result_clear (&r);
}

/* A command that exists but cannot run, and options that cannot work,
 * each refused with what is wrong before anything is written. */
static void
test_bad_arguments (void)
{
  g_autofree char *path = out_path ("bad-arguments.kscope");
  g_autofree char *script = out_path ("not-executable.sh");
  g_autofree char *hidden = out_path (".kscope");
  g_autofree char *link = out_path ("dangling.kscope");
  g_autofree char *target = out_path ("nowhere/trace.kscope");
  g_autofree char *said = NULL;
  const struct { const char *option, *value, *says; } options[] = {
    { "-o", "", "-o “” names no file" },
    { "-o", "runs/", "-o “runs/” names no file" },
    { "--progress-fd", "999", "--progress-fd 999 is not a file descriptor open for writing" },
    { "--progress-fd", "-5", "--progress-fd -5 is not a file descriptor open for writing" },
    { "--duration", "nan", "--delay and --duration take a number of seconds" },
    { "--duration", "inf", "--delay and --duration take a number of seconds" },
    { "--duration", "1e10", "--delay and --duration take a number of seconds" },
    { "--delay", "nan", "--delay and --duration take a number of seconds" },
  };
  Result r;

  run_cli (&r, 0, "-o", path, "--", tmp_dir, NULL);
  g_assert_cmpint (r.status, ==, 126);
  said = g_strdup_printf ("%s: a folder, not a program", tmp_dir);
  g_assert_nonnull (strstr (r.err, said));
  result_clear (&r);

  g_assert_true (g_file_set_contents (script, "#!/bin/sh\nexit 0\n", -1, NULL));
  g_assert_cmpint (g_chmod (script, 0644), ==, 0);
  run_cli (&r, 0, "-o", path, "--", script, NULL);
  g_assert_cmpint (r.status, ==, 126);
  g_clear_pointer (&said, g_free);
  said = g_strdup_printf ("%s: not executable", script);
  g_assert_nonnull (strstr (r.err, said));
  result_clear (&r);
  g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));

  for (guint i = 0; i < G_N_ELEMENTS (options); i++)
    {
      if (g_str_equal (options[i].option, "-o"))
        run_cli (&r, 0, options[i].option, options[i].value, "--", "true", NULL);
      else
        run_cli (&r, 0, options[i].option, options[i].value, "-o", path, "--", "true", NULL);
      g_assert_cmpint (r.status, ==, 2);
      if (strstr (r.err, options[i].says) == NULL)
        g_error ("“%s” does not say “%s”", r.err, options[i].says);
      result_clear (&r);
      g_assert_false (g_file_test (path, G_FILE_TEST_EXISTS));
      g_assert_false (g_file_test (hidden, G_FILE_TEST_EXISTS));
    }

  /* a link to nothing is named as such, left alone, and replaced (not
   * followed) with --force */
  g_assert_cmpint (symlink (target, link), ==, 0);
  run_cli (&r, 0, "-o", link, "--", "true", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "is a symbolic link to a file that does not exist"));
  result_clear (&r);
  g_assert_true (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  run_cli (&r, 0, "-f", "-t", "gpu-metrics", "-o", link, "--", "true", NULL);
  g_assert_cmpint (r.status, ==, 0);
  result_clear (&r);
  g_assert_false (g_file_test (link, G_FILE_TEST_IS_SYMLINK));
  g_assert_true (g_file_test (link, G_FILE_TEST_IS_REGULAR));
  g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));
}

static void
test_overwrite (void)
{
  g_autofree char *path = out_path ("exists.kscope");
  g_autofree char *named = out_path ("named");
  g_autofree char *named_kscope = out_path ("named.kscope");
  Result r;

  g_assert_true (g_file_set_contents (path, "not a trace", -1, NULL));
  run_cli (&r, 0, "-o", path, "--", "true", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "--force"));
  result_clear (&r);

  run_cli (&r, 0, "--force", "-o", path, "--", "true", NULL);
  g_assert_cmpint (r.status, ==, 0);
  result_clear (&r);

  /* -o without the extension gets it, as nsys does */
  run_cli (&r, 0, "-o", named, "--", "true", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_test (named_kscope, G_FILE_TEST_EXISTS));
  result_clear (&r);
}

static void
test_default_name (void)
{
  g_autofree char *dir = g_build_filename (tmp_dir, "names", NULL);
  g_autofree char *first = g_build_filename (dir, "report1.kscope", NULL);
  g_autofree char *second = g_build_filename (dir, "report2.kscope", NULL);
  g_auto(GStrv) env = make_env ();
  const char *argv[] = { cli_path, "record", "--", "true", NULL };
  int wait_status;

  g_assert_cmpint (g_mkdir_with_parents (dir, 0700), ==, 0);
  for (int i = 0; i < 2; i++)
    {
      g_assert_true (g_spawn_sync (dir, (char **) argv, env, G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                                   NULL, NULL, NULL, NULL, &wait_status, NULL));
      g_assert_cmpint (WEXITSTATUS (wait_status), ==, 0);
    }
  g_assert_true (g_file_test (first, G_FILE_TEST_EXISTS));
  g_assert_true (g_file_test (second, G_FILE_TEST_EXISTS));
}

/* Records nvtx-app @mode (NULL: the plain run) with `-t @trace` and
 * @option (NULL: none) into @file, checks that it exited with 0 and opens
 * the result; *@summary (when not NULL) gets what the recorder printed. */
static sqlite3 *
record_nvtx_app (const char  *file,
                 const char  *trace,
                 const char  *option,
                 const char  *mode,
                 char       **summary)
{
  g_autofree char *path = out_path (file);
  Result r;

  sqlite3 *db;

  if (option != NULL)
    db = record_ok (&r, path, "-t", trace, option, "--", nvtx_app, mode, NULL);
  else
    db = record_ok (&r, path, "-t", trace, "--", nvtx_app, mode, NULL);
  if (summary != NULL)
    *summary = g_steal_pointer (&r.err);
  result_clear (&r);
  return db;
}

static void
test_nvtx (void)
{
  g_autofree char *summary = NULL;
  sqlite3 *db;

  if (!need_inject ())
    return;

  db = record_nvtx_app ("nvtx.kscope", "nvtx", NULL, NULL, &summary);
  g_assert_nonnull (strstr (summary, "NVTX ranges       8 (3 marks)"));
  assert_meta (db, "complete", "1");
  /* outer, 3 × inner, d-range, worker-range */
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM NVTX_EVENTS WHERE eventType = 59"), ==, 6);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM NVTX_EVENTS WHERE eventType = 59 AND text = 'inner'"), ==, 3);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM NVTX_EVENTS i, NVTX_EVENTS o WHERE i.text = 'inner' "
                                  "AND o.text = 'outer' AND i.start >= o.start AND i.end <= o.end "
                                  "AND i.globalTid = o.globalTid"), ==, 3);
  /* marks: "tick" and the registered string in domain ksdomain */
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM NVTX_EVENTS WHERE eventType = 34 AND text = 'tick' AND end IS NULL"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM NVTX_EVENTS n JOIN StringIds s ON s.id = n.textId "
                                  "WHERE n.eventType = 34 AND s.value = 'registered' AND n.domainId = "
                                  "(SELECT domainId FROM NVTX_EVENTS WHERE eventType = 75 AND text = 'ksdomain')"), ==, 1);
  /* the domain range carries colour, category and payload */
  g_assert_cmpint (query_int (db, "SELECT color FROM NVTX_EVENTS WHERE text = 'd-range'"), ==, 0xFF00FF00);
  g_assert_cmpint (query_int (db, "SELECT category FROM NVTX_EVENTS WHERE text = 'd-range'"), ==, 7);
  g_assert_cmpint (query_int (db, "SELECT int64Value FROM NVTX_EVENTS WHERE text = 'd-range'"), ==, -42);
  g_assert_cmpint (query_int (db, "SELECT domainId > 0 FROM NVTX_EVENTS WHERE text = 'd-range'"), ==, 1);
  /* start/end range ended by the worker thread */
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM NVTX_EVENTS WHERE eventType = 60 AND text = 'async' "
                                  "AND rangeId > 0 AND endGlobalTid != globalTid AND end > start"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM NVTX_EVENTS w JOIN ThreadNames t ON t.globalTid = w.globalTid "
                                  "JOIN StringIds s ON s.id = t.nameId WHERE w.text = 'worker-range' AND s.value = 'worker'"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM KS_THREADS WHERE role = 'main'"), ==, 1);
  /* wide strings arrive as UTF-8; categories are named; double payloads */
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM NVTX_EVENTS WHERE eventType = 34 AND text = 'w\xc3\xaf" "de \xe2\x9c\x93'"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM NVTX_EVENTS WHERE eventType = 33 AND category = 7 AND text = 'seven'"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT doubleValue * 10 FROM NVTX_EVENTS WHERE eventType = 60 AND text = 'measured'"), ==, 25);
  sqlite3_close (db);
}

/* A rank of a torchrun job: RANK, LOCAL_RANK, WORLD_SIZE and
 * LOCAL_WORLD_SIZE of the recorded process are kept in KS_RANKS with the
 * host's name, and the trace names the process's rows rank 3. */
static void
test_rank (void)
{
  g_autofree char *path = out_path ("rank.kscope");
  const char *argv[] = { cli_path, "stats", "--report", "ranks", "--format", "json", path, NULL };
  Result r;
  sqlite3 *db;

  if (!need_inject ())
    return;

  g_setenv ("RANK", "3", TRUE);
  g_setenv ("LOCAL_RANK", "1", TRUE);
  g_setenv ("WORLD_SIZE", "4", TRUE);
  g_setenv ("LOCAL_WORLD_SIZE", "2", TRUE);
  db = record_ok (&r, path, "--", nvtx_app, "nvtx", NULL);
  g_unsetenv ("RANK");
  g_unsetenv ("LOCAL_RANK");
  g_unsetenv ("WORLD_SIZE");
  g_unsetenv ("LOCAL_WORLD_SIZE");
  result_clear (&r);

  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM KS_RANKS"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT rank FROM KS_RANKS"), ==, 3);
  g_assert_cmpint (query_int (db, "SELECT localRank FROM KS_RANKS"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT worldSize FROM KS_RANKS"), ==, 4);
  g_assert_cmpint (query_int (db, "SELECT localWorldSize FROM KS_RANKS"), ==, 2);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM KS_RANKS r JOIN PROCESSES p ON p.globalPid = r.globalPid "
                                  "WHERE p.name = 'nvtx-app'"), ==, 1);
  {
    g_autofree char *host = query_text (db, "SELECT host FROM KS_RANKS");
    g_autofree char *source = query_text (db, "SELECT source FROM KS_RANKS");

    g_assert_cmpstr (host, ==, g_get_host_name ());
    g_assert_cmpstr (source, ==, "environment");
  }
  sqlite3_close (db);

  /* the recording's rows are rank 3's */
  run_in (&r, tmp_dir, argv, NULL, 0);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "{\"ranks\":[{\"rank\":3,"));
  result_clear (&r);
}

/* Without RANK, no rank is made up. */
static void
test_no_rank (void)
{
  g_autofree char *path = out_path ("no-rank.kscope");
  Result r;
  sqlite3 *db;

  if (!need_inject ())
    return;
  g_unsetenv ("RANK");
  db = record_ok (&r, path, "--", nvtx_app, "nvtx", NULL);
  result_clear (&r);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'KS_RANKS'"), ==, 0);
  sqlite3_close (db);
}

/* A forked child's ranges are its own thread's, not the parent's (the
 * thread id is cached per thread and must be renewed after fork). */
static void
test_nvtx_fork (void)
{
  sqlite3 *db;

  if (!need_inject ())
    return;

  db = record_nvtx_app ("nvtx-fork.kscope", "nvtx", NULL, "fork", NULL);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM NVTX_EVENTS WHERE text = 'child-range'"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM NVTX_EVENTS c JOIN KS_THREADS ct ON ct.globalTid = c.globalTid, "
                                  "NVTX_EVENTS p JOIN KS_THREADS pt ON pt.globalTid = p.globalTid "
                                  "WHERE c.text = 'child-range' AND p.text = 'parent-range' "
                                  "AND ct.tid = ct.pid AND pt.tid = pt.pid AND ct.pid != pt.pid "
                                  "AND c.start >= p.start AND c.end <= p.end"), ==, 1);
  sqlite3_close (db);
}

/* Ranges nested deeper than the collector keeps are counted as dropped;
 * the levels NVTX returns stay right on the way in and out. */
static void
test_nvtx_deep (void)
{
  g_autofree char *summary = NULL;
  sqlite3 *db;

  if (!need_inject ())
    return;

  db = record_nvtx_app ("nvtx-deep.kscope", "nvtx", NULL, "deep", &summary);
  g_assert_nonnull (strstr (summary, "Dropped           2\n"));
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM NVTX_EVENTS WHERE text = 'deep'"), ==, 128);
  g_assert_cmpint (query_int (db, "SELECT COUNT(DISTINCT start) FROM NVTX_EVENTS WHERE text = 'deep'"), ==, 128);
  sqlite3_close (db);
}

static void
test_osrt (void)
{
  sqlite3 *db;

  if (!need_inject ())
    return;

  db = record_nvtx_app ("osrt.kscope", "nvtx,osrt", NULL, "sleep", NULL);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM OSRT_API o JOIN StringIds s ON s.id = o.nameId "
                                  "WHERE s.value = 'nanosleep' AND o.end - o.start >= 20000000"), ==, 5);
  /* the main thread waited for the lock the worker held for 30 ms */
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM OSRT_API o JOIN StringIds s ON s.id = o.nameId "
                                  "WHERE s.value = 'pthread_mutex_lock' AND o.end - o.start >= 1000000 "
                                  "AND o.globalTid % 16777216 = o.globalTid / 16777216 % 16777216"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM OSRT_API WHERE eventClass != 27"), ==, 0);
  g_assert_cmpint (query_int (db, "SELECT MIN(end - start) >= 10000 FROM OSRT_API"), ==, 1);
  sqlite3_close (db);
}

/* The program closes every descriptor above 2, the collector's socket
 * among them, and then opens a socket pair, which takes the lowest free
 * numbers: everything it does is still recorded, and nothing of the
 * collector's lands on its sockets. */
static void
test_closed_fds (gconstpointer data)
{
  const char *mode = data;
  g_autofree char *name = g_strdup_printf ("fds-%s.kscope", mode);
  g_autofree char *path = out_path (name);
  Result r;
  sqlite3 *db;

  if (!need_inject ())
    return;

  db = record_ok (&r, path, "-t", "nvtx,osrt", "--", fd_closer, mode, NULL);
  g_assert_cmpstr (r.out, ==, "done\n");
  g_assert_nonnull (strstr (r.err, "Dropped           0\n"));
  result_clear (&r);

  assert_meta (db, "dropped_records", "0");
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM OSRT_API o JOIN StringIds s ON s.id = o.nameId "
                                  "WHERE s.value = 'nanosleep'"), ==, 23);
  /* the string and the domain registered before the close still name
   * the marks made after it */
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM NVTX_EVENTS n JOIN StringIds s ON s.id = n.textId "
                                  "WHERE n.eventType = 34 AND s.value = 'kept' AND n.domainId = "
                                  "(SELECT domainId FROM NVTX_EVENTS WHERE eventType = 75 AND text = 'fd-domain')"), ==, 21);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM NVTX_EVENTS WHERE eventType = 75"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM PROCESSES"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM KS_THREADS WHERE role = 'main'"), ==, 1);
  sqlite3_close (db);
}

/* The recorder's side of that, with the first connection still open when
 * the process comes back on a second one: what came on the first is kept,
 * the message it cut short is taken whole from the second, and the
 * library's running drop count is not added twice. */
static void
test_resume_open (void)
{
  g_autofree char *path = out_path ("resume-open.kscope");
  Result r;
  sqlite3 *db;

  db = record_ok (&r, path, "-t", "nvtx", "--", wire_resume, NULL);
  g_assert_nonnull (strstr (r.err, "Dropped           3\n"));
  result_clear (&r);

  assert_meta (db, "dropped_records", "3");
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM NVTX_EVENTS n JOIN StringIds s ON s.id = n.textId "
                                  "WHERE n.eventType = 34 AND s.value = 'kept'"), ==, 3);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM NVTX_EVENTS"), ==, 3);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM PROCESSES"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM KS_DIAGNOSTICS WHERE text LIKE 'malformed%'"), ==, 0);
  /* the sample without frames on the new connection repeats the stack
   * sent on the old one */
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM COMPOSITE_EVENTS e JOIN SAMPLING_CALLCHAINS c "
                                  "ON c.id = e.callchainId JOIN StringIds s ON s.id = c.symbol "
                                  "WHERE s.value = 'kept' AND c.lineNumber = 7"), ==, 2);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM SAMPLING_CALLCHAINS"), ==, 1);
  sqlite3_close (db);
}

static void
test_capture_nvtx (void)
{
  sqlite3 *db;

  if (!need_inject ())
    return;

  db = record_nvtx_app ("capture.kscope", "nvtx", "--capture-range=nvtx:outer", NULL, NULL);
  /* only "outer" and what happened inside it */
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM NVTX_EVENTS WHERE eventType IN (34, 59, 60)"), ==, 4);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM NVTX_EVENTS WHERE text = 'inner'"), ==, 3);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM NVTX_EVENTS WHERE text IN ('tick', 'd-range', 'async')"), ==, 0);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM KS_DIAGNOSTICS WHERE source = 'capture'"), ==, 2);
  sqlite3_close (db);
}

/* Starts `kinescope-cli record -- nvtx-app forever` and waits until the
 * program printed "ready". Returns the recorder's pid; *child gets the
 * program's. */
static GPid
start_forever (const char *path,
               GPid       *child,
               int        *out_fd)
{
  const char *argv[] = { cli_path, "record", "-t", "nvtx", "-o", path, "--", nvtx_app, "forever", NULL };
  g_auto(GStrv) env = make_env ();
  g_autoptr(GError) error = NULL;
  g_autofree char *children_path = NULL;
  g_autofree char *children = NULL;
  GPid pid;
  char buf[64];
  gssize n;

  g_spawn_async_with_pipes (tmp_dir, (char **) argv, env, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDERR_TO_DEV_NULL,
                            NULL, NULL, &pid, NULL, out_fd, NULL, &error);
  g_assert_no_error (error);
  n = read (*out_fd, buf, sizeof buf - 1);
  g_assert_cmpint (n, >, 0);
  buf[n] = 0;
  g_assert_nonnull (strstr (buf, "ready"));

  children_path = g_strdup_printf ("/proc/%d/task/%d/children", pid, pid);
  g_assert_true (g_file_get_contents (children_path, &children, NULL, NULL));
  *child = (GPid) g_ascii_strtoll (children, NULL, 10);
  g_assert_cmpint (*child, >, 0);
  /* more than the writer's commit interval */
  g_usleep (600 * 1000);
  return pid;
}

static int
wait_for (GPid pid)
{
  int status = 0;

  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  return status;
}

/* Sends @signo to @target (the recorder @pid or its program), waits for
 * the recorder and closes the program's output; the recorder's wait
 * status. */
static int
end_forever (GPid pid,
             int  out_fd,
             GPid target,
             int  signo)
{
  int status;

  kill (target, signo);
  status = wait_for (pid);
  close (out_fd);
  return status;
}

static void
check_cut_short (const char *path,
                 const char *reason)
{
  sqlite3 *db = open_db (path);
  g_autofree char *ok = query_text (db, "PRAGMA integrity_check");

  g_assert_cmpstr (ok, ==, "ok");
  assert_meta (db, "complete", "0");
  if (reason != NULL)
    assert_meta (db, "end_reason", reason);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM NVTX_EVENTS WHERE text = 'inner'"), ==, 3);
  sqlite3_close (db);
}

static void
test_signal_recorder (gconstpointer data)
{
  int signo = GPOINTER_TO_INT (data);
  g_autofree char *path = out_path (signo == SIGINT ? "sigint.kscope" : "sigterm.kscope");
  GPid child;
  GPid pid;
  int out_fd;
  int status;

  if (!need_inject ())
    return;

  pid = start_forever (path, &child, &out_fd);
  status = end_forever (pid, out_fd, pid, signo);
  /* the recorder passed SIGINT on, and the program died of it */
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 128 + SIGINT);
  g_assert_cmpint (kill (child, 0), ==, -1);
  check_cut_short (path, "interrupted");
}

static void
test_kill_command (void)
{
  g_autofree char *path = out_path ("child-killed.kscope");
  GPid child;
  GPid pid;
  int out_fd;
  int status;

  if (!need_inject ())
    return;

  pid = start_forever (path, &child, &out_fd);
  status = end_forever (pid, out_fd, child, SIGKILL);
  g_assert_cmpint (WEXITSTATUS (status), ==, 128 + SIGKILL);
  check_cut_short (path, "command-killed");
}

static void
test_kill_recorder (void)
{
  g_autofree char *path = out_path ("recorder-killed.kscope");
  GPid child;
  GPid pid;
  int out_fd;

  if (!need_inject ())
    return;

  pid = start_forever (path, &child, &out_fd);
  end_forever (pid, out_fd, pid, SIGKILL);
  kill (child, SIGKILL);
  /* Nothing ran in the recorder: what was committed is there. */
  check_cut_short (path, NULL);
}

/* A second recorder on a file that is being recorded is refused before
 * it starts its program, with --force too; the first one's file is left
 * alone. */
static void
test_output_in_use (void)
{
  g_autofree char *path = out_path ("in-use.kscope");
  g_autofree char *marker = out_path ("in-use-started");
  g_autofree char *script = g_strdup_printf ("touch '%s'", marker);
  GPid child;
  GPid pid;
  int out_fd;
  Result r;

  if (!need_inject ())
    return;

  pid = start_forever (path, &child, &out_fd);

  run_cli (&r, 0, "-o", path, "--", "sh", "-c", script, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "is being written by another recording"));
  g_assert_nonnull (strstr (r.err, path));
  result_clear (&r);
  run_cli (&r, 0, "--force", "-o", path, "--", "sh", "-c", script, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "is being written by another recording"));
  result_clear (&r);
  g_assert_false (g_file_test (marker, G_FILE_TEST_EXISTS));

  end_forever (pid, out_fd, pid, SIGINT);
  check_cut_short (path, "interrupted");

  /* finished: --force replaces it */
  run_cli (&r, 0, "--force", "-o", path, "--", "sh", "-c", script, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_file_test (marker, G_FILE_TEST_EXISTS));
  result_clear (&r);
}

/* Whether a process holds SQLite's PENDING byte of the file open as
 * @fd: a writer does from when it wants to commit until the readers
 * let it. F_GETLK leaves the locks of this process alone; closing @fd
 * would not, so the caller keeps it open while its reader is. */
static gboolean
writer_waits (int fd)
{
  struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0x40000000, .l_len = 1 };

  return fcntl (fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
}

/* Whether another connection sees committed rows of KS_COUNTER_SAMPLES:
 * the table is created with its first row, in the recorder's transaction. */
static gboolean
samples_committed (const char *path)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  gboolean seen = FALSE;

  if (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2 (db, "SELECT COUNT(*) FROM KS_COUNTER_SAMPLES", -1, &stmt, NULL) == SQLITE_OK &&
      sqlite3_step (stmt) == SQLITE_ROW)
    seen = sqlite3_column_int64 (stmt, 0) > 0;
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return seen;
}

/* Polls @done until it holds; a test that waits on a condition, with a
 * deadline far past any machine's load, not on a guess of time. */
#define WAIT_UNTIL(done, what)                                                   \
  G_STMT_START {                                                                 \
    gint64 deadline_ = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;            \
    while (!(done))                                                              \
      {                                                                          \
        if (g_get_monotonic_time () > deadline_)                                 \
          g_error ("waited 60 s for %s", what);                                  \
        g_usleep (10 * 1000);                                                    \
      }                                                                          \
  } G_STMT_END

/* Someone reads the file while it is recorded (kinescope-cli info, the
 * window): the writer waits for the reader instead of failing. The
 * reader starts once samples are committed (before, there is no table to
 * read: under load that took longer than any fixed delay) and holds its
 * transaction until the writer is seen waiting to commit. */
static void
test_output_read_meanwhile (void)
{
  g_autofree char *path = out_path ("read-meanwhile.kscope");
  const char *argv[] = { cli_path, "record", "-t", "gpu-metrics", "--gpu-metrics-frequency", "50",
                         "-o", path, "--", "sleep", "1.5", NULL };
  g_auto(GStrv) env = make_env ();
  g_autoptr(GError) error = NULL;
  sqlite3 *reader = NULL;
  GPid pid;
  int status;
  int fd;

  g_spawn_async (tmp_dir, (char **) argv, env, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDERR_TO_DEV_NULL,
                 NULL, NULL, &pid, &error);
  g_assert_no_error (error);
  WAIT_UNTIL (samples_committed (path), "the first committed samples");
  fd = open (path, O_RDONLY | O_CLOEXEC);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (sqlite3_open_v2 (path, &reader, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (reader, "BEGIN; SELECT COUNT(*) FROM KS_COUNTER_SAMPLES", NULL, NULL, NULL), ==, SQLITE_OK);
  WAIT_UNTIL (writer_waits (fd), "the recorder to wait for the reader");
  sqlite3_exec (reader, "COMMIT", NULL, NULL, NULL);
  sqlite3_close (reader);
  close (fd);

  status = wait_for (pid);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  reader = open_db (path);
  assert_meta (reader, "complete", "1");
  assert_meta (reader, "end_reason", "command-exited");
  sqlite3_close (reader);
}

/* Two recorders started together on a new file: exactly one runs its
 * program and writes the file; the other fails without starting it. */
static void
test_output_race (gconstpointer data)
{
  gboolean force = GPOINTER_TO_INT (data);
  g_auto(GStrv) env = make_env ();

  for (int round = 0; round < 5; round++)
    {
      g_autofree char *name = g_strdup_printf ("race-%d-%d.kscope", force, round);
      g_autofree char *log_name = g_strdup_printf ("race-%d-%d.log", force, round);
      g_autofree char *path = out_path (name);
      g_autofree char *log = out_path (log_name);
      g_autofree char *script = g_strdup_printf ("echo started >> '%s'; sleep 0.3", log);
      g_autofree char *started = NULL;
      g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_SILENCE
                                                                           | G_SUBPROCESS_FLAGS_STDERR_PIPE);
      g_autoptr(GPtrArray) argv = g_ptr_array_new ();
      GSubprocess *procs[2];
      char *errs[2];
      int winners = 0;
      sqlite3 *db;

      g_subprocess_launcher_set_environ (launcher, env);
      g_subprocess_launcher_set_cwd (launcher, tmp_dir);
      g_ptr_array_add (argv, (char *) cli_path);
      g_ptr_array_add (argv, (char *) "record");
      if (force)
        g_ptr_array_add (argv, (char *) "--force");
      g_ptr_array_add (argv, (char *) "-o");
      g_ptr_array_add (argv, path);
      g_ptr_array_add (argv, (char *) "--");
      g_ptr_array_add (argv, (char *) "sh");
      g_ptr_array_add (argv, (char *) "-c");
      g_ptr_array_add (argv, script);
      g_ptr_array_add (argv, NULL);
      for (int i = 0; i < 2; i++)
        {
          g_autoptr(GError) error = NULL;

          procs[i] = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, &error);
          g_assert_no_error (error);
        }
      for (int i = 0; i < 2; i++)
        {
          g_autoptr(GError) error = NULL;

          g_subprocess_communicate_utf8 (procs[i], NULL, NULL, NULL, &errs[i], &error);
          g_assert_no_error (error);
          if (g_subprocess_get_exit_status (procs[i]) == 0)
            winners++;
          else
            {
              g_assert_cmpint (g_subprocess_get_exit_status (procs[i]), ==, 1);
              g_assert_true (strstr (errs[i], "is being written by another recording") != NULL
                             || (!force && strstr (errs[i], "already exists") != NULL));
            }
        }
      g_assert_cmpint (winners, ==, 1);
      g_assert_true (g_file_get_contents (log, &started, NULL, NULL));
      g_assert_cmpstr (started, ==, "started\n");

      db = open_db (path);
      assert_meta (db, "complete", "1");
      assert_meta (db, "end_reason", "command-exited");
      sqlite3_close (db);
      for (int i = 0; i < 2; i++)
        {
          g_free (errs[i]);
          g_object_unref (procs[i]);
        }
    }
}

/* NVTX_EVENTS rows matching @where; 0 when the table was never written. */
static gint64
count_nvtx (sqlite3    *db,
            const char *where)
{
  g_autofree char *sql = g_strdup_printf ("SELECT COUNT(*) FROM NVTX_EVENTS WHERE %s", where);

  if (query_int (db, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'NVTX_EVENTS'") == 0)
    return 0;
  return query_int (db, sql);
}

/* The NVTX rows of a whole `nvtx-app many` run. */
static gint64
count_many_rows (void)
{
  g_autofree char *path = out_path ("many.kscope");
  g_autofree char *dropped = NULL;
  Result r;
  sqlite3 *db;
  gint64 rows;

  db = record_ok (&r, path, "-t", "nvtx", "--", nvtx_app, "many", NULL);
  result_clear (&r);
  dropped = query_text (db, "SELECT value FROM KS_META WHERE name = 'dropped_records'");
  rows = query_int (db, "SELECT COUNT(*) FROM NVTX_EVENTS") + g_ascii_strtoll (dropped, NULL, 10);
  sqlite3_close (db);
  return rows;
}

/* The disk fills (a file size limit here): the program runs to its end,
 * the file keeps what was written and says where and why it stops, and
 * every event after that is counted. */
static void
test_file_size_limit (void)
{
  g_autofree char *path = out_path ("limit.kscope");
  g_autofree char *until = NULL;
  g_autofree char *unwritten = NULL;
  g_autofree char *dropped = NULL;
  g_autofree char *ok = NULL;
  const char *stopped;
  Result r;
  sqlite3 *db;
  double stopped_s = -1;
  gint64 total;
  gint64 ranges = -1;
  gint64 marks = -1;

  if (!need_inject ())
    return;

  total = count_many_rows ();
  /* about 40 % of the file; one commit (250 ms) is some 700 kB */
  run_cli (&r, 2 * 1024 * 1024, "-t", "nvtx", "-o", path, "--", nvtx_app, "many", NULL);
  g_assert_cmpint (r.status, ==, 1);
  /* not interrupted: it printed its last line and exited on its own */
  g_assert_cmpstr (r.out, ==, "many: done\n");
  g_assert_nonnull (strstr (r.err, "nvtx-app ended with status 0"));
  g_assert_nonnull (strstr (r.err, "the disk is full or the file size limit was reached"));
  g_assert_nonnull (strstr (r.err, path));
  stopped = strstr (r.err, "recording stopped at ");
  g_assert_nonnull (stopped);
  g_assert_cmpint (sscanf (stopped, "recording stopped at %lf s", &stopped_s), ==, 1);
  g_assert_nonnull (strstr (r.err, "NVTX ranges       "));
  g_assert_cmpint (sscanf (strstr (r.err, "NVTX ranges       "), "NVTX ranges %" G_GINT64_FORMAT " (%" G_GINT64_FORMAT,
                           &ranges, &marks), ==, 2);

  db = open_db (path);
  ok = query_text (db, "PRAGMA integrity_check");
  g_assert_cmpstr (ok, ==, "ok");
  assert_meta (db, "complete", "0");
  assert_meta (db, "end_reason", "disk-full");
  until = query_text (db, "SELECT value FROM KS_META WHERE name = 'written_until_ns'");
  unwritten = query_text (db, "SELECT value FROM KS_META WHERE name = 'unwritten_records'");
  dropped = query_text (db, "SELECT value FROM KS_META WHERE name = 'dropped_records'");
  g_assert_nonnull (until);
  g_assert_nonnull (unwritten);
  g_assert_nonnull (dropped);
  /* where it stopped, as the recorder said */
  g_assert_cmpfloat (g_ascii_strtoll (until, NULL, 10) / 1e9, >, 0);
  g_assert_cmpfloat (ABS (g_ascii_strtoll (until, NULL, 10) / 1e9 - stopped_s), <, 0.006);
  g_assert_cmpint (count_nvtx (db, "eventType IN (59, 60)"), ==, ranges);
  g_assert_cmpint (count_nvtx (db, "eventType = 34"), ==, marks);
  g_assert_cmpint (g_ascii_strtoll (unwritten, NULL, 10), >, 0);
  /* every event of the program: in the file, not written, or dropped */
  g_assert_cmpint (count_nvtx (db, "1") + g_ascii_strtoll (unwritten, NULL, 10)
                   + g_ascii_strtoll (dropped, NULL, 10), ==, total);
  sqlite3_close (db);
  result_clear (&r);

  /* and it opens */
  run_info (&r, path);
  g_assert_cmpint (r.status, ==, 0);
  result_clear (&r);
}

static void
test_gpu_metrics (void)
{
  g_autofree char *path = out_path ("nvml.kscope");
  Result r;
  sqlite3 *db;

  db = record_ok (&r, path, "-t", "gpu-metrics", "--gpu-metrics-frequency", "50", "--", "sleep", "0.3", NULL);
  g_assert_nonnull (strstr (r.err, "(2 GPUs)"));
  result_clear (&r);

  /* six NVML rows a GPU, and nine GPM rows of GPU 0 (no NVLink); GPU 1 has no GPM */
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM KS_COUNTERS"), ==, 2 * 6 + 9);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM KS_COUNTERS WHERE deviceId = 1 AND name IN "
                                  "('SM activity', 'Tensor activity')"), ==, 0);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM TARGET_INFO_GPU"), ==, 2);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM TARGET_INFO_GPU WHERE name = 'Fake GPU 1' "
                                  "AND uuid = 'GPU-00000000-0000-0000-0000-000000000001' "
                                  "AND busLocation = '00000000:02:00.0' AND totalMemory = 85899345920"), ==, 1);
#define SAMPLES(counter, device, cond) \
  "SELECT COUNT(*), SUM(" cond ") FROM KS_COUNTER_SAMPLES s JOIN KS_COUNTERS c ON c.id = s.counterId " \
  "WHERE c.name = '" counter "' AND c.deviceId = " device
  g_assert_cmpint (query_int (db, SAMPLES ("GPU utilization", "0", "s.value = 37")), >, 0);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM KS_COUNTER_SAMPLES s JOIN KS_COUNTERS c ON c.id = s.counterId "
                                  "WHERE NOT ((c.name = 'GPU utilization' AND s.value = 37 + 36 * c.deviceId) "
                                  "OR (c.name = 'GPU memory used' AND s.value = (c.deviceId + 1) * 1073741824) "
                                  "OR (c.name = 'GPU memory reserved' AND s.value = 644939776) "
                                  "OR (c.deviceId = 0 AND c.name = 'SM activity' AND s.value = 12.25) "
                                  "OR (c.deviceId = 0 AND c.name = 'SM occupancy' AND s.value = 8.25) "
                                  "OR (c.deviceId = 0 AND c.name = 'Tensor activity' AND s.value = 3.75) "
                                  "OR (c.deviceId = 0 AND c.name = 'DRAM activity' AND s.value = 20.75) "
                                  "OR (c.deviceId = 0 AND c.name = 'FP16 activity' AND s.value = 1.25) "
                                  "OR (c.deviceId = 0 AND c.name = 'FP32 activity' AND s.value = 2.25) "
                                  "OR (c.deviceId = 0 AND c.name = 'FP64 activity' AND s.value = 0) "
                                  "OR (c.deviceId = 0 AND c.name = 'PCIe sent' AND s.value = 100 * 1048576) "
                                  "OR (c.deviceId = 0 AND c.name = 'PCIe received' AND s.value = 250 * 1048576) "
                                  "OR (c.name = 'GPU temperature' AND s.value = 55) "
                                  "OR (c.name = 'GPU power' AND s.value = 123.456) "
                                  "OR (c.name = 'SM clock' AND s.value = 1410))"), ==, 0);
  /* every sample of GPU 0 has its GPM values; no NVLink, no row */
  g_assert_cmpint (query_int (db, SAMPLES ("SM activity", "0", "1")), ==,
                   query_int (db, SAMPLES ("GPU utilization", "0", "1")));
  g_assert_cmpint (query_int (db, SAMPLES ("Tensor activity", "0", "1")), >, 0);
  g_assert_cmpint (query_int (db, SAMPLES ("NVLink sent", "0", "1")), ==, 0);
  /* and the recording says once why GPU 1 has none */
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM KS_DIAGNOSTICS WHERE source = 'nvml' AND "
                                  "text LIKE '%GPM%'"), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM KS_DIAGNOSTICS WHERE source = 'nvml' AND severity = "
                                  "'warning' AND text LIKE 'No SM or tensor activity (NVML GPM): GPU 1 has no GPM "
                                  "counters (Hopper%'"), ==, 1);
  /* GPU 1 has no temperature sensor */
  g_assert_cmpint (query_int (db, SAMPLES ("GPU temperature", "1", "1")), ==, 0);
  g_assert_cmpint (query_int (db, SAMPLES ("GPU temperature", "0", "1")), >, 0);
  g_assert_cmpint (query_int (db, "SELECT MIN(timestamp) >= 0 FROM KS_COUNTER_SAMPLES"), ==, 1);
  sqlite3_close (db);
}

static void
test_progress (void)
{
  g_autofree char *path = out_path ("progress.kscope");
  g_auto(GStrv) lines = NULL;
  Result r;
  gboolean recording = FALSE;

  run_cli (&r, 0, "--progress-fd", "1", "-t", "gpu-metrics", "-o", path, "--", "sleep", "1.2", NULL);
  g_assert_cmpint (r.status, ==, 0);
  lines = g_strsplit (g_strstrip (r.out), "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "{\"state\":\"recording\"") && strstr (lines[i], "\"name\":\"Fake GPU 0\"")
        && strstr (lines[i], "\"utilization\":37"))
      recording = TRUE;
  g_assert_true (recording);
  g_assert_true (g_str_has_prefix (lines[g_strv_length (lines) - 1], "{\"state\":\"done\""));
  g_assert_nonnull (strstr (lines[g_strv_length (lines) - 1], "\"exit_status\":0,\"complete\":true"));
  result_clear (&r);
}

int
main (int    argc,
      char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  if (argc < 7)
    g_error ("usage: test-record KINESCOPE_CLI INJECT_DIR NVTX_APP FAKE_NVML FD_CLOSER WIRE_RESUME");
  cli_path = argv[1];
  inject_dir = argv[2];
  nvtx_app = argv[3];
  fake_nvml = argv[4];
  fd_closer = argv[5];
  wire_resume = argv[6];
  tmp_dir = g_dir_make_tmp ("ks-test-record-XXXXXX", NULL);
  g_assert_nonnull (tmp_dir);
  /* The recorders' socket folders too, left behind by the SIGKILL tests. */
  g_setenv ("TMPDIR", tmp_dir, TRUE);

  g_test_add_func ("/collector/record/exit-status", test_exit_status);
  g_test_add_func ("/collector/record/missing-command", test_missing_command);
  g_test_add_func ("/collector/record/bad-arguments", test_bad_arguments);
  g_test_add_func ("/collector/record/duration", test_duration);
  g_test_add_func ("/collector/record/descendants", test_descendants);
  g_test_add_func ("/collector/record/overwrite", test_overwrite);
  g_test_add_func ("/collector/record/output-in-use", test_output_in_use);
  g_test_add_func ("/collector/record/output-read-meanwhile", test_output_read_meanwhile);
  g_test_add_data_func ("/collector/record/output-race", GINT_TO_POINTER (FALSE), test_output_race);
  g_test_add_data_func ("/collector/record/output-race-force", GINT_TO_POINTER (TRUE), test_output_race);
  g_test_add_func ("/collector/record/default-name", test_default_name);
  g_test_add_func ("/collector/record/nvtx", test_nvtx);
  g_test_add_func ("/collector/record/nvtx-fork", test_nvtx_fork);
  g_test_add_func ("/collector/record/rank", test_rank);
  g_test_add_func ("/collector/record/no-rank", test_no_rank);
  g_test_add_func ("/collector/record/nvtx-deep", test_nvtx_deep);
  g_test_add_func ("/collector/record/osrt", test_osrt);
  g_test_add_data_func ("/collector/record/closed-fds", "close", test_closed_fds);
  g_test_add_data_func ("/collector/record/close-range", "close-range", test_closed_fds);
  g_test_add_func ("/collector/record/resume-open", test_resume_open);
  g_test_add_func ("/collector/record/capture-nvtx", test_capture_nvtx);
  g_test_add_data_func ("/collector/record/sigint", GINT_TO_POINTER (SIGINT), test_signal_recorder);
  g_test_add_data_func ("/collector/record/sigterm", GINT_TO_POINTER (SIGTERM), test_signal_recorder);
  g_test_add_func ("/collector/record/command-sigkill", test_kill_command);
  g_test_add_func ("/collector/record/recorder-sigkill", test_kill_recorder);
  g_test_add_func ("/collector/record/file-size-limit", test_file_size_limit);
  g_test_add_func ("/collector/record/gpu-metrics", test_gpu_metrics);
  g_test_add_func ("/collector/record/progress", test_progress);

  ret = g_test_run ();
  if (ret == 0)
    {
      g_autofree char *cmd = g_strdup_printf ("rm -rf '%s'", tmp_dir);

      /* tmp_dir comes from g_dir_make_tmp: a plain name of ours */
      ret = system (cmd) == 0 ? 0 : 1;
    }
  g_free (tmp_dir);
  return ret;
}
