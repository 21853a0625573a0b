/* ks-memory-page.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-page.h"

G_BEGIN_DECLS

/* Memory of one device at a time: allocated and reserved curves, the
 * peak and the operator behind it, and the allocations with their
 * lifetimes.
 *
 * Signals: "navigate" (gint64 start_ns, gint64 end_ns) to an
 * allocation's lifetime when its row is activated; "highlight" (guint
 * name_id) for the operator that made it. */

#define KS_TYPE_MEMORY_PAGE (ks_memory_page_get_type ())

G_DECLARE_FINAL_TYPE (KsMemoryPage, ks_memory_page, KS, MEMORY_PAGE, KsPage)

GtkWidget *ks_memory_page_new          (void);
/* The top of the chart's axis, in bytes: the allocated peak, or the
 * reserved one while reserved is shown. */
gint64     ks_memory_page_get_axis_top (KsMemoryPage *self);

G_END_DECLS
