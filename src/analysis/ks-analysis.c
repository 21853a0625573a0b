/* ks-analysis.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* KsAnalysis: the object, its cache on the trace, and the first pass that
 * every analysis shares (steps, devices, the operator index). The passes
 * in ks-analysis-*.c all start from the context built here; what they
 * fill in is read through ks-analysis-getters.c. */

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

guint32
ks_analysis_options_busy_kinds (const KsAnalysisOptions *options)
{
  guint32 kinds = KS_SLICE_KIND_BIT (KS_SLICE_KERNEL);

  if (options != NULL && options->busy_includes_copies)
    kinds |= KS_SLICE_KIND_BIT (KS_SLICE_MEMCPY) | KS_SLICE_KIND_BIT (KS_SLICE_MEMSET);
  return kinds;
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
