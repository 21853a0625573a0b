/* test-window-views.c: the views of a window: navigating the timeline,
 * selecting slices, steps and ranges, tooltips, the ruler, the tables
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <math.h>

#include "ks-application.h"
#include "ks-format.h"
#include "ks-range-stats.h"
#include "ks-render-cairo.h"
#include "ks-selection-page.h"
#include "ks-test-gtk.h"
#include "ks-test-samples.h"
#include "ks-test-window.h"
#include "ks-json-writer.h"
#include "ks-report.h"
#include "ks-trace-loader.h"
#include "ks-window.h"
#include "pages/ks-ranks-page.h"

/* The first action row, or preferences group, under @root titled @title. */
static GtkWidget *
find_titled (GtkWidget  *root,
             GType       type,
             const char *title)
{
  const char *t = NULL;

  if (type == ADW_TYPE_ACTION_ROW && ADW_IS_ACTION_ROW (root))
    t = adw_preferences_row_get_title (ADW_PREFERENCES_ROW (root));
  else if (type == ADW_TYPE_PREFERENCES_GROUP && ADW_IS_PREFERENCES_GROUP (root))
    t = adw_preferences_group_get_title (ADW_PREFERENCES_GROUP (root));
  if (g_strcmp0 (t, title) == 0)
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_titled (c, type, title);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The value label (right-hand side of a row) showing @text under @root. */
static GtkLabel *
find_label (GtkWidget  *root,
            const char *text)
{
  if (GTK_IS_LABEL (root) && gtk_widget_has_css_class (root, "numeric") &&
      g_strcmp0 (gtk_label_get_label (GTK_LABEL (root)), text) == 0)
    return GTK_LABEL (root);
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkLabel *found = find_label (c, text);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
drag (KsTimeline *timeline,
      double      x,
      double      y,
      double      dx,
      double      dy)
{
  GtkEventController *gesture = ks_test_find_controller (GTK_WIDGET (timeline), "ks-timeline-drag");

  g_signal_emit_by_name (gesture, "drag-begin", x, y);
  g_signal_emit_by_name (gesture, "drag-update", dx / 2, dy / 2);
  g_signal_emit_by_name (gesture, "drag-update", dx, dy);
  g_signal_emit_by_name (gesture, "drag-end", dx, dy);
}

static void
test_navigate (void)
{
  KsWindow *window = ks_test_open_window (LB_FILE);
  KsSession *session = ks_window_get_session (window);
  KsTimeline *timeline = ks_window_get_timeline (window);
  KsTrace *trace = ks_session_get_trace (session);
  GtkEventController *motion = ks_test_find_controller (GTK_WIDGET (timeline), "ks-timeline-motion");
  GtkEventController *zoom = ks_test_find_controller (GTK_WIDGET (timeline), "ks-timeline-zoom");
  KsTimelineLayout *layout = ks_timeline_get_layout (timeline);
  GtkWidget *stack = gtk_widget_get_ancestor (GTK_WIDGET (timeline), GTK_TYPE_STACK);
  double d = 0, t0, t1, anchor, x;

  /* The picture of the trace once its page has faded in over the
   * loading page (frames drive the fade; the test runs faster) */
  WAIT_FOR (stack == NULL ||
            (gtk_widget_is_ancestor (GTK_WIDGET (timeline), gtk_stack_get_visible_child (GTK_STACK (stack))) &&
             !gtk_stack_get_transition_running (GTK_STACK (stack))));
  ks_test_wait_pages_filled (GTK_WIDGET (window));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  ks_test_save_screenshot (GTK_WIDGET (window), "window-open.png");

  /* The whole trace at first: up to its last slice (the fixture has no
   * allocation after it), not to Kineto's "Record Window End" marker
   * 10.7 ms later. */
  for (guint32 t = 0; t < trace->n_tracks; t++)
    for (guint32 i = 0; i < trace->tracks[t].n_slices; i++)
      d = MAX (d, (double)trace->tracks[t].end[i]);
  g_assert_cmpfloat (d, <, trace->duration_ns - 10e6);
  ks_test_assert_visible (session, 0, d);
  g_assert_false (ks_session_can_go_back (session));

  /* W zooms in by 0.8 around the pointer's time. */
  x = KS_HEADER_WIDTH + 300;
  g_signal_emit_by_name (motion, "motion", x, 200.0);
  anchor = ks_timeline_x_to_time (timeline, x);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (timeline), "timeline.zoom-in", NULL));
  ks_session_get_visible (session, &t0, &t1);
  g_assert_cmpfloat_with_epsilon (t1 - t0, 0.8 * d, 1.0);
  g_assert_cmpfloat_with_epsilon (ks_timeline_x_to_time (timeline, x), anchor, 1.0);
  g_assert_true (ks_session_can_go_back (session));

  /* A pinch to twice the size halves the span, anchored the same way.
   * Gestures within 0.5 s are one step of the zoom history: the waits
   * here outlast that, and a loaded machine only makes them longer. */
  ks_test_spin (600);
  g_signal_emit_by_name (zoom, "begin", NULL);
  g_signal_emit_by_name (zoom, "scale-changed", 2.0);
  ks_session_get_visible (session, &t0, &t1);
  g_assert_cmpfloat_with_epsilon (t1 - t0, 0.4 * d, 1.0);
  g_assert_cmpfloat_with_epsilon (ks_timeline_x_to_time (timeline, x), anchor, 1.0);

  /* Dragging the ruler 200 px to the left moves 200 px later in time. */
  {
    double nspp = (t1 - t0) / (gtk_widget_get_width (GTK_WIDGET (timeline)) - KS_HEADER_WIDTH);
    double before0 = t0, before1 = t1;

    ks_test_spin (600);
    drag (timeline, KS_HEADER_WIDTH + 600, 10, -200, 0);
    ks_test_assert_visible (session, before0 + 200 * nspp, before1 + 200 * nspp);
    ks_test_save_screenshot (GTK_WIDGET (window), "window-zoomed.png");

    /* D pans by a tenth of the view. */
    ks_session_get_visible (session, &t0, &t1);
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (timeline), "timeline.pan", "i", 1));
    ks_test_assert_visible (session, t0 + 0.1 * (t1 - t0), t1 + 0.1 * (t1 - t0));

    /* Back returns to the view before the drag; forward comes back. */
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.back", NULL));
    ks_test_assert_visible (session, before0, before1);
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.forward", NULL));
    ks_test_assert_visible (session, t0 + 0.1 * (t1 - t0), t1 + 0.1 * (t1 - t0));
  }

  /* Ctrl+0 shows everything again, and goes in the history. */
  ks_session_get_visible (session, &t0, &t1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.fit-all", NULL));
  ks_test_assert_visible (session, 0, d);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.back", NULL));
  ks_test_assert_visible (session, t0, t1);

  /* Clicking the overview strip centres the view there, keeping the span. */
  {
    GtkWidget *overview = ks_test_find_child (GTK_WIDGET (window), "KsOverview");
    GtkEventController *odrag = ks_test_find_controller (overview, "ks-overview-drag");
    int ow = gtk_widget_get_width (overview) - KS_HEADER_WIDTH;

    ks_session_get_visible (session, &t0, &t1);
    g_signal_emit_by_name (odrag, "drag-begin", KS_HEADER_WIDTH + ow * 0.25, 10.0);
    g_signal_emit_by_name (odrag, "drag-end", 0.0, 0.0);
    ks_test_assert_visible (session, 0.25 * d - (t1 - t0) / 2, 0.25 * d + (t1 - t0) / 2);
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.back", NULL));
    ks_test_assert_visible (session, t0, t1);
  }

  /* Clicking a group header collapses it. */
  {
    const KsRow *gpu = ks_timeline_layout_get_row (layout, 0);
    int height = ks_timeline_layout_get_height (layout);

    g_assert_cmpint (gpu->kind, ==, KS_ROW_GROUP);
    g_assert_true (gpu->expanded);
    ks_test_click_timeline (GTK_WIDGET (timeline), 1, 20, KS_RULER_HEIGHT + gpu->y + 5);
    g_assert_false (ks_timeline_layout_get_row (layout, 0)->expanded);
    g_assert_cmpint (ks_timeline_layout_get_height (layout), <, height);
    ks_test_click_timeline (GTK_WIDGET (timeline), 1, 20, KS_RULER_HEIGHT + gpu->y + 5);
    g_assert_true (ks_timeline_layout_get_row (layout, 0)->expanded);
    g_assert_cmpint (ks_timeline_layout_get_height (layout), ==, height);
  }

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_select_kernel (void)
{
  KsWindow *window = ks_test_open_window (LB_FILE);
  KsSession *session = ks_window_get_session (window);
  KsTimeline *timeline = ks_window_get_timeline (window);
  KsTrace *trace = ks_session_get_trace (session);
  KsSelectionPage *page = KS_SELECTION_PAGE (ks_window_get_page (window, "selection"));
  guint32 track = 0, slice, sel_track, sel_slice;
  double x, y, t0, t1;
  gint64 ks, ke;

  slice = ks_test_find_longest (trace, LB_KERNEL_NAME, &track);
  ks = trace->tracks[track].start[slice];
  ke = trace->tracks[track].end[slice];

  /* Bring the kernel and its launch into view: 1 ms before, 0.5 ms after. */
  ks_session_set_visible (session, ks - 1000000, ke + 500000);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
  g_assert_true (ks_timeline_get_slice_point (timeline, track, slice, &x, &y));

  ks_test_click_timeline (GTK_WIDGET (timeline), 1, x, y);
  g_assert_true (ks_session_get_selected_slice (session, &sel_track, &sel_slice));
  g_assert_cmpuint (sel_track, ==, track);
  g_assert_cmpuint (sel_slice, ==, slice);

  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Slice", "Name"), ==, LB_KERNEL_NAME);
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Slice", "Kind"), ==, "kernel");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Slice", "Duration"), ==, "246 µs");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Slice", "Self time"), ==, "246 µs");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Slice", "Stream"), ==, "stream 7 · GPU 0 · NVIDIA H200");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Kernel", "Grid"), ==, "5 × 1 × 101");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Kernel", "Block"), ==, "128 × 1 × 1");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Kernel", "Registers per thread"), ==, "236");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Kernel", "Shared memory"), ==, "128.0\u00a0KiB (131072 bytes)");
  /* 128 KiB + 1 KiB of shared memory leave room for one block of 4 warps
   * of the SM's 64 (the profiler's own estimate in the file says 0). */
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Kernel", "Theoretical occupancy"), ==,
                   "6 % (1 block per SM, limited by shared memory)");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Kernel", "Est. achieved occupancy"), ==, "6 %");
  /* Its launch: cudaLaunchKernelExC ended 99.235 µs before the kernel started. */
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Flows", "Launched by"), ==, "cudaLaunchKernelExC");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Flows", "Launch latency"), ==, "99.2 µs");
  /* The profiler's own figure, once, as the profiler's: not repeated
   * among the arguments with what the page shows already. */
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Kernel", "Profiler's occupancy estimate"), ==, "0 %");
  g_assert_null (ks_selection_page_lookup_value (page, "Arguments", "est. achieved occupancy %"));
  g_assert_null (ks_selection_page_lookup_value (page, "Arguments", "correlation"));
  g_assert_null (ks_selection_page_lookup_value (page, "Arguments", "grid"));
  g_assert_null (ks_selection_page_lookup_value (page, "Arguments", "registers per thread"));
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Arguments", "blocks per SM"), !=, NULL);
  g_assert_cmpuint (ks_timeline_get_n_flow_arrows (timeline), ==, 1);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
  ks_test_save_screenshot (GTK_WIDGET (window), "window-kernel.png");

  /* The kernel's name heads the page, wrapped where an identifier breaks
   * (after "_", "::", "<" or ","), never inside a word with a hyphen. */
  {
    GtkWidget *heading = NULL;
    PangoLayout *layout;
    const char *text;
    guint n_lines = 0;

    for (GtkWidget *w = gtk_widget_get_first_child (GTK_WIDGET (page)); w != NULL && heading == NULL;)
      {
        if (GTK_IS_LABEL (w) && gtk_widget_has_css_class (w, "title-3"))
          heading = w;
        else if (gtk_widget_get_first_child (w) != NULL)
          w = gtk_widget_get_first_child (w);
        else
          {
            while (w != NULL && gtk_widget_get_next_sibling (w) == NULL && w != GTK_WIDGET (page))
              w = gtk_widget_get_parent (w);
            w = w == NULL || w == GTK_WIDGET (page) ? NULL : gtk_widget_get_next_sibling (w);
          }
      }
    g_assert_nonnull (heading);
    layout = gtk_label_get_layout (GTK_LABEL (heading));
    text = pango_layout_get_text (layout);
    for (GSList *l = pango_layout_get_lines_readonly (layout); l != NULL; l = l->next, n_lines++)
      {
        PangoLayoutLine *line = l->data;
        const char *before;
        gunichar c;

        if (line->start_index == 0)
          continue;
        /* the character before the break, past a zero-width space */
        before = g_utf8_prev_char (text + line->start_index);
        c = g_utf8_get_char (before);
        if (c == 0x200b && before > text)
          c = g_utf8_get_char (g_utf8_prev_char (before));
        if (c != '_' && c != ':' && c != '<' && c != ',')
          g_error ("the heading breaks after \"%.*s\"", line->start_index, text);
      }
    g_assert_cmpuint (n_lines, >, 2);
    g_assert_true (pango_layout_get_attributes (layout) != NULL);
  }

  /* The flow's row leads to the launch call, and back. */
  {
    GtkWidget *row = find_titled (GTK_WIDGET (page), ADW_TYPE_ACTION_ROW, "Launched by");
    guint32 launch_track, launch_slice;

    g_assert_nonnull (row);
    g_signal_emit_by_name (row, "activated");
    g_assert_true (ks_session_get_selected_slice (session, &launch_track, &launch_slice));
    g_assert_cmpstr (ks_trace_string (trace, trace->tracks[launch_track].name_id[launch_slice]), ==, "cudaLaunchKernelExC");
    /* A short name never wraps, however wide its letters; a long one
     * (the kernel's, in the flow row) wraps without inserted hyphens. */
    {
      GtkLabel *value = find_label (GTK_WIDGET (page), "cudaLaunchKernelExC");
      GtkLabel *long_value = find_label (GTK_WIDGET (page), LB_KERNEL_NAME);
      PangoAttrIterator *iter;
      PangoAttrInt *hyphens;

      g_assert_nonnull (value);
      g_assert_nonnull (long_value);
      gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
      g_assert_false (gtk_label_get_wrap (value));
      g_assert_cmpint (pango_layout_get_line_count (gtk_label_get_layout (value)), ==, 1);
      g_assert_true (gtk_label_get_wrap (long_value));
      g_assert_cmpint (pango_layout_get_line_count (gtk_label_get_layout (long_value)), >, 1);
      iter = pango_attr_list_get_iterator (gtk_label_get_attributes (long_value));
      hyphens = (PangoAttrInt *) pango_attr_iterator_get (iter, PANGO_ATTR_INSERT_HYPHENS);
      g_assert_nonnull (hyphens);
      g_assert_false (hyphens->value);
      pango_attr_iterator_destroy (iter);
    }
    g_assert_cmpstr (ks_selection_page_lookup_value (page, "Flows", "Launches"), ==, LB_KERNEL_NAME);
    row = find_titled (GTK_WIDGET (page), ADW_TYPE_ACTION_ROW, "Launches");
    g_assert_nonnull (row);
    g_signal_emit_by_name (row, "activated");
    g_assert_true (ks_session_get_selected_slice (session, &sel_track, &sel_slice));
    g_assert_cmpuint (sel_slice, ==, slice);
  }

  /* Escape clears the selection; clicking the kernel selects it again. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (timeline), "timeline.clear-selection", NULL));
  g_assert_false (ks_session_get_selected_slice (session, NULL, NULL));
  ks_test_click_timeline (GTK_WIDGET (timeline), 1, x, y);
  g_assert_true (ks_session_get_selected_slice (session, NULL, NULL));

  /* Double-click zooms to the kernel (with a 5 % margin each side). */
  ks_test_click_timeline (GTK_WIDGET (timeline), 2, x, y);
  ks_session_get_visible (session, &t0, &t1);
  g_assert_cmpfloat_with_epsilon (t0, ks - 0.05 * (ke - ks), 1.0);
  g_assert_cmpfloat_with_epsilon (t1, ke + 0.05 * (ke - ks), 1.0);

  /* F fits the selection too; after a fit-all it comes back. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.fit-all", NULL));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (timeline), "timeline.fit-selection", NULL));
  ks_session_get_visible (session, &t0, &t1);
  g_assert_cmpfloat_with_epsilon (t0, ks - 0.05 * (ke - ks), 1.0);

  /* A host-to-device copy: bytes, direction and memory kinds. */
  slice = ks_test_find_longest (trace, LB_MEMCPY_NAME, &track);
  ks_session_set_visible (session, trace->tracks[track].start[slice] - 200000,
                          trace->tracks[track].end[slice] + 200000);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
  g_assert_true (ks_timeline_get_slice_point (timeline, track, slice, &x, &y));
  ks_test_click_timeline (GTK_WIDGET (timeline), 1, x, y);
  g_assert_true (ks_session_get_selected_slice (session, &sel_track, &sel_slice));
  g_assert_cmpuint (sel_slice, ==, slice);
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Slice", "Kind"), ==, "memcpy");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Slice", "Duration"), ==, "390 µs");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Memory Copy", "Bytes"), ==, "3.4\u00a0MiB (3538944 bytes)");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Memory Copy", "Direction"), ==, "HtoD");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Memory Copy", "Memory kinds"), ==, "Pageable → Device");
  /* cudaMemcpyAsync returned after the copy had started: latency 0. */
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Flows", "Launched by"), ==, "cudaMemcpyAsync");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Flows", "Launch latency"), ==, "0 ns");

  /* Clicking empty space clears the selection. */
  ks_test_click_timeline (GTK_WIDGET (timeline), 1, gtk_widget_get_width (GTK_WIDGET (timeline)) - 2,
         gtk_widget_get_height (GTK_WIDGET (timeline)) - 2);
  g_assert_false (ks_session_get_selected_slice (session, NULL, NULL));
  g_assert_null (ks_selection_page_lookup_value (page, "Slice", "Name"));

  gtk_window_destroy (GTK_WINDOW (window));
}

/* A selected step shows its breakdown once the analysis is there:
 * ProfilerStep#2 of loader_bound, 39.54 ms of which 32.32 ms in the
 * DataLoader (the numbers of test-analysis-fixtures.c). */
static void
test_select_step (void)
{
  KsWindow *window = ks_test_open_window (LB_FILE);
  KsSession *session = ks_window_get_session (window);
  KsTrace *trace = ks_session_get_trace (session);
  KsSelectionPage *page = KS_SELECTION_PAGE (ks_window_get_page (window, "selection"));
  const char *group = "Step time breakdown";
  guint32 track = 0, slice;

  slice = ks_test_find_longest (trace, "ProfilerStep#2", &track);
  ks_session_select_slice (session, track, slice);
  WAIT_FOR (ks_selection_page_lookup_value (page, group, "Kernel") != NULL);
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Slice", "Name"), ==, "ProfilerStep#2");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, group, "Kernel"), ==, "1.15 ms (2.9 %)");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, group, "DataLoader"), ==, "32.3 ms (81.7 %)");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, group, "Other"), ==, "1.52 ms (3.8 %)");

  /* Not a step: no breakdown. */
  slice = ks_test_find_longest (trace, LB_KERNEL_NAME, &track);
  ks_session_select_slice (session, track, slice);
  g_assert_null (ks_selection_page_lookup_value (page, group, "Kernel"));

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_range (void)
{
  KsWindow *window = ks_test_open_window (LB_FILE);
  KsSession *session = ks_window_get_session (window);
  KsTimeline *timeline = ks_window_get_timeline (window);
  KsTrace *trace = ks_session_get_trace (session);
  KsSelectionPage *page = KS_SELECTION_PAGE (ks_window_get_page (window, "selection"));
  KsTraceCounts counts;
  g_autofree char *expected = NULL;
  g_autofree char *events = NULL;
  guint64 total = 0;
  gint64 start, end;
  int width = gtk_widget_get_width (GTK_WIDGET (timeline));

  /* Zoom out so that a drag across the whole time area covers the trace. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.zoom", "i", -1));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));

  drag (timeline, KS_HEADER_WIDTH + 1, 300, width - KS_HEADER_WIDTH - 3, 0);
  g_assert_true (ks_session_get_range (session, &start, &end));
  g_assert_cmpint (start, <, 0);
  g_assert_cmpint (end, >, trace->duration_ns);

  g_assert_true (ks_selection_page_get_busy (page));
  WAIT_FOR (!ks_selection_page_get_busy (page));
  ks_test_save_screenshot (GTK_WIDGET (window), "window-range.png");

  /* Every slice lies in the range. */
  ks_trace_get_counts (trace, &counts);
  for (guint k = 0; k < KS_N_SLICE_KINDS; k++)
    total += counts.by_kind[k];
  events = g_strdup_printf ("%" G_GUINT64_FORMAT, total);
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Range", "Events"), ==, events);

  /* GPU busy: the union of the 176 kernels, 4.60 ms, over the range. */
  expected = g_strdup_printf ("%.1f %% (4.60 ms)", 100.0 * LB_KERNEL_UNION_NS / (end - start));
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "GPU Busy", "GPU 0"), ==, expected);

  /* Top kernel: 4 calls, 977.184 µs. Top operators by self time (the
   * operators they call taken out): aten::normal_ 128 calls 24.93 ms;
   * aten::randn, which calls it, 26.92 ms in all but 1.22 ms of its own. */
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Top Kernels", LB_KERNEL_NAME), ==, "977 µs · 4 calls");
  /* Its 150-character name takes two lines at most, all of it in the tooltip. */
  {
    GtkWidget *row = find_titled (GTK_WIDGET (page), ADW_TYPE_ACTION_ROW, LB_KERNEL_NAME);

    g_assert_nonnull (row);
    g_assert_cmpint (adw_action_row_get_title_lines (ADW_ACTION_ROW (row)), ==, 2);
    g_assert_cmpstr (gtk_widget_get_tooltip_text (row), ==, LB_KERNEL_NAME);
  }
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Top Operators", "aten::normal_"), ==, "24.9 ms · 128 calls");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Top Operators", "aten::avg_pool2d"), ==, "8.50 ms · 128 calls");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Top Operators", "aten::cat"), ==, "6.48 ms · 4 calls");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Top Operators", "aten::randn"), ==, "1.22 ms · 128 calls");

  /* The same in nanoseconds, in order; the self times add up to the
   * time of the outermost operators, 59.731595 ms. */
  {
    g_autoptr(KsRangeStats) stats = ks_range_stats_compute (trace, NULL, start, end, NULL);
    static const struct { const char *name; guint64 count; gint64 self_ns; } top[] = {
      { "aten::normal_", 128, 24931614 },
      { "aten::avg_pool2d", 128, 8503123 },
      { "aten::cat", 4, 6478017 },
      { "aten::copy_", 8, 2798954 },
      { "aten::cudnn_convolution", 8, 1491563 },
      { "aten::convolution_backward", 8, 1366340 },
      { "aten::randn", 128, 1223884 },
    };
    gint64 sum = 0;

    for (guint i = 0; i < G_N_ELEMENTS (top); i++)
      {
        const KsRangeEntry *e = &g_array_index (stats->operators, KsRangeEntry, i);

        g_assert_cmpstr (ks_trace_string (trace, e->name), ==, top[i].name);
        g_assert_cmpuint (e->count, ==, top[i].count);
        g_assert_cmpint (e->total_ns, ==, top[i].self_ns);
      }
    for (guint i = 0; i < stats->operators->len; i++)
      sum += g_array_index (stats->operators, KsRangeEntry, i).total_ns;
    g_assert_cmpint (sum, ==, 59731595);
  }

  /* A narrower range: the 2 ms around the longest kernel holds it whole. */
  {
    guint32 track = 0, slice = ks_test_find_longest (trace, LB_KERNEL_NAME, &track);
    gint64 ks = trace->tracks[track].start[slice];
    double x0, x1;

    ks_session_set_visible (session, ks - 1000000, ks + 1000000);
    x0 = ks_timeline_time_to_x (timeline, ks - 10000);
    x1 = ks_timeline_time_to_x (timeline, trace->tracks[track].end[slice] + 10000);
    drag (timeline, x0, 300, x1 - x0, 0);
    WAIT_FOR (!ks_selection_page_get_busy (page));
    g_assert_nonnull (ks_selection_page_lookup_value (page, "Top Kernels", LB_KERNEL_NAME));
    g_assert_true (g_str_has_prefix (ks_selection_page_lookup_value (page, "Top Kernels", LB_KERNEL_NAME), "246 µs · 1 call"));
  }

  gtk_window_destroy (GTK_WINDOW (window));
}

/* "title = value" of each row of the selection page's group @title, in order. */
static char *
group_rows (KsSelectionPage *page,
            const char      *title)
{
  g_autoptr(GString) out = g_string_new (NULL);
  GtkWidget *group = find_titled (GTK_WIDGET (page), ADW_TYPE_PREFERENCES_GROUP, title);
  GtkWidget *list;

  g_assert_nonnull (group);
  list = ks_test_find_descendant (group, GTK_TYPE_LIST_BOX, NULL);
  g_assert_nonnull (list);
  for (GtkWidget *row = gtk_widget_get_first_child (list); row != NULL; row = gtk_widget_get_next_sibling (row))
    {
      const char *name;

      if (!ADW_IS_ACTION_ROW (row))
        continue;
      name = adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row));
      if (out->len > 0)
        g_string_append_c (out, '\n');
      g_string_append_printf (out, "%s = %s", name, ks_selection_page_lookup_value (page, title, name));
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* The Python samples row under the thread: hover shows the frame and its
 * stack, a click selects the frame and the page shows the whole stack. */
static void
test_python_samples (void)
{
  KsWindow *window = ks_test_open_window (LB_FILE);
  KsSession *session = ks_window_get_session (window);
  KsTimeline *timeline = ks_window_get_timeline (window);
  KsSelectionPage *page = KS_SELECTION_PAGE (ks_window_get_page (window, "selection"));
  g_autoptr(KsTrace) trace = ks_test_sampled_trace ();
  KsTimelineLayout *layout;
  const KsRow *row;
  g_autofree char *markup = NULL;
  g_autofree char *stack = NULL;
  guint32 track = 0, slice, sel_track, sel_slice;
  double x, y;

  ks_session_set_trace (session, trace);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
  layout = ks_timeline_get_layout (timeline);
  slice = ks_test_find_sample_slice (trace, "decode_batch", &track);
  row = ks_timeline_layout_get_row (layout, ks_timeline_layout_find_track_row (layout, track));
  g_assert_cmpstr (row->label, ==, "Python samples");
  g_assert_cmpuint (trace->tracks[track].depth[slice], ==, 3);
  g_assert_cmpint (trace->tracks[track].end[slice] - trace->tracks[track].start[slice], ==, 10000000);

  ks_session_fit_all (session);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
  g_assert_true (ks_timeline_get_slice_point (timeline, track, slice, &x, &y));

  markup = ks_timeline_dup_tooltip_markup (timeline, x, y, NULL);
  g_assert_cmpstr (markup, ==,
                   "<b>decode_batch</b>\n" KS_TEST_PY_LOADER ":80\n10 samples · 10.0 ms\n"
                   "\ndecode_batch  <small>" KS_TEST_PY_LOADER ":80</small>"
                   "\nload_batch  <small>" KS_TEST_PY_LOADER ":57</small>"
                   "\ntrain  <small>" KS_TEST_PY_TRAIN ":5</small>"
                   "\n&lt;module&gt;  <small>" KS_TEST_PY_TRAIN ":10</small>");

  ks_test_click_timeline (GTK_WIDGET (timeline), 1, x, y);
  g_assert_true (ks_session_get_selected_slice (session, &sel_track, &sel_slice));
  g_assert_cmpuint (sel_track, ==, track);
  g_assert_cmpuint (sel_slice, ==, slice);
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Slice", "Name"), ==, "decode_batch");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Slice", "Kind"), ==, "sample");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Slice", "Duration"), ==, "10.0 ms");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Python Frame", "Function"), ==, "decode_batch");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Python Frame", "Location"), ==, KS_TEST_PY_LOADER ":80");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Python Frame", "Samples"), ==, "10");
  /* the frame's args are the rows above, not an Arguments group again */
  g_assert_null (ks_selection_page_lookup_value (page, "Arguments", "file"));
  stack = group_rows (page, "Stack");
  g_assert_cmpstr (stack, ==,
                   "decode_batch = " KS_TEST_PY_LOADER ":80\n"
                   "load_batch = " KS_TEST_PY_LOADER ":57\n"
                   "train = " KS_TEST_PY_TRAIN ":5\n"
                   "<module> = " KS_TEST_PY_TRAIN ":10");
  g_clear_pointer (&stack, g_free);

  /* the outermost frame: its stack is itself, with all twenty samples */
  slice = ks_test_find_sample_slice (trace, "<module>", &track);
  g_assert_true (ks_timeline_get_slice_point (timeline, track, slice, &x, &y));
  ks_test_click_timeline (GTK_WIDGET (timeline), 1, x, y);
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Python Frame", "Samples"), ==, "20");
  stack = group_rows (page, "Stack");
  g_assert_cmpstr (stack, ==, "<module> = " KS_TEST_PY_TRAIN ":10");

  gtk_window_destroy (GTK_WINDOW (window));
}

/* Tooltips: a slice's name, duration and kind; a folded block's count;
 * a counter row's value at the pointer (the GPU memory row built from
 * the allocator's events: 65.2 MiB allocated at 39.962350 ms, the last
 * event before 60 ms; 328.6 MiB at most). */
static void
test_tooltips (void)
{
  KsWindow *window = ks_test_open_window (LB_FILE);
  KsSession *session = ks_window_get_session (window);
  KsTimeline *timeline = ks_window_get_timeline (window);
  KsTimelineLayout *layout = ks_timeline_get_layout (timeline);
  KsTrace *trace = ks_session_get_trace (session);
  GtkAdjustment *vadj = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (timeline));
  g_autofree char *markup = NULL;
  g_autofree char *expected = NULL;
  const KsRow *mem_row = NULL;
  guint32 track = 0, slice;
  GdkRectangle area;
  double x, y;

  /* The longest kernel, 246 µs. */
  slice = ks_test_find_longest (trace, LB_KERNEL_NAME, &track);
  ks_session_set_visible (session, trace->tracks[track].start[slice] - 100000,
                          trace->tracks[track].end[slice] + 100000);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
  g_assert_true (ks_timeline_get_slice_point (timeline, track, slice, &x, &y));
  markup = ks_timeline_dup_tooltip_markup (timeline, x, y, &area);
  expected = g_strdup_printf ("<b>%s</b>\n246 µs · kernel", LB_KERNEL_NAME);
  g_assert_cmpstr (markup, ==, expected);
  g_assert_cmpint (area.width, >, 0);
  g_assert_cmpint (area.x, <=, (int)x);
  g_assert_cmpint (area.x + area.width, >=, (int)x);
  g_clear_pointer (&markup, g_free);

  /* The whole trace: the 176 kernels fold into a few blocks. */
  ks_session_fit_all (session);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
  g_assert_true (ks_timeline_get_slice_point (timeline, track, slice, &x, &y));
  markup = ks_timeline_dup_tooltip_markup (timeline, x, y, NULL);
  g_assert_nonnull (markup);
  g_assert_true (g_str_has_prefix (markup, "<b>"));
  g_assert_nonnull (strstr (markup, "events</b> folded"));
  /* and how busy the block is, as its bars show it: partly */
  {
    const char *busy = strstr (markup, "busy ");
    double pct;

    g_assert_nonnull (busy);
    pct = g_ascii_strtod (busy + 5, NULL);
    g_assert_cmpfloat (pct, >, 0);
    g_assert_cmpfloat (pct, <, 100);
  }
  g_clear_pointer (&markup, g_free);

  /* The GPU memory row, scrolled into view. */
  for (guint r = 0; r < ks_timeline_layout_get_n_rows (layout); r++)
    {
      const KsRow *row = ks_timeline_layout_get_row (layout, r);

      if (row->kind == KS_ROW_COUNTER && g_str_has_prefix (row->label, "Allocated on GPU 0"))
        mem_row = row;
    }
  g_assert_nonnull (mem_row);
  g_assert_cmpstr (mem_row->label, ==, "Allocated on GPU 0, peak 328.6\u00a0MiB");
  gtk_adjustment_set_value (vadj, mem_row->y - 100);
  y = KS_RULER_HEIGHT + mem_row->y - gtk_adjustment_get_value (vadj) + mem_row->height / 2.0;
  markup = ks_timeline_dup_tooltip_markup (timeline, ks_timeline_time_to_x (timeline, 60e6), y, NULL);
  g_assert_cmpstr (markup, ==, "<b>Allocated on GPU 0, peak 328.6\u00a0MiB</b>\n65.2\u00a0MiB since 40.0 ms");
  g_clear_pointer (&markup, g_free);

  /* Before the first allocation (at 32.98 ms) there is nothing to say. */
  g_assert_null (ks_timeline_dup_tooltip_markup (timeline, ks_timeline_time_to_x (timeline, 30e6), y, NULL));

  /* The HtoD bandwidth row under the pointer in the middle of the first
   * large copy: that copy's bytes over its duration, since it began. */
  {
    const KsTrack *stream = &trace->tracks[track];
    const KsRow *bw_row = NULL;
    g_autofree char *since = NULL;
    guint32 s = 0;

    for (guint r = 0; r < ks_timeline_layout_get_n_rows (layout); r++)
      if (g_strcmp0 (ks_timeline_layout_get_row (layout, r)->label, "HtoD copy bandwidth (GB/s)") == 0)
        bw_row = ks_timeline_layout_get_row (layout, r);
    g_assert_nonnull (bw_row);
    while (s < stream->n_slices && !(stream->slice_kind[s] == KS_SLICE_MEMCPY && stream->gpu[s].copy.bytes > 1048576))
      s++;
    g_assert_cmpuint (s, <, stream->n_slices);
    gtk_adjustment_set_value (vadj, 0);
    y = KS_RULER_HEIGHT + bw_row->y + bw_row->height / 2.0;
    markup = ks_timeline_dup_tooltip_markup (timeline, ks_timeline_time_to_x (timeline, (stream->start[s] + stream->end[s]) / 2.0),
                                             y, NULL);
    since = ks_time_format_duration (stream->start[s]);
    g_free (expected);
    expected = g_strdup_printf ("<b>HtoD copy bandwidth (GB/s)</b>\n%.4g GB/s since %s",
                                (double)stream->gpu[s].copy.bytes / (stream->end[s] - stream->start[s]), since);
    g_assert_cmpstr (markup, ==, expected);
    g_clear_pointer (&markup, g_free);
  }

  gtk_window_destroy (GTK_WINDOW (window));
}

/* A trace with load warnings shows them in a banner at the top of the
 * window (a truncated JSON: the cut and the flows it orphaned); one
 * without shows none. */
/* A slice with a thread time (trace-event "tts"/"tdur") shows its CPU
 * time beside the wall time; one without shows none. */
static void
test_select_thread_time (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-tt-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "tt.json", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  const char *json =
    "[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":400,\"tts\":12,\"tdur\":100,\"name\":\"busy\"},"
    "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":500,\"dur\":100,\"name\":\"plain\"}]";
  KsWindow *window;
  KsSession *session;
  KsTrace *trace;
  KsSelectionPage *page;
  guint32 track;

  g_assert_true (g_file_set_contents (path, json, -1, NULL));
  window = ks_test_open_file (file);
  session = ks_window_get_session (window);
  trace = ks_session_get_trace (session);
  page = KS_SELECTION_PAGE (ks_window_get_page (window, "selection"));
  track = trace->threads[0].track;

  ks_session_select_slice (session, track, 0);
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Slice", "Duration"), ==, "400 µs");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Slice", "CPU time"), ==, "100 µs (25 %)");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Slice", "Thread clock at start"), ==, "12.0 µs");
  ks_session_select_slice (session, track, 1);
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Slice", "Name"), ==, "plain");
  g_assert_null (ks_selection_page_lookup_value (page, "Slice", "CPU time"));

  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
  g_rmdir (dir);
}

static int
compare_ints (gconstpointer a,
              gconstpointer b)
{
  return *(const int *)a - *(const int *)b;
}

/* Pixel columns of the time area where row @y of a B8G8R8A8 picture
 * shows @color (ticks are drawn opaque). */
static GArray *
columns_of_color (const guchar *data,
                  gsize         stride,
                  int           width,
                  int           y,
                  KsColor       color)
{
  GArray *xs = g_array_new (FALSE, FALSE, sizeof (int));

  for (int x = KS_HEADER_WIDTH; x < width; x++)
    {
      const guchar *p = data + y * stride + 4 * x;

      if (ABS (p[2] - (int)((color >> 24) & 0xff)) <= 8 &&
          ABS (p[1] - (int)((color >> 16) & 0xff)) <= 8 &&
          ABS (p[0] - (int)((color >> 8) & 0xff)) <= 8)
        g_array_append_val (xs, x);
    }
  return xs;
}

static void
assert_same_columns (GArray     *a,
                     GArray     *b,
                     const char *what)
{
  for (guint i = 0; i < MAX (a->len, b->len); i++)
    if (i >= a->len || i >= b->len || g_array_index (a, int, i) != g_array_index (b, int, i))
      g_error ("%s: tick %u at x = %d, expected %d", what, i,
               i < a->len ? g_array_index (a, int, i) : -1,
               i < b->len ? g_array_index (b, int, i) : -1);
}

/* The window's ruler and `kinescope-cli render`'s replay the same
 * primitives of the layout: their ticks fall on the same pixel columns,
 * the ones that ks_timeline_layout_build_ruler() lays out. */
static void
test_ruler_backends (void)
{
  KsWindow *window = ks_test_open_window (LB_FILE);
  KsTimeline *timeline = ks_window_get_timeline (window);
  KsTimelineLayout *layout = ks_timeline_get_layout (timeline);
  KsSession *session = ks_window_get_session (window);
  const KsTheme *theme = ks_theme_get (FALSE);
  int width = gtk_widget_get_width (GTK_WIDGET (timeline));
  int height = gtk_widget_get_height (GTK_WIDGET (timeline));
  int y = KS_RULER_HEIGHT - 3;   /* below the labels: major and minor ticks only */
  g_autoptr(GArray) expected = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr(GArray) from_gtk = NULL;
  g_autoptr(GArray) from_cairo = NULL;
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree guchar *pixels = NULL;
  cairo_surface_t *surface;
  cairo_t *cr;
  GtkSnapshot *snapshot;
  KsRenderOptions options;
  KsTimeView view;
  KsPrims prims;
  double t0, t1;

  g_assert_false (adw_style_manager_get_dark (adw_style_manager_get_default ()));

  /* A view with minor ticks as well: 2 ms from 40 ms. */
  ks_session_set_visible (session, 40e6, 42e6);
  ks_session_get_visible (session, &t0, &t1);

  ks_render_options_init (&options, ks_session_get_trace (session), width, height);
  options.t0 = t0;
  options.t1 = t1;
  ks_render_options_view (&options, &view);

  ks_prims_init (&prims);
  ks_timeline_layout_build_ruler (&view, theme, width, height, KS_HEADER_WIDTH, KS_RULER_HEIGHT, &prims);
  for (guint i = 0; i < prims.rects->len; i++)
    {
      const KsPrimRect *r = &g_array_index (prims.rects, KsPrimRect, i);
      int x = (int)r->x;

      if (r->color == theme->dim_foreground && r->y <= y && r->y + r->h > y && r->w == 1 && x < width)
        g_array_append_val (expected, x);
    }
  /* Major and minor ticks coincide every few ticks: each column once. */
  g_array_sort (expected, compare_ints);
  for (guint i = 1; i < expected->len; i++)
    if (g_array_index (expected, int, i) == g_array_index (expected, int, i - 1))
      g_array_remove_index (expected, i--);
  ks_prims_clear (&prims);
  g_assert_cmpuint (expected->len, >, 10);

  /* The window, as GTK draws it. */
  snapshot = gtk_snapshot_new ();
  GTK_WIDGET_GET_CLASS (timeline)->snapshot (GTK_WIDGET (timeline), snapshot);
  node = gtk_snapshot_free_to_node (snapshot);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (GTK_WIDGET (timeline))),
                                         node, &GRAPHENE_RECT_INIT (0, 0, width, height));
  pixels = g_malloc (4 * (gsize)width * height);
  gdk_texture_download (texture, pixels, 4 * width);
  from_gtk = columns_of_color (pixels, 4 * width, width, y, theme->dim_foreground);

  /* The picture, as cairo draws it. */
  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cr = cairo_create (surface);
  ks_render_cairo (layout, cr, &options);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  from_cairo = columns_of_color (cairo_image_surface_get_data (surface),
                                 cairo_image_surface_get_stride (surface), width, y, theme->dim_foreground);
  cairo_surface_destroy (surface);

  assert_same_columns (from_gtk, expected, "window");
  assert_same_columns (from_cairo, expected, "picture");

  gtk_window_destroy (GTK_WINDOW (window));
}

/* The header of @column in @view: the child of the view's header row
 * whose label is the column's title. */
static GtkWidget *
column_header (GtkWidget           *view,
               GtkColumnViewColumn *column)
{
  for (GtkWidget *header = gtk_widget_get_first_child (gtk_widget_get_first_child (view));
       header != NULL; header = gtk_widget_get_next_sibling (header))
    {
      GtkWidget *label = ks_test_find_descendant (header, GTK_TYPE_LABEL, NULL);

      if (label != NULL &&
          g_strcmp0 (gtk_label_get_text (GTK_LABEL (label)), gtk_column_view_column_get_title (column)) == 0)
        return header;
    }
  return NULL;
}

/* At the window's default size (1280×800) each table's shown columns fit
 * the side panel, with room for the names and whole titles; the other
 * columns are a click away in the header's menu; each number column's
 * header says what it counts, the Grid's what its * means. */
static void
test_tables_fit (void)
{
  static const char *const pages[] = { "gaps", "operators", "kernels", "memory" };
  g_autoptr(GFile) file = ks_test_fixture (LB_FILE);
  KsWindow *window = ks_window_new (NULL);
  int width, height;

  gtk_window_get_default_size (GTK_WINDOW (window), &width, &height);
  g_assert_cmpint (width, ==, 1280);
  g_assert_cmpint (height, ==, 800);
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, file);
  WAIT_FOR (ks_window_get_session (window) != NULL);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));

  for (guint p = 0; p < G_N_ELEMENTS (pages); p++)
    {
      GtkWidget *page = ks_window_get_page (window, pages[p]);
      GtkWidget *view = ks_test_find_descendant (page, GTK_TYPE_COLUMN_VIEW, NULL);
      GListModel *columns;
      GMenuModel *menu = NULL;
      guint n_shown = 0, n_columns;

      ks_window_show_page (window, pages[p]);
      gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
      g_assert_nonnull (view);
      /* the columns' widths settle over the frames after the page shows */
      WAIT_FOR (ks_test_columns_fit (page));

      columns = gtk_column_view_get_columns (GTK_COLUMN_VIEW (view));
      n_columns = g_list_model_get_n_items (columns);
      for (guint i = 0; i < n_columns; i++)
        {
          g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);
          GtkWidget *header = column_header (view, column);
          GtkWidget *label;
          int natural;

          g_assert_nonnull (header);
          /* Every column is in the header's menu, shown or not. */
          menu = gtk_column_view_column_get_header_menu (column);
          g_assert_nonnull (menu);
          g_assert_cmpint (g_menu_model_get_n_items (menu), ==, n_columns);
          if (!gtk_column_view_column_get_visible (column))
            continue;
          n_shown++;
          label = ks_test_find_descendant (header, GTK_TYPE_LABEL, NULL);
          gtk_widget_measure (label, GTK_ORIENTATION_HORIZONTAL, -1, NULL, &natural, NULL, NULL);
          if (gtk_widget_get_width (label) < natural)
            g_error ("%s: the title “%s” is cut (%d of %d px)", pages[p],
                     gtk_label_get_text (GTK_LABEL (label)), gtk_widget_get_width (label), natural);
          if (gtk_column_view_column_get_expand (column))
            g_assert_cmpint (gtk_widget_get_width (header), >=, 150);
        }
      g_assert_cmpuint (n_shown, >=, 3);
    }

  /* Kernels: the Grid column, hidden at first, shown from the menu; its
   * header explains the * of calls with differing launches. */
  {
    GtkWidget *view = ks_test_find_descendant (ks_window_get_page (window, "kernels"), GTK_TYPE_COLUMN_VIEW, NULL);
    GListModel *columns = gtk_column_view_get_columns (GTK_COLUMN_VIEW (view));
    g_autoptr(GtkColumnViewColumn) grid = NULL;
    g_autoptr(GtkColumnViewColumn) total = NULL;

    for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
      {
        g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);

        if (g_strcmp0 (gtk_column_view_column_get_title (column), "Grid") == 0)
          grid = g_object_ref (column);
        else if (g_strcmp0 (gtk_column_view_column_get_title (column), "Total") == 0)
          total = g_object_ref (column);
      }
    g_assert_nonnull (grid);
    g_assert_nonnull (total);
    ks_window_show_page (window, "kernels");
    gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
    g_assert_true (gtk_column_view_column_get_visible (total));
    g_assert_false (gtk_column_view_column_get_visible (grid));
    g_assert_true (gtk_widget_activate_action (view, "columns.grid", NULL));
    g_assert_true (gtk_column_view_column_get_visible (grid));
    g_assert_cmpstr (gtk_widget_get_tooltip_text (column_header (view, grid)), ==,
                     "Grid of the first call; * when calls differ");
    g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (column_header (view, total)) ?: "", "kernel"));
    g_assert_true (gtk_widget_activate_action (view, "columns.grid", NULL));
    g_assert_false (gtk_column_view_column_get_visible (grid));
  }

  gtk_window_destroy (GTK_WINDOW (window));
}

/* At 800×600 the timeline keeps at least half the width; the side panel
 * hides with its header button or F9 (win.toggle-side-panel), giving the
 * timeline the whole width, and comes back the same way. */
static void
test_narrow (void)
{
  KsWindow *window = ks_test_open_window (LB_FILE);
  KsTimeline *timeline = ks_window_get_timeline (window);
  GtkWidget *panel = ks_test_find_child (GTK_WIDGET (window), "GtkPaned");
  GtkWidget *side;
  GtkWidget *button;
  int full;

  g_assert_nonnull (panel);
  side = gtk_paned_get_end_child (GTK_PANED (panel));
  gtk_window_set_default_size (GTK_WINDOW (window), 800, 600);
  gtk_window_unmaximize (GTK_WINDOW (window));
  WAIT_FOR (gtk_widget_get_width (GTK_WIDGET (window)) <= 800);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  /* (less the window's frame) */
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (window)), >=, 780);
  g_assert_true (gtk_widget_get_mapped (side));
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (timeline)), >=, gtk_widget_get_width (GTK_WIDGET (window)) / 2);
  ks_test_save_screenshot (GTK_WIDGET (window), "window-800x600.png");

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.toggle-side-panel", NULL));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  g_assert_false (gtk_widget_get_visible (side));
  full = gtk_widget_get_width (GTK_WIDGET (timeline));
  g_assert_cmpint (full, >=, gtk_widget_get_width (GTK_WIDGET (window)) - 10);

  /* The header button shows the state and brings the panel back. */
  button = ks_test_find_descendant (GTK_WIDGET (window), GTK_TYPE_TOGGLE_BUTTON, "side-panel-button");
  g_assert_nonnull (button);
  g_assert_false (gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (button)));
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (button), TRUE);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  g_assert_true (gtk_widget_get_visible (side));
  g_assert_cmpint (gtk_widget_get_width (GTK_WIDGET (timeline)), <, full);

  /* F9 is bound to the action. */
  g_assert_true (ks_test_has_shortcut (GTK_WIDGET (window), "F9", "win.toggle-side-panel"));

  gtk_window_destroy (GTK_WINDOW (window));
}

/* The Queues page in the window: activating stream 7 zooms the timeline
 * to where its queue was longest and scrolls its rows into view. */
static void
test_queue_page_navigates (void)
{
  KsWindow *window = ks_test_open_window (LB_FILE);
  KsSession *session = ks_window_get_session (window);
  KsTimeline *timeline = ks_window_get_timeline (window);
  KsTimelineLayout *layout = ks_timeline_get_layout (timeline);
  GtkAdjustment *vadj = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (timeline));
  GtkWidget *page = ks_window_get_page (window, "queue");
  GtkWidget *view;
  const KsQueueStats *q;
  const KsRow *row;
  double t0, t1;

  WAIT_FOR (ks_session_get_analysis (session) != NULL);
  ks_window_show_page (window, "queue");
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  view = ks_test_find_descendant (page, GTK_TYPE_COLUMN_VIEW, NULL);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (view)))), ==, 1);
  q = ks_analysis_get_queues (ks_session_get_analysis (session), NULL);

  /* rows scrolled away first, so that revealing them is seen */
  gtk_adjustment_set_value (vadj, gtk_adjustment_get_upper (vadj));
  g_signal_emit_by_name (view, "activate", 0u);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  ks_session_get_visible (session, &t0, &t1);
  g_assert_cmpfloat (t0, <=, q->max_ts);
  g_assert_cmpfloat (t1, >, q->max_ts);
  g_assert_cmpfloat (t1 - t0, <, (q->end - q->start) / 10.0);
  row = ks_timeline_layout_get_row (layout, ks_timeline_layout_find_track_row (layout, q->track));
  g_assert_cmpfloat (row->y, >=, gtk_adjustment_get_value (vadj));
  g_assert_cmpfloat (row->y + row->height, <=, gtk_adjustment_get_value (vadj) + gtk_adjustment_get_page_size (vadj));
  ks_test_save_screenshot (GTK_WIDGET (window), "window-queue-page.png");

  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  /* Isolated XDG folders: the recent files list starts empty. */
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;

  g_test_add_func ("/app/window/navigate", test_navigate);
  g_test_add_func ("/app/window/select-kernel", test_select_kernel);
  g_test_add_func ("/app/window/select-step", test_select_step);
  g_test_add_func ("/app/window/range", test_range);
  g_test_add_func ("/app/window/tooltips", test_tooltips);
  g_test_add_func ("/app/window/python-samples", test_python_samples);
  g_test_add_func ("/app/window/select-thread-time", test_select_thread_time);
  g_test_add_func ("/app/window/ruler-backends", test_ruler_backends);
  g_test_add_func ("/app/window/narrow", test_narrow);
  g_test_add_func ("/app/window/tables-fit", test_tables_fit);
  g_test_add_func ("/app/window/queue-page-navigates", test_queue_page_navigates);

  return g_test_run ();
}
