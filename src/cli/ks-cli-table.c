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
