/* ks-trace-builder-runs.c: slices of one track added in one call
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-trace-builder"

/* A reader that gathers the slices of a track ahead (the parallel JSON
 * reader does, per chunk, on the thread that parsed it) adds them here:
 * the track is grown and paged in once for the run, and each slice costs
 * its columns' copies, where ks_trace_builder_add_slice() costs a call,
 * the failure and range checks and the growth test. The result is the
 * same as adding them one by one.
 *
 * A reader that knows ahead about how many slices a track will get
 * reserves them (ks_trace_builder_reserve_slices()): the track is then
 * allocated once, where doubling it copies each column at every step
 * (13 MB for a 100 MB trace's .kscope, both copies held while it
 * lasts). The count is a hint: a track given more grows as
 * usual, and finishing shrinks one given less to its slices. */

#include "config.h"

#include <string.h>

#include "ks-trace-builder-private.h"

static inline guint32
mapped (const guint32 *map,
        guint32        id)
{
  return id != 0 ? map[id - 1] : 0;
}

gboolean
ks_trace_builder_add_slices (KsTraceBuilder       *self,
                             guint32               track,
                             const KsSliceColumns *columns,
                             guint32               from,
                             guint32               n,
                             const guint32        *map,
                             guint32              *first)
{
  TrackBuilder *tb;
  guint32 at;
  gint64 min_ts, max_ts;
  gboolean sorted;

  g_return_val_if_fail (track < self->tracks->len, FALSE);

  if (G_UNLIKELY (self->failed != FAILED_NONE))
    return FALSE;
  tb = get_tb (self, track);
  at = tb->n_slices;
  *first = at;
  if (n == 0)
    return TRUE;
  if (n > G_MAXUINT32 - 1 - at)
    return FALSE;
  while (tb->cap - at < n)
    if (!_ks_builder_track_grow (self, tb))
      return FALSE;
  if (tb->cap >= TRACK_PAGE_IN_MIN)
    while (tb->ready < at + n)
      _ks_builder_track_page_in (tb, MAX (tb->ready, at));

  memcpy (tb->start + at, columns->start + from, n * sizeof (gint64));
  memcpy (tb->end + at, columns->end + from, n * sizeof (gint64));
  memcpy (tb->correlation + at, columns->correlation + from, n * sizeof (guint32));
  memcpy (tb->external_id + at, columns->external_id + from, n * sizeof (guint32));
  if (columns->args != NULL)
    memcpy (tb->args + at, columns->args + from, n * sizeof (guint32));
  else
    memset (tb->args + at, 0, n * sizeof (guint32));
  memcpy (tb->slice_kind + at, columns->kind + from, n);
  if (tb->gpu != NULL)
    {
      if (columns->gpu != NULL)
        memcpy (tb->gpu + at, columns->gpu + from, n * sizeof (KsGpuInfo));
      else
        memset (tb->gpu + at, 0, n * sizeof (KsGpuInfo));
    }

  /* the checks of ks_trace_builder_add_slice(), slice after slice */
  sorted = tb->sorted;
  min_ts = self->min_ts;
  max_ts = self->max_ts;
  for (guint32 i = 0; i < n; i++)
    {
      gint64 start = columns->start[from + i];
      gint64 end = columns->end[from + i];
      guint32 k = at + i;

      if (k > 0 && (start < tb->start[k - 1] || (start == tb->start[k - 1] && end > tb->end[k - 1])))
        sorted = FALSE;
      min_ts = MIN (min_ts, start);
      max_ts = MAX (max_ts, end);
    }
  /* without a map they are the builder's ids already */
  if (map != NULL)
    for (guint32 i = 0; i < n; i++)
      {
        tb->name_id[at + i] = mapped (map, columns->name[from + i]);
        tb->category[at + i] = mapped (map, columns->category[from + i]);
      }
  else
    {
      memcpy (tb->name_id + at, columns->name + from, n * sizeof (guint32));
      memcpy (tb->category + at, columns->category + from, n * sizeof (guint32));
    }
  tb->sorted = sorted;
  self->min_ts = min_ts;
  self->max_ts = max_ts;
  tb->n_slices = at + n;
  self->n_events += n;
  return TRUE;
}

void
ks_trace_builder_reserve_slices (KsTraceBuilder *self,
                                 guint32         track,
                                 guint64         n)
{
  TrackBuilder *tb;

  g_return_if_fail (track < self->tracks->len);

  if (self->failed != FAILED_NONE)
    return;
  tb = get_tb (self, track);
  n = MIN (n, (guint64) G_MAXUINT32 - 1);
  /* memory running out for a hint is no failure: the track grows as
   * it would have without it */
  if (n > tb->cap)
    _ks_builder_track_resize (tb, (guint32) n);
}
