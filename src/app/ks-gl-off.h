/* ks-gl-off.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* With GTK's cairo renderer chosen (GSK_RENDERER=cairo) and GDK_DEBUG
 * unset, GDK is told to leave OpenGL off (GDK_DEBUG=gl-disable). Before
 * GTK starts and before the process starts threads of its own; TRUE when
 * it set GDK_DEBUG. Nothing once GTK has started. */
gboolean  ks_gl_off_for_cairo        (void);
/* Programs the application starts get the environment it was started
 * with: without the GDK_DEBUG set above. */
void      ks_gl_off_restore_for_child (GSubprocessLauncher *launcher);

G_END_DECLS
