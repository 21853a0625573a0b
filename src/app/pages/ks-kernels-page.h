/* ks-kernels-page.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-page.h"

G_BEGIN_DECLS

/* GPU kernels by name: calls, total, mean, min, max, share of GPU time,
 * launch geometry, registers and estimated occupancy; below, the launch
 * latency distribution.
 *
 * Signals: "highlight" (guint name_id) and then "navigate" (gint64
 * start_ns, gint64 end_ns) to the longest call when a row is activated. */

#define KS_TYPE_KERNELS_PAGE (ks_kernels_page_get_type ())

G_DECLARE_FINAL_TYPE (KsKernelsPage, ks_kernels_page, KS, KERNELS_PAGE, KsPage)

GtkWidget *ks_kernels_page_new          (void);

G_END_DECLS
