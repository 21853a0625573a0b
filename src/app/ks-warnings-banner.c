/* ks-warnings-banner.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-warnings-banner"

#include "config.h"

#include <glib/gi18n.h>

#include "ks-warnings-banner.h"

struct _KsWarningsBanner
{
  GtkWidget    parent_instance;

  GtkRevealer *revealer;
  GtkWidget   *box;
  GtkLabel    *label;
  GtkLabel    *more;

  KsSession   *session;
  gboolean     closed;      /* the close button, for this trace */
};

G_DEFINE_FINAL_TYPE (KsWarningsBanner, ks_warnings_banner, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_SESSION,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* The trace's load warnings, then those of @analysis (may be NULL). */
static void
update (KsWarningsBanner *self,
        KsAnalysis       *analysis)
{
  KsTrace *trace = self->session != NULL ? ks_session_get_trace (self->session) : NULL;
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *all = NULL;

  if (trace != NULL)
    {
      const char *warnings = ks_trace_get_metadata (trace, "warnings");

      if (warnings != NULL && *warnings)
        {
          g_auto(GStrv) split = g_strsplit (warnings, "\n", -1);

          for (guint i = 0; split[i] != NULL; i++)
            if (*split[i])
              g_ptr_array_add (lines, g_strdup (split[i]));
        }
      for (const char * const *w = analysis ? ks_analysis_get_warnings (analysis) : NULL; w && *w; w++)
        g_ptr_array_add (lines, g_strdup (*w));
    }

  if (lines->len == 0)
    {
      gtk_revealer_set_reveal_child (self->revealer, FALSE);
      gtk_label_set_text (self->label, "");
      gtk_label_set_text (self->more, "");
      gtk_widget_set_tooltip_text (self->box, NULL);
      return;
    }

  gtk_label_set_text (self->label, g_ptr_array_index (lines, 0));
  if (lines->len > 1)
    {
      g_autofree char *more = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "and %u more warning",
                                                            "and %u more warnings", lines->len - 1),
                                               lines->len - 1);

      gtk_label_set_text (self->more, more);
    }
  else
    gtk_label_set_text (self->more, "");
  g_ptr_array_add (lines, NULL);
  all = g_strjoinv ("\n", (char **)lines->pdata);
  gtk_widget_set_tooltip_text (self->box, all);
  gtk_revealer_set_reveal_child (self->revealer, !self->closed);
}

/* A new trace shows its own warnings, even after the last ones were closed. */
static void
trace_changed_cb (KsWarningsBanner *self)
{
  self->closed = FALSE;
  update (self, NULL);
}

static void
analysis_changed_cb (KsWarningsBanner *self)
{
  KsAnalysis *analysis = ks_session_get_analysis (self->session);

  /* Kept while the next analysis is computed, as before it came. */
  if (ks_session_get_trace (self->session) == NULL || analysis == NULL)
    return;
  update (self, analysis);
}

static void
close_cb (KsWarningsBanner *self)
{
  self->closed = TRUE;
  gtk_revealer_set_reveal_child (self->revealer, FALSE);
}

KsSession *
ks_warnings_banner_get_session (KsWarningsBanner *self)
{
  g_return_val_if_fail (KS_IS_WARNINGS_BANNER (self), NULL);

  return self->session;
}

void
ks_warnings_banner_set_session (KsWarningsBanner *self,
                                KsSession        *session)
{
  g_return_if_fail (KS_IS_WARNINGS_BANNER (self));
  g_return_if_fail (!session || KS_IS_SESSION (session));

  if (self->session == session)
    return;
  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_set_object (&self->session, session);
  if (session != NULL)
    {
      g_signal_connect_object (session, "notify::trace", G_CALLBACK (trace_changed_cb), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (session, "notify::analysis", G_CALLBACK (analysis_changed_cb), self,
                               G_CONNECT_SWAPPED);
    }
  self->closed = FALSE;
  update (self, session != NULL ? ks_session_get_analysis (session) : NULL);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION]);
}

static void
ks_warnings_banner_dispose (GObject *object)
{
  KsWarningsBanner *self = KS_WARNINGS_BANNER (object);

  /* the template's bindings first: they watch the session */
  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_WARNINGS_BANNER);
  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_clear_object (&self->session);

  G_OBJECT_CLASS (ks_warnings_banner_parent_class)->dispose (object);
}

static void
ks_warnings_banner_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  KsWarningsBanner *self = KS_WARNINGS_BANNER (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      g_value_set_object (value, self->session);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_warnings_banner_set_property (GObject      *object,
                                 guint         prop_id,
                                 const GValue *value,
                                 GParamSpec   *pspec)
{
  KsWarningsBanner *self = KS_WARNINGS_BANNER (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      ks_warnings_banner_set_session (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_warnings_banner_class_init (KsWarningsBannerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_warnings_banner_dispose;
  object_class->get_property = ks_warnings_banner_get_property;
  object_class->set_property = ks_warnings_banner_set_property;

  properties[PROP_SESSION] =
    g_param_spec_object ("session", NULL, NULL, KS_TYPE_SESSION,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/kinescope/Kinescope/ks-warnings-banner.ui");
  gtk_widget_class_bind_template_child (widget_class, KsWarningsBanner, revealer);
  gtk_widget_class_bind_template_child (widget_class, KsWarningsBanner, box);
  gtk_widget_class_bind_template_child (widget_class, KsWarningsBanner, label);
  gtk_widget_class_bind_template_child (widget_class, KsWarningsBanner, more);
  gtk_widget_class_bind_template_callback (widget_class, close_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
ks_warnings_banner_init (KsWarningsBanner *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
ks_warnings_banner_new (void)
{
  return g_object_new (KS_TYPE_WARNINGS_BANNER, NULL);
}
