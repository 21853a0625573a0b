/* test-ranks.c: ranks, collectives and stragglers
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * On HTA's NCCL traces (KS_SHARED_DIR/corpus/hta; skipped without it),
 * and on folders of ranks this test writes from a real rank with known
 * delays. The expected numbers come from python3 over the JSON (noted at
 * each) or from the test's own interval arithmetic over the source rank,
 * never from the code under test.
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

static char *
corpus_file (const char *relative)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");

  return g_build_filename (shared ? shared : ".", "corpus", "hta", relative, NULL);
}

static gboolean
have_corpus (const char *relative)
{
  g_autofree char *path = corpus_file (relative);

  if (g_file_test (path, G_FILE_TEST_EXISTS))
    return TRUE;
  g_test_skip ("the corpus (KS_SHARED_DIR/corpus/hta) is not available");
  return FALSE;
}

static void
remove_tree (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (dir);
}

/* A folder of links: pairs of (corpus file, name in the folder). */
static char *
make_folder (const char * const *pairs)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("ks-ranks-XXXXXX", &error);

  g_assert_no_error (error);
  for (guint i = 0; pairs[i] != NULL; i += 2)
    {
      g_autofree char *target = corpus_file (pairs[i]);
      g_autofree char *link = g_build_filename (dir, pairs[i + 1], NULL);

      g_assert_cmpint (symlink (target, link), ==, 0);
    }
  return dir;
}

static KsTrace *
load (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KsTrace *trace = ks_trace_load (file, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

static void
test_file_names (void)
{
  static const struct { const char *name; gint32 rank; } cases[] = {
    { "rank3.json", 3 },
    { "rank-3.json.gz", 3 },
    { "rank_12.pt.trace.json", 12 },
    { "sampled_rank-1.json.gz", 1 },
    { "rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz", 34 },
    { "inference_rank_1.json.gz", 1 },
    { "frank2.json", -1 },
    { "ranking.json", -1 },
    { "rank3b.json", -1 },
    { "worker0.pt.trace.json", -1 },
    { "rank99999999999.json", -1 },
    { "rank-.json", -1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_test_message ("%s", cases[i].name);
      g_assert_cmpint (ks_trace_rank_from_file_name (cases[i].name), ==, cases[i].rank);
    }
}

/* A rank that is no rank (negative, past int32, a string, a fraction) is
 * said in a warning naming the file, and the file's name gives the rank;
 * the members of the process groups' configs (their own "ranks") are
 * not taken for the file's. */
static void
test_bad_distributed_info (void)
{
  static const struct { const char *name; const char *info; gint32 rank; gboolean warned; } cases[] = {
    { "rank1.json", "{\"rank\": -1, \"world_size\": 4}", 1, TRUE },
    { "rank2.json", "{\"rank\": 99999999999}", 2, TRUE },
    { "rank3.json", "{\"rank\": \"0\"}", 3, TRUE },
    { "rank4.json", "{\"rank\": 1.5}", 4, TRUE },
    { "rank5.json", "{\"pg_config\": [{\"rank\": 9, \"ranks\": [0, 1]}], \"world_size\": 8}", 5, FALSE },
  };
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ks-ranks-bad-XXXXXX", &error);
  g_autoptr(KsTrace) trace = NULL;
  const char *warnings;

  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_build_filename (dir, cases[i].name, NULL);
      g_autofree char *text = g_strdup_printf ("{\"schemaVersion\": 1, \"distributedInfo\": %s, \"traceEvents\": ["
                                               "{\"ph\": \"X\", \"name\": \"x\", \"pid\": %u, \"tid\": 1, \"ts\": 1, \"dur\": 1}]}",
                                               cases[i].info, i + 1);

      g_file_set_contents (path, text, -1, &error);
      g_assert_no_error (error);
    }
  trace = load (dir);
  warnings = ks_trace_get_metadata (trace, "warnings");
  g_assert_nonnull (warnings);
  g_assert_cmpuint (trace->n_ranks, ==, G_N_ELEMENTS (cases));
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_build_filename (dir, cases[i].name, NULL);
      g_autofree char *said = g_strdup_printf ("%s: distributedInfo's rank", path);

      g_assert_cmpint (trace->ranks[i].rank, ==, cases[i].rank);
      g_assert_cmpint (trace->ranks[i].source, ==, KS_RANK_FROM_FILE_NAME);
      g_assert_true ((strstr (warnings, said) != NULL) == cases[i].warned);
      g_unlink (path);
    }
  g_assert_cmpint (trace->ranks[4].world_size, ==, 8);
  g_rmdir (dir);
}

/* distributedInfo wins over the file name; the name where distributedInfo
 * has no rank. python3: sampled_rank-0 says rank 0 of 128 (nccl), sampled_rank-1
 * rank 1 of 128; rank_not_found has {"backend": "nccl"} only. Steps:
 * ProfilerStep#551 and #552 on both GPU ranks, #1009 on the CPU one. */
static void
test_folder_ranks (void)
{
  static const char * const pairs[] = {
    "timeline_analysis/sampled_rank-0.json.gz", "node-a.json.gz",
    "trace_filter/sampled_rank-1.json.gz", "rank-5.json.gz",
    "rank_unavailable/rank_not_found.json.gz", "worker_rank7.json.gz",
    NULL
  };
  g_autofree char *dir = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  g_autoptr(KsReport) steps = NULL;
  const KsReportColumn *name_col, *rank_col;
  guint n;

  if (!have_corpus (pairs[0]) || !have_corpus (pairs[2]) || !have_corpus (pairs[4]))
    return;
  dir = make_folder (pairs);
  trace = load (dir);

  g_assert_cmpuint (trace->n_ranks, ==, 3);
  g_assert_cmpint (trace->ranks[0].rank, ==, 0);
  g_assert_cmpint (trace->ranks[0].source, ==, KS_RANK_FROM_DISTRIBUTED_INFO);
  g_assert_cmpint (trace->ranks[0].world_size, ==, 128);
  g_assert_cmpstr (ks_trace_string (trace, trace->ranks[0].backend), ==, "nccl");
  g_assert_cmpstr (ks_trace_string (trace, trace->ranks[0].file), ==, "node-a.json.gz");
  g_assert_cmpint (trace->ranks[1].rank, ==, 1);
  g_assert_cmpint (trace->ranks[1].source, ==, KS_RANK_FROM_DISTRIBUTED_INFO);
  g_assert_cmpstr (ks_trace_string (trace, trace->ranks[1].file), ==, "rank-5.json.gz");
  g_assert_cmpint (trace->ranks[2].rank, ==, 7);
  g_assert_cmpint (trace->ranks[2].source, ==, KS_RANK_FROM_FILE_NAME);
  g_assert_cmpint (trace->ranks[2].world_size, ==, 0);
  g_assert_cmpstr (ks_trace_string (trace, trace->ranks[2].backend), ==, "nccl");
  g_assert_cmpstr (ks_rank_source_to_string (trace->ranks[2].source), ==, "file_name");
  /* files sort by name: node-a, rank-5, worker_rank7 */
  g_assert_cmpuint (ks_trace_rank_of_group (trace, 0), ==, 0);
  g_assert_cmpuint (ks_trace_rank_of_group (trace, 1), ==, 1);
  g_assert_cmpuint (ks_trace_rank_of_group (trace, 2), ==, 2);
  g_assert_cmpuint (ks_trace_rank_of_group (trace, 3), ==, KS_NO_INDEX);

  /* Step N is one step of the job: the same name on every rank, the
   * rank beside it (no "ProfilerStep#551/4037"). */
  a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  steps = ks_report_new_steps (trace, a);
  g_assert_cmpuint (steps->n_rows, ==, 5);
  name_col = ks_report_find_column (steps->columns, steps->n_columns, "name");
  rank_col = ks_report_find_column (steps->columns, steps->n_columns, "rank");
  g_assert_nonnull (rank_col);
  for (guint i = 0; i < steps->n_rows; i++)
    {
      g_autofree char *text = ks_report_get_text (steps, name_col, i);
      g_auto(KsReportValue) v = { 0 };
      const KsStep *s = &((const KsStep *)steps->rows)[i];
      guint32 group = trace->tracks[s->track].group;

      ks_report_get_value (steps, rank_col, i, &v);
      g_assert_cmpint (v.type, ==, KS_REPORT_VALUE_INT);
      g_assert_cmpint (v.i, ==, group == 0 ? 0 : group == 1 ? 1 : 7);
      g_assert_true (strcmp (text, "ProfilerStep#551") == 0 || strcmp (text, "ProfilerStep#552") == 0
                     || strcmp (text, "ProfilerStep#1009") == 0);
    }
  {
    g_autofree char *t0 = ks_report_get_text (steps, name_col, 0);

    /* the earliest: #1009 of the CPU rank (2022) */
    g_assert_cmpstr (t0, ==, "ProfilerStep#1009");
  }

  /* Per rank: two steps each on the GPU ranks; the collectives found by
   * External id (the sampled traces have no flows) and named by the
   * nccl:* annotation around the launch: 4 all-to-all, 4 all-reduce,
   * 2 all-gather on each (python3 over the cuda_runtime parents). */
  {
    const KsRankStats *rows = ks_analysis_get_rank_stats (a, &n);
    const KsCollective *cs;
    guint counts[3][KS_N_COLLECTIVE_KINDS] = { { 0 } };

    g_assert_cmpuint (n, ==, 3);
    g_assert_cmpint (rows[0].rank, ==, 0);
    g_assert_cmpuint (rows[0].steps, ==, 2);
    /* (607312 + 622928) / 2 µs */
    g_assert_cmpint (rows[0].step_mean_ns, ==, 615120000);
    g_assert_cmpuint (rows[1].steps, ==, 2);
    g_assert_cmpint (rows[1].step_mean_ns, ==, 619271500);
    g_assert_cmpuint (rows[2].steps, ==, 1);
    g_assert_cmpuint (rows[2].collectives, ==, 0);
    g_assert_cmpuint (rows[0].collectives, ==, 10);
    g_assert_cmpuint (rows[1].collectives, ==, 10);

    cs = ks_analysis_get_collectives (a, &n);
    g_assert_cmpuint (n, ==, 20);
    for (guint i = 0; i < n; i++)
      {
        g_assert_true (cs[i].on_gpu);
        counts[cs[i].rank][cs[i].kind]++;
      }
    for (guint r = 0; r < 2; r++)
      {
        g_assert_cmpuint (counts[r][KS_COLLECTIVE_ALL_TO_ALL], ==, 4);
        g_assert_cmpuint (counts[r][KS_COLLECTIVE_ALL_REDUCE], ==, 4);
        g_assert_cmpuint (counts[r][KS_COLLECTIVE_ALL_GATHER], ==, 2);
      }
    /* rank 0's first: nccl:all_to_all of Input Dims [[384]], long */
    g_assert_cmpint (cs[0].kind, ==, KS_COLLECTIVE_ALL_TO_ALL);
    g_assert_cmpuint (cs[0].bytes, ==, 384 * 8);
    g_assert_cmpstr (cs[0].dtype, ==, "long");
    g_assert_cmpuint (cs[0].group_size, ==, 128);
  }

  remove_tree (dir);
}

/* Kineto 2.17 arguments on the kernels themselves (nccl_data, rank 0 of
 * 2). python3 over the kernels: size = max(In, Out msg nelems) × dtype,
 * grouped by (collective, size); algbw = size / mean time, busbw ×
 * 2(n-1)/n = 1 for all-reduce of 2 ranks. Per rank: the window is the
 * union of the 3 ProfilerSteps; comm the union of NCCL kernels in it,
 * compute the other kernels, covered = |comm ∩ compute ∩ window|. */
static void
test_nccl_comms (void)
{
  static const struct {
    guint8 kind; guint64 bytes; guint64 count; gint64 total, min, max; double busbw;
  } expected[] = {
    { KS_COLLECTIVE_ALL_REDUCE, 8196000, 3, 11820962, 2520607, 5993392, 2.080034 },
    { KS_COLLECTIVE_ALL_REDUCE, 31502336, 3, 11081355, 2424415, 5983024, 8.528470 },
    { KS_COLLECTIVE_ALL_REDUCE, 26255360, 3, 10797936, 2368513, 5807890, 7.294550 },
    { KS_COLLECTIVE_ALL_REDUCE, 26550272, 3, 7214656, 2160803, 2636669, 11.040141 },
    { KS_COLLECTIVE_ALL_REDUCE, 9724160, 3, 5847250, 1689577, 2129380, 4.989094 },
    { KS_COLLECTIVE_BROADCAST, 212480, 3, 91007, 29184, 30975, 7.004296 },
    { KS_COLLECTIVE_BROADCAST, 424, 3, 23327, 7648, 7904, 0.054529 },
  };
  g_autofree char *path = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  const KsCommStats *rows;
  const KsRankStats *ranks;
  const KsAdvice *advice;
  gboolean exposed_advice = FALSE;
  gboolean low_bw_advice = FALSE;
  guint n;

  if (!have_corpus ("nccl_parser_config/nccl_data.json.gz"))
    return;
  path = corpus_file ("nccl_parser_config/nccl_data.json.gz");
  trace = load (path);
  g_assert_cmpuint (trace->n_ranks, ==, 1);
  g_assert_cmpint (trace->ranks[0].rank, ==, 0);
  g_assert_cmpint (trace->ranks[0].world_size, ==, 2);
  g_assert_cmpuint (trace->ranks[0].n_process_groups, ==, 1);

  a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  rows = ks_analysis_get_comm_stats (a, &n);
  g_assert_cmpuint (n, ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpint (rows[i].kind, ==, expected[i].kind);
      g_assert_cmpuint (rows[i].bytes, ==, expected[i].bytes);
      g_assert_cmpuint (rows[i].group_size, ==, 2);
      g_assert_true (rows[i].on_gpu);
      g_assert_cmpuint (rows[i].count, ==, expected[i].count);
      g_assert_cmpint (rows[i].total_ns, ==, expected[i].total);
      g_assert_cmpint (rows[i].min_ns, ==, expected[i].min);
      g_assert_cmpint (rows[i].max_ns, ==, expected[i].max);
      g_assert_cmpfloat_with_epsilon (rows[i].busbw_gbps, expected[i].busbw, 1e-6);
    }

  ranks = ks_analysis_get_rank_stats (a, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (ranks[0].steps, ==, 3);
  g_assert_cmpint (ranks[0].step_mean_ns, ==, (222442191 + 219726905 + 224936243) / 3);
  g_assert_cmpint (ranks[0].window_ns, ==, 667105339);
  g_assert_cmpuint (ranks[0].kernels, ==, 2700);
  g_assert_cmpint (ranks[0].kernel_time_ns, ==, 162532340);
  g_assert_cmpfloat_with_epsilon (ranks[0].busy_pct, 23.266987, 1e-6);
  g_assert_cmpint (ranks[0].comm_ns, ==, 46876493);
  g_assert_cmpint (ranks[0].compute_ns, ==, 115655847);
  g_assert_cmpint (ranks[0].exposed_comm_ns, ==, 39559468);
  g_assert_cmpfloat_with_epsilon (ranks[0].overlap_pct, 15.609156, 1e-6);
  /* one rank: nobody to wait for */
  g_assert_cmpint (ranks[0].wait_ns, ==, 0);
  g_assert_cmpuint (ks_analysis_get_straggler (a), ==, KS_NO_INDEX);

  /* 39.6 ms exposed of a 667 ms window: 5.9 %, under the 10 % of the rule;
   * the 8.2 MB all-reduces at 2.08 GB/s are under the 5 GB/s of the other */
  advice = ks_analysis_get_advice (a, &n);
  for (guint i = 0; i < n; i++)
    {
      if (strcmp (advice[i].rule, "exposed-comm") == 0)
        exposed_advice = TRUE;
      if (strcmp (advice[i].rule, "low-bus-bandwidth") == 0)
        {
          g_assert_true (g_str_has_prefix (advice[i].title, "allreduce of "));
          g_assert_nonnull (strstr (advice[i].title, "reach only 2.08 GB/s"));
          g_assert_nonnull (strstr (advice[i].evidence, "3 calls"));
          low_bw_advice = TRUE;
        }
    }
  g_assert_false (exposed_advice);
  g_assert_true (low_bw_advice);
}

/* One step of 1 ms, an NCCL all-reduce from 100 to 400 µs and a compute
 * kernel from 0 to 150 µs: 300 µs of communication, 50 µs of it covered,
 * 250 µs (25 % of the step) exposed: past the rule's 10 %. */
static void
test_exposed_advice (void)
{
  static const char json[] =
    "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 2},"
    " \"traceEvents\": ["
    "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": 1000, \"dur\": 1000},"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)\","
    " \"pid\": 0, \"tid\": 7, \"ts\": 1100, \"dur\": 300, \"args\": {\"device\": 0, \"stream\": 7,"
    " \"Collective name\": \"allreduce\", \"In msg nelems\": 1048576, \"Out msg nelems\": 1048576,"
    " \"dtype\": \"Float\", \"Group size\": 2, \"Process Group Name\": \"0\"}},"
    "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm\", \"pid\": 0, \"tid\": 8, \"ts\": 1000, \"dur\": 150,"
    " \"args\": {\"device\": 0, \"stream\": 8}}]}";
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ks-ranks-exposed-XXXXXX", &error);
  g_autofree char *path = g_build_filename (dir, "rank0.json", NULL);
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  const KsRankStats *rows;
  const KsCommStats *comms;
  const KsAdvice *advice;
  const KsAdvice *found = NULL;
  guint n;

  g_file_set_contents (path, json, -1, &error);
  g_assert_no_error (error);
  trace = load (path);
  a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  rows = ks_analysis_get_rank_stats (a, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (rows[0].comm_ns, ==, 300000);
  g_assert_cmpint (rows[0].compute_ns, ==, 150000);
  g_assert_cmpint (rows[0].exposed_comm_ns, ==, 250000);
  g_assert_cmpfloat_with_epsilon (rows[0].overlap_pct, 100.0 * 50 / 300, 1e-9);
  /* the newer kernel name, sized by its own arguments: 4 MiB in 300 µs,
   * × 2(2-1)/2 */
  comms = ks_analysis_get_comm_stats (a, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (comms[0].kind, ==, KS_COLLECTIVE_ALL_REDUCE);
  g_assert_cmpuint (comms[0].bytes, ==, 4194304);
  g_assert_cmpfloat_with_epsilon (comms[0].busbw_gbps, 4194304 / 300000.0, 1e-9);

  advice = ks_analysis_get_advice (a, &n);
  for (guint i = 0; i < n; i++)
    if (strcmp (advice[i].rule, "exposed-comm") == 0)
      found = &advice[i];
  g_assert_nonnull (found);
  g_assert_nonnull (strstr (found->text, "For 25 % of the steps of rank 0"));
  g_unlink (path);
  g_rmdir (dir);
}

/* A CPU-only rank over gloo (HTA's cpu_only_older_version, rank 34 of
 * 300): its collectives are the gloo:all_reduce spans on the CPU.
 * python3: 10 of them, 5 of Input Dims [[321271]] float (1285084 bytes,
 * 1074798655 ns in all, 162768957 to 380183168 ns) and 5 of [[2082411]]
 * (8329644 bytes, 1060657263 ns); their union within the 5 steps'
 * 1284941908 ns is 1102980645 ns, none of it under a GPU kernel. */
static void
test_gloo (void)
{
  g_autofree char *path = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  const KsCommStats *rows;
  const KsRankStats *ranks;
  guint n;

  if (!have_corpus ("cpu_only_older_version/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"))
    return;
  path = corpus_file ("cpu_only_older_version/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz");
  trace = load (path);
  g_assert_cmpuint (trace->n_ranks, ==, 1);
  g_assert_cmpint (trace->ranks[0].rank, ==, 34);
  g_assert_cmpint (trace->ranks[0].world_size, ==, 300);
  g_assert_cmpuint (trace->ranks[0].n_process_groups, ==, 10);
  g_assert_cmpstr (ks_trace_string (trace, trace->ranks[0].backend), ==, "gloo");

  a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  rows = ks_analysis_get_comm_stats (a, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (rows[0].kind, ==, KS_COLLECTIVE_ALL_REDUCE);
  g_assert_false (rows[0].on_gpu);
  g_assert_cmpuint (rows[0].bytes, ==, 1285084);
  g_assert_cmpuint (rows[0].group_size, ==, 300);
  g_assert_cmpuint (rows[0].count, ==, 5);
  g_assert_cmpint (rows[0].total_ns, ==, 1074798655);
  g_assert_cmpint (rows[0].min_ns, ==, 162768957);
  g_assert_cmpint (rows[0].max_ns, ==, 380183168);
  /* 2(n-1)/n of 1285084 bytes / 214959731 ns */
  g_assert_cmpfloat_with_epsilon (rows[0].busbw_gbps, 1285084 / (1074798655 / 5.0) * 2 * 299 / 300, 1e-12);
  g_assert_cmpuint (rows[1].bytes, ==, 8329644);
  g_assert_cmpint (rows[1].total_ns, ==, 1060657263);

  ranks = ks_analysis_get_rank_stats (a, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (ranks[0].rank, ==, 34);
  g_assert_cmpuint (ranks[0].steps, ==, 5);
  g_assert_cmpint (ranks[0].window_ns, ==, 1284941908);
  g_assert_cmpint (ranks[0].comm_ns, ==, 1102980645);
  g_assert_cmpint (ranks[0].exposed_comm_ns, ==, 1102980645);
  g_assert_cmpuint (ranks[0].collectives, ==, 10);
}

/* Folders of ranks written from one real rank */

typedef struct
{
  gint64 start;
  gint64 end;
} Span;

static int
compare_spans (gconstpointer a,
               gconstpointer b)
{
  const Span *x = a, *y = b;

  return (x->start > y->start) - (x->start < y->start);
}

/* The test's own union: sorted, merged in place. */
static void
merge (GArray *spans)
{
  guint out = 0;

  g_array_sort (spans, compare_spans);
  for (guint i = 0; i < spans->len; i++)
    {
      Span s = g_array_index (spans, Span, i);

      if (out > 0 && s.start <= g_array_index (spans, Span, out - 1).end)
        {
          Span *last = &g_array_index (spans, Span, out - 1);

          last->end = MAX (last->end, s.end);
        }
      else
        g_array_index (spans, Span, out++) = s;
    }
  g_array_set_size (spans, out);
}

static gint64
overlap (GArray *a,
         GArray *b)
{
  guint i = 0, j = 0;
  gint64 total = 0;

  while (i < a->len && j < b->len)
    {
      const Span *x = &g_array_index (a, Span, i);
      const Span *y = &g_array_index (b, Span, j);
      gint64 lo = MAX (x->start, y->start), hi = MIN (x->end, y->end);

      if (hi > lo)
        total += hi - lo;
      if (x->end < y->end)
        i++;
      else
        j++;
    }
  return total;
}

static void
append_json_string (GString    *out,
                    const char *s)
{
  g_string_append_c (out, '"');
  for (; *s; s++)
    {
      if (*s == '"' || *s == '\\')
        g_string_append_printf (out, "\\%c", *s);
      else if ((guchar)*s < 0x20)
        g_string_append_printf (out, "\\u%04x", (guchar)*s);
      else
        g_string_append_c (out, *s);
    }
  g_string_append_c (out, '"');
}

static void
append_us (GString *out,
           gint64   ns)
{
  g_string_append_printf (out, "%" G_GINT64_FORMAT ".%03d", ns / 1000, (int)(ns % 1000));
}

#define SYNTH_BASE_NS G_GINT64_CONSTANT (1000000000000000)

static gboolean
is_nccl (const KsTrace *src,
         const KsTrack *track,
         guint32        i)
{
  return g_str_has_prefix (ks_trace_string (src, track->name_id[i]), "ncclKernel_");
}

/* How late rank @k's NCCL kernel @i starts: @delay for the slow rank,
 * less than the kernel's length (its end stays: a collective ends
 * together on every rank). */
static gint64
synth_delay (const KsTrack *track,
             guint32        i,
             gint64         delay)
{
  return MIN (delay, track->end[i] - track->start[i] - 1);
}

/* Rank @k of @n: the ProfilerSteps and the kernels (with their Kineto
 * arguments) of @src; the slow rank's NCCL kernels start @delay late. */
static void
write_rank_on (const KsTrace *src,
               const char    *dir,
               guint          k,
               guint          n,
               guint          slow,
               gint64         delay,
               const char    *host,
               gint64         clock_shift)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  g_autoptr(GString) out = g_string_new (NULL);
  g_autofree char *name = g_strdup_printf ("worker%u.pt.trace.json", k);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;
  gboolean first = TRUE;

  g_string_append_printf (out, "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", "
                          "\"rank\": %u, \"world_size\": %u, \"pg_count\": 1}, ", k, n);
  if (host != NULL)
    g_string_append_printf (out, "\"host_name\": \"%s\", ", host);
  g_string_append (out, "\"traceEvents\": [\n");
  for (guint32 t = 0; t < src->n_tracks; t++)
    {
      const KsTrack *track = &src->tracks[t];

      for (guint32 i = 0; i < track->n_slices; i++)
        {
          const char *sname = ks_trace_string (src, track->name_id[i]);
          const char *args = ks_trace_slice_args (src, track, i, args_buf);
          gint64 start = track->start[i];

          if (track->kind == KS_TRACK_THREAD && g_str_has_prefix (sname, "ProfilerStep#"))
            g_string_append_printf (out, "%s{\"ph\": \"X\", \"cat\": \"user_annotation\", \"pid\": %u, \"tid\": %u, ",
                                    first ? "" : ",\n", 1000 + k, 1000 + k);
          else if (track->kind == KS_TRACK_STREAM && track->slice_kind[i] == KS_SLICE_KERNEL)
            {
              if (k == slow && is_nccl (src, track, i))
                start += synth_delay (track, i, delay);
              g_string_append_printf (out, "%s{\"ph\": \"X\", \"cat\": \"kernel\", \"pid\": %d, \"tid\": %" G_GINT64_FORMAT ", ",
                                      first ? "" : ",\n", track->device, track->stream);
            }
          else
            continue;
          first = FALSE;
          g_string_append (out, "\"name\": ");
          append_json_string (out, sname);
          g_string_append (out, ", \"ts\": ");
          append_us (out, SYNTH_BASE_NS + clock_shift + start);
          g_string_append (out, ", \"dur\": ");
          append_us (out, track->end[i] - start);
          if (args != NULL)
            g_string_append_printf (out, ", \"args\": %s", args);
          g_string_append_c (out, '}');
        }
    }
  g_string_append (out, "\n]}\n");
  g_file_set_contents (path, out->str, out->len, &error);
  g_assert_no_error (error);
}

static void
write_rank (const KsTrace *src,
            const char    *dir,
            guint          k,
            guint          n,
            guint          slow,
            gint64         delay)
{
  write_rank_on (src, dir, k, n, slow, delay, NULL, 0);
}

static KsTrace *
load_source_rank (void)
{
  g_autofree char *path = corpus_file ("nccl_parser_config/nccl_data.json.gz");

  return load (path);
}

#define SYNTH_RANKS 4
#define SYNTH_SLOW 2
#define SYNTH_DELAY_NS G_GINT64_CONSTANT (100000)

static char *
write_synthetic_folder (const KsTrace *src)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("ks-ranks-synth-XXXXXX", &error);

  g_assert_no_error (error);
  for (guint k = 0; k < SYNTH_RANKS; k++)
    write_rank (src, dir, k, SYNTH_RANKS, SYNTH_SLOW, SYNTH_DELAY_NS);
  return dir;
}

/* What rank @k of the synthetic folder must show, from @src alone. */
#define SYNTH_STEPS 3

typedef struct
{
  gint64 window, comm, compute, covered, delays;
  guint64 collectives;
  /* per step, in time order: the same within it, and the delays of the
   * collectives that start in it */
  gint64 step_comm[SYNTH_STEPS], step_compute[SYNTH_STEPS], step_covered[SYNTH_STEPS], step_delays[SYNTH_STEPS];
} SynthExpected;

static void
synth_expected (const KsTrace *src,
                gboolean       slow,
                SynthExpected *e)
{
  g_autoptr(GArray) window = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr(GArray) comm = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr(GArray) compute = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr(GArray) both = g_array_new (FALSE, FALSE, sizeof (Span));

  memset (e, 0, sizeof *e);
  for (guint32 t = 0; t < src->n_tracks; t++)
    {
      const KsTrack *track = &src->tracks[t];

      for (guint32 i = 0; i < track->n_slices; i++)
        {
          Span s = { track->start[i], track->end[i] };

          if (track->kind == KS_TRACK_THREAD
              && g_str_has_prefix (ks_trace_string (src, track->name_id[i]), "ProfilerStep#"))
            g_array_append_val (window, s);
          if (track->kind != KS_TRACK_STREAM || track->slice_kind[i] != KS_SLICE_KERNEL)
            continue;
          if (is_nccl (src, track, i))
            {
              gint64 d = synth_delay (track, i, SYNTH_DELAY_NS);

              if (slow)
                s.start += d;
              e->delays += d;
              e->collectives++;
              g_array_append_val (comm, s);
            }
          else
            g_array_append_val (compute, s);
          g_array_append_val (both, s);
        }
    }
  merge (window);
  merge (comm);
  merge (compute);
  merge (both);
  for (guint i = 0; i < window->len; i++)
    e->window += g_array_index (window, Span, i).end - g_array_index (window, Span, i).start;
  e->comm = overlap (comm, window);
  e->compute = overlap (compute, window);
  e->covered = e->comm + e->compute - overlap (both, window);

  g_assert_cmpuint (window->len, ==, SYNTH_STEPS);
  for (guint k = 0; k < SYNTH_STEPS; k++)
    {
      g_autoptr(GArray) step = g_array_new (FALSE, FALSE, sizeof (Span));

      g_array_append_val (step, g_array_index (window, Span, k));
      e->step_comm[k] = overlap (comm, step);
      e->step_compute[k] = overlap (compute, step);
      e->step_covered[k] = e->step_comm[k] + e->step_compute[k] - overlap (both, step);
      for (guint32 t = 0; t < src->n_tracks; t++)
        {
          const KsTrack *track = &src->tracks[t];

          for (guint32 i = 0; track->kind == KS_TRACK_STREAM && i < track->n_slices; i++)
            {
              gint64 start = track->start[i];

              if (track->slice_kind[i] != KS_SLICE_KERNEL || !is_nccl (src, track, i))
                continue;
              if (slow)
                start += synth_delay (track, i, SYNTH_DELAY_NS);
              if (start >= g_array_index (step, Span, 0).start && start < g_array_index (step, Span, 0).end)
                e->step_delays[k] += synth_delay (track, i, SYNTH_DELAY_NS);
            }
        }
    }
}

/* Four ranks of the same job, rank 2 arriving 100 µs late at every
 * collective (at most its kernel's length): it is the straggler, each
 * other rank waits the delays' sum, and it caused three times that. */
static void
test_straggler (void)
{
  g_autoptr(KsTrace) src = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  g_autofree char *dir = NULL;
  SynthExpected fast, slow;
  const KsRankStats *rows;
  const KsCollective *cs;
  const KsAdvice *advice;
  gboolean said = FALSE;
  guint n;

  if (!have_corpus ("nccl_parser_config/nccl_data.json.gz"))
    return;
  src = load_source_rank ();
  dir = write_synthetic_folder (src);
  synth_expected (src, FALSE, &fast);
  synth_expected (src, TRUE, &slow);
  g_assert_cmpuint (fast.collectives, ==, 21);

  trace = load (dir);
  g_assert_cmpuint (trace->n_ranks, ==, SYNTH_RANKS);
  a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  rows = ks_analysis_get_rank_stats (a, &n);
  g_assert_cmpuint (n, ==, SYNTH_RANKS);
  for (guint r = 0; r < n; r++)
    {
      const SynthExpected *e = r == SYNTH_SLOW ? &slow : &fast;

      g_test_message ("rank %u", r);
      g_assert_cmpint (rows[r].rank, ==, r);
      g_assert_cmpuint (rows[r].steps, ==, 3);
      g_assert_cmpuint (rows[r].collectives, ==, 21);
      g_assert_cmpuint (rows[r].kernels, ==, 2700);
      g_assert_cmpint (rows[r].window_ns, ==, e->window);
      g_assert_cmpint (rows[r].comm_ns, ==, e->comm);
      g_assert_cmpint (rows[r].compute_ns, ==, e->compute);
      g_assert_cmpint (rows[r].exposed_comm_ns, ==, e->comm - e->covered);
      g_assert_cmpfloat_with_epsilon (rows[r].overlap_pct, 100.0 * e->covered / e->comm, 1e-9);
      g_assert_cmpint (rows[r].wait_ns, ==, r == SYNTH_SLOW ? 0 : fast.delays);
      g_assert_cmpint (rows[r].wait_caused_ns, ==, r == SYNTH_SLOW ? (SYNTH_RANKS - 1) * fast.delays : 0);
    }
  g_assert_cmpuint (ks_analysis_get_straggler (a), ==, SYNTH_SLOW);

  /* per rank and step */
  {
    const KsRankStep *steps = ks_analysis_get_rank_steps (a, &n);

    g_assert_cmpuint (n, ==, SYNTH_RANKS * SYNTH_STEPS);
    for (guint i = 0; i < n; i++)
      {
        guint r = i / SYNTH_STEPS, k = i % SYNTH_STEPS;
        const SynthExpected *e = r == SYNTH_SLOW ? &slow : &fast;

        g_assert_cmpint (steps[i].rank, ==, r);
        g_assert_cmpstr (ks_trace_string (trace, steps[i].name), ==,
                         ks_trace_string (trace, steps[k].name));
        g_assert_cmpint (steps[i].comm_ns, ==, e->step_comm[k]);
        g_assert_cmpint (steps[i].compute_ns, ==, e->step_compute[k]);
        g_assert_cmpint (steps[i].exposed_comm_ns, ==, e->step_comm[k] - e->step_covered[k]);
        g_assert_cmpint (steps[i].wait_ns, ==, r == SYNTH_SLOW ? 0 : e->step_delays[k]);
      }
  }
  /* one host's clock: the collectives' ends agree to the nanosecond */
  g_assert_cmpint (ks_analysis_get_clock_alignment (a)->method, ==, KS_CLOCK_SHARED);
  g_assert_cmpint (ks_analysis_get_clock_alignment (a)->skew_ns, ==, 0);

  /* every call matched: the Nth of process group "0" on each rank */
  cs = ks_analysis_get_collectives (a, &n);
  g_assert_cmpuint (n, ==, SYNTH_RANKS * 21);
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpuint (cs[i].last_rank, ==, SYNTH_SLOW);
      g_assert_cmpstr (cs[i].process_group, ==, "0");
      g_assert_cmpuint (cs[i].seq, ==, i % 21);
    }

  /* the others lose 3 × the delays of a 667 ms window per rank: under
   * the 5 % of the rule, so no straggler advice... */
  advice = ks_analysis_get_advice (a, &n);
  for (guint i = 0; i < n; i++)
    if (strcmp (advice[i].rule, "straggler") == 0)
      said = TRUE;
  g_assert_cmpfloat ((SYNTH_RANKS - 1) * fast.delays, <, 0.05 * fast.window);
  g_assert_false (said);

  remove_tree (dir);
}

/* ...and with 20 ms late per collective, it is. */
static void
test_straggler_advice (void)
{
  g_autoptr(KsTrace) src = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  const KsAdvice *advice;
  const KsAdvice *found = NULL;
  guint n;

  if (!have_corpus ("nccl_parser_config/nccl_data.json.gz"))
    return;
  src = load_source_rank ();
  dir = g_dir_make_tmp ("ks-ranks-slow-XXXXXX", &error);
  g_assert_no_error (error);
  write_rank (src, dir, 0, 2, 1, 20000000);
  write_rank (src, dir, 1, 2, 1, 20000000);
  trace = load (dir);
  a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  g_assert_cmpuint (ks_analysis_get_straggler (a), ==, 1);
  advice = ks_analysis_get_advice (a, &n);
  for (guint i = 0; i < n; i++)
    if (strcmp (advice[i].rule, "straggler") == 0)
      found = &advice[i];
  g_assert_nonnull (found);
  g_assert_nonnull (strstr (found->title, "rank 1"));
  g_assert_cmpuint (found->n_ranges, ==, 1);
  remove_tree (dir);
}

/* Ranks 2 and 3 on host "b", whose clock is 3.7 s ahead of host "a"'s:
 * aligned by the collectives' ends, rank 2 is still the straggler by the
 * same waits; without the alignment rank 2 and 3 would arrive 3.7 s
 * late at everything. */
static void
test_clock_alignment (void)
{
  g_autoptr(KsTrace) src = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  const gint64 shift = G_GINT64_CONSTANT (3700000000);
  const KsClockAlignment *clock;
  const KsRankStats *rows;
  SynthExpected fast;
  guint n;

  if (!have_corpus ("nccl_parser_config/nccl_data.json.gz"))
    return;
  src = load_source_rank ();
  synth_expected (src, FALSE, &fast);
  dir = g_dir_make_tmp ("ks-ranks-hosts-XXXXXX", &error);
  g_assert_no_error (error);
  for (guint k = 0; k < 4; k++)
    write_rank_on (src, dir, k, 4, 2, SYNTH_DELAY_NS, k < 2 ? "a" : "b", k < 2 ? 0 : shift);
  trace = load (dir);
  a = ks_analysis_compute (trace, NULL, NULL, NULL, NULL);
  clock = ks_analysis_get_clock_alignment (a);
  g_assert_cmpint (clock->method, ==, KS_CLOCK_COLLECTIVES);
  /* host b's ends, of rank 2 and 3 alike: the shift exactly */
  g_assert_cmpint (clock->skew_ns, ==, 0);
  rows = ks_analysis_get_rank_stats (a, &n);
  g_assert_cmpuint (n, ==, 4);
  g_assert_cmpstr (rows[0].host, ==, "a");
  g_assert_cmpstr (rows[3].host, ==, "b");
  g_assert_cmpint (rows[0].clock_offset_ns, ==, 0);
  g_assert_cmpint (rows[1].clock_offset_ns, ==, 0);
  g_assert_cmpint (rows[2].clock_offset_ns, ==, -shift);
  g_assert_cmpint (rows[3].clock_offset_ns, ==, -shift);
  g_assert_cmpuint (ks_analysis_get_straggler (a), ==, 2);
  g_assert_cmpint (rows[0].wait_ns, ==, fast.delays);
  g_assert_cmpint (rows[3].wait_ns, ==, fast.delays);
  g_assert_cmpint (rows[2].wait_caused_ns, ==, 3 * fast.delays);
  remove_tree (dir);
}

#ifdef KS_HAVE_RENDER
/* One group of rows per rank: each rank's GPU 0 is a GPU of its own, and
 * its process says whose it is. */
static void
test_timeline_rows (void)
{
  g_autoptr(KsTrace) src = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autofree char *dir = NULL;
  KsTimelineLayout *layout;
  guint gpu_groups = 0, rank_processes = 0;

  if (!have_corpus ("nccl_parser_config/nccl_data.json.gz"))
    return;
  src = load_source_rank ();
  dir = write_synthetic_folder (src);
  trace = load (dir);
  layout = ks_timeline_layout_new (trace);
  for (guint i = 0; i < ks_timeline_layout_get_n_rows (layout); i++)
    {
      const KsRow *row = ks_timeline_layout_get_row (layout, i);

      if (row->kind == KS_ROW_GROUP && row->group_kind == KS_GROUP_GPU)
        {
          g_autofree char *want = g_strdup_printf ("rank %u · GPU 0", gpu_groups);

          g_assert_cmpstr (row->label, ==, want);
          gpu_groups++;
        }
      else if (row->kind == KS_ROW_GROUP && row->group_kind == KS_GROUP_PROCESS)
        {
          g_autofree char *want = g_strdup_printf ("rank %u · process %u", rank_processes, 1000 + rank_processes);

          g_assert_cmpstr (row->label, ==, want);
          rank_processes++;
        }
      else if (row->kind == KS_ROW_SLICES)
        {
          const KsRow *group = ks_timeline_layout_get_row (layout, row->group);
          const KsTrack *track = &trace->tracks[row->index];
          guint32 rank = ks_trace_rank_of_group (trace, track->group);
          g_autofree char *prefix = g_strdup_printf ("rank %d · ", trace->ranks[rank].rank);

          /* every row under the group of its own rank */
          g_assert_true (g_str_has_prefix (group->label, prefix));
        }
    }
  g_assert_cmpuint (gpu_groups, ==, SYNTH_RANKS);
  g_assert_cmpuint (rank_processes, ==, SYNTH_RANKS);
  ks_timeline_layout_free (layout);
  remove_tree (dir);
}
#endif

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

/* The issue's shape: {"ranks":[{"rank", "file", "steps", "step_mean_ns",
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

  g_test_add_func ("/ranks/file-names", test_file_names);
  g_test_add_func ("/ranks/folder", test_folder_ranks);
  g_test_add_func ("/ranks/bad-distributed-info", test_bad_distributed_info);
  g_test_add_func ("/ranks/nccl-comms", test_nccl_comms);
  g_test_add_func ("/ranks/exposed-advice", test_exposed_advice);
  g_test_add_func ("/ranks/gloo", test_gloo);
  g_test_add_func ("/ranks/straggler", test_straggler);
  g_test_add_func ("/ranks/straggler-advice", test_straggler_advice);
  g_test_add_func ("/ranks/clock-alignment", test_clock_alignment);
#ifdef KS_HAVE_RENDER
  g_test_add_func ("/ranks/timeline-rows", test_timeline_rows);
#endif
  g_test_add_func ("/ranks/cli-reports", test_cli_reports);
  g_test_add_func ("/ranks/cli-merge", test_cli_merge);
  g_test_add_func ("/ranks/kscope-roundtrip", test_kscope_roundtrip);
  g_test_add_func ("/ranks/ddp-recording", test_ddp_recording);
  g_test_add_func ("/ranks/ddp-profiler-folder", test_ddp_profiler_folder);
  g_test_add_func ("/ranks/ddp-per-rank-copies", test_ddp_per_rank_copies);
  g_test_add_func ("/ranks/summaries-first", test_summaries_first);

  return g_test_run ();
}
