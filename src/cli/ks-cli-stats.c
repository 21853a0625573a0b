/* ks-cli-stats.c: kinescope-cli stats
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-cli-stats"

#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ks-analysis.h"
#include "ks-cli.h"
#include "ks-cli-stats-private.h"
#include "ks-format.h"
#include "ks-json-reader.h"
#include "ks-json-writer.h"
#include "ks-cli-memsnap.h"
#include "ks-cli-roofline.h"
#include "ks-report.h"
#include "ks-trace-loader.h"

#define SUMMARY_TOP 10

typedef enum
{
  REPORT_SUMMARY,
  REPORT_GAPS,
  REPORT_OPERATORS,
  REPORT_KERNELS,
  REPORT_MEMORY,
  REPORT_ADVICE,
  REPORT_STEPS,
  REPORT_SAMPLES,
  REPORT_UTILIZATION,
  REPORT_TENSOR_CORES,
  REPORT_QUEUE,
  REPORT_MEMCPY_BANDWIDTH,
  REPORT_KERNEL_SEQUENCES,
  REPORT_GPU_ANNOTATIONS,
  REPORT_COMMS,
  REPORT_RANKS,
  REPORT_PROFILER_RANGES,
  REPORT_MEMORY_SNAPSHOT,
  REPORT_ROOFLINE,
  REPORT_CRITICAL_PATH,
} Report;

/* The columns, CSV and JSON of every list come from ks-report.c; what
 * is here is the prose around the tables and the order of the parts. */

/* A name from the trace in running text: escaped, on one line. */
static void
append_name (GString    *out,
             const char *name)
{
  ks_cli_append_text (out, name, -1, KS_CLI_TEXT_ONE_LINE);
}

/* Summary */

static void
table_gpus (Printer *p)
{
  GString *out = p->out;
  guint n;
  const KsGpuSummary *gpus = ks_analysis_get_gpus (p->analysis, &n);

  for (guint i = 0; i < n; i++)
    {
      const KsGpuSummary *g = &gpus[i];
      g_autofree char *kt = ks_time_format_duration (g->kernel_time_ns);
      g_autofree char *busy = ks_time_format_duration (g->busy_ns);
      g_autofree char *window = ks_time_format_duration (g->window_ns);
      g_autofree char *biw = ks_time_format_duration (g->busy_in_window_ns);
      g_autofree char *gt = ks_time_format_duration (g->gap_total_ns);
      g_autofree char *gl = ks_time_format_duration (g->largest_gap_ns);
      g_autofree char *latency = ks_report_describe_latency (&g->latency);
      g_autofree char *queueing = ks_report_describe_latency (&g->queue);

      if (g->name != 0)
        {
          g_autofree char *name = ks_cli_escape (ks_trace_string (p->trace, g->name));

          g_string_append_printf (out, _("GPU %d: %s\n"), g->device, name);
        }
      else
        {
          g_string_append_printf (out, _("GPU %d"), g->device);
          g_string_append_c (out, '\n');
        }
      g_string_append_printf (out, "  %-24s %.1f %%  (%s / %s, %s)\n", _("Busy:"), g->busy_pct, biw, window,
                              g->window_is_steps ? _("window = steps") : _("window = first to last GPU activity"));
      g_string_append_printf (out, "  %-24s %s\n", _("Busy, whole trace:"), busy);
      g_string_append_printf (out, "  %-24s %" G_GUINT64_FORMAT " (%s)\n", _("Kernels:"), g->n_kernels, kt);
      g_string_append_printf (out, "  %-24s %" G_GUINT64_FORMAT " / %" G_GUINT64_FORMAT "\n",
                              _("Memcpy / memset:"), g->n_memcpy, g->n_memset);
      if (g->est_sm_efficiency_pct >= 0)
        g_string_append_printf (out, "  %-24s %.1f %%\n", _("Est. SM efficiency:"), g->est_sm_efficiency_pct);
      if (g->est_occupancy_pct >= 0)
        g_string_append_printf (out, "  %-24s %.1f %%\n", _("Est. occupancy:"), g->est_occupancy_pct);
      g_string_append_printf (out, "  %-24s %u, %s (%s %s)\n", _("Idle gaps:"), g->n_gaps, gt, _("largest"), gl);
      for (guint c = 0; c < KS_N_GAP_CLASSES; c++)
        {
          g_autofree char *d = ks_time_format_duration (g->gap_class_ns[c]);

          g_string_append_printf (out, "    %-22s %s\n", ks_gap_class_get_title (c), d);
        }
      g_string_append_printf (out, "  %-24s %s (%" G_GUINT64_FORMAT " %s)\n", _("Launch latency:"),
                              latency, g->latency.count, _("kernels"));
      g_string_append_printf (out, "  %-24s %s\n", _("Queueing:"), queueing);
      if (g->span_ns > 0)
        g_string_append_printf (out, "  %-24s %.1f %% %s, %.1f %% %s, %.1f %% %s\n", _("Temporal breakdown:"),
                                100.0 * g->compute_ns / g->span_ns, _("compute"),
                                100.0 * g->non_compute_ns / g->span_ns, _("non-compute"),
                                100.0 * g->idle_ns / g->span_ns, _("idle"));
    }
}

static void
table_steps (Printer *p,
             guint    default_rows)
{
  guint n;

  ks_analysis_get_steps (p->analysis, &n);
  ks_cli_table_steps (p->out, p->trace, p->analysis, limited (p, n, default_rows));
}

static void
table_advice (Printer *p)
{
  GString *out = p->out;
  guint n;
  const KsAdvice *a = ks_analysis_get_advice (p->analysis, &n);

  if (n == 0)
    {
      g_string_append_printf (out, "%s\n", _("No advice: no rule found a problem."));
      return;
    }
  for (guint i = 0; i < n; i++)
    ks_cli_append_advice (out, &a[i], TRUE, TRUE);
}

/* Sampled utilization (NVML rows, nvidia-smi logs): per GPU, then the
 * stretches under 50 %, longest first. */
static void
table_utilization (Printer *p,
                   guint    default_rows)
{
  g_autoptr(KsReport) gpus = ks_report_new_utilization (p->trace, p->analysis);
  g_autoptr(KsReport) stretches = ks_report_new_idle_stretches (p->trace, p->analysis);
  guint shown = limited (p, stretches->n_rows, default_rows);

  if (gpus->n_rows == 0)
    return;
  g_string_append_printf (p->out, "%s\n", _("GPU utilization, as sampled:"));
  write_list (p, gpus, NULL, NULL, G_MAXUINT);
  if (stretches->n_rows == 0)
    return;
  g_string_append_printf (p->out, "\n%s\n", _("Stretches of utilization under 50 %, longest first:"));
  write_list (p, stretches, NULL, NULL, shown);
  if (shown < stretches->n_rows)
    g_string_append_printf (p->out, _("… %u more (use --limit)\n"), stretches->n_rows - shown);
}

static void
report_utilization (Printer *p)
{
  g_autoptr(KsReport) gpus = ks_report_new_utilization (p->trace, p->analysis);
  g_autoptr(KsReport) stretches = ks_report_new_idle_stretches (p->trace, p->analysis);

  if (p->format == KS_REPORT_JSON)
    {
      g_autoptr(KsJsonWriter) json = ks_json_writer_new ();

      ks_json_begin_object (json, NULL);
      write_list (p, gpus, json, NULL, G_MAXUINT);
      write_list (p, stretches, json, NULL, limited (p, stretches->n_rows, 0));
      ks_cli_stats_activity (p->format, p->trace, p->analysis, p->out, json, G_MAXUINT);
      json_finish (p, json);
    }
  else if (p->format == KS_REPORT_CSV)
    write_list (p, gpus, NULL, NULL, G_MAXUINT);
  else if (gpus->n_rows == 0)
    g_string_append_printf (p->out, "%s\n", _("The trace has no sampled GPU utilization (no NVML rows)."));
  else
    {
      table_utilization (p, 30);
      ks_cli_stats_activity (p->format, p->trace, p->analysis, p->out, NULL, limited (p, G_MAXUINT, 30));
    }
}

static void
report_summary (Printer *p)
{
  g_autoptr(KsReport) gpus = ks_report_new_gpus (p->trace, p->analysis);
  g_autoptr(KsReport) kernels = ks_report_new_kernels (p->trace, p->analysis);
  g_autoptr(KsReport) operators = ks_report_new_operators (p->trace, p->analysis, p->by_shape);

  if (p->format == KS_REPORT_JSON)
    {
      g_autoptr(KsReport) steps = ks_report_new_steps (p->trace, p->analysis);
      g_autoptr(KsReport) advice = ks_report_new_advice (p->trace, p->analysis);
      g_autoptr(KsJsonWriter) json = ks_json_writer_new ();

      ks_json_begin_object (json, NULL);
      write_list (p, gpus, json, NULL, G_MAXUINT);
      write_list (p, steps, json, NULL, G_MAXUINT);
      ks_cli_json_warmup (json, p->trace, p->analysis);
      write_list (p, kernels, json, "top_kernels", SUMMARY_TOP);
      write_list (p, operators, json, "top_operators", SUMMARY_TOP);
      write_list (p, advice, json, NULL, G_MAXUINT);
      if (ks_analysis_get_utilization (p->analysis, NULL) != NULL)
        {
          g_autoptr(KsReport) utilization = ks_report_new_utilization (p->trace, p->analysis);
          g_autoptr(KsReport) stretches = ks_report_new_idle_stretches (p->trace, p->analysis);

          write_list (p, utilization, json, NULL, G_MAXUINT);
          write_list (p, stretches, json, NULL, SUMMARY_TOP);
        }
      ks_cli_stats_activity (p->format, p->trace, p->analysis, p->out, json, G_MAXUINT);
      json_finish (p, json);
    }
  else if (p->format == KS_REPORT_CSV)
    write_list (p, gpus, NULL, NULL, G_MAXUINT);
  else
    {
      ks_cli_append_step_notes (p->out, p->trace, p->analysis);
      table_gpus (p);
      if (gpus->n_rows > 0 && ks_analysis_get_utilization (p->analysis, NULL) != NULL)
        g_string_append_c (p->out, '\n');
      table_utilization (p, SUMMARY_TOP);
      ks_cli_stats_activity (p->format, p->trace, p->analysis, p->out, NULL, 20);
      table_steps (p, 20);
      /* a log of nvidia-smi has neither: no empty tables */
      if (kernels->n_rows > 0 || operators->n_rows > 0 || ks_analysis_get_utilization (p->analysis, NULL) == NULL)
        {
          g_string_append_printf (p->out, "\n%s\n", _("Top kernels:"));
          write_list (p, kernels, NULL, NULL, SUMMARY_TOP);
          g_string_append_printf (p->out, "\n%s\n", _("Top operators:"));
          if (operators->n_rows == 0 && ks_analysis_explain_missing (p->trace, KS_MISSING_OPERATORS) != NULL)
            g_string_append_printf (p->out, "%s\n", ks_analysis_explain_missing (p->trace, KS_MISSING_OPERATORS));
          else
            write_list (p, operators, NULL, NULL, SUMMARY_TOP);
        }
      g_string_append_printf (p->out, "\n%s\n", _("Advice:"));
      table_advice (p);
    }
}

static void
report_gaps (Printer *p)
{
  g_autoptr(KsReport) gaps = ks_report_new_gaps (p->trace, p->analysis);
  g_autoptr(KsReport) causes = ks_report_new_gap_causes (p->trace, p->analysis);
  gint64 threshold_ns = ks_analysis_get_options (p->analysis)->gap_threshold_ns;
  guint n = gaps->n_rows;
  guint shown = limited (p, n, 30);
  g_autofree char *threshold = NULL;
  GString *out = p->out;

  if (p->format == KS_REPORT_JSON)
    {
      g_autoptr(KsJsonWriter) json = ks_json_writer_new ();

      ks_json_begin_object (json, NULL);
      ks_json_int (json, "threshold_ns", threshold_ns);
      ks_json_int (json, "count", n);
      write_list (p, gaps, json, NULL, shown);
      write_list (p, causes, json, NULL, G_MAXUINT);
      json_finish (p, json);
      return;
    }

  if (p->format == KS_REPORT_CSV)
    {
      write_list (p, gaps, NULL, NULL, shown);
      return;
    }

  threshold = ks_time_format_duration (threshold_ns);
  g_string_append_printf (out, ngettext ("%u idle gap longer than %s, largest first:\n",
                                         "%u idle gaps longer than %s, largest first:\n", n),
                          n, threshold);
  write_list (p, gaps, NULL, NULL, shown);
  if (shown < n)
    g_string_append_printf (out, _("… %u more (use --limit)\n"), n - shown);

  g_string_append_printf (out, "\n%s\n", _("Gap time by cause:"));
  write_list (p, causes, NULL, NULL, G_MAXUINT);
}

/* A report of one list: JSON as one object, else the list (a table
 * shows @table_default rows unless --limit says). */
static void
print_list (Printer  *p,
            KsReport *report,
            guint     table_default)
{
  guint n = limited (p, report->n_rows, table_default);

  if (p->format == KS_REPORT_JSON)
    json_list (p, report, n);
  else
    write_list (p, report, NULL, NULL, n);
}

static void
report_operators (Printer *p)
{
  g_autoptr(KsReport) operators = p->by_stack ? ks_report_new_operator_stacks (p->trace, p->analysis)
                                              : ks_report_new_operators (p->trace, p->analysis, p->by_shape);
  const char *missing = ks_analysis_explain_missing (p->trace, KS_MISSING_OPERATORS);
  const KsWarmup *warmup = ks_analysis_get_warmup (p->analysis);
  guint64 merged = 0;

  if (p->format == KS_REPORT_JSON)
    {
      g_autoptr(KsJsonWriter) json = ks_json_writer_new ();

      /* the warm-up object says how many calls it holds: with the rows'
       * calls and merged_calls, every operator row of the trace */
      ks_json_begin_object (json, NULL);
      write_list (p, operators, json, NULL, limited (p, operators->n_rows, 30));
      ks_cli_json_warmup (json, p->trace, p->analysis);
      json_finish (p, json);
      return;
    }
  if (p->format == KS_REPORT_TABLE && operators->n_rows == 0 && missing != NULL)
    {
      g_string_append_printf (p->out, "%s\n", missing);
      return;
    }
  print_list (p, operators, 30);
  if (p->format != KS_REPORT_TABLE || p->by_stack)
    return;

  /* what the calls column does not count, so that it can be told apart
   * from operators missing in the trace */
  for (guint i = 0; i < operators->n_rows; i++)
    merged += ((const KsOperatorStats *) operators->rows)[i].merged_calls;
  if (warmup->operator_calls > 0)
    {
      g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, warmup->operator_calls);

      g_string_append_printf (p->out,
                              ngettext ("Not counted: %s operator call in the warm-up (--include-warmup counts it).\n",
                                        "Not counted: %s operator calls in the warm-up (--include-warmup counts them).\n",
                                        (gulong)MIN (warmup->operator_calls, G_MAXULONG)), count);
    }
  if (merged > 0)
    {
      g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, merged);

      g_string_append_printf (p->out,
                              ngettext ("%s call nested alone in a call of the same name is counted as one call with it, as PyTorch's key_averages() counts.\n",
                                        "%s calls nested alone in a call of the same name are counted as one call with them, as PyTorch's key_averages() counts.\n",
                                        (gulong)MIN (merged, G_MAXULONG)), count);
    }
}

/* Kernels by name and launching operator, or by name and launch. */
static void
report_kernel_groups (Printer *p)
{
  g_autoptr(KsReport) groups = ks_report_new_kernel_groups (p->trace, p->analysis, p->kernel_grouping);

  print_list (p, groups, 30);
}

static void
report_kernels (Printer *p)
{
  g_autoptr(KsReport) kernels = ks_report_new_kernels (p->trace, p->analysis);
  const KsLaunchLatency *lat = ks_analysis_get_launch_latency (p->analysis);
  guint n_edges;
  const gint64 *edges = ks_analysis_latency_bucket_edges (&n_edges);
  guint n = limited (p, kernels->n_rows, 30);

  if (p->format == KS_REPORT_JSON)
    {
      g_autoptr(KsJsonWriter) json = ks_json_writer_new ();

      ks_json_begin_object (json, NULL);
      write_list (p, kernels, json, NULL, n);
      ks_json_begin_object (json, "launch_latency");
      ks_json_int (json, "count", lat->count);
      ks_json_int (json, "clamped", lat->n_clamped);
      ks_json_int (json, "min_ns", lat->min_ns);
      ks_json_int (json, "p50_ns", lat->p50_ns);
      ks_json_int (json, "p90_ns", lat->p90_ns);
      ks_json_int (json, "p99_ns", lat->p99_ns);
      ks_json_int (json, "max_ns", lat->max_ns);
      ks_json_double (json, "mean_ns", lat->mean_ns, 4);
      {
        const KsLaunchLatency *queue = ks_analysis_get_queue_time (p->analysis);

        ks_json_int (json, "queue_p50_ns", queue->p50_ns);
        ks_json_int (json, "queue_p90_ns", queue->p90_ns);
        ks_json_int (json, "queue_p99_ns", queue->p99_ns);
        ks_json_int (json, "queue_max_ns", queue->max_ns);
        ks_json_double (json, "queue_mean_ns", queue->mean_ns, 4);
      }
      ks_json_begin_array (json, "histogram");
      for (guint b = 0; b < KS_LATENCY_N_BUCKETS; b++)
        {
          ks_json_begin_object (json, NULL);
          ks_json_int (json, "from_ns", edges[b]);
          ks_json_int (json, "count", lat->histogram[b]);
          ks_json_end_object (json);
        }
      ks_json_end_array (json);
      ks_json_end_object (json);
      json_finish (p, json);
    }
  else if (p->format == KS_REPORT_CSV)
    write_list (p, kernels, NULL, NULL, n);
  else
    {
      g_autofree char *latency = ks_report_describe_launch_latency (p->analysis);

      write_list (p, kernels, NULL, NULL, n);
      g_string_append_printf (p->out, "\n%s\n", latency);
      for (guint b = 0; b < KS_LATENCY_N_BUCKETS; b++)
        {
          g_autofree char *from = ks_time_format_duration (edges[b]);

          if (lat->histogram[b] == 0)
            continue;
          g_string_append_printf (p->out, "  ≥ %-11s %" G_GUINT64_FORMAT "\n", from, lat->histogram[b]);
        }
    }
}

static void
report_memory (Printer *p)
{
  g_autoptr(KsReport) devices = ks_report_new_memory (p->trace, p->analysis);
  g_autoptr(KsReport) allocations = ks_report_new_allocations (p->trace, p->analysis);
  const KsMemoryCurve *curves = devices->rows;
  guint n_curves = devices->n_rows;
  guint n_allocs = allocations->n_rows;
  guint shown = limited (p, n_allocs, 20);
  GString *out = p->out;

  if (p->format == KS_REPORT_JSON)
    {
      g_autoptr(KsJsonWriter) json = ks_json_writer_new ();

      ks_json_begin_object (json, NULL);
      write_list (p, devices, json, NULL, G_MAXUINT);
      ks_json_int (json, "ignored_events", ks_analysis_get_n_ignored_memory_events (p->analysis));
      ks_json_int (json, "allocation_count", n_allocs);
      write_list (p, allocations, json, NULL, shown);
      {
        g_autoptr(KsReport) operators = ks_report_new_operator_memory (p->trace, p->analysis);

        write_list (p, operators, json, NULL, limited (p, operators->n_rows, 0));
      }
      json_finish (p, json);
      return;
    }

  if (p->format == KS_REPORT_CSV)
    {
      write_list (p, allocations, NULL, NULL, shown);
      return;
    }

  if (n_curves == 0)
    g_string_append_printf (out, "%s\n", _("The trace has no memory events."));
  for (guint i = 0; i < n_curves; i++)
    {
      const KsMemoryCurve *c = &curves[i];
      g_autofree char *pa = ks_format_bytes (c->peak_allocated);
      g_autofree char *pr = c->peak_reserved >= 0 ? ks_format_bytes (c->peak_reserved) : g_strdup ("-");
      g_autofree char *cap = c->total_memory ? ks_format_bytes (c->total_memory) : g_strdup ("-");
      g_autofree char *at = ks_time_format_duration (c->peak_allocated_ts);

      if (c->device >= 0)
        g_string_append_printf (out, _("GPU %d memory:\n"), c->device);
      else
        g_string_append_printf (out, "%s\n", _("Host memory:"));
      g_string_append_printf (out, "  %-20s %s %s %s", _("Peak allocated:"), pa, _("at"), at);
      if (c->peak_operator != 0)
        {
          g_string_append (out, " (");
          append_name (out, ks_trace_string (p->trace, c->peak_operator));
          g_string_append_c (out, ')');
        }
      g_string_append_c (out, '\n');
      g_string_append_printf (out, "  %-20s %s\n", _("Peak reserved:"), pr);
      if (c->peak_unused >= 0)
        {
          g_autofree char *pu = ks_format_bytes (c->peak_unused);
          g_autofree char *put = ks_time_format_duration (c->peak_unused_ts);

          g_string_append_printf (out, "  %-20s %s %s %s\n", _("Reserved, unused:"), pu, _("at"), put);
        }
      g_string_append_printf (out, "  %-20s %s\n", _("Capacity:"), cap);
    }

  {
    g_autoptr(KsReport) operators = ks_report_new_operator_memory (p->trace, p->analysis);

    if (operators->n_rows > 0)
      {
        g_string_append_printf (out, "\n%s\n", _("Allocations per operator:"));
        write_list (p, operators, NULL, NULL, limited (p, operators->n_rows, 10));
      }
  }
  if (n_allocs > 0)
    {
      g_string_append_printf (out, "\n%s\n", _("Allocations:"));
      write_list (p, allocations, NULL, NULL, shown);
      if (shown < n_allocs)
        g_string_append_printf (out, _("… %u more (use --limit)\n"), n_allocs - shown);
    }
}

static void
report_advice (Printer *p)
{
  g_autoptr(KsReport) advice = ks_report_new_advice (p->trace, p->analysis);

  if (p->format == KS_REPORT_JSON)
    json_list (p, advice, G_MAXUINT);
  else if (p->format == KS_REPORT_CSV)
    write_list (p, advice, NULL, NULL, G_MAXUINT);
  else
    table_advice (p);
}

/* Every step with its breakdown: a recording's step times as a series. */
static void
report_steps (Printer *p)
{
  g_autoptr(KsReport) steps = ks_report_new_steps (p->trace, p->analysis);

  if (p->format == KS_REPORT_JSON)
    {
      g_autoptr(KsJsonWriter) json = ks_json_writer_new ();

      ks_json_begin_object (json, NULL);
      write_list (p, steps, json, NULL, G_MAXUINT);
      ks_cli_json_warmup (json, p->trace, p->analysis);
      json_finish (p, json);
    }
  else if (p->format == KS_REPORT_CSV)
    write_list (p, steps, NULL, NULL, G_MAXUINT);
  else if (steps->n_rows == 0)
    g_string_append_printf (p->out, "%s\n",
                            _("No steps: the trace has neither ProfilerStep#N nor NVTX ranges named like a step, and no repeating structure to infer them from."));
  else
    {
      ks_cli_append_step_notes (p->out, p->trace, p->analysis);
      table_steps (p, 0);
    }
}

/* The TensorBoard profiler's Tensor Cores view: the share of kernel time
 * in tensor-core kernels, the kernels, and the operators (by name) with
 * whether they are eligible and how much of their GPU time used them.
 * CSV: the kernels. */
static void
report_tensor_cores (Printer *p)
{
  g_autoptr(KsReport) kernels = ks_report_new_tensor_core_kernels (p->trace, p->analysis);
  g_autoptr(KsReport) operators = ks_report_new_tensor_core_operators (p->trace, p->analysis);
  const KsTensorCores *tc = ks_analysis_get_tensor_cores (p->analysis);
  guint n_kernels = limited (p, kernels->n_rows, 20);
  guint n_ops = limited (p, operators->n_rows, 20);

  if (p->format == KS_REPORT_JSON)
    {
      g_autoptr(KsJsonWriter) json = ks_json_writer_new ();

      ks_json_begin_object (json, NULL);
      ks_json_begin_object (json, "summary");
      ks_json_int (json, "kernels", tc->n_kernels);
      ks_json_int (json, "tc_kernels", tc->n_tc_kernels);
      ks_json_int (json, "kernel_time_ns", tc->kernel_ns);
      ks_json_int (json, "tc_kernel_time_ns", tc->tc_kernel_ns);
      ks_json_double (json, "tc_share", tc->tc_share, 4);
      ks_json_int (json, "eligible_ns", tc->eligible_ns);
      ks_json_int (json, "eligible_tc_ns", tc->eligible_tc_ns);
      ks_json_end_object (json);
      write_list (p, kernels, json, NULL, n_kernels);
      write_list (p, operators, json, NULL, n_ops);
      json_finish (p, json);
    }
  else if (p->format == KS_REPORT_CSV)
    write_list (p, kernels, NULL, NULL, n_kernels);
  else
    {
      g_autofree char *tct = ks_time_format_duration (tc->tc_kernel_ns);
      g_autofree char *kt = ks_time_format_duration (tc->kernel_ns);
      g_autofree char *el = ks_time_format_duration (tc->eligible_ns);
      g_autofree char *eltc = ks_time_format_duration (tc->eligible_tc_ns);

      g_string_append_printf (p->out, _("Tensor cores: %.1f %% of the kernel time (%s of %s, %" PRIu64 " of %" PRIu64 " kernels)\n"),
                              100.0 * tc->tc_share, tct, kt, (uint64_t)tc->n_tc_kernels, (uint64_t)tc->n_kernels);
      g_string_append_printf (p->out, _("Eligible operators: %s of GPU time, %s of it on tensor cores\n\n"), el, eltc);
      write_list (p, kernels, NULL, NULL, n_kernels);
      g_string_append_c (p->out, '\n');
      write_list (p, operators, NULL, NULL, n_ops);
    }
}

/* HTA's queue length per stream; JSON adds each stream's series. */
static void
report_queue (Printer *p)
{
  g_autoptr(KsReport) queues = ks_report_new_queues (p->trace, p->analysis);

  if (p->format == KS_REPORT_JSON)
    {
      g_autoptr(KsJsonWriter) json = ks_json_writer_new ();
      const KsQueueStats *rows = queues->rows;

      ks_json_begin_object (json, NULL);
      ks_json_int (json, "limit", KS_QUEUE_LIMIT);
      write_list (p, queues, json, NULL, G_MAXUINT);
      ks_json_begin_array (json, "series");
      for (guint i = 0; i < queues->n_rows; i++)
        {
          ks_json_begin_object (json, NULL);
          ks_json_int (json, "device", rows[i].device);
          ks_json_int (json, "stream", rows[i].stream);
          ks_json_int (json, "start_ns", rows[i].start);
          ks_json_int (json, "bucket_ns", rows[i].bucket_ns);
          ks_json_begin_array (json, "mean");
          for (guint b = 0; b < rows[i].n_buckets; b++)
            ks_json_double (json, NULL, rows[i].bucket_mean[b], 3);
          ks_json_end_array (json);
          ks_json_begin_array (json, "max");
          for (guint b = 0; b < rows[i].n_buckets; b++)
            ks_json_int (json, NULL, rows[i].bucket_max[b]);
          ks_json_end_array (json);
          ks_json_end_object (json);
        }
      ks_json_end_array (json);
      json_finish (p, json);
    }
  else if (p->format == KS_REPORT_CSV)
    write_list (p, queues, NULL, NULL, G_MAXUINT);
  else if (queues->n_rows == 0)
    g_string_append_printf (p->out, "%s\n", _("No stream has GPU work with a known launch call."));
  else
    write_list (p, queues, NULL, NULL, G_MAXUINT);
}

/* Achieved copy bandwidth per device and copy kind (JSON adds each
 * kind's series over the trace), and every copy. CSV: the copies. */
static void
report_memcpy_bandwidth (Printer *p)
{
  g_autoptr(KsReport) kinds = ks_report_new_copy_kinds (p->trace, p->analysis);
  g_autoptr(KsReport) copies = ks_report_new_copies (p->trace, p->analysis);
  guint n = limited (p, copies->n_rows, 20);

  if (p->format == KS_REPORT_JSON)
    {
      g_autoptr(KsJsonWriter) json = ks_json_writer_new ();
      const KsCopyKindStats *rows = kinds->rows;

      ks_json_begin_object (json, NULL);
      write_list (p, kinds, json, NULL, G_MAXUINT);
      ks_json_begin_array (json, "series");
      for (guint i = 0; i < kinds->n_rows; i++)
        {
          ks_json_begin_object (json, NULL);
          ks_json_int (json, "device", rows[i].device);
          ks_json_string (json, "kind", ks_copy_kind_to_string (rows[i].kind));
          ks_json_int (json, "bucket_ns", rows[i].bucket_ns);
          ks_json_begin_array (json, "gbps");
          for (guint b = 0; b < rows[i].n_buckets; b++)
            ks_json_double (json, NULL, rows[i].gbps[b], 4);
          ks_json_end_array (json);
          ks_json_end_object (json);
        }
      ks_json_end_array (json);
      write_list (p, copies, json, NULL, n);
      json_finish (p, json);
    }
  else if (p->format == KS_REPORT_CSV)
    write_list (p, copies, NULL, NULL, n);
  else if (kinds->n_rows == 0)
    g_string_append_printf (p->out, "%s\n", _("The trace has no memory copies on the GPUs."));
  else
    {
      write_list (p, kinds, NULL, NULL, G_MAXUINT);
      g_string_append_printf (p->out, "\n%s\n", _("Copies, in stream order:"));
      write_list (p, copies, NULL, NULL, n);
      if (n < copies->n_rows)
        g_string_append_printf (p->out, _("… %u more (use --limit)\n"), copies->n_rows - n);
    }
}

/* The most frequent runs of consecutive kernels: fusion and CUDA graph
 * candidates. */
static void
report_kernel_sequences (Printer *p)
{
  g_autoptr(KsReport) sequences = ks_report_new_kernel_sequences (p->trace, p->analysis);
  guint n = limited (p, sequences->n_rows, 10);

  if (p->format == KS_REPORT_JSON)
    json_list (p, sequences, n);
  else if (p->format == KS_REPORT_CSV)
    write_list (p, sequences, NULL, NULL, n);
  else if (sequences->n_rows == 0)
    g_string_append_printf (p->out, "%s\n", _("No run of kernels repeats."));
  else
    {
      g_string_append_printf (p->out, _("Runs of %d consecutive kernels on a stream, most frequent first:\n"),
                              KS_SEQUENCE_LENGTH);
      write_list (p, sequences, NULL, NULL, n);
    }
}

/* The CUPTI range profiler's measurements (Kineto's cuda_profiler_range
 * events): every counter of every range, as HTA's CUPTI counter
 * analysis lists them. */
static void
report_profiler_ranges (Printer *p)
{
  g_autoptr(KsReport) counters = ks_report_new_profiler_counters (p->trace, p->analysis);
  const KsProfilerRanges *ranges = ks_analysis_get_profiler_ranges (p->analysis);
  guint n = limited (p, counters->n_rows, 50);

  if (p->format == KS_REPORT_JSON)
    {
      g_autoptr(KsJsonWriter) json = ks_json_writer_new ();

      ks_json_begin_object (json, NULL);
      ks_json_begin_object (json, "summary");
      ks_json_int (json, "ranges", ranges->n_ranges);
      ks_json_int (json, "devices", ranges->n_devices);
      ks_json_int (json, "counters", counters->n_rows);
      ks_json_int (json, "launches", ranges->n_launches);
      ks_json_bool (json, "launches_matched", ranges->launches_matched);
      ks_json_end_object (json);
      write_list (p, counters, json, NULL, n);
      json_finish (p, json);
    }
  else if (p->format == KS_REPORT_CSV)
    write_list (p, counters, NULL, NULL, n);
  else if (ranges->n_ranges == 0)
    g_string_append_printf (p->out, "%s\n",
                            _("No range-profiler ranges: the trace has no cuda_profiler_range events (PyTorch's profiler_metrics)."));
  else
    {
      g_autofree char *what = ks_report_describe_profiler_ranges (ranges);
      g_autofree char *unmatched = ks_report_explain_profiler_operators (ranges);

      /* TRANSLATORS: "77 range-profiler ranges on 1 GPU, 693 counter values" */
      g_string_append_printf (p->out, _("%s, %u counter values:\n"), what, counters->n_rows);
      write_list (p, counters, NULL, NULL, n);
      if (unmatched != NULL)
        g_string_append_printf (p->out, "%s\n", unmatched);
    }
}

/* HTA's GPU user-annotation breakdown. */
static void
report_gpu_annotations (Printer *p)
{
  g_autoptr(KsReport) annotations = ks_report_new_gpu_annotations (p->trace, p->analysis);

  if (p->format == KS_REPORT_TABLE && annotations->n_rows == 0)
    g_string_append_printf (p->out, "%s\n", _("The trace has no GPU user annotations."));
  else
    print_list (p, annotations, 0);
}

/* Sampled stacks: per thread, the frames by self and total samples. */
static void
report_samples (Printer *p)
{
  g_autoptr(KsReport) samples = ks_report_new_samples (p->trace, p->analysis);

  if (p->format == KS_REPORT_JSON)
    json_list (p, samples, G_MAXUINT);
  else if (p->format == KS_REPORT_CSV)
    write_list (p, samples, NULL, NULL, G_MAXUINT);
  else if (samples->n_rows == 0 && ks_analysis_explain_missing (p->trace, KS_MISSING_PYTHON_SAMPLES) != NULL)
    g_string_append_printf (p->out, "%s\n", ks_analysis_explain_missing (p->trace, KS_MISSING_PYTHON_SAMPLES));
  else if (samples->n_rows == 0)
    g_string_append_printf (p->out, "%s\n", _("The trace has no sampled stacks."));
  else
    write_list (p, samples, NULL, NULL, G_MAXUINT);
}

int
ks_cli_stats (int    argc,
              char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) analysis = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  g_autofree char *report = NULL;
  g_autofree char *format = NULL;
  g_autofree char *group_by = NULL;
  g_auto(KsCliRooflineArgs) roofline = { 0 };
  g_autofree char *step = NULL;
  g_autofree char *what_if = NULL;
  g_auto(GStrv) files = NULL;
  double gap_min_us = KS_ANALYSIS_DEFAULT_GAP_THRESHOLD_NS / 1000.0;
  double kernel_wait_us = KS_ANALYSIS_DEFAULT_KERNEL_WAIT_NS / 1000.0;
  gboolean include_copies = FALSE;
  gboolean include_warmup = FALSE;
  gboolean collectives = FALSE;
  int device = -1;
  int limit = 0;
  KsAnalysisOptions options;
  Printer printer = { 0 };
  static const char * const reports[] = { "summary", "gaps", "operators", "kernels", "memory", "advice", "steps", "samples",
                                          "utilization", "tensor-cores", "queue", "memcpy-bandwidth",
                                          "kernel-sequences", "gpu-annotations", "comms", "ranks",
                                          "profiler-ranges", "memory-snapshot", "roofline", "critical-path", NULL };
  static const char * const formats[] = { "table", "csv", "json", NULL };
  Report which = REPORT_SUMMARY;
  const GOptionEntry entries[] = {
    { "report", 'r', 0, G_OPTION_ARG_STRING, &report,
      N_("What to print: summary (default), gaps, operators, kernels, memory, advice, steps, samples, utilization, tensor-cores, queue, memcpy-bandwidth, kernel-sequences, gpu-annotations, comms, ranks, profiler-ranges, memory-snapshot, roofline or critical-path"), N_("REPORT") },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, N_("Output format: table (default), csv or json"), "table|csv|json" },
    { "gap-min-us", 'g', 0, G_OPTION_ARG_DOUBLE, &gap_min_us,
      N_("List idle gaps longer than this many microseconds (default 10)"), "N" },
    { "kernel-wait-us", 0, 0, G_OPTION_ARG_DOUBLE, &kernel_wait_us,
      N_("Gaps shorter than this many microseconds before an already launched kernel are kernel wait (default 30)"), "N" },
    { "device", 'd', 0, G_OPTION_ARG_INT, &device, N_("Analyse only this GPU"), "N" },
    { "include-copies", 'c', 0, G_OPTION_ARG_NONE, &include_copies,
      N_("Count memcpy and memset as busy time, not only kernels"), NULL },
    { "include-warmup", 0, 0, G_OPTION_ARG_NONE, &include_warmup,
      N_("Count the warm-up steps in the figures too"), NULL },
    { "group-by", 0, 0, G_OPTION_ARG_STRING, &group_by,
      N_("Operators by name (default), by name and input shapes, or by Python call stack; kernels by name (default), by name and operator, or by name and launch"),
      "name|shape|stack|operator|launch" },
    { "limit", 'n', 0, G_OPTION_ARG_INT, &limit, N_("Print at most N rows of a list (0: all)"), "N" },
    { "collectives", 0, 0, G_OPTION_ARG_NONE, &collectives,
      N_("With --report ranks --format json: every collective, for kinescope-cli ranks to merge"), NULL },
    { "step", 0, 0, G_OPTION_ARG_STRING, &step, N_("With --report critical-path: only the steps of this name"), N_("NAME") },
    { "what-if", 0, 0, G_OPTION_ARG_STRING, &what_if,
      N_("With --report critical-path: re-time the steps with op:GLOB=FACTOR, kernel:GLOB=FACTOR, copy=FACTOR, launch=FACTOR, dataloader=FACTOR, separated by commas"),
      N_("RULES") },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, N_("FILE") },
    { NULL }
  };

  context = g_option_context_new (_("FILE… — statistics of a trace, or of the traces of a job's ranks"));
  g_option_context_set_summary (context,
                                _("Prints where the time of a trace goes: GPU busy time, idle gaps and what\n"
                                  "the CPU was doing meanwhile, the step-time breakdown, operators, kernels,\n"
                                  "launch latency, memory and advice."));
  g_option_context_set_description (context,
                                    _("Definitions:\n"
                                      "  busy %: length of the union of kernel intervals on a GPU inside the\n"
                                      "    window, divided by the window (never adds up concurrent kernels).\n"
                                      "  window: the union of the steps (ProfilerStep#N, else NVTX ranges named\n"
                                      "    like \"step 12\" or \"iteration 12\"), else first to last GPU activity;\n"
                                      "    a step ends where the GPU work it launched ends (TensorBoard's rule).\n"
                                      "  idle gap: time in the window with no kernel, memcpy or memset on the GPU,\n"
                                      "    classified host wait / kernel wait (< 30 us) / other with HTA's rule.\n"
                                      "  launch latency: kernel start minus the later of the end of its launch\n"
                                      "    call and the end of earlier work on its stream (that wait is queueing).\n"
                                      "  step breakdown: kernel, memcpy, memset, runtime, DataLoader, CPU exec,\n"
                                      "    other, each claiming only time not claimed before; they sum to the step."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  ks_cli_roofline_add_options (context, &roofline);
  ks_cli_add_load_options (context);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      ks_cli_printerr ("kinescope-cli stats: %s\n", error->message);
      return KS_CLI_USAGE;
    }
  if (files == NULL || files[0] == NULL)
    {
      ks_cli_printerr (_("kinescope-cli stats: expected a FILE, or the files of a job's ranks (see --help)\n"));
      return KS_CLI_USAGE;
    }
  if (report != NULL)
    {
      gboolean found = FALSE;

      for (guint i = 0; reports[i]; i++)
        if (strcmp (report, reports[i]) == 0)
          {
            which = i;
            found = TRUE;
          }
      if (!found)
        {
          ks_cli_printerr (_("kinescope-cli stats: unknown report “%s”\n"), report);
          return KS_CLI_USAGE;
        }
    }
  printer.format = KS_REPORT_TABLE;
  if (format != NULL)
    {
      gboolean found = FALSE;

      for (guint i = 0; formats[i]; i++)
        if (strcmp (format, formats[i]) == 0)
          {
            printer.format = i;
            found = TRUE;
          }
      if (!found)
        {
          ks_cli_printerr (_("kinescope-cli stats: unknown output format “%s” (table, csv or json)\n"), format);
          return KS_CLI_USAGE;
        }
    }
  if (group_by != NULL && strcmp (group_by, "name") != 0 && strcmp (group_by, "shape") != 0 &&
      strcmp (group_by, "stack") != 0 && strcmp (group_by, "operator") != 0 && strcmp (group_by, "launch") != 0)
    {
      ks_cli_printerr (_("kinescope-cli stats: --group-by takes name, shape, stack, operator or launch\n"));
      return KS_CLI_USAGE;
    }
  if (!(gap_min_us >= 0) || gap_min_us > 1e12 || limit < 0 || device < -1)
    {
      ks_cli_printerr (_("kinescope-cli stats: --gap-min-us, --limit and --device take values of 0 or more\n"));
      return KS_CLI_USAGE;
    }

  if (!ks_cli_roofline_check_options (&roofline, &error))
    {
      ks_cli_printerr ("kinescope-cli stats: %s\n", error->message);
      return KS_CLI_USAGE;
    }

  if (!(kernel_wait_us >= 0) || kernel_wait_us > 1e12)
    {
      ks_cli_printerr (_("kinescope-cli stats: --kernel-wait-us takes a value of 0 or more\n"));
      return KS_CLI_USAGE;
    }

  ks_analysis_options_init (&options);
  options.gap_threshold_ns = (gint64)llround (gap_min_us * 1000.0);
  options.busy_includes_copies = include_copies;
  options.include_warmup = include_warmup;
  options.kernel_wait_ns = (gint64)llround (kernel_wait_us * 1000.0);
  options.device = device;

  if ((step != NULL || what_if != NULL) && which != REPORT_CRITICAL_PATH)
    {
      ks_cli_printerr (_("kinescope-cli stats: --step and --what-if go with --report critical-path\n"));
      return KS_CLI_USAGE;
    }

  /* A snapshot's allocator state is read from the snapshot itself. */
  if (which == REPORT_MEMORY_SNAPSHOT)
    return ks_cli_stats_memory_snapshot (files[0], printer.format, limit);

  if (which == REPORT_RANKS && !collectives)
    {
      int status = KS_CLI_OK;

      printer.out = out;
      if (ks_cli_stats_ranks_summarised (&printer, (const char * const *)files, &options, &status))
        return status;
    }

  trace = ks_cli_load_traces ("stats", (const char * const *)files);
  if (trace == NULL)
    return KS_CLI_FAILED;
  analysis = ks_analysis_compute (trace, &options, NULL, NULL, &error);
  if (analysis == NULL)
    {
      ks_cli_printerr ("kinescope-cli stats: %s: %s\n", files[0], error->message);
      return KS_CLI_FAILED;
    }
  if (device >= 0 && ks_analysis_get_gpu (analysis, device) == NULL &&
      ks_analysis_get_utilization (analysis, NULL) == NULL)
    {
      ks_cli_printerr (_("kinescope-cli stats: %s: the trace has no GPU %d\n"), files[0], device);
      return KS_CLI_FAILED;
    }

  printer.trace = trace;
  printer.analysis = analysis;
  printer.limit = limit;
  printer.by_shape = group_by != NULL && strcmp (group_by, "shape") == 0;
  printer.by_stack = group_by != NULL && strcmp (group_by, "stack") == 0;
  printer.kernel_grouping = -1;
  if (group_by != NULL && strcmp (group_by, "operator") == 0)
    printer.kernel_grouping = KS_KERNEL_BY_OPERATOR;
  else if (group_by != NULL && strcmp (group_by, "launch") == 0)
    printer.kernel_grouping = KS_KERNEL_BY_LAUNCH;
  printer.out = out;
  printer.collectives = collectives;

  switch (which)
    {
    case REPORT_SUMMARY:   report_summary (&printer); break;
    case REPORT_GAPS:      report_gaps (&printer); break;
    case REPORT_OPERATORS: report_operators (&printer); break;
    case REPORT_KERNELS:
      if (printer.kernel_grouping >= 0)
        report_kernel_groups (&printer);
      else
        report_kernels (&printer);
      break;
    case REPORT_MEMORY:    report_memory (&printer); break;
    case REPORT_ADVICE:    report_advice (&printer); break;
    case REPORT_STEPS:     report_steps (&printer); break;
    case REPORT_SAMPLES:   report_samples (&printer); break;
    case REPORT_UTILIZATION: report_utilization (&printer); break;
    case REPORT_TENSOR_CORES: report_tensor_cores (&printer); break;
    case REPORT_QUEUE:     report_queue (&printer); break;
    case REPORT_MEMCPY_BANDWIDTH: report_memcpy_bandwidth (&printer); break;
    case REPORT_KERNEL_SEQUENCES: report_kernel_sequences (&printer); break;
    case REPORT_GPU_ANNOTATIONS: report_gpu_annotations (&printer); break;
    case REPORT_COMMS:     ks_cli_stats_comms (&printer); break;
    case REPORT_RANKS:     ks_cli_stats_ranks (&printer); break;
    case REPORT_PROFILER_RANGES: report_profiler_ranges (&printer); break;
    case REPORT_ROOFLINE:
      ks_cli_stats_roofline (trace, analysis, &roofline.options, printer.format, printer.limit, printer.by_shape, out);
      break;
    case REPORT_CRITICAL_PATH:
      {
        int status = ks_cli_stats_critical_path (trace, analysis, printer.format, printer.limit,
                                                 files[0], step, what_if, out);

        if (status != KS_CLI_OK)
          return status;
      }
      break;
    case REPORT_MEMORY_SNAPSHOT:
    default:               g_assert_not_reached ();
    }

  ks_cli_write (stdout, out->str);
  /* On stderr, so that CSV and JSON stay clean. */
  ks_cli_print_warnings (trace, analysis, NULL);
  return KS_CLI_OK;
}
