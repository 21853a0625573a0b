/* ks-analysis-overview.c: GPU busy time, window, utilization, launch
 * latency and the step-time breakdown
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include <string.h>

#include "ks-analysis-private.h"

#define MAX_UTIL_BUCKETS 200

/* @set |= the union of @kinds over @tracks (sealed afterwards). */
static void
union_of_tracks (Context       *ctx,
                 const guint32 *tracks,
                 guint          n_tracks,
                 guint32        kinds,
                 guint16        need_flags,
                 guint16        skip_flags,
                 KsRangeSet    *set)
{
  for (guint i = 0; i < n_tracks; i++)
    {
      const KsTrack *track = &ctx->trace->tracks[tracks[i]];
      KsRangeSet one, merged;

      ks_range_set_init (&one);
      if (need_flags == 0 && skip_flags == 0)
        {
          ks_range_set_add_track (&one, track, kinds);
        }
      else
        {
          gint64 cur_s = 0, cur_e = 0;
          gboolean open = FALSE;

          for (guint32 s = 0; s < track->n_slices; s++)
            {
              guint16 flags;

              if (!(kinds & KIND_BIT (track->slice_kind[s])))
                continue;
              flags = ctx->name_flags[track->name_id[s]];
              if ((flags & need_flags) != need_flags || (flags & skip_flags) != 0)
                continue;
              if (track->end[s] <= track->start[s])
                continue;
              if (open && track->start[s] <= cur_e)
                {
                  cur_e = MAX (cur_e, track->end[s]);
                  continue;
                }
              if (open)
                ks_range_set_add (&one, cur_s, cur_e);
              cur_s = track->start[s];
              cur_e = track->end[s];
              open = TRUE;
            }
          if (open)
            ks_range_set_add (&one, cur_s, cur_e);
        }

      if (set->n == 0)
        {
          ks_range_set_clear (set);
          *set = one;
          continue;
        }
      ks_range_set_seal (&one);
      ks_range_set_union (set, &one, &merged);
      ks_range_set_clear (set);
      ks_range_set_clear (&one);
      *set = merged;
    }
  ks_range_set_seal (set);
}

static gboolean
group_in (GArray  *groups,
          guint32  group)
{
  for (guint i = 0; i < groups->len; i++)
    if (g_array_index (groups, guint32, i) == group)
      return TRUE;
  return FALSE;
}

/* The smallest 1-2-5 × 1 µs bucket that covers @extent in
 * MAX_UTIL_BUCKETS; divided, not multiplied, so that a trace spanning
 * centuries (a damaged timestamp) cannot overflow. */
static gint64
nice_bucket (gint64 extent)
{
  static const int mult[] = { 1, 2, 5 };
  gint64 need = extent / MAX_UTIL_BUCKETS + (extent % MAX_UTIL_BUCKETS != 0);
  gint64 unit = 1000;

  while (unit <= G_MAXINT64 / 10)
    {
      for (guint i = 0; i < G_N_ELEMENTS (mult); i++)
        if (unit * mult[i] >= need)
          return unit * mult[i];
      unit *= 10;
    }
  return need;
}

gboolean
_ks_launch_wait (Context *ctx,
                 guint32  track,
                 guint32  slice,
                 gint64   busy_until,
                 gint64  *latency,
                 gint64  *queue,
                 gboolean *early)
{
  const guint32 *launch = ctx->launch_of_gpu[track];
  const KsTrack *t = &ctx->trace->tracks[track];
  const KsFlow *flow;
  gint64 api_end, start = t->start[slice];

  if (launch == NULL || launch[slice] == KS_NO_INDEX)
    return FALSE;
  flow = &ctx->trace->flows[launch[slice]];
  api_end = ctx->trace->tracks[flow->from_track].end[flow->from_slice];

  /* The stream still busy as the call returned: queueing until that
   * work ends, then latency. */
  *queue = busy_until > api_end && start > api_end ? MIN (busy_until, start) - api_end : 0;
  *latency = MAX (start - MAX (api_end, busy_until), 0);
  *early = start < api_end;
  return TRUE;
}

static void
latency_finish (KsLaunchLatency *lat,
                GArray          *values)
{
  gint64 *v = (gint64 *)(gpointer)values->data;
  gsize n = values->len;
  const gint64 *edges = ks_analysis_latency_bucket_edges (NULL);
  double sum = 0;

  lat->count = n;
  if (n == 0)
    return;

  lat->min_ns = G_MAXINT64;
  lat->max_ns = 0;
  for (gsize i = 0; i < n; i++)
    {
      guint lo = 0, hi = KS_LATENCY_N_BUCKETS;

      sum += v[i];
      lat->min_ns = MIN (lat->min_ns, v[i]);
      lat->max_ns = MAX (lat->max_ns, v[i]);
      /* last edge <= v */
      while (hi - lo > 1)
        {
          guint mid = (lo + hi) / 2;

          if (edges[mid] <= v[i])
            lo = mid;
          else
            hi = mid;
        }
      lat->histogram[lo]++;
    }
  lat->mean_ns = sum / n;
  lat->p50_ns = _ks_select_nth (v, n, (n - 1) * 50 / 100);
  lat->p90_ns = _ks_select_nth (v, n, (n - 1) * 90 / 100);
  lat->p99_ns = _ks_select_nth (v, n, (n - 1) * 99 / 100);
}

/* The TensorBoard profiler's GPU summary estimates, over each kernel's
 * time inside the window: SM efficiency is the sum of min(blocks / SMs, 1)
 * × time over the window, so idle time lowers it; occupancy is the
 * time-weighted mean, so idle time does not. */
static void
kernel_estimates (Context      *ctx,
                  DeviceState  *ds,
                  const KsGpu  *gpu,
                  KsGpuSummary *sum)
{
  KsTrace *trace = ctx->trace;
  gint64 window = ks_range_set_total (&ds->window);
  double sm_sum = 0, occ_sum = 0, occ_weight = 0;
  gboolean have_sm = FALSE;
  g_autoptr(GString) args = g_string_new (NULL);

  sum->est_sm_efficiency_pct = -1;
  sum->est_occupancy_pct = -1;
  for (guint i = 0; i < ds->streams->len; i++)
    {
      const KsTrack *track = &trace->tracks[g_array_index (ds->streams, guint32, i)];

      for (guint32 s = 0; s < track->n_slices; s++)
        {
          double occ, sm_eff;
          gint64 inside;

          if (track->slice_kind[s] != KS_SLICE_KERNEL)
            continue;
          inside = ks_range_set_measure (&ds->window, track->start[s], track->end[s]);
          if (inside <= 0)
            continue;
          _ks_kernel_estimates (trace, track, gpu, s, args, &occ, &sm_eff);
          if (sm_eff >= 0)
            {
              sm_sum += sm_eff * inside;
              have_sm = TRUE;
            }
          if (occ >= 0)
            {
              occ_sum += occ * inside;
              occ_weight += inside;
            }
        }
    }
  if (have_sm && window > 0)
    sum->est_sm_efficiency_pct = MIN (sm_sum / window, 100.0);
  if (occ_weight > 0)
    sum->est_occupancy_pct = occ_sum / occ_weight;
}

/* HTA's temporal breakdown: NCCL kernels are communication, the rest of
 * the kernels computation; copies and memsets are neither. */
static void
temporal_breakdown (Context      *ctx,
                    DeviceState  *ds,
                    KsGpuSummary *sum)
{
  const guint32 *streams = (const guint32 *)(gpointer)ds->streams->data;
  KsRangeSet compute;

  if (ds->activity.n == 0)
    return;
  ks_range_set_init (&compute);
  /* without NCCL every kernel computes: the kernels' union is known */
  if (ctx->have_nccl)
    union_of_tracks (ctx, streams, ds->streams->len, KIND_BIT (KS_SLICE_KERNEL), 0, NAME_NCCL, &compute);
  sum->span_ns = ds->activity.r[ds->activity.n - 1].end - ds->activity.r[0].start;
  sum->compute_ns = ks_range_set_total (ctx->have_nccl ? &compute : &ds->kernels);
  sum->non_compute_ns = ks_range_set_total (&ds->activity) - sum->compute_ns;
  sum->idle_ns = sum->span_ns - sum->compute_ns - sum->non_compute_ns;
  ks_range_set_clear (&compute);
}

/* A trace without GPU work but with sampled utilization (an nvidia-smi
 * log, a recording's NVML rows alone): the buckets get the GPUs' mean
 * utilization. FALSE when it has no such row. */
static gboolean
sampled_utilization (Context     *ctx,
                     KsTraceBusy *tb,
                     gint64       span)
{
  KsTrace *trace = ctx->trace;
  guint32 name = ks_trace_lookup_string (trace, "GPU utilization");
  guint n = 0;

  for (guint32 k = 0; name != 0 && name != KS_NO_INDEX && k < trace->n_counters; k++)
    {
      const KsCounter *c = &trace->counters[k];

      if (c->name != name || c->device < 0 || c->process < trace->n_processes || c->n_samples == 0)
        continue;
      n++;
      for (guint32 i = 0; i < c->n_samples; i++)
        {
          gint64 s = MAX (c->ts[i], 0);
          gint64 e = MIN (c->ts[i] + MAX (_ks_sample_hold (c, i), 0), span);
          double v = CLAMP (c->value[i], 0, 100) / 100.0;

          for (gint64 b = s / tb->bucket_ns; s < e && b < tb->n_buckets && b * tb->bucket_ns < e; b++)
            {
              gint64 b0 = b * tb->bucket_ns;
              gint64 b1 = MIN (b0 + tb->bucket_ns, span);

              tb->busy[b] += v * (double)(MIN (e, b1) - MAX (s, b0));
            }
        }
    }
  if (n == 0)
    return FALSE;
  for (guint b = 0; b < tb->n_buckets; b++)
    {
      gint64 b0 = b * tb->bucket_ns;
      gint64 b1 = MIN (b0 + tb->bucket_ns, span);

      tb->busy[b] /= (double)(b1 - b0) * n;
    }
  return TRUE;
}

/* The whole trace in KS_TRACE_BUSY_BUCKETS buckets, measured on the same
 * busy sets as the GPU summaries. */
static void
trace_busy (KsAnalysis *self,
            Context    *ctx)
{
  KsTrace *trace = ctx->trace;
  KsTraceBusy *tb = &self->trace_busy;
  gint64 span = MAX (1, trace->duration_ns);
  KsRangeSet cpu;

  tb->bucket_ns = span / KS_TRACE_BUSY_BUCKETS + (span % KS_TRACE_BUSY_BUCKETS != 0);
  tb->n_buckets = (guint)(span / tb->bucket_ns + (span % tb->bucket_ns != 0));
  tb->busy = g_new0 (double, tb->n_buckets);
  tb->gpu = ctx->devices->len > 0;
  if (!tb->gpu && sampled_utilization (ctx, tb, span))
    {
      tb->utilization = TRUE;
      return;
    }

  ks_range_set_init (&cpu);
  if (!tb->gpu)
    {
      g_autoptr(GArray) ranges = g_array_new (FALSE, FALSE, sizeof (KsTimeRange));

      /* Top-level slices only: the nested ones lie inside them. */
      for (guint32 t = 0; t < trace->n_tracks; t++)
        {
          const KsTrack *track = &trace->tracks[t];

          if (track->kind != KS_TRACK_THREAD || track->max_depth == 0)
            continue;
          for (guint32 k = 0; k < track->n_by_depth[0]; k++)
            {
              guint32 s = track->by_depth[0][k];
              KsTimeRange r = { track->start[s], track->end[s] };

              g_array_append_val (ranges, r);
            }
        }
      ks_range_set_add_unsorted (&cpu, (KsTimeRange *)(gpointer)ranges->data, ranges->len);
    }
  ks_range_set_seal (&cpu);

  for (guint b = 0; b < tb->n_buckets; b++)
    {
      gint64 b0 = b * tb->bucket_ns;
      gint64 b1 = MIN (b0 + tb->bucket_ns, span);
      double sum = 0;

      if (!tb->gpu)
        sum = ks_range_set_measure (&cpu, b0, b1);
      for (guint d = 0; d < ctx->devices->len; d++)
        sum += ks_range_set_measure (&g_array_index (ctx->devices, DeviceState, d).busy, b0, b1);
      tb->busy[b] = sum / ((double)(b1 - b0) * MAX (1u, ctx->devices->len));
    }
  ks_range_set_clear (&cpu);
}

void
_ks_analysis_overview (KsAnalysis *self,
                       Context    *ctx)
{
  KsTrace *trace = ctx->trace;
  g_autoptr(GArray) all_latencies = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) all_queues = g_array_new (FALSE, FALSE, sizeof (gint64));
  guint32 busy_kinds = ks_analysis_options_busy_kinds (&ctx->options);

  for (guint d = 0; d < ctx->devices->len; d++)
    {
      DeviceState *ds = &g_array_index (ctx->devices, DeviceState, d);
      const guint32 *streams = (const guint32 *)(gpointer)ds->streams->data;
      g_autoptr(GArray) latencies = g_array_new (FALSE, FALSE, sizeof (gint64));
      g_autoptr(GArray) queues = g_array_new (FALSE, FALSE, sizeof (gint64));
      const KsGpu *gpu = ks_trace_find_gpu (trace, ds->device);
      KsGpuSummary sum;

      memset (&sum, 0, sizeof sum);
      sum.device = ds->device;
      if (gpu != NULL)
        {
          sum.name = gpu->name;
          sum.total_memory = gpu->total_memory;
        }

      union_of_tracks (ctx, streams, ds->streams->len, KIND_BIT (KS_SLICE_KERNEL), 0, 0, &ds->kernels);
      union_of_tracks (ctx, streams, ds->streams->len, busy_kinds, 0, 0, &ds->busy);
      union_of_tracks (ctx, streams, ds->streams->len, GPU_WORK_KINDS, 0, 0, &ds->activity);

      for (guint i = 0; i < ds->streams->len; i++)
        {
          guint32 t = streams[i];
          const KsTrack *track = &trace->tracks[t];
          gint64 stream_end = G_MININT64;   /* of the earlier work on this stream */

          for (guint32 s = 0; s < track->n_slices; s++)
            {
              gint64 dur = track->end[s] - track->start[s];
              gint64 busy_until = stream_end;

              if (GPU_WORK_KINDS & KIND_BIT (track->slice_kind[s]))
                stream_end = MAX (stream_end, track->end[s]);
              /* the counts and latencies are the steady state's */
              if (_ks_context_in_warmup (ctx, track->start[s]))
                continue;

              switch ((KsSliceKind)track->slice_kind[s])
                {
                case KS_SLICE_KERNEL:
                  sum.n_kernels++;
                  sum.kernel_time_ns += dur;
                  {
                    gint64 lat, queue;
                    gboolean early;

                    if (_ks_launch_wait (ctx, t, s, busy_until, &lat, &queue, &early))
                      {
                        if (early)
                          sum.latency.n_clamped++;
                        g_array_append_val (latencies, lat);
                        g_array_append_val (queues, queue);
                      }
                  }
                  break;
                case KS_SLICE_MEMCPY:
                  sum.n_memcpy++;
                  sum.memcpy_time_ns += dur;
                  break;
                case KS_SLICE_MEMSET:
                  sum.n_memset++;
                  sum.memset_time_ns += dur;
                  break;
                case KS_SLICE_GENERIC:
                case KS_SLICE_CPU_OP:
                case KS_SLICE_PYTHON:
                case KS_SLICE_USER_ANNOTATION:
                case KS_SLICE_CUDA_RUNTIME:
                case KS_SLICE_CUDA_DRIVER:
                case KS_SLICE_NVTX:
                case KS_SLICE_OSRT:
                case KS_SLICE_ASYNC:
                case KS_SLICE_GPU_ANNOTATION:
                case KS_SLICE_SYNC:
                case KS_SLICE_SAMPLE:
                case KS_N_SLICE_KINDS:
                default:
                  break;
                }
            }
        }

      /* The window: this device's process group's steps */
      for (guint i = 0; i < ctx->step_refs->len; i++)
        {
          const KsStep *step = &g_array_index (ctx->step_refs, KsStep, i);

          /* inferred steps leave the window as HTA's: busy % stays comparable */
          if ((ctx->skip_warmup && step->warmup) || step->inferred)
            continue;
          if (group_in (ds->groups, trace->tracks[step->track].group))
            ks_range_set_add (&ds->window, step->start, step->end);
        }
      sum.window_is_steps = ds->window.n > 0;
      if (!sum.window_is_steps && ds->activity.n > 0)
        {
          gint64 from = ds->activity.r[0].start;
          gint64 to = ds->activity.r[ds->activity.n - 1].end;

          /* an inferred warm-up is the leading steps: the window starts after */
          if (ctx->skip_warmup)
            from = MAX (from, MIN (ctx->warmup_set.r[ctx->warmup_set.n - 1].end, to));
          ks_range_set_add (&ds->window, from, to);
        }
      ks_range_set_seal (&ds->window);

      kernel_estimates (ctx, ds, gpu, &sum);
      temporal_breakdown (ctx, ds, &sum);
      sum.busy_ns = ks_range_set_total (&ds->busy);
      sum.window_ns = ks_range_set_total (&ds->window);
      sum.busy_in_window_ns = ks_range_set_measure_set (&ds->busy, &ds->window);
      sum.busy_pct = sum.window_ns > 0 ? 100.0 * sum.busy_in_window_ns / sum.window_ns : 0.0;

      if (ds->window.n > 0)
        {
          gint64 extent;

          sum.window_start = ds->window.r[0].start;
          sum.window_end = ds->window.r[ds->window.n - 1].end;
          extent = sum.window_end - sum.window_start;
          sum.util_start = sum.window_start;
          sum.util_bucket_ns = nice_bucket (extent);
          sum.n_util = (guint)((extent + sum.util_bucket_ns - 1) / sum.util_bucket_ns);
          sum.util = g_new0 (double, MAX (sum.n_util, 1));
          for (guint b = 0; b < sum.n_util; b++)
            {
              gint64 b0 = sum.util_start + b * sum.util_bucket_ns;
              gint64 b1 = MIN (b0 + sum.util_bucket_ns, sum.window_end);

              if (b1 > b0)
                sum.util[b] = (double)ks_range_set_measure (&ds->busy, b0, b1) / (b1 - b0);
            }
        }

      g_array_append_vals (all_latencies, latencies->data, latencies->len);
      g_array_append_vals (all_queues, queues->data, queues->len);
      self->latency.n_clamped += sum.latency.n_clamped;
      latency_finish (&sum.latency, latencies);
      latency_finish (&sum.queue, queues);

      g_array_append_val (self->gpus, sum);
    }

  latency_finish (&self->latency, all_latencies);
  latency_finish (&self->queue, all_queues);
  trace_busy (self, ctx);
}

/* Step breakdown */

typedef struct
{
  guint32    process;
  KsRangeSet cum[KS_N_STEP_PARTS - 1];   /* cumulative unions, part 0..5 */
} StepSets;

static void
step_sets_build (Context  *ctx,
                 StepSets *sets,
                 guint32   process)
{
  KsTrace *trace = ctx->trace;
  g_autoptr(GArray) streams = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) threads = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) nvtx = g_array_new (FALSE, FALSE, sizeof (guint32));
  guint32 group = trace->processes[process].group;
  KsRangeSet parts[KS_N_STEP_PARTS - 1];

  sets->process = process;

  for (guint d = 0; d < ctx->devices->len; d++)
    {
      DeviceState *ds = &g_array_index (ctx->devices, DeviceState, d);

      for (guint i = 0; i < ds->streams->len; i++)
        {
          guint32 t = g_array_index (ds->streams, guint32, i);

          if (trace->tracks[t].group == group)
            g_array_append_val (streams, t);
        }
    }
  for (guint32 t = 0; t < trace->n_tracks; t++)
    if (trace->tracks[t].process == process)
      {
        if (trace->tracks[t].kind == KS_TRACK_THREAD)
          g_array_append_val (threads, t);
        else if (trace->tracks[t].kind == KS_TRACK_NVTX)
          g_array_append_val (nvtx, t);
      }

  for (guint i = 0; i < G_N_ELEMENTS (parts); i++)
    ks_range_set_init (&parts[i]);

  union_of_tracks (ctx, (guint32 *)(gpointer)streams->data, streams->len,
                   KIND_BIT (KS_SLICE_KERNEL), 0, 0, &parts[KS_STEP_KERNEL]);
  union_of_tracks (ctx, (guint32 *)(gpointer)streams->data, streams->len,
                   KIND_BIT (KS_SLICE_MEMCPY), 0, 0, &parts[KS_STEP_MEMCPY]);
  union_of_tracks (ctx, (guint32 *)(gpointer)streams->data, streams->len,
                   KIND_BIT (KS_SLICE_MEMSET), 0, 0, &parts[KS_STEP_MEMSET]);
  union_of_tracks (ctx, (guint32 *)(gpointer)threads->data, threads->len,
                   KIND_BIT (KS_SLICE_CUDA_RUNTIME) | KIND_BIT (KS_SLICE_CUDA_DRIVER), 0, 0,
                   &parts[KS_STEP_RUNTIME]);
  union_of_tracks (ctx, (guint32 *)(gpointer)threads->data, threads->len,
                   KIND_BIT (KS_SLICE_CPU_OP) | KIND_BIT (KS_SLICE_USER_ANNOTATION) | KIND_BIT (KS_SLICE_GENERIC),
                   NAME_DATALOADER, 0, &parts[KS_STEP_DATALOADER]);
  union_of_tracks (ctx, (guint32 *)(gpointer)threads->data, threads->len,
                   KIND_BIT (KS_SLICE_CPU_OP) | KIND_BIT (KS_SLICE_USER_ANNOTATION),
                   0, NAME_PROFILER_STEP, &parts[KS_STEP_CPU_EXEC]);
  /* A recording's annotations are its NVTX ranges, the steps aside. */
  union_of_tracks (ctx, (guint32 *)(gpointer)nvtx->data, nvtx->len,
                   KIND_BIT (KS_SLICE_NVTX), 0, NAME_STEP_RANGE, &parts[KS_STEP_CPU_EXEC]);

  sets->cum[0] = parts[0];
  for (guint i = 1; i < G_N_ELEMENTS (parts); i++)
    {
      ks_range_set_union (&sets->cum[i - 1], &parts[i], &sets->cum[i]);
      ks_range_set_clear (&parts[i]);
    }
}

void
_ks_analysis_steps (KsAnalysis *self,
                    Context    *ctx)
{
  KsTrace *trace = ctx->trace;
  g_autoptr(GArray) all_sets = g_array_new (FALSE, TRUE, sizeof (StepSets));

  for (guint i = 0; i < ctx->step_refs->len; i++)
    {
      KsStep step = g_array_index (ctx->step_refs, KsStep, i);
      const KsTrack *track = &trace->tracks[step.track];
      StepSets *sets = NULL;
      gint64 prev = 0;

      /* Steps of processes whose GPUs were filtered out are left out. */
      if (ctx->options.device >= 0)
        {
          gboolean wanted = FALSE;

          for (guint d = 0; d < ctx->devices->len; d++)
            if (group_in (g_array_index (ctx->devices, DeviceState, d).groups, track->group))
              wanted = TRUE;
          if (!wanted)
            continue;
        }

      for (guint j = 0; j < all_sets->len; j++)
        if (g_array_index (all_sets, StepSets, j).process == track->process)
          sets = &g_array_index (all_sets, StepSets, j);
      if (sets == NULL && track->process != KS_NO_INDEX)
        {
          g_array_set_size (all_sets, all_sets->len + 1);
          sets = &g_array_index (all_sets, StepSets, all_sets->len - 1);
          step_sets_build (ctx, sets, track->process);
        }
      if (sets == NULL)
        continue;

      for (guint p = 0; p < KS_N_STEP_PARTS - 1; p++)
        {
          gint64 m = ks_range_set_measure (&sets->cum[p], step.start, step.end);

          step.parts[p] = m - prev;
          prev = m;
        }
      step.parts[KS_STEP_OTHER] = (step.end - step.start) - prev;
      g_array_append_val (self->steps, step);
    }

  for (guint j = 0; j < all_sets->len; j++)
    for (guint p = 0; p < KS_N_STEP_PARTS - 1; p++)
      ks_range_set_clear (&g_array_index (all_sets, StepSets, j).cum[p]);
}
