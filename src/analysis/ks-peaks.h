/* ks-peaks.h: the dense peak rates of the GPUs that training runs on
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-flops.h"

G_BEGIN_DECLS

typedef struct
{
  const char *device;               /* "NVIDIA H200" */
  const char *source;               /* where the numbers come from */
  double      tflops[KS_N_DTYPES];  /* dense, without sparsity; 0: none */
  double      gbps;                 /* memory bandwidth, 10^9 bytes a second */
} KsPeak;

/* The built-in table, in the order tried: the first entry whose match
 * words all appear in a GPU's name (case-insensitive) is its peak. */
const KsPeak *ks_peaks_get_table  (guint      *n);
/* The peak of the GPU named @name (as deviceProperties or the recording
 * spell it), or NULL when the table does not know it. */
const KsPeak *ks_peaks_lookup     (const char *name);
/* The rate for @dtype; for tf32 without one, fp32's. 0 when unknown. */
double        ks_peak_get_tflops  (const KsPeak *peak,
                                   KsDtype       dtype);
/* The ridge point: FLOP per byte where the two roofs meet, 0 when unknown. */
double        ks_peak_get_ridge   (const KsPeak *peak,
                                   KsDtype       dtype);

G_END_DECLS
