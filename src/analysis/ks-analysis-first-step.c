/* ks-analysis-first-step.c: where a process's first step starts on the
 * GPU's side
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include <string.h>

#include "ks-analysis-private.h"

/* The step of @steps (indexes @idx, in host start order) whose host span
 * holds @ts, or KS_NO_INDEX. */
static guint
step_at (const KsStep *steps,
         const guint  *idx,
         guint         n,
         gint64        ts)
{
  guint lo = 0, hi = n;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (steps[idx[mid]].host_start <= ts)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0 || ts >= steps[idx[lo - 1]].host_end)
    return KS_NO_INDEX;
  return idx[lo - 1];
}

static int
compare_host_start (gconstpointer a,
                    gconstpointer b,
                    gpointer      user_data)
{
  const KsStep *steps = user_data;
  const KsStep *sa = &steps[*(const guint *)a];
  const KsStep *sb = &steps[*(const guint *)b];

  return (sa->host_start > sb->host_start) - (sa->host_start < sb->host_start);
}

/* A step's span runs from its host start, so a first step that launches
 * its first kernel while the GPU still runs work from before the steps
 * (a warm-up, the model's initialisation) counts that wait as its own.
 * The TensorBoard plugin starts it where that earlier work ends. */
void
_ks_steps_after_earlier_gpu_work (Context *ctx)
{
  KsTrace *trace = ctx->trace;
  KsStep *steps = (KsStep *)(gpointer)ctx->step_refs->data;
  guint n = ctx->step_refs->len;
  guint np = trace->n_processes + 1;   /* the last: steps of no process */
  g_autofree guint *by_process = NULL; /* step indexes by (process, host start) */
  g_autofree guint *first = NULL;      /* per process: its first entry in by_process */
  g_autofree gint64 *device_start = NULL; /* per process: its first step's first GPU work */
  g_autofree gint64 *earlier_end = NULL;  /* per process: the end of the earlier work */
  g_autofree guint8 **in_step = NULL;  /* per stream track: launched inside a step */

  if (n == 0)
    return;

  by_process = g_new (guint, n);
  first = g_new0 (guint, np + 1);
  for (guint i = 0; i < n; i++)
    {
      guint32 p = trace->tracks[steps[i].track].process;

      first[MIN (p, np - 1) + 1]++;
    }
  for (guint p = 1; p <= np; p++)
    first[p] += first[p - 1];
  {
    g_autofree guint *fill = g_memdup2 (first, sizeof (guint) * (np + 1));

    for (guint i = 0; i < n; i++)
      by_process[fill[MIN (trace->tracks[steps[i].track].process, np - 1)]++] = i;
  }
  for (guint p = 0; p < np; p++)
    g_qsort_with_data (by_process + first[p], first[p + 1] - first[p], sizeof (guint),
                       compare_host_start, steps);

  device_start = g_new (gint64, np);
  earlier_end = g_new (gint64, np);
  for (guint p = 0; p < np; p++)
    device_start[p] = earlier_end[p] = G_MAXINT64;

  /* The work each step launched; its first step's earliest. */
  in_step = g_new0 (guint8 *, MAX (trace->n_tracks, 1));
  for (guint32 f = 0; f < trace->n_flows; f++)
    {
      const KsFlow *flow = &trace->flows[f];
      const KsTrack *from = &trace->tracks[flow->from_track];
      const KsTrack *to = &trace->tracks[flow->to_track];
      guint p, step;

      if (flow->kind != KS_FLOW_LAUNCH || to->kind != KS_TRACK_STREAM || from->kind != KS_TRACK_THREAD ||
          !_ks_context_device_wanted (ctx, to->device) ||
          !(GPU_WORK_KINDS & KIND_BIT (to->slice_kind[flow->to_slice])))
        continue;
      p = MIN (from->process, np - 1);
      step = step_at (steps, by_process + first[p], first[p + 1] - first[p], from->start[flow->from_slice]);
      if (step == KS_NO_INDEX)
        continue;
      if (in_step[flow->to_track] == NULL)
        in_step[flow->to_track] = g_new0 (guint8, MAX (to->n_slices, 1));
      in_step[flow->to_track][flow->to_slice] = 1;
      if (step == by_process[first[p]])
        device_start[p] = MIN (device_start[p], to->start[flow->to_slice]);
    }

  /* The work no step launched, on the streams of the process's file,
   * that ended before that: the latest end. */
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind != KS_TRACK_STREAM || !_ks_context_device_wanted (ctx, track->device))
        continue;
      for (guint p = 0; p < np; p++)
        {
          gint64 before = device_start[p];
          gint64 latest = G_MININT64;

          if (first[p] == first[p + 1] || before == G_MAXINT64 ||
              trace->tracks[steps[by_process[first[p]]].track].group != track->group)
            continue;
          for (guint32 s = 0; s < track->n_slices && track->start[s] < before; s++)
            if ((GPU_WORK_KINDS & KIND_BIT (track->slice_kind[s])) && track->end[s] < before &&
                (in_step[t] == NULL || !in_step[t][s]))
              latest = MAX (latest, track->end[s]);
          if (latest != G_MININT64)
            earlier_end[p] = earlier_end[p] == G_MAXINT64 ? latest : MAX (earlier_end[p], latest);
        }
    }

  for (guint p = 0; p < np; p++)
    {
      KsStep *step;

      if (first[p] == first[p + 1] || earlier_end[p] == G_MAXINT64)
        continue;
      step = &steps[by_process[first[p]]];
      step->start = MAX (step->start, earlier_end[p]);
      step->end = MAX (step->end, step->start);
    }

  for (guint32 t = 0; t < trace->n_tracks; t++)
    g_free (in_step[t]);
}
