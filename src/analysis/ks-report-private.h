/* ks-report-private.h: what the report lists share with their columns
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <string.h>

#include "ks-report.h"

G_BEGIN_DECLS

#define TABLE KS_REPORT_TABLE
#define CSV   KS_REPORT_CSV
#define JSON  KS_REPORT_JSON

static inline void
set_int (KsReportValue *v,
         gint64         i)
{
  v->type = KS_REPORT_VALUE_INT;
  v->i = i;
}

/* A rank, or nothing for -1 (no rank). */
static inline void
set_rank (KsReportValue *v,
          gint32         rank)
{
  if (rank >= 0)
    set_int (v, rank);
}

static inline void
set_double (KsReportValue *v,
            double         d)
{
  v->type = KS_REPORT_VALUE_DOUBLE;
  v->d = d;
}

/* Estimates are < 0 when unknown. */
static inline void
set_estimate (KsReportValue *v,
              double         d)
{
  if (d >= 0)
    set_double (v, d);
}

static inline void
set_string (KsReportValue *v,
            const char    *s)
{
  v->type = KS_REPORT_VALUE_STRING;
  v->s = s;
}

static inline void
take_string (KsReportValue *v,
             char          *s)
{
  set_string (v, s);
  v->owned = s;
}

static inline void
set_dim3 (KsReportValue *v,
          gint64         x,
          gint64         y,
          gint64         z)
{
  v->type = KS_REPORT_VALUE_DIM3;
  v->dim[0] = x;
  v->dim[1] = y;
  v->dim[2] = z;
}

static inline const char *
str (const KsReport *r,
     guint32         id)
{
  return ks_trace_string (r->trace, id);
}

/* A column without a metric whose CSV and JSON places are the same:
 * what most of the newer reports have. */
#define PLAIN_COL(get_, k_, title_, unit_, a_, table_, machine_, width_, flags_) \
  { .key = k_, .title = title_, .metric = -1, .unit = unit_, .get = get_, \
    .arg = a_, .pos = { table_, machine_, machine_, machine_ }, .width = width_, .flags = flags_ }

/* Operators: both their own list and the tensor cores' read them. */
#define OPERATOR(r, i) (&((const KsOperatorStats *)(r)->rows)[i])

#define CMP(a, b) (((a) > (b)) - ((a) < (b)))

static inline KsReport *
report_new (KsTrace              *trace,
            KsAnalysis           *analysis,
            const char           *key,
            const KsReportColumn *columns,
            guint                 n_columns,
            gconstpointer         rows,
            guint                 n_rows)
{
  KsReport *r = g_new0 (KsReport, 1);

  g_assert (n_columns <= 64);
  r->key = key;
  r->columns = columns;
  r->n_columns = n_columns;
  r->trace = trace != NULL ? g_object_ref (trace) : NULL;
  r->analysis = analysis != NULL ? g_object_ref (analysis) : NULL;
  r->rows = rows;
  r->n_rows = n_rows;
  return r;
}

#define NEW(key, columns, rows, n) report_new (trace, analysis, key, columns, G_N_ELEMENTS (columns), rows, n)

/* @r without its "rank" column unless the trace has ranks to tell apart. */
static inline KsReport *
hide_rank_alone (KsReport *r)
{
  if (r->trace->n_ranks >= 2)
    return r;
  for (guint c = 0; c < r->n_columns; c++)
    if (strcmp (r->columns[c].key, "rank") == 0)
      for (guint f = 0; f < KS_REPORT_N_FORMATS; f++)
        r->hidden[f] |= G_GUINT64_CONSTANT (1) << c;
  return r;
}

G_END_DECLS
