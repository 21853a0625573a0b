/* ks-json-flows.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-json-reader"

/* Flow events (s, t, f): collected per (category, id) while the file is
 * read and chained in time order at its end, since writers do not emit
 * them sorted. Kineto's launch flows are left to the builder, which
 * links CUDA API slices to their GPU work by correlation id. */

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
  Event *ev = &r->ev;
  const char *cat = ks_trace_builder_get_string (r->builder, ev->cat);
  FlowPoint p;

  if (ks_json_is_launch_flow_category (r, cat))
    return;
  if (!ev->has_id)
    {
      r->n_dropped_flows++;
      return;
    }

  ks_json_event_thread (r, &p.track);
  p.ts = ev->ts;
  p.phase = ev->ph;
  p.cat = ev->cat;
  p.id = flow_id (r, ev->id->str, ev->id->len);
  g_array_append_val (r->flows, p);
}

static int
phase_rank (char phase)
{
  return phase == 's' ? 0 : phase == 't' ? 1 : 2;
}

static int
compare_flow_points (gconstpointer a,
                     gconstpointer b)
{
  const FlowPoint *pa = a, *pb = b;

  if (pa->cat != pb->cat)
    return pa->cat < pb->cat ? -1 : 1;
  if (pa->id != pb->id)
    return pa->id < pb->id ? -1 : 1;
  if (pa->ts != pb->ts)
    return pa->ts < pb->ts ? -1 : 1;
  return phase_rank (pa->phase) - phase_rank (pb->phase);
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

      if (i > 0 && (p->cat != p[-1].cat || p->id != p[-1].id))
        {
          /* a new group: an open start in the last one had no end */
          if (prev != NULL)
            r->n_dropped_flows++;
          prev = NULL;
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
      ks_trace_builder_add_flow (r->builder, prev->track, prev->ts, p->track, p->ts, p->cat,
                                 KS_FLOW_OTHER);
      prev = p->phase == 't' ? p : NULL;
    }
  if (prev != NULL)
    r->n_dropped_flows++;
  g_array_set_size (r->flows, 0);
  g_hash_table_remove_all (r->flow_ids);
}
