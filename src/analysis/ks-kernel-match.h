/* ks-kernel-match.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-compare.h"

G_BEGIN_DECLS

/* Kernels of two runs whose names differ but which do the same work: a
 * cuBLAS kernel replaced by another tile shape, a Triton kernel whose
 * suffix changed. Among the kernels of one side only, a pair is made
 *
 *  - by the operator that launched them and their order in the step:
 *    the k-th kernel that operator launched in a steady-state step of
 *    the baseline (the middle one; the whole trace without steps) and
 *    the k-th in one of the new run, the pair most positions agree on
 *    first;
 *  - then by normalised name (digits as #, a Triton kernel's last
 *    suffix dropped), in the order they first run.
 *
 * Each kernel is in one pair at most. */

typedef struct
{
  guint          base;        /* index in @items of a baseline-only kernel */
  guint          new_item;    /* and of a new-only one */
  KsCompareMatch how;
} KsKernelPair;

/* Pairs among @items (kernels matched by name, as KsCompare builds them,
 * before sorting). */
GArray *ks_kernel_match      (KsTrace * const       trace[KS_COMPARE_N_SIDES],
                              KsAnalysis * const    analysis[KS_COMPARE_N_SIDES],
                              const KsCompareItem  *items,
                              guint                 n_items);
/* The name that kernels compared by normalised name share. */
char   *ks_kernel_normalise_name (const char        *name);

G_END_DECLS
