/* ks-memory-blocks.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-analysis.h"
#include "ks-memsnap.h"
#include "ks-trace.h"

G_BEGIN_DECLS

/* Every allocation of a memory snapshot as a block in time and address:
 * from its alloc to its free (the trace's start for one made before the
 * history, its end for one never freed), at its address among the
 * reserved segments. The timeline draws them per device, y = the address
 * with the ranges no segment ever held left out, so that a fragmented
 * allocator shows its holes.
 *
 * Built once per trace from the snapshot kept with it
 * (ks_memsnap_reader_get_snapshot()), on first use; a trace without one
 * has no devices. Times are the trace's (ns from its start). */

typedef struct
{
  gint64   start;
  gint64   end;
  guint64  addr;
  gint64   size;
  guint32  stack;          /* ks_memsnap_get_stack(), KS_MEMSNAP_NO_STACK when none */
  gint32   stream;
  gboolean freed;          /* FALSE: live at the end (end is the trace's) */
} KsMemoryBlock;

typedef struct
{
  guint64  addr;
  gint64   size;
  guint64  offset;         /* bytes of the bands before it */
} KsMemoryBand;

/* A segment event or an out-of-memory error of the history. */
typedef struct
{
  gint64   time;
  guint32  entry;          /* in the snapshot device's entries */
} KsMemoryMark;

/* The coverage of the blocks a frame folds, kept per time bucket at
 * power-of-two bucket widths: those under two pixels tall, and those
 * short enough to be under two pixels wide in a view wide enough for the
 * level. Such a view reads which pixel rows of the blocks row the blocks
 * live in a bucket cover, instead of walking them one by one (millions
 * in a large snapshot, nearly all of them folded). Rows are those of the
 * timeline's blocks row (KS_MEMORY_LOD_HEIGHT pixels, low addresses at
 * the bottom, KS_MEMORY_LOD_PAD pixels above and below), computed as it
 * draws them. */
#define KS_MEMORY_LOD_HEIGHT 160
#define KS_MEMORY_LOD_PAD    2
#define KS_MEMORY_LOD_WORDS  ((KS_MEMORY_LOD_HEIGHT + 63) / 64)

typedef struct
{
  gint64   bucket_ns;      /* a power of two */
  gint64   short_ns;       /* 8 buckets: the blocks not long and shorter than this are in cover,
                            * with those under 2 pixels tall */
  guint    n_buckets;      /* from the device's lod_origin */
  guint64 *cover;          /* KS_MEMORY_LOD_WORDS words a bucket: bit y set where row y is covered */
  GArray  *walk;           /* guint32: the blocks not in cover nor long, by start */
} KsMemoryLodLevel;

typedef struct _KsMemoryBlockDevice
{
  gint             device;
  guint            snap_device; /* its index in the snapshot (ks_memsnap_get_device()) */
  GArray          *blocks;     /* KsMemoryBlock, by start */
  gint64           long_ns;    /* blocks that last longer are long (the weights a model
                                * allocates first and keeps) */
  GArray          *long_blocks; /* guint32: the long blocks' indices, by start */
  gint64          *max_end;    /* per block: the latest end of the blocks up to it that
                                * are not long (G_MININT64 before the first) */
  GArray          *segments;   /* KsMemoryBlock (no stack), by start */
  GArray          *bands;      /* KsMemoryBand, by address: the ranges segments held, merged */
  guint64          span;       /* the bands' bytes */
  gint64           end;        /* the trace's end: blocks never freed end there */
  GArray          *marks;      /* KsMemoryMark, in trace order */
  gint64           lod_origin; /* the first block's start: bucket 0 begins there */
  guint            n_lod;
  KsMemoryLodLevel *lod;       /* finest first; none for a device without blocks */
} KsMemoryBlockDevice;

typedef struct
{
  KsMemsnap           *snap;   /* owned by the trace */
  guint                n_devices;
  KsMemoryBlockDevice *devices;
} KsMemoryBlocks;

/* The blocks of @trace (owned by it). Thread-safe. */
const KsMemoryBlocks *ks_memory_blocks_get      (KsTrace                   *trace);

/* What a window needs of a trace with a memory snapshot before it shows
 * it, made ready on the calling thread (a loader's worker): the blocks
 * and the memory series, while the analysis for @options starts on
 * another thread and goes on after this returns (ks_analysis_compute()
 * with the same options waits for it). Nothing for a trace without one. */
void                  ks_memory_blocks_prepare  (KsTrace                   *trace,
                                                 const KsAnalysisOptions   *options,
                                                 GCancellable              *cancellable);

/* Bytes from the bottom of the bands to @addr (its place on the y axis). */
guint64               ks_memory_blocks_position (const KsMemoryBlockDevice *device,
                                                 guint64                    addr);
/* The address at @position of the bands. */
guint64               ks_memory_blocks_address  (const KsMemoryBlockDevice *device,
                                                 guint64                    position);

/* The blocks live at some time in [@t0, @t1], each once: the long ones,
 * by start, then the others by start, from the first that may reach @t0
 * (a frame touches those in view and few more, however long the blocks
 * allocated first live). */
typedef struct
{
  const KsMemoryBlockDevice *device;
  gint64                     t0;
  gint64                     t1;
  guint                      next_long;
  guint                      next;
} KsMemoryBlockIter;

void                  ks_memory_block_iter_init (KsMemoryBlockIter         *iter,
                                                 const KsMemoryBlockDevice *device,
                                                 gint64                     t0,
                                                 gint64                     t1);
/* The next block's index in @iter's device, or FALSE at the end. Inline:
 * a frame calls it for every block in view. */
static inline gboolean
ks_memory_block_iter_next (KsMemoryBlockIter *iter,
                           guint             *block)
{
  const KsMemoryBlockDevice *dev = iter->device;
  const KsMemoryBlock *blocks = (const KsMemoryBlock *) dev->blocks->data;

  while (iter->next_long < dev->long_blocks->len)
    {
      guint i = g_array_index (dev->long_blocks, guint32, iter->next_long++);

      if (blocks[i].start > iter->t1)
        {
          iter->next_long = dev->long_blocks->len;
          break;
        }
      if (blocks[i].end >= iter->t0)
        {
          *block = i;
          return TRUE;
        }
    }
  while (iter->next < dev->blocks->len)
    {
      const KsMemoryBlock *b = &blocks[iter->next++];

      if (b->start > iter->t1)
        {
          iter->next = dev->blocks->len;
          break;
        }
      if (b->end >= iter->t0 && b->end - b->start <= dev->long_ns)
        {
          *block = iter->next - 1;
          return TRUE;
        }
    }
  return FALSE;
}

/* The allocator at time @t: the segments live then, cut into the blocks
 * live inside them and the free holes between, by address. */
typedef struct
{
  guint64  addr;
  gint64   size;
  guint32  block;          /* index in the device's blocks, KS_NO_INDEX for a free hole */
  guint32  segment;        /* index in the device's segments */
} KsMemoryPiece;

typedef struct
{
  gint64          time;
  KsMemsnapState  state;       /* segments, reserved, allocated, holes, largest hole */
  GArray         *pieces;      /* KsMemoryPiece, by address */
} KsMemoryLayout;

KsMemoryLayout       *ks_memory_blocks_layout_at (const KsMemoryBlockDevice *device,
                                                  gint64                     t);
void                  ks_memory_layout_free      (KsMemoryLayout            *layout);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsMemoryLayout, ks_memory_layout_free)

G_END_DECLS
