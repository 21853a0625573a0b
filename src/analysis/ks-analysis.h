/* ks-analysis.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ks-progress.h"
#include "ks-range-set.h"
#include "ks-trace.h"

G_BEGIN_DECLS

/* Statistics over one KsTrace: GPU busy time, idle gaps and their causes,
 * step-time breakdown, operators, kernels, launch latency, memory and
 * advice. A KsAnalysis is computed once (in a worker) and is immutable;
 * everything it returns is owned by it and refers to the trace's string
 * ids, so keep the trace alive while using it. Results are cached on the
 * trace per set of options.
 *
 * All times are nanoseconds on the trace's clock. */

typedef struct
{
  gint64   gap_threshold_ns;     /* gaps shorter than or equal to this are not listed (default 10 µs) */
  gboolean busy_includes_copies; /* busy time counts memcpy/memset as well as kernels */
  gint32   device;               /* analyse only this GPU, or -1 for all */
  gint64   kernel_wait_ns;       /* shorter gaps with the launch already issued are kernel wait */
  gboolean include_warmup;       /* the figures count the warm-up steps too */
} KsAnalysisOptions;

#define KS_ANALYSIS_DEFAULT_GAP_THRESHOLD_NS G_GINT64_CONSTANT (10000)
/* HTA's consecutive_kernel_delay: documented as 30 ns, applied in µs by
 * its code, which is what launch overhead between kernels takes. */
#define KS_ANALYSIS_DEFAULT_KERNEL_WAIT_NS G_GINT64_CONSTANT (30000)

void     ks_analysis_options_init  (KsAnalysisOptions       *options);
/* Whether two option sets give the same analysis (the cache's key). */
gboolean ks_analysis_options_equal (const KsAnalysisOptions *a,
                                    const KsAnalysisOptions *b);
/* The one rule for GPU busy time, for the Summary, a selected range and
 * the Ranks report alike: the slice kinds whose union is busy time under
 * @options (kernels; memcpy and memset too with busy_includes_copies),
 * as a mask of KS_SLICE_KIND_BIT (). NULL means the default options. */
guint32  ks_analysis_options_busy_kinds (const KsAnalysisOptions *options);

#define KS_LATENCY_N_BUCKETS 20

typedef struct
{
  guint64 count;           /* kernels with a known launch call */
  guint64 n_clamped;       /* kernels that started before their launch call returned */
  gint64  min_ns;
  gint64  max_ns;
  gint64  p50_ns;
  gint64  p90_ns;
  gint64  p99_ns;
  double  mean_ns;
  /* histogram[i] counts latencies in [edge[i], edge[i + 1]);
   * see ks_analysis_latency_bucket_edges() */
  guint64 histogram[KS_LATENCY_N_BUCKETS];
} KsLaunchLatency;

typedef struct
{
  gint32          device;
  guint32         name;               /* string id, 0 when the trace does not name it */
  guint64         total_memory;       /* bytes, 0 when unknown */

  guint64         n_kernels;
  gint64          kernel_time_ns;     /* sum of kernel durations */
  guint64         n_memcpy;
  gint64          memcpy_time_ns;
  guint64         n_memset;
  gint64          memset_time_ns;

  gint64          busy_ns;            /* length of the union of busy intervals, whole trace */
  gint64          window_ns;          /* length of the window */
  gint64          busy_in_window_ns;
  double          busy_pct;           /* busy_in_window / window * 100 */
  gboolean        window_is_steps;    /* TRUE: ProfilerStep spans; FALSE: first to last activity */
  gint64          window_start;       /* extent of the window */
  gint64          window_end;

  guint           n_gaps;
  gint64          gap_total_ns;
  gint64          largest_gap_ns;
  gint64          gap_class_ns[3];    /* per KsGapClass */

  /* The TensorBoard profiler's estimates over the kernels in the window,
   * < 0 when no kernel's launch geometry and GPU are known. */
  double          est_sm_efficiency_pct;
  double          est_occupancy_pct;

  /* Busy fraction (0..1) of consecutive buckets from util_start. */
  gint64          util_start;
  gint64          util_bucket_ns;
  guint           n_util;
  double         *util;

  KsLaunchLatency latency;            /* launch latency, the queueing left out */
  KsLaunchLatency queue;              /* queueing behind earlier work on the stream */

  /* HTA's temporal breakdown, over the span from the first start to the
   * last end of GPU work on the device: compute kernels (all but NCCL's),
   * non-compute (communication kernels, memcpy and memset, when no
   * compute kernel runs) and idle; they add up to span_ns. */
  gint64          span_ns;
  gint64          compute_ns;
  gint64          non_compute_ns;
  gint64          idle_ns;
} KsGpuSummary;

/* Busy time across the whole trace, for the strip above the timeline:
 * the busy fraction (0..1) of n_buckets (at most KS_TRACE_BUSY_BUCKETS)
 * equal buckets from 0 to the trace's duration. With GPUs, the mean over the analysed GPUs of their
 * busy intervals (busy_ns: the union of their kernels, plus copies when
 * asked), so that the buckets add up to the GPU summaries; a trace with
 * no GPU work but sampled "GPU utilization" rows (an nvidia-smi log) gets
 * their mean, each sample held as ks_analysis_get_utilization() holds it;
 * any other the union of its CPU threads' activity. */
#define KS_TRACE_BUSY_BUCKETS 4096

typedef struct
{
  gboolean        gpu;                /* FALSE: CPU activity, no GPU was analysed */
  gboolean        utilization;        /* no GPU work: sampled GPU utilization */
  gint64          bucket_ns;
  guint           n_buckets;
  double         *busy;
} KsTraceBusy;

typedef enum
{
  KS_STEP_KERNEL = 0,
  KS_STEP_MEMCPY,
  KS_STEP_MEMSET,
  KS_STEP_RUNTIME,
  KS_STEP_DATALOADER,
  KS_STEP_CPU_EXEC,
  KS_STEP_OTHER,
  KS_N_STEP_PARTS
} KsStepPart;

typedef struct
{
  guint32 name;                  /* string id, "ProfilerStep#N" */
  guint32 track;                 /* its slice */
  guint32 slice;
  gint64  start;                 /* the TensorBoard plugin's span: see KS_METRIC_WINDOW */
  gint64  end;
  gint64  host_start;            /* the span of the step's slice on the CPU */
  gint64  host_end;
  gint64  parts[KS_N_STEP_PARTS];/* sum to end - start */
  gboolean warmup;               /* one-time work (initialisation, compilation) dominates it */
  gboolean inferred;             /* found from the trace's repeating structure, not a step marker */
} KsStep;

/* The one-time work a warm-up step's time goes to. */
typedef enum
{
  KS_WARMUP_MODULE_LOADING = 0,  /* cuModuleLoad*, cuLibraryLoad*: CUDA module loading */
  KS_WARMUP_CONTEXT,             /* cuInit, context, cuBLAS/cuDNN handle creation */
  KS_WARMUP_NCCL,                /* ncclCommInit*: communicator set-up */
  KS_WARMUP_ALLOCATION,          /* cudaMalloc, cuMemCreate...: the allocator growing */
  KS_WARMUP_AUTOTUNING,          /* cudnnFind*, autotune: trying kernels */
  KS_WARMUP_COMPILATION,         /* Dynamo, Inductor, NVRTC, Triton compilation */
  KS_N_WARMUP_CAUSES
} KsWarmupCause;

/* The warm-up: the leading steps of a process that last over
 * KS_WARMUP_FACTOR times the median of its later steps and whose excess
 * goes, for at least KS_WARMUP_ONE_TIME_SHARE, to one-time work. With
 * several processes, the one with the longest warm-up. */
#define KS_WARMUP_FACTOR 2.0
#define KS_WARMUP_ONE_TIME_SHARE 0.10

typedef struct
{
  guint    n_steps;              /* steps marked warm-up, all processes */
  gint64   dur_ns;               /* the warm-up steps' time (of the longest process's) */
  gint64   steady_median_ns;     /* the median of the later steps there */
  gint64   cause_ns[KS_N_WARMUP_CAUSES]; /* one-time work inside them, per cause */
  guint64  operator_calls;       /* operator calls in them, left out of the operator figures */
} KsWarmup;

typedef enum
{
  KS_GAP_HOST_WAIT = 0,
  KS_GAP_KERNEL_WAIT,
  KS_GAP_OTHER,
  KS_N_GAP_CLASSES
} KsGapClass;

typedef enum
{
  KS_GAP_CAUSE_DATALOADER = 0,   /* enumerate(DataLoader)#...__next__ */
  KS_GAP_CAUSE_SYNC,             /* a synchronizing CUDA call */
  KS_GAP_CAUSE_OSRT,             /* an OS runtime call */
  KS_GAP_CAUSE_NVTX,             /* innermost NVTX range */
  KS_GAP_CAUSE_OPERATOR,         /* innermost PyTorch operator or annotation */
  KS_GAP_CAUSE_PYTHON,           /* innermost Python frame */
  KS_GAP_CAUSE_CPU_BUSY,         /* many short CPU operations, none dominant */
  KS_GAP_CAUSE_NO_CPU_ACTIVITY,  /* the launching thread recorded nothing (it may still have run) */
  KS_GAP_CAUSE_UNKNOWN,          /* no launching thread known */
  KS_GAP_CAUSE_PROFILER,         /* Kineto's own work (cat "overhead") covers it */
  KS_N_GAP_CAUSES
} KsGapCause;

typedef struct
{
  gint64   start;
  gint64   end;
  gint32   device;
  guint8   klass;                /* KsGapClass */
  guint8   cause;                /* KsGapCause */
  guint32  cause_name;           /* string id of the slice named as the cause, 0 none */
  guint32  cause_track;          /* that slice, or KS_NO_INDEX */
  guint32  cause_slice;
  guint32  thread;               /* the CPU thread looked at, or KS_NO_INDEX */
  guint32  next_track;           /* GPU activity right after the gap, or KS_NO_INDEX */
  guint32  next_slice;
  guint32  launch_track;         /* its launch call, or KS_NO_INDEX */
  guint32  launch_slice;
  /* When the launching thread only waited (a synchronising call, the
   * DataLoader, the OS, nothing recorded): the innermost work of another
   * thread of its process, or of a DataLoader worker, covering half the
   * gap (a user frame of the samples); KS_NO_INDEX when none. */
  guint32  other_track;
  guint32  other_slice;
} KsGap;

typedef struct
{
  guint8   cause;                /* KsGapCause */
  guint32  name;                 /* string id, 0 for causes without a name */
  guint32  track;                /* the cause slice of its first gap, or KS_NO_INDEX */
  guint32  slice;
  guint    count;
  gint64   total_ns;
  gint64   largest_ns;
} KsGapCauseTotal;

typedef enum
{
  KS_OPERATOR_BY_NAME = 0,
  KS_OPERATOR_BY_NAME_AND_SHAPE,
} KsOperatorGrouping;

typedef struct
{
  guint32      name;             /* string id */
  const char  *input_dims;       /* the "Input Dims" argument text, NULL when grouped by name */
  guint64      calls;
  guint64      merged_calls;     /* calls nested alone in a call of the same name: one call with it */
  gint64       host_total_ns;
  gint64       host_self_ns;     /* minus nested operators and the CUDA calls it made */
  gint64       device_total_ns;  /* GPU time launched by it or its nested operators */
  gint64       device_self_ns;   /* GPU time launched directly by it */
  gint64       thread_total_ns;  /* thread (CPU) time of its calls that have it */
  guint64      thread_calls;     /* calls with a thread time (trace-event "tdur") */
  gboolean     tc_eligible;      /* the TensorBoard profiler's list of operators that can use tensor cores */
  gint64       device_tc_total_ns;/* of device_total_ns, in kernels using tensor cores */
  gint64       device_tc_self_ns; /* of device_self_ns, in kernels using tensor cores */
  guint32      longest_track;    /* its longest call */
  guint32      longest_slice;
} KsOperatorStats;

/* A frame of the sampled stacks of one thread: how many samples taken
 * while the thread ran had it innermost (self) and anywhere in the stack
 * (total, once a sample), and how many taken while it waited (sleep, a
 * lock, I/O, the GIL) had it anywhere (waiting). */
typedef struct
{
  guint32  thread;               /* index in KsTrace.threads */
  guint32  function;             /* string ids */
  guint32  file;
  guint32  line;
  guint64  self;
  guint64  total;
  guint64  waiting;
} KsSampleStats;

typedef struct
{
  guint32  name;                 /* string id */
  guint64  calls;
  gint64   total_ns;
  gint64   min_ns;
  gint64   max_ns;
  double   mean_ns;
  double   share;                /* of all kernel time on the analysed GPUs, 0..1 */
  guint32  grid[3];              /* of the first call */
  guint16  block[3];
  guint16  registers;
  gboolean config_varies;        /* grid/block/registers differ between calls */
  double   occupancy_pct;        /* duration-weighted est. achieved occupancy, < 0 when unknown */
  gboolean tensor_cores;         /* it uses tensor cores: measured by a range profile, else by its name */
  guint64  launched;             /* calls with a known launch call */
  double   mean_latency_ns;      /* over those: launch latency, < 0 when none */
  double   mean_queue_ns;        /* and queueing behind earlier work */
  guint32  longest_track;
  guint32  longest_slice;
  gint64   first_start;          /* the span of the calls counted: the first's start, */
  gint64   last_end;             /* the last end */
} KsKernelStats;

/* Outermost operators by the Python call stack that called them (the
 * python_function frames of a with_stack trace around the call). */
#define KS_STACK_MAX_FRAMES 32

typedef struct
{
  guint32  name;                 /* the operator's string id */
  guint    n_frames;
  guint32  frames[KS_STACK_MAX_FRAMES]; /* string ids, innermost first */
  guint64  calls;
  gint64   host_total_ns;
  gint64   device_total_ns;      /* GPU time launched under those calls */
} KsOperatorStack;

/* Kernels grouped by name and launching operator, or by name and launch
 * properties (grid, block, registers, shared memory). */
typedef enum
{
  KS_KERNEL_BY_OPERATOR = 0,
  KS_KERNEL_BY_LAUNCH,
  KS_N_KERNEL_GROUPINGS
} KsKernelGrouping;

typedef struct
{
  guint32  name;                 /* string id */
  guint32  operator_name;        /* innermost operator around the launch, 0 none (by operator) */
  guint32  grid[3];              /* by launch */
  guint16  block[3];
  guint16  registers;
  guint32  shared_memory;
  guint64  calls;
  gint64   total_ns;
  gint64   min_ns;
  gint64   max_ns;
} KsKernelGroup;

/* The TensorBoard profiler's Tensor Cores view, over the analysed GPUs. */
typedef struct
{
  guint64  n_kernels;            /* kernel calls */
  guint64  n_tc_kernels;         /* of them, using tensor cores */
  gint64   kernel_ns;
  gint64   tc_kernel_ns;
  double   tc_share;             /* tc_kernel_ns / kernel_ns, 0..1 */
  gint64   eligible_ns;          /* GPU time launched under eligible operators */
  gint64   eligible_tc_ns;       /* of it, in kernels using tensor cores */
} KsTensorCores;

/* HTA's queue length: the GPU operations launched on a stream and not
 * yet finished (+1 when the launch call starts, -1 when the operation
 * ends, where HTA takes it off when it starts). The CUDA driver blocks the launching thread at 1,024. */
#define KS_QUEUE_LIMIT 1024
#define KS_QUEUE_N_BUCKETS 200

typedef struct
{
  guint32  track;                /* the stream track */
  gint32   device;
  gint64   stream;
  guint64  n_ops;                /* operations with a known launch */
  gint64   start;                /* first launch to last end */
  gint64   end;
  double   mean;                 /* time-weighted over start..end */
  guint    max;
  gint64   max_ts;               /* first time at max */
  gint64   at_limit_ns;          /* time with KS_QUEUE_LIMIT or more outstanding */
  /* The series, n_buckets equal buckets from start: the time-weighted
   * mean and the largest queue length of each. */
  gint64   bucket_ns;
  guint    n_buckets;
  double  *bucket_mean;
  guint   *bucket_max;
} KsQueueStats;

/* Achieved memcpy bandwidth: the PyTorch profiler's "memory bandwidth
 * (GB/s)" where the copy has it, else bytes over duration (bytes per ns
 * are GB/s). */
typedef struct
{
  guint32  track;                /* the copy's slice */
  guint32  slice;
  gint32   device;
  guint8   kind;                 /* KsCopyKind */
  guint64  bytes;
  gint64   start;
  gint64   dur_ns;
  double   gbps;                 /* < 0 for a copy of no duration and no profiler rate */
} KsCopyRate;

#define KS_COPY_N_BUCKETS 200

/* HTA's GPU user-annotation breakdown: per device and name of the
 * gpu_user_annotation ranges (record_function on the GPU's side). */
typedef struct
{
  gint32   device;
  guint32  name;                 /* string id */
  guint64  count;
  gint64   total_ns;             /* sum of the ranges' durations */
  gint64   span_ns;              /* their union */
  gint64   kernel_ns;            /* kernel busy time inside that union */
} KsGpuAnnotationStats;

/* A run of KS_SEQUENCE_LENGTH consecutive kernels on one stream (every
 * run counts, overlapping ones too), with the operators that launched
 * the kernels of its first run. */
/* One counter of one CUPTI range-profiler range (Kineto's
 * cuda_profiler_range events), ranges numbered in start order. */
typedef struct
{
  guint32      range;            /* 0, 1… in start order over the trace */
  gint64       device;           /* the pid of the range's row, where Kineto writes the device */
  guint32      name;             /* string id: the kernel of a per-kernel range, else the range's */
  const char  *counter;          /* the metric, as the trace names it */
  double       value;
  gint64       start;
  gint64       end;
  guint32      track;            /* the range's slice */
  guint32      slice;
  guint32      operator;         /* string ids: the innermost and outermost operator around the */
  guint32      top_operator;     /* range's launch call, 0 when unknown (see KsProfilerRanges) */
} KsProfilerCounter;

typedef struct
{
  guint        n_ranges;
  guint        n_devices;
  /* The ranges carry no correlation id: as HTA, range i is the kernel of
   * the i-th cudaLaunchKernel call in time order, when there are as many
   * calls as ranges (else no range has operators). */
  guint        n_launches;
  gboolean     launches_matched;
} KsProfilerRanges;

#define KS_SEQUENCE_LENGTH 4

typedef struct
{
  guint32  names[KS_SEQUENCE_LENGTH];     /* kernel string ids, in order */
  guint32  operators[KS_SEQUENCE_LENGTH]; /* their launching operators, 0 when unknown */
  gint32   device;
  guint64  count;
  gint64   total_ns;             /* the kernels' durations over every run */
  guint32  first_track;          /* the first kernel of the first run */
  guint32  first_slice;
  gint64   first_start;
  gint64   last_end;             /* the end of the last kernel of the last run */
} KsKernelSequence;

typedef struct
{
  gint32   rank;                 /* of the job, -1 in a trace without ranks */
  gint32   device;
  guint8   kind;                 /* KsCopyKind */
  guint64  count;
  guint64  bytes;
  gint64   time_ns;
  double   mean_gbps;            /* bytes over the time at each copy's rate, copies without one left out; < 0 none */
  double   max_gbps;             /* of one copy */
  /* Over the trace in n_buckets equal buckets from 0: the bytes copied
   * in each (a copy spread over its duration) per ns, GB/s. */
  gint64   bucket_ns;
  guint    n_buckets;
  double  *gbps;
} KsCopyKindStats;

typedef struct
{
  gint64 ts;
  gint64 allocated;              /* bytes */
  gint64 reserved;               /* bytes, -1 when unknown */
} KsMemoryPoint;

typedef struct
{
  gint32         device;         /* -1 for host memory */
  guint          n_points;
  KsMemoryPoint *points;
  gint64         peak_allocated;
  gint64         peak_allocated_ts;
  guint32        peak_operator;  /* string id of the operator that allocated at the peak, 0 none */
  guint32        peak_thread;    /* KS_NO_INDEX when unknown */
  gint64         peak_reserved;  /* -1 when unknown */
  gint64         peak_reserved_ts;
  guint64        total_memory;   /* capacity, 0 when unknown */
  /* Reserved minus allocated (the caching allocator's fragmentation):
   * its largest value and when, -1 when reserved is unknown. */
  gint64         peak_unused;
  gint64         peak_unused_ts;
} KsMemoryCurve;

/* The TensorBoard profiler's memory table: allocations per operator
 * name, made by the operator itself (self: it was the innermost operator
 * on the allocating thread) or by it or the operators nested in it. */
typedef struct
{
  guint32  name;                 /* string id */
  guint64  self_count;
  gint64   self_bytes;
  guint64  count;
  gint64   bytes;
} KsOperatorMemory;

typedef struct
{
  gint32   device;
  guint64  address;
  gint64   bytes;
  gint64   alloc_ts;
  gint64   free_ts;              /* -1 when not freed within the trace */
  gint64   lifetime_ns;          /* -1 when not freed */
  guint32  operator_name;        /* string id of the innermost operator at allocation, 0 none */
  guint32  thread;
  guint32  python_track;         /* the thread's Python samples track, KS_NO_INDEX none */
  guint32  python_slice;         /* its innermost sampled frame at allocation, KS_NO_INDEX none */
} KsAllocation;

/* GPU utilization as sampled: the "GPU utilization" counter of each
 * device (NVML rows of a recording, an nvidia-smi log). A sample's
 * value holds until the next sample; the last one for the interval
 * before it (1 s when it is alone). */
#define KS_UTILIZATION_LOW_PCT  50.0  /* below it a GPU is idle: stretches, time below */
#define KS_UTILIZATION_POOR_PCT 30.0  /* the advice's threshold */

typedef struct
{
  gint32   device;
  guint32  name;                 /* string id, 0 when the trace does not name it */
  guint    n_samples;
  gint64   start;                /* the first sample */
  gint64   end;                  /* the end of the last one */
  double   mean_pct;             /* time-weighted */
  double   max_pct;
  gint64   below_low_ns;         /* under KS_UTILIZATION_LOW_PCT */
  double   below_low_pct;        /* of end - start */
  gint64   below_poor_ns;        /* under KS_UTILIZATION_POOR_PCT */
  double   below_poor_pct;
  guint    n_idle;               /* stretches under KS_UTILIZATION_LOW_PCT */
  gint64   longest_idle_ns;
} KsGpuUtilization;

/* A run of consecutive samples of one GPU under KS_UTILIZATION_LOW_PCT. */
typedef struct
{
  gint32   device;
  gint64   start;
  gint64   end;
  guint    n_samples;
  double   mean_pct;
} KsIdleStretch;

/* The GPU's own activity counters (GPM: the "SM activity" and "Tensor
 * activity" rows of a recording or an nvidia-smi dmon log) beside its
 * busy time, time-weighted, each GPM value over the period before it. */
typedef enum
{
  KS_BUSY_NONE = 0,              /* nothing to measure busy time with */
  KS_BUSY_KERNELS,               /* the kernels' union in the GPU summary's window */
  KS_BUSY_UTILIZATION,           /* no kernels: NVML's utilization.gpu */
} KsBusySource;

typedef struct
{
  gint32       device;
  guint32      name;             /* string id, 0 when the trace does not name it */
  guint        n_samples;        /* SM activity samples in the window */
  gint64       start;            /* the window: the GPU summary's, else the samples' span */
  gint64       end;
  double       sm_active_pct;
  double       tensor_active_pct;/* < 0 without a tensor activity row */
  double       busy_pct;         /* < 0 when busy_source is KS_BUSY_NONE */
  KsBusySource busy_source;
} KsGpuActivity;

typedef struct
{
  guint        step;             /* index into ks_analysis_get_steps() */
  gint32       device;
  double       sm_active_pct;
  double       tensor_active_pct;/* < 0 without a tensor activity row */
  double       busy_pct;         /* the step's kernel share (KS_STEP_KERNEL of its span) */
} KsStepActivity;

typedef struct
{
  const char  *rule;             /* stable id, e.g. "low-gpu-busy" */
  char        *title;            /* translated */
  char        *text;             /* translated advice */
  char        *evidence;         /* translated, with the numbers */
  gint32       device;           /* -1 when not about one GPU */
  guint32      highlight_name;   /* string id whose occurrences matter, 0 none */
  guint        n_ranges;
  KsTimeRange *ranges;           /* places in the timeline, most important first */
  double       value;            /* the number its text quotes: a share 0..1, ns or a count */
} KsAdvice;

typedef enum
{
  KS_COLLECTIVE_ALL_REDUCE = 0,
  KS_COLLECTIVE_ALL_GATHER,
  KS_COLLECTIVE_REDUCE_SCATTER,
  KS_COLLECTIVE_ALL_TO_ALL,
  KS_COLLECTIVE_BROADCAST,
  KS_COLLECTIVE_REDUCE,
  KS_COLLECTIVE_SEND_RECV,
  KS_COLLECTIVE_BARRIER,
  KS_COLLECTIVE_OTHER,
  KS_N_COLLECTIVE_KINDS
} KsCollectiveKind;

/* One call of a collective on one rank: an NCCL kernel on the GPU, or
 * the CPU span of one that runs there (gloo). */
typedef struct
{
  guint32  rank;                 /* index in KsTrace.ranks, KS_NO_INDEX when the trace has none */
  guint8   kind;                 /* KsCollectiveKind */
  gboolean on_gpu;
  guint32  track;                /* the kernel or the CPU span */
  guint32  slice;
  gint64   start;
  gint64   end;
  guint64  bytes;                /* message size as NCCL's tests count it, 0 when unknown */
  guint32  group_size;           /* ranks taking part, 0 when unknown */
  const char *process_group;     /* the process group's name, "" when unnamed; equal names are one pointer */
  const char *dtype;             /* "" when unknown */
  guint32  seq;                  /* its place among the rank's calls in that process group, from 0 */
  gint64   wait_ns;              /* time from its start to the last rank's arrival, -1 when not matched */
  guint32  last_rank;            /* the KsTrace.ranks index that arrived last, KS_NO_INDEX when not matched */
  gboolean in_steps;             /* it starts in one of its rank's steps, or the rank has none: only
                                  * then does its wait count (start-up and shut-down are not training) */
} KsCollective;

/* The collectives of one kind and message size. Bandwidths in GB/s
 * (10^9 bytes a second) of the mean time, NCCL's rules: algbw is
 * bytes / time; busbw is algbw × 2(n-1)/n for all-reduce, × (n-1)/n for
 * all-gather, reduce-scatter and all-to-all, × 1 otherwise. */
typedef struct
{
  guint8   kind;                 /* KsCollectiveKind */
  guint64  bytes;
  guint32  group_size;
  gboolean on_gpu;
  guint64  count;
  gint64   total_ns;
  gint64   min_ns;
  gint64   max_ns;
  double   algbw_gbps;           /* < 0 when the size is unknown */
  double   busbw_gbps;
} KsCommStats;

/* One rank over its steps (its whole trace when it has none). */
typedef struct
{
  guint32  rank_index;           /* in KsTrace.ranks, KS_NO_INDEX for an undistributed trace */
  gint32   rank;                 /* -1 when unknown */
  const char *file;              /* the file's base name, NULL none */
  const char *host;              /* NULL when unknown */
  gint64   clock_offset_ns;      /* added to its times to put them on the first rank's clock */
  guint    steps;
  gint64   step_mean_ns;
  gint64   window_ns;
  guint64  kernels;
  gint64   kernel_time_ns;
  double   busy_pct;             /* busy union in the window (ks_analysis_options_busy_kinds ()) */
  gint64   compute_ns;           /* union of the other kernels in the window */
  gint64   comm_ns;              /* union of its collectives in the window */
  gint64   exposed_comm_ns;      /* of comm_ns, not covered by compute */
  double   overlap_pct;          /* covered share of comm_ns, 0..100 */
  gint64   wait_ns;              /* its collectives' time waiting for the last rank */
  gint64   wait_caused_ns;       /* others' wait where it was the last to arrive */
  guint64  collectives;
} KsRankStats;

/* One step of one rank: step N of every rank is the same step of the job. */
typedef struct
{
  guint32  rank_row;             /* its row in the rank stats */
  gint32   rank;                 /* -1 when unknown */
  guint32  name;                 /* string id, "ProfilerStep#N" */
  gint64   start;
  gint64   end;
  gint64   compute_ns;
  gint64   comm_ns;
  gint64   exposed_comm_ns;
  double   overlap_pct;
  gint64   wait_ns;              /* of the collectives that start in it */
} KsRankStep;

/* How the ranks' clocks were put on one: ranks of one host share its
 * clock; other hosts are aligned by the ends of their collectives (nearly
 * simultaneous on every rank), else by the files' UTC start. */
typedef enum
{
  KS_CLOCK_ONE_RANK = 0,
  KS_CLOCK_SHARED,               /* one clock: the collectives' ends agree */
  KS_CLOCK_COLLECTIVES,          /* shifted so that the collectives' ends meet */
  KS_CLOCK_UTC,                  /* no collective matched: the files' UTC start */
} KsClockMethod;

typedef struct
{
  KsClockMethod method;
  gint64        skew_ns;         /* residual: the largest rank's median distance of its collectives' ends, -1 unknown */
} KsClockAlignment;

typedef enum
{
  KS_METRIC_BUSY_PCT = 0,
  KS_METRIC_BUSY_NS,
  KS_METRIC_WINDOW,
  KS_METRIC_KERNEL_TIME,
  KS_METRIC_GAP,
  KS_METRIC_GAP_HOST_WAIT,
  KS_METRIC_GAP_KERNEL_WAIT,
  KS_METRIC_GAP_OTHER,
  KS_METRIC_GAP_CAUSE,
  KS_METRIC_STEP_BREAKDOWN,
  KS_METRIC_STEP_KERNEL,
  KS_METRIC_STEP_MEMCPY,
  KS_METRIC_STEP_MEMSET,
  KS_METRIC_STEP_RUNTIME,
  KS_METRIC_STEP_DATALOADER,
  KS_METRIC_STEP_CPU_EXEC,
  KS_METRIC_STEP_OTHER,
  KS_METRIC_UTILIZATION,
  KS_METRIC_HOST_TOTAL,
  KS_METRIC_HOST_SELF,
  KS_METRIC_DEVICE_TOTAL,
  KS_METRIC_DEVICE_SELF,
  KS_METRIC_KERNEL_SHARE,
  KS_METRIC_OCCUPANCY,
  KS_METRIC_LAUNCH_LATENCY,
  KS_METRIC_MEMORY_ALLOCATED,
  KS_METRIC_MEMORY_RESERVED,
  KS_METRIC_MEMORY_PEAK,
  KS_METRIC_ALLOCATION_LIFETIME,
  KS_METRIC_SM_EFFICIENCY,
  KS_METRIC_QUEUE_TIME,
  KS_METRIC_TENSOR_CORES,
  KS_METRIC_QUEUE_LENGTH,
  KS_METRIC_COMM,
  KS_METRIC_EXPOSED_COMM,
  KS_METRIC_OVERLAP,
  KS_METRIC_RANK_WAIT,
  KS_METRIC_WAIT_CAUSED,
  KS_METRIC_BUS_BANDWIDTH,
  KS_N_METRICS
} KsMetric;

#define KS_TYPE_ANALYSIS (ks_analysis_get_type ())

G_DECLARE_FINAL_TYPE (KsAnalysis, ks_analysis, KS, ANALYSIS, GObject)

/* Computes (or returns the cached) analysis of @trace. Thread-safe;
 * @options may be NULL for the defaults. */
KsAnalysis            *ks_analysis_compute              (KsTrace                  *trace,
                                                         const KsAnalysisOptions  *options,
                                                         KsProgress               *progress,
                                                         GCancellable             *cancellable,
                                                         GError                  **error);
void                   ks_analysis_compute_async        (KsTrace                  *trace,
                                                         const KsAnalysisOptions  *options,
                                                         KsProgress               *progress,
                                                         GCancellable             *cancellable,
                                                         GAsyncReadyCallback       callback,
                                                         gpointer                  user_data);
KsAnalysis            *ks_analysis_compute_finish       (GAsyncResult             *result,
                                                         GError                  **error);
/* The cached analysis for these options, or NULL (transfer full). */
KsAnalysis            *ks_analysis_lookup_cached        (KsTrace                  *trace,
                                                         const KsAnalysisOptions  *options);

const KsAnalysisOptions *ks_analysis_get_options        (KsAnalysis               *self);
const KsGpuSummary    *ks_analysis_get_gpus             (KsAnalysis               *self,
                                                         guint                    *n_gpus);
const KsGpuSummary    *ks_analysis_get_gpu              (KsAnalysis               *self,
                                                         gint32                    device);
/* Every step with its marks: warm-up steps included (KsStep.warmup). */
const KsStep          *ks_analysis_get_steps            (KsAnalysis               *self,
                                                         guint                    *n_steps);
/* Whether @step counts in the figures: it is not warm-up, or the options
 * include the warm-up. */
gboolean               ks_analysis_step_counts          (KsAnalysis               *self,
                                                         const KsStep             *step);
/* The steps that count, and their mean duration (0 without any). */
guint                  ks_analysis_count_steps          (KsAnalysis               *self,
                                                         gint64                   *mean_ns);
/* A step's name: the trace's, or "step N" (its place, from 0) for an
 * inferred one, whose KsStep.name is what the rule followed. */
char                  *ks_analysis_dup_step_name        (KsAnalysis               *self,
                                                         KsTrace                  *trace,
                                                         guint                     index);
const KsWarmup        *ks_analysis_get_warmup           (KsAnalysis               *self);
/* The warm-up steps' names, each once (the ranks of a job share them). */
GPtrArray             *ks_analysis_dup_warmup_names     (KsAnalysis               *self,
                                                         KsTrace                  *trace);
/* "Warm-up: step 0, 486 ms (CUDA module loading 210 ms, …), left out of
 * the figures below" (translated), or NULL without a warm-up. */
char                  *ks_analysis_format_warmup        (KsAnalysis               *self,
                                                         KsTrace                  *trace);
/* The causes with time, as KsWarmupCause values into @order (room for
 * KS_N_WARMUP_CAUSES), largest first; returns how many. */
guint                  ks_warmup_sort_causes            (const KsWarmup           *warmup,
                                                         guint                    *order);
/* How the steps were found when the trace marks none (translated, e.g.
 * "the repeating operator"), and the name the rule followed (string id);
 * NULL when the trace marks its steps or none were found. */
const char            *ks_analysis_get_step_rule        (KsAnalysis               *self,
                                                         guint32                  *name);
/* Gaps in time order (then device). */
const KsGap           *ks_analysis_get_gaps             (KsAnalysis               *self,
                                                         guint                    *n_gaps);
/* Indexes into the gaps, longest first. */
const guint           *ks_analysis_get_gaps_by_duration (KsAnalysis               *self,
                                                         guint                    *n_gaps);
/* Total gap time per cause and name, largest total first. */
const KsGapCauseTotal *ks_analysis_get_gap_causes       (KsAnalysis               *self,
                                                         guint                    *n_causes);
/* Sorted by device total, then host total, descending. */
const KsOperatorStats *ks_analysis_get_operators        (KsAnalysis               *self,
                                                         KsOperatorGrouping        grouping,
                                                         guint                    *n_operators);
/* Per thread (in thread order) the frames by (function, file, line),
 * by total then self samples, descending. */
const KsSampleStats   *ks_analysis_get_sample_stats     (KsAnalysis               *self,
                                                         guint                    *n_rows);
/* Sorted by total time, descending. */
const KsKernelStats   *ks_analysis_get_kernels          (KsAnalysis               *self,
                                                         guint                    *n_kernels);
/* Sorted by total time, descending. */
const KsKernelGroup   *ks_analysis_get_kernel_groups    (KsAnalysis               *self,
                                                         KsKernelGrouping          grouping,
                                                         guint                    *n_groups);
/* Over all analysed GPUs: launch latency, and queueing behind earlier
 * work on the stream (KS_METRIC_QUEUE_TIME). */
const KsLaunchLatency *ks_analysis_get_launch_latency   (KsAnalysis               *self);
const KsLaunchLatency *ks_analysis_get_queue_time       (KsAnalysis               *self);
const KsTensorCores   *ks_analysis_get_tensor_cores     (KsAnalysis               *self);
/* Every memcpy on the analysed GPUs in stream order, and per device and
 * copy kind. */
const KsCopyRate      *ks_analysis_get_copies           (KsAnalysis               *self,
                                                         guint                    *n_copies);
const KsCopyKindStats *ks_analysis_get_copy_kinds       (KsAnalysis               *self,
                                                         guint                    *n_kinds);
/* The most frequent kernel sequences (at most 100, each seen at least
 * twice), by count then total time, descending. */
const KsKernelSequence *ks_analysis_get_kernel_sequences (KsAnalysis              *self,
                                                          guint                   *n_sequences);
/* Every counter of every range-profiler range, by range then the order
 * of the range's args. */
const KsProfilerCounter *ks_analysis_get_profiler_counters (KsAnalysis            *self,
                                                            guint                 *n_counters);
const KsProfilerRanges  *ks_analysis_get_profiler_ranges   (KsAnalysis            *self);
/* By total time, descending. */
const KsGpuAnnotationStats *ks_analysis_get_gpu_annotations (KsAnalysis           *self,
                                                             guint                *n_annotations);
/* Per stream with launched work, in device then track order. */
const KsQueueStats    *ks_analysis_get_queues           (KsAnalysis               *self,
                                                         guint                    *n_queues);
const KsTraceBusy     *ks_analysis_get_trace_busy       (KsAnalysis               *self);
const KsMemoryCurve   *ks_analysis_get_memory_curves    (KsAnalysis               *self,
                                                         guint                    *n_curves);
/* In allocation order. */
const KsAllocation    *ks_analysis_get_allocations      (KsAnalysis               *self,
                                                         guint                    *n_allocations);
const KsGpuUtilization *ks_analysis_get_utilization     (KsAnalysis               *self,
                                                         guint                    *n_gpus);
/* By device; GPUs with an SM activity row only. */
const KsGpuActivity   *ks_analysis_get_gpu_activity     (KsAnalysis               *self,
                                                         guint                    *n_gpus);
/* By step, then device. */
const KsStepActivity  *ks_analysis_get_step_activity    (KsAnalysis               *self,
                                                         guint                    *n_rows);
/* Longest first. */
const KsIdleStretch   *ks_analysis_get_idle_stretches   (KsAnalysis               *self,
                                                         guint                    *n_stretches);
/* By host total time, descending; empty without Python frames. */
const KsOperatorStack *ks_analysis_get_operator_stacks  (KsAnalysis               *self,
                                                         guint                    *n_stacks);
/* By bytes with children, descending. */
const KsOperatorMemory *ks_analysis_get_operator_memory (KsAnalysis               *self,
                                                         guint                    *n_operators);
const KsAdvice        *ks_analysis_get_advice           (KsAnalysis               *self,
                                                         guint                    *n_advice);
/* Collectives by rank, then time. */
const KsCollective    *ks_analysis_get_collectives      (KsAnalysis               *self,
                                                         guint                    *n_collectives);
/* By total time, descending. */
const KsCommStats     *ks_analysis_get_comm_stats       (KsAnalysis               *self,
                                                         guint                    *n_rows);
/* By rank; one row without a rank when the trace has none. */
const KsRankStats     *ks_analysis_get_rank_stats       (KsAnalysis               *self,
                                                         guint                    *n_rows);
/* By rank, then start. */
const KsRankStep      *ks_analysis_get_rank_steps       (KsAnalysis               *self,
                                                         guint                    *n_rows);
/* The rank the others waited for most: its row in the rank stats, or
 * KS_NO_INDEX when nobody waited (one rank, or no matched collectives). */
guint                  ks_analysis_get_straggler        (KsAnalysis               *self);
const KsClockAlignment *ks_analysis_get_clock_alignment (KsAnalysis            *self);
const char            *ks_clock_method_to_string        (KsClockMethod             method);

/* The matching of collectives across ranks, over @cs sorted by (rank,
 * start) with rank a row 0 .. n_rows - 1; kind, process_group, start and
 * end set. For the analysis and for merging per-rank summaries.
 * number(): KsCollective.seq per rank and process group. align():
 * @offsets (n_rows) that put each rank on row 0's clock; @hosts an id a
 * host per row or NULL; @utc_offsets (UTC minus the rank's clock) per row,
 * or NULL. match(): wait_ns and last_rank of the calls matched on two
 * ranks or more, and per row the others' wait in steps (in_steps) it
 * caused into @wait_caused. */
void                   ks_collectives_number            (KsCollective             *cs,
                                                         guint                     n);
void                   ks_collectives_align             (const KsCollective       *cs,
                                                         guint                     n,
                                                         guint                     n_rows,
                                                         const guint32            *hosts,
                                                         const gint64             *utc_offsets,
                                                         gint64                   *offsets,
                                                         KsClockAlignment         *alignment);
void                   ks_collectives_match             (KsCollective             *cs,
                                                         guint                     n,
                                                         const gint64             *offsets,
                                                         gint64                   *wait_caused);
/* Stable machine name ("allreduce", "allgather", ...). */
const char            *ks_collective_kind_to_string     (KsCollectiveKind          kind);
/* NCCL's bus-bandwidth factor for @kind over @n ranks. */
double                 ks_collective_bus_factor         (KsCollectiveKind          kind,
                                                         guint32                   n);

/* Memory events and allocator samples left out because no process has
 * that much memory (sizes or totals past 1 PiB, e.g. INT64_MAX bytes in a
 * hostile trace, or not a number): the curves and peaks are of the rest. */
guint                  ks_analysis_get_n_ignored_memory_events
                                                        (KsAnalysis               *self);
/* What the analysis had to leave out, one translated sentence each;
 * NULL-terminated, empty when nothing was. */
const char * const    *ks_analysis_get_warnings         (KsAnalysis               *self);

/* Latency histogram edges: n + 1 values (the last is G_MAXINT64). */
const gint64          *ks_analysis_latency_bucket_edges (guint                    *n_edges);

/* Translated labels and the definitions shown as tooltips. */
const char            *ks_metric_get_title              (KsMetric                  metric);
const char            *ks_metric_get_definition         (KsMetric                  metric);
const char            *ks_step_part_get_title           (KsStepPart                part);
/* Stable machine name ("kernel", "memcpy", ..., "dataloader", "cpu_exec"). */
const char            *ks_step_part_to_string           (KsStepPart                part);
const char            *ks_gap_class_get_title           (KsGapClass                klass);
const char            *ks_gap_class_to_string           (KsGapClass                klass);
const char            *ks_gap_cause_get_title           (KsGapCause                cause);
const char            *ks_gap_cause_to_string           (KsGapCause                cause);
/* What a trace can lack that a recording takes only when asked. */
typedef enum
{
  KS_MISSING_OPERATORS,
  KS_MISSING_PYTHON_SAMPLES,
} KsMissingData;

/* For a kinescope-cli recording without @what: why, and the option that
 * records it (translated); NULL for other traces. */
const char            *ks_analysis_explain_missing      (KsTrace                  *trace,
                                                         KsMissingData             what);
/* "CUDA module loading"...: translated, and in English for JSON. */
const char            *ks_warmup_cause_get_title        (KsWarmupCause             cause);
const char            *ks_warmup_cause_get_name         (KsWarmupCause             cause);
/* What a gap's cause names: the slice's name, or for a sampled Python
 * frame "loader.py:57 decode_batch" (file basename, line, function);
 * "" when it names nothing. */
char                  *ks_gap_cause_format_name         (const KsTrace            *trace,
                                                         KsGapCause                cause,
                                                         guint32                   name,
                                                         guint32                   track,
                                                         guint32                   slice);
/* What another thread did during @gap ("Python: worker.py:12 decode on
 * pt_data_worker (4242)"), NULL when nothing is known. */
char                  *ks_gap_format_meanwhile          (const KsTrace            *trace,
                                                         const KsGap              *gap);
/* The same after the cause's title: "Python: loader.py:57 decode_batch". */
char                  *ks_gap_cause_format              (const KsTrace            *trace,
                                                         KsGapCause                cause,
                                                         guint32                   name,
                                                         guint32                   track,
                                                         guint32                   slice);

G_END_DECLS
