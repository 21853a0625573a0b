/* ks-timeline-hit.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-timeline"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "ks-format.h"
#include "ks-sample-stack.h"
#include "ks-timeline-private.h"

/* Hit-testing: the slice or folded block under a point, a slice's
 * place in the widget, the hover and the tooltip. */

/* Row and lane geometry: content y of a slice's lane, or FALSE. */
gboolean
_ks_timeline_slice_content_y (KsTimeline *self,
                              guint32     track,
                              guint32     slice,
                              double     *y)
{
  KsTrace *trace = ks_session_get_trace (self->session);
  guint r = ks_timeline_layout_find_track_row (self->layout, track);
  const KsRow *row;

  if (r == KS_NO_INDEX)
    return FALSE;
  row = ks_timeline_layout_get_row (self->layout, r);
  if (row->y < 0)
    return FALSE;
  *y = row->y + ks_timeline_layout_lane_y (trace->tracks[track].depth[slice]);
  return TRUE;
}

gboolean
ks_timeline_get_slice_point (KsTimeline *self,
                             guint32     track,
                             guint32     slice,
                             double     *x,
                             double     *y)
{
  KsTrace *trace;
  double cy, t0, t1, wy;

  g_return_val_if_fail (KS_IS_TIMELINE (self), FALSE);

  if (self->session == NULL)
    return FALSE;
  trace = ks_session_get_trace (self->session);
  if (track >= trace->n_tracks || slice >= trace->tracks[track].n_slices)
    return FALSE;
  if (!_ks_timeline_slice_content_y (self, track, slice, &cy))
    return FALSE;

  wy = KS_RULER_HEIGHT + cy - scroll_offset (self) + KS_LANE_HEIGHT / 2.0;
  if (wy < KS_RULER_HEIGHT || wy >= gtk_widget_get_height (GTK_WIDGET (self)))
    return FALSE;

  ks_session_get_visible (self->session, &t0, &t1);
  t0 = MAX (t0, (double)trace->tracks[track].start[slice]);
  t1 = MIN (t1, (double)trace->tracks[track].end[slice]);
  if (x)
    *x = ks_timeline_time_to_x (self, (t0 + t1) / 2);
  if (y)
    *y = wy;
  return TRUE;
}

gboolean
_ks_timeline_hit_at (KsTimeline *self,
                     double      x,
                     double      y,
                     KsHit      *hit)
{
  KsTimeView view;
  double cy;
  guint r;
  const KsRow *row;

  if (self->layout == NULL || x < KS_HEADER_WIDTH || y < KS_RULER_HEIGHT)
    return FALSE;

  cy = y - KS_RULER_HEIGHT + scroll_offset (self);
  r = ks_timeline_layout_row_at_y (self->layout, cy);
  if (r == KS_NO_INDEX)
    return FALSE;
  row = ks_timeline_layout_get_row (self->layout, r);
  get_view (self, &view);
  return ks_timeline_layout_hit (self->layout, r, &view, x - KS_HEADER_WIDTH, cy - row->y, hit);
}

gboolean
_ks_timeline_item_at (KsTimeline *self,
                      double      x,
                      double      y,
                      ItemHit    *hit)
{
  KsTimeView view;
  double cy;
  guint r;
  const KsRow *row;

  if (self->layout == NULL || x < KS_HEADER_WIDTH || y < KS_RULER_HEIGHT)
    return FALSE;

  cy = y - KS_RULER_HEIGHT + scroll_offset (self);
  r = ks_timeline_layout_row_at_y (self->layout, cy);
  if (r == KS_NO_INDEX)
    return FALSE;
  row = ks_timeline_layout_get_row (self->layout, r);
  get_view (self, &view);
  hit->is_block = row->kind == KS_ROW_MEMORY_BLOCKS;
  if (hit->is_block)
    return ks_timeline_layout_hit_block (self->layout, r, &view, x - KS_HEADER_WIDTH, cy - row->y, &hit->block);
  return ks_timeline_layout_hit_instant (self->layout, r, &view, x - KS_HEADER_WIDTH, cy - row->y, &hit->instant);
}

void
_ks_timeline_update_hover (KsTimeline *self)
{
  KsHit hit;
  gboolean has = self->pointer_inside && _ks_timeline_hit_at (self, self->pointer_x, self->pointer_y, &hit);

  if (has != self->has_hover ||
      (has && (hit.track != self->hover.track || hit.slice != self->hover.slice ||
               hit.count != self->hover.count || hit.x0 != self->hover.x0)))
    {
      self->has_hover = has;
      if (has)
        self->hover = hit;
      gtk_widget_queue_draw (GTK_WIDGET (self));
    }
}

/* The value of a counter row at the pointer: the last sample at or
 * before its time. */
static char *
counter_tooltip (KsTimeline   *self,
                 const KsRow  *row,
                 double        x)
{
  const KsCounter *c = ks_timeline_layout_get_counter (self->layout, row->index);
  const char *unit = ks_timeline_layout_get_counter_unit (self->layout, row->index);
  double t = ks_timeline_x_to_time (self, x);
  guint32 lo = 0, hi = c->n_samples;
  g_autofree char *value = NULL;
  g_autofree char *when = NULL;
  g_autofree char *label = NULL;

  while (lo < hi)
    {
      guint32 mid = lo + (hi - lo) / 2;

      if ((double)c->ts[mid] <= t)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return NULL;

  if (ks_timeline_layout_counter_is_bytes (self->layout, row->index))
    value = ks_format_bytes ((guint64)MAX (0, c->value[lo - 1]));
  else if (*unit)
    value = g_strdup_printf ("%.4g %s", c->value[lo - 1], unit);
  else
    value = g_strdup_printf ("%.4g", c->value[lo - 1]);
  when = ks_time_format_duration (c->ts[lo - 1]);
  label = ks_format_dup_cut_text (row->label, KS_TEXT_MAX_CHARS, TRUE);

  return g_markup_printf_escaped (_("<b>%s</b>\n%s since %s"), label, value, when);
}

/* A tooltip is no place for a 200-frame stack; the selection has it all */
#define TOOLTIP_STACK_FRAMES 12

static void append_markup (GString    *markup,
                           const char *format,
                           ...) G_GNUC_PRINTF (2, 3);

static void
append_markup (GString    *markup,
               const char *format,
               ...)
{
  g_autofree char *text = NULL;
  va_list args;

  va_start (args, format);
  text = g_markup_vprintf_escaped (format, args);
  va_end (args);
  g_string_append (markup, text);
}

/* A Python samples slice: the frame, its count and its stack, innermost
 * first. NULL when the slice is not one. */
static char *
sample_tooltip (KsTrace     *trace,
                const KsHit *hit,
                const char  *duration)
{
  g_autoptr(GArray) stack = ks_sample_stack_new (trace, hit->track, hit->slice);
  g_autoptr(GString) markup = NULL;
  g_autofree char *samples = NULL;
  const KsSampleStackFrame *frame;

  if (stack == NULL)
    return NULL;

  frame = &g_array_index (stack, KsSampleStackFrame, 0);
  samples = ks_sample_stack_format_samples (frame->samples);
  markup = g_string_new (NULL);
  for (guint i = 0; i < MIN (stack->len, TOOLTIP_STACK_FRAMES); i++)
    {
      const KsSampleStackFrame *f = &g_array_index (stack, KsSampleStackFrame, i);
      g_autofree char *function = ks_format_dup_cut_text (f->function, KS_TEXT_MAX_CHARS, TRUE);
      g_autofree char *location = ks_format_dup_cut_text (f->location, KS_TEXT_MAX_CHARS, TRUE);

      if (i == 0)
        append_markup (markup, "<b>%s</b>\n%s\n%s · %s\n", function, location, samples, duration);
      append_markup (markup, "\n%s  <small>%s</small>", function, location);
    }
  if (stack->len > TOOLTIP_STACK_FRAMES)
    {
      guint more = stack->len - TOOLTIP_STACK_FRAMES;
      g_autofree char *line = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "… and %u more frame",
                                                            "… and %u more frames", more),
                                               more);

      append_markup (markup, "\n<i>%s</i>", line);
    }
  return g_string_free (g_steal_pointer (&markup), FALSE);
}

/* A Python stack's innermost frames, a line each. */
static void
append_stack (GString              *markup,
              const KsMemsnapStack *stack)
{
  for (guint i = 0; stack != NULL && i < MIN (stack->n_frames, TOOLTIP_STACK_FRAMES); i++)
    {
      g_autofree char *name = ks_format_dup_cut_text (stack->frames[i].name, KS_TEXT_MAX_CHARS, TRUE);
      g_autofree char *file = ks_format_dup_cut_text (stack->frames[i].file, KS_TEXT_MAX_CHARS, TRUE);

      append_markup (markup, "\n%s  <small>%s:%" G_GINT64_FORMAT "</small>", name, file, stack->frames[i].line);
    }
}

/* A snapshot's segment event or error, marked on its blocks row: what
 * it did, and for an error the allocator then and the advice's cause. */
static char *
mark_tooltip (KsTimeline       *self,
              const KsBlockHit *hit)
{
  const KsMemoryBlocks *blocks = ks_memory_blocks_get (ks_session_get_trace (self->session));
  const KsMemoryBlockDevice *dev = &blocks->devices[hit->device];
  const KsMemoryMark *m = &g_array_index (dev->marks, KsMemoryMark, hit->mark);
  const KsMemsnapDevice *d = ks_memsnap_get_device (blocks->snap, dev->snap_device);
  const KsMemsnapEntry *e = &g_array_index (d->entries, KsMemsnapEntry, m->entry);
  g_autoptr(GString) markup = g_string_new (NULL);
  g_autofree char *size = ks_format_bytes ((guint64) MAX (0, e->size));
  g_autofree char *when = ks_time_format_timestamp (m->time);

  if (e->action == KS_MEMSNAP_OOM)
    {
      g_autoptr(KsMemoryLayout) layout = ks_memory_blocks_layout_at (dev, m->time);
      const KsMemsnapState *s = &layout->state;
      g_autofree char *device_free = e->device_free >= 0 ? ks_format_bytes ((guint64) e->device_free)
                                                          : g_strdup (_("Unknown"));
      g_autofree char *free_bytes = ks_format_bytes ((guint64) MAX (0, s->free_bytes));
      g_autofree char *largest = ks_format_bytes ((guint64) s->largest_free_bytes);
      gboolean fragmentation = s->free_bytes >= e->size && s->largest_free_bytes < e->size;

      append_markup (markup, _("<b>Out of memory: %s requested</b> at %s\n"
                               "Device free %s, free inside segments %s, largest free block %s\n%s"),
                     size, when, device_free, free_bytes, largest,
                     fragmentation ? _("Fragmentation: try PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True")
                                   : _("Demand: more than the device had"));
    }
  else
    {
      g_autofree char *addr = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", e->addr);

      append_markup (markup, _("<b>%s %s</b> at %s\nat %s"),
                     ks_memsnap_action_to_string (e->action), size, addr, when);
    }
  append_stack (markup, ks_memsnap_get_stack (blocks->snap, e->stack));
  return g_string_free (g_steal_pointer (&markup), FALSE);
}

static char *
item_tooltip (KsTimeline    *self,
              const ItemHit *hit)
{
  KsTrace *trace = ks_session_get_trace (self->session);
  g_autoptr(GString) markup = g_string_new (NULL);

  if (hit->is_block && hit->block.block == KS_NO_INDEX)
    return mark_tooltip (self, &hit->block);
  if (hit->is_block)
    {
      const KsMemoryBlocks *blocks = ks_memory_blocks_get (trace);
      const KsMemoryBlock *b = &g_array_index (blocks->devices[hit->block.device].blocks, KsMemoryBlock,
                                               hit->block.block);
      g_autofree char *size = ks_format_bytes ((guint64) b->size);
      g_autofree char *from = ks_time_format_timestamp (b->start);
      g_autofree char *to = ks_time_format_timestamp (b->end);
      g_autofree char *lived = ks_time_format_duration (b->end - b->start);
      g_autofree char *addr = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", b->addr);

      append_markup (markup, _("<b>%s</b> at %s, stream %d"), size, addr, b->stream);
      g_string_append_c (markup, '\n');
      if (b->freed)
        append_markup (markup, _("Allocated at %s, freed at %s (%s)"), from, to, lived);
      else
        append_markup (markup, _("Allocated at %s, never freed"), from);
      append_stack (markup, ks_memsnap_get_stack (blocks->snap, b->stack));
      return g_string_free (g_steal_pointer (&markup), FALSE);
    }

  if (hit->instant.count > 1)
    {
      g_autofree char *span = ks_time_format_duration (hit->instant.end - hit->instant.start);

      append_markup (markup, _("<b>%u events</b> folded (too small to draw)\n%s\nClick to zoom in"),
                     hit->instant.count, span);
    }
  else
    {
      const KsInstant *in = &trace->instants[hit->instant.instant];
      g_autofree char *name = ks_format_dup_cut_text (ks_trace_string (trace, in->name), KS_TEXT_MAX_CHARS, TRUE);
      g_autofree char *when = ks_time_format_timestamp (in->ts);

      append_markup (markup, _("<b>%s</b>\nat %s · click for details"), name, when);
    }
  return g_string_free (g_steal_pointer (&markup), FALSE);
}

/* The allocator at the pointer's time, on the blocks row away from a
 * block: its fragmentation figures. */
static char *
allocator_tooltip (KsTimeline  *self,
                   const KsRow *row,
                   double       x)
{
  const KsMemoryBlocks *blocks = ks_memory_blocks_get (ks_session_get_trace (self->session));
  gint64 t = (gint64) ks_timeline_x_to_time (self, x);
  g_autoptr(KsMemoryLayout) layout = ks_memory_blocks_layout_at (&blocks->devices[row->index], t);
  const KsMemsnapState *s = &layout->state;
  g_autofree char *when = ks_time_format_timestamp (t);
  g_autofree char *reserved = ks_format_bytes ((guint64) s->reserved_bytes);
  g_autofree char *allocated = ks_format_bytes ((guint64) s->allocated_bytes);
  g_autofree char *free_bytes = ks_format_bytes ((guint64) MAX (0, s->free_bytes));
  g_autofree char *largest = ks_format_bytes ((guint64) s->largest_free_bytes);

  return g_markup_printf_escaped (_("<b>Allocator at %s</b>\nReserved %s (segments: %u), allocated %s (blocks: %u)\n"
                                    "Free inside segments %s (holes: %u), largest free block %s"),
                                  when, reserved, s->segments, allocated, s->active_blocks,
                                  free_bytes, s->inactive_blocks, largest);
}

char *
ks_timeline_dup_tooltip_markup (KsTimeline   *self,
                                double        x,
                                double        y,
                                GdkRectangle *area)
{
  KsTrace *trace;
  KsHit hit;
  g_autofree char *dur = NULL;
  char *markup;
  double cy;

  g_return_val_if_fail (KS_IS_TIMELINE (self), NULL);

  if (area != NULL)
    area->width = area->height = 0;

  if (!_ks_timeline_hit_at (self, x, y, &hit))
    {
      guint r;
      const KsRow *row;
      ItemHit item;

      if (_ks_timeline_item_at (self, x, y, &item))
        return item_tooltip (self, &item);

      if (self->layout == NULL || x < KS_HEADER_WIDTH || y < KS_RULER_HEIGHT)
        return NULL;
      r = ks_timeline_layout_row_at_y (self->layout, y - KS_RULER_HEIGHT + scroll_offset (self));
      if (r == KS_NO_INDEX)
        return NULL;
      row = ks_timeline_layout_get_row (self->layout, r);
      if (row->kind == KS_ROW_MEMORY_BLOCKS)
        return allocator_tooltip (self, row, x);
      if (row->kind != KS_ROW_COUNTER)
        return NULL;
      return counter_tooltip (self, row, x);
    }

  trace = ks_session_get_trace (self->session);
  dur = ks_time_format_duration (hit.end - hit.start);

  if (hit.count > 1)
    {
      /* The share its bars are drawn by (ks_timeline_layout_busy_ns). */
      double busy = hit.end > hit.start
                    ? 100.0 * ks_timeline_layout_busy_ns (self->layout, hit.track, hit.depth, hit.start, hit.end) /
                      (hit.end - hit.start)
                    : 100.0;

      markup = g_markup_printf_escaped (_("<b>%u events</b> folded (too small to draw)\n%s, busy %.0f %%\nClick to zoom in"),
                                        hit.count, dur, busy);
    }
  else if ((markup = sample_tooltip (trace, &hit, dur)) != NULL)
    ;
  else
    {
      g_autofree char *name = ks_format_dup_cut_text (ks_trace_string (trace, trace->tracks[hit.track].name_id[hit.slice]),
                                                      KS_TEXT_MAX_CHARS, TRUE);

      markup = g_markup_printf_escaped ("<b>%s</b>\n%s · %s", name, dur,
                                        ks_slice_kind_to_string (trace->tracks[hit.track].slice_kind[hit.slice]));
    }

  if (area != NULL && _ks_timeline_slice_content_y (self, hit.track, hit.slice, &cy))
    {
      area->x = (int)floor (KS_HEADER_WIDTH + MAX (hit.x0, 0));
      area->width = MAX (1, (int)ceil (MIN (hit.x1, time_area_width (self)) - MAX (hit.x0, 0)));
      area->y = (int)(KS_RULER_HEIGHT + cy - scroll_offset (self));
      area->height = KS_LANE_HEIGHT;
    }

  return markup;
}

gboolean
_ks_timeline_query_tooltip (GtkWidget  *widget,
                            int         x,
                            int         y,
                            gboolean    keyboard,
                            GtkTooltip *tooltip)
{
  KsTimeline *self = (KsTimeline *)widget;
  g_autofree char *markup = NULL;
  GdkRectangle area;

  if (keyboard)
    return FALSE;
  markup = ks_timeline_dup_tooltip_markup (self, x, y, &area);
  if (markup == NULL)
    return FALSE;
  gtk_tooltip_set_markup (tooltip, markup);
  if (area.width > 0)
    gtk_tooltip_set_tip_area (tooltip, &area);
  return TRUE;
}
