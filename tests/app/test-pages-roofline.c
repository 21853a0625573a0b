/* test-pages-roofline.c: the Roofline page over the H200 shapes trace:
 * its table, clicks on the plot's points and the rows, what it draws,
 * and a trace without shapes
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <string.h>

#include "ks-session.h"
#include "ks-test-gtk.h"
#include "ks-trace-loader.h"
#include "ks-window.h"
#include "pages/ks-kernels-page.h"
#include "pages/ks-operators-page.h"
#include "pages/ks-roofline-page.h"
#include "pages/ks-row-item.h"

#define WAIT_FOR(cond) KS_TEST_WAIT_FOR (cond, 20000)

typedef struct
{
  KsTrace          *trace;
  KsAnalysis       *analysis;
  GtkWidget        *window;
  GtkWidget        *page;
  GtkWidget        *view;
  GListModel       *model;
  KsTestPageEvents  ev;
} Fixture;

static void
fixture_open (Fixture    *f,
              const char *name)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;

  memset (f, 0, sizeof *f);
  f->trace = ks_trace_load (file, NULL, NULL, &error);
  g_assert_no_error (error);
  f->analysis = ks_analysis_compute (f->trace, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  f->page = ks_roofline_page_new ();
  g_signal_connect (f->page, "navigate", G_CALLBACK (ks_test_page_navigate_cb), &f->ev);
  g_signal_connect (f->page, "highlight", G_CALLBACK (ks_test_page_highlight_cb), &f->ev);
  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), 700, 800);
  gtk_window_set_child (GTK_WINDOW (f->window), f->page);
  gtk_window_present (GTK_WINDOW (f->window));
  ks_page_set_analysis (KS_PAGE (f->page), f->trace, f->analysis);
  /* computed in a worker */
  WAIT_FOR (ks_roofline_page_get_roofline (KS_ROOFLINE_PAGE (f->page)) != NULL);
  gtk_test_widget_wait_for_draw (f->window);
  f->view = ks_test_find_descendant (f->page, GTK_TYPE_COLUMN_VIEW, NULL);
  f->model = G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (f->view)));
}

static void
fixture_close (Fixture *f)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
  g_clear_object (&f->analysis);
  g_clear_object (&f->trace);
}

static guint
index_at (Fixture *f,
          guint    position)
{
  g_autoptr(KsRowItem) item = g_list_model_get_item (f->model, position);

  g_assert_nonnull (item);
  return ks_row_item_get_index (item);
}

/* The by-name row of operator @name. */
static guint
row_of (KsRoofline *roofline,
        KsTrace    *trace,
        const char *name)
{
  guint n;
  const KsRooflineRow *rows = ks_roofline_get_operators (roofline, FALSE, &n);

  for (guint i = 0; i < n; i++)
    if (g_strcmp0 (ks_trace_string (trace, rows[i].name), name) == 0)
      return i;
  g_assert_not_reached ();
}

/* The plot drawn into a texture: its pixel at (@x, @y) as 0..255 RGB. */
static void
plot_pixel (GtkWidget *plot,
            double     x,
            double     y,
            guint8     rgb[3])
{
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (plot);
  g_autoptr(GtkSnapshot) snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  int w = gtk_widget_get_width (plot), h = gtk_widget_get_height (plot);
  g_autofree guint8 *pixels = g_malloc (w * h * 4);
  GskRenderer *renderer = gtk_native_get_renderer (gtk_widget_get_native (plot));
  const guint8 *p;

  gdk_paintable_snapshot (paintable, snapshot, w, h);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (renderer, node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  gdk_texture_download (texture, pixels, w * 4);
  /* CAIRO_FORMAT_ARGB32 order on little-endian: B, G, R, A */
  p = pixels + ((int)y * w + (int)x) * 4;
  rgb[0] = p[2];
  rgb[1] = p[1];
  rgb[2] = p[0];
}

static void
test_page (void)
{
  Fixture f;
  KsRoofline *roofline;
  const KsRooflineRow *rows;
  const KsTrack *track;
  GtkWidget *plot, *label;
  GtkEventController *click;
  guint n, mm, sum, top;
  double x, y, mx, my;
  guint8 rgb[3];

  fixture_open (&f, "shapes_bf16.pt.trace.json.gz");
  roofline = ks_roofline_page_get_roofline (KS_ROOFLINE_PAGE (f.page));
  rows = ks_roofline_get_operators (roofline, FALSE, &n);

  /* every operator with a cost, most GPU time first */
  /* the 8 formula operators and 17 elementwise ones and reductions */
  g_assert_cmpuint (n, ==, 25);
  g_assert_cmpuint (g_list_model_get_n_items (f.model), ==, n);
  top = index_at (&f, 0);
  g_assert_cmpstr (ks_trace_string (f.trace, rows[top].name), ==, "aten::convolution_backward");

  label = ks_test_find_label (f.page, "Peak of NVIDIA H200");
  g_assert_nonnull (label);
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (label)), "bf16 989.5"));
  label = ks_test_find_label (f.page, "aten::convolution_backward runs at 3 % of the bf16 peak");
  g_assert_nonnull (label);
  g_assert_true (gtk_widget_get_visible (label));

  /* the steps' hardware FLOPs utilisation: FlopCounterMode's 21185675264
   * FLOPs a step over each step's span, of the bf16 peak */
  {
    const KsRooflineStep *steps;
    guint n_steps;
    double total = 0, lo = 100, hi = 0;
    g_autofree char *want = NULL;

    steps = ks_roofline_get_steps (roofline, &n_steps);
    g_assert_cmpuint (n_steps, ==, 3);
    for (guint i = 0; i < n_steps; i++)
      {
        double pct = 21185675264.0 / (steps[i].end - steps[i].start) / 1e3 / 989.5 * 100;

        total += pct;
        lo = MIN (lo, pct);
        hi = MAX (hi, pct);
      }
    want = g_strdup_printf ("Hardware FLOPs utilisation of 3 steps: mean %.1f %%, %.1f to %.1f %%", total / 3, lo, hi);
    label = ks_test_find_label (f.page, "Hardware FLOPs utilisation");
    g_assert_nonnull (label);
    g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, want);
  }

  /* activating a row marks the operator and shows its longest call */
  g_signal_emit_by_name (f.view, "activate", 0u);
  g_assert_cmpstr (ks_trace_string (f.trace, f.ev.highlighted), ==, "aten::convolution_backward");
  track = &f.trace->tracks[rows[top].longest_track];
  g_assert_cmpint (f.ev.start, ==, track->start[rows[top].longest_slice]);
  g_assert_cmpint (f.ev.end, ==, track->end[rows[top].longest_slice]);

  /* clicking aten::mm's point does the same and selects its row */
  plot = ks_test_find_descendant (f.page, GTK_TYPE_DRAWING_AREA, NULL);
  mm = row_of (roofline, f.trace, "aten::mm");
  g_assert_true (ks_roofline_page_get_point (KS_ROOFLINE_PAGE (f.page), mm, &mx, &my));
  g_assert_cmpfloat (mx, >, 0);
  g_assert_cmpfloat (mx, <, gtk_widget_get_width (plot));
  g_assert_cmpfloat (my, >, 0);
  g_assert_cmpfloat (my, <, gtk_widget_get_height (plot));
  click = ks_test_find_controller (plot, "ks-roofline-click");
  g_signal_emit_by_name (click, "pressed", 1, mx, my);
  g_assert_cmpstr (ks_trace_string (f.trace, f.ev.highlighted), ==, "aten::mm");
  track = &f.trace->tracks[rows[mm].longest_track];
  g_assert_cmpint (f.ev.start, ==, track->start[rows[mm].longest_slice]);
  {
    GtkSelectionModel *selection = gtk_column_view_get_model (GTK_COLUMN_VIEW (f.view));

    g_assert_cmpuint (index_at (&f, gtk_single_selection_get_selected (GTK_SINGLE_SELECTION (selection))), ==, mm);
  }

  /* an operator without FLOPs has no point; a click beside the points does nothing */
  sum = row_of (roofline, f.trace, "aten::sum");
  g_assert_cmpuint (rows[sum].flops, ==, 0);
  g_assert_false (ks_roofline_page_get_point (KS_ROOFLINE_PAGE (f.page), sum, &x, &y));
  f.ev.highlighted = 0;
  g_signal_emit_by_name (click, "pressed", 1, 2.0, 2.0);
  g_assert_cmpuint (f.ev.highlighted, ==, 0);

  /* what is drawn: aten::mm is memory-bound in bf16 (intensity 137 under
   * the ridge at 206), an orange point; aten::convolution_backward is
   * compute-bound, a blue one */
  g_assert_cmpint (rows[mm].bound, ==, KS_BOUND_MEMORY);
  plot_pixel (plot, mx, my, rgb);
  g_test_message ("aten::mm at %.0f,%.0f: %u %u %u", mx, my, rgb[0], rgb[1], rgb[2]);
  g_assert_cmpuint (rgb[0], >, rgb[2] + 60);
  g_assert_true (ks_roofline_page_get_point (KS_ROOFLINE_PAGE (f.page), top, &x, &y));
  g_assert_cmpint (rows[top].bound, ==, KS_BOUND_COMPUTE);
  plot_pixel (plot, x, y, rgb);
  g_test_message ("aten::convolution_backward at %.0f,%.0f: %u %u %u", x, y, rgb[0], rgb[1], rgb[2]);
  g_assert_cmpuint (rgb[2], >, rgb[0] + 60);

  fixture_close (&f);
}

/* Without shapes the page says which option records them. */
static void
test_no_shapes (void)
{
  Fixture f;
  GtkWidget *status;

  fixture_open (&f, "small_mlp_60steps.kscope");
  status = ks_test_find_descendant (f.page, ADW_TYPE_STATUS_PAGE, NULL);
  g_assert_nonnull (status);
  g_assert_true (gtk_widget_get_visible (status));
  g_assert_cmpstr (adw_status_page_get_title (ADW_STATUS_PAGE (status)), ==, "No FLOPs");
  g_assert_nonnull (strstr (adw_status_page_get_description (ADW_STATUS_PAGE (status)), "record_shapes=True"));
  g_assert_nonnull (strstr (adw_status_page_get_description (ADW_STATUS_PAGE (status)), "autograd-shapes-nvtx"));
  g_assert_false (gtk_widget_is_visible (f.view));
  fixture_close (&f);
}

static GtkColumnViewColumn *
column_titled (GtkWidget  *view,
               const char *title)
{
  GListModel *columns = gtk_column_view_get_columns (GTK_COLUMN_VIEW (view));

  for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);

      if (g_strcmp0 (gtk_column_view_column_get_title (column), title) == 0)
        return column;
    }
  g_assert_not_reached ();
}

static guint
first_index (GListModel *model)
{
  g_autoptr(KsRowItem) item = g_list_model_get_item (model, 0);

  g_assert_nonnull (item);
  return ks_row_item_get_index (item);
}

/* The Operators and Kernels pages' FLOP columns: shown from the header's
 * menu, filled once the roofline is computed, sorted by FLOPs. */
static void
test_flop_columns (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "shapes_bf16.pt.trace.json.gz", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = ks_trace_load (file, NULL, NULL, &error);
  g_autoptr(KsAnalysis) analysis = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  g_autoptr(KsRoofline) roofline = ks_roofline_new (trace, analysis, NULL);
  const KsOperatorStats *ops;
  const KsKernelStats *kernels;
  const KsRooflineRow *krows;
  GtkWidget *window, *box, *op_page, *k_page, *op_view, *k_view;
  GtkColumnViewColumn *op_flops, *k_flops;
  GListModel *op_model, *k_model;
  guint n, best = 0;

  g_assert_no_error (error);
  window = gtk_window_new ();
  box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  op_page = ks_operators_page_new ();
  k_page = ks_kernels_page_new ();
  gtk_widget_set_hexpand (op_page, TRUE);
  gtk_widget_set_hexpand (k_page, TRUE);
  gtk_box_append (GTK_BOX (box), op_page);
  gtk_box_append (GTK_BOX (box), k_page);
  gtk_window_set_default_size (GTK_WINDOW (window), 1600, 800);
  gtk_window_set_child (GTK_WINDOW (window), box);
  gtk_window_present (GTK_WINDOW (window));
  ks_page_set_analysis (KS_PAGE (op_page), trace, analysis);
  ks_page_set_analysis (KS_PAGE (k_page), trace, analysis);
  op_view = ks_test_find_descendant (op_page, GTK_TYPE_COLUMN_VIEW, NULL);
  k_view = ks_test_find_descendant (k_page, GTK_TYPE_COLUMN_VIEW, NULL);
  op_model = G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (op_view)));
  k_model = G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (k_view)));

  /* hidden until asked for, like the other extra columns */
  op_flops = column_titled (op_view, "FLOPs");
  k_flops = column_titled (k_view, "FLOPs");
  g_assert_false (gtk_column_view_column_get_visible (op_flops));
  gtk_column_view_column_set_visible (op_flops, TRUE);
  gtk_column_view_column_set_visible (k_flops, TRUE);

  /* aten::mm: 36 calls, 20,133,150,720 FLOPs (test-roofline-cli.py recomputes them) */
  WAIT_FOR (ks_test_find_label (op_page, "20.1 G") != NULL);

  /* sorted by FLOPs, the most first: aten::mm of the operators */
  ops = ks_analysis_get_operators (analysis, KS_OPERATOR_BY_NAME, &n);
  gtk_column_view_sort_by_column (GTK_COLUMN_VIEW (op_view), op_flops, GTK_SORT_DESCENDING);
  g_assert_cmpstr (ks_trace_string (trace, ops[first_index (op_model)].name), ==, "aten::mm");
  /* and the kernel that inherited the most of the kernels */
  krows = ks_roofline_get_kernels (roofline, &n);
  for (guint i = 1; i < n; i++)
    if (krows[i].flops > krows[best].flops)
      best = i;
  g_assert_cmpuint (krows[best].flops, >, 0);
  kernels = ks_analysis_get_kernels (analysis, &n);
  gtk_column_view_sort_by_column (GTK_COLUMN_VIEW (k_view), k_flops, GTK_SORT_DESCENDING);
  g_assert_cmpuint (kernels[first_index (k_model)].name, ==, krows[best].name);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* In the window: the side panel's Roofline page follows the session,
 * and activating its first row shows that operator's longest call. */
static void
test_window (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "shapes_fp32.pt.trace.json.gz", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  KsWindow *window = ks_window_new (NULL);
  KsSession *session;
  KsTrace *trace;
  GtkWidget *page, *view;
  KsRoofline *roofline;
  const KsRooflineRow *rows;
  const KsTrack *track;
  GListModel *model;
  guint n, top;
  double v0, v1;

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, file);
  WAIT_FOR (ks_window_get_session (window) != NULL && !ks_window_get_loading (window));
  session = ks_window_get_session (window);
  WAIT_FOR (ks_session_get_analysis (session) != NULL);
  trace = ks_session_get_trace (session);

  ks_window_show_page (window, "roofline");
  page = ks_test_find_descendant (GTK_WIDGET (window), KS_TYPE_ROOFLINE_PAGE, NULL);
  g_assert_nonnull (page);
  WAIT_FOR (ks_roofline_page_get_roofline (KS_ROOFLINE_PAGE (page)) != NULL);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  g_assert_true (gtk_widget_is_visible (page));
  roofline = ks_roofline_page_get_roofline (KS_ROOFLINE_PAGE (page));
  rows = ks_roofline_get_operators (roofline, FALSE, &n);
  view = ks_test_find_descendant (page, GTK_TYPE_COLUMN_VIEW, NULL);
  model = G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (view)));
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, n);
  {
    g_autoptr(KsRowItem) item = g_list_model_get_item (model, 0);

    top = ks_row_item_get_index (item);
  }
  g_assert_cmpstr (ks_trace_string (trace, rows[top].name), ==, "aten::convolution_backward");

  g_signal_emit_by_name (view, "activate", 0u);
  track = &trace->tracks[rows[top].longest_track];
  WAIT_FOR ((ks_session_get_visible (session, &v0, &v1),
             v0 <= track->start[rows[top].longest_slice] && v1 >= track->end[rows[top].longest_slice] &&
             v1 - v0 < trace->duration_ns / 2.0));
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;

  g_test_add_func ("/pages-roofline/page", test_page);
  g_test_add_func ("/pages-roofline/no-shapes", test_no_shapes);
  g_test_add_func ("/pages-roofline/window", test_window);
  g_test_add_func ("/pages-roofline/flop-columns", test_flop_columns);

  return g_test_run ();
}
