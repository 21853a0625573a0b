/* ks-report-gaps.c: gaps, their causes, samples and advice as reports
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

/* Gaps */

#define GAP(r, i) (&((const KsGap *)(r)->rows)[i])

static char *
thread_label (KsTrace *trace,
              guint32  thread)
{
  const KsThread *th;

  if (thread >= trace->n_threads)
    return g_strdup ("");
  th = &trace->threads[thread];
  if (th->name != 0)
    return g_strdup_printf ("%s (%" G_GINT64_FORMAT ")", ks_trace_string (trace, th->name), th->tid);
  return g_strdup_printf ("%" G_GINT64_FORMAT, th->tid);
}

static void
gap_get (const KsReport       *r,
         const KsReportColumn *c,
         guint                 i,
         KsReportValue        *v)
{
  const KsGap *g = GAP (r, i);

  switch (c->arg)
    {
    case 0: set_int (v, g->device); break;
    case 1: set_int (v, g->start); break;
    case 2: set_int (v, g->end); break;
    case 3: set_int (v, g->end - g->start); break;
    case 4: set_string (v, ks_gap_class_to_string (g->klass)); break;
    case 5: set_string (v, ks_gap_cause_to_string (g->cause)); break;
    case 6:
      take_string (v, ks_gap_cause_format_name (r->trace, g->cause, g->cause_name, g->cause_track, g->cause_slice));
      break;
    case 7: take_string (v, thread_label (r->trace, g->thread)); break;
    /* What people read: the cause and the name of its slice */
    case 8:
      {
        g_autofree char *cause = ks_gap_cause_format (r->trace, g->cause, g->cause_name, g->cause_track,
                                                      g->cause_slice);
        g_autofree char *meanwhile = ks_gap_format_meanwhile (r->trace, g);

        /* the row itself says where the time went when the thread waited */
        if (meanwhile != NULL)
          /* TRANSLATORS: a gap's cause, then what another thread did: "Synchronization: cudaStreamSynchronize; meanwhile cuLibraryLoadData on pt_autograd_0 (4242)" */
          take_string (v, g_strdup_printf (_("%s; meanwhile %s"), cause, meanwhile));
        else
          take_string (v, g_steal_pointer (&cause));
      }
      break;
    case 9:
      {
        char *meanwhile = ks_gap_format_meanwhile (r->trace, g);

        if (meanwhile != NULL)
          take_string (v, meanwhile);
      }
      break;
    default: g_assert_not_reached ();
    }
}

static char *
gap_class_text (const KsReport       *r,
                const KsReportColumn *c,
                guint                 i)
{
  return g_strdup (ks_gap_class_get_title (GAP (r, i)->klass));
}

/* Gaps of several GPUs can start together. */
static int
gap_start_compare (const KsReport       *r,
                   const KsReportColumn *c,
                   guint                 a,
                   guint                 b)
{
  const KsGap *ga = GAP (r, a);
  const KsGap *gb = GAP (r, b);
  int cmp = CMP (ga->start, gb->start);

  return cmp != 0 ? cmp : CMP (ga->device, gb->device);
}

/* Equal lengths stay in time order when the longest come first, the
 * Gaps page's order. */
static int
gap_duration_compare (const KsReport       *r,
                      const KsReportColumn *c,
                      guint                 a,
                      guint                 b)
{
  const KsGap *ga = GAP (r, a);
  const KsGap *gb = GAP (r, b);
  int cmp = CMP (ga->end - ga->start, gb->end - gb->start);

  return cmp != 0 ? cmp : -gap_start_compare (r, c, a, b);
}

/* Classes in their own order, not that of their names. */
static int
gap_class_compare (const KsReport       *r,
                   const KsReportColumn *c,
                   guint                 a,
                   guint                 b)
{
  return CMP (GAP (r, a)->klass, GAP (r, b)->klass);
}

#define GAP_COL(k_, title_, tooltip_, metric_, unit_, a_, table_, machine_, page_, width_, compare_) \
  { .key = k_, .title = title_, .tooltip = tooltip_, .metric = metric_, .unit = unit_, .get = gap_get, \
    .compare = compare_, .arg = a_, .pos = { table_, machine_, machine_, page_ }, .width = width_ }

/* The Gaps page leads with what it sorts by: the duration, the start. */
static const KsReportColumn gap_columns[] = {
  GAP_COL ("device", N_("GPU"), NULL, -1, KS_REPORT_UNIT_COUNT, 0, 1, 1, 5, 3, NULL),
  GAP_COL ("start_ns", N_("Start"), N_("When the GPU went idle"), -1, KS_REPORT_UNIT_DURATION, 1, 2, 2, 2, 12,
           gap_start_compare),
  GAP_COL ("end_ns", N_("End"), NULL, -1, KS_REPORT_UNIT_DURATION, 2, 0, 3, 0, 0, NULL),
  GAP_COL ("dur_ns", N_("Duration"), NULL, KS_METRIC_GAP, KS_REPORT_UNIT_DURATION, 3, 3, 4, 1, 11,
           gap_duration_compare),
  { .key = "class", .title = N_("Class"), .metric = -1, .unit = KS_REPORT_UNIT_TEXT, .get = gap_get,
    .text = gap_class_text, .compare = gap_class_compare, .arg = 4, .pos = { 4, 5, 5, 3 }, .width = 12,
    .flags = KS_REPORT_COLUMN_LEFT },
  GAP_COL ("cause", N_("Cause"), NULL, -1, KS_REPORT_UNIT_TEXT, 5, 0, 6, 0, 0, NULL),
  GAP_COL ("cause_name", N_("Cause Name"), NULL, -1, KS_REPORT_UNIT_TEXT, 6, 0, 7, 0, 0, NULL),
  GAP_COL ("thread", N_("Thread"), NULL, -1, KS_REPORT_UNIT_TEXT, 7, 0, 8, 0, 0, NULL),
  { .key = "cpu_was_in", .title = N_("CPU Was In"), .abbrev = N_("CPU was in"), .metric = KS_METRIC_GAP_CAUSE,
    .unit = KS_REPORT_UNIT_TEXT, .get = gap_get, .arg = 8, .pos = { 5, 0, 0, 4 }, .flags = KS_REPORT_COLUMN_LEFT },
  GAP_COL ("meanwhile", N_("Meanwhile"), N_("What another thread of the process, or a DataLoader worker, did while the launching thread waited"),
           -1, KS_REPORT_UNIT_TEXT, 9, 0, 9, 0, 0, NULL),
};

#define CAUSE(r, i) (&((const KsGapCauseTotal *)(r)->rows)[i])

static void
cause_get (const KsReport       *r,
           const KsReportColumn *c,
           guint                 i,
           KsReportValue        *v)
{
  const KsGapCauseTotal *t = CAUSE (r, i);

  switch (c->arg)
    {
    case 0: set_string (v, ks_gap_cause_to_string (t->cause)); break;
    case 1: take_string (v, ks_gap_cause_format_name (r->trace, t->cause, t->name, t->track, t->slice)); break;
    case 2: set_int (v, t->count); break;
    case 3: set_int (v, t->total_ns); break;
    case 4: set_int (v, t->largest_ns); break;
    case 5: take_string (v, ks_gap_cause_format (r->trace, t->cause, t->name, t->track, t->slice)); break;
    default: g_assert_not_reached ();
    }
}

#define C_COL(k_, title_, unit_, a_, table_, json_, width_) \
  { .key = k_, .title = title_, .metric = -1, .unit = unit_, .get = cause_get, .arg = a_, \
    .pos = { table_, 0, json_ }, .width = width_ }

static const KsReportColumn cause_columns[] = {
  C_COL ("cause", N_("Cause"), KS_REPORT_UNIT_TEXT, 0, 0, 1, 0),
  C_COL ("name", N_("Name"), KS_REPORT_UNIT_TEXT, 1, 0, 2, 0),
  C_COL ("count", N_("Gaps"), KS_REPORT_UNIT_COUNT, 2, 1, 3, 6),
  C_COL ("total_ns", N_("Total"), KS_REPORT_UNIT_DURATION, 3, 2, 4, 11),
  C_COL ("largest_ns", N_("Largest"), KS_REPORT_UNIT_DURATION, 4, 3, 5, 11),
  C_COL ("title", N_("Cause"), KS_REPORT_UNIT_TEXT, 5, 4, 0, 0),
};

/* Sampled stacks: frames per thread by self and total samples */

#define SAMPLE(r, i) (&((const KsSampleStats *)(r)->rows)[i])

static void
sample_get (const KsReport       *r,
            const KsReportColumn *c,
            guint                 i,
            KsReportValue        *v)
{
  const KsSampleStats *st = SAMPLE (r, i);

  switch (c->arg)
    {
    case 0:
      {
        const KsThread *th = &r->trace->threads[st->thread];

        if (th->name != 0)
          set_string (v, str (r, th->name));
        else if (th->original != 0)
          set_string (v, str (r, th->original));
        else
          take_string (v, g_strdup_printf ("%" G_GINT64_FORMAT, th->tid));
      }
      break;
    case 1: set_string (v, str (r, st->function)); break;
    case 2: set_string (v, str (r, st->file)); break;
    case 3: set_int (v, st->line); break;
    case 4: set_int (v, st->self); break;
    case 5: set_int (v, st->total); break;
    case 6: set_int (v, r->trace->threads[st->thread].tid); break;
    case 7: set_int (v, st->waiting); break;
    default: g_assert_not_reached ();
    }
}

/* the text table has the thread id beside its name; CSV and JSON add
 * it last, after the columns they always had */
#define S_COL(k_, title_, unit_, a_, table_, machine_, width_, flags_) \
  { .key = k_, .title = title_, .metric = -1, .unit = unit_, .get = sample_get, .arg = a_, \
    .pos = { table_, machine_, machine_ }, .width = width_, .flags = flags_ }

static const KsReportColumn sample_columns[] = {
  S_COL ("thread", N_("Thread"), KS_REPORT_UNIT_TEXT, 0, 1, 1, 18, KS_REPORT_COLUMN_LEFT),
  S_COL ("tid", N_("TID"), KS_REPORT_UNIT_COUNT, 6, 2, 8, 8, 0),
  S_COL ("function", N_("Function"), KS_REPORT_UNIT_TEXT, 1, 3, 2, 28, KS_REPORT_COLUMN_LEFT),
  S_COL ("file", N_("File"), KS_REPORT_UNIT_TEXT, 2, 4, 3, 28, KS_REPORT_COLUMN_LEFT),
  S_COL ("line", N_("Line"), KS_REPORT_UNIT_COUNT, 3, 5, 4, 6, 0),
  S_COL ("self", N_("Self"), KS_REPORT_UNIT_COUNT, 4, 6, 5, 8, 0),
  S_COL ("total", N_("Total"), KS_REPORT_UNIT_COUNT, 5, 7, 6, 8, 0),
  /* samples taken while the thread waited, which self and total leave out */
  S_COL ("waiting", N_("Waiting"), KS_REPORT_UNIT_COUNT, 7, 8, 7, 0, 0),
};

/* Advice */

#define ADVICE(r, i) (&((const KsAdvice *)(r)->rows)[i])

static void
advice_get (const KsReport       *r,
            const KsReportColumn *c,
            guint                 i,
            KsReportValue        *v)
{
  const KsAdvice *a = ADVICE (r, i);

  switch (c->arg)
    {
    case 0: set_string (v, a->rule); break;
    case 1: set_string (v, a->title); break;
    case 2: set_string (v, a->text); break;
    case 3: set_string (v, a->evidence); break;
    case 4: set_int (v, a->device); break;
    case 5:
      v->type = KS_REPORT_VALUE_RANGES;
      v->ranges = a->ranges;
      v->n_ranges = a->n_ranges;
      break;
    case 6: set_double (v, a->value); break;
    default: g_assert_not_reached ();
    }
}

#define AD_COL(k_, unit_, a_, csv_, json_, flags_) \
  { .key = k_, .metric = -1, .unit = unit_, .get = advice_get, .arg = a_, .pos = { 0, csv_, json_ }, \
    .flags = flags_ }

static const KsReportColumn advice_columns[] = {
  AD_COL ("rule", KS_REPORT_UNIT_TEXT, 0, 1, 1, 0),
  AD_COL ("title", KS_REPORT_UNIT_TEXT, 1, 3, 2, 0),
  AD_COL ("text", KS_REPORT_UNIT_TEXT, 2, 4, 3, 0),
  AD_COL ("evidence", KS_REPORT_UNIT_TEXT, 3, 5, 4, 0),
  AD_COL ("device", KS_REPORT_UNIT_COUNT, 4, 2, 5, KS_REPORT_COLUMN_OMIT_NEGATIVE),
  AD_COL ("ranges", KS_REPORT_UNIT_RANGES, 5, 0, 6, 0),
  AD_COL ("value", KS_REPORT_UNIT_COUNT, 6, 6, 7, 0),
};

/* Reports */

const KsReportColumn *
ks_report_gap_columns (guint *n)
{
  *n = G_N_ELEMENTS (gap_columns);
  return gap_columns;
}

KsReport *
ks_report_new_gaps (KsTrace    *trace,
                    KsAnalysis *analysis)
{
  guint n;
  const KsGap *rows = ks_analysis_get_gaps (analysis, &n);
  KsReport *r = NEW ("gaps", gap_columns, rows, n);

  /* Largest first */
  r->order = ks_analysis_get_gaps_by_duration (analysis, NULL);
  return r;
}

KsReport *
ks_report_new_gap_causes (KsTrace    *trace,
                          KsAnalysis *analysis)
{
  guint n;
  const KsGapCauseTotal *rows = ks_analysis_get_gap_causes (analysis, &n);

  return NEW ("causes", cause_columns, rows, n);
}

KsReport *
ks_report_new_samples (KsTrace    *trace,
                       KsAnalysis *analysis)
{
  guint n;
  const KsSampleStats *rows = ks_analysis_get_sample_stats (analysis, &n);

  return NEW ("samples", sample_columns, rows, n);
}

KsReport *
ks_report_new_advice (KsTrace    *trace,
                      KsAnalysis *analysis)
{
  guint n;
  const KsAdvice *rows = ks_analysis_get_advice (analysis, &n);

  return NEW ("advice", advice_columns, rows, n);
}
