/* ks-summary-utilization.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "ks-format.h"
#include "ks-summary-utilization.h"

GtkWidget *
ks_summary_utilization_new (KsTrace    *trace,
                            KsAnalysis *analysis)
{
  const KsGpuUtilization *util;
  GtkWidget *group;
  guint n;

  util = ks_analysis_get_utilization (analysis, &n);
  if (n == 0)
    return NULL;

  group = adw_preferences_group_new ();
  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), _("GPU Utilization, as Sampled"));
  /* what the figures are, since there is no kernel time to break down */
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (group),
                                         _("The share of each sample period in which a kernel ran, as "
                                           "nvidia-smi and NVML report it; a log has no kernels to "
                                           "break the time down."));
  gtk_widget_set_name (group, "utilization-group");

  for (guint i = 0; i < n; i++)
    {
      const KsGpuUtilization *u = &util[i];
      GtkWidget *row = adw_action_row_new ();
      g_autofree char *title = NULL;
      g_autofree char *mean = g_strdup_printf ("%.1f %%", u->mean_pct);
      g_autofree char *low = ks_time_format_duration (u->below_low_ns);
      g_autofree char *poor = ks_time_format_duration (u->below_poor_ns);
      g_autofree char *longest = ks_time_format_duration (u->longest_idle_ns);
      g_autofree char *subtitle = NULL;
      GtkWidget *label = gtk_label_new (mean);

      if (u->name != 0)
        title = g_strdup_printf (_("GPU %d · %s"), u->device, ks_trace_string (trace, u->name));
      else
        title = g_strdup_printf (_("GPU %d"), u->device);
      subtitle = g_strdup_printf (_("Under 50 %% for %s (%.1f %%) · under 30 %% for %s (%.1f %%) · "
                                    "longest stretch under 50 %%: %s"),
                                  low, u->below_low_pct, poor, u->below_poor_pct, longest);
      adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), subtitle);
      adw_action_row_set_subtitle_lines (ADW_ACTION_ROW (row), 3);
      gtk_label_set_selectable (GTK_LABEL (label), TRUE);
      gtk_widget_add_css_class (label, "numeric");
      gtk_widget_set_tooltip_text (label, _("Mean utilization, each sample held until the next"));
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), label);
      gtk_widget_set_name (row, "utilization-row");
      adw_preferences_group_add (ADW_PREFERENCES_GROUP (group), row);
    }
  return group;
}
