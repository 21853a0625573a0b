/* ks-timeline-layout-blocks.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-timeline-layout"

#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-timeline-layout-private.h"

/* A memory snapshot's allocations drawn by address: each block from its
 * alloc to its free at its address among the segments, every one of them.
 * Blocks smaller than a few pixels either way fold, as slices do: the
 * pixels they cover are drawn as runs, in the folded colour. The
 * segments are drawn faintly behind, so that what no block covers inside
 * them (the allocator's free holes) reads as such. */

#define PAD 2
#define MARK_HEIGHT 6

/* Whether the row carries the snapshot's segment events and errors
 * itself: a snapshot opened alone has them as instants of its own row. */
static gboolean
draws_marks (KsTimelineLayout *self)
{
  return self->trace->format != KS_FORMAT_MEMORY_SNAPSHOT;
}

static const char *
mark_category (KsTimelineLayout          *self,
               const KsMemoryBlockDevice *dev,
               const KsMemoryMark        *m)
{
  const KsMemsnapDevice *d = ks_memsnap_get_device (self->blocks->snap, dev->snap_device);

  return g_array_index (d->entries, KsMemsnapEntry, m->entry).action == KS_MEMSNAP_OOM ? "oom" : "segment";
}

typedef struct
{
  double top;                /* y of the highest position */
  double scale;              /* pixels per byte of the bands */
} Axis;

static void
axis_init (Axis                      *axis,
           const KsMemoryBlockDevice *dev)
{
  axis->top = PAD;
  axis->scale = dev->span > 0 ? (KS_BLOCKS_HEIGHT - 2.0 * PAD) / (double) dev->span : 0;
}

/* Low addresses at the bottom, as a stack grows. */
static double
axis_y (const Axis                *axis,
        const KsMemoryBlockDevice *dev,
        guint64                    addr)
{
  return axis->top + (double) (dev->span - ks_memory_blocks_position (dev, addr)) * axis->scale;
}

static void
block_rect (const KsTimeView           *view,
            const Axis                 *axis,
            const KsMemoryBlockDevice  *dev,
            const KsMemoryBlock        *b,
            double                     *x0,
            double                     *x1,
            double                     *y0,
            double                     *y1)
{
  *x0 = (b->start - view->t0) / view->ns_per_px;
  *x1 = (b->end - view->t0) / view->ns_per_px;
  *y0 = axis_y (axis, dev, b->addr + (guint64) b->size);
  *y1 = axis_y (axis, dev, b->addr);
}

/* floor() and ceil() of a pixel coordinate (well inside int), as one
 * conversion: a frame takes them for millions of folded blocks. */
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

static inline void
push (KsPrims *prims,
      double   x,
      double   y,
      double   w,
      double   h,
      KsColor  color)
{
  KsPrimRect r = { (float) x, (float) y, (float) w, (float) h, color };

  g_array_append_val (prims->rects, r);
}

KsColor
ks_timeline_layout_block_color (KsTimelineLayout *self,
                                guint32           stack,
                                gboolean          dark)
{
  const KsMemsnapStack *s = ks_memsnap_get_stack (self->blocks->snap, stack);

  /* the same stack, the same colour: what one line of code holds reads as one */
  return ks_palette_name_color (s != NULL ? s->text : "", KS_SLICE_CPU_OP, dark);
}

/* One block in view: drawn alone, or its pixels marked in @cover. */
static inline void
draw_block (KsTimelineLayout          *self,
            const KsMemoryBlockDevice *dev,
            const KsMemoryBlock       *b,
            const KsTimeView          *view,
            double                     t1,
            const Axis                *axis,
            const KsTheme             *theme,
            KsPrims                   *prims,
            guint8                    *cover)
{
  int h = KS_BLOCKS_HEIGHT;
  double x0, x1, y0, y1;

  if (b->start > t1 || b->end < view->t0)
    return;
  block_rect (view, axis, dev, b, &x0, &x1, &y0, &y1);
  x0 = MAX (x0, -2);
  x1 = MIN (x1, view->width + 2);
  if (x1 - x0 >= KS_FOLD_MIN_PX && y1 - y0 >= 2)
    {
      /* a 1-pixel gap above sets blocks one on another apart */
      if (prims != NULL)
        push (prims, x0, y0, x1 - x0, MAX (1, y1 - y0 - 1),
              ks_timeline_layout_block_color (self, b->stack, theme->dark));
      return;
    }
  /* Too small to draw alone: mark the pixels it covers. */
  {
    int row0 = floor_int (y0);
    int c0 = MAX (0, floor_int (x0));
    int c1 = MIN (view->width, MAX (c0 + 1, ceil_int (x1)));

    for (int y = MAX (0, row0); c1 > c0 && y < MIN (h, MAX (row0 + 1, ceil_int (y1))); y++)
      {
        guint8 *line = cover + (gsize) y * view->width;

        /* most are a pixel or two wide */
        if (c1 - c0 <= 4)
          for (int x = c0; x < c1; x++)
            line[x] = 1;
        else
          memset (line + c0, 1, c1 - c0);
      }
  }
}

/* The level of detail for @view: the coarsest whose buckets are a
 * quarter of a pixel or less, so that its short blocks are under two
 * pixels wide and fold; NULL where the view is too narrow for any. */
static const KsMemoryLodLevel *
lod_level (const KsMemoryBlockDevice *dev,
           const KsTimeView          *view)
{
  const KsMemoryLodLevel *best = NULL;

  G_STATIC_ASSERT (KS_MEMORY_LOD_HEIGHT == KS_BLOCKS_HEIGHT && KS_MEMORY_LOD_PAD == PAD);
  /* a short block is under 8 buckets: 2 pixels */
  G_STATIC_ASSERT (KS_FOLD_MIN_PX > 2.0);
  for (guint k = 0; k < dev->n_lod; k++)
    if (4.0 * (double) dev->lod[k].bucket_ns <= view->ns_per_px)
      best = &dev->lod[k];
  return best;
}

/* The pixels of the short blocks, from @level's buckets: each column
 * takes the buckets its time overlaps. */
static void
cover_from_level (const KsMemoryBlockDevice *dev,
                  const KsMemoryLodLevel    *level,
                  const KsTimeView          *view,
                  guint8                    *cover)
{
  double bucket = (double) level->bucket_ns;

  for (int c = 0; c < view->width; c++)
    {
      double a = (view->t0 + c * view->ns_per_px - (double) dev->lod_origin) / bucket;
      double b = (view->t0 + (c + 1) * view->ns_per_px - (double) dev->lod_origin) / bucket;
      gint64 j0, j1;
      guint64 words[KS_MEMORY_LOD_WORDS] = { 0 };

      if (b < 0 || a >= level->n_buckets)
        continue;
      j0 = a < 0 ? 0 : (gint64) a;
      j1 = MIN ((gint64) level->n_buckets - 1, (gint64) ceil (b) - 1);
      for (gint64 j = j0; j <= j1; j++)
        for (guint w = 0; w < KS_MEMORY_LOD_WORDS; w++)
          words[w] |= level->cover[(gsize) j * KS_MEMORY_LOD_WORDS + w];
      for (guint w = 0; w < KS_MEMORY_LOD_WORDS; w++)
        while (words[w] != 0)
          {
            int y = (int) (w * 64) + __builtin_ctzll (words[w]);

            words[w] &= words[w] - 1;
            cover[(gsize) y * view->width + c] = 1;
          }
    }
}

/* Every block in view drawn or marked in @cover (KS_BLOCKS_HEIGHT lines
 * of view->width), through the level of detail unless @exact. Returns
 * whether a level was used. */
static gboolean
draw_blocks (KsTimelineLayout          *self,
             const KsMemoryBlockDevice *dev,
             const KsTimeView          *view,
             const Axis                *axis,
             const KsTheme             *theme,
             gboolean                   exact,
             KsPrims                   *prims,
             guint8                    *cover)
{
  const KsMemoryBlock *blocks = (const KsMemoryBlock *) dev->blocks->data;
  const KsMemoryLodLevel *level = exact ? NULL : lod_level (dev, view);
  double t1 = view->t0 + view->width * view->ns_per_px;
  KsMemoryBlockIter iter;
  guint i;

  if (level == NULL)
    {
      ks_memory_block_iter_init (&iter, dev, (gint64) floor (view->t0), (gint64) ceil (t1));
      while (ks_memory_block_iter_next (&iter, &i))
        draw_block (self, dev, &blocks[i], view, t1, axis, theme, prims, cover);
      return FALSE;
    }

  cover_from_level (dev, level, view, cover);
  /* the long blocks, then the others too long for the level: none of
   * these lasts more than long_ns, so the first that may reach the view
   * starts at most that much before it */
  for (i = 0; i < dev->long_blocks->len; i++)
    {
      const KsMemoryBlock *b = &blocks[g_array_index (dev->long_blocks, guint32, i)];

      if (b->start > t1)
        break;
      draw_block (self, dev, b, view, t1, axis, theme, prims, cover);
    }
  {
    const guint32 *walk = (const guint32 *) level->walk->data;
    double from = view->t0 - (double) dev->long_ns;
    guint lo = 0, hi = level->walk->len;

    while (lo < hi)
      {
        guint mid = lo + (hi - lo) / 2;

        if ((double) blocks[walk[mid]].start < from)
          lo = mid + 1;
        else
          hi = mid;
      }
    for (i = lo; i < level->walk->len && blocks[walk[i]].start <= t1; i++)
      draw_block (self, dev, &blocks[walk[i]], view, t1, axis, theme, prims, cover);
  }
  return TRUE;
}

void
_ks_timeline_layout_build_block_prims (KsTimelineLayout *self,
                                       const KsRow      *row,
                                       const KsTimeView *view,
                                       const KsTheme    *theme,
                                       KsPrims          *prims)
{
  const KsMemoryBlockDevice *dev = &self->blocks->devices[row->index];
  double t1 = view->t0 + view->width * view->ns_per_px;
  int h = KS_BLOCKS_HEIGHT;
  g_autofree guint8 *cover = g_new0 (guint8, (gsize) MAX (1, view->width) * h);
  KsColor segment = theme->dark ? 0xffffff1a : 0x00000012;
  guint i;
  Axis axis;

  axis_init (&axis, dev);

  /* The bands' edges: addresses no segment ever held lie between. */
  for (i = 1; i < dev->bands->len; i++)
    {
      const KsMemoryBand *band = &g_array_index (dev->bands, KsMemoryBand, i);

      push (prims, 0, floor (axis.top + (double) (dev->span - band->offset) * axis.scale), view->width, 1,
            theme->row_separator);
    }

  for (i = 0; i < dev->segments->len; i++)
    {
      const KsMemoryBlock *s = &g_array_index (dev->segments, KsMemoryBlock, i);
      double x0, x1, y0, y1;

      if (s->end < view->t0 || s->start > t1)
        continue;
      block_rect (view, &axis, dev, s, &x0, &x1, &y0, &y1);
      x0 = MAX (x0, -2);
      x1 = MIN (x1, view->width + 2);
      push (prims, x0, y0, MAX (1, x1 - x0), MAX (1, y1 - y0), segment);
    }

  draw_blocks (self, dev, view, &axis, theme, FALSE, prims, cover);

  /* Segment events and errors along the top, over the blocks. */
  for (i = 0; draws_marks (self) && i < dev->marks->len; i++)
    {
      const KsMemoryMark *m = &g_array_index (dev->marks, KsMemoryMark, i);
      double x = floor ((m->time - view->t0) / view->ns_per_px);

      if (x >= -2 && x <= view->width + 2)
        push (prims, x - 1, 0, 3, MARK_HEIGHT,
              ks_timeline_layout_category_color (mark_category (self, dev, m), theme));
    }

  /* The folded pixels, a run of each line at a time. */
  for (int y = 0; y < h; y++)
    {
      const guint8 *line = cover + (gsize) y * view->width;
      int x = 0;

      while (x < view->width)
        {
          int start;

          if (!line[x])
            {
              x++;
              continue;
            }
          for (start = x; x < view->width && line[x]; x++)
            ;
          push (prims, start, y, x - start, 1, theme->folded);
        }
    }
}

gboolean
ks_timeline_layout_block_cover (KsTimelineLayout *self,
                                guint             device,
                                const KsTimeView *view,
                                gboolean          exact,
                                guint8           *cover)
{
  const KsMemoryBlockDevice *dev;
  Axis axis;

  g_return_val_if_fail (self->blocks != NULL && device < self->blocks->n_devices, FALSE);

  dev = &self->blocks->devices[device];
  axis_init (&axis, dev);
  memset (cover, 0, (gsize) MAX (0, view->width) * KS_BLOCKS_HEIGHT);
  return draw_blocks (self, dev, view, &axis, ks_theme_get (FALSE), exact, NULL, cover);
}

guint
ks_timeline_layout_find_blocks_row (KsTimelineLayout *self,
                                    guint             device)
{
  for (guint r = 0; r < self->rows->len; r++)
    {
      const KsRow *row = &g_array_index (self->rows, KsRow, r);

      if (row->kind == KS_ROW_MEMORY_BLOCKS && row->index == device)
        return r;
    }
  return KS_NO_INDEX;
}

void
ks_timeline_layout_block_rect (KsTimelineLayout *self,
                               guint             device,
                               guint32           block,
                               const KsTimeView *view,
                               KsBlockHit       *rect)
{
  const KsMemoryBlockDevice *dev = &self->blocks->devices[device];
  double x0, x1, y0, y1;
  Axis axis;

  axis_init (&axis, dev);
  block_rect (view, &axis, dev, &g_array_index (dev->blocks, KsMemoryBlock, block), &x0, &x1, &y0, &y1);
  rect->device = device;
  rect->block = block;
  rect->mark = KS_NO_INDEX;
  rect->x0 = x0;
  rect->x1 = x1;
  rect->y0 = y0;
  rect->y1 = y1;
}

gboolean
ks_timeline_layout_hit_block (KsTimelineLayout *self,
                              guint             row_index,
                              const KsTimeView *view,
                              double            x,
                              double            y_in_row,
                              KsBlockHit       *hit)
{
  const KsRow *row;
  const KsMemoryBlockDevice *dev;
  KsMemoryBlockIter iter;
  gint64 t;
  guint i;
  double best = G_MAXDOUBLE;
  Axis axis;

  g_return_val_if_fail (row_index < self->rows->len, FALSE);

  row = &g_array_index (self->rows, KsRow, row_index);
  if (row->kind != KS_ROW_MEMORY_BLOCKS)
    return FALSE;
  dev = &self->blocks->devices[row->index];
  axis_init (&axis, dev);
  t = (gint64) floor (view->t0 + x * view->ns_per_px);

  if (draws_marks (self) && y_in_row < MARK_HEIGHT)
    for (i = 0; i < dev->marks->len; i++)
      {
        const KsMemoryMark *m = &g_array_index (dev->marks, KsMemoryMark, i);
        double mx = floor ((m->time - view->t0) / view->ns_per_px);

        if (fabs (x - mx) <= 2.5)
          {
            hit->device = row->index;
            hit->block = KS_NO_INDEX;
            hit->mark = i;
            hit->x0 = hit->x1 = mx;
            hit->y0 = 0;
            hit->y1 = MARK_HEIGHT;
            return TRUE;
          }
      }

  /* The smallest block drawn under the point: a block drawn a pixel
   * wide or tall is hit over that pixel. */
  /* a block is hit only where it ends past t - 1.5 px */
  ks_memory_block_iter_init (&iter, dev, (gint64) floor (t - 2 * view->ns_per_px), (gint64) ceil (t + view->ns_per_px));
  while (ks_memory_block_iter_next (&iter, &i))
    {
      const KsMemoryBlock *b = &g_array_index (dev->blocks, KsMemoryBlock, i);
      double x0, x1, y0, y1;

      if (b->start > t + view->ns_per_px)
        continue;
      block_rect (view, &axis, dev, b, &x0, &x1, &y0, &y1);
      if (x < x0 - 0.5 || x >= MAX (x1, x0 + 1) + 0.5 || y_in_row < y0 - 0.5 || y_in_row >= MAX (y1, y0 + 1) + 0.5)
        continue;
      if ((x1 - x0) * (y1 - y0) < best)
        {
          best = (x1 - x0) * (y1 - y0);
          hit->device = row->index;
          hit->block = i;
          hit->mark = KS_NO_INDEX;
          hit->x0 = x0;
          hit->x1 = x1;
          hit->y0 = y0;
          hit->y1 = y1;
        }
    }
  return best < G_MAXDOUBLE;
}
