/* test-compare.c: the Compare view of a window
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <locale.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>

#include "ks-compare-view.h"
#include "ks-format.h"
#include "ks-test-gtk.h"
#include "ks-window.h"

#ifdef HAVE_XTST
#include <gdk/x11/gdkx.h>
#include <X11/extensions/XTest.h>
#endif

#define WAIT_FOR(cond) KS_TEST_WAIT_FOR (cond, 30000)

static GFile *
fixture (const char *name)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);

  return g_file_new_for_path (path);
}

static const KsStep *
first_step (KsCompare     *compare,
            KsCompareSide  side)
{
  guint n;
  const KsStep *steps = ks_analysis_get_steps (ks_compare_get_analysis (compare, side), &n);

  g_assert_cmpuint (n, ==, 4);
  return &steps[0];
}

/* The new run shows the baseline's span, shifted from the baseline's
 * first step to its own. */
static void
assert_aligned (KsCompareView *view)
{
  KsCompare *compare = ks_compare_view_get_compare (view);
  double b0, b1, n0, n1;
  gint64 shift = first_step (compare, KS_COMPARE_NEW)->start - first_step (compare, KS_COMPARE_BASE)->start;

  ks_session_get_visible (ks_compare_view_get_session (view, KS_COMPARE_BASE), &b0, &b1);
  ks_session_get_visible (ks_compare_view_get_session (view, KS_COMPARE_NEW), &n0, &n1);
  g_assert_cmpfloat_with_epsilon (n0, b0 + shift, 1.0);
  g_assert_cmpfloat_with_epsilon (n1, b1 + shift, 1.0);
}

/* The group of @side's timeline whose label starts with @prefix. */
static const KsRow *
find_group (KsCompareView *view,
            KsCompareSide  side,
            const char    *prefix)
{
  KsTimelineLayout *layout = ks_timeline_get_layout (ks_compare_view_get_timeline (view, side));

  for (guint r = 0; r < ks_timeline_layout_get_n_rows (layout); r++)
    {
      const KsRow *row = ks_timeline_layout_get_row (layout, r);

      if (row->kind == KS_ROW_GROUP && g_str_has_prefix (row->label, prefix))
        return row;
    }
  g_error ("no row group \"%s\"", prefix);
}

static void
test_compare (void)
{
  g_autoptr(GFile) base = fixture ("loader_bound.pt.trace.json.gz");
  g_autoptr(GFile) other = fixture ("workers_pinned.pt.trace.json.gz");
  g_autofree char *uri = g_file_get_uri (other);
  KsWindow *window = ks_window_new (NULL);
  KsCompareView *view;
  KsCompare *compare;
  KsSession *base_session, *new_session;
  GtkWidget *lock, *kernels, *summary;
  const KsCompareItem *items;
  const KsStep *step;
  guint n_items, both = G_MAXUINT, removed = G_MAXUINT;
  double b0, b1, n0, n1, m0, m1;

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
  gtk_window_present (GTK_WINDOW (window));
  /* Nothing to compare with before a trace is open */
  gtk_widget_activate_action (GTK_WIDGET (window), "win.compare-file", "s", uri);
  g_assert_false (ks_window_get_comparing (window));
  ks_window_open (window, base);
  WAIT_FOR (ks_window_get_session (window) != NULL);

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.compare-file", "s", uri));
  g_assert_true (ks_window_get_comparing (window));
  g_assert_nonnull (ks_test_find_label (GTK_WIDGET (window), "Comparing with “workers_pinned.pt.trace.json.gz”…"));
  WAIT_FOR (ks_window_get_compare_view (window) != NULL);
  g_assert_false (ks_window_get_comparing (window));
  g_assert_null (ks_test_find_label (GTK_WIDGET (window), "Comparing with"));
  view = KS_COMPARE_VIEW (ks_window_get_compare_view (window));
  compare = ks_compare_view_get_compare (view);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (view)));
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (ks_compare_view_get_timeline (view, KS_COMPARE_BASE))));
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (ks_compare_view_get_timeline (view, KS_COMPARE_NEW))));
  g_assert_true (g_str_has_suffix (ks_compare_get_file (compare, KS_COMPARE_BASE), "loader_bound.pt.trace.json.gz"));
  g_assert_true (ks_compare_get_per_step (compare));

  /* The summary table: the rows of `kinescope-cli diff` */
  summary = ks_test_find_descendant (GTK_WIDGET (view), GTK_TYPE_COLUMN_VIEW, "compare-summary");
  g_assert_nonnull (summary);
  g_assert_nonnull (ks_test_find_label (summary, "Step breakdown, DataLoader"));
  g_assert_nonnull (ks_test_find_label (summary, "28.7 ms"));
  g_assert_nonnull (ks_test_find_label (summary, "7.88 ms"));

  /* The same rows open in both: the GPU and the Python process (pid 455
   * in one run, 625 in the other); the new run's profiler-overhead
   * process, which the baseline lacks, is collapsed. */
  g_assert_true (find_group (view, KS_COMPARE_BASE, "GPU 0")->expanded);
  g_assert_true (find_group (view, KS_COMPARE_NEW, "GPU 0")->expanded);
  g_assert_true (find_group (view, KS_COMPARE_BASE, "python3 (pid 455")->expanded);
  g_assert_true (find_group (view, KS_COMPARE_NEW, "python3 (pid 625")->expanded);
  g_assert_false (find_group (view, KS_COMPARE_NEW, "Profiler overhead")->expanded);

  /* Moving loading to pinned workers took the pageable copies away */
  g_assert_nonnull (ks_test_find_label (GTK_WIDGET (view), "− Asynchronous copies use pageable memory: "));
  g_assert_nonnull (ks_test_find_label (GTK_WIDGET (view), "+ Tensor cores left unused: "));

  /* Aligned at the first step: ProfilerStep#2 of both, the baseline's
   * step filling the view. */
  base_session = ks_compare_view_get_session (view, KS_COMPARE_BASE);
  new_session = ks_compare_view_get_session (view, KS_COMPARE_NEW);
  g_assert_cmpuint (ks_compare_view_get_align_step (view), ==, 0);
  step = first_step (compare, KS_COMPARE_BASE);
  ks_session_get_visible (base_session, &b0, &b1);
  g_assert_cmpfloat (b0, <=, step->start);
  g_assert_cmpfloat (b1, >=, step->end);
  assert_aligned (view);

  /* Locked: zooming the baseline zooms the new run alike. */
  lock = ks_test_find_descendant (GTK_WIDGET (view), GTK_TYPE_TOGGLE_BUTTON, "compare-lock");
  g_assert_nonnull (lock);
  g_assert_true (gtk_toggle_button_get_active (GTK_TOGGLE_BUTTON (lock)));
  ks_session_zoom (base_session, 0.5, step->start + 1000000);
  ks_session_get_visible (base_session, &m0, &m1);
  g_assert_cmpfloat_with_epsilon (m1 - m0, (b1 - b0) * 0.5, 1.0);
  assert_aligned (view);

  /* The window's zoom keys act on the baseline while comparing. */
  ks_session_get_visible (base_session, &b0, &b1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.zoom", "i", 1));
  ks_session_get_visible (base_session, &m0, &m1);
  g_assert_cmpfloat_with_epsilon (m1 - m0, (b1 - b0) * 0.5, 1.0);
  assert_aligned (view);

  /* Unlocked by its button: the new run stays where it is. */
  /* (a button's activation ends after its pressed look) */
  g_assert_true (gtk_widget_activate (lock));
  WAIT_FOR (!ks_compare_view_get_locked (view));
  ks_session_get_visible (new_session, &n0, &n1);
  ks_session_get_visible (base_session, &b0, &b1);
  ks_session_pan (base_session, 2000000);
  ks_session_get_visible (base_session, &m0, &m1);
  g_assert_cmpfloat_with_epsilon (m0, b0 + 2000000, 1.0);
  ks_session_get_visible (new_session, &m0, &m1);
  g_assert_cmpfloat (m0, ==, n0);
  g_assert_cmpfloat (m1, ==, n1);
  /* Locked again: lined up with the baseline at once */
  g_assert_true (gtk_widget_activate (lock));
  WAIT_FOR (ks_compare_view_get_locked (view));
  assert_aligned (view);

  /* A kernel of both runs: a click on its row outlines it in both
   * timelines; one that went away, only in the baseline's. */
  items = ks_compare_get_kernels (compare, &n_items);
  for (guint i = 0; i < n_items; i++)
    {
      KsCompareItemStatus status = ks_compare_item_get_status (&items[i]);

      if (status == KS_COMPARE_ITEM_BOTH && both == G_MAXUINT)
        both = i;
      if (status == KS_COMPARE_ITEM_REMOVED && removed == G_MAXUINT)
        removed = i;
    }
  g_assert_cmpuint (both, <, n_items);
  g_assert_cmpuint (removed, <, n_items);
  ks_compare_view_show_page (view, "kernels");
  kernels = ks_test_find_descendant (GTK_WIDGET (view), GTK_TYPE_COLUMN_VIEW, "compare-kernels");
  g_assert_nonnull (kernels);
  gtk_test_widget_wait_for_draw (kernels);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (kernels)))),
                    ==, n_items);
  g_assert_cmpuint (ks_compare_view_get_outlined (view, KS_COMPARE_BASE), ==, 0);

  g_assert_true (gtk_selection_model_select_item (gtk_column_view_get_model (GTK_COLUMN_VIEW (kernels)), both, TRUE));
  g_assert_cmpuint (ks_compare_view_get_outlined (view, KS_COMPARE_BASE), ==, items[both].name_id[KS_COMPARE_BASE]);
  g_assert_cmpuint (ks_compare_view_get_outlined (view, KS_COMPARE_NEW), ==, items[both].name_id[KS_COMPARE_NEW]);
  g_assert_cmpstr (ks_trace_string (ks_compare_get_trace (compare, KS_COMPARE_NEW),
                                    ks_compare_view_get_outlined (view, KS_COMPARE_NEW)), ==, items[both].name);

  /* Enter on the removed kernel's row: outlined in the baseline only,
   * which shows its longest call. */
  g_signal_emit_by_name (kernels, "activate", removed);
  g_assert_cmpuint (ks_compare_view_get_outlined (view, KS_COMPARE_BASE), ==, items[removed].name_id[KS_COMPARE_BASE]);
  g_assert_cmpuint (ks_compare_view_get_outlined (view, KS_COMPARE_NEW), ==, 0);
  {
    KsTrace *trace = ks_compare_get_trace (compare, KS_COMPARE_BASE);
    guint n;
    const KsKernelStats *k = &ks_analysis_get_kernels (ks_compare_get_analysis (compare, KS_COMPARE_BASE),
                                                       &n)[items[removed].index[KS_COMPARE_BASE]];
    const KsTrack *track = &trace->tracks[k->longest_track];

    ks_session_get_visible (base_session, &m0, &m1);
    g_assert_cmpfloat (m0, <=, track->start[k->longest_slice]);
    g_assert_cmpfloat (m1, >=, track->end[k->longest_slice]);
    g_assert_cmpfloat (m1 - m0, <, 2.0 * (track->end[k->longest_slice] - track->start[k->longest_slice]) + 1000);
    /* That call is past the end of the shorter new run: it shows the
     * same span as far along as it goes. */
    ks_session_get_visible (new_session, &n0, &n1);
    g_assert_cmpfloat_with_epsilon (n1 - n0, m1 - m0, 1.0);
  }

  /* Back to the trace */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.close-compare", NULL));
  g_assert_null (ks_window_get_compare_view (window));
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (ks_window_get_timeline (window))) ||
                 !gtk_widget_get_realized (GTK_WIDGET (window)));

  gtk_window_destroy (GTK_WINDOW (window));
}

/* A file that is not a trace: a dialog, and the window stays as it was. */
static void
test_compare_bad_file (void)
{
  g_autoptr(GFile) base = fixture ("loader_bound.pt.trace.json.gz");
  g_autofree char *dir = g_dir_make_tmp ("ks-compare-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "broken.json", NULL);
  g_autofree char *uri = g_filename_to_uri (path, NULL, NULL);
  KsWindow *window = ks_window_new (NULL);

  g_assert_true (g_file_set_contents (path, "{\"traceEvents\": [ {\"ph\": ", -1, NULL));
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, base);
  WAIT_FOR (ks_window_get_session (window) != NULL);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.compare-file", "s", uri));
  WAIT_FOR (!ks_window_get_comparing (window));
  g_assert_null (ks_window_get_compare_view (window));
  g_assert_nonnull (ks_window_get_session (window));
  {
    g_autoptr(GList) toplevels = gtk_window_list_toplevels ();
    AdwMessageDialog *dialog = NULL;

    for (GList *l = toplevels; l != NULL; l = l->next)
      if (ADW_IS_MESSAGE_DIALOG (l->data))
        dialog = l->data;
    g_assert_nonnull (dialog);
    g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, "Could Not Compare With “broken.json”");
    g_assert_nonnull (strstr (adw_message_dialog_get_body (dialog), "broken.json"));
    gtk_window_destroy (GTK_WINDOW (dialog));
  }

  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
  g_rmdir (dir);
}

#ifdef HAVE_XTST
/* A drop of @file on the window's drop target, as GTK hands it over. */
static gboolean
drop_file (KsWindow *window,
           GFile    *file)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (GTK_WIDGET (window));
  g_autoptr(GSList) files = g_slist_prepend (NULL, file);
  GValue value = G_VALUE_INIT;
  GtkDropTarget *target = NULL;
  gboolean handled = FALSE;

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) c = g_list_model_get_item (controllers, i);

      if (GTK_IS_DROP_TARGET (c))
        target = GTK_DROP_TARGET (c);
    }
  g_assert_nonnull (target);
  g_value_init (&value, GDK_TYPE_FILE_LIST);
  g_value_take_boxed (&value, gdk_file_list_new_from_list (files));
  g_signal_emit_by_name (target, "drop", &value, 10.0, 10.0, &handled);
  g_value_unset (&value);
  return handled;
}

static gboolean
ctrl_down (GtkWidget *widget)
{
  GdkSeat *seat = gdk_display_get_default_seat (gtk_widget_get_display (widget));

  return (gdk_device_get_modifier_state (gdk_seat_get_keyboard (seat)) & GDK_CONTROL_MASK) != 0;
}
#endif

/* A file dropped with Ctrl held is compared with the trace shown; a
 * plain drop opens it instead. Ctrl is pressed through the X server. */
static void
test_compare_drop (void)
{
#ifdef HAVE_XTST
  g_autoptr(GFile) base = fixture ("loader_bound.pt.trace.json.gz");
  g_autoptr(GFile) other = fixture ("workers_pinned.pt.trace.json.gz");
  KsWindow *window;
  KsTrace *trace;
  Display *xd;
  KeyCode ctrl;

  if (!GDK_IS_X11_DISPLAY (gdk_display_get_default ()))
    {
      g_test_skip ("Ctrl is pressed with XTEST, which needs X11");
      return;
    }
  window = ks_window_new (NULL);
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, base);
  WAIT_FOR (ks_window_get_session (window) != NULL);
  trace = ks_session_get_trace (ks_window_get_session (window));
  xd = gdk_x11_display_get_xdisplay (gtk_widget_get_display (GTK_WIDGET (window)));
  XSetInputFocus (xd, gdk_x11_surface_get_xid (gtk_native_get_surface (GTK_NATIVE (window))), RevertToParent,
                  CurrentTime);
  WAIT_FOR (gtk_window_is_active (GTK_WINDOW (window)));

  ctrl = XKeysymToKeycode (xd, GDK_KEY_Control_L);
  XTestFakeKeyEvent (xd, ctrl, True, CurrentTime);
  XFlush (xd);
  WAIT_FOR (ctrl_down (GTK_WIDGET (window)));
  g_assert_true (drop_file (window, other));
  /* asked at once: the comparison may be loaded by the time Ctrl is up */
  g_assert_true (ks_window_get_comparing (window) || ks_window_get_compare_view (window) != NULL);
  g_assert_false (ks_window_get_loading (window));
  XTestFakeKeyEvent (xd, ctrl, False, CurrentTime);
  XFlush (xd);
  WAIT_FOR (!ctrl_down (GTK_WIDGET (window)));
  WAIT_FOR (ks_window_get_compare_view (window) != NULL);
  g_assert_true (ks_session_get_trace (ks_window_get_session (window)) == trace);

  /* Without Ctrl the file replaces the trace. */
  g_assert_true (drop_file (window, other));
  g_assert_true (ks_window_get_loading (window));
  g_assert_null (ks_window_get_compare_view (window));
  WAIT_FOR (!ks_window_get_loading (window));
  g_assert_true (ks_session_get_trace (ks_window_get_session (window)) != trace);

  gtk_window_destroy (GTK_WINDOW (window));
#else
  g_test_skip ("built without XTEST");
#endif
}

/* @base compared with @other in a window: its view. */
static KsCompareView *
open_compare (KsWindow   *window,
              GFile      *base,
              GFile      *other)
{
  g_autofree char *uri = g_file_get_uri (other);

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 900);
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, base);
  WAIT_FOR (ks_window_get_session (window) != NULL && !ks_window_get_loading (window));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.compare-file", "s", uri));
  WAIT_FOR (ks_window_get_compare_view (window) != NULL);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  return KS_COMPARE_VIEW (ks_window_get_compare_view (window));
}

/* Whether a column of the view named @name is titled @title. */
static gboolean
has_column (KsCompareView *view,
            const char    *name,
            const char    *title)
{
  GtkWidget *table = ks_test_find_descendant (GTK_WIDGET (view), GTK_TYPE_COLUMN_VIEW, name);
  GListModel *columns;

  g_assert_nonnull (table);
  columns = gtk_column_view_get_columns (GTK_COLUMN_VIEW (table));
  for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);

      if (g_strcmp0 (gtk_column_view_column_get_title (column), title) == 0)
        return TRUE;
    }
  return FALSE;
}

static const char *
label_text (KsCompareView *view,
            const char    *name)
{
  GtkWidget *label = ks_test_find_descendant (GTK_WIDGET (view), GTK_TYPE_LABEL, name);

  g_assert_nonnull (label);
  return gtk_label_get_text (GTK_LABEL (label));
}

/* Two loops without step markers (tests/data/README.md) compare per
 * iteration, and say that the steps are inferred; above the figures, the
 * length and count of each side's steps, from the iterations that
 * tests/analysis/nosteps-reference.py finds in the raw JSON (the first,
 * the warm-up, left out): 3017149 + 4587149 + 4471588 + 2459466 ns
 * against 2329290 + 4819665 + 1582656 + 2869923 ns. */
static void
test_compare_inferred (void)
{
  g_autoptr(GFile) base = fixture ("nosteps_slow.pt.trace.json.gz");
  g_autoptr(GFile) other = fixture ("nosteps_fast.pt.trace.json.gz");
  KsWindow *window = ks_window_new (NULL);
  KsCompareView *view = open_compare (window, base, other);
  gint64 slow = 3017149 + 4587149 + 4471588 + 2459466;
  gint64 fast = 2329290 + 4819665 + 1582656 + 2869923;
  g_autofree char *slow_text = ks_time_format_duration (slow);
  g_autofree char *fast_text = ks_time_format_duration (fast);
  /* a drop: 100 * (fast - slow) / slow is -20.18 */
  g_autofree char *want = g_strdup_printf ("Steps: %s in 4 on the baseline, %s in 4 on the new run (−%.1f %%)",
                                           slow_text, fast_text, 100.0 * (slow - fast) / slow);

  g_assert_true (ks_compare_get_per_step (ks_compare_view_get_compare (view)));
  g_assert_cmpstr (label_text (view, "compare-banner"), ==,
                   "Times and counts are per step: the steps are inferred from the DataLoader's batches, "
                   "as the traces mark none.");
  g_assert_cmpstr (label_text (view, "compare-windows"), ==, want);
  g_assert_true (has_column (view, "compare-kernels", "Calls/step, baseline"));
  g_assert_false (gtk_widget_get_visible (ks_test_find_descendant (GTK_WIDGET (view), GTK_TYPE_LABEL,
                                                                   "compare-steps-empty")));
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A trace without steps, and none to infer (two kernels, 100 to 150 µs
 * and 400 to 500 µs), against a loop: the figures are totals, the window
 * leads, the Kernels and Operators columns say "total",
 * and the Steps tab says why the baseline's side of it is empty. */
static void
test_compare_totals (void)
{
  static const char json[] =
    "{\"schemaVersion\":1,\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":10,\"tid\":10,\"ts\":90,\"dur\":20},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":10,\"tid\":10,\"ts\":95,\"dur\":5,"
    "\"args\":{\"correlation\":1}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_kernel\",\"pid\":0,\"tid\":7,\"ts\":100,\"dur\":50,"
    "\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::relu\",\"pid\":10,\"tid\":10,\"ts\":380,\"dur\":30},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":10,\"tid\":10,\"ts\":390,\"dur\":5,"
    "\"args\":{\"correlation\":2}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"relu_kernel\",\"pid\":0,\"tid\":7,\"ts\":400,\"dur\":100,"
    "\"args\":{\"device\":0,\"stream\":7,\"correlation\":2}}]}";
  g_autofree char *dir = g_dir_make_tmp ("ks-compare-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "flat.json", NULL);
  g_autoptr(GFile) base = g_file_new_for_path (path);
  g_autoptr(GFile) other = fixture ("nosteps_slow.pt.trace.json.gz");
  KsWindow *window = ks_window_new (NULL);
  KsCompareView *view;
  KsCompare *compare;
  const KsGpuSummary *gpu;
  GtkWidget *empty;
  g_autofree char *new_window = NULL;
  g_autofree char *want = NULL;

  g_assert_true (g_file_set_contents (path, json, -1, NULL));
  view = open_compare (window, base, other);
  compare = ks_compare_view_get_compare (view);
  g_assert_false (ks_compare_get_per_step (compare));
  g_assert_cmpstr (label_text (view, "compare-banner"), ==,
                   "No steps in one of the traces: times and counts are totals over each window.");
  gpu = ks_analysis_get_gpu (ks_compare_get_analysis (compare, KS_COMPARE_NEW), 0);
  new_window = ks_time_format_duration (gpu->window_ns);
  g_assert_cmpint (gpu->window_ns, >, 400000);
  want = g_strdup_printf ("Window: 400 µs on the baseline, %s on the new run (+%.1f %%)", new_window,
                          100.0 * (gpu->window_ns - 400000) / 400000);
  g_assert_cmpstr (label_text (view, "compare-windows"), ==, want);

  g_assert_true (has_column (view, "compare-kernels", "Calls in total, baseline"));
  g_assert_true (has_column (view, "compare-kernels", "Time in total, new"));
  g_assert_false (has_column (view, "compare-kernels", "Calls/step, baseline"));
  g_assert_false (has_column (view, "compare-kernels", "Time/step, new"));
  g_assert_true (has_column (view, "compare-operators", "Device total, baseline"));
  g_assert_false (has_column (view, "compare-operators", "Device/step, baseline"));

  empty = ks_test_find_descendant (GTK_WIDGET (view), GTK_TYPE_LABEL, "compare-steps-empty");
  g_assert_true (gtk_widget_get_visible (empty));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (empty)), ==,
                   "No steps to pair with: flat.json marks no steps (no ProfilerStep#N, no NVTX range named like a "
                   "step) and repeats no structure that they could be inferred from.");
  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
  g_rmdir (dir);
}

/* The same in Chinese: the column titles say "total" there too. Last of
 * the tests: it switches the process to the catalogue built in the build
 * tree (<build>/po), as test-i18n does. */
static void
test_compare_totals_zh_CN (void)
{
  g_autofree char *localedir = g_build_filename (g_getenv ("KS_BUILD_ROOT"), "po", NULL);
  g_autofree char *mo = g_build_filename (localedir, "zh_CN", "LC_MESSAGES", "kinescope.mo", NULL);
  g_autofree char *dir = g_dir_make_tmp ("ks-compare-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "flat.json", NULL);
  g_autoptr(GFile) base = g_file_new_for_path (path);
  g_autoptr(GFile) other = fixture ("nosteps_slow.pt.trace.json.gz");
  const char *messages = setlocale (LC_MESSAGES, NULL);
  KsWindow *window;
  KsCompareView *view;

  g_assert_true (g_file_test (mo, G_FILE_TEST_IS_REGULAR));
  /* gettext ignores LANGUAGE in the C locale; C.UTF-8 is always there. */
  if (messages == NULL || g_str_equal (messages, "C") || g_str_equal (messages, "POSIX"))
    setlocale (LC_ALL, "C.UTF-8");
  g_setenv ("LANGUAGE", "zh_CN", TRUE);
  bindtextdomain (GETTEXT_PACKAGE, localedir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  /* two kernels, no steps: see test_compare_totals */
  g_assert_true (g_file_set_contents (path,
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm_kernel\",\"pid\":0,\"tid\":7,\"ts\":100,\"dur\":50,"
    "\"args\":{\"device\":0,\"stream\":7}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"relu_kernel\",\"pid\":0,\"tid\":7,\"ts\":400,\"dur\":100,"
    "\"args\":{\"device\":0,\"stream\":7}}]}", -1, NULL));
  window = ks_window_new (NULL);
  view = open_compare (window, base, other);
  g_assert_false (ks_compare_get_per_step (ks_compare_view_get_compare (view)));
  g_assert_true (has_column (view, "compare-kernels", "调用总数，基线"));
  g_assert_true (has_column (view, "compare-kernels", "总时间，新运行"));
  g_assert_false (has_column (view, "compare-kernels", "每步调用，基线"));
  g_assert_false (has_column (view, "compare-kernels", "Calls in total, baseline"));
  g_assert_true (g_str_has_prefix (label_text (view, "compare-windows"), "时间窗口：基线 400 µs，新运行 "));
  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
  g_rmdir (dir);
}

/* The view follows the runs' sessions: other options (the settings both
 * follow) analyse both again and it shows their new comparison, still in
 * place of the trace. */
static void
test_compare_options (void)
{
  g_autoptr(GFile) base = fixture ("loader_bound.pt.trace.json.gz");
  g_autoptr(GFile) other = fixture ("workers_pinned.pt.trace.json.gz");
  KsWindow *window = ks_window_new (NULL);
  KsCompareView *view = open_compare (window, base, other);
  KsCompare *before = g_object_ref (ks_compare_view_get_compare (view));
  KsCompare *after;
  GtkWidget *stack = gtk_widget_get_ancestor (GTK_WIDGET (view), GTK_TYPE_STACK);

  g_assert_false (ks_analysis_get_options (ks_compare_get_analysis (before, KS_COMPARE_NEW))->busy_includes_copies);
  g_object_set (ks_window_get_session (window), "busy-includes-copies", TRUE, NULL);
  WAIT_FOR ((after = ks_compare_view_get_compare (view)) != before && after != NULL);
  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    {
      g_assert_true (ks_analysis_get_options (ks_compare_get_analysis (after, s))->busy_includes_copies);
      g_assert_true (ks_compare_get_trace (after, s) == ks_compare_get_trace (before, s));
    }
  g_assert_true (ks_compare_get_analysis (after, KS_COMPARE_BASE) ==
                 ks_session_get_analysis (ks_window_get_session (window)));
  g_assert_true (ks_window_get_compare_view (window) == GTK_WIDGET (view));
  g_assert_false (ks_window_get_comparing (window));
  /* the view is the stack page's child, or inside it */
  g_assert_true (gtk_widget_is_ancestor (GTK_WIDGET (view), gtk_stack_get_visible_child (GTK_STACK (stack))));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (ks_compare_view_get_timeline (view, KS_COMPARE_NEW))));

  g_object_unref (before);
  g_object_set (ks_window_get_session (window), "busy-includes-copies", FALSE, NULL);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;

  g_test_add_func ("/app/compare/view", test_compare);
  g_test_add_func ("/app/compare/bad-file", test_compare_bad_file);
  g_test_add_func ("/app/compare/drop", test_compare_drop);
  g_test_add_func ("/app/compare/inferred", test_compare_inferred);
  g_test_add_func ("/app/compare/totals", test_compare_totals);
  g_test_add_func ("/app/compare/totals-zh_CN", test_compare_totals_zh_CN);
  g_test_add_func ("/app/compare/options", test_compare_options);

  return g_test_run ();
}
