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

typedef struct
{
  int   status;
  char *out;
  char *err;
} Run;

static void
run_clear (Run *r)
{
  g_free (r->out);
  g_free (r->err);
}

/* Runs `kinescope-cli COMMAND ARGS…` with the C locale. */
static void
run_command (Run                *r,
             const char         *command,
             const char * const *args)
{
  const char *root = g_getenv ("KS_BUILD_ROOT");
  g_autofree char *cli = g_build_filename (root ? root : ".", "src", "cli", "kinescope-cli", NULL);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) envp = NULL;
  int wait_status = 0;

  g_ptr_array_add (argv, cli);
  g_ptr_array_add (argv, (char *)command);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *)args[i]);
  g_ptr_array_add (argv, NULL);

  /* Numbers in tables follow the locale: pin it */
  envp = g_environ_setenv (g_get_environ (), "LC_ALL", "C", TRUE);
  memset (r, 0, sizeof *r);
  g_spawn_sync (NULL, (char **)argv->pdata, envp, G_SPAWN_DEFAULT, NULL, NULL,
                &r->out, &r->err, &wait_status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  r->status = WEXITSTATUS (wait_status);
}

/* `kinescope-cli COMMAND` with the NULL-terminated arguments of @ap. */
static void
run_args (Run        *r,
          const char *command,
          const char *first,
          va_list     ap)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();

  for (const char *arg = first; arg != NULL; arg = va_arg (ap, const char *))
    g_ptr_array_add (args, (char *)arg);
  g_ptr_array_add (args, NULL);
  run_command (r, command, (const char * const *)args->pdata);
}

static void
run_cli (Run        *r,
         const char *first,
         ...)
{
  va_list ap;

  va_start (ap, first);
  run_args (r, "stats", first, ap);
  va_end (ap);
}

static char *
fixture (const char *name)
{
  const char *dir = g_getenv ("KS_FIXTURES_DIR");

  return g_build_filename (dir ? dir : ".", name, NULL);
}

static yajl_val
parse (const char *text)
{
  char errbuf[256];
  yajl_val v = yajl_tree_parse (text, errbuf, sizeof errbuf);

  if (v == NULL)
    g_error ("invalid JSON: %s\n%s", errbuf, text);
  return v;
}

static yajl_val
get (yajl_val    v,
     const char *a,
     const char *b)
{
  const char *path[] = { a, b, NULL };
  yajl_val r = yajl_tree_get (v, path, yajl_t_any);

  g_assert_nonnull (r);
  return r;
}

static gint64
get_int (yajl_val    v,
         const char *a,
         const char *b)
{
  yajl_val r = get (v, a, b);

  g_assert_true (YAJL_IS_INTEGER (r));
  return YAJL_GET_INTEGER (r);
}

static const char *
get_str (yajl_val    v,
         const char *a)
{
  yajl_val r = get (v, a, NULL);

  g_assert_true (YAJL_IS_STRING (r));
  return r->u.string;
}

static yajl_val
item (yajl_val v,
      guint    i)
{
  g_assert_true (YAJL_IS_ARRAY (v));
  g_assert_cmpuint (i, <, YAJL_GET_ARRAY (v)->len);
  return YAJL_GET_ARRAY (v)->values[i];
}

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

/* Names that try to drive the terminal: ESC sequences (clear screen,
 * colours, an OSC window title ended by BEL), CR, tab, DEL, the C1
 * control U+009B (CSI), and commas, quotes and a newline for CSV. */
static const char hostile_trace[] =
  "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,\"name\":\"\\u001b[5mGPU\\u0007\","
  "\"totalGlobalMem\":1000000000,\"computeMajor\":9,\"computeMinor\":0,\"maxThreadsPerBlock\":1024,"
  "\"maxThreadsPerMultiprocessor\":2048,\"regsPerBlock\":65536,\"warpSize\":32,\"sharedMemPerBlock\":49152,"
  "\"numSms\":132}],\"traceEvents\":["
  "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":10,\"tid\":0,\"args\":{\"name\":\"\\u001b[2Jproc\"}},"
  "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":10,\"tid\":11,\"args\":{\"name\":\"\\u001b]0;pwned\\u0007main\\tthread\"}},"
  "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":10,\"tid\":11,\"ts\":1000,\"dur\":400},"
  "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":10,\"tid\":11,\"ts\":1400,\"dur\":400},"
  "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"\\u001b[31maten::evil,\\\"op\\\"\\nline2\",\"pid\":10,\"tid\":11,"
  "\"ts\":1010,\"dur\":100,\"args\":{\"External id\":1,\"Input Dims\":[[2,3]]}},"
  "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":10,\"tid\":11,\"ts\":1020,\"dur\":10,"
  "\"args\":{\"External id\":1,\"correlation\":10}},"
  "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"\\u001b[2Jevil_kernel\\u009b31m\\r\",\"pid\":0,\"tid\":7,\"ts\":1040,"
  "\"dur\":20,\"args\":{\"External id\":1,\"device\":0,\"stream\":7,\"correlation\":10,\"grid\":[1,1,1],"
  "\"block\":[32,1,1],\"registers per thread\":16}},"
  "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"\\u001b[1mwaiting\\u007f\",\"pid\":10,\"tid\":11,\"ts\":1200,\"dur\":500,"
  "\"args\":{\"External id\":2}},"
  "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":10,\"tid\":11,\"ts\":1690,\"dur\":5,"
  "\"args\":{\"External id\":2,\"correlation\":11}},"
  "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\\u001b[0m\",\"pid\":0,\"tid\":7,\"ts\":1700,\"dur\":50,"
  "\"args\":{\"External id\":2,\"device\":0,\"stream\":7,\"correlation\":11,\"grid\":[1,1,1],\"block\":[32,1,1],"
  "\"registers per thread\":16}},"
  "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\",\"pid\":0,\"tid\":7,"
  "\"ts\":1100,\"dur\":80,\"args\":{\"device\":0,\"stream\":7,\"correlation\":12,\"bytes\":1048576}},"
  "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":10,\"tid\":11,\"ts\":1050,"
  "\"args\":{\"Bytes\":4096,\"Device Id\":0,\"Device Type\":1,\"Addr\":4096,\"Total Allocated\":4096,"
  "\"Total Reserved\":8192}},"
  "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":10,\"tid\":11,\"ts\":1300,"
  "\"args\":{\"Bytes\":-4096,\"Device Id\":0,\"Device Type\":1,\"Addr\":4096,\"Total Allocated\":0,"
  "\"Total Reserved\":8192}}]}";

#define EVIL_KERNEL    "\x1b[2Jevil_kernel\xc2\x9b" "31m\r"
#define EVIL_OPERATOR  "\x1b[31maten::evil,\"op\"\nline2"
#define SHOWN_KERNEL   "\\x1b[2Jevil_kernel\\u009b31m\\r"
#define SHOWN_OPERATOR "\\x1b[31maten::evil,\"op\"\\nline2"

/* No byte a terminal acts on: no C0 control but the newline, no DEL, no
 * C1 control (U+0080–U+009F), and valid UTF-8. */
static void
assert_inert (const char *what,
              const char *text)
{
  g_assert_nonnull (text);
  if (!g_utf8_validate (text, -1, NULL))
    g_error ("%s: not UTF-8:\n%s", what, text);
  for (const guchar *p = (const guchar *)text; *p; p++)
    if ((*p < 0x20 && *p != '\n') || *p == 0x7f || (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
      g_error ("%s: control character 0x%02x at byte %d of:\n%s", what, *p == 0xc2 ? p[1] : *p,
               (int)((const char *)p - text), text);
}

/* RFC 4180 records; NULL when @text is not well-formed CSV. */
static GPtrArray *
parse_csv (const char *text)
{
  g_autoptr(GPtrArray) records = g_ptr_array_new_with_free_func ((GDestroyNotify)g_ptr_array_unref);
  GPtrArray *record = NULL;
  const char *p = text;

  while (*p)
    {
      GString *field = g_string_new (NULL);

      if (record == NULL)
        {
          record = g_ptr_array_new_with_free_func (g_free);
          g_ptr_array_add (records, record);
        }
      if (*p == '"')
        {
          for (p++; ; p++)
            {
              if (*p == '\0')
                {
                  g_string_free (field, TRUE);
                  return NULL;
                }
              if (*p == '"' && p[1] == '"')
                g_string_append_c (field, *p++);
              else if (*p == '"')
                break;
              else
                g_string_append_c (field, *p);
            }
          p++;
        }
      else
        for (; *p && *p != ',' && *p != '\n'; p++)
          {
            if (*p == '"' || *p == '\r')
              {
                g_string_free (field, TRUE);
                return NULL;
              }
            g_string_append_c (field, *p);
          }
      g_ptr_array_add (record, g_string_free (field, FALSE));
      if (*p == ',')
        p++;
      else if (*p == '\n')
        {
          p++;
          record = NULL;
        }
      else if (*p != '\0')
        return NULL;
    }
  return g_steal_pointer (&records);
}

/* The array @key of the JSON object @text has an item named @name. */
static void
assert_json_lists_name (const char *text,
                        const char *key,
                        const char *name)
{
  yajl_val root = parse (text);
  yajl_val list = get (root, key, NULL);
  gboolean found = FALSE;

  for (guint i = 0; i < YAJL_GET_ARRAY (list)->len; i++)
    found |= g_strcmp0 (get_str (item (list, i), "name"), name) == 0;
  if (!found)
    g_error ("no %s named %s in %s", key, name, text);
  yajl_tree_free (root);
}

static char *
write_hostile_trace (const char *dir)
{
  char *path = g_build_filename (dir, "hostile.json", NULL);

  g_assert_true (g_file_set_contents (path, hostile_trace, -1, NULL));
  return path;
}

/* Every report, in every format, of a trace whose names hold terminal
 * escape sequences: tables and CSV show them escaped, CSV parses, JSON
 * parses and keeps the names exactly. */
static void
test_hostile_names (void)
{
  static const char * const reports[] = { "summary", "gaps", "operators", "kernels", "memory", "advice", "steps",
                                          "tensor-cores", "queue" };
  g_autofree char *dir = g_dir_make_tmp ("ks-hostile-XXXXXX", NULL);
  g_autofree char *path = write_hostile_trace (dir);
  Run r;

  for (guint i = 0; i < G_N_ELEMENTS (reports); i++)
    {
      g_autoptr(GPtrArray) csv = NULL;
      g_autofree char *what = NULL;
      yajl_val root;

      run_cli (&r, path, "--report", reports[i], NULL);
      g_assert_cmpint (r.status, ==, 0);
      what = g_strdup_printf ("--report %s (table)", reports[i]);
      assert_inert (what, r.out);
      assert_inert (what, r.err);
      run_clear (&r);

      run_cli (&r, path, "--report", reports[i], "--format", "csv", NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_free (what);
      what = g_strdup_printf ("--report %s --format csv", reports[i]);
      assert_inert (what, r.out);
      csv = parse_csv (r.out);
      if (csv == NULL)
        g_error ("%s: not CSV:\n%s", what, r.out);
      g_assert_cmpuint (csv->len, >=, 2);
      for (guint row = 1; row < csv->len; row++)
        g_assert_cmpuint (((GPtrArray *)csv->pdata[row])->len, ==, ((GPtrArray *)csv->pdata[0])->len);
      run_clear (&r);

      run_cli (&r, path, "--report", reports[i], "--format", "json", NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_free (what);
      what = g_strdup_printf ("--report %s --format json", reports[i]);
      assert_inert (what, r.out);
      root = parse (r.out);
      yajl_tree_free (root);
      run_clear (&r);
    }

  /* The names are there, visibly escaped, each on its row. */
  run_cli (&r, path, "--report", "kernels", NULL);
  g_assert_nonnull (strstr (r.out, " " SHOWN_KERNEL "\n"));
  run_clear (&r);
  run_cli (&r, path, "--report", "operators", NULL);
  g_assert_nonnull (strstr (r.out, " " SHOWN_OPERATOR "\n"));
  run_clear (&r);
  run_cli (&r, path, NULL);
  g_assert_nonnull (strstr (r.out, "GPU 0: \\x1b[5mGPU\\x07\n"));
  run_clear (&r);
  run_cli (&r, path, "--report", "gaps", "--format", "csv", NULL);
  /* the thread, then what another thread did meanwhile: nothing here */
  g_assert_nonnull (strstr (r.out, ",\\x1b]0;pwned\\x07main\\tthread (11),\n"));
  run_clear (&r);

  /* CSV keeps the newline, quoted; the rest escaped. */
  run_cli (&r, path, "--report", "operators", "--format", "csv", NULL);
  {
    g_autoptr(GPtrArray) csv = parse_csv (r.out);
    GPtrArray *row = NULL;

    for (guint i = 1; i < csv->len; i++)
      if (strstr (((GPtrArray *)csv->pdata[i])->pdata[0], "evil") != NULL)
        row = csv->pdata[i];
    g_assert_nonnull (row);
    g_assert_cmpstr (row->pdata[0], ==, "\\x1b[31maten::evil,\"op\"\nline2");
  }
  run_clear (&r);

  /* JSON holds the names as they are. */
  run_cli (&r, path, "--report", "kernels", "--format", "json", NULL);
  assert_json_lists_name (r.out, "kernels", EVIL_KERNEL);
  run_clear (&r);
  run_cli (&r, path, "--report", "operators", "--format", "json", NULL);
  assert_json_lists_name (r.out, "operators", EVIL_OPERATOR);
  run_clear (&r);

  /* info, as text and as JSON */
  {
    const char *text_args[] = { path, NULL };
    const char *json_args[] = { "--format", "json", path, NULL };
    yajl_val root;

    run_command (&r, "info", text_args);
    g_assert_cmpint (r.status, ==, 0);
    assert_inert ("info", r.out);
    g_assert_nonnull (strstr (r.out, "  0: \\x1b[5mGPU\\x07\n"));
    run_clear (&r);

    run_command (&r, "info", json_args);
    g_assert_cmpint (r.status, ==, 0);
    assert_inert ("info --format json", r.out);
    root = parse (r.out);
    g_assert_cmpstr (YAJL_GET_STRING (item (get (root, "gpu_names", NULL), 0)), ==, "\x1b[5mGPU\x07");
    yajl_tree_free (root);
    run_clear (&r);
  }

  g_unlink (path);
  g_rmdir (dir);
}

/* Messages on stderr name files and arguments escaped too. */
static void
test_hostile_messages (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-hostile-XXXXXX", NULL);
  g_autofree char *bad = g_build_filename (dir, "\x1b[2Jbad\x07.json", NULL);
  g_autofree char *out = g_build_filename (dir, "out.kscope", NULL);
  const char *stats_args[] = { bad, NULL };
  const char *info_args[] = { bad, NULL };
  const char *convert_args[] = { bad, out, NULL };
  const char *render_args[] = { bad, "-o", out, NULL };
  const char *report_args[] = { bad, "--report", "\x1b[2Jall", NULL };
  const char *none[] = { NULL };
  static const char * const commands[] = { "stats", "info", "convert", "render" };
  const char * const *args[] = { stats_args, info_args, convert_args, render_args };
  Run r;

  g_assert_true (g_file_set_contents (bad, "{\"traceEvents\": [ not json", -1, NULL));

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      run_command (&r, commands[i], args[i]);
      g_assert_cmpint (r.status, !=, 0);
      assert_inert (commands[i], r.err);
      /* The file is named (as a URI: GIO's parse name escapes it). render
       * is built with the GUI only. */
      if (strstr (r.err, "unknown command") == NULL)
        g_assert_nonnull (strstr (r.err, "%1B%5B2Jbad%07.json"));
      run_clear (&r);
    }

  run_command (&r, "stats", report_args);
  g_assert_cmpint (r.status, ==, 2);
  assert_inert ("stats --report", r.err);
  g_assert_nonnull (strstr (r.err, "\\x1b[2Jall"));
  run_clear (&r);

  run_command (&r, "\x1b]0;title\x07", none);
  g_assert_cmpint (r.status, ==, 2);
  assert_inert ("unknown command", r.err);
  g_assert_nonnull (strstr (r.err, "\\x1b]0;title\\x07"));
  run_clear (&r);

  g_unlink (bad);
  g_rmdir (dir);
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

/* The kernels report of the hostile trace, exactly: the table header
 * and cells placed by the column descriptors, CSV with the three-axis
 * columns expanded, JSON members named by the keys. */
static void
test_report_exact (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-hostile-XXXXXX", NULL);
  g_autofree char *path = write_hostile_trace (dir);
  Run r;

  run_cli (&r, path, "--report", "kernels", "--format", "csv", NULL);
  g_assert_cmpstr (r.out, ==,
                   "name,calls,total_ns,mean_ns,min_ns,max_ns,share,grid_x,grid_y,grid_z,block_x,block_y,block_z,"
                   "registers,est_occupancy_pct,mean_latency_ns,mean_queue_ns\n"
                   "k2\\x1b[0m,1,50000,50000.0000,50000,50000,0.7143,1,1,1,32,1,1,16,,5000.0000,0.0000\n"
                   SHOWN_KERNEL ",1,20000,20000.0000,20000,20000,0.2857,1,1,1,32,1,1,16,,10000.0000,0.0000\n");
  run_clear (&r);

  run_cli (&r, path, "--report", "kernels", "--format", "json", NULL);
  g_assert_true (g_str_has_prefix (r.out,
                                   "{\"kernels\":[{\"name\":\"k2\\u001b[0m\",\"calls\":1,\"total_ns\":50000,"
                                   "\"mean_ns\":50000.0000,\"min_ns\":50000,\"max_ns\":50000,\"share\":0.7143,"
                                   "\"grid\":[1,1,1],\"block\":[32,1,1],\"registers\":16,\"config_varies\":false,"
                                   "\"est_occupancy_pct\":null,\"mean_latency_ns\":5000.0000,"
                                   "\"mean_queue_ns\":0.0000},"));
  run_clear (&r);

  run_cli (&r, path, "--report", "kernels", NULL);
  g_assert_true (g_str_has_prefix (r.out,
                                   "  Calls       Total        Mean         Min         Max   Share  Occ. Grid   "
                                   "        Block        Regs Kernel\n"));
  g_assert_nonnull (strstr (r.out, "  71.4 %     - 1×1×1          32×1×1         16 k2\\x1b[0m\n"));
  run_clear (&r);

  g_unlink (path);
  g_rmdir (dir);
}

/* Records `true` into @name in a new folder named after @dir_template
 * with --progress-fd: every line parses as JSON, the last one names the
 * file exactly, and nothing written can drive a terminal. */
static void
check_progress (const char *dir_template,
                const char *name)
{
  g_autofree char *dir = g_dir_make_tmp (dir_template, NULL);
  g_autofree char *out = g_build_filename (dir, name, NULL);
  const char *args[] = { "--progress-fd", "1", "-o", out, "--", "true", NULL };
  g_auto(GStrv) lines = NULL;
  yajl_val done;
  Run r;

  run_command (&r, "record", args);
  g_assert_cmpint (r.status, ==, 0);
  lines = g_strsplit (g_strstrip (r.out), "\n", -1);
  for (guint i = 0; lines[i]; i++)
    yajl_tree_free (parse (lines[i]));
  done = parse (lines[g_strv_length (lines) - 1]);
  g_assert_cmpstr (get_str (done, "state"), ==, "done");
  g_assert_cmpstr (get_str (done, "output"), ==, out);
  yajl_tree_free (done);
  assert_inert ("record --progress-fd", r.out);
  assert_inert ("record", r.err);
  run_clear (&r);

  g_unlink (out);
  g_rmdir (dir);
}

/* An output name with control characters and a newline keeps the
 * progress lines valid, one object a line. */
static void
test_hostile_progress (void)
{
  check_progress ("ks-hostile-XXXXXX", "\x1b[2Jrec\nord\x7f.kscope");
}

/* A folder named 训练 and a file name with a quote and a backslash. */
static void
test_progress_path (void)
{
  check_progress ("ks-训练-XXXXXX", "a\"b\\c.kscope");
}

/* Invalid UTF-8 in a trace's names (here a code point past U+10FFFF, an
 * encoded surrogate and an escaped one, which yajl lets through) never
 * reaches the JSON output: the reader replaced it with U+FFFD. */
static void
test_invalid_utf8 (void)
{
  static const char trace[] =
    "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\xf4\x90\x80\x80\\udfff\",\"pid\":0,\"tid\":7,"
    "\"ts\":10,\"dur\":5,\"args\":{\"device\":0,\"stream\":7}}],"
    "\"deviceProperties\":[{\"id\":0,\"name\":\"H\xed\xa0\x80\",\"numSms\":132}]}";
  g_autoptr(GError) error = NULL;
  g_autofree char *tmp = NULL;
  int fd = g_file_open_tmp ("ks-utf8-XXXXXX.json", &tmp, &error);
  yajl_val root;
  Run r;

  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (tmp, trace, -1, NULL));
  run_cli (&r, tmp, "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_utf8_validate (r.out, -1, NULL));
  root = parse (r.out);
  g_assert_cmpstr (YAJL_GET_STRING (get (item (get (root, "gpus", NULL), 0), "name", NULL)), ==,
                   "H\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  g_assert_cmpstr (YAJL_GET_STRING (get (item (get (root, "top_kernels", NULL), 0), "name", NULL)), ==,
                   "k\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  yajl_tree_free (root);
  run_clear (&r);
  g_unlink (tmp);
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

/* kinescope-cli diff */

static void
run_diff (Run        *r,
          const char *first,
          ...)
{
  va_list ap;

  va_start (ap, first);
  run_args (r, "diff", first, ap);
  va_end (ap);
}

/* A decimal number of microseconds ("5110153447431.893") as exact
 * nanoseconds, without the rounding of a double. */
static gint64
us_to_ns (yajl_val v)
{
  const char *s = YAJL_IS_NUMBER (v) ? v->u.number.r : NULL;
  const char *dot;
  gint64 ns;
  guint digits = 0;

  g_assert_nonnull (s);
  ns = g_ascii_strtoll (s, NULL, 10) * 1000;
  if ((dot = strchr (s, '.')) != NULL)
    {
      gint64 frac = 0;

      for (const char *c = dot + 1; g_ascii_isdigit (*c) && digits < 3; c++, digits++)
        frac = frac * 10 + (*c - '0');
      for (; digits < 3; digits++)
        frac *= 10;
      ns += frac;
    }
  return ns;
}

typedef struct
{
  gint64 start;
  gint64 end;
} Span;

static int
span_cmp (gconstpointer a,
          gconstpointer b)
{
  const Span *x = a, *y = b;

  return (x->start > y->start) - (x->start < y->start);
}

/* Length of the union of @spans inside [start, end). */
static gint64
union_within (GArray *spans,
              gint64  start,
              gint64  end)
{
  gint64 total = 0, cur_s = 0, cur_e = G_MININT64;

  g_array_sort (spans, span_cmp);
  for (guint i = 0; i <= spans->len; i++)
    {
      Span s = i < spans->len ? g_array_index (spans, Span, i) : (Span) { G_MAXINT64, G_MAXINT64 };

      s.start = MAX (s.start, start);
      s.end = MIN (s.end, end);
      if (i < spans->len && s.end <= s.start)
        continue;
      if (s.start > cur_e || i == spans->len)
        {
          if (cur_e > cur_s)
            total += cur_e - cur_s;
          cur_s = s.start;
          cur_e = s.end;
        }
      else
        cur_e = MAX (cur_e, s.end);
    }
  return total;
}

/* A gzipped JSON fixture, parsed whole by yajl (not by the reader). */
static yajl_val
parse_gz_fixture (const char *name)
{
  g_autofree char *path = fixture (name);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(GInputStream) raw = G_INPUT_STREAM (g_file_read (file, NULL, &error));
  g_autoptr(GZlibDecompressor) gz = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr(GInputStream) in = g_converter_input_stream_new (raw, G_CONVERTER (gz));
  g_autoptr(GOutputStream) mem = g_memory_output_stream_new_resizable ();

  g_assert_no_error (error);
  g_output_stream_splice (mem, in, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_write (mem, "", 1, NULL, NULL);
  return parse (g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (mem)));
}

/* The DataLoader part of the step breakdown straight from the JSON:
 * per ProfilerStep#N on the CPU, the union of GPU work and CUDA runtime
 * calls, then the time that enumerate(DataLoader) spans add to it. */
static void
dataloader_by_hand (const char *name,
                    gint64     *dataloader_ns,
                    gint64     *steps_ns,
                    guint      *n_steps)
{
  g_autoptr(GArray) steps = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr(GArray) below = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr(GArray) with_dl = g_array_new (FALSE, FALSE, sizeof (Span));
  const char *events_path[] = { "traceEvents", NULL };
  yajl_val root = parse_gz_fixture (name), events;

  events = yajl_tree_get (root, events_path, yajl_t_array);
  g_assert_nonnull (events);
  for (guint i = 0; i < YAJL_GET_ARRAY (events)->len; i++)
    {
      yajl_val e = YAJL_GET_ARRAY (events)->values[i];
      const char *ph[] = { "ph", NULL }, *cat[] = { "cat", NULL }, *nm[] = { "name", NULL };
      const char *ts[] = { "ts", NULL }, *dur[] = { "dur", NULL };
      yajl_val p = yajl_tree_get (e, ph, yajl_t_string), c = yajl_tree_get (e, cat, yajl_t_string);
      yajl_val n = yajl_tree_get (e, nm, yajl_t_string);
      const char *category, *event_name;
      Span span;

      if (p == NULL || strcmp (p->u.string, "X") != 0 || c == NULL || n == NULL)
        continue;
      category = c->u.string;
      event_name = n->u.string;
      span.start = us_to_ns (yajl_tree_get (e, ts, yajl_t_any));
      span.end = span.start + us_to_ns (yajl_tree_get (e, dur, yajl_t_any));
      if (strcmp (category, "user_annotation") == 0 && g_str_has_prefix (event_name, "ProfilerStep#"))
        g_array_append_val (steps, span);
      else if (strcmp (category, "kernel") == 0 || strcmp (category, "gpu_memcpy") == 0
               || strcmp (category, "gpu_memset") == 0 || strcmp (category, "cuda_runtime") == 0
               || strcmp (category, "cuda_driver") == 0)
        g_array_append_val (below, span);
      else if ((strcmp (category, "user_annotation") == 0 || strcmp (category, "cpu_op") == 0)
               && g_str_has_prefix (event_name, "enumerate(DataLoader)"))
        g_array_append_val (with_dl, span);
    }
  g_array_append_vals (with_dl, below->data, below->len);
  *dataloader_ns = *steps_ns = 0;
  *n_steps = steps->len;
  for (guint i = 0; i < steps->len; i++)
    {
      Span s = g_array_index (steps, Span, i);

      *dataloader_ns += union_within (with_dl, s.start, s.end) - union_within (below, s.start, s.end);
      *steps_ns += s.end - s.start;
    }
  yajl_tree_free (root);
}

/* Two JSON values are the same value. */
static gboolean
json_equal (yajl_val a,
            yajl_val b)
{
  if (a->type != b->type)
    return FALSE;
  switch (a->type)
    {
    case yajl_t_string:
      return strcmp (a->u.string, b->u.string) == 0;
    case yajl_t_number:
      return strcmp (a->u.number.r, b->u.number.r) == 0;
    case yajl_t_object:
      if (a->u.object.len != b->u.object.len)
        return FALSE;
      for (gsize i = 0; i < a->u.object.len; i++)
        if (strcmp (a->u.object.keys[i], b->u.object.keys[i]) != 0
            || !json_equal (a->u.object.values[i], b->u.object.values[i]))
          return FALSE;
      return TRUE;
    case yajl_t_array:
      if (a->u.array.len != b->u.array.len)
        return FALSE;
      for (gsize i = 0; i < a->u.array.len; i++)
        if (!json_equal (a->u.array.values[i], b->u.array.values[i]))
          return FALSE;
      return TRUE;
    case yajl_t_true:
    case yajl_t_false:
    case yajl_t_null:
    case yajl_t_any:
    default:
      return TRUE;
    }
}

/* Each side of a diff is what `stats` says of that file alone: the GPU
 * objects, the memory devices, the step count and mean. */
static void
assert_sides_are_stats (yajl_val    diff,
                        const char *base_path,
                        const char *new_path)
{
  const char *paths[] = { base_path, new_path };
  const char *sides[] = { "base", "new" };

  for (guint s = 0; s < 2; s++)
    {
      yajl_val side = get (diff, sides[s], NULL), stats, memory, steps;
      Run r;
      Run m;
      gint64 sum = 0;
      guint n;

      run_cli (&r, paths[s], "--format", "json", NULL);
      g_assert_cmpint (r.status, ==, 0);
      stats = parse (r.out);
      g_assert_true (json_equal (get (side, "gpus", NULL), get (stats, "gpus", NULL)));
      steps = get (stats, "steps", NULL);
      n = YAJL_GET_ARRAY (steps)->len;
      g_assert_cmpint (get_int (side, "steps", NULL), ==, n);
      for (guint i = 0; i < n; i++)
        sum += get_int (item (steps, i), "dur_ns", NULL);
      if (n > 0)
        g_assert_cmpint (get_int (side, "step_mean_ns", NULL), ==, (sum + n / 2) / n);
      yajl_tree_free (stats);
      run_clear (&r);

      run_cli (&m, paths[s], "--report", "memory", "--format", "json", NULL);
      g_assert_cmpint (m.status, ==, 0);
      memory = parse (m.out);
      g_assert_true (json_equal (get (side, "memory", NULL), get (memory, "devices", NULL)));
      yajl_tree_free (memory);
      run_clear (&m);
    }
}

/* Moving loading to pinned workers: the DataLoader's share of the step
 * falls by what the JSON itself says, and the fix's advice goes away. */
static void
test_diff_loader (void)
{
  g_autofree char *base = fixture ("loader_bound.pt.trace.json.gz");
  g_autofree char *fixed = fixture ("workers_pinned.pt.trace.json.gz");
  gint64 dl[2], total[2];
  guint n[2];
  double share[2], got[2];
  yajl_val root, removed;
  gboolean dataloader_removed = FALSE;
  Run r;

  dataloader_by_hand ("loader_bound.pt.trace.json.gz", &dl[0], &total[0], &n[0]);
  dataloader_by_hand ("workers_pinned.pt.trace.json.gz", &dl[1], &total[1], &n[1]);
  g_assert_cmpuint (n[0], ==, 4);
  g_assert_cmpuint (n[1], ==, 4);
  /* ProfilerStep#2 of loader_bound, as test_summary_json has it */
  g_assert_cmpint (dl[0], >, 32317106);

  run_diff (&r, base, fixed, "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  g_assert_cmpstr (get_str (root, "per"), ==, "step");
  for (guint s = 0; s < 2; s++)
    {
      yajl_val side = get (root, s == 0 ? "base" : "new", NULL);

      share[s] = (double)dl[s] / total[s];
      g_assert_cmpint (get_int (side, "breakdown_per_step_ns", "dataloader"), ==, (dl[s] + 2) / 4);
      g_assert_cmpint (get_int (side, "step_mean_ns", NULL), ==, (total[s] + 2) / 4);
      got[s] = (double)get_int (side, "breakdown_per_step_ns", "dataloader") / get_int (side, "step_mean_ns", NULL);
    }
  g_test_message ("DataLoader share %.4f -> %.4f", share[0], share[1]);
  g_assert_cmpfloat_with_epsilon (got[0] - got[1], share[0] - share[1], 1e-6);
  g_assert_cmpfloat (share[0] - share[1], >, 0.1);
  assert_sides_are_stats (root, base, fixed);

  removed = get (get (root, "advice", NULL), "removed", NULL);
  for (guint i = 0; i < YAJL_GET_ARRAY (removed)->len; i++)
    dataloader_removed |= strcmp (get_str (item (removed, i), "rule"), "pageable-memcpy") == 0;
  g_assert_true (dataloader_removed);
  yajl_tree_free (root);
  run_clear (&r);

  /* The table says the same, per step. */
  run_diff (&r, base, fixed, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Times and counts are per step."));
  g_assert_nonnull (strstr (r.out, "Step breakdown, DataLoader"));
  g_assert_nonnull (strstr (r.out, "Advice removed:"));
  run_clear (&r);

  run_diff (&r, base, fixed, "--report", "steps", "--format", "csv", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "step,base_name,base_dur_ns,new_name,new_dur_ns,change_ns,"));
  g_assert_nonnull (strstr (r.out, "\n1,ProfilerStep#2,39540550,ProfilerStep#2,"));
  run_clear (&r);
}

/* Kernels and operators matched by name: every call of each side is in
 * exactly one row, a name of one side only is added or removed. */
static void
assert_items_match (yajl_val    diff,
                    const char *list,
                    const char *stats_list,
                    const char *base_path,
                    const char *new_path,
                    const char *group_by)
{
  const char *paths[] = { base_path, new_path };
  const char *calls_key[] = { "base_calls", "new_calls" };
  yajl_val items = get (diff, list, NULL);
  g_autoptr(GHashTable) base_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) new_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GHashTable *names[2] = { base_names, new_names };
  yajl_val stats[2];

  for (guint s = 0; s < 2; s++)
    {
      Run r;
      yajl_val rows;

      run_cli (&r, paths[s], "--report", stats_list, "--format", "json", "--group-by", group_by, NULL);
      g_assert_cmpint (r.status, ==, 0);
      stats[s] = parse (r.out);
      rows = get (stats[s], stats_list, NULL);
      for (guint i = 0; i < YAJL_GET_ARRAY (rows)->len; i++)
        {
          yajl_val row = item (rows, i);
          const char *dims_path[] = { "input_dims", NULL };
          yajl_val dims = yajl_tree_get (row, dims_path, yajl_t_string);
          char *key = g_strconcat (get_str (row, "name"), "|", dims ? YAJL_GET_STRING (dims) : "", NULL);

          g_hash_table_insert (names[s], key, GINT_TO_POINTER ((int)get_int (row, "calls", NULL)));
        }
      run_clear (&r);
    }

  g_assert_cmpuint (YAJL_GET_ARRAY (items)->len, >=, MAX (g_hash_table_size (names[0]), g_hash_table_size (names[1])));
  for (guint i = 0; i < YAJL_GET_ARRAY (items)->len; i++)
    {
      yajl_val row = item (items, i);
      const char *dims_path[] = { "input_dims", NULL }, *new_name_path[] = { "new_name", NULL };
      yajl_val dims = yajl_tree_get (row, dims_path, yajl_t_string);
      /* A kernel matched across names has the new run's name apart. */
      yajl_val new_name = yajl_tree_get (row, new_name_path, yajl_t_string);
      const char *status = get_str (row, "status");

      for (guint s = 0; s < 2; s++)
        {
          const char *name = s == 1 && new_name != NULL ? YAJL_GET_STRING (new_name) : get_str (row, "name");
          g_autofree char *key = g_strconcat (name, "|", dims ? YAJL_GET_STRING (dims) : "", NULL);
          gpointer calls;
          gboolean has = g_hash_table_lookup_extended (names[s], key, NULL, &calls);

          g_assert_cmpint (get_int (row, calls_key[s], NULL), ==, has ? GPOINTER_TO_INT (calls) : 0);
          g_hash_table_remove (names[s], key);
          if (!has)
            g_assert_cmpstr (status, ==, s == 0 ? "added" : "removed");
        }
    }
  /* Nothing left out */
  g_assert_cmpuint (g_hash_table_size (names[0]), ==, 0);
  g_assert_cmpuint (g_hash_table_size (names[1]), ==, 0);
  yajl_tree_free (stats[0]);
  yajl_tree_free (stats[1]);
}

static void
test_diff_matching (void)
{
  g_autofree char *base = fixture ("loader_bound.pt.trace.json.gz");
  g_autofree char *fixed = fixture ("workers_pinned.pt.trace.json.gz");
  yajl_val root, kernels;
  double last = G_MAXDOUBLE;
  Run r;

  run_diff (&r, base, fixed, "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  assert_items_match (root, "kernels", "kernels", base, fixed, "name");
  assert_items_match (root, "operators", "operators", base, fixed, "name");
  /* Largest change first; per step is the total over 4 steps. */
  kernels = get (root, "kernels", NULL);
  for (guint i = 0; i < YAJL_GET_ARRAY (kernels)->len; i++)
    {
      yajl_val k = item (kernels, i);
      double change = YAJL_GET_DOUBLE (get (k, "change_ns", NULL));

      g_assert_cmpfloat (fabs (change), <=, last);
      last = fabs (change);
      g_assert_cmpfloat_with_epsilon (change, (get_int (k, "new_total_ns", NULL) - get_int (k, "base_total_ns", NULL)) / 4.0,
                                      1e-3);
    }
  yajl_tree_free (root);
  run_clear (&r);

  run_diff (&r, base, fixed, "--format", "json", "--group-by", "shape", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  assert_items_match (root, "operators", "operators", base, fixed, "shape");
  yajl_tree_free (root);
  run_clear (&r);
}

/* torch.compile on the H200 (tests/gpu/capture.py, the same model eager
 * and compiled): every Triton kernel of the compiled run is added, with
 * the calls the JSON has, and none is in the eager run. */
static void
test_diff_compile (void)
{
  g_autofree char *base = fixture ("mixer_eager.pt.trace.json.gz");
  g_autofree char *compiled = fixture ("mixer_compiled.pt.trace.json.gz");
  const char *sides[] = { "mixer_eager.pt.trace.json.gz", "mixer_compiled.pt.trace.json.gz" };
  g_autoptr(GHashTable) triton = g_hash_table_new (g_str_hash, g_str_equal);
  yajl_val json[2], root, kernels;
  guint n_triton[2] = { 0, 0 }, found = 0;
  Run r;

  for (guint s = 0; s < 2; s++)
    {
      const char *events_path[] = { "traceEvents", NULL };
      yajl_val events;

      json[s] = parse_gz_fixture (sides[s]);
      events = yajl_tree_get (json[s], events_path, yajl_t_array);
      for (guint i = 0; i < YAJL_GET_ARRAY (events)->len; i++)
        {
          yajl_val e = YAJL_GET_ARRAY (events)->values[i];
          const char *cat_path[] = { "cat", NULL }, *name_path[] = { "name", NULL };
          yajl_val c = yajl_tree_get (e, cat_path, yajl_t_string), n = yajl_tree_get (e, name_path, yajl_t_string);
          const char *name = n != NULL ? n->u.string : NULL;

          if (c == NULL || name == NULL || strcmp (c->u.string, "kernel") != 0 || !g_str_has_prefix (name, "triton_"))
            continue;
          n_triton[s]++;
          if (s == 1)
            g_hash_table_insert (triton, (gpointer)name,
                                 GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (triton, name)) + 1));
        }
    }
  g_assert_cmpuint (n_triton[0], ==, 0);
  g_assert_cmpuint (n_triton[1], ==, 245);
  g_assert_cmpuint (g_hash_table_size (triton), ==, 22);

  run_diff (&r, base, compiled, "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  assert_sides_are_stats (root, base, compiled);
  assert_items_match (root, "kernels", "kernels", base, compiled, "name");
  kernels = get (root, "kernels", NULL);
  for (guint i = 0; i < YAJL_GET_ARRAY (kernels)->len; i++)
    {
      yajl_val k = item (kernels, i);
      const char *name = get_str (k, "name");

      if (!g_str_has_prefix (name, "triton_"))
        continue;
      found++;
      g_assert_cmpstr (get_str (k, "status"), ==, "added");
      g_assert_cmpint (get_int (k, "base_calls", NULL), ==, 0);
      g_assert_cmpint (get_int (k, "new_calls", NULL), ==, GPOINTER_TO_UINT (g_hash_table_lookup (triton, name)));
    }
  g_assert_cmpuint (found, ==, 22);
  /* the fused run's steps are shorter (8.4 ms against 6.1 ms on the H200) */
  g_assert_cmpint (get_int (get (root, "new", NULL), "step_mean_ns", NULL), <,
                   get_int (get (root, "base", NULL), "step_mean_ns", NULL));
  yajl_tree_free (root);
  yajl_tree_free (json[0]);
  yajl_tree_free (json[1]);
  run_clear (&r);
}

/* HTA's trace_diff pair: an A100 rank against a V100 rank. */
static void
test_diff_hta (void)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  g_autofree char *base = g_build_filename (shared ? shared : ".", "corpus", "hta", "trace_diff", "control",
                                            "control.json.gz", NULL);
  g_autofree char *test = g_build_filename (shared ? shared : ".", "corpus", "hta", "trace_diff", "test",
                                            "test.json.gz", NULL);
  yajl_val root;
  Run r;

  if (!g_file_test (base, G_FILE_TEST_EXISTS) || !g_file_test (test, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("HTA's trace_diff pair (KS_SHARED_DIR/corpus/hta/trace_diff) is not available");
      return;
    }
  run_diff (&r, base, test, "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  g_assert_cmpstr (get_str (root, "per"), ==, "step");
  assert_sides_are_stats (root, base, test);
  assert_items_match (root, "kernels", "kernels", base, test, "name");
  assert_items_match (root, "operators", "operators", base, test, "name");
  yajl_tree_free (root);
  run_clear (&r);
}

/* Traces without steps compare over their windows, and say so. */
static void
test_diff_windows (void)
{
  static const char before[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":100,\"dur\":30,"
    "\"args\":{\"device\":0,\"stream\":7}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":200,\"dur\":50,"
    "\"args\":{\"device\":0,\"stream\":7}}]}";
  static const char after[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":100,\"dur\":30,"
    "\"args\":{\"device\":0,\"stream\":7}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":0,\"tid\":7,\"ts\":200,\"dur\":40,"
    "\"args\":{\"device\":0,\"stream\":7}}]}";
  g_autofree char *dir = g_dir_make_tmp ("ks-diff-XXXXXX", NULL);
  g_autofree char *base = g_build_filename (dir, "before.json", NULL);
  g_autofree char *path = g_build_filename (dir, "after.json", NULL);
  g_autofree char *steps = fixture ("loader_bound.pt.trace.json.gz");
  yajl_val root, k;
  Run r;

  g_assert_true (g_file_set_contents (base, before, -1, NULL));
  g_assert_true (g_file_set_contents (path, after, -1, NULL));
  run_diff (&r, base, path, "--format", "json", "--report", "kernels", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  g_assert_cmpstr (get_str (root, "per"), ==, "window");
  g_assert_cmpuint (YAJL_GET_ARRAY (get (root, "kernels", NULL))->len, ==, 2);
  /* k1 lost 50 µs, k2 came with 40 µs: the larger change first */
  k = item (get (root, "kernels", NULL), 0);
  g_assert_cmpstr (get_str (k, "name"), ==, "k1");
  g_assert_cmpstr (get_str (k, "status"), ==, "both");
  g_assert_cmpint (get_int (k, "base_calls", NULL), ==, 2);
  g_assert_cmpint (get_int (k, "new_calls", NULL), ==, 1);
  g_assert_cmpfloat_with_epsilon (YAJL_GET_DOUBLE (get (k, "change_ns", NULL)), -50000, 1e-6);
  g_assert_cmpfloat_with_epsilon (YAJL_GET_DOUBLE (get (k, "ratio", NULL)), 0.375, 1e-6);
  k = item (get (root, "kernels", NULL), 1);
  g_assert_cmpstr (get_str (k, "name"), ==, "k2");
  g_assert_cmpstr (get_str (k, "status"), ==, "added");
  g_assert_cmpint (get_int (k, "new_total_ns", NULL), ==, 40000);
  g_assert_true (YAJL_IS_NULL (get (k, "ratio", NULL)));
  /* Per window: the totals themselves */
  g_assert_cmpfloat_with_epsilon (YAJL_GET_DOUBLE (get (k, "new_per_step_ns", NULL)), 40000, 1e-6);
  yajl_tree_free (root);
  run_clear (&r);

  /* One side with steps, the other without: windows too. */
  run_diff (&r, steps, path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "No steps in one of the traces: times and counts are totals over each window."));
  run_clear (&r);
  g_unlink (base);
  g_unlink (path);
  g_rmdir (dir);
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

/* Two loops without steps (tests/data/README.md) compare per step: their
 * inferred steps, the warm-up of each left out unless asked. */
static void
test_diff_inferred (void)
{
  g_autofree char *slow = fixture ("nosteps_slow.pt.trace.json.gz");
  g_autofree char *fast = fixture ("nosteps_fast.pt.trace.json.gz");
  yajl_val root;
  Run r;

  run_diff (&r, slow, fast, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "nosteps_slow.pt.trace.json.gz (4 steps, 1 warm-up step left out, "
                                   "inferred from the DataLoader's batches)\n"));
  g_assert_nonnull (strstr (r.out, "Times and counts are per step.\n"));
  run_clear (&r);

  run_diff (&r, slow, fast, "--include-warmup", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  g_assert_cmpstr (get_str (root, "per"), ==, "step");
  g_assert_cmpint (YAJL_GET_INTEGER (get (root, "base", "steps")), ==, 5);
  yajl_tree_free (root);
  run_clear (&r);
}

static void
test_diff_errors (void)
{
  g_autofree char *path = fixture ("loader_bound.pt.trace.json.gz");
  Run r;

  run_diff (&r, path, "/nonexistent/new.json", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "/nonexistent/new.json"));
  run_clear (&r);

  run_diff (&r, "/nonexistent/base.json", path, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "/nonexistent/base.json"));
  run_clear (&r);

  run_diff (&r, path, NULL);
  g_assert_cmpint (r.status, ==, 2);
  run_clear (&r);
  run_diff (&r, path, path, path, NULL);
  g_assert_cmpint (r.status, ==, 2);
  run_clear (&r);

  run_diff (&r, path, path, "--report", "gaps", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "gaps"));
  run_clear (&r);
  run_diff (&r, path, path, "--format", "xml", NULL);
  g_assert_cmpint (r.status, ==, 2);
  run_clear (&r);
  run_diff (&r, path, path, "--group-by", "colour", NULL);
  g_assert_cmpint (r.status, ==, 2);
  run_clear (&r);
  run_diff (&r, path, path, "--limit", "-1", NULL);
  g_assert_cmpint (r.status, ==, 2);
  run_clear (&r);

  run_diff (&r, path, path, "--device", "3", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "GPU 3"));
  run_clear (&r);

  /* A trace against itself: nothing changed, nothing added or removed. */
  run_diff (&r, path, path, "--format", "json", "--device", "0", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.out, "\"added\":[{"));
  g_assert_null (strstr (r.out, "\"removed\":[{"));
  g_assert_null (strstr (r.out, "\"status\":\"added\""));
  run_clear (&r);

  run_diff (&r, "--help", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "--group-by"));
  run_clear (&r);
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
  g_test_add_func ("/analysis/cli/hostile-names", test_hostile_names);
  g_test_add_func ("/analysis/cli/hostile-messages", test_hostile_messages);
  g_test_add_func ("/analysis/cli/hostile-progress", test_hostile_progress);
  g_test_add_func ("/analysis/cli/progress-path", test_progress_path);
  g_test_add_func ("/analysis/cli/report-exact", test_report_exact);
  g_test_add_func ("/analysis/cli/operators-thread-time", test_operators_thread_time);
  g_test_add_func ("/analysis/cli/report-samples", test_report_samples);
  g_test_add_func ("/analysis/cli/impossible-memory", test_impossible_memory);

  g_test_add_func ("/analysis/cli/invalid-utf8", test_invalid_utf8);
  g_test_add_func ("/analysis/cli/diff-loader", test_diff_loader);
  g_test_add_func ("/analysis/cli/diff-matching", test_diff_matching);
  g_test_add_func ("/analysis/cli/diff-compile", test_diff_compile);
  g_test_add_func ("/analysis/cli/diff-hta", test_diff_hta);
  g_test_add_func ("/analysis/cli/diff-windows", test_diff_windows);
  g_test_add_func ("/analysis/cli/diff-inferred", test_diff_inferred);
  g_test_add_func ("/analysis/cli/diff-errors", test_diff_errors);
  g_test_add_func ("/analysis/cli/profiler-ranges", test_profiler_ranges);

  return g_test_run ();
}
