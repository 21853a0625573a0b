/* ks-trace-builder-private.h: what the files of the builder share
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-trace-builder.h"
#include "ks-trace-private.h"

/* Marks a memory event's thread as a stand-in (see unplaced_memory). */
#define KS_BUILDER_UNPLACED 0x80000000u

G_BEGIN_DECLS

#define MAX_DEPTH 255
#define PACKED_MAX KS_TRACK_PACKED_MAX

/* A track while it is built. Its columns are one block (a track of at
 * most PACKED_MAX slices: one allocation, grown from one slice) or one
 * array each (larger tracks: realloc() grows them in place, and they are
 * paged in ahead); the column pointers are valid either way. */
typedef struct
{
  guint8   kind;            /* KsTrackKind */
  guint8   sorted;
  guint32  name;
  guint32  process;
  guint32  thread;
  guint32  parent;
  gint32   device;
  gint32   sort_index;
  guint32  group;
  gint64   stream;
  guint32  n_slices;
  guint32  cap;             /* > PACKED_MAX: one array per column */
  guint32  ready;           /* slices whose column pages are paged in */
  gint64  *start;           /* packed: the block */
  gint64  *end;
  guint32 *name_id;
  guint32 *category;
  guint32 *correlation;
  guint32 *external_id;
  guint32 *args;
  guint8  *slice_kind;
  KsGpuInfo *gpu;           /* stream tracks only */
} TrackBuilder;

typedef struct
{
  guint32 from_track;
  guint32 to_track;
  gint64  from_ts;
  gint64  to_ts;
  gint64  from_end;         /* G_MININT64: the slice enclosing that ts, else */
  gint64  to_end;           /* the outermost slice spanning [ts, end) exactly */
  guint32 category;
  guint8  kind;
} PendingFlow;

typedef struct
{
  guint32 track;
  gint64  start;
  gint64  end;
  gint64  thread_start;
  gint64  thread_duration;
} PendingThreadTime;

typedef struct
{
  guint32 a;
  gint64  b;
  gint64  c;
} Key;

/* An open-addressing table of ids whose keys are read back from the
 * builder's own arrays: 4 to 8 bytes an entry, where a GHashTable with
 * an allocated key cost about 70. Slots hold id + 1, 0 when empty. */
typedef void (*KeyOfFunc) (KsTraceBuilder *self,
                           guint32         id,
                           Key            *key);

typedef struct
{
  guint32  *slots;
  guint32   size;           /* a power of two, or 0 */
  guint32   n;
  KeyOfFunc key_of;
} IdIndex;

typedef struct
{
  GArray  *ts;
  GArray  *value;
  gboolean sorted;
} CounterSamples;

/* What stopped the builder: past it, everything added is dropped and
 * finish() fails with a message that says which. */
typedef enum
{
  FAILED_NONE = 0,
  FAILED_PROCESSES,
  FAILED_THREADS,
  FAILED_TRACKS,
  FAILED_COUNTERS,
  FAILED_MEMORY,
} Failure;

/* A string this long is allocated on its own, where running out of
 * memory can be said rather than abort the program. */
#define LONG_STRING 4096

struct _KsTraceBuilder
{
  KsFormat      format;
  GStringChunk *chunk;
  GPtrArray    *long_strings;   /* strings of LONG_STRING bytes or more, apart */
  GPtrArray    *strings;        /* const char*, owned by chunk or long_strings */
  GHashTable   *string_index;   /* const char* -> id */
  KsArgsStore  *args;
  GFunc         args_barrier;   /* see ks_trace_builder_set_args_barrier() */
  gpointer      args_barrier_data;

  GArray       *processes;      /* KsProcess */
  IdIndex       process_index;  /* by pid */
  GArray       *threads;        /* KsThread */
  IdIndex       thread_index;   /* by (process, tid) */
  GArray       *nvtx_tracks;    /* per thread: nvtx track + 1 */
  GArray       *tracks;         /* TrackBuilder */
  IdIndex       track_index;    /* GPU tracks by (kind, group, device, stream),
                                 * async tracks by (process, name) */
  GArray       *gpus;           /* KsGpu */
  GHashTable   *gpu_index;      /* device -> index + 1 */
  GArray       *flows;          /* PendingFlow */
  GArray       *thread_times;   /* PendingThreadTime */
  GArray       *counters;       /* KsCounter (samples kept apart) */
  GPtrArray    *counter_samples;/* CounterSamples */
  GHashTable   *counter_index;  /* "name\x1fdevice\x1fprocess" -> index + 1 */
  GArray       *memory_events;  /* KsMemoryEvent */
  /* Events whose thread is to be found at finish: thread is the main
   * thread of their process | KS_BUILDER_UNPLACED. */
  guint64       unplaced_memory;
  GArray       *instants;       /* KsInstant */
  GArray       *ranks;          /* KsRank, rank -1 until given one */
  GHashTable   *metadata;
  GPtrArray    *open_ranges;    /* per stack: GArray of KsOpenRange, or NULL */
  GArray       *stack_nodes;    /* KsStackNode */
  IdIndex       stack_node_index; /* by (parent, function << 32 | file, line) */
  GArray       *samples;        /* KsSample, absolute times */
  guint64       samples_dropped;  /* past KS_TRACE_BUILDER_MAX_ROWS samples or frames */
  guint64       samples_cut;      /* stacks deeper than KS_TRACE_MAX_STACK_DEPTH */

  /* One past the limit of each kind: see _ks_builder_new_row() */
  guint32       sink_process;
  guint32       sink_thread;
  guint32       sink_track;
  guint32       sink_counter;
  Failure       failed;

  guint32       group;
  gint64        min_ts;
  gint64        max_ts;
  guint64       out_of_range;   /* events left out by time_ok() */
  gint64        start_utc;
  gboolean      have_start_utc;
  gboolean      warn_overlaps;
  guint64       n_events;
};

/* Times 2^62 ns (146 years) or more from the clock's zero are refused,
 * so that any two times of a trace differ by less than G_MAXINT64: a
 * damaged timestamp must not overflow every duration. */
#define MAX_ABS_TS KS_TRACE_BUILDER_MAX_ABS_TS

/* The columns of a large track are paged in 16 Ki slices ahead. Small
 * tracks are left to page faults: they share heap pages. */
#define TRACK_PAGE_IN_MIN (16 * 1024)
#define TRACK_PAGE_IN     (16 * 1024)

static inline TrackBuilder *
get_tb (KsTraceBuilder *self,
        guint32         track)
{
  return &g_array_index (self->tracks, TrackBuilder, track);
}

static inline gboolean
time_ok (KsTraceBuilder *self,
         gint64          ts)
{
  if (G_LIKELY (ts > -MAX_ABS_TS && ts < MAX_ABS_TS))
    return TRUE;
  self->out_of_range++;
  return FALSE;
}

static inline void
note_ts (KsTraceBuilder *self,
         gint64          ts)
{
  if (ts < self->min_ts)
    self->min_ts = ts;
  if (ts > self->max_ts)
    self->max_ts = ts;
}
/* Before the args store is read or written: what a reader handed to
 * another thread is stored first (ks_trace_builder_set_args_barrier()). */
static inline void
_ks_builder_args_barrier (KsTraceBuilder *self)
{
  if (G_UNLIKELY (self->args_barrier != NULL))
    self->args_barrier (self->args_barrier_data, self);
}

/* ks-trace-builder.c */

gboolean _ks_builder_new_row (KsTraceBuilder *self,
                              guint           n,
                              Failure         failure,
                              guint32        *sink,
                              guint32        *id);

void _ks_builder_fail_memory (KsTraceBuilder *self);

void _ks_builder_page_in (const void *from,
                          const void *to);

void _ks_builder_track_page_in (TrackBuilder *tb,
                                guint32       n);

void _ks_builder_array_reserve (GArray *array,
                                guint64 n);

/* ks-trace-builder-tracks.c */

gboolean _ks_builder_track_grow (KsTraceBuilder *self,
                                 TrackBuilder   *tb);

/* Room for @cap slices, more than it has: FALSE when memory ran out,
 * which does not fail the builder. */
gboolean _ks_builder_track_resize (TrackBuilder *tb,
                                   guint32       cap);

void _ks_builder_process_key (KsTraceBuilder *self,
                              guint32         id,
                              Key            *key);

void _ks_builder_thread_key (KsTraceBuilder *self,
                             guint32         id,
                             Key            *key);

void _ks_builder_track_key (KsTraceBuilder *self,
                            guint32         id,
                            Key            *key);

void _ks_builder_track_builder_clear (gpointer data);

guint32 _ks_builder_new_track (KsTraceBuilder *self,
                               KsTrackKind     kind);

guint32 _ks_builder_id_index_find (KsTraceBuilder *self,
                                   const IdIndex  *index,
                                   const Key      *key);

void _ks_builder_id_index_add (KsTraceBuilder *self,
                               IdIndex        *index,
                               guint32         id);

/* ks-trace-builder-samples.c */

void _ks_builder_stack_node_key (KsTraceBuilder *self,
                                 guint32         id,
                                 Key            *key);

void _ks_builder_finish_samples (KsTraceBuilder *self);

void _ks_builder_take_samples (KsTraceBuilder *self,
                               KsTrace        *trace,
                               gint64          origin);

/* ks-trace-builder-finish.c: the outermost slice of @track spanning
 * exactly [@start, @end) (times relative to the origin), or KS_NO_INDEX */
guint32 _ks_builder_exact_slice (const KsTrack *track,
                                 gint64         start,
                                 gint64         end);

/* ks-trace-builder-flows.c: the trace's flows, bound to slices */
void _ks_builder_link_flows (KsTraceBuilder *self,
                             KsTrace        *trace);

/* ks-trace-builder-timed.c: memory events, samples and instants
 * finished on a thread of their own while the tracks are */

typedef struct _KsBuilderTimed KsBuilderTimed;

gboolean        _ks_builder_array_is_sorted (GArray         *array,
                                             GCompareFunc    compare);
KsBuilderTimed *_ks_builder_timed_start     (KsTraceBuilder *self,
                                             KsTrace        *trace,
                                             gint64          origin);
/* Waits for it; then places the memory events that named no thread,
 * which needs the trace's tracks, threads and processes. */
void            _ks_builder_timed_finish    (KsBuilderTimed *t);

G_END_DECLS
