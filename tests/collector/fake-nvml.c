/* fake-nvml.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* A stand-in for libnvidia-ml.so.1 with the same ABI (the functions the
 * sampler and the monitor use) and fixed values: two GPUs; GPU 1 has no
 * temperature sensor (NVML_ERROR_NOT_SUPPORTED). GPU 0 runs two compute
 * processes, pid 4242 "python3" (2 GiB, 30 % SM, 4 % memory) and pid
 * 4343 "pt_data_worker" (512 MiB, 7 %, 1 %); GPU 1 none.
 *
 * Memory: GPU n uses n + 1 GiB as nvmlDeviceGetMemoryInfo_v2 (and
 * nvidia-smi) count it, the driver reserves 615.06 MiB more, which the _v1
 * call counts as used. GPM: GPU 0 counts it (SM activity 12.25 %,
 * occupancy 8.25 %, tensor 3.75 %, DRAM 20.75 %, FP16 1.25 %, FP32
 * 2.25 %, FP64 0 %, PCIe 100 MiB/s out and 250 in, no NVLink: those
 * two NVML_ERROR_NOT_SUPPORTED); GPU 1 does not (isSupportedDevice 0). */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

#define EXPORT __attribute__((visibility ("default")))
#define GIB (1024ull * 1024ull * 1024ull)
#define MIB (1024ull * 1024ull)
#define RESERVED 644939776ULL   /* an H200's, 615.06 MiB: nvidia-smi prints 616 */

static int initialized;
static int devices[2];

EXPORT nvmlReturn_t nvmlInit_v2 (void);
EXPORT nvmlReturn_t nvmlShutdown (void);
EXPORT const char *nvmlErrorString (nvmlReturn_t r);
EXPORT nvmlReturn_t nvmlDeviceGetCount_v2 (unsigned int *count);
EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2 (unsigned int index, nvmlDevice_t *dev);
EXPORT nvmlReturn_t nvmlDeviceGetName (nvmlDevice_t dev, char *name, unsigned int size);
EXPORT nvmlReturn_t nvmlDeviceGetUUID (nvmlDevice_t dev, char *uuid, unsigned int size);
EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3 (nvmlDevice_t dev, nvmlPciInfo_t *pci);
EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates (nvmlDevice_t dev, nvmlUtilization_t *u);
EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo (nvmlDevice_t dev, nvmlMemory_t *m);
typedef struct
{
  unsigned int       version;
  unsigned long long total;
  unsigned long long reserved;
  unsigned long long free;
  unsigned long long used;
} nvmlMemory_v2_t;
EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2 (nvmlDevice_t dev, nvmlMemory_v2_t *m);
EXPORT nvmlReturn_t nvmlDeviceGetTemperature (nvmlDevice_t dev, int sensor, unsigned int *t);
EXPORT nvmlReturn_t nvmlDeviceGetPowerUsage (nvmlDevice_t dev, unsigned int *mw);
EXPORT nvmlReturn_t nvmlDeviceGetClockInfo (nvmlDevice_t dev, int type, unsigned int *mhz);

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
  unsigned long long timeStamp;
  unsigned int       smUtil;
  unsigned int       memUtil;
  unsigned int       encUtil;
  unsigned int       decUtil;
} nvmlProcessUtilizationSample_t;

EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3 (nvmlDevice_t dev, unsigned int *count,
                                                            nvmlProcessInfo_t *infos);
EXPORT nvmlReturn_t nvmlDeviceGetProcessUtilization (nvmlDevice_t dev, nvmlProcessUtilizationSample_t *samples,
                                                    unsigned int *count, unsigned long long last_seen);
EXPORT nvmlReturn_t nvmlSystemGetProcessName (unsigned int pid, char *name, unsigned int size);

static const struct { unsigned int pid; unsigned long long memory; unsigned int sm, mem; const char *name; } procs[] = {
  { 4242, 2 * GIB, 30, 4, "python3" },
  { 4343, GIB / 2, 7, 1, "pt_data_worker" },
};
static unsigned long long sample_clock;
static unsigned int utilization_calls;

/* For the tests: how often utilization was asked, to see sampling stop. */
EXPORT unsigned int fake_nvml_utilization_calls (void);

unsigned int
fake_nvml_utilization_calls (void)
{
  return utilization_calls;
}

static int
index_of (nvmlDevice_t dev)
{
  return (int) ((int *) dev - devices);
}

nvmlReturn_t
nvmlInit_v2 (void)
{
  initialized = 1;
  return 0;
}

nvmlReturn_t
nvmlShutdown (void)
{
  initialized = 0;
  return 0;
}

const char *
nvmlErrorString (nvmlReturn_t r)
{
  return r == 3 ? "Not Supported" : "Unknown Error";
}

nvmlReturn_t
nvmlDeviceGetCount_v2 (unsigned int *count)
{
  if (!initialized)
    return 1;
  *count = 2;
  return 0;
}

nvmlReturn_t
nvmlDeviceGetHandleByIndex_v2 (unsigned int  index,
                               nvmlDevice_t *dev)
{
  if (index > 1)
    return 2;
  *dev = (nvmlDevice_t) &devices[index];
  return 0;
}

nvmlReturn_t
nvmlDeviceGetName (nvmlDevice_t  dev,
                   char         *name,
                   unsigned int  size)
{
  snprintf (name, size, "Fake GPU %d", index_of (dev));
  return 0;
}

nvmlReturn_t
nvmlDeviceGetUUID (nvmlDevice_t  dev,
                   char         *uuid,
                   unsigned int  size)
{
  snprintf (uuid, size, "GPU-00000000-0000-0000-0000-00000000000%d", index_of (dev));
  return 0;
}

nvmlReturn_t
nvmlDeviceGetPciInfo_v3 (nvmlDevice_t   dev,
                         nvmlPciInfo_t *pci)
{
  memset (pci, 0, sizeof *pci);
  snprintf (pci->busId, sizeof pci->busId, "00000000:0%d:00.0", index_of (dev) + 1);
  return 0;
}

nvmlReturn_t
nvmlDeviceGetUtilizationRates (nvmlDevice_t       dev,
                               nvmlUtilization_t *u)
{
  utilization_calls++;
  u->gpu = index_of (dev) == 0 ? 37 : 73;
  u->memory = 5;
  return 0;
}

nvmlReturn_t
nvmlDeviceGetMemoryInfo (nvmlDevice_t  dev,
                         nvmlMemory_t *m)
{
  m->total = 80 * GIB;
  m->used = (unsigned long long) (index_of (dev) + 1) * GIB + RESERVED;
  m->free = m->total - m->used;
  return 0;
}

nvmlReturn_t
nvmlDeviceGetMemoryInfo_v2 (nvmlDevice_t     dev,
                            nvmlMemory_v2_t *m)
{
  if (m->version != (unsigned int) (sizeof *m | (2u << 24)))
    return 25;   /* NVML_ERROR_ARGUMENT_VERSION_MISMATCH */
  m->total = 80 * GIB;
  m->reserved = RESERVED;
  m->used = (unsigned long long) (index_of (dev) + 1) * GIB;
  m->free = m->total - m->used - m->reserved;
  return 0;
}

nvmlReturn_t
nvmlDeviceGetTemperature (nvmlDevice_t  dev,
                          int           sensor,
                          unsigned int *t)
{
  if (index_of (dev) == 1)
    return 3;
  *t = 55;
  return 0;
}

nvmlReturn_t
nvmlDeviceGetPowerUsage (nvmlDevice_t  dev,
                         unsigned int *mw)
{
  *mw = 123456;
  return 0;
}

nvmlReturn_t
nvmlDeviceGetClockInfo (nvmlDevice_t  dev,
                        int           type,
                        unsigned int *mhz)
{
  *mhz = type == 1 ? 1410 : 0;
  return 0;
}

nvmlReturn_t
nvmlDeviceGetComputeRunningProcesses_v3 (nvmlDevice_t       dev,
                                         unsigned int      *count,
                                         nvmlProcessInfo_t *infos)
{
  unsigned int n = index_of (dev) == 0 ? 2 : 0;

  if (*count < n)
    {
      *count = n;
      return 7;   /* NVML_ERROR_INSUFFICIENT_SIZE */
    }
  for (unsigned int i = 0; i < n; i++)
    {
      memset (&infos[i], 0, sizeof infos[i]);
      infos[i].pid = procs[i].pid;
      infos[i].usedGpuMemory = procs[i].memory;
    }
  *count = n;
  return 0;
}

/* One new sample of each process per call, later than @last_seen. */
nvmlReturn_t
nvmlDeviceGetProcessUtilization (nvmlDevice_t                    dev,
                                 nvmlProcessUtilizationSample_t *samples,
                                 unsigned int                   *count,
                                 unsigned long long              last_seen)
{
  unsigned int n = index_of (dev) == 0 ? 2 : 0;

  if (n == 0)
    return 6;   /* NVML_ERROR_NOT_FOUND: no samples */
  if (samples == NULL || *count < n)
    {
      *count = n;
      return 7;
    }
  sample_clock = (last_seen > sample_clock ? last_seen : sample_clock) + 1;
  for (unsigned int i = 0; i < n; i++)
    {
      memset (&samples[i], 0, sizeof samples[i]);
      samples[i].pid = procs[i].pid;
      samples[i].timeStamp = sample_clock;
      samples[i].smUtil = procs[i].sm;
      samples[i].memUtil = procs[i].mem;
    }
  *count = n;
  return 0;
}

nvmlReturn_t
nvmlSystemGetProcessName (unsigned int  pid,
                          char         *name,
                          unsigned int  size)
{
  for (unsigned int i = 0; i < sizeof procs / sizeof procs[0]; i++)
    if (procs[i].pid == pid)
      {
        snprintf (name, size, "%s", procs[i].name);
        return 0;
      }
  return 6;
}

/* GPM */
typedef struct
{
  int                device;    /* -1 until taken */
  unsigned long long serial;    /* order in which samples were taken */
} FakeGpmSample;
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
  FakeGpmSample  *sample1;
  FakeGpmSample  *sample2;
  nvmlGpmMetric_t metrics[98];
} nvmlGpmMetricsGet_t;
typedef struct { unsigned int version; unsigned int isSupportedDevice; } nvmlGpmSupport_t;

EXPORT nvmlReturn_t nvmlGpmQueryDeviceSupport (nvmlDevice_t dev, nvmlGpmSupport_t *support);
EXPORT nvmlReturn_t nvmlGpmSampleAlloc (FakeGpmSample **sample);
EXPORT nvmlReturn_t nvmlGpmSampleFree (FakeGpmSample *sample);
EXPORT nvmlReturn_t nvmlGpmSampleGet (nvmlDevice_t dev, FakeGpmSample *sample);
EXPORT nvmlReturn_t nvmlGpmMetricsGet (nvmlGpmMetricsGet_t *get);
/* For the tests: nvmlGpmMetricsGet calls, one per GPU per sample. */
EXPORT unsigned int fake_nvml_gpm_calls (void);

static unsigned long long gpm_serial;
static unsigned int gpm_calls;

unsigned int
fake_nvml_gpm_calls (void)
{
  return gpm_calls;
}

nvmlReturn_t
nvmlGpmQueryDeviceSupport (nvmlDevice_t      dev,
                           nvmlGpmSupport_t *support)
{
  if (support->version != 1)
    return 25;
  support->isSupportedDevice = index_of (dev) == 0;
  return 0;
}

nvmlReturn_t
nvmlGpmSampleAlloc (FakeGpmSample **sample)
{
  *sample = calloc (1, sizeof **sample);
  (*sample)->device = -1;
  return 0;
}

nvmlReturn_t
nvmlGpmSampleFree (FakeGpmSample *sample)
{
  free (sample);
  return 0;
}

nvmlReturn_t
nvmlGpmSampleGet (nvmlDevice_t   dev,
                  FakeGpmSample *sample)
{
  if (index_of (dev) != 0)
    return 3;   /* NVML_ERROR_NOT_SUPPORTED */
  sample->device = index_of (dev);
  sample->serial = ++gpm_serial;
  return 0;
}

/* NVML's rule: two samples of one GPU, the first taken before the second. */
nvmlReturn_t
nvmlGpmMetricsGet (nvmlGpmMetricsGet_t *get)
{
  if (get->version != 1 || get->numMetrics > 98)
    return 25;
  if (get->sample1 == NULL || get->sample2 == NULL || get->sample1->device < 0 ||
      get->sample1->device != get->sample2->device || get->sample1->serial >= get->sample2->serial)
    return 2;   /* NVML_ERROR_INVALID_ARGUMENT */
  gpm_calls++;
  for (unsigned int i = 0; i < get->numMetrics; i++)
    {
      nvmlGpmMetric_t *m = &get->metrics[i];

      m->nvmlReturn = 0;
      switch (m->metricId)
        {
        case 2: m->value = 12.25; break;
        case 3: m->value = 8.25; break;
        case 5: m->value = 3.75; break;
        case 10: m->value = 20.75; break;
        case 11: m->value = 0; break;
        case 12: m->value = 2.25; break;
        case 13: m->value = 1.25; break;
        case 20: m->value = 100; break;
        case 21: m->value = 250; break;
        default: m->nvmlReturn = 3; m->value = 0; break;
        }
    }
  return 0;
}
