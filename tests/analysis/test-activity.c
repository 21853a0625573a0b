/* test-activity.c: GPM's SM and tensor activity beside busy time: per GPU, per step, advice, stats
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <sys/wait.h>

#include "ks-analysis.h"
#include "ks-json-reader.h"
#include "ks-trace-builder.h"
#include "ks-trace-loader.h"

#define MS G_GINT64_CONSTANT (1000000)
#define BASE G_GINT64_CONSTANT (1000000000)

static const char *cli_path;

static KsAnalysis *
analyse (KsTrace *trace)
{
  g_autoptr(GError) error = NULL;
  KsAnalysisOptions options;
  KsAnalysis *analysis;

  ks_analysis_options_init (&options);
  analysis = ks_analysis_compute (trace, &options, NULL, NULL, &error);
  g_assert_no_error (error);
  return analysis;
}

static const KsAdvice *
find_advice (KsAnalysis *analysis,
             const char *rule)
{
  guint n;
  const KsAdvice *a = ks_analysis_get_advice (analysis, &n);

  for (guint i = 0; i < n; i++)
    if (strcmp (a[i].rule, rule) == 0)
      return &a[i];
  return NULL;
}

static void
add_kernel (KsTraceBuilder *b,
            guint32         stream,
            gint64          start,
            gint64          end)
{
  ks_trace_builder_add_slice (b, stream, BASE + start, BASE + end, KS_SLICE_KERNEL,
                              ks_trace_builder_intern (b, "small_kernel"), 0, 0, 0, 0, NULL);
}

/* Two 1 s ProfilerSteps on GPU 0. Kernels 0–500 and 550–1000 ms (950 ms
 * of step 1), 1000–1400 and 1550–2000 ms (850 ms of step 2): busy 1.8 s
 * of 2 s, 90 %. GPM every 100 ms, each value the mean of
 * the 100 ms before it: SM activity 10 % through step 1 and 60 %
 * through step 2, tensor 2 % and 30 %. Means: SM (10 + 60) / 2 = 35 %,
 * tensor 16 %; per step 10/2 % and 60/30 %, kernels 95 % and 85 %. */
static KsTrace *
make_trace (void)
{
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_KINETO_JSON);
  guint32 process = ks_trace_builder_get_process (b, 100);
  guint32 thread = ks_trace_builder_get_thread (b, process, 100);
  guint32 track = ks_trace_builder_get_thread_track (b, thread);
  guint32 stream = ks_trace_builder_get_stream_track (b, 0, 7);
  guint32 sm = ks_trace_builder_get_counter (b, "SM activity", "%", 0, KS_NO_INDEX);
  guint32 tensor = ks_trace_builder_get_counter (b, "Tensor activity", "%", 0, KS_NO_INDEX);
  KsGpu gpu = { 0 };
  g_autoptr(GError) error = NULL;
  KsTrace *trace;

  gpu.device = 0;
  gpu.name = ks_trace_builder_intern (b, "Test GPU");
  ks_trace_builder_add_gpu (b, &gpu);
  ks_trace_builder_add_slice (b, track, BASE, BASE + 1000 * MS, KS_SLICE_USER_ANNOTATION,
                              ks_trace_builder_intern (b, "ProfilerStep#1"), 0, 0, 0, 0, NULL);
  ks_trace_builder_add_slice (b, track, BASE + 1000 * MS, BASE + 2000 * MS, KS_SLICE_USER_ANNOTATION,
                              ks_trace_builder_intern (b, "ProfilerStep#2"), 0, 0, 0, 0, NULL);
  add_kernel (b, stream, 0, 500 * MS);
  add_kernel (b, stream, 550 * MS, 1000 * MS);
  add_kernel (b, stream, 1000 * MS, 1400 * MS);
  add_kernel (b, stream, 1550 * MS, 2000 * MS);
  for (int i = 1; i <= 20; i++)
    {
      ks_trace_builder_add_counter_sample (b, sm, BASE + i * 100 * MS, i <= 10 ? 10 : 60);
      ks_trace_builder_add_counter_sample (b, tensor, BASE + i * 100 * MS, i <= 10 ? 2 : 30);
    }
  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);
  return trace;
}

static void
test_steps (void)
{
  g_autoptr(KsTrace) trace = make_trace ();
  g_autoptr(KsAnalysis) analysis = analyse (trace);
  guint n, n_steps;
  const KsGpuActivity *a = ks_analysis_get_gpu_activity (analysis, &n);
  const KsStepActivity *s = ks_analysis_get_step_activity (analysis, &n_steps);
  const KsAdvice *advice;

  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (a->device, ==, 0);
  g_assert_cmpint (a->busy_source, ==, KS_BUSY_KERNELS);
  g_assert_cmpfloat_with_epsilon (a->busy_pct, 90, 1e-9);
  g_assert_cmpuint (a->n_samples, ==, 20);
  g_assert_cmpfloat_with_epsilon (a->sm_active_pct, 35, 1e-9);
  g_assert_cmpfloat_with_epsilon (a->tensor_active_pct, 16, 1e-9);

  g_assert_cmpuint (n_steps, ==, 2);
  g_assert_cmpuint (s[0].step, ==, 0);
  g_assert_cmpfloat_with_epsilon (s[0].busy_pct, 95, 1e-9);
  g_assert_cmpfloat_with_epsilon (s[0].sm_active_pct, 10, 1e-9);
  g_assert_cmpfloat_with_epsilon (s[0].tensor_active_pct, 2, 1e-9);
  g_assert_cmpuint (s[1].step, ==, 1);
  g_assert_cmpfloat_with_epsilon (s[1].busy_pct, 85, 1e-9);
  g_assert_cmpfloat_with_epsilon (s[1].sm_active_pct, 60, 1e-9);
  g_assert_cmpfloat_with_epsilon (s[1].tensor_active_pct, 30, 1e-9);

  /* busy 90 %, SMs active 35 %: under half */
  advice = find_advice (analysis, "busy-sms-idle");
  g_assert_nonnull (advice);
  g_assert_cmpint (advice->device, ==, 0);
  g_assert_nonnull (strstr (advice->text, "GPU 0: busy 90 % of the time, but SMs active 35 %: kernels too small "
                                          "to fill the GPU."));
  g_assert_nonnull (strstr (advice->evidence, "over 20 samples, tensor cores active 16.0 %"));
}

/* The H200's dmon --gpm-metrics log, recomputed here from its text:
 * each sample holds back one second to the one before, the first
 * GPM sample as long as the gap after it. */
static void
test_h200_dmon (void)
{
  const char *dir = g_getenv ("KS_FIXTURES_DIR");
  g_autofree char *path = g_build_filename (dir ? dir : ".", "nvsmi_h200_dmon_gpm_dt.txt", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = ks_trace_load (file, NULL, NULL, &error);
  g_autoptr(KsAnalysis) analysis = NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  double sm_sum = 0, tensor_sum = 0, util_sum = 0;
  guint n_gpm = 0, n;
  const KsGpuActivity *a;

  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  /* Date Time gpu sm mem enc dec jpg ofa gract smutil smocc intutil mmaact dram fp64 */
  for (char **l = lines; *l; l++)
    {
      g_auto(GStrv) f = g_regex_split_simple ("\\s+", g_strstrip (*l), 0, 0);

      if (**l == '#' || **l == 0)
        continue;
      if (strcmp (f[10], "-") == 0)
        continue;
      /* utilization over the same seconds: one sample each */      sm_sum += g_ascii_strtod (f[10], NULL);
      tensor_sum += g_ascii_strtod (f[13], NULL);
      util_sum += g_ascii_strtod (f[3], NULL);
      n_gpm++;
    }
  g_assert_cmpuint (n_gpm, ==, 6);

  analysis = analyse (trace);
  a = ks_analysis_get_gpu_activity (analysis, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (a->busy_source, ==, KS_BUSY_UTILIZATION);
  g_assert_cmpuint (a->n_samples, ==, n_gpm);
  g_assert_cmpint (a->end - a->start, ==, n_gpm * BASE);
  g_assert_cmpfloat_with_epsilon (a->sm_active_pct, sm_sum / n_gpm, 1e-9);
  g_assert_cmpfloat_with_epsilon (a->tensor_active_pct, tensor_sum / n_gpm, 1e-9);
  g_assert_cmpfloat_with_epsilon (a->busy_pct, util_sum / n_gpm, 1e-9);
  /* 75 % of the SMs active while 99 % busy: no advice */
  g_assert_null (find_advice (analysis, "busy-sms-idle"));
}

static char *
run_cli (const char **args)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  char *out = NULL;
  int status;

  g_ptr_array_add (argv, (gpointer) cli_path);
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out,
                               NULL, &status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  return out;
}

/* kinescope-cli stats: the lists in JSON, the tables in text. */
static void
test_stats (void)
{
  const char *dir = g_getenv ("KS_FIXTURES_DIR");
  g_autofree char *path = g_build_filename (dir ? dir : ".", "nvsmi_h200_dmon_gpm_dt.txt", NULL);
  g_autofree char *json = NULL;
  g_autofree char *table = NULL;
  g_autofree char *utilization = NULL;

  if (cli_path == NULL)
    {
      g_test_skip ("usage: test-activity KINESCOPE_CLI");
      return;
    }
  /* smutil 0, 91, 90, 90, 91, 91: 453 / 6 = 75.5; mmaact 0 and 44 five
   * times: 36.7; the sm column over the same seconds 99, 98, 99, 98,
   * 99, 99: 98.7 */
  json = run_cli ((const char *[]) { "stats", "-f", "json", path, NULL });
  g_assert_nonnull (strstr (json, "\"gpu_activity\":[{\"device\":0,"));
  g_assert_nonnull (strstr (json, "\"samples\":6,\"duration_ns\":6000000000,\"busy_pct\":98.6667"));
  g_assert_nonnull (strstr (json, "\"sm_active_pct\":75.5000,\"tensor_active_pct\":36.6667"));
  g_assert_nonnull (strstr (json, "\"busy_source\":\"utilization\""));
  g_assert_nonnull (strstr (json, "\"step_activity\":[]"));
  table = run_cli ((const char *[]) { "stats", path, NULL });
  g_assert_nonnull (strstr (table, "SM and tensor activity (GPM) beside busy time:"));
  g_assert_nonnull (strstr (table, " 98.7 %  75.5 %  36.7 % "));
  utilization = run_cli ((const char *[]) { "stats", "-r", "utilization", "-f", "json", path, NULL });
  g_assert_nonnull (strstr (utilization, "\"sm_active_pct\":75.5000"));
}

int
main (int    argc,
      char **argv)
{
  g_setenv ("TZ", "UTC", TRUE);
  g_test_init (&argc, &argv, NULL);
  if (argc > 1)
    cli_path = argv[1];
  g_test_add_func ("/activity/steps", test_steps);
  g_test_add_func ("/activity/h200-dmon", test_h200_dmon);
  g_test_add_func ("/activity/stats", test_stats);
  return g_test_run ();
}
