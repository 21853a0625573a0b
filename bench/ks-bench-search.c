/* ks-bench-search.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* What a keystroke in the search field costs on a trace of about five
 * million slices: the names of the slices of gpt_3steps (or of FILE)
 * repeated over 16 rows until there are N slices, then the text
 * "aten::mm" typed a letter at a time.
 *
 *   _build/bench/ks-bench-search [--slices N] [FILE]
 *
 * Prints, for each keystroke, the search's wall time until its result
 * reaches the main loop (the first one folds the names as well), the
 * main thread's CPU time for it (starting the task, taking and freeing
 * its result), and, for comparison, the CPU time of the former search,
 * which ran on the main thread (every name folded, every slice scanned,
 * the matches listed and sorted, per keystroke); then the time a search
 * over nearly every slice ("e") takes to stop once cancelled. The last
 * lines are "keystroke-main-cpu-ms-max N", "keystroke-worker-ms-max N",
 * "cancel-ms N" and "before-main-cpu-ms-max N".
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ks-trace-builder.h"
#include "ks-trace-loader.h"
#include "ks-trace-search.h"

#define N_ROWS 16

static int n_slices = 5000000;

/* CPU time of the calling thread: on a loaded machine the wall clock
 * of a short step is mostly the time the thread waited for a core. */
static double
thread_cpu_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static KsTrace *
load (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KsTrace *trace = ks_trace_load (file, NULL, NULL, &error);

  if (trace == NULL)
    {
      g_printerr ("ks-bench-search: %s\n", error->message);
      exit (1);
    }
  return trace;
}

/* The fixture's slice names, in its order, over and over. */
static KsTrace *
build_trace (KsTrace *source)
{
  g_autoptr(GError) error = NULL;
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_KINETO_JSON);
  g_autofree guint32 *ids = g_new0 (guint32, source->n_strings);
  guint32 rows[N_ROWS];
  gint64 clock[N_ROWS] = { 0 };
  guint32 p = ks_trace_builder_get_process (b, 1);
  int added = 0;
  KsTrace *trace;

  for (guint32 id = 1; id < source->n_strings; id++)
    ids[id] = ks_trace_builder_intern (b, source->strings[id]);
  for (guint r = 0; r < N_ROWS; r++)
    rows[r] = ks_trace_builder_get_thread_track (b, ks_trace_builder_get_thread (b, p, 100 + r));

  while (added < n_slices)
    for (guint32 t = 0; t < source->n_tracks && added < n_slices; t++)
      for (guint32 i = 0; i < source->tracks[t].n_slices && added < n_slices; i++, added++)
        {
          guint r = added % N_ROWS;

          ks_trace_builder_add_slice (b, rows[r], clock[r], clock[r] + 700, KS_SLICE_CPU_OP,
                                      ids[source->tracks[t].name_id[i]], 0, 0, 0, 0, NULL);
          clock[r] += 1000;
        }

  trace = ks_trace_builder_finish (b, NULL, &error);
  if (trace == NULL)
    {
      g_printerr ("ks-bench-search: %s\n", error->message);
      exit (1);
    }
  return trace;
}

typedef struct
{
  GMainLoop      *loop;
  KsSearchResult *result;
  GError         *error;
  gint64          done_usec;
  double          main_cpu_ms; /* the callback's own CPU time */
} Run;

static void
done_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  Run *run = user_data;
  double c0 = thread_cpu_ms ();

  run->done_usec = g_get_monotonic_time ();
  run->result = ks_trace_search_run_finish (KS_TRACE_SEARCH (source), result, &run->error);
  run->main_cpu_ms = thread_cpu_ms () - c0;
  g_main_loop_quit (run->loop);
}

typedef struct
{
  guint32 track;
  guint32 slice;
  gint64  start;
} Match;

static int
compare_matches (gconstpointer a,
                 gconstpointer b)
{
  const Match *ma = a, *mb = b;

  if (ma->start != mb->start)
    return ma->start < mb->start ? -1 : 1;
  if (ma->track != mb->track)
    return ma->track < mb->track ? -1 : 1;
  return ma->slice < mb->slice ? -1 : ma->slice > mb->slice;
}

/* The search field's former way, on the main thread: every name folded,
 * every slice scanned, the matches listed and sorted. */
static guint
search_before (KsTrace    *trace,
               const char *text)
{
  g_autofree char *needle = g_utf8_casefold (text, -1);
  g_autofree guint8 *matches = g_new0 (guint8, MAX (1, trace->n_strings));
  g_autoptr(GArray) list = g_array_new (FALSE, FALSE, sizeof (Match));

  for (guint32 id = 1; id < trace->n_strings; id++)
    {
      g_autofree char *folded = g_utf8_casefold (trace->strings[id], -1);

      matches[id] = strstr (folded, needle) != NULL;
    }
  for (guint32 t = 0; t < trace->n_tracks; t++)
    for (guint32 i = 0; i < trace->tracks[t].n_slices; i++)
      if (matches[trace->tracks[t].name_id[i]])
        {
          Match m = { t, i, trace->tracks[t].start[i] };

          g_array_append_val (list, m);
        }
  g_array_sort (list, compare_matches);
  return list->len;
}

int
main (int   argc,
      char *argv[])
{
  const char *typed = "aten::mm";
  g_autofree char *fixture = g_build_filename (SOURCE_ROOT, "tests", "data", "gpt_3steps.pt.trace.json.gz", NULL);
  g_autoptr(KsTrace) source = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsTraceSearch) search = NULL;
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  double main_max = 0, worker_max = 0, before_max = 0;
  guint64 total = 0;

  for (int i = 1; i < argc; i++)
    if (g_str_equal (argv[i], "--slices") && i + 1 < argc)
      n_slices = atoi (argv[++i]);
    else
      {
        g_free (fixture);
        fixture = g_strdup (argv[i]);
      }

  source = load (fixture);
  trace = build_trace (source);
  for (guint32 t = 0; t < trace->n_tracks; t++)
    total += trace->tracks[t].n_slices;
  printf ("trace: %" G_GUINT64_FORMAT " slices on %u rows, %u distinct strings (names of %s)\n",
          total, trace->n_tracks, trace->n_strings, fixture);

  search = ks_trace_search_new (trace);
  printf ("%-10s %10s %12s %14s %16s\n", "text", "matches", "worker ms", "main CPU ms", "before CPU ms");
  for (gsize len = 1; len <= strlen (typed); len++)
    {
      g_autofree char *text = g_strndup (typed, len);
      Run run = { loop, NULL, NULL, 0, 0 };
      gint64 t0;
      double c0, worker_ms, main_ms, before_ms;
      guint n;

      t0 = g_get_monotonic_time ();
      c0 = thread_cpu_ms ();
      ks_trace_search_run_async (search, text, KS_TRACE_SEARCH_DEFAULT, NULL, done_cb, &run);
      main_ms = thread_cpu_ms () - c0;
      g_main_loop_run (loop);
      g_assert_no_error (run.error);
      n = ks_search_result_get_n_matches (run.result);
      c0 = thread_cpu_ms ();
      g_clear_pointer (&run.result, ks_search_result_unref);
      main_ms += run.main_cpu_ms + (thread_cpu_ms () - c0);
      worker_ms = (run.done_usec - t0) / 1000.0;

      c0 = thread_cpu_ms ();
      if (search_before (trace, text) != n)
        g_error ("the former search disagrees for “%s”", text);
      before_ms = thread_cpu_ms () - c0;

      printf ("%-10s %10u %12.1f %14.3f %16.1f\n", text, n, worker_ms, main_ms, before_ms);
      main_max = MAX (main_max, main_ms);
      /* the first keystroke folds the names too: reported on its own */
      if (len > 1)
        worker_max = MAX (worker_max, worker_ms);
      before_max = MAX (before_max, before_ms);
    }

  /* A search over nearly every slice, cancelled 1 ms after it starts,
   * as by the next keystroke: how long until its worker lets go. */
  {
    g_autoptr(GCancellable) cancellable = g_cancellable_new ();
    Run run = { loop, NULL, NULL, 0, 0 };
    gint64 t0;

    ks_trace_search_run_async (search, "e", KS_TRACE_SEARCH_DEFAULT, cancellable, done_cb, &run);
    g_usleep (1000);
    t0 = g_get_monotonic_time ();
    g_cancellable_cancel (cancellable);
    g_main_loop_run (loop);
    g_assert_error (run.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    g_clear_error (&run.error);
    printf ("keystroke-main-cpu-ms-max %.3f\n", main_max);
    printf ("keystroke-worker-ms-max %.1f\n", worker_max);
    printf ("cancel-ms %.1f\n", (run.done_usec - t0) / 1000.0);
    printf ("before-main-cpu-ms-max %.1f\n", before_max);
  }

  return 0;
}
