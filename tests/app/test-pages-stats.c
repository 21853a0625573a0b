/* test-pages-stats.c: the Tensor Cores, Queues, Copies, Sequences,
 * Annotations and Profiler Ranges pages, checked against the trace itself
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <string.h>

#include "ks-format.h"
#include "ks-test-gtk.h"
#include "ks-trace-loader.h"
#include "pages/ks-row-item.h"
#include "pages/ks-stats-page.h"

/* computed from the JSON with python3 (as in test-pages-tables.c) */
#define LB_TOP_OPERATOR "autograd::engine::evaluate_function: ConvolutionBackward0"

#define WAIT_FOR(cond) KS_TEST_WAIT_FOR (cond, 10000)

typedef KsTestPageEvents Events;

typedef struct
{
  KsTrace    *trace;
  KsAnalysis *analysis;
  GtkWidget  *window;
  GtkWidget  *page;
  GtkWidget  *view;
  GListModel *model;
  Events      ev;
} Fixture;

static KsTrace *
load_file (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KsTrace *trace = ks_trace_load (file, NULL, NULL, &error);

  g_assert_no_error (error);
  return trace;
}

/* The page of @report over @trace (taken), shown in a window. */
static void
fixture_open (Fixture    *f,
              KsTrace    *trace,
              const char *report)
{
  memset (f, 0, sizeof *f);
  f->trace = trace;
  f->analysis = ks_analysis_compute (f->trace, NULL, NULL, NULL, NULL);
  f->page = ks_stats_page_new (report);
  g_signal_connect (f->page, "navigate", G_CALLBACK (ks_test_page_navigate_cb), &f->ev);
  g_signal_connect (f->page, "highlight", G_CALLBACK (ks_test_page_highlight_cb), &f->ev);
  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), 700, 700);
  gtk_window_set_child (GTK_WINDOW (f->window), f->page);
  gtk_window_present (GTK_WINDOW (f->window));
  ks_page_set_analysis (KS_PAGE (f->page), f->trace, f->analysis);
  gtk_test_widget_wait_for_draw (f->window);
  f->view = ks_test_find_descendant (f->page, GTK_TYPE_COLUMN_VIEW, NULL);
  f->model = G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (f->view)));
}

static void
fixture_open_lb (Fixture    *f,
                 const char *report)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "loader_bound.pt.trace.json.gz", NULL);

  fixture_open (f, load_file (path), report);
}

static void
fixture_close (Fixture *f)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
  g_clear_object (&f->analysis);
  g_clear_object (&f->trace);
}

/* The record index of the row shown at @position. */
static guint
index_at (Fixture *f,
          guint    position)
{
  g_autoptr(KsRowItem) item = g_list_model_get_item (f->model, position);

  g_assert_nonnull (item);
  return ks_row_item_get_index (item);
}

static const char *
summary_text (Fixture *f)
{
  GtkWidget *label = ks_test_find_descendant (f->page, GTK_TYPE_LABEL, NULL);

  g_assert_true (gtk_widget_get_visible (label));
  return gtk_label_get_text (GTK_LABEL (label));
}

static guint32
stream_7 (KsTrace *trace)
{
  for (guint32 t = 0; t < trace->n_tracks; t++)
    if (trace->tracks[t].kind == KS_TRACK_STREAM && trace->tracks[t].stream == 7)
      return t;
  g_assert_not_reached ();
}

static void
test_tensor_cores (void)
{
  Fixture f;
  const KsOperatorStats *ops;
  const KsTrack *stream, *track;
  guint n_ops, n_kernels = 0, top;
  GtkWidget *entry;

  fixture_open_lb (&f, "tensor-cores");
  ops = ks_analysis_get_operators (f.analysis, KS_OPERATOR_BY_NAME, &n_ops);
  g_assert_cmpuint (g_list_model_get_n_items (f.model), ==, n_ops);

  /* 176 kernels on stream 7, 12 of them using tensor cores (by the
   * plugin's name rules: the cudnn xmma gemms). */
  stream = &f.trace->tracks[stream_7 (f.trace)];
  for (guint32 s = 0; s < stream->n_slices; s++)
    n_kernels += stream->slice_kind[s] == KS_SLICE_KERNEL;
  g_assert_cmpuint (n_kernels, ==, 176);
  {
    g_autofree char *prefix = g_strdup_printf ("Tensor-core kernels: 12 of %u calls", n_kernels);

    g_assert_true (g_str_has_prefix (summary_text (&f), prefix));
  }

  /* Most GPU time first: activating it marks the operator and shows its
   * longest call, as the Operators page does. */
  top = index_at (&f, 0);
  g_assert_cmpstr (ks_trace_string (f.trace, ops[top].name), ==, LB_TOP_OPERATOR);
  g_signal_emit_by_name (f.view, "activate", 0u);
  g_assert_cmpstr (ks_trace_string (f.trace, f.ev.highlighted), ==, LB_TOP_OPERATOR);
  track = &f.trace->tracks[ops[top].longest_track];
  g_assert_cmpint (f.ev.start, ==, track->start[ops[top].longest_slice]);
  g_assert_cmpint (f.ev.end, ==, track->end[ops[top].longest_slice]);

  /* Filtering by operator name */
  entry = ks_test_find_descendant (f.page, GTK_TYPE_SEARCH_ENTRY, NULL);
  g_assert_true (gtk_widget_get_visible (entry));
  gtk_editable_set_text (GTK_EDITABLE (entry), "convolution");
  WAIT_FOR (g_list_model_get_n_items (f.model) < n_ops);
  g_assert_cmpuint (g_list_model_get_n_items (f.model), >, 0);
  for (guint i = 0; i < g_list_model_get_n_items (f.model); i++)
    g_assert_nonnull (g_strrstr (ks_trace_string (f.trace, ops[index_at (&f, i)].name), "onvolution"));
  fixture_close (&f);
}

static void
test_queue (void)
{
  Fixture f;
  const KsQueueStats *q;
  const KsTrack *stream;
  g_autofree gint64 *ups = NULL;
  g_autofree gint64 *downs = NULL;
  guint n = 0, len = 0, max = 0;
  gint64 max_at = -1;

  fixture_open_lb (&f, "queue");
  g_assert_cmpuint (g_list_model_get_n_items (f.model), ==, 1);
  q = &ks_analysis_get_queues (f.analysis, NULL)[index_at (&f, 0)];
  g_assert_cmpint (q->stream, ==, 7);
  g_assert_cmpstr (summary_text (&f), ==, ks_metric_get_definition (KS_METRIC_QUEUE_LENGTH));
  /* a table of streams has nothing to search */
  g_assert_false (gtk_widget_get_visible (ks_test_find_descendant (f.page, GTK_TYPE_SEARCH_ENTRY, NULL)));

  /* The queue counted here: +1 at each launch call's start, -1 at the
   * operation's end, ends first. */
  stream = &f.trace->tracks[stream_7 (f.trace)];
  ups = g_new (gint64, f.trace->n_flows);
  downs = g_new (gint64, f.trace->n_flows);
  for (guint32 i = 0; i < f.trace->n_flows; i++)
    {
      const KsFlow *flow = &f.trace->flows[i];

      if (flow->kind != KS_FLOW_LAUNCH || &f.trace->tracks[flow->to_track] != stream)
        continue;
      ups[n] = f.trace->tracks[flow->from_track].start[flow->from_slice];
      downs[n] = MAX (ups[n], stream->end[flow->to_slice]);
      n++;
    }
  g_assert_cmpuint (n, ==, 216);
  for (guint i = 0; i < n; i++)
    {
      len = 0;
      for (guint k = 0; k < n; k++)
        len += ups[k] <= ups[i] && downs[k] > ups[i];
      if (len > max || (len == max && ups[i] < max_at))
        {
          max = len;
          max_at = ups[i];
        }
    }
  g_assert_cmpuint (max, ==, 9);
  g_assert_cmpuint (q->n_ops, ==, n);
  g_assert_cmpuint (q->max, ==, max);
  g_assert_nonnull (ks_test_find_label (f.page, "216"));

  /* Activating the stream shows where its queue was longest, and its row. */
  g_signal_emit_by_name (f.view, "activate", 0u);
  g_assert_cmpuint (ks_stats_page_get_track (KS_STATS_PAGE (f.page)), ==, stream_7 (f.trace));
  g_assert_cmpuint (f.ev.n_navigate, ==, 1);
  g_assert_cmpint (f.ev.start, <=, max_at);
  g_assert_cmpint (f.ev.end, >, max_at);
  g_assert_cmpint (f.ev.end - f.ev.start, <=, (q->end - q->start) / KS_QUEUE_N_BUCKETS + 1);
  fixture_close (&f);
}

static void
test_copies (void)
{
  Fixture f;
  const KsTrack *stream;
  const KsCopyRate *copies;
  guint64 bytes = 0, largest = 0;
  guint n = 0, top;
  g_autofree char *total = NULL;
  g_autofree char *prefix = NULL;
  g_autofree char *gbps = NULL;
  GtkWidget *entry;

  fixture_open_lb (&f, "memcpy-bandwidth");
  stream = &f.trace->tracks[stream_7 (f.trace)];
  for (guint32 s = 0; s < stream->n_slices; s++)
    if (stream->slice_kind[s] == KS_SLICE_MEMCPY)
      {
        n++;
        bytes += stream->gpu[s].copy.bytes;
        largest = MAX (largest, stream->gpu[s].copy.bytes);
      }
  g_assert_cmpuint (n, ==, 8);
  g_assert_cmpuint (g_list_model_get_n_items (f.model), ==, n);
  total = ks_format_bytes (bytes);
  prefix = g_strdup_printf ("GPU 0 HtoD: 8 copies, %s in ", total);
  g_assert_true (g_str_has_prefix (summary_text (&f), prefix));

  /* Largest first; activating it shows that copy on the timeline. */
  copies = ks_analysis_get_copies (f.analysis, NULL);
  top = index_at (&f, 0);
  g_assert_cmpuint (copies[top].bytes, ==, largest);
  g_signal_emit_by_name (f.view, "activate", 0u);
  g_assert_cmpuint (copies[top].track, ==, stream_7 (f.trace));
  g_assert_cmpuint (ks_stats_page_get_track (KS_STATS_PAGE (f.page)), ==, copies[top].track);
  g_assert_cmpint (f.ev.start, ==, stream->start[copies[top].slice]);
  g_assert_cmpint (f.ev.end, ==, stream->end[copies[top].slice]);
  g_assert_cmpuint (f.ev.highlighted, ==, stream->name_id[copies[top].slice]);
  /* its bandwidth, bytes over duration, in its row */
  gbps = g_strdup_printf ("%.2f", (double)largest / (stream->end[copies[top].slice] - stream->start[copies[top].slice]));
  g_assert_nonnull (ks_test_find_label (f.page, gbps));

  entry = ks_test_find_descendant (f.page, GTK_TYPE_SEARCH_ENTRY, NULL);
  gtk_editable_set_text (GTK_EDITABLE (entry), "DtoH");
  WAIT_FOR (g_list_model_get_n_items (f.model) == 0);
  gtk_editable_set_text (GTK_EDITABLE (entry), "htod");
  WAIT_FOR (g_list_model_get_n_items (f.model) == n);
  fixture_close (&f);
}

static void
test_sequences (void)
{
  Fixture f;
  const KsKernelSequence *seqs, *top;
  const KsTrack *stream;
  guint32 window[KS_SEQUENCE_LENGTH];
  guint n_seqs, n = 0, count = 0;
  gint64 first = G_MAXINT64, last = G_MININT64, total = 0;

  fixture_open_lb (&f, "kernel-sequences");
  seqs = ks_analysis_get_kernel_sequences (f.analysis, &n_seqs);
  g_assert_cmpuint (n_seqs, >, 0);
  g_assert_cmpuint (g_list_model_get_n_items (f.model), ==, n_seqs);
  top = &seqs[index_at (&f, 0)];
  g_assert_cmpuint (top->count, ==, 4);

  /* Its runs found here: every window of 4 consecutive kernels of the
   * stream with its names. */
  stream = &f.trace->tracks[stream_7 (f.trace)];
  for (guint32 s = 0; s < stream->n_slices; s++)
    {
      gboolean same = TRUE;

      if (stream->slice_kind[s] != KS_SLICE_KERNEL)
        continue;
      if (n == KS_SEQUENCE_LENGTH)
        memmove (window, window + 1, sizeof (guint32) * (KS_SEQUENCE_LENGTH - 1));
      else
        n++;
      window[n - 1] = s;
      if (n < KS_SEQUENCE_LENGTH)
        continue;
      for (guint k = 0; k < KS_SEQUENCE_LENGTH; k++)
        same &= stream->name_id[window[k]] == top->names[k];
      if (!same)
        continue;
      count++;
      first = MIN (first, stream->start[window[0]]);
      last = MAX (last, stream->end[window[KS_SEQUENCE_LENGTH - 1]]);
      for (guint k = 0; k < KS_SEQUENCE_LENGTH; k++)
        total += stream->end[window[k]] - stream->start[window[k]];
    }
  g_assert_cmpuint (count, ==, top->count);
  g_assert_cmpint (total, ==, top->total_ns);

  /* Activating it shows its runs, from the first to the last. */
  g_signal_emit_by_name (f.view, "activate", 0u);
  g_assert_cmpuint (f.ev.n_navigate, ==, 1);
  g_assert_cmpint (f.ev.start, ==, first);
  g_assert_cmpint (f.ev.end, ==, last);
  g_assert_cmpuint (ks_stats_page_get_track (KS_STATS_PAGE (f.page)), ==, stream_7 (f.trace));
  g_assert_true (g_str_has_prefix (summary_text (&f), "Runs of 4 consecutive kernels"));
  fixture_close (&f);
}

static void
test_annotations (void)
{
  Fixture f;
  g_autoptr(GHashTable) names = g_hash_table_new (NULL, NULL);
  guint32 adam = 0;
  guint adam_count = 0;
  gint64 first = G_MAXINT64, last = G_MININT64;
  GtkWidget *entry;

  fixture_open_lb (&f, "gpu-annotations");
  for (guint32 t = 0; t < f.trace->n_tracks; t++)
    {
      const KsTrack *track = &f.trace->tracks[t];

      if (track->kind != KS_TRACK_GPU_ANNOTATION)
        continue;
      g_assert_cmpint (track->device, ==, 0);
      for (guint32 s = 0; s < track->n_slices; s++)
        {
          g_hash_table_add (names, GUINT_TO_POINTER (track->name_id[s]));
          if (g_str_equal (ks_trace_string (f.trace, track->name_id[s]), "Optimizer.step#Adam.step"))
            {
              adam = track->name_id[s];
              adam_count++;
              first = MIN (first, track->start[s]);
              last = MAX (last, track->end[s]);
            }
        }
    }
  /* 4 steps and the optimizer's step */
  g_assert_cmpuint (g_hash_table_size (names), ==, 5);
  g_assert_cmpuint (g_list_model_get_n_items (f.model), ==, 5);
  g_assert_cmpuint (adam_count, ==, 4);

  entry = ks_test_find_descendant (f.page, GTK_TYPE_SEARCH_ENTRY, NULL);
  gtk_editable_set_text (GTK_EDITABLE (entry), "adam");
  WAIT_FOR (g_list_model_get_n_items (f.model) == 1);
  g_signal_emit_by_name (f.view, "activate", 0u);
  g_assert_cmpuint (ks_stats_page_get_track (KS_STATS_PAGE (f.page)), ==, KS_NO_INDEX);
  g_assert_cmpuint (f.ev.highlighted, ==, adam);
  g_assert_cmpint (f.ev.start, ==, first);
  g_assert_cmpint (f.ev.end, ==, last);
  fixture_close (&f);
}

/* Two CUPTI range-profiler ranges, each the kernel of one launch inside an
 * operator (written here): a row per numeric counter, the longest range
 * first; a row shows its range and highlights its operator. */
static void
test_profiler_ranges (void)
{
  const char *json =
    "{\"schemaVersion\":1,\"traceEvents\":["
    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"tid\":0,\"args\":{\"labels\":\"GPU 0\"}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":50,\"tid\":50,\"ts\":5,\"dur\":20},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":50,\"tid\":50,\"ts\":10,\"dur\":5,"
    "\"args\":{\"correlation\":1}},"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":50,\"tid\":50,\"ts\":30,\"dur\":20},"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":50,\"tid\":50,\"ts\":35,\"dur\":5,"
    "\"args\":{\"correlation\":2}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_profiler_range\",\"name\":\"gemm_a\",\"pid\":0,\"tid\":0,\"ts\":100,\"dur\":50,"
    "\"args\":{\"sm__inst_executed_pipe_tensor.sum\":4096,\"dram__bytes_read.sum\":1500}},"
    "{\"ph\":\"X\",\"cat\":\"cuda_profiler_range\",\"name\":\"add_b\",\"pid\":0,\"tid\":0,\"ts\":160,\"dur\":10,"
    "\"args\":{\"dram__bytes_read.sum\":12,\"note\":\"text\"}}"
    "]}";
  g_autofree char *dir = g_dir_make_tmp ("ks-stats-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "ranges.json", NULL);
  gint64 start = -1, end = -1;
  guint32 mm = 0;
  GtkWidget *entry;
  Fixture f;

  g_assert_true (g_file_set_contents (path, json, -1, NULL));
  fixture_open (&f, load_file (path), "profiler-ranges");
  for (guint32 t = 0; t < f.trace->n_tracks; t++)
    for (guint32 s = 0; s < f.trace->tracks[t].n_slices; s++)
      {
        const char *name = ks_trace_string (f.trace, f.trace->tracks[t].name_id[s]);

        if (g_str_equal (name, "gemm_a"))
          {
            start = f.trace->tracks[t].start[s];
            end = f.trace->tracks[t].end[s];
          }
        else if (g_str_equal (name, "aten::mm"))
          mm = f.trace->tracks[t].name_id[s];
      }
  g_assert_cmpint (end - start, ==, 50000);
  g_assert_cmpuint (mm, !=, 0);

  /* three numeric counters; the text one is no counter */
  g_assert_cmpuint (g_list_model_get_n_items (f.model), ==, 3);
  g_assert_nonnull (strstr (summary_text (&f), "2 range-profiler ranges on 1 GPU"));
  g_signal_emit_by_name (f.view, "activate", 0u);
  g_assert_cmpint (f.ev.start, ==, start);
  g_assert_cmpint (f.ev.end, ==, end);
  g_assert_cmpuint (f.ev.highlighted, ==, mm);

  entry = ks_test_find_descendant (f.page, GTK_TYPE_SEARCH_ENTRY, NULL);
  gtk_editable_set_text (GTK_EDITABLE (entry), "dram");
  WAIT_FOR (g_list_model_get_n_items (f.model) == 2);
  fixture_close (&f);
  g_unlink (path);
  g_rmdir (dir);
}

/* A trace of CPU operators only, written here: every page says why it
 * is empty, and what to record. */
static void
test_empty (void)
{
  static const char *const reports[] = {
    "tensor-cores", "queue", "memcpy-bandwidth", "kernel-sequences", "gpu-annotations", "profiler-ranges", "steps",
  };
  static const char *const titles[] = {
    "No GPU Kernels", "No Launched GPU Work", "No Memory Copies", "No Repeated Kernel Sequences", "No GPU Annotations",
    "No Range-Profiler Ranges", "No Steps",
  };
  const char *json =
    "{\"traceEvents\": ["
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 500},"
    "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::add\", \"pid\": 1, \"tid\": 1, \"ts\": 600, \"dur\": 100}"
    "]}";
  g_autofree char *dir = g_dir_make_tmp ("ks-stats-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "cpu.json", NULL);

  g_assert_true (g_file_set_contents (path, json, -1, NULL));
  for (guint i = 0; i < G_N_ELEMENTS (reports); i++)
    {
      Fixture f;
      GtkWidget *status;

      fixture_open (&f, load_file (path), reports[i]);
      status = ks_test_find_descendant (f.page, ADW_TYPE_STATUS_PAGE, NULL);
      g_assert_nonnull (status);
      g_assert_true (gtk_widget_get_visible (status));
      g_assert_cmpstr (adw_status_page_get_title (ADW_STATUS_PAGE (status)), ==, titles[i]);
      g_assert_nonnull (adw_status_page_get_description (ADW_STATUS_PAGE (status)));
      /* the table is hidden, not covered */
      g_assert_false (gtk_widget_get_visible (gtk_widget_get_first_child (f.page)));
      fixture_close (&f);
    }
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;

  g_test_add_func ("/pages-stats/tensor-cores", test_tensor_cores);
  g_test_add_func ("/pages-stats/queue", test_queue);
  g_test_add_func ("/pages-stats/copies", test_copies);
  g_test_add_func ("/pages-stats/sequences", test_sequences);
  g_test_add_func ("/pages-stats/annotations", test_annotations);
  g_test_add_func ("/pages-stats/profiler-ranges", test_profiler_ranges);
  g_test_add_func ("/pages-stats/empty", test_empty);

  return g_test_run ();
}
