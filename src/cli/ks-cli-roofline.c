/* ks-cli-roofline.c: kinescope-cli stats --report roofline
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ks-cli-common.h"
#include "ks-cli-roofline.h"
#include "ks-cli-table.h"
#include "ks-report-roofline.h"

void
ks_cli_roofline_add_options (GOptionContext    *context,
                             KsCliRooflineArgs *args)
{
  const GOptionEntry entries[] = {
    { "peak-tflops", 0, 0, G_OPTION_ARG_STRING, &args->peak_tflops,
      N_("With --report roofline: the GPU's peak TFLOP/s, for every type or per type (bf16=989,fp32=67)"), "N|TYPE=N,…" },
    { "peak-gbps", 0, 0, G_OPTION_ARG_DOUBLE, &args->peak_gbps,
      N_("With --report roofline: the GPU's memory bandwidth in GB/s"), "N" },
    { "model-flops-per-step", 0, 0, G_OPTION_ARG_DOUBLE, &args->model_flops,
      N_("With --report roofline: the model's FLOPs per step, for MFU (default: the operators' FLOPs)"), "N" },
    { NULL }
  };

  /* the entries are copied */
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
}

void
ks_cli_roofline_args_clear (KsCliRooflineArgs *args)
{
  g_clear_pointer (&args->peak_tflops, g_free);
}

static gboolean
parse_peak_tflops (const char         *text,
                   KsRooflineOptions  *options,
                   GError            **error)
{
  g_auto(GStrv) parts = g_strsplit (text, ",", -1);

  for (guint i = 0; parts[i] != NULL; i++)
    {
      char *eq = strchr (parts[i], '=');
      const char *number = eq != NULL ? eq + 1 : parts[i];
      KsDtype dtype = KS_DTYPE_UNKNOWN;
      char *end;
      double v;

      if (eq != NULL)
        {
          *eq = 0;
          dtype = ks_dtype_from_string (g_strstrip (parts[i]));
          if (dtype == KS_DTYPE_UNKNOWN)
            {
              g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           _("--peak-tflops: unknown type “%s” (fp64, fp32, tf32, fp16, bf16 or fp8)"), parts[i]);
              return FALSE;
            }
        }
      v = g_ascii_strtod (number, &end);
      if (end == number || *end != 0 || !(v > 0) || v > 1e9)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("--peak-tflops: “%s” is not a rate above 0"), number);
          return FALSE;
        }
      if (eq == NULL && parts[1] != NULL)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("--peak-tflops takes one number, or TYPE=N pairs"));
          return FALSE;
        }
      for (guint d = 1; d < KS_N_DTYPES; d++)
        if (dtype == KS_DTYPE_UNKNOWN || dtype == d)
          options->peak_tflops[d] = v;
    }
  return TRUE;
}

gboolean
ks_cli_roofline_check_options (KsCliRooflineArgs  *args,
                               GError            **error)
{
  memset (&args->options, 0, sizeof args->options);
  if (args->peak_tflops != NULL && !parse_peak_tflops (args->peak_tflops, &args->options, error))
    return FALSE;
  if (!(args->peak_gbps >= 0) || args->peak_gbps > 1e9 || !(args->model_flops >= 0) || args->model_flops > 1e24)
    {
      g_set_error_literal (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                           _("--peak-gbps and --model-flops-per-step take values above 0"));
      return FALSE;
    }
  args->options.peak_gbps = args->peak_gbps;
  args->options.model_flops_per_step = (guint64)llround (args->model_flops);
  return TRUE;
}

static void
table_peak (KsRoofline *roofline,
            GString    *out)
{
  const KsPeak *peak = ks_roofline_get_peak (roofline);

  if (!ks_roofline_peak_is_known (roofline))
    {
      g_string_append_printf (out, _("Peak: unknown for GPU “%s”: give --peak-tflops and --peak-gbps\n"),
                              *peak->device ? peak->device : _("none"));
      return;
    }
  g_string_append_printf (out, _("Peak of %s (%s):"), peak->device, peak->source);
  for (guint d = 1; d < KS_N_DTYPES; d++)
    if (peak->tflops[d] > 0)
      g_string_append_printf (out, " %s %g TFLOP/s,", ks_dtype_to_string (d), peak->tflops[d]);
  if (peak->gbps > 0)
    g_string_append_printf (out, _(" memory %g GB/s"), peak->gbps);
  g_string_append_c (out, '\n');
}

static void
write_list (KsReportFormat  format,
            KsReport       *report,
            GString        *out,
            KsJsonWriter   *json,
            guint           limit,
            guint           table_default)
{
  guint n = ks_cli_list_rows (format, limit, report->n_rows, table_default);

  ks_cli_write_list (format, report, out, json, NULL, n);
  if (format == KS_REPORT_TABLE && n < report->n_rows)
    g_string_append_printf (out, _("… %u more (use --limit)\n"), report->n_rows - n);
}

void
ks_cli_stats_roofline (KsTrace                 *trace,
                       KsAnalysis              *analysis,
                       const KsRooflineOptions *options,
                       KsReportFormat           format,
                       guint                    limit,
                       gboolean                 by_shape,
                       GString                 *out)
{
  g_autoptr(KsRoofline) roofline = ks_roofline_new (trace, analysis, options);
  g_autoptr(KsReport) operators = ks_report_new_roofline_operators (roofline, analysis, by_shape);
  g_autoptr(KsReport) kernels = ks_report_new_roofline_kernels (roofline, analysis);
  g_autoptr(KsReport) steps = ks_report_new_roofline_steps (roofline, analysis);
  g_autofree char *advice = ks_roofline_get_advice (roofline);
  guint64 unfit = ks_roofline_get_n_unfit (roofline);

  if (format == KS_REPORT_JSON)
    {
      g_autoptr(KsJsonWriter) json = ks_json_writer_new ();

      ks_json_begin_object (json, NULL);
      ks_report_write_roofline_peak (roofline, json);
      write_list (format, operators, out, json, limit, 0);
      write_list (format, kernels, out, json, limit, 0);
      write_list (format, steps, out, json, limit, 0);
      ks_cli_json_finish (out, json);
    }
  else if (format == KS_REPORT_CSV)
    {
      write_list (format, operators, out, NULL, limit, 0);
      g_string_append_c (out, '\n');
      write_list (format, kernels, out, NULL, limit, 0);
      g_string_append_c (out, '\n');
      write_list (format, steps, out, NULL, limit, 0);
    }
  else
    {
      table_peak (roofline, out);
      if (!ks_roofline_has_shapes (roofline))
        g_string_append_printf (out, "%s\n", ks_roofline_no_shapes_text ());
      g_string_append_printf (out, "\n%s\n", _("Operators by GPU time:"));
      write_list (format, operators, out, NULL, limit, 20);
      g_string_append_printf (out, "\n%s\n", _("Kernels by GPU time, with their operator's FLOPs:"));
      write_list (format, kernels, out, NULL, limit, 20);
      g_string_append_printf (out, "\n%s\n", ks_roofline_is_model_flops (roofline)
                                               ? _("Model FLOPs utilisation (MFU) per step:")
                                               : _("Hardware FLOPs utilisation per step (the operators' FLOPs; "
                                                   "--model-flops-per-step gives MFU):"));
      write_list (format, steps, out, NULL, limit, 20);
      if (advice != NULL)
        g_string_append_printf (out, "\n%s\n", advice);
    }
  /* on stderr, so that CSV and JSON stay clean */
  if (unfit > 0)
    {
      g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, unfit);

      ks_cli_printerr (ngettext ("kinescope-cli stats: %s operator call has shapes that fit no FLOP formula or byte count; it is left out\n",
                                 "kinescope-cli stats: %s operator calls have shapes that fit no FLOP formula or byte count; they are left out\n",
                                 (gulong)MIN (unfit, G_MAXULONG)), count);
    }
  if (format != KS_REPORT_TABLE && !ks_roofline_has_shapes (roofline))
    ks_cli_printerr ("kinescope-cli stats: %s\n", ks_roofline_no_shapes_text ());
}
