/* test-accelerators.c: Kineto's other device activities: Meta MTIA work
 * and runtime calls, and CUPTI range-profiler measurements
 *
 * The corpus numbers are computed here from the files themselves with
 * yajl (counts by category and name, durations µs × 1000 rounded, the
 * union of intervals), independently of the reader.
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <math.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "ks-analysis.h"
#include "ks-json-reader.h"
#include "ks-kscope-writer.h"
#include "ks-report.h"
#include "ks-trace-loader.h"

static KsTrace *
load_text (const char *json)
{
  g_autoptr(GInputStream) stream = g_memory_input_stream_new_from_data (g_strdup (json), strlen (json), g_free);
  g_autoptr(GError) error = NULL;
  KsTrace *trace = ks_json_reader_load_stream (stream, "inline.json", strlen (json), NULL, NULL, &error);

  g_assert_no_error (error);
  return trace;
}

/* A corpus file, or NULL (the test skipped) when the corpus is absent. */
static char *
corpus_file (const char *name)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  g_autofree char *path = shared ? g_build_filename (shared, "corpus", name, NULL) : NULL;

  if (path == NULL || !g_file_test (path, G_FILE_TEST_EXISTS))
    {
      g_test_skip_printf ("the shared corpus file %s is absent (KS_SHARED_DIR/corpus)", name);
      return NULL;
    }
  return g_steal_pointer (&path);
}

static KsTrace *
load_path (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KsTrace *trace = ks_trace_load (file, NULL, NULL, &error);

  g_assert_no_error (error);
  return trace;
}

static const char *member_str (yajl_val    v,
                               const char *key);

/* The events of category @cat of a gzipped JSON object file, parsed by
 * yajl, in file order; they live as long as *@root. */
static GPtrArray *
events_of (const char *path,
           const char *cat,
           yajl_val   *root)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GInputStream) raw = G_INPUT_STREAM (g_file_read (file, NULL, NULL));
  g_autoptr(GConverter) gz = G_CONVERTER (g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP));
  g_autoptr(GInputStream) in = g_converter_input_stream_new (raw, gz);
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  const char *path_events[] = { "traceEvents", NULL };
  GPtrArray *found = g_ptr_array_new ();
  char errbuf[256];
  yajl_val events;

  g_assert_cmpint (g_output_stream_splice (out, in, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, NULL), >, 0);
  {
    g_autofree char *text = g_strndup (g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out)),
                                       g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out)));

    *root = yajl_tree_parse (text, errbuf, sizeof errbuf);
  }
  g_assert_nonnull (*root);
  events = yajl_tree_get (*root, path_events, yajl_t_array);
  g_assert_nonnull (events);
  for (gsize i = 0; i < YAJL_GET_ARRAY (events)->len; i++)
    if (g_strcmp0 (member_str (YAJL_GET_ARRAY (events)->values[i], "cat"), cat) == 0)
      g_ptr_array_add (found, YAJL_GET_ARRAY (events)->values[i]);
  return found;
}

static yajl_val
member (yajl_val    v,
        const char *key,
        yajl_type   type)
{
  const char *path[] = { key, NULL };

  return yajl_tree_get (v, path, type);
}

static const char *
member_str (yajl_val    v,
            const char *key)
{
  yajl_val m = member (v, key, yajl_t_string);

  return m ? YAJL_GET_STRING (m) : NULL;
}

static double
member_num (yajl_val    v,
            const char *key)
{
  yajl_val m = member (v, key, yajl_t_number);

  return m ? YAJL_GET_DOUBLE (m) : NAN;
}

static gint64
us_to_ns (double us)
{
  return (gint64)llround (us * 1000);
}

/* Intervals as gint64 pairs (start, end). */
static int
compare_starts (gconstpointer a,
                gconstpointer b)
{
  const gint64 *x = a, *y = b;

  return (x[0] > y[0]) - (x[0] < y[0]);
}

static gint64
union_ns (GArray *pairs)
{
  gint64 total = 0, s = 0, e = G_MININT64;

  g_array_sort (pairs, compare_starts);
  for (guint i = 0; i < pairs->len; i++)
    {
      const gint64 *p = (const gint64 *)pairs->data + 2 * i;

      if (p[0] > e)
        {
          if (e > s)
            total += e - s;
          s = p[0];
          e = p[1];
        }
      else if (p[1] > e)
        e = p[1];
    }
  if (e > s)
    total += e - s;
  return total;
}

/* Slices of @kind over every stream track of @device, and their durations. */
static guint
count_on_device (KsTrace     *trace,
                 gint32       device,
                 KsSliceKind  kind,
                 gint64      *total_ns)
{
  guint n = 0;

  *total_ns = 0;
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind != KS_TRACK_STREAM || track->device != device)
        continue;
      for (guint32 s = 0; s < track->n_slices; s++)
        if (track->slice_kind[s] == kind)
          {
            n++;
            *total_ns += track->end[s] - track->start[s];
          }
    }
  return n;
}

static const KsTrack *
stream_track (KsTrace *trace,
              gint32   device,
              gint64   stream)
{
  for (guint32 t = 0; t < trace->n_tracks; t++)
    if (trace->tracks[t].kind == KS_TRACK_STREAM && trace->tracks[t].device == device &&
        trace->tracks[t].stream == stream)
      return &trace->tracks[t];
  return NULL;
}

/* MTIA */

static const char mtia_trace[] =
  "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":17,\"name\":\"ARTEMIS\"}],\"traceEvents\":["
  "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":17,\"tid\":0,\"args\":{\"name\":\"MTIA 17\"}},"
  "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":865,\"tid\":1828,\"ts\":100,\"dur\":50},"
  "{\"ph\":\"X\",\"cat\":\"mtia_runtime\",\"name\":\"runFunction - job_prep_and_submit_for_execution\","
  "\"pid\":865,\"tid\":1828,\"ts\":110,\"dur\":5,\"args\":{\"correlation\":7,\"device\":17,\"stream_id\":101}},"
  "{\"ph\":\"X\",\"cat\":\"mtia_runtime\",\"name\":\"enqueueCommand memcpyHtoDAsync\","
  "\"pid\":865,\"tid\":1828,\"ts\":120,\"dur\":2,\"args\":{\"correlation\":8,\"device\":17,\"stream_id\":101}},"
  "{\"ph\":\"X\",\"cat\":\"mtia_ccp_events\",\"name\":\"remote\",\"pid\":17,\"tid\":3536,\"ts\":200,\"dur\":40,"
  "\"args\":{\"correlation\":7,\"stream\":101,\"column\":\"0\"}},"
  "{\"ph\":\"X\",\"name\":\"dma_request\",\"pid\":17,\"tid\":3536,\"ts\":250,\"dur\":10,\"cat\":\"mtia_ccp_events\","
  "\"args\":{\"correlation\":8,\"stream\":101,\"direction\":\"HOST_TO_DEVICE\",\"size\":1024}},"
  "{\"ph\":\"X\",\"cat\":\"mtia_ccp_events\",\"name\":\"dma_request\",\"pid\":17,\"tid\":3536,\"ts\":300,\"dur\":6,"
  "\"args\":{\"stream\":101,\"direction\":\"DEVICE_TO_HOST\",\"size\":1024}},"
  "{\"ph\":\"X\",\"cat\":\"mtia_ccp_events\",\"name\":\"event_wait\",\"pid\":17,\"tid\":3570,\"ts\":200,\"dur\":100,"
  "\"args\":{\"stream\":102,\"wait_on_stream\":101}},"
  "{\"ph\":\"X\",\"cat\":\"mtia_ccp_events\",\"name\":\"pe_exe\",\"pid\":17,\"tid\":3570,\"ts\":320,\"dur\":30,"
  "\"args\":{\"stream\":102}}"
  "]}";

static void
test_mtia_small (void)
{
  g_autoptr(KsTrace) trace = load_text (mtia_trace);
  g_autoptr(KsAnalysis) a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  const KsTrack *s101 = stream_track (trace, 17, 101);
  const KsTrack *s102 = stream_track (trace, 17, 102);
  const KsGpuSummary *gpu = ks_analysis_get_gpu (a, 17);
  const KsKernelStats *kernels;
  KsTraceCounts c;
  guint n;

  ks_trace_get_counts (trace, &c);
  g_assert_cmpuint (c.by_kind[KS_SLICE_KERNEL], ==, 2);
  g_assert_cmpuint (c.by_kind[KS_SLICE_MEMCPY], ==, 2);
  g_assert_cmpuint (c.by_kind[KS_SLICE_SYNC], ==, 1);
  g_assert_cmpuint (c.by_kind[KS_SLICE_CUDA_RUNTIME], ==, 2);

  /* the device's streams, as "stream" in args says */
  g_assert_nonnull (s101);
  g_assert_nonnull (s102);
  g_assert_cmpuint (s101->n_slices, ==, 3);
  g_assert_cmpint (s101->slice_kind[0], ==, KS_SLICE_KERNEL);
  g_assert_cmpstr (ks_trace_string (trace, s101->name_id[0]), ==, "remote");
  g_assert_cmpuint (s101->correlation[0], ==, 7);
  g_assert_cmpint (s101->slice_kind[1], ==, KS_SLICE_MEMCPY);
  g_assert_cmpuint (s101->gpu[1].copy.copy_kind, ==, KS_COPY_HTOD);
  g_assert_cmpint (s101->slice_kind[2], ==, KS_SLICE_MEMCPY);
  g_assert_cmpuint (s101->gpu[2].copy.copy_kind, ==, KS_COPY_DTOH);
  /* the unit of "size" is not written down: no bytes are made up */
  g_assert_cmpuint (s101->gpu[1].copy.bytes, ==, 0);
  g_assert_cmpuint (s102->n_slices, ==, 2);
  g_assert_cmpint (s102->slice_kind[0], ==, KS_SLICE_SYNC);
  g_assert_cmpint (s102->slice_kind[1], ==, KS_SLICE_KERNEL);

  /* GPU work: kernels 40 + 30 µs, busy their union; the wait is not work */
  g_assert_nonnull (gpu);
  g_assert_cmpuint (gpu->n_kernels, ==, 2);
  g_assert_cmpint (gpu->kernel_time_ns, ==, 70000);
  g_assert_cmpuint (gpu->n_memcpy, ==, 2);
  g_assert_cmpint (gpu->memcpy_time_ns, ==, 16000);
  g_assert_cmpint (gpu->busy_ns, ==, 70000);

  /* the runtime call that launched "remote", by correlation */
  kernels = ks_analysis_get_kernels (a, &n);
  g_assert_cmpuint (n, ==, 2);
  for (guint i = 0; i < n; i++)
    {
      const char *name = ks_trace_string (trace, kernels[i].name);

      g_assert_cmpuint (kernels[i].calls, ==, 1);
      g_assert_cmpuint (kernels[i].launched, ==, strcmp (name, "remote") == 0 ? 1 : 0);
      if (strcmp (name, "remote") == 0)
        g_assert_cmpfloat (kernels[i].mean_latency_ns, ==, 200000 - 115000);
    }
}

/* HTA's MTIA inference trace: every mtia_ccp_events slice is device work
 * on its stream (args "stream"), dma_request a copy, event_wait a wait;
 * every mtia_runtime slice a runtime call. */
static void
test_mtia_corpus (void)
{
  g_autofree char *path = corpus_file ("hta/mtia_inference_trace/mtia_inference_rank_0.json.gz");
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  g_autoptr(GArray) kernel_spans = g_array_new (FALSE, FALSE, 2 * sizeof (gint64));
  g_autoptr(GHashTable) streams = g_hash_table_new (g_direct_hash, g_direct_equal);
  guint n_kernel = 0, n_dma = 0, n_wait = 0, n_runtime, n_linked = 0;
  gint64 kernel_ns = 0, dma_ns = 0, wait_ns = 0, got_ns;
  g_autoptr(GHashTable) runtime_corr = g_hash_table_new (g_direct_hash, g_direct_equal);
  g_autoptr(GPtrArray) runtime = NULL;
  g_autoptr(GPtrArray) device = NULL;
  const char *path_corr[] = { "args", "correlation", NULL };
  const char *path_stream[] = { "args", "stream", NULL };
  const KsGpuSummary *gpu;
  yajl_val root;
  KsTraceCounts c;

  if (path == NULL)
    return;

  runtime = events_of (path, "mtia_runtime", &root);
  for (guint i = 0; i < runtime->len; i++)
    {
      yajl_val corr = yajl_tree_get (runtime->pdata[i], path_corr, yajl_t_number);

      if (corr != NULL)
        g_hash_table_add (runtime_corr, GINT_TO_POINTER ((int)YAJL_GET_INTEGER (corr)));
    }
  n_runtime = runtime->len;
  yajl_tree_free (root);

  device = events_of (path, "mtia_ccp_events", &root);
  for (guint i = 0; i < device->len; i++)
    {
      yajl_val e = device->pdata[i];
      const char *name = member_str (e, "name");
      yajl_val corr = yajl_tree_get (e, path_corr, yajl_t_number);
      gint64 dur = us_to_ns (member_num (e, "dur"));

      g_assert_cmpfloat (member_num (e, "pid"), ==, 17);
      g_hash_table_add (streams, GINT_TO_POINTER ((int)YAJL_GET_INTEGER (yajl_tree_get (e, path_stream,
                                                                                          yajl_t_number))));
      if (g_str_has_prefix (name, "dma"))
        n_dma++, dma_ns += dur;
      else if (strcmp (name, "event_wait") == 0)
        n_wait++, wait_ns += dur;
      else
        {
          gint64 span[2] = { us_to_ns (member_num (e, "ts")), 0 };

          span[1] = span[0] + dur;
          g_array_append_val (kernel_spans, span);
          n_kernel++;
          kernel_ns += dur;
          if (corr != NULL && g_hash_table_contains (runtime_corr, GINT_TO_POINTER ((int)YAJL_GET_INTEGER (corr))))
            n_linked++;
        }
    }
  yajl_tree_free (root);
  g_test_message ("MTIA: %u kernels (%" G_GINT64_FORMAT " ns), %u DMA, %u waits, %u runtime calls, %u streams",
                  n_kernel, kernel_ns, n_dma, n_wait, n_runtime, g_hash_table_size (streams));
  /* the manifest's category counts */
  g_assert_cmpuint (n_kernel + n_dma + n_wait, ==, 1313);
  g_assert_cmpuint (n_runtime, ==, 823);

  trace = load_path (path);
  ks_trace_get_counts (trace, &c);
  g_assert_cmpuint (c.by_kind[KS_SLICE_CUDA_RUNTIME], ==, n_runtime);
  g_assert_cmpuint (count_on_device (trace, 17, KS_SLICE_KERNEL, &got_ns), ==, n_kernel);
  g_assert_cmpint (got_ns, ==, kernel_ns);
  g_assert_cmpuint (count_on_device (trace, 17, KS_SLICE_MEMCPY, &got_ns), ==, n_dma);
  g_assert_cmpint (got_ns, ==, dma_ns);
  g_assert_cmpuint (count_on_device (trace, 17, KS_SLICE_SYNC, &got_ns), ==, n_wait);
  g_assert_cmpint (got_ns, ==, wait_ns);
  {
    guint n_streams = 0;

    for (guint32 t = 0; t < trace->n_tracks; t++)
      if (trace->tracks[t].kind == KS_TRACK_STREAM && trace->tracks[t].device == 17)
        {
          g_assert_true (g_hash_table_contains (streams, GINT_TO_POINTER ((int)trace->tracks[t].stream)));
          n_streams++;
        }
    g_assert_cmpuint (n_streams, ==, g_hash_table_size (streams));
  }

  a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  gpu = ks_analysis_get_gpu (a, 17);
  g_assert_nonnull (gpu);
  g_assert_cmpstr (ks_trace_string (trace, gpu->name), ==, "ARTEMIS");
  g_assert_cmpuint (gpu->n_kernels, ==, n_kernel);
  g_assert_cmpint (gpu->kernel_time_ns, ==, kernel_ns);
  g_assert_cmpint (gpu->busy_ns, ==, union_ns (kernel_spans));
  g_assert_cmpfloat (gpu->busy_pct, >, 0);
  {
    const KsKernelStats *k;
    guint n;
    guint64 calls = 0, launched = 0;

    k = ks_analysis_get_kernels (a, &n);
    for (guint i = 0; i < n; i++)
      calls += k[i].calls, launched += k[i].launched;
    g_assert_cmpuint (calls, ==, n_kernel);
    g_assert_cmpuint (launched, ==, n_linked);
    g_assert_cmpuint (n_linked, >, 0);
  }
}

/* CUPTI range profiler */

static const char ranges_trace[] =
  "{\"schemaVersion\":1,\"traceEvents\":["
  "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":0,\"tid\":0,\"args\":{\"labels\":\"GPU 0\"}},"
  "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":50,\"tid\":50,\"ts\":10,\"dur\":5,"
  "\"args\":{\"correlation\":1}},"
  "{\"ph\":\"X\",\"cat\":\"cuda_profiler_range\",\"name\":\"gemm_a\",\"pid\":0,\"tid\":0,\"ts\":100,\"dur\":50,"
  "\"args\":{\"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum\":4096,\"dram__bytes_read.sum\":1.5e3}},"
  "{\"ph\":\"X\",\"cat\":\"cuda_profiler_range\",\"name\":\"__missing__\",\"pid\":0,\"tid\":0,\"ts\":150,\"dur\":50,"
  "\"args\":{\"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum\":0,\"note\":\"text\",\"dram__bytes_read.sum\":7}},"
  "{\"ph\":\"X\",\"cat\":\"cuda_profiler_range\",\"name\":\"gemm_b\",\"pid\":1,\"tid\":0,\"ts\":120,\"dur\":10,"
  "\"args\":{\"dram__bytes_read.sum\":12}}"
  "]}";

static const KsTrack *
range_row (KsTrace *trace,
           gint64   pid)
{
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind == KS_TRACK_ASYNC && trace->processes[track->process].pid == pid &&
          strcmp (ks_trace_string (trace, track->name), "cuda_profiler_range") == 0)
        return track;
    }
  return NULL;
}

static void
test_ranges_rows (void)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  g_autoptr(KsTrace) trace = load_text (ranges_trace);
  g_autoptr(KsAnalysis) a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  const KsTrack *gpu0 = range_row (trace, 0);
  const KsTrack *gpu1 = range_row (trace, 1);
  guint n;

  /* a row per device, the counters kept as the slices' args */
  g_assert_nonnull (gpu0);
  g_assert_nonnull (gpu1);
  g_assert_cmpuint (gpu0->n_slices, ==, 2);
  g_assert_cmpuint (gpu1->n_slices, ==, 1);
  g_assert_cmpstr (ks_trace_string (trace, gpu0->name_id[0]), ==, "gemm_a");
  g_assert_cmpint (gpu0->end[0] - gpu0->start[0], ==, 50000);
  g_assert_nonnull (strstr (ks_trace_slice_args (trace, gpu0, 0, args_buf), "\"dram__bytes_read.sum\":1.5e3"));
  g_assert_cmpstr (ks_trace_string (trace, trace->processes[gpu0->process].label), ==, "GPU 0");

  /* measurements, not GPU work: no stream, no kernel, no busy GPU */
  for (guint32 t = 0; t < trace->n_tracks; t++)
    g_assert_cmpint (trace->tracks[t].kind, !=, KS_TRACK_STREAM);
  ks_analysis_get_gpus (a, &n);
  g_assert_cmpuint (n, ==, 0);
}

/* HTA's cupti_profiler trace: 77 ranges on GPU 0, no kernel events. */
static void
test_ranges_corpus_rows (void)
{
  g_autofree char *path = corpus_file ("hta/cupti_profiler/benchmark_result_924719_1679055439_trace.json.gz");
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(GPtrArray) ranges = NULL;
  guint n_ranges;
  gint64 total_ns = 0;
  const KsTrack *row;
  yajl_val root;
  KsTraceCounts c;

  if (path == NULL)
    return;

  ranges = events_of (path, "cuda_profiler_range", &root);
  for (guint i = 0; i < ranges->len; i++)
    {
      g_assert_cmpfloat (member_num (ranges->pdata[i], "pid"), ==, 0);
      total_ns += us_to_ns (member_num (ranges->pdata[i], "dur"));
    }
  n_ranges = ranges->len;
  yajl_tree_free (root);
  g_assert_cmpuint (n_ranges, ==, 77);

  trace = load_path (path);
  row = range_row (trace, 0);
  g_assert_nonnull (row);
  g_assert_cmpuint (row->n_slices, ==, n_ranges);
  {
    gint64 got = 0;

    for (guint32 s = 0; s < row->n_slices; s++)
      got += row->end[s] - row->start[s];
    g_assert_cmpint (got, ==, total_ns);
  }
  ks_trace_get_counts (trace, &c);
  g_assert_cmpuint (c.by_kind[KS_SLICE_KERNEL], ==, 0);
}

/* The report's cell of column @key in output row @row. */
static void
report_value (KsReport      *report,
              const char    *key,
              guint          row,
              KsReportValue *v)
{
  for (guint c = 0; c < report->n_columns; c++)
    if (strcmp (report->columns[c].key, key) == 0)
      {
        memset (v, 0, sizeof *v);
        ks_report_get_value (report, &report->columns[c], row, v);
        return;
      }
  g_assert_not_reached ();
}

static void
assert_row (KsReport   *report,
            guint       row,
            gint64      range,
            gint64      device,
            const char *counter,
            gint64      value,
            const char *name)
{
  KsReportValue v;

  report_value (report, "range", row, &v);
  g_assert_cmpint (v.i, ==, range);
  report_value (report, "device", row, &v);
  g_assert_cmpint (v.i, ==, device);
  report_value (report, "counter", row, &v);
  g_assert_cmpstr (v.s, ==, counter);
  report_value (report, "value", row, &v);
  g_assert_cmpint (v.type, ==, KS_REPORT_VALUE_INT);
  g_assert_cmpint (v.i, ==, value);
  report_value (report, "name", row, &v);
  g_assert_cmpstr (v.s, ==, name);
}

static void
test_ranges_report (void)
{
  g_autoptr(KsTrace) trace = load_text (ranges_trace);
  g_autoptr(KsAnalysis) a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  g_autoptr(KsReport) report = ks_report_new_profiler_counters (trace, a);
  const KsProfilerRanges *ranges = ks_analysis_get_profiler_ranges (a);
  g_autoptr(GString) csv = g_string_new (NULL);
  g_autoptr(KsJsonWriter) json = ks_json_writer_new ();
  KsReportValue v;

  g_assert_cmpuint (ranges->n_ranges, ==, 3);
  g_assert_cmpuint (ranges->n_devices, ==, 2);
  /* one launch call for three ranges: no operators */
  g_assert_cmpuint (ranges->n_launches, ==, 1);
  g_assert_false (ranges->launches_matched);
  /* the numbers of each range's args, ranges in start order; "note" is text */
  g_assert_cmpuint (report->n_rows, ==, 5);
  assert_row (report, 0, 1, 0, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 4096, "gemm_a");
  assert_row (report, 1, 1, 0, "dram__bytes_read.sum", 1500, "gemm_a");
  assert_row (report, 2, 2, 1, "dram__bytes_read.sum", 12, "gemm_b");
  assert_row (report, 3, 3, 0, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 0, "__missing__");
  assert_row (report, 4, 3, 0, "dram__bytes_read.sum", 7, "__missing__");
  report_value (report, "start_ns", 2, &v);
  g_assert_cmpint (v.i, ==, 110000);   /* the trace starts at the launch call, 10 µs */
  report_value (report, "dur_ns", 2, &v);
  g_assert_cmpint (v.i, ==, 10000);

  ks_report_write_csv (report, csv, G_MAXUINT, NULL);
  g_assert_true (g_str_has_prefix (csv->str, "range,device,start_ns,dur_ns,counter,value,name,operator,top_operator\n"
                                             "1,0,90000,50000,smsp__sass_thread_inst_executed_op_ffma_pred_on.sum,4096,gemm_a,,\n"));
  ks_json_begin_object (json, NULL);
  ks_report_write_json (report, json, NULL, 1);
  ks_json_end_object (json);
  g_assert_cmpstr (ks_json_writer_get_text (json), ==, "{\"counters\":[{\"range\":1,\"device\":0,\"start_ns\":90000,\"dur_ns\":50000,"
                                  "\"counter\":\"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum\",\"value\":4096,"
                                  "\"name\":\"gemm_a\",\"operator\":null,\"top_operator\":null}]}");
}

/* HTA's pairing: the i-th range is the kernel of the i-th cudaLaunchKernel. */
static const char launches_trace[] =
  "{\"schemaVersion\":1,\"traceEvents\":["
  "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":5,\"tid\":5,\"ts\":10,\"dur\":30},"
  "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::addmm\",\"pid\":5,\"tid\":5,\"ts\":12,\"dur\":20},"
  "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":5,\"tid\":5,\"ts\":15,\"dur\":5,"
  "\"args\":{\"correlation\":1}},"
  "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernelExC\",\"pid\":5,\"tid\":6,\"ts\":50,\"dur\":5,"
  "\"args\":{\"correlation\":2}},"
  "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":5,\"tid\":5,\"ts\":60,\"dur\":5},"
  "{\"ph\":\"X\",\"cat\":\"cuda_profiler_range\",\"name\":\"r1\",\"pid\":0,\"tid\":0,\"ts\":100,\"dur\":10,"
  "\"args\":{\"c\":1}},"
  "{\"ph\":\"X\",\"cat\":\"cuda_profiler_range\",\"name\":\"r2\",\"pid\":0,\"tid\":0,\"ts\":110,\"dur\":10,"
  "\"args\":{\"c\":2}}"
  "]}";

static void
test_ranges_launches (void)
{
  g_autoptr(KsTrace) trace = load_text (launches_trace);
  g_autoptr(KsAnalysis) a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  const KsProfilerRanges *ranges = ks_analysis_get_profiler_ranges (a);
  const KsProfilerCounter *c;
  guint n;

  g_assert_cmpuint (ranges->n_launches, ==, 2);
  g_assert_true (ranges->launches_matched);
  c = ks_analysis_get_profiler_counters (a, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpstr (ks_trace_string (trace, c[0].operator), ==, "aten::addmm");
  g_assert_cmpstr (ks_trace_string (trace, c[0].top_operator), ==, "aten::linear");
  /* a launch outside any operator */
  g_assert_cmpuint (c[1].operator, ==, 0);
  g_assert_cmpuint (c[1].top_operator, ==, 0);
}

typedef struct
{
  gint64 ts, end;
  double pid, tid;
  const char *name;
} Op;

static int
compare_ops (gconstpointer a,
             gconstpointer b)
{
  const Op *x = a, *y = b;

  return (x->ts > y->ts) - (x->ts < y->ts);
}

/* HTA's cupti_profiler trace has as many cudaLaunchKernel calls as ranges:
 * each range's operators are those around the call of its rank, found
 * here by containment on the call's thread. */
static void
test_ranges_corpus_operators (void)
{
  g_autofree char *path = corpus_file ("hta/cupti_profiler/benchmark_result_924719_1679055439_trace.json.gz");
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  g_autoptr(GPtrArray) runtime = NULL;
  g_autoptr(GPtrArray) cpu_ops = NULL;
  g_autoptr(GArray) launches = g_array_new (FALSE, FALSE, sizeof (Op));
  g_autoptr(GArray) ops = g_array_new (FALSE, FALSE, sizeof (Op));
  g_autoptr(GPtrArray) inner = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GPtrArray) outer = g_ptr_array_new_with_free_func (g_free);
  const KsProfilerCounter *counters;
  guint n, with_operator = 0;

  if (path == NULL)
    return;

  {
    yajl_val root_runtime, root_ops;

    runtime = events_of (path, "cuda_runtime", &root_runtime);
    cpu_ops = events_of (path, "cpu_op", &root_ops);
    for (guint i = 0; i < runtime->len; i++)
      if (g_str_has_prefix (member_str (runtime->pdata[i], "name"), "cudaLaunchKernel"))
        {
          Op o = { us_to_ns (member_num (runtime->pdata[i], "ts")), 0, member_num (runtime->pdata[i], "pid"),
                   member_num (runtime->pdata[i], "tid"), NULL };

          g_array_append_val (launches, o);
        }
    for (guint i = 0; i < cpu_ops->len; i++)
      {
        Op o = { us_to_ns (member_num (cpu_ops->pdata[i], "ts")), 0, member_num (cpu_ops->pdata[i], "pid"),
                 member_num (cpu_ops->pdata[i], "tid"), member_str (cpu_ops->pdata[i], "name") };

        o.end = o.ts + us_to_ns (member_num (cpu_ops->pdata[i], "dur"));
        g_array_append_val (ops, o);
      }
    g_array_sort (launches, compare_ops);
    g_array_sort (ops, compare_ops);
    for (guint i = 0; i < launches->len; i++)
      {
        const Op *l = &g_array_index (launches, Op, i);
        const char *in = NULL, *out = NULL;

        /* ops by start: the first containing the call is the outermost, the last the innermost */
        for (guint k = 0; k < ops->len && g_array_index (ops, Op, k).ts <= l->ts; k++)
          {
            const Op *o = &g_array_index (ops, Op, k);

            if (o->pid == l->pid && o->tid == l->tid && l->ts < o->end)
              {
                if (out == NULL)
                  out = o->name;
                in = o->name;
              }
          }
        g_ptr_array_add (inner, g_strdup (in));
        g_ptr_array_add (outer, g_strdup (out));
      }
    yajl_tree_free (root_runtime);
    yajl_tree_free (root_ops);
  }
  g_assert_cmpuint (launches->len, ==, 77);

  trace = load_path (path);
  a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  g_assert_true (ks_analysis_get_profiler_ranges (a)->launches_matched);
  counters = ks_analysis_get_profiler_counters (a, &n);
  for (guint i = 0; i < n; i++)
    {
      const char *in = inner->pdata[counters[i].range];
      const char *out = outer->pdata[counters[i].range];

      g_assert_cmpstr (counters[i].operator ? ks_trace_string (trace, counters[i].operator) : NULL, ==, in);
      g_assert_cmpstr (counters[i].top_operator ? ks_trace_string (trace, counters[i].top_operator) : NULL, ==, out);
      with_operator += in != NULL;
    }
  g_assert_cmpuint (with_operator, >, 0);
}

/* @sums[@key] += @value, the table owning its keys and values. */
static void
add_to (GHashTable *sums,
        const char *key,
        double      value)
{
  double *sum = g_hash_table_lookup (sums, key);

  if (sum == NULL)
    {
      sum = g_new0 (double, 1);
      g_hash_table_insert (sums, g_strdup (key), sum);
    }
  *sum += value;
}

/* Each counter's total over the 77 ranges of HTA's cupti_profiler trace. */
static void
test_ranges_corpus_counters (void)
{
  g_autofree char *path = corpus_file ("hta/cupti_profiler/benchmark_result_924719_1679055439_trace.json.gz");
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  g_autoptr(GHashTable) sums = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GHashTable) got = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GPtrArray) ranges = NULL;
  const KsProfilerCounter *counters;
  guint n_values = 0, n;
  yajl_val root;
  GHashTableIter iter;
  gpointer key, value;

  if (path == NULL)
    return;

  ranges = events_of (path, "cuda_profiler_range", &root);
  for (guint i = 0; i < ranges->len; i++)
    {
      const char *path_args[] = { "args", NULL };
      yajl_val args = yajl_tree_get (ranges->pdata[i], path_args, yajl_t_object);

      for (gsize k = 0; args != NULL && k < YAJL_GET_OBJECT (args)->len; k++)
        {
          add_to (sums, YAJL_GET_OBJECT (args)->keys[k], YAJL_GET_DOUBLE (YAJL_GET_OBJECT (args)->values[k]));
          n_values++;
        }
    }
  yajl_tree_free (root);
  g_assert_cmpuint (n_values, ==, 77 * 9);
  g_assert_cmpuint (g_hash_table_size (sums), ==, 9);

  trace = load_path (path);
  a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  counters = ks_analysis_get_profiler_counters (a, &n);
  g_assert_cmpuint (n, ==, n_values);
  g_assert_cmpuint (ks_analysis_get_profiler_ranges (a)->n_ranges, ==, 77);
  g_assert_cmpuint (ks_analysis_get_profiler_ranges (a)->n_devices, ==, 1);
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpint (counters[i].device, ==, 0);
      g_assert_cmpuint (counters[i].range, ==, i / 9);
      add_to (got, counters[i].counter, counters[i].value);
    }
  g_hash_table_iter_init (&iter, sums);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      double *sum = g_hash_table_lookup (got, key);

      g_assert_nonnull (sum);
      g_assert_cmpfloat (*sum, ==, *(double *)value);
    }
}

/* Saved as .kscope and opened again, the MTIA work and the ranges with
 * their counters and operators are as they were. */
static void
test_kscope_roundtrip (void)
{
  const char *texts[] = { mtia_trace, launches_trace, ranges_trace };

  for (guint i = 0; i < G_N_ELEMENTS (texts); i++)
    {
      g_autofree char *dir = g_dir_make_tmp ("ks-accel-XXXXXX", NULL);
      g_autofree char *path = g_build_filename (dir, "saved.kscope", NULL);
      g_autoptr(GFile) file = g_file_new_for_path (path);
      g_autoptr(KsTrace) trace = load_text (texts[i]);
      g_autoptr(KsAnalysis) a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
      g_autoptr(KsTrace) again = NULL;
      g_autoptr(KsAnalysis) b = NULL;
      g_autoptr(GError) error = NULL;
      const KsProfilerCounter *ca, *cb;
      const KsGpuSummary *ga, *gb;
      guint na, nb, ma, mb;
      KsTraceCounts ka, kb;

      g_assert_true (ks_kscope_write (trace, file, NULL, NULL, &error));
      g_assert_no_error (error);
      again = load_path (path);
      b = ks_analysis_compute (again, NULL, NULL, NULL, NULL);

      ks_trace_get_counts (trace, &ka);
      ks_trace_get_counts (again, &kb);
      for (guint k = 0; k < KS_N_SLICE_KINDS; k++)
        g_assert_cmpuint (ka.by_kind[k], ==, kb.by_kind[k]);
      ga = ks_analysis_get_gpus (a, &ma);
      gb = ks_analysis_get_gpus (b, &mb);
      g_assert_cmpuint (ma, ==, mb);
      for (guint k = 0; k < ma; k++)
        {
          g_assert_cmpint (ga[k].device, ==, gb[k].device);
          g_assert_cmpint (ga[k].busy_ns, ==, gb[k].busy_ns);
          g_assert_cmpuint (ga[k].n_memcpy, ==, gb[k].n_memcpy);
        }
      ca = ks_analysis_get_profiler_counters (a, &na);
      cb = ks_analysis_get_profiler_counters (b, &nb);
      g_assert_cmpuint (na, ==, nb);
      for (guint k = 0; k < na; k++)
        {
          g_assert_cmpuint (ca[k].range, ==, cb[k].range);
          g_assert_cmpint (ca[k].device, ==, cb[k].device);
          g_assert_cmpstr (ca[k].counter, ==, cb[k].counter);
          g_assert_cmpfloat (ca[k].value, ==, cb[k].value);
          g_assert_cmpstr (ks_trace_string (trace, ca[k].name), ==, ks_trace_string (again, cb[k].name));
          g_assert_cmpstr (ks_trace_string (trace, ca[k].operator), ==, ks_trace_string (again, cb[k].operator));
        }
      g_unlink (path);
      g_rmdir (dir);
    }
}

/* Tensor cores */

static const char tc_trace[] =
  "{\"schemaVersion\":1,\"traceEvents\":["
  "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"my_gemm\",\"pid\":0,\"tid\":7,\"ts\":100,\"dur\":10,\"args\":{\"stream\":7}},"
  "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"volta_h884gemm_64x64\",\"pid\":0,\"tid\":7,\"ts\":120,\"dur\":20,\"args\":{\"stream\":7}},"
  "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"nvjet_sm90_tst_128x128_64x6_2x1_v_bz_NNT\",\"pid\":0,\"tid\":7,\"ts\":150,\"dur\":40,\"args\":{\"stream\":7}},"
  "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"nvjet_sm100_hsh_256x128_64x4_2x1_2cta_v_bz_TNN\",\"pid\":0,\"tid\":7,\"ts\":200,\"dur\":80,\"args\":{\"stream\":7}},"
  "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"sm90_xmma_gemm_e4m3e4m3_e4m3f32_f32_tn_n_tilesize128x128x128_warpgroupsize1x1x1\",\"pid\":0,\"tid\":7,\"ts\":300,\"dur\":160,\"args\":{\"stream\":7}},"
  "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"sm80_xmma_gemm_f32f32_f32f32_f32_nt_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4\",\"pid\":0,\"tid\":7,\"ts\":500,\"dur\":320,\"args\":{\"stream\":7}},"
  "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void cutlass::device_kernel<cutlass3x_sm100_tensorop_s128x128x16gemm_bf16_bf16_f32>\",\"pid\":0,\"tid\":7,\"ts\":900,\"dur\":640,\"args\":{\"stream\":7}},"
  "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void cutlass::Kernel2<cutlass_80_simt_sgemm_64x64_8x5_nn_align1>\",\"pid\":0,\"tid\":7,\"ts\":1600,\"dur\":1280,\"args\":{\"stream\":7}},"
  "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"blackwell_tcgen05_umma_kernel\",\"pid\":0,\"tid\":7,\"ts\":3000,\"dur\":2560,\"args\":{\"stream\":7}},"
  "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"void at::native::vectorized_elementwise_kernel<4>\",\"pid\":0,\"tid\":7,\"ts\":6000,\"dur\":5120,\"args\":{\"stream\":7}},"
  /* a per-kernel range profile: my_gemm ran tensor instructions, the
   * h884 kernel (a name the TensorBoard plugin counts) did not */
  "{\"ph\":\"X\",\"cat\":\"cuda_profiler_range\",\"name\":\"my_gemm\",\"pid\":0,\"tid\":0,\"ts\":20000,\"dur\":10,"
  "\"args\":{\"sm__inst_executed_pipe_tensor.sum\":512}},"
  "{\"ph\":\"X\",\"cat\":\"cuda_profiler_range\",\"name\":\"volta_h884gemm_64x64\",\"pid\":0,\"tid\":0,\"ts\":20100,\"dur\":10,"
  "\"args\":{\"sm__inst_executed_pipe_tensor.sum\":0}}"
  "]}";

static gboolean
kernel_uses_tensor_cores (KsTrace     *trace,
                          KsAnalysis  *a,
                          const char  *name)
{
  const KsKernelStats *kernels;
  guint n;

  kernels = ks_analysis_get_kernels (a, &n);
  for (guint i = 0; i < n; i++)
    if (strcmp (ks_trace_string (trace, kernels[i].name), name) == 0)
      return kernels[i].tensor_cores;
  g_assert_not_reached ();
}

/* What a per-kernel range measured of the tensor pipe decides, over the
 * name: Kineto's kineto__tensor_core_insts is sm__inst_executed_pipe_tensor.sum. */
static void
test_tensor_cores_measured (void)
{
  g_autoptr(KsTrace) trace = load_text (tc_trace);
  g_autoptr(KsAnalysis) a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);

  g_assert_true (kernel_uses_tensor_cores (trace, a, "my_gemm"));
  g_assert_false (kernel_uses_tensor_cores (trace, a, "volta_h884gemm_64x64"));
  /* measured kernels only: the others keep what their names say */
  g_assert_false (kernel_uses_tensor_cores (trace, a, "void at::native::vectorized_elementwise_kernel<4>"));
}

static void
test_tensor_core_rules (void)
{
  g_autoptr(KsTrace) trace = load_text (tc_trace);
  g_autoptr(KsAnalysis) a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  const KsTensorCores *tc = ks_analysis_get_tensor_cores (a);
  static const struct { const char *prefix; gboolean tc; } expect[] = {
    { "my_gemm", TRUE },                /* measured */
    { "volta_h884gemm", FALSE },        /* measured, whatever the name says */
    { "nvjet_sm90", TRUE },
    { "nvjet_sm100", TRUE },
    { "sm90_xmma_gemm_e4m3", TRUE },
    { "sm80_xmma_gemm_f32f32", FALSE }, /* _ffma_: the FMA units */
    { "void cutlass::device_kernel<cutlass3x_sm100_tensorop", TRUE },
    { "void cutlass::Kernel2<cutlass_80_simt", FALSE },
    { "blackwell_tcgen05", TRUE },
    { "void at::native::vectorized", FALSE },
  };
  const KsKernelStats *kernels;
  guint n, seen = 0;

  kernels = ks_analysis_get_kernels (a, &n);
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (expect));
  for (guint i = 0; i < n; i++)
    for (guint k = 0; k < G_N_ELEMENTS (expect); k++)
      if (g_str_has_prefix (ks_trace_string (trace, kernels[i].name), expect[k].prefix))
        {
          g_assert_cmpint (kernels[i].tensor_cores, ==, expect[k].tc);
          seen++;
        }
  g_assert_cmpuint (seen, ==, n);
  /* 10 + 40 + 80 + 160 + 640 + 2560 µs of 10230 */
  g_assert_cmpuint (tc->n_tc_kernels, ==, 6);
  g_assert_cmpint (tc->tc_kernel_ns, ==, 3490000);
  g_assert_cmpint (tc->kernel_ns, ==, 10230000);
}

/* The recorded GPT fixture on an H200: its tensor-core kernels are the
 * cuBLASLt nvjet GEMMs and cuDNN's WGMMA attention, which the name rules
 * of the TensorBoard plugin miss. */
static void
test_tensor_cores_hopper (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "gpt_3steps.pt.trace.json.gz", NULL);
  g_autoptr(KsTrace) trace = load_path (path);
  g_autoptr(KsAnalysis) a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  const KsTensorCores *tc = ks_analysis_get_tensor_cores (a);
  g_autoptr(GPtrArray) kernels = NULL;
  guint n_tc = 0;
  gint64 tc_ns = 0;
  yajl_val root;

  kernels = events_of (path, "kernel", &root);
  for (guint i = 0; i < kernels->len; i++)
    {
      const char *name = member_str (kernels->pdata[i], "name");

      if (g_str_has_prefix (name, "nvjet_") || strstr (name, "wgmma") != NULL)
        {
          n_tc++;
          tc_ns += us_to_ns (member_num (kernels->pdata[i], "dur"));
        }
    }
  yajl_tree_free (root);
  g_assert_cmpuint (n_tc, ==, 345);
  g_assert_cmpuint (tc->n_tc_kernels, ==, n_tc);
  g_assert_cmpint (tc->tc_kernel_ns, ==, tc_ns);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/accelerators/mtia/small", test_mtia_small);
  g_test_add_func ("/accelerators/mtia/corpus", test_mtia_corpus);
  g_test_add_func ("/accelerators/ranges/rows", test_ranges_rows);
  g_test_add_func ("/accelerators/ranges/corpus-rows", test_ranges_corpus_rows);
  g_test_add_func ("/accelerators/ranges/report", test_ranges_report);
  g_test_add_func ("/accelerators/ranges/corpus-counters", test_ranges_corpus_counters);
  g_test_add_func ("/accelerators/ranges/launches", test_ranges_launches);
  g_test_add_func ("/accelerators/ranges/corpus-operators", test_ranges_corpus_operators);
  g_test_add_func ("/accelerators/kscope-roundtrip", test_kscope_roundtrip);
  g_test_add_func ("/accelerators/tensor-cores/measured", test_tensor_cores_measured);
  g_test_add_func ("/accelerators/tensor-cores/rules", test_tensor_core_rules);
  g_test_add_func ("/accelerators/tensor-cores/hopper", test_tensor_cores_hopper);

  return g_test_run ();
}
