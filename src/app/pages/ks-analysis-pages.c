/* ks-analysis-pages.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-analysis-pages"

#include "config.h"

#include <glib/gi18n.h>

#include "ks-analysis-pages.h"
#include "ks-gaps-page.h"
#include "ks-kernels-page.h"
#include "ks-memory-page.h"
#include "ks-operators-page.h"
#include "ks-overview.h"
#include "ks-selection-page.h"
#include "ks-summary-page.h"

struct _KsAnalysisPages
{
  GObject             parent_instance;

  KsWindow           *window;        /* weak */
  GSettings          *settings;      /* NULL when the schema is not installed */
  GSimpleActionGroup *actions;

  KsSummaryPage      *summary;
  KsGapsPage         *gaps;
  KsOperatorsPage    *operators;
  KsKernelsPage      *kernels;
  KsMemoryPage       *memory;

  KsTrace            *trace;         /* the trace being or last analysed */
  KsAnalysis         *analysis;
  GCancellable       *cancellable;
  guint8             *matches;       /* per string id, given to the timeline */
  guint               recompute_id;
};

G_DEFINE_FINAL_TYPE (KsAnalysisPages, ks_analysis_pages, G_TYPE_OBJECT)

enum { PROP_0, PROP_ANALYSIS, PROP_BUSY, N_PROPS };
static GParamSpec *properties[N_PROPS];

static void
set_pages (KsAnalysisPages *self)
{
  KsTrace *trace = self->analysis != NULL ? self->trace : NULL;

  if (self->window == NULL)
    return;

  ks_summary_page_set_analysis (self->summary, trace, self->analysis);
  ks_gaps_page_set_analysis (self->gaps, trace, self->analysis);
  ks_operators_page_set_analysis (self->operators, trace, self->analysis);
  ks_kernels_page_set_analysis (self->kernels, trace, self->analysis);
  ks_memory_page_set_analysis (self->memory, trace, self->analysis);
  ks_selection_page_set_analysis (KS_SELECTION_PAGE (ks_window_get_page (self->window, "selection")),
                                  self->analysis);
  /* The strip above the timeline draws the Summary's busy time. */
  ks_overview_set_analysis (ks_window_get_overview (self->window), self->analysis);
}

static void
get_options (KsAnalysisPages   *self,
             KsAnalysisOptions *options)
{
  ks_analysis_options_init (options);
  if (self->settings != NULL)
    {
      options->gap_threshold_ns = (gint64)(g_settings_get_double (self->settings, "gap-threshold-us") * 1000.0 + 0.5);
      options->busy_includes_copies = g_settings_get_boolean (self->settings, "busy-includes-copies");
    }
  else
    options->busy_includes_copies = ks_summary_page_get_include_copies (self->summary);
}

typedef struct
{
  KsAnalysisPages *self;
  GCancellable    *cancellable;
} Pending;

static void
compute_cb (GObject      *source,
            GAsyncResult *result,
            gpointer      user_data)
{
  Pending *pending = user_data;
  g_autoptr(KsAnalysisPages) self = pending->self;
  g_autoptr(GCancellable) cancellable = pending->cancellable;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsAnalysis) analysis = ks_analysis_compute_finish (result, &error);

  g_free (pending);

  /* A newer trace or newer options took over meanwhile, or the window
   * (and its pages) went away */
  if (cancellable != self->cancellable || self->window == NULL)
    return;

  g_clear_object (&self->cancellable);
  if (analysis == NULL)
    g_warning ("Analysis failed: %s", error->message);
  g_set_object (&self->analysis, analysis);
  ks_summary_page_set_busy (self->summary, FALSE);
  set_pages (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANALYSIS]);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static void
recompute (KsAnalysisPages *self)
{
  KsSession *session = self->window ? ks_window_get_session (self->window) : NULL;
  KsTrace *trace = session ? ks_session_get_trace (session) : NULL;
  KsAnalysisOptions options;
  Pending *pending;
  gboolean had = self->analysis != NULL;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->analysis);
  g_set_object (&self->trace, trace);
  set_pages (self);
  if (had)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANALYSIS]);

  if (trace == NULL)
    {
      ks_summary_page_set_busy (self->summary, FALSE);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
      return;
    }

  get_options (self, &options);
  self->cancellable = g_cancellable_new ();
  ks_summary_page_set_busy (self->summary, TRUE);
  pending = g_new0 (Pending, 1);
  pending->self = g_object_ref (self);
  pending->cancellable = g_object_ref (self->cancellable);
  ks_analysis_compute_async (trace, &options, NULL, self->cancellable, compute_cb, pending);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUSY]);
}

static gboolean
recompute_idle_cb (gpointer user_data)
{
  KsAnalysisPages *self = user_data;

  self->recompute_id = 0;
  if (self->trace != NULL)
    recompute (self);
  return G_SOURCE_REMOVE;
}

/* Options change from inside the pages' own handlers (a switch being
 * toggled): rebuild the pages later, not under the widget's feet. */
static void
queue_recompute (KsAnalysisPages *self)
{
  if (self->recompute_id == 0)
    self->recompute_id = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, recompute_idle_cb,
                                          g_object_ref (self), g_object_unref);
}

static void
session_changed_cb (KsAnalysisPages *self)
{
  KsTimeline *timeline = self->window ? ks_window_get_timeline (self->window) : NULL;

  if (self->matches != NULL && timeline != NULL)
    ks_timeline_set_matches (timeline, NULL);
  g_clear_pointer (&self->matches, g_free);
  recompute (self);
}

static void
settings_changed_cb (KsAnalysisPages *self,
                     const char      *key)
{
  if (g_strcmp0 (key, "gap-order") == 0)
    {
      g_autofree char *order = g_settings_get_string (self->settings, "gap-order");

      ks_gaps_page_set_order_by_time (self->gaps, g_strcmp0 (order, "time") == 0);
      return;
    }
  if (self->trace != NULL)
    queue_recompute (self);
}

/* The Summary's switch: a setting when there are settings, else the
 * analysis is recomputed with the switch's value. */
static void
include_copies_changed_cb (KsAnalysisPages *self)
{
  gboolean on = ks_summary_page_get_include_copies (self->summary);

  if (self->analysis != NULL && !!ks_analysis_get_options (self->analysis)->busy_includes_copies == on)
    return;
  if (self->settings != NULL)
    {
      if (g_settings_get_boolean (self->settings, "busy-includes-copies") != on)
        g_settings_set_boolean (self->settings, "busy-includes-copies", on);
    }
  else if (self->trace != NULL)
    queue_recompute (self);
}

static void
order_changed_cb (KsAnalysisPages *self)
{
  const char *order = ks_gaps_page_get_order_by_time (self->gaps) ? "time" : "duration";
  g_autofree char *current = NULL;

  if (self->settings == NULL)
    return;
  current = g_settings_get_string (self->settings, "gap-order");
  if (g_strcmp0 (current, order) != 0)
    g_settings_set_string (self->settings, "gap-order", order);
}

static void
navigate_cb (GtkWidget       *page,
             gint64           start,
             gint64           end,
             KsAnalysisPages *self)
{
  KsSession *session = self->window ? ks_window_get_session (self->window) : NULL;

  if (session == NULL)
    return;

  ks_session_fit (session, start, end);

  /* A gap is also marked as the selected range; the window then shows
   * the Selection page, but the user is going through the gap list. */
  if (KS_IS_GAPS_PAGE (page))
    {
      const KsGap *gap = ks_gaps_page_get_selected (KS_GAPS_PAGE (page));

      if (gap != NULL)
        ks_session_select_range (session, gap->start, gap->end);
      if (self->window != NULL)
        ks_window_show_page (self->window, "gaps");
    }
}

static void
highlight_cb (GtkWidget       *page,
              guint            name,
              KsAnalysisPages *self)
{
  KsTimeline *timeline = self->window ? ks_window_get_timeline (self->window) : NULL;
  guint8 *matches;

  if (timeline == NULL || self->trace == NULL || name >= self->trace->n_strings)
    return;

  matches = g_new0 (guint8, self->trace->n_strings);
  matches[name] = 1;
  ks_timeline_set_matches (timeline, matches);
  g_free (self->matches);
  self->matches = matches;
}

gboolean
ks_analysis_pages_step_gap (KsAnalysisPages *self,
                            int              direction)
{
  g_return_val_if_fail (KS_IS_ANALYSIS_PAGES (self), FALSE);

  if (self->analysis == NULL)
    return FALSE;
  return ks_gaps_page_step (self->gaps, direction);
}

static void
next_gap_action (GSimpleAction *action,
                 GVariant      *param,
                 gpointer       user_data)
{
  ks_analysis_pages_step_gap (user_data, 1);
}

static void
previous_gap_action (GSimpleAction *action,
                     GVariant      *param,
                     gpointer       user_data)
{
  ks_analysis_pages_step_gap (user_data, -1);
}

static void
toggle_gap_order_action (GSimpleAction *action,
                         GVariant      *param,
                         gpointer       user_data)
{
  KsAnalysisPages *self = user_data;

  ks_gaps_page_set_order_by_time (self->gaps, !ks_gaps_page_get_order_by_time (self->gaps));
}

static void
window_gone_cb (gpointer  data,
                GObject  *where_the_object_was)
{
  KsAnalysisPages *self = data;

  self->window = NULL;
}

KsAnalysis *
ks_analysis_pages_get_analysis (KsAnalysisPages *self)
{
  g_return_val_if_fail (KS_IS_ANALYSIS_PAGES (self), NULL);
  return self->analysis;
}

gboolean
ks_analysis_pages_get_busy (KsAnalysisPages *self)
{
  g_return_val_if_fail (KS_IS_ANALYSIS_PAGES (self), FALSE);
  return self->cancellable != NULL;
}

static GSettings *
settings_if_installed (void)
{
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = NULL;

  if (source == NULL)
    return NULL;
  schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);
  if (schema == NULL || !g_settings_schema_has_key (schema, "gap-threshold-us"))
    return NULL;
  return g_settings_new (APP_ID);
}

static void
connect_page (KsAnalysisPages *self,
              gpointer         page)
{
  g_signal_connect_object (page, "navigate", G_CALLBACK (navigate_cb), self, 0);
  g_signal_connect_object (page, "highlight", G_CALLBACK (highlight_cb), self, 0);
}

KsAnalysisPages *
ks_analysis_pages_new (KsWindow *window)
{
  static const GActionEntry entries[] = {
    { "next-gap", next_gap_action },
    { "previous-gap", previous_gap_action },
    { "toggle-gap-order", toggle_gap_order_action },
  };
  KsAnalysisPages *self;
  GtkEventController *shortcuts;

  g_return_val_if_fail (KS_IS_WINDOW (window), NULL);

  self = g_object_new (KS_TYPE_ANALYSIS_PAGES, NULL);
  self->window = window;
  g_object_weak_ref (G_OBJECT (window), window_gone_cb, self);

  self->summary = KS_SUMMARY_PAGE (ks_summary_page_new ());
  self->gaps = KS_GAPS_PAGE (ks_gaps_page_new ());
  self->operators = KS_OPERATORS_PAGE (ks_operators_page_new ());
  self->kernels = KS_KERNELS_PAGE (ks_kernels_page_new ());
  self->memory = KS_MEMORY_PAGE (ks_memory_page_new ());

  ks_window_add_page (window, GTK_WIDGET (self->summary), "summary", _("Summary"));
  ks_window_add_page (window, GTK_WIDGET (self->gaps), "gaps", _("Gaps"));
  ks_window_add_page (window, GTK_WIDGET (self->operators), "operators", _("Operators"));
  ks_window_add_page (window, GTK_WIDGET (self->kernels), "kernels", _("Kernels"));
  ks_window_add_page (window, GTK_WIDGET (self->memory), "memory", _("Memory"));
  /* Adding pages must not change what the panel shows */
  ks_window_show_page (window, "selection");

  connect_page (self, self->summary);
  connect_page (self, self->gaps);
  connect_page (self, self->operators);
  connect_page (self, self->kernels);
  connect_page (self, self->memory);

  self->settings = settings_if_installed ();
  if (self->settings != NULL)
    {
      g_autofree char *order = g_settings_get_string (self->settings, "gap-order");

      ks_gaps_page_set_order_by_time (self->gaps, g_strcmp0 (order, "time") == 0);
      g_signal_connect_object (self->settings, "changed", G_CALLBACK (settings_changed_cb), self,
                               G_CONNECT_SWAPPED);
    }
  g_signal_connect_object (self->gaps, "notify::order-by-time", G_CALLBACK (order_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->summary, "notify::include-copies", G_CALLBACK (include_copies_changed_cb), self,
                           G_CONNECT_SWAPPED);

  self->actions = g_simple_action_group_new ();
  g_action_map_add_action_entries (G_ACTION_MAP (self->actions), entries, G_N_ELEMENTS (entries), self);
  gtk_widget_insert_action_group (GTK_WIDGET (window), "analysis", G_ACTION_GROUP (self->actions));

  /* ] and [ anywhere in the window, unless a text field takes them */
  shortcuts = gtk_shortcut_controller_new ();
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (shortcuts),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_bracketright, 0),
                                                          gtk_named_action_new ("analysis.next-gap")));
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (shortcuts),
                                        gtk_shortcut_new (gtk_keyval_trigger_new (GDK_KEY_bracketleft, 0),
                                                          gtk_named_action_new ("analysis.previous-gap")));
  gtk_widget_add_controller (GTK_WIDGET (window), shortcuts);

  g_signal_connect_object (window, "notify::session", G_CALLBACK (session_changed_cb), self,
                           G_CONNECT_SWAPPED);
  recompute (self);

  return self;
}

static void
ks_analysis_pages_dispose (GObject *object)
{
  KsAnalysisPages *self = (KsAnalysisPages *)object;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_handle_id (&self->recompute_id, g_source_remove);
  if (self->window != NULL)
    {
      g_object_weak_unref (G_OBJECT (self->window), window_gone_cb, self);
      self->window = NULL;
    }
  g_clear_object (&self->settings);
  g_clear_object (&self->actions);
  g_clear_object (&self->analysis);
  g_clear_object (&self->trace);
  g_clear_pointer (&self->matches, g_free);

  G_OBJECT_CLASS (ks_analysis_pages_parent_class)->dispose (object);
}

static void
ks_analysis_pages_get_property (GObject    *object,
                                guint       prop_id,
                                GValue     *value,
                                GParamSpec *pspec)
{
  KsAnalysisPages *self = KS_ANALYSIS_PAGES (object);

  switch (prop_id)
    {
    case PROP_ANALYSIS:
      g_value_set_object (value, self->analysis);
      break;
    case PROP_BUSY:
      g_value_set_boolean (value, ks_analysis_pages_get_busy (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_analysis_pages_class_init (KsAnalysisPagesClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ks_analysis_pages_dispose;
  object_class->get_property = ks_analysis_pages_get_property;

  properties[PROP_ANALYSIS] =
    g_param_spec_object ("analysis", NULL, NULL, KS_TYPE_ANALYSIS,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_BUSY] =
    g_param_spec_boolean ("busy", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ks_analysis_pages_init (KsAnalysisPages *self)
{
}
