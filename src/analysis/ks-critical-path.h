/* ks-critical-path.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ks-analysis.h"
#include "ks-trace.h"

G_BEGIN_DECLS

/* The critical path of each step: the chain of dependent work that sets
 * the step's duration, and what the step would take if some of that work
 * were faster (what-if rules).
 *
 * Per step, a graph of time points: the boundaries of the slices of the
 * step's process's threads, in order on each thread (a segment between
 * two points belongs to the innermost slice over it), the start and end
 * of each kernel, copy and memset, in order on each stream, and the
 * dependencies between them: launch call → GPU work (by correlation id,
 * every op of a graph launch), synchronizing call ← the GPU work it
 * waited for, cudaStreamWaitEvent ← the work before the cudaEventRecord,
 * and a thread idle while another worked ← that thread's work. Each
 * point's time is the latest of its predecessors plus the edge's weight;
 * what is left over (a kernel starting after its launch call) is kept as
 * the point's own delay, so that the observed trace is reproduced exactly
 * and the path from the step's start to its end is as long as the step.
 * A what-if scales the weights and delays that its rules match and
 * times the graph again. */

typedef enum
{
  KS_PATH_CPU = 0,     /* a CPU operator's own time */
  KS_PATH_PYTHON,      /* Python frames, user annotations, untraced host time */
  KS_PATH_DATALOADER,  /* enumerate(DataLoader) and what it calls */
  KS_PATH_LAUNCH,      /* CUDA API calls, and GPU work waiting for its launch */
  KS_PATH_GPU,         /* kernels */
  KS_PATH_COPY,        /* memcpy and memset on the GPU */
  KS_PATH_SYNC,        /* synchronizing calls beyond the GPU work they waited for */
  KS_PATH_COMM,        /* collectives: NCCL kernels, gloo and c10d operators */
  KS_N_PATH_CLASSES
} KsPathClass;

typedef struct
{
  guint32  name;               /* string id */
  guint8   klass;              /* KsPathClass */
  gint64   ns;                 /* its time on the path */
  guint32  track;              /* its longest piece on the path */
  guint32  slice;
} KsPathItem;

/* A stretch of the path on one slice, in observed times. */
typedef struct
{
  guint32  track;
  guint32  slice;              /* KS_NO_INDEX for host time outside any slice */
  gint64   start;
  gint64   end;
  guint8   klass;              /* KsPathClass */
} KsPathSegment;

typedef struct
{
  guint32        name;         /* string id of the step */
  guint          step;         /* its index in the analysis's steps */
  gint32         rank;         /* the rank whose step it is, -1 in a trace without ranks */
  /* The rank that set the step: the one whose late arrival at the
   * collectives on the path kept this rank waiting longest (their wait
   * on the path: set_by_wait_ns), else the step's own rank. */
  gint32         set_by_rank;
  gint64         set_by_wait_ns;
  gint64         start;        /* the step's span (KsStep.start, end) */
  gint64         end;
  gint64         dur_ns;
  gint64         path_ns;      /* the path's length */
  gint64         by_class[KS_N_PATH_CLASSES];
  guint          n_items;      /* by time on the path, descending */
  KsPathItem    *items;
  guint          n_segments;   /* in time order */
  KsPathSegment *segments;
  /* With what-if rules: the step's duration once re-timed, and the new
   * path's share by class; else path_ns and by_class. */
  gint64         predicted_ns;
  gint64         predicted_by_class[KS_N_PATH_CLASSES];
} KsPathStep;

typedef enum
{
  KS_WHAT_IF_OP = 0,           /* op:GLOB=FACTOR, CPU time of matching operators and what they call */
  KS_WHAT_IF_KERNEL,           /* kernel:GLOB=FACTOR */
  KS_WHAT_IF_COPY,             /* copy=FACTOR, memcpy and memset on the GPU */
  KS_WHAT_IF_LAUNCH,           /* launch=FACTOR, launch overhead */
  KS_WHAT_IF_DATALOADER,       /* dataloader=FACTOR */
  KS_N_WHAT_IF_TARGETS
} KsWhatIfTarget;

typedef struct
{
  KsWhatIfTarget target;
  char          *glob;         /* op and kernel rules, else NULL */
  double         factor;       /* 0 removes the work, 0.5 halves it */
} KsWhatIfRule;

typedef struct _KsWhatIf KsWhatIf;

/* Rules separated by commas: "op:aten::mm=0.5,kernel:*gemm*=0.5,copy=0".
 * A comma starts a new rule only before "op:", "kernel:", "copy=",
 * "launch=" or "dataloader=", so globs may hold commas (C++ templates).
 * NULL with a GError saying which rule is wrong. */
KsWhatIf           *ks_what_if_parse              (const char          *text,
                                                   GError             **error);
void                ks_what_if_free               (KsWhatIf            *what_if);
const char         *ks_what_if_get_text           (const KsWhatIf      *what_if);
const KsWhatIfRule *ks_what_if_get_rules          (const KsWhatIf      *what_if,
                                                   guint               *n_rules);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsWhatIf, ks_what_if_free)

#define KS_TYPE_CRITICAL_PATH (ks_critical_path_get_type ())

G_DECLARE_FINAL_TYPE (KsCriticalPath, ks_critical_path, KS, CRITICAL_PATH, GObject)

/* The path of every step of @analysis (of @trace) that is not warm-up
 * (unless the analysis includes warm-up, or every step is), of the whole
 * trace as one step named 0 when it has no steps, or of the steps named
 * @step_name only; @what_if may be NULL. Fails when @step_name names no
 * step. */
KsCriticalPath     *ks_critical_path_compute        (KsTrace             *trace,
                                                     KsAnalysis          *analysis,
                                                     const char          *step_name,
                                                     const KsWhatIf      *what_if,
                                                     GCancellable        *cancellable,
                                                     GError             **error);
void                ks_critical_path_compute_async  (KsTrace             *trace,
                                                     KsAnalysis          *analysis,
                                                     const char          *step_name,
                                                     const KsWhatIf      *what_if,
                                                     GCancellable        *cancellable,
                                                     GAsyncReadyCallback  callback,
                                                     gpointer             user_data);
KsCriticalPath     *ks_critical_path_compute_finish (GAsyncResult        *result,
                                                     GError             **error);

/* The same over @steps (KsStep) directly, for the analysis's own advice. */
KsCriticalPath     *_ks_critical_path_compute_steps (KsTrace             *trace,
                                                     const KsStep        *steps,
                                                     guint                n_steps,
                                                     gboolean             include_warmup,
                                                     const char          *step_name,
                                                     const KsWhatIf      *what_if,
                                                     GCancellable        *cancellable,
                                                     GError             **error);

KsTrace            *ks_critical_path_get_trace      (KsCriticalPath      *self);
const KsWhatIf     *ks_critical_path_get_what_if    (KsCriticalPath      *self);
const KsPathStep   *ks_critical_path_get_steps      (KsCriticalPath      *self,
                                                     guint               *n_steps);
/* The path of step @step (its index in the analysis's steps), or NULL. */
const KsPathStep   *ks_critical_path_find_step      (KsCriticalPath      *self,
                                                     guint                step);
/* Sums over the steps: durations, path lengths, predicted durations and
 * the path's time per class (either array may be NULL). */
void                ks_critical_path_get_totals     (KsCriticalPath      *self,
                                                     gint64              *dur_ns,
                                                     gint64              *path_ns,
                                                     gint64              *predicted_ns,
                                                     gint64              *by_class,
                                                     gint64              *predicted_by_class);

/* "cpu", "python", "dataloader", "launch", "gpu", "copy", "sync", "comm" */
const char         *ks_path_class_to_string         (KsPathClass          klass);
/* Translated, for people. */
const char         *ks_path_class_to_label          (KsPathClass          klass);

G_END_DECLS
