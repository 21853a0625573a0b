/* ks-page-table.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-page-table"

#include "config.h"

#include <string.h>

#include "ks-format.h"
#include "ks-page.h"
#include "ks-page-table.h"

typedef struct
{
  KsRowFilterFunc filter;
  gpointer        page;
} Filter;

/* A column: the text and the compare of @report_column over the
 * table's report */
typedef struct
{
  KsPageTable          *table;
  const KsReportColumn *report_column;
  char                 *tooltip;
  gboolean              numeric;
  gboolean              wrap;
} Column;

static void
column_free (gpointer data)
{
  Column *c = data;

  g_free (c->tooltip);
  g_free (c);
}

static gboolean
filter_cb (gpointer item,
           gpointer user_data)
{
  Filter *f = user_data;

  return f->filter (f->page, ks_row_item_get_index (item));
}

/* Focus to the first widget past @widget, in @direction, that takes it:
 * its later (earlier) siblings, then its ancestors', then from the
 * window's first (last) widget on. */
static void
focus_past (GtkWidget        *widget,
            GtkDirectionType  direction)
{
  gboolean forward = direction == GTK_DIR_TAB_FORWARD;
  GtkRoot *root = gtk_widget_get_root (widget);

  for (GtkWidget *w = widget; gtk_widget_get_parent (w) != NULL; w = gtk_widget_get_parent (w))
    for (GtkWidget *s = forward ? gtk_widget_get_next_sibling (w) : gtk_widget_get_prev_sibling (w);
         s != NULL;
         s = forward ? gtk_widget_get_next_sibling (s) : gtk_widget_get_prev_sibling (s))
      if (gtk_widget_child_focus (s, direction))
        return;

  if (root != NULL)
    {
      gtk_root_set_focus (root, NULL);
      gtk_widget_child_focus (GTK_WIDGET (root), direction);
    }
}

/* A table is one Tab stop: Tab and Shift+Tab leave it (the arrow keys
 * move between its rows), where GTK's list walks its rows one Tab at a
 * time, so that a long list kept the focus from everything after it. */
static gboolean
key_pressed_cb (GtkEventControllerKey *controller,
                guint                  keyval,
                guint                  keycode,
                GdkModifierType        state,
                gpointer               user_data)
{
  GtkWidget *view = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (controller));

  if (keyval != GDK_KEY_Tab && keyval != GDK_KEY_KP_Tab && keyval != GDK_KEY_ISO_Left_Tab)
    return FALSE;
  if (state & (GDK_CONTROL_MASK | GDK_ALT_MASK))
    return FALSE;
  focus_past (view, keyval == GDK_KEY_ISO_Left_Tab || (state & GDK_SHIFT_MASK)
                    ? GTK_DIR_TAB_BACKWARD : GTK_DIR_TAB_FORWARD);
  return TRUE;
}

gboolean
ks_page_table_get_complete (KsPageTable *table)
{
  if (table->model == NULL)
    return TRUE;
  return ks_index_model_get_pending (table->model) == 0 &&
         gtk_sort_list_model_get_pending (table->sort_model) == 0;
}

/* Holds the page unfilled while the table is busy. */
static void
update_busy (KsPageTable *table)
{
  gboolean busy;

  if (table->freeze > 0)
    return;
  busy = !ks_page_table_get_complete (table);
  if (busy == table->busy)
    return;
  table->busy = busy;
  if (KS_IS_PAGE (table->page))
    {
      if (busy)
        ks_page_hold_filled (KS_PAGE (table->page));
      else
        ks_page_release_filled (KS_PAGE (table->page));
    }
}

static void
pending_cb (GObject     *model,
            GParamSpec  *pspec,
            KsPageTable *table)
{
  update_busy (table);
}

/* While rows come in, GTK's sort stops (nothing pending) and starts
 * again: the page is not to read as filled in between. */
static void
rows_changing_cb (GListModel  *model,
                  guint        position,
                  guint        removed,
                  guint        added,
                  KsPageTable *table)
{
  table->freeze++;
}

static void
rows_changed_cb (GListModel  *model,
                 guint        position,
                 guint        removed,
                 guint        added,
                 KsPageTable *table)
{
  table->freeze--;
  update_busy (table);
}

/* A view not shown yet has no cells, but each of the 200 rows a list
 * keeps is a widget still: it takes its first rows fewer at a time. */
static guint
first_step (KsPageTable *table)
{
  return table->shown ? KS_PAGE_TABLE_STEP : KS_PAGE_TABLE_FIRST_STEP;
}

/* Whether the table takes its rows, filters and sorts them in steps; a
 * small one does it at once, so that what reads it after a change sees
 * the result. */
static gboolean
is_long (KsPageTable *table)
{
  return table->report != NULL && table->report->n_rows > first_step (table);
}

void
ks_page_table_finish (KsPageTable *table)
{
  if (table->model == NULL)
    return;
  table->freeze++;
  ks_index_model_finish (table->model);
  /* Turning it off finishes GTK's sort at once */
  gtk_sort_list_model_set_incremental (table->sort_model, FALSE);
  gtk_sort_list_model_set_incremental (table->sort_model, is_long (table));
  table->freeze--;
  update_busy (table);
}

/* Cells are widgets, a few thousand for the 200 rows a list keeps: a
 * page hidden in the side panel would make them at each refill, for
 * nothing until it is shown (and the refill of a page of 800 rows took
 * about 80 ms). The columns get their factories, and the rows their
 * cells, when the view is first mapped. */
static void
view_map_cb (GtkWidget   *view,
             KsPageTable *table)
{
  GListModel *columns = gtk_column_view_get_columns (GTK_COLUMN_VIEW (view));
  g_autoptr(GtkSelectionModel) model = NULL;

  /* Shown while it takes its rows in small steps (a page opened before
   * its turn): a full step now, so that a table of a step is complete */
  if (!table->shown)
    {
      table->shown = TRUE;
      if (table->model != NULL)
        {
          table->freeze++;
          ks_index_model_set_steps (table->model, KS_PAGE_TABLE_STEP, KS_PAGE_TABLE_STEP);
          ks_index_model_take (table->model, KS_PAGE_TABLE_STEP);
          gtk_sort_list_model_set_incremental (table->sort_model, is_long (table));
          table->freeze--;
          update_busy (table);
        }
    }
  for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);
      GtkListItemFactory *factory = g_object_get_data (G_OBJECT (column), "ks-factory");

      if (factory == NULL || gtk_column_view_column_get_factory (column) != NULL)
        continue;
      /* GTK 4.8 gives the rows already there no cells of a new factory:
       * they are made again */
      if (model == NULL && gtk_column_view_get_model (GTK_COLUMN_VIEW (view)) != NULL)
        {
          model = g_object_ref (gtk_column_view_get_model (GTK_COLUMN_VIEW (view)));
          gtk_column_view_set_model (GTK_COLUMN_VIEW (view), NULL);
        }
      gtk_column_view_column_set_factory (column, factory);
    }
  if (model != NULL)
    gtk_column_view_set_model (GTK_COLUMN_VIEW (view), model);
}

void
ks_page_table_init (KsPageTable     *table,
                    GtkColumnView   *view,
                    KsRowFilterFunc  filter,
                    gpointer         page)
{
  Filter *f = g_new0 (Filter, 1);

  f->filter = filter;
  f->page = page;

  table->view = view;
  table->page = page;
  table->model = ks_index_model_new ();
  table->shown = gtk_widget_get_mapped (GTK_WIDGET (view));
  /* before the models above take the rows, and after */
  g_signal_connect (table->model, "items-changed", G_CALLBACK (rows_changing_cb), table);
  table->filter = gtk_custom_filter_new (filter_cb, f, g_free);
  table->filter_model = gtk_filter_list_model_new (g_object_ref (G_LIST_MODEL (table->model)),
                                                   g_object_ref (GTK_FILTER (table->filter)));
  table->sort_model = gtk_sort_list_model_new (g_object_ref (G_LIST_MODEL (table->filter_model)),
                                               g_object_ref (gtk_column_view_get_sorter (view)));
  table->selection = gtk_single_selection_new (g_object_ref (G_LIST_MODEL (table->sort_model)));
  gtk_single_selection_set_autoselect (table->selection, FALSE);
  gtk_single_selection_set_can_unselect (table->selection, TRUE);
  gtk_column_view_set_model (view, GTK_SELECTION_MODEL (table->selection));
  g_signal_connect_after (table->model, "items-changed", G_CALLBACK (rows_changed_cb), table);
  g_signal_connect (table->model, "notify::pending", G_CALLBACK (pending_cb), table);
  g_signal_connect (table->sort_model, "notify::pending", G_CALLBACK (pending_cb), table);

  {
    GtkEventController *keys = gtk_event_controller_key_new ();

    /* before the rows see the key */
    gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
    gtk_event_controller_set_name (keys, "ks-table-tab");
    g_signal_connect (keys, "key-pressed", G_CALLBACK (key_pressed_cb), NULL);
    gtk_widget_add_controller (GTK_WIDGET (view), keys);
  }
  g_signal_connect (view, "map", G_CALLBACK (view_map_cb), table);
}

void
ks_page_table_clear (KsPageTable *table)
{
  if (table->view != NULL)
    {
      g_signal_handlers_disconnect_by_data (table->view, table);
      gtk_column_view_set_model (table->view, NULL);
    }
  if (table->model != NULL)
    {
      g_signal_handlers_disconnect_by_data (table->model, table);
      g_signal_handlers_disconnect_by_data (table->sort_model, table);
    }
  if (table->busy && KS_IS_PAGE (table->page))
    ks_page_release_filled (KS_PAGE (table->page));
  table->busy = FALSE;
  g_clear_object (&table->selection);
  g_clear_object (&table->sort_model);
  g_clear_object (&table->filter_model);
  g_clear_object (&table->filter);
  g_clear_object (&table->model);
  g_clear_pointer (&table->report, ks_report_free);
  g_clear_object (&table->columns_menu);
  g_clear_object (&table->columns_actions);
  table->view = NULL;
}

void
ks_page_table_refilter (KsPageTable *table)
{
  /* GTK's incremental filtering cannot be finished on demand without
   * losing rows (GTK 4.8), so a long table takes its rows again, in
   * steps, through the changed filter. */
  if (is_long (table))
    ks_index_model_reset (table->model);
  else
    gtk_filter_changed (GTK_FILTER (table->filter), GTK_FILTER_CHANGE_DIFFERENT);
}

guint
ks_page_table_get_n_shown (KsPageTable *table)
{
  return g_list_model_get_n_items (G_LIST_MODEL (table->selection));
}

guint
ks_page_table_get_index_at (KsPageTable *table,
                            guint        position)
{
  g_autoptr(KsRowItem) item = g_list_model_get_item (G_LIST_MODEL (table->selection), position);

  return item != NULL ? ks_row_item_get_index (item) : G_MAXUINT;
}

guint
ks_page_table_find_index (KsPageTable *table,
                          guint        index)
{
  guint n = ks_page_table_get_n_shown (table);

  for (guint i = 0; i < n; i++)
    if (ks_page_table_get_index_at (table, i) == index)
      return i;
  return G_MAXUINT;
}

static void
setup_cb (GtkSignalListItemFactory *factory,
          GtkListItem              *list_item,
          Column                   *c)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), c->numeric ? 1.0 : 0.0);
  /* In the middle: names that differ only at the end (a kernel's tile
   * size, template arguments) stay apart; the tooltip has all of it. */
  gtk_label_set_ellipsize (GTK_LABEL (label), c->numeric ? PANGO_ELLIPSIZE_NONE : PANGO_ELLIPSIZE_MIDDLE);
  if (c->wrap)
    {
      /* A second line, when narrow, for the rest of the sentence: its
       * start (a gap's cause, "DataLoader:") is read whole */
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
      gtk_label_set_lines (GTK_LABEL (label), 2);
      gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
    }
  if (c->numeric)
    gtk_widget_add_css_class (label, "numeric");
  gtk_list_item_set_child (list_item, label);
}

static void
bind_cb (GtkSignalListItemFactory *factory,
         GtkListItem              *list_item,
         Column                   *c)
{
  GtkWidget *label = gtk_list_item_get_child (list_item);
  KsRowItem *item = gtk_list_item_get_item (list_item);
  g_autofree char *full = ks_report_get_text (c->table->report, c->report_column, ks_row_item_get_index (item));
  /* Pango lays out all of a text it ellipsizes */
  g_autofree char *text = ks_format_dup_cut_text (full, KS_TEXT_MAX_CHARS, TRUE);

  gtk_label_set_text (GTK_LABEL (label), text);
  /* Names get their full text, numbers the definition of the column.
   * GTK asks the display server where the pointer is whenever a visible
   * widget's tooltip changes (a round trip on X11, for each of the 200
   * rows times the columns a list binds at once), so the label is
   * hidden meanwhile. */
  gtk_widget_set_visible (label, FALSE);
  gtk_widget_set_tooltip_text (label, c->numeric ? c->tooltip : text);
  gtk_widget_set_visible (label, TRUE);
}

static int
compare_cb (gconstpointer a,
            gconstpointer b,
            gpointer      user_data)
{
  Column *c = user_data;
  guint ia = ks_row_item_get_index ((KsRowItem *)a);
  guint ib = ks_row_item_get_index ((KsRowItem *)b);

  return ks_report_compare (c->table->report, c->report_column, ia, ib);
}

GtkColumnViewColumn *
ks_page_table_add_report_column (KsPageTable          *table,
                                 const KsReportColumn *report_column)
{
  GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
  GtkColumnViewColumn *column;
  GtkCustomSorter *sorter;
  Column *c = g_new0 (Column, 1);
  Column *sc;

  c->table = table;
  c->report_column = report_column;
  c->numeric = report_column->unit != KS_REPORT_UNIT_TEXT;
  c->tooltip = g_strdup (ks_report_column_get_tooltip (report_column));

  g_signal_connect (factory, "setup", G_CALLBACK (setup_cb), c);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_cb), c);
  g_object_set_data_full (G_OBJECT (factory), "ks-column", c, column_free);

  /* A view not shown yet gets its cells when it is first mapped */
  column = gtk_column_view_column_new (ks_report_column_get_title (report_column),
                                       gtk_widget_get_mapped (GTK_WIDGET (table->view)) ? g_object_ref (factory) : NULL);
  g_object_set_data_full (G_OBJECT (column), "ks-factory", factory, g_object_unref);
  gtk_column_view_column_set_resizable (column, TRUE);
  gtk_column_view_column_set_expand (column, !c->numeric);
  /* The sorter may outlive the factory: it gets its own copy */
  sc = g_memdup2 (c, sizeof *c);
  sc->tooltip = NULL;
  sorter = gtk_custom_sorter_new (compare_cb, sc, column_free);
  gtk_column_view_column_set_sorter (column, GTK_SORTER (sorter));
  g_object_unref (sorter);
  g_object_set_data (G_OBJECT (column), "ks-report-key", (gpointer)report_column->key);
  gtk_column_view_append_column (table->view, column);
  g_object_unref (column);
  return column;
}

/* The header widget of @column: GtkColumnView has no API for it before
 * GTK 4.12; it is the child of the view's header row titled like it. */
static GtkWidget *
column_header (GtkColumnView       *view,
               GtkColumnViewColumn *column)
{
  GtkWidget *row = gtk_widget_get_first_child (GTK_WIDGET (view));

  for (GtkWidget *header = row != NULL ? gtk_widget_get_first_child (row) : NULL;
       header != NULL; header = gtk_widget_get_next_sibling (header))
    for (GtkWidget *w = gtk_widget_get_first_child (header); w != NULL; w = gtk_widget_get_first_child (w))
      if (GTK_IS_LABEL (w))
        {
          if (g_strcmp0 (gtk_label_get_text (GTK_LABEL (w)), gtk_column_view_column_get_title (column)) == 0)
            return header;
          break;
        }
  return NULL;
}

/* "device_total_ns" -> "device-total-ns": action names have no '_'. */
static char *
column_action_name (const char *key)
{
  char *name = g_strdup (key);

  g_strdelimit (name, "_", '-');
  return name;
}

void
ks_page_table_add_report_columns (KsPageTable          *table,
                                  const KsReportColumn *columns,
                                  guint                 n)
{
  const KsReportColumn *shown[64];
  guint n_shown = ks_report_get_page_columns (columns, n, shown, G_N_ELEMENTS (shown));
  GtkColumnViewColumn *added[64];
  GSimpleActionGroup *actions;
  GMenu *menu;

  /* One menu for every column, whichever call added it: a page that adds
   * its columns in two sets (the FLOP columns) still lists them all. */
  if (table->columns_menu == NULL)
    {
      table->columns_menu = g_menu_new ();
      table->columns_actions = g_simple_action_group_new ();
      gtk_widget_insert_action_group (GTK_WIDGET (table->view), "columns",
                                      G_ACTION_GROUP (table->columns_actions));
    }
  menu = table->columns_menu;
  actions = table->columns_actions;
  for (guint i = 0; i < n_shown; i++)
    added[i] = ks_page_table_add_report_column (table, shown[i]);

  /* Each header's menu (a right click) shows or hides any column, and the
   * header says what its column holds: the numbers' definitions, the
   * Grid's "*". */
  for (guint i = 0; i < n_shown; i++)
    {
      g_autofree char *name = column_action_name (shown[i]->key);
      g_autofree char *detailed = g_strconcat ("columns.", name, NULL);
      g_autoptr(GPropertyAction) action = g_property_action_new (name, added[i], "visible");
      const char *tooltip = ks_report_column_get_tooltip (shown[i]);
      GtkWidget *header = column_header (table->view, added[i]);

      g_action_map_add_action (G_ACTION_MAP (actions), G_ACTION (action));
      g_menu_append (menu, gtk_column_view_column_get_title (added[i]), detailed);
      if (header != NULL && tooltip != NULL)
        gtk_widget_set_tooltip_text (header, tooltip);
    }
  for (guint i = 0; i < n_shown; i++)
    gtk_column_view_column_set_header_menu (added[i], G_MENU_MODEL (menu));
}

void
ks_page_table_show_columns (KsPageTable       *table,
                            const char *const *keys)
{
  GListModel *columns = gtk_column_view_get_columns (table->view);

  for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);
      const char *key = g_object_get_data (G_OBJECT (column), "ks-report-key");

      gtk_column_view_column_set_visible (column, key != NULL && g_strv_contains (keys, key));
    }
}

GtkColumnViewColumn *
ks_page_table_get_report_column (KsPageTable *table,
                                 const char  *key)
{
  GListModel *columns = gtk_column_view_get_columns (table->view);

  for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);

      if (g_strcmp0 (g_object_get_data (G_OBJECT (column), "ks-report-key"), key) == 0)
        return column;
    }
  return NULL;
}

void
ks_page_table_set_report (KsPageTable *table,
                          KsReport    *report)
{
  guint n = report != NULL ? report->n_rows : 0;

  table->freeze++;
  /* Drop the rows before the report they read goes */
  ks_index_model_set_n (table->model, 0);
  g_clear_pointer (&table->report, ks_report_free);
  table->report = report;
  gtk_sort_list_model_set_incremental (table->sort_model, is_long (table));
  ks_index_model_set_steps (table->model, first_step (table), KS_PAGE_TABLE_STEP);
  ks_index_model_set_n (table->model, n);
  table->freeze--;
  update_busy (table);
}

void
ks_page_table_search (KsPageTable  *table,
                      char        **needle,
                      GtkEditable  *entry)
{
  g_free (*needle);
  *needle = g_utf8_casefold (gtk_editable_get_text (entry), -1);
  ks_page_table_refilter (table);
}

gboolean
ks_page_text_matches (const char *text,
                      const char *needle)
{
  g_autofree char *folded = NULL;

  if (needle == NULL || needle[0] == 0)
    return TRUE;
  folded = g_utf8_casefold (text, -1);
  return strstr (folded, needle) != NULL;
}

void
ks_page_table_set_column_wrap (KsPageTable *table,
                               const char  *key)
{
  GtkColumnViewColumn *column = ks_page_table_get_report_column (table, key);
  Column *c;

  g_return_if_fail (column != NULL);
  c = g_object_get_data (g_object_get_data (G_OBJECT (column), "ks-factory"), "ks-column");
  g_return_if_fail (c != NULL && !c->numeric);
  c->wrap = TRUE;
}
