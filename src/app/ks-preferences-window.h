/* ks-preferences-window.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define KS_TYPE_PREFERENCES_WINDOW (ks_preferences_window_get_type ())

G_DECLARE_FINAL_TYPE (KsPreferencesWindow, ks_preferences_window, KS, PREFERENCES_WINDOW, AdwPreferencesWindow)

/* Edits the analysis preferences in @settings (schema org.kinescope.Kinescope). */
GtkWidget *ks_preferences_window_new          (GtkWindow           *transient_for,
                                               GSettings           *settings);
GSettings *ks_preferences_window_get_settings (KsPreferencesWindow *self);

G_END_DECLS
