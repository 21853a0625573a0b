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

/* A level of detail for the blocks row. A frame folds every block under
 * two pixels tall, and in a view whose pixel spans four buckets or more
 * of a level every block shorter than 8 buckets (under 2 pixels wide):
 * it takes their pixel rows from the level's buckets, OR-ed per column,
 * and walks only the others, the blocks tall and long enough to be
 * drawn (few: a block 2 pixels tall is a 78th of the address axis).
 * Each block is marked once, at the first level where it folds; a
 * coarser level ORs pairs of the finer one's buckets first. */

/* Buckets of the finest level: at most enough for a view of 2.5-5 % of
 * the snapshot across 1,600 pixels (narrower ones walk few enough
 * blocks; 6 MB at 160 rows, and as much again for the coarser levels),
 * at least enough for a whole view of a small one (a frame there is
 * cheap either way, but takes the same path). */
#define MAX_BUCKETS (1u << 18)
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

/* The rows a block covers, and whether it is under two pixels tall (a
 * frame folds it however long it lasts). */
static gboolean
block_rows (const KsMemoryBlockDevice *device,
            double                     scale,
            guint64                    addr,
            gint64                     size,
            int                       *row0,
            int                       *row1)
{
  double y0 = row_y (device, scale, addr + (guint64) size);
  double y1 = row_y (device, scale, addr);
  int r0 = floor_int (y0);

  *row0 = MAX (0, r0);
  *row1 = MIN (KS_MEMORY_LOD_HEIGHT, MAX (r0 + 1, ceil_int (y1)));
  if (*row1 < *row0)
    *row1 = *row0;
  return y1 - y0 < 2;
}

static double
axis_scale (const KsMemoryBlockDevice *device)
{
  return device->span > 0 ? (KS_MEMORY_LOD_HEIGHT - 2.0 * KS_MEMORY_LOD_PAD) / (double) device->span : 0;
}

/* Marks @b's rows in the buckets it overlaps: for the blocks short at
 * @level, a few buckets each. */
static void
mark (const KsMemoryBlockDevice *device,
      KsMemoryLodLevel          *level,
      const KsMemoryBlock       *b,
      int                        r0,
      int                        r1)
{
  guint64 mask[KS_MEMORY_LOD_WORDS] = { 0 };
  guint64 j0 = (guint64) (b->start - device->lod_origin) / (guint64) level->bucket_ns;
  guint64 j1 = (guint64) (b->end - device->lod_origin) / (guint64) level->bucket_ns;

  for (int r = r0; r < r1; r++)
    mask[r / 64] |= G_GUINT64_CONSTANT (1) << (r % 64);
  for (guint64 j = j0; j <= j1 && j < level->n_buckets; j++)
    for (guint w = 0; w < KS_MEMORY_LOD_WORDS; w++)
      level->cover[j * KS_MEMORY_LOD_WORDS + w] |= mask[w];
}

#define CHUNK_ROWS 32

/* Marks the finest level with the blocks folded at every level, however
 * many buckets each spans: per row, the furthest bucket reached by a
 * block that starts in each bucket, then one sweep along the row; rows
 * a chunk at a time to bound the memory. */
static void
mark_folded (const KsMemoryBlockDevice *device,
             KsMemoryLodLevel          *level,
             const guint32             *folded,
             guint                      n_folded,
             const guint8              *row0,
             const guint8              *row1)
{
  const KsMemoryBlock *blocks = (const KsMemoryBlock *) device->blocks->data;
  guint nb = level->n_buckets;
  g_autofree guint32 *reach = g_new (guint32, (gsize) CHUNK_ROWS * nb);

  for (int c = 0; c < KS_MEMORY_LOD_HEIGHT; c += CHUNK_ROWS)
    {
      memset (reach, 0, (gsize) CHUNK_ROWS * nb * sizeof (guint32));
      for (guint f = 0; f < n_folded; f++)
        {
          guint i = folded[f];
          const KsMemoryBlock *b = &blocks[i];
          guint64 j0 = (guint64) (b->start - device->lod_origin) / (guint64) level->bucket_ns;
          guint64 j1 = (guint64) (b->end - device->lod_origin) / (guint64) level->bucket_ns;
          int r0 = MAX (row0[i], c), r1 = MIN (row1[i], c + CHUNK_ROWS);

          if (j0 >= nb)
            continue;
          j1 = MIN (j1, nb - 1);
          for (int r = r0; r < r1; r++)
            {
              guint32 *at = &reach[(gsize) (r - c) * nb + j0];

              /* one past the last bucket: 0 is none */
              *at = MAX (*at, (guint32) j1 + 1);
            }
        }
      for (int r = c; r < MIN (c + CHUNK_ROWS, KS_MEMORY_LOD_HEIGHT); r++)
        {
          const guint32 *line = &reach[(gsize) (r - c) * nb];
          guint64 bit = G_GUINT64_CONSTANT (1) << (r % 64);
          guint32 run = 0;

          for (guint j = 0; j < nb; j++)
            {
              run = MAX (run, line[j]);
              if (run > j)
                level->cover[(gsize) j * KS_MEMORY_LOD_WORDS + r / 64] |= bit;
            }
        }
    }
}

void
_ks_memory_blocks_build_lod (KsMemoryBlockDevice *device)
{
  const KsMemoryBlock *blocks = (const KsMemoryBlock *) device->blocks->data;
  guint n = device->blocks->len, n_levels = 0, cap;
  double scale = axis_scale (device);
  gint64 extent, bucket = 1, last = G_MININT64;
  g_autofree guint8 *level_of = NULL;
  g_autofree guint8 *row0 = NULL;
  g_autofree guint8 *row1 = NULL;
  g_autofree guint32 *by_level = NULL;
  guint first[66] = { 0 };

  G_STATIC_ASSERT (KS_MEMORY_LOD_HEIGHT <= G_MAXUINT8);

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

  /* The first level where each block folds: 0 for one under two pixels
   * tall, n_levels for a long one (walked apart) or one too long for
   * every level. */
  level_of = g_new (guint8, n);
  row0 = g_new (guint8, n);
  row1 = g_new (guint8, n);
  for (guint i = 0; i < n; i++)
    {
      gint64 length = blocks[i].end - blocks[i].start;
      int r0, r1;
      gboolean thin = block_rows (device, scale, blocks[i].addr, blocks[i].size, &r0, &r1);
      guint k = 0;

      row0[i] = (guint8) r0;
      row1[i] = (guint8) r1;
      if (length > device->long_ns)
        k = n_levels;
      else if (!thin)
        while (k < n_levels && length >= device->lod[k].short_ns)
          k++;
      level_of[i] = (guint8) k;
      first[k + 1]++;
      /* walked, by start, at every finer level */
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

  mark_folded (device, &device->lod[0], by_level, first[0], row0, row1);
  for (guint k = 1; k < n_levels; k++)
    {
      KsMemoryLodLevel *level = &device->lod[k];
      const KsMemoryLodLevel *finer = &device->lod[k - 1];

      for (guint j = 0; j < finer->n_buckets; j++)
        for (guint w = 0; w < KS_MEMORY_LOD_WORDS; w++)
          level->cover[(gsize) (j / 2) * KS_MEMORY_LOD_WORDS + w] |= finer->cover[(gsize) j * KS_MEMORY_LOD_WORDS + w];
      for (guint i = first[k - 1]; i < first[k]; i++)
        mark (device, level, &blocks[by_level[i]], row0[by_level[i]], row1[by_level[i]]);
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
