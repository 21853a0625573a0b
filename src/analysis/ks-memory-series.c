/* ks-memory-series.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-memory-series"

#include "config.h"

#include "ks-analysis-private.h"
#include "ks-memory-series.h"

static void
series_set_free (KsMemorySeriesSet *set)
{
  for (guint i = 0; i < set->n_series; i++)
    {
      g_free (set->series[i].allocated.ts);
      g_free (set->series[i].allocated.value);
      g_free (set->series[i].reserved);
      g_free (set->series[i].unused.ts);
      g_free (set->series[i].unused.value);
    }
  g_free (set->series);
  g_free (set->event_series);
  g_free (set->event_sample);
  g_free (set);
}

gint64
ks_memory_add_bytes (gint64 a,
                     gint64 b)
{
  if (b > 0 && a > G_MAXINT64 - b)
    return G_MAXINT64;
  if (b < 0 && a < G_MININT64 - b)
    return G_MININT64;
  return a + b;
}

gboolean
ks_memory_event_is_plausible (const KsMemoryEvent *ev)
{
  return ev->bytes >= -KS_MEMORY_MAX_PLAUSIBLE_BYTES && ev->bytes <= KS_MEMORY_MAX_PLAUSIBLE_BYTES &&
         ev->total_allocated >= -1 && ev->total_allocated <= KS_MEMORY_MAX_PLAUSIBLE_BYTES &&
         ev->total_reserved >= -1 && ev->total_reserved <= KS_MEMORY_MAX_PLAUSIBLE_BYTES;
}

typedef struct
{
  GArray *ts;              /* gint64 */
  GArray *value;           /* double */
  GArray *reserved;        /* gint64 */
  gint64  running;
  gint64  last_reserved;
  gboolean totals;         /* some event of the series carries its total */
} Builder;

static KsMemorySeriesSet *
build (KsTrace *trace)
{
  KsMemorySeriesSet *set = g_new0 (KsMemorySeriesSet, 1);
  g_autoptr(GHashTable) by_key = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GArray) series = g_array_new (FALSE, TRUE, sizeof (KsMemorySeries));
  g_autoptr(GArray) builders = g_array_new (FALSE, TRUE, sizeof (Builder));

  set->event_series = g_new (guint32, MAX (1, trace->n_memory_events));
  set->event_sample = g_new (guint32, MAX (1, trace->n_memory_events));

  for (guint32 i = 0; i < trace->n_memory_events; i++)
    {
      const KsMemoryEvent *e = &trace->memory_events[i];
      guint32 process = KS_NO_INDEX;
      gint64 key;
      gpointer pos;

      if (e->thread < trace->n_threads && trace->threads[e->thread].process < trace->n_processes)
        process = trace->threads[e->thread].process;

      key = ((gint64)process << 17) | (gint64)(e->device + 1);
      if (!g_hash_table_lookup_extended (by_key, &key, NULL, &pos))
        {
          KsMemorySeries m = { 0 };
          Builder fresh = { 0 };

          m.device = e->device;
          m.process = process;
          m.allocated.device = e->device;
          m.allocated.process = process;
          g_array_append_val (series, m);
          fresh.ts = g_array_new (FALSE, FALSE, sizeof (gint64));
          fresh.value = g_array_new (FALSE, FALSE, sizeof (double));
          fresh.reserved = g_array_new (FALSE, FALSE, sizeof (gint64));
          fresh.last_reserved = -1;
          g_array_append_val (builders, fresh);
          pos = GUINT_TO_POINTER (series->len);
          g_hash_table_insert (by_key, g_memdup2 (&key, sizeof key), pos);
        }

      set->event_series[i] = GPOINTER_TO_UINT (pos) - 1;
      if (e->total_allocated >= 0 && ks_memory_event_is_plausible (e))
        g_array_index (builders, Builder, set->event_series[i]).totals = TRUE;
      if (e->total_reserved >= 0 && ks_memory_event_is_plausible (e))
        g_array_index (series, KsMemorySeries, set->event_series[i]).allocator = TRUE;
    }
  set->n_series = series->len;
  set->series = (KsMemorySeries *)(gpointer)series->data;

  for (guint32 i = 0; i < trace->n_memory_events; i++)
    {
      const KsMemoryEvent *e = &trace->memory_events[i];
      Builder *b = &g_array_index (builders, Builder, set->event_series[i]);
      double v;

      if (!ks_memory_event_is_plausible (e) || !ks_memory_series_uses (set, trace, i))
        {
          set->event_sample[i] = KS_NO_INDEX;
          continue;
        }
      b->running = ks_memory_add_bytes (b->running, e->bytes);
      if (e->total_reserved >= 0)
        b->last_reserved = e->total_reserved;
      if (b->totals && e->total_allocated < 0)
        {
          set->event_sample[i] = KS_NO_INDEX;
          continue;
        }
      v = (double)(b->totals ? e->total_allocated : b->running);
      set->event_sample[i] = b->ts->len;
      g_array_append_val (b->ts, e->ts);
      g_array_append_val (b->value, v);
      g_array_append_val (b->reserved, b->last_reserved);
    }

  for (guint i = 0; i < series->len; i++)
    {
      KsMemorySeries *m = &g_array_index (series, KsMemorySeries, i);
      Builder *b = &g_array_index (builders, Builder, i);

      m->allocated.n_samples = b->ts->len;
      m->allocated.ts = (gint64 *)(gpointer)g_array_free (b->ts, FALSE);
      m->allocated.value = (double *)(gpointer)g_array_free (b->value, FALSE);
      m->reserved = (gint64 *)(gpointer)g_array_free (b->reserved, FALSE);
      m->unused.device = m->device;
      m->unused.process = m->process;
      for (guint32 k = 0; m->allocator && m->device >= 0 && k < m->allocated.n_samples; k++)
        if (m->reserved[k] >= 0)
          m->unused.n_samples++;
      if (m->unused.n_samples > 0)
        {
          guint32 n = 0;

          m->unused.ts = g_new (gint64, m->unused.n_samples);
          m->unused.value = g_new (double, m->unused.n_samples);
          for (guint32 k = 0; k < m->allocated.n_samples; k++)
            if (m->reserved[k] >= 0)
              {
                m->unused.ts[n] = m->allocated.ts[k];
                m->unused.value[n++] = MAX ((double)m->reserved[k] - m->allocated.value[k], 0.0);
              }
        }
    }

  set->n_series = series->len;
  set->series = (KsMemorySeries *)(gpointer)g_array_free (g_steal_pointer (&series), FALSE);
  return set;
}

gboolean
ks_memory_series_uses (const KsMemorySeriesSet *set,
                       const KsTrace           *trace,
                       guint32                  e)
{
  g_return_val_if_fail (e < trace->n_memory_events, FALSE);

  return !set->series[set->event_series[e]].allocator || trace->memory_events[e].total_reserved >= 0;
}

const KsMemorySeriesSet *
ks_memory_series_get (KsTrace *trace)
{
  g_return_val_if_fail (KS_IS_TRACE (trace), NULL);

  return _ks_trace_get_cached (trace, "ks-memory-series", (gpointer (*) (KsTrace *))build,
                               (GDestroyNotify)series_set_free);
}
