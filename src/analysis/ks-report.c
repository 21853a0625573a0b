/* ks-report.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-report"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ks-format.h"
#include "ks-report-private.h"

void
ks_report_value_clear (KsReportValue *value)
{
  g_free (value->owned);
  memset (value, 0, sizeof *value);
}

void
ks_report_value_set_int (KsReportValue *value,
                         gint64         i)
{
  set_int (value, i);
}

void
ks_report_value_set_double (KsReportValue *value,
                            double         d)
{
  set_double (value, d);
}

void
ks_report_value_set_string (KsReportValue *value,
                            const char    *s)
{
  set_string (value, s);
}

/* Reports */

const KsReportColumn *
ks_report_find_column (const KsReportColumn *columns,
                       guint                 n,
                       const char           *key)
{
  for (guint i = 0; i < n; i++)
    if (strcmp (columns[i].key, key) == 0)
      return &columns[i];
  g_return_val_if_reached (NULL);
}

KsReport *
ks_report_new_for_rows (KsTrace              *trace,
                        KsAnalysis           *analysis,
                        GObject              *owner,
                        const char           *key,
                        const KsReportColumn *columns,
                        guint                 n_columns,
                        gconstpointer         rows,
                        guint                 n_rows)
{
  KsReport *r = report_new (trace, analysis, key, columns, n_columns, rows, n_rows);

  r->owner = owner != NULL ? g_object_ref (owner) : NULL;
  return r;
}

void
ks_report_free (KsReport *report)
{
  if (report == NULL)
    return;
  g_clear_object (&report->trace);
  g_clear_object (&report->analysis);
  g_clear_object (&report->owner);
  g_free (report);
}

static guint
columns_by_place (const KsReportColumn  *columns,
                  guint                  n_columns,
                  KsReportFormat         format,
                  guint64                hidden,
                  const KsReportColumn **out,
                  guint                  max)
{
  guint n = 0;

  /* By place: columns are few, a selection is enough. */
  for (guint place = 1; place <= 255 && n < max; place++)
    for (guint c = 0; c < n_columns && n < max; c++)
      if (columns[c].pos[format] == place && !(hidden & (G_GUINT64_CONSTANT (1) << c)))
        out[n++] = &columns[c];
  return n;
}

guint
ks_report_get_format_columns (const KsReport        *report,
                              KsReportFormat         format,
                              const KsReportColumn **out,
                              guint                  max)
{
  return columns_by_place (report->columns, report->n_columns, format, report->hidden[format], out, max);
}

guint
ks_report_get_page_columns (const KsReportColumn  *columns,
                            guint                  n,
                            const KsReportColumn **out,
                            guint                  max)
{
  return columns_by_place (columns, n, KS_REPORT_PAGE, 0, out, max);
}

guint
ks_report_row_index (const KsReport *report,
                     guint           row)
{
  return report->order != NULL ? report->order[row] : row;
}

void
ks_report_get_value (const KsReport       *report,
                     const KsReportColumn *column,
                     guint                 index,
                     KsReportValue        *value)
{
  memset (value, 0, sizeof *value);
  column->get (report, column, index, value);
}

char *
ks_report_get_text (const KsReport       *report,
                    const KsReportColumn *column,
                    guint                 index)
{
  g_auto(KsReportValue) v = { 0 };

  if (column->text != NULL)
    return column->text (report, column, index);

  ks_report_get_value (report, column, index, &v);
  switch (v.type)
    {
    case KS_REPORT_VALUE_NONE:
      return g_strdup ("-");
    case KS_REPORT_VALUE_STRING:
      return g_strdup (v.s != NULL ? v.s : "");
    case KS_REPORT_VALUE_BOOL:
      return g_strdup (v.i ? _("yes") : _("no"));
    case KS_REPORT_VALUE_DIM3:
      return g_strdup_printf ("%" G_GINT64_FORMAT "×%" G_GINT64_FORMAT "×%" G_GINT64_FORMAT,
                              v.dim[0], v.dim[1], v.dim[2]);
    case KS_REPORT_VALUE_RANGES:
      return g_strdup_printf ("%u", v.n_ranges);
    case KS_REPORT_VALUE_INT:
    case KS_REPORT_VALUE_DOUBLE:
    default:
      break;
    }

  switch (column->unit)
    {
    case KS_REPORT_UNIT_DURATION:
      return ks_time_format_duration (v.type == KS_REPORT_VALUE_INT ? v.i : (gint64)llround (v.d));
    case KS_REPORT_UNIT_BYTES:
      return ks_format_bytes ((guint64)MAX (v.i, 0));
    case KS_REPORT_UNIT_PERCENT:
      return g_strdup_printf ("%.*f %%", (int)column->decimals, v.type == KS_REPORT_VALUE_INT ? (double)v.i : v.d);
    case KS_REPORT_UNIT_RATIO:
      return g_strdup_printf ("%.*f %%", (int)column->decimals, 100 * v.d);
    case KS_REPORT_UNIT_TEXT:
    case KS_REPORT_UNIT_COUNT:
    case KS_REPORT_UNIT_DIM3:
    case KS_REPORT_UNIT_BOOL:
    case KS_REPORT_UNIT_RANGES:
    default:
      if (v.type == KS_REPORT_VALUE_DOUBLE)
        return g_strdup_printf ("%.*f", (int)column->decimals, v.d);
      return g_strdup_printf ("%" G_GINT64_FORMAT, v.i);
    }
}

int
ks_report_compare (const KsReport       *report,
                   const KsReportColumn *column,
                   guint                 a,
                   guint                 b)
{
  g_auto(KsReportValue) va = { 0 };
  g_auto(KsReportValue) vb = { 0 };

  if (column->compare != NULL)
    return column->compare (report, column, a, b);
  ks_report_get_value (report, column, a, &va);
  ks_report_get_value (report, column, b, &vb);
  /* Absent values sort before every other. */
  if (va.type != vb.type)
    return CMP (va.type, vb.type);
  switch (va.type)
    {
    case KS_REPORT_VALUE_STRING: return g_strcmp0 (va.s, vb.s);
    case KS_REPORT_VALUE_DOUBLE: return CMP (va.d, vb.d);
    case KS_REPORT_VALUE_DIM3:
      for (guint d = 0; d < 3; d++)
        if (va.dim[d] != vb.dim[d])
          return CMP (va.dim[d], vb.dim[d]);
      return 0;
    case KS_REPORT_VALUE_RANGES: return CMP (va.n_ranges, vb.n_ranges);
    case KS_REPORT_VALUE_NONE: return 0;
    case KS_REPORT_VALUE_INT:
    case KS_REPORT_VALUE_BOOL:
    default: return CMP (va.i, vb.i);
    }
}

const char *
ks_report_column_get_title (const KsReportColumn *column)
{
  if (column->title != NULL)
    return _(column->title);
  if (column->metric >= 0)
    return ks_metric_get_title (column->metric);
  return column->key;
}

const char *
ks_report_column_get_tooltip (const KsReportColumn *column)
{
  if (column->tooltip != NULL)
    return _(column->tooltip);
  if (column->metric >= 0)
    return ks_metric_get_definition (column->metric);
  return NULL;
}

/* CSV */

/* RFC 4180: quoted when it holds a comma, a quote or a newline. */
static void
csv_field (GString     *out,
           const char  *s,
           void       (*escape) (GString *out, const char *s))
{
  g_autoptr(GString) text = g_string_new (NULL);

  if (escape != NULL)
    escape (text, s);
  else if (s != NULL)
    g_string_append (text, s);
  if (strpbrk (text->str, ",\"\n") == NULL)
    {
      g_string_append_len (out, text->str, text->len);
      return;
    }
  g_string_append_c (out, '"');
  for (const char *p = text->str; *p; p++)
    {
      if (*p == '"')
        g_string_append_c (out, '"');
      g_string_append_c (out, *p);
    }
  g_string_append_c (out, '"');
}

static void
append_double (GString *out,
               double   d)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  g_string_append (out, g_ascii_formatd (buf, sizeof buf, "%.4f", d));
}

void
ks_report_write_csv (const KsReport  *report,
                     GString         *out,
                     guint            n_rows,
                     void           (*escape) (GString *out, const char *s))
{
  const KsReportColumn *cols[64];
  guint n = ks_report_get_format_columns (report, CSV, cols, G_N_ELEMENTS (cols));
  static const char * const axes[] = { "x", "y", "z" };

  for (guint c = 0; c < n; c++)
    {
      if (c > 0)
        g_string_append_c (out, ',');
      if (cols[c]->unit == KS_REPORT_UNIT_DIM3)
        g_string_append_printf (out, "%s_%s,%s_%s,%s_%s", cols[c]->key, axes[0], cols[c]->key, axes[1],
                                cols[c]->key, axes[2]);
      else
        g_string_append (out, cols[c]->key);
    }
  g_string_append_c (out, '\n');

  n_rows = MIN (n_rows, report->n_rows);
  for (guint row = 0; row < n_rows; row++)
    {
      guint index = ks_report_row_index (report, row);

      for (guint c = 0; c < n; c++)
        {
          g_auto(KsReportValue) v = { 0 };

          if (c > 0)
            g_string_append_c (out, ',');
          ks_report_get_value (report, cols[c], index, &v);
          switch (v.type)
            {
            case KS_REPORT_VALUE_INT:
            case KS_REPORT_VALUE_BOOL:
              g_string_append_printf (out, "%" G_GINT64_FORMAT, v.i);
              break;
            case KS_REPORT_VALUE_DOUBLE:
              append_double (out, v.d);
              break;
            case KS_REPORT_VALUE_STRING:
              csv_field (out, v.s, escape);
              break;
            case KS_REPORT_VALUE_DIM3:
              g_string_append_printf (out, "%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT,
                                      v.dim[0], v.dim[1], v.dim[2]);
              break;
            case KS_REPORT_VALUE_NONE:
            case KS_REPORT_VALUE_RANGES:
            default:
              break;
            }
        }
      g_string_append_c (out, '\n');
    }
}

/* JSON */

static void
json_value (KsJsonWriter         *json,
            const char           *key,
            const KsReportColumn *column,
            const KsReportValue  *v)
{
  switch (v->type)
    {
    case KS_REPORT_VALUE_INT:
      if (v->i >= 0 || !(column->flags & KS_REPORT_COLUMN_OMIT_NEGATIVE))
        ks_json_int (json, key, v->i);
      break;
    case KS_REPORT_VALUE_DOUBLE:
      ks_json_double (json, key, v->d, 4);
      break;
    case KS_REPORT_VALUE_STRING:
      ks_json_string (json, key, v->s);
      break;
    case KS_REPORT_VALUE_BOOL:
      ks_json_bool (json, key, v->i != 0);
      break;
    case KS_REPORT_VALUE_DIM3:
      ks_json_begin_array (json, key);
      for (guint d = 0; d < 3; d++)
        ks_json_int (json, NULL, v->dim[d]);
      ks_json_end_array (json);
      break;
    case KS_REPORT_VALUE_RANGES:
      ks_json_begin_array (json, key);
      for (guint r = 0; r < v->n_ranges; r++)
        {
          ks_json_begin_object (json, NULL);
          ks_json_int (json, "start_ns", v->ranges[r].start);
          ks_json_int (json, "end_ns", v->ranges[r].end);
          ks_json_end_object (json);
        }
      ks_json_end_array (json);
      break;
    case KS_REPORT_VALUE_NONE:
    default:
      ks_json_null (json, key);
      break;
    }
}

void
ks_report_write_json (const KsReport *report,
                      KsJsonWriter   *json,
                      const char     *key,
                      guint           n_rows)
{
  const KsReportColumn *cols[64];
  guint n = ks_report_get_format_columns (report, JSON, cols, G_N_ELEMENTS (cols));

  n_rows = MIN (n_rows, report->n_rows);
  ks_json_begin_array (json, key != NULL ? key : report->key);
  for (guint row = 0; row < n_rows; row++)
    {
      guint index = ks_report_row_index (report, row);
      const char *group = NULL;

      ks_json_begin_object (json, NULL);
      for (guint c = 0; c < n; c++)
        {
          g_auto(KsReportValue) v = { 0 };

          /* Consecutive members of one group make a nested object. */
          if (g_strcmp0 (group, cols[c]->group) != 0)
            {
              if (group != NULL)
                ks_json_end_object (json);
              group = cols[c]->group;
              if (group != NULL)
                ks_json_begin_object (json, group);
            }
          ks_report_get_value (report, cols[c], index, &v);
          json_value (json, cols[c]->json_key != NULL ? cols[c]->json_key : cols[c]->key, cols[c], &v);
        }
      if (group != NULL)
        ks_json_end_object (json);
      ks_json_end_object (json);
    }
  ks_json_end_array (json);
}
