/* ks-report-ranks.c: collectives, ranks and rank steps as reports
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

/* Communication: collectives by kind and size */

#define COMM(r, i) (&((const KsCommStats *)(r)->rows)[i])

static void
comm_get (const KsReport       *r,
          const KsReportColumn *c,
          guint                 i,
          KsReportValue        *v)
{
  const KsCommStats *s = COMM (r, i);

  switch (c->arg)
    {
    case 0: set_string (v, ks_collective_kind_to_string (s->kind)); break;
    case 1: if (s->bytes > 0) set_int (v, s->bytes); break;
    case 2: if (s->group_size > 0) set_int (v, s->group_size); break;
    case 3: set_string (v, s->on_gpu ? "gpu" : "cpu"); break;
    case 4: set_int (v, s->count); break;
    case 5: set_int (v, s->total_ns); break;
    case 6: set_double (v, (double)s->total_ns / s->count); break;
    case 7: set_int (v, s->min_ns); break;
    case 8: set_int (v, s->max_ns); break;
    case 9: set_estimate (v, s->algbw_gbps); break;
    case 10: set_estimate (v, s->busbw_gbps); break;
    default: g_assert_not_reached ();
    }
}

#define CM_COL(k_, title_, metric_, unit_, a_, table_, csv_, json_, width_) \
  { .key = k_, .title = title_, .metric = metric_, .unit = unit_, .get = comm_get, .arg = a_, \
    .decimals = 2, .pos = { table_, csv_, json_, table_ }, .width = width_ }

static const KsReportColumn comm_columns[] = {
  { .key = "collective", .title = N_("Collective"), .metric = -1, .unit = KS_REPORT_UNIT_TEXT, .get = comm_get,
    .arg = 0, .pos = { 1, 1, 1, 1 }, .width = 15, .flags = KS_REPORT_COLUMN_LEFT },
  CM_COL ("bytes", N_("Size"), -1, KS_REPORT_UNIT_BYTES, 1, 2, 2, 2, 10),
  CM_COL ("group_size", N_("Ranks"), -1, KS_REPORT_UNIT_COUNT, 2, 3, 3, 3, 6),
  CM_COL ("on", N_("On"), -1, KS_REPORT_UNIT_TEXT, 3, 4, 4, 4, 4),
  CM_COL ("count", N_("Calls"), -1, KS_REPORT_UNIT_COUNT, 4, 5, 5, 5, 7),
  CM_COL ("total_ns", N_("Total"), -1, KS_REPORT_UNIT_DURATION, 5, 6, 6, 6, 11),
  CM_COL ("mean_ns", N_("Mean"), -1, KS_REPORT_UNIT_DURATION, 6, 7, 7, 7, 11),
  CM_COL ("min_ns", N_("Min"), -1, KS_REPORT_UNIT_DURATION, 7, 0, 8, 8, 0),
  CM_COL ("max_ns", N_("Max"), -1, KS_REPORT_UNIT_DURATION, 8, 0, 9, 9, 0),
  CM_COL ("algbw_gbps", N_("Alg. GB/s"), -1, KS_REPORT_UNIT_COUNT, 9, 8, 10, 10, 10),
  CM_COL ("busbw_gbps", N_("Bus GB/s"), KS_METRIC_BUS_BANDWIDTH, KS_REPORT_UNIT_COUNT, 10, 9, 11, 11, 0),
};

/* Ranks */

#define RANK(r, i) (&((const KsRankStats *)(r)->rows)[i])

static void
rank_get (const KsReport       *r,
          const KsReportColumn *c,
          guint                 i,
          KsReportValue        *v)
{
  const KsRankStats *s = RANK (r, i);

  switch (c->arg)
    {
    case 0: if (s->rank >= 0) set_int (v, s->rank); break;
    case 1: if (s->file != NULL) set_string (v, s->file); break;
    case 2: set_int (v, s->steps); break;
    case 3: set_int (v, s->step_mean_ns); break;
    case 4: set_int (v, s->kernels); break;
    case 5: set_int (v, s->kernel_time_ns); break;
    case 6: set_double (v, s->busy_pct); break;
    case 7: set_int (v, s->comm_ns); break;
    case 8: set_int (v, s->exposed_comm_ns); break;
    case 9: set_double (v, s->overlap_pct); break;
    case 10: set_int (v, s->wait_ns); break;
    case 11: set_int (v, s->wait_caused_ns); break;
    case 12: set_int (v, s->compute_ns); break;
    case 13: set_int (v, s->window_ns); break;
    case 14: set_int (v, s->collectives); break;
    case 15: if (s->host != NULL) set_string (v, s->host); break;
    case 16: set_int (v, s->clock_offset_ns); break;
    default: g_assert_not_reached ();
    }
}

#define RK_COL(k_, title_, metric_, unit_, a_, table_, json_, width_) \
  { .key = k_, .title = title_, .metric = metric_, .unit = unit_, .get = rank_get, .arg = a_, \
    .decimals = 1, .pos = { table_, json_, json_, table_ }, .width = width_ }

static const KsReportColumn rank_columns[] = {
  RK_COL ("rank", N_("Rank"), -1, KS_REPORT_UNIT_COUNT, 0, 1, 1, 5),
  { .key = "file", .title = N_("File"), .metric = -1, .unit = KS_REPORT_UNIT_TEXT, .get = rank_get,
    .arg = 1, .pos = { 0, 2, 2, 0 } },
  RK_COL ("steps", N_("Steps"), -1, KS_REPORT_UNIT_COUNT, 2, 2, 3, 6),
  RK_COL ("step_mean_ns", N_("Step time"), -1, KS_REPORT_UNIT_DURATION, 3, 3, 4, 11),
  RK_COL ("kernels", N_("Kernels"), -1, KS_REPORT_UNIT_COUNT, 4, 0, 5, 0),
  RK_COL ("kernel_time_ns", N_("Kernel time"), -1, KS_REPORT_UNIT_DURATION, 5, 0, 6, 0),
  RK_COL ("busy_pct", NULL, KS_METRIC_BUSY_PCT, KS_REPORT_UNIT_PERCENT, 6, 4, 7, 8),
  RK_COL ("comm_ns", N_("Comm."), KS_METRIC_COMM, KS_REPORT_UNIT_DURATION, 7, 5, 8, 11),
  RK_COL ("exposed_comm_ns", NULL, KS_METRIC_EXPOSED_COMM, KS_REPORT_UNIT_DURATION, 8, 6, 9, 14),
  RK_COL ("overlap_pct", NULL, KS_METRIC_OVERLAP, KS_REPORT_UNIT_PERCENT, 9, 7, 10, 8),
  RK_COL ("wait_ns", NULL, KS_METRIC_RANK_WAIT, KS_REPORT_UNIT_DURATION, 10, 8, 11, 11),
  RK_COL ("wait_caused_ns", NULL, KS_METRIC_WAIT_CAUSED, KS_REPORT_UNIT_DURATION, 11, 9, 12, 0),
  RK_COL ("compute_ns", N_("Compute"), -1, KS_REPORT_UNIT_DURATION, 12, 0, 13, 0),
  RK_COL ("window_ns", NULL, KS_METRIC_WINDOW, KS_REPORT_UNIT_DURATION, 13, 0, 14, 0),
  RK_COL ("collectives", N_("Collectives"), -1, KS_REPORT_UNIT_COUNT, 14, 0, 15, 0),
  { .key = "host", .metric = -1, .unit = KS_REPORT_UNIT_TEXT, .get = rank_get, .arg = 15, .pos = { 0, 16, 16, 0 } },
  { .key = "clock_offset_ns", .metric = -1, .unit = KS_REPORT_UNIT_DURATION, .get = rank_get, .arg = 16,
    .pos = { 0, 17, 17, 0 } },
};

/* Steps of ranks */

#define RSTEP(r, i) (&((const KsRankStep *)(r)->rows)[i])

static void
rank_step_get (const KsReport       *r,
               const KsReportColumn *c,
               guint                 i,
               KsReportValue        *v)
{
  const KsRankStep *s = RSTEP (r, i);

  switch (c->arg)
    {
    case 0: if (s->rank >= 0) set_int (v, s->rank); break;
    case 1: set_string (v, str (r, s->name)); break;
    case 2: set_int (v, s->start); break;
    case 3: set_int (v, s->end - s->start); break;
    case 4: set_int (v, s->compute_ns); break;
    case 5: set_int (v, s->comm_ns); break;
    case 6: set_int (v, s->exposed_comm_ns); break;
    case 7: set_double (v, s->overlap_pct); break;
    case 8: set_int (v, s->wait_ns); break;
    default: g_assert_not_reached ();
    }
}

#define RS_COL(k_, title_, metric_, unit_, a_, table_, json_, width_) \
  { .key = k_, .title = title_, .metric = metric_, .unit = unit_, .get = rank_step_get, .arg = a_, \
    .decimals = 1, .pos = { table_, json_, json_, 0 }, .width = width_ }

static const KsReportColumn rank_step_columns[] = {
  RS_COL ("rank", N_("Rank"), -1, KS_REPORT_UNIT_COUNT, 0, 1, 1, 5),
  { .key = "step", .title = N_("Step"), .metric = -1, .unit = KS_REPORT_UNIT_TEXT, .get = rank_step_get,
    .arg = 1, .pos = { 2, 2, 2, 0 }, .width = 18, .flags = KS_REPORT_COLUMN_LEFT },
  RS_COL ("start_ns", N_("Start"), -1, KS_REPORT_UNIT_DURATION, 2, 0, 3, 0),
  RS_COL ("dur_ns", N_("Duration"), -1, KS_REPORT_UNIT_DURATION, 3, 3, 4, 11),
  RS_COL ("compute_ns", N_("Compute"), -1, KS_REPORT_UNIT_DURATION, 4, 4, 5, 11),
  RS_COL ("comm_ns", N_("Comm."), KS_METRIC_COMM, KS_REPORT_UNIT_DURATION, 5, 5, 6, 11),
  RS_COL ("exposed_comm_ns", NULL, KS_METRIC_EXPOSED_COMM, KS_REPORT_UNIT_DURATION, 6, 6, 7, 14),
  RS_COL ("overlap_pct", NULL, KS_METRIC_OVERLAP, KS_REPORT_UNIT_PERCENT, 7, 7, 8, 8),
  RS_COL ("wait_ns", NULL, KS_METRIC_RANK_WAIT, KS_REPORT_UNIT_DURATION, 8, 8, 9, 0),
};

/* Reports */

const KsReportColumn *
ks_report_comm_columns (guint *n)
{
  *n = G_N_ELEMENTS (comm_columns);
  return comm_columns;
}

const KsReportColumn *
ks_report_rank_columns (guint *n)
{
  *n = G_N_ELEMENTS (rank_columns);
  return rank_columns;
}

KsReport *
ks_report_new_comms (KsTrace    *trace,
                     KsAnalysis *analysis)
{
  guint n;
  const KsCommStats *rows = ks_analysis_get_comm_stats (analysis, &n);

  return NEW ("collectives", comm_columns, rows, n);
}

KsReport *
ks_report_new_rank_steps (KsTrace    *trace,
                          KsAnalysis *analysis)
{
  guint n;
  const KsRankStep *rows = ks_analysis_get_rank_steps (analysis, &n);

  return NEW ("steps", rank_step_columns, rows, n);
}

KsReport *
ks_report_new_rank_rows (const KsRankStats *rows,
                         guint              n)
{
  return report_new (NULL, NULL, "ranks", rank_columns, G_N_ELEMENTS (rank_columns), rows, n);
}

KsReport *
ks_report_new_ranks (KsTrace    *trace,
                     KsAnalysis *analysis)
{
  guint n;
  const KsRankStats *rows = ks_analysis_get_rank_stats (analysis, &n);

  return NEW ("ranks", rank_columns, rows, n);
}
