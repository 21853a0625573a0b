/* ks-cli-diff.c: kinescope-cli diff
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-cli-diff"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ks-cli.h"
#include "ks-cli-common.h"
#include "ks-cli-diff-gate.h"
#include "ks-cli-table.h"
#include "ks-compare.h"
#include "ks-json-writer.h"
#include "ks-report.h"

#define SUMMARY_TOP 10

/* Exit status of --gate beside KS_CLI_OK and KS_CLI_USAGE. */
#define KS_CLI_DIFF_REGRESSED    1
#define KS_CLI_DIFF_INCONCLUSIVE 3

/* --format markdown, after the formats of KsReportFormat. */
#define FORMAT_MARKDOWN 3

typedef enum
{
  REPORT_SUMMARY,
  REPORT_KERNELS,
  REPORT_OPERATORS,
  REPORT_STEPS,
} Report;

typedef struct
{
  KsCompare      *compare;
  KsReportFormat  format;
  guint           limit;      /* rows of lists, 0 = all */
  gboolean        by_shape;
  const KsGate   *gate;       /* with --gate, else NULL */
  GString        *out;
} Printer;

static guint
limited (Printer *p,
         guint    n,
         guint    table_default)
{
  return ks_cli_list_rows (p->format, p->limit, n, table_default);
}

static void
write_list (Printer        *p,
            const KsReport *report,
            KsJsonWriter   *json,
            const char     *key,
            guint           n)
{
  ks_cli_write_list (p->format, report, p->out, json, key, n);
}

static const char *
side_key (guint side)
{
  return side == KS_COMPARE_BASE ? "base" : "new";
}

/* Summary */

/* One side as `stats` sees that file: its GPU objects and memory
 * devices come from the same report rows. */
static void
json_side (Printer      *p,
           KsJsonWriter *json,
           guint         side)
{
  KsTrace *trace = ks_compare_get_trace (p->compare, side);
  KsAnalysis *analysis = ks_compare_get_analysis (p->compare, side);
  const KsCompareSteps *steps = ks_compare_get_steps (p->compare, side);
  g_autoptr(KsReport) gpus = ks_report_new_gpus (trace, analysis);
  g_autoptr(KsReport) memory = ks_report_new_memory (trace, analysis);

  ks_json_begin_object (json, side_key (side));
  ks_json_string (json, "file", ks_compare_get_file (p->compare, side));
  ks_json_int (json, "steps", steps->n_steps);
  ks_json_int (json, "step_mean_ns", steps->mean_ns);
  ks_json_int (json, "step_median_ns", steps->median_ns);
  ks_json_int (json, "step_stddev_ns", steps->stddev_ns);
  ks_json_int (json, "step_min_ns", steps->min_ns);
  ks_json_int (json, "step_max_ns", steps->max_ns);
  ks_json_begin_object (json, "breakdown_per_step_ns");
  for (guint k = 0; k < KS_N_STEP_PARTS; k++)
    ks_json_int (json, ks_step_part_to_string (k), steps->parts_ns[k]);
  ks_json_end_object (json);
  ks_report_write_json (gpus, json, NULL, G_MAXUINT);
  ks_report_write_json (memory, json, "memory", G_MAXUINT);
  ks_json_end_object (json);
}

/* The advice of one side that the other lacks, as `stats` writes it. */
static KsReport *
advice_report (KsCompare *compare,
               gboolean   added)
{
  guint side = added ? KS_COMPARE_NEW : KS_COMPARE_BASE;
  KsReport *r = ks_report_new_advice (ks_compare_get_trace (compare, side),
                                      ks_compare_get_analysis (compare, side));

  r->order = ks_compare_get_advice (compare, added, &r->n_rows);
  return r;
}

static void
table_header (Printer *p)
{
  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    {
      const KsCompareSteps *steps = ks_compare_get_steps (p->compare, s);
      g_autofree char *file = ks_cli_escape (ks_compare_get_file (p->compare, s));
      KsAnalysis *analysis = ks_compare_get_analysis (p->compare, s);
      const KsWarmup *warmup = ks_analysis_get_warmup (analysis);

      g_string_append_printf (p->out, "%-10s %s (", s == 0 ? _("Baseline:") : _("New:"), file);
      g_string_append_printf (p->out, ngettext ("%u step", "%u steps", steps->n_steps), steps->n_steps);
      /* the steps compared are the steady state's */
      if (warmup->n_steps > 0 && !ks_analysis_get_options (analysis)->include_warmup)
        g_string_append_printf (p->out, ngettext (", %u warm-up step left out", ", %u warm-up steps left out",
                                                  warmup->n_steps), warmup->n_steps);
      if (ks_analysis_get_step_rule (analysis, NULL) != NULL)
        g_string_append_printf (p->out, _(", inferred from %s"), ks_analysis_get_step_rule (analysis, NULL));
      g_string_append (p->out, ")\n");
    }
  if (ks_compare_get_per_step (p->compare))
    g_string_append_printf (p->out, "%s\n", _("Times and counts are per step."));
  else
    g_string_append_printf (p->out, "%s\n",
                            _("No steps in one of the traces: times and counts are totals over each window."));
}

static void
table_advice (Printer *p,
              gboolean added)
{
  guint side = added ? KS_COMPARE_NEW : KS_COMPARE_BASE;
  guint n_all, n;
  const KsAdvice *all = ks_analysis_get_advice (ks_compare_get_analysis (p->compare, side), &n_all);
  const guint *rows = ks_compare_get_advice (p->compare, added, &n);

  g_string_append_printf (p->out, "\n%s\n", added ? _("Advice added:") : _("Advice removed:"));
  if (n == 0)
    g_string_append_printf (p->out, "  %s\n", _("none"));
  for (guint i = 0; i < n; i++)
    ks_cli_append_advice (p->out, &all[rows[i]], FALSE, FALSE);
}

static void
report_summary (Printer *p)
{
  g_autoptr(KsReport) metrics = ks_compare_report_metrics (p->compare);
  g_autoptr(KsReport) kernels = ks_compare_report_kernels (p->compare);
  g_autoptr(KsReport) operators = ks_compare_report_operators (p->compare, p->by_shape);

  if (p->format == KS_REPORT_JSON)
    {
      g_autoptr(KsJsonWriter) json = ks_json_writer_new ();
      g_autoptr(KsReport) added = advice_report (p->compare, TRUE);
      g_autoptr(KsReport) removed = advice_report (p->compare, FALSE);

      ks_json_begin_object (json, NULL);
      ks_json_string (json, "per", ks_compare_get_per_step (p->compare) ? "step" : "window");
      if (p->gate != NULL)
        ks_cli_diff_gate_json (json, p->gate);
      json_side (p, json, KS_COMPARE_BASE);
      json_side (p, json, KS_COMPARE_NEW);
      write_list (p, metrics, json, NULL, G_MAXUINT);
      write_list (p, kernels, json, NULL, limited (p, kernels->n_rows, 0));
      write_list (p, operators, json, NULL, limited (p, operators->n_rows, 0));
      ks_json_begin_object (json, "advice");
      ks_report_write_json (added, json, "added", G_MAXUINT);
      ks_report_write_json (removed, json, "removed", G_MAXUINT);
      ks_json_end_object (json);
      ks_cli_json_finish (p->out, json);
    }
  else if (p->format == KS_REPORT_CSV)
    write_list (p, metrics, NULL, NULL, G_MAXUINT);
  else
    {
      table_header (p);
      g_string_append_c (p->out, '\n');
      write_list (p, metrics, NULL, NULL, G_MAXUINT);
      g_string_append_printf (p->out, "\n%s\n", _("Kernels, largest change first:"));
      write_list (p, kernels, NULL, NULL, limited (p, kernels->n_rows, SUMMARY_TOP));
      g_string_append_printf (p->out, "\n%s\n", _("Operators, largest change first:"));
      write_list (p, operators, NULL, NULL, limited (p, operators->n_rows, SUMMARY_TOP));
      table_advice (p, TRUE);
      table_advice (p, FALSE);
    }
}

/* kernels, operators, steps: one list. */
static void
report_list (Printer  *p,
             KsReport *report)
{
  guint n = limited (p, report->n_rows, 30);

  if (p->format == KS_REPORT_JSON)
    {
      g_autoptr(KsJsonWriter) json = ks_json_writer_new ();

      ks_json_begin_object (json, NULL);
      ks_json_string (json, "per", ks_compare_get_per_step (p->compare) ? "step" : "window");
      if (p->gate != NULL)
        ks_cli_diff_gate_json (json, p->gate);
      write_list (p, report, json, NULL, n);
      ks_cli_json_finish (p->out, json);
      return;
    }
  if (p->format == KS_REPORT_TABLE)
    {
      table_header (p);
      g_string_append_c (p->out, '\n');
    }
  write_list (p, report, NULL, NULL, n);
  if (p->format == KS_REPORT_TABLE && n < report->n_rows)
    g_string_append_printf (p->out, _("… %u more (use --limit)\n"), report->n_rows - n);
}

/* The verdict after a table, on stderr beside CSV; JSON has it inside. */
static void
print_verdict (Printer *p)
{
  g_autofree char *verdict = NULL;

  if (p->gate == NULL || p->format == KS_REPORT_JSON)
    return;
  verdict = ks_gate_format_verdict (p->gate);
  if (p->format == KS_REPORT_TABLE)
    g_string_append_printf (p->out, "\n%s\n", verdict);
  else
    ks_cli_printerr ("%s\n", verdict);
}

static int
gate_status (const KsGate *gate)
{
  switch (gate->verdict)
    {
    case KS_GATE_REGRESSED: return KS_CLI_DIFF_REGRESSED;
    case KS_GATE_INCONCLUSIVE: return KS_CLI_DIFF_INCONCLUSIVE;
    case KS_GATE_OK:
    default: return KS_CLI_OK;
    }
}

int
ks_cli_diff (int    argc,
             char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsCompare) compare = NULL;
  g_autoptr(KsGate) gate = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GFile) base = NULL;
  g_autoptr(GFile) new_file = NULL;
  g_autofree char *report = NULL;
  g_autofree char *description = NULL;
  g_autofree char *format = NULL;
  g_autofree char *group_by = NULL;
  g_auto(GStrv) files = NULL;
  int device = -1;
  int limit = 0;
  double threshold = NAN;     /* --gate */
  gboolean gating;
  gboolean include_warmup = FALSE;
  int file_error;
  guint which = REPORT_SUMMARY, format_index = KS_REPORT_TABLE, grouping = 0;
  KsAnalysisOptions options;
  Printer printer = { 0 };
  static const char * const reports[] = { "summary", "kernels", "operators", "steps", NULL };
  static const char * const formats[] = { "table", "csv", "json", "markdown", NULL };
  static const char * const groupings[] = { "name", "shape", NULL };
  const GOptionEntry entries[] = {
    { "report", 'r', 0, G_OPTION_ARG_STRING, &report,
      N_("What to print: summary (default), kernels, operators or steps"), N_("REPORT") },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format,
      N_("Output format: table (default), csv, json, or markdown (a comment for a pull request)"),
      "table|csv|json|markdown" },
    { "gate", 0, 0, G_OPTION_ARG_DOUBLE, &threshold,
      N_("Fail (exit status 1) when the median step is more than PCT percent slower, beyond the noise"), N_("PCT") },
    { "device", 'd', 0, G_OPTION_ARG_INT, &device, N_("Compare only this GPU"), "N" },
    { "include-warmup", 0, 0, G_OPTION_ARG_NONE, &include_warmup,
      N_("Count the warm-up steps in the figures too"), NULL },
    { "group-by", 0, 0, G_OPTION_ARG_STRING, &group_by,
      N_("Operators by name (default) or by name and input shapes"), "name|shape" },
    { "limit", 'n', 0, G_OPTION_ARG_INT, &limit, N_("Print at most N rows of a list (0: all)"), "N" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, N_("FILE") },
    { NULL }
  };

  context = g_option_context_new (_("BASE NEW — did the change help, and why"));
  g_option_context_set_summary (context,
                                _("Compares two traces of a program, before (BASE) and after (NEW) a change:\n"
                                  "step time, GPU busy, the step breakdown, idle time by class and cause,\n"
                                  "memory peak, advice, and kernels and operators matched by name.\n"
                                  "Each side's figures are what `kinescope-cli stats` says of that file."));
  description = g_strconcat (_("Times and counts are per step when both traces have steps (their counts\n"
                                "may differ), else totals over each trace's window. Lists are sorted by\n"
                                "the size of the change in time per step. The two files load in parallel."),
                             "\n\n",
                             _("With --gate PCT: exit status 1 when the new run's median step is more than\n"
                               "PCT percent slower and the bootstrap 95-percent interval of the change lies\n"
                               "above zero, 0 when not, 3 when the runs cannot be compared (fewer than 5\n"
                               "steady-state steps, different GPUs or world sizes, different kinds of step),\n"
                               "2 for wrong options or a file that cannot be read."),
                             NULL);
  g_option_context_set_description (context, description);
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      ks_cli_printerr ("kinescope-cli diff: %s\n", error->message);
      return KS_CLI_USAGE;
    }
  if (files == NULL || files[0] == NULL || files[1] == NULL || files[2] != NULL)
    {
      ks_cli_printerr (_("kinescope-cli diff: expected two files, BASE and NEW (see --help)\n"));
      return KS_CLI_USAGE;
    }
  if (!ks_cli_parse_choice ("diff", "--report", report, reports, &which)
      || !ks_cli_parse_choice ("diff", "--format", format, formats, &format_index)
      || !ks_cli_parse_choice ("diff", "--group-by", group_by, groupings, &grouping))
    return KS_CLI_USAGE;
  if (limit < 0 || device < -1)
    {
      ks_cli_printerr (_("kinescope-cli diff: --limit and --device take values of 0 or more\n"));
      return KS_CLI_USAGE;
    }
  gating = !isnan (threshold);
  if (gating && !(threshold >= 0 && threshold <= 1000))
    {
      ks_cli_printerr (_("kinescope-cli diff: --gate takes a percentage from 0 to 1000\n"));
      return KS_CLI_USAGE;
    }
  if (format_index == FORMAT_MARKDOWN && which != REPORT_SUMMARY)
    {
      ks_cli_printerr (_("kinescope-cli diff: --format markdown writes the summary only\n"));
      return KS_CLI_USAGE;
    }
  /* Under a gate, 1 means regressed: a file that cannot be read is 2. */
  file_error = gating ? KS_CLI_USAGE : KS_CLI_FAILED;

  ks_analysis_options_init (&options);
  options.device = device;
  options.include_warmup = include_warmup;
  base = g_file_new_for_commandline_arg (files[0]);
  new_file = g_file_new_for_commandline_arg (files[1]);
  compare = ks_compare_load (base, new_file, &options, NULL, &error);
  if (compare == NULL)
    {
      ks_cli_printerr ("kinescope-cli diff: %s\n", error->message);
      return file_error;
    }
  if (device >= 0)
    for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
      if (ks_analysis_get_gpu (ks_compare_get_analysis (compare, s), device) == NULL)
        {
          ks_cli_printerr (_("kinescope-cli diff: %s: the trace has no GPU %d\n"), files[s], device);
          return file_error;
        }

  if (gating || format_index == FORMAT_MARKDOWN)
    gate = ks_gate_compute (compare, gating ? threshold : 0);
  printer.compare = compare;
  printer.format = format_index == FORMAT_MARKDOWN ? KS_REPORT_TABLE : format_index;
  printer.gate = gating ? gate : NULL;
  printer.limit = limit;
  printer.by_shape = grouping == 1;
  printer.out = out;

  switch (which)
    {
    case REPORT_SUMMARY:
      if (format_index == FORMAT_MARKDOWN)
        {
          ks_cli_diff_markdown (out, compare, gate, gating, printer.by_shape);
          printer.gate = NULL;
        }
      else
        report_summary (&printer);
      break;
    case REPORT_KERNELS:
      {
        g_autoptr(KsReport) r = ks_compare_report_kernels (compare);

        report_list (&printer, r);
      }
      break;
    case REPORT_OPERATORS:
      {
        g_autoptr(KsReport) r = ks_compare_report_operators (compare, printer.by_shape);

        report_list (&printer, r);
      }
      break;
    case REPORT_STEPS:
      {
        g_autoptr(KsReport) r = ks_compare_report_steps (compare);

        report_list (&printer, r);
      }
      break;
    default:
      g_assert_not_reached ();
    }

  print_verdict (&printer);
  ks_cli_write (stdout, out->str);
  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    ks_cli_print_warnings (ks_compare_get_trace (compare, s), ks_compare_get_analysis (compare, s),
                           ks_compare_get_file (compare, s));
  return gating ? gate_status (gate) : KS_CLI_OK;
}
