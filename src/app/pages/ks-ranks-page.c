/* ks-ranks-page.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-ranks-page"

#include "config.h"

#include <glib/gi18n.h>

#include "ks-format.h"
#include "ks-page-table.h"
#include "ks-rank-summaries.h"
#include "ks-ranks-page.h"

#define BAR_HEIGHT 14
#define BAR_GAP 4
#define LABEL_WIDTH 64

struct _KsRanksPage
{
  KsPage               parent_instance;

  GtkLabel            *status_label;
  GtkColumnView       *view;
  GtkDrawingArea      *bars_area;

  KsPageTable          table;

  /* Borrowed from KsPage, set by refill */
  KsTrace             *trace;
  KsAnalysis          *analysis;
  const KsRankStats   *ranks;
  guint                n_ranks;
  guint32              selected_track;

  /* A job too large to load whole: its rows, and the one loaded;
   * followed from the session (job_session) */
  KsRankSummaries     *summaries;
  guint                loaded_row;
  KsSession           *job_session;
};

G_DEFINE_FINAL_TYPE (KsRanksPage, ks_ranks_page, KS_TYPE_PAGE)

static gboolean
filter_row (gpointer p,
            guint    i)
{
  return TRUE;
}

/* The rank's rows: its first thread track, else any of its group. */
static guint32
first_track_of (KsTrace *trace,
                guint32  group)
{
  guint32 any = KS_NO_INDEX;

  for (guint32 t = 0; t < trace->n_tracks; t++)
    if (trace->tracks[t].group == group)
      {
        if (trace->tracks[t].kind == KS_TRACK_THREAD)
          return t;
        if (any == KS_NO_INDEX)
          any = t;
      }
  return any;
}

static void
activate_cb (KsRanksPage *self,
             guint        position)
{
  guint i = ks_page_table_get_index_at (&self->table, position);
  const KsRankStats *row;
  guint32 group;
  gint64 start = G_MAXINT64, end = G_MININT64;
  guint n_steps;
  const KsStep *steps;

  if (i == G_MAXUINT)
    return;
  /* a summarised rank: its events are loaded first, by whoever holds
   * the session (the window) */
  if (self->summaries != NULL && i != self->loaded_row)
    {
      if (self->job_session != NULL)
        ks_session_set_loading_row (self->job_session, i);
      return;
    }
  if (self->trace == NULL)
    return;
  row = &self->ranks[i];
  if (self->summaries != NULL)
    {
      /* the loaded rank is the trace's only one */
      if (self->trace->n_ranks == 0)
        return;
      group = self->trace->ranks[0].group;
    }
  else if (row->rank_index == KS_NO_INDEX)
    return;
  else
    group = self->trace->ranks[row->rank_index].group;
  self->selected_track = first_track_of (self->trace, group);

  /* its steps, else its whole trace */
  steps = ks_analysis_get_steps (self->analysis, &n_steps);
  for (guint s = 0; s < n_steps; s++)
    if (self->trace->tracks[steps[s].track].group == group)
      {
        start = MIN (start, steps[s].start);
        end = MAX (end, steps[s].end);
      }
  if (start >= end)
    {
      start = 0;
      end = self->trace->duration_ns;
    }
  ks_page_navigate (KS_PAGE (self), start, end);
  /* and its rows brought into view */
  if (self->selected_track != KS_NO_INDEX && ks_page_get_session (KS_PAGE (self)) != NULL &&
      ks_session_get_trace (ks_page_get_session (KS_PAGE (self))) == self->trace)
    ks_session_reveal_track (ks_page_get_session (KS_PAGE (self)), self->selected_track);
}

static void
set_source_color (cairo_t    *cr,
                  const char *name,
                  const GdkRGBA *fallback)
{
  GdkRGBA c;

  if (gdk_rgba_parse (&c, name))
    gdk_cairo_set_source_rgba (cr, &c);
  else
    gdk_cairo_set_source_rgba (cr, fallback);
}

/* A bar a rank, as long as its step: compute, exposed communication and
 * the wait for other ranks (per step), the rest idle. */
static void
draw_bars_cb (GtkDrawingArea *area,
              cairo_t        *cr,
              int             width,
              int             height,
              gpointer        user_data)
{
  KsRanksPage *self = user_data;
  GdkRGBA fg;
  gint64 longest = 1;
  double span = MAX (width - LABEL_WIDTH - 4, 1);

  if (self->ranks == NULL)
    return;
  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (area)), &fg);
  for (guint i = 0; i < self->n_ranks; i++)
    longest = MAX (longest, self->ranks[i].step_mean_ns);

  for (guint i = 0; i < self->n_ranks; i++)
    {
      const KsRankStats *r = &self->ranks[i];
      double y = i * (BAR_HEIGHT + BAR_GAP);
      guint steps = MAX (r->steps, 1);
      double parts[3] = {
        (double)r->compute_ns / steps,
        (double)r->exposed_comm_ns / steps,
        (double)r->wait_ns / steps,
      };
      static const char * const colors[3] = { "#3584e4", "#e66100", "#c01c28" };
      g_autofree char *label = r->rank >= 0 ? g_strdup_printf (_("rank %d"), r->rank) : g_strdup ("");
      double x = LABEL_WIDTH;

      if (y + BAR_HEIGHT > height)
        break;
      gdk_cairo_set_source_rgba (cr, &fg);
      cairo_move_to (cr, 0, y + BAR_HEIGHT - 3);
      cairo_show_text (cr, label);

      fg.alpha *= 0.15;
      gdk_cairo_set_source_rgba (cr, &fg);
      cairo_rectangle (cr, x, y, span * r->step_mean_ns / longest, BAR_HEIGHT);
      cairo_fill (cr);
      fg.alpha /= 0.15;
      for (guint p = 0; p < 3; p++)
        {
          double w = span * MIN (parts[p], (double)r->step_mean_ns) / longest;

          set_source_color (cr, colors[p], &fg);
          cairo_rectangle (cr, x, y, w, BAR_HEIGHT);
          cairo_fill (cr);
          x += w;
        }
    }
}

/* Who the others wait for and how the clocks were aligned. */
static void
append_job_text (GString                *text,
                 const KsRankStats      *straggler,
                 const KsClockAlignment *clock)
{
  if (straggler != NULL)
    {
      g_autofree char *caused = ks_time_format_duration (straggler->wait_caused_ns);

      g_string_append_printf (text, _("The others wait for rank %d: %s in all."), straggler->rank, caused);
    }
  else
    g_string_append (text, _("No rank waits for another."));
  g_string_append_c (text, ' ');
  switch (clock->method)
    {
    case KS_CLOCK_SHARED:      g_string_append (text, _("The ranks share one clock.")); break;
    case KS_CLOCK_COLLECTIVES: g_string_append (text, _("Clocks aligned by the collectives' ends.")); break;
    case KS_CLOCK_UTC:         g_string_append (text, _("Clocks aligned by the files' UTC start.")); break;
    case KS_CLOCK_ONE_RANK:
    default:                   break;
    }
  if (clock->skew_ns >= 0 && clock->method != KS_CLOCK_ONE_RANK)
    {
      g_autofree char *skew = ks_time_format_duration (clock->skew_ns);

      g_string_append_c (text, ' ');
      g_string_append_printf (text, _("Residual skew %s."), skew);
    }
}

static char *
status_text (KsRanksPage *self)
{
  guint s = ks_analysis_get_straggler (self->analysis);
  g_autoptr(GString) text = g_string_new (NULL);

  if (self->trace->n_ranks == 0)
    return g_strdup (_("The trace names no ranks: open the folder of a distributed job, or its files together."));
  append_job_text (text, s != KS_NO_INDEX ? &self->ranks[s] : NULL,
                   ks_analysis_get_clock_alignment (self->analysis));
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* Which rank is loaded, and why the others are not. */
static char *
summaries_text (KsRanksPage *self)
{
  guint s = ks_rank_summaries_get_straggler (self->summaries);
  g_autofree char *json = g_format_size (ks_rank_summaries_get_json_bytes (self->summaries));
  g_autofree char *bound = g_format_size (ks_rank_summaries_get_bound (self->summaries));
  g_autoptr(GString) text = g_string_new (NULL);

  g_string_append_printf (text,
                          _("The job's %s of JSON is over the memory bound of %s (Preferences, or KINESCOPE_FOLDER_MEMORY_MB): "
                            "its %u ranks were summarised one at a time and only the rank you activate is loaded."),
                          json, bound, self->n_ranks);
  g_string_append_c (text, ' ');
  if (self->loaded_row < self->n_ranks)
    g_string_append_printf (text, _("Loaded: rank %d (the timeline shows it)."), self->ranks[self->loaded_row].rank);
  else
    g_string_append (text, _("No rank is loaded yet."));
  g_string_append_c (text, ' ');
  append_job_text (text, s != KS_NO_INDEX ? &self->ranks[s] : NULL, ks_rank_summaries_get_clock (self->summaries));
  if (ks_rank_summaries_get_left_out (self->summaries) != NULL)
    {
      g_autoptr(GString) names = g_string_new (NULL);

      for (const char * const *left = ks_rank_summaries_get_left_out (self->summaries); *left; left++)
        {
          g_autofree char *base = g_path_get_basename (*left);

          g_string_append_printf (names, "%s%s", names->len > 0 ? ", " : "", base);
        }
      g_string_append_c (text, ' ');
      g_string_append_printf (text, _("Left out, naming no rank: %s."), names->str);
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

static void
ks_ranks_page_refill (KsPage     *page,
                      KsTrace    *trace,
                      KsAnalysis *analysis)
{
  KsRanksPage *self = KS_RANKS_PAGE (page);
  g_autofree char *text = NULL;

  ks_page_table_set_report (&self->table, NULL);
  self->trace = trace;
  self->analysis = analysis;
  self->ranks = NULL;
  self->n_ranks = 0;
  self->selected_track = KS_NO_INDEX;
  if (self->summaries != NULL)
    {
      self->ranks = ks_rank_summaries_get_rows (self->summaries, &self->n_ranks);
      text = summaries_text (self);
      ks_page_table_set_report (&self->table, ks_report_new_rank_rows (self->ranks, self->n_ranks));
    }
  else if (analysis != NULL)
    {
      self->ranks = ks_analysis_get_rank_stats (analysis, &self->n_ranks);
      text = status_text (self);
      ks_page_table_set_report (&self->table, ks_report_new_ranks (trace, analysis));
    }
  gtk_label_set_text (self->status_label, text ? text : "");
  gtk_drawing_area_set_content_height (self->bars_area, MAX (self->n_ranks, 1) * (BAR_HEIGHT + BAR_GAP));
  gtk_widget_queue_draw (GTK_WIDGET (self->bars_area));
}

/* The session's job: its summaries and the row it holds the trace of. */
static void
session_job_changed_cb (KsRanksPage *self)
{
  ks_ranks_page_set_summaries (self, ks_session_get_summaries (self->job_session),
                               ks_session_get_loaded_row (self->job_session));
}

static void
page_session_changed_cb (KsRanksPage *self)
{
  KsSession *session = ks_page_get_session (KS_PAGE (self));

  if (self->job_session == session)
    return;
  if (self->job_session != NULL)
    g_signal_handlers_disconnect_by_data (self->job_session, self);
  g_set_object (&self->job_session, session);
  if (session == NULL)
    {
      ks_ranks_page_set_summaries (self, NULL, KS_NO_INDEX);
      return;
    }
  g_signal_connect_object (session, "notify::summaries", G_CALLBACK (session_job_changed_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (session, "notify::loaded-row", G_CALLBACK (session_job_changed_cb), self,
                           G_CONNECT_SWAPPED);
  session_job_changed_cb (self);
}

static void
ks_ranks_page_dispose (GObject *object)
{
  KsRanksPage *self = (KsRanksPage *)object;

  ks_page_table_clear (&self->table);
  if (self->job_session != NULL)
    g_signal_handlers_disconnect_by_data (self->job_session, self);
  g_clear_object (&self->job_session);
  g_clear_object (&self->summaries);
  ks_page_dispose_template (GTK_WIDGET (self), KS_TYPE_RANKS_PAGE);

  G_OBJECT_CLASS (ks_ranks_page_parent_class)->dispose (object);
}

static void
ks_ranks_page_class_init (KsRanksPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_ranks_page_dispose;
  KS_PAGE_CLASS (klass)->refill = ks_ranks_page_refill;

  gtk_widget_class_set_template_from_resource (widget_class, "/org/kinescope/Kinescope/pages/ks-ranks-page.ui");
  gtk_widget_class_bind_template_child (widget_class, KsRanksPage, status_label);
  gtk_widget_class_bind_template_child (widget_class, KsRanksPage, view);
  gtk_widget_class_bind_template_child (widget_class, KsRanksPage, bars_area);
  gtk_widget_class_bind_template_callback (widget_class, activate_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
ks_ranks_page_init (KsRanksPage *self)
{
  const KsReportColumn *columns;
  guint n;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->selected_track = KS_NO_INDEX;
  self->loaded_row = KS_NO_INDEX;
  ks_page_table_init (&self->table, self->view, filter_row, self);
  columns = ks_report_rank_columns (&n);
  ks_page_table_add_report_columns (&self->table, columns, n);
  gtk_drawing_area_set_draw_func (self->bars_area, draw_bars_cb, self, NULL);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->bars_area),
                               _("Each rank's mean step: compute (blue), exposed communication (orange), waiting for other ranks (red)"));
  g_signal_connect (self, "notify::session", G_CALLBACK (page_session_changed_cb), NULL);
}

GtkWidget *
ks_ranks_page_new (void)
{
  return g_object_new (KS_TYPE_RANKS_PAGE, NULL);
}

guint32
ks_ranks_page_get_selected_track (KsRanksPage *self)
{
  g_return_val_if_fail (KS_IS_RANKS_PAGE (self), KS_NO_INDEX);
  return self->selected_track;
}

void
ks_ranks_page_set_summaries (KsRanksPage     *self,
                             KsRankSummaries *summaries,
                             guint            loaded_row)
{
  g_return_if_fail (KS_IS_RANKS_PAGE (self));
  g_return_if_fail (summaries == NULL || KS_IS_RANK_SUMMARIES (summaries));

  g_set_object (&self->summaries, summaries);
  self->loaded_row = loaded_row;
  ks_ranks_page_refill (KS_PAGE (self), self->trace, self->analysis);
}

guint
ks_ranks_page_get_loaded_row (KsRanksPage *self)
{
  g_return_val_if_fail (KS_IS_RANKS_PAGE (self), KS_NO_INDEX);
  return self->summaries != NULL ? self->loaded_row : KS_NO_INDEX;
}

const char *
ks_ranks_page_get_status (KsRanksPage *self)
{
  g_return_val_if_fail (KS_IS_RANKS_PAGE (self), NULL);
  return gtk_label_get_text (self->status_label);
}

const KsRankStats *
ks_ranks_page_get_rows (KsRanksPage *self,
                        guint       *n_rows)
{
  g_return_val_if_fail (KS_IS_RANKS_PAGE (self), NULL);
  *n_rows = self->n_ranks;
  return self->ranks;
}
