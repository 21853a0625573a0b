/* ks-interval-bar.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "ks-interval-bar.h"

struct _KsIntervalBar
{
  GtkBox          parent_instance;

  GtkLabel       *label;
  GtkSpinButton  *spin;
  GtkButton      *reload;
  double          interval;    /* the one the log was read with */
};

G_DEFINE_FINAL_TYPE (KsIntervalBar, ks_interval_bar, GTK_TYPE_BOX)

enum
{
  PROP_0,
  PROP_INTERVAL,
  N_PROPS
};

enum
{
  RELOAD,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
update_label (KsIntervalBar *self)
{
  g_autofree char *text = g_strdup_printf (_("This log has no times: its samples are taken as %g s apart. "
                                             "Sampled at another interval (nvidia-smi -l, dmon -d)?"),
                                           self->interval);

  gtk_label_set_text (self->label, text);
}

/* Reloading with the interval the log was read with changes nothing. */
static void
spin_changed_cb (KsIntervalBar *self)
{
  gtk_widget_set_sensitive (GTK_WIDGET (self->reload),
                            gtk_spin_button_get_value (self->spin) != self->interval);
}

static void
reload_cb (KsIntervalBar *self)
{
  double interval;

  gtk_spin_button_update (self->spin);
  interval = gtk_spin_button_get_value (self->spin);
  if (interval > 0)
    g_signal_emit (self, signals[RELOAD], 0, interval);
}

static void
ks_interval_bar_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  KsIntervalBar *self = KS_INTERVAL_BAR (object);

  switch (prop_id)
    {
    case PROP_INTERVAL:
      g_value_set_double (value, self->interval);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_interval_bar_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  KsIntervalBar *self = KS_INTERVAL_BAR (object);

  switch (prop_id)
    {
    case PROP_INTERVAL:
      ks_interval_bar_set_interval (self, g_value_get_double (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_interval_bar_class_init (KsIntervalBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = ks_interval_bar_get_property;
  object_class->set_property = ks_interval_bar_set_property;

  /* nvidia-smi's -l and dmon's -d take 1 s to a day */
  properties[PROP_INTERVAL] =
    g_param_spec_double ("interval", NULL, NULL, 0.001, 86400, 1,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * KsIntervalBar::reload:
   * @interval: the seconds between the samples to read the log with
   */
  signals[RELOAD] = g_signal_new ("reload", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                  NULL, G_TYPE_NONE, 1, G_TYPE_DOUBLE);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/kinescope/Kinescope/ks-interval-bar.ui");
  gtk_widget_class_bind_template_child (widget_class, KsIntervalBar, label);
  gtk_widget_class_bind_template_child (widget_class, KsIntervalBar, spin);
  gtk_widget_class_bind_template_child (widget_class, KsIntervalBar, reload);
  gtk_widget_class_bind_template_callback (widget_class, spin_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, reload_cb);
}

static void
ks_interval_bar_init (KsIntervalBar *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->interval = 1;
  update_label (self);
  spin_changed_cb (self);
}

GtkWidget *
ks_interval_bar_new (void)
{
  return g_object_new (KS_TYPE_INTERVAL_BAR, NULL);
}

double
ks_interval_bar_get_interval (KsIntervalBar *self)
{
  g_return_val_if_fail (KS_IS_INTERVAL_BAR (self), 1);

  return self->interval;
}

void
ks_interval_bar_set_interval (KsIntervalBar *self,
                              double         interval)
{
  g_return_if_fail (KS_IS_INTERVAL_BAR (self));

  interval = CLAMP (interval, 0.001, 86400);
  gtk_spin_button_set_value (self->spin, interval);
  if (self->interval == interval)
    return;
  self->interval = interval;
  update_label (self);
  spin_changed_cb (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INTERVAL]);
}
