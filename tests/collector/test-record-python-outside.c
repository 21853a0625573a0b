/* test-record-python-outside.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Python stacks read from outside the process by `kinescope-cli record`
 * (ks-py-remote.c) on a real python3 program (python/spin-sleep.py): one
 * thread spinning in pure Python, one sleeping in time.sleep. The
 * recording names the threads as threading does, with their kernel ids
 * (which the program writes out), samples the spinning thread at the
 * asked rate although it never gives up its GIL for long, and counts the
 * sleeping thread's samples as waiting, not as self time; the samples
 * report and `info` say the same, checked against the file's rows.
 *
 * argv after the GTest options: kinescope-cli, the directory of
 * libkinescope-inject.so (or "-"), tests/collector/python, python3 (or
 * "-"). */

#include "config.h"

#include <gio/gio.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <yajl/yajl_tree.h>

#include "ks-py-remote.h"
#include "test-record-sql.h"

#define RATE_HZ  1000
#define DURATION "1.5"

static const char *cli_path;
static const char *inject_dir;
static const char *py_dir;
static const char *python;
static char *tmp_dir;

/* Runs argv (NULL-terminated after @first) in tmp_dir; its stdout in
 * @out when not NULL. */
static int
spawn (char       **out,
       const char  *first,
       ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(GStrv) env = g_get_environ ();
  g_autoptr(GError) error = NULL;
  g_autofree char *err = NULL;
  int wait_status = 0;
  va_list args;

  env = g_environ_setenv (env, "KINESCOPE_INJECT_DIR", inject_dir, TRUE);
  env = g_environ_setenv (env, "LC_ALL", "C", TRUE);
  env = g_environ_unsetenv (env, "PYTHONPATH");
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
  g_assert_true (WIFEXITED (wait_status));
  return WEXITSTATUS (wait_status);
}

/* Samples of thread @tid whose innermost frame is @function at @line,
 * taken while it waited (@waiting 1) or ran (0). */
static gint64
count (sqlite3    *db,
       gint64      tid,
       const char *function,
       guint       line,
       int         waiting)
{
  return query_intf (db,
                     "SELECT COUNT(*) FROM COMPOSITE_EVENTS e "
                     "JOIN SAMPLING_CALLCHAINS c ON c.id = e.callchainId AND c.stackDepth = 0 "
                     "JOIN StringIds f ON f.id = c.symbol JOIN KS_THREADS t ON t.globalTid = e.globalTid "
                     "WHERE t.tid = %" G_GINT64_FORMAT " AND f.value = '%s' AND c.lineNumber = %u "
                     "AND e.waiting = %d",
                     tid, function, line, waiting);
}

static yajl_val
json_get (yajl_val    v,
          const char *key)
{
  const char *path[] = { key, NULL };

  return yajl_tree_get (v, path, yajl_t_any);
}

static gint64
json_int (yajl_val    v,
          const char *key)
{
  yajl_val r = json_get (v, key);

  g_assert_true (r != NULL && YAJL_IS_INTEGER (r));
  return YAJL_GET_INTEGER (r);
}

static const char *
json_str (yajl_val    v,
          const char *key)
{
  yajl_val r = json_get (v, key);

  g_assert_true (r != NULL && YAJL_IS_STRING (r));
  return YAJL_GET_STRING (r);
}

/* Counts the threads of spin-sleep.py seen where they wait or spin:
 * the main thread in <module> (its WARM sleep) or spin(), the sleeper in
 * sleeper() under Thread.run, all in the program's file. */
static void
count_program_stacks (const KsPyRemoteStack *stack,
                      gpointer               user_data)
{
  guint *found = user_data;
  const KsPyRemoteFrame *inner = &stack->frames[0];
  const KsPyRemoteFrame *outer = &stack->frames[stack->n_frames - 1];

  if (!g_str_has_suffix (inner->file, "spin-sleep.py") || inner->line == 0)
    return;
  if (g_str_equal (inner->function, "sleeper") && stack->n_frames > 1
      && g_str_equal (stack->frames[1].function, "Thread.run"))
    (*found)++;
  else if ((g_str_equal (inner->function, "<module>") || g_str_equal (inner->function, "spin"))
           && g_str_equal (outer->function, "<module>") && g_str_has_suffix (outer->file, "spin-sleep.py"))
    (*found)++;
}

static void
test_spin_sleep (void)
{
  g_autofree char *script = g_build_filename (py_dir, "spin-sleep.py", NULL);
  g_autofree char *path = g_build_filename (tmp_dir, "spin-sleep.kscope", NULL);
  g_autofree char *facts_path = g_build_filename (tmp_dir, "spin-sleep.txt", NULL);
  g_autofree char *facts = NULL;
  g_autofree char *report = NULL;
  g_autofree char *info = NULL;
  guint spin = marker_line (script, "SPIN");
  guint nap = marker_line (script, "SLEEP");
  guint warm = marker_line (script, "WARM");
  gint64 start_ns, end_ns, main_tid, sleeper_tid;
  gint64 spin_running, spin_lines, sleep_waiting, sleep_running, want;
  gboolean seen_spin = FALSE, seen_sleep = FALSE, seen_rate = FALSE;
  yajl_val root, rows;
  sqlite3 *db;

  if (g_str_equal (inject_dir, "-") || g_str_equal (python, "-"))
    {
      g_test_skip ("libkinescope-inject.so was not built (no CUDA toolkit), or no python3");
      return;
    }
  g_assert_cmpint (spawn (NULL, cli_path, "record", "-f", "-t", "nvtx", "-o", path, "--",
                          python, script, DURATION, facts_path, NULL), ==, 0);
  g_assert_true (g_file_get_contents (facts_path, &facts, NULL, NULL));
  g_assert_cmpint (sscanf (facts, "%" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT,
                           &start_ns, &end_ns, &main_tid, &sleeper_tid), ==, 4);
  g_assert_cmpint (main_tid, !=, sleeper_tid);

  db = open_db (path);
  /* read from outside: nothing came from the in-process sampler, which
   * cannot tell waiting from running */
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM COMPOSITE_EVENTS WHERE waiting IS NULL"), ==, 0);
  if (query_int (db, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'KS_DIAGNOSTICS'") == 1)
    g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM KS_DIAGNOSTICS WHERE source = 'python'"), ==, 0);
  /* the threads' Python names on their kernel ids */
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM KS_THREADS WHERE tid = %" G_GINT64_FORMAT
                                   " AND name = 'MainThread'", main_tid), ==, 1);
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM KS_THREADS WHERE tid = %" G_GINT64_FORMAT
                                   " AND name = 'sleeper'", sleeper_tid), ==, 1);
  g_assert_cmpint (query_int (db, "SELECT COUNT(DISTINCT globalTid) FROM COMPOSITE_EVENTS"), ==, 2);

  /* the spinning thread, at the asked rate over its spinning */
  spin_running = count (db, main_tid, "spin", spin, 0) + count (db, main_tid, "spin", spin + 1, 0);
  spin_lines = query_intf (db, "SELECT COUNT(*) FROM COMPOSITE_EVENTS e "
                               "JOIN SAMPLING_CALLCHAINS c ON c.id = e.callchainId AND c.stackDepth = 0 "
                               "JOIN StringIds f ON f.id = c.symbol WHERE f.value = 'spin'");
  want = (gint64) (0.9 * RATE_HZ * (end_ns - start_ns) / 1e9);
  g_test_message ("spinning %.3f s: %" G_GINT64_FORMAT " running samples in spin() (of %" G_GINT64_FORMAT
                  "), want >= %" G_GINT64_FORMAT, (end_ns - start_ns) / 1e9, spin_running, spin_lines, want);
  g_assert_cmpint (spin_running, >=, want);
  /* the main thread's second in time.sleep before it: waiting */
  g_assert_cmpint (count (db, main_tid, "<module>", warm, 1), >=, (gint64) (0.5 * RATE_HZ));
  g_assert_cmpint (count (db, main_tid, "<module>", warm, 0), <, count (db, main_tid, "<module>", warm, 1) / 10);

  /* the sleeping thread: waiting, hardly ever running */
  sleep_waiting = count (db, sleeper_tid, "sleeper", nap, 1);
  sleep_running = count (db, sleeper_tid, "sleeper", nap, 0);
  g_test_message ("sleeper: %" G_GINT64_FORMAT " waiting, %" G_GINT64_FORMAT " running", sleep_waiting, sleep_running);
  g_assert_cmpint (sleep_waiting, >=, (gint64) (0.9 * RATE_HZ * (end_ns - start_ns) / 1e9));
  /* running: runnable after a wake-up, before time.sleep again; on a
   * loaded machine that includes waiting for a CPU */
  g_assert_cmpint (sleep_running * 4, <, sleep_waiting);

  /* --report samples: self and total count running samples only,
   * waiting the others; thread is the Python name, tid the kernel's */
  g_assert_cmpint (spawn (&report, cli_path, "stats", "--report", "samples", "--format", "json", path, NULL), ==, 0);
  root = yajl_tree_parse (report, NULL, 0);
  g_assert_nonnull (root);
  rows = json_get (root, "samples");
  g_assert_true (rows != NULL && YAJL_IS_ARRAY (rows));
  for (guint i = 0; i < rows->u.array.len; i++)
    {
      yajl_val row = rows->u.array.values[i];
      const char *thread = json_str (row, "thread");
      const char *function = json_str (row, "function");
      gint64 line = json_int (row, "line");

      if (g_str_equal (thread, "MainThread"))
        g_assert_cmpint (json_int (row, "tid"), ==, main_tid);
      else
        {
          g_assert_cmpstr (thread, ==, "sleeper");
          g_assert_cmpint (json_int (row, "tid"), ==, sleeper_tid);
        }
      if (g_str_equal (function, "spin") && line == spin)
        {
          g_assert_cmpint (json_int (row, "self"), ==, count (db, main_tid, "spin", spin, 0));
          g_assert_cmpint (json_int (row, "total"), ==, count (db, main_tid, "spin", spin, 0));
          g_assert_cmpint (json_int (row, "waiting"), ==, count (db, main_tid, "spin", spin, 1));
          seen_spin = TRUE;
        }
      if (g_str_equal (function, "sleeper") && line == nap)
        {
          g_assert_cmpint (json_int (row, "self"), ==, sleep_running);
          g_assert_cmpint (json_int (row, "total"), ==, sleep_running);
          g_assert_cmpint (json_int (row, "waiting"), ==, sleep_waiting);
          seen_sleep = TRUE;
        }
    }
  g_assert_true (seen_spin && seen_sleep);
  yajl_tree_free (root);

  /* info: the rate each thread got */
  g_assert_cmpint (spawn (&info, cli_path, "info", "--format", "json", path, NULL), ==, 0);
  root = yajl_tree_parse (info, NULL, 0);
  g_assert_nonnull (root);
  rows = json_get (root, "python_sampling");
  g_assert_true (rows != NULL && YAJL_IS_ARRAY (rows));
  g_assert_cmpuint (rows->u.array.len, ==, 2);
  for (guint i = 0; i < rows->u.array.len; i++)
    {
      yajl_val row = rows->u.array.values[i];
      yajl_val rate = json_get (row, "rate_hz");
      gint64 tid = json_int (row, "tid");

      g_assert_true (rate != NULL && YAJL_IS_NUMBER (rate));
      g_assert_cmpint (json_int (row, "samples"), ==,
                       query_intf (db, "SELECT COUNT(*) FROM COMPOSITE_EVENTS e JOIN KS_THREADS t "
                                       "ON t.globalTid = e.globalTid WHERE t.tid = %" G_GINT64_FORMAT, tid));
      g_assert_cmpint (json_int (row, "waiting"), ==,
                       query_intf (db, "SELECT COUNT(*) FROM COMPOSITE_EVENTS e JOIN KS_THREADS t "
                                       "ON t.globalTid = e.globalTid WHERE e.waiting = 1 AND t.tid = %"
                                       G_GINT64_FORMAT, tid));
      g_test_message ("%s: %.1f Hz", json_str (row, "thread"), YAJL_GET_DOUBLE (rate));
      if (tid == main_tid)
        {
          g_assert_cmpstr (json_str (row, "thread"), ==, "MainThread");
          g_assert_cmpfloat (YAJL_GET_DOUBLE (rate), >=, 0.9 * RATE_HZ);
          g_assert_cmpfloat (YAJL_GET_DOUBLE (rate), <=, 1.1 * RATE_HZ);
          seen_rate = TRUE;
        }
    }
  g_assert_true (seen_rate);
  yajl_tree_free (root);
  sqlite3_close (db);
}

/* CPython 3.11+ location tables, made by this machine's python3 from
 * code whose lines are known: every instruction's line as dis says. */
static void
test_line_table (void)
{
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;
  guint checked = 0;

  if (g_str_equal (python, "-"))
    {
      g_test_skip ("no python3");
      return;
    }
  /* the table in hex, the first line, then "index line" per instruction */
  g_assert_cmpint (spawn (&out, python, "-c",
                          "import dis, sys\n"
                          "def f(a):\n"
                          "    b = a + 1\n"
                          "    for i in range(3):\n"
                          "        b += i\n"
                          "\n"
                          "    return (b +\n"
                          "            a)\n"
                          "c = f.__code__\n"
                          "if sys.version_info < (3, 11): sys.exit(0)\n"
                          "print(c.co_linetable.hex(), c.co_firstlineno)\n"
                          "for ins in dis.get_instructions(c, show_caches=True):\n"
                          "    ln = [l for (s, e, l) in c.co_lines() if s <= ins.offset < e]\n"
                          "    print(ins.offset // 2, ln[0] if ln and ln[0] is not None else 0)\n",
                          NULL), ==, 0);
  lines = g_strsplit (out, "\n", -1);
  if (lines[0] == NULL || lines[0][0] == '\0')
    {
      g_test_skip ("python3 is older than 3.11");
      return;
    }
  {
    g_auto(GStrv) head = g_strsplit (lines[0], " ", 2);
    gsize len = strlen (head[0]) / 2;
    g_autofree guint8 *table = g_malloc (len + 1);
    guint first = (guint) g_ascii_strtoull (head[1], NULL, 10);

    for (gsize i = 0; i < len; i++)
      table[i] = (guint8) g_ascii_strtoull ((char[]) { head[0][2 * i], head[0][2 * i + 1], 0 }, NULL, 16);
    g_assert_cmpuint (ks_py_remote_line_for (table, len, first, -1), ==, first);
    for (guint i = 1; lines[i] != NULL && lines[i][0] != '\0'; i++)
      {
        gint64 index;
        guint want;

        g_assert_cmpint (sscanf (lines[i], "%" G_GINT64_FORMAT " %u", &index, &want), ==, 2);
        g_assert_cmpuint (ks_py_remote_line_for (table, len, first, index), ==, want);
        checked++;
      }
  }
  g_assert_cmpuint (checked, >=, 20);
}

/* KINESCOPE_PYTHON_SAMPLER=inside: the Python side samples itself, as
 * where the recorder cannot read it; the threads still have their names,
 * and its samples say nothing of waiting (NULL). */
static void
test_inside (void)
{
  g_autofree char *script = g_build_filename (py_dir, "spin-sleep.py", NULL);
  g_autofree char *path = g_build_filename (tmp_dir, "inside.kscope", NULL);
  g_autofree char *facts_path = g_build_filename (tmp_dir, "inside.txt", NULL);
  g_autofree char *facts = NULL;
  gint64 start_ns, end_ns, main_tid, sleeper_tid;
  sqlite3 *db;

  if (g_str_equal (inject_dir, "-") || g_str_equal (python, "-"))
    {
      g_test_skip ("libkinescope-inject.so was not built (no CUDA toolkit), or no python3");
      return;
    }
  g_setenv ("KINESCOPE_PYTHON_SAMPLER", "inside", TRUE);
  g_assert_cmpint (spawn (NULL, cli_path, "record", "-f", "-t", "nvtx", "-o", path, "--",
                          python, script, "0.5", facts_path, NULL), ==, 0);
  g_unsetenv ("KINESCOPE_PYTHON_SAMPLER");
  g_assert_true (g_file_get_contents (facts_path, &facts, NULL, NULL));
  g_assert_cmpint (sscanf (facts, "%" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT,
                           &start_ns, &end_ns, &main_tid, &sleeper_tid), ==, 4);
  db = open_db (path);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM COMPOSITE_EVENTS"), >, 100);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM COMPOSITE_EVENTS WHERE waiting IS NOT NULL"), ==, 0);
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM KS_THREADS WHERE tid = %" G_GINT64_FORMAT
                                   " AND name = 'MainThread'", main_tid), ==, 1);
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM KS_THREADS WHERE tid = %" G_GINT64_FORMAT
                                   " AND name = 'sleeper'", sleeper_tid), ==, 1);
  sqlite3_close (db);
}

/* A forked child whose thread the program renamed in the kernel, as
 * PyTorch names a DataLoader worker: it keeps that name (not the
 * "MainThread" it inherited) and with it the dataloader role; the parent's
 * main thread is MainThread. Both processes' stacks are read from
 * outside. */
static void
test_fork_named (void)
{
  g_autofree char *script = g_build_filename (py_dir, "fork-named.py", NULL);
  g_autofree char *path = g_build_filename (tmp_dir, "fork-named.kscope", NULL);
  g_autofree char *pid_path = g_build_filename (tmp_dir, "fork-named.txt", NULL);
  g_autofree char *text = NULL;
  gint64 child;
  sqlite3 *db;

  if (g_str_equal (inject_dir, "-") || g_str_equal (python, "-"))
    {
      g_test_skip ("libkinescope-inject.so was not built (no CUDA toolkit), or no python3");
      return;
    }
  g_assert_cmpint (spawn (NULL, cli_path, "record", "-f", "-t", "nvtx", "-o", path, "--",
                          python, script, pid_path, NULL), ==, 0);
  g_assert_true (g_file_get_contents (pid_path, &text, NULL, NULL));
  child = g_ascii_strtoll (text, NULL, 10);
  db = open_db (path);
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM KS_THREADS WHERE tid = %" G_GINT64_FORMAT
                                   " AND name = 'pt_data_worker' AND role = 'dataloader'", child), ==, 1);
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM KS_THREADS WHERE tid = pid AND pid != %" G_GINT64_FORMAT
                                   " AND name = 'MainThread' AND role = 'main'", child), ==, 1);
  g_assert_cmpint (query_intf (db, "SELECT COUNT(*) FROM COMPOSITE_EVENTS e JOIN KS_THREADS t "
                                   "ON t.globalTid = e.globalTid WHERE t.tid = %" G_GINT64_FORMAT
                                   " AND e.waiting = 0", child), >=, 50);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM COMPOSITE_EVENTS WHERE waiting IS NULL"), ==, 0);
  sqlite3_close (db);
}

/* The reader on its own: a process that is not Python is refused with an
 * error that says why; a python3 one gives each thread's stack, with the
 * functions and lines of the program. */
static void
test_reader (void)
{
  g_autofree char *script = g_build_filename (py_dir, "spin-sleep.py", NULL);
  g_autofree char *facts_path = g_build_filename (tmp_dir, "reader.txt", NULL);
  const char *sleep_argv[] = { "sleep", "30", NULL };
  const char *py_argv[] = { python, script, "30", facts_path, NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(KsPyRemote) remote = NULL;
  GPid pid;
  guint found = 0;

  if (g_str_equal (python, "-"))
    {
      g_test_skip ("no python3");
      return;
    }
  g_assert_true (g_spawn_async (NULL, (char **) sleep_argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD,
                                NULL, NULL, &pid, &error));
  remote = ks_py_remote_open (pid, &error);
  g_assert_null (remote);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_nonnull (strstr (error->message, "_PyRuntime"));
  g_clear_error (&error);
  kill (pid, SIGKILL);
  waitpid (pid, NULL, 0);

  g_assert_true (g_spawn_async (NULL, (char **) py_argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
                                NULL, NULL, &pid, &error));
  /* until its main thread is in spin() or its WARM sleep, past start-up */
  for (guint tries = 0; found < 2 && tries < 100000; tries++)
    {
      if (remote == NULL && (remote = ks_py_remote_open (pid, NULL)) == NULL)
        continue;
      found = 0;
      g_assert_true (ks_py_remote_sample (remote, count_program_stacks, &found, &error));
      g_assert_no_error (error);
    }
  g_assert_cmpuint (ks_py_remote_get_version (remote) >> 16, >=, 0x030b);
  g_assert_cmpuint (found, ==, 2);
  kill (pid, SIGKILL);
  waitpid (pid, NULL, 0);
}

int
main (int    argc,
      char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  if (argc < 5)
    g_error ("usage: %s KINESCOPE-CLI INJECT-DIR PYTHON-DIR PYTHON3", argv[0]);
  cli_path = argv[1];
  inject_dir = argv[2];
  py_dir = argv[3];
  python = argv[4];
  tmp_dir = g_dir_make_tmp ("ks-record-outside-XXXXXX", NULL);

  g_test_add_func ("/collector/python-outside/line-table", test_line_table);
  g_test_add_func ("/collector/python-outside/reader", test_reader);
  g_test_add_func ("/collector/python-outside/spin-sleep", test_spin_sleep);
  g_test_add_func ("/collector/python-outside/inside", test_inside);
  g_test_add_func ("/collector/python-outside/fork-named", test_fork_named);
  ret = g_test_run ();

  {
    g_autoptr(GFile) dir = g_file_new_for_path (tmp_dir);
    g_autoptr(GFileEnumerator) e = g_file_enumerate_children (dir, G_FILE_ATTRIBUTE_STANDARD_NAME,
                                                              G_FILE_QUERY_INFO_NOFOLLOW_SYMLINKS, NULL, NULL);
    GFileInfo *info;

    while (e != NULL && (info = g_file_enumerator_next_file (e, NULL, NULL)) != NULL)
      {
        g_autoptr(GFile) child = g_file_get_child (dir, g_file_info_get_name (info));

        g_file_delete (child, NULL, NULL);
        g_object_unref (info);
      }
    g_file_delete (dir, NULL, NULL);
  }
  return ret;
}
