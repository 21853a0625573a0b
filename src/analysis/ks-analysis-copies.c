/* ks-analysis-copies.c: achieved memcpy bandwidth, per copy and per copy
 * kind over time
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-analysis-private.h"

/* Per rank: the GPU 0 of two ranks is two GPUs (of two hosts), or one
 * shared by two processes, whose copies are each rank's own. */
static KsCopyKindStats *
find_kind (GArray  *kinds,
           gint32   rank,
           gint32   device,
           guint8   kind)
{
  KsCopyKindStats fresh;

  for (guint i = 0; i < kinds->len; i++)
    {
      KsCopyKindStats *k = &g_array_index (kinds, KsCopyKindStats, i);

      if (k->rank == rank && k->device == device && k->kind == kind)
        return k;
    }
  memset (&fresh, 0, sizeof fresh);
  fresh.rank = rank;
  fresh.device = device;
  fresh.kind = kind;
  g_array_append_val (kinds, fresh);
  return &g_array_index (kinds, KsCopyKindStats, kinds->len - 1);
}

static int
compare_kinds (gconstpointer a,
               gconstpointer b)
{
  const KsCopyKindStats *ka = a;
  const KsCopyKindStats *kb = b;

  if (ka->rank != kb->rank)
    return ka->rank < kb->rank ? -1 : 1;
  if (ka->device != kb->device)
    return ka->device < kb->device ? -1 : 1;
  return (ka->kind > kb->kind) - (ka->kind < kb->kind);
}

/* A copy's bandwidth: the PyTorch profiler's own "memory bandwidth
 * (GB/s)", from its nanosecond times, where it gives one; else bytes
 * over the duration (bytes per ns are GB/s), which a trace in whole
 * microseconds rounds; < 0 for a copy of no duration. */
static double
copy_rate (KsTrace          *trace,
           const KsTrack    *track,
           guint32           slice,
           const KsCopyRate *rate,
           GString          *args_buf)
{
  double gbps;

  if (ks_args_get_double (ks_trace_slice_args (trace, track, slice, args_buf),
                          "memory bandwidth (GB/s)", &gbps) && gbps > 0 && isfinite (gbps))
    return gbps;
  return rate->dur_ns > 0 ? (double)rate->bytes / rate->dur_ns : -1;
}

/* Each kind's mean: its bytes over the time its copies took at their
 * rates. A copy without a rate (no duration, none from the profiler)
 * is left out, so that its bytes do not count without their time. */
static void
mean_rates (KsAnalysis *self,
            KsTrace    *trace)
{
  g_autofree double *bytes = g_new0 (double, MAX (self->copy_kinds->len, 1));
  g_autofree double *ns = g_new0 (double, MAX (self->copy_kinds->len, 1));

  for (guint c = 0; c < self->copies->len; c++)
    {
      const KsCopyRate *rate = &g_array_index (self->copies, KsCopyRate, c);
      gint32 rank = trace->n_ranks > 1 ? ks_trace_rank_of_track (trace, rate->track) : -1;
      KsCopyKindStats *k = find_kind (self->copy_kinds, rank, rate->device, rate->kind);
      guint i = k - (KsCopyKindStats *)(gpointer)self->copy_kinds->data;

      if (rate->gbps > 0)
        {
          bytes[i] += rate->bytes;
          ns[i] += rate->bytes / rate->gbps;
        }
      else if (rate->dur_ns > 0)
        ns[i] += rate->dur_ns;
    }
  for (guint i = 0; i < self->copy_kinds->len; i++)
    g_array_index (self->copy_kinds, KsCopyKindStats, i).mean_gbps = ns[i] > 0 ? bytes[i] / ns[i] : -1;
}

void
_ks_analysis_copies (KsAnalysis *self,
                     Context    *ctx)
{
  KsTrace *trace = ctx->trace;
  gint64 span = MAX (trace->duration_ns, 1);
  g_autoptr(GString) args_buf = g_string_new (NULL);

  for (guint d = 0; d < ctx->devices->len; d++)
    {
      DeviceState *ds = &g_array_index (ctx->devices, DeviceState, d);

      for (guint i = 0; i < ds->streams->len; i++)
        {
          guint32 t = g_array_index (ds->streams, guint32, i);
          const KsTrack *track = &trace->tracks[t];
          gint32 rank = trace->n_ranks > 1 ? ks_trace_rank_of_track (trace, t) : -1;

          for (guint32 s = 0; s < track->n_slices; s++)
            {
              KsCopyRate rate;
              KsCopyKindStats *k;

              if (track->slice_kind[s] != KS_SLICE_MEMCPY || track->gpu == NULL)
                continue;
              memset (&rate, 0, sizeof rate);
              rate.track = t;
              rate.slice = s;
              rate.device = ds->device;
              rate.kind = track->gpu[s].copy.copy_kind;
              rate.bytes = track->gpu[s].copy.bytes;
              rate.start = track->start[s];
              rate.dur_ns = track->end[s] - track->start[s];
              rate.gbps = copy_rate (trace, track, s, &rate, args_buf);
              g_array_append_val (self->copies, rate);

              k = find_kind (self->copy_kinds, rank, ds->device, rate.kind);
              k->count++;
              k->bytes += rate.bytes;
              k->time_ns += rate.dur_ns;
              k->max_gbps = MAX (k->max_gbps, rate.gbps);
            }
        }
    }

  mean_rates (self, trace);

  /* The series: the bytes each bucket of the trace moved, a copy's
   * spread evenly over its duration, per second of the bucket. */
  for (guint i = 0; i < self->copy_kinds->len; i++)
    {
      KsCopyKindStats *k = &g_array_index (self->copy_kinds, KsCopyKindStats, i);

      k->bucket_ns = span / KS_COPY_N_BUCKETS + (span % KS_COPY_N_BUCKETS != 0);
      k->n_buckets = (guint)(span / k->bucket_ns + (span % k->bucket_ns != 0));
      k->gbps = g_new0 (double, k->n_buckets);
    }
  for (guint c = 0; c < self->copies->len; c++)
    {
      const KsCopyRate *rate = &g_array_index (self->copies, KsCopyRate, c);
      gint32 rank = trace->n_ranks > 1 ? ks_trace_rank_of_track (trace, rate->track) : -1;
      KsCopyKindStats *k = find_kind (self->copy_kinds, rank, rate->device, rate->kind);
      gint64 end = rate->start + rate->dur_ns;

      if (rate->dur_ns <= 0)
        continue;
      for (gint64 b = rate->start / k->bucket_ns; b < k->n_buckets && b * k->bucket_ns < end; b++)
        {
          gint64 b0 = b * k->bucket_ns;
          gint64 ov = MIN (end, b0 + k->bucket_ns) - MAX (rate->start, b0);

          if (ov > 0)
            k->gbps[b] += (double)rate->bytes * ov / rate->dur_ns;
        }
    }
  for (guint i = 0; i < self->copy_kinds->len; i++)
    {
      KsCopyKindStats *k = &g_array_index (self->copy_kinds, KsCopyKindStats, i);

      for (guint b = 0; b < k->n_buckets; b++)
        {
          gint64 b0 = (gint64)b * k->bucket_ns;
          gint64 len = MIN (b0 + k->bucket_ns, span) - b0;

          k->gbps[b] = len > 0 ? k->gbps[b] / len : 0;
        }
    }
  g_array_sort (self->copy_kinds, compare_kinds);
}
