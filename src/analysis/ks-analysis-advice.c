/* ks-analysis-advice.c: rules with thresholds, in the spirit of Nsight
 * Systems' expert rules and the TensorBoard profiler's recommendations
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "ks-analysis-private.h"
#include "ks-format.h"

#define LOW_BUSY_PCT          50.0   /* TensorBoard: utilization < 0.5 */
#define DATALOADER_SHARE      0.05   /* TensorBoard: DataLoader > 5 % of step time */
#define TINY_KERNEL_NS        10000  /* median kernel shorter than 10 µs */
#define TC_SHARE              0.01   /* eligible float32 work >= 1 % of kernel time */
#define MEMORY_NEAR_CAPACITY  0.90   /* TensorBoard: peak > 90 % of device memory */
#define MAX_RANGES            5

typedef struct
{
  gint64  dur;
  gint64  start;
  gint64  end;
  guint32 name;
} Place;

static int
compare_places (gconstpointer a,
                gconstpointer b)
{
  const Place *pa = a;
  const Place *pb = b;

  if (pa->dur != pb->dur)
    return pa->dur > pb->dur ? -1 : 1;
  return (pa->start > pb->start) - (pa->start < pb->start);
}

static KsAdvice *
add_advice (KsAnalysis *self,
            const char *rule,
            gint32      device,
            char       *title,
            char       *text,
            char       *evidence)
{
  KsAdvice advice;

  memset (&advice, 0, sizeof advice);
  advice.rule = rule;
  advice.device = device;
  advice.title = title;
  advice.text = text;
  advice.evidence = evidence;
  g_array_append_val (self->advice, advice);
  return &g_array_index (self->advice, KsAdvice, self->advice->len - 1);
}

KsAdvice *
_ks_analysis_add_advice (KsAnalysis *self,
                         const char *rule,
                         gint32      device,
                         char       *title,
                         char       *text,
                         char       *evidence)
{
  return add_advice (self, rule, device, title, text, evidence);
}

/* Keeps the longest places as the advice's ranges. */
static void
set_ranges (KsAdvice *advice,
            GArray   *places)
{
  g_array_sort (places, compare_places);
  advice->n_ranges = MIN (places->len, MAX_RANGES);
  advice->ranges = g_new (KsTimeRange, MAX (advice->n_ranges, 1));
  for (guint i = 0; i < advice->n_ranges; i++)
    {
      advice->ranges[i].start = g_array_index (places, Place, i).start;
      advice->ranges[i].end = g_array_index (places, Place, i).end;
    }
  if (places->len > 0)
    advice->highlight_name = g_array_index (places, Place, 0).name;
}

static void
add_place (GArray  *places,
           gint64   start,
           gint64   end,
           guint32  name)
{
  Place p = { end - start, start, end, name };

  g_array_append_val (places, p);
}

static void
rule_low_busy (KsAnalysis *self,
               Context    *ctx)
{
  const KsGap *gaps = (const KsGap *)(gpointer)self->gaps->data;

  for (guint i = 0; i < self->gpus->len; i++)
    {
      const KsGpuSummary *gpu = &g_array_index (self->gpus, KsGpuSummary, i);
      g_autoptr(GArray) places = NULL;
      g_autofree char *busy = NULL;
      g_autofree char *window = NULL;
      g_autofree char *gap_total = NULL;
      KsAdvice *advice;

      if (gpu->window_ns <= 0 || gpu->busy_pct >= LOW_BUSY_PCT)
        continue;

      busy = ks_time_format_duration (gpu->busy_in_window_ns);
      window = ks_time_format_duration (gpu->window_ns);
      gap_total = ks_time_format_duration (gpu->gap_total_ns);
      advice = add_advice (self, "low-gpu-busy", gpu->device,
                           g_strdup_printf (_("GPU %d is idle most of the time"), gpu->device),
                           g_strdup_printf (_("GPU %d runs kernels only %.1f %% of the time. The idle gaps show what the CPU was doing instead. A larger batch size may help; note that it can affect the speed and stability of convergence."),
                                            gpu->device, gpu->busy_pct),
                           g_strdup_printf (_("Busy %s of a %s window; %u idle gaps longer than the threshold, %s in total."),
                                            busy, window, gpu->n_gaps, gap_total));
      advice->value = gpu->busy_pct / 100.0;

      places = g_array_new (FALSE, FALSE, sizeof (Place));
      for (guint g = 0; g < self->gaps->len; g++)
        if (gaps[g].device == gpu->device)
          add_place (places, gaps[g].start, gaps[g].end, 0);
      set_ranges (advice, places);
      advice->highlight_name = 0;
    }
}

/* Where there are no kernels to measure (a log of nvidia-smi, NVML rows
 * alone), the sampled utilization says the same as low-gpu-busy. */
#define POOR_UTILIZATION_SHARE 25.0   /* % of the run under KS_UTILIZATION_POOR_PCT */

static void
rule_low_utilization (KsAnalysis *self,
                      Context    *ctx)
{
  const KsIdleStretch *stretches = (const KsIdleStretch *)(gpointer)self->idle_stretches->data;

  for (guint i = 0; i < self->utilization->len; i++)
    {
      const KsGpuUtilization *u = &g_array_index (self->utilization, KsGpuUtilization, i);
      const KsGpuSummary *gpu = ks_analysis_get_gpu (self, u->device);
      g_autoptr(GArray) places = NULL;
      g_autofree char *below = NULL;
      g_autofree char *run = NULL;
      g_autofree char *longest = NULL;
      KsAdvice *advice;

      if (u->n_samples < 2 || u->below_poor_pct < POOR_UTILIZATION_SHARE ||
          (gpu != NULL && gpu->window_ns > 0))
        continue;

      below = ks_time_format_duration (u->below_poor_ns);
      run = ks_time_format_duration (u->end - u->start);
      longest = ks_time_format_duration (u->longest_idle_ns);
      advice = add_advice (self, "low-gpu-utilization", u->device,
                           g_strdup_printf (_("GPU %d is idle much of the run"), u->device),
                           g_strdup_printf (_("GPU %d: utilization under 30 %% for %.0f %% of the run (mean %.1f %%). "
                                              "The input pipeline, host work or synchronization keep it waiting; "
                                              "a recording (kinescope-cli record) shows which."),
                                            u->device, u->below_poor_pct, u->mean_pct),
                           g_strdup_printf (_("%u samples; under 30 %% for %s of %s; the longest stretch under "
                                              "50 %%: %s."),
                                            u->n_samples, below, run, longest));
      advice->value = u->below_poor_pct / 100.0;

      places = g_array_new (FALSE, FALSE, sizeof (Place));
      for (guint k = 0; k < self->idle_stretches->len; k++)
        if (stretches[k].device == u->device)
          add_place (places, stretches[k].start, stretches[k].end, 0);
      set_ranges (advice, places);
      advice->highlight_name = 0;
    }
}

static void
rule_dataloader (KsAnalysis *self,
                 Context    *ctx)
{
  KsTrace *trace = ctx->trace;
  g_autoptr(GArray) places = NULL;
  g_autofree char *dl_text = NULL;
  g_autofree char *step_text = NULL;
  gint64 dl = 0, total = 0;
  guint n_steps = 0;
  double share;
  KsAdvice *advice;

  for (guint i = 0; i < self->steps->len; i++)
    {
      const KsStep *step = &g_array_index (self->steps, KsStep, i);

      if (!ks_analysis_step_counts (self, step))
        continue;
      dl += step->parts[KS_STEP_DATALOADER];
      total += step->end - step->start;
      n_steps++;
    }
  if (total <= 0)
    return;
  share = (double)dl / total;
  if (share <= DATALOADER_SHARE)
    return;

  dl_text = ks_time_format_duration (dl);
  step_text = ks_time_format_duration (total);
  advice = add_advice (self, "dataloader", -1,
                       g_strdup (_("Input loading takes much of the step time")),
                       g_strdup_printf (_("%.1f %% of the step time is in DataLoader. Set num_workers when constructing the DataLoader to load data in several processes, and pin_memory=True for faster copies."),
                                        100.0 * share),
                       g_strdup_printf (_("%s of %s step time over %u steps is in enumerate(DataLoader) calls."),
                                        dl_text, step_text, n_steps));
  advice->value = share;

  places = g_array_new (FALSE, FALSE, sizeof (Place));
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind != KS_TRACK_THREAD)
        continue;
      for (guint32 s = 0; s < track->n_slices; s++)
        if (ctx->name_flags[track->name_id[s]] & NAME_DATALOADER)
          add_place (places, track->start[s], track->end[s], track->name_id[s]);
    }
  set_ranges (advice, places);
}

static gboolean
is_pageable (const KsTrack *track,
             guint32        s,
             guint8         flags)
{
  if (track->gpu != NULL &&
      (track->gpu[s].copy.src_kind == KS_MEM_PAGEABLE || track->gpu[s].copy.dst_kind == KS_MEM_PAGEABLE))
    return TRUE;
  return (flags & NAME_PAGEABLE) != 0;
}

static void
rule_pageable_memcpy (KsAnalysis *self,
                      Context    *ctx)
{
  KsTrace *trace = ctx->trace;
  g_autoptr(GArray) places = g_array_new (FALSE, FALSE, sizeof (Place));
  g_autofree char *time_text = NULL;
  g_autofree char *bytes_text = NULL;
  guint64 bytes = 0;
  gint64 time = 0;
  KsAdvice *advice;

  for (guint d = 0; d < ctx->devices->len; d++)
    {
      DeviceState *ds = &g_array_index (ctx->devices, DeviceState, d);

      for (guint i = 0; i < ds->streams->len; i++)
        {
          guint32 t = g_array_index (ds->streams, guint32, i);
          const KsTrack *track = &trace->tracks[t];
          const guint32 *launch = ctx->launch_of_gpu[t];

          for (guint32 s = 0; s < track->n_slices; s++)
            {
              const KsFlow *flow;
              guint32 api;

              if (track->slice_kind[s] != KS_SLICE_MEMCPY || _ks_context_in_warmup (ctx, track->start[s]) ||
                  !is_pageable (track, s, ctx->name_flags[track->name_id[s]]))
                continue;
              /* Only asynchronous copies: a pageable one silently runs synchronously */
              if (launch == NULL || launch[s] == KS_NO_INDEX)
                continue;
              flow = &trace->flows[launch[s]];
              api = trace->tracks[flow->from_track].name_id[flow->from_slice];
              if (!(ctx->name_flags[api] & NAME_MEMCPY_ASYNC))
                continue;

              if (track->gpu != NULL)
                bytes += track->gpu[s].copy.bytes;
              time += track->end[s] - track->start[s];
              add_place (places, track->start[s], track->end[s], track->name_id[s]);
            }
        }
    }

  if (places->len == 0)
    return;

  time_text = ks_time_format_duration (time);
  bytes_text = ks_format_bytes (bytes);
  advice = add_advice (self, "pageable-memcpy", -1,
                       g_strdup (_("Asynchronous copies use pageable memory")),
                       g_strdup (_("Asynchronous memcpy calls on pageable host memory block the CPU and run synchronously, which leaves the GPU idle. Use pinned memory instead, for example pin_memory=True in the DataLoader and tensor.to(device, non_blocking=True).")),
                       g_strdup_printf (ngettext ("%u asynchronous copy from or to pageable memory: %s, %s on the GPU.",
                                                  "%u asynchronous copies from or to pageable memory: %s, %s on the GPU.",
                                                  places->len),
                                        places->len, bytes_text, time_text));
  advice->value = places->len;
  set_ranges (advice, places);
}

static gboolean
in_any_window (Context *ctx,
               gint64   start,
               gint64   end)
{
  for (guint d = 0; d < ctx->devices->len; d++)
    {
      const KsRangeSet *w = &g_array_index (ctx->devices, DeviceState, d).window;

      if (ks_range_set_measure (w, start, MAX (end, start + 1)) > 0)
        return TRUE;
    }
  return FALSE;
}

static void
rule_sync_calls (KsAnalysis *self,
                 Context    *ctx)
{
  KsTrace *trace = ctx->trace;
  g_autoptr(GArray) places = g_array_new (FALSE, FALSE, sizeof (Place));
  g_autofree gint64 *per_name = g_new0 (gint64, MAX (trace->n_strings, 1));
  g_autofree char *time_text = NULL;
  gint64 time = 0;
  guint32 top = 0;
  gboolean in_steps = FALSE;
  KsAdvice *advice;

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind != KS_TRACK_THREAD)
        continue;
      for (guint32 s = 0; s < track->n_slices; s++)
        {
          KsSliceKind kind = track->slice_kind[s];
          gint64 dur = track->end[s] - track->start[s];

          if ((kind != KS_SLICE_CUDA_RUNTIME && kind != KS_SLICE_CUDA_DRIVER) ||
              !(ctx->name_flags[track->name_id[s]] & NAME_SYNC) ||
              !in_any_window (ctx, track->start[s], track->end[s]))
            continue;
          time += dur;
          per_name[track->name_id[s]] += dur;
          if (per_name[track->name_id[s]] > per_name[top])
            top = track->name_id[s];
          add_place (places, track->start[s], track->end[s], track->name_id[s]);
        }
    }

  if (places->len == 0)
    return;

  for (guint i = 0; i < self->gpus->len; i++)
    in_steps |= g_array_index (self->gpus, KsGpuSummary, i).window_is_steps;

  time_text = ks_time_format_duration (time);
  advice = add_advice (self, "sync-calls", -1,
                       g_strdup (in_steps ? _("Synchronizing CUDA calls in the steps")
                                          : _("Synchronizing CUDA calls while the GPU works")),
                       g_strdup (_("Calls such as cudaDeviceSynchronize, cudaStreamSynchronize or a synchronous cudaMemcpy make the CPU wait for the GPU, so the GPU runs dry while the CPU catches up. In PyTorch they come from .item(), .cpu(), printing tensors or torch.cuda.synchronize(). Avoid them in the training loop, or use events (cudaStreamWaitEvent) instead of host synchronization.")),
                       g_strdup_printf (ngettext ("%u synchronizing call, %s in total; most time in %s.",
                                                  "%u synchronizing calls, %s in total; most time in %s.",
                                                  places->len),
                                        places->len, time_text, ks_trace_string (trace, top)));
  advice->value = places->len;
  set_ranges (advice, places);
  advice->highlight_name = top;
}

static void
rule_launch_bound (KsAnalysis *self,
                   Context    *ctx)
{
  KsTrace *trace = ctx->trace;

  for (guint i = 0; i < self->gpus->len; i++)
    {
      const KsGpuSummary *gpu = &g_array_index (self->gpus, KsGpuSummary, i);
      DeviceState *ds = _ks_context_find_device (ctx, gpu->device);
      g_autoptr(GArray) durations = NULL;
      g_autoptr(GArray) places = NULL;
      g_autofree char *median_text = NULL;
      gint64 loader_gap = 0;
      gint64 median;
      KsAdvice *advice;

      if (gpu->n_kernels == 0 || gpu->window_ns <= 0 || gpu->busy_pct >= LOW_BUSY_PCT)
        continue;
      /* GPU idle while waiting for input is the DataLoader rule's business */
      for (guint g = 0; g < self->gaps->len; g++)
        {
          const KsGap *gap = &g_array_index (self->gaps, KsGap, g);

          if (gap->device == gpu->device && gap->cause == KS_GAP_CAUSE_DATALOADER)
            loader_gap += gap->end - gap->start;
        }
      if (loader_gap * 2 > gpu->gap_total_ns)
        continue;

      durations = g_array_sized_new (FALSE, FALSE, sizeof (gint64), gpu->n_kernels);
      for (guint k = 0; k < ds->streams->len; k++)
        {
          const KsTrack *track = &trace->tracks[g_array_index (ds->streams, guint32, k)];

          for (guint32 s = 0; s < track->n_slices; s++)
            if (track->slice_kind[s] == KS_SLICE_KERNEL)
              {
                gint64 dur = track->end[s] - track->start[s];

                g_array_append_val (durations, dur);
              }
        }
      median = _ks_select_nth ((gint64 *)(gpointer)durations->data, durations->len,
                               (durations->len - 1) / 2);
      if (median >= TINY_KERNEL_NS)
        continue;

      median_text = ks_time_format_duration (median);
      advice = add_advice (self, "launch-bound", gpu->device,
                           g_strdup_printf (_("Many tiny kernels on GPU %d"), gpu->device),
                           g_strdup (_("Most kernels finish faster than the CPU can launch the next one, so the GPU waits for launches. Fuse operations (torch.compile), use CUDA Graphs, or give each kernel more work with larger batches.")),
                           g_strdup_printf (_("%" PRIu64 " kernels with a median duration of %s; the GPU is busy %.1f %% of the window."),
                                            gpu->n_kernels, median_text, gpu->busy_pct));
      advice->value = median;

      places = g_array_new (FALSE, FALSE, sizeof (Place));
      for (guint w = 0; w < ds->window.n; w++)
        add_place (places, ds->window.r[w].start, ds->window.r[w].end, 0);
      set_ranges (advice, places);
    }
}

static void
rule_amp (KsAnalysis *self,
          Context    *ctx)
{
  KsTrace *trace = ctx->trace;
  g_autoptr(GArray) places = NULL;
  g_autofree char *tc_text = NULL;
  gint64 kernel_time = 0;
  gint64 tc_time = 0;
  gboolean capable = TRUE;
  double share;
  KsAdvice *advice;

  for (guint i = 0; i < self->gpus->len; i++)
    kernel_time += g_array_index (self->gpus, KsGpuSummary, i).kernel_time_ns;
  /* As the TensorBoard profiler: only when no kernel used tensor cores */
  for (guint i = 0; i < self->kernels->len; i++)
    {
      const KsKernelStats *k = &g_array_index (self->kernels, KsKernelStats, i);

      if (_ks_name_uses_tensor_cores (ctx, k->name))
        tc_time += k->total_ns;
    }
  /* Tensor cores need compute capability 7.0; unknown GPUs are assumed capable. */
  for (guint32 i = 0; i < trace->n_gpus; i++)
    if (_ks_context_device_wanted (ctx, trace->gpus[i].device) &&
        trace->gpus[i].compute_major != 0 && trace->gpus[i].compute_major < 7)
      capable = FALSE;

  if (!capable || kernel_time <= 0 || tc_time > 0 || ctx->tc_lowp_calls > 0)
    return;
  share = (double)ctx->tc_fp32_device_ns / kernel_time;
  if (share < TC_SHARE)
    return;

  tc_text = ks_time_format_duration (ctx->tc_fp32_device_ns);
  advice = add_advice (self, "amp", -1,
                       g_strdup (_("Tensor cores left unused")),
                       g_strdup_printf (_("Kernels taking %.1f %% of the GPU time are launched by operators that could use tensor cores (matrix multiplications and convolutions) but run in float32. Enable automatic mixed precision (torch.autocast with float16 or bfloat16) to speed them up."),
                                        100.0 * share),
                       g_strdup_printf (_("%s of GPU time under float32 mm/addmm/bmm/conv operators; no half or bfloat16 inputs and no tensor-core kernels seen."),
                                        tc_text));
  advice->value = share;

  places = g_array_new (FALSE, FALSE, sizeof (Place));
  for (guint i = 0; i < ctx->tc_ranges->len; i++)
    {
      const KsTimeRange *r = &g_array_index (ctx->tc_ranges, KsTimeRange, i);

      add_place (places, r->start, r->end, 0);
    }
  set_ranges (advice, places);
}

static void
rule_memory_capacity (KsAnalysis *self,
                      Context    *ctx)
{
  for (guint i = 0; i < self->memory->len; i++)
    {
      const KsMemoryCurve *curve = &g_array_index (self->memory, KsMemoryCurve, i);
      g_autofree char *peak_text = NULL;
      g_autofree char *cap_text = NULL;
      gint64 peak;
      gint64 ts;
      KsAdvice *advice;

      if (curve->device < 0 || curve->total_memory == 0)
        continue;
      peak = curve->peak_reserved >= 0 ? curve->peak_reserved : curve->peak_allocated;
      ts = curve->peak_reserved >= 0 ? curve->peak_reserved_ts : curve->peak_allocated_ts;
      if ((double)peak <= MEMORY_NEAR_CAPACITY * curve->total_memory)
        continue;

      peak_text = ks_format_bytes (peak);
      cap_text = ks_format_bytes (curve->total_memory);
      advice = add_advice (self, "memory-capacity", curve->device,
                           g_strdup_printf (_("GPU %d memory is nearly full"), curve->device),
                           g_strdup_printf (_("Memory use reaches %.1f %% of the capacity of GPU %d. Gradient checkpointing or automatic mixed precision reduce it; an out-of-memory error is close."),
                                            100.0 * peak / curve->total_memory, curve->device),
                           g_strdup_printf (_("Peak reserved %s of %s."), peak_text, cap_text));
      advice->value = (double)peak / curve->total_memory;
      advice->n_ranges = 1;
      advice->ranges = g_new (KsTimeRange, 1);
      advice->ranges[0].start = ts;
      advice->ranges[0].end = ts;
      advice->highlight_name = curve->peak_operator;
    }
}

/* Kineto's own work inside the window: the time it took is not the
 * program's, and neither are the gaps under it. */
static void
rule_profiler_overhead (KsAnalysis *self,
                        Context    *ctx)
{
  KsTrace *trace = ctx->trace;
  const KsGap *gaps = (const KsGap *)(gpointer)self->gaps->data;

  if (ctx->overhead_set.n == 0)
    return;
  for (guint d = 0; d < ctx->devices->len; d++)
    {
      DeviceState *ds = &g_array_index (ctx->devices, DeviceState, d);
      const KsGpuSummary *gpu = ks_analysis_get_gpu (self, ds->device);
      gint64 taken = ks_range_set_measure_set (&ctx->overhead_set, &ds->window);
      g_autoptr(GArray) places = NULL;
      g_autofree char *taken_text = NULL;
      g_autofree char *window_text = NULL;
      g_autofree char *gap_text = NULL;
      gint64 gap_ns = 0;
      guint n_gaps = 0;
      KsAdvice *advice;

      if (gpu == NULL || taken <= 0 || gpu->window_ns <= 0)
        continue;
      for (guint g = 0; g < self->gaps->len; g++)
        if (gaps[g].device == ds->device && gaps[g].cause == KS_GAP_CAUSE_PROFILER)
          {
            n_gaps++;
            gap_ns += gaps[g].end - gaps[g].start;
          }

      taken_text = ks_time_format_duration (taken);
      window_text = ks_time_format_duration (gpu->window_ns);
      gap_text = ks_time_format_duration (gap_ns);
      advice = add_advice (self, "profiler-overhead", ds->device,
                           g_strdup_printf (_("The profiler took %.1f %% of the window"),
                                            100.0 * taken / gpu->window_ns),
                           g_strdup_printf (_("The PyTorch profiler's own work (Kineto's overhead events, such as Activity Buffer Request) ran for part of the steps of GPU %d. Idle gaps under it are the profiler's, not the program's: they are listed with the cause “Profiler overhead”. Profiling fewer steps, or with a larger activity buffer, makes it rarer."),
                                            ds->device),
                           g_strdup_printf (ngettext ("Profiler overhead %s of a %s window; %u idle gap, %s, under it.",
                                                      "Profiler overhead %s of a %s window; %u idle gaps, %s, under it.",
                                                      n_gaps),
                                            taken_text, window_text, n_gaps, gap_text));
      advice->value = (double)taken / gpu->window_ns;

      places = g_array_new (FALSE, FALSE, sizeof (Place));
      for (guint i = 0; i < ctx->overhead->len; i++)
        {
          const guint32 *ref = &g_array_index (ctx->overhead, guint32, 2 * i);
          const KsTrack *t = &trace->tracks[ref[0]];

          if (ks_range_set_measure (&ds->window, t->start[ref[1]], t->end[ref[1]]) > 0)
            add_place (places, t->start[ref[1]], t->end[ref[1]], t->name_id[ref[1]]);
        }
      set_ranges (advice, places);
    }
}

void
_ks_analysis_advice (KsAnalysis *self,
                     Context    *ctx)
{
  rule_low_busy (self, ctx);
  rule_low_utilization (self, ctx);
  _ks_analysis_activity_advice (self, ctx);
  rule_dataloader (self, ctx);
  rule_pageable_memcpy (self, ctx);
  rule_sync_calls (self, ctx);
  rule_launch_bound (self, ctx);
  rule_amp (self, ctx);
  rule_memory_capacity (self, ctx);
  rule_profiler_overhead (self, ctx);
  _ks_analysis_comms_advice (self, ctx);
  _ks_analysis_path_advice (self, ctx);
}
