/* test-ranks-cli.c: kinescope-cli on ranks, recorded DDP jobs and folders
 * past the memory bound
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <sqlite3.h>

#include "ks-analysis.h"
#include "ks-json-reader.h"
#include "ks-json-writer.h"
#include "ks-rank-summaries.h"
#include "ks-report.h"
#include "ks-trace-builder.h"
#include "ks-trace-loader.h"
#ifdef KS_HAVE_RENDER
#include "ks-timeline-layout.h"
#endif

#include "ranks-test-util.h"

/* kinescope-cli */

/* Runs kinescope-cli with @argv (NULL-terminated, from the command on);
 * returns its exit status, stdout in *@out. */
static int
cli (char       **out,
     char       **err,
     const char  *first,
     ...)
{
  const char *root = g_getenv ("KS_BUILD_ROOT");
  g_autofree char *exe = g_build_filename (root ? root : ".", "src", "cli", "kinescope-cli", NULL);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) envp = g_environ_setenv (g_get_environ (), "LC_ALL", "C", TRUE);
  const char *arg;
  int wait_status = 0;
  va_list ap;

  g_ptr_array_add (argv, exe);
  va_start (ap, first);
  for (arg = first; arg != NULL; arg = va_arg (ap, const char *))
    g_ptr_array_add (argv, (char *)arg);
  va_end (ap);
  g_ptr_array_add (argv, NULL);
  g_spawn_sync (NULL, (char **)argv->pdata, envp, G_SPAWN_DEFAULT, NULL, NULL, out, err, &wait_status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  return WEXITSTATUS (wait_status);
}

static yajl_val
parse (const char *text)
{
  g_autoptr(GError) error = NULL;
  yajl_val v = ks_json_parse (text, &error);

  g_assert_no_error (error);
  return v;
}

static yajl_val
member (yajl_val    object,
        const char *key)
{
  const char *path[] = { key, NULL };
  yajl_val v = yajl_tree_get (object, path, yajl_t_any);

  g_assert_nonnull (v);
  return v;
}

/* The report's shape: {"ranks":[{"rank", "file", "steps", "step_mean_ns",
 * "kernels", "kernel_time_ns", "busy_pct", "comm_ns", "exposed_comm_ns",
 * "overlap_pct", "wait_ns"}], "straggler": {"rank", "wait_caused_ns"}}. */
static void
check_ranks_json (const char          *text,
                  const SynthExpected *fast,
                  const char          *clock_method)
{
  static const char * const keys[] = {
    "rank", "file", "steps", "step_mean_ns", "kernels", "kernel_time_ns", "busy_pct", "comm_ns",
    "exposed_comm_ns", "overlap_pct", "wait_ns",
  };
  yajl_val root = parse (text);
  yajl_val ranks = member (root, "ranks");
  yajl_val straggler = member (root, "straggler");
  yajl_val clock = member (root, "clock");

  g_assert_true (YAJL_IS_ARRAY (ranks));
  g_assert_cmpuint (YAJL_GET_ARRAY (ranks)->len, ==, SYNTH_RANKS);
  for (guint r = 0; r < SYNTH_RANKS; r++)
    {
      yajl_val row = YAJL_GET_ARRAY (ranks)->values[r];
      g_autofree char *file = g_strdup_printf ("worker%u.pt.trace.json", r);

      for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
        member (row, keys[k]);
      g_assert_cmpint (ks_json_get_int (row, "rank", -1), ==, r);
      g_assert_cmpstr (ks_json_get_string (row, "file"), ==, file);
      g_assert_cmpint (ks_json_get_int (row, "steps", -1), ==, 3);
      g_assert_cmpint (ks_json_get_int (row, "kernels", -1), ==, 2700);
      g_assert_cmpint (ks_json_get_int (row, "wait_ns", -1), ==, r == SYNTH_SLOW ? 0 : fast->delays);
    }
  g_assert_cmpint (ks_json_get_int (straggler, "rank", -1), ==, SYNTH_SLOW);
  g_assert_cmpint (ks_json_get_int (straggler, "wait_caused_ns", -1), ==, (SYNTH_RANKS - 1) * fast->delays);
  g_assert_cmpstr (ks_json_get_string (clock, "method"), ==, clock_method);
  yajl_tree_free (root);
}

static void
test_cli_reports (void)
{
  g_autoptr(KsTrace) src = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *nccl = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  char *f[SYNTH_RANKS] = { NULL };
  SynthExpected fast;
  yajl_val root, rows, first;

  if (!have_corpus ("nccl_parser_config/nccl_data.json.gz"))
    return;
  src = load_source_rank ();
  synth_expected (src, FALSE, &fast);
  dir = write_synthetic_folder (src);
  for (guint k = 0; k < SYNTH_RANKS; k++)
    f[k] = g_strdup_printf ("%s/worker%u.pt.trace.json", dir, k);

  /* the folder */
  g_assert_cmpint (cli (&out, &err, "stats", "--report", "ranks", "--format", "json", dir, NULL), ==, 0);
  check_ranks_json (out, &fast, "shared");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* the same files named one by one */
  g_assert_cmpint (cli (&out, &err, "stats", "--report", "ranks", "--format", "json",
                        f[0], f[1], f[2], f[3], NULL), ==, 0);
  check_ranks_json (out, &fast, "shared");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* the text table names the straggler */
  g_assert_cmpint (cli (&out, &err, "stats", "--report", "ranks", dir, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "Straggler: rank 2, the others waited "));
  g_assert_nonnull (strstr (out, "Clock: the ranks share one, residual skew 0 ns"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* collectives by kind and size (numbers of test_nccl_comms) */
  nccl = corpus_file ("nccl_parser_config/nccl_data.json.gz");
  g_assert_cmpint (cli (&out, &err, "stats", "--report", "comms", "--format", "json", nccl, NULL), ==, 0);
  root = parse (out);
  rows = member (root, "collectives");
  g_assert_cmpuint (YAJL_GET_ARRAY (rows)->len, ==, 7);
  first = YAJL_GET_ARRAY (rows)->values[0];
  g_assert_cmpstr (ks_json_get_string (first, "collective"), ==, "allreduce");
  g_assert_cmpint (ks_json_get_int (first, "bytes", -1), ==, 8196000);
  g_assert_cmpint (ks_json_get_int (first, "group_size", -1), ==, 2);
  g_assert_cmpint (ks_json_get_int (first, "count", -1), ==, 3);
  g_assert_cmpint (ks_json_get_int (first, "total_ns", -1), ==, 11820962);
  /* JSON keeps 4 decimals */
  g_assert_cmpfloat_with_epsilon (ks_json_get_double (first, "busbw_gbps", -1), 2.080034, 1e-4);
  g_assert_cmpfloat_with_epsilon (ks_json_get_double (first, "algbw_gbps", -1), 2.080034, 1e-4);
  yajl_tree_free (root);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* info names the ranks */
  g_assert_cmpint (cli (&out, &err, "info", "--format", "json", dir, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "\"ranks\":[{\"rank\":0,\"world_size\":4,\"source\":\"distributedInfo\","
                                 "\"file\":\"worker0.pt.trace.json\"},{\"rank\":1,"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (cli (&out, &err, "info", dir, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "Ranks:           4 (rank 0 to 3)\n"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* a folder and a file together is no job */
  g_assert_cmpint (cli (&out, &err, "stats", dir, f[0], NULL), ==, 1);
  g_assert_nonnull (strstr (err, "a folder; open a folder by itself"));

  for (guint k = 0; k < SYNTH_RANKS; k++)
    g_free (f[k]);
  remove_tree (dir);
}

/* Each rank summarised apart (as under a Slurm array), then merged: the
 * same report as the folder's. On two hosts 3.7 s apart, the merge aligns
 * them by the collectives. */
static void
test_cli_merge (void)
{
  g_autoptr(KsTrace) src = NULL;
  g_autoptr(GError) error = NULL;
  SynthExpected fast;

  if (!have_corpus ("nccl_parser_config/nccl_data.json.gz"))
    return;
  src = load_source_rank ();
  synth_expected (src, FALSE, &fast);

  for (guint hosts = 0; hosts < 2; hosts++)
    {
      g_autofree char *dir = g_dir_make_tmp ("ks-ranks-merge-XXXXXX", &error);
      char *s[SYNTH_RANKS] = { NULL };
      g_autofree char *not_summary = g_strdup_printf ("%s/bad.json", dir);
      g_autofree char *out = NULL;
      g_autofree char *err = NULL;

      g_assert_no_error (error);
      for (guint k = 0; k < SYNTH_RANKS; k++)
        {
          g_autofree char *trace = g_strdup_printf ("%s/worker%u.pt.trace.json", dir, k);
          g_autofree char *summary = NULL;

          if (hosts)
            write_rank_on (src, dir, k, SYNTH_RANKS, SYNTH_SLOW, SYNTH_DELAY_NS,
                           k < 2 ? "a" : "b", k < 2 ? 0 : G_GINT64_CONSTANT (3700000000));
          else
            write_rank (src, dir, k, SYNTH_RANKS, SYNTH_SLOW, SYNTH_DELAY_NS);
          g_assert_cmpint (cli (&summary, NULL, "stats", "--report", "ranks", "--format", "json",
                                "--collectives", trace, NULL), ==, 0);
          s[k] = g_strdup_printf ("%s/summary%u.json", dir, k);
          g_file_set_contents (s[k], summary, -1, &error);
          g_assert_no_error (error);
        }
      /* in any order */
      g_assert_cmpint (cli (&out, &err, "ranks", "--format", "json", s[3], s[1], s[0], s[2], NULL), ==, 0);
      check_ranks_json (out, &fast, hosts ? "collectives" : "shared");
      g_clear_pointer (&out, g_free);
      g_clear_pointer (&err, g_free);

      /* a rank twice, and a file that is no summary */
      g_assert_cmpint (cli (&out, &err, "ranks", s[0], s[0], NULL), ==, 1);
      g_assert_nonnull (strstr (err, "rank 0 is also in"));
      g_clear_pointer (&out, g_free);
      g_clear_pointer (&err, g_free);
      g_file_set_contents (not_summary, "{\"ranks\": 5}", -1, &error);
      g_assert_no_error (error);
      g_assert_cmpint (cli (&out, &err, "ranks", s[0], not_summary, NULL), ==, 1);
      g_assert_nonnull (strstr (err, "bad.json: not a Ranks summary"));
      g_clear_pointer (&out, g_free);
      g_clear_pointer (&err, g_free);
      g_unlink (not_summary);

      /* the traces themselves, summarised two at a time: the same report */
      {
        g_autofree char *t0 = g_strdup_printf ("%s/worker0.pt.trace.json", dir);
        g_autofree char *t1 = g_strdup_printf ("%s/worker1.pt.trace.json", dir);
        g_autofree char *t2 = g_strdup_printf ("%s/worker2.pt.trace.json", dir);
        g_autofree char *t3 = g_strdup_printf ("%s/worker3.pt.trace.json", dir);
        g_autofree char *sdir = g_strdup_printf ("%s/summaries", dir);

        g_assert_cmpint (cli (&out, &err, "ranks", "--jobs", "2", "--format", "json", t2, t0, t3, t1, NULL), ==, 0);
        check_ranks_json (out, &fast, hosts ? "collectives" : "shared");
        g_clear_pointer (&out, g_free);
        g_clear_pointer (&err, g_free);

        /* a folder of them, next to a summary of a rank it holds too */
        for (guint k = 0; k < SYNTH_RANKS; k++)
          g_unlink (s[k]);
        g_assert_cmpint (cli (&out, &err, "ranks", "--format", "json", dir, NULL), ==, 0);
        check_ranks_json (out, &fast, hosts ? "collectives" : "shared");
        g_clear_pointer (&out, g_free);
        g_clear_pointer (&err, g_free);
        g_assert_cmpint (g_mkdir (sdir, 0700), ==, 0);
        g_assert_cmpint (cli (&out, &err, "stats", "--report", "ranks", "--format", "json", "--collectives", t1, NULL), ==, 0);
        {
          g_autofree char *one = g_build_filename (sdir, "summary1.json", NULL);

          g_file_set_contents (one, out, -1, &error);
          g_assert_no_error (error);
          g_clear_pointer (&out, g_free);
          g_clear_pointer (&err, g_free);
          g_assert_cmpint (cli (&out, &err, "ranks", one, dir, NULL), ==, 1);
          g_assert_nonnull (strstr (err, "rank 1 is also in"));
          g_unlink (one);
        }
        g_rmdir (sdir);
      }

      for (guint k = 0; k < SYNTH_RANKS; k++)
        g_free (s[k]);
      remove_tree (dir);
    }
}

/* A folder converted to .kscope keeps its ranks (KS_RANKS, by group), so
 * the converted job has the same straggler; rows of impossible ranks, or
 * of a group with no process, are left out. */
static void
test_kscope_roundtrip (void)
{
  g_autoptr(KsTrace) src = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *kscope = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  SynthExpected fast;
  const KsRankStats *rows;
  sqlite3 *db;
  guint n;

  if (!have_corpus ("nccl_parser_config/nccl_data.json.gz"))
    return;
  src = load_source_rank ();
  synth_expected (src, FALSE, &fast);
  dir = write_synthetic_folder (src);
  kscope = g_strdup_printf ("%s.kscope", dir);
  g_assert_cmpint (cli (&out, &err, "convert", dir, kscope, NULL), ==, 0);

  g_assert_cmpint (sqlite3_open (kscope, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "INSERT INTO KS_RANKS (groupId, rank) VALUES (0, -4), (1, 5000000000), (77, 9)",
                                 NULL, NULL, NULL), ==, SQLITE_OK);
  sqlite3_close (db);

  trace = load (kscope);
  g_assert_cmpuint (trace->n_ranks, ==, SYNTH_RANKS);
  for (guint r = 0; r < SYNTH_RANKS; r++)
    {
      g_autofree char *file = g_strdup_printf ("worker%u.pt.trace.json", r);

      g_assert_cmpint (trace->ranks[r].rank, ==, r);
      g_assert_cmpint (trace->ranks[r].world_size, ==, SYNTH_RANKS);
      g_assert_cmpint (trace->ranks[r].source, ==, KS_RANK_FROM_DISTRIBUTED_INFO);
      g_assert_cmpstr (ks_trace_string (trace, trace->ranks[r].file), ==, file);
      g_assert_cmpstr (ks_trace_string (trace, trace->ranks[r].backend), ==, "nccl");
    }
  a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  g_assert_cmpuint (ks_analysis_get_straggler (a), ==, SYNTH_SLOW);
  rows = ks_analysis_get_rank_stats (a, &n);
  g_assert_cmpuint (n, ==, SYNTH_RANKS);
  g_assert_cmpint (rows[0].wait_ns, ==, fast.delays);
  g_assert_cmpint (rows[SYNTH_SLOW].wait_caused_ns, ==, (SYNTH_RANKS - 1) * fast.delays);

  g_unlink (kscope);
  remove_tree (dir);
}

static char *
data_file (const char *name)
{
  const char *dir = g_getenv ("KS_FIXTURES_DIR");

  return g_build_filename (dir ? dir : ".", name, NULL);
}

/* Two DDP ranks over gloo on one H200 (tests/gpu/ddp.py, rank 1 sleeping
 * 20 ms before each forward pass), recorded with kinescope-cli record --
 * torchrun: the whole program, start-up broadcasts and closing barrier
 * included. The expected waits come from SQL over the file: the Nth
 * gloo:* span of each process is one call, the later start is the
 * straggler's, and only calls that start inside a "step N" range of
 * their process count. */
static void
test_ddp_recording (void)
{
  g_autofree char *path = data_file ("ddp_gloo_2ranks.kscope");
  g_autoptr(KsTrace) trace = load (path);
  g_autoptr(KsAnalysis) a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  const char *sql =
    "WITH c AS (SELECT globalTid / 16777216 % 16777216 AS pid, start, end,"
    "  ROW_NUMBER () OVER (PARTITION BY globalTid / 16777216 % 16777216 ORDER BY start) AS n"
    "  FROM NVTX_EVENTS WHERE text LIKE 'gloo:%'),"
    " r AS (SELECT globalPid / 16777216 % 16777216 AS pid, rank FROM KS_RANKS),"
    " s AS (SELECT globalTid / 16777216 % 16777216 AS pid, start, end FROM NVTX_EVENTS"
    "  WHERE eventType = 59 AND text LIKE 'step %'),"
    " m AS (SELECT c.n, r.rank, c.start, c.end, EXISTS (SELECT 1 FROM s WHERE s.pid = c.pid"
    "  AND c.start >= s.start AND c.start < s.end) AS in_step FROM c JOIN r USING (pid)),"
    " last AS (SELECT n, MAX (start) AS arrival FROM m GROUP BY n HAVING COUNT (*) = 2)"
    " SELECT m.rank, (SELECT rank FROM m AS o WHERE o.n = m.n AND o.start = last.arrival),"
    "  MIN (MAX (last.arrival - m.start, 0), m.end - m.start), m.in_step"
    " FROM m JOIN last USING (n)";
  gint64 waited[2] = { 0, 0 }, caused[2] = { 0, 0 }, all_caused[2] = { 0, 0 };
  const KsRankStats *rows;
  sqlite3 *db;
  sqlite3_stmt *stmt;
  guint n, calls = 0;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *summary = NULL;
  g_autofree char *merged = NULL;

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      int rank = sqlite3_column_int (stmt, 0), last = sqlite3_column_int (stmt, 1);
      gint64 wait = sqlite3_column_int64 (stmt, 2);

      g_assert_true (rank == 0 || rank == 1);
      all_caused[last] += wait;
      if (sqlite3_column_int (stmt, 3))
        {
          waited[rank] += wait;
          caused[last] += wait;
        }
      calls++;
    }
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  g_assert_cmpuint (calls, ==, 42);
  /* counting the start-up's calls too, rank 0 would be the straggler */
  g_assert_cmpint (all_caused[0], >, all_caused[1]);

  g_assert_cmpuint (trace->n_ranks, ==, 2);
  rows = ks_analysis_get_rank_stats (a, &n);
  g_assert_cmpuint (n, ==, 2);
  for (guint r = 0; r < 2; r++)
    {
      g_assert_cmpint (rows[r].rank, ==, r);
      /* step 0 of each rank loads the CUDA modules: the warm-up, left out */
      g_assert_cmpuint (rows[r].steps, ==, 7);
      g_assert_cmpuint (rows[r].collectives, ==, 21);
      g_assert_cmpint (rows[r].wait_ns, ==, waited[r]);
      g_assert_cmpint (rows[r].wait_caused_ns, ==, caused[r]);
    }
  g_assert_cmpint (rows[1].wait_caused_ns, >, 6 * 20000000);   /* 20 ms a step, 6 steps at least */
  g_assert_cmpuint (ks_analysis_get_straggler (a), ==, 1);

  /* merged from the file's own summary, the same waits */
  summary = g_build_filename (g_get_tmp_dir (), "ks-ddp-summary.json", NULL);
  g_assert_cmpint (cli (&out, &err, "stats", "--report", "ranks", "--format", "json", "--collectives", path, NULL), ==, 0);
  g_assert_true (g_file_set_contents (summary, out, -1, NULL));
  g_assert_cmpint (cli (&merged, &err, "ranks", "--format", "json", summary, NULL), ==, 0);
  {
    g_autoptr(GError) error = NULL;
    yajl_val root = ks_json_parse (merged, &error);
    yajl_val list, straggler;

    g_assert_no_error (error);
    list = ks_json_get_array (root, "ranks");
    g_assert_nonnull (list);
    g_assert_cmpuint (YAJL_GET_ARRAY (list)->len, ==, 2);
    for (guint r = 0; r < 2; r++)
      {
        g_assert_cmpint (ks_json_get_int (YAJL_GET_ARRAY (list)->values[r], "wait_ns", -1), ==, waited[r]);
        g_assert_cmpint (ks_json_get_int (YAJL_GET_ARRAY (list)->values[r], "wait_caused_ns", -1), ==, caused[r]);
      }
    straggler = yajl_tree_get (root, (const char *[]) { "straggler", NULL }, yajl_t_object);
    g_assert_nonnull (straggler);
    g_assert_cmpint (ks_json_get_int (straggler, "rank", -1), ==, 1);
    yajl_tree_free (root);
  }
  g_unlink (summary);
}

/* The same job under torch.profiler (tensorboard_trace_handler, steps 2-5). */
static void
test_ddp_profiler_folder (void)
{
  g_autofree char *path = data_file ("ddp_gloo_2ranks");
  g_autoptr(KsTrace) trace = load (path);
  g_autoptr(KsAnalysis) a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  const KsRankStats *rows;
  guint n;

  g_assert_cmpuint (trace->n_ranks, ==, 2);
  rows = ks_analysis_get_rank_stats (a, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpuint (rows[0].steps, ==, 4);
  g_assert_cmpuint (rows[1].steps, ==, 4);
  g_assert_cmpint (rows[1].wait_ns, ==, 0);
  g_assert_cmpint (rows[0].wait_ns, >, 4 * 20000000);
  g_assert_cmpint (rows[1].wait_caused_ns, ==, rows[0].wait_ns);
  g_assert_cmpuint (ks_analysis_get_straggler (a), ==, 1);
}

/* Each rank's copies and stream queues apart: per rank, the copies of
 * each kind that its own file holds, counted from the file's slices; and
 * the text reports say whose a row is. */
static void
test_ddp_per_rank_copies (void)
{
  g_autofree char *path = data_file ("ddp_gloo_2ranks");
  g_autoptr(KsTrace) trace = load (path);
  g_autoptr(KsAnalysis) a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  const KsCopyKindStats *kinds;
  guint n_kinds, seen = 0;

  g_assert_cmpuint (trace->n_ranks, ==, 2);
  kinds = ks_analysis_get_copy_kinds (a, &n_kinds);
  for (gint32 rank = 0; rank < 2; rank++)
    {
      g_autofree char *name = g_strdup_printf ("ddp_gloo_2ranks/rank%d.pt.trace.json.gz", rank);
      g_autofree char *file = data_file (name);
      g_autoptr(KsTrace) alone = load (file);
      guint64 count[KS_COPY_PTOP + 1] = { 0 }, bytes[KS_COPY_PTOP + 1] = { 0 };

      for (guint32 t = 0; t < alone->n_tracks; t++)
        for (guint32 i = 0; i < alone->tracks[t].n_slices; i++)
          if (alone->tracks[t].slice_kind[i] == KS_SLICE_MEMCPY)
            {
              count[alone->tracks[t].gpu[i].copy.copy_kind]++;
              bytes[alone->tracks[t].gpu[i].copy.copy_kind] += alone->tracks[t].gpu[i].copy.bytes;
            }
      for (guint k = 0; k <= KS_COPY_PTOP; k++)
        {
          const KsCopyKindStats *found = NULL;

          for (guint i = 0; i < n_kinds; i++)
            if (kinds[i].rank == rank && kinds[i].kind == k)
              found = &kinds[i];
          if (count[k] == 0)
            {
              g_assert_null (found);
              continue;
            }
          g_assert_nonnull (found);
          g_assert_cmpuint (found->count, ==, count[k]);
          g_assert_cmpuint (found->bytes, ==, bytes[k]);
          seen++;
        }
    }
  /* HtoD, DtoH and DtoD on each rank, and nothing else */
  g_assert_cmpuint (seen, ==, 6);
  g_assert_cmpuint (n_kinds, ==, 6);

  g_assert_cmpint (cli (&out, &err, "stats", "--report", "queue", "--format", "csv", path, NULL), ==, 0);
  g_assert_true (g_str_has_prefix (out, "rank,device,stream,"));
  g_assert_nonnull (strstr (out, "\n0,0,7,"));
  g_assert_nonnull (strstr (out, "\n1,0,7,"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (cli (&out, &err, "stats", "--report", "memcpy-bandwidth", path, NULL), ==, 0);
  g_assert_nonnull (strstr (out, " Rank GPU Kind"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* one trace, no ranks: no rank column */
  g_clear_pointer (&path, g_free);
  path = data_file ("gpt_3steps.pt.trace.json.gz");
  g_assert_cmpint (cli (&out, &err, "stats", "--report", "queue", "--format", "csv", path, NULL), ==, 0);
  g_assert_true (g_str_has_prefix (out, "device,stream,"));
}

static char *
report_json (KsReport *report)
{
  g_autoptr(KsJsonWriter) json = ks_json_writer_new ();

  ks_json_begin_object (json, NULL);
  ks_report_write_json (report, json, NULL, G_MAXUINT);
  ks_json_end_object (json);
  return g_strdup (ks_json_writer_get_text (json));
}

static void
summaries_done_cb (GObject      *object,
                   GAsyncResult *result,
                   gpointer      user_data)
{
  KsRankSummaries **out = user_data;
  g_autoptr(GError) error = NULL;

  *out = ks_rank_summaries_compute_finish (result, &error);
  g_assert_no_error (error);
}

/* Past the memory bound (KINESCOPE_FOLDER_MEMORY_MB, forced to 0 here) a
 * folder is summarised a rank at a time, on a thread: the same rows to
 * the last digit, the same straggler and clock as the folder loaded
 * whole; stats --report ranks takes that path and says so. */
static void
test_summaries_first (void)
{
  g_autoptr(KsTrace) src = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  g_autoptr(KsReport) full = NULL;
  g_autoptr(KsReport) merged = NULL;
  g_autoptr(KsRankSummaries) summaries = NULL;
  g_autoptr(GPtrArray) files = NULL;
  g_autoptr(GFile) folder = NULL;
  g_autoptr(KsProgress) progress = ks_progress_new ();
  g_autofree char *dir = NULL;
  g_autofree char *full_json = NULL;
  g_autofree char *merged_json = NULL;
  g_autofree char *out_whole = NULL;
  g_autofree char *out_summed = NULL;
  g_autofree char *err = NULL;
  const KsRankStats *rows;
  guint64 bytes = 0, expected_bytes = 0;
  guint n;

  if (!have_corpus ("nccl_parser_config/nccl_data.json.gz"))
    return;
  src = load_source_rank ();
  dir = write_synthetic_folder (src);
  trace = load (dir);
  a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  full = ks_report_new_ranks (trace, a);
  full_json = report_json (full);

  /* the bound: the variable, else the setting, else a share of RAM */
  g_unsetenv ("KINESCOPE_FOLDER_MEMORY_MB");
  g_assert_cmpuint (ks_rank_summaries_memory_bound (5), ==, 5 << 20);
  g_assert_cmpuint (ks_rank_summaries_memory_bound (0), >, 0);
  g_setenv ("KINESCOPE_FOLDER_MEMORY_MB", "0", TRUE);
  g_assert_cmpuint (ks_rank_summaries_memory_bound (5), ==, 0);

  folder = g_file_new_for_path (dir);
  files = ks_json_list_trace_files (folder, NULL, NULL);
  g_assert_cmpuint (files->len, ==, SYNTH_RANKS);
  for (guint k = 0; k < SYNTH_RANKS; k++)
    {
      g_autofree char *path = g_strdup_printf ("%s/worker%u.pt.trace.json", dir, k);
      GStatBuf st;

      g_assert_cmpint (g_stat (path, &st), ==, 0);
      expected_bytes += st.st_size;
    }
  g_assert_true (ks_rank_summaries_over_bound ((GFile **)files->pdata, files->len, 0, &bytes));
  g_assert_cmpuint (bytes, ==, expected_bytes);
  g_assert_false (ks_rank_summaries_over_bound ((GFile **)files->pdata, files->len, expected_bytes, NULL));
  /* one file is never a job to summarise */
  g_assert_false (ks_rank_summaries_over_bound ((GFile **)files->pdata, 1, 0, NULL));

  /* as many at once as fit in the bound, one a thread at the most */
  g_setenv ("KINESCOPE_THREADS", "3", TRUE);
  g_assert_cmpuint (ks_rank_summaries_plan_jobs ((GFile **)files->pdata, files->len, 0), ==, 1);
  g_assert_cmpuint (ks_rank_summaries_plan_jobs ((GFile **)files->pdata, files->len, expected_bytes / 2 + expected_bytes / 8), ==, 2);
  g_assert_cmpuint (ks_rank_summaries_plan_jobs ((GFile **)files->pdata, files->len, expected_bytes), ==, 3);
  g_unsetenv ("KINESCOPE_THREADS");
  ks_rank_summaries_compute_async ((GFile **)files->pdata, files->len, 2, NULL, progress, NULL,
                                   summaries_done_cb, &summaries);
  while (summaries == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpfloat (ks_progress_get_fraction (progress), ==, 1.0);

  rows = ks_rank_summaries_get_rows (summaries, &n);
  g_assert_cmpuint (n, ==, SYNTH_RANKS);
  merged = ks_report_new_rank_rows (rows, n);
  merged_json = report_json (merged);
  g_assert_cmpstr (merged_json, ==, full_json);
  g_assert_cmpuint (ks_rank_summaries_get_straggler (summaries), ==, ks_analysis_get_straggler (a));
  g_assert_cmpuint (ks_rank_summaries_get_straggler (summaries), ==, SYNTH_SLOW);
  g_assert_cmpint (ks_rank_summaries_get_clock (summaries)->method, ==, ks_analysis_get_clock_alignment (a)->method);
  g_assert_cmpint (ks_rank_summaries_get_clock (summaries)->skew_ns, ==, ks_analysis_get_clock_alignment (a)->skew_ns);
  for (guint k = 0; k < n; k++)
    {
      g_autofree char *path = g_strdup_printf ("%s/worker%u.pt.trace.json", dir, k);

      g_assert_cmpstr (ks_rank_summaries_get_source (summaries, k), ==, path);
    }

  /* stats: the rows, straggler and clock of the whole load, no steps */
  g_assert_null (ks_rank_summaries_get_left_out (summaries));
  g_clear_object (&summaries);

  /* a trace that names no rank is left out, as the whole load leaves it */
  {
    g_autofree char *stray = g_build_filename (dir, "stray.json", NULL);
    g_autoptr(GFile) file = g_file_new_for_path (stray);
    const char * const *left;

    g_assert_true (g_file_set_contents (stray, "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"a\", "
                                               "\"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 2}]}", -1, NULL));
    g_ptr_array_add (files, g_object_ref (file));
    ks_rank_summaries_compute_async ((GFile **)files->pdata, files->len, 2, NULL, NULL, NULL,
                                     summaries_done_cb, &summaries);
    while (summaries == NULL)
      g_main_context_iteration (NULL, TRUE);
    ks_rank_summaries_get_rows (summaries, &n);
    g_assert_cmpuint (n, ==, SYNTH_RANKS);
    left = ks_rank_summaries_get_left_out (summaries);
    g_assert_nonnull (left);
    g_assert_cmpstr (left[0], ==, stray);
    g_assert_null (left[1]);
    g_clear_pointer (&merged_json, g_free);
    g_clear_pointer (&merged, ks_report_free);
    merged = ks_report_new_rank_rows (ks_rank_summaries_get_rows (summaries, NULL), n);
    merged_json = report_json (merged);
    {
      g_autoptr(KsTrace) with_stray = load (dir);
      g_autoptr(KsAnalysis) sa = ks_analysis_compute (with_stray, NULL, NULL, NULL, NULL);
      g_autoptr(KsReport) sr = ks_report_new_ranks (with_stray, sa);
      g_autofree char *sj = report_json (sr);

      g_assert_cmpuint (with_stray->n_ranks, ==, SYNTH_RANKS);
      g_assert_cmpstr (merged_json, ==, sj);
    }
    g_assert_cmpint (cli (&out_summed, &err, "stats", "--report", "ranks", "--format", "json", dir, NULL), ==, 0);
    g_assert_nonnull (strstr (err, "stray.json: the trace names no rank; it is left out of the Ranks report"));
    g_clear_pointer (&out_summed, g_free);
    g_clear_pointer (&err, g_free);
    g_unlink (stray);
  }

  g_assert_cmpint (cli (&out_summed, &err, "stats", "--report", "ranks", "--format", "json", dir, NULL), ==, 0);
  g_assert_nonnull (strstr (err, "over the memory bound of 0 bytes (KINESCOPE_FOLDER_MEMORY_MB): "
                                 "the 4 ranks were summarised one at a time"));
  g_assert_null (strstr (out_summed, "\"steps\":["));
  g_unsetenv ("KINESCOPE_FOLDER_MEMORY_MB");
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (cli (&out_whole, &err, "stats", "--report", "ranks", "--format", "json", dir, NULL), ==, 0);
  g_assert_null (strstr (err, "memory bound"));
  g_assert_nonnull (strstr (out_whole, "\"steps\":["));
  g_assert_true (g_str_has_suffix (out_summed, "}\n"));
  out_summed[strlen (out_summed) - 2] = '\0';
  g_assert_true (g_str_has_prefix (out_whole, out_summed));

  remove_tree (dir);
}


int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  setlocale (LC_ALL, "C");

  g_test_add_func ("/ranks/cli-reports", test_cli_reports);
  g_test_add_func ("/ranks/cli-merge", test_cli_merge);
  g_test_add_func ("/ranks/kscope-roundtrip", test_kscope_roundtrip);
  g_test_add_func ("/ranks/ddp-recording", test_ddp_recording);
  g_test_add_func ("/ranks/ddp-profiler-folder", test_ddp_profiler_folder);
  g_test_add_func ("/ranks/ddp-per-rank-copies", test_ddp_per_rank_copies);
  g_test_add_func ("/ranks/summaries-first", test_summaries_first);

  return g_test_run ();
}
