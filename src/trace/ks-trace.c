/* ks-trace.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-trace"

#include "config.h"

#include "ks-trace-private.h"

G_DEFINE_FINAL_TYPE (KsTrace, ks_trace, G_TYPE_OBJECT)

static void
ks_trace_finalize (GObject *object)
{
  KsTrace *self = (KsTrace *)object;

  for (guint32 i = 0; i < self->n_tracks; i++)
    _ks_track_clear (&self->tracks[i]);
  g_free (self->tracks);

  for (guint32 i = 0; i < self->n_counters; i++)
    {
      g_free (self->counters[i].ts);
      g_free (self->counters[i].value);
    }
  g_free (self->counters);

  g_free (self->processes);
  g_free (self->threads);
  g_free (self->gpus);
  g_free (self->ranks);
  g_free (self->flows);
  g_free (self->memory_events);
  g_free (self->instants);
  g_free (self->stack_nodes);
  g_free (self->samples);
  g_clear_pointer (&self->args, ks_args_store_free);
  g_free (self->strings);
  g_clear_pointer ((GStringChunk **)&self->storage, g_string_chunk_free);
  g_clear_pointer (&self->string_index, g_hash_table_unref);
  g_clear_pointer (&self->track_storage, g_ptr_array_unref);
  g_clear_pointer (&self->metadata, g_hash_table_unref);

  G_OBJECT_CLASS (ks_trace_parent_class)->finalize (object);
}

static void
ks_trace_class_init (KsTraceClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = ks_trace_finalize;
}

static void
ks_trace_init (KsTrace *self)
{
  self->metadata = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
}

/* Small tracks live in the trace's track_storage, freed with it. */
void
_ks_track_clear (KsTrack *track)
{
  g_clear_pointer (&track->thread_time_slice, g_free);
  g_clear_pointer (&track->thread_start, g_free);
  g_clear_pointer (&track->thread_duration, g_free);
  track->n_thread_times = 0;
  if (_ks_track_is_packed (track))
    return;
  g_clear_pointer (&track->start, g_free);
  g_clear_pointer (&track->end, g_free);
  g_clear_pointer (&track->name_id, g_free);
  g_clear_pointer (&track->category, g_free);
  g_clear_pointer (&track->correlation, g_free);
  g_clear_pointer (&track->external_id, g_free);
  g_clear_pointer (&track->args, g_free);
  g_clear_pointer (&track->slice_kind, g_free);
  g_clear_pointer (&track->depth, g_free);
  g_clear_pointer (&track->gpu, g_free);
  if (track->by_depth != NULL)
    g_free (track->by_depth[0]);
  g_clear_pointer (&track->by_depth, g_free);
  g_clear_pointer (&track->n_by_depth, g_free);
}

gboolean
ks_track_get_thread_time (const KsTrack *track,
                          guint32        slice,
                          gint64        *thread_start,
                          gint64        *thread_duration)
{
  guint32 lo = 0, hi = track->n_thread_times;

  while (lo < hi)
    {
      guint32 mid = lo + (hi - lo) / 2;

      if (track->thread_time_slice[mid] < slice)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == track->n_thread_times || track->thread_time_slice[lo] != slice)
    return FALSE;
  if (thread_start != NULL)
    *thread_start = track->thread_start[lo];
  if (thread_duration != NULL)
    *thread_duration = track->thread_duration[lo];
  return TRUE;
}

const char *
ks_format_to_string (KsFormat format)
{
  switch (format)
    {
    case KS_FORMAT_KINETO_JSON: return "kineto-json";
    case KS_FORMAT_CHROME_JSON: return "chrome-json";
    case KS_FORMAT_KSCOPE:      return "kscope";
    case KS_FORMAT_NSYS_SQLITE: return "nsys-sqlite";
    case KS_FORMAT_NVIDIA_SMI: return "nvidia-smi";
    case KS_FORMAT_MEMORY_SNAPSHOT: return "memory-snapshot";
    case KS_FORMAT_UNKNOWN:
    default:                    return "unknown";
    }
}

const char *
ks_slice_kind_to_string (KsSliceKind kind)
{
  static const char * const names[KS_N_SLICE_KINDS] = {
    [KS_SLICE_GENERIC] = "slice",
    [KS_SLICE_CPU_OP] = "cpu_op",
    [KS_SLICE_PYTHON] = "python_function",
    [KS_SLICE_USER_ANNOTATION] = "user_annotation",
    [KS_SLICE_CUDA_RUNTIME] = "cuda_runtime",
    [KS_SLICE_CUDA_DRIVER] = "cuda_driver",
    [KS_SLICE_NVTX] = "nvtx",
    [KS_SLICE_OSRT] = "osrt",
    [KS_SLICE_ASYNC] = "async",
    [KS_SLICE_GPU_ANNOTATION] = "gpu_user_annotation",
    [KS_SLICE_KERNEL] = "kernel",
    [KS_SLICE_MEMCPY] = "memcpy",
    [KS_SLICE_MEMSET] = "memset",
    [KS_SLICE_SYNC] = "sync",
    [KS_SLICE_SAMPLE] = "sample",
  };

  if ((guint)kind >= KS_N_SLICE_KINDS)
    return "unknown";
  return names[kind];
}

gboolean
ks_slice_kind_is_gpu (KsSliceKind kind)
{
  return kind == KS_SLICE_KERNEL || kind == KS_SLICE_MEMCPY ||
         kind == KS_SLICE_MEMSET || kind == KS_SLICE_SYNC;
}

const char *
ks_copy_kind_to_string (KsCopyKind kind)
{
  switch (kind)
    {
    case KS_COPY_HTOD: return "HtoD";
    case KS_COPY_DTOH: return "DtoH";
    case KS_COPY_HTOA: return "HtoA";
    case KS_COPY_ATOH: return "AtoH";
    case KS_COPY_ATOA: return "AtoA";
    case KS_COPY_ATOD: return "AtoD";
    case KS_COPY_DTOA: return "DtoA";
    case KS_COPY_DTOD: return "DtoD";
    case KS_COPY_HTOH: return "HtoH";
    case KS_COPY_PTOP: return "PtoP";
    case KS_COPY_UNKNOWN:
    default:           return "Unknown";
    }
}

const char *
ks_memory_kind_to_string (KsMemoryKind kind)
{
  switch (kind)
    {
    case KS_MEM_PAGEABLE:       return "Pageable";
    case KS_MEM_PINNED:         return "Pinned";
    case KS_MEM_DEVICE:         return "Device";
    case KS_MEM_ARRAY:          return "Array";
    case KS_MEM_MANAGED:        return "Managed";
    case KS_MEM_DEVICE_STATIC:  return "Device Static";
    case KS_MEM_MANAGED_STATIC: return "Managed Static";
    case KS_MEM_UNKNOWN:
    default:                    return "Unknown";
    }
}

const char *
ks_trace_get_metadata (KsTrace    *self,
                       const char *key)
{
  g_return_val_if_fail (KS_IS_TRACE (self), NULL);
  g_return_val_if_fail (key != NULL, NULL);

  return g_hash_table_lookup (self->metadata, key);
}

gboolean
ks_trace_samples_are_python (KsTrace *self)
{
  g_return_val_if_fail (KS_IS_TRACE (self), FALSE);

  return self->format != KS_FORMAT_NSYS_SQLITE &&
         g_strcmp0 (ks_trace_get_metadata (self, "source_format"),
                    ks_format_to_string (KS_FORMAT_NSYS_SQLITE)) != 0;
}

void
ks_trace_get_counts (KsTrace       *self,
                     KsTraceCounts *counts)
{
  g_return_if_fail (KS_IS_TRACE (self));
  g_return_if_fail (counts != NULL);

  memset (counts, 0, sizeof *counts);

  for (guint32 t = 0; t < self->n_tracks; t++)
    {
      const KsTrack *track = &self->tracks[t];

      for (guint32 i = 0; i < track->n_slices; i++)
        counts->by_kind[track->slice_kind[i]]++;
    }

  for (guint32 i = 0; i < self->n_flows; i++)
    {
      counts->flows++;
      if (self->flows[i].kind == KS_FLOW_LAUNCH)
        counts->launch_flows++;
    }

  for (guint32 i = 0; i < self->n_counters; i++)
    counts->counter_samples += self->counters[i].n_samples;

  counts->memory_events = self->n_memory_events;
  counts->instants = self->n_instants;
  counts->samples = self->n_samples;
}

guint32
ks_trace_lookup_string (KsTrace    *self,
                        const char *str)
{
  gpointer value;

  g_return_val_if_fail (KS_IS_TRACE (self), 0);

  if (str == NULL || *str == 0)
    return 0;
  if (g_hash_table_lookup_extended (self->string_index, str, NULL, &value))
    return GPOINTER_TO_UINT (value);
  return KS_NO_INDEX;
}

guint32
ks_trace_find_process (KsTrace *self,
                       gint64   pid)
{
  g_return_val_if_fail (KS_IS_TRACE (self), KS_NO_INDEX);

  for (guint32 i = 0; i < self->n_processes; i++)
    if (self->processes[i].pid == pid)
      return i;
  return KS_NO_INDEX;
}

gboolean
ks_trace_get_activity_span (const KsTrace *self,
                            gint64        *start,
                            gint64        *end)
{
  gint64 lo = G_MAXINT64, hi = G_MININT64;

  g_return_val_if_fail (KS_IS_TRACE ((KsTrace *)self), FALSE);

  for (guint32 t = 0; t < self->n_tracks; t++)
    {
      const KsTrack *track = &self->tracks[t];

      if (track->n_slices == 0)
        continue;
      lo = MIN (lo, track->start[0]);
      /* Ends are sorted within a depth: each depth's last one is its latest. */
      for (guint d = 0; d < track->max_depth; d++)
        if (track->n_by_depth[d] > 0)
          hi = MAX (hi, track->end[track->by_depth[d][track->n_by_depth[d] - 1]]);
    }
  if (self->n_memory_events > 0)
    {
      lo = MIN (lo, self->memory_events[0].ts);
      hi = MAX (hi, self->memory_events[self->n_memory_events - 1].ts);
    }

  if (hi <= lo)
    {
      *start = 0;
      *end = self->duration_ns;
      return FALSE;
    }
  *start = lo;
  *end = hi;
  return TRUE;
}

/* The properties of GPU @device, or NULL when the trace has none. */
guint32
ks_trace_rank_of_group (const KsTrace *self,
                        guint32        group)
{
  /* a job has at most thousands of ranks, looked up once a track */
  for (guint32 i = 0; i < self->n_ranks; i++)
    if (self->ranks[i].group == group)
      return i;
  return KS_NO_INDEX;
}

gint32
ks_trace_rank_of_track (const KsTrace *self,
                        guint32        track)
{
  guint32 rank;

  g_return_val_if_fail (track < self->n_tracks, -1);

  rank = ks_trace_rank_of_group (self, self->tracks[track].group);
  return rank != KS_NO_INDEX ? self->ranks[rank].rank : -1;
}

const char *
ks_rank_source_to_string (KsRankSource source)
{
  switch (source)
    {
    case KS_RANK_FROM_DISTRIBUTED_INFO: return "distributedInfo";
    case KS_RANK_FROM_ENVIRONMENT:      return "environment";
    case KS_RANK_FROM_FILE_NAME:        return "file_name";
    case KS_RANK_FROM_NONE:
    default:                            return "none";
    }
}

const KsGpu *
ks_trace_find_gpu (const KsTrace *self,
                   gint32         device)
{
  guint32 lo = 0, hi = self->n_gpus;

  /* Sorted by device (the builder's finish): a file may list very many. */
  while (lo < hi)
    {
      guint32 mid = lo + (hi - lo) / 2;

      if (self->gpus[mid].device < device)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo < self->n_gpus && self->gpus[lo].device == device ? &self->gpus[lo] : NULL;
}

gsize
ks_trace_get_memory_size (KsTrace *self,
                          gsize   *strings_and_args)
{
  gsize total = sizeof *self;
  gsize strings = 0;

  g_return_val_if_fail (KS_IS_TRACE (self), 0);

  for (guint32 t = 0; t < self->n_tracks; t++)
    {
      const KsTrack *track = &self->tracks[t];
      gsize per_slice = 2 * sizeof (gint64) + 5 * sizeof (guint32) + 2 + sizeof (guint32);

      if (track->gpu != NULL)
        per_slice += sizeof (KsGpuInfo);
      total += sizeof *track + per_slice * track->n_slices;
      total += track->max_depth * (sizeof (guint32 *) + sizeof (guint32));
    }

  for (guint32 i = 0; i < self->n_counters; i++)
    total += sizeof (KsCounter) + self->counters[i].n_samples * (sizeof (gint64) + sizeof (double));

  total += self->n_processes * sizeof (KsProcess);
  total += self->n_threads * sizeof (KsThread);
  total += self->n_gpus * sizeof (KsGpu);
  total += self->n_flows * sizeof (KsFlow);
  total += self->n_memory_events * sizeof (KsMemoryEvent);
  total += self->n_instants * sizeof (KsInstant);
  total += self->n_stack_nodes * sizeof (KsStackNode);
  total += self->n_samples * sizeof (KsSample);

  if (self->args != NULL)
    strings += ks_args_store_get_memory_size (self->args);
  strings += self->n_strings * sizeof (char *);
  for (guint32 i = 0; i < self->n_strings; i++)
    strings += strlen (self->strings[i]) + 1;
  /* The string index: a hash table node is about four pointers. */
  strings += self->n_strings * 4 * sizeof (gpointer);

  if (strings_and_args != NULL)
    *strings_and_args = strings;

  return total + strings;
}

guint32
ks_track_first_starting_from (const KsTrack *track,
                              gint64         t)
{
  guint32 lo = 0, hi;

  g_return_val_if_fail (track != NULL, 0);

  hi = track->n_slices;
  while (lo < hi)
    {
      guint32 mid = lo + (hi - lo) / 2;

      if (track->start[mid] < t)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

guint32
ks_track_depth_lower_bound (const KsTrack *track,
                            guint          depth,
                            gint64         t)
{
  const guint32 *idx;
  guint32 lo = 0;
  guint32 hi;

  if (depth >= track->max_depth)
    return 0;

  idx = track->by_depth[depth];
  hi = track->n_by_depth[depth];

  while (lo < hi)
    {
      guint32 mid = lo + (hi - lo) / 2;

      if (track->end[idx[mid]] > t)
        hi = mid;
      else
        lo = mid + 1;
    }

  return lo;
}

/* Last index in by_depth[depth] whose slice starts at or before @t, or -1. */
static gint64
depth_last_starting_before (const KsTrack *track,
                            guint          depth,
                            gint64         t)
{
  const guint32 *idx = track->by_depth[depth];
  guint32 lo = 0;
  guint32 hi = track->n_by_depth[depth];

  while (lo < hi)
    {
      guint32 mid = lo + (hi - lo) / 2;

      if (track->start[idx[mid]] <= t)
        lo = mid + 1;
      else
        hi = mid;
    }

  return (gint64)lo - 1;
}

void
ks_track_foreach_in_range (const KsTrack *track,
                           gint64         t0,
                           gint64         t1,
                           KsSliceFunc    func,
                           gpointer       user_data)
{
  g_return_if_fail (track != NULL);
  g_return_if_fail (func != NULL);

  for (guint d = 0; d < track->max_depth; d++)
    {
      const guint32 *idx = track->by_depth[d];
      guint32 n = track->n_by_depth[d];
      /* Include zero-length slices that sit exactly at t0. */
      guint32 i = ks_track_depth_lower_bound (track, d, t0 > G_MININT64 ? t0 - 1 : t0);

      for (; i < n; i++)
        {
          guint32 s = idx[i];

          if (track->start[s] >= t1)
            break;
          if (track->end[s] <= t0 && !(track->start[s] == track->end[s] && track->start[s] == t0))
            continue;
          if (!func (track, s, user_data))
            return;
        }
    }
}

guint32
ks_track_slice_at (const KsTrack *track,
                   gint64         t,
                   guint          max_depth)
{
  guint32 found = KS_NO_INDEX;

  g_return_val_if_fail (track != NULL, KS_NO_INDEX);

  /* A depth with nothing at @t does not end the search: where slices
   * overlap without nesting (a Python frame ending just before the
   * operator it called), a lane stays taken after its slice ended and
   * deeper lanes go on. No slice starting by @t at one depth means none
   * deeper does. */
  for (guint d = 0; d < track->max_depth && d <= max_depth; d++)
    {
      gint64 i = depth_last_starting_before (track, d, t);
      guint32 s;

      if (i < 0)
        break;
      s = track->by_depth[d][i];
      if (track->end[s] > t || (track->end[s] == t && track->start[s] == t))
        found = s;
    }

  return found;
}

guint32
ks_track_operator_at (const KsTrack *track,
                      gint64         t)
{
  g_return_val_if_fail (track != NULL, KS_NO_INDEX);

  /* Deepest first, each depth on its own (see ks_track_slice_at). */
  for (guint d = track->max_depth; d-- > 0;)
    {
      gint64 i = depth_last_starting_before (track, d, t);
      guint32 s;

      if (i < 0)
        continue;
      s = track->by_depth[d][i];
      if ((track->end[s] > t || (track->end[s] == t && track->start[s] == t)) &&
          track->slice_kind[s] == KS_SLICE_CPU_OP)
        return s;
    }
  return KS_NO_INDEX;
}

guint32
ks_track_parent_slice (const KsTrack *track,
                       guint32        slice)
{
  guint depth;
  gint64 i;

  g_return_val_if_fail (track != NULL, KS_NO_INDEX);
  g_return_val_if_fail (slice < track->n_slices, KS_NO_INDEX);

  depth = track->depth[slice];
  if (depth == 0)
    return KS_NO_INDEX;

  i = depth_last_starting_before (track, depth - 1, track->start[slice]);
  if (i < 0)
    return KS_NO_INDEX;
  return track->by_depth[depth - 1][i];
}

gint64
ks_track_self_time (const KsTrack *track,
                    guint32        slice)
{
  gint64 start, end, self;
  guint depth;

  g_return_val_if_fail (track != NULL, 0);
  g_return_val_if_fail (slice < track->n_slices, 0);

  start = track->start[slice];
  end = track->end[slice];
  self = end - start;
  depth = track->depth[slice] + 1;

  if (depth < track->max_depth)
    {
      const guint32 *idx = track->by_depth[depth];
      guint32 n = track->n_by_depth[depth];
      guint32 i = ks_track_depth_lower_bound (track, depth, start);

      /* Children of a zero-length sibling before us end at start: skip. */
      for (; i < n && track->start[idx[i]] < end; i++)
        {
          guint32 c = idx[i];

          if (track->start[c] < start)
            continue;
          /* a slice beside us (overlapping us partly) has its own children */
          if (track->start[c] > start && ks_track_parent_slice (track, c) != slice)
            continue;
          self -= MIN (track->end[c], end) - track->start[c];
        }
    }

  return MAX (self, 0);
}

const KsSample *
ks_trace_thread_samples (const KsTrace *self,
                         guint32        thread,
                         guint32       *n_samples)
{
  guint32 lo = 0, hi = self->n_samples, first;

  /* sorted by thread: two binary searches */
  while (lo < hi)
    {
      guint32 mid = lo + (hi - lo) / 2;

      if (self->samples[mid].thread < thread)
        lo = mid + 1;
      else
        hi = mid;
    }
  first = lo;
  hi = self->n_samples;
  while (lo < hi)
    {
      guint32 mid = lo + (hi - lo) / 2;

      if (self->samples[mid].thread <= thread)
        lo = mid + 1;
      else
        hi = mid;
    }
  *n_samples = lo - first;
  return lo > first ? &self->samples[first] : NULL;
}
