/* test-window-search.c: finding slices by name, stepping through the
 * matches, and the window's keys wherever the focus is
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

#ifdef HAVE_XTST
#include <gdk/x11/gdkx.h>
#include <X11/extensions/XTest.h>
#endif

/* The header's search button. */
static GtkToggleButton *
find_search_toggle (GtkWidget *root)
{
  if (GTK_IS_TOGGLE_BUTTON (root) &&
      g_strcmp0 (gtk_button_get_icon_name (GTK_BUTTON (root)), "system-search-symbolic") == 0)
    return GTK_TOGGLE_BUTTON (root);
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkToggleButton *found = find_search_toggle (c);

      if (found != NULL)
        return found;
    }
  return NULL;
}

static void
test_search (void)
{
  KsWindow *window = ks_test_open_window (LB_FILE);
  KsSession *session = ks_window_get_session (window);
  KsTrace *trace = ks_session_get_trace (session);
  GtkWidget *entry = ks_test_find_child (GTK_WIDGET (window), "GtkSearchEntry");
  GtkWidget *bar = ks_test_find_child (GTK_WIDGET (window), "GtkSearchBar");
  GtkLabel *count;
  GtkToggleButton *regex;
  guint32 track, slice;
  const char *name;

  g_assert_nonnull (entry);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.find", NULL));
  g_assert_true (gtk_search_bar_get_search_mode (GTK_SEARCH_BAR (bar)));

  /* The header's toggle follows the bar and opens and closes it. */
  {
    GtkToggleButton *toggle = find_search_toggle (GTK_WIDGET (window));

    g_assert_nonnull (toggle);
    g_assert_true (gtk_toggle_button_get_active (toggle));
    gtk_toggle_button_set_active (toggle, FALSE);
    g_assert_false (gtk_search_bar_get_search_mode (GTK_SEARCH_BAR (bar)));
    gtk_toggle_button_set_active (toggle, TRUE);
    g_assert_true (gtk_search_bar_get_search_mode (GTK_SEARCH_BAR (bar)));
    gtk_widget_grab_focus (entry);
  }

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
  ks_test_save_screenshot (GTK_WIDGET (window), "window-search.png");

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

  window = ks_test_open_window (LB_FILE);
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

  switcher = ks_test_find_child (GTK_WIDGET (window), "GtkStackSwitcher");
  g_assert_nonnull (switcher);
  tab = gtk_widget_get_first_child (switcher);
  g_assert_true (gtk_widget_grab_focus (tab));
  g_assert_true (gtk_window_get_focus (GTK_WINDOW (window)) == tab);

  /* W zooms in by 0.8 (about the centre: the pointer is not over it). */
  ks_test_assert_visible (session, 0, d);
  press_key (tab, GDK_KEY_w);
  WAIT_FOR ((ks_session_get_visible (session, &t0, &t1), t1 - t0 < d * 0.9));
  g_assert_cmpfloat_with_epsilon (t1 - t0, 0.8 * d, 1.0);

  /* D pans right by a tenth of the view, A back. */
  press_key (tab, GDK_KEY_d);
  WAIT_FOR ((ks_session_get_visible (session, &s0, &s1), s0 > t0 + 1));
  ks_test_assert_visible (session, t0 + 0.1 * (t1 - t0), t1 + 0.1 * (t1 - t0));
  press_key (tab, GDK_KEY_a);
  WAIT_FOR ((ks_session_get_visible (session, &s0, &s1), s0 < t0 + 1));
  ks_test_assert_visible (session, t0, t1);

  /* S zooms out again. */
  press_key (tab, GDK_KEY_s);
  WAIT_FOR ((ks_session_get_visible (session, &s0, &s1), s1 - s0 > d * 0.9));
  g_assert_cmpfloat_with_epsilon (s1 - s0, d, 1.0);

  /* F fits the selected slice; Esc clears the selection. */
  slice = ks_test_find_longest (trace, LB_KERNEL_NAME, &track);
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
  {
    GtkWidget *bar = ks_test_find_child (GTK_WIDGET (window), "GtkSearchBar");
    GtkWidget *revealer = ks_test_find_descendant (bar, GTK_TYPE_REVEALER, NULL);

    g_assert_nonnull (revealer);
    WAIT_FOR (gtk_revealer_get_child_revealed (GTK_REVEALER (revealer)));
  }
  press_key (entry, GDK_KEY_w);
  press_key (entry, GDK_KEY_s);
  WAIT_FOR (g_strcmp0 (gtk_editable_get_text (GTK_EDITABLE (entry)), "ws") == 0);
  /* every event the keys queued handled, and a frame drawn after them */
  while (g_main_context_iteration (NULL, FALSE))
    ;
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  ks_test_assert_visible (session, t0, t1);

  /* What the shortcuts window says of the search keys, typed: Enter and
   * Ctrl+G go to the next match, Shift+Enter and Ctrl+Shift+G back
   * (wrapping), with the focus in the search field. */
  {
    GtkWidget *search = ks_test_find_child (GTK_WIDGET (window), "GtkSearchEntry");
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
  KsWindow *window = ks_test_open_window (LB_FILE);
  KsSession *session = ks_window_get_session (window);
  KsTimeline *timeline = ks_window_get_timeline (window);
  KsTrace *trace = ks_session_get_trace (session);
  GtkWidget *entry = ks_test_find_child (GTK_WIDGET (window), "GtkSearchEntry");
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

int
main (int   argc,
      char *argv[])
{
  /* Isolated XDG folders: the recent files list starts empty. */
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;

  g_test_add_func ("/app/window/search", test_search);
  g_test_add_func ("/app/window/search-folded", test_search_folded);
  g_test_add_func ("/app/window/keys-anywhere", test_keys_anywhere);

  return g_test_run ();
}
