/* ks-report.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One file over 800 lines on purpose: the column descriptors of every
 * report lie side by side, so that keys, titles and places in each
 * format are read and checked together, next to the writers they drive.
 */

#define G_LOG_DOMAIN "ks-report"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ks-format.h"
#include "ks-report.h"

#define TABLE KS_REPORT_TABLE
#define CSV   KS_REPORT_CSV
#define JSON  KS_REPORT_JSON

void
ks_report_value_clear (KsReportValue *value)
{
  g_free (value->owned);
  memset (value, 0, sizeof *value);
}

static void
set_int (KsReportValue *v,
         gint64         i)
{
  v->type = KS_REPORT_VALUE_INT;
  v->i = i;
}

/* A rank, or nothing for -1 (no rank). */
static void
set_rank (KsReportValue *v,
          gint32         rank)
{
  if (rank >= 0)
    set_int (v, rank);
}

static void
set_double (KsReportValue *v,
            double         d)
{
  v->type = KS_REPORT_VALUE_DOUBLE;
  v->d = d;
}

/* Estimates are < 0 when unknown. */
static void
set_estimate (KsReportValue *v,
              double         d)
{
  if (d >= 0)
    set_double (v, d);
}

static void
set_string (KsReportValue *v,
            const char    *s)
{
  v->type = KS_REPORT_VALUE_STRING;
  v->s = s;
}

static void
take_string (KsReportValue *v,
             char          *s)
{
  set_string (v, s);
  v->owned = s;
}

static void
set_dim3 (KsReportValue *v,
          gint64         x,
          gint64         y,
          gint64         z)
{
  v->type = KS_REPORT_VALUE_DIM3;
  v->dim[0] = x;
  v->dim[1] = y;
  v->dim[2] = z;
}

void
ks_report_value_set_int (KsReportValue *value,
                         gint64         i)
{
  set_int (value, i);
}

void
ks_report_value_set_double (KsReportValue *value,
                            double         d)
{
  set_double (value, d);
}

void
ks_report_value_set_string (KsReportValue *value,
                            const char    *s)
{
  set_string (value, s);
}

static const char *
str (const KsReport *r,
     guint32         id)
{
  return ks_trace_string (r->trace, id);
}

/* GPUs (the summary) */

/* A column without a metric whose CSV and JSON places are the same:
 * what most of the newer reports have. */
#define PLAIN_COL(get_, k_, title_, unit_, a_, table_, machine_, width_, flags_) \
  { .key = k_, .title = title_, .metric = -1, .unit = unit_, .get = get_, \
    .arg = a_, .pos = { table_, machine_, machine_, machine_ }, .width = width_, .flags = flags_ }

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

#define OPERATOR(r, i) (&((const KsOperatorStats *)(r)->rows)[i])

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

#define Q_COL(k_, title_, metric_, unit_, dec_, a_, table_, machine_, width_) \
  { .key = k_, .title = title_, .metric = metric_, .unit = unit_, .decimals = dec_, .get = queue_get, \
    .arg = a_, .pos = { table_, machine_, machine_, table_ }, .width = width_ }

/* The rank column, where there are ranks to tell apart (hide_rank_alone()),
 * comes first in the text formats: columns of one place keep this order.
 * A page's rows show their rank on the timeline. */
static const KsReportColumn queue_columns[] = {
  { .key = "rank", .title = N_("Rank"), .metric = -1, .unit = KS_REPORT_UNIT_COUNT, .get = queue_get,
    .arg = 9, .pos = { 1, 1, 1, 0 }, .width = 5 },
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
  { .key = "rank", .title = N_("Rank"), .metric = -1, .unit = KS_REPORT_UNIT_COUNT, .get = copy_kind_get,
    .arg = 7, .pos = { 1, 1, 1, 0 }, .width = 5 },
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
  { .key = "rank", .title = N_("Rank"), .metric = -1, .unit = KS_REPORT_UNIT_COUNT, .get = copy_get,
    .arg = 7, .pos = { 1, 1, 1, 0 }, .width = 5 },
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
};

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

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

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
    default: g_assert_not_reached ();
    }
}

#define S_COL(k_, title_, unit_, a_, pos_, width_, flags_) \
  { .key = k_, .title = title_, .metric = -1, .unit = unit_, .get = sample_get, .arg = a_, \
    .pos = { pos_, pos_, pos_ }, .width = width_, .flags = flags_ }

static const KsReportColumn sample_columns[] = {
  S_COL ("thread", N_("Thread"), KS_REPORT_UNIT_TEXT, 0, 1, 18, KS_REPORT_COLUMN_LEFT),
  S_COL ("function", N_("Function"), KS_REPORT_UNIT_TEXT, 1, 2, 28, KS_REPORT_COLUMN_LEFT),
  S_COL ("file", N_("File"), KS_REPORT_UNIT_TEXT, 2, 3, 28, KS_REPORT_COLUMN_LEFT),
  S_COL ("line", N_("Line"), KS_REPORT_UNIT_COUNT, 3, 4, 6, 0),
  S_COL ("self", N_("Self"), KS_REPORT_UNIT_COUNT, 4, 5, 8, 0),
  S_COL ("total", N_("Total"), KS_REPORT_UNIT_COUNT, 5, 6, 0, 0),
};

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
ks_report_step_columns (guint *n)
{
  *n = G_N_ELEMENTS (step_columns);
  return step_columns;
}

const KsReportColumn *
ks_report_rank_columns (guint *n)
{
  *n = G_N_ELEMENTS (rank_columns);
  return rank_columns;
}

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
ks_report_gpu_annotation_columns (guint *n)
{
  *n = G_N_ELEMENTS (annotation_columns);
  return annotation_columns;
}

const KsReportColumn *
ks_report_kernel_columns (guint *n)
{
  *n = G_N_ELEMENTS (kernel_columns);
  return kernel_columns;
}

const KsReportColumn *
ks_report_operator_columns (guint *n)
{
  *n = G_N_ELEMENTS (operator_columns);
  return operator_columns;
}

const KsReportColumn *
ks_report_gap_columns (guint *n)
{
  *n = G_N_ELEMENTS (gap_columns);
  return gap_columns;
}

const KsReportColumn *
ks_report_allocation_columns (guint *n)
{
  *n = G_N_ELEMENTS (allocation_columns);
  return allocation_columns;
}

const KsReportColumn *
ks_report_find_column (const KsReportColumn *columns,
                       guint                 n,
                       const char           *key)
{
  for (guint i = 0; i < n; i++)
    if (strcmp (columns[i].key, key) == 0)
      return &columns[i];
  g_return_val_if_reached (NULL);
}

static KsReport *
report_new (KsTrace              *trace,
            KsAnalysis           *analysis,
            const char           *key,
            const KsReportColumn *columns,
            guint                 n_columns,
            gconstpointer         rows,
            guint                 n_rows)
{
  KsReport *r = g_new0 (KsReport, 1);

  g_assert (n_columns <= 64);
  r->key = key;
  r->columns = columns;
  r->n_columns = n_columns;
  r->trace = trace != NULL ? g_object_ref (trace) : NULL;
  r->analysis = analysis != NULL ? g_object_ref (analysis) : NULL;
  r->rows = rows;
  r->n_rows = n_rows;
  return r;
}

KsReport *
ks_report_new_for_rows (KsTrace              *trace,
                        KsAnalysis           *analysis,
                        GObject              *owner,
                        const char           *key,
                        const KsReportColumn *columns,
                        guint                 n_columns,
                        gconstpointer         rows,
                        guint                 n_rows)
{
  KsReport *r = report_new (trace, analysis, key, columns, n_columns, rows, n_rows);

  r->owner = owner != NULL ? g_object_ref (owner) : NULL;
  return r;
}

#define NEW(key, columns, rows, n) report_new (trace, analysis, key, columns, G_N_ELEMENTS (columns), rows, n)

/* @r without its "rank" column unless the trace has ranks to tell apart. */
static KsReport *
hide_rank_alone (KsReport *r)
{
  if (r->trace->n_ranks >= 2)
    return r;
  for (guint c = 0; c < r->n_columns; c++)
    if (strcmp (r->columns[c].key, "rank") == 0)
      for (guint f = 0; f < KS_REPORT_N_FORMATS; f++)
        r->hidden[f] |= G_GUINT64_CONSTANT (1) << c;
  return r;
}

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

KsReport *
ks_report_new_kernels (KsTrace    *trace,
                       KsAnalysis *analysis)
{
  guint n;
  const KsKernelStats *rows = ks_analysis_get_kernels (analysis, &n);

  return NEW ("kernels", kernel_columns, rows, n);
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

KsReport *
ks_report_new_queues (KsTrace    *trace,
                      KsAnalysis *analysis)
{
  guint n;
  const KsQueueStats *rows = ks_analysis_get_queues (analysis, &n);

  return hide_rank_alone (NEW ("streams", queue_columns, rows, n));
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

KsReport *
ks_report_new_advice (KsTrace    *trace,
                      KsAnalysis *analysis)
{
  guint n;
  const KsAdvice *rows = ks_analysis_get_advice (analysis, &n);

  return NEW ("advice", advice_columns, rows, n);
}

void
ks_report_free (KsReport *report)
{
  if (report == NULL)
    return;
  g_clear_object (&report->trace);
  g_clear_object (&report->analysis);
  g_clear_object (&report->owner);
  g_free (report);
}

static guint
columns_by_place (const KsReportColumn  *columns,
                  guint                  n_columns,
                  KsReportFormat         format,
                  guint64                hidden,
                  const KsReportColumn **out,
                  guint                  max)
{
  guint n = 0;

  /* By place: columns are few, a selection is enough. */
  for (guint place = 1; place <= 255 && n < max; place++)
    for (guint c = 0; c < n_columns && n < max; c++)
      if (columns[c].pos[format] == place && !(hidden & (G_GUINT64_CONSTANT (1) << c)))
        out[n++] = &columns[c];
  return n;
}

guint
ks_report_get_format_columns (const KsReport        *report,
                              KsReportFormat         format,
                              const KsReportColumn **out,
                              guint                  max)
{
  return columns_by_place (report->columns, report->n_columns, format, report->hidden[format], out, max);
}

guint
ks_report_get_page_columns (const KsReportColumn  *columns,
                            guint                  n,
                            const KsReportColumn **out,
                            guint                  max)
{
  return columns_by_place (columns, n, KS_REPORT_PAGE, 0, out, max);
}

guint
ks_report_row_index (const KsReport *report,
                     guint           row)
{
  return report->order != NULL ? report->order[row] : row;
}

void
ks_report_get_value (const KsReport       *report,
                     const KsReportColumn *column,
                     guint                 index,
                     KsReportValue        *value)
{
  memset (value, 0, sizeof *value);
  column->get (report, column, index, value);
}

char *
ks_report_get_text (const KsReport       *report,
                    const KsReportColumn *column,
                    guint                 index)
{
  g_auto(KsReportValue) v = { 0 };

  if (column->text != NULL)
    return column->text (report, column, index);

  ks_report_get_value (report, column, index, &v);
  switch (v.type)
    {
    case KS_REPORT_VALUE_NONE:
      return g_strdup ("-");
    case KS_REPORT_VALUE_STRING:
      return g_strdup (v.s != NULL ? v.s : "");
    case KS_REPORT_VALUE_BOOL:
      return g_strdup (v.i ? _("yes") : _("no"));
    case KS_REPORT_VALUE_DIM3:
      return g_strdup_printf ("%" G_GINT64_FORMAT "×%" G_GINT64_FORMAT "×%" G_GINT64_FORMAT,
                              v.dim[0], v.dim[1], v.dim[2]);
    case KS_REPORT_VALUE_RANGES:
      return g_strdup_printf ("%u", v.n_ranges);
    case KS_REPORT_VALUE_INT:
    case KS_REPORT_VALUE_DOUBLE:
    default:
      break;
    }

  switch (column->unit)
    {
    case KS_REPORT_UNIT_DURATION:
      return ks_time_format_duration (v.type == KS_REPORT_VALUE_INT ? v.i : (gint64)llround (v.d));
    case KS_REPORT_UNIT_BYTES:
      return ks_format_bytes ((guint64)MAX (v.i, 0));
    case KS_REPORT_UNIT_PERCENT:
      return g_strdup_printf ("%.*f %%", (int)column->decimals, v.type == KS_REPORT_VALUE_INT ? (double)v.i : v.d);
    case KS_REPORT_UNIT_RATIO:
      return g_strdup_printf ("%.*f %%", (int)column->decimals, 100 * v.d);
    case KS_REPORT_UNIT_TEXT:
    case KS_REPORT_UNIT_COUNT:
    case KS_REPORT_UNIT_DIM3:
    case KS_REPORT_UNIT_BOOL:
    case KS_REPORT_UNIT_RANGES:
    default:
      if (v.type == KS_REPORT_VALUE_DOUBLE)
        return g_strdup_printf ("%.*f", (int)column->decimals, v.d);
      return g_strdup_printf ("%" G_GINT64_FORMAT, v.i);
    }
}

int
ks_report_compare (const KsReport       *report,
                   const KsReportColumn *column,
                   guint                 a,
                   guint                 b)
{
  g_auto(KsReportValue) va = { 0 };
  g_auto(KsReportValue) vb = { 0 };

  if (column->compare != NULL)
    return column->compare (report, column, a, b);
  ks_report_get_value (report, column, a, &va);
  ks_report_get_value (report, column, b, &vb);
  /* Absent values sort before every other. */
  if (va.type != vb.type)
    return CMP (va.type, vb.type);
  switch (va.type)
    {
    case KS_REPORT_VALUE_STRING: return g_strcmp0 (va.s, vb.s);
    case KS_REPORT_VALUE_DOUBLE: return CMP (va.d, vb.d);
    case KS_REPORT_VALUE_DIM3:
      for (guint d = 0; d < 3; d++)
        if (va.dim[d] != vb.dim[d])
          return CMP (va.dim[d], vb.dim[d]);
      return 0;
    case KS_REPORT_VALUE_RANGES: return CMP (va.n_ranges, vb.n_ranges);
    case KS_REPORT_VALUE_NONE: return 0;
    case KS_REPORT_VALUE_INT:
    case KS_REPORT_VALUE_BOOL:
    default: return CMP (va.i, vb.i);
    }
}

const char *
ks_report_column_get_title (const KsReportColumn *column)
{
  if (column->title != NULL)
    return _(column->title);
  if (column->metric >= 0)
    return ks_metric_get_title (column->metric);
  return column->key;
}

const char *
ks_report_column_get_tooltip (const KsReportColumn *column)
{
  if (column->tooltip != NULL)
    return _(column->tooltip);
  if (column->metric >= 0)
    return ks_metric_get_definition (column->metric);
  return NULL;
}

/* CSV */

/* RFC 4180: quoted when it holds a comma, a quote or a newline. */
static void
csv_field (GString     *out,
           const char  *s,
           void       (*escape) (GString *out, const char *s))
{
  g_autoptr(GString) text = g_string_new (NULL);

  if (escape != NULL)
    escape (text, s);
  else if (s != NULL)
    g_string_append (text, s);
  if (strpbrk (text->str, ",\"\n") == NULL)
    {
      g_string_append_len (out, text->str, text->len);
      return;
    }
  g_string_append_c (out, '"');
  for (const char *p = text->str; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

static void
append_double (GString *out,
               double   d)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.4f", d));
}

void
ks_report_write_csv (const KsReport  *report,
                     GString         *out,
                     guint            n_rows,
                     void           (*escape) (GString *out, const char *s))
{
  const KsReportColumn *cols[64];
  guint n = ks_report_get_format_columns (report, CSV, cols, G_N_ELEMENTS (cols));
  static const char * const axes[] = { "x", "y", "z" };

  for (guint c = 0; c < n; c++)
    {
      if (c > 0)
        g_string_append_c (out, ',');
      if (cols[c]->unit == KS_REPORT_UNIT_DIM3)
        g_string_append_printf (out, "%s_%s,%s_%s,%s_%s", cols[c]->key, axes[0], cols[c]->key, axes[1],
                                cols[c]->key, axes[2]);
      else
        g_string_append (out, cols[c]->key);
    }
  g_string_append_c (out, '\n');

  n_rows = MIN (n_rows, report->n_rows);
  for (guint row = 0; row < n_rows; row++)
    {
      guint index = ks_report_row_index (report, row);

      for (guint c = 0; c < n; c++)
        {
          g_auto(KsReportValue) v = { 0 };

          if (c > 0)
            g_string_append_c (out, ',');
          ks_report_get_value (report, cols[c], index, &v);
          switch (v.type)
            {
            case KS_REPORT_VALUE_INT:
            case KS_REPORT_VALUE_BOOL:
              g_string_append_printf (out, "%" G_GINT64_FORMAT, v.i);
              break;
            case KS_REPORT_VALUE_DOUBLE:
              append_double (out, v.d);
              break;
            case KS_REPORT_VALUE_STRING:
              csv_field (out, v.s, escape);
              break;
            case KS_REPORT_VALUE_DIM3:
              g_string_append_printf (out, "%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT,
                                      v.dim[0], v.dim[1], v.dim[2]);
              break;
            case KS_REPORT_VALUE_NONE:
            case KS_REPORT_VALUE_RANGES:
            default:
              break;
            }
        }
      g_string_append_c (out, '\n');
    }
}

/* JSON */

static void
json_value (KsJsonWriter         *json,
            const char           *key,
            const KsReportColumn *column,
            const KsReportValue  *v)
{
  switch (v->type)
    {
    case KS_REPORT_VALUE_INT:
      if (v->i >= 0 || !(column->flags & KS_REPORT_COLUMN_OMIT_NEGATIVE))
        ks_json_int (json, key, v->i);
      break;
    case KS_REPORT_VALUE_DOUBLE:
      ks_json_double (json, key, v->d, 4);
      break;
    case KS_REPORT_VALUE_STRING:
      ks_json_string (json, key, v->s);
      break;
    case KS_REPORT_VALUE_BOOL:
      ks_json_bool (json, key, v->i != 0);
      break;
    case KS_REPORT_VALUE_DIM3:
      ks_json_begin_array (json, key);
      for (guint d = 0; d < 3; d++)
        ks_json_int (json, NULL, v->dim[d]);
      ks_json_end_array (json);
      break;
    case KS_REPORT_VALUE_RANGES:
      ks_json_begin_array (json, key);
      for (guint r = 0; r < v->n_ranges; r++)
        {
          ks_json_begin_object (json, NULL);
          ks_json_int (json, "start_ns", v->ranges[r].start);
          ks_json_int (json, "end_ns", v->ranges[r].end);
          ks_json_end_object (json);
        }
      ks_json_end_array (json);
      break;
    case KS_REPORT_VALUE_NONE:
    default:
      ks_json_null (json, key);
      break;
    }
}

void
ks_report_write_json (const KsReport *report,
                      KsJsonWriter   *json,
                      const char     *key,
                      guint           n_rows)
{
  const KsReportColumn *cols[64];
  guint n = ks_report_get_format_columns (report, JSON, cols, G_N_ELEMENTS (cols));

  n_rows = MIN (n_rows, report->n_rows);
  ks_json_begin_array (json, key != NULL ? key : report->key);
  for (guint row = 0; row < n_rows; row++)
    {
      guint index = ks_report_row_index (report, row);
      const char *group = NULL;

      ks_json_begin_object (json, NULL);
      for (guint c = 0; c < n; c++)
        {
          g_auto(KsReportValue) v = { 0 };

          /* Consecutive members of one group make a nested object. */
          if (g_strcmp0 (group, cols[c]->group) != 0)
            {
              if (group != NULL)
                ks_json_end_object (json);
              group = cols[c]->group;
              if (group != NULL)
                ks_json_begin_object (json, group);
            }
          ks_report_get_value (report, cols[c], index, &v);
          json_value (json, cols[c]->json_key != NULL ? cols[c]->json_key : cols[c]->key, cols[c], &v);
        }
      if (group != NULL)
        ks_json_end_object (json);
      ks_json_end_object (json);
    }
  ks_json_end_array (json);
}
