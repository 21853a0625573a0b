/* ks-roofline-page.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-page.h"
#include "ks-roofline.h"

G_BEGIN_DECLS

/* The Roofline page: the GPU's peak, a log-log scatter of the operators
 * (TFLOP/s against FLOPs per byte) under the roofs of their types with
 * the ridge point, a point per operator sized by its GPU time, and the
 * table of kinescope-cli stats --report roofline. The roofline is
 * computed in a worker; the "roofline" property is set when it is done.
 * Activating a row, or clicking a point, highlights the operator's calls
 * and shows its longest. A trace without input shapes says which option
 * records them. */

#define KS_TYPE_ROOFLINE_PAGE (ks_roofline_page_get_type ())

G_DECLARE_FINAL_TYPE (KsRooflinePage, ks_roofline_page, KS, ROOFLINE_PAGE, KsPage)

GtkWidget  *ks_roofline_page_new          (void);
/* NULL until computed. */
KsRoofline *ks_roofline_page_get_roofline (KsRooflinePage *self);
/* Where the point of operator row @index (of the by-name rows) is drawn
 * in the plot's coordinates; FALSE when it has none (no FLOPs, bytes or
 * GPU time) or the plot has no size yet. */
gboolean    ks_roofline_page_get_point    (KsRooflinePage *self,
                                           guint           index,
                                           double         *x,
                                           double         *y);

G_END_DECLS
