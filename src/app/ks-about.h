/* ks-about.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* The About window, with the library versions as debug information. */
GtkWidget *ks_about_window_new        (GtkWindow *transient_for);
char      *ks_about_get_debug_info    (void);

G_END_DECLS
