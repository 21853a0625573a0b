/* ks-critical-path-page.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-critical-path-page"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "ks-critical-path-page.h"
#include "ks-format.h"

#define SHOWN_ITEMS 12

struct _KsCriticalPathPage
{
  KsPage          parent_instance;

  GtkDropDown    *step_dropdown;
  GtkStringList  *step_names;
  GtkLabel       *summary_label;
  GtkDrawingArea *bar;
  GtkLabel       *legend_label;
  GtkListBox     *items_list;
  GtkEntry       *what_if_entry;
  GtkLabel       *what_if_label;

  GCancellable   *cancellable;
  gboolean        stale;       /* the analysis changed while the page was hidden */
  KsCriticalPath *path;
  KsWhatIf       *what_if;     /* the rules of the path computed, NULL none */
};

G_DEFINE_FINAL_TYPE (KsCriticalPathPage, ks_critical_path_page, KS_TYPE_PAGE)

enum { PATH_CHANGED, N_SIGNALS };
static guint signals[N_SIGNALS];

/* One colour a class, in the bar and its legend. */
static const char * const class_colors[KS_N_PATH_CLASSES] = {
  "#3584e4", "#9141ac", "#e5a50a", "#ff7800", "#2ec27e", "#26a1a2", "#e01b24", "#986a44",
};

static const KsPathStep *
shown_step (KsCriticalPathPage *self)
{
  guint n, i = gtk_drop_down_get_selected (self->step_dropdown);
  const KsPathStep *steps;

  if (self->path == NULL)
    return NULL;
  steps = ks_critical_path_get_steps (self->path, &n);
  return i < n ? &steps[i] : NULL;
}

static void
draw_bar (GtkDrawingArea *area,
          cairo_t        *cr,
          int             width,
          int             height,
          gpointer        user_data)
{
  KsCriticalPathPage *self = user_data;
  const KsPathStep *step = shown_step (self);
  double x = 0;

  if (step == NULL || step->path_ns <= 0)
    return;
  for (guint k = 0; k < KS_N_PATH_CLASSES; k++)
    {
      double w = (double)width * MAX (step->by_class[k], 0) / step->path_ns;
      GdkRGBA rgba;

      if (w <= 0)
        continue;
      gdk_rgba_parse (&rgba, class_colors[k]);
      gdk_cairo_set_source_rgba (cr, &rgba);
      cairo_rectangle (cr, x, 0, w, height);
      cairo_fill (cr);
      x += w;
    }
}

static void
clear_items (KsCriticalPathPage *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->items_list))) != NULL)
    gtk_list_box_remove (self->items_list, child);
}

static void
update_what_if (KsCriticalPathPage *self)
{
  const KsPathStep *step = shown_step (self);
  g_autofree char *text = NULL;

  gtk_widget_remove_css_class (GTK_WIDGET (self->what_if_label), "error");
  if (step != NULL && self->what_if != NULL)
    {
      g_autofree char *after = ks_time_format_duration (step->predicted_ns);
      g_autofree char *before = ks_time_format_duration (step->dur_ns);
      g_autofree char *mean_after = NULL;
      g_autofree char *mean_before = NULL;
      gint64 dur, predicted;
      guint n;

      ks_critical_path_get_steps (self->path, &n);
      ks_critical_path_get_totals (self->path, &dur, NULL, &predicted, NULL, NULL);
      mean_after = ks_time_format_duration (predicted / MAX (n, 1));
      mean_before = ks_time_format_duration (dur / MAX (n, 1));
      /* TRANSLATORS: "With dataloader=0, this step would take 1.6 ms instead of 8.6 ms; the mean step …" */
      text = g_strdup_printf (_("With %s, this step would take %s instead of %s; the mean step %s instead of %s."),
                              ks_what_if_get_text (self->what_if), after, before, mean_after, mean_before);
    }
  gtk_label_set_text (self->what_if_label, text != NULL ? text : "");
}

/* Shows the step selected: its bar, legend, items; and tells the
 * timeline. */

/* The timeline outlines the path of the step shown: the session's. */
static void
show_path (KsCriticalPathPage *self,
           KsCriticalPath     *path,
           guint               step)
{
  KsSession *session = ks_page_get_session (KS_PAGE (self));

  if (session != NULL && ks_session_get_trace (session) != NULL)
    ks_session_set_critical_path (session, path != NULL && ks_critical_path_get_trace (path) == ks_session_get_trace (session)
                                           ? path : NULL, step);
  g_signal_emit (self, signals[PATH_CHANGED], 0, path, step);
}

static void
show_step (KsCriticalPathPage *self)
{
  const KsPathStep *step = shown_step (self);
  KsTrace *trace = self->path != NULL ? ks_critical_path_get_trace (self->path) : NULL;
  g_autoptr(GString) legend = g_string_new (NULL);
  g_autofree char *summary = NULL;

  clear_items (self);
  gtk_widget_queue_draw (GTK_WIDGET (self->bar));
  update_what_if (self);
  if (step == NULL)
    {
      gtk_label_set_text (self->summary_label, self->path == NULL && self->cancellable != NULL
                                                 ? _("Finding the critical path…") : "");
      gtk_label_set_text (self->legend_label, "");
      show_path (self, NULL, G_MAXUINT);
      return;
    }

  {
    g_autofree char *path_text = ks_time_format_duration (step->path_ns);
    g_autofree char *dur_text = ks_time_format_duration (step->dur_ns);

    summary = g_strdup_printf (_("The path is %s of a %s step."), path_text, dur_text);
    if (step->set_by_rank != step->rank)
      {
        g_autofree char *wait_text = ks_time_format_duration (step->set_by_wait_ns);
        g_autofree char *with_rank = NULL;

        /* TRANSLATORS: "The path is 47 ms of a 47 ms step. Rank 1 set it: this rank waited 40 ms for it in collectives." */
        with_rank = g_strdup_printf (_("%s Rank %d set it: this rank waited %s for it in collectives."),
                                     summary, step->set_by_rank, wait_text);
        g_free (summary);
        summary = g_steal_pointer (&with_rank);
      }
    gtk_label_set_text (self->summary_label, summary);
  }
  for (guint k = 0; k < KS_N_PATH_CLASSES; k++)
    {
      g_autofree char *label = NULL;

      /* What would read "0 %" only crowds the legend. */
      if (step->path_ns <= 0 || 200 * step->by_class[k] < step->path_ns)
        continue;
      label = g_markup_escape_text (ks_path_class_to_label (k), -1);
      if (legend->len > 0)
        g_string_append (legend, "  ");
      g_string_append_printf (legend, "<span foreground=\"%s\">■</span> %s %.0f %%",
                              class_colors[k], label, 100.0 * step->by_class[k] / step->path_ns);
    }
  gtk_label_set_markup (self->legend_label, legend->str);
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->bar), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                  gtk_label_get_text (self->legend_label), -1);

  for (guint i = 0; i < MIN (step->n_items, SHOWN_ITEMS); i++)
    {
      const KsPathItem *item = &step->items[i];
      g_autofree char *time = ks_time_format_duration (item->ns);
      g_autofree char *title = g_markup_escape_text (ks_trace_string (trace, item->name), -1);
      GtkWidget *row = adw_action_row_new ();
      GtkWidget *suffix = gtk_label_new (time);

      adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), title);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row), ks_path_class_to_label (item->klass));
      adw_action_row_set_title_lines (ADW_ACTION_ROW (row), 2);
      gtk_widget_add_css_class (suffix, "numeric");
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), suffix);
      gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
      g_object_set_data (G_OBJECT (row), "ks-item", GUINT_TO_POINTER (i + 1));
      gtk_list_box_append (self->items_list, row);
    }
  show_path (self, self->path, step->step);
}

/* Activating an item selects its longest piece on the path and shows it. */
static void
item_activated_cb (KsCriticalPathPage *self,
                   GtkListBoxRow      *row)
{
  const KsPathStep *step = shown_step (self);
  guint i = GPOINTER_TO_UINT (g_object_get_data (G_OBJECT (row), "ks-item"));
  KsSession *session = ks_page_get_session (KS_PAGE (self));
  const KsPathItem *item;
  const KsTrack *track;

  if (step == NULL || i == 0 || i > step->n_items)
    return;
  item = &step->items[i - 1];
  track = &ks_critical_path_get_trace (self->path)->tracks[item->track];
  if (session != NULL && ks_session_get_trace (session) != ks_critical_path_get_trace (self->path))
    session = NULL;
  if (session != NULL)
    ks_session_select_slice (session, item->track, item->slice);
  ks_page_navigate (KS_PAGE (self), track->start[item->slice], track->end[item->slice]);
  /* its row brought into view, even when the slice was already selected */
  if (session != NULL)
    ks_session_reveal_track (session, item->track);
}

static void
step_selected_cb (KsCriticalPathPage *self)
{
  show_step (self);
}

/* The step's name; a folder of ranks has each step once a rank, a trace
 * without steps one path for all of it. */
static char *
step_title (KsTrace          *trace,
            const KsPathStep *step)
{
  if (step->name == 0)
    return g_strdup (_("Whole trace (no steps)"));
  if (step->rank >= 0)
    /* TRANSLATORS: a step of one rank: "ProfilerStep#3 (rank 1)" */
    return g_strdup_printf (_("%s (rank %d)"), ks_trace_string (trace, step->name), step->rank);
  return g_strdup (ks_trace_string (trace, step->name));
}

static void
computed_cb (GObject      *source,
             GAsyncResult *result,
             gpointer      user_data)
{
  g_autoptr(KsCriticalPathPage) self = user_data;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsCriticalPath) path = ks_critical_path_compute_finish (result, &error);
  guint selected, n;
  const KsPathStep *steps;

  /* A computation that another one replaced. */
  if (g_task_get_cancellable (G_TASK (result)) != self->cancellable)
    return;
  if (path == NULL)
    {
      g_clear_object (&self->cancellable);
      gtk_label_set_text (self->summary_label, error->message);
      return;
    }
  g_clear_object (&self->cancellable);
  selected = gtk_drop_down_get_selected (self->step_dropdown);
  g_set_object (&self->path, path);
  steps = ks_critical_path_get_steps (path, &n);

  /* The same steps again (new rules): keep the one shown. */
  g_signal_handlers_block_by_func (self->step_dropdown, step_selected_cb, self);
  if (g_list_model_get_n_items (G_LIST_MODEL (self->step_names)) != n)
    {
      g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);

      for (guint i = 0; i < n; i++)
        g_ptr_array_add (names, step_title (ks_critical_path_get_trace (path), &steps[i]));
      g_ptr_array_add (names, NULL);
      gtk_string_list_splice (self->step_names, 0, g_list_model_get_n_items (G_LIST_MODEL (self->step_names)),
                              (const char * const *)names->pdata);
      selected = 0;
    }
  gtk_drop_down_set_selected (self->step_dropdown, MIN (selected, n > 0 ? n - 1 : 0));
  g_signal_handlers_unblock_by_func (self->step_dropdown, step_selected_cb, self);

  ks_page_set_empty (KS_PAGE (self), "media-playlist-consecutive-symbolic",
                     n == 0 ? _("No Steps") : NULL,
                     _("The critical path is found per step: record several steps with ProfilerStep#N "
                       "(torch.profiler's schedule) or NVTX ranges named “step N”."));
  show_step (self);
}

static void
compute (KsCriticalPathPage *self)
{
  KsAnalysis *analysis = ks_page_get_analysis (KS_PAGE (self));
  KsTrace *trace = ks_page_get_trace (KS_PAGE (self));

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->stale = FALSE;
  if (analysis == NULL || trace == NULL)
    return;
  self->cancellable = g_cancellable_new ();
  ks_critical_path_compute_async (trace, analysis, NULL, self->what_if, self->cancellable,
                                  computed_cb, g_object_ref (self));
}

static void
ks_critical_path_page_refill (KsPage     *page,
                              KsTrace    *trace,
                              KsAnalysis *analysis)
{
  KsCriticalPathPage *self = KS_CRITICAL_PATH_PAGE (page);

  g_clear_object (&self->path);
  g_signal_handlers_block_by_func (self->step_dropdown, step_selected_cb, self);
  gtk_string_list_splice (self->step_names, 0, g_list_model_get_n_items (G_LIST_MODEL (self->step_names)), NULL);
  g_signal_handlers_unblock_by_func (self->step_dropdown, step_selected_cb, self);
  ks_page_set_empty (page, NULL, NULL, NULL);
  /* Every step's path of a large trace takes a while: only for a page
   * that is shown. */
  self->stale = TRUE;
  if (gtk_widget_get_mapped (GTK_WIDGET (self)))
    compute (self);
  show_step (self);
}

static void
ks_critical_path_page_map (GtkWidget *widget)
{
  KsCriticalPathPage *self = KS_CRITICAL_PATH_PAGE (widget);

  GTK_WIDGET_CLASS (ks_critical_path_page_parent_class)->map (widget);
  if (self->stale)
    {
      compute (self);
      show_step (self);
    }
}

/* Re-times the steps with the rules typed; an empty entry clears them. */
static void
what_if_action (GtkWidget  *widget,
                const char *action_name,
                GVariant   *parameter)
{
  KsCriticalPathPage *self = KS_CRITICAL_PATH_PAGE (widget);
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->what_if_entry));
  g_autoptr(GError) error = NULL;
  KsWhatIf *what_if = NULL;

  if (*text != '\0' && (what_if = ks_what_if_parse (text, &error)) == NULL)
    {
      gtk_label_set_text (self->what_if_label, error->message);
      gtk_widget_add_css_class (GTK_WIDGET (self->what_if_label), "error");
      return;
    }
  g_clear_pointer (&self->what_if, ks_what_if_free);
  self->what_if = what_if;
  gtk_label_set_text (self->what_if_label, "");
  compute (self);
}

static void
what_if_entry_activate_cb (KsCriticalPathPage *self)
{
  gtk_widget_activate_action (GTK_WIDGET (self), "critical-path.what-if", NULL);
}

KsCriticalPath *
ks_critical_path_page_get_path (KsCriticalPathPage *self)
{
  g_return_val_if_fail (KS_IS_CRITICAL_PATH_PAGE (self), NULL);

  return self->path;
}

guint
ks_critical_path_page_get_step (KsCriticalPathPage *self)
{
  const KsPathStep *step;

  g_return_val_if_fail (KS_IS_CRITICAL_PATH_PAGE (self), G_MAXUINT);

  step = shown_step (self);
  return step != NULL ? step->step : G_MAXUINT;
}

static void
ks_critical_path_page_dispose (GObject *object)
{
  KsCriticalPathPage *self = (KsCriticalPathPage *)object;

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->path);
  g_clear_pointer (&self->what_if, ks_what_if_free);
  ks_page_dispose_template (GTK_WIDGET (self), KS_TYPE_CRITICAL_PATH_PAGE);

  G_OBJECT_CLASS (ks_critical_path_page_parent_class)->dispose (object);
}

static void
ks_critical_path_page_class_init (KsCriticalPathPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_critical_path_page_dispose;
  widget_class->map = ks_critical_path_page_map;
  KS_PAGE_CLASS (klass)->refill = ks_critical_path_page_refill;

  signals[PATH_CHANGED] = g_signal_new ("path-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                                        0, NULL, NULL, NULL, G_TYPE_NONE, 2, KS_TYPE_CRITICAL_PATH, G_TYPE_UINT);

  gtk_widget_class_install_action (widget_class, "critical-path.what-if", NULL, what_if_action);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/kinescope/Kinescope/pages/ks-critical-path-page.ui");
  gtk_widget_class_bind_template_child (widget_class, KsCriticalPathPage, step_dropdown);
  gtk_widget_class_bind_template_child (widget_class, KsCriticalPathPage, step_names);
  gtk_widget_class_bind_template_child (widget_class, KsCriticalPathPage, summary_label);
  gtk_widget_class_bind_template_child (widget_class, KsCriticalPathPage, bar);
  gtk_widget_class_bind_template_child (widget_class, KsCriticalPathPage, legend_label);
  gtk_widget_class_bind_template_child (widget_class, KsCriticalPathPage, items_list);
  gtk_widget_class_bind_template_child (widget_class, KsCriticalPathPage, what_if_entry);
  gtk_widget_class_bind_template_child (widget_class, KsCriticalPathPage, what_if_label);
  gtk_widget_class_bind_template_callback (widget_class, item_activated_cb);
  gtk_widget_class_bind_template_callback (widget_class, what_if_entry_activate_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
ks_critical_path_page_init (KsCriticalPathPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_drawing_area_set_draw_func (self->bar, draw_bar, self, NULL);
  g_signal_connect_swapped (self->step_dropdown, "notify::selected", G_CALLBACK (step_selected_cb), self);
}

GtkWidget *
ks_critical_path_page_new (void)
{
  return g_object_new (KS_TYPE_CRITICAL_PATH_PAGE, NULL);
}
