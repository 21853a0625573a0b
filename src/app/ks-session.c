/* ks-session.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-session"

#include "config.h"

#include <math.h>

#include "ks-session-private.h"

G_DEFINE_FINAL_TYPE (KsSession, ks_session, G_TYPE_OBJECT)

GParamSpec *ks_session_properties[N_PROPS];
guint       ks_session_signals[N_SIGNALS];

static void
ks_session_dispose (GObject *object)
{
  KsSession *self = (KsSession *)object;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_handle_id (&self->recompute_id, g_source_remove);
  g_clear_object (&self->analysis);
  g_cancellable_cancel (self->search_cancellable);
  g_clear_object (&self->search_cancellable);
  if (self->settings != NULL)
    g_signal_handlers_disconnect_by_data (self->settings, self);
  g_clear_object (&self->settings);

  G_OBJECT_CLASS (ks_session_parent_class)->dispose (object);
}

static void
ks_session_finalize (GObject *object)
{
  KsSession *self = (KsSession *)object;

  g_clear_object (&self->trace);
  g_clear_pointer (&self->layout, ks_timeline_layout_free);
  g_clear_object (&self->searcher);
  g_clear_object (&self->path);
  g_clear_object (&self->file);
  g_clear_object (&self->summaries);
  g_clear_object (&self->job_file);
  g_clear_pointer (&self->search, ks_search_result_unref);
  g_free (self->search_error);
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
    case PROP_SETTINGS:
      g_value_set_object (value, self->settings);
      break;
    case PROP_BUSY_INCLUDES_COPIES:
      g_value_set_boolean (value, self->options.busy_includes_copies);
      break;
    case PROP_INCLUDE_WARMUP:
      g_value_set_boolean (value, self->options.include_warmup);
      break;
    case PROP_SEARCH:
      g_value_set_boxed (value, self->search);
      break;
    case PROP_SEARCH_ERROR:
      g_value_set_string (value, self->search_error);
      break;
    case PROP_CURRENT_MATCH:
      g_value_set_int (value, self->current_match);
      break;
    case PROP_HIGHLIGHT:
      g_value_set_uint (value, self->highlight);
      break;
    case PROP_CRITICAL_PATH:
      g_value_set_object (value, self->path);
      break;
    case PROP_FILE:
      g_value_set_object (value, self->file);
      break;
    case PROP_SUMMARIES:
      g_value_set_object (value, self->summaries);
      break;
    case PROP_JOB_FILE:
      g_value_set_object (value, self->job_file);
      break;
    case PROP_LOADED_ROW:
      g_value_set_uint (value, self->loaded_row);
      break;
    case PROP_LOADING_ROW:
      g_value_set_uint (value, self->loading_row);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
set_options (KsSession               *self,
             const KsAnalysisOptions *options);

/* A boolean option set on the session: with settings, it is the
 * setting that changes (and every session following it); the session
 * then reads it back in settings_changed_cb(). */
static void
set_boolean_option (KsSession *self,
                    guint      prop_id,
                    gboolean   on)
{
  const char *key = prop_id == PROP_INCLUDE_WARMUP ? "include-warmup" : "busy-includes-copies";
  KsAnalysisOptions options = self->options;

  on = !!on;
  if (self->settings != NULL)
    {
      if (g_settings_get_boolean (self->settings, key) != on)
        g_settings_set_boolean (self->settings, key, on);
      return;
    }
  if (prop_id == PROP_INCLUDE_WARMUP)
    options.include_warmup = on;
  else
    options.busy_includes_copies = on;
  set_options (self, &options);
}

static void
settings_changed_cb (KsSession  *self,
                     const char *key,
                     GSettings  *settings)
{
  KsAnalysisOptions options;

  ks_session_options_from_settings (settings, &options);
  set_options (self, &options);
}

static void
ks_session_constructed (GObject *object)
{
  KsSession *self = KS_SESSION (object);

  G_OBJECT_CLASS (ks_session_parent_class)->constructed (object);

  if (self->settings != NULL)
    {
      ks_session_options_from_settings (self->settings, &self->options);
      g_signal_connect_object (self->settings, "changed", G_CALLBACK (settings_changed_cb), self,
                               G_CONNECT_SWAPPED);
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
    case PROP_SETTINGS:
      self->settings = g_value_dup_object (value);
      break;
    case PROP_BUSY_INCLUDES_COPIES:
      set_boolean_option (self, prop_id, g_value_get_boolean (value));
      break;
    case PROP_INCLUDE_WARMUP:
      set_boolean_option (self, prop_id, g_value_get_boolean (value));
      break;
    case PROP_HIGHLIGHT:
      ks_session_set_highlight (self, g_value_get_uint (value));
      break;
    case PROP_FILE:
      ks_session_set_file (self, g_value_get_object (value));
      break;
    case PROP_LOADED_ROW:
      ks_session_set_loaded_row (self, g_value_get_uint (value));
      break;
    case PROP_LOADING_ROW:
      ks_session_set_loading_row (self, g_value_get_uint (value));
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
  object_class->constructed = ks_session_constructed;

#define RO (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS)
  ks_session_properties[PROP_TRACE] =
    g_param_spec_object ("trace", NULL, NULL, KS_TYPE_TRACE,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  ks_session_properties[PROP_ANALYSIS] = g_param_spec_object ("analysis", NULL, NULL, KS_TYPE_ANALYSIS, RO);
  ks_session_properties[PROP_BUSY] = g_param_spec_boolean ("busy", NULL, NULL, FALSE, RO);
  ks_session_properties[PROP_VISIBLE_START] = g_param_spec_double ("visible-start", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0, RO);
  ks_session_properties[PROP_VISIBLE_END] = g_param_spec_double ("visible-end", NULL, NULL, -G_MAXDOUBLE, G_MAXDOUBLE, 0, RO);
  /* KS_NO_INDEX when no slice is selected */
  ks_session_properties[PROP_SELECTED_TRACK] = g_param_spec_uint ("selected-track", NULL, NULL, 0, G_MAXUINT32, KS_NO_INDEX, RO);
  ks_session_properties[PROP_SELECTED_SLICE] = g_param_spec_uint ("selected-slice", NULL, NULL, 0, G_MAXUINT32, KS_NO_INDEX, RO);
  ks_session_properties[PROP_HAS_RANGE] = g_param_spec_boolean ("has-range", NULL, NULL, FALSE, RO);
  ks_session_properties[PROP_RANGE_START] = g_param_spec_int64 ("range-start", NULL, NULL, G_MININT64, G_MAXINT64, 0, RO);
  ks_session_properties[PROP_RANGE_END] = g_param_spec_int64 ("range-end", NULL, NULL, G_MININT64, G_MAXINT64, 0, RO);
  ks_session_properties[PROP_SETTINGS] =
    g_param_spec_object ("settings", NULL, NULL, G_TYPE_SETTINGS,
                         (G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS));
  ks_session_properties[PROP_BUSY_INCLUDES_COPIES] =
    g_param_spec_boolean ("busy-includes-copies", NULL, NULL, FALSE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  ks_session_properties[PROP_INCLUDE_WARMUP] =
    g_param_spec_boolean ("include-warmup", NULL, NULL, FALSE,
                          (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  ks_session_properties[PROP_SEARCH] = g_param_spec_boxed ("search", NULL, NULL, KS_TYPE_SEARCH_RESULT, RO);
  ks_session_properties[PROP_SEARCH_ERROR] = g_param_spec_string ("search-error", NULL, NULL, NULL, RO);
  ks_session_properties[PROP_CURRENT_MATCH] = g_param_spec_int ("current-match", NULL, NULL, -1, G_MAXINT, -1, RO);
  ks_session_properties[PROP_HIGHLIGHT] =
    g_param_spec_uint ("highlight", NULL, NULL, 0, G_MAXUINT32, KS_NO_INDEX,
                       (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  ks_session_properties[PROP_CRITICAL_PATH] =
    g_param_spec_object ("critical-path", NULL, NULL, KS_TYPE_CRITICAL_PATH, RO);
  /* The file the trace was read from, set before the trace */
  ks_session_properties[PROP_FILE] =
    g_param_spec_object ("file", NULL, NULL, G_TYPE_FILE,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  /* A job over the memory bound: its summaries and folder (set together,
   * ks_session_set_job()), the row whose trace the session holds and the
   * row being loaded, KS_NO_INDEX when none */
  ks_session_properties[PROP_SUMMARIES] = g_param_spec_object ("summaries", NULL, NULL, KS_TYPE_RANK_SUMMARIES, RO);
  ks_session_properties[PROP_JOB_FILE] = g_param_spec_object ("job-file", NULL, NULL, G_TYPE_FILE, RO);
  ks_session_properties[PROP_LOADED_ROW] =
    g_param_spec_uint ("loaded-row", NULL, NULL, 0, G_MAXUINT, KS_NO_INDEX,
                       (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  ks_session_properties[PROP_LOADING_ROW] =
    g_param_spec_uint ("loading-row", NULL, NULL, 0, G_MAXUINT, KS_NO_INDEX,
                       (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
#undef RO
  g_object_class_install_properties (object_class, N_PROPS, ks_session_properties);

  ks_session_signals[VISIBLE_CHANGED] =
    g_signal_new ("visible-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  ks_session_signals[SELECTION_CHANGED] =
    g_signal_new ("selection-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  ks_session_signals[RANGE_CHANGED] =
    g_signal_new ("range-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  /* a track whose row the views are to bring into view */
  ks_session_signals[REVEAL_TRACK] =
    g_signal_new ("reveal-track", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_UINT);
}

static void
ks_session_init (KsSession *self)
{
  self->back = g_array_new (FALSE, FALSE, sizeof (Span));
  self->forward = g_array_new (FALSE, FALSE, sizeof (Span));
  self->sel_track = KS_NO_INDEX;
  self->sel_slice = KS_NO_INDEX;
  self->t1 = 1000.0;
  self->current_match = -1;
  self->highlight = KS_NO_INDEX;
  self->loaded_row = KS_NO_INDEX;
  self->loading_row = KS_NO_INDEX;
  ks_analysis_options_init (&self->options);
}

KsSession *
ks_session_new (KsTrace *trace)
{
  g_return_val_if_fail (!trace || KS_IS_TRACE (trace), NULL);

  return g_object_new (KS_TYPE_SESSION, "trace", trace, NULL);
}

KsSession *
ks_session_new_with_settings (KsTrace   *trace,
                              GSettings *settings)
{
  g_return_val_if_fail (!trace || KS_IS_TRACE (trace), NULL);
  g_return_val_if_fail (!settings || G_IS_SETTINGS (settings), NULL);

  return g_object_new (KS_TYPE_SESSION, "settings", settings, "trace", trace, NULL);
}

GSettings *
ks_session_get_settings (KsSession *self)
{
  g_return_val_if_fail (KS_IS_SESSION (self), NULL);

  return self->settings;
}

KsTimelineLayout *
ks_session_get_layout (KsSession *self)
{
  g_return_val_if_fail (KS_IS_SESSION (self), NULL);

  return self->layout;
}

void
ks_session_options_from_settings (GSettings         *settings,
                                  KsAnalysisOptions *options)
{
  g_return_if_fail (!settings || G_IS_SETTINGS (settings));
  g_return_if_fail (options != NULL);

  ks_analysis_options_init (options);
  if (settings == NULL)
    return;
  options->gap_threshold_ns = (gint64)(g_settings_get_double (settings, "gap-threshold-us") * 1000.0 + 0.5);
  options->busy_includes_copies = g_settings_get_boolean (settings, "busy-includes-copies");
  options->kernel_wait_ns = (gint64)(g_settings_get_double (settings, "kernel-wait-us") * 1000.0 + 0.5);
  options->include_warmup = g_settings_get_boolean (settings, "include-warmup");
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
  g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_ANALYSIS]);
  g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_BUSY]);
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
    g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_BUSY]);
  if (had)
    g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_ANALYSIS]);
}

static gboolean
recompute_idle_cb (gpointer user_data)
{
  KsSession *self = user_data;

  self->recompute_id = 0;
  recompute (self);
  return G_SOURCE_REMOVE;
}

static void
notify_search (KsSession *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_SEARCH]);
  g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_SEARCH_ERROR]);
  g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_CURRENT_MATCH]);
}

/* No search and no highlight: a new trace, or an empty search text. */
static void
clear_search (KsSession *self)
{
  gboolean had = self->search != NULL || self->search_error != NULL;

  g_cancellable_cancel (self->search_cancellable);
  g_clear_object (&self->search_cancellable);
  g_clear_pointer (&self->search, ks_search_result_unref);
  g_clear_pointer (&self->search_error, g_free);
  self->current_match = -1;
  if (had)
    notify_search (self);
  ks_session_set_highlight (self, KS_NO_INDEX);
}

typedef struct
{
  KsSession    *self;
  GCancellable *cancellable;
} PendingSearch;

static void
search_cb (GObject      *source,
           GAsyncResult *result,
           gpointer      user_data)
{
  PendingSearch *pending = user_data;
  g_autoptr(KsSession) self = pending->self;
  g_autoptr(GCancellable) cancellable = pending->cancellable;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsSearchResult) found = ks_trace_search_run_finish (KS_TRACE_SEARCH (source), result, &error);

  g_free (pending);

  /* A newer keystroke or a new trace took over meanwhile. */
  if (cancellable != self->search_cancellable)
    return;

  g_clear_object (&self->search_cancellable);
  g_clear_pointer (&self->search, ks_search_result_unref);
  g_clear_pointer (&self->search_error, g_free);
  self->search = g_steal_pointer (&found);
  if (self->search == NULL)
    self->search_error = g_strdup (error->message);
  self->current_match = -1;
  notify_search (self);
}

void
ks_session_search (KsSession  *self,
                   const char *text,
                   gboolean    regex)
{
  PendingSearch *pending;

  g_return_if_fail (KS_IS_SESSION (self));

  if (self->trace == NULL || text == NULL || *text == 0)
    {
      clear_search (self);
      return;
    }

  /* What was found before stays shown until the new matches come. */
  g_cancellable_cancel (self->search_cancellable);
  g_clear_object (&self->search_cancellable);
  ks_session_set_highlight (self, KS_NO_INDEX);
  if (self->searcher == NULL)
    self->searcher = ks_trace_search_new (self->trace);
  self->search_cancellable = g_cancellable_new ();
  pending = g_new0 (PendingSearch, 1);
  pending->self = g_object_ref (self);
  pending->cancellable = g_object_ref (self->search_cancellable);
  ks_trace_search_run_async (self->searcher, text, regex ? KS_TRACE_SEARCH_REGEX : KS_TRACE_SEARCH_DEFAULT,
                             self->search_cancellable, search_cb, pending);
}

KsSearchResult *
ks_session_get_search (KsSession *self)
{
  g_return_val_if_fail (KS_IS_SESSION (self), NULL);

  return self->search;
}

const char *
ks_session_get_search_error (KsSession *self)
{
  g_return_val_if_fail (KS_IS_SESSION (self), NULL);

  return self->search_error;
}

int
ks_session_get_current_match (KsSession *self)
{
  g_return_val_if_fail (KS_IS_SESSION (self), -1);

  return self->current_match;
}

const KsSearchMatch *
ks_session_step_match (KsSession *self,
                       int        direction)
{
  guint n;

  g_return_val_if_fail (KS_IS_SESSION (self), NULL);

  n = self->search != NULL ? ks_search_result_get_n_matches (self->search) : 0;
  if (n == 0)
    return NULL;

  if (self->current_match < 0)
    {
      /* Start from the first match that starts in the view. */
      guint i;

      for (i = 0; i < n && ks_search_result_get_match (self->search, i)->start < self->t0; i++)
        ;
      self->current_match = direction > 0 ? (int)(i % n) : (int)((i + n - 1) % n);
    }
  else
    self->current_match = (int)((self->current_match + n + (direction > 0 ? 1 : -1)) % n);

  g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_CURRENT_MATCH]);
  return ks_search_result_get_match (self->search, self->current_match);
}

KsCriticalPath *
ks_session_get_critical_path (KsSession *self,
                              guint     *step)
{
  g_return_val_if_fail (KS_IS_SESSION (self), NULL);

  if (step)
    *step = self->path_step;
  return self->path;
}

void
ks_session_set_critical_path (KsSession      *self,
                              KsCriticalPath *path,
                              guint           step)
{
  g_return_if_fail (KS_IS_SESSION (self));
  g_return_if_fail (path == NULL || KS_IS_CRITICAL_PATH (path));

  if (self->path == path && (path == NULL || self->path_step == step))
    return;
  g_set_object (&self->path, path);
  self->path_step = path != NULL ? step : 0;
  g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_CRITICAL_PATH]);
}

guint32
ks_session_get_highlight (KsSession *self)
{
  g_return_val_if_fail (KS_IS_SESSION (self), KS_NO_INDEX);

  return self->highlight;
}

void
ks_session_set_highlight (KsSession *self,
                          guint32    name)
{
  g_return_if_fail (KS_IS_SESSION (self));

  if (self->trace == NULL || name >= self->trace->n_strings)
    name = KS_NO_INDEX;
  if (self->highlight == name)
    return;
  self->highlight = name;
  g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_HIGHLIGHT]);
}

void
ks_session_set_trace (KsSession *self,
                      KsTrace   *trace)
{
  g_autoptr(KsTimelineLayout) old_layout = NULL;
  gboolean had_selection, had_range;

  g_return_if_fail (KS_IS_SESSION (self));
  g_return_if_fail (!trace || KS_IS_TRACE (trace));

  if (!g_set_object (&self->trace, trace))
    return;

  had_selection = self->sel_track != KS_NO_INDEX;
  self->sel_item = ITEM_NONE;
  had_range = self->has_range;
  /* the views of the trace before let go of its layout on notify::trace */
  old_layout = g_steal_pointer (&self->layout);
  if (trace != NULL)
    self->layout = ks_timeline_layout_new (trace);
  g_clear_object (&self->searcher);
  clear_search (self);
  ks_session_set_critical_path (self, NULL, 0);
  ks_session_fit_span (self, &self->t0, &self->t1);
  g_array_set_size (self->back, 0);
  g_array_set_size (self->forward, 0);
  self->last_push_usec = 0;
  self->sel_track = self->sel_slice = KS_NO_INDEX;
  self->has_range = FALSE;
  self->range_start = self->range_end = 0;

  g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_TRACE]);
  g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_VISIBLE_START]);
  g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_VISIBLE_END]);
  if (had_selection)
    {
      g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_SELECTED_TRACK]);
      g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_SELECTED_SLICE]);
    }
  if (had_range)
    {
      g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_HAS_RANGE]);
      g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_RANGE_START]);
      g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_RANGE_END]);
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

static void
set_options (KsSession               *self,
             const KsAnalysisOptions *options)
{
  gboolean copies_changed = !options->busy_includes_copies != !self->options.busy_includes_copies;
  gboolean warmup_changed = !options->include_warmup != !self->options.include_warmup;

  if (ks_analysis_options_equal (options, &self->options))
    return;

  self->options = *options;
  if (copies_changed)
    g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_BUSY_INCLUDES_COPIES]);
  if (warmup_changed)
    g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_INCLUDE_WARMUP]);
  if (self->trace != NULL && self->recompute_id == 0)
    self->recompute_id = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, recompute_idle_cb,
                                          g_object_ref (self), g_object_unref);
}

void
ks_session_set_analysis_options (KsSession               *self,
                                 const KsAnalysisOptions *options)
{
  g_return_if_fail (KS_IS_SESSION (self));
  g_return_if_fail (options != NULL);

  set_options (self, options);
}

KsTrace *
ks_session_get_trace (KsSession *self)
{
  g_return_val_if_fail (KS_IS_SESSION (self), NULL);

  return self->trace;
}

static void
notify_selection (KsSession *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_SELECTED_TRACK]);
  g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_SELECTED_SLICE]);
  g_signal_emit (self, ks_session_signals[SELECTION_CHANGED], 0);
}

static void
notify_range (KsSession *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_HAS_RANGE]);
  g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_RANGE_START]);
  g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_RANGE_END]);
  g_signal_emit (self, ks_session_signals[RANGE_CHANGED], 0);
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
ks_session_reveal_track (KsSession *self,
                         guint32    track)
{
  g_return_if_fail (KS_IS_SESSION (self));
  g_return_if_fail (self->trace != NULL);
  g_return_if_fail (track < self->trace->n_tracks);

  g_signal_emit (self, ks_session_signals[REVEAL_TRACK], 0, track);
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
