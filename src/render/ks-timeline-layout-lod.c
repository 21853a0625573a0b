/* ks-timeline-layout-lod.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-timeline-layout"

#include "config.h"

#include <math.h>

#include "ks-timeline-layout-private.h"

/* Level of detail: the slices and counter values one frame shows, and
 * the slice or folded block under a point. */

/* First index in idx[from..n) whose time in @times (a track's start or
 * end column, sorted within a depth) is at or after @t. */
static guint32
time_lower_bound (const gint64  *times,
                  const guint32 *idx,
                  guint32        from,
                  guint32        n,
                  double         t)
{
  guint32 lo = from, hi = n;

  while (lo < hi)
    {
      guint32 mid = lo + (hi - lo) / 2;

      if ((double)times[idx[mid]] < t)
        lo = mid + 1;
      else
        hi = mid;
    }

  return lo;
}

/* First index in by_depth[depth][from..n) whose slice ends at or after @t. */
static guint32
end_lower_bound (const KsTrack *track,
                 const guint32 *idx,
                 guint32        from,
                 guint32        n,
                 double         t)
{
  return time_lower_bound (track->end, idx, from, n, t);
}

void
ks_lod_slices (const KsTrack    *track,
               guint             depth,
               const KsTimeView *view,
               double            fold_px,
               GArray           *items)
{
  const guint32 *idx;
  guint32 n, i;
  double t0, t1, min_ns, nspp;

  if (depth >= track->max_depth || view->width <= 0 || view->ns_per_px <= 0)
    return;

  idx = track->by_depth[depth];
  n = track->n_by_depth[depth];
  nspp = view->ns_per_px;
  t0 = view->t0;
  t1 = view->t0 + view->width * nspp;
  min_ns = fold_px * nspp;

  /* First slice ending at or after t0 (zero-length slices at t0 count). */
  i = end_lower_bound (track, idx, 0, n, t0);

  while (i < n)
    {
      guint32 s = idx[i];
      double start = track->start[s];
      double end = track->end[s];
      KsLodItem item;

      if (start > t1)
        break;

      item.first = s;
      item.last = s;
      item.count = 1;
      item.pos = i;
      item.depth = depth;
      item.folded = FALSE;

      if (end - start >= min_ns)
        {
          i++;
        }
      else
        {
          /* Fold: jump over every slice that ends before the fold's end
           * plus the minimum width, then keep going while the next slice
           * is small and close (Tracy's PreprocessZoneLevel). */
          double rend = end;
          guint32 first_i = i;

          i++;
          for (;;)
            {
              guint32 j = end_lower_bound (track, idx, i, n, rend + min_ns);
              guint32 c;
              double cs, ce;

              if (j > i)
                {
                  rend = MAX (rend, (double)track->end[idx[j - 1]]);
                  i = j;
                }
              if (i >= n)
                break;
              c = idx[i];
              cs = track->start[c];
              ce = track->end[c];
              if (cs > t1 || cs - rend >= min_ns || ce - cs >= min_ns)
                break;
              rend = MAX (rend, ce);
              i++;
            }

          item.last = idx[i - 1];
          item.count = i - first_i;
          item.folded = item.count > 1;
          end = rend;
        }

      item.x0 = (start - t0) / nspp;
      item.x1 = (end - t0) / nspp;
      if (item.folded && item.x1 - item.x0 < fold_px)
        item.x1 = item.x0 + fold_px;
      g_array_append_val (items, item);
    }
}

static const gint64 *
busy_sums (KsTimelineLayout *self,
           const KsTrack    *track,
           guint             depth)
{
  gint64 *sums = self->busy_sums[track->id];
  gsize offset = 0;

  if (sums == NULL)
    {
      gsize k = 0;

      sums = self->busy_sums[track->id] = g_new (gint64, track->n_slices + track->max_depth);
      for (guint d = 0; d < track->max_depth; d++)
        {
          const guint32 *idx = track->by_depth[d];

          sums[k++] = 0;
          for (guint32 i = 0; i < track->n_by_depth[d]; i++, k++)
            sums[k] = sums[k - 1] + (track->end[idx[i]] - track->start[idx[i]]);
        }
    }

  for (guint d = 0; d < depth; d++)
    offset += track->n_by_depth[d] + 1;
  return sums + offset;
}

double
ks_timeline_layout_busy_ns (KsTimelineLayout *self,
                            guint32           track_index,
                            guint             depth,
                            double            t0,
                            double            t1)
{
  const KsTrack *track;
  const guint32 *idx;
  const gint64 *sums;
  guint32 i, j;
  double busy;

  g_return_val_if_fail (track_index < self->trace->n_tracks, 0);

  track = &self->trace->tracks[track_index];
  if (depth >= track->max_depth || t1 <= t0)
    return 0;

  idx = track->by_depth[depth];
  sums = busy_sums (self, track, depth);

  /* [i, j): the slices that end after t0 and start before t1. */
  i = end_lower_bound (track, idx, 0, track->n_by_depth[depth], t0);
  j = time_lower_bound (track->start, idx, i, track->n_by_depth[depth], t1);
  if (j <= i)
    return 0;

  busy = (double)(sums[j] - sums[i]);
  busy -= MAX (0.0, t0 - (double)track->start[idx[i]]);
  busy -= MAX (0.0, (double)track->end[idx[j - 1]] - t1);
  return MAX (0.0, busy);
}

float *
ks_lod_counter_blocks_new (const KsCounter *counter)
{
  guint32 n_blocks = counter->n_samples / KS_LOD_COUNTER_BLOCK;
  float *blocks = g_new (float, 2 * MAX (n_blocks, 1));

  /* whole blocks only: the samples after the last one are read one by one */
  for (guint32 b = 0; b < n_blocks; b++)
    {
      float lo = INFINITY, hi = -INFINITY;

      for (guint32 i = b * KS_LOD_COUNTER_BLOCK; i < (b + 1) * KS_LOD_COUNTER_BLOCK; i++)
        if (isfinite (counter->value[i]))
          {
            lo = MIN (lo, (float)counter->value[i]);
            hi = MAX (hi, (float)counter->value[i]);
          }
      blocks[2 * b] = lo;
      blocks[2 * b + 1] = hi;
    }
  return blocks;
}

void
ks_lod_counter (const KsCounter  *counter,
                const KsTimeView *view,
                float            *col_min,
                float            *col_max,
                gboolean         *has)
{
  ks_lod_counter_summarized (counter, NULL, view, col_min, col_max, has);
}

void
ks_lod_counter_summarized (const KsCounter  *counter,
                           const float      *blocks,
                           const KsTimeView *view,
                           float            *col_min,
                           float            *col_max,
                           gboolean         *has)
{
  guint32 lo = 0, hi = counter->n_samples;
  guint32 n_whole = blocks != NULL ? counter->n_samples / KS_LOD_COUNTER_BLOCK * KS_LOD_COUNTER_BLOCK : 0;
  gboolean have_carry = FALSE;
  double carry = 0;

  /* First sample at or after t0; the one before it holds at t0. */
  while (lo < hi)
    {
      guint32 mid = lo + (hi - lo) / 2;

      if ((double)counter->ts[mid] < view->t0)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo > 0)
    {
      have_carry = TRUE;
      carry = counter->value[lo - 1];
    }

  for (int col = 0; col < view->width; col++)
    {
      double col_end = view->t0 + (col + 1) * view->ns_per_px;
      double vmin = carry, vmax = carry;
      gboolean any = have_carry;

      while (lo < counter->n_samples && (double)counter->ts[lo] < col_end)
        {
          double v;

          /* a whole block inside the column: its min and max, and its
           * last value holds on */
          if (lo % KS_LOD_COUNTER_BLOCK == 0 && lo < n_whole &&
              (double)counter->ts[lo + KS_LOD_COUNTER_BLOCK - 1] < col_end)
            {
              const float *b = &blocks[2 * (lo / KS_LOD_COUNTER_BLOCK)];

              if (b[0] <= b[1])
                {
                  if (!any)
                    vmin = vmax = b[0];
                  vmin = MIN (vmin, b[0]);
                  vmax = MAX (vmax, b[1]);
                  for (guint32 k = lo + KS_LOD_COUNTER_BLOCK; k-- > lo;)
                    if (isfinite (counter->value[k]))
                      {
                        carry = counter->value[k];
                        break;
                      }
                  any = have_carry = TRUE;
                }
              lo += KS_LOD_COUNTER_BLOCK;
              continue;
            }

          v = counter->value[lo++];
          if (!isfinite (v))
            continue;
          if (!any)
            vmin = vmax = v;
          vmin = MIN (vmin, v);
          vmax = MAX (vmax, v);
          carry = v;
          any = have_carry = TRUE;
        }

      has[col] = any;
      col_min[col] = vmin;
      col_max[col] = vmax;
    }
}

gboolean
ks_timeline_layout_hit (KsTimelineLayout *self,
                        guint             row_index,
                        const KsTimeView *view,
                        double            x,
                        double            y_in_row,
                        KsHit            *hit)
{
  const KsRow *row;
  const KsTrack *track;
  g_autoptr(GArray) items = NULL;
  int depth;
  guint lo, hi;

  g_return_val_if_fail (row_index < self->rows->len, FALSE);

  row = &g_array_index (self->rows, KsRow, row_index);
  if (row->kind != KS_ROW_SLICES)
    return FALSE;

  track = &self->trace->tracks[row->index];
  depth = (int)floor ((y_in_row - KS_ROW_PADDING) / KS_LANE_HEIGHT);
  if (depth < 0 || depth >= (int)track->max_depth)
    return FALSE;

  items = g_array_new (FALSE, FALSE, sizeof (KsLodItem));
  ks_lod_slices (track, depth, view, KS_FOLD_MIN_PX, items);

  /* Items are in x order; find the last one starting at or before x. */
  lo = 0;
  hi = items->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (g_array_index (items, KsLodItem, mid).x0 <= x)
        lo = mid + 1;
      else
        hi = mid;
    }

  for (guint k = lo > 0 ? lo - 1 : 0; k < items->len && k <= lo; k++)
    {
      const KsLodItem *it = &g_array_index (items, KsLodItem, k);

      /* Slices thinner than a pixel are drawn one pixel wide. */
      if (x >= it->x0 - 0.5 && x < MAX (it->x1, it->x0 + 1) + 0.5)
        {
          hit->track = row->index;
          hit->slice = it->first;
          hit->last = it->last;
          hit->count = it->count;
          hit->start = track->start[it->first];
          hit->end = MAX (track->end[it->first], track->end[it->last]);
          hit->x0 = it->x0;
          hit->x1 = it->x1;
          hit->depth = depth;
          return TRUE;
        }
    }

  return FALSE;
}
