/* ks-search-bar.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-search-bar"

#include "config.h"

#include <glib/gi18n.h>

#include "ks-search-bar.h"

struct _KsSearchBar
{
  GtkWidget        parent_instance;

  GtkSearchBar    *search_bar;
  GtkSearchEntry  *search_entry;
  GtkToggleButton *regex_button;
  GtkLabel        *search_count;

  KsSession       *session;
};

G_DEFINE_FINAL_TYPE (KsSearchBar, ks_search_bar, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_SESSION,
  PROP_SEARCH_MODE_ENABLED,
  N_PROPS
};

enum {
  STOP_SEARCH,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

/* The count beside the entry, and the entry's error style, as the
 * session's search stands. */
static void
update_count (KsSearchBar *self)
{
  KsSearchResult *search = self->session != NULL ? ks_session_get_search (self->session) : NULL;
  const char *error = self->session != NULL ? ks_session_get_search_error (self->session) : NULL;
  g_autofree char *text = NULL;
  guint n = search != NULL ? ks_search_result_get_n_matches (search) : 0;
  int current = self->session != NULL ? ks_session_get_current_match (self->session) : -1;

  if (error != NULL)
    {
      gtk_widget_add_css_class (GTK_WIDGET (self->search_entry), "error");
      gtk_label_set_label (self->search_count, _("Invalid expression"));
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->search_count), error);
      return;
    }

  gtk_widget_remove_css_class (GTK_WIDGET (self->search_entry), "error");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->search_count), NULL);
  if (search == NULL)
    text = g_strdup ("");
  else if (n == 0)
    text = g_strdup (_("No matches"));
  else if (current < 0)
    text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u match", "%u matches", n), n);
  else
    text = g_strdup_printf (_("%d of %u"), current + 1, n);

  gtk_label_set_label (self->search_count, text);
}

/* The session searches in a worker: each keystroke starts a search
 * that cancels the one before, and the count follows the session.
 * Closing the bar ends the search, opening it searches again. */
static void
run_search (KsSearchBar *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->search_entry));

  if (self->session == NULL)
    return;
  ks_session_search (self->session,
                     gtk_search_bar_get_search_mode (self->search_bar) ? text : NULL,
                     gtk_toggle_button_get_active (self->regex_button));
}

static void
find_next_cb (KsSearchBar *self)
{
  gtk_widget_activate_action (GTK_WIDGET (self), "win.find-next", NULL);
}

static void
find_previous_cb (KsSearchBar *self)
{
  gtk_widget_activate_action (GTK_WIDGET (self), "win.find-previous", NULL);
}

static void
stop_search_cb (KsSearchBar *self)
{
  gtk_search_bar_set_search_mode (self->search_bar, FALSE);
  g_signal_emit (self, signals[STOP_SEARCH], 0);
}

static void
search_mode_cb (KsSearchBar *self)
{
  run_search (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SEARCH_MODE_ENABLED]);
}

KsSession *
ks_search_bar_get_session (KsSearchBar *self)
{
  g_return_val_if_fail (KS_IS_SEARCH_BAR (self), NULL);

  return self->session;
}

void
ks_search_bar_set_session (KsSearchBar *self,
                           KsSession   *session)
{
  g_return_if_fail (KS_IS_SEARCH_BAR (self));
  g_return_if_fail (!session || KS_IS_SESSION (session));

  if (self->session == session)
    return;
  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_set_object (&self->session, session);
  if (session != NULL)
    {
      g_signal_connect_object (session, "notify::search", G_CALLBACK (update_count), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (session, "notify::search-error", G_CALLBACK (update_count), self,
                               G_CONNECT_SWAPPED);
      g_signal_connect_object (session, "notify::current-match", G_CALLBACK (update_count), self,
                               G_CONNECT_SWAPPED);
    }
  update_count (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_SESSION]);
}

gboolean
ks_search_bar_get_search_mode (KsSearchBar *self)
{
  g_return_val_if_fail (KS_IS_SEARCH_BAR (self), FALSE);

  return gtk_search_bar_get_search_mode (self->search_bar);
}

void
ks_search_bar_set_search_mode (KsSearchBar *self,
                               gboolean     search_mode)
{
  g_return_if_fail (KS_IS_SEARCH_BAR (self));

  gtk_search_bar_set_search_mode (self->search_bar, search_mode);
}

void
ks_search_bar_start (KsSearchBar *self)
{
  g_return_if_fail (KS_IS_SEARCH_BAR (self));

  gtk_search_bar_set_search_mode (self->search_bar, TRUE);
  gtk_widget_grab_focus (GTK_WIDGET (self->search_entry));
}

static void
ks_search_bar_dispose (GObject *object)
{
  KsSearchBar *self = KS_SEARCH_BAR (object);

  /* the template's bindings first: they watch the session */
  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_SEARCH_BAR);
  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_clear_object (&self->session);

  G_OBJECT_CLASS (ks_search_bar_parent_class)->dispose (object);
}

static void
ks_search_bar_get_property (GObject    *object,
                            guint       prop_id,
                            GValue     *value,
                            GParamSpec *pspec)
{
  KsSearchBar *self = KS_SEARCH_BAR (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      g_value_set_object (value, self->session);
      break;
    case PROP_SEARCH_MODE_ENABLED:
      g_value_set_boolean (value, ks_search_bar_get_search_mode (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_search_bar_set_property (GObject      *object,
                            guint         prop_id,
                            const GValue *value,
                            GParamSpec   *pspec)
{
  KsSearchBar *self = KS_SEARCH_BAR (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      ks_search_bar_set_session (self, g_value_get_object (value));
      break;
    case PROP_SEARCH_MODE_ENABLED:
      ks_search_bar_set_search_mode (self, g_value_get_boolean (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_search_bar_class_init (KsSearchBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_search_bar_dispose;
  object_class->get_property = ks_search_bar_get_property;
  object_class->set_property = ks_search_bar_set_property;

  properties[PROP_SESSION] =
    g_param_spec_object ("session", NULL, NULL, KS_TYPE_SESSION,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_SEARCH_MODE_ENABLED] =
    g_param_spec_boolean ("search-mode-enabled", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* Escape closed the bar: the focus goes back to what it searches. */
  signals[STOP_SEARCH] = g_signal_new ("stop-search", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                       0, NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/kinescope/Kinescope/ks-search-bar.ui");
  gtk_widget_class_bind_template_child (widget_class, KsSearchBar, search_bar);
  gtk_widget_class_bind_template_child (widget_class, KsSearchBar, search_entry);
  gtk_widget_class_bind_template_child (widget_class, KsSearchBar, regex_button);
  gtk_widget_class_bind_template_child (widget_class, KsSearchBar, search_count);
  gtk_widget_class_bind_template_callback (widget_class, run_search);
  gtk_widget_class_bind_template_callback (widget_class, find_next_cb);
  gtk_widget_class_bind_template_callback (widget_class, find_previous_cb);
  gtk_widget_class_bind_template_callback (widget_class, stop_search_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
ks_search_bar_init (KsSearchBar *self)
{
  GtkEventController *controller;
  GtkShortcutTrigger *shift_enter;

  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_search_bar_connect_entry (self->search_bar, GTK_EDITABLE (self->search_entry));
  g_signal_connect_object (self->search_bar, "notify::search-mode-enabled", G_CALLBACK (search_mode_cb), self,
                           G_CONNECT_SWAPPED);

  /* Shift+Enter steps back, caught before the entry's text takes Enter
   * for "activate". Named "ks-…" so that the shortcuts test finds it. */
  controller = gtk_shortcut_controller_new ();
  gtk_event_controller_set_name (controller, "ks-search-keys");
  gtk_event_controller_set_propagation_phase (controller, GTK_PHASE_CAPTURE);
  shift_enter = gtk_alternative_trigger_new (gtk_keyval_trigger_new (GDK_KEY_Return, GDK_SHIFT_MASK),
                                             gtk_alternative_trigger_new (gtk_keyval_trigger_new (GDK_KEY_KP_Enter, GDK_SHIFT_MASK),
                                                                          gtk_keyval_trigger_new (GDK_KEY_ISO_Enter, GDK_SHIFT_MASK)));
  gtk_shortcut_controller_add_shortcut (GTK_SHORTCUT_CONTROLLER (controller),
                                        gtk_shortcut_new (shift_enter,
                                                          gtk_named_action_new ("win.find-previous")));
  gtk_widget_add_controller (GTK_WIDGET (self->search_entry), controller);
}

GtkWidget *
ks_search_bar_new (void)
{
  return g_object_new (KS_TYPE_SEARCH_BAR, NULL);
}
