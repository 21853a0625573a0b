/* test-i18n.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Starts the application under Xvfb with LANGUAGE=zh_CN and the catalogue
 * built in the build tree (<build>/po/zh_CN/LC_MESSAGES/kinescope.mo), and
 * finds the Chinese labels in the window, its menu, the Preferences and
 * Keyboard Shortcuts windows, and the GSettings schema; the English
 * originals are gone. */

#include "config.h"

#include <adwaita.h>
#include <string.h>
#include <glib/gi18n.h>
#include <inttypes.h>
#include <locale.h>

#include "ks-application.h"
#include "ks-preferences-window.h"
#include "ks-selection-page.h"
#include "ks-test-gtk.h"
#include "ks-test-log.h"
#include "ks-window.h"

#ifdef HAVE_XTST
#include <gdk/x11/gdkx.h>
#include <X11/extensions/XTest.h>
#endif

static KsApplication *application;

static void
collect_menu (GMenuModel *model,
              GPtrArray  *texts)
{
  for (int i = 0; i < g_menu_model_get_n_items (model); i++)
    {
      g_autoptr(GMenuLinkIter) links = NULL;
      char *label = NULL;

      if (g_menu_model_get_item_attribute (model, i, G_MENU_ATTRIBUTE_LABEL, "s", &label))
        g_ptr_array_add (texts, label);

      links = g_menu_model_iterate_item_links (model, i);
      while (g_menu_link_iter_next (links))
        {
          g_autoptr(GMenuModel) link = g_menu_link_iter_get_value (links);

          collect_menu (link, texts);
        }
    }
}

/* Every text a user can read in @widget and below it. */
static void
collect_texts (GtkWidget *widget,
               GPtrArray *texts)
{
  GtkWidget *child;
  const char *tooltip = gtk_widget_get_tooltip_text (widget);

  if (tooltip != NULL)
    g_ptr_array_add (texts, g_strdup (tooltip));

  if (GTK_IS_LABEL (widget))
    g_ptr_array_add (texts, g_strdup (gtk_label_get_label (GTK_LABEL (widget))));
  else if (GTK_IS_BUTTON (widget) && gtk_button_get_label (GTK_BUTTON (widget)) != NULL)
    g_ptr_array_add (texts, g_strdup (gtk_button_get_label (GTK_BUTTON (widget))));
  else if (ADW_IS_STATUS_PAGE (widget))
    {
      if (adw_status_page_get_title (ADW_STATUS_PAGE (widget)))
        g_ptr_array_add (texts, g_strdup (adw_status_page_get_title (ADW_STATUS_PAGE (widget))));
      if (adw_status_page_get_description (ADW_STATUS_PAGE (widget)))
        g_ptr_array_add (texts, g_strdup (adw_status_page_get_description (ADW_STATUS_PAGE (widget))));
    }
  else if (ADW_IS_PREFERENCES_ROW (widget))
    g_ptr_array_add (texts, g_strdup (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget))));
  else if (GTK_IS_MENU_BUTTON (widget) && ks_test_open_menu (GTK_MENU_BUTTON (widget)))
    collect_menu (gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (widget)), texts);
  else if (GTK_IS_WINDOW (widget) && gtk_window_get_title (GTK_WINDOW (widget)))
    g_ptr_array_add (texts, g_strdup (gtk_window_get_title (GTK_WINDOW (widget))));

  for (child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    collect_texts (child, texts);
}

static GPtrArray *
texts_of (GtkWidget *widget)
{
  GPtrArray *texts = g_ptr_array_new_with_free_func (g_free);

  collect_texts (widget, texts);
  return texts;
}

static gboolean
has_text (GPtrArray  *texts,
          const char *text)
{
  for (guint i = 0; i < texts->len; i++)
    if (g_strcmp0 (g_ptr_array_index (texts, i), text) == 0)
      return TRUE;
  return FALSE;
}

static void
assert_text (GPtrArray  *texts,
             const char *text)
{
  if (!has_text (texts, text))
    {
      for (guint i = 0; i < texts->len; i++)
        g_test_message ("text: %s", (char *)g_ptr_array_index (texts, i));
      g_error ("“%s” is not shown", text);
    }
}

static void
assert_no_text (GPtrArray  *texts,
                const char *text)
{
  if (has_text (texts, text))
    g_error ("“%s” is shown untranslated", text);
}

/* Labels of @widget and below whose text Pango has no glyph for (drawn
 * as boxes); the labels with CJK text are counted in @n_cjk. */
static guint
count_missing_glyphs (GtkWidget *widget,
                      guint     *n_cjk)
{
  guint missing = 0;

  if (GTK_IS_LABEL (widget) && gtk_widget_get_mapped (widget))
    {
      const char *text = gtk_label_get_text (GTK_LABEL (widget));
      int unknown = pango_layout_get_unknown_glyphs_count (gtk_label_get_layout (GTK_LABEL (widget)));

      for (const char *p = text; *p; p = g_utf8_next_char (p))
        if (g_unichar_get_script (g_utf8_get_char (p)) == G_UNICODE_SCRIPT_HAN)
          {
            (*n_cjk)++;
            break;
          }
      if (unknown > 0)
        {
          g_test_message ("“%s”: %d characters without a glyph", text, unknown);
          missing++;
        }
    }

  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    missing += count_missing_glyphs (child, n_cjk);
  return missing;
}

static void
iterate (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static KsWindow *
new_window (void)
{
  KsWindow *window = ks_window_new (GTK_APPLICATION (application));

  gtk_window_present (GTK_WINDOW (window));
  iterate ();
  return window;
}

static void
test_i18n_catalogue (void)
{
  /* The catalogue is found and used for our domain. */
  g_assert_cmpstr (_("Preferences"), ==, "首选项");
  g_assert_cmpstr (g_dgettext (GETTEXT_PACKAGE, "Idle gap threshold"), ==, "空闲间隙阈值");
  /* Messages with <inttypes.h> macros are found and keep their conversion. */
  g_assert_cmpstr (_("%s (%" PRIu64 " bytes)"), ==, "%s（%" PRIu64 " 字节）");
}

static void
test_i18n_empty_window (void)
{
  KsWindow *window = new_window ();
  g_autoptr(GPtrArray) texts = texts_of (GTK_WIDGET (window));

  /* The empty state, the header bar, and the primary menu. */
  assert_text (texts, "打开跟踪文件");
  assert_text (texts, "打开(_O)");
  assert_text (texts, "首选项(_P)");
  assert_text (texts, "键盘快捷键(_K)");
  assert_text (texts, "关于 Kinescope(_A)");
  assert_text (texts, "打开跟踪文件（Ctrl+O）");
  assert_no_text (texts, "Open a Trace");
  assert_no_text (texts, "_Open");
  assert_no_text (texts, "_Preferences");

  gtk_window_destroy (GTK_WINDOW (window));
  iterate ();
}

static void
test_i18n_loaded_window (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"),
                                            "loader_bound.pt.trace.json.gz", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  KsWindow *window = new_window ();
  g_autoptr(GPtrArray) texts = NULL;

  ks_window_open (window, file);
  while (ks_window_get_loading (window) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (ks_window_get_loading (window));
  iterate ();

  /* The side panel: its analysis pages and the empty selection page. */
  texts = texts_of (GTK_WIDGET (window));
  assert_text (texts, "未选中任何内容");
  assert_text (texts, "概览");
  assert_text (texts, "间隙");
  assert_text (texts, "算子");
  assert_text (texts, "内核");
  assert_no_text (texts, "Nothing Selected");
  assert_no_text (texts, "Summary");

  /* A font has every character shown (build-aux/install-deps.sh installs
   * one for Chinese): no label is drawn with boxes. */
  {
    guint n_cjk = 0;

    gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
    g_assert_cmpuint (count_missing_glyphs (GTK_WIDGET (window), &n_cjk), ==, 0);
    g_assert_cmpuint (n_cjk, >=, 10);
  }

  /* The tables' Chinese titles fit the side panel at the default window
   * size as the English ones do (test-window's tables-fit). */
  {
    static const char *const pages[] = { "gaps", "operators", "kernels", "memory" };
    int width, height;

    gtk_window_get_default_size (GTK_WINDOW (window), &width, &height);
    g_assert_cmpint (width, ==, 1280);
    for (guint p = 0; p < G_N_ELEMENTS (pages); p++)
      {
        ks_window_show_page (window, pages[p]);
        gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
        g_assert_true (ks_test_columns_fit (ks_window_get_page (window, pages[p])));
      }
  }

  /* The timeline's rows too: Kineto's "thread 455 (python3)" and the
   * memory rows it names. */
  {
    KsTimelineLayout *layout = ks_timeline_get_layout (ks_window_get_timeline (window));
    gboolean thread = FALSE, memory = FALSE;

    for (guint r = 0; r < ks_timeline_layout_get_n_rows (layout); r++)
      {
        const char *label = ks_timeline_layout_get_row (layout, r)->label;

        g_assert_null (strstr (label, "thread "));
        thread |= g_str_equal (label, "线程 455 (python3)");
        memory |= g_str_has_prefix (label, "GPU 0 上已分配，峰值 ");
      }
    g_assert_true (thread);
    g_assert_true (memory);
  }

  gtk_window_destroy (GTK_WINDOW (window));
  iterate ();
}

/* nvidia-smi's and NVML's counter rows keep their English names in the
 * trace; the timeline's labels are Chinese (dmon --gpm-metrics on an
 * H200: NVML's rows and GPM's). */
static void
test_i18n_counter_rows (void)
{
  static const char *const expected[] = {
    "GPU 利用率 (%)", "GPU 功率 (W)", "GPU 温度 (°C)", "图形时钟 (MHz)", "SM 活跃度 (%)",
    "张量核心活跃度 (%)", "SM 占用率 (%)", "DRAM 活跃度 (%)",
  };
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "nvsmi_h200_dmon_gpm.txt", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  KsWindow *window = new_window ();
  KsTimelineLayout *layout;
  KsTrace *trace;
  guint found = 0, counters = 0;

  ks_window_open (window, file);
  while (ks_window_get_loading (window) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_false (ks_window_get_loading (window));
  iterate ();

  trace = ks_session_get_trace (ks_window_get_session (window));
  g_assert_nonnull (trace);
  g_assert_cmpuint (ks_trace_lookup_string (trace, "GPU utilization"), !=, 0);
  layout = ks_timeline_get_layout (ks_window_get_timeline (window));
  for (guint r = 0; r < ks_timeline_layout_get_n_rows (layout); r++)
    {
      const KsRow *row = ks_timeline_layout_get_row (layout, r);

      if (row->kind != KS_ROW_COUNTER)
        continue;
      counters++;
      /* no English word is left in a counter row's name (units stay) */
      for (const char *p = row->label; *p && !g_str_has_prefix (p, " ("); p++)
        g_assert_false (g_ascii_islower (*p));
      for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
        found += g_str_equal (row->label, expected[i]);
    }
  g_assert_cmpuint (counters, >=, G_N_ELEMENTS (expected));
  g_assert_cmpuint (found, ==, G_N_ELEMENTS (expected));

  gtk_window_destroy (GTK_WINDOW (window));
  iterate ();
}

static void
test_i18n_preferences (void)
{
  GtkWidget *prefs = ks_preferences_window_new (NULL, NULL);
  g_autoptr(GPtrArray) texts = NULL;

  gtk_window_present (GTK_WINDOW (prefs));
  iterate ();
  texts = texts_of (prefs);

  assert_text (texts, "首选项");
  assert_text (texts, "最短间隙");
  assert_text (texts, "将内存拷贝计为忙碌");
  assert_text (texts, "间隙列表排序");
  assert_no_text (texts, "Minimum Gap");

  gtk_window_destroy (GTK_WINDOW (prefs));
  iterate ();
}

static void
test_i18n_shortcuts (void)
{
  KsWindow *window = new_window ();
  GtkShortcutsWindow *overlay = gtk_application_window_get_help_overlay (GTK_APPLICATION_WINDOW (window));
  g_autoptr(GPtrArray) texts = NULL;
  g_autoptr(GPtrArray) titles = g_ptr_array_new_with_free_func (g_free);
  GtkWidget *w;
  int width, height;

  g_assert_nonnull (overlay);
  /* Titles of GtkShortcutsShortcut and GtkShortcutsGroup are properties. */
  texts = texts_of (GTK_WIDGET (overlay));
  for (w = GTK_WIDGET (overlay); w != NULL; )
    {
      if (GTK_IS_SHORTCUTS_SHORTCUT (w) || GTK_IS_SHORTCUTS_GROUP (w))
        {
          char *title = NULL;

          g_object_get (w, "title", &title, NULL);
          g_ptr_array_add (titles, title);
        }

      /* Depth-first walk without recursion. */
      if (gtk_widget_get_first_child (w))
        w = gtk_widget_get_first_child (w);
      else
        {
          while (w != NULL && w != GTK_WIDGET (overlay) && gtk_widget_get_next_sibling (w) == NULL)
            w = gtk_widget_get_parent (w);
          w = (w == NULL || w == GTK_WIDGET (overlay)) ? NULL : gtk_widget_get_next_sibling (w);
        }
    }

  assert_text (titles, "常规");
  assert_text (titles, "时间线");
  assert_text (titles, "打开跟踪文件");
  assert_text (titles, "适应整个跟踪");
  assert_no_text (titles, "Fit the whole trace");

  /* The translated titles are wider: the window must still fit 800×600. */
  gtk_widget_measure (GTK_WIDGET (overlay), GTK_ORIENTATION_HORIZONTAL, -1, NULL, &width, NULL, NULL);
  gtk_widget_measure (GTK_WIDGET (overlay), GTK_ORIENTATION_VERTICAL, width, NULL, &height, NULL, NULL);
  g_assert_cmpint (width, <=, 800);
  g_assert_cmpint (height, <=, 600);

  gtk_window_destroy (GTK_WINDOW (window));
  iterate ();
}

#ifdef HAVE_XTST
/* The label of the tooltip GTK shows for @widget when the pointer rests
 * on it (moved there through the X server). */
static GtkLabel *
show_tooltip (KsWindow  *window,
              GtkWidget *widget)
{
  Display *xd = gdk_x11_display_get_xdisplay (gtk_widget_get_display (widget));
  GdkSurface *surface = gtk_native_get_surface (GTK_NATIVE (window));
  graphene_point_t at;
  double dx, dy;
  int sx, sy;
  Window child;
  GtkWidget *tooltip = NULL;
  gint64 deadline;

  g_assert_true (gtk_widget_compute_point (widget, GTK_WIDGET (window),
                                           &GRAPHENE_POINT_INIT (gtk_widget_get_width (widget) / 2.f,
                                                                 gtk_widget_get_height (widget) / 2.f),
                                           &at));
  gtk_native_get_surface_transform (GTK_NATIVE (window), &dx, &dy);
  XTranslateCoordinates (xd, gdk_x11_surface_get_xid (surface), DefaultRootWindow (xd), 0, 0, &sx, &sy, &child);
  /* Two motions: GTK starts the tooltip timer on the pointer's move. */
  XTestFakeMotionEvent (xd, -1, sx + (int)(at.x + dx) - 2, sy + (int)(at.y + dy), CurrentTime);
  XFlush (xd);
  iterate ();
  XTestFakeMotionEvent (xd, -1, sx + (int)(at.x + dx), sy + (int)(at.y + dy), CurrentTime);
  XFlush (xd);

  deadline = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
  while (g_get_monotonic_time () < deadline)
    {
      tooltip = ks_test_find_descendant (GTK_WIDGET (window), g_type_from_name ("GtkTooltipWindow"), NULL);
      if (tooltip != NULL && gtk_widget_get_mapped (tooltip))
        break;
      g_main_context_iteration (NULL, FALSE);
      g_usleep (10000);
    }
  g_assert_nonnull (tooltip);
  g_assert_true (gtk_widget_get_mapped (tooltip));
  iterate ();
  return GTK_LABEL (ks_test_find_descendant (tooltip, GTK_TYPE_LABEL, NULL));
}
#endif

/* GTK gives a tooltip as many Latin letters' width as its text has
 * characters: Chinese ones are twice as wide, so a short Chinese tooltip
 * became a column of one or two characters a line. It is one line. */
static void
test_i18n_tooltip (void)
{
#ifdef HAVE_XTST
  KsWindow *window;
  GtkWidget *button;
  GtkLabel *label;
  PangoLayout *layout;
  GdkSurface *surface;
  Display *xd;
  int text_width;

  if (!GDK_IS_X11_DISPLAY (gdk_display_get_default ()))
    {
      g_test_skip ("the pointer is moved with XTEST, which needs X11");
      return;
    }

  window = new_window ();
  surface = gtk_native_get_surface (GTK_NATIVE (window));
  xd = gdk_x11_display_get_xdisplay (gtk_widget_get_display (GTK_WIDGET (window)));
  /* Without a window manager nobody gives the window the pointer's focus. */
  XSetInputFocus (xd, gdk_x11_surface_get_xid (surface), RevertToParent, CurrentTime);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));

  /* The side panel's button in the header. */
  button = ks_test_find_descendant (GTK_WIDGET (window), GTK_TYPE_WIDGET, "side-panel-button");
  g_assert_nonnull (button);
  g_assert_cmpstr (gtk_widget_get_tooltip_text (button), ==, "侧边栏 (F9)");

  label = show_tooltip (window, button);
  g_assert_nonnull (label);
  g_assert_cmpstr (gtk_label_get_text (label), ==, "侧边栏 (F9)");
  layout = gtk_label_get_layout (label);
  pango_layout_get_pixel_size (layout, &text_width, NULL);
  g_test_message ("tooltip: %d lines, %d px wide", pango_layout_get_line_count (layout), text_width);
  g_assert_cmpint (pango_layout_get_line_count (layout), ==, 1);

  gtk_window_destroy (GTK_WINDOW (window));
  iterate ();
#else
  g_test_skip ("built without XTEST (libxtst-dev)");
#endif
}

static void
test_i18n_gsettings_schema (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);
  g_autoptr(GSettingsSchemaKey) key = NULL;

  g_assert_nonnull (schema);
  key = g_settings_schema_get_key (schema, "gap-threshold-us");
  /* Summaries are translated through the schema's gettext-domain. */
  g_assert_cmpstr (g_settings_schema_key_get_summary (key), ==, "空闲间隙阈值");
}

/* ] in Chinese: the Selection page shows the gap's class and cause in
 * words ("主机等待", "DataLoader：…"), never the analysis' identifiers
 * ("host_wait", "dataloader:"), and its tab is in view among the
 * Chinese tabs. */
static void
test_i18n_gap_selection (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"),
                                            "loader_bound.pt.trace.json.gz", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  KsWindow *window = new_window ();
  KsSelectionPage *selection;
  GtkWidget *switcher, *tab, *label;
  GtkAdjustment *hadj;
  graphene_rect_t bounds;
  const char *klass, *cause;

  ks_window_open (window, file);
  while ((ks_window_get_loading (window) || ks_session_get_analysis (ks_window_get_session (window)) == NULL) &&
         g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  g_assert_nonnull (ks_session_get_analysis (ks_window_get_session (window)));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));

  /* the largest gap: the host waited for the DataLoader */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "analysis.next-gap", NULL));
  selection = KS_SELECTION_PAGE (ks_window_get_page (window, "selection"));
  klass = ks_selection_page_lookup_value (selection, "空闲间隙", "类别");
  cause = ks_selection_page_lookup_value (selection, "空闲间隙", "原因");
  g_test_message ("类别 %s, 原因 %s", klass, cause);
  g_assert_cmpstr (klass, ==, "主机等待");
  g_assert_true (g_str_has_prefix (cause, "DataLoader："));
  g_assert_null (strstr (cause, "dataloader:"));

  /* the Selection tab, the last, is in view and whole */
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  switcher = ks_test_find_descendant (GTK_WIDGET (window), GTK_TYPE_STACK_SWITCHER, NULL);
  g_assert_nonnull (switcher);
  tab = gtk_widget_get_last_child (switcher);
  label = ks_test_find_descendant (tab, GTK_TYPE_LABEL, NULL);
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==, "选中项");
  g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (label))));
  hadj = gtk_scrolled_window_get_hadjustment (GTK_SCROLLED_WINDOW (gtk_widget_get_ancestor (switcher,
                                                                                          GTK_TYPE_SCROLLED_WINDOW)));
  g_assert_true (gtk_widget_compute_bounds (tab, switcher, &bounds));
  g_assert_cmpfloat (bounds.origin.x, >=, gtk_adjustment_get_value (hadj) - 0.5);
  g_assert_cmpfloat (bounds.origin.x + bounds.size.width, <=,
                     gtk_adjustment_get_value (hadj) + gtk_adjustment_get_page_size (hadj) + 0.5);

  gtk_window_destroy (GTK_WINDOW (window));
  iterate ();
}

int
main (int   argc,
      char *argv[])
{
  g_autofree char *localedir = g_build_filename (g_getenv ("KS_BUILD_ROOT"), "po", NULL);
  g_autoptr(GError) error = NULL;
  const char *messages;

  g_log_set_writer_func (ks_test_log_writer, NULL, NULL);
  g_setenv ("LANGUAGE", "zh_CN", TRUE);
  gtk_disable_setlocale ();
  setlocale (LC_ALL, "");
  /* gettext ignores LANGUAGE in the C locale; C.UTF-8 is always there. */
  messages = setlocale (LC_MESSAGES, NULL);
  if (messages == NULL || g_str_equal (messages, "C") || g_str_equal (messages, "POSIX"))
    setlocale (LC_ALL, "C.UTF-8");
  bindtextdomain (GETTEXT_PACKAGE, localedir);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  gtk_test_init (&argc, &argv, NULL);
  adw_init ();

  application = ks_application_new ();
  g_application_set_flags (G_APPLICATION (application),
                           g_application_get_flags (G_APPLICATION (application)) | G_APPLICATION_NON_UNIQUE);
  g_application_register (G_APPLICATION (application), NULL, &error);
  g_assert_no_error (error);

  g_test_add_func ("/i18n/catalogue", test_i18n_catalogue);
  g_test_add_func ("/i18n/empty-window", test_i18n_empty_window);
  g_test_add_func ("/i18n/loaded-window", test_i18n_loaded_window);
  g_test_add_func ("/i18n/counter-rows", test_i18n_counter_rows);
  g_test_add_func ("/i18n/preferences", test_i18n_preferences);
  g_test_add_func ("/i18n/shortcuts", test_i18n_shortcuts);
  g_test_add_func ("/i18n/tooltip", test_i18n_tooltip);
  g_test_add_func ("/i18n/gsettings-schema", test_i18n_gsettings_schema);
  g_test_add_func ("/i18n/gap-selection", test_i18n_gap_selection);

  return g_test_run ();
}
