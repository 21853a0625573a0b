/* ks-window-search.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-window-search"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "ks-render.h"
#include "ks-window-private.h"

/* A match narrower than this at the current zoom is zoomed to, so that
 * it is as wide as MATCH_ZOOM_PX. */
#define MATCH_MIN_PX  (2 * KS_FOLD_MIN_PX)
#define MATCH_ZOOM_PX 80.0

/* The count beside the entry, and the entry's error style, as the
 * session's search stands. */
static void
update_count (KsWindow *self)
{
  KsSearchResult *search = self->session != NULL ? ks_session_get_search (self->session) : NULL;
  const char *error = self->session != NULL ? ks_session_get_search_error (self->session) : NULL;
  g_autofree char *text = NULL;
  guint n = search != NULL ? ks_search_result_get_n_matches (search) : 0;
  int current = self->session != NULL ? ks_session_get_current_match (self->session) : -1;

  if (error != NULL)
    {
      gtk_widget_add_css_class (GTK_WIDGET (self->search_entry), "error");
      gtk_label_set_label (self->search_count, _("Invalid expression"));
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->search_count), error);
      return;
    }

  gtk_widget_remove_css_class (GTK_WIDGET (self->search_entry), "error");
  if (search == NULL)
    text = g_strdup ("");
  else if (n == 0)
    text = g_strdup (_("No matches"));
  else if (current < 0)
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u match", "%u matches", n), n);
  else
    text = g_strdup_printf (_("%d of %u"), current + 1, n);

  gtk_label_set_label (self->search_count, text);
}

static void
session_search_changed_cb (KsWindow *self)
{
  update_count (self);
  _ks_window_actions_update (self);
}

/* The session searches in a worker: each keystroke starts a search
 * that cancels the one before, and the count follows the session. */
static void
run_search (KsWindow *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));

  if (self->session == NULL)
    return;
  ks_session_search (self->session,
                     gtk_search_bar_get_search_mode (self->search_bar) ? text : NULL,
                     gtk_toggle_button_get_active (self->regex_button));
}

void
_ks_window_search_step (KsWindow *self,
                        int       direction)
{
  const KsSearchMatch *m;
  KsTrace *trace;
  double t0, t1, start, end, width;

  if (self->session == NULL || (m = ks_session_step_match (self->session, direction)) == NULL)
    return;

  trace = ks_session_get_trace (self->session);
  start = trace->tracks[m->track].start[m->slice];
  end = trace->tracks[m->track].end[m->slice];

  /* Bring the match into view: keep the zoom when it fits and is wide
   * enough to be drawn on its own, otherwise zoom so that it is (a slice
   * narrower than the fold width is drawn inside a folded block). */
  ks_session_get_visible (self->session, &t0, &t1);
  width = MAX (1, gtk_widget_get_width (GTK_WIDGET (self->timeline)) - KS_HEADER_WIDTH);
  if (end - start > (t1 - t0) * 0.9)
    ks_session_fit (self->session, (gint64)start, (gint64)end);
  else if ((end - start) * width / (t1 - t0) < MATCH_MIN_PX)
    {
      double span = MAX (end - start, 100.0) * width / MATCH_ZOOM_PX;

      ks_session_push_history (self->session);
      ks_session_set_visible (self->session, (start + end) / 2 - span / 2, (start + end) / 2 + span / 2);
    }
  else if (start < t0 || end > t1)
    {
      ks_session_push_history (self->session);
      ks_session_set_visible (self->session,
                              (start + end) / 2 - (t1 - t0) / 2,
                              (start + end) / 2 + (t1 - t0) / 2);
    }

  ks_session_select_slice (self->session, m->track, m->slice);
}

static void
search_changed_cb (KsWindow *self)
{
  run_search (self);
}

static void
search_activate_cb (KsWindow *self)
{
  _ks_window_search_step (self, 1);
}

static void
stop_search_cb (KsWindow *self)
{
  gtk_search_bar_set_search_mode (self->search_bar, FALSE);
  gtk_widget_grab_focus (GTK_WIDGET (self->timeline));
}

static void
search_previous_cb (KsWindow *self)
{
  _ks_window_search_step (self, -1);
}

/* Closing the bar ends the search; opening it searches again. */
static void
search_mode_cb (KsWindow *self)
{
  run_search (self);
}

void
_ks_window_search_init_session (KsWindow *self)
{
  g_signal_connect_object (self->session, "notify::search",
                           G_CALLBACK (session_search_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->session, "notify::search-error",
                           G_CALLBACK (session_search_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->session, "notify::current-match",
                           G_CALLBACK (update_count), self, G_CONNECT_SWAPPED);
}

void
_ks_window_search_init (KsWindow *self)
{
  GtkEventController *controller;
  GtkShortcutTrigger *shift_enter;

  gtk_search_bar_connect_entry (self->search_bar, GTK_EDITABLE (self->search_entry));

  g_signal_connect_object (self->search_entry, "search-changed", G_CALLBACK (search_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->search_entry, "activate", G_CALLBACK (search_activate_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->search_entry, "next-match", G_CALLBACK (search_activate_cb), self, G_CONNECT_SWAPPED);
  /* Ctrl+Shift+G: the entry's own binding, ahead of the window's. */
  g_signal_connect_object (self->search_entry, "previous-match", G_CALLBACK (search_previous_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->search_entry, "stop-search", G_CALLBACK (stop_search_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->regex_button, "toggled", G_CALLBACK (search_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->search_bar, "notify::search-mode-enabled", G_CALLBACK (search_mode_cb), self, G_CONNECT_SWAPPED);

  /* Shift+Enter steps back, caught before the entry's text takes Enter
   * for "activate". Named "ks-…" so that the shortcuts test finds it. */
  controller = gtk_shortcut_controller_new ();
  gtk_event_controller_set_name (controller, "ks-search-keys");
  gtk_event_controller_set_propagation_phase (controller, GTK_PHASE_CAPTURE);
  shift_enter = gtk_alternative_trigger_new (gtk_keyval_trigger_new (GDK_KEY_Return, GDK_SHIFT_MASK),
                                             gtk_alternative_trigger_new (gtk_keyval_trigger_new (GDK_KEY_KP_Enter, GDK_SHIFT_MASK),
                                                                          gtk_keyval_trigger_new (GDK_KEY_ISO_Enter, GDK_SHIFT_MASK)));
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (controller),
                                        gtk_shortcut_new (shift_enter,
                                                          gtk_named_action_new ("win.find-previous")));
  gtk_widget_add_controller (GTK_WIDGET (self->search_entry), controller);
}
