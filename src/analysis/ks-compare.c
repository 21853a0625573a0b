/* ks-compare.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-compare"

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ks-compare.h"
#include "ks-format.h"
#include "ks-kernel-match.h"
#include "ks-trace-loader.h"

/* Idle time by cause: the largest causes of either side, the rest
 * would drown the summary. */
#define TOP_CAUSES 8

typedef struct
{
  const char *name[KS_COMPARE_N_SIDES];   /* NULL past that side's last step */
  gint64      dur_ns[KS_COMPARE_N_SIDES];
  gint64      parts[KS_COMPARE_N_SIDES][KS_N_STEP_PARTS];
} StepPair;

struct _KsCompare
{
  GObject         parent_instance;

  KsTrace        *trace[KS_COMPARE_N_SIDES];
  KsAnalysis     *analysis[KS_COMPARE_N_SIDES];
  char           *file[KS_COMPARE_N_SIDES];
  KsCompareSteps  steps[KS_COMPARE_N_SIDES];
  double          divisor[KS_COMPARE_N_SIDES];
  gboolean        per_step;

  GArray         *devices;        /* gint32 */
  GArray         *kernels;        /* KsCompareItem */
  GArray         *operators[2];   /* by KsOperatorGrouping */
  GArray         *advice_added;   /* guint, rows of the new side's advice */
  GArray         *advice_removed; /* guint, rows of the baseline's */
  GArray         *metrics;        /* KsCompareMetric */
  GArray         *step_pairs;     /* StepPair */
};

G_DEFINE_FINAL_TYPE (KsCompare, ks_compare, G_TYPE_OBJECT)

static void
metric_clear (gpointer data)
{
  g_free (((KsCompareMetric *)data)->label);
}

static void
ks_compare_finalize (GObject *object)
{
  KsCompare *self = KS_COMPARE (object);

  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    {
      g_clear_object (&self->analysis[s]);
      g_clear_object (&self->trace[s]);
      g_free (self->file[s]);
    }
  g_array_unref (self->devices);
  g_array_unref (self->kernels);
  g_array_unref (self->operators[0]);
  g_array_unref (self->operators[1]);
  g_array_unref (self->advice_added);
  g_array_unref (self->advice_removed);
  g_array_unref (self->metrics);
  g_array_unref (self->step_pairs);

  G_OBJECT_CLASS (ks_compare_parent_class)->finalize (object);
}

static void
ks_compare_class_init (KsCompareClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ks_compare_finalize;
}

static void
ks_compare_init (KsCompare *self)
{
  self->devices = g_array_new (FALSE, FALSE, sizeof (gint32));
  self->kernels = g_array_new (FALSE, TRUE, sizeof (KsCompareItem));
  self->operators[0] = g_array_new (FALSE, TRUE, sizeof (KsCompareItem));
  self->operators[1] = g_array_new (FALSE, TRUE, sizeof (KsCompareItem));
  self->advice_added = g_array_new (FALSE, FALSE, sizeof (guint));
  self->advice_removed = g_array_new (FALSE, FALSE, sizeof (guint));
  self->metrics = g_array_new (FALSE, TRUE, sizeof (KsCompareMetric));
  g_array_set_clear_func (self->metrics, metric_clear);
  self->step_pairs = g_array_new (FALSE, TRUE, sizeof (StepPair));
}

/* Steps */

static int
cmp_gint64 (gconstpointer a,
            gconstpointer b)
{
  gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;

  return (x > y) - (x < y);
}

static int
cmp_gint32 (gconstpointer a,
            gconstpointer b)
{
  gint32 x = *(const gint32 *)a, y = *(const gint32 *)b;

  return (x > y) - (x < y);
}

static void
steps_compute (KsCompareSteps *out,
               KsAnalysis     *analysis)
{
  guint n_all, n = 0;
  const KsStep *steps = ks_analysis_get_steps (analysis, &n_all);
  g_autofree gint64 *durs = NULL;
  double sum = 0, sq = 0, parts[KS_N_STEP_PARTS] = { 0 };

  memset (out, 0, sizeof *out);
  if (n_all == 0)
    return;

  /* the steady state: the warm-up only when the options include it */
  durs = g_new (gint64, n_all);
  for (guint i = 0; i < n_all; i++)
    {
      if (!ks_analysis_step_counts (analysis, &steps[i]))
        continue;
      durs[n] = steps[i].end - steps[i].start;
      sum += durs[n++];
      for (guint k = 0; k < KS_N_STEP_PARTS; k++)
        parts[k] += steps[i].parts[k];
    }
  out->n_steps = n;
  if (n == 0)
    return;
  out->mean_ns = llround (sum / n);
  for (guint i = 0; i < n; i++)
    sq += (durs[i] - sum / n) * (durs[i] - sum / n);
  out->stddev_ns = llround (sqrt (sq / n));
  for (guint k = 0; k < KS_N_STEP_PARTS; k++)
    out->parts_ns[k] = llround (parts[k] / n);
  qsort (durs, n, sizeof *durs, cmp_gint64);
  out->min_ns = durs[0];
  out->max_ns = durs[n - 1];
  /* Of an even count, the mean of the middle two. */
  out->median_ns = n % 2 ? durs[n / 2] : (durs[n / 2 - 1] + durs[n / 2]) / 2;
}

static void
step_pairs_build (KsCompare *self)
{
  guint n[KS_COMPARE_N_SIDES];
  const KsStep *steps[KS_COMPARE_N_SIDES];

  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    steps[s] = ks_analysis_get_steps (self->analysis[s], &n[s]);
  g_array_set_size (self->step_pairs, MAX (n[0], n[1]));
  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    for (guint i = 0; i < n[s]; i++)
      {
        StepPair *p = &g_array_index (self->step_pairs, StepPair, i);

        p->name[s] = ks_trace_string (self->trace[s], steps[s][i].name);
        p->dur_ns[s] = steps[s][i].end - steps[s][i].start;
        memcpy (p->parts[s], steps[s][i].parts, sizeof p->parts[s]);
      }
}

/* Matching by key */

static double
per_step (KsCompare *self,
          guint      side,
          double     total)
{
  return total / self->divisor[side];
}

static void
item_finish (KsCompare     *self,
             KsCompareItem *item)
{
  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    {
      item->calls_per_step[s] = per_step (self, s, item->calls[s]);
      item->per_step_ns[s] = per_step (self, s, item->total_ns[s]);
      item->host_self_per_step_ns[s] = per_step (self, s, item->host_self_ns[s]);
    }
  item->change_ns = item->per_step_ns[KS_COMPARE_NEW] - item->per_step_ns[KS_COMPARE_BASE];
  item->ratio = item->per_step_ns[KS_COMPARE_BASE] > 0
                  ? item->per_step_ns[KS_COMPARE_NEW] / item->per_step_ns[KS_COMPARE_BASE] : -1;
}

/* The item of @key in @items, appended when new; @map: key -> index + 1. */
static KsCompareItem *
item_for_key (GArray     *items,
              GHashTable *map,
              char       *key)
{
  guint i = GPOINTER_TO_UINT (g_hash_table_lookup (map, key));

  if (i == 0)
    {
      KsCompareItem blank = { .index = { KS_COMPARE_ABSENT, KS_COMPARE_ABSENT } };

      g_array_append_val (items, blank);
      i = items->len;
      g_hash_table_insert (map, key, GUINT_TO_POINTER (i));
    }
  else
    g_free (key);
  return &g_array_index (items, KsCompareItem, i - 1);
}

static int
cmp_name (const KsCompareItem *a,
          const KsCompareItem *b)
{
  int c = strcmp (a->name, b->name);

  return c != 0 ? c : g_strcmp0 (a->input_dims, b->input_dims);
}

static int
cmp_kernel_items (gconstpointer pa,
                  gconstpointer pb)
{
  const KsCompareItem *a = pa, *b = pb;
  double x = fabs (a->change_ns), y = fabs (b->change_ns);

  if (x != y)
    return x < y ? 1 : -1;
  return cmp_name (a, b);
}

static int
cmp_operator_items (gconstpointer pa,
                    gconstpointer pb)
{
  const KsCompareItem *a = pa, *b = pb;
  double x = fabs (a->change_ns), y = fabs (b->change_ns);
  double hx, hy;

  if (x != y)
    return x < y ? 1 : -1;
  hx = fabs (a->host_self_per_step_ns[1] - a->host_self_per_step_ns[0]);
  hy = fabs (b->host_self_per_step_ns[1] - b->host_self_per_step_ns[0]);
  if (hx != hy)
    return hx < hy ? 1 : -1;
  return cmp_name (a, b);
}

/* A baseline-only kernel takes the new-only one it pairs with. */
static void
kernels_pair (KsCompare *self)
{
  KsCompareItem *items = (KsCompareItem *)(gpointer)self->kernels->data;
  g_autoptr(GArray) pairs = ks_kernel_match (self->trace, self->analysis, items, self->kernels->len);

  for (guint i = 0; i < pairs->len; i++)
    {
      const KsKernelPair *p = &g_array_index (pairs, KsKernelPair, i);
      KsCompareItem *b = &items[p->base], *n = &items[p->new_item];

      b->other_name = n->name;
      b->match = p->how;
      b->name_id[KS_COMPARE_NEW] = n->name_id[KS_COMPARE_NEW];
      b->index[KS_COMPARE_NEW] = n->index[KS_COMPARE_NEW];
      b->calls[KS_COMPARE_NEW] = n->calls[KS_COMPARE_NEW];
      b->total_ns[KS_COMPARE_NEW] = n->total_ns[KS_COMPARE_NEW];
      n->name = NULL;
    }
  for (guint i = self->kernels->len; i-- > 0;)
    if (g_array_index (self->kernels, KsCompareItem, i).name == NULL)
      g_array_remove_index (self->kernels, i);
}

static void
kernels_build (KsCompare *self)
{
  g_autoptr(GHashTable) map = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    {
      guint n;
      const KsKernelStats *k = ks_analysis_get_kernels (self->analysis[s], &n);

      for (guint i = 0; i < n; i++)
        {
          const char *name = ks_trace_string (self->trace[s], k[i].name);
          KsCompareItem *item = item_for_key (self->kernels, map, g_strdup (name));

          if (item->name == NULL)
            item->name = name;
          item->name_id[s] = k[i].name;
          item->index[s] = i;
          item->calls[s] = k[i].calls;
          item->total_ns[s] = k[i].total_ns;
        }
    }
  kernels_pair (self);
  for (guint i = 0; i < self->kernels->len; i++)
    item_finish (self, &g_array_index (self->kernels, KsCompareItem, i));
  g_array_sort (self->kernels, cmp_kernel_items);
}

static void
operators_build (KsCompare          *self,
                 KsOperatorGrouping  grouping)
{
  g_autoptr(GHashTable) map = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GArray *items = self->operators[grouping];

  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    {
      guint n;
      const KsOperatorStats *o = ks_analysis_get_operators (self->analysis[s], grouping, &n);

      for (guint i = 0; i < n; i++)
        {
          const char *name = ks_trace_string (self->trace[s], o[i].name);
          /* The unit separator cannot be in a name from JSON text that
           * matters here; it keeps "a"+"b,c" apart from "a,b"+"c". */
          KsCompareItem *item = item_for_key (items, map,
                                              g_strconcat (name, "\x1f", o[i].input_dims, NULL));

          if (item->name == NULL)
            {
              item->name = name;
              item->input_dims = o[i].input_dims;
            }
          item->name_id[s] = o[i].name;
          item->index[s] = i;
          item->calls[s] = o[i].calls;
          item->total_ns[s] = o[i].device_total_ns;
          item->host_self_ns[s] = o[i].host_self_ns;
          item->host_total_ns[s] = o[i].host_total_ns;
        }
    }
  for (guint i = 0; i < items->len; i++)
    item_finish (self, &g_array_index (items, KsCompareItem, i));
  g_array_sort (items, cmp_operator_items);
}

static char *
advice_key (const KsAdvice *a)
{
  return g_strdup_printf ("%s/%d", a->rule, a->device);
}

/* Rows of @side's advice whose rule and GPU the other side lacks. */
static void
advice_only_in (KsCompare *self,
                guint      side,
                GArray    *out)
{
  g_autoptr(GHashTable) other = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  guint n_other, n;
  const KsAdvice *o = ks_analysis_get_advice (self->analysis[1 - side], &n_other);
  const KsAdvice *a = ks_analysis_get_advice (self->analysis[side], &n);

  for (guint i = 0; i < n_other; i++)
    g_hash_table_add (other, advice_key (&o[i]));
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *key = advice_key (&a[i]);

      if (!g_hash_table_contains (other, key))
        g_array_append_val (out, i);
    }
}

/* The summary table */

static KsCompareMetric *
metric_add (KsCompare    *self,
            const char   *key,
            gint32        device,
            KsReportUnit  unit,
            char         *label)
{
  KsCompareMetric m = { .label = label, .key = key, .device = device, .unit = unit };

  g_array_append_val (self->metrics, m);
  return &g_array_index (self->metrics, KsCompareMetric, self->metrics->len - 1);
}

static void
metric_set (KsCompareMetric *m,
            guint            side,
            double           value)
{
  m->has[side] = TRUE;
  m->value[side] = value;
}

static char *
gpu_label (gint32      device,
           const char *what)
{
  return g_strdup_printf (_("GPU %d: %s"), device, what);
}

typedef struct
{
  char   *name;                  /* "DataLoader: enumerate(…)" */
  gint64  total_ns[KS_COMPARE_N_SIDES];
} CauseRow;

static int
cmp_cause_rows (gconstpointer pa,
                gconstpointer pb)
{
  const CauseRow *a = pa, *b = pb;
  gint64 x = MAX (a->total_ns[0], a->total_ns[1]);
  gint64 y = MAX (b->total_ns[0], b->total_ns[1]);

  if (x != y)
    return x < y ? 1 : -1;
  return strcmp (a->name, b->name);
}

static void
cause_row_clear (gpointer data)
{
  g_free (((CauseRow *)data)->name);
}

/* Idle time by cause, matched by the cause and what it names. */
static void
metrics_causes (KsCompare *self)
{
  g_autoptr(GHashTable) map = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GArray) rows = g_array_new (FALSE, TRUE, sizeof (CauseRow));

  g_array_set_clear_func (rows, cause_row_clear);
  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    {
      guint n;
      const KsGapCauseTotal *c = ks_analysis_get_gap_causes (self->analysis[s], &n);

      for (guint i = 0; i < n; i++)
        {
          char *name = ks_gap_cause_format (self->trace[s], c[i].cause, c[i].name, c[i].track, c[i].slice);
          guint at = GPOINTER_TO_UINT (g_hash_table_lookup (map, name));

          if (at == 0)
            {
              CauseRow row = { .name = name };

              g_array_append_val (rows, row);
              at = rows->len;
              g_hash_table_insert (map, name, GUINT_TO_POINTER (at));
            }
          else
            g_free (name);
          g_array_index (rows, CauseRow, at - 1).total_ns[s] += c[i].total_ns;
        }
    }
  g_hash_table_remove_all (map);
  g_array_sort (rows, cmp_cause_rows);
  for (guint i = 0; i < MIN (rows->len, TOP_CAUSES); i++)
    {
      const CauseRow *row = &g_array_index (rows, CauseRow, i);
      KsCompareMetric *m = metric_add (self, "idle_cause_ns", -1, KS_REPORT_UNIT_DURATION,
                                       g_strdup_printf (_("Idle, %s"), row->name));

      for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
        metric_set (m, s, per_step (self, s, row->total_ns[s]));
    }
}

static const KsMemoryCurve *
memory_curve (KsAnalysis *analysis,
              gint32      device)
{
  guint n;
  const KsMemoryCurve *c = ks_analysis_get_memory_curves (analysis, &n);

  for (guint i = 0; i < n; i++)
    if (c[i].device == device)
      return &c[i];
  return NULL;
}

static void
metrics_build (KsCompare *self)
{
  KsCompareMetric *m;
  const struct
  {
    const char *key;
    const char *label;
    gsize       offset;
  } step_figures[] = {
    { "step_mean_ns", N_("Step time, mean"), G_STRUCT_OFFSET (KsCompareSteps, mean_ns) },
    { "step_median_ns", N_("Step time, median"), G_STRUCT_OFFSET (KsCompareSteps, median_ns) },
    { "step_stddev_ns", N_("Step time, spread (standard deviation)"), G_STRUCT_OFFSET (KsCompareSteps, stddev_ns) },
    { "step_min_ns", N_("Step time, shortest"), G_STRUCT_OFFSET (KsCompareSteps, min_ns) },
    { "step_max_ns", N_("Step time, longest"), G_STRUCT_OFFSET (KsCompareSteps, max_ns) },
  };

  m = metric_add (self, "steps", -1, KS_REPORT_UNIT_COUNT, g_strdup (_("Steps")));
  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    metric_set (m, s, self->steps[s].n_steps);
  for (guint f = 0; f < G_N_ELEMENTS (step_figures); f++)
    {
      m = metric_add (self, step_figures[f].key, -1, KS_REPORT_UNIT_DURATION, g_strdup (_(step_figures[f].label)));
      for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
        if (self->steps[s].n_steps > 0)
          metric_set (m, s, G_STRUCT_MEMBER (gint64, &self->steps[s], step_figures[f].offset));
    }
  for (guint k = 0; k < KS_N_STEP_PARTS; k++)
    {
      m = metric_add (self, ks_step_part_to_string (k), -1, KS_REPORT_UNIT_DURATION,
                      g_strdup_printf (_("Step breakdown, %s"), ks_step_part_get_title (k)));
      for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
        if (self->steps[s].n_steps > 0)
          metric_set (m, s, self->steps[s].parts_ns[k]);
    }

  for (guint d = 0; d < self->devices->len; d++)
    {
      gint32 device = g_array_index (self->devices, gint32, d);
      const KsGpuSummary *g[KS_COMPARE_N_SIDES];
      const KsMemoryCurve *c[KS_COMPARE_N_SIDES];
      KsCompareMetric *busy, *kt, *kn, *gaps, *classes[KS_N_GAP_CLASSES], *peak;

      for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
        {
          g[s] = ks_analysis_get_gpu (self->analysis[s], device);
          c[s] = memory_curve (self->analysis[s], device);
        }
      busy = metric_add (self, "busy_pct", device, KS_REPORT_UNIT_PERCENT, gpu_label (device, _("busy")));
      kt = metric_add (self, "kernel_time_ns", device, KS_REPORT_UNIT_DURATION, gpu_label (device, _("kernel time")));
      kn = metric_add (self, "kernels", device, KS_REPORT_UNIT_COUNT, gpu_label (device, _("kernels")));
      gaps = metric_add (self, "gap_total_ns", device, KS_REPORT_UNIT_DURATION, gpu_label (device, _("idle")));
      for (guint k = 0; k < KS_N_GAP_CLASSES; k++)
        {
          g_autofree char *what = g_strdup_printf (_("idle, %s"), ks_gap_class_get_title (k));

          classes[k] = metric_add (self, ks_gap_class_to_string (k), device, KS_REPORT_UNIT_DURATION,
                                   gpu_label (device, what));
        }
      peak = metric_add (self, "memory_peak", device, KS_REPORT_UNIT_BYTES, gpu_label (device, _("memory peak")));
      for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
        {
          if (c[s] != NULL)
            metric_set (peak, s, c[s]->peak_allocated);
          if (g[s] == NULL)
            continue;
          metric_set (busy, s, g[s]->busy_pct);
          metric_set (kt, s, per_step (self, s, g[s]->kernel_time_ns));
          metric_set (kn, s, per_step (self, s, g[s]->n_kernels));
          metric_set (gaps, s, per_step (self, s, g[s]->gap_total_ns));
          for (guint k = 0; k < KS_N_GAP_CLASSES; k++)
            metric_set (classes[k], s, per_step (self, s, g[s]->gap_class_ns[k]));
        }
    }
  metrics_causes (self);
}

static void
devices_build (KsCompare *self)
{
  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    {
      guint n;
      const KsGpuSummary *g = ks_analysis_get_gpus (self->analysis[s], &n);

      for (guint i = 0; i < n; i++)
        {
          gboolean seen = FALSE;

          for (guint j = 0; j < self->devices->len; j++)
            seen |= g_array_index (self->devices, gint32, j) == g[i].device;
          if (!seen)
            g_array_append_val (self->devices, g[i].device);
        }
    }
  g_array_sort (self->devices, cmp_gint32);
}

KsCompare *
ks_compare_new (KsTrace    *base,
                KsAnalysis *base_analysis,
                const char *base_file,
                KsTrace    *new_trace,
                KsAnalysis *new_analysis,
                const char *new_file)
{
  KsCompare *self;

  g_return_val_if_fail (KS_IS_ANALYSIS (base_analysis), NULL);
  g_return_val_if_fail (KS_IS_ANALYSIS (new_analysis), NULL);

  self = g_object_new (KS_TYPE_COMPARE, NULL);
  self->trace[0] = g_object_ref (base);
  self->trace[1] = g_object_ref (new_trace);
  self->analysis[0] = g_object_ref (base_analysis);
  self->analysis[1] = g_object_ref (new_analysis);
  self->file[0] = g_strdup (base_file);
  self->file[1] = g_strdup (new_file);

  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    steps_compute (&self->steps[s], self->analysis[s]);
  /* Different step counts still compare per step; one side without
   * steps makes both whole windows, its figures would not be per step. */
  self->per_step = self->steps[0].n_steps > 0 && self->steps[1].n_steps > 0;
  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    self->divisor[s] = self->per_step ? self->steps[s].n_steps : 1;

  devices_build (self);
  step_pairs_build (self);
  kernels_build (self);
  operators_build (self, KS_OPERATOR_BY_NAME);
  operators_build (self, KS_OPERATOR_BY_NAME_AND_SHAPE);
  advice_only_in (self, KS_COMPARE_NEW, self->advice_added);
  advice_only_in (self, KS_COMPARE_BASE, self->advice_removed);
  metrics_build (self);
  return self;
}

/* Loading both */

typedef struct
{
  GFile                   *file;
  const KsAnalysisOptions *options;
  GCancellable            *cancellable;
  KsTrace                 *trace;
  KsAnalysis              *analysis;
  GError                  *error;
} Side;

static gpointer
side_load (gpointer data)
{
  Side *side = data;

  side->trace = ks_trace_load (side->file, NULL, side->cancellable, &side->error);
  if (side->trace != NULL)
    side->analysis = ks_analysis_compute (side->trace, side->options, NULL, side->cancellable, &side->error);
  return NULL;
}

static char *
file_name (GFile *file)
{
  const char *path = g_file_peek_path (file);

  return path != NULL ? g_strdup (path) : g_file_get_uri (file);
}

KsCompare *
ks_compare_load (GFile                    *base,
                 GFile                    *new_file,
                 const KsAnalysisOptions  *options,
                 GCancellable             *cancellable,
                 GError                  **error)
{
  Side sides[KS_COMPARE_N_SIDES] = {
    { .file = base, .options = options, .cancellable = cancellable },
    { .file = new_file, .options = options, .cancellable = cancellable },
  };
  g_autoptr(GThread) thread = NULL;
  KsCompare *compare = NULL;

  thread = g_thread_new ("ks-compare-load", side_load, &sides[KS_COMPARE_NEW]);
  side_load (&sides[KS_COMPARE_BASE]);
  g_thread_join (g_steal_pointer (&thread));

  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    if (sides[s].error != NULL && compare == NULL && (error == NULL || *error == NULL))
      {
        if (sides[s].trace != NULL)
          {
            g_autofree char *name = file_name (sides[s].file);

            g_prefix_error (&sides[s].error, "%s: ", name);
          }
        g_propagate_error (error, g_steal_pointer (&sides[s].error));
      }
  if (sides[0].analysis != NULL && sides[1].analysis != NULL)
    {
      g_autofree char *base_name = file_name (base);
      g_autofree char *new_name = file_name (new_file);

      compare = ks_compare_new (sides[0].trace, sides[0].analysis, base_name,
                                sides[1].trace, sides[1].analysis, new_name);
    }
  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    {
      g_clear_error (&sides[s].error);
      g_clear_object (&sides[s].analysis);
      g_clear_object (&sides[s].trace);
    }
  return compare;
}

/* Getters */

KsTrace *
ks_compare_get_trace (KsCompare     *self,
                      KsCompareSide  side)
{
  return self->trace[side];
}

KsAnalysis *
ks_compare_get_analysis (KsCompare     *self,
                         KsCompareSide  side)
{
  return self->analysis[side];
}

const char *
ks_compare_get_file (KsCompare     *self,
                     KsCompareSide  side)
{
  return self->file[side];
}

gboolean
ks_compare_get_per_step (KsCompare *self)
{
  return self->per_step;
}

const KsCompareSteps *
ks_compare_get_steps (KsCompare     *self,
                      KsCompareSide  side)
{
  return &self->steps[side];
}

const gint32 *
ks_compare_get_devices (KsCompare *self,
                        guint     *n_devices)
{
  *n_devices = self->devices->len;
  return (const gint32 *)(gpointer)self->devices->data;
}

const KsCompareItem *
ks_compare_get_kernels (KsCompare *self,
                        guint     *n_items)
{
  *n_items = self->kernels->len;
  return (const KsCompareItem *)(gpointer)self->kernels->data;
}

const KsCompareItem *
ks_compare_get_operators (KsCompare          *self,
                          KsOperatorGrouping  grouping,
                          guint              *n_items)
{
  *n_items = self->operators[grouping]->len;
  return (const KsCompareItem *)(gpointer)self->operators[grouping]->data;
}

KsCompareItemStatus
ks_compare_item_get_status (const KsCompareItem *item)
{
  if (item->index[KS_COMPARE_BASE] == KS_COMPARE_ABSENT)
    return KS_COMPARE_ITEM_ADDED;
  if (item->index[KS_COMPARE_NEW] == KS_COMPARE_ABSENT)
    return KS_COMPARE_ITEM_REMOVED;
  return KS_COMPARE_ITEM_BOTH;
}

const char *
ks_compare_item_get_match (const KsCompareItem *item)
{
  static const char * const names[] = { "name", "operator", "normalised" };

  if (ks_compare_item_get_status (item) != KS_COMPARE_ITEM_BOTH)
    return NULL;
  return names[item->match];
}

const char *
ks_compare_item_get_match_title (const KsCompareItem *item)
{
  static const char * const titles[] = { N_("name"), N_("operator and order"), N_("normalised name") };

  if (ks_compare_item_get_status (item) != KS_COMPARE_ITEM_BOTH)
    return "";
  return _(titles[item->match]);
}

const guint *
ks_compare_get_advice (KsCompare *self,
                       gboolean   added,
                       guint     *n_advice)
{
  GArray *a = added ? self->advice_added : self->advice_removed;

  *n_advice = a->len;
  return (const guint *)(gpointer)a->data;
}

const KsCompareMetric *
ks_compare_get_metrics (KsCompare *self,
                        guint     *n_metrics)
{
  *n_metrics = self->metrics->len;
  return (const KsCompareMetric *)(gpointer)self->metrics->data;
}

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
