/* ks-application.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define KS_TYPE_APPLICATION (ks_application_get_type ())

G_DECLARE_FINAL_TYPE (KsApplication, ks_application, KS, APPLICATION, AdwApplication)

KsApplication *ks_application_new          (void);
/* The settings of schema APP_ID: one GSettings for the whole process,
 * which every window, page and dialog shares, made on first use; from the
 * build tree's compiled schema when the program runs from there. NULL
 * when the schema is neither installed nor built (then the defaults
 * apply). */
GSettings     *ks_application_get_settings (void);
/* The toggles among @from's keys as stateful actions, made with
 * g_settings_create_action() (busy-includes-copies, include-warmup,
 * gap-order), for a "settings" action group of a window's menus and of
 * Preferences: a setting changed there reaches every session that
 * follows the settings. */
GSimpleActionGroup *ks_application_create_settings_actions (GSettings *from);

G_END_DECLS
