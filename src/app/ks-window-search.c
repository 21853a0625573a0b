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

static int
compare_matches (gconstpointer a,
                 gconstpointer b)
{
  const KsMatch *ma = a, *mb = b;

  if (ma->start != mb->start)
    return ma->start < mb->start ? -1 : 1;
  if (ma->track != mb->track)
    return ma->track < mb->track ? -1 : 1;
  return ma->slice < mb->slice ? -1 : ma->slice > mb->slice;
}

static void
update_count (KsWindow *self)
{
  g_autofree char *text = NULL;
  guint n = self->match_list != NULL ? self->match_list->len : 0;

  if (self->matches == NULL)
    text = g_strdup ("");
  else if (n == 0)
    text = g_strdup (_("No matches"));
  else if (self->match_current < 0)
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u match", "%u matches", n), n);
  else
    text = g_strdup_printf (_("%d of %u"), self->match_current + 1, n);

  gtk_label_set_label (self->search_count, text);
}

void
_ks_window_search_clear (KsWindow *self)
{
  if (self->timeline != NULL)
    ks_timeline_set_matches (self->timeline, NULL);
  g_clear_pointer (&self->matches, g_free);
  if (self->match_list != NULL)
    g_array_set_size (self->match_list, 0);
  self->match_current = -1;
  if (self->search_count != NULL)
    update_count (self);
}

static void
run_search (KsWindow *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));
  gboolean regex = gtk_toggle_button_get_active (self->regex_button);
  g_autoptr(GRegex) re = NULL;
  g_autofree char *needle = NULL;
  KsTrace *trace;
  guint8 *matches;
  gboolean any = FALSE;

  gtk_widget_remove_css_class (GTK_WIDGET (self->search_entry), "error");
  _ks_window_search_clear (self);

  if (self->session == NULL || text == NULL || *text == 0)
    {
      _ks_window_actions_update (self);
      return;
    }

  if (regex)
    {
      g_autoptr(GError) error = NULL;

      re = g_regex_new (text, G_REGEX_CASELESS | G_REGEX_OPTIMIZE, 0, &error);
      if (re == NULL)
        {
          gtk_widget_add_css_class (GTK_WIDGET (self->search_entry), "error");
          gtk_label_set_label (self->search_count, _("Invalid expression"));
          gtk_widget_set_tooltip_text (GTK_WIDGET (self->search_count), error->message);
          _ks_window_actions_update (self);
          return;
        }
    }
  else
    needle = g_utf8_casefold (text, -1);

  trace = ks_session_get_trace (self->session);

  /* Match each distinct name once, then collect the slices bearing it. */
  matches = g_new0 (guint8, MAX (1, trace->n_strings));
  for (guint32 id = 1; id < trace->n_strings; id++)
    {
      const char *s = trace->strings[id];

      if (re != NULL)
        matches[id] = g_regex_match (re, s, 0, NULL);
      else
        {
          g_autofree char *folded = g_utf8_casefold (s, -1);

          matches[id] = strstr (folded, needle) != NULL;
        }
      any |= matches[id];
    }

  self->matches = matches;
  if (any)
    {
      for (guint32 t = 0; t < trace->n_tracks; t++)
        {
          const KsTrack *track = &trace->tracks[t];

          for (guint32 i = 0; i < track->n_slices; i++)
            if (matches[track->name_id[i]])
              {
                KsMatch m = { t, i, track->start[i] };

                g_array_append_val (self->match_list, m);
              }
        }
      g_array_sort (self->match_list, compare_matches);
    }

  ks_timeline_set_matches (self->timeline, matches);
  update_count (self);
  _ks_window_actions_update (self);
}

void
_ks_window_search_step (KsWindow *self,
                        int       direction)
{
  const KsMatch *m;
  KsTrace *trace;
  double t0, t1, start, end, width;
  guint n;

  if (self->session == NULL || self->match_list == NULL || self->match_list->len == 0)
    return;

  n = self->match_list->len;
  if (self->match_current < 0)
    {
      /* Start from the first match that starts in the view. */
      guint i;

      ks_session_get_visible (self->session, &t0, &t1);
      for (i = 0; i < n && g_array_index (self->match_list, KsMatch, i).start < t0; i++)
        ;
      self->match_current = direction > 0 ? (int)(i % n) : (int)((i + n - 1) % n);
    }
  else
    self->match_current = (int)((self->match_current + n + (direction > 0 ? 1 : -1)) % n);

  m = &g_array_index (self->match_list, KsMatch, self->match_current);
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
  update_count (self);
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

static void
search_mode_cb (KsWindow *self)
{
  if (!gtk_search_bar_get_search_mode (self->search_bar))
    {
      _ks_window_search_clear (self);
      _ks_window_actions_update (self);
    }
  else
    run_search (self);
}

void
_ks_window_search_init (KsWindow *self)
{
  GtkEventController *controller;
  GtkShortcutTrigger *shift_enter;

  self->match_list = g_array_new (FALSE, FALSE, sizeof (KsMatch));

  gtk_search_bar_connect_entry (self->search_bar, GTK_EDITABLE (self->search_entry));
  g_object_bind_property (self->search_button, "active", self->search_bar, "search-mode-enabled",
                          G_BINDING_BIDIRECTIONAL | G_BINDING_SYNC_CREATE);

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
