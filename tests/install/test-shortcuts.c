/* test-shortcuts.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The Keyboard Shortcuts window (gtk/help-overlay.ui) against the real
 * application, under Xvfb, with a trace loaded:
 *
 *  - the window finds it at the resource path GTK looks at, and Ctrl+?
 *    opens it (win.show-help-overlay);
 *  - every action it names exists, on the application or the window, and
 *    has a key;
 *  - every key it lists is bound to something;
 *  - every key bound to an action, by the application (accelerators) or by
 *    one of our widgets (class key bindings and shortcut controllers our
 *    code adds), is listed.
 *
 * Keypad keys and Ctrl+= are alternatives of the keys listed. */

#include "config.h"

#include <adwaita.h>

#include "ks-about.h"
#include "ks-application.h"
#include "ks-preferences-window.h"
#include "ks-record-dialog.h"
#include "ks-test-gtk.h"
#include "ks-test-log.h"
#include "ks-window.h"

typedef struct
{
  KsApplication *app;
  KsWindow      *window;
  GHashTable    *bound;       /* normalised accelerator -> action name, what exists */
  GHashTable    *listed;      /* normalised accelerator -> title, what the window lists */
  GHashTable    *our_actions; /* action names installed by Ks classes */
  GPtrArray     *listed_actions;
} Fixture;

/* The key a binding is listed under: keypad and shifted variants fold
 * into the key the help shows. */
static char *
normalise (guint           keyval,
           GdkModifierType mods)
{
  switch (keyval)
    {
    case GDK_KEY_KP_Add:
    case GDK_KEY_equal:
      keyval = GDK_KEY_plus;
      break;
    case GDK_KEY_KP_Subtract:
      keyval = GDK_KEY_minus;
      break;
    case GDK_KEY_KP_0:
      keyval = GDK_KEY_0;
      break;
    case GDK_KEY_KP_Enter:
    case GDK_KEY_ISO_Enter:
      keyval = GDK_KEY_Return;
      break;
    default:
      break;
    }

  keyval = gdk_keyval_to_lower (keyval);
  return gtk_accelerator_name (keyval, mods & gtk_accelerator_get_default_mod_mask ());
}

static char *
normalise_string (const char *accel)
{
  guint keyval = 0;
  GdkModifierType mods = 0;

  if (!gtk_accelerator_parse (accel, &keyval, &mods) || keyval == 0)
    return NULL;

  return normalise (keyval, mods);
}

static gboolean
is_our_type (GType type)
{
  return g_str_has_prefix (g_type_name (type), "Ks");
}

/* Actions installed by our classes (gtk_widget_class_install_action),
 * not those GTK's own parent classes install. */
static void
collect_class_actions (GType       type,
                       GHashTable *actions)
{
  GtkWidgetClass *klass = g_type_class_ref (type);
  const char *name;
  const GVariantType *param;
  const char *property;
  GType owner;

  for (guint i = 0; gtk_widget_class_query_action (klass, i, &owner, &name, &param, &property); i++)
    if (is_our_type (owner))
      g_hash_table_add (actions, g_strdup (name));

  g_type_class_unref (klass);
}

static void
add_trigger (Fixture    *fixture,
             GtkShortcutTrigger *trigger,
             const char *action)
{
  if (GTK_IS_KEYVAL_TRIGGER (trigger))
    {
      GtkKeyvalTrigger *kt = GTK_KEYVAL_TRIGGER (trigger);

      g_hash_table_insert (fixture->bound,
                           normalise (gtk_keyval_trigger_get_keyval (kt),
                                      gtk_keyval_trigger_get_modifiers (kt)),
                           g_strdup (action));
    }
  else if (GTK_IS_ALTERNATIVE_TRIGGER (trigger))
    {
      add_trigger (fixture, gtk_alternative_trigger_get_first (GTK_ALTERNATIVE_TRIGGER (trigger)), action);
      add_trigger (fixture, gtk_alternative_trigger_get_second (GTK_ALTERNATIVE_TRIGGER (trigger)), action);
    }
}

/* Key bindings of our widgets: the class shortcut controllers of every Ks
 * widget in the window whose action is one of our actions. */
static void
collect_shortcuts (Fixture            *fixture,
                   GtkEventController *controller,
                   gboolean            only_ours)
{
  for (guint j = 0; j < g_list_model_get_n_items (G_LIST_MODEL (controller)); j++)
    {
      g_autoptr(GtkShortcut) shortcut = g_list_model_get_item (G_LIST_MODEL (controller), j);
      GtkShortcutAction *action = gtk_shortcut_get_action (shortcut);
      const char *name;

      if (!GTK_IS_NAMED_ACTION (action))
        continue;
      name = gtk_named_action_get_action_name (GTK_NAMED_ACTION (action));
      if (only_ours && !g_hash_table_contains (fixture->our_actions, name))
        continue;
      add_trigger (fixture, gtk_shortcut_get_trigger (shortcut), name);
    }
}

static void
collect_widget_bindings (Fixture   *fixture,
                         GtkWidget *widget)
{
  GtkWidget *child;

  /* GTK's own widgets: the shortcut controllers our code adds to them
   * (named "ks-…"), and Enter in the search entry, whose activation our
   * code handles. */
  if (!is_our_type (G_OBJECT_TYPE (widget)))
    {
      g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

      for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
        {
          g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, i);

          if (GTK_IS_SHORTCUT_CONTROLLER (controller) &&
              g_str_has_prefix (gtk_event_controller_get_name (controller) ?: "", "ks-"))
            collect_shortcuts (fixture, controller, FALSE);
        }
      if (GTK_IS_SEARCH_ENTRY (widget) &&
          g_signal_has_handler_pending (widget, g_signal_lookup ("activate", GTK_TYPE_SEARCH_ENTRY), 0, FALSE))
        g_hash_table_insert (fixture->bound, normalise (GDK_KEY_Return, 0), g_strdup ("activate"));
    }

  if (is_our_type (G_OBJECT_TYPE (widget)))
    {
      g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

      collect_class_actions (G_OBJECT_TYPE (widget), fixture->our_actions);

      for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
        {
          g_autoptr(GtkEventController) controller = g_list_model_get_item (controllers, i);

          if (!GTK_IS_SHORTCUT_CONTROLLER (controller))
            continue;
          /* Class key bindings include GTK's own; controllers our code
           * adds hold only ours. */
          collect_shortcuts (fixture, controller,
                             g_strcmp0 (gtk_event_controller_get_name (controller),
                                        "gtk-widget-class-shortcuts") == 0);
        }
    }

  for (child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    collect_widget_bindings (fixture, child);
}

static void
collect_app_accels (Fixture *fixture)
{
  g_auto(GStrv) actions = gtk_application_list_action_descriptions (GTK_APPLICATION (fixture->app));

  for (guint i = 0; actions[i]; i++)
    {
      g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (fixture->app), actions[i]);

      for (guint j = 0; accels[j]; j++)
        {
          char *key = normalise_string (accels[j]);

          g_assert_nonnull (key);
          g_hash_table_insert (fixture->bound, key, g_strdup (actions[i]));
        }
    }
}

static void
collect_listed (Fixture   *fixture,
                GtkWidget *widget)
{
  GtkWidget *child;

  if (GTK_IS_SHORTCUTS_SHORTCUT (widget))
    {
      g_autofree char *title = NULL;
      g_autofree char *accelerator = NULL;
      g_autofree char *action_name = NULL;
      GtkShortcutType type;

      g_object_get (widget,
                    "title", &title,
                    "accelerator", &accelerator,
                    "action-name", &action_name,
                    "shortcut-type", &type,
                    NULL);

      if (action_name != NULL)
        g_ptr_array_add (fixture->listed_actions, g_strdup (action_name));

      if (type == GTK_SHORTCUT_ACCELERATOR && accelerator != NULL)
        {
          g_auto(GStrv) accels = g_strsplit (accelerator, " ", -1);

          for (guint i = 0; accels[i]; i++)
            {
              char *key;

              if (accels[i][0] == '\0')
                continue;
              key = normalise_string (accels[i]);
              if (key == NULL)
                g_error ("“%s” lists an accelerator GTK cannot parse: %s", title, accels[i]);
              g_hash_table_insert (fixture->listed, key, g_strdup (title));
            }
        }
      else
        g_assert_true (type != GTK_SHORTCUT_ACCELERATOR || action_name != NULL);
    }

  for (child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    collect_listed (fixture, child);
}

static void
iterate_until_loaded (KsWindow *window)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  while (ks_window_get_loading (window) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_false (ks_window_get_loading (window));
}

static KsApplication *application;

/* One application per process: it sets the application name. */
static KsApplication *
ensure_application (void)
{
  g_autoptr(GError) error = NULL;

  if (application == NULL)
    {
      application = ks_application_new ();
      /* No session bus under test: run as a non-unique instance. */
      g_application_set_flags (G_APPLICATION (application),
                               g_application_get_flags (G_APPLICATION (application)) | G_APPLICATION_NON_UNIQUE);
      g_application_register (G_APPLICATION (application), NULL, &error);
      g_assert_no_error (error);
    }

  return application;
}

static void
fixture_set_up (Fixture       *fixture,
                gconstpointer  data)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"),
                                            "loader_bound.pt.trace.json.gz", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);

  fixture->app = ensure_application ();

  fixture->window = ks_window_new (GTK_APPLICATION (fixture->app));
  gtk_window_present (GTK_WINDOW (fixture->window));
  ks_window_open (fixture->window, file);
  iterate_until_loaded (fixture->window);

  fixture->bound = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  fixture->listed = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  fixture->our_actions = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  fixture->listed_actions = g_ptr_array_new_with_free_func (g_free);
}

static void
fixture_tear_down (Fixture       *fixture,
                   gconstpointer  data)
{
  gtk_window_destroy (GTK_WINDOW (fixture->window));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_clear_pointer (&fixture->bound, g_hash_table_unref);
  g_clear_pointer (&fixture->listed, g_hash_table_unref);
  g_clear_pointer (&fixture->our_actions, g_hash_table_unref);
  g_clear_pointer (&fixture->listed_actions, g_ptr_array_unref);
}

static GtkShortcutsWindow *
get_help_overlay (Fixture *fixture)
{
  GtkShortcutsWindow *overlay = gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (fixture->window));

  /* GtkApplication loads gtk/help-overlay.ui under the resource base path. */
  g_assert_nonnull (overlay);
  return overlay;
}

static void
test_shortcuts_window_opens (Fixture       *fixture,
                             gconstpointer  data)
{
  GtkShortcutsWindow *overlay = get_help_overlay (fixture);
  g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (fixture->app),
                                                                "win.show-help-overlay");
  int width, height;

  g_assert_cmpuint (g_strv_length (accels), >=, 1);
  g_assert_cmpstr (accels[0], ==, "<Control>question");

  g_assert_false (gtk_widget_get_visible (GTK_WIDGET (overlay)));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (fixture->window), "win.show-help-overlay", NULL));
  while (g_main_context_iteration (NULL, FALSE))
    ;
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (overlay)));

  /* It cannot be resized, so its natural size is what the user gets: it
   * must fit the smallest screen the window supports. */
  gtk_widget_measure (GTK_WIDGET (overlay), GTK_ORIENTATION_HORIZONTAL, -1, NULL, &width, NULL, NULL);
  gtk_widget_measure (GTK_WIDGET (overlay), GTK_ORIENTATION_VERTICAL, width, NULL, &height, NULL, NULL);
  g_test_message ("shortcuts window %d×%d", width, height);
  g_assert_cmpint (width, <=, 800);
  g_assert_cmpint (height, <=, 600);
  gtk_widget_set_visible (GTK_WIDGET (overlay), FALSE);
}

static gboolean
action_exists (Fixture    *fixture,
               const char *name)
{
  if (g_str_has_prefix (name, "app."))
    return g_action_group_has_action (G_ACTION_GROUP (fixture->app), name + 4);

  if (g_str_has_prefix (name, "win.") &&
      g_action_group_has_action (G_ACTION_GROUP (fixture->window), name + 4))
    return TRUE;

  return g_hash_table_contains (fixture->our_actions, name);
}

static void
test_shortcuts_listed_exist (Fixture       *fixture,
                             gconstpointer  data)
{
  GtkShortcutsWindow *overlay = get_help_overlay (fixture);
  GHashTableIter iter;
  gpointer key, value;

  collect_widget_bindings (fixture, GTK_WIDGET (fixture->window));
  collect_app_accels (fixture);
  collect_listed (fixture, GTK_WIDGET (overlay));

  g_assert_cmpuint (fixture->listed_actions->len, >=, 4);
  g_assert_cmpuint (g_hash_table_size (fixture->listed), >=, 10);

  for (guint i = 0; i < fixture->listed_actions->len; i++)
    {
      const char *name = g_ptr_array_index (fixture->listed_actions, i);
      g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (fixture->app), name);

      if (!action_exists (fixture, name))
        g_error ("the shortcuts window lists %s, which does not exist", name);
      if (accels[0] == NULL)
        g_error ("the shortcuts window lists %s, which has no accelerator", name);
    }

  g_hash_table_iter_init (&iter, fixture->listed);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (!g_hash_table_contains (fixture->bound, key))
      g_error ("the shortcuts window lists %s (“%s”), but nothing is bound to it",
               (char *)key, (char *)value);
}

static void
test_shortcuts_bound_are_listed (Fixture       *fixture,
                                 gconstpointer  data)
{
  GtkShortcutsWindow *overlay = get_help_overlay (fixture);
  GHashTableIter iter;
  gpointer key, value;
  guint n_bound;

  collect_widget_bindings (fixture, GTK_WIDGET (fixture->window));
  collect_app_accels (fixture);
  collect_listed (fixture, GTK_WIDGET (overlay));

  /* Listed by action name: their accelerators count as listed. */
  for (guint i = 0; i < fixture->listed_actions->len; i++)
    {
      g_auto(GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (fixture->app),
                                                                    g_ptr_array_index (fixture->listed_actions, i));

      for (guint j = 0; accels[j]; j++)
        g_hash_table_insert (fixture->listed, normalise_string (accels[j]),
                             g_strdup (g_ptr_array_index (fixture->listed_actions, i)));
    }

  n_bound = g_hash_table_size (fixture->bound);
  g_test_message ("%u keys bound, %u listed", n_bound, g_hash_table_size (fixture->listed));
  g_assert_cmpuint (n_bound, >=, 10);

  g_hash_table_iter_init (&iter, fixture->bound);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (!g_hash_table_contains (fixture->listed, key))
      g_error ("%s is bound to %s but the shortcuts window does not list it",
               (char *)key, (char *)value);
}

static GtkWidget *
find_group (GtkWidget  *widget,
            const char *title)
{
  if (GTK_IS_SHORTCUTS_GROUP (widget))
    {
      g_autofree char *group_title = NULL;

      g_object_get (widget, "title", &group_title, NULL);
      if (g_strcmp0 (group_title, title) == 0)
        return widget;
    }
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_group (child, title);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The window opens on a page with the search keys, Enter and Shift+Enter
 * among them, beside the idle gaps'. */
static void
test_shortcuts_search_first_page (Fixture       *fixture,
                                  gconstpointer  data)
{
  GtkShortcutsWindow *overlay = get_help_overlay (fixture);
  GtkWidget *section, *stack, *first_page, *group;
  GHashTable *saved;
  g_autoptr(GHashTable) keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);

  gtk_widget_set_visible (GTK_WIDGET (overlay), TRUE);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  section = ks_test_find_descendant (GTK_WIDGET (overlay), GTK_TYPE_SHORTCUTS_SECTION, NULL);
  g_assert_nonnull (section);
  stack = ks_test_find_descendant (section, GTK_TYPE_STACK, NULL);
  g_assert_nonnull (stack);

  /* The section pages its groups into the stack, in order. */
  first_page = gtk_widget_get_first_child (stack);
  g_assert_true (gtk_stack_get_visible_child (GTK_STACK (stack)) == first_page);
  g_assert_nonnull (find_group (first_page, "Idle Gaps"));
  group = find_group (first_page, "Search");
  if (group == NULL)
    g_error ("the Search group is not on the shortcuts window's first page");

  saved = fixture->listed;
  fixture->listed = keys;
  collect_listed (fixture, group);
  fixture->listed = saved;
  g_assert_cmpstr (g_hash_table_lookup (keys, "Return"), ==, "Next match");
  g_assert_cmpstr (g_hash_table_lookup (keys, "<Shift>Return"), ==, "Previous match");
  g_assert_cmpstr (g_hash_table_lookup (keys, "<Control>f"), ==, "Find slices by name");
  gtk_widget_set_visible (GTK_WIDGET (overlay), FALSE);
}

static void
collect_menu_actions (GMenuModel *model,
                      GPtrArray  *actions)
{
  for (int i = 0; i < g_menu_model_get_n_items (model); i++)
    {
      g_autoptr(GMenuLinkIter) links = g_menu_model_iterate_item_links (model, i);
      char *action = NULL;

      if (g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_ACTION, "s", &action))
        g_ptr_array_add (actions, action);
      while (g_menu_link_iter_next (links))
        {
          g_autoptr(GMenuModel) link = g_menu_link_iter_get_value (links);

          collect_menu_actions (link, actions);
        }
    }
}

static GtkMenuButton *
find_primary_menu_button (GtkWidget *widget)
{
  GtkWidget *child;

  if (GTK_IS_MENU_BUTTON (widget) && gtk_menu_button_get_primary (GTK_MENU_BUTTON (widget)))
    return GTK_MENU_BUTTON (widget);
  for (child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkMenuButton *found = find_primary_menu_button (child);

      if (found)
        return found;
    }
  return NULL;
}

static GtkWindow *
find_toplevel (GType type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (window, type) && gtk_widget_get_visible (GTK_WIDGET (window)))
        return window;
    }
  return NULL;
}

/* The primary menu offers Preferences, Keyboard Shortcuts and About, and
 * each opens its window. */
static void
test_primary_menu (Fixture       *fixture,
                   gconstpointer  data)
{
  GtkMenuButton *button = find_primary_menu_button (GTK_WIDGET (fixture->window));
  g_autoptr(GPtrArray) actions = g_ptr_array_new_with_free_func (g_free);
  const char *wanted[] = { "app.preferences", "win.show-help-overlay", "app.about" };
  GtkWindow *prefs, *about;
  g_autofree char *debug_info = NULL;
  g_autofree char *version = NULL;

  g_assert_nonnull (button);
  collect_menu_actions (ks_test_open_menu (button), actions);
  for (guint i = 0; i < G_N_ELEMENTS (wanted); i++)
    {
      gboolean found = FALSE;

      for (guint j = 0; j < actions->len; j++)
        found |= g_str_equal (g_ptr_array_index (actions, j), wanted[i]);
      if (!found)
        g_error ("the primary menu lacks %s", wanted[i]);
      g_assert_true (action_exists (fixture, wanted[i]));
    }

  g_action_group_activate_action (G_ACTION_GROUP (fixture->app), "preferences", NULL);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  prefs = find_toplevel (KS_TYPE_PREFERENCES_WINDOW);
  g_assert_nonnull (prefs);
  g_assert_true (gtk_window_get_transient_for (prefs) == GTK_WINDOW (fixture->window));
  gtk_window_destroy (prefs);

  g_action_group_activate_action (G_ACTION_GROUP (fixture->app), "about", NULL);
  while (g_main_context_iteration (NULL, FALSE))
    ;
  about = find_toplevel (ADW_TYPE_ABOUT_WINDOW);
  g_assert_nonnull (about);
  g_object_get (about, "debug-info", &debug_info, "version", &version, NULL);
  g_assert_cmpstr (version, ==, PACKAGE_VERSION);
  g_assert_nonnull (strstr (debug_info, "GTK 4."));
  g_assert_nonnull (strstr (debug_info, "SQLite 3."));
  g_assert_nonnull (strstr (debug_info, "yajl 2."));
  gtk_window_destroy (about);
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

/* Polled until the dialog is there (the application opens it once it has
 * started), so the test waits for the dialog, not for a guess of time. */
static gboolean
check_record_dialog_cb (gpointer user_data)
{
  gboolean *found = user_data;
  GtkWindow *dialog = find_toplevel (KS_TYPE_RECORD_DIALOG);
  GListModel *toplevels = gtk_window_get_toplevels ();

  if (dialog == NULL)
    return G_SOURCE_CONTINUE;
  *found = KS_IS_WINDOW (gtk_window_get_transient_for (dialog));

  /* Close everything; the application then quits. */
  for (guint i = g_list_model_get_n_items (toplevels); i > 0; i--)
    {
      g_autoptr(GtkWindow) window = g_list_model_get_item (toplevels, i - 1);

      gtk_window_destroy (window);
    }
  g_application_quit (G_APPLICATION (application));

  return G_SOURCE_REMOVE;
}

/* `kinescope --record`, the desktop file's "Record New Session" action,
 * opens a window with the Record New Session dialog on it. */
static void
test_record_option (void)
{
  char *argv[] = { (char *)"kinescope", (char *)"--record", NULL };
  gboolean found = FALSE;
  int status;

  ensure_application ();
  g_assert_true (g_action_group_has_action (G_ACTION_GROUP (application), "record"));
  g_timeout_add (20, check_record_dialog_cb, &found);
  status = g_application_run (G_APPLICATION (application), 2, argv);

  g_assert_cmpint (status, ==, 0);
  g_assert_true (found);
}

int
main (int   argc,
      char *argv[])
{
  g_log_set_writer_func (ks_test_log_writer, NULL, NULL);
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  g_test_add ("/shortcuts/window-opens", Fixture, NULL,
              fixture_set_up, test_shortcuts_window_opens, fixture_tear_down);
  g_test_add ("/shortcuts/listed-exist", Fixture, NULL,
              fixture_set_up, test_shortcuts_listed_exist, fixture_tear_down);
  g_test_add ("/shortcuts/bound-are-listed", Fixture, NULL,
              fixture_set_up, test_shortcuts_bound_are_listed, fixture_tear_down);

  g_test_add ("/shortcuts/search-first-page", Fixture, NULL,
              fixture_set_up, test_shortcuts_search_first_page, fixture_tear_down);
  g_test_add ("/menu/primary", Fixture, NULL,
              fixture_set_up, test_primary_menu, fixture_tear_down);
  g_test_add_func ("/app/record-option", test_record_option);

  return g_test_run ();
}
