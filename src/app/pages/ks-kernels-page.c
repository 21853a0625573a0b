/* ks-kernels-page.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-kernels-page"

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>

#include "ks-format.h"
#include "ks-kernels-page.h"
#include "ks-page-charts.h"
#include "ks-page-table.h"
#include "ks-report-roofline.h"

struct _KsKernelsPage
{
  KsPage                parent_instance;

  GtkSearchEntry       *search_entry;
  GtkColumnView        *view;
  GtkLabel             *latency_label;
  GtkDrawingArea       *latency_area;
  GtkColumnViewColumn  *total_column;

  KsPageTable           table;
  char                 *needle;
  GCancellable         *cancellable;
  KsRoofline           *roofline;   /* for the FLOP columns, once computed */

  /* Borrowed from KsPage, set by refill */
  KsTrace              *trace;
  KsAnalysis           *analysis;
  const KsKernelStats  *kernels;
  guint                 n_kernels;
};

G_DEFINE_FINAL_TYPE (KsKernelsPage, ks_kernels_page, KS_TYPE_PAGE)

static gboolean
filter_row (gpointer p,
            guint    i)
{
  KsKernelsPage *self = p;

  return ks_page_text_matches (ks_trace_string (self->trace, self->kernels[i].name), self->needle);
}

static void
search_changed_cb (KsKernelsPage *self)
{
  ks_page_table_search (&self->table, &self->needle, GTK_EDITABLE (self->search_entry));
}

static void
activate_cb (KsKernelsPage *self,
             guint          position)
{
  guint i = ks_page_table_get_index_at (&self->table, position);
  const KsKernelStats *k;
  const KsTrack *track;

  if (i == G_MAXUINT)
    return;
  k = &self->kernels[i];
  ks_page_highlight (KS_PAGE (self), (guint)k->name);
  track = &self->trace->tracks[k->longest_track];
  if (k->calls <= 1)
    {
      ks_page_navigate (KS_PAGE (self), track->start[k->longest_slice], track->end[k->longest_slice]);
      return;
    }

  /* Many calls: show them all, from the first to the last (highlighted),
   * rather than a few microseconds around one of them. */
  ks_page_navigate (KS_PAGE (self), k->first_start, k->last_end);
}

static void
draw_latency_cb (GtkDrawingArea *area,
                 cairo_t        *cr,
                 int             width,
                 int             height,
                 gpointer        user_data)
{
  KsKernelsPage *self = user_data;
  GdkRGBA fg;

  if (self->analysis == NULL)
    return;
  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (area)), &fg);
  ks_chart_draw_latency (cr, width, height, &fg, ks_analysis_get_launch_latency (self->analysis));
}

static void
set_report (KsKernelsPage *self)
{
  KsReport *report = self->analysis ? ks_report_new_kernels (self->trace, self->analysis) : NULL;

  if (report != NULL && self->roofline != NULL)
    ks_report_set_roofline (report, self->roofline);
  ks_page_table_set_report (&self->table, report);
  gtk_column_view_sort_by_column (self->view, self->total_column, GTK_SORT_DESCENDING);
}

static void
roofline_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(KsKernelsPage) self = user_data;
  g_autoptr(KsRoofline) roofline = ks_roofline_get_shared_finish (result, NULL);

  if (roofline == NULL || self->analysis == NULL)
    return;
  g_set_object (&self->roofline, roofline);
  set_report (self);
}

static void
ks_kernels_page_refill (KsPage     *page,
                        KsTrace    *trace,
                        KsAnalysis *analysis)
{
  KsKernelsPage *self = KS_KERNELS_PAGE (page);
  g_autofree char *text = NULL;

  ks_page_table_set_report (&self->table, NULL);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->roofline);
  self->trace = trace;
  self->analysis = analysis;
  self->kernels = NULL;
  self->n_kernels = 0;
  if (self->analysis != NULL)
    {
      self->kernels = ks_analysis_get_kernels (self->analysis, &self->n_kernels);
      text = ks_report_describe_launch_latency (self->analysis);
    }
  gtk_label_set_text (self->latency_label, text ? text : "");
  set_report (self);
  gtk_widget_queue_draw (GTK_WIDGET (self->latency_area));
  if (analysis != NULL)
    {
      self->cancellable = g_cancellable_new ();
      ks_roofline_get_shared_async (trace, analysis, self->cancellable, roofline_cb, g_object_ref (self));
    }
}

static void
ks_kernels_page_dispose (GObject *object)
{
  KsKernelsPage *self = (KsKernelsPage *)object;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->roofline);
  ks_page_table_clear (&self->table);
  ks_page_dispose_template (GTK_WIDGET (self), KS_TYPE_KERNELS_PAGE);
  g_clear_pointer (&self->needle, g_free);

  G_OBJECT_CLASS (ks_kernels_page_parent_class)->dispose (object);
}

static void
ks_kernels_page_class_init (KsKernelsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_kernels_page_dispose;
  KS_PAGE_CLASS (klass)->refill = ks_kernels_page_refill;

  gtk_widget_class_set_template_from_resource (widget_class, "/org/kinescope/Kinescope/pages/ks-kernels-page.ui");
  gtk_widget_class_bind_template_child (widget_class, KsKernelsPage, search_entry);
  gtk_widget_class_bind_template_child (widget_class, KsKernelsPage, view);
  gtk_widget_class_bind_template_child (widget_class, KsKernelsPage, latency_label);
  gtk_widget_class_bind_template_child (widget_class, KsKernelsPage, latency_area);
  gtk_widget_class_bind_template_callback (widget_class, search_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, activate_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
ks_kernels_page_init (KsKernelsPage *self)
{
  const KsReportColumn *columns;
  guint n;

  gtk_widget_init_template (GTK_WIDGET (self));

  ks_page_table_init (&self->table, self->view, filter_row, self);
  columns = ks_report_kernel_columns (&n);
  ks_page_table_add_report_columns (&self->table, columns, n);
  columns = ks_report_kernel_flop_columns (&n);
  ks_page_table_add_report_columns (&self->table, columns, n);
  /* What fits the side panel beside the names at the default window
   * size; the others (launch configuration, occupancy, latency, FLOPs)
   * are in the header's menu. */
  ks_page_table_show_columns (&self->table, (const char *const[]) { "name", "calls", "total_ns", "share", NULL });
  gtk_column_view_column_set_fixed_width (ks_page_table_get_report_column (&self->table, "name"), 160);
  self->total_column = ks_page_table_get_report_column (&self->table, "total_ns");
  gtk_drawing_area_set_draw_func (self->latency_area, draw_latency_cb, self, NULL);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->latency_area), ks_metric_get_definition (KS_METRIC_LAUNCH_LATENCY));
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->latency_label), ks_metric_get_definition (KS_METRIC_LAUNCH_LATENCY));
}

GtkWidget *
ks_kernels_page_new (void)
{
  return g_object_new (KS_TYPE_KERNELS_PAGE, NULL);
}
