/* ks-selection-page.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-selection-page"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <string.h>
#include <inttypes.h>
#include <yajl/yajl_tree.h>

#include "ks-format.h"
#include "ks-json-writer.h"
#include "ks-occupancy.h"
#include "ks-range-stats.h"
#include "ks-sample-stack.h"
#include "ks-selection-page-private.h"

#define TOP_N 10

struct _KsSelectionPage
{
  GtkWidget         parent_instance;

  GtkStack         *stack;
  GtkBox           *box;

  KsSession        *session;
  KsAnalysis       *analysis;
  KsTimelineLayout *layout;
  GCancellable     *range_cancellable;
  KsRangeStats     *range_stats;
  gboolean          busy;
  gboolean          range_first;

  GHashTable       *values;    /* "group\037title" -> value */
  GtkWidget        *group;     /* group being filled */
  char             *group_title;
};

G_DEFINE_FINAL_TYPE (KsSelectionPage, ks_selection_page, GTK_TYPE_WIDGET)

static void rebuild (KsSelectionPage *self);

static GtkWidget *
begin_group (KsSelectionPage *self,
             const char      *title)
{
  GtkWidget *group = adw_preferences_group_new ();

  adw_preferences_group_set_title (ADW_PREFERENCES_GROUP (group), title);
  gtk_box_append (self->box, group);
  self->group = group;
  g_free (self->group_title);
  self->group_title = g_strdup (title);
  return group;
}

/* An identifier to wrap: a zero-width space after each "_", "::", "<"
 * and "," gives Pango places to break a kernel or operator name where it
 * reads apart, instead of anywhere with a hyphen. For display only: the
 * heading is not selectable, the Name row below holds the real text. */
static char *
identifier_break_points (const char *name)
{
  GString *out = g_string_sized_new (strlen (name) + 16);

  for (const char *p = name; *p; p++)
    {
      if (p[0] == ':' && p[1] == ':')
        g_string_append_c (out, *p++);
      g_string_append_c (out, *p);
      if (*p == '_' || *p == '<' || *p == ',' || (*p == ':' && p > name && p[-1] == ':'))
        g_string_append (out, "\u200b");
    }
  return g_string_free (out, FALSE);
}

static GtkWidget *
add_row (KsSelectionPage *self,
         const char      *title,
         const char      *value)
{
  /* what a row shows is cut (a name of megabytes would keep Pango busy
   * for minutes); the lookup table keeps the whole value */
  g_autofree char *shown_title = ks_format_dup_cut_text (title, KS_TEXT_MAX_CHARS, TRUE);
  g_autofree char *shown = ks_format_dup_cut_text (value, KS_TEXT_MAX_CHARS, TRUE);
  GtkWidget *row = adw_action_row_new ();
  GtkWidget *label = gtk_label_new (shown);
  PangoAttrList *attrs = pango_attr_list_new ();
  int len = (int)g_utf8_strlen (shown, -1);

  adw_preferences_row_set_use_markup (ADW_PREFERENCES_ROW (row), FALSE);
  adw_preferences_row_set_title (ADW_PREFERENCES_ROW (row), shown_title);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  /* Short values never wrap (width-chars counts average characters, so
   * a wide 15-letter name would still break); long ones (kernel names)
   * wrap at 22 chars, without the hyphens Pango would insert, which
   * would read as part of an identifier. */
  gtk_label_set_wrap (GTK_LABEL (label), len > 22);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  pango_attr_list_insert (attrs, pango_attr_insert_hyphens_new (FALSE));
  gtk_label_set_attributes (GTK_LABEL (label), attrs);
  pango_attr_list_unref (attrs);
  gtk_label_set_xalign (GTK_LABEL (label), 1.0);
  gtk_label_set_justify (GTK_LABEL (label), GTK_JUSTIFY_RIGHT);
  gtk_label_set_width_chars (GTK_LABEL (label), MIN (22, len));
  gtk_label_set_max_width_chars (GTK_LABEL (label), 30);
  gtk_widget_add_css_class (label, "dim-label");
  gtk_widget_add_css_class (label, "numeric");
  adw_action_row_add_suffix (ADW_ACTION_ROW (row), label);
  adw_preferences_group_add (ADW_PREFERENCES_GROUP (self->group), row);

  g_hash_table_insert (self->values,
                       g_strdup_printf ("%s\037%s", self->group_title, title),
                       g_strdup (value));
  return row;
}

static void
add_row_take (KsSelectionPage *self,
              const char      *title,
              char            *value)
{
  add_row (self, title, value);
  g_free (value);
}

static char *
format_bytes (guint64 bytes)
{
  g_autofree char *size = ks_format_bytes (bytes);

  return g_strdup_printf (_("%s (%" PRIu64 " bytes)"), size, bytes);
}

static char *
track_description (KsSelectionPage *self,
                   guint32          track)
{
  guint r = ks_timeline_layout_find_track_row (self->layout, track);
  const KsRow *row, *group;

  if (r == KS_NO_INDEX)
    return g_strdup ("");
  row = ks_timeline_layout_get_row (self->layout, r);
  group = ks_timeline_layout_get_row (self->layout, row->group);
  return g_strdup_printf ("%s · %s", row->label, group->label);
}

static void
add_json_value (GString  *out,
                yajl_val  v)
{
  if (YAJL_IS_STRING (v))
    g_string_append (out, YAJL_GET_STRING (v));
  else if (YAJL_IS_NUMBER (v))
    g_string_append (out, YAJL_GET_NUMBER (v));
  else if (YAJL_IS_TRUE (v))
    g_string_append (out, "true");
  else if (YAJL_IS_FALSE (v))
    g_string_append (out, "false");
  else if (YAJL_IS_NULL (v))
    g_string_append (out, "null");
  else if (YAJL_IS_ARRAY (v))
    {
      g_string_append_c (out, '[');
      for (size_t i = 0; i < YAJL_GET_ARRAY (v)->len; i++)
        {
          if (i > 0)
            g_string_append (out, ", ");
          add_json_value (out, YAJL_GET_ARRAY (v)->values[i]);
        }
      g_string_append_c (out, ']');
    }
  else if (YAJL_IS_OBJECT (v))
    {
      g_string_append_c (out, '{');
      for (size_t i = 0; i < YAJL_GET_OBJECT (v)->len; i++)
        {
          if (i > 0)
            g_string_append (out, ", ");
          g_string_append_printf (out, "%s: ", YAJL_GET_OBJECT (v)->keys[i]);
          add_json_value (out, YAJL_GET_OBJECT (v)->values[i]);
        }
      g_string_append_c (out, '}');
    }
}

/* Arguments of a kernel that the Slice and Kernel groups show already,
 * under their own names. */
static const char *const kernel_shown_args[] = {
  "device", "stream", "correlation", "grid", "block", "registers per thread", "shared memory",
  "est. achieved occupancy %", NULL,
};

static void
add_args (KsSelectionPage    *self,
          const char         *json,
          const char * const *skip)
{
  yajl_val root;

  if (json == NULL || *json == 0)
    return;

  /* nested too deep for a tree (ks_json_parse() says so): raw */
  root = ks_json_parse (json, NULL);
  if (root == NULL || !YAJL_IS_OBJECT (root) || YAJL_GET_OBJECT (root)->len == 0)
    {
      if (root == NULL)
        {
          begin_group (self, _("Arguments"));
          add_row (self, _("Raw"), json);
        }
      yajl_tree_free (root);
      return;
    }

  begin_group (self, _("Arguments"));
  for (size_t i = 0; i < YAJL_GET_OBJECT (root)->len; i++)
    {
      g_autoptr(GString) value = g_string_new (NULL);

      if (skip != NULL && g_strv_contains (skip, YAJL_GET_OBJECT (root)->keys[i]))
        continue;
      add_json_value (value, YAJL_GET_OBJECT (root)->values[i]);
      add_row (self, YAJL_GET_OBJECT (root)->keys[i], value->str);
    }
  yajl_tree_free (root);
}

typedef struct
{
  KsSession *session;
  guint32    track;
  guint32    slice;
} Jump;

static void
jump_free (gpointer data,
           GClosure *closure)
{
  Jump *jump = data;

  g_object_unref (jump->session);
  g_free (jump);
}

static void
jump_activated_cb (AdwActionRow *row,
                   Jump         *jump)
{
  ks_session_select_slice (jump->session, jump->track, jump->slice);
}

/* The operations a call launched, when it launched more than one (a
 * cudaGraphLaunch: every operation of its graph): how many, their span,
 * and the flow to the first to start. */
static guint
launched_graph (KsTrace *trace,
                guint32  track,
                guint32  slice,
                guint32 *first,
                gint64  *start,
                gint64  *end)
{
  guint n = 0;

  *first = KS_NO_INDEX;
  for (guint32 i = 0; i < trace->n_flows; i++)
    {
      const KsFlow *f = &trace->flows[i];
      const KsTrack *to = &trace->tracks[f->to_track];

      if (f->kind != KS_FLOW_LAUNCH || f->from_track != track || f->from_slice != slice)
        continue;
      if (n == 0 || to->start[f->to_slice] < *start)
        *first = i;
      *start = n == 0 ? to->start[f->to_slice] : MIN (*start, to->start[f->to_slice]);
      *end = n == 0 ? to->end[f->to_slice] : MAX (*end, to->end[f->to_slice]);
      n++;
    }
  return n;
}

static void
add_flows (KsSelectionPage *self,
           KsTrace         *trace,
           guint32          track,
           guint32          slice)
{
  gboolean started = FALSE;
  guint32 graph_first;
  gint64 graph_start = 0, graph_end = 0;
  guint graph_ops = launched_graph (trace, track, slice, &graph_first, &graph_start, &graph_end);

  for (guint32 i = 0; i < trace->n_flows; i++)
    {
      const KsFlow *f = &trace->flows[i];
      gboolean outgoing = f->from_track == track && f->from_slice == slice;
      gboolean incoming = f->to_track == track && f->to_slice == slice;
      guint32 other_track, other_slice;
      g_autofree char *value = NULL;
      const char *title;
      GtkWidget *row;
      Jump *jump;

      if (!outgoing && !incoming)
        continue;
      /* a graph launch is one span holding its operations: one row for
       * the first of them */
      if (outgoing && f->kind == KS_FLOW_LAUNCH && graph_ops > 1 && i != graph_first)
        continue;

      if (!started)
        {
          begin_group (self, _("Flows"));
          started = TRUE;
        }

      other_track = outgoing ? f->to_track : f->from_track;
      other_slice = outgoing ? f->to_slice : f->from_slice;

      if (f->kind == KS_FLOW_LAUNCH)
        {
          gint64 latency = MAX (0, trace->tracks[f->to_track].start[f->to_slice] -
                                   trace->tracks[f->from_track].end[f->from_slice]);

          title = outgoing ? _("Launches") : _("Launched by");
          row = add_row (self, title, ks_trace_string (trace, trace->tracks[other_track].name_id[other_slice]));
          add_row_take (self, _("Launch latency"), ks_time_format_duration (latency));
          if (outgoing && graph_ops > 1)
            {
              g_autofree char *span = ks_time_format_duration (graph_end - graph_start);

              /* TRANSLATORS: a CUDA graph launch: "200 operations in 1.23 ms" */
              add_row_take (self, _("Graph"),
                            g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%u operation in %s",
                                                          "%u operations in %s", graph_ops),
                                             graph_ops, span));
            }
        }
      else
        {
          title = outgoing ? _("Flow to") : _("Flow from");
          value = g_strdup_printf ("%s (%s)", ks_trace_string (trace, trace->tracks[other_track].name_id[other_slice]),
                                   ks_trace_string (trace, f->category));
          row = add_row (self, title, value);
        }

      /* Activating the row selects the other end. */
      gtk_list_box_row_set_activatable (GTK_LIST_BOX_ROW (row), TRUE);
      adw_action_row_add_suffix (ADW_ACTION_ROW (row), gtk_image_new_from_icon_name ("go-next-symbolic"));

      jump = g_new0 (Jump, 1);
      jump->session = g_object_ref (self->session);
      jump->track = other_track;
      jump->slice = other_slice;
      g_signal_connect_data (row, "activated", G_CALLBACK (jump_activated_cb), jump, jump_free, 0);
    }
}

static const char *
occupancy_limit_to_string (KsOccupancyLimit limit)
{
  switch (limit)
    {
    case KS_OCCUPANCY_LIMIT_WARPS: return _("threads per SM");
    case KS_OCCUPANCY_LIMIT_REGISTERS: return _("registers");
    case KS_OCCUPANCY_LIMIT_SHARED_MEMORY: return _("shared memory");
    case KS_OCCUPANCY_LIMIT_BLOCKS: return _("blocks per SM");
    case KS_OCCUPANCY_LIMIT_NONE:
    default: return "";
    }
}

/* Occupancy is estimated from the launch and the GPU, so it is shown for
 * every kernel whose GPU the trace describes. */
static void
add_occupancy (KsSelectionPage *self,
               const KsGpu     *gpu,
               const KsGpuInfo *kernel)
{
  KsOccupancy o;

  if (gpu == NULL || !ks_occupancy_compute (gpu, kernel, &o))
    return;
  add_row_take (self, _("Theoretical occupancy"),
                /* Translators: "75 % (12 blocks per SM, limited by registers)" */
                g_strdup_printf (ngettext ("%.0f %% (%u block per SM, limited by %s)",
                                           "%.0f %% (%u blocks per SM, limited by %s)",
                                           o.active_blocks),
                                 o.theoretical_pct, o.active_blocks,
                                 occupancy_limit_to_string (o.limit)));
  add_row_take (self, _("Est. achieved occupancy"), g_strdup_printf ("%.0f %%", o.achieved_pct));
}

/* Kineto's own "est. achieved occupancy %", shown as the profiler's:
 * it often differs from the estimate above (0 % where that says 6 %). */
static void
add_profiler_occupancy (KsSelectionPage *self,
                        const char      *json)
{
  const char *path[] = { "est. achieved occupancy %", NULL };
  yajl_val root, v;
  GtkWidget *row;

  if (json == NULL || *json == 0)
    return;
  root = ks_json_parse (json, NULL);
  v = root != NULL ? yajl_tree_get (root, path, yajl_t_number) : NULL;
  if (v != NULL)
    {
      g_autofree char *value = g_strdup_printf ("%.0f %%", YAJL_GET_DOUBLE (v));

      row = add_row (self, _("Profiler's occupancy estimate"), value);
      adw_action_row_set_subtitle (ADW_ACTION_ROW (row),
                                   _("As the profiler recorded it, from its own occupancy calculation; the "
                                     "estimates above come from this launch's grid, registers and shared "
                                     "memory against this GPU's limits, so the two can differ"));
    }
  yajl_tree_free (root);
}

/* A ProfilerStep#N, or an NVTX range the analysis took for a step: its
 * breakdown, as on the Summary page. */
static void
add_step (KsSelectionPage *self,
          guint32          track_index,
          guint32          slice)
{
  const KsStep *steps;
  guint n;

  if (self->analysis == NULL)
    return;
  steps = ks_analysis_get_steps (self->analysis, &n);
  for (guint i = 0; i < n; i++)
    {
      gint64 dur = steps[i].end - steps[i].start;

      if (steps[i].track != track_index || steps[i].slice != slice)
        continue;
      begin_group (self, ks_metric_get_title (KS_METRIC_STEP_BREAKDOWN));
      gtk_widget_set_tooltip_text (self->group, ks_metric_get_definition (KS_METRIC_STEP_BREAKDOWN));
      for (guint p = 0; p < KS_N_STEP_PARTS; p++)
        {
          g_autofree char *time = ks_time_format_duration (steps[i].parts[p]);

          add_row_take (self, ks_step_part_get_title (p),
                        g_strdup_printf ("%s (%.1f %%)", time, dur > 0 ? 100.0 * steps[i].parts[p] / dur : 0.0));
        }
      return;
    }
}

/* A Python samples slice: its frame and the whole stack it is in, which
 * say more than its args would. FALSE when @slice is not one. */
static gboolean
add_sample_stack (KsSelectionPage *self,
                  KsTrace         *trace,
                  guint32          track,
                  guint32          slice)
{
  g_autoptr(GArray) stack = ks_sample_stack_new (trace, track, slice);
  const KsSampleStackFrame *frame;

  if (stack == NULL)
    return FALSE;

  frame = &g_array_index (stack, KsSampleStackFrame, 0);
  begin_group (self, ks_trace_samples_are_python (trace) ? _("Python Frame") : _("Sampled Frame"));
  add_row (self, _("Function"), frame->function);
  add_row (self, _("Location"), frame->location);
  add_row_take (self, _("Samples"), g_strdup_printf ("%" G_GUINT64_FORMAT, frame->samples));
  /* taken while the thread slept, waited for a lock, I/O or the GIL */
  if (frame->waiting > 0)
    add_row_take (self, _("Waiting"), g_strdup_printf ("%" G_GUINT64_FORMAT, frame->waiting));

  begin_group (self, _("Stack"));
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (self->group),
                                         _("Innermost frame first, out to the thread’s first"));
  for (guint i = 0; i < stack->len; i++)
    {
      const KsSampleStackFrame *f = &g_array_index (stack, KsSampleStackFrame, i);
      GtkWidget *row = add_row (self, f->function, f->location);

      adw_action_row_set_title_lines (ADW_ACTION_ROW (row), 2);
    }
  return TRUE;
}


/* Thread time (CPU time) beside the wall time, for the slices of
 * trace-event files that carry "tts"/"tdur" */
static void
add_thread_time (KsSelectionPage *self,
                 const KsTrack   *track,
                 guint32          slice)
{
  gint64 start, duration, wall = track->end[slice] - track->start[slice];
  g_autofree char *text = NULL;

  if (!ks_track_get_thread_time (track, slice, &start, &duration))
    return;
  if (duration >= 0)
    {
      text = ks_time_format_duration (duration);
      /* the share of the wall time the thread ran */
      if (wall > 0)
        add_row_take (self, _("CPU time"), g_strdup_printf ("%s (%.0f %%)", text, 100.0 * (double) duration / (double) wall));
      else
        add_row (self, _("CPU time"), text);
    }
  if (start != G_MININT64)
    add_row_take (self, _("Thread clock at start"), ks_time_format_duration (start));
}

GtkWidget *
_ks_selection_page_begin_group (KsSelectionPage *self,
                                const char      *title)
{
  return begin_group (self, title);
}

GtkWidget *
_ks_selection_page_add_row (KsSelectionPage *self,
                            const char      *title,
                            const char      *value)
{
  return add_row (self, title, value);
}

void
_ks_selection_page_add_row_take (KsSelectionPage *self,
                                 const char      *title,
                                 char            *value)
{
  add_row_take (self, title, value);
}

void
_ks_selection_page_append (KsSelectionPage *self,
                           GtkWidget       *widget)
{
  gtk_box_append (self->box, widget);
}

void
_ks_selection_page_add_heading (KsSelectionPage *self,
                                const char      *text)
{
  g_autofree char *shown = ks_format_dup_cut_text (text, KS_TEXT_MAX_CHARS, TRUE);
  GtkWidget *heading = gtk_label_new (shown);

  gtk_label_set_wrap (GTK_LABEL (heading), TRUE);
  gtk_label_set_xalign (GTK_LABEL (heading), 0);
  gtk_widget_add_css_class (heading, "title-3");
  gtk_box_append (self->box, heading);
}

static void
add_slice (KsSelectionPage *self,
           KsTrace         *trace,
           guint32          track_index,
           guint32          slice)
{
  const KsTrack *track = &trace->tracks[track_index];
  KsSliceKind kind = track->slice_kind[slice];
  const char *name = ks_trace_string (trace, track->name_id[slice]);
  g_autoptr(GString) args = g_string_new (NULL);
  g_autofree char *shown = ks_format_dup_cut_text (name, KS_TEXT_MAX_CHARS, TRUE);
  g_autofree char *breakable = identifier_break_points (shown);
  GtkWidget *heading = gtk_label_new (breakable);
  PangoAttrList *attrs = pango_attr_list_new ();

  gtk_label_set_wrap (GTK_LABEL (heading), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (heading), PANGO_WRAP_WORD_CHAR);
  pango_attr_list_insert (attrs, pango_attr_insert_hyphens_new (FALSE));
  gtk_label_set_attributes (GTK_LABEL (heading), attrs);
  pango_attr_list_unref (attrs);
  gtk_widget_set_tooltip_text (heading, shown);
  gtk_label_set_xalign (GTK_LABEL (heading), 0);
  gtk_widget_add_css_class (heading, "title-3");
  gtk_box_append (self->box, heading);

  begin_group (self, _("Slice"));
  add_row (self, _("Name"), name);
  add_row (self, _("Category"), *ks_trace_string (trace, track->category[slice])
                                ? ks_trace_string (trace, track->category[slice])
                                : ks_slice_kind_to_string (kind));
  add_row (self, _("Kind"), ks_slice_kind_to_string (kind));
  add_row_take (self, _("Start"), ks_time_format_timestamp (track->start[slice]));
  add_row_take (self, _("Duration"), ks_time_format_duration (track->end[slice] - track->start[slice]));
  add_thread_time (self, track, slice);
  add_row_take (self, _("Self time"), ks_time_format_duration (ks_track_self_time (track, slice)));
  add_row_take (self, track->kind == KS_TRACK_STREAM ? _("Stream") : _("Thread"),
                track_description (self, track_index));
  if (track->correlation[slice] != 0)
    add_row_take (self, _("Correlation id"), g_strdup_printf ("%u", track->correlation[slice]));

  if (kind == KS_SLICE_KERNEL && track->gpu != NULL)
    {
      const KsGpuInfo *g = &track->gpu[slice];

      begin_group (self, _("Kernel"));
      add_row_take (self, _("Grid"), g_strdup_printf ("%u × %u × %u", g->kernel.grid[0], g->kernel.grid[1], g->kernel.grid[2]));
      add_row_take (self, _("Block"), g_strdup_printf ("%u × %u × %u", g->kernel.block[0], g->kernel.block[1], g->kernel.block[2]));
      add_row_take (self, _("Registers per thread"), g_strdup_printf ("%u", g->kernel.registers));
      add_row_take (self, _("Shared memory"), format_bytes (g->kernel.shared_memory));
      add_occupancy (self, ks_trace_find_gpu (trace, track->device), g);
      add_profiler_occupancy (self, ks_trace_slice_args (trace, track, slice, args));
    }
  else if ((kind == KS_SLICE_MEMCPY || kind == KS_SLICE_MEMSET) && track->gpu != NULL)
    {
      const KsGpuInfo *g = &track->gpu[slice];
      gint64 dur = track->end[slice] - track->start[slice];

      begin_group (self, kind == KS_SLICE_MEMCPY ? _("Memory Copy") : _("Memory Set"));
      add_row_take (self, _("Bytes"), format_bytes (g->copy.bytes));
      if (kind == KS_SLICE_MEMCPY)
        {
          add_row (self, _("Direction"), ks_copy_kind_to_string (g->copy.copy_kind));
          add_row_take (self, _("Memory kinds"), g_strdup_printf ("%s → %s",
                                                                  ks_memory_kind_to_string (g->copy.src_kind),
                                                                  ks_memory_kind_to_string (g->copy.dst_kind)));
        }
      else
        add_row (self, _("Memory kind"), ks_memory_kind_to_string (g->copy.dst_kind));
      if (dur > 0)
        add_row_take (self, _("Throughput"), g_strdup_printf (_("%.2f GB/s"), (double)g->copy.bytes / dur));
    }

  add_step (self, track_index, slice);
  add_flows (self, trace, track_index, slice);
  if (!add_sample_stack (self, trace, track_index, slice))
    add_args (self, ks_trace_slice_args (trace, track, slice, args), kind == KS_SLICE_KERNEL ? kernel_shown_args : NULL);
}

static void
add_entries (KsSelectionPage *self,
             KsTrace         *trace,
             GArray          *entries,
             const char      *title,
             const char      *description)
{
  if (entries->len == 0)
    return;

  begin_group (self, title);
  adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (self->group), description);
  for (guint i = 0; i < MIN (TOP_N, entries->len); i++)
    {
      const KsRangeEntry *e = &g_array_index (entries, KsRangeEntry, i);
      const char *name = ks_trace_string (trace, e->name);
      g_autofree char *dur = ks_time_format_duration (e->total_ns);
      g_autofree char *value = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s · %" PRIu64 " call",
                                                             "%s · %" PRIu64 " calls", e->count),
                                                dur, e->count);
      GtkWidget *row = add_row (self, name, value);

      /* Templated kernel names run to hundreds of characters: two lines,
       * the name (cut as the title is) in the tooltip. */
      adw_action_row_set_title_lines (ADW_ACTION_ROW (row), 2);
      gtk_widget_set_tooltip_text (row, adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)));
    }
}

/* A range that is one of the analysis' idle gaps (the Gaps page and
 * "]" select them) says what kind of gap it is and what the CPU did. */
static void
add_gap (KsSelectionPage *self,
         KsTrace         *trace,
         gint64           start,
         gint64           end)
{
  const KsGap *gaps;
  guint n = 0;

  if (self->analysis == NULL)
    return;
  gaps = ks_analysis_get_gaps (self->analysis, &n);
  for (guint i = 0; i < n; i++)
    if (gaps[i].start == start && gaps[i].end == end)
      {
        const KsGap *g = &gaps[i];

        /* The analysis' titles, as the Gaps and Summary pages say them */
        begin_group (self, _("Idle Gap"));
        add_row (self, _("Class"), ks_gap_class_get_title (g->klass));
        add_row_take (self, _("Cause"), ks_gap_cause_format (trace, g->cause, g->cause_name,
                                                             g->cause_track, g->cause_slice));
        return;
      }
}

static void
add_range (KsSelectionPage *self,
           KsTrace         *trace,
           gint64           start,
           gint64           end)
{
  add_gap (self, trace, start, end);
  begin_group (self, _("Range"));
  add_row_take (self, _("Start"), ks_time_format_timestamp (start));
  add_row_take (self, _("End"), ks_time_format_timestamp (end));
  add_row_take (self, _("Duration"), ks_time_format_duration (end - start));

  if (self->busy || self->range_stats == NULL)
    {
      add_row (self, _("Statistics"), _("Computing…"));
      return;
    }

  add_row_take (self, _("Events"), g_strdup_printf ("%" G_GUINT64_FORMAT, self->range_stats->n_slices));

  if (self->range_stats->gpus->len > 0)
    {
      begin_group (self, _("GPU Busy"));
      /* the rule the range statistics were computed with */
      adw_preferences_group_set_description (ADW_PREFERENCES_GROUP (self->group),
                                             self->analysis != NULL &&
                                             ks_analysis_get_options (self->analysis)->busy_includes_copies
                                             ? _("Time with at least one kernel, memcpy or memset running, over the range")
                                             : _("Time with at least one kernel running, over the range"));
      for (guint i = 0; i < self->range_stats->gpus->len; i++)
        {
          const KsRangeGpu *g = &g_array_index (self->range_stats->gpus, KsRangeGpu, i);
          g_autofree char *title = g_strdup_printf (_("GPU %d"), g->device);
          g_autofree char *busy = ks_time_format_duration (g->busy_ns);
          double pct = end > start ? 100.0 * g->busy_ns / (end - start) : 0;

          add_row_take (self, title, g_strdup_printf ("%.1f %% (%s)", pct, busy));
        }
    }

  add_entries (self, trace, self->range_stats->kernels, _("Top Kernels"),
               _("GPU time inside the range"));
  add_entries (self, trace, self->range_stats->operators, _("Top Operators"),
               _("Self time inside the range: each operator without the operators it calls"));
}

static void
rebuild (KsSelectionPage *self)
{
  GtkWidget *child;
  KsTrace *trace;
  guint32 track, slice;
  gint64 start, end;
  gboolean has_slice, has_range, has_item;
  guint32 instant, block;
  guint device;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->box))))
    gtk_box_remove (self->box, child);
  g_hash_table_remove_all (self->values);
  self->group = NULL;

  if (self->session == NULL)
    {
      gtk_stack_set_visible_child_name (self->stack, "empty");
      return;
    }

  trace = ks_session_get_trace (self->session);
  has_slice = ks_session_get_selected_slice (self->session, &track, &slice);
  has_range = ks_session_get_range (self->session, &start, &end);

  /* What the user chose last comes first. */
  if (has_range && self->range_first)
    add_range (self, trace, start, end);
  if (has_slice)
    add_slice (self, trace, track, slice);
  has_item = FALSE;
  if (ks_session_get_selected_instant (self->session, &instant))
    {
      _ks_selection_page_add_instant (self, trace, instant);
      has_item = TRUE;
    }
  else if (ks_session_get_selected_memory_block (self->session, &device, &block))
    {
      _ks_selection_page_add_memory_block (self, trace, device, block);
      has_item = TRUE;
    }
  if (has_range && !self->range_first)
    add_range (self, trace, start, end);

  gtk_stack_set_visible_child_name (self->stack, has_slice || has_item || has_range ? "details" : "empty");
}

static void
selection_changed_cb (KsSelectionPage *self)
{
  self->range_first = FALSE;
  rebuild (self);
}

static void
range_stats_cb (GObject      *object,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(KsSelectionPage) self = user_data;
  g_autoptr(GError) error = NULL;
  KsRangeStats *stats = ks_range_stats_compute_finish (result, &error);

  if (stats == NULL)
    {
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        g_warning ("Range statistics failed: %s", error->message);
      return;
    }

  g_clear_pointer (&self->range_stats, ks_range_stats_free);
  self->range_stats = stats;
  self->busy = FALSE;
  rebuild (self);
}

static void
range_changed_cb (KsSelectionPage *self)
{
  gint64 start, end;

  g_cancellable_cancel (self->range_cancellable);
  g_clear_object (&self->range_cancellable);
  g_clear_pointer (&self->range_stats, ks_range_stats_free);
  self->busy = FALSE;

  if (ks_session_get_range (self->session, &start, &end))
    {
      self->range_first = TRUE;
      self->busy = TRUE;
      self->range_cancellable = g_cancellable_new ();
      /* busy time by the analysis' options, as the Summary counts it */
      ks_range_stats_compute_async (ks_session_get_trace (self->session),
                                    self->analysis != NULL ? ks_analysis_get_options (self->analysis) : NULL,
                                    start, end,
                                    self->range_cancellable, range_stats_cb, g_object_ref (self));
    }

  rebuild (self);
}

gboolean
ks_selection_page_get_busy (KsSelectionPage *self)
{
  g_return_val_if_fail (KS_IS_SELECTION_PAGE (self), FALSE);

  return self->busy;
}

const char *
ks_selection_page_lookup_value (KsSelectionPage *self,
                                const char      *group,
                                const char      *title)
{
  g_autofree char *key = NULL;

  g_return_val_if_fail (KS_IS_SELECTION_PAGE (self), NULL);

  key = g_strdup_printf ("%s\037%s", group, title);
  return g_hash_table_lookup (self->values, key);
}

void
ks_selection_page_set_session (KsSelectionPage  *self,
                               KsSession        *session,
                               KsTimelineLayout *layout)
{
  g_return_if_fail (KS_IS_SELECTION_PAGE (self));

  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_cancellable_cancel (self->range_cancellable);
  g_clear_object (&self->range_cancellable);
  g_clear_pointer (&self->range_stats, ks_range_stats_free);
  self->busy = FALSE;

  g_set_object (&self->session, session);
  self->layout = layout;

  if (session != NULL)
    {
      g_signal_connect_object (session, "selection-changed", G_CALLBACK (selection_changed_cb), self, G_CONNECT_SWAPPED);
      g_signal_connect_object (session, "range-changed", G_CALLBACK (range_changed_cb), self, G_CONNECT_SWAPPED);
    }

  rebuild (self);
}

void
ks_selection_page_set_analysis (KsSelectionPage *self,
                                KsAnalysis      *analysis)
{
  g_return_if_fail (KS_IS_SELECTION_PAGE (self));

  if (!g_set_object (&self->analysis, analysis))
    return;
  /* other options ("count copies as busy") change the range's busy time */
  if (self->session != NULL && ks_session_get_range (self->session, NULL, NULL))
    range_changed_cb (self);
  else
    rebuild (self);
}

static void
ks_selection_page_dispose (GObject *object)
{
  KsSelectionPage *self = (KsSelectionPage *)object;

  if (self->session != NULL)
    g_signal_handlers_disconnect_by_data (self->session, self);
  g_cancellable_cancel (self->range_cancellable);
  g_clear_object (&self->range_cancellable);
  g_clear_object (&self->session);
  g_clear_object (&self->analysis);
  g_clear_pointer (&self->range_stats, ks_range_stats_free);

  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_SELECTION_PAGE);

  G_OBJECT_CLASS (ks_selection_page_parent_class)->dispose (object);
}

static void
ks_selection_page_finalize (GObject *object)
{
  KsSelectionPage *self = (KsSelectionPage *)object;

  g_clear_pointer (&self->values, g_hash_table_unref);
  g_free (self->group_title);

  G_OBJECT_CLASS (ks_selection_page_parent_class)->finalize (object);
}

static void
ks_selection_page_class_init (KsSelectionPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_selection_page_dispose;
  object_class->finalize = ks_selection_page_finalize;

  gtk_widget_class_set_template_from_resource (widget_class, APP_RESOURCE_PATH "/ks-selection-page.ui");
  gtk_widget_class_bind_template_child (widget_class, KsSelectionPage, stack);
  gtk_widget_class_bind_template_child (widget_class, KsSelectionPage, box);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
ks_selection_page_init (KsSelectionPage *self)
{
  self->values = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
ks_selection_page_new (void)
{
  return g_object_new (KS_TYPE_SELECTION_PAGE, NULL);
}
