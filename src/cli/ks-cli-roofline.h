/* ks-cli-roofline.h: kinescope-cli stats --report roofline
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-report.h"
#include "ks-roofline.h"

G_BEGIN_DECLS

/* --peak-tflops: "N" (every type) or "bf16=N,fp32=N"; FALSE with a
 * message in @error when it does not parse. */
gboolean ks_cli_parse_peak_tflops (const char         *text,
                                   KsRooflineOptions  *options,
                                   GError            **error);
/* The report: the peak, operators, kernels, steps' MFU and the advice,
 * as a table, CSV (the three lists, a blank line apart) or one JSON
 * object; at most @limit rows a list (0: all; the table's default). */
void     ks_cli_stats_roofline    (KsTrace                 *trace,
                                   KsAnalysis              *analysis,
                                   const KsRooflineOptions *options,
                                   KsReportFormat           format,
                                   guint                    limit,
                                   gboolean                 by_shape,
                                   GString                 *out);

G_END_DECLS
