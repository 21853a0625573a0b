/* ks-analysis-ranges.c: CUPTI range-profiler measurements
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include <string.h>

#include "ks-analysis-private.h"

/* Kineto's kineto__tensor_core_insts metric, and the other tensor-pipe
 * counters of the CUPTI profiler (sm__inst_executed_pipe_tensor_op_hmma…) */
#define TENSOR_PIPE_PREFIX "sm__inst_executed_pipe_tensor"

typedef struct
{
  gint64  start;
  guint32 track;
  guint32 slice;
} RangeRef;

static int
compare_refs (gconstpointer a,
              gconstpointer b)
{
  const RangeRef *ra = a, *rb = b;

  if (ra->start != rb->start)
    return ra->start < rb->start ? -1 : 1;
  if (ra->track != rb->track)
    return ra->track < rb->track ? -1 : 1;
  return (ra->slice > rb->slice) - (ra->slice < rb->slice);
}

/* Kineto writes the range profiler's measurements as cuda_profiler_range
 * slices, which the readers put on a row of the device's process (pid =
 * device, as for the kernels they replace). Each numeric member of a
 * range's args is a counter, as HTA's CUPTI counter analysis reads them.
 * A per-kernel range (profiler_measure_per_kernel) is named after its
 * kernel: a tensor-pipe counter then says whether that kernel used tensor
 * cores, and the analyses take that over what the name suggests. */
void
_ks_analysis_profiler_ranges (KsAnalysis *self,
                              Context    *ctx)
{
  KsTrace *trace = ctx->trace;
  guint32 cat = ks_trace_lookup_string (trace, "cuda_profiler_range");
  g_autoptr(GArray) refs = NULL;
  g_autoptr(GHashTable) devices = NULL;

  if (cat == 0)
    return;

  refs = g_array_new (FALSE, FALSE, sizeof (RangeRef));
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind != KS_TRACK_ASYNC)
        continue;
      for (guint32 s = 0; s < track->n_slices; s++)
        if (track->category[s] == cat)
          {
            RangeRef ref = { track->start[s], t, s };

            g_array_append_val (refs, ref);
          }
    }
  g_array_sort (refs, compare_refs);

  devices = g_hash_table_new (g_int64_hash, g_int64_equal);
  for (guint i = 0; i < refs->len; i++)
    {
      const RangeRef *ref = &g_array_index (refs, RangeRef, i);
      const KsTrack *track = &trace->tracks[ref->track];
      gint64 *device = track->process < trace->n_processes ? &trace->processes[track->process].pid : NULL;
      KsArgsIter iter;
      const char *key, *value;
      gsize key_len, value_len;
      gboolean quoted;

      if (device != NULL)
        g_hash_table_add (devices, device);
      if (!ks_args_iter_init (&iter, ks_trace_slice_args (trace, track, ref->slice)))
        continue;
      while (ks_args_iter_next (&iter, &key, &key_len, &value, &value_len, &quoted))
        {
          KsProfilerCounter c = { 0 };
          guint32 name = track->name_id[ref->slice];

          if (quoted || !ks_args_parse_double (value, value_len, &c.value))
            continue;
          c.range = i;
          c.device = device != NULL ? *device : -1;
          c.name = name;
          c.counter = g_string_chunk_insert_len (self->strings, key, key_len);
          c.start = track->start[ref->slice];
          c.end = track->end[ref->slice];
          c.track = ref->track;
          c.slice = ref->slice;
          g_array_append_val (self->profiler_counters, c);

          if (name != 0 && key_len >= strlen (TENSOR_PIPE_PREFIX) &&
              memcmp (key, TENSOR_PIPE_PREFIX, strlen (TENSOR_PIPE_PREFIX)) == 0)
            {
              ctx->name_flags[name] |= NAME_TC_MEASURED;
              if (c.value > 0)
                ctx->name_flags[name] |= NAME_TC_MEASURED_USED;
            }
        }
    }
  self->profiler_ranges.n_ranges = refs->len;
  self->profiler_ranges.n_devices = g_hash_table_size (devices);
}
