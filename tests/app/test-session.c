/* test-session.c: what a window shows, without a window
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <gio/gio.h>

#include "ks-session.h"
#include "ks-test-gtk.h"
#include "ks-trace-loader.h"

#define WAIT_FOR(cond) KS_TEST_WAIT_FOR (cond, 20000)

static KsTrace *
load (const char *name)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KsTrace *trace = ks_trace_load (file, NULL, NULL, &error);

  g_assert_no_error (error);
  return trace;
}

static void
count_cb (GObject    *object,
          GParamSpec *pspec,
          guint      *count)
{
  (*count)++;
}

/* Each keystroke starts a search that cancels the one before: only the
 * last one's matches reach the session, once. The counts are those of
 * tests/trace/test-trace-search.c, from the raw file. */
static void
test_search (void)
{
  g_autoptr(KsTrace) trace = load ("gpt_3steps.pt.trace.json.gz");
  g_autoptr(KsSession) session = ks_session_new (trace);
  KsSearchResult *search;
  const KsSearchMatch *m;
  guint notified = 0;

  g_signal_connect (session, "notify::search", G_CALLBACK (count_cb), &notified);
  ks_session_search (session, "e", FALSE);
  ks_session_search (session, "el", FALSE);
  ks_session_search (session, "elementwise", FALSE);
  g_assert_null (ks_session_get_search (session));
  WAIT_FOR (ks_session_get_search (session) != NULL);
  search = ks_session_get_search (session);
  g_assert_cmpstr (ks_search_result_get_text (search), ==, "elementwise");
  g_assert_cmpuint (ks_search_result_get_n_matches (search), ==, 975);
  g_assert_cmpuint (notified, ==, 1);
  g_assert_cmpint (ks_session_get_current_match (session), ==, -1);

  /* Stepping: from the first match in the view (the whole trace), wrapping back. */
  m = ks_session_step_match (session, 1);
  g_assert_true (m == ks_search_result_get_match (search, 0));
  g_assert_cmpint (ks_session_get_current_match (session), ==, 0);
  m = ks_session_step_match (session, -1);
  g_assert_true (m == ks_search_result_get_match (search, 974));

  /* A name a page points at: outlined instead, until the next search. */
  ks_session_set_highlight (session, trace->tracks[m->track].name_id[m->slice]);
  g_assert_cmpuint (ks_session_get_highlight (session), ==, trace->tracks[m->track].name_id[m->slice]);
  ks_session_search (session, "aten::mm", FALSE);
  g_assert_cmpuint (ks_session_get_highlight (session), ==, KS_NO_INDEX);
  WAIT_FOR (g_strcmp0 (ks_search_result_get_text (ks_session_get_search (session)), "aten::mm") == 0);
  g_assert_cmpuint (ks_search_result_get_n_matches (ks_session_get_search (session)), ==, 222);

  /* An expression that does not compile: said, with no matches. */
  ks_session_search (session, "aten::(mm", TRUE);
  WAIT_FOR (ks_session_get_search_error (session) != NULL);
  g_assert_null (ks_session_get_search (session));

  /* An empty text ends the search at once. */
  ks_session_search (session, "aten::mm", FALSE);
  ks_session_search (session, "", FALSE);
  g_assert_null (ks_session_get_search (session));
  g_assert_null (ks_session_get_search_error (session));
  /* and the search cancelled by it never lands */
  for (guint i = 0; i < 50; i++)
    g_main_context_iteration (NULL, FALSE);
  g_assert_null (ks_session_get_search (session));
}

/* A new trace: no matches, no highlight, its own layout. */
static void
test_new_trace (void)
{
  g_autoptr(KsTrace) first = load ("gpt_3steps.pt.trace.json.gz");
  g_autoptr(KsTrace) second = load ("loader_bound.pt.trace.json.gz");
  g_autoptr(KsSession) session = ks_session_new (first);
  KsTimelineLayout *layout = ks_session_get_layout (session);

  g_assert_nonnull (layout);
  ks_session_search (session, "aten::mm", FALSE);
  WAIT_FOR (ks_session_get_search (session) != NULL);
  ks_session_set_highlight (session, 1);
  ks_session_set_trace (session, second);
  g_assert_null (ks_session_get_search (session));
  g_assert_cmpuint (ks_session_get_highlight (session), ==, KS_NO_INDEX);
  g_assert_nonnull (ks_session_get_layout (session));
  ks_session_set_trace (session, NULL);
  g_assert_null (ks_session_get_layout (session));
}

/* The options are the settings': a change there analyses again, and
 * the session's own property writes the setting. */
static void
test_settings (void)
{
  g_autoptr(GSettings) settings = g_settings_new ("org.kinescope.Kinescope");
  g_autoptr(KsTrace) trace = load ("loader_bound.pt.trace.json.gz");
  g_autoptr(KsSession) session = NULL;
  g_autoptr(KsSession) alone = ks_session_new (trace);
  KsAnalysis *analysis;
  gboolean on;
  guint notified = 0;

  g_settings_set_double (settings, "gap-threshold-us", 250.0);
  session = ks_session_new_with_settings (trace, settings);
  g_assert_cmpint (ks_session_get_analysis_options (session)->gap_threshold_ns, ==, 250000);
  WAIT_FOR (ks_session_get_analysis (session) != NULL);
  g_assert_false (ks_analysis_get_options (ks_session_get_analysis (session))->busy_includes_copies);

  g_signal_connect (session, "notify::busy-includes-copies", G_CALLBACK (count_cb), &notified);
  g_settings_set_boolean (settings, "busy-includes-copies", TRUE);
  g_assert_cmpuint (notified, ==, 1);
  g_object_get (session, "busy-includes-copies", &on, NULL);
  g_assert_true (on);
  WAIT_FOR ((analysis = ks_session_get_analysis (session)) != NULL &&
            ks_analysis_get_options (analysis)->busy_includes_copies);

  g_object_set (session, "include-warmup", TRUE, NULL);
  g_assert_true (g_settings_get_boolean (settings, "include-warmup"));
  g_assert_true (ks_session_get_analysis_options (session)->include_warmup);

  /* a session without settings keeps its own options */
  g_assert_false (ks_session_get_analysis_options (alone)->busy_includes_copies);
  g_object_set (alone, "busy-includes-copies", TRUE, NULL);
  g_assert_true (ks_session_get_analysis_options (alone)->busy_includes_copies);
  g_settings_reset (settings, "busy-includes-copies");
  g_settings_reset (settings, "include-warmup");
  g_settings_reset (settings, "gap-threshold-us");
  g_assert_true (ks_session_get_analysis_options (alone)->busy_includes_copies);
  g_assert_false (ks_session_get_analysis_options (session)->busy_includes_copies);
}

/* Where the trace comes from: a file, or a job's summaries and folder,
 * set together, each notified once; the loaded row goes with them; a rank's trace taking
 * the place of another keeps the job. */
static void
test_job (void)
{
  g_autoptr(KsTrace) trace = load ("loader_bound.pt.trace.json.gz");
  g_autoptr(KsSession) session = ks_session_new (NULL);
  g_autoptr(KsRankSummaries) summaries = ks_rank_summaries_new ();
  g_autoptr(GFile) folder = g_file_new_for_path ("/job");
  g_autoptr(KsRankSummaries) read = NULL;
  g_autoptr(GFile) read_file = NULL;
  guint n_summaries = 0, n_file = 0, n_loaded = 0, n_loading = 0, row;

  ks_rank_summaries_finish (summaries);
  /* the file a trace came from: set once, notified once */
  {
    g_autoptr(GFile) read_back = NULL;
    guint n_trace_file = 0;

    g_signal_connect (session, "notify::file", G_CALLBACK (count_cb), &n_trace_file);
    g_assert_null (ks_session_get_file (session));
    ks_session_set_file (session, folder);
    ks_session_set_file (session, folder);
    g_assert_cmpuint (n_trace_file, ==, 1);
    g_object_get (session, "file", &read_back, NULL);
    g_assert_true (read_back == folder);
    g_object_set (session, "file", NULL, NULL);
    g_assert_null (ks_session_get_file (session));
    g_assert_cmpuint (n_trace_file, ==, 2);
  }
  g_signal_connect (session, "notify::summaries", G_CALLBACK (count_cb), &n_summaries);
  g_signal_connect (session, "notify::job-file", G_CALLBACK (count_cb), &n_file);
  g_signal_connect (session, "notify::loaded-row", G_CALLBACK (count_cb), &n_loaded);
  g_signal_connect (session, "notify::loading-row", G_CALLBACK (count_cb), &n_loading);
  g_assert_null (ks_session_get_summaries (session));
  g_assert_cmpuint (ks_session_get_loaded_row (session), ==, KS_NO_INDEX);
  g_assert_cmpuint (ks_session_get_loading_row (session), ==, KS_NO_INDEX);

  ks_session_set_job (session, summaries, folder);
  g_assert_true (ks_session_get_summaries (session) == summaries);
  g_assert_true (ks_session_get_job_file (session) == folder);
  g_assert_cmpuint (n_summaries, ==, 1);
  g_assert_cmpuint (n_file, ==, 1);
  g_assert_cmpuint (n_loaded, ==, 0);
  g_object_get (session, "summaries", &read, "job-file", &read_file, NULL);
  g_assert_true (read == summaries);
  g_assert_true (read_file == folder);

  /* rank 1 loads, then holds the trace */
  g_object_set (session, "loading-row", 1u, NULL);
  g_assert_cmpuint (ks_session_get_loading_row (session), ==, 1);
  g_assert_cmpuint (n_loading, ==, 1);
  ks_session_set_loading_row (session, KS_NO_INDEX);
  ks_session_set_trace (session, trace);
  ks_session_set_loaded_row (session, 1);
  ks_session_set_loaded_row (session, 1);
  g_assert_cmpuint (n_loading, ==, 2);
  g_assert_cmpuint (n_loaded, ==, 1);
  g_object_get (session, "loaded-row", &row, NULL);
  g_assert_cmpuint (row, ==, 1);
  /* the trace of another rank keeps the job */
  ks_session_set_trace (session, NULL);
  g_assert_true (ks_session_get_summaries (session) == summaries);
  g_assert_cmpuint (ks_session_get_loaded_row (session), ==, 1);

  /* the same job again changes nothing; none clears the row as well */
  ks_session_set_job (session, summaries, folder);
  g_assert_cmpuint (n_summaries, ==, 1);
  g_assert_cmpuint (ks_session_get_loaded_row (session), ==, KS_NO_INDEX);
  g_assert_cmpuint (n_loaded, ==, 2);
  ks_session_set_job (session, NULL, NULL);
  g_assert_null (ks_session_get_summaries (session));
  g_assert_null (ks_session_get_job_file (session));
  g_assert_cmpuint (n_summaries, ==, 2);
  g_assert_cmpuint (n_file, ==, 2);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/app/session/search", test_search);
  g_test_add_func ("/app/session/new-trace", test_new_trace);
  g_test_add_func ("/app/session/settings", test_settings);
  g_test_add_func ("/app/session/job", test_job);

  return g_test_run ();
}
