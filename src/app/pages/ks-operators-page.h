/* ks-operators-page.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-page.h"

G_BEGIN_DECLS

/* PyTorch operators: calls, host and device time, total and self,
 * grouped by name or by name and input shapes.
 *
 * Signals: "highlight" (guint name_id) and then "navigate" (gint64
 * start_ns, gint64 end_ns) to the longest call when a row is activated. */

#define KS_TYPE_OPERATORS_PAGE (ks_operators_page_get_type ())

G_DECLARE_FINAL_TYPE (KsOperatorsPage, ks_operators_page, KS, OPERATORS_PAGE, KsPage)

GtkWidget *ks_operators_page_new          (void);

G_END_DECLS
