/* ks-json-flows.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-json-reader"

/* Flow events (s, t, f): collected per (category, id) while the file is
 * read and chained in time order at its end, since writers do not emit
 * them sorted. Flows v2 ("bind_id" with "flow_in" / "flow_out" on the
 * slices themselves) are collected beside them, per bind_id. Kineto's
 * launch flows are left to the builder, which links CUDA API slices to
 * their GPU work by correlation id. */

#include "config.h"

#include <string.h>

#include "ks-json-reader-private.h"

static guint64
flow_id (Reader     *r,
         const char *text,
         gsize       len)
{
  gpointer value;

  /* canonical decimals only: "07" and "7" are different ids */
  if (len > 0 && len <= 18 && (text[0] != '0' || len == 1))
    {
      guint64 v = 0;
      gsize i;

      for (i = 0; i < len && g_ascii_isdigit (text[i]); i++)
        v = v * 10 + (guint64) (text[i] - '0');
      if (i == len)
        return v;
    }
  value = g_hash_table_lookup (r->flow_ids, text);
  if (value == NULL)
    {
      value = GUINT_TO_POINTER (g_hash_table_size (r->flow_ids) + 1);
      g_hash_table_insert (r->flow_ids, g_strndup (text, len), value);
    }
  return FLOW_ID_TEXT | (GPOINTER_TO_UINT (value) - 1);
}

/* Flow events are collected per (category, id) and chained in time
 * order at the end of the file: writers do not emit them sorted (Kineto
 * writes a backward thread's "f" before the forward "s"). */
void
ks_json_handle_flow (Reader *r)
{
  Event *ev = r->ev;
  FlowPoint p;

  if (ev->flow_cat == FLOW_CAT_LAUNCH || (ev->flow_cat == FLOW_CAT_ASYNC && r->kineto))
    return;
  if (!ev->has_id)
    {
      r->n_dropped_flows++;
      return;
    }

  ks_json_event_thread (r, &p.track);
  p.ts = ev->ts;
  p.end = G_MININT64;
  p.phase = ev->ph;
  p.cat = p.group = ev->cat;
  p.id = flow_id (r, ev->id->str, ev->id->len);
  g_array_append_val (r->flows, p);
}

/* A slice with a bind_id, on @track from @ts to @end (G_MININT64 when
 * not known yet): a point of a v2 flow when it says its direction. */
void
ks_json_handle_bound_flow (Reader  *r,
                           guint32  track,
                           gint64   ts,
                           gint64   end)
{
  Event *ev = r->ev;
  FlowPoint p;

  if (!ev->flow_in && !ev->flow_out)
    return;
  p.track = track;
  p.ts = ts;
  p.end = end;
  p.phase = ev->flow_in && ev->flow_out ? 'T' : ev->flow_out ? 'O' : 'I';
  p.cat = ev->cat;
  p.group = FLOW_V2_GROUP;
  p.id = flow_id (r, ev->bind_id->str, ev->bind_id->len);
  g_array_append_val (r->flows, p);
}

/* v1 points at one time go start, step, end; v2 ones keep the file's order */
static int
phase_rank (char phase)
{
  return phase == 's' ? 0 : phase == 't' ? 1 : phase == 'f' ? 2 : 0;
}

static int
compare_flow_points (gconstpointer a,
                     gconstpointer b)
{
  const FlowPoint *pa = a, *pb = b;

  if (pa->group != pb->group)
    return pa->group < pb->group ? -1 : 1;
  if (pa->id != pb->id)
    return pa->id < pb->id ? -1 : 1;
  if (pa->ts != pb->ts)
    return pa->ts < pb->ts ? -1 : 1;
  return phase_rank (pa->phase) - phase_rank (pb->phase);
}

static void
add_flow (Reader          *r,
          const FlowPoint *from,
          const FlowPoint *to)
{
  ks_trace_builder_add_slice_flow (r->builder, from->track, from->ts, from->end, to->track, to->ts, to->end,
                                   to->cat, KS_FLOW_OTHER);
}

/* A v2 flow arrives from the last slice that sent its id (several may
 * arrive from one: fan-out) and a step sends it on. Returns the sender
 * after @p. */
static const FlowPoint *
link_v2 (Reader          *r,
         const FlowPoint *prev,
         const FlowPoint *p)
{
  if (p->phase != 'O')
    {
      if (prev != NULL)
        add_flow (r, prev, p);
      else if (p->phase == 'I')
        r->n_dropped_flows++;
    }
  return p->phase == 'I' ? prev : p;
}

/* Chains each (category, id) group in time order; g_array_sort() is
 * stable, so points at the same time keep the file's order. */
void
ks_json_link_flows (Reader *r)
{
  const FlowPoint *prev = NULL;

  g_array_sort (r->flows, compare_flow_points);
  for (guint i = 0; i < r->flows->len; i++)
    {
      const FlowPoint *p = &g_array_index (r->flows, FlowPoint, i);

      if (i > 0 && (p->group != p[-1].group || p->id != p[-1].id))
        {
          /* a new group: an open start in the last one had no end */
          if (prev != NULL && prev->group != FLOW_V2_GROUP)
            r->n_dropped_flows++;
          prev = NULL;
        }
      if (p->group == FLOW_V2_GROUP)
        {
          prev = link_v2 (r, prev, p);
          continue;
        }
      if (p->phase == 's')
        {
          if (prev != NULL)
            r->n_dropped_flows++;
          prev = p;
          continue;
        }
      if (prev == NULL)
        {
          r->n_dropped_flows++;
          continue;
        }
      add_flow (r, prev, p);
      prev = p->phase == 't' ? p : NULL;
    }
  if (prev != NULL && prev->group != FLOW_V2_GROUP)
    r->n_dropped_flows++;
  g_array_set_size (r->flows, 0);
  g_hash_table_remove_all (r->flow_ids);
}
