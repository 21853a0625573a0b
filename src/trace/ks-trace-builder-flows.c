/* ks-trace-builder-flows.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-trace-builder"

/* Flows linked to the slices at their ends, the last serial step of
 * finishing a trace with many flows (0.035 CPU s of a 1 GB Kineto
 * trace): CUDA launches to the GPU activities of their correlation id,
 * and every other flow's ends to slices. The order-free parts run on
 * every core, over ranges of slices and over tracks: gathering the GPU
 * activities, looking up each launch's correlation id, binding a
 * track's flow ends. What depends on the order (a GPU activity linked
 * to its first launch only, the flows appended in order) stays one pass
 * here, over the launches found. The flows are the same, in the same
 * order, on any number of threads. */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ks-json-reader.h"
#include "ks-kscope-conventions.h"
#include "ks-trace-builder-private.h"

/* a range of a track's slices, the unit of work */
#define RANGE_SLICES 65536

typedef struct
{
  guint64 key;     /* group << 32 | correlation */
  guint64 where;   /* track << 32 | slice */
} CorrEntry;

typedef struct
{
  guint32  track;
  guint32  from;
  guint32  to;
  guint32  n;      /* what it found */
  gsize    at;     /* where that goes */
} Range;

typedef struct
{
  guint     n;
  gint      next;    /* atomic: the next item to take */
  void    (*run) (gpointer data, guint i);
  gpointer  data;
} ParallelFor;

static gpointer
parallel_job (gpointer data)
{
  ParallelFor *pa = data;
  guint i;

  while ((i = (guint) g_atomic_int_add (&pa->next, 1)) < pa->n)
    pa->run (pa->data, i);
  return NULL;
}

/* @run for each of @n items, on as many threads as the read (this one
 * among them): items are taken in turn, so their order of work is free,
 * and each writes only its own results. */
static void
parallel_for (guint    n,
              void   (*run) (gpointer data, guint i),
              gpointer data)
{
  ParallelFor pa = { n, 0, run, data };
  guint n_threads = MIN (ks_json_reader_get_n_threads (), n);
  g_autofree GThread **threads = g_new0 (GThread *, MAX (n_threads, 1));

  for (guint k = 1; k < n_threads; k++)
    threads[k] = g_thread_try_new ("ks-finish", parallel_job, &pa, NULL);
  parallel_job (&pa);
  for (guint k = 1; k < n_threads; k++)
    if (threads[k] != NULL)
      g_thread_join (threads[k]);
}

/* The tracks of @kind cut into ranges of at most RANGE_SLICES slices. */
static GArray *
ranges_of (const KsTrace *trace,
           KsTrackKind    kind)
{
  GArray *ranges = g_array_new (FALSE, FALSE, sizeof (Range));

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      if (trace->tracks[t].kind != kind)
        continue;
      for (guint32 from = 0; from < trace->tracks[t].n_slices; from += RANGE_SLICES)
        {
          Range r = { t, from, MIN (trace->tracks[t].n_slices, from + RANGE_SLICES), 0, 0 };

          g_array_append_val (ranges, r);
        }
    }
  return ranges;
}

static inline gboolean
corr_before (const CorrEntry *a,
             const CorrEntry *b)
{
  return a->key < b->key || (a->key == b->key && a->where < b->where);
}

/* GPU side */

typedef struct
{
  const KsTrace *trace;
  Range         *ranges;
  CorrEntry     *gpu;
} Gather;

static void
gather_count (gpointer data,
              guint    i)
{
  Gather *g = data;
  Range *r = &g->ranges[i];
  const guint32 *correlation = g->trace->tracks[r->track].correlation;

  r->n = 0;
  for (guint32 s = r->from; s < r->to; s++)
    r->n += correlation[s] != 0;
}

static void
gather_fill (gpointer data,
             guint    i)
{
  Gather *g = data;
  const Range *r = &g->ranges[i];
  const KsTrack *track = &g->trace->tracks[r->track];
  CorrEntry *e = g->gpu + r->at;

  for (guint32 s = r->from; s < r->to; s++)
    if (track->correlation[s] != 0)
      *e++ = (CorrEntry) { (guint64) track->group << 32 | track->correlation[s], (guint64) r->track << 32 | s };
}

typedef struct
{
  const CorrEntry *from;
  CorrEntry       *to;
  const gsize     *runs;   /* run k is [runs[k], runs[k + 1]) */
  guint            n_runs;
} Merge;

/* Runs 2i and 2i + 1 into one; an odd last run is copied. */
static void
merge_pair (gpointer data,
            guint    i)
{
  Merge *m = data;
  gsize a = m->runs[2 * i], mid = m->runs[MIN (2 * i + 1, m->n_runs)], end = m->runs[MIN (2 * i + 2, m->n_runs)];
  gsize x = a, y = mid, o = a;

  while (x < mid && y < end)
    m->to[o++] = corr_before (&m->from[y], &m->from[x]) ? m->from[y++] : m->from[x++];
  memcpy (m->to + o, m->from + x, (mid - x) * sizeof (CorrEntry));
  o += mid - x;
  memcpy (m->to + o, m->from + y, (end - y) * sizeof (CorrEntry));
}

/* @gpu sorted by (key, where), as it was gathered in a track at a time:
 * each track's entries come nearly in order (by time), so they are
 * merged by the runs found in them, pairs of runs on every core. */
static CorrEntry *
sort_gpu (CorrEntry *gpu,
          gsize      n)
{
  g_autoptr(GArray) runs = g_array_new (FALSE, FALSE, sizeof (gsize));
  CorrEntry *tmp;
  gsize zero = 0;

  g_array_append_val (runs, zero);
  for (gsize i = 1; i < n; i++)
    if (corr_before (&gpu[i], &gpu[i - 1]))
      g_array_append_val (runs, i);
  g_array_append_val (runs, n);
  if (runs->len <= 2)
    return gpu;

  tmp = g_new (CorrEntry, n);
  while (runs->len > 2)
    {
      Merge m = { gpu, tmp, (const gsize *)(gpointer) runs->data, runs->len - 1 };
      guint n_pairs = (m.n_runs + 1) / 2;
      CorrEntry *swap;
      guint k = 0;

      parallel_for (n_pairs, merge_pair, &m);
      /* every other boundary goes */
      for (guint i = 0; i < runs->len; i += 2)
        g_array_index (runs, gsize, k++) = g_array_index (runs, gsize, i);
      if (g_array_index (runs, gsize, k - 1) != n)
        g_array_index (runs, gsize, k++) = n;
      g_array_set_size (runs, k);
      swap = gpu;
      gpu = tmp;
      tmp = swap;
    }
  g_free (tmp);
  return gpu;
}

/* Launches */

typedef struct
{
  guint32 slice;
  guint32 lo;      /* the first GPU entry of its key */
} Launch;

typedef struct
{
  const KsTrace   *trace;
  Range           *ranges;
  const CorrEntry *gpu;
  gsize            n_gpu;
  Launch         **found;  /* per range */
} Search;

static void
search_launches (gpointer data,
                 guint    i)
{
  Search *se = data;
  Range *r = &se->ranges[i];
  const KsTrack *track = &se->trace->tracks[r->track];
  Launch *found = NULL;
  guint n = 0, cap = 0;

  for (guint32 s = r->from; s < r->to; s++)
    {
      guint64 key = (guint64) track->group << 32 | track->correlation[s];
      gsize lo = 0, hi = se->n_gpu;

      if (track->correlation[s] == 0 ||
          (track->slice_kind[s] != KS_SLICE_CUDA_RUNTIME && track->slice_kind[s] != KS_SLICE_CUDA_DRIVER))
        continue;
      while (lo < hi)
        {
          gsize mid = lo + (hi - lo) / 2;

          if (se->gpu[mid].key < key)
            lo = mid + 1;
          else
            hi = mid;
        }
      if (lo == se->n_gpu || se->gpu[lo].key != key)
        continue;
      if (n == cap)
        {
          cap = MAX (64, 2 * cap);
          found = g_renew (Launch, found, cap);
        }
      found[n++] = (Launch) { s, (guint32) lo };
    }
  r->n = n;
  se->found[i] = found;
}

/* Flow ends */

static int
compare_flow_ends (gconstpointer a,
                   gconstpointer b)
{
  const KsFlowEnd *ea = a;
  const KsFlowEnd *eb = b;

  return (ea->ts > eb->ts) - (ea->ts < eb->ts);
}

typedef struct
{
  const KsTrace *trace;
  KsFlowEnd     *by_track;
  const guint32 *first;    /* track t's ends: [first[t], first[t + 1]) */
  guint32       *ends;
} Bind;

static void
bind_track_ends (gpointer data,
                 guint    t)
{
  Bind *b = data;
  KsFlowEnd *e = b->by_track + b->first[t];
  guint32 m = b->first[t + 1] - b->first[t];
  gboolean sorted = TRUE;

  for (guint32 k = 1; k < m && sorted; k++)
    sorted = e[k - 1].ts <= e[k].ts;
  if (!sorted)
    qsort (e, m, sizeof *e, compare_flow_ends);
  if (m > 0)
    ks_kscope_flow_end_slices (&b->trace->tracks[t], e, m);
  for (guint32 k = 0; k < m; k++)
    b->ends[e[k].tag] = e[k].slice;
}

/* Both ends of every pending flow, as slices (from and to of each). An
 * end that names a time binds as a .kscope's does; those are found a
 * track at a time in time order, the tracks on every core. */
static guint32 *
resolve_flow_ends (KsTraceBuilder *self,
                   KsTrace        *trace)
{
  const PendingFlow *flows = (const PendingFlow *)(gpointer)self->flows->data;
  guint n = self->flows->len;
  guint32 *ends = g_new (guint32, 2 * (gsize) MAX (n, 1));
  g_autofree guint32 *first = g_new0 (guint32, (gsize) trace->n_tracks + 1);
  g_autofree guint32 *fill = NULL;
  g_autofree KsFlowEnd *by_track = NULL;
  Bind bind;

  /* the ends by track, counted, then placed */
  for (guint i = 0; i < 2 * n; i++)
    {
      const PendingFlow *pf = &flows[i / 2];
      guint32 track = i % 2 ? pf->to_track : pf->from_track;
      gint64 ts = i % 2 ? pf->to_ts : pf->from_ts;
      gint64 end = i % 2 ? pf->to_end : pf->from_end;

      if (end == G_MININT64)
        first[track + 1]++;
      else
        ends[i] = _ks_builder_exact_slice (&trace->tracks[track], ts - trace->origin_ns, end - trace->origin_ns);
    }
  for (guint32 t = 0; t < trace->n_tracks; t++)
    first[t + 1] += first[t];
  fill = g_memdup2 (first, ((gsize) trace->n_tracks + 1) * sizeof (guint32));
  by_track = g_new (KsFlowEnd, MAX (first[trace->n_tracks], 1));
  for (guint i = 0; i < 2 * n; i++)
    {
      const PendingFlow *pf = &flows[i / 2];
      guint32 track = i % 2 ? pf->to_track : pf->from_track;

      if ((i % 2 ? pf->to_end : pf->from_end) == G_MININT64)
        by_track[fill[track]++] = (KsFlowEnd) { (i % 2 ? pf->to_ts : pf->from_ts) - trace->origin_ns, i, 0 };
    }

  bind = (Bind) { trace, by_track, first, ends };
  parallel_for (trace->n_tracks, bind_track_ends, &bind);
  return ends;
}

void
_ks_builder_link_flows (KsTraceBuilder *self,
                        KsTrace        *trace)
{
  g_autoptr(GArray) flows = g_array_new (FALSE, FALSE, sizeof (KsFlow));
  g_autoptr(GArray) gpu_ranges = ranges_of (trace, KS_TRACK_STREAM);
  g_autoptr(GArray) cpu_ranges = NULL;
  g_autofree CorrEntry *gpu = NULL;
  g_autofree guint8 *linked = NULL;
  g_autofree guint32 *ends = NULL;
  g_autofree Launch **found = NULL;
  Range *ranges = (Range *)(gpointer) gpu_ranges->data;
  guint32 launch_cat = 0;
  gsize n_gpu = 0;
  Gather gather = { trace, ranges, NULL };
  Search search;
  KsFlow *out;
  gsize n_out = 0;

  /* GPU side: (group, correlation) -> (track, slice) of each activity,
   * as a sorted array: far cheaper than a hash table of millions of
   * allocated keys. A cudaGraphLaunch gives every operation of its graph
   * its own correlation id, so one id may have many activities. */
  parallel_for (gpu_ranges->len, gather_count, &gather);
  for (guint i = 0; i < gpu_ranges->len; i++)
    {
      ranges[i].at = n_gpu;
      n_gpu += ranges[i].n;
    }
  gpu = gather.gpu = g_new (CorrEntry, MAX (n_gpu, 1));
  parallel_for (gpu_ranges->len, gather_fill, &gather);
  gpu = sort_gpu (g_steal_pointer (&gpu), n_gpu);
  linked = g_new0 (guint8, MAX (n_gpu, 1));

  /* each launch's activities, looked up on every core; linked in order
   * here: each activity has one launch, and later API calls with the
   * same id (rare, broken files) do not link again */
  cpu_ranges = ranges_of (trace, KS_TRACK_THREAD);
  found = g_new0 (Launch *, MAX (cpu_ranges->len, 1));
  search = (Search) { trace, (Range *)(gpointer) cpu_ranges->data, gpu, n_gpu, found };
  if (n_gpu > 0)
    parallel_for (cpu_ranges->len, search_launches, &search);
  _ks_builder_array_reserve (flows, self->flows->len + n_gpu);
  g_array_set_size (flows, self->flows->len + n_gpu);
  out = (KsFlow *)(gpointer) flows->data;
  for (guint i = 0; i < cpu_ranges->len; i++)
    {
      const Range *r = &search.ranges[i];

      for (guint j = 0; j < r->n; j++)
        {
          guint32 lo = found[i][j].lo;

          if (linked[lo])
            continue;
          linked[lo] = 1;
          if (launch_cat == 0)
            launch_cat = ks_trace_builder_intern (self, "ac2g");
          /* every activity of the id, in (track, slice) order: the flows
           * of one call are consecutive */
          for (gsize k = lo; k < n_gpu && gpu[k].key == gpu[lo].key; k++)
            out[n_out++] = (KsFlow) {
              .from_track = r->track,
              .from_slice = found[i][j].slice,
              .to_track = (guint32) (gpu[k].where >> 32),
              .to_slice = (guint32) (gpu[k].where & 0xffffffff),
              .category = launch_cat,
              .kind = KS_FLOW_LAUNCH,
            };
        }
      g_free (found[i]);
    }

  ends = resolve_flow_ends (self, trace);
  for (guint i = 0; i < self->flows->len; i++)
    {
      const PendingFlow *pf = &g_array_index (self->flows, PendingFlow, i);

      if (ends[2 * i] == KS_NO_INDEX || ends[2 * i + 1] == KS_NO_INDEX)
        continue;
      out[n_out++] = (KsFlow) {
        .from_track = pf->from_track,
        .to_track = pf->to_track,
        .from_slice = ends[2 * i],
        .to_slice = ends[2 * i + 1],
        .category = pf->category,
        .kind = pf->kind,
      };
    }

  g_array_set_size (flows, n_out);
  trace->n_flows = flows->len;
  trace->flows = (KsFlow *)(gpointer)g_array_free (g_steal_pointer (&flows), FALSE);
}
