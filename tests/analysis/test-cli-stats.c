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

#include <string.h>
#include <sys/wait.h>
#include <yajl/yajl_tree.h>

#include <glib.h>
#include <glib/gstdio.h>
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

static void
run_cli (Run        *r,
         const char *first,
         ...)
{
  const char *root = g_getenv ("KS_BUILD_ROOT");
  g_autofree char *cli = g_build_filename (root ? root : ".", "src", "cli", "kinescope-cli", NULL);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) envp = NULL;
  const char *arg;
  va_list ap;
  int wait_status = 0;

  g_ptr_array_add (argv, cli);
  g_ptr_array_add (argv, (char *)"stats");
  va_start (ap, first);
  for (arg = first; arg != NULL; arg = va_arg (ap, const char *))
    g_ptr_array_add (argv, (char *)arg);
  va_end (ap);
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

  run_cli (&r, path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "window = steps"));
  g_assert_nonnull (strstr (r.out, "\nstep 19 "));
  g_assert_null (strstr (r.out, "\nstep 20 "));
  g_assert_nonnull (strstr (r.out, "… 40 more (use --limit)\n"));
  g_assert_nonnull (strstr (r.out, "\nmean of 60 "));
  g_assert_nonnull (strstr (r.out, "Est. SM efficiency:      2.7 %"));
  g_assert_nonnull (strstr (r.out, "Est. occupancy:          7.5 %"));
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
  g_assert_nonnull (strstr (r.out, "\nmean of 60 "));
  run_clear (&r);

  run_cli (&r, path, "--report", "steps", "--format", "csv", NULL);
  g_assert_cmpint (r.status, ==, 0);
  {
    g_auto(GStrv) lines = g_strsplit (r.out, "\n", -1);

    g_assert_cmpuint (g_strv_length (lines), ==, 1 + 60 + 1);
    g_assert_cmpstr (lines[0], ==, "name,pid,start_ns,dur_ns,kernel_ns,memcpy_ns,memset_ns,runtime_ns,"
                                   "dataloader_ns,cpu_exec_ns,other_ns");
    /* step 10: 2028550 ns, 268700 ns of kernels (python3 over the file) */
    g_assert_true (g_str_has_prefix (lines[11], "step 10,668,"));
    g_assert_nonnull (strstr (lines[11], ",2028550,268700,"));
  }
  run_clear (&r);

  run_cli (&r, path, "--report", "steps", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  {
    yajl_val root = parse (r.out);
    const char *key[] = { "steps", NULL };
    yajl_val steps = yajl_tree_get (root, key, yajl_t_array);

    g_assert_nonnull (steps);
    g_assert_cmpuint (YAJL_GET_ARRAY (steps)->len, ==, 60);
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
  g_assert_nonnull (strstr (r.out, "32.863 ms"));
  g_assert_nonnull (strstr (r.out, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"));
  run_clear (&r);

  run_cli (&r, path, "--report", "operators", "--format", "csv", "--group-by", "shape", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "name,input_dims,calls,host_total_ns"));
  g_assert_nonnull (strstr (r.out, "aten::cudnn_convolution,"));
  run_clear (&r);

  run_cli (&r, path, "--report", "kernels", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  {
    yajl_val root = parse (r.out);

    g_assert_cmpint (get_int (root, "launch_latency", "count"), ==, 176);
    g_assert_cmpint (get_int (root, "launch_latency", "p50_ns"), ==, 1222);
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

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/analysis/cli/summary-json", test_summary_json);
  g_test_add_func ("/analysis/cli/gap-threshold", test_gap_threshold);
  g_test_add_func ("/analysis/cli/reports", test_reports);
  g_test_add_func ("/analysis/cli/recording-steps", test_recording_steps);
  g_test_add_func ("/analysis/cli/errors", test_errors);
  g_test_add_func ("/analysis/cli/invalid-utf8", test_invalid_utf8);

  return g_test_run ();
}
