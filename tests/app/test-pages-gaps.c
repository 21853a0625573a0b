/* test-pages-gaps.c: the analysis pages in the window, gap navigation
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <string.h>

#include "ks-format.h"
#include "ks-report.h"
#include "ks-selection-page.h"
#include "ks-test-gtk.h"
#include "ks-application.h"
#include "ks-window.h"
#include "ks-trace-loader.h"
#include "pages/ks-gaps-page.h"
#include "pages/ks-kernels-page.h"

/* Gaps of loader_bound (> 10 µs), computed independently with a python3
 * union of kernel/memcpy/memset intervals inside the ProfilerStep spans:
 * the three largest, and the first three in time order. */
#define LB_FILE "loader_bound.pt.trace.json.gz"
static const gint64 largest[][2] = {
  { 442639, 33305178 },
  { 103942129, 133285778 },
  { 40058717, 69343606 },
};
static const gint64 by_time[][2] = {
  { 442639, 33305178 },
  { 33611994, 33775450 },
  { 33776186, 34244761 },
};
#define LB_N_GAPS 133

static char *screenshot_dir;

#define WAIT_FOR(cond) KS_TEST_WAIT_FOR (cond, 20000)

/* Saves the window's content as PNG when KS_TEST_SCREENSHOT_DIR is set. */
static void
save_screenshot (GtkWidget  *widget,
                 const char *name)
{
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GtkSnapshot) snapshot = NULL;
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *path = NULL;

  if (screenshot_dir == NULL)
    return;
  /* let the page transitions finish */
  ks_test_spin (800);
  widget = adw_application_window_get_content (ADW_APPLICATION_WINDOW (widget));
  paintable = gtk_widget_paintable_new (widget);
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, gtk_widget_get_width (widget), gtk_widget_get_height (widget));
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  if (node == NULL)
    return;
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (widget)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, gtk_widget_get_width (widget),
                                                              gtk_widget_get_height (widget)));
  path = g_build_filename (screenshot_dir, name, NULL);
  gdk_texture_save_to_png (texture, path);
}

/* The first row that leads to a place in the timeline */
static GtkWidget *
find_place (GtkWidget *widget)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (ADW_IS_ACTION_ROW (child) && g_object_get_data (G_OBJECT (child), "ks-range") != NULL)
        return child;
      found = find_place (child);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* What ] and [ do: the next or previous gap, when there is an analysis. */
static gboolean
step_gap (KsWindow *window,
          int       direction)
{
  return ks_session_get_analysis (ks_window_get_session (window)) != NULL &&
         ks_gaps_page_step (KS_GAPS_PAGE (ks_window_get_page (window, "gaps")), direction);
}

static KsWindow *
open_window (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), LB_FILE, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  KsWindow *window = ks_window_new (NULL);

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, file);
  WAIT_FOR (ks_window_get_session (window) != NULL);

  g_assert_true (KS_IS_SESSION (ks_window_get_session (window)));
  WAIT_FOR (ks_session_get_analysis (ks_window_get_session (window)) != NULL);
  g_assert_false (ks_session_get_busy (ks_window_get_session (window)));
  ks_test_wait_pages_filled (GTK_WIDGET (window));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  return window;
}

/* The selected range is the gap, and the view shows it with a margin. */
static void
assert_at_gap (KsSession    *session,
               const gint64  gap[2])
{
  gint64 r0, r1;
  double v0, v1;

  g_assert_true (ks_session_get_range (session, &r0, &r1));
  g_assert_cmpint (r0, ==, gap[0]);
  g_assert_cmpint (r1, ==, gap[1]);
  ks_session_get_visible (session, &v0, &v1);
  g_assert_cmpfloat (v0, <, gap[0]);
  g_assert_cmpfloat (v1, >, gap[1]);
  /* zoomed to it: the gap fills most of the view */
  g_assert_cmpfloat (gap[1] - gap[0], >, 0.6 * (v1 - v0));
}

/* Whether a menu button of @widget offers @action in its menu. */
static gboolean
model_has_action (GMenuModel *model,
                  const char *action)
{
  for (int i = 0; model != NULL && i < g_menu_model_get_n_items (model); i++)
    {
      g_autofree char *name = NULL;
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (model, i, G_MENU_LINK_SECTION);
      g_autoptr(GMenuModel) submenu = g_menu_model_get_item_link (model, i, G_MENU_LINK_SUBMENU);

      if (g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_ACTION, "s", &name) &&
          g_str_equal (name, action))
        return TRUE;
      if (model_has_action (section, action) || model_has_action (submenu, action))
        return TRUE;
    }
  return FALSE;
}

static gboolean
menu_has_action (GtkWidget  *widget,
                 const char *action)
{
  if (GTK_IS_MENU_BUTTON (widget) && model_has_action (ks_test_open_menu (GTK_MENU_BUTTON (widget)), action))
    return TRUE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL; child = gtk_widget_get_next_sibling (child))
    if (menu_has_action (child, action))
      return TRUE;
  return FALSE;
}

static void
test_keys_largest_first (void)
{
  KsWindow *window = open_window ();
  KsSession *session = ks_window_get_session (window);
  GtkWidget *gaps_page = ks_window_get_page (window, "gaps");

  g_assert_true (KS_IS_GAPS_PAGE (gaps_page));
  g_assert_nonnull (ks_window_get_page (window, "summary"));
  g_assert_nonnull (ks_window_get_page (window, "operators"));
  g_assert_nonnull (ks_window_get_page (window, "kernels"));
  g_assert_nonnull (ks_window_get_page (window, "memory"));
  g_assert_false (ks_gaps_page_get_order_by_time (KS_GAPS_PAGE (gaps_page)));

  /* ] and [ are bound to the gap actions on the window */
  g_assert_true (ks_test_has_shortcut (GTK_WIDGET (window), "bracketright", "analysis.next-gap"));
  g_assert_true (ks_test_has_shortcut (GTK_WIDGET (window), "bracketleft", "analysis.previous-gap"));

  /* ] three times: the three largest gaps, the Selection page shown (the
   * user guide: "its class and cause on the Selection page") */
  ks_window_show_page (window, "gaps");
  for (guint i = 0; i < G_N_ELEMENTS (largest); i++)
    {
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "analysis.next-gap", NULL));
      assert_at_gap (session, largest[i]);
      g_assert_true (gtk_widget_is_ancestor (ks_window_get_page (window, "selection"),
                                             gtk_stack_get_visible_child (GTK_STACK (gtk_widget_get_ancestor (gaps_page, GTK_TYPE_STACK)))));
    }

  /* [ goes back */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "analysis.previous-gap", NULL));
  assert_at_gap (session, largest[1]);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "analysis.previous-gap", NULL));
  assert_at_gap (session, largest[0]);
  /* and stops at the first */
  g_assert_false (step_gap (window, -1));
  assert_at_gap (session, largest[0]);

  /* With the rows scrolled down to the CPU threads, ] (to the second
   * largest gap) brings the GPU row of the gap into view, and the Selection page says what the gap is. */
  {
    KsTimeline *timeline = ks_window_get_timeline (window);
    KsTimelineLayout *layout = ks_timeline_get_layout (timeline);
    GtkAdjustment *vadj = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (timeline));
    KsSelectionPage *selection = KS_SELECTION_PAGE (ks_window_get_page (window, "selection"));
    KsAnalysis *analysis = ks_session_get_analysis (session);
    const KsGap *gap = &ks_analysis_get_gaps (analysis, NULL)[ks_analysis_get_gaps_by_duration (analysis, NULL)[1]];
    const KsRow *row = ks_timeline_layout_get_row (layout, ks_timeline_layout_find_track_row (layout, gap->next_track));
    double value;

    gtk_adjustment_set_value (vadj, gtk_adjustment_get_upper (vadj));
    g_assert_cmpfloat (gtk_adjustment_get_value (vadj), >, row->y + row->height);
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "analysis.next-gap", NULL));
    assert_at_gap (session, largest[1]);
    value = gtk_adjustment_get_value (vadj);
    g_assert_cmpfloat (row->y, >=, value);
    g_assert_cmpfloat (row->y + row->height, <=, value + gtk_adjustment_get_page_size (vadj));

    /* in words, the analysis' titles, never its identifiers ("host_wait") */
    g_assert_cmpstr (ks_selection_page_lookup_value (selection, "Idle Gap", "Class"), ==,
                     ks_gap_class_get_title (gap->klass));
    g_assert_null (strchr (ks_selection_page_lookup_value (selection, "Idle Gap", "Class"), '_'));
    g_assert_cmpuint (gap->cause_name, !=, 0);
    g_assert_true (g_str_has_prefix (ks_selection_page_lookup_value (selection, "Idle Gap", "Cause"),
                                     ks_gap_cause_get_title (gap->cause)));
    g_assert_false (g_str_has_prefix (ks_selection_page_lookup_value (selection, "Idle Gap", "Cause"),
                                      ks_gap_cause_to_string (gap->cause)));
    g_assert_true (g_str_has_suffix (ks_selection_page_lookup_value (selection, "Idle Gap", "Cause"),
                                     ks_trace_string (ks_session_get_trace (session), gap->cause_name)));
  }

  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  save_screenshot (GTK_WIDGET (window), "pages-gaps.png");

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_time_order_toggle (void)
{
  KsWindow *window = open_window ();
  KsSession *session = ks_window_get_session (window);
  GtkWidget *gaps_page = ks_window_get_page (window, "gaps");
  GtkWidget *time_button;
  GtkWidget *view;
  g_autoptr(GSettings) settings = NULL;
  GtkSelectionModel *model;

  ks_window_show_page (window, "gaps");
  time_button = ks_test_find_descendant (gaps_page, GTK_TYPE_TOGGLE_BUTTON, NULL);
  /* the second toggle of the pair is "Time" */
  time_button = gtk_widget_get_next_sibling (time_button);
  g_assert_true (GTK_IS_TOGGLE_BUTTON (time_button));
  view = ks_test_find_descendant (gaps_page, GTK_TYPE_COLUMN_VIEW, NULL);
  model = gtk_column_view_get_model (GTK_COLUMN_VIEW (view));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, LB_N_GAPS);

  /* The largest gap first, then click Time: ] goes on in time order
   * from the selected gap */
  g_assert_true (step_gap (window, 1));
  assert_at_gap (session, largest[0]);
  g_assert_true (gtk_widget_activate (time_button));
  WAIT_FOR (ks_gaps_page_get_order_by_time (KS_GAPS_PAGE (gaps_page)));
  for (guint i = 1; i < G_N_ELEMENTS (by_time); i++)
    {
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "analysis.next-gap", NULL));
      assert_at_gap (session, by_time[i]);
    }

  /* The order is a setting when the schema is installed */
  if (g_settings_schema_source_lookup (g_settings_schema_source_get_default (), "org.kinescope.Kinescope", TRUE))
    {
      g_autofree char *order = NULL;

      settings = g_settings_new ("org.kinescope.Kinescope");
      order = g_settings_get_string (settings, "gap-order");
      g_assert_cmpstr (order, ==, "time");
      g_settings_set_string (settings, "gap-order", "duration");
      g_assert_false (ks_gaps_page_get_order_by_time (KS_GAPS_PAGE (gaps_page)));
    }

  /* Activating a row zooms to that gap: the third row in duration order */
  g_signal_emit_by_name (view, "activate", 2u);
  assert_at_gap (session, largest[2]);

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_filter_and_threshold (void)
{
  KsWindow *window = open_window ();
  GtkWidget *gaps_page = ks_window_get_page (window, "gaps");
  GtkWidget *entry = ks_test_find_descendant (gaps_page, GTK_TYPE_SEARCH_ENTRY, NULL);
  GtkWidget *view = ks_test_find_descendant (gaps_page, GTK_TYPE_COLUMN_VIEW, NULL);
  GListModel *model = G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (view)));
  g_autoptr(GSettings) settings = NULL;

  /* Typing a cause keeps only those gaps: the 4 DataLoader ones */
  gtk_editable_set_text (GTK_EDITABLE (entry), "dataloader");
  WAIT_FOR (g_list_model_get_n_items (model) == 4);
  gtk_editable_set_text (GTK_EDITABLE (entry), "");
  WAIT_FOR (g_list_model_get_n_items (model) == LB_N_GAPS);

  /* A new threshold recomputes: 5 gaps are longer than 1 ms */
  if (g_settings_schema_source_lookup (g_settings_schema_source_get_default (), "org.kinescope.Kinescope", TRUE))
    {
      settings = g_settings_new ("org.kinescope.Kinescope");
      g_settings_set_double (settings, "gap-threshold-us", 1000.0);
      WAIT_FOR (ks_session_get_analysis (ks_window_get_session (window)) != NULL &&
                ks_analysis_get_options (ks_session_get_analysis (ks_window_get_session (window)))->gap_threshold_ns == 1000000);
      WAIT_FOR (g_list_model_get_n_items (model) == 5);
      g_settings_reset (settings, "gap-threshold-us");
      WAIT_FOR (ks_session_get_analysis (ks_window_get_session (window)) != NULL &&
                g_list_model_get_n_items (model) == LB_N_GAPS);

      /* and so does a new kernel wait threshold */
      g_settings_set_double (settings, "kernel-wait-us", 0.5);
      WAIT_FOR (ks_session_get_analysis (ks_window_get_session (window)) != NULL &&
                ks_analysis_get_options (ks_session_get_analysis (ks_window_get_session (window)))->kernel_wait_ns == 500);
      g_settings_reset (settings, "kernel-wait-us");
      WAIT_FOR (ks_session_get_analysis (ks_window_get_session (window)) != NULL &&
                ks_analysis_get_options (ks_session_get_analysis (ks_window_get_session (window)))->kernel_wait_ns == 30000);
    }

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_summary_advice (void)
{
  KsWindow *window = open_window ();
  KsSession *session = ks_window_get_session (window);
  GtkWidget *summary = ks_window_get_page (window, "summary");
  GtkWidget *advice, *row;
  double v0, v1;

  ks_window_show_page (window, "summary");
  gtk_test_widget_wait_for_draw (summary);

  /* Idle time by cause: the DataLoader first; its row leads to the
   * largest gap */
  {
    GtkWidget *causes = ks_test_find_descendant (summary, ADW_TYPE_PREFERENCES_GROUP, "causes-group");
    GtkWidget *place;

    g_assert_nonnull (causes);
    place = find_place (causes);
    g_assert_nonnull (place);
    g_assert_true (g_str_has_prefix (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (place)),
                                     "DataLoader: enumerate(DataLoader)"));
    g_signal_emit_by_name (place, "activated");
    ks_session_get_visible (session, &v0, &v1);
    g_assert_cmpfloat (v0, <, largest[0][0]);
    g_assert_cmpfloat (v1, >, largest[0][1]);
    g_assert_cmpfloat (v1 - v0, <, 1.2 * (largest[0][1] - largest[0][0]));
  }

  /* Figures say what they count: 176 kernels in 4.60 ms, 133 gaps */
  g_assert_nonnull (ks_test_find_label (summary, "176 kernels · 4.60 ms"));
  g_assert_nonnull (ks_test_find_label (summary, "133 gaps · "));

  /* One expander per advice, named by its rule */
  advice = ks_test_find_descendant (summary, ADW_TYPE_EXPANDER_ROW, "dataloader");
  g_assert_nonnull (advice);
  g_assert_nonnull (ks_test_find_descendant (summary, ADW_TYPE_EXPANDER_ROW, "low-gpu-busy"));
  g_assert_nonnull (ks_test_find_descendant (summary, ADW_TYPE_EXPANDER_ROW, "pageable-memcpy"));
  g_assert_nonnull (ks_test_find_descendant (summary, ADW_TYPE_EXPANDER_ROW, "sync-calls"));
  g_assert_null (ks_test_find_descendant (summary, ADW_TYPE_EXPANDER_ROW, "amp"));

  /* The estimates of the GPU summary, with their definitions as tooltips:
   * 3.1 % and 54.8 % for this trace (tests/analysis/test-occupancy.c). */
  {
    GtkWidget *sm = ks_test_find_descendant (summary, ADW_TYPE_ACTION_ROW, "sm-efficiency-row");
    GtkWidget *occ = ks_test_find_descendant (summary, ADW_TYPE_ACTION_ROW, "occupancy-row");
    g_assert_nonnull (sm);
    g_assert_nonnull (occ);
    g_assert_nonnull (ks_test_find_label (sm, "3.1 %"));
    g_assert_nonnull (ks_test_find_label (occ, "54.8 %"));
    g_assert_cmpstr (gtk_widget_get_tooltip_text (sm), ==, ks_metric_get_definition (KS_METRIC_SM_EFFICIENCY));
    g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (occ)), ==,
                     ks_metric_get_title (KS_METRIC_OCCUPANCY));
  }

  /* Its first place is the longest DataLoader call: activating it zooms there */
  adw_expander_row_set_expanded (ADW_EXPANDER_ROW (advice), TRUE);
  row = find_place (advice);
  g_assert_nonnull (row);
  g_signal_emit_by_name (row, "activated");
  ks_session_get_visible (session, &v0, &v1);
  /* enumerate(DataLoader) of ProfilerStep#2: 520.462 µs .. 32.838 ms */
  g_assert_cmpfloat (v0, <=, 520462);
  g_assert_cmpfloat (v1, >=, 32837568);
  g_assert_cmpfloat (v1 - v0, <, 40000000);
  ks_window_show_page (window, "summary");
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  save_screenshot (GTK_WIDGET (window), "pages-summary.png");

  /* Count Copies as Busy: the busy time becomes the union of kernels,
   * memcpy and memset in the window, 6032324 of 138630810 ns (python3) */
  {
    GtkWidget *toggle = ks_test_find_descendant (summary, GTK_TYPE_SWITCH, "include-copies");
    KsAnalysis *analysis;

    g_assert_nonnull (toggle);
    g_assert_false (gtk_switch_get_active (GTK_SWITCH (toggle)));
    gtk_switch_set_active (GTK_SWITCH (toggle), TRUE);
    WAIT_FOR ((analysis = ks_session_get_analysis (ks_window_get_session (window))) != NULL &&
              ks_analysis_get_options (analysis)->busy_includes_copies);
    ks_test_wait_pages_filled (GTK_WIDGET (window));
    g_assert_cmpint (ks_analysis_get_gpu (analysis, 0)->busy_in_window_ns, ==, 6032324);
    g_assert_cmpint (ks_analysis_get_gpu (analysis, 0)->window_ns, ==, 138630810);
    toggle = ks_test_find_descendant (summary, GTK_TYPE_SWITCH, "include-copies");
    g_assert_true (gtk_switch_get_active (GTK_SWITCH (toggle)));
    /* the switch went to the setting, not to the window */
    g_assert_true (g_settings_get_boolean (ks_application_get_settings (), "busy-includes-copies"));
  }

  /* The main menu's toggle is the setting's action: off again, the
   * session analyses again and the Summary's switch follows. */
  {
    KsAnalysis *analysis;
    GtkWidget *toggle;

    g_assert_true (menu_has_action (GTK_WIDGET (window), "settings.busy-includes-copies"));
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "settings.busy-includes-copies", NULL));
    g_assert_false (g_settings_get_boolean (ks_application_get_settings (), "busy-includes-copies"));
    WAIT_FOR ((analysis = ks_session_get_analysis (ks_window_get_session (window))) != NULL &&
              !ks_analysis_get_options (analysis)->busy_includes_copies);
    g_assert_false (ks_session_get_analysis_options (ks_window_get_session (window))->busy_includes_copies);
    ks_test_wait_pages_filled (GTK_WIDGET (window));
    toggle = ks_test_find_descendant (summary, GTK_TYPE_SWITCH, "include-copies");
    g_assert_false (gtk_switch_get_active (GTK_SWITCH (toggle)));
  }

  /* The Selection page counts busy time by the same rule: over the whole
   * trace, with copies counted, its range's busy time is the Summary's
   * whole-trace union of kernels, memcpy and memset. */
  {
    KsSelectionPage *selection = KS_SELECTION_PAGE (ks_window_get_page (window, "selection"));
    KsTrace *trace = ks_session_get_trace (session);
    gint64 busy = ks_analysis_get_gpu (ks_session_get_analysis (session), 0)->busy_ns;
    g_autofree char *busy_text = ks_time_format_duration (busy);
    g_autofree char *expected = g_strdup_printf ("%.1f %% (%s)", 100.0 * busy / trace->duration_ns, busy_text);

    ks_session_select_range (session, 0, trace->duration_ns);
    g_assert_true (ks_selection_page_get_busy (selection));
    WAIT_FOR (!ks_selection_page_get_busy (selection));
    g_assert_cmpstr (ks_selection_page_lookup_value (selection, "GPU Busy", "GPU 0"), ==, expected);
  }

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
count_notify_cb (GObject    *object,
                 GParamSpec *pspec,
                 guint      *count)
{
  (*count)++;
}

/* The pages of the window template follow the session by binding: a
 * new trace on the session empties them, its analysis refills them; a
 * page's "navigate" moves the session's view. */
static void
test_session_binding (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "gpt_3steps.pt.trace.json.gz", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = ks_trace_load (file, NULL, NULL, &error);
  g_autoptr(KsAnalysis) expected = NULL;
  g_autoptr(KsAnalysis) first = NULL;
  KsWindow *window = open_window ();
  KsSession *session = ks_window_get_session (window);
  GtkWidget *page = ks_window_get_page (window, "kernels");
  GtkWidget *view = ks_test_find_descendant (page, GTK_TYPE_COLUMN_VIEW, NULL);
  GListModel *model = G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (view)));
  guint n_first, n_second, notified = 0;
  double v0, v1;

  g_assert_no_error (error);
  g_assert_true (KS_IS_KERNELS_PAGE (page));
  g_assert_true (ks_page_get_session (KS_PAGE (page)) == session);
  first = g_object_ref (ks_session_get_analysis (session));
  g_assert_true (ks_page_get_analysis (KS_PAGE (page)) == first);
  ks_analysis_get_kernels (first, &n_first);
  g_assert_cmpuint (n_first, >, 0);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, n_first);

  expected = ks_analysis_compute (trace, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  ks_analysis_get_kernels (expected, &n_second);
  g_assert_cmpuint (n_second, >, 0);
  g_assert_cmpuint (n_second, !=, n_first);

  /* The new trace: the old analysis goes at once, the page empties */
  g_signal_connect (page, "notify::analysis", G_CALLBACK (count_notify_cb), &notified);
  ks_session_set_trace (session, trace);
  g_assert_true (ks_session_get_busy (session));
  g_assert_null (ks_session_get_analysis (session));
  g_assert_null (ks_page_get_analysis (KS_PAGE (page)));
  g_assert_cmpuint (notified, ==, 1);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, 0);
  /* the timeline follows the session's trace too */
  g_assert_true (ks_session_get_trace (ks_timeline_get_session (ks_window_get_timeline (window))) == trace);

  WAIT_FOR (ks_session_get_analysis (session) != NULL);
  g_assert_false (ks_session_get_busy (session));
  ks_test_wait_pages_filled (GTK_WIDGET (window));
  g_assert_cmpuint (notified, ==, 2);
  g_assert_true (ks_page_get_analysis (KS_PAGE (page)) == ks_session_get_analysis (session));
  g_assert_true (ks_page_get_trace (KS_PAGE (page)) == trace);
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, n_second);

  /* The views follow every trace of the session, a third one too: the
   * timeline draws the session's layout, the Selection page its ranges. */
  {
    KsTimeline *timeline = ks_window_get_timeline (window);
    KsSelectionPage *selection = KS_SELECTION_PAGE (ks_window_get_page (window, "selection"));
    g_autoptr(KsTrace) third = ks_trace_load (file, NULL, NULL, &error);

    g_assert_no_error (error);
    g_assert_true (ks_timeline_get_layout (timeline) == ks_session_get_layout (session));
    ks_session_set_trace (session, third);
    g_assert_nonnull (ks_session_get_layout (session));
    g_assert_true (ks_timeline_get_layout (timeline) == ks_session_get_layout (session));
    WAIT_FOR (ks_session_get_analysis (session) != NULL);
    ks_session_select_range (session, 0, third->duration_ns);
    g_assert_true (ks_selection_page_get_busy (selection));
    WAIT_FOR (!ks_selection_page_get_busy (selection));
    ks_session_clear_range (session);
    ks_session_set_trace (session, trace);
    g_assert_true (ks_timeline_get_layout (timeline) == ks_session_get_layout (session));
    WAIT_FOR (ks_session_get_analysis (session) != NULL);
  }

  /* navigate: the view shows the range with a 5 % margin */
  g_signal_emit_by_name (page, "navigate", (gint64)2000000, (gint64)3000000);
  ks_session_get_visible (session, &v0, &v1);
  g_assert_cmpfloat_with_epsilon (v0, 1950000.0, 1.0);
  g_assert_cmpfloat_with_epsilon (v1, 3050000.0, 1.0);
  g_assert_true (ks_session_can_go_back (session));

  gtk_window_destroy (GTK_WINDOW (window));
}

/* The labels of the first row of @view's list, in column order. */
static GPtrArray *
first_row_labels (GtkWidget *view)
{
  GPtrArray *labels = g_ptr_array_new ();
  GtkWidget *list = ks_test_find_descendant (view, GTK_TYPE_LIST_VIEW, NULL);

  for (GtkWidget *row = gtk_widget_get_first_child (list); row != NULL && labels->len == 0;
       row = gtk_widget_get_next_sibling (row))
    for (GtkWidget *cell = gtk_widget_get_first_child (row); cell != NULL; cell = gtk_widget_get_next_sibling (cell))
      {
        GtkWidget *label = ks_test_find_descendant (cell, GTK_TYPE_LABEL, NULL);

        if (label != NULL && gtk_widget_get_visible (cell))
          g_ptr_array_add (labels, label);
      }
  return labels;
}

/* The columns of the Gaps page are the report's gap descriptors, in the
 * page's order (what it sorts by first): the same titles, tooltips and
 * cell text as kinescope-cli stats --report gaps. */
static void
test_columns_from_report (void)
{
  static const char * const keys[] = { "dur_ns", "start_ns", "class", "cpu_was_in", "device" };
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), LB_FILE, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = ks_trace_load (file, NULL, NULL, &error);
  g_autoptr(KsAnalysis) analysis = NULL;
  g_autoptr(KsReport) report = NULL;
  g_autoptr(GPtrArray) labels = NULL;
  const KsReportColumn *descriptors;
  GtkWidget *page = ks_gaps_page_new ();
  GtkWidget *window = gtk_window_new ();
  GtkWidget *view;
  GListModel *columns;
  guint n_descriptors;

  g_assert_no_error (error);
  analysis = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  report = ks_report_new_gaps (trace, analysis);
  descriptors = ks_report_gap_columns (&n_descriptors);

  gtk_window_set_default_size (GTK_WINDOW (window), 900, 600);
  gtk_window_set_child (GTK_WINDOW (window), page);
  gtk_window_present (GTK_WINDOW (window));
  ks_page_set_analysis (KS_PAGE (page), trace, analysis);
  gtk_test_widget_wait_for_draw (window);

  view = ks_test_find_descendant (page, GTK_TYPE_COLUMN_VIEW, NULL);
  columns = gtk_column_view_get_columns (GTK_COLUMN_VIEW (view));
  g_assert_cmpuint (g_list_model_get_n_items (columns), ==, G_N_ELEMENTS (keys));
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);
      const KsReportColumn *descriptor = ks_report_find_column (descriptors, n_descriptors, keys[i]);

      g_assert_cmpstr (g_object_get_data (G_OBJECT (column), "ks-report-key"), ==, keys[i]);
      g_assert_cmpstr (gtk_column_view_column_get_title (column), ==, ks_report_column_get_title (descriptor));
    }

  /* Largest first: the first row is the report's first; one GPU, so no
   * GPU column. Numbers carry the column's definition, names their text. */
  labels = first_row_labels (view);
  g_assert_cmpuint (labels->len, ==, 4);
  for (guint i = 0; i < labels->len; i++)
    {
      const KsReportColumn *descriptor = ks_report_find_column (descriptors, n_descriptors, keys[i]);
      g_autofree char *text = ks_report_get_text (report, descriptor, ks_report_row_index (report, 0));
      const char *tooltip = descriptor->unit != KS_REPORT_UNIT_TEXT ? ks_report_column_get_tooltip (descriptor) : text;

      g_assert_cmpstr (gtk_label_get_text (labels->pdata[i]), ==, text);
      g_assert_cmpstr (gtk_widget_get_tooltip_text (labels->pdata[i]), ==, tooltip);
    }
  g_assert_cmpstr (gtk_widget_get_tooltip_text (labels->pdata[0]), ==, ks_metric_get_definition (KS_METRIC_GAP));
  g_assert_cmpstr (gtk_widget_get_tooltip_text (labels->pdata[1]), ==, "When the GPU went idle");
  g_assert_cmpstr (gtk_label_get_text (labels->pdata[3]), ==,
                   "DataLoader: enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");

  gtk_window_destroy (GTK_WINDOW (window));
}

typedef struct
{
  GSource   source;
  guint     n;
} IterationSource;

/* Counts main-loop iterations: every source is prepared once in each. */
static gboolean
iteration_prepare (GSource *source,
                   int     *timeout)
{
  ((IterationSource *)source)->n++;
  *timeout = -1;
  return FALSE;
}

static GSourceFuncs iteration_funcs = { iteration_prepare, NULL, NULL, NULL, NULL, NULL };

typedef struct
{
  IterationSource *loop;
  GPtrArray       *order;      /* pages in the order they were filled */
  GArray          *iteration;  /* the iteration each was filled in */
  KsSession       *session;
  guint            n_refills;  /* notify::analysis to the session's analysis */
} RefillLog;

static void
filled_cb (GObject    *page,
           GParamSpec *pspec,
           RefillLog  *log)
{
  if (!ks_page_get_filled (KS_PAGE (page)))
    return;
  g_ptr_array_add (log->order, page);
  g_array_append_val (log->iteration, log->loop->n);
}

static void
analysis_cb (GObject    *page,
             GParamSpec *pspec,
             RefillLog  *log)
{
  if (ks_page_get_analysis (KS_PAGE (page)) != NULL &&
      ks_page_get_analysis (KS_PAGE (page)) == ks_session_get_analysis (log->session))
    log->n_refills++;
}

/* A new analysis refills the pages one per main-loop iteration, the one
 * shown first; a page shown before its turn fills at once; each page
 * refills once. */
static void
test_refill_order (void)
{
  KsWindow *window = open_window ();
  KsSession *session = ks_window_get_session (window);
  GtkWidget *gaps_page = ks_window_get_page (window, "gaps");
  GtkWidget *stack = gtk_widget_get_ancestor (gaps_page, GTK_TYPE_STACK);
  g_autoptr(GListModel) stack_pages = NULL;
  g_autoptr(GSettings) settings = NULL;
  g_autoptr(GPtrArray) pages = g_ptr_array_new ();
  RefillLog log = { 0 };
  GtkWidget *early = NULL;
  guint n_filled_at_show;

  if (!g_settings_schema_source_lookup (g_settings_schema_source_get_default (), "org.kinescope.Kinescope", TRUE))
    {
      g_test_skip ("no GSettings schema");
      gtk_window_destroy (GTK_WINDOW (window));
      return;
    }

  ks_window_show_page (window, "gaps");
  gtk_test_widget_wait_for_draw (gaps_page);
  g_assert_true (gtk_widget_get_mapped (gaps_page));

  log.loop = (IterationSource *)g_source_new (&iteration_funcs, sizeof (IterationSource));
  g_source_attach ((GSource *)log.loop, NULL);
  log.order = g_ptr_array_new ();
  log.iteration = g_array_new (FALSE, FALSE, sizeof (guint));
  log.session = session;

  g_assert_true (GTK_IS_STACK (stack));
  stack_pages = G_LIST_MODEL (gtk_stack_get_pages (GTK_STACK (stack)));
  /* every page, built now if it was not (a page is built when first
   * shown), with the analysis */
  for (guint i = 0; i < g_list_model_get_n_items (stack_pages); i++)
    {
      g_autoptr(GObject) sp = g_list_model_get_item (stack_pages, i);

      ks_window_get_page (window, gtk_stack_page_get_name (GTK_STACK_PAGE (sp)));
    }
  ks_test_wait_pages_filled (GTK_WIDGET (window));
  for (guint i = 0; i < g_list_model_get_n_items (stack_pages); i++)
    {
      g_autoptr(GObject) sp = g_list_model_get_item (stack_pages, i);
      GtkWidget *child = ks_window_get_page (window, gtk_stack_page_get_name (GTK_STACK_PAGE (sp)));

      if (!KS_IS_PAGE (child))
        continue;
      g_assert_true (ks_page_get_filled (KS_PAGE (child)));
      g_ptr_array_add (pages, child);
      g_signal_connect (child, "notify::filled", G_CALLBACK (filled_cb), &log);
      g_signal_connect (child, "notify::analysis", G_CALLBACK (analysis_cb), &log);
    }
  /* the sixteen analysis pages of the side panel, Selection aside */
  g_assert_cmpuint (pages->len, ==, 16);

  /* A new gap threshold: the session analyses again */
  settings = g_settings_new ("org.kinescope.Kinescope");
  g_settings_set_double (settings, "gap-threshold-us", 1000.0);
  WAIT_FOR (ks_session_get_analysis (session) != NULL &&
            ks_analysis_get_options (ks_session_get_analysis (session))->gap_threshold_ns == 1000000);

  /* The shown page is filled first, then the hidden ones one by one */
  WAIT_FOR (log.order->len >= 1);
  g_assert_true (g_ptr_array_index (log.order, 0) == gaps_page);
  WAIT_FOR (log.order->len >= 3);
  g_assert_cmpuint (g_array_index (log.iteration, guint, 1), >, g_array_index (log.iteration, guint, 0));
  g_assert_cmpuint (g_array_index (log.iteration, guint, 2), >, g_array_index (log.iteration, guint, 1));

  /* A hidden page shown before its turn is filled when mapped */
  for (guint i = 0; i < pages->len && early == NULL; i++)
    if (!ks_page_get_filled (KS_PAGE (g_ptr_array_index (pages, i))))
      early = g_ptr_array_index (pages, i);
  g_assert_nonnull (early);
  n_filled_at_show = log.order->len;
  gtk_stack_set_visible_child (GTK_STACK (stack), gtk_widget_get_parent (early));
  g_assert_true (gtk_widget_get_mapped (early));
  g_assert_true (ks_page_get_filled (KS_PAGE (early)));
  g_assert_cmpuint (log.order->len, ==, n_filled_at_show + 1);
  g_assert_true (g_ptr_array_index (log.order, n_filled_at_show) == early);

  /* Every page filled, once each, with the new analysis */
  ks_test_wait_pages_filled (GTK_WIDGET (window));
  g_assert_cmpuint (log.order->len, ==, pages->len);
  g_assert_cmpuint (log.n_refills, ==, pages->len);
  for (guint i = 0; i < pages->len; i++)
    {
      KsPage *page = g_ptr_array_index (pages, i);

      g_assert_true (g_ptr_array_find (log.order, page, NULL));
      g_assert_true (ks_page_get_analysis (page) == ks_session_get_analysis (session));
    }
  /* and the Gaps page shows the new gaps: 5 are longer than 1 ms */
  {
    GtkWidget *view = ks_test_find_descendant (gaps_page, GTK_TYPE_COLUMN_VIEW, NULL);

    g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (view)))), ==, 5);
  }

  for (guint i = 0; i < pages->len; i++)
    g_signal_handlers_disconnect_by_data (g_ptr_array_index (pages, i), &log);
  g_settings_reset (settings, "gap-threshold-us");
  g_source_destroy ((GSource *)log.loop);
  g_source_unref ((GSource *)log.loop);
  g_ptr_array_unref (log.order);
  g_array_unref (log.iteration);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;
  screenshot_dir = (char *)g_getenv ("KS_TEST_SCREENSHOT_DIR");

  g_test_add_func ("/app/pages/gaps/keys-largest-first", test_keys_largest_first);
  g_test_add_func ("/app/pages/gaps/time-order-toggle", test_time_order_toggle);
  g_test_add_func ("/app/pages/gaps/filter-and-threshold", test_filter_and_threshold);
  g_test_add_func ("/app/pages/gaps/columns-from-report", test_columns_from_report);
  g_test_add_func ("/app/pages/summary/advice", test_summary_advice);
  g_test_add_func ("/app/pages/session-binding", test_session_binding);
  g_test_add_func ("/app/pages/refill-order", test_refill_order);

  return g_test_run ();
}
