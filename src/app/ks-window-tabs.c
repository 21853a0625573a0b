/* ks-window-tabs.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-window-tabs"

#include "config.h"

#include "ks-window-private.h"

/* The side panel's tabs: fourteen pages do not fit its width, so the tab
 * bar scrolls, and the shown page's tab is scrolled into view whichever
 * way the page was chosen (a tab, the All Pages menu, ] or a link):
 * else the page shown could be one whose tab is out of sight, or cut
 * through its name at the bar's edge. */

static GtkWidget *
visible_tab (KsWindow *self)
{
  g_autoptr(GListModel) pages = G_LIST_MODEL (gtk_stack_get_pages (self->side_stack));
  GtkWidget *visible = gtk_stack_get_visible_child (self->side_stack);
  GtkWidget *tab = gtk_widget_get_first_child (GTK_WIDGET (self->side_switcher));

  /* the switcher has a button for each page, in the pages' order */
  for (guint i = 0; i < g_list_model_get_n_items (pages) && tab != NULL; i++)
    {
      g_autoptr(GObject) page = g_list_model_get_item (pages, i);

      if (gtk_stack_page_get_child (GTK_STACK_PAGE (page)) == visible)
        return tab;
      tab = gtk_widget_get_next_sibling (tab);
    }
  return NULL;
}

static void
reveal_visible_tab (KsWindow *self)
{
  GtkWidget *tab = visible_tab (self);
  GtkAdjustment *hadj = gtk_scrolled_window_get_hadjustment (self->side_tabs);
  graphene_rect_t bounds;
  double value, page;

  if (tab == NULL || !gtk_widget_compute_bounds (tab, GTK_WIDGET (self->side_switcher), &bounds))
    return;
  value = gtk_adjustment_get_value (hadj);
  page = gtk_adjustment_get_page_size (hadj);
  if (bounds.origin.x < value)
    gtk_adjustment_set_value (hadj, bounds.origin.x);
  else if (bounds.origin.x + bounds.size.width > value + page)
    gtk_adjustment_set_value (hadj, bounds.origin.x + bounds.size.width - page);
}

void
_ks_window_tabs_init (KsWindow *self)
{
  g_signal_connect_object (self->side_stack, "notify::visible-child",
                           G_CALLBACK (reveal_visible_tab), self, G_CONNECT_SWAPPED);
  /* the panel opened or widened: the tab again, once laid out */
  g_signal_connect_object (gtk_scrolled_window_get_hadjustment (self->side_tabs), "changed",
                           G_CALLBACK (reveal_visible_tab), self, G_CONNECT_SWAPPED);
}
