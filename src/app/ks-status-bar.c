/* ks-status-bar.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-status-bar"

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>

#include "ks-format.h"
#include "ks-status-bar.h"

struct _KsStatusBar
{
  GtkBox      parent_instance;

  GtkLabel   *status_label;
  GtkLabel   *status_detail;

  KsSession  *session;
  char       *message;
  guint64     n_events;      /* slices of the trace, counted once */
  guint64     n_gpu_events;
};

G_DEFINE_FINAL_TYPE (KsStatusBar, ks_status_bar, GTK_TYPE_BOX)

enum {
  PROP_0,
  PROP_SESSION,
  PROP_MESSAGE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* The selected slice and the range, or the message in their place. */
static void
update_detail (KsStatusBar *self)
{
  KsTrace *trace = self->session != NULL ? ks_session_get_trace (self->session) : NULL;
  g_autoptr(GString) detail = g_string_new (NULL);
  guint32 track, slice;
  gint64 start, end;

  if (self->message != NULL)
    {
      gtk_label_set_label (self->status_detail, self->message);
      return;
    }
  if (trace != NULL && ks_session_get_selected_slice (self->session, &track, &slice))
    {
      g_autofree char *d = ks_time_format_duration (trace->tracks[track].end[slice] - trace->tracks[track].start[slice]);
      g_autofree char *name = ks_format_dup_cut_text (ks_trace_string (trace, trace->tracks[track].name_id[slice]),
                                                      KS_TEXT_MAX_CHARS, TRUE);

      g_string_append_printf (detail, _("Selected: %s (%s)"), name, d);
    }
  if (trace != NULL && ks_session_get_range (self->session, &start, &end))
    {
      g_autofree char *d = ks_time_format_duration (end - start);

      if (detail->len)
        g_string_append (detail, " · ");
      g_string_append_printf (detail, _("Range: %s"), d);
    }
  gtk_label_set_label (self->status_detail, detail->str);
}

/* What the trace holds, counted once per trace. */
static void
trace_changed_cb (KsStatusBar *self)
{
  KsTrace *trace = self->session != NULL ? ks_session_get_trace (self->session) : NULL;
  g_autofree char *dur = NULL;
  g_autofree char *text = NULL;
  const char *warnings;
  KsTraceCounts counts;

  /* (a job's summaries leave the session without a trace) */
  if (trace == NULL)
    {
      gtk_label_set_label (self->status_label, "");
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->status_label), NULL);
      update_detail (self);
      return;
    }

  ks_trace_get_counts (trace, &counts);
  self->n_events = self->n_gpu_events = 0;
  for (guint k = 0; k < KS_N_SLICE_KINDS; k++)
    {
      self->n_events += counts.by_kind[k];
      if (ks_slice_kind_is_gpu (k))
        self->n_gpu_events += counts.by_kind[k];
    }

  dur = ks_time_format_duration (trace->duration_ns);
  text = g_strdup_printf (_("%" PRIu64 " events (%" PRIu64 " on the GPU) · %u threads · %s"),
                          self->n_events, self->n_gpu_events, trace->n_threads, dur);
  /* a memory snapshot holds allocations and frees, not slices */
  if (trace->n_memory_events > 0)
    {
      g_autofree char *with = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s · %u memory event",
                                                            "%s · %u memory events", trace->n_memory_events),
                                               text, trace->n_memory_events);

      g_free (text);
      text = g_steal_pointer (&with);
    }

  warnings = ks_trace_get_metadata (trace, "warnings");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->status_label), warnings != NULL && *warnings ? warnings : NULL);
  if (warnings != NULL && *warnings)
    {
      g_auto(GStrv) lines = g_strsplit (warnings, "\n", -1);
      g_autofree char *full = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s · %u load warning",
                                                            "%s · %u load warnings", g_strv_length (lines)),
                                               text, g_strv_length (lines));

      g_free (text);
      text = g_steal_pointer (&full);
    }
  gtk_label_set_label (self->status_label, text);
  update_detail (self);
}

KsSession *
ks_status_bar_get_session (KsStatusBar *self)
{
  g_return_val_if_fail (KS_IS_STATUS_BAR (self), NULL);

  return self->session;
}

void
ks_status_bar_set_session (KsStatusBar *self,
                           KsSession   *session)
{
  g_return_if_fail (KS_IS_STATUS_BAR (self));
  g_return_if_fail (!session || KS_IS_SESSION (session));

  if (self->session == session)
    return;
  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_set_object (&self->session, session);
  if (session != NULL)
    {
      g_signal_connect_object (session, "notify::trace", G_CALLBACK (trace_changed_cb), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (session, "selection-changed", G_CALLBACK (update_detail), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (session, "range-changed", G_CALLBACK (update_detail), self, G_CONNECT_SWAPPED);
    }
  trace_changed_cb (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION]);
}

const char *
ks_status_bar_get_message (KsStatusBar *self)
{
  g_return_val_if_fail (KS_IS_STATUS_BAR (self), NULL);

  return self->message;
}

void
ks_status_bar_set_message (KsStatusBar *self,
                           const char  *message)
{
  g_return_if_fail (KS_IS_STATUS_BAR (self));

  if (g_strcmp0 (self->message, message) == 0)
    return;
  g_free (self->message);
  self->message = g_strdup (message);
  update_detail (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MESSAGE]);
}

static void
ks_status_bar_dispose (GObject *object)
{
  KsStatusBar *self = KS_STATUS_BAR (object);

  /* the template's bindings first: they watch the session */
  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_STATUS_BAR);
  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_clear_object (&self->session);

  G_OBJECT_CLASS (ks_status_bar_parent_class)->dispose (object);
}

static void
ks_status_bar_finalize (GObject *object)
{
  KsStatusBar *self = KS_STATUS_BAR (object);

  g_free (self->message);

  G_OBJECT_CLASS (ks_status_bar_parent_class)->finalize (object);
}

static void
ks_status_bar_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  KsStatusBar *self = KS_STATUS_BAR (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      g_value_set_object (value, self->session);
      break;
    case PROP_MESSAGE:
      g_value_set_string (value, self->message);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_status_bar_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  KsStatusBar *self = KS_STATUS_BAR (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      ks_status_bar_set_session (self, g_value_get_object (value));
      break;
    case PROP_MESSAGE:
      ks_status_bar_set_message (self, g_value_get_string (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_status_bar_class_init (KsStatusBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_status_bar_dispose;
  object_class->finalize = ks_status_bar_finalize;
  object_class->get_property = ks_status_bar_get_property;
  object_class->set_property = ks_status_bar_set_property;

  properties[PROP_SESSION] =
    g_param_spec_object ("session", NULL, NULL, KS_TYPE_SESSION,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_MESSAGE] =
    g_param_spec_string ("message", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/kinescope/Kinescope/ks-status-bar.ui");
  gtk_widget_class_bind_template_child (widget_class, KsStatusBar, status_label);
  gtk_widget_class_bind_template_child (widget_class, KsStatusBar, status_detail);
}

static void
ks_status_bar_init (KsStatusBar *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
ks_status_bar_new (void)
{
  return g_object_new (KS_TYPE_STATUS_BAR, NULL);
}
