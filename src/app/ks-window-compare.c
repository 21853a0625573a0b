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

typedef struct
{
  KsWindow     *self;
  GFile        *file;
  GCancellable *cancellable;
  KsTrace      *traces[KS_COMPARE_N_SIDES];
  KsAnalysis   *analyses[KS_COMPARE_N_SIDES];
  guint         pending;
  GError       *error;
} Pending;

static void
pending_free (Pending *p)
{
  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    {
      g_clear_object (&p->traces[s]);
      g_clear_object (&p->analyses[s]);
    }
  g_clear_error (&p->error);
  g_object_unref (p->cancellable);
  g_object_unref (p->file);
  g_object_unref (p->self);
  g_free (p);
}

static char *
file_name (GFile *file)
{
  const char *path = file != NULL ? g_file_peek_path (file) : NULL;

  if (path != NULL)
    return g_strdup (path);
  return file != NULL ? g_file_get_uri (file) : g_strdup ("");
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

static void
show_compare (KsWindow  *self,
              KsCompare *compare)
{
  _ks_window_compare_clear (self);
  self->compare_view = ks_compare_view_new (compare);
  gtk_stack_add_named (self->main_stack, self->compare_view, "compare");
  gtk_stack_set_visible_child (self->main_stack, self->compare_view);
  _ks_window_actions_update (self);
}

static void
finish (Pending *p)
{
  KsWindow *self = p->self;

  if (--p->pending > 0)
    return;
  if (self->compare_cancellable == p->cancellable)
    {
      g_clear_object (&self->compare_cancellable);
      ks_status_bar_set_message (self->status_bar, NULL);
    }
  /* A newer comparison, another trace or the window's end took over. */
  if (!g_cancellable_is_cancelled (p->cancellable))
    {
      if (p->error != NULL)
        show_error (self, p->file, p->error->message);
      else
        {
          g_autofree char *base = file_name (self->file);
          g_autofree char *other = file_name (p->file);
          g_autoptr(KsCompare) compare = ks_compare_new (p->traces[0], p->analyses[0], base,
                                                         p->traces[1], p->analyses[1], other);

          show_compare (self, compare);
        }
    }
  pending_free (p);
}

static void
analysis_done (Pending      *p,
               guint         side,
               GAsyncResult *result)
{
  g_autoptr(GError) error = NULL;

  p->analyses[side] = ks_analysis_compute_finish (result, &error);
  if (p->analyses[side] == NULL && p->error == NULL)
    p->error = g_steal_pointer (&error);
  finish (p);
}

static void
base_analysis_cb (GObject      *source,
                  GAsyncResult *result,
                  gpointer      user_data)
{
  analysis_done (user_data, KS_COMPARE_BASE, result);
}

static void
new_analysis_cb (GObject      *source,
                 GAsyncResult *result,
                 gpointer      user_data)
{
  analysis_done (user_data, KS_COMPARE_NEW, result);
}

/* Both analyses with the window's options: the baseline's is usually
 * the one the window already has (they are cached on the trace). */
static void
load_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Pending *p = user_data;
  KsAnalysisOptions options;

  p->traces[KS_COMPARE_NEW] = ks_trace_load_finish (result, &p->error);
  if (p->traces[KS_COMPARE_NEW] == NULL || p->self->session == NULL)
    {
      p->pending = 1;
      finish (p);
      return;
    }
  p->traces[KS_COMPARE_BASE] = g_object_ref (ks_session_get_trace (p->self->session));
  _ks_window_analysis_get_options (p->self, &options);
  p->pending = KS_COMPARE_N_SIDES;
  ks_analysis_compute_async (p->traces[KS_COMPARE_BASE], &options, NULL, p->cancellable, base_analysis_cb, p);
  ks_analysis_compute_async (p->traces[KS_COMPARE_NEW], &options, NULL, p->cancellable, new_analysis_cb, p);
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

  if (self->session == NULL)
    return;
  /* Loading a large trace takes seconds: say what is going on. */
  name = g_file_get_basename (file);
  status = g_strdup_printf (_("Comparing with “%s”…"), name);
  ks_status_bar_set_message (self->status_bar, status);
  if (self->compare_cancellable != NULL)
    g_cancellable_cancel (self->compare_cancellable);
  g_clear_object (&self->compare_cancellable);
  self->compare_cancellable = g_cancellable_new ();

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

  return self->compare_view;
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
  if (self->compare_view == NULL)
    return;
  if (gtk_stack_get_visible_child (self->main_stack) == self->compare_view)
    gtk_stack_set_visible_child_name (self->main_stack, self->session != NULL ? "trace" : "empty");
  gtk_stack_remove (self->main_stack, self->compare_view);
  self->compare_view = NULL;
}

void
_ks_window_compare_cancel (KsWindow *self)
{
  if (self->compare_cancellable == NULL)
    return;
  g_cancellable_cancel (self->compare_cancellable);
  g_clear_object (&self->compare_cancellable);
  ks_status_bar_set_message (self->status_bar, NULL);
}

static gboolean
compare_shown (KsWindow *self)
{
  return self->compare_view != NULL && gtk_stack_get_visible_child (self->main_stack) == self->compare_view;
}

GtkWidget *
_ks_window_get_active_timeline (KsWindow *self)
{
  if (compare_shown (self))
    return GTK_WIDGET (ks_compare_view_get_timeline (KS_COMPARE_VIEW (self->compare_view), KS_COMPARE_BASE));
  return GTK_WIDGET (self->timeline);
}

KsSession *
_ks_window_get_active_session (KsWindow *self)
{
  if (compare_shown (self))
    return ks_compare_view_get_session (KS_COMPARE_VIEW (self->compare_view), KS_COMPARE_BASE);
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
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.compare", self->session != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.compare-file", self->session != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.close-compare", self->compare_view != NULL);
}

void
_ks_window_compare_class_init (KsWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_install_action (widget_class, "win.compare", NULL, compare_action);
  gtk_widget_class_install_action (widget_class, "win.compare-file", "s", compare_file_action);
  gtk_widget_class_install_action (widget_class, "win.close-compare", NULL, close_compare_action);
}
