/* ks-occupancy.c: how many of a GPU's warps a kernel launch can keep busy
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include <string.h>

#include "ks-occupancy.h"

/* The rules of the CUDA Occupancy Calculator, per compute capability:
 * registers go to warps in units of 256 and are split over 4 partitions
 * of the SM (2 on sm_60); shared memory goes to blocks in units of 256
 * bytes (128 from sm_80 on), plus 1 KiB that the system keeps per block
 * from sm_80 on; and an SM holds at most this many blocks. */
static guint
max_blocks_per_sm (guint major,
                   guint minor)
{
  switch (major)
    {
    case 3:
      return 16;
    case 5:
    case 6:
    case 9:
      return 32;
    case 7:
      return minor == 5 ? 16 : 32;
    case 8:
      return minor == 0 ? 32 : minor == 9 ? 24 : 16;
    case 10:
      return minor == 1 ? 24 : 32;
    case 11:
      return minor == 0 ? 24 : 32;
    case 12:
      return 24;
    default:
      return 0;
    }
}

static inline guint64
round_up (guint64 x,
          guint64 unit)
{
  return (x + unit - 1) / unit * unit;
}

/* Fills @out for one launch of @kernel on @gpu and returns TRUE, or
 * returns FALSE when the GPU's properties or the launch's geometry are
 * unknown. achieved_pct is the PyTorch profiler's "est. achieved
 * occupancy %" (and TensorBoard's): the blocks that fit on an SM at
 * once, at most the grid's blocks per SM, times the block's threads over
 * the SM's threads. The PyTorch profiler counts a kernel that uses more
 * than the default 48 KiB of shared memory per block as 0 %; here it is
 * measured like any other. */
gboolean
ks_occupancy_compute (const KsGpu     *gpu,
                      const KsGpuInfo *kernel,
                      KsOccupancy     *out)
{
  guint64 threads = (guint64) kernel->kernel.block[0] * kernel->kernel.block[1] * kernel->kernel.block[2];
  guint64 blocks = (guint64) kernel->kernel.grid[0] * kernel->kernel.grid[1] * kernel->kernel.grid[2];
  guint block_limit = max_blocks_per_sm (gpu->compute_major, gpu->compute_minor);
  guint warp = gpu->warp_size;
  guint registers = kernel->kernel.registers;
  guint partitions = gpu->compute_major == 6 && gpu->compute_minor == 0 ? 2 : 4;
  guint smem_unit = gpu->compute_major >= 8 ? 128 : 256;
  guint smem_reserved = gpu->compute_major >= 8 ? 1024 : 0;
  guint registers_per_block = gpu->registers_per_block > 0 ? gpu->registers_per_block : gpu->registers_per_sm;
  guint warps_per_block;
  guint active;
  guint64 smem;
  double per_sm;

  memset (out, 0, sizeof *out);
  /* Properties from a file: anything out of a GPU's range means unknown. */
  if (block_limit == 0 || warp == 0 || warp > 1024 || gpu->sm_count == 0 || gpu->max_threads_per_sm < warp
      || gpu->registers_per_sm == 0 || gpu->shared_memory_per_sm == 0 || threads == 0 || blocks == 0)
    return FALSE;

  warps_per_block = (guint) ((threads + warp - 1) / warp);
  out->limit = KS_OCCUPANCY_LIMIT_BLOCKS;
  active = block_limit;

  /* Threads: only whole blocks fit. */
  if (threads > gpu->max_threads_per_sm
      || (gpu->max_threads_per_block > 0 && threads > gpu->max_threads_per_block))
    active = 0;
  else if ((gpu->max_threads_per_sm / warp) / warps_per_block < active)
    {
      active = (gpu->max_threads_per_sm / warp) / warps_per_block;
      out->limit = KS_OCCUPANCY_LIMIT_WARPS;
    }

  /* Registers, allocated per warp in each partition of the SM. */
  if (registers > 0 && active > 0)
    {
      guint64 per_warp = round_up ((guint64) registers * warp, 256);
      guint by_registers = 0;

      if (registers <= 256 && per_warp * round_up (warps_per_block, partitions) <= registers_per_block)
        by_registers = (guint) ((gpu->registers_per_sm / partitions / per_warp) * partitions / warps_per_block);
      if (by_registers < active)
        {
          active = by_registers;
          out->limit = KS_OCCUPANCY_LIMIT_REGISTERS;
        }
    }

  /* Shared memory, with the carve-out at its largest: the kernel ran, so
   * a block needing more than the default limit had opted in to more. */
  smem = round_up ((guint64) kernel->kernel.shared_memory + smem_reserved, smem_unit);
  if (active > 0)
    {
      guint by_smem = smem > 0 ? (guint) MIN (gpu->shared_memory_per_sm / smem, G_MAXUINT) : G_MAXUINT;

      if (by_smem < active)
        {
          active = by_smem;
          out->limit = KS_OCCUPANCY_LIMIT_SHARED_MEMORY;
        }
    }

  per_sm = (double) blocks / gpu->sm_count;
  out->active_blocks = active;
  out->theoretical_pct = 100.0 * active * threads / gpu->max_threads_per_sm;
  out->achieved_pct = 100.0 * MIN (per_sm, (double) active) * threads / gpu->max_threads_per_sm;
  return TRUE;
}
