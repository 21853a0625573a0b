/* ks-gpm.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "ks-gpm.h"

#define MB 1e6

/* dmon's names are those nvidia-smi dmon --gpm-metrics prints for the
 * metric ids 1, 2, 3, 4, 5, 10 and 11 (driver 580). */
static const KsGpmField fields[] = {
  { "sm_active",     "smutil",  KS_GPM_SM_ACTIVE,     "%",       1,
    "NVML GPM SM activity: share of the SMs busy, over the sample period" },
  { "sm_occupancy",  "smocc",   "SM occupancy",       "%",       1,
    "NVML GPM SM occupancy: resident warps against the SMs' maximum" },
  { "tensor_active", "mmaact",  KS_GPM_TENSOR_ACTIVE, "%",       1,
    "NVML GPM tensor activity: share of the time any tensor-core pipe was busy" },
  { "dram_active",   "dram",    "DRAM activity",      "%",       1,
    "NVML GPM DRAM bandwidth used against its peak" },
  { "fp16_active",   NULL,      "FP16 activity",      "%",       1, "NVML GPM FP16 pipe activity (not tensor)" },
  { "fp32_active",   NULL,      "FP32 activity",      "%",       1, "NVML GPM FP32 pipe activity (not tensor)" },
  { "fp64_active",   "fp64",    "FP64 activity",      "%",       1, "NVML GPM FP64 pipe activity (not tensor)" },
  { "pcie_tx",       NULL,      "PCIe sent",          "bytes/s", MB, "NVML GPM PCIe traffic from the GPU" },
  { "pcie_rx",       NULL,      "PCIe received",      "bytes/s", MB, "NVML GPM PCIe traffic to the GPU" },
  { "nvlink_tx",     NULL,      "NVLink sent",        "bytes/s", MB, "NVML GPM NVLink traffic from the GPU, all links" },
  { "nvlink_rx",     NULL,      "NVLink received",    "bytes/s", MB, "NVML GPM NVLink traffic to the GPU, all links" },
  /* dmon only */
  { NULL,            "gract",   "Graphics activity",  "%",       1,
    "NVML GPM graphics activity: share of the time any context was active" },
  { NULL,            "intutil", "Integer activity",   "%",       1, "NVML GPM integer pipe activity" },
};

G_STATIC_ASSERT (KS_GPM_N_QUERY_FIELDS <= G_N_ELEMENTS (fields));

const KsGpmField *
ks_gpm_get_fields (guint *n_fields)
{
  *n_fields = G_N_ELEMENTS (fields);
  return fields;
}

const KsGpmField *
ks_gpm_find_field (const char *name,
                   gboolean    dmon)
{
  for (guint i = 0; i < G_N_ELEMENTS (fields); i++)
    {
      const char *f = dmon ? fields[i].dmon : fields[i].query;

      if (f != NULL && g_ascii_strcasecmp (f, name) == 0)
        return &fields[i];
    }
  return NULL;
}
