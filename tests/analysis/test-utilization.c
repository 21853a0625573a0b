/* test-utilization.c: sampled GPU utilization (nvidia-smi logs, NVML rows): stats, stretches, advice
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>
#include <glib/gstdio.h>

#include "ks-analysis.h"
#include "ks-nvsmi-reader.h"
#include "ks-report.h"

static const char *cli_path;

static KsTrace *
load_text (const char *text)
{
  g_autoptr(GError) error = NULL;
  KsTrace *trace = ks_nvsmi_reader_load_data (text, strlen (text), "test.log", NULL, NULL, NULL, &error);

  g_assert_no_error (error);
  return trace;
}

static KsAnalysis *
analyse (KsTrace *trace,
         gint32   device)
{
  g_autoptr(GError) error = NULL;
  KsAnalysisOptions options;
  KsAnalysis *analysis;

  ks_analysis_options_init (&options);
  options.device = device;
  analysis = ks_analysis_compute (trace, &options, NULL, NULL, &error);
  g_assert_no_error (error);
  return analysis;
}

static const KsAdvice *
find_advice (KsAnalysis *analysis,
             const char *rule,
             gint32      device)
{
  guint n;
  const KsAdvice *a = ks_analysis_get_advice (analysis, &n);

  for (guint i = 0; i < n; i++)
    if (strcmp (a[i].rule, rule) == 0 && a[i].device == device)
      return &a[i];
  return NULL;
}

#define S(x) ((gint64) (x) * 1000000000)

/* 1 s apart: 10, 20, 90, 5 %. Each holds a second: 4 s; under 50 % and
 * under 30 % for 3 s; stretches [0, 2 s) and [3 s, 4 s). */
static void
test_one_gpu (void)
{
  g_autoptr(KsTrace) trace = load_text ("utilization.gpu\n10\n20\n90\n5\n");
  g_autoptr(KsAnalysis) analysis = analyse (trace, -1);
  guint n, n_stretches;
  const KsGpuUtilization *u = ks_analysis_get_utilization (analysis, &n);
  const KsIdleStretch *s = ks_analysis_get_idle_stretches (analysis, &n_stretches);
  const KsAdvice *advice;

  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (u->device, ==, 0);
  g_assert_cmpuint (u->n_samples, ==, 4);
  g_assert_cmpint (u->end - u->start, ==, S (4));
  g_assert_cmpfloat (u->mean_pct, ==, 31.25);
  g_assert_cmpfloat (u->max_pct, ==, 90);
  g_assert_cmpint (u->below_low_ns, ==, S (3));
  g_assert_cmpfloat (u->below_low_pct, ==, 75);
  g_assert_cmpint (u->below_poor_ns, ==, S (3));
  g_assert_cmpfloat (u->below_poor_pct, ==, 75);
  g_assert_cmpuint (u->n_idle, ==, 2);
  g_assert_cmpint (u->longest_idle_ns, ==, S (2));

  g_assert_cmpuint (n_stretches, ==, 2);
  g_assert_cmpint (s[0].start, ==, 0);
  g_assert_cmpint (s[0].end, ==, S (2));
  g_assert_cmpuint (s[0].n_samples, ==, 2);
  g_assert_cmpfloat (s[0].mean_pct, ==, 15);
  g_assert_cmpint (s[1].start, ==, S (3));
  g_assert_cmpint (s[1].end, ==, S (4));
  g_assert_cmpfloat (s[1].mean_pct, ==, 5);

  advice = find_advice (analysis, "low-gpu-utilization", 0);
  g_assert_nonnull (advice);
  g_assert_nonnull (strstr (advice->text, "utilization under 30 % for 75 % of the run"));
  g_assert_cmpuint (advice->n_ranges, ==, 2);
  g_assert_cmpint (advice->ranges[0].end, ==, S (2));
}

/* Uneven times: a sample holds until the next one. GPU 0 at 0, 1 and
 * 4 s: 0, 100, 100 %: the last holds 3 s, 7 s in all, 600 %·s. GPU 1 is
 * busy throughout: no stretch, no advice. */
static void
test_time_weighted (void)
{
  g_autoptr(KsTrace) trace = load_text ("timestamp, index, utilization.gpu [%]\n"
                                        "2026/01/02 03:04:00.000, 0, 0 %\n"
                                        "2026/01/02 03:04:00.000, 1, 90 %\n"
                                        "2026/01/02 03:04:01.000, 0, 100 %\n"
                                        "2026/01/02 03:04:01.000, 1, 95 %\n"
                                        "2026/01/02 03:04:04.000, 0, 100 %\n"
                                        "2026/01/02 03:04:04.000, 1, 85 %\n");
  g_autoptr(KsAnalysis) analysis = analyse (trace, -1);
  g_autoptr(KsAnalysis) only1 = analyse (trace, 1);
  guint n, n_stretches;
  const KsGpuUtilization *u = ks_analysis_get_utilization (analysis, &n);

  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (u[0].end - u[0].start, ==, S (7));
  g_assert_cmpfloat_with_epsilon (u[0].mean_pct, 600.0 / 7, 1e-9);
  g_assert_cmpint (u[0].below_low_ns, ==, S (1));
  g_assert_cmpuint (u[0].n_idle, ==, 1);
  /* 90·1 + 95·3 + 85·3 over 7 s */
  g_assert_cmpfloat_with_epsilon (u[1].mean_pct, (90.0 + 95 * 3 + 85 * 3) / 7, 1e-9);
  g_assert_cmpuint (u[1].n_idle, ==, 0);
  g_assert_cmpint (u[1].below_low_ns, ==, 0);
  ks_analysis_get_idle_stretches (analysis, &n_stretches);
  g_assert_cmpuint (n_stretches, ==, 1);
  /* GPU 0: 1 s of 7 under 30 %: under the advice's 25 % */
  g_assert_null (find_advice (analysis, "low-gpu-utilization", 0));
  g_assert_null (find_advice (analysis, "low-gpu-utilization", 1));

  u = ks_analysis_get_utilization (only1, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (u->device, ==, 1);
}

/* The real log, computed again here from its lines: a minute apart,
 * epoch seconds, utilization.gpu the fourth column. */
static void
test_corpus (void)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  g_autofree char *path = shared ? g_build_filename (shared, "corpus", "nvsmi_rectified_point_flow", "gpu_usage.csv", NULL)
                                 : NULL;
  g_autofree char *text = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GArray) ts = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) value = g_array_new (FALSE, FALSE, sizeof (double));
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) analysis = NULL;
  double weighted = 0;
  gint64 below = 0, poor = 0, span;
  guint stretches = 0, n;
  gboolean in_stretch = FALSE;
  const KsGpuUtilization *u;

  if (path == NULL || !g_file_get_contents (path, &text, NULL, NULL))
    {
      g_test_skip ("the shared corpus (KS_SHARED_DIR/corpus/nvsmi_rectified_point_flow) is absent");
      return;
    }
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 1; lines[i] != NULL; i++)
    {
      g_auto(GStrv) f = g_strsplit (lines[i], ",", -1);
      gint64 t;
      double v;

      if (g_strv_length (f) != 4)
        continue;
      t = g_ascii_strtoll (f[0], NULL, 10) * 1000000000;
      v = g_ascii_strtod (f[3], NULL);
      g_array_append_val (ts, t);
      g_array_append_val (value, v);
    }
  g_assert_cmpuint (ts->len, ==, 122);
  for (guint i = 0; i < ts->len; i++)
    {
      gint64 d = i + 1 < ts->len ? g_array_index (ts, gint64, i + 1) - g_array_index (ts, gint64, i)
                                 : g_array_index (ts, gint64, i) - g_array_index (ts, gint64, i - 1);
      double v = g_array_index (value, double, i);

      weighted += v * d;
      if (v < 50)
        {
          below += d;
          stretches += !in_stretch;
        }
      in_stretch = v < 50;
      if (v < 30)
        poor += d;
    }
  span = g_array_index (ts, gint64, ts->len - 1) - g_array_index (ts, gint64, 0) +
         (g_array_index (ts, gint64, ts->len - 1) - g_array_index (ts, gint64, ts->len - 2));

  trace = load_text (text);
  analysis = analyse (trace, -1);
  u = ks_analysis_get_utilization (analysis, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (u->n_samples, ==, ts->len);
  g_assert_cmpint (u->end - u->start, ==, span);
  g_assert_cmpfloat_with_epsilon (u->mean_pct, weighted / span, 1e-9);
  g_assert_cmpint (u->below_low_ns, ==, below);
  g_assert_cmpint (u->below_poor_ns, ==, poor);
  g_assert_cmpuint (u->n_idle, ==, stretches);
}

/* A recording's NVML rows are read the same way: the counter, not the
 * format, is what counts. Per-process pmon rows are not a GPU's. */
static void
test_pmon_is_not_a_gpu (void)
{
  g_autoptr(KsTrace) trace = load_text ("# gpu  pid  type  sm  mem  command\n"
                                        "# Idx  #  C/G  %  %  name\n"
                                        " 0  10  C  5  1  python\n");
  g_autoptr(KsAnalysis) analysis = analyse (trace, -1);
  guint n = 99;

  g_assert_null (ks_analysis_get_utilization (analysis, &n));
  g_assert_cmpuint (n, ==, 0);
}

static char *
run_cli (const char * const *args,
         int                *status)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  char *out = NULL;

  g_ptr_array_add (argv, (gpointer) cli_path);
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, &out,
                               NULL, status, &error));
  g_assert_no_error (error);
  return out;
}

static void
test_cli (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-util-XXXXXX", NULL);
  g_autofree char *log = g_build_filename (dir, "gpu.log", NULL);
  g_autofree char *csv = NULL;
  g_autofree char *json = NULL;
  g_autofree char *table = NULL;
  g_autofree char *half = NULL;
  int status;

  if (cli_path == NULL)
    {
      g_test_skip ("no kinescope-cli given");
      return;
    }
  g_assert_true (g_file_set_contents (log, "utilization.gpu\n10\n20\n90\n5\n", -1, NULL));

  csv = run_cli ((const char *[]) { "stats", "-r", "utilization", "-f", "csv", log, NULL }, &status);
  g_assert_cmpint (status, ==, 0);
  g_assert_cmpstr (csv, ==,
                   "device,name,samples,duration_ns,mean_pct,max_pct,below_50_ns,below_50_pct,below_30_ns,"
                   "below_30_pct,idle_stretches,longest_idle_ns\n"
                   "0,,4,4000000000,31.2500,90.0000,3000000000,75.0000,3000000000,75.0000,2,2000000000\n");

  json = run_cli ((const char *[]) { "stats", "-r", "utilization", "-f", "json", log, NULL }, &status);
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (json, "\"idle_stretches\":[{\"device\":0,\"start_ns\":0,\"end_ns\":2000000000,"
                                  "\"dur_ns\":2000000000,\"samples\":2,\"mean_pct\":15.0000}"));

  table = run_cli ((const char *[]) { "stats", log, NULL }, &status);
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (table, "GPU utilization, as sampled:"));
  g_assert_nonnull (strstr (table, "utilization under 30 % for 75 % of the run"));
  g_assert_null (strstr (table, "Top kernels:"));

  /* --interval reaches the reader: the same log, half a second apart */
  half = run_cli ((const char *[]) { "stats", "-r", "utilization", "-f", "csv", "--interval", "0.5", log, NULL },
                  &status);
  g_assert_cmpint (status, ==, 0);
  g_assert_nonnull (strstr (half, "\n0,,4,2000000000,31.2500,"));

  g_unlink (log);
  g_rmdir (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (argc > 1)
    cli_path = argv[1];

  g_test_add_func ("/utilization/one-gpu", test_one_gpu);
  g_test_add_func ("/utilization/time-weighted", test_time_weighted);
  g_test_add_func ("/utilization/corpus", test_corpus);
  g_test_add_func ("/utilization/pmon-is-not-a-gpu", test_pmon_is_not_a_gpu);
  g_test_add_func ("/utilization/cli", test_cli);

  return g_test_run ();
}
