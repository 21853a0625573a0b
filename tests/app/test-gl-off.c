/* test-gl-off.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* With GSK_RENDERER=cairo the application asks GDK to leave OpenGL off
 * (ks-gl-off.c): once it has started, the display has no GL, for the
 * reason GDK gives when told so, and a program it starts gets the
 * environment without the flag. A GDK_DEBUG of the user's, or another
 * renderer, is left alone. Each case runs in a process of its own: the
 * environment and GTK's start-up are the process's. */

#include "config.h"

#include <gtk/gtk.h>

#include "ks-application.h"
#include "ks-gl-off.h"

/* GApplication's start-up, which starts GTK, as `kinescope` does */
static void
start_up (KsApplication *app)
{
  g_autoptr(GError) error = NULL;

  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);
  g_assert_true (gtk_is_initialized ());
}

/* What `sh` started by a launcher made as the recording's is sees */
static char *
child_gdk_debug (void)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_autoptr(GSubprocess) child = NULL;
  g_autoptr(GError) error = NULL;
  char *out = NULL;

  ks_gl_off_restore_for_child (launcher);
  child = g_subprocess_launcher_spawn (launcher, &error, "sh", "-c", "printf %s \"${GDK_DEBUG-unset}\"", NULL);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (child, NULL, NULL, &out, NULL, &error));
  g_assert_no_error (error);
  return out;
}

static void
cairo_child (void)
{
  g_autoptr(KsApplication) app = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *seen = NULL;

  g_setenv ("GSK_RENDERER", "cairo", TRUE);
  g_unsetenv ("GDK_DEBUG");
  app = ks_application_new ();
  g_assert_cmpstr (g_getenv ("GDK_DEBUG"), ==, "gl-disable");
  start_up (app);

  g_assert_false (gdk_display_prepare_gl (gdk_display_get_default (), &error));
  g_assert_error (error, GDK_GL_ERROR, GDK_GL_ERROR_NOT_AVAILABLE);
  g_assert_nonnull (strstr (error->message, "GDK_DEBUG"));

  seen = child_gdk_debug ();
  g_assert_cmpstr (seen, ==, "unset");
  /* once GTK has started there is nothing to leave off */
  g_unsetenv ("GDK_DEBUG");
  g_assert_false (ks_gl_off_for_cairo ());
  g_assert_null (g_getenv ("GDK_DEBUG"));
}

static void
users_flags_child (void)
{
  g_autoptr(KsApplication) app = NULL;
  g_autofree char *seen = NULL;

  g_setenv ("GSK_RENDERER", "cairo", TRUE);
  g_setenv ("GDK_DEBUG", "misc", TRUE);
  app = ks_application_new ();
  g_assert_cmpstr (g_getenv ("GDK_DEBUG"), ==, "misc");
  seen = child_gdk_debug ();
  g_assert_cmpstr (seen, ==, "misc");
}

static void
other_renderer_child (void)
{
  g_autoptr(KsApplication) app = NULL;
  g_autofree char *seen = NULL;

  g_unsetenv ("GSK_RENDERER");
  g_unsetenv ("GDK_DEBUG");
  app = ks_application_new ();
  g_assert_null (g_getenv ("GDK_DEBUG"));
  g_setenv ("GSK_RENDERER", "gl", TRUE);
  g_assert_false (ks_gl_off_for_cairo ());
  g_assert_null (g_getenv ("GDK_DEBUG"));
  seen = child_gdk_debug ();
  g_assert_cmpstr (seen, ==, "unset");
}

static void
run_child (gconstpointer data)
{
  const char *name = data;

  if (g_test_subprocess ())
    {
      if (g_str_equal (name, "cairo"))
        cairo_child ();
      else if (g_str_equal (name, "users-flags"))
        users_flags_child ();
      else
        other_renderer_child ();
      return;
    }
  g_test_trap_subprocess (NULL, 60 * G_USEC_PER_SEC, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_print ("1..0 # SKIP no display\n");
      return 77;
    }

  g_test_add_data_func ("/app/gl-off/cairo", "cairo", run_child);
  g_test_add_data_func ("/app/gl-off/users-flags", "users-flags", run_child);
  g_test_add_data_func ("/app/gl-off/other-renderer", "other-renderer", run_child);

  return g_test_run ();
}
