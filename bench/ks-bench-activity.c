/* ks-bench-activity.c: the SM and tensor activity pass on a long run
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A recording's worth of steps and GPM rows: STEPS steps of 100 ms
 * (ProfilerStep ranges, one 80 ms kernel each) and, on each of GPUS
 * GPUs, "SM activity" and "Tensor activity" sampled HZ times a second,
 * as `kinescope-cli record -t gpu-metrics` writes them. Times the
 * activity pass (per GPU and per step: "Following SM and tensor
 * activity") against the whole analysis, by the analysis' progress
 * messages, on one thread.
 *
 *   bench/ks-bench-activity [--steps N] [--gpus N] [--hz N] [--repeat N]
 *
 * The default, 6,000 steps, is ten minutes; at 10 Hz on 8 GPUs that is
 * 96,000 GPM samples and 48,000 step rows.
 */

#include "config.h"

#include <stdio.h>

#include "ks-analysis.h"
#include "ks-trace-builder.h"

#define MS G_GINT64_CONSTANT (1000000)
#define PASS "Following SM and tensor activity"

/* The time between the activity pass's progress message and the next. */
typedef struct
{
  gint64   started;
  gint64   pass_us;
  gboolean in_pass;
} Timer;

static void
timer_notify (KsProgress *progress,
              gpointer    user_data)
{
  Timer *t = user_data;
  g_autofree char *message = ks_progress_dup_message (progress);
  gint64 now = g_get_monotonic_time ();

  /* the analysis runs on this thread: no lock */
  if (t->in_pass && g_strcmp0 (message, PASS) != 0)
    {
      t->pass_us = now - t->started;
      t->in_pass = FALSE;
    }
  else if (!t->in_pass && g_strcmp0 (message, PASS) == 0)
    {
      t->started = now;
      t->in_pass = TRUE;
    }
}

static KsTrace *
build_trace (gint64   steps,
             gint     gpus,
             gint     hz)
{
  g_autoptr(GError) error = NULL;
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_KSCOPE);
  guint32 process = ks_trace_builder_get_process (b, 4242);
  guint32 track = ks_trace_builder_get_thread_track (b, ks_trace_builder_get_thread (b, process, 4242));
  guint32 step_name = ks_trace_builder_intern (b, "ProfilerStep#1");
  guint32 kernel = ks_trace_builder_intern (b, "sm90_xmma_gemm_f16f16_f32");
  gint64 t0 = G_GINT64_CONSTANT (1000000000000), end = t0 + steps * 100 * MS;
  KsTrace *trace;

  for (gint g = 0; g < gpus; g++)
    {
      KsGpu gpu = { 0 };
      guint32 stream = ks_trace_builder_get_stream_track (b, g, 7);

      gpu.device = g;
      gpu.name = ks_trace_builder_intern (b, "Synthetic GPU");
      ks_trace_builder_add_gpu (b, &gpu);
      for (gint64 s = 0; s < steps; s++)
        ks_trace_builder_add_slice (b, stream, t0 + s * 100 * MS + 10 * MS, t0 + s * 100 * MS + 90 * MS,
                                    KS_SLICE_KERNEL, kernel, 0, 0, 0, 0, NULL);
      {
        guint32 sm = ks_trace_builder_get_counter (b, "SM activity", "%", g, KS_NO_INDEX);
        guint32 tensor = ks_trace_builder_get_counter (b, "Tensor activity", "%", g, KS_NO_INDEX);

        for (gint64 t = t0 + G_GINT64_CONSTANT (1000000000) / hz; t <= end; t += G_GINT64_CONSTANT (1000000000) / hz)
          {
            ks_trace_builder_add_counter_sample (b, sm, t, 40 + (t / MS) % 50);
            ks_trace_builder_add_counter_sample (b, tensor, t, 10 + (t / MS) % 30);
          }
      }
    }
  for (gint64 s = 0; s < steps; s++)
    ks_trace_builder_add_slice (b, track, t0 + s * 100 * MS, t0 + (s + 1) * 100 * MS, KS_SLICE_USER_ANNOTATION,
                                step_name, 0, 0, 0, 0, NULL);
  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);
  return trace;
}

static void
analyse (KsTrace *trace,
         gint     run)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KsAnalysis) analysis = NULL;
  g_autoptr(KsProgress) progress = ks_progress_new ();
  KsAnalysisOptions options;
  Timer timer = { 0 };
  guint n_rows;
  gint64 t0;
  double total;

  ks_analysis_options_init (&options);
  options.gap_threshold_ns = 10000 + run;   /* + run: never the cached result */
  ks_progress_set_notify (progress, timer_notify, &timer, NULL);
  t0 = g_get_monotonic_time ();
  analysis = ks_analysis_compute (trace, &options, progress, NULL, &error);
  total = (g_get_monotonic_time () - t0) / 1e6;
  g_assert_no_error (error);
  ks_analysis_get_step_activity (analysis, &n_rows);
  printf ("  activity pass %.3f s of %.3f s (%u step rows)\n", timer.pass_us / 1e6, total, n_rows);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = g_option_context_new ("— time the SM and tensor activity pass");
  g_autoptr(GError) error = NULL;
  gint64 steps = 6000;
  gint gpus = 8, hz = 10, repeat = 3;
  const GOptionEntry entries[] = {
    { "steps", 's', 0, G_OPTION_ARG_INT64, &steps, "Steps of 100 ms", "N" },
    { "gpus", 'g', 0, G_OPTION_ARG_INT, &gpus, "GPUs", "N" },
    { "hz", 0, 0, G_OPTION_ARG_INT, &hz, "GPM samples per second", "N" },
    { "repeat", 'r', 0, G_OPTION_ARG_INT, &repeat, "Runs each", "N" },
    { NULL }
  };

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || steps < 1 || gpus < 1 || hz < 1 || hz > 1000)
    {
      g_printerr ("%s\n", error != NULL ? error->message : "--steps, --gpus and --hz (1–1000) must be positive");
      return 2;
    }

  {
    g_autoptr(KsTrace) trace = build_trace (steps, gpus, hz);
    guint64 samples = 0;

    for (guint32 c = 0; c < trace->n_counters; c++)
      samples += trace->counters[c].n_samples;
    printf ("%" G_GINT64_FORMAT " steps, %d GPUs, %" G_GUINT64_FORMAT " GPM samples\n", steps, gpus, samples);
    for (gint r = 0; r < repeat; r++)
      analyse (trace, r);
  }
  return 0;
}
