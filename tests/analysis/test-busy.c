/* test-busy.c: one GPU-busy rule for the Summary, a range and the ranks
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The Summary's GPU busy time, the Selection page's range statistics and
 * the Ranks report all count busy time through
 * ks_analysis_options_busy_kinds (): with "count copies as busy" on, the
 * three agree with each other and with a union recomputed here from the
 * raw slices, and copies add to the kernels' busy time.
 */

#include "config.h"

#include <stdlib.h>

#include "ks-analysis.h"
#include "ks-range-stats.h"
#include "ks-trace-loader.h"

static KsTrace *
load (const char *name)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KsTrace *trace = ks_trace_load (file, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

static int
compare_ranges (const void *a,
                const void *b)
{
  const gint64 *ra = a, *rb = b;

  return (ra[0] > rb[0]) - (ra[0] < rb[0]);
}

/* The union of @device's kernels (and copies when @copies) clipped to
 * [@start, @end), from the trace's slices alone. */
static gint64
recompute_busy (KsTrace  *trace,
                gint32    device,
                gboolean  copies,
                gint64    start,
                gint64    end)
{
  g_autoptr(GArray) iv = g_array_new (FALSE, FALSE, 2 * sizeof (gint64));
  gint64 total = 0, cur_start = 0, cur_end = G_MININT64;

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind != KS_TRACK_STREAM || track->device != device)
        continue;
      for (guint32 i = 0; i < track->n_slices; i++)
        {
          KsSliceKind kind = track->slice_kind[i];
          gint64 r[2] = { MAX (track->start[i], start), MIN (track->end[i], end) };

          if (kind != KS_SLICE_KERNEL && !(copies && (kind == KS_SLICE_MEMCPY || kind == KS_SLICE_MEMSET)))
            continue;
          if (r[1] > r[0])
            g_array_append_val (iv, r);
        }
    }
  qsort (iv->data, iv->len, 2 * sizeof (gint64), compare_ranges);
  for (guint i = 0; i < iv->len; i++)
    {
      const gint64 *r = (const gint64 *)(gpointer)iv->data + 2 * i;

      if (r[0] > cur_end)
        {
          if (cur_end > G_MININT64)
            total += cur_end - cur_start;
          cur_start = r[0];
          cur_end = r[1];
        }
      else
        cur_end = MAX (cur_end, r[1]);
    }
  if (cur_end > G_MININT64)
    total += cur_end - cur_start;
  return total;
}

/* Busy time in the counted steps of @trace's one GPU, three ways. */
static gint64
check_agree (KsTrace  *trace,
             gboolean  copies)
{
  KsAnalysisOptions options;
  g_autoptr(KsAnalysis) analysis = NULL;
  const KsGpuSummary *gpus;
  const KsRankStats *ranks;
  const KsStep *steps;
  guint n_gpus, n_ranks, n_steps, counted = 0;
  gint64 range_sum = 0, recomputed = 0;

  ks_analysis_options_init (&options);
  options.busy_includes_copies = copies;
  analysis = ks_analysis_compute (trace, &options, NULL, NULL, NULL);
  g_assert_nonnull (analysis);

  gpus = ks_analysis_get_gpus (analysis, &n_gpus);
  g_assert_cmpuint (n_gpus, ==, 1);
  g_assert_true (gpus[0].window_is_steps);

  /* the Selection page: range statistics over each counted step */
  steps = ks_analysis_get_steps (analysis, &n_steps);
  for (guint i = 0; i < n_steps; i++)
    {
      g_autoptr(KsRangeStats) stats = NULL;

      if (!ks_analysis_step_counts (analysis, &steps[i]))
        continue;
      counted++;
      stats = ks_range_stats_compute (trace, &options, steps[i].start, steps[i].end, NULL);
      g_assert_cmpuint (stats->gpus->len, ==, 1);
      range_sum += g_array_index (stats->gpus, KsRangeGpu, 0).busy_ns;
      recomputed += recompute_busy (trace, gpus[0].device, copies, steps[i].start, steps[i].end);
    }
  g_assert_cmpuint (counted, >, 0);

  /* the Summary */
  g_assert_cmpint (gpus[0].busy_in_window_ns, ==, recomputed);
  g_assert_cmpint (range_sum, ==, recomputed);

  /* the Ranks report: one row for a trace without ranks, the same share */
  ranks = ks_analysis_get_rank_stats (analysis, &n_ranks);
  g_assert_cmpuint (n_ranks, ==, 1);
  g_assert_cmpint (ranks[0].window_ns, ==, gpus[0].window_ns);
  g_assert_cmpfloat_with_epsilon (ranks[0].busy_pct, gpus[0].busy_pct, 1e-9);
  g_assert_cmpfloat_with_epsilon (ranks[0].busy_pct, 100.0 * recomputed / gpus[0].window_ns, 1e-9);

  return recomputed;
}

static void
test_three_agree (void)
{
  g_autoptr(KsTrace) trace = load ("gpt_3steps.pt.trace.json.gz");
  gint64 kernels = check_agree (trace, FALSE);
  gint64 with_copies = check_agree (trace, TRUE);

  /* its 72 memcpy and 180 memset add busy time the kernels do not cover */
  g_assert_cmpint (kernels, ==, 17140363);
  g_assert_cmpint (with_copies, ==, 17474731);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/busy/three-agree", test_three_agree);

  return g_test_run ();
}
