/* ks-memsnap.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ks-progress.h"

G_BEGIN_DECLS

/* A GPU memory snapshot of PyTorch's caching allocator, as
 * torch.cuda.memory._dump_snapshot() pickles it: per device the segments
 * and their blocks at dump time, and the trace of allocator events
 * (device_traces) recorded by _record_memory_history(). Read with
 * ks-pickle.c, so a hostile file runs nothing.
 *
 * The allocator's state at any event is rebuilt from the dump walking the
 * trace backwards (the trace may have lost its oldest entries to its ring
 * buffer, the dump is always whole), then forwards. */

typedef enum
{
  KS_MEMSNAP_ALLOC = 0,
  KS_MEMSNAP_FREE_REQUESTED,
  KS_MEMSNAP_FREE_COMPLETED,     /* also an older torch's "free" */
  KS_MEMSNAP_SEGMENT_ALLOC,
  KS_MEMSNAP_SEGMENT_FREE,
  KS_MEMSNAP_SEGMENT_MAP,        /* expandable segments */
  KS_MEMSNAP_SEGMENT_UNMAP,
  KS_MEMSNAP_SNAPSHOT,
  KS_MEMSNAP_OOM,
  KS_MEMSNAP_OTHER,
  KS_N_MEMSNAP_ACTIONS
} KsMemsnapAction;

typedef enum
{
  KS_MEMSNAP_BLOCK_ACTIVE = 0,   /* active_allocated */
  KS_MEMSNAP_BLOCK_PENDING_FREE, /* active_pending_free: freed, waiting on a stream */
  KS_MEMSNAP_BLOCK_INACTIVE,     /* a free hole inside its segment */
} KsMemsnapBlockState;

typedef struct
{
  const char *name;
  const char *file;
  gint64      line;
} KsMemsnapFrame;

/* A Python stack, innermost frame first; text is "name (file:line) ← …". */
typedef struct
{
  guint           n_frames;
  KsMemsnapFrame *frames;
  const char     *text;
} KsMemsnapStack;

#define KS_MEMSNAP_NO_STACK G_MAXUINT32

/* Bounds that keep time_us × 1000 + a time shift within gint64 whatever
 * a file holds: time_us is clamped when read to 0 … 2^62 ns (the epoch to
 * the year 2116; the span other readers allow), a shift to ±73 years. */
#define KS_MEMSNAP_MAX_TIME_US  ((G_GINT64_CONSTANT (1) << 62) / 1000)
#define KS_MEMSNAP_MAX_SHIFT_NS (G_MAXINT64 / 4)

typedef struct
{
  gint64   time_us;              /* wall clock, µs since the epoch (the profiler's clock) */
  guint64  addr;
  gint64   size;                 /* bytes */
  gint64   device_free;          /* an oom's free device memory, else -1 */
  guint32  stack;                /* KS_MEMSNAP_NO_STACK when none */
  gint32   stream;
  guint8   action;               /* KsMemsnapAction */
} KsMemsnapEntry;

typedef struct
{
  guint64  addr;
  gint64   size;
  gint64   requested;
  guint32  stack;
  guint8   state;                /* KsMemsnapBlockState */
} KsMemsnapBlock;

typedef struct
{
  guint64  addr;
  gint64   total;
  gint64   stream;
  gboolean expandable;
  guint    first_block;          /* in the device's blocks */
  guint    n_blocks;
} KsMemsnapSegment;

typedef struct
{
  gint     device;
  GArray  *segments;             /* KsMemsnapSegment, by address */
  GArray  *blocks;               /* KsMemsnapBlock, by segment then address */
  GArray  *entries;              /* KsMemsnapEntry, in trace order */
} KsMemsnapDevice;

/* The allocator's figures at one instant. */
typedef struct
{
  guint    segments;
  gint64   reserved_bytes;
  gint64   allocated_bytes;      /* active blocks, pending frees included */
  guint    active_blocks;
  guint    inactive_blocks;      /* free holes inside segments */
  gint64   free_bytes;           /* reserved - allocated */
  gint64   largest_free_bytes;
} KsMemsnapState;

typedef struct _KsMemsnap KsMemsnap;

KsMemsnap        *ks_memsnap_load           (GFile            *file,
                                             GCancellable     *cancellable,
                                             GError          **error);
KsMemsnap        *ks_memsnap_new_from_bytes (GBytes           *bytes,
                                             const char       *name,
                                             GError          **error);
void              ks_memsnap_free           (KsMemsnap        *self);

/* ks-memsnap-kscope.c: a recording's snapshot (KS_CUDA_MEMORY_SNAPSHOTS),
 * that of the first process that kept one; @n_processes (may be NULL):
 * how many processes kept one. ks_memsnap_load() reads a .kscope so. */
gboolean          ks_memsnap_is_kscope      (const guint8     *data,
                                             gsize             len);
KsMemsnap        *ks_memsnap_load_kscope    (const char       *path,
                                             const char       *name,
                                             guint            *n_processes,
                                             GError          **error);

guint             ks_memsnap_get_n_devices  (KsMemsnap        *self);
const KsMemsnapDevice *ks_memsnap_get_device (KsMemsnap       *self,
                                             guint             i);
const KsMemsnapStack  *ks_memsnap_get_stack  (KsMemsnap       *self,
                                             guint32           stack);
guint64           ks_memsnap_get_n_entries  (KsMemsnap        *self);
/* What to add to time_us × 1000 for the clock of the file the trace is
 * loaded from (the model's times are that less KsTrace.origin_ns): 0 for
 * a pickle (the epoch's clock), the recording's for a .kscope's snapshot. */
gint64            ks_memsnap_get_time_shift (KsMemsnap        *self);
void              ks_memsnap_set_time_shift (KsMemsnap        *self,
                                             gint64            shift_ns);
/* "expandable_segments: False, max_split_size: -1, …", "" when absent. */
const char       *ks_memsnap_get_settings   (KsMemsnap        *self);

const char       *ks_memsnap_action_to_string (KsMemsnapAction action);

/* ks-memsnap-replay.c */
void              ks_memsnap_device_end_state (const KsMemsnapDevice *device,
                                               KsMemsnapState        *state);

typedef struct
{
  gint64   time_us;
  gint64   allocated_bytes;
  gint64   reserved_bytes;
} KsMemsnapPoint;

/* A group of live blocks with one allocating stack. */
typedef struct
{
  guint32  stack;
  gint64   bytes;
  guint    blocks;
} KsMemsnapGroup;

typedef struct
{
  gint             device;
  gint64           request_bytes;
  gint64           device_free_bytes;  /* the driver's free memory, -1 when unknown */
  gint64           time_us;
  guint32          stack;
  KsMemsnapState   state;              /* the allocator just before the request */
  gboolean         fragmentation;      /* enough free inside segments, no hole large enough */
} KsMemsnapOom;

typedef struct
{
  gint             device;
  GArray          *points;             /* KsMemsnapPoint after each entry, from the rebuilt start */
  gint64           peak_allocated;
  gint64           peak_time_us;       /* 0 when the peak is the rebuilt start */
  GArray          *peak_groups;        /* KsMemsnapGroup at the peak, largest first */
  GArray          *end_groups;         /* KsMemsnapGroup of the blocks live at the end */
  GArray          *ooms;               /* KsMemsnapOom */
  guint64          mismatched;         /* entries that did not fit the rebuilt state (an alloc
                                        * of a live block, a free of one not live): counted */
} KsMemsnapReplay;

KsMemsnapReplay  *ks_memsnap_replay         (KsMemsnap             *self,
                                             guint                  device_index);
void              ks_memsnap_replay_free    (KsMemsnapReplay       *replay);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsMemsnap, ks_memsnap_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsMemsnapReplay, ks_memsnap_replay_free)

G_END_DECLS
