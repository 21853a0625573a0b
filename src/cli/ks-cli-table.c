/* ks-cli-table.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-cli-table"

#include "config.h"

#include <glib/gi18n.h>

#include "ks-cli-common.h"
#include "ks-cli-table.h"
#include "ks-format.h"

void
ks_cli_table_cell (GString    *out,
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

void
ks_cli_table_end_row (GString *out)
{
  while (out->len > 0 && out->str[out->len - 1] == ' ')
    g_string_truncate (out, out->len - 1);
  g_string_append_c (out, '\n');
}

void
ks_cli_csv_escape (GString    *out,
                   const char *s)
{
  ks_cli_append_text (out, s, -1, KS_CLI_TEXT_KEEP_NEWLINES);
}

void
ks_cli_table_init (KsCliTable     *table,
                   const KsReport *report)
{
  table->report = report;
  table->n_columns = ks_report_get_format_columns (report, KS_REPORT_TABLE, table->columns,
                                                   G_N_ELEMENTS (table->columns));
  for (guint c = 0; c < table->n_columns; c++)
    table->widths[c] = table->columns[c]->width;
}

static void
put (KsCliTable *table,
     GString    *out,
     guint       c,
     const char *text)
{
  const KsReportColumn *column = table->columns[c];

  /* The last column, a name, runs to the end of the line. */
  if (c + 1 == table->n_columns && table->widths[c] == 0)
    ks_cli_append_text (out, text, -1, KS_CLI_TEXT_ONE_LINE);
  else
    ks_cli_table_cell (out, text, table->widths[c], !(column->flags & KS_REPORT_COLUMN_LEFT));
}

void
ks_cli_table_header (KsCliTable *table,
                     GString    *out)
{
  for (guint c = 0; c < table->n_columns; c++)
    {
      const KsReportColumn *column = table->columns[c];

      put (table, out, c, column->abbrev != NULL ? _(column->abbrev) : ks_report_column_get_title (column));
    }
  ks_cli_table_end_row (out);
}

void
ks_cli_table_row (KsCliTable *table,
                  GString    *out,
                  guint       index)
{
  for (guint c = 0; c < table->n_columns; c++)
    {
      g_autofree char *text = ks_report_get_text (table->report, table->columns[c], index);

      put (table, out, c, text);
    }
  ks_cli_table_end_row (out);
}

void
ks_cli_table_write (const KsReport *report,
                    GString        *out,
                    guint           n_rows)
{
  KsCliTable table;

  ks_cli_table_init (&table, report);
  ks_cli_table_header (&table, out);
  n_rows = MIN (n_rows, report->n_rows);
  for (guint row = 0; row < n_rows; row++)
    ks_cli_table_row (&table, out, ks_report_row_index (report, row));
}

guint
ks_cli_list_rows (KsReportFormat format,
                  guint          limit,
                  guint          n,
                  guint          table_default)
{
  if (limit == 0 && format == KS_REPORT_TABLE)
    limit = table_default;
  return limit == 0 ? n : MIN (n, limit);
}

void
ks_cli_write_list (KsReportFormat  format,
                   const KsReport *report,
                   GString        *out,
                   KsJsonWriter   *json,
                   const char     *key,
                   guint           n)
{
  if (format == KS_REPORT_JSON)
    ks_report_write_json (report, json, key, n);
  else if (format == KS_REPORT_CSV)
    ks_report_write_csv (report, out, n, ks_cli_csv_escape);
  else
    ks_cli_table_write (report, out, n);
}

void
ks_cli_json_finish (GString      *out,
                    KsJsonWriter *json)
{
  ks_json_end_object (json);
  g_string_append (out, ks_json_writer_get_text (json));
  g_string_append_c (out, '\n');
}

void
ks_cli_append_advice (GString        *out,
                      const KsAdvice *a,
                      gboolean        with_text,
                      gboolean        with_ranges)
{
  g_string_append (out, "• ");
  ks_cli_append_text (out, a->title, -1, KS_CLI_TEXT_ONE_LINE);
  g_string_append (out, " [");
  ks_cli_append_text (out, a->rule, -1, KS_CLI_TEXT_ONE_LINE);
  g_string_append (out, "]\n  ");
  if (with_text)
    {
      ks_cli_append_text (out, a->text, -1, KS_CLI_TEXT_ONE_LINE);
      g_string_append (out, "\n  ");
    }
  ks_cli_append_text (out, a->evidence, -1, KS_CLI_TEXT_ONE_LINE);
  g_string_append_c (out, '\n');
  for (guint r = 0; with_ranges && r < a->n_ranges; r++)
    {
      g_autofree char *s = ks_time_format_duration (a->ranges[r].start);
      g_autofree char *e = ks_time_format_duration (a->ranges[r].end);

      g_string_append_printf (out, "    %s %s – %s\n", _("at"), s, e);
    }
}

static void
print_warning (const char *file,
               const char *text)
{
  if (file != NULL)
    ks_cli_printerr (_("Warning: %s: %s\n"), file, text);
  else
    ks_cli_printerr (_("Warning: %s\n"), text);
}

void
ks_cli_print_warnings (KsTrace    *trace,
                       KsAnalysis *analysis,
                       const char *file)
{
  const char *load_warnings = ks_trace_get_metadata (trace, "warnings");

  if (load_warnings != NULL)
    {
      g_auto(GStrv) lines = g_strsplit (load_warnings, "\n", -1);

      for (guint i = 0; lines[i] != NULL; i++)
        if (*lines[i] != '\0')
          print_warning (file, lines[i]);
    }
  for (const char * const *w = ks_analysis_get_warnings (analysis); *w != NULL; w++)
    print_warning (file, *w);
}
