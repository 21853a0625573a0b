/* ks-report-roofline.c: the roofline's lists as reports
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "ks-report-roofline.h"

#define ROW(r, i) (&((const KsRooflineRow *)(r)->rows)[i])
#define STEP(r, i) (&((const KsRooflineStep *)(r)->rows)[i])

char *
ks_format_flops (double flops)
{
  static const char prefixes[] = " kMGTPE";
  guint p = 0;

  while (flops >= 1000 && p + 1 < sizeof prefixes - 1)
    {
      flops /= 1000;
      p++;
    }
  if (p == 0)
    return g_strdup_printf ("%.0f", flops);
  return g_strdup_printf ("%.*f %c", flops < 10 ? 2 : flops < 100 ? 1 : 0, flops, prefixes[p]);
}

const char *
ks_bound_to_string (KsBound bound)
{
  switch (bound)
    {
    case KS_BOUND_MEMORY:  return "memory";
    case KS_BOUND_COMPUTE: return "compute";
    case KS_BOUND_UNKNOWN:
    default:               return NULL;
    }
}

static void
set_estimate (KsReportValue *v,
              double         d)
{
  if (d >= 0)
    ks_report_value_set_double (v, d);
}

static void
row_get (const KsReport       *r,
         const KsReportColumn *c,
         guint                 i,
         KsReportValue        *v)
{
  const KsRooflineRow *row = ROW (r, i);

  switch (c->arg)
    {
    case 0: ks_report_value_set_string (v, ks_trace_string (r->trace, row->name)); break;
    case 1: ks_report_value_set_string (v, row->input_dims); break;
    case 2: ks_report_value_set_int (v, row->calls); break;
    case 3: ks_report_value_set_int (v, row->flops); break;
    case 4: ks_report_value_set_int (v, row->bytes); break;
    case 5: ks_report_value_set_int (v, row->device_ns); break;
    case 6: set_estimate (v, row->tflops); break;
    case 7: set_estimate (v, row->gbps); break;
    case 8: set_estimate (v, row->intensity); break;
    case 9: set_estimate (v, row->peak_pct); break;
    case 10: ks_report_value_set_string (v, ks_bound_to_string (row->bound)); break;
    case 11: ks_report_value_set_string (v, ks_dtype_to_string (row->dtype)); break;
    default: g_assert_not_reached ();
    }
}

static char *
flops_text (const KsReport       *r,
            const KsReportColumn *c,
            guint                 i)
{
  return ks_format_flops (ROW (r, i)->flops);
}

static char *
bound_text (const KsReport       *r,
            const KsReportColumn *c,
            guint                 i)
{
  switch (ROW (r, i)->bound)
    {
    case KS_BOUND_MEMORY:  return g_strdup (_("memory"));
    case KS_BOUND_COMPUTE: return g_strdup (_("compute"));
    case KS_BOUND_UNKNOWN:
    default:               return g_strdup ("-");
    }
}

/* pos: text table, CSV, JSON, page */
#define RF_COL(k_, title_, unit_, dec_, a_, t_, c_, j_, p_, w_, flags_) \
  { .key = k_, .title = title_, .metric = -1, .unit = unit_, .decimals = dec_, .get = row_get, \
    .arg = a_, .pos = { t_, c_, j_, p_ }, .width = w_, .flags = flags_ }

/* The JSON members are the issue's: name, calls, flops, bytes,
 * device_ns, tflops, gbps, intensity, peak_pct, bound (and input_dims
 * by shape); the dtype is in the text and CSV forms and the pages. */
static const KsReportColumn roofline_columns[] = {
  RF_COL ("name", N_("Name"), KS_REPORT_UNIT_TEXT, 0, 0, 12, 1, 1, 1, 0, KS_REPORT_COLUMN_LEFT),
  RF_COL ("calls", N_("Calls"), KS_REPORT_UNIT_COUNT, 0, 2, 2, 3, 3, 4, 7, 0),
  { .key = "flops", .title = N_("FLOPs"), .metric = -1, .unit = KS_REPORT_UNIT_COUNT, .get = row_get,
    .text = flops_text, .arg = 3, .pos = { 3, 4, 4, 5 }, .width = 9,
    .tooltip = N_("Floating-point operations, by PyTorch's flop counter's formulas from the input shapes") },
  { .key = "bytes", .title = N_("Bytes"), .metric = -1, .unit = KS_REPORT_UNIT_BYTES, .get = row_get,
    .arg = 4, .pos = { 4, 5, 5, 6 }, .width = 10,
    .tooltip = N_("Bytes of the input tensors read and the output written, each once") },
  { .key = "device_ns", .title = N_("GPU time"), .metric = -1, .unit = KS_REPORT_UNIT_DURATION, .get = row_get,
    .tooltip = N_("GPU time of the kernels, copies and memsets the calls launched"),
    .arg = 5, .pos = { 1, 6, 6, 3 }, .width = 11 },
  RF_COL ("tflops", N_("TFLOP/s"), KS_REPORT_UNIT_COUNT, 2, 6, 6, 7, 7, 8, 8, 0),
  RF_COL ("gbps", N_("GB/s"), KS_REPORT_UNIT_COUNT, 0, 7, 7, 8, 8, 9, 7, 0),
  { .key = "intensity", .title = N_("FLOP/byte"), .metric = -1, .unit = KS_REPORT_UNIT_COUNT, .decimals = 1,
    .get = row_get, .arg = 8, .pos = { 8, 9, 9, 10 }, .width = 9,
    .tooltip = N_("Arithmetic intensity: FLOPs per byte moved") },
  { .key = "peak_pct", .title = N_("Of peak"), .metric = -1, .unit = KS_REPORT_UNIT_PERCENT, .decimals = 1,
    .get = row_get, .arg = 9, .pos = { 9, 10, 10, 11 }, .width = 8,
    .tooltip = N_("Of the roof at its intensity: the GPU's peak for its type when compute-bound, "
                  "its memory bandwidth when memory-bound") },
  { .key = "bound", .title = N_("Bound"), .metric = -1, .unit = KS_REPORT_UNIT_TEXT, .get = row_get,
    .text = bound_text, .arg = 10, .pos = { 10, 11, 11, 12 }, .width = 8, .flags = KS_REPORT_COLUMN_LEFT,
    .tooltip = N_("Compute-bound when its intensity is at or past the ridge point, else memory-bound") },
  RF_COL ("dtype", N_("Type"), KS_REPORT_UNIT_TEXT, 0, 11, 5, 12, 0, 7, 5, KS_REPORT_COLUMN_LEFT),
  /* last: hidden unless by shape; the Roofline page groups by name */
  RF_COL ("input_dims", N_("Input shapes"), KS_REPORT_UNIT_TEXT, 0, 1, 11, 2, 2, 0, 24, KS_REPORT_COLUMN_LEFT),
};

const KsReportColumn *
ks_report_roofline_columns (guint *n)
{
  *n = G_N_ELEMENTS (roofline_columns);
  return roofline_columns;
}

static void
step_get (const KsReport       *r,
          const KsReportColumn *c,
          guint                 i,
          KsReportValue        *v)
{
  const KsRooflineStep *step = STEP (r, i);

  switch (c->arg)
    {
    case 0: ks_report_value_set_string (v, ks_trace_string (r->trace, step->name)); break;
    case 1: ks_report_value_set_int (v, step->flops); break;
    case 2: set_estimate (v, step->mfu_pct); break;
    case 3: ks_report_value_set_int (v, step->end - step->start); break;
    case 4: ks_report_value_set_string (v, ks_dtype_to_string (step->dtype)); break;
    default: g_assert_not_reached ();
    }
}

static char *
step_flops_text (const KsReport       *r,
                 const KsReportColumn *c,
                 guint                 i)
{
  return ks_format_flops (STEP (r, i)->flops);
}

static const KsReportColumn step_columns[] = {
  { .key = "name", .title = N_("Step"), .metric = -1, .unit = KS_REPORT_UNIT_TEXT, .get = step_get,
    .arg = 0, .pos = { 1, 1, 1, 1 }, .width = 18, .flags = KS_REPORT_COLUMN_LEFT },
  { .key = "duration_ns", .title = N_("Duration"), .metric = -1, .unit = KS_REPORT_UNIT_DURATION, .get = step_get,
    .arg = 3, .pos = { 2, 4, 0, 2 }, .width = 11 },
  { .key = "flops", .title = N_("FLOPs"), .metric = -1, .unit = KS_REPORT_UNIT_COUNT, .get = step_get,
    .text = step_flops_text, .arg = 1, .pos = { 3, 2, 2, 3 }, .width = 9 },
  { .key = "dtype", .title = N_("Peak of"), .metric = -1, .unit = KS_REPORT_UNIT_TEXT, .get = step_get,
    .arg = 4, .pos = { 4, 5, 0, 4 }, .width = 8, .flags = KS_REPORT_COLUMN_LEFT },
  { .key = "mfu_pct", .title = N_("MFU"), .metric = -1, .unit = KS_REPORT_UNIT_PERCENT, .decimals = 1,
    .get = step_get, .arg = 2, .pos = { 5, 3, 3, 5 }, .width = 0,
    .tooltip = N_("The step's FLOPs over its duration, of the GPU's peak for the type of most of them") },
};

/* FLOP columns of the analysis' operators and kernels */

static const KsRooflineRow *
flop_row (const KsReport       *r,
          const KsReportColumn *c,
          guint                 i)
{
  KsRoofline *roofline = r->owner != NULL && KS_IS_ROOFLINE (r->owner) ? KS_ROOFLINE (r->owner) : NULL;
  const KsOperatorStats *op;

  if (roofline == NULL)
    return NULL;
  if (c->arg >= 100)
    return ks_roofline_find_kernel (roofline, ((const KsKernelStats *)r->rows)[i].name);
  op = &((const KsOperatorStats *)r->rows)[i];
  return ks_roofline_find_operator (roofline, op->name, r->by_shape ? (op->input_dims ? op->input_dims : "") : NULL);
}

static void
flop_get (const KsReport       *r,
          const KsReportColumn *c,
          guint                 i,
          KsReportValue        *v)
{
  const KsRooflineRow *row = flop_row (r, c, i);

  if (row == NULL)
    return;
  switch (c->arg % 100)
    {
    case 0: ks_report_value_set_int (v, row->flops); break;
    case 1: set_estimate (v, row->tflops); break;
    case 2: set_estimate (v, row->intensity); break;
    case 3: set_estimate (v, row->peak_pct); break;
    case 4: ks_report_value_set_string (v, ks_bound_to_string (row->bound)); break;
    default: g_assert_not_reached ();
    }
}

static char *
flop_text (const KsReport       *r,
           const KsReportColumn *c,
           guint                 i)
{
  const KsRooflineRow *row = flop_row (r, c, i);

  if (row == NULL)
    return g_strdup ("-");
  if (c->arg % 100 == 0)
    return ks_format_flops (row->flops);
  switch (row->bound)
    {
    case KS_BOUND_MEMORY:  return g_strdup (_("memory"));
    case KS_BOUND_COMPUTE: return g_strdup (_("compute"));
    case KS_BOUND_UNKNOWN:
    default:               return g_strdup ("-");
    }
}

/* Only on the pages (the CLI's roofline report has them); @base_ 0 for
 * operators, 100 for kernels. */
#define FLOP_COLUMNS(base_) \
  { .key = "flops", .title = N_("FLOPs"), .metric = -1, .unit = KS_REPORT_UNIT_COUNT, .get = flop_get, \
    .text = flop_text, .arg = base_ + 0, .pos = { 0, 0, 0, 1 }, \
    .tooltip = N_("Floating-point operations, by PyTorch's flop counter's formulas from the input shapes") }, \
  { .key = "tflops", .title = N_("TFLOP/s"), .metric = -1, .unit = KS_REPORT_UNIT_COUNT, .decimals = 2, \
    .get = flop_get, .arg = base_ + 1, .pos = { 0, 0, 0, 2 } }, \
  { .key = "intensity", .title = N_("FLOP/byte"), .metric = -1, .unit = KS_REPORT_UNIT_COUNT, .decimals = 1, \
    .get = flop_get, .arg = base_ + 2, .pos = { 0, 0, 0, 3 }, \
    .tooltip = N_("Arithmetic intensity: FLOPs per byte moved") }, \
  { .key = "peak_pct", .title = N_("Of peak"), .metric = -1, .unit = KS_REPORT_UNIT_PERCENT, .decimals = 1, \
    .get = flop_get, .arg = base_ + 3, .pos = { 0, 0, 0, 4 }, \
    .tooltip = N_("Of the roof at its intensity: the GPU's peak for its type when compute-bound, " \
                  "its memory bandwidth when memory-bound") }, \
  { .key = "bound", .title = N_("Bound"), .metric = -1, .unit = KS_REPORT_UNIT_TEXT, .get = flop_get, \
    .text = flop_text, .arg = base_ + 4, .pos = { 0, 0, 0, 5 }, \
    .tooltip = N_("Compute-bound when its intensity is at or past the ridge point, else memory-bound") }

static const KsReportColumn operator_flop_columns[] = { FLOP_COLUMNS (0) };
static const KsReportColumn kernel_flop_columns[] = { FLOP_COLUMNS (100) };

const KsReportColumn *
ks_report_operator_flop_columns (guint *n)
{
  *n = G_N_ELEMENTS (operator_flop_columns);
  return operator_flop_columns;
}

const KsReportColumn *
ks_report_kernel_flop_columns (guint *n)
{
  *n = G_N_ELEMENTS (kernel_flop_columns);
  return kernel_flop_columns;
}

void
ks_report_set_roofline (KsReport   *report,
                        KsRoofline *roofline)
{
  g_set_object (&report->owner, G_OBJECT (roofline));
}

KsReport *
ks_report_new_roofline_operators (KsRoofline *roofline,
                                  KsAnalysis *analysis,
                                  gboolean    by_shape)
{
  guint n;
  const KsRooflineRow *rows = ks_roofline_get_operators (roofline, by_shape, &n);
  KsReport *r = ks_report_new_for_rows (ks_roofline_get_trace (roofline), analysis, G_OBJECT (roofline), "operators",
                                        roofline_columns, G_N_ELEMENTS (roofline_columns), rows, n);

  r->by_shape = by_shape;
  if (!by_shape)
    for (guint f = 0; f < KS_REPORT_N_FORMATS; f++)
      r->hidden[f] |= G_GUINT64_CONSTANT (1) << (G_N_ELEMENTS (roofline_columns) - 1);
  return r;
}

KsReport *
ks_report_new_roofline_kernels (KsRoofline *roofline,
                                KsAnalysis *analysis)
{
  guint n;
  const KsRooflineRow *rows = ks_roofline_get_kernels (roofline, &n);
  KsReport *r = ks_report_new_for_rows (ks_roofline_get_trace (roofline), analysis, G_OBJECT (roofline), "kernels",
                                        roofline_columns, G_N_ELEMENTS (roofline_columns), rows, n);

  for (guint f = 0; f < KS_REPORT_N_FORMATS; f++)
    r->hidden[f] |= G_GUINT64_CONSTANT (1) << (G_N_ELEMENTS (roofline_columns) - 1);
  return r;
}

KsReport *
ks_report_new_roofline_steps (KsRoofline *roofline,
                              KsAnalysis *analysis)
{
  guint n;
  const KsRooflineStep *rows = ks_roofline_get_steps (roofline, &n);

  return ks_report_new_for_rows (ks_roofline_get_trace (roofline), analysis, G_OBJECT (roofline), "steps",
                                 step_columns, G_N_ELEMENTS (step_columns), rows, n);
}

void
ks_report_write_roofline_peak (KsRoofline   *roofline,
                               KsJsonWriter *json)
{
  const KsPeak *peak = ks_roofline_get_peak (roofline);

  ks_json_begin_object (json, "peak");
  ks_json_string (json, "device", *peak->device ? peak->device : NULL);
  ks_json_begin_object (json, "tflops");
  for (guint d = 1; d < KS_N_DTYPES; d++)
    if (peak->tflops[d] > 0)
      ks_json_double (json, ks_dtype_to_string (d), peak->tflops[d], 2);
  ks_json_end_object (json);
  if (peak->gbps > 0)
    ks_json_double (json, "gbps", peak->gbps, 1);
  else
    ks_json_null (json, "gbps");
  ks_json_end_object (json);
}
