/* test-summary-activity.c: the Summary page's SM activity row and advice (GPM)
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>

#include "ks-kscope-writer.h"
#include "ks-session.h"
#include "ks-test-gtk.h"
#include "ks-trace-builder.h"
#include "ks-window.h"

#define MS G_GINT64_CONSTANT (1000000)
#define BASE G_GINT64_CONSTANT (1000000000)

/* As tests/analysis/test-activity.c: two 1 s steps, kernels 950 and
 * 850 ms of them (busy 90 %), GPM every 100 ms, SM activity 10 % then
 * 60 % (mean 35 %), tensor 2 % then 30 % (16 %). */
static void
write_trace (const char *path)
{
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_KINETO_JSON);
  guint32 process = ks_trace_builder_get_process (b, 100);
  guint32 track = ks_trace_builder_get_thread_track (b, ks_trace_builder_get_thread (b, process, 100));
  guint32 stream = ks_trace_builder_get_stream_track (b, 0, 7);
  guint32 sm = ks_trace_builder_get_counter (b, "SM activity", "%", 0, KS_NO_INDEX);
  guint32 tensor = ks_trace_builder_get_counter (b, "Tensor activity", "%", 0, KS_NO_INDEX);
  static const gint64 kernels[][2] = { { 0, 500 }, { 550, 1000 }, { 1000, 1400 }, { 1550, 2000 } };
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  KsGpu gpu = { 0 };

  gpu.device = 0;
  gpu.name = ks_trace_builder_intern (b, "Test GPU");
  ks_trace_builder_add_gpu (b, &gpu);
  for (int s = 0; s < 2; s++)
    {
      g_autofree char *name = g_strdup_printf ("ProfilerStep#%d", s + 1);

      ks_trace_builder_add_slice (b, track, BASE + s * 1000 * MS, BASE + (s + 1) * 1000 * MS,
                                  KS_SLICE_USER_ANNOTATION, ks_trace_builder_intern (b, name), 0, 0, 0, 0, NULL);
    }
  for (guint k = 0; k < G_N_ELEMENTS (kernels); k++)
    ks_trace_builder_add_slice (b, stream, BASE + kernels[k][0] * MS, BASE + kernels[k][1] * MS, KS_SLICE_KERNEL,
                                ks_trace_builder_intern (b, "small_kernel"), 0, 0, 0, 0, NULL);
  for (int i = 1; i <= 20; i++)
    {
      ks_trace_builder_add_counter_sample (b, sm, BASE + i * 100 * MS, i <= 10 ? 10 : 60);
      ks_trace_builder_add_counter_sample (b, tensor, BASE + i * 100 * MS, i <= 10 ? 2 : 30);
    }
  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);
  g_assert_true (ks_kscope_write (trace, file, NULL, NULL, &error));
  g_assert_no_error (error);
}

static void
test_summary (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-activity-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "gpm.kscope", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  KsWindow *window;
  GtkWidget *summary, *row, *advice;

  write_trace (path);
  window = ks_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, file);
  KS_TEST_WAIT_FOR (ks_window_get_session (window) != NULL &&
                    ks_session_get_analysis (ks_window_get_session (window)) != NULL, 20000);
  ks_test_wait_pages_filled (GTK_WIDGET (window));
  summary = ks_window_get_page (window, "summary");
  ks_window_show_page (window, "summary");
  gtk_test_widget_wait_for_draw (summary);

  /* beside the busy row: 35 %, tensor 16 %, the steps 10 to 60 % */
  row = ks_test_find_descendant (summary, ADW_TYPE_ACTION_ROW, "sm-activity-row");
  g_assert_nonnull (row);
  g_assert_nonnull (ks_test_find_label (row, "35.0 %"));
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), ==,
                   "Tensor cores 16.0 % · 10.0–60.0 % per step");
  g_assert_nonnull (ks_test_find_descendant (summary, ADW_TYPE_ACTION_ROW, "busy-row"));

  /* busy 90 %, SMs active 35 % */
  advice = ks_test_find_descendant (summary, ADW_TYPE_EXPANDER_ROW, "busy-sms-idle");
  g_assert_nonnull (advice);
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (advice)), ==,
                   "GPU 0 is busy but its SMs are mostly idle");

  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;
  g_test_add_func ("/app/summary/activity", test_summary);
  return g_test_run ();
}
