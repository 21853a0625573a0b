/* ks-compare-private.h: the comparison's state, for its reports
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-compare.h"

G_BEGIN_DECLS

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

G_END_DECLS
