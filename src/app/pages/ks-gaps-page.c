/* ks-gaps-page.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-gaps-page"

#include "config.h"

#include <glib/gi18n.h>

#include "ks-format.h"
#include "ks-gaps-page.h"
#include "ks-page-table.h"

struct _KsGapsPage
{
  KsPage               parent_instance;

  GtkSearchEntry      *search_entry;
  GtkToggleButton     *largest_button;
  GtkToggleButton     *time_button;
  GtkButton           *highlight_button;
  GtkLabel            *count_label;
  GtkColumnView       *view;

  GtkColumnViewColumn *start_column;
  GtkColumnViewColumn *duration_column;
  GtkColumnViewColumn *device_column;
  const KsReportColumn *class_descriptor;
  const KsReportColumn *cause_descriptor;
  KsPageTable          table;
  char                *needle;   /* casefolded filter text */

  /* Borrowed from KsPage, set by refill */
  KsTrace             *trace;
  KsAnalysis          *analysis;
  const KsGap         *gaps;
  guint                n_gaps;
};

G_DEFINE_FINAL_TYPE (KsGapsPage, ks_gaps_page, KS_TYPE_PAGE)

enum { PROP_0, PROP_ORDER_BY_TIME, N_PROPS };
static GParamSpec *properties[N_PROPS];

static gboolean
filter_row (gpointer page,
            guint    i)
{
  KsGapsPage *self = page;
  g_autofree char *klass = NULL;
  g_autofree char *cause = NULL;
  g_autofree char *text = NULL;

  /* Building the text costs; skip it when there is nothing to find */
  if (self->needle == NULL || self->needle[0] == 0)
    return TRUE;
  /* What the row shows */
  klass = ks_report_get_text (self->table.report, self->class_descriptor, i);
  cause = ks_report_get_text (self->table.report, self->cause_descriptor, i);
  text = g_strdup_printf ("%s %s", klass, cause);
  return ks_page_text_matches (text, self->needle);
}

static void
update_count (KsGapsPage *self)
{
  g_autofree char *text = NULL;
  guint shown = ks_page_table_get_n_shown (&self->table);

  if (self->analysis == NULL)
    text = g_strdup (_("No trace"));
  else
    {
      g_autofree char *threshold =
        ks_time_format_duration (ks_analysis_get_options (self->analysis)->gap_threshold_ns);

      if (shown == self->n_gaps)
        text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u gap longer than %s",
                                             "%u gaps longer than %s", self->n_gaps),
                                self->n_gaps, threshold);
      else
        text = g_strdup_printf (_("%u of %u gaps longer than %s"), shown, self->n_gaps, threshold);
    }
  gtk_label_set_text (self->count_label, text);
}

static void
apply_order (KsGapsPage *self)
{
  guint position = gtk_single_selection_get_selected (self->table.selection);
  guint selected = G_MAXUINT;

  if (self->analysis != NULL && position != GTK_INVALID_LIST_POSITION)
    selected = ks_page_table_get_index_at (&self->table, position);

  if (gtk_toggle_button_get_active (self->time_button))
    gtk_column_view_sort_by_column (self->view, self->start_column, GTK_SORT_ASCENDING);
  else
    gtk_column_view_sort_by_column (self->view, self->duration_column, GTK_SORT_DESCENDING);

  /* Keep the selected gap, so ] and [ go on from it in the new order */
  if (selected != G_MAXUINT)
    {
      position = ks_page_table_find_index (&self->table, selected);
      gtk_single_selection_set_selected (self->table.selection,
                                         position != G_MAXUINT ? position : GTK_INVALID_LIST_POSITION);
    }
}

static void
order_toggled_cb (KsGapsPage *self)
{
  apply_order (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ORDER_BY_TIME]);
}

static void
search_changed_cb (KsGapsPage *self)
{
  ks_page_table_search (&self->table, &self->needle, GTK_EDITABLE (self->search_entry));
  update_count (self);
}

static void
emit_navigate (KsGapsPage  *self,
               const KsGap *gap)
{
  gint64 margin = MAX ((gap->end - gap->start) / 10, 1000);
  KsSession *session = ks_page_get_session (KS_PAGE (self));
  GtkWidget *stack = gtk_widget_get_ancestor (GTK_WIDGET (self), GTK_TYPE_STACK);

  /* The gap is also the selected range, and its GPU row is brought into
   * view wherever the rows were scrolled to. */
  if (session != NULL && ks_session_get_trace (session) != NULL)
    {
      ks_session_select_range (session, gap->start, gap->end);
      if (gap->next_track != KS_NO_INDEX)
        ks_session_reveal_track (session, gap->next_track);
    }
  ks_page_navigate (KS_PAGE (self), gap->start - margin, gap->end + margin);
  /* A range brings up the Selection page of the panel, but the user is
   * going through the gap list: the list stays. */
  if (stack != NULL && gtk_widget_get_parent (GTK_WIDGET (self)) == stack)
    gtk_stack_set_visible_child (GTK_STACK (stack), GTK_WIDGET (self));
}

static void
activate_cb (KsGapsPage *self,
             guint       position)
{
  guint i = ks_page_table_get_index_at (&self->table, position);

  if (i == G_MAXUINT)
    return;
  gtk_single_selection_set_selected (self->table.selection, position);
  emit_navigate (self, &self->gaps[i]);
}

static void
highlight_clicked_cb (KsGapsPage *self)
{
  const KsGap *gap = ks_gaps_page_get_selected (self);

  if (gap != NULL && gap->cause_name != 0)
    ks_page_highlight (KS_PAGE (self), (guint)gap->cause_name);
}

static void
selection_changed_cb (KsGapsPage *self)
{
  const KsGap *gap = ks_gaps_page_get_selected (self);

  gtk_widget_set_sensitive (GTK_WIDGET (self->highlight_button), gap != NULL && gap->cause_name != 0);
}

const KsGap *
ks_gaps_page_get_selected (KsGapsPage *self)
{
  guint position;
  guint i;

  g_return_val_if_fail (KS_IS_GAPS_PAGE (self), NULL);

  if (self->analysis == NULL)
    return NULL;
  position = gtk_single_selection_get_selected (self->table.selection);
  if (position == GTK_INVALID_LIST_POSITION)
    return NULL;
  i = ks_page_table_get_index_at (&self->table, position);
  return i < self->n_gaps ? &self->gaps[i] : NULL;
}

static void
scroll_to (KsGapsPage *self,
           guint       position)
{
  /* GtkColumnView has no scroll API before GTK 4.12: its list does. */
  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->view));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    if (GTK_IS_LIST_VIEW (child))
      gtk_widget_activate_action (child, "list.scroll-to-item", "u", position);
}

gboolean
ks_gaps_page_step (KsGapsPage *self,
                   int         direction)
{
  guint n, position, next;
  guint i;

  g_return_val_if_fail (KS_IS_GAPS_PAGE (self), FALSE);

  /* ] right after a new analysis steps through all of its gaps */
  ks_page_fill (KS_PAGE (self));
  ks_page_table_finish (&self->table);
  n = self->analysis ? ks_page_table_get_n_shown (&self->table) : 0;
  if (n == 0)
    return FALSE;

  position = gtk_single_selection_get_selected (self->table.selection);
  if (position == GTK_INVALID_LIST_POSITION)
    next = direction >= 0 ? 0 : n - 1;
  else if (direction >= 0)
    {
      if (position + 1 >= n)
        return FALSE;
      next = position + 1;
    }
  else
    {
      if (position == 0)
        return FALSE;
      next = position - 1;
    }

  gtk_single_selection_set_selected (self->table.selection, next);
  scroll_to (self, next);
  i = ks_page_table_get_index_at (&self->table, next);
  emit_navigate (self, &self->gaps[i]);
  return TRUE;
}

gboolean
ks_gaps_page_get_order_by_time (KsGapsPage *self)
{
  g_return_val_if_fail (KS_IS_GAPS_PAGE (self), FALSE);
  return gtk_toggle_button_get_active (self->time_button);
}

void
ks_gaps_page_set_order_by_time (KsGapsPage *self,
                                gboolean    by_time)
{
  g_return_if_fail (KS_IS_GAPS_PAGE (self));

  if (by_time == ks_gaps_page_get_order_by_time (self))
    return;
  gtk_toggle_button_set_active (by_time ? self->time_button : self->largest_button, TRUE);
}

static void
ks_gaps_page_refill (KsPage     *page,
                     KsTrace    *trace,
                     KsAnalysis *analysis)
{
  KsGapsPage *self = KS_GAPS_PAGE (page);

  /* Drop the rows before the records they point at go */
  ks_page_table_set_report (&self->table, NULL);
  self->trace = trace;
  self->analysis = analysis;
  self->gaps = NULL;
  self->n_gaps = 0;
  if (self->analysis != NULL)
    {
      guint n_gpus = 0;

      self->gaps = ks_analysis_get_gaps (self->analysis, &self->n_gaps);
      ks_analysis_get_gpus (self->analysis, &n_gpus);
      gtk_column_view_column_set_visible (self->device_column, n_gpus > 1);
    }
  ks_page_table_set_report (&self->table, self->analysis ? ks_report_new_gaps (trace, self->analysis) : NULL);
  apply_order (self);
  update_count (self);
  selection_changed_cb (self);
}

static void
ks_gaps_page_get_property (GObject    *object,
                           guint       prop_id,
                           GValue     *value,
                           GParamSpec *pspec)
{
  KsGapsPage *self = KS_GAPS_PAGE (object);

  switch (prop_id)
    {
    case PROP_ORDER_BY_TIME:
      g_value_set_boolean (value, ks_gaps_page_get_order_by_time (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_gaps_page_set_property (GObject      *object,
                           guint         prop_id,
                           const GValue *value,
                           GParamSpec   *pspec)
{
  KsGapsPage *self = KS_GAPS_PAGE (object);

  switch (prop_id)
    {
    case PROP_ORDER_BY_TIME:
      ks_gaps_page_set_order_by_time (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_gaps_page_dispose (GObject *object)
{
  KsGapsPage *self = (KsGapsPage *)object;

  ks_page_table_clear (&self->table);
  ks_page_dispose_template (GTK_WIDGET (self), KS_TYPE_GAPS_PAGE);
  g_clear_pointer (&self->needle, g_free);

  G_OBJECT_CLASS (ks_gaps_page_parent_class)->dispose (object);
}

static void
ks_gaps_page_class_init (KsGapsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_gaps_page_dispose;
  KS_PAGE_CLASS (klass)->refill = ks_gaps_page_refill;
  object_class->get_property = ks_gaps_page_get_property;
  object_class->set_property = ks_gaps_page_set_property;

  properties[PROP_ORDER_BY_TIME] =
    g_param_spec_boolean ("order-by-time", NULL, NULL, FALSE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/kinescope/Kinescope/pages/ks-gaps-page.ui");
  gtk_widget_class_bind_template_child (widget_class, KsGapsPage, search_entry);
  gtk_widget_class_bind_template_child (widget_class, KsGapsPage, largest_button);
  gtk_widget_class_bind_template_child (widget_class, KsGapsPage, time_button);
  gtk_widget_class_bind_template_child (widget_class, KsGapsPage, highlight_button);
  gtk_widget_class_bind_template_child (widget_class, KsGapsPage, count_label);
  gtk_widget_class_bind_template_child (widget_class, KsGapsPage, view);
  gtk_widget_class_bind_template_callback (widget_class, search_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, order_toggled_cb);
  gtk_widget_class_bind_template_callback (widget_class, highlight_clicked_cb);
  gtk_widget_class_bind_template_callback (widget_class, activate_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
ks_gaps_page_init (KsGapsPage *self)
{
  const KsReportColumn *columns;
  GtkColumnViewColumn *class_column;
  guint n;

  gtk_widget_init_template (GTK_WIDGET (self));

  ks_page_table_init (&self->table, self->view, filter_row, self);
  columns = ks_report_gap_columns (&n);
  ks_page_table_add_report_columns (&self->table, columns, n);
  self->class_descriptor = ks_report_find_column (columns, n, "class");
  self->cause_descriptor = ks_report_find_column (columns, n, "cpu_was_in");
  self->duration_column = ks_page_table_get_report_column (&self->table, "dur_ns");
  self->start_column = ks_page_table_get_report_column (&self->table, "start_ns");
  self->device_column = ks_page_table_get_report_column (&self->table, "device");
  class_column = ks_page_table_get_report_column (&self->table, "class");
  /* Room for the cause, the column that says why: in a 300 px panel
   * (an 800 px wide window) the four columns fit */
  gtk_column_view_column_set_fixed_width (self->duration_column, 64);
  gtk_column_view_column_set_fixed_width (self->start_column, 60);
  gtk_column_view_column_set_fixed_width (class_column, 76);
  gtk_column_view_column_set_expand (class_column, FALSE);
  /* Narrow (an 800 px wide window), "DataLoader: enumerate(…" takes two
   * lines rather than becoming "DataL…ne" */
  ks_page_table_set_column_wrap (&self->table, "cpu_was_in");
  g_signal_connect_object (self->table.selection, "notify::selected",
                           G_CALLBACK (selection_changed_cb), self, G_CONNECT_SWAPPED);
  /* A long table shows its rows, and a search's, over several iterations */
  g_signal_connect_object (self->table.selection, "items-changed",
                           G_CALLBACK (update_count), self, G_CONNECT_SWAPPED);
  /* Once: each change of a tooltip asks the display where the pointer is */
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->count_label), ks_metric_get_definition (KS_METRIC_GAP));
  apply_order (self);
  update_count (self);
}

GtkWidget *
ks_gaps_page_new (void)
{
  return g_object_new (KS_TYPE_GAPS_PAGE, NULL);
}
