/* ks-bench-memsnap-blocks.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The blocks row of a memory snapshot (every allocation by address):
 * the time to build the blocks from the snapshot, then the row's drawing
 * primitives per frame, at the whole snapshot and panning a view of 1 %
 * of it across, 1600 pixels wide, in CPU time (docs/performance.md, "GPU
 * memory snapshots").
 *
 *   python3 bench/gen-memsnap.py 1000000 /tmp/snap1m.pickle
 *   _build/bench/ks-bench-memsnap-blocks /tmp/snap1m.pickle
 */

#include "config.h"

#include <stdio.h>
#include <time.h>

#include "ks-memory-blocks.h"
#include "ks-timeline-layout.h"
#include "ks-trace-loader.h"

#define WIDTH 1600
#define PANS  100

/* CPU time, not wall time: the machines it runs on are shared, and
 * everything measured runs on this thread (the load's workers aside). */
static double
now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6;
}

static double
frame (KsTimelineLayout *layout,
       guint             row,
       const KsTimeView *view,
       guint            *rects)
{
  KsPrims prims;
  double t0 = now_ms ();

  ks_prims_init (&prims);
  ks_timeline_layout_build_prims (layout, row, view, ks_theme_get (FALSE), NULL, &prims);
  *rects = prims.rects->len;
  ks_prims_clear (&prims);
  return now_ms () - t0;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsTimelineLayout) layout = NULL;
  const KsMemoryBlocks *blocks;
  guint row = KS_NO_INDEX, rects = 0, max_rects = 0;
  guint64 n_blocks = 0;
  double t, load_ms, blocks_ms, whole_ms, worst = 0, sum = 0;
  KsTimeView view;

  if (argc != 2)
    {
      fprintf (stderr, "usage: %s SNAPSHOT.pickle\n", argv[0]);
      return 2;
    }
  file = g_file_new_for_commandline_arg (argv[1]);
  t = now_ms ();
  trace = ks_trace_load (file, NULL, NULL, &error);
  if (trace == NULL)
    {
      fprintf (stderr, "%s\n", error->message);
      return 1;
    }
  load_ms = now_ms () - t;

  t = now_ms ();
  blocks = ks_memory_blocks_get (trace);
  blocks_ms = now_ms () - t;
  for (guint d = 0; d < blocks->n_devices; d++)
    n_blocks += blocks->devices[d].blocks->len;

  layout = ks_timeline_layout_new (trace);
  for (guint r = 0; r < ks_timeline_layout_get_n_rows (layout) && row == KS_NO_INDEX; r++)
    if (ks_timeline_layout_get_row (layout, r)->kind == KS_ROW_MEMORY_BLOCKS)
      row = r;
  if (row == KS_NO_INDEX)
    {
      fprintf (stderr, "%s: no blocks row\n", argv[1]);
      return 1;
    }

  view.t0 = 0;
  view.width = WIDTH;
  view.ns_per_px = (double) trace->duration_ns / WIDTH;
  whole_ms = frame (layout, row, &view, &rects);
  printf ("load %.0f ms, blocks %.0f ms (%" G_GUINT64_FORMAT " blocks), whole snapshot frame %.1f ms (%u rects)\n",
          load_ms, blocks_ms, n_blocks, whole_ms, rects);

  /* 1 % of the snapshot, panned from its start to its end */
  view.ns_per_px = trace->duration_ns / 100.0 / WIDTH;
  for (guint i = 0; i < PANS; i++)
    {
      double ms;

      view.t0 = (double) trace->duration_ns * i / PANS;
      ms = frame (layout, row, &view, &rects);
      sum += ms;
      worst = MAX (worst, ms);
      max_rects = MAX (max_rects, rects);
    }
  printf ("1 %% view panned: mean %.2f ms, worst %.2f ms a frame (at most %u rects)\n", sum / PANS, worst, max_rects);
  return 0;
}
