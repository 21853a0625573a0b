/* ks-range-set.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ks-range-set.h"

void
ks_range_set_init (KsRangeSet *set)
{
  memset (set, 0, sizeof *set);
}

void
ks_range_set_clear (KsRangeSet *set)
{
  g_clear_pointer (&set->r, g_free);
  g_clear_pointer (&set->cum, g_free);
  set->n = set->cap = 0;
}

void
ks_range_set_add (KsRangeSet *set,
                  gint64      start,
                  gint64      end)
{
  if (end <= start)
    return;

  if (set->n > 0 && start <= set->r[set->n - 1].end)
    {
      if (end > set->r[set->n - 1].end)
        set->r[set->n - 1].end = end;
      return;
    }

  if (set->n == set->cap)
    {
      set->cap = MAX (16, set->cap * 2);
      set->r = g_renew (KsTimeRange, set->r, set->cap);
    }
  set->r[set->n].start = start;
  set->r[set->n].end = end;
  set->n++;
}

void
ks_range_set_seal (KsRangeSet *set)
{
  g_free (set->cum);
  set->cum = g_new (gint64, set->n + 1);
  set->cum[0] = 0;
  for (guint i = 0; i < set->n; i++)
    set->cum[i + 1] = set->cum[i] + (set->r[i].end - set->r[i].start);
}

gint64
ks_range_set_total (const KsRangeSet *set)
{
  return set->cum != NULL ? set->cum[set->n] : 0;
}

/* First range whose end is after @t. */
static guint
first_ending_after (const KsRangeSet *set,
                    gint64            t)
{
  guint lo = 0, hi = set->n;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (set->r[mid].end > t)
        hi = mid;
      else
        lo = mid + 1;
    }
  return lo;
}

gint64
ks_range_set_measure (const KsRangeSet *set,
                      gint64            t0,
                      gint64            t1)
{
  guint lo, hi;
  gint64 total;

  g_assert (set->cum != NULL);

  if (t1 <= t0 || set->n == 0)
    return 0;

  lo = first_ending_after (set, t0);
  /* hi: first range starting at or after t1 */
  {
    guint a = lo, b = set->n;

    while (a < b)
      {
        guint mid = a + (b - a) / 2;

        if (set->r[mid].start < t1)
          a = mid + 1;
        else
          b = mid;
      }
    hi = a;
  }

  if (hi <= lo)
    return 0;

  total = set->cum[hi] - set->cum[lo];
  if (set->r[lo].start < t0)
    total -= t0 - set->r[lo].start;
  if (set->r[hi - 1].end > t1)
    total -= set->r[hi - 1].end - t1;
  return total;
}

gint64
ks_range_set_measure_set (const KsRangeSet *a,
                          const KsRangeSet *b)
{
  gint64 total = 0;

  for (guint i = 0; i < b->n; i++)
    total += ks_range_set_measure (a, b->r[i].start, b->r[i].end);
  return total;
}

void
ks_range_set_union (const KsRangeSet *a,
                    const KsRangeSet *b,
                    KsRangeSet       *out)
{
  guint i = 0, j = 0;

  ks_range_set_init (out);
  while (i < a->n || j < b->n)
    {
      const KsTimeRange *r;

      if (j >= b->n || (i < a->n && a->r[i].start <= b->r[j].start))
        r = &a->r[i++];
      else
        r = &b->r[j++];
      ks_range_set_add (out, r->start, r->end);
    }
  ks_range_set_seal (out);
}

void
ks_range_set_add_track (KsRangeSet    *set,
                        const KsTrack *track,
                        guint32        kinds)
{
  gint64 cur_start = 0, cur_end = 0;
  gboolean open = FALSE;

  /* Slices are sorted by start, so a running maximum of the ends gives
   * the union whatever their nesting. */
  for (guint32 i = 0; i < track->n_slices; i++)
    {
      gint64 s, e;

      if (!(kinds & KS_SLICE_KIND_BIT (track->slice_kind[i])))
        continue;
      s = track->start[i];
      e = track->end[i];
      if (e <= s)
        continue;
      if (open && s <= cur_end)
        {
          if (e > cur_end)
            cur_end = e;
          continue;
        }
      if (open)
        ks_range_set_add (set, cur_start, cur_end);
      cur_start = s;
      cur_end = e;
      open = TRUE;
    }
  if (open)
    ks_range_set_add (set, cur_start, cur_end);
}

static int
compare_ranges (gconstpointer a,
                gconstpointer b)
{
  const KsTimeRange *ra = a, *rb = b;

  return (ra->start > rb->start) - (ra->start < rb->start);
}

void
ks_range_set_add_unsorted (KsRangeSet  *set,
                           KsTimeRange *ranges,
                           gsize        n)
{
  /* qsort's array must not be NULL, even when empty */
  if (n == 0)
    return;
  qsort (ranges, n, sizeof *ranges, compare_ranges);
  for (gsize i = 0; i < n; i++)
    ks_range_set_add (set, ranges[i].start, ranges[i].end);
}
