/* ks-gpu-series.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-gpu-series"

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ks-analysis-private.h"
#include "ks-gpu-series.h"

static int
compare_ts (const void *a,
            const void *b)
{
  gint64 x = *(const gint64 *)a;
  gint64 y = *(const gint64 *)b;

  return (x > y) - (x < y);
}

/* Launches come in stream order, and a stream runs one operation after
 * another, so both lists are nearly always sorted already: check before
 * paying for a sort. */
static void
ensure_sorted (gint64 *v,
               gsize   n)
{
  for (gsize i = 1; i < n; i++)
    if (v[i] < v[i - 1])
      {
        qsort (v, n, sizeof (gint64), compare_ts);
        return;
      }
}

guint64
ks_gpu_series_build_queue (const KsTrace  *trace,
                           guint32         t,
                           const guint32  *launch,
                           KsCounter      *counter)
{
  const KsTrack *track = &trace->tracks[t];
  g_autofree gint64 *ups = g_new (gint64, MAX (track->n_slices, 1));
  g_autofree gint64 *downs = g_new (gint64, MAX (track->n_slices, 1));
  gsize n = 0, i = 0, j = 0, m = 0;
  guint len = 0;

  memset (counter, 0, sizeof *counter);
  counter->device = track->device;
  counter->process = KS_NO_INDEX;

  for (guint32 s = 0; launch != NULL && s < track->n_slices; s++)
    {
      const KsFlow *flow;

      if (!(GPU_WORK_KINDS & KIND_BIT (track->slice_kind[s])) || launch[s] == KS_NO_INDEX)
        continue;
      flow = &trace->flows[launch[s]];
      ups[n] = trace->tracks[flow->from_track].start[flow->from_slice];
      /* an operation cannot end before it was launched */
      downs[n] = MAX (track->end[s], ups[n]);
      n++;
    }
  if (n == 0)
    return 0;
  ensure_sorted (ups, n);
  ensure_sorted (downs, n);

  counter->ts = g_new (gint64, 2 * n);
  counter->value = g_new (double, 2 * n);
  /* Ends before launches at the same time: an operation that ends as
   * another is launched does not count twice. One sample per time, the
   * length once all of its events are in. */
  while (i < n || j < n)
    {
      gboolean up = j >= n || (i < n && ups[i] < downs[j]);
      gint64 ts = up ? ups[i] : downs[j];

      if (up)
        len++, i++;
      else
        len--, j++;
      if (m > 0 && counter->ts[m - 1] == ts)
        m--;
      counter->ts[m] = ts;
      counter->value[m] = len;
      m++;
    }
  counter->n_samples = (guint32)m;
  return n;
}

typedef struct
{
  gint64 ts;
  double gbps;                 /* > 0 a copy starts, < 0 it ends */
} Edge;

static int
compare_edges (const void *a,
               const void *b)
{
  const Edge *x = a, *y = b;

  if (x->ts != y->ts)
    return (x->ts > y->ts) - (x->ts < y->ts);
  /* ends first, as for the queue */
  return (x->gbps > y->gbps) - (x->gbps < y->gbps);
}

/* The bandwidth of @edges (all copies of one GPU and kind): the sum of
 * the rates of the copies running, each copy's bytes over its duration. */
static void
build_bandwidth (GArray    *edges,
                 KsCounter *counter)
{
  guint32 m = 0;
  guint running = 0;
  double sum = 0;

  qsort (edges->data, edges->len, sizeof (Edge), compare_edges);
  counter->ts = g_new (gint64, MAX (edges->len, 1));
  counter->value = g_new (double, MAX (edges->len, 1));
  for (guint e = 0; e < edges->len; e++)
    {
      const Edge *edge = &g_array_index (edges, Edge, e);

      running += edge->gbps > 0 ? 1 : -1;
      sum += edge->gbps;
      /* rounding must not leave a trace of bandwidth when none run */
      if (running == 0)
        sum = 0;
      if (m > 0 && counter->ts[m - 1] == edge->ts)
        m--;
      counter->ts[m] = edge->ts;
      counter->value[m] = MAX (sum, 0);
      m++;
    }
  counter->n_samples = m;
}

static void
series_set_free (KsGpuSeriesSet *set)
{
  for (guint i = 0; i < set->n_series; i++)
    {
      g_free (set->series[i].counter.ts);
      g_free (set->series[i].counter.value);
    }
  g_free (set->series);
  g_free (set);
}

/* What a bandwidth series is of: a GPU and copy kind, of one rank's
 * files when the trace has several (device 0 of every host is another
 * GPU). */
typedef struct
{
  guint32 group;
  gint32  device;
  guint32 kind;
} CopyKey;

static guint
copy_key_hash (gconstpointer p)
{
  const CopyKey *k = p;

  return (k->group * 31u + (guint)k->device) * 31u + k->kind;
}

static gboolean
copy_key_equal (gconstpointer a,
                gconstpointer b)
{
  return memcmp (a, b, sizeof (CopyKey)) == 0;
}

/* Queues in track order, then bandwidth by rank, device and kind. */
static int
compare_series (gconstpointer a,
                gconstpointer b)
{
  const KsGpuSeries *x = a, *y = b;

  if (x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1;
  if (x->kind == KS_GPU_SERIES_QUEUE)
    return (x->track > y->track) - (x->track < y->track);
  if (x->group != y->group)
    return x->group < y->group ? -1 : 1;
  if (x->device != y->device)
    return x->device < y->device ? -1 : 1;
  return (x->copy_kind > y->copy_kind) - (x->copy_kind < y->copy_kind);
}

static KsGpuSeriesSet *
build (KsTrace *trace)
{
  KsGpuSeriesSet *set = g_new0 (KsGpuSeriesSet, 1);
  g_autoptr(GArray) series = g_array_new (FALSE, TRUE, sizeof (KsGpuSeries));
  g_autoptr(GHashTable) by_kind = g_hash_table_new_full (copy_key_hash, copy_key_equal, g_free,
                                                         (GDestroyNotify)g_array_unref);
  GHashTableIter iter;
  gpointer key, value;
  guint32 **launch = g_new0 (guint32 *, MAX (trace->n_tracks, 1));

  /* The launch of each GPU operation, as the analysis finds it */
  for (guint32 f = 0; f < trace->n_flows; f++)
    {
      const KsFlow *flow = &trace->flows[f];
      const KsTrack *to = &trace->tracks[flow->to_track];

      if (flow->kind != KS_FLOW_LAUNCH || to->kind != KS_TRACK_STREAM ||
          trace->tracks[flow->from_track].kind != KS_TRACK_THREAD)
        continue;
      if (launch[flow->to_track] == NULL)
        {
          launch[flow->to_track] = g_new (guint32, MAX (to->n_slices, 1));
          memset (launch[flow->to_track], 0xff, sizeof (guint32) * MAX (to->n_slices, 1));
        }
      launch[flow->to_track][flow->to_slice] = f;
    }

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];
      KsGpuSeries q = { 0 };

      if (track->kind != KS_TRACK_STREAM)
        continue;
      q.kind = KS_GPU_SERIES_QUEUE;
      q.device = track->device;
      q.group = track->group;
      q.track = t;
      ks_gpu_series_build_queue (trace, t, launch[t], &q.counter);
      if (q.counter.n_samples > 0)
        g_array_append_val (series, q);

      for (guint32 s = 0; track->gpu != NULL && s < track->n_slices; s++)
        {
          gint64 dur = track->end[s] - track->start[s];
          CopyKey k;
          GArray *edges;
          Edge edge;

          /* a copy of no duration has no bandwidth */
          if (track->slice_kind[s] != KS_SLICE_MEMCPY || dur <= 0 || track->gpu[s].copy.bytes == 0)
            continue;
          memset (&k, 0, sizeof k);
          k.group = trace->n_ranks > 1 ? track->group : KS_NO_INDEX;
          k.device = track->device;
          k.kind = track->gpu[s].copy.copy_kind;
          edges = g_hash_table_lookup (by_kind, &k);
          if (edges == NULL)
            {
              edges = g_array_new (FALSE, FALSE, sizeof (Edge));
              g_hash_table_insert (by_kind, g_memdup2 (&k, sizeof k), edges);
            }
          edge.gbps = (double)track->gpu[s].copy.bytes / dur;
          edge.ts = track->start[s];
          g_array_append_val (edges, edge);
          edge.gbps = -edge.gbps;
          edge.ts = track->end[s];
          g_array_append_val (edges, edge);
        }
    }
  for (guint32 t = 0; t < trace->n_tracks; t++)
    g_free (launch[t]);
  g_free (launch);

  g_hash_table_iter_init (&iter, by_kind);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      const CopyKey *k = key;
      KsGpuSeries b = { 0 };

      b.kind = KS_GPU_SERIES_COPY_BANDWIDTH;
      b.copy_kind = (guint8)k->kind;
      b.device = k->device;
      b.group = k->group;
      b.track = KS_NO_INDEX;
      b.counter.device = b.device;
      b.counter.process = KS_NO_INDEX;
      build_bandwidth (value, &b.counter);
      g_array_append_val (series, b);
    }
  g_array_sort (series, compare_series);

  set->n_series = series->len;
  set->series = (KsGpuSeries *)(gpointer)g_array_free (g_steal_pointer (&series), FALSE);
  return set;
}

const KsGpuSeriesSet *
ks_gpu_series_get (KsTrace *trace)
{
  g_return_val_if_fail (KS_IS_TRACE (trace), NULL);

  return _ks_trace_get_cached (trace, "ks-gpu-series", (gpointer (*) (KsTrace *))build,
                               (GDestroyNotify)series_set_free);
}
