/* ks-range-set.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-trace.h"

G_BEGIN_DECLS

typedef struct
{
  gint64 start;
  gint64 end;
} KsTimeRange;

/* Sorted, disjoint, non-empty time ranges with prefix sums of their
 * lengths, so the covered length of any span is two binary searches.
 * The project's one interval union: GPU busy time in the analysis, in a
 * selected range and in the whole-trace strip is measured on these. */
typedef struct
{
  KsTimeRange *r;
  gint64      *cum;      /* cum[i] = length of r[0..i), n + 1 entries once sealed */
  guint        n;
  guint        cap;
} KsRangeSet;

/* The bit of a slice kind in the @kinds masks below. */
#define KS_SLICE_KIND_BIT(k) (1u << (k))

void     ks_range_set_init         (KsRangeSet       *set);
void     ks_range_set_clear        (KsRangeSet       *set);
/* Appends a range starting at or after the previous one's start; merges. */
void     ks_range_set_add          (KsRangeSet       *set,
                                    gint64            start,
                                    gint64            end);
/* Adds @n ranges in any order (sorts @ranges in place). */
void     ks_range_set_add_unsorted (KsRangeSet       *set,
                                    KsTimeRange      *ranges,
                                    gsize             n);
/* Computes the prefix sums; call once after the last add. */
void     ks_range_set_seal         (KsRangeSet       *set);
gint64   ks_range_set_total        (const KsRangeSet *set);
/* Covered length within [t0, t1); the set must be sealed. */
gint64   ks_range_set_measure      (const KsRangeSet *set,
                                    gint64            t0,
                                    gint64            t1);
/* Covered length of @a within the ranges of @b (both sealed). */
gint64   ks_range_set_measure_set  (const KsRangeSet *a,
                                    const KsRangeSet *b);
/* @out = @a ∪ @b, sealed. */
void     ks_range_set_union        (const KsRangeSet *a,
                                    const KsRangeSet *b,
                                    KsRangeSet       *out);
/* Adds the union of the slices of @track whose kind bit is set in @kinds. */
void     ks_range_set_add_track    (KsRangeSet       *set,
                                    const KsTrack    *track,
                                    guint32           kinds);

G_END_DECLS
