/* ks-gpu-monitor.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-gpu-monitor"

#include "config.h"

#include <math.h>

#include <glib/gi18n.h>

#include "ks-gpu-chart.h"
#include "ks-gpu-monitor.h"
#include "ks-nvml.h"

/* A minute of samples in each chart. */
#define CHART_SAMPLES 60
#define MIB (1024.0 * 1024.0)

enum
{
  CHART_UTILIZATION,
  CHART_SM_ACTIVE,      /* GPM: beside utilization, what it leaves out */
  CHART_TENSOR_ACTIVE,
  CHART_MEMORY,
  CHART_POWER,
  CHART_TEMPERATURE,
  CHART_CLOCK,
  N_CHARTS
};

typedef struct
{
  KsGpuChart *charts[N_CHARTS];
  GtkLabel   *values[N_CHARTS];
} GpuView;

struct _KsGpuMonitor
{
  AdwWindow        parent_instance;

  AdwWindowTitle  *window_title;
  GtkStack        *stack;
  GtkBox          *gpus_box;
  GtkGrid         *process_grid;
  AdwStatusPage   *status_page;

  KsNvml          *nvml;         /* used by one worker at a time */
  GArray          *views;        /* GpuView per NVML device */
  GCancellable    *cancellable;
  guint            interval_ms;
  guint            timeout_id;
  gboolean         in_flight;
  guint64          n_samples;
};

G_DEFINE_FINAL_TYPE (KsGpuMonitor, ks_gpu_monitor, ADW_TYPE_WINDOW)

enum
{
  PROP_0,
  PROP_N_SAMPLES,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* One round of samples, taken in a worker. */
typedef struct
{
  guint          n;
  KsNvmlSample  *samples;
  GArray       **processes;   /* KsNvmlProcess per GPU */
} Round;

static void
round_free (gpointer data)
{
  Round *r = data;

  for (guint i = 0; i < r->n; i++)
    g_clear_pointer (&r->processes[i], g_array_unref);
  g_free (r->processes);
  g_free (r->samples);
  g_free (r);
}

static void
sample_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  KsNvml *nvml = task_data;
  Round *r = g_new0 (Round, 1);

  r->n = ks_nvml_get_n_devices (nvml);
  r->samples = g_new0 (KsNvmlSample, MAX (r->n, 1));
  r->processes = g_new0 (GArray *, MAX (r->n, 1));
  for (guint i = 0; i < r->n && !g_cancellable_is_cancelled (cancellable); i++)
    {
      ks_nvml_sample (nvml, i, &r->samples[i]);
      r->processes[i] = ks_nvml_get_processes (nvml, i);
    }
  g_task_return_pointer (task, r, round_free);
}

static void
set_value (GtkLabel   *label,
           gboolean    have,
           const char *text)
{
  gtk_label_set_text (label, have ? text : "–");
}

static void
add_process_cell (KsGpuMonitor *self,
                  const char   *text,
                  int           column,
                  int           row,
                  gboolean      heading)
{
  GtkWidget *label = gtk_label_new (text);

  gtk_label_set_xalign (GTK_LABEL (label), column == 4 ? 0 : 1);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  if (heading)
    gtk_widget_add_css_class (label, "dim-label");
  else
    gtk_widget_add_css_class (label, "numeric");
  gtk_grid_attach (self->process_grid, label, column, row, 1, 1);
}

static void
show_processes (KsGpuMonitor *self,
                Round        *r)
{
  GtkWidget *child;
  int row = 1;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->process_grid))) != NULL)
    gtk_grid_remove (self->process_grid, child);

  add_process_cell (self, _("GPU"), 0, 0, TRUE);
  add_process_cell (self, _("PID"), 1, 0, TRUE);
  add_process_cell (self, _("SM"), 2, 0, TRUE);
  add_process_cell (self, _("Memory"), 3, 0, TRUE);
  add_process_cell (self, _("Process"), 4, 0, TRUE);
  for (guint i = 0; i < r->n; i++)
    for (guint k = 0; r->processes[i] != NULL && k < r->processes[i]->len; k++)
      {
        const KsNvmlProcess *p = &g_array_index (r->processes[i], KsNvmlProcess, k);
        g_autofree char *gpu = g_strdup_printf ("%u", ks_nvml_get_device (self->nvml, i)->index);
        g_autofree char *pid = g_strdup_printf ("%u", p->pid);
        g_autofree char *sm = p->sm_util >= 0 ? g_strdup_printf ("%d %%", p->sm_util) : g_strdup ("–");
        g_autofree char *memory = p->used_memory != G_MAXUINT64 ?
                                  g_strdup_printf (_("%.0f MiB"), floor (p->used_memory / MIB)) : g_strdup ("–");

        add_process_cell (self, gpu, 0, row, FALSE);
        add_process_cell (self, pid, 1, row, FALSE);
        add_process_cell (self, sm, 2, row, FALSE);
        add_process_cell (self, memory, 3, row, FALSE);
        add_process_cell (self, p->name[0] ? p->name : "–", 4, row, FALSE);
        row++;
      }
  if (row == 1)
    {
      GtkWidget *none = gtk_label_new (_("No process is using a GPU."));

      gtk_widget_add_css_class (none, "dim-label");
      gtk_grid_attach (self->process_grid, none, 0, 1, 5, 1);
    }
}

static void
show_round (KsGpuMonitor *self,
            Round        *r)
{
  for (guint i = 0; i < MIN (r->n, self->views->len); i++)
    {
      GpuView *v = &g_array_index (self->views, GpuView, i);
      const KsNvmlSample *s = &r->samples[i];
      gboolean util = s->fields & KS_NVML_HAS_UTILIZATION;
      gboolean mem = s->fields & KS_NVML_HAS_MEMORY;
      gboolean power = s->fields & KS_NVML_HAS_POWER;
      gboolean temp = s->fields & KS_NVML_HAS_TEMPERATURE;
      gboolean clock = s->fields & KS_NVML_HAS_SM_CLOCK;
      g_autofree char *u = g_strdup_printf ("%u %%", s->utilization_gpu);
      g_autofree char *m = g_strdup_printf (_("%.1f / %.1f GiB"), s->memory_used / (MIB * 1024),
                                            s->memory_total / (MIB * 1024));
      g_autofree char *p = g_strdup_printf ("%.1f W", s->power);
      g_autofree char *t = g_strdup_printf ("%u °C", s->temperature);
      g_autofree char *c = g_strdup_printf ("%u MHz", s->sm_clock);
      gboolean sm = s->gpm_valid & (1u << KS_NVML_GPM_SM_ACTIVE);
      gboolean tensor = s->gpm_valid & (1u << KS_NVML_GPM_TENSOR_ACTIVE);
      g_autofree char *sa = g_strdup_printf ("%.0f %%", s->gpm[KS_NVML_GPM_SM_ACTIVE]);
      g_autofree char *ta = g_strdup_printf ("%.0f %%", s->gpm[KS_NVML_GPM_TENSOR_ACTIVE]);

      ks_gpu_chart_push (v->charts[CHART_UTILIZATION], util ? s->utilization_gpu : NAN);
      ks_gpu_chart_push (v->charts[CHART_SM_ACTIVE], sm ? s->gpm[KS_NVML_GPM_SM_ACTIVE] : NAN);
      ks_gpu_chart_push (v->charts[CHART_TENSOR_ACTIVE], tensor ? s->gpm[KS_NVML_GPM_TENSOR_ACTIVE] : NAN);
      if (mem)
        ks_gpu_chart_set_max (v->charts[CHART_MEMORY], s->memory_total / MIB);
      ks_gpu_chart_push (v->charts[CHART_MEMORY], mem ? s->memory_used / MIB : NAN);
      ks_gpu_chart_push (v->charts[CHART_POWER], power ? s->power : NAN);
      ks_gpu_chart_push (v->charts[CHART_TEMPERATURE], temp ? s->temperature : NAN);
      ks_gpu_chart_push (v->charts[CHART_CLOCK], clock ? s->sm_clock : NAN);
      set_value (v->values[CHART_UTILIZATION], util, u);
      /* as nvidia-smi writes a counter the GPU does not have */
      gtk_label_set_text (v->values[CHART_SM_ACTIVE], sm ? sa : _("N/A"));
      gtk_label_set_text (v->values[CHART_TENSOR_ACTIVE], tensor ? ta : _("N/A"));
      set_value (v->values[CHART_MEMORY], mem, m);
      set_value (v->values[CHART_POWER], power, p);
      set_value (v->values[CHART_TEMPERATURE], temp, t);
      set_value (v->values[CHART_CLOCK], clock, c);
    }
  show_processes (self, r);
  self->n_samples++;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_N_SAMPLES]);
}

static void
sample_done_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  KsGpuMonitor *self = KS_GPU_MONITOR (object);
  Round *r = g_task_propagate_pointer (G_TASK (result), NULL);

  self->in_flight = FALSE;
  /* closed meanwhile: nothing to show */
  if (r != NULL && !g_cancellable_is_cancelled (self->cancellable))
    show_round (self, r);
  if (r != NULL)
    round_free (r);
}

static gboolean
tick_cb (gpointer data)
{
  KsGpuMonitor *self = data;
  g_autoptr(GTask) task = NULL;

  /* a slow driver: one round at a time */
  if (self->in_flight || self->nvml == NULL)
    return G_SOURCE_CONTINUE;
  self->in_flight = TRUE;
  task = g_task_new (self, self->cancellable, sample_done_cb, NULL);
  g_task_set_source_tag (task, tick_cb);
  g_task_set_task_data (task, self->nvml, NULL);
  g_task_run_in_thread (task, sample_thread);
  return G_SOURCE_CONTINUE;
}

static GtkWidget *
add_chart (GpuView    *view,
           GtkGrid    *grid,
           int         k,
           const char *title,
           double      max)
{
  GtkWidget *caption = gtk_label_new (title);
  GtkWidget *value = gtk_label_new ("–");
  GtkWidget *header = gtk_center_box_new ();

  gtk_label_set_xalign (GTK_LABEL (caption), 0);
  gtk_widget_set_margin_end (caption, 6);
  gtk_widget_add_css_class (caption, "dim-label");
  gtk_label_set_xalign (GTK_LABEL (value), 1);
  gtk_widget_add_css_class (value, "numeric");
  view->charts[k] = ks_gpu_chart_new (CHART_SAMPLES, max);
  view->values[k] = GTK_LABEL (value);
  gtk_widget_set_hexpand (GTK_WIDGET (view->charts[k]), TRUE);
  gtk_center_box_set_start_widget (GTK_CENTER_BOX (header), caption);
  gtk_center_box_set_end_widget (GTK_CENTER_BOX (header), value);
  gtk_grid_attach (grid, header, k, 0, 1, 1);
  gtk_grid_attach (grid, GTK_WIDGET (view->charts[k]), k, 1, 1, 1);
  return GTK_WIDGET (view->charts[k]);
}

static void
build_gpus (KsGpuMonitor *self)
{
  guint n = ks_nvml_get_n_devices (self->nvml);
  g_autofree char *subtitle = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u GPU", "%u GPUs", n), n);

  adw_window_title_set_subtitle (self->window_title, subtitle);
  g_array_set_size (self->views, n);
  for (guint i = 0; i < n; i++)
    {
      const KsNvmlDevice *d = ks_nvml_get_device (self->nvml, i);
      GpuView *v = &g_array_index (self->views, GpuView, i);
      g_autofree char *title = g_strdup_printf (_("GPU %u: %s"), d->index, d->name ? d->name : _("unnamed"));
      GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
      GtkWidget *heading = gtk_label_new (title);
      GtkWidget *grid = gtk_grid_new ();

      gtk_label_set_xalign (GTK_LABEL (heading), 0);
      gtk_widget_add_css_class (heading, "heading");
      gtk_grid_set_column_spacing (GTK_GRID (grid), 12);
      gtk_grid_set_row_spacing (GTK_GRID (grid), 4);
      gtk_grid_set_column_homogeneous (GTK_GRID (grid), TRUE);
      add_chart (v, GTK_GRID (grid), CHART_UTILIZATION, _("Utilization"), 100);
      add_chart (v, GTK_GRID (grid), CHART_SM_ACTIVE, _("SM activity"), 100);
      add_chart (v, GTK_GRID (grid), CHART_TENSOR_ACTIVE, _("Tensor activity"), 100);
      /* why they read N/A */
      for (int k = CHART_SM_ACTIVE; k <= CHART_TENSOR_ACTIVE && !d->gpm && d->gpm_missing; k++)
        gtk_widget_set_tooltip_text (GTK_WIDGET (v->values[k]), d->gpm_missing);
      add_chart (v, GTK_GRID (grid), CHART_MEMORY, _("Memory"), d->total_memory / MIB);
      add_chart (v, GTK_GRID (grid), CHART_POWER, _("Power"), 0);
      add_chart (v, GTK_GRID (grid), CHART_TEMPERATURE, _("Temperature"), 100);
      add_chart (v, GTK_GRID (grid), CHART_CLOCK, _("SM clock"), 0);
      gtk_box_append (GTK_BOX (box), heading);
      gtk_box_append (GTK_BOX (box), grid);
      gtk_box_append (self->gpus_box, box);
    }
}

static void
open_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  GError *error = NULL;
  KsNvml *nvml = ks_nvml_open (&error);

  if (nvml == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, nvml, (GDestroyNotify) ks_nvml_close);
}

static void
open_done_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  KsGpuMonitor *self = KS_GPU_MONITOR (object);
  g_autoptr(GError) error = NULL;
  KsNvml *nvml = g_task_propagate_pointer (G_TASK (result), &error);

  if (g_cancellable_is_cancelled (self->cancellable))
    {
      g_clear_pointer (&nvml, ks_nvml_close);
      return;
    }
  if (nvml == NULL)
    {
      g_autofree char *message = ks_nvml_unavailable_message (error);

      adw_status_page_set_description (self->status_page, message);
      gtk_stack_set_visible_child_name (self->stack, "unavailable");
      return;
    }
  self->nvml = nvml;
  build_gpus (self);
  gtk_stack_set_visible_child_name (self->stack, "gpus");
  tick_cb (self);
  /* the timer holds the window: only closing it ends the sampling */
  self->timeout_id = g_timeout_add_full (G_PRIORITY_DEFAULT, self->interval_ms, tick_cb, g_object_ref (self),
                                         g_object_unref);
}

static void
record_action (GtkWidget  *widget,
               const char *action_name,
               GVariant   *parameter)
{
  GtkWindow *parent = gtk_window_get_transient_for (GTK_WINDOW (widget));

  if (parent != NULL)
    gtk_widget_activate_action (GTK_WIDGET (parent), "win.record", NULL);
}

static void
stop_sampling (KsGpuMonitor *self)
{
  g_clear_handle_id (&self->timeout_id, g_source_remove);
  g_cancellable_cancel (self->cancellable);
}

static gboolean
ks_gpu_monitor_close_request (GtkWindow *window)
{
  stop_sampling (KS_GPU_MONITOR (window));
  return GTK_WINDOW_CLASS (ks_gpu_monitor_parent_class)->close_request (window);
}

static void
ks_gpu_monitor_dispose (GObject *object)
{
  KsGpuMonitor *self = KS_GPU_MONITOR (object);

  stop_sampling (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_GPU_MONITOR);
  G_OBJECT_CLASS (ks_gpu_monitor_parent_class)->dispose (object);
}

static void
ks_gpu_monitor_finalize (GObject *object)
{
  KsGpuMonitor *self = KS_GPU_MONITOR (object);

  /* the workers hold the window: none is left with NVML now */
  g_clear_pointer (&self->nvml, ks_nvml_close);
  g_array_unref (self->views);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (ks_gpu_monitor_parent_class)->finalize (object);
}

static void
ks_gpu_monitor_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  KsGpuMonitor *self = KS_GPU_MONITOR (object);

  switch (prop_id)
    {
    case PROP_N_SAMPLES:
      g_value_set_uint64 (value, self->n_samples);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_gpu_monitor_class_init (KsGpuMonitorClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = ks_gpu_monitor_dispose;
  object_class->finalize = ks_gpu_monitor_finalize;
  object_class->get_property = ks_gpu_monitor_get_property;
  window_class->close_request = ks_gpu_monitor_close_request;

  properties[PROP_N_SAMPLES] = g_param_spec_uint64 ("n-samples", NULL, NULL, 0, G_MAXUINT64, 0,
                                                    G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class, APP_RESOURCE_PATH "/ks-gpu-monitor.ui");
  gtk_widget_class_bind_template_child (widget_class, KsGpuMonitor, window_title);
  gtk_widget_class_bind_template_child (widget_class, KsGpuMonitor, stack);
  gtk_widget_class_bind_template_child (widget_class, KsGpuMonitor, gpus_box);
  gtk_widget_class_bind_template_child (widget_class, KsGpuMonitor, process_grid);
  gtk_widget_class_bind_template_child (widget_class, KsGpuMonitor, status_page);

  gtk_widget_class_install_action (widget_class, "monitor.record", NULL, record_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_w, GDK_CONTROL_MASK, "window.close", NULL);
}

static void
ks_gpu_monitor_init (KsGpuMonitor *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->views = g_array_new (FALSE, TRUE, sizeof (GpuView));
  self->cancellable = g_cancellable_new ();
  self->interval_ms = 1000;
}

KsGpuMonitor *
ks_gpu_monitor_new (GtkWindow *parent)
{
  KsGpuMonitor *self = g_object_new (KS_TYPE_GPU_MONITOR, "transient-for", parent, NULL);
  g_autoptr(GTask) task = g_task_new (self, self->cancellable, open_done_cb, NULL);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "monitor.record", parent != NULL);
  /* dlopen and nvmlInit can take a while: not on the main thread */
  g_task_set_source_tag (task, ks_gpu_monitor_new);
  g_task_run_in_thread (task, open_thread);
  return self;
}

void
ks_gpu_monitor_set_interval (KsGpuMonitor *self,
                             guint         ms)
{
  g_return_if_fail (KS_IS_GPU_MONITOR (self));

  self->interval_ms = MAX (ms, 10);
}

guint64
ks_gpu_monitor_get_n_samples (KsGpuMonitor *self)
{
  g_return_val_if_fail (KS_IS_GPU_MONITOR (self), 0);
  return self->n_samples;
}
