/* ks-analysis-activity.c: the GPU's own activity counters beside busy time
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-analysis"

/* Busy time (kernels, or NVML's utilization where there are none) says
 * how long some kernel ran, not how much of the GPU it used: a one-block
 * kernel that never ends is 100 % busy. GPM's "SM activity" and "Tensor
 * activity" rows (a recording's NVML sampler, nvidia-smi dmon
 * --gpm-metrics) say that. Per GPU their time-weighted mean over the
 * window its busy time is measured in, per step over the step, and an
 * advice where the two disagree. A GPM value is the mean over the time
 * since the previous sample, so each holds back to the sample before. */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "ks-analysis-private.h"
#include "ks-format.h"
#include "ks-gpm.h"

#define UTILIZATION_COUNTER "GPU utilization"
/* A lone sample stands for the second before it (nvidia-smi's -l 1). */
#define LONE_SAMPLE_NS G_GINT64_CONSTANT (1000000000)
/* The advice: busy at least this much, SMs active under half of it. */
#define BUSY_PCT 60.0

typedef struct
{
  const KsCounter *sm;
  const KsCounter *tensor;
  const KsCounter *utilization;
} DeviceRows;

/* The first sample of @c whose time is after @a: the samples before it
 * end by @a. The times are in order. */
static guint32
first_after (const KsCounter *c,
             gint64           a)
{
  guint32 lo = 0, hi = c->n_samples;

  while (lo < hi)
    {
      guint32 mid = lo + (hi - lo) / 2;

      if (c->ts[mid] <= a)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

/* The time-weighted mean of @c over [@a, @b), each sample holding back
 * to the one before; < 0 when no sample covers any of it. A search
 * finds the first sample: a recording's thousands of steps each take
 * only their own samples. */
static double
window_mean (const KsCounter *c,
             gint64           a,
             gint64           b,
             guint           *n_samples)
{
  double weighted = 0;
  gint64 covered = 0;

  if (n_samples != NULL)
    *n_samples = 0;
  if (c == NULL || b <= a)
    return -1;
  for (guint32 i = first_after (c, a); i < c->n_samples; i++)
    {
      gint64 from = i > 0 ? c->ts[i - 1] : c->n_samples > 1 ? c->ts[0] - (c->ts[1] - c->ts[0])
                                                              : c->ts[0] - LONE_SAMPLE_NS;
      gint64 s = MAX (from, a), e = MIN (c->ts[i], b);

      if (from >= b)
        break;
      if (e <= s)
        continue;
      weighted += CLAMP (c->value[i], 0, 100) * (double) (e - s);
      covered += e - s;
      if (n_samples != NULL)
        (*n_samples)++;
    }
  return covered > 0 ? weighted / covered : -1;
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

static int
compare_device (gconstpointer a,
                gconstpointer b)
{
  const KsGpuActivity *x = a;
  const KsGpuActivity *y = b;

  return (x->device > y->device) - (x->device < y->device);
}

static void
one_gpu (KsAnalysis       *self,
         Context          *ctx,
         gint32            device,
         const DeviceRows *rows)
{
  const KsGpuSummary *gpu = ks_analysis_get_gpu (self, device);
  const KsCounter *sm = rows->sm;
  KsGpuActivity a = { 0 };

  a.device = device;
  a.name = gpu_name (ctx->trace, device);
  a.busy_pct = -1;
  if (gpu != NULL && gpu->window_ns > 0)
    {
      a.start = gpu->window_start;
      a.end = gpu->window_end;
      a.busy_pct = gpu->busy_pct;
      a.busy_source = KS_BUSY_KERNELS;
    }
  else
    {
      /* no kernels: the span of the samples, NVML's utilization over it */
      a.start = sm->n_samples > 1 ? sm->ts[0] - (sm->ts[1] - sm->ts[0]) : sm->ts[0] - LONE_SAMPLE_NS;
      a.end = sm->ts[sm->n_samples - 1];
      a.busy_pct = window_mean (rows->utilization, a.start, a.end, NULL);
      a.busy_source = a.busy_pct >= 0 ? KS_BUSY_UTILIZATION : KS_BUSY_NONE;
    }
  a.sm_active_pct = window_mean (sm, a.start, a.end, &a.n_samples);
  a.tensor_active_pct = window_mean (rows->tensor, a.start, a.end, NULL);
  if (a.n_samples > 0)
    g_array_append_val (self->activity, a);
}

static int
compare_step_device (gconstpointer a,
                     gconstpointer b)
{
  const KsStepActivity *x = a;
  const KsStepActivity *y = b;

  if (x->step != y->step)
    return x->step < y->step ? -1 : 1;
  return (x->device > y->device) - (x->device < y->device);
}

static void
steps (KsAnalysis *self,
       GHashTable *devices)
{
  GHashTableIter iter;
  gpointer key, value;

  for (guint i = 0; i < self->steps->len; i++)
    {
      const KsStep *step = &g_array_index (self->steps, KsStep, i);

      g_hash_table_iter_init (&iter, devices);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          const DeviceRows *rows = value;
          KsStepActivity a = { 0 };
          guint n;

          a.step = i;
          a.device = GPOINTER_TO_INT (key) - 1;
          a.sm_active_pct = window_mean (rows->sm, step->start, step->end, &n);
          a.tensor_active_pct = window_mean (rows->tensor, step->start, step->end, NULL);
          a.busy_pct = step->end > step->start ? 100.0 * step->parts[KS_STEP_KERNEL] / (step->end - step->start) : 0;
          if (n > 0)
            g_array_append_val (self->step_activity, a);
        }
    }
  g_array_sort (self->step_activity, compare_step_device);
}

void
_ks_analysis_activity (KsAnalysis *self,
                       Context    *ctx)
{
  KsTrace *trace = ctx->trace;
  g_autoptr(GHashTable) devices = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_autoptr(GList) keys = NULL;

  /* each GPU's rows, by device + 1 */
  for (guint32 i = 0; i < trace->n_counters; i++)
    {
      const KsCounter *c = &trace->counters[i];
      const char *name = ks_trace_string (trace, c->name);
      DeviceRows *rows;

      if (c->device < 0 || c->process != KS_NO_INDEX || c->n_samples == 0 ||
          !_ks_context_device_wanted (ctx, c->device))
        continue;
      rows = g_hash_table_lookup (devices, GINT_TO_POINTER (c->device + 1));
      if (rows == NULL)
        {
          rows = g_new0 (DeviceRows, 1);
          g_hash_table_insert (devices, GINT_TO_POINTER (c->device + 1), rows);
        }
      if (strcmp (name, KS_GPM_SM_ACTIVE) == 0)
        rows->sm = c;
      else if (strcmp (name, KS_GPM_TENSOR_ACTIVE) == 0)
        rows->tensor = c;
      else if (strcmp (name, UTILIZATION_COUNTER) == 0)
        rows->utilization = c;
    }
  /* only GPUs with GPM */
  keys = g_hash_table_get_keys (devices);
  for (GList *l = keys; l != NULL; l = l->next)
    if (((DeviceRows *) g_hash_table_lookup (devices, l->data))->sm == NULL)
      g_hash_table_remove (devices, l->data);

  for (GList *l = keys; l != NULL; l = l->next)
    {
      DeviceRows *rows = g_hash_table_lookup (devices, l->data);

      if (rows != NULL)
        one_gpu (self, ctx, GPOINTER_TO_INT (l->data) - 1, rows);
    }
  g_array_sort (self->activity, compare_device);
  steps (self, devices);
}

/* "busy 95 % of the time, but SMs active 12 %": kernels that keep the
 * GPU busy without filling it. */
void
_ks_analysis_activity_advice (KsAnalysis *self,
                              Context    *ctx)
{
  for (guint i = 0; i < self->activity->len; i++)
    {
      const KsGpuActivity *a = &g_array_index (self->activity, KsGpuActivity, i);
      g_autofree char *window = NULL;
      g_autofree char *tensor = NULL;

      if (a->busy_source == KS_BUSY_NONE || a->busy_pct < BUSY_PCT || a->sm_active_pct >= a->busy_pct / 2)
        continue;
      window = ks_time_format_duration (a->end - a->start);
      tensor = a->tensor_active_pct >= 0 ? g_strdup_printf (_("tensor cores active %.1f %%"), a->tensor_active_pct)
                                         : g_strdup (_("no tensor activity row"));
      _ks_analysis_add_advice (self, "busy-sms-idle", a->device,
                               g_strdup_printf (_("GPU %d is busy but its SMs are mostly idle"), a->device),
                               g_strdup_printf (_("GPU %d: busy %.0f %% of the time, but SMs active %.0f %%: kernels "
                                                  "too small to fill the GPU. Larger batches, fused kernels "
                                                  "(torch.compile) or CUDA graphs give each kernel more work."),
                                                a->device, a->busy_pct, a->sm_active_pct),
                               g_strdup_printf (a->busy_source == KS_BUSY_KERNELS
                                                ? _("Kernels ran %.1f %% of %s; GPM's SM activity was %.1f %% over "
                                                    "%u samples, %s.")
                                                : _("NVML's utilization was %.1f %% over %s; GPM's SM activity was "
                                                    "%.1f %% over %u samples, %s."),
                                                a->busy_pct, window, a->sm_active_pct, a->n_samples, tensor));
    }
}

const KsGpuActivity *
ks_analysis_get_gpu_activity (KsAnalysis *self,
                              guint      *n_gpus)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  if (n_gpus != NULL)
    *n_gpus = self->activity->len;
  return self->activity->len > 0 ? (const KsGpuActivity *) (gpointer) self->activity->data : NULL;
}

const KsStepActivity *
ks_analysis_get_step_activity (KsAnalysis *self,
                               guint      *n_rows)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  if (n_rows != NULL)
    *n_rows = self->step_activity->len;
  return self->step_activity->len > 0 ? (const KsStepActivity *) (gpointer) self->step_activity->data : NULL;
}
