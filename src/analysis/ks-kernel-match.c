/* ks-kernel-match.c: kernels of two runs paired across names
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-kernel-match"

#include "config.h"

#include <string.h>

#include "ks-kernel-match.h"

typedef struct
{
  gint64   start;
  guint32  name;               /* kernel, string id */
  guint32  op;                 /* innermost operator around its launch, string id, 0 none */
} Launch;

typedef struct
{
  guint    base;
  guint    new_item;
  guint    votes;
} Vote;

static int
cmp_launches (gconstpointer a,
              gconstpointer b)
{
  const Launch *x = a, *y = b;

  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return (x->name > y->name) - (x->name < y->name);
}

static int
cmp_uint (gconstpointer a,
          gconstpointer b)
{
  guint x = *(const guint *)a, y = *(const guint *)b;

  return (x > y) - (x < y);
}

static int
cmp_votes (gconstpointer a,
           gconstpointer b)
{
  const Vote *x = a, *y = b;

  if (x->votes != y->votes)
    return x->votes < y->votes ? 1 : -1;
  if (x->base != y->base)
    return x->base < y->base ? -1 : 1;
  return (x->new_item > y->new_item) - (x->new_item < y->new_item);
}

/* The innermost operator around slice @s of thread track @track. */
static guint32
enclosing_operator (const KsTrack *track,
                    guint32        s)
{
  for (int d = (int)track->depth[s] - 1; d >= 0; d--)
    {
      const guint32 *at = track->by_depth[d];
      guint32 lo = 0, hi = track->n_by_depth[d], p;

      while (lo < hi)
        {
          guint32 mid = lo + (hi - lo) / 2;

          if (track->start[at[mid]] <= track->start[s])
            lo = mid + 1;
          else
            hi = mid;
        }
      if (lo == 0)
        continue;
      p = at[lo - 1];
      if (track->end[p] >= track->end[s] && track->slice_kind[p] == KS_SLICE_CPU_OP)
        return track->name_id[p];
    }
  return 0;
}

/* The middle steady-state step of @analysis, the whole trace without. */
static void
step_window (KsAnalysis *analysis,
             gint64     *start,
             gint64     *end)
{
  gboolean warmup_too = ks_analysis_get_options (analysis)->include_warmup;
  guint n, n_steady = 0, k = 0;
  const KsStep *steps = ks_analysis_get_steps (analysis, &n);

  *start = G_MININT64;
  *end = G_MAXINT64;
  for (guint i = 0; i < n; i++)
    n_steady += !steps[i].warmup || warmup_too;
  for (guint i = 0; i < n; i++)
    if (!steps[i].warmup || warmup_too)
      {
        if (k++ == n_steady / 2)
          {
            *start = steps[i].start;
            *end = steps[i].end;
            return;
          }
      }
}

/* The kernels that start in the window on the analysed GPUs, in order,
 * each with the operator that launched it. */
static GArray *
window_launches (KsTrace    *trace,
                 KsAnalysis *analysis)
{
  GArray *launches = g_array_new (FALSE, FALSE, sizeof (Launch));
  g_autoptr(GHashTable) ops = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autofree gint64 *keys = NULL;
  gint32 device = ks_analysis_get_options (analysis)->device;
  gint64 start, end;
  guint n_keys = 0;

  step_window (analysis, &start, &end);
  keys = g_new (gint64, MAX (trace->n_flows, 1));
  for (guint32 f = 0; f < trace->n_flows; f++)
    {
      const KsFlow *flow = &trace->flows[f];
      const KsTrack *to = &trace->tracks[flow->to_track];
      const KsTrack *from = &trace->tracks[flow->from_track];
      guint32 op;

      if (flow->kind != KS_FLOW_LAUNCH || to->slice_kind[flow->to_slice] != KS_SLICE_KERNEL
          || to->start[flow->to_slice] < start || to->start[flow->to_slice] >= end
          || from->kind != KS_TRACK_THREAD)
        continue;
      op = enclosing_operator (from, flow->from_slice);
      if (op == 0)
        continue;
      keys[n_keys] = ((gint64)flow->to_track << 32) | flow->to_slice;
      g_hash_table_insert (ops, &keys[n_keys++], GUINT_TO_POINTER (op));
    }

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind != KS_TRACK_STREAM || (device >= 0 && track->device != device))
        continue;
      for (guint32 s = 0; s < track->n_slices; s++)
        {
          gint64 key = ((gint64)t << 32) | s;
          Launch l = { track->start[s], track->name_id[s], 0 };

          if (track->slice_kind[s] != KS_SLICE_KERNEL || track->start[s] < start || track->start[s] >= end)
            continue;
          l.op = GPOINTER_TO_UINT (g_hash_table_lookup (ops, &key));
          g_array_append_val (launches, l);
        }
    }
  g_array_sort (launches, cmp_launches);
  return launches;
}

/* Position key of each launch: its operator's name and how many kernels
 * that operator launched before it in the window. */
static char *
position_key (KsTrace    *trace,
              const Launch *l,
              GHashTable   *counts)
{
  const char *op = ks_trace_string (trace, l->op);
  guint k = GPOINTER_TO_UINT (g_hash_table_lookup (counts, op));

  g_hash_table_insert (counts, (char *)op, GUINT_TO_POINTER (k + 1));
  return g_strdup_printf ("%s\x1f%u", op, k);
}

char *
ks_kernel_normalise_name (const char *name)
{
  GString *out = g_string_new (NULL);
  gsize len = strlen (name);

  /* Triton names end in a per-module counter or hash: "_3", "_0d1e2f". */
  if (g_str_has_prefix (name, "triton_"))
    {
      const char *us = strrchr (name, '_');
      gboolean digit = FALSE;

      for (const char *p = us + 1; *p != '\0'; p++)
        digit |= g_ascii_isdigit (*p);
      if (us > name + strlen ("triton_") && digit)
        len = us - name;
    }
  for (gsize i = 0; i < len; i++)
    {
      if (!g_ascii_isdigit (name[i]))
        g_string_append_c (out, name[i]);
      else if (i == 0 || !g_ascii_isdigit (name[i - 1]))
        g_string_append_c (out, '#');
    }
  return g_string_free (out, FALSE);
}

static gboolean
is_only (const KsCompareItem *item,
         guint                side)
{
  return item->index[side] != KS_COMPARE_ABSENT && item->index[1 - side] == KS_COMPARE_ABSENT;
}

/* By launching operator and order: votes of the positions. */
static void
match_by_operator (KsTrace * const      trace[KS_COMPARE_N_SIDES],
                   GArray              *launches[KS_COMPARE_N_SIDES],
                   GHashTable          *only[KS_COMPARE_N_SIDES],
                   gboolean            *paired,
                   GArray              *pairs)
{
  g_autoptr(GHashTable) at = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) votes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GArray) sorted = g_array_new (FALSE, FALSE, sizeof (Vote));
  GHashTableIter iter;
  gpointer key, value;

  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    {
      g_autoptr(GHashTable) counts = g_hash_table_new (g_str_hash, g_str_equal);

      for (guint i = 0; i < launches[s]->len; i++)
        {
          const Launch *l = &g_array_index (launches[s], Launch, i);
          char *pos = position_key (trace[s], l, counts);
          gpointer item;

          if (l->op == 0 || !g_hash_table_lookup_extended (only[s], GUINT_TO_POINTER (l->name), NULL, &item))
            {
              g_free (pos);
              continue;
            }
          if (s == KS_COMPARE_BASE)
            {
              g_hash_table_insert (at, pos, item);
              continue;
            }
          if (g_hash_table_lookup_extended (at, pos, NULL, &value))
            {
              gint64 pair = ((gint64)GPOINTER_TO_UINT (value) << 32) | GPOINTER_TO_UINT (item);
              guint n = GPOINTER_TO_UINT (g_hash_table_lookup (votes, &pair));

              g_hash_table_replace (votes, g_memdup2 (&pair, sizeof pair), GUINT_TO_POINTER (n + 1));
            }
          g_free (pos);
        }
    }

  g_hash_table_iter_init (&iter, votes);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      gint64 pair = *(gint64 *)key;
      Vote v = { (guint)(pair >> 32), (guint)(pair & 0xffffffff), GPOINTER_TO_UINT (value) };

      g_array_append_val (sorted, v);
    }
  g_array_sort (sorted, cmp_votes);
  for (guint i = 0; i < sorted->len; i++)
    {
      const Vote *v = &g_array_index (sorted, Vote, i);
      KsKernelPair p = { v->base, v->new_item, KS_COMPARE_MATCH_OPERATOR };

      if (paired[v->base] || paired[v->new_item])
        continue;
      paired[v->base] = paired[v->new_item] = TRUE;
      g_array_append_val (pairs, p);
    }
}

/* The order in which the kernels of one side first run in its window,
 * those that do not after, by time (the items' order). */
static GArray *
first_run_order (GArray     *launches,
                 GHashTable *only,
                 guint       n_items)
{
  GArray *order = g_array_new (FALSE, FALSE, sizeof (guint));
  g_autofree gboolean *seen = g_new0 (gboolean, n_items);
  GHashTableIter iter;
  gpointer item;
  g_autoptr(GArray) rest = g_array_new (FALSE, FALSE, sizeof (guint));

  for (guint i = 0; i < launches->len; i++)
    {
      const Launch *l = &g_array_index (launches, Launch, i);
      guint k;

      if (!g_hash_table_lookup_extended (only, GUINT_TO_POINTER (l->name), NULL, &item))
        continue;
      k = GPOINTER_TO_UINT (item);
      if (!seen[k])
        g_array_append_val (order, k);
      seen[k] = TRUE;
    }
  g_hash_table_iter_init (&iter, only);
  while (g_hash_table_iter_next (&iter, NULL, &item))
    if (!seen[GPOINTER_TO_UINT (item)])
      {
        guint k = GPOINTER_TO_UINT (item);

        g_array_append_val (rest, k);
      }
  g_array_sort (rest, cmp_uint);
  g_array_append_vals (order, rest->data, rest->len);
  return order;
}

static void
match_by_normalised_name (const KsCompareItem *items,
                          guint                n_items,
                          GArray              *launches[KS_COMPARE_N_SIDES],
                          GHashTable          *only[KS_COMPARE_N_SIDES],
                          gboolean            *paired,
                          GArray              *pairs)
{
  /* normalised name -> the baseline's unpaired items, in first-run order */
  g_autoptr(GHashTable) waiting = g_hash_table_new_full (g_str_hash, g_str_equal, g_free,
                                                         (GDestroyNotify)g_queue_free);
  g_autoptr(GArray) base_order = first_run_order (launches[KS_COMPARE_BASE], only[KS_COMPARE_BASE], n_items);
  g_autoptr(GArray) new_order = first_run_order (launches[KS_COMPARE_NEW], only[KS_COMPARE_NEW], n_items);

  for (guint i = 0; i < base_order->len; i++)
    {
      guint k = g_array_index (base_order, guint, i);
      char *norm;
      GQueue *q;

      if (paired[k])
        continue;
      norm = ks_kernel_normalise_name (items[k].name);
      q = g_hash_table_lookup (waiting, norm);
      if (q == NULL)
        {
          q = g_queue_new ();
          g_hash_table_insert (waiting, norm, q);
        }
      else
        g_free (norm);
      g_queue_push_tail (q, GUINT_TO_POINTER (k));
    }
  for (guint i = 0; i < new_order->len; i++)
    {
      guint k = g_array_index (new_order, guint, i);
      g_autofree char *norm = NULL;
      GQueue *q;
      KsKernelPair p = { 0, k, KS_COMPARE_MATCH_NORMALISED };

      if (paired[k])
        continue;
      norm = ks_kernel_normalise_name (items[k].name);
      q = g_hash_table_lookup (waiting, norm);
      if (q == NULL || g_queue_is_empty (q))
        continue;
      p.base = GPOINTER_TO_UINT (g_queue_pop_head (q));
      paired[p.base] = paired[k] = TRUE;
      g_array_append_val (pairs, p);
    }
}

GArray *
ks_kernel_match (KsTrace * const      trace[KS_COMPARE_N_SIDES],
                 KsAnalysis * const   analysis[KS_COMPARE_N_SIDES],
                 const KsCompareItem *items,
                 guint                n_items)
{
  GArray *pairs = g_array_new (FALSE, FALSE, sizeof (KsKernelPair));
  g_autofree gboolean *paired = g_new0 (gboolean, MAX (n_items, 1));
  GArray *launches[KS_COMPARE_N_SIDES] = { NULL, NULL };
  /* per side: name id -> item index of the kernels only that side has */
  GHashTable *only[KS_COMPARE_N_SIDES] = { NULL, NULL };
  guint n_only[KS_COMPARE_N_SIDES] = { 0, 0 };

  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    {
      only[s] = g_hash_table_new (NULL, NULL);
      for (guint i = 0; i < n_items; i++)
        if (is_only (&items[i], s))
          {
            g_hash_table_insert (only[s], GUINT_TO_POINTER (items[i].name_id[s]), GUINT_TO_POINTER (i));
            n_only[s]++;
          }
    }
  if (n_only[0] > 0 && n_only[1] > 0)
    {
      for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
        launches[s] = window_launches (trace[s], analysis[s]);
      match_by_operator (trace, launches, only, paired, pairs);
      match_by_normalised_name (items, n_items, launches, only, paired, pairs);
    }
  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    {
      g_clear_pointer (&launches[s], g_array_unref);
      g_hash_table_unref (only[s]);
    }
  return pairs;
}
