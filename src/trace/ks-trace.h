/* ks-trace.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ks-args.h"

G_BEGIN_DECLS

/* The immutable in-memory trace model.
 *
 * A trace is built once by a reader through KsTraceBuilder and never
 * changes afterwards, so it can be shared freely between threads. Events
 * are not objects: each track stores its slices column-wise, sorted by
 * start time, with a nesting depth. The structures below are public and
 * read-only so that analyses and the renderer can walk the arrays
 * directly; never write to them.
 *
 * Times are int64 nanoseconds relative to the trace start (the earliest
 * timestamp of the file); KsTrace.start_utc_ns gives the wall clock of
 * time 0 when the file said it.
 */

#define KS_NO_INDEX G_MAXUINT32

typedef enum
{
  KS_SLICE_GENERIC = 0,     /* Chrome trace X/B/E without a known category */
  KS_SLICE_CPU_OP,          /* PyTorch operator (cpu_op) */
  KS_SLICE_PYTHON,          /* Python frame (python_function) */
  KS_SLICE_USER_ANNOTATION, /* record_function / ProfilerStep#N */
  KS_SLICE_CUDA_RUNTIME,    /* CUDA runtime API call */
  KS_SLICE_CUDA_DRIVER,     /* CUDA driver API call */
  KS_SLICE_NVTX,            /* NVTX push/pop or start/end range */
  KS_SLICE_OSRT,            /* OS runtime call (blocking syscalls) */
  KS_SLICE_ASYNC,           /* Chrome async b/e/n or S/T/F ranges */
  KS_SLICE_GPU_ANNOTATION,  /* gpu_user_annotation */
  KS_SLICE_KERNEL,
  KS_SLICE_MEMCPY,
  KS_SLICE_MEMSET,
  KS_SLICE_SYNC,            /* CUDA synchronization on the GPU side */
  KS_SLICE_SAMPLE,          /* a sampled stack frame over time (KS_TRACK_SAMPLES) */
  KS_N_SLICE_KINDS
} KsSliceKind;

typedef enum
{
  KS_TRACK_THREAD = 0,      /* a CPU thread's nested slices */
  KS_TRACK_NVTX,            /* NVTX ranges of one thread (parent = its thread track) */
  KS_TRACK_ASYNC,           /* a Chrome async row of a process */
  KS_TRACK_STREAM,          /* one CUDA stream of one GPU */
  KS_TRACK_GPU_ANNOTATION,  /* GPU user annotations of one stream (parent = stream track) */
  KS_TRACK_SAMPLES,         /* sampled stacks of one thread, flame style (parent = its thread track) */
  KS_N_TRACK_KINDS
} KsTrackKind;

typedef enum
{
  KS_COPY_UNKNOWN = 0,
  KS_COPY_HTOD = 1,
  KS_COPY_DTOH = 2,
  KS_COPY_HTOA = 3,
  KS_COPY_ATOH = 4,
  KS_COPY_ATOA = 5,
  KS_COPY_ATOD = 6,
  KS_COPY_DTOA = 7,
  KS_COPY_DTOD = 8,
  KS_COPY_HTOH = 9,
  KS_COPY_PTOP = 10,
} KsCopyKind;                /* CUPTI_ACTIVITY_MEMCPY_KIND_* values */

typedef enum
{
  KS_MEM_UNKNOWN = 0,
  KS_MEM_PAGEABLE = 1,
  KS_MEM_PINNED = 2,
  KS_MEM_DEVICE = 3,
  KS_MEM_ARRAY = 4,
  KS_MEM_MANAGED = 5,
  KS_MEM_DEVICE_STATIC = 6,
  KS_MEM_MANAGED_STATIC = 7,
} KsMemoryKind;              /* CUPTI_ACTIVITY_MEMORY_KIND_* values */

/* Details of one GPU activity, kept beside the stream track's columns. */
typedef struct
{
  union {
    struct {
      guint32 grid[3];
      guint16 block[3];
      guint16 registers;     /* per thread */
      guint32 shared_memory; /* static + dynamic, bytes */
    } kernel;
    struct {
      guint64 bytes;
      guint8  copy_kind;     /* KsCopyKind (memcpy) */
      guint8  src_kind;      /* KsMemoryKind */
      guint8  dst_kind;      /* KsMemoryKind; for memset the memory kind */
      guint8  value;         /* memset value */
    } copy;
  };
} KsGpuInfo;

typedef struct
{
  KsTrackKind  kind;
  guint32      id;           /* index in KsTrace.tracks */
  guint32      name;         /* string id of the row's label */
  guint32      process;      /* index in KsTrace.processes, or KS_NO_INDEX */
  guint32      thread;       /* index in KsTrace.threads, or KS_NO_INDEX */
  guint32      parent;       /* track this row belongs under, or KS_NO_INDEX */
  gint32       device;       /* GPU device id, -1 when none */
  gint64       stream;       /* CUDA stream id, -1 when none */
  gint32       sort_index;
  guint32      group;        /* file of a folder load; correlation ids are unique per group */

  guint32      n_slices;
  guint32      max_depth;    /* deepest depth + 1; 0 for an empty track */

  /* Columns, n_slices long, sorted by (start, longer first). */
  gint64      *start;
  gint64      *end;
  guint32     *name_id;      /* KsTrace string id */
  guint32     *category;     /* KsTrace string id (0 = "") */
  guint32     *correlation;  /* CUPTI correlation id, 0 when none */
  guint32     *external_id;  /* PyTorch External id, 0 when none */
  guint32     *args;         /* id in KsTrace.args, 0 when none */
  guint8      *slice_kind;   /* KsSliceKind */
  guint8      *depth;        /* nesting depth, capped at 255 */
  KsGpuInfo   *gpu;          /* stream tracks only, else NULL */

  /* by_depth[d] lists the indices of the slices at depth d, in start
   * order; slices at one depth never overlap, so both their starts and
   * their ends are sorted and a time range is two binary searches away. */
  guint32    **by_depth;
  guint32     *n_by_depth;

  /* Thread time (CPU time: trace-event "tts"/"tdur") of the slices that
   * have it, which few do: a sparse side table, n_thread_times long,
   * sorted by slice index; see ks_track_get_thread_time(). */
  guint32      n_thread_times;
  guint32     *thread_time_slice;
  gint64      *thread_start;     /* ns on the thread's CPU clock, G_MININT64 when unknown */
  gint64      *thread_duration;  /* ns, -1 when unknown */
} KsTrack;

typedef struct
{
  gint64   pid;              /* real pid, or a synthetic one for string pids */
  guint32  name;             /* string id, 0 when unnamed */
  guint32  label;            /* string id of process_labels, 0 when none */
  guint32  original;         /* string id of the pid as the file spelled it, 0 when numeric */
  gint32   sort_index;
  guint32  group;            /* index of the file this came from (folder loads) */
} KsProcess;

typedef struct
{
  guint32  process;          /* index in KsTrace.processes */
  gint64   tid;
  guint32  name;             /* string id, 0 when unnamed */
  guint32  original;         /* string id of the tid as the file spelled it, 0 when numeric */
  gint32   sort_index;
  guint32  track;            /* its KS_TRACK_THREAD track, or KS_NO_INDEX */
} KsThread;

typedef struct
{
  gint32   device;
  guint32  name;             /* string id */
  guint64  total_memory;
  guint32  sm_count;
  guint32  compute_major;
  guint32  compute_minor;
  guint32  max_threads_per_block;
  guint32  max_threads_per_sm;
  guint32  registers_per_block;
  guint32  registers_per_sm;
  guint32  shared_memory_per_block;
  guint32  shared_memory_per_sm;
  guint32  warp_size;
} KsGpu;

typedef enum
{
  KS_FLOW_LAUNCH = 0,        /* CPU launch -> GPU activity, by correlation id */
  KS_FLOW_OTHER,             /* any other s/t/f flow (fwdbwd, ipc, ...) */
} KsFlowKind;

typedef struct
{
  guint32 from_track;
  guint32 from_slice;
  guint32 to_track;
  guint32 to_slice;
  guint32 category;          /* string id */
  guint8  kind;              /* KsFlowKind */
} KsFlow;

typedef struct
{
  guint32  name;             /* string id */
  guint32  unit;             /* string id ("%", "bytes", "W", ...) */
  gint32   device;           /* -1 when not a GPU counter */
  guint32  process;          /* index or KS_NO_INDEX */
  guint32  n_samples;
  gint64  *ts;
  double  *value;
} KsCounter;

typedef struct
{
  gint64   ts;
  guint64  address;
  gint64   bytes;            /* positive allocation, negative free */
  gint64   total_allocated;  /* -1 when unknown */
  gint64   total_reserved;   /* -1 when unknown */
  guint32  thread;           /* index in KsTrace.threads, or KS_NO_INDEX */
  gint16   device;           /* -1 host */
} KsMemoryEvent;

typedef struct
{
  gint64   ts;
  guint32  track;            /* track index, or KS_NO_INDEX for global instants */
  guint32  process;          /* process index or KS_NO_INDEX */
  guint32  name;
  guint32  category;
  guint32  args;             /* as KsTrack.args */
} KsInstant;

/* One frame of the sampled stacks' prefix tree: the same (function,
 * file, line) under the same parent is one node, so a stack is the
 * path from its innermost node up to a root. */
typedef struct
{
  guint32  function;         /* string id */
  guint32  file;             /* string id */
  guint32  line;             /* 0 when unknown */
  guint32  parent;           /* caller's node, or KS_NO_INDEX for an outermost frame */
  guint32  depth;            /* 0 for an outermost frame */
} KsStackNode;

/* The category of a KS_SLICE_SAMPLE slice whose samples were all taken
 * while the thread waited. */
#define KS_SAMPLE_WAITING_CATEGORY "waiting"

typedef struct
{
  gint64   ts;
  guint32  thread : 31;      /* index in KsTrace.threads */
  guint32  waiting : 1;      /* the thread was waiting (sleep, lock, I/O, GIL), not running */
  guint32  node;             /* KsTrace.stack_nodes index of the innermost frame */
} KsSample;

/* Where a rank's number came from, most trusted first. */
typedef enum
{
  KS_RANK_FROM_NONE = 0,
  KS_RANK_FROM_DISTRIBUTED_INFO,  /* Kineto's distributedInfo */
  KS_RANK_FROM_ENVIRONMENT,       /* RANK / LOCAL_RANK of a recorded process */
  KS_RANK_FROM_FILE_NAME,         /* "rank3", "rank-3" in the file's name */
} KsRankSource;

/* One process of a distributed job: the rows of a group (a file of a
 * folder, a process of a recording) with a rank. */
typedef struct
{
  guint32  group;            /* KsTrack.group / KsProcess.group of its rows */
  gint32   rank;
  gint32   local_rank;       /* -1 when unknown */
  gint32   world_size;       /* 0 when unknown */
  guint32  file;             /* string id of the file's base name, 0 none */
  guint32  backend;          /* string id ("nccl", "gloo"), 0 unknown */
  guint32  host;             /* string id, 0 unknown */
  guint32  n_process_groups; /* 0 when unknown */
  guint8   source;           /* KsRankSource */
} KsRank;

typedef enum
{
  KS_FORMAT_UNKNOWN = 0,
  KS_FORMAT_KINETO_JSON,
  KS_FORMAT_CHROME_JSON,
  KS_FORMAT_KSCOPE,
  KS_FORMAT_NSYS_SQLITE,
  KS_FORMAT_NVIDIA_SMI,       /* nvidia-smi --query-gpu csv, dmon or pmon text */
  KS_FORMAT_MEMORY_SNAPSHOT,  /* torch.cuda.memory._dump_snapshot() pickle */
} KsFormat;

typedef struct _KsTrace KsTrace;

struct _KsTrace
{
  /*< private >*/
  GObject        parent_instance;

  /*< public, read-only >*/
  KsFormat       format;
  gint64         duration_ns;        /* last end - first start */
  gint64         start_utc_ns;       /* wall clock of time 0, 0 when unknown */
  gint64         origin_ns;          /* time 0 on the file's own clock */

  const char   **strings;            /* id -> NUL-terminated string; id 0 is "" */
  guint32        n_strings;

  KsTrack       *tracks;
  guint32        n_tracks;
  KsProcess     *processes;
  guint32        n_processes;
  KsThread      *threads;
  guint32        n_threads;
  KsGpu         *gpus;               /* sorted by device */
  guint32        n_gpus;
  KsFlow        *flows;
  guint32        n_flows;
  KsCounter     *counters;
  guint32        n_counters;
  KsMemoryEvent *memory_events;      /* sorted by ts */
  guint32        n_memory_events;
  KsInstant     *instants;           /* sorted by ts */
  guint32        n_instants;
  KsStackNode   *stack_nodes;        /* parents before children */
  guint32        n_stack_nodes;
  KsSample      *samples;            /* sorted by (thread, ts) */
  guint32        n_samples;

  KsRank        *ranks;              /* sorted by (rank, group); none when not distributed */
  guint32        n_ranks;

  KsArgsStore   *args;               /* the args texts, encoded (ks_trace_args) */

  GHashTable    *metadata;           /* char* -> char* */

  /*< private >*/
  gpointer       storage;
  GHashTable    *string_index;       /* char* -> id */
  GPtrArray     *track_storage;      /* blocks holding the small tracks' columns */
};

typedef struct
{
  guint64 by_kind[KS_N_SLICE_KINDS];
  guint64 flows;
  guint64 launch_flows;
  guint64 memory_events;
  guint64 counter_samples;
  guint64 instants;
  guint64 samples;
} KsTraceCounts;

#define KS_TYPE_TRACE (ks_trace_get_type ())

G_DECLARE_FINAL_TYPE (KsTrace, ks_trace, KS, TRACE, GObject)

const char  *ks_format_to_string         (KsFormat         format);
const char  *ks_slice_kind_to_string     (KsSliceKind      kind);
gboolean     ks_slice_kind_is_gpu        (KsSliceKind      kind);
const char  *ks_copy_kind_to_string      (KsCopyKind       kind);
const char  *ks_memory_kind_to_string    (KsMemoryKind     kind);

static inline const char *
ks_trace_string (const KsTrace *self,
                 guint32        id)
{
  return id < self->n_strings ? self->strings[id] : "";
}

/* The text of the args @id (KsTrack.args, KsInstant.args) decoded into
 * @scratch: scratch->str, or NULL when @id is 0. The text lasts until
 * @scratch next changes; a loop reuses one. */
static inline const char *
ks_trace_args (const KsTrace *self,
               guint32        id,
               GString       *scratch)
{
  return ks_args_store_get (self->args, id, scratch);
}

static inline const char *
ks_trace_slice_args (const KsTrace *self,
                     const KsTrack *track,
                     guint32        slice,
                     GString       *scratch)
{
  return ks_trace_args (self, track->args[slice], scratch);
}

const char  *ks_trace_get_metadata       (KsTrace         *self,
                                          const char      *key);
/* Whether the KS_TRACK_SAMPLES rows hold Python frames (our recorder's
 * sampling) rather than an Nsight export's CPU samples of native code,
 * also once that export was converted to .kscope. */
gboolean     ks_trace_samples_are_python (KsTrace         *self);
void         ks_trace_get_counts         (KsTrace         *self,
                                          KsTraceCounts   *counts);
guint32      ks_trace_lookup_string      (KsTrace         *self,
                                          const char      *str);
guint32      ks_trace_find_process       (KsTrace         *self,
                                          gint64           pid);
/* The index in KsTrace.ranks of @group's rank, or KS_NO_INDEX. */
guint32      ks_trace_rank_of_group      (const KsTrace   *self,
                                          guint32          group);
/* The rank (its number, not its index) that @track belongs to, or -1. */
gint32       ks_trace_rank_of_track      (const KsTrace   *self,
                                          guint32          track);
const char  *ks_rank_source_to_string    (KsRankSource     source);
const KsGpu *ks_trace_find_gpu           (const KsTrace   *self,
                                          gint32           device);
gsize        ks_trace_get_memory_size    (KsTrace         *self,
                                          gsize           *strings_and_args);
/* The span from the first slice or allocator event to the last one: the
 * trace's duration without markers that lie past what was recorded
 * (Kineto's "Record Window End"). FALSE and 0..duration when it has none. */
gboolean     ks_trace_get_activity_span  (const KsTrace   *self,
                                          gint64          *start,
                                          gint64          *end);

/* Slices on @track that intersect [t0, t1): calls @func for each, depth
 * by depth, in start order within a depth. Cost O(depths * log n + k). */
typedef gboolean (*KsSliceFunc) (const KsTrack *track,
                                 guint32        slice,
                                 gpointer       user_data);
void         ks_track_foreach_in_range   (const KsTrack   *track,
                                          gint64           t0,
                                          gint64           t1,
                                          KsSliceFunc      func,
                                          gpointer         user_data);
/* The first slice of @track starting at or after @t, or n_slices when
 * none does. */
guint32      ks_track_first_starting_from (const KsTrack  *track,
                                           gint64          t);
/* First index in by_depth[depth] whose slice ends after @t, or the
 * count when none does. */
guint32      ks_track_depth_lower_bound  (const KsTrack   *track,
                                          guint            depth,
                                          gint64           t);
/* The deepest slice on @track containing @t, or KS_NO_INDEX. */
guint32      ks_track_slice_at           (const KsTrack   *track,
                                          gint64           t,
                                          guint            max_depth);
/* The deepest KS_SLICE_CPU_OP slice on @track containing @t, or KS_NO_INDEX. */
guint32      ks_track_operator_at        (const KsTrack   *track,
                                          gint64           t);
/* The thread time of @slice: FALSE when it has none, else its start on
 * the thread's CPU clock (G_MININT64 when unknown) and its duration (-1
 * when unknown), either pointer may be NULL. */
gboolean     ks_track_get_thread_time    (const KsTrack   *track,
                                          guint32          slice,
                                          gint64          *thread_start,
                                          gint64          *thread_duration);
/* The enclosing slice (depth - 1) of @slice, or KS_NO_INDEX. */
guint32      ks_track_parent_slice       (const KsTrack   *track,
                                          guint32          slice);
/* The samples of @thread: *n_samples of them from the returned one
 * (NULL when none), in time order. */
const KsSample *ks_trace_thread_samples  (const KsTrace   *self,
                                          guint32          thread,
                                          guint32         *n_samples);

/* Duration of @slice minus the durations of its direct children. */
gint64       ks_track_self_time          (const KsTrack   *track,
                                          guint32          slice);

G_END_DECLS
