/* ks-critical-path-graph.c: the dependency graph of a step and its longest path
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-critical-path"

#include "config.h"

#include <string.h>

#include "ks-critical-path-private.h"

typedef struct
{
  gint64  t;
  guint32 order;
} Node;

typedef struct
{
  guint32 from;
  guint32 to;
  gint64  w;                /* observed weight */
  double  factor;           /* what-if scale of w */
  guint32 track;            /* what w is the time of, KS_NO_INDEX none */
  guint32 slice;            /* KS_NO_INDEX: host time outside any slice */
  guint8  klass;            /* KsPathClass of w */
  guint8  rklass;           /* class of the delay of @to when this edge sets its time */
  gboolean drawn;           /* a stretch of a slice or thread, for the overlay */
} Edge;

typedef struct
{
  guint32  track;
  GArray  *slices;          /* guint32, intersecting the window, in start order */
  GArray  *points;          /* gint64, sorted, unique */
  guint32  base;            /* node of points[0] */
} Thread;

typedef struct
{
  guint32 track;
  guint32 slice;
  gint64  start;
  gint64  end;
  guint32 s_node;
  guint32 e_node;
  gboolean launched;
} Op;

typedef struct
{
  const Builder *b;
  gint64   w0;
  gint64   w1;
  GArray  *nodes;           /* Node */
  GArray  *edges;           /* Edge */
  GArray  *threads;         /* Thread */
  GArray  *ops;             /* Op */
  guint32  marker_track;    /* the step's marker slice */
  guint32  marker_slice;
} Graph;

/* The first CorrRef of @key, or corr->len. */
static guint
corr_lower_bound (const GArray *corr,
                  guint64       key)
{
  guint lo = 0, hi = corr->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (g_array_index (corr, CorrRef, mid).key < key)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

static guint32
add_node (Graph  *g,
          gint64  t)
{
  Node n = { t, g->nodes->len };

  g_array_append_val (g->nodes, n);
  return g->nodes->len - 1;
}

static Edge *
add_edge (Graph   *g,
          guint32  from,
          guint32  to,
          gint64   w,
          guint8   klass,
          guint8   rklass)
{
  Edge e = { from, to, w, 1.0, KS_NO_INDEX, KS_NO_INDEX, klass, rklass, FALSE };

  g_array_append_val (g->edges, e);
  return &g_array_index (g->edges, Edge, g->edges->len - 1);
}

/* The node of time @t on @th, one of its points. */
static guint32
thread_node (const Thread *th,
             gint64        t)
{
  const gint64 *p = (const gint64 *)(gpointer)th->points->data;
  guint lo = 0, hi = th->points->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (p[mid] < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  /* Every caller asks for a boundary of a slice in the window. */
  g_warn_if_fail (lo < th->points->len && p[lo] == t);
  return th->base + MIN (lo, th->points->len - 1);
}

static int
compare_gint64 (gconstpointer a,
                gconstpointer b)
{
  gint64 x = *(const gint64 *)a;
  gint64 y = *(const gint64 *)b;

  return (x > y) - (x < y);
}

static gboolean
collect_slice (const KsTrack *track,
               guint32        slice,
               gpointer       user_data)
{
  g_array_append_val ((GArray *)user_data, slice);
  return TRUE;
}

static int
compare_guint32 (gconstpointer a,
                 gconstpointer b)
{
  guint32 x = *(const guint32 *)a;
  guint32 y = *(const guint32 *)b;

  return (x > y) - (x < y);
}

/* The class and what-if factor of the host time from @t on @track under
 * its innermost slice @s; @waits when that time is a wait for the GPU
 * (a synchronizing call), whose length the GPU sets. */
static void
classify_segment (const Graph   *g,
                  const KsTrack *track,
                  guint32        s,
                  gint64         t,
                  guint8        *klass,
                  double        *factor,
                  gboolean      *waits)
{
  const Builder *b = g->b;
  guint8 kind = track->slice_kind[s];
  guint8 flags = 0;
  guint32 op_mask = 0;

  *waits = FALSE;
  *factor = 1.0;
  switch (kind)
    {
    case KS_SLICE_CUDA_RUNTIME:
    case KS_SLICE_CUDA_DRIVER:
      *klass = KS_PATH_LAUNCH;
      break;
    case KS_SLICE_CPU_OP:
      *klass = KS_PATH_CPU;
      break;
    case KS_SLICE_PYTHON:
    case KS_SLICE_USER_ANNOTATION:
    case KS_SLICE_GENERIC:  /* Kineto's "PyTorch Profiler (0)" around everything */
      *klass = KS_PATH_PYTHON;
      break;
    default:
      *klass = KS_PATH_CPU;
      break;
    }
  for (guint32 a = s; a != KS_NO_INDEX; a = ks_track_parent_slice (track, a))
    {
      guint32 name = track->name_id[a];
      guint8 ak = track->slice_kind[a];

      /* Slices that overlap without nesting: a "parent" that ended
       * before @t does not enclose it. */
      if (track->end[a] <= t)
        continue;

      if (ak == KS_SLICE_CUDA_RUNTIME || ak == KS_SLICE_CUDA_DRIVER)
        flags |= b->flags[name] & N_SYNC;
      else
        flags |= b->flags[name] & N_COMM;
      flags |= b->flags[name] & N_DATALOADER;
      if (b->op_rules != NULL && ak == KS_SLICE_CPU_OP)
        op_mask |= b->op_rules[name];

      /* A slice that started inside another and ended after it sits
       * beside it, at its depth: while both run, @t is inside each
       * (enumerate(DataLoader) begun inside record_function's __enter__). */
      {
        guint d = track->depth[a];

        for (guint32 i = ks_track_depth_lower_bound (track, d, t); i < track->n_by_depth[d]; i++)
          {
            guint32 o = track->by_depth[d][i];

            if (track->start[o] > t)
              break;
            if (o != a && track->end[o] > t)
              flags |= b->flags[track->name_id[o]] & (N_COMM | N_DATALOADER);
          }
      }
    }
  if (flags & N_SYNC)
    {
      /* Waiting: its time is set by the GPU work it waits for. */
      *klass = KS_PATH_SYNC;
      *waits = TRUE;
      return;
    }
  /* Inside a collective (gloo:all_reduce, c10d::allreduce_), its own
   * CPU time and what it calls but launches: communication. */
  if ((flags & N_COMM) && *klass != KS_PATH_LAUNCH)
    *klass = KS_PATH_COMM;
  else if (flags & N_DATALOADER)
    {
      *klass = KS_PATH_DATALOADER;
      *factor *= b->dataloader_factor;
    }
  else if (*klass == KS_PATH_LAUNCH)
    *factor *= b->launch_factor;
  for (guint i = 0; op_mask != 0 && i < MAX_OP_RULES; i++)
    if (op_mask & (1u << i))
      *factor *= b->op_factor[i];
}

/* The points and slices of one thread in the window; FALSE when it has
 * none there. */
static gboolean
thread_init (Graph   *g,
             Thread  *th,
             guint32  t)
{
  const KsTrack *track = &g->b->trace->tracks[t];
  gint64 prev = G_MININT64;
  GArray *raw;

  th->track = t;
  th->slices = g_array_new (FALSE, FALSE, sizeof (guint32));
  ks_track_foreach_in_range (track, g->w0, g->w1 + 1, collect_slice, th->slices);
  g_array_sort (th->slices, compare_guint32);
  th->points = g_array_new (FALSE, FALSE, sizeof (gint64));
  if (th->slices->len == 0)
    return FALSE;
  raw = g_array_sized_new (FALSE, FALSE, sizeof (gint64), 2 * th->slices->len);
  for (guint i = 0; i < th->slices->len; i++)
    {
      guint32 s = g_array_index (th->slices, guint32, i);
      gint64 a = CLAMP (track->start[s], g->w0, g->w1);
      gint64 z = CLAMP (track->end[s], g->w0, g->w1);

      g_array_append_val (raw, a);
      g_array_append_val (raw, z);
    }
  g_array_sort (raw, compare_gint64);
  for (guint i = 0; i < raw->len; i++)
    {
      gint64 v = g_array_index (raw, gint64, i);

      if (v != prev)
        g_array_append_val (th->points, v);
      prev = v;
    }
  g_array_unref (raw);
  th->base = g->nodes->len;
  for (guint i = 0; i < th->points->len; i++)
    add_node (g, g_array_index (th->points, gint64, i));
  return TRUE;
}

static void
thread_clear (gpointer data)
{
  Thread *th = data;

  g_clear_pointer (&th->slices, g_array_unref);
  g_clear_pointer (&th->points, g_array_unref);
}

/* The latest point of @th in (@a, @b], or -1. */
static gint64
last_point_in (const Thread *th,
               gint64        a,
               gint64        b)
{
  const gint64 *p = (const gint64 *)(gpointer)th->points->data;
  guint lo = 0, hi = th->points->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (p[mid] <= b)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo > 0 && p[lo - 1] > a ? p[lo - 1] : -1;
}

/* The thread that thread @ti waited for between @a and @b, and the last
 * thing it did before @b (in @end). With @idle, @ti had no slice then:
 * any thread that did something handed over to it (the autograd thread
 * starts when the main one calls backward()). Else @ti sat in a slice:
 * only a thread busy over most of that time hands over (the main thread
 * blocked in backward() while the autograd thread runs). */
static gboolean
find_handoff (const Graph *g,
              guint        ti,
              gint64       a,
              gint64       b,
              gboolean     idle,
              guint       *from,
              gint64      *end)
{
  gint64 best_end = -1;
  guint best = G_MAXUINT;

  for (guint u = 0; u < g->threads->len && b > a; u++)
    {
      const Thread *other = &g_array_index (g->threads, Thread, u);
      const KsTrack *track = &g->b->trace->tracks[other->track];
      gint64 last, busy = 0;

      if (u == ti || (last = last_point_in (other, a, b)) < 0 || last <= best_end)
        continue;
      for (guint32 i = ks_track_depth_lower_bound (track, 0, a); !idle && i < track->n_by_depth[0]; i++)
        {
          guint32 s = track->by_depth[0][i];

          if (track->start[s] >= b)
            break;
          /* The step's own marker says nothing about being busy. */
          if (other->track == g->marker_track && s == g->marker_slice)
            continue;
          busy += MIN (track->end[s], b) - MAX (track->start[s], a);
        }
      if (idle || 2 * busy >= b - a)
        {
          best_end = last;
          best = u;
        }
    }
  *from = best;
  *end = best_end;
  return best != G_MAXUINT;
}

/* Host time on thread @ti from node @from (time @a) to its point @b,
 * under slice @s of class @klass (KS_NO_INDEX: no slice, untraced
 * Python): its own work, or waiting for another thread. */
static void
add_host_time (Graph   *g,
               guint    ti,
               guint32  from,
               gint64   a,
               gint64   b,
               guint32  s,
               guint8   klass,
               double   factor)
{
  const Thread *th = &g_array_index (g->threads, Thread, ti);
  guint32 to = thread_node (th, b);
  guint other;
  gint64 other_end;
  Edge *e;

  if ((klass == KS_PATH_PYTHON || klass == KS_PATH_CPU) &&
      find_handoff (g, ti, a, b, s == KS_NO_INDEX, &other, &other_end))
    {
      add_edge (g, from, to, 0, klass, klass);
      e = add_edge (g, thread_node (&g_array_index (g->threads, Thread, other), other_end), to, 0, klass, klass);
      e->track = th->track;
      e->slice = s;
      return;
    }
  e = add_edge (g, from, to, b - a, klass, klass);
  e->factor = factor;
  e->track = th->track;
  e->slice = s;
  e->drawn = TRUE;
}

/* The chain of one thread: its segments in order, from the step's start. */
static void
add_thread_edges (Graph *g,
                  guint  ti)
{
  const Thread *th = &g_array_index (g->threads, Thread, ti);
  const KsTrack *track = &g->b->trace->tracks[th->track];
  const gint64 *p = (const gint64 *)(gpointer)th->points->data;

  if (p[0] > g->w0)
    add_host_time (g, ti, 0, g->w0, p[0], KS_NO_INDEX, KS_PATH_PYTHON, 1.0);
  else
    add_edge (g, 0, th->base, 0, KS_PATH_PYTHON, KS_PATH_PYTHON);

  for (guint i = 0; i + 1 < th->points->len; i++)
    {
      guint32 s = ks_track_slice_at (track, p[i], 255);
      guint8 klass;
      double factor;
      gboolean waits;
      Edge *e;

      if (s == KS_NO_INDEX || track->end[s] <= p[i])
        {
          add_host_time (g, ti, th->base + i, p[i], p[i + 1], KS_NO_INDEX, KS_PATH_PYTHON, 1.0);
          continue;
        }
      classify_segment (g, track, s, p[i], &klass, &factor, &waits);
      if (!waits)
        {
          add_host_time (g, ti, th->base + i, p[i], p[i + 1], s, klass, factor);
          continue;
        }
      e = add_edge (g, th->base + i, th->base + i + 1, 0, klass, klass);
      e->track = th->track;
      e->slice = s;
      e->drawn = TRUE;
    }
}

static int
compare_ops (gconstpointer a,
             gconstpointer b)
{
  const Op *oa = a;
  const Op *ob = b;

  if (oa->track != ob->track)
    return oa->track < ob->track ? -1 : 1;
  if (oa->slice != ob->slice)
    return oa->slice < ob->slice ? -1 : 1;
  return ob->launched - oa->launched;
}

/* The op at (@track, @slice), or NULL. */
static const Op *
find_op (const Graph *g,
         guint32      track,
         guint32      slice)
{
  guint lo = 0, hi = g->ops->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const Op *o = &g_array_index (g->ops, Op, mid);

      if (o->track < track || (o->track == track && o->slice < slice))
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo < g->ops->len && g_array_index (g->ops, Op, lo).track == track &&
      g_array_index (g->ops, Op, lo).slice == slice)
    return &g_array_index (g->ops, Op, lo);
  return NULL;
}

static void
add_op (Graph    *g,
        guint32   track,
        guint32   slice,
        gboolean  launched)
{
  const KsTrack *tr = &g->b->trace->tracks[track];
  Op op = { track, slice, tr->start[slice], tr->end[slice], 0, 0, launched };

  /* Work ending after the step is not the step's (TensorBoard's rule
   * ends a step with the work it launched). */
  if (op.start < g->w0 || op.end > g->w1)
    return;
  g_array_append_val (g->ops, op);
}

/* The GPU work of the step: what its threads launched in it, and what
 * else ran on the process's streams in it. */
static void
collect_ops (Graph   *g,
             guint32  group)
{
  const KsTrace *trace = g->b->trace;
  const GArray *corr = g->b->corr;
  guint n = 0;

  for (guint ti = 0; ti < g->threads->len; ti++)
    {
      const Thread *th = &g_array_index (g->threads, Thread, ti);
      const KsTrack *track = &trace->tracks[th->track];

      for (guint i = 0; i < th->slices->len; i++)
        {
          guint32 s = g_array_index (th->slices, guint32, i);
          guint64 key = (guint64)track->group << 32 | track->correlation[s];

          if (track->correlation[s] == 0 || track->start[s] < g->w0 ||
              (track->slice_kind[s] != KS_SLICE_CUDA_RUNTIME && track->slice_kind[s] != KS_SLICE_CUDA_DRIVER))
            continue;
          for (guint k = corr_lower_bound (corr, key); k < corr->len && g_array_index (corr, CorrRef, k).key == key; k++)
            add_op (g, g_array_index (corr, CorrRef, k).track, g_array_index (corr, CorrRef, k).slice, TRUE);
        }
    }
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind != KS_TRACK_STREAM || track->group != group)
        continue;
      for (guint32 i = ks_track_first_starting_from (track, g->w0); i < track->n_slices && track->start[i] < g->w1; i++)
        if (is_gpu_work (track->slice_kind[i]))
          add_op (g, t, i, FALSE);
    }

  /* One op once, launched if either copy was. */
  g_array_sort (g->ops, compare_ops);
  for (guint i = 0; i < g->ops->len; i++)
    {
      Op *o = &g_array_index (g->ops, Op, i);

      if (n > 0 && g_array_index (g->ops, Op, n - 1).track == o->track &&
          g_array_index (g->ops, Op, n - 1).slice == o->slice)
        continue;
      g_array_index (g->ops, Op, n++) = *o;
    }
  g_array_set_size (g->ops, n);
}

/* The class of an op's time and the what-if's factor of it. */
static guint8
op_class (const Builder *b,
          const Op      *o,
          double        *factor)
{
  const KsTrack *track = &b->trace->tracks[o->track];
  guint32 name = track->name_id[o->slice];
  guint8 kind = track->slice_kind[o->slice];

  if (kind == KS_SLICE_MEMCPY || kind == KS_SLICE_MEMSET)
    {
      *factor = b->copy_factor;
      return KS_PATH_COPY;
    }
  *factor = b->kernel_factor != NULL ? b->kernel_factor[name] : 1.0;
  return b->flags[name] & N_COMM ? KS_PATH_COMM : KS_PATH_GPU;
}

/* Each op's duration and the order on its stream. */
static void
add_op_edges (Graph *g)
{
  for (guint i = 0; i < g->ops->len; i++)
    {
      Op *o = &g_array_index (g->ops, Op, i);
      double factor;
      guint8 klass = op_class (g->b, o, &factor);
      Edge *e;

      o->s_node = add_node (g, o->start);
      o->e_node = add_node (g, o->end);
      e = add_edge (g, o->s_node, o->e_node, o->end - o->start, klass, klass);
      e->track = o->track;
      e->slice = o->slice;
      e->drawn = TRUE;
      e->factor = factor;

      if (i > 0 && g_array_index (g->ops, Op, i - 1).track == o->track)
        {
          const Op *prev = &g_array_index (g->ops, Op, i - 1);

          if (prev->end <= o->start)
            add_edge (g, prev->e_node, o->s_node, 0, KS_PATH_GPU, KS_PATH_GPU);
          else
            {
              /* It started before the one before it ended (a
               * programmatic dependent launch): it follows that one's
               * start, the time between the starts that one's. */
              guint8 prev_klass = op_class (g->b, prev, &factor);

              e = add_edge (g, prev->s_node, o->s_node, o->start - prev->start, prev_klass, KS_PATH_GPU);
              e->track = prev->track;
              e->slice = prev->slice;
              e->factor = factor;
            }
        }
      else if (!o->launched)
        add_edge (g, 0, o->s_node, 0, KS_PATH_GPU, KS_PATH_GPU);
    }
}

static int
compare_op_ends (gconstpointer a,
                 gconstpointer b,
                 gpointer      user_data)
{
  const GArray *ops = user_data;
  const Op *oa = &g_array_index (ops, Op, *(const guint *)a);
  const Op *ob = &g_array_index (ops, Op, *(const guint *)b);

  return (oa->end > ob->end) - (oa->end < ob->end);
}

/* The dependencies between threads and the GPU: launches, waits for
 * the GPU, and one stream waiting for an event recorded on another. */
static void
add_dependencies (Graph *g)
{
  const Builder *b = g->b;
  const KsTrace *trace = b->trace;
  g_autofree guint *by_end = g_new (guint, MAX (g->ops->len, 1));

  for (guint i = 0; i < g->ops->len; i++)
    by_end[i] = i;
  g_qsort_with_data (by_end, g->ops->len, sizeof (guint), compare_op_ends, g->ops);

  /* Work on one stream may wait for another's without an event the
   * trace shows (the legacy default stream, library-internal events,
   * the GPU full): each op may follow the latest op of another stream
   * of its GPU that ended before it started. It sets the op's start
   * only when nothing later (its launch, its stream) does. */
  for (guint i = 0; i < g->ops->len; i++)
    {
      const Op *o = &g_array_index (g->ops, Op, i);
      gint32 device = trace->tracks[o->track].device;
      guint lo = 0, hi = g->ops->len, tries = 0;

      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;

          if (g_array_index (g->ops, Op, by_end[mid]).end <= o->start)
            lo = mid + 1;
          else
            hi = mid;
        }
      for (guint k = lo; k > 0 && tries < 8; k--, tries++)
        {
          const Op *p = &g_array_index (g->ops, Op, by_end[k - 1]);

          if (p->track != o->track && trace->tracks[p->track].device == device)
            {
              add_edge (g, p->e_node, o->s_node, 0, KS_PATH_GPU, KS_PATH_GPU);
              break;
            }
        }
    }

  for (guint ti = 0; ti < g->threads->len; ti++)
    {
      const Thread *th = &g_array_index (g->threads, Thread, ti);
      const KsTrack *track = &trace->tracks[th->track];
      const Op *last_launched = NULL;   /* the latest op launched from here */
      const Op *recorded = NULL;        /* the last op before the last cudaEventRecord */
      const Op *waited = NULL;          /* ... when a cudaStreamWaitEvent came after it */

      for (guint i = 0; i < th->slices->len; i++)
        {
          guint32 s = g_array_index (th->slices, guint32, i);
          guint8 kind = track->slice_kind[s];
          guint8 flags = b->flags[track->name_id[s]];
          guint64 key = (guint64)track->group << 32 | track->correlation[s];
          const Op *first = NULL;

          if (kind != KS_SLICE_CUDA_RUNTIME && kind != KS_SLICE_CUDA_DRIVER)
            continue;
          if (track->start[s] < g->w0)
            continue;

          if (track->correlation[s] != 0)
            for (guint k = corr_lower_bound (b->corr, key); k < b->corr->len && g_array_index (b->corr, CorrRef, k).key == key; k++)
              {
                const CorrRef *r = &g_array_index (b->corr, CorrRef, k);
                const Op *o = find_op (g, r->track, r->slice);
                Edge *e;

                if (o == NULL)
                  continue;
                e = add_edge (g, thread_node (th, track->start[s]), o->s_node, 0, KS_PATH_LAUNCH, KS_PATH_LAUNCH);
                e->track = th->track;
                e->slice = s;
                if (first == NULL || o->start < first->start)
                  first = o;
                if (last_launched == NULL || o->start >= last_launched->start)
                  last_launched = o;
              }
          if (first != NULL && waited != NULL)
            {
              if (first->track != waited->track)
                add_edge (g, waited->e_node, first->s_node, 0, KS_PATH_GPU, KS_PATH_GPU);
              waited = NULL;
            }
          if (flags & N_EVENT_REC)
            recorded = last_launched;
          if ((flags & N_WAIT_EVENT) && recorded != NULL)
            waited = recorded;

          /* A synchronizing call ends after the latest GPU work that
           * ended within it: what it waited for. */
          if ((flags & N_SYNC) && track->end[s] <= g->w1 && g->ops->len > 0)
            {
              guint lo = 0, hi = g->ops->len;

              while (lo < hi)
                {
                  guint mid = lo + (hi - lo) / 2;

                  if (g_array_index (g->ops, Op, by_end[mid]).end <= track->end[s])
                    lo = mid + 1;
                  else
                    hi = mid;
                }
              if (lo > 0)
                {
                  const Op *o = &g_array_index (g->ops, Op, by_end[lo - 1]);

                  if (o->end > track->start[s])
                    {
                      Edge *e = add_edge (g, o->e_node, thread_node (th, track->end[s]), 0, KS_PATH_SYNC, KS_PATH_SYNC);

                      e->track = th->track;
                      e->slice = s;
                    }
                }
            }
        }
    }
}

/* The graph in time order with each node's incoming edges. */
typedef struct
{
  guint    n_nodes;
  gint64  *t;               /* observed time */
  gint64  *delay;           /* observed time minus the latest predecessor's */
  guint8  *delay_class;
  guint32 *delay_track;     /* the edge that set it: what the delay is of */
  guint32 *delay_slice;
  guint    n_edges;
  Edge    *edges;           /* from and to in time order */
  guint   *in_first;        /* n_nodes + 1: edges[in_edges[in_first[n] ..]] */
  guint   *in_edges;
} Solved;

static void
solved_clear (Solved *sv)
{
  g_free (sv->t);
  g_free (sv->delay);
  g_free (sv->delay_class);
  g_free (sv->delay_track);
  g_free (sv->delay_slice);
  g_free (sv->edges);
  g_free (sv->in_first);
  g_free (sv->in_edges);
}

static int
compare_nodes (gconstpointer a,
               gconstpointer b,
               gpointer      user_data)
{
  const Node *nodes = user_data;
  const Node *na = &nodes[*(const guint32 *)a];
  const Node *nb = &nodes[*(const guint32 *)b];

  if (na->t != nb->t)
    return na->t < nb->t ? -1 : 1;
  return (na->order > nb->order) - (na->order < nb->order);
}

/* Orders the nodes by time (insertion order among equal times: each
 * edge then goes forward, save ties between unrelated places, whose
 * edges are dropped) and finds each node's own delay. */
static void
solve (Graph  *g,
       Solved *sv)
{
  guint n = g->nodes->len;
  Node *nodes = (Node *)(gpointer)g->nodes->data;
  g_autofree guint32 *perm = g_new (guint32, n);
  g_autofree guint32 *rank = g_new (guint32, n);
  guint m = 0;

  for (guint i = 0; i < n; i++)
    perm[i] = i;
  g_qsort_with_data (perm, n, sizeof (guint32), compare_nodes, nodes);
  for (guint i = 0; i < n; i++)
    rank[perm[i]] = i;

  sv->n_nodes = n;
  sv->t = g_new (gint64, n);
  for (guint i = 0; i < n; i++)
    sv->t[i] = nodes[perm[i]].t;
  sv->edges = g_new (Edge, MAX (g->edges->len, 1));
  for (guint i = 0; i < g->edges->len; i++)
    {
      Edge e = g_array_index (g->edges, Edge, i);

      e.from = rank[e.from];
      e.to = rank[e.to];
      if (e.from >= e.to)
        continue;
      /* An edge never asks for more than what happened (a kernel
       * starting before its launch call returned, by the clocks). */
      e.w = MIN (e.w, sv->t[e.to] - sv->t[e.from]);
      sv->edges[m++] = e;
    }
  sv->n_edges = m;
  sv->in_first = g_new0 (guint, n + 1);
  sv->in_edges = g_new (guint, MAX (m, 1));
  for (guint i = 0; i < m; i++)
    sv->in_first[sv->edges[i].to + 1]++;
  for (guint i = 0; i < n; i++)
    sv->in_first[i + 1] += sv->in_first[i];
  {
    g_autofree guint *fill = g_memdup2 (sv->in_first, n * sizeof (guint));

    for (guint i = 0; i < m; i++)
      sv->in_edges[fill[sv->edges[i].to]++] = i;
  }

  sv->delay = g_new0 (gint64, n);
  sv->delay_class = g_new0 (guint8, n);
  sv->delay_track = g_new (guint32, n);
  sv->delay_slice = g_new (guint32, n);
  for (guint v = 0; v < n; v++)
    {
      gint64 best = sv->t[0];
      const Edge *bind = NULL;

      sv->delay_track[v] = KS_NO_INDEX;
      sv->delay_slice[v] = KS_NO_INDEX;
      for (guint k = sv->in_first[v]; k < sv->in_first[v + 1]; k++)
        {
          const Edge *e = &sv->edges[sv->in_edges[k]];
          gint64 at = sv->t[e->from] + e->w;

          /* Ties go to the later edge: a launch or a wait rather than
           * the order on the thread or the stream. */
          if (bind == NULL || at >= best)
            {
              best = at;
              bind = e;
            }
        }
      if (v == 0)
        continue;
      sv->delay[v] = MAX (sv->t[v] - best, 0);
      sv->delay_class[v] = bind != NULL ? bind->rklass : KS_PATH_PYTHON;
      if (bind != NULL)
        {
          sv->delay_track[v] = bind->track;
          sv->delay_slice[v] = bind->slice;
        }
    }
}

typedef struct
{
  GArray     *items;        /* KsPathItem */
  GHashTable *index;        /* name << 8 | class -> item index + 1 */
  GArray     *longest;      /* gint64 per item: its longest piece */
} Items;

static void
add_item (Items   *items,
          const KsTrace *trace,
          guint32  track,
          guint32  slice,
          guint8   klass,
          gint64   ns)
{
  guint32 name;
  gpointer key;
  guint idx;

  if (slice == KS_NO_INDEX || ns <= 0)
    return;
  name = trace->tracks[track].name_id[slice];
  key = GSIZE_TO_POINTER ((gsize)name << 8 | klass);
  idx = GPOINTER_TO_UINT (g_hash_table_lookup (items->index, key));
  if (idx == 0)
    {
      KsPathItem item = { name, klass, 0, track, slice };
      gint64 zero = 0;

      g_array_append_val (items->items, item);
      g_array_append_val (items->longest, zero);
      idx = items->items->len;
      g_hash_table_insert (items->index, key, GUINT_TO_POINTER (idx));
    }
  g_array_index (items->items, KsPathItem, idx - 1).ns += ns;
  if (ns > g_array_index (items->longest, gint64, idx - 1))
    {
      g_array_index (items->longest, gint64, idx - 1) = ns;
      g_array_index (items->items, KsPathItem, idx - 1).track = track;
      g_array_index (items->items, KsPathItem, idx - 1).slice = slice;
    }
}

static int
compare_items (gconstpointer a,
               gconstpointer b)
{
  const KsPathItem *ia = a;
  const KsPathItem *ib = b;

  if (ia->ns != ib->ns)
    return ia->ns > ib->ns ? -1 : 1;
  return (ia->name > ib->name) - (ia->name < ib->name);
}

static double
delay_factor (const Builder *b,
              guint8         klass)
{
  if (klass == KS_PATH_LAUNCH)
    return b->launch_factor;
  if (klass == KS_PATH_DATALOADER)
    return b->dataloader_factor;
  return 1.0;
}

static gint64
scaled (gint64 v,
        double factor)
{
  return factor == 1.0 ? v : (gint64)(v * factor + 0.5);
}

/* Times the graph with the what-if's factors (@retimed) or as observed,
 * and walks the path back from the step's end: its time per class, and
 * for the observed path its items and segments. */
static gint64
walk (const Builder *b,
      const Solved  *sv,
      gboolean       retimed,
      gint64        *by_class,
      GArray        *items_out,
      GArray        *segments)
{
  guint n = sv->n_nodes;
  g_autofree gint64 *t = g_new (gint64, n);
  g_autofree guint *bind = g_new (guint, n);
  Items items = { 0 };
  guint v;

  t[0] = sv->t[0];
  bind[0] = G_MAXUINT;
  for (v = 1; v < n; v++)
    {
      gint64 best = G_MININT64;

      bind[v] = G_MAXUINT;
      for (guint k = sv->in_first[v]; k < sv->in_first[v + 1]; k++)
        {
          const Edge *e = &sv->edges[sv->in_edges[k]];
          gint64 at = t[e->from] + (retimed ? scaled (e->w, e->factor) : e->w);

          if (bind[v] == G_MAXUINT || at >= best)
            {
              best = at;
              bind[v] = sv->in_edges[k];
            }
        }
      if (bind[v] == G_MAXUINT)
        best = t[0];
      t[v] = best + (retimed ? scaled (sv->delay[v], delay_factor (b, sv->delay_class[v])) : sv->delay[v]);
    }

  if (items_out != NULL)
    {
      items.items = items_out;
      items.index = g_hash_table_new (NULL, NULL);
      items.longest = g_array_new (FALSE, FALSE, sizeof (gint64));
    }
  for (v = n - 1; v > 0;)
    {
      gint64 delay = t[v] - (bind[v] == G_MAXUINT ? t[0] : t[sv->edges[bind[v]].from] +
                                                    (retimed ? scaled (sv->edges[bind[v]].w, sv->edges[bind[v]].factor)
                                                             : sv->edges[bind[v]].w));
      const Edge *e;
      gint64 w;

      by_class[sv->delay_class[v]] += delay;
      if (items_out != NULL)
        add_item (&items, b->trace, sv->delay_track[v], sv->delay_slice[v], sv->delay_class[v], delay);
      if (bind[v] == G_MAXUINT)
        break;
      e = &sv->edges[bind[v]];
      w = retimed ? scaled (e->w, e->factor) : e->w;
      by_class[e->klass] += w;
      if (items_out != NULL)
        add_item (&items, b->trace, e->track, e->slice, e->klass, w);
      if (segments != NULL && e->drawn && e->track != KS_NO_INDEX && w > 0)
        {
          KsPathSegment seg = { e->track, e->slice, sv->t[e->from], sv->t[e->to], e->klass };
          KsPathSegment *last = segments->len > 0 ? &g_array_index (segments, KsPathSegment, segments->len - 1) : NULL;

          /* Walking backwards: merge with the stretch after it. */
          if (last != NULL && last->track == seg.track && last->slice == seg.slice && last->start == seg.end)
            last->start = seg.start;
          else
            g_array_append_val (segments, seg);
        }
      v = e->from;
    }
  if (items_out != NULL)
    {
      g_array_sort (items_out, compare_items);
      g_hash_table_unref (items.index);
      g_array_unref (items.longest);
    }
  return t[n - 1] - t[0];
}

/* The thread a step runs on: its marker's; else (a step found from the
 * trace's repeating structure, or the whole trace) the thread with the
 * most slices in it. KS_NO_INDEX when no thread did anything then. */
static guint32
step_thread_track (const KsTrace *trace,
                   const KsStep  *step)
{
  guint32 best = KS_NO_INDEX;
  gint64 best_busy = 0;

  if (step->track < trace->n_tracks)
    {
      const KsTrack *track = &trace->tracks[step->track];

      if (track->kind == KS_TRACK_THREAD)
        return step->track;
      if (track->parent != KS_NO_INDEX && trace->tracks[track->parent].kind == KS_TRACK_THREAD)
        return track->parent;
    }
  /* The most slices, not the most time: a profiler's span around the
   * whole trace would win that. */
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];
      gint64 busy;

      if (track->kind != KS_TRACK_THREAD)
        continue;
      busy = (gint64)ks_track_first_starting_from (track, step->end) - ks_track_first_starting_from (track, step->start);
      if (busy > best_busy)
        {
          best_busy = busy;
          best = t;
        }
    }
  return best;
}

void
_ks_path_compute_step (const Builder *b,
                       const KsStep  *step,
                       guint          index,
                       gboolean       what_if,
                       KsPathStep    *out)
{
  const KsTrace *trace = b->trace;
  guint32 main_track = step_thread_track (trace, step);
  guint32 process, group;
  guint main_thread = G_MAXUINT;
  Graph g = { 0 };
  Solved sv = { 0 };
  GArray *items, *segments;

  memset (out, 0, sizeof *out);
  out->name = step->name;
  out->step = index;
  out->rank = main_track != KS_NO_INDEX ? ks_trace_rank_of_track (trace, main_track) : -1;
  out->set_by_rank = out->rank;
  out->start = step->start;
  out->end = step->end;
  out->dur_ns = step->end - step->start;
  if (main_track == KS_NO_INDEX || step->end <= step->start)
    return;
  process = trace->tracks[main_track].process;
  group = trace->tracks[main_track].group;

  g.b = b;
  g.w0 = step->start;
  g.w1 = step->end;
  g.marker_track = step->track;
  g.marker_slice = step->slice;
  g.nodes = g_array_new (FALSE, FALSE, sizeof (Node));
  g.edges = g_array_new (FALSE, FALSE, sizeof (Edge));
  g.threads = g_array_new (FALSE, TRUE, sizeof (Thread));
  g_array_set_clear_func (g.threads, thread_clear);
  g.ops = g_array_new (FALSE, FALSE, sizeof (Op));
  add_node (&g, g.w0);
  add_node (&g, g.w1);
  g_array_index (g.nodes, Node, 1).order = G_MAXUINT32;

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      Thread th = { 0 };

      if (trace->tracks[t].kind != KS_TRACK_THREAD || trace->tracks[t].process != process)
        continue;
      if (!thread_init (&g, &th, t))
        {
          thread_clear (&th);
          continue;
        }
      if (t == main_track)
        main_thread = g.threads->len;
      g_array_append_val (g.threads, th);
    }
  for (guint ti = 0; ti < g.threads->len; ti++)
    add_thread_edges (&g, ti);
  collect_ops (&g, group);
  add_op_edges (&g);
  add_dependencies (&g);

  /* The step ends with its thread and with its GPU work. */
  if (main_thread != G_MAXUINT)
    {
      const Thread *th = &g_array_index (g.threads, Thread, main_thread);

      add_edge (&g, th->base + th->points->len - 1, 1, 0, KS_PATH_PYTHON, KS_PATH_PYTHON);
    }
  for (guint i = 0; i < g.ops->len; i++)
    add_edge (&g, g_array_index (g.ops, Op, i).e_node, 1, 0, KS_PATH_GPU, KS_PATH_GPU);

  solve (&g, &sv);
  items = g_array_new (FALSE, FALSE, sizeof (KsPathItem));
  segments = g_array_new (FALSE, FALSE, sizeof (KsPathSegment));
  out->path_ns = walk (b, &sv, FALSE, out->by_class, items, segments);
  if (what_if)
    out->predicted_ns = walk (b, &sv, TRUE, out->predicted_by_class, NULL, NULL);
  else
    {
      out->predicted_ns = out->path_ns;
      memcpy (out->predicted_by_class, out->by_class, sizeof out->by_class);
    }

  out->n_items = MIN (items->len, TOP_ITEMS);
  out->items = (KsPathItem *)(gpointer)g_array_free (items, FALSE);
  /* Walked backwards: in time order, they are reversed. */
  for (guint i = 0; i < segments->len / 2; i++)
    {
      KsPathSegment tmp = g_array_index (segments, KsPathSegment, i);

      g_array_index (segments, KsPathSegment, i) = g_array_index (segments, KsPathSegment, segments->len - 1 - i);
      g_array_index (segments, KsPathSegment, segments->len - 1 - i) = tmp;
    }
  out->n_segments = segments->len;
  out->segments = (KsPathSegment *)(gpointer)g_array_free (segments, FALSE);

  solved_clear (&sv);
  g_array_unref (g.nodes);
  g_array_unref (g.edges);
  g_array_unref (g.threads);
  g_array_unref (g.ops);
}

