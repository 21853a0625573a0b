/* ks-memsnap-replay.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ks-memsnap.h"

/* The allocator's state while the trace is replayed: live blocks and
 * segments by address. */
typedef struct
{
  guint64 addr;
  gint64  size;
  guint32 stack;
} Range;

typedef struct
{
  GHashTable *blocks;            /* &Range.addr -> Range */
  GHashTable *segments;
  gint64      allocated;
  gint64      reserved;
} State;

static void
state_init (State *st)
{
  st->blocks = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, g_free);
  st->segments = g_hash_table_new_full (g_int64_hash, g_int64_equal, NULL, g_free);
  st->allocated = st->reserved = 0;
}

static void
state_clear (State *st)
{
  g_clear_pointer (&st->blocks, g_hash_table_unref);
  g_clear_pointer (&st->segments, g_hash_table_unref);
}

static gboolean
add (GHashTable *table,
     guint64     addr,
     gint64      size,
     guint32     stack,
     gint64     *total)
{
  Range *r;

  if (g_hash_table_contains (table, &addr))
    return FALSE;
  r = g_new (Range, 1);
  r->addr = addr;
  r->size = size;
  r->stack = stack;
  g_hash_table_insert (table, &r->addr, r);
  *total += size;
  return TRUE;
}

static gboolean
remove_range (GHashTable *table,
              guint64     addr,
              gint64     *total)
{
  Range *r = g_hash_table_lookup (table, &addr);

  if (r == NULL)
    return FALSE;
  *total -= r->size;
  g_hash_table_remove (table, &addr);
  return TRUE;
}

static void
state_copy (State       *to,
            const State *from)
{
  GHashTableIter it;
  Range *r;

  state_init (to);
  g_hash_table_iter_init (&it, from->blocks);
  while (g_hash_table_iter_next (&it, NULL, (gpointer *) &r))
    add (to->blocks, r->addr, r->size, r->stack, &to->allocated);
  g_hash_table_iter_init (&it, from->segments);
  while (g_hash_table_iter_next (&it, NULL, (gpointer *) &r))
    add (to->segments, r->addr, r->size, r->stack, &to->reserved);
}

/* Applies @e going forward (or undoes it going backward); FALSE when it
 * does not fit the state. */
static gboolean
apply (State                *st,
       const KsMemsnapEntry *e,
       gboolean              forward)
{
  switch (e->action)
    {
    case KS_MEMSNAP_ALLOC:
      return forward ? add (st->blocks, e->addr, e->size, e->stack, &st->allocated)
                     : remove_range (st->blocks, e->addr, &st->allocated);
    case KS_MEMSNAP_FREE_COMPLETED:
      return forward ? remove_range (st->blocks, e->addr, &st->allocated)
                     : add (st->blocks, e->addr, e->size, e->stack, &st->allocated);
    case KS_MEMSNAP_SEGMENT_ALLOC:
    case KS_MEMSNAP_SEGMENT_MAP:
      return forward ? add (st->segments, e->addr, e->size, KS_MEMSNAP_NO_STACK, &st->reserved)
                     : remove_range (st->segments, e->addr, &st->reserved);
    case KS_MEMSNAP_SEGMENT_FREE:
    case KS_MEMSNAP_SEGMENT_UNMAP:
      return forward ? remove_range (st->segments, e->addr, &st->reserved)
                     : add (st->segments, e->addr, e->size, KS_MEMSNAP_NO_STACK, &st->reserved);
    default:
      return TRUE;
    }
}

static gint
compare_ranges (gconstpointer a,
                gconstpointer b)
{
  const Range *x = *(const Range * const *) a, *y = *(const Range * const *) b;

  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static GPtrArray *
sorted (GHashTable *table)
{
  GPtrArray *out = g_ptr_array_sized_new (g_hash_table_size (table));
  GHashTableIter it;
  gpointer r;

  g_hash_table_iter_init (&it, table);
  while (g_hash_table_iter_next (&it, NULL, &r))
    g_ptr_array_add (out, r);
  g_ptr_array_sort (out, compare_ranges);
  return out;
}

/* Segments, holes and the largest hole: the gaps between live blocks
 * inside each segment. */
static void
state_figures (const State    *st,
               KsMemsnapState *out)
{
  g_autoptr(GPtrArray) segs = sorted (st->segments);
  g_autoptr(GPtrArray) blocks = sorted (st->blocks);
  guint b = 0;

  memset (out, 0, sizeof *out);
  out->segments = segs->len;
  out->reserved_bytes = st->reserved;
  out->allocated_bytes = st->allocated;
  out->active_blocks = blocks->len;
  out->free_bytes = st->reserved - st->allocated;
  for (guint s = 0; s < segs->len; s++)
    {
      const Range *seg = g_ptr_array_index (segs, s);
      guint64 end = seg->addr + (guint64) seg->size;
      guint64 at = seg->addr;

      while (b < blocks->len && ((const Range *) g_ptr_array_index (blocks, b))->addr < seg->addr)
        b++;
      for (; b < blocks->len; b++)
        {
          const Range *blk = g_ptr_array_index (blocks, b);

          if (blk->addr >= end)
            break;
          if (blk->addr > at)
            {
              out->inactive_blocks++;
              out->largest_free_bytes = MAX (out->largest_free_bytes, (gint64) (blk->addr - at));
            }
          at = MAX (at, blk->addr + (guint64) blk->size);
        }
      if (end > at)
        {
          out->inactive_blocks++;
          out->largest_free_bytes = MAX (out->largest_free_bytes, (gint64) (end - at));
        }
    }
}

void
ks_memsnap_device_end_state (const KsMemsnapDevice *device,
                             KsMemsnapState        *state)
{
  memset (state, 0, sizeof *state);
  state->segments = device->segments->len;
  for (guint s = 0; s < device->segments->len; s++)
    state->reserved_bytes += g_array_index (device->segments, KsMemsnapSegment, s).total;
  for (guint i = 0; i < device->blocks->len; i++)
    {
      const KsMemsnapBlock *b = &g_array_index (device->blocks, KsMemsnapBlock, i);

      if (b->state == KS_MEMSNAP_BLOCK_INACTIVE)
        {
          state->inactive_blocks++;
          state->free_bytes += b->size;
          state->largest_free_bytes = MAX (state->largest_free_bytes, b->size);
        }
      else
        {
          state->active_blocks++;
          state->allocated_bytes += b->size;
        }
    }
}

static gint
compare_groups (gconstpointer a,
                gconstpointer b)
{
  const KsMemsnapGroup *x = a, *y = b;

  if (x->bytes != y->bytes)
    return x->bytes > y->bytes ? -1 : 1;
  return x->stack < y->stack ? -1 : x->stack > y->stack;
}

static void
group_add (GHashTable *groups,
           guint32     stack,
           gint64      bytes)
{
  KsMemsnapGroup *g = g_hash_table_lookup (groups, GUINT_TO_POINTER (stack));

  if (g == NULL)
    {
      g = g_new0 (KsMemsnapGroup, 1);
      g->stack = stack;
      g_hash_table_insert (groups, GUINT_TO_POINTER (stack), g);
    }
  g->bytes += bytes;
  g->blocks++;
}

static GArray *
groups_to_array (GHashTable *groups)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (KsMemsnapGroup));
  GHashTableIter it;
  KsMemsnapGroup *g;

  g_hash_table_iter_init (&it, groups);
  while (g_hash_table_iter_next (&it, NULL, (gpointer *) &g))
    g_array_append_val (out, *g);
  g_array_sort (out, compare_groups);
  return out;
}

static GArray *
group_state (const State *st)
{
  g_autoptr(GHashTable) groups = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  GHashTableIter it;
  Range *r;

  g_hash_table_iter_init (&it, st->blocks);
  while (g_hash_table_iter_next (&it, NULL, (gpointer *) &r))
    group_add (groups, r->stack, r->size);
  return groups_to_array (groups);
}

void
ks_memsnap_replay_free (KsMemsnapReplay *replay)
{
  if (replay == NULL)
    return;
  g_array_unref (replay->points);
  g_array_unref (replay->peak_groups);
  g_array_unref (replay->end_groups);
  g_array_unref (replay->ooms);
  g_free (replay);
}

KsMemsnapReplay *
ks_memsnap_replay (KsMemsnap *self,
                   guint      device_index)
{
  const KsMemsnapDevice *d = ks_memsnap_get_device (self, device_index);
  const KsMemsnapEntry *entries = (const KsMemsnapEntry *) d->entries->data;
  guint n = d->entries->len;
  g_autoptr(GHashTable) end_groups = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  KsMemsnapReplay *r = g_new0 (KsMemsnapReplay, 1);
  State st, start, at_peak;
  gint64 peak_index = -1;

  r->device = d->device;
  r->points = g_array_sized_new (FALSE, FALSE, sizeof (KsMemsnapPoint), n);
  r->ooms = g_array_new (FALSE, FALSE, sizeof (KsMemsnapOom));

  /* The state at the dump. */
  state_init (&st);
  for (guint s = 0; s < d->segments->len; s++)
    {
      const KsMemsnapSegment *seg = &g_array_index (d->segments, KsMemsnapSegment, s);

      add (st.segments, seg->addr, seg->total, KS_MEMSNAP_NO_STACK, &st.reserved);
      for (guint i = 0; i < seg->n_blocks; i++)
        {
          const KsMemsnapBlock *b = &g_array_index (d->blocks, KsMemsnapBlock, seg->first_block + i);

          if (b->state == KS_MEMSNAP_BLOCK_INACTIVE)
            continue;
          add (st.blocks, b->addr, b->size, b->stack, &st.allocated);
          group_add (end_groups, b->stack, b->size);
        }
    }
  r->end_groups = groups_to_array (end_groups);

  /* Backwards to the state before the first entry. */
  for (guint i = n; i-- > 0;)
    if (!apply (&st, &entries[i], FALSE))
      r->mismatched++;
  state_copy (&start, &st);

  /* Forwards: the curve, the peak and each out-of-memory error. */
  r->peak_allocated = st.allocated;
  for (guint i = 0; i < n; i++)
    {
      KsMemsnapPoint p;

      if (entries[i].action == KS_MEMSNAP_OOM)
        {
          KsMemsnapOom oom = { 0 };

          oom.device = d->device;
          oom.request_bytes = entries[i].size;
          oom.device_free_bytes = entries[i].device_free;
          oom.time_us = entries[i].time_us;
          oom.stack = entries[i].stack;
          state_figures (&st, &oom.state);
          oom.fragmentation = oom.state.free_bytes >= oom.request_bytes &&
                              oom.state.largest_free_bytes < oom.request_bytes;
          g_array_append_val (r->ooms, oom);
        }
      apply (&st, &entries[i], TRUE);
      p.time_us = entries[i].time_us;
      p.allocated_bytes = st.allocated;
      p.reserved_bytes = st.reserved;
      g_array_append_val (r->points, p);
      if (st.allocated > r->peak_allocated)
        {
          r->peak_allocated = st.allocated;
          r->peak_time_us = entries[i].time_us;
          peak_index = i;
        }
    }
  state_clear (&st);

  /* Again to the peak, for what was live there. */
  state_copy (&at_peak, &start);
  for (gint64 i = 0; i <= peak_index; i++)
    apply (&at_peak, &entries[i], TRUE);
  r->peak_groups = group_state (&at_peak);
  state_clear (&at_peak);
  state_clear (&start);
  return r;
}
