/* ks-page-slot.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-page-slot"

#include "config.h"

#include "ks-page-slot.h"

struct _KsPageSlot
{
  GtkWidget   parent_instance;

  GType       page_type;
  char       *report;
  KsSession  *session;
  KsSession  *baseline;
  gboolean    busy;
  GtkWidget  *page;        /* NULL until first wanted */
};

G_DEFINE_FINAL_TYPE (KsPageSlot, ks_page_slot, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_PAGE_TYPE,
  PROP_REPORT,
  PROP_SESSION,
  PROP_BASELINE,
  PROP_BUSY,
  PROP_PAGE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

GtkWidget *
ks_page_slot_peek_page (KsPageSlot *self)
{
  g_return_val_if_fail (KS_IS_PAGE_SLOT (self), NULL);

  return self->page;
}

GtkWidget *
ks_page_slot_get_page (KsPageSlot *self)
{
  GObjectClass *klass;

  g_return_val_if_fail (KS_IS_PAGE_SLOT (self), NULL);
  g_return_val_if_fail (g_type_is_a (self->page_type, GTK_TYPE_WIDGET), NULL);

  if (self->page != NULL)
    return self->page;

  /* The report before the session: a KsStatsPage fills for its report. */
  if (self->report != NULL)
    self->page = g_object_new (self->page_type, "report", self->report, NULL);
  else
    self->page = g_object_new (self->page_type, NULL);
  gtk_widget_set_parent (self->page, GTK_WIDGET (self));

  klass = G_OBJECT_GET_CLASS (self->page);
  if (g_object_class_find_property (klass, "busy") != NULL)
    g_object_bind_property (self, "busy", self->page, "busy", G_BINDING_SYNC_CREATE);
  if (g_object_class_find_property (klass, "baseline") != NULL)
    g_object_bind_property (self, "baseline", self->page, "baseline", G_BINDING_SYNC_CREATE);
  g_object_bind_property (self, "session", self->page, "session", G_BINDING_SYNC_CREATE);

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PAGE]);
  return self->page;
}

static void
ks_page_slot_dispose (GObject *object)
{
  KsPageSlot *self = KS_PAGE_SLOT (object);

  g_clear_pointer (&self->page, gtk_widget_unparent);
  g_clear_object (&self->session);
  g_clear_object (&self->baseline);

  G_OBJECT_CLASS (ks_page_slot_parent_class)->dispose (object);
}

static void
ks_page_slot_finalize (GObject *object)
{
  KsPageSlot *self = KS_PAGE_SLOT (object);

  g_free (self->report);

  G_OBJECT_CLASS (ks_page_slot_parent_class)->finalize (object);
}

static void
ks_page_slot_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  KsPageSlot *self = KS_PAGE_SLOT (object);

  switch (prop_id)
    {
    case PROP_PAGE_TYPE:
      g_value_set_gtype (value, self->page_type);
      break;
    case PROP_REPORT:
      g_value_set_string (value, self->report);
      break;
    case PROP_SESSION:
      g_value_set_object (value, self->session);
      break;
    case PROP_BASELINE:
      g_value_set_object (value, self->baseline);
      break;
    case PROP_BUSY:
      g_value_set_boolean (value, self->busy);
      break;
    case PROP_PAGE:
      g_value_set_object (value, self->page);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_page_slot_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  KsPageSlot *self = KS_PAGE_SLOT (object);

  switch (prop_id)
    {
    case PROP_PAGE_TYPE:
      self->page_type = g_value_get_gtype (value);
      break;
    case PROP_REPORT:
      g_free (self->report);
      self->report = g_value_dup_string (value);
      break;
    case PROP_SESSION:
      if (g_set_object (&self->session, g_value_get_object (value)))
        g_object_notify_by_pspec (object, pspec);
      break;
    case PROP_BASELINE:
      if (g_set_object (&self->baseline, g_value_get_object (value)))
        g_object_notify_by_pspec (object, pspec);
      break;
    case PROP_BUSY:
      if (self->busy != g_value_get_boolean (value))
        {
          self->busy = g_value_get_boolean (value);
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_page_slot_class_init (KsPageSlotClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_page_slot_dispose;
  object_class->finalize = ks_page_slot_finalize;
  object_class->get_property = ks_page_slot_get_property;
  object_class->set_property = ks_page_slot_set_property;

  properties[PROP_PAGE_TYPE] =
    g_param_spec_gtype ("page-type", NULL, NULL, GTK_TYPE_WIDGET,
                        G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_REPORT] =
    g_param_spec_string ("report", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SESSION] =
    g_param_spec_object ("session", NULL, NULL, KS_TYPE_SESSION,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_BASELINE] =
    g_param_spec_object ("baseline", NULL, NULL, KS_TYPE_SESSION,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_PAGE] =
    g_param_spec_object ("page", NULL, NULL, GTK_TYPE_WIDGET,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
ks_page_slot_init (KsPageSlot *self)
{
  self->page_type = G_TYPE_INVALID;
}
