/* ks-slice-colors.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-slice-colors"

#include "config.h"

#include <math.h>

#include "ks-slice-colors.h"

static guint32
fnv1a (const char *s)
{
  guint32 h = 2166136261u;

  for (; *s; s++)
    {
      h ^= (guchar)*s;
      h *= 16777619u;
    }
  /* Final avalanche so that names differing in one trailing digit
   * (kernel_1, kernel_2) still land on distant hues. */
  h ^= h >> 15;
  h *= 0x2c1b3c6d;
  h ^= h >> 12;
  return h;
}

KsColor
ks_palette_name_color (const char  *name,
                       KsSliceKind  kind,
                       gboolean     dark)
{
  guint32 h = fnv1a (name != NULL ? name : "");
  double hue = h % 360;
  double sat, light;

  switch (kind)
    {
    case KS_SLICE_MEMCPY:
    case KS_SLICE_MEMSET:
      return ks_palette_copy_color (kind, KS_COPY_UNKNOWN, dark);

    case KS_SLICE_SYNC:
      return dark ? 0x8a8a90ff : 0xa8a8b0ff;

    case KS_SLICE_KERNEL:
      /* Kernels avoid the green/amber band reserved for copies. */
      hue = fmod (170 + (h % 270), 360.0);
      if (hue > 20 && hue < 60)
        hue += 160;
      sat = 0.55 + ((h >> 9) % 20) / 100.0;
      light = dark ? 0.50 : 0.62;
      break;

    case KS_SLICE_PYTHON:
    case KS_SLICE_SAMPLE:
      sat = 0.30 + ((h >> 9) % 15) / 100.0;
      light = dark ? 0.42 : 0.74;
      break;

    case KS_SLICE_CUDA_RUNTIME:
    case KS_SLICE_CUDA_DRIVER:
      hue = 180 + (h % 60);
      sat = 0.45;
      light = dark ? 0.45 : 0.66;
      break;

    case KS_SLICE_GENERIC:
    case KS_SLICE_CPU_OP:
    case KS_SLICE_USER_ANNOTATION:
    case KS_SLICE_NVTX:
    case KS_SLICE_OSRT:
    case KS_SLICE_ASYNC:
    case KS_SLICE_GPU_ANNOTATION:
    case KS_N_SLICE_KINDS:
    default:
      sat = 0.50 + ((h >> 9) % 20) / 100.0;
      light = dark ? 0.46 : 0.68;
      break;
    }

  return ks_color_from_hsl (hue, sat, light);
}

KsColor
ks_palette_waiting_color (KsColor  color,
                          gboolean dark)
{
  /* two thirds of the way to the rows' background: the hue still says
   * which frame, the contrast says it did not run */
  double bg = dark ? 0x24 : 0xff;
  double keep = 1.0 / 3.0;
  guint r = (guint) (((color >> 24) & 0xff) * keep + bg * (1 - keep));
  guint g = (guint) (((color >> 16) & 0xff) * keep + bg * (1 - keep));
  guint b = (guint) (((color >> 8) & 0xff) * keep + bg * (1 - keep));

  return (KsColor) (r << 24 | g << 16 | b << 8 | (color & 0xff));
}

KsColor
ks_palette_copy_color (KsSliceKind kind,
                       guint8      copy_kind,
                       gboolean    dark)
{
  if (kind == KS_SLICE_MEMSET)
    return dark ? 0xa56a1eff : 0xe5a50aff;   /* amber */

  switch ((KsCopyKind)copy_kind)
    {
    case KS_COPY_DTOH:
    case KS_COPY_ATOH:
      return dark ? 0x1b8a5aff : 0x57e389ff; /* light green */
    case KS_COPY_DTOD:
    case KS_COPY_ATOA:
    case KS_COPY_PTOP:
    case KS_COPY_ATOD:
    case KS_COPY_DTOA:
      return dark ? 0x4d7a2aff : 0x8ff0a4ff; /* pale green */
    case KS_COPY_HTOD:
    case KS_COPY_HTOA:
    case KS_COPY_HTOH:
    case KS_COPY_UNKNOWN:
    default:
      return dark ? 0x26a269ff : 0x2ec27eff; /* green */
    }
}
