/* ks-allocator-map.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-allocator-map"

#include "config.h"

#include <adwaita.h>
#include <math.h>

#include "ks-allocator-map.h"
#include "ks-slice-colors.h"

#define BAR_HEIGHT 14
#define BAR_GAP    4
/* Past this many segments the bars get thinner, not the page longer. */
#define MAX_HEIGHT 360

struct _KsAllocatorMap
{
  GtkWidget                  parent_instance;

  const KsMemoryBlocks      *blocks;
  const KsMemoryBlockDevice *device;
  KsMemoryLayout            *layout;
  guint32                    highlight;
};

G_DEFINE_FINAL_TYPE (KsAllocatorMap, ks_allocator_map, GTK_TYPE_WIDGET)

static void
append_rect (GtkSnapshot *snapshot,
             double       x,
             double       y,
             double       w,
             double       h,
             KsColor      color)
{
  GdkRGBA rgba = { KS_COLOR_R (color), KS_COLOR_G (color), KS_COLOR_B (color), KS_COLOR_A (color) };

  gtk_snapshot_append_color (snapshot, &rgba, &GRAPHENE_RECT_INIT (x, y, w, h));
}

static double
bar_height (KsAllocatorMap *self)
{
  guint n = self->layout != NULL ? self->layout->state.segments : 0;

  if (n == 0)
    return BAR_HEIGHT;
  return MIN (BAR_HEIGHT, MAX (2.0, (double) MAX_HEIGHT / n - BAR_GAP));
}

static void
ks_allocator_map_snapshot (GtkWidget   *widget,
                           GtkSnapshot *snapshot)
{
  KsAllocatorMap *self = KS_ALLOCATOR_MAP (widget);
  gboolean dark = adw_style_manager_get_dark (adw_style_manager_get_default ());
  double width = gtk_widget_get_width (widget);
  double h = bar_height (self);
  KsColor hole = dark ? 0xffffff1a : 0x00000012;
  KsColor outline = dark ? 0xffffffff : 0x000000ff;
  guint32 segment = KS_NO_INDEX;
  double y = -h - BAR_GAP;
  guint64 seg_addr = 0;
  double seg_scale = 0;

  if (self->layout == NULL)
    return;
  for (guint i = 0; i < self->layout->pieces->len; i++)
    {
      const KsMemoryPiece *p = &g_array_index (self->layout->pieces, KsMemoryPiece, i);
      double x0, x1;

      if (p->segment != segment)
        {
          const KsMemoryBlock *s = &g_array_index (self->device->segments, KsMemoryBlock, p->segment);

          segment = p->segment;
          y += h + BAR_GAP;
          seg_addr = s->addr;
          seg_scale = s->size > 0 ? width / (double) s->size : 0;
          append_rect (snapshot, 0, y, width, h, hole);
        }
      x0 = (double) (p->addr - seg_addr) * seg_scale;
      x1 = (double) (p->addr + (guint64) p->size - seg_addr) * seg_scale;
      if (p->block == KS_NO_INDEX)
        continue;
      {
        const KsMemoryBlock *b = &g_array_index (self->device->blocks, KsMemoryBlock, p->block);
        const KsMemsnapStack *stack = ks_memsnap_get_stack (self->blocks->snap, b->stack);
        KsColor color = ks_palette_name_color (stack != NULL ? stack->text : "", KS_SLICE_CPU_OP, dark);

        /* a pixel apart, so that neighbours read as two */
        append_rect (snapshot, x0, y, MAX (1, x1 - x0 - 1), h, color);
        if (p->block == self->highlight)
          {
            append_rect (snapshot, x0, y, MAX (1, x1 - x0), 2, outline);
            append_rect (snapshot, x0, y + h - 2, MAX (1, x1 - x0), 2, outline);
          }
      }
    }
}

static void
ks_allocator_map_measure (GtkWidget      *widget,
                          GtkOrientation  orientation,
                          int             for_size,
                          int            *minimum,
                          int            *natural,
                          int            *minimum_baseline,
                          int            *natural_baseline)
{
  KsAllocatorMap *self = KS_ALLOCATOR_MAP (widget);

  if (orientation == GTK_ORIENTATION_HORIZONTAL)
    *minimum = *natural = 120;
  else
    {
      guint n = self->layout != NULL ? self->layout->state.segments : 0;

      *minimum = *natural = (int) ceil (n * (bar_height (self) + BAR_GAP));
    }
}

static void
ks_allocator_map_finalize (GObject *object)
{
  KsAllocatorMap *self = KS_ALLOCATOR_MAP (object);

  g_clear_pointer (&self->layout, ks_memory_layout_free);

  G_OBJECT_CLASS (ks_allocator_map_parent_class)->finalize (object);
}

static void
ks_allocator_map_class_init (KsAllocatorMapClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->finalize = ks_allocator_map_finalize;
  widget_class->snapshot = ks_allocator_map_snapshot;
  widget_class->measure = ks_allocator_map_measure;
  gtk_widget_class_set_css_name (widget_class, "allocatormap");
}

static void
ks_allocator_map_init (KsAllocatorMap *self)
{
  self->highlight = KS_NO_INDEX;
}

GtkWidget *
ks_allocator_map_new (void)
{
  return g_object_new (KS_TYPE_ALLOCATOR_MAP, NULL);
}

void
ks_allocator_map_set_layout (KsAllocatorMap            *self,
                             const KsMemoryBlocks      *blocks,
                             const KsMemoryBlockDevice *device,
                             KsMemoryLayout            *layout,
                             guint32                    highlight)
{
  g_return_if_fail (KS_IS_ALLOCATOR_MAP (self));

  g_clear_pointer (&self->layout, ks_memory_layout_free);
  self->blocks = blocks;
  self->device = device;
  self->layout = layout;
  self->highlight = highlight;
  gtk_widget_queue_resize (GTK_WIDGET (self));
}

void
ks_allocator_map_get_counts (KsAllocatorMap *self,
                             guint          *segments,
                             guint          *blocks,
                             guint          *holes)
{
  g_return_if_fail (KS_IS_ALLOCATOR_MAP (self));

  *segments = self->layout != NULL ? self->layout->state.segments : 0;
  *blocks = self->layout != NULL ? self->layout->state.active_blocks : 0;
  *holes = self->layout != NULL ? self->layout->state.inactive_blocks : 0;
}
