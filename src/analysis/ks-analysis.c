/* ks-analysis.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* KsAnalysis: the object, its cache on the trace, and the first pass that
 * every analysis shares (steps, devices, the operator index). One file,
 * since the passes in ks-analysis-*.c all start from the context built
 * here and the getters return what those passes fill in. */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "ks-analysis-private.h"

G_DEFINE_FINAL_TYPE (KsAnalysis, ks_analysis, G_TYPE_OBJECT)

/* At most this many option sets are cached per trace; the oldest goes. */
#define CACHE_SIZE 8

static GMutex cache_mutex;
static GCond cache_cond;
static GQuark cache_quark;

/* Computations under way, so that one set of options for a trace is
 * computed once (the trace is not referenced: its caller holds it). */
typedef struct
{
  KsTrace           *trace;
  KsAnalysisOptions  options;
} Pending;

static GArray *pending;

static void
advice_clear (gpointer data)
{
  KsAdvice *advice = data;

  g_free (advice->title);
  g_free (advice->text);
  g_free (advice->evidence);
  g_free (advice->ranges);
}

static void
ks_analysis_finalize (GObject *object)
{
  KsAnalysis *self = (KsAnalysis *)object;

  if (self->gpus != NULL)
    for (guint i = 0; i < self->gpus->len; i++)
      g_free (g_array_index (self->gpus, KsGpuSummary, i).util);
  if (self->memory != NULL)
    for (guint i = 0; i < self->memory->len; i++)
      g_free (g_array_index (self->memory, KsMemoryCurve, i).points);
  if (self->queues != NULL)
    for (guint i = 0; i < self->queues->len; i++)
      {
        g_free (g_array_index (self->queues, KsQueueStats, i).bucket_mean);
        g_free (g_array_index (self->queues, KsQueueStats, i).bucket_max);
      }
  g_clear_pointer (&self->queues, g_array_unref);
  if (self->copy_kinds != NULL)
    for (guint i = 0; i < self->copy_kinds->len; i++)
      g_free (g_array_index (self->copy_kinds, KsCopyKindStats, i).gbps);
  g_clear_pointer (&self->copy_kinds, g_array_unref);
  g_clear_pointer (&self->copies, g_array_unref);
  g_clear_pointer (&self->sequences, g_array_unref);
  g_clear_pointer (&self->profiler_counters, g_array_unref);
  g_clear_pointer (&self->annotations, g_array_unref);
  g_clear_pointer (&self->operator_memory, g_array_unref);
  g_clear_pointer (&self->operator_stacks, g_array_unref);
  g_clear_pointer (&self->kernel_groups[0], g_array_unref);
  g_clear_pointer (&self->kernel_groups[1], g_array_unref);

  g_clear_pointer (&self->trace_busy.busy, g_free);
  g_clear_pointer (&self->gpus, g_array_unref);
  g_clear_pointer (&self->steps, g_array_unref);
  g_clear_pointer (&self->gaps, g_array_unref);
  g_clear_pointer (&self->gaps_by_duration, g_free);
  g_clear_pointer (&self->gap_causes, g_array_unref);
  g_clear_pointer (&self->operators[0], g_array_unref);
  g_clear_pointer (&self->operators[1], g_array_unref);
  g_clear_pointer (&self->samples, g_array_unref);
  g_clear_pointer (&self->strings, g_string_chunk_free);
  g_clear_pointer (&self->kernels, g_array_unref);
  g_clear_pointer (&self->memory, g_array_unref);
  g_clear_pointer (&self->allocations, g_array_unref);
  g_clear_pointer (&self->utilization, g_array_unref);
  g_clear_pointer (&self->idle_stretches, g_array_unref);
  g_clear_pointer (&self->activity, g_array_unref);
  g_clear_pointer (&self->step_activity, g_array_unref);
  g_clear_pointer (&self->advice, g_array_unref);
  g_clear_pointer (&self->collectives, g_array_unref);
  g_clear_pointer (&self->comm_stats, g_array_unref);
  g_clear_pointer (&self->rank_stats, g_array_unref);
  g_clear_pointer (&self->rank_steps, g_array_unref);
  g_clear_pointer (&self->warnings, g_ptr_array_unref);

  G_OBJECT_CLASS (ks_analysis_parent_class)->finalize (object);
}

static void
ks_analysis_class_init (KsAnalysisClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ks_analysis_finalize;
}

static void
ks_analysis_init (KsAnalysis *self)
{
  self->gpus = g_array_new (FALSE, TRUE, sizeof (KsGpuSummary));
  self->steps = g_array_new (FALSE, TRUE, sizeof (KsStep));
  self->gaps = g_array_new (FALSE, TRUE, sizeof (KsGap));
  self->gap_causes = g_array_new (FALSE, TRUE, sizeof (KsGapCauseTotal));
  self->operators[0] = g_array_new (FALSE, TRUE, sizeof (KsOperatorStats));
  self->operators[1] = g_array_new (FALSE, TRUE, sizeof (KsOperatorStats));
  self->samples = g_array_new (FALSE, TRUE, sizeof (KsSampleStats));
  self->strings = g_string_chunk_new (4096);
  self->kernels = g_array_new (FALSE, TRUE, sizeof (KsKernelStats));
  self->memory = g_array_new (FALSE, TRUE, sizeof (KsMemoryCurve));
  self->queues = g_array_new (FALSE, TRUE, sizeof (KsQueueStats));
  self->copies = g_array_new (FALSE, TRUE, sizeof (KsCopyRate));
  self->copy_kinds = g_array_new (FALSE, TRUE, sizeof (KsCopyKindStats));
  self->sequences = g_array_new (FALSE, TRUE, sizeof (KsKernelSequence));
  self->profiler_counters = g_array_new (FALSE, TRUE, sizeof (KsProfilerCounter));
  self->annotations = g_array_new (FALSE, TRUE, sizeof (KsGpuAnnotationStats));
  self->operator_memory = g_array_new (FALSE, TRUE, sizeof (KsOperatorMemory));
  self->operator_stacks = g_array_new (FALSE, TRUE, sizeof (KsOperatorStack));
  self->kernel_groups[0] = g_array_new (FALSE, TRUE, sizeof (KsKernelGroup));
  self->kernel_groups[1] = g_array_new (FALSE, TRUE, sizeof (KsKernelGroup));
  self->allocations = g_array_new (FALSE, TRUE, sizeof (KsAllocation));
  self->utilization = g_array_new (FALSE, TRUE, sizeof (KsGpuUtilization));
  self->idle_stretches = g_array_new (FALSE, TRUE, sizeof (KsIdleStretch));
  self->activity = g_array_new (FALSE, TRUE, sizeof (KsGpuActivity));
  self->step_activity = g_array_new (FALSE, TRUE, sizeof (KsStepActivity));
  self->collectives = g_array_new (FALSE, TRUE, sizeof (KsCollective));
  self->comm_stats = g_array_new (FALSE, TRUE, sizeof (KsCommStats));
  self->rank_stats = g_array_new (FALSE, TRUE, sizeof (KsRankStats));
  self->rank_steps = g_array_new (FALSE, TRUE, sizeof (KsRankStep));
  self->straggler = KS_NO_INDEX;
  self->advice = g_array_new (FALSE, TRUE, sizeof (KsAdvice));
  g_array_set_clear_func (self->advice, advice_clear);
  self->warnings = g_ptr_array_new_null_terminated (0, g_free, TRUE);
}

void
ks_analysis_options_init (KsAnalysisOptions *options)
{
  g_return_if_fail (options != NULL);

  memset (options, 0, sizeof *options);
  options->gap_threshold_ns = KS_ANALYSIS_DEFAULT_GAP_THRESHOLD_NS;
  options->busy_includes_copies = FALSE;
  options->device = -1;
  options->kernel_wait_ns = KS_ANALYSIS_DEFAULT_KERNEL_WAIT_NS;
}

gboolean
ks_analysis_options_equal (const KsAnalysisOptions *a,
                           const KsAnalysisOptions *b)
{
  g_return_val_if_fail (a != NULL && b != NULL, FALSE);

  return a->gap_threshold_ns == b->gap_threshold_ns &&
         !!a->busy_includes_copies == !!b->busy_includes_copies &&
         a->device == b->device &&
         a->kernel_wait_ns == b->kernel_wait_ns &&
         !!a->include_warmup == !!b->include_warmup;
}

/* Context */

static gboolean
has_prefix_any (const char         *s,
                const char * const *prefixes)
{
  for (guint i = 0; prefixes[i] != NULL; i++)
    if (g_str_has_prefix (s, prefixes[i]))
      return TRUE;
  return FALSE;
}

/* What training loops name the NVTX range around one step: "step 12",
 * "Step_12", "iteration 12", "iter#12", "train_step 12", "batch 12". */
static gboolean
is_step_range_name (const char *s)
{
  static const char * const words[] = {
    "train_step", "train step", "training step", "step", "iteration", "iter", "batch", NULL
  };
  const char *p = NULL;

  for (guint i = 0; words[i] != NULL && p == NULL; i++)
    if (g_ascii_strncasecmp (s, words[i], strlen (words[i])) == 0)
      p = s + strlen (words[i]);
  if (p == NULL)
    return FALSE;
  if (*p == ' ' || *p == '_' || *p == '#' || *p == ':' || *p == '-')
    p++;
  if (!g_ascii_isdigit (*p))
    return FALSE;
  while (g_ascii_isdigit (*p))
    p++;
  return *p == '\0';
}

static guint16
classify_name (const char *s)
{
  static const char * const sync_names[] = {
    "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
    "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize", NULL
  };
  static const char * const tc_names[] = {
    "aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::addbmm",
    "aten::matmul", "aten::linear", "aten::conv1d", "aten::conv2d", "aten::conv3d",
    "aten::convolution", "aten::_convolution", "aten::cudnn_convolution",
    "aten::conv_transpose1d", "aten::conv_transpose2d", "aten::conv_transpose3d",
    NULL
  };
  /* Kernel name fragments of tensor-core code, matched in lower case.
   * The TensorBoard plugin's list (PyProf's): h884/s884, h1688/s1688/c1688,
   * HMMA, i8816, 16816, the xmma GEMM and implicit-GEMM families and five
   * cuDNN kernel names. Then Kinescope's: IMMA, GMMA (so WGMMA), CUTLASS
   * tensor-op and cuDNN tensorMxNxK tiles, TF32/BF16/FP16/FP8 types, and
   * the Hopper and Blackwell kernels whose names carry no type: cuBLASLt's
   * nvjet GEMMs and tcgen05 (Blackwell's MMA) kernels. */
  static const char * const tc_kernels[] = {
    "884", "1688", "16816", "hmma", "i8816", "xmma_gemm", "xmma_implicit_gemm",
    "xmma_sparse_conv", "xmma_sparse_gemm", "xmma_warp_specialized_implicit_gemm",
    "dgrad_1x1_stride_2x2", "first_layer_wgrad_kernel", "conv1x1", "conv2d_c1_k1",
    "direct_group",
    "imma", "gmma", "tensorop", "tensor16x", "tensor8x", "tensor4x", "tf32", "bf16",
    "f16f16", "fp16", "e4m3", "e5m2", "nvjet", "tcgen05", NULL
  };
  /* ... unless the name says the math runs on the FMA units: cuBLAS and
   * cuDNN write _ffma_ in their float32 xmma kernels (which the plugin's
   * xmma_gemm rule would count), CUTLASS simt in its. */
  static const char * const fma_kernels[] = { "ffma", "simt", NULL };
  g_autofree char *lower = NULL;
  guint16 flags = 0;

  if (has_prefix_any (s, sync_names))
    flags |= NAME_SYNC;
  /* cudaMemcpy, cudaMemcpy2D, cuMemcpyDtoH_v2...: the synchronous copies */
  if (g_str_has_prefix (s, "cudaMemcpy") || g_str_has_prefix (s, "cuMemcpy"))
    {
      if (strstr (s, "Async") != NULL)
        flags |= NAME_MEMCPY_ASYNC;
      else
        flags |= NAME_SYNC;
    }
  if (g_str_has_prefix (s, "enumerate(DataLoader)"))
    flags |= NAME_DATALOADER;
  if (g_str_has_prefix (s, "ProfilerStep#"))
    flags |= NAME_PROFILER_STEP;
  else if (is_step_range_name (s))
    flags |= NAME_STEP_RANGE;
  for (guint i = 0; tc_names[i] != NULL; i++)
    if (strcmp (s, tc_names[i]) == 0)
      flags |= NAME_TC_ELIGIBLE;
  if (g_str_has_prefix (s, "Memcpy") && strstr (s, "Pageable") != NULL)
    flags |= NAME_PAGEABLE;
  /* ncclKernel_AllReduce_..., ncclDevKernel_..., void ncclKernel<...> */
  if (strstr (s, "nccl") != NULL)
    flags |= NAME_NCCL;
  lower = g_ascii_strdown (s, -1);
  for (guint i = 0; tc_kernels[i] != NULL; i++)
    if (strstr (lower, tc_kernels[i]) != NULL)
      flags |= NAME_TC_KERNEL;
  for (guint i = 0; fma_kernels[i] != NULL; i++)
    if (strstr (lower, fma_kernels[i]) != NULL)
      flags &= ~NAME_TC_KERNEL;

  return flags;
}

static int
compare_steps (gconstpointer a,
               gconstpointer b)
{
  const KsStep *sa = a;
  const KsStep *sb = b;

  if (sa->start != sb->start)
    return sa->start < sb->start ? -1 : 1;
  return (sa->end > sb->end) - (sa->end < sb->end);
}

static int
compare_devices (gconstpointer a,
                 gconstpointer b)
{
  const DeviceState *da = a;
  const DeviceState *db = b;

  return (da->device > db->device) - (da->device < db->device);
}

gboolean
_ks_context_device_wanted (Context *ctx,
                           gint32   device)
{
  return device >= 0 && (ctx->options.device < 0 || ctx->options.device == device);
}

DeviceState *
_ks_context_find_device (Context *ctx,
                         gint32   device)
{
  for (guint i = 0; i < ctx->devices->len; i++)
    {
      DeviceState *ds = &g_array_index (ctx->devices, DeviceState, i);

      if (ds->device == device)
        return ds;
    }
  return NULL;
}

static DeviceState *
ensure_device (Context *ctx,
               gint32   device)
{
  DeviceState *ds = _ks_context_find_device (ctx, device);
  DeviceState fresh;

  if (ds != NULL)
    return ds;

  memset (&fresh, 0, sizeof fresh);
  fresh.device = device;
  fresh.streams = g_array_new (FALSE, FALSE, sizeof (guint32));
  fresh.groups = g_array_new (FALSE, FALSE, sizeof (guint32));
  ks_range_set_init (&fresh.kernels);
  ks_range_set_init (&fresh.busy);
  ks_range_set_init (&fresh.activity);
  ks_range_set_init (&fresh.window);
  g_array_append_val (ctx->devices, fresh);
  return &g_array_index (ctx->devices, DeviceState, ctx->devices->len - 1);
}

static void
add_step (Context *ctx,
          guint32  track_index,
          guint32  slice)
{
  const KsTrack *track = &ctx->trace->tracks[track_index];
  KsStep step;

  memset (&step, 0, sizeof step);
  step.name = track->name_id[slice];
  step.track = track_index;
  step.slice = slice;
  step.start = step.host_start = track->start[slice];
  step.end = step.host_end = track->end[slice];
  g_array_append_val (ctx->step_refs, step);
}

/* Without ProfilerStep#N (a recording, an Nsight export), the steps are
 * the NVTX ranges named like one: the outermost of them on each thread, so
 * that "iteration 3" around "step 3" counts once. */
static void
collect_nvtx_steps (Context *ctx)
{
  KsTrace *trace = ctx->trace;

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];
      gint64 kept_end = G_MININT64;

      if (track->kind != KS_TRACK_NVTX)
        continue;
      /* Slices are in start order, longer first: one that contains
       * another comes before it. */
      for (guint32 i = 0; i < track->n_slices; i++)
        {
          if (track->slice_kind[i] != KS_SLICE_NVTX
              || !(ctx->name_flags[track->name_id[i]] & NAME_STEP_RANGE)
              || track->end[i] <= kept_end)
            continue;
          add_step (ctx, t, i);
          kept_end = track->end[i];
        }
    }
}

/* The TensorBoard plugin's step spans: when the GPU trails the CPU, the
 * work a step launched runs after its host slice ends, so a step runs
 * from the later of its host start and the previous step's end to the
 * later of its host end and the end of the GPU work launched inside it
 * (kernels, copies and memsets of a CUDA call starting in the host span,
 * on the step's process; not the GPU side of a synchronisation). */
static void
fit_steps_to_gpu (Context *ctx)
{
  KsTrace *trace = ctx->trace;
  KsStep *steps = (KsStep *)(gpointer)ctx->step_refs->data;
  guint n = ctx->step_refs->len;
  g_autofree gint64 *gpu_end = NULL;
  g_autofree gint64 *prev_end = NULL;
  g_autofree guint *by_process = NULL;   /* step indexes, by (process, start) */
  g_autofree guint *first = NULL;        /* per process: its first entry in by_process */

  if (n == 0)
    return;

  gpu_end = g_new (gint64, n);
  by_process = g_new (guint, n);
  first = g_new0 (guint, trace->n_processes + 2);
  for (guint i = 0; i < n; i++)
    {
      guint32 p = trace->tracks[steps[i].track].process;

      gpu_end[i] = G_MININT64;
      first[(p < trace->n_processes ? p : trace->n_processes) + 1]++;
    }
  for (guint p = 1; p <= trace->n_processes + 1; p++)
    first[p] += first[p - 1];
  {
    g_autofree guint *fill = g_memdup2 (first, sizeof (guint) * (trace->n_processes + 2));

    /* steps are in start order, so each process's list is too */
    for (guint i = 0; i < n; i++)
      {
        guint32 p = trace->tracks[steps[i].track].process;

        by_process[fill[p < trace->n_processes ? p : trace->n_processes]++] = i;
      }
  }

  for (guint32 f = 0; f < trace->n_flows; f++)
    {
      const KsFlow *flow = &trace->flows[f];
      const KsTrack *from, *to;
      guint32 p;
      gint64 ts;
      guint lo, hi;

      if (flow->kind != KS_FLOW_LAUNCH)
        continue;
      from = &trace->tracks[flow->from_track];
      to = &trace->tracks[flow->to_track];
      if (to->kind != KS_TRACK_STREAM || from->kind != KS_TRACK_THREAD ||
          !_ks_context_device_wanted (ctx, to->device) || from->process >= trace->n_processes ||
          !(GPU_WORK_KINDS & KIND_BIT (to->slice_kind[flow->to_slice])))
        continue;
      p = from->process;
      ts = from->start[flow->from_slice];
      /* the last step of the process starting at or before the call */
      lo = first[p];
      hi = first[p + 1];
      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;

          if (steps[by_process[mid]].host_start <= ts)
            lo = mid + 1;
          else
            hi = mid;
        }
      if (lo == first[p] || ts >= steps[by_process[lo - 1]].host_end)
        continue;
      gpu_end[by_process[lo - 1]] = MAX (gpu_end[by_process[lo - 1]], to->end[flow->to_slice]);
    }

  prev_end = g_new (gint64, trace->n_processes + 1);
  for (guint p = 0; p <= trace->n_processes; p++)
    prev_end[p] = G_MININT64;
  for (guint i = 0; i < n; i++)
    {
      guint32 p = trace->tracks[steps[i].track].process;
      gint64 *prev = &prev_end[p < trace->n_processes ? p : trace->n_processes];

      steps[i].start = MAX (steps[i].host_start, *prev);
      steps[i].end = MAX (MAX (steps[i].host_end, gpu_end[i]), steps[i].start);
      *prev = steps[i].end;
    }
  _ks_steps_after_earlier_gpu_work (ctx);
  /* processes' steps may now start in another order */
  g_array_sort (ctx->step_refs, compare_steps);
}

static void
context_init (Context                 *ctx,
              KsTrace                 *trace,
              const KsAnalysisOptions *options,
              KsProgress              *progress,
              GCancellable            *cancellable)
{
  memset (ctx, 0, sizeof *ctx);
  ctx->trace = trace;
  ctx->options = *options;
  ctx->progress = progress;
  ctx->cancellable = cancellable;

  ctx->name_flags = g_new0 (guint16, MAX (trace->n_strings, 1));
  for (guint32 i = 1; i < trace->n_strings; i++)
    {
      ctx->name_flags[i] = classify_name (trace->strings[i]);
      ctx->have_nccl |= (ctx->name_flags[i] & NAME_NCCL) != 0;
    }

  ctx->nvtx_of_thread = g_new (guint32, MAX (trace->n_threads, 1));
  ctx->samples_of_thread = g_new (guint32, MAX (trace->n_threads, 1));
  for (guint32 i = 0; i < trace->n_threads; i++)
    ctx->nvtx_of_thread[i] = ctx->samples_of_thread[i] = KS_NO_INDEX;

  ctx->launch_of_gpu = g_new0 (guint32 *, MAX (trace->n_tracks, 1));
  ctx->launch_of_cpu = g_new0 (guint32 *, MAX (trace->n_tracks, 1));
  ctx->devices = g_array_new (FALSE, TRUE, sizeof (DeviceState));
  ctx->step_refs = g_array_new (FALSE, TRUE, sizeof (KsStep));
  ctx->tc_ranges = g_array_new (FALSE, FALSE, sizeof (KsTimeRange));
  ctx->launch_operator = g_new0 (guint32, MAX (trace->n_flows, 1));

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind == KS_TRACK_NVTX && track->thread < trace->n_threads)
        ctx->nvtx_of_thread[track->thread] = t;
      if (track->kind == KS_TRACK_SAMPLES && track->thread < trace->n_threads)
        ctx->samples_of_thread[track->thread] = t;

      if (track->kind == KS_TRACK_STREAM && _ks_context_device_wanted (ctx, track->device))
        {
          DeviceState *ds = ensure_device (ctx, track->device);
          gboolean seen = FALSE;

          g_array_append_val (ds->streams, t);
          for (guint i = 0; i < ds->groups->len; i++)
            if (g_array_index (ds->groups, guint32, i) == track->group)
              seen = TRUE;
          if (!seen)
            g_array_append_val (ds->groups, track->group);
        }

      if (track->kind == KS_TRACK_THREAD)
        {
          for (guint32 i = 0; i < track->n_slices; i++)
            if (ctx->name_flags[track->name_id[i]] & NAME_PROFILER_STEP)
              add_step (ctx, t, i);
        }
    }

  if (ctx->step_refs->len == 0)
    collect_nvtx_steps (ctx);
  if (ctx->step_refs->len == 0)
    _ks_context_infer_steps (ctx);

  ctx->overhead = g_array_new (FALSE, FALSE, sizeof (guint32) * 2);
  ks_range_set_init (&ctx->overhead_set);
  {
    guint32 overhead = ks_trace_lookup_string (trace, "overhead");

    for (guint32 t = 0; overhead != 0 && t < trace->n_tracks; t++)
      {
        const KsTrack *track = &trace->tracks[t];

        if (track->kind != KS_TRACK_THREAD)
          continue;
        for (guint32 i = 0; i < track->n_slices; i++)
          if (track->category[i] == overhead && track->end[i] > track->start[i])
            {
              guint32 ref[2] = { t, i };

              g_array_append_vals (ctx->overhead, ref, 1);
              ks_range_set_add (&ctx->overhead_set, track->start[i], track->end[i]);
            }
      }
    ks_range_set_seal (&ctx->overhead_set);
  }

  /* Only GPUs with streams: device property lists name every visible GPU,
   * used or not. */
  g_array_sort (ctx->devices, compare_devices);
  g_array_sort (ctx->step_refs, compare_steps);

  for (guint32 f = 0; f < trace->n_flows; f++)
    {
      const KsFlow *flow = &trace->flows[f];
      const KsTrack *to, *from;

      if (flow->kind != KS_FLOW_LAUNCH)
        continue;
      to = &trace->tracks[flow->to_track];
      from = &trace->tracks[flow->from_track];
      if (to->kind != KS_TRACK_STREAM || from->kind != KS_TRACK_THREAD)
        continue;

      if (ctx->launch_of_gpu[flow->to_track] == NULL)
        {
          ctx->launch_of_gpu[flow->to_track] = g_new (guint32, MAX (to->n_slices, 1));
          memset (ctx->launch_of_gpu[flow->to_track], 0xff, sizeof (guint32) * MAX (to->n_slices, 1));
        }
      if (ctx->launch_of_cpu[flow->from_track] == NULL)
        {
          ctx->launch_of_cpu[flow->from_track] = g_new (guint32, MAX (from->n_slices, 1));
          memset (ctx->launch_of_cpu[flow->from_track], 0xff, sizeof (guint32) * MAX (from->n_slices, 1));
        }
      ctx->launch_of_gpu[flow->to_track][flow->to_slice] = f;
      /* the first of a call's flows: a graph launch's follow it */
      if (ctx->launch_of_cpu[flow->from_track][flow->from_slice] == KS_NO_INDEX)
        ctx->launch_of_cpu[flow->from_track][flow->from_slice] = f;
    }

  fit_steps_to_gpu (ctx);
}

static void
context_clear (Context *ctx)
{
  for (guint32 t = 0; t < ctx->trace->n_tracks; t++)
    {
      g_free (ctx->launch_of_gpu[t]);
      g_free (ctx->launch_of_cpu[t]);
    }
  g_free (ctx->launch_of_gpu);
  g_free (ctx->launch_of_cpu);
  g_free (ctx->name_flags);
  g_free (ctx->nvtx_of_thread);
  g_free (ctx->samples_of_thread);

  for (guint i = 0; i < ctx->devices->len; i++)
    {
      DeviceState *ds = &g_array_index (ctx->devices, DeviceState, i);

      g_array_unref (ds->streams);
      g_array_unref (ds->groups);
      ks_range_set_clear (&ds->kernels);
      ks_range_set_clear (&ds->busy);
      ks_range_set_clear (&ds->activity);
      ks_range_set_clear (&ds->window);
    }
  g_array_unref (ctx->devices);
  g_array_unref (ctx->step_refs);
  g_array_unref (ctx->tc_ranges);
  g_free (ctx->launch_operator);
  g_array_unref (ctx->overhead);
  ks_range_set_clear (&ctx->overhead_set);
  ks_range_set_clear (&ctx->warmup_set);
  g_clear_pointer (&ctx->other_tracks, _ks_gap_candidates_free);
  g_clear_pointer (&ctx->other_names, g_hash_table_unref);
}

guint32
_ks_context_operator_at (Context *ctx,
                         guint32  thread,
                         gint64   ts)
{
  if (thread >= ctx->trace->n_threads || ctx->trace->threads[thread].track == KS_NO_INDEX)
    return KS_NO_INDEX;

  return ks_track_operator_at (&ctx->trace->tracks[ctx->trace->threads[thread].track], ts);
}

/* Computing */

static void
set_progress (Context    *ctx,
              double      fraction,
              const char *message)
{
  if (ctx->progress == NULL)
    return;
  ks_progress_set_fraction (ctx->progress, fraction);
  ks_progress_set_message (ctx->progress, message);
}

static KsAnalysis *
compute (KsTrace                  *trace,
         const KsAnalysisOptions  *options,
         KsProgress               *progress,
         GCancellable             *cancellable,
         GError                  **error)
{
  g_autoptr(KsAnalysis) self = g_object_new (KS_TYPE_ANALYSIS, NULL);
  static const struct {
    void (*pass) (KsAnalysis *, Context *);
    const char *message;
  } passes[] = {
    { _ks_analysis_warmup, N_("Finding the warm-up") },
    { _ks_analysis_profiler_ranges, N_("Reading range profiler counters") },
    { _ks_analysis_overview, N_("Measuring GPU busy time") },
    { _ks_analysis_steps, N_("Breaking down steps") },
    { _ks_analysis_gaps, N_("Finding idle gaps") },
    { _ks_analysis_operators, N_("Summing operators") },
    { _ks_analysis_samples, N_("Summing sampled stacks") },
    { _ks_analysis_kernels, N_("Summing kernels") },
    { _ks_analysis_memory, N_("Following memory") },
    { _ks_analysis_utilization, N_("Following GPU utilization") },
    { _ks_analysis_activity, N_("Following SM and tensor activity") },
    { _ks_analysis_queues, N_("Following stream queues") },
    { _ks_analysis_copies, N_("Measuring copy bandwidth") },
    { _ks_analysis_sequences, N_("Finding kernel sequences") },
    { _ks_analysis_annotations, N_("Summing GPU annotations") },
    { _ks_analysis_comms, N_("Matching collectives across ranks") },
    { _ks_analysis_advice, N_("Checking advice rules") },
  };
  Context ctx;

  self->options = *options;
  context_init (&ctx, trace, options, progress, cancellable);

  for (guint i = 0; i < G_N_ELEMENTS (passes); i++)
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          context_clear (&ctx);
          return NULL;
        }
      set_progress (&ctx, (double)i / G_N_ELEMENTS (passes), _(passes[i].message));
      passes[i].pass (self, &ctx);
    }

  if (self->n_ignored_memory > 0)
    g_ptr_array_add (self->warnings,
                     g_strdup_printf (ngettext ("%u memory event with an impossible size (over 1 PiB) was left "
                                                "out of the memory analysis",
                                                "%u memory events with impossible sizes (over 1 PiB) were left "
                                                "out of the memory analysis", self->n_ignored_memory),
                                      self->n_ignored_memory));

  set_progress (&ctx, 1.0, NULL);
  context_clear (&ctx);
  return g_steal_pointer (&self);
}

static GPtrArray *
get_cache (KsTrace *trace)
{
  GPtrArray *cache;

  if (cache_quark == 0)
    cache_quark = g_quark_from_static_string ("ks-analysis-cache");
  cache = g_object_get_qdata (G_OBJECT (trace), cache_quark);
  if (cache == NULL)
    {
      cache = g_ptr_array_new_with_free_func (g_object_unref);
      g_object_set_qdata_full (G_OBJECT (trace), cache_quark, cache,
                               (GDestroyNotify)g_ptr_array_unref);
    }
  return cache;
}

/* Under cache_mutex */
static KsAnalysis *
lookup_locked (KsTrace                 *trace,
               const KsAnalysisOptions *options)
{
  GPtrArray *cache = get_cache (trace);

  for (guint i = 0; i < cache->len; i++)
    {
      KsAnalysis *a = g_ptr_array_index (cache, i);

      if (ks_analysis_options_equal (&a->options, options))
        return g_object_ref (a);
    }
  return NULL;
}

/* Under cache_mutex: the computation of these options for this trace
 * running in some thread, or -1. */
static int
find_pending_locked (KsTrace                 *trace,
                     const KsAnalysisOptions *options)
{
  if (pending == NULL)
    return -1;
  for (guint i = 0; i < pending->len; i++)
    {
      const Pending *p = &g_array_index (pending, Pending, i);

      if (p->trace == trace && ks_analysis_options_equal (&p->options, options))
        return i;
    }
  return -1;
}

KsAnalysis *
ks_analysis_lookup_cached (KsTrace                 *trace,
                           const KsAnalysisOptions *options)
{
  KsAnalysisOptions defaults;
  KsAnalysis *found;

  g_return_val_if_fail (KS_IS_TRACE (trace), NULL);

  if (options == NULL)
    {
      ks_analysis_options_init (&defaults);
      options = &defaults;
    }

  g_mutex_lock (&cache_mutex);
  found = lookup_locked (trace, options);
  g_mutex_unlock (&cache_mutex);

  return found;
}

/**
 * ks_analysis_compute:
 *
 * Returns: (transfer full): the analysis, or %NULL when cancelled.
 */
KsAnalysis *
ks_analysis_compute (KsTrace                  *trace,
                     const KsAnalysisOptions  *options,
                     KsProgress               *progress,
                     GCancellable             *cancellable,
                     GError                  **error)
{
  KsAnalysisOptions defaults;
  KsAnalysis *analysis;
  GPtrArray *cache;
  Pending mine;
  int i;

  g_return_val_if_fail (KS_IS_TRACE (trace), NULL);
  g_return_val_if_fail (!cancellable || G_IS_CANCELLABLE (cancellable), NULL);

  if (options == NULL)
    {
      ks_analysis_options_init (&defaults);
      options = &defaults;
    }

  /* The window's header and its pages may ask for the same analysis at
   * once: the second waits for the first instead of computing it again. */
  g_mutex_lock (&cache_mutex);
  for (;;)
    {
      analysis = lookup_locked (trace, options);
      if (analysis != NULL)
        {
          g_mutex_unlock (&cache_mutex);
          return analysis;
        }
      if (find_pending_locked (trace, options) < 0)
        break;
      if (g_cancellable_is_cancelled (cancellable))
        {
          g_mutex_unlock (&cache_mutex);
          g_cancellable_set_error_if_cancelled (cancellable, error);
          return NULL;
        }
      g_cond_wait_until (&cache_cond, &cache_mutex, g_get_monotonic_time () + 50 * G_TIME_SPAN_MILLISECOND);
    }
  if (pending == NULL)
    pending = g_array_new (FALSE, FALSE, sizeof (Pending));
  mine.trace = trace;
  mine.options = *options;
  g_array_append_val (pending, mine);
  g_mutex_unlock (&cache_mutex);

  analysis = compute (trace, options, progress, cancellable, error);

  g_mutex_lock (&cache_mutex);
  i = find_pending_locked (trace, options);
  if (i >= 0)
    g_array_remove_index_fast (pending, i);
  if (analysis != NULL)
    {
      cache = get_cache (trace);
      if (cache->len >= CACHE_SIZE)
        g_ptr_array_remove_index (cache, 0);
      g_ptr_array_add (cache, g_object_ref (analysis));
    }
  g_cond_broadcast (&cache_cond);
  g_mutex_unlock (&cache_mutex);

  return analysis;
}

typedef struct
{
  KsTrace           *trace;
  KsAnalysisOptions  options;
  KsProgress        *progress;
} ComputeState;

static void
compute_state_free (gpointer data)
{
  ComputeState *state = data;

  g_clear_object (&state->trace);
  g_clear_pointer (&state->progress, ks_progress_unref);
  g_free (state);
}

static void
ks_analysis_compute_worker (GTask        *task,
                            gpointer      source_object,
                            gpointer      task_data,
                            GCancellable *cancellable)
{
  ComputeState *state = task_data;
  g_autoptr(GError) error = NULL;
  KsAnalysis *analysis;

  analysis = ks_analysis_compute (state->trace, &state->options, state->progress,
                                  cancellable, &error);
  if (analysis == NULL)
    g_task_return_error (task, g_steal_pointer (&error));
  else
    g_task_return_pointer (task, analysis, g_object_unref);
}

void
ks_analysis_compute_async (KsTrace                 *trace,
                           const KsAnalysisOptions *options,
                           KsProgress              *progress,
                           GCancellable            *cancellable,
                           GAsyncReadyCallback      callback,
                           gpointer                 user_data)
{
  g_autoptr(GTask) task = NULL;
  ComputeState *state;

  g_return_if_fail (KS_IS_TRACE (trace));

  state = g_new0 (ComputeState, 1);
  state->trace = g_object_ref (trace);
  if (options != NULL)
    state->options = *options;
  else
    ks_analysis_options_init (&state->options);
  state->progress = progress ? ks_progress_ref (progress) : NULL;

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, ks_analysis_compute_async);
  g_task_set_task_data (task, state, compute_state_free);
  g_task_run_in_thread (task, ks_analysis_compute_worker);
}

/**
 * ks_analysis_compute_finish:
 *
 * Returns: (transfer full): the analysis, or %NULL with @error set.
 */
KsAnalysis *
ks_analysis_compute_finish (GAsyncResult  *result,
                            GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == ks_analysis_compute_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* Getters */

const KsAnalysisOptions *
ks_analysis_get_options (KsAnalysis *self)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  return &self->options;
}

#define RETURN_ARRAY(array, type, n_out)          \
  G_STMT_START {                                  \
    if (n_out != NULL)                            \
      *n_out = (array)->len;                      \
    return (array)->len ? (const type *)(gpointer)(array)->data : NULL; \
  } G_STMT_END

const KsGpuSummary *
ks_analysis_get_gpus (KsAnalysis *self,
                      guint      *n_gpus)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->gpus, KsGpuSummary, n_gpus);
}

const KsGpuSummary *
ks_analysis_get_gpu (KsAnalysis *self,
                     gint32      device)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);

  for (guint i = 0; i < self->gpus->len; i++)
    if (g_array_index (self->gpus, KsGpuSummary, i).device == device)
      return &g_array_index (self->gpus, KsGpuSummary, i);
  return NULL;
}

const KsTraceBusy *
ks_analysis_get_trace_busy (KsAnalysis *self)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);

  return &self->trace_busy;
}

const KsStep *
ks_analysis_get_steps (KsAnalysis *self,
                       guint      *n_steps)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->steps, KsStep, n_steps);
}

const KsGap *
ks_analysis_get_gaps (KsAnalysis *self,
                      guint      *n_gaps)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->gaps, KsGap, n_gaps);
}

const guint *
ks_analysis_get_gaps_by_duration (KsAnalysis *self,
                                  guint      *n_gaps)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);

  if (n_gaps != NULL)
    *n_gaps = self->gaps->len;
  return self->gaps_by_duration;
}

const KsGapCauseTotal *
ks_analysis_get_gap_causes (KsAnalysis *self,
                            guint      *n_causes)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->gap_causes, KsGapCauseTotal, n_causes);
}

const KsSampleStats *
ks_analysis_get_sample_stats (KsAnalysis *self,
                              guint      *n_rows)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->samples, KsSampleStats, n_rows);
}

const KsOperatorStats *
ks_analysis_get_operators (KsAnalysis         *self,
                           KsOperatorGrouping  grouping,
                           guint              *n_operators)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  g_return_val_if_fail (grouping <= KS_OPERATOR_BY_NAME_AND_SHAPE, NULL);
  RETURN_ARRAY (self->operators[grouping], KsOperatorStats, n_operators);
}

const KsKernelStats *
ks_analysis_get_kernels (KsAnalysis *self,
                         guint      *n_kernels)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->kernels, KsKernelStats, n_kernels);
}

const KsLaunchLatency *
ks_analysis_get_launch_latency (KsAnalysis *self)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  return &self->latency;
}

const KsKernelGroup *
ks_analysis_get_kernel_groups (KsAnalysis       *self,
                               KsKernelGrouping  grouping,
                               guint            *n_groups)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  g_return_val_if_fail (grouping < KS_N_KERNEL_GROUPINGS, NULL);
  RETURN_ARRAY (self->kernel_groups[grouping], KsKernelGroup, n_groups);
}

const KsLaunchLatency *
ks_analysis_get_queue_time (KsAnalysis *self)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  return &self->queue;
}

const KsTensorCores *
ks_analysis_get_tensor_cores (KsAnalysis *self)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  return &self->tensor_cores;
}

const KsCopyRate *
ks_analysis_get_copies (KsAnalysis *self,
                        guint      *n_copies)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->copies, KsCopyRate, n_copies);
}

const KsCopyKindStats *
ks_analysis_get_copy_kinds (KsAnalysis *self,
                            guint      *n_kinds)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->copy_kinds, KsCopyKindStats, n_kinds);
}

const KsKernelSequence *
ks_analysis_get_kernel_sequences (KsAnalysis *self,
                                  guint      *n_sequences)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->sequences, KsKernelSequence, n_sequences);
}

const KsProfilerCounter *
ks_analysis_get_profiler_counters (KsAnalysis *self,
                                   guint      *n_counters)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->profiler_counters, KsProfilerCounter, n_counters);
}

const KsProfilerRanges *
ks_analysis_get_profiler_ranges (KsAnalysis *self)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  return &self->profiler_ranges;
}

const KsGpuAnnotationStats *
ks_analysis_get_gpu_annotations (KsAnalysis *self,
                                 guint      *n_annotations)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->annotations, KsGpuAnnotationStats, n_annotations);
}

const KsQueueStats *
ks_analysis_get_queues (KsAnalysis *self,
                        guint      *n_queues)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->queues, KsQueueStats, n_queues);
}

const KsMemoryCurve *
ks_analysis_get_memory_curves (KsAnalysis *self,
                               guint      *n_curves)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->memory, KsMemoryCurve, n_curves);
}

const KsGpuUtilization *
ks_analysis_get_utilization (KsAnalysis *self,
                             guint      *n_gpus)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->utilization, KsGpuUtilization, n_gpus);
}

const KsIdleStretch *
ks_analysis_get_idle_stretches (KsAnalysis *self,
                                guint      *n_stretches)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->idle_stretches, KsIdleStretch, n_stretches);
}

const KsAllocation *
ks_analysis_get_allocations (KsAnalysis *self,
                             guint      *n_allocations)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->allocations, KsAllocation, n_allocations);
}

const KsOperatorStack *
ks_analysis_get_operator_stacks (KsAnalysis *self,
                                 guint      *n_stacks)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->operator_stacks, KsOperatorStack, n_stacks);
}

const KsOperatorMemory *
ks_analysis_get_operator_memory (KsAnalysis *self,
                                 guint      *n_operators)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->operator_memory, KsOperatorMemory, n_operators);
}

const KsAdvice *
ks_analysis_get_advice (KsAnalysis *self,
                        guint      *n_advice)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->advice, KsAdvice, n_advice);
}

const KsCollective *
ks_analysis_get_collectives (KsAnalysis *self,
                             guint      *n_collectives)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->collectives, KsCollective, n_collectives);
}

const KsCommStats *
ks_analysis_get_comm_stats (KsAnalysis *self,
                            guint      *n_rows)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->comm_stats, KsCommStats, n_rows);
}

const KsRankStats *
ks_analysis_get_rank_stats (KsAnalysis *self,
                            guint      *n_rows)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->rank_stats, KsRankStats, n_rows);
}

const KsClockAlignment *
ks_analysis_get_clock_alignment (KsAnalysis *self)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  return &self->clock;
}

const KsRankStep *
ks_analysis_get_rank_steps (KsAnalysis *self,
                            guint      *n_rows)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->rank_steps, KsRankStep, n_rows);
}

guint
ks_analysis_get_straggler (KsAnalysis *self)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), KS_NO_INDEX);
  return self->straggler;
}

guint
ks_analysis_get_n_ignored_memory_events (KsAnalysis *self)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), 0);

  return self->n_ignored_memory;
}

const char * const *
ks_analysis_get_warnings (KsAnalysis *self)
{
  static const char * const none[] = { NULL };

  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);

  /* A null-terminated array that never grew has no pdata yet. */
  if (self->warnings->pdata == NULL)
    return none;
  return (const char * const *)self->warnings->pdata;
}

/* Labels and definitions */

static const struct {
  const char *title;
  const char *definition;
} metrics[KS_N_METRICS] = {
  [KS_METRIC_BUSY_PCT] = {
    N_("GPU busy"),
    N_("Share of the window during which at least one kernel runs on this GPU: the length of the union of kernel intervals inside the window divided by the window. Concurrent kernels are never added up, so it cannot exceed 100 %. With “Include copies” memcpy and memset count as busy too. This is the TensorBoard profiler's “GPU Utilization” and HTA's busy time.") },
  [KS_METRIC_BUSY_NS] = {
    N_("Busy time"),
    N_("Length of the union of all kernel intervals on this GPU over the whole trace (with memcpy and memset when “Include copies” is on).") },
  [KS_METRIC_WINDOW] = {
    N_("Window"),
    N_("The time the busy share is measured against: the union of the steps when the trace has them, otherwise from the start of the first to the end of the last GPU activity on the device. The steps are the ProfilerStep#N spans of a PyTorch trace, or else the NVTX ranges named like a step (“step 12”, “iteration 12”, “iter_12”, “train_step 12”, “batch 12”). As in the TensorBoard profiler, a step runs from the later of its start on the CPU and the previous step's end to the later of its end on the CPU and the end of the GPU work it launched, so work the GPU runs after the CPU moved on still counts in its step.") },
  [KS_METRIC_KERNEL_TIME] = {
    N_("Kernel time"),
    N_("Sum of the durations of all kernels on this GPU. Concurrent kernels each count, so it can exceed the busy time.") },
  [KS_METRIC_GAP] = {
    N_("Idle gap"),
    N_("An interval inside the window where the GPU runs no kernel, memcpy or memset on any stream, longer than the gap threshold.") },
  [KS_METRIC_GAP_HOST_WAIT] = {
    N_("Host wait"),
    N_("The CPU had not yet started the call that launched the next GPU operation when the GPU went idle: the GPU waited for the host (HTA's rule). Optimise the CPU side, use larger batches or fuse operators.") },
  [KS_METRIC_GAP_KERNEL_WAIT] = {
    N_("Kernel wait"),
    N_("The next operation was already being launched and the gap is shorter than the kernel wait threshold (30 µs unless set in the preferences): the overhead of launching back-to-back kernels (HTA's rule; HTA documents 30 ns but applies 30 µs). CUDA Graphs remove it.") },
  [KS_METRIC_GAP_OTHER] = {
    N_("Other wait"),
    N_("The next operation was already being launched when the GPU went idle, yet it started later: synchronisation between streams or events, or launch delays (HTA's rule).") },
  [KS_METRIC_GAP_CAUSE] = {
    N_("CPU during the gap"),
    N_("What the thread that launched the next GPU operation was doing during the gap (for host waits, until it started that launch): a synchronising CUDA call or a DataLoader __next__ covering at least half of it, else the innermost NVTX range, operator, annotation or Python frame covering at least half of it. A gap that the profiler's own work (Kineto's “overhead” events, such as Activity Buffer Request) covers for at least half its length is profiler overhead, whatever the CPU was doing.") },
  [KS_METRIC_STEP_BREAKDOWN] = {
    N_("Step time breakdown"),
    N_("Each step (ProfilerStep#N, or else an NVTX range named like “step 12” or “iteration 12”) is split into kernel, memcpy, memset, runtime, DataLoader, CPU exec and other time. Each category only claims time not already claimed by one before it, so the parts add up to the step time (the TensorBoard profiler's definition).") },
  [KS_METRIC_STEP_KERNEL] = {
    N_("Kernel"),
    N_("Time in the step during which at least one kernel runs on the GPU.") },
  [KS_METRIC_STEP_MEMCPY] = {
    N_("Memcpy"),
    N_("Time in the step with a memcpy on the GPU and no kernel.") },
  [KS_METRIC_STEP_MEMSET] = {
    N_("Memset"),
    N_("Time in the step with a memset on the GPU and neither kernel nor memcpy.") },
  [KS_METRIC_STEP_RUNTIME] = {
    N_("Runtime"),
    N_("Time in the step spent in CUDA runtime or driver calls (cudaLaunchKernel, cudaMemcpyAsync, cudaStreamSynchronize…) on the step's process while the GPU ran nothing.") },
  [KS_METRIC_STEP_DATALOADER] = {
    N_("DataLoader"),
    N_("Time in the step spent in enumerate(DataLoader)… calls, not already counted above.") },
  [KS_METRIC_STEP_CPU_EXEC] = {
    N_("CPU exec"),
    N_("Time in the step spent in PyTorch operators, annotations and NVTX ranges on the CPU, not already counted above.") },
  [KS_METRIC_STEP_OTHER] = {
    N_("Other"),
    N_("The rest of the step: none of the above was running.") },
  [KS_METRIC_UTILIZATION] = {
    N_("GPU busy over time"),
    N_("The busy share of each time bucket: the union of kernel intervals inside the bucket divided by its length.") },
  [KS_METRIC_HOST_TOTAL] = {
    N_("Host total"),
    N_("Sum of the wall-clock durations of the operator's calls on the CPU, nested operators included.") },
  [KS_METRIC_HOST_SELF] = {
    N_("Host self"),
    N_("Host total minus the time of the operators nested in it and of the CUDA runtime and driver calls it made (PyTorch's key_averages and the TensorBoard profiler), so a synchronous copy's wait is in cudaMemcpy, not in aten::copy_.") },
  [KS_METRIC_DEVICE_TOTAL] = {
    N_("Device total"),
    N_("GPU time of the kernels, copies and memsets launched by the operator or by the operators nested in it, joined by correlation id.") },
  [KS_METRIC_DEVICE_SELF] = {
    N_("Device self"),
    N_("GPU time of the kernels, copies and memsets the operator launched itself, not through a nested operator.") },
  [KS_METRIC_KERNEL_SHARE] = {
    N_("Share of GPU time"),
    N_("The kernel's total time divided by the total time of all kernels on the analysed GPUs.") },
  [KS_METRIC_COMM] = {
    N_("Communication"),
    N_("The rank's time in collectives within its steps: the union of its NCCL kernels on the GPU, and of the CPU spans of collectives that run on the CPU (gloo).") },
  [KS_METRIC_EXPOSED_COMM] = {
    N_("Exposed comm."),
    N_("The communication time no compute kernel of the same rank covers: what the step waits for because of communication.") },
  [KS_METRIC_OVERLAP] = {
    N_("Overlap"),
    N_("The share of the communication time covered by compute kernels on other streams of the same rank.") },
  [KS_METRIC_RANK_WAIT] = {
    N_("Waited"),
    N_("Collectives are matched across ranks (the Nth call of the same process group); a rank that starts one before the last rank does waits from its start until that arrival. The sum over its collectives.") },
  [KS_METRIC_WAIT_CAUSED] = {
    N_("Waited for"),
    N_("The other ranks' waiting in the collectives where this rank arrived last: the time the job lost to it being late.") },
  [KS_METRIC_BUS_BANDWIDTH] = {
    N_("Bus bandwidth"),
    N_("NCCL's bus bandwidth of the mean call: the message size over the time (algorithm bandwidth), times 2(n-1)/n for all-reduce, (n-1)/n for all-gather, reduce-scatter and all-to-all, 1 for the others; comparable with the link's speed.") },
  [KS_METRIC_SM_EFFICIENCY] = {
    N_("Est. SM efficiency"),
    N_("The share of the GPU's SMs that had work: each kernel counts min(its blocks / the SM count, 1) for its time in the window, summed and divided by the window, so idle time lowers it. The TensorBoard profiler's estimate, from the launch and the GPU's properties, else from the PyTorch profiler's blocks per SM.") },
  [KS_METRIC_OCCUPANCY] = {
    N_("Est. achieved occupancy"),
    N_("The blocks of the kernel that fit on one SM at once (limited by its registers, shared memory and threads), at most the grid's blocks per SM, times the threads per block over the SM's thread limit; averaged over the calls weighted by duration. The PyTorch profiler's definition, computed from the launch and the GPU's properties. Without them, the value the PyTorch profiler wrote.") },
  [KS_METRIC_LAUNCH_LATENCY] = {
    N_("Launch latency"),
    N_("From the end of the CUDA call that launched a kernel, or from the end of the earlier work on its stream when that ends later, to the kernel's start; 0 when the kernel started before the call returned. Time the stream was still busy with earlier work is queueing, counted apart: the launch latency is the delay the launch itself added.") },
  [KS_METRIC_TENSOR_CORES] = {
    N_("Tensor cores"),
    N_("Kernels that run on tensor cores, and their share of the kernel time: those a CUPTI range profile measured executing tensor-pipe instructions, else those whose names say so, by the TensorBoard profiler's rules (tile names such as 884, 1688 and 16816, HMMA, the xmma GEMMs) and Kinescope's (IMMA, GMMA and WGMMA, CUTLASS tensor-op kernels, TF32, BF16, FP16 and FP8 types, Hopper and Blackwell nvjet and tcgen05 kernels), never a name that says FFMA or SIMT. An operator is eligible when it is one the TensorBoard profiler lists as able to use tensor cores (matrix products and convolutions); its tensor-core share is the part of its GPU time in such kernels.") },
  [KS_METRIC_QUEUE_LENGTH] = {
    N_("Queue length"),
    N_("The GPU operations launched on a stream and not yet finished: one more when the CUDA call that launches an operation starts, one less when the operation ends, so the running one counts too (HTA's queue length takes it off when it starts). The mean is weighted by time from the first launch to the last end. At 1,024 outstanding operations the CUDA driver blocks the launching thread until one finishes.") },
  [KS_METRIC_QUEUE_TIME] = {
    N_("Queueing"),
    N_("From the end of the CUDA call that launched a kernel to the end of the earlier work on its stream, when the stream was still busy as the call returned (at most until the kernel's start). Queueing is not inherently bad: it means the GPU was busy with earlier work, so the CPU ran ahead; launches that never queue may mean an idle GPU.") },
  [KS_METRIC_MEMORY_ALLOCATED] = {
    N_("Allocated"),
    N_("Memory held by live tensors, as reported by the caching allocator.") },
  [KS_METRIC_MEMORY_RESERVED] = {
    N_("Reserved"),
    N_("Memory the caching allocator holds from the device, in use or cached for reuse.") },
  [KS_METRIC_MEMORY_PEAK] = {
    N_("Peak"),
    N_("The highest allocated amount, and the innermost operator running on the allocating thread when it was reached.") },
  [KS_METRIC_ALLOCATION_LIFETIME] = {
    N_("Lifetime"),
    N_("Time from an allocation to the free of the same address on the same device.") },
};

const char *
ks_metric_get_title (KsMetric metric)
{
  g_return_val_if_fail (metric < KS_N_METRICS, "");
  return _(metrics[metric].title);
}

const char *
ks_metric_get_definition (KsMetric metric)
{
  g_return_val_if_fail (metric < KS_N_METRICS, "");
  return _(metrics[metric].definition);
}

const char *
ks_step_part_get_title (KsStepPart part)
{
  g_return_val_if_fail (part < KS_N_STEP_PARTS, "");
  return ks_metric_get_title (KS_METRIC_STEP_KERNEL + part);
}

const char *
ks_step_part_to_string (KsStepPart part)
{
  static const char * const names[KS_N_STEP_PARTS] = {
    "kernel", "memcpy", "memset", "runtime", "dataloader", "cpu_exec", "other"
  };

  g_return_val_if_fail (part < KS_N_STEP_PARTS, "");
  return names[part];
}

const char *
ks_gap_class_get_title (KsGapClass klass)
{
  g_return_val_if_fail (klass < KS_N_GAP_CLASSES, "");
  return ks_metric_get_title (KS_METRIC_GAP_HOST_WAIT + klass);
}

const char *
ks_gap_class_to_string (KsGapClass klass)
{
  static const char * const names[KS_N_GAP_CLASSES] = { "host_wait", "kernel_wait", "other" };

  g_return_val_if_fail (klass < KS_N_GAP_CLASSES, "");
  return names[klass];
}

const char *
ks_gap_cause_get_title (KsGapCause cause)
{
  static const char * const titles[KS_N_GAP_CAUSES] = {
    N_("DataLoader"), N_("Synchronization"), N_("OS runtime call"), N_("NVTX range"),
    N_("Operator"), N_("Python"), N_("Many CPU operations"), N_("Nothing recorded"),
    N_("Unknown"), N_("Profiler overhead"),
  };

  g_return_val_if_fail (cause < KS_N_GAP_CAUSES, "");
  return _(titles[cause]);
}

const char *
ks_gap_cause_to_string (KsGapCause cause)
{
  static const char * const names[KS_N_GAP_CAUSES] = {
    "dataloader", "sync", "osrt", "nvtx", "operator", "python", "cpu_busy",
    "no_cpu_activity", "unknown", "profiler",
  };

  g_return_val_if_fail (cause < KS_N_GAP_CAUSES, "");
  return names[cause];
}

const gint64 *
ks_analysis_latency_bucket_edges (guint *n_edges)
{
  /* 1-2-5 steps from 1 µs to 100 ms */
  static const gint64 edges[KS_LATENCY_N_BUCKETS + 1] = {
    0, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000,
    1000000, 2000000, 5000000, 10000000, 20000000, 50000000, 100000000,
    200000000, 500000000, 1000000000, G_MAXINT64,
  };

  if (n_edges != NULL)
    *n_edges = G_N_ELEMENTS (edges);
  return edges;
}
