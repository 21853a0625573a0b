/* test-window.c
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
#include "ks-json-writer.h"
#include "ks-report.h"
#include "ks-trace-loader.h"
#include "ks-window.h"
#include "pages/ks-ranks-page.h"

#ifdef HAVE_XTST
#include <gdk/x11/gdkx.h>
#include <X11/extensions/XTest.h>
#endif

/* Expected values computed from the fixture JSON with a separate python3
 * script (durations are the JSON's microseconds, formatted to three
 * significant digits as the page shows them). */
#define LB_FILE          "loader_bound.pt.trace.json.gz"
#define LB_KERNEL_NAME   "sm80_xmma_wgrad_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize64x64x64_stage4_warpsize2x2x1_g1_tensor16x8x8_execute_kernel__5x_cudnn"
#define LB_MEMCPY_NAME   "Memcpy HtoD (Pageable -> Device)"
/* Union of all kernel intervals: 4600.263 µs. */
#define LB_KERNEL_UNION_NS 4600263.0

static char *screenshot_dir;

/* Runs the main loop until @cond holds or 20 s pass. */
#define WAIT_FOR(cond) KS_TEST_WAIT_FOR (cond, 20000)

static GFile *
fixture (const char *name)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);

  return g_file_new_for_path (path);
}

static void
save_screenshot (GtkWidget  *widget,
                 const char *name)
{
  g_autoptr(GdkPaintable) paintable = NULL;
  g_autoptr(GtkSnapshot) snapshot = NULL;
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree char *path = NULL;
  GskRenderer *renderer;

  if (screenshot_dir == NULL)
    return;

  /* A toplevel's paintable is empty: draw its content instead. */
  if (ADW_IS_APPLICATION_WINDOW (widget))
    widget = adw_application_window_get_content (ADW_APPLICATION_WINDOW (widget));
  paintable = gtk_widget_paintable_new (widget);
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, gtk_widget_get_width (widget), gtk_widget_get_height (widget));
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  if (node == NULL)
    return;
  renderer = gtk_native_get_renderer (gtk_widget_get_native (widget));
  texture = gsk_renderer_render_texture (renderer, node,
                                         &GRAPHENE_RECT_INIT (0, 0, gtk_widget_get_width (widget),
                                                              gtk_widget_get_height (widget)));
  path = g_build_filename (screenshot_dir, name, NULL);
  gdk_texture_save_to_png (texture, path);
}

static KsWindow *
open_window (const char *name)
{
  g_autoptr(GFile) file = fixture (name);
  KsWindow *window = ks_window_new (NULL);

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, file);

  /* The progress page shows at once, before the trace is there. */
  g_assert_true (ks_window_get_loading (window));

  WAIT_FOR (ks_window_get_session (window) != NULL);
  g_assert_false (ks_window_get_loading (window));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  WAIT_FOR (gtk_widget_get_width (GTK_WIDGET (ks_window_get_timeline (window))) > 400);
  return window;
}

static GtkWidget *
find_child (GtkWidget  *root,
            const char *type_name)
{
  if (g_str_equal (G_OBJECT_TYPE_NAME (root), type_name))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_child (c, type_name);

      if (found != NULL)
        return found;
    }
  return NULL;
}

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

/* The empty window's list of recent traces. */
static GtkWidget *
find_recent_list (GtkWidget *root)
{
  if (GTK_IS_LIST_BOX (root) && g_strcmp0 (gtk_widget_get_name (root), "recent-list") == 0)
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_recent_list (c);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The window's main stack: empty, loading, trace. */
static GtkWidget *
find_main_stack (GtkWidget *root)
{
  if (GTK_IS_STACK (root) && gtk_stack_get_child_by_name (GTK_STACK (root), "loading") != NULL)
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_main_stack (c);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static guint32
find_longest (KsTrace    *trace,
              const char *name,
              guint32    *track_out)
{
  guint32 id = ks_trace_lookup_string (trace, name);
  guint32 best = KS_NO_INDEX;
  gint64 best_dur = -1;

  g_assert_cmpuint (id, !=, 0);
  for (guint32 t = 0; t < trace->n_tracks; t++)
    for (guint32 i = 0; i < trace->tracks[t].n_slices; i++)
      if (trace->tracks[t].name_id[i] == id && trace->tracks[t].end[i] - trace->tracks[t].start[i] > best_dur)
        {
          best_dur = trace->tracks[t].end[i] - trace->tracks[t].start[i];
          best = i;
          *track_out = t;
        }
  g_assert_cmpuint (best, !=, KS_NO_INDEX);
  return best;
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
assert_visible (KsSession *session,
                double     t0,
                double     t1)
{
  double v0, v1;

  ks_session_get_visible (session, &v0, &v1);
  g_assert_cmpfloat_with_epsilon (v0, t0, MAX (1.0, (t1 - t0) * 1e-6));
  g_assert_cmpfloat_with_epsilon (v1, t1, MAX (1.0, (t1 - t0) * 1e-6));
}

static void
test_navigate (void)
{
  KsWindow *window = open_window (LB_FILE);
  KsSession *session = ks_window_get_session (window);
  KsTimeline *timeline = ks_window_get_timeline (window);
  KsTrace *trace = ks_session_get_trace (session);
  GtkEventController *motion = ks_test_find_controller (GTK_WIDGET (timeline), "ks-timeline-motion");
  GtkEventController *zoom = ks_test_find_controller (GTK_WIDGET (timeline), "ks-timeline-zoom");
  KsTimelineLayout *layout = ks_timeline_get_layout (timeline);
  double d = 0, t0, t1, anchor, x;

  save_screenshot (GTK_WIDGET (window), "window-open.png");

  /* The whole trace at first: up to its last slice (the fixture has no
   * allocation after it), not to Kineto's "Record Window End" marker
   * 10.7 ms later. */
  for (guint32 t = 0; t < trace->n_tracks; t++)
    for (guint32 i = 0; i < trace->tracks[t].n_slices; i++)
      d = MAX (d, (double)trace->tracks[t].end[i]);
  g_assert_cmpfloat (d, <, trace->duration_ns - 10e6);
  assert_visible (session, 0, d);
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

  /* A pinch to twice the size halves the span, anchored the same way. */
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
    assert_visible (session, before0 + 200 * nspp, before1 + 200 * nspp);
    save_screenshot (GTK_WIDGET (window), "window-zoomed.png");

    /* D pans by a tenth of the view. */
    ks_session_get_visible (session, &t0, &t1);
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (timeline), "timeline.pan", "i", 1));
    assert_visible (session, t0 + 0.1 * (t1 - t0), t1 + 0.1 * (t1 - t0));

    /* Back returns to the view before the drag; forward comes back. */
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.back", NULL));
    assert_visible (session, before0, before1);
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.forward", NULL));
    assert_visible (session, t0 + 0.1 * (t1 - t0), t1 + 0.1 * (t1 - t0));
  }

  /* Ctrl+0 shows everything again, and goes in the history. */
  ks_session_get_visible (session, &t0, &t1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.fit-all", NULL));
  assert_visible (session, 0, d);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.back", NULL));
  assert_visible (session, t0, t1);

  /* Clicking the overview strip centres the view there, keeping the span. */
  {
    GtkWidget *overview = find_child (GTK_WIDGET (window), "KsOverview");
    GtkEventController *odrag = ks_test_find_controller (overview, "ks-overview-drag");
    int ow = gtk_widget_get_width (overview) - KS_HEADER_WIDTH;

    ks_session_get_visible (session, &t0, &t1);
    g_signal_emit_by_name (odrag, "drag-begin", KS_HEADER_WIDTH + ow * 0.25, 10.0);
    g_signal_emit_by_name (odrag, "drag-end", 0.0, 0.0);
    assert_visible (session, 0.25 * d - (t1 - t0) / 2, 0.25 * d + (t1 - t0) / 2);
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.back", NULL));
    assert_visible (session, t0, t1);
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
  KsWindow *window = open_window (LB_FILE);
  KsSession *session = ks_window_get_session (window);
  KsTimeline *timeline = ks_window_get_timeline (window);
  KsTrace *trace = ks_session_get_trace (session);
  KsSelectionPage *page = KS_SELECTION_PAGE (ks_window_get_page (window, "selection"));
  guint32 track = 0, slice, sel_track, sel_slice;
  double x, y, t0, t1;
  gint64 ks, ke;

  slice = find_longest (trace, LB_KERNEL_NAME, &track);
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
  save_screenshot (GTK_WIDGET (window), "window-kernel.png");

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
  slice = find_longest (trace, LB_MEMCPY_NAME, &track);
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
  KsWindow *window = open_window (LB_FILE);
  KsSession *session = ks_window_get_session (window);
  KsTrace *trace = ks_session_get_trace (session);
  KsSelectionPage *page = KS_SELECTION_PAGE (ks_window_get_page (window, "selection"));
  const char *group = "Step time breakdown";
  guint32 track = 0, slice;

  slice = find_longest (trace, "ProfilerStep#2", &track);
  ks_session_select_slice (session, track, slice);
  WAIT_FOR (ks_selection_page_lookup_value (page, group, "Kernel") != NULL);
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Slice", "Name"), ==, "ProfilerStep#2");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, group, "Kernel"), ==, "1.15 ms (2.9 %)");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, group, "DataLoader"), ==, "32.3 ms (81.7 %)");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, group, "Other"), ==, "1.52 ms (3.8 %)");

  /* Not a step: no breakdown. */
  slice = find_longest (trace, LB_KERNEL_NAME, &track);
  ks_session_select_slice (session, track, slice);
  g_assert_null (ks_selection_page_lookup_value (page, group, "Kernel"));

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
test_range (void)
{
  KsWindow *window = open_window (LB_FILE);
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
  save_screenshot (GTK_WIDGET (window), "window-range.png");

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
    guint32 track = 0, slice = find_longest (trace, LB_KERNEL_NAME, &track);
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

static void
test_search (void)
{
  KsWindow *window = open_window (LB_FILE);
  KsSession *session = ks_window_get_session (window);
  KsTrace *trace = ks_session_get_trace (session);
  GtkWidget *entry = find_child (GTK_WIDGET (window), "GtkSearchEntry");
  GtkWidget *bar = find_child (GTK_WIDGET (window), "GtkSearchBar");
  GtkLabel *count;
  GtkToggleButton *regex;
  guint32 track, slice;
  const char *name;

  g_assert_nonnull (entry);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.find", NULL));
  g_assert_true (gtk_search_bar_get_search_mode (GTK_SEARCH_BAR (bar)));

  /* The count label and the regex toggle sit beside the entry. */
  count = GTK_LABEL (gtk_widget_get_last_child (gtk_widget_get_parent (entry)));
  regex = GTK_TOGGLE_BUTTON (gtk_widget_get_next_sibling (entry));

  /* "conv" (any case): 56 operators and 32 Python frames. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "conv");
  WAIT_FOR (g_strcmp0 (gtk_label_get_label (count), "88 matches") == 0);

  /* Enter selects the first match, Shift+Enter steps back (wrapping). */
  g_signal_emit_by_name (entry, "activate");
  g_assert_cmpstr (gtk_label_get_label (count), ==, "1 of 88");
  g_assert_true (ks_session_get_selected_slice (session, &track, &slice));
  name = ks_trace_string (trace, trace->tracks[track].name_id[slice]);
  g_assert_nonnull (g_strstr_len (g_ascii_strdown (name, -1), -1, "conv"));
  g_signal_emit_by_name (entry, "activate");
  g_assert_cmpstr (gtk_label_get_label (count), ==, "2 of 88");
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.find-previous", NULL));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.find-previous", NULL));
  g_assert_cmpstr (gtk_label_get_label (count), ==, "88 of 88");
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  save_screenshot (GTK_WIDGET (window), "window-search.png");

  /* Regular expressions: exactly aten::conv2d or aten::relu. */
  gtk_toggle_button_set_active (regex, TRUE);
  gtk_editable_set_text (GTK_EDITABLE (entry), "^aten::(conv2d|relu)$");
  WAIT_FOR (g_strcmp0 (gtk_label_get_label (count), "16 matches") == 0);
  gtk_editable_set_text (GTK_EDITABLE (entry), "(conv");
  WAIT_FOR (g_strcmp0 (gtk_label_get_label (count), "Invalid expression") == 0);
  gtk_editable_set_text (GTK_EDITABLE (entry), "no such kernel anywhere");
  WAIT_FOR (g_strcmp0 (gtk_label_get_label (count), "No matches") == 0);

  gtk_window_destroy (GTK_WINDOW (window));
}

#ifdef HAVE_XTST
/* A real key press through the X server (XTEST), so that the event goes
 * through GTK's whole dispatch: focus widget, then bubbling up. */
static void
press_key (GtkWidget *widget,
           guint      keyval)
{
  Display *xd = gdk_x11_display_get_xdisplay (gtk_widget_get_display (widget));
  KeyCode code = XKeysymToKeycode (xd, keyval);

  g_assert_cmpuint (code, !=, 0);
  XTestFakeKeyEvent (xd, code, True, CurrentTime);
  XTestFakeKeyEvent (xd, code, False, CurrentTime);
  XFlush (xd);
}

/* @keyval with the modifier keys @mods held (0-terminated keysyms). */
static void
press_key_with (GtkWidget    *widget,
                const guint  *mods,
                guint         keyval)
{
  Display *xd = gdk_x11_display_get_xdisplay (gtk_widget_get_display (widget));
  guint n = 0;

  for (; mods[n] != 0; n++)
    XTestFakeKeyEvent (xd, XKeysymToKeycode (xd, mods[n]), True, CurrentTime);
  press_key (widget, keyval);
  while (n-- > 0)
    XTestFakeKeyEvent (xd, XKeysymToKeycode (xd, mods[n]), False, CurrentTime);
  XFlush (xd);
}
#endif

/* The timeline keys work with the focus on another widget (a side panel
 * tab), but not while typing in a text field. */
static void
test_keys_anywhere (void)
{
#ifdef HAVE_XTST
  KsWindow *window;
  KsSession *session;
  KsTrace *trace;
  GtkWidget *switcher, *tab, *entry;
  GdkSurface *surface;
  Display *xd;
  double t0, t1, s0, s1, d;
  guint32 track, slice;

  if (!GDK_IS_X11_DISPLAY (gdk_display_get_default ()))
    {
      g_test_skip ("key presses are synthesised with XTEST, which needs X11");
      return;
    }

  window = open_window (LB_FILE);
  session = ks_window_get_session (window);
  trace = ks_session_get_trace (session);
  /* Fitting shows the activity, up to the last slice. */
  {
    gint64 start, end;

    g_assert_true (ks_trace_get_activity_span (trace, &start, &end));
    g_assert_cmpint (start, ==, 0);
    d = end;
  }

  /* Without a window manager nobody gives the window the keyboard. */
  surface = gtk_native_get_surface (GTK_NATIVE (window));
  xd = gdk_x11_display_get_xdisplay (gtk_widget_get_display (GTK_WIDGET (window)));
  XSetInputFocus (xd, gdk_x11_surface_get_xid (surface), RevertToParent, CurrentTime);
  WAIT_FOR (gtk_window_is_active (GTK_WINDOW (window)));

  switcher = find_child (GTK_WIDGET (window), "GtkStackSwitcher");
  g_assert_nonnull (switcher);
  tab = gtk_widget_get_first_child (switcher);
  g_assert_true (gtk_widget_grab_focus (tab));
  g_assert_true (gtk_window_get_focus (GTK_WINDOW (window)) == tab);

  /* W zooms in by 0.8 (about the centre: the pointer is not over it). */
  assert_visible (session, 0, d);
  press_key (tab, GDK_KEY_w);
  WAIT_FOR ((ks_session_get_visible (session, &t0, &t1), t1 - t0 < d * 0.9));
  g_assert_cmpfloat_with_epsilon (t1 - t0, 0.8 * d, 1.0);

  /* D pans right by a tenth of the view, A back. */
  press_key (tab, GDK_KEY_d);
  WAIT_FOR ((ks_session_get_visible (session, &s0, &s1), s0 > t0 + 1));
  assert_visible (session, t0 + 0.1 * (t1 - t0), t1 + 0.1 * (t1 - t0));
  press_key (tab, GDK_KEY_a);
  WAIT_FOR ((ks_session_get_visible (session, &s0, &s1), s0 < t0 + 1));
  assert_visible (session, t0, t1);

  /* S zooms out again. */
  press_key (tab, GDK_KEY_s);
  WAIT_FOR ((ks_session_get_visible (session, &s0, &s1), s1 - s0 > d * 0.9));
  g_assert_cmpfloat_with_epsilon (s1 - s0, d, 1.0);

  /* F fits the selected slice; Esc clears the selection. */
  slice = find_longest (trace, LB_KERNEL_NAME, &track);
  ks_session_select_slice (session, track, slice);
  g_assert_true (gtk_widget_grab_focus (tab));
  press_key (tab, GDK_KEY_f);
  WAIT_FOR ((ks_session_get_visible (session, &s0, &s1), s1 - s0 < d * 0.5));
  g_assert_cmpfloat (s0, <=, trace->tracks[track].start[slice]);
  g_assert_cmpfloat (s1, >=, trace->tracks[track].end[slice]);
  g_assert_cmpfloat (s1 - s0, <, 2.0 * (trace->tracks[track].end[slice] - trace->tracks[track].start[slice]));
  press_key (tab, GDK_KEY_Escape);
  WAIT_FOR (!ks_session_get_selected_slice (session, NULL, NULL));

  /* In the search field the letters are text, not commands. */
  ks_session_get_visible (session, &t0, &t1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.find", NULL));
  entry = gtk_window_get_focus (GTK_WINDOW (window));
  g_assert_true (GTK_IS_TEXT (entry));
  /* Let the search bar finish revealing before typing into it. */
  ks_test_spin (500);
  press_key (entry, GDK_KEY_w);
  press_key (entry, GDK_KEY_s);
  WAIT_FOR (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (entry)), "ws") == 0);
  ks_test_spin (100);
  assert_visible (session, t0, t1);

  /* What the shortcuts window says of the search keys, typed: Enter and
   * Ctrl+G go to the next match, Shift+Enter and Ctrl+Shift+G back
   * (wrapping), with the focus in the search field. */
  {
    GtkWidget *search = find_child (GTK_WIDGET (window), "GtkSearchEntry");
    GtkLabel *count = GTK_LABEL (gtk_widget_get_last_child (gtk_widget_get_parent (search)));
    const guint shift[] = { GDK_KEY_Shift_L, 0 };
    const guint ctrl[] = { GDK_KEY_Control_L, 0 };
    const guint ctrl_shift[] = { GDK_KEY_Control_L, GDK_KEY_Shift_L, 0 };

    guint n = 0;
    g_autofree char *at = NULL, *before = NULL;

    gtk_editable_set_text (GTK_EDITABLE (search), "conv");
    WAIT_FOR (g_strcmp0 (gtk_label_get_label (count), "88 matches") == 0);
    g_assert_true (gtk_window_get_focus (GTK_WINDOW (window)) == entry);
    /* Enter goes to the first match from the view on. */
    press_key (entry, GDK_KEY_Return);
    WAIT_FOR (g_str_has_suffix (gtk_label_get_label (count), " of 88"));
    g_assert_cmpint (sscanf (gtk_label_get_label (count), "%u of 88", &n), ==, 1);
    at = g_strdup_printf ("%u of 88", n);
    before = g_strdup_printf ("%u of 88", n > 1 ? n - 1 : 88);
    press_key_with (entry, shift, GDK_KEY_Return);
    WAIT_FOR (g_strcmp0 (gtk_label_get_label (count), before) == 0);
    press_key_with (entry, ctrl, GDK_KEY_g);
    WAIT_FOR (g_strcmp0 (gtk_label_get_label (count), at) == 0);
    press_key_with (entry, ctrl_shift, GDK_KEY_g);
    WAIT_FOR (g_strcmp0 (gtk_label_get_label (count), before) == 0);
    g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (search)), ==, "conv");
  }

  gtk_window_destroy (GTK_WINDOW (window));
#else
  g_test_skip ("built without XTEST (libxtst-dev)");
#endif
}

/* Whether the timeline draws the slice on its own at the current view,
 * rather than inside a folded block. */
static gboolean
drawn_alone (KsTimeline *timeline,
             guint32     t,
             guint32     slice)
{
  KsSession *session = ks_timeline_get_session (timeline);
  const KsTrack *track = &ks_session_get_trace (session)->tracks[t];
  g_autoptr(GArray) items = g_array_new (FALSE, FALSE, sizeof (KsLodItem));
  KsTimeView view;
  double t0, t1;

  ks_session_get_visible (session, &t0, &t1);
  view.t0 = t0;
  view.width = gtk_widget_get_width (GTK_WIDGET (timeline)) - KS_HEADER_WIDTH;
  view.ns_per_px = (t1 - t0) / view.width;
  ks_lod_slices (track, track->depth[slice], &view, KS_FOLD_MIN_PX, items);
  for (guint i = 0; i < items->len; i++)
    {
      const KsLodItem *it = &g_array_index (items, KsLodItem, i);

      if (it->first == slice)
        return !it->folded;
      for (guint32 k = it->pos; k < it->pos + it->count; k++)
        if (track->by_depth[track->depth[slice]][k] == slice)
          return FALSE;
    }
  return FALSE;
}

/* Stepping through matches too small to see at the current zoom zooms
 * in until each is drawn on its own. */
static void
test_search_folded (void)
{
  KsWindow *window = open_window (LB_FILE);
  KsSession *session = ks_window_get_session (window);
  KsTimeline *timeline = ks_window_get_timeline (window);
  KsTrace *trace = ks_session_get_trace (session);
  GtkWidget *entry = find_child (GTK_WIDGET (window), "GtkSearchEntry");
  GtkLabel *count;
  guint32 track, slice, first_track = 0, first_slice = 0;
  double t0, t1;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.find", NULL));
  count = GTK_LABEL (gtk_widget_get_last_child (gtk_widget_get_parent (entry)));

  /* 8 host-to-device copies: 306.816 µs at 33.305 ms is the first, four
   * are under 1 µs; the whole 150 ms trace is in view. */
  gtk_editable_set_text (GTK_EDITABLE (entry), "memcpy htod");
  WAIT_FOR (g_strcmp0 (gtk_label_get_label (count), "8 matches") == 0);
  for (guint32 t = 0; t < trace->n_tracks && first_slice == 0; t++)
    for (guint32 i = 0; i < trace->tracks[t].n_slices; i++)
      if (g_str_equal (ks_trace_string (trace, trace->tracks[t].name_id[i]), LB_MEMCPY_NAME))
        {
          first_track = t;
          first_slice = i;
          break;
        }
  g_assert_cmpint (trace->tracks[first_track].end[first_slice] - trace->tracks[first_track].start[first_slice], ==, 306816);
  g_assert_false (drawn_alone (timeline, first_track, first_slice));

  for (guint k = 1; k <= 8; k++)
    {
      g_autofree char *expected = g_strdup_printf ("%u of 8", k);
      const KsTrack *t;
      double x, y;

      g_signal_emit_by_name (entry, "activate");
      g_assert_cmpstr (gtk_label_get_label (count), ==, expected);
      g_assert_true (ks_session_get_selected_slice (session, &track, &slice));
      t = &trace->tracks[track];
      g_assert_cmpstr (ks_trace_string (trace, t->name_id[slice]), ==, LB_MEMCPY_NAME);
      if (k == 1)
        g_assert_true (track == first_track && slice == first_slice);

      /* In view, wide enough to be drawn alone, its row scrolled to. */
      ks_session_get_visible (session, &t0, &t1);
      g_assert_cmpfloat (t0, <=, t->start[slice]);
      g_assert_cmpfloat (t1, >=, t->end[slice]);
      g_assert_true (drawn_alone (timeline, track, slice));
      gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
      g_assert_true (ks_timeline_get_slice_point (timeline, track, slice, &x, &y));
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
  KsWindow *window = open_window (LB_FILE);
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
  KsWindow *window = open_window (LB_FILE);
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
  slice = find_longest (trace, LB_KERNEL_NAME, &track);
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

static void
test_bad_file (void)
{
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  GListModel *toplevels = gtk_window_get_toplevels ();
  KsWindow *window = ks_window_new (NULL);
  AdwMessageDialog *dialog = NULL;
  int fd;

  fd = g_file_open_tmp ("ks-bad-XXXXXX.json", &path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (write (fd, "{\"traceEvents\": [ {\"ph\": \"X\", \"ts\": ", 37), ==, 37);
  close (fd);
  file = g_file_new_for_path (path);

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (ks_window_is_empty (window));
  ks_window_open (window, file);
  WAIT_FOR (!ks_window_get_loading (window));
  g_assert_null (ks_window_get_session (window));
  g_assert_true (ks_window_is_empty (window));

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) w = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (w))
        dialog = ADW_MESSAGE_DIALOG (w);
    }
  g_assert_nonnull (dialog);
  {
    g_autofree char *base = g_path_get_basename (path);
    g_autofree char *heading = g_strdup_printf ("Could Not Open “%s”", base);

    g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, heading);
    g_assert_cmpuint (strlen (adw_message_dialog_get_body (dialog)), >, 0);
  }

  gtk_window_destroy (GTK_WINDOW (dialog));
  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
}

static void
test_application_open (void)
{
  g_autoptr(KsApplication) app = ks_application_new ();
  g_autoptr(GError) error = NULL;
  GFile *files[2];
  GList *windows;
  guint n_loaded = 0;

  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, &error));
  g_assert_no_error (error);

  files[0] = fixture (LB_FILE);
  files[1] = fixture ("seed_cnn.pt.trace.json.gz");
  g_application_open (G_APPLICATION (app), files, 2, "");

  /* Two files, two windows, each with its trace. */
  windows = gtk_application_get_windows (GTK_APPLICATION (app));
  g_assert_cmpuint (g_list_length (windows), ==, 2);
  for (GList *l = windows; l != NULL; l = l->next)
    WAIT_FOR (!ks_window_get_loading (l->data));
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (app)); l != NULL; l = l->next)
    if (ks_window_get_session (l->data) != NULL)
      n_loaded++;
  g_assert_cmpuint (n_loaded, ==, 2);

  /* The demo trace opens in a new window since both are busy. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (windows->data), "win.open-demo", NULL));
  g_assert_cmpuint (g_list_length (gtk_application_get_windows (GTK_APPLICATION (app))), ==, 3);
  windows = gtk_application_get_windows (GTK_APPLICATION (app));
  WAIT_FOR (ks_window_get_session (windows->data) != NULL);
  {
    g_autofree char *base = g_file_get_basename (ks_window_get_file (windows->data));

    g_assert_cmpstr (base, ==, LB_FILE);
  }

  while ((windows = gtk_application_get_windows (GTK_APPLICATION (app))) != NULL)
    gtk_window_destroy (windows->data);
  g_object_unref (files[0]);
  g_object_unref (files[1]);
}

/* A Chrome trace of @n nested slices pairs, big enough to take a while. */
static char *
write_big_trace (guint n)
{
  g_autoptr(GString) json = g_string_sized_new (n * 120);
  g_autoptr(GError) error = NULL;
  char *path = NULL;
  int fd;

  g_string_append (json, "{\"traceEvents\": [\n");
  for (guint i = 0; i < n; i++)
    g_string_append_printf (json,
                            "{\"ph\":\"X\",\"name\":\"outer_%u\",\"pid\":1,\"tid\":%u,\"ts\":%u,\"dur\":8},\n"
                            "{\"ph\":\"X\",\"name\":\"inner\",\"pid\":1,\"tid\":%u,\"ts\":%u,\"dur\":4},\n",
                            i % 97, i % 4, i * 10, i % 4, i * 10 + 2);
  g_string_append (json, "{\"ph\":\"X\",\"name\":\"last\",\"pid\":1,\"tid\":0,\"ts\":0,\"dur\":1}]}\n");

  fd = g_file_open_tmp ("ks-big-XXXXXX.json", &path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (write (fd, json->str, json->len), ==, (gssize)json->len);
  close (fd);
  return path;
}

static gboolean
count_tick_cb (gpointer data)
{
  (*(guint *)data)++;
  return G_SOURCE_CONTINUE;
}

static void
test_load_progress_and_cancel (void)
{
  g_autofree char *path = write_big_trace (400000);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  KsWindow *window = ks_window_new (NULL);
  GtkWidget *stack = find_main_stack (GTK_WIDGET (window));
  GListModel *toplevels = gtk_window_get_toplevels ();
  guint n_toplevels, ticks = 0, tick_id;

  gtk_window_present (GTK_WINDOW (window));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  n_toplevels = g_list_model_get_n_items (toplevels);

  /* The main loop keeps running while the file loads: a 10 ms timer
   * fires many times before the trace is there. */
  tick_id = g_timeout_add (10, count_tick_cb, &ticks);
  ks_window_open (window, file);
  g_assert_true (ks_window_get_loading (window));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (stack)), ==, "loading");
  WAIT_FOR (!ks_window_get_loading (window));
  g_source_remove (tick_id);
  g_assert_nonnull (ks_window_get_session (window));
  g_assert_cmpuint (ks_session_get_trace (ks_window_get_session (window))->tracks[0].n_slices, >, 0);
  g_assert_cmpuint (ticks, >=, 3);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (stack)), ==, "trace");
  gtk_window_destroy (GTK_WINDOW (window));

  /* Cancel: back to the empty window, no trace and no error dialog. */
  window = ks_window_new (NULL);
  stack = find_main_stack (GTK_WIDGET (window));
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, file);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.cancel-load", NULL));
  WAIT_FOR (!ks_window_get_loading (window));
  g_assert_null (ks_window_get_session (window));
  g_assert_true (ks_window_is_empty (window));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (stack)), ==, "empty");
  ks_test_spin (100);
  g_assert_cmpuint (g_list_model_get_n_items (toplevels), ==, n_toplevels);

  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
}

/* The fixture's JSON cut at @bytes, in a file of the test. */
static char *
write_truncated (const char *name,
                 gsize       bytes)
{
  g_autofree char *fixture_path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);
  g_autoptr(GFile) gz = g_file_new_for_path (fixture_path);
  g_autoptr(GFileInputStream) raw = g_file_read (gz, NULL, NULL);
  g_autoptr(GZlibDecompressor) dec = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr(GInputStream) in = g_converter_input_stream_new (G_INPUT_STREAM (raw), G_CONVERTER (dec));
  g_autofree char *buf = g_malloc (bytes);
  g_autoptr(GError) error = NULL;
  gsize got = 0;
  char *path = NULL;
  int fd;

  g_assert_true (g_input_stream_read_all (in, buf, bytes, &got, NULL, &error));
  g_assert_no_error (error);
  g_assert_cmpuint (got, ==, bytes);
  fd = g_file_open_tmp ("ks-truncated-XXXXXX.json", &path, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, buf, bytes, NULL));
  return path;
}

static KsWindow *
open_file (GFile *file)
{
  KsWindow *window = ks_window_new (NULL);

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, file);
  WAIT_FOR (ks_window_get_session (window) != NULL);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  return window;
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
  window = open_file (file);
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

static void
test_load_warnings (void)
{
  g_autofree char *path = write_truncated ("seed_cnn.pt.trace.json.gz", 200000);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  /* no stack: no Python frame overlaps the steps */
  g_autoptr(GFile) clean = fixture ("mixer_eager.pt.trace.json.gz");
  g_autofree char *cut = g_strdup_printf ("%s: the file was truncated at byte 200000", path);
  KsWindow *window = open_file (file);
  GtkWidget *banner = ks_test_find_descendant (GTK_WIDGET (window), GTK_TYPE_REVEALER, "load-warnings");
  GtkWidget *first, *more, *close;
  const char *tooltip;

  g_assert_nonnull (banner);
  g_assert_nonnull (strstr (ks_trace_get_metadata (ks_session_get_trace (ks_window_get_session (window)), "warnings"),
                            "truncated at byte 200000"));
  g_assert_true (gtk_revealer_get_reveal_child (GTK_REVEALER (banner)));
  WAIT_FOR (gtk_revealer_get_child_revealed (GTK_REVEALER (banner)));
  g_assert_true (gtk_widget_get_mapped (banner));
  g_assert_cmpint (gtk_widget_get_height (banner), >, 0);

  /* The first warning in full, the others counted, all in the tooltip. */
  first = ks_test_find_label (banner, cut);
  g_assert_nonnull (first);
  {
    g_auto(GStrv) lines = g_strsplit (ks_trace_get_metadata (ks_session_get_trace (ks_window_get_session (window)),
                                                             "warnings"), "\n", -1);

    g_assert_cmpuint (g_strv_length (lines), ==, 2);
    g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (first)), ==, lines[0]);
  }
  more = ks_test_find_label (banner, "and 1 more warning");
  g_assert_nonnull (more);
  tooltip = gtk_widget_get_tooltip_text (gtk_widget_get_parent (first));
  g_assert_nonnull (tooltip);
  g_assert_nonnull (strstr (tooltip, cut));
  g_assert_nonnull (strstr (tooltip, "flow events without an id or a partner were skipped"));
  save_screenshot (GTK_WIDGET (window), "load-warnings.png");

  /* Closed, it stays closed for this trace. */
  close = ks_test_find_descendant (banner, GTK_TYPE_BUTTON, NULL);
  g_assert_nonnull (close);
  g_signal_emit_by_name (close, "clicked");
  g_assert_false (gtk_revealer_get_reveal_child (GTK_REVEALER (banner)));
  WAIT_FOR (!gtk_revealer_get_child_revealed (GTK_REVEALER (banner)));

  /* A trace without warnings: no banner. */
  ks_window_open (window, clean);
  WAIT_FOR (ks_window_get_file (window) != NULL && g_file_equal (ks_window_get_file (window), clean));
  g_assert_null (ks_trace_get_metadata (ks_session_get_trace (ks_window_get_session (window)), "warnings"));
  ks_test_spin (300);
  g_assert_false (gtk_revealer_get_reveal_child (GTK_REVEALER (banner)));
  g_assert_false (gtk_revealer_get_child_revealed (GTK_REVEALER (banner)));
  gtk_window_destroy (GTK_WINDOW (window));

  /* Again with warnings: a new trace shows its banner even after a close. */
  window = open_file (file);
  banner = ks_test_find_descendant (GTK_WIDGET (window), GTK_TYPE_REVEALER, "load-warnings");
  g_assert_true (gtk_revealer_get_reveal_child (GTK_REVEALER (banner)));
  gtk_window_destroy (GTK_WINDOW (window));

  window = open_file (clean);
  banner = ks_test_find_descendant (GTK_WIDGET (window), GTK_TYPE_REVEALER, "load-warnings");
  g_assert_false (gtk_revealer_get_reveal_child (GTK_REVEALER (banner)));
  g_assert_false (gtk_widget_get_mapped (gtk_revealer_get_child (GTK_REVEALER (banner))));
  gtk_window_destroy (GTK_WINDOW (window));

  g_unlink (path);
}

/* What the analysis leaves out (a 9.2 EB allocation) joins the banner. */
static void
test_analysis_warnings (void)
{
  static const char trace[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":100,"
    "\"args\":{\"device\":0,\"stream\":7}},"
    "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":30,"
    "\"args\":{\"Bytes\":9223372036854775807,\"Device Id\":0,\"Device Type\":1,\"Addr\":8192}}]}";
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  KsWindow *window;
  GtkWidget *banner;
  int fd = g_file_open_tmp ("ks-eb-XXXXXX.json", &path, &error);

  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, trace, -1, NULL));
  file = g_file_new_for_path (path);

  window = open_file (file);
  banner = ks_test_find_descendant (GTK_WIDGET (window), GTK_TYPE_REVEALER, "load-warnings");
  WAIT_FOR (gtk_revealer_get_reveal_child (GTK_REVEALER (banner)));
  g_assert_nonnull (ks_test_find_label (banner, "1 memory event with an impossible size (over 1 PiB)"));
  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
}

static void
test_drop_and_recent (void)
{
  g_autoptr(GFile) file = fixture ("seed_cnn.pt.trace.json.gz");
  g_autofree char *uri = g_file_get_uri (file);
  KsWindow *window = ks_window_new (NULL);
  GtkEventController *target = NULL;
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (window));
  g_autoptr(GSList) list = g_slist_append (NULL, file);
  GValue value = G_VALUE_INIT;
  gboolean handled = FALSE;

  gtk_window_present (GTK_WINDOW (window));
  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GtkEventController) c = g_list_model_get_item (controllers, i);

      if (GTK_IS_DROP_TARGET (c))
        target = c;
    }
  g_assert_nonnull (target);

  /* Dropping a file list opens the first file in this window. */
  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_take_boxed (&value, gdk_file_list_new_from_list (list));
  g_signal_emit_by_name (target, "drop", &value, 100.0, 100.0, &handled);
  g_value_unset (&value);
  g_assert_true (handled);
  WAIT_FOR (ks_window_get_session (window) != NULL);
  g_assert_true (g_file_equal (ks_window_get_file (window), file));

  /* It is now a recent file, listed in a new empty window. */
  g_assert_true (gtk_recent_manager_has_item (gtk_recent_manager_get_default (), uri));
  gtk_window_destroy (GTK_WINDOW (window));

  window = ks_window_new (NULL);
  gtk_window_present (GTK_WINDOW (window));
  {
    GtkWidget *list_box = find_recent_list (GTK_WIDGET (window));
    GtkListBoxRow *row;

    g_assert_nonnull (list_box);
    WAIT_FOR (gtk_list_box_get_row_at_index (GTK_LIST_BOX (list_box), 0) != NULL);
    row = gtk_list_box_get_row_at_index (GTK_LIST_BOX (list_box), 0);
    g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, "seed_cnn.pt.trace.json.gz");

    /* Activating it opens the trace. */
    g_signal_emit_by_name (list_box, "row-activated", row);
    WAIT_FOR (ks_window_get_session (window) != NULL);
    g_assert_true (g_file_equal (ks_window_get_file (window), file));
  }
  gtk_window_destroy (GTK_WINDOW (window));
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
  KsWindow *window = open_window (LB_FILE);
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
  g_autoptr(GFile) file = fixture (LB_FILE);
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
      ks_test_spin (100);
      g_assert_nonnull (view);
      g_assert_true (ks_test_columns_fit (page));

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
  KsWindow *window = open_window (LB_FILE);
  KsTimeline *timeline = ks_window_get_timeline (window);
  GtkWidget *panel = find_child (GTK_WIDGET (window), "GtkPaned");
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
  save_screenshot (GTK_WIDGET (window), "window-800x600.png");

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
  KsWindow *window = open_window (LB_FILE);
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
  save_screenshot (GTK_WIDGET (window), "window-queue-page.png");

  gtk_window_destroy (GTK_WINDOW (window));
}

/* Opens each fixture (and, where the shared corpus is there, an Nsight
 * export, a 2021 TensorBoard plugin trace and a CPU-only trace), goes
 * through every side page, selects a slice, steps to a gap, fits, hides
 * the side panel and closes: a GTK warning or critical on the way fails
 * the test (g_test_init makes them fatal). */
static void
test_every_fixture (void)
{
  const char *fixtures[] = {
    "loader_bound.pt.trace.json.gz", "gpt_3steps.pt.trace.json.gz", "seed_cnn.pt.trace.json.gz",
    "workers_pinned.pt.trace.json.gz", "small_mlp_60steps.kscope",
  };
  const char *corpus[] = {
    "pipit/cloverleaf-nsys/perlmutter-cloverleaf-cuda.sqlite",
    "kineto/tb_plugin_samples_2021-06/resnet50_num_workers_0/worker0.1623143089861.pt.trace.json.gz",
    "hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
  };
  const char *pages[] = { "summary", "steps", "gaps", "operators", "kernels", "memory", "tensor-cores", "queue",
                          "memcpy-bandwidth", "kernel-sequences", "gpu-annotations", "roofline", "selection" };
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  const char *shared = g_getenv ("KS_SHARED_DIR");

  for (guint i = 0; i < G_N_ELEMENTS (fixtures); i++)
    g_ptr_array_add (paths, g_build_filename (g_getenv ("KS_FIXTURES_DIR"), fixtures[i], NULL));
  for (guint i = 0; shared != NULL && i < G_N_ELEMENTS (corpus); i++)
    {
      char *path = g_build_filename (shared, "corpus", corpus[i], NULL);

      if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
        g_ptr_array_add (paths, path);
      else
        {
          g_test_message ("%s is not there: skipped", path);
          g_free (path);
        }
    }

  for (guint f = 0; f < paths->len; f++)
    {
      g_autoptr(GFile) file = g_file_new_for_path (paths->pdata[f]);
      KsWindow *window = ks_window_new (NULL);
      KsSession *session;
      KsTrace *trace;

      g_test_message ("%s", (char *)paths->pdata[f]);
      gtk_window_set_default_size (GTK_WINDOW (window), 1200, 800);
      gtk_window_present (GTK_WINDOW (window));
      ks_window_open (window, file);
      WAIT_FOR (ks_window_get_session (window) != NULL && !ks_window_get_loading (window));
      session = ks_window_get_session (window);
      trace = ks_session_get_trace (session);
      WAIT_FOR (ks_session_get_analysis (session) != NULL);

      for (guint p = 0; p < G_N_ELEMENTS (pages); p++)
        {
          ks_window_show_page (window, pages[p]);
          gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
        }
      for (guint32 t = 0; t < trace->n_tracks; t++)
        if (trace->tracks[t].n_slices > 0)
          {
            ks_session_select_slice (session, t, trace->tracks[t].n_slices / 2);
            break;
          }
      gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
      gtk_widget_activate_action (GTK_WIDGET (window), "analysis.next-gap", NULL);
      gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.fit-all", NULL));
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.toggle-side-panel", NULL));
      gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
      gtk_window_destroy (GTK_WINDOW (window));
      ks_test_spin (50);
    }
}

/* The main menu's zoom items say what they go back and forward in and
 * show their keys. */
static void
test_menu_accels (void)
{
  KsWindow *window = ks_window_new (NULL);
  GtkWidget *button = ks_test_find_descendant (GTK_WIDGET (window), GTK_TYPE_MENU_BUTTON, "primary-menu-button");
  GMenuModel *menu;
  guint found = 0;

  g_assert_nonnull (button);
  menu = gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (button));
  g_assert_nonnull (menu);

  for (int s = 0; s < g_menu_model_get_n_items (menu); s++)
    {
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (menu, s, G_MENU_LINK_SECTION);

      for (int i = 0; section != NULL && i < g_menu_model_get_n_items (section); i++)
        {
          g_autofree char *action = NULL;
          g_autofree char *label = NULL;
          g_autofree char *accel = NULL;

          g_menu_model_get_item_attribute (section, i, G_MENU_ATTRIBUTE_ACTION, "s", &action);
          g_menu_model_get_item_attribute (section, i, G_MENU_ATTRIBUTE_LABEL, "s", &label);
          g_menu_model_get_item_attribute (section, i, "accel", "s", &accel);
          if (g_strcmp0 (action, "win.back") == 0)
            {
              g_assert_cmpstr (label, ==, "Zoom _Back");
              g_assert_cmpstr (accel, ==, "<Alt>Left");
              found++;
            }
          else if (g_strcmp0 (action, "win.forward") == 0)
            {
              g_assert_cmpstr (label, ==, "Zoom _Forward");
              g_assert_cmpstr (accel, ==, "<Alt>Right");
              found++;
            }
          else if (g_strcmp0 (action, "win.fit-all") == 0)
            {
              g_assert_cmpstr (accel, ==, "<Control>0");
              found++;
            }
          else if (g_strcmp0 (action, "win.toggle-side-panel") == 0)
            {
              g_assert_cmpstr (accel, ==, "F9");
              found++;
            }
        }
    }
  g_assert_cmpuint (found, ==, 4);

  /* The open menu reads them as a user does, "Ctrl+0" and "F9". */
  gtk_window_present (GTK_WINDOW (window));
  gtk_menu_button_popup (GTK_MENU_BUTTON (button));
  ks_test_spin (200);
  {
    GtkWidget *popover = GTK_WIDGET (gtk_menu_button_get_popover (GTK_MENU_BUTTON (button)));

    g_assert_nonnull (ks_test_find_label (popover, "Ctrl+0"));
    g_assert_nonnull (ks_test_find_label (popover, "F9"));
    g_assert_nonnull (ks_test_find_label (popover, "Alt+"));
    gtk_menu_button_popdown (GTK_MENU_BUTTON (button));
  }
  gtk_window_destroy (GTK_WINDOW (window));
}

typedef struct
{
  guint paints;
  guint paints_at_session;
  guint paints_at_analysis;
  gboolean analysed;
} FrameOrder;

static void
frame_order_paint_cb (GdkFrameClock *clock,
                      FrameOrder    *order)
{
  order->paints++;
}

static void
frame_order_analysis_cb (KsSession  *session,
                         GParamSpec *pspec,
                         FrameOrder *order)
{
  if (ks_session_get_analysis (session) != NULL && !order->analysed)
    {
      order->analysed = TRUE;
      order->paints_at_analysis = order->paints;
    }
}

static void
frame_order_session_cb (KsWindow   *window,
                        GParamSpec *pspec,
                        FrameOrder *order)
{
  order->paints_at_session = order->paints;
  g_signal_connect (ks_window_get_session (window), "notify::analysis",
                    G_CALLBACK (frame_order_analysis_cb), order);
}

/* The timeline is drawn before the analysis fills the pages, even for a
 * trace whose analysis takes less than a frame. */
static void
test_analysis_after_first_frame (void)
{
  g_autoptr(GString) json = g_string_new ("{\"traceEvents\":[");
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  FrameOrder order = { 0 };
  KsWindow *window;
  GdkFrameClock *clock;
  int fd;

  for (guint i = 0; i < 20; i++)
    g_string_append_printf (json, "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%u\",\"pid\":0,\"tid\":7,"
                            "\"ts\":%u,\"dur\":5,\"args\":{\"device\":0,\"stream\":7}}", i ? "," : "", i, 10 + 20 * i);
  g_string_append (json, "]}");
  fd = g_file_open_tmp ("ks-first-frame-XXXXXX.json", &path, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, json->str, json->len, NULL));
  file = g_file_new_for_path (path);

  window = ks_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  clock = gtk_widget_get_frame_clock (GTK_WIDGET (window));
  g_assert_nonnull (clock);
  g_signal_connect (clock, "after-paint", G_CALLBACK (frame_order_paint_cb), &order);
  g_signal_connect (window, "notify::session", G_CALLBACK (frame_order_session_cb), &order);

  ks_window_open (window, file);
  WAIT_FOR (order.analysed);
  g_test_message ("paints when the trace was set: %u, when the analysis came: %u",
                  order.paints_at_session, order.paints_at_analysis);
  g_assert_cmpuint (order.paints_at_analysis, >, order.paints_at_session);

  g_signal_handlers_disconnect_by_data (clock, &order);
  g_signal_handlers_disconnect_by_data (ks_window_get_session (window), &order);
  g_signal_handlers_disconnect_by_data (window, &order);
  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
}

/* The GtkColumnView under @root. */
static GtkColumnView *
find_column_view (GtkWidget *root)
{
  return GTK_COLUMN_VIEW (ks_test_find_descendant (root, GTK_TYPE_COLUMN_VIEW, NULL));
}

/* A folder of two ranks over the memory bound (forced to 0 MiB) opens to
 * the Ranks page from summaries, holding no trace; activating a rank
 * loads its events alone and shows its timeline, the side panel's Ranks
 * page saying which rank is loaded; activating the other there swaps
 * them. */
static void
test_job_summaries (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-job-XXXXXX", NULL);
  g_autoptr(GFile) folder = g_file_new_for_path (dir);
  KsWindow *window;
  GtkWidget *stack, *job_page, *side_page;
  KsRankSummaries *summaries;
  KsTrace *trace;
  guint n;

  for (guint k = 0; k < 2; k++)
    {
      g_autofree char *name = g_strdup_printf ("rank-%u.json", k);
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_autofree char *json = g_strdup_printf (
        "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %u, \"world_size\": 2},\n"
        " \"traceEvents\": [\n"
        "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 10, \"tid\": 10, \"ts\": 1000, \"dur\": 500},\n"
        "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 7, \"ts\": 1100, \"dur\": %u,\n"
        "   \"args\": {\"device\": 0, \"stream\": 7}}]}\n", k, 100 + 50 * k);

      g_assert_true (g_file_set_contents (path, json, -1, NULL));
    }
  /* a trace of the folder that names no rank: said, and left out */
  {
    g_autofree char *stray = g_build_filename (dir, "stray.json", NULL);

    g_assert_true (g_file_set_contents (stray, "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", "
                                               "\"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 2}]}", -1, NULL));
  }
  g_setenv ("KINESCOPE_FOLDER_MEMORY_MB", "0", TRUE);

  window = ks_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  gtk_window_present (GTK_WINDOW (window));
  stack = find_main_stack (GTK_WIDGET (window));
  ks_window_open (window, folder);
  g_assert_true (ks_window_get_loading (window));
  WAIT_FOR (!ks_window_get_loading (window));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));

  /* the Ranks page, from summaries: no trace is held */
  g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (stack)), ==, "job");
  g_assert_null (ks_window_get_session (window));
  summaries = ks_window_get_summaries (window);
  g_assert_nonnull (summaries);
  ks_rank_summaries_get_rows (summaries, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (ks_rank_summaries_get_rows (summaries, NULL)[1].kernel_time_ns, ==, 150000);
  job_page = gtk_stack_get_visible_child (GTK_STACK (stack));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (gtk_column_view_get_model (find_column_view (job_page)))), ==, 2);
  g_assert_nonnull (ks_test_find_label (job_page, "The job's "));
  g_assert_nonnull (strstr (ks_ranks_page_get_status (KS_RANKS_PAGE (job_page)),
                            "is over the memory bound of 0 bytes (Preferences, or KINESCOPE_FOLDER_MEMORY_MB): "
                            "its 2 ranks were summarised one at a time and only the rank you activate is loaded. "
                            "No rank is loaded yet."));
  g_assert_true (g_str_has_suffix (ks_ranks_page_get_status (KS_RANKS_PAGE (job_page)),
                                   " Left out, naming no rank: stray.json."));

  /* the page's rows are the whole load's, to the last digit */
  {
    g_autoptr(KsTrace) whole = NULL;
    g_autoptr(KsAnalysis) a = NULL;
    g_autoptr(KsReport) full = NULL;
    g_autoptr(KsReport) shown = NULL;
    g_autoptr(KsJsonWriter) full_json = ks_json_writer_new ();
    g_autoptr(KsJsonWriter) shown_json = ks_json_writer_new ();
    const KsRankStats *rows;

    g_unsetenv ("KINESCOPE_FOLDER_MEMORY_MB");
    whole = ks_trace_load (folder, NULL, NULL, NULL);
    g_setenv ("KINESCOPE_FOLDER_MEMORY_MB", "0", TRUE);
    g_assert_nonnull (whole);
    a = ks_analysis_compute (whole, NULL, NULL, NULL, NULL);
    full = ks_report_new_ranks (whole, a);
    rows = ks_ranks_page_get_rows (KS_RANKS_PAGE (job_page), &n);
    shown = ks_report_new_rank_rows (rows, n);
    ks_json_begin_object (full_json, NULL);
    ks_report_write_json (full, full_json, NULL, G_MAXUINT);
    ks_json_end_object (full_json);
    ks_json_begin_object (shown_json, NULL);
    ks_report_write_json (shown, shown_json, NULL, G_MAXUINT);
    ks_json_end_object (shown_json);
    g_assert_cmpstr (ks_json_writer_get_text (shown_json), ==, ks_json_writer_get_text (full_json));
    g_assert_nonnull (strstr (ks_json_writer_get_text (shown_json), "\"rank\":1,\"file\":\"rank-1.json\",\"steps\":1,"));
    g_assert_nonnull (strstr (ks_json_writer_get_text (shown_json), "\"kernel_time_ns\":150000,"));
  }

  /* rank 1: its events alone */
  g_signal_emit_by_name (find_column_view (job_page), "activate", 1u);
  g_assert_true (ks_window_get_loading (window));
  WAIT_FOR (!ks_window_get_loading (window));
  g_assert_nonnull (ks_window_get_session (window));
  trace = ks_session_get_trace (ks_window_get_session (window));
  g_assert_cmpuint (trace->n_ranks, ==, 1);
  g_assert_cmpint (trace->ranks[0].rank, ==, 1);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (stack)), ==, "trace");
  side_page = ks_window_get_page (window, "ranks");
  g_assert_true (gtk_widget_get_mapped (side_page));
  g_assert_cmpuint (ks_ranks_page_get_loaded_row (KS_RANKS_PAGE (side_page)), ==, 1);
  g_assert_nonnull (strstr (ks_ranks_page_get_status (KS_RANKS_PAGE (side_page)), "Loaded: rank 1 (the timeline shows it)."));
  g_assert_true (ks_window_get_summaries (window) == summaries);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));

  /* rank 0, from the side panel: in place of rank 1 */
  g_signal_emit_by_name (find_column_view (side_page), "activate", 0u);
  WAIT_FOR (!ks_window_get_loading (window));
  trace = ks_session_get_trace (ks_window_get_session (window));
  g_assert_cmpuint (trace->n_ranks, ==, 1);
  g_assert_cmpint (trace->ranks[0].rank, ==, 0);
  g_assert_nonnull (strstr (ks_ranks_page_get_status (KS_RANKS_PAGE (side_page)), "Loaded: rank 0 "));
  save_screenshot (GTK_WIDGET (window), "job-summaries.png");

  /* the job again, over the trace of a rank: no trace is left */
  g_assert_true (gtk_widget_is_sensitive (GTK_WIDGET (window)));
  ks_window_open (window, folder);
  WAIT_FOR (!ks_window_get_loading (window));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (stack)), ==, "job");
  g_assert_null (ks_session_get_trace (ks_window_get_session (window)));
  g_assert_false (ks_window_is_empty (window));
  /* the trace's actions are off: they do nothing */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.find", NULL);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.fit-all", NULL);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  g_assert_true (ks_window_get_summaries (window) != summaries);
  summaries = ks_window_get_summaries (window);

  /* a file that does not open leaves the job as it was */
  {
    g_autofree char *bad = g_build_filename (dir, "missing.json", NULL);
    g_autoptr(GFile) file = g_file_new_for_path (bad);
    GListModel *toplevels = gtk_window_get_toplevels ();

    ks_window_open (window, file);
    WAIT_FOR (!ks_window_get_loading (window));
    g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (stack)), ==, "job");
    g_assert_true (ks_window_get_summaries (window) == summaries);
    for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
      {
        g_autoptr(GObject) w = g_list_model_get_item (toplevels, i);

        if (ADW_IS_MESSAGE_DIALOG (w))
          {
            gtk_window_destroy (GTK_WINDOW (w));
            break;
          }
      }
  }

  /* a file of its own is no job: the summaries go */
  {
    g_autofree char *one = g_build_filename (dir, "rank-0.json", NULL);
    g_autoptr(GFile) file = g_file_new_for_path (one);

    ks_window_open (window, file);
    WAIT_FOR (!ks_window_get_loading (window));
    g_assert_null (ks_window_get_summaries (window));
    g_assert_cmpuint (ks_ranks_page_get_loaded_row (KS_RANKS_PAGE (side_page)), ==, KS_NO_INDEX);
  }

  g_unsetenv ("KINESCOPE_FOLDER_MEMORY_MB");
  gtk_window_destroy (GTK_WINDOW (window));
  {
    g_autofree char *stray = g_build_filename (dir, "stray.json", NULL);

    g_unlink (stray);
  }
  for (guint k = 0; k < 2; k++)
    {
      g_autofree char *name = g_strdup_printf ("rank-%u.json", k);
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (dir);
}

/* At 800×600 the side panel cannot show every page's tab: the button
 * beside them lists each page by its title, and choosing one shows it. */
static void
test_all_pages_menu (void)
{
  KsWindow *window = open_window (LB_FILE);
  GtkWidget *switcher = ks_test_find_descendant (GTK_WIDGET (window), GTK_TYPE_STACK_SWITCHER, NULL);
  GtkStack *stack = gtk_stack_switcher_get_stack (GTK_STACK_SWITCHER (switcher));
  /* the tabs' scrolled window, then the button in the same row */
  GtkWidget *row = gtk_widget_get_ancestor (switcher, GTK_TYPE_BOX);
  GtkWidget *button = gtk_widget_get_last_child (row);
  g_autoptr(GListModel) pages = NULL;
  GMenuModel *menu;

  g_assert_nonnull (stack);
  g_assert_true (GTK_IS_MENU_BUTTON (button));
  gtk_window_set_default_size (GTK_WINDOW (window), 800, 600);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  pages = G_LIST_MODEL (gtk_stack_get_pages (stack));
  menu = gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (button));
  g_assert_nonnull (menu);
  g_assert_cmpint (g_menu_model_get_n_items (menu), ==, g_list_model_get_n_items (pages));
  g_assert_cmpuint (g_list_model_get_n_items (pages), >=, 14);
  for (guint i = 0; i < g_list_model_get_n_items (pages); i++)
    {
      g_autoptr(GObject) page = g_list_model_get_item (pages, i);
      g_autoptr(GVariant) target = g_menu_model_get_item_attribute_value (menu, i, G_MENU_ATTRIBUTE_TARGET,
                                                                          G_VARIANT_TYPE_STRING);
      g_autofree char *label = NULL;

      g_assert_true (g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_LABEL, "s", &label));
      g_assert_cmpstr (label, ==, gtk_stack_page_get_title (GTK_STACK_PAGE (page)));
      g_assert_nonnull (target);
      g_assert_cmpstr (g_variant_get_string (target, NULL), ==, gtk_stack_page_get_name (GTK_STACK_PAGE (page)));
    }

  /* the last pages' tabs are out of sight; the menu's action shows one */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-page", "s", "profiler-ranges"));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "profiler-ranges");
  /* a name that is no page changes nothing */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.show-page", "s", "no-such-page"));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "profiler-ranges");
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  /* Isolated XDG folders: the recent files list starts empty. */
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;

  screenshot_dir = (char *)g_getenv ("KS_TEST_SCREENSHOT_DIR");

  g_test_add_func ("/app/window/navigate", test_navigate);
  g_test_add_func ("/app/window/select-kernel", test_select_kernel);
  g_test_add_func ("/app/window/select-step", test_select_step);
  g_test_add_func ("/app/window/range", test_range);
  g_test_add_func ("/app/window/search", test_search);
  g_test_add_func ("/app/window/search-folded", test_search_folded);
  g_test_add_func ("/app/window/tooltips", test_tooltips);
  g_test_add_func ("/app/window/python-samples", test_python_samples);
  g_test_add_func ("/app/window/keys-anywhere", test_keys_anywhere);
  g_test_add_func ("/app/window/bad-file", test_bad_file);
  g_test_add_func ("/app/window/application-open", test_application_open);
  g_test_add_func ("/app/window/load-progress-and-cancel", test_load_progress_and_cancel);
  g_test_add_func ("/app/window/drop-and-recent", test_drop_and_recent);
  g_test_add_func ("/app/window/load-warnings", test_load_warnings);
  g_test_add_func ("/app/window/select-thread-time", test_select_thread_time);
  g_test_add_func ("/app/window/analysis-warnings", test_analysis_warnings);
  g_test_add_func ("/app/window/ruler-backends", test_ruler_backends);
  g_test_add_func ("/app/window/narrow", test_narrow);
  g_test_add_func ("/app/window/tables-fit", test_tables_fit);
  g_test_add_func ("/app/window/every-fixture", test_every_fixture);
  g_test_add_func ("/app/window/analysis-after-first-frame", test_analysis_after_first_frame);
  g_test_add_func ("/app/window/queue-page-navigates", test_queue_page_navigates);
  g_test_add_func ("/app/window/menu-accels", test_menu_accels);
  g_test_add_func ("/app/window/all-pages-menu", test_all_pages_menu);
  g_test_add_func ("/app/window/job-summaries", test_job_summaries);

  return g_test_run ();
}
