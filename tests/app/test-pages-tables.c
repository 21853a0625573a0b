/* test-pages-tables.c: the Operators, Kernels and Memory pages on their own
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "ks-report.h"
#include "ks-test-gtk.h"
#include "ks-trace-loader.h"
#include "pages/ks-row-item.h"
#include "pages/ks-kernels-page.h"
#include "pages/ks-memory-page.h"
#include "pages/ks-operators-page.h"
#include "pages/ks-page-charts.h"
#include "pages/ks-page-table.h"
#include "pages/ks-summary-page.h"
#include "pages/ks-comms-page.h"
#include "pages/ks-ranks-page.h"

/* loader_bound, computed independently from the JSON with python3: the
 * operator with the most GPU time under it, its longest call, the kernel
 * with the most time, and the allocations on GPU 0. */
#define LB_FILE                 "loader_bound.pt.trace.json.gz"
#define LB_TOP_OPERATOR         "autograd::engine::evaluate_function: ConvolutionBackward0"
#define LB_TOP_KERNEL           "sm80_xmma_wgrad_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize64x64x64_stage4_warpsize2x2x1_g1_tensor16x8x8_execute_kernel__5x_cudnn"
#define LB_GPU_ALLOCATIONS      152

typedef KsTestPageEvents Events;

/* Runs the main loop until @cond holds or 10 s pass (search entries wait
 * a moment before they report a change). */
#define WAIT_FOR(cond) KS_TEST_WAIT_FOR (cond, 10000)

static KsTrace *
load_fixture (const char *name)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KsTrace *trace = ks_trace_load (file, NULL, NULL, &error);

  g_assert_no_error (error);
  return trace;
}

static KsTrace *
load (void)
{
  return load_fixture (LB_FILE);
}

/* A trace of the JSON @text, written to a file of its own and read back. */
static KsTrace *
load_json_text (const char *text)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-pages-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "trace.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KsTrace *trace;

  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  trace = ks_trace_load (file, NULL, NULL, &error);
  g_assert_no_error (error);
  g_unlink (path);
  g_rmdir (dir);
  return trace;
}

static GtkWidget *show (GtkWidget *page);

/* @page shown with @analysis; its table's model. */
static GListModel *
show_table (GtkWidget  *page,
            KsTrace    *trace,
            KsAnalysis *analysis,
            GtkWidget **window,
            GtkWidget **view)
{
  *window = show (page);
  ks_page_set_analysis (KS_PAGE (page), trace, analysis);
  gtk_test_widget_wait_for_draw (*window);
  *view = ks_test_find_descendant (page, GTK_TYPE_COLUMN_VIEW, NULL);
  return G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (*view)));
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

static GtkColumnViewColumn *
find_column (GtkColumnView *view,
             const char    *title)
{
  GListModel *columns = gtk_column_view_get_columns (view);

  for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);

      if (g_strcmp0 (gtk_column_view_column_get_title (column), title) == 0)
        return column;
    }
  return NULL;
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

  g_signal_connect (page, "navigate", G_CALLBACK (ks_test_page_navigate_cb), &ev);
  g_signal_connect (page, "highlight", G_CALLBACK (ks_test_page_highlight_cb), &ev);
  ks_page_set_analysis (KS_PAGE (page), trace, analysis);

  view = ks_test_find_descendant (page, GTK_TYPE_COLUMN_VIEW, NULL);
  model = G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (view)));
  ks_analysis_get_operators (analysis, KS_OPERATOR_BY_NAME, &n_name);
  ks_analysis_get_operators (analysis, KS_OPERATOR_BY_NAME_AND_SHAPE, &n_shape);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, n_name);
  g_assert_nonnull (find_column (GTK_COLUMN_VIEW (view), "TC Eligible"));
  g_assert_nonnull (find_column (GTK_COLUMN_VIEW (view), "TC Total"));

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

  g_signal_connect (page, "navigate", G_CALLBACK (ks_test_page_navigate_cb), &ev);
  g_signal_connect (page, "highlight", G_CALLBACK (ks_test_page_highlight_cb), &ev);
  ks_page_set_analysis (KS_PAGE (page), trace, analysis);
  gtk_test_widget_wait_for_draw (window);

  view = ks_test_find_descendant (page, GTK_TYPE_COLUMN_VIEW, NULL);
  model = G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (view)));
  ks_analysis_get_kernels (analysis, &n);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, n);

  g_signal_emit_by_name (view, "activate", 0u);
  g_assert_cmpstr (ks_trace_string (trace, ev.highlighted), ==, LB_TOP_KERNEL);
  /* Its four calls (one per step) are shown, not one of them: the view
   * goes from the first one's start to the last one's end. */
  {
    guint32 id = ks_trace_lookup_string (trace, LB_TOP_KERNEL);
    gint64 first = G_MAXINT64, last = G_MININT64;
    guint calls = 0;

    for (guint32 t = 0; t < trace->n_tracks; t++)
      for (guint32 i = 0; i < trace->tracks[t].n_slices; i++)
        if (trace->tracks[t].name_id[i] == id)
          {
            calls++;
            first = MIN (first, trace->tracks[t].start[i]);
            last = MAX (last, trace->tracks[t].end[i]);
          }
    g_assert_cmpuint (calls, ==, 4);
    g_assert_cmpint (ev.start, ==, first);
    g_assert_cmpint (ev.end, ==, last);
    g_assert_cmpint (ev.end - ev.start, >, 10 * 246080);
  }

  /* Names that differ only at the end (template arguments, tile sizes)
   * stay apart: the cell keeps both ends, the whole name in its tooltip. */
  {
    GtkWidget *cell = ks_test_find_label (view, LB_TOP_KERNEL);

    g_assert_nonnull (cell);
    g_assert_cmpint (gtk_label_get_ellipsize (GTK_LABEL (cell)), ==, PANGO_ELLIPSIZE_MIDDLE);
    g_assert_cmpstr (gtk_widget_get_tooltip_text (cell), ==, LB_TOP_KERNEL);
  }

  /* The new columns: launch latency and queueing apart, tensor cores */
  g_assert_nonnull (find_column (GTK_COLUMN_VIEW (view), "Launch Latency"));
  g_assert_nonnull (find_column (GTK_COLUMN_VIEW (view), "Queueing"));
  g_assert_nonnull (find_column (GTK_COLUMN_VIEW (view), "Tensor Cores"));

  /* The latency summary below the table */
  g_assert_nonnull (ks_test_find_label (page, "Launch latency of 176 kernels: p50 1.05 µs, p90 1.54 µs, p99 2.34 µs; queueing behind earlier work: p50 0 ns, p90 97.7 µs"));

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

  g_signal_connect (page, "navigate", G_CALLBACK (ks_test_page_navigate_cb), &ev);
  g_signal_connect (page, "highlight", G_CALLBACK (ks_test_page_highlight_cb), &ev);
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

  /* The chart's axis follows allocated (344528384 bytes at its peak) so
   * that it is more than a thin band; reserved (1413480448) and its axis
   * come with the check button. */
  {
    GtkWidget *check = ks_test_find_descendant (page, GTK_TYPE_CHECK_BUTTON, NULL);

    g_assert_nonnull (check);
    g_assert_false (gtk_check_button_get_active (GTK_CHECK_BUTTON (check)));
    g_assert_cmpint (ks_memory_page_get_axis_top (KS_MEMORY_PAGE (page)), ==, 344528384);
    gtk_check_button_set_active (GTK_CHECK_BUTTON (check), TRUE);
    g_assert_cmpint (ks_memory_page_get_axis_top (KS_MEMORY_PAGE (page)), ==, 1413480448);
    gtk_test_widget_wait_for_draw (window);
    gtk_check_button_set_active (GTK_CHECK_BUTTON (check), FALSE);
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

/* Four allocations on GPU 0: two freed (after 40 µs and 970 µs), two
 * never freed, one at each end of the trace. */
static const char lifetime_trace[] =
  "{\"traceEvents\":["
  "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":100,"
  "\"args\":{\"device\":0,\"stream\":7}},"
#define MEM(ts, bytes, addr) \
  "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":" \
  #ts ",\"args\":{\"Bytes\":" #bytes ",\"Device Id\":0,\"Device Type\":1,\"Addr\":" #addr "}}"
  MEM (10, 4096, 4096) ","
  MEM (20, 8192, 16384) ","
  MEM (30, 2048, 65536) ","
  MEM (40, 1024, 131072) ","
  MEM (50, -4096, 4096) ","
  MEM (1000, -2048, 65536)
#undef MEM
  "]}";


/* Operators with a thread time ("tdur") have a CPU time column beside
 * the wall time; a trace without has none. */
static void
test_operators_thread_time (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-tt-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "tt.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  const char *json =
    "[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":400,\"tdur\":100,\"name\":\"aten::mm\"},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"pid\":1,\"tid\":1,\"ts\":500,\"dur\":100,\"tdur\":\"50\",\"name\":\"aten::mm\"},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"pid\":1,\"tid\":1,\"ts\":700,\"dur\":100,\"name\":\"aten::add\"}]";
  GtkColumnViewColumn *column;
  const KsReportColumn *columns, *cpu;
  guint n_columns;

  g_assert_true (g_file_set_contents (path, json, -1, NULL));
  columns = ks_report_operator_columns (&n_columns);
  cpu = ks_report_find_column (columns, n_columns, "host_thread_ns");
  g_assert_nonnull (cpu);
  for (guint pass = 0; pass < 2; pass++)
    {
      g_autoptr(KsTrace) trace = pass == 0 ? ks_trace_load (file, NULL, NULL, &error) : load ();
      g_autoptr(KsAnalysis) analysis = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
      g_autoptr(KsReport) report = ks_report_new_operators (trace, analysis, FALSE);
      GtkWidget *page = ks_operators_page_new ();
      GtkWidget *window = show (page);
      GtkWidget *view = ks_test_find_descendant (page, GTK_TYPE_COLUMN_VIEW, NULL);

      g_assert_no_error (error);
      ks_page_set_analysis (KS_PAGE (page), trace, analysis);
      column = find_column (GTK_COLUMN_VIEW (view), "CPU time");
      g_assert_nonnull (column);
      g_assert_cmpint (gtk_column_view_column_get_visible (column), ==, pass == 0);
      g_assert_cmpint (ks_report_has_thread_time (report), ==, pass == 0);
      if (pass == 0)
        {
          const KsOperatorStats *ops = ks_analysis_get_operators (analysis, KS_OPERATOR_BY_NAME, NULL);

          for (guint i = 0; i < 2; i++)
            {
              g_autofree char *text = ks_report_get_text (report, cpu, i);

              /* aten::mm: 150 µs of its 500; aten::add: none */
              g_assert_cmpstr (ks_trace_string (trace, ops[i].name), ==, i == 0 ? "aten::mm" : "aten::add");
              g_assert_cmpstr (text, ==, i == 0 ? "150 µs" : "-");
            }
        }
      gtk_window_destroy (GTK_WINDOW (window));
    }
  g_unlink (path);
  g_rmdir (dir);
}

/* Sorted by Lifetime, longest first, the allocations never freed lead:
 * they live to the end of the trace and beyond. The report says so in
 * words; its machine value stays -1. */
static void
test_memory_lifetime (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-lifetime-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "lifetime.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) analysis = NULL;
  g_autoptr(KsReport) report = NULL;
  const KsReportColumn *columns, *lifetime;
  GtkWidget *page, *window, *view;
  GtkColumnViewColumn *column;
  GListModel *model;
  const KsAllocation *allocs;
  guint n_allocs, n_columns;
  /* Times from the first event, at 10 µs */
  static const gint64 expected_alloc_ts[] = { 10000, 30000, 20000, 0 };

  g_assert_true (g_file_set_contents (path, lifetime_trace, -1, NULL));
  trace = ks_trace_load (file, NULL, NULL, &error);
  g_assert_no_error (error);
  analysis = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  allocs = ks_analysis_get_allocations (analysis, &n_allocs);
  g_assert_cmpuint (n_allocs, ==, 4);

  columns = ks_report_allocation_columns (&n_columns);
  lifetime = ks_report_find_column (columns, n_columns, "lifetime_ns");
  report = ks_report_new_allocations (trace, analysis);
  for (guint i = 0; i < n_allocs; i++)
    {
      g_auto(KsReportValue) value = { 0 };
      g_autofree char *text = ks_report_get_text (report, lifetime, i);

      ks_report_get_value (report, lifetime, i, &value);
      g_assert_cmpint (value.i, ==, allocs[i].lifetime_ns);
      if (allocs[i].free_ts < 0)
        {
          g_assert_cmpint (value.i, ==, -1);
          g_assert_cmpstr (text, ==, "not freed");
        }
      else
        g_assert_cmpstr (text, !=, "not freed");
    }

  page = ks_memory_page_new ();
  model = show_table (page, trace, analysis, &window, &view);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 4);

  column = find_column (GTK_COLUMN_VIEW (view), ks_report_column_get_title (lifetime));
  g_assert_nonnull (column);
  gtk_column_view_sort_by_column (GTK_COLUMN_VIEW (view), column, GTK_SORT_DESCENDING);
  for (guint position = 0; position < 4; position++)
    {
      g_autoptr(KsRowItem) item = g_list_model_get_item (model, position);
      const KsAllocation *a = &allocs[ks_row_item_get_index (item)];

      g_assert_cmpint (a->alloc_ts, ==, expected_alloc_ts[position]);
      if (position < 2)
        g_assert_cmpint (a->free_ts, <, 0);
      else
        g_assert_cmpint (a->free_ts, >=, 0);
    }
  gtk_test_widget_wait_for_draw (window);
  g_assert_nonnull (ks_test_find_label (page, "not freed"));

  /* Shortest first: the unfreed ones go last */
  gtk_column_view_sort_by_column (GTK_COLUMN_VIEW (view), column, GTK_SORT_ASCENDING);
  {
    g_autoptr(KsRowItem) first = g_list_model_get_item (model, 0);
    g_autoptr(KsRowItem) last = g_list_model_get_item (model, 3);

    g_assert_cmpint (allocs[ks_row_item_get_index (first)].alloc_ts, ==, 0);
    g_assert_cmpint (allocs[ks_row_item_get_index (last)].free_ts, <, 0);
  }

  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
  g_rmdir (dir);
}

/* seed_cnn: allocations made on the main thread inside an operator are
 * named for it, also where the thread's Python frames and operators do
 * not nest lane by lane (the step's lanes start deeper than the
 * frames'). Times and names from the JSON, with python3. */
static void
test_memory_operators (void)
{
  g_autoptr(KsTrace) trace = load_fixture ("seed_cnn.pt.trace.json.gz");
  g_autoptr(GError) error = NULL;
  g_autoptr(KsAnalysis) analysis = NULL;
  g_autoptr(KsReport) report = NULL;
  const KsReportColumn *columns, *op;
  const KsAllocation *allocs;
  GtkWidget *page, *window, *view;
  GListModel *model;
  guint n_allocs, n_columns, n_named = 0, n_main = 0;
  static const struct { gint64 ts; gint32 device; const char *op; } expected[] = {
    { 900673, -1, "aten::empty" },
    { 7003561, 0, "aten::empty_strided" },
    { 7794290, 0, "aten::cudnn_convolution" },
    { 8180514, 0, "aten::empty" },
  };

  analysis = ks_analysis_compute (trace, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  allocs = ks_analysis_get_allocations (analysis, &n_allocs);
  columns = ks_report_allocation_columns (&n_columns);
  op = ks_report_find_column (columns, n_columns, "operator");
  report = ks_report_new_allocations (trace, analysis);

  for (guint e = 0; e < G_N_ELEMENTS (expected); e++)
    {
      gboolean found = FALSE;

      for (guint i = 0; i < n_allocs; i++)
        if (allocs[i].alloc_ts == expected[e].ts && allocs[i].device == expected[e].device)
          {
            g_autofree char *text = ks_report_get_text (report, op, i);

            g_assert_cmpstr (text, ==, expected[e].op);
            found = TRUE;
          }
      g_assert_true (found);
    }

  /* 87 of the 96 allocations of the main thread (tid 455) lie in one of
   * its operators; nine of 8 bytes lie in none. */
  for (guint i = 0; i < n_allocs; i++)
    if (allocs[i].thread != KS_NO_INDEX && trace->threads[allocs[i].thread].tid == 455)
      {
        n_main++;
        n_named += allocs[i].operator_name != 0;
      }
  g_assert_cmpuint (n_main, ==, 96);
  g_assert_cmpuint (n_named, ==, 87);

  /* The page's column shows it. */
  page = ks_memory_page_new ();
  model = show_table (page, trace, analysis, &window, &view);
  gtk_column_view_sort_by_column (GTK_COLUMN_VIEW (view),
                                  find_column (GTK_COLUMN_VIEW (view), ks_report_column_get_title (
                                                 ks_report_find_column (columns, n_columns, "bytes"))),
                                  GTK_SORT_DESCENDING);
  gtk_test_widget_wait_for_draw (window);
  g_assert_cmpuint (g_list_model_get_n_items (model), >, 0);
  g_assert_nonnull (ks_test_find_label (page, "aten::cudnn_convolution"));

  gtk_window_destroy (GTK_WINDOW (window));
}

/* A trace of CPU work only: the Summary says that it has no GPU
 * activity and what to record, not that no rule found a problem. */
static void
test_summary_no_gpu (void)
{
  static const char cpu_trace[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":50}"
    "]}";
  g_autoptr(KsTrace) trace = load_json_text (cpu_trace);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsAnalysis) analysis = NULL;
  GtkWidget *page, *window, *row;

  analysis = ks_analysis_compute (trace, NULL, NULL, NULL, &error);
  g_assert_no_error (error);

  page = ks_summary_page_new ();
  window = show (page);
  ks_page_set_analysis (KS_PAGE (page), trace, analysis);
  gtk_test_widget_wait_for_draw (window);

  row = ks_test_find_descendant (page, ADW_TYPE_ACTION_ROW, "no-gpu-row");
  g_assert_nonnull (row);
  g_assert_true (gtk_widget_get_mapped (row));
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, "No GPU activity in this trace");
  g_assert_nonnull (strstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), "ProfilerActivity.CUDA"));
  g_assert_null (ks_test_find_label (page, "No rule found a problem"));

  gtk_window_destroy (GTK_WINDOW (window));
}

static GtkWidget *
visible_status_page (GtkWidget *page)
{
  GtkWidget *status = ks_test_find_descendant (page, ADW_TYPE_STATUS_PAGE, NULL);

  return status != NULL && gtk_widget_get_mapped (status) ? status : NULL;
}

/* Pages with nothing to show say why and what to record: Operators of a
 * trace without operators (the lifetime trace: a kernel and allocator
 * events), Memory of one without allocator events; the fixture fills
 * both. */
static void
test_empty_pages (void)
{
  static const char cpu_trace[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100}"
    "]}";
  g_autoptr(KsTrace) cpu = load_json_text (cpu_trace);
  g_autoptr(KsTrace) gpu = load_json_text (lifetime_trace);
  g_autoptr(KsTrace) lb = load ();
  g_autoptr(KsAnalysis) cpu_analysis = NULL;
  g_autoptr(KsAnalysis) gpu_analysis = NULL;
  g_autoptr(KsAnalysis) lb_analysis = ks_analysis_compute (lb, NULL, NULL, NULL, NULL);
  GtkWidget *ops = ks_operators_page_new ();
  GtkWidget *mem = ks_memory_page_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  GtkWidget *window, *status;

  cpu_analysis = ks_analysis_compute (cpu, NULL, NULL, NULL, NULL);
  gpu_analysis = ks_analysis_compute (gpu, NULL, NULL, NULL, NULL);

  gtk_widget_set_hexpand (ops, TRUE);
  gtk_widget_set_hexpand (mem, TRUE);
  gtk_box_append (GTK_BOX (box), ops);
  gtk_box_append (GTK_BOX (box), mem);
  window = show (box);

  ks_page_set_analysis (KS_PAGE (ops), gpu, gpu_analysis);
  ks_page_set_analysis (KS_PAGE (mem), cpu, cpu_analysis);
  gtk_test_widget_wait_for_draw (window);
  status = visible_status_page (ops);
  g_assert_nonnull (status);
  g_assert_cmpstr (adw_status_page_get_title (ADW_STATUS_PAGE (status)), ==, "No Operators");
  g_assert_nonnull (strstr (adw_status_page_get_description (ADW_STATUS_PAGE (status)), "torch.profiler"));
  status = visible_status_page (mem);
  g_assert_nonnull (status);
  g_assert_cmpstr (adw_status_page_get_title (ADW_STATUS_PAGE (status)), ==, "No Memory Events");
  g_assert_nonnull (strstr (adw_status_page_get_description (ADW_STATUS_PAGE (status)), "profile_memory=True"));

  /* With operators and memory, the tables are back. */
  ks_page_set_analysis (KS_PAGE (ops), lb, lb_analysis);
  ks_page_set_analysis (KS_PAGE (mem), lb, lb_analysis);
  gtk_test_widget_wait_for_draw (window);
  g_assert_null (visible_status_page (ops));
  g_assert_null (visible_status_page (mem));
  g_assert_true (gtk_widget_get_mapped (ks_test_find_descendant (mem, GTK_TYPE_COLUMN_VIEW, NULL)));

  gtk_window_destroy (GTK_WINDOW (window));
}

/* The step-time chart: one long first step (a warm-up) does not flatten
 * the others, it is clipped and marked; each bar has a tooltip naming
 * the step, its time and its parts; a click on a bar goes to that step. */
static void
test_step_chart (void)
{
  KsStep steps[4] = { { 0 } };
  g_autoptr(KsTrace) trace = load ();
  g_autoptr(KsAnalysis) analysis = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  const KsStep *lb_steps;
  guint n_lb;
  GtkWidget *page, *window, *area;
  GtkEventController *click;
  g_autofree char *tip = NULL;
  Events ev = { 0 };

  /* 100 ms, then 10, 11 and 12 ms: the scale follows the 12 ms step. */
  for (guint i = 0; i < 4; i++)
    {
      steps[i].start = i * 200000000;
      steps[i].end = steps[i].start + (i == 0 ? 100000000 : (9 + i) * 1000000);
      steps[i].parts[KS_STEP_KERNEL] = steps[i].end - steps[i].start;
    }
  g_assert_cmpint (ks_chart_steps_scale (steps, 4), <, 20000000);
  g_assert_cmpint (ks_chart_steps_scale (steps, 4), >=, 12000000);
  /* Steps of about the same length keep the longest as the scale. */
  g_assert_cmpint (ks_chart_steps_scale (steps + 1, 3), ==, 12000000);

  page = ks_summary_page_new ();
  window = show (page);
  g_signal_connect (page, "navigate", G_CALLBACK (ks_test_page_navigate_cb), &ev);
  ks_page_set_analysis (KS_PAGE (page), trace, analysis);
  gtk_test_widget_wait_for_draw (window);
  lb_steps = ks_analysis_get_steps (analysis, &n_lb);
  g_assert_cmpuint (n_lb, >, 1);

  area = ks_test_find_descendant (page, GTK_TYPE_DRAWING_AREA, "step-chart");
  g_assert_nonnull (area);
  g_assert_true (gtk_widget_get_has_tooltip (area));
  g_assert_cmpint (ks_chart_steps_at (gtk_widget_get_height (area), n_lb, 18 * 1 + 9), ==, 1);
  tip = ks_chart_steps_tooltip (trace, analysis, 1);
  g_assert_true (g_str_has_prefix (tip, ks_trace_string (trace, lb_steps[1].name)));
  g_assert_nonnull (strstr (tip, ks_step_part_get_title (KS_STEP_KERNEL)));

  /* A click on the second bar goes to the second step. */
  click = ks_test_find_controller (area, "ks-step-chart-click");
  g_assert_nonnull (click);
  g_signal_emit_by_name (click, "released", 1, 100.0, 18.0 * 1 + 9);
  g_assert_cmpuint (ev.n_navigate, ==, 1);
  g_assert_cmpint (ev.start, ==, lb_steps[1].start);
  g_assert_cmpint (ev.end, ==, lb_steps[1].end);

  gtk_window_destroy (GTK_WINDOW (window));
}

/* Two ranks of HTA's corpus in a folder: a row each; activating rank 0
 * shows its steps (python3: ProfilerStep#551 at 1682725898079292 µs to
 * #552's end at 1682725899309581 µs) and names its rows. */
static void
test_ranks (void)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  g_autofree char *rank0 = g_build_filename (shared ? shared : ".", "corpus", "hta", "timeline_analysis",
                                             "sampled_rank-0.json.gz", NULL);
  g_autofree char *rank1 = g_build_filename (shared ? shared : ".", "corpus", "hta", "trace_filter",
                                             "sampled_rank-1.json.gz", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *link0 = NULL;
  g_autofree char *link1 = NULL;
  g_autoptr(GFile) folder = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) analysis = NULL;
  GtkWidget *page, *comms, *window, *view;
  GListModel *model;
  Events ev = { 0 };
  guint32 track;
  guint n;

  if (!g_file_test (rank0, G_FILE_TEST_EXISTS) || !g_file_test (rank1, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("the corpus (KS_SHARED_DIR/corpus/hta) is not available");
      return;
    }
  dir = g_dir_make_tmp ("ks-pages-ranks-XXXXXX", &error);
  g_assert_no_error (error);
  link0 = g_build_filename (dir, "rank-0.json.gz", NULL);
  link1 = g_build_filename (dir, "rank-1.json.gz", NULL);
  g_assert_cmpint (symlink (rank0, link0), ==, 0);
  g_assert_cmpint (symlink (rank1, link1), ==, 0);
  folder = g_file_new_for_path (dir);
  trace = ks_trace_load (folder, NULL, NULL, &error);
  g_assert_no_error (error);
  analysis = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);

  page = ks_ranks_page_new ();
  window = show (page);
  g_signal_connect (page, "navigate", G_CALLBACK (ks_test_page_navigate_cb), &ev);
  ks_page_set_analysis (KS_PAGE (page), trace, analysis);
  gtk_test_widget_wait_for_draw (window);
  view = ks_test_find_descendant (page, GTK_TYPE_COLUMN_VIEW, NULL);
  model = G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (view)));
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 2);
  g_assert_cmpuint (ks_ranks_page_get_selected_track (KS_RANKS_PAGE (page)), ==, KS_NO_INDEX);

  g_signal_emit_by_name (view, "activate", 0u);
  g_assert_cmpuint (ev.n_navigate, ==, 1);
  g_assert_cmpint (ev.end - ev.start, ==, (1682725899309581 - 1682725898079292) * 1000);
  track = ks_ranks_page_get_selected_track (KS_RANKS_PAGE (page));
  g_assert_cmpuint (track, <, trace->n_tracks);
  g_assert_cmpuint (trace->tracks[track].group, ==, trace->ranks[0].group);
  /* the straggler, then how the clocks were put on one */
  {
    GtkWidget *label = ks_test_find_label (page, ks_analysis_get_straggler (analysis) == KS_NO_INDEX
                                                   ? "No rank waits for another. "
                                                   : "The others wait for rank ");

    g_assert_nonnull (label);
    g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (label)), "lock"));
  }
  gtk_window_destroy (GTK_WINDOW (window));

  comms = ks_comms_page_new ();
  window = show (comms);
  ks_page_set_analysis (KS_PAGE (comms), trace, analysis);
  gtk_test_widget_wait_for_draw (window);
  view = ks_test_find_descendant (comms, GTK_TYPE_COLUMN_VIEW, NULL);
  model = G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (view)));
  ks_analysis_get_comm_stats (analysis, &n);
  g_assert_cmpuint (n, >, 0);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, n);
  gtk_window_destroy (GTK_WINDOW (window));

  g_unlink (link0);
  g_unlink (link1);
  g_rmdir (dir);
}

static gboolean
odd_rows (gpointer page,
          guint    index)
{
  return index % 2 == 1;
}

static KsReport *
rows_report (guint n)
{
  return ks_report_new_for_rows (NULL, NULL, NULL, "rows", NULL, 0, NULL, n);
}

/* A table of 300,000 rows (a large snapshot's allocations) is filtered a
 * batch at a time between frames, and ends with every row the filter
 * keeps; a small one is filtered at once, as before. */
static void
test_large_table (void)
{
  GtkColumnView *view = g_object_ref_sink (GTK_COLUMN_VIEW (gtk_column_view_new (NULL)));
  KsPageTable table = { 0 };

  ks_page_table_init (&table, view, odd_rows, NULL);
  ks_page_table_set_report (&table, rows_report (10));
  g_assert_true (ks_page_table_get_complete (&table));
  g_assert_cmpuint (ks_page_table_get_n_shown (&table), ==, 5);

  /* Millions of rows (a memory snapshot's allocations) come a step at a
   * time between frames, filtered as they arrive and sorted
   * incrementally; all of them arrive. */
  ks_page_table_set_report (&table, rows_report (300000));
  g_assert_true (gtk_sort_list_model_get_incremental (table.sort_model));
  g_assert_false (ks_page_table_get_complete (&table));
  g_assert_cmpuint (ks_page_table_get_n_shown (&table), <, 150000);
  WAIT_FOR (ks_page_table_get_complete (&table));
  g_assert_cmpuint (ks_page_table_get_n_shown (&table), ==, 150000);
  g_assert_cmpuint (ks_page_table_get_index_at (&table, 149999), ==, 299999);

  ks_page_table_refilter (&table);
  WAIT_FOR (ks_page_table_get_complete (&table));
  g_assert_cmpuint (ks_page_table_get_n_shown (&table), ==, 150000);

  ks_page_table_set_report (&table, rows_report (10));
  g_assert_true (ks_page_table_get_complete (&table));
  g_assert_cmpuint (ks_page_table_get_n_shown (&table), ==, 5);

  ks_page_table_clear (&table);
  g_object_unref (view);
}

int
main (int   argc,
      char *argv[])
{
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;

  g_test_add_func ("/app/pages/operators", test_operators);
  g_test_add_func ("/app/pages/operators-thread-time", test_operators_thread_time);
  g_test_add_func ("/app/pages/kernels", test_kernels);
  g_test_add_func ("/app/pages/memory", test_memory);
  g_test_add_func ("/app/pages/memory-lifetime", test_memory_lifetime);
  g_test_add_func ("/app/pages/memory-operators", test_memory_operators);
  g_test_add_func ("/app/pages/summary-no-gpu", test_summary_no_gpu);
  g_test_add_func ("/app/pages/empty-pages", test_empty_pages);
  g_test_add_func ("/app/pages/step-chart", test_step_chart);
  g_test_add_func ("/app/pages/ranks", test_ranks);
  g_test_add_func ("/app/pages/large-table", test_large_table);

  return g_test_run ();
}
