/* ks-session.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-session"

#include "config.h"

#include <math.h>

#include "ks-session.h"

#define MIN_SPAN_NS      10.0
#define HISTORY_MAX      100
/* Wheel events closer than this belong to one zoom gesture. */
#define HISTORY_COALESCE (G_USEC_PER_SEC / 2)

typedef struct
{
  double t0;
  double t1;
} Span;

struct _KsSession
{
  GObject  parent_instance;

  KsTrace *trace;
  double   t0;
  double   t1;

  GArray  *back;               /* Span */
  GArray  *forward;            /* Span */
  gint64   last_push_usec;

  guint32  sel_track;
  guint32  sel_slice;
  guint8   sel_item;           /* SelectedItem: an instant or a memory block instead of a slice */
  guint32  sel_item_a;         /* the instant, or the block's device */
  guint32  sel_item_b;         /* the block */

  gboolean has_range;
  gint64   range_start;
  gint64   range_end;

  KsAnalysisOptions  options;
  KsAnalysis        *analysis;
  GCancellable      *cancellable;   /* of the analysis being computed */
  guint              recompute_id;
  guint              holds;         /* ks_session_hold_analysis() not yet released */
  gboolean           held_recompute; /* an analysis asked for while held */
};

typedef enum
{
  ITEM_NONE = 0,
  ITEM_INSTANT,
  ITEM_MEMORY_BLOCK,
} SelectedItem;

G_DEFINE_FINAL_TYPE (KsSession, ks_session, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_TRACE,
  PROP_ANALYSIS,
  PROP_BUSY,
  PROP_VISIBLE_START,
  PROP_VISIBLE_END,
  PROP_SELECTED_TRACK,
  PROP_SELECTED_SLICE,
  PROP_HAS_RANGE,
  PROP_RANGE_START,
  PROP_RANGE_END,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  VISIBLE_CHANGED,
  SELECTION_CHANGED,
  RANGE_CHANGED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
ks_session_dispose (GObject *object)
{
  KsSession *self = (KsSession *)object;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_handle_id (&self->recompute_id, g_source_remove);
  g_clear_object (&self->analysis);

  G_OBJECT_CLASS (ks_session_parent_class)->dispose (object);
}

static void
ks_session_finalize (GObject *object)
{
  KsSession *self = (KsSession *)object;

  g_clear_object (&self->trace);
  g_clear_pointer (&self->back, g_array_unref);
  g_clear_pointer (&self->forward, g_array_unref);

  G_OBJECT_CLASS (ks_session_parent_class)->finalize (object);
}

static void
ks_session_get_property (GObject    *object,
                         guint       prop_id,
                         GValue     *value,
                         GParamSpec *pspec)
{
  KsSession *self = KS_SESSION (object);

  switch (prop_id)
    {
    case PROP_TRACE:
      g_value_set_object (value, self->trace);
      break;
    case PROP_ANALYSIS:
      g_value_set_object (value, self->analysis);
      break;
    case PROP_BUSY:
      g_value_set_boolean (value, ks_session_get_busy (self));
      break;
    case PROP_VISIBLE_START:
      g_value_set_double (value, self->t0);
      break;
    case PROP_VISIBLE_END:
      g_value_set_double (value, self->t1);
      break;
    case PROP_SELECTED_TRACK:
      g_value_set_uint (value, self->sel_track);
      break;
    case PROP_SELECTED_SLICE:
      g_value_set_uint (value, self->sel_slice);
      break;
    case PROP_HAS_RANGE:
      g_value_set_boolean (value, self->has_range);
      break;
    case PROP_RANGE_START:
      g_value_set_int64 (value, self->range_start);
      break;
    case PROP_RANGE_END:
      g_value_set_int64 (value, self->range_end);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_session_set_property (GObject      *object,
                         guint         prop_id,
                         const GValue *value,
                         GParamSpec   *pspec)
{
  KsSession *self = KS_SESSION (object);

  switch (prop_id)
    {
    case PROP_TRACE:
      ks_session_set_trace (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_session_class_init (KsSessionClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ks_session_dispose;
  object_class->finalize = ks_session_finalize;
  object_class->get_property = ks_session_get_property;
  object_class->set_property = ks_session_set_property;

#define RO (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS)
  properties[PROP_TRACE] =
    g_param_spec_object ("trace", NULL, NULL, KS_TYPE_TRACE,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_ANALYSIS] = g_param_spec_object ("analysis", NULL, NULL, KS_TYPE_ANALYSIS, RO);
  properties[PROP_BUSY] = g_param_spec_boolean ("busy", NULL, NULL, FALSE, RO);
  properties[PROP_VISIBLE_START] = g_param_spec_double ("visible-start", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0, RO);
  properties[PROP_VISIBLE_END] = g_param_spec_double ("visible-end", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0, RO);
  /* KS_NO_INDEX when no slice is selected */
  properties[PROP_SELECTED_TRACK] = g_param_spec_uint ("selected-track", NULL, NULL, 0, G_MAXUINT32, KS_NO_INDEX, RO);
  properties[PROP_SELECTED_SLICE] = g_param_spec_uint ("selected-slice", NULL, NULL, 0, G_MAXUINT32, KS_NO_INDEX, RO);
  properties[PROP_HAS_RANGE] = g_param_spec_boolean ("has-range", NULL, NULL, FALSE, RO);
  properties[PROP_RANGE_START] = g_param_spec_int64 ("range-start", NULL, NULL, G_MININT64, G_MAXINT64, 0, RO);
  properties[PROP_RANGE_END] = g_param_spec_int64 ("range-end", NULL, NULL, G_MININT64, G_MAXINT64, 0, RO);
#undef RO
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[VISIBLE_CHANGED] =
    g_signal_new ("visible-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SELECTION_CHANGED] =
    g_signal_new ("selection-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[RANGE_CHANGED] =
    g_signal_new ("range-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
ks_session_init (KsSession *self)
{
  self->back = g_array_new (FALSE, FALSE, sizeof (Span));
  self->forward = g_array_new (FALSE, FALSE, sizeof (Span));
  self->sel_track = KS_NO_INDEX;
  self->sel_slice = KS_NO_INDEX;
  self->t1 = 1000.0;
  ks_analysis_options_init (&self->options);
}

static double
trace_span (KsSession *self)
{
  return MAX (1000.0, self->trace != NULL ? (double)self->trace->duration_ns : 0.0);
}

/* What fitting the trace shows: its activity, not the markers Kineto
 * writes after it (a "Record Window End" can lie a second past the
 * last kernel). */
static void
fit_span (KsSession *self,
          double    *t0,
          double    *t1)
{
  gint64 start = 0, end = 0;

  if (self->trace != NULL)
    ks_trace_get_activity_span (self->trace, &start, &end);
  *t0 = start;
  *t1 = MAX ((double)start + 1000.0, (double)end);
}

KsSession *
ks_session_new (KsTrace *trace)
{
  g_return_val_if_fail (!trace || KS_IS_TRACE (trace), NULL);

  return g_object_new (KS_TYPE_SESSION, "trace", trace, NULL);
}

typedef struct
{
  KsSession    *self;
  GCancellable *cancellable;
} Pending;

static void
compute_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Pending *pending = user_data;
  g_autoptr(KsSession) self = pending->self;
  g_autoptr(GCancellable) cancellable = pending->cancellable;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsAnalysis) analysis = ks_analysis_compute_finish (result, &error);

  g_free (pending);

  /* A newer trace or newer options took over meanwhile. */
  if (cancellable != self->cancellable)
    return;

  g_clear_object (&self->cancellable);
  if (analysis == NULL)
    g_warning ("Analysis failed: %s", error->message);
  g_set_object (&self->analysis, analysis);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANALYSIS]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

/* Drops the analysis and starts computing the current trace's. */
static void
recompute (KsSession *self)
{
  gboolean had = self->analysis != NULL;
  gboolean was_busy = ks_session_get_busy (self);
  Pending *pending;

  g_clear_handle_id (&self->recompute_id, g_source_remove);
  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->analysis);

  self->held_recompute = self->holds > 0 && self->trace != NULL;
  if (self->trace != NULL && !self->held_recompute)
    {
      self->cancellable = g_cancellable_new ();
      pending = g_new0 (Pending, 1);
      pending->self = g_object_ref (self);
      pending->cancellable = g_object_ref (self->cancellable);
      ks_analysis_compute_async (self->trace, &self->options, NULL, self->cancellable, compute_cb, pending);
    }

  /* busy first: a page that sees the analysis go tells "Analysing…" */
  if (was_busy != ks_session_get_busy (self))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
  if (had)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANALYSIS]);
}

static gboolean
recompute_idle_cb (gpointer user_data)
{
  KsSession *self = user_data;

  self->recompute_id = 0;
  recompute (self);
  return G_SOURCE_REMOVE;
}

void
ks_session_set_trace (KsSession *self,
                      KsTrace   *trace)
{
  gboolean had_selection, had_range;

  g_return_if_fail (KS_IS_SESSION (self));
  g_return_if_fail (!trace || KS_IS_TRACE (trace));

  if (!g_set_object (&self->trace, trace))
    return;

  had_selection = self->sel_track != KS_NO_INDEX;
  self->sel_item = ITEM_NONE;
  had_range = self->has_range;
  fit_span (self, &self->t0, &self->t1);
  g_array_set_size (self->back, 0);
  g_array_set_size (self->forward, 0);
  self->last_push_usec = 0;
  self->sel_track = self->sel_slice = KS_NO_INDEX;
  self->has_range = FALSE;
  self->range_start = self->range_end = 0;

  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TRACE]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VISIBLE_START]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VISIBLE_END]);
  if (had_selection)
    {
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED_TRACK]);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED_SLICE]);
    }
  if (had_range)
    {
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HAS_RANGE]);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RANGE_START]);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RANGE_END]);
    }
  recompute (self);
}

KsAnalysis *
ks_session_get_analysis (KsSession *self)
{
  g_return_val_if_fail (KS_IS_SESSION (self), NULL);

  return self->analysis;
}

gboolean
ks_session_get_busy (KsSession *self)
{
  g_return_val_if_fail (KS_IS_SESSION (self), FALSE);

  return self->cancellable != NULL || self->held_recompute;
}

/* While held, a new trace or new options do not start the analysis (the
 * session is busy meanwhile): the window holds it until it has drawn
 * the trace once, so the analysis neither delays the first frame nor
 * fills the pages before it. */
void
ks_session_hold_analysis (KsSession *self)
{
  g_return_if_fail (KS_IS_SESSION (self));

  self->holds++;
}

void
ks_session_release_analysis (KsSession *self)
{
  g_return_if_fail (KS_IS_SESSION (self));
  g_return_if_fail (self->holds > 0);

  if (--self->holds == 0 && self->held_recompute)
    recompute (self);
}

const KsAnalysisOptions *
ks_session_get_analysis_options (KsSession *self)
{
  g_return_val_if_fail (KS_IS_SESSION (self), NULL);

  return &self->options;
}

void
ks_session_set_analysis_options (KsSession               *self,
                                 const KsAnalysisOptions *options)
{
  g_return_if_fail (KS_IS_SESSION (self));
  g_return_if_fail (options != NULL);

  if (ks_analysis_options_equal (options, &self->options))
    return;

  self->options = *options;
  if (self->trace != NULL && self->recompute_id == 0)
    self->recompute_id = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, recompute_idle_cb,
                                          g_object_ref (self), g_object_unref);
}

KsTrace *
ks_session_get_trace (KsSession *self)
{
  g_return_val_if_fail (KS_IS_SESSION (self), NULL);

  return self->trace;
}

void
ks_session_get_visible (KsSession *self,
                        double    *t0,
                        double    *t1)
{
  g_return_if_fail (KS_IS_SESSION (self));

  if (t0)
    *t0 = self->t0;
  if (t1)
    *t1 = self->t1;
}

void
ks_session_set_visible (KsSession *self,
                        double     t0,
                        double     t1)
{
  double total, margin, span, lo, hi;

  g_return_if_fail (KS_IS_SESSION (self));

  if (!isfinite (t0) || !isfinite (t1))
    return;
  if (t1 < t0)
    {
      double tmp = t0;
      t0 = t1;
      t1 = tmp;
    }

  total = trace_span (self);
  margin = total * 0.05;
  lo = -margin;
  hi = total + margin;

  span = CLAMP (t1 - t0, MIN_SPAN_NS, hi - lo);
  if (span != t1 - t0)
    {
      double mid = (t0 + t1) / 2;

      t0 = mid - span / 2;
      t1 = mid + span / 2;
    }
  if (t0 < lo)
    {
      t0 = lo;
      t1 = lo + span;
    }
  if (t1 > hi)
    {
      t1 = hi;
      t0 = hi - span;
    }

  if (t0 == self->t0 && t1 == self->t1)
    return;

  self->t0 = t0;
  self->t1 = t1;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VISIBLE_START]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_VISIBLE_END]);
  g_signal_emit (self, signals[VISIBLE_CHANGED], 0);
}

void
ks_session_zoom (KsSession *self,
                 double     factor,
                 double     anchor)
{
  g_return_if_fail (KS_IS_SESSION (self));

  if (!(factor > 0) || !isfinite (factor))
    return;

  /* Keep the anchor's fraction of the view fixed. */
  ks_session_set_visible (self,
                          anchor - (anchor - self->t0) * factor,
                          anchor + (self->t1 - anchor) * factor);
}

void
ks_session_pan (KsSession *self,
                double     dt)
{
  g_return_if_fail (KS_IS_SESSION (self));

  ks_session_set_visible (self, self->t0 + dt, self->t1 + dt);
}

static void
push_span (GArray *stack,
           double  t0,
           double  t1)
{
  Span s = { t0, t1 };

  if (stack->len > 0)
    {
      Span *top = &g_array_index (stack, Span, stack->len - 1);

      if (top->t0 == t0 && top->t1 == t1)
        return;
    }
  if (stack->len >= HISTORY_MAX)
    g_array_remove_index (stack, 0);
  g_array_append_val (stack, s);
}

void
ks_session_push_history (KsSession *self)
{
  gint64 now = g_get_monotonic_time ();

  g_return_if_fail (KS_IS_SESSION (self));

  if (now - self->last_push_usec >= HISTORY_COALESCE)
    {
      push_span (self->back, self->t0, self->t1);
      g_array_set_size (self->forward, 0);
    }
  self->last_push_usec = now;
}

gboolean
ks_session_can_go_back (KsSession *self)
{
  return self->back->len > 0;
}

gboolean
ks_session_can_go_forward (KsSession *self)
{
  return self->forward->len > 0;
}

gboolean
ks_session_go_back (KsSession *self)
{
  Span s;

  g_return_val_if_fail (KS_IS_SESSION (self), FALSE);

  if (self->back->len == 0)
    return FALSE;

  s = g_array_index (self->back, Span, self->back->len - 1);
  g_array_set_size (self->back, self->back->len - 1);
  push_span (self->forward, self->t0, self->t1);
  self->last_push_usec = 0;
  ks_session_set_visible (self, s.t0, s.t1);
  g_signal_emit (self, signals[VISIBLE_CHANGED], 0);
  return TRUE;
}

gboolean
ks_session_go_forward (KsSession *self)
{
  Span s;

  g_return_val_if_fail (KS_IS_SESSION (self), FALSE);

  if (self->forward->len == 0)
    return FALSE;

  s = g_array_index (self->forward, Span, self->forward->len - 1);
  g_array_set_size (self->forward, self->forward->len - 1);
  push_span (self->back, self->t0, self->t1);
  self->last_push_usec = 0;
  ks_session_set_visible (self, s.t0, s.t1);
  g_signal_emit (self, signals[VISIBLE_CHANGED], 0);
  return TRUE;
}

void
ks_session_fit_all (KsSession *self)
{
  double t0, t1;

  g_return_if_fail (KS_IS_SESSION (self));

  self->last_push_usec = 0;
  ks_session_push_history (self);
  self->last_push_usec = 0;
  fit_span (self, &t0, &t1);
  ks_session_set_visible (self, t0, t1);
}

void
ks_session_fit (KsSession *self,
                gint64     start,
                gint64     end)
{
  double span = MAX (MIN_SPAN_NS, (double)(end - start));
  double margin = span * 0.05;

  g_return_if_fail (KS_IS_SESSION (self));

  self->last_push_usec = 0;
  ks_session_push_history (self);
  self->last_push_usec = 0;
  ks_session_set_visible (self, start - margin, start + span + margin);
}

static void
notify_selection (KsSession *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED_TRACK]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SELECTED_SLICE]);
  g_signal_emit (self, signals[SELECTION_CHANGED], 0);
}

static void
notify_range (KsSession *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_HAS_RANGE]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RANGE_START]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_RANGE_END]);
  g_signal_emit (self, signals[RANGE_CHANGED], 0);
}

void
ks_session_select_slice (KsSession *self,
                         guint32    track,
                         guint32    slice)
{
  g_return_if_fail (KS_IS_SESSION (self));
  g_return_if_fail (self->trace != NULL);
  g_return_if_fail (track < self->trace->n_tracks);
  g_return_if_fail (slice < self->trace->tracks[track].n_slices);

  if (self->sel_track == track && self->sel_slice == slice)
    return;

  self->sel_item = ITEM_NONE;
  self->sel_track = track;
  self->sel_slice = slice;
  notify_selection (self);
}

void
ks_session_clear_selection (KsSession *self)
{
  g_return_if_fail (KS_IS_SESSION (self));

  if (self->sel_track == KS_NO_INDEX && self->sel_item == ITEM_NONE)
    return;

  self->sel_item = ITEM_NONE;
  self->sel_track = KS_NO_INDEX;
  self->sel_slice = KS_NO_INDEX;
  notify_selection (self);
}

gboolean
ks_session_get_selected_slice (KsSession *self,
                               guint32   *track,
                               guint32   *slice)
{
  g_return_val_if_fail (KS_IS_SESSION (self), FALSE);

  if (track)
    *track = self->sel_track;
  if (slice)
    *slice = self->sel_slice;
  return self->sel_track != KS_NO_INDEX;
}

/* An instant or a memory block selected instead of a slice. */
static void
select_item (KsSession    *self,
             SelectedItem  item,
             guint32       a,
             guint32       b)
{
  if (self->sel_item == item && self->sel_item_a == a && self->sel_item_b == b)
    return;

  self->sel_track = KS_NO_INDEX;
  self->sel_slice = KS_NO_INDEX;
  self->sel_item = item;
  self->sel_item_a = a;
  self->sel_item_b = b;
  notify_selection (self);
}

void
ks_session_select_instant (KsSession *self,
                           guint32    instant)
{
  g_return_if_fail (KS_IS_SESSION (self));
  g_return_if_fail (self->trace != NULL);
  g_return_if_fail (instant < self->trace->n_instants);

  select_item (self, ITEM_INSTANT, instant, 0);
}

gboolean
ks_session_get_selected_instant (KsSession *self,
                                 guint32   *instant)
{
  g_return_val_if_fail (KS_IS_SESSION (self), FALSE);

  if (self->sel_item != ITEM_INSTANT)
    return FALSE;
  if (instant)
    *instant = self->sel_item_a;
  return TRUE;
}

void
ks_session_select_memory_block (KsSession *self,
                                guint      device,
                                guint32    block)
{
  const KsMemoryBlocks *blocks;

  g_return_if_fail (KS_IS_SESSION (self));
  g_return_if_fail (self->trace != NULL);
  blocks = ks_memory_blocks_get (self->trace);
  g_return_if_fail (device < blocks->n_devices);
  g_return_if_fail (block < blocks->devices[device].blocks->len);

  select_item (self, ITEM_MEMORY_BLOCK, device, block);
}

gboolean
ks_session_get_selected_memory_block (KsSession *self,
                                      guint     *device,
                                      guint32   *block)
{
  g_return_val_if_fail (KS_IS_SESSION (self), FALSE);

  if (self->sel_item != ITEM_MEMORY_BLOCK)
    return FALSE;
  if (device)
    *device = self->sel_item_a;
  if (block)
    *block = self->sel_item_b;
  return TRUE;
}

void
ks_session_select_range (KsSession *self,
                         gint64     start,
                         gint64     end)
{
  g_return_if_fail (KS_IS_SESSION (self));

  if (end < start)
    {
      gint64 tmp = start;
      start = end;
      end = tmp;
    }

  if (self->has_range && self->range_start == start && self->range_end == end)
    return;

  self->has_range = TRUE;
  self->range_start = start;
  self->range_end = end;
  notify_range (self);
}

void
ks_session_clear_range (KsSession *self)
{
  g_return_if_fail (KS_IS_SESSION (self));

  if (!self->has_range)
    return;

  self->has_range = FALSE;
  notify_range (self);
}

gboolean
ks_session_get_range (KsSession *self,
                      gint64    *start,
                      gint64    *end)
{
  g_return_val_if_fail (KS_IS_SESSION (self), FALSE);

  if (start)
    *start = self->range_start;
  if (end)
    *end = self->range_end;
  return self->has_range;
}
