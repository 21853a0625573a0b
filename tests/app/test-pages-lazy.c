/* test-pages-lazy.c: the side pages are built when first shown, the
 * empty window's recent traces listed when shown
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <unistd.h>

#include "ks-compare-view.h"
#include "ks-selection-page.h"
#include "ks-side-panel.h"
#include "ks-test-gtk.h"
#include "ks-window.h"
#include "pages/ks-gaps-page.h"
#include "pages/ks-kernels-page.h"
#include "pages/ks-page.h"
#include "pages/ks-ranks-page.h"

/* loader_bound, counted with python3 from its JSON: 33 distinct names
 * among its 176 kernels (cat "kernel", ph "X"); 133 gaps over 10 µs
 * (test-pages-gaps: the union of kernels, copies and sets within the
 * ProfilerStep spans). */
#define LB_FILE "loader_bound.pt.trace.json.gz"
#define LB_N_KERNEL_NAMES 33
#define LB_N_GAPS 133
/* A second run to compare with, and a job of two ranks (two files in
 * the folder: its rank rows) */
#define CNN_FILE "seed_cnn.pt.trace.json.gz"
#define JOB_DIR "ddp_gloo_2ranks"
#define JOB_N_RANKS 2

#define WAIT_FOR(cond) KS_TEST_WAIT_FOR (cond, 20000)

static guint
count_type (GtkWidget *widget,
            GType      type)
{
  guint n = g_type_is_a (G_OBJECT_TYPE (widget), type) ? 1 : 0;

  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    n += count_type (c, type);
  return n;
}

static guint
n_rows (GtkWidget *page)
{
  GtkWidget *view = ks_test_find_descendant (page, GTK_TYPE_COLUMN_VIEW, NULL);

  g_assert_nonnull (view);
  return g_list_model_get_n_items (G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (view))));
}

/* The switcher's button for the stack page named @name: one a page, in
 * the pages' order. */
static GtkWidget *
tab_for (GtkStack   *stack,
         GtkWidget  *switcher,
         const char *name)
{
  g_autoptr(GListModel) pages = G_LIST_MODEL (gtk_stack_get_pages (stack));
  GtkWidget *tab = gtk_widget_get_first_child (switcher);

  for (guint i = 0; i < g_list_model_get_n_items (pages) && tab != NULL; i++)
    {
      g_autoptr(GObject) page = g_list_model_get_item (pages, i);

      if (g_str_equal (gtk_stack_page_get_name (GTK_STACK_PAGE (page)), name))
        return tab;
      tab = gtk_widget_get_next_sibling (tab);
    }
  return NULL;
}

static void
page_built_cb (KsSidePanel *panel,
               GtkWidget   *page,
               GPtrArray   *built)
{
  g_ptr_array_add (built, page);
}

static void
test_lazy_pages (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), LB_FILE, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GPtrArray) built = g_ptr_array_new ();
  KsWindow *window = ks_window_new (NULL);
  KsSidePanel *panel;
  GtkStack *stack;
  GtkWidget *switcher, *tab, *page;
  GtkMenuButton *pages_button;
  GMenuModel *menu;
  g_autoptr(GListModel) stack_pages = NULL;
  g_autoptr(GVariant) target = NULL;
  gboolean found = FALSE;

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  gtk_window_present (GTK_WINDOW (window));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  panel = KS_SIDE_PANEL (ks_test_find_descendant (GTK_WIDGET (window), KS_TYPE_SIDE_PANEL, NULL));
  g_assert_nonnull (panel);
  g_signal_connect (panel, "page-built", G_CALLBACK (page_built_cb), built);
  /* the Selection page is built: the stack is its slot's parent */
  stack = GTK_STACK (gtk_widget_get_ancestor (ks_side_panel_peek_page (panel, "selection"), GTK_TYPE_STACK));
  switcher = ks_test_find_descendant (GTK_WIDGET (panel), GTK_TYPE_STACK_SWITCHER, NULL);
  pages_button = GTK_MENU_BUTTON (ks_test_find_descendant (GTK_WIDGET (panel), GTK_TYPE_MENU_BUTTON, NULL));
  stack_pages = G_LIST_MODEL (gtk_stack_get_pages (stack));

  /* At launch: the Selection page alone, the panel's first */
  g_assert_cmpuint (g_list_model_get_n_items (stack_pages), ==, 17);
  g_assert_cmpuint (count_type (GTK_WIDGET (window), KS_TYPE_SELECTION_PAGE), ==, 1);
  /* nor the job's Ranks page, nor the Compare view */
  g_assert_cmpuint (count_type (GTK_WIDGET (window), KS_TYPE_PAGE), ==, 0);
  g_assert_cmpuint (count_type (GTK_WIDGET (window), KS_TYPE_COMPARE_VIEW), ==, 0);
  /* nor any menu: the Profile, main and All Pages menus come when opened */
  g_assert_cmpuint (count_type (GTK_WIDGET (window), GTK_TYPE_POPOVER_MENU), ==, 0);
  g_assert_nonnull (ks_side_panel_peek_page (panel, "selection"));
  for (guint i = 0; i < g_list_model_get_n_items (stack_pages); i++)
    {
      g_autoptr(GObject) sp = g_list_model_get_item (stack_pages, i);
      const char *name = gtk_stack_page_get_name (GTK_STACK_PAGE (sp));

      if (!g_str_equal (name, "selection"))
        g_assert_null (ks_side_panel_peek_page (panel, name));
    }
  /* and every page has its tab and its item in the All Pages menu,
   * made when the menu first opens */
  g_assert_null (gtk_menu_button_get_menu_model (pages_button));
  menu = ks_test_open_menu (pages_button);
  g_assert_cmpint (g_menu_model_get_n_items (menu), ==, 17);
  g_assert_cmpuint (count_type (GTK_WIDGET (window), GTK_TYPE_POPOVER_MENU), ==, 1);
  g_assert_nonnull (tab_for (stack, switcher, "kernels"));
  g_assert_null (gtk_widget_get_next_sibling (tab_for (stack, switcher, "selection")));

  /* A trace opens on the Summary: built, the rest not */
  ks_window_open (window, file);
  WAIT_FOR (ks_window_get_session (window) != NULL &&
            ks_session_get_analysis (ks_window_get_session (window)) != NULL);
  ks_test_wait_pages_filled (GTK_WIDGET (window));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "summary");
  g_assert_nonnull (ks_side_panel_peek_page (panel, "summary"));
  g_assert_cmpuint (count_type (GTK_WIDGET (panel), KS_TYPE_PAGE), ==, 1);
  g_assert_cmpuint (built->len, ==, 1);
  g_assert_null (ks_side_panel_peek_page (panel, "kernels"));

  /* A tab clicked: the Kernels page is built, shown and filled */
  tab = tab_for (stack, switcher, "kernels");
  g_assert_true (GTK_IS_TOGGLE_BUTTON (tab));
  g_assert_true (gtk_widget_activate (tab));
  /* a button's activation clicks it after its press is shown */
  WAIT_FOR (g_strcmp0 (gtk_stack_get_visible_child_name (stack), "kernels") == 0);
  page = ks_side_panel_peek_page (panel, "kernels");
  g_assert_true (KS_IS_KERNELS_PAGE (page));
  g_assert_true (g_ptr_array_index (built, built->len - 1) == page);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  g_assert_true (gtk_widget_get_mapped (page));
  ks_test_wait_pages_filled (GTK_WIDGET (window));
  g_assert_true (ks_page_get_analysis (KS_PAGE (page)) == ks_session_get_analysis (ks_window_get_session (window)));
  g_assert_cmpuint (n_rows (page), ==, LB_N_KERNEL_NAMES);

  /* The All Pages menu's Memory item: its action builds the page */
  g_assert_null (ks_side_panel_peek_page (panel, "memory"));
  for (int i = 0; i < g_menu_model_get_n_items (menu) && !found; i++)
    {
      g_clear_pointer (&target, g_variant_unref);
      target = g_menu_model_get_item_attribute_value (menu, i, G_MENU_ATTRIBUTE_TARGET, G_VARIANT_TYPE_STRING);
      found = target != NULL && g_str_equal (g_variant_get_string (target, NULL), "memory");
    }
  g_assert_true (found);
  g_assert_true (gtk_widget_activate_action_variant (GTK_WIDGET (pages_button), "win.show-page", target));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "memory");
  g_assert_nonnull (ks_side_panel_peek_page (panel, "memory"));
  ks_test_wait_pages_filled (GTK_WIDGET (window));

  /* ] (the next gap) reads the Gaps page's rows: built and filled on
   * the spot, all its gaps there, and the Selection page shown */
  g_assert_null (ks_side_panel_peek_page (panel, "gaps"));
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "analysis.next-gap", NULL));
  page = ks_side_panel_peek_page (panel, "gaps");
  g_assert_true (KS_IS_GAPS_PAGE (page));
  g_assert_true (ks_page_get_filled (KS_PAGE (page)));
  g_assert_cmpuint (n_rows (page), ==, LB_N_GAPS);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (stack), ==, "selection");
  g_assert_true (ks_session_get_range (ks_window_get_session (window), NULL, NULL));

  /* Pages never shown are still not built */
  g_assert_null (ks_side_panel_peek_page (panel, "critical-path"));
  g_assert_null (ks_side_panel_peek_page (panel, "roofline"));
  g_assert_cmpuint (count_type (GTK_WIDGET (panel), KS_TYPE_PAGE), ==, 4);
  g_assert_cmpuint (built->len, ==, 4);

  g_signal_handlers_disconnect_by_data (panel, built);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* The window's own pages, the Compare view and a job's Ranks page, are
 * built when first wanted too, and then follow the window's sessions. */
static void
test_lazy_window_pages (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), LB_FILE, NULL);
  g_autofree char *other_path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), CNN_FILE, NULL);
  g_autofree char *job_path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), JOB_DIR, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFile) other = g_file_new_for_path (other_path);
  g_autoptr(GFile) job = g_file_new_for_path (job_path);
  g_autoptr(KsSession) compare_session = NULL;
  KsSession *baseline = NULL, *new_run = NULL;
  g_autofree char *other_uri = g_file_get_uri (other);
  KsWindow *window = ks_window_new (NULL);
  KsCompareView *view;
  GtkWidget *ranks;
  GtkWidget *stack;

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, file);
  WAIT_FOR (ks_window_get_session (window) != NULL &&
            ks_session_get_analysis (ks_window_get_session (window)) != NULL);
  g_assert_cmpuint (count_type (GTK_WIDGET (window), KS_TYPE_COMPARE_VIEW), ==, 0);
  g_assert_cmpuint (count_type (GTK_WIDGET (window), KS_TYPE_RANKS_PAGE), ==, 0);

  /* Compare With…: its view is built, on the window's two sessions, and
   * shown once both runs are analysed */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.compare-file", "s", other_uri));
  WAIT_FOR (ks_window_get_compare_view (window) != NULL);
  g_assert_cmpuint (count_type (GTK_WIDGET (window), KS_TYPE_COMPARE_VIEW), ==, 1);
  view = KS_COMPARE_VIEW (ks_window_get_compare_view (window));
  g_object_get (window, "compare-session", &compare_session, NULL);
  g_assert_nonnull (compare_session);
  g_object_get (view, "baseline", &baseline, "session", &new_run, NULL);
  g_assert_true (baseline == ks_window_get_session (window));
  g_assert_true (new_run == compare_session);
  g_assert_true (g_file_equal (ks_session_get_file (compare_session), other));
  g_clear_object (&baseline);
  g_clear_object (&new_run);
  /* its two timelines show the two runs */
  g_assert_true (ks_session_get_trace (ks_compare_view_get_session (view, KS_COMPARE_BASE)) ==
                 ks_session_get_trace (ks_window_get_session (window)));
  g_assert_true (ks_session_get_trace (ks_compare_view_get_session (view, KS_COMPARE_NEW)) ==
                 ks_session_get_trace (compare_session));
  stack = gtk_widget_get_ancestor (GTK_WIDGET (view), GTK_TYPE_STACK);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (stack)), ==, "compare");
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  g_assert_true (gtk_widget_get_mapped (GTK_WIDGET (view)));
  /* closed, the view stays built and lets go of the new run */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.close-compare", NULL));
  g_assert_null (ks_window_get_compare_view (window));
  g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (stack)), ==, "trace");
  g_object_get (view, "session", &new_run, NULL);
  g_assert_null (new_run);
  g_assert_cmpuint (count_type (GTK_WIDGET (window), KS_TYPE_RANKS_PAGE), ==, 0);
  gtk_window_destroy (GTK_WINDOW (window));

  /* A folder of ranks over the memory bound: the job's Ranks page is
   * built when the job is shown, with the job's two ranks; the side
   * panel's Ranks page is not */
  g_setenv ("KINESCOPE_FOLDER_MEMORY_MB", "0", TRUE);
  window = ks_window_new (NULL);
  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  gtk_window_present (GTK_WINDOW (window));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  g_assert_cmpuint (count_type (GTK_WIDGET (window), KS_TYPE_RANKS_PAGE), ==, 0);
  ks_window_open (window, job);
  WAIT_FOR (!ks_window_get_loading (window));
  g_assert_nonnull (ks_window_get_summaries (window));
  g_assert_cmpuint (count_type (GTK_WIDGET (window), KS_TYPE_RANKS_PAGE), ==, 1);
  ranks = ks_test_find_descendant (GTK_WIDGET (window), KS_TYPE_RANKS_PAGE, NULL);
  stack = gtk_widget_get_ancestor (ranks, GTK_TYPE_STACK);
  g_assert_cmpstr (gtk_stack_get_visible_child_name (GTK_STACK (stack)), ==, "job");
  g_assert_true (ks_page_get_session (KS_PAGE (ranks)) == ks_window_get_session (window));
  ks_test_wait_pages_filled (GTK_WIDGET (window));
  g_assert_cmpuint (n_rows (ranks), ==, JOB_N_RANKS);
  g_assert_cmpuint (count_type (GTK_WIDGET (window), KS_TYPE_COMPARE_VIEW), ==, 0);
  g_unsetenv ("KINESCOPE_FOLDER_MEMORY_MB");
  gtk_window_destroy (GTK_WINDOW (window));
}

static void
changed_cb (GtkRecentManager *manager,
            guint            *n_changed)
{
  (*n_changed)++;
}

static guint
n_list_rows (GtkWidget *list)
{
  guint n = 0;

  while (gtk_list_box_get_row_at_index (GTK_LIST_BOX (list), (int) n) != NULL)
    n++;
  return n;
}

static gboolean
lists_title (GtkWidget  *list,
             const char *title)
{
  GtkListBoxRow *row;

  for (int i = 0; (row = gtk_list_box_get_row_at_index (GTK_LIST_BOX (list), i)) != NULL; i++)
    if (g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), title) == 0)
      return TRUE;
  return FALSE;
}

/* The rows an empty window lists: the recent files Kinescope opened that
 * still exist, five at most (the other tests here opened some too). */
static guint
n_expected_rows (GtkRecentManager *manager)
{
  GList *items = gtk_recent_manager_get_items (manager);
  guint n = 0;

  for (GList *l = items; l != NULL; l = l->next)
    if (gtk_recent_info_has_application (l->data, "Kinescope") && gtk_recent_info_exists (l->data))
      n++;
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
  return MIN (n, 5);
}

/* The empty window's recent traces are read and listed while its page
 * is shown: a window made for a file, which never shows that page, has
 * no rows even once its trace is a recent one; an empty window lists it
 * and follows the recent files while it shows them. A file joins the
 * recent ones once its window has drawn it, not at the load's end. */
static void
test_lazy_recent_list (void)
{
  g_autofree char *fixture = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), LB_FILE, NULL);
  g_autofree char *contents = NULL;
  g_autofree char *path = NULL;
  g_autofree char *name = NULL;
  g_autoptr(GFile) file = NULL;
  g_autofree char *uri = NULL;
  g_autofree char *new_path = NULL;
  g_autofree char *new_uri = NULL;
  g_autofree char *new_name = NULL;
  g_autoptr(GError) error = NULL;
  GtkRecentManager *manager;
  GtkRecentData data = { 0 };
  KsWindow *loaded, *empty;
  GtkWidget *loaded_list, *empty_list;
  guint n_changed = 0;
  gulong id;
  gsize length;
  int fd;

  /* a copy of a name of its own: not among the recent files yet */
  g_assert_true (g_file_get_contents (fixture, &contents, &length, &error));
  fd = g_file_open_tmp ("recent-XXXXXX-" LB_FILE, &path, &error);
  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (path, contents, length, &error));
  file = g_file_new_for_path (path);
  uri = g_file_get_uri (file);
  name = g_path_get_basename (path);

  /* opened as a command line's file is: loading before it is shown */
  loaded = ks_window_new (NULL);
  ks_window_open (loaded, file);
  gtk_window_present (GTK_WINDOW (loaded));
  manager = gtk_recent_manager_get_default ();
  id = g_signal_connect (manager, "changed", G_CALLBACK (changed_cb), &n_changed);
  WAIT_FOR (!ks_window_get_loading (loaded) && ks_window_get_session (loaded) != NULL);
  /* loaded, not drawn yet: reading the recent list waits */
  g_assert_false (gtk_recent_manager_has_item (manager, uri));
  WAIT_FOR (gtk_recent_manager_has_item (manager, uri));
  /* the recent files told their listeners: the window was not one */
  WAIT_FOR (n_changed > 0);
  loaded_list = ks_test_find_descendant (GTK_WIDGET (loaded), GTK_TYPE_LIST_BOX, "recent-list");
  g_assert_nonnull (loaded_list);
  g_assert_false (gtk_widget_get_mapped (loaded_list));
  g_assert_cmpuint (n_list_rows (loaded_list), ==, 0);

  /* an empty window lists the trace */
  empty = ks_window_new (NULL);
  gtk_window_present (GTK_WINDOW (empty));
  empty_list = ks_test_find_descendant (GTK_WIDGET (empty), GTK_TYPE_LIST_BOX, "recent-list");
  g_assert_nonnull (empty_list);
  WAIT_FOR (lists_title (empty_list, name));
  g_assert_cmpuint (n_list_rows (empty_list), ==, n_expected_rows (manager));

  /* and follows the recent files while it shows them: a file opened
   * meanwhile (by another window) comes first */
  fd = g_file_open_tmp ("recent-XXXXXX.pt.trace.json", &new_path, &error);
  g_assert_no_error (error);
  close (fd);
  new_uri = g_filename_to_uri (new_path, NULL, &error);
  g_assert_no_error (error);
  new_name = g_path_get_basename (new_path);
  data.mime_type = (char *) "application/json";
  data.app_name = (char *) "Kinescope";
  data.app_exec = (char *) "kinescope %u";
  g_assert_true (gtk_recent_manager_add_full (manager, new_uri, &data));
  WAIT_FOR (lists_title (empty_list, new_name));
  g_assert_cmpuint (n_list_rows (empty_list), ==, n_expected_rows (manager));
  g_assert_cmpuint (n_list_rows (loaded_list), ==, 0);

  g_signal_handler_disconnect (manager, id);
  gtk_window_destroy (GTK_WINDOW (loaded));
  gtk_window_destroy (GTK_WINDOW (empty));
  g_unlink (new_path);
  g_unlink (path);
}

int
main (int   argc,
      char *argv[])
{
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;

  g_test_add_func ("/app/pages/lazy", test_lazy_pages);
  g_test_add_func ("/app/pages/lazy-window-pages", test_lazy_window_pages);
  g_test_add_func ("/app/pages/lazy-recent-list", test_lazy_recent_list);

  return g_test_run ();
}
