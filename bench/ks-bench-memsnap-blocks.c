/* ks-bench-memsnap-blocks.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Opening a memory snapshot as the window does, headless: from the start
 * of the load to the blocks row ready (what the loader's worker builds
 * before the timeline shows the trace) and to the analysis ready (which
 * the worker starts on another thread meanwhile); then the blocks row's
 * drawing primitives per frame, at the whole snapshot and panning views
 * of 1, 2.5, 3, 10 and 30 % of it across, 1600 pixels wide (docs/performance.md, "GPU memory
 * snapshots").
 *
 *   python3 bench/gen-memsnap.py 1000000 /tmp/snap1m.pickle
 *   _build/bench/ks-bench-memsnap-blocks [--sequential] /tmp/snap1m.pickle
 *
 * Times are wall and CPU (every thread of the process), for shared
 * machines where the wall clock says little. --sequential does each
 * step alone on this thread instead (the load, the blocks, the memory
 * series, the analysis), to see what each costs.
 */

#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "ks-analysis.h"
#include "ks-memory-blocks.h"
#include "ks-memory-series.h"
#include "ks-timeline-layout.h"
#include "ks-trace-loader.h"

#define WIDTH 1600
#define PANS  100

typedef struct
{
  double wall_ms;
  double cpu_ms;
} Clock;

static double
clock_ms (clockid_t id)
{
  struct timespec ts;

  clock_gettime (id, &ts);
  return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static Clock
now (void)
{
  return (Clock) { clock_ms (CLOCK_MONOTONIC), clock_ms (CLOCK_PROCESS_CPUTIME_ID) };
}

static void
report (const char *what,
        Clock       since)
{
  Clock t = now ();

  printf ("%-28s wall %8.0f ms  cpu %8.0f ms\n", what, t.wall_ms - since.wall_ms, t.cpu_ms - since.cpu_ms);
  fflush (stdout);
}

/* A frame's primitives, in this thread's CPU time: a frame is drawn on
 * the main thread while nothing else runs. */
static double
frame (KsTimelineLayout *layout,
       guint             row,
       const KsTimeView *view,
       guint            *rects)
{
  KsPrims prims;
  double t0 = clock_ms (CLOCK_THREAD_CPUTIME_ID);

  ks_prims_init (&prims);
  ks_timeline_layout_build_prims (layout, row, view, ks_theme_get (FALSE), NULL, &prims);
  *rects = prims.rects->len;
  ks_prims_clear (&prims);
  return clock_ms (CLOCK_THREAD_CPUTIME_ID) - t0;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsTimelineLayout) layout = NULL;
  g_autoptr(KsAnalysis) analysis = NULL;
  KsAnalysisOptions options;
  const KsMemoryBlocks *blocks;
  gboolean sequential = argc == 3 && strcmp (argv[1], "--sequential") == 0;
  const double view_percent[] = { 1, 2.5, 3, 10, 30 };
  guint row = KS_NO_INDEX, rects = 0;
  guint64 n_blocks = 0, n_long = 0, lod_bytes = 0, lod_walk = 0, blocks_bytes = 0;
  double whole_ms;
  Clock start, step;
  KsTimeView view;

  if (argc != 2 && !sequential)
    {
      fprintf (stderr, "usage: %s [--sequential] SNAPSHOT.pickle\n", argv[0]);
      return 2;
    }
  file = g_file_new_for_commandline_arg (argv[argc - 1]);
  ks_analysis_options_init (&options);

  start = step = now ();
  trace = ks_trace_load (file, NULL, NULL, &error);
  if (trace == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  report ("load", step);
  if (sequential)
    {
      step = now ();
      blocks = ks_memory_blocks_get (trace);
      report ("blocks", step);
      step = now ();
      ks_memory_series_get (trace);
      report ("memory series", step);
      step = now ();
      analysis = ks_analysis_compute (trace, &options, NULL, NULL, &error);
      report ("analysis", step);
    }
  else
    {
      /* what the window's loader does before it hands the trace over */
      step = now ();
      ks_memory_blocks_prepare (trace, &options, NULL);
      blocks = ks_memory_blocks_get (trace);
      report ("blocks and series", step);
      report ("  from the start: timeline", start);
      analysis = ks_analysis_compute (trace, &options, NULL, NULL, &error);
      report ("  from the start: analysis", start);
    }
  if (analysis == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  for (guint d = 0; d < blocks->n_devices; d++)
    {
      n_blocks += blocks->devices[d].blocks->len;
      n_long += blocks->devices[d].long_blocks->len;
      /* the blocks with their running ends, against the levels of detail */
      blocks_bytes += blocks->devices[d].blocks->len * (sizeof (KsMemoryBlock) + sizeof (gint64));
      for (guint k = 0; k < blocks->devices[d].n_lod; k++)
        {
          const KsMemoryLodLevel *level = &blocks->devices[d].lod[k];

          lod_bytes += (guint64) level->n_buckets * KS_MEMORY_LOD_WORDS * sizeof (guint64) +
                       level->walk->len * sizeof (guint32);
          lod_walk += level->walk->len;
        }
    }
  printf ("levels of detail: %.1f MB (%" G_GUINT64_FORMAT " blocks walked over all levels), "
          "the blocks: %.1f MB\n", lod_bytes / 1e6, lod_walk, blocks_bytes / 1e6);

  step = now ();
  layout = ks_timeline_layout_new (trace);
  report ("timeline layout", step);
  for (guint r = 0; r < ks_timeline_layout_get_n_rows (layout) && row == KS_NO_INDEX; r++)
    if (ks_timeline_layout_get_row (layout, r)->kind == KS_ROW_MEMORY_BLOCKS)
      row = r;
  if (row == KS_NO_INDEX)
    {
      fprintf (stderr, "%s: no blocks row\n", argv[argc - 1]);
      return 1;
    }

  view.t0 = 0;
  view.width = WIDTH;
  view.ns_per_px = (double) trace->duration_ns / WIDTH;
  whole_ms = frame (layout, row, &view, &rects);
  printf ("%" G_GUINT64_FORMAT " blocks (%" G_GUINT64_FORMAT " long), whole snapshot frame %.1f ms (%u rects)\n",
          n_blocks, n_long, whole_ms, rects);

  /* views of 1 to 30 % of the snapshot, panned from its start to
   * its end */
  for (guint v = 0; v < G_N_ELEMENTS (view_percent); v++)
    {
      double sum = 0, worst = 0;
      guint max_rects = 0;

      view.ns_per_px = trace->duration_ns * view_percent[v] / 100.0 / WIDTH;
      for (guint i = 0; i < PANS; i++)
        {
          double ms;

          view.t0 = (double) trace->duration_ns * i / PANS;
          ms = frame (layout, row, &view, &rects);
          sum += ms;
          worst = MAX (worst, ms);
          max_rects = MAX (max_rects, rects);
        }
      printf ("%g %% view panned: mean %.2f ms, worst %.2f ms a frame (at most %u rects)\n", view_percent[v],
              sum / PANS, worst, max_rects);
    }
  return 0;
}
