/* ks-side-panel.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-side-panel"

#include "config.h"

#include "ks-page-slot.h"
#include "ks-selection-page.h"
#include "ks-side-panel.h"
#include "pages/ks-comms-page.h"
#include "pages/ks-critical-path-page.h"
#include "pages/ks-gaps-page.h"
#include "pages/ks-kernels-page.h"
#include "pages/ks-memory-page.h"
#include "pages/ks-operators-page.h"
#include "pages/ks-page.h"
#include "pages/ks-ranks-page.h"
#include "pages/ks-roofline-page.h"
#include "pages/ks-stats-page.h"
#include "pages/ks-summary-page.h"

/* The panel's share of the paned at first: at the default 1280 pixels
 * its tables' columns fit (test-window's tables-fit), at 800 it keeps
 * its minimum and the timeline the rest. Later the user's handle and
 * GtkPaned keep its width, as long as the timeline keeps half the
 * window. */
#define SHARE 0.38

struct _KsSidePanel
{
  GtkBox              parent_instance;

  GtkScrolledWindow  *tabs;
  GtkStackSwitcher   *switcher;
  GtkMenuButton      *pages_button;
  GtkStack           *stack;

  KsSession          *session;
  GtkPaned           *paned;     /* the parent whose end child it is */
  gboolean            sized;     /* the first width is set */
  guint               tick;      /* sizing it at the next frame */
};

G_DEFINE_FINAL_TYPE (KsSidePanel, ks_side_panel, GTK_TYPE_BOX)

enum {
  PROP_0,
  PROP_SESSION,
  PROP_BUSY,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  PAGE_BUILT,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* Tabs: fourteen pages do not fit the panel's width, so the tab bar
 * scrolls, and the shown page's tab is scrolled into view whichever way
 * the page was chosen (a tab, the All Pages menu, ] or a link): else the
 * page shown could be one whose tab is out of sight, or cut through its
 * name at the bar's edge. */

static GtkWidget *
visible_tab (KsSidePanel *self)
{
  g_autoptr(GListModel) pages = G_LIST_MODEL (gtk_stack_get_pages (self->stack));
  GtkWidget *visible = gtk_stack_get_visible_child (self->stack);
  GtkWidget *tab = gtk_widget_get_first_child (GTK_WIDGET (self->switcher));

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
reveal_visible_tab (KsSidePanel *self)
{
  GtkWidget *tab = visible_tab (self);
  GtkAdjustment *hadj = gtk_scrolled_window_get_hadjustment (self->tabs);
  graphene_rect_t bounds;
  double value, page;

  if (tab == NULL || !gtk_widget_compute_bounds (tab, GTK_WIDGET (self->switcher), &bounds))
    return;
  value = gtk_adjustment_get_value (hadj);
  page = gtk_adjustment_get_page_size (hadj);
  if (bounds.origin.x < value)
    gtk_adjustment_set_value (hadj, bounds.origin.x);
  else if (bounds.origin.x + bounds.size.width > value + page)
    gtk_adjustment_set_value (hadj, bounds.origin.x + bounds.size.width - page);
}

/* Every page, for the button beside the tabs: a narrow panel cannot
 * show all their tabs. Made when the button first opens it, not with
 * the window. */
static void
build_pages_menu (GtkMenuButton *button,
                  gpointer       user_data)
{
  KsSidePanel *self = user_data;
  g_autoptr(GMenu) menu = NULL;
  g_autoptr(GListModel) pages = NULL;

  if (gtk_menu_button_get_menu_model (button) != NULL)
    return;
  menu = g_menu_new ();
  pages = G_LIST_MODEL (gtk_stack_get_pages (self->stack));

  for (guint i = 0; i < g_list_model_get_n_items (pages); i++)
    {
      g_autoptr(GObject) page = g_list_model_get_item (pages, i);
      g_autoptr(GMenuItem) item = g_menu_item_new (gtk_stack_page_get_title (GTK_STACK_PAGE (page)), NULL);

      g_menu_item_set_action_and_target_value (item, "win.show-page",
                                               g_variant_new_string (gtk_stack_page_get_name (GTK_STACK_PAGE (page))));
      g_menu_append_item (menu, item);
    }
  gtk_menu_button_set_menu_model (self->pages_button, G_MENU_MODEL (menu));
}

/* Sizing, as the paned's end child */

/* The position that gives the panel @wanted pixels, within its minimum
 * and half the paned. */
static int
panel_position (KsSidePanel *self,
                int          wanted)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self->paned));
  int max_position, panel_min, handle;

  g_object_get (self->paned, "max-position", &max_position, NULL);
  gtk_widget_measure (GTK_WIDGET (self), GTK_ORIENTATION_HORIZONTAL, -1, &panel_min, NULL, NULL, NULL);
  /* max-position leaves the panel its minimum, and the handle between. */
  handle = MAX (0, width - max_position - panel_min);
  wanted = MAX (MIN (wanted, width / 2 - handle), panel_min);
  return MAX (0, max_position + panel_min - wanted);
}

static gboolean
clamp_cb (GtkWidget     *paned,
          GdkFrameClock *clock,
          gpointer       user_data)
{
  KsSidePanel *self = user_data;
  int max_position, panel_min, position;

  self->tick = 0;
  /* Hidden, it keeps the width it comes back with. */
  if (!gtk_widget_get_visible (GTK_WIDGET (self)))
    return G_SOURCE_REMOVE;
  g_object_get (paned, "max-position", &max_position, NULL);
  gtk_widget_measure (GTK_WIDGET (self), GTK_ORIENTATION_HORIZONTAL, -1, &panel_min, NULL, NULL, NULL);
  position = panel_position (self, max_position + panel_min - gtk_paned_get_position (GTK_PANED (paned)));
  if (position != gtk_paned_get_position (GTK_PANED (paned)))
    gtk_paned_set_position (GTK_PANED (paned), position);
  return G_SOURCE_REMOVE;
}

/* GtkPaned's allocation has a new width. */
static void
max_position_cb (KsSidePanel *self)
{
  int width = gtk_widget_get_width (GTK_WIDGET (self->paned));

  if (width <= 0 || !gtk_widget_get_visible (GTK_WIDGET (self)))
    return;
  /* The first one, from within the allocation: it goes on with this
   * position, so the first frame has the panel's width. */
  if (!self->sized)
    {
      self->sized = TRUE;
      gtk_paned_set_position (self->paned, panel_position (self, (int)(width * SHARE)));
    }
  /* A narrower window: the next frame. */
  else if (self->tick == 0)
    self->tick = gtk_widget_add_tick_callback (GTK_WIDGET (self->paned), clamp_cb, self, NULL);
}

static void
forget_paned (KsSidePanel *self)
{
  if (self->paned == NULL)
    return;
  if (self->tick != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self->paned), self->tick);
  self->tick = 0;
  g_signal_handlers_disconnect_by_data (self->paned, self);
  self->paned = NULL;
}

static void
parent_changed_cb (KsSidePanel *self)
{
  GtkWidget *parent = gtk_widget_get_parent (GTK_WIDGET (self));

  forget_paned (self);
  if (!GTK_IS_PANED (parent) || gtk_paned_get_end_child (GTK_PANED (parent)) != GTK_WIDGET (self))
    return;
  self->paned = GTK_PANED (parent);
  g_signal_connect_object (self->paned, "notify::max-position", G_CALLBACK (max_position_cb), self,
                           G_CONNECT_SWAPPED);
}

/* The session */

/* A new trace opens on the first page (the analysis summary). */
static void
trace_changed_cb (KsSidePanel *self)
{
  if (ks_session_get_trace (self->session) != NULL)
    gtk_stack_set_visible_child (self->stack, gtk_widget_get_first_child (GTK_WIDGET (self->stack)));
}

static void
selection_changed_cb (KsSidePanel *self)
{
  if (ks_session_get_selected_slice (self->session, NULL, NULL) ||
      ks_session_get_selected_instant (self->session, NULL) ||
      ks_session_get_selected_memory_block (self->session, NULL, NULL))
    gtk_stack_set_visible_child_name (self->stack, "selection");
}

/* The Summary page says "Analysing…" while the session is busy. */
static void
busy_changed_cb (KsSidePanel *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static void
range_changed_cb (KsSidePanel *self)
{
  if (ks_session_get_range (self->session, NULL, NULL))
    gtk_stack_set_visible_child_name (self->stack, "selection");
}

KsSession *
ks_side_panel_get_session (KsSidePanel *self)
{
  g_return_val_if_fail (KS_IS_SIDE_PANEL (self), NULL);

  return self->session;
}

void
ks_side_panel_set_session (KsSidePanel *self,
                           KsSession   *session)
{
  g_return_if_fail (KS_IS_SIDE_PANEL (self));
  g_return_if_fail (!session || KS_IS_SESSION (session));

  if (self->session == session)
    return;
  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_set_object (&self->session, session);
  if (session != NULL)
    {
      g_signal_connect_object (session, "notify::trace", G_CALLBACK (trace_changed_cb), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (session, "selection-changed", G_CALLBACK (selection_changed_cb), self,
                               G_CONNECT_SWAPPED);
      g_signal_connect_object (session, "range-changed", G_CALLBACK (range_changed_cb), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (session, "notify::busy", G_CALLBACK (busy_changed_cb), self, G_CONNECT_SWAPPED);
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

GtkWidget *
ks_side_panel_get_page (KsSidePanel *self,
                        const char  *name)
{
  GtkWidget *slot;

  g_return_val_if_fail (KS_IS_SIDE_PANEL (self), NULL);

  slot = gtk_stack_get_child_by_name (self->stack, name);
  if (slot == NULL)
    return NULL;
  /* Asked for before it was shown: it shows the session's analysis at
   * once, as a page built with the window did. */
  if (ks_page_slot_peek_page (KS_PAGE_SLOT (slot)) == NULL)
    {
      GtkWidget *page = ks_page_slot_get_page (KS_PAGE_SLOT (slot));

      if (KS_IS_PAGE (page))
        ks_page_fill (KS_PAGE (page));
    }
  return ks_page_slot_get_page (KS_PAGE_SLOT (slot));
}

GtkWidget *
ks_side_panel_peek_page (KsSidePanel *self,
                         const char  *name)
{
  GtkWidget *slot;

  g_return_val_if_fail (KS_IS_SIDE_PANEL (self), NULL);

  slot = gtk_stack_get_child_by_name (self->stack, name);
  return slot != NULL ? ks_page_slot_peek_page (KS_PAGE_SLOT (slot)) : NULL;
}

gboolean
ks_side_panel_show_page (KsSidePanel *self,
                         const char  *name)
{
  g_return_val_if_fail (KS_IS_SIDE_PANEL (self), FALSE);

  if (gtk_stack_get_child_by_name (self->stack, name) == NULL)
    return FALSE;
  gtk_stack_set_visible_child_name (self->stack, name);
  return TRUE;
}

static void
slot_page_cb (KsSidePanel *self,
              GParamSpec  *pspec,
              KsPageSlot  *slot)
{
  GtkStackPage *page = gtk_stack_get_page (self->stack, GTK_WIDGET (slot));

  g_signal_emit (self, signals[PAGE_BUILT], g_quark_from_string (gtk_stack_page_get_name (page)),
                 ks_page_slot_peek_page (slot));
}

/* A page is built when the stack first shows it (a tab, the All Pages
 * menu, an action or the panel itself), before the frame that maps it. */
static void
build_visible_page (KsSidePanel *self)
{
  GtkWidget *slot = gtk_stack_get_visible_child (self->stack);

  if (slot != NULL)
    ks_page_slot_get_page (KS_PAGE_SLOT (slot));
}

static void
ks_side_panel_dispose (GObject *object)
{
  KsSidePanel *self = KS_SIDE_PANEL (object);

  forget_paned (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_SIDE_PANEL);
  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_clear_object (&self->session);

  G_OBJECT_CLASS (ks_side_panel_parent_class)->dispose (object);
}

static void
ks_side_panel_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  KsSidePanel *self = KS_SIDE_PANEL (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      g_value_set_object (value, self->session);
      break;
    case PROP_BUSY:
      g_value_set_boolean (value, self->session != NULL && ks_session_get_busy (self->session));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_side_panel_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  KsSidePanel *self = KS_SIDE_PANEL (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      ks_side_panel_set_session (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_side_panel_class_init (KsSidePanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_side_panel_dispose;
  object_class->get_property = ks_side_panel_get_property;
  object_class->set_property = ks_side_panel_set_property;

  properties[PROP_SESSION] =
    g_param_spec_object ("session", NULL, NULL, KS_TYPE_SESSION,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  /* the session's "busy", for the Summary page */
  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* A page was built, the detail its name: for what the window ties to
   * one page (the Gaps page's order setting). */
  signals[PAGE_BUILT] =
    g_signal_new ("page-built", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST | G_SIGNAL_DETAILED, 0, NULL, NULL,
                  NULL, G_TYPE_NONE, 1, GTK_TYPE_WIDGET);

  /* the slots' page types, by name in the template */
  g_type_ensure (KS_TYPE_PAGE_SLOT);
  g_type_ensure (KS_TYPE_SELECTION_PAGE);
  g_type_ensure (KS_TYPE_SUMMARY_PAGE);
  g_type_ensure (KS_TYPE_GAPS_PAGE);
  g_type_ensure (KS_TYPE_OPERATORS_PAGE);
  g_type_ensure (KS_TYPE_KERNELS_PAGE);
  g_type_ensure (KS_TYPE_MEMORY_PAGE);
  g_type_ensure (KS_TYPE_RANKS_PAGE);
  g_type_ensure (KS_TYPE_COMMS_PAGE);
  g_type_ensure (KS_TYPE_CRITICAL_PATH_PAGE);
  g_type_ensure (KS_TYPE_STATS_PAGE);
  g_type_ensure (KS_TYPE_ROOFLINE_PAGE);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/kinescope/Kinescope/ks-side-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, KsSidePanel, tabs);
  gtk_widget_class_bind_template_child (widget_class, KsSidePanel, switcher);
  gtk_widget_class_bind_template_child (widget_class, KsSidePanel, pages_button);
  gtk_widget_class_bind_template_child (widget_class, KsSidePanel, stack);
}

static void
ks_side_panel_init (KsSidePanel *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  for (GtkWidget *slot = gtk_widget_get_first_child (GTK_WIDGET (self->stack)); slot != NULL;
       slot = gtk_widget_get_next_sibling (slot))
    g_signal_connect_object (slot, "notify::page", G_CALLBACK (slot_page_cb), self, G_CONNECT_SWAPPED);
  /* From here on a page shown is built; the first one added, shown by
   * the stack meanwhile, is not. */
  g_signal_connect_object (self->stack, "notify::visible-child", G_CALLBACK (build_visible_page), self,
                           G_CONNECT_SWAPPED);
  /* The panel shows the selection until a trace is open */
  gtk_stack_set_visible_child_name (self->stack, "selection");
  build_visible_page (self);
  gtk_menu_button_set_create_popup_func (self->pages_button, build_pages_menu, self, NULL);
  g_signal_connect_object (self->stack, "notify::visible-child", G_CALLBACK (reveal_visible_tab), self,
                           G_CONNECT_SWAPPED);
  /* the panel opened or widened: the tab again, once laid out */
  g_signal_connect_object (gtk_scrolled_window_get_hadjustment (self->tabs), "changed",
                           G_CALLBACK (reveal_visible_tab), self, G_CONNECT_SWAPPED);
  g_signal_connect (self, "notify::parent", G_CALLBACK (parent_changed_cb), NULL);
}

GtkWidget *
ks_side_panel_new (void)
{
  return g_object_new (KS_TYPE_SIDE_PANEL, NULL);
}
