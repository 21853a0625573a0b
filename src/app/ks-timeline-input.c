/* ks-timeline-input.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-timeline"

#include "config.h"

#include <math.h>

#include "ks-timeline-private.h"

/* Input: pointer motion, scrolling, pinch zoom, drag to pan or select
 * a range, clicks, and the keyboard actions. */

static double
anchor_time (KsTimeline *self)
{
  double t0, t1;

  ks_session_get_visible (self->session, &t0, &t1);
  if (self->pointer_inside && self->pointer_x >= KS_HEADER_WIDTH)
    return ks_timeline_x_to_time (self, self->pointer_x);
  return (t0 + t1) / 2;
}

static void
motion_cb (KsTimeline               *self,
           double                    x,
           double                    y,
           GtkEventControllerMotion *motion)
{
  self->pointer_x = x;
  self->pointer_y = y;
  self->pointer_inside = TRUE;
  _ks_timeline_update_hover (self);
  /* The time cursor follows the pointer; row nodes stay cached. */
  if (x >= KS_HEADER_WIDTH)
    gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
leave_cb (KsTimeline               *self,
          GtkEventControllerMotion *motion)
{
  self->pointer_inside = FALSE;
  _ks_timeline_update_hover (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static gboolean
scroll_cb (KsTimeline               *self,
           double                    dx,
           double                    dy,
           GtkEventControllerScroll *scroll)
{
  GdkModifierType state;
  GdkScrollUnit unit;
  double t0, t1, span;

  if (self->session == NULL)
    return FALSE;

  state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (scroll));
  unit = gtk_event_controller_scroll_get_unit (scroll);
  ks_session_get_visible (self->session, &t0, &t1);
  span = t1 - t0;

  if (state & GDK_CONTROL_MASK)
    {
      /* A wheel notch zooms by ~18 %; touchpads report pixels. */
      double k = unit == GDK_SCROLL_UNIT_WHEEL ? 0.2 : 0.005;

      ks_session_push_history (self->session);
      ks_session_zoom (self->session, exp (dy * k), anchor_time (self));
      _ks_timeline_update_hover (self);
      return TRUE;
    }

  if (state & GDK_SHIFT_MASK)
    {
      double d = dy != 0 ? dy : dx;

      if (unit == GDK_SCROLL_UNIT_WHEEL)
        ks_session_pan (self->session, d * span * 0.1);
      else
        ks_session_pan (self->session, d * span / time_area_width (self));
      _ks_timeline_update_hover (self);
      return TRUE;
    }

  if (dx != 0)
    {
      if (unit == GDK_SCROLL_UNIT_WHEEL)
        ks_session_pan (self->session, dx * span * 0.1);
      else
        ks_session_pan (self->session, dx * span / time_area_width (self));
      _ks_timeline_update_hover (self);
      return dy == 0;
    }

  return FALSE;
}

static void
zoom_begin_cb (KsTimeline     *self,
               GdkEventSequence *sequence,
               GtkGesture     *gesture)
{
  self->zoom_scale = 1.0;
  if (self->session != NULL)
    ks_session_push_history (self->session);
}

static void
zoom_scale_changed_cb (KsTimeline     *self,
                       double          scale,
                       GtkGestureZoom *gesture)
{
  double cx, cy;

  if (self->session == NULL || scale <= 0)
    return;

  /* Anchor at the fingers' centre; without touch points (a synthetic
   * scale change) at the pointer. */
  if (!gtk_gesture_is_active (GTK_GESTURE (gesture)) ||
      !gtk_gesture_get_bounding_box_center (GTK_GESTURE (gesture), &cx, &cy))
    cx = self->pointer_x;
  ks_session_zoom (self->session, self->zoom_scale / scale, ks_timeline_x_to_time (self, cx));
  self->zoom_scale = scale;
}

static void
drag_begin_cb (KsTimeline     *self,
               double          x,
               double          y,
               GtkGestureDrag *gesture)
{
  guint button = gtk_gesture_single_get_current_button (GTK_GESTURE_SINGLE (gesture));
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (gesture));

  self->drag_mode = DRAG_NONE;
  if (self->session == NULL)
    return;

  self->drag_start_x = x;
  self->drag_start_y = y;
  self->drag_x = x;
  self->drag_scroll = scroll_offset (self);
  ks_session_get_visible (self->session, &self->drag_t0, &self->drag_t1);

  if (button == GDK_BUTTON_MIDDLE || (state & GDK_SHIFT_MASK) || y < KS_RULER_HEIGHT)
    self->drag_mode = DRAG_PAN;
  else if (x >= KS_HEADER_WIDTH && (button == 0 || button == GDK_BUTTON_PRIMARY))
    self->drag_mode = DRAG_SELECT;

  if (self->drag_mode == DRAG_PAN)
    {
      ks_session_push_history (self->session);
      gtk_widget_set_cursor_from_name (GTK_WIDGET (self), "grabbing");
    }
}

static void
drag_update_cb (KsTimeline     *self,
                double          dx,
                double          dy,
                GtkGestureDrag *gesture)
{
  switch (self->drag_mode)
    {
    case DRAG_PAN:
      {
        double nspp = (self->drag_t1 - self->drag_t0) / time_area_width (self);

        ks_session_set_visible (self->session, self->drag_t0 - dx * nspp, self->drag_t1 - dx * nspp);
        if (self->vadjustment != NULL && self->drag_start_y >= KS_RULER_HEIGHT)
          gtk_adjustment_set_value (self->vadjustment, self->drag_scroll - dy);
      }
      break;

    case DRAG_SELECT:
      self->drag_x = CLAMP (self->drag_start_x + dx, KS_HEADER_WIDTH, gtk_widget_get_width (GTK_WIDGET (self)));
      if (fabs (dx) >= DRAG_THRESHOLD)
        gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_CLAIMED);
      gtk_widget_queue_draw (GTK_WIDGET (self));
      break;

    case DRAG_NONE:
    default:
      break;
    }
}

static void
drag_end_cb (KsTimeline     *self,
             double          dx,
             double          dy,
             GtkGestureDrag *gesture)
{
  DragMode mode = self->drag_mode;

  self->drag_mode = DRAG_NONE;
  gtk_widget_set_cursor (GTK_WIDGET (self), NULL);

  if (mode == DRAG_SELECT && fabs (dx) >= DRAG_THRESHOLD)
    {
      double a = ks_timeline_x_to_time (self, self->drag_start_x);
      double b = ks_timeline_x_to_time (self, CLAMP (self->drag_start_x + dx, KS_HEADER_WIDTH,
                                                     gtk_widget_get_width (GTK_WIDGET (self))));

      ks_session_select_range (self->session, (gint64)llround (MIN (a, b)), (gint64)llround (MAX (a, b)));
    }
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
click_pressed_cb (KsTimeline      *self,
                  int              n_press,
                  double           x,
                  double           y,
                  GtkGestureClick *gesture)
{
  gtk_widget_grab_focus (GTK_WIDGET (self));
}

/* Clicks act on release: a press that turns into a drag selects a range
 * instead, and the click gesture is cancelled before it releases. */
static void
click_released_cb (KsTimeline      *self,
                   int              n_press,
                   double           x,
                   double           y,
                   GtkGestureClick *gesture)
{
  KsHit hit;

  if (self->layout == NULL)
    return;

  if (y >= KS_RULER_HEIGHT && x < KS_HEADER_WIDTH)
    {
      guint r = ks_timeline_layout_row_at_y (self->layout, y - KS_RULER_HEIGHT + scroll_offset (self));

      if (r != KS_NO_INDEX && n_press == 1 &&
          ks_timeline_layout_get_row (self->layout, r)->kind == KS_ROW_GROUP)
        ks_timeline_toggle_group (self, r);
      return;
    }

  if (y < KS_RULER_HEIGHT)
    return;

  if (!_ks_timeline_hit_at (self, x, y, &hit))
    {
      ItemHit item;

      /* An instant's mark or a memory block; a folded mark zooms to its
       * instants. */
      if (_ks_timeline_item_at (self, x, y, &item))
        {
          /* a snapshot's mark beside a trace says it all in its tooltip */
          if (item.is_block && item.block.block == KS_NO_INDEX)
            return;
          if (item.is_block)
            ks_session_select_memory_block (self->session, item.block.device, item.block.block);
          else if (item.instant.count > 1)
            ks_session_fit (self->session, item.instant.start, item.instant.end);
          else
            ks_session_select_instant (self->session, item.instant.instant);
          return;
        }
      if (n_press == 1)
        {
          ks_session_clear_selection (self->session);
          ks_session_clear_range (self->session);
        }
      return;
    }

  /* Double-click zooms to a slice; a click on a folded block zooms to
   * it, as there is no single slice to select there. */
  if (n_press == 2 || hit.count > 1)
    {
      ks_session_fit (self->session, hit.start, hit.end);
      return;
    }

  ks_session_select_slice (self->session, hit.track, hit.slice);
}

/* Keyboard actions: W/S zoom at the pointer, A/D pan, F fits; the
 * window binds their keys. */

static void
zoom_step (KsTimeline *self,
           double      factor)
{
  if (self->session == NULL)
    return;
  ks_session_push_history (self->session);
  ks_session_zoom (self->session, factor, anchor_time (self));
}

static void
zoom_in_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *param)
{
  zoom_step ((KsTimeline *)widget, 0.8);
}

static void
zoom_out_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *param)
{
  zoom_step ((KsTimeline *)widget, 1.25);
}

static void
pan_action (GtkWidget  *widget,
            const char *action_name,
            GVariant   *param)
{
  KsTimeline *self = (KsTimeline *)widget;
  double t0, t1;

  if (self->session == NULL)
    return;
  ks_session_get_visible (self->session, &t0, &t1);
  ks_session_pan (self->session, g_variant_get_int32 (param) * (t1 - t0) * 0.1);
}

static void
fit_selection_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  KsTimeline *self = (KsTimeline *)widget;
  KsTrace *trace;
  guint32 track, slice;
  gint64 a, b;

  if (self->session == NULL)
    return;
  trace = ks_session_get_trace (self->session);

  if (ks_session_get_range (self->session, &a, &b))
    ks_session_fit (self->session, a, b);
  else if (ks_session_get_selected_slice (self->session, &track, &slice))
    ks_session_fit (self->session, trace->tracks[track].start[slice], trace->tracks[track].end[slice]);
  else
    ks_session_fit_all (self->session);
}

static void
clear_selection_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *param)
{
  KsTimeline *self = (KsTimeline *)widget;

  if (self->session == NULL)
    return;
  ks_session_clear_selection (self->session);
  ks_session_clear_range (self->session);
}

void
_ks_timeline_class_input_init (KsTimelineClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_install_action (widget_class, "timeline.zoom-in", NULL, zoom_in_action);
  gtk_widget_class_install_action (widget_class, "timeline.zoom-out", NULL, zoom_out_action);
  gtk_widget_class_install_action (widget_class, "timeline.pan", "i", pan_action);
  gtk_widget_class_install_action (widget_class, "timeline.fit-selection", NULL, fit_selection_action);
  gtk_widget_class_install_action (widget_class, "timeline.clear-selection", NULL, clear_selection_action);

  /* W/S/A/D/F and Esc are window shortcuts (ks-window-actions.c), so they
   * work with the focus anywhere; the arrows move the focus elsewhere and
   * pan only here. */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, 0, "timeline.pan", "i", -1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Right, 0, "timeline.pan", "i", 1);
}

void
_ks_timeline_input_init (KsTimeline *self)
{
  GtkEventController *controller;
  GtkGesture *gesture;

  controller = gtk_event_controller_motion_new ();
  gtk_event_controller_set_static_name (controller, "ks-timeline-motion");
  g_signal_connect_swapped (controller, "enter", G_CALLBACK (motion_cb), self);
  g_signal_connect_swapped (controller, "motion", G_CALLBACK (motion_cb), self);
  g_signal_connect_swapped (controller, "leave", G_CALLBACK (leave_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  controller = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_BOTH_AXES);
  gtk_event_controller_set_static_name (controller, "ks-timeline-scroll");
  gtk_event_controller_set_propagation_phase (controller, GTK_PHASE_CAPTURE);
  g_signal_connect_swapped (controller, "scroll", G_CALLBACK (scroll_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), controller);

  gesture = gtk_gesture_zoom_new ();
  gtk_event_controller_set_static_name (GTK_EVENT_CONTROLLER (gesture), "ks-timeline-zoom");
  g_signal_connect_swapped (gesture, "begin", G_CALLBACK (zoom_begin_cb), self);
  g_signal_connect_swapped (gesture, "scale-changed", G_CALLBACK (zoom_scale_changed_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_drag_new ();
  gtk_event_controller_set_static_name (GTK_EVENT_CONTROLLER (gesture), "ks-timeline-drag");
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), 0);
  g_signal_connect_swapped (gesture, "drag-begin", G_CALLBACK (drag_begin_cb), self);
  g_signal_connect_swapped (gesture, "drag-update", G_CALLBACK (drag_update_cb), self);
  g_signal_connect_swapped (gesture, "drag-end", G_CALLBACK (drag_end_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  gesture = gtk_gesture_click_new ();
  gtk_event_controller_set_static_name (GTK_EVENT_CONTROLLER (gesture), "ks-timeline-click");
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (gesture), GDK_BUTTON_PRIMARY);
  g_signal_connect_swapped (gesture, "pressed", G_CALLBACK (click_pressed_cb), self);
  g_signal_connect_swapped (gesture, "released", G_CALLBACK (click_released_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));
}
