/* ks-peaks.c: the dense peak rates of the GPUs that training runs on
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ks-peaks.h"

/* Dense rates (the datasheets' "with sparsity" figures halved), tensor
 * or matrix cores where the GPU has them; fp32 is the plain fp32 rate,
 * tf32 the tensor-core rate of fp32 matmuls when TF32 is allowed. */
#define T(fp64, fp32, tf32, fp16, bf16, fp8) { 0, fp64, fp32, tf32, fp16, bf16, fp8 }

static const struct
{
  const char *match[3];   /* words of the name, all required */
  KsPeak      peak;
} table[] = {
  { { "H100", "PCIE" }, { "NVIDIA H100 PCIe", "NVIDIA H100 datasheet (PCIe), sparsity halved",
                          T (51, 51, 378, 756, 756, 1513), 2000 } },
  { { "H100", "NVL" }, { "NVIDIA H100 NVL", "NVIDIA H100 datasheet (NVL), sparsity halved",
                         T (60, 60, 417.5, 835.5, 835.5, 1670.5), 3900 } },
  { { "H100" }, { "NVIDIA H100 SXM", "NVIDIA H100 datasheet (SXM), sparsity halved",
                  T (67, 67, 494.5, 989.5, 989.5, 1979), 3350 } },
  { { "H200", "NVL" }, { "NVIDIA H200 NVL", "NVIDIA H200 datasheet (NVL), sparsity halved",
                         T (60, 60, 417.5, 835.5, 835.5, 1670.5), 4800 } },
  { { "H200" }, { "NVIDIA H200", "NVIDIA H200 datasheet (SXM), sparsity halved",
                  T (67, 67, 494.5, 989.5, 989.5, 1979), 4800 } },
  { { "A100", "40GB" }, { "NVIDIA A100 40GB", "NVIDIA A100 datasheet (40GB)",
                          T (19.5, 19.5, 156, 312, 312, 0), 1555 } },
  { { "A100", "PCIE" }, { "NVIDIA A100 80GB PCIe", "NVIDIA A100 datasheet (80GB PCIe)",
                          T (19.5, 19.5, 156, 312, 312, 0), 1935 } },
  { { "A100" }, { "NVIDIA A100 80GB SXM", "NVIDIA A100 datasheet (80GB SXM)",
                  T (19.5, 19.5, 156, 312, 312, 0), 2039 } },
  { { "V100", "PCIE" }, { "NVIDIA V100 PCIe", "NVIDIA V100 datasheet (PCIe)",
                          T (7, 14, 0, 112, 0, 0), 900 } },
  { { "V100" }, { "NVIDIA V100 SXM2", "NVIDIA V100 datasheet (SXM2)",
                  T (7.8, 15.7, 0, 125, 0, 0), 900 } },
  { { "B200" }, { "NVIDIA B200", "NVIDIA HGX B200 datasheet, per GPU, sparsity halved",
                  T (37, 75, 1125, 2250, 2250, 4500), 8000 } },
  { { "L40S" }, { "NVIDIA L40S", "NVIDIA L40S datasheet, sparsity halved",
                  T (0, 91.6, 183, 362, 362, 733), 864 } },
  { { "L4" }, { "NVIDIA L4", "NVIDIA L4 datasheet, sparsity halved",
                T (0, 30.3, 60, 121, 121, 242.5), 300 } },
  { { "RTX", "4090" }, { "NVIDIA GeForce RTX 4090", "NVIDIA Ada Lovelace whitepaper, FP32 accumulate, dense",
                         T (0, 82.6, 82.6, 165.2, 165.2, 330.3), 1008 } },
  { { "MI250X" }, { "AMD Instinct MI250X", "AMD Instinct MI250X data sheet, matrix cores",
                    T (95.7, 95.7, 0, 383, 383, 0), 3276.8 } },
  { { "MI250" }, { "AMD Instinct MI250", "AMD Instinct MI250 data sheet, matrix cores",
                   T (90.5, 90.5, 0, 362.1, 362.1, 0), 3276.8 } },
  { { "MI300X" }, { "AMD Instinct MI300X", "AMD Instinct MI300X data sheet, matrix cores, sparsity halved",
                    T (163.4, 163.4, 653.7, 1307.4, 1307.4, 2614.9), 5300 } },
};

static KsPeak peaks[G_N_ELEMENTS (table)];

const KsPeak *
ks_peaks_get_table (guint *n)
{
  for (guint i = 0; i < G_N_ELEMENTS (table); i++)
    peaks[i] = table[i].peak;
  *n = G_N_ELEMENTS (table);
  return peaks;
}

/* @word in @name as a whole word: "L4" is not in "L40S". */
static gboolean
has_word (const char *name,
          const char *word)
{
  gsize len = strlen (word);

  for (const char *p = strstr (name, word); p != NULL; p = strstr (p + 1, word))
    if ((p == name || !g_ascii_isalnum (p[-1])) && !g_ascii_isalnum (p[len]))
      return TRUE;
  return FALSE;
}

const KsPeak *
ks_peaks_lookup (const char *name)
{
  g_autofree char *upper = NULL;

  if (name == NULL || *name == 0)
    return NULL;
  upper = g_ascii_strup (name, -1);
  for (guint i = 0; i < G_N_ELEMENTS (table); i++)
    {
      gboolean all = TRUE;

      for (guint w = 0; w < G_N_ELEMENTS (table[i].match) && table[i].match[w] != NULL; w++)
        all = all && has_word (upper, table[i].match[w]);
      if (all)
        return &table[i].peak;
    }
  return NULL;
}

double
ks_peak_get_tflops (const KsPeak *peak,
                    KsDtype       dtype)
{
  if (peak == NULL || dtype <= KS_DTYPE_UNKNOWN || dtype >= KS_N_DTYPES)
    return 0;
  if (peak->tflops[dtype] <= 0 && dtype == KS_DTYPE_TF32)
    return peak->tflops[KS_DTYPE_FP32];
  return peak->tflops[dtype];
}

double
ks_peak_get_ridge (const KsPeak *peak,
                   KsDtype       dtype)
{
  double tflops = ks_peak_get_tflops (peak, dtype);

  if (tflops <= 0 || peak->gbps <= 0)
    return 0;
  return tflops * 1e3 / peak->gbps;
}
