/* ks-stats-page.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-stats-page"

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>

#include "ks-format.h"
#include "ks-page-table.h"
#include "ks-stats-page.h"

typedef struct _Kind Kind;

struct _KsStatsPage
{
  KsPage          parent_instance;

  GtkLabel       *summary_label;
  GtkSearchEntry *search_entry;
  GtkColumnView  *view;

  const Kind     *kind;
  guint32         track;         /* what the last activated row is on, or KS_NO_INDEX */
  KsPageTable     table;
  char           *needle;

  /* Borrowed from KsPage, set by refill */
  KsTrace        *trace;
  KsAnalysis     *analysis;
};

/* What differs between the reports: one of these each. */
struct _Kind
{
  const char           *name;            /* kinescope-cli stats --report */
  const KsReportColumn *(*columns) (guint *n);
  KsReport             *(*report)  (KsTrace    *trace,
                                    KsAnalysis *analysis);
  const char           *sort_key;        /* sorted by it, descending; NULL: in the report's order */
  const char           *filter_keys[2];  /* the columns the search matches; none: no search */
  const char           *placeholder;     /* N_() */
  const char           *icon;
  const char           *empty_title;     /* N_() */
  const char           *empty_text;      /* N_() */
  char                *(*summary)  (KsStatsPage *self);
  gboolean              (*is_empty) (KsStatsPage *self);   /* NULL: when the report has no rows */
  void                  (*activate) (KsStatsPage *self,
                                     guint         index);
  int                   first_width;     /* px kept for the first column; 0: as it comes */
  gboolean              rank_if_ranks;   /* its "rank" column only for a job of several ranks */
};

enum {
  PROP_0,
  PROP_REPORT,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

G_DEFINE_FINAL_TYPE (KsStatsPage, ks_stats_page, KS_TYPE_PAGE)

#define ROWS(self, type) ((const type *)(self)->table.report->rows)

/* Shows @start .. @end of the trace, or the one time @start. */
static void
navigate (KsStatsPage *self,
          gint64        start,
          gint64        end)
{
  KsSession *session = ks_page_get_session (KS_PAGE (self));

  if (start > end)
    return;
  ks_page_navigate (KS_PAGE (self), start, end);
  /* a stream's queue, a copy, a kernel sequence: the stream's rows */
  if (self->track != KS_NO_INDEX && session != NULL && ks_session_get_trace (session) == self->trace)
    ks_session_reveal_track (session, self->track);
}

/* Tensor cores: the operator and its longest call, as the Operators page. */
/* Operators without GPU work are rows, but there is nothing to count. */
static gboolean
no_kernels (KsStatsPage *self)
{
  return ks_analysis_get_tensor_cores (self->analysis)->n_kernels == 0;
}

static void
activate_operator (KsStatsPage *self,
                   guint         i)
{
  const KsOperatorStats *op = &ROWS (self, KsOperatorStats)[i];
  const KsTrack *track;

  ks_page_highlight (KS_PAGE (self), (guint)op->name);
  if (op->longest_track == KS_NO_INDEX)
    return;
  track = &self->trace->tracks[op->longest_track];
  navigate (self, track->start[op->longest_slice], track->end[op->longest_slice]);
}

static char *
summary_tensor_cores (KsStatsPage *self)
{
  const KsTensorCores *tc = ks_analysis_get_tensor_cores (self->analysis);
  g_autofree char *tc_time = ks_time_format_duration (tc->tc_kernel_ns);
  g_autofree char *kernel_time = ks_time_format_duration (tc->kernel_ns);

  return g_strdup_printf (_("Tensor-core kernels: %" PRIu64 " of %" PRIu64 " calls, "
                            "%s of %s kernel time (%.1f %%). Eligible operators spent %.1f %% of their "
                            "GPU time in them."),
                          tc->n_tc_kernels, tc->n_kernels, tc_time, kernel_time, 100.0 * tc->tc_share,
                          tc->eligible_ns > 0 ? 100.0 * tc->eligible_tc_ns / tc->eligible_ns : 0.0);
}

/* Queues: the bucket of the series where the queue was longest. */
static void
activate_queue (KsStatsPage *self,
                guint         i)
{
  const KsQueueStats *q = &ROWS (self, KsQueueStats)[i];
  gint64 b0 = q->start + (q->max_ts - q->start) / q->bucket_ns * q->bucket_ns;

  self->track = q->track;
  navigate (self, b0, MIN (b0 + q->bucket_ns, q->end));
}

static char *
summary_queue (KsStatsPage *self)
{
  return g_strdup (ks_metric_get_definition (KS_METRIC_QUEUE_LENGTH));
}

static void
activate_copy (KsStatsPage *self,
               guint         i)
{
  const KsCopyRate *c = &ROWS (self, KsCopyRate)[i];

  ks_page_highlight (KS_PAGE (self), self->trace->tracks[c->track].name_id[c->slice]);
  self->track = c->track;
  navigate (self, c->start, c->start + c->dur_ns);
}

/* Copies: a line per GPU and copy kind above the copies. */
static char *
summary_copies (KsStatsPage *self)
{
  GString *s = g_string_new (NULL);
  const KsCopyKindStats *kinds;
  guint n = 0;

  kinds = ks_analysis_get_copy_kinds (self->analysis, &n);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *bytes = ks_format_bytes (kinds[i].bytes);
      g_autofree char *time = ks_time_format_duration (kinds[i].time_ns);

      if (s->len > 0)
        g_string_append_c (s, '\n');
      /* each rank's GPUs apart: a job's ranks number their GPUs alike */
      if (kinds[i].rank >= 0)
        /* TRANSLATORS: "Rank 1, GPU 0 HtoD: 8 copies, 13.5 MiB in 1.40 ms, 10.14 GB/s (max 11.53)" */
        g_string_append_printf (s, g_dngettext (GETTEXT_PACKAGE,
                                                "Rank %d, GPU %d %s: %" PRIu64 " copy, %s in %s, %.2f GB/s (max %.2f)",
                                                "Rank %d, GPU %d %s: %" PRIu64 " copies, %s in %s, %.2f GB/s (max %.2f)",
                                                kinds[i].count),
                                kinds[i].rank, kinds[i].device, ks_copy_kind_to_string (kinds[i].kind), kinds[i].count,
                                bytes, time, MAX (kinds[i].mean_gbps, 0.0), MAX (kinds[i].max_gbps, 0.0));
      else
        /* TRANSLATORS: "GPU 0 HtoD: 8 copies, 13.5 MiB in 1.40 ms, 10.14 GB/s (max 11.53)" */
        g_string_append_printf (s, g_dngettext (GETTEXT_PACKAGE,
                                                "GPU %d %s: %" PRIu64 " copy, %s in %s, %.2f GB/s (max %.2f)",
                                                "GPU %d %s: %" PRIu64 " copies, %s in %s, %.2f GB/s (max %.2f)",
                                                kinds[i].count),
                                kinds[i].device, ks_copy_kind_to_string (kinds[i].kind), kinds[i].count, bytes, time,
                                MAX (kinds[i].mean_gbps, 0.0), MAX (kinds[i].max_gbps, 0.0));
    }
  return g_string_free (s, FALSE);
}

static void
activate_sequence (KsStatsPage *self,
                   guint         i)
{
  const KsKernelSequence *q = &ROWS (self, KsKernelSequence)[i];

  self->track = q->first_track;
  navigate (self, q->first_start, q->last_end);
}

static char *
summary_sequences (KsStatsPage *self)
{
  return g_strdup_printf (_("Runs of %d consecutive kernels on a stream, seen at least twice: where "
                            "kernel fusion or a CUDA graph would save launches."),
                          KS_SEQUENCE_LENGTH);
}

/* Annotations: every range of the name on the GPU's annotation rows. */
static void
activate_annotation (KsStatsPage *self,
                     guint         i)
{
  const KsGpuAnnotationStats *a = &ROWS (self, KsGpuAnnotationStats)[i];
  gint64 first = G_MAXINT64, last = G_MININT64;

  ks_page_highlight (KS_PAGE (self), a->name);
  for (guint32 t = 0; t < self->trace->n_tracks; t++)
    {
      const KsTrack *track = &self->trace->tracks[t];

      if (track->kind != KS_TRACK_GPU_ANNOTATION || track->device != a->device)
        continue;
      for (guint32 s = 0; s < track->n_slices; s++)
        if (track->name_id[s] == a->name)
          {
            first = MIN (first, track->start[s]);
            last = MAX (last, track->end[s]);
          }
    }
  navigate (self, first, last);
}

/* Profiler ranges: the range on its row; the launch's operator, when known. */
static void
activate_profiler_counter (KsStatsPage *self,
                           guint         i)
{
  const KsProfilerCounter *q = &ROWS (self, KsProfilerCounter)[i];

  if (q->operator != 0)
    ks_page_highlight (KS_PAGE (self), q->operator);
  self->track = q->track;
  navigate (self, q->start, q->end);
}

static char *
summary_profiler_ranges (KsStatsPage *self)
{
  const KsProfilerRanges *ranges = ks_analysis_get_profiler_ranges (self->analysis);
  g_autofree char *what = ks_report_describe_profiler_ranges (ranges);
  g_autofree char *unmatched = ks_report_explain_profiler_operators (ranges);

  if (unmatched != NULL)
    /* TRANSLATORS: "77 range-profiler ranges on 1 GPU." and why no range has operators */
    return g_strdup_printf (_("%s. %s"), what, unmatched);
  /* TRANSLATORS: "77 range-profiler ranges on 1 GPU: a row per counter of each range." */
  return g_strdup_printf (_("%s: a row per counter of each range."), what);
}

/* Steps: the step in the timeline; the summary says how they were found. */
static void
activate_step (KsStatsPage *self,
               guint         i)
{
  const KsStep *step = &ROWS (self, KsStep)[i];

  navigate (self, step->start, step->end);
}

static char *
summary_steps (KsStatsPage *self)
{
  guint n, counted = 0, warmup = 0;
  const KsStep *steps = ks_analysis_get_steps (self->analysis, &n);
  const char *rule = ks_analysis_get_step_rule (self->analysis, NULL);
  gint64 total = 0;
  g_autofree char *mean = NULL;
  GString *text;

  if (n == 0)
    return NULL;
  for (guint i = 0; i < n; i++)
    {
      warmup += steps[i].warmup;
      if (!ks_analysis_step_counts (self->analysis, &steps[i]))
        continue;
      counted++;
      total += steps[i].end - steps[i].start;
    }
  mean = ks_time_format_duration (counted > 0 ? total / counted : 0);
  text = g_string_new (NULL);
  /* TRANSLATORS: "5 steps, mean 41.2 ms." */
  g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE, "%u step, mean %s.", "%u steps, mean %s.", n),
                          n, mean);
  if (warmup > 0 && counted < n)
    {
      g_string_append_c (text, ' ');
      /* TRANSLATORS: follows "5 steps, mean 41.2 ms." */
      g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE, "The mean leaves out %u warm-up step.",
                                                 "The mean leaves out %u warm-up steps.", warmup),
                              warmup);
    }
  if (rule != NULL)
    {
      g_string_append_c (text, ' ');
      /* TRANSLATORS: %s is the rule, as "the repeating operator" */
      g_string_append_printf (text, _("The trace marks no steps: they are inferred from %s."), rule);
    }
  return g_string_free (text, FALSE);
}

static const Kind kinds[] = {
  { "steps", ks_report_step_columns, ks_report_new_steps,
    NULL, { "name", NULL }, N_("Filter steps"), "view-list-symbolic",
    N_("No Steps"),
    N_("The trace marks no steps (no ProfilerStep#N of a torch.profiler schedule, no NVTX range named "
       "like a step) and repeats no structure that its steps could be inferred from."),
    /* wide enough for "ProfilerStep#12" beside nine numeric columns */
    summary_steps, NULL, activate_step, 130, TRUE },
  { "tensor-cores", ks_report_tensor_core_operator_columns, ks_report_new_tensor_core_operators,
    "device_total_ns", { "name", NULL }, N_("Filter operators"), "view-list-symbolic",
    N_("No GPU Kernels"),
    N_("Tensor cores are counted over the GPU kernels the PyTorch operators launched. Record with "
       "torch.profiler and CUDA activity, or with kinescope-cli record."),
    summary_tensor_cores, no_kernels, activate_operator },
  { "queue", ks_report_queue_columns, ks_report_new_queues,
    "max", { NULL, NULL }, NULL, "view-list-symbolic",
    N_("No Launched GPU Work"),
    N_("The queue length needs the launch of each GPU operation: the CUDA runtime calls linked to "
       "their kernels and copies, as torch.profiler and kinescope-cli record them. Nsight exports "
       "and traces without CUDA activity have none."),
    summary_queue, NULL, activate_queue },
  { "memcpy-bandwidth", ks_report_copy_columns, ks_report_new_copies,
    "bytes", { "name", "kind" }, N_("Filter copies"), "view-list-symbolic",
    N_("No Memory Copies"),
    N_("This trace has no memcpy on a GPU. Copies appear with CUDA activity recorded "
       "(torch.profiler with ProfilerActivity.CUDA, kinescope-cli record, Nsight Systems)."),
    summary_copies, NULL, activate_copy },
  { "kernel-sequences", ks_report_kernel_sequence_columns, ks_report_new_kernel_sequences,
    "count", { "kernels", "operators" }, N_("Filter kernels and operators"), "view-list-symbolic",
    N_("No Repeated Kernel Sequences"),
    N_("No run of consecutive kernels on a stream was seen twice. A trace of several training "
       "steps, with CUDA activity recorded, has them."),
    summary_sequences, NULL, activate_sequence },
  { "gpu-annotations", ks_report_gpu_annotation_columns, ks_report_new_gpu_annotations,
    "total_ns", { "name", NULL }, N_("Filter annotations"), "view-list-symbolic",
    N_("No GPU Annotations"),
    N_("GPU annotations are the GPU side of record_function ranges (gpu_user_annotation), which "
       "torch.profiler records with CUDA activity."),
    NULL, NULL, activate_annotation },
  { "profiler-ranges", ks_report_profiler_counter_columns, ks_report_new_profiler_counters,
    "dur_ns", { "counter", "name" }, N_("Filter counters and kernels"), "view-list-symbolic",
    N_("No Range-Profiler Ranges"),
    N_("The CUPTI range profiler measures hardware counters per kernel or per range: torch.profiler "
       "records them as cuda_profiler_range events when asked for profiler_metrics in its "
       "experimental_config."),
    summary_profiler_ranges, NULL, activate_profiler_counter },
};

static gboolean
filter_row (gpointer p,
            guint    i)
{
  KsStatsPage *self = p;
  const KsReport *report = self->table.report;
  gboolean any = FALSE;

  if (report == NULL || self->needle == NULL || *self->needle == 0)
    return TRUE;
  for (guint k = 0; k < G_N_ELEMENTS (self->kind->filter_keys) && self->kind->filter_keys[k] != NULL; k++)
    {
      const KsReportColumn *column = ks_report_find_column (report->columns, report->n_columns,
                                                            self->kind->filter_keys[k]);
      g_autofree char *text = ks_report_get_text (report, column, i);

      any |= ks_page_text_matches (text, self->needle);
    }
  return any;
}

static void
search_changed_cb (KsStatsPage *self)
{
  ks_page_table_search (&self->table, &self->needle, GTK_EDITABLE (self->search_entry));
}

static void
activate_cb (KsStatsPage *self,
             guint         position)
{
  guint i = ks_page_table_get_index_at (&self->table, position);

  if (i == G_MAXUINT || self->table.report == NULL)
    return;
  self->track = KS_NO_INDEX;
  self->kind->activate (self, i);
}

static void
ks_stats_page_refill (KsPage     *page,
                       KsTrace    *trace,
                       KsAnalysis *analysis)
{
  KsStatsPage *self = KS_STATS_PAGE (page);
  g_autofree char *summary = NULL;
  KsReport *report = NULL;
  GtkColumnViewColumn *rank;
  gboolean empty = FALSE;

  ks_page_table_set_report (&self->table, NULL);
  self->trace = trace;
  self->analysis = analysis;
  if (analysis != NULL)
    {
      report = self->kind->report (trace, analysis);
      if (self->kind->summary != NULL)
        summary = self->kind->summary (self);
    }
  ks_page_table_set_report (&self->table, report);
  if (report != NULL)
    empty = self->kind->is_empty != NULL ? self->kind->is_empty (self) : report->n_rows == 0;
  /* none yet on the first refill, before the columns are added */
  rank = ks_page_table_get_report_column (&self->table, "rank");
  if (self->kind->rank_if_ranks && rank != NULL)
    gtk_column_view_column_set_visible (rank, trace != NULL && trace->n_ranks > 1);
  gtk_column_view_sort_by_column (self->view, ks_page_table_get_report_column (&self->table, self->kind->sort_key),
                                  GTK_SORT_DESCENDING);
  gtk_label_set_text (self->summary_label, summary != NULL ? summary : "");
  gtk_widget_set_visible (GTK_WIDGET (self->summary_label), summary != NULL);
  ks_page_set_empty (page, self->kind->icon,
                     empty ? _(self->kind->empty_title) : NULL,
                     _(self->kind->empty_text));
}

static void
ks_stats_page_constructed (GObject *object)
{
  KsStatsPage *self = (KsStatsPage *)object;
  const KsReportColumn *columns;
  guint n;

  G_OBJECT_CLASS (ks_stats_page_parent_class)->constructed (object);

  if (self->kind == NULL)
    {
      g_critical ("A KsStatsPage needs its \"report\"");
      self->kind = &kinds[0];
    }
  columns = self->kind->columns (&n);
  ks_page_table_add_report_columns (&self->table, columns, n);
  if (self->kind->first_width > 0)
    {
      g_autoptr(GtkColumnViewColumn) first = g_list_model_get_item (gtk_column_view_get_columns (self->view), 0);

      gtk_column_view_column_set_fixed_width (first, self->kind->first_width);
    }
  gtk_widget_set_visible (GTK_WIDGET (self->search_entry), self->kind->filter_keys[0] != NULL);
  if (self->kind->placeholder != NULL)
    g_object_set (self->search_entry, "placeholder-text", _(self->kind->placeholder), NULL);
}

static void
ks_stats_page_set_property (GObject      *object,
                             guint         prop_id,
                             const GValue *value,
                             GParamSpec   *pspec)
{
  KsStatsPage *self = KS_STATS_PAGE (object);

  switch (prop_id)
    {
    case PROP_REPORT:
      for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
        if (g_strcmp0 (g_value_get_string (value), kinds[i].name) == 0)
          self->kind = &kinds[i];
      if (self->kind == NULL && g_value_get_string (value) != NULL)
        g_critical ("No report page \"%s\"", g_value_get_string (value));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_stats_page_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  KsStatsPage *self = KS_STATS_PAGE (object);

  switch (prop_id)
    {
    case PROP_REPORT:
      g_value_set_string (value, self->kind != NULL ? self->kind->name : NULL);
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_stats_page_dispose (GObject *object)
{
  KsStatsPage *self = (KsStatsPage *)object;

  ks_page_table_clear (&self->table);
  ks_page_dispose_template (GTK_WIDGET (self), KS_TYPE_STATS_PAGE);
  g_clear_pointer (&self->needle, g_free);

  G_OBJECT_CLASS (ks_stats_page_parent_class)->dispose (object);
}

static void
ks_stats_page_class_init (KsStatsPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = ks_stats_page_constructed;
  object_class->dispose = ks_stats_page_dispose;
  object_class->get_property = ks_stats_page_get_property;
  object_class->set_property = ks_stats_page_set_property;
  KS_PAGE_CLASS (klass)->refill = ks_stats_page_refill;

  properties[PROP_REPORT] =
    g_param_spec_string ("report", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT_ONLY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  gtk_widget_class_set_template_from_resource (widget_class, "/org/kinescope/Kinescope/pages/ks-stats-page.ui");
  gtk_widget_class_bind_template_child (widget_class, KsStatsPage, summary_label);
  gtk_widget_class_bind_template_child (widget_class, KsStatsPage, search_entry);
  gtk_widget_class_bind_template_child (widget_class, KsStatsPage, view);
  gtk_widget_class_bind_template_callback (widget_class, search_changed_cb);
  gtk_widget_class_bind_template_callback (widget_class, activate_cb);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
}

static void
ks_stats_page_init (KsStatsPage *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->track = KS_NO_INDEX;
  ks_page_table_init (&self->table, self->view, filter_row, self);
}

guint32
ks_stats_page_get_track (KsStatsPage *self)
{
  g_return_val_if_fail (KS_IS_STATS_PAGE (self), KS_NO_INDEX);

  return self->track;
}

GtkWidget *
ks_stats_page_new (const char *report)
{
  return g_object_new (KS_TYPE_STATS_PAGE, "report", report, NULL);
}
