/* test-pages-steps.c: the Steps page, its rows checked against steps
 * found from the raw trace
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <string.h>

#include "ks-format.h"
#include "ks-test-gtk.h"
#include "ks-trace-loader.h"
#include "ks-window.h"
#include "pages/ks-row-item.h"
#include "pages/ks-stats-page.h"

#define WAIT_FOR(cond) KS_TEST_WAIT_FOR (cond, 30000)

/* The iterations of nosteps_slow.pt.trace.json.gz (start, duration in ns),
 * as tests/analysis/nosteps-reference.py finds them in the raw JSON: the
 * DataLoader's batches; the first allocates and is the warm-up. */
static const gint64 slow[5][2] = {
  { 301169, 9437541 }, { 9738710, 3017149 }, { 12755859, 4587149 }, { 17343008, 4471588 },
  { 21814596, 2459466 },
};

typedef struct
{
  KsTrace          *trace;
  KsAnalysis       *analysis;
  GtkWidget        *window;
  GtkWidget        *page;
  GtkColumnView    *view;
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
  f->analysis = ks_analysis_compute (f->trace, NULL, NULL, NULL, NULL);
  f->page = ks_stats_page_new ("steps");
  g_signal_connect (f->page, "navigate", G_CALLBACK (ks_test_page_navigate_cb), &f->ev);
  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), 900, 600);
  gtk_window_set_child (GTK_WINDOW (f->window), f->page);
  gtk_window_present (GTK_WINDOW (f->window));
  ks_page_set_analysis (KS_PAGE (f->page), f->trace, f->analysis);
  gtk_test_widget_wait_for_draw (f->window);
  f->view = GTK_COLUMN_VIEW (ks_test_find_descendant (f->page, GTK_TYPE_COLUMN_VIEW, NULL));
  f->model = G_LIST_MODEL (gtk_column_view_get_model (f->view));
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

static GtkColumnViewColumn *
find_column (Fixture    *f,
             const char *title)
{
  GListModel *columns = gtk_column_view_get_columns (f->view);

  for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);

      if (g_strcmp0 (gtk_column_view_column_get_title (column), title) == 0)
        return column;
    }
  return NULL;
}

/* A loop without step markers: a row per inferred iteration, in order,
 * with its duration, its parts, and the warm-up and inferred marks; the
 * summary says how they were found; a sort by duration puts the warm-up
 * first; activating a row goes to that step. */
static void
test_inferred (void)
{
  const char *parts[] = { "Kernel", "Memcpy", "Memset", "Runtime", "DataLoader", "CPU exec", "Other" };
  Fixture f;
  GtkWidget *label;
  g_autofree char *mean = NULL;
  g_autofree char *want = NULL;
  gint64 sum = 0;

  fixture_open (&f, "nosteps_slow.pt.trace.json.gz");
  g_assert_cmpuint (g_list_model_get_n_items (f.model), ==, 5);
  for (guint i = 0; i < 5; i++)
    {
      g_autofree char *dur = ks_time_format_duration (slow[i][1]);

      g_assert_cmpuint (index_at (&f, i), ==, i);
      g_assert_nonnull (ks_test_find_label (GTK_WIDGET (f.view), dur));
      if (i > 0)
        sum += slow[i][1];
    }
  g_assert_nonnull (find_column (&f, "Duration"));
  /* one process: no Rank column */
  g_assert_false (gtk_column_view_column_get_visible (find_column (&f, "Rank")));
  g_assert_nonnull (find_column (&f, "Warm-up"));
  g_assert_nonnull (find_column (&f, "Inferred"));
  for (guint p = 0; p < G_N_ELEMENTS (parts); p++)
    g_assert_nonnull (find_column (&f, parts[p]));

  /* The first row is the warm-up, by name, and its name is not cut. */
  label = ks_test_find_label (GTK_WIDGET (f.view), "step 0 (warm-up)");
  g_assert_nonnull (label);
  {
    g_autoptr(GtkColumnViewColumn) first = g_list_model_get_item (gtk_column_view_get_columns (f.view), 0);
    int natural;

    gtk_widget_measure (label, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL, NULL);
    g_assert_cmpint (gtk_column_view_column_get_fixed_width (first), >=, natural);
  }

  mean = ks_time_format_duration (sum / 4);
  want = g_strdup_printf ("5 steps, mean %s. The mean leaves out 1 warm-up step. The trace marks no steps: "
                          "they are inferred from the DataLoader's batches.", mean);
  label = ks_test_find_descendant (f.page, GTK_TYPE_LABEL, NULL);
  g_assert_true (gtk_widget_get_visible (label));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, want);

  /* Longest first: 0, 2, 3, 1, 4 */
  gtk_column_view_sort_by_column (f.view, find_column (&f, "Duration"), GTK_SORT_DESCENDING);
  g_assert_cmpuint (index_at (&f, 0), ==, 0);
  g_assert_cmpuint (index_at (&f, 1), ==, 2);
  g_assert_cmpuint (index_at (&f, 2), ==, 3);
  g_assert_cmpuint (index_at (&f, 3), ==, 1);
  g_assert_cmpuint (index_at (&f, 4), ==, 4);

  /* The second row now is step 2: activating it shows step 2. */
  g_signal_emit_by_name (f.view, "activate", 1);
  g_assert_cmpuint (f.ev.n_navigate, ==, 1);
  g_assert_cmpint (f.ev.start, ==, slow[2][0]);
  g_assert_cmpint (f.ev.end, ==, slow[2][0] + slow[2][1]);
  fixture_close (&f);
}

/* A rank folder: each rank's 4 steps, with the Rank column beside the
 * step's name, which both ranks share. */
static void
test_ranks (void)
{
  Fixture f;
  g_autoptr(GtkColumnViewColumn) second = NULL;
  const KsStep *steps;
  guint n, per_rank[2] = { 0, 0 };

  fixture_open (&f, "ddp_gloo_2ranks");
  steps = ks_analysis_get_steps (f.analysis, &n);
  g_assert_cmpuint (g_list_model_get_n_items (f.model), ==, 8);
  g_assert_cmpuint (n, ==, 8);
  for (guint i = 0; i < n; i++)
    {
      gint32 rank = ks_trace_rank_of_track (f.trace, steps[i].track);

      g_assert_true (rank == 0 || rank == 1);
      per_rank[rank]++;
    }
  g_assert_cmpuint (per_rank[0], ==, 4);
  g_assert_cmpuint (per_rank[1], ==, 4);
  second = g_list_model_get_item (gtk_column_view_get_columns (f.view), 1);
  g_assert_cmpstr (gtk_column_view_column_get_title (second), ==, "Rank");
  g_assert_true (gtk_column_view_column_get_visible (second));
  fixture_close (&f);
}

/* An nvidia-smi log has no steps: the page says why it is empty. */
static void
test_empty (void)
{
  Fixture f;
  GtkWidget *status;

  fixture_open (&f, "nvsmi_h200_query.csv");
  g_assert_cmpuint (g_list_model_get_n_items (f.model), ==, 0);
  status = ks_test_find_descendant (f.page, ADW_TYPE_STATUS_PAGE, NULL);
  g_assert_nonnull (status);
  g_assert_true (gtk_widget_get_visible (status));
  g_assert_cmpstr (adw_status_page_get_title (ADW_STATUS_PAGE (status)), ==, "No Steps");
  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (f.view)) &&
                  gtk_widget_get_mapped (GTK_WIDGET (f.view)));
  fixture_close (&f);
}

/* In the window: the Steps tab of the side panel, and a row activated
 * there zooms the timeline to its step. */
static void
test_window (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "nosteps_slow.pt.trace.json.gz", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  KsWindow *window = ks_window_new (NULL);
  GtkWidget *page, *view;
  KsSession *session;
  double start, end;

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, file);
  WAIT_FOR (ks_window_get_session (window) != NULL &&
            ks_session_get_analysis (ks_window_get_session (window)) != NULL);
  session = ks_window_get_session (window);
  page = ks_window_get_page (window, "steps");
  g_assert_true (KS_IS_STATS_PAGE (page));
  ks_window_show_page (window, "steps");
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  view = ks_test_find_descendant (page, GTK_TYPE_COLUMN_VIEW, NULL);
  WAIT_FOR (g_list_model_get_n_items (G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (view)))) == 5);

  g_signal_emit_by_name (view, "activate", 3);
  ks_session_get_visible (session, &start, &end);
  g_assert_cmpfloat (start, <=, slow[3][0]);
  g_assert_cmpfloat (end, >=, slow[3][0] + slow[3][1]);
  /* zoomed in: the step fills most of the view, not the whole trace */
  g_assert_cmpfloat (end - start, <, 2.0 * slow[3][1]);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;

  g_test_add_func ("/app/pages/steps/inferred", test_inferred);
  g_test_add_func ("/app/pages/steps/ranks", test_ranks);
  g_test_add_func ("/app/pages/steps/empty", test_empty);
  g_test_add_func ("/app/pages/steps/window", test_window);
  return g_test_run ();
}
