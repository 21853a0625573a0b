/* ks-window.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-window"

#include "config.h"

#include <glib/gi18n.h>

#include "ks-analysis.h"
#include "ks-paths.h"
#include "ks-rank-summaries.h"
#include "ks-warnings-banner.h"
#include "ks-weak-idle.h"
#include "ks-window-private.h"
#include "ks-application.h"

#define DEMO_TRACE "loader_bound.pt.trace.json.gz"
#define N_RECENT   5

G_DEFINE_FINAL_TYPE (KsWindow, ks_window, ADW_TYPE_APPLICATION_WINDOW)

enum {
  PROP_0,
  PROP_SESSION,
  PROP_LOADING,
  PROP_COMPARE_SESSION,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

GFile *
ks_window_find_demo_trace (void)
{
  g_autofree char *built = ks_paths_find_built ("data", DEMO_TRACE, NULL);
  g_autofree char *installed = g_build_filename (PKGDATADIR, DEMO_TRACE, NULL);

  /* Run from the build tree, the build copies the demo trace to <build>/data. */
  if (built != NULL)
    return g_file_new_for_path (built);
  if (g_file_test (installed, G_FILE_TEST_IS_REGULAR))
    return g_file_new_for_path (installed);
  return NULL;
}

static char *
file_display_name (GFile *file)
{
  g_autofree char *basename = g_file_get_basename (file);

  return g_filename_display_name (basename ? basename : "");
}

/* The main stack's pages made on first show (the job's Ranks page, the
 * Compare view): built as their stack page comes into view. */
static void
main_stack_child_cb (KsWindow *self)
{
  GtkWidget *child = gtk_stack_get_visible_child (self->main_stack);

  if (KS_IS_PAGE_SLOT (child))
    ks_page_slot_get_page (KS_PAGE_SLOT (child));
}

/* Escape in the search bar: back to the timeline. */
static void
stop_search_cb (KsWindow *self)
{
  gtk_widget_grab_focus (GTK_WIDGET (self->timeline));
}

static void
session_selection_changed_cb (KsWindow  *self,
                              KsSession *session)
{
  guint32 track, slice;

  if (ks_session_get_selected_slice (session, &track, &slice))
    {
      KsTrace *trace = ks_session_get_trace (session);
      double start = trace->tracks[track].start[slice];
      double end = trace->tracks[track].end[slice];
      double t0, t1;

      /* A slice chosen elsewhere (a flow's other end, a search match)
       * may lie outside the view: centre it, keeping the zoom. */
      ks_session_get_visible (session, &t0, &t1);
      if (end < t0 || start > t1)
        {
          ks_session_push_history (session);
          ks_session_set_visible (session, (start + end - (t1 - t0)) / 2, (start + end + (t1 - t0)) / 2);
        }
      ks_timeline_reveal_track (self->timeline, track);
    }
}

static void
session_visible_changed_cb (KsWindow  *self,
                            KsSession *session)
{
  _ks_window_actions_update (self);
}

static void
session_analysis_changed_cb (KsWindow   *self,
                             GParamSpec *pspec,
                             KsSession  *session)
{
  KsAnalysis *analysis = ks_session_get_analysis (session);

  if (ks_session_get_trace (session) == NULL)
    return;

  /* Kept while the next analysis is computed, as before it came. */
  if (analysis == NULL)
    return;
  _ks_window_update_subtitle (self);
}

/* Everything that shows the trace starts over. */
static void
session_trace_changed_cb (KsWindow   *self,
                          GParamSpec *pspec,
                          KsSession  *session)
{
  KsTrace *trace = ks_session_get_trace (session);
  GFile *file = ks_session_get_file (session);
  g_autofree char *name = file != NULL ? file_display_name (file) : NULL;

  if (trace != NULL)
    {
      adw_window_title_set_title (self->window_title, name ? name : "");
      gtk_window_set_title (GTK_WINDOW (self), name ? name : "");
      _ks_window_update_subtitle (self);
    }
  else
    {
      adw_window_title_set_title (self->window_title, _("Kinescope"));
      adw_window_title_set_subtitle (self->window_title, "");
      gtk_window_set_title (GTK_WINDOW (self), _("Kinescope"));
    }

  /* (the side panel opens a new trace on its first page itself) */
  gtk_stack_set_visible_child_name (self->main_stack, trace != NULL ? "trace" : "empty");
  if (trace != NULL)
    gtk_widget_grab_focus (GTK_WIDGET (self->timeline));

  _ks_window_update_interval_bar (self);
  _ks_window_actions_update (self);
}

/* The analysis of a new trace starts once the window has drawn it: the
 * timeline comes first, and on a machine of few cores the analysis's
 * threads do not slow that first frame. @release: FALSE when the window
 * goes away and nothing is to be analysed. */
static void
end_first_frame (KsWindow *self,
                 gboolean  release)
{
  if (self->first_frame_clock == NULL)
    return;
  /* a window being destroyed has disposed of its clock, handlers and all */
  if (g_signal_handler_is_connected (self->first_frame_clock, self->first_frame_id))
    g_signal_handler_disconnect (self->first_frame_clock, self->first_frame_id);
  self->first_frame_id = 0;
  g_clear_object (&self->first_frame_clock);
  g_clear_handle_id (&self->first_frame_timeout, g_source_remove);
  if (release)
    ks_session_release_analysis (self->session);
}

static void
first_frame_painted_cb (GdkFrameClock *clock,
                        KsWindow      *self)
{
  end_first_frame (self, TRUE);
}

/* A window that is not drawn (minimised, on no screen) still gets its
 * analysis. */
static gboolean
first_frame_timeout_cb (gpointer user_data)
{
  KsWindow *self = user_data;

  self->first_frame_timeout = 0;
  end_first_frame (self, TRUE);
  return G_SOURCE_REMOVE;
}

static void
hold_analysis_until_drawn (KsWindow *self)
{
  GdkFrameClock *clock = gtk_widget_get_mapped (GTK_WIDGET (self))
                         ? gtk_widget_get_frame_clock (GTK_WIDGET (self)) : NULL;

  /* the new hold first: ending a previous one then starts nothing */
  if (clock != NULL)
    ks_session_hold_analysis (self->session);
  end_first_frame (self, TRUE);
  if (clock == NULL)
    return;
  self->first_frame_clock = g_object_ref (clock);
  self->first_frame_id = g_signal_connect (clock, "after-paint", G_CALLBACK (first_frame_painted_cb), self);
  self->first_frame_timeout = g_timeout_add (1000, first_frame_timeout_cb, self);
  gtk_widget_queue_draw (GTK_WIDGET (self->timeline));
}

static void start_load (KsWindow *self,
                        GFile    *file);

/* A rank of the job activated on a Ranks page: its events, in place of
 * the rank loaded before. */
static void
session_loading_row_cb (KsWindow *self)
{
  guint row = ks_session_get_loading_row (self->session);
  KsRankSummaries *summaries = ks_session_get_summaries (self->session);
  g_autoptr(GFile) file = NULL;

  if (row == KS_NO_INDEX || summaries == NULL)
    return;
  file = g_file_new_for_path (ks_rank_summaries_get_source (summaries, row));
  start_load (self, file);
}

/* The session is made with the first trace or job and kept: its pages
 * and views follow it through the traces the window shows. */
static void
ensure_session (KsWindow *self)
{
  if (self->session == NULL)
    {
      self->session = ks_session_new_with_settings (NULL, ks_application_get_settings ());
      _ks_window_search_init_session (self);
      g_signal_connect_object (self->session, "selection-changed",
                               G_CALLBACK (session_selection_changed_cb), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (self->session, "notify::loading-row",
                               G_CALLBACK (session_loading_row_cb), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (self->session, "visible-changed",
                               G_CALLBACK (session_visible_changed_cb), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (self->session, "notify::trace",
                               G_CALLBACK (session_trace_changed_cb), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (self->session, "notify::analysis",
                               G_CALLBACK (session_analysis_changed_cb), self, G_CONNECT_SWAPPED);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION]);
    }
}

static void
set_trace (KsWindow *self,
           KsTrace  *trace,
           GFile    *file)
{
  ensure_session (self);
  /* the file first: the title reads it on notify::trace */
  ks_session_set_file (self->session, file);

  if (ks_session_get_trace (self->session) == trace)
    session_trace_changed_cb (self, NULL, self->session);
  else
    {
      hold_analysis_until_drawn (self);
      ks_session_set_trace (self->session, trace);
    }
}

static void
show_error (KsWindow   *self,
            GFile      *file,
            const char *message)
{
  g_autofree char *name = file_display_name (file);
  g_autofree char *heading = g_strdup_printf (_("Could Not Open “%s”"), name);

  _ks_window_show_error (self, heading, message);
}

void
_ks_window_show_error (KsWindow   *self,
                       const char *heading,
                       const char *message)
{
  GtkWidget *dialog = adw_message_dialog_new (GTK_WINDOW (self), heading, message);

  adw_message_dialog_add_response (ADW_MESSAGE_DIALOG (dialog), "close", _("_Close"));
  adw_message_dialog_set_default_response (ADW_MESSAGE_DIALOG (dialog), "close");
  gtk_window_present (GTK_WINDOW (dialog));
}

#define RECENT_APP_NAME "Kinescope"

static void
add_recent (GFile *file)
{
  g_autofree char *uri = g_file_get_uri (file);
  g_autofree char *basename = g_file_get_basename (file);
  g_autofree char *content_type = g_content_type_guess (basename, NULL, 0, NULL);
  g_autofree char *mime = g_content_type_get_mime_type (content_type);
  GtkRecentData data = { 0 };

  /* Registered under a fixed name: the empty window lists only these. */
  data.mime_type = mime ? mime : (char *)"application/octet-stream";
  data.app_name = (char *)RECENT_APP_NAME;
  data.app_exec = (char *)"kinescope %u";
  gtk_recent_manager_add_full (gtk_recent_manager_get_default (), uri, &data);
}

typedef struct
{
  GFile *file;
  guint  ticks;
} RecentLater;

static void
recent_later_free (gpointer data)
{
  RecentLater *later = data;

  g_object_unref (later->file);
  g_free (later);
}

/* A tick comes at the start of each frame: the second is the one after
 * the window drew what the load brought. */
static gboolean
add_recent_tick_cb (GtkWidget     *widget,
                    GdkFrameClock *clock,
                    gpointer       data)
{
  RecentLater *later = data;

  if (++later->ticks < 2)
    return G_SOURCE_CONTINUE;
  add_recent (later->file);
  return G_SOURCE_REMOVE;
}

/* @file joins the recent files once the window has drawn it. Reading
 * their list takes 4-5 ms for a long one (GTK keeps up to a thousand):
 * at the load's end it came between the load and its first frame, and
 * read while the file loaded it took the main thread's core from the
 * load's threads. */
static void
add_recent_when_drawn (KsWindow *self,
                       GFile    *file)
{
  RecentLater *later = g_new0 (RecentLater, 1);

  later->file = g_object_ref (file);
  gtk_widget_add_tick_callback (GTK_WIDGET (self), add_recent_tick_cb, later, recent_later_free);
}

/* Where a load that failed leaves the window: what it showed before. */
static const char *
visible_after_failure (KsWindow *self)
{
  if (self->session != NULL && ks_session_get_trace (self->session) != NULL)
    return "trace";
  return ks_window_get_summaries (self) != NULL ? "job" : "empty";
}

/* The rank whose trace is being loaded, KS_NO_INDEX for a file of its own. */
static guint
loading_row (KsWindow *self)
{
  return self->session != NULL ? ks_session_get_loading_row (self->session) : KS_NO_INDEX;
}

static void
set_loading_row (KsWindow *self,
                 guint     row)
{
  if (self->session != NULL)
    ks_session_set_loading_row (self->session, row);
}

static void
load_failed (KsWindow     *self,
             GFile        *file,
             const GError *error)
{
  gtk_stack_set_visible_child_name (self->main_stack, visible_after_failure (self));
  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    show_error (self, file, error->message);
}

/* A load started or ended. */
static void
loading_changed (KsWindow *self)
{
  _ks_window_actions_update (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
}

static void
show_job (KsWindow        *self,
          KsRankSummaries *summaries,
          GFile           *file)
{
  g_autofree char *name = file_display_name (file);

  add_recent_when_drawn (self, file);
  /* the trace shown before belongs to another file */
  if (self->session != NULL)
    set_trace (self, NULL, NULL);
  ensure_session (self);
  /* both Ranks pages follow the session's summaries */
  ks_session_set_job (self->session, summaries, file);
  adw_window_title_set_title (self->window_title, name);
  adw_window_title_set_subtitle (self->window_title, "");
  gtk_window_set_title (GTK_WINDOW (self), name);
  gtk_stack_set_visible_child_name (self->main_stack, "job");
}

static void
load_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(KsWindow) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsRankSummaries) summaries = NULL;
  GFile *file = ks_document_loader_get_file (self->loader);
  gboolean ok;

  ok = ks_document_loader_load_finish (self->loader, result, &trace, &summaries, &error);

  /* A newer load replaced this one. */
  if (!ok && ks_document_loader_get_loading (self->loader))
    return;

  if (!ok)
    {
      set_loading_row (self, KS_NO_INDEX);
      load_failed (self, file, error);
    }
  else if (summaries != NULL)
    show_job (self, summaries, file);
  else if (loading_row (self) != KS_NO_INDEX)
    {
      guint row = loading_row (self);

      /* one rank of the job at a time: the one before is let go */
      set_loading_row (self, KS_NO_INDEX);
      set_trace (self, trace, file);
      ks_session_set_loaded_row (self->session, row);
      ks_window_show_page (self, "ranks");
    }
  else
    {
      /* a file of its own: the job shown before is let go */
      if (self->session != NULL)
        ks_session_set_job (self->session, NULL, NULL);
      add_recent_when_drawn (self, file);
      set_trace (self, trace, file);
    }

  loading_changed (self);
}

/* A font of a new size or weight is matched by fontconfig on Pango's
 * threads the first time it is measured, and the main thread waits for
 * them: the timeline's and the trace page's labels' fonts took 10-20 ms
 * of the first frame with rows. While the file loads the main thread
 * has little to do, so they are matched then: the timeline's fonts, and
 * the page measured once before it is shown. */
static void
prepare_fonts (GtkWidget *widget)
{
  KsWindow *self = KS_WINDOW (widget);
  GtkWidget *page = gtk_stack_get_child_by_name (self->main_stack, "trace");
  int min, nat;

  ks_timeline_prepare_fonts (self->timeline);
  if (page != NULL)
    gtk_widget_measure (page, GTK_ORIENTATION_HORIZONTAL, -1, &min, &nat, NULL, NULL);
}

/* The loader's progress page comes with its first load. */
static void
loader_loading_cb (KsWindow         *self,
                   GParamSpec       *pspec,
                   KsDocumentLoader *loader)
{
  /* its end is load_cb's: the trace is shown first */
  if (!ks_document_loader_get_loading (loader))
    return;
  gtk_stack_set_visible_child_name (self->main_stack, "loading");
  ks_weak_idle_add (G_PRIORITY_LOW, GTK_WIDGET (self), prepare_fonts);
  loading_changed (self);
}

static gboolean
loading_title_transform (GBinding     *binding,
                         const GValue *from,
                         GValue       *to,
                         gpointer      user_data)
{
  GFile *file = g_value_get_object (from);
  g_autofree char *name = NULL;

  if (file == NULL)
    return FALSE;
  name = file_display_name (file);
  g_value_take_string (to, g_strdup_printf (_("Opening “%s”"), name));
  return TRUE;
}

/* Loads @file, a trace of its own or a rank of the job (loading_row),
 * with @snapshot (may be NULL), the memory snapshot of its run. */
static void
start_load_with_snapshot (KsWindow *self,
                          GFile    *file,
                          GFile    *snapshot)
{
  KsDocumentLoadOptions options;

  _ks_window_compare_cancel (self);
  _ks_window_compare_clear (self);

  /* as the application's early load of a command line's file has them */
  ks_document_load_options_init (&options, ks_application_get_settings (), snapshot);
  /* a rank's file is a JSON trace, with no samples to space */
  if (loading_row (self) == KS_NO_INDEX)
    options.nvsmi_interval = self->nvsmi_interval;
  _ks_window_analysis_get_options (self, &options.analysis);
  ks_document_loader_load_async (self->loader, file, &options, load_cb, g_object_ref (self));
}

static void
start_load (KsWindow *self,
            GFile    *file)
{
  start_load_with_snapshot (self, file, NULL);
}

static void
open_file (KsWindow *self,
           GFile    *file)
{
  set_loading_row (self, KS_NO_INDEX);
  start_load (self, file);
}

void
ks_window_open (KsWindow *self,
                GFile    *file)
{
  g_return_if_fail (KS_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file));

  /* another file's samples are 1 s apart until its own bar says else */
  self->nvsmi_interval = 0;
  open_file (self, file);
}

void
ks_window_open_with_snapshot (KsWindow *self,
                              GFile    *file,
                              GFile    *snapshot)
{
  g_return_if_fail (KS_IS_WINDOW (self));
  g_return_if_fail (G_IS_FILE (file) && G_IS_FILE (snapshot));

  self->nvsmi_interval = 0;
  set_loading_row (self, KS_NO_INDEX);
  start_load_with_snapshot (self, file, snapshot);
}

/* The interval bar of an nvidia-smi log without times: the log again,
 * its samples @interval apart. */
static void
interval_reload_cb (KsWindow      *self,
                    double         interval,
                    KsIntervalBar *bar)
{
  g_autoptr(GFile) file = NULL;

  if (ks_window_get_file (self) == NULL)
    return;
  file = g_object_ref (ks_window_get_file (self));
  self->nvsmi_interval = interval;
  open_file (self, file);
}

KsRankSummaries *
ks_window_get_summaries (KsWindow *self)
{
  g_return_val_if_fail (KS_IS_WINDOW (self), NULL);

  return self->session != NULL ? ks_session_get_summaries (self->session) : NULL;
}

gboolean
ks_window_is_empty (KsWindow *self)
{
  g_return_val_if_fail (KS_IS_WINDOW (self), FALSE);

  return (self->session == NULL ||
          (ks_session_get_trace (self->session) == NULL && ks_session_get_summaries (self->session) == NULL)) &&
         !ks_document_loader_get_loading (self->loader);
}

gboolean
ks_window_get_loading (KsWindow *self)
{
  g_return_val_if_fail (KS_IS_WINDOW (self), FALSE);

  return ks_document_loader_get_loading (self->loader);
}

KsSession *
ks_window_get_session (KsWindow *self)
{
  g_return_val_if_fail (KS_IS_WINDOW (self), NULL);

  return self->session;
}

KsTimeline *
ks_window_get_timeline (KsWindow *self)
{
  g_return_val_if_fail (KS_IS_WINDOW (self), NULL);

  return self->timeline;
}

KsOverview *
ks_window_get_overview (KsWindow *self)
{
  g_return_val_if_fail (KS_IS_WINDOW (self), NULL);

  return self->overview;
}

GFile *
ks_window_get_file (KsWindow *self)
{
  g_return_val_if_fail (KS_IS_WINDOW (self), NULL);

  return self->session != NULL ? ks_session_get_file (self->session) : NULL;
}

GtkWidget *
ks_window_get_page (KsWindow   *self,
                    const char *name)
{
  g_return_val_if_fail (KS_IS_WINDOW (self), NULL);

  return ks_side_panel_get_page (self->side_panel, name);
}

void
ks_window_show_page (KsWindow   *self,
                     const char *name)
{
  g_return_if_fail (KS_IS_WINDOW (self));

  ks_side_panel_show_page (self->side_panel, name);
}

/* A drop event carries no modifiers: ask the keyboard as well. */
static gboolean
ctrl_held (KsWindow      *self,
           GtkDropTarget *target)
{
  GdkModifierType state = gtk_event_controller_get_current_event_state (GTK_EVENT_CONTROLLER (target));
  GdkSeat *seat = gdk_display_get_default_seat (gtk_widget_get_display (GTK_WIDGET (self)));
  GdkDevice *keyboard = seat != NULL ? gdk_seat_get_keyboard (seat) : NULL;

  if (keyboard != NULL)
    state |= gdk_device_get_modifier_state (keyboard);
  return (state & GDK_CONTROL_MASK) != 0;
}

/* Drag and drop of files onto the window. */
static gboolean
drop_cb (KsWindow      *self,
         const GValue  *value,
         double         x,
         double         y,
         GtkDropTarget *target)
{
  g_autoptr(GSList) files = NULL;
  g_autoptr(GPtrArray) list = g_ptr_array_new ();

  if (!G_VALUE_HOLDS (value, GDK_TYPE_FILE_LIST) || g_value_get_boxed (value) == NULL)
    return FALSE;

  files = gdk_file_list_get_files (g_value_get_boxed (value));
  if (files == NULL)
    return FALSE;

  for (GSList *l = files; l != NULL; l = l->next)
    g_ptr_array_add (list, l->data);
  /* With Ctrl held, the file is compared with the trace shown. */
  ks_application_open_files (NULL, GTK_WINDOW (self), (GFile **) list->pdata, list->len,
                             ctrl_held (self, target) ? KS_OPEN_COMPARE : KS_OPEN_DEFAULT);
  return TRUE;
}

static void
recent_activated_cb (KsWindow      *self,
                     GtkListBoxRow *row,
                     GtkListBox    *list)
{
  const char *uri = g_object_get_data (G_OBJECT (row), "uri");
  g_autoptr(GFile) file = NULL;

  if (uri == NULL)
    return;
  file = g_file_new_for_uri (uri);
  ks_application_open_files (NULL, GTK_WINDOW (self), &file, 1, KS_OPEN_DEFAULT);
}

static int
compare_recent (gconstpointer a,
                gconstpointer b)
{
  GDateTime *ma = gtk_recent_info_get_modified ((GtkRecentInfo *)a);
  GDateTime *mb = gtk_recent_info_get_modified ((GtkRecentInfo *)b);

  return g_date_time_compare (mb, ma);
}

static void
update_recent (KsWindow *self)
{
  GtkRecentManager *manager = gtk_recent_manager_get_default ();
  GList *items = gtk_recent_manager_get_items (manager);
  GtkWidget *child;
  guint shown = 0;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->recent_list))))
    gtk_list_box_remove (self->recent_list, child);

  items = g_list_sort (items, compare_recent);
  for (GList *l = items; l != NULL && shown < N_RECENT; l = l->next)
    {
      GtkRecentInfo *info = l->data;
      const char *uri = gtk_recent_info_get_uri (info);
      g_autoptr(GFile) file = g_file_new_for_uri (uri);
      g_autofree char *name = NULL;
      g_autofree char *parent = NULL;
      g_autoptr(GFile) dir = NULL;
      GtkWidget *row;

      /* Only traces this application opened, still present. */
      if (!gtk_recent_info_has_application (info, RECENT_APP_NAME))
        continue;
      if (!gtk_recent_info_exists (info))
        continue;

      name = file_display_name (file);
      dir = g_file_get_parent (file);
      parent = dir ? g_file_get_parse_name (dir) : g_strdup ("");

      row = adw_action_row_new ();
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), name);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), parent);
      gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), gtk_image_new_from_icon_name ("go-next-symbolic"));
      g_object_set_data_full (G_OBJECT (row), "uri", g_strdup (uri), g_free);
      gtk_list_box_append (self->recent_list, row);
      shown++;
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);

  gtk_widget_set_visible (self->recent_group, shown > 0);
}

/* The recent traces are listed while the empty window's page is shown,
 * and only then: reading the recent files (all applications', often
 * hundreds of entries) is not in the way of a window opened for a file,
 * which never shows that page. */
static void
welcome_map_cb (KsWindow *self)
{
  g_signal_connect_object (gtk_recent_manager_get_default (), "changed",
                           G_CALLBACK (update_recent), self, G_CONNECT_SWAPPED);
  update_recent (self);
}

static void
welcome_unmap_cb (KsWindow *self)
{
  g_signal_handlers_disconnect_by_func (gtk_recent_manager_get_default (), update_recent, self);
}

static void
restore_window_state (KsWindow *self)
{
  GSettings *settings = ks_application_get_settings ();
  int width, height;

  if (settings == NULL)
    return;

  width = g_settings_get_int (settings, "window-width");
  height = g_settings_get_int (settings, "window-height");
  if (width > 0 && height > 0)
    gtk_window_set_default_size (GTK_WINDOW (self), width, height);
  if (g_settings_get_boolean (settings, "window-maximized"))
    gtk_window_maximize (GTK_WINDOW (self));
}

static gboolean
ks_window_close_request (GtkWindow *window)
{
  GSettings *settings = ks_application_get_settings ();

  if (settings != NULL)
    {
      int width, height;

      gtk_window_get_default_size (window, &width, &height);
      g_settings_set_int (settings, "window-width", width);
      g_settings_set_int (settings, "window-height", height);
      g_settings_set_boolean (settings, "window-maximized", gtk_window_is_maximized (window));
    }

  return GTK_WINDOW_CLASS (ks_window_parent_class)->close_request (window);
}

static void
ks_window_get_property (GObject    *object,
                        guint       prop_id,
                        GValue     *value,
                        GParamSpec *pspec)
{
  KsWindow *self = KS_WINDOW (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      g_value_set_object (value, self->session);
      break;

    case PROP_LOADING:
      g_value_set_boolean (value, ks_window_get_loading (self));
      break;

    case PROP_COMPARE_SESSION:
      g_value_set_object (value, self->compare_session);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_window_dispose (GObject *object)
{
  KsWindow *self = (KsWindow *)object;

  if (self->loader != NULL)
    ks_document_loader_cancel (self->loader);
  _ks_window_compare_cancel (self);
  end_first_frame (self, FALSE);

  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);

  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_WINDOW);

  g_clear_object (&self->session);
  g_clear_object (&self->compare_session);

  G_OBJECT_CLASS (ks_window_parent_class)->dispose (object);
}

static void
ks_window_class_init (KsWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_window_dispose;
  object_class->get_property = ks_window_get_property;
  GTK_WINDOW_CLASS (klass)->close_request = ks_window_close_request;

  properties[PROP_SESSION] =
    g_param_spec_object ("session", NULL, NULL, KS_TYPE_SESSION,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_LOADING] =
    g_param_spec_boolean ("loading", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  /* Compare With…: the new run's, which the Compare view binds */
  properties[PROP_COMPARE_SESSION] =
    g_param_spec_object ("compare-session", NULL, NULL, KS_TYPE_SESSION,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (KS_TYPE_COMPARE_VIEW);
  g_type_ensure (KS_TYPE_DOCUMENT_LOADER);
  g_type_ensure (KS_TYPE_INTERVAL_BAR);
  g_type_ensure (KS_TYPE_SEARCH_BAR);
  g_type_ensure (KS_TYPE_SIDE_PANEL);
  g_type_ensure (KS_TYPE_RANKS_PAGE);
  g_type_ensure (KS_TYPE_STATUS_BAR);
  g_type_ensure (KS_TYPE_WARNINGS_BANNER);
  g_type_ensure (KS_TYPE_OVERVIEW);
  g_type_ensure (KS_TYPE_PAGE_SLOT);
  g_type_ensure (KS_TYPE_TIMELINE);

  gtk_widget_class_set_template_from_resource (widget_class, APP_RESOURCE_PATH "/ks-window.ui");
  gtk_widget_class_bind_template_child (widget_class, KsWindow, window_title);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, search_bar);
  gtk_widget_class_bind_template_callback (widget_class, stop_search_cb);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, main_stack);
  gtk_widget_class_bind_template_callback (widget_class, main_stack_child_cb);
  gtk_widget_class_bind_template_callback (widget_class, welcome_map_cb);
  gtk_widget_class_bind_template_callback (widget_class, welcome_unmap_cb);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, recent_list);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, recent_group);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, loader);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, loading_title);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, overview);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, timeline);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, side_panel);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, side_panel_button);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, status_bar);
  gtk_widget_class_bind_template_child (widget_class, KsWindow, interval_bar);
  /* found by name when the window is made: see set_menu_when_opened() */
  gtk_widget_class_bind_template_child_full (widget_class, "profile_menu_button", FALSE, 0);
  gtk_widget_class_bind_template_child_full (widget_class, "profile_menu", FALSE, 0);
  gtk_widget_class_bind_template_child_full (widget_class, "primary_menu_button", FALSE, 0);
  gtk_widget_class_bind_template_child_full (widget_class, "primary_menu", FALSE, 0);
  gtk_widget_class_bind_template_callback (widget_class, interval_reload_cb);

  _ks_window_class_actions_init (klass);
  _ks_window_compare_class_init (klass);
}

/* A menu button's popover is made when it first opens: making the
 * window's two took 2-3 ms of the main thread while a file loads. */
static void
menu_opened_cb (GtkMenuButton *button,
                gpointer       model)
{
  if (gtk_menu_button_get_menu_model (button) == NULL)
    gtk_menu_button_set_menu_model (button, model);
}

static void
set_menu_when_opened (KsWindow   *self,
                      const char *button,
                      const char *menu)
{
  GObject *model = gtk_widget_get_template_child (GTK_WIDGET (self), KS_TYPE_WINDOW, menu);

  gtk_menu_button_set_create_popup_func (
    GTK_MENU_BUTTON (gtk_widget_get_template_child (GTK_WIDGET (self), KS_TYPE_WINDOW, button)),
    menu_opened_cb, g_object_ref (model), g_object_unref);
}

static void
ks_window_init (KsWindow *self)
{
  GtkDropTarget *target;

  gtk_widget_init_template (GTK_WIDGET (self));
  set_menu_when_opened (self, "profile_menu_button", "profile_menu");
  set_menu_when_opened (self, "primary_menu_button", "primary_menu");

  restore_window_state (self);

  g_object_bind_property_full (self->loader, "file", self->loading_title, "label", G_BINDING_DEFAULT,
                               loading_title_transform, NULL, NULL, NULL);
  g_signal_connect_object (self->loader, "notify::loading", G_CALLBACK (loader_loading_cb), self,
                           G_CONNECT_SWAPPED);

  target = gtk_drop_target_new (GDK_TYPE_FILE_LIST, GDK_ACTION_COPY);
  g_signal_connect_swapped (target, "drop", G_CALLBACK (drop_cb), self);
  gtk_widget_add_controller (GTK_WIDGET (self), GTK_EVENT_CONTROLLER (target));

  g_signal_connect_object (self->recent_list, "row-activated",
                           G_CALLBACK (recent_activated_cb), self, G_CONNECT_SWAPPED);

  _ks_window_analysis_init (self);
  _ks_window_actions_update (self);
}

KsWindow *
ks_window_new (GtkApplication *application)
{
  return g_object_new (KS_TYPE_WINDOW, "application", application, NULL);
}
