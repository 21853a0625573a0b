/* ks-application.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-application"

#include "config.h"

#include <glib/gi18n.h>

#include "ks-about.h"
#include "ks-application.h"
#include "ks-document-loader.h"
#include "ks-early-cores.h"
#include "ks-gl-off.h"
#include "ks-weak-idle.h"
#include "ks-paths.h"
#include "ks-preferences-window.h"
#include "ks-tooltips.h"
#include "ks-trace-loader.h"
#include "ks-window.h"

struct _KsApplication
{
  AdwApplication parent_instance;

  /* --record given to the first instance: open the dialog once the
   * window exists. */
  gboolean       record_on_activate;
  /* The command line while GApplication handles it: once parsed, the
   * program's name and the files to open. */
  char        ***arguments;
};

G_DEFINE_FINAL_TYPE (KsApplication, ks_application, ADW_TYPE_APPLICATION)

/* Not an instance member: windows work without an application (the
 * tests, the window of a recording) and still share the one instance. */
static GSettings *settings;

/* Run from the build tree (the README's ./_build/src/app/kinescope), the
 * schema compiled there comes first, as the build's catalogues do
 * (ks_paths_get_locale_dir()); installed, the default source. */
static GSettingsSchemaSource *
dup_schema_source (void)
{
  GSettingsSchemaSource *parent = g_settings_schema_source_get_default ();
  g_autofree char *compiled = ks_paths_find_built ("data", "gschemas.compiled", NULL);
  g_autofree char *dir = NULL;
  g_autoptr(GError) error = NULL;
  GSettingsSchemaSource *source;

  if (compiled == NULL)
    return parent != NULL ? g_settings_schema_source_ref (parent) : NULL;

  dir = g_path_get_dirname (compiled);
  source = g_settings_schema_source_new_from_directory (dir, parent, FALSE, &error);
  if (source == NULL)
    {
      g_warning ("Could not read the schemas compiled in %s: %s", dir, error->message);
      return parent != NULL ? g_settings_schema_source_ref (parent) : NULL;
    }
  return source;
}

GSettings *
ks_application_get_settings (void)
{
  static gsize initialized;

  if (g_once_init_enter (&initialized))
    {
      g_autoptr(GSettingsSchemaSource) source = dup_schema_source ();
      g_autoptr(GSettingsSchema) schema = NULL;

      if (source != NULL)
        schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);
      if (schema != NULL)
        settings = g_settings_new_full (schema, NULL, NULL);
      g_once_init_leave (&initialized, 1);
    }
  return settings;
}

GSimpleActionGroup *
ks_application_create_settings_actions (GSettings *from)
{
  static const char * const keys[] = { "busy-includes-copies", "include-warmup", "gap-order" };
  GSimpleActionGroup *group;

  g_return_val_if_fail (G_IS_SETTINGS (from), NULL);

  group = g_simple_action_group_new ();
  for (guint i = 0; i < G_N_ELEMENTS (keys); i++)
    {
      g_autoptr(GAction) action = g_settings_create_action (from, keys[i]);

      g_action_map_add_action (G_ACTION_MAP (group), action);
    }
  return group;
}

static void
ks_application_activate (GApplication *app)
{
  KsApplication *self = KS_APPLICATION (app);
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  if (window == NULL)
    window = GTK_WINDOW (ks_window_new (GTK_APPLICATION (app)));
  gtk_window_present (window);

  if (self->record_on_activate)
    {
      self->record_on_activate = FALSE;
      gtk_widget_activate_action (GTK_WIDGET (window), "win.record", NULL);
    }
}

static void
present (GtkWidget *window)
{
  gtk_window_present (GTK_WINDOW (window));
}

/* A window made for a file is shown at the main loop's next iteration:
 * at launch GTK's start-up, making the window and showing it (styles,
 * sizes, realize, map) were one stretch of 300-700 ms without the main
 * loop; showing it apart splits that in two. The window exists, and
 * loads, at once. */
static void
present_new_window (KsWindow *window)
{
  if (gtk_widget_get_visible (GTK_WIDGET (window)))
    {
      gtk_window_present (GTK_WINDOW (window));
      return;
    }
  ks_weak_idle_add (G_PRIORITY_DEFAULT, GTK_WIDGET (window), present);
}

/* A window of @application that shows nothing, @from first. */
static KsWindow *
find_empty_window (GtkApplication *application,
                   GtkWindow      *from)
{
  if (KS_IS_WINDOW (from) && ks_window_is_empty (KS_WINDOW (from)))
    return KS_WINDOW (from);
  if (application == NULL)
    return NULL;
  for (GList *l = gtk_application_get_windows (application); l != NULL; l = l->next)
    if (KS_IS_WINDOW (l->data) && ks_window_is_empty (l->data))
      return l->data;
  return NULL;
}

void
ks_application_open_files (GtkApplication  *application,
                           GtkWindow       *from,
                           GFile          **files,
                           guint            n_files,
                           KsOpenHow        how)
{
  g_return_if_fail (application == NULL || GTK_IS_APPLICATION (application));
  g_return_if_fail (from == NULL || GTK_IS_WINDOW (from));
  g_return_if_fail (application != NULL || from != NULL);

  if (application == NULL)
    application = gtk_window_get_application (from);

  /* A trace and the memory snapshot of its run: one window, one axis,
   * chosen as for a single file. */
  if (how == KS_OPEN_DEFAULT && n_files == 2)
    {
      guint snapshot;

      if (ks_trace_files_are_with_snapshot (files, 2, &snapshot))
        {
          KsWindow *window = application == NULL && KS_IS_WINDOW (from) ? KS_WINDOW (from)
                                                                          : find_empty_window (application, from);

          if (window == NULL)
            window = ks_window_new (application);
          ks_window_open_with_snapshot (window, files[1 - snapshot], files[snapshot]);
          present_new_window (window);
          return;
        }
    }

  for (guint i = 0; i < n_files; i++)
    {
      KsWindow *window;

      if (how == KS_OPEN_COMPARE && i == 0 && KS_IS_WINDOW (from) &&
          ks_window_get_session (KS_WINDOW (from)) != NULL &&
          ks_session_get_trace (ks_window_get_session (KS_WINDOW (from))) != NULL)
        {
          ks_window_compare_with (KS_WINDOW (from), files[i]);
          continue;
        }

      /* a window without an application (the tests', an embedder's)
       * cannot add windows of one: the first file replaces its trace */
      if (application == NULL && i == 0 && KS_IS_WINDOW (from))
        window = KS_WINDOW (from);
      else
        window = find_empty_window (application, from);
      if (window == NULL)
        window = ks_window_new (application);
      /* Loading before it is shown: a new window's first frame is the
       * progress page, not the welcome page fading out */
      ks_window_open (window, files[i]);
      present_new_window (window);
    }
}

typedef struct
{
  GApplication *app;
  GPtrArray    *files;
} OpenLater;

static gboolean
open_later_cb (gpointer data)
{
  OpenLater *later = data;

  ks_application_open_files (GTK_APPLICATION (later->app), NULL, (GFile **) later->files->pdata,
                             later->files->len, KS_OPEN_DEFAULT);
  /* the windows took over the early loads of their files: any left
   * (options that changed meanwhile) would load for nobody */
  ks_document_loader_drop_early ();
  return G_SOURCE_REMOVE;
}

static void
open_later_free (gpointer data)
{
  OpenLater *later = data;

  g_application_release (later->app);
  g_object_unref (later->app);
  g_ptr_array_unref (later->files);
  g_free (later);
}

/* At launch the command line's windows are made at the main loop's
 * next iteration: this comes right after GTK's and libadwaita's
 * start-up, and the two are then two stretches without the main loop
 * rather than one. The files' loads began at the start-up already.
 * Files opened later (another instance's command line, an embedder's
 * g_application_open()) have their windows at once. */
static void
ks_application_open (GApplication  *app,
                     GFile        **files,
                     int            n_files,
                     const char    *hint)
{
  OpenLater *later;

  if (KS_APPLICATION (app)->arguments == NULL)
    {
      ks_application_open_files (GTK_APPLICATION (app), NULL, files, (guint) MAX (n_files, 0), KS_OPEN_DEFAULT);
      ks_document_loader_drop_early ();
      return;
    }

  later = g_new0 (OpenLater, 1);
  later->app = g_object_ref (app);
  later->files = g_ptr_array_new_with_free_func (g_object_unref);
  for (int i = 0; i < n_files; i++)
    g_ptr_array_add (later->files, g_object_ref (files[i]));
  /* no window yet: the application runs on until they exist */
  g_application_hold (app);
  g_idle_add_full (G_PRIORITY_DEFAULT, open_later_cb, later, open_later_free);
}

/* The loads that ks_application_open_files() will ask for the command
 * line's files, begun before GTK and libadwaita start (about 100 ms on
 * two idle cores, against a few hundred for a large trace's load), with
 * the options a new window reads from the settings; its windows adopt
 * them. */
static void
start_early_loads (KsApplication *self)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);
  KsDocumentLoadOptions options;
  guint snapshot;

  if (self->arguments == NULL || *self->arguments == NULL || (*self->arguments)[0] == NULL ||
      !(g_application_get_flags (G_APPLICATION (self)) & G_APPLICATION_HANDLES_OPEN))
    return;
  /* as GApplication makes the files it opens */
  for (guint i = 1; (*self->arguments)[i] != NULL; i++)
    g_ptr_array_add (files, g_file_new_for_commandline_arg ((*self->arguments)[i]));

  if (files->len > 0)
    ks_early_cores_hold ();
  if (ks_trace_files_are_with_snapshot ((GFile **) files->pdata, files->len, &snapshot))
    {
      ks_document_load_options_init (&options, ks_application_get_settings (), files->pdata[snapshot]);
      ks_document_loader_start_early (files->pdata[1 - snapshot], &options);
      return;
    }
  ks_document_load_options_init (&options, ks_application_get_settings (), NULL);
  for (guint i = 0; i < files->len; i++)
    ks_document_loader_start_early (files->pdata[i], &options);
}

static void
new_window_activated (GSimpleAction *action,
                      GVariant      *param,
                      gpointer       user_data)
{
  gtk_window_present (GTK_WINDOW (ks_window_new (GTK_APPLICATION (user_data))));
}

static void
quit_activated (GSimpleAction *action,
                GVariant      *param,
                gpointer       user_data)
{
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (user_data)); l != NULL;)
    {
      GtkWindow *window = l->data;

      l = l->next;
      gtk_window_destroy (window);
    }
  g_application_quit (G_APPLICATION (user_data));
}

static void
preferences_activated (GSimpleAction *action,
                       GVariant      *param,
                       gpointer       user_data)
{
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (user_data));

  gtk_window_present (GTK_WINDOW (ks_preferences_window_new (parent, ks_application_get_settings ())));
}

static void
about_activated (GSimpleAction *action,
                 GVariant      *param,
                 gpointer       user_data)
{
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (user_data));

  gtk_window_present (GTK_WINDOW (ks_about_window_new (parent)));
}

/* "Record New Session" of the desktop file (kinescope --record), also
 * when Kinescope already runs: the dialog opens on the active window. */
static void
record_activated (GSimpleAction *action,
                  GVariant      *param,
                  gpointer       user_data)
{
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (user_data));

  if (window == NULL)
    window = GTK_WINDOW (ks_window_new (GTK_APPLICATION (user_data)));
  gtk_window_present (window);
  gtk_widget_activate_action (GTK_WIDGET (window), "win.record", NULL);
}

static const GActionEntry app_actions[] = {
  { "new-window", new_window_activated },
  { "record", record_activated },
  { "preferences", preferences_activated },
  { "about", about_activated },
  { "quit", quit_activated },
};

static void
ks_application_startup (GApplication *app)
{
  /* Only the primary instance starts up: a remote one loads nothing. */
  start_early_loads (KS_APPLICATION (app));

  G_APPLICATION_CLASS (ks_application_parent_class)->startup (app);
  /* GTK has started: the early loads have every core again */
  ks_early_cores_release ();
  ks_tooltips_init ();

  g_action_map_add_action_entries (G_ACTION_MAP (app), app_actions, G_N_ELEMENTS (app_actions), app);
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.quit",
                                         (const char *[]) { "<Control>q", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.new-window",
                                         (const char *[]) { "<Control>n", NULL });
  gtk_application_set_accels_for_action (GTK_APPLICATION (app), "app.preferences",
                                         (const char *[]) { "<Control>comma", NULL });
}

static void
ks_application_shutdown (GApplication *app)
{
  KsDocumentLoaderCounts counts;

  /* an early load whose window never came: stopped, and freed once its
   * worker has returned, before the process ends */
  ks_document_loader_drop_early ();
  ks_document_loader_get_counts (&counts);
  while (counts.dropped_alive > 0)
    {
      g_main_context_iteration (NULL, TRUE);
      ks_document_loader_get_counts (&counts);
    }

  G_APPLICATION_CLASS (ks_application_parent_class)->shutdown (app);
}

/* The files are known once GApplication has parsed the command line,
 * before it registers (and so starts up) the primary instance. */
static gboolean
ks_application_local_command_line (GApplication   *app,
                                   char         ***arguments,
                                   int            *exit_status)
{
  KsApplication *self = KS_APPLICATION (app);
  gboolean handled;

  self->arguments = arguments;
  handled = G_APPLICATION_CLASS (ks_application_parent_class)->local_command_line (app, arguments, exit_status);
  self->arguments = NULL;
  return handled;
}

static int
ks_application_handle_local_options (GApplication *app,
                                     GVariantDict *options)
{
  KsApplication *self = KS_APPLICATION (app);
  g_autoptr(GError) error = NULL;

  if (!g_variant_dict_contains (options, "record"))
    return -1;

  if (!g_application_register (app, NULL, &error))
    {
      g_printerr ("kinescope: %s\n", error->message);
      return 1;
    }

  /* A running Kinescope opens the dialog; otherwise this one starts. */
  if (g_application_get_is_remote (app))
    {
      g_action_group_activate_action (G_ACTION_GROUP (app), "record", NULL);
      return 0;
    }

  self->record_on_activate = TRUE;
  return -1;
}

static void
ks_application_class_init (KsApplicationClass *klass)
{
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  app_class->activate = ks_application_activate;
  app_class->handle_local_options = ks_application_handle_local_options;
  app_class->local_command_line = ks_application_local_command_line;
  app_class->shutdown = ks_application_shutdown;
  app_class->open = ks_application_open;
  app_class->startup = ks_application_startup;
}

static void
ks_application_init (KsApplication *self)
{
  static const GOptionEntry entries[] = {
    { "record", 0, 0, G_OPTION_ARG_NONE, NULL, N_("Open the Record New Session dialog"), NULL },
    { NULL }
  };
  static gsize named;

  /* once a process: GLib warns when it is set again (a second instance,
   * as the tests run one per command line) */
  if (g_once_init_enter (&named))
    {
      g_set_application_name (_("Kinescope"));
      g_once_init_leave (&named, 1);
    }
  g_application_add_main_option_entries (G_APPLICATION (self), entries);
}

KsApplication *
ks_application_new (void)
{
  /* before GTK starts, as `kinescope` and the benchmarks make it */
  ks_gl_off_choose ();

  return g_object_new (KS_TYPE_APPLICATION,
                       "application-id", APP_ID,
                       "flags", G_APPLICATION_HANDLES_OPEN,
                       "resource-base-path", APP_RESOURCE_PATH,
                       NULL);
}
