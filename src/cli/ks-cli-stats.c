/* ks-cli-stats.c: kinescope-cli stats
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-cli-stats"

#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ks-analysis.h"
#include "ks-cli-common.h"
#include "ks-cli.h"
#include "ks-format.h"
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
} Report;

typedef enum
{
  FORMAT_TABLE,
  FORMAT_CSV,
  FORMAT_JSON,
} Format;

typedef struct
{
  KsTrace    *trace;
  KsAnalysis *analysis;
  Format      format;
  guint       limit;      /* rows of lists, 0 = all */
  gboolean    by_shape;
  GString    *out;
} Printer;

/* JSON: a tiny writer that tracks where commas go */

typedef struct
{
  GString *s;
  guint    depth;
  gboolean first[32];
} Json;

static void
json_sep (Json       *j,
          const char *key)
{
  if (!j->first[j->depth])
    g_string_append_c (j->s, ',');
  j->first[j->depth] = FALSE;
  if (key != NULL)
    {
      ks_cli_json_string (j->s, key);
      g_string_append_c (j->s, ':');
    }
}

static void
json_open (Json       *j,
           const char *key,
           char        bracket)
{
  json_sep (j, key);
  g_string_append_c (j->s, bracket);
  j->depth++;
  g_assert (j->depth < G_N_ELEMENTS (j->first));
  j->first[j->depth] = TRUE;
}

static void
json_close (Json *j,
            char  bracket)
{
  j->depth--;
  g_string_append_c (j->s, bracket);
}

static void
json_str (Json       *j,
          const char *key,
          const char *value)
{
  json_sep (j, key);
  if (value == NULL)
    g_string_append (j->s, "null");
  else
    ks_cli_json_string (j->s, value);
}

static void
json_int (Json       *j,
          const char *key,
          gint64      value)
{
  json_sep (j, key);
  g_string_append_printf (j->s, "%" G_GINT64_FORMAT, value);
}

static void
json_num (Json       *j,
          const char *key,
          double      value)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  json_sep (j, key);
  if (!isfinite (value))
    g_string_append (j->s, "null");
  else
    g_string_append (j->s, g_ascii_formatd (buf, sizeof buf, "%.4f", value));
}

static void
json_bool (Json       *j,
           const char *key,
           gboolean    value)
{
  json_sep (j, key);
  g_string_append (j->s, value ? "true" : "false");
}

/* CSV */

/* RFC 4180: quoted when it holds a comma, a quote or a newline. Control
 * characters other than the newline are escaped like everywhere else. */
static void
csv_field (GString    *out,
           const char *s,
           gboolean    last)
{
  g_autoptr(GString) text = g_string_new (NULL);

  ks_cli_append_text (text, s, -1, KS_CLI_TEXT_KEEP_NEWLINES);
  if (strpbrk (text->str, ",\"\n") != NULL)
    {
      g_string_append_c (out, '"');
      for (const char *p = text->str; *p; p++)
        {
          if (*p == '"')
            g_string_append_c (out, '"');
          g_string_append_c (out, *p);
        }
      g_string_append_c (out, '"');
    }
  else
    g_string_append_len (out, text->str, text->len);
  g_string_append_c (out, last ? '\n' : ',');
}

static void
csv_int (GString *out,
         gint64   v,
         gboolean last)
{
  g_string_append_printf (out, "%" G_GINT64_FORMAT "%c", v, last ? '\n' : ',');
}

static void
csv_num (GString *out,
         double   v,
         gboolean last)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.4f", v));
  g_string_append_c (out, last ? '\n' : ',');
}

/* Tables */

/* Appends @s, escaped, padded to @width display columns (UTF-8 aware),
 * cut with … */
static void
cell (GString    *out,
      const char *text,
      int         width,
      gboolean    right)
{
  g_autofree char *s = ks_cli_escape (text);
  glong len = g_utf8_strlen (s, -1);

  if (len > width)
    {
      const char *cut = g_utf8_offset_to_pointer (s, width - 1);

      g_string_append_len (out, s, cut - s);
      g_string_append (out, "…");
    }
  else
    {
      if (right)
        for (glong i = len; i < width; i++)
          g_string_append_c (out, ' ');
      g_string_append (out, s);
      if (!right)
        for (glong i = len; i < width; i++)
          g_string_append_c (out, ' ');
    }
  g_string_append_c (out, ' ');
}

static void
cell_dur (GString *out,
          gint64   ns,
          int      width)
{
  g_autofree char *s = ks_time_format_duration (ns);

  cell (out, s, width, TRUE);
}

/* A name from the trace in running text: escaped, on one line. */
static void
append_name (GString    *out,
             const char *name)
{
  ks_cli_append_text (out, name, -1, KS_CLI_TEXT_ONE_LINE);
}

static void
end_row (GString *out)
{
  while (out->len > 0 && out->str[out->len - 1] == ' ')
    g_string_truncate (out, out->len - 1);
  g_string_append_c (out, '\n');
}

static guint
limited (Printer *p,
         guint    n,
         guint    table_default)
{
  guint limit = p->limit;

  if (limit == 0 && p->format == FORMAT_TABLE)
    limit = table_default;
  return limit == 0 ? n : MIN (n, limit);
}

static const char *
gpu_name (Printer            *p,
          const KsGpuSummary *gpu)
{
  return ks_trace_string (p->trace, gpu->name);
}

static char *
thread_label (KsTrace *trace,
              guint32  thread)
{
  const KsThread *th;

  if (thread >= trace->n_threads)
    return g_strdup ("");
  th = &trace->threads[thread];
  if (th->name != 0)
    return g_strdup_printf ("%s (%" G_GINT64_FORMAT ")", ks_trace_string (trace, th->name), th->tid);
  return g_strdup_printf ("%" G_GINT64_FORMAT, th->tid);
}

/* The process of a step, and whether steps come from several processes
 * (a folder of ranks), when their names alone would be ambiguous. */
static gint64
step_pid (Printer      *p,
          const KsStep *step)
{
  guint32 process = p->trace->tracks[step->track].process;

  return process < p->trace->n_processes ? p->trace->processes[process].pid : -1;
}

static gboolean
steps_from_several_processes (Printer *p)
{
  guint n;
  const KsStep *steps = ks_analysis_get_steps (p->analysis, &n);

  for (guint i = 1; i < n; i++)
    if (step_pid (p, &steps[i]) != step_pid (p, &steps[0]))
      return TRUE;
  return FALSE;
}

/* A step's name in a table, escaped; NAME/PID when steps come from
 * several processes. */
static char *
step_label (Printer      *p,
            const KsStep *step,
            gboolean      several)
{
  g_autofree char *name = ks_cli_escape (ks_trace_string (p->trace, step->name));

  if (several)
    return g_strdup_printf ("%s/%" G_GINT64_FORMAT, name, step_pid (p, step));
  return g_steal_pointer (&name);
}

/* Summary */

static void
json_gpus (Printer *p,
           Json    *j)
{
  guint n;
  const KsGpuSummary *gpus = ks_analysis_get_gpus (p->analysis, &n);

  json_open (j, "gpus", '[');
  for (guint i = 0; i < n; i++)
    {
      const KsGpuSummary *g = &gpus[i];

      json_open (j, NULL, '{');
      json_int (j, "device", g->device);
      json_str (j, "name", gpu_name (p, g));
      json_int (j, "kernels", g->n_kernels);
      json_int (j, "kernel_time_ns", g->kernel_time_ns);
      json_int (j, "memcpy", g->n_memcpy);
      json_int (j, "memcpy_time_ns", g->memcpy_time_ns);
      json_int (j, "memset", g->n_memset);
      json_int (j, "memset_time_ns", g->memset_time_ns);
      json_int (j, "busy_ns", g->busy_ns);
      json_int (j, "window_ns", g->window_ns);
      json_str (j, "window", g->window_is_steps ? "steps" : "activity");
      json_int (j, "window_start_ns", g->window_start);
      json_int (j, "window_end_ns", g->window_end);
      json_int (j, "busy_in_window_ns", g->busy_in_window_ns);
      json_num (j, "busy_pct", g->busy_pct);
      if (g->est_sm_efficiency_pct >= 0)
        json_num (j, "est_sm_efficiency_pct", g->est_sm_efficiency_pct);
      else
        json_str (j, "est_sm_efficiency_pct", NULL);
      if (g->est_occupancy_pct >= 0)
        json_num (j, "est_occupancy_pct", g->est_occupancy_pct);
      else
        json_str (j, "est_occupancy_pct", NULL);
      json_open (j, "gaps", '{');
      json_int (j, "count", g->n_gaps);
      json_int (j, "total_ns", g->gap_total_ns);
      json_int (j, "largest_ns", g->largest_gap_ns);
      for (guint c = 0; c < KS_N_GAP_CLASSES; c++)
        {
          g_autofree char *key = g_strdup_printf ("%s_ns", ks_gap_class_to_string (c));

          json_int (j, key, g->gap_class_ns[c]);
        }
      json_close (j, '}');
      json_open (j, "launch_latency", '{');
      json_int (j, "count", g->latency.count);
      json_int (j, "p50_ns", g->latency.p50_ns);
      json_int (j, "p90_ns", g->latency.p90_ns);
      json_int (j, "p99_ns", g->latency.p99_ns);
      json_int (j, "max_ns", g->latency.max_ns);
      json_num (j, "mean_ns", g->latency.mean_ns);
      json_close (j, '}');
      json_close (j, '}');
    }
  json_close (j, ']');
}

static void
json_steps (Printer *p,
            Json    *j)
{
  guint n;
  const KsStep *steps = ks_analysis_get_steps (p->analysis, &n);

  json_open (j, "steps", '[');
  for (guint i = 0; i < n; i++)
    {
      json_open (j, NULL, '{');
      json_str (j, "name", ks_trace_string (p->trace, steps[i].name));
      json_int (j, "pid", step_pid (p, &steps[i]));
      json_int (j, "start_ns", steps[i].start);
      json_int (j, "dur_ns", steps[i].end - steps[i].start);
      json_open (j, "breakdown_ns", '{');
      for (guint k = 0; k < KS_N_STEP_PARTS; k++)
        json_int (j, ks_step_part_to_string (k), steps[i].parts[k]);
      json_close (j, '}');
      json_close (j, '}');
    }
  json_close (j, ']');
}

static void
json_kernels (Printer    *p,
              Json       *j,
              const char *key,
              guint       max)
{
  guint n;
  const KsKernelStats *k = ks_analysis_get_kernels (p->analysis, &n);

  n = MIN (n, max);
  json_open (j, key, '[');
  for (guint i = 0; i < n; i++)
    {
      json_open (j, NULL, '{');
      json_str (j, "name", ks_trace_string (p->trace, k[i].name));
      json_int (j, "calls", k[i].calls);
      json_int (j, "total_ns", k[i].total_ns);
      json_num (j, "mean_ns", k[i].mean_ns);
      json_int (j, "min_ns", k[i].min_ns);
      json_int (j, "max_ns", k[i].max_ns);
      json_num (j, "share", k[i].share);
      json_open (j, "grid", '[');
      for (guint d = 0; d < 3; d++)
        json_int (j, NULL, k[i].grid[d]);
      json_close (j, ']');
      json_open (j, "block", '[');
      for (guint d = 0; d < 3; d++)
        json_int (j, NULL, k[i].block[d]);
      json_close (j, ']');
      json_int (j, "registers", k[i].registers);
      json_bool (j, "config_varies", k[i].config_varies);
      if (k[i].occupancy_pct >= 0)
        json_num (j, "est_occupancy_pct", k[i].occupancy_pct);
      else
        json_str (j, "est_occupancy_pct", NULL);
      json_close (j, '}');
    }
  json_close (j, ']');
}

static void
json_operators (Printer    *p,
                Json       *j,
                const char *key,
                guint       max)
{
  guint n;
  const KsOperatorStats *o = ks_analysis_get_operators (p->analysis,
                                                        p->by_shape ? KS_OPERATOR_BY_NAME_AND_SHAPE
                                                                    : KS_OPERATOR_BY_NAME, &n);

  n = MIN (n, max);
  json_open (j, key, '[');
  for (guint i = 0; i < n; i++)
    {
      json_open (j, NULL, '{');
      json_str (j, "name", ks_trace_string (p->trace, o[i].name));
      if (p->by_shape)
        json_str (j, "input_dims", o[i].input_dims);
      json_int (j, "calls", o[i].calls);
      json_int (j, "host_total_ns", o[i].host_total_ns);
      json_int (j, "host_self_ns", o[i].host_self_ns);
      json_int (j, "device_total_ns", o[i].device_total_ns);
      json_int (j, "device_self_ns", o[i].device_self_ns);
      json_close (j, '}');
    }
  json_close (j, ']');
}

static void
json_advice (Printer *p,
             Json    *j)
{
  guint n;
  const KsAdvice *a = ks_analysis_get_advice (p->analysis, &n);

  json_open (j, "advice", '[');
  for (guint i = 0; i < n; i++)
    {
      json_open (j, NULL, '{');
      json_str (j, "rule", a[i].rule);
      json_str (j, "title", a[i].title);
      json_str (j, "text", a[i].text);
      json_str (j, "evidence", a[i].evidence);
      if (a[i].device >= 0)
        json_int (j, "device", a[i].device);
      json_open (j, "ranges", '[');
      for (guint r = 0; r < a[i].n_ranges; r++)
        {
          json_open (j, NULL, '{');
          json_int (j, "start_ns", a[i].ranges[r].start);
          json_int (j, "end_ns", a[i].ranges[r].end);
          json_close (j, '}');
        }
      json_close (j, ']');
      json_close (j, '}');
    }
  json_close (j, ']');
}

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
      g_autofree char *p50 = ks_time_format_duration (g->latency.p50_ns);
      g_autofree char *p90 = ks_time_format_duration (g->latency.p90_ns);

      if (g->name != 0)
        {
          g_autofree char *name = ks_cli_escape (gpu_name (p, g));

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
      g_string_append_printf (out, "  %-24s %s p50, %s p90 (%" G_GUINT64_FORMAT " %s)\n", _("Launch latency:"),
                              p50, p90, g->latency.count, _("kernels"));
    }
}

static void
table_steps (Printer *p,
             guint    default_rows)
{
  GString *out = p->out;
  gboolean several;
  int width = 18;
  guint n, shown;
  double mean[KS_N_STEP_PARTS + 1] = { 0 };
  const KsStep *steps = ks_analysis_get_steps (p->analysis, &n);

  if (n == 0)
    return;

  g_string_append_printf (out, "\n%s\n", _("Step time breakdown:"));
  several = steps_from_several_processes (p);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = step_label (p, &steps[i], several);

      width = MAX (width, (int)g_utf8_strlen (name, -1));
    }
  width = MIN (width, 48);
  cell (out, _("Step"), width, FALSE);
  cell (out, _("Duration"), 11, TRUE);
  for (guint k = 0; k < KS_N_STEP_PARTS; k++)
    cell (out, ks_step_part_get_title (k), 11, TRUE);
  end_row (out);
  /* A recording can have thousands of NVTX steps: the first ones, then
   * their mean. */
  shown = limited (p, n, default_rows);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *name = step_label (p, &steps[i], several);

      mean[KS_N_STEP_PARTS] += (double) (steps[i].end - steps[i].start) / n;
      for (guint k = 0; k < KS_N_STEP_PARTS; k++)
        mean[k] += (double) steps[i].parts[k] / n;
      if (i >= shown)
        continue;
      cell (out, name, width, FALSE);
      cell_dur (out, steps[i].end - steps[i].start, 11);
      for (guint k = 0; k < KS_N_STEP_PARTS; k++)
        cell_dur (out, steps[i].parts[k], 11);
      end_row (out);
    }
  if (shown < n)
    g_string_append_printf (out, _("… %u more (use --limit)\n"), n - shown);
  if (n > 1)
    {
      g_autofree char *label = g_strdup_printf (_("mean of %u"), n);

      cell (out, label, width, FALSE);
      cell_dur (out, (gint64) (mean[KS_N_STEP_PARTS] + 0.5), 11);
      for (guint k = 0; k < KS_N_STEP_PARTS; k++)
        cell_dur (out, (gint64) (mean[k] + 0.5), 11);
      end_row (out);
    }
}

static void
table_kernels (Printer *p,
               guint    max)
{
  GString *out = p->out;
  guint n;
  const KsKernelStats *k = ks_analysis_get_kernels (p->analysis, &n);

  n = MIN (n, max);
  cell (out, _("Calls"), 7, TRUE);
  cell (out, _("Total"), 11, TRUE);
  cell (out, _("Mean"), 11, TRUE);
  cell (out, _("Min"), 11, TRUE);
  cell (out, _("Max"), 11, TRUE);
  cell (out, _("Share"), 7, TRUE);
  cell (out, _("Occ."), 5, TRUE);
  cell (out, _("Grid"), 14, FALSE);
  cell (out, _("Block"), 12, FALSE);
  cell (out, _("Regs"), 4, TRUE);
  g_string_append (out, _("Kernel"));
  end_row (out);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *calls = g_strdup_printf ("%" G_GUINT64_FORMAT, k[i].calls);
      g_autofree char *share = g_strdup_printf ("%.1f%%", 100 * k[i].share);
      g_autofree char *occ = k[i].occupancy_pct >= 0 ? g_strdup_printf ("%.0f%%", k[i].occupancy_pct) : g_strdup ("-");
      g_autofree char *grid = g_strdup_printf ("%u,%u,%u%s", k[i].grid[0], k[i].grid[1], k[i].grid[2],
                                               k[i].config_varies ? "*" : "");
      g_autofree char *block = g_strdup_printf ("%u,%u,%u", k[i].block[0], k[i].block[1], k[i].block[2]);
      g_autofree char *regs = g_strdup_printf ("%u", k[i].registers);

      cell (out, calls, 7, TRUE);
      cell_dur (out, k[i].total_ns, 11);
      cell_dur (out, (gint64)llround (k[i].mean_ns), 11);
      cell_dur (out, k[i].min_ns, 11);
      cell_dur (out, k[i].max_ns, 11);
      cell (out, share, 7, TRUE);
      cell (out, occ, 5, TRUE);
      cell (out, grid, 14, FALSE);
      cell (out, block, 12, FALSE);
      cell (out, regs, 4, TRUE);
      append_name (out, ks_trace_string (p->trace, k[i].name));
      end_row (out);
    }
}

static void
table_operators (Printer *p,
                 guint    max)
{
  GString *out = p->out;
  guint n;
  const KsOperatorStats *o = ks_analysis_get_operators (p->analysis,
                                                        p->by_shape ? KS_OPERATOR_BY_NAME_AND_SHAPE
                                                                    : KS_OPERATOR_BY_NAME, &n);

  n = MIN (n, max);
  cell (out, _("Calls"), 7, TRUE);
  cell (out, _("Host total"), 11, TRUE);
  cell (out, _("Host self"), 11, TRUE);
  cell (out, _("Dev. total"), 11, TRUE);
  cell (out, _("Dev. self"), 11, TRUE);
  g_string_append (out, _("Operator"));
  end_row (out);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *calls = g_strdup_printf ("%" G_GUINT64_FORMAT, o[i].calls);

      cell (out, calls, 7, TRUE);
      cell_dur (out, o[i].host_total_ns, 11);
      cell_dur (out, o[i].host_self_ns, 11);
      cell_dur (out, o[i].device_total_ns, 11);
      cell_dur (out, o[i].device_self_ns, 11);
      append_name (out, ks_trace_string (p->trace, o[i].name));
      if (p->by_shape && o[i].input_dims != NULL && o[i].input_dims[0])
        {
          g_string_append_c (out, ' ');
          append_name (out, o[i].input_dims);
        }
      end_row (out);
    }
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
    {
      g_string_append (out, "• ");
      append_name (out, a[i].title);
      g_string_append (out, " [");
      append_name (out, a[i].rule);
      g_string_append (out, "]\n  ");
      append_name (out, a[i].text);
      g_string_append (out, "\n  ");
      append_name (out, a[i].evidence);
      g_string_append_c (out, '\n');
      for (guint r = 0; r < a[i].n_ranges; r++)
        {
          g_autofree char *s = ks_time_format_duration (a[i].ranges[r].start);
          g_autofree char *e = ks_time_format_duration (a[i].ranges[r].end);

          g_string_append_printf (out, "    %s %s – %s\n", _("at"), s, e);
        }
    }
}

static void
report_summary (Printer *p)
{
  if (p->format == FORMAT_JSON)
    {
      Json j = { p->out, 0, { TRUE } };

      json_open (&j, NULL, '{');
      json_gpus (p, &j);
      json_steps (p, &j);
      json_kernels (p, &j, "top_kernels", SUMMARY_TOP);
      json_operators (p, &j, "top_operators", SUMMARY_TOP);
      json_advice (p, &j);
      json_close (&j, '}');
      g_string_append_c (p->out, '\n');
    }
  else if (p->format == FORMAT_CSV)
    {
      guint n;
      const KsGpuSummary *gpus = ks_analysis_get_gpus (p->analysis, &n);

      g_string_append (p->out, "device,name,kernels,kernel_time_ns,busy_ns,window_ns,busy_in_window_ns,busy_pct,"
                               "gaps,gap_total_ns,largest_gap_ns,host_wait_ns,kernel_wait_ns,other_wait_ns,"
                               "est_sm_efficiency_pct,est_occupancy_pct\n");
      for (guint i = 0; i < n; i++)
        {
          csv_int (p->out, gpus[i].device, FALSE);
          csv_field (p->out, gpu_name (p, &gpus[i]), FALSE);
          csv_int (p->out, gpus[i].n_kernels, FALSE);
          csv_int (p->out, gpus[i].kernel_time_ns, FALSE);
          csv_int (p->out, gpus[i].busy_ns, FALSE);
          csv_int (p->out, gpus[i].window_ns, FALSE);
          csv_int (p->out, gpus[i].busy_in_window_ns, FALSE);
          csv_num (p->out, gpus[i].busy_pct, FALSE);
          csv_int (p->out, gpus[i].n_gaps, FALSE);
          csv_int (p->out, gpus[i].gap_total_ns, FALSE);
          csv_int (p->out, gpus[i].largest_gap_ns, FALSE);
          csv_int (p->out, gpus[i].gap_class_ns[KS_GAP_HOST_WAIT], FALSE);
          csv_int (p->out, gpus[i].gap_class_ns[KS_GAP_KERNEL_WAIT], FALSE);
          csv_int (p->out, gpus[i].gap_class_ns[KS_GAP_OTHER], FALSE);
          /* Empty when unknown. */
          if (gpus[i].est_sm_efficiency_pct >= 0)
            csv_num (p->out, gpus[i].est_sm_efficiency_pct, FALSE);
          else
            g_string_append_c (p->out, ',');
          if (gpus[i].est_occupancy_pct >= 0)
            csv_num (p->out, gpus[i].est_occupancy_pct, TRUE);
          else
            g_string_append_c (p->out, '\n');
        }
    }
  else
    {
      table_gpus (p);
      table_steps (p, 20);
      g_string_append_printf (p->out, "\n%s\n", _("Top kernels:"));
      table_kernels (p, SUMMARY_TOP);
      g_string_append_printf (p->out, "\n%s\n", _("Top operators:"));
      table_operators (p, SUMMARY_TOP);
      g_string_append_printf (p->out, "\n%s\n", _("Advice:"));
      table_advice (p);
    }
}

static void
report_gaps (Printer *p)
{
  guint n, n_causes, shown;
  const KsGap *gaps = ks_analysis_get_gaps (p->analysis, &n);
  const guint *order = ks_analysis_get_gaps_by_duration (p->analysis, NULL);
  const KsGapCauseTotal *causes = ks_analysis_get_gap_causes (p->analysis, &n_causes);
  g_autofree char *threshold = NULL;
  GString *out = p->out;

  shown = limited (p, n, 30);

  if (p->format == FORMAT_JSON)
    {
      Json j = { out, 0, { TRUE } };

      json_open (&j, NULL, '{');
      json_int (&j, "threshold_ns", ks_analysis_get_options (p->analysis)->gap_threshold_ns);
      json_int (&j, "count", n);
      json_open (&j, "gaps", '[');
      for (guint i = 0; i < shown; i++)
        {
          const KsGap *g = &gaps[order[i]];
          g_autofree char *thread = thread_label (p->trace, g->thread);

          json_open (&j, NULL, '{');
          json_int (&j, "device", g->device);
          json_int (&j, "start_ns", g->start);
          json_int (&j, "end_ns", g->end);
          json_int (&j, "dur_ns", g->end - g->start);
          json_str (&j, "class", ks_gap_class_to_string (g->klass));
          json_str (&j, "cause", ks_gap_cause_to_string (g->cause));
          json_str (&j, "cause_name", ks_trace_string (p->trace, g->cause_name));
          json_str (&j, "thread", thread);
          json_close (&j, '}');
        }
      json_close (&j, ']');
      json_open (&j, "causes", '[');
      for (guint i = 0; i < n_causes; i++)
        {
          json_open (&j, NULL, '{');
          json_str (&j, "cause", ks_gap_cause_to_string (causes[i].cause));
          json_str (&j, "name", ks_trace_string (p->trace, causes[i].name));
          json_int (&j, "count", causes[i].count);
          json_int (&j, "total_ns", causes[i].total_ns);
          json_int (&j, "largest_ns", causes[i].largest_ns);
          json_close (&j, '}');
        }
      json_close (&j, ']');
      json_close (&j, '}');
      g_string_append_c (out, '\n');
      return;
    }

  if (p->format == FORMAT_CSV)
    {
      g_string_append (out, "device,start_ns,end_ns,dur_ns,class,cause,cause_name,thread\n");
      for (guint i = 0; i < shown; i++)
        {
          const KsGap *g = &gaps[order[i]];
          g_autofree char *thread = thread_label (p->trace, g->thread);

          csv_int (out, g->device, FALSE);
          csv_int (out, g->start, FALSE);
          csv_int (out, g->end, FALSE);
          csv_int (out, g->end - g->start, FALSE);
          csv_field (out, ks_gap_class_to_string (g->klass), FALSE);
          csv_field (out, ks_gap_cause_to_string (g->cause), FALSE);
          csv_field (out, ks_trace_string (p->trace, g->cause_name), FALSE);
          csv_field (out, thread, TRUE);
        }
      return;
    }

  threshold = ks_time_format_duration (ks_analysis_get_options (p->analysis)->gap_threshold_ns);
  g_string_append_printf (out, ngettext ("%u idle gap longer than %s, largest first:\n",
                                         "%u idle gaps longer than %s, largest first:\n", n),
                          n, threshold);
  cell (out, _("GPU"), 3, TRUE);
  cell (out, _("Start"), 12, TRUE);
  cell (out, _("Duration"), 11, TRUE);
  cell (out, _("Class"), 12, FALSE);
  g_string_append (out, _("CPU was in"));
  end_row (out);
  for (guint i = 0; i < shown; i++)
    {
      const KsGap *g = &gaps[order[i]];
      g_autofree char *dev = g_strdup_printf ("%d", g->device);

      cell (out, dev, 3, TRUE);
      cell_dur (out, g->start, 12);
      cell_dur (out, g->end - g->start, 11);
      cell (out, ks_gap_class_get_title (g->klass), 12, FALSE);
      g_string_append (out, ks_gap_cause_get_title (g->cause));
      if (g->cause_name != 0)
        {
          g_string_append (out, ": ");
          append_name (out, ks_trace_string (p->trace, g->cause_name));
        }
      end_row (out);
    }
  if (shown < n)
    g_string_append_printf (out, _("… %u more (use --limit)\n"), n - shown);

  g_string_append_printf (out, "\n%s\n", _("Gap time by cause:"));
  cell (out, _("Gaps"), 6, TRUE);
  cell (out, _("Total"), 11, TRUE);
  cell (out, _("Largest"), 11, TRUE);
  g_string_append (out, _("Cause"));
  end_row (out);
  for (guint i = 0; i < n_causes; i++)
    {
      g_autofree char *count = g_strdup_printf ("%u", causes[i].count);

      cell (out, count, 6, TRUE);
      cell_dur (out, causes[i].total_ns, 11);
      cell_dur (out, causes[i].largest_ns, 11);
      g_string_append (out, ks_gap_cause_get_title (causes[i].cause));
      if (causes[i].name != 0)
        {
          g_string_append (out, ": ");
          append_name (out, ks_trace_string (p->trace, causes[i].name));
        }
      end_row (out);
    }
}

static void
report_operators (Printer *p)
{
  guint n;

  ks_analysis_get_operators (p->analysis, p->by_shape ? KS_OPERATOR_BY_NAME_AND_SHAPE : KS_OPERATOR_BY_NAME, &n);

  if (p->format == FORMAT_JSON)
    {
      Json j = { p->out, 0, { TRUE } };

      json_open (&j, NULL, '{');
      json_operators (p, &j, "operators", limited (p, n, 0));
      json_close (&j, '}');
      g_string_append_c (p->out, '\n');
    }
  else if (p->format == FORMAT_CSV)
    {
      const KsOperatorStats *o = ks_analysis_get_operators (p->analysis,
                                                            p->by_shape ? KS_OPERATOR_BY_NAME_AND_SHAPE
                                                                        : KS_OPERATOR_BY_NAME, &n);

      g_string_append (p->out, "name,input_dims,calls,host_total_ns,host_self_ns,device_total_ns,device_self_ns\n");
      n = limited (p, n, 0);
      for (guint i = 0; i < n; i++)
        {
          csv_field (p->out, ks_trace_string (p->trace, o[i].name), FALSE);
          csv_field (p->out, o[i].input_dims, FALSE);
          csv_int (p->out, o[i].calls, FALSE);
          csv_int (p->out, o[i].host_total_ns, FALSE);
          csv_int (p->out, o[i].host_self_ns, FALSE);
          csv_int (p->out, o[i].device_total_ns, FALSE);
          csv_int (p->out, o[i].device_self_ns, TRUE);
        }
    }
  else
    table_operators (p, limited (p, n, 30));
}

static void
report_kernels (Printer *p)
{
  const KsLaunchLatency *lat = ks_analysis_get_launch_latency (p->analysis);
  guint n, n_edges;
  const gint64 *edges = ks_analysis_latency_bucket_edges (&n_edges);

  ks_analysis_get_kernels (p->analysis, &n);

  if (p->format == FORMAT_JSON)
    {
      Json j = { p->out, 0, { TRUE } };

      json_open (&j, NULL, '{');
      json_kernels (p, &j, "kernels", limited (p, n, 0));
      json_open (&j, "launch_latency", '{');
      json_int (&j, "count", lat->count);
      json_int (&j, "clamped", lat->n_clamped);
      json_int (&j, "min_ns", lat->min_ns);
      json_int (&j, "p50_ns", lat->p50_ns);
      json_int (&j, "p90_ns", lat->p90_ns);
      json_int (&j, "p99_ns", lat->p99_ns);
      json_int (&j, "max_ns", lat->max_ns);
      json_num (&j, "mean_ns", lat->mean_ns);
      json_open (&j, "histogram", '[');
      for (guint b = 0; b < KS_LATENCY_N_BUCKETS; b++)
        {
          json_open (&j, NULL, '{');
          json_int (&j, "from_ns", edges[b]);
          json_int (&j, "count", lat->histogram[b]);
          json_close (&j, '}');
        }
      json_close (&j, ']');
      json_close (&j, '}');
      json_close (&j, '}');
      g_string_append_c (p->out, '\n');
    }
  else if (p->format == FORMAT_CSV)
    {
      const KsKernelStats *k = ks_analysis_get_kernels (p->analysis, &n);

      g_string_append (p->out, "name,calls,total_ns,mean_ns,min_ns,max_ns,share,grid_x,grid_y,grid_z,"
                               "block_x,block_y,block_z,registers,est_occupancy_pct\n");
      n = limited (p, n, 0);
      for (guint i = 0; i < n; i++)
        {
          csv_field (p->out, ks_trace_string (p->trace, k[i].name), FALSE);
          csv_int (p->out, k[i].calls, FALSE);
          csv_int (p->out, k[i].total_ns, FALSE);
          csv_num (p->out, k[i].mean_ns, FALSE);
          csv_int (p->out, k[i].min_ns, FALSE);
          csv_int (p->out, k[i].max_ns, FALSE);
          csv_num (p->out, k[i].share, FALSE);
          for (guint d = 0; d < 3; d++)
            csv_int (p->out, k[i].grid[d], FALSE);
          for (guint d = 0; d < 3; d++)
            csv_int (p->out, k[i].block[d], FALSE);
          csv_int (p->out, k[i].registers, FALSE);
          if (k[i].occupancy_pct >= 0)
            csv_num (p->out, k[i].occupancy_pct, TRUE);
          else
            csv_field (p->out, "", TRUE);
        }
    }
  else
    {
      g_autofree char *p50 = ks_time_format_duration (lat->p50_ns);
      g_autofree char *p90 = ks_time_format_duration (lat->p90_ns);
      g_autofree char *p99 = ks_time_format_duration (lat->p99_ns);
      g_autofree char *mx = ks_time_format_duration (lat->max_ns);

      table_kernels (p, limited (p, n, 30));
      g_string_append_printf (p->out, "\n%s %" G_GUINT64_FORMAT " %s: p50 %s, p90 %s, p99 %s, max %s\n",
                              _("Launch latency of"), lat->count, _("kernels"), p50, p90, p99, mx);
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
  guint n_curves, n_allocs, shown;
  const KsMemoryCurve *curves = ks_analysis_get_memory_curves (p->analysis, &n_curves);
  const KsAllocation *allocs = ks_analysis_get_allocations (p->analysis, &n_allocs);
  GString *out = p->out;

  shown = limited (p, n_allocs, 20);

  if (p->format == FORMAT_JSON)
    {
      Json j = { out, 0, { TRUE } };

      json_open (&j, NULL, '{');
      json_open (&j, "devices", '[');
      for (guint i = 0; i < n_curves; i++)
        {
          const KsMemoryCurve *c = &curves[i];

          json_open (&j, NULL, '{');
          json_int (&j, "device", c->device);
          json_int (&j, "points", c->n_points);
          json_int (&j, "peak_allocated", c->peak_allocated);
          json_int (&j, "peak_allocated_ns", c->peak_allocated_ts);
          json_str (&j, "peak_operator", ks_trace_string (p->trace, c->peak_operator));
          json_int (&j, "peak_reserved", c->peak_reserved);
          json_int (&j, "peak_reserved_ns", c->peak_reserved_ts);
          json_int (&j, "total_memory", c->total_memory);
          json_close (&j, '}');
        }
      json_close (&j, ']');
      json_int (&j, "ignored_events", ks_analysis_get_n_ignored_memory_events (p->analysis));
      json_int (&j, "allocation_count", n_allocs);
      json_open (&j, "allocations", '[');
      for (guint i = 0; i < shown; i++)
        {
          json_open (&j, NULL, '{');
          json_int (&j, "device", allocs[i].device);
          json_int (&j, "bytes", allocs[i].bytes);
          json_int (&j, "alloc_ns", allocs[i].alloc_ts);
          json_int (&j, "free_ns", allocs[i].free_ts);
          json_int (&j, "lifetime_ns", allocs[i].lifetime_ns);
          json_str (&j, "operator", ks_trace_string (p->trace, allocs[i].operator_name));
          json_close (&j, '}');
        }
      json_close (&j, ']');
      json_close (&j, '}');
      g_string_append_c (out, '\n');
      return;
    }

  if (p->format == FORMAT_CSV)
    {
      g_string_append (out, "device,bytes,alloc_ns,free_ns,lifetime_ns,operator\n");
      for (guint i = 0; i < shown; i++)
        {
          csv_int (out, allocs[i].device, FALSE);
          csv_int (out, allocs[i].bytes, FALSE);
          csv_int (out, allocs[i].alloc_ts, FALSE);
          csv_int (out, allocs[i].free_ts, FALSE);
          csv_int (out, allocs[i].lifetime_ns, FALSE);
          csv_field (out, ks_trace_string (p->trace, allocs[i].operator_name), TRUE);
        }
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
      g_string_append_printf (out, "  %-20s %s\n", _("Capacity:"), cap);
    }

  if (n_allocs > 0)
    {
      g_string_append_printf (out, "\n%s\n", _("Allocations:"));
      cell (out, _("Dev"), 3, TRUE);
      cell (out, _("Size"), 10, TRUE);
      cell (out, _("Allocated"), 12, TRUE);
      cell (out, _("Lifetime"), 11, TRUE);
      g_string_append (out, _("Operator"));
      end_row (out);
      for (guint i = 0; i < shown; i++)
        {
          g_autofree char *dev = g_strdup_printf ("%d", allocs[i].device);
          g_autofree char *size = ks_format_bytes (allocs[i].bytes);

          cell (out, dev, 3, TRUE);
          cell (out, size, 10, TRUE);
          cell_dur (out, allocs[i].alloc_ts, 12);
          cell_dur (out, allocs[i].lifetime_ns, 11);
          append_name (out, ks_trace_string (p->trace, allocs[i].operator_name));
          end_row (out);
        }
      if (shown < n_allocs)
        g_string_append_printf (out, _("… %u more (use --limit)\n"), n_allocs - shown);
    }
}

static void
report_advice (Printer *p)
{
  if (p->format == FORMAT_JSON)
    {
      Json j = { p->out, 0, { TRUE } };

      json_open (&j, NULL, '{');
      json_advice (p, &j);
      json_close (&j, '}');
      g_string_append_c (p->out, '\n');
    }
  else if (p->format == FORMAT_CSV)
    {
      guint n;
      const KsAdvice *a = ks_analysis_get_advice (p->analysis, &n);

      g_string_append (p->out, "rule,device,title,text,evidence\n");
      for (guint i = 0; i < n; i++)
        {
          csv_field (p->out, a[i].rule, FALSE);
          csv_int (p->out, a[i].device, FALSE);
          csv_field (p->out, a[i].title, FALSE);
          csv_field (p->out, a[i].text, FALSE);
          csv_field (p->out, a[i].evidence, TRUE);
        }
    }
  else
    table_advice (p);
}

/* Every step with its breakdown: a recording's step times as a series. */
static void
report_steps (Printer *p)
{
  guint n;
  const KsStep *steps = ks_analysis_get_steps (p->analysis, &n);

  if (p->format == FORMAT_JSON)
    {
      Json j = { p->out, 0, { TRUE } };

      json_open (&j, NULL, '{');
      json_steps (p, &j);
      json_close (&j, '}');
      g_string_append_c (p->out, '\n');
    }
  else if (p->format == FORMAT_CSV)
    {
      g_string_append (p->out, "name,pid,start_ns,dur_ns");
      for (guint k = 0; k < KS_N_STEP_PARTS; k++)
        g_string_append_printf (p->out, ",%s_ns", ks_step_part_to_string (k));
      g_string_append_c (p->out, '\n');
      for (guint i = 0; i < n; i++)
        {
          csv_field (p->out, ks_trace_string (p->trace, steps[i].name), FALSE);
          csv_int (p->out, step_pid (p, &steps[i]), FALSE);
          csv_int (p->out, steps[i].start, FALSE);
          csv_int (p->out, steps[i].end - steps[i].start, FALSE);
          for (guint k = 0; k < KS_N_STEP_PARTS; k++)
            csv_int (p->out, steps[i].parts[k], k + 1 == KS_N_STEP_PARTS);
        }
    }
  else if (n == 0)
    g_string_append_printf (p->out, "%s\n",
                            _("No steps: the trace has neither ProfilerStep#N nor NVTX ranges named like a step."));
  else
    table_steps (p, 0);
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
  g_auto(GStrv) files = NULL;
  double gap_min_us = KS_ANALYSIS_DEFAULT_GAP_THRESHOLD_NS / 1000.0;
  gboolean include_copies = FALSE;
  int device = -1;
  int limit = 0;
  KsAnalysisOptions options;
  Printer printer = { 0 };
  static const char * const reports[] = { "summary", "gaps", "operators", "kernels", "memory", "advice", "steps", NULL };
  static const char * const formats[] = { "table", "csv", "json", NULL };
  Report which = REPORT_SUMMARY;
  const GOptionEntry entries[] = {
    { "report", 'r', 0, G_OPTION_ARG_STRING, &report,
      N_("What to print: summary (default), gaps, operators, kernels, memory, advice or steps"), N_("REPORT") },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, N_("Output format: table (default), csv or json"), "table|csv|json" },
    { "gap-min-us", 'g', 0, G_OPTION_ARG_DOUBLE, &gap_min_us,
      N_("List idle gaps longer than this many microseconds (default 10)"), "N" },
    { "device", 'd', 0, G_OPTION_ARG_INT, &device, N_("Analyse only this GPU"), "N" },
    { "include-copies", 'c', 0, G_OPTION_ARG_NONE, &include_copies,
      N_("Count memcpy and memset as busy time, not only kernels"), NULL },
    { "group-by", 0, 0, G_OPTION_ARG_STRING, &group_by,
      N_("Operators by name (default) or by name and input shapes"), "name|shape" },
    { "limit", 'n', 0, G_OPTION_ARG_INT, &limit, N_("Print at most N rows of a list (0: all)"), "N" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, N_("FILE") },
    { NULL }
  };

  context = g_option_context_new (_("FILE — statistics of a trace"));
  g_option_context_set_summary (context,
                                _("Prints where the time of a trace goes: GPU busy time, idle gaps and what\n"
                                  "the CPU was doing meanwhile, the step-time breakdown, operators, kernels,\n"
                                  "launch latency, memory and advice."));
  g_option_context_set_description (context,
                                    _("Definitions:\n"
                                      "  busy %: length of the union of kernel intervals on a GPU inside the\n"
                                      "    window, divided by the window (never adds up concurrent kernels).\n"
                                      "  window: the union of the steps (ProfilerStep#N, else NVTX ranges named\n"
                                      "    like \"step 12\" or \"iteration 12\"), else first to last GPU activity.\n"
                                      "  idle gap: time in the window with no kernel, memcpy or memset on the GPU,\n"
                                      "    classified host wait / kernel wait / other with HTA's rule.\n"
                                      "  launch latency: kernel start minus the end of its launch call, at least 0.\n"
                                      "  step breakdown: kernel, memcpy, memset, runtime, DataLoader, CPU exec,\n"
                                      "    other, each claiming only time not claimed before; they sum to the step."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      ks_cli_printerr ("kinescope-cli stats: %s\n", error->message);
      return KS_CLI_USAGE;
    }
  if (files == NULL || files[0] == NULL || files[1] != NULL)
    {
      ks_cli_printerr (_("kinescope-cli stats: expected exactly one FILE (see --help)\n"));
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
  printer.format = FORMAT_TABLE;
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
  if (group_by != NULL && strcmp (group_by, "name") != 0 && strcmp (group_by, "shape") != 0)
    {
      ks_cli_printerr (_("kinescope-cli stats: --group-by takes name or shape\n"));
      return KS_CLI_USAGE;
    }
  if (!(gap_min_us >= 0) || gap_min_us > 1e12 || limit < 0 || device < -1)
    {
      ks_cli_printerr (_("kinescope-cli stats: --gap-min-us, --limit and --device take values of 0 or more\n"));
      return KS_CLI_USAGE;
    }

  trace = ks_cli_load_trace ("stats", files[0]);
  if (trace == NULL)
    return KS_CLI_FAILED;

  ks_analysis_options_init (&options);
  options.gap_threshold_ns = (gint64)llround (gap_min_us * 1000.0);
  options.busy_includes_copies = include_copies;
  options.device = device;
  analysis = ks_analysis_compute (trace, &options, NULL, NULL, &error);
  if (analysis == NULL)
    {
      ks_cli_printerr ("kinescope-cli stats: %s: %s\n", files[0], error->message);
      return KS_CLI_FAILED;
    }
  if (device >= 0 && ks_analysis_get_gpu (analysis, device) == NULL)
    {
      ks_cli_printerr (_("kinescope-cli stats: %s: the trace has no GPU %d\n"), files[0], device);
      return KS_CLI_FAILED;
    }

  printer.trace = trace;
  printer.analysis = analysis;
  printer.limit = limit;
  printer.by_shape = group_by != NULL && strcmp (group_by, "shape") == 0;
  printer.out = out;

  switch (which)
    {
    case REPORT_SUMMARY:   report_summary (&printer); break;
    case REPORT_GAPS:      report_gaps (&printer); break;
    case REPORT_OPERATORS: report_operators (&printer); break;
    case REPORT_KERNELS:   report_kernels (&printer); break;
    case REPORT_MEMORY:    report_memory (&printer); break;
    case REPORT_ADVICE:    report_advice (&printer); break;
    case REPORT_STEPS:     report_steps (&printer); break;
    default:               g_assert_not_reached ();
    }

  ks_cli_write (stdout, out->str);
  /* On stderr, so that CSV and JSON stay clean. */
  for (const char * const *w = ks_analysis_get_warnings (analysis); *w != NULL; w++)
    ks_cli_printerr (_("Warning: %s\n"), *w);
  return KS_CLI_OK;
}
