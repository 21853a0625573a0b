/* ks-bench-analysis.c: time every analysis on a large synthetic trace
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Builds a PyTorch-like trace with KsTraceBuilder (steps, DataLoader,
 * Python frames, nested operators with input shapes, launch calls,
 * kernels with arguments on several streams, copies, memory events) and
 * times ks_analysis_compute() pass by pass on one thread, then the
 * roofline (every operator's FLOPs and bytes from its shapes) over it.
 *
 *   bench/ks-bench-analysis [--units N] [--repeat N]
 *
 * One unit is five slices (a Python frame, an operator, a nested
 * operator, a launch call and its kernel); the default, 1,000,000 units,
 * gives a little over 5 million slices.
 */

#include "config.h"

#include <stdio.h>
#include <string.h>

#include "ks-analysis.h"
#include "ks-roofline.h"
#include "ks-trace-builder.h"

#define UNITS_PER_STEP 5000
#define N_STREAMS      4

typedef struct
{
  gint64      last;
  const char *message;
  gint64      times[16];
  const char *names[16];
  guint       n;
  GMutex      mutex;
} Timer;

static void
timer_notify (KsProgress *progress,
              gpointer    user_data)
{
  Timer *t = user_data;
  g_autofree char *message = ks_progress_dup_message (progress);
  gint64 now = g_get_monotonic_time ();

  g_mutex_lock (&t->mutex);
  if (g_strcmp0 (message, t->message) != 0)
    {
      if (t->message != NULL && t->n < G_N_ELEMENTS (t->times))
        {
          t->names[t->n] = t->message;
          t->times[t->n] = now - t->last;
          t->n++;
        }
      t->message = message ? g_intern_string (message) : NULL;
      t->last = now;
    }
  g_mutex_unlock (&t->mutex);
}

static KsTrace *
build_trace (guint64  units,
             guint64 *n_slices)
{
  g_autoptr(GError) error = NULL;
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_KINETO_JSON);
  guint32 process = ks_trace_builder_get_process (b, 4242);
  guint32 main_thread = ks_trace_builder_get_thread (b, process, 4242);
  guint32 main_track = ks_trace_builder_get_thread_track (b, main_thread);
  guint32 streams[N_STREAMS];
  const char *op_names[] = { "aten::linear", "aten::conv2d", "aten::add", "aten::relu", "aten::mul",
                             "aten::layer_norm", "aten::gelu", "aten::softmax" };
  const char *kernel_names[] = { "sm90_xmma_gemm_f16f16_f32", "elementwise_kernel_add", "vectorized_relu",
                                 "layer_norm_kernel", "softmax_warp_forward", "reduce_kernel" };
  const char *shapes[] = { "[[32, 1024], [1024, 1024]]", "[[32, 3, 224, 224], [64, 3, 7, 7]]",
                           "[[32, 1024], [32, 1024]]", "[[32, 4096]]" };
  guint32 op_ids[G_N_ELEMENTS (op_names)];
  guint32 inner_id, kernel_ids[G_N_ELEMENTS (kernel_names)], py_id, launch_id, step_names[256];
  guint32 loader_id, memcpy_id, sync_id;
  guint32 shape_args[G_N_ELEMENTS (shapes)];
  guint32 kernel_args;
  KsGpu gpu = { 0 };
  gint64 t = G_GINT64_CONSTANT (1000000000000);
  gint64 gpu_free = t;
  guint64 slices = 0;
  guint32 corr = 1;
  KsTrace *trace;

  gpu.device = 0;
  gpu.name = ks_trace_builder_intern (b, "Synthetic GPU");
  gpu.total_memory = G_GUINT64_CONSTANT (80) << 30;
  /* An H200's limits, so that the kernel pass estimates occupancy. */
  gpu.compute_major = 9;
  gpu.sm_count = 132;
  gpu.max_threads_per_block = 1024;
  gpu.max_threads_per_sm = 2048;
  gpu.registers_per_block = gpu.registers_per_sm = 65536;
  gpu.shared_memory_per_block = 49152;
  gpu.shared_memory_per_sm = 233472;
  gpu.warp_size = 32;
  ks_trace_builder_add_gpu (b, &gpu);

  for (guint i = 0; i < N_STREAMS; i++)
    streams[i] = ks_trace_builder_get_stream_track (b, 0, 7 + i);
  for (guint i = 0; i < G_N_ELEMENTS (op_names); i++)
    op_ids[i] = ks_trace_builder_intern (b, op_names[i]);
  for (guint i = 0; i < G_N_ELEMENTS (kernel_names); i++)
    kernel_ids[i] = ks_trace_builder_intern (b, kernel_names[i]);
  for (guint i = 0; i < G_N_ELEMENTS (shapes); i++)
    {
      g_autofree char *json = g_strdup_printf ("{\"External id\": 1, \"Input Dims\": %s, "
                                               "\"Input type\": [\"c10::Half\", \"c10::Half\"]}", shapes[i]);

      shape_args[i] = ks_trace_builder_add_args (b, json, strlen (json));
    }
  {
    const char *json = "{\"queued\": 0, \"device\": 0, \"stream\": 7, \"registers per thread\": 32, "
                       "\"grid\": [128, 1, 1], \"block\": [256, 1, 1], \"est. achieved occupancy %\": 75}";

    kernel_args = ks_trace_builder_add_args (b, json, strlen (json));
  }
  inner_id = ks_trace_builder_intern (b, "aten::addmm");
  py_id = ks_trace_builder_intern (b, "model.py(42): forward");
  launch_id = ks_trace_builder_intern (b, "cudaLaunchKernel");
  loader_id = ks_trace_builder_intern (b, "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__");
  memcpy_id = ks_trace_builder_intern (b, "Memcpy HtoD (Pinned -> Device)");
  sync_id = ks_trace_builder_intern (b, "cudaStreamSynchronize");

  for (guint64 u = 0; u < units; u += UNITS_PER_STEP)
    {
      guint64 step = u / UNITS_PER_STEP;
      gint64 step_start = t;
      guint64 end_unit = MIN (units, u + UNITS_PER_STEP);
      g_autofree char *step_name = g_strdup_printf ("ProfilerStep#%" G_GUINT64_FORMAT, step);
      KsGpuInfo copy = { 0 };

      step_names[step % 256] = ks_trace_builder_intern (b, step_name);

      /* input loading and the copy of the batch */
      ks_trace_builder_add_slice (b, main_track, t + 100, t + 400000, KS_SLICE_CPU_OP, loader_id,
                                  0, 0, 0, 0, NULL);
      t += 401000;
      copy.copy.bytes = 4 << 20;
      copy.copy.copy_kind = KS_COPY_HTOD;
      copy.copy.src_kind = KS_MEM_PINNED;
      copy.copy.dst_kind = KS_MEM_DEVICE;
      ks_trace_builder_add_slice (b, main_track, t, t + 5000, KS_SLICE_CUDA_RUNTIME,
                                  ks_trace_builder_intern (b, "cudaMemcpyAsync"), 0, corr, 0, 0, NULL);
      ks_trace_builder_add_slice (b, streams[0], MAX (t + 6000, gpu_free), MAX (t + 6000, gpu_free) + 80000,
                                  KS_SLICE_MEMCPY, memcpy_id, 0, corr++, 0, 0, &copy);
      gpu_free = MAX (t + 6000, gpu_free) + 80000;
      slices += 3;
      t += 6000;

      for (guint64 i = u; i < end_unit; i++)
        {
          guint k = i % G_N_ELEMENTS (kernel_names);
          guint32 stream = streams[i % N_STREAMS];
          gint64 ks, ke;
          KsGpuInfo info = { 0 };
          KsMemoryEvent mem = { 0 };

          /* python frame > operator > nested operator > launch */
          ks_trace_builder_add_slice (b, main_track, t, t + 9000, KS_SLICE_PYTHON, py_id, 0, 0, 0, 0, NULL);
          ks_trace_builder_add_slice (b, main_track, t + 500, t + 8500, KS_SLICE_CPU_OP,
                                      op_ids[i % G_N_ELEMENTS (op_names)], 0, 0, 0,
                                      shape_args[i % G_N_ELEMENTS (shapes)], NULL);
          ks_trace_builder_add_slice (b, main_track, t + 1000, t + 8000, KS_SLICE_CPU_OP, inner_id,
                                      0, 0, 0, 0, NULL);
          ks_trace_builder_add_slice (b, main_track, t + 2000, t + 6000, KS_SLICE_CUDA_RUNTIME, launch_id,
                                      0, corr, 0, 0, NULL);
          ks = MAX (t + 7000, gpu_free);
          ke = ks + 3000 + (i % 7) * 1000;
          info.kernel.grid[0] = 128;
          info.kernel.grid[1] = info.kernel.grid[2] = 1;
          info.kernel.block[0] = 256;
          info.kernel.block[1] = info.kernel.block[2] = 1;
          info.kernel.registers = 32;
          ks_trace_builder_add_slice (b, stream, ks, ke, KS_SLICE_KERNEL, kernel_ids[k], 0, corr++, 0,
                                      kernel_args, &info);
          gpu_free = ks + 2000;
          slices += 5;

          if (i % 16 == 0)
            {
              mem.ts = t + 1500;
              mem.address = 0x7f0000000000ull + (i % 4096) * 0x100000;
              mem.bytes = 1 << 20;
              mem.total_allocated = -1;
              mem.total_reserved = -1;
              mem.thread = main_thread;
              mem.device = 0;
              ks_trace_builder_add_memory_event (b, &mem);
              mem.ts = t + 8800;
              mem.bytes = -(1 << 20);
              ks_trace_builder_add_memory_event (b, &mem);
            }
          t += 10000;
        }

      ks_trace_builder_add_slice (b, main_track, t, t + 20000, KS_SLICE_CUDA_RUNTIME, sync_id,
                                  0, 0, 0, 0, NULL);
      t = MAX (t + 20000, gpu_free) + 1000;
      ks_trace_builder_add_slice (b, main_track, step_start, t, KS_SLICE_USER_ANNOTATION,
                                  step_names[step % 256], 0, 0, 0, 0, NULL);
      slices += 2;
      t += 1000;
    }

  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);
  *n_slices = slices;
  return trace;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = g_option_context_new ("— time the analyses on a synthetic trace");
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  gint64 units = 1000000;
  gint repeat = 3;
  guint64 n_slices = 0;
  gint64 t0;
  double build_s;
  const GOptionEntry entries[] = {
    { "units", 'u', 0, G_OPTION_ARG_INT64, &units, "Launch units (5 slices each)", "N" },
    { "repeat", 'r', 0, G_OPTION_ARG_INT, &repeat, "Runs per configuration", "N" },
    { NULL }
  };
  static const struct {
    const char *label;
    gint64      threshold_ns;
    gboolean    copies;
  } configs[] = {
    { "defaults (gaps > 10 µs)", 10000, FALSE },
    { "copies busy, gaps > 0", 0, TRUE },
  };

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }

  t0 = g_get_monotonic_time ();
  trace = build_trace (units, &n_slices);
  build_s = (g_get_monotonic_time () - t0) / 1e6;

  printf ("synthetic trace: %" G_GUINT64_FORMAT " slices, %" G_GINT64_FORMAT " kernels, "
          "%u memory events, built in %.2f s\n\n", n_slices, units, trace->n_memory_events, build_s);

  for (guint c = 0; c < G_N_ELEMENTS (configs); c++)
    for (gint r = 0; r < repeat; r++)
      {
        g_autoptr(KsProgress) progress = ks_progress_new ();
        g_autoptr(KsAnalysis) analysis = NULL;
        KsAnalysisOptions options;
        Timer timer = { 0 };
        guint n_gaps, n_ops, n_kernels;
        double total;

        ks_analysis_options_init (&options);
        options.gap_threshold_ns = configs[c].threshold_ns + r;   /* + r: never the cached result */
        options.busy_includes_copies = configs[c].copies;
        g_mutex_init (&timer.mutex);
        timer.last = g_get_monotonic_time ();
        ks_progress_set_notify (progress, timer_notify, &timer, NULL);

        t0 = g_get_monotonic_time ();
        analysis = ks_analysis_compute (trace, &options, progress, NULL, &error);
        total = (g_get_monotonic_time () - t0) / 1e6;
        g_assert_no_error (error);

        ks_analysis_get_gaps (analysis, &n_gaps);
        ks_analysis_get_operators (analysis, KS_OPERATOR_BY_NAME_AND_SHAPE, &n_ops);
        ks_analysis_get_kernels (analysis, &n_kernels);

        if (r == 0)
          {
            printf ("%s: busy %.1f %%, %u gaps, %u operator groups, %u kernel names\n",
                    configs[c].label, ks_analysis_get_gpu (analysis, 0)->busy_pct, n_gaps, n_ops, n_kernels);
            printf ("  %-32s %9s\n", "pass", "seconds");
          }
        for (guint i = 0; i < timer.n; i++)
          if (r == 0)
            printf ("  %-32s %9.3f\n", timer.names[i], timer.times[i] / 1e6);
        printf ("  %-32s %9.3f\n", r == 0 ? "total" : "total (again, uncached)", total);
        g_mutex_clear (&timer.mutex);

        {
          g_autoptr(KsRoofline) roofline = NULL;
          guint n_rows;

          t0 = g_get_monotonic_time ();
          roofline = ks_roofline_new (trace, analysis, NULL);
          ks_roofline_get_operators (roofline, FALSE, &n_rows);
          printf ("  %-32s %9.3f  (%u operators with a cost)\n", "roofline (stats --report roofline)",
                  (g_get_monotonic_time () - t0) / 1e6, n_rows);
        }
      }

  return 0;
}
