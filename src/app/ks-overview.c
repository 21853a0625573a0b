/* ks-overview.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-overview"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <math.h>

#include "ks-analysis.h"
#include "ks-overview.h"
#include "ks-palette.h"
#include "ks-render-cairo.h"

#define OVERVIEW_HEIGHT 40

struct _KsOverview
{
  GtkWidget  parent_instance;

  KsSession  *model;          /* the "session" property */
  KsSession  *session;        /* the same while it has a trace, else NULL */
  KsAnalysis *analysis;       /* of the session's trace, or NULL until there is one */
  float      *density;        /* busy fraction per column of the time area */
  int         density_width;
  double      drag_span;
};

G_DEFINE_FINAL_TYPE (KsOverview, ks_overview, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_SESSION,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static int
area_width (KsOverview *self)
{
  return MAX (1, gtk_widget_get_width (GTK_WIDGET (self)) - KS_HEADER_WIDTH);
}

/* Up to the last activity, as fitting the trace shows it. */
static double
trace_span (KsOverview *self)
{
  gint64 start, end;

  ks_trace_get_activity_span (ks_session_get_trace (self->session), &start, &end);
  return MAX (1000.0, (double)end);
}

/* The analysis' busy buckets (the interval union, computed once with the
 * analysis) spread over the pixel columns: each column gets the busy time
 * of the buckets it overlaps, so that the strip adds up to the same busy
 * time as the Summary. */
static void
compute_density (KsOverview *self,
                 int         width)
{
  const KsTraceBusy *tb = ks_analysis_get_trace_busy (self->analysis);
  double nspp = trace_span (self) / width;
  gint64 end = (gint64)tb->n_buckets * tb->bucket_ns;
  guint b = 0;

  g_free (self->density);
  self->density = g_new0 (float, width);
  self->density_width = width;

  for (int c = 0; c < width; c++)
    {
      double c0 = c * nspp, c1 = (c + 1) * nspp;
      double busy = 0;

      while (b < tb->n_buckets && (double)(b + 1) * tb->bucket_ns <= c0)
        b++;
      for (guint k = b; k < tb->n_buckets && (double)k * tb->bucket_ns < c1; k++)
        {
          double b0 = (double)k * tb->bucket_ns;
          double b1 = MIN ((double)(k + 1) * tb->bucket_ns, (double)end);
          double len = MIN (b1, c1) - MAX (b0, c0);

          if (len > 0)
            busy += tb->busy[k] * len;
        }
      self->density[c] = (float)CLAMP (busy / nspp, 0.0, 1.0);
    }
}

static void
append_rect (GtkSnapshot *snapshot,
             float        x,
             float        y,
             float        w,
             float        h,
             KsColor      c)
{
  GdkRGBA rgba = { KS_COLOR_R (c), KS_COLOR_G (c), KS_COLOR_B (c), KS_COLOR_A (c) };

  gtk_snapshot_append_color (snapshot, &rgba, &GRAPHENE_RECT_INIT (x, y, w, h));
}

static void
ks_overview_snapshot (GtkWidget   *widget,
                      GtkSnapshot *snapshot)
{
  KsOverview *self = (KsOverview *)widget;
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  const KsTheme *theme = ks_theme_get (dark);
  int width = gtk_widget_get_width (widget);
  int height = gtk_widget_get_height (widget);
  int aw = area_width (self);
  KsColor busy = dark ? 0x62a0eaff : 0x3584e4ff;
  KsColor idle = dark ? 0xc01c2870 : 0xe01b2440;
  g_autoptr(PangoLayout) pl = NULL;
  double t0, t1, x0, x1, span;
  GdkRGBA fg = { KS_COLOR_R (theme->dim_foreground), KS_COLOR_G (theme->dim_foreground),
                 KS_COLOR_B (theme->dim_foreground), 1 };
  const KsTraceBusy *tb;
  gboolean gpu;
  int th;

  append_rect (snapshot, 0, 0, width, height, theme->ruler_background);
  append_rect (snapshot, 0, 0, KS_HEADER_WIDTH, height, theme->header_background);
  append_rect (snapshot, 0, height - 1, width, 1, theme->row_separator);

  if (self->session == NULL || self->analysis == NULL)
    return;

  tb = ks_analysis_get_trace_busy (self->analysis);
  /* idle columns stand out for the GPU, whether busy or sampled */
  gpu = tb->gpu || tb->utilization;
  if (self->density == NULL || self->density_width != aw)
    compute_density (self, aw);

  pl = gtk_widget_create_pango_layout (widget, tb->gpu ? _("GPU busy (whole trace)")
                                               : tb->utilization ? _("GPU utilization (whole log)")
                                               : _("CPU activity (whole trace)"));
  pango_layout_get_pixel_size (pl, NULL, &th);
  gtk_snapshot_save (snapshot);
  gtk_snapshot_translate (snapshot, &GRAPHENE_POINT_INIT (6, (height - th) / 2.0));
  gtk_snapshot_append_layout (snapshot, pl, &fg);
  gtk_snapshot_restore (snapshot);

  /* Busy columns as bars; fully idle columns get a red tick so that
   * gaps stand out even when they are narrow. */
  for (int c = 0; c < aw; c++)
    {
      float d = self->density[c];

      if (d > 0)
        {
          float h = MAX (1.0f, d * (height - 6));

          append_rect (snapshot, KS_HEADER_WIDTH + c, height - 3 - h, 1, h, busy);
        }
      else if (gpu)
        append_rect (snapshot, KS_HEADER_WIDTH + c, height - 5, 1, 3, idle);
    }

  ks_session_get_visible (self->session, &t0, &t1);
  span = trace_span (self);
  x0 = KS_HEADER_WIDTH + CLAMP (t0 / span, 0, 1) * aw;
  x1 = KS_HEADER_WIDTH + CLAMP (t1 / span, 0, 1) * aw;
  if (x1 - x0 < 2)
    {
      double mid = (x0 + x1) / 2;

      x0 = mid - 1;
      x1 = mid + 1;
    }

  /* Shade what is outside the view, and bracket the view. */
  append_rect (snapshot, KS_HEADER_WIDTH, 0, x0 - KS_HEADER_WIDTH, height, dark ? 0x00000070 : 0xffffff90);
  append_rect (snapshot, x1, 0, width - x1, height, dark ? 0x00000070 : 0xffffff90);
  append_rect (snapshot, x0, 0, 2, height, theme->foreground);
  append_rect (snapshot, x1 - 2, 0, 2, height, theme->foreground);
  append_rect (snapshot, x0, 0, x1 - x0, 2, theme->foreground);
  append_rect (snapshot, x0, height - 2, x1 - x0, 2, theme->foreground);
}

static void
center_at (KsOverview *self,
           double      x)
{
  double t0, t1, t;

  if (self->session == NULL)
    return;

  ks_session_get_visible (self->session, &t0, &t1);
  t = (x - KS_HEADER_WIDTH) / area_width (self) * trace_span (self);
  ks_session_set_visible (self->session, t - (t1 - t0) / 2, t + (t1 - t0) / 2);
}

static void
drag_begin_cb (KsOverview     *self,
               double          x,
               double          y,
               GtkGestureDrag *gesture)
{
  if (self->session == NULL || x < KS_HEADER_WIDTH)
    {
      gtk_gesture_set_state (GTK_GESTURE (gesture), GTK_EVENT_SEQUENCE_DENIED);
      return;
    }
  ks_session_push_history (self->session);
  center_at (self, x);
}

static void
drag_update_cb (KsOverview     *self,
                double          dx,
                double          dy,
                GtkGestureDrag *gesture)
{
  double sx, sy;

  if (gtk_gesture_drag_get_start_point (gesture, &sx, &sy))
    center_at (self, sx + dx);
}

static void
visible_changed_cb (KsOverview *self)
{
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

/* The strip draws the session's analysis; a new trace has none until
 * its own is computed. */
static void
analysis_changed_cb (KsOverview *self)
{
  KsAnalysis *analysis = self->session != NULL ? ks_session_get_analysis (self->session) : NULL;

  if (!g_set_object (&self->analysis, analysis))
    return;
  g_clear_pointer (&self->density, g_free);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
trace_changed_cb (KsOverview *self)
{
  KsSession *session = self->model != NULL && ks_session_get_trace (self->model) != NULL ? self->model : NULL;

  /* by function: the session is also the model, whose notify::trace stays */
  if (self->session != NULL)
    {
      g_signal_handlers_disconnect_by_func (self->session, visible_changed_cb, self);
      g_signal_handlers_disconnect_by_func (self->session, analysis_changed_cb, self);
    }
  self->session = session;
  g_clear_object (&self->analysis);
  g_clear_pointer (&self->density, g_free);
  if (session != NULL)
    {
      g_signal_connect_object (session, "visible-changed",
                               G_CALLBACK (visible_changed_cb), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (session, "notify::analysis",
                               G_CALLBACK (analysis_changed_cb), self, G_CONNECT_SWAPPED);
    }
  analysis_changed_cb (self);
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

KsSession *
ks_overview_get_session (KsOverview *self)
{
  g_return_val_if_fail (KS_IS_OVERVIEW (self), NULL);

  return self->model;
}

void
ks_overview_set_session (KsOverview *self,
                         KsSession  *session)
{
  g_return_if_fail (KS_IS_OVERVIEW (self));
  g_return_if_fail (!session || KS_IS_SESSION (session));

  if (self->model == session)
    return;
  if (self->model != NULL)
    g_signal_handlers_disconnect_by_func (self->model, trace_changed_cb, self);
  g_set_object (&self->model, session);
  if (session != NULL)
    g_signal_connect_object (session, "notify::trace", G_CALLBACK (trace_changed_cb), self, G_CONNECT_SWAPPED);
  trace_changed_cb (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION]);
}

static void
ks_overview_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  KsOverview *self = KS_OVERVIEW (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      g_value_set_object (value, self->model);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_overview_set_property (GObject      *object,
                          guint         prop_id,
                          const GValue *value,
                          GParamSpec   *pspec)
{
  KsOverview *self = KS_OVERVIEW (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      ks_overview_set_session (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_overview_measure (GtkWidget      *widget,
                     GtkOrientation  orientation,
                     int             for_size,
                     int            *minimum,
                     int            *natural,
                     int            *minimum_baseline,
                     int            *natural_baseline)
{
  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    *minimum = *natural = KS_HEADER_WIDTH + 100;
  else
    *minimum = *natural = OVERVIEW_HEIGHT;
}

static void
ks_overview_dispose (GObject *object)
{
  KsOverview *self = (KsOverview *)object;

  ks_overview_set_session (self, NULL);

  G_OBJECT_CLASS (ks_overview_parent_class)->dispose (object);
}

static void
redraw_cb (KsOverview *self)
{
  gtk_widget_queue_draw (GTK_WIDGET (self));
}

static void
ks_overview_class_init (KsOverviewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_overview_dispose;
  object_class->get_property = ks_overview_get_property;
  object_class->set_property = ks_overview_set_property;
  widget_class->snapshot = ks_overview_snapshot;
  widget_class->measure = ks_overview_measure;

  properties[PROP_SESSION] =
    g_param_spec_object ("session", NULL, NULL, KS_TYPE_SESSION,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_css_name (widget_class, "ksoverview");
}

static void
ks_overview_init (KsOverview *self)
{
  GtkGesture *gesture;

  gtk_widget_set_overflow (GTK_WIDGET (self), GTK_OVERFLOW_HIDDEN);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self), _("Whole trace: click or drag to move the view"));

  gesture = gtk_gesture_drag_new ();
  gtk_event_controller_set_static_name (GTK_EVENT_CONTROLLER (gesture), "ks-overview-drag");
  g_signal_connect_swapped (gesture, "drag-begin", G_CALLBACK (drag_begin_cb), self);
  g_signal_connect_swapped (gesture, "drag-update", G_CALLBACK (drag_update_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (gesture));

  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (redraw_cb), self, G_CONNECT_SWAPPED);
}

const float *
ks_overview_get_columns (KsOverview *self,
                         guint      *n_columns)
{
  g_return_val_if_fail (KS_IS_OVERVIEW (self), NULL);

  *n_columns = self->density != NULL ? self->density_width : 0;
  return self->density;
}

GtkWidget *
ks_overview_new (void)
{
  return g_object_new (KS_TYPE_OVERVIEW, NULL);
}
