/* ks-timeline-private.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-critical-path.h"
#include "ks-timeline.h"

G_BEGIN_DECLS

/* KsTimeline is one class written in five files, each with one job:
 * ks-timeline.c (the object, its properties, scrolling and rows),
 * ks-timeline-draw.c (the snapshot), ks-timeline-overlays.c (range,
 * hover, selection and flow arrows over the rows), ks-timeline-hit.c
 * (what is under a point, the tooltip) and ks-timeline-input.c
 * (pointer, gestures and keyboard actions). They share this struct. */

#define DRAG_THRESHOLD 4.0

typedef enum
{
  DRAG_NONE,
  DRAG_PAN,
  DRAG_SELECT,
} DragMode;

typedef struct
{
  guint32 from_track;
  guint32 from_slice;
  guint32 to_track;
  guint32 to_slice;
  guint8  kind;
  guint   n_ops;        /* a graph launch's operations, to_slice the first to start */
  gint64  span_start;   /* from the first one's start to the last one's end */
  gint64  span_end;
} FlowArrow;

struct _KsTimeline
{
  GtkWidget         parent_instance;

  KsSession        *session;
  KsTimelineLayout *layout;
  const guint8     *matches;

  GtkAdjustment    *hadjustment;
  GtkAdjustment    *vadjustment;
  guint             hscroll_policy : 1;
  guint             vscroll_policy : 1;
  guint             dark : 1;

  /* Per-row render nodes, valid for one (view, theme, matches) key. */
  GHashTable       *row_nodes;
  double            cache_t0;
  double            cache_nspp;
  int               cache_width;
  gboolean          cache_dark;
  const guint8     *cache_matches;

  double            pointer_x;
  double            pointer_y;
  gboolean          pointer_inside;
  gboolean          has_hover;
  KsHit             hover;

  DragMode          drag_mode;
  double            drag_start_x;
  double            drag_start_y;
  double            drag_t0;
  double            drag_t1;
  double            drag_scroll;
  double            drag_x;

  double            zoom_scale;

  GArray           *arrows;    /* FlowArrow of the selected slice */

  KsCriticalPath   *path;      /* outlined for one of its steps, or NULL */
  guint             path_step; /* the step's index in the analysis */
};

/* Inline: called for every rectangle of a frame and on every event. */

static inline void
rgba_from (GdkRGBA *rgba,
           KsColor  c)
{
  rgba->red = KS_COLOR_R (c);
  rgba->green = KS_COLOR_G (c);
  rgba->blue = KS_COLOR_B (c);
  rgba->alpha = KS_COLOR_A (c);
}

static inline void
append_rect (GtkSnapshot *snapshot,
             float        x,
             float        y,
             float        w,
             float        h,
             KsColor      c)
{
  GdkRGBA rgba;

  rgba_from (&rgba, c);
  gtk_snapshot_append_color (snapshot, &rgba, &GRAPHENE_RECT_INIT (x, y, w, h));
}

static inline int
time_area_width (KsTimeline *self)
{
  return MAX (1, gtk_widget_get_width (GTK_WIDGET (self)) - KS_HEADER_WIDTH);
}

static inline void
get_view (KsTimeline *self,
          KsTimeView *view)
{
  double t0 = 0, t1 = 1;

  if (self->session != NULL)
    ks_session_get_visible (self->session, &t0, &t1);

  view->width = time_area_width (self);
  view->t0 = t0;
  view->ns_per_px = MAX (1e-6, (t1 - t0) / view->width);
}

static inline double
scroll_offset (KsTimeline *self)
{
  return self->vadjustment != NULL ? gtk_adjustment_get_value (self->vadjustment) : 0;
}

/* ks-timeline.c */
void     _ks_timeline_invalidate_rows   (KsTimeline       *self);

/* ks-timeline-draw.c */
void     _ks_timeline_snapshot          (GtkWidget        *widget,
                                         GtkSnapshot      *snapshot);
void     _ks_timeline_draw_text         (GtkSnapshot      *snapshot,
                                         PangoLayout      *pl,
                                         const char       *text,
                                         double            x,
                                         double            y,
                                         double            w,
                                         double            h,
                                         KsColor           color);

/* ks-timeline-overlays.c */
void     _ks_timeline_compute_arrows    (KsTimeline       *self);
void     _ks_timeline_draw_overlays     (KsTimeline       *self,
                                         GtkSnapshot      *snapshot,
                                         PangoLayout      *pl,
                                         const KsTheme    *theme,
                                         const KsTimeView *view,
                                         int               width,
                                         int               height);

/* ks-timeline-steps.c: the warm-up and inferred steps of the analysis */
void     _ks_timeline_draw_steps        (KsTimeline       *self,
                                         GtkSnapshot      *snapshot,
                                         PangoLayout      *pl,
                                         const KsTheme    *theme,
                                         const KsTimeView *view,
                                         int               width,
                                         int               height);

/* ks-timeline-hit.c */
gboolean _ks_timeline_slice_content_y   (KsTimeline       *self,
                                         guint32           track,
                                         guint32           slice,
                                         double           *y);
gboolean _ks_timeline_hit_at            (KsTimeline       *self,
                                         double            x,
                                         double            y,
                                         KsHit            *hit);
void     _ks_timeline_update_hover      (KsTimeline       *self);

/* What else a point may hold than a slice: an instant's mark or a
 * memory snapshot's block. */
typedef struct
{
  gboolean      is_block;
  KsInstantHit  instant;
  KsBlockHit    block;
} ItemHit;

gboolean _ks_timeline_item_at           (KsTimeline       *self,
                                         double            x,
                                         double            y,
                                         ItemHit          *hit);
gboolean _ks_timeline_query_tooltip     (GtkWidget        *widget,
                                         int               x,
                                         int               y,
                                         gboolean          keyboard,
                                         GtkTooltip       *tooltip);

/* ks-timeline-input.c */
void     _ks_timeline_class_input_init  (KsTimelineClass  *klass);
void     _ks_timeline_input_init        (KsTimeline       *self);

G_END_DECLS
