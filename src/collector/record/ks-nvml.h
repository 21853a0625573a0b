/* ks-nvml.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* NVML, loaded with dlopen at run time (libnvidia-ml.so.1, or the file
 * named by $KINESCOPE_NVML_LIBRARY): no build dependency on the driver.
 * The few types and functions used are declared in ks-nvml.c with the
 * layouts of NVIDIA's public nvml.h. */

typedef struct _KsNvml KsNvml;

typedef struct
{
  guint  index;
  char  *name;
  char  *uuid;
  char  *bus_id;
  guint64 total_memory;
  gboolean gpm;           /* the GPU's activity counters can be read */
  char  *gpm_missing;     /* when not: why, translated, for a diagnostic */
} KsNvmlDevice;

typedef enum
{
  KS_NVML_HAS_UTILIZATION = 1 << 0,
  KS_NVML_HAS_MEMORY      = 1 << 1,
  KS_NVML_HAS_TEMPERATURE = 1 << 2,
  KS_NVML_HAS_POWER       = 1 << 3,
  KS_NVML_HAS_SM_CLOCK    = 1 << 4,
  KS_NVML_HAS_RESERVED    = 1 << 5,
  KS_NVML_HAS_GPM         = 1 << 6,   /* at least one gpm[] value */
} KsNvmlFields;

/* The GPU's own activity counters (GPM, Hopper and later), as
 * nvidia-smi dmon --gpm-metrics shows them: shares of the time since
 * the previous sample, in %, and traffic in bytes per second. */
typedef enum
{
  KS_NVML_GPM_SM_ACTIVE = 0,   /* SMs busy */
  KS_NVML_GPM_SM_OCCUPANCY,    /* warps resident against the maximum */
  KS_NVML_GPM_TENSOR_ACTIVE,   /* any tensor-core pipe */
  KS_NVML_GPM_DRAM_ACTIVE,     /* DRAM bandwidth against its peak */
  KS_NVML_GPM_FP16_ACTIVE,
  KS_NVML_GPM_FP32_ACTIVE,
  KS_NVML_GPM_FP64_ACTIVE,
  KS_NVML_GPM_PCIE_TX,         /* bytes/s */
  KS_NVML_GPM_PCIE_RX,
  KS_NVML_GPM_NVLINK_TX,
  KS_NVML_GPM_NVLINK_RX,
  KS_NVML_GPM_N_METRICS
} KsNvmlGpmMetric;

/* TRUE for the traffic metrics (bytes/s), FALSE for the shares (%). */
#define KS_NVML_GPM_IS_RATE(m) ((m) >= KS_NVML_GPM_PCIE_TX)

typedef struct
{
  KsNvmlFields fields;
  guint        utilization_gpu;     /* % */
  guint        utilization_memory;  /* % */
  guint64      memory_used;         /* bytes, as nvidia-smi: without the driver's reserve */
  guint64      memory_total;        /* bytes */
  guint64      memory_reserved;     /* bytes the driver keeps (KS_NVML_HAS_RESERVED) */
  guint        temperature;         /* °C */
  double       power;               /* W */
  guint        sm_clock;            /* MHz */
  guint        gpm_valid;           /* bit (1 << KsNvmlGpmMetric) per gpm[] value given */
  double       gpm[KS_NVML_GPM_N_METRICS];
} KsNvmlSample;

/* A process using a GPU, as nvidia-smi pmon shows it. */
typedef struct
{
  guint    pid;
  char     name[64];             /* NVML's, else /proc/PID/comm; "" unknown */
  guint64  used_memory;          /* bytes, G_MAXUINT64 when NVML does not say */
  int      sm_util;              /* %, -1 when no sample since the last call */
  int      memory_util;          /* %, -1 likewise */
} KsNvmlProcess;

KsNvml             *ks_nvml_open          (GError       **error);
/* What a user is told when ks_nvml_open() failed with @error: the
 * library, why, and what to install. The CLI and the window say it. */
char               *ks_nvml_unavailable_message
                                          (const GError  *error);
void                ks_nvml_close         (KsNvml        *self);
guint               ks_nvml_get_n_devices (KsNvml        *self);
const KsNvmlDevice *ks_nvml_get_device    (KsNvml        *self,
                                           guint          index);
/* One sample of GPU @index. The GPM values are over the time since the
 * previous call for that GPU (since ks_nvml_open() for the first). */
gboolean            ks_nvml_sample        (KsNvml        *self,
                                           guint          index,
                                           KsNvmlSample  *sample);
/* The compute processes on GPU @index with their memory and, where NVML
 * has samples since the previous call for that GPU, their SM and memory
 * utilization. An empty array when there are none or NVML cannot say. */
GArray             *ks_nvml_get_processes (KsNvml        *self,
                                           guint          index);

G_END_DECLS
