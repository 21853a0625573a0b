/* ks-memory-blocks.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-memory-blocks"

#include "config.h"

#include <string.h>

#include "ks-analysis-private.h"
#include "ks-memory-blocks.h"
#include "ks-memsnap-reader.h"

/* An allocator event at an address, in trace order. */
typedef struct
{
  guint64 addr;
  guint   entry;
} AddrEvent;

static gint
compare_addr_events (gconstpointer a,
                     gconstpointer b)
{
  const AddrEvent *x = a, *y = b;

  if (x->addr != y->addr)
    return x->addr < y->addr ? -1 : 1;
  return x->entry < y->entry ? -1 : x->entry > y->entry;
}

static gint
compare_blocks (gconstpointer a,
                gconstpointer b)
{
  const KsMemoryBlock *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static gboolean
has_address (const GArray *events,
             guint64       addr)
{
  guint lo = 0, hi = events->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (g_array_index (events, AddrEvent, mid).addr < addr)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < events->len && g_array_index (events, AddrEvent, lo).addr == addr;
}

typedef struct
{
  const KsMemsnapEntry *entries;
  gint64                origin;
  gint64                end;
} Clock;

/* Not clamped to the trace: a snapshot opened with a profiler's trace
 * may begin long before it. */
static gint64
entry_time (const Clock *clock,
            guint        i)
{
  gint64 us = CLAMP (clock->entries[i].time_us, -G_MAXINT64 / 2000, G_MAXINT64 / 2000);

  return us * 1000 - clock->origin;
}

/* A damaged size must not wrap the address space. */
static gint64
clamp_size (guint64 addr,
            gint64  size)
{
  return (gint64) MIN ((guint64) MAX (0, size), MIN (G_MAXUINT64 - addr, (guint64) G_MAXINT64));
}

static void
push_block (GArray                *out,
            const Clock           *clock,
            gint64                 start,
            gint64                 end,
            const KsMemsnapEntry  *e,
            gboolean               with_stack,
            gboolean               freed)
{
  KsMemoryBlock b;

  b.start = start;
  b.end = MAX (start, end);
  b.addr = e->addr;
  b.size = clamp_size (e->addr, e->size);
  b.stack = with_stack ? e->stack : KS_MEMSNAP_NO_STACK;
  b.stream = e->stream;
  b.freed = freed;
  g_array_append_val (out, b);
}

/* Pairs each @open event with the next @close at its address: a block
 * from one to the other; a close with none open began before the history
 * (at the start, its stack unknown: an event's stack is its own, not the
 * allocation's), an open never closed lasts to the end. Returns the
 * events by address. */
static GArray *
pair_events (const KsMemsnapDevice *d,
             const Clock           *clock,
             guint8                 open1,
             guint8                 open2,
             guint8                 close1,
             guint8                 close2,
             GArray                *out)
{
  GArray *events = g_array_new (FALSE, FALSE, sizeof (AddrEvent));
  guint i = 0;

  for (guint e = 0; e < d->entries->len; e++)
    {
      guint8 a = clock->entries[e].action;

      if (a == open1 || a == open2 || a == close1 || a == close2)
        {
          AddrEvent ev = { clock->entries[e].addr, e };

          g_array_append_val (events, ev);
        }
    }
  g_array_sort (events, compare_addr_events);

  while (i < events->len)
    {
      guint64 addr = g_array_index (events, AddrEvent, i).addr;
      gint64 open = -1;

      for (; i < events->len && g_array_index (events, AddrEvent, i).addr == addr; i++)
        {
          guint e = g_array_index (events, AddrEvent, i).entry;
          guint8 a = clock->entries[e].action;

          if (a == open1 || a == open2)
            {
              /* An allocation of a live block: the first one ended unseen. */
              if (open >= 0)
                push_block (out, clock, entry_time (clock, open), entry_time (clock, e),
                            &clock->entries[open], TRUE, TRUE);
              open = e;
            }
          else if (open >= 0)
            {
              push_block (out, clock, entry_time (clock, open), entry_time (clock, e),
                          &clock->entries[open], TRUE, TRUE);
              open = -1;
            }
          else
            push_block (out, clock, MIN (0, entry_time (clock, e)), entry_time (clock, e), &clock->entries[e],
                        FALSE, TRUE);
        }
      if (open >= 0)
        push_block (out, clock, entry_time (clock, open), MAX (clock->end, entry_time (clock, open)),
                    &clock->entries[open], TRUE, FALSE);
    }
  return events;
}

static gint
compare_bands (gconstpointer a,
               gconstpointer b)
{
  const KsMemoryBand *x = a, *y = b;

  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The address ranges the segments (and, where the history lost a
 * segment's event, the blocks) held at any time, merged. */
static void
build_bands (KsMemoryBlockDevice *dev)
{
  GArray *all = g_array_new (FALSE, FALSE, sizeof (KsMemoryBand));
  GArray *sources[] = { dev->segments, dev->blocks };

  for (guint s = 0; s < G_N_ELEMENTS (sources); s++)
    for (guint i = 0; i < sources[s]->len; i++)
      {
        const KsMemoryBlock *b = &g_array_index (sources[s], KsMemoryBlock, i);
        KsMemoryBand band = { b->addr, (gint64) MIN ((guint64) MAX (1, b->size), G_MAXUINT64 - b->addr), 0 };

        g_array_append_val (all, band);
      }
  g_array_sort (all, compare_bands);

  dev->bands = g_array_new (FALSE, FALSE, sizeof (KsMemoryBand));
  dev->span = 0;
  for (guint i = 0; i < all->len; i++)
    {
      const KsMemoryBand *r = &g_array_index (all, KsMemoryBand, i);
      KsMemoryBand *last = dev->bands->len > 0
                           ? &g_array_index (dev->bands, KsMemoryBand, dev->bands->len - 1) : NULL;

      if (last != NULL && r->addr <= last->addr + (guint64) last->size)
        {
          guint64 end = MAX (last->addr + (guint64) last->size, r->addr + (guint64) r->size);

          dev->span += end - (last->addr + (guint64) last->size);
          last->size = (gint64) (end - last->addr);
        }
      else
        {
          KsMemoryBand band = { r->addr, r->size, dev->span };

          g_array_append_val (dev->bands, band);
          dev->span += (guint64) r->size;
        }
    }
  g_array_unref (all);
}

static void
build_device (KsTrace               *trace,
              const KsMemsnapDevice *d,
              guint                  snap_device,
              KsMemoryBlockDevice   *dev)
{
  /* time_us is µs since the epoch: the trace's wall clock at its time 0
   * (a snapshot's own trace starts at its first event) */
  Clock clock = { (const KsMemsnapEntry *) d->entries->data,
                  trace->start_utc_ns != 0 ? trace->start_utc_ns : trace->origin_ns, trace->duration_ns };
  g_autoptr(GArray) block_events = NULL;
  g_autoptr(GArray) segment_events = NULL;

  dev->device = d->device;
  dev->snap_device = snap_device;
  dev->end = trace->duration_ns;
  dev->marks = g_array_new (FALSE, FALSE, sizeof (KsMemoryMark));
  for (guint e = 0; e < d->entries->len; e++)
    {
      guint8 a = clock.entries[e].action;

      if (a == KS_MEMSNAP_SEGMENT_ALLOC || a == KS_MEMSNAP_SEGMENT_FREE || a == KS_MEMSNAP_SEGMENT_MAP ||
          a == KS_MEMSNAP_SEGMENT_UNMAP || a == KS_MEMSNAP_OOM)
        {
          KsMemoryMark m = { entry_time (&clock, e), e };

          g_array_append_val (dev->marks, m);
        }
    }
  dev->blocks = g_array_new (FALSE, FALSE, sizeof (KsMemoryBlock));
  dev->segments = g_array_new (FALSE, FALSE, sizeof (KsMemoryBlock));

  block_events = pair_events (d, &clock, KS_MEMSNAP_ALLOC, KS_MEMSNAP_ALLOC,
                              KS_MEMSNAP_FREE_COMPLETED, KS_MEMSNAP_FREE_COMPLETED, dev->blocks);
  segment_events = pair_events (d, &clock, KS_MEMSNAP_SEGMENT_ALLOC, KS_MEMSNAP_SEGMENT_MAP,
                                KS_MEMSNAP_SEGMENT_FREE, KS_MEMSNAP_SEGMENT_UNMAP, dev->segments);

  /* What the dump holds and the history never touched was there from
   * before it to the end. */
  for (guint s = 0; s < d->segments->len; s++)
    {
      const KsMemsnapSegment *seg = &g_array_index (d->segments, KsMemsnapSegment, s);

      if (!has_address (segment_events, seg->addr))
        {
          KsMemoryBlock b = { 0, dev->end, seg->addr, clamp_size (seg->addr, seg->total), KS_MEMSNAP_NO_STACK,
                                 (gint32) seg->stream, FALSE };

          g_array_append_val (dev->segments, b);
        }
      for (guint i = 0; i < seg->n_blocks; i++)
        {
          const KsMemsnapBlock *blk = &g_array_index (d->blocks, KsMemsnapBlock, seg->first_block + i);

          if (blk->state != KS_MEMSNAP_BLOCK_INACTIVE && !has_address (block_events, blk->addr))
            {
              KsMemoryBlock b = { 0, dev->end, blk->addr, clamp_size (blk->addr, blk->size), blk->stack,
                                     (gint32) seg->stream, FALSE };

              g_array_append_val (dev->blocks, b);
            }
        }
    }

  g_array_sort (dev->blocks, compare_blocks);
  g_array_sort (dev->segments, compare_blocks);
  dev->max_end = g_new (gint64, MAX (1, dev->blocks->len));
  for (guint i = 0; i < dev->blocks->len; i++)
    {
      gint64 end = g_array_index (dev->blocks, KsMemoryBlock, i).end;

      dev->max_end[i] = i > 0 ? MAX (dev->max_end[i - 1], end) : end;
    }
  build_bands (dev);
}

static void
blocks_free (KsMemoryBlocks *self)
{
  for (guint i = 0; i < self->n_devices; i++)
    {
      g_array_unref (self->devices[i].blocks);
      g_array_unref (self->devices[i].segments);
      g_array_unref (self->devices[i].bands);
      g_array_unref (self->devices[i].marks);
      g_free (self->devices[i].max_end);
    }
  g_free (self->devices);
  g_free (self);
}

static KsMemoryBlocks *
build (KsTrace *trace)
{
  KsMemoryBlocks *self = g_new0 (KsMemoryBlocks, 1);
  KsMemsnap *snap = ks_memsnap_reader_get_snapshot (trace);
  guint n;

  if (snap == NULL)
    return self;
  self->snap = snap;
  n = ks_memsnap_get_n_devices (snap);
  self->devices = g_new0 (KsMemoryBlockDevice, MAX (1, n));
  for (guint i = 0; i < n; i++)
    {
      const KsMemsnapDevice *d = ks_memsnap_get_device (snap, i);

      /* A device without history has nothing in time to draw. */
      if (d->entries->len == 0)
        continue;
      build_device (trace, d, i, &self->devices[self->n_devices++]);
    }
  return self;
}

const KsMemoryBlocks *
ks_memory_blocks_get (KsTrace *trace)
{
  g_return_val_if_fail (KS_IS_TRACE (trace), NULL);

  return _ks_trace_get_cached (trace, "ks-memory-blocks", (gpointer (*) (KsTrace *)) build,
                               (GDestroyNotify) blocks_free);
}

guint64
ks_memory_blocks_position (const KsMemoryBlockDevice *device,
                           guint64                    addr)
{
  const KsMemoryBand *bands = (const KsMemoryBand *) device->bands->data;
  guint lo = 0, hi = device->bands->len;

  /* the last band starting at or below @addr */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (bands[mid].addr <= addr)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return 0;
  return bands[lo - 1].offset + MIN (addr - bands[lo - 1].addr, (guint64) bands[lo - 1].size);
}

guint64
ks_memory_blocks_address (const KsMemoryBlockDevice *device,
                          guint64                    position)
{
  const KsMemoryBand *bands = (const KsMemoryBand *) device->bands->data;
  guint lo = 0, hi = device->bands->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (bands[mid].offset <= position)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return 0;
  return bands[lo - 1].addr + (position - bands[lo - 1].offset);
}

guint
ks_memory_blocks_first_live (const KsMemoryBlockDevice *device,
                             gint64                     t)
{
  guint lo = 0, hi = device->blocks->len;

  /* max_end never decreases: the first index whose running end reaches @t */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (device->max_end[mid] < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static gboolean
live_at (const KsMemoryBlock *b,
         gint64               t)
{
  /* what is never freed is live at the trace's last instant too */
  return b->start <= t && (t < b->end || !b->freed);
}

static gint
compare_pieces (gconstpointer a,
                gconstpointer b)
{
  const KsMemoryPiece *x = a, *y = b;

  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

KsMemoryLayout *
ks_memory_blocks_layout_at (const KsMemoryBlockDevice *device,
                            gint64                     t)
{
  KsMemoryLayout *out = g_new0 (KsMemoryLayout, 1);
  g_autoptr(GArray) segs = g_array_new (FALSE, FALSE, sizeof (KsMemoryPiece));
  g_autoptr(GArray) live = g_array_new (FALSE, FALSE, sizeof (KsMemoryPiece));
  guint b = 0;

  out->time = t;
  out->pieces = g_array_new (FALSE, FALSE, sizeof (KsMemoryPiece));
  for (guint i = 0; i < device->segments->len; i++)
    {
      const KsMemoryBlock *s = &g_array_index (device->segments, KsMemoryBlock, i);
      KsMemoryPiece p = { s->addr, s->size, KS_NO_INDEX, i };

      if (live_at (s, t))
        g_array_append_val (segs, p);
    }
  for (guint i = ks_memory_blocks_first_live (device, t); i < device->blocks->len; i++)
    {
      const KsMemoryBlock *blk = &g_array_index (device->blocks, KsMemoryBlock, i);
      KsMemoryPiece p = { blk->addr, blk->size, i, KS_NO_INDEX };

      if (blk->start > t)
        break;
      if (live_at (blk, t))
        {
          g_array_append_val (live, p);
          out->state.allocated_bytes += blk->size;
          out->state.active_blocks++;
        }
    }
  g_array_sort (segs, compare_pieces);
  g_array_sort (live, compare_pieces);

  out->state.segments = segs->len;
  for (guint s = 0; s < segs->len; s++)
    {
      const KsMemoryPiece *seg = &g_array_index (segs, KsMemoryPiece, s);
      guint64 end = seg->addr + (guint64) seg->size;
      guint64 at = seg->addr;

      out->state.reserved_bytes += seg->size;
      while (b < live->len && g_array_index (live, KsMemoryPiece, b).addr < seg->addr)
        b++;
      for (; b <= live->len; b++)
        {
          const KsMemoryPiece *blk = b < live->len ? &g_array_index (live, KsMemoryPiece, b) : NULL;
          guint64 next = blk != NULL && blk->addr < end ? blk->addr : end;

          /* the hole before the next block, or before the segment's end */
          if (next > at)
            {
              KsMemoryPiece hole = { at, (gint64) (next - at), KS_NO_INDEX, seg->segment };

              g_array_append_val (out->pieces, hole);
              out->state.inactive_blocks++;
              out->state.largest_free_bytes = MAX (out->state.largest_free_bytes, hole.size);
            }
          if (blk == NULL || blk->addr >= end)
            break;
          {
            KsMemoryPiece piece = *blk;

            piece.segment = seg->segment;
            g_array_append_val (out->pieces, piece);
          }
          at = MAX (at, blk->addr + (guint64) blk->size);
        }
    }
  out->state.free_bytes = out->state.reserved_bytes - out->state.allocated_bytes;
  return out;
}

void
ks_memory_layout_free (KsMemoryLayout *layout)
{
  if (layout == NULL)
    return;
  g_array_unref (layout->pieces);
  g_free (layout);
}
