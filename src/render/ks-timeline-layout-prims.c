/* ks-timeline-layout-prims.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-timeline-layout"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "ks-format.h"
#include "ks-timeline-layout-private.h"

/* Drawing primitives: the content of slice and counter rows, row
 * headers and the ruler, replayed by the GTK widget and the cairo
 * renderer alike. */

KsColor
ks_timeline_layout_slice_color (KsTimelineLayout *self,
                                const KsTrack    *track,
                                guint32           slice,
                                gboolean          dark)
{
  KsSliceKind kind = track->slice_kind[slice];
  guint32 name = track->name_id[slice];
  KsColor *cache;

  if (kind == KS_SLICE_MEMCPY || kind == KS_SLICE_MEMSET)
    return ks_palette_copy_color (kind, track->gpu != NULL ? track->gpu[slice].copy.copy_kind : 0, dark);

  if (self->name_colors[dark ? 1 : 0] == NULL)
    self->name_colors[dark ? 1 : 0] = g_new0 (KsColor, MAX (1, self->trace->n_strings));
  cache = self->name_colors[dark ? 1 : 0];

  if (name >= self->trace->n_strings)
    return ks_palette_name_color ("", kind, dark);
  if (cache[name] == 0)
    cache[name] = ks_palette_name_color (ks_trace_string (self->trace, name), kind, dark);
  /* a frame the thread waited in: its colour, faded */
  if (kind == KS_SLICE_SAMPLE && self->waiting_category != 0 && track->category[slice] == self->waiting_category)
    return ks_palette_waiting_color (cache[name], dark);
  return cache[name];
}

void
ks_prims_init (KsPrims *prims)
{
  prims->rects = g_array_new (FALSE, FALSE, sizeof (KsPrimRect));
  prims->texts = g_array_new (FALSE, FALSE, sizeof (KsPrimText));
  prims->strings = g_string_chunk_new (256);
}

void
ks_prims_clear (KsPrims *prims)
{
  g_clear_pointer (&prims->rects, g_array_unref);
  g_clear_pointer (&prims->texts, g_array_unref);
  g_clear_pointer (&prims->strings, g_string_chunk_free);
}

void
ks_prims_reset (KsPrims *prims)
{
  g_array_set_size (prims->rects, 0);
  g_array_set_size (prims->texts, 0);
  g_string_chunk_clear (prims->strings);
}

static inline void
push_rect (KsPrims *prims,
           float    x,
           float    y,
           float    w,
           float    h,
           KsColor  color)
{
  KsPrimRect r = { x, y, w, h, color };

  g_array_append_val (prims->rects, r);
}

/* @text as far as a label @w px wide can show it (see
 * KS_LABEL_MAX_CHARS): Pango lays out the whole of a text before it
 * ellipsizes it. */
static const char *
drawable_text (KsPrims    *prims,
               const char *text,
               float       w)
{
  g_autofree char *cut = ks_format_cut_text (text, KS_LABEL_MAX_CHARS (w), FALSE);

  return cut != NULL ? g_string_chunk_insert (prims->strings, cut) : text;
}

static inline void
push_text (KsPrims    *prims,
           float       x,
           float       y,
           float       w,
           float       h,
           KsColor     color,
           const char *text,
           gboolean    bold)
{
  KsPrimText t = { x, y, w, h, color, drawable_text (prims, text, w), bold, 0 };

  g_array_append_val (prims->texts, t);
}

/* A label over a graph: on a backdrop, so that the bars under it do not
 * cross it out. */
static void
push_label (KsPrims       *prims,
            float          x,
            float          y,
            float          w,
            float          h,
            const KsTheme *theme,
            const char    *text)
{
  KsPrimText t = { x, y, w, h, theme->dim_foreground, drawable_text (prims, text, w), FALSE, theme->label_backdrop };

  g_array_append_val (prims->texts, t);
}

/* Ticks at least this far apart; a label gets this width less a margin. */
#define TICK_MIN_PX   110
#define TICK_LABEL_PX 105

gint64
ks_time_view_tick_step (const KsTimeView *view)
{
  return ks_time_tick_step (view->ns_per_px * view->width, view->width, TICK_MIN_PX);
}

void
ks_timeline_layout_build_ruler (const KsTimeView *view,
                                const KsTheme    *theme,
                                int               width,
                                int               height,
                                int               header_width,
                                int               ruler_height,
                                KsPrims          *prims)
{
  double span = view->ns_per_px * view->width;
  double t1 = view->t0 + span;
  gint64 step = ks_time_view_tick_step (view);
  /* Minor ticks split 1-2-5 steps in fifths or halves, when 4 px apart. */
  gint64 minor = step % 5 == 0 ? step / 5 : step / 2;
  gint64 scale = (gint64)MAX (fabs (view->t0), fabs (t1));
  gint64 t;

  push_rect (prims, 0, 0, width, ruler_height, theme->ruler_background);
  push_rect (prims, 0, ruler_height - 1, width, 1, theme->row_separator);

  if (minor > 0 && span / minor < view->width / 4.0)
    for (t = (gint64)floor (view->t0 / minor) * minor; t <= t1; t += minor)
      {
        double x = floor (header_width + (t - view->t0) / view->ns_per_px);

        if (x >= header_width)
          push_rect (prims, x, ruler_height - 5, 1, 4, theme->dim_foreground);
      }

  for (t = (gint64)floor (view->t0 / step) * step; t <= t1; t += step)
    {
      double x = floor (header_width + (t - view->t0) / view->ns_per_px);
      g_autofree char *label = NULL;

      if (x < header_width)
        continue;
      label = ks_time_format_tick (t, step, scale);
      push_rect (prims, x, 2, 1, ruler_height - 3, theme->dim_foreground);
      push_rect (prims, x, ruler_height, 1, height - ruler_height, theme->grid);
      push_text (prims, x + 3, 0, TICK_LABEL_PX, ruler_height - 4, theme->foreground,
                 g_string_chunk_insert (prims->strings, label), FALSE);
    }

  push_rect (prims, 0, 0, header_width, ruler_height, theme->header_background);
}

void
ks_timeline_layout_build_header (KsTimelineLayout *self,
                                 guint             r,
                                 const KsTheme    *theme,
                                 int               width,
                                 int               header_width,
                                 KsPrims          *prims)
{
  const KsRow *row;

  g_return_if_fail (r < self->rows->len);

  row = &g_array_index (self->rows, KsRow, r);
  if (row->kind == KS_ROW_GROUP)
    {
      g_autofree char *text = g_strdup_printf ("%s %s", row->expanded ? "▾" : "▸", row->label);

      push_rect (prims, 0, 0, width, row->height, theme->group_background);
      push_text (prims, 6, 0, width - 12, row->height, theme->foreground,
                 g_string_chunk_insert (prims->strings, text), TRUE);
    }
  else
    push_text (prims, 6 + row->indent * 12, KS_ROW_PADDING, header_width - 12 - row->indent * 12,
               MIN (KS_LANE_HEIGHT, row->height), theme->dim_foreground, row->label, FALSE);
  push_rect (prims, 0, row->height - 1, width, 1, theme->row_separator);
}

/* Matches too small to draw on their own: a tick of the match colour,
 * at least 2 px wide, where each one lies inside its folded block (one
 * per pixel column at most). */
static void
push_folded_matches (const KsTrack    *track,
                     guint             depth,
                     const KsLodItem  *it,
                     const KsTimeView *view,
                     const guint8     *matches,
                     float             y,
                     float             h,
                     KsColor           color,
                     KsPrims          *prims)
{
  const guint32 *idx = track->by_depth[depth];
  float last_x = -G_MAXFLOAT;

  for (guint32 k = it->pos; k < it->pos + it->count; k++)
    {
      guint32 s = idx[k];
      float x0, x1;

      if (!matches[track->name_id[s]])
        continue;
      x0 = (track->start[s] - view->t0) / view->ns_per_px;
      x1 = (track->end[s] - view->t0) / view->ns_per_px;
      x0 = MAX (MIN (x0, it->x1 - 2), it->x0);
      if (x0 < last_x + 2 || x0 > view->width + 2)
        continue;
      x1 = MAX (x1, x0 + 2);
      push_rect (prims, x0, y, x1 - x0, h, color);
      last_x = x0;

      /* Nothing more can be drawn in these 2 px: skip the slices that end
       * there, so that a fold of millions costs a tick per column. */
      {
        guint32 next = ks_track_depth_lower_bound (track, depth,
                                                   (gint64)ceil (view->t0 + (last_x + 2) * view->ns_per_px));

        if (next > k + 1)
          k = next - 1;
      }
    }
}

/* A folded block as busy as it is: a faint tint over its extent, and in
 * each pixel column a bar from the lane's bottom as high as the share of
 * the column its slices cover (Nsight's density), so that a stream busy
 * 10 % of the time does not read as a solid one. Columns of about the
 * same height are one rectangle. */
static void
push_density (KsTimelineLayout *self,
              const KsTrack    *track,
              guint             depth,
              const KsLodItem  *it,
              const KsTimeView *view,
              KsColor           color,
              float             y,
              float             h,
              KsPrims          *prims)
{
  double block_t0 = track->start[it->first];
  double block_t1 = MAX (track->end[it->first], track->end[it->last]);
  int c0 = MAX (0, (int)floor (it->x0));
  int c1 = MIN (view->width, (int)ceil (it->x1));
  int run_start = -1;
  float run_h = 0;

  push_rect (prims, MAX (it->x0, -2.0f), y, MIN (it->x1, view->width + 2.0f) - MAX (it->x0, -2.0f), h,
             (color & 0xffffff00) | 0x30);

  for (int c = c0; c <= c1; c++)
    {
      float bh = 0;

      if (c < c1)
        {
          double a = MAX (block_t0, view->t0 + c * view->ns_per_px);
          double b = MIN (block_t1, view->t0 + (c + 1) * view->ns_per_px);
          double frac = ks_timeline_layout_busy_ns (self, track->id, depth, a, b) / view->ns_per_px;

          /* Whatever ran in the column shows, if only as one pixel. */
          if (frac > 0)
            bh = MAX (1.0f, (float)(MIN (frac, 1.0) * h));
        }

      if (run_start >= 0 && (c == c1 || fabsf (bh - run_h) >= 0.5f))
        {
          if (run_h > 0)
            push_rect (prims, run_start, y + h - run_h, c - run_start, run_h, color);
          run_start = -1;
        }
      if (c < c1 && run_start < 0)
        {
          run_start = c;
          run_h = bh;
        }
    }
}

static void
build_slice_prims (KsTimelineLayout *self,
                   const KsRow      *row,
                   const KsTimeView *view,
                   const KsTheme    *theme,
                   const guint8     *matches,
                   KsPrims          *prims)
{
  const KsTrack *track = &self->trace->tracks[row->index];
  g_autoptr(GArray) items = g_array_new (FALSE, FALSE, sizeof (KsLodItem));
  float xmax = view->width + 2;

  for (guint d = 0; d < track->max_depth; d++)
    {
      float lane_y = ks_timeline_layout_lane_y (d);

      g_array_set_size (items, 0);
      ks_lod_slices (track, d, view, KS_FOLD_MIN_PX, items);

      for (guint i = 0; i < items->len; i++)
        {
          const KsLodItem *it = &g_array_index (items, KsLodItem, i);
          KsSliceKind kind = track->slice_kind[it->first];
          KsColor color = ks_timeline_layout_slice_color (self, track, it->first, theme->dark);
          float x0 = MAX (it->x0, -2.0f);
          float x1 = MIN (it->x1, xmax);
          float y = lane_y;
          float h = KS_LANE_HEIGHT - 1;
          float w;

          if (x1 - x0 < 1.0f)
            x1 = x0 + 1.0f;
          w = x1 - x0;

          /* Copies are drawn as a narrower bar so they read apart from
           * kernels even where colours are hard to tell. */
          if (kind == KS_SLICE_MEMCPY || kind == KS_SLICE_MEMSET)
            {
              y += 4;
              h -= 8;
            }

          if (it->folded)
            {
              push_density (self, track, d, it, view, color, y, h, prims);
              /* A thin line across the top marks a folded block. */
              push_rect (prims, x0, y, w, 1, theme->folded);
            }
          else
            push_rect (prims, x0, y, w, h, color);

          if (!it->folded && w >= KS_LABEL_MIN_PX)
            {
              KsPrimText t;
              float lx0 = MAX (x0, 0.0f);
              float lx1 = MIN (x1, (float)view->width);

              if (lx1 - lx0 >= KS_LABEL_MIN_PX)
                {
                  t.x = lx0 + 3;
                  t.y = y;
                  t.w = lx1 - lx0 - 6;
                  t.h = h;
                  t.color = ks_palette_text_color (color);
                  t.text = drawable_text (prims, ks_trace_string (self->trace, track->name_id[it->first]), t.w);
                  t.bold = FALSE;
                  t.backdrop = 0;
                  g_array_append_val (prims->texts, t);
                }
            }

          if (matches != NULL && !it->folded && matches[track->name_id[it->first]])
            {
              KsColor oc = theme->match_outline;

              push_rect (prims, x0, y, w, 2, oc);
              push_rect (prims, x0, y + h - 2, w, 2, oc);
              push_rect (prims, x0, y, MIN (2, w), h, oc);
              push_rect (prims, x1 - MIN (2, w), y, MIN (2, w), h, oc);
            }
          else if (matches != NULL && it->folded)
            push_folded_matches (track, d, it, view, matches, y, h, theme->match_outline, prims);
        }
    }
  _ks_timeline_layout_build_instant_prims (self, row->index, view, theme, prims);
}

static void
build_counter_prims (KsTimelineLayout *self,
                     const KsRow      *row,
                     const KsTimeView *view,
                     const KsTheme    *theme,
                     KsPrims          *prims)
{
  const KsCounter *counter = layout_counter (self, row->index);
  g_autofree float *mins = g_new (float, MAX (1, view->width));
  g_autofree float *maxs = g_new (float, MAX (1, view->width));
  g_autofree gboolean *has = g_new (gboolean, MAX (1, view->width));
  double top = 3, bottom = row->height - 3;
  double scale = (bottom - top) / (row->counter_max - row->counter_min);
  int run_start = -1;
  float run_y = 0;

  /* Counters of many samples (a stream's queue length) are read a block
   * at a time where a column holds whole blocks. */
  if (counter->n_samples >= 16 * KS_LOD_COUNTER_BLOCK && self->counter_blocks[row->index] == NULL)
    self->counter_blocks[row->index] = ks_lod_counter_blocks_new (counter);
  ks_lod_counter_summarized (counter, self->counter_blocks[row->index], view, mins, maxs, has);

  for (int col = 0; col <= view->width; col++)
    {
      gboolean valid = col < view->width && has[col];
      float y_hi = valid ? bottom - (maxs[col] - row->counter_min) * scale : 0;
      float y_lo = valid ? bottom - (mins[col] - row->counter_min) * scale : 0;

      /* Area: merge columns of equal height into one rectangle. */
      if (run_start >= 0 && (!valid || fabsf (y_hi - run_y) >= 0.5f))
        {
          push_rect (prims, run_start, run_y, col - run_start, bottom - run_y, theme->counter_fill);
          run_start = -1;
        }
      if (valid && run_start < 0)
        {
          run_start = col;
          run_y = y_hi;
        }

      /* Line: the min..max extent of the column, at least one pixel. */
      if (valid)
        push_rect (prims, col, y_hi - 0.5f, 1, MAX (1.5f, y_lo - y_hi + 1.0f), theme->counter_line);
    }

  /* The scale: what the top of the row stands for. */
  {
    const char *unit = ks_timeline_layout_get_counter_unit (self, row->index);
    g_autofree char *value = NULL;
    g_autofree char *text = NULL;

    if (ks_timeline_layout_counter_is_bytes (self, row->index))
      value = ks_format_bytes ((guint64)MAX (0.0, row->counter_max));
    else if (*unit)
      value = g_strdup_printf ("%.4g %s", row->counter_max, unit);
    else
      value = g_strdup_printf ("%.4g", row->counter_max);
    text = g_strdup_printf (_("max %s"), value);
    push_label (prims, 4, 1, 160, 12, theme, g_string_chunk_insert (prims->strings, text));
  }
}

void
ks_timeline_layout_build_prims (KsTimelineLayout *self,
                                guint             row_index,
                                const KsTimeView *view,
                                const KsTheme    *theme,
                                const guint8     *matches,
                                KsPrims          *prims)
{
  const KsRow *row;

  g_return_if_fail (row_index < self->rows->len);

  row = &g_array_index (self->rows, KsRow, row_index);

  switch (row->kind)
    {
    case KS_ROW_SLICES:
      build_slice_prims (self, row, view, theme, matches, prims);
      break;

    case KS_ROW_COUNTER:
      build_counter_prims (self, row, view, theme, prims);
      break;

    case KS_ROW_MEMORY_BLOCKS:
      _ks_timeline_layout_build_block_prims (self, row, view, theme, prims);
      break;

    case KS_ROW_GROUP:
    default:
      break;
    }
}
