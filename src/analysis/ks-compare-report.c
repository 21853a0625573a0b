/* ks-compare-report.c: a comparison as reports
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The summary, kernels, operators and steps of two traces side by side,
 * with their changes, for compare's table, CSV and JSON and the view. */

#define G_LOG_DOMAIN "ks-compare"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ks-compare-private.h"
#include "ks-format.h"

static char *
format_value (KsReportUnit unit,
              double       v,
              gboolean     sign)
{
  const char *prefix = !sign ? "" : v > 0 ? "+" : v < 0 ? "−" : "";
  g_autofree char *text = NULL;

  if (sign)
    v = fabs (v);
  switch (unit)
    {
    case KS_REPORT_UNIT_DURATION:
      text = ks_time_format_duration (llround (v));
      break;
    case KS_REPORT_UNIT_BYTES:
      text = ks_format_bytes ((guint64)llround (v));
      break;
    case KS_REPORT_UNIT_PERCENT:
      /* A change of a percentage is in points. */
      text = g_strdup_printf (sign ? _("%.1f pt") : "%.1f %%", v);
      break;
    case KS_REPORT_UNIT_COUNT:
    case KS_REPORT_UNIT_TEXT:
    case KS_REPORT_UNIT_RATIO:
    case KS_REPORT_UNIT_DIM3:
    case KS_REPORT_UNIT_BOOL:
    case KS_REPORT_UNIT_RANGES:
    default:
      text = v == floor (v) ? g_strdup_printf ("%.0f", v) : g_strdup_printf ("%.1f", v);
      break;
    }
  return g_strconcat (prefix, text, NULL);
}

char *
ks_compare_metric_format (const KsCompareMetric *m,
                          guint                  side)
{
  double base = m->value[KS_COMPARE_BASE], change;
  g_autofree char *text = NULL;

  if (side < KS_COMPARE_N_SIDES)
    return m->has[side] ? format_value (m->unit, m->value[side], FALSE) : g_strdup ("-");
  if (!m->has[KS_COMPARE_BASE] || !m->has[KS_COMPARE_NEW])
    return g_strdup ("-");
  change = m->value[KS_COMPARE_NEW] - base;
  text = format_value (m->unit, change, TRUE);
  if (m->unit == KS_REPORT_UNIT_PERCENT || base <= 0 || change == 0)
    return g_steal_pointer (&text);
  return g_strdup_printf ("%s (%s%.1f %%)", text, change > 0 ? "+" : "−", fabs (100 * change / base));
}

/* Reports */

#define ITEM(r, i) (&((const KsCompareItem *)(r)->rows)[i])

static const char *
status_string (const KsCompareItem *item)
{
  switch (ks_compare_item_get_status (item))
    {
    case KS_COMPARE_ITEM_ADDED: return "added";
    case KS_COMPARE_ITEM_REMOVED: return "removed";
    case KS_COMPARE_ITEM_BOTH:
    default: return "both";
    }
}

static char *
status_text (const KsReport       *r,
             const KsReportColumn *c,
             guint                 i)
{
  switch (ks_compare_item_get_status (ITEM (r, i)))
    {
    case KS_COMPARE_ITEM_ADDED: return g_strdup (_("added"));
    case KS_COMPARE_ITEM_REMOVED: return g_strdup (_("removed"));
    case KS_COMPARE_ITEM_BOTH:
    default: return g_strdup ("");
    }
}

static void
item_get (const KsReport       *r,
          const KsReportColumn *c,
          guint                 i,
          KsReportValue        *v)
{
  const KsCompareItem *item = ITEM (r, i);

  switch (c->arg)
    {
    case 0: ks_report_value_set_string (v, item->name); break;
    case 1: ks_report_value_set_string (v, item->input_dims); break;
    case 2: case 3: ks_report_value_set_int (v, item->calls[c->arg - 2]); break;
    case 4: case 5: ks_report_value_set_int (v, item->total_ns[c->arg - 4]); break;
    case 6: case 7: ks_report_value_set_int (v, item->host_self_ns[c->arg - 6]); break;
    case 8: case 9: ks_report_value_set_double (v, item->calls_per_step[c->arg - 8]); break;
    case 10: case 11: ks_report_value_set_double (v, item->per_step_ns[c->arg - 10]); break;
    case 12: ks_report_value_set_double (v, item->change_ns); break;
    case 13:
      if (item->ratio >= 0 && item->index[KS_COMPARE_NEW] != KS_COMPARE_ABSENT)
        ks_report_value_set_double (v, item->ratio);
      break;
    case 14: ks_report_value_set_string (v, status_string (item)); break;
    case 15: case 16: ks_report_value_set_double (v, item->host_self_per_step_ns[c->arg - 15]); break;
    case 17:
      ks_report_value_set_double (v, item->host_self_per_step_ns[1] - item->host_self_per_step_ns[0]);
      break;
    case 18: ks_report_value_set_string (v, item->other_name); break;
    case 19: ks_report_value_set_string (v, ks_compare_item_get_match (item)); break;
    default: g_assert_not_reached ();
    }
}

/* A change with its sign: "+1.20 ms", "−300 µs"; "-" when absent. */
static char *
change_text (const KsReport       *r,
             const KsReportColumn *c,
             guint                 i)
{
  g_auto(KsReportValue) v = { 0 };

  ks_report_get_value (r, c, i, &v);
  if (v.type == KS_REPORT_VALUE_NONE)
    return g_strdup ("-");
  return format_value (KS_REPORT_UNIT_DURATION, v.type == KS_REPORT_VALUE_INT ? (double)v.i : v.d, TRUE);
}

static char *
ratio_text (const KsReport       *r,
            const KsReportColumn *c,
            guint                 i)
{
  g_auto(KsReportValue) v = { 0 };

  ks_report_get_value (r, c, i, &v);
  if (v.type == KS_REPORT_VALUE_NONE)
    return g_strdup ("-");
  return g_strdup_printf ("×%.2f", v.d);
}

#define I_COL(k_, title_, abbrev_, unit_, dec_, a_, table_, csv_, json_, page_, width_) \
  { .key = k_, .title = title_, .abbrev = abbrev_, .metric = -1, .unit = unit_, .decimals = dec_, .get = item_get, .arg = a_, \
    .pos = { table_, csv_, json_, page_ }, .width = width_ }
#define I_CHANGE(k_, title_, abbrev_, a_, table_, csv_, json_, page_) \
  { .key = k_, .title = title_, .abbrev = abbrev_, .metric = -1, .unit = KS_REPORT_UNIT_DURATION, .get = item_get, \
    .text = change_text, .arg = a_, .pos = { table_, csv_, json_, page_ }, .width = 11 }
#define I_RATIO(table_, csv_, json_, page_) \
  { .key = "ratio", .title = N_("Ratio"), .tooltip = N_("New time per step over the baseline's"), .metric = -1, \
    .unit = KS_REPORT_UNIT_COUNT, .decimals = 2, .get = item_get, .text = ratio_text, .arg = 13, \
    .pos = { table_, csv_, json_, page_ }, .width = 7 }
#define I_STATUS(table_, csv_, json_, page_) \
  { .key = "status", .title = N_("Status"), .metric = -1, .unit = KS_REPORT_UNIT_TEXT, .get = item_get, \
    .text = status_text, .arg = 14, .pos = { table_, csv_, json_, page_ }, .width = 8, \
    .flags = KS_REPORT_COLUMN_LEFT }

/* A kernel matched across names: "base → new". */
static char *
kernel_name_text (const KsReport       *r,
                  const KsReportColumn *c,
                  guint                 i)
{
  const KsCompareItem *item = ITEM (r, i);

  if (item->other_name == NULL)
    return g_strdup (item->name);
  return g_strdup_printf ("%s → %s", item->name, item->other_name);
}

static char *
match_text (const KsReport       *r,
            const KsReportColumn *c,
            guint                 i)
{
  return g_strdup (ks_compare_item_get_match_title (ITEM (r, i)));
}

static const KsReportColumn kernel_columns[] = {
  { .key = "name", .title = N_("Kernel"), .metric = -1, .unit = KS_REPORT_UNIT_TEXT, .get = item_get, .arg = 0,
    .text = kernel_name_text, .pos = { 9, 1, 1, 1 }, .flags = KS_REPORT_COLUMN_LEFT },
  { .key = "new_name", .title = N_("Kernel, new"), .metric = -1, .unit = KS_REPORT_UNIT_TEXT, .get = item_get,
    .arg = 18, .pos = { 0, 14, 14, 0 }, .flags = KS_REPORT_COLUMN_LEFT },
  { .key = "match", .title = N_("Matched by"), .metric = -1, .unit = KS_REPORT_UNIT_TEXT, .get = item_get,
    .text = match_text, .arg = 19, .pos = { 8, 13, 13, 0 }, .width = 18, .flags = KS_REPORT_COLUMN_LEFT },
  I_COL ("base_calls", N_("Calls, baseline"), NULL, KS_REPORT_UNIT_COUNT, 0, 2, 0, 2, 2, 0, 0),
  I_COL ("new_calls", N_("Calls, new"), NULL, KS_REPORT_UNIT_COUNT, 0, 3, 0, 3, 3, 0, 0),
  I_COL ("base_total_ns", N_("Total, baseline"), NULL, KS_REPORT_UNIT_DURATION, 0, 4, 0, 4, 4, 0, 0),
  I_COL ("new_total_ns", N_("Total, new"), NULL, KS_REPORT_UNIT_DURATION, 0, 5, 0, 5, 5, 0, 0),
  I_COL ("base_calls_per_step", N_("Calls/step, baseline"), N_("Base calls"), KS_REPORT_UNIT_COUNT, 1, 8, 1, 6, 6, 2, 10),
  I_COL ("new_calls_per_step", N_("Calls/step, new"), N_("New calls"), KS_REPORT_UNIT_COUNT, 1, 9, 2, 7, 7, 3, 10),
  I_COL ("base_per_step_ns", N_("Time/step, baseline"), N_("Base time"), KS_REPORT_UNIT_DURATION, 0, 10, 3, 8, 8, 4, 11),
  I_COL ("new_per_step_ns", N_("Time/step, new"), N_("New time"), KS_REPORT_UNIT_DURATION, 0, 11, 4, 9, 9, 5, 11),
  I_CHANGE ("change_ns", N_("Change"), NULL, 12, 5, 10, 10, 6),
  I_RATIO (6, 11, 11, 7),
  I_STATUS (7, 12, 12, 8),
};

static const KsReportColumn operator_columns[] = {
  { .key = "name", .title = N_("Operator"), .metric = -1, .unit = KS_REPORT_UNIT_TEXT, .get = item_get,
    .arg = 0, .pos = { 9, 1, 1, 1 }, .flags = KS_REPORT_COLUMN_LEFT },
  { .key = "input_dims", .title = N_("Input shapes"), .metric = -1, .unit = KS_REPORT_UNIT_TEXT, .get = item_get,
    .arg = 1, .pos = { 0, 2, 2, 2 }, .flags = KS_REPORT_COLUMN_LEFT },
  I_COL ("base_calls", N_("Calls, baseline"), NULL, KS_REPORT_UNIT_COUNT, 0, 2, 0, 3, 3, 0, 0),
  I_COL ("new_calls", N_("Calls, new"), NULL, KS_REPORT_UNIT_COUNT, 0, 3, 0, 4, 4, 0, 0),
  I_COL ("base_host_self_ns", N_("Host self, baseline"), NULL, KS_REPORT_UNIT_DURATION, 0, 6, 0, 5, 5, 0, 0),
  I_COL ("new_host_self_ns", N_("Host self, new"), NULL, KS_REPORT_UNIT_DURATION, 0, 7, 0, 6, 6, 0, 0),
  I_COL ("base_device_total_ns", N_("Device total, baseline"), NULL, KS_REPORT_UNIT_DURATION, 0, 4, 0, 7, 7, 0, 0),
  I_COL ("new_device_total_ns", N_("Device total, new"), NULL, KS_REPORT_UNIT_DURATION, 0, 5, 0, 8, 8, 0, 0),
  I_COL ("base_calls_per_step", N_("Calls/step, baseline"), N_("Base calls"), KS_REPORT_UNIT_COUNT, 1, 8, 1, 9, 9, 3, 10),
  I_COL ("new_calls_per_step", N_("Calls/step, new"), N_("New calls"), KS_REPORT_UNIT_COUNT, 1, 9, 2, 10, 10, 4, 10),
  I_COL ("base_device_per_step_ns", N_("Device/step, baseline"), N_("Base GPU"), KS_REPORT_UNIT_DURATION, 0, 10, 3, 11, 11, 5, 11),
  I_COL ("new_device_per_step_ns", N_("Device/step, new"), N_("New GPU"), KS_REPORT_UNIT_DURATION, 0, 11, 4, 12, 12, 6, 11),
  I_CHANGE ("device_change_ns", N_("Device change"), N_("GPU change"), 12, 5, 13, 13, 7),
  I_COL ("base_host_self_per_step_ns", N_("Host self/step, baseline"), NULL, KS_REPORT_UNIT_DURATION, 0, 15, 0, 14, 14, 8, 0),
  I_COL ("new_host_self_per_step_ns", N_("Host self/step, new"), NULL, KS_REPORT_UNIT_DURATION, 0, 16, 0, 15, 15, 9, 0),
  I_CHANGE ("host_self_change_ns", N_("Host self change"), N_("Host change"), 17, 6, 16, 16, 10),
  I_RATIO (7, 17, 17, 11),
  I_STATUS (8, 18, 18, 12),
};

#define PAIR(r, i) (&((const StepPair *)(r)->rows)[i])

static void
pair_get (const KsReport       *r,
          const KsReportColumn *c,
          guint                 i,
          KsReportValue        *v)
{
  const StepPair *p = PAIR (r, i);
  guint side = c->arg >= 100 ? 1 : 0;
  guint arg = c->arg % 100;

  switch (arg)
    {
    case 0: ks_report_value_set_int (v, i + 1); break;
    case 1: ks_report_value_set_string (v, p->name[side]); break;
    case 2:
      if (p->name[side] != NULL)
        ks_report_value_set_int (v, p->dur_ns[side]);
      break;
    case 3:
      if (p->name[0] != NULL && p->name[1] != NULL)
        ks_report_value_set_int (v, p->dur_ns[1] - p->dur_ns[0]);
      break;
    default:
      if (p->name[side] != NULL)
        ks_report_value_set_int (v, p->parts[side][arg - 4]);
      break;
    }
}

#define P_COL(k_, jk_, grp_, title_, unit_, a_, table_, csv_, json_, width_, flags_) \
  { .key = k_, .json_key = jk_, .group = grp_, .title = title_, .metric = -1, .unit = unit_, .get = pair_get, \
    .arg = a_, .pos = { table_, csv_, json_, table_ }, .width = width_, .flags = flags_ }
#define P_PART(k_, jk_, grp_, a_, csv_) \
  P_COL (k_, jk_, grp_, NULL, KS_REPORT_UNIT_DURATION, a_, 0, csv_, csv_, 0, 0)

static const KsReportColumn step_columns[] = {
  P_COL ("step", NULL, NULL, N_("Step"), KS_REPORT_UNIT_COUNT, 0, 1, 1, 1, 6, 0),
  P_COL ("base_name", NULL, NULL, N_("Baseline"), KS_REPORT_UNIT_TEXT, 1, 2, 2, 2, 18, KS_REPORT_COLUMN_LEFT),
  P_COL ("base_dur_ns", NULL, NULL, N_("Duration"), KS_REPORT_UNIT_DURATION, 2, 3, 3, 3, 11, 0),
  P_COL ("new_name", NULL, NULL, N_("New"), KS_REPORT_UNIT_TEXT, 101, 4, 4, 4, 18, KS_REPORT_COLUMN_LEFT),
  P_COL ("new_dur_ns", NULL, NULL, N_("Duration"), KS_REPORT_UNIT_DURATION, 102, 5, 5, 5, 11, 0),
  { .key = "change_ns", .title = N_("Change"), .metric = -1, .unit = KS_REPORT_UNIT_DURATION, .get = pair_get,
    .text = change_text, .arg = 3, .pos = { 6, 6, 6, 6 }, .width = 0 },
  P_PART ("base_kernel_ns", "kernel", "base_breakdown_ns", 4, 7),
  P_PART ("base_memcpy_ns", "memcpy", "base_breakdown_ns", 5, 8),
  P_PART ("base_memset_ns", "memset", "base_breakdown_ns", 6, 9),
  P_PART ("base_runtime_ns", "runtime", "base_breakdown_ns", 7, 10),
  P_PART ("base_dataloader_ns", "dataloader", "base_breakdown_ns", 8, 11),
  P_PART ("base_cpu_exec_ns", "cpu_exec", "base_breakdown_ns", 9, 12),
  P_PART ("base_other_ns", "other", "base_breakdown_ns", 10, 13),
  P_PART ("new_kernel_ns", "kernel", "new_breakdown_ns", 104, 14),
  P_PART ("new_memcpy_ns", "memcpy", "new_breakdown_ns", 105, 15),
  P_PART ("new_memset_ns", "memset", "new_breakdown_ns", 106, 16),
  P_PART ("new_runtime_ns", "runtime", "new_breakdown_ns", 107, 17),
  P_PART ("new_dataloader_ns", "dataloader", "new_breakdown_ns", 108, 18),
  P_PART ("new_cpu_exec_ns", "cpu_exec", "new_breakdown_ns", 109, 19),
  P_PART ("new_other_ns", "other", "new_breakdown_ns", 110, 20),
};

#define METRIC(r, i) (&((const KsCompareMetric *)(r)->rows)[i])

static void
metric_get (const KsReport       *r,
            const KsReportColumn *c,
            guint                 i,
            KsReportValue        *v)
{
  const KsCompareMetric *m = METRIC (r, i);

  switch (c->arg)
    {
    case 0: ks_report_value_set_string (v, m->key); break;
    case 1: ks_report_value_set_int (v, m->device); break;
    case 2: ks_report_value_set_string (v, m->label); break;
    case 3: case 4:
      if (m->has[c->arg - 3])
        ks_report_value_set_double (v, m->value[c->arg - 3]);
      break;
    case 5:
      if (m->has[0] && m->has[1])
        ks_report_value_set_double (v, m->value[1] - m->value[0]);
      break;
    default: g_assert_not_reached ();
    }
}

static char *
metric_text (const KsReport       *r,
             const KsReportColumn *c,
             guint                 i)
{
  return ks_compare_metric_format (METRIC (r, i), c->arg - 3);
}

#define M_COL(k_, title_, a_, table_, csv_, json_, page_, width_) \
  { .key = k_, .title = title_, .metric = -1, .unit = KS_REPORT_UNIT_COUNT, .get = metric_get, \
    .text = metric_text, .arg = a_, .pos = { table_, csv_, json_, page_ }, .width = width_ }

static const KsReportColumn metric_columns[] = {
  { .key = "key", .metric = -1, .unit = KS_REPORT_UNIT_TEXT, .get = metric_get, .arg = 0, .pos = { 0, 1, 1 } },
  { .key = "device", .metric = -1, .unit = KS_REPORT_UNIT_COUNT, .get = metric_get, .arg = 1, .pos = { 0, 2, 2 },
    .flags = KS_REPORT_COLUMN_OMIT_NEGATIVE },
  { .key = "label", .title = N_("Figure"), .metric = -1, .unit = KS_REPORT_UNIT_TEXT, .get = metric_get, .arg = 2,
    .pos = { 1, 3, 3, 1 }, .width = 44, .flags = KS_REPORT_COLUMN_LEFT },
  M_COL ("base", N_("Baseline"), 3, 2, 4, 4, 2, 12),
  M_COL ("new", N_("New"), 4, 3, 5, 5, 3, 12),
  M_COL ("change", N_("Change"), 5, 4, 6, 6, 4, 0),
};

static KsReport *
report_new (KsCompare            *self,
            const char           *key,
            const KsReportColumn *columns,
            guint                 n_columns,
            GArray               *rows)
{
  return ks_report_new_for_rows (self->trace[0], self->analysis[0], G_OBJECT (self), key, columns, n_columns,
                                 rows->data, rows->len);
}

KsReport *
ks_compare_report_metrics (KsCompare *self)
{
  return report_new (self, "metrics", metric_columns, G_N_ELEMENTS (metric_columns), self->metrics);
}

KsReport *
ks_compare_report_kernels (KsCompare *self)
{
  return report_new (self, "kernels", kernel_columns, G_N_ELEMENTS (kernel_columns), self->kernels);
}

KsReport *
ks_compare_report_operators (KsCompare *self,
                             gboolean   by_shape)
{
  KsReport *r = report_new (self, "operators", operator_columns, G_N_ELEMENTS (operator_columns),
                            self->operators[by_shape ? KS_OPERATOR_BY_NAME_AND_SHAPE : KS_OPERATOR_BY_NAME]);

  r->by_shape = by_shape;
  /* Grouped by name there are no shapes. */
  if (!by_shape)
    r->hidden[KS_REPORT_JSON] |= 1 << 1;
  return r;
}

KsReport *
ks_compare_report_steps (KsCompare *self)
{
  return report_new (self, "steps", step_columns, G_N_ELEMENTS (step_columns), self->step_pairs);
}
