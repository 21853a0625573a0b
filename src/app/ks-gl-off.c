/* ks-gl-off.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* GTK 4.8 draws with GL by default, and where there is no GPU (a virtual
 * machine, Xvfb, a remote desktop) Mesa draws that GL on the CPU
 * (llvmpipe): on the 2-core machine each frame of the progress page took
 * 60-75 ms of the cores the load needs, and realising the renderer
 * 120 ms of the main thread. Kinescope draws nothing with GL itself
 * (no GtkGLArea), and GTK's cairo renderer draws its 2-D views there at
 * a fraction of that, so with no renderer chosen and no GPU render node
 * the cairo renderer is chosen.
 *
 * GTK 4.8's X11 backend also sets up GL when it opens the display, to
 * choose the windows' visual, even with the cairo renderer: the GL
 * libraries (Mesa's llvmpipe with LLVM) loaded and relocated, EGL
 * initialised and a context made, 45 of the 80 ms of CPU GTK's and
 * libadwaita's start-up took on the 2-core machine. With the cairo
 * renderer GDK is told to leave GL off, through the debug flag GTK
 * documents for it. A GSK_RENDERER or GDK_DEBUG the user set is theirs
 * and left as it is. */

#include "config.h"

#include <gtk/gtk.h>

#include "ks-gl-off.h"

static gboolean renderer_set;     /* GSK_RENDERER set here */
static gboolean debug_set;        /* GDK_DEBUG set here */

/* Mesa and the GPU drivers reach a GPU through a render node; without
 * one, GL is drawn on the CPU. */
static gboolean
has_render_node (const char *dri_dir)
{
  g_autoptr(GDir) dir = g_dir_open (dri_dir, 0, NULL);
  const char *name;

  if (dir == NULL)
    return FALSE;
  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_prefix (name, "renderD"))
      return TRUE;
  return FALSE;
}

static gboolean
unset_or_empty (const char *variable)
{
  const char *value = g_getenv (variable);

  return value == NULL || value[0] == '\0';
}

gboolean
ks_gl_off_choose_in (const char *dri_dir)
{
  g_return_val_if_fail (dri_dir != NULL, FALSE);

  if (gtk_is_initialized ())
    return FALSE;
  /* before any thread reads the environment: GLib's set-up and the
   * application's constructor run on the main thread alone */
  if (unset_or_empty ("GSK_RENDERER") && !has_render_node (dri_dir))
    {
      g_setenv ("GSK_RENDERER", "cairo", TRUE);
      renderer_set = TRUE;
    }
  if (g_strcmp0 (g_getenv ("GSK_RENDERER"), "cairo") == 0 && unset_or_empty ("GDK_DEBUG"))
    {
      g_setenv ("GDK_DEBUG", "gl-disable", TRUE);
      debug_set = TRUE;
    }
  return renderer_set || debug_set;
}

gboolean
ks_gl_off_choose (void)
{
  return ks_gl_off_choose_in ("/dev/dri");
}

void
ks_gl_off_restore_for_child (GSubprocessLauncher *launcher)
{
  g_return_if_fail (G_IS_SUBPROCESS_LAUNCHER (launcher));

  if (renderer_set)
    g_subprocess_launcher_unsetenv (launcher, "GSK_RENDERER");
  if (debug_set)
    g_subprocess_launcher_unsetenv (launcher, "GDK_DEBUG");
}
