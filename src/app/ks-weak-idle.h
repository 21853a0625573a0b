/* ks-weak-idle.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

typedef void (*KsWeakIdleFunc) (GtkWidget *widget);

/* Calls @func with @widget once, from an idle of @priority, unless the
 * widget is finalized or being destroyed by then: the idle holds no
 * reference, so a window closed meanwhile goes at once. */
guint  ks_weak_idle_add  (int             priority,
                          GtkWidget      *widget,
                          KsWeakIdleFunc  func);

G_END_DECLS
