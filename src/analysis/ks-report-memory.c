/* ks-report-memory.c: memory curves, per operator and allocations as reports
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

/* Memory: the curves of each device, and the allocations */

#define CURVE(r, i) (&((const KsMemoryCurve *)(r)->rows)[i])

static void
curve_get (const KsReport       *r,
           const KsReportColumn *c,
           guint                 i,
           KsReportValue        *v)
{
  const KsMemoryCurve *m = CURVE (r, i);

  switch (c->arg)
    {
    case 0: set_int (v, m->device); break;
    case 1: set_int (v, m->n_points); break;
    case 2: set_int (v, m->peak_allocated); break;
    case 3: set_int (v, m->peak_allocated_ts); break;
    case 4: set_string (v, str (r, m->peak_operator)); break;
    case 5: set_int (v, m->peak_reserved); break;
    case 6: set_int (v, m->peak_reserved_ts); break;
    case 7: set_int (v, m->total_memory); break;
    case 8: set_int (v, m->peak_unused); break;
    case 9: set_int (v, m->peak_unused_ts); break;
    default: g_assert_not_reached ();
    }
}

#define M_COL(k_, unit_, a_) \
  { .key = k_, .metric = -1, .unit = unit_, .get = curve_get, .arg = a_, .pos = { 0, 0, a_ + 1 } }

static const KsReportColumn curve_columns[] = {
  M_COL ("device", KS_REPORT_UNIT_COUNT, 0),
  M_COL ("points", KS_REPORT_UNIT_COUNT, 1),
  M_COL ("peak_allocated", KS_REPORT_UNIT_BYTES, 2),
  M_COL ("peak_allocated_ns", KS_REPORT_UNIT_DURATION, 3),
  M_COL ("peak_operator", KS_REPORT_UNIT_TEXT, 4),
  M_COL ("peak_reserved", KS_REPORT_UNIT_BYTES, 5),
  M_COL ("peak_reserved_ns", KS_REPORT_UNIT_DURATION, 6),
  M_COL ("total_memory", KS_REPORT_UNIT_BYTES, 7),
  M_COL ("peak_unused", KS_REPORT_UNIT_BYTES, 8),
  M_COL ("peak_unused_ns", KS_REPORT_UNIT_DURATION, 9),
};

/* Memory per operator */

#define OPMEM(r, i) (&((const KsOperatorMemory *)(r)->rows)[i])

static void
operator_memory_get (const KsReport       *r,
                     const KsReportColumn *c,
                     guint                 i,
                     KsReportValue        *v)
{
  const KsOperatorMemory *o = OPMEM (r, i);

  switch (c->arg)
    {
    case 0: set_string (v, str (r, o->name)); break;
    case 1: set_int (v, o->count); break;
    case 2: set_int (v, o->bytes); break;
    case 3: set_int (v, o->self_count); break;
    case 4: set_int (v, o->self_bytes); break;
    default: g_assert_not_reached ();
    }
}

#define OM_COL(...) PLAIN_COL (operator_memory_get, __VA_ARGS__)

static const KsReportColumn operator_memory_columns[] = {
  OM_COL ("name", N_("Operator"), KS_REPORT_UNIT_TEXT, 0, 5, 1, 0, KS_REPORT_COLUMN_LEFT),
  OM_COL ("allocations", N_("Allocations"), KS_REPORT_UNIT_COUNT, 1, 1, 2, 11, 0),
  OM_COL ("bytes", N_("Bytes"), KS_REPORT_UNIT_BYTES, 2, 2, 3, 11, 0),
  OM_COL ("self_allocations", N_("Self Allocations"), KS_REPORT_UNIT_COUNT, 3, 3, 4, 16, 0),
  OM_COL ("self_bytes", N_("Self Bytes"), KS_REPORT_UNIT_BYTES, 4, 4, 5, 11, 0),
};

#define ALLOC(r, i) (&((const KsAllocation *)(r)->rows)[i])

static void
alloc_get (const KsReport       *r,
           const KsReportColumn *c,
           guint                 i,
           KsReportValue        *v)
{
  const KsAllocation *a = ALLOC (r, i);

  switch (c->arg)
    {
    case 0: set_int (v, a->device); break;
    case 1: set_int (v, a->bytes); break;
    case 2: set_int (v, a->alloc_ts); break;
    case 3: set_int (v, a->free_ts); break;
    case 4: set_int (v, a->lifetime_ns); break;
    case 5: set_string (v, str (r, a->operator_name)); break;
    case 6:
      if (a->python_track == KS_NO_INDEX)
        set_string (v, "");
      else
        take_string (v, ks_gap_cause_format_name (r->trace, KS_GAP_CAUSE_PYTHON,
                                                  r->trace->tracks[a->python_track].name_id[a->python_slice],
                                                  a->python_track, a->python_slice));
      break;
    default: g_assert_not_reached ();
    }
}

/* The lifetime of an allocation never freed is -1 in CSV and JSON; people
 * read that it was not freed. */
static char *
lifetime_text (const KsReport       *r,
               const KsReportColumn *c,
               guint                 i)
{
  gint64 lifetime = ALLOC (r, i)->lifetime_ns;

  return lifetime >= 0 ? ks_time_format_duration (lifetime) : g_strdup (_("not freed"));
}

/* Never freed lives to the end of the trace and on: the longest. */
static int
lifetime_compare (const KsReport       *r,
                  const KsReportColumn *c,
                  guint                 a,
                  guint                 b)
{
  gint64 la = ALLOC (r, a)->lifetime_ns;
  gint64 lb = ALLOC (r, b)->lifetime_ns;

  return CMP (la < 0 ? G_MAXINT64 : la, lb < 0 ? G_MAXINT64 : lb);
}

#define A_COL(k_, title_, abbrev_, metric_, unit_, a_, table_, page_, width_, flags_) \
  { .key = k_, .title = title_, .abbrev = abbrev_, .metric = metric_, .unit = unit_, .get = alloc_get, .arg = a_, \
    .pos = { table_, a_ + 1, a_ + 1, page_ }, .width = width_, .flags = flags_ }

static const KsReportColumn allocation_columns[] = {
  A_COL ("device", N_("Device"), N_("Dev"), -1, KS_REPORT_UNIT_COUNT, 0, 1, 0, 3, 0),
  A_COL ("bytes", N_("Size"), NULL, -1, KS_REPORT_UNIT_BYTES, 1, 2, 1, 10, 0),
  A_COL ("alloc_ns", N_("Allocated At"), N_("Allocated"), -1, KS_REPORT_UNIT_DURATION, 2, 3, 2, 12, 0),
  A_COL ("free_ns", N_("Freed At"), NULL, -1, KS_REPORT_UNIT_DURATION, 3, 0, 0, 0, 0),
  { .key = "lifetime_ns", .title = N_("Lifetime"), .metric = KS_METRIC_ALLOCATION_LIFETIME,
    .unit = KS_REPORT_UNIT_DURATION, .get = alloc_get, .text = lifetime_text, .compare = lifetime_compare, .arg = 4,
    .pos = { 4, 5, 5, 3 }, .width = 11 },
  A_COL ("operator", N_("Operator"), NULL, -1, KS_REPORT_UNIT_TEXT, 5, 5, 4, 0, KS_REPORT_COLUMN_LEFT),
  A_COL ("python", N_("Python"), NULL, -1, KS_REPORT_UNIT_TEXT, 6, 6, 5, 0, KS_REPORT_COLUMN_LEFT),
};

/* Reports */

const KsReportColumn *
ks_report_allocation_columns (guint *n)
{
  *n = G_N_ELEMENTS (allocation_columns);
  return allocation_columns;
}

KsReport *
ks_report_new_memory (KsTrace    *trace,
                      KsAnalysis *analysis)
{
  guint n;
  const KsMemoryCurve *rows = ks_analysis_get_memory_curves (analysis, &n);

  return NEW ("devices", curve_columns, rows, n);
}

KsReport *
ks_report_new_operator_memory (KsTrace    *trace,
                               KsAnalysis *analysis)
{
  guint n;
  const KsOperatorMemory *rows = ks_analysis_get_operator_memory (analysis, &n);

  return NEW ("operators", operator_memory_columns, rows, n);
}

KsReport *
ks_report_new_allocations (KsTrace    *trace,
                           KsAnalysis *analysis)
{
  guint n;
  const KsAllocation *rows = ks_analysis_get_allocations (analysis, &n);

  return NEW ("allocations", allocation_columns, rows, n);
}
