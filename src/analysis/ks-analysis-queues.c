/* ks-analysis-queues.c: HTA's queue length, the GPU operations launched
 * on each stream and not yet finished
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ks-analysis-private.h"

static int
compare_ts (const void *a,
            const void *b)
{
  gint64 x = *(const gint64 *)a;
  gint64 y = *(const gint64 *)b;

  return (x > y) - (x < y);
}

/* Launches come in stream order, and a stream runs one operation after
 * another, so both lists are nearly always sorted already: check before
 * paying for a sort. */
static void
ensure_sorted (gint64 *v,
               gsize   n)
{
  for (gsize i = 1; i < n; i++)
    if (v[i] < v[i - 1])
      {
        qsort (v, n, sizeof (gint64), compare_ts);
        return;
      }
}

/* Adds the queue length @len held over [a, b) to the statistics. */
static void
hold (KsQueueStats *q,
      double       *weighted,
      guint         len,
      gint64        a,
      gint64        b)
{
  if (b <= a)
    return;
  *weighted += (double)len * (b - a);
  if (len >= KS_QUEUE_LIMIT)
    q->at_limit_ns += b - a;
  /* the buckets [a, b) touches */
  for (gint64 k = (a - q->start) / q->bucket_ns; k < q->n_buckets; k++)
    {
      gint64 b0 = q->start + k * q->bucket_ns;
      gint64 b1 = b0 + q->bucket_ns;
      gint64 ov = MIN (b, b1) - MAX (a, b0);

      if (b0 >= b)
        break;
      if (ov > 0)
        {
          q->bucket_mean[k] += (double)len * ov;
          q->bucket_max[k] = MAX (q->bucket_max[k], len);
        }
    }
}

static void
stream_queue (Context      *ctx,
              guint32       t,
              KsQueueStats *q)
{
  const KsTrace *trace = ctx->trace;
  const KsTrack *track = &trace->tracks[t];
  const guint32 *launch = ctx->launch_of_gpu[t];
  g_autofree gint64 *ups = g_new (gint64, MAX (track->n_slices, 1));
  g_autofree gint64 *downs = g_new (gint64, MAX (track->n_slices, 1));
  gsize n = 0, i = 0, j = 0;
  double weighted = 0;
  guint len = 0;
  gint64 now;

  for (guint32 s = 0; s < track->n_slices; s++)
    {
      const KsFlow *flow;

      if (!(GPU_WORK_KINDS & KIND_BIT (track->slice_kind[s])) || launch[s] == KS_NO_INDEX)
        continue;
      flow = &trace->flows[launch[s]];
      ups[n] = trace->tracks[flow->from_track].start[flow->from_slice];
      /* an operation cannot end before it was launched */
      downs[n] = MAX (track->end[s], ups[n]);
      n++;
    }
  q->n_ops = n;
  if (n == 0)
    return;
  ensure_sorted (ups, n);
  ensure_sorted (downs, n);

  q->start = ups[0];
  q->end = downs[n - 1];
  q->bucket_ns = MAX ((q->end - q->start) / KS_QUEUE_N_BUCKETS + 1, 1);
  q->n_buckets = (guint)((q->end - q->start) / q->bucket_ns + 1);
  q->bucket_mean = g_new0 (double, q->n_buckets);
  q->bucket_max = g_new0 (guint, q->n_buckets);

  /* Ends before launches at the same time: an operation that ends as
   * another is launched does not count twice. */
  now = q->start;
  while (i < n || j < n)
    {
      gboolean up = j >= n || (i < n && ups[i] < downs[j]);
      gint64 ts = up ? ups[i] : downs[j];

      hold (q, &weighted, len, now, ts);
      now = ts;
      if (up)
        {
          len++;
          i++;
          if (len > q->max)
            {
              q->max = len;
              q->max_ts = ts;
            }
        }
      else
        {
          len--;
          j++;
        }
    }

  q->mean = q->end > q->start ? weighted / (q->end - q->start) : 0;
  for (guint k = 0; k < q->n_buckets; k++)
    {
      gint64 b0 = q->start + k * q->bucket_ns;
      gint64 b1 = MIN (b0 + q->bucket_ns, q->end);

      q->bucket_mean[k] = b1 > b0 ? q->bucket_mean[k] / (b1 - b0) : 0;
    }
}

void
_ks_analysis_queues (KsAnalysis *self,
                     Context    *ctx)
{
  for (guint d = 0; d < ctx->devices->len; d++)
    {
      DeviceState *ds = &g_array_index (ctx->devices, DeviceState, d);

      for (guint i = 0; i < ds->streams->len; i++)
        {
          guint32 t = g_array_index (ds->streams, guint32, i);
          KsQueueStats q;

          if (ctx->launch_of_gpu[t] == NULL)
            continue;
          memset (&q, 0, sizeof q);
          q.track = t;
          q.device = ds->device;
          q.stream = ctx->trace->tracks[t].stream;
          stream_queue (ctx, t, &q);
          if (q.n_ops > 0)
            g_array_append_val (self->queues, q);
        }
    }
}
