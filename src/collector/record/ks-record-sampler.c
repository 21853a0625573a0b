/* ks-record-sampler.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* GPU metrics: an NVML sampling thread, its samples written as
 * counters, and the GPUs of the recording, CUPTI's joined with NVML's. */

#define G_LOG_DOMAIN "ks-record-session"

#include "config.h"

#include <glib/gi18n.h>

#include "ks-gpm.h"
#include "ks-record-private.h"

/* Counter ids per NVML device: the five NVML rows, the driver's reserved
 * memory, then one per GPM metric (NO_COUNTER where the GPU has none). */
enum
{
  C_UTILIZATION,
  C_MEMORY_USED,
  C_TEMPERATURE,
  C_POWER,
  C_SM_CLOCK,
  C_MEMORY_RESERVED,
  C_GPM_FIRST,
  N_COUNTERS = C_GPM_FIRST + KS_NVML_GPM_N_METRICS
};
#define NO_COUNTER G_MAXUINT32
/* made with its first value: a metric the GPU never gives gets no row */
#define PENDING_COUNTER (G_MAXUINT32 - 1)

G_STATIC_ASSERT (KS_NVML_GPM_N_METRICS == KS_GPM_N_QUERY_FIELDS);

static void
create_gpu_counters (KsRecordSession *self)
{
  static const struct { const char *name; const char *unit; const char *description; } defs[] = {
    { "GPU utilization", "%", "NVML utilization.gpu: share of the last sample period in which a kernel ran" },
    { "GPU memory used", "bytes", "NVML memory.used" },
    { "GPU temperature", "°C", "NVML temperature.gpu" },
    { "GPU power", "W", "NVML power.draw" },
    { "SM clock", "MHz", "NVML clocks.current.sm" },
    { "GPU memory reserved", "bytes", "NVML memory.reserved: what the driver keeps" },
  };
  guint n = ks_nvml_get_n_devices (self->nvml);
  g_autoptr(GString) missing = g_string_new (NULL);

  G_STATIC_ASSERT (G_N_ELEMENTS (defs) == C_GPM_FIRST);
  for (guint i = 0; i < n; i++)
    {
      const KsNvmlDevice *d = ks_nvml_get_device (self->nvml, i);

      for (guint k = 0; k < G_N_ELEMENTS (defs); k++)
        {
          guint32 id = ks_record_writer_add_counter (self->writer, defs[k].name, defs[k].unit,
                                                     (gint) d->index, defs[k].description);
          g_array_append_val (self->gpu_counters, id);
        }
      for (guint k = 0; k < KS_NVML_GPM_N_METRICS; k++)
        {
          guint32 id = d->gpm ? PENDING_COUNTER : NO_COUNTER;
          g_array_append_val (self->gpu_counters, id);
        }
      if (!d->gpm && d->gpm_missing != NULL)
        g_string_append_printf (missing, "%s%s", missing->len > 0 ? "; " : "", d->gpm_missing);
      if (i < G_N_ELEMENTS (self->stats.gpus))
        {
          g_strlcpy (self->stats.gpus[i].name, d->name ? d->name : "", sizeof self->stats.gpus[i].name);
          self->stats.gpus[i].utilization = -1;
          self->stats.gpus[i].memory_used = -1;
          self->stats.gpus[i].memory_total = (gint64) d->total_memory;
        }
    }
  self->stats.n_gpus = MIN (n, G_N_ELEMENTS (self->stats.gpus));
  /* once for the recording: its SM and tensor activity read N/A */
  if (missing->len > 0)
    {
      g_autofree char *text = g_strdup_printf (_("No SM or tensor activity (NVML GPM): %s"), missing->str);

      ks_record_writer_add_diagnostic (self->writer, 0, "warning", "nvml", text);
    }
}

static gpointer
nvml_thread (gpointer data)
{
  KsRecordSession *self = data;
  guint hz = self->options.gpu_metrics_hz ? self->options.gpu_metrics_hz : 10;
  gint64 period_us = G_USEC_PER_SEC / hz;
  gint64 next = g_get_monotonic_time ();
  guint n = ks_nvml_get_n_devices (self->nvml);

  for (;;)
    {
      g_mutex_lock (&self->mutex);
      while (!self->stop_nvml && g_get_monotonic_time () < next)
        g_cond_wait_until (&self->cond, &self->mutex, next);
      if (self->stop_nvml)
        {
          g_mutex_unlock (&self->mutex);
          break;
        }
      g_mutex_unlock (&self->mutex);

      for (guint i = 0; i < n; i++)
        {
          NvmlSampleItem *item = g_new0 (NvmlSampleItem, 1);

          item->gpu = i;
          item->timestamp = ks_record_now_mono ();
          if (ks_nvml_sample (self->nvml, i, &item->sample))
            {
              g_mutex_lock (&self->mutex);
              if (i < G_N_ELEMENTS (self->stats.gpus))
                {
                  if (item->sample.fields & KS_NVML_HAS_UTILIZATION)
                    self->stats.gpus[i].utilization = (gint) item->sample.utilization_gpu;
                  if (item->sample.fields & KS_NVML_HAS_MEMORY)
                    {
                      self->stats.gpus[i].memory_used = (gint64) item->sample.memory_used;
                      self->stats.gpus[i].memory_total = (gint64) item->sample.memory_total;
                    }
                }
              g_mutex_unlock (&self->mutex);
              g_async_queue_push (self->samples, item);
            }
          else
            g_free (item);
        }

      next += period_us;
      /* Never try to catch up after a stall. */
      if (next < g_get_monotonic_time ())
        next = g_get_monotonic_time () + period_us;
    }
  return NULL;
}

void
ks_record_sampler_start (KsRecordSession *self)
{
  if (self->nvml == NULL)
    return;
  create_gpu_counters (self);
  self->nvml_thread = g_thread_new ("ks-nvml", nvml_thread, self);
}

void
ks_record_sampler_write (KsRecordSession *self)
{
  NvmlSampleItem *item;

  while ((item = g_async_queue_try_pop (self->samples)) != NULL)
    {
      const KsNvmlSample *s = &item->sample;
      guint base = item->gpu * N_COUNTERS;
      guint n_fields;

      if (base + N_COUNTERS <= self->gpu_counters->len && item->timestamp >= self->filter_from)
        {
          guint32 *ids = &g_array_index (self->gpu_counters, guint32, base);

          if (s->fields & KS_NVML_HAS_UTILIZATION)
            ks_record_writer_add_sample (self->writer, ids[C_UTILIZATION], item->timestamp, s->utilization_gpu);
          if (s->fields & KS_NVML_HAS_MEMORY)
            ks_record_writer_add_sample (self->writer, ids[C_MEMORY_USED], item->timestamp, (double) s->memory_used);
          if (s->fields & KS_NVML_HAS_TEMPERATURE)
            ks_record_writer_add_sample (self->writer, ids[C_TEMPERATURE], item->timestamp, s->temperature);
          if (s->fields & KS_NVML_HAS_POWER)
            ks_record_writer_add_sample (self->writer, ids[C_POWER], item->timestamp, s->power);
          if (s->fields & KS_NVML_HAS_SM_CLOCK)
            ks_record_writer_add_sample (self->writer, ids[C_SM_CLOCK], item->timestamp, s->sm_clock);
          if (s->fields & KS_NVML_HAS_RESERVED)
            ks_record_writer_add_sample (self->writer, ids[C_MEMORY_RESERVED], item->timestamp,
                                         (double) s->memory_reserved);
          for (guint k = 0; k < KS_NVML_GPM_N_METRICS; k++)
            {
              guint32 *id = &ids[C_GPM_FIRST + k];

              if (!(s->gpm_valid & (1u << k)) || *id == NO_COUNTER)
                continue;
              if (*id == PENDING_COUNTER)
                {
                  const KsGpmField *f = &ks_gpm_get_fields (&n_fields)[k];

                  *id = ks_record_writer_add_counter (self->writer, f->counter, f->unit,
                                                      (gint) ks_nvml_get_device (self->nvml, item->gpu)->index,
                                                      f->description);
                }
              ks_record_writer_add_sample (self->writer, *id, item->timestamp, s->gpm[k]);
            }
        }
      g_free (item);
    }
}

void
ks_record_sampler_write_gpus (KsRecordSession *self)
{
  GHashTable *written = g_hash_table_new (g_str_hash, g_str_equal);
  guint n_nvml = self->nvml ? ks_nvml_get_n_devices (self->nvml) : 0;

  /* CUPTI knows the CUDA ordinal and the hardware details; NVML the PCI
   * location. Joined by UUID, never by index (CUDA_VISIBLE_DEVICES). */
  for (guint i = 0; i < self->cupti_gpus->len; i++)
    {
      KsRecordGpu *gpu = g_ptr_array_index (self->cupti_gpus, i);

      if (g_hash_table_contains (written, gpu->uuid))
        continue;
      for (guint k = 0; k < n_nvml; k++)
        {
          const KsNvmlDevice *d = ks_nvml_get_device (self->nvml, k);

          if (d->uuid != NULL && g_ascii_strcasecmp (d->uuid, gpu->uuid) == 0)
            {
              gpu->bus_location = g_strdup (d->bus_id);
              if ((gint) d->index != gpu->id)
                {
                  g_autofree char *sql_note = g_strdup_printf ("NVML device %u is CUDA device %d (%s)",
                                                               d->index, gpu->id, gpu->uuid);

                  ks_record_writer_add_diagnostic (self->writer, 0, "info", "nvml", sql_note);
                }
            }
        }
      ks_record_writer_add_gpu (self->writer, gpu);
      g_hash_table_add (written, gpu->uuid);
    }

  for (guint k = 0; k < n_nvml; k++)
    {
      const KsNvmlDevice *d = ks_nvml_get_device (self->nvml, k);
      gboolean known = FALSE;

      for (guint i = 0; i < self->cupti_gpus->len; i++)
        {
          KsRecordGpu *gpu = g_ptr_array_index (self->cupti_gpus, i);

          if (d->uuid != NULL && g_ascii_strcasecmp (d->uuid, gpu->uuid) == 0)
            known = TRUE;
        }
      if (!known)
        {
          KsRecordGpu gpu = { 0 };

          gpu.id = (gint) d->index;
          gpu.name = d->name;
          gpu.uuid = d->uuid;
          gpu.bus_location = d->bus_id;
          gpu.total_memory = d->total_memory;
          ks_record_writer_add_gpu (self->writer, &gpu);
        }
    }
  g_hash_table_unref (written);
}

