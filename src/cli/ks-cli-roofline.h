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

/* The options of the roofline report, as parsed. */
typedef struct
{
  char              *peak_tflops;   /* "N" (every type) or "bf16=N,fp32=N" */
  double             peak_gbps;
  double             model_flops;
  KsRooflineOptions  options;       /* filled by ks_cli_roofline_check_options() */
} KsCliRooflineArgs;

/* Adds --peak-tflops, --peak-gbps and --model-flops-per-step to the
 * main group of @context, parsed into @args. */
void     ks_cli_roofline_add_options   (GOptionContext     *context,
                                        KsCliRooflineArgs  *args);
/* Checks what was parsed into args->options; FALSE with a message in
 * @error when an option does not parse. */
gboolean ks_cli_roofline_check_options (KsCliRooflineArgs  *args,
                                        GError            **error);
void     ks_cli_roofline_args_clear    (KsCliRooflineArgs  *args);
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

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (KsCliRooflineArgs, ks_cli_roofline_args_clear)

G_END_DECLS
