/* test-summary-ranks.c: the Summary page of a job of two ranks, a GPU card
 * and a series of step bars per rank
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <string.h>

#include "ks-test-gtk.h"
#include "ks-trace-loader.h"
#include "pages/ks-summary-page.h"

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

static GtkWidget *
show (GtkWidget *page)
{
  GtkWidget *window = gtk_window_new ();

  gtk_window_set_default_size (GTK_WINDOW (window), 600, 900);
  gtk_window_set_child (GTK_WINDOW (window), page);
  gtk_window_present (GTK_WINDOW (window));
  gtk_test_widget_wait_for_draw (window);
  return window;
}

/* The first label with the "numeric" class under @widget. */
static GtkWidget *
find_numeric (GtkWidget *widget)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_has_css_class (widget, "numeric"))
    return widget;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_numeric (c);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The value shown by the row named @row_name in @group. */
static const char *
row_value (GtkWidget  *group,
           const char *row_name)
{
  GtkWidget *row = ks_test_find_descendant (group, ADW_TYPE_ACTION_ROW, row_name);
  GtkWidget *label;

  g_assert_nonnull (row);
  label = find_numeric (row);
  g_assert_nonnull (label);
  return gtk_label_get_label (GTK_LABEL (label));
}

/* The tensorboard_trace_handler files of two DDP ranks, both on GPU 0:
 * each rank's card shows the busy share and kernels that the rank's file
 * alone gives, not the figure of GPU 0 over both; each rank has its own
 * labelled series of 4 step bars, and a click on a bar goes to that
 * rank's step. */
static void
test_rank_folder (void)
{
  g_autoptr(KsTrace) trace = load_fixture ("ddp_gloo_2ranks");
  g_autoptr(KsAnalysis) analysis = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  g_autofree char *merged = g_strdup_printf ("%.1f %%", ks_analysis_get_gpu (analysis, 0)->busy_pct);
  const KsRankStep *rank_steps;
  guint n_rank_steps;
  GtkWidget *page, *window;
  KsTestPageEvents ev = { 0 };

  g_assert_cmpuint (trace->n_ranks, ==, 2);
  page = ks_summary_page_new ();
  window = show (page);
  g_signal_connect (page, "navigate", G_CALLBACK (ks_test_page_navigate_cb), &ev);
  ks_page_set_analysis (KS_PAGE (page), trace, analysis);
  gtk_test_widget_wait_for_draw (window);

  /* No card adds the two ranks' GPU 0 up. */
  g_assert_null (ks_test_find_label (page, "GPU 0 · NVIDIA H200"));
  for (gint32 rank = 0; rank < 2; rank++)
    {
      g_autofree char *name = g_strdup_printf ("ddp_gloo_2ranks/rank%d.pt.trace.json.gz", rank);
      g_autoptr(KsTrace) alone = load_fixture (name);
      g_autoptr(KsAnalysis) alone_analysis = ks_analysis_compute (alone, NULL, NULL, NULL, NULL);
      const KsGpuSummary *gpu = ks_analysis_get_gpu (alone_analysis, 0);
      g_autofree char *group_name = g_strdup_printf ("gpu-rank%d", rank);
      g_autofree char *title = g_strdup_printf ("Rank %d · GPU 0 · NVIDIA H200", rank);
      g_autofree char *busy = g_strdup_printf ("%.1f %%", gpu->busy_pct);
      g_autofree char *kernels = g_strdup_printf ("%" G_GUINT64_FORMAT " kernels · ", gpu->n_kernels);
      GtkWidget *group = ks_test_find_descendant (page, ADW_TYPE_PREFERENCES_GROUP, group_name);

      g_assert_nonnull (group);
      g_assert_cmpstr (adw_preferences_group_get_title (ADW_PREFERENCES_GROUP (group)), ==, title);
      g_assert_cmpstr (row_value (group, "busy-row"), ==, busy);
      g_assert_cmpstr (row_value (group, "busy-row"), !=, merged);
      g_assert_true (g_str_has_prefix (row_value (group, "kernels-row"), kernels));
      g_assert_true (g_str_has_prefix (row_value (group, "steps-row"), "4 steps · mean "));
    }

  /* One series per rank, titled, in place of 8 bars in turn. */
  g_assert_null (ks_test_find_descendant (page, GTK_TYPE_DRAWING_AREA, "step-chart"));
  g_assert_nonnull (ks_test_find_label (page, "Rank 0: 4 steps"));
  g_assert_nonnull (ks_test_find_label (page, "Rank 1: 4 steps"));
  rank_steps = ks_analysis_get_rank_steps (analysis, &n_rank_steps);
  g_assert_cmpuint (n_rank_steps, ==, 8);
  for (gint32 rank = 0; rank < 2; rank++)
    {
      g_autofree char *name = g_strdup_printf ("step-chart-rank%d", rank);
      GtkWidget *area = ks_test_find_descendant (page, GTK_TYPE_DRAWING_AREA, name);
      GtkEventController *click;
      const KsRankStep *second = NULL;
      guint seen = 0;

      g_assert_nonnull (area);
      g_assert_cmpint (gtk_drawing_area_get_content_height (GTK_DRAWING_AREA (area)), ==, 4 * 18);
      for (guint i = 0; i < n_rank_steps; i++)
        if (rank_steps[i].rank == rank && seen++ == 1)
          second = &rank_steps[i];
      g_assert_nonnull (second);

      /* The second bar of the rank is its second step. */
      click = ks_test_find_controller (area, "ks-step-chart-click");
      g_assert_nonnull (click);
      g_signal_emit_by_name (click, "released", 1, 100.0, 18.0 * 1 + 9);
      g_assert_cmpuint (ev.n_navigate, ==, (guint)rank + 1);
      g_assert_cmpint (ev.start, ==, second->start);
      g_assert_cmpint (ev.end, ==, second->end);
    }

  gtk_window_destroy (GTK_WINDOW (window));
}

/* The same job recorded whole (the torchrun launcher and two ranks): a
 * card and a series of bars per rank, none for the launcher. */
static void
test_rank_recording (void)
{
  g_autoptr(KsTrace) trace = load_fixture ("ddp_gloo_2ranks.kscope");
  g_autoptr(KsAnalysis) analysis = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  const KsRankStats *rows;
  guint n_rows;
  GtkWidget *page, *window;

  rows = ks_analysis_get_rank_stats (analysis, &n_rows);
  g_assert_cmpuint (n_rows, ==, 2);
  page = ks_summary_page_new ();
  window = show (page);
  ks_page_set_analysis (KS_PAGE (page), trace, analysis);
  gtk_test_widget_wait_for_draw (window);
  for (gint32 rank = 0; rank < 2; rank++)
    {
      g_autofree char *group_name = g_strdup_printf ("gpu-rank%d", rank);
      g_autofree char *chart_name = g_strdup_printf ("step-chart-rank%d", rank);
      g_autofree char *title = g_strdup_printf ("Rank %d · GPU 0", rank);
      g_autofree char *steps = g_strdup_printf ("%u steps · mean ", rows[rank].steps);
      GtkWidget *group = ks_test_find_descendant (page, ADW_TYPE_PREFERENCES_GROUP, group_name);

      g_assert_cmpint (rows[rank].rank, ==, rank);
      g_assert_nonnull (group);
      g_assert_true (g_str_has_prefix (adw_preferences_group_get_title (ADW_PREFERENCES_GROUP (group)), title));
      g_assert_true (g_str_has_prefix (row_value (group, "steps-row"), steps));
      g_assert_nonnull (ks_test_find_descendant (page, GTK_TYPE_DRAWING_AREA, chart_name));
    }
  g_assert_null (ks_test_find_descendant (page, ADW_TYPE_PREFERENCES_GROUP, "gpu-rank2"));
  g_assert_null (ks_test_find_descendant (page, GTK_TYPE_DRAWING_AREA, "step-chart"));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A trace of one process keeps one card per GPU and one step chart. */
static void
test_one_rank (void)
{
  g_autoptr(KsTrace) trace = load_fixture ("ddp_gloo_2ranks/rank0.pt.trace.json.gz");
  g_autoptr(KsAnalysis) analysis = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  GtkWidget *page, *window;

  page = ks_summary_page_new ();
  window = show (page);
  ks_page_set_analysis (KS_PAGE (page), trace, analysis);
  gtk_test_widget_wait_for_draw (window);
  g_assert_nonnull (ks_test_find_descendant (page, GTK_TYPE_DRAWING_AREA, "step-chart"));
  g_assert_null (ks_test_find_descendant (page, ADW_TYPE_PREFERENCES_GROUP, "gpu-rank0"));
  g_assert_nonnull (ks_test_find_label (page, "GPU 0 · NVIDIA H200"));
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;

  g_test_add_func ("/summary/ranks/folder", test_rank_folder);
  g_test_add_func ("/summary/ranks/recording", test_rank_recording);
  g_test_add_func ("/summary/ranks/one-rank", test_one_rank);
  return g_test_run ();
}
