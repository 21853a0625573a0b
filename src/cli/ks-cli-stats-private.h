/* ks-cli-stats-private.h: what the parts of kinescope-cli stats share
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-analysis.h"
#include "ks-cli-common.h"
#include "ks-cli-table.h"
#include "ks-json-writer.h"
#include "ks-report.h"

G_BEGIN_DECLS

typedef struct
{
  KsTrace        *trace;
  KsAnalysis     *analysis;
  KsReportFormat  format;
  guint           limit;      /* rows of lists, 0 = all */
  gboolean        by_shape;
  gboolean        by_stack;
  int             kernel_grouping;  /* -1: by name; else a KsKernelGrouping */
  gboolean        collectives; /* ranks: every collective, for kinescope-cli ranks */
  GString        *out;
} Printer;

/* One JSON object as the whole output, on one line. */
static inline void
json_finish (Printer      *p,
             KsJsonWriter *json)
{
  ks_cli_json_finish (p->out, json);
}

/* One list of a report in the chosen format, at most @n rows. */
static inline void
write_list (Printer        *p,
            const KsReport *report,
            KsJsonWriter   *json,
            const char     *key,
            guint           n)
{
  ks_cli_write_list (p->format, report, p->out, json, key, n);
}

static inline guint
limited (Printer *p,
         guint    n,
         guint    table_default)
{
  return ks_cli_list_rows (p->format, p->limit, n, table_default);
}

/* A JSON object of one member: the list of @report, at most @n_rows. */
static inline void
json_list (Printer  *p,
           KsReport *report,
           guint     n_rows)
{
  g_autoptr(KsJsonWriter) json = ks_json_writer_new ();

  ks_json_begin_object (json, NULL);
  ks_report_write_json (report, json, NULL, n_rows);
  json_finish (p, json);
}

void     ks_cli_stats_comms             (Printer                 *p);
void     ks_cli_stats_ranks             (Printer                 *p);
gboolean ks_cli_stats_ranks_summarised  (Printer                 *p,
                                         const char * const      *args,
                                         const KsAnalysisOptions *options,
                                         int                     *status);

G_END_DECLS
