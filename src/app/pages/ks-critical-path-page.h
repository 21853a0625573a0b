/* ks-critical-path-page.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-critical-path.h"
#include "ks-page.h"

G_BEGIN_DECLS

/* The critical path of a step: a bar of the step split by class, the
 * items longest on the path (activating one selects its slice and shows
 * it), and what-if rules that re-time the steps.
 *
 * Signals: "navigate" and "highlight" as every page; "path-changed"
 * (KsCriticalPath *path, guint step) when another path or step is shown,
 * path NULL when none, for the timeline to outline it. */

#define KS_TYPE_CRITICAL_PATH_PAGE (ks_critical_path_page_get_type ())

G_DECLARE_FINAL_TYPE (KsCriticalPathPage, ks_critical_path_page, KS, CRITICAL_PATH_PAGE, KsPage)

GtkWidget      *ks_critical_path_page_new           (void);
/* The path shown (of every step), or NULL while none is computed. */
KsCriticalPath *ks_critical_path_page_get_path      (KsCriticalPathPage *self);
/* The step shown: its index in the analysis's steps, or G_MAXUINT. */
guint           ks_critical_path_page_get_step      (KsCriticalPathPage *self);

G_END_DECLS
