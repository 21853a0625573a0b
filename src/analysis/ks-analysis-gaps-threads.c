/* ks-analysis-gaps-threads.c: what the rest of the process did during a
 * gap whose launching thread only waited
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* A thread blocked in cudaStreamSynchronize, in a DataLoader's __next__
 * or asleep says little: the time goes where the process's other threads
 * are (the autograd thread inside cuLibraryLoadData, a DataLoader worker
 * decoding). The worker processes launch no GPU work of their own, so
 * those of the same rank (or, without ranks, any) count as the launching
 * process's; other ranks do not. */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "ks-analysis-private.h"

/* Per name on one thread: the time its slices overlap the region, the
 * one that overlaps most and the deepest depth, since a worker decodes
 * one sample after another: many short calls of the same function. */
typedef struct
{
  gint64  ov;
  guint32 slice;
  gint64  slice_ov;
  guint   depth;
} NameTime;

typedef struct
{
  Context    *ctx;
  gint64      r0;
  gint64      r1;
  GHashTable *names;    /* name id -> NameTime */
} Probe;

/* A frame of the interpreter, a library or the recorder's own module
 * (_kinescope_python.py, around every thread it follows): not the user's
 * code. */
static gboolean
is_library_frame (const KsTrace *trace,
                  const KsTrack *track,
                  guint32        slice)
{
  g_autoptr(GString) buf = g_string_new (NULL);
  const char *args = ks_trace_slice_args (trace, track, slice, buf);
  const char *file;
  gsize len;
  g_autofree char *path = NULL;

  file = args != NULL ? ks_args_find (args, "file", &len) : NULL;
  if (file == NULL)
    return FALSE;
  path = g_strndup (file, len);
  return strstr (path, "site-packages") != NULL || strstr (path, "dist-packages") != NULL ||
         strstr (path, "/lib/python3") != NULL || strstr (path, "_kinescope") != NULL || path[0] == '<';
}

static gboolean
probe_cb (const KsTrack *track,
          guint32        s,
          gpointer       user_data)
{
  Probe *p = user_data;
  gint64 ov = MIN (track->end[s], p->r1) - MAX (track->start[s], p->r0);
  guint16 flags = p->ctx->name_flags[track->name_id[s]];
  NameTime *nt;

  if (ov <= 0)
    return TRUE;
  switch ((KsSliceKind)track->slice_kind[s])
    {
    /* waiting is no answer to "what went on instead" */
    case KS_SLICE_CUDA_RUNTIME:
    case KS_SLICE_CUDA_DRIVER:
      if (flags & NAME_SYNC)
        return TRUE;
      break;
    case KS_SLICE_SAMPLE:
      if (is_library_frame (p->ctx->trace, track, s))
        return TRUE;
      break;
    case KS_SLICE_CPU_OP:
    case KS_SLICE_USER_ANNOTATION:
      if (flags & (NAME_PROFILER_STEP | NAME_DATALOADER))
        return TRUE;
      break;
    /* other events: Kineto's "PyTorch Profiler (0)" span around the whole
     * trace on a thread of its own is no work; its python_function frames
     * name no file to tell the user's code from threading's waits */
    case KS_SLICE_PYTHON:
    case KS_SLICE_GENERIC:
    case KS_SLICE_OSRT:
    case KS_SLICE_NVTX:
    case KS_SLICE_ASYNC:
    case KS_SLICE_GPU_ANNOTATION:
    case KS_SLICE_KERNEL:
    case KS_SLICE_MEMCPY:
    case KS_SLICE_MEMSET:
    case KS_SLICE_SYNC:
    case KS_N_SLICE_KINDS:
    default:
      return TRUE;
    }
  nt = g_hash_table_lookup (p->names, GUINT_TO_POINTER (track->name_id[s]));
  if (nt == NULL)
    {
      nt = g_new0 (NameTime, 1);
      g_hash_table_insert (p->names, GUINT_TO_POINTER (track->name_id[s]), nt);
    }
  nt->ov += ov;
  nt->depth = MAX (nt->depth, track->depth[s]);
  if (ov > nt->slice_ov)
    {
      nt->slice_ov = ov;
      nt->slice = s;
    }
  return TRUE;
}

/* Where a gap's "meanwhile" looks: each process's own thread and sample
 * tracks, and per rank those of its workers (processes that launched no
 * GPU work), each list made in one pass over the tracks. */
struct _KsGapCandidates
{
  guint32    *offset;     /* own[offset[p] .. offset[p + 1]) */
  guint32    *own;
  gint32     *rank;       /* per process */
  gboolean   *launches;   /* per process */
  GHashTable *workers;    /* rank -> GArray of guint32 tracks */
};

void
_ks_gap_candidates_free (KsGapCandidates *c)
{
  g_free (c->offset);
  g_free (c->own);
  g_free (c->rank);
  g_free (c->launches);
  g_hash_table_unref (c->workers);
  g_free (c);
}

static gboolean
is_candidate (const KsTrace *trace,
              guint32        t)
{
  const KsTrack *track = &trace->tracks[t];

  return (track->kind == KS_TRACK_THREAD || track->kind == KS_TRACK_SAMPLES) &&
         track->process < trace->n_processes;
}

static KsGapCandidates *
candidates_new (KsTrace *trace)
{
  KsGapCandidates *c = g_new0 (KsGapCandidates, 1);
  g_autofree guint32 *fill = NULL;

  c->offset = g_new0 (guint32, trace->n_processes + 2);
  c->own = g_new (guint32, MAX (trace->n_tracks, 1));
  c->rank = g_new (gint32, trace->n_processes + 1);
  c->launches = g_new0 (gboolean, trace->n_processes + 1);
  c->workers = g_hash_table_new_full (NULL, NULL, NULL, (GDestroyNotify)g_array_unref);

  for (guint32 p = 0; p <= trace->n_processes; p++)
    c->rank[p] = -1;
  for (guint32 f = 0; f < trace->n_flows; f++)
    if (trace->flows[f].kind == KS_FLOW_LAUNCH)
      {
        guint32 p = trace->tracks[trace->flows[f].from_track].process;

        c->launches[p < trace->n_processes ? p : trace->n_processes] = TRUE;
      }
  for (guint32 t = 0; t < trace->n_tracks; t++)
    if (is_candidate (trace, t))
      {
        c->rank[trace->tracks[t].process] = ks_trace_rank_of_track (trace, t);
        c->offset[trace->tracks[t].process + 1]++;
      }
  for (guint32 p = 1; p <= trace->n_processes + 1; p++)
    c->offset[p] += c->offset[p - 1];
  fill = g_memdup2 (c->offset, sizeof (guint32) * (trace->n_processes + 1));
  for (guint32 t = 0; t < trace->n_tracks; t++)
    if (is_candidate (trace, t))
      {
        guint32 p = trace->tracks[t].process;

        c->own[fill[p]++] = t;
        if (!c->launches[p])
          {
            gpointer key = GINT_TO_POINTER (c->rank[p]);
            GArray *list = g_hash_table_lookup (c->workers, key);

            if (list == NULL)
              {
                list = g_array_new (FALSE, FALSE, sizeof (guint32));
                g_hash_table_insert (c->workers, key, list);
              }
            g_array_append_val (list, t);
          }
      }
  return c;
}

/* The best work of @t in the gap, kept in @gap when it beats the best. */
static void
consider_track (Context *ctx,
                KsGap   *gap,
                guint32  t,
                gint64   r0,
                gint64   r1,
                gint64  *best_ov,
                int     *best_depth)
{
  const KsTrack *track = &ctx->trace->tracks[t];
  Probe p = { ctx, r0, r1, ctx->other_names };
  GHashTableIter iter;
  gpointer value;

  if (track->thread == gap->thread)
    return;
  g_hash_table_remove_all (ctx->other_names);
  ks_track_foreach_in_range (track, r0, r1, probe_cb, &p);
  /* the innermost work in half the gap or more, then the longest */
  g_hash_table_iter_init (&iter, ctx->other_names);
  while (g_hash_table_iter_next (&iter, NULL, &value))
    {
      const NameTime *nt = value;

      if (nt->ov * 2 < r1 - r0)
        continue;
      if ((int)nt->depth > *best_depth || ((int)nt->depth == *best_depth && nt->ov > *best_ov))
        {
          *best_ov = nt->ov;
          *best_depth = nt->depth;
          gap->other_track = t;
          gap->other_slice = nt->slice;
        }
    }
}

void
_ks_gap_other_threads (Context *ctx,
                       KsGap   *gap,
                       gint64   r0,
                       gint64   r1)
{
  KsTrace *trace = ctx->trace;
  KsGapCandidates *c;
  GArray *workers;
  guint32 process;
  gint64 best_ov = 0;
  int best_depth = -1;

  gap->other_track = gap->other_slice = KS_NO_INDEX;
  if (gap->thread >= trace->n_threads || r1 <= r0 || trace->threads[gap->thread].process >= trace->n_processes)
    return;
  if (gap->cause != KS_GAP_CAUSE_SYNC && gap->cause != KS_GAP_CAUSE_DATALOADER &&
      gap->cause != KS_GAP_CAUSE_OSRT && gap->cause != KS_GAP_CAUSE_NO_CPU_ACTIVITY)
    return;
  if (ctx->other_tracks == NULL)
    {
      ctx->other_tracks = candidates_new (trace);
      ctx->other_names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
    }
  c = ctx->other_tracks;

  process = trace->threads[gap->thread].process;
  for (guint32 i = c->offset[process]; i < c->offset[process + 1]; i++)
    consider_track (ctx, gap, c->own[i], r0, r1, &best_ov, &best_depth);
  workers = g_hash_table_lookup (c->workers, GINT_TO_POINTER (c->rank[process]));
  for (guint i = 0; workers != NULL && i < workers->len; i++)
    if (trace->tracks[g_array_index (workers, guint32, i)].process != process)
      consider_track (ctx, gap, g_array_index (workers, guint32, i), r0, r1, &best_ov, &best_depth);
}

char *
ks_gap_format_meanwhile (const KsTrace *trace,
                         const KsGap   *gap)
{
  const KsTrack *track;
  const KsThread *th;
  g_autofree char *what = NULL;
  g_autofree char *tid = NULL;
  gboolean sample;

  g_return_val_if_fail (trace != NULL && gap != NULL, NULL);

  if (gap->other_track >= trace->n_tracks)
    return NULL;
  track = &trace->tracks[gap->other_track];
  sample = track->slice_kind[gap->other_slice] == KS_SLICE_SAMPLE;
  what = ks_gap_cause_format_name (trace, sample ? KS_GAP_CAUSE_PYTHON : KS_GAP_CAUSE_OPERATOR,
                                   track->name_id[gap->other_slice], gap->other_track, gap->other_slice);
  th = track->thread < trace->n_threads ? &trace->threads[track->thread] : NULL;
  if (th == NULL)
    return g_steal_pointer (&what);
  tid = g_strdup_printf ("%" G_GINT64_FORMAT, th->tid);
  if (th->name != 0)
    /* TRANSLATORS: what another thread did during a gap: "cuLibraryLoadData on pt_autograd_0 (4242)" */
    return g_strdup_printf (_("%s on %s (%s)"), what, ks_trace_string (trace, th->name), tid);
  /* TRANSLATORS: the same on a thread without a name: "holdout_decode on thread 4242" */
  return g_strdup_printf (_("%s on thread %s"), what, tid);
}
