/* ks-analysis-memory.c: allocated/reserved curves, peaks, allocations
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include <string.h>

#include "ks-analysis-private.h"
#include "ks-memory-series.h"

typedef struct
{
  gint32  device;
  GArray *points;      /* KsMemoryPoint */
  GArray *events;      /* guint32: the event behind each point */
  gint64  allocated;   /* the sum of the device's memory series */
  gint64  reserved;    /* of those that know it, -1 while none does */
} CurveBuilder;

/* Current values of each memory series, as the events are walked. */
typedef struct
{
  const KsMemorySeriesSet *set;
  gint64                  *allocated;  /* per series */
  gint64                  *reserved;
} SeriesWalk;

/* The device's curve at event @e: the sum of its processes' series (an
 * event that adds no sample to its series leaves the curve as it is). */
static void
curve_point (CurveBuilder *cb,
             SeriesWalk   *w,
             guint32       e,
             KsMemoryPoint *p)
{
  guint32 s = w->set->event_series[e];
  guint32 k = w->set->event_sample[e];
  const KsMemorySeries *m = &w->set->series[s];
  gint64 a = k != KS_NO_INDEX ? (gint64)m->allocated.value[k] : w->allocated[s];
  gint64 r = k != KS_NO_INDEX ? m->reserved[k] : -1;

  cb->allocated = ks_memory_add_bytes (cb->allocated, ks_memory_add_bytes (a, -w->allocated[s]));
  w->allocated[s] = a;
  if (r >= 0)
    {
      cb->reserved = ks_memory_add_bytes (MAX (cb->reserved, 0), ks_memory_add_bytes (r, -MAX (w->reserved[s], 0)));
      w->reserved[s] = r;
    }
  p->allocated = cb->allocated;
  p->reserved = cb->reserved;
}

/* An allocator counter's sample as bytes; FALSE when impossible (NaN too). */
static gboolean
plausible_sample (double  value,
                  gint64 *bytes)
{
  if (!(value >= 0 && value <= (double)KS_MEMORY_MAX_PLAUSIBLE_BYTES))
    return FALSE;
  *bytes = (gint64)value;
  return TRUE;
}

static gboolean
memory_device_wanted (Context *ctx,
                      gint32   device)
{
  return ctx->options.device < 0 || ctx->options.device == device;
}

static guint64
device_capacity (KsTrace *trace,
                 gint32   device)
{
  for (guint32 i = 0; i < trace->n_gpus; i++)
    if (trace->gpus[i].device == device)
      return trace->gpus[i].total_memory;
  return 0;
}

static int
compare_curves (gconstpointer a,
                gconstpointer b)
{
  const KsMemoryCurve *ca = a;
  const KsMemoryCurve *cb = b;

  /* GPUs first, host last */
  if ((ca->device < 0) != (cb->device < 0))
    return ca->device < 0 ? 1 : -1;
  return (ca->device > cb->device) - (ca->device < cb->device);
}

static const KsCounter *
find_counter (KsTrace    *trace,
              gint32      device,
              const char *word)
{
  for (guint32 i = 0; i < trace->n_counters; i++)
    {
      g_autofree char *lower = NULL;

      if (trace->counters[i].device != device || trace->counters[i].n_samples == 0)
        continue;
      lower = g_ascii_strdown (ks_trace_string (trace, trace->counters[i].name), -1);
      if (strstr (lower, word) != NULL && strstr (lower, "memory") != NULL)
        return &trace->counters[i];
    }
  return NULL;
}

/* Curves from allocator counters, for GPUs whose trace has no memory events. */
/* Reserved minus allocated over the points, where reserved is known. */
static void
unused_peak (KsMemoryCurve *curve)
{
  curve->peak_unused = -1;
  for (guint k = 0; k < curve->n_points; k++)
    if (curve->points[k].reserved >= 0 &&
        curve->points[k].reserved - curve->points[k].allocated > curve->peak_unused)
      {
        curve->peak_unused = curve->points[k].reserved - curve->points[k].allocated;
        curve->peak_unused_ts = curve->points[k].ts;
      }
}

static void
curve_from_counters (KsAnalysis *self,
                     Context    *ctx,
                     gint32      device)
{
  KsTrace *trace = ctx->trace;
  const KsCounter *alloc = find_counter (trace, device, "allocated");
  const KsCounter *resv = find_counter (trace, device, "reserved");
  g_autoptr(GArray) points = NULL;
  KsMemoryCurve curve;
  guint i = 0, j = 0;
  gint64 cur_a = 0, cur_r = -1;

  if (alloc == NULL)
    return;

  points = g_array_new (FALSE, FALSE, sizeof (KsMemoryPoint));
  memset (&curve, 0, sizeof curve);
  curve.device = device;
  curve.peak_reserved = -1;
  curve.peak_thread = KS_NO_INDEX;
  curve.total_memory = device_capacity (trace, device);

  while (i < alloc->n_samples || (resv != NULL && j < resv->n_samples))
    {
      KsMemoryPoint p;

      if (resv == NULL || j >= resv->n_samples ||
          (i < alloc->n_samples && alloc->ts[i] <= resv->ts[j]))
        {
          p.ts = alloc->ts[i];
          if (!plausible_sample (alloc->value[i++], &cur_a))
            {
              self->n_ignored_memory++;
              continue;
            }
        }
      else
        {
          p.ts = resv->ts[j];
          if (!plausible_sample (resv->value[j++], &cur_r))
            {
              self->n_ignored_memory++;
              continue;
            }
        }
      p.allocated = cur_a;
      p.reserved = cur_r;
      if (p.allocated > curve.peak_allocated)
        {
          curve.peak_allocated = p.allocated;
          curve.peak_allocated_ts = p.ts;
        }
      if (p.reserved > curve.peak_reserved)
        {
          curve.peak_reserved = p.reserved;
          curve.peak_reserved_ts = p.ts;
        }
      g_array_append_val (points, p);
    }

  curve.n_points = points->len;
  curve.points = (KsMemoryPoint *)(gpointer)g_array_free (g_steal_pointer (&points), FALSE);
  unused_peak (&curve);
  g_array_append_val (self->memory, curve);
}

static int
compare_operator_memory (gconstpointer a,
                         gconstpointer b)
{
  const KsOperatorMemory *x = a;
  const KsOperatorMemory *y = b;

  if (x->bytes != y->bytes)
    return x->bytes > y->bytes ? -1 : 1;
  if (x->self_bytes != y->self_bytes)
    return x->self_bytes > y->self_bytes ? -1 : 1;
  return (x->name > y->name) - (x->name < y->name);
}

/* The operators whose calls contain @t, innermost first, into @out (at
 * most @max). Each depth is looked at on its own: a record_function
 * range opens inside the Python frame of _record_function_enter and
 * outlives it, so an operator can lie deeper than a frame that has
 * already ended, and a walk that stops at the first depth not
 * containing @t would miss it. */
static guint
operators_around (const KsTrack *track,
                  gint64         t,
                  guint32       *out,
                  guint          max)
{
  guint n = 0;

  for (gint d = (gint)track->max_depth - 1; d >= 0 && n < max; d--)
    {
      const guint32 *at = track->by_depth[d];
      guint lo = 0, hi = track->n_by_depth[d];

      /* the last slice at this depth starting at or before @t */
      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;

          if (track->start[at[mid]] <= t)
            lo = mid + 1;
          else
            hi = mid;
        }
      if (lo > 0 && track->end[at[lo - 1]] > t && track->slice_kind[at[lo - 1]] == KS_SLICE_CPU_OP)
        out[n++] = at[lo - 1];
    }
  return n;
}

/* An allocation counts for its innermost operator (self) and, once per
 * name, for every operator around it (an aten::to inside an aten::to
 * counts once). */
static void
count_operator_memory (Context                *ctx,
                       const KsMemoryEvent    *ev,
                       guint32                *index,
                       GArray                 *rows)
{
  KsTrace *trace = ctx->trace;
  const KsTrack *track;
  guint32 around[64];
  guint32 seen[64];
  guint n_seen = 0, n_around;
  gboolean innermost = TRUE;

  if (ev->thread >= trace->n_threads || trace->threads[ev->thread].track == KS_NO_INDEX)
    return;
  track = &trace->tracks[trace->threads[ev->thread].track];
  n_around = operators_around (track, ev->ts, around, G_N_ELEMENTS (around));
  for (guint k = 0; k < n_around; k++)
    {
      guint32 op = around[k];
      guint32 name = track->name_id[op];
      KsOperatorMemory *row;
      gboolean dup = FALSE;

      for (guint i = 0; i < n_seen; i++)
        dup |= seen[i] == name;
      if (dup)
        continue;
      if (n_seen < G_N_ELEMENTS (seen))
        seen[n_seen++] = name;
      if (index[name] == 0)
        {
          KsOperatorMemory fresh = { 0 };

          fresh.name = name;
          g_array_append_val (rows, fresh);
          index[name] = rows->len;
        }
      row = &g_array_index (rows, KsOperatorMemory, index[name] - 1);
      row->count++;
      row->bytes += ev->bytes;
      if (innermost)
        {
          row->self_count++;
          row->self_bytes += ev->bytes;
          innermost = FALSE;
        }
    }
}

void
_ks_analysis_memory (KsAnalysis *self,
                     Context    *ctx)
{
  g_autofree guint32 *op_index = g_new0 (guint32, MAX (ctx->trace->n_strings, 1));
  KsTrace *trace = ctx->trace;
  g_autoptr(GArray) builders = g_array_new (FALSE, TRUE, sizeof (CurveBuilder));
  g_autoptr(GHashTable) live = g_hash_table_new_full (g_bytes_hash, g_bytes_equal,
                                                      (GDestroyNotify)g_bytes_unref, NULL);
  SeriesWalk walk;

  walk.set = ks_memory_series_get (trace);
  walk.allocated = g_new0 (gint64, MAX (1, walk.set->n_series));
  walk.reserved = g_new (gint64, MAX (1, walk.set->n_series));
  for (guint i = 0; i < walk.set->n_series; i++)
    walk.reserved[i] = -1;

  for (guint32 e = 0; e < trace->n_memory_events; e++)
    {
      const KsMemoryEvent *ev = &trace->memory_events[e];
      CurveBuilder *cb = NULL;
      KsMemoryPoint p;
      struct { gint64 device; guint64 address; } key;
      g_autoptr(GBytes) kbytes = NULL;

      /* A CUDA-level row next to the allocator's own events counts
       * bytes the allocator's reserved total already has. */
      if (!memory_device_wanted (ctx, ev->device) || !ks_memory_series_uses (walk.set, trace, e))
        continue;
      if (!ks_memory_event_is_plausible (ev))
        {
          self->n_ignored_memory++;
          continue;
        }

      for (guint i = 0; i < builders->len; i++)
        if (g_array_index (builders, CurveBuilder, i).device == ev->device)
          cb = &g_array_index (builders, CurveBuilder, i);
      if (cb == NULL)
        {
          CurveBuilder fresh = { 0 };

          fresh.device = ev->device;
          fresh.points = g_array_new (FALSE, FALSE, sizeof (KsMemoryPoint));
          fresh.events = g_array_new (FALSE, FALSE, sizeof (guint32));
          fresh.reserved = -1;
          g_array_append_val (builders, fresh);
          cb = &g_array_index (builders, CurveBuilder, builders->len - 1);
        }

      p.ts = ev->ts;
      curve_point (cb, &walk, e, &p);
      g_array_append_val (cb->points, p);
      g_array_append_val (cb->events, e);

      /* Allocations, matched with their free by device and address */
      memset (&key, 0, sizeof key);
      key.device = ev->device;
      key.address = ev->address;
      kbytes = g_bytes_new (&key, sizeof key);
      if (ev->bytes > 0)
        {
          KsAllocation a;
          guint32 op = _ks_context_operator_at (ctx, ev->thread, ev->ts);

          memset (&a, 0, sizeof a);
          a.device = ev->device;
          a.address = ev->address;
          a.bytes = ev->bytes;
          a.alloc_ts = ev->ts;
          a.free_ts = -1;
          a.lifetime_ns = -1;
          a.thread = ev->thread;
          if (op != KS_NO_INDEX)
            a.operator_name = trace->tracks[trace->threads[ev->thread].track].name_id[op];
          /* and the Python code that ran it: the innermost sampled frame */
          a.python_track = ev->thread < trace->n_threads ? ctx->samples_of_thread[ev->thread] : KS_NO_INDEX;
          a.python_slice = a.python_track != KS_NO_INDEX
                           ? ks_track_slice_at (&trace->tracks[a.python_track], ev->ts, G_MAXUINT)
                           : KS_NO_INDEX;
          if (a.python_slice == KS_NO_INDEX)
            a.python_track = KS_NO_INDEX;
          g_array_append_val (self->allocations, a);
          count_operator_memory (ctx, ev, op_index, self->operator_memory);
          g_hash_table_replace (live, g_steal_pointer (&kbytes), GUINT_TO_POINTER (self->allocations->len));
        }
      else if (ev->bytes < 0)
        {
          gpointer idx = g_hash_table_lookup (live, kbytes);

          if (idx != NULL)
            {
              KsAllocation *a = &g_array_index (self->allocations, KsAllocation, GPOINTER_TO_UINT (idx) - 1);

              a->free_ts = ev->ts;
              a->lifetime_ns = ev->ts - a->alloc_ts;
              g_hash_table_remove (live, kbytes);
            }
        }
    }

  for (guint i = 0; i < builders->len; i++)
    {
      CurveBuilder *cb = &g_array_index (builders, CurveBuilder, i);
      const KsMemoryPoint *pts = (const KsMemoryPoint *)(gpointer)cb->points->data;
      KsMemoryCurve curve;
      guint peak = 0;

      memset (&curve, 0, sizeof curve);
      curve.device = cb->device;
      curve.peak_reserved = -1;
      curve.peak_thread = KS_NO_INDEX;
      curve.total_memory = cb->device >= 0 ? device_capacity (trace, cb->device) : 0;

      for (guint k = 0; k < cb->points->len; k++)
        {
          if (pts[k].allocated > pts[peak].allocated)
            peak = k;
          if (pts[k].reserved > curve.peak_reserved)
            {
              curve.peak_reserved = pts[k].reserved;
              curve.peak_reserved_ts = pts[k].ts;
            }
        }
      if (cb->points->len > 0)
        {
          const KsMemoryEvent *ev = &trace->memory_events[g_array_index (cb->events, guint32, peak)];
          guint32 op = _ks_context_operator_at (ctx, ev->thread, ev->ts);

          curve.peak_allocated = pts[peak].allocated;
          curve.peak_allocated_ts = pts[peak].ts;
          curve.peak_thread = ev->thread;
          if (op != KS_NO_INDEX)
            curve.peak_operator = trace->tracks[trace->threads[ev->thread].track].name_id[op];
        }

      curve.n_points = cb->points->len;
      curve.points = (KsMemoryPoint *)(gpointer)g_array_free (cb->points, FALSE);
      cb->points = NULL;
      unused_peak (&curve);
      g_clear_pointer (&cb->events, g_array_unref);
      g_array_append_val (self->memory, curve);
    }

  g_free (walk.allocated);
  g_free (walk.reserved);

  /* GPUs without memory events: allocator counters, if any */
  for (guint d = 0; d < ctx->devices->len; d++)
    {
      gint32 device = g_array_index (ctx->devices, DeviceState, d).device;
      gboolean have = FALSE;

      for (guint i = 0; i < self->memory->len; i++)
        if (g_array_index (self->memory, KsMemoryCurve, i).device == device)
          have = TRUE;
      if (!have)
        curve_from_counters (self, ctx, device);
    }

  g_array_sort (self->memory, compare_curves);
  g_array_sort (self->operator_memory, compare_operator_memory);
}
