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
#include <math.h>
#include <string.h>
#include <gio/gio.h>
#include <glib/gi18n.h>

/* From NVIDIA's public nvml.h (every enum is int-sized). */
typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct { unsigned int gpu; unsigned int memory; } nvmlUtilization_t;
typedef struct { unsigned long long total; unsigned long long free; unsigned long long used; } nvmlMemory_t;
typedef struct
{
  unsigned int       version;
  unsigned long long total;
  unsigned long long reserved;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_v2_t;
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

/* nvmlProcessInfo_t of the _v2 and _v3 calls, and the _v1 one */
typedef struct
{
  unsigned int       pid;
  unsigned long long usedGpuMemory;
  unsigned int       gpuInstanceId;
  unsigned int       computeInstanceId;
} nvmlProcessInfo_t;
typedef struct
{
  unsigned int       pid;
  unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;
typedef struct
{
  unsigned int       pid;
  unsigned long long timeStamp;
  unsigned int       smUtil;
  unsigned int       memUtil;
  unsigned int       encUtil;
  unsigned int       decUtil;
} nvmlProcessUtilizationSample_t;

/* GPM (R520 and later) */
typedef struct nvmlGpmSample_st *nvmlGpmSample_t;
typedef struct
{
  unsigned int metricId;
  nvmlReturn_t nvmlReturn;
  double       value;
  struct { char *shortName; char *longName; char *unit; } metricInfo;
} nvmlGpmMetric_t;
typedef struct
{
  unsigned int    version;
  unsigned int    numMetrics;
  nvmlGpmSample_t sample1;
  nvmlGpmSample_t sample2;
  nvmlGpmMetric_t metrics[];   /* NVML_GPM_METRIC_MAX in nvml.h; the driver reads numMetrics */
} nvmlGpmMetricsGet_t;
typedef struct { unsigned int version; unsigned int isSupportedDevice; } nvmlGpmSupport_t;

#define NVML_GPM_METRICS_GET_VERSION 1
#define NVML_GPM_SUPPORT_VERSION     1
/* room for nvml.h's largest NVML_GPM_METRIC_MAX, whatever the driver assumes */
#define GPM_METRIC_ROOM              256
#define NVML_MEMORY_V2_VERSION       ((unsigned int) (sizeof (nvmlMemory_v2_t) | (2u << 24)))

#define NVML_SUCCESS           0
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NO_PERMISSION 4
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_VALUE_NOT_AVAILABLE G_MAXUINT64
#define MAX_PROCESSES          4096
#define NVML_TEMPERATURE_GPU   0
#define NVML_CLOCK_SM          1
#define NVML_NAME_BUFFER_SIZE  96
#define NVML_UUID_BUFFER_SIZE  96

G_STATIC_ASSERT (sizeof (nvmlUtilization_t) == 8);
G_STATIC_ASSERT (sizeof (nvmlMemory_t) == 24);
G_STATIC_ASSERT (sizeof (nvmlMemory_v2_t) == 40);
G_STATIC_ASSERT (sizeof (nvmlGpmMetric_t) == 40);
G_STATIC_ASSERT (G_STRUCT_OFFSET (nvmlGpmMetricsGet_t, metrics) == 24);
G_STATIC_ASSERT (sizeof (nvmlPciInfo_t) == 68);
G_STATIC_ASSERT (sizeof (nvmlProcessInfo_t) == 24);
G_STATIC_ASSERT (sizeof (nvmlProcessInfo_v1_t) == 16);
G_STATIC_ASSERT (sizeof (nvmlProcessUtilizationSample_t) == 32);

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
  nvmlReturn_t (*DeviceGetMemoryInfo_v2) (nvmlDevice_t, nvmlMemory_v2_t *);
  nvmlReturn_t (*DeviceGetTemperature) (nvmlDevice_t, int, unsigned int *);
  nvmlReturn_t (*DeviceGetPowerUsage) (nvmlDevice_t, unsigned int *);
  nvmlReturn_t (*DeviceGetClockInfo) (nvmlDevice_t, int, unsigned int *);
  nvmlReturn_t (*DeviceGetComputeRunningProcesses) (nvmlDevice_t, unsigned int *, void *);
  gboolean       processes_v1;   /* the call takes nvmlProcessInfo_v1_t */
  nvmlReturn_t (*DeviceGetProcessUtilization) (nvmlDevice_t, nvmlProcessUtilizationSample_t *, unsigned int *,
                                               unsigned long long);
  nvmlReturn_t (*SystemGetProcessName) (unsigned int, char *, unsigned int);
  nvmlReturn_t (*GpmQueryDeviceSupport) (nvmlDevice_t, nvmlGpmSupport_t *);
  nvmlReturn_t (*GpmSampleAlloc) (nvmlGpmSample_t *);
  nvmlReturn_t (*GpmSampleFree) (nvmlGpmSample_t);
  nvmlReturn_t (*GpmSampleGet) (nvmlDevice_t, nvmlGpmSample_t);
  nvmlReturn_t (*GpmMetricsGet) (nvmlGpmMetricsGet_t *);
} NvmlApi;

/* Per device: GPM's metrics are the difference of two samples, the
 * previous one and the one taken now. */
typedef struct
{
  nvmlGpmSample_t samples[2];
  guint           previous;      /* index of the previous sample */
} GpmState;

struct _KsNvml
{
  void         *handle;
  NvmlApi       api;
  GArray       *devices;   /* KsNvmlDevice */
  nvmlDevice_t *handles;
  guint64      *last_seen; /* per device: NVML's time of the last process sample read */
  GpmState     *gpm;       /* per device */
  nvmlGpmMetricsGet_t *gpm_get;
};

/* NVML's ids of the KsNvmlGpmMetric metrics (nvmlGpmMetricId_t) */
static const unsigned int gpm_metric_ids[KS_NVML_GPM_N_METRICS] = {
  [KS_NVML_GPM_SM_ACTIVE]     = 2,   /* NVML_GPM_METRIC_SM_UTIL */
  [KS_NVML_GPM_SM_OCCUPANCY]  = 3,   /* NVML_GPM_METRIC_SM_OCCUPANCY */
  [KS_NVML_GPM_TENSOR_ACTIVE] = 5,   /* NVML_GPM_METRIC_ANY_TENSOR_UTIL */
  [KS_NVML_GPM_DRAM_ACTIVE]   = 10,  /* NVML_GPM_METRIC_DRAM_BW_UTIL */
  [KS_NVML_GPM_FP16_ACTIVE]   = 13,  /* NVML_GPM_METRIC_FP16_UTIL */
  [KS_NVML_GPM_FP32_ACTIVE]   = 12,  /* NVML_GPM_METRIC_FP32_UTIL */
  [KS_NVML_GPM_FP64_ACTIVE]   = 11,  /* NVML_GPM_METRIC_FP64_UTIL */
  [KS_NVML_GPM_PCIE_TX]       = 20,  /* NVML_GPM_METRIC_PCIE_TX_PER_SEC, MiB/s */
  [KS_NVML_GPM_PCIE_RX]       = 21,  /* NVML_GPM_METRIC_PCIE_RX_PER_SEC */
  [KS_NVML_GPM_NVLINK_TX]     = 61,  /* NVML_GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC */
  [KS_NVML_GPM_NVLINK_RX]     = 60,  /* NVML_GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC */
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
  g_free (d->gpm_missing);
}

static const char *
error_string (KsNvml       *self,
              nvmlReturn_t  r)
{
  const char *text = self->api.ErrorString ? self->api.ErrorString (r) : NULL;

  return text != NULL ? text : "error";
}

/* Whether GPU @d (@i in the handles) counts GPM, with its first sample
 * taken; else why not in d->gpm_missing. */
static void
gpm_open (KsNvml       *self,
          guint         i,
          KsNvmlDevice *d)
{
  NvmlApi *a = &self->api;
  GpmState *g = &self->gpm[i];
  nvmlGpmSupport_t support = { NVML_GPM_SUPPORT_VERSION, 0 };
  nvmlReturn_t r;

  /* off by hand: to measure what GPM sampling costs against none */
  if (g_strcmp0 (g_getenv ("KINESCOPE_NVML_GPM"), "0") == 0)
    {
      d->gpm_missing = g_strdup (_("GPM switched off (KINESCOPE_NVML_GPM=0)"));
      return;
    }
  if (a->GpmQueryDeviceSupport == NULL || a->GpmSampleAlloc == NULL || a->GpmSampleFree == NULL ||
      a->GpmSampleGet == NULL || a->GpmMetricsGet == NULL)
    {
      d->gpm_missing = g_strdup (_("the driver's NVML has no GPM (driver R520 or later has it)"));
      return;
    }
  r = a->GpmQueryDeviceSupport (self->handles[i], &support);
  if (r != NVML_SUCCESS || !support.isSupportedDevice)
    {
      d->gpm_missing = r == NVML_SUCCESS || r == NVML_ERROR_NOT_SUPPORTED
                       ? g_strdup_printf (_("GPU %u has no GPM counters (Hopper and later GPUs have them, "
                                            "outside MIG mode)"), d->index)
                       : g_strdup_printf (_("GPU %u: GPM support could not be queried (%s)"), d->index,
                                          error_string (self, r));
      return;
    }
  if (a->GpmSampleAlloc (&g->samples[0]) != NVML_SUCCESS || a->GpmSampleAlloc (&g->samples[1]) != NVML_SUCCESS)
    {
      d->gpm_missing = g_strdup_printf (_("GPU %u: no GPM sample could be allocated"), d->index);
      return;
    }
  r = a->GpmSampleGet (self->handles[i], g->samples[0]);
  if (r != NVML_SUCCESS)
    {
      d->gpm_missing = r == NVML_ERROR_NO_PERMISSION
                       ? g_strdup_printf (_("GPU %u: no permission to read GPM metrics (%s)"), d->index,
                                          error_string (self, r))
                       : g_strdup_printf (_("GPU %u: GPM metrics could not be read (%s)"), d->index,
                                          error_string (self, r));
      return;
    }
  g->previous = 0;
  d->gpm = TRUE;
}

static void
gpm_close (KsNvml *self)
{
  for (guint i = 0; i < self->devices->len; i++)
    for (guint k = 0; k < 2; k++)
      if (self->gpm[i].samples[k] != NULL && self->api.GpmSampleFree != NULL)
        self->api.GpmSampleFree (self->gpm[i].samples[k]);
}

/* The metrics since the previous sample: one nvmlGpmMetricsGet. */
static void
gpm_sample (KsNvml       *self,
            guint         i,
            KsNvmlSample *s)
{
  GpmState *g = &self->gpm[i];
  nvmlGpmMetricsGet_t *get = self->gpm_get;
  guint now = 1 - g->previous;

  if (self->api.GpmSampleGet (self->handles[i], g->samples[now]) != NVML_SUCCESS)
    return;
  memset (get, 0, sizeof *get + KS_NVML_GPM_N_METRICS * sizeof (nvmlGpmMetric_t));
  get->version = NVML_GPM_METRICS_GET_VERSION;
  get->numMetrics = KS_NVML_GPM_N_METRICS;
  get->sample1 = g->samples[g->previous];
  get->sample2 = g->samples[now];
  for (guint m = 0; m < KS_NVML_GPM_N_METRICS; m++)
    get->metrics[m].metricId = gpm_metric_ids[m];
  g->previous = now;
  if (self->api.GpmMetricsGet (get) != NVML_SUCCESS)
    return;
  for (guint m = 0; m < KS_NVML_GPM_N_METRICS; m++)
    {
      double v = get->metrics[m].value;

      if (get->metrics[m].nvmlReturn != NVML_SUCCESS || !isfinite (v))
        continue;
      s->gpm[m] = KS_NVML_GPM_IS_RATE (m) ? v * 1024.0 * 1024.0 : v;
      s->gpm_valid |= 1u << m;
    }
  if (s->gpm_valid != 0)
    s->fields |= KS_NVML_HAS_GPM;
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
  a->DeviceGetMemoryInfo_v2 = load_first (self->handle, "nvmlDeviceGetMemoryInfo_v2", NULL, NULL);
  a->DeviceGetTemperature = load_first (self->handle, "nvmlDeviceGetTemperature", NULL, NULL);
  a->DeviceGetPowerUsage = load_first (self->handle, "nvmlDeviceGetPowerUsage", NULL, NULL);
  a->DeviceGetClockInfo = load_first (self->handle, "nvmlDeviceGetClockInfo", NULL, NULL);
  a->DeviceGetComputeRunningProcesses = load_first (self->handle, "nvmlDeviceGetComputeRunningProcesses_v3",
                                                    "nvmlDeviceGetComputeRunningProcesses_v2", NULL);
  if (a->DeviceGetComputeRunningProcesses == NULL)
    {
      a->DeviceGetComputeRunningProcesses = load_first (self->handle, "nvmlDeviceGetComputeRunningProcesses", NULL, NULL);
      a->processes_v1 = TRUE;
    }
  a->DeviceGetProcessUtilization = load_first (self->handle, "nvmlDeviceGetProcessUtilization", NULL, NULL);
  a->SystemGetProcessName = load_first (self->handle, "nvmlSystemGetProcessName", NULL, NULL);
  a->GpmQueryDeviceSupport = load_first (self->handle, "nvmlGpmQueryDeviceSupport", NULL, NULL);
  a->GpmSampleAlloc = load_first (self->handle, "nvmlGpmSampleAlloc", NULL, NULL);
  a->GpmSampleFree = load_first (self->handle, "nvmlGpmSampleFree", NULL, NULL);
  a->GpmSampleGet = load_first (self->handle, "nvmlGpmSampleGet", NULL, NULL);
  a->GpmMetricsGet = load_first (self->handle, "nvmlGpmMetricsGet", NULL, NULL);

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
  self->last_seen = g_new0 (guint64, MAX (count, 1));
  self->gpm = g_new0 (GpmState, MAX (count, 1));
  self->gpm_get = g_malloc0 (sizeof (nvmlGpmMetricsGet_t) + GPM_METRIC_ROOM * sizeof (nvmlGpmMetric_t));

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
      gpm_open (self, self->devices->len, &d);
      g_array_append_val (self->devices, d);
    }

  return self;
}

void
ks_nvml_close (KsNvml *self)
{
  if (self == NULL)
    return;
  gpm_close (self);
  if (self->api.Shutdown)
    self->api.Shutdown ();
  dlclose (self->handle);
  g_array_unref (self->devices);
  g_free (self->handles);
  g_free (self->last_seen);
  g_free (self->gpm);
  g_free (self->gpm_get);
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
  nvmlMemory_v2_t memory2 = { NVML_MEMORY_V2_VERSION, 0, 0, 0, 0 };
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
  /* nvidia-smi's memory.used (R510 on): without what the driver reserves */
  if (a->DeviceGetMemoryInfo_v2 && a->DeviceGetMemoryInfo_v2 (dev, &memory2) == NVML_SUCCESS)
    {
      s->fields |= KS_NVML_HAS_MEMORY | KS_NVML_HAS_RESERVED;
      s->memory_used = memory2.used;
      s->memory_total = memory2.total;
      s->memory_reserved = memory2.reserved;
    }
  else if (a->DeviceGetMemoryInfo && a->DeviceGetMemoryInfo (dev, &memory) == NVML_SUCCESS)
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
  if (g_array_index (self->devices, KsNvmlDevice, index).gpm)
    gpm_sample (self, index, s);
  return s->fields != 0;
}

char *
ks_nvml_unavailable_message (const GError *error)
{
  return g_strdup_printf (_("No NVIDIA driver: %s.\n"
                            "GPUs are read through NVML, libnvidia-ml.so.1, which the NVIDIA driver installs. "
                            "Install the driver (Debian: nvidia-driver; in a container: the NVIDIA Container "
                            "Toolkit, or the libnvidia-ml1 package), or point KINESCOPE_NVML_LIBRARY at the library."),
                          error != NULL ? error->message : _("NVML could not be loaded"));
}

/* The name nvidia-smi shows: NVML's, else the kernel's. */
static void
process_name (KsNvml        *self,
              KsNvmlProcess *p)
{
  g_autofree char *path = NULL;
  g_autofree char *comm = NULL;

  if (self->api.SystemGetProcessName != NULL &&
      self->api.SystemGetProcessName (p->pid, p->name, sizeof p->name) == NVML_SUCCESS && p->name[0] != 0)
    {
      p->name[sizeof p->name - 1] = 0;
      return;
    }
  p->name[0] = 0;
  path = g_strdup_printf ("/proc/%u/comm", p->pid);
  if (g_file_get_contents (path, &comm, NULL, NULL))
    g_strlcpy (p->name, g_strstrip (comm), sizeof p->name);
}

GArray *
ks_nvml_get_processes (KsNvml *self,
                       guint   index)
{
  NvmlApi *a = &self->api;
  GArray *out = g_array_new (FALSE, TRUE, sizeof (KsNvmlProcess));
  gsize stride = a->processes_v1 ? sizeof (nvmlProcessInfo_v1_t) : sizeof (nvmlProcessInfo_t);
  g_autofree guint8 *infos = NULL;
  g_autofree nvmlProcessUtilizationSample_t *samples = NULL;
  unsigned int count = 16, n_samples = 0;
  nvmlReturn_t r;
  nvmlDevice_t dev;

  g_return_val_if_fail (index < self->devices->len, out);
  dev = self->handles[index];
  if (a->DeviceGetComputeRunningProcesses == NULL)
    return out;

  /* The list can grow between the calls: ask again with the size said. */
  for (int attempt = 0; attempt < 4; attempt++)
    {
      unsigned int room = MIN (count, MAX_PROCESSES);

      g_free (infos);
      infos = g_malloc0 (stride * MAX (room, 1));
      count = room;
      r = a->DeviceGetComputeRunningProcesses (dev, &count, infos);
      if (r != NVML_ERROR_INSUFFICIENT_SIZE || count <= room)
        break;
    }
  if (r != NVML_SUCCESS)
    return out;
  count = MIN (count, MAX_PROCESSES);

  if (a->DeviceGetProcessUtilization != NULL)
    {
      /* a first call says how many samples there are */
      if (a->DeviceGetProcessUtilization (dev, NULL, &n_samples, self->last_seen[index]) ==
          NVML_ERROR_INSUFFICIENT_SIZE && n_samples > 0)
        {
          n_samples = MIN (n_samples, MAX_PROCESSES);
          samples = g_new0 (nvmlProcessUtilizationSample_t, n_samples);
          if (a->DeviceGetProcessUtilization (dev, samples, &n_samples, self->last_seen[index]) != NVML_SUCCESS)
            n_samples = 0;
        }
      else
        n_samples = 0;
    }

  for (unsigned int i = 0; i < count; i++)
    {
      KsNvmlProcess p = { 0 };
      const guint8 *info = infos + i * stride;
      unsigned long long used, latest = 0;

      memcpy (&p.pid, info, sizeof p.pid);
      memcpy (&used, info + G_STRUCT_OFFSET (nvmlProcessInfo_t, usedGpuMemory), sizeof used);
      p.used_memory = used;
      p.sm_util = -1;
      p.memory_util = -1;

      /* the latest sample of the process */
      for (unsigned int k = 0; k < n_samples; k++)
        if (samples[k].pid == p.pid && samples[k].timeStamp >= latest)
          {
            latest = samples[k].timeStamp;
            p.sm_util = (int) MIN (samples[k].smUtil, 100);
            p.memory_util = (int) MIN (samples[k].memUtil, 100);
          }
      process_name (self, &p);
      g_array_append_val (out, p);
    }
  for (unsigned int k = 0; k < n_samples; k++)
    self->last_seen[index] = MAX (self->last_seen[index], samples[k].timeStamp);
  return out;
}
