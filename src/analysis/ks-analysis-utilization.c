/* ks-analysis-utilization.c: GPU utilization as NVML sampled it
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-analysis"

/* A recording's NVML rows and an nvidia-smi log have no kernels to
 * measure busy time with; their "GPU utilization" counter is what there
 * is: NVML's share of the last sample period in which a kernel ran.
 * Per GPU its time-weighted mean, the time below 50 % and 30 %, and the
 * stretches below 50 %, ranked by length. */

#include "config.h"

#include <string.h>

#include "ks-analysis-private.h"

#define UTILIZATION_COUNTER "GPU utilization"

static int
compare_stretches (gconstpointer a,
                   gconstpointer b)
{
  const KsIdleStretch *x = a;
  const KsIdleStretch *y = b;
  gint64 dx = x->end - x->start, dy = y->end - y->start;

  if (dx != dy)
    return dx > dy ? -1 : 1;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return (x->device > y->device) - (x->device < y->device);
}

static int
compare_utilization (gconstpointer a,
                     gconstpointer b)
{
  const KsGpuUtilization *x = a;
  const KsGpuUtilization *y = b;

  return (x->device > y->device) - (x->device < y->device);
}

static guint32
gpu_name (KsTrace *trace,
          gint32   device)
{
  for (guint32 i = 0; i < trace->n_gpus; i++)
    if (trace->gpus[i].device == device)
      return trace->gpus[i].name;
  return 0;
}

/* A lone sample holds 1 s: nvidia-smi's -l 1. */
gint64
_ks_sample_hold (const KsCounter *c,
                 guint32          i)
{
  if (i + 1 < c->n_samples)
    return c->ts[i + 1] - c->ts[i];
  if (c->n_samples > 1)
    return c->ts[i] - c->ts[i - 1];
  return G_USEC_PER_SEC * 1000;
}

static void
close_stretch (GArray        *stretches,
               KsIdleStretch *open,
               double         weighted)
{
  if (open->n_samples == 0)
    return;
  open->mean_pct = open->end > open->start ? weighted / (open->end - open->start) : 0;
  g_array_append_val (stretches, *open);
  open->n_samples = 0;
}

static void
one_gpu (KsAnalysis      *self,
         Context         *ctx,
         const KsCounter *c)
{
  KsGpuUtilization u = { 0 };
  KsIdleStretch open = { 0 };
  double weighted = 0, open_weighted = 0;
  gint64 span;
  guint first_stretch = self->idle_stretches->len;

  u.device = c->device;
  u.name = gpu_name (ctx->trace, c->device);
  u.n_samples = c->n_samples;
  u.start = c->ts[0];
  u.max_pct = c->value[0];

  for (guint32 i = 0; i < c->n_samples; i++)
    {
      double v = CLAMP (c->value[i], 0, 100);
      gint64 d = MAX (_ks_sample_hold (c, i), 0);

      weighted += v * d;
      u.max_pct = MAX (u.max_pct, v);
      if (v < KS_UTILIZATION_POOR_PCT)
        u.below_poor_ns += d;
      if (v < KS_UTILIZATION_LOW_PCT)
        {
          u.below_low_ns += d;
          if (open.n_samples == 0)
            {
              open.device = c->device;
              open.start = c->ts[i];
              open_weighted = 0;
            }
          open.end = c->ts[i] + d;
          open.n_samples++;
          open_weighted += v * d;
        }
      else
        close_stretch (self->idle_stretches, &open, open_weighted);
      u.end = c->ts[i] + d;
    }
  close_stretch (self->idle_stretches, &open, open_weighted);

  span = u.end - u.start;
  u.mean_pct = span > 0 ? weighted / span : CLAMP (c->value[0], 0, 100);
  u.below_low_pct = span > 0 ? 100.0 * u.below_low_ns / span : 0;
  u.below_poor_pct = span > 0 ? 100.0 * u.below_poor_ns / span : 0;
  u.n_idle = self->idle_stretches->len - first_stretch;
  for (guint i = first_stretch; i < self->idle_stretches->len; i++)
    {
      const KsIdleStretch *s = &g_array_index (self->idle_stretches, KsIdleStretch, i);

      u.longest_idle_ns = MAX (u.longest_idle_ns, s->end - s->start);
    }
  g_array_append_val (self->utilization, u);
}

void
_ks_analysis_utilization (KsAnalysis *self,
                          Context    *ctx)
{
  KsTrace *trace = ctx->trace;

  for (guint32 i = 0; i < trace->n_counters; i++)
    {
      const KsCounter *c = &trace->counters[i];

      if (c->device < 0 || c->process != KS_NO_INDEX || c->n_samples == 0 ||
          strcmp (ks_trace_string (trace, c->name), UTILIZATION_COUNTER) != 0 ||
          !_ks_context_device_wanted (ctx, c->device))
        continue;
      one_gpu (self, ctx, c);
    }
  g_array_sort (self->utilization, compare_utilization);
  g_array_sort (self->idle_stretches, compare_stretches);
}
