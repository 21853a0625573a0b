/* ks-window-compare.c: "Compare With…", the window's trace as the baseline
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-window-compare"

#include "config.h"

#include <glib/gi18n.h>

#include "ks-compare-view.h"
#include "ks-trace-loader.h"
#include "ks-application.h"
#include "ks-window-private.h"

/* The new run's trace is loaded here; its session analyses it, and the
 * Compare view (ks-window.ui) follows that session and the window's. */

/* The Compare view, or NULL before the first comparison built it. */
static KsCompareView *
peek_view (KsWindow *self)
{
  GtkWidget *view = self->compare_slot != NULL ? ks_page_slot_peek_page (self->compare_slot) : NULL;

  return view != NULL ? KS_COMPARE_VIEW (view) : NULL;
}

typedef struct
{
  KsWindow     *self;
  GFile        *file;
  GCancellable *cancellable;
} Pending;

static void
pending_free (Pending *p)
{
  g_object_unref (p->cancellable);
  g_object_unref (p->file);
  g_object_unref (p->self);
  g_free (p);
}

static void
show_error (KsWindow   *self,
            GFile      *file,
            const char *message)
{
  g_autofree char *name = g_file_get_basename (file);
  g_autofree char *heading = g_strdup_printf (_("Could Not Compare With “%s”"), name);

  _ks_window_show_error (self, heading, message);
}

/* The comparison under way is over: shown, or failed. */
static void
end_comparing (KsWindow *self)
{
  g_clear_object (&self->compare_cancellable);
  ks_status_bar_set_message (self->status_bar, NULL);
}

static void
set_compare_session (KsWindow  *self,
                     KsSession *session)
{
  /* the first comparison builds the view, which then binds it */
  if (session != NULL)
    ks_page_slot_get_page (self->compare_slot);
  if (g_set_object (&self->compare_session, session))
    g_object_notify (G_OBJECT (self), "compare-session");
}

/* The view has both runs analysed: the comparison asked for, or the
 * same runs again with other options. */
static void
compare_changed_cb (KsWindow *self)
{
  if (ks_compare_view_get_compare (peek_view (self)) == NULL)
    return;
  if (self->compare_cancellable != NULL)
    end_comparing (self);
  gtk_stack_set_visible_child (self->main_stack, GTK_WIDGET (self->compare_slot));
  _ks_window_actions_update (self);
}

static void
compare_view_built_cb (KsWindow *self)
{
  g_signal_connect_object (peek_view (self), "notify::compare", G_CALLBACK (compare_changed_cb), self,
                           G_CONNECT_SWAPPED);
}

/* The new run in a session of its own, analysed with the options of
 * the window's (the same settings: both follow their changes). */
static void
load_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Pending *p = user_data;
  KsWindow *self = p->self;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = ks_trace_load_finish (result, &error);
  g_autoptr(KsSession) session = NULL;

  /* A newer comparison, another trace or the window's end took over. */
  if (g_cancellable_is_cancelled (p->cancellable))
    {
      pending_free (p);
      return;
    }
  if (trace == NULL || self->session == NULL || ks_session_get_trace (self->session) == NULL)
    {
      if (self->compare_cancellable == p->cancellable)
        end_comparing (self);
      if (error != NULL)
        show_error (self, p->file, error->message);
      pending_free (p);
      return;
    }

  session = ks_session_new_with_settings (NULL, ks_session_get_settings (self->session));
  ks_session_set_analysis_options (session, ks_session_get_analysis_options (self->session));
  ks_session_set_file (session, p->file);
  ks_session_set_trace (session, trace);
  set_compare_session (self, session);
  pending_free (p);
}

void
ks_window_compare_with (KsWindow *self,
                        GFile    *file)
{
  Pending *p;
  g_autofree char *name = NULL;
  g_autofree char *status = NULL;

  g_return_if_fail (KS_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  if (self->session == NULL || ks_session_get_trace (self->session) == NULL)
    return;
  /* Loading a large trace takes seconds: say what is going on. */
  name = g_file_get_basename (file);
  status = g_strdup_printf (_("Comparing with “%s”…"), name);
  if (self->compare_cancellable != NULL)
    g_cancellable_cancel (self->compare_cancellable);
  g_clear_object (&self->compare_cancellable);
  self->compare_cancellable = g_cancellable_new ();
  ks_status_bar_set_message (self->status_bar, status);

  p = g_new0 (Pending, 1);
  p->self = g_object_ref (self);
  p->file = g_object_ref (file);
  p->cancellable = g_object_ref (self->compare_cancellable);
  ks_trace_load_async (file, NULL, p->cancellable, load_cb, p);
}

GtkWidget *
ks_window_get_compare_view (KsWindow *self)
{
  g_return_val_if_fail (KS_IS_WINDOW (self), NULL);

  /* the view is the window's; it shows something once both are analysed */
  if (peek_view (self) == NULL || ks_compare_view_get_compare (peek_view (self)) == NULL)
    return NULL;
  return GTK_WIDGET (peek_view (self));
}

gboolean
ks_window_get_comparing (KsWindow *self)
{
  g_return_val_if_fail (KS_IS_WINDOW (self), FALSE);

  return self->compare_cancellable != NULL;
}

void
_ks_window_compare_clear (KsWindow *self)
{
  if (self->compare_session == NULL)
    return;
  if (gtk_stack_get_visible_child (self->main_stack) == GTK_WIDGET (self->compare_slot))
    gtk_stack_set_visible_child_name (self->main_stack, self->session != NULL ? "trace" : "empty");
  /* the view lets go of its comparison */
  set_compare_session (self, NULL);
}

void
_ks_window_compare_cancel (KsWindow *self)
{
  if (self->compare_cancellable == NULL)
    return;
  g_cancellable_cancel (self->compare_cancellable);
  end_comparing (self);
}

static gboolean
compare_shown (KsWindow *self)
{
  return ks_window_get_compare_view (self) != NULL &&
         gtk_stack_get_visible_child (self->main_stack) == GTK_WIDGET (self->compare_slot);
}

GtkWidget *
_ks_window_get_active_timeline (KsWindow *self)
{
  if (compare_shown (self))
    return GTK_WIDGET (ks_compare_view_get_timeline (peek_view (self), KS_COMPARE_BASE));
  return GTK_WIDGET (self->timeline);
}

KsSession *
_ks_window_get_active_session (KsWindow *self)
{
  if (compare_shown (self))
    return ks_compare_view_get_session (peek_view (self), KS_COMPARE_BASE);
  return self->session;
}

static void
compare_response_cb (KsWindow             *self,
                     int                   response,
                     GtkFileChooserNative *native)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));

      if (file != NULL)
        ks_application_open_files (NULL, GTK_WINDOW (self), &file, 1, KS_OPEN_COMPARE);
    }
  gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (native));
  g_object_unref (native);
}

static void
compare_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *param)
{
  KsWindow *self = KS_WINDOW (widget);
  GtkFileChooserNative *native;

  native = gtk_file_chooser_native_new (_("Compare With"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_OPEN, _("_Compare"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  g_signal_connect_object (native, "response", G_CALLBACK (compare_response_cb), self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

/* A URI, for the Ctrl drop and scripts. */
static void
compare_file_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *param)
{
  g_autoptr(GFile) file = g_file_new_for_uri (g_variant_get_string (param, NULL));

  ks_application_open_files (NULL, GTK_WINDOW (widget), &file, 1, KS_OPEN_COMPARE);
}

static void
close_compare_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  KsWindow *self = KS_WINDOW (widget);

  _ks_window_compare_clear (self);
  _ks_window_actions_update (self);
}

void
_ks_window_compare_update_actions (KsWindow *self)
{
  /* a job's summaries are no baseline: a trace is */
  gboolean has_trace = self->session != NULL && ks_session_get_trace (self->session) != NULL;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.compare", has_trace);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.compare-file", has_trace);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.close-compare", ks_window_get_compare_view (self) != NULL);
}

void
_ks_window_compare_class_init (KsWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_install_action (widget_class, "win.compare", NULL, compare_action);
  gtk_widget_class_install_action (widget_class, "win.compare-file", "s", compare_file_action);
  gtk_widget_class_install_action (widget_class, "win.close-compare", NULL, close_compare_action);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, compare_slot);
  gtk_widget_class_bind_template_callback (widget_class, compare_view_built_cb);
}
