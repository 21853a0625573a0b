/* test-trace-search.c: the name search over a trace's slices
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ks-trace-loader.h"
#include "ks-trace-search.h"

/* Counts of complete ("ph": "X") events in gpt_3steps.pt.trace.json.gz
 * whose name holds the text, case-folded, from the raw file:
 *
 *   python3 -c 'import gzip,json,sys; ev=json.load(gzip.open(sys.argv[1]))["traceEvents"];
 *     print(sum(1 for e in ev if e.get("ph")=="X" and sys.argv[2].casefold() in e["name"].casefold()))'
 *     tests/data/gpt_3steps.pt.trace.json.gz aten::mm
 *
 * and for the expression, re.search(r"^aten::(mm|addmm)$", name, re.I). */
static const struct
{
  const char *text;
  gboolean    regex;
  guint       n_matches;
  guint       n_names;
} cases[] = {
  { "aten::mm", FALSE, 222, 1 },
  { "CUDALAUNCHKERNEL", FALSE, 1344, 1 },
  { "elementwise", FALSE, 975, 15 },
  { "^aten::(mm|addmm)$", TRUE, 297, 2 },
  { "no such name anywhere", FALSE, 0, 0 },
};

static KsTrace *
load_fixture (void)
{
  const char *dir = g_getenv ("KS_FIXTURES_DIR");
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  KsTrace *trace;

  g_assert_nonnull (dir);
  path = g_build_filename (dir, "gpt_3steps.pt.trace.json.gz", NULL);
  file = g_file_new_for_path (path);
  trace = ks_trace_load (file, NULL, NULL, &error);
  g_assert_no_error (error);
  return trace;
}

/* The slices a search must find, by brute force: every slice's name
 * folded on its own. */
static guint
count_by_hand (KsTrace    *trace,
               const char *text,
               gboolean    regex)
{
  g_autofree char *needle = g_utf8_casefold (text, -1);
  g_autoptr(GRegex) re = regex ? g_regex_new (text, G_REGEX_CASELESS, 0, NULL) : NULL;
  guint n = 0;

  for (guint32 t = 0; t < trace->n_tracks; t++)
    for (guint32 i = 0; i < trace->tracks[t].n_slices; i++)
      {
        const char *name = ks_trace_string (trace, trace->tracks[t].name_id[i]);
        g_autofree char *folded = g_utf8_casefold (name, -1);

        if (regex ? g_regex_match (re, name, 0, NULL) : strstr (folded, needle) != NULL)
          n++;
      }
  return n;
}

static void
test_counts (void)
{
  g_autoptr(KsTrace) trace = load_fixture ();
  g_autoptr(KsTraceSearch) search = ks_trace_search_new (trace);

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(KsSearchResult) result = NULL;
      const guint8 *names;
      guint32 n_names;

      result = ks_trace_search_run (search, cases[c].text,
                                    cases[c].regex ? KS_TRACE_SEARCH_REGEX : KS_TRACE_SEARCH_DEFAULT,
                                    NULL, &error);
      g_assert_no_error (error);
      g_assert_cmpstr (ks_search_result_get_text (result), ==, cases[c].text);
      g_assert_cmpuint (ks_search_result_get_n_matches (result), ==, cases[c].n_matches);
      g_assert_cmpuint (ks_search_result_get_n_matches (result), ==,
                        count_by_hand (trace, cases[c].text, cases[c].regex));
      g_assert_cmpuint (ks_search_result_get_n_names_matched (result), ==, cases[c].n_names);

      names = ks_search_result_get_names (result, &n_names);
      g_assert_cmpuint (n_names, ==, trace->n_strings);
      for (guint i = 0; i < ks_search_result_get_n_matches (result); i++)
        {
          const KsSearchMatch *m = ks_search_result_get_match (result, i);
          const KsTrack *track = &trace->tracks[m->track];

          /* each match is a slice with a matching name, in time order */
          g_assert_cmpuint (m->slice, <, track->n_slices);
          g_assert_cmpint (m->start, ==, track->start[m->slice]);
          g_assert_true (names[track->name_id[m->slice]]);
          if (i > 0)
            {
              const KsSearchMatch *p = ks_search_result_get_match (result, i - 1);

              g_assert_true (p->start < m->start ||
                             (p->start == m->start && (p->track < m->track ||
                                                       (p->track == m->track && p->slice < m->slice))));
            }
        }
    }
}

static void
test_bad_expression (void)
{
  g_autoptr(KsTrace) trace = load_fixture ();
  g_autoptr(KsTraceSearch) search = ks_trace_search_new (trace);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsSearchResult) result = NULL;

  result = ks_trace_search_run (search, "aten::(mm", KS_TRACE_SEARCH_REGEX, NULL, &error);
  g_assert_null (result);
  g_assert_error (error, G_REGEX_ERROR, G_REGEX_ERROR_UNMATCHED_PARENTHESIS);

  /* the same text, not as an expression, is just a name that no slice has */
  g_clear_error (&error);
  result = ks_trace_search_run (search, "aten::(mm", KS_TRACE_SEARCH_DEFAULT, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (ks_search_result_get_n_matches (result), ==, 0);
}

typedef struct
{
  guint          *pending;
  GMainLoop      *loop;
  GError         *error;
  KsSearchResult *result;
} Run;

static void
run_cb (GObject      *source,
        GAsyncResult *result,
        gpointer      user_data)
{
  Run *run = user_data;

  run->result = ks_trace_search_run_finish (KS_TRACE_SEARCH (source), result, &run->error);
  if (--*run->pending == 0)
    g_main_loop_quit (run->loop);
}

/* A newer keystroke cancels the older search: the older one reports
 * G_IO_ERROR_CANCELLED (even if its worker had finished), the newer one
 * its matches. A search cancelled before it starts fails the same way. */
static void
test_cancel (void)
{
  g_autoptr(KsTrace) trace = load_fixture ();
  g_autoptr(KsTraceSearch) search = ks_trace_search_new (trace);
  g_autoptr(GCancellable) older = g_cancellable_new ();
  g_autoptr(GCancellable) newer = g_cancellable_new ();
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsSearchResult) none = NULL;
  guint pending = 2;
  Run runs[2] = { { &pending, loop, NULL, NULL }, { &pending, loop, NULL, NULL } };

  ks_trace_search_run_async (search, "e", KS_TRACE_SEARCH_DEFAULT, older, run_cb, &runs[0]);
  g_cancellable_cancel (older);
  ks_trace_search_run_async (search, "elementwise", KS_TRACE_SEARCH_DEFAULT, newer, run_cb, &runs[1]);
  g_main_loop_run (loop);

  g_assert_error (runs[0].error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (runs[0].result);
  g_assert_no_error (runs[1].error);
  g_assert_cmpuint (ks_search_result_get_n_matches (runs[1].result), ==, 975);
  g_clear_error (&runs[0].error);
  g_clear_pointer (&runs[1].result, ks_search_result_unref);

  none = ks_trace_search_run (search, "aten::mm", KS_TRACE_SEARCH_DEFAULT, older, &error);
  g_assert_null (none);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/trace-search/counts", test_counts);
  g_test_add_func ("/trace-search/bad-expression", test_bad_expression);
  g_test_add_func ("/trace-search/cancel", test_cancel);

  return g_test_run ();
}
