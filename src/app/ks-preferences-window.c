/* ks-preferences-window.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-preferences-window"

#include "config.h"

#include <glib/gi18n.h>

#include "ks-application.h"
#include "ks-preferences-window.h"

/* Positions in the gap order combo row, in the order of the .ui model. */
static const char * const gap_orders[] = { "duration", "time" };

struct _KsPreferencesWindow
{
  AdwPreferencesWindow  parent_instance;

  GSettings            *settings;

  GtkSpinButton        *gap_threshold_spin;
  GtkSpinButton        *kernel_wait_spin;
  GtkSpinButton        *folder_memory_spin;
  GtkSwitch            *busy_copies_switch;
  GtkSwitch            *include_warmup_switch;
  AdwComboRow          *gap_order_row;
};

G_DEFINE_FINAL_TYPE (KsPreferencesWindow, ks_preferences_window, ADW_TYPE_PREFERENCES_WINDOW)

enum {
  PROP_0,
  PROP_SETTINGS,
  N_PROPS
};

static GParamSpec *properties [N_PROPS];

static gboolean
gap_order_get_mapping (GValue   *value,
                       GVariant *variant,
                       gpointer  user_data)
{
  const char *order = g_variant_get_string (variant, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (gap_orders); i++)
    {
      if (g_strcmp0 (order, gap_orders[i]) == 0)
        {
          g_value_set_uint (value, i);
          return TRUE;
        }
    }

  return FALSE;
}

static GVariant *
gap_order_set_mapping (const GValue       *value,
                       const GVariantType *expected_type,
                       gpointer            user_data)
{
  guint position = g_value_get_uint (value);

  if (position >= G_N_ELEMENTS (gap_orders))
    return NULL;

  return g_variant_new_string (gap_orders[position]);
}

static void
ks_preferences_window_bind (KsPreferencesWindow *self)
{
  g_autoptr(GSimpleActionGroup) actions = NULL;

  g_assert (KS_IS_PREFERENCES_WINDOW (self));
  g_assert (G_IS_SETTINGS (self->settings));

  g_settings_bind (self->settings, "gap-threshold-us",
                   self->gap_threshold_spin, "value",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "kernel-wait-us",
                   self->kernel_wait_spin, "value",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (self->settings, "folder-memory-mb",
                   self->folder_memory_spin, "value",
                   G_SETTINGS_BIND_DEFAULT);
  /* The toggles are the settings' actions, as in the window's menu. */
  actions = ks_application_create_settings_actions (self->settings);
  gtk_widget_insert_action_group (GTK_WIDGET (self), "settings", G_ACTION_GROUP (actions));
  g_settings_bind_with_mapping (self->settings, "gap-order",
                                self->gap_order_row, "selected",
                                G_SETTINGS_BIND_DEFAULT,
                                gap_order_get_mapping,
                                gap_order_set_mapping,
                                NULL, NULL);
}

static void
ks_preferences_window_constructed (GObject *object)
{
  KsPreferencesWindow *self = (KsPreferencesWindow *)object;

  G_OBJECT_CLASS (ks_preferences_window_parent_class)->constructed (object);

  if (self->settings == NULL && ks_application_get_settings () != NULL)
    self->settings = g_object_ref (ks_application_get_settings ());
  if (self->settings == NULL)
    {
      g_critical ("GSettings schema %s is not installed: there are no preferences to edit", APP_ID);
      return;
    }

  ks_preferences_window_bind (self);
}

static void
ks_preferences_window_dispose (GObject *object)
{
  KsPreferencesWindow *self = (KsPreferencesWindow *)object;

  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_PREFERENCES_WINDOW);

  G_OBJECT_CLASS (ks_preferences_window_parent_class)->dispose (object);
}

static void
ks_preferences_window_finalize (GObject *object)
{
  KsPreferencesWindow *self = (KsPreferencesWindow *)object;

  g_clear_object (&self->settings);

  G_OBJECT_CLASS (ks_preferences_window_parent_class)->finalize (object);
}

static void
ks_preferences_window_get_property (GObject    *object,
                                    guint       prop_id,
                                    GValue     *value,
                                    GParamSpec *pspec)
{
  KsPreferencesWindow *self = KS_PREFERENCES_WINDOW (object);

  switch (prop_id)
    {
    case PROP_SETTINGS:
      g_value_set_object (value, self->settings);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_preferences_window_set_property (GObject      *object,
                                    guint         prop_id,
                                    const GValue *value,
                                    GParamSpec   *pspec)
{
  KsPreferencesWindow *self = KS_PREFERENCES_WINDOW (object);

  switch (prop_id)
    {
    case PROP_SETTINGS:
      self->settings = g_value_dup_object (value);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_preferences_window_class_init (KsPreferencesWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = ks_preferences_window_constructed;
  object_class->dispose = ks_preferences_window_dispose;
  object_class->finalize = ks_preferences_window_finalize;
  object_class->get_property = ks_preferences_window_get_property;
  object_class->set_property = ks_preferences_window_set_property;

  /**
   * KsPreferencesWindow:settings:
   *
   * The settings edited, of schema org.kinescope.Kinescope; the
   * application's (ks_application_get_settings()) when not given.
   */
  properties [PROP_SETTINGS] =
    g_param_spec_object ("settings", NULL, NULL,
                         G_TYPE_SETTINGS,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));

  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class, APP_RESOURCE_PATH "/ks-preferences-window.ui");
  gtk_widget_class_bind_template_child (widget_class, KsPreferencesWindow, gap_threshold_spin);
  gtk_widget_class_bind_template_child (widget_class, KsPreferencesWindow, kernel_wait_spin);
  gtk_widget_class_bind_template_child (widget_class, KsPreferencesWindow, folder_memory_spin);
  gtk_widget_class_bind_template_child (widget_class, KsPreferencesWindow, busy_copies_switch);
  gtk_widget_class_bind_template_child (widget_class, KsPreferencesWindow, include_warmup_switch);
  gtk_widget_class_bind_template_child (widget_class, KsPreferencesWindow, gap_order_row);
}

static void
ks_preferences_window_init (KsPreferencesWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

/**
 * ks_preferences_window_new:
 * @transient_for: (nullable): the window it belongs to
 * @settings: (nullable): the settings to edit
 *
 * Returns: (transfer full): a new #KsPreferencesWindow
 */
GtkWidget *
ks_preferences_window_new (GtkWindow *transient_for,
                           GSettings *settings)
{
  g_return_val_if_fail (!transient_for || GTK_IS_WINDOW (transient_for), NULL);
  g_return_val_if_fail (!settings || G_IS_SETTINGS (settings), NULL);

  return g_object_new (KS_TYPE_PREFERENCES_WINDOW,
                       "transient-for", transient_for,
                       "modal", transient_for != NULL,
                       "settings", settings,
                       NULL);
}

/**
 * ks_preferences_window_get_settings:
 * @self: a #KsPreferencesWindow
 *
 * Returns: (transfer none): the settings edited
 */
GSettings *
ks_preferences_window_get_settings (KsPreferencesWindow *self)
{
  g_return_val_if_fail (KS_IS_PREFERENCES_WINDOW (self), NULL);

  return self->settings;
}
