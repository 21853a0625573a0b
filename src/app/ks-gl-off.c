/* ks-gl-off.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* GTK 4.8's X11 backend sets up OpenGL when it opens the display, to
 * choose the windows' visual, also when GSK_RENDERER=cairo says that
 * nothing will draw with it: the GL libraries (Mesa's llvmpipe with LLVM
 * on a remote or virtual display) loaded and relocated, EGL initialised
 * and a context made. That was 45 of the 85 ms of CPU GTK's and
 * libadwaita's start-up took on the 2-core machine, one stretch without
 * the main loop. Kinescope draws nothing with GL (no GtkGLArea), so with
 * the cairo renderer chosen GDK is told to leave GL off, through the
 * debug flag GTK documents for it. A GDK_DEBUG the user set is theirs
 * and left as it is. */

#include "config.h"

#include <gtk/gtk.h>

#include "ks-gl-off.h"

static gboolean set_here;

gboolean
ks_gl_off_for_cairo (void)
{
  const char *debug = g_getenv ("GDK_DEBUG");

  if (gtk_is_initialized () || set_here)
    return FALSE;
  if (g_strcmp0 (g_getenv ("GSK_RENDERER"), "cairo") != 0)
    return FALSE;
  if (debug != NULL && debug[0] != '\0')
    return FALSE;
  /* before any thread reads the environment: GLib's set-up and the
   * application's constructor run on the main thread alone */
  g_setenv ("GDK_DEBUG", "gl-disable", TRUE);
  set_here = TRUE;
  return TRUE;
}

void
ks_gl_off_restore_for_child (GSubprocessLauncher *launcher)
{
  g_return_if_fail (G_IS_SUBPROCESS_LAUNCHER (launcher));

  if (set_here)
    g_subprocess_launcher_unsetenv (launcher, "GDK_DEBUG");
}
