/* test-window-parts.c: the window's status bar, warnings banner, search
 * bar and side panel, each on its own, following a session
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <string.h>

#include "ks-format.h"
#include "ks-search-bar.h"
#include "ks-session.h"
#include "ks-side-panel.h"
#include "ks-status-bar.h"
#include "ks-test-gtk.h"
#include "ks-trace-loader.h"
#include "ks-warnings-banner.h"

#define WAIT_FOR(cond) KS_TEST_WAIT_FOR (cond, 20000)

/* Three CPU operators on two threads and two kernels, 10 µs to 80 µs; an
 * object without a phase, which the load skips with a warning; a 9.2 EB
 * allocation (a memory event), which the analysis leaves out with a
 * warning. */
static const char TRACE[] =
  "{\"traceEvents\":["
  "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":40},"
  "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":60,\"dur\":20},"
  "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":2,\"ts\":15,\"dur\":30},"
  "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":25,"
  "\"args\":{\"device\":0,\"stream\":7}},"
  "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"add_kernel\",\"pid\":0,\"tid\":7,\"ts\":70,\"dur\":5,"
  "\"args\":{\"device\":0,\"stream\":7}},"
  "{\"name\":\"no phase\",\"pid\":1,\"tid\":1,\"ts\":12},"
  "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":30,"
  "\"args\":{\"Bytes\":9223372036854775807,\"Device Id\":0,\"Device Type\":1,\"Addr\":8192}}]}";

#define NO_PHASE ": 1 objects without a phase (\"ph\") were skipped"

/* One operator, nothing to warn of. */
static const char CLEAN[] =
  "{\"traceEvents\":["
  "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":40}]}";

static KsTrace *
load_text (const char *text)
{
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  KsTrace *trace;
  int fd = g_file_open_tmp ("ks-parts-XXXXXX.json", &path, &error);

  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, text, -1, NULL));
  file = g_file_new_for_path (path);
  trace = ks_trace_load (file, NULL, NULL, &error);
  g_assert_no_error (error);
  g_unlink (path);
  return trace;
}

/* The slice named @name that lasts @dur_ns. */
static gboolean
find_slice (KsTrace    *trace,
            const char *name,
            gint64      dur_ns,
            guint32    *track,
            guint32    *slice)
{
  *track = *slice = KS_NO_INDEX;
  for (guint32 t = 0; t < trace->n_tracks; t++)
    for (guint32 s = 0; s < trace->tracks[t].n_slices; s++)
      if (trace->tracks[t].end[s] - trace->tracks[t].start[s] == dur_ns &&
          g_str_equal (ks_trace_string (trace, trace->tracks[t].name_id[s]), name))
        {
          *track = t;
          *slice = s;
          return TRUE;
        }
  return FALSE;
}

static GtkWidget *
show (GtkWidget *child)
{
  GtkWidget *window = gtk_window_new ();

  gtk_window_set_default_size (GTK_WINDOW (window), 900, 200);
  gtk_window_set_child (GTK_WINDOW (window), child);
  gtk_window_present (GTK_WINDOW (window));
  return window;
}

static const char *
label_text (GtkWidget *bar,
            guint      nth)
{
  GtkWidget *label = gtk_widget_get_first_child (bar);

  while (nth-- > 0)
    label = gtk_widget_get_next_sibling (label);
  return gtk_label_get_text (GTK_LABEL (label));
}

/* Five slices, two of them kernels; the selection and the range at the
 * end, a message in their place while it is set. */
static void
test_status_bar (void)
{
  g_autoptr(KsTrace) trace = load_text (TRACE);
  g_autoptr(KsSession) session = ks_session_new (NULL);
  GtkWidget *bar = ks_status_bar_new ();
  GtkWidget *window = show (bar);
  g_autofree char *dur = NULL;
  g_autofree char *expected = NULL;
  g_autofree char *selected = NULL;
  g_autofree char *d40 = ks_time_format_duration (40000);
  g_autofree char *d50 = ks_time_format_duration (50000);
  guint32 track, slice;

  g_assert_cmpstr (label_text (bar, 0), ==, "");
  ks_status_bar_set_session (KS_STATUS_BAR (bar), session);
  g_assert_cmpstr (label_text (bar, 0), ==, "");
  ks_session_set_trace (session, trace);

  /* 10 µs to 80 µs */
  g_assert_cmpint (trace->duration_ns, ==, 70000);
  dur = ks_time_format_duration (70000);
  expected = g_strdup_printf ("5 events (2 on the GPU) · %u threads · %s · 1 memory event · 1 load warning",
                              trace->n_threads, dur);
  g_assert_cmpstr (label_text (bar, 0), ==, expected);
  g_assert_true (g_str_has_suffix (gtk_widget_get_tooltip_text (gtk_widget_get_first_child (bar)), NO_PHASE));
  g_assert_cmpstr (label_text (bar, 1), ==, "");

  g_assert_true (find_slice (trace, "aten::mm", 40000, &track, &slice));
  ks_session_select_slice (session, track, slice);
  selected = g_strdup_printf ("Selected: aten::mm (%s)", d40);
  g_assert_cmpstr (label_text (bar, 1), ==, selected);
  ks_session_select_range (session, 0, 50000);
  {
    g_autofree char *both = g_strdup_printf ("%s · Range: %s", selected, d50);

    g_assert_cmpstr (label_text (bar, 1), ==, both);
    ks_status_bar_set_message (KS_STATUS_BAR (bar), "Comparing…");
    g_assert_cmpstr (label_text (bar, 1), ==, "Comparing…");
    ks_session_clear_range (session);
    g_assert_cmpstr (label_text (bar, 1), ==, "Comparing…");
    ks_status_bar_set_message (KS_STATUS_BAR (bar), NULL);
    g_assert_cmpstr (label_text (bar, 1), ==, selected);
  }

  /* a new trace: its own counts, nothing selected */
  {
    g_autoptr(KsTrace) clean = load_text (CLEAN);
    g_autofree char *d = ks_time_format_duration (clean->duration_ns);
    g_autofree char *one = g_strdup_printf ("1 events (0 on the GPU) · %u threads · %s", clean->n_threads, d);

    ks_session_set_trace (session, clean);
    g_assert_cmpstr (label_text (bar, 0), ==, one);
    g_assert_null (gtk_widget_get_tooltip_text (gtk_widget_get_first_child (bar)));
    g_assert_cmpstr (label_text (bar, 1), ==, "");
  }

  /* without a session, nothing to say; the session no longer followed */
  g_object_set (bar, "session", NULL, NULL);
  g_assert_cmpstr (label_text (bar, 0), ==, "");
  ks_session_set_trace (session, trace);
  g_assert_cmpstr (label_text (bar, 0), ==, "");
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The load's warning first, the analysis' counted once it comes; closed
 * for this trace, shown again for the next. */
static void
test_warnings_banner (void)
{
  g_autoptr(KsTrace) trace = load_text (TRACE);
  g_autoptr(KsTrace) clean = load_text (CLEAN);
  g_autoptr(KsSession) session = ks_session_new (NULL);
  GtkWidget *banner = ks_warnings_banner_new ();
  GtkWidget *window = show (banner);
  GtkWidget *revealer = ks_test_find_descendant (banner, GTK_TYPE_REVEALER, "load-warnings");
  GtkWidget *first;

  g_assert_nonnull (revealer);
  ks_warnings_banner_set_session (KS_WARNINGS_BANNER (banner), session);
  g_assert_false (gtk_revealer_get_reveal_child (GTK_REVEALER (revealer)));
  ks_session_set_trace (session, trace);
  g_assert_true (gtk_revealer_get_reveal_child (GTK_REVEALER (revealer)));
  first = ks_test_find_descendant (banner, GTK_TYPE_LABEL, NULL);
  g_assert_true (g_str_has_suffix (gtk_label_get_text (GTK_LABEL (first)), NO_PHASE));
  g_assert_cmpstr (label_text (gtk_widget_get_parent (first), 2), ==, "");
  WAIT_FOR (ks_session_get_analysis (session) != NULL);
  g_assert_nonnull (ks_test_find_label (banner, "and 1 more warning"));
  g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (gtk_widget_get_parent (first)),
                            "1 memory event with an impossible size (over 1 PiB)"));

  g_signal_emit_by_name (ks_test_find_descendant (banner, GTK_TYPE_BUTTON, NULL), "clicked");
  g_assert_false (gtk_revealer_get_reveal_child (GTK_REVEALER (revealer)));
  WAIT_FOR (!gtk_revealer_get_child_revealed (GTK_REVEALER (revealer)));

  ks_session_set_trace (session, clean);
  g_assert_false (gtk_revealer_get_reveal_child (GTK_REVEALER (revealer)));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (first)), ==, "");
  ks_session_set_trace (session, trace);
  g_assert_true (gtk_revealer_get_reveal_child (GTK_REVEALER (revealer)));
  ks_warnings_banner_set_session (KS_WARNINGS_BANNER (banner), NULL);
  g_assert_false (gtk_revealer_get_reveal_child (GTK_REVEALER (revealer)));
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
count_activate_cb (GSimpleAction *action,
                   GVariant      *param,
                   guint         *count)
{
  (*count)++;
}

static void
count_stop_cb (KsSearchBar *bar,
               guint       *count)
{
  (*count)++;
}

/* The entry's text is the session's search; Enter asks the window for
 * the next match; Escape closes the bar and ends the search. */
static void
test_search_bar (void)
{
  g_autoptr(KsTrace) trace = load_text (TRACE);
  g_autoptr(KsSession) session = ks_session_new (trace);
  g_autoptr(GSimpleActionGroup) group = g_simple_action_group_new ();
  g_autoptr(GSimpleAction) next = g_simple_action_new ("find-next", NULL);
  GtkWidget *bar = ks_search_bar_new ();
  GtkWidget *window = show (bar);
  GtkWidget *entry = ks_test_find_descendant (bar, GTK_TYPE_SEARCH_ENTRY, NULL);
  GtkWidget *regex = gtk_widget_get_next_sibling (entry);
  GtkLabel *count = GTK_LABEL (gtk_widget_get_last_child (gtk_widget_get_parent (entry)));
  guint n_next = 0, n_stopped = 0;

  g_signal_connect (next, "activate", G_CALLBACK (count_activate_cb), &n_next);
  g_action_map_add_action (G_ACTION_MAP (group), G_ACTION (next));
  gtk_widget_insert_action_group (window, "win", G_ACTION_GROUP (group));
  g_signal_connect (bar, "stop-search", G_CALLBACK (count_stop_cb), &n_stopped);
  g_object_set (bar, "session", session, NULL);

  ks_search_bar_start (KS_SEARCH_BAR (bar));
  g_assert_true (ks_search_bar_get_search_mode (KS_SEARCH_BAR (bar)));
  gtk_editable_set_text (GTK_EDITABLE (entry), "aten::mm");
  WAIT_FOR (g_strcmp0 (gtk_label_get_label (count), "2 matches") == 0);
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (regex), TRUE);
  gtk_editable_set_text (GTK_EDITABLE (entry), "aten::(mm|add)");
  WAIT_FOR (g_strcmp0 (gtk_label_get_label (count), "3 matches") == 0);
  g_assert_cmpuint (ks_search_result_get_n_matches (ks_session_get_search (session)), ==, 3);
  ks_session_step_match (session, 1);
  g_assert_cmpstr (gtk_label_get_label (count), ==, "1 of 3");
  gtk_editable_set_text (GTK_EDITABLE (entry), "aten::(");
  WAIT_FOR (g_strcmp0 (gtk_label_get_label (count), "Invalid expression") == 0);
  g_assert_true (gtk_widget_has_css_class (entry, "error"));
  gtk_editable_set_text (GTK_EDITABLE (entry), "nothing");
  WAIT_FOR (g_strcmp0 (gtk_label_get_label (count), "No matches") == 0);
  g_assert_false (gtk_widget_has_css_class (entry, "error"));

  g_signal_emit_by_name (entry, "activate");
  g_assert_cmpuint (n_next, ==, 1);

  g_signal_emit_by_name (entry, "stop-search");
  g_assert_cmpuint (n_stopped, ==, 1);
  g_assert_false (ks_search_bar_get_search_mode (KS_SEARCH_BAR (bar)));
  WAIT_FOR (ks_session_get_search (session) == NULL);
  g_assert_cmpstr (gtk_label_get_label (count), ==, "");

  /* closing emptied the entry; opened again, it searches again */
  g_object_set (bar, "search-mode-enabled", TRUE, NULL);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (entry)), ==, "");
  gtk_editable_set_text (GTK_EDITABLE (entry), "add");
  WAIT_FOR (g_strcmp0 (gtk_label_get_label (count), "2 matches") == 0);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* Every page binds the panel's session; a new trace opens on the first
 * page, a selection or a range shows the Selection page; the All Pages
 * menu lists every page. */
static void
test_side_panel (void)
{
  g_autoptr(KsTrace) trace = load_text (TRACE);
  g_autoptr(KsSession) session = ks_session_new (NULL);
  GtkWidget *panel = ks_side_panel_new ();
  GtkWidget *window = show (panel);
  GtkStack *stack = GTK_STACK (gtk_widget_get_ancestor (ks_side_panel_get_page (KS_SIDE_PANEL (panel), "selection"),
                                                        GTK_TYPE_STACK));
  GtkMenuButton *button = GTK_MENU_BUTTON (ks_test_find_descendant (panel, GTK_TYPE_MENU_BUTTON, NULL));
  g_autoptr(GListModel) pages = G_LIST_MODEL (gtk_stack_get_pages (stack));
  GMenuModel *menu = ks_test_open_menu (button);
  guint32 track, slice;

  /* the Selection page until there is a trace */
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "selection");
  g_assert_cmpint (g_menu_model_get_n_items (menu), ==, g_list_model_get_n_items (pages));
  g_assert_cmpuint (g_list_model_get_n_items (pages), >=, 14);
  for (guint i = 0; i < g_list_model_get_n_items (pages); i++)
    {
      g_autoptr(GObject) page = g_list_model_get_item (pages, i);
      g_autoptr(KsSession) bound = NULL;

      g_object_get (gtk_stack_page_get_child (GTK_STACK_PAGE (page)), "session", &bound, NULL);
      g_assert_null (bound);
    }

  ks_side_panel_set_session (KS_SIDE_PANEL (panel), session);
  for (guint i = 0; i < g_list_model_get_n_items (pages); i++)
    {
      g_autoptr(GObject) page = g_list_model_get_item (pages, i);
      g_autoptr(KsSession) bound = NULL;

      g_object_get (gtk_stack_page_get_child (GTK_STACK_PAGE (page)), "session", &bound, NULL);
      g_assert_true (bound == session);
    }
  ks_session_set_trace (session, trace);
  g_assert_true (gtk_stack_get_visible_child (stack) == gtk_widget_get_first_child (GTK_WIDGET (stack)));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "summary");

  g_assert_true (ks_side_panel_show_page (KS_SIDE_PANEL (panel), "gaps"));
  /* the page is the stack page's child, or inside it */
  g_assert_true (gtk_widget_is_ancestor (ks_side_panel_get_page (KS_SIDE_PANEL (panel), "gaps"),
                                         gtk_stack_get_visible_child (stack)));
  g_assert_false (ks_side_panel_show_page (KS_SIDE_PANEL (panel), "no-such-page"));
  g_assert_null (ks_side_panel_get_page (KS_SIDE_PANEL (panel), "no-such-page"));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "gaps");

  g_assert_true (find_slice (trace, "gemm", 25000, &track, &slice));
  ks_session_select_slice (session, track, slice);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "selection");
  ks_side_panel_show_page (KS_SIDE_PANEL (panel), "kernels");
  ks_session_select_range (session, 0, 30000);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "selection");
  /* a cleared range shows nothing new */
  ks_side_panel_show_page (KS_SIDE_PANEL (panel), "kernels");
  ks_session_clear_range (session);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "kernels");

  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;

  g_test_add_func ("/app/window-parts/status-bar", test_status_bar);
  g_test_add_func ("/app/window-parts/warnings-banner", test_warnings_banner);
  g_test_add_func ("/app/window-parts/search-bar", test_search_bar);
  g_test_add_func ("/app/window-parts/side-panel", test_side_panel);

  return g_test_run ();
}
