/* ks-timeline.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-timeline"

#include "config.h"

#include <adwaita.h>
#include <math.h>

#include "ks-timeline-private.h"

/* The object: its session and layout, its properties, vertical scrolling
 * and the rows it shows. Drawing, hit-testing and input are in the
 * files named in ks-timeline-private.h. */

static void ks_timeline_scrollable_init (GtkScrollableInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (KsTimeline, ks_timeline, GTK_TYPE_WIDGET,
                               G_IMPLEMENT_INTERFACE (GTK_TYPE_SCROLLABLE, ks_timeline_scrollable_init))

/* GtkScrollable's properties, overridden. */
enum {
  PROP_0,
  PROP_HADJUSTMENT,
  PROP_VADJUSTMENT,
  PROP_HSCROLL_POLICY,
  PROP_VSCROLL_POLICY,
};

static void
ks_timeline_scrollable_init (GtkScrollableInterface *iface)
{
}

static void
node_unref0 (gpointer node)
{
  /* Rows with nothing in view cache a NULL node. */
  if (node != NULL)
    gsk_render_node_unref (node);
}

double
ks_timeline_time_to_x (KsTimeline *self,
                       double      t)
{
  KsTimeView view;

  g_return_val_if_fail (KS_IS_TIMELINE (self), 0);

  get_view (self, &view);
  return KS_HEADER_WIDTH + (t - view.t0) / view.ns_per_px;
}

double
ks_timeline_x_to_time (KsTimeline *self,
                       double      x)
{
  KsTimeView view;

  g_return_val_if_fail (KS_IS_TIMELINE (self), 0);

  get_view (self, &view);
  return view.t0 + (x - KS_HEADER_WIDTH) * view.ns_per_px;
}

void
_ks_timeline_invalidate_rows (KsTimeline *self)
{
  g_hash_table_remove_all (self->row_nodes);
}

static void
update_adjustments (KsTimeline *self)
{
  double page, upper, value;

  if (self->vadjustment == NULL)
    return;

  page = MAX (0, gtk_widget_get_height (GTK_WIDGET (self)) - KS_RULER_HEIGHT);
  upper = self->layout != NULL ? ks_timeline_layout_get_height (self->layout) : 0;
  upper = MAX (upper, page);
  value = CLAMP (gtk_adjustment_get_value (self->vadjustment), 0, upper - page);

  gtk_adjustment_configure (self->vadjustment, value, 0, upper,
                            KS_LANE_HEIGHT, page * 0.9, page);

  if (self->hadjustment != NULL)
    {
      double w = gtk_widget_get_width (GTK_WIDGET (self));

      gtk_adjustment_configure (self->hadjustment, 0, 0, w, 1, w, w);
    }
}
gboolean
ks_timeline_get_row_top (KsTimeline *self,
                         guint       row,
                         double     *y)
{
  const KsRow *r;
  double wy;

  g_return_val_if_fail (KS_IS_TIMELINE (self), FALSE);

  if (self->layout == NULL || row >= ks_timeline_layout_get_n_rows (self->layout))
    return FALSE;
  r = ks_timeline_layout_get_row (self->layout, row);
  if (r->y < 0)
    return FALSE;
  wy = KS_RULER_HEIGHT + r->y - scroll_offset (self);
  if (wy + r->height <= KS_RULER_HEIGHT || wy >= gtk_widget_get_height (GTK_WIDGET (self)))
    return FALSE;
  *y = wy;
  return TRUE;
}

void
ks_timeline_reveal_track (KsTimeline *self,
                          guint32     track)
{
  g_return_if_fail (KS_IS_TIMELINE (self));

  if (self->layout != NULL)
    ks_timeline_reveal_row (self, ks_timeline_layout_find_track_row (self->layout, track));
}

void
ks_timeline_reveal_row (KsTimeline *self,
                        guint       r)
{
  const KsRow *row;
  double value, page;

  g_return_if_fail (KS_IS_TIMELINE (self));

  if (self->layout == NULL || r >= ks_timeline_layout_get_n_rows (self->layout))
    return;
  row = ks_timeline_layout_get_row (self->layout, r);
  if (row->y < 0)
    {
      ks_timeline_layout_set_expanded (self->layout, row->group, TRUE);
      update_adjustments (self);
      _ks_timeline_invalidate_rows (self);
    }
  if (self->vadjustment == NULL)
    return;

  value = gtk_adjustment_get_value (self->vadjustment);
  page = gtk_adjustment_get_page_size (self->vadjustment);
  if (row->y < value || row->y + MIN (row->height, page) > value + page)
    gtk_adjustment_set_value (self->vadjustment, MAX (0, row->y - page / 3));
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ks_timeline_toggle_group (KsTimeline *self,
                          guint       r)
{
  const KsRow *row;

  g_return_if_fail (KS_IS_TIMELINE (self));
  g_return_if_fail (self->layout != NULL);

  row = ks_timeline_layout_get_row (self->layout, r);
  if (row->kind != KS_ROW_GROUP)
    return;
  ks_timeline_layout_set_expanded (self->layout, r, !row->expanded);
  update_adjustments (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
visible_changed_cb (KsTimeline *self,
                    KsSession  *session)
{
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
selection_changed_cb (KsTimeline *self,
                      KsSession  *session)
{
  _ks_timeline_compute_arrows (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

KsSession *
ks_timeline_get_session (KsTimeline *self)
{
  g_return_val_if_fail (KS_IS_TIMELINE (self), NULL);

  return self->session;
}

KsTimelineLayout *
ks_timeline_get_layout (KsTimeline *self)
{
  g_return_val_if_fail (KS_IS_TIMELINE (self), NULL);

  return self->layout;
}

void
ks_timeline_set_session (KsTimeline *self,
                         KsSession  *session)
{
  g_return_if_fail (KS_IS_TIMELINE (self));
  g_return_if_fail (!session || KS_IS_SESSION (session));

  if (self->session == session)
    return;

  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_clear_object (&self->session);
  g_clear_object (&self->path);
  g_clear_pointer (&self->layout, ks_timeline_layout_free);
  _ks_timeline_invalidate_rows (self);
  self->has_hover = FALSE;

  if (session != NULL)
    {
      self->session = g_object_ref (session);
      self->layout = ks_timeline_layout_new (ks_session_get_trace (session));
      g_signal_connect_object (session, "visible-changed",
                               G_CALLBACK (visible_changed_cb), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (session, "selection-changed",
                               G_CALLBACK (selection_changed_cb), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (session, "range-changed",
                               G_CALLBACK (visible_changed_cb), self, G_CONNECT_SWAPPED);
      /* the warm-up and inferred steps are drawn from the analysis */
      g_signal_connect_object (session, "notify::analysis",
                               G_CALLBACK (gtk_widget_queue_draw), self, G_CONNECT_SWAPPED);
    }

  _ks_timeline_compute_arrows (self);
  update_adjustments (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

void
ks_timeline_set_matches (KsTimeline   *self,
                         const guint8 *matches)
{
  g_return_if_fail (KS_IS_TIMELINE (self));

  self->matches = matches;
  /* The caller may reuse the buffer, so the key alone is not enough. */
  _ks_timeline_invalidate_rows (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}
static void
dark_changed_cb (KsTimeline      *self,
                 GParamSpec      *pspec,
                 AdwStyleManager *manager)
{
  self->dark = adw_style_manager_get_dark (manager);
  _ks_timeline_invalidate_rows (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
vadjustment_value_changed_cb (KsTimeline    *self,
                              GtkAdjustment *adjustment)
{
  _ks_timeline_update_hover (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
set_vadjustment (KsTimeline    *self,
                 GtkAdjustment *adjustment)
{
  if (self->vadjustment == adjustment)
    return;
  if (self->vadjustment != NULL)
    g_signal_handlers_disconnect_by_func (self->vadjustment, vadjustment_value_changed_cb, self);
  g_set_object (&self->vadjustment, adjustment);
  if (adjustment != NULL)
    g_signal_connect_object (adjustment, "value-changed",
                             G_CALLBACK (vadjustment_value_changed_cb), self, G_CONNECT_SWAPPED);
  update_adjustments (self);
}

static void
ks_timeline_size_allocate (GtkWidget *widget,
                           int        width,
                           int        height,
                           int        baseline)
{
  update_adjustments (KS_TIMELINE (widget));
}

static void
ks_timeline_measure (GtkWidget      *widget,
                     GtkOrientation  orientation,
                     int             for_size,
                     int            *minimum,
                     int            *natural,
                     int            *minimum_baseline,
                     int            *natural_baseline)
{
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    {
      *minimum = KS_HEADER_WIDTH + 100;
      *natural = KS_HEADER_WIDTH + 800;
    }
  else
    {
      *minimum = KS_RULER_HEIGHT + 60;
      *natural = KS_RULER_HEIGHT + 400;
    }
}

static void
ks_timeline_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  KsTimeline *self = KS_TIMELINE (object);

  switch (prop_id)
    {
    case PROP_HADJUSTMENT:
      g_value_set_object (value, self->hadjustment);
      break;

    case PROP_VADJUSTMENT:
      g_value_set_object (value, self->vadjustment);
      break;

    case PROP_HSCROLL_POLICY:
      g_value_set_enum (value, self->hscroll_policy);
      break;

    case PROP_VSCROLL_POLICY:
      g_value_set_enum (value, self->vscroll_policy);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_timeline_set_property (GObject      *object,
                          guint         prop_id,
                          const GValue *value,
                          GParamSpec   *pspec)
{
  KsTimeline *self = KS_TIMELINE (object);

  switch (prop_id)
    {
    case PROP_HADJUSTMENT:
      g_set_object (&self->hadjustment, g_value_get_object (value));
      update_adjustments (self);
      break;

    case PROP_VADJUSTMENT:
      set_vadjustment (self, g_value_get_object (value));
      break;

    case PROP_HSCROLL_POLICY:
      self->hscroll_policy = g_value_get_enum (value);
      break;

    case PROP_VSCROLL_POLICY:
      self->vscroll_policy = g_value_get_enum (value);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_timeline_dispose (GObject *object)
{
  KsTimeline *self = (KsTimeline *)object;

  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_clear_object (&self->session);
  g_clear_pointer (&self->layout, ks_timeline_layout_free);
  if (self->vadjustment != NULL)
    g_signal_handlers_disconnect_by_func (self->vadjustment, vadjustment_value_changed_cb, self);
  g_clear_object (&self->vadjustment);
  g_clear_object (&self->hadjustment);
  if (self->row_nodes != NULL)
    g_hash_table_remove_all (self->row_nodes);

  G_OBJECT_CLASS (ks_timeline_parent_class)->dispose (object);
}

static void
ks_timeline_finalize (GObject *object)
{
  KsTimeline *self = (KsTimeline *)object;

  g_clear_pointer (&self->row_nodes, g_hash_table_unref);
  g_clear_pointer (&self->arrows, g_array_unref);

  G_OBJECT_CLASS (ks_timeline_parent_class)->finalize (object);
}

static void
ks_timeline_class_init (KsTimelineClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_timeline_dispose;
  object_class->finalize = ks_timeline_finalize;
  object_class->get_property = ks_timeline_get_property;
  object_class->set_property = ks_timeline_set_property;

  widget_class->snapshot = _ks_timeline_snapshot;
  widget_class->size_allocate = ks_timeline_size_allocate;
  widget_class->measure = ks_timeline_measure;
  widget_class->query_tooltip = _ks_timeline_query_tooltip;

  g_object_class_override_property (object_class, PROP_HADJUSTMENT, "hadjustment");
  g_object_class_override_property (object_class, PROP_VADJUSTMENT, "vadjustment");
  g_object_class_override_property (object_class, PROP_HSCROLL_POLICY, "hscroll-policy");
  g_object_class_override_property (object_class, PROP_VSCROLL_POLICY, "vscroll-policy");

  gtk_widget_class_set_css_name (widget_class, "kstimeline");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GRID);

  _ks_timeline_class_input_init (klass);
}

static void
ks_timeline_init (KsTimeline *self)
{
  AdwStyleManager *manager = adw_style_manager_get_default ();

  self->row_nodes = g_hash_table_new_full (NULL, NULL, NULL, node_unref0);
  self->arrows = g_array_new (FALSE, FALSE, sizeof (FlowArrow));
  self->cache_t0 = NAN;

  gtk_widget_set_focusable (GTK_WIDGET (self), TRUE);
  gtk_widget_set_has_tooltip (GTK_WIDGET (self), TRUE);
  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);

  _ks_timeline_input_init (self);

  self->dark = adw_style_manager_get_dark (manager);
  g_signal_connect_object (manager, "notify::dark", G_CALLBACK (dark_changed_cb), self, G_CONNECT_SWAPPED);
}

GtkWidget *
ks_timeline_new (void)
{
  return g_object_new (KS_TYPE_TIMELINE, NULL);
}
