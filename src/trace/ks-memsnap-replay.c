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
 * segments by address, in open-addressing maps (a snapshot's history runs
 * to millions of entries; no allocation per block). */
typedef struct
{
  guint64 addr;
  gint64  size;
  guint32 stack;
} Range;

enum { SLOT_EMPTY, SLOT_FULL, SLOT_DELETED };

typedef struct
{
  Range  *slots;
  guint8 *state;
  gsize   cap;                   /* a power of two */
  gsize   n;
  gsize   used;                  /* full and deleted */
} Map;

typedef struct
{
  Map     blocks;
  Map     segments;
  gint64  allocated;
  gint64  reserved;
} State;

static gsize
slot_of (const Map *m,
         guint64    addr)
{
  return (gsize) (((addr >> 9) * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15)) >> 17) & (m->cap - 1);
}

static void
map_init (Map   *m,
          gsize  cap)
{
  m->cap = 64;
  while (m->cap < cap * 2)
    m->cap *= 2;
  m->slots = g_new (Range, m->cap);
  m->state = g_new0 (guint8, m->cap);
  m->n = m->used = 0;
}

static void
map_clear (Map *m)
{
  g_clear_pointer (&m->slots, g_free);
  g_clear_pointer (&m->state, g_free);
}

static Range *
map_find (const Map *m,
          guint64    addr)
{
  for (gsize i = slot_of (m, addr);; i = (i + 1) & (m->cap - 1))
    {
      if (m->state[i] == SLOT_EMPTY)
        return NULL;
      if (m->state[i] == SLOT_FULL && m->slots[i].addr == addr)
        return &m->slots[i];
    }
}

static void map_put (Map *m, const Range *r);

static void
map_grow (Map *m)
{
  Map old = *m;

  map_init (m, MAX (old.n, 32) * 2);
  for (gsize i = 0; i < old.cap; i++)
    if (old.state[i] == SLOT_FULL)
      map_put (m, &old.slots[i]);
  map_clear (&old);
}

/* @r's address is not in @m. */
static void
map_put (Map         *m,
         const Range *r)
{
  gsize i;

  if ((m->used + 1) * 4 > m->cap * 3)
    map_grow (m);
  for (i = slot_of (m, r->addr); m->state[i] == SLOT_FULL; i = (i + 1) & (m->cap - 1))
    ;
  if (m->state[i] == SLOT_EMPTY)
    m->used++;
  m->slots[i] = *r;
  m->state[i] = SLOT_FULL;
  m->n++;
}

static void
state_init (State *st)
{
  map_init (&st->blocks, 1024);
  map_init (&st->segments, 64);
  st->allocated = st->reserved = 0;
}

static void
state_clear (State *st)
{
  map_clear (&st->blocks);
  map_clear (&st->segments);
}

static gboolean
add (Map     *m,
     guint64  addr,
     gint64   size,
     guint32  stack,
     gint64  *total)
{
  Range r = { addr, size, stack };

  if (map_find (m, addr) != NULL)
    return FALSE;
  map_put (m, &r);
  *total += size;
  return TRUE;
}

static gboolean
remove_range (Map     *m,
              guint64  addr,
              gint64  *total)
{
  Range *r = map_find (m, addr);

  if (r == NULL)
    return FALSE;
  *total -= r->size;
  m->state[r - m->slots] = SLOT_DELETED;
  m->n--;
  return TRUE;
}

static void
map_copy (Map       *to,
          const Map *from)
{
  to->cap = from->cap;
  to->n = from->n;
  to->used = from->used;
  to->slots = g_memdup2 (from->slots, from->cap * sizeof (Range));
  to->state = g_memdup2 (from->state, from->cap);
}

static void
state_copy (State       *to,
            const State *from)
{
  map_copy (&to->blocks, &from->blocks);
  map_copy (&to->segments, &from->segments);
  to->allocated = from->allocated;
  to->reserved = from->reserved;
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
      return forward ? add (&st->blocks, e->addr, e->size, e->stack, &st->allocated)
                     : remove_range (&st->blocks, e->addr, &st->allocated);
    case KS_MEMSNAP_FREE_COMPLETED:
      return forward ? remove_range (&st->blocks, e->addr, &st->allocated)
                     : add (&st->blocks, e->addr, e->size, e->stack, &st->allocated);
    case KS_MEMSNAP_SEGMENT_ALLOC:
    case KS_MEMSNAP_SEGMENT_MAP:
      return forward ? add (&st->segments, e->addr, e->size, KS_MEMSNAP_NO_STACK, &st->reserved)
                     : remove_range (&st->segments, e->addr, &st->reserved);
    case KS_MEMSNAP_SEGMENT_FREE:
    case KS_MEMSNAP_SEGMENT_UNMAP:
      return forward ? remove_range (&st->segments, e->addr, &st->reserved)
                     : add (&st->segments, e->addr, e->size, KS_MEMSNAP_NO_STACK, &st->reserved);
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
sorted (const Map *m)
{
  GPtrArray *out = g_ptr_array_sized_new (m->n);

  for (gsize i = 0; i < m->cap; i++)
    if (m->state[i] == SLOT_FULL)
      g_ptr_array_add (out, &m->slots[i]);
  g_ptr_array_sort (out, compare_ranges);
  return out;
}

/* Segments, holes and the largest hole: the gaps between live blocks
 * inside each segment. */
static void
state_figures (const State    *st,
               KsMemsnapState *out)
{
  g_autoptr(GPtrArray) segs = sorted (&st->segments);
  g_autoptr(GPtrArray) blocks = sorted (&st->blocks);
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

/* Largest first; equal ones by their stack's text, so that the order does
 * not depend on the order the reader met the stacks in. */
static gint
compare_groups (gconstpointer a,
                gconstpointer b,
                gpointer      user_data)
{
  const KsMemsnapGroup *x = a, *y = b;
  const KsMemsnapStack *sx = ks_memsnap_get_stack (user_data, x->stack);
  const KsMemsnapStack *sy = ks_memsnap_get_stack (user_data, y->stack);

  if (x->bytes != y->bytes)
    return x->bytes > y->bytes ? -1 : 1;
  if (sx == NULL || sy == NULL)
    return (sx != NULL) - (sy != NULL);
  return strcmp (sx->text, sy->text);
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
groups_to_array (KsMemsnap  *snap,
                 GHashTable *groups)
{
  GArray *out = g_array_new (FALSE, FALSE, sizeof (KsMemsnapGroup));
  GHashTableIter it;
  KsMemsnapGroup *g;

  g_hash_table_iter_init (&it, groups);
  while (g_hash_table_iter_next (&it, NULL, (gpointer *) &g))
    g_array_append_val (out, *g);
  g_array_sort_with_data (out, compare_groups, snap);
  return out;
}

static GArray *
group_state (KsMemsnap   *snap,
             const State *st)
{
  g_autoptr(GHashTable) groups = g_hash_table_new_full (NULL, NULL, NULL, g_free);

  for (gsize i = 0; i < st->blocks.cap; i++)
    if (st->blocks.state[i] == SLOT_FULL)
      group_add (groups, st->blocks.slots[i].stack, st->blocks.slots[i].size);
  return groups_to_array (snap, groups);
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

      add (&st.segments, seg->addr, seg->total, KS_MEMSNAP_NO_STACK, &st.reserved);
      for (guint i = 0; i < seg->n_blocks; i++)
        {
          const KsMemsnapBlock *b = &g_array_index (d->blocks, KsMemsnapBlock, seg->first_block + i);

          if (b->state == KS_MEMSNAP_BLOCK_INACTIVE)
            continue;
          add (&st.blocks, b->addr, b->size, b->stack, &st.allocated);
          group_add (end_groups, b->stack, b->size);
        }
    }
  r->end_groups = groups_to_array (self, end_groups);

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
  r->peak_groups = group_state (self, &at_peak);
  state_clear (&at_peak);
  state_clear (&start);
  return r;
}
