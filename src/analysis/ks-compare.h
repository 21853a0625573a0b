/* ks-compare.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-analysis.h"
#include "ks-report.h"

G_BEGIN_DECLS

/* Two runs side by side: a baseline and a new trace, each with its own
 * analysis (the same KsAnalysis that `stats` and the pages use, so each
 * side's figures are those of the file alone). What is compared is per
 * step when both traces have steps (their step counts may differ), else
 * per window: the totals of each. Kernels are matched by name, then
 * across names (ks-kernel-match.h), operators by name or by name and
 * input shapes. Immutable once made. */

typedef enum
{
  KS_COMPARE_BASE = 0,
  KS_COMPARE_NEW  = 1,
  KS_COMPARE_N_SIDES
} KsCompareSide;

#define KS_COMPARE_ABSENT G_MAXUINT

/* How a kernel of one run was paired with one of the other. */
typedef enum
{
  KS_COMPARE_MATCH_NAME = 0,         /* the same name (and every operator) */
  KS_COMPARE_MATCH_OPERATOR,         /* the same launching operator and order in the step */
  KS_COMPARE_MATCH_NORMALISED,       /* the same name with its numbers and Triton suffix left out */
} KsCompareMatch;

typedef struct
{
  const char *name;                  /* of the side that has it, the base's when both */
  const char *input_dims;            /* operators by shape; NULL else */
  const char *other_name;            /* kernels: the new run's name when matched across names, else NULL */
  KsCompareMatch match;
  guint32     name_id[KS_COMPARE_N_SIDES];   /* string id in each trace, 0 where absent */
  guint       index[KS_COMPARE_N_SIDES];     /* row of each side's analysis array, or KS_COMPARE_ABSENT */
  guint64     calls[KS_COMPARE_N_SIDES];
  gint64      total_ns[KS_COMPARE_N_SIDES];        /* kernels: their time; operators: device total */
  gint64      host_self_ns[KS_COMPARE_N_SIDES];    /* operators */
  gint64      host_total_ns[KS_COMPARE_N_SIDES];   /* operators */
  double      calls_per_step[KS_COMPARE_N_SIDES];
  double      per_step_ns[KS_COMPARE_N_SIDES];     /* total_ns over the side's steps (or 1 window) */
  double      host_self_per_step_ns[KS_COMPARE_N_SIDES];
  double      change_ns;             /* per step, new - base */
  double      ratio;                 /* new / base per step; < 0 when the base has none */
} KsCompareItem;

typedef enum
{
  KS_COMPARE_ITEM_BOTH,
  KS_COMPARE_ITEM_ADDED,             /* only in the new trace */
  KS_COMPARE_ITEM_REMOVED,           /* only in the baseline */
} KsCompareItemStatus;

typedef struct
{
  guint   n_steps;
  gint64  mean_ns;                   /* rounded; 0 without steps */
  gint64  median_ns;
  gint64  min_ns;
  gint64  max_ns;
  gint64  stddev_ns;                 /* population standard deviation: the spread */
  gint64  parts_ns[KS_N_STEP_PARTS]; /* mean breakdown per step, rounded */
} KsCompareSteps;

/* One row of the summary table: a figure of each side. */
typedef struct
{
  char         *label;               /* translated */
  const char   *key;                 /* stable: "busy_pct", "step_mean_ns"... */
  gint32        device;              /* the GPU it is about, -1 for the run */
  KsReportUnit  unit;                /* DURATION, PERCENT, COUNT, BYTES */
  gboolean      has[KS_COMPARE_N_SIDES];
  double        value[KS_COMPARE_N_SIDES];
} KsCompareMetric;

#define KS_TYPE_COMPARE (ks_compare_get_type ())

G_DECLARE_FINAL_TYPE (KsCompare, ks_compare, KS, COMPARE, GObject)

/* Holds references to both traces and analyses; @files name them. */
KsCompare             *ks_compare_new              (KsTrace      *base,
                                                    KsAnalysis   *base_analysis,
                                                    const char   *base_file,
                                                    KsTrace      *new_trace,
                                                    KsAnalysis   *new_analysis,
                                                    const char   *new_file);
/* Loads and analyses both files at once, each in its own thread, then
 * compares them. On failure @error names the file. */
KsCompare             *ks_compare_load             (GFile                    *base,
                                                    GFile                    *new_file,
                                                    const KsAnalysisOptions  *options,
                                                    GCancellable             *cancellable,
                                                    GError                  **error);

KsTrace               *ks_compare_get_trace        (KsCompare     *self,
                                                    KsCompareSide  side);
KsAnalysis            *ks_compare_get_analysis     (KsCompare     *self,
                                                    KsCompareSide  side);
const char            *ks_compare_get_file         (KsCompare     *self,
                                                    KsCompareSide  side);
/* TRUE: figures are per step; FALSE: one trace (or both) has no steps
 * and the figures are totals over each window. */
gboolean               ks_compare_get_per_step     (KsCompare     *self);
const KsCompareSteps  *ks_compare_get_steps        (KsCompare     *self,
                                                    KsCompareSide  side);
/* The devices of either side, ascending. */
const gint32          *ks_compare_get_devices      (KsCompare     *self,
                                                    guint         *n_devices);
/* Sorted by the size of the change in time per step, largest first. */
const KsCompareItem   *ks_compare_get_kernels      (KsCompare     *self,
                                                    guint         *n_items);
/* Sorted by the change in device time per step, then in host self time. */
const KsCompareItem   *ks_compare_get_operators    (KsCompare     *self,
                                                    KsOperatorGrouping grouping,
                                                    guint         *n_items);
KsCompareItemStatus    ks_compare_item_get_status  (const KsCompareItem *item);
/* "name", "operator", "normalised"; NULL for a kernel of one side. */
const char            *ks_compare_item_get_match   (const KsCompareItem *item);
/* The same for people, translated; "" for a kernel of one side. */
const char            *ks_compare_item_get_match_title (const KsCompareItem *item);
/* Advice of the new trace that the baseline did not have (added) and
 * the reverse (removed), matched by rule and GPU. */
/* Rows of that side's ks_analysis_get_advice(). */
const guint           *ks_compare_get_advice       (KsCompare     *self,
                                                    gboolean       added,
                                                    guint         *n_advice);
/* The rows of the summary table, in their order. */
const KsCompareMetric *ks_compare_get_metrics      (KsCompare     *self,
                                                    guint         *n_metrics);

/* The human form of a metric's figure: @side's value, or with
 * KS_COMPARE_N_SIDES the change ("+1.20 ms (+3.1 %)", "−4.2 pt"); "-"
 * where absent. */
char                  *ks_compare_metric_format    (const KsCompareMetric *metric,
                                                    guint                  side);

/* Reports (ks-report.h) over the comparison, for kinescope-cli diff and
 * the Compare page: "kernels", "operators" and "steps" (step i of each). */
/* The summary table: label, baseline, new, change. */
KsReport              *ks_compare_report_metrics   (KsCompare     *self);
KsReport              *ks_compare_report_kernels   (KsCompare     *self);
KsReport              *ks_compare_report_operators (KsCompare     *self,
                                                    gboolean       by_shape);
KsReport              *ks_compare_report_steps     (KsCompare     *self);

G_END_DECLS
