/* test-signals.c: the cleanup signals blocked in the process, not in
 * the programs it spawns (src/common/ks-signals.c)
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <errno.h>
#include <gio/gdesktopappinfo.h>
#include <gio/gunixinputstream.h>
#include <gio/gunixoutputstream.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ks-signals.h"

/* SigBlk of process (or thread) @pid, as the kernel shows it. */
static guint64
read_sigblk (const char *status_path)
{
  g_autofree char *contents = NULL;
  g_autoptr(GError) error = NULL;
  const char *line;

  g_file_get_contents (status_path, &contents, NULL, &error);
  g_assert_no_error (error);
  line = strstr (contents, "\nSigBlk:");
  g_assert_nonnull (line);
  return g_ascii_strtoull (line + strlen ("\nSigBlk:"), NULL, 16);
}

static guint64
handled_bits (void)
{
  return (G_GUINT64_CONSTANT (1) << (SIGINT - 1)) |
         (G_GUINT64_CONSTANT (1) << (SIGTERM - 1)) |
         (G_GUINT64_CONSTANT (1) << (SIGHUP - 1));
}

/* @pid runs cat on the pipes @in_fd (we write) and @out_fd (we read):
 * once a line came back, cat runs, past its exec; its blocked mask is
 * returned and the pipes closed. */
static guint64
child_sigblk (GPid pid,
              int  in_fd,
              int  out_fd)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/status", (int) pid);
  char buf[8];
  gsize got = 0;
  guint64 mask;

  g_assert_cmpint (write (in_fd, "ready\n", 6), ==, 6);
  while (got < 6)
    {
      ssize_t n = read (out_fd, buf + got, 6 - got);

      if (n < 0 && errno == EINTR)
        continue;
      g_assert_cmpint (n, >, 0);
      got += (gsize) n;
    }
  g_assert_cmpmem (buf, 6, "ready\n", 6);

  mask = read_sigblk (path);
  close (in_fd);
  close (out_fd);
  return mask;
}

static void
reap (GPid pid)
{
  int status = 0;

  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
}

/* The process keeps them blocked for its signal thread. */
static void
test_parent_blocked (void)
{
  g_assert_cmphex (read_sigblk ("/proc/thread-self/status") & handled_bits (), ==, handled_bits ());
}

/* What the recording view uses: GSubprocess (fork, then exec). */
static void
test_subprocess (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GSubprocess) process = NULL;
  const char *argv[] = { "cat", NULL };
  GPid pid;
  int in_fd, out_fd;

  process = g_subprocess_newv (argv, G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE, &error);
  g_assert_no_error (error);
  pid = (GPid) g_ascii_strtoll (g_subprocess_get_identifier (process), NULL, 10);
  in_fd = dup (g_unix_output_stream_get_fd (G_UNIX_OUTPUT_STREAM (g_subprocess_get_stdin_pipe (process))));
  out_fd = dup (g_unix_input_stream_get_fd (G_UNIX_INPUT_STREAM (g_subprocess_get_stdout_pipe (process))));
  g_output_stream_close (g_subprocess_get_stdin_pipe (process), NULL, NULL);

  g_assert_cmphex (child_sigblk (pid, in_fd, out_fd), ==, 0);
  g_subprocess_wait_check (process, NULL, &error);
  g_assert_no_error (error);
}

/* g_spawn without a child setup of ours. */
static void
test_spawn (void)
{
  g_autoptr(GError) error = NULL;
  const char *argv[] = { "cat", NULL };
  GPid pid;
  int in_fd, out_fd;

  g_spawn_async_with_pipes (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD,
                            NULL, NULL, &pid, &in_fd, &out_fd, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmphex (child_sigblk (pid, in_fd, out_fd), ==, 0);
  reap (pid);
}

static void
pid_cb (GDesktopAppInfo *info,
        GPid             pid,
        gpointer         user_data)
{
  *(GPid *) user_data = pid;
}

/* How gtk_show_uri() starts a browser without a portal (the About
 * window's links): a desktop application, launched by GIO. */
static void
test_app_info (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GAppInfo) info = NULL;
  GPid pid = 0;
  int to_child[2], from_child[2];

  info = g_app_info_create_from_commandline ("cat", "cat", G_APP_INFO_CREATE_NONE, &error);
  g_assert_no_error (error);
  g_assert_true (G_IS_DESKTOP_APP_INFO (info));
  g_assert_cmpint (pipe (to_child), ==, 0);
  g_assert_cmpint (pipe (from_child), ==, 0);

  g_desktop_app_info_launch_uris_as_manager_with_fds (G_DESKTOP_APP_INFO (info), NULL, NULL,
                                                      G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD,
                                                      NULL, NULL, pid_cb, &pid,
                                                      to_child[0], from_child[1], -1, &error);
  g_assert_no_error (error);
  g_assert_cmpint (pid, >, 0);
  close (to_child[0]);
  close (from_child[1]);

  g_assert_cmphex (child_sigblk (pid, to_child[1], from_child[0]), ==, 0);
  reap (pid);
}

int
main (int   argc,
      char *argv[])
{
  /* as the programs' main() do, before any thread */
  ks_signals_init ();
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/signals/parent-blocked", test_parent_blocked);
  g_test_add_func ("/signals/child/gsubprocess", test_subprocess);
  g_test_add_func ("/signals/child/spawn", test_spawn);
  g_test_add_func ("/signals/child/app-info", test_app_info);

  return g_test_run ();
}
