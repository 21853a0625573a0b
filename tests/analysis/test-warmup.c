/* test-warmup.c: the warm-up steps, left out of the figures unless asked,
 * steps inferred where the trace marks none, and what the rest of the
 * process did while the launching thread waited
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ks-analysis.h"
#include "ks-compare.h"
#include "ks-json-reader.h"
#include "ks-report.h"
#include "ks-trace-loader.h"

static KsTrace *
load_text (const char *json)
{
  g_autoptr(GInputStream) stream = g_memory_input_stream_new_from_data (g_strdup (json), strlen (json), g_free);
  g_autoptr(GError) error = NULL;
  KsTrace *trace = ks_json_reader_load_stream (stream, "inline.json", strlen (json), NULL, NULL, &error);

  g_assert_no_error (error);
  return trace;
}

static KsTrace *
load_fixture (const char *name)
{
  const char *dir = g_getenv ("KS_FIXTURES_DIR");
  g_autofree char *path = g_build_filename (dir ? dir : ".", name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KsTrace *trace = ks_trace_load (file, NULL, NULL, &error);

  g_assert_no_error (error);
  return trace;
}

static KsAnalysis *
analyse (KsTrace  *trace,
         gboolean  include_warmup)
{
  KsAnalysisOptions options;
  g_autoptr(GError) error = NULL;
  KsAnalysis *a;

  ks_analysis_options_init (&options);
  options.include_warmup = include_warmup;
  a = ks_analysis_compute (trace, &options, NULL, NULL, &error);
  g_assert_no_error (error);
  return a;
}

/* Kineto events on one thread (pid 100) and GPU 0 (stream 7), in µs. */
static void
event (GString    *json,
       const char *cat,
       const char *name,
       gboolean    gpu,
       gint64      ts,
       gint64      dur,
       guint       correlation)
{
  if (json->str[json->len - 1] != '[')
    g_string_append_c (json, ',');
  g_string_append_printf (json, "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,"
                          "\"ts\":%" G_GINT64_FORMAT ",\"dur\":%" G_GINT64_FORMAT ",\"args\":{",
                          cat, name, gpu ? 0 : 100, gpu ? 7 : 100, ts, dur);
  if (gpu)
    g_string_append (json, "\"device\":0,\"stream\":7,");
  g_string_append_printf (json, "\"correlation\":%u}}", correlation);
}

/* Steps of @durs µs as ProfilerStep#N, each an aten::mm that launches
 * one kernel of half the step (named @kernel0 in step 0, "k_steady" in
 * the others); @module_us of cuModuleLoadData in step 0. */
static char *
make_steps (const gint64 *durs,
            guint         n,
            gint64        module_us,
            const char   *kernel0)
{
  GString *json = g_string_new ("{\"traceEvents\":[");
  gint64 t = 1000;

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *step = g_strdup_printf ("ProfilerStep#%u", i);

      event (json, "cpu_op", step, FALSE, t, durs[i], 0);
      if (i == 0 && module_us > 0)
        event (json, "cuda_driver", "cuModuleLoadData", FALSE, t + 2, module_us, 0);
      event (json, "cpu_op", "aten::mm", FALSE, t + durs[i] - 20, 10, 0);
      event (json, "cuda_runtime", "cudaLaunchKernel", FALSE, t + durs[i] - 18, 4, i + 1);
      event (json, "kernel", i == 0 ? kernel0 : "k_steady", TRUE, t + durs[i] / 2 - 5, durs[i] / 2, i + 1);
      t += durs[i];
    }
  g_string_append (json, "]}");
  return g_string_free (json, FALSE);
}

static const KsKernelStats *
find_kernel (KsTrace    *trace,
             KsAnalysis *a,
             const char *name)
{
  guint n;
  const KsKernelStats *k = ks_analysis_get_kernels (a, &n);

  for (guint i = 0; i < n; i++)
    if (strcmp (ks_trace_string (trace, k[i].name), name) == 0)
      return &k[i];
  return NULL;
}

static guint64
operator_calls (KsTrace    *trace,
                KsAnalysis *a,
                const char *name)
{
  guint n;
  const KsOperatorStats *ops = ks_analysis_get_operators (a, KS_OPERATOR_BY_NAME, &n);

  for (guint i = 0; i < n; i++)
    if (strcmp (ks_trace_string (trace, ops[i].name), name) == 0)
      return ops[i].calls;
  return 0;
}

/* Step 0 lasts ten times the others and 600 of its 1000 µs load modules:
 * a warm-up. The figures leave it out, the steps keep it, marked. */
static void
test_synthetic_warmup (void)
{
  static const gint64 durs[] = { 1000, 100, 100, 100, 100 };
  g_autofree char *json = make_steps (durs, G_N_ELEMENTS (durs), 600, "k_warm");
  g_autoptr(KsTrace) trace = load_text (json);
  g_autoptr(KsAnalysis) a = analyse (trace, FALSE);
  g_autoptr(KsAnalysis) all = analyse (trace, TRUE);
  const KsWarmup *w = ks_analysis_get_warmup (a);
  const KsGpuSummary *gpu = ks_analysis_get_gpu (a, 0);
  const KsStep *steps;
  const KsGap *gaps;
  gint64 mean;
  guint n, n_gaps;

  steps = ks_analysis_get_steps (a, &n);
  g_assert_cmpuint (n, ==, 5);
  g_assert_true (steps[0].warmup);
  for (guint i = 1; i < n; i++)
    g_assert_false (steps[i].warmup);
  g_assert_cmpuint (w->n_steps, ==, 1);
  g_assert_cmpint (w->dur_ns, ==, 1000000);
  g_assert_cmpint (w->steady_median_ns, ==, 100000);
  g_assert_cmpint (w->cause_ns[KS_WARMUP_MODULE_LOADING], ==, 600000);
  g_assert_cmpint (w->cause_ns[KS_WARMUP_ALLOCATION], ==, 0);

  /* the figures: steps 1-4 only */
  g_assert_cmpuint (ks_analysis_count_steps (a, &mean), ==, 4);
  g_assert_cmpint (mean, ==, 100000);
  g_assert_cmpint (gpu->window_ns, ==, 400000);
  g_assert_cmpint (gpu->window_start, ==, steps[1].start);
  g_assert_cmpuint (gpu->n_kernels, ==, 4);
  g_assert_null (find_kernel (trace, a, "k_warm"));
  g_assert_cmpuint (find_kernel (trace, a, "k_steady")->calls, ==, 4);
  g_assert_cmpuint (operator_calls (trace, a, "aten::mm"), ==, 4);
  gaps = ks_analysis_get_gaps (a, &n_gaps);
  g_assert_cmpuint (n_gaps, >, 0);
  for (guint i = 0; i < n_gaps; i++)
    g_assert_cmpint (gaps[i].start, >=, steps[0].end);

  /* the switch brings it back; the marks stay */
  g_assert_false (ks_analysis_options_equal (ks_analysis_get_options (a), ks_analysis_get_options (all)));
  steps = ks_analysis_get_steps (all, &n);
  g_assert_cmpuint (n, ==, 5);
  g_assert_true (steps[0].warmup);
  g_assert_cmpuint (ks_analysis_count_steps (all, &mean), ==, 5);
  g_assert_cmpint (mean, ==, (1000000 + 4 * 100000) / 5);
  g_assert_cmpint (ks_analysis_get_gpu (all, 0)->window_ns, ==, 1400000);
  g_assert_cmpuint (ks_analysis_get_gpu (all, 0)->n_kernels, ==, 5);
  g_assert_cmpuint (find_kernel (trace, all, "k_warm")->calls, ==, 1);
  g_assert_cmpuint (operator_calls (trace, all, "aten::mm"), ==, 5);
}

/* No warm-up: a slow first step with no one-time work in it, and steps
 * all alike even with a module load in the first. */
static void
test_synthetic_no_warmup (void)
{
  static const gint64 slow[] = { 1000, 100, 100, 100, 100 };
  static const gint64 alike[] = { 110, 100, 100, 100, 100 };
  const struct { const gint64 *durs; gint64 module_us; } cases[] = {
    { slow, 0 },
    { slow, 50 },       /* under 10 % of the 900 µs excess */
    { alike, 60 },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *json = make_steps (cases[c].durs, 5, cases[c].module_us, "k_steady");
      g_autoptr(KsTrace) trace = load_text (json);
      g_autoptr(KsAnalysis) a = analyse (trace, FALSE);
      const KsStep *steps;
      guint n;

      steps = ks_analysis_get_steps (a, &n);
      g_assert_cmpuint (n, ==, 5);
      for (guint i = 0; i < n; i++)
        g_assert_false (steps[i].warmup);
      g_assert_cmpuint (ks_analysis_get_warmup (a)->n_steps, ==, 0);
      g_assert_cmpuint (ks_analysis_count_steps (a, NULL), ==, 5);
      g_assert_cmpuint (find_kernel (trace, a, "k_steady")->calls, ==, 5);
    }
}

static const KsAdvice *
find_advice (KsAnalysis *a,
             const char *rule)
{
  guint n;
  const KsAdvice *advice = ks_analysis_get_advice (a, &n);

  for (guint i = 0; i < n; i++)
    if (strcmp (advice[i].rule, rule) == 0)
      return &advice[i];
  return NULL;
}

/* The recording of tests/data: step 0 (CUDA module loading) and step 1
 * are warm-up. Numbers from tests/analysis/warmup-reference.py, which
 * reads the file's SQLite tables without Kinescope. */
static void
test_recording (void)
{
  g_autoptr(KsTrace) trace = load_fixture ("small_mlp_60steps.kscope");
  g_autoptr(KsAnalysis) a = analyse (trace, FALSE);
  g_autoptr(KsAnalysis) all = analyse (trace, TRUE);
  const KsWarmup *w = ks_analysis_get_warmup (a);
  const KsStep *steps;
  gint64 mean;
  guint n;

  steps = ks_analysis_get_steps (a, &n);
  g_assert_cmpuint (n, ==, 60);
  g_assert_true (steps[0].warmup);
  g_assert_true (steps[1].warmup);
  for (guint i = 2; i < n; i++)
    g_assert_false (steps[i].warmup);
  g_assert_cmpuint (w->n_steps, ==, 2);
  g_assert_cmpint (w->dur_ns, ==, 291018134);
  g_assert_cmpint (w->steady_median_ns, ==, 2326289);
  g_assert_cmpint (w->cause_ns[KS_WARMUP_MODULE_LOADING], ==, 176922451);
  g_assert_cmpint (w->cause_ns[KS_WARMUP_ALLOCATION], ==, 2995820);
  g_assert_cmpint (w->cause_ns[KS_WARMUP_CONTEXT], ==, 0);
  g_assert_cmpint (ks_analysis_get_gpu (a, 0)->window_ns, ==, 141060575);
  g_assert_cmpuint (ks_analysis_count_steps (a, &mean), ==, 58);
  g_assert_cmpint (mean, ==, 2432078);
  g_assert_cmpint (ks_analysis_get_gpu (all, 0)->window_ns, ==, 432078709);
  g_assert_cmpuint (ks_analysis_count_steps (all, NULL), ==, 60);

  /* the advice's examples are in the steady state: no idle gap of the
   * warm-up is one, though with it they are its largest */
  {
    const KsAdvice *busy = find_advice (a, "low-gpu-busy");
    const KsAdvice *busy_all = find_advice (all, "low-gpu-busy");

    g_assert_nonnull (busy);
    g_assert_nonnull (busy_all);
    for (guint i = 0; i < busy->n_ranges; i++)
      g_assert_cmpint (busy->ranges[i].start, >=, steps[1].end);
    g_assert_cmpint (busy_all->ranges[0].end, <=, steps[1].end);
  }
}

/* No ProfilerStep, no step range: a loop of five iterations, 100 µs
 * each: 50 µs of the DataLoader's __next__ (@dataloader), aten::mm
 * launching a 20 µs kernel, the optimizer's step (@optimizer); with the
 * DataLoader, the loop's last, empty __next__. */
static char *
make_loop (gboolean dataloader,
           gboolean optimizer)
{
  GString *json = g_string_new ("{\"traceEvents\":[");
  static const char dl[] = "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__";

  for (guint i = 0; i < 5; i++)
    {
      gint64 t = 1000 + 100 * i;

      if (dataloader)
        event (json, "user_annotation", dl, FALSE, t, 50, 0);
      event (json, "cpu_op", "aten::mm", FALSE, t + 55, 10, 0);
      event (json, "cuda_runtime", "cudaLaunchKernel", FALSE, t + 56, 4, i + 1);
      event (json, "kernel", "k", TRUE, t + 62, 20, i + 1);
      if (optimizer)
        event (json, "user_annotation", "Optimizer.step#SGD.step", FALSE, t + 85, 10, 0);
    }
  if (dataloader)
    event (json, "user_annotation", dl, FALSE, 1500, 30, 0);
  g_string_append (json, "]}");
  return g_string_free (json, FALSE);
}


static void
test_inferred (void)
{
  const struct {
    gboolean    dataloader, optimizer;
    const char *rule;
    gint64      start, end;     /* of step 0, in ns from the trace's start */
  } cases[] = {
    /* from one __next__ to the next, the optimizer's step or not */
    { TRUE, FALSE, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 0, 100000 },
    { TRUE, TRUE, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 0, 100000 },
    /* from aten::mm (the trace's start) to the end of the optimizer's step */
    { FALSE, TRUE, "Optimizer.step#SGD.step", 0, 40000 },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *json = make_loop (cases[c].dataloader, cases[c].optimizer);
      g_autoptr(KsTrace) trace = load_text (json);
      g_autoptr(KsAnalysis) a = analyse (trace, FALSE);
      const KsAdvice *advice;
      const KsStep *steps;
      guint32 rule_name = 0;
      const char *rule = ks_analysis_get_step_rule (a, &rule_name);
      guint n;

      g_assert_nonnull (rule);
      g_assert_cmpstr (ks_trace_string (trace, rule_name), ==, cases[c].rule);
      steps = ks_analysis_get_steps (a, &n);
      g_assert_cmpuint (n, ==, 5);
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *name = ks_analysis_dup_step_name (a, trace, i);
          g_autofree char *want = g_strdup_printf ("step %u", i);

          g_assert_true (steps[i].inferred);
          g_assert_false (steps[i].warmup);
          g_assert_cmpstr (name, ==, want);
          g_assert_cmpint (steps[i].start, ==, cases[c].start + 100000 * i);
          g_assert_cmpint (steps[i].end, ==, cases[c].end + 100000 * i);
          g_assert_cmpint (steps[i].parts[KS_STEP_DATALOADER], ==, cases[c].dataloader ? 50000 : 0);
          g_assert_cmpint (steps[i].parts[KS_STEP_KERNEL], ==, 20000);
        }
      /* the window stays first to last GPU activity, as HTA's */
      g_assert_false (ks_analysis_get_gpu (a, 0)->window_is_steps);

      /* the DataLoader advice, from the inferred steps: 250 of 500 µs */
      advice = find_advice (a, "dataloader");
      if (cases[c].dataloader)
        {
          g_assert_nonnull (advice);
          g_assert_cmpfloat_with_epsilon (advice->value, 0.5, 1e-9);
        }
      else
        g_assert_null (advice);
    }

  /* neither DataLoader nor optimizer: the outermost operator that repeats */
  {
    g_autofree char *json = make_loop (FALSE, FALSE);
    g_autoptr(KsTrace) trace = load_text (json);
    g_autoptr(KsAnalysis) a = analyse (trace, FALSE);
    guint n;

    ks_analysis_get_steps (a, &n);
    g_assert_cmpuint (n, ==, 5);
    g_assert_cmpstr (ks_analysis_get_step_rule (a, NULL), ==, "the outermost operator that repeats");
  }
}

/* Launch calls only, no operators (as in an Nsight export without NVTX):
 * a start-up kernel, then four iterations of ka, kb, kc, each launched
 * 10 µs apart, iterations 100 µs apart. */
static void
test_inferred_kernels (void)
{
  GString *json = g_string_new ("{\"traceEvents\":[");
  static const char * const names[] = { "ka", "kb", "kc" };
  g_autofree char *text = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  const KsStep *steps;
  guint32 rule_name;
  guint n, corr = 1;

  event (json, "cuda_runtime", "cudaLaunchKernel", FALSE, 1000, 4, corr);
  event (json, "kernel", "init", TRUE, 1005, 20, corr++);
  for (guint i = 0; i < 4; i++)
    for (guint j = 0; j < 3; j++)
      {
        gint64 t = 1100 + 100 * i + 10 * j;

        event (json, "cuda_runtime", "cudaLaunchKernel", FALSE, t, 4, corr);
        event (json, "kernel", names[j], TRUE, t + 5, 5, corr++);
      }
  g_string_append (json, "]}");
  text = g_string_free (json, FALSE);
  trace = load_text (text);
  a = analyse (trace, FALSE);

  g_assert_cmpstr (ks_analysis_get_step_rule (a, &rule_name), ==, "the repeating kernel sequence");
  g_assert_cmpstr (ks_trace_string (trace, rule_name), ==, "ka");
  steps = ks_analysis_get_steps (a, &n);
  g_assert_cmpuint (n, ==, 4);
  for (guint i = 0; i < n; i++)
    {
      g_assert_true (steps[i].inferred);
      /* from ka's launch call (the trace starts at 1000 µs) to the next one's,
       * the last to the end of its kc */
      g_assert_cmpint (steps[i].start, ==, (100 + 100 * i) * 1000);
      g_assert_cmpint (steps[i].end, ==, i < 3 ? (200 + 100 * i) * 1000 : (100 + 300 + 25 + 5) * 1000);
    }
}

/* The H200 loops without steps of tests/data (tests/data/README.md):
 * the steps of tests/analysis/nosteps-reference.py, which reads the raw
 * JSON, and a before/after comparison by step. */
static void
test_inferred_recorded (void)
{
  static const gint64 slow[5][2] = {
    { 301169, 9437541 }, { 9738710, 3017149 }, { 12755859, 4587149 }, { 17343008, 4471588 },
    { 21814596, 2459466 },
  };
  static const gint64 fast[5][2] = {
    { 324014, 11423170 }, { 11747184, 2329290 }, { 14076474, 4819665 }, { 18896139, 1582656 },
    { 20478795, 2869923 },
  };
  const gint64 (*want[2])[2] = { slow, fast };
  const char *files[2] = { "nosteps_slow.pt.trace.json.gz", "nosteps_fast.pt.trace.json.gz" };
  KsTrace *traces[2];
  KsAnalysis *analyses[2];
  g_autoptr(KsCompare) compare = NULL;

  for (guint f = 0; f < 2; f++)
    {
      const KsStep *steps;
      guint n;

      traces[f] = load_fixture (files[f]);
      analyses[f] = analyse (traces[f], FALSE);
      g_assert_cmpstr (ks_analysis_get_step_rule (analyses[f], NULL), ==, "the DataLoader's batches");
      steps = ks_analysis_get_steps (analyses[f], &n);
      g_assert_cmpuint (n, ==, 5);
      for (guint i = 0; i < n; i++)
        {
          g_assert_true (steps[i].inferred);
          g_assert_cmpint (steps[i].start, ==, want[f][i][0]);
          g_assert_cmpint (steps[i].end - steps[i].start, ==, want[f][i][1]);
          /* the first iteration, over twice the median, allocates */
          g_assert_true (steps[i].warmup == (i == 0));
        }
      g_assert_nonnull (find_advice (analyses[f], "dataloader"));
    }

  compare = ks_compare_new (traces[0], analyses[0], files[0], traces[1], analyses[1], files[1]);
  g_assert_true (ks_compare_get_per_step (compare));
  for (guint f = 0; f < 2; f++)
    {
      const KsCompareSteps *cs = ks_compare_get_steps (compare, f);
      gint64 sum = 0;

      g_assert_cmpuint (cs->n_steps, ==, 4);
      for (guint i = 1; i < 5; i++)
        sum += want[f][i][1];
      g_assert_cmpint (cs->mean_ns, ==, (sum + 2) / 4);
    }
  for (guint f = 0; f < 2; f++)
    {
      g_object_unref (analyses[f]);
      g_object_unref (traces[f]);
    }
}

/* Kineto events of @pid/@tid, in µs. */
static void
event_on (GString    *json,
          const char *cat,
          const char *name,
          int         pid,
          int         tid,
          gint64      ts,
          gint64      dur,
          guint       correlation)
{
  if (json->str[json->len - 1] != '[')
    g_string_append_c (json, ',');
  g_string_append_printf (json, "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,"
                          "\"ts\":%" G_GINT64_FORMAT ",\"dur\":%" G_GINT64_FORMAT ",\"args\":{"
                          "\"correlation\":%u}}", cat, name, pid, tid, ts, dur, correlation);
}

/* Three gaps of 1 ms before launches of thread 100 (process 100): in
 * the first it sleeps in cudaStreamSynchronize while its thread 101 is
 * in cuLibraryLoadData; in the second it waits for the DataLoader while
 * a worker (process 200, no GPU work) is in holdout_decode; in the
 * third it runs aten::mm itself, and nobody else is asked. */
static void
test_gap_meanwhile (void)
{
  GString *json = g_string_new ("{\"traceEvents\":[");
  g_autofree char *text = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  g_autoptr(KsReport) report = NULL;
  const KsGap *gaps;
  guint n;

  for (guint i = 0; i < 4; i++)
    {
      event_on (json, "cuda_runtime", "cudaLaunchKernel", 100, 100, 1000 + 2000 * i, 5, i + 1);
      event (json, "kernel", "k", TRUE, 1010 + 2000 * i, 10, i + 1);
    }
  event_on (json, "cuda_runtime", "cudaStreamSynchronize", 100, 100, 1020, 1975, 0);
  event_on (json, "cuda_driver", "cuLibraryLoadData", 100, 101, 1030, 1900, 0);
  event_on (json, "user_annotation", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__",
            100, 100, 3020, 1975, 0);
  event_on (json, "user_annotation", "holdout_decode", 200, 200, 3025, 1960, 0);
  /* Kineto's frames name no file: never taken for the user's code */
  event_on (json, "python_function", "threading.py(355): wait", 100, 101, 3025, 1960, 0);
  event_on (json, "cpu_op", "aten::mm", 100, 100, 5020, 1975, 0);
  event_on (json, "cpu_op", "aten::relu", 100, 101, 5030, 1900, 0);
  g_string_append (json, "]}");
  text = g_string_free (json, FALSE);

  trace = load_text (text);
  a = analyse (trace, FALSE);
  gaps = ks_analysis_get_gaps (a, &n);
  g_assert_cmpuint (n, ==, 3);

  g_assert_cmpint (gaps[0].cause, ==, KS_GAP_CAUSE_SYNC);
  g_assert_cmpuint (gaps[0].other_track, !=, KS_NO_INDEX);
  g_assert_cmpstr (ks_trace_string (trace, trace->tracks[gaps[0].other_track].name_id[gaps[0].other_slice]), ==,
                   "cuLibraryLoadData");
  g_assert_cmpint (gaps[1].cause, ==, KS_GAP_CAUSE_DATALOADER);
  g_assert_cmpuint (gaps[1].other_track, !=, KS_NO_INDEX);
  g_assert_cmpint (trace->processes[trace->tracks[gaps[1].other_track].process].pid, ==, 200);
  g_assert_cmpint (gaps[2].cause, ==, KS_GAP_CAUSE_OPERATOR);
  g_assert_cmpuint (gaps[2].other_track, ==, KS_NO_INDEX);

  /* the row says it, in the CPU Was In text and in its own column */
  report = ks_report_new_gaps (trace, a);
  {
    guint n_columns;
    const KsReportColumn *columns = ks_report_gap_columns (&n_columns);
    const KsReportColumn *was_in = ks_report_find_column (columns, n_columns, "cpu_was_in");
    const KsReportColumn *meanwhile = ks_report_find_column (columns, n_columns, "meanwhile");
    g_autofree char *row0 = ks_report_get_text (report, was_in, 0);
    g_autofree char *row1 = ks_report_get_text (report, meanwhile, 1);
    g_autofree char *row2 = ks_report_get_text (report, meanwhile, 2);

    g_assert_true (g_str_has_prefix (row0, "Synchronization: cudaStreamSynchronize; meanwhile cuLibraryLoadData on thread 101"));
    g_assert_cmpstr (row1, ==, "holdout_decode on thread 200");
    g_assert_cmpstr (row2, ==, "-");
  }
}

/* A recording without operators or samples names the option that
 * records them; one with them, and a torch.profiler trace, do not. */
static void
test_missing (void)
{
  g_autoptr(KsTrace) old = load_fixture ("small_mlp_60steps.kscope");
  g_autoptr(KsTrace) ddp = load_fixture ("ddp_gloo_2ranks.kscope");
  g_autoptr(KsTrace) torch = load_fixture ("nosteps_slow.pt.trace.json.gz");
  g_autoptr(KsAnalysis) a = analyse (old, FALSE);
  guint n_ops, n_samples;

  ks_analysis_get_operators (a, KS_OPERATOR_BY_NAME, &n_ops);
  ks_analysis_get_sample_stats (a, &n_samples);
  g_assert_cmpuint (n_ops, ==, 0);
  g_assert_cmpuint (n_samples, ==, 0);
  g_assert_nonnull (strstr (ks_analysis_explain_missing (old, KS_MISSING_OPERATORS), "--pytorch=autograd-nvtx"));
  g_assert_nonnull (strstr (ks_analysis_explain_missing (old, KS_MISSING_PYTHON_SAMPLES), "--python-sampling=true"));
  g_assert_null (ks_analysis_explain_missing (torch, KS_MISSING_OPERATORS));
  /* the DDP recording has both: the pages and stats never ask */
  {
    g_autoptr(KsAnalysis) b = analyse (ddp, FALSE);
    g_autoptr(KsAnalysis) all = analyse (ddp, TRUE);
    const KsSampleStats *rows;
    const KsStep *steps;
    guint64 self = 0, self_all = 0, in_warmup = 0;
    guint n_steps, n_warm = 0;

    ks_analysis_get_operators (b, KS_OPERATOR_BY_NAME, &n_ops);
    ks_analysis_get_sample_stats (b, &n_samples);
    g_assert_cmpuint (n_ops, >, 0);
    g_assert_cmpuint (n_samples, >, 0);

    /* its samples in the warm-up (step 0 of each rank) are left out */
    steps = ks_analysis_get_steps (b, &n_steps);
    for (guint i = 0; i < n_steps; i++)
      n_warm += steps[i].warmup;
    /* the ranks' warm-ups overlap: a sample in either counts once */
    for (guint32 j = 0; j < ddp->n_samples; j++)
      {
        gboolean in = FALSE;

        for (guint i = 0; i < n_steps; i++)
          in |= steps[i].warmup && ddp->samples[j].ts >= steps[i].start && ddp->samples[j].ts < steps[i].end;
        in_warmup += in;
      }
    g_assert_cmpuint (n_warm, ==, 2);
    g_assert_cmpuint (in_warmup, >, 0);
    rows = ks_analysis_get_sample_stats (b, &n_samples);
    for (guint i = 0; i < n_samples; i++)
      self += rows[i].self;
    rows = ks_analysis_get_sample_stats (all, &n_samples);
    for (guint i = 0; i < n_samples; i++)
      self_all += rows[i].self;
    g_assert_cmpuint (self, ==, self_all - in_warmup);
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/warmup/synthetic", test_synthetic_warmup);
  g_test_add_func ("/analysis/warmup/none", test_synthetic_no_warmup);
  g_test_add_func ("/analysis/warmup/recording", test_recording);
  g_test_add_func ("/analysis/steps/inferred", test_inferred);
  g_test_add_func ("/analysis/steps/inferred-kernels", test_inferred_kernels);
  g_test_add_func ("/analysis/steps/inferred-recorded", test_inferred_recorded);
  g_test_add_func ("/analysis/gaps/meanwhile", test_gap_meanwhile);
  g_test_add_func ("/analysis/missing", test_missing);
  return g_test_run ();
}
