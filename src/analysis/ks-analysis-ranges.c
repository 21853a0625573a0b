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

static void
add_ref (GArray  *refs,
         guint32  track,
         guint32  slice,
         gint64   start)
{
  RangeRef ref = { start, track, slice };

  g_array_append_val (refs, ref);
}

/* The cudaLaunchKernel calls (cudaLaunchKernelExC too: HTA matches the
 * prefix), in time order. */
static GArray *
kernel_launches (KsTrace *trace)
{
  GArray *launches = g_array_new (FALSE, FALSE, sizeof (RangeRef));
  guint8 *is_launch = g_new0 (guint8, MAX (trace->n_strings, 1));

  for (guint32 i = 0; i < trace->n_strings; i++)
    is_launch[i] = g_str_has_prefix (trace->strings[i], "cudaLaunchKernel");
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind != KS_TRACK_THREAD)
        continue;
      for (guint32 s = 0; s < track->n_slices; s++)
        if (track->slice_kind[s] == KS_SLICE_CUDA_RUNTIME && is_launch[track->name_id[s]])
          add_ref (launches, t, s, track->start[s]);
    }
  g_free (is_launch);
  g_array_sort (launches, compare_refs);
  return launches;
}

/* The innermost operator around @launch's start, and the outermost of
 * the operators nested around it (name string ids, 0 when none). */
static void
launch_operators (KsTrace        *trace,
                  const RangeRef *launch,
                  guint32        *inner,
                  guint32        *outer)
{
  const KsTrack *track = &trace->tracks[launch->track];
  guint32 op = ks_track_operator_at (track, launch->start);
  guint32 up;

  *inner = *outer = 0;
  if (op == KS_NO_INDEX)
    return;
  *inner = track->name_id[op];
  while ((up = ks_track_parent_slice (track, op)) != KS_NO_INDEX && track->slice_kind[up] == KS_SLICE_CPU_OP)
    op = up;
  *outer = track->name_id[op];
}

/* Kineto writes the range profiler's measurements as cuda_profiler_range
 * slices, which the readers put on a row of the device's process (pid =
 * device, as for the kernels they replace). Each numeric member of a
 * range's args is a counter, as HTA's CUPTI counter analysis reads them.
 * The ranges carry no correlation id; as HTA, range i is the kernel of the
 * i-th cudaLaunchKernel call, when the counts agree, which gives its
 * operators.
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
  g_autoptr(GArray) launches = NULL;
  g_autoptr(GHashTable) devices = NULL;
  g_autoptr(GString) args = NULL;

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
          add_ref (refs, t, s, track->start[s]);
    }
  if (refs->len == 0)
    return;
  g_array_sort (refs, compare_refs);
  launches = kernel_launches (trace);
  self->profiler_ranges.n_launches = launches->len;
  self->profiler_ranges.launches_matched = launches->len == refs->len;

  devices = g_hash_table_new (g_int64_hash, g_int64_equal);
  args = g_string_new (NULL);
  for (guint i = 0; i < refs->len; i++)
    {
      const RangeRef *ref = &g_array_index (refs, RangeRef, i);
      const KsTrack *track = &trace->tracks[ref->track];
      gint64 *device = track->process < trace->n_processes ? &trace->processes[track->process].pid : NULL;
      KsArgsIter iter;
      const char *key, *value;
      gsize key_len, value_len;
      gboolean quoted;
      guint32 inner = 0, outer = 0;

      if (self->profiler_ranges.launches_matched)
        launch_operators (trace, &g_array_index (launches, RangeRef, i), &inner, &outer);
      if (device != NULL)
        g_hash_table_add (devices, device);
      if (!ks_args_iter_init (&iter, ks_trace_slice_args (trace, track, ref->slice, args)))
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
          c.operator = inner;
          c.top_operator = outer;
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
