/* fake-flatpak-spawn.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* A stand-in for `flatpak-spawn --host`, for tests that take the window's
 * Flatpak branch outside a sandbox. It does here what flatpak-spawn and
 * flatpak-session-helper do together (flatpak-xdg-utils'
 * src/flatpak-spawn.c, flatpak's session-helper/flatpak-session-helper.c):
 *
 * - the options --host (required), --forward-fd=FD, --directory=DIR,
 *   --env=VAR=VALUE, --clear-env and --watch-bus (accepted; there is no
 *   bus to watch here), with option parsing that stops at the command;
 * - the command is looked up in our own PATH, run in DIR with our
 *   environment plus --env, as a new session and process group, with
 *   file descriptors 0–2 and the forwarded ones only;
 * - a command that cannot be started is reported as flatpak-spawn does
 *   ("Portal call failed: Failed to start command: …", status 1);
 * - SIGINT is forwarded to the command's process group, SIGTERM, SIGHUP,
 *   SIGUSR1 and SIGUSR2 to the command;
 * - the exit status is the command's, or 128 + the signal that killed it.
 *
 * With KS_TEST_FLATPAK_SPAWN_LOG set, its arguments are appended to that
 * file, one a line, then an empty line. */

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <glib-unix.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static GPid child_pid;
static GArray *forward_fds;

static void
log_arguments (int    argc,
               char **argv)
{
  const char *path = g_getenv ("KS_TEST_FLATPAK_SPAWN_LOG");
  g_autoptr(GString) text = g_string_new (NULL);
  FILE *f;

  if (path == NULL)
    return;
  for (int i = 1; i < argc; i++)
    g_string_append_printf (text, "%s\n", argv[i]);
  g_string_append_c (text, '\n');
  f = fopen (path, "a");
  if (f == NULL)
    g_error ("cannot write %s: %s", path, g_strerror (errno));
  fputs (text->str, f);
  fclose (f);
}

/* GLib marks every descriptor from 3 on close-on-exec before this runs,
 * like flatpak-session-helper's child setup, which then dup2()s the
 * forwarded ones into place. */
static void
child_setup (gpointer data)
{
  setsid ();
  setpgid (0, 0);
  for (guint i = 0; i < forward_fds->len; i++)
    fcntl (g_array_index (forward_fds, int, i), F_SETFD, 0);
}

static gboolean
forward_signal_cb (gpointer data)
{
  int signo = GPOINTER_TO_INT (data);

  if (signo == SIGINT)
    killpg (child_pid, signo);
  else
    kill (child_pid, signo);
  return G_SOURCE_CONTINUE;
}

static void
child_exited_cb (GPid     pid,
                 int      status,
                 gpointer data)
{
  if (WIFEXITED (status))
    exit (WEXITSTATUS (status));
  exit (128 + WTERMSIG (status));
}

int
main (int    argc,
      char **argv)
{
  gboolean host = FALSE;
  gboolean clear_env = FALSE;
  gboolean watch_bus = FALSE;
  g_autofree char *directory = NULL;
  g_auto(GStrv) fd_args = NULL;
  g_auto(GStrv) env_args = NULL;
  GOptionEntry entries[] = {
    { "host", 0, 0, G_OPTION_ARG_NONE, &host, "Start the command on the host", NULL },
    { "forward-fd", 0, 0, G_OPTION_ARG_STRING_ARRAY, &fd_args, "Forward file descriptor", "FD" },
    { "directory", 0, 0, G_OPTION_ARG_FILENAME, &directory, "Working directory", "DIR" },
    { "env", 0, 0, G_OPTION_ARG_STRING_ARRAY, &env_args, "Set environment variable", "VAR=VALUE" },
    { "clear-env", 0, 0, G_OPTION_ARG_NONE, &clear_env, "Run with a clean environment", NULL },
    { "watch-bus", 0, 0, G_OPTION_ARG_NONE, &watch_bus, "Make the command exit if we do", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("COMMAND [ARGUMENT…]");
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) env = NULL;
  g_autoptr(GMainLoop) loop = NULL;
  const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 };

  log_arguments (argc, argv);

  g_option_context_add_main_entries (context, entries, NULL);
  g_option_context_set_strict_posix (context, TRUE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }
  if (!host)
    {
      g_printerr ("fake-flatpak-spawn: only --host is implemented\n");
      return 1;
    }
  if (argc < 2)
    {
      g_printerr ("No command specified\n");
      return 1;
    }

  forward_fds = g_array_new (FALSE, FALSE, sizeof (int));
  for (guint i = 0; fd_args != NULL && fd_args[i] != NULL; i++)
    {
      int fd = (int) strtol (fd_args[i], NULL, 10);

      if (fd < 0)
        {
          g_printerr ("Invalid fd '%s'\n", fd_args[i]);
          return 1;
        }
      if (fd > 2)
        g_array_append_val (forward_fds, fd);
    }

  env = clear_env ? g_new0 (char *, 1) : g_get_environ ();
  for (guint i = 0; env_args != NULL && env_args[i] != NULL; i++)
    {
      const char *eq = strchr (env_args[i], '=');
      g_autofree char *name = NULL;

      if (eq == NULL || eq == env_args[i])
        {
          g_printerr ("Invalid env format %s\n", env_args[i]);
          return 1;
        }
      name = g_strndup (env_args[i], (gsize) (eq - env_args[i]));
      env = g_environ_setenv (env, name, eq + 1, TRUE);
    }

  /* flatpak-spawn sets up forwarding before it starts the command */
  loop = g_main_loop_new (NULL, FALSE);
  for (guint i = 0; i < G_N_ELEMENTS (signals); i++)
    g_unix_signal_add (signals[i], forward_signal_cb, GINT_TO_POINTER (signals[i]));

  /* G_SPAWN_SEARCH_PATH: the helper's own PATH, not one given with --env */
  if (!g_spawn_async (directory, argv + 1, env, G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD,
                      child_setup, NULL, &child_pid, &error))
    {
      g_printerr ("Portal call failed: Failed to start command: %s\n", error->message);
      return 1;
    }
  /* Only the host command holds the forwarded descriptors now. */
  for (guint i = 0; i < forward_fds->len; i++)
    close (g_array_index (forward_fds, int, i));

  g_child_watch_add (child_pid, child_exited_cb, NULL);
  g_main_loop_run (loop);
  return 0;
}
