/* ks-analysis-queues.c: HTA's queue length, the GPU operations launched
 * on each stream and not yet finished
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include <string.h>

#include "ks-analysis-private.h"
#include "ks-gpu-series.h"

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
  KsCounter c;
  double weighted = 0;

  /* the series the timeline draws: its samples are the statistics' */
  q->n_ops = ks_gpu_series_build_queue (ctx->trace, t, ctx->launch_of_gpu[t], &c);
  if (c.n_samples == 0)
    return;

  q->start = c.ts[0];
  q->end = c.ts[c.n_samples - 1];
  q->bucket_ns = MAX ((q->end - q->start) / KS_QUEUE_N_BUCKETS + 1, 1);
  q->n_buckets = (guint)((q->end - q->start) / q->bucket_ns + 1);
  q->bucket_mean = g_new0 (double, q->n_buckets);
  q->bucket_max = g_new0 (guint, q->n_buckets);

  for (guint32 i = 0; i < c.n_samples; i++)
    {
      guint len = (guint)c.value[i];

      if (len > q->max)
        {
          q->max = len;
          q->max_ts = c.ts[i];
        }
      if (i + 1 < c.n_samples)
        hold (q, &weighted, len, c.ts[i], c.ts[i + 1]);
    }
  g_free (c.ts);
  g_free (c.value);

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
