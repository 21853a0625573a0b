/* ks-report-gpu.c: GPUs, utilization and steps as report lists
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

/* GPUs (the summary) */

#define GPU(r, i) (&((const KsGpuSummary *)(r)->rows)[i])

static void
gpu_get (const KsReport       *r,
         const KsReportColumn *c,
         guint                 i,
         KsReportValue        *v)
{
  const KsGpuSummary *g = GPU (r, i);

  switch (c->arg)
    {
    case 0: set_int (v, g->device); break;
    case 1: set_string (v, str (r, g->name)); break;
    case 2: set_int (v, g->n_kernels); break;
    case 3: set_int (v, g->kernel_time_ns); break;
    case 4: set_int (v, g->n_memcpy); break;
    case 5: set_int (v, g->memcpy_time_ns); break;
    case 6: set_int (v, g->n_memset); break;
    case 7: set_int (v, g->memset_time_ns); break;
    case 8: set_int (v, g->busy_ns); break;
    case 9: set_int (v, g->window_ns); break;
    case 10: set_string (v, g->window_is_steps ? "steps" : "activity"); break;
    case 11: set_int (v, g->window_start); break;
    case 12: set_int (v, g->window_end); break;
    case 13: set_int (v, g->busy_in_window_ns); break;
    case 14: set_double (v, g->busy_pct); break;
    case 15: set_estimate (v, g->est_sm_efficiency_pct); break;
    case 16: set_estimate (v, g->est_occupancy_pct); break;
    case 17: set_int (v, g->n_gaps); break;
    case 18: set_int (v, g->gap_total_ns); break;
    case 19: set_int (v, g->largest_gap_ns); break;
    case 20: case 21: case 22: set_int (v, g->gap_class_ns[c->arg - 20]); break;
    case 23: set_int (v, g->latency.count); break;
    case 24: set_int (v, g->latency.p50_ns); break;
    case 25: set_int (v, g->latency.p90_ns); break;
    case 26: set_int (v, g->latency.p99_ns); break;
    case 27: set_int (v, g->latency.max_ns); break;
    case 28: set_double (v, g->latency.mean_ns); break;
    case 29: set_int (v, g->queue.p50_ns); break;
    case 30: set_int (v, g->queue.p90_ns); break;
    case 31: set_int (v, g->queue.p99_ns); break;
    case 32: set_int (v, g->queue.max_ns); break;
    case 33: set_double (v, g->queue.mean_ns); break;
    case 34: set_int (v, g->span_ns); break;
    case 35: set_int (v, g->compute_ns); break;
    case 36: set_int (v, g->non_compute_ns); break;
    case 37: set_int (v, g->idle_ns); break;
    default: g_assert_not_reached ();
    }
}

#define G_COL(k_, jk_, grp_, unit_, a_, csv_, json_) \
  { .key = k_, .json_key = jk_, .group = grp_, .metric = -1, .unit = unit_, .get = gpu_get, .arg = a_, \
    .pos = { 0, csv_, json_ } }

static const KsReportColumn gpu_columns[] = {
  G_COL ("device", NULL, NULL, KS_REPORT_UNIT_COUNT, 0, 1, 1),
  G_COL ("name", NULL, NULL, KS_REPORT_UNIT_TEXT, 1, 2, 2),
  G_COL ("kernels", NULL, NULL, KS_REPORT_UNIT_COUNT, 2, 3, 3),
  G_COL ("kernel_time_ns", NULL, NULL, KS_REPORT_UNIT_DURATION, 3, 4, 4),
  G_COL ("memcpy", NULL, NULL, KS_REPORT_UNIT_COUNT, 4, 0, 5),
  G_COL ("memcpy_time_ns", NULL, NULL, KS_REPORT_UNIT_DURATION, 5, 0, 6),
  G_COL ("memset", NULL, NULL, KS_REPORT_UNIT_COUNT, 6, 0, 7),
  G_COL ("memset_time_ns", NULL, NULL, KS_REPORT_UNIT_DURATION, 7, 0, 8),
  G_COL ("busy_ns", NULL, NULL, KS_REPORT_UNIT_DURATION, 8, 5, 9),
  G_COL ("window_ns", NULL, NULL, KS_REPORT_UNIT_DURATION, 9, 6, 10),
  G_COL ("window", NULL, NULL, KS_REPORT_UNIT_TEXT, 10, 0, 11),
  G_COL ("window_start_ns", NULL, NULL, KS_REPORT_UNIT_DURATION, 11, 0, 12),
  G_COL ("window_end_ns", NULL, NULL, KS_REPORT_UNIT_DURATION, 12, 0, 13),
  G_COL ("busy_in_window_ns", NULL, NULL, KS_REPORT_UNIT_DURATION, 13, 7, 14),
  G_COL ("busy_pct", NULL, NULL, KS_REPORT_UNIT_PERCENT, 14, 8, 15),
  G_COL ("est_sm_efficiency_pct", NULL, NULL, KS_REPORT_UNIT_PERCENT, 15, 15, 16),
  G_COL ("est_occupancy_pct", NULL, NULL, KS_REPORT_UNIT_PERCENT, 16, 16, 17),
  G_COL ("gaps", "count", "gaps", KS_REPORT_UNIT_COUNT, 17, 9, 18),
  G_COL ("gap_total_ns", "total_ns", "gaps", KS_REPORT_UNIT_DURATION, 18, 10, 19),
  G_COL ("largest_gap_ns", "largest_ns", "gaps", KS_REPORT_UNIT_DURATION, 19, 11, 20),
  G_COL ("host_wait_ns", NULL, "gaps", KS_REPORT_UNIT_DURATION, 20, 12, 21),
  G_COL ("kernel_wait_ns", NULL, "gaps", KS_REPORT_UNIT_DURATION, 21, 13, 22),
  G_COL ("other_wait_ns", "other_ns", "gaps", KS_REPORT_UNIT_DURATION, 22, 14, 23),
  G_COL ("latency_count", "count", "launch_latency", KS_REPORT_UNIT_COUNT, 23, 0, 24),
  G_COL ("latency_p50_ns", "p50_ns", "launch_latency", KS_REPORT_UNIT_DURATION, 24, 0, 25),
  G_COL ("latency_p90_ns", "p90_ns", "launch_latency", KS_REPORT_UNIT_DURATION, 25, 0, 26),
  G_COL ("latency_p99_ns", "p99_ns", "launch_latency", KS_REPORT_UNIT_DURATION, 26, 0, 27),
  G_COL ("latency_max_ns", "max_ns", "launch_latency", KS_REPORT_UNIT_DURATION, 27, 0, 28),
  G_COL ("latency_mean_ns", "mean_ns", "launch_latency", KS_REPORT_UNIT_DURATION, 28, 0, 29),
  G_COL ("queue_p50_ns", "p50_ns", "queue", KS_REPORT_UNIT_DURATION, 29, 0, 30),
  G_COL ("queue_p90_ns", "p90_ns", "queue", KS_REPORT_UNIT_DURATION, 30, 0, 31),
  G_COL ("queue_p99_ns", "p99_ns", "queue", KS_REPORT_UNIT_DURATION, 31, 0, 32),
  G_COL ("queue_max_ns", "max_ns", "queue", KS_REPORT_UNIT_DURATION, 32, 0, 33),
  G_COL ("queue_mean_ns", "mean_ns", "queue", KS_REPORT_UNIT_DURATION, 33, 0, 34),
  G_COL ("span_ns", NULL, "temporal", KS_REPORT_UNIT_DURATION, 34, 0, 35),
  G_COL ("compute_ns", NULL, "temporal", KS_REPORT_UNIT_DURATION, 35, 0, 36),
  G_COL ("non_compute_ns", NULL, "temporal", KS_REPORT_UNIT_DURATION, 36, 0, 37),
  G_COL ("idle_ns", NULL, "temporal", KS_REPORT_UNIT_DURATION, 37, 0, 38),
};

/* GPU utilization as sampled, and its idle stretches */

#define UTIL(r, i) (&((const KsGpuUtilization *)(r)->rows)[i])

static void
utilization_get (const KsReport       *r,
                 const KsReportColumn *c,
                 guint                 i,
                 KsReportValue        *v)
{
  const KsGpuUtilization *u = UTIL (r, i);

  switch (c->arg)
    {
    case 0: set_int (v, u->device); break;
    case 1: set_string (v, str (r, u->name)); break;
    case 2: set_int (v, u->n_samples); break;
    case 3: set_int (v, u->end - u->start); break;
    case 4: set_double (v, u->mean_pct); break;
    case 5: set_double (v, u->max_pct); break;
    case 6: set_int (v, u->below_low_ns); break;
    case 7: set_double (v, u->below_low_pct); break;
    case 8: set_int (v, u->below_poor_ns); break;
    case 9: set_double (v, u->below_poor_pct); break;
    case 10: set_int (v, u->n_idle); break;
    case 11: set_int (v, u->longest_idle_ns); break;
    default: g_assert_not_reached ();
    }
}

#define U_COL(k_, t_, ab_, unit_, a_, tab_, csv_, json_, w_, fl_) \
  { .key = k_, .title = t_, .abbrev = ab_, .metric = -1, .unit = unit_, .decimals = 1, .get = utilization_get, \
    .arg = a_, .pos = { tab_, csv_, json_ }, .width = w_, .flags = fl_ }

static const KsReportColumn utilization_columns[] = {
  U_COL ("device", N_("GPU"), NULL, KS_REPORT_UNIT_COUNT, 0, 1, 1, 1, 3, 0),
  U_COL ("samples", N_("Samples"), NULL, KS_REPORT_UNIT_COUNT, 2, 2, 3, 3, 8, 0),
  U_COL ("duration_ns", N_("Duration"), NULL, KS_REPORT_UNIT_DURATION, 3, 3, 4, 4, 11, 0),
  U_COL ("mean_pct", N_("Mean Utilization"), N_("Mean"), KS_REPORT_UNIT_PERCENT, 4, 4, 5, 5, 7, 0),
  U_COL ("max_pct", N_("Max Utilization"), N_("Max"), KS_REPORT_UNIT_PERCENT, 5, 0, 6, 6, 7, 0),
  U_COL ("below_50_ns", N_("Time Under 50 %"), N_("<50 %"), KS_REPORT_UNIT_DURATION, 6, 5, 7, 7, 11, 0),
  U_COL ("below_50_pct", N_("Share Under 50 %"), N_("Share"), KS_REPORT_UNIT_PERCENT, 7, 6, 8, 8, 7, 0),
  U_COL ("below_30_ns", N_("Time Under 30 %"), N_("<30 %"), KS_REPORT_UNIT_DURATION, 8, 7, 9, 9, 11, 0),
  U_COL ("below_30_pct", N_("Share Under 30 %"), N_("Share"), KS_REPORT_UNIT_PERCENT, 9, 8, 10, 10, 7, 0),
  U_COL ("idle_stretches", N_("Stretches Under 50 %"), N_("Idle"), KS_REPORT_UNIT_COUNT, 10, 9, 11, 11, 5, 0),
  U_COL ("longest_idle_ns", N_("Longest Under 50 %"), N_("Longest"), KS_REPORT_UNIT_DURATION, 11, 10, 12, 12, 11, 0),
  U_COL ("name", N_("Name"), NULL, KS_REPORT_UNIT_TEXT, 1, 11, 2, 2, 0, KS_REPORT_COLUMN_LEFT),
};

#define STRETCH(r, i) (&((const KsIdleStretch *)(r)->rows)[i])

static void
stretch_get (const KsReport       *r,
             const KsReportColumn *c,
             guint                 i,
             KsReportValue        *v)
{
  const KsIdleStretch *s = STRETCH (r, i);

  switch (c->arg)
    {
    case 0: set_int (v, s->device); break;
    case 1: set_int (v, s->start); break;
    case 2: set_int (v, s->end); break;
    case 3: set_int (v, s->end - s->start); break;
    case 4: set_int (v, s->n_samples); break;
    case 5: set_double (v, s->mean_pct); break;
    default: g_assert_not_reached ();
    }
}

#define ST_COL(k_, t_, ab_, unit_, a_, tab_, csv_, json_, w_) \
  { .key = k_, .title = t_, .abbrev = ab_, .metric = -1, .unit = unit_, .decimals = 1, .get = stretch_get, \
    .arg = a_, .pos = { tab_, csv_, json_ }, .width = w_ }

static const KsReportColumn stretch_columns[] = {
  ST_COL ("device", N_("GPU"), NULL, KS_REPORT_UNIT_COUNT, 0, 1, 1, 1, 3),
  ST_COL ("start_ns", N_("Start"), NULL, KS_REPORT_UNIT_DURATION, 1, 2, 2, 2, 12),
  ST_COL ("end_ns", N_("End"), NULL, KS_REPORT_UNIT_DURATION, 2, 0, 3, 3, 0),
  ST_COL ("dur_ns", N_("Duration"), NULL, KS_REPORT_UNIT_DURATION, 3, 3, 4, 4, 11),
  ST_COL ("samples", N_("Samples"), NULL, KS_REPORT_UNIT_COUNT, 4, 4, 5, 5, 8),
  ST_COL ("mean_pct", N_("Mean Utilization"), N_("Mean"), KS_REPORT_UNIT_PERCENT, 5, 5, 6, 6, 0),
};

/* Steps */

#define STEP(r, i) (&((const KsStep *)(r)->rows)[i])

static gint64
step_pid (const KsReport *r,
          const KsStep   *step)
{
  guint32 process = r->trace->tracks[step->track].process;

  return process < r->trace->n_processes ? r->trace->processes[process].pid : -1;
}

static void
step_get (const KsReport       *r,
          const KsReportColumn *c,
          guint                 i,
          KsReportValue        *v)
{
  const KsStep *s = STEP (r, i);

  switch (c->arg)
    {
    case 0:
      /* an inferred step is named by its place, not by what the rule followed */
      if (s->inferred)
        take_string (v, ks_analysis_dup_step_name (r->analysis, r->trace, i));
      else
        set_string (v, str (r, s->name));
      break;
    case 1: set_int (v, step_pid (r, s)); break;
    case 2: set_int (v, s->start); break;
    case 3: set_int (v, s->end - s->start); break;
    case 11: set_rank (v, ks_trace_rank_of_track (r->trace, s->track)); break;
    case 12: v->type = KS_REPORT_VALUE_BOOL; v->i = s->warmup; break;
    case 13: v->type = KS_REPORT_VALUE_BOOL; v->i = s->inferred; break;
    default: set_int (v, s->parts[c->arg - 4]); break;
    }
}

/* NAME/PID when steps come from several processes without ranks, where
 * their names alone would be ambiguous; with ranks the rank column says
 * whose, and step N is one step of the job on every rank. */
static char *
step_name_text (const KsReport       *r,
                const KsReportColumn *c,
                guint                 i)
{
  const KsStep *s = STEP (r, i);
  g_autofree char *name = ks_analysis_dup_step_name (r->analysis, r->trace, i);

  if (r->several && r->trace->n_ranks < 2)
    return g_strdup_printf ("%s/%" G_GINT64_FORMAT, name, step_pid (r, s));
  /* TRANSLATORS: a step the warm-up's one-time work takes, in the step table */
  return s->warmup ? g_strdup_printf (_("%s (warm-up)"), name) : g_steal_pointer (&name);
}

#define S_PART(k_, jk_, title_, metric_, a_) \
  { .key = k_, .json_key = jk_, .group = "breakdown_ns", .title = title_, .metric = metric_, \
    .unit = KS_REPORT_UNIT_DURATION, .get = step_get, .arg = a_, .pos = { a_, a_ + 1, a_ + 1, a_ }, .width = 11 }

#define STEP_RANK_COLUMN 11

static const KsReportColumn step_columns[] = {
  { .key = "name", .title = N_("Step"), .metric = -1, .unit = KS_REPORT_UNIT_TEXT, .get = step_get,
    .text = step_name_text, .arg = 0, .pos = { 1, 1, 1, 1 }, .width = 18, .flags = KS_REPORT_COLUMN_LEFT },
  { .key = "pid", .title = N_("Process"), .metric = -1, .unit = KS_REPORT_UNIT_COUNT, .get = step_get,
    .arg = 1, .pos = { 0, 2, 2 } },
  { .key = "start_ns", .title = N_("Start"), .metric = -1, .unit = KS_REPORT_UNIT_DURATION, .get = step_get,
    .arg = 2, .pos = { 0, 3, 3 } },
  { .key = "dur_ns", .title = N_("Duration"), .metric = -1, .unit = KS_REPORT_UNIT_DURATION, .get = step_get,
    .arg = 3, .pos = { 2, 4, 4, 3 }, .width = 11 },
  S_PART ("kernel_ns", "kernel", NULL, KS_METRIC_STEP_KERNEL, 4),
  S_PART ("memcpy_ns", "memcpy", NULL, KS_METRIC_STEP_MEMCPY, 5),
  S_PART ("memset_ns", "memset", NULL, KS_METRIC_STEP_MEMSET, 6),
  S_PART ("runtime_ns", "runtime", NULL, KS_METRIC_STEP_RUNTIME, 7),
  S_PART ("dataloader_ns", "dataloader", NULL, KS_METRIC_STEP_DATALOADER, 8),
  S_PART ("cpu_exec_ns", "cpu_exec", NULL, KS_METRIC_STEP_CPU_EXEC, 9),
  S_PART ("other_ns", "other", NULL, KS_METRIC_STEP_OTHER, 10),
  { .key = "rank", .title = N_("Rank"), .metric = -1, .unit = KS_REPORT_UNIT_COUNT, .get = step_get,
    .arg = 11, .pos = { 3, 12, 12, 2 }, .width = 5 },
  { .key = "warmup", .title = N_("Warm-up"), .metric = -1, .unit = KS_REPORT_UNIT_BOOL, .get = step_get,
    .arg = 12, .pos = { 0, 13, 13, 11 } },
  { .key = "inferred", .title = N_("Inferred"), .metric = -1, .unit = KS_REPORT_UNIT_BOOL, .get = step_get,
    .arg = 13, .pos = { 0, 14, 14, 12 } },
};

/* Reports */

KsReport *
ks_report_new_gpus (KsTrace    *trace,
                    KsAnalysis *analysis)
{
  guint n;
  const KsGpuSummary *rows = ks_analysis_get_gpus (analysis, &n);

  return NEW ("gpus", gpu_columns, rows, n);
}

KsReport *
ks_report_new_utilization (KsTrace    *trace,
                           KsAnalysis *analysis)
{
  guint n;
  const KsGpuUtilization *rows = ks_analysis_get_utilization (analysis, &n);

  return NEW ("utilization", utilization_columns, rows, n);
}

KsReport *
ks_report_new_idle_stretches (KsTrace    *trace,
                              KsAnalysis *analysis)
{
  guint n;
  const KsIdleStretch *rows = ks_analysis_get_idle_stretches (analysis, &n);

  return NEW ("idle_stretches", stretch_columns, rows, n);
}

const KsReportColumn *
ks_report_step_columns (guint *n)
{
  *n = G_N_ELEMENTS (step_columns);
  return step_columns;
}

KsReport *
ks_report_new_steps (KsTrace    *trace,
                     KsAnalysis *analysis)
{
  guint n;
  const KsStep *rows = ks_analysis_get_steps (analysis, &n);
  KsReport *r = NEW ("steps", step_columns, rows, n);

  for (guint k = 0; k < KS_N_STEP_PARTS; k++)
    g_assert (strcmp (step_columns[4 + k].json_key, ks_step_part_to_string (k)) == 0);
  for (guint i = 1; i < n; i++)
    if (step_pid (r, &rows[i]) != step_pid (r, &rows[0]))
      r->several = TRUE;
  /* the rank column only where there are ranks to tell apart */
  if (trace->n_ranks < 2)
    for (guint f = 0; f < KS_REPORT_N_FORMATS; f++)
      r->hidden[f] |= G_GUINT64_CONSTANT (1) << STEP_RANK_COLUMN;
  return r;
}
