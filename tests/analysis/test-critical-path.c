/* test-critical-path.c: the critical path of steps, and what-if
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>
#include <sys/wait.h>

#include <glib/gstdio.h>

#include "ks-analysis.h"
#include "ks-critical-path.h"
#include "ks-format.h"
#include "ks-json-writer.h"
#include "ks-trace-loader.h"

/* Kineto traces written here, times in µs from BASE: each has one step
 * whose path is worked out by hand in the comments. */
#define BASE 1000000

typedef struct
{
  char        kind;       /* 'S' step, 'A' user annotation, 'O' cpu_op, 'R' cuda_runtime,
                           * 'K' kernel, 'M' memcpy */
  const char *name;
  gint64      ts;         /* µs */
  gint64      dur;
  int         corr;       /* correlation id, 0 none */
  int         stream;     /* GPU work */
} Ev;

static char *
write_trace (const char *dir,
             const char *base,
             const Ev   *evs,
             guint       n)
{
  g_autoptr(GString) s = g_string_new ("{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"Test GPU\"}],\n"
                                       " \"traceEvents\": [\n");
  g_autoptr(GError) error = NULL;
  char *path = g_build_filename (dir, base, NULL);

  for (guint i = 0; i < n; i++)
    {
      const Ev *e = &evs[i];
      const char *cat = NULL;
      gboolean gpu = e->kind == 'K' || e->kind == 'M';

      switch (e->kind)
        {
        case 'S': case 'A': cat = "user_annotation"; break;
        case 'O':           cat = "cpu_op"; break;
        case 'R':           cat = "cuda_runtime"; break;
        case 'K':           cat = "kernel"; break;
        case 'M':           cat = "gpu_memcpy"; break;
        default:            g_assert_not_reached ();
        }
      g_string_append_printf (s, "  {\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"%s\", \"pid\": %d, \"tid\": %d, "
                                 "\"ts\": %" G_GINT64_FORMAT ", \"dur\": %" G_GINT64_FORMAT ", \"args\": {",
                              cat, e->name, gpu ? 0 : 100, gpu ? e->stream : 100, BASE + e->ts, e->dur);
      if (gpu)
        g_string_append_printf (s, "\"device\": 0, \"stream\": %d, \"correlation\": %d", e->stream, e->corr);
      else if (e->corr != 0)
        g_string_append_printf (s, "\"correlation\": %d", e->corr);
      g_string_append_printf (s, "}}%s\n", i + 1 < n ? "," : "");
    }
  g_string_append (s, "]}\n");
  g_file_set_contents (path, s->str, -1, &error);
  g_assert_no_error (error);
  return path;
}

static KsTrace *
load (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KsTrace *trace = ks_trace_load (file, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

static KsAnalysis *
analyse (KsTrace *trace)
{
  KsAnalysisOptions options;
  g_autoptr(GError) error = NULL;
  KsAnalysis *analysis;

  /* Every step: these traces have too few for the warm-up to mean much. */
  ks_analysis_options_init (&options);
  options.include_warmup = TRUE;
  analysis = ks_analysis_compute (trace, &options, NULL, NULL, &error);
  g_assert_no_error (error);
  return analysis;
}

/* The critical path of the trace at @path under @rules (NULL: none), with
 * the trace and its analysis it was worked out from. */
static KsCriticalPath *
path_compute (const char  *path,
              const char  *rules,
              KsTrace    **trace_out,
              KsAnalysis **analysis_out)
{
  g_autoptr(KsTrace) trace = load (path);
  g_autoptr(KsAnalysis) analysis = analyse (trace);
  g_autoptr(KsWhatIf) what_if = NULL;
  g_autoptr(GError) error = NULL;
  KsCriticalPath *cp;

  if (rules != NULL)
    {
      what_if = ks_what_if_parse (rules, &error);
      g_assert_no_error (error);
    }
  cp = ks_critical_path_compute (trace, analysis, NULL, what_if, NULL, &error);
  g_assert_no_error (error);
  *trace_out = g_steal_pointer (&trace);
  if (analysis_out != NULL)
    *analysis_out = g_steal_pointer (&analysis);
  return cp;
}

typedef struct
{
  char           *dir;
  char           *path;
  KsTrace        *trace;
  KsAnalysis     *analysis;
  KsCriticalPath *cp;
} Case;

static void
case_open (Case       *c,
           const Ev   *evs,
           guint       n,
           const char *rules)
{
  g_autoptr(GError) error = NULL;

  c->dir = g_dir_make_tmp ("ks-critical-path-XXXXXX", &error);
  g_assert_no_error (error);
  c->path = write_trace (c->dir, "case.pt.trace.json", evs, n);
  c->cp = path_compute (c->path, rules, &c->trace, &c->analysis);
}

static void
case_close (Case *c)
{
  g_clear_object (&c->cp);
  g_clear_object (&c->analysis);
  g_clear_object (&c->trace);
  g_unlink (c->path);
  g_rmdir (c->dir);
  g_free (c->path);
  g_free (c->dir);
}

static const KsPathStep *
only_step (Case *c)
{
  guint n;
  const KsPathStep *steps = ks_critical_path_get_steps (c->cp, &n);

  g_assert_cmpuint (n, ==, 1);
  return &steps[0];
}

/* @expected µs per class, in KsPathClass order. */
static void
assert_classes (const gint64 *by_class,
                const gint64  expected[KS_N_PATH_CLASSES])
{
  for (guint k = 0; k < KS_N_PATH_CLASSES; k++)
    {
      if (by_class[k] != expected[k] * 1000)
        g_test_message ("class %s: %" G_GINT64_FORMAT " ns, expected %" G_GINT64_FORMAT " µs",
                        ks_path_class_to_string (k), by_class[k], expected[k]);
      g_assert_cmpint (by_class[k], ==, expected[k] * 1000);
    }
}

/* Opens a case whose one step's path takes @path_us µs, split in classes
 * as @observed. */
static const KsPathStep *
case_open_step (Case         *c,
                const Ev     *evs,
                guint         n,
                const char   *rules,
                gint64        path_us,
                const gint64  observed[KS_N_PATH_CLASSES])
{
  const KsPathStep *step;

  case_open (c, evs, n, rules);
  step = only_step (c);
  g_assert_cmpint (step->path_ns, ==, path_us * 1000);
  assert_classes (step->by_class, observed);
  return step;
}

static const KsPathItem *
find_item (const KsPathStep *step,
           KsTrace          *trace,
           const char       *name,
           KsPathClass       klass)
{
  for (guint i = 0; i < step->n_items; i++)
    if (step->items[i].klass == klass && strcmp (ks_trace_string (trace, step->items[i].name), name) == 0)
      return &step->items[i];
  return NULL;
}

/* A CPU-bound chain: two operators, each launching a short kernel. The
 * path is the thread from start to end: aten::a 300 + 50 µs of its own,
 * aten::b 400 + 50, two launches of 50, 100 µs of the step's own time.
 * Halving aten::b (and its launch) moves the step's end to the second
 * kernel: 300 + 50 + 50 + 200 of CPU, its launch at 600, the kernel 60 µs
 * after (as observed) for 100 µs: 760. */
static const Ev cpu_chain[] = {
  { 'S', "ProfilerStep#1",   0, 1000, 0, 0 },
  { 'O', "aten::a",          0,  400, 0, 0 },
  { 'R', "cudaLaunchKernel", 300, 50, 1, 0 },
  { 'K', "k1",               360, 100, 1, 7 },
  { 'O', "aten::b",          400, 500, 0, 0 },
  { 'R', "cudaLaunchKernel", 800, 50, 2, 0 },
  { 'K', "k2",               860, 100, 2, 7 },
};

static void
test_cpu_chain (void)
{
  static const gint64 observed[KS_N_PATH_CLASSES] = { 800, 100, 0, 100, 0, 0, 0, 0 };
  static const gint64 predicted[KS_N_PATH_CLASSES] = { 550, 0, 0, 110, 100, 0, 0, 0 };
  Case c = { 0 };
  const KsPathStep *step;

  step = case_open_step (&c, cpu_chain, G_N_ELEMENTS (cpu_chain), "op:aten::b=0.5", 1000, observed);
  g_assert_cmpstr (ks_trace_string (c.trace, step->name), ==, "ProfilerStep#1");
  g_assert_cmpint (step->dur_ns, ==, 1000000);
  /* Ranked by time on the path: aten::b's own 450 µs first. */
  g_assert_cmpuint (step->n_items, >=, 3);
  g_assert_cmpstr (ks_trace_string (c.trace, step->items[0].name), ==, "aten::b");
  g_assert_cmpint (step->items[0].ns, ==, 450000);
  g_assert_cmpstr (ks_trace_string (c.trace, step->items[1].name), ==, "aten::a");
  g_assert_cmpint (step->items[1].ns, ==, 350000);
  g_assert_cmpint (find_item (step, c.trace, "cudaLaunchKernel", KS_PATH_LAUNCH)->ns, ==, 100000);

  g_assert_cmpint (step->predicted_ns, ==, 760000);
  assert_classes (step->predicted_by_class, predicted);
  case_close (&c);
}

/* GPU-bound: two 400 µs kernels launched at once, then a
 * cudaDeviceSynchronize. The path: 10 µs before the first launch, the
 * first kernel 15 µs after its launch call started, both kernels, the
 * sync 5 µs after the second ended, 20 µs to the step's end. Halving k1
 * moves everything after it 200 µs earlier. */
static const Ev gpu_chain[] = {
  { 'S', "ProfilerStep#1",        0, 850, 0, 0 },
  { 'R', "cudaLaunchKernel",      10, 10, 1, 0 },
  { 'K', "k1",                    25, 400, 1, 7 },
  { 'R', "cudaLaunchKernel",      20, 10, 2, 0 },
  { 'K', "k2",                   425, 400, 2, 7 },
  { 'R', "cudaDeviceSynchronize", 40, 790, 0, 0 },
};

static void
test_gpu_chain_sync (void)
{
  static const gint64 observed[KS_N_PATH_CLASSES] = { 0, 30, 0, 15, 800, 0, 5, 0 };
  static const gint64 predicted[KS_N_PATH_CLASSES] = { 0, 30, 0, 15, 600, 0, 5, 0 };
  Case c = { 0 };
  const KsPathStep *step;

  step = case_open_step (&c, gpu_chain, G_N_ELEMENTS (gpu_chain), "kernel:k1=0.5", 850, observed);
  g_assert_cmpint (step->dur_ns, ==, 850000);
  g_assert_cmpint (find_item (step, c.trace, "k1", KS_PATH_GPU)->ns, ==, 400000);
  g_assert_cmpint (find_item (step, c.trace, "cudaDeviceSynchronize", KS_PATH_SYNC)->ns, ==, 5000);
  g_assert_cmpint (step->predicted_ns, ==, 650000);
  assert_classes (step->predicted_by_class, predicted);
  /* The overlay's stretches in time order: k1 then k2 on the stream. */
  g_assert_cmpuint (step->n_segments, >=, 2);
  for (guint i = 1; i < step->n_segments; i++)
    g_assert_cmpint (step->segments[i - 1].start, <=, step->segments[i].start);
  case_close (&c);
}

/* Two streams joined by an event: k2 on stream 8 waits (cudaStreamWaitEvent)
 * for the event recorded after k1 on stream 7, so it starts when k1 ends
 * although it was launched at 20 µs; a sync waits for k2. Path: 10 µs,
 * k1 10 µs after its launch, k1 500, k2 100, the sync's 5, 15 to the end.
 * Without the event's edge k2 would wait 500 µs for its "launch". */
static const Ev event_join[] = {
  { 'S', "ProfilerStep#1",        0, 640, 0, 0 },
  { 'R', "cudaLaunchKernel",      10,  5, 1, 0 },
  { 'K', "k1",                    20, 500, 1, 7 },
  { 'R', "cudaEventRecord",       16,  2, 2, 0 },
  { 'R', "cudaStreamWaitEvent",   18,  2, 3, 0 },
  { 'R', "cudaLaunchKernel",      20,  5, 4, 0 },
  { 'K', "k2",                   520, 100, 4, 8 },
  { 'R', "cudaDeviceSynchronize", 30, 595, 0, 0 },
};

static void
test_event_join (void)
{
  static const gint64 observed[KS_N_PATH_CLASSES] = { 0, 25, 0, 10, 600, 0, 5, 0 };
  Case c = { 0 };
  const KsPathStep *step;

  step = case_open_step (&c, event_join, G_N_ELEMENTS (event_join), NULL, 640, observed);
  g_assert_cmpint (find_item (step, c.trace, "k1", KS_PATH_GPU)->ns, ==, 500000);
  g_assert_cmpint (find_item (step, c.trace, "k2", KS_PATH_GPU)->ns, ==, 100000);
  /* Without rules the prediction is the path. */
  g_assert_cmpint (step->predicted_ns, ==, step->path_ns);
  case_close (&c);
}

/* A graph launch: one cudaGraphLaunch (correlation 5) runs k1 on stream 7
 * and the long k2 on stream 8; a cudaDeviceSynchronize waits for k2. The
 * path goes from the launch call (started at 10 µs) to k2, 30 µs later:
 * launch overhead, not GPU time. */
static const Ev graph_launch[] = {
  { 'S', "ProfilerStep#1",         0, 320, 0, 0 },
  { 'R', "cudaGraphLaunch",       10,  10, 5, 0 },
  { 'K', "k1",                    30, 100, 5, 7 },
  { 'K', "k2",                    40, 260, 5, 8 },
  { 'R', "cudaDeviceSynchronize", 25, 280, 0, 0 },
};

static void
test_graph_launch (void)
{
  static const gint64 observed[KS_N_PATH_CLASSES] = { 0, 25, 0, 30, 260, 0, 5, 0 };
  Case c = { 0 };
  const KsPathStep *step;

  step = case_open_step (&c, graph_launch, G_N_ELEMENTS (graph_launch), "launch=0", 320, observed);
  g_assert_cmpint (find_item (step, c.trace, "cudaGraphLaunch", KS_PATH_LAUNCH)->ns, ==, 30000);
  /* Free launches: k2 starts with the call at 10 µs (the launch call's
   * own 10 µs are no longer on the thread), ends at 270, the sync 5 µs
   * later, and 15 µs more to the end: 290. */
  g_assert_cmpint (step->predicted_ns, ==, 290000);
  case_close (&c);
}

/* A DataLoader wait: 700 µs in enumerate(DataLoader), then an operator
 * with a launch. With the DataLoader free the step takes 300 µs: the
 * operator's 240, its launch's 10 and the step's 50; the kernel, 5 µs
 * after the launch call started at 200, ends at 290. */
static const Ev dataloader_wait[] = {
  { 'S', "ProfilerStep#1", 0, 1000, 0, 0 },
  { 'A', "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 0, 700, 0, 0 },
  { 'O', "aten::linear",    700, 250, 0, 0 },
  { 'R', "cudaLaunchKernel", 900, 10, 1, 0 },
  { 'K', "gemm",             905, 85, 1, 7 },
};

static void
test_dataloader_wait (void)
{
  static const gint64 observed[KS_N_PATH_CLASSES] = { 240, 50, 700, 10, 0, 0, 0, 0 };
  static const gint64 predicted[KS_N_PATH_CLASSES] = { 240, 50, 0, 10, 0, 0, 0, 0 };
  Case c = { 0 };
  const KsPathStep *step;

  step = case_open_step (&c, dataloader_wait, G_N_ELEMENTS (dataloader_wait), "dataloader=0", 1000, observed);
  g_assert_cmpint (step->items[0].klass, ==, KS_PATH_DATALOADER);
  g_assert_cmpint (step->items[0].ns, ==, 700000);
  g_assert_cmpint (step->predicted_ns, ==, 300000);
  assert_classes (step->predicted_by_class, predicted);
  case_close (&c);
}

/* Programmatic dependent launch: k2 starts at 200 µs, before k1 ends at
 * 220. The path follows k1 from its start to k2's (180 µs), then k2;
 * without that edge k2's 185 µs after its launch call would count as
 * launch overhead. */
static const Ev overlapping[] = {
  { 'S', "ProfilerStep#1",         0, 420, 0, 0 },
  { 'R', "cudaLaunchKernelExC",   10,   5, 1, 0 },
  { 'K', "k1",                    20, 200, 1, 7 },
  { 'R', "cudaLaunchKernelExC",   15,   3, 2, 0 },
  { 'K', "k2",                   200, 200, 2, 7 },
  { 'R', "cudaDeviceSynchronize", 30, 375, 0, 0 },
};

static void
test_overlapping_kernels (void)
{
  static const gint64 observed[KS_N_PATH_CLASSES] = { 0, 25, 0, 10, 380, 0, 5, 0 };
  Case c = { 0 };
  const KsPathStep *step;

  step = case_open_step (&c, overlapping, G_N_ELEMENTS (overlapping), NULL, 420, observed);
  g_assert_cmpint (find_item (step, c.trace, "k1", KS_PATH_GPU)->ns, ==, 180000);
  g_assert_cmpint (find_item (step, c.trace, "k2", KS_PATH_GPU)->ns, ==, 200000);
  case_close (&c);
}

/* k2 on stream 8 starts the moment k1 on stream 7 ends, long after its
 * launch, with no event in the trace (the legacy default stream): the
 * path goes from k1 to k2, not through a 285 µs "launch". */
static const Ev implicit_wait[] = {
  { 'S', "ProfilerStep#1",         0, 370, 0, 0 },
  { 'R', "cudaLaunchKernel",      10,   5, 1, 0 },
  { 'K', "k1",                    20, 280, 1, 7 },
  { 'R', "cudaLaunchKernel",      15,   3, 2, 0 },
  { 'K', "k2",                   300,  50, 2, 8 },
  { 'R', "cudaDeviceSynchronize", 30, 325, 0, 0 },
};

static void
test_implicit_stream_wait (void)
{
  static const gint64 observed[KS_N_PATH_CLASSES] = { 0, 25, 0, 10, 330, 0, 5, 0 };
  Case c = { 0 };

  case_open_step (&c, implicit_wait, G_N_ELEMENTS (implicit_wait), NULL, 370, observed);
  case_close (&c);
}

/* The CPU chain without its ProfilerStep: one path for the whole trace,
 * 0 to 960 µs, ending with k2 (launched at 800, started at 860), its
 * thread the only one with slices. */
static void
test_whole_trace (void)
{
  static const gint64 observed[KS_N_PATH_CLASSES] = { 750, 0, 0, 110, 100, 0, 0, 0 };
  Case c = { 0 };
  const KsPathStep *step;

  step = case_open_step (&c, cpu_chain + 1, G_N_ELEMENTS (cpu_chain) - 1, NULL, 960, observed);
  g_assert_cmpuint (step->name, ==, 0);
  g_assert_cmpint (step->dur_ns, ==, 960000);
  case_close (&c);
}

/* Warm-up steps are left out, unless every step is warm-up. */
static void
test_warmup_steps (void)
{
  Case c = { 0 };
  const KsStep *steps;
  KsStep marked[2];
  guint n;

  case_open (&c, cpu_chain, G_N_ELEMENTS (cpu_chain), NULL);
  steps = ks_analysis_get_steps (c.analysis, &n);
  g_assert_cmpuint (n, ==, 1);
  marked[0] = marked[1] = steps[0];
  marked[0].warmup = TRUE;
  for (guint k = 1; k <= 2; k++)
    {
      g_autoptr(KsCriticalPath) cp = _ks_critical_path_compute_steps (c.trace, marked, k, FALSE, NULL, NULL, NULL, NULL);
      guint n_paths;
      const KsPathStep *paths = ks_critical_path_get_steps (cp, &n_paths);

      /* One step, warm-up: it all the same; two: the other only. */
      g_assert_cmpuint (n_paths, ==, 1);
      g_assert_cmpuint (paths[0].step, ==, k - 1);
      g_assert_cmpint (paths[0].path_ns, ==, 1000000);
    }
  case_close (&c);
}

static void
test_what_if_rules (void)
{
  static const char * const bad[] = {
    "", "gpu=0.5", "copy", "copy=-1", "copy=x", "op:=0.5", "kernel:gemm", "launch=0.5,foo=1", NULL
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(KsWhatIf) w = NULL;
  const KsWhatIfRule *rules;
  guint n;

  /* A comma inside a template is part of the glob. */
  w = ks_what_if_parse ("kernel:*elementwise_kernel<4, at::*=0.5, copy=0,op:aten::mm=2,launch=0.25,dataloader=0", &error);
  g_assert_no_error (error);
  rules = ks_what_if_get_rules (w, &n);
  g_assert_cmpuint (n, ==, 5);
  g_assert_cmpint (rules[0].target, ==, KS_WHAT_IF_KERNEL);
  g_assert_cmpstr (rules[0].glob, ==, "*elementwise_kernel<4, at::*");
  g_assert_cmpfloat (rules[0].factor, ==, 0.5);
  g_assert_cmpint (rules[1].target, ==, KS_WHAT_IF_COPY);
  g_assert_cmpfloat (rules[1].factor, ==, 0.0);
  g_assert_cmpint (rules[2].target, ==, KS_WHAT_IF_OP);
  g_assert_cmpstr (rules[2].glob, ==, "aten::mm");
  g_assert_cmpfloat (rules[2].factor, ==, 2.0);
  g_assert_cmpint (rules[3].target, ==, KS_WHAT_IF_LAUNCH);
  g_assert_cmpint (rules[4].target, ==, KS_WHAT_IF_DATALOADER);

  for (guint i = 0; bad[i] != NULL; i++)
    {
      g_autoptr(KsWhatIf) none = ks_what_if_parse (bad[i], &error);

      g_assert_null (none);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
      g_clear_error (&error);
    }
}

/* kinescope-cli stats --report critical-path on the DataLoader case: the
 * JSON fields, --step and the exit statuses. */
static char *
run_cli (const char * const *args,
         int                *status)
{
  const char *root = g_getenv ("KS_BUILD_ROOT");
  g_autofree char *cli = g_build_filename (root ? root : ".", "src", "cli", "kinescope-cli", NULL);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) envp = g_environ_setenv (g_get_environ (), "LC_ALL", "C", TRUE);
  g_autofree char *err = NULL;
  char *out = NULL;
  int wait_status = 0;

  g_ptr_array_add (argv, cli);
  g_ptr_array_add (argv, (char *)"stats");
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *)args[i]);
  g_ptr_array_add (argv, NULL);
  g_spawn_sync (NULL, (char **)argv->pdata, envp, G_SPAWN_DEFAULT, NULL, NULL, &out, &err, &wait_status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  *status = WEXITSTATUS (wait_status);
  if (*status != 0)
    g_test_message ("stderr: %s", err);
  return out;
}

static void
test_cli (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ks-critical-path-XXXXXX", &error);
  g_autofree char *path = write_trace (dir, "loader.pt.trace.json", dataloader_wait, G_N_ELEMENTS (dataloader_wait));
  g_autofree char *out = NULL;
  g_autofree char *bad = NULL;
  g_autofree char *missing = NULL;
  const char *args[] = { "--report", "critical-path", "--format", "json", "--step", "ProfilerStep#1",
                         "--what-if", "dataloader=0", path, NULL };
  const char *bad_args[] = { "--report", "critical-path", "--what-if", "gpu=0", path, NULL };
  const char *missing_args[] = { "--report", "critical-path", "--step", "ProfilerStep#9", path, NULL };
  const char *step_keys[] = { "name", "dur_ns", "path_ns", "by_class", "top", NULL };
  const char *class_keys[] = { "cpu", "python", "dataloader", "launch", "gpu", "copy", "sync", "comm", NULL };
  const char *path_steps[] = { "steps", NULL };
  const char *what_if_rules[] = { "what_if", "rules", NULL };
  const char *what_if_steps[] = { "what_if", "steps", NULL };
  yajl_val root, steps, step, by_class, top, w_steps, w_step;
  int status;

  g_assert_no_error (error);
  out = run_cli (args, &status);
  g_assert_cmpint (status, ==, 0);
  root = ks_json_parse (out, &error);
  g_assert_no_error (error);

  steps = yajl_tree_get (root, path_steps, yajl_t_array);
  g_assert_nonnull (steps);
  g_assert_cmpuint (YAJL_GET_ARRAY (steps)->len, ==, 1);
  step = YAJL_GET_ARRAY (steps)->values[0];
  g_assert_cmpuint (YAJL_GET_OBJECT (step)->len, ==, 5);
  for (guint i = 0; step_keys[i] != NULL; i++)
    g_assert_cmpstr (YAJL_GET_OBJECT (step)->keys[i], ==, step_keys[i]);
  g_assert_cmpstr (YAJL_GET_STRING (YAJL_GET_OBJECT (step)->values[0]), ==, "ProfilerStep#1");
  g_assert_cmpint (YAJL_GET_INTEGER (YAJL_GET_OBJECT (step)->values[1]), ==, 1000000);
  g_assert_cmpint (YAJL_GET_INTEGER (YAJL_GET_OBJECT (step)->values[2]), ==, 1000000);
  by_class = YAJL_GET_OBJECT (step)->values[3];
  for (guint i = 0; class_keys[i] != NULL; i++)
    g_assert_cmpstr (YAJL_GET_OBJECT (by_class)->keys[i], ==, class_keys[i]);
  g_assert_cmpint (YAJL_GET_INTEGER (YAJL_GET_OBJECT (by_class)->values[2]), ==, 700000);
  top = YAJL_GET_OBJECT (step)->values[4];
  g_assert_cmpstr (YAJL_GET_OBJECT (YAJL_GET_ARRAY (top)->values[0])->keys[0], ==, "name");
  g_assert_cmpstr (YAJL_GET_OBJECT (YAJL_GET_ARRAY (top)->values[0])->keys[1], ==, "class");
  g_assert_cmpstr (YAJL_GET_STRING (YAJL_GET_OBJECT (YAJL_GET_ARRAY (top)->values[0])->values[1]), ==, "dataloader");
  g_assert_cmpstr (YAJL_GET_OBJECT (YAJL_GET_ARRAY (top)->values[0])->keys[2], ==, "ns");
  g_assert_cmpint (YAJL_GET_INTEGER (YAJL_GET_OBJECT (YAJL_GET_ARRAY (top)->values[0])->values[2]), ==, 700000);

  g_assert_cmpstr (YAJL_GET_STRING (yajl_tree_get (root, what_if_rules, yajl_t_string)), ==, "dataloader=0");
  w_steps = yajl_tree_get (root, what_if_steps, yajl_t_array);
  g_assert_nonnull (w_steps);
  w_step = YAJL_GET_ARRAY (w_steps)->values[0];
  g_assert_cmpuint (YAJL_GET_OBJECT (w_step)->len, ==, 4);
  g_assert_cmpstr (YAJL_GET_OBJECT (w_step)->keys[2], ==, "predicted_ns");
  g_assert_cmpint (YAJL_GET_INTEGER (YAJL_GET_OBJECT (w_step)->values[2]), ==, 300000);
  g_assert_cmpstr (YAJL_GET_OBJECT (w_step)->keys[3], ==, "by_class");
  yajl_tree_free (root);

  bad = run_cli (bad_args, &status);
  g_assert_cmpint (status, ==, 2);
  missing = run_cli (missing_args, &status);
  g_assert_cmpint (status, ==, 1);
  {
    const char *other_args[] = { "--report", "summary", "--what-if", "dataloader=0", path, NULL };
    g_autofree char *other = run_cli (other_args, &status);

    /* The rules go with the critical path only. */
    g_assert_cmpint (status, ==, 2);
  }

  g_unlink (path);
  g_rmdir (dir);
}

static char *
fixture_path (const char *name)
{
  const char *dir = g_getenv ("KS_FIXTURES_DIR");

  return g_build_filename (dir ? dir : ".", name, NULL);
}

static KsCriticalPath *
fixture_path_compute (const char  *name,
                      const char  *rules,
                      KsTrace    **trace_out)
{
  g_autofree char *path = fixture_path (name);

  return path_compute (path, rules, trace_out, NULL);
}

/* Every step's path is as long as the step, and its classes add up. */
static void
assert_consistent (KsCriticalPath *cp)
{
  guint n;
  const KsPathStep *steps = ks_critical_path_get_steps (cp, &n);

  for (guint i = 0; i < n; i++)
    {
      gint64 sum = 0, psum = 0;

      g_assert_cmpint (steps[i].path_ns, ==, steps[i].dur_ns);
      for (guint k = 0; k < KS_N_PATH_CLASSES; k++)
        {
          g_assert_cmpint (steps[i].by_class[k], >=, 0);
          sum += steps[i].by_class[k];
          psum += steps[i].predicted_by_class[k];
        }
      g_assert_cmpint (sum, ==, steps[i].path_ns);
      g_assert_cmpint (psum, ==, steps[i].predicted_ns);
    }
}

/* The steps of @cp, @n_expected of them, each consistent. */
static const KsPathStep *
consistent_steps (KsCriticalPath *cp,
                  guint           n_expected)
{
  guint n;
  const KsPathStep *steps = ks_critical_path_get_steps (cp, &n);

  assert_consistent (cp);
  g_assert_cmpuint (n, ==, n_expected);
  return steps;
}

/* The lines of critical-path-reference.py on @file, split in fields;
 * "step_2" names "step 2". */
static GPtrArray *
reference_with (const char *option,
                const char *file)
{
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "analysis", "critical-path-reference.py", NULL);
  const char *argv[] = { "python3", script, option != NULL ? option : file, option != NULL ? file : NULL, NULL };
  g_autofree char *out = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GError) error = NULL;
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify)g_strfreev);
  int wait_status = 0;

  g_spawn_sync (NULL, (char **)argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, NULL, &wait_status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status) && WEXITSTATUS (wait_status) == 0);
  lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL && *lines[i] != '\0'; i++)
    {
      char **f = g_strsplit (lines[i], " ", -1);

      g_strdelimit (f[0], "_", ' ');
      g_ptr_array_add (rows, f);
    }
  return rows;
}

static GPtrArray *
reference (const char *file)
{
  return reference_with (NULL, file);
}

/* The step of @cp named @name, which must be there. */
static const KsPathStep *
step_named (KsCriticalPath *cp,
            KsTrace        *trace,
            const char     *name)
{
  guint n;
  const KsPathStep *steps = ks_critical_path_get_steps (cp, &n);

  for (guint i = 0; i < n; i++)
    if (strcmp (ks_trace_string (trace, steps[i].name), name) == 0)
      return &steps[i];
  g_error ("no step named %s", name);
}

/* The critical path of fixture @name under @rules, @n_steps consistent
 * steps, and the reference's line for each (critical-path-reference.py on
 * the same file). */
static GPtrArray *
fixture_reference (const char      *name,
                   const char      *rules,
                   guint            n_steps,
                   KsTrace        **trace,
                   KsCriticalPath **cp)
{
  g_autofree char *file = fixture_path (name);
  GPtrArray *ref = reference (file);

  *cp = fixture_path_compute (name, rules, trace);
  consistent_steps (*cp, n_steps);
  g_assert_cmpuint (ref->len, ==, n_steps);
  return ref;
}

/* The DataLoader-bound recording (a 2-worker DataLoader doing 3,000
 * units of work a batch, trimmed to steps 2-8): every step's DataLoader
 * time on the path is that of its enumerate(DataLoader) ranges in the
 * file; the steps that wait for a batch are more than 85 % DataLoader. */
static void
test_loader_recording (void)
{
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsCriticalPath) cp = NULL;
  g_autoptr(GPtrArray) ref = fixture_reference ("loader_mlp_7steps.kscope", "dataloader=0", 7, &trace, &cp);
  guint waiting = 0;

  for (guint i = 0; i < ref->len; i++)
    {
      char **f = g_ptr_array_index (ref, i);
      const KsPathStep *step = step_named (cp, trace, f[0]);
      gint64 dl = g_ascii_strtoll (f[1], NULL, 10);

      g_assert_cmpint (step->by_class[KS_PATH_DATALOADER], ==, dl);
      g_assert_cmpint (step->predicted_by_class[KS_PATH_DATALOADER], ==, 0);
      g_assert_cmpint (step->predicted_ns, >=, step->dur_ns - dl);
      if (dl > step->dur_ns / 2)
        {
          g_assert_cmpint (dl, >, step->dur_ns * 85 / 100);
          g_assert_cmpint (step->predicted_ns, <, step->dur_ns / 5);
          waiting++;
        }
    }
  g_assert_cmpuint (waiting, ==, 4);
}

/* The GPT recording (bf16 autocast, trimmed to steps 2 and 3) is
 * GPU-bound: the stream never runs dry within a step, so all its work is
 * on the path; each step runs from its start (or the previous step's
 * GPU end) to the end of the work it launched, both from the file. */
static void
test_gpu_bound_recording (void)
{
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsCriticalPath) cp = NULL;
  g_autoptr(GPtrArray) ref = fixture_reference ("gpt_bf16_2steps.kscope", "launch=0", 2, &trace, &cp);
  gint64 prev_end = -1;

  for (guint i = 0; i < ref->len; i++)
    {
      char **f = g_ptr_array_index (ref, i);
      const KsPathStep *step = step_named (cp, trace, f[0]);
      gint64 gpu_end = g_ascii_strtoll (f[2], NULL, 10) - trace->origin_ns;
      gint64 busy = g_ascii_strtoll (f[3], NULL, 10);
      gint64 on_gpu;

      g_assert_cmpint (step->end, ==, gpu_end);
      if (prev_end >= 0)
        g_assert_cmpint (step->start, >=, prev_end);
      prev_end = gpu_end;
      on_gpu = step->by_class[KS_PATH_GPU] + step->by_class[KS_PATH_COPY];
      /* The work, and the moments between kernels on the stream. */
      g_assert_cmpint (on_gpu, >=, busy);
      g_assert_cmpint (on_gpu, >, step->dur_ns * 97 / 100);
      /* Free launches buy nothing where the GPU sets the pace. */
      g_assert_cmpint (step->predicted_ns, >, step->dur_ns * 99 / 100);
    }
}

/* The DataLoader-bound recording: the main thread spends most of each
 * step in enumerate(DataLoader), all of it on the path. The DataLoader
 * time per step comes from the raw file (critical-path-reference.py). */
static void
test_loader_bound (void)
{
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsCriticalPath) cp = NULL;
  g_autoptr(GPtrArray) ref = fixture_reference ("loader_bound.pt.trace.json.gz", "dataloader=0", 4, &trace, &cp);

  for (guint i = 0; i < ref->len; i++)
    {
      char **f = g_ptr_array_index (ref, i);
      const KsPathStep *step = step_named (cp, trace, f[0]);
      gint64 dl = g_ascii_strtoll (f[1], NULL, 10);

      /* The file's µs with three decimals round to the ns. */
      g_assert_cmpint (ABS (step->by_class[KS_PATH_DATALOADER] - dl), <=, 2);
      g_assert_cmpint (step->by_class[KS_PATH_DATALOADER], >, step->dur_ns * 8 / 10);
      /* Removing it takes at least its time off, a lower bound that the
       * re-timed graph cannot beat. */
      g_assert_cmpint (step->predicted_ns, >=, step->dur_ns - step->by_class[KS_PATH_DATALOADER]);
      g_assert_cmpint (step->predicted_ns, <, step->dur_ns / 4);
      g_assert_cmpint (step->predicted_by_class[KS_PATH_DATALOADER], ==, 0);
    }
}

/* The GPT trace is launch-bound: the path is CPU operators and launch
 * overhead, the backward pass through the autograd thread; no kernel. */
static void
test_gpt_launch_bound (void)
{
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsCriticalPath) cp = fixture_path_compute ("gpt_3steps.pt.trace.json.gz", "launch=0.5", &trace);
  const KsPathStep *steps = consistent_steps (cp, 3);

  for (guint i = 0; i < 3; i++)
    {
      gint64 host = steps[i].by_class[KS_PATH_CPU] + steps[i].by_class[KS_PATH_LAUNCH];
      gboolean autograd = FALSE;

      g_assert_cmpint (host, >, steps[i].path_ns / 2);
      g_assert_cmpint (steps[i].by_class[KS_PATH_LAUNCH], >, steps[i].path_ns / 20);
      g_assert_cmpint (steps[i].by_class[KS_PATH_GPU], ==, 0);
      for (guint k = 0; k < steps[i].n_items; k++)
        if (g_str_has_prefix (ks_trace_string (trace, steps[i].items[k].name), "autograd::engine::evaluate_function"))
          autograd = TRUE;
      g_assert_true (autograd);
      /* Halving the launch overhead halves its time on the path at most. */
      g_assert_cmpint (steps[i].predicted_ns, <, steps[i].dur_ns);
      g_assert_cmpint (steps[i].predicted_ns, >=, steps[i].dur_ns - steps[i].by_class[KS_PATH_LAUNCH] / 2 - 1);
    }
}

/* Two DDP ranks over gloo, rank 1 sleeping 20 ms before each forward
 * pass: each step once a rank; rank 1's path holds its sleep (untraced
 * Python), rank 0's mostly its wait in gloo:all_reduce for rank 1. */
static void
test_ranks (void)
{
  g_autofree char *path = fixture_path ("ddp_gloo_2ranks");
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) analysis = NULL;
  g_autoptr(KsCriticalPath) cp = path_compute (path, NULL, &trace, &analysis);
  const KsPathStep *steps = consistent_steps (cp, 8);
  guint per_rank[2] = { 0, 0 };

  for (guint i = 0; i < 8; i++)
    {
      const KsPathItem *top = &steps[i].items[0];

      g_assert_cmpint (steps[i].rank, >=, 0);
      g_assert_cmpint (steps[i].rank, <=, 1);
      per_rank[steps[i].rank]++;
      if (steps[i].rank == 1)
        {
          g_assert_cmpint (steps[i].by_class[KS_PATH_PYTHON], >=, 20000000);
          /* Nobody kept it waiting: it set its own steps. */
          g_assert_cmpint (steps[i].set_by_rank, ==, 1);
          g_assert_cmpint (steps[i].set_by_wait_ns, ==, 0);
        }
      else
        {
          const KsRankStep *rs;
          guint n_rs;
          gint64 waited = -1;

          /* Rank 1 set rank 0's steps: on the path rank 0 waits about
           * the 20 ms rank 1 sleeps, and no more than the analysis
           * says its collectives waited in the step. */
          rs = ks_analysis_get_rank_steps (analysis, &n_rs);
          for (guint k = 0; k < n_rs; k++)
            if (rs[k].rank == 0 && rs[k].name == steps[i].name)
              waited = rs[k].wait_ns;
          g_assert_cmpint (steps[i].set_by_rank, ==, 1);
          g_assert_cmpint (steps[i].set_by_wait_ns, >=, 18000000);
          g_assert_cmpint (steps[i].set_by_wait_ns, <=, waited);
          g_assert_cmpint (steps[i].by_class[KS_PATH_COMM], >, steps[i].path_ns * 8 / 10);
          g_assert_cmpstr (ks_trace_string (trace, top->name), ==, "gloo:all_reduce");
          g_assert_cmpint (top->klass, ==, KS_PATH_COMM);
        }
    }
  g_assert_cmpuint (per_rank[0], ==, 4);
  g_assert_cmpuint (per_rank[1], ==, 4);

  /* The CSV says whose step a row is. */
  {
    g_autofree char *folder = fixture_path ("ddp_gloo_2ranks");
    const char *args[] = { "--report", "critical-path", "--format", "csv", folder, NULL };
    g_autofree char *csv = NULL;
    g_auto(GStrv) lines = NULL;
    int status;

    csv = run_cli (args, &status);
    g_assert_cmpint (status, ==, 0);
    lines = g_strsplit (csv, "\n", -1);
    g_assert_true (g_str_has_prefix (lines[0], "rank,step,dur_ns,path_ns,set_by_rank,set_by_wait_ns,cpu_ns,python_ns,"));
    g_assert_cmpuint (g_strv_length (lines), ==, 10);
    g_assert_true (g_str_has_prefix (lines[1], "1,ProfilerStep#1,") || g_str_has_prefix (lines[1], "0,ProfilerStep#1,"));
  }
}

/* The compiled mixer runs its GPU 42 % of the time: the host sets every
 * step, so removing every kernel changes nothing. */
static void
test_mixer_compiled (void)
{
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsCriticalPath) cp = fixture_path_compute ("mixer_compiled.pt.trace.json.gz", "kernel:*=0", &trace);
  const KsPathStep *steps = consistent_steps (cp, 5);

  for (guint i = 0; i < 5; i++)
    {
      gint64 host = steps[i].by_class[KS_PATH_CPU] + steps[i].by_class[KS_PATH_PYTHON] +
                    steps[i].by_class[KS_PATH_LAUNCH];

      g_assert_cmpint (steps[i].by_class[KS_PATH_GPU], ==, 0);
      g_assert_cmpint (host, ==, steps[i].path_ns);
      g_assert_cmpint (steps[i].predicted_ns, ==, steps[i].dur_ns);
    }
}

/* The DataLoader advice quotes the what-if with the DataLoader free: the
 * mean of the re-timed steps against the mean step. */
static void
test_advice_quotes_what_if (void)
{
  g_autofree char *file = fixture_path ("loader_bound.pt.trace.json.gz");
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) analysis = NULL;
  g_autoptr(KsCriticalPath) cp = path_compute (file, "dataloader=0", &trace, &analysis);
  g_autofree char *after = NULL;
  g_autofree char *before = NULL;
  g_autofree char *expected = NULL;
  const KsAdvice *advice;
  const KsAdvice *found = NULL;
  gint64 dur, predicted;
  guint n;

  ks_critical_path_get_steps (cp, &n);
  ks_critical_path_get_totals (cp, &dur, NULL, &predicted, NULL, NULL);
  g_assert_cmpuint (n, ==, 4);
  after = ks_time_format_duration (predicted / n);
  before = ks_time_format_duration (dur / n);
  expected = g_strdup_printf ("with the DataLoader free, steps would take %s instead of %s.", after, before);

  advice = ks_analysis_get_advice (analysis, &n);
  for (guint i = 0; i < n; i++)
    if (strcmp (advice[i].rule, "dataloader") == 0)
      found = &advice[i];
  g_assert_nonnull (found);
  g_test_message ("%s", found->text);
  g_assert_nonnull (strstr (found->text, expected));
  g_assert_nonnull (strstr (found->text, "The DataLoader is 83 % of the critical path"));
}

/* HTA's cuda_event_sync trace: the CPU blocks in cudaEventSynchronize on
 * the 36 µs spin_kernel, which HTA's published path has too. */
static void
test_hta_event_sync (void)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  g_autofree char *file = g_build_filename (shared ? shared : ".", "corpus", "hta", "critical_path",
                                            "cuda_event_sync", "event_sync_trace.json.gz", NULL);
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsCriticalPath) cp = NULL;
  const KsPathStep *steps;
  const KsPathItem *spin = NULL;

  if (!g_file_test (file, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the corpus (KS_SHARED_DIR/corpus/hta) is not available");
      return;
    }
  cp = path_compute (file, NULL, &trace, NULL);
  steps = consistent_steps (cp, 1);
  for (guint i = 0; i < steps[0].n_items; i++)
    if (strstr (ks_trace_string (trace, steps[0].items[i].name), "spin_kernel") != NULL)
      spin = &steps[0].items[i];
  g_assert_nonnull (spin);
  g_assert_cmpint (spin->klass, ==, KS_PATH_GPU);
  g_assert_cmpint (spin->ns, ==, 36000);
}

/* HTA's simple_add benchmark has no steps: its whole trace is one. HTA's
 * published path (the overlaid output of its end-to-end test) goes
 * through the same CUDA calls, for the same time: CUDA's initialisation
 * in cudaDeviceGetStreamPriorityRange, cudaFree, cudaStreamCreateWithFlags,
 * cudaMalloc.
 * On cudaLaunchKernel ours has 56 µs more: a kernel starting after its
 * launch call began counts as that call's launch overhead here, where
 * HTA's path takes the call's own duration only. */
static void
test_hta_simple_add (void)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  g_autofree char *dir = g_build_filename (shared ? shared : ".", "corpus", "hta", "critical_path", "end_to_end",
                                           "simple_add", NULL);
  g_autofree char *input = g_build_filename (dir, "input", "trace.json.gz", NULL);
  g_autofree char *output = g_build_filename (dir, "output", "overlaid_critical_path_trace.json.gz", NULL);
  g_autoptr(GPtrArray) hta = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsCriticalPath) cp = NULL;
  const KsPathStep *steps;
  guint compared = 0;

  if (!g_file_test (input, G_FILE_TEST_EXISTS) || !g_file_test (output, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the corpus (KS_SHARED_DIR/corpus/hta) is not available");
      return;
    }
  cp = path_compute (input, NULL, &trace, NULL);
  steps = consistent_steps (cp, 1);
  g_assert_cmpuint (steps[0].name, ==, 0);

  hta = reference_with ("--hta-critical", output);
  for (guint i = 0; i < hta->len; i++)
    {
      char **f = g_ptr_array_index (hta, i);
      const KsPathItem *item = find_item (&steps[0], trace, f[0], KS_PATH_LAUNCH);
      gint64 ns = g_ascii_strtoll (f[1], NULL, 10);

      if (ns < 100000000)
        continue;
      g_assert_nonnull (item);
      if (strcmp (f[0], "cudaLaunchKernel") == 0)
        g_assert_cmpint (item->ns - ns, ==, 56000);
      else
        g_assert_cmpint (item->ns, ==, ns);
      compared++;
    }
  g_assert_cmpuint (compared, ==, 5);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/critical-path/cpu-chain", test_cpu_chain);
  g_test_add_func ("/critical-path/gpu-chain-sync", test_gpu_chain_sync);
  g_test_add_func ("/critical-path/event-join", test_event_join);
  g_test_add_func ("/critical-path/graph-launch", test_graph_launch);
  g_test_add_func ("/critical-path/dataloader-wait", test_dataloader_wait);
  g_test_add_func ("/critical-path/overlapping-kernels", test_overlapping_kernels);
  g_test_add_func ("/critical-path/implicit-stream-wait", test_implicit_stream_wait);
  g_test_add_func ("/critical-path/whole-trace", test_whole_trace);
  g_test_add_func ("/critical-path/warmup-steps", test_warmup_steps);
  g_test_add_func ("/critical-path/what-if-rules", test_what_if_rules);
  g_test_add_func ("/critical-path/cli", test_cli);
  g_test_add_func ("/critical-path/loader-bound", test_loader_bound);
  g_test_add_func ("/critical-path/gpt-launch-bound", test_gpt_launch_bound);
  g_test_add_func ("/critical-path/loader-recording", test_loader_recording);
  g_test_add_func ("/critical-path/gpu-bound-recording", test_gpu_bound_recording);
  g_test_add_func ("/critical-path/mixer-compiled", test_mixer_compiled);
  g_test_add_func ("/critical-path/ranks", test_ranks);
  g_test_add_func ("/critical-path/advice-quotes-what-if", test_advice_quotes_what_if);
  g_test_add_func ("/critical-path/hta-event-sync", test_hta_event_sync);
  g_test_add_func ("/critical-path/hta-simple-add", test_hta_simple_add);

  return g_test_run ();
}
