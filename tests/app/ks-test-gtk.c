/* ks-test-gtk.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <unistd.h>

#include "ks-test-gtk.h"
#include "pages/ks-page.h"

gboolean
ks_test_init_gtk (int    *argc,
                  char ***argv)
{
  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_print ("1..0 # SKIP no display (run under xvfb-run)\n");
      return FALSE;
    }

  gtk_test_init (argc, argv, G_TEST_OPTION_ISOLATE_DIRS, NULL);
  adw_init ();
  return TRUE;
}

gboolean
ks_test_timeout_cb (gpointer data)
{
  *(gboolean *)data = TRUE;
  return G_SOURCE_REMOVE;
}

void
ks_test_spin (guint ms)
{
  gboolean done = FALSE;

  g_timeout_add (ms, ks_test_timeout_cb, &done);
  while (!done)
    g_main_context_iteration (NULL, TRUE);
}

GtkWidget *
ks_test_find_descendant (GtkWidget  *widget,
                         GType       type,
                         const char *name)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (G_TYPE_CHECK_INSTANCE_TYPE (child, type) &&
          (name == NULL || g_strcmp0 (gtk_widget_get_name (child), name) == 0))
        return child;
      found = ks_test_find_descendant (child, type, name);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
pages_filled (GtkWidget *widget)
{
  if (KS_IS_PAGE (widget) && !ks_page_get_filled (KS_PAGE (widget)))
    return FALSE;
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (!pages_filled (child))
      return FALSE;
  return TRUE;
}

void
ks_test_wait_pages_filled (GtkWidget *widget)
{
  KS_TEST_WAIT_FOR (pages_filled (widget), 30000);
}

gboolean
ks_test_columns_fit (GtkWidget *page)
{
  GtkWidget *view = ks_test_find_descendant (page, GTK_TYPE_COLUMN_VIEW, NULL);
  GtkAdjustment *hadj;

  g_assert_nonnull (view);
  hadj = gtk_scrollable_get_hadjustment (GTK_SCROLLABLE (view));
  g_test_message ("%s: columns %.0f px wide in %.0f px", G_OBJECT_TYPE_NAME (page),
                  gtk_adjustment_get_upper (hadj), gtk_adjustment_get_page_size (hadj));
  return gtk_adjustment_get_upper (hadj) <= gtk_adjustment_get_page_size (hadj) + 0.5;
}

GtkWidget *
ks_test_find_label (GtkWidget  *widget,
                    const char *prefix)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget);
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (GTK_IS_LABEL (child) && g_str_has_prefix (gtk_label_get_text (GTK_LABEL (child)), prefix))
        return child;
      found = ks_test_find_label (child, prefix);
      if (found != NULL)
        return found;
    }
  return NULL;
}

GMenuModel *
ks_test_open_menu (GtkMenuButton *button)
{
  /* a button with a popover of its own has no menu to make */
  if (gtk_menu_button_get_popover (button) == NULL)
    {
      gtk_menu_button_popup (button);
      gtk_menu_button_popdown (button);
    }
  return gtk_menu_button_get_menu_model (button);
}

gboolean
ks_test_has_shortcut (GtkWidget  *widget,
                      const char *trigger,
                      const char *action_name)
{
  g_autoptr(GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr(GObject) c = g_list_model_get_item (controllers, i);

      if (!GTK_IS_SHORTCUT_CONTROLLER (c))
        continue;
      for (guint k = 0; k < g_list_model_get_n_items (G_LIST_MODEL (c)); k++)
        {
          g_autoptr(GtkShortcut) sc = g_list_model_get_item (G_LIST_MODEL (c), k);
          GtkShortcutAction *action = gtk_shortcut_get_action (sc);
          g_autofree char *t = gtk_shortcut_trigger_to_string (gtk_shortcut_get_trigger (sc));

          if (GTK_IS_NAMED_ACTION (action) && g_str_equal (t, trigger) &&
              g_str_equal (gtk_named_action_get_action_name (GTK_NAMED_ACTION (action)), action_name))
            return TRUE;
        }
    }
  return FALSE;
}

GtkEventController *
ks_test_find_controller (GtkWidget  *widget,
                         const char *name)
{
  g_autoptr(GListModel) list = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (list); i++)
    {
      g_autoptr(GtkEventController) c = g_list_model_get_item (list, i);

      if (g_strcmp0 (gtk_event_controller_get_name (c), name) == 0)
        return c;
    }
  g_assert_not_reached ();
  return NULL;
}

void
ks_test_click_timeline (GtkWidget *timeline,
                        int        n_press,
                        double     x,
                        double     y)
{
  GtkEventController *motion = ks_test_find_controller (timeline, "ks-timeline-motion");
  GtkEventController *gesture = ks_test_find_controller (timeline, "ks-timeline-click");

  g_signal_emit_by_name (motion, "motion", x, y);
  g_signal_emit_by_name (gesture, "pressed", n_press, x, y);
  g_signal_emit_by_name (gesture, "released", n_press, x, y);
}

void
ks_test_page_navigate_cb (GtkWidget        *page,
                          gint64            start,
                          gint64            end,
                          KsTestPageEvents *ev)
{
  ev->start = start;
  ev->end = end;
  ev->n_navigate++;
}

void
ks_test_page_highlight_cb (GtkWidget        *page,
                           guint             name,
                           KsTestPageEvents *ev)
{
  ev->highlighted = name;
}

char *
ks_test_write_big_trace (guint n)
{
  g_autoptr(GString) json = g_string_sized_new (n * 120);
  g_autoptr(GError) error = NULL;
  char *path = NULL;
  int fd;

  g_string_append (json, "{\"traceEvents\": [\n");
  for (guint i = 0; i < n; i++)
    g_string_append_printf (json,
                            "{\"ph\":\"X\",\"name\":\"outer_%u\",\"pid\":1,\"tid\":%u,\"ts\":%u,\"dur\":8},\n"
                            "{\"ph\":\"X\",\"name\":\"inner\",\"pid\":1,\"tid\":%u,\"ts\":%u,\"dur\":4},\n",
                            i % 97, i % 4, i * 10, i % 4, i * 10 + 2);
  g_string_append (json, "{\"ph\":\"X\",\"name\":\"last\",\"pid\":1,\"tid\":0,\"ts\":0,\"dur\":1}]}\n");

  fd = g_file_open_tmp ("ks-big-XXXXXX.json", &path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (write (fd, json->str, json->len), ==, (gssize) json->len);
  close (fd);
  return path;
}
