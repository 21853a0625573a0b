/* ks-report-operators.c: operators, stacks and annotations as reports
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-report"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "ks-format.h"
#include "ks-report-private.h"

/* Operators by Python call stack */

#define OPSTACK(r, i) (&((const KsOperatorStack *)(r)->rows)[i])

/* Outermost frame first, as a traceback reads. */
static char *
stack_text (const KsReport        *r,
            const KsOperatorStack *o)
{
  GString *s = g_string_new (NULL);

  for (guint k = o->n_frames; k-- > 0;)
    {
      g_string_append (s, str (r, o->frames[k]));
      if (k > 0)
        g_string_append (s, " › ");
    }
  return g_string_free (s, FALSE);
}

static void
operator_stack_get (const KsReport       *r,
                    const KsReportColumn *c,
                    guint                 i,
                    KsReportValue        *v)
{
  const KsOperatorStack *o = OPSTACK (r, i);

  switch (c->arg)
    {
    case 0: set_string (v, str (r, o->name)); break;
    case 1: take_string (v, stack_text (r, o)); break;
    case 2: set_int (v, o->calls); break;
    case 3: set_int (v, o->host_total_ns); break;
    case 4: set_int (v, o->device_total_ns); break;
    default: g_assert_not_reached ();
    }
}

#define OS_COL(k_, title_, metric_, unit_, a_, table_, machine_, width_, flags_) \
  { .key = k_, .title = title_, .metric = metric_, .unit = unit_, .get = operator_stack_get, \
    .arg = a_, .pos = { table_, machine_, machine_ }, .width = width_, .flags = flags_ }

static const KsReportColumn operator_stack_columns[] = {
  OS_COL ("name", N_("Operator"), -1, KS_REPORT_UNIT_TEXT, 0, 4, 1, 32, KS_REPORT_COLUMN_LEFT),
  OS_COL ("stack", N_("Call Stack"), -1, KS_REPORT_UNIT_TEXT, 1, 5, 2, 0, KS_REPORT_COLUMN_LEFT),
  OS_COL ("calls", N_("Calls"), -1, KS_REPORT_UNIT_COUNT, 2, 1, 3, 7, 0),
  OS_COL ("host_total_ns", NULL, KS_METRIC_HOST_TOTAL, KS_REPORT_UNIT_DURATION, 3, 2, 4, 11, 0),
  OS_COL ("device_total_ns", NULL, KS_METRIC_DEVICE_TOTAL, KS_REPORT_UNIT_DURATION, 4, 3, 5, 11, 0),
};

/* GPU user annotations */

#define ANNOTATION(r, i) (&((const KsGpuAnnotationStats *)(r)->rows)[i])

static void
annotation_get (const KsReport       *r,
                const KsReportColumn *c,
                guint                 i,
                KsReportValue        *v)
{
  const KsGpuAnnotationStats *a = ANNOTATION (r, i);

  switch (c->arg)
    {
    case 0: set_int (v, a->device); break;
    case 1: set_string (v, str (r, a->name)); break;
    case 2: set_int (v, a->count); break;
    case 3: set_int (v, a->total_ns); break;
    case 4: set_int (v, a->span_ns); break;
    case 5: set_int (v, a->kernel_ns); break;
    default: g_assert_not_reached ();
    }
}

#define AN_COL(...) PLAIN_COL (annotation_get, __VA_ARGS__)

static const KsReportColumn annotation_columns[] = {
  AN_COL ("device", N_("GPU"), KS_REPORT_UNIT_COUNT, 0, 1, 1, 3, 0),
  AN_COL ("name", N_("Annotation"), KS_REPORT_UNIT_TEXT, 1, 6, 2, 0, KS_REPORT_COLUMN_LEFT),
  AN_COL ("count", N_("Count"), KS_REPORT_UNIT_COUNT, 2, 2, 3, 7, 0),
  AN_COL ("total_ns", N_("Total"), KS_REPORT_UNIT_DURATION, 3, 3, 4, 11, 0),
  AN_COL ("span_ns", N_("Union"), KS_REPORT_UNIT_DURATION, 4, 4, 5, 11, 0),
  AN_COL ("kernel_ns", N_("Kernel Busy"), KS_REPORT_UNIT_DURATION, 5, 5, 6, 11, 0),
};

/* Operators */

static void
operator_get (const KsReport       *r,
              const KsReportColumn *c,
              guint                 i,
              KsReportValue        *v)
{
  const KsOperatorStats *o = OPERATOR (r, i);

  switch (c->arg)
    {
    case 0: set_string (v, str (r, o->name)); break;
    case 1: set_string (v, o->input_dims); break;
    case 2: set_int (v, o->calls); break;
    case 3: set_int (v, o->host_total_ns); break;
    case 4: set_int (v, o->host_self_ns); break;
    case 5: set_int (v, o->device_total_ns); break;
    case 6: set_int (v, o->device_self_ns); break;
    /* absent for operators none of whose calls has a thread time */
    case 7:
      if (o->thread_calls > 0)
        set_int (v, o->thread_total_ns);
      break;
    case 8: v->type = KS_REPORT_VALUE_BOOL; v->i = o->tc_eligible; break;
    case 9:
      if (o->device_total_ns > 0)
        set_double (v, (double)o->device_tc_total_ns / o->device_total_ns);
      break;
    case 10: set_int (v, o->merged_calls); break;
    default: g_assert_not_reached ();
    }
}

/* The text table has no room for a column of shapes: they follow the name. */
static char *
operator_name_text (const KsReport       *r,
                    const KsReportColumn *c,
                    guint                 i)
{
  const KsOperatorStats *o = OPERATOR (r, i);

  if (r->by_shape && o->input_dims != NULL && o->input_dims[0])
    return g_strdup_printf ("%s %s", str (r, o->name), o->input_dims);
  return g_strdup (str (r, o->name));
}

/* The page shows the columns in their CSV order. */
#define O_COL(k_, title_, abbrev_, metric_, unit_, a_, table_, csv_, json_, width_) \
  { .key = k_, .title = title_, .abbrev = abbrev_, .metric = metric_, .unit = unit_, .get = operator_get, \
    .arg = a_, .pos = { table_, csv_, json_, csv_ }, .width = width_ }

static const KsReportColumn operator_columns[] = {
  { .key = "name", .title = N_("Operator"), .metric = -1, .unit = KS_REPORT_UNIT_TEXT, .get = operator_get,
    .arg = 0, .pos = { 0, 1, 1, 1 }, .flags = KS_REPORT_COLUMN_LEFT },
  { .key = "input_dims", .title = N_("Input Shapes"), .metric = -1, .unit = KS_REPORT_UNIT_TEXT,
    .get = operator_get, .arg = 1, .pos = { 0, 2, 2, 2 }, .flags = KS_REPORT_COLUMN_LEFT },
  O_COL ("calls", N_("Calls"), NULL, -1, KS_REPORT_UNIT_COUNT, 2, 1, 3, 3, 7),
  O_COL ("host_total_ns", NULL, N_("Host total"), KS_METRIC_HOST_TOTAL, KS_REPORT_UNIT_DURATION,
         3, 2, 4, 4, 11),
  O_COL ("host_self_ns", NULL, N_("Host self"), KS_METRIC_HOST_SELF, KS_REPORT_UNIT_DURATION,
         4, 3, 5, 5, 11),
  O_COL ("device_total_ns", NULL, N_("Dev. total"), KS_METRIC_DEVICE_TOTAL, KS_REPORT_UNIT_DURATION,
         5, 4, 6, 6, 11),
  O_COL ("device_self_ns", NULL, N_("Dev. self"), KS_METRIC_DEVICE_SELF, KS_REPORT_UNIT_DURATION,
         6, 5, 7, 7, 11),
  /* Thread time (CPU time) of the calls that have it: trace-event files
   * with "tts"/"tdur"; left out of the table, the JSON and the page of a
   * trace without (see ks_report_new_operators()) */
  { .key = "host_thread_ns", .title = N_("CPU time"), .abbrev = N_("CPU time"),
    .tooltip = N_("Thread time (CPU time) of the calls, beside their wall time (Host total): "
                  "only calls whose events carry a thread time (\"tdur\" or \"tts\") count"),
    .metric = -1, .unit = KS_REPORT_UNIT_DURATION, .get = operator_get, .arg = 7,
    .pos = { 6, 8, 8, 8 }, .width = 11 },
  { .key = "label", .title = N_("Operator"), .metric = -1, .unit = KS_REPORT_UNIT_TEXT, .get = operator_get,
    .text = operator_name_text, .arg = 0, .pos = { 7, 0, 0, 0 }, .flags = KS_REPORT_COLUMN_LEFT },
  /* the page only: the tensor-cores report has them for the CLI */
  { .key = "tc_eligible", .title = N_("TC Eligible"), .metric = KS_METRIC_TENSOR_CORES, .unit = KS_REPORT_UNIT_BOOL,
    .get = operator_get, .arg = 8, .pos = { 0, 0, 0, 9 } },
  { .key = "tc_total_ratio", .title = N_("TC Total"), .tooltip = N_("Share of the device total time in tensor-core kernels"),
    .metric = KS_METRIC_TENSOR_CORES, .unit = KS_REPORT_UNIT_RATIO, .decimals = 1, .get = operator_get, .arg = 9,
    .pos = { 0, 0, 0, 10 } },
  /* JSON only: with calls, every row of the name in the trace */
  { .key = "merged_calls", .title = N_("Merged Calls"), .metric = -1, .unit = KS_REPORT_UNIT_COUNT,
    .get = operator_get, .arg = 10, .pos = { 0, 0, 9, 0 } },
};

/* Reports */

const KsReportColumn *
ks_report_gpu_annotation_columns (guint *n)
{
  *n = G_N_ELEMENTS (annotation_columns);
  return annotation_columns;
}

const KsReportColumn *
ks_report_operator_columns (guint *n)
{
  *n = G_N_ELEMENTS (operator_columns);
  return operator_columns;
}

gboolean
ks_report_has_thread_time (const KsReport *report)
{
  if (report->columns != operator_columns)
    return FALSE;
  for (guint i = 0; i < report->n_rows; i++)
    if (OPERATOR (report, i)->thread_calls > 0)
      return TRUE;
  return FALSE;
}

KsReport *
ks_report_new_operators (KsTrace    *trace,
                         KsAnalysis *analysis,
                         gboolean    by_shape)
{
  guint n;
  const KsOperatorStats *rows = ks_analysis_get_operators (analysis,
                                                           by_shape ? KS_OPERATOR_BY_NAME_AND_SHAPE
                                                                    : KS_OPERATOR_BY_NAME, &n);
  KsReport *r = NEW ("operators", operator_columns, rows, n);

  r->by_shape = by_shape;
  /* Grouped by name there are no shapes; CSV keeps its columns fixed. */
  if (!by_shape)
    r->hidden[JSON] |= 1 << 1;
  if (!ks_report_has_thread_time (r))
    {
      r->hidden[KS_REPORT_TABLE] |= 1 << 7;
      r->hidden[JSON] |= 1 << 7;
      r->hidden[KS_REPORT_PAGE] |= 1 << 7;
    }
  return r;
}

KsReport *
ks_report_new_operator_stacks (KsTrace    *trace,
                               KsAnalysis *analysis)
{
  guint n;
  const KsOperatorStack *rows = ks_analysis_get_operator_stacks (analysis, &n);

  return NEW ("operators", operator_stack_columns, rows, n);
}

KsReport *
ks_report_new_gpu_annotations (KsTrace    *trace,
                               KsAnalysis *analysis)
{
  guint n;
  const KsGpuAnnotationStats *rows = ks_analysis_get_gpu_annotations (analysis, &n);

  return NEW ("annotations", annotation_columns, rows, n);
}
