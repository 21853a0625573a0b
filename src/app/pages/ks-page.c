/* ks-page.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-page"

#include "config.h"

#include <adwaita.h>

#include "ks-page.h"

typedef struct
{
  KsSession  *session;
  GBinding   *binding;    /* session:analysis -> self:analysis */
  /* What the last refill showed: kept alive while the subclass borrows it */
  KsTrace    *trace;
  KsAnalysis *analysis;
  /* What the next refill shows, while one is scheduled */
  KsTrace    *next_trace;
  KsAnalysis *next_analysis;
  GList      *queued;     /* link in refill_queue, or NULL: refilled */
  guint       holds;      /* ks_page_hold_filled() not yet released */
  gboolean    filled;     /* as last notified */
  GtkWidget  *empty;      /* AdwStatusPage over the content, or NULL */
} KsPagePrivate;

G_DEFINE_TYPE_WITH_PRIVATE (KsPage, ks_page, GTK_TYPE_WIDGET)

enum { PROP_0, PROP_SESSION, PROP_ANALYSIS, PROP_FILLED, N_PROPS };
static GParamSpec *properties[N_PROPS];

enum { NAVIGATE, HIGHLIGHT, N_SIGNALS };
static guint signals[N_SIGNALS];

/* Pages waiting for the refill of a session's new analysis. Building
 * every page's rows in one main-loop step froze a large trace's window
 * for a second, so one idle refills one page per iteration and frames
 * are drawn in between: the pages the user sees at default-idle
 * priority, the hidden ones after them at low priority. Separate idles
 * per page would all be dispatched in the same iteration. */
static GQueue refill_queue = G_QUEUE_INIT;
static guint refill_source;
static int refill_priority;

/* Notifies "filled" when it changed. */
static void
ks_page_sync_filled (KsPage *self)
{
  KsPagePrivate *priv = ks_page_get_instance_private (self);
  gboolean filled = ks_page_get_filled (self);

  if (filled == priv->filled)
    return;
  priv->filled = filled;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILLED]);
}

static void
ks_page_refill_now (KsPage     *self,
                    KsTrace    *trace,
                    KsAnalysis *analysis)
{
  KsPagePrivate *priv = ks_page_get_instance_private (self);
  /* The old pair lives until the subclass has let go of it */
  g_autoptr(KsTrace) old_trace = g_steal_pointer (&priv->trace);
  g_autoptr(KsAnalysis) old_analysis = g_steal_pointer (&priv->analysis);
  gboolean changed;

  if (priv->queued != NULL)
    {
      g_queue_delete_link (&refill_queue, priv->queued);
      priv->queued = NULL;
    }
  g_clear_object (&priv->next_trace);
  g_clear_object (&priv->next_analysis);

  priv->trace = trace ? g_object_ref (trace) : NULL;
  priv->analysis = analysis ? g_object_ref (analysis) : NULL;
  changed = priv->analysis != old_analysis;

  if (KS_PAGE_GET_CLASS (self)->refill != NULL)
    KS_PAGE_GET_CLASS (self)->refill (self, priv->trace, priv->analysis);
  if (changed)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ANALYSIS]);
  ks_page_sync_filled (self);
}

static void ks_page_update_refill_source (void);

static gboolean
refill_idle_cb (gpointer data)
{
  KsPage *next = NULL;
  KsPagePrivate *priv;

  /* A refill that schedules another adds a new idle */
  refill_source = 0;

  /* The page the user sees first, else the one queued longest */
  for (GList *l = refill_queue.head; l != NULL && next == NULL; l = l->next)
    if (gtk_widget_get_mapped (l->data))
      next = l->data;
  if (next == NULL)
    next = g_queue_peek_head (&refill_queue);

  if (next != NULL)
    {
      g_autoptr(KsPage) page = g_object_ref (next);
      g_autoptr(KsTrace) trace = NULL;
      g_autoptr(KsAnalysis) analysis = NULL;

      priv = ks_page_get_instance_private (page);
      trace = g_steal_pointer (&priv->next_trace);
      analysis = g_steal_pointer (&priv->next_analysis);
      ks_page_refill_now (page, trace, analysis);
    }

  ks_page_update_refill_source ();
  return G_SOURCE_REMOVE;
}

/* One idle for the queue, at the priority of its most urgent page. */
static void
ks_page_update_refill_source (void)
{
  int priority = G_PRIORITY_LOW;

  for (GList *l = refill_queue.head; l != NULL; l = l->next)
    if (gtk_widget_get_mapped (l->data))
      priority = G_PRIORITY_DEFAULT_IDLE;

  if (refill_source != 0 && (refill_queue.length == 0 || priority != refill_priority))
    g_clear_handle_id (&refill_source, g_source_remove);
  if (refill_source == 0 && refill_queue.length > 0)
    {
      refill_priority = priority;
      refill_source = g_idle_add_full (priority, refill_idle_cb, NULL, NULL);
      g_source_set_static_name (g_main_context_find_source_by_id (NULL, refill_source),
                                "[kinescope] page refill");
    }
}

/* Shows @analysis of @trace at the page's turn. */
static void
ks_page_schedule_refill (KsPage     *self,
                         KsTrace    *trace,
                         KsAnalysis *analysis)
{
  KsPagePrivate *priv = ks_page_get_instance_private (self);

  /* A newer analysis replaces the one still waiting */
  g_set_object (&priv->next_trace, trace);
  g_set_object (&priv->next_analysis, analysis);
  if (priv->queued == NULL)
    {
      g_queue_push_tail (&refill_queue, self);
      priv->queued = refill_queue.tail;
    }
  ks_page_update_refill_source ();
  ks_page_sync_filled (self);
}

static void
ks_page_cancel_refill (KsPage *self)
{
  KsPagePrivate *priv = ks_page_get_instance_private (self);

  if (priv->queued == NULL)
    return;
  g_queue_delete_link (&refill_queue, priv->queued);
  priv->queued = NULL;
  g_clear_object (&priv->next_trace);
  g_clear_object (&priv->next_analysis);
  ks_page_update_refill_source ();
}

KsSession *
ks_page_get_session (KsPage *self)
{
  KsPagePrivate *priv = ks_page_get_instance_private (self);

  g_return_val_if_fail (KS_IS_PAGE (self), NULL);

  return priv->session;
}

void
ks_page_set_session (KsPage    *self,
                     KsSession *session)
{
  KsPagePrivate *priv = ks_page_get_instance_private (self);

  g_return_if_fail (KS_IS_PAGE (self));
  g_return_if_fail (!session || KS_IS_SESSION (session));

  if (priv->session == session)
    return;

  g_clear_pointer (&priv->binding, g_binding_unbind);
  g_set_object (&priv->session, session);
  if (session != NULL)
    priv->binding = g_object_bind_property (session, "analysis", self, "analysis", G_BINDING_SYNC_CREATE);
  else
    ks_page_set_analysis (self, NULL, NULL);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION]);
}

KsAnalysis *
ks_page_get_analysis (KsPage *self)
{
  KsPagePrivate *priv = ks_page_get_instance_private (self);

  g_return_val_if_fail (KS_IS_PAGE (self), NULL);

  return priv->analysis;
}

KsTrace *
ks_page_get_trace (KsPage *self)
{
  KsPagePrivate *priv = ks_page_get_instance_private (self);

  g_return_val_if_fail (KS_IS_PAGE (self), NULL);

  return priv->trace;
}

gboolean
ks_page_get_filled (KsPage *self)
{
  KsPagePrivate *priv = ks_page_get_instance_private (self);

  g_return_val_if_fail (KS_IS_PAGE (self), FALSE);

  return priv->queued == NULL && priv->holds == 0;
}

void
ks_page_hold_filled (KsPage *self)
{
  KsPagePrivate *priv = ks_page_get_instance_private (self);

  g_return_if_fail (KS_IS_PAGE (self));

  priv->holds++;
  ks_page_sync_filled (self);
}

void
ks_page_release_filled (KsPage *self)
{
  KsPagePrivate *priv = ks_page_get_instance_private (self);

  g_return_if_fail (KS_IS_PAGE (self));
  g_return_if_fail (priv->holds > 0);

  priv->holds--;
  ks_page_sync_filled (self);
}

void
ks_page_fill (KsPage *self)
{
  KsPagePrivate *priv = ks_page_get_instance_private (self);
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) analysis = NULL;

  g_return_if_fail (KS_IS_PAGE (self));

  if (priv->queued == NULL)
    return;
  trace = g_steal_pointer (&priv->next_trace);
  analysis = g_steal_pointer (&priv->next_analysis);
  ks_page_refill_now (self, trace, analysis);
  ks_page_update_refill_source ();
}

void
ks_page_set_analysis (KsPage     *self,
                      KsTrace    *trace,
                      KsAnalysis *analysis)
{
  g_return_if_fail (KS_IS_PAGE (self));
  g_return_if_fail (!trace || KS_IS_TRACE (trace));
  g_return_if_fail (!analysis || KS_IS_ANALYSIS (analysis));

  /* An analysis means nothing without its trace */
  if (trace == NULL)
    analysis = NULL;
  if (analysis == NULL)
    trace = NULL;

  /* Refilled even when unchanged: the caller asks for fresh rows */
  ks_page_refill_now (self, trace, analysis);
}

void
ks_page_navigate (KsPage *self,
                  gint64  start,
                  gint64  end)
{
  g_return_if_fail (KS_IS_PAGE (self));

  g_signal_emit (self, signals[NAVIGATE], 0, start, end);
}

void
ks_page_highlight (KsPage *self,
                   guint   name)
{
  g_return_if_fail (KS_IS_PAGE (self));

  g_signal_emit (self, signals[HIGHLIGHT], 0, name);
}

void
ks_page_set_empty (KsPage     *self,
                   const char *icon_name,
                   const char *title,
                   const char *description)
{
  KsPagePrivate *priv = ks_page_get_instance_private (self);

  g_return_if_fail (KS_IS_PAGE (self));

  if (title != NULL && priv->empty == NULL)
    {
      priv->empty = adw_status_page_new ();
      gtk_widget_set_parent (priv->empty, GTK_WIDGET (self));
    }
  if (priv->empty == NULL)
    return;

  /* The page's own children are hidden rather than covered, so that
   * neither a pointer nor the keyboard reaches them. */
  for (GtkWidget *c = gtk_widget_get_first_child (GTK_WIDGET (self)); c != NULL; c = gtk_widget_get_next_sibling (c))
    if (c != priv->empty)
      gtk_widget_set_visible (c, title == NULL);
  gtk_widget_set_visible (priv->empty, title != NULL);
  if (title != NULL)
    {
      adw_status_page_set_icon_name (ADW_STATUS_PAGE (priv->empty), icon_name);
      adw_status_page_set_title (ADW_STATUS_PAGE (priv->empty), title);
      adw_status_page_set_description (ADW_STATUS_PAGE (priv->empty), description);
    }
}

void
ks_page_dispose_template (GtkWidget *page,
                          GType      type)
{
  GtkWidget *child;

  gtk_widget_dispose_template (page, type);
  if (KS_IS_PAGE (page))
    ((KsPagePrivate *)ks_page_get_instance_private (KS_PAGE (page)))->empty = NULL;
  while ((child = gtk_widget_get_first_child (page)) != NULL)
    gtk_widget_unparent (child);
}

static void
ks_page_dispose (GObject *object)
{
  KsPage *self = (KsPage *)object;
  KsPagePrivate *priv = ks_page_get_instance_private (self);

  /* The subclass has disposed its widgets already: no refill now */
  ks_page_cancel_refill (self);
  g_clear_pointer (&priv->binding, g_binding_unbind);
  g_clear_object (&priv->session);
  g_clear_object (&priv->analysis);
  g_clear_object (&priv->trace);

  G_OBJECT_CLASS (ks_page_parent_class)->dispose (object);
}

/* A page shown before its turn shows its analysis at once. */
static void
ks_page_map (GtkWidget *widget)
{
  ks_page_fill (KS_PAGE (widget));

  GTK_WIDGET_CLASS (ks_page_parent_class)->map (widget);
}

/* Pages start empty, refilled once their own init has run. */
static void
ks_page_constructed (GObject *object)
{
  KsPage *self = (KsPage *)object;

  G_OBJECT_CLASS (ks_page_parent_class)->constructed (object);

  if (KS_PAGE_GET_CLASS (self)->refill != NULL)
    KS_PAGE_GET_CLASS (self)->refill (self, NULL, NULL);
}

static void
ks_page_get_property (GObject    *object,
                      guint       prop_id,
                      GValue     *value,
                      GParamSpec *pspec)
{
  KsPage *self = KS_PAGE (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      g_value_set_object (value, ks_page_get_session (self));
      break;
    case PROP_ANALYSIS:
      g_value_set_object (value, ks_page_get_analysis (self));
      break;
    case PROP_FILLED:
      g_value_set_boolean (value, ks_page_get_filled (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_page_set_property (GObject      *object,
                      guint         prop_id,
                      const GValue *value,
                      GParamSpec   *pspec)
{
  KsPage *self = KS_PAGE (object);
  KsPagePrivate *priv = ks_page_get_instance_private (self);

  switch (prop_id)
    {
    case PROP_SESSION:
      ks_page_set_session (self, g_value_get_object (value));
      break;
    case PROP_ANALYSIS:
      {
        KsAnalysis *analysis = g_value_get_object (value);
        KsAnalysis *target = priv->queued != NULL ? priv->next_analysis : priv->analysis;
        /* The session's analysis is of the session's trace */
        KsTrace *trace = priv->session ? ks_session_get_trace (priv->session) : priv->trace;

        if (analysis == target)
          break;
        /* Emptying is cheap and lets the old trace go at once; only
         * building rows waits for the page's turn. */
        if (trace == NULL || analysis == NULL)
          ks_page_refill_now (self, NULL, NULL);
        else
          ks_page_schedule_refill (self, trace, analysis);
      }
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

/* The signals' default handlers: the page acts on its session, after
 * any handler of the signal. */
static void
ks_page_real_navigate (KsPage *self,
                       gint64  start,
                       gint64  end)
{
  KsSession *session = ks_page_get_session (self);

  if (session != NULL && ks_session_get_trace (session) != NULL)
    ks_session_fit (session, start, end);
}

static void
ks_page_real_highlight (KsPage *self,
                        guint   name)
{
  KsSession *session = ks_page_get_session (self);

  if (session != NULL)
    ks_session_set_highlight (session, name);
}

static void
ks_page_class_init (KsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = ks_page_constructed;
  object_class->dispose = ks_page_dispose;
  object_class->get_property = ks_page_get_property;
  object_class->set_property = ks_page_set_property;
  klass->navigate = ks_page_real_navigate;
  klass->highlight = ks_page_real_highlight;

  widget_class->map = ks_page_map;

  properties[PROP_SESSION] =
    g_param_spec_object ("session", NULL, NULL, KS_TYPE_SESSION,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_ANALYSIS] =
    g_param_spec_object ("analysis", NULL, NULL, KS_TYPE_ANALYSIS,
                         (G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  /* FALSE while a new analysis waits for its refill */
  properties[PROP_FILLED] =
    g_param_spec_boolean ("filled", NULL, NULL, TRUE,
                          (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[NAVIGATE] =
    g_signal_new ("navigate", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  G_STRUCT_OFFSET (KsPageClass, navigate), NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_INT64, G_TYPE_INT64);
  signals[HIGHLIGHT] =
    g_signal_new ("highlight", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  G_STRUCT_OFFSET (KsPageClass, highlight), NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_UINT);
}

static void
ks_page_init (KsPage *self)
{
  KsPagePrivate *priv = ks_page_get_instance_private (self);

  priv->filled = TRUE;
}
