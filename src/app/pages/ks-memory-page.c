/* ks-memory-page.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-memory-page"

#include "config.h"

#include <glib/gi18n.h>

#include "ks-format.h"
#include "ks-memory-page.h"
#include "ks-page-charts.h"
#include "ks-page-table.h"

struct _KsMemoryPage
{
  KsPage               parent_instance;

  GtkDropDown         *device_dropdown;
  GtkLabel            *peak_label;
  GtkLabel            *reserved_label;
  GtkDrawingArea      *chart;
  GtkLabel            *legend_label;
  GtkCheckButton      *reserved_check;
  GtkColumnView       *view;

  KsPageTable          table;

  /* Borrowed from KsPage, set by refill */
  KsTrace             *trace;
  KsAnalysis          *analysis;
  const KsMemoryCurve *curves;
  guint                n_curves;
  const KsAllocation  *allocs;
  guint                n_allocs;
  gint32               device;
};

G_DEFINE_FINAL_TYPE (KsMemoryPage, ks_memory_page, KS_TYPE_PAGE)

static gboolean
filter_row (gpointer p,
            guint    i)
{
  KsMemoryPage *self = p;

  return self->allocs[i].device == self->device;
}

static const KsMemoryCurve *
current_curve (KsMemoryPage *self)
{
  for (guint i = 0; i < self->n_curves; i++)
    if (self->curves[i].device == self->device)
      return &self->curves[i];
  return NULL;
}

static void
draw_cb (GtkDrawingArea *area,
         cairo_t        *cr,
         int             width,
         int             height,
         gpointer        user_data)
{
  KsMemoryPage *self = user_data;
  GdkRGBA fg;

  if (self->analysis == NULL)
    return;
  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (area)), &fg);
  ks_chart_draw_memory (cr, width, height, &fg, current_curve (self),
                        gtk_check_button_get_active (self->reserved_check));
}

/* Reserved memory is often several times what is allocated: on one axis
 * with it, allocated is a thin band. It is drawn only when asked for. */
static void
update_legend (KsMemoryPage *self)
{
  g_autofree char *legend = NULL;

  if (gtk_check_button_get_active (self->reserved_check))
    legend = g_markup_printf_escaped ("<span foreground=\"#3584e4\">■</span> %s   "
                                      "<span foreground=\"#e66100\">━</span> %s",
                                      ks_metric_get_title (KS_METRIC_MEMORY_ALLOCATED),
                                      ks_metric_get_title (KS_METRIC_MEMORY_RESERVED));
  else
    legend = g_markup_printf_escaped ("<span foreground=\"#3584e4\">■</span> %s",
                                      ks_metric_get_title (KS_METRIC_MEMORY_ALLOCATED));
  gtk_label_set_markup (self->legend_label, legend);
}

static void
reserved_toggled_cb (KsMemoryPage *self)
{
  update_legend (self);
  gtk_widget_queue_draw (GTK_WIDGET (self->chart));
}

gint64
ks_memory_page_get_axis_top (KsMemoryPage *self)
{
  g_return_val_if_fail (KS_IS_MEMORY_PAGE (self), 0);

  return ks_chart_memory_top (current_curve (self), gtk_check_button_get_active (self->reserved_check));
}

static void
update_device (KsMemoryPage *self)
{
  const KsMemoryCurve *curve = current_curve (self);
  g_autofree char *peak_text = NULL;
  g_autofree char *resv_text = NULL;

  if (curve != NULL)
    {
      g_autofree char *peak = ks_format_bytes (curve->peak_allocated);
      g_autofree char *at = ks_time_format_duration (curve->peak_allocated_ts);
      g_autofree char *resv = curve->peak_reserved >= 0 ? ks_format_bytes (curve->peak_reserved) : g_strdup ("—");

      if (curve->peak_operator != 0)
        peak_text = g_strdup_printf (_("Peak %s at %s in %s"), peak, at,
                                     ks_trace_string (self->trace, curve->peak_operator));
      else
        peak_text = g_strdup_printf (_("Peak %s at %s"), peak, at);
      if (curve->total_memory > 0)
        {
          g_autofree char *cap = ks_format_bytes (curve->total_memory);

          resv_text = g_strdup_printf (_("Reserved up to %s of %s"), resv, cap);
        }
      else
        resv_text = g_strdup_printf (_("Reserved up to %s"), resv);
    }
  else if (self->analysis != NULL)
    peak_text = g_strdup (_("The trace has no memory events"));

  gtk_label_set_text (self->peak_label, peak_text ? peak_text : "");
  gtk_label_set_text (self->reserved_label, resv_text ? resv_text : "");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->peak_label), peak_text);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->reserved_label), ks_metric_get_definition (KS_METRIC_MEMORY_RESERVED));
  ks_page_table_refilter (&self->table);
  gtk_widget_queue_draw (GTK_WIDGET (self->chart));
}

static void
device_changed_cb (KsMemoryPage *self)
{
  guint selected = gtk_drop_down_get_selected (self->device_dropdown);

  if (selected < self->n_curves)
    self->device = self->curves[selected].device;
  update_device (self);
}

static void
activate_cb (KsMemoryPage *self,
             guint         position)
{
  guint i = ks_page_table_get_index_at (&self->table, position);
  const KsAllocation *a;

  if (i == G_MAXUINT)
    return;
  a = &self->allocs[i];
  if (a->operator_name != 0)
    ks_page_highlight (KS_PAGE (self), (guint)a->operator_name);
  ks_page_navigate (KS_PAGE (self), a->alloc_ts, a->free_ts >= 0 ? a->free_ts : a->alloc_ts);
}

static void
ks_memory_page_refill (KsPage     *page,
                       KsTrace    *trace,
                       KsAnalysis *analysis)
{
  KsMemoryPage *self = KS_MEMORY_PAGE (page);
  g_autoptr(GtkStringList) devices = gtk_string_list_new (NULL);

  ks_page_table_set_report (&self->table, NULL);
  self->trace = trace;
  self->analysis = analysis;
  self->curves = NULL;
  self->allocs = NULL;
  self->n_curves = self->n_allocs = 0;
  self->device = -2;

  if (self->analysis != NULL)
    {
      self->curves = ks_analysis_get_memory_curves (self->analysis, &self->n_curves);
      self->allocs = ks_analysis_get_allocations (self->analysis, &self->n_allocs);
    }
  for (guint i = 0; i < self->n_curves; i++)
    {
      g_autofree char *name = NULL;

      if (self->curves[i].device >= 0)
        name = g_strdup_printf (_("GPU %d"), self->curves[i].device);
      else
        name = g_strdup (_("Host"));
      gtk_string_list_append (devices, name);
    }
  if (self->n_curves > 0)
    self->device = self->curves[0].device;

  ks_page_table_set_report (&self->table, self->analysis ? ks_report_new_allocations (trace, self->analysis) : NULL);
  g_signal_handlers_block_by_func (self->device_dropdown, device_changed_cb, self);
  gtk_drop_down_set_model (self->device_dropdown, G_LIST_MODEL (devices));
  gtk_drop_down_set_selected (self->device_dropdown, 0);
  g_signal_handlers_unblock_by_func (self->device_dropdown, device_changed_cb, self);
  gtk_widget_set_visible (GTK_WIDGET (self->device_dropdown), self->n_curves > 1);
  update_device (self);
  ks_page_set_empty (page, "drive-harddisk-symbolic",
                     self->analysis != NULL && self->n_curves == 0 ? _("No Memory Events") : NULL,
                     _("This trace has no allocator events. Record with profile_memory=True in "
                       "torch.profiler, or with kinescope-cli record, to follow memory over time."));
}

static void
ks_memory_page_dispose (GObject *object)
{
  KsMemoryPage *self = (KsMemoryPage *)object;

  ks_page_table_clear (&self->table);
  ks_page_dispose_template (GTK_WIDGET (self), KS_TYPE_MEMORY_PAGE);

  G_OBJECT_CLASS (ks_memory_page_parent_class)->dispose (object);
}

static void
ks_memory_page_class_init (KsMemoryPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_memory_page_dispose;
  KS_PAGE_CLASS (klass)->refill = ks_memory_page_refill;

  gtk_widget_class_set_template_from_resource (widget_class, "/org/kinescope/Kinescope/pages/ks-memory-page.ui");
  gtk_widget_class_bind_template_child (widget_class, KsMemoryPage, device_dropdown);
  gtk_widget_class_bind_template_child (widget_class, KsMemoryPage, peak_label);
  gtk_widget_class_bind_template_child (widget_class, KsMemoryPage, reserved_label);
  gtk_widget_class_bind_template_child (widget_class, KsMemoryPage, chart);
  gtk_widget_class_bind_template_child (widget_class, KsMemoryPage, legend_label);
  gtk_widget_class_bind_template_child (widget_class, KsMemoryPage, reserved_check);
  gtk_widget_class_bind_template_child (widget_class, KsMemoryPage, view);
  gtk_widget_class_bind_template_callback (widget_class, device_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, activate_cb);
  gtk_widget_class_bind_template_callback (widget_class, reserved_toggled_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
ks_memory_page_init (KsMemoryPage *self)
{
  const KsReportColumn *columns;
  guint n;

  gtk_widget_init_template (GTK_WIDGET (self));

  self->device = -2;
  ks_page_table_init (&self->table, self->view, filter_row, self);
  columns = ks_report_allocation_columns (&n);
  ks_page_table_add_report_columns (&self->table, columns, n);
  /* The device is the page's choice above the chart; the Python frame and
   * the free time are in the header's menu. */
  ks_page_table_show_columns (&self->table,
                              (const char *const[]) { "bytes", "alloc_ns", "lifetime_ns", "operator", NULL });
  gtk_drawing_area_set_draw_func (self->chart, draw_cb, self, NULL);

  update_legend (self);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->chart), ks_metric_get_definition (KS_METRIC_MEMORY_ALLOCATED));
}

GtkWidget *
ks_memory_page_new (void)
{
  return g_object_new (KS_TYPE_MEMORY_PAGE, NULL);
}
