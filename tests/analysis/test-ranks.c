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

#include "ranks-test-util.h"

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

  return g_test_run ();
}
