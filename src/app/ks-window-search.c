/* ks-window-search.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-window-search"

#include "config.h"

#include "ks-render.h"
#include "ks-window-private.h"

/* A match narrower than this at the current zoom is zoomed to, so that
 * it is as wide as MATCH_ZOOM_PX. */
#define MATCH_MIN_PX  (2 * KS_FOLD_MIN_PX)
#define MATCH_ZOOM_PX 80.0

/* The find actions are on while there are matches. */
static void
session_search_changed_cb (KsWindow *self)
{
  _ks_window_actions_update (self);
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

void
_ks_window_search_init_session (KsWindow *self)
{
  g_signal_connect_object (self->session, "notify::search",
                           G_CALLBACK (session_search_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->session, "notify::search-error",
                           G_CALLBACK (session_search_changed_cb), self, G_CONNECT_SWAPPED);
}
