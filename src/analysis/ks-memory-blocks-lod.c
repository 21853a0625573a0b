/* ks-memory-blocks-lod.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-memory-blocks"

#include "config.h"

#include <string.h>

#include "ks-analysis-private.h"
#include "ks-memory-blocks.h"

/* A level of detail for the blocks row. A view whose pixel spans four
 * buckets or more of a level draws every block shorter than 8 buckets
 * folded (under 2 pixels wide): it takes their pixel rows from the
 * level's buckets, OR-ed per column, and walks only the blocks longer
 * than that. Each block is marked once, at the first level where it is
 * short; a coarser level ORs pairs of the finer one's buckets first. */

/* Buckets of the finest level: at most enough for a view of a tenth of
 * the snapshot across 1,600 pixels (3 MB at 160 rows, and as much again
 * for the coarser levels), at least enough for a whole view of a small
 * one (a frame there is cheap either way, but takes the same path). */
#define MAX_BUCKETS (1u << 17)
#define MIN_BUCKETS (1u << 15)
/* the coarsest level has this many buckets or fewer: enough for whole
 * views down to a few pixels wide */
#define LAST_BUCKETS 16u
#define SHORT_BUCKETS 8

static inline int
floor_int (double v)
{
  int i = (int) v;

  return i - (v < i);
}

static inline int
ceil_int (double v)
{
  int i = (int) v;

  return i + (v > i);
}

/* As the timeline's axis: y of an address, low addresses at the bottom. */
static double
row_y (const KsMemoryBlockDevice *device,
       double                     scale,
       guint64                    addr)
{
  return KS_MEMORY_LOD_PAD + (double) (device->span - ks_memory_blocks_position (device, addr)) * scale;
}

void
ks_memory_blocks_rows (const KsMemoryBlockDevice *device,
                       guint64                    addr,
                       gint64                     size,
                       int                       *row0,
                       int                       *row1)
{
  double scale = device->span > 0 ? (KS_MEMORY_LOD_HEIGHT - 2.0 * KS_MEMORY_LOD_PAD) / (double) device->span : 0;
  double y0 = row_y (device, scale, addr + (guint64) size);
  double y1 = row_y (device, scale, addr);
  int r0 = floor_int (y0);

  *row0 = MAX (0, r0);
  *row1 = MIN (KS_MEMORY_LOD_HEIGHT, MAX (r0 + 1, ceil_int (y1)));
  if (*row1 < *row0)
    *row1 = *row0;
}

static void
mark (const KsMemoryBlockDevice *device,
      KsMemoryLodLevel          *level,
      const KsMemoryBlock       *b)
{
  guint64 mask[KS_MEMORY_LOD_WORDS] = { 0 };
  guint j0 = (guint) ((b->start - device->lod_origin) / level->bucket_ns);
  guint j1 = (guint) ((b->end - device->lod_origin) / level->bucket_ns);
  int r0, r1;

  ks_memory_blocks_rows (device, b->addr, b->size, &r0, &r1);
  if (r0 >= r1)
    return;
  for (int r = r0; r < r1; r++)
    mask[r / 64] |= G_GUINT64_CONSTANT (1) << (r % 64);
  for (guint j = j0; j <= j1 && j < level->n_buckets; j++)
    for (guint w = 0; w < KS_MEMORY_LOD_WORDS; w++)
      level->cover[(gsize) j * KS_MEMORY_LOD_WORDS + w] |= mask[w];
}

void
_ks_memory_blocks_build_lod (KsMemoryBlockDevice *device)
{
  const KsMemoryBlock *blocks = (const KsMemoryBlock *) device->blocks->data;
  guint n = device->blocks->len, n_levels = 0, cap;
  gint64 extent, bucket = 1, last = G_MININT64;
  g_autofree guint8 *level_of = NULL;
  g_autofree guint32 *by_level = NULL;
  guint first[66] = { 0 };

  device->n_lod = 0;
  device->lod = NULL;
  if (n == 0)
    return;
  device->lod_origin = blocks[0].start;
  for (guint i = 0; i < n; i++)
    last = MAX (last, blocks[i].end);
  /* at least one bucket; a damaged clock must not overflow */
  extent = (gint64) MIN ((guint64) last - (guint64) device->lod_origin, (guint64) G_MAXINT64 / 4) + 1;
  cap = CLAMP (n, MIN_BUCKETS, MAX_BUCKETS);
  while (extent / bucket >= cap)
    bucket *= 2;
  for (gint64 b = bucket; n_levels < 64; b *= 2)
    {
      n_levels++;
      if ((extent - 1) / b + 1 <= LAST_BUCKETS || b > G_MAXINT64 / (4 * SHORT_BUCKETS))
        break;
    }

  device->n_lod = n_levels;
  device->lod = g_new0 (KsMemoryLodLevel, n_levels);
  for (guint k = 0; k < n_levels; k++)
    {
      KsMemoryLodLevel *level = &device->lod[k];

      level->bucket_ns = bucket << k;
      level->short_ns = level->bucket_ns * SHORT_BUCKETS;
      level->n_buckets = (guint) ((extent - 1) / level->bucket_ns + 1);
      level->cover = g_new0 (guint64, (gsize) level->n_buckets * KS_MEMORY_LOD_WORDS);
      level->walk = g_array_new (FALSE, FALSE, sizeof (guint32));
    }

  /* The first level where each block is short: n_levels for one long,
   * or longer than the coarsest level's short blocks. */
  level_of = g_new (guint8, n);
  for (guint i = 0; i < n; i++)
    {
      gint64 length = blocks[i].end - blocks[i].start;
      guint k = 0;

      if (length > device->long_ns)
        k = n_levels;
      else
        while (k < n_levels && length >= device->lod[k].short_ns)
          k++;
      level_of[i] = (guint8) k;
      first[k + 1]++;
      /* walked, by start, at every finer level (the long ones are
       * walked apart) */
      if (length <= device->long_ns)
        for (guint w = 0; w < k; w++)
          {
            guint32 index = i;

            g_array_append_val (device->lod[w].walk, index);
          }
    }
  for (guint k = 1; k <= n_levels; k++)
    first[k] += first[k - 1];
  by_level = g_new (guint32, MAX (1, n));
  for (guint i = 0; i < n; i++)
    by_level[first[level_of[i]]++] = i;
  /* first[k] is now where level k + 1's blocks begin */

  for (guint k = 0; k < n_levels; k++)
    {
      KsMemoryLodLevel *level = &device->lod[k];
      guint from = k > 0 ? first[k - 1] : 0;

      if (k > 0)
        {
          const KsMemoryLodLevel *finer = &device->lod[k - 1];

          for (guint j = 0; j < finer->n_buckets; j++)
            for (guint w = 0; w < KS_MEMORY_LOD_WORDS; w++)
              level->cover[(gsize) (j / 2) * KS_MEMORY_LOD_WORDS + w] |=
                finer->cover[(gsize) j * KS_MEMORY_LOD_WORDS + w];
        }
      for (guint i = from; i < first[k]; i++)
        mark (device, level, &blocks[by_level[i]]);
    }
}

void
_ks_memory_blocks_free_lod (KsMemoryBlockDevice *device)
{
  for (guint k = 0; k < device->n_lod; k++)
    {
      g_free (device->lod[k].cover);
      g_array_unref (device->lod[k].walk);
    }
  g_clear_pointer (&device->lod, g_free);
  device->n_lod = 0;
}
