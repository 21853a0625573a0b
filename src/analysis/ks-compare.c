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

#include "ks-compare-private.h"
#include "ks-format.h"
#include "ks-kernel-match.h"
#include "ks-trace-loader.h"

/* Idle time by cause: the largest causes of either side, the rest
 * would drown the summary. */
#define TOP_CAUSES 8

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
