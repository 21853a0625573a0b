/* ks-gate.c: the step-time verdict of kinescope-cli diff --gate
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-gate"

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ks-analysis-private.h"
#include "ks-format.h"
#include "ks-gate.h"

/* The steady-state step durations of one side, in step order. */
static GArray *
steady_steps (KsCompare *compare,
              guint      side,
              guint32   *first)
{
  KsAnalysis *analysis = ks_compare_get_analysis (compare, side);
  gboolean warmup_too = ks_analysis_get_options (analysis)->include_warmup;
  GArray *durs = g_array_new (FALSE, FALSE, sizeof (gint64));
  guint n;
  const KsStep *steps = ks_analysis_get_steps (analysis, &n);

  *first = G_MAXUINT32;
  for (guint i = 0; i < n; i++)
    {
      gint64 dur = steps[i].end - steps[i].start;

      if (steps[i].warmup && !warmup_too)
        continue;
      if (*first == G_MAXUINT32)
        *first = i;
      g_array_append_val (durs, dur);
    }
  return durs;
}

double
ks_gate_median (gint64 *v,
                gsize   n)
{
  gint64 upper, lower;

  g_return_val_if_fail (n > 0, 0);

  upper = _ks_select_nth (v, n, n / 2);
  if (n % 2)
    return upper;
  /* After the selection the lower half is below v[n / 2]. */
  lower = v[0];
  for (gsize i = 1; i < n / 2; i++)
    lower = MAX (lower, v[i]);
  return ((double)lower + (double)upper) / 2;
}

static int
cmp_double (gconstpointer a,
            gconstpointer b)
{
  double x = *(const double *)a, y = *(const double *)b;

  return (x > y) - (x < y);
}

/* The percentile bootstrap 95 % interval of median(new) - median(base):
 * each side resampled with replacement, to its own size. */
static void
bootstrap (GArray *base,
           GArray *new_steps,
           double *low,
           double *high)
{
  GArray *sides[KS_COMPARE_N_SIDES] = { base, new_steps };
  g_autofree gint64 *scratch = g_new (gint64, MAX (base->len, new_steps->len));
  g_autofree double *diffs = g_new (double, KS_GATE_RESAMPLES);
  GRand *rand = g_rand_new_with_seed (KS_GATE_SEED);

  for (guint r = 0; r < KS_GATE_RESAMPLES; r++)
    {
      double median[KS_COMPARE_N_SIDES];

      for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
        {
          const gint64 *v = (const gint64 *)(gpointer)sides[s]->data;
          guint n = sides[s]->len;

          for (guint i = 0; i < n; i++)
            scratch[i] = v[g_rand_int_range (rand, 0, (gint32)n)];
          median[s] = ks_gate_median (scratch, n);
        }
      diffs[r] = median[KS_COMPARE_NEW] - median[KS_COMPARE_BASE];
    }
  g_rand_free (rand);
  qsort (diffs, KS_GATE_RESAMPLES, sizeof *diffs, cmp_double);
  /* The 2.5th and 97.5th percentiles: of 2,000, the 51st and 1,950th. */
  *low = diffs[(gsize)floor (0.025 * KS_GATE_RESAMPLES)];
  *high = diffs[(gsize)ceil (0.975 * KS_GATE_RESAMPLES) - 1];
}

static int
cmp_strings (gconstpointer a,
             gconstpointer b)
{
  return strcmp (*(char * const *)a, *(char * const *)b);
}

/* The models of the analysed GPUs, sorted, ", "-separated; "" when the
 * trace names none. */
static char *
gpu_models (KsCompare *compare,
            guint      side)
{
  KsTrace *trace = ks_compare_get_trace (compare, side);
  guint n;
  const KsGpuSummary *gpus = ks_analysis_get_gpus (ks_compare_get_analysis (compare, side), &n);
  g_autoptr(GPtrArray) names = g_ptr_array_new ();

  for (guint i = 0; i < n; i++)
    {
      const char *name = ks_trace_string (trace, gpus[i].name);
      gboolean seen = FALSE;

      for (guint j = 0; j < names->len; j++)
        seen |= strcmp (g_ptr_array_index (names, j), name) == 0;
      if (*name != '\0' && !seen)
        g_ptr_array_add (names, (char *)name);
    }
  g_ptr_array_sort (names, cmp_strings);
  g_ptr_array_add (names, NULL);
  return g_strjoinv (", ", (char **)names->pdata);
}

/* The ranks of the job: its world size as the trace says it, else the
 * ranks it holds; 1 when it is not distributed. */
static gint32
world_size (KsTrace *trace)
{
  gint32 size = 0;
  g_autoptr(GHashTable) ranks = g_hash_table_new (NULL, NULL);

  for (guint i = 0; i < trace->n_ranks; i++)
    {
      size = MAX (size, trace->ranks[i].world_size);
      g_hash_table_add (ranks, GINT_TO_POINTER (trace->ranks[i].rank + 1));
    }
  if (size == 0)
    size = g_hash_table_size (ranks);
  return MAX (size, 1);
}

/* What a step is: "ProfilerStep#N", "step N" (the marker's name, its
 * number replaced by N), or inferred from the trace's repetitions. */
static char *
step_kind (KsCompare *compare,
           guint      side,
           guint32    index)
{
  guint n;
  const KsStep *step = &ks_analysis_get_steps (ks_compare_get_analysis (compare, side), &n)[index];
  const char *name = ks_trace_string (ks_compare_get_trace (compare, side), step->name);
  gsize len = strlen (name);

  if (step->inferred)
    return g_strdup (_("inferred steps"));
  while (len > 0 && g_ascii_isdigit (name[len - 1]))
    len--;
  return g_strdup_printf ("%.*sN", (int)len, name);
}

static void
add_reason (KsGate     *gate,
            const char *format,
            ...) G_GNUC_PRINTF (2, 3);

static void
add_reason (KsGate     *gate,
            const char *format,
            ...)
{
  va_list ap;

  va_start (ap, format);
  g_ptr_array_add (gate->reasons, g_strdup_vprintf (format, ap));
  va_end (ap);
}

KsGate *
ks_gate_compute (KsCompare *compare,
                 double     threshold_pct)
{
  KsGate *gate = g_new0 (KsGate, 1);
  GArray *durs[KS_COMPARE_N_SIDES];
  guint32 first[KS_COMPARE_N_SIDES];
  double median[KS_COMPARE_N_SIDES];
  gboolean enough = TRUE;

  g_return_val_if_fail (KS_IS_COMPARE (compare), NULL);

  gate->threshold_pct = threshold_pct;
  gate->reasons = g_ptr_array_new_with_free_func (g_free);

  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    {
      const char *file = ks_compare_get_file (compare, s);

      durs[s] = steady_steps (compare, s, &first[s]);
      gate->n_steps[s] = durs[s]->len;
      if (durs[s]->len == 0)
        add_reason (gate, _("%s has no steps: neither ProfilerStep#N spans nor NVTX ranges named like “step 12”"),
                    file);
      else if (durs[s]->len < KS_GATE_MIN_STEPS)
        add_reason (gate, ngettext ("%s has %u steady-state step; the gate needs at least %d",
                                    "%s has %u steady-state steps; the gate needs at least %d",
                                    durs[s]->len),
                    file, durs[s]->len, KS_GATE_MIN_STEPS);
      enough &= durs[s]->len >= KS_GATE_MIN_STEPS;
    }

  {
    g_autofree char *base = gpu_models (compare, KS_COMPARE_BASE);
    g_autofree char *new_models = gpu_models (compare, KS_COMPARE_NEW);

    if (*base != '\0' && *new_models != '\0' && strcmp (base, new_models) != 0)
      add_reason (gate, _("The runs used different GPUs: %s in the baseline, %s in the new run"), base, new_models);
  }
  {
    gint32 base = world_size (ks_compare_get_trace (compare, KS_COMPARE_BASE));
    gint32 new_size = world_size (ks_compare_get_trace (compare, KS_COMPARE_NEW));

    if (base != new_size)
      add_reason (gate, _("The runs had different world sizes: %d ranks in the baseline, %d in the new run"),
                  base, new_size);
  }
  if (gate->n_steps[0] > 0 && gate->n_steps[1] > 0)
    {
      g_autofree char *base = step_kind (compare, KS_COMPARE_BASE, first[0]);
      g_autofree char *new_kind = step_kind (compare, KS_COMPARE_NEW, first[1]);

      /* A ProfilerStep spans the data loading that an NVTX "step" range
       * may leave out: their times are not comparable. */
      if (strcmp (base, new_kind) != 0)
        add_reason (gate, _("The steps do not match: “%s” in the baseline, “%s” in the new run"), base, new_kind);
    }

  if (gate->n_steps[0] > 0 && gate->n_steps[1] > 0)
    {
      for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
        {
          g_autofree gint64 *copy = g_memdup2 (durs[s]->data, sizeof (gint64) * durs[s]->len);

          median[s] = ks_gate_median (copy, durs[s]->len);
          gate->median_ns[s] = llround (median[s]);
        }
      gate->has_median = median[KS_COMPARE_BASE] > 0;
      if (gate->has_median)
        gate->change_pct = 100 * (median[KS_COMPARE_NEW] - median[KS_COMPARE_BASE]) / median[KS_COMPARE_BASE];
      else
        add_reason (gate, _("The baseline's median step takes no time"));
    }
  if (enough && gate->has_median)
    {
      double low, high;

      bootstrap (durs[KS_COMPARE_BASE], durs[KS_COMPARE_NEW], &low, &high);
      gate->has_interval = TRUE;
      gate->ci_low_pct = 100 * low / median[KS_COMPARE_BASE];
      gate->ci_high_pct = 100 * high / median[KS_COMPARE_BASE];
    }

  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    g_array_unref (durs[s]);

  if (gate->reasons->len > 0)
    gate->verdict = KS_GATE_INCONCLUSIVE;
  else if (gate->change_pct > threshold_pct && gate->ci_low_pct > 0)
    gate->verdict = KS_GATE_REGRESSED;
  else
    gate->verdict = KS_GATE_OK;
  return gate;
}

void
ks_gate_free (KsGate *gate)
{
  if (gate == NULL)
    return;
  g_ptr_array_unref (gate->reasons);
  g_free (gate);
}

const char *
ks_gate_verdict_to_string (KsGateVerdict verdict)
{
  switch (verdict)
    {
    case KS_GATE_REGRESSED: return "regressed";
    case KS_GATE_INCONCLUSIVE: return "inconclusive";
    case KS_GATE_OK:
    default: return "ok";
    }
}

char *
ks_gate_format_pct (double pct)
{
  /* One decimal: a change that rounds to zero has no sign. */
  double shown = round (pct * 10) / 10;

  return g_strdup_printf ("%s%.1f %%", shown > 0 ? "+" : shown < 0 ? "−" : "", fabs (shown));
}

char *
ks_gate_format_verdict (const KsGate *gate)
{
  g_autofree char *base = ks_time_format_duration (gate->median_ns[KS_COMPARE_BASE]);
  g_autofree char *new_median = ks_time_format_duration (gate->median_ns[KS_COMPARE_NEW]);
  g_autofree char *change = ks_gate_format_pct (gate->change_pct);
  g_autofree char *low = ks_gate_format_pct (gate->ci_low_pct);
  g_autofree char *high = ks_gate_format_pct (gate->ci_high_pct);

  switch (gate->verdict)
    {
    case KS_GATE_REGRESSED:
      /* TRANSLATORS: the medians, the change and its interval ("+6.0 %"), the gate */
      return g_strdup_printf (_("Regressed: the median step went from %s to %s (%s, 95 %% interval %s to %s), "
                                "more than the %.1f %% allowed."),
                              base, new_median, change, low, high, gate->threshold_pct);
    case KS_GATE_INCONCLUSIVE:
      {
        g_autoptr(GString) reasons = g_string_new (NULL);

        for (guint i = 0; i < gate->reasons->len; i++)
          g_string_append_printf (reasons, "%s%s", i > 0 ? "; " : "", (char *)g_ptr_array_index (gate->reasons, i));
        return g_strdup_printf (_("Inconclusive: %s."), reasons->str);
      }
    case KS_GATE_OK:
    default:
      /* TRANSLATORS: the medians, the change and its interval ("+6.0 %"), the gate */
      return g_strdup_printf (_("OK: the median step went from %s to %s (%s, 95 %% interval %s to %s); "
                                "the gate is %.1f %%."),
                              base, new_median, change, low, high, gate->threshold_pct);
    }
}
