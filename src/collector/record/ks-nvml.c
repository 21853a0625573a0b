/* ks-nvml.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-nvml"

#include "config.h"

#include "ks-nvml.h"

#include <dlfcn.h>
#include <gio/gio.h>
#include <glib/gi18n.h>

/* From NVIDIA's public nvml.h (every enum is int-sized). */
typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct { unsigned int gpu; unsigned int memory; } nvmlUtilization_t;
typedef struct { unsigned long long total; unsigned long long free; unsigned long long used; } nvmlMemory_t;
typedef struct
{
  char         busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char         busId[32];
} nvmlPciInfo_t;

#define NVML_SUCCESS           0
#define NVML_TEMPERATURE_GPU   0
#define NVML_CLOCK_SM          1
#define NVML_NAME_BUFFER_SIZE  96
#define NVML_UUID_BUFFER_SIZE  96

G_STATIC_ASSERT (sizeof (nvmlUtilization_t) == 8);
G_STATIC_ASSERT (sizeof (nvmlMemory_t) == 24);
G_STATIC_ASSERT (sizeof (nvmlPciInfo_t) == 68);

typedef struct
{
  nvmlReturn_t (*Init) (void);
  nvmlReturn_t (*Shutdown) (void);
  const char  *(*ErrorString) (nvmlReturn_t);
  nvmlReturn_t (*DeviceGetCount) (unsigned int *);
  nvmlReturn_t (*DeviceGetHandleByIndex) (unsigned int, nvmlDevice_t *);
  nvmlReturn_t (*DeviceGetName) (nvmlDevice_t, char *, unsigned int);
  nvmlReturn_t (*DeviceGetUUID) (nvmlDevice_t, char *, unsigned int);
  nvmlReturn_t (*DeviceGetPciInfo) (nvmlDevice_t, nvmlPciInfo_t *);
  nvmlReturn_t (*DeviceGetUtilizationRates) (nvmlDevice_t, nvmlUtilization_t *);
  nvmlReturn_t (*DeviceGetMemoryInfo) (nvmlDevice_t, nvmlMemory_t *);
  nvmlReturn_t (*DeviceGetTemperature) (nvmlDevice_t, int, unsigned int *);
  nvmlReturn_t (*DeviceGetPowerUsage) (nvmlDevice_t, unsigned int *);
  nvmlReturn_t (*DeviceGetClockInfo) (nvmlDevice_t, int, unsigned int *);
} NvmlApi;

struct _KsNvml
{
  void         *handle;
  NvmlApi       api;
  GArray       *devices;   /* KsNvmlDevice */
  nvmlDevice_t *handles;
};

static void *
load_first (void        *handle,
            const char  *first,
            const char  *second,
            const char  *third)
{
  void *sym = dlsym (handle, first);

  if (sym == NULL && second != NULL)
    sym = dlsym (handle, second);
  if (sym == NULL && third != NULL)
    sym = dlsym (handle, third);
  return sym;
}

static void
clear_device (gpointer data)
{
  KsNvmlDevice *d = data;

  g_free (d->name);
  g_free (d->uuid);
  g_free (d->bus_id);
}

KsNvml *
ks_nvml_open (GError **error)
{
  const char *path = g_getenv ("KINESCOPE_NVML_LIBRARY");
  KsNvml *self;
  NvmlApi *a;
  unsigned int count = 0;
  nvmlReturn_t r;

  if (path == NULL || *path == 0)
    path = "libnvidia-ml.so.1";

  self = g_new0 (KsNvml, 1);
  self->handle = dlopen (path, RTLD_NOW | RTLD_LOCAL);
  if (self->handle == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("NVML is not available (%s): no GPU metrics"), dlerror ());
      g_free (self);
      return NULL;
    }

  a = &self->api;
  a->Init = load_first (self->handle, "nvmlInit_v2", "nvmlInit", NULL);
  a->Shutdown = load_first (self->handle, "nvmlShutdown", NULL, NULL);
  a->ErrorString = load_first (self->handle, "nvmlErrorString", NULL, NULL);
  a->DeviceGetCount = load_first (self->handle, "nvmlDeviceGetCount_v2", "nvmlDeviceGetCount", NULL);
  a->DeviceGetHandleByIndex = load_first (self->handle, "nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex", NULL);
  a->DeviceGetName = load_first (self->handle, "nvmlDeviceGetName", NULL, NULL);
  a->DeviceGetUUID = load_first (self->handle, "nvmlDeviceGetUUID", NULL, NULL);
  a->DeviceGetPciInfo = load_first (self->handle, "nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo");
  a->DeviceGetUtilizationRates = load_first (self->handle, "nvmlDeviceGetUtilizationRates", NULL, NULL);
  a->DeviceGetMemoryInfo = load_first (self->handle, "nvmlDeviceGetMemoryInfo", NULL, NULL);
  a->DeviceGetTemperature = load_first (self->handle, "nvmlDeviceGetTemperature", NULL, NULL);
  a->DeviceGetPowerUsage = load_first (self->handle, "nvmlDeviceGetPowerUsage", NULL, NULL);
  a->DeviceGetClockInfo = load_first (self->handle, "nvmlDeviceGetClockInfo", NULL, NULL);

  if (a->Init == NULL || a->DeviceGetCount == NULL || a->DeviceGetHandleByIndex == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("%s lacks the NVML functions needed for GPU metrics"), path);
      dlclose (self->handle);
      g_free (self);
      return NULL;
    }

  r = a->Init ();
  if (r != NVML_SUCCESS || a->DeviceGetCount (&count) != NVML_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _("NVML could not be initialized (%s): no GPU metrics"),
                   a->ErrorString ? a->ErrorString (r) : "error");
      dlclose (self->handle);
      g_free (self);
      return NULL;
    }

  self->devices = g_array_new (FALSE, TRUE, sizeof (KsNvmlDevice));
  g_array_set_clear_func (self->devices, clear_device);
  self->handles = g_new0 (nvmlDevice_t, MAX (count, 1));

  for (unsigned int i = 0; i < count; i++)
    {
      KsNvmlDevice d = { 0 };
      char name[NVML_NAME_BUFFER_SIZE] = "";
      char uuid[NVML_UUID_BUFFER_SIZE] = "";
      nvmlPciInfo_t pci;
      nvmlMemory_t memory;
      nvmlDevice_t dev = NULL;

      if (a->DeviceGetHandleByIndex (i, &dev) != NVML_SUCCESS)
        continue;
      d.index = i;
      if (a->DeviceGetName && a->DeviceGetName (dev, name, sizeof name) == NVML_SUCCESS)
        d.name = g_strdup (name);
      if (a->DeviceGetUUID && a->DeviceGetUUID (dev, uuid, sizeof uuid) == NVML_SUCCESS)
        d.uuid = g_strdup (uuid);
      memset (&pci, 0, sizeof pci);
      if (a->DeviceGetPciInfo && a->DeviceGetPciInfo (dev, &pci) == NVML_SUCCESS)
        d.bus_id = g_strndup (pci.busId, sizeof pci.busId);
      if (a->DeviceGetMemoryInfo && a->DeviceGetMemoryInfo (dev, &memory) == NVML_SUCCESS)
        d.total_memory = memory.total;
      self->handles[self->devices->len] = dev;
      g_array_append_val (self->devices, d);
    }

  return self;
}

void
ks_nvml_close (KsNvml *self)
{
  if (self == NULL)
    return;
  if (self->api.Shutdown)
    self->api.Shutdown ();
  dlclose (self->handle);
  g_array_unref (self->devices);
  g_free (self->handles);
  g_free (self);
}

guint
ks_nvml_get_n_devices (KsNvml *self)
{
  return self->devices->len;
}

const KsNvmlDevice *
ks_nvml_get_device (KsNvml *self,
                    guint   index)
{
  g_return_val_if_fail (index < self->devices->len, NULL);
  return &g_array_index (self->devices, KsNvmlDevice, index);
}

gboolean
ks_nvml_sample (KsNvml       *self,
                guint         index,
                KsNvmlSample *s)
{
  NvmlApi *a = &self->api;
  nvmlDevice_t dev;
  nvmlUtilization_t util;
  nvmlMemory_t memory;
  unsigned int value;

  g_return_val_if_fail (index < self->devices->len, FALSE);
  dev = self->handles[index];
  memset (s, 0, sizeof *s);

  if (a->DeviceGetUtilizationRates && a->DeviceGetUtilizationRates (dev, &util) == NVML_SUCCESS)
    {
      s->fields |= KS_NVML_HAS_UTILIZATION;
      s->utilization_gpu = util.gpu;
      s->utilization_memory = util.memory;
    }
  if (a->DeviceGetMemoryInfo && a->DeviceGetMemoryInfo (dev, &memory) == NVML_SUCCESS)
    {
      s->fields |= KS_NVML_HAS_MEMORY;
      s->memory_used = memory.used;
      s->memory_total = memory.total;
    }
  if (a->DeviceGetTemperature && a->DeviceGetTemperature (dev, NVML_TEMPERATURE_GPU, &value) == NVML_SUCCESS)
    {
      s->fields |= KS_NVML_HAS_TEMPERATURE;
      s->temperature = value;
    }
  if (a->DeviceGetPowerUsage && a->DeviceGetPowerUsage (dev, &value) == NVML_SUCCESS)
    {
      s->fields |= KS_NVML_HAS_POWER;
      s->power = value / 1000.0;   /* mW → W */
    }
  if (a->DeviceGetClockInfo && a->DeviceGetClockInfo (dev, NVML_CLOCK_SM, &value) == NVML_SUCCESS)
    {
      s->fields |= KS_NVML_HAS_SM_CLOCK;
      s->sm_clock = value;
    }
  return s->fields != 0;
}
