/* ks-window-actions.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-window-actions"

#include "config.h"

#include <glib/gi18n.h>

#include "ks-application.h"
#include "ks-gpu-monitor.h"
#include "ks-record-dialog.h"
#include "ks-recording-view.h"
#include "ks-trace-loader.h"
#include "ks-window-private.h"

static void
open_response_cb (KsWindow             *self,
                  int                   response,
                  GtkFileChooserNative *native)
{
  g_autoptr(GListModel) files = NULL;
  g_autoptr(GPtrArray) list = g_ptr_array_new_with_free_func (g_object_unref);

  if (response != GTK_RESPONSE_ACCEPT)
    goto out;

  files = gtk_file_chooser_get_files (GTK_FILE_CHOOSER (native));
  for (guint i = 0; i < g_list_model_get_n_items (files); i++)
    g_ptr_array_add (list, g_list_model_get_item (files, i));
  ks_application_open_files (NULL, GTK_WINDOW (self), (GFile **) list->pdata, list->len, KS_OPEN_DEFAULT);

out:
  gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (native));
  g_object_unref (native);
}

static void
open_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  KsWindow *self = KS_WINDOW (widget);
  GtkFileChooserNative *native;
  g_autoptr(GtkFileFilter) traces = gtk_file_filter_new ();
  g_autoptr(GtkFileFilter) all = gtk_file_filter_new ();

  native = gtk_file_chooser_native_new (_("Open Trace"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_OPEN, _("_Open"), _("_Cancel"));
  gtk_file_chooser_set_select_multiple (GTK_FILE_CHOOSER (native), TRUE);
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);

  gtk_file_filter_set_name (traces, _("Traces"));
  gtk_file_filter_add_mime_type (traces, "application/x-kinescope-trace");
  gtk_file_filter_add_suffix (traces, "kscope");
  gtk_file_filter_add_pattern (traces, "*.json");
  gtk_file_filter_add_pattern (traces, "*.json.gz");
  gtk_file_filter_add_suffix (traces, "sqlite");
  gtk_file_filter_add_suffix (traces, "csv");   /* nvidia-smi logs */
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), traces);

  gtk_file_filter_set_name (all, _("All Files"));
  gtk_file_filter_add_pattern (all, "*");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), all);

  g_signal_connect_object (native, "response", G_CALLBACK (open_response_cb), self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

/* A tensorboard_trace_handler log folder: one trace per rank or worker
 * file, opened together. */
static void
open_folder_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  KsWindow *self = KS_WINDOW (widget);
  GtkFileChooserNative *native;

  native = gtk_file_chooser_native_new (_("Open Trace Folder"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER, _("_Open"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  g_signal_connect_object (native, "response", G_CALLBACK (open_response_cb), self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

static void
open_demo_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *param)
{
  KsWindow *self = KS_WINDOW (widget);
  g_autoptr(GFile) demo = ks_window_find_demo_trace ();

  if (demo == NULL)
    {
      GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), _("Demo Trace Not Found"),
                                                  _("The demo trace is not installed."));

      adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
      gtk_window_present (GTK_WINDOW (dialog));
      return;
    }

  ks_application_open_files (NULL, GTK_WINDOW (self), &demo, 1, KS_OPEN_DEFAULT);
}

static void
cancel_load_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *param)
{
  KsWindow *self = KS_WINDOW (widget);

  ks_document_loader_cancel (self->loader);
}

static void
find_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  KsWindow *self = KS_WINDOW (widget);

  ks_search_bar_start (self->search_bar);
}

static void
find_next_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *param)
{
  _ks_window_search_step (KS_WINDOW (widget), 1);
}

static void
find_previous_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  _ks_window_search_step (KS_WINDOW (widget), -1);
}

static void
zoom_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  KsSession *session = _ks_window_get_active_session (KS_WINDOW (widget));
  double t0, t1;

  if (session == NULL)
    return;
  ks_session_get_visible (session, &t0, &t1);
  ks_session_push_history (session);
  ks_session_zoom (session, g_variant_get_int32 (param) > 0 ? 0.5 : 2.0, (t0 + t1) / 2);
}

static void
fit_all_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *param)
{
  KsSession *session = _ks_window_get_active_session (KS_WINDOW (widget));

  if (session != NULL)
    ks_session_fit_all (session);
}

static void
fit_selection_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  KsWindow *self = KS_WINDOW (widget);

  gtk_widget_activate_action (_ks_window_get_active_timeline (self), "timeline.fit-selection", NULL);
}

/* The timeline's keys (W/S zoom at the pointer, A/D pan, F fit, Esc)
 * work wherever the focus is in the window: they are window shortcuts,
 * which run as the key event bubbles up, so a focused text field that
 * takes the key (search, filters) keeps it. */
static void
timeline_zoom_action (GtkWidget  *widget,
                      const char *action_name,
                      GVariant   *param)
{
  KsWindow *self = KS_WINDOW (widget);

  gtk_widget_activate_action (_ks_window_get_active_timeline (self),
                              g_variant_get_int32 (param) > 0 ? "timeline.zoom-in" : "timeline.zoom-out",
                              NULL);
}

static void
timeline_pan_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *param)
{
  KsWindow *self = KS_WINDOW (widget);

  gtk_widget_activate_action (_ks_window_get_active_timeline (self), "timeline.pan", "i", g_variant_get_int32 (param));
}

static void
clear_selection_action (GtkWidget  *widget,
                        const char *action_name,
                        GVariant   *param)
{
  KsWindow *self = KS_WINDOW (widget);

  gtk_widget_activate_action (_ks_window_get_active_timeline (self), "timeline.clear-selection", NULL);
}

static void
back_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *param)
{
  KsWindow *self = KS_WINDOW (widget);

  if (self->session != NULL)
    ks_session_go_back (self->session);
  _ks_window_actions_update (self);
}

static void
forward_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *param)
{
  KsWindow *self = KS_WINDOW (widget);

  if (self->session != NULL)
    ks_session_go_forward (self->session);
  _ks_window_actions_update (self);
}

static void
close_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *param)
{
  gtk_window_close (GTK_WINDOW (widget));
}

/* The trace shown again, with the memory snapshot of its run on its
 * time axis. */
static void
add_snapshot (KsWindow *self,
              GFile    *snapshot)
{
  g_autoptr(GFile) file = NULL;

  if (ks_window_get_file (self) == NULL)
    return;
  file = g_object_ref (ks_window_get_file (self));
  ks_window_open_with_snapshot (self, file, snapshot);
}

static void
add_snapshot_response_cb (KsWindow             *self,
                          int                   response,
                          GtkFileChooserNative *native)
{
  if (response == GTK_RESPONSE_ACCEPT)
    {
      g_autoptr(GFile) snapshot = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (native));

      add_snapshot (self, snapshot);
    }
  gtk_native_dialog_destroy (GTK_NATIVE_DIALOG (native));
  g_object_unref (native);
}

static void
add_snapshot_action (GtkWidget  *widget,
                     const char *action_name,
                     GVariant   *param)
{
  KsWindow *self = KS_WINDOW (widget);
  GtkFileChooserNative *native;
  g_autoptr(GtkFileFilter) snapshots = gtk_file_filter_new ();

  native = gtk_file_chooser_native_new (_("Add Memory Snapshot"), GTK_WINDOW (self),
                                        GTK_FILE_CHOOSER_ACTION_OPEN, _("_Add"), _("_Cancel"));
  gtk_native_dialog_set_modal (GTK_NATIVE_DIALOG (native), TRUE);
  gtk_file_filter_set_name (snapshots, _("PyTorch memory snapshots"));
  gtk_file_filter_add_pattern (snapshots, "*.pickle");
  gtk_file_filter_add_pattern (snapshots, "*.pkl");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (native), snapshots);
  g_signal_connect_object (native, "response", G_CALLBACK (add_snapshot_response_cb), self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (native));
}

/* A URI, for scripts. */
static void
add_snapshot_file_action (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *param)
{
  g_autoptr(GFile) snapshot = g_file_new_for_uri (g_variant_get_string (param, NULL));

  add_snapshot (KS_WINDOW (widget), snapshot);
}

void
_ks_window_actions_update (KsWindow *self)
{
  /* (a job's summaries leave the session without a trace) */
  gboolean has_trace = self->session != NULL && ks_session_get_trace (self->session) != NULL;
  KsSearchResult *search = self->session != NULL ? ks_session_get_search (self->session) : NULL;
  gboolean has_matches = search != NULL && ks_search_result_get_n_matches (search) > 0;

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.cancel-load", ks_window_get_loading (self));
  _ks_window_compare_update_actions (self);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.find", has_trace);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.add-memory-snapshot", has_trace && ks_window_get_file (self) != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.add-memory-snapshot-file", has_trace && ks_window_get_file (self) != NULL);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.find-next", has_matches);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.find-previous", has_matches);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.zoom", has_trace);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.fit-all", has_trace);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.fit-selection", has_trace);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.timeline-zoom", has_trace);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.timeline-pan", has_trace);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.clear-selection", has_trace);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.back",
                                 has_trace && ks_session_can_go_back (self->session));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "win.forward",
                                 has_trace && ks_session_can_go_forward (self->session));
}

static void
record_finished_cb (KsRecordingView *view,
                    const char      *path,
                    int              status,
                    const char      *message,
                    KsWindow        *self)
{
  g_autoptr(GFile) file = NULL;

  /* Without a trace the view stays open and shows the recorder's message. */
  if (path == NULL)
    return;

  file = g_file_new_for_path (path);
  ks_application_open_files (NULL, GTK_WINDOW (self), &file, 1, KS_OPEN_DEFAULT);
  gtk_window_close (GTK_WINDOW (view));
}

static void
record_start_cb (KsRecordDialog *dialog,
                 char          **arguments,
                 const char     *directory,
                 char          **environment,
                 KsWindow       *self)
{
  KsRecordingView *view = ks_recording_view_new (GTK_WINDOW (self));
  g_autoptr(GError) error = NULL;

  g_signal_connect_object (view, "finished", G_CALLBACK (record_finished_cb), self, 0);
  if (!ks_recording_view_start (view, (const char * const *) arguments, directory,
                                (const char * const *) environment, &error))
    {
      GtkWidget *alert = adw_message_dialog_new (GTK_WINDOW (self), _("Could Not Start Recording"),
                                                 error->message);

      adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (alert), "close", _("_Close"));
      gtk_window_present (GTK_WINDOW (alert));
      gtk_window_destroy (GTK_WINDOW (view));
      return;
    }
  gtk_window_present (GTK_WINDOW (view));
}

static void
record_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  KsWindow *self = KS_WINDOW (widget);
  KsRecordDialog *dialog = ks_record_dialog_new (GTK_WINDOW (self));

  g_signal_connect_object (dialog, "start", G_CALLBACK (record_start_cb), self, 0);
  gtk_window_present (GTK_WINDOW (dialog));
}

static void
gpu_monitor_action (GtkWidget  *widget,
                    const char *action_name,
                    GVariant   *parameter)
{
  KsGpuMonitor *monitor = ks_gpu_monitor_new (GTK_WINDOW (widget));

  gtk_window_present (GTK_WINDOW (monitor));
}

/* The analysis: its options, the pages' requests, the gap keys. */

void
_ks_window_analysis_get_options (KsWindow          *self,
                                 KsAnalysisOptions *options)
{
  if (self->session != NULL)
    *options = *ks_session_get_analysis_options (self->session);
  else
    ks_session_options_from_settings (ks_application_get_settings (), options);
}

static gboolean
gap_order_get_mapping (GValue   *value,
                       GVariant *variant,
                       gpointer  user_data)
{
  g_value_set_boolean (value, g_strcmp0 (g_variant_get_string (variant, NULL), "time") == 0);
  return TRUE;
}

static GVariant *
gap_order_set_mapping (const GValue       *value,
                       const GVariantType *expected_type,
                       gpointer            user_data)
{
  return g_variant_new_string (g_value_get_boolean (value) ? "time" : "duration");
}

static void
gaps_page_built_cb (KsSidePanel *panel,
                    GtkWidget   *page,
                    GSettings   *settings)
{
  g_settings_bind_with_mapping (settings, "gap-order", page, "order-by-time", G_SETTINGS_BIND_DEFAULT,
                                gap_order_get_mapping, gap_order_set_mapping, NULL, NULL);
}

/* The Gaps page's order is a setting, and the menu's toggles are the
 * settings' actions (the session reads the analysis options from the
 * settings itself). */
void
_ks_window_analysis_init (KsWindow *self)
{
  GSettings *settings = ks_application_get_settings ();

  if (settings != NULL)
    {
      g_autoptr(GSimpleActionGroup) actions = ks_application_create_settings_actions (settings);

      /* the Gaps page is built when first shown */
      g_signal_connect_object (self->side_panel, "page-built::gaps", G_CALLBACK (gaps_page_built_cb), settings,
                               0);
      /* the analysis toggles of the main menu */
      gtk_widget_insert_action_group (GTK_WIDGET (self), "settings", G_ACTION_GROUP (actions));
    }
}

/* ] and [: the next or previous gap in the order the Gaps page shows.
 * The gap's class and cause are on the Selection page: that is where
 * the keys leave the panel (a click in the Gaps list stays there). */
static void
step_gap_action (GtkWidget  *widget,
                 const char *action_name,
                 GVariant   *param)
{
  KsWindow *self = KS_WINDOW (widget);

  if (self->session != NULL && ks_session_get_analysis (self->session) != NULL &&
      ks_gaps_page_step (KS_GAPS_PAGE (ks_window_get_page (self, "gaps")), g_str_equal (action_name, "analysis.next-gap") ? 1 : -1))
    ks_window_show_page (self, "selection");
}

static void
toggle_gap_order_action (GtkWidget  *widget,
                         const char *action_name,
                         GVariant   *param)
{
  KsGapsPage *gaps = KS_GAPS_PAGE (ks_window_get_page (KS_WINDOW (widget), "gaps"));

  ks_gaps_page_set_order_by_time (gaps, !ks_gaps_page_get_order_by_time (gaps));
}

static void
toggle_side_panel_action (GtkWidget  *widget,
                          const char *action_name,
                          GVariant   *param)
{
  KsWindow *self = KS_WINDOW (widget);

  /* The header button holds the state; the panel follows it. */
  gtk_toggle_button_set_active (self->side_panel_button, !gtk_toggle_button_get_active (self->side_panel_button));
}

static void
show_page_action (GtkWidget  *widget,
                  const char *action_name,
                  GVariant   *param)
{
  KsWindow *self = KS_WINDOW (widget);
  const char *name = g_variant_get_string (param, NULL);

  if (ks_side_panel_show_page (self->side_panel, name))
    gtk_toggle_button_set_active (self->side_panel_button, TRUE);
}

void
_ks_window_class_actions_init (KsWindowClass *klass)
{
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  gtk_widget_class_install_action (widget_class, "win.open", NULL, open_action);
  gtk_widget_class_install_action (widget_class, "win.open-folder", NULL, open_folder_action);
  gtk_widget_class_install_action (widget_class, "win.open-demo", NULL, open_demo_action);
  gtk_widget_class_install_action (widget_class, "win.add-memory-snapshot", NULL, add_snapshot_action);
  gtk_widget_class_install_action (widget_class, "win.add-memory-snapshot-file", "s", add_snapshot_file_action);
  gtk_widget_class_install_action (widget_class, "win.record", NULL, record_action);
  gtk_widget_class_install_action (widget_class, "win.gpu-monitor", NULL, gpu_monitor_action);
  gtk_widget_class_install_action (widget_class, "win.cancel-load", NULL, cancel_load_action);
  gtk_widget_class_install_action (widget_class, "win.close", NULL, close_action);
  gtk_widget_class_install_action (widget_class, "win.find", NULL, find_action);
  gtk_widget_class_install_action (widget_class, "win.find-next", NULL, find_next_action);
  gtk_widget_class_install_action (widget_class, "win.find-previous", NULL, find_previous_action);
  gtk_widget_class_install_action (widget_class, "win.zoom", "i", zoom_action);
  gtk_widget_class_install_action (widget_class, "win.fit-all", NULL, fit_all_action);
  gtk_widget_class_install_action (widget_class, "win.fit-selection", NULL, fit_selection_action);
  gtk_widget_class_install_action (widget_class, "win.timeline-zoom", "i", timeline_zoom_action);
  gtk_widget_class_install_action (widget_class, "win.timeline-pan", "i", timeline_pan_action);
  gtk_widget_class_install_action (widget_class, "win.clear-selection", NULL, clear_selection_action);
  gtk_widget_class_install_action (widget_class, "win.back", NULL, back_action);
  gtk_widget_class_install_action (widget_class, "win.forward", NULL, forward_action);
  gtk_widget_class_install_action (widget_class, "win.toggle-side-panel", NULL, toggle_side_panel_action);
  gtk_widget_class_install_action (widget_class, "win.show-page", "s", show_page_action);
  gtk_widget_class_install_action (widget_class, "analysis.next-gap", NULL, step_gap_action);
  gtk_widget_class_install_action (widget_class, "analysis.previous-gap", NULL, step_gap_action);
  gtk_widget_class_install_action (widget_class, "analysis.toggle-gap-order", NULL, toggle_gap_order_action);

  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_o, GDK_CONTROL_MASK, "win.open", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_r, GDK_CONTROL_MASK, "win.record", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "win.close", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_f, GDK_CONTROL_MASK, "win.find", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_g, GDK_CONTROL_MASK, "win.find-next", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_g, GDK_CONTROL_MASK | GDK_SHIFT_MASK, "win.find-previous", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_plus, GDK_CONTROL_MASK, "win.zoom", "i", 1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_equal, GDK_CONTROL_MASK, "win.zoom", "i", 1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Add, GDK_CONTROL_MASK, "win.zoom", "i", 1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_minus, GDK_CONTROL_MASK, "win.zoom", "i", -1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_Subtract, GDK_CONTROL_MASK, "win.zoom", "i", -1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_0, GDK_CONTROL_MASK, "win.fit-all", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_KP_0, GDK_CONTROL_MASK, "win.fit-all", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Left, GDK_ALT_MASK, "win.back", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Right, GDK_ALT_MASK, "win.forward", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, 0, "win.timeline-zoom", "i", 1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_s, 0, "win.timeline-zoom", "i", -1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_a, 0, "win.timeline-pan", "i", -1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_d, 0, "win.timeline-pan", "i", 1);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_f, 0, "win.fit-selection", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "win.clear-selection", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_F9, 0, "win.toggle-side-panel", NULL);
  /* Unless a text field takes them, like the keys above */
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_bracketright, 0, "analysis.next-gap", NULL);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_bracketleft, 0, "analysis.previous-gap", NULL);
}
