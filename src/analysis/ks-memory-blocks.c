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
#include "ks-memory-series.h"
#include "ks-memsnap-reader.h"

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

/* The bytes a block covers on the address axis: at least one. */
static guint64
band_size (guint64 addr,
           gint64  size)
{
  return MIN ((guint64) MAX (1, size), G_MAXUINT64 - addr);
}

/* An address of the history: the block open there (its entry and its
 * place among the blocks), and the widest block ever at it, for the
 * bands. Found by hashing: the history is walked once, in trace order,
 * instead of sorting its millions of events by address. */
typedef struct
{
  guint64  addr;
  guint64  band;
  guint32  open;           /* entry of the open block, KS_NO_INDEX when none */
  guint32  slot;           /* its index in the blocks */
  gboolean used;
} AddrSlot;

typedef struct
{
  AddrSlot *slots;
  guint     mask;
  guint     n;
} AddrMap;

static void
addr_map_init (AddrMap *map,
               guint    expected)
{
  guint size = 64;

  while (size < 2 * (guint64) expected && size < (1u << 31))
    size *= 2;
  map->slots = g_new0 (AddrSlot, size);
  map->mask = size - 1;
  map->n = 0;
}

static guint
addr_hash (guint64 addr)
{
  /* the allocator's addresses are multiples of 512 */
  return (guint) (((addr >> 9) * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 32);
}

static AddrSlot *
addr_map_find (const AddrMap *map,
               guint64        addr)
{
  for (guint i = addr_hash (addr) & map->mask;; i = (i + 1) & map->mask)
    {
      AddrSlot *s = &map->slots[i];

      if (!s->used || s->addr == addr)
        return s->used ? s : NULL;
    }
}

static AddrSlot *
addr_map_insert (AddrMap *map,
                 guint64  addr)
{
  AddrSlot *s;
  guint i;

  if (2 * (map->n + 1) > map->mask + 1)
    {
      AddrMap bigger;

      addr_map_init (&bigger, map->mask + 1);
      for (guint j = 0; j <= map->mask; j++)
        if (map->slots[j].used)
          {
            for (i = addr_hash (map->slots[j].addr) & bigger.mask; bigger.slots[i].used; i = (i + 1) & bigger.mask)
              ;
            bigger.slots[i] = map->slots[j];
          }
      bigger.n = map->n;
      g_free (map->slots);
      *map = bigger;
    }
  for (i = addr_hash (addr) & map->mask;; i = (i + 1) & map->mask)
    {
      s = &map->slots[i];
      if (!s->used)
        {
          *s = (AddrSlot) { addr, 0, KS_NO_INDEX, 0, TRUE };
          map->n++;
          return s;
        }
      if (s->addr == addr)
        return s;
    }
}

/* Blocks while they are built, each with the rank that orders blocks of
 * the same start and address: the entry that ended it (a close, or the
 * allocation that found it still live), past the last entry for one
 * never closed, and past those for what only the dump holds. This is the
 * order in which the pairing by address, then by entry, used to find
 * them, so the result is the same. */
typedef struct
{
  GArray  *blocks;         /* KsMemoryBlock */
  guint64 *rank;
} Building;

static void
building_init (Building *b,
               guint     size)
{
  b->blocks = g_array_sized_new (FALSE, FALSE, sizeof (KsMemoryBlock), size);
  g_array_set_size (b->blocks, size);
  b->rank = g_new (guint64, MAX (1, size));
}

static void
building_clear (Building *b)
{
  g_clear_pointer (&b->blocks, g_array_unref);
  g_clear_pointer (&b->rank, g_free);
}

static KsMemoryBlock *
building_append (Building *b,
                 guint64   rank)
{
  guint i = b->blocks->len;

  g_array_set_size (b->blocks, i + 1);
  if ((i & (i + 1)) == 0 || i < 16)
    b->rank = g_renew (guint64, b->rank, MAX (16, 2 * (i + 1)));
  b->rank[i] = rank;
  return &g_array_index (b->blocks, KsMemoryBlock, i);
}

static void
set_block (KsMemoryBlock         *b,
           gint64                 start,
           gint64                 end,
           const KsMemsnapEntry  *e,
           gboolean               with_stack,
           gboolean               freed,
           AddrSlot              *at)
{
  b->start = start;
  b->end = MAX (start, end);
  b->addr = e->addr;
  b->size = clamp_size (e->addr, e->size);
  b->stack = with_stack ? e->stack : KS_MEMSNAP_NO_STACK;
  b->stream = e->stream;
  b->freed = freed;
  at->band = MAX (at->band, band_size (b->addr, b->size));
}

typedef struct
{
  KsMemoryBlock block;
  guint64       rank;
} Ranked;

static inline gint
compare_ranked_blocks (const KsMemoryBlock *x,
                       guint64              xr,
                       const KsMemoryBlock *y,
                       guint64              yr)
{
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->addr != y->addr)
    return x->addr < y->addr ? -1 : 1;
  return xr < yr ? -1 : xr > yr;
}

static gint
compare_ranked (gconstpointer a,
                gconstpointer b)
{
  const Ranked *x = a, *y = b;

  return compare_ranked_blocks (&x->block, x->rank, &y->block, y->rank);
}

/* Sorts blocks [from, to) by start, address and rank. */
static void
sort_range (Building *b,
            guint     from,
            guint     to)
{
  KsMemoryBlock *blocks = (KsMemoryBlock *) b->blocks->data;
  g_autofree Ranked *tmp = NULL;

  if (to - from < 2)
    return;
  tmp = g_new (Ranked, to - from);
  for (guint i = from; i < to; i++)
    tmp[i - from] = (Ranked) { blocks[i], b->rank[i] };
  qsort (tmp, to - from, sizeof (Ranked), compare_ranked);
  for (guint i = from; i < to; i++)
    {
      blocks[i] = tmp[i - from].block;
      b->rank[i] = tmp[i - from].rank;
    }
}

/* Blocks made in trace order are by start already but for the events of
 * one microsecond, or a clock that went back: only what is out of order
 * is sorted, a run of one start at a time, or all of it. */
static void
sort_building (Building *b)
{
  const KsMemoryBlock *blocks = (const KsMemoryBlock *) b->blocks->data;
  guint n = b->blocks->len;
  guint run = 0;
  gboolean run_sorted = TRUE;

  for (guint i = 1; i < n; i++)
    {
      if (blocks[i].start < blocks[i - 1].start)
        {
          sort_range (b, 0, n);
          return;
        }
      if (blocks[i].start != blocks[i - 1].start)
        {
          if (!run_sorted)
            sort_range (b, run, i);
          run = i;
          run_sorted = TRUE;
        }
      else if (run_sorted &&
               compare_ranked_blocks (&blocks[i - 1], b->rank[i - 1], &blocks[i], b->rank[i]) > 0)
        run_sorted = FALSE;
    }
  if (!run_sorted)
    sort_range (b, run, n);
}

/* Pairs each @open event with the next @close at its address: a block
 * from one to the other; a close with none open began before the history
 * (at the start, its stack unknown: an event's stack is its own, not the
 * allocation's), an open never closed lasts to the end. Returns the
 * blocks, by start, and in @map every address the events named. */
static void
pair_events (const KsMemsnapDevice *d,
             const Clock           *clock,
             guint8                 open1,
             guint8                 open2,
             guint8                 close1,
             guint8                 close2,
             Building              *out,
             AddrMap               *map)
{
  const KsMemsnapEntry *entries = clock->entries;
  guint n = d->entries->len, n_open = 0, slot = 0;
  Building before = { 0 };

  for (guint e = 0; e < n; e++)
    n_open += entries[e].action == open1 || entries[e].action == open2;
  building_init (out, n_open);
  building_init (&before, 0);
  addr_map_init (map, MIN (n_open, 1u << 16));

  for (guint e = 0; e < n; e++)
    {
      guint8 a = entries[e].action;
      AddrSlot *at;

      if (a == open1 || a == open2)
        {
          at = addr_map_insert (map, entries[e].addr);
          /* An allocation of a live block: the first one ended unseen. */
          if (at->open != KS_NO_INDEX)
            {
              set_block (&g_array_index (out->blocks, KsMemoryBlock, at->slot), entry_time (clock, at->open),
                         entry_time (clock, e), &entries[at->open], TRUE, TRUE, at);
              out->rank[at->slot] = e;
            }
          at->open = e;
          at->slot = slot++;
        }
      else if (a == close1 || a == close2)
        {
          at = addr_map_insert (map, entries[e].addr);
          if (at->open != KS_NO_INDEX)
            {
              set_block (&g_array_index (out->blocks, KsMemoryBlock, at->slot), entry_time (clock, at->open),
                         entry_time (clock, e), &entries[at->open], TRUE, TRUE, at);
              out->rank[at->slot] = e;
              at->open = KS_NO_INDEX;
            }
          else
            set_block (building_append (&before, e), MIN (0, entry_time (clock, e)), entry_time (clock, e),
                       &entries[e], FALSE, TRUE, at);
        }
    }
  for (guint i = 0; i <= map->mask; i++)
    {
      AddrSlot *at = &map->slots[i];

      if (at->used && at->open != KS_NO_INDEX)
        {
          set_block (&g_array_index (out->blocks, KsMemoryBlock, at->slot), entry_time (clock, at->open),
                     MAX (clock->end, entry_time (clock, at->open)), &entries[at->open], TRUE, FALSE, at);
          out->rank[at->slot] = (guint64) n + at->open;
          at->open = KS_NO_INDEX;
        }
    }
  sort_building (out);
  sort_building (&before);
  if (before.blocks->len > 0)
    {
      /* merged: those that began before the history start at 0 or
       * earlier, among the first */
      guint na = out->blocks->len, nb = before.blocks->len, i = 0, j = 0, k = 0;
      Building merged;
      const KsMemoryBlock *x = (const KsMemoryBlock *) out->blocks->data;
      const KsMemoryBlock *y = (const KsMemoryBlock *) before.blocks->data;

      building_init (&merged, na + nb);
      while (i < na || j < nb)
        {
          gboolean left = j == nb || (i < na && compare_ranked_blocks (&x[i], out->rank[i], &y[j], before.rank[j]) <= 0);

          g_array_index (merged.blocks, KsMemoryBlock, k) = left ? x[i] : y[j];
          merged.rank[k++] = left ? out->rank[i++] : before.rank[j++];
        }
      building_clear (out);
      *out = merged;
    }
  building_clear (&before);
}

static gint
compare_bands (gconstpointer a,
               gconstpointer b)
{
  const KsMemoryBand *x = a, *y = b;

  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The address ranges the segments (and, where the history lost a
 * segment's event, the blocks) held at any time, merged. A band depends
 * only on the union of the blocks' ranges: the widest block at each
 * address of the history (@map) stands for all of them. */
static void
build_bands (KsMemoryBlockDevice *dev,
             const AddrMap       *map,
             const GArray        *dump_blocks)
{
  GArray *all = g_array_sized_new (FALSE, FALSE, sizeof (KsMemoryBand), map->n + dev->segments->len + dump_blocks->len);
  const GArray *sources[] = { dev->segments, dump_blocks };

  for (guint i = 0; i <= map->mask; i++)
    if (map->slots[i].used && map->slots[i].band > 0)
      {
        KsMemoryBand band = { map->slots[i].addr, (gint64) map->slots[i].band, 0 };

        g_array_append_val (all, band);
      }
  for (guint s = 0; s < G_N_ELEMENTS (sources); s++)
    for (guint i = 0; i < sources[s]->len; i++)
      {
        const KsMemoryBlock *b = &g_array_index (sources[s], KsMemoryBlock, i);
        KsMemoryBand band = { b->addr, (gint64) band_size (b->addr, b->size), 0 };

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

static gint64
block_length (const KsMemoryBlock *b)
{
  return b->end - b->start;      /* end >= start: set_block() */
}

/* Long blocks: those past the length that all but about one in 256 stay
 * under, in powers of two, and a thousandth of the span at least. Then
 * max_end, the running maximum of the ends of the other blocks. */
static void
find_long_blocks (KsMemoryBlockDevice *dev)
{
  guint counts[64] = { 0 };
  guint n = dev->blocks->len, seen = 0, k = 0;
  gint64 first = G_MAXINT64, last = G_MININT64;

  for (guint i = 0; i < n; i++)
    {
      const KsMemoryBlock *b = &g_array_index (dev->blocks, KsMemoryBlock, i);

      counts[g_bit_storage ((guint64) block_length (b))]++;
      first = MIN (first, b->start);
      last = MAX (last, b->end);
    }
  /* the bucket k holds lengths under 2^k */
  while (k < 63 && (guint64) (seen + counts[k]) * 256 < (guint64) n * 255)
    seen += counts[k++];
  dev->long_ns = k >= 63 ? G_MAXINT64 : (gint64) 1 << k;
  if (n > 0)
    dev->long_ns = MAX (dev->long_ns, (last - first) / 1000);
  dev->long_blocks = g_array_new (FALSE, FALSE, sizeof (guint32));
  dev->max_end = g_new (gint64, MAX (1, n));
  for (guint i = 0; i < n; i++)
    {
      const KsMemoryBlock *b = &g_array_index (dev->blocks, KsMemoryBlock, i);
      gint64 end = i > 0 ? dev->max_end[i - 1] : G_MININT64;

      if (block_length (b) > dev->long_ns)
        {
          guint32 index = i;

          g_array_append_val (dev->long_blocks, index);
        }
      else
        end = MAX (end, b->end);
      dev->max_end[i] = end;
    }
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
  Building blocks = { 0 }, segments = { 0 }, dumped = { 0 };
  AddrMap block_map, segment_map;
  guint64 rank = 2 * (guint64) d->entries->len;

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

  pair_events (d, &clock, KS_MEMSNAP_ALLOC, KS_MEMSNAP_ALLOC,
               KS_MEMSNAP_FREE_COMPLETED, KS_MEMSNAP_FREE_COMPLETED, &blocks, &block_map);
  pair_events (d, &clock, KS_MEMSNAP_SEGMENT_ALLOC, KS_MEMSNAP_SEGMENT_MAP,
               KS_MEMSNAP_SEGMENT_FREE, KS_MEMSNAP_SEGMENT_UNMAP, &segments, &segment_map);

  /* What the dump holds and the history never touched was there from
   * before it to the end. */
  building_init (&dumped, 0);
  for (guint s = 0; s < d->segments->len; s++)
    {
      const KsMemsnapSegment *seg = &g_array_index (d->segments, KsMemsnapSegment, s);

      if (addr_map_find (&segment_map, seg->addr) == NULL)
        {
          KsMemoryBlock b = { 0, dev->end, seg->addr, clamp_size (seg->addr, seg->total), KS_MEMSNAP_NO_STACK,
                                 (gint32) seg->stream, FALSE };

          g_array_append_val (segments.blocks, b);
          segments.rank = g_renew (guint64, segments.rank, segments.blocks->len);
          segments.rank[segments.blocks->len - 1] = rank++;
        }
      for (guint i = 0; i < seg->n_blocks; i++)
        {
          const KsMemsnapBlock *blk = &g_array_index (d->blocks, KsMemsnapBlock, seg->first_block + i);

          if (blk->state != KS_MEMSNAP_BLOCK_INACTIVE && addr_map_find (&block_map, blk->addr) == NULL)
            *building_append (&dumped, rank++) = (KsMemoryBlock) { 0, dev->end, blk->addr,
                                                                   clamp_size (blk->addr, blk->size), blk->stack,
                                                                   (gint32) seg->stream, FALSE };
        }
    }
  sort_range (&segments, 0, segments.blocks->len);
  sort_building (&dumped);
  if (dumped.blocks->len > 0)
    {
      /* they start at 0: among the blocks that began before the history */
      guint na = blocks.blocks->len, nb = dumped.blocks->len, i = 0, j = 0, k = 0;
      const KsMemoryBlock *x = (const KsMemoryBlock *) blocks.blocks->data;
      const KsMemoryBlock *y = (const KsMemoryBlock *) dumped.blocks->data;

      dev->blocks = g_array_sized_new (FALSE, FALSE, sizeof (KsMemoryBlock), na + nb);
      g_array_set_size (dev->blocks, na + nb);
      while (i < na || j < nb)
        {
          gboolean left = j == nb || (i < na && compare_ranked_blocks (&x[i], blocks.rank[i], &y[j], dumped.rank[j]) <= 0);

          g_array_index (dev->blocks, KsMemoryBlock, k++) = left ? x[i++] : y[j++];
        }
    }
  else
    dev->blocks = g_array_ref (blocks.blocks);
  dev->segments = g_array_ref (segments.blocks);

  find_long_blocks (dev);
  build_bands (dev, &block_map, dumped.blocks);
  _ks_memory_blocks_build_lod (dev);
  building_clear (&blocks);
  building_clear (&segments);
  building_clear (&dumped);
  g_free (block_map.slots);
  g_free (segment_map.slots);
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
      g_array_unref (self->devices[i].long_blocks);
      g_free (self->devices[i].max_end);
      _ks_memory_blocks_free_lod (&self->devices[i]);
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

void
ks_memory_blocks_prepare (KsTrace                 *trace,
                          const KsAnalysisOptions *options,
                          GCancellable            *cancellable)
{
  g_return_if_fail (KS_IS_TRACE (trace));

  if (ks_memsnap_reader_get_snapshot (trace) == NULL)
    return;
  /* Two cores: the analysis on one while the blocks are built on the
   * other; its result is cached with the trace. The analysis builds the
   * memory series early on: asked for after the blocks, they are ready
   * or nearly. */
  ks_analysis_compute_async (trace, options, NULL, cancellable, NULL, NULL);
  ks_memory_blocks_get (trace);
  ks_memory_series_get (trace);
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

void
ks_memory_block_iter_init (KsMemoryBlockIter         *iter,
                           const KsMemoryBlockDevice *device,
                           gint64                     t0,
                           gint64                     t1)
{
  guint lo = 0, hi = device->blocks->len;

  iter->device = device;
  iter->t0 = t0;
  iter->t1 = t1;
  iter->next_long = 0;
  /* max_end never decreases: before the first index whose running end
   * reaches @t0, every block that is not long ended before it */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (device->max_end[mid] < t0)
        lo = mid + 1;
      else
        hi = mid;
    }
  iter->next = lo;
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
  KsMemoryBlockIter iter;
  guint b = 0, index;

  out->time = t;
  out->pieces = g_array_new (FALSE, FALSE, sizeof (KsMemoryPiece));
  for (guint i = 0; i < device->segments->len; i++)
    {
      const KsMemoryBlock *s = &g_array_index (device->segments, KsMemoryBlock, i);
      KsMemoryPiece p = { s->addr, s->size, KS_NO_INDEX, i };

      if (live_at (s, t))
        g_array_append_val (segs, p);
    }
  /* what is never freed ends with the trace, and is live after it too */
  ks_memory_block_iter_init (&iter, device, MIN (t, device->end), t);
  while (ks_memory_block_iter_next (&iter, &index))
    {
      const KsMemoryBlock *blk = &g_array_index (device->blocks, KsMemoryBlock, index);
      KsMemoryPiece p = { blk->addr, blk->size, index, KS_NO_INDEX };

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
