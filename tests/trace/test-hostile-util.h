/* test-hostile-util.h: helpers of the tests that give hostile files to
 * the loader, kinescope-cli and the thumbnailer
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <sys/resource.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "ks-trace-loader.h"

static inline char *
fixture_path (const char *name)
{
  return g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);
}

static inline KsTrace *
load (const char  *path,
      GError     **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  return ks_trace_load (file, NULL, NULL, error);
}

static inline guint64
count_slices (KsTrace *trace)
{
  guint64 n = 0;

  for (guint t = 0; t < trace->n_tracks; t++)
    n += trace->tracks[t].n_slices;
  return n;
}

/* Removes @dir and all below it, folders made unreadable by a test too. */
static inline void
remove_tree (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  g_chmod (dir, 0755);
  while (d != NULL && (name = g_dir_read_name (d)))
    {
      g_autofree char *child = g_build_filename (dir, name, NULL);

      if (g_file_test (child, G_FILE_TEST_IS_DIR) && !g_file_test (child, G_FILE_TEST_IS_SYMLINK))
        remove_tree (child);
      else
        g_assert_cmpint (g_unlink (child), ==, 0);
    }
  g_assert_cmpint (g_rmdir (dir), ==, 0);
}

typedef struct
{
  gboolean  done;
  char     *out;
  char     *err;
  GError   *error;
} ToolRun;

static inline void
tool_communicate_cb (GObject      *object,
                     GAsyncResult *result,
                     gpointer      user_data)
{
  ToolRun *run = user_data;

  g_subprocess_communicate_utf8_finish (G_SUBPROCESS (object), result, &run->out, &run->err, &run->error);
  run->done = TRUE;
}

static inline gboolean
tool_timeout_cb (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

static inline void
tool_limit_memory_cb (gpointer user_data)
{
  struct rlimit rl;

  rl.rlim_cur = rl.rlim_max = GPOINTER_TO_SIZE (user_data) * (rlim_t) 1024;
  setrlimit (RLIMIT_AS, &rl);
}

/* Runs @argv (NULL-terminated) with @env (name, value, …, NULL) set on
 * top of ours and, when @limit_kib is not 0, its address space limited as
 * `ulimit -v` does; kills it after @timeout_s: a tool that hangs fails
 * the test instead of blocking it. Returns its exit status, -1 when it
 * was killed (a crash, or the timeout). */
static inline int
run_tool_with (const char * const *argv,
               const char * const *env,
               gsize               limit_kib,
               guint               timeout_s,
               char              **out,
               char              **err)
{
  g_autoptr(GSubprocessLauncher) launcher =
    g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GError) error = NULL;
  ToolRun run = { 0 };
  gboolean timed_out = FALSE;
  guint timeout_id;

  for (guint i = 0; env != NULL && env[i] != NULL; i += 2)
    g_subprocess_launcher_setenv (launcher, env[i], env[i + 1], TRUE);
  if (limit_kib > 0)
    g_subprocess_launcher_set_child_setup (launcher, tool_limit_memory_cb, GSIZE_TO_POINTER (limit_kib), NULL);
  proc = g_subprocess_launcher_spawnv (launcher, argv, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8_async (proc, NULL, NULL, tool_communicate_cb, &run);
  timeout_id = g_timeout_add_seconds (timeout_s, tool_timeout_cb, &timed_out);
  while (!run.done && !timed_out)
    g_main_context_iteration (NULL, TRUE);
  if (timed_out)
    {
      g_subprocess_force_exit (proc);
      while (!run.done)
        g_main_context_iteration (NULL, TRUE);
      g_test_fail_printf ("%s %s did not finish within %u s", argv[0], argv[1], timeout_s);
    }
  else
    g_source_remove (timeout_id);
  g_assert_no_error (run.error);

  g_test_message ("%s %s: %s", argv[0], argv[1], run.err);
  if (out != NULL)
    *out = g_steal_pointer (&run.out);
  if (err != NULL)
    *err = g_steal_pointer (&run.err);
  g_free (run.out);
  g_free (run.err);
  if (timed_out || !g_subprocess_get_if_exited (proc))
    return -1;
  return g_subprocess_get_exit_status (proc);
}
