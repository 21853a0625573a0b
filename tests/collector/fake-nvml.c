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
 * 4343 "pt_data_worker" (512 MiB, 7 %, 1 %); GPU 1 none. */

#include <stdio.h>
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
  m->used = (unsigned long long) (index_of (dev) + 1) * GIB;
  m->free = m->total - m->used;
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
