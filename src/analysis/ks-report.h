/* ks-report.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-analysis.h"
#include "ks-json-writer.h"

G_BEGIN_DECLS

/* One report model: a report (kernels, operators, gaps...) is rows of an
 * analysis array plus a table of column descriptors. The text tables,
 * CSV and JSON of kinescope-cli stats and the columns of the pages are
 * all driven by the descriptors, so a column is added in one place. */

typedef enum
{
  KS_REPORT_UNIT_TEXT,
  KS_REPORT_UNIT_COUNT,
  KS_REPORT_UNIT_DURATION,   /* ns; an integer, or a mean as a double */
  KS_REPORT_UNIT_BYTES,
  KS_REPORT_UNIT_PERCENT,    /* a double, 0..100 */
  KS_REPORT_UNIT_RATIO,      /* a double, 0..1; shown as a percentage */
  KS_REPORT_UNIT_DIM3,       /* three integers: CSV KEY_x,KEY_y,KEY_z; JSON [x,y,z] */
  KS_REPORT_UNIT_BOOL,
  KS_REPORT_UNIT_RANGES,     /* time ranges; JSON only: [{start_ns,end_ns}...] */
} KsReportUnit;

typedef enum
{
  KS_REPORT_VALUE_NONE = 0,  /* absent: null in JSON, empty in CSV, "-" in text */
  KS_REPORT_VALUE_INT,
  KS_REPORT_VALUE_DOUBLE,
  KS_REPORT_VALUE_STRING,
  KS_REPORT_VALUE_BOOL,
  KS_REPORT_VALUE_DIM3,
  KS_REPORT_VALUE_RANGES,
} KsReportValueType;

typedef struct
{
  KsReportValueType  type;
  gint64             i;
  double             d;
  const char        *s;        /* NULL: absent */
  gint64             dim[3];
  const KsTimeRange *ranges;
  guint              n_ranges;
  char              *owned;    /* freed by ks_report_value_clear() */
} KsReportValue;

typedef enum
{
  KS_REPORT_TABLE,
  KS_REPORT_CSV,
  KS_REPORT_JSON,
  KS_REPORT_PAGE,            /* the columns of a page's GtkColumnView */
  KS_REPORT_N_FORMATS
} KsReportFormat;

typedef enum
{
  KS_REPORT_COLUMN_LEFT          = 1 << 0, /* text table: aligned left */
  KS_REPORT_COLUMN_OMIT_NEGATIVE = 1 << 1, /* JSON: no member when the integer is < 0 */
} KsReportColumnFlags;

typedef struct _KsReport       KsReport;
typedef struct _KsReportColumn KsReportColumn;

/* @index is a row of the analysis array, not a position in the output. */
typedef void  (*KsReportGetFunc)  (const KsReport       *report,
                                   const KsReportColumn *column,
                                   guint                 index,
                                   KsReportValue        *value);
typedef char *(*KsReportTextFunc) (const KsReport       *report,
                                   const KsReportColumn *column,
                                   guint                 index);
typedef int   (*KsReportCompareFunc) (const KsReport       *report,
                                      const KsReportColumn *column,
                                      guint                 a,
                                      guint                 b);

struct _KsReportColumn
{
  const char          *key;       /* CSV header, JSON member */
  const char          *json_key;  /* the JSON member when not @key */
  const char          *group;     /* JSON: inside this object member of the row */
  const char          *title;     /* N_(): the pages' header, the text table's unless @abbrev;
                                   * NULL: the title of @metric */
  const char          *abbrev;    /* N_(): the narrower header of the text table */
  const char          *tooltip;   /* N_(), or NULL: the definition of @metric */
  int                  metric;    /* a KsMetric, or -1 */
  KsReportUnit         unit;
  guint                decimals;  /* human form of doubles */
  KsReportGetFunc      get;
  KsReportTextFunc     text;      /* human form when the unit's is not right */
  KsReportCompareFunc  compare;   /* the pages' sort when the value's is not right */
  guint                arg;       /* for @get: a step part, a gap class... */
  /* Place in each format, from 1; 0: not in it. */
  guint8               pos[KS_REPORT_N_FORMATS];
  guint8               width;     /* text table: display columns; 0: the last, unpadded */
  KsReportColumnFlags  flags;
};

struct _KsReport
{
  const char           *key;      /* the JSON member of the list: "kernels" */
  const KsReportColumn *columns;
  guint                 n_columns;
  guint64               hidden[KS_REPORT_N_FORMATS]; /* columns left out of a format by this report */
  KsTrace              *trace;
  KsAnalysis           *analysis;
  gconstpointer         rows;
  guint                 n_rows;
  const guint          *order;    /* output row i is rows[order[i]], or NULL */
  gboolean              by_shape; /* operators */
  gboolean              several;  /* steps from several processes */
  GObject              *owner;    /* held for @rows when they are not the analysis' */
};

void      ks_report_value_clear   (KsReportValue *value);
/* For the get functions of columns outside this file. */
void      ks_report_value_set_int    (KsReportValue *value,
                                      gint64         i);
void      ks_report_value_set_double (KsReportValue *value,
                                      double         d);
void      ks_report_value_set_string (KsReportValue *value,
                                      const char    *s);

/* The columns of each report, for the pages. */
const KsReportColumn *ks_report_kernel_columns     (guint *n);
const KsReportColumn *ks_report_operator_columns   (guint *n);
const KsReportColumn *ks_report_gap_columns        (guint *n);
const KsReportColumn *ks_report_allocation_columns (guint *n);
const KsReportColumn *ks_report_comm_columns       (guint *n);
const KsReportColumn *ks_report_step_columns       (guint *n);
const KsReportColumn *ks_report_rank_columns       (guint *n);
const KsReportColumn *ks_report_tensor_core_operator_columns (guint *n);
const KsReportColumn *ks_report_queue_columns      (guint *n);
const KsReportColumn *ks_report_copy_columns       (guint *n);
const KsReportColumn *ks_report_kernel_sequence_columns (guint *n);
const KsReportColumn *ks_report_gpu_annotation_columns  (guint *n);
const KsReportColumn *ks_report_profiler_counter_columns (guint *n);
const KsReportColumn *ks_report_find_column        (const KsReportColumn *columns,
                                                    guint                 n,
                                                    const char           *key);
/* The columns of @columns that a page shows, in the page's order;
 * returns how many. */
guint                 ks_report_get_page_columns   (const KsReportColumn  *columns,
                                                    guint                  n,
                                                    const KsReportColumn **out,
                                                    guint                  max);

/* Reports over @analysis; they hold a reference to it and to @trace. */
KsReport *ks_report_new_gpus        (KsTrace    *trace,
                                     KsAnalysis *analysis);
/* Sampled "GPU utilization" per GPU, and its stretches under 50 %. */
KsReport *ks_report_new_utilization (KsTrace    *trace,
                                     KsAnalysis *analysis);
KsReport *ks_report_new_idle_stretches (KsTrace    *trace,
                                        KsAnalysis *analysis);
/* GPM's mean SM and tensor activity beside busy time, per GPU and per
 * step (ks-report-activity.c). */
KsReport *ks_report_new_gpu_activity (KsTrace    *trace,
                                      KsAnalysis *analysis);
KsReport *ks_report_new_step_activity (KsTrace    *trace,
                                       KsAnalysis *analysis);
KsReport *ks_report_new_steps       (KsTrace    *trace,
                                     KsAnalysis *analysis);
KsReport *ks_report_new_kernels     (KsTrace    *trace,
                                     KsAnalysis *analysis);
KsReport *ks_report_new_operators   (KsTrace    *trace,
                                     KsAnalysis *analysis,
                                     gboolean    by_shape);
/* The Tensor Cores view: every kernel, whether it uses tensor cores;
 * operators (by name), eligible or not and their tensor-core share. */
KsReport *ks_report_new_tensor_core_kernels   (KsTrace    *trace,
                                               KsAnalysis *analysis);
KsReport *ks_report_new_tensor_core_operators (KsTrace    *trace,
                                               KsAnalysis *analysis);
/* Achieved memcpy bandwidth per device and copy kind, and per copy. */
KsReport *ks_report_new_copy_kinds  (KsTrace    *trace,
                                     KsAnalysis *analysis);
KsReport *ks_report_new_copies      (KsTrace    *trace,
                                     KsAnalysis *analysis);
/* The most frequent runs of consecutive kernels on a stream. */
KsReport *ks_report_new_kernel_sequences (KsTrace    *trace,
                                          KsAnalysis *analysis);
/* Every counter of every CUPTI range-profiler range, by range. */
KsReport *ks_report_new_profiler_counters (KsTrace    *trace,
                                           KsAnalysis *analysis);
/* What the profiler ranges are, for the CLI and the page:
 * "77 range-profiler ranges on 1 GPU"; and why no range has operators,
 * NULL when they have. */
char     *ks_report_describe_profiler_ranges (const KsProfilerRanges *ranges);
char     *ks_report_explain_profiler_operators (const KsProfilerRanges *ranges);
/* Launch latency and queueing, written once for the CLI and the pages:
 * "p50 1.05 µs · p90 1.54 µs" for a GPU's card; and for the kernels,
 * "Launch latency of 176 kernels: p50 …, p90 …, p99 …; queueing behind
 * earlier work: p50 …, p90 …" (both: on a saturated GPU the wait is
 * queueing, not launching). */
char     *ks_report_describe_latency        (const KsLaunchLatency *latency);
char     *ks_report_describe_launch_latency (KsAnalysis            *analysis);
/* Kernels by name and launching operator, or by name and launch. */
KsReport *ks_report_new_kernel_groups    (KsTrace          *trace,
                                          KsAnalysis       *analysis,
                                          KsKernelGrouping  grouping);
/* Allocations per operator, self and with nested operators. */
KsReport *ks_report_new_operator_memory  (KsTrace    *trace,
                                          KsAnalysis *analysis);
/* Outermost operators by their Python call stack. */
KsReport *ks_report_new_operator_stacks  (KsTrace    *trace,
                                          KsAnalysis *analysis);
/* HTA's GPU user-annotation breakdown. */
KsReport *ks_report_new_gpu_annotations  (KsTrace    *trace,
                                          KsAnalysis *analysis);
/* HTA's queue length per stream. */
KsReport *ks_report_new_queues      (KsTrace    *trace,
                                     KsAnalysis *analysis);
KsReport *ks_report_new_gaps        (KsTrace    *trace,
                                     KsAnalysis *analysis);
KsReport *ks_report_new_gap_causes  (KsTrace    *trace,
                                     KsAnalysis *analysis);
KsReport *ks_report_new_memory      (KsTrace    *trace,
                                     KsAnalysis *analysis);
KsReport *ks_report_new_allocations (KsTrace    *trace,
                                     KsAnalysis *analysis);
KsReport *ks_report_new_samples     (KsTrace    *trace,
                                     KsAnalysis *analysis);
KsReport *ks_report_new_advice      (KsTrace    *trace,
                                     KsAnalysis *analysis);
/* A report over rows of another owner (a comparison's), which it holds. */
KsReport *ks_report_new_for_rows    (KsTrace              *trace,
                                     KsAnalysis           *analysis,
                                     GObject              *owner,
                                     const char           *key,
                                     const KsReportColumn *columns,
                                     guint                 n_columns,
                                     gconstpointer         rows,
                                     guint                 n_rows);
/* Collectives by kind and size ("collectives"); ranks ("ranks"). */
KsReport *ks_report_new_comms       (KsTrace    *trace,
                                     KsAnalysis *analysis);
KsReport *ks_report_new_ranks       (KsTrace    *trace,
                                     KsAnalysis *analysis);
/* Each step of each rank ("steps"). */
KsReport *ks_report_new_rank_steps  (KsTrace    *trace,
                                     KsAnalysis *analysis);
/* The same over rows of per-rank summaries merged by kinescope-cli
 * ranks: no trace or analysis; @rows must outlive the report. */
KsReport *ks_report_new_rank_rows   (const KsRankStats *rows,
                                     guint              n);
void      ks_report_free            (KsReport   *report);
/* Whether an operators report has a thread time (CPU time) for some
 * operator; without, its "host_thread_ns" column is left out of all
 * but the CSV. */
gboolean  ks_report_has_thread_time (const KsReport *report);

/* Columns of @format in their order; returns how many. */
guint     ks_report_get_format_columns (const KsReport        *report,
                                        KsReportFormat         format,
                                        const KsReportColumn **out,
                                        guint                  max);
guint     ks_report_row_index       (const KsReport       *report,
                                     guint                 row);
void      ks_report_get_value       (const KsReport       *report,
                                     const KsReportColumn *column,
                                     guint                 index,
                                     KsReportValue        *value);
/* The human form: what a table cell and a page cell show ("12.3 %",
 * "1×2×3", a grid "1×2×3 *" when calls differ, "-" when absent). */
char     *ks_report_get_text        (const KsReport       *report,
                                     const KsReportColumn *column,
                                     guint                 index);
/* The order of the pages: @column's compare, else by value, absent
 * values first. */
int       ks_report_compare         (const KsReport       *report,
                                     const KsReportColumn *column,
                                     guint                 a,
                                     guint                 b);
/* Translated; @title, else the title of @metric. */
const char *ks_report_column_get_title   (const KsReportColumn *column);
const char *ks_report_column_get_tooltip (const KsReportColumn *column);


/* Machine forms. CSV: a header of the keys, then @n_rows rows (at most;
 * G_MAXUINT: all), RFC 4180 quoting; @escape makes names safe for a
 * terminal (it keeps newlines, which CSV quotes). JSON: a list of
 * objects, members named by the keys, as member @report->key of the
 * object being written. */
void      ks_report_write_csv       (const KsReport       *report,
                                     GString              *out,
                                     guint                 n_rows,
                                     void                (*escape) (GString *out, const char *s));
void      ks_report_write_json      (const KsReport       *report,
                                     KsJsonWriter         *json,
                                     const char           *key,
                                     guint                 n_rows);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsReport, ks_report_free)
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC (KsReportValue, ks_report_value_clear)

G_END_DECLS
