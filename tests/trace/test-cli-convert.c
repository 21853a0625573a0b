/* test-cli-convert.c: kinescope-cli convert when things go wrong
 *
 * A full disk, a refused overwrite and signals in the middle of a save:
 * the old file survives, no hidden temporary file is left, and what a
 * SIGKILL leaves says it is incomplete.
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <signal.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

static const char *cli_path;

/* Slices of the trace the signal tests convert: more than one batch of
 * the writer (262144 rows), so that a save takes a while and commits
 * before it ends. */
#define BIG_SLICES 600000

static char *
fixture_path (const char *name)
{
  return g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);
}

static void
remove_dir (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (dir);
}

/* The names in @dir, sorted, joined with spaces. */
static char *
list_dir (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, (GCompareFunc)g_strcmp0);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (" ", (char **)names->pdata);
}

/* The writer's temporary file for @out in @dir (".out.kscope.XXXXXX"), or NULL. */
static char *
find_temp (const char *dir,
           const char *out)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  g_autofree char *prefix = g_strdup_printf (".%s.", out);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    if (g_str_has_prefix (name, prefix))
      return g_build_filename (dir, name, NULL);
  return NULL;
}

static void
default_signals (void)
{
  /* A test run from a shell job may have them ignored; convert keeps
   * an ignored signal ignored. */
  signal (SIGINT, SIG_DFL);
  signal (SIGTERM, SIG_DFL);
  signal (SIGHUP, SIG_DFL);
}

static void
child_defaults (gpointer data)
{
  default_signals ();
}

/* A disk that fills up: writes past 256 KiB fail with EFBIG. */
static void
child_small_disk (gpointer data)
{
  struct rlimit limit = { 256 * 1024, 256 * 1024 };

  default_signals ();
  signal (SIGXFSZ, SIG_IGN);
  setrlimit (RLIMIT_FSIZE, &limit);
}

static int
run_convert (GSpawnChildSetupFunc   setup,
             char                 **err,
             ...)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *out = NULL;
  const char *arg;
  va_list ap;
  int status = 0;

  g_ptr_array_add (argv, (gpointer)cli_path);
  g_ptr_array_add (argv, (gpointer)"convert");
  va_start (ap, err);
  while ((arg = va_arg (ap, const char *)) != NULL)
    g_ptr_array_add (argv, (gpointer)arg);
  va_end (ap);
  g_ptr_array_add (argv, NULL);

  g_spawn_sync (NULL, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, setup, NULL, &out, err, &status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  return WEXITSTATUS (status);
}

/* --force onto an existing file when the disk fills up: the old file is
 * still there, byte for byte, and nothing else is. */
static void
test_force_full_disk (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-convert-XXXXXX", NULL);
  g_autofree char *in = fixture_path ("loader_bound.pt.trace.json.gz");
  g_autofree char *out = g_build_filename (dir, "out.kscope", NULL);
  g_autofree char *err = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *listing = NULL;
  g_autoptr(GByteArray) old = g_byte_array_new ();
  gsize len;

  /* An earlier save, 300 KiB of bytes that are not text. */
  for (guint i = 0; i < 300 * 1024; i++)
    {
      guint8 b = (guint8)(i * 131 + (i >> 9));

      g_byte_array_append (old, &b, 1);
    }
  g_assert_true (g_file_set_contents (out, (const char *)old->data, old->len, NULL));

  g_assert_cmpint (run_convert (child_small_disk, &err, "--force", in, out, NULL), ==, 1);
  g_assert_true (g_file_get_contents (out, &contents, &len, NULL));
  g_assert_cmpmem (contents, len, old->data, old->len);
  listing = list_dir (dir);
  g_assert_cmpstr (listing, ==, "out.kscope");
  /* The message names the file and the system's reason. */
  g_assert_nonnull (strstr (err, "out.kscope"));
  g_assert_nonnull (strstr (err, g_strerror (EFBIG)));

  /* With room, --force replaces it with a whole .kscope. */
  g_clear_pointer (&err, g_free);
  g_clear_pointer (&contents, g_free);
  g_assert_cmpint (run_convert (child_defaults, &err, "--force", in, out, NULL), ==, 0);
  g_assert_true (g_file_get_contents (out, &contents, &len, NULL));
  g_assert_cmpuint (len, >, 4096);
  g_assert_cmpint (memcmp (contents, "SQLite format 3", 16), ==, 0);
  g_clear_pointer (&listing, g_free);
  listing = list_dir (dir);
  g_assert_cmpstr (listing, ==, "out.kscope");

  remove_dir (dir);
}

/* Without --force an existing file is refused and left alone. */
static void
test_no_force (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-convert-XXXXXX", NULL);
  g_autofree char *in = fixture_path ("seed_cnn.pt.trace.json.gz");
  g_autofree char *out = g_build_filename (dir, "out.kscope", NULL);
  g_autofree char *err = NULL;
  g_autofree char *contents = NULL;
  g_autofree char *listing = NULL;

  g_assert_true (g_file_set_contents (out, "keep me", -1, NULL));
  g_assert_cmpint (run_convert (child_defaults, &err, in, out, NULL), ==, 1);
  g_assert_nonnull (strstr (err, "use --force"));
  g_assert_true (g_file_get_contents (out, &contents, NULL, NULL));
  g_assert_cmpstr (contents, ==, "keep me");
  listing = list_dir (dir);
  g_assert_cmpstr (listing, ==, "out.kscope");

  remove_dir (dir);
}

/* A JSON trace of BIG_SLICES one-microsecond slices on one thread. */
static char *
write_big_trace (const char *dir)
{
  g_autofree char *path = g_build_filename (dir, "big.json", NULL);
  g_autoptr(GString) s = g_string_sized_new (BIG_SLICES * 56);

  g_string_append (s, "{\"traceEvents\":[\n");
  for (guint i = 0; i < BIG_SLICES; i++)
    g_string_append_printf (s, "%s{\"ph\":\"X\",\"name\":\"op%u\",\"pid\":1,\"tid\":1,\"ts\":%u,\"dur\":1}",
                            i ? ",\n" : "", i % 100, 2 * i);
  g_string_append (s, "]}\n");
  g_assert_true (g_file_set_contents (path, s->str, s->len, NULL));
  return g_steal_pointer (&path);
}

static GPid
spawn_convert (const char *in,
               const char *out)
{
  const char *argv[] = { cli_path, "convert", in, out, NULL };
  g_autoptr(GError) error = NULL;
  GPid pid;

  g_spawn_async (NULL, (char **)argv, NULL,
                 G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL,
                 child_defaults, NULL, &pid, &error);
  g_assert_no_error (error);
  return pid;
}

/* Stops @pid and waits until it is stopped. */
static void
stop (GPid pid)
{
  int status;

  g_assert_cmpint (kill (pid, SIGSTOP), ==, 0);
  while (waitpid (pid, &status, WUNTRACED) < 0)
    g_assert_cmpint (errno, ==, EINTR);
  g_assert_true (WIFSTOPPED (status));
}

typedef gboolean (*StopCheck) (const char *temp);

/* Waits until the temporary file of @out holds at least @min_size bytes,
 * then stops the process there (SIGSTOP) so that what follows happens in
 * the middle of the save; with @check, only at a moment where @check
 * accepts the file (the process is let go on and stopped again until
 * then). Returns the temporary file's path. */
static char *
stop_mid_save (GPid        pid,
               const char *dir,
               const char *out,
               goffset     min_size,
               StopCheck   check)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  while (g_get_monotonic_time () < deadline)
    {
      g_autofree char *temp = find_temp (dir, out);
      struct stat st;

      if (temp != NULL && g_stat (temp, &st) == 0 && st.st_size >= min_size)
        {
          stop (pid);
          /* Still there once stopped: the save had not finished. */
          if (!g_file_test (temp, G_FILE_TEST_EXISTS))
            g_error ("the save of %d slices ended before it could be stopped", BIG_SLICES);
          if (check == NULL || check (temp))
            return g_steal_pointer (&temp);
          g_assert_cmpint (kill (pid, SIGCONT), ==, 0);
        }
      g_usleep (500);
    }
  g_error ("no temporary file of %s appeared in %s", out, dir);
  return NULL;
}

static int
wait_for (GPid pid)
{
  int status;

  while (waitpid (pid, &status, 0) < 0)
    g_assert_cmpint (errno, ==, EINTR);
  g_spawn_close_pid (pid);
  return status;
}

/* SIGINT, SIGTERM and SIGHUP in the middle of a save: the process ends
 * by that signal and leaves neither the output nor a temporary file. */
static void
test_signals (void)
{
  static const int signals[] = { SIGTERM, SIGINT, SIGHUP };
  g_autofree char *dir = g_dir_make_tmp ("ks-convert-XXXXXX", NULL);
  g_autofree char *in = write_big_trace (dir);
  g_autofree char *out = g_build_filename (dir, "out.kscope", NULL);

  for (guint i = 0; i < G_N_ELEMENTS (signals); i++)
    {
      GPid pid = spawn_convert (in, out);
      g_autofree char *temp = stop_mid_save (pid, dir, "out.kscope", 0, NULL);
      g_autofree char *listing = NULL;
      int status;

      g_test_message ("%s with %s", strsignal (signals[i]), temp);
      g_assert_cmpint (kill (pid, signals[i]), ==, 0);
      g_assert_cmpint (kill (pid, SIGCONT), ==, 0);
      status = wait_for (pid);

      g_assert_true (WIFSIGNALED (status));
      g_assert_cmpint (WTERMSIG (status), ==, signals[i]);
      listing = list_dir (dir);
      g_assert_cmpstr (listing, ==, "big.json");
    }

  remove_dir (dir);
}

/* The signals are blocked once, in main(), before any thread exists:
 * in the middle of a save, after the parser's pool has run, every thread
 * of the process blocks them but the one that waits for them. */
static void
test_threads_block_signals (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-convert-XXXXXX", NULL);
  g_autofree char *in = write_big_trace (dir);
  g_autofree char *out = g_build_filename (dir, "out.kscope", NULL);
  GPid pid = spawn_convert (in, out);
  g_autofree char *temp = stop_mid_save (pid, dir, "out.kscope", 0, NULL);
  g_autofree char *tasks = g_strdup_printf ("/proc/%d/task", (int)pid);
  g_autoptr(GDir) d = g_dir_open (tasks, 0, NULL);
  const guint64 bits = (1u << (SIGINT - 1)) | (1u << (SIGTERM - 1)) | (1u << (SIGHUP - 1));
  guint n_threads = 0, n_waiting = 0;
  const char *name;

  g_assert_nonnull (temp);
  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *status_path = g_build_filename (tasks, name, "status", NULL);
      g_autofree char *status = NULL;
      const char *blk;
      guint64 mask;

      g_assert_true (g_file_get_contents (status_path, &status, NULL, NULL));
      blk = strstr (status, "\nSigBlk:");
      g_assert_nonnull (blk);
      mask = g_ascii_strtoull (blk + strlen ("\nSigBlk:"), NULL, 16);
      n_threads++;
      if (strstr (status, "Name:\tks-signals\n") != NULL)
        n_waiting++;
      else
        g_assert_cmphex (mask & bits, ==, bits);
    }
  /* the main thread, the signal thread and the parser's */
  g_assert_cmpuint (n_waiting, ==, 1);
  g_assert_cmpuint (n_threads, >=, 3);

  g_assert_cmpint (kill (pid, SIGTERM), ==, 0);
  g_assert_cmpint (kill (pid, SIGCONT), ==, 0);
  g_assert_true (WIFSIGNALED (wait_for (pid)));
  remove_dir (dir);
}

/* The first column of the first row of @sql in the database @path, read
 * as it is on disk (the writer holds a lock on it), or NULL. */
static char *
query_text (const char *path,
            const char *sql)
{
  g_autofree char *uri = g_strdup_printf ("file:%s?immutable=1", path);
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  char *value = NULL;

  g_assert_cmpint (sqlite3_open_v2 (uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL), ==, SQLITE_OK);
  if (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL) == SQLITE_OK && sqlite3_step (stmt) == SQLITE_ROW)
    value = g_strdup ((const char *)sqlite3_column_text (stmt, 0));
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return value;
}

/* Between two commits: with the journal off, a file stopped in the middle
 * of a commit is torn, and SQLite calls it malformed. */
static gboolean
between_commits (const char *temp)
{
  g_autofree char *check = query_text (temp, "PRAGMA quick_check");
  g_autofree char *slices = query_text (temp, "SELECT COUNT(*) FROM KS_SLICES");

  return g_strcmp0 (check, "ok") == 0 && slices != NULL && g_ascii_strtoll (slices, NULL, 10) > 0;
}

/* SIGKILL cannot be caught: what it leaves behind says complete=0 until
 * the save's last transaction. */
static void
test_sigkill (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-convert-XXXXXX", NULL);
  g_autofree char *in = write_big_trace (dir);
  g_autofree char *out = g_build_filename (dir, "out.kscope", NULL);
  GPid pid = spawn_convert (in, out);
  /* Past the first commits: KS_META and a batch of slices are on disk. */
  g_autofree char *temp = stop_mid_save (pid, dir, "out.kscope", 2 * 1024 * 1024, between_commits);
  g_autofree char *complete = NULL;
  g_autofree char *slices = NULL;
  int status;

  g_assert_cmpint (kill (pid, SIGKILL), ==, 0);
  status = wait_for (pid);
  g_assert_true (WIFSIGNALED (status));
  g_assert_cmpint (WTERMSIG (status), ==, SIGKILL);

  g_assert_true (g_file_test (temp, G_FILE_TEST_IS_REGULAR));
  g_assert_false (g_file_test (out, G_FILE_TEST_EXISTS));
  complete = query_text (temp, "SELECT value FROM KS_META WHERE name = 'complete'");
  g_assert_cmpstr (complete, ==, "0");
  /* It does hold part of the trace, not all of it. */
  slices = query_text (temp, "SELECT COUNT(*) FROM KS_SLICES");
  g_assert_nonnull (slices);
  g_test_message ("%s slices of %d in the file a SIGKILL left", slices, BIG_SLICES);
  g_assert_cmpint (g_ascii_strtoll (slices, NULL, 10), >, 0);
  g_assert_cmpint (g_ascii_strtoll (slices, NULL, 10), <, BIG_SLICES);

  remove_dir (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_assert_cmpint (argc, ==, 2);
  cli_path = argv[1];

  g_test_add_func ("/cli/convert/force-full-disk", test_force_full_disk);
  g_test_add_func ("/cli/convert/no-force", test_no_force);
  g_test_add_func ("/cli/convert/signals", test_signals);
  g_test_add_func ("/cli/convert/threads-block-signals", test_threads_block_signals);
  g_test_add_func ("/cli/convert/sigkill", test_sigkill);

  return g_test_run ();
}
