/* test-torch-ops.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* PyTorch's operators from a real NVTX recording: `kinescope-cli record
 * -t nvtx` of torch-nvtx-app (the exact text emit_nvtx gives, no GPU
 * needed), opened with ks_trace_load(): operators and annotations on
 * their threads with Kineto's args, forward -> backward flows, and the
 * Operators report's host times against the recording's own rows.
 *
 * argv after the GTest options: kinescope-cli, the directory of
 * libkinescope-inject.so (or "-"), torch-nvtx-app, the fake NVML library. */

#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/wait.h>

#include "ks-analysis.h"
#include "ks-trace-loader.h"

static const char *cli_path;
static const char *inject_dir;
static const char *app_path;
static const char *fake_nvml;

/* Every operator name the program emits, and its kind. */
static const struct { const char *name; KsSliceKind kind; } ops[] = {
  { "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", KS_SLICE_USER_ANNOTATION },
  { "aten::linear", KS_SLICE_CPU_OP },
  { "aten::t", KS_SLICE_CPU_OP },
  { "aten::addmm", KS_SLICE_CPU_OP },
  { "my block, part 2", KS_SLICE_USER_ANNOTATION },
  { "aten::relu", KS_SLICE_CPU_OP },
  { "autograd::engine::evaluate_function: ReluBackward0", KS_SLICE_CPU_OP },
  { "ReluBackward0", KS_SLICE_USER_ANNOTATION },
  { "aten::threshold_backward", KS_SLICE_CPU_OP },
  { "autograd::engine::evaluate_function: AddmmBackward0", KS_SLICE_CPU_OP },
};

/* The op a range's text is of, by the test's own list: the name followed
 * by ", " (names are not prefixes of one another with ", " after them). */
static int
op_of_text (const char *text)
{
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    if (g_str_has_prefix (text, ops[i].name) && g_str_has_prefix (text + strlen (ops[i].name), ", "))
      return i;
  return -1;
}

static char *
record (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-torch-ops-XXXXXX", NULL);
  char *path = g_build_filename (dir, "ops.kscope", NULL);
  const char *argv[] = { cli_path, "record", "-t", "nvtx", "-o", path, "--", app_path, NULL };
  g_auto(GStrv) env = g_get_environ ();
  g_autoptr(GError) error = NULL;
  g_autofree char *err = NULL;
  int status = 0;

  env = g_environ_setenv (env, "KINESCOPE_INJECT_DIR", inject_dir, TRUE);
  env = g_environ_setenv (env, "KINESCOPE_NVML_LIBRARY", fake_nvml, TRUE);
  g_assert_true (g_spawn_sync (dir, (char **) argv, env, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL,
                               NULL, &err, &status, &error));
  g_assert_no_error (error);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    g_error ("record failed: %s", err);
  return path;
}

static void
test_torch_ops (void)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) analysis = NULL;
  g_autoptr(GError) error = NULL;
  guint64 want_calls[G_N_ELEMENTS (ops)] = { 0 };
  gint64 want_total[G_N_ELEMENTS (ops)] = { 0 };
  guint64 got_calls[G_N_ELEMENTS (ops)] = { 0 };
  gint64 linear_children = 0;
  guint n_nvtx = 0, n_fwdbwd = 0, n_rows = 0;
  const KsOperatorStats *stats;
  guint n_stats;
  sqlite3 *db;
  sqlite3_stmt *stmt;

  if (g_str_equal (inject_dir, "-"))
    {
      g_test_skip ("libkinescope-inject.so was not built (no CUDA toolkit)");
      return;
    }
  path = record ();

  /* What the recording holds, read straight from its rows */
  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT text, start, end FROM NVTX_EVENTS WHERE eventType = 59",
                                       -1, &stmt, NULL), ==, SQLITE_OK);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      const char *text = (const char *) sqlite3_column_text (stmt, 0);
      int op = op_of_text (text);
      gint64 dur = sqlite3_column_int64 (stmt, 2) - sqlite3_column_int64 (stmt, 1);

      n_rows++;
      if (op < 0)
        {
          g_assert_true (g_str_has_prefix (text, "step "));
          continue;
        }
      want_calls[op]++;
      want_total[op] += dur;
      if (strcmp (ops[op].name, "aten::t") == 0 || strcmp (ops[op].name, "aten::addmm") == 0)
        linear_children += dur;
    }
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  g_assert_cmpuint (n_rows, ==, 2 + 2 * G_N_ELEMENTS (ops));

  file = g_file_new_for_path (path);
  trace = ks_trace_load (file, NULL, NULL, &error);
  g_assert_no_error (error);

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      for (guint32 s = 0; s < track->n_slices; s++)
        {
          const char *name = ks_trace_string (trace, track->name_id[s]);
          const char *args = ks_trace_slice_args (trace, track, s, args_buf);

          if (track->kind == KS_TRACK_NVTX)
            {
              g_assert_true (g_str_has_prefix (name, "step "));
              n_nvtx++;
              continue;
            }
          g_assert_cmpint (track->kind, ==, KS_TRACK_THREAD);
          for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
            if (strcmp (name, ops[i].name) == 0)
              {
                got_calls[i]++;
                g_assert_cmpint (track->slice_kind[s], ==, ops[i].kind);
              }
          g_assert_nonnull (strstr (args, "\"Record function id\":"));
          if (strcmp (name, "aten::addmm") == 0)
            {
              g_assert_nonnull (strstr (args, "\"Input Dims\":[[16],[8,32],[32,16],[],[]]"));
              g_assert_true (strstr (args, "\"Sequence number\":11,") || strstr (args, "\"Sequence number\":14,"));
            }
          if (strcmp (name, "aten::threshold_backward") == 0)
            g_assert_nonnull (strstr (args, "\"Input Dims\":[[8,16],[8,16],[]]"));
          if (strcmp (name, "my block, part 2") == 0)
            g_assert_nonnull (strstr (args, "\"Input Dims\":[]"));
          if (strcmp (name, "aten::t") == 0)
            g_assert_null (strstr (args, "Sequence number"));
        }
    }
  g_assert_cmpuint (n_nvtx, ==, 2);
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    {
      g_assert_cmpuint (want_calls[i], ==, 2);
      g_assert_cmpuint (got_calls[i], ==, 2);
    }

  /* forward -> backward: relu and addmm of each step to their evaluate_function */
  for (guint32 f = 0; f < trace->n_flows; f++)
    {
      const KsFlow *flow = &trace->flows[f];
      const KsTrack *from = &trace->tracks[flow->from_track];
      const KsTrack *to = &trace->tracks[flow->to_track];
      const char *fname = ks_trace_string (trace, from->name_id[flow->from_slice]);
      const char *tname = ks_trace_string (trace, to->name_id[flow->to_slice]);
      gint64 fseq = -1, tseq = -2;

      if (strcmp (ks_trace_string (trace, flow->category), "fwdbwd") != 0)
        continue;
      n_fwdbwd++;
      g_assert_cmpint (flow->kind, ==, KS_FLOW_OTHER);
      g_assert_cmpuint (from->thread, !=, to->thread);
      if (strcmp (fname, "aten::relu") == 0)
        g_assert_cmpstr (tname, ==, "autograd::engine::evaluate_function: ReluBackward0");
      else
        {
          g_assert_cmpstr (fname, ==, "aten::addmm");
          g_assert_cmpstr (tname, ==, "autograd::engine::evaluate_function: AddmmBackward0");
        }
      sscanf (strstr (ks_trace_slice_args (trace, from, flow->from_slice, args_buf), "\"Sequence number\":"),
              "\"Sequence number\":%" G_GINT64_FORMAT, &fseq);
      sscanf (strstr (ks_trace_slice_args (trace, to, flow->to_slice, args_buf), "\"Sequence number\":"),
              "\"Sequence number\":%" G_GINT64_FORMAT, &tseq);
      g_assert_cmpint (fseq, ==, tseq);
    }
  g_assert_cmpuint (n_fwdbwd, ==, 4);

  /* the Operators report: every CPU operator with the recording's host times */
  analysis = ks_analysis_compute (trace, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  stats = ks_analysis_get_operators (analysis, KS_OPERATOR_BY_NAME, &n_stats);
  for (guint i = 0; i < G_N_ELEMENTS (ops); i++)
    {
      const KsOperatorStats *op = NULL;

      for (guint k = 0; k < n_stats; k++)
        if (strcmp (ks_trace_string (trace, stats[k].name), ops[i].name) == 0)
          op = &stats[k];
      if (ops[i].kind != KS_SLICE_CPU_OP)
        {
          g_assert_null (op);
          continue;
        }
      g_assert_nonnull (op);
      g_assert_cmpuint (op->calls, ==, 2);
      g_assert_cmpint (op->host_total_ns, ==, want_total[i]);
      if (strcmp (ops[i].name, "aten::linear") == 0)
        g_assert_cmpint (op->host_self_ns, ==, want_total[i] - linear_children);
    }

  g_remove (path);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (argc < 5)
    g_error ("usage: test-torch-ops KINESCOPE-CLI INJECT-DIR TORCH-NVTX-APP FAKE-NVML");
  cli_path = argv[1];
  inject_dir = argv[2];
  app_path = argv[3];
  fake_nvml = argv[4];
  g_test_add_func ("/collector/torch-ops", test_torch_ops);
  return g_test_run ();
}
