/* ks-cli-steps.c: the steps of kinescope-cli stats, their warm-up and how
 * they were found
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-cli-stats"

#include "config.h"

#include <glib/gi18n.h>

#include "ks-cli-common.h"
#include "ks-cli-table.h"
#include "ks-format.h"

void
ks_cli_append_step_notes (GString    *out,
                          KsTrace    *trace,
                          KsAnalysis *analysis)
{
  g_autofree char *warmup = ks_analysis_format_warmup (analysis, trace);
  guint32 rule_name = 0;
  const char *rule = ks_analysis_get_step_rule (analysis, &rule_name);

  if (rule != NULL)
    {
      g_autofree char *name = ks_cli_escape (ks_trace_string (trace, rule_name));

      /* TRANSLATORS: "Steps inferred from the DataLoader's batches (enumerate(DataLoader)#…)" */
      g_string_append_printf (out, _("Steps inferred from %s (%s): the trace marks none.\n"), rule, name);
    }
  if (warmup != NULL)
    g_string_append_printf (out, "%s\n", warmup);
}

void
ks_cli_json_warmup (KsJsonWriter *json,
                    KsTrace      *trace,
                    KsAnalysis   *analysis)
{
  const KsWarmup *warmup = ks_analysis_get_warmup (analysis);
  g_autoptr(GPtrArray) listed = ks_analysis_dup_warmup_names (analysis, trace);
  guint order[KS_N_WARMUP_CAUSES];
  guint n_causes;

  ks_json_begin_object (json, "warmup");
  ks_json_begin_array (json, "steps");
  for (guint i = 0; i < listed->len; i++)
    ks_json_string (json, NULL, g_ptr_array_index (listed, i));
  ks_json_end_array (json);
  ks_json_int (json, "dur_ns", warmup->dur_ns);
  ks_json_begin_array (json, "causes");
  n_causes = ks_warmup_sort_causes (warmup, order);
  for (guint i = 0; i < n_causes; i++)
    {
      ks_json_begin_object (json, NULL);
      ks_json_string (json, "name", ks_warmup_cause_get_name (order[i]));
      ks_json_int (json, "dur_ns", warmup->cause_ns[order[i]]);
      ks_json_end_object (json);
    }
  ks_json_end_array (json);
  ks_json_bool (json, "included", ks_analysis_get_options (analysis)->include_warmup);
  ks_json_int (json, "operator_calls", (gint64) warmup->operator_calls);
  ks_json_end_object (json);
}

void
ks_cli_table_steps (GString    *out,
                    KsTrace    *trace,
                    KsAnalysis *analysis,
                    guint       shown)
{
  g_autoptr(KsReport) report = ks_report_new_steps (trace, analysis);
  KsCliTable table;
  guint n = report->n_rows, counted = 0;
  double sum[KS_N_STEP_PARTS + 1] = { 0 };
  const KsStep *steps = report->rows;

  if (n == 0)
    return;

  g_string_append_printf (out, "\n%s\n", _("Step time breakdown:"));
  ks_cli_table_init (&table, report);
  /* The step names set the width of their column. */
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *text = ks_report_get_text (report, table.columns[0], i);
      g_autofree char *name = ks_cli_escape (text);

      table.widths[0] = MAX (table.widths[0], (int)g_utf8_strlen (name, -1));
    }
  table.widths[0] = MIN (table.widths[0], 48);
  ks_cli_table_header (&table, out);
  /* A recording can have thousands of NVTX steps: the first ones, then
   * the mean of those that count (the warm-up left out). */
  shown = MIN (shown, n);
  for (guint i = 0; i < n; i++)
    {
      if (ks_analysis_step_counts (analysis, &steps[i]))
        {
          counted++;
          sum[KS_N_STEP_PARTS] += steps[i].end - steps[i].start;
          for (guint k = 0; k < KS_N_STEP_PARTS; k++)
            sum[k] += steps[i].parts[k];
        }
      if (i < shown)
        ks_cli_table_row (&table, out, i);
    }
  if (shown < n)
    g_string_append_printf (out, _("… %u more (use --limit)\n"), n - shown);
  if (counted > 1)
    {
      g_autofree char *label = g_strdup_printf (_("mean of %u"), counted);
      g_autofree char *dur = ks_time_format_duration ((gint64) (sum[KS_N_STEP_PARTS] / counted + 0.5));

      ks_cli_table_cell (out, label, table.widths[0], FALSE);
      ks_cli_table_cell (out, dur, 11, TRUE);
      for (guint k = 0; k < KS_N_STEP_PARTS; k++)
        {
          g_autofree char *part = ks_time_format_duration ((gint64) (sum[k] / counted + 0.5));

          ks_cli_table_cell (out, part, 11, TRUE);
        }
      ks_cli_table_end_row (out);
    }
}
