/* ks-tooltips.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Makes GTK's tooltips as wide as their text is in display columns (a
 * Chinese character is two), up to 50, so that a short Chinese tooltip is
 * one line rather than a column of characters. Call once, after
 * gtk_init(). */
void   ks_tooltips_init            (void);

/* The display width of @text in columns: wide (CJK) characters count two,
 * zero-width ones none. */
guint  ks_tooltips_text_columns    (const char *text);

G_END_DECLS
