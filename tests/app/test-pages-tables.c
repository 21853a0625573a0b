/* test-pages-tables.c: the Operators, Kernels and Memory pages on their own
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>

#include "ks-test-gtk.h"
#include "ks-trace-loader.h"
#include "pages/ks-kernels-page.h"
#include "pages/ks-memory-page.h"
#include "pages/ks-operators-page.h"

/* loader_bound, computed independently from the JSON with python3: the
 * operator with the most GPU time under it, its longest call, the kernel
 * with the most time, and the allocations on GPU 0. */
#define LB_FILE                 "loader_bound.pt.trace.json.gz"
#define LB_TOP_OPERATOR         "autograd::engine::evaluate_function: ConvolutionBackward0"
#define LB_TOP_KERNEL           "sm80_xmma_wgrad_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize64x64x64_stage4_warpsize2x2x1_g1_tensor16x8x8_execute_kernel__5x_cudnn"
#define LB_GPU_ALLOCATIONS      152

typedef struct
{
  guint  highlighted;
  gint64 start;
  gint64 end;
  guint  n_navigate;
} Events;

static void
navigate_cb (GtkWidget *page,
             gint64     start,
             gint64     end,
             Events    *ev)
{
  ev->start = start;
  ev->end = end;
  ev->n_navigate++;
}

static void
highlight_cb (GtkWidget *page,
              guint      name,
              Events    *ev)
{
  ev->highlighted = name;
}

/* Runs the main loop until @cond holds or 10 s pass (search entries wait
 * a moment before they report a change). */
#define WAIT_FOR(cond) KS_TEST_WAIT_FOR (cond, 10000)

static KsTrace *
load (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), LB_FILE, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KsTrace *trace = ks_trace_load (file, NULL, NULL, &error);

  g_assert_no_error (error);
  return trace;
}

static GtkWidget *
show (GtkWidget *page)
{
  GtkWidget *window = gtk_window_new ();

  gtk_window_set_default_size (GTK_WINDOW (window), 500, 700);
  gtk_window_set_child (GTK_WINDOW (window), page);
  gtk_window_present (GTK_WINDOW (window));
  gtk_test_widget_wait_for_draw (window);
  return window;
}

static void
test_operators (void)
{
  g_autoptr(KsTrace) trace = load ();
  g_autoptr(KsAnalysis) analysis = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  GtkWidget *page = ks_operators_page_new ();
  GtkWidget *window = show (page);
  GtkWidget *view, *entry, *shape;
  GListModel *model;
  const KsOperatorStats *ops;
  const KsTrack *track;
  Events ev = { 0 };
  guint n_name, n_shape;

  g_signal_connect (page, "navigate", G_CALLBACK (navigate_cb), &ev);
  g_signal_connect (page, "highlight", G_CALLBACK (highlight_cb), &ev);
  ks_page_set_analysis (KS_PAGE (page), trace, analysis);

  view = ks_test_find_descendant (page, GTK_TYPE_COLUMN_VIEW, NULL);
  model = G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (view)));
  ks_analysis_get_operators (analysis, KS_OPERATOR_BY_NAME, &n_name);
  ks_analysis_get_operators (analysis, KS_OPERATOR_BY_NAME_AND_SHAPE, &n_shape);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, n_name);

  /* Sorted by device total: activating the first row shows the top
   * operator's occurrences and goes to its longest call */
  g_signal_emit_by_name (view, "activate", 0u);
  g_assert_cmpstr (ks_trace_string (trace, ev.highlighted), ==, LB_TOP_OPERATOR);
  ops = ks_analysis_get_operators (analysis, KS_OPERATOR_BY_NAME, NULL);
  track = &trace->tracks[ops[0].longest_track];
  g_assert_cmpuint (ev.n_navigate, ==, 1);
  g_assert_cmpint (ev.start, ==, track->start[ops[0].longest_slice]);
  g_assert_cmpint (ev.end, ==, track->end[ops[0].longest_slice]);

  /* Filtering by name */
  entry = ks_test_find_descendant (page, GTK_TYPE_SEARCH_ENTRY, NULL);
  gtk_editable_set_text (GTK_EDITABLE (entry), "convolution");
  WAIT_FOR (g_list_model_get_n_items (model) < n_name);
  g_assert_cmpuint (g_list_model_get_n_items (model), >, 0);
  for (guint i = 0; i < g_list_model_get_n_items (model); i++)
    {
      g_signal_emit_by_name (view, "activate", i);
      g_assert_nonnull (g_strrstr (ks_trace_string (trace, ev.highlighted), "onvolution"));
    }
  gtk_editable_set_text (GTK_EDITABLE (entry), "");
  WAIT_FOR (g_list_model_get_n_items (model) == n_name);

  /* By shape: a click on the toggle regroups */
  shape = ks_test_find_descendant (page, GTK_TYPE_TOGGLE_BUTTON, NULL);
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (shape), TRUE);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, n_shape);
  g_assert_cmpuint (n_shape, >, n_name);

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_kernels (void)
{
  g_autoptr(KsTrace) trace = load ();
  g_autoptr(KsAnalysis) analysis = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  GtkWidget *page = ks_kernels_page_new ();
  GtkWidget *window = show (page);
  GtkWidget *view;
  GListModel *model;
  Events ev = { 0 };
  guint n;

  g_signal_connect (page, "navigate", G_CALLBACK (navigate_cb), &ev);
  g_signal_connect (page, "highlight", G_CALLBACK (highlight_cb), &ev);
  ks_page_set_analysis (KS_PAGE (page), trace, analysis);
  gtk_test_widget_wait_for_draw (window);

  view = ks_test_find_descendant (page, GTK_TYPE_COLUMN_VIEW, NULL);
  model = G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (view)));
  ks_analysis_get_kernels (analysis, &n);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, n);

  g_signal_emit_by_name (view, "activate", 0u);
  g_assert_cmpstr (ks_trace_string (trace, ev.highlighted), ==, LB_TOP_KERNEL);
  /* its longest call: 246.080 µs */
  g_assert_cmpint (ev.end - ev.start, ==, 246080);

  /* The latency summary below the table */
  g_assert_nonnull (ks_test_find_label (page, "Launch latency of 176 kernels: p50 1.22"));

  /* No analysis: an empty table */
  ks_page_set_analysis (KS_PAGE (page), NULL, NULL);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 0);

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_memory (void)
{
  g_autoptr(KsTrace) trace = load ();
  g_autoptr(KsAnalysis) analysis = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  GtkWidget *page = ks_memory_page_new ();
  GtkWidget *window = show (page);
  GtkWidget *view, *dropdown;
  GListModel *model;
  const KsAllocation *allocs;
  Events ev = { 0 };
  guint n_allocs;

  g_signal_connect (page, "navigate", G_CALLBACK (navigate_cb), &ev);
  g_signal_connect (page, "highlight", G_CALLBACK (highlight_cb), &ev);
  ks_page_set_analysis (KS_PAGE (page), trace, analysis);
  gtk_test_widget_wait_for_draw (window);

  view = ks_test_find_descendant (page, GTK_TYPE_COLUMN_VIEW, NULL);
  model = G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (view)));
  allocs = ks_analysis_get_allocations (analysis, &n_allocs);

  /* GPU 0 first: its allocations only, its peak (python3: 344528384 bytes
   * at 37430791 ns, in aten::convolution_backward; 1413480448 reserved) */
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, LB_GPU_ALLOCATIONS);
  {
    /* Binary units, with a no-break space before the unit */
    const char *peak_text = "Peak 328.6\u00a0MiB at 37.4 ms in aten::convolution_backward";
    const char *resv_text = "Reserved up to 1.3\u00a0GiB of 139.8\u00a0GiB";

    g_assert_nonnull (ks_test_find_label (page, peak_text));
    g_assert_nonnull (ks_test_find_label (page, resv_text));
  }

  /* Host memory from the device drop-down */
  dropdown = ks_test_find_descendant (page, GTK_TYPE_DROP_DOWN, NULL);
  g_assert_true (gtk_widget_get_visible (dropdown));
  gtk_drop_down_set_selected (GTK_DROP_DOWN (dropdown), 1);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, n_allocs - LB_GPU_ALLOCATIONS);

  /* Activating an allocation goes to its lifetime */
  g_signal_emit_by_name (view, "activate", 0u);
  g_assert_cmpuint (ev.n_navigate, ==, 1);
  g_assert_cmpint (ev.end, >=, ev.start);
  {
    gboolean found = FALSE;

    for (guint i = 0; i < n_allocs; i++)
      if (allocs[i].device < 0 && allocs[i].alloc_ts == ev.start &&
          (allocs[i].free_ts == ev.end || (allocs[i].free_ts < 0 && ev.end == ev.start)))
        found = TRUE;
    g_assert_true (found);
  }

  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;

  g_test_add_func ("/app/pages/operators", test_operators);
  g_test_add_func ("/app/pages/kernels", test_kernels);
  g_test_add_func ("/app/pages/memory", test_memory);

  return g_test_run ();
}
