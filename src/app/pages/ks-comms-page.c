/* ks-comms-page.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-comms-page"

#include "config.h"

#include <glib/gi18n.h>

#include "ks-comms-page.h"
#include "ks-page-table.h"

struct _KsCommsPage
{
  KsPage               parent_instance;

  GtkLabel            *empty_label;
  GtkColumnView       *view;
  GtkColumnViewColumn *total_column;

  KsPageTable          table;
};

G_DEFINE_FINAL_TYPE (KsCommsPage, ks_comms_page, KS_TYPE_PAGE)

static gboolean
filter_row (gpointer p,
            guint    i)
{
  return TRUE;
}

static void
ks_comms_page_refill (KsPage     *page,
                      KsTrace    *trace,
                      KsAnalysis *analysis)
{
  KsCommsPage *self = KS_COMMS_PAGE (page);
  guint n = 0;

  ks_page_table_set_report (&self->table, NULL);
  if (analysis != NULL)
    {
      ks_analysis_get_comm_stats (analysis, &n);
      ks_page_table_set_report (&self->table, ks_report_new_comms (trace, analysis));
    }
  gtk_column_view_sort_by_column (self->view, self->total_column, GTK_SORT_DESCENDING);
  gtk_widget_set_visible (GTK_WIDGET (self->empty_label), analysis != NULL && n == 0);
}

static void
ks_comms_page_dispose (GObject *object)
{
  KsCommsPage *self = (KsCommsPage *)object;

  ks_page_table_clear (&self->table);
  ks_page_dispose_template (GTK_WIDGET (self), KS_TYPE_COMMS_PAGE);

  G_OBJECT_CLASS (ks_comms_page_parent_class)->dispose (object);
}

static void
ks_comms_page_class_init (KsCommsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_comms_page_dispose;
  KS_PAGE_CLASS (klass)->refill = ks_comms_page_refill;

  gtk_widget_class_set_template_from_resource (widget_class, "/org/kinescope/Kinescope/pages/ks-comms-page.ui");
  gtk_widget_class_bind_template_child (widget_class, KsCommsPage, empty_label);
  gtk_widget_class_bind_template_child (widget_class, KsCommsPage, view);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
ks_comms_page_init (KsCommsPage *self)
{
  const KsReportColumn *columns;
  guint n;

  gtk_widget_init_template (GTK_WIDGET (self));
  ks_page_table_init (&self->table, self->view, filter_row, self);
  columns = ks_report_comm_columns (&n);
  ks_page_table_add_report_columns (&self->table, columns, n);
  self->total_column = ks_page_table_get_report_column (&self->table, "total_ns");
}

GtkWidget *
ks_comms_page_new (void)
{
  return g_object_new (KS_TYPE_COMMS_PAGE, NULL);
}
