/* ks-range-stats.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-range-stats"

#include "config.h"

#include "ks-range-set.h"
#include "ks-range-stats.h"

typedef struct
{
  gint64        start;
  gint64        end;
  KsRangeStats *stats;
  GHashTable   *kernels;     /* name id -> KsRangeEntry* (index + 1 in array) */
  GHashTable   *operators;
  GArray       *intervals;   /* KsTimeRange: busy slices of the current device, clipped */
  guint32       busy_kinds;  /* ks_analysis_options_busy_kinds () */
  GCancellable *cancellable;
  gboolean      cancelled;
} Walk;

static int
compare_entries (gconstpointer a,
                 gconstpointer b)
{
  const KsRangeEntry *ea = a, *eb = b;

  if (ea->total_ns != eb->total_ns)
    return ea->total_ns > eb->total_ns ? -1 : 1;
  return ea->name < eb->name ? -1 : ea->name > eb->name;
}

static KsRangeEntry *
entry_for (GHashTable *table,
           GArray     *entries,
           guint32     name)
{
  gpointer pos;

  if (!g_hash_table_lookup_extended (table, GUINT_TO_POINTER (name), NULL, &pos))
    {
      KsRangeEntry fresh = { name, 0, 0 };

      g_array_append_val (entries, fresh);
      pos = GUINT_TO_POINTER (entries->len);
      g_hash_table_insert (table, GUINT_TO_POINTER (name), pos);
    }
  return &g_array_index (entries, KsRangeEntry, GPOINTER_TO_UINT (pos) - 1);
}

static void
account (GHashTable *table,
         GArray     *entries,
         guint32     name,
         gint64      clipped)
{
  KsRangeEntry *e = entry_for (table, entries, name);

  e->count++;
  e->total_ns += clipped;
}

static gboolean
visit_slice (const KsTrack *track,
             guint32        slice,
             gpointer       user_data)
{
  Walk *w = user_data;
  gint64 a = MAX (track->start[slice], w->start);
  gint64 b = MIN (track->end[slice], w->end);
  gint64 clipped = MAX (0, b - a);

  if ((++w->stats->n_slices & 0xffff) == 0 && g_cancellable_is_cancelled (w->cancellable))
    {
      w->cancelled = TRUE;
      return FALSE;
    }

  if ((w->busy_kinds & KS_SLICE_KIND_BIT (track->slice_kind[slice])) && b > a)
    {
      KsTimeRange iv = { a, b };

      g_array_append_val (w->intervals, iv);
    }

  switch ((KsSliceKind)track->slice_kind[slice])
    {
    case KS_SLICE_KERNEL:
      account (w->kernels, w->stats->kernels, track->name_id[slice], clipped);
      break;

    case KS_SLICE_CPU_OP:
      {
        guint32 p;

        /* Self time: the enclosing operator gives up the part that runs
         * in this one, so nested operators are not counted twice. */
        account (w->operators, w->stats->operators, track->name_id[slice], clipped);
        for (p = ks_track_parent_slice (track, slice); p != KS_NO_INDEX; p = ks_track_parent_slice (track, p))
          if (track->slice_kind[p] == KS_SLICE_CPU_OP)
            {
              entry_for (w->operators, w->stats->operators, track->name_id[p])->total_ns -= clipped;
              break;
            }
      }
      break;

    case KS_SLICE_GENERIC:
    case KS_SLICE_PYTHON:
    case KS_SLICE_USER_ANNOTATION:
    case KS_SLICE_CUDA_RUNTIME:
    case KS_SLICE_CUDA_DRIVER:
    case KS_SLICE_NVTX:
    case KS_SLICE_OSRT:
    case KS_SLICE_ASYNC:
    case KS_SLICE_GPU_ANNOTATION:
    case KS_SLICE_MEMCPY:
    case KS_SLICE_MEMSET:
    case KS_SLICE_SYNC:
    case KS_SLICE_SAMPLE:
    case KS_N_SLICE_KINDS:
    default:
      break;
    }

  return TRUE;
}

static gint64
union_length (GArray *intervals)
{
  KsRangeSet set;
  gint64 total;

  ks_range_set_init (&set);
  ks_range_set_add_unsorted (&set, (KsTimeRange *)(gpointer)intervals->data, intervals->len);
  ks_range_set_seal (&set);
  total = ks_range_set_total (&set);
  ks_range_set_clear (&set);
  return total;
}

static int
compare_devices (gconstpointer a,
                 gconstpointer b)
{
  gint32 da = *(const gint32 *)a, db = *(const gint32 *)b;

  return da < db ? -1 : da > db;
}

KsRangeStats *
ks_range_stats_compute (KsTrace                 *trace,
                        const KsAnalysisOptions *options,
                        gint64                   start,
                        gint64                   end,
                        GCancellable            *cancellable)
{
  g_autoptr(GArray) devices = g_array_new (FALSE, FALSE, sizeof (gint32));
  KsRangeStats *stats;
  Walk w = { 0 };

  g_return_val_if_fail (KS_IS_TRACE (trace), NULL);

  stats = g_new0 (KsRangeStats, 1);
  stats->trace = g_object_ref (trace);
  stats->start = MIN (start, end);
  stats->end = MAX (start, end);
  stats->gpus = g_array_new (FALSE, FALSE, sizeof (KsRangeGpu));
  stats->kernels = g_array_new (FALSE, FALSE, sizeof (KsRangeEntry));
  stats->operators = g_array_new (FALSE, FALSE, sizeof (KsRangeEntry));

  w.start = stats->start;
  w.end = stats->end;
  w.stats = stats;
  w.kernels = g_hash_table_new (NULL, NULL);
  w.operators = g_hash_table_new (NULL, NULL);
  w.intervals = g_array_new (FALSE, FALSE, sizeof (KsTimeRange));
  w.cancellable = cancellable;
  w.busy_kinds = ks_analysis_options_busy_kinds (options);

  for (guint32 t = 0; t < trace->n_tracks; t++)
    if (trace->tracks[t].kind == KS_TRACK_STREAM)
      g_array_append_val (devices, trace->tracks[t].device);
  g_array_sort (devices, compare_devices);

  /* GPU work device by device, so each device gets its own union. */
  for (guint i = 0; i < devices->len && !w.cancelled; i++)
    {
      gint32 dev = g_array_index (devices, gint32, i);
      KsRangeGpu gpu;

      if (i > 0 && g_array_index (devices, gint32, i - 1) == dev)
        continue;

      g_array_set_size (w.intervals, 0);
      for (guint32 t = 0; t < trace->n_tracks && !w.cancelled; t++)
        if (trace->tracks[t].kind == KS_TRACK_STREAM && trace->tracks[t].device == dev)
          ks_track_foreach_in_range (&trace->tracks[t], w.start, w.end, visit_slice, &w);

      gpu.device = dev;
      gpu.busy_ns = union_length (w.intervals);
      g_array_append_val (stats->gpus, gpu);
    }

  for (guint32 t = 0; t < trace->n_tracks && !w.cancelled; t++)
    if (trace->tracks[t].kind != KS_TRACK_STREAM)
      ks_track_foreach_in_range (&trace->tracks[t], w.start, w.end, visit_slice, &w);

  g_array_sort (stats->kernels, compare_entries);
  g_array_sort (stats->operators, compare_entries);

  g_hash_table_unref (w.kernels);
  g_hash_table_unref (w.operators);
  g_array_unref (w.intervals);

  return stats;
}

void
ks_range_stats_free (KsRangeStats *stats)
{
  if (stats == NULL)
    return;
  g_object_unref (stats->trace);
  g_array_unref (stats->gpus);
  g_array_unref (stats->kernels);
  g_array_unref (stats->operators);
  g_free (stats);
}

typedef struct
{
  KsTrace           *trace;
  KsAnalysisOptions  options;
  gint64             start;
  gint64             end;
} State;

static void
state_free (State *state)
{
  g_object_unref (state->trace);
  g_free (state);
}

static void
compute_worker (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  State *state = task_data;
  KsRangeStats *stats = ks_range_stats_compute (state->trace, &state->options, state->start, state->end,
                                                cancellable);

  if (g_task_return_error_if_cancelled (task))
    ks_range_stats_free (stats);
  else
    g_task_return_pointer (task, stats, (GDestroyNotify) ks_range_stats_free);
}

void
ks_range_stats_compute_async (KsTrace                 *trace,
                              const KsAnalysisOptions *options,
                              gint64                   start,
                              gint64                   end,
                              GCancellable            *cancellable,
                              GAsyncReadyCallback      callback,
                              gpointer                 user_data)
{
  g_autoptr(GTask) task = NULL;
  State *state;

  g_return_if_fail (KS_IS_TRACE (trace));

  state = g_new0 (State, 1);
  state->trace = g_object_ref (trace);
  if (options != NULL)
    state->options = *options;
  else
    ks_analysis_options_init (&state->options);
  state->start = start;
  state->end = end;

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, ks_range_stats_compute_async);
  g_task_set_task_data (task, state, (GDestroyNotify) state_free);
  g_task_run_in_thread (task, compute_worker);
}

KsRangeStats *
ks_range_stats_compute_finish (GAsyncResult  *result,
                               GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
