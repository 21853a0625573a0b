/* ks-timeline-layout.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-slice-colors.h"
#include "ks-trace.h"

G_BEGIN_DECLS

/* The timeline's rows and level of detail, independent of any toolkit.
 *
 * Rows are grouped: each GPU (its counters, then its streams, each
 * stream followed by its GPU-annotation rows), then each process (its
 * threads, each followed by its NVTX rows, then async rows and
 * counters). Groups collapse; only the rows of expanded groups are laid
 * out, and drawing walks only the rows that intersect the viewport.
 *
 * Level of detail is computed per frame before anything is drawn: per
 * row and depth, two binary searches find the visible slices, and runs
 * of slices narrower than a few pixels fold into one block that knows
 * how many slices it holds. Counters are reduced to min/max per pixel
 * column. */

/* The picture: a column of row headers on the left, the ruler across the
 * top, the rows' time area below and to the right. */
#define KS_HEADER_WIDTH    220
#define KS_RULER_HEIGHT    26

#define KS_LANE_HEIGHT     18
#define KS_ROW_PADDING     2
#define KS_GROUP_HEIGHT    26
#define KS_COUNTER_HEIGHT  40
#define KS_BLOCKS_HEIGHT   160
#define KS_FOLD_MIN_PX     3.0
#define KS_LABEL_MIN_PX    28.0

typedef enum
{
  KS_ROW_GROUP,
  KS_ROW_SLICES,
  KS_ROW_COUNTER,
  KS_ROW_MEMORY_BLOCKS,    /* a device's allocations by address (index: ks_memory_blocks_get() device) */
} KsRowKind;

typedef enum
{
  KS_GROUP_GPU,
  KS_GROUP_PROCESS,
  KS_GROUP_OTHER,
} KsGroupKind;

typedef struct
{
  KsRowKind  kind;
  guint32    index;        /* track or counter index; for groups the GPU device or process index */
  guint32    group;        /* row index of the group header; itself for groups */
  guint16    indent;       /* 0 group, 1 member, 2 member of a member (NVTX under its thread) */
  guint16    n_lanes;      /* depth lanes of a slice row */
  guint8     group_kind;   /* KsGroupKind, groups only */
  guint8     expanded;     /* groups only */
  int        height;
  int        y;            /* top in content coordinates while visible, else -1 */
  char      *label;
  double     counter_min;  /* counter rows: value range */
  double     counter_max;
} KsRow;

/* The time axis: x (pixels from the left of the time area) = (t - t0) / ns_per_px. */
typedef struct
{
  double t0;
  double ns_per_px;
  int    width;
} KsTimeView;

typedef struct
{
  float    x0;
  float    x1;
  guint32  first;          /* first slice index */
  guint32  last;           /* last slice index; == first unless folded */
  guint32  count;          /* slices held: 1, or the number folded */
  guint32  pos;            /* position of first in the depth's by_depth index;
                            * the item holds positions pos .. pos + count - 1 */
  guint8   depth;
  guint8   folded;
} KsLodItem;

typedef struct
{
  float   x;
  float   y;
  float   w;
  float   h;
  KsColor color;
} KsPrimRect;

typedef struct
{
  float       x;
  float       y;
  float       w;
  float       h;
  KsColor     color;
  const char *text;        /* owned by the trace or by the prims' strings */
  gboolean    bold;        /* group headers */
  KsColor     backdrop;    /* filled behind the text itself; 0: none */
} KsPrimText;

/* Drawing primitives, replayed by each backend (cairo for pictures, GTK
 * for the window): the rectangles first, then the texts, each in one line
 * ellipsized to its width and centred in its height. */
typedef struct
{
  GArray       *rects;     /* KsPrimRect */
  GArray       *texts;     /* KsPrimText */
  GStringChunk *strings;   /* texts made for these prims (tick labels) */
} KsPrims;

typedef struct _KsTimelineLayout KsTimelineLayout;

KsTimelineLayout *ks_timeline_layout_new              (KsTrace           *trace);
void              ks_timeline_layout_free             (KsTimelineLayout  *self);
KsTrace          *ks_timeline_layout_get_trace        (KsTimelineLayout  *self);

guint             ks_timeline_layout_get_n_rows       (KsTimelineLayout  *self);
const KsRow      *ks_timeline_layout_get_row          (KsTimelineLayout  *self,
                                                       guint              row);
/* Row of a track or counter, KS_NO_INDEX when it has none. */
guint             ks_timeline_layout_find_track_row   (KsTimelineLayout  *self,
                                                       guint32            track);
guint             ks_timeline_layout_find_counter_row (KsTimelineLayout  *self,
                                                       guint32            counter);
/* The counter a KS_ROW_COUNTER row draws (row->index): one of the trace's,
 * allocated bytes built from its memory events, or a GPU series (a
 * stream's queue length, a copy kind's bandwidth); whether its values are
 * bytes, and their unit ("" for a count). */
const KsCounter  *ks_timeline_layout_get_counter      (KsTimelineLayout  *self,
                                                       guint32            index);
gboolean          ks_timeline_layout_counter_is_bytes (KsTimelineLayout  *self,
                                                       guint32            index);
const char       *ks_timeline_layout_get_counter_unit (KsTimelineLayout  *self,
                                                       guint32            index);

void              ks_timeline_layout_set_expanded     (KsTimelineLayout  *self,
                                                       guint              row,
                                                       gboolean           expanded);
/* Rows of expanded groups, in order, and the content height. */
guint             ks_timeline_layout_get_n_visible    (KsTimelineLayout  *self);
guint             ks_timeline_layout_get_visible      (KsTimelineLayout  *self,
                                                       guint              position);
int               ks_timeline_layout_get_height       (KsTimelineLayout  *self);
/* Position (in the visible list) of the first row whose bottom is below @y. */
guint             ks_timeline_layout_position_at_y    (KsTimelineLayout  *self,
                                                       double             y);
/* The visible row under content @y, or KS_NO_INDEX. */
guint             ks_timeline_layout_row_at_y         (KsTimelineLayout  *self,
                                                       double             y);
/* Top of a slice's lane inside its row. */
int               ks_timeline_layout_lane_y           (guint              depth);

/* Level of detail: the visible slices of one depth of @track as items,
 * in time order, runs narrower than @fold_px folded. Appends to @items. */
void              ks_lod_slices                       (const KsTrack     *track,
                                                       guint              depth,
                                                       const KsTimeView  *view,
                                                       double             fold_px,
                                                       GArray            *items);
/* Min/max per pixel column of @counter; @has[i] is FALSE where column i
 * holds no value (before the first sample). */
void              ks_lod_counter                      (const KsCounter   *counter,
                                                       const KsTimeView  *view,
                                                       float             *col_min,
                                                       float             *col_max,
                                                       gboolean          *has);
/* The same, faster on a counter of millions of samples (a stream's queue
 * length): @blocks holds the min and max of each KS_LOD_COUNTER_BLOCK
 * samples in turn (ks_lod_counter_blocks_new()), and a block that lies
 * within one column is taken whole. The columns are the same as without. */
#define KS_LOD_COUNTER_BLOCK 64
float            *ks_lod_counter_blocks_new           (const KsCounter   *counter);
void              ks_lod_counter_summarized           (const KsCounter   *counter,
                                                       const float       *blocks,
                                                       const KsTimeView  *view,
                                                       float             *col_min,
                                                       float             *col_max,
                                                       gboolean          *has);

KsColor           ks_timeline_layout_slice_color      (KsTimelineLayout  *self,
                                                       const KsTrack     *track,
                                                       guint32            slice,
                                                       gboolean           dark);

void              ks_prims_init                       (KsPrims           *prims);
void              ks_prims_clear                      (KsPrims           *prims);
void              ks_prims_reset                      (KsPrims           *prims);
/* The spacing of the ticks of @view's time axis: the smallest "nice" step
 * at least 110 px apart (labels fit between them). */
gint64            ks_time_view_tick_step              (const KsTimeView  *view);
/* The ruler of a @width × @height picture whose time area, right of a
 * @header_width column, shows @view: its band @ruler_height tall, minor
 * and major ticks, the major ticks' labels, and their grid lines through
 * the rows below; in picture coordinates. */
void              ks_timeline_layout_build_ruler      (const KsTimeView  *view,
                                                       const KsTheme     *theme,
                                                       int                width,
                                                       int                height,
                                                       int                header_width,
                                                       int                ruler_height,
                                                       KsPrims           *prims);
/* The header of @row in a picture @width wide with a @header_width column
 * of labels: a group's band and title, or a row's label, and the line
 * under the row; relative to the row's top left corner in the picture.
 * Drawn after the row's content. */
void              ks_timeline_layout_build_header     (KsTimelineLayout  *self,
                                                       guint              row,
                                                       const KsTheme     *theme,
                                                       int                width,
                                                       int                header_width,
                                                       KsPrims           *prims);
/* The primitives of @row for @view, relative to the row's top left
 * corner in the time area. @matches, when given, has one byte per string
 * id: slices whose name is set are outlined. */
void              ks_timeline_layout_build_prims      (KsTimelineLayout  *self,
                                                       guint              row,
                                                       const KsTimeView  *view,
                                                       const KsTheme     *theme,
                                                       const guint8      *matches,
                                                       KsPrims           *prims);

typedef struct
{
  guint32 track;
  guint32 slice;           /* first slice */
  guint32 last;
  guint32 count;           /* > 1 for a folded block */
  gint64  start;
  gint64  end;
  float   x0;              /* extent in the time area, pixels */
  float   x1;
  guint   depth;
} KsHit;

/* Nanoseconds of [@t0, @t1) covered by the slices of @track at @depth
 * (which never overlap): what a folded block's density is drawn from. */
double            ks_timeline_layout_busy_ns          (KsTimelineLayout *self,
                                                       guint32           track,
                                                       guint             depth,
                                                       double            t0,
                                                       double            t1);

/* What is under (@x, @y_in_row) of @row: a slice or folded block. */
gboolean          ks_timeline_layout_hit              (KsTimelineLayout  *self,
                                                       guint              row,
                                                       const KsTimeView  *view,
                                                       double             x,
                                                       double             y_in_row,
                                                       KsHit             *hit);

/* A memory snapshot's block under a point of a KS_ROW_MEMORY_BLOCKS row:
 * the smallest one drawn there; or, where the snapshot was opened with a
 * trace of its run (whose rows have no instants of it), the mark of a
 * segment event or an out-of-memory error along the row's top. */
typedef struct
{
  guint   device;          /* ks_memory_blocks_get() device, the row's index */
  guint32 block;           /* in the device's blocks, KS_NO_INDEX for a mark */
  guint32 mark;            /* in the device's marks, or KS_NO_INDEX */
  float   x0;              /* extent in the row, pixels */
  float   x1;
  float   y0;
  float   y1;
} KsBlockHit;

gboolean          ks_timeline_layout_hit_block        (KsTimelineLayout *self,
                                                       guint             row,
                                                       const KsTimeView *view,
                                                       double            x,
                                                       double            y_in_row,
                                                       KsBlockHit       *hit);
/* The row of the blocks of device @device (its index in
 * ks_memory_blocks_get()), KS_NO_INDEX when none; where @block of it is
 * drawn in @view, in that row. */
/* The pixels of @view where the blocks row of @device folds blocks:
 * KS_BLOCKS_HEIGHT lines of view->width bytes into @cover, 1 where
 * marked; @exact: from every block in view, otherwise as a frame draws
 * them (the coverage kept per time bucket, where the view is wide
 * enough). Returns whether that coverage was used. */
gboolean          ks_timeline_layout_block_cover      (KsTimelineLayout *self,
                                                       guint             device,
                                                       const KsTimeView *view,
                                                       gboolean          exact,
                                                       guint8           *cover);
guint             ks_timeline_layout_find_blocks_row  (KsTimelineLayout *self,
                                                       guint             device);
void              ks_timeline_layout_block_rect       (KsTimelineLayout *self,
                                                       guint             device,
                                                       guint32           block,
                                                       const KsTimeView *view,
                                                       KsBlockHit       *rect);
/* The colour of the blocks allocated by @stack. */
KsColor           ks_timeline_layout_block_color      (KsTimelineLayout *self,
                                                       guint32           stack,
                                                       gboolean          dark);

/* An instant's mark under a point of a slice row (marks sit in its top
 * lane): its first instant and how many the mark folds. */
typedef struct
{
  guint32 instant;         /* index in KsTrace.instants */
  guint32 count;
  gint64  start;           /* the first and last folded instant's times */
  gint64  end;
  float   x;
} KsInstantHit;

gboolean          ks_timeline_layout_hit_instant      (KsTimelineLayout *self,
                                                       guint             row,
                                                       const KsTimeView *view,
                                                       double            x,
                                                       double            y_in_row,
                                                       KsInstantHit     *hit);
/* How many instants @track's row marks. */
guint32           ks_timeline_layout_track_instants   (KsTimelineLayout *self,
                                                       guint32           track);
KsColor           ks_timeline_layout_instant_color    (KsTimelineLayout *self,
                                                       guint32           instant,
                                                       const KsTheme    *theme);
/* The colour of an instant of @category: "oom" red, "segment" amber. */
KsColor           ks_timeline_layout_category_color   (const char       *category,
                                                       const KsTheme    *theme);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsTimelineLayout, ks_timeline_layout_free)

G_END_DECLS
