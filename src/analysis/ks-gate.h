/* ks-gate.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-compare.h"

G_BEGIN_DECLS

/* A verdict for continuous integration: did the new run's step time
 * regress by more than a threshold, with the run-to-run noise taken
 * into account?
 *
 * Over each side's steady-state steps (the analysis's steps without the
 * warm-up ones, unless its options include them): the medians, their
 * change, and a percentile bootstrap 95 % interval of the difference of
 * the medians (each side resampled on its own, KS_GATE_RESAMPLES times,
 * from a fixed seed so that the same files give the same interval).
 * Regressed: the change is above the threshold and the interval lies
 * above zero. Inconclusive, with the reasons, when a side has fewer than
 * KS_GATE_MIN_STEPS steps, the runs had different GPU models or world
 * sizes, or their steps are not the same unit of work. */

#define KS_GATE_MIN_STEPS 5
#define KS_GATE_RESAMPLES 2000
#define KS_GATE_SEED      0x6b73u

typedef enum
{
  KS_GATE_OK = 0,
  KS_GATE_REGRESSED,
  KS_GATE_INCONCLUSIVE,
} KsGateVerdict;

typedef struct
{
  KsGateVerdict  verdict;
  double         threshold_pct;
  guint          n_steps[KS_COMPARE_N_SIDES];     /* the steady-state steps used */
  gboolean       has_median;                      /* both sides have a step */
  gint64         median_ns[KS_COMPARE_N_SIDES];   /* of an even count, the mean of the middle two, rounded */
  double         change_pct;                      /* of the medians, against the baseline's */
  gboolean       has_interval;                    /* both sides have KS_GATE_MIN_STEPS */
  double         ci_low_pct;                      /* the interval of the difference, in % of the baseline's median */
  double         ci_high_pct;
  GPtrArray     *reasons;                         /* translated sentences, why it is inconclusive */
} KsGate;

KsGate     *ks_gate_compute            (KsCompare     *compare,
                                        double         threshold_pct);
void        ks_gate_free               (KsGate        *gate);
/* "ok", "regressed", "inconclusive". */
const char *ks_gate_verdict_to_string  (KsGateVerdict  verdict);
/* "+6.0 %", "−2.1 %", "0.0 %". */
char       *ks_gate_format_pct         (double         pct);
/* A line for people: "Regressed: the median step is 6.0 % slower…". */
char       *ks_gate_format_verdict     (const KsGate  *gate);

/* The median of the @n values of @v (reordered), the mean of the middle
 * two of an even count; for the gate and its tests. */
double      ks_gate_median             (gint64        *v,
                                        gsize          n);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsGate, ks_gate_free)

G_END_DECLS
