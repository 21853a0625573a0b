/* test-document-loader.c: one file at a time loaded in a worker, its
 * progress as properties on the main thread (src/app/ks-document-loader.c)
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gstdio.h>
#include <unistd.h>

#include "ks-document-loader.h"
#include "ks-memory-blocks.h"
#include "ks-test-gtk.h"
#include "ks-trace-loader.h"

#define LB_FILE  "loader_bound.pt.trace.json.gz"
#define JOB_DIR  "ddp_gloo_2ranks"

#define WAIT_FOR(cond) KS_TEST_WAIT_FOR (cond, 60000)

typedef struct
{
  gboolean         done;
  gboolean         ok;
  gboolean         loading_after;  /* the loader's "loading" once finished */
  KsTrace         *trace;
  KsRankSummaries *summaries;
  GError          *error;
} Result;

static void
result_clear (Result *r)
{
  g_clear_object (&r->trace);
  g_clear_object (&r->summaries);
  g_clear_error (&r->error);
  memset (r, 0, sizeof *r);
}

static void
load_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Result *r = user_data;

  r->ok = ks_document_loader_load_finish (KS_DOCUMENT_LOADER (object), result, &r->trace, &r->summaries,
                                          &r->error);
  r->loading_after = ks_document_loader_get_loading (KS_DOCUMENT_LOADER (object));
  r->done = TRUE;
}

static GFile *
fixture (const char *name)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);

  return g_file_new_for_path (path);
}

typedef struct
{
  GThread *main_thread;
  guint    n_fraction;
  guint    n_message;
  guint    n_off_main;
  double   last_fraction;
} Notes;

static void
notify_cb (GObject    *object,
           GParamSpec *pspec,
           Notes      *notes)
{
  if (g_thread_self () != notes->main_thread)
    notes->n_off_main++;
  if (g_str_equal (pspec->name, "fraction"))
    {
      notes->n_fraction++;
      notes->last_fraction = ks_document_loader_get_fraction (KS_DOCUMENT_LOADER (object));
    }
  else if (g_str_equal (pspec->name, "message"))
    notes->n_message++;
}

static KsTraceLoadOptions default_trace_options;

/* A trace: the same as the trace loader's, its progress on the main
 * thread, "loading" over when the callback runs. */
static void
test_trace (void)
{
  g_autoptr(KsDocumentLoader) loader = ks_document_loader_new ();
  g_autoptr(GFile) file = fixture (LB_FILE);
  g_autoptr(KsTrace) expected = NULL;
  g_autoptr(GError) error = NULL;
  KsDocumentLoadOptions options = { 0 };
  KsTraceCounts got, want;
  Notes notes = { g_thread_self () };
  Result r = { 0 };

  expected = ks_trace_load_with_options (file, &default_trace_options, NULL, NULL, &error);
  g_assert_no_error (error);

  g_signal_connect (loader, "notify", G_CALLBACK (notify_cb), &notes);
  g_assert_false (ks_document_loader_get_loading (loader));
  g_assert_null (ks_document_loader_get_file (loader));

  ks_document_loader_load_async (loader, file, &options, load_cb, &r);
  g_assert_true (ks_document_loader_get_loading (loader));
  g_assert_true (ks_document_loader_get_file (loader) == file);
  g_assert_cmpfloat (ks_document_loader_get_fraction (loader), ==, 0);
  g_assert_cmpstr (ks_document_loader_get_message (loader), ==, "Reading…");

  WAIT_FOR (r.done);
  g_assert_no_error (r.error);
  g_assert_true (r.ok);
  g_assert_false (r.loading_after);
  g_assert_false (ks_document_loader_get_loading (loader));
  g_assert_null (r.summaries);
  g_assert_nonnull (r.trace);

  ks_trace_get_counts (r.trace, &got);
  ks_trace_get_counts (expected, &want);
  g_assert_cmpmem (&got, sizeof got, &want, sizeof want);
  g_assert_cmpuint (r.trace->n_tracks, ==, expected->n_tracks);

  /* the worker's progress came through, on this thread alone */
  g_assert_cmpuint (notes.n_off_main, ==, 0);
  g_assert_cmpuint (notes.n_fraction, >, 0);
  g_assert_cmpfloat (notes.last_fraction, >, 0);
  /* the file is still the loaded one */
  g_assert_true (ks_document_loader_get_file (loader) == file);

  result_clear (&r);
}

static void
fraction_time_cb (GObject    *object,
                  GParamSpec *pspec,
                  GArray     *times)
{
  gint64 now = g_get_monotonic_time ();

  g_array_append_val (times, now);
}

/* The worker's progress reaches the loader at most five times a second
 * (each change draws a frame of the progress page), however often the
 * load changes it: on one thread a big trace changes its fraction many
 * times between two. */
static void
test_paced (void)
{
  g_autofree char *path = ks_test_write_big_trace (600000);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(KsDocumentLoader) loader = ks_document_loader_new ();
  g_autoptr(GArray) times = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autofree char *threads = g_strdup (g_getenv ("KINESCOPE_THREADS"));
  KsDocumentLoadOptions options = { 0 };
  Result r = { 0 };

  g_setenv ("KINESCOPE_THREADS", "1", TRUE);
  g_signal_connect (loader, "notify::fraction", G_CALLBACK (fraction_time_cb), times);
  ks_document_loader_load_async (loader, file, &options, load_cb, &r);
  WAIT_FOR (r.done);
  g_assert_no_error (r.error);
  g_assert_true (r.ok);

  /* the last is the load's end, which shows its last progress at once */
  g_test_message ("%u fraction notifications", times->len);
  g_assert_cmpuint (times->len, >=, 2);
  for (guint i = 1; i + 1 < times->len; i++)
    g_assert_cmpint (g_array_index (times, gint64, i) - g_array_index (times, gint64, i - 1), >=,
                     195 * G_TIME_SPAN_MILLISECOND);

  if (threads != NULL)
    g_setenv ("KINESCOPE_THREADS", threads, TRUE);
  else
    g_unsetenv ("KINESCOPE_THREADS");
  result_clear (&r);
  g_unlink (path);
}

/* The text a gzip file inflates to, counted by inflating it. */
static guint64
inflated_size (GFile *file)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GInputStream) raw = G_INPUT_STREAM (g_file_read (file, NULL, &error));
  g_autoptr(GZlibDecompressor) zlib = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr(GInputStream) in = NULL;
  guint64 total = 0;
  char buf[65536];
  gssize n;

  g_assert_no_error (error);
  in = g_converter_input_stream_new (raw, G_CONVERTER (zlib));
  while ((n = g_input_stream_read (in, buf, sizeof buf, NULL, &error)) > 0)
    total += (guint64) n;
  g_assert_no_error (error);
  return total;
}

/* A folder over the memory bound: sized in the worker, then summarised
 * rank by rank; its sizes are the files' inflated text. */
static void
test_job_over_bound (void)
{
  g_autoptr(KsDocumentLoader) loader = ks_document_loader_new ();
  g_autoptr(GFile) folder = fixture (JOB_DIR);
  g_autoptr(GFile) rank0 = g_file_get_child (folder, "rank0.pt.trace.json.gz");
  g_autoptr(GFile) rank1 = g_file_get_child (folder, "rank1.pt.trace.json.gz");
  KsDocumentLoadOptions options = { 0 };
  Result r = { 0 };
  guint n = 0;

  /* a bound of 0 bytes: every job is over it */
  g_setenv ("KINESCOPE_FOLDER_MEMORY_MB", "0", TRUE);
  options.folder_memory_mb = 1024;
  ks_document_loader_load_async (loader, folder, &options, load_cb, &r);
  WAIT_FOR (r.done);
  g_assert_no_error (r.error);
  g_assert_null (r.trace);
  g_assert_nonnull (r.summaries);
  ks_rank_summaries_get_rows (r.summaries, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (ks_rank_summaries_get_bound (r.summaries), ==, 0);
  g_assert_cmpuint (ks_rank_summaries_get_json_bytes (r.summaries), ==, inflated_size (rank0) + inflated_size (rank1));
  result_clear (&r);

  /* the setting's 1 MiB holds both ranks' text: one trace of both */
  g_unsetenv ("KINESCOPE_FOLDER_MEMORY_MB");
  options.folder_memory_mb = 1;
  ks_document_loader_load_async (loader, folder, &options, load_cb, &r);
  WAIT_FOR (r.done);
  g_assert_no_error (r.error);
  g_assert_null (r.summaries);
  g_assert_nonnull (r.trace);
  g_assert_cmpuint (r.trace->n_ranks, ==, 2);
  result_clear (&r);
}

/* A newer load replaces the one under way; Cancel ends it. */
static void
test_replace_and_cancel (void)
{
  g_autoptr(KsDocumentLoader) loader = ks_document_loader_new ();
  g_autoptr(GFile) first = fixture (LB_FILE);
  g_autoptr(GFile) second = fixture ("seed_cnn.pt.trace.json.gz");
  KsDocumentLoadOptions options = { 0 };
  Result r1 = { 0 }, r2 = { 0 }, r3 = { 0 };

  ks_document_loader_load_async (loader, first, &options, load_cb, &r1);
  ks_document_loader_load_async (loader, second, &options, load_cb, &r2);
  g_assert_true (ks_document_loader_get_file (loader) == second);

  WAIT_FOR (r1.done && r2.done);
  /* the first one's end says cancelled, while the second still loaded */
  g_assert_error (r1.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (r1.trace);
  g_assert_no_error (r2.error);
  g_assert_nonnull (r2.trace);
  g_assert_false (r2.loading_after);
  g_assert_false (ks_document_loader_get_loading (loader));

  ks_document_loader_load_async (loader, first, &options, load_cb, &r3);
  ks_document_loader_cancel (loader);
  WAIT_FOR (r3.done);
  g_assert_error (r3.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_false (r3.loading_after);

  result_clear (&r1);
  result_clear (&r2);
  result_clear (&r3);
}

/* A file that is no trace: an error naming it. */
static void
test_bad_file (void)
{
  g_autoptr(KsDocumentLoader) loader = ks_document_loader_new ();
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autofree char *base = NULL;
  KsDocumentLoadOptions options = { 0 };
  Result r = { 0 };
  int fd;

  fd = g_file_open_tmp ("ks-loader-XXXXXX.json", &path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (write (fd, "{\"traceEvents\": [ {\"ph\": ", 25), ==, 25);
  close (fd);
  file = g_file_new_for_path (path);
  base = g_path_get_basename (path);

  ks_document_loader_load_async (loader, file, &options, load_cb, &r);
  WAIT_FOR (r.done);
  g_assert_false (r.ok);
  g_assert_nonnull (r.error);
  g_assert_false (g_error_matches (r.error, G_IO_ERROR, G_IO_ERROR_CANCELLED));
  g_assert_nonnull (strstr (r.error->message, base));
  g_assert_false (ks_document_loader_get_loading (loader));

  result_clear (&r);
  g_unlink (path);
}

static gboolean
wake_cb (gpointer data)
{
  return G_SOURCE_CONTINUE;
}

static gboolean
analysis_cached (KsTrace                 *trace,
                 const KsAnalysisOptions *options)
{
  g_autoptr(KsAnalysis) analysis = ks_analysis_lookup_cached (trace, options);

  return analysis != NULL;
}

/* A memory snapshot: the timeline's blocks and memory series are built
 * in the worker, not on the main thread when the timeline first asks
 * (they are kept with the trace under these keys: ks-memory-blocks.c,
 * ks-memory-series.c), and the analysis for the window's options was
 * started there too; a trace without a snapshot gets neither. */
static void
test_memory_snapshot (void)
{
  g_autoptr(KsDocumentLoader) loader = ks_document_loader_new ();
  g_autoptr(GFile) file = fixture ("memsnap_train.pickle");
  g_autoptr(GFile) json = fixture (LB_FILE);
  KsDocumentLoadOptions options = { 0 };
  GQuark blocks = g_quark_from_static_string ("ks-memory-blocks");
  GQuark series = g_quark_from_static_string ("ks-memory-series");
  Result r = { 0 };
  guint wake;

  ks_analysis_options_init (&options.analysis);
  options.analysis.gap_threshold_ns = 12345;
  ks_document_loader_load_async (loader, file, &options, load_cb, &r);
  WAIT_FOR (r.done);
  g_assert_no_error (r.error);
  g_assert_nonnull (g_object_get_qdata (G_OBJECT (r.trace), blocks));
  g_assert_nonnull (g_object_get_qdata (G_OBJECT (r.trace), series));
  g_assert_cmpuint (ks_memory_blocks_get (r.trace)->devices[0].blocks->len, ==, 107);
  /* the analysis ends in a worker without a word to this thread: it is
   * woken to look */
  wake = g_timeout_add (5, wake_cb, NULL);
  WAIT_FOR (analysis_cached (r.trace, &options.analysis));
  g_source_remove (wake);
  result_clear (&r);

  ks_document_loader_load_async (loader, json, &options, load_cb, &r);
  WAIT_FOR (r.done);
  g_assert_no_error (r.error);
  g_assert_null (g_object_get_qdata (G_OBJECT (r.trace), blocks));
  g_assert_null (ks_analysis_lookup_cached (r.trace, &options.analysis));
  result_clear (&r);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/app/document-loader/trace", test_trace);
  g_test_add_func ("/app/document-loader/paced", test_paced);
  g_test_add_func ("/app/document-loader/job-over-bound", test_job_over_bound);
  g_test_add_func ("/app/document-loader/replace-and-cancel", test_replace_and_cancel);
  g_test_add_func ("/app/document-loader/bad-file", test_bad_file);
  g_test_add_func ("/app/document-loader/memory-snapshot", test_memory_snapshot);

  return g_test_run ();
}
