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

typedef enum
{
  KS_OPEN_DEFAULT,
  /* The first file compared with the trace @from shows (Compare With…,
   * a drop with Ctrl held); a window without a trace opens it. */
  KS_OPEN_COMPARE,
} KsOpenHow;

/* Every open of a file goes through here: the command line, Open…, a
 * drop, a recent file, a recording's result, the demo trace, Compare
 * With…. The one rule: each file opens in a window that shows nothing
 * (no trace, no job, no load under way), @from first, then another of
 * @application's, else in a new window; so several files get a window
 * each and a window showing a trace keeps it. @application: NULL for
 * @from's; @from: the window asked, or NULL (the command line). A window
 * without an application cannot add windows to one: the first file
 * replaces what it shows, the others open in windows without one. */
void           ks_application_open_files   (GtkApplication  *application,
                                            GtkWindow       *from,
                                            GFile          **files,
                                            guint            n_files,
                                            KsOpenHow        how);

G_END_DECLS
