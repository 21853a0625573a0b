/* ks-operators-page.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-operators-page"

#include "config.h"

#include <glib/gi18n.h>

#include "ks-format.h"
#include "ks-operators-page.h"
#include "ks-page-table.h"
#include "ks-report-roofline.h"

struct _KsOperatorsPage
{
  KsPage                 parent_instance;

  GtkSearchEntry        *search_entry;
  GtkToggleButton       *shape_button;
  GtkColumnView         *view;
  GtkColumnViewColumn   *dims_column;
  GtkColumnViewColumn   *device_column;
  GtkColumnViewColumn   *thread_column;

  KsPageTable            table;
  char                  *needle;
  GCancellable          *cancellable;
  KsRoofline            *roofline;   /* for the FLOP columns, once computed */

  /* Borrowed from KsPage, set by refill */
  KsTrace               *trace;
  KsAnalysis            *analysis;
  const KsOperatorStats *ops;
  guint                  n_ops;
};

G_DEFINE_FINAL_TYPE (KsOperatorsPage, ks_operators_page, KS_TYPE_PAGE)

static gboolean
filter_row (gpointer p,
            guint    i)
{
  KsOperatorsPage *self = p;

  return ks_page_text_matches (ks_trace_string (self->trace, self->ops[i].name), self->needle);
}

static void
reload (KsOperatorsPage *self)
{
  gboolean by_shape = gtk_toggle_button_get_active (self->shape_button);
  KsReport *report = NULL;

  ks_page_table_set_report (&self->table, NULL);
  self->ops = NULL;
  self->n_ops = 0;
  if (self->analysis != NULL)
    self->ops = ks_analysis_get_operators (self->analysis,
                                           by_shape ? KS_OPERATOR_BY_NAME_AND_SHAPE : KS_OPERATOR_BY_NAME,
                                           &self->n_ops);
  if (self->analysis != NULL)
    report = ks_report_new_operators (self->trace, self->analysis, by_shape);
  if (report != NULL && self->roofline != NULL)
    ks_report_set_roofline (report, self->roofline);

  gtk_column_view_column_set_visible (self->dims_column, by_shape);
  /* CPU time beside wall time, when the trace has thread times */
  gtk_column_view_column_set_visible (self->thread_column, report != NULL && ks_report_has_thread_time (report));
  ks_page_table_set_report (&self->table, report);
}

static void
shape_toggled_cb (KsOperatorsPage *self)
{
  reload (self);
}

static void
search_changed_cb (KsOperatorsPage *self)
{
  ks_page_table_search (&self->table, &self->needle, GTK_EDITABLE (self->search_entry));
}

static void
activate_cb (KsOperatorsPage *self,
             guint            position)
{
  guint i = ks_page_table_get_index_at (&self->table, position);
  const KsOperatorStats *op;
  const KsTrack *track;

  if (i == G_MAXUINT)
    return;
  op = &self->ops[i];
  ks_page_highlight (KS_PAGE (self), (guint)op->name);
  if (op->longest_track == KS_NO_INDEX)
    return;
  track = &self->trace->tracks[op->longest_track];
  ks_page_navigate (KS_PAGE (self), track->start[op->longest_slice], track->end[op->longest_slice]);
}

static void
roofline_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(KsOperatorsPage) self = user_data;
  g_autoptr(KsRoofline) roofline = ks_roofline_get_shared_finish (result, NULL);

  if (roofline == NULL || self->analysis == NULL)
    return;
  g_set_object (&self->roofline, roofline);
  reload (self);
  gtk_column_view_sort_by_column (self->view, self->device_column, GTK_SORT_DESCENDING);
}

static void
ks_operators_page_refill (KsPage     *page,
                          KsTrace    *trace,
                          KsAnalysis *analysis)
{
  KsOperatorsPage *self = KS_OPERATORS_PAGE (page);

  ks_page_table_set_report (&self->table, NULL);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->roofline);
  self->trace = trace;
  self->analysis = analysis;
  reload (self);
  if (analysis != NULL)
    {
      self->cancellable = g_cancellable_new ();
      ks_roofline_get_shared_async (trace, analysis, self->cancellable, roofline_cb, g_object_ref (self));
    }
  gtk_column_view_sort_by_column (self->view, self->device_column, GTK_SORT_DESCENDING);

  {
    guint n_ops = 0;
    const char *missing = trace != NULL ? ks_analysis_explain_missing (trace, KS_MISSING_OPERATORS) : NULL;

    if (analysis != NULL)
      ks_analysis_get_operators (analysis, KS_OPERATOR_BY_NAME, &n_ops);
    /* a recording made without them says which option records them */
    ks_page_set_empty (page, "view-list-symbolic",
                       analysis != NULL && n_ops == 0 ? _("No Operators") : NULL,
                       missing != NULL ? missing
                                       : _("This trace has no PyTorch operators (an Nsight export has CUDA calls, not "
                                           "operators). Record with torch.profiler, or kinescope-cli record, to see "
                                           "which operators the time goes to."));
  }
}

static void
ks_operators_page_dispose (GObject *object)
{
  KsOperatorsPage *self = (KsOperatorsPage *)object;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->roofline);
  ks_page_table_clear (&self->table);
  ks_page_dispose_template (GTK_WIDGET (self), KS_TYPE_OPERATORS_PAGE);
  g_clear_pointer (&self->needle, g_free);

  G_OBJECT_CLASS (ks_operators_page_parent_class)->dispose (object);
}

static void
ks_operators_page_class_init (KsOperatorsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_operators_page_dispose;
  KS_PAGE_CLASS (klass)->refill = ks_operators_page_refill;

  gtk_widget_class_set_template_from_resource (widget_class, "/org/kinescope/Kinescope/pages/ks-operators-page.ui");
  gtk_widget_class_bind_template_child (widget_class, KsOperatorsPage, search_entry);
  gtk_widget_class_bind_template_child (widget_class, KsOperatorsPage, shape_button);
  gtk_widget_class_bind_template_child (widget_class, KsOperatorsPage, view);
  gtk_widget_class_bind_template_callback (widget_class, search_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, shape_toggled_cb);
  gtk_widget_class_bind_template_callback (widget_class, activate_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
ks_operators_page_init (KsOperatorsPage *self)
{
  const KsReportColumn *columns;
  guint n;

  gtk_widget_init_template (GTK_WIDGET (self));

  ks_page_table_init (&self->table, self->view, filter_row, self);
  columns = ks_report_operator_columns (&n);
  ks_page_table_add_report_columns (&self->table, columns, n);
  columns = ks_report_operator_flop_columns (&n);
  ks_page_table_add_report_columns (&self->table, columns, n);
  /* What fits the side panel beside the names at the default window
   * size; the others are in the header's menu. The shapes come with By
   * Shape, the CPU time with a trace that has it. */
  ks_page_table_show_columns (&self->table,
                              (const char *const[]) { "name", "calls", "host_total_ns", "device_total_ns", NULL });
  gtk_column_view_column_set_fixed_width (ks_page_table_get_report_column (&self->table, "name"), 160);
  self->dims_column = ks_page_table_get_report_column (&self->table, "input_dims");
  self->device_column = ks_page_table_get_report_column (&self->table, "device_total_ns");
  self->thread_column = ks_page_table_get_report_column (&self->table, "host_thread_ns");
}

GtkWidget *
ks_operators_page_new (void)
{
  return g_object_new (KS_TYPE_OPERATORS_PAGE, NULL);
}
