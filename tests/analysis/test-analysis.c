/* test-analysis.c: analyses on hand-made traces
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "test-analysis-fixture.h"

/* Busy time and window */

static KsTrace *
make_busy_trace (void)
{
  Fixture f;
  guint32 stream8;

  fixture_init (&f);
  stream8 = ks_trace_builder_get_stream_track (f.b, 0, 8);
  cpu (&f, f.main_track, 0, 1000000, KS_SLICE_USER_ANNOTATION, "ProfilerStep#1", NULL);
  gpu_work (&f, f.stream, 100000, 200000, KS_SLICE_KERNEL, "k1", 0, NULL, NULL);
  gpu_work (&f, stream8, 150000, 300000, KS_SLICE_KERNEL, "k2", 0, NULL, NULL);
  gpu_work (&f, f.stream, 500000, 600000, KS_SLICE_KERNEL, "k1", 0, NULL, NULL);
  gpu_work (&f, f.stream, 700000, 750000, KS_SLICE_MEMCPY, "Memcpy HtoD (Pinned -> Device)", 0, NULL, NULL);
  /* a kernel after the step: busy time but outside the window */
  gpu_work (&f, f.stream, 1100000, 1200000, KS_SLICE_KERNEL, "k1", 0, NULL, NULL);
  return fixture_finish (&f);
}

static void
test_busy (void)
{
  g_autoptr(KsTrace) trace = make_busy_trace ();
  g_autoptr(KsAnalysis) a = analyse (trace, 10000, FALSE);
  g_autoptr(KsAnalysis) c = analyse (trace, 10000, TRUE);
  const KsGpuSummary *gpu;
  guint n;

  gpu = ks_analysis_get_gpus (a, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (gpu->device, ==, 0);
  /* Neither the GPU's limits nor the kernels' geometry are known. */
  g_assert_cmpfloat (gpu->est_sm_efficiency_pct, <, 0);
  g_assert_cmpfloat (gpu->est_occupancy_pct, <, 0);
  g_assert_cmpstr (ks_trace_string (trace, gpu->name), ==, "Test GPU");
  g_assert_cmpuint (gpu->n_kernels, ==, 4);
  g_assert_cmpint (gpu->kernel_time_ns, ==, 100000 + 150000 + 100000 + 100000);
  /* union: [100k, 300k] + [500k, 600k] + [1.1M, 1.2M] */
  g_assert_cmpint (gpu->busy_ns, ==, 400000);
  g_assert_true (gpu->window_is_steps);
  g_assert_cmpint (gpu->window_ns, ==, 1000000);
  g_assert_cmpint (gpu->busy_in_window_ns, ==, 300000);
  g_assert_cmpfloat_with_epsilon (gpu->busy_pct, 30.0, 1e-9);

  /* gaps: [0,100k] [300k,500k] [600k,700k] [750k,1M] */
  g_assert_cmpuint (gpu->n_gaps, ==, 4);
  g_assert_cmpint (gpu->gap_total_ns, ==, 100000 + 200000 + 100000 + 250000);
  g_assert_cmpint (gpu->largest_gap_ns, ==, 250000);

  /* Utilization buckets: 5 µs buckets over 1 ms */
  g_assert_cmpint (gpu->util_bucket_ns, ==, 5000);
  g_assert_cmpuint (gpu->n_util, ==, 200);
  g_assert_cmpfloat (gpu->util[0], ==, 0.0);
  g_assert_cmpfloat (gpu->util[20], ==, 1.0);
  g_assert_cmpfloat (gpu->util[140], ==, 0.0);

  gpu = ks_analysis_get_gpus (c, &n);
  g_assert_cmpint (gpu->busy_in_window_ns, ==, 350000);
  g_assert_cmpint (gpu->busy_ns, ==, 450000);
  g_assert_cmpfloat_with_epsilon (gpu->busy_pct, 35.0, 1e-9);
  /* Gaps do not depend on the toggle */
  g_assert_cmpuint (gpu->n_gaps, ==, 4);

  /* The low-busy advice points at the largest gap first */
  {
    const KsAdvice *advice = find_advice (a, "low-gpu-busy");

    g_assert_nonnull (advice);
    g_assert_cmpint (advice->device, ==, 0);
    g_assert_cmpuint (advice->n_ranges, ==, 4);
    g_assert_cmpint (advice->ranges[0].start, ==, 750000);
    g_assert_cmpint (advice->ranges[0].end, ==, 1000000);
    g_assert_nonnull (strstr (advice->text, "30.0"));
  }
}

/* Two kernels 9·10^18 ns (285 years) apart, as a damaged recording can
 * hold (found by fuzz-record-wire; the trace builder refuses times 2^62 ns
 * or more from zero, so this is about the widest a trace gets): the
 * utilization buckets still number at most 200 and nothing overflows (the
 * bucket size came out at 3.2·10^18 ns, 2 buckets). */
static void
test_huge_extent (void)
{
  Fixture f;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  const KsGpuSummary *gpu;
  guint n;

  fixture_init (&f);
  gpu_work (&f, f.stream, -G_GINT64_CONSTANT (4500000000000000000) - BASE,
            -G_GINT64_CONSTANT (4500000000000000000) - BASE + 100000, KS_SLICE_KERNEL, "k1", 0, NULL, NULL);
  gpu_work (&f, f.stream, G_GINT64_CONSTANT (4500000000000000000) - BASE,
            G_GINT64_CONSTANT (4500000000000000000) - BASE + 100000, KS_SLICE_KERNEL, "k1", 0, NULL, NULL);
  trace = fixture_finish (&f);
  a = analyse (trace, 10000, FALSE);
  gpu = ks_analysis_get_gpus (a, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (gpu->n_kernels, ==, 2);
  g_assert_cmpint (gpu->busy_ns, ==, 200000);
  /* 9e18 ns in at most 200 buckets: 5e16 ns each, the 1-2-5 step above */
  g_assert_cmpint (gpu->util_bucket_ns, ==, G_GINT64_CONSTANT (50000000000000000));
  g_assert_cmpuint (gpu->n_util, <=, 200);
  g_assert_cmpuint (gpu->n_util, >=, 100);
}

static void
test_no_steps_window (void)
{
  Fixture f;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  const KsGpuSummary *gpu;

  fixture_init (&f);
  cpu (&f, f.main_track, 0, 50000, KS_SLICE_CPU_OP, "aten::empty", NULL);
  gpu_work (&f, f.stream, 100000, 200000, KS_SLICE_KERNEL, "k", 0, NULL, NULL);
  gpu_work (&f, f.stream, 400000, 500000, KS_SLICE_MEMSET, "Memset (Device)", 0, NULL, NULL);
  cpu (&f, f.main_track, 210000, 390000, KS_SLICE_CUDA_RUNTIME, "cudaDeviceSynchronize", NULL);
  trace = fixture_finish (&f);
  a = analyse (trace, 10000, FALSE);

  /* Without steps, advice does not speak of them */
  g_assert_cmpstr (find_advice (a, "sync-calls")->title, ==,
                   "Synchronizing CUDA calls while the GPU works");

  gpu = ks_analysis_get_gpu (a, 0);
  g_assert_nonnull (gpu);
  g_assert_false (gpu->window_is_steps);
  /* first to last GPU activity */
  g_assert_cmpint (gpu->window_start, ==, 100000);
  g_assert_cmpint (gpu->window_end, ==, 500000);
  g_assert_cmpint (gpu->window_ns, ==, 400000);
  g_assert_cmpint (gpu->busy_in_window_ns, ==, 100000);
  g_assert_cmpfloat_with_epsilon (gpu->busy_pct, 25.0, 1e-9);
  g_assert_cmpuint (gpu->n_gaps, ==, 1);
  g_assert_cmpuint (ks_analysis_get_steps (a, NULL) == NULL, ==, TRUE);
}

/* Gap classes and causes */

static KsTrace *
make_gap_trace (void)
{
  Fixture f;
  guint32 nvtx;

  fixture_init (&f);
  nvtx = ks_trace_builder_get_nvtx_track (f.b, f.main_thread);
  cpu (&f, f.main_track, 0, 1000000, KS_SLICE_USER_ANNOTATION, "ProfilerStep#1", NULL);
  launch (&f, f.main_track, 90000, 95000, "cudaLaunchKernel", 100000, 200000, KS_SLICE_KERNEL, "k1");
  cpu (&f, f.main_track, 150000, 245000, KS_SLICE_CPU_OP,
       "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", NULL);
  launch (&f, f.main_track, 250000, 260000, "cudaLaunchKernel", 270000, 300000, KS_SLICE_KERNEL, "k2");
  launch (&f, f.main_track, 262000, 265000, "cudaLaunchKernel", 400000, 450000, KS_SLICE_KERNEL, "k3");
  cpu (&f, f.main_track, 305000, 398000, KS_SLICE_CUDA_RUNTIME, "cudaStreamSynchronize", NULL);
  launch (&f, f.main_track, 440000, 445000, "cudaLaunchKernel", 450020, 500000, KS_SLICE_KERNEL, "k4");
  cpu (&f, f.main_track, 485000, 590000, KS_SLICE_CPU_OP, "aten::linear", NULL);
  cpu (&f, nvtx, 480000, 570000, KS_SLICE_NVTX, "forward", NULL);
  launch (&f, f.main_track, 560000, 565000, "cudaLaunchKernel", 600000, 650000, KS_SLICE_KERNEL, "k5");
  cpu (&f, f.main_track, 600000, 900000, KS_SLICE_PYTHON, "train.py(10): step", NULL);
  cpu (&f, f.main_track, 640000, 710000, KS_SLICE_CPU_OP, "aten::relu", NULL);
  launch (&f, f.main_track, 700000, 705000, "cudaLaunchKernel", 720000, 800000, KS_SLICE_KERNEL, "k6");
  launch (&f, f.main_track, 850000, 855000, "cudaLaunchKernel", 870000, 900000, KS_SLICE_KERNEL, "k7");
  return fixture_finish (&f);
}

static void
test_gap_classes (void)
{
  static const struct {
    gint64      start;
    gint64      end;
    KsGapClass  klass;
    KsGapCause  cause;
    const char *name;
  } expected[] = {
    { 0, 100000, KS_GAP_HOST_WAIT, KS_GAP_CAUSE_NO_CPU_ACTIVITY, "" },
    { 200000, 270000, KS_GAP_HOST_WAIT, KS_GAP_CAUSE_DATALOADER,
      "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__" },
    { 300000, 400000, KS_GAP_OTHER, KS_GAP_CAUSE_SYNC, "cudaStreamSynchronize" },
    { 450000, 450020, KS_GAP_KERNEL_WAIT, KS_GAP_CAUSE_NO_CPU_ACTIVITY, "" },
    { 500000, 600000, KS_GAP_HOST_WAIT, KS_GAP_CAUSE_NVTX, "forward" },
    { 650000, 720000, KS_GAP_HOST_WAIT, KS_GAP_CAUSE_OPERATOR, "aten::relu" },
    { 800000, 870000, KS_GAP_HOST_WAIT, KS_GAP_CAUSE_PYTHON, "train.py(10): step" },
    { 900000, 1000000, KS_GAP_OTHER, KS_GAP_CAUSE_NO_CPU_ACTIVITY, "" },
  };
  g_autoptr(KsTrace) trace = make_gap_trace ();
  g_autoptr(KsAnalysis) all = analyse (trace, 0, FALSE);
  g_autoptr(KsAnalysis) def = analyse (trace, 10000, FALSE);
  const KsGap *gaps;
  const guint *order;
  const KsGapCauseTotal *causes;
  const KsGpuSummary *gpu;
  guint n, n_causes;

  gaps = ks_analysis_get_gaps (all, &n);
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < n; i++)
    {
      g_test_message ("gap %u: %" G_GINT64_FORMAT "-%" G_GINT64_FORMAT " class %d cause %d %s",
                      i, gaps[i].start, gaps[i].end, gaps[i].klass, gaps[i].cause,
                      ks_trace_string (trace, gaps[i].cause_name));
      g_assert_cmpint (gaps[i].start, ==, expected[i].start);
      g_assert_cmpint (gaps[i].end, ==, expected[i].end);
      g_assert_cmpint (gaps[i].klass, ==, expected[i].klass);
      g_assert_cmpint (gaps[i].cause, ==, expected[i].cause);
      g_assert_cmpstr (ks_trace_string (trace, gaps[i].cause_name), ==, expected[i].name);
      g_assert_cmpuint (gaps[i].thread, !=, KS_NO_INDEX);
    }
  /* The sync gap names the launch of k3 */
  g_assert_cmpstr (ks_trace_string (trace, trace->tracks[gaps[2].next_track].name_id[gaps[2].next_slice]), ==, "k3");
  g_assert_cmpstr (ks_trace_string (trace, trace->tracks[gaps[2].launch_track].name_id[gaps[2].launch_slice]),
                   ==, "cudaLaunchKernel");
  g_assert_cmpuint (gaps[7].next_track, ==, KS_NO_INDEX);

  gpu = ks_analysis_get_gpu (all, 0);
  g_assert_cmpint (gpu->gap_class_ns[KS_GAP_KERNEL_WAIT], ==, 20);
  g_assert_cmpint (gpu->gap_class_ns[KS_GAP_OTHER], ==, 200000);
  g_assert_cmpint (gpu->gap_class_ns[KS_GAP_HOST_WAIT], ==, 100000 + 70000 + 100000 + 70000 + 70000);

  /* Largest first; equal lengths in time order */
  order = ks_analysis_get_gaps_by_duration (all, &n);
  g_assert_cmpint (gaps[order[0]].start, ==, 0);
  g_assert_cmpint (gaps[order[1]].start, ==, 300000);
  g_assert_cmpint (gaps[order[2]].start, ==, 500000);
  g_assert_cmpint (gaps[order[3]].start, ==, 900000);
  g_assert_cmpint (gaps[order[n - 1]].start, ==, 450000);

  /* Totals per cause: no CPU activity 100k + 20 + 100k is the largest */
  causes = ks_analysis_get_gap_causes (all, &n_causes);
  g_assert_cmpuint (n_causes, ==, 6);
  g_assert_cmpint (causes[0].cause, ==, KS_GAP_CAUSE_NO_CPU_ACTIVITY);
  g_assert_cmpuint (causes[0].count, ==, 3);
  g_assert_cmpint (causes[0].total_ns, ==, 200020);
  g_assert_cmpint (causes[0].largest_ns, ==, 100000);

  /* The default threshold drops the 20 ns gap */
  gaps = ks_analysis_get_gaps (def, &n);
  g_assert_cmpuint (n, ==, 7);
  g_assert_cmpuint (ks_analysis_get_gpu (def, 0)->n_gaps, ==, 7);

  /* The synchronizing call is advice, pointing at it */
  {
    const KsAdvice *advice = find_advice (def, "sync-calls");

    g_assert_nonnull (advice);
    g_assert_cmpstr (advice->title, ==, "Synchronizing CUDA calls in the steps");
    g_assert_cmpuint (advice->n_ranges, ==, 1);
    g_assert_cmpint (advice->ranges[0].start, ==, 305000);
    g_assert_cmpstr (ks_trace_string (trace, advice->highlight_name), ==, "cudaStreamSynchronize");
  }
}

/* Gap causes from sampled Python stacks */

/* @n frames, innermost first, sampled on @thread every @every ns from
 * @t0 to @t1 (both included). */
static void
sample_run (Fixture           *f,
            guint32            thread,
            gint64             t0,
            gint64             t1,
            gint64             every,
            const char * const frames[][2],
            const guint        lines[],
            guint              n)
{
  KsSampleFrame stack[8];

  g_assert_cmpuint (n, <=, G_N_ELEMENTS (stack));
  for (guint i = 0; i < n; i++)
    {
      stack[i].function = ks_trace_builder_intern (f->b, frames[i][0]);
      stack[i].file = ks_trace_builder_intern (f->b, frames[i][1]);
      stack[i].line = lines[i];
    }
  for (gint64 t = t0; t <= t1; t += every)
    g_assert_true (ks_trace_builder_add_sample (f->b, thread, BASE + t, stack, n));
}

static const char * const loader_frames[][2] = {
  { "decode_batch", "/data/pkg/loader.py" }, { "load", "/data/pkg/loader.py" }, { "main", "train.py" },
};
static const guint loader_lines[] = { 57, 40, 10 };
static const char * const forward_frames[][2] = {
  { "Net.forward", "/srv/model/model.py" }, { "main", "train.py" },
};
static const guint forward_lines[] = { 88, 10 };
static const char * const hook_frames[][2] = {
  { "backward_hook", "/usr/lib/python3/dist-packages/torch/autograd/graph.py" },
};
static const guint hook_lines[] = { 744 };

static KsTrace *
make_sampled_gap_trace (void)
{
  Fixture f;

  fixture_init (&f);
  launch (&f, f.main_track, 0, 1000, "cudaLaunchKernel", 1000, 2000, KS_SLICE_KERNEL, "k1");
  /* host wait 2000-100000, the main thread in decode_batch */
  launch (&f, f.main_track, 100000, 100500, "cudaLaunchKernel", 101000, 102000, KS_SLICE_KERNEL, "k2");
  /* host wait 102000-250000 before the autograd thread's launch: that
   * thread recorded nothing, the main thread was in forward */
  launch (&f, f.second_track, 250000, 250500, "cudaLaunchKernel", 251000, 252000, KS_SLICE_KERNEL, "k3");
  /* host wait 252000-350000: the launching thread's own samples win */
  launch (&f, f.second_track, 350000, 350500, "cudaLaunchKernel", 351000, 352000, KS_SLICE_KERNEL, "k4");

  sample_run (&f, f.main_thread, 0, 140000, 10000, loader_frames, loader_lines, 3);
  sample_run (&f, f.main_thread, 150000, 300000, 10000, forward_frames, forward_lines, 2);
  sample_run (&f, f.second_thread, 260000, 340000, 10000, hook_frames, hook_lines, 1);
  return fixture_finish (&f);
}

/* The launching thread sleeps in cudaStreamSynchronize through a gap
 * while its other thread's samples are in the user's holdout_decode,
 * under a library frame: the gap's row names holdout_decode. */
static void
test_gap_meanwhile_samples (void)
{
  static const char * const frames[][2] = {
    { "_decode", "/opt/venv/lib/python3.12/site-packages/PIL/Image.py" },
    { "holdout_decode", "/home/u/nosteps.py" }, { "main", "/home/u/nosteps.py" },
  };
  static const guint lines[] = { 812, 41, 90 };
  Fixture f;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) analysis = NULL;
  g_autoptr(KsReport) report = NULL;
  g_autofree char *text = NULL;
  const KsReportColumn *columns;
  const KsGap *gaps;
  guint n, n_columns;

  fixture_init (&f);
  launch (&f, f.main_track, 0, 1000, "cudaLaunchKernel", 1000, 2000, KS_SLICE_KERNEL, "k1");
  cpu (&f, f.main_track, 2500, 99000, KS_SLICE_CUDA_RUNTIME, "cudaStreamSynchronize", NULL);
  launch (&f, f.main_track, 100000, 100500, "cudaLaunchKernel", 101000, 102000, KS_SLICE_KERNEL, "k2");
  sample_run (&f, f.second_thread, 0, 110000, 10000, frames, lines, 3);
  trace = fixture_finish (&f);
  analysis = analyse (trace, 10000, FALSE);

  gaps = ks_analysis_get_gaps (analysis, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (gaps[0].cause, ==, KS_GAP_CAUSE_SYNC);
  g_assert_cmpuint (gaps[0].other_track, !=, KS_NO_INDEX);
  text = ks_gap_format_meanwhile (trace, &gaps[0]);
  g_assert_cmpstr (text, ==, "nosteps.py:41 holdout_decode on thread 101");

  report = ks_report_new_gaps (trace, analysis);
  columns = ks_report_gap_columns (&n_columns);
  {
    g_autofree char *was_in = ks_report_get_text (report, ks_report_find_column (columns, n_columns, "cpu_was_in"), 0);

    g_assert_cmpstr (was_in, ==, "Synchronization: cudaStreamSynchronize; meanwhile nosteps.py:41 holdout_decode on thread 101");
  }
}

/* What a gap's text must be, made from the frame the way the reports say
 * it: basename, line, function. */
static char *
expected_python_text (const char * const frame[2],
                      guint              line)
{
  g_autofree char *base = g_path_get_basename (frame[1]);

  return g_strdup_printf ("Python: %s:%u %s", base, line, frame[0]);
}

static void
test_gap_python_samples (void)
{
  static const struct {
    gint64  start;
    gint64  end;
    guint   frame;   /* 0 loader, 1 forward, 2 hook */
    gboolean main;   /* from the main thread's samples */
  } expected[] = {
    { 2000, 101000, 0, TRUE },
    { 102000, 251000, 1, TRUE },
    { 252000, 351000, 2, FALSE },
  };
  const char * const *frames[] = { loader_frames[0], forward_frames[0], hook_frames[0] };
  const guint lines[] = { loader_lines[0], forward_lines[0], hook_lines[0] };
  g_autoptr(KsTrace) trace = make_sampled_gap_trace ();
  g_autoptr(KsAnalysis) analysis = analyse (trace, 10000, FALSE);
  KsReport *report = ks_report_new_gaps (trace, analysis);
  KsReport *causes_report = ks_report_new_gap_causes (trace, analysis);
  const KsReportColumn *columns, *was_in, *name_column;
  const KsReportColumn *cause_cols[16];
  const KsReportColumn *title_column = NULL;
  const KsGapCauseTotal *causes;
  const KsGap *gaps;
  guint n, n_columns, n_causes;

  columns = ks_report_gap_columns (&n_columns);
  was_in = ks_report_find_column (columns, n_columns, "cpu_was_in");
  name_column = ks_report_find_column (columns, n_columns, "cause_name");
  g_assert_nonnull (was_in);
  g_assert_nonnull (name_column);

  gaps = ks_analysis_get_gaps (analysis, &n);
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *want = expected_python_text (frames[expected[i].frame], lines[expected[i].frame]);
      g_autofree char *text = ks_report_get_text (report, was_in, i);
      g_autofree char *name = ks_report_get_text (report, name_column, i);
      const KsTrack *track;

      g_assert_cmpint (gaps[i].start, ==, expected[i].start);
      g_assert_cmpint (gaps[i].end, ==, expected[i].end);
      g_assert_cmpint (gaps[i].klass, ==, KS_GAP_HOST_WAIT);
      g_assert_cmpint (gaps[i].cause, ==, KS_GAP_CAUSE_PYTHON);
      g_assert_cmpstr (ks_trace_string (trace, gaps[i].cause_name), ==, frames[expected[i].frame][0]);
      g_assert_cmpuint (gaps[i].cause_track, <, trace->n_tracks);
      track = &trace->tracks[gaps[i].cause_track];
      g_assert_cmpint (track->kind, ==, KS_TRACK_SAMPLES);
      g_assert_cmpint (track->slice_kind[gaps[i].cause_slice], ==, KS_SLICE_SAMPLE);
      g_assert_cmpuint (track->thread, ==, expected[i].main ? 0 : 1);
      g_assert_cmpstr (text, ==, want);
      g_assert_cmpstr (name, ==, want + strlen ("Python: "));
    }

  /* One total per frame, under the same text */
  causes = ks_analysis_get_gap_causes (analysis, &n_causes);
  g_assert_cmpuint (n_causes, ==, 3);
  n_columns = ks_report_get_format_columns (causes_report, KS_REPORT_TABLE, cause_cols, G_N_ELEMENTS (cause_cols));
  for (guint c = 0; c < n_columns; c++)
    if (g_str_equal (cause_cols[c]->key, "title"))
      title_column = cause_cols[c];
  g_assert_nonnull (title_column);
  for (guint i = 0; i < n_causes; i++)
    {
      /* the longest gap (149 µs) first */
      static const guint order[] = { 1, 0, 2 };
      g_autofree char *want = expected_python_text (frames[order[i]], lines[order[i]]);
      g_autofree char *text = ks_report_get_text (causes_report, title_column, i);

      g_assert_cmpint (causes[i].cause, ==, KS_GAP_CAUSE_PYTHON);
      g_assert_cmpuint (causes[i].count, ==, 1);
      g_assert_cmpstr (text, ==, want);
    }

  ks_report_free (report);
  ks_report_free (causes_report);
}

/* Step breakdown */

static KsTrace *
make_step_trace (void)
{
  Fixture f;

  fixture_init (&f);
  cpu (&f, f.main_track, 0, 1000000, KS_SLICE_USER_ANNOTATION, "ProfilerStep#1", NULL);
  cpu (&f, f.main_track, 1000000, 1500000, KS_SLICE_USER_ANNOTATION, "ProfilerStep#2", NULL);
  gpu_work (&f, f.stream, 100000, 300000, KS_SLICE_KERNEL, "k", 0, NULL, NULL);
  gpu_work (&f, f.stream, 250000, 400000, KS_SLICE_MEMCPY, "Memcpy HtoD (Pinned -> Device)", 0, NULL, NULL);
  gpu_work (&f, f.stream, 350000, 450000, KS_SLICE_MEMSET, "Memset (Device)", 0, NULL, NULL);
  cpu (&f, f.main_track, 50000, 120000, KS_SLICE_CUDA_RUNTIME, "cudaLaunchKernel", NULL);
  cpu (&f, f.main_track, 380000, 500000, KS_SLICE_CUDA_RUNTIME, "cudaMemcpyAsync", NULL);
  cpu (&f, f.main_track, 500000, 700000, KS_SLICE_CPU_OP,
       "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", NULL);
  cpu (&f, f.second_track, 650000, 800000, KS_SLICE_CPU_OP, "aten::add", NULL);
  return fixture_finish (&f);
}

static void
test_step_breakdown (void)
{
  g_autoptr(KsTrace) trace = make_step_trace ();
  g_autoptr(KsAnalysis) a = analyse (trace, 10000, FALSE);
  static const gint64 expected[KS_N_STEP_PARTS] = {
    200000, 100000, 50000, 100000, 200000, 100000, 250000
  };
  const KsStep *steps;
  guint n;

  steps = ks_analysis_get_steps (a, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpstr (ks_trace_string (trace, steps[0].name), ==, "ProfilerStep#1");
  for (guint p = 0; p < KS_N_STEP_PARTS; p++)
    {
      g_test_message ("part %s: %" G_GINT64_FORMAT, ks_step_part_to_string (p), steps[0].parts[p]);
      g_assert_cmpint (steps[0].parts[p], ==, expected[p]);
    }

  for (guint s = 0; s < n; s++)
    {
      gint64 sum = 0;

      for (guint p = 0; p < KS_N_STEP_PARTS; p++)
        {
          g_assert_cmpint (steps[s].parts[p], >=, 0);
          sum += steps[s].parts[p];
        }
      g_assert_cmpint (sum, ==, steps[s].end - steps[s].start);
    }
  g_assert_cmpint (steps[1].parts[KS_STEP_OTHER], ==, 500000);

  /* 200 µs of 1.5 ms in DataLoader: above 5 % */
  {
    const KsAdvice *advice = find_advice (a, "dataloader");

    g_assert_nonnull (advice);
    g_assert_cmpuint (advice->n_ranges, ==, 1);
    g_assert_cmpint (advice->ranges[0].start, ==, 500000);
    g_assert_cmpint (advice->ranges[0].end, ==, 700000);
    g_assert_nonnull (strstr (advice->text, "13.3"));
  }
}

/* Steps from NVTX ranges, as a recording has them */

static KsTrace *
make_nvtx_step_trace (gboolean with_profiler_step)
{
  Fixture f;
  guint32 nvtx;

  fixture_init (&f);
  nvtx = ks_trace_builder_get_nvtx_track (f.b, f.main_thread);
  /* "iteration 1" holds "step 1": one step, the outer one. */
  cpu (&f, nvtx, 0, 1000000, KS_SLICE_NVTX, "iteration 1", NULL);
  cpu (&f, nvtx, 0, 900000, KS_SLICE_NVTX, "step 1", NULL);
  cpu (&f, nvtx, 1000000, 2000000, KS_SLICE_NVTX, "Step_2", NULL);
  cpu (&f, nvtx, 1100000, 1250000, KS_SLICE_NVTX, "forward", NULL);
  /* Not steps. */
  cpu (&f, nvtx, 2000000, 2500000, KS_SLICE_NVTX, "stepper 3", NULL);
  cpu (&f, nvtx, 2500000, 2520000, KS_SLICE_NVTX, "step", NULL);
  cpu (&f, nvtx, 2520000, 2540000, KS_SLICE_NVTX, "epoch 0", NULL);
  cpu (&f, nvtx, 2540000, 2560000, KS_SLICE_NVTX, "step 4b", NULL);
  cpu (&f, nvtx, 2600000, 3000000, KS_SLICE_NVTX, "batch#3", NULL);
  if (with_profiler_step)
    cpu (&f, f.main_track, 2600000, 3000000, KS_SLICE_USER_ANNOTATION, "ProfilerStep#7", NULL);

  launch (&f, f.main_track, 90000, 95000, "cudaLaunchKernel", 100000, 300000, KS_SLICE_KERNEL, "k1");
  launch (&f, f.main_track, 1150000, 1160000, "cudaLaunchKernel", 1200000, 1300000, KS_SLICE_KERNEL, "k2");
  launch (&f, f.main_track, 1650000, 1660000, "cudaLaunchKernel", 1700000, 1800000, KS_SLICE_KERNEL, "k3");
  launch (&f, f.main_track, 2050000, 2060000, "cudaLaunchKernel", 2100000, 2200000, KS_SLICE_KERNEL, "k4");
  launch (&f, f.main_track, 2650000, 2660000, "cudaLaunchKernel", 2700000, 2800000, KS_SLICE_KERNEL, "k5");
  return fixture_finish (&f);
}

static void
test_nvtx_steps (void)
{
  g_autoptr(KsTrace) trace = make_nvtx_step_trace (FALSE);
  g_autoptr(KsAnalysis) a = analyse (trace, 10000, FALSE);
  g_autoptr(KsTrace) both = make_nvtx_step_trace (TRUE);
  g_autoptr(KsAnalysis) b = analyse (both, 10000, FALSE);
  const char *names[] = { "iteration 1", "Step_2", "batch#3" };
  const KsGpuSummary *gpu = ks_analysis_get_gpu (a, 0);
  const KsStep *steps;
  const KsGap *gaps;
  gboolean seen = FALSE;
  guint n;

  steps = ks_analysis_get_steps (a, &n);
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (names));
  for (guint i = 0; i < n; i++)
    g_assert_cmpstr (ks_trace_string (trace, steps[i].name), ==, names[i]);

  /* The window is the steps: 2.5 ms, "stepper 3" and k4 in it left out. */
  g_assert_true (gpu->window_is_steps);
  g_assert_cmpint (gpu->window_ns, ==, 2400000);
  g_assert_cmpint (gpu->busy_in_window_ns, ==, 500000);

  /* Step_2: k2 and k3, their two launch calls, "forward" as CPU exec
   * where neither a kernel (50 µs) nor a launch (10 µs) claimed it first,
   * the rest other. */
  g_assert_cmpint (steps[1].parts[KS_STEP_KERNEL], ==, 200000);
  g_assert_cmpint (steps[1].parts[KS_STEP_RUNTIME], ==, 20000);
  g_assert_cmpint (steps[1].parts[KS_STEP_CPU_EXEC], ==, 150000 - 50000 - 10000);
  g_assert_cmpint (steps[1].parts[KS_STEP_OTHER], ==, 1000000 - 200000 - 20000 - 90000);

  /* In the gap between k2 and k3 only the step range covers the thread:
   * the step is not a cause. */
  gaps = ks_analysis_get_gaps (a, &n);
  for (guint i = 0; i < n; i++)
    if (gaps[i].start == 1300000)
      {
        g_assert_cmpint (gaps[i].end, ==, 1700000);
        g_assert_cmpint (gaps[i].cause, !=, KS_GAP_CAUSE_NVTX);
        seen = TRUE;
      }
  g_assert_true (seen);

  /* ProfilerStep#N, when there is one, are the steps. */
  steps = ks_analysis_get_steps (b, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpstr (ks_trace_string (both, steps[0].name), ==, "ProfilerStep#7");
}

/* Operators, kernels, launch latency, AMP advice */

static KsTrace *
make_operator_trace (gboolean half)
{
  Fixture f;
  KsGpuInfo info = { 0 };
  const char *linear_args = half ?
    "{\"Input Dims\": [[2, 3], [4, 3]], \"Input type\": [\"c10::Half\", \"c10::Half\"]}" :
    "{\"Input Dims\": [[2, 3], [4, 3]], \"Input type\": [\"float\", \"float\"]}";

  fixture_init (&f);
  cpu (&f, f.main_track, 0, 1000, KS_SLICE_CPU_OP, "aten::linear", linear_args);
  cpu (&f, f.main_track, 50, 950, KS_SLICE_PYTHON, "model.py(5): forward", NULL);
  cpu (&f, f.main_track, 100, 900, KS_SLICE_CPU_OP, "aten::addmm", NULL);
  ks_trace_builder_add_slice (f.b, f.main_track, BASE + 200, BASE + 300, KS_SLICE_CUDA_RUNTIME,
                              ks_trace_builder_intern (f.b, "cudaLaunchKernel"), 0, 11, 0, 0, NULL);
  ks_trace_builder_add_slice (f.b, f.main_track, BASE + 920, BASE + 950, KS_SLICE_CUDA_RUNTIME,
                              ks_trace_builder_intern (f.b, "cudaLaunchKernel"), 0, 12, 0, 0, NULL);
  cpu (&f, f.main_track, 2000, 2500, KS_SLICE_CPU_OP, "aten::linear",
       "{\"Input Dims\": [[8, 3], [4, 3]], \"Input type\": [\"float\", \"float\"]}");
  info.kernel.grid[0] = 4;
  info.kernel.grid[1] = info.kernel.grid[2] = 1;
  info.kernel.block[0] = 128;
  info.kernel.block[1] = info.kernel.block[2] = 1;
  info.kernel.registers = 32;
  gpu_work (&f, f.stream, 1000, 1500, KS_SLICE_KERNEL, "gemm", 11, &info,
            "{\"est. achieved occupancy %\": 50, \"grid\": [4, 1, 1]}");
  gpu_work (&f, f.stream, 1600, 1700, KS_SLICE_KERNEL, "bias", 12, &info,
            "{\"est. achieved occupancy %\": 20}");
  return fixture_finish (&f);
}

static const KsOperatorStats *
find_op (const KsOperatorStats *ops,
         guint                  n,
         KsTrace               *trace,
         const char            *name,
         const char            *dims)
{
  for (guint i = 0; i < n; i++)
    if (g_str_equal (ks_trace_string (trace, ops[i].name), name) &&
        (dims == NULL || g_strcmp0 (ops[i].input_dims, dims) == 0))
      return &ops[i];
  return NULL;
}

static void
test_operators (void)
{
  g_autoptr(KsTrace) trace = make_operator_trace (FALSE);
  g_autoptr(KsAnalysis) a = analyse (trace, 10000, FALSE);
  const KsOperatorStats *ops, *op;
  const KsKernelStats *kernels;
  const KsLaunchLatency *lat;
  guint n;

  /* Without the GPU's limits the profiler's own estimates count,
   * weighted by time: (50 × 500 + 20 × 100) / 600; no blocks per SM. */
  g_assert_cmpfloat_with_epsilon (ks_analysis_get_gpu (a, 0)->est_occupancy_pct, 45.0, 1e-9);
  g_assert_cmpfloat (ks_analysis_get_gpu (a, 0)->est_sm_efficiency_pct, <, 0);

  ops = ks_analysis_get_operators (a, KS_OPERATOR_BY_NAME, &n);
  g_assert_cmpuint (n, ==, 2);
  /* sorted by device total */
  g_assert_cmpstr (ks_trace_string (trace, ops[0].name), ==, "aten::linear");
  op = &ops[0];
  g_assert_cmpuint (op->calls, ==, 2);
  g_assert_cmpint (op->host_total_ns, ==, 1500);
  /* 1000 - 800 (addmm) - 30 (its own launch), and the second call */
  g_assert_cmpint (op->host_self_ns, ==, 170 + 500);
  g_assert_cmpint (op->device_total_ns, ==, 600);
  g_assert_cmpint (op->device_self_ns, ==, 100);
  g_assert_null (op->input_dims);
  g_assert_cmpint (trace->tracks[op->longest_track].start[op->longest_slice], ==, 0);
  op = &ops[1];
  g_assert_cmpstr (ks_trace_string (trace, op->name), ==, "aten::addmm");
  g_assert_cmpint (op->host_total_ns, ==, 800);
  /* minus its launch call */
  g_assert_cmpint (op->host_self_ns, ==, 700);
  g_assert_cmpint (op->device_total_ns, ==, 500);
  g_assert_cmpint (op->device_self_ns, ==, 500);

  ops = ks_analysis_get_operators (a, KS_OPERATOR_BY_NAME_AND_SHAPE, &n);
  g_assert_cmpuint (n, ==, 3);
  op = find_op (ops, n, trace, "aten::linear", "[[2, 3], [4, 3]]");
  g_assert_nonnull (op);
  g_assert_cmpuint (op->calls, ==, 1);
  g_assert_cmpint (op->device_total_ns, ==, 600);
  op = find_op (ops, n, trace, "aten::linear", "[[8, 3], [4, 3]]");
  g_assert_nonnull (op);
  g_assert_cmpint (op->host_total_ns, ==, 500);
  g_assert_cmpint (op->device_total_ns, ==, 0);
  op = find_op (ops, n, trace, "aten::addmm", "");
  g_assert_nonnull (op);

  kernels = ks_analysis_get_kernels (a, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpstr (ks_trace_string (trace, kernels[0].name), ==, "gemm");
  g_assert_cmpuint (kernels[0].calls, ==, 1);
  g_assert_cmpint (kernels[0].total_ns, ==, 500);
  g_assert_cmpfloat_with_epsilon (kernels[0].share, 500.0 / 600.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (kernels[0].occupancy_pct, 50.0, 1e-9);
  g_assert_cmpuint (kernels[0].grid[0], ==, 4);
  g_assert_cmpuint (kernels[0].block[0], ==, 128);
  g_assert_cmpuint (kernels[0].registers, ==, 32);
  g_assert_false (kernels[0].config_varies);
  g_assert_cmpfloat_with_epsilon (kernels[1].occupancy_pct, 20.0, 1e-9);

  /* gemm: 1000 - 300; bias, launched at 950 while gemm ran until 1500:
   * 550 of queueing, then 1600 - 1500 of latency */
  lat = ks_analysis_get_launch_latency (a);
  g_assert_cmpuint (lat->count, ==, 2);
  g_assert_cmpint (lat->min_ns, ==, 100);
  g_assert_cmpint (lat->max_ns, ==, 700);
  g_assert_cmpint (lat->p50_ns, ==, 100);
  g_assert_cmpfloat_with_epsilon (lat->mean_ns, 400.0, 1e-9);
  g_assert_cmpuint (lat->histogram[0], ==, 2);
  g_assert_cmpuint (lat->n_clamped, ==, 0);
  lat = ks_analysis_get_queue_time (a);
  g_assert_cmpuint (lat->count, ==, 2);
  g_assert_cmpint (lat->min_ns, ==, 0);
  g_assert_cmpint (lat->max_ns, ==, 550);
  g_assert_cmpfloat_with_epsilon (lat->mean_ns, 275.0, 1e-9);
  g_assert_cmpuint (kernels[1].launched, ==, 1);
  g_assert_cmpfloat_with_epsilon (kernels[1].mean_latency_ns, 100.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (kernels[1].mean_queue_ns, 550.0, 1e-9);
  g_assert_cmpfloat_with_epsilon (kernels[0].mean_queue_ns, 0.0, 1e-9);

  /* All GPU time comes from float32 linear: AMP advice */
  {
    const KsAdvice *advice = find_advice (a, "amp");

    g_assert_nonnull (advice);
    g_assert_nonnull (strstr (advice->text, "100.0"));
    g_assert_cmpuint (advice->n_ranges, ==, 1);
    g_assert_cmpint (advice->ranges[0].start, ==, 0);
    g_assert_cmpint (advice->ranges[0].end, ==, 1000);
  }
}

static void
test_amp_not_when_half (void)
{
  g_autoptr(KsTrace) trace = make_operator_trace (TRUE);
  g_autoptr(KsAnalysis) a = analyse (trace, 10000, FALSE);

  g_assert_null (find_advice (a, "amp"));
}
static void
test_device_filter (void)
{
  Fixture f;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  g_autoptr(KsAnalysis) b = NULL;
  KsAnalysisOptions options;
  guint32 other;
  guint n;

  fixture_init (&f);
  other = ks_trace_builder_get_stream_track (f.b, 1, 7);
  gpu_work (&f, f.stream, 0, 100, KS_SLICE_KERNEL, "k0", 0, NULL, NULL);
  gpu_work (&f, other, 0, 300, KS_SLICE_KERNEL, "k1", 0, NULL, NULL);
  gpu_work (&f, other, 400, 500, KS_SLICE_KERNEL, "k1", 0, NULL, NULL);
  trace = fixture_finish (&f);

  a = analyse (trace, 10000, FALSE);
  ks_analysis_get_gpus (a, &n);
  g_assert_cmpuint (n, ==, 2);
  ks_analysis_get_kernels (a, &n);
  g_assert_cmpuint (n, ==, 2);

  ks_analysis_options_init (&options);
  options.device = 1;
  b = ks_analysis_compute (trace, &options, NULL, NULL, NULL);
  ks_analysis_get_gpus (b, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (ks_analysis_get_gpus (b, NULL)->device, ==, 1);
  g_assert_cmpint (ks_analysis_get_gpus (b, NULL)->busy_ns, ==, 400);
  g_assert_cmpint (ks_analysis_get_kernels (b, &n)->calls, ==, 2);
  g_assert_cmpuint (n, ==, 1);
}

static void
test_cache (void)
{
  g_autoptr(KsTrace) trace = make_busy_trace ();
  g_autoptr(KsAnalysis) a = analyse (trace, 10000, FALSE);
  g_autoptr(KsAnalysis) b = analyse (trace, 10000, FALSE);
  g_autoptr(KsAnalysis) c = analyse (trace, 20000, FALSE);
  g_autoptr(KsAnalysis) d = ks_analysis_lookup_cached (trace, NULL);

  g_assert_true (a == b);
  g_assert_true (a != c);
  g_assert_true (a == d);
}

static void
compute_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  KsAnalysis **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = ks_analysis_compute_finish (result, &error);
  g_assert_no_error (error);
}

static void
test_async (void)
{
  g_autoptr(KsTrace) trace = make_gap_trace ();
  g_autoptr(KsAnalysis) result = NULL;
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GError) error = NULL;
  KsAnalysisOptions options;
  KsAnalysis *cancelled;

  ks_analysis_compute_async (trace, NULL, NULL, NULL, compute_cb, &result);
  while (result == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (ks_analysis_get_gpu (result, 0)->n_gaps, ==, 7);

  /* A cancelled computation is an error and is not cached */
  ks_analysis_options_init (&options);
  options.gap_threshold_ns = 1;
  g_cancellable_cancel (cancellable);
  cancelled = ks_analysis_compute (trace, &options, NULL, cancellable, &error);
  g_assert_null (cancelled);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (ks_analysis_lookup_cached (trace, &options));
}

static void
count_cb (KsProgress *progress,
          gpointer    user_data)
{
  g_atomic_int_inc ((int *)user_data);
}

/* Two requests for the same analysis at once compute it once. */
static void
test_shared_computation (void)
{
  Fixture f;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  g_autoptr(KsAnalysis) b = NULL;
  g_autoptr(KsProgress) pa = ks_progress_new ();
  g_autoptr(KsProgress) pb = ks_progress_new ();
  int na = 0, nb = 0;

  fixture_init (&f);
  cpu (&f, f.main_track, 0, 20000000, KS_SLICE_USER_ANNOTATION, "ProfilerStep#1", NULL);
  for (guint i = 0; i < 20000; i++)
    launch (&f, f.main_track, 1000 * i, 1000 * i + 300, "cudaLaunchKernel",
            1000 * i + 400, 1000 * i + 900, KS_SLICE_KERNEL, "k");
  trace = fixture_finish (&f);

  ks_progress_set_notify (pa, count_cb, &na, NULL);
  ks_progress_set_notify (pb, count_cb, &nb, NULL);
  ks_analysis_compute_async (trace, NULL, pa, NULL, compute_cb, &a);
  ks_analysis_compute_async (trace, NULL, pb, NULL, compute_cb, &b);
  while (a == NULL || b == NULL)
    g_main_context_iteration (NULL, TRUE);

  g_assert_true (a == b);
  g_assert_cmpuint (ks_analysis_get_gpu (a, 0)->n_kernels, ==, 20000);
  /* only one of them ran the passes and reported progress */
  g_assert_true ((na > 0) != (nb > 0));
}

static void
test_definitions (void)
{
  for (guint m = 0; m < KS_N_METRICS; m++)
    {
      g_assert_cmpstr (ks_metric_get_title (m), !=, "");
      g_assert_cmpuint (strlen (ks_metric_get_definition (m)), >, 20);
    }
  g_assert_cmpstr (ks_step_part_to_string (KS_STEP_CPU_EXEC), ==, "cpu_exec");
  g_assert_cmpstr (ks_gap_class_to_string (KS_GAP_HOST_WAIT), ==, "host_wait");
  g_assert_cmpstr (ks_gap_cause_to_string (KS_GAP_CAUSE_DATALOADER), ==, "dataloader");
}

/* Without GPU work the whole-trace busy buckets are the union of the CPU
 * threads' activity: nested and overlapping slices count once. */
static void
test_trace_busy_cpu (void)
{
  g_autoptr(GError) error = NULL;
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_KINETO_JSON);
  guint32 process = ks_trace_builder_get_process (b, 100);
  guint32 t1 = ks_trace_builder_get_thread_track (b, ks_trace_builder_get_thread (b, process, 100));
  guint32 t2 = ks_trace_builder_get_thread_track (b, ks_trace_builder_get_thread (b, process, 101));
  guint32 name = ks_trace_builder_intern (b, "work");
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  const KsTraceBusy *tb;
  double busy = 0;

  ks_trace_builder_add_slice (b, t1, BASE, BASE + 100000, KS_SLICE_CPU_OP, name, 0, 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, t1, BASE + 10000, BASE + 20000, KS_SLICE_CPU_OP, name, 0, 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, t2, BASE + 50000, BASE + 150000, KS_SLICE_PYTHON, name, 0, 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, t1, BASE + 300000, BASE + 400000, KS_SLICE_CPU_OP, name, 0, 0, 0, 0, NULL);
  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);
  a = analyse (trace, 10000, FALSE);

  tb = ks_analysis_get_trace_busy (a);
  g_assert_false (tb->gpu);
  /* 400 µs in 4096 buckets of 98 ns (the last one shorter). */
  g_assert_cmpint (tb->bucket_ns, ==, 98);
  g_assert_cmpuint (tb->n_buckets, ==, 4082);
  for (guint i = 0; i < tb->n_buckets; i++)
    {
      gint64 b0 = i * tb->bucket_ns;
      gint64 b1 = MIN (b0 + tb->bucket_ns, trace->duration_ns);

      busy += tb->busy[i] * (b1 - b0);
      if (b1 <= 150000 || b0 >= 300000)
        g_assert_cmpfloat (tb->busy[i], ==, 1.0);
      else if (b0 >= 150000 && b1 <= 300000)
        g_assert_cmpfloat (tb->busy[i], ==, 0.0);
    }
  /* [0, 150 µs) and [300, 400 µs) */
  g_assert_cmpfloat_with_epsilon (busy, 250000.0, 1e-6);
}

/* Argument look-ups read the top-level members of the object: a nested
 * member or a string holding the key's text is never taken for it. */
static void
test_args_top_level (void)
{
  gsize len = 0;
  const char *v;
  gint64 i = 0;

  v = ks_args_find ("{\"a\":{\"device\":1},\"device\":0}", "device", &len);
  g_assert_nonnull (v);
  g_assert_cmpmem (v, len, "0", 1);

  v = ks_args_find ("{\"name\":\"x \\\"device\\\": 5\",\"device\": 3 }", "device", &len);
  g_assert_nonnull (v);
  g_assert_cmpmem (v, len, "3", 1);

  v = ks_args_find ("{\"list\":[{\"stream\":9},[1,2]],\"stream\":\"7\"}", "stream", &len);
  g_assert_nonnull (v);
  g_assert_cmpmem (v, len, "7", 1);

  v = ks_args_find ("{\"Input Dims\": [[2, 3], []], \"External id\": 12}", "Input Dims", &len);
  g_assert_nonnull (v);
  g_assert_cmpmem (v, len, "[[2, 3], []]", 12);

  g_assert_true (ks_args_get_int ("{ \"grid\" : [1,1,1], \"registers per thread\" : 32 }",
                                  "registers per thread", &i));
  g_assert_cmpint (i, ==, 32);

  g_assert_null (ks_args_find ("{\"a\":{\"device\":1}}", "device", NULL));
  g_assert_null (ks_args_find ("{\"note\":\"\\\"device\\\":2\"}", "device", NULL));
  g_assert_null (ks_args_find ("[\"device\",1]", "device", NULL));
  g_assert_null (ks_args_find ("{\"device", "device", NULL));
  g_assert_null (ks_args_find ("{\"x\":1,", "device", NULL));
  g_assert_null (ks_args_find (NULL, "device", NULL));
}

/* Kernel wait is HTA's launch overhead between back-to-back kernels: a
 * gap whose next kernel was already being launched, shorter than 30 µs
 * (HTA's code applies 30 µs; its documentation says 30 ns). */
static void
test_kernel_wait_threshold (void)
{
  Fixture f;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  const KsGap *gaps;
  guint n;

  fixture_init (&f);
  cpu (&f, f.main_track, 0, 1000000, KS_SLICE_USER_ANNOTATION, "ProfilerStep#1", NULL);
  launch (&f, f.main_track, 10000, 15000, "cudaLaunchKernel", 100000, 200000, KS_SLICE_KERNEL, "k1");
  /* launched during k1; the GPU idles 20 µs, then 40 µs */
  launch (&f, f.main_track, 20000, 25000, "cudaLaunchKernel", 220000, 300000, KS_SLICE_KERNEL, "k2");
  launch (&f, f.main_track, 30000, 35000, "cudaLaunchKernel", 340000, 1000000, KS_SLICE_KERNEL, "k3");
  trace = fixture_finish (&f);

  a = analyse (trace, 10000, FALSE);
  gaps = ks_analysis_get_gaps (a, &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpint (gaps[0].klass, ==, KS_GAP_HOST_WAIT);
  g_assert_cmpint (gaps[1].end - gaps[1].start, ==, 20000);
  g_assert_cmpint (gaps[1].klass, ==, KS_GAP_KERNEL_WAIT);
  g_assert_cmpint (gaps[2].end - gaps[2].start, ==, 40000);
  g_assert_cmpint (gaps[2].klass, ==, KS_GAP_OTHER);
  g_assert_cmpint (ks_analysis_get_gpu (a, 0)->gap_class_ns[KS_GAP_KERNEL_WAIT], ==, 20000);
}

/* The TensorBoard plugin's step spans: a step runs from the later of its
 * host start and the previous step's end to the later of its host end and
 * the end of the GPU work launched inside it. */
static void
test_step_spans (void)
{
  Fixture f;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  const KsGpuSummary *gpu;
  const KsStep *steps;
  guint n;

  fixture_init (&f);
  cpu (&f, f.main_track, 0, 100000, KS_SLICE_USER_ANNOTATION, "ProfilerStep#1", NULL);
  launch (&f, f.main_track, 10000, 15000, "cudaLaunchKernel", 150000, 250000, KS_SLICE_KERNEL, "k1");
  cpu (&f, f.main_track, 100000, 200000, KS_SLICE_USER_ANNOTATION, "ProfilerStep#2", NULL);
  launch (&f, f.main_track, 120000, 125000, "cudaLaunchKernel", 260000, 300000, KS_SLICE_KERNEL, "k2");
  /* a step that launched nothing keeps its host span */
  cpu (&f, f.main_track, 400000, 450000, KS_SLICE_USER_ANNOTATION, "ProfilerStep#3", NULL);
  trace = fixture_finish (&f);
  a = analyse (trace, 10000, FALSE);

  steps = ks_analysis_get_steps (a, &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpint (steps[0].start, ==, 0);
  g_assert_cmpint (steps[0].end, ==, 250000);
  g_assert_cmpint (steps[1].start, ==, 250000);
  g_assert_cmpint (steps[1].end, ==, 300000);
  g_assert_cmpint (steps[2].start, ==, 400000);
  g_assert_cmpint (steps[2].end, ==, 450000);
  g_assert_cmpint (steps[0].parts[KS_STEP_KERNEL], ==, 100000);
  g_assert_cmpint (steps[1].parts[KS_STEP_KERNEL], ==, 40000);

  gpu = ks_analysis_get_gpu (a, 0);
  g_assert_cmpint (gpu->window_ns, ==, 300000 + 50000);
  g_assert_cmpint (gpu->busy_in_window_ns, ==, 140000);
  g_assert_cmpint (gpu->window_end, ==, 450000);
}

/* Kineto's "Activity Buffer Request" (cat "overhead", on its own "process
 * -1" row) stalls the launching thread: the gap under it is the
 * profiler's, not the operator's it happened to run in. */
static void
test_profiler_overhead (void)
{
  Fixture f;
  guint32 kineto_track;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  const KsGap *gaps;
  const KsAdvice *advice;
  guint n;

  fixture_init (&f);
  kineto_track = ks_trace_builder_get_thread_track (f.b, ks_trace_builder_get_thread (f.b, ks_trace_builder_get_process (f.b, -1), 0));
  cpu (&f, f.main_track, 0, 1000000, KS_SLICE_USER_ANNOTATION, "ProfilerStep#1", NULL);
  launch (&f, f.main_track, 10000, 15000, "cudaLaunchKernel", 20000, 100000, KS_SLICE_KERNEL, "k1");
  cpu (&f, f.main_track, 100000, 500000, KS_SLICE_CPU_OP, "aten::add_", NULL);
  ks_trace_builder_add_slice (f.b, kineto_track, BASE + 150000, BASE + 450000, KS_SLICE_GENERIC,
                              ks_trace_builder_intern (f.b, "Activity Buffer Request"),
                              ks_trace_builder_intern (f.b, "overhead"), 0, 0, 0, NULL);
  launch (&f, f.main_track, 480000, 485000, "cudaLaunchKernel", 500000, 600000, KS_SLICE_KERNEL, "k2");
  cpu (&f, f.main_track, 600000, 900000, KS_SLICE_CPU_OP, "aten::mul", NULL);
  launch (&f, f.main_track, 950000, 955000, "cudaLaunchKernel", 960000, 1000000, KS_SLICE_KERNEL, "k3");
  trace = fixture_finish (&f);
  a = analyse (trace, 10000, FALSE);

  gaps = ks_analysis_get_gaps (a, &n);
  g_assert_cmpuint (n, ==, 3);
  /* 100-500 µs: 300 of 400 µs under the overhead */
  g_assert_cmpint (gaps[1].start, ==, 100000);
  g_assert_cmpint (gaps[1].cause, ==, KS_GAP_CAUSE_PROFILER);
  g_assert_cmpstr (ks_trace_string (trace, gaps[1].cause_name), ==, "Activity Buffer Request");
  g_assert_cmpstr (ks_gap_cause_to_string (gaps[1].cause), ==, "profiler");
  g_assert_cmpint (gaps[2].cause, ==, KS_GAP_CAUSE_OPERATOR);
  g_assert_cmpstr (ks_trace_string (trace, gaps[2].cause_name), ==, "aten::mul");

  /* 300 µs of a 1 ms window */
  advice = find_advice (a, "profiler-overhead");
  g_assert_nonnull (advice);
  g_assert_cmpstr (advice->title, ==, "The profiler took 30.0 % of the window");
  g_assert_nonnull (strstr (advice->evidence, "1 idle gap, 400 µs"));
  g_assert_cmpuint (advice->n_ranges, ==, 1);
  g_assert_cmpint (advice->ranges[0].start, ==, 150000);
}

/* 1,100 launches 10 ns apart, the kernels 1 µs each from 20 µs: the
 * queue reaches 1,024 at the 1,024th launch (10.23 µs) and leaves it at
 * the 77th kernel's end (97 µs). */
static void
test_queue_limit (void)
{
  Fixture f;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  const KsQueueStats *q;
  guint n;

  fixture_init (&f);
  for (guint i = 0; i < 1100; i++)
    launch (&f, f.main_track, 10 * i, 10 * i + 5, "cudaLaunchKernel",
            20000 + 1000 * i, 20000 + 1000 * (i + 1), KS_SLICE_KERNEL, "k");
  trace = fixture_finish (&f);
  a = analyse (trace, 10000, FALSE);

  q = ks_analysis_get_queues (a, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (q->n_ops, ==, 1100);
  g_assert_cmpuint (q->max, ==, 1100);
  g_assert_cmpint (q->max_ts, ==, 10990);
  g_assert_cmpint (q->at_limit_ns, ==, 97000 - 10230);
  g_assert_cmpint (q->start, ==, 0);
  g_assert_cmpint (q->end, ==, 20000 + 1100000);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/analysis/busy", test_busy);
  g_test_add_func ("/analysis/args/top-level", test_args_top_level);
  g_test_add_func ("/analysis/no-steps-window", test_no_steps_window);
  g_test_add_func ("/analysis/huge-extent", test_huge_extent);
  g_test_add_func ("/analysis/gap-classes", test_gap_classes);
  g_test_add_func ("/analysis/queue-limit", test_queue_limit);
  g_test_add_func ("/analysis/profiler-overhead", test_profiler_overhead);
  g_test_add_func ("/analysis/kernel-wait-threshold", test_kernel_wait_threshold);
  g_test_add_func ("/analysis/gap-python-samples", test_gap_python_samples);
  g_test_add_func ("/analysis/gap-meanwhile-samples", test_gap_meanwhile_samples);
  g_test_add_func ("/analysis/step-breakdown", test_step_breakdown);
  g_test_add_func ("/analysis/step-spans", test_step_spans);
  g_test_add_func ("/analysis/operators", test_operators);
  g_test_add_func ("/analysis/amp-not-when-half", test_amp_not_when_half);
  g_test_add_func ("/analysis/device-filter", test_device_filter);
  g_test_add_func ("/analysis/cache", test_cache);
  g_test_add_func ("/analysis/async", test_async);
  g_test_add_func ("/analysis/shared-computation", test_shared_computation);
  g_test_add_func ("/analysis/definitions", test_definitions);
  g_test_add_func ("/analysis/nvtx-steps", test_nvtx_steps);
  g_test_add_func ("/analysis/trace-busy-cpu", test_trace_busy_cpu);

  return g_test_run ();
}
