/* test-cli-stats.c: kinescope-cli stats output
 *
 * Expected numbers were computed independently from the JSON fixture
 * with a Python union of intervals (see test-analysis-fixtures.c).
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */


#include "config.h"

#include <math.h>
#include <string.h>
#include <sys/wait.h>
#include <yajl/yajl_tree.h>

#include <gio/gio.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <unistd.h>

#include "cli-run.h"


static void
test_summary_json (void)
{
  g_autofree char *path = fixture ("loader_bound.pt.trace.json.gz");
  Run r;
  yajl_val root, gpu, steps, advice;

  run_cli (&r, path, "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);

  gpu = item (get (root, "gpus", NULL), 0);
  g_assert_cmpint (get_int (gpu, "device", NULL), ==, 0);
  g_assert_cmpstr (YAJL_GET_STRING (get (gpu, "name", NULL)), ==, "NVIDIA H200");
  g_assert_cmpint (get_int (gpu, "kernels", NULL), ==, 176);
  g_assert_cmpint (get_int (gpu, "kernel_time_ns", NULL), ==, 4600263);
  g_assert_cmpint (get_int (gpu, "busy_ns", NULL), ==, 4600263);
  g_assert_cmpint (get_int (gpu, "window_ns", NULL), ==, 138630810);
  g_assert_cmpint (get_int (gpu, "busy_in_window_ns", NULL), ==, 4600263);
  g_assert_cmpfloat_with_epsilon (YAJL_GET_DOUBLE (get (gpu, "busy_pct", NULL)), 3.3184, 1e-9);
  g_assert_cmpint (get_int (gpu, "gaps", "count"), ==, 133);
  g_assert_cmpint (get_int (gpu, "gaps", "total_ns"), ==, 132440180);
  g_assert_cmpint (get_int (gpu, "gaps", "largest_ns"), ==, 32862539);

  steps = get (root, "steps", NULL);
  g_assert_cmpuint (YAJL_GET_ARRAY (steps)->len, ==, 4);
  for (guint i = 0; i < 4; i++)
    {
      yajl_val step = item (steps, i);
      yajl_val parts = get (step, "breakdown_ns", NULL);
      gint64 sum = 0;

      g_assert_cmpuint (YAJL_GET_OBJECT (parts)->len, ==, 7);
      for (guint k = 0; k < YAJL_GET_OBJECT (parts)->len; k++)
        sum += YAJL_GET_INTEGER (YAJL_GET_OBJECT (parts)->values[k]);
      g_assert_cmpint (sum, ==, get_int (step, "dur_ns", NULL));
    }
  g_assert_cmpstr (YAJL_GET_STRING (get (item (steps, 0), "name", NULL)), ==, "ProfilerStep#2");
  g_assert_cmpint (get_int (item (steps, 0), "dur_ns", NULL), ==, 39540550);
  g_assert_cmpint (get_int (item (steps, 0), "breakdown_ns", "dataloader"), ==, 32317106);

  g_assert_cmpuint (YAJL_GET_ARRAY (get (root, "top_kernels", NULL))->len, ==, 10);
  g_assert_cmpint (get_int (item (get (root, "top_kernels", NULL), 0), "calls", NULL), ==, 4);
  g_assert_cmpint (get_int (item (get (root, "top_kernels", NULL), 0), "total_ns", NULL), ==, 977184);
  g_assert_cmpuint (YAJL_GET_ARRAY (get (root, "top_operators", NULL))->len, ==, 10);

  advice = get (root, "advice", NULL);
  g_assert_cmpuint (YAJL_GET_ARRAY (advice)->len, ==, 4);
  g_assert_cmpstr (YAJL_GET_STRING (get (item (advice, 1), "rule", NULL)), ==, "dataloader");
  g_assert_nonnull (strstr (get_str (item (advice, 1), "text"), "82.7"));

  yajl_tree_free (root);
  run_clear (&r);
}

static void
test_gap_threshold (void)
{
  g_autofree char *path = fixture ("loader_bound.pt.trace.json.gz");
  static const struct { const char *us; gint64 count; gint64 total; } cases[] = {
    { "1000", 5, 117466352 },
    { "100", 56, 129225464 },
    { "0", 220, 132598486 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      Run r;
      yajl_val root, gpu;

      run_cli (&r, path, "--format", "json", "--gap-min-us", cases[i].us, NULL);
      g_assert_cmpint (r.status, ==, 0);
      root = parse (r.out);
      gpu = item (get (root, "gpus", NULL), 0);
      g_assert_cmpint (get_int (gpu, "gaps", "count"), ==, cases[i].count);
      g_assert_cmpint (get_int (gpu, "gaps", "total_ns"), ==, cases[i].total);
      yajl_tree_free (root);
      run_clear (&r);

      /* the gaps report lists the same gaps */
      run_cli (&r, path, "--report", "gaps", "--format", "json", "--gap-min-us", cases[i].us, NULL);
      g_assert_cmpint (r.status, ==, 0);
      root = parse (r.out);
      g_assert_cmpint (get_int (root, "count", NULL), ==, cases[i].count);
      g_assert_cmpuint (YAJL_GET_ARRAY (get (root, "gaps", NULL))->len, ==, cases[i].count);
      yajl_tree_free (root);
      run_clear (&r);
    }
}

/* A recording's 60 NVTX steps: the first 20, then their mean. */
static void
test_recording_steps (void)
{
  g_autofree char *path = fixture ("small_mlp_60steps.kscope");
  Run r;

  run_cli (&r, path, "--include-warmup", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "window = steps"));
  g_assert_nonnull (strstr (r.out, "\nstep 19 "));
  g_assert_null (strstr (r.out, "\nstep 20 "));
  g_assert_nonnull (strstr (r.out, "… 40 more (use --limit)\n"));
  g_assert_nonnull (strstr (r.out, "\nmean of 60 "));
  g_assert_nonnull (strstr (r.out, "Est. SM efficiency:      2.7 %"));
  g_assert_nonnull (strstr (r.out, "Est. occupancy:          7.5 %"));
  g_assert_true (g_str_has_prefix (r.out, "Warm-up: step 0, step 1, 291 ms (CUDA module loading 177 ms, "
                                          "Memory allocation 3.00 ms), included in the figures\n"));
  run_clear (&r);

  /* By default the warm-up (tests/analysis/warmup-reference.py: steps 0
   * and 1, 291018134 ns) is one line, and the figures are of the rest:
   * a window of 141.06 ms, the mean of 58 steps. */
  run_cli (&r, path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "Warm-up: step 0, step 1, 291 ms (CUDA module loading 177 ms, "
                                          "Memory allocation 3.00 ms), left out of the figures below\n"));
  g_assert_nonnull (strstr (r.out, "/ 141 ms, window = steps)"));
  g_assert_nonnull (strstr (r.out, "\nstep 0 (warm-up) "));
  g_assert_nonnull (strstr (r.out, "\nstep 1 (warm-up) "));
  {
    const char *mean = strstr (r.out, "\nmean of 58 ");
    g_autofree char *line = NULL;

    /* 2432078 ns, the python script's mean */
    g_assert_nonnull (mean);
    line = g_strndup (mean + 1, strcspn (mean + 1, "\n"));
    g_assert_nonnull (strstr (line, " 2.43 ms "));
  }
  run_clear (&r);

  /* recorded without operators or samples: which option records them */
  run_cli (&r, path, "--report", "operators", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "This recording has no PyTorch operators: it was made with "
                                          "kinescope-cli record --pytorch=none"));
  run_clear (&r);
  run_cli (&r, path, "--report", "samples", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Record again with --python-sampling=true"));
  run_clear (&r);

  run_cli (&r, path, "--limit", "60", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\nstep 59 "));
  g_assert_null (strstr (r.out, "more (use --limit)"));
  run_clear (&r);

  /* --report steps: every step, as a series to plot. */
  run_cli (&r, path, "--report", "steps", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\nstep 59 "));
  g_assert_nonnull (strstr (r.out, "\nmean of 58 "));
  run_clear (&r);

  run_cli (&r, path, "--report", "steps", "--format", "csv", NULL);
  g_assert_cmpint (r.status, ==, 0);
  {
    g_auto(GStrv) lines = g_strsplit (r.out, "\n", -1);

    g_assert_cmpuint (g_strv_length (lines), ==, 1 + 60 + 1);
    g_assert_cmpstr (lines[0], ==, "name,pid,start_ns,dur_ns,kernel_ns,memcpy_ns,memset_ns,runtime_ns,"
                                   "dataloader_ns,cpu_exec_ns,other_ns,warmup,inferred");
    /* step 10: 2028550 ns, 268700 ns of kernels (python3 over the file) */
    g_assert_true (g_str_has_prefix (lines[11], "step 10,668,"));
    g_assert_nonnull (strstr (lines[11], ",2028550,268700,"));
    g_assert_true (g_str_has_suffix (lines[1], ",1,0"));
    g_assert_true (g_str_has_suffix (lines[11], ",0,0"));
  }
  run_clear (&r);

  run_cli (&r, path, "--report", "steps", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  {
    yajl_val root = parse (r.out);
    const char *key[] = { "steps", NULL };
    yajl_val steps = yajl_tree_get (root, key, yajl_t_array);

    const char *warmup_key[] = { "warmup", NULL };
    yajl_val warmup = yajl_tree_get (root, warmup_key, yajl_t_object);
    const char *steps_key[] = { "steps", NULL };
    const char *dur_key[] = { "dur_ns", NULL };
    const char *causes_key[] = { "causes", NULL };
    const char *name_key[] = { "name", NULL };
    const char *flag_key[] = { "warmup", NULL };
    const char *inferred_key[] = { "inferred", NULL };
    yajl_val names, causes;

    g_assert_nonnull (steps);
    g_assert_cmpuint (YAJL_GET_ARRAY (steps)->len, ==, 60);
    g_assert_true (YAJL_IS_TRUE (yajl_tree_get (YAJL_GET_ARRAY (steps)->values[1], flag_key, yajl_t_any)));
    g_assert_true (YAJL_IS_FALSE (yajl_tree_get (YAJL_GET_ARRAY (steps)->values[2], flag_key, yajl_t_any)));
    g_assert_true (YAJL_IS_FALSE (yajl_tree_get (YAJL_GET_ARRAY (steps)->values[0], inferred_key, yajl_t_any)));
    g_assert_nonnull (warmup);
    names = yajl_tree_get (warmup, steps_key, yajl_t_array);
    g_assert_cmpuint (YAJL_GET_ARRAY (names)->len, ==, 2);
    g_assert_cmpstr (YAJL_GET_STRING (YAJL_GET_ARRAY (names)->values[0]), ==, "step 0");
    g_assert_cmpstr (YAJL_GET_STRING (YAJL_GET_ARRAY (names)->values[1]), ==, "step 1");
    g_assert_cmpint (YAJL_GET_INTEGER (yajl_tree_get (warmup, dur_key, yajl_t_number)), ==, 291018134);
    causes = yajl_tree_get (warmup, causes_key, yajl_t_array);
    g_assert_cmpuint (YAJL_GET_ARRAY (causes)->len, ==, 2);
    g_assert_cmpstr (YAJL_GET_STRING (yajl_tree_get (YAJL_GET_ARRAY (causes)->values[0], name_key, yajl_t_string)),
                     ==, "CUDA module loading");
    g_assert_cmpint (YAJL_GET_INTEGER (yajl_tree_get (YAJL_GET_ARRAY (causes)->values[0], dur_key, yajl_t_number)),
                     ==, 176922451);
    g_assert_cmpstr (YAJL_GET_STRING (yajl_tree_get (YAJL_GET_ARRAY (causes)->values[1], name_key, yajl_t_string)),
                     ==, "Memory allocation");
    g_assert_cmpint (YAJL_GET_INTEGER (yajl_tree_get (YAJL_GET_ARRAY (causes)->values[1], dur_key, yajl_t_number)),
                     ==, 2995820);
    yajl_tree_free (root);
  }
  run_clear (&r);

  /* A trace without steps says so. */
  {
    static const char trace[] =
      "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,"
      "\"ts\":10,\"dur\":5,\"args\":{\"device\":0,\"stream\":7}}]}";
    g_autoptr(GError) error = NULL;
    g_autofree char *tmp = NULL;
    int fd = g_file_open_tmp ("ks-no-steps-XXXXXX.json", &tmp, &error);

    g_assert_no_error (error);
    close (fd);
    g_assert_true (g_file_set_contents (tmp, trace, -1, NULL));
    run_cli (&r, tmp, "--report", "steps", NULL);
    g_assert_cmpint (r.status, ==, 0);
    g_assert_nonnull (strstr (r.out, "No steps"));
    run_clear (&r);
    g_unlink (tmp);
  }
}

static void
test_reports (void)
{
  g_autofree char *path = fixture ("loader_bound.pt.trace.json.gz");
  g_auto(GStrv) lines = NULL;
  Run r;

  run_cli (&r, path, "--format", "csv", NULL);
  g_assert_cmpint (r.status, ==, 0);
  lines = g_strsplit (r.out, "\n", -1);
  g_assert_true (g_str_has_prefix (lines[0], "device,name,kernels,kernel_time_ns,busy_ns,window_ns"));
  g_assert_true (g_str_has_prefix (lines[1], "0,NVIDIA H200,176,4600263,4600263,138630810,4600263,3.3184,133,"));
  g_assert_true (g_str_has_suffix (lines[0], ",est_sm_efficiency_pct,est_occupancy_pct"));
  g_assert_true (g_str_has_suffix (lines[1], ",3.1225,54.8398"));
  run_clear (&r);

  run_cli (&r, path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "GPU 0: NVIDIA H200"));
  g_assert_nonnull (strstr (r.out, "3.3 %"));
  g_assert_nonnull (strstr (r.out, "ProfilerStep#5"));
  run_clear (&r);

  run_cli (&r, path, "--report", "gaps", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "133 idle gaps"));
  g_assert_nonnull (strstr (r.out, "32.9 ms"));
  g_assert_nonnull (strstr (r.out, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"));
  run_clear (&r);

  run_cli (&r, path, "--report", "operators", "--format", "csv", "--group-by", "shape", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "name,input_dims,calls,host_total_ns"));
  g_assert_nonnull (strstr (r.out, "aten::cudnn_convolution,"));
  run_clear (&r);

  /* the same text as the Kernels page's (test-pages-tables) */
  run_cli (&r, path, "--report", "kernels", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\nLaunch latency of 176 kernels: p50 1.05 µs, p90 1.54 µs, p99 2.34 µs; "
                                   "queueing behind earlier work: p50 0 ns, p90 97.7 µs\n"));
  run_clear (&r);

  run_cli (&r, path, "--report", "kernels", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  {
    yajl_val root = parse (r.out);

    g_assert_cmpint (get_int (root, "launch_latency", "count"), ==, 176);
    /* peer-reference.py: the queueing behind earlier work is apart */
    g_assert_cmpint (get_int (root, "launch_latency", "p50_ns"), ==, 1055);
    g_assert_cmpint (get_int (root, "launch_latency", "queue_p90_ns"), ==, 97699);
    g_assert_cmpint (get_int (root, "launch_latency", "queue_max_ns"), ==, 337825);
    yajl_tree_free (root);
  }
  run_clear (&r);

  run_cli (&r, path, "--report", "memory", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  {
    yajl_val root = parse (r.out);
    yajl_val dev = item (get (root, "devices", NULL), 0);

    g_assert_cmpint (get_int (dev, "peak_allocated", NULL), ==, 344528384);
    g_assert_cmpint (get_int (dev, "peak_reserved", NULL), ==, 1413480448);
    g_assert_cmpstr (YAJL_GET_STRING (get (dev, "peak_operator", NULL)), ==, "aten::convolution_backward");
    g_assert_cmpint (get_int (root, "allocation_count", NULL), ==, 424);
    yajl_tree_free (root);
  }
  run_clear (&r);

  run_cli (&r, path, "--report", "advice", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "[pageable-memcpy]"));
  run_clear (&r);
}

/* The tensor-cores and queue reports in each format; numbers from
 * peer-reference.py ("tensor_cores", "queue_stream"). */
static void
test_report_views (void)
{
  g_autofree char *path = fixture ("loader_bound.pt.trace.json.gz");
  yajl_val root, stream;
  Run r;

  run_cli (&r, path, "--report", "tensor-cores", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Tensor cores: 35.0 % of the kernel time (1.61 ms of 4.60 ms, 12 of 176 kernels)"));
  g_assert_nonnull (strstr (r.out, "Eligible operators: 1.13 ms of GPU time, 242 µs of it on tensor cores"));
  run_clear (&r);

  run_cli (&r, path, "--report", "tensor-cores", "--format", "csv", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "name,tensor_cores,calls,total_ns,share\n"));
  run_clear (&r);

  run_cli (&r, path, "--report", "tensor-cores", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  g_assert_cmpint (get_int (root, "summary", "tc_kernels"), ==, 12);
  g_assert_cmpint (get_int (root, "summary", "tc_kernel_time_ns"), ==, 1608578);
  g_assert_cmpint (get_int (root, "summary", "eligible_ns"), ==, 1127461);
  g_assert_cmpint (get_int (root, "summary", "eligible_tc_ns"), ==, 242401);
  g_assert_true (YAJL_IS_ARRAY (get (root, "operators", NULL)));
  yajl_tree_free (root);
  run_clear (&r);

  run_cli (&r, path, "--report", "queue", "--format", "csv", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "device,stream,ops,mean,max,max_ts,at_limit_ns,start_ns,end_ns\n0,7,216,0.1838,9,"));
  run_clear (&r);

  run_cli (&r, path, "--report", "queue", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  g_assert_cmpint (get_int (root, "limit", NULL), ==, 1024);
  stream = item (get (root, "streams", NULL), 0);
  g_assert_cmpint (get_int (stream, "ops", NULL), ==, 216);
  g_assert_cmpint (get_int (stream, "max", NULL), ==, 9);
  g_assert_cmpint (get_int (stream, "at_limit_ns", NULL), ==, 0);
  g_assert_cmpuint (YAJL_GET_ARRAY (get (item (get (root, "series", NULL), 0), "mean", NULL))->len, >, 0);
  yajl_tree_free (root);
  run_clear (&r);

  run_cli (&r, path, "--report", "queue", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Operations"));
  run_clear (&r);

  run_cli (&r, path, "--report", "kernel-sequences", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  g_assert_cmpint (get_int (item (get (root, "sequences", NULL), 0), "count", NULL), >=, 2);
  yajl_tree_free (root);
  run_clear (&r);

  run_cli (&r, path, "--report", "kernel-sequences", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "Runs of 4 consecutive kernels on a stream, most frequent first:\n"));
  run_clear (&r);

  run_cli (&r, path, "--report", "kernel-sequences", "--format", "csv", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "device,count,total_ns,mean_ns,first_start_ns,operators,kernels\n"));
  run_clear (&r);

  run_cli (&r, path, "--report", "gpu-annotations", "--format", "csv", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "device,name,count,total_ns,span_ns,kernel_ns\n0,ProfilerStep#2,1,2740705,2740705,361343\n"));
  run_clear (&r);

  run_cli (&r, path, "--report", "kernels", "--group-by", "operator", "--format", "csv", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "name,operator,calls,total_ns,mean_ns,min_ns,max_ns\n"));
  run_clear (&r);

  run_cli (&r, path, "--report", "kernels", "--group-by", "launch", "--format", "csv", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "name,grid_x,grid_y,grid_z,block_x,block_y,block_z,registers,shared_memory,calls,"));
  run_clear (&r);

  run_cli (&r, path, "--report", "operators", "--group-by", "stack", "--format", "csv", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "name,stack,calls,host_total_ns,device_total_ns\naten::randn,"));
  run_clear (&r);

  /* 8 pageable copies; the first of 3538944 bytes in 306816 ns */
  run_cli (&r, path, "--report", "memcpy-bandwidth", "--format", "csv", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "device,kind,start_ns,dur_ns,bytes,gbps,name\n0,HtoD,"));
  g_assert_nonnull (strstr (r.out, ",306816,3538944,11.5344,Memcpy HtoD (Pageable -> Device)\n"));
  run_clear (&r);

  run_cli (&r, path, "--report", "memcpy-bandwidth", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  g_assert_cmpint (get_int (item (get (root, "kinds", NULL), 0), "copies", NULL), ==, 8);
  g_assert_cmpint (get_int (item (get (root, "kinds", NULL), 0), "bytes", NULL), ==, 14156800);
  g_assert_cmpuint (YAJL_GET_ARRAY (get (root, "copies", NULL))->len, ==, 8);
  g_assert_cmpuint (YAJL_GET_ARRAY (get (item (get (root, "series", NULL), 0), "gbps", NULL))->len, ==, 200);
  yajl_tree_free (root);
  run_clear (&r);

  run_cli (&r, path, "--report", "memcpy-bandwidth", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "10.14 11.53"));
  run_clear (&r);
}

static void
test_errors (void)
{
  g_autofree char *path = fixture ("loader_bound.pt.trace.json.gz");
  Run r;

  run_cli (&r, "/nonexistent/trace.json", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "/nonexistent/trace.json"));
  run_clear (&r);

  run_cli (&r, path, "--report", "everything", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "everything"));
  run_clear (&r);

  run_cli (&r, path, "--format", "xml", NULL);
  g_assert_cmpint (r.status, ==, 2);
  run_clear (&r);

  run_cli (&r, NULL);
  g_assert_cmpint (r.status, ==, 2);
  run_clear (&r);

  run_cli (&r, path, "--device", "3", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "GPU 3"));
  run_clear (&r);

  run_cli (&r, "--help", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "--gap-min-us"));
  run_clear (&r);
}


/* A memory event of INT64_MAX bytes (9.2 EB): left out with a warning;
 * the peak is that of the other events. */
static void
test_impossible_memory (void)
{
  static const char trace[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":100,"
    "\"args\":{\"device\":0,\"stream\":7}},"
    "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":20,"
    "\"args\":{\"Bytes\":4096,\"Device Id\":0,\"Device Type\":1,\"Addr\":4096}},"
    "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":30,"
    "\"args\":{\"Bytes\":9223372036854775807,\"Device Id\":0,\"Device Type\":1,\"Addr\":8192}},"
    "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":40,"
    "\"args\":{\"Bytes\":1024,\"Device Id\":0,\"Device Type\":1,\"Addr\":16384}}]}";
  const char *json_args[] = { NULL, "--report", "memory", "--format", "json", NULL };
  const char *table_args[] = { NULL, "--report", "memory", NULL };
  g_autofree char *dir = g_dir_make_tmp ("ks-memory-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "eb.json", NULL);
  yajl_val root, dev;
  Run r;

  g_assert_true (g_file_set_contents (path, trace, -1, NULL));
  json_args[0] = table_args[0] = path;

  run_command (&r, "stats", json_args);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  dev = item (get (root, "devices", NULL), 0);
  g_assert_cmpint (get_int (dev, "points", NULL), ==, 2);
  g_assert_cmpint (get_int (dev, "peak_allocated", NULL), ==, 5120);
  g_assert_cmpint (get_int (root, "ignored_events", NULL), ==, 1);
  g_assert_cmpint (get_int (root, "allocation_count", NULL), ==, 2);
  yajl_tree_free (root);
  g_assert_nonnull (strstr (r.err, "Warning: 1 memory event with an impossible size (over 1 PiB) was left out"));
  run_clear (&r);

  run_command (&r, "stats", table_args);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Peak allocated:      5.0\xc2\xa0KiB"));
  g_assert_null (strstr (r.out, "EiB"));
  g_assert_nonnull (strstr (r.err, "impossible size"));
  run_clear (&r);

  g_unlink (path);
  g_rmdir (dir);
}


/* --report samples on the corpus' Nsight export (1531 CPU samples): self
 * and total of every (thread, function, file) computed here in SQL from
 * the export's own rows, in every format. */
static void
test_report_samples (void)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  g_autofree char *path = shared ? g_build_filename (shared, "corpus", "pipit", "cloverleaf-nsys",
                                                     "perlmutter-cloverleaf-cuda.sqlite", NULL) : NULL;
  g_autoptr(GHashTable) want = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GHashTable) got = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  GHashTableIter iter;
  gpointer key, value;
  sqlite3 *db;
  sqlite3_stmt *stmt;
  yajl_val root, rows;
  Run r;
  const char *prev_thread = NULL;
  gint64 prev_total = G_MAXINT64;

  if (path == NULL || !g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the Nsight export of the corpus (KS_SHARED_DIR) is absent");
      return;
    }

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db,
    "SELECT (SELECT s.value FROM ThreadNames n JOIN StringIds s ON s.id = n.nameId WHERE n.globalTid = e.globalTid), "
    "f.value, m.value, SUM(c.stackDepth = 0), COUNT(DISTINCT c.id) "
    "FROM SAMPLING_CALLCHAINS c JOIN COMPOSITE_EVENTS e ON e.id = c.id "
    "JOIN StringIds f ON f.id = c.symbol JOIN StringIds m ON m.id = c.module "
    "GROUP BY e.globalTid, f.value, m.value", -1, &stmt, NULL), ==, SQLITE_OK);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      char *k = g_strdup_printf ("%s|%s|%s", sqlite3_column_text (stmt, 0), sqlite3_column_text (stmt, 1),
                                 sqlite3_column_text (stmt, 2));
      gint64 *v = g_hash_table_lookup (want, k);

      if (v == NULL)
        {
          v = g_new0 (gint64, 2);
          g_hash_table_insert (want, g_strdup (k), v);
        }
      v[0] += sqlite3_column_int64 (stmt, 3);
      v[1] += sqlite3_column_int64 (stmt, 4);
      g_free (k);
    }
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  g_assert_cmpuint (g_hash_table_size (want), >, 10);

  run_cli (&r, "--report", "samples", "--format", "json", path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = yajl_tree_parse (r.out, NULL, 0);
  g_assert_nonnull (root);
  rows = get (root, "samples", NULL);
  g_assert_true (YAJL_IS_ARRAY (rows));
  for (guint i = 0; i < rows->u.array.len; i++)
    {
      yajl_val row = rows->u.array.values[i];
      const char *thread = get_str (row, "thread");
      g_autofree char *k = g_strdup_printf ("%s|%s|%s", thread, get_str (row, "function"), get_str (row, "file"));
      gint64 *v = g_hash_table_lookup (got, k);
      gint64 total = get_int (row, "total", NULL);

      g_assert_cmpint (get_int (row, "line", NULL), ==, 0);
      g_assert_cmpint (get_int (row, "self", NULL), <=, total);
      /* by total within a thread */
      if (prev_thread != NULL && strcmp (prev_thread, thread) == 0)
        g_assert_cmpint (total, <=, prev_total);
      prev_thread = thread;
      prev_total = total;
      if (v == NULL)
        {
          v = g_new0 (gint64, 2);
          g_hash_table_insert (got, g_strdup (k), v);
        }
      v[0] += get_int (row, "self", NULL);
      v[1] += total;
    }
  g_assert_cmpuint (g_hash_table_size (got), ==, g_hash_table_size (want));
  g_hash_table_iter_init (&iter, want);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      gint64 *w = value, *g = g_hash_table_lookup (got, key);

      g_test_message ("%s", (const char *) key);
      g_assert_nonnull (g);
      g_assert_cmpint (g[0], ==, w[0]);
      g_assert_cmpint (g[1], ==, w[1]);
    }
  yajl_tree_free (root);
  run_clear (&r);

  run_cli (&r, "--report", "samples", "--format", "csv", path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "thread,function,file,line,self,total,waiting,tid\ncuda-cloverleaf,main,"));
  run_clear (&r);
  run_cli (&r, "--report", "samples", path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Function"));
  g_assert_nonnull (strstr (r.out, "cudaDeviceSynchronize"));
  run_clear (&r);
}

/* stats --report operators: a CPU time (thread time) column beside the
 * wall time when the trace has "tdur"; the CSV has it always (empty). */
static void
test_operators_thread_time (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-tt-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "tt.json", NULL);
  g_autofree char *fixture = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "seed_cnn.pt.trace.json.gz", NULL);
  const char *json =
    "[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":400,\"tdur\":100,\"name\":\"aten::mm\"},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"pid\":1,\"tid\":1,\"ts\":500,\"dur\":100,\"tdur\":50,\"name\":\"aten::mm\"},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"pid\":1,\"tid\":1,\"ts\":700,\"dur\":100,\"name\":\"aten::add\"}]";
  Run r = { 0 };

  g_assert_true (g_file_set_contents (path, json, -1, NULL));
  run_cli (&r, path, "--report", "operators", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "CPU time"));
  g_assert_nonnull (strstr (r.out, "150 µs"));
  run_clear (&r);

  run_cli (&r, path, "--report", "operators", "--format", "csv", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "device_self_ns,host_thread_ns"));
  g_assert_nonnull (strstr (r.out, "aten::mm,,2,500000,500000,0,0,150000"));
  g_assert_nonnull (strstr (r.out, "aten::add,,1,100000,100000,0,0,\n"));
  run_clear (&r);

  run_cli (&r, path, "--report", "operators", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\"host_thread_ns\":150000"));
  g_assert_nonnull (strstr (r.out, "\"host_thread_ns\":null"));
  run_clear (&r);

  /* a Kineto trace has no thread time: neither column nor member */
  run_cli (&r, fixture, "--report", "operators", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.out, "CPU time"));
  run_clear (&r);
  run_cli (&r, fixture, "--report", "operators", "--format", "json", NULL);
  g_assert_null (strstr (r.out, "host_thread_ns"));
  run_clear (&r);

  g_unlink (path);
  g_rmdir (dir);
}

/* stats --report profiler-ranges on HTA's cupti_profiler trace: 77 ranges
 * of 9 counters each, in the three formats; a trace without ranges says so. */
static void
test_profiler_ranges (void)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  g_autofree char *path = g_build_filename (shared ? shared : ".", "corpus", "hta", "cupti_profiler",
                                            "benchmark_result_924719_1679055439_trace.json.gz", NULL);
  g_autofree char *plain = fixture ("seed_cnn.pt.trace.json.gz");
  g_auto(GStrv) lines = NULL;
  yajl_val root;
  Run r;

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("HTA's cupti_profiler trace (KS_SHARED_DIR/corpus/hta/cupti_profiler) is not available");
      return;
    }

  run_cli (&r, path, "--report", "profiler-ranges", NULL);
  g_assert_cmpint (r.status, ==, 0);
  lines = g_strsplit (r.out, "\n", -1);
  g_assert_cmpstr (lines[0], ==, "77 range-profiler ranges on 1 GPU, 693 counter values:");
  g_assert_true (g_str_has_prefix (lines[1], "Range GPU       Start    Duration Counter "));
  g_assert_nonnull (strstr (lines[1], " Value Operator                 Kernel or Range"));
  /* the table's first 50 rows, then a line that says how many are left */
  g_assert_true (g_str_has_prefix (lines[2], "    1   0      2.50 s      121 ms smsp__sass_thread_inst_executed_op_dadd_pred_on.sum "));
  g_clear_pointer (&lines, g_strfreev);
  run_clear (&r);

  run_cli (&r, path, "--report", "profiler-ranges", "--format", "csv", NULL);
  g_assert_cmpint (r.status, ==, 0);
  lines = g_strsplit (r.out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 1 + 693 + 1);
  g_assert_cmpstr (lines[0], ==, "range,device,start_ns,dur_ns,counter,value,name,operator,top_operator");
  g_assert_cmpstr (lines[10], ==, "2,0,2620739000,121431000,smsp__sass_thread_inst_executed_op_dadd_pred_on.sum,0,"
                                  "__missing__,aten::cudnn_convolution,aten::conv2d");
  g_assert_cmpstr (lines[17], ==, "2,0,2620739000,121431000,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,9119334400,"
                                  "__missing__,aten::cudnn_convolution,aten::conv2d");
  run_clear (&r);

  run_cli (&r, path, "--report", "profiler-ranges", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  g_assert_cmpint (get_int (root, "summary", "ranges"), ==, 77);
  g_assert_cmpint (get_int (root, "summary", "devices"), ==, 1);
  g_assert_cmpint (get_int (root, "summary", "counters"), ==, 693);
  g_assert_cmpint (get_int (root, "summary", "launches"), ==, 77);
  g_assert_true (YAJL_IS_TRUE (get (root, "summary", "launches_matched")));
  g_assert_cmpuint (YAJL_GET_ARRAY (get (root, "counters", NULL))->len, ==, 693);
  g_assert_cmpint (get_int (item (get (root, "counters", NULL), 16), "value", NULL), ==, 9119334400);
  yajl_tree_free (root);
  run_clear (&r);

  run_cli (&r, plain, "--report", "profiler-ranges", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_cmpstr (r.out, ==, "No range-profiler ranges: the trace has no cuda_profiler_range events (PyTorch's profiler_metrics).\n");
  run_clear (&r);

  /* ranges without their launch calls: said, not guessed */
  {
    g_autofree char *dir = g_dir_make_tmp ("ks-ranges-XXXXXX", NULL);
    g_autofree char *small = g_build_filename (dir, "ranges.json", NULL);

    g_assert_true (g_file_set_contents (small,
                                        "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cuda_profiler_range\",\"name\":\"k\","
                                        "\"pid\":0,\"tid\":0,\"ts\":1,\"dur\":2,\"args\":{\"a.sum\":3}}]}", -1, NULL));
    run_cli (&r, small, "--report", "profiler-ranges", NULL);
    g_assert_cmpint (r.status, ==, 0);
    g_assert_true (g_str_has_prefix (r.out, "1 range-profiler range on 1 GPU, 1 counter values:\n"));
    g_assert_true (g_str_has_suffix (r.out, "\nNo operators: ranges are matched with the cudaLaunchKernel calls in time "
                                            "order (as HTA does), and the trace has 0 calls for 1 ranges.\n"));
    run_clear (&r);
    g_unlink (small);
    g_rmdir (dir);
  }
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/analysis/cli/summary-json", test_summary_json);
  g_test_add_func ("/analysis/cli/gap-threshold", test_gap_threshold);
  g_test_add_func ("/analysis/cli/reports", test_reports);
  g_test_add_func ("/analysis/cli/report-views", test_report_views);
  g_test_add_func ("/analysis/cli/recording-steps", test_recording_steps);
  g_test_add_func ("/analysis/cli/errors", test_errors);
  g_test_add_func ("/analysis/cli/operators-thread-time", test_operators_thread_time);
  g_test_add_func ("/analysis/cli/report-samples", test_report_samples);
  g_test_add_func ("/analysis/cli/impossible-memory", test_impossible_memory);

  g_test_add_func ("/analysis/cli/profiler-ranges", test_profiler_ranges);

  return g_test_run ();
}
