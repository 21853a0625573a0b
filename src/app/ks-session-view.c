/* ks-session-view.c: the session's visible span, its zoom and pan, the
 * zoom history and fitting
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-session"

#include "config.h"

#include <math.h>

#include "ks-session-private.h"

#define MIN_SPAN_NS      10.0
#define HISTORY_MAX      100
/* Wheel events closer than this belong to one zoom gesture. */
#define HISTORY_COALESCE (G_USEC_PER_SEC / 2)

double
ks_session_trace_span (KsSession *self)
{
  return MAX (1000.0, self->trace != NULL ? (double)self->trace->duration_ns : 0.0);
}

void
ks_session_fit_span (KsSession *self,
                     double    *t0,
                     double    *t1)
{
  gint64 start = 0, end = 0;

  if (self->trace != NULL)
    ks_trace_get_activity_span (self->trace, &start, &end);
  *t0 = start;
  *t1 = MAX ((double)start + 1000.0, (double)end);
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

  total = ks_session_trace_span (self);
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
  g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_VISIBLE_START]);
  g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_VISIBLE_END]);
  g_signal_emit (self, ks_session_signals[VISIBLE_CHANGED], 0);
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
  g_signal_emit (self, ks_session_signals[VISIBLE_CHANGED], 0);
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
  g_signal_emit (self, ks_session_signals[VISIBLE_CHANGED], 0);
  return TRUE;
}

void
ks_session_fit_all (KsSession *self)
{
  double t0, t1;

  g_return_if_fail (KS_IS_SESSION (self));

  self->last_push_usec = 0;
  ks_session_push_history (self);
  self->last_push_usec = 0;
  ks_session_fit_span (self, &t0, &t1);
  ks_session_set_visible (self, t0, t1);
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
