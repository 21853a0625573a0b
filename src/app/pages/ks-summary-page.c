/* ks-summary-page.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-summary-page"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <inttypes.h>

#include "ks-format.h"
#include "ks-page-charts.h"
#include "ks-page-table.h"
#include "ks-summary-page.h"
#include "ks-summary-ranks.h"
#include "ks-summary-utilization.h"

struct _KsSummaryPage
{
  KsPage      parent_instance;

  GtkStack      *stack;
  GtkBox        *box;
  AdwStatusPage *status;

  /* Borrowed from KsPage, set by refill */
  KsTrace    *trace;
  KsAnalysis *analysis;
  gboolean    include_copies;
  gboolean    include_warmup;
  gboolean    busy;

  /* Sections still to add, one a frame: the tick callback, or 0 */
  guint       build_tick;
  guint       next_section;
};

G_DEFINE_FINAL_TYPE (KsSummaryPage, ks_summary_page, KS_TYPE_PAGE)

enum { PROP_0, PROP_INCLUDE_COPIES, PROP_INCLUDE_WARMUP, PROP_BUSY, N_PROPS };
static GParamSpec *properties[N_PROPS];

static void
get_fg (GtkWidget *widget,
        GdkRGBA   *fg)
{
  gtk_style_context_get_color (gtk_widget_get_style_context (widget), fg);
}

static GtkWidget *
value_row (GtkWidget  *group,
           const char *title,
           const char *value,
           const char *subtitle,
           KsMetric    metric)
{
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *label = gtk_label_new (value);

  /* Plain text before the text: a title set while markup is on is parsed
   * at once ("Python: <built-in method ...>" is no markup). */
  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  if (subtitle != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_add_css_class (label, "numeric");
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), label);
  gtk_widget_set_tooltip_text (row, ks_metric_get_definition (metric));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
  return row;
}

/* GPM's SM and tensor activity beside the busy row: how much of the GPU
 * the busy time used, and its range over the steps. */
static void
add_activity (KsSummaryPage *self,
              GtkWidget     *group,
              gint32         device)
{
  guint n, n_steps;
  const KsGpuActivity *a = ks_analysis_get_gpu_activity (self->analysis, &n);
  const KsStepActivity *s = ks_analysis_get_step_activity (self->analysis, &n_steps);
  g_autoptr(GString) sub = g_string_new (NULL);
  g_autofree char *value = NULL;
  double lo = G_MAXDOUBLE, hi = -1;
  GtkWidget *row;

  for (; n > 0 && a->device != device; n--, a++)
    ;
  if (n == 0)
    return;
  value = g_strdup_printf ("%.1f %%", a->sm_active_pct);
  if (a->tensor_active_pct >= 0)
    g_string_append_printf (sub, _("Tensor cores %.1f %%"), a->tensor_active_pct);
  for (guint i = 0; i < n_steps; i++)
    if (s[i].device == device)
      {
        lo = MIN (lo, s[i].sm_active_pct);
        hi = MAX (hi, s[i].sm_active_pct);
      }
  if (hi >= 0)
    {
      g_autofree char *range = g_strdup_printf (_("%.1f–%.1f %% per step"), lo, hi);

      g_string_append_printf (sub, "%s%s", sub->len > 0 ? " · " : "", range);
    }
  row = value_row (group, _("SM Activity (GPM)"), value, sub->str, KS_METRIC_BUSY_PCT);
  gtk_widget_set_tooltip_text (row, _("The share of the GPU's SMs busy, as the GPU counts it (NVML GPM), over "
                                      "the same window as the busy time: a GPU can run kernels all the time "
                                      "with most of its SMs idle."));
  gtk_widget_set_name (row, "sm-activity-row");
}

/* Places: a row that emits "navigate" when activated. */
static void
place_activated_cb (AdwActionRow  *row,
                    KsSummaryPage *self)
{
  gint64 *range = g_object_get_data (G_OBJECT (row), "ks-range");

  ks_page_navigate (KS_PAGE (self), range[0], range[1]);
}

static void
make_place (KsSummaryPage *self,
            GtkWidget     *row,
            gint64         start,
            gint64         end)
{
  gint64 *range = g_new (gint64, 2);

  range[0] = start;
  range[1] = end;
  g_object_set_data_full (G_OBJECT (row), "ks-range", range, g_free);
  gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), gtk_image_new_from_icon_name ("find-location-symbolic"));
  g_signal_connect_object (row, "activated", G_CALLBACK (place_activated_cb), self, 0);
}

static void
highlight_clicked_cb (GtkButton     *button,
                      KsSummaryPage *self)
{
  guint name = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (button), "ks-name"));

  ks_page_highlight (KS_PAGE (self), name);
}

static void
draw_utilization_cb (GtkDrawingArea *area,
                     cairo_t        *cr,
                     int             width,
                     int             height,
                     gpointer        user_data)
{
  KsSummaryPage *self = g_object_get_data (G_OBJECT (area), "ks-page");
  gint32 device = GPOINTER_TO_INT (user_data);
  GdkRGBA fg;

  if (self->analysis == NULL)
    return;
  get_fg (GTK_WIDGET (area), &fg);
  ks_chart_draw_utilization (cr, width, height, &fg, ks_analysis_get_gpu (self->analysis, device));
}

static void
draw_steps_cb (GtkDrawingArea *area,
               cairo_t        *cr,
               int             width,
               int             height,
               gpointer        user_data)
{
  KsSummaryPage *self = user_data;
  const KsStep *steps;
  guint n;
  GdkRGBA fg;

  if (self->analysis == NULL)
    return;
  get_fg (GTK_WIDGET (area), &fg);
  steps = ks_analysis_get_steps (self->analysis, &n);
  ks_chart_draw_steps (cr, width, height, &fg, steps, n);
}

static void
add_gpu (KsSummaryPage      *self,
         const KsGpuSummary *gpu)
{
  GtkWidget *group = adw_preferences_group_new ();
  GtkWidget *area;
  GtkWidget *row;
  g_autofree char *title = NULL;
  g_autofree char *busy = g_strdup_printf ("%.1f %%", gpu->busy_pct);
  g_autofree char *busy_sub = NULL;
  g_autofree char *busy_time = ks_time_format_duration (gpu->busy_in_window_ns);
  g_autofree char *window = ks_time_format_duration (gpu->window_ns);
  g_autofree char *kernel_time = ks_time_format_duration (gpu->kernel_time_ns);
  g_autofree char *kernels = NULL;
  g_autofree char *gap_total = ks_time_format_duration (gpu->gap_total_ns);
  g_autofree char *gap_largest = ks_time_format_duration (gpu->largest_gap_ns);
  g_autofree char *gaps = NULL;
  g_autofree char *gaps_sub = NULL;
  g_autofree char *latency = NULL;

  if (gpu->name != 0)
    title = g_strdup_printf (_("GPU %d · %s"), gpu->device, ks_trace_string (self->trace, gpu->name));
  else
    title = g_strdup_printf (_("GPU %d"), gpu->device);
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), title);

  busy_sub = g_strdup_printf (gpu->window_is_steps ? _("%s of %s in steps")
                                                   : _("%s of %s from first to last GPU activity"),
                              busy_time, window);
  row = value_row (group, ks_metric_get_title (KS_METRIC_BUSY_PCT), busy, busy_sub, KS_METRIC_BUSY_PCT);
  gtk_widget_set_name (row, "busy-row");
  add_activity (self, group, gpu->device);

  {
    GtkWidget *copies = adw_action_row_new ();
    GtkWidget *toggle = gtk_switch_new ();

    adw_preferences_row_set_title (ADW_PREFERENCES_ROW (copies), _("Count Copies as Busy"));
    adw_action_row_set_subtitle (ADW_ACTION_ROW (copies), _("memcpy and memset besides kernels"));
    gtk_widget_set_valign (toggle, GTK_ALIGN_CENTER);
    gtk_switch_set_active (GTK_SWITCH (toggle), self->include_copies);
    gtk_widget_set_name (toggle, "include-copies");
    g_object_bind_property (self, "include-copies", toggle, "active", G_BINDING_BIDIRECTIONAL);
    adw_action_row_add_suffix (ADW_ACTION_ROW (copies), toggle);
    adw_action_row_set_activatable_widget (ADW_ACTION_ROW (copies), toggle);
    adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), copies);
  }

  area = gtk_drawing_area_new ();
  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (area), 64);
  gtk_widget_set_margin_top (area, 6);
  gtk_widget_set_tooltip_text (area, ks_metric_get_definition (KS_METRIC_UTILIZATION));
  g_object_set_data (G_OBJECT (area), "ks-page", self);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (area), draw_utilization_cb,
                                  GINT_TO_POINTER (gpu->device), NULL);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), area);

  /* Translators: "176 kernels · 4.60 ms" */
  kernels = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%" PRIu64 " kernel · %s",
                                          "%" PRIu64 " kernels · %s", gpu->n_kernels),
                             gpu->n_kernels, kernel_time);
  value_row (group, ks_metric_get_title (KS_METRIC_KERNEL_TIME), kernels, NULL, KS_METRIC_KERNEL_TIME);

  if (gpu->est_sm_efficiency_pct >= 0)
    {
      g_autofree char *v = g_strdup_printf ("%.1f %%", gpu->est_sm_efficiency_pct);

      row = value_row (group, ks_metric_get_title (KS_METRIC_SM_EFFICIENCY), v, NULL, KS_METRIC_SM_EFFICIENCY);
      gtk_widget_set_name (row, "sm-efficiency-row");
    }
  if (gpu->est_occupancy_pct >= 0)
    {
      g_autofree char *v = g_strdup_printf ("%.1f %%", gpu->est_occupancy_pct);

      row = value_row (group, ks_metric_get_title (KS_METRIC_OCCUPANCY), v, NULL, KS_METRIC_OCCUPANCY);
      gtk_widget_set_name (row, "occupancy-row");
    }

  /* Translators: "133 gaps · 132 ms" */
  gaps = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u gap · %s", "%u gaps · %s", gpu->n_gaps),
                          gpu->n_gaps, gap_total);
  gaps_sub = g_strdup_printf (_("Largest %s"), gap_largest);
  row = value_row (group, _("Idle gaps"), gaps, gaps_sub, KS_METRIC_GAP);
  if (gpu->n_gaps > 0)
    {
      const guint *order = ks_analysis_get_gaps_by_duration (self->analysis, NULL);
      const KsGap *all = ks_analysis_get_gaps (self->analysis, NULL);
      guint n;

      ks_analysis_get_gaps (self->analysis, &n);
      for (guint i = 0; i < n; i++)
        if (all[order[i]].device == gpu->device)
          {
            make_place (self, row, all[order[i]].start, all[order[i]].end);
            break;
          }
    }

  latency = ks_report_describe_latency (&gpu->latency);
  value_row (group, ks_metric_get_title (KS_METRIC_LAUNCH_LATENCY), latency, NULL, KS_METRIC_LAUNCH_LATENCY);

  gtk_box_append (self->box, group);
}

static gboolean
steps_tooltip_cb (GtkWidget     *area,
                  int            x,
                  int            y,
                  gboolean       keyboard,
                  GtkTooltip    *tooltip,
                  KsSummaryPage *self)
{
  guint n;
  int i;
  g_autofree char *text = NULL;

  if (self->analysis == NULL)
    return FALSE;
  ks_analysis_get_steps (self->analysis, &n);
  i = ks_chart_steps_at (gtk_widget_get_height (area), n, y);
  if (i < 0)
    return FALSE;
  text = ks_chart_steps_tooltip (ks_page_get_trace (KS_PAGE (self)), self->analysis, i);
  gtk_tooltip_set_text (tooltip, text);
  return TRUE;
}

static void
steps_click_cb (GtkGestureClick *click,
                int              n_press,
                double           x,
                double           y,
                KsSummaryPage   *self)
{
  GtkWidget *area = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (click));
  const KsStep *steps;
  guint n;
  int i;

  if (self->analysis == NULL)
    return;
  steps = ks_analysis_get_steps (self->analysis, &n);
  i = ks_chart_steps_at (gtk_widget_get_height (area), n, y);
  if (i >= 0)
    ks_page_navigate (KS_PAGE (self), steps[i].start, steps[i].end);
}

static void
add_step_chart (KsSummaryPage *self,
                GtkWidget     *group,
                guint          n)
{
  GtkWidget *area = gtk_drawing_area_new ();
  GtkGesture *click = gtk_gesture_click_new ();

  gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (area), MIN (n, 24) * 18);
  gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (area), draw_steps_cb, self, NULL);
  gtk_widget_set_name (area, "step-chart");
  gtk_widget_set_has_tooltip (area, TRUE);
  g_signal_connect_object (area, "query-tooltip", G_CALLBACK (steps_tooltip_cb), self, 0);
  gtk_event_controller_set_static_name (GTK_EVENT_CONTROLLER (click), "ks-step-chart-click");
  g_signal_connect_object (click, "released", G_CALLBACK (steps_click_cb), self, 0);
  gtk_widget_add_controller (area, GTK_EVENT_CONTROLLER (click));
  gtk_widget_set_cursor_from_name (area, "pointer");
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), area);
}

static void
add_steps (KsSummaryPage *self)
{
  GtkWidget *group, *flow;
  gint64 parts[KS_N_STEP_PARTS] = { 0 };
  gint64 total = 0;
  const KsStep *steps;
  guint n;

  steps = ks_analysis_get_steps (self->analysis, &n);
  if (n == 0)
    return;

  /* the shares of the steps that count; the chart shows every step */
  for (guint i = 0; i < n; i++)
    {
      if (!ks_analysis_step_counts (self->analysis, &steps[i]))
        continue;
      for (guint p = 0; p < KS_N_STEP_PARTS; p++)
        parts[p] += steps[i].parts[p];
      total += steps[i].end - steps[i].start;
    }

  group = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), ks_metric_get_title (KS_METRIC_STEP_BREAKDOWN));
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group),
                                         ks_metric_get_definition (KS_METRIC_STEP_BREAKDOWN));

  /* A job's ranks each get their own series, in place of one list with
   * every rank's steps in turn. */
  if (ks_summary_ranks_split (self->analysis))
    ks_summary_ranks_add_steps (KS_PAGE (self), ADW_PREFERENCES_GROUP (group), self->trace, self->analysis);
  else
    add_step_chart (self, group, n);

  /* Legend with the share of each part over all steps */
  flow = gtk_flow_box_new ();
  gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (flow), GTK_SELECTION_NONE);
  gtk_flow_box_set_max_children_per_line (GTK_FLOW_BOX (flow), 4);
  gtk_widget_set_margin_top (flow, 6);
  for (guint p = 0; p < KS_N_STEP_PARTS; p++)
    {
      GtkWidget *item = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 4);
      GtkWidget *swatch = gtk_label_new ("■");
      g_autofree char *text = g_strdup_printf ("%s %.1f %%", ks_step_part_get_title (p),
                                               total > 0 ? 100.0 * parts[p] / total : 0.0);
      g_autofree char *markup = NULL;

      markup = g_markup_printf_escaped ("<span foreground=\"%s\">■</span>", ks_chart_step_part_hex (p));
      gtk_label_set_markup (GTK_LABEL (swatch), markup);
      gtk_box_append (GTK_BOX (item), swatch);
      gtk_box_append (GTK_BOX (item), gtk_label_new (text));
      gtk_widget_set_tooltip_text (item, ks_metric_get_definition (KS_METRIC_STEP_KERNEL + p));
      gtk_flow_box_append (GTK_FLOW_BOX (flow), item);
    }
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), flow);

  gtk_box_append (self->box, group);
}

/* The steps: how they were found where the trace marks none, and the
 * warm-up, left out of the figures unless its switch says otherwise. */
static void
add_warmup (KsSummaryPage *self)
{
  g_autofree char *text = ks_analysis_format_warmup (self->analysis, self->trace);
  guint32 rule_name = 0;
  const char *rule = ks_analysis_get_step_rule (self->analysis, &rule_name);
  GtkWidget *group;

  if (text == NULL && rule == NULL)
    return;

  group = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), _("Steps"));
  gtk_widget_set_name (group, "warmup-group");
  if (rule != NULL)
    {
      GtkWidget *row = adw_action_row_new ();
      g_autofree char *title = g_strdup_printf (_("Inferred from %s"), rule);

      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), ks_trace_string (self->trace, rule_name));
      gtk_widget_set_tooltip_text (row, _("The trace marks no steps (no ProfilerStep#N, no NVTX range named like a step): they are the iterations of its repeating structure, outlined dotted in the timeline."));
      gtk_widget_set_name (row, "inferred-row");
      adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
    }
  if (text != NULL)
    {
      GtkWidget *row = adw_action_row_new ();
      GtkWidget *toggle = gtk_switch_new ();
      const KsStep *steps;
      gint64 start = G_MAXINT64, end = G_MININT64;
      guint n;

      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), text);
      adw_action_row_set_title_lines (ADW_ACTION_ROW (row), 3);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), _("Include in the figures"));
      gtk_widget_set_tooltip_text (row, _("The first steps of a run that last over twice the median of the later ones and whose excess goes to one-time work (module loading, library set-up, allocation, autotuning, compilation) are the warm-up."));
      gtk_widget_set_name (row, "warmup-row");
      gtk_widget_set_valign (toggle, GTK_ALIGN_CENTER);
      gtk_switch_set_active (GTK_SWITCH (toggle), self->include_warmup);
      gtk_widget_set_name (toggle, "include-warmup");
      g_object_bind_property (self, "include-warmup", toggle, "active", G_BINDING_BIDIRECTIONAL);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), toggle);
      adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);

      steps = ks_analysis_get_steps (self->analysis, &n);
      for (guint i = 0; i < n; i++)
        if (steps[i].warmup)
          {
            start = MIN (start, steps[i].start);
            end = MAX (end, steps[i].end);
          }
      make_place (self, row, start, end);
    }
  gtk_box_append (self->box, group);
}

/* Where the idle time goes: gap time per cause, largest first; a row
 * leads to the largest gap of its cause. */
static void
add_causes (KsSummaryPage *self)
{
  GtkWidget *group;
  const KsGapCauseTotal *causes;
  const KsGap *gaps;
  const guint *order;
  guint n, n_gaps;

  causes = ks_analysis_get_gap_causes (self->analysis, &n);
  if (n == 0)
    return;
  gaps = ks_analysis_get_gaps (self->analysis, &n_gaps);
  order = ks_analysis_get_gaps_by_duration (self->analysis, NULL);

  group = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), ks_metric_get_title (KS_METRIC_GAP_CAUSE));
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group),
                                         ks_metric_get_definition (KS_METRIC_GAP_CAUSE));
  gtk_widget_set_name (group, "causes-group");

  for (guint i = 0; i < MIN (n, 5); i++)
    {
      g_autofree char *title = NULL;
      g_autofree char *total = ks_time_format_duration (causes[i].total_ns);
      g_autofree char *value = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u gap · %s", "%u gaps · %s",
                                                             causes[i].count),
                                                causes[i].count, total);
      GtkWidget *row;

      title = ks_gap_cause_format (self->trace, causes[i].cause, causes[i].name,
                                   causes[i].track, causes[i].slice);
      row = value_row (group, title, value, NULL, KS_METRIC_GAP_CAUSE);
      adw_action_row_set_title_lines (ADW_ACTION_ROW (row), 2);

      for (guint g = 0; g < n_gaps; g++)
        {
          const KsGap *gap = &gaps[order[g]];

          if (gap->cause == causes[i].cause && gap->cause_name == causes[i].name)
            {
              make_place (self, row, gap->start, gap->end);
              break;
            }
        }
    }

  gtk_box_append (self->box, group);
}

/* The advice rules and the busy figures read GPU activity: without any,
 * the page says so and what to record, rather than that all is well. */
static void
add_no_gpu (KsSummaryPage *self)
{
  GtkWidget *group = adw_preferences_group_new ();
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *icon = gtk_image_new_from_icon_name ("dialog-information-symbolic");

  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), _("No GPU activity in this trace"));
  adw_action_row_set_subtitle (ADW_ACTION_ROW (row),
                               _("It holds CPU work only, so there is no GPU time to break down. "
                                 "Record with CUDA activity: ProfilerActivity.CUDA in torch.profiler, "
                                 "--trace=cuda with nsys, or kinescope-cli record."));
  adw_action_row_add_prefix (ADW_ACTION_ROW (row), icon);
  gtk_widget_set_name (row, "no-gpu-row");
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
  gtk_box_append (self->box, group);
}

static void
add_advice (KsSummaryPage *self)
{
  GtkWidget *group = adw_preferences_group_new ();
  const KsAdvice *advice;
  guint n;

  advice = ks_analysis_get_advice (self->analysis, &n);
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), _("Advice"));
  gtk_widget_set_name (group, "advice-group");

  if (n == 0)
    {
      GtkWidget *row = adw_action_row_new ();

      guint n_gpus = 0, n_sampled = 0;

      /* a log's sampled utilization is checked too */
      ks_analysis_get_gpus (self->analysis, &n_gpus);
      ks_analysis_get_utilization (self->analysis, &n_sampled);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row),
                                     n_gpus > 0 || n_sampled > 0 ? _("No rule found a problem")
                                                                 : _("No GPU activity for the rules to check"));
      gtk_widget_set_name (row, "no-advice-row");
      adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
    }

  for (guint i = 0; i < n; i++)
    {
      const KsAdvice *a = &advice[i];
      GtkWidget *expander = adw_expander_row_new ();
      GtkWidget *text = gtk_label_new (a->text);
      GtkWidget *evidence = gtk_label_new (a->evidence);

      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (expander), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (expander), a->title);
      adw_expander_row_set_subtitle (ADW_EXPANDER_ROW (expander), a->evidence);
      gtk_widget_set_name (expander, a->rule);

      for (GtkWidget *l = text; l != NULL; l = (l == text ? evidence : NULL))
        {
          gtk_label_set_wrap (GTK_LABEL (l), TRUE);
          gtk_label_set_xalign (GTK_LABEL (l), 0.0);
          gtk_label_set_selectable (GTK_LABEL (l), TRUE);
          gtk_widget_set_margin_start (l, 12);
          gtk_widget_set_margin_end (l, 12);
          gtk_widget_set_margin_top (l, 6);
          gtk_widget_set_margin_bottom (l, 6);
        }
      gtk_widget_add_css_class (evidence, "dim-label");
      adw_expander_row_add_row (ADW_EXPANDER_ROW (expander), text);
      adw_expander_row_add_row (ADW_EXPANDER_ROW (expander), evidence);

      for (guint r = 0; r < a->n_ranges; r++)
        {
          GtkWidget *row = adw_action_row_new ();
          g_autofree char *s = ks_time_format_duration (a->ranges[r].start);
          g_autofree char *d = ks_time_format_duration (a->ranges[r].end - a->ranges[r].start);
          g_autofree char *label = g_strdup_printf (_("At %s, %s long"), s, d);

          adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), label);
          make_place (self, row, a->ranges[r].start, a->ranges[r].end);
          adw_expander_row_add_row (ADW_EXPANDER_ROW (expander), row);
        }

      if (a->highlight_name != 0)
        {
          GtkWidget *button = gtk_button_new_with_label (_("Show Occurrences"));
          g_autofree char *tip = g_strdup_printf (_("Outline every “%s” in the timeline"),
                                                  ks_trace_string (self->trace, a->highlight_name));

          gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
          gtk_widget_set_tooltip_text (button, tip);
          g_object_set_data (G_OBJECT (button), "ks-name", GUINT_TO_POINTER (a->highlight_name));
          g_signal_connect_object (button, "clicked", G_CALLBACK (highlight_clicked_cb), self, 0);
          adw_expander_row_add_action (ADW_EXPANDER_ROW (expander), button);
        }

      adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), expander);
    }

  gtk_box_append (self->box, group);
}

enum { SECTION_WARMUP, SECTION_GPUS, SECTION_CAUSES, SECTION_STEPS, SECTION_ADVICE, N_SECTIONS };

static void
add_section (KsSummaryPage *self,
             guint          section)
{
  GtkWidget *utilization;
  const KsGpuSummary *gpus;
  guint n;

  switch (section)
    {
    case SECTION_WARMUP:
      add_warmup (self);
      break;
    case SECTION_GPUS:
      gpus = ks_analysis_get_gpus (self->analysis, &n);
      /* a log of sampled utilization leads with it; other traces without
       * GPU work say what to record */
      if (n == 0 && (utilization = ks_summary_utilization_new (self->trace, self->analysis)) != NULL)
        gtk_box_append (self->box, utilization);
      else if (n == 0)
        add_no_gpu (self);
      else if (ks_summary_ranks_split (self->analysis))
        /* every rank's GPU 0 would read as one GPU */
        ks_summary_ranks_add_gpus (KS_PAGE (self), self->box, self->trace, self->analysis);
      else
        for (guint i = 0; i < n; i++)
          add_gpu (self, &gpus[i]);
      break;
    case SECTION_CAUSES:
      add_causes (self);
      break;
    case SECTION_STEPS:
      add_steps (self);
      break;
    case SECTION_ADVICE:
      add_advice (self);
      break;
    default:
      g_assert_not_reached ();
    }
}

static void
stop_building (KsSummaryPage *self)
{
  if (self->build_tick == 0)
    return;
  gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->build_tick);
  self->build_tick = 0;
  ks_page_release_filled (KS_PAGE (self));
}

static gboolean
build_tick_cb (GtkWidget     *widget,
               GdkFrameClock *clock,
               gpointer       user_data)
{
  KsSummaryPage *self = KS_SUMMARY_PAGE (widget);

  add_section (self, self->next_section++);
  if (self->next_section < N_SECTIONS)
    return G_SOURCE_CONTINUE;
  self->build_tick = 0;
  ks_page_release_filled (KS_PAGE (self));
  return G_SOURCE_REMOVE;
}

static void
rebuild (KsSummaryPage *self)
{
  GtkWidget *child;

  stop_building (self);
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->box))) != NULL)
    gtk_box_remove (self->box, child);

  if (self->analysis == NULL)
    {
      KsSession *session = ks_page_get_session (KS_PAGE (self));
      /* A session's trace is analysed as soon as it arrives: between the
       * analysis's arrival and this page's turn to refill, it is still
       * "Analysing…", not an invitation to open a trace. */
      gboolean pending = self->busy || (session != NULL && ks_session_get_trace (session) != NULL);

      adw_status_page_set_title (self->status, pending ? _("Analysing…") : _("No Analysis Yet"));
      adw_status_page_set_description (self->status, pending ? NULL : _("Open a trace to see where the GPU time goes."));
      gtk_stack_set_visible_child_name (self->stack, "empty");
      return;
    }

  gtk_stack_set_visible_child_name (self->stack, "content");
  /* Laying out every section in the frame after a new analysis held a
   * large trace's window for over 100 ms (the text of the rows), so the
   * page in view of a session adds one a frame, filled once all are in.
   * Elsewhere (no session: what shows it asks for it now; hidden: not
   * laid out) it adds them all at once. */
  if (ks_page_get_session (KS_PAGE (self)) != NULL && gtk_widget_get_mapped (GTK_WIDGET (self)))
    {
      add_section (self, 0);
      self->next_section = 1;
      self->build_tick = gtk_widget_add_tick_callback (GTK_WIDGET (self), build_tick_cb, NULL, NULL);
      ks_page_hold_filled (KS_PAGE (self));
      return;
    }
  for (guint i = 0; i < N_SECTIONS; i++)
    add_section (self, i);
}

static void
ks_summary_page_refill (KsPage     *page,
                        KsTrace    *trace,
                        KsAnalysis *analysis)
{
  KsSummaryPage *self = KS_SUMMARY_PAGE (page);

  self->trace = trace;
  self->analysis = analysis;
  if (self->analysis != NULL &&
      !!ks_analysis_get_options (self->analysis)->busy_includes_copies != !!self->include_copies)
    {
      self->include_copies = ks_analysis_get_options (self->analysis)->busy_includes_copies;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INCLUDE_COPIES]);
    }
  if (self->analysis != NULL &&
      !!ks_analysis_get_options (self->analysis)->include_warmup != !!self->include_warmup)
    {
      self->include_warmup = ks_analysis_get_options (self->analysis)->include_warmup;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INCLUDE_WARMUP]);
    }
  rebuild (self);
}

void
ks_summary_page_set_busy (KsSummaryPage *self,
                          gboolean       busy)
{
  g_return_if_fail (KS_IS_SUMMARY_PAGE (self));

  busy = !!busy;
  if (self->busy == busy)
    return;
  self->busy = busy;
  if (self->analysis == NULL)
    rebuild (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

gboolean
ks_summary_page_get_include_copies (KsSummaryPage *self)
{
  g_return_val_if_fail (KS_IS_SUMMARY_PAGE (self), FALSE);
  return self->include_copies;
}

void
ks_summary_page_set_include_copies (KsSummaryPage *self,
                                    gboolean       include_copies)
{
  g_return_if_fail (KS_IS_SUMMARY_PAGE (self));

  include_copies = !!include_copies;
  if (self->include_copies == include_copies)
    return;
  self->include_copies = include_copies;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INCLUDE_COPIES]);
  /* the session's option (a setting, with settings): it analyses again */
  if (ks_page_get_session (KS_PAGE (self)) != NULL)
    g_object_set (ks_page_get_session (KS_PAGE (self)), "busy-includes-copies", include_copies, NULL);
}

gboolean
ks_summary_page_get_include_warmup (KsSummaryPage *self)
{
  g_return_val_if_fail (KS_IS_SUMMARY_PAGE (self), FALSE);
  return self->include_warmup;
}

void
ks_summary_page_set_include_warmup (KsSummaryPage *self,
                                    gboolean       include_warmup)
{
  g_return_if_fail (KS_IS_SUMMARY_PAGE (self));

  include_warmup = !!include_warmup;
  if (self->include_warmup == include_warmup)
    return;
  self->include_warmup = include_warmup;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_INCLUDE_WARMUP]);
  /* the session's option (a setting, with settings): it analyses again */
  if (ks_page_get_session (KS_PAGE (self)) != NULL)
    g_object_set (ks_page_get_session (KS_PAGE (self)), "include-warmup", include_warmup, NULL);
}

static void
ks_summary_page_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  KsSummaryPage *self = KS_SUMMARY_PAGE (object);

  switch (prop_id)
    {
    case PROP_INCLUDE_COPIES:
      g_value_set_boolean (value, self->include_copies);
      break;
    case PROP_INCLUDE_WARMUP:
      g_value_set_boolean (value, self->include_warmup);
      break;
    case PROP_BUSY:
      g_value_set_boolean (value, self->busy);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_summary_page_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  KsSummaryPage *self = KS_SUMMARY_PAGE (object);

  switch (prop_id)
    {
    case PROP_INCLUDE_COPIES:
      ks_summary_page_set_include_copies (self, g_value_get_boolean (value));
      break;
    case PROP_INCLUDE_WARMUP:
      ks_summary_page_set_include_warmup (self, g_value_get_boolean (value));
      break;
    case PROP_BUSY:
      ks_summary_page_set_busy (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* Hidden, it is not laid out: the sections still to come go in now. */
static void
ks_summary_page_unmap (GtkWidget *widget)
{
  KsSummaryPage *self = KS_SUMMARY_PAGE (widget);

  if (self->build_tick != 0)
    {
      while (self->next_section < N_SECTIONS)
        add_section (self, self->next_section++);
      stop_building (self);
    }

  GTK_WIDGET_CLASS (ks_summary_page_parent_class)->unmap (widget);
}

static void
ks_summary_page_dispose (GObject *object)
{
  KsSummaryPage *self = (KsSummaryPage *)object;

  stop_building (self);
  ks_page_dispose_template (GTK_WIDGET (self), KS_TYPE_SUMMARY_PAGE);

  G_OBJECT_CLASS (ks_summary_page_parent_class)->dispose (object);
}

static void
ks_summary_page_class_init (KsSummaryPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_summary_page_dispose;
  widget_class->unmap = ks_summary_page_unmap;
  KS_PAGE_CLASS (klass)->refill = ks_summary_page_refill;
  object_class->get_property = ks_summary_page_get_property;
  object_class->set_property = ks_summary_page_set_property;

  properties[PROP_INCLUDE_COPIES] =
    g_param_spec_boolean ("include-copies", NULL, NULL, FALSE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_INCLUDE_WARMUP] =
    g_param_spec_boolean ("include-warmup", NULL, NULL, FALSE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/kinescope/Kinescope/pages/ks-summary-page.ui");
  gtk_widget_class_bind_template_child (widget_class, KsSummaryPage, stack);
  gtk_widget_class_bind_template_child (widget_class, KsSummaryPage, box);
  gtk_widget_class_bind_template_child (widget_class, KsSummaryPage, status);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
ks_summary_page_init (KsSummaryPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
ks_summary_page_new (void)
{
  return g_object_new (KS_TYPE_SUMMARY_PAGE, NULL);
}
