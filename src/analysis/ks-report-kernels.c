/* ks-report-kernels.c: kernels and their GPU streams as report lists
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-report"

#include "config.h"

#include <inttypes.h>
#include <math.h>

#include <glib/gi18n.h>

#include "ks-format.h"
#include "ks-report-private.h"

/* Kernels */

#define KERNEL(r, i) (&((const KsKernelStats *)(r)->rows)[i])

static void
kernel_get (const KsReport       *r,
            const KsReportColumn *c,
            guint                 i,
            KsReportValue        *v)
{
  const KsKernelStats *k = KERNEL (r, i);

  switch (c->arg)
    {
    case 0: set_string (v, str (r, k->name)); break;
    case 1: set_int (v, k->calls); break;
    case 2: set_int (v, k->total_ns); break;
    case 3: set_double (v, k->mean_ns); break;
    case 4: set_int (v, k->min_ns); break;
    case 5: set_int (v, k->max_ns); break;
    case 6: set_double (v, k->share); break;
    case 7: set_dim3 (v, k->grid[0], k->grid[1], k->grid[2]); break;
    case 8: set_dim3 (v, k->block[0], k->block[1], k->block[2]); break;
    case 9: set_int (v, k->registers); break;
    case 10: v->type = KS_REPORT_VALUE_BOOL; v->i = k->config_varies; break;
    case 11: set_estimate (v, k->occupancy_pct); break;
    case 12: set_estimate (v, k->mean_latency_ns); break;
    case 13: set_estimate (v, k->mean_queue_ns); break;
    case 14: v->type = KS_REPORT_VALUE_BOOL; v->i = k->tensor_cores; break;
    default: g_assert_not_reached ();
    }
}

/* The first call's grid; * when calls differ. */
static char *
grid_text (const KsReport       *r,
           const KsReportColumn *c,
           guint                 i)
{
  const KsKernelStats *k = KERNEL (r, i);

  return g_strdup_printf ("%u×%u×%u%s", k->grid[0], k->grid[1], k->grid[2], k->config_varies ? " *" : "");
}

#define K_COL(k_, title_, abbrev_, tooltip_, metric_, unit_, dec_, a_, table_, csv_, json_, page_, width_, flags_) \
  { .key = k_, .title = title_, .abbrev = abbrev_, .tooltip = tooltip_, .metric = metric_, .unit = unit_, \
    .decimals = dec_, .get = kernel_get, .arg = a_, .pos = { table_, csv_, json_, page_ }, .width = width_, \
    .flags = flags_ }

static const KsReportColumn kernel_columns[] = {
  K_COL ("name", N_("Kernel"), NULL, NULL, -1, KS_REPORT_UNIT_TEXT, 0, 0, 11, 1, 1, 1, 0, KS_REPORT_COLUMN_LEFT),
  K_COL ("calls", N_("Calls"), NULL, NULL, -1, KS_REPORT_UNIT_COUNT, 0, 1, 1, 2, 2, 2, 7, 0),
  K_COL ("total_ns", N_("Total"), NULL, NULL, KS_METRIC_KERNEL_TIME, KS_REPORT_UNIT_DURATION, 0, 2, 2, 3, 3, 3, 11, 0),
  K_COL ("mean_ns", N_("Mean"), NULL, NULL, -1, KS_REPORT_UNIT_DURATION, 0, 3, 3, 4, 4, 4, 11, 0),
  K_COL ("min_ns", N_("Min"), NULL, NULL, -1, KS_REPORT_UNIT_DURATION, 0, 4, 4, 5, 5, 5, 11, 0),
  K_COL ("max_ns", N_("Max"), NULL, NULL, -1, KS_REPORT_UNIT_DURATION, 0, 5, 5, 6, 6, 6, 11, 0),
  K_COL ("share", N_("Share"), NULL, NULL, KS_METRIC_KERNEL_SHARE, KS_REPORT_UNIT_RATIO, 1, 6, 6, 7, 7, 7, 7, 0),
  K_COL ("est_occupancy_pct", N_("Occupancy"), N_("Occ."), NULL, KS_METRIC_OCCUPANCY, KS_REPORT_UNIT_PERCENT,
         0, 11, 7, 15, 12, 8, 5, 0),
  { .key = "grid", .title = N_("Grid"), .tooltip = N_("Grid of the first call; * when calls differ"), .metric = -1,
    .unit = KS_REPORT_UNIT_DIM3, .get = kernel_get, .text = grid_text, .arg = 7, .pos = { 8, 8, 8, 9 }, .width = 14,
    .flags = KS_REPORT_COLUMN_LEFT },
  K_COL ("block", N_("Block"), NULL, NULL, -1, KS_REPORT_UNIT_DIM3, 0, 8, 9, 11, 9, 10, 12,
         KS_REPORT_COLUMN_LEFT),
  K_COL ("registers", N_("Registers"), N_("Regs"), N_("Registers per thread"), -1, KS_REPORT_UNIT_COUNT,
         0, 9, 10, 14, 10, 11, 4, 0),
  K_COL ("config_varies", N_("Varies"), NULL, NULL, -1, KS_REPORT_UNIT_BOOL, 0, 10, 0, 0, 11, 0, 0, 0),
  /* means over the calls with a known launch call */
  K_COL ("mean_latency_ns", N_("Launch Latency"), NULL, NULL, KS_METRIC_LAUNCH_LATENCY, KS_REPORT_UNIT_DURATION,
         0, 12, 0, 16, 13, 12, 0, 0),
  K_COL ("mean_queue_ns", N_("Queueing"), NULL, NULL, KS_METRIC_QUEUE_TIME, KS_REPORT_UNIT_DURATION,
         0, 13, 0, 17, 14, 13, 0, 0),
  /* the page only: the tensor-cores report has it for the CLI */
  K_COL ("tensor_cores", N_("Tensor Cores"), NULL, NULL, KS_METRIC_TENSOR_CORES, KS_REPORT_UNIT_BOOL,
         0, 14, 0, 0, 0, 14, 0, 0),
};

/* Tensor cores: the kernels, and the operators that could use them */

static void
tc_kernel_get (const KsReport       *r,
               const KsReportColumn *c,
               guint                 i,
               KsReportValue        *v)
{
  const KsKernelStats *k = KERNEL (r, i);

  switch (c->arg)
    {
    case 0: set_string (v, str (r, k->name)); break;
    case 1: v->type = KS_REPORT_VALUE_BOOL; v->i = k->tensor_cores; break;
    case 2: set_int (v, k->calls); break;
    case 3: set_int (v, k->total_ns); break;
    case 4: set_double (v, k->share); break;
    default: g_assert_not_reached ();
    }
}

#define TK_COL(k_, title_, metric_, unit_, dec_, a_, table_, machine_, width_, flags_) \
  { .key = k_, .title = title_, .metric = metric_, .unit = unit_, .decimals = dec_, .get = tc_kernel_get, \
    .arg = a_, .pos = { table_, machine_, machine_ }, .width = width_, .flags = flags_ }

static const KsReportColumn tc_kernel_columns[] = {
  TK_COL ("name", N_("Kernel"), -1, KS_REPORT_UNIT_TEXT, 0, 0, 5, 1, 0, KS_REPORT_COLUMN_LEFT),
  TK_COL ("tensor_cores", N_("Tensor Cores"), KS_METRIC_TENSOR_CORES, KS_REPORT_UNIT_BOOL, 0, 1, 1, 2, 12,
          KS_REPORT_COLUMN_LEFT),
  TK_COL ("calls", N_("Calls"), -1, KS_REPORT_UNIT_COUNT, 0, 2, 2, 3, 7, 0),
  TK_COL ("total_ns", N_("Total"), KS_METRIC_KERNEL_TIME, KS_REPORT_UNIT_DURATION, 0, 3, 3, 4, 11, 0),
  TK_COL ("share", N_("Share"), KS_METRIC_KERNEL_SHARE, KS_REPORT_UNIT_RATIO, 1, 4, 4, 5, 7, 0),
};

static void
tc_operator_get (const KsReport       *r,
                 const KsReportColumn *c,
                 guint                 i,
                 KsReportValue        *v)
{
  const KsOperatorStats *o = OPERATOR (r, i);

  switch (c->arg)
    {
    case 0: set_string (v, str (r, o->name)); break;
    case 1: v->type = KS_REPORT_VALUE_BOOL; v->i = o->tc_eligible; break;
    case 2: set_int (v, o->calls); break;
    case 3: set_int (v, o->device_self_ns); break;
    case 4:
      if (o->device_self_ns > 0)
        set_double (v, (double)o->device_tc_self_ns / o->device_self_ns);
      break;
    case 5: set_int (v, o->device_total_ns); break;
    case 6:
      if (o->device_total_ns > 0)
        set_double (v, (double)o->device_tc_total_ns / o->device_total_ns);
      break;
    default: g_assert_not_reached ();
    }
}

#define TO_COL(k_, title_, abbrev_, tooltip_, metric_, unit_, a_, table_, machine_, width_, flags_) \
  { .key = k_, .title = title_, .abbrev = abbrev_, .tooltip = tooltip_, .metric = metric_, .unit = unit_, \
    .decimals = 1, .get = tc_operator_get, .arg = a_, .pos = { table_, machine_, machine_, machine_ }, \
    .width = width_, .flags = flags_ }

static const KsReportColumn tc_operator_columns[] = {
  TO_COL ("name", N_("Operator"), NULL, NULL, -1, KS_REPORT_UNIT_TEXT, 0, 7, 1, 0, KS_REPORT_COLUMN_LEFT),
  TO_COL ("tc_eligible", N_("TC Eligible"), N_("Eligible"), NULL, KS_METRIC_TENSOR_CORES, KS_REPORT_UNIT_BOOL,
          1, 1, 2, 9, KS_REPORT_COLUMN_LEFT),
  TO_COL ("calls", N_("Calls"), NULL, NULL, -1, KS_REPORT_UNIT_COUNT, 2, 2, 3, 7, 0),
  TO_COL ("device_self_ns", NULL, N_("Dev. self"), NULL, KS_METRIC_DEVICE_SELF, KS_REPORT_UNIT_DURATION,
          3, 3, 4, 11, 0),
  TO_COL ("tc_self_ratio", N_("TC Self"), N_("TC self"), N_("Share of the device self time in tensor-core kernels"),
          KS_METRIC_TENSOR_CORES, KS_REPORT_UNIT_RATIO, 4, 4, 5, 8, 0),
  TO_COL ("device_total_ns", NULL, N_("Dev. total"), NULL, KS_METRIC_DEVICE_TOTAL, KS_REPORT_UNIT_DURATION,
          5, 5, 6, 11, 0),
  TO_COL ("tc_total_ratio", N_("TC Total"), N_("TC total"), N_("Share of the device total time in tensor-core kernels"),
          KS_METRIC_TENSOR_CORES, KS_REPORT_UNIT_RATIO, 6, 6, 7, 9, 0),
};

/* Stream queues */

#define QUEUE(r, i) (&((const KsQueueStats *)(r)->rows)[i])

static void
queue_get (const KsReport       *r,
           const KsReportColumn *c,
           guint                 i,
           KsReportValue        *v)
{
  const KsQueueStats *q = QUEUE (r, i);

  switch (c->arg)
    {
    case 0: set_int (v, q->device); break;
    case 1: set_int (v, q->stream); break;
    case 2: set_int (v, q->n_ops); break;
    case 3: set_double (v, q->mean); break;
    case 4: set_int (v, q->max); break;
    case 5: set_int (v, q->max_ts); break;
    case 6: set_int (v, q->at_limit_ns); break;
    case 7: set_int (v, q->start); break;
    case 8: set_int (v, q->end); break;
    case 9: set_rank (v, ks_trace_rank_of_track (r->trace, q->track)); break;
    default: g_assert_not_reached ();
    }
}

/* The rank column, where there are ranks to tell apart (hide_rank_alone()),
 * comes first in the text formats: columns of one place keep this order.
 * A page's rows show their rank on the timeline. */
#define RANK_COL(get_, a_) \
  { .key = "rank", .title = N_("Rank"), .metric = -1, .unit = KS_REPORT_UNIT_COUNT, .get = get_, \
    .arg = a_, .pos = { 1, 1, 1, 0 }, .width = 5 }

#define Q_COL(k_, title_, metric_, unit_, dec_, a_, table_, machine_, width_) \
  { .key = k_, .title = title_, .metric = metric_, .unit = unit_, .decimals = dec_, .get = queue_get, \
    .arg = a_, .pos = { table_, machine_, machine_, table_ }, .width = width_ }

static const KsReportColumn queue_columns[] = {
  RANK_COL (queue_get, 9),
  Q_COL ("device", N_("GPU"), -1, KS_REPORT_UNIT_COUNT, 0, 0, 1, 1, 3),
  Q_COL ("stream", N_("Stream"), -1, KS_REPORT_UNIT_COUNT, 0, 1, 2, 2, 7),
  Q_COL ("ops", N_("Operations"), -1, KS_REPORT_UNIT_COUNT, 0, 2, 3, 3, 10),
  Q_COL ("mean", N_("Mean"), KS_METRIC_QUEUE_LENGTH, KS_REPORT_UNIT_COUNT, 2, 3, 4, 4, 8),
  Q_COL ("max", N_("Max"), KS_METRIC_QUEUE_LENGTH, KS_REPORT_UNIT_COUNT, 0, 4, 5, 5, 6),
  Q_COL ("max_ts", N_("At"), -1, KS_REPORT_UNIT_DURATION, 0, 5, 6, 6, 11),
  Q_COL ("at_limit_ns", N_("At 1,024"), KS_METRIC_QUEUE_LENGTH, KS_REPORT_UNIT_DURATION, 0, 6, 7, 7, 0),
  Q_COL ("start_ns", N_("Start"), -1, KS_REPORT_UNIT_DURATION, 0, 7, 0, 8, 0),
  Q_COL ("end_ns", N_("End"), -1, KS_REPORT_UNIT_DURATION, 0, 8, 0, 9, 0),
};

/* Copy bandwidth: per device and copy kind, and every copy */

#define COPY_KIND(r, i) (&((const KsCopyKindStats *)(r)->rows)[i])
#define COPY(r, i) (&((const KsCopyRate *)(r)->rows)[i])

static void
copy_kind_get (const KsReport       *r,
               const KsReportColumn *c,
               guint                 i,
               KsReportValue        *v)
{
  const KsCopyKindStats *k = COPY_KIND (r, i);

  switch (c->arg)
    {
    case 0: set_int (v, k->device); break;
    case 1: set_string (v, ks_copy_kind_to_string (k->kind)); break;
    case 2: set_int (v, k->count); break;
    case 3: set_int (v, k->bytes); break;
    case 4: set_int (v, k->time_ns); break;
    case 5: set_estimate (v, k->mean_gbps); break;
    case 6: set_estimate (v, k->max_gbps); break;
    case 7: set_rank (v, k->rank); break;
    default: g_assert_not_reached ();
    }
}

static void
copy_get (const KsReport       *r,
          const KsReportColumn *c,
          guint                 i,
          KsReportValue        *v)
{
  const KsCopyRate *cp = COPY (r, i);

  switch (c->arg)
    {
    case 0: set_int (v, cp->device); break;
    case 1: set_string (v, ks_copy_kind_to_string (cp->kind)); break;
    case 2: set_int (v, cp->start); break;
    case 3: set_int (v, cp->dur_ns); break;
    case 4: set_int (v, cp->bytes); break;
    case 5: set_estimate (v, cp->gbps); break;
    case 6: set_string (v, str (r, r->trace->tracks[cp->track].name_id[cp->slice])); break;
    case 7: set_rank (v, ks_trace_rank_of_track (r->trace, cp->track)); break;
    default: g_assert_not_reached ();
    }
}

#define CK_COL(k_, title_, unit_, dec_, a_, pos_, width_, flags_) \
  { .key = k_, .title = title_, .metric = -1, .unit = unit_, .decimals = dec_, .get = copy_kind_get, \
    .arg = a_, .pos = { pos_, pos_, pos_ }, .width = width_, .flags = flags_ }

static const KsReportColumn copy_kind_columns[] = {
  RANK_COL (copy_kind_get, 7),
  CK_COL ("device", N_("GPU"), KS_REPORT_UNIT_COUNT, 0, 0, 1, 3, 0),
  CK_COL ("kind", N_("Kind"), KS_REPORT_UNIT_TEXT, 0, 1, 2, 8, KS_REPORT_COLUMN_LEFT),
  CK_COL ("copies", N_("Copies"), KS_REPORT_UNIT_COUNT, 0, 2, 3, 7, 0),
  CK_COL ("bytes", N_("Bytes"), KS_REPORT_UNIT_BYTES, 0, 3, 4, 11, 0),
  CK_COL ("time_ns", N_("Time"), KS_REPORT_UNIT_DURATION, 0, 4, 5, 11, 0),
  CK_COL ("mean_gbps", N_("GB/s"), KS_REPORT_UNIT_COUNT, 2, 5, 6, 9, 0),
  CK_COL ("max_gbps", N_("Max GB/s"), KS_REPORT_UNIT_COUNT, 2, 6, 7, 0, 0),
};

#define CP_COL(k_, title_, unit_, dec_, a_, pos_, width_, flags_) \
  { .key = k_, .title = title_, .metric = -1, .unit = unit_, .decimals = dec_, .get = copy_get, \
    .arg = a_, .pos = { pos_, pos_, pos_, pos_ }, .width = width_, .flags = flags_ }

static const KsReportColumn copy_columns[] = {
  RANK_COL (copy_get, 7),
  CP_COL ("device", N_("GPU"), KS_REPORT_UNIT_COUNT, 0, 0, 1, 3, 0),
  CP_COL ("kind", N_("Kind"), KS_REPORT_UNIT_TEXT, 0, 1, 2, 8, KS_REPORT_COLUMN_LEFT),
  CP_COL ("start_ns", N_("Start"), KS_REPORT_UNIT_DURATION, 0, 2, 3, 11, 0),
  CP_COL ("dur_ns", N_("Duration"), KS_REPORT_UNIT_DURATION, 0, 3, 4, 11, 0),
  CP_COL ("bytes", N_("Bytes"), KS_REPORT_UNIT_BYTES, 0, 4, 5, 11, 0),
  CP_COL ("gbps", N_("GB/s"), KS_REPORT_UNIT_COUNT, 2, 5, 6, 9, 0),
  CP_COL ("name", N_("Copy"), KS_REPORT_UNIT_TEXT, 0, 6, 7, 0, KS_REPORT_COLUMN_LEFT),
};

/* Kernel sequences */

#define SEQUENCE(r, i) (&((const KsKernelSequence *)(r)->rows)[i])

/* The names of @ids joined by " → ", a repeated neighbour once when
 * @squeeze (the operators of a run are often one). */
static char *
join_names (const KsReport *r,
            const guint32  *ids,
            gboolean        squeeze)
{
  GString *s = g_string_new (NULL);

  for (guint k = 0; k < KS_SEQUENCE_LENGTH; k++)
    {
      if (squeeze && k > 0 && ids[k] == ids[k - 1])
        continue;
      if (s->len > 0)
        g_string_append (s, " → ");
      g_string_append (s, ids[k] != 0 ? str (r, ids[k]) : "-");
    }
  return g_string_free (s, FALSE);
}

static void
sequence_get (const KsReport       *r,
              const KsReportColumn *c,
              guint                 i,
              KsReportValue        *v)
{
  const KsKernelSequence *q = SEQUENCE (r, i);

  switch (c->arg)
    {
    case 0: set_int (v, q->device); break;
    case 1: set_int (v, q->count); break;
    case 2: set_int (v, q->total_ns); break;
    case 3: set_double (v, (double)q->total_ns / q->count); break;
    case 4: take_string (v, join_names (r, q->operators, TRUE)); break;
    case 5: take_string (v, join_names (r, q->names, FALSE)); break;
    case 6: set_int (v, q->first_start); break;
    default: g_assert_not_reached ();
    }
}

#define SQ_COL(...) PLAIN_COL (sequence_get, __VA_ARGS__)

static const KsReportColumn sequence_columns[] = {
  SQ_COL ("device", N_("GPU"), KS_REPORT_UNIT_COUNT, 0, 1, 1, 3, 0),
  SQ_COL ("count", N_("Count"), KS_REPORT_UNIT_COUNT, 1, 2, 2, 7, 0),
  SQ_COL ("total_ns", N_("Total"), KS_REPORT_UNIT_DURATION, 2, 3, 3, 11, 0),
  SQ_COL ("mean_ns", N_("Mean"), KS_REPORT_UNIT_DURATION, 3, 4, 4, 11, 0),
  SQ_COL ("first_start_ns", N_("First"), KS_REPORT_UNIT_DURATION, 6, 0, 5, 0, 0),
  SQ_COL ("operators", N_("Launched By"), KS_REPORT_UNIT_TEXT, 4, 5, 6, 40, KS_REPORT_COLUMN_LEFT),
  SQ_COL ("kernels", N_("Kernels"), KS_REPORT_UNIT_TEXT, 5, 6, 7, 0, KS_REPORT_COLUMN_LEFT),
};

/* Range-profiler counters: a row per counter of each range, so that
 * ranges measuring different metrics share the columns. */

#define PCOUNTER(r, i) (&((const KsProfilerCounter *)(r)->rows)[i])

static void
profiler_counter_get (const KsReport       *r,
                      const KsReportColumn *c,
                      guint                 i,
                      KsReportValue        *v)
{
  const KsProfilerCounter *q = PCOUNTER (r, i);

  switch (c->arg)
    {
    case 0: set_int (v, q->range + 1); break;
    case 1: set_int (v, q->device); break;
    case 2: set_int (v, q->start); break;
    case 3: set_int (v, q->end - q->start); break;
    case 4: set_string (v, q->counter); break;
    case 5:
      /* counts stay integers; ratios and rates keep their fraction */
      if (q->value == floor (q->value) && fabs (q->value) < 9.0e15)
        set_int (v, (gint64)q->value);
      else
        set_double (v, q->value);
      break;
    case 6: set_string (v, str (r, q->name)); break;
    case 7:
    case 8:
      {
        guint32 op = c->arg == 7 ? q->operator : q->top_operator;

        if (op != 0)
          set_string (v, str (r, op));
      }
      break;
    default: g_assert_not_reached ();
    }
}

#define PC_COL(...) PLAIN_COL (profiler_counter_get, __VA_ARGS__)

static const KsReportColumn profiler_counter_columns[] = {
  PC_COL ("range", N_("Range"), KS_REPORT_UNIT_COUNT, 0, 1, 1, 5, 0),
  PC_COL ("device", N_("GPU"), KS_REPORT_UNIT_COUNT, 1, 2, 2, 3, 0),
  PC_COL ("start_ns", N_("Start"), KS_REPORT_UNIT_DURATION, 2, 3, 3, 11, 0),
  PC_COL ("dur_ns", N_("Duration"), KS_REPORT_UNIT_DURATION, 3, 4, 4, 11, 0),
  PC_COL ("counter", N_("Counter"), KS_REPORT_UNIT_TEXT, 4, 5, 5, 52, KS_REPORT_COLUMN_LEFT),
  { .key = "value", .title = N_("Value"), .metric = -1, .unit = KS_REPORT_UNIT_COUNT, .decimals = 3,
    .get = profiler_counter_get, .arg = 5, .pos = { 6, 6, 6, 6 }, .width = 16 },
  PC_COL ("operator", N_("Operator"), KS_REPORT_UNIT_TEXT, 7, 7, 8, 24, KS_REPORT_COLUMN_LEFT),
  PC_COL ("top_operator", N_("Top Operator"), KS_REPORT_UNIT_TEXT, 8, 0, 9, 0, KS_REPORT_COLUMN_LEFT),
  PC_COL ("name", N_("Kernel or Range"), KS_REPORT_UNIT_TEXT, 6, 8, 7, 0, KS_REPORT_COLUMN_LEFT),
};

/* Kernels by name and operator, or by name and launch */

#define KGROUP(r, i) (&((const KsKernelGroup *)(r)->rows)[i])

static void
kernel_group_get (const KsReport       *r,
                  const KsReportColumn *c,
                  guint                 i,
                  KsReportValue        *v)
{
  const KsKernelGroup *g = KGROUP (r, i);

  switch (c->arg)
    {
    case 0: set_string (v, str (r, g->name)); break;
    case 1: set_string (v, g->operator_name != 0 ? str (r, g->operator_name) : NULL); break;
    case 2: set_dim3 (v, g->grid[0], g->grid[1], g->grid[2]); break;
    case 3: set_dim3 (v, g->block[0], g->block[1], g->block[2]); break;
    case 4: set_int (v, g->registers); break;
    case 5: set_int (v, g->shared_memory); break;
    case 6: set_int (v, g->calls); break;
    case 7: set_int (v, g->total_ns); break;
    case 8: set_double (v, (double)g->total_ns / g->calls); break;
    case 9: set_int (v, g->min_ns); break;
    case 10: set_int (v, g->max_ns); break;
    default: g_assert_not_reached ();
    }
}

#define KG_COL(k_, title_, abbrev_, unit_, a_, table_, machine_, width_, flags_) \
  { .key = k_, .title = title_, .abbrev = abbrev_, .metric = -1, .unit = unit_, .get = kernel_group_get, \
    .arg = a_, .pos = { table_, machine_, machine_ }, .width = width_, .flags = flags_ }

/* The operator's or the launch's columns are hidden by the grouping. */
static const KsReportColumn kernel_group_columns[] = {
  KG_COL ("name", N_("Kernel"), NULL, KS_REPORT_UNIT_TEXT, 0, 12, 1, 0, KS_REPORT_COLUMN_LEFT),
  KG_COL ("operator", N_("Operator"), NULL, KS_REPORT_UNIT_TEXT, 1, 11, 2, 32, KS_REPORT_COLUMN_LEFT),
  KG_COL ("grid", N_("Grid"), NULL, KS_REPORT_UNIT_DIM3, 2, 6, 3, 14, KS_REPORT_COLUMN_LEFT),
  KG_COL ("block", N_("Block"), NULL, KS_REPORT_UNIT_DIM3, 3, 7, 4, 12, KS_REPORT_COLUMN_LEFT),
  KG_COL ("registers", N_("Registers"), N_("Regs"), KS_REPORT_UNIT_COUNT, 4, 8, 5, 4, 0),
  KG_COL ("shared_memory", N_("Shared Memory"), N_("Shared"), KS_REPORT_UNIT_BYTES, 5, 9, 6, 11, 0),
  KG_COL ("calls", N_("Calls"), NULL, KS_REPORT_UNIT_COUNT, 6, 1, 7, 7, 0),
  KG_COL ("total_ns", N_("Total"), NULL, KS_REPORT_UNIT_DURATION, 7, 2, 8, 11, 0),
  KG_COL ("mean_ns", N_("Mean"), NULL, KS_REPORT_UNIT_DURATION, 8, 3, 9, 11, 0),
  KG_COL ("min_ns", N_("Min"), NULL, KS_REPORT_UNIT_DURATION, 9, 4, 10, 11, 0),
  KG_COL ("max_ns", N_("Max"), NULL, KS_REPORT_UNIT_DURATION, 10, 5, 11, 11, 0),
};

/* Reports */

const KsReportColumn *
ks_report_tensor_core_operator_columns (guint *n)
{
  *n = G_N_ELEMENTS (tc_operator_columns);
  return tc_operator_columns;
}

const KsReportColumn *
ks_report_queue_columns (guint *n)
{
  *n = G_N_ELEMENTS (queue_columns);
  return queue_columns;
}

const KsReportColumn *
ks_report_copy_columns (guint *n)
{
  *n = G_N_ELEMENTS (copy_columns);
  return copy_columns;
}

const KsReportColumn *
ks_report_kernel_sequence_columns (guint *n)
{
  *n = G_N_ELEMENTS (sequence_columns);
  return sequence_columns;
}

const KsReportColumn *
ks_report_profiler_counter_columns (guint *n)
{
  *n = G_N_ELEMENTS (profiler_counter_columns);
  return profiler_counter_columns;
}

const KsReportColumn *
ks_report_kernel_columns (guint *n)
{
  *n = G_N_ELEMENTS (kernel_columns);
  return kernel_columns;
}

KsReport *
ks_report_new_kernels (KsTrace    *trace,
                       KsAnalysis *analysis)
{
  guint n;
  const KsKernelStats *rows = ks_analysis_get_kernels (analysis, &n);

  return NEW ("kernels", kernel_columns, rows, n);
}

KsReport *
ks_report_new_tensor_core_kernels (KsTrace    *trace,
                                   KsAnalysis *analysis)
{
  guint n;
  const KsKernelStats *rows = ks_analysis_get_kernels (analysis, &n);

  return NEW ("kernels", tc_kernel_columns, rows, n);
}

KsReport *
ks_report_new_tensor_core_operators (KsTrace    *trace,
                                     KsAnalysis *analysis)
{
  guint n;
  const KsOperatorStats *rows = ks_analysis_get_operators (analysis, KS_OPERATOR_BY_NAME, &n);

  return NEW ("operators", tc_operator_columns, rows, n);
}

KsReport *
ks_report_new_copy_kinds (KsTrace    *trace,
                          KsAnalysis *analysis)
{
  guint n;
  const KsCopyKindStats *rows = ks_analysis_get_copy_kinds (analysis, &n);

  return hide_rank_alone (NEW ("kinds", copy_kind_columns, rows, n));
}

KsReport *
ks_report_new_copies (KsTrace    *trace,
                      KsAnalysis *analysis)
{
  guint n;
  const KsCopyRate *rows = ks_analysis_get_copies (analysis, &n);

  return hide_rank_alone (NEW ("copies", copy_columns, rows, n));
}

KsReport *
ks_report_new_kernel_sequences (KsTrace    *trace,
                                KsAnalysis *analysis)
{
  guint n;
  const KsKernelSequence *rows = ks_analysis_get_kernel_sequences (analysis, &n);

  return NEW ("sequences", sequence_columns, rows, n);
}

char *
ks_report_describe_profiler_ranges (const KsProfilerRanges *ranges)
{
  g_autofree char *on_ranges = g_strdup_printf (ngettext ("%u range-profiler range", "%u range-profiler ranges",
                                                          ranges->n_ranges), ranges->n_ranges);
  g_autofree char *on_gpus = g_strdup_printf (ngettext ("%u GPU", "%u GPUs", ranges->n_devices), ranges->n_devices);

  /* TRANSLATORS: "77 range-profiler ranges" "on" "1 GPU" */
  return g_strdup_printf (_("%s on %s"), on_ranges, on_gpus);
}

char *
ks_report_describe_latency (const KsLaunchLatency *latency)
{
  g_autofree char *p50 = ks_time_format_duration (latency->p50_ns);
  g_autofree char *p90 = ks_time_format_duration (latency->p90_ns);

  return g_strdup_printf (_("p50 %s · p90 %s"), p50, p90);
}

char *
ks_report_describe_launch_latency (KsAnalysis *analysis)
{
  const KsLaunchLatency *lat = ks_analysis_get_launch_latency (analysis);
  const KsLaunchLatency *queue = ks_analysis_get_queue_time (analysis);
  g_autofree char *p50 = ks_time_format_duration (lat->p50_ns);
  g_autofree char *p90 = ks_time_format_duration (lat->p90_ns);
  g_autofree char *p99 = ks_time_format_duration (lat->p99_ns);
  g_autofree char *q50 = ks_time_format_duration (queue->p50_ns);
  g_autofree char *q90 = ks_time_format_duration (queue->p90_ns);

  return g_strdup_printf (_("Launch latency of %" PRIu64 " kernels: p50 %s, p90 %s, p99 %s; queueing behind earlier work: p50 %s, p90 %s"),
                          lat->count, p50, p90, p99, q50, q90);
}

char *
ks_report_explain_profiler_operators (const KsProfilerRanges *ranges)
{
  if (ranges->n_ranges == 0 || ranges->launches_matched)
    return NULL;
  return g_strdup_printf (_("No operators: ranges are matched with the cudaLaunchKernel calls in time order (as HTA does), and the trace has %u calls for %u ranges."),
                          ranges->n_launches, ranges->n_ranges);
}

KsReport *
ks_report_new_profiler_counters (KsTrace    *trace,
                                 KsAnalysis *analysis)
{
  guint n;
  const KsProfilerCounter *rows = ks_analysis_get_profiler_counters (analysis, &n);

  return NEW ("counters", profiler_counter_columns, rows, n);
}

KsReport *
ks_report_new_kernel_groups (KsTrace          *trace,
                             KsAnalysis       *analysis,
                             KsKernelGrouping  grouping)
{
  guint n;
  const KsKernelGroup *rows = ks_analysis_get_kernel_groups (analysis, grouping, &n);
  KsReport *r = NEW ("kernels", kernel_group_columns, rows, n);
  /* columns 1 (operator) and 2..5 (the launch) */
  guint64 hide = grouping == KS_KERNEL_BY_OPERATOR ? 0x3c : 0x2;

  for (guint f = 0; f < KS_REPORT_N_FORMATS; f++)
    r->hidden[f] = hide;
  return r;
}

KsReport *
ks_report_new_queues (KsTrace    *trace,
                      KsAnalysis *analysis)
{
  guint n;
  const KsQueueStats *rows = ks_analysis_get_queues (analysis, &n);

  return hide_rank_alone (NEW ("streams", queue_columns, rows, n));
}
