/* ks-cli-stats-activity.c: stats' SM and tensor activity (GPM)
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-cli-stats"

#include "config.h"

#include <glib/gi18n.h>

#include "ks-cli-table.h"

void
ks_cli_stats_activity (KsReportFormat  format,
                       KsTrace        *trace,
                       KsAnalysis     *analysis,
                       GString        *out,
                       KsJsonWriter   *json,
                       guint           max_steps)
{
  g_autoptr(KsReport) gpus = ks_report_new_gpu_activity (trace, analysis);
  g_autoptr(KsReport) steps = ks_report_new_step_activity (trace, analysis);
  guint shown = MIN (steps->n_rows, max_steps);

  if (gpus->n_rows == 0)
    return;
  if (format == KS_REPORT_JSON)
    {
      ks_cli_write_list (format, gpus, out, json, NULL, G_MAXUINT);
      ks_cli_write_list (format, steps, out, json, NULL, G_MAXUINT);
      return;
    }
  g_string_append_printf (out, "\n%s\n", _("SM and tensor activity (GPM) beside busy time:"));
  ks_cli_write_list (format, gpus, out, NULL, NULL, G_MAXUINT);
  if (steps->n_rows == 0)
    return;
  g_string_append_printf (out, "\n%s\n", _("SM and tensor activity per step:"));
  ks_cli_write_list (format, steps, out, NULL, NULL, shown);
  if (shown < steps->n_rows)
    g_string_append_printf (out, _("… %u more (use --limit)\n"), steps->n_rows - shown);
}
