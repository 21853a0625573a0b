/* ks-report-roofline.h: the roofline's lists as reports
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-report.h"
#include "ks-roofline.h"

G_BEGIN_DECLS

/* "operators" (by name, or by name and shape), "kernels" and "steps"
 * of @roofline, which they hold. */
KsReport *ks_report_new_roofline_operators (KsRoofline   *roofline,
                                            KsAnalysis   *analysis,
                                            gboolean      by_shape);
KsReport *ks_report_new_roofline_kernels   (KsRoofline   *roofline,
                                            KsAnalysis   *analysis);
KsReport *ks_report_new_roofline_steps     (KsRoofline   *roofline,
                                            KsAnalysis   *analysis);
/* The columns of the operators and kernels lists, for the pages. */
const KsReportColumn *ks_report_roofline_columns (guint *n);
/* The FLOP columns of the Operators and Kernels pages (FLOPs, TFLOP/s,
 * FLOP/byte, share of peak, bound), over an operators or kernels report
 * of the analysis: they read the roofline that ks_report_set_roofline()
 * gave the report, and are absent until then. */
const KsReportColumn *ks_report_operator_flop_columns (guint *n);
const KsReportColumn *ks_report_kernel_flop_columns   (guint *n);
/* Holds @roofline as @report's owner, for those columns. */
void      ks_report_set_roofline           (KsReport     *report,
                                            KsRoofline   *roofline);
/* The member "peak": {"device", "tflops": {dtype: N}, "gbps"}. */
void      ks_report_write_roofline_peak    (KsRoofline   *roofline,
                                            KsJsonWriter *json);
/* "12.3 T": a count of FLOPs with an SI prefix. */
char     *ks_format_flops                  (double        flops);
const char *ks_bound_to_string             (KsBound       bound);

G_END_DECLS
