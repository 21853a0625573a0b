/* ks-analysis-advice-path.c: advice quoting the critical path's what-if
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "ks-analysis-private.h"
#include "ks-critical-path.h"
#include "ks-format.h"

#define MAX_STEPS 64

/* What the fix would buy, by the critical path: appended to the advice
 * of @rule when it was given, computed only then. */
static void
quote_what_if (KsAnalysis  *self,
               Context     *ctx,
               const char  *rule,
               const char  *rules,
               KsPathClass  klass)
{
  g_autoptr(KsWhatIf) what_if = ks_what_if_parse (rules, NULL);
  g_autoptr(KsCriticalPath) path = NULL;
  g_autoptr(GArray) steps = g_array_new (FALSE, FALSE, sizeof (KsStep));
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *sentence = NULL;
  gint64 dur, predicted, by_class[KS_N_PATH_CLASSES];
  KsAdvice *advice = NULL;
  guint n;
  char *text;

  for (guint i = 0; i < self->advice->len; i++)
    if (strcmp (g_array_index (self->advice, KsAdvice, i).rule, rule) == 0)
      advice = &g_array_index (self->advice, KsAdvice, i);
  if (advice == NULL)
    return;
  /* A recording of thousands of steps: the same number of them spread
   * over the run says as much, at a bounded cost. */
  for (guint i = 0; i < self->steps->len; i++)
    {
      const KsStep *step = &g_array_index (self->steps, KsStep, i);

      if (!step->warmup || self->options.include_warmup)
        g_array_append_val (steps, *step);
    }
  if (steps->len > MAX_STEPS)
    {
      for (guint i = 0; i < MAX_STEPS; i++)
        g_array_index (steps, KsStep, i) = g_array_index (steps, KsStep, (guint64)i * steps->len / MAX_STEPS);
      g_array_set_size (steps, MAX_STEPS);
    }
  path = _ks_critical_path_compute_steps (ctx->trace, (const KsStep *)(gpointer)steps->data, steps->len,
                                          TRUE, NULL, what_if, ctx->cancellable, NULL);
  if (path == NULL)
    return;
  ks_critical_path_get_steps (path, &n);
  ks_critical_path_get_totals (path, &dur, NULL, &predicted, by_class, NULL);
  if (n == 0 || by_class[klass] <= 0 || predicted >= dur)
    return;

  before = ks_time_format_duration (dur / n);
  after = ks_time_format_duration (predicted / n);
  if (klass == KS_PATH_DATALOADER)
    /* TRANSLATORS: the critical path's what-if: "…, steps would take 1.6 ms instead of 8.6 ms." */
    sentence = g_strdup_printf (_("The DataLoader is %.0f %% of the critical path: with the DataLoader free, steps would take %s instead of %s."),
                                100.0 * by_class[klass] / dur, after, before);
  else
    sentence = g_strdup_printf (_("Launch overhead is %.0f %% of the critical path: with half of it, steps would take %s instead of %s."),
                                100.0 * by_class[klass] / dur, after, before);
  text = g_strconcat (advice->text, " ", sentence, NULL);
  g_free (advice->text);
  advice->text = text;
}

void
_ks_analysis_path_advice (KsAnalysis *self,
                          Context    *ctx)
{
  if (self->steps->len == 0)
    return;
  quote_what_if (self, ctx, "dataloader", "dataloader=0", KS_PATH_DATALOADER);
  quote_what_if (self, ctx, "launch-bound", "launch=0.5", KS_PATH_LAUNCH);
}
