/* ks-analysis-private.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-analysis.h"
#include "ks-range-set.h"

G_BEGIN_DECLS

#define KIND_BIT(k) KS_SLICE_KIND_BIT (k)
#define GPU_WORK_KINDS (KIND_BIT (KS_SLICE_KERNEL) | KIND_BIT (KS_SLICE_MEMCPY) | KIND_BIT (KS_SLICE_MEMSET))

/* The text of the value of top-level @key in the JSON object @json, with
 * its length, or NULL. Strings are returned without their quotes. */
/* The members of an args object in order; a string value comes without
 * its quotes (@quoted), its escapes as written. */
typedef struct
{
  const char *p;
  gboolean    done;
} KsArgsIter;

gboolean    ks_args_iter_init     (KsArgsIter       *iter,
                                   const char       *json);
gboolean    ks_args_iter_next     (KsArgsIter       *iter,
                                   const char      **name,
                                   gsize            *name_len,
                                   const char      **value,
                                   gsize            *value_len,
                                   gboolean         *quoted);
gboolean    ks_args_parse_double  (const char       *v,
                                   gsize             len,
                                   double           *value);
const char *ks_args_find          (const char       *json,
                                   const char       *key,
                                   gsize            *len);
gboolean    ks_args_get_int       (const char       *json,
                                   const char       *key,
                                   gint64           *value);
/* A kernel's estimated achieved occupancy and SM efficiency (percent),
 * from its launch and @gpu when both are known, else from the PyTorch
 * profiler's arguments; each < 0 when unknown. */
void        _ks_kernel_estimates  (const KsTrace    *trace,
                                   const KsTrack    *track,
                                   const KsGpu      *gpu,
                                   guint32           slice,
                                   GString          *scratch,
                                   double           *occupancy_pct,
                                   double           *sm_efficiency_pct);
gboolean    ks_args_get_double    (const char       *json,
                                   const char       *key,
                                   double           *value);

/* Per string id: what the name means to the analyses. */
enum
{
  NAME_SYNC           = 1 << 0,  /* a synchronizing CUDA call */
  NAME_DATALOADER     = 1 << 1,  /* enumerate(DataLoader)... */
  NAME_PROFILER_STEP  = 1 << 2,  /* ProfilerStep#N */
  NAME_TC_ELIGIBLE    = 1 << 3,  /* operator that could run on tensor cores */
  NAME_MEMCPY_ASYNC   = 1 << 4,  /* cudaMemcpy*Async / cuMemcpy*Async */
  NAME_PAGEABLE       = 1 << 5,  /* a memcpy name that says Pageable */
  NAME_TC_KERNEL      = 1 << 6,  /* a kernel whose name says it uses tensor cores */
  NAME_STEP_RANGE     = 1 << 7,  /* "step 12", "iteration 12": an NVTX range around a step */
  NAME_NCCL           = 1 << 8,  /* a kernel of NCCL's: communication, not compute (HTA) */
  NAME_TC_MEASURED    = 1 << 9,  /* a range profiler measured the kernel's tensor pipe */
  NAME_TC_MEASURED_USED = 1 << 10, /* ... and it ran instructions there */
};

typedef struct _KsGapCandidates KsGapCandidates;

typedef struct
{
  gint32      device;
  GArray     *streams;          /* guint32 stream track indexes */
  GArray     *groups;           /* guint32 groups of those tracks */
  KsRangeSet  kernels;          /* union of kernel intervals */
  KsRangeSet  busy;             /* kernels, plus copies when asked */
  KsRangeSet  activity;         /* kernels, memcpy and memset */
  KsRangeSet  window;
} DeviceState;

typedef struct
{
  KsTrace                  *trace;
  KsAnalysisOptions         options;
  GCancellable             *cancellable;
  KsProgress               *progress;

  guint16                  *name_flags;     /* per string id */
  gboolean                  have_nccl;      /* some string has NAME_NCCL */
  guint32                  *nvtx_of_thread; /* thread -> NVTX track or KS_NO_INDEX */
  guint32                  *samples_of_thread; /* thread -> KS_TRACK_SAMPLES track or KS_NO_INDEX */
  /* per track: for stream tracks, slice -> launch flow index (or
   * KS_NO_INDEX); NULL for others */
  guint32                 **launch_of_gpu;
  /* per track: for thread tracks, slice -> launch flow index; NULL else */
  guint32                 **launch_of_cpu;

  GArray                   *devices;        /* DeviceState */
  GArray                   *step_refs;      /* KsStep (name, track, slice, start, end only) */
  /* Kineto's own work ("Activity Buffer Request", cat "overhead"): the
   * slices as (track, slice) pairs in start order, and their union */
  GArray                   *overhead;
  KsRangeSet                overhead_set;

  /* Filled by the operators pass for the advice rules */
  gint64                    op_device_ns;     /* GPU time launched under any operator */
  gint64                    tc_fp32_device_ns;/* ... under tensor-core-eligible float32 operators */
  guint64                   tc_lowp_calls;    /* eligible calls with half/bfloat16 inputs */
  GArray                   *tc_ranges;        /* KsTimeRange of eligible float32 calls that launched work */
  guint32                  *launch_operator;  /* per flow: the innermost operator's name around its call, 0 none */

  /* The warm-up steps' spans, which the figures leave out when
   * skip_warmup (ks-analysis-warmup.c) */
  KsRangeSet                warmup_set;
  gboolean                  skip_warmup;
  /* Steps inferred from the repeating structure: the rule, its name */
  const char               *step_rule;
  guint32                   step_rule_name;
  /* per process: the tracks a gap's "meanwhile" looks at, and a scratch
   * table; made by the first gap that asks (ks-analysis-gaps-threads.c) */
  KsGapCandidates          *other_tracks;
  GHashTable               *other_names;
} Context;

/* Whether the figures leave out what starts at @ts: it is in a warm-up
 * step and the options do not include the warm-up. */
static inline gboolean
_ks_context_in_warmup (const Context *ctx,
                       gint64         ts)
{
  if (!ctx->skip_warmup || ctx->warmup_set.n == 0 ||
      ts >= ctx->warmup_set.r[ctx->warmup_set.n - 1].end)
    return FALSE;
  return ks_range_set_measure (&ctx->warmup_set, ts, ts + 1) > 0;
}

/* Whether kernel name @name ran on tensor cores: what a range profiler
 * measured of it, else what its name says. */
static inline gboolean
_ks_name_uses_tensor_cores (const Context *ctx,
                            guint32        name)
{
  guint16 flags = ctx->name_flags[name];

  if (flags & NAME_TC_MEASURED)
    return (flags & NAME_TC_MEASURED_USED) != 0;
  return (flags & NAME_TC_KERNEL) != 0;
}

struct _KsAnalysis
{
  GObject            parent_instance;

  KsAnalysisOptions  options;

  GArray            *gpus;          /* KsGpuSummary */
  GArray            *steps;         /* KsStep */
  GArray            *gaps;          /* KsGap */
  guint             *gaps_by_duration;
  GArray            *gap_causes;    /* KsGapCauseTotal */
  GArray            *operators[2];  /* KsOperatorStats per grouping */
  GArray            *samples;       /* KsSampleStats */
  GStringChunk      *strings;       /* input dims texts */
  GArray            *kernels;       /* KsKernelStats */
  KsLaunchLatency    latency;
  KsLaunchLatency    queue;
  KsTensorCores      tensor_cores;
  GArray            *queues;        /* KsQueueStats */
  GArray            *copies;        /* KsCopyRate */
  GArray            *copy_kinds;    /* KsCopyKindStats */
  GArray            *sequences;     /* KsKernelSequence */
  GArray            *profiler_counters; /* KsProfilerCounter */
  KsProfilerRanges   profiler_ranges;
  GArray            *annotations;   /* KsGpuAnnotationStats */
  GArray            *operator_memory; /* KsOperatorMemory */
  GArray            *operator_stacks; /* KsOperatorStack */
  GArray            *kernel_groups[KS_N_KERNEL_GROUPINGS];  /* KsKernelGroup */
  KsTraceBusy        trace_busy;
  GArray            *memory;        /* KsMemoryCurve */
  GArray            *allocations;   /* KsAllocation */
  guint              n_ignored_memory;  /* memory events and samples of impossible sizes */
  GArray            *utilization;   /* KsGpuUtilization */
  GArray            *idle_stretches;/* KsIdleStretch, longest first */
  GArray            *activity;      /* KsGpuActivity, by device */
  GArray            *step_activity; /* KsStepActivity, by step then device */
  GArray            *advice;        /* KsAdvice */
  GArray            *collectives;   /* KsCollective */
  GArray            *comm_stats;    /* KsCommStats */
  GArray            *rank_stats;    /* KsRankStats */
  GArray            *rank_steps;    /* KsRankStep */
  guint              straggler;     /* row of rank_stats, or KS_NO_INDEX */
  KsClockAlignment   clock;
  GPtrArray         *warnings;      /* char*, NULL-terminated */
  KsWarmup           warmup;
  const char        *step_rule;     /* N_(), NULL when the trace marks its steps */
  guint32            step_rule_name;
};

/* Marks the warm-up steps and sums their one-time work (first pass). */
void     _ks_analysis_warmup      (KsAnalysis       *self,
                                   Context          *ctx);
/* Without step markers: steps from the trace's repeating structure,
 * into ctx->step_refs, marked inferred (before they are fitted). */
void     _ks_context_infer_steps  (Context          *ctx);
void     _ks_analysis_overview    (KsAnalysis       *self,
                                   Context          *ctx);
void     _ks_analysis_steps       (KsAnalysis       *self,
                                   Context          *ctx);
void     _ks_analysis_gaps        (KsAnalysis       *self,
                                   Context          *ctx);
void     _ks_analysis_operators   (KsAnalysis       *self,
                                   Context          *ctx);
void     _ks_analysis_samples     (KsAnalysis       *self,
                                   Context          *ctx);
void     _ks_analysis_kernels     (KsAnalysis       *self,
                                   Context          *ctx);
void     _ks_analysis_memory      (KsAnalysis       *self,
                                   Context          *ctx);
void     _ks_analysis_utilization (KsAnalysis       *self,
                                   Context          *ctx);
void     _ks_analysis_queues      (KsAnalysis       *self,
                                   Context          *ctx);
void     _ks_analysis_copies      (KsAnalysis       *self,
                                   Context          *ctx);
void     _ks_analysis_profiler_ranges (KsAnalysis   *self,
                                       Context      *ctx);
void     _ks_analysis_sequences   (KsAnalysis       *self,
                                   Context          *ctx);
void     _ks_analysis_annotations (KsAnalysis       *self,
                                   Context          *ctx);
void     _ks_analysis_advice      (KsAnalysis       *self,
                                   Context          *ctx);
void     _ks_analysis_activity    (KsAnalysis       *self,
                                   Context          *ctx);
void     _ks_analysis_activity_advice (KsAnalysis   *self,
                                       Context      *ctx);
void     _ks_analysis_comms       (KsAnalysis       *self,
                                   Context          *ctx);
void     _ks_analysis_comms_advice (KsAnalysis      *self,
                                    Context         *ctx);
/* Quotes the critical path's what-if in the advice already given
 * (ks-analysis-advice-path.c). */
void     _ks_analysis_path_advice (KsAnalysis       *self,
                                   Context          *ctx);
KsAdvice *_ks_analysis_add_advice (KsAnalysis       *self,
                                   const char       *rule,
                                   gint32            device,
                                   char             *title,
                                   char             *text,
                                   char             *evidence);

/* ks-analysis-gaps-threads.c: gap->other_track/slice, when its cause
 * says the launching thread only waited in [@r0, @r1). */
void     _ks_gap_other_threads    (Context          *ctx,
                                   KsGap            *gap,
                                   gint64            r0,
                                   gint64            r1);
void     _ks_gap_candidates_free  (KsGapCandidates  *candidates);

/* Helpers shared by the passes. */
gboolean _ks_context_device_wanted (Context         *ctx,
                                    gint32           device);
DeviceState *_ks_context_find_device (Context       *ctx,
                                      gint32         device);
/* The innermost cpu_op enclosing @ts on the thread's track, or KS_NO_INDEX. */
guint32  _ks_context_operator_at  (Context          *ctx,
                                   guint32           thread,
                                   gint64            ts);
/* The wait before kernel @slice of stream @track whose launch call is
 * known (FALSE otherwise): its launch latency and its queueing behind
 * the earlier work of the stream, which ended at @busy_until; @early when
 * the kernel started before the call returned. */
gboolean _ks_launch_wait          (Context          *ctx,
                                   guint32           track,
                                   guint32           slice,
                                   gint64            busy_until,
                                   gint64           *latency,
                                   gint64           *queue,
                                   gboolean         *early);
/* The launch flows of the CUDA call @slice on thread track @track: the
 * first in @first, and how many (a cudaGraphLaunch has one for each
 * operation of its graph, consecutive in the trace's flows); 0 none. */
static inline guint
_ks_call_launch_flows (const Context *ctx,
                       guint32        track,
                       guint32        slice,
                       guint32       *first)
{
  const KsTrace *trace = ctx->trace;
  guint32 f = ctx->launch_of_cpu[track] != NULL ? ctx->launch_of_cpu[track][slice] : KS_NO_INDEX;
  guint n = 0;

  *first = f;
  if (f == KS_NO_INDEX)
    return 0;
  while (f + n < trace->n_flows && trace->flows[f + n].kind == KS_FLOW_LAUNCH &&
         trace->flows[f + n].from_track == track && trace->flows[f + n].from_slice == slice)
    n++;
  return n;
}
/* The TensorBoard plugin's start of a process's first step: after the
 * GPU work that no step launched and that ended before the first step's
 * own GPU work started (_find_device_steps). */
void     _ks_steps_after_earlier_gpu_work (Context  *ctx);
/* How long sample @i of a sampled counter holds: to the next one; the
 * last as long as the interval before it, a lone one 1 s. */
gint64   _ks_sample_hold          (const KsCounter  *c,
                                   guint32           i);
/* FNV-1a over @n words: the hash of the passes' fixed-size keys. */
guint    _ks_hash_words           (const guint32    *words,
                                   guint             n);
/* The k-th smallest of @values (reorders them). */
gint64   _ks_select_nth           (gint64           *values,
                                   gsize             n,
                                   gsize             k);

/* What @build makes of @trace, made on first use and kept with it under
 * @key (a static string), freed with @free with the trace. Thread-safe,
 * with a lock per trace and key; @build may ask for another key's value
 * (never, through others, for its own). */
gpointer _ks_trace_get_cached     (KsTrace          *trace,
                                   const char       *key,
                                   gpointer        (*build) (KsTrace *trace),
                                   GDestroyNotify    free);

/* ks-memory-blocks-lod.c: a device's coverage per time bucket
 * (KsMemoryLodLevel), made once its blocks, bands and long blocks are. */
struct _KsMemoryBlockDevice;
void     _ks_memory_blocks_build_lod (struct _KsMemoryBlockDevice *device);
void     _ks_memory_blocks_free_lod  (struct _KsMemoryBlockDevice *device);

G_END_DECLS
