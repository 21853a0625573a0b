/* ks-gl-off.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* Before GTK starts and before the process starts threads of its own.
 * With no renderer chosen (GSK_RENDERER unset) and no GPU render node
 * (/dev/dri/renderD*), so that GL would be drawn by the CPU, GTK's cairo
 * renderer is chosen (GSK_RENDERER=cairo); with the cairo renderer,
 * chosen so or by the user, and GDK_DEBUG unset, GDK is told to leave
 * OpenGL off (GDK_DEBUG=gl-disable). TRUE when it set either. Nothing
 * once GTK has started. */
gboolean  ks_gl_off_choose            (void);
/* The same, with @dri_dir searched for render nodes (tests). */
gboolean  ks_gl_off_choose_in         (const char          *dri_dir);
/* Programs the application starts get the environment it was started
 * with: without what was set above. */
void      ks_gl_off_restore_for_child (GSubprocessLauncher *launcher);

G_END_DECLS
