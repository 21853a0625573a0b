/* ks-cli-table.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "ks-json-writer.h"
#include "ks-report.h"

G_BEGIN_DECLS

/* The text table of a report: its columns in their table order, padded
 * to their widths, the last one unpadded; every cell escaped with
 * ks_cli_append_text(). */
typedef struct
{
  const KsReport       *report;
  const KsReportColumn *columns[64];
  int                   widths[64];
  guint                 n_columns;
} KsCliTable;

void ks_cli_table_init   (KsCliTable     *table,
                          const KsReport *report);
void ks_cli_table_header (KsCliTable     *table,
                          GString        *out);
/* @index: a row of the analysis array. */
void ks_cli_table_row    (KsCliTable     *table,
                          GString        *out,
                          guint           index);
/* Header and the first @n_rows rows in the report's order. */
void ks_cli_table_write  (const KsReport *report,
                          GString        *out,
                          guint           n_rows);

/* Appends @text, escaped, padded to @width display columns (UTF-8
 * aware), cut with …, and a space. */
void ks_cli_table_cell   (GString        *out,
                          const char     *text,
                          int             width,
                          gboolean        right);
/* Ends a row: trailing spaces dropped. */
void ks_cli_table_end_row (GString       *out);

/* The rows of a list to print: at most @limit (0: all, but
 * @table_default in a text table; 0 there too: all). */
guint ks_cli_list_rows   (KsReportFormat  format,
                          guint           limit,
                          guint           n,
                          guint           table_default);
/* The first @n rows of @report in @format: the member @key (NULL: the
 * report's) of the object @json is writing, or CSV or a text table on
 * @out. */
void ks_cli_write_list   (KsReportFormat  format,
                          const KsReport *report,
                          GString        *out,
                          KsJsonWriter   *json,
                          const char     *key,
                          guint           n);
/* stats: GPM's SM and tensor activity beside busy time, per GPU and per
 * step (at most @max_steps rows in a text table): the JSON lists
 * gpu_activity and step_activity, or text tables under their headings;
 * nothing without an "SM activity" row (ks-cli-stats-activity.c). */
void ks_cli_stats_activity (KsReportFormat  format,
                            KsTrace        *trace,
                            KsAnalysis     *analysis,
                            GString        *out,
                            KsJsonWriter   *json,
                            guint           max_steps);
/* Ends the object of @json, the whole output, and appends it on one line. */
void ks_cli_json_finish  (GString        *out,
                          KsJsonWriter   *json);
/* One piece of advice in running text: "• title [rule]", then its
 * text when @with_text, its evidence and, with @with_ranges, where. */
void ks_cli_append_advice (GString        *out,
                           const KsAdvice *advice,
                           gboolean        with_text,
                           gboolean        with_ranges);
/* On stderr: what loading @trace said (a recording cut short, a
 * truncated file), then what @analysis left out; each line after @file
 * when not NULL. */
void ks_cli_print_warnings (KsTrace      *trace,
                            KsAnalysis   *analysis,
                            const char   *file);

/* A CSV field's escaping: like ks_cli_append_text(), newlines kept
 * (the CSV writer quotes them). */
void ks_cli_csv_escape   (GString        *out,
                          const char     *s);

G_END_DECLS
