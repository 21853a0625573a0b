/* test-gl-off.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Where GL would be drawn on the CPU (no GPU render node) and no
 * renderer is chosen, the application chooses GTK's cairo renderer, and
 * with the cairo renderer it asks GDK to leave OpenGL off
 * (ks-gl-off.c): once it has started, the display has no GL, for the
 * reason GDK gives when told so, its windows draw with cairo, and a
 * program it starts gets the environment without what it set. A
 * GSK_RENDERER or GDK_DEBUG of the user's is left alone. Each case runs
 * in a process of its own: the environment and GTK's start-up are the
 * process's. */

#include "config.h"

#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "ks-application.h"
#include "ks-gl-off.h"

/* A folder standing for /dev/dri, with a render node or without. */
static char *
dri_dir (gboolean with_render_node)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("ks-dri-XXXXXX", &error);

  g_assert_no_error (error);
  if (with_render_node)
    {
      g_autofree char *node = g_build_filename (dir, "renderD128", NULL);

      g_assert_true (g_file_set_contents (node, "", 0, &error));
      g_assert_no_error (error);
    }
  return dir;
}

/* GApplication's start-up, which starts GTK, as `kinescope` does */
static KsApplication *
start_up (void)
{
  g_autoptr(GError) error = NULL;
  KsApplication *app = ks_application_new ();

  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);
  g_assert_true (gtk_is_initialized ());
  return app;
}

/* The display has no GL, for the reason GDK gives when told so; a
 * window draws with cairo. */
static void
assert_gl_off (void)
{
  g_autoptr(GError) error = NULL;
  GtkWidget *window = gtk_window_new ();
  GskRenderer *renderer;

  g_assert_false (gdk_display_prepare_gl (gdk_display_get_default (), &error));
  g_assert_error (error, GDK_GL_ERROR, GDK_GL_ERROR_NOT_AVAILABLE);
  g_assert_nonnull (strstr (error->message, "GDK_DEBUG"));

  gtk_widget_realize (window);
  renderer = gtk_native_get_renderer (GTK_NATIVE (window));
  g_assert_nonnull (renderer);
  g_assert_cmpstr (G_OBJECT_TYPE_NAME (renderer), ==, "GskCairoRenderer");
  gtk_window_destroy (GTK_WINDOW (window));
}

/* What `sh` started by a launcher made as the recording's is sees of
 * @variable */
static char *
child_sees (const char *variable)
{
  g_autoptr(GSubprocessLauncher) launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE);
  g_autoptr(GSubprocess) child = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *script = g_strdup_printf ("printf %%s \"${%s-unset}\"", variable);
  char *out = NULL;

  ks_gl_off_restore_for_child (launcher);
  child = g_subprocess_launcher_spawn (launcher, &error, "sh", "-c", script, NULL);
  g_assert_no_error (error);
  g_assert_true (g_subprocess_communicate_utf8 (child, NULL, NULL, &out, NULL, &error));
  g_assert_no_error (error);
  return out;
}

static void
assert_child_sees (const char *variable,
                   const char *value)
{
  g_autofree char *seen = child_sees (variable);

  g_assert_cmpstr (seen, ==, value);
}

/* No renderer chosen, no render node: cairo, and GL off. */
static void
no_gpu_child (void)
{
  g_autofree char *dir = dri_dir (FALSE);
  g_autoptr(KsApplication) app = NULL;

  g_unsetenv ("GSK_RENDERER");
  g_unsetenv ("GDK_DEBUG");
  g_assert_true (ks_gl_off_choose_in (dir));
  g_assert_cmpstr (g_getenv ("GSK_RENDERER"), ==, "cairo");
  g_assert_cmpstr (g_getenv ("GDK_DEBUG"), ==, "gl-disable");
  app = start_up ();
  assert_gl_off ();
  assert_child_sees ("GSK_RENDERER", "unset");
  assert_child_sees ("GDK_DEBUG", "unset");
  /* once GTK has started there is nothing to choose */
  g_unsetenv ("GSK_RENDERER");
  g_unsetenv ("GDK_DEBUG");
  g_assert_false (ks_gl_off_choose_in (dir));
  g_assert_null (g_getenv ("GSK_RENDERER"));
  g_assert_null (g_getenv ("GDK_DEBUG"));
  g_rmdir (dir);
}

/* A render node: GTK's own choice stands. */
static void
gpu_child (void)
{
  g_autofree char *dir = dri_dir (TRUE);
  g_autofree char *node = g_build_filename (dir, "renderD128", NULL);

  g_unsetenv ("GSK_RENDERER");
  g_unsetenv ("GDK_DEBUG");
  g_assert_false (ks_gl_off_choose_in (dir));
  g_assert_null (g_getenv ("GSK_RENDERER"));
  g_assert_null (g_getenv ("GDK_DEBUG"));
  assert_child_sees ("GSK_RENDERER", "unset");
  g_unlink (node);
  g_rmdir (dir);
}

/* The cairo renderer chosen by the user, with a GPU: GL off too, and
 * the renderer stays the user's for children. */
static void
cairo_child (void)
{
  g_autofree char *dir = dri_dir (TRUE);
  g_autofree char *node = g_build_filename (dir, "renderD128", NULL);
  g_autoptr(KsApplication) app = NULL;

  g_setenv ("GSK_RENDERER", "cairo", TRUE);
  g_unsetenv ("GDK_DEBUG");
  g_assert_true (ks_gl_off_choose_in (dir));
  g_assert_cmpstr (g_getenv ("GDK_DEBUG"), ==, "gl-disable");
  app = start_up ();
  assert_gl_off ();
  assert_child_sees ("GSK_RENDERER", "cairo");
  assert_child_sees ("GDK_DEBUG", "unset");
  g_unlink (node);
  g_rmdir (dir);
}

/* A GDK_DEBUG or another renderer of the user's: left alone. */
static void
users_choice_child (void)
{
  g_autofree char *dir = dri_dir (FALSE);

  g_setenv ("GSK_RENDERER", "cairo", TRUE);
  g_setenv ("GDK_DEBUG", "misc", TRUE);
  g_assert_false (ks_gl_off_choose_in (dir));
  g_assert_cmpstr (g_getenv ("GDK_DEBUG"), ==, "misc");
  assert_child_sees ("GDK_DEBUG", "misc");

  g_setenv ("GSK_RENDERER", "gl", TRUE);
  g_unsetenv ("GDK_DEBUG");
  g_assert_false (ks_gl_off_choose_in (dir));
  g_assert_cmpstr (g_getenv ("GSK_RENDERER"), ==, "gl");
  g_assert_null (g_getenv ("GDK_DEBUG"));
  assert_child_sees ("GSK_RENDERER", "gl");
  g_rmdir (dir);
}

static void
run_child (gconstpointer data)
{
  const char *name = data;

  if (g_test_subprocess ())
    {
      if (g_str_equal (name, "no-gpu"))
        no_gpu_child ();
      else if (g_str_equal (name, "gpu"))
        gpu_child ();
      else if (g_str_equal (name, "cairo"))
        cairo_child ();
      else
        users_choice_child ();
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

  g_test_add_data_func ("/app/gl-off/no-gpu", "no-gpu", run_child);
  g_test_add_data_func ("/app/gl-off/gpu", "gpu", run_child);
  g_test_add_data_func ("/app/gl-off/cairo", "cairo", run_child);
  g_test_add_data_func ("/app/gl-off/users-choice", "users-choice", run_child);

  return g_test_run ();
}
