/* ks-occupancy.h: how many of a GPU's warps a kernel launch can keep busy
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-trace.h"

G_BEGIN_DECLS

typedef enum
{
  KS_OCCUPANCY_LIMIT_NONE = 0,
  KS_OCCUPANCY_LIMIT_WARPS,          /* the SM's threads */
  KS_OCCUPANCY_LIMIT_REGISTERS,
  KS_OCCUPANCY_LIMIT_SHARED_MEMORY,
  KS_OCCUPANCY_LIMIT_BLOCKS,         /* the SM's block slots */
} KsOccupancyLimit;

typedef struct
{
  guint            active_blocks;    /* blocks of this kernel that fit on one SM at once */
  KsOccupancyLimit limit;            /* what stops one more from fitting */
  double           theoretical_pct;  /* active_blocks' threads over the SM's threads */
  double           achieved_pct;     /* the same, at most the grid's blocks per SM */
} KsOccupancy;

gboolean ks_occupancy_compute (const KsGpu     *gpu,
                               const KsGpuInfo *kernel,
                               KsOccupancy     *out);

G_END_DECLS
