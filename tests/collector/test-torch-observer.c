/* test-torch-observer.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Operators from our RecordFunction observer against operators from
 * torch's NVTX emission: torch-observer-app runs the same operators
 * both ways under `kinescope-cli record -t nvtx`, and the two recordings
 * must hold the same rows (texts, threads, nesting, in order) and load as
 * the same operators with the same forward -> backward flows. With and
 * without input shapes.
 *
 * argv after the GTest options: kinescope-cli, the directory of
 * libkinescope-inject.so (or "-"), torch-observer-app, the fake NVML
 * library. */

#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/wait.h>

#include "ks-trace-loader.h"

#define N_OPS_PER_STEP 10

static const char *cli_path;
static const char *inject_dir;
static const char *app_path;
static const char *fake_nvml;

static char *
record (const char *mode,
        gboolean    shapes)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-torch-observer-XXXXXX", NULL);
  g_autofree char *library = g_build_filename (inject_dir, "libkinescope-inject.so", NULL);
  char *path = g_build_filename (dir, "ops.kscope", NULL);
  const char *argv[] = { cli_path, "record", "-t", "nvtx", "-o", path, "--", app_path, mode,
                         shapes ? "--shapes" : library, shapes ? library : NULL, NULL };
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
    g_error ("record %s failed: %s", mode, err);
  return path;
}

/* The recording's push/pop ranges in start order, one line each: text
 * (input_op_ids, which the observer does not send, cut off), the
 * thread's rank by first appearance, and the depth computed here from the
 * intervals. */
static GPtrArray *
rows_of (const char *path)
{
  GPtrArray *rows = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) tids = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) open_end = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) open_tid = g_array_new (FALSE, FALSE, sizeof (gint64));
  sqlite3 *db;
  sqlite3_stmt *stmt;

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT text, start, end, globalTid FROM NVTX_EVENTS "
                                           "WHERE eventType = 59 ORDER BY start, end DESC",
                                       -1, &stmt, NULL), ==, SQLITE_OK);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      g_autofree char *text = g_strdup ((const char *) sqlite3_column_text (stmt, 0));
      gint64 start = sqlite3_column_int64 (stmt, 1);
      gint64 end = sqlite3_column_int64 (stmt, 2);
      gint64 tid = sqlite3_column_int64 (stmt, 3);
      char *cut = strstr (text, ", input_op_ids = ");
      guint rank, depth = 0;

      g_assert_cmpint (end, >, start);
      if (cut != NULL)
        *cut = 0;
      for (rank = 0; rank < tids->len && g_array_index (tids, gint64, rank) != tid; rank++)
        ;
      if (rank == tids->len)
        g_array_append_val (tids, tid);
      for (guint i = 0; i < open_end->len; i++)
        if (g_array_index (open_tid, gint64, i) == tid && g_array_index (open_end, gint64, i) >= end)
          depth++;
      g_array_append_val (open_end, end);
      g_array_append_val (open_tid, tid);
      g_ptr_array_add (rows, g_strdup_printf ("%u %u %s", rank, depth, text));
    }
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return rows;
}

/* The loaded operators, one line each in the order of their tracks and
 * starts: name, kind, args; and the fwdbwd flows by names and args. */
static GPtrArray *
ops_of (const char *path,
        guint      *n_flows)
{
  GPtrArray *ops = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GString) args_buf = g_string_new (NULL);
  g_autoptr(GString) to_args = g_string_new (NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = ks_trace_load (file, NULL, NULL, &error);

  g_assert_no_error (error);
  *n_flows = 0;
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind != KS_TRACK_THREAD)
        continue;
      for (guint32 s = 0; s < track->n_slices; s++)
        g_ptr_array_add (ops, g_strdup_printf ("%s %d %s", ks_trace_string (trace, track->name_id[s]),
                                               track->slice_kind[s],
                                               ks_trace_slice_args (trace, track, s, args_buf)));
    }
  for (guint32 f = 0; f < trace->n_flows; f++)
    {
      const KsFlow *flow = &trace->flows[f];
      const KsTrack *from = &trace->tracks[flow->from_track];
      const KsTrack *to = &trace->tracks[flow->to_track];

      if (strcmp (ks_trace_string (trace, flow->category), "fwdbwd") != 0)
        continue;
      (*n_flows)++;
      g_ptr_array_add (ops, g_strdup_printf ("flow %s %s -> %s %s",
                                             ks_trace_string (trace, from->name_id[flow->from_slice]),
                                             ks_trace_slice_args (trace, from, flow->from_slice, args_buf),
                                             ks_trace_string (trace, to->name_id[flow->to_slice]),
                                             ks_trace_slice_args (trace, to, flow->to_slice, to_args)));
    }
  return ops;
}

static void
assert_same_lines (GPtrArray *want,
                   GPtrArray *got)
{
  for (guint i = 0; i < MIN (want->len, got->len); i++)
    g_assert_cmpstr (g_ptr_array_index (got, i), ==, g_ptr_array_index (want, i));
  g_assert_cmpuint (got->len, ==, want->len);
}

static void
test_torch_observer (gconstpointer data)
{
  gboolean shapes = GPOINTER_TO_INT (data);
  g_autofree char *nvtx_path = NULL;
  g_autofree char *observer_path = NULL;
  g_autoptr(GPtrArray) want_rows = NULL;
  g_autoptr(GPtrArray) got_rows = NULL;
  g_autoptr(GPtrArray) want_ops = NULL;
  g_autoptr(GPtrArray) got_ops = NULL;
  guint want_flows, got_flows;
  guint n_relu_backward = 0, n_addmm_backward = 0;

  if (g_str_equal (inject_dir, "-"))
    {
      g_test_skip ("libkinescope-inject.so was not built (no CUDA toolkit)");
      return;
    }
  nvtx_path = record ("nvtx", shapes);
  observer_path = record ("observer", shapes);

  want_rows = rows_of (nvtx_path);
  got_rows = rows_of (observer_path);
  g_assert_cmpuint (want_rows->len, ==, 2 * N_OPS_PER_STEP);
  assert_same_lines (want_rows, got_rows);

  /* the reused name buffer: each name counted under its own name */
  for (guint i = 0; i < got_rows->len; i++)
    {
      const char *row = g_ptr_array_index (got_rows, i);

      n_relu_backward += strstr (row, "evaluate_function: ReluBackward0, seq") != NULL;
      n_addmm_backward += strstr (row, "evaluate_function: AddmmBackward0, seq") != NULL;
    }
  g_assert_cmpuint (n_relu_backward, ==, 2);
  g_assert_cmpuint (n_addmm_backward, ==, 2);
  if (shapes)
    g_assert_nonnull (strstr (g_ptr_array_index (got_rows, 3), "aten::addmm, seq = 11, op_id = 4, "
                                                               "sizes = [[16], [8, 32], [32, 16], [], []]"));

  want_ops = ops_of (nvtx_path, &want_flows);
  got_ops = ops_of (observer_path, &got_flows);
  g_assert_cmpuint (want_flows, ==, 4);
  g_assert_cmpuint (got_flows, ==, 4);
  assert_same_lines (want_ops, got_ops);

  g_remove (nvtx_path);
  g_remove (observer_path);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (argc < 5)
    g_error ("usage: test-torch-observer KINESCOPE-CLI INJECT-DIR TORCH-OBSERVER-APP FAKE-NVML");
  cli_path = argv[1];
  inject_dir = argv[2];
  app_path = argv[3];
  fake_nvml = argv[4];
  g_test_add_data_func ("/collector/torch-observer/names", GINT_TO_POINTER (FALSE), test_torch_observer);
  g_test_add_data_func ("/collector/torch-observer/shapes", GINT_TO_POINTER (TRUE), test_torch_observer);
  return g_test_run ();
}
