/* ks-analysis-steps-infer.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Steps where the trace marks none (no ProfilerStep#N, no NVTX range
 * named like a step): the iterations of a training loop repeat, so the
 * launching thread's outermost work repeats too. The rules, in order:
 * the DataLoader's next batch (the start of an iteration), the
 * optimizer's step (its end), an NVTX range that repeats, the outermost
 * operator that repeats once an iteration, and the kernel sequence that
 * repeats on the busiest stream. */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "ks-analysis-private.h"

/* Fewer occurrences are no repetition: of a name that says it is one
 * an iteration (the optimizer's step, the DataLoader), and of any other. */
#define MIN_REPEATS 2
#define MIN_REPEATS_ANY 3

/* What may open an iteration: code, not a CUDA call. */
#define ANCHOR_KINDS (KIND_BIT (KS_SLICE_CPU_OP) | KIND_BIT (KS_SLICE_USER_ANNOTATION) | \
                      KIND_BIT (KS_SLICE_PYTHON) | KIND_BIT (KS_SLICE_NVTX) | KIND_BIT (KS_SLICE_GENERIC))

/* The thread track that launched the most GPU work, or KS_NO_INDEX. */
static guint32
main_thread_track (KsTrace *trace)
{
  g_autofree guint32 *launches = g_new0 (guint32, MAX (trace->n_tracks, 1));
  guint32 best = KS_NO_INDEX;

  for (guint32 f = 0; f < trace->n_flows; f++)
    if (trace->flows[f].kind == KS_FLOW_LAUNCH &&
        trace->tracks[trace->flows[f].from_track].kind == KS_TRACK_THREAD)
      launches[trace->flows[f].from_track]++;
  for (guint32 t = 0; t < trace->n_tracks; t++)
    if (launches[t] > 0 && (best == KS_NO_INDEX || launches[t] > launches[best]))
      best = t;
  return best;
}

/* The outermost slices of @track whose name is @name (by_depth[0]). */
static GArray *
outermost_named (const KsTrack *track,
                 guint32        name)
{
  GArray *found = g_array_new (FALSE, FALSE, sizeof (guint32));

  for (guint32 i = 0; track->max_depth > 0 && i < track->n_by_depth[0]; i++)
    if (track->name_id[track->by_depth[0][i]] == name)
      g_array_append_val (found, track->by_depth[0][i]);
  return found;
}

static int
compare_gint64 (gconstpointer a,
                gconstpointer b)
{
  gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;

  return (x > y) - (x < y);
}

/* The start times of the launch calls of @track_index, sorted, so that
 * each candidate step counts its launches with two binary searches. */
static GArray *
launch_times (KsTrace *trace,
              guint32  track_index)
{
  GArray *times = g_array_new (FALSE, FALSE, sizeof (gint64));

  for (guint32 f = 0; f < trace->n_flows; f++)
    if (trace->flows[f].kind == KS_FLOW_LAUNCH && trace->flows[f].from_track == track_index)
      g_array_append_val (times, trace->tracks[track_index].start[trace->flows[f].from_slice]);
  g_array_sort (times, compare_gint64);
  return times;
}

static guint
lower_bound (GArray *times,
             gint64  t)
{
  guint lo = 0, hi = times->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (g_array_index (times, gint64, mid) < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* Launches of the thread's calls starting in [t0, t1). */
static guint
launches_in (GArray *times,
             gint64  t0,
             gint64  t1)
{
  return lower_bound (times, t1) - lower_bound (times, t0);
}

/* The end of the last outermost slice of @track. */
static gint64
track_last_end (const KsTrack *track)
{
  gint64 end = G_MININT64;

  for (guint32 i = 0; track->max_depth > 0 && i < track->n_by_depth[0]; i++)
    end = MAX (end, track->end[track->by_depth[0][i]]);
  return end;
}

static void
add_inferred (Context *ctx,
              guint32  track_index,
              guint32  slice,
              gint64   start,
              gint64   end)
{
  KsStep step;

  memset (&step, 0, sizeof step);
  step.name = ctx->trace->tracks[track_index].name_id[slice];
  step.track = track_index;
  step.slice = slice;
  step.start = step.host_start = start;
  step.end = step.host_end = end;
  step.inferred = TRUE;
  g_array_append_val (ctx->step_refs, step);
}

/* Steps from @anchors (slices of @track_index) that start an iteration
 * each: to the next one, the last to the end of @thread's outermost
 * work; one that launched nothing on @thread (a DataLoader's final,
 * empty __next__) is no iteration. */
static guint
steps_from_starts (Context  *ctx,
                   guint32   track_index,
                   guint32   thread,
                   GArray   *times,
                   GArray   *anchors)
{
  KsTrace *trace = ctx->trace;
  const KsTrack *track = &trace->tracks[track_index];
  gint64 last_end = track_last_end (&trace->tracks[thread]);
  guint n = 0;

  for (guint i = 0; i < anchors->len; i++)
    {
      guint32 s = g_array_index (anchors, guint32, i);
      gint64 start = track->start[s];
      gint64 end = i + 1 < anchors->len ? track->start[g_array_index (anchors, guint32, i + 1)]
                                        : MAX (last_end, track->end[s]);

      if (launches_in (times, start, end) == 0)
        continue;
      add_inferred (ctx, track_index, s, start, end);
      n++;
    }
  return n;
}

/* Steps from @anchors that end an iteration each (the optimizer's step):
 * from the first outermost slice after the previous one. */
static guint
steps_from_ends (Context *ctx,
                 guint32  thread,
                 GArray  *times,
                 GArray  *anchors)
{
  KsTrace *trace = ctx->trace;
  const KsTrack *track = &trace->tracks[thread];
  guint32 next = 0;    /* position in by_depth[0] */
  guint n = 0;

  for (guint i = 0; i < anchors->len && next < track->n_by_depth[0]; i++)
    {
      guint32 s = g_array_index (anchors, guint32, i);
      gint64 start = MIN (track->start[track->by_depth[0][next]], track->start[s]);

      if (launches_in (times, start, track->end[s]) > 0)
        {
          add_inferred (ctx, thread, s, start, track->end[s]);
          n++;
        }
      /* the next iteration starts after this one's step */
      while (next < track->n_by_depth[0] && track->start[track->by_depth[0][next]] < track->end[s])
        next++;
    }
  return n;
}

/* The first outermost name on @track matching @flag (or with @prefix). */
static guint32
first_named (Context       *ctx,
             const KsTrack *track,
             guint16        flag,
             const char    *prefix)
{
  for (guint32 i = 0; track->max_depth > 0 && i < track->n_by_depth[0]; i++)
    {
      guint32 name = track->name_id[track->by_depth[0][i]];

      if ((flag != 0 && (ctx->name_flags[name] & flag)) ||
          (prefix != NULL && g_str_has_prefix (ks_trace_string (ctx->trace, name), prefix)))
        return name;
    }
  return 0;
}

/* The outermost name on @track that repeats once an iteration: of the
 * names seen at least twice, those with the most common count, the
 * earliest of them. */
static guint32
repeating_name (KsTrace       *trace,
                const KsTrack *track)
{
  g_autoptr(GHashTable) counts = g_hash_table_new (NULL, NULL);
  g_autoptr(GHashTable) of_count = g_hash_table_new (NULL, NULL);
  guint best_count = 0, best_names = 0;

  for (guint32 i = 0; track->max_depth > 0 && i < track->n_by_depth[0]; i++)
    {
      gpointer key = GUINT_TO_POINTER (track->name_id[track->by_depth[0][i]]);

      if (!(ANCHOR_KINDS & KIND_BIT (track->slice_kind[track->by_depth[0][i]])))
        continue;

      g_hash_table_insert (counts, key,
                           GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (counts, key)) + 1));
    }
  {
    GHashTableIter iter;
    gpointer key, value;

    g_hash_table_iter_init (&iter, counts);
    while (g_hash_table_iter_next (&iter, &key, &value))
      {
        guint c = GPOINTER_TO_UINT (value);
        guint k;

        if (c < MIN_REPEATS_ANY)
          continue;
        k = GPOINTER_TO_UINT (g_hash_table_lookup (of_count, value)) + 1;
        g_hash_table_insert (of_count, value, GUINT_TO_POINTER (k));
        /* the most names; on a tie the fewer iterations, the longer ones */
        if (k > best_names || (k == best_names && c < best_count))
          {
            best_names = k;
            best_count = c;
          }
      }
  }
  if (best_count == 0)
    return 0;
  for (guint32 i = 0; i < track->n_by_depth[0]; i++)
    {
      guint32 name = track->name_id[track->by_depth[0][i]];

      if (GPOINTER_TO_UINT (g_hash_table_lookup (counts, GUINT_TO_POINTER (name))) == best_count)
        return name;
    }
  return 0;
}

/* The repeating kernel sequence, for traces with no CPU structure to go
 * by (an Nsight export without NVTX ranges): on the stream with the most
 * kernels, the shortest period of two kernels or more that repeats at
 * least three times up to the stream's last kernel; an iteration starts
 * with the launch call of its first kernel. */
static gboolean
steps_from_kernels (Context *ctx)
{
  KsTrace *trace = ctx->trace;
  g_autoptr(GArray) kernels = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autofree guint32 *launch = NULL;
  guint32 stream = KS_NO_INDEX, *k, n, period = 0, first = 0;
  guint best = 0;

  for (guint d = 0; d < ctx->devices->len; d++)
    {
      DeviceState *ds = &g_array_index (ctx->devices, DeviceState, d);

      for (guint i = 0; i < ds->streams->len; i++)
        {
          guint32 t = g_array_index (ds->streams, guint32, i);
          guint count = 0;

          for (guint32 sl = 0; sl < trace->tracks[t].n_slices; sl++)
            count += trace->tracks[t].slice_kind[sl] == KS_SLICE_KERNEL;
          if (count > best)
            {
              best = count;
              stream = t;
            }
        }
    }
  if (stream == KS_NO_INDEX)
    return FALSE;
  for (guint32 sl = 0; sl < trace->tracks[stream].n_slices; sl++)
    if (trace->tracks[stream].slice_kind[sl] == KS_SLICE_KERNEL)
      g_array_append_val (kernels, sl);
  k = (guint32 *)(gpointer)kernels->data;
  n = kernels->len;
  if (n < 3 * 2)
    return FALSE;

#define NAME(i) (trace->tracks[stream].name_id[k[i]])
  /* periods ending with the last kernel: the distances to its earlier calls */
  for (guint32 j = n - 1; j-- > 0 && 3 * (n - 1 - j) <= n;)
    {
      guint32 p = n - 1 - j, start = n - p;

      if (NAME (j) != NAME (n - 1) || p < 2)
        continue;
      while (start > 0 && NAME (start - 1) == NAME (start - 1 + p))
        start--;
      if ((n - start) / p >= 3)
        {
          period = p;
          first = n - (n - start) / p * p;
          break;
        }
    }
#undef NAME
  if (period == 0)
    return FALSE;

  /* the launch calls of the iterations' first kernels */
  launch = g_new (guint32, trace->tracks[stream].n_slices);
  memset (launch, 0xff, sizeof (guint32) * trace->tracks[stream].n_slices);
  for (guint32 f = 0; f < trace->n_flows; f++)
    if (trace->flows[f].kind == KS_FLOW_LAUNCH && trace->flows[f].to_track == stream &&
        trace->tracks[trace->flows[f].from_track].kind == KS_TRACK_THREAD)
      launch[trace->flows[f].to_slice] = f;
  for (guint32 i = first; i < n; i += period)
    if (launch[k[i]] == KS_NO_INDEX)
      return FALSE;

  for (guint32 i = first; i < n; i += period)
    {
      const KsFlow *flow = &trace->flows[launch[k[i]]];
      gint64 start = trace->tracks[flow->from_track].start[flow->from_slice];
      gint64 end = G_MININT64;

      if (i + period < n)
        {
          const KsFlow *next = &trace->flows[launch[k[i + period]]];

          end = trace->tracks[next->from_track].start[next->from_slice];
        }
      else
        for (guint32 j = i; j < n; j++)
          end = MAX (end, trace->tracks[stream].end[k[j]]);
      if (end <= start)
        {
          g_array_set_size (ctx->step_refs, 0);
          return FALSE;
        }
      add_inferred (ctx, flow->from_track, flow->from_slice, start, end);
    }
  ctx->step_rule = N_("the repeating kernel sequence");
  ctx->step_rule_name = trace->tracks[stream].name_id[k[first]];
  return TRUE;
}

void
_ks_context_infer_steps (Context *ctx)
{
  KsTrace *trace = ctx->trace;
  guint32 thread = main_thread_track (trace);
  g_autoptr(GArray) times = NULL;
  const KsTrack *track;
  guint32 name;

  if (thread == KS_NO_INDEX || trace->tracks[thread].max_depth == 0)
    return;
  track = &trace->tracks[thread];
  times = launch_times (trace, thread);

  /* the DataLoader's next batch starts one */
  name = first_named (ctx, track, NAME_DATALOADER, NULL);
  if (name != 0)
    {
      g_autoptr(GArray) anchors = outermost_named (track, name);

      if (anchors->len >= MIN_REPEATS && steps_from_starts (ctx, thread, thread, times, anchors) >= MIN_REPEATS)
        {
          ctx->step_rule = N_("the DataLoader's batches");
          ctx->step_rule_name = name;
          return;
        }
      g_array_set_size (ctx->step_refs, 0);
    }

  /* the optimizer's step ends an iteration */
  name = first_named (ctx, track, 0, "Optimizer.step#");
  if (name != 0)
    {
      g_autoptr(GArray) anchors = outermost_named (track, name);

      if (anchors->len >= MIN_REPEATS && steps_from_ends (ctx, thread, times, anchors) >= MIN_REPEATS)
        {
          ctx->step_rule = N_("the optimizer's step");
          ctx->step_rule_name = name;
          return;
        }
      g_array_set_size (ctx->step_refs, 0);
    }

  /* an NVTX range of the thread that repeats */
  if (track->thread < trace->n_threads && ctx->nvtx_of_thread[track->thread] != KS_NO_INDEX)
    {
      guint32 nvtx = ctx->nvtx_of_thread[track->thread];

      name = repeating_name (trace, &trace->tracks[nvtx]);
      if (name != 0)
        {
          g_autoptr(GArray) anchors = outermost_named (&trace->tracks[nvtx], name);

          if (steps_from_starts (ctx, nvtx, thread, times, anchors) >= MIN_REPEATS_ANY)
            {
              ctx->step_rule = N_("an NVTX range that repeats");
              ctx->step_rule_name = name;
              return;
            }
          g_array_set_size (ctx->step_refs, 0);
        }
    }

  /* the outermost operator that repeats */
  name = repeating_name (trace, track);
  if (name != 0)
    {
      g_autoptr(GArray) anchors = outermost_named (track, name);

      if (steps_from_starts (ctx, thread, thread, times, anchors) >= MIN_REPEATS_ANY)
        {
          ctx->step_rule = N_("the outermost operator that repeats");
          ctx->step_rule_name = name;
          return;
        }
      g_array_set_size (ctx->step_refs, 0);
    }

  steps_from_kernels (ctx);
}

char *
ks_analysis_dup_step_name (KsAnalysis *self,
                           KsTrace    *trace,
                           guint       index)
{
  const KsStep *step;

  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  g_return_val_if_fail (index < self->steps->len, NULL);

  step = &g_array_index (self->steps, KsStep, index);
  if (!step->inferred)
    return g_strdup (ks_trace_string (trace, step->name));
  /* a trace's steps are all inferred or none, from one thread: numbered
   * in order from 0, like a loop's "step N" */
  return g_strdup_printf ("step %u", index);
}
