/* test-recorder.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* KsRecorder without a display: records nvtx-app in this process (NVTX
 * through the injection library, two GPUs from the fake NVML) and checks
 * what a window sees of it: the state and count notifications, the
 * ::finished signal, and the same numbers again through the progress
 * lines that `kinescope-cli record --progress-fd` writes.
 *
 * Arguments: the directory of libkinescope-inject.so, nvtx-app, the fake
 * libnvidia-ml. */

#include "config.h"

#include <glib/gstdio.h>
#include <sqlite3.h>

#include "ks-recorder.h"

static const char *nvtx_app;

typedef struct
{
  GMainLoop *loop;
  GArray    *states;
  guint      elapsed_notes;
  guint      range_notes;
  guint      finished;
  int        status;
  gboolean   had_error;
} Watch;

static void
state_cb (KsRecorder *recorder,
          GParamSpec *pspec,
          Watch      *w)
{
  KsRecorderState state = ks_recorder_get_state (recorder);

  g_array_append_val (w->states, state);
}

static void
count_cb (KsRecorder *recorder,
          GParamSpec *pspec,
          guint      *notes)
{
  (*notes)++;
}

static void
finished_cb (KsRecorder   *recorder,
             int           status,
             const GError *error,
             Watch        *w)
{
  w->finished++;
  w->status = status;
  w->had_error = error != NULL;
  g_main_loop_quit (w->loop);
}

static gint64
query_int (sqlite3    *db,
           const char *sql)
{
  sqlite3_stmt *s = NULL;
  gint64 v;

  if (sqlite3_prepare_v2 (db, sql, -1, &s, NULL) != SQLITE_OK)
    g_error ("%s: %s", sql, sqlite3_errmsg (db));
  g_assert_cmpint (sqlite3_step (s), ==, SQLITE_ROW);
  v = sqlite3_column_int64 (s, 0);
  sqlite3_finalize (s);
  return v;
}

static guint64
get_u64 (KsRecorder *recorder,
         const char *property)
{
  guint64 v = 0;

  g_object_get (recorder, property, &v, NULL);
  return v;
}

static void
assert_gpus (KsRecorder *recorder)
{
  g_autoptr(GVariant) gpus = NULL;
  const char *name;
  gint64 total;

  g_object_get (recorder, "gpus", &gpus, NULL);
  g_assert_nonnull (gpus);
  g_assert_cmpuint (g_variant_n_children (gpus), ==, 2);
  g_variant_get_child (gpus, 1, "(&sixx)", &name, NULL, NULL, &total);
  g_assert_cmpstr (name, ==, "Fake GPU 1");
  g_assert_cmpint (total, >, 0);
}

static void
test_record_in_process (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-recorder-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "recorder.kscope", NULL);
  const char *argv[] = { nvtx_app, NULL };
  g_autoptr(GError) error = NULL;
  g_autoptr(KsRecorder) recorder = NULL;
  g_autoptr(KsRecorder) shown = ks_recorder_new ();
  g_autofree char *line = NULL;
  g_autofree char *done = NULL;
  KsRecordOptions options = { 0 };
  Watch w = { 0 };
  guint shown_notes = 0;
  sqlite3 *db;

  options.trace = KS_RECORD_TRACE_NVTX | KS_RECORD_TRACE_GPU_METRICS;
  options.capture_range = (char *) "none";
  options.gpu_metrics_hz = 100;
  recorder = ks_recorder_new_for_file (path, &options, &error);
  g_assert_no_error (error);
  g_assert_cmpint (ks_recorder_get_state (recorder), ==, KS_RECORDER_STATE_IDLE);

  w.loop = g_main_loop_new (NULL, FALSE);
  w.states = g_array_new (FALSE, FALSE, sizeof (KsRecorderState));
  g_signal_connect (recorder, "notify::state", G_CALLBACK (state_cb), &w);
  g_signal_connect (recorder, "notify::elapsed", G_CALLBACK (count_cb), &w.elapsed_notes);
  g_signal_connect (recorder, "notify::nvtx-ranges", G_CALLBACK (count_cb), &w.range_notes);
  g_signal_connect (recorder, "finished", G_CALLBACK (finished_cb), &w);

  g_assert_true (ks_recorder_spawn (recorder, argv, TRUE, &error));
  g_assert_no_error (error);
  g_main_loop_run (w.loop);

  g_assert_cmpuint (w.finished, ==, 1);
  g_assert_cmpint (w.status, ==, 0);
  g_assert_false (w.had_error);
  g_assert_cmpuint (w.states->len, ==, 2);
  g_assert_cmpint (g_array_index (w.states, KsRecorderState, 0), ==, KS_RECORDER_STATE_RECORDING);
  g_assert_cmpint (g_array_index (w.states, KsRecorderState, 1), ==, KS_RECORDER_STATE_FINISHED);
  g_assert_cmpuint (w.elapsed_notes, >=, 1);
  g_assert_cmpuint (w.range_notes, >=, 1);
  g_assert_true (ks_recorder_get_complete (recorder));
  g_assert_cmpstr (ks_recorder_get_end_reason (recorder), ==, "command-exited");
  g_assert_cmpfloat (ks_recorder_get_elapsed (recorder), >, 0);

  /* the properties say what the file holds: nvtx-app's 6 push/pop and 2
   * start/end ranges, every NVML sample */
  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpuint (get_u64 (recorder, "nvtx-ranges"), ==, 8);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM NVTX_EVENTS WHERE eventType IN (59, 60)"), ==, 8);
  g_assert_cmpuint (get_u64 (recorder, "samples"), >, 0);
  g_assert_cmpint (query_int (db, "SELECT COUNT(*) FROM KS_COUNTER_SAMPLES"), ==, (gint64) get_u64 (recorder, "samples"));
  g_assert_cmpuint (get_u64 (recorder, "kernels"), ==, 0);
  g_assert_cmpuint (get_u64 (recorder, "dropped"), ==, 0);
  sqlite3_close (db);
  assert_gpus (recorder);

  /* A window shows the same through the progress lines. */
  g_signal_connect (shown, "notify::nvtx-ranges", G_CALLBACK (count_cb), &shown_notes);
  g_assert_false (ks_recorder_apply_progress (shown, "nvtx-app: some output of the program"));
  line = ks_recorder_to_progress (recorder);
  g_assert_true (ks_recorder_apply_progress (shown, line));
  g_assert_cmpint (ks_recorder_get_state (shown), ==, KS_RECORDER_STATE_RECORDING);
  g_assert_cmpuint (shown_notes, ==, 1);
  g_assert_cmpuint (get_u64 (shown, "nvtx-ranges"), ==, 8);
  g_assert_cmpuint (get_u64 (shown, "samples"), ==, get_u64 (recorder, "samples"));
  g_assert_cmpfloat_with_epsilon (ks_recorder_get_elapsed (shown), ks_recorder_get_elapsed (recorder), 0.001);
  assert_gpus (shown);
  done = ks_recorder_to_done (recorder, 0, TRUE);
  g_assert_true (ks_recorder_apply_progress (shown, done));
  g_assert_cmpstr (ks_recorder_get_output (shown), ==, path);

  g_clear_object (&recorder);
  g_array_unref (w.states);
  g_main_loop_unref (w.loop);
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (argc < 4)
    g_error ("usage: test-recorder INJECT_DIR NVTX_APP FAKE_NVML");
  g_setenv ("KINESCOPE_INJECT_DIR", argv[1], TRUE);
  nvtx_app = argv[2];
  g_setenv ("KINESCOPE_NVML_LIBRARY", argv[3], TRUE);
  g_test_add_func ("/recorder/record-in-process", test_record_in_process);
  return g_test_run ();
}
