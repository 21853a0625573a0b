/* ks-compare-view.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-compare-view"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "ks-compare-view.h"
#include "ks-format.h"
#include "pages/ks-page-charts.h"
#include "pages/ks-page-table.h"

#define LABEL_W 92.0

struct _KsCompareView
{
  GtkWidget         parent_instance;

  /* What it compares: the runs' sessions, the comparison once both
   * are analysed with the same options */
  KsSession        *session;
  KsSession        *baseline;
  KsCompare        *compare;

  /* What it shows: a session for each timeline, its own zoom */
  KsSession        *sessions[KS_COMPARE_N_SIDES];
  KsTimeline       *timelines[KS_COMPARE_N_SIDES];
  GtkWidget        *box;
  GtkToggleButton  *lock_button;
  GtkSpinButton    *align_spin;
  GtkStack         *stack;
  GtkDrawingArea   *chart;
  KsPageTable       metrics;
  KsPageTable       kernels;
  KsPageTable       operators;
  KsPageTable       steps;
  GPtrArray        *columns;          /* KsReportColumn arrays retitled for totals */

  guint             align_step;
  gint64            align_at[KS_COMPARE_N_SIDES];
  gboolean          syncing;
  guint32           outlined[KS_COMPARE_N_SIDES];
};

G_DEFINE_FINAL_TYPE (KsCompareView, ks_compare_view, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_SESSION,
  PROP_BASELINE,
  PROP_COMPARE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static gboolean
show_every_row (gpointer page,
                guint    index)
{
  return TRUE;
}

/* Timelines */

static void
visible_changed_cb (KsCompareView *self,
                    KsSession     *session)
{
  guint side = session == self->sessions[KS_COMPARE_BASE] ? KS_COMPARE_BASE : KS_COMPARE_NEW;
  guint other = 1 - side;
  double t0, t1, shift;

  if (self->syncing || !gtk_toggle_button_get_active (self->lock_button))
    return;
  /* The same span from the step where they line up. */
  ks_session_get_visible (session, &t0, &t1);
  shift = (double)(self->align_at[other] - self->align_at[side]);
  self->syncing = TRUE;
  ks_session_set_visible (self->sessions[other], t0 + shift, t1 + shift);
  self->syncing = FALSE;
}

static const KsStep *
side_step (KsCompareView *self,
           guint          side,
           guint          step)
{
  guint n;
  const KsStep *steps = ks_analysis_get_steps (ks_compare_get_analysis (self->compare, side), &n);

  return step < n ? &steps[step] : NULL;
}

void
ks_compare_view_set_align_step (KsCompareView *self,
                                guint          step)
{
  const KsStep *base_step;

  g_return_if_fail (KS_IS_COMPARE_VIEW (self));
  g_return_if_fail (self->compare != NULL);

  self->align_step = step;
  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    {
      const KsStep *st = side_step (self, s, step);

      self->align_at[s] = st != NULL ? st->start : 0;
    }
  if (gtk_spin_button_get_value_as_int (self->align_spin) != (int)step + 1)
    gtk_spin_button_set_value (self->align_spin, step + 1);

  /* Show that step of the baseline; the new run follows when locked. */
  base_step = side_step (self, KS_COMPARE_BASE, step);
  if (base_step != NULL)
    ks_session_fit (self->sessions[KS_COMPARE_BASE], base_step->start, base_step->end);
  else
    ks_session_fit_all (self->sessions[KS_COMPARE_BASE]);
  if (!gtk_toggle_button_get_active (self->lock_button))
    {
      const KsStep *new_step = side_step (self, KS_COMPARE_NEW, step);

      if (new_step != NULL)
        ks_session_fit (self->sessions[KS_COMPARE_NEW], new_step->start, new_step->end);
    }
  else
    visible_changed_cb (self, self->sessions[KS_COMPARE_BASE]);
}

guint
ks_compare_view_get_align_step (KsCompareView *self)
{
  g_return_val_if_fail (KS_IS_COMPARE_VIEW (self), 0);

  return self->align_step;
}

static void
align_changed_cb (KsCompareView *self,
                  GtkSpinButton *spin)
{
  int step = gtk_spin_button_get_value_as_int (spin) - 1;

  if (step >= 0 && (guint)step != self->align_step)
    ks_compare_view_set_align_step (self, step);
}

static void
lock_toggled_cb (KsCompareView   *self,
                 GtkToggleButton *button)
{
  /* Locking again lines the new run up with the baseline's view. */
  if (gtk_toggle_button_get_active (button))
    visible_changed_cb (self, self->sessions[KS_COMPARE_BASE]);
}

gboolean
ks_compare_view_get_locked (KsCompareView *self)
{
  g_return_val_if_fail (KS_IS_COMPARE_VIEW (self), FALSE);
  g_return_val_if_fail (self->compare != NULL, FALSE);

  return gtk_toggle_button_get_active (self->lock_button);
}

void
ks_compare_view_set_locked (KsCompareView *self,
                            gboolean       locked)
{
  g_return_if_fail (KS_IS_COMPARE_VIEW (self));
  g_return_if_fail (self->compare != NULL);

  gtk_toggle_button_set_active (self->lock_button, locked);
}

/* Rows */

/* What makes a group the same in both runs: a GPU by its device, a
 * process by its name and its place among the processes of that name
 * (pids differ from run to run), anything else (an unnamed process
 * too) by its label. */
static char *
group_key (KsTrace     *trace,
           const KsRow *row,
           GHashTable  *seen)
{
  g_autofree char *name = NULL;
  guint n;

  switch (row->group_kind)
    {
    case KS_GROUP_GPU:
      return g_strdup_printf ("gpu %u", row->index);
    case KS_GROUP_PROCESS:
      /* Without a name, the label (its pid or its kind: "Spans") */
      if (row->index < trace->n_processes && trace->processes[row->index].name != 0)
        name = g_strdup_printf ("process %s", ks_trace_string (trace, trace->processes[row->index].name));
      else
        name = g_strdup_printf ("unnamed %s", row->label);
      n = GPOINTER_TO_UINT (g_hash_table_lookup (seen, name));
      g_hash_table_insert (seen, g_strdup (name), GUINT_TO_POINTER (n + 1));
      return g_strdup_printf ("%s #%u", name, n);
    case KS_GROUP_OTHER:
    default:
      return g_strdup_printf ("other %s", row->label);
    }
}

/* Both timelines lay their rows out by the same rules (GPUs by device,
 * then processes); a group only one run has is collapsed, so that the
 * rows that stay open are the same, in the same order. */
static void
match_rows (KsCompareView *self)
{
  g_autoptr(GHashTable) base_keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) new_keys = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GHashTable *keys[KS_COMPARE_N_SIDES] = { base_keys, new_keys };

  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    {
      KsTimelineLayout *layout = ks_timeline_get_layout (self->timelines[s]);
      KsTrace *trace = ks_compare_get_trace (self->compare, s);
      g_autoptr(GHashTable) seen = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

      for (guint r = 0; layout != NULL && r < ks_timeline_layout_get_n_rows (layout); r++)
        {
          const KsRow *row = ks_timeline_layout_get_row (layout, r);

          if (row->kind == KS_ROW_GROUP)
            g_hash_table_insert (keys[s], group_key (trace, row, seen), GUINT_TO_POINTER (r + 1));
        }
    }
  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    {
      KsTimelineLayout *layout = ks_timeline_get_layout (self->timelines[s]);
      GHashTableIter iter;
      gpointer key, value;

      g_hash_table_iter_init (&iter, keys[s]);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          guint r = GPOINTER_TO_UINT (value) - 1;

          if (!g_hash_table_contains (keys[1 - s], key) && ks_timeline_layout_get_row (layout, r)->expanded)
            ks_timeline_toggle_group (self->timelines[s], r);
        }
    }
}

/* Outlines */

/* Each side's timeline outlines the item's name: its session's highlight. */
static void
outline (KsCompareView       *self,
         const KsCompareItem *item)
{
  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    {
      KsTrace *trace = ks_compare_get_trace (self->compare, s);
      guint32 name = item != NULL ? item->name_id[s] : 0;

      self->outlined[s] = 0;
      if (item == NULL || item->index[s] == KS_COMPARE_ABSENT || name >= trace->n_strings)
        {
          ks_session_set_highlight (self->sessions[s], KS_NO_INDEX);
          continue;
        }
      self->outlined[s] = name;
      ks_session_set_highlight (self->sessions[s], name);
    }
}

static const KsCompareItem *
selected_item (KsPageTable *table)
{
  guint position = gtk_single_selection_get_selected (table->selection);
  guint index;

  if (position == GTK_INVALID_LIST_POSITION || table->report == NULL)
    return NULL;
  index = ks_page_table_get_index_at (table, position);
  if (index >= table->report->n_rows)
    return NULL;
  return &((const KsCompareItem *)table->report->rows)[index];
}

static void
kernel_selected_cb (KsCompareView *self)
{
  outline (self, selected_item (&self->kernels));
}

static void
operator_selected_cb (KsCompareView *self)
{
  outline (self, selected_item (&self->operators));
}

/* Enter or a double click: show the baseline's longest call (the new
 * run's for an added kernel); the other timeline follows when locked. */
static void
kernel_activate_cb (KsCompareView *self,
                    guint          position,
                    GtkColumnView *view)
{
  const KsCompareItem *item;

  gtk_single_selection_set_selected (self->kernels.selection, position);
  item = selected_item (&self->kernels);
  if (item == NULL)
    return;
  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    if (item->index[s] != KS_COMPARE_ABSENT)
      {
        KsTrace *trace = ks_compare_get_trace (self->compare, s);
        guint n;
        const KsKernelStats *k = &ks_analysis_get_kernels (ks_compare_get_analysis (self->compare, s), &n)[item->index[s]];
        const KsTrack *track = &trace->tracks[k->longest_track];

        ks_session_fit (self->sessions[s], track->start[k->longest_slice], track->end[k->longest_slice]);
        break;
      }
}

guint32
ks_compare_view_get_outlined (KsCompareView *self,
                              KsCompareSide  side)
{
  g_return_val_if_fail (KS_IS_COMPARE_VIEW (self), 0);

  return self->outlined[side];
}

static void
shape_toggled_cb (KsCompareView  *self,
                  GtkCheckButton *button)
{
  outline (self, NULL);
  ks_page_table_set_report (&self->operators,
                            ks_compare_report_operators (self->compare, gtk_check_button_get_active (button)));
}

/* The paired step bars: step i of the baseline above step i of the new
 * run, one scale for all, split into the breakdown's parts. */
static void
draw_steps_cb (GtkDrawingArea *area,
               cairo_t        *cr,
               int             width,
               int             height,
               gpointer        user_data)
{
  KsCompareView *self = user_data;
  guint n[KS_COMPARE_N_SIDES];
  const KsStep *steps[KS_COMPARE_N_SIDES];
  g_autoptr(GArray) pairs = g_array_new (FALSE, TRUE, sizeof (KsStep));
  PangoLayout *layout = gtk_widget_create_pango_layout (GTK_WIDGET (area), NULL);
  GdkRGBA fg;
  double bar_h;

  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    steps[s] = ks_analysis_get_steps (ks_compare_get_analysis (self->compare, s), &n[s]);
  for (guint i = 0; i < MAX (n[0], n[1]); i++)
    for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
      {
        KsStep step = { 0 };

        if (i < n[s])
          step = steps[s][i];
        g_array_append_val (pairs, step);
      }
  if (pairs->len == 0)
    {
      g_object_unref (layout);
      return;
    }

  gtk_style_context_get_color (gtk_widget_get_style_context (GTK_WIDGET (area)), &fg);
  bar_h = MIN (18.0, (double)height / pairs->len);
  gdk_cairo_set_source_rgba (cr, &fg);
  for (guint i = 0; i < pairs->len; i++)
    {
      g_autofree char *label = NULL;
      int lw, lh;

      if (i % 2 == 0)
        label = g_strdup_printf (_("%u baseline"), i / 2 + 1);
      else
        label = g_strdup (_("new"));
      pango_layout_set_text (layout, label, -1);
      pango_layout_get_pixel_size (layout, &lw, &lh);
      cairo_move_to (cr, LABEL_W - 6 - lw, i * bar_h + (bar_h - lh) / 2);
      pango_cairo_show_layout (cr, layout);
    }
  g_object_unref (layout);
  cairo_translate (cr, LABEL_W, 0);
  ks_chart_draw_steps (cr, MAX (width - LABEL_W, 1), height, &fg,
                       (const KsStep *)(gpointer)pairs->data, pairs->len);
}

static char *
legend_markup (void)
{
  GString *s = g_string_new (NULL);

  for (guint k = 0; k < KS_N_STEP_PARTS; k++)
    {
      g_autofree char *title = g_markup_escape_text (ks_step_part_get_title (k), -1);

      g_string_append_printf (s, "%s<span foreground=\"%s\">■</span> %s", k ? "  " : "",
                              ks_chart_step_part_hex (k), title);
    }
  return g_string_free (s, FALSE);
}

/* Building */

/* A table of @report's page columns (takes @report). */
/* The per-step columns of the Kernels and Operators tables hold totals
 * over each window when a trace has no steps: their titles say so. */
static const struct
{
  const char *key;
  const char *title;
} total_titles[] = {
  { "base_calls_per_step", N_("Calls in total, baseline") },
  { "new_calls_per_step", N_("Calls in total, new") },
  { "base_per_step_ns", N_("Time in total, baseline") },
  { "new_per_step_ns", N_("Time in total, new") },
  { "base_device_per_step_ns", N_("Device total, baseline") },
  { "new_device_per_step_ns", N_("Device total, new") },
  { "base_host_self_per_step_ns", N_("Host self in total, baseline") },
  { "new_host_self_per_step_ns", N_("Host self in total, new") },
};

static const KsReportColumn *
columns_for (KsCompareView  *self,
             const KsReport *report)
{
  KsReportColumn *copy;

  if (ks_compare_get_per_step (self->compare))
    return report->columns;
  copy = g_memdup2 (report->columns, report->n_columns * sizeof (KsReportColumn));
  for (guint c = 0; c < report->n_columns; c++)
    for (guint t = 0; t < G_N_ELEMENTS (total_titles); t++)
      if (g_strcmp0 (copy[c].key, total_titles[t].key) == 0)
        {
          copy[c].title = total_titles[t].title;
          copy[c].abbrev = NULL;
        }
  g_ptr_array_add (self->columns, copy);
  return copy;
}

static GtkWidget *
table_new (KsCompareView *self,
           KsPageTable   *table,
           KsReport      *report,
           const char    *name)
{
  GtkWidget *view = gtk_column_view_new (NULL);
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  GtkColumnViewColumn *first;

  gtk_widget_set_name (view, name);
  gtk_column_view_set_show_column_separators (GTK_COLUMN_VIEW (view), FALSE);
  ks_page_table_init (table, GTK_COLUMN_VIEW (view), show_every_row, self);
  ks_page_table_add_report_columns (table, columns_for (self, report), report->n_columns);
  ks_page_table_set_report (table, report);
  first = g_list_model_get_item (gtk_column_view_get_columns (GTK_COLUMN_VIEW (view)), 0);
  if (first != NULL)
    {
      gtk_column_view_column_set_fixed_width (first, 240);
      g_object_unref (first);
    }
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), view);
  gtk_widget_set_vexpand (scrolled, TRUE);
  return scrolled;
}

static GtkWidget *
timeline_pane (KsCompareView *self,
               guint          side)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *label;
  GtkWidget *scrolled = gtk_scrolled_window_new ();
  KsTrace *trace = ks_compare_get_trace (self->compare, side);
  g_autofree char *base = g_path_get_basename (ks_compare_get_file (self->compare, side));
  g_autofree char *text = g_strdup_printf (side == KS_COMPARE_BASE ? _("Baseline: %s") : _("New: %s"), base);

  label = gtk_label_new (text);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_MIDDLE);
  gtk_widget_set_tooltip_text (label, ks_compare_get_file (self->compare, side));
  gtk_widget_add_css_class (label, "heading");
  gtk_widget_set_margin_start (label, 6);
  gtk_widget_set_margin_top (label, 3);
  gtk_widget_set_margin_bottom (label, 3);
  gtk_box_append (GTK_BOX (box), label);

  self->sessions[side] = ks_session_new (trace);
  ks_session_set_analysis_options (self->sessions[side],
                                   ks_analysis_get_options (ks_compare_get_analysis (self->compare, side)));
  self->timelines[side] = KS_TIMELINE (ks_timeline_new ());
  gtk_widget_set_name (GTK_WIDGET (self->timelines[side]), side == KS_COMPARE_BASE ? "compare-base" : "compare-new");
  ks_timeline_set_session (self->timelines[side], self->sessions[side]);
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (scrolled), GTK_POLICY_NEVER, GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), GTK_WIDGET (self->timelines[side]));
  gtk_widget_set_vexpand (scrolled, TRUE);
  gtk_box_append (GTK_BOX (box), scrolled);
  gtk_widget_set_vexpand (box, TRUE);
  g_signal_connect_object (self->sessions[side], "visible-changed", G_CALLBACK (visible_changed_cb), self,
                           G_CONNECT_SWAPPED);
  return box;
}

/* Whether the figures are per step, and where the steps came from when
 * a trace marks none. */
static char *
banner_text (KsCompareView *self)
{
  const char *rule = NULL;

  if (!ks_compare_get_per_step (self->compare))
    return g_strdup (_("No steps in one of the traces: times and counts are totals over each window."));
  for (guint s = 0; s < KS_COMPARE_N_SIDES && rule == NULL; s++)
    rule = ks_analysis_get_step_rule (ks_compare_get_analysis (self->compare, s), NULL);
  if (rule != NULL)
    /* TRANSLATORS: %s is how the steps were found, as "the DataLoader's batches" */
    return g_strdup_printf (_("Times and counts are per step: the steps are inferred from %s, as the "
                              "traces mark none."), rule);
  return g_strdup (_("Times and counts are per step."));
}

static GtkWidget *
toolbar_new (KsCompareView *self)
{
  GtkWidget *bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  GtkWidget *label;
  GtkWidget *close;
  guint n0 = ks_compare_get_steps (self->compare, KS_COMPARE_BASE)->n_steps;
  guint n1 = ks_compare_get_steps (self->compare, KS_COMPARE_NEW)->n_steps;
  guint n_common = MIN (n0, n1);

  gtk_widget_set_margin_start (bar, 6);
  gtk_widget_set_margin_end (bar, 6);
  gtk_widget_set_margin_top (bar, 6);
  gtk_widget_set_margin_bottom (bar, 6);

  label = gtk_label_new (NULL);
  {
    g_autofree char *banner = banner_text (self);

    gtk_label_set_text (GTK_LABEL (label), banner);
    gtk_widget_set_tooltip_text (label, banner);
  }
  gtk_widget_set_name (label, "compare-banner");
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_set_hexpand (label, TRUE);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_widget_add_css_class (label, "dim-label");
  gtk_box_append (GTK_BOX (bar), label);

  label = gtk_label_new_with_mnemonic (_("_Align at step"));
  gtk_box_append (GTK_BOX (bar), label);
  self->align_spin = GTK_SPIN_BUTTON (gtk_spin_button_new_with_range (1, MAX (n_common, 1), 1));
  gtk_widget_set_name (GTK_WIDGET (self->align_spin), "compare-align");
  gtk_widget_set_sensitive (GTK_WIDGET (self->align_spin), n_common > 1);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->align_spin),
                               _("The step of both runs that the timelines line up at"));
  gtk_label_set_mnemonic_widget (GTK_LABEL (label), GTK_WIDGET (self->align_spin));
  g_signal_connect_object (self->align_spin, "value-changed", G_CALLBACK (align_changed_cb), self,
                           G_CONNECT_SWAPPED);
  gtk_box_append (GTK_BOX (bar), GTK_WIDGET (self->align_spin));

  self->lock_button = GTK_TOGGLE_BUTTON (gtk_toggle_button_new_with_mnemonic (_("_Lock Zoom")));
  gtk_widget_set_name (GTK_WIDGET (self->lock_button), "compare-lock");
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->lock_button), _("Zoom and pan both timelines together"));
  gtk_toggle_button_set_active (self->lock_button, TRUE);
  g_signal_connect_object (self->lock_button, "toggled", G_CALLBACK (lock_toggled_cb), self, G_CONNECT_SWAPPED);
  gtk_box_append (GTK_BOX (bar), GTK_WIDGET (self->lock_button));

  close = gtk_button_new_with_mnemonic (_("_Close Comparison"));
  gtk_actionable_set_action_name (GTK_ACTIONABLE (close), "win.close-compare");
  gtk_box_append (GTK_BOX (bar), close);
  return bar;
}

/* The advice that appeared (@added) or went away: "+ title: evidence". */
static void
advice_add (KsCompareView *self,
            GtkBox        *box,
            gboolean       added)
{
  guint side = added ? KS_COMPARE_NEW : KS_COMPARE_BASE;
  guint n_all, n;
  const KsAdvice *all = ks_analysis_get_advice (ks_compare_get_analysis (self->compare, side), &n_all);
  const guint *rows = ks_compare_get_advice (self->compare, added, &n);
  GtkWidget *title = gtk_label_new (added ? _("Advice added") : _("Advice removed"));

  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_widget_add_css_class (title, "heading");
  gtk_widget_set_margin_top (title, 6);
  gtk_box_append (box, title);
  if (n == 0)
    {
      GtkWidget *none = gtk_label_new (_("none"));

      gtk_label_set_xalign (GTK_LABEL (none), 0);
      gtk_widget_add_css_class (none, "dim-label");
      gtk_box_append (box, none);
    }
  for (guint i = 0; i < n; i++)
    {
      const KsAdvice *a = &all[rows[i]];
      g_autofree char *text = g_strdup_printf ("%s %s: %s", added ? "+" : "−", a->title, a->evidence);
      GtkWidget *label = gtk_label_new (text);

      gtk_label_set_xalign (GTK_LABEL (label), 0);
      gtk_label_set_wrap (GTK_LABEL (label), TRUE);
      gtk_widget_set_tooltip_text (label, a->text);
      gtk_box_append (box, label);
    }
}

/* The first position of @paned: @permille of its length, once it has
 * one, whatever the window's size (a fixed 460 px for the timelines left
 * the tables under the handle at 800×600); the user's moves are kept. */
static void
split_cb (GtkPaned   *paned,
          GParamSpec *pspec,
          gpointer    permille)
{
  int max_position;

  g_object_get (paned, "max-position", &max_position, NULL);
  if (max_position <= 0)
    return;
  gtk_paned_set_position (paned, max_position * GPOINTER_TO_INT (permille) / 1000);
  g_signal_handlers_disconnect_by_func (paned, split_cb, permille);
}

static void
split_at (GtkWidget *paned,
          int        permille)
{
  g_signal_connect (paned, "notify::max-position", G_CALLBACK (split_cb), GINT_TO_POINTER (permille));
}

/* The length of what each side's figures cover: its counted steps, or
 * without steps its GPUs' window (first to last activity), or the whole
 * trace when it has no GPU work. */
static gint64
side_window_ns (KsCompareView *self,
                guint          side)
{
  KsAnalysis *analysis = ks_compare_get_analysis (self->compare, side);
  guint n;
  const KsGpuSummary *gpus;
  gint64 window = 0;

  if (ks_compare_get_per_step (self->compare))
    {
      const KsStep *steps = ks_analysis_get_steps (analysis, &n);

      for (guint i = 0; i < n; i++)
        if (ks_analysis_step_counts (analysis, &steps[i]))
          window += steps[i].end - steps[i].start;
      return window;
    }
  gpus = ks_analysis_get_gpus (analysis, &n);
  for (guint i = 0; i < n; i++)
    window = MAX (window, gpus[i].window_ns);
  return n > 0 ? window : ks_compare_get_trace (self->compare, side)->duration_ns;
}

/* Above the figures, what they cover: how long each window is and how
 * many steps it holds, so that "how much faster" can be read. */
static GtkWidget *
windows_label_new (KsCompareView *self)
{
  gint64 w[KS_COMPARE_N_SIDES];
  double change;
  const char *sign;
  g_autofree char *base = NULL;
  g_autofree char *new = NULL;
  g_autofree char *text = NULL;
  GtkWidget *label;

  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    w[s] = side_window_ns (self, s);
  base = ks_time_format_duration (w[KS_COMPARE_BASE]);
  new = ks_time_format_duration (w[KS_COMPARE_NEW]);
  change = w[KS_COMPARE_BASE] > 0 ? 100.0 * (w[KS_COMPARE_NEW] - w[KS_COMPARE_BASE]) / w[KS_COMPARE_BASE] : 0.0;
  sign = change > 0 ? "+" : change < 0 ? "−" : "";
  if (ks_compare_get_per_step (self->compare))
    {
      guint n0 = ks_compare_get_steps (self->compare, KS_COMPARE_BASE)->n_steps;
      guint n1 = ks_compare_get_steps (self->compare, KS_COMPARE_NEW)->n_steps;

      /* TRANSLATORS: "Steps: 14.5 ms in 4 on the baseline, 11.6 ms in 4 on the new run (−20.2 %)" */
      text = g_strdup_printf (_("Steps: %s in %u on the baseline, %s in %u on the new run (%s%.1f %%)"),
                              base, n0, new, n1, sign, fabs (change));
    }
  else
    /* TRANSLATORS: "Window: 24.3 ms on the baseline, 23.3 ms on the new run (−4.1 %)" */
    text = g_strdup_printf (_("Window: %s on the baseline, %s on the new run (%s%.1f %%)"), base, new,
                            sign, fabs (change));
  label = gtk_label_new (text);
  gtk_widget_set_name (label, "compare-windows");
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_widget_add_css_class (label, "heading");
  gtk_widget_set_margin_start (label, 6);
  gtk_widget_set_margin_top (label, 6);
  gtk_widget_set_margin_bottom (label, 6);
  gtk_widget_set_tooltip_text (label, ks_compare_get_per_step (self->compare)
                                        ? _("The steps the figures count, the warm-up left out unless included: their total length and number")
                                        : _("Each trace's window, from its first to its last GPU activity: the totals below are over it"));
  return label;
}

static gboolean
has_steps (KsCompareView *self,
           guint          side)
{
  guint n;

  ks_analysis_get_steps (ks_compare_get_analysis (self->compare, side), &n);
  return n > 0;
}

/* The Steps tab: the pairs of steps, and why one side has none. */
static GtkWidget *
steps_page_new (KsCompareView *self,
                KsReport      *steps)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *label = gtk_label_new (NULL);

  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    if (!has_steps (self, s))
      {
        g_autofree char *file = g_path_get_basename (ks_compare_get_file (self->compare, s));
        /* TRANSLATORS: %s is a file name */
        g_autofree char *text = g_strdup_printf (_("No steps to pair with: %s marks no steps (no ProfilerStep#N, no NVTX "
                                                   "range named like a step) and repeats no structure that they "
                                                   "could be inferred from."), file);

        gtk_label_set_text (GTK_LABEL (label), text);
        break;
      }
  gtk_widget_set_name (label, "compare-steps-empty");
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_widget_set_margin_start (label, 12);
  gtk_widget_set_margin_end (label, 12);
  gtk_widget_set_margin_top (label, 12);
  gtk_widget_set_visible (label, !has_steps (self, KS_COMPARE_BASE) || !has_steps (self, KS_COMPARE_NEW));
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), table_new (self, &self->steps, steps, "compare-steps"));
  return box;
}

static GtkWidget *
summary_page_new (KsCompareView *self)
{
  g_autoptr(KsReport) metrics = ks_compare_report_metrics (self->compare);
  GtkWidget *paned = gtk_paned_new (GTK_ORIENTATION_HORIZONTAL);
  GtkWidget *figures = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *charts = gtk_box_new (GTK_ORIENTATION_VERTICAL, 6);
  GtkWidget *title = gtk_label_new (_("Step time and its breakdown, step by step"));
  GtkWidget *legend = gtk_label_new (NULL);
  g_autofree char *markup = legend_markup ();
  GtkWidget *scrolled = gtk_scrolled_window_new ();

  gtk_box_append (GTK_BOX (figures), windows_label_new (self));
  gtk_box_append (GTK_BOX (figures), table_new (self, &self->metrics, g_steal_pointer (&metrics), "compare-summary"));
  gtk_paned_set_start_child (GTK_PANED (paned), figures);
  split_at (paned, 600);

  gtk_label_set_xalign (GTK_LABEL (title), 0);
  gtk_widget_add_css_class (title, "heading");
  gtk_box_append (GTK_BOX (charts), title);
  self->chart = GTK_DRAWING_AREA (gtk_drawing_area_new ());
  gtk_widget_set_name (GTK_WIDGET (self->chart), "compare-steps-chart");
  gtk_drawing_area_set_content_height (self->chart, 18 * 2 * MAX (ks_compare_get_steps (self->compare, 0)->n_steps,
                                                                  ks_compare_get_steps (self->compare, 1)->n_steps));
  gtk_drawing_area_set_draw_func (self->chart, draw_steps_cb, self, NULL);
  gtk_widget_set_hexpand (GTK_WIDGET (self->chart), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (scrolled), GTK_WIDGET (self->chart));
  gtk_widget_set_vexpand (scrolled, TRUE);
  gtk_box_append (GTK_BOX (charts), scrolled);
  gtk_label_set_markup (GTK_LABEL (legend), markup);
  gtk_label_set_wrap (GTK_LABEL (legend), TRUE);
  gtk_label_set_xalign (GTK_LABEL (legend), 0);
  gtk_box_append (GTK_BOX (charts), legend);
  advice_add (self, GTK_BOX (charts), TRUE);
  advice_add (self, GTK_BOX (charts), FALSE);
  gtk_widget_set_margin_start (charts, 12);
  gtk_widget_set_margin_end (charts, 12);
  gtk_paned_set_end_child (GTK_PANED (paned), charts);
  return paned;
}

static void
ks_compare_view_build (KsCompareView *self)
{
  GtkWidget *paned = gtk_paned_new (GTK_ORIENTATION_VERTICAL);
  GtkWidget *timelines = gtk_paned_new (GTK_ORIENTATION_VERTICAL);
  GtkWidget *lower = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  GtkWidget *switcher = gtk_stack_switcher_new ();
  GtkWidget *operators = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  g_autoptr(KsReport) kernels = ks_compare_report_kernels (self->compare);
  g_autoptr(KsReport) ops = ks_compare_report_operators (self->compare, FALSE);
  g_autoptr(KsReport) steps = ks_compare_report_steps (self->compare);
  GtkWidget *by_shape = gtk_check_button_new_with_mnemonic (_("Group by input _shapes"));

  self->box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 0);
  gtk_widget_set_parent (self->box, GTK_WIDGET (self));
  gtk_box_append (GTK_BOX (self->box), toolbar_new (self));

  gtk_paned_set_start_child (GTK_PANED (timelines), timeline_pane (self, KS_COMPARE_BASE));
  gtk_paned_set_end_child (GTK_PANED (timelines), timeline_pane (self, KS_COMPARE_NEW));
  split_at (timelines, 500);
  gtk_paned_set_start_child (GTK_PANED (paned), timelines);
  /* the timelines a little over half the height, the tables the rest */
  split_at (paned, 550);
  gtk_widget_set_vexpand (paned, TRUE);

  self->stack = GTK_STACK (gtk_stack_new ());
  gtk_stack_add_titled (self->stack, summary_page_new (self), "summary", _("Summary"));
  gtk_stack_add_titled (self->stack, table_new (self, &self->kernels, g_steal_pointer (&kernels),
                                                "compare-kernels"), "kernels", _("Kernels"));
  gtk_widget_set_name (by_shape, "compare-by-shape");
  gtk_widget_set_margin_start (by_shape, 6);
  g_signal_connect_object (by_shape, "toggled", G_CALLBACK (shape_toggled_cb), self, G_CONNECT_SWAPPED);
  gtk_box_append (GTK_BOX (operators), by_shape);
  gtk_box_append (GTK_BOX (operators), table_new (self, &self->operators, g_steal_pointer (&ops),
                                                  "compare-operators"));
  gtk_stack_add_titled (self->stack, operators, "operators", _("Operators"));
  gtk_stack_add_titled (self->stack, steps_page_new (self, g_steal_pointer (&steps)), "steps", _("Steps"));
  gtk_stack_switcher_set_stack (GTK_STACK_SWITCHER (switcher), self->stack);
  gtk_widget_set_halign (switcher, GTK_ALIGN_CENTER);
  gtk_widget_set_margin_top (switcher, 6);
  gtk_widget_set_margin_bottom (switcher, 6);
  gtk_box_append (GTK_BOX (lower), switcher);
  gtk_box_append (GTK_BOX (lower), GTK_WIDGET (self->stack));
  gtk_paned_set_end_child (GTK_PANED (paned), lower);
  gtk_box_append (GTK_BOX (self->box), paned);

  g_signal_connect_object (self->kernels.selection, "notify::selected", G_CALLBACK (kernel_selected_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->kernels.view, "activate", G_CALLBACK (kernel_activate_cb), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (self->operators.selection, "notify::selected", G_CALLBACK (operator_selected_cb), self,
                           G_CONNECT_SWAPPED);
}

/* Lets go of the comparison and of everything built for it. */
static void
teardown (KsCompareView *self)
{
  ks_page_table_clear (&self->metrics);
  ks_page_table_clear (&self->kernels);
  ks_page_table_clear (&self->operators);
  ks_page_table_clear (&self->steps);
  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    {
      if (self->sessions[s] != NULL)
        g_signal_handlers_disconnect_by_data (self->sessions[s], self);
      /* a timeline may outlive the box: it lets go of its session now */
      if (self->timelines[s] != NULL)
        ks_timeline_set_session (self->timelines[s], NULL);
    }
  g_clear_pointer (&self->box, gtk_widget_unparent);
  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    {
      self->timelines[s] = NULL;
      g_clear_object (&self->sessions[s]);
      self->outlined[s] = 0;
    }
  g_clear_object (&self->compare);
  self->align_step = 0;
}

/* A file's path, else its URI, as the comparison names the runs. */
static char *
file_name (GFile *file)
{
  const char *path = file != NULL ? g_file_peek_path (file) : NULL;

  if (path != NULL)
    return g_strdup (path);
  return file != NULL ? g_file_get_uri (file) : g_strdup ("");
}

/* Both runs analysed with the same options: their comparison, built
 * again when either has a new analysis (the options changed) and kept
 * while one is being computed. */
static void
sources_changed_cb (KsCompareView *self)
{
  KsSession *sources[KS_COMPARE_N_SIDES] = { self->baseline, self->session };
  KsAnalysis *analyses[KS_COMPARE_N_SIDES];
  g_autofree char *base = NULL;
  g_autofree char *other = NULL;

  if (self->session == NULL || self->baseline == NULL)
    {
      if (self->compare == NULL)
        return;
      teardown (self);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COMPARE]);
      return;
    }
  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    {
      analyses[s] = ks_session_get_analysis (sources[s]);
      if (ks_session_get_trace (sources[s]) == NULL || analyses[s] == NULL)
        return;
    }
  if (!ks_analysis_options_equal (ks_analysis_get_options (analyses[KS_COMPARE_BASE]),
                                  ks_analysis_get_options (analyses[KS_COMPARE_NEW])))
    return;
  if (self->compare != NULL &&
      ks_compare_get_analysis (self->compare, KS_COMPARE_BASE) == analyses[KS_COMPARE_BASE] &&
      ks_compare_get_analysis (self->compare, KS_COMPARE_NEW) == analyses[KS_COMPARE_NEW])
    return;

  base = file_name (ks_session_get_file (self->baseline));
  other = file_name (ks_session_get_file (self->session));
  teardown (self);
  self->compare = ks_compare_new (ks_session_get_trace (self->baseline), analyses[KS_COMPARE_BASE], base,
                                  ks_session_get_trace (self->session), analyses[KS_COMPARE_NEW], other);
  ks_compare_view_build (self);
  match_rows (self);
  ks_compare_view_set_align_step (self, 0);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_COMPARE]);
}

static void
set_source (KsCompareView  *self,
            KsSession     **slot,
            KsSession      *session,
            guint           prop_id)
{
  if (*slot == session)
    return;
  if (*slot != NULL)
    g_signal_handlers_disconnect_by_data (*slot, self);
  g_set_object (slot, session);
  if (session != NULL)
    g_signal_connect_object (session, "notify::analysis", G_CALLBACK (sources_changed_cb), self,
                             G_CONNECT_SWAPPED);
  sources_changed_cb (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[prop_id]);
}

static void
ks_compare_view_dispose (GObject *object)
{
  KsCompareView *self = KS_COMPARE_VIEW (object);

  for (guint s = 0; s < KS_COMPARE_N_SIDES; s++)
    {
      KsSession *source = s == KS_COMPARE_BASE ? self->baseline : self->session;

      if (source != NULL)
        g_signal_handlers_disconnect_by_data (source, self);
    }
  g_clear_object (&self->session);
  g_clear_object (&self->baseline);
  teardown (self);

  G_OBJECT_CLASS (ks_compare_view_parent_class)->dispose (object);
}

static void
ks_compare_view_finalize (GObject *object)
{
  KsCompareView *self = KS_COMPARE_VIEW (object);

  g_clear_pointer (&self->columns, g_ptr_array_unref);

  G_OBJECT_CLASS (ks_compare_view_parent_class)->finalize (object);
}

static void
ks_compare_view_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  KsCompareView *self = KS_COMPARE_VIEW (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      g_value_set_object (value, self->session);
      break;
    case PROP_BASELINE:
      g_value_set_object (value, self->baseline);
      break;
    case PROP_COMPARE:
      g_value_set_object (value, self->compare);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_compare_view_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  KsCompareView *self = KS_COMPARE_VIEW (object);

  switch (prop_id)
    {
    case PROP_SESSION:
      set_source (self, &self->session, g_value_get_object (value), prop_id);
      break;
    case PROP_BASELINE:
      set_source (self, &self->baseline, g_value_get_object (value), prop_id);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_compare_view_class_init (KsCompareViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_compare_view_dispose;
  object_class->finalize = ks_compare_view_finalize;
  object_class->get_property = ks_compare_view_get_property;
  object_class->set_property = ks_compare_view_set_property;

  properties[PROP_SESSION] =
    g_param_spec_object ("session", NULL, NULL, KS_TYPE_SESSION,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_BASELINE] =
    g_param_spec_object ("baseline", NULL, NULL, KS_TYPE_SESSION,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_COMPARE] =
    g_param_spec_object ("compare", NULL, NULL, KS_TYPE_COMPARE,
                         G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "ks-compare-view");
}

static void
ks_compare_view_init (KsCompareView *self)
{
  self->columns = g_ptr_array_new_with_free_func (g_free);
}

GtkWidget *
ks_compare_view_new (void)
{
  return g_object_new (KS_TYPE_COMPARE_VIEW, NULL);
}

KsCompare *
ks_compare_view_get_compare (KsCompareView *self)
{
  g_return_val_if_fail (KS_IS_COMPARE_VIEW (self), NULL);

  return self->compare;
}

KsSession *
ks_compare_view_get_session (KsCompareView *self,
                             KsCompareSide  side)
{
  g_return_val_if_fail (KS_IS_COMPARE_VIEW (self), NULL);

  return self->sessions[side];
}

KsTimeline *
ks_compare_view_get_timeline (KsCompareView *self,
                              KsCompareSide  side)
{
  g_return_val_if_fail (KS_IS_COMPARE_VIEW (self), NULL);

  return self->timelines[side];
}

void
ks_compare_view_show_page (KsCompareView *self,
                           const char    *name)
{
  g_return_if_fail (KS_IS_COMPARE_VIEW (self));
  g_return_if_fail (self->compare != NULL);

  gtk_stack_set_visible_child_name (self->stack, name);
}
