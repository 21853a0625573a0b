/* ks-summary-ranks.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-summary-ranks"

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>

#include "ks-format.h"
#include "ks-page-charts.h"
#include "ks-summary-ranks.h"

gboolean
ks_summary_ranks_split (KsAnalysis *analysis)
{
  guint n = 0;
  const KsRankStats *rows = ks_analysis_get_rank_stats (analysis, &n);

  return n > 1 && rows[0].rank_index != KS_NO_INDEX;
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

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
  if (subtitle != NULL)
    adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_add_css_class (label, "numeric");
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), label);
  if (metric < KS_N_METRICS)
    gtk_widget_set_tooltip_text (row, ks_metric_get_definition (metric));
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
  return row;
}

/* The GPU a rank's kernels ran on: the device of its first stream row. */
static gint32
rank_device (KsTrace *trace,
             guint32  rank_index)
{
  for (guint32 t = 0; t < trace->n_tracks; t++)
    if (trace->tracks[t].kind == KS_TRACK_STREAM && trace->tracks[t].device >= 0 &&
        ks_trace_rank_of_group (trace, trace->tracks[t].group) == rank_index)
      return trace->tracks[t].device;
  return -1;
}

static char *
rank_title (KsTrace           *trace,
            const KsRankStats *r)
{
  gint32 device = rank_device (trace, r->rank_index);
  const KsGpu *gpu = device >= 0 ? ks_trace_find_gpu (trace, device) : NULL;

  if (device < 0)
    /* Translators: a rank of the job that ran no GPU work */
    return g_strdup_printf (_("Rank %d"), r->rank);
  if (gpu != NULL && gpu->name != 0)
    /* Translators: "Rank 1 · GPU 0 · NVIDIA H200" */
    return g_strdup_printf (_("Rank %d · GPU %d · %s"), r->rank, device, ks_trace_string (trace, gpu->name));
  return g_strdup_printf (_("Rank %d · GPU %d"), r->rank, device);
}

void
ks_summary_ranks_add_gpus (KsPage     *page,
                           GtkBox     *box,
                           KsTrace    *trace,
                           KsAnalysis *analysis)
{
  guint n;
  const KsRankStats *rows = ks_analysis_get_rank_stats (analysis, &n);

  for (guint i = 0; i < n; i++)
    {
      const KsRankStats *r = &rows[i];
      GtkWidget *group = adw_preferences_group_new ();
      GtkWidget *row;
      g_autofree char *title = rank_title (trace, r);
      g_autofree char *name = g_strdup_printf ("gpu-rank%d", r->rank);
      g_autofree char *busy = g_strdup_printf ("%.1f %%", r->busy_pct);
      g_autofree char *busy_time = ks_time_format_duration ((gint64)(r->busy_pct / 100.0 * r->window_ns));
      g_autofree char *window = ks_time_format_duration (r->window_ns);
      g_autofree char *busy_sub = NULL;
      g_autofree char *kernel_time = ks_time_format_duration (r->kernel_time_ns);
      g_autofree char *kernels = NULL;

      adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), title);
      if (r->file != NULL && r->host != NULL)
        {
          g_autofree char *desc = g_strdup_printf ("%s · %s", r->file, r->host);

          adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group), desc);
        }
      else if (r->file != NULL || r->host != NULL)
        adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group), r->file != NULL ? r->file : r->host);
      gtk_widget_set_name (group, name);

      busy_sub = g_strdup_printf (r->steps > 0 ? _("%s of %s in steps") : _("%s of %s from first to last GPU activity"),
                                  busy_time, window);
      row = value_row (group, ks_metric_get_title (KS_METRIC_BUSY_PCT), busy, busy_sub, KS_METRIC_BUSY_PCT);
      gtk_widget_set_name (row, "busy-row");

      kernels = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%" PRIu64 " kernel · %s",
                                              "%" PRIu64 " kernels · %s", r->kernels),
                                 r->kernels, kernel_time);
      row = value_row (group, ks_metric_get_title (KS_METRIC_KERNEL_TIME), kernels, NULL, KS_METRIC_KERNEL_TIME);
      gtk_widget_set_name (row, "kernels-row");

      if (r->steps > 0)
        {
          g_autofree char *mean = ks_time_format_duration (r->step_mean_ns);
          /* Translators: "4 steps · mean 35.2 ms" */
          g_autofree char *steps = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u step · mean %s",
                                                                 "%u steps · mean %s", r->steps),
                                                    r->steps, mean);

          row = value_row (group, _("Steps"), steps, NULL, KS_N_METRICS);
          gtk_widget_set_name (row, "steps-row");
        }

      if (r->collectives > 0)
        {
          g_autofree char *comm = ks_time_format_duration (r->comm_ns);
          g_autofree char *exposed = ks_time_format_duration (r->exposed_comm_ns);
          g_autofree char *wait = ks_time_format_duration (r->wait_ns);
          /* Translators: "12.1 ms exposed · 3.02 ms waiting for other ranks" */
          g_autofree char *sub = g_strdup_printf (_("%s exposed · %s waiting for other ranks"), exposed, wait);

          row = value_row (group, _("Communication"), comm, sub, KS_N_METRICS);
          gtk_widget_set_name (row, "comm-row");
        }

      gtk_box_append (box, group);
    }
}

/* One rank's bars: copies of its steps, and where each is in the
 * analysis's list (for the tooltip and the click). */
typedef struct
{
  KsPage     *page;
  KsAnalysis *analysis;
  gint32      rank;
  GArray     *steps;            /* KsStep */
  GArray     *index;            /* guint */
} RankSteps;

static void
rank_steps_free (gpointer data)
{
  RankSteps *rs = data;

  g_clear_object (&rs->analysis);
  g_array_unref (rs->steps);
  g_array_unref (rs->index);
  g_free (rs);
}

static void
draw_rank_steps_cb (GtkDrawingArea *area,
                    cairo_t        *cr,
                    int             width,
                    int             height,
                    gpointer        user_data)
{
  RankSteps *rs = user_data;
  GdkRGBA fg;

  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (area)), &fg);
  ks_chart_draw_steps (cr, width, height, &fg, (const KsStep *)(gpointer)rs->steps->data, rs->steps->len);
}

static gboolean
rank_steps_tooltip_cb (GtkWidget  *area,
                       int         x,
                       int         y,
                       gboolean    keyboard,
                       GtkTooltip *tooltip,
                       RankSteps  *rs)
{
  int i = ks_chart_steps_at (gtk_widget_get_height (area), rs->steps->len, y);
  g_autofree char *text = NULL;
  g_autofree char *full = NULL;

  if (i < 0)
    return FALSE;
  text = ks_chart_steps_tooltip (ks_page_get_trace (rs->page), rs->analysis, g_array_index (rs->index, guint, i));
  /* Translators: "Rank 1 · ProfilerStep#3: 35.2 ms…" */
  full = g_strdup_printf (_("Rank %d · %s"), rs->rank, text);
  gtk_tooltip_set_text (tooltip, full);
  return TRUE;
}

static void
rank_steps_click_cb (GtkGestureClick *click,
                     int              n_press,
                     double           x,
                     double           y,
                     RankSteps       *rs)
{
  GtkWidget *area = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (click));
  int i = ks_chart_steps_at (gtk_widget_get_height (area), rs->steps->len, y);

  if (i >= 0)
    {
      const KsStep *s = &g_array_index (rs->steps, KsStep, i);

      ks_page_navigate (rs->page, s->start, s->end);
    }
}

void
ks_summary_ranks_add_steps (KsPage              *page,
                            AdwPreferencesGroup *group,
                            KsTrace             *trace,
                            KsAnalysis          *analysis)
{
  guint n_ranks, n;
  const KsRankStats *rows = ks_analysis_get_rank_stats (analysis, &n_ranks);
  const KsStep *steps = ks_analysis_get_steps (analysis, &n);

  for (guint r = 0; r < n_ranks; r++)
    {
      RankSteps *rs;
      GtkWidget *label, *area;
      GtkGesture *click;
      g_autofree char *title = NULL;
      g_autofree char *name = NULL;

      rs = g_new0 (RankSteps, 1);
      rs->page = page;
      rs->analysis = g_object_ref (analysis);
      rs->rank = rows[r].rank;
      rs->steps = g_array_new (FALSE, FALSE, sizeof (KsStep));
      rs->index = g_array_new (FALSE, FALSE, sizeof (guint));
      for (guint i = 0; i < n; i++)
        if (ks_trace_rank_of_group (trace, trace->tracks[steps[i].track].group) == rows[r].rank_index)
          {
            g_array_append_val (rs->steps, steps[i]);
            g_array_append_val (rs->index, i);
          }
      if (rs->steps->len == 0)
        {
          rank_steps_free (rs);
          continue;
        }

      /* Translators: the title of a rank's step bars: "Rank 1: 4 steps" */
      title = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Rank %d: %u step", "Rank %d: %u steps",
                                            rs->steps->len),
                               rs->rank, rs->steps->len);
      label = gtk_label_new (title);
      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_widget_add_css_class (label, "heading");
      gtk_widget_set_margin_top (label, 6);
      name = g_strdup_printf ("step-chart-rank%d", rs->rank);
      gtk_widget_set_name (label, "step-chart-title");
      adw_preferences_group_add (group, label);

      area = gtk_drawing_area_new ();
      gtk_drawing_area_set_content_height (GTK_DRAWING_AREA (area), MIN (rs->steps->len, 24) * 18);
      gtk_widget_set_name (area, name);
      gtk_widget_set_has_tooltip (area, TRUE);
      g_object_set_data_full (G_OBJECT (area), "ks-rank-steps", rs, rank_steps_free);
      gtk_drawing_area_set_draw_func (GTK_DRAWING_AREA (area), draw_rank_steps_cb, rs, NULL);
      g_signal_connect (area, "query-tooltip", G_CALLBACK (rank_steps_tooltip_cb), rs);
      click = gtk_gesture_click_new ();
      gtk_event_controller_set_static_name (GTK_EVENT_CONTROLLER (click), "ks-step-chart-click");
      g_signal_connect (click, "released", G_CALLBACK (rank_steps_click_cb), rs);
      gtk_widget_add_controller (area, GTK_EVENT_CONTROLLER (click));
      gtk_widget_set_cursor_from_name (area, "pointer");
      adw_preferences_group_add (group, area);
    }
}
