/* ks-report-activity.c: the GPU's activity counters as report lists
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-report"

/* Per GPU and per step: mean SM activity and tensor activity (GPM)
 * beside busy time, for stats, its JSON and CSV, and the pages. */

#include "config.h"

#include <glib/gi18n.h>

#include "ks-report.h"

static void
set_pct (KsReportValue *v,
         double         pct)
{
  if (pct >= 0)
    ks_report_value_set_double (v, pct);
}

static const char *
source_text (KsBusySource source)
{
  switch (source)
    {
    case KS_BUSY_KERNELS: return "kernels";
    case KS_BUSY_UTILIZATION: return "utilization";
    case KS_BUSY_NONE:
    default: return NULL;
    }
}

#define ACTIVITY(r, i) (&((const KsGpuActivity *)(r)->rows)[i])

static void
activity_get (const KsReport       *r,
              const KsReportColumn *c,
              guint                 i,
              KsReportValue        *v)
{
  const KsGpuActivity *a = ACTIVITY (r, i);

  switch (c->arg)
    {
    case 0: ks_report_value_set_int (v, a->device); break;
    case 1: ks_report_value_set_string (v, a->name != 0 ? ks_trace_string (r->trace, a->name) : NULL); break;
    case 2: ks_report_value_set_int (v, a->n_samples); break;
    case 3: ks_report_value_set_int (v, a->end - a->start); break;
    case 4: set_pct (v, a->busy_pct); break;
    case 5: ks_report_value_set_string (v, source_text (a->busy_source)); break;
    case 6: set_pct (v, a->sm_active_pct); break;
    case 7: set_pct (v, a->tensor_active_pct); break;
    default: g_assert_not_reached ();
    }
}

#define A_COL(k_, t_, ab_, unit_, a_, tab_, csv_, json_, page_, w_, fl_) \
  { .key = k_, .title = t_, .abbrev = ab_, .metric = -1, .unit = unit_, .decimals = 1, .get = activity_get, \
    .arg = a_, .pos = { tab_, csv_, json_, page_ }, .width = w_, .flags = fl_ }

static const KsReportColumn activity_columns[] = {
  A_COL ("device", N_("GPU"), NULL, KS_REPORT_UNIT_COUNT, 0, 1, 1, 1, 1, 3, 0),
  A_COL ("samples", N_("GPM Samples"), N_("Samples"), KS_REPORT_UNIT_COUNT, 2, 2, 3, 3, 0, 8, 0),
  A_COL ("duration_ns", N_("Duration"), NULL, KS_REPORT_UNIT_DURATION, 3, 3, 4, 4, 0, 11, 0),
  A_COL ("busy_pct", N_("Busy"), NULL, KS_REPORT_UNIT_PERCENT, 4, 4, 5, 5, 2, 7, 0),
  A_COL ("sm_active_pct", N_("SM Activity"), N_("SM act"), KS_REPORT_UNIT_PERCENT, 6, 5, 6, 6, 3, 7, 0),
  A_COL ("tensor_active_pct", N_("Tensor Activity"), N_("Tensor"), KS_REPORT_UNIT_PERCENT, 7, 6, 7, 7, 4, 7, 0),
  A_COL ("busy_source", N_("Busy From"), N_("From"), KS_REPORT_UNIT_TEXT, 5, 7, 8, 8, 5, 12,
         KS_REPORT_COLUMN_LEFT),
  A_COL ("name", N_("Name"), NULL, KS_REPORT_UNIT_TEXT, 1, 8, 2, 2, 6, 0, KS_REPORT_COLUMN_LEFT),
};

KsReport *
ks_report_new_gpu_activity (KsTrace    *trace,
                            KsAnalysis *analysis)
{
  guint n;
  const KsGpuActivity *rows = ks_analysis_get_gpu_activity (analysis, &n);

  return ks_report_new_for_rows (trace, analysis, NULL, "gpu_activity", activity_columns,
                                 G_N_ELEMENTS (activity_columns), rows, n);
}

#define STEP(r, i) (&((const KsStepActivity *)(r)->rows)[i])

static void
step_get (const KsReport       *r,
          const KsReportColumn *c,
          guint                 i,
          KsReportValue        *v)
{
  const KsStepActivity *a = STEP (r, i);
  guint n_steps;
  const KsStep *steps = ks_analysis_get_steps (r->analysis, &n_steps);

  switch (c->arg)
    {
    case 0:
      ks_report_value_set_string (v, a->step < n_steps ? ks_trace_string (r->trace, steps[a->step].name) : NULL);
      break;
    case 1: ks_report_value_set_int (v, a->device); break;
    case 2: set_pct (v, a->busy_pct); break;
    case 3: set_pct (v, a->sm_active_pct); break;
    case 4: set_pct (v, a->tensor_active_pct); break;
    default: g_assert_not_reached ();
    }
}

#define S_COL(k_, t_, ab_, unit_, a_, tab_, csv_, json_, page_, w_, fl_) \
  { .key = k_, .title = t_, .abbrev = ab_, .metric = -1, .unit = unit_, .decimals = 1, .get = step_get, \
    .arg = a_, .pos = { tab_, csv_, json_, page_ }, .width = w_, .flags = fl_ }

static const KsReportColumn step_columns[] = {
  S_COL ("device", N_("GPU"), NULL, KS_REPORT_UNIT_COUNT, 1, 1, 2, 2, 2, 3, 0),
  S_COL ("kernel_pct", N_("Kernels"), NULL, KS_REPORT_UNIT_PERCENT, 2, 2, 3, 3, 3, 7, 0),
  S_COL ("sm_active_pct", N_("SM Activity"), N_("SM act"), KS_REPORT_UNIT_PERCENT, 3, 3, 4, 4, 4, 7, 0),
  S_COL ("tensor_active_pct", N_("Tensor Activity"), N_("Tensor"), KS_REPORT_UNIT_PERCENT, 4, 4, 5, 5, 5, 7, 0),
  S_COL ("step", N_("Step"), NULL, KS_REPORT_UNIT_TEXT, 0, 5, 1, 1, 1, 0, KS_REPORT_COLUMN_LEFT),
};

KsReport *
ks_report_new_step_activity (KsTrace    *trace,
                             KsAnalysis *analysis)
{
  guint n;
  const KsStepActivity *rows = ks_analysis_get_step_activity (analysis, &n);

  return ks_report_new_for_rows (trace, analysis, NULL, "step_activity", step_columns,
                                 G_N_ELEMENTS (step_columns), rows, n);
}
