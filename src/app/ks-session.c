/* ks-session.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-session"

#include "config.h"

#include <math.h>

#include "ks-session.h"

#define MIN_SPAN_NS      10.0
#define HISTORY_MAX      100
/* Wheel events closer than this belong to one zoom gesture. */
#define HISTORY_COALESCE (G_USEC_PER_SEC / 2)

typedef struct
{
  double t0;
  double t1;
} Span;

struct _KsSession
{
  GObject  parent_instance;

  KsTrace *trace;
  double   t0;
  double   t1;

  GArray  *back;               /* Span */
  GArray  *forward;            /* Span */
  gint64   last_push_usec;

  guint32  sel_track;
  guint32  sel_slice;

  gboolean has_range;
  gint64   range_start;
  gint64   range_end;
};

G_DEFINE_FINAL_TYPE (KsSession, ks_session, G_TYPE_OBJECT)

enum {
  VISIBLE_CHANGED,
  SELECTION_CHANGED,
  RANGE_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
ks_session_finalize (GObject *object)
{
  KsSession *self = (KsSession *)object;

  g_clear_object (&self->trace);
  g_clear_pointer (&self->back, g_array_unref);
  g_clear_pointer (&self->forward, g_array_unref);

  G_OBJECT_CLASS (ks_session_parent_class)->finalize (object);
}

static void
ks_session_class_init (KsSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ks_session_finalize;

  signals[VISIBLE_CHANGED] =
    g_signal_new ("visible-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SELECTION_CHANGED] =
    g_signal_new ("selection-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[RANGE_CHANGED] =
    g_signal_new ("range-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
ks_session_init (KsSession *self)
{
  self->back = g_array_new (FALSE, FALSE, sizeof (Span));
  self->forward = g_array_new (FALSE, FALSE, sizeof (Span));
  self->sel_track = KS_NO_INDEX;
  self->sel_slice = KS_NO_INDEX;
}

static double
trace_span (KsSession *self)
{
  return MAX (1000.0, (double)self->trace->duration_ns);
}

KsSession *
ks_session_new (KsTrace *trace)
{
  KsSession *self;

  g_return_val_if_fail (KS_IS_TRACE (trace), NULL);

  self = g_object_new (KS_TYPE_SESSION, NULL);
  self->trace = g_object_ref (trace);
  self->t0 = 0;
  self->t1 = trace_span (self);

  return self;
}

KsTrace *
ks_session_get_trace (KsSession *self)
{
  g_return_val_if_fail (KS_IS_SESSION (self), NULL);

  return self->trace;
}

void
ks_session_get_visible (KsSession *self,
                        double    *t0,
                        double    *t1)
{
  g_return_if_fail (KS_IS_SESSION (self));

  if (t0)
    *t0 = self->t0;
  if (t1)
    *t1 = self->t1;
}

void
ks_session_set_visible (KsSession *self,
                        double     t0,
                        double     t1)
{
  double total, margin, span, lo, hi;

  g_return_if_fail (KS_IS_SESSION (self));

  if (!isfinite (t0) || !isfinite (t1))
    return;
  if (t1 < t0)
    {
      double tmp = t0;
      t0 = t1;
      t1 = tmp;
    }

  total = trace_span (self);
  margin = total * 0.05;
  lo = -margin;
  hi = total + margin;

  span = CLAMP (t1 - t0, MIN_SPAN_NS, hi - lo);
  if (span != t1 - t0)
    {
      double mid = (t0 + t1) / 2;

      t0 = mid - span / 2;
      t1 = mid + span / 2;
    }
  if (t0 < lo)
    {
      t0 = lo;
      t1 = lo + span;
    }
  if (t1 > hi)
    {
      t1 = hi;
      t0 = hi - span;
    }

  if (t0 == self->t0 && t1 == self->t1)
    return;

  self->t0 = t0;
  self->t1 = t1;
  g_signal_emit (self, signals[VISIBLE_CHANGED], 0);
}

void
ks_session_zoom (KsSession *self,
                 double     factor,
                 double     anchor)
{
  g_return_if_fail (KS_IS_SESSION (self));

  if (!(factor > 0) || !isfinite (factor))
    return;

  /* Keep the anchor's fraction of the view fixed. */
  ks_session_set_visible (self,
                          anchor - (anchor - self->t0) * factor,
                          anchor + (self->t1 - anchor) * factor);
}

void
ks_session_pan (KsSession *self,
                double     dt)
{
  g_return_if_fail (KS_IS_SESSION (self));

  ks_session_set_visible (self, self->t0 + dt, self->t1 + dt);
}

static void
push_span (GArray *stack,
           double  t0,
           double  t1)
{
  Span s = { t0, t1 };

  if (stack->len > 0)
    {
      Span *top = &g_array_index (stack, Span, stack->len - 1);

      if (top->t0 == t0 && top->t1 == t1)
        return;
    }
  if (stack->len >= HISTORY_MAX)
    g_array_remove_index (stack, 0);
  g_array_append_val (stack, s);
}

void
ks_session_push_history (KsSession *self)
{
  gint64 now = g_get_monotonic_time ();

  g_return_if_fail (KS_IS_SESSION (self));

  if (now - self->last_push_usec >= HISTORY_COALESCE)
    {
      push_span (self->back, self->t0, self->t1);
      g_array_set_size (self->forward, 0);
    }
  self->last_push_usec = now;
}

gboolean
ks_session_can_go_back (KsSession *self)
{
  return self->back->len > 0;
}

gboolean
ks_session_can_go_forward (KsSession *self)
{
  return self->forward->len > 0;
}

gboolean
ks_session_go_back (KsSession *self)
{
  Span s;

  g_return_val_if_fail (KS_IS_SESSION (self), FALSE);

  if (self->back->len == 0)
    return FALSE;

  s = g_array_index (self->back, Span, self->back->len - 1);
  g_array_set_size (self->back, self->back->len - 1);
  push_span (self->forward, self->t0, self->t1);
  self->last_push_usec = 0;
  ks_session_set_visible (self, s.t0, s.t1);
  g_signal_emit (self, signals[VISIBLE_CHANGED], 0);
  return TRUE;
}

gboolean
ks_session_go_forward (KsSession *self)
{
  Span s;

  g_return_val_if_fail (KS_IS_SESSION (self), FALSE);

  if (self->forward->len == 0)
    return FALSE;

  s = g_array_index (self->forward, Span, self->forward->len - 1);
  g_array_set_size (self->forward, self->forward->len - 1);
  push_span (self->back, self->t0, self->t1);
  self->last_push_usec = 0;
  ks_session_set_visible (self, s.t0, s.t1);
  g_signal_emit (self, signals[VISIBLE_CHANGED], 0);
  return TRUE;
}

void
ks_session_fit_all (KsSession *self)
{
  g_return_if_fail (KS_IS_SESSION (self));

  self->last_push_usec = 0;
  ks_session_push_history (self);
  self->last_push_usec = 0;
  ks_session_set_visible (self, 0, trace_span (self));
}

void
ks_session_fit (KsSession *self,
                gint64     start,
                gint64     end)
{
  double span = MAX (MIN_SPAN_NS, (double)(end - start));
  double margin = span * 0.05;

  g_return_if_fail (KS_IS_SESSION (self));

  self->last_push_usec = 0;
  ks_session_push_history (self);
  self->last_push_usec = 0;
  ks_session_set_visible (self, start - margin, start + span + margin);
}

void
ks_session_select_slice (KsSession *self,
                         guint32    track,
                         guint32    slice)
{
  g_return_if_fail (KS_IS_SESSION (self));
  g_return_if_fail (track < self->trace->n_tracks);
  g_return_if_fail (slice < self->trace->tracks[track].n_slices);

  if (self->sel_track == track && self->sel_slice == slice)
    return;

  self->sel_track = track;
  self->sel_slice = slice;
  g_signal_emit (self, signals[SELECTION_CHANGED], 0);
}

void
ks_session_clear_selection (KsSession *self)
{
  g_return_if_fail (KS_IS_SESSION (self));

  if (self->sel_track == KS_NO_INDEX)
    return;

  self->sel_track = KS_NO_INDEX;
  self->sel_slice = KS_NO_INDEX;
  g_signal_emit (self, signals[SELECTION_CHANGED], 0);
}

gboolean
ks_session_get_selected_slice (KsSession *self,
                               guint32   *track,
                               guint32   *slice)
{
  g_return_val_if_fail (KS_IS_SESSION (self), FALSE);

  if (track)
    *track = self->sel_track;
  if (slice)
    *slice = self->sel_slice;
  return self->sel_track != KS_NO_INDEX;
}

void
ks_session_select_range (KsSession *self,
                         gint64     start,
                         gint64     end)
{
  g_return_if_fail (KS_IS_SESSION (self));

  if (end < start)
    {
      gint64 tmp = start;
      start = end;
      end = tmp;
    }

  if (self->has_range && self->range_start == start && self->range_end == end)
    return;

  self->has_range = TRUE;
  self->range_start = start;
  self->range_end = end;
  g_signal_emit (self, signals[RANGE_CHANGED], 0);
}

void
ks_session_clear_range (KsSession *self)
{
  g_return_if_fail (KS_IS_SESSION (self));

  if (!self->has_range)
    return;

  self->has_range = FALSE;
  g_signal_emit (self, signals[RANGE_CHANGED], 0);
}

gboolean
ks_session_get_range (KsSession *self,
                      gint64    *start,
                      gint64    *end)
{
  g_return_val_if_fail (KS_IS_SESSION (self), FALSE);

  if (start)
    *start = self->range_start;
  if (end)
    *end = self->range_end;
  return self->has_range;
}
