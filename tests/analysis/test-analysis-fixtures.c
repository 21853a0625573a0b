/* test-analysis-fixtures.c: analyses of the recorded PyTorch traces
 *
 * The expected numbers were computed independently from the JSON files
 * with a plain Python union of intervals (timestamps parsed as decimals,
 * µs * 1000 rounded half up to ns): kernel counts and sums, the union of
 * kernel intervals, the window as the union of the CPU ProfilerStep#N
 * spans, gaps as the complement of kernel/memcpy/memset inside the
 * window, the TensorBoard step breakdown by cumulative unions, memory
 * peaks from the [memory] events and launch latencies by correlation id.
 * peer-reference.py next to this file computes the window, steps, gaps
 * and their classes the same way, with the TensorBoard plugin's step
 * spans and HTA's 30 µs kernel wait.
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "ks-analysis.h"
#include "ks-analysis-private.h"
#include "ks-report.h"
#include "ks-trace-loader.h"

typedef struct
{
  const char *file;
  guint64     kernels;
  gint64      kernel_time_ns;
  gint64      busy_ns;
  gint64      window_ns;
  gint64      busy_in_window_ns;
  guint       gaps;
  gint64      gap_total_ns;
  gint64      largest_gap_ns;
  guint       n_steps;
  gint64      step0[KS_N_STEP_PARTS];
  gint64      peak_allocated;
  gint64      peak_reserved;
  guint64     latency_count;
  gint64      latency_p50;
  gint64      latency_p90;
  gint64      latency_max;
  gint64      gap_class_ns[KS_N_GAP_CLASSES];  /* host wait, kernel wait (< 30 µs), other */
  gint64      queue_p50;                        /* queueing behind earlier work on the stream */
  gint64      queue_p90;
  gint64      queue_max;
} Expected;

static const Expected expected[] = {
  { "loader_bound.pt.trace.json.gz", 176, 4600263, 4600263, 138630810, 4600263,
    133, 132440180, 32862539,
    4, { 1148989, 307552, 9470, 919705, 32317106, 3321924, 1515804 },
    344528384, 1413480448, 176, 1055, 1538, 2546,
    { 132095504, 49119, 295557 }, 0, 97699, 337825 },
  { "gpt_3steps.pt.trace.json.gz", 1737, 17140363, 17140363, 172240883, 17140363,
    1810, 154041005, 3666430,
    3, { 5718869, 66046, 46561, 6964183, 0, 46748590, 1021392 },
    1604705792, 1853882368, 1737, 1312, 1873, 10953,
    { 152659786, 101151, 1280068 }, 0, 0, 115374 },
  /* The GPU trails the CPU: each step ends with its last kernel, so the
   * window holds all of the kernels' busy time. */
  { "seed_cnn.pt.trace.json.gz", 210, 12886943, 12882910, 36388004, 12882910,
    55, 22636294, 6901855,
    3, { 4292733, 191775, 6974, 530599, 0, 7521900, 1065501 },
    846076928, 1413480448, 210, 1088, 1850, 2560,
    { 22636294, 0, 0 }, 200476, 1000820, 1472432 },
  { "workers_pinned.pt.trace.json.gz", 88, 1100292, 1100292, 44066746, 1100292,
    88, 42556216, 31377538,
    4, { 273985, 68799, 2847, 346039, 298416, 1809459, 1752698 },
    185607680, 207618048, 88, 1633, 2086, 2822,
    { 42361729, 32351, 162136 }, 0, 0, 41336 },
};

static KsTrace *
load_fixture (const char *name)
{
  const char *dir = g_getenv ("KS_FIXTURES_DIR");
  g_autofree char *path = g_build_filename (dir ? dir : ".", name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KsTrace *trace;

  trace = ks_trace_load (file, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

static void
test_fixture (gconstpointer data)
{
  const Expected *e = data;
  g_autoptr(KsTrace) trace = load_fixture (e->file);
  g_autoptr(KsAnalysis) a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  const KsGpuSummary *gpu;
  const KsStep *steps;
  const KsMemoryCurve *curves;
  const KsLaunchLatency *lat;
  guint n;

  g_assert_nonnull (a);

  gpu = ks_analysis_get_gpus (a, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (gpu->device, ==, 0);
  g_assert_cmpstr (ks_trace_string (trace, gpu->name), ==, "NVIDIA H200");
  g_assert_cmpuint (gpu->n_kernels, ==, e->kernels);
  g_assert_cmpint (gpu->kernel_time_ns, ==, e->kernel_time_ns);
  g_assert_cmpint (gpu->busy_ns, ==, e->busy_ns);
  g_assert_true (gpu->window_is_steps);
  g_assert_cmpint (gpu->window_ns, ==, e->window_ns);
  g_assert_cmpint (gpu->busy_in_window_ns, ==, e->busy_in_window_ns);
  g_assert_cmpfloat_with_epsilon (gpu->busy_pct, 100.0 * e->busy_in_window_ns / e->window_ns, 1e-9);
  g_assert_cmpuint (gpu->n_gaps, ==, e->gaps);
  g_assert_cmpint (gpu->gap_total_ns, ==, e->gap_total_ns);
  g_assert_cmpint (gpu->largest_gap_ns, ==, e->largest_gap_ns);
  g_assert_cmpint (gpu->gap_class_ns[0] + gpu->gap_class_ns[1] + gpu->gap_class_ns[2], ==, e->gap_total_ns);
  for (guint c = 0; c < KS_N_GAP_CLASSES; c++)
    g_assert_cmpint (gpu->gap_class_ns[c], ==, e->gap_class_ns[c]);

  steps = ks_analysis_get_steps (a, &n);
  g_assert_cmpuint (n, ==, e->n_steps);
  for (guint p = 0; p < KS_N_STEP_PARTS; p++)
    g_assert_cmpint (steps[0].parts[p], ==, e->step0[p]);
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

  curves = ks_analysis_get_memory_curves (a, &n);
  g_assert_cmpuint (n, >=, 1);
  g_assert_cmpint (curves[0].device, ==, 0);
  g_assert_cmpint (curves[0].peak_allocated, ==, e->peak_allocated);
  g_assert_cmpint (curves[0].peak_reserved, ==, e->peak_reserved);
  g_assert_cmpuint (curves[0].total_memory, ==, G_GUINT64_CONSTANT (150109880320));

  lat = ks_analysis_get_launch_latency (a);
  g_assert_cmpuint (lat->count, ==, e->latency_count);
  g_assert_cmpint (lat->p50_ns, ==, e->latency_p50);
  g_assert_cmpint (lat->p90_ns, ==, e->latency_p90);
  g_assert_cmpint (lat->max_ns, ==, e->latency_max);
  g_assert_cmpint (lat->min_ns, ==, 0);

  /* A saturated GPU (seed_cnn) queues the launches: that wait is
   * queueing, not launch latency */
  lat = ks_analysis_get_queue_time (a);
  g_assert_cmpuint (lat->count, ==, e->latency_count);
  g_assert_cmpint (lat->p50_ns, ==, e->queue_p50);
  g_assert_cmpint (lat->p90_ns, ==, e->queue_p90);
  g_assert_cmpint (lat->max_ns, ==, e->queue_max);
  g_assert_cmpint (gpu->queue.p90_ns, ==, e->queue_p90);
}

/* loader_bound: the four largest gaps are the DataLoader's */
static void
test_loader_bound_causes (void)
{
  g_autoptr(KsTrace) trace = load_fixture ("loader_bound.pt.trace.json.gz");
  g_autoptr(KsAnalysis) a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  const KsGap *gaps;
  const guint *order;
  const KsGapCauseTotal *causes;
  const KsMemoryCurve *curves;
  gint64 top4 = 0;
  guint n;

  gaps = ks_analysis_get_gaps (a, &n);
  order = ks_analysis_get_gaps_by_duration (a, NULL);
  g_assert_cmpint (gaps[order[0]].end - gaps[order[0]].start, ==, 32862539);
  for (guint i = 0; i < 4; i++)
    {
      const KsGap *g = &gaps[order[i]];

      g_assert_cmpint (g->klass, ==, KS_GAP_HOST_WAIT);
      g_assert_cmpint (g->cause, ==, KS_GAP_CAUSE_DATALOADER);
      g_assert_cmpstr (ks_trace_string (trace, g->cause_name), ==,
                       "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
      top4 += g->end - g->start;
    }
  g_assert_cmpint (gaps[order[4]].cause, !=, KS_GAP_CAUSE_DATALOADER);

  causes = ks_analysis_get_gap_causes (a, &n);
  g_assert_cmpint (causes[0].cause, ==, KS_GAP_CAUSE_DATALOADER);
  g_assert_cmpuint (causes[0].count, ==, 4);
  g_assert_cmpint (causes[0].total_ns, ==, top4);

  curves = ks_analysis_get_memory_curves (a, &n);
  g_assert_cmpstr (ks_trace_string (trace, curves[0].peak_operator), ==, "aten::convolution_backward");
  ks_analysis_get_allocations (a, &n);
  g_assert_cmpuint (n, ==, 424);

  /* Advice found by the rules, and none that does not apply */
  {
    guint n_advice;
    const KsAdvice *advice = ks_analysis_get_advice (a, &n_advice);
    const char *rules[] = { "low-gpu-busy", "dataloader", "pageable-memcpy", "sync-calls" };

    g_assert_cmpuint (n_advice, ==, G_N_ELEMENTS (rules));
    for (guint i = 0; i < n_advice; i++)
      {
        g_assert_cmpstr (advice[i].rule, ==, rules[i]);
        g_assert_cmpuint (advice[i].n_ranges, >, 0);
      }
    /* 8 pageable copies, all launched by cudaMemcpyAsync */
    g_assert_nonnull (strstr (advice[2].evidence, "8 "));
  }
}

/* A folder of two ranks (from the HTA corpus): each GPU's window is its
 * own rank's ProfilerStep spans; numbers from the same python3 union. */
static void
test_folder_of_ranks (void)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  g_autofree char *rank0 = g_build_filename (shared ? shared : ".", "corpus", "hta", "timeline_analysis",
                                             "sampled_rank-0.json.gz", NULL);
  g_autofree char *rank1 = g_build_filename (shared ? shared : ".", "corpus", "hta", "trace_filter",
                                             "sampled_rank-1.json.gz", NULL);
  g_autofree char *dir = NULL;
  g_autofree char *link0 = NULL;
  g_autofree char *link1 = NULL;
  g_autoptr(GFile) folder = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  g_autoptr(GError) error = NULL;
  const KsGpuSummary *gpus;
  guint n;

  if (!g_file_test (rank0, G_FILE_TEST_EXISTS) || !g_file_test (rank1, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the corpus (KS_SHARED_DIR/corpus/hta) is not available");
      return;
    }

  dir = g_dir_make_tmp ("ks-ranks-XXXXXX", &error);
  g_assert_no_error (error);
  link0 = g_build_filename (dir, "rank-0.json.gz", NULL);
  link1 = g_build_filename (dir, "rank-1.json.gz", NULL);
  g_assert_cmpint (symlink (rank0, link0), ==, 0);
  g_assert_cmpint (symlink (rank1, link1), ==, 0);

  folder = g_file_new_for_path (dir);
  trace = ks_trace_load (folder, NULL, NULL, &error);
  g_assert_no_error (error);
  a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);

  gpus = ks_analysis_get_gpus (a, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (gpus[0].device, ==, 0);
  g_assert_cmpuint (gpus[0].n_kernels, ==, 1154);
  g_assert_cmpint (gpus[0].busy_ns, ==, 547303000);
  g_assert_cmpint (gpus[0].window_ns, ==, 1230240000);
  g_assert_cmpuint (gpus[0].n_gaps, ==, 726);
  g_assert_cmpint (gpus[0].gap_total_ns, ==, 681746000);
  g_assert_cmpint (gpus[1].device, ==, 1);
  g_assert_cmpuint (gpus[1].n_kernels, ==, 1104);
  g_assert_cmpint (gpus[1].busy_ns, ==, 575496000);
  g_assert_cmpint (gpus[1].window_ns, ==, 1238543000);
  g_assert_cmpuint (gpus[1].n_gaps, ==, 634);
  g_assert_cmpint (gpus[1].largest_gap_ns, ==, 64046000);
  ks_analysis_get_steps (a, &n);
  g_assert_cmpuint (n, ==, 4);

  g_unlink (link0);
  g_unlink (link1);
  g_rmdir (dir);
}

/* A recording made with kinescope-cli record (tests/data/README.md): no
 * ProfilerStep#N, so the NVTX ranges "step 0".."step 59" are the steps.
 * Numbers from a python3 union over the file's SQLite tables. */
static void
test_recording_steps (void)
{
  g_autoptr(KsTrace) trace = load_fixture ("small_mlp_60steps.kscope");
  g_autoptr(KsAnalysis) a = NULL;
  const KsGpuSummary *gpu;
  const KsStep *steps;
  KsAnalysisOptions options;
  guint n;

  /* every step, the warm-up included */
  ks_analysis_options_init (&options);
  options.include_warmup = TRUE;
  a = ks_analysis_compute (trace, &options, NULL, NULL, NULL);
  gpu = ks_analysis_get_gpu (a, 0);
  g_assert_nonnull (gpu);
  g_assert_cmpuint (gpu->n_kernels, ==, 1978);
  g_assert_true (gpu->window_is_steps);
  g_assert_cmpint (gpu->window_ns, ==, 432078709);
  g_assert_cmpint (gpu->busy_ns, ==, 16075039);
  g_assert_cmpint (gpu->busy_in_window_ns, ==, 16075039);

  steps = ks_analysis_get_steps (a, &n);
  g_assert_cmpuint (n, ==, 60);
  g_assert_cmpstr (ks_trace_string (trace, steps[0].name), ==, "step 0");
  g_assert_cmpstr (ks_trace_string (trace, steps[59].name), ==, "step 59");
  g_assert_cmpstr (ks_trace_string (trace, steps[10].name), ==, "step 10");
  g_assert_cmpint (steps[10].end - steps[10].start, ==, 2028550);
  g_assert_cmpint (steps[10].parts[KS_STEP_KERNEL], ==, 268700);
  /* forward, backward and optimizer are NVTX ranges: CPU exec. */
  g_assert_cmpint (steps[10].parts[KS_STEP_CPU_EXEC], >, steps[10].parts[KS_STEP_OTHER]);
}

/* Host self time as PyTorch's key_averages and the TensorBoard plugin:
 * minus nested operators and the CUDA calls the operator made. The
 * synchronous pageable copies of aten::copy_ are its cudaMemcpyAsync and
 * cudaStreamSynchronize (peer-reference.py). */
static void
test_host_self (void)
{
  g_autoptr(KsTrace) trace = load_fixture ("loader_bound.pt.trace.json.gz");
  g_autoptr(KsAnalysis) a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  static const struct { const char *name; gint64 total, self; } ops[] = {
    { "aten::copy_", 2798954, 281267 },
    { "aten::to", 3364167, 179704 },
    { "aten::_to_copy", 3184463, 166838 },
    { "aten::convolution", 2296074, 216400 },
  };
  const KsOperatorStats *stats;
  guint n;

  stats = ks_analysis_get_operators (a, KS_OPERATOR_BY_NAME, &n);
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    {
      const KsOperatorStats *found = NULL;

      for (guint j = 0; j < n; j++)
        if (g_str_equal (ks_trace_string (trace, stats[j].name), ops[i].name))
          found = &stats[j];
      g_assert_nonnull (found);
      g_assert_cmpint (found->host_total_ns, ==, ops[i].total);
      g_assert_cmpint (found->host_self_ns, ==, ops[i].self);
    }
}

/* workers_pinned holds one Kineto "Activity Buffer Request" of 2079203 ns
 * inside the steps (peer-reference.py: overhead_in_window_ns), under no
 * gap for half of its length: advice, no gap blamed on it. */
static void
test_profiler_overhead (void)
{
  g_autoptr(KsTrace) trace = load_fixture ("workers_pinned.pt.trace.json.gz");
  g_autoptr(KsAnalysis) a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  const KsAdvice *advice;
  const KsGap *gaps;
  guint n;
  g_autofree char *title = g_strdup_printf ("The profiler took %.1f %% of the window", 100.0 * 2079203 / 44066746);

  advice = ks_analysis_get_advice (a, &n);
  g_assert_cmpuint (n, >, 0);
  advice = &advice[n - 1];
  g_assert_cmpstr (advice->rule, ==, "profiler-overhead");
  g_assert_cmpstr (advice->title, ==, title);
  g_assert_nonnull (strstr (advice->evidence, "2.08 ms of a 44.1 ms window; 0 idle gaps"));
  g_assert_cmpuint (advice->n_ranges, ==, 1);
  g_assert_cmpint (advice->ranges[0].end - advice->ranges[0].start, ==, 2079203);
  g_assert_cmpstr (ks_trace_string (trace, advice->highlight_name), ==, "Activity Buffer Request");

  gaps = ks_analysis_get_gaps (a, &n);
  for (guint i = 0; i < n; i++)
    g_assert_cmpint (gaps[i].cause, !=, KS_GAP_CAUSE_PROFILER);
}

/* torch.compile on the H200 (tests/data/README.md): the plugin's step
 * spans, busy time and gaps, against peer-reference.py. */
static void
test_compiled (void)
{
  static const gint64 step_ns[] = { 7435107, 6351742, 5553352, 5920390, 5259797 };
  static const gint64 step0[KS_N_STEP_PARTS] = { 2564318, 0, 0, 395407, 0, 4365645, 109737 };
  g_autoptr(KsTrace) trace = load_fixture ("mixer_compiled.pt.trace.json.gz");
  g_autoptr(KsAnalysis) a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  const KsGpuSummary *gpu = ks_analysis_get_gpu (a, 0);
  const KsStep *steps;
  guint n;

  g_assert_nonnull (gpu);
  g_assert_cmpuint (gpu->n_kernels, ==, 445);
  g_assert_cmpint (gpu->kernel_time_ns, ==, 12800418);
  g_assert_true (gpu->window_is_steps);
  g_assert_cmpint (gpu->window_ns, ==, 30520388);
  g_assert_cmpint (gpu->busy_in_window_ns, ==, 12800418);
  g_assert_cmpuint (gpu->n_gaps, ==, 103);
  g_assert_cmpint (gpu->gap_total_ns, ==, 17299532);
  g_assert_cmpint (gpu->largest_gap_ns, ==, 1428735);
  g_assert_cmpint (gpu->gap_class_ns[0], ==, 17201353);
  g_assert_cmpint (gpu->gap_class_ns[1], ==, 22592);
  g_assert_cmpint (gpu->gap_class_ns[2], ==, 75587);
  steps = ks_analysis_get_steps (a, &n);
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (step_ns));
  for (guint i = 0; i < n; i++)
    g_assert_cmpint (steps[i].end - steps[i].start, ==, step_ns[i]);
  for (guint p = 0; p < KS_N_STEP_PARTS; p++)
    g_assert_cmpint (steps[0].parts[p], ==, step0[p]);
}

/* The TensorBoard profiler's Tensor Cores view and HTA's queue length,
 * against peer-reference.py ("tensor_cores", "queue_stream"). */
static void
test_tensor_cores_and_queue (void)
{
  static const struct {
    const char *file;
    guint64 tc_kernels;
    gint64 tc_ns;
    gint64 eligible_ns;
    gint64 eligible_tc_ns;
    guint64 queue_ops;
    double queue_mean;
    guint queue_max;
    gint64 max_after_start;
    gint64 span;
  } cases[] = {
    { "gpt_3steps.pt.trace.json.gz", 345, 4867485, 5192883, 4100223, 1989, 0.247758, 4, 115152402, 170944898 },
    { "seed_cnn.pt.trace.json.gz", 21, 3355488, 2141951, 934624, 237, 3.513295, 20, 5797114, 30134453 },
    /* torch.compile on the H200: fp32 GEMMs on SIMT cores, Triton for the rest */
    { "mixer_compiled.pt.trace.json.gz", 0, 0, 11406682, 0, 445, 1.703134, 15, 28307281, 29969315 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(KsTrace) trace = load_fixture (cases[i].file);
      g_autoptr(KsAnalysis) a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
      const KsTensorCores *tc = ks_analysis_get_tensor_cores (a);
      const KsGpuSummary *gpu = ks_analysis_get_gpu (a, 0);
      const KsQueueStats *q;
      guint n;

      g_assert_cmpuint (tc->n_kernels, ==, gpu->n_kernels);
      g_assert_cmpuint (tc->n_tc_kernels, ==, cases[i].tc_kernels);
      g_assert_cmpint (tc->tc_kernel_ns, ==, cases[i].tc_ns);
      g_assert_cmpfloat_with_epsilon (tc->tc_share, (double)cases[i].tc_ns / gpu->kernel_time_ns, 1e-12);
      g_assert_cmpint (tc->eligible_ns, ==, cases[i].eligible_ns);
      g_assert_cmpint (tc->eligible_tc_ns, ==, cases[i].eligible_tc_ns);

      q = ks_analysis_get_queues (a, &n);
      g_assert_cmpuint (n, ==, 1);
      g_assert_cmpint (q->stream, ==, 7);
      g_assert_cmpuint (q->n_ops, ==, cases[i].queue_ops);
      g_assert_cmpfloat_with_epsilon (q->mean, cases[i].queue_mean, 1e-6);
      g_assert_cmpuint (q->max, ==, cases[i].queue_max);
      g_assert_cmpint (q->max_ts - q->start, ==, cases[i].max_after_start);
      g_assert_cmpint (q->end - q->start, ==, cases[i].span);
      g_assert_cmpint (q->at_limit_ns, ==, 0);
      /* the buckets' means add up to the mean */
      {
        double sum = 0;

        for (guint b = 0; b < q->n_buckets; b++)
          sum += q->bucket_mean[b] * (MIN (q->start + (b + 1) * q->bucket_ns, q->end) - (q->start + b * q->bucket_ns));
        g_assert_cmpfloat_with_epsilon (sum / (q->end - q->start), q->mean, 1e-9);
        g_assert_cmpuint (q->bucket_max[0], <=, q->max);
      }
    }
}

/* Memcpy bandwidth: each copy's is the PyTorch profiler's own "memory
 * bandwidth (GB/s)" argument (bytes over the duration in ns); the totals
 * per kind summed from the JSON with Python. */
static void
test_memcpy_bandwidth (void)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  static const struct {
    const char *file;
    guint8 kind;
    guint64 count, bytes;
    gint64 time_ns;
    double max_gbps;
  } cases[] = {
    { "loader_bound.pt.trace.json.gz", KS_COPY_HTOD, 8, 14156800, 1395518, 11.53441802252816 },
    { "gpt_3steps.pt.trace.json.gz", KS_COPY_DTOD, 72, 301989888, 195807, 1821.234910985671 },
    { "workers_pinned.pt.trace.json.gz", KS_COPY_HTOD, 8, 14156800, 272191, 53.27167630057804 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(KsTrace) trace = load_fixture (cases[i].file);
      g_autoptr(KsAnalysis) a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
      const KsCopyKindStats *k;
      const KsCopyRate *copies;
      double bytes_in_series = 0;
      guint n;

      k = ks_analysis_get_copy_kinds (a, &n);
      g_assert_cmpuint (n, ==, 1);
      g_assert_cmpint (k->kind, ==, cases[i].kind);
      g_assert_cmpuint (k->count, ==, cases[i].count);
      g_assert_cmpuint (k->bytes, ==, cases[i].bytes);
      g_assert_cmpint (k->time_ns, ==, cases[i].time_ns);
      g_assert_cmpfloat_with_epsilon (k->mean_gbps, (double)cases[i].bytes / cases[i].time_ns, 1e-12);
      g_assert_cmpfloat_with_epsilon (k->max_gbps, cases[i].max_gbps, 1e-9);
      /* the series moves every byte once */
      for (guint b = 0; b < k->n_buckets; b++)
        bytes_in_series += k->gbps[b] * (MIN ((gint64)(b + 1) * k->bucket_ns, trace->duration_ns) - (gint64)b * k->bucket_ns);
      g_assert_cmpfloat_with_epsilon (bytes_in_series / cases[i].bytes, 1.0, 1e-9);

      copies = ks_analysis_get_copies (a, &n);
      g_assert_cmpuint (n, ==, cases[i].count);
      for (guint c = 0; c < n; c++)
        {
          const KsTrack *t = &trace->tracks[copies[c].track];
          double profiler;

          g_assert_true (ks_args_get_double (ks_trace_slice_args (trace, t, copies[c].slice, args_buf),
                                             "memory bandwidth (GB/s)", &profiler));
          g_assert_cmpfloat_with_epsilon (copies[c].gbps, profiler, 1e-9 * profiler);
        }
    }
}

/* The most frequent runs of 4 kernels and the operators that launched
 * their first run, against peer-reference.py ("sequence"). */
static void
test_kernel_sequences (void)
{
  static const struct {
    const char *file;
    guint64 count[3];
    gint64 total[3];
    const char *operators;
  } cases[] = {
    { "gpt_3steps.pt.trace.json.gz", { 48, 48, 45 }, { 1744777, 895244, 1300802 },
      "aten::mm → aten::sum → aten::copy_" },
    { "seed_cnn.pt.trace.json.gz", { 6, 6, 3 }, { 1703103, 690465, 2543264 },
      "aten::add_ → aten::cudnn_batch_norm → aten::clamp_min" },
    /* Inductor launches each Triton kernel inside a span of its own name */
    { "mixer_compiled.pt.trace.json.gz", { 20, 20, 20 }, { 3910689, 3762428, 2206144 },
      "aten::mm → triton_poi_fused_gelu_gelu_backward_3 → aten::mm" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(KsTrace) trace = load_fixture (cases[i].file);
      g_autoptr(KsAnalysis) a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
      g_autoptr(KsReport) report = ks_report_new_kernel_sequences (trace, a);
      const KsKernelSequence *seq;
      g_autofree char *operators = NULL;
      guint n;

      seq = ks_analysis_get_kernel_sequences (a, &n);
      g_assert_cmpuint (n, >=, 3);
      for (guint k = 0; k < 3; k++)
        {
          g_assert_cmpuint (seq[k].count, ==, cases[i].count[k]);
          g_assert_cmpint (seq[k].total_ns, ==, cases[i].total[k]);
        }
      operators = ks_report_get_text (report, ks_report_find_column (report->columns, report->n_columns, "operators"), 0);
      g_assert_cmpstr (operators, ==, cases[i].operators);
    }
}

/* HTA's temporal breakdown: NCCL kernels are not compute. The corpus's
 * rank0 of HTA's negative-queue-length check has NCCL kernels on the
 * compute stream's side; numbers from peer-reference.py ("temporal"). */
static void
check_temporal (KsTrace *trace,
                gint64   span,
                gint64   compute,
                gint64   non_compute)
{
  g_autoptr(KsAnalysis) a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  const KsGpuSummary *gpu = ks_analysis_get_gpu (a, 0);

  g_assert_nonnull (gpu);
  g_assert_cmpint (gpu->span_ns, ==, span);
  g_assert_cmpint (gpu->compute_ns, ==, compute);
  g_assert_cmpint (gpu->non_compute_ns, ==, non_compute);
  g_assert_cmpint (gpu->idle_ns, ==, span - compute - non_compute);
}

static void
test_temporal_breakdown (void)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  g_autofree char *rank0 = g_build_filename (shared ? shared : ".", "corpus", "hta",
                                             "negative_queue_length_values_check", "rank0.json.gz", NULL);
  g_autoptr(KsTrace) lb = load_fixture ("loader_bound.pt.trace.json.gz");
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;

  check_temporal (lb, 105645015, 4600263, 1432061);
  {
    g_autoptr(KsTrace) compiled = load_fixture ("mixer_compiled.pt.trace.json.gz");

    check_temporal (compiled, 29949037, 12800418, 0);
  }

  if (!g_file_test (rank0, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the corpus (KS_SHARED_DIR/corpus/hta) is not available");
      return;
    }
  file = g_file_new_for_path (rank0);
  trace = ks_trace_load (file, NULL, NULL, &error);
  g_assert_no_error (error);
  check_temporal (trace, 1231461000, 210998000, 227426000);
}

/* HTA's GPU user-annotation breakdown on loader_bound: per name the
 * ranges, their sum and union and the kernel busy time inside, from a
 * Python union over the JSON's gpu_user_annotation events. */
static void
test_gpu_annotations (void)
{
  static const struct { const char *name; guint64 count; gint64 total, span, kernel; } rows[] = {
    { "ProfilerStep#2", 1, 2740705, 2740705, 361343 },
    { "ProfilerStep#5", 1, 2348577, 2348577, 365568 },
    { "ProfilerStep#4", 1, 2011522, 2011522, 360961 },
    { "ProfilerStep#3", 1, 1985475, 1985475, 362596 },
    { "Optimizer.step#Adam.step", 4, 1973256, 1973256, 131522 },
  };
  g_autoptr(KsTrace) trace = load_fixture ("loader_bound.pt.trace.json.gz");
  g_autoptr(KsAnalysis) a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  const KsGpuAnnotationStats *st;
  guint n;

  st = ks_analysis_get_gpu_annotations (a, &n);
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (rows));
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpstr (ks_trace_string (trace, st[i].name), ==, rows[i].name);
      g_assert_cmpuint (st[i].count, ==, rows[i].count);
      g_assert_cmpint (st[i].total_ns, ==, rows[i].total);
      g_assert_cmpint (st[i].span_ns, ==, rows[i].span);
      g_assert_cmpint (st[i].kernel_ns, ==, rows[i].kernel);
    }
}

/* Kernels by name and launching operator, and by name and launch
 * (grid, block, registers, shared memory), on seed_cnn: the group counts
 * and the top three against peer-reference.py ("kernel_groups"). */
static void
test_kernel_groups (void)
{
  g_autoptr(KsTrace) trace = load_fixture ("seed_cnn.pt.trace.json.gz");
  g_autoptr(KsAnalysis) a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  static const char * const ops[] = {
    "aten::cudnn_batch_norm_backward", "aten::max_pool2d_with_indices_backward", "aten::cudnn_batch_norm"
  };
  static const guint64 op_calls[] = { 6, 3, 6 };
  static const gint64 op_total[] = { 2365056, 956000, 926016 };
  static const guint64 launch_calls[] = { 3, 3, 3 };
  static const gint64 launch_total[] = { 1218976, 1146080, 956000 };
  static const guint32 launch_grid0[] = { 128, 64, 16 };
  static const guint32 launch_shared[] = { 400, 400, 0 };
  const KsKernelGroup *g;
  guint n;

  g = ks_analysis_get_kernel_groups (a, KS_KERNEL_BY_OPERATOR, &n);
  g_assert_cmpuint (n, ==, 42);
  for (guint i = 0; i < 3; i++)
    {
      g_assert_cmpstr (ks_trace_string (trace, g[i].operator_name), ==, ops[i]);
      g_assert_cmpuint (g[i].calls, ==, op_calls[i]);
      g_assert_cmpint (g[i].total_ns, ==, op_total[i]);
    }

  g = ks_analysis_get_kernel_groups (a, KS_KERNEL_BY_LAUNCH, &n);
  g_assert_cmpuint (n, ==, 58);
  for (guint i = 0; i < 3; i++)
    {
      g_assert_cmpuint (g[i].calls, ==, launch_calls[i]);
      g_assert_cmpint (g[i].total_ns, ==, launch_total[i]);
      g_assert_cmpuint (g[i].grid[0], ==, launch_grid0[i]);
      g_assert_cmpuint (g[i].shared_memory, ==, launch_shared[i]);
    }
}

/* The TensorBoard profiler's memory table and the reserved-minus-
 * allocated peak on loader_bound, against peer-reference.py
 * ("operator_memory", "peak_unused"). The record_function ranges open
 * inside their Python frames and outlive them: the operators are found
 * depth by depth. */
static void
test_operator_memory (void)
{
  static const struct { const char *name; guint64 count; gint64 bytes; guint64 self_count; gint64 self_bytes; } rows[] = {
    { "aten::convolution_backward", 44, 1090672640, 12, 1090334720 },
    { "ConvolutionBackward0", 44, 1090672640, 0, 0 },
    { "aten::cudnn_convolution", 12, 906266624, 12, 906266624 },
  };
  g_autoptr(KsTrace) trace = load_fixture ("loader_bound.pt.trace.json.gz");
  g_autoptr(KsAnalysis) a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  const KsOperatorMemory *ops;
  const KsMemoryCurve *curves;
  guint n;

  ops = ks_analysis_get_operator_memory (a, &n);
  g_assert_cmpuint (n, ==, 46);
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      const KsOperatorMemory *found = NULL;

      for (guint j = 0; j < n; j++)
        if (g_str_equal (ks_trace_string (trace, ops[j].name), rows[i].name))
          found = &ops[j];
      g_assert_nonnull (found);
      g_assert_cmpuint (found->count, ==, rows[i].count);
      g_assert_cmpint (found->bytes, ==, rows[i].bytes);
      g_assert_cmpuint (found->self_count, ==, rows[i].self_count);
      g_assert_cmpint (found->self_bytes, ==, rows[i].self_bytes);
    }

  curves = ks_analysis_get_memory_curves (a, &n);
  g_assert_cmpint (curves[0].device, ==, 0);
  g_assert_cmpint (curves[0].peak_unused, ==, 1345078784);
}

/* Outermost operators by their Python call stack (with_stack) on
 * loader_bound, against peer-reference.py ("operator_stacks"). */
static void
test_operator_stacks (void)
{
  static const struct { const char *name; guint n_frames; guint64 calls; gint64 host; } rows[] = {
    { "aten::randn", 10, 128, 26922361 },
    { "aten::avg_pool2d", 10, 128, 8503123 },
    { "aten::stack", 13, 4, 6824568 },
  };
  g_autoptr(KsTrace) trace = load_fixture ("loader_bound.pt.trace.json.gz");
  g_autoptr(KsAnalysis) a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  const KsOperatorStack *st;
  guint n;

  st = ks_analysis_get_operator_stacks (a, &n);
  g_assert_cmpuint (n, ==, 31);
  for (guint i = 0; i < G_N_ELEMENTS (rows); i++)
    {
      g_assert_cmpstr (ks_trace_string (trace, st[i].name), ==, rows[i].name);
      g_assert_cmpuint (st[i].n_frames, ==, rows[i].n_frames);
      g_assert_cmpuint (st[i].calls, ==, rows[i].calls);
      g_assert_cmpint (st[i].host_total_ns, ==, rows[i].host);
    }
  /* innermost first: the frame that called the operator */
  g_assert_true (g_str_has_prefix (ks_trace_string (trace, st[0].frames[0]), "<built-in method randn"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_autofree char *name = g_strdup_printf ("/analysis/fixture/%s", expected[i].file);

      g_test_add_data_func (name, &expected[i], test_fixture);
    }
  g_test_add_func ("/analysis/fixture/loader-bound-causes", test_loader_bound_causes);
  g_test_add_func ("/analysis/fixture/folder-of-ranks", test_folder_of_ranks);
  g_test_add_func ("/analysis/fixture/host-self", test_host_self);
  g_test_add_func ("/analysis/fixture/operator-stacks", test_operator_stacks);
  g_test_add_func ("/analysis/fixture/operator-memory", test_operator_memory);
  g_test_add_func ("/analysis/fixture/kernel-groups", test_kernel_groups);
  g_test_add_func ("/analysis/fixture/gpu-annotations", test_gpu_annotations);
  g_test_add_func ("/analysis/fixture/temporal-breakdown", test_temporal_breakdown);
  g_test_add_func ("/analysis/fixture/kernel-sequences", test_kernel_sequences);
  g_test_add_func ("/analysis/fixture/memcpy-bandwidth", test_memcpy_bandwidth);
  g_test_add_func ("/analysis/fixture/tensor-cores-and-queue", test_tensor_cores_and_queue);
  g_test_add_func ("/analysis/fixture/compiled", test_compiled);
  g_test_add_func ("/analysis/fixture/profiler-overhead", test_profiler_overhead);
  g_test_add_func ("/analysis/fixture/recording-steps", test_recording_steps);

  return g_test_run ();
}
