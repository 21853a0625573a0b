/* ks-bench-nvtx.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The cost of NVTX calls to the program that makes them: run alone (the
 * NVTX stubs, no tool) and under `kinescope-cli record -t nvtx`
 * (docs/performance.md, "Recording overhead").
 *
 *   ks-bench-nvtx [ROUNDS]
 *
 * Each round times 1000 push/pop pairs, 1000 marks and 1000 start/end
 * pairs, then sleeps 20 ms so that the recorder keeps up (it writes some
 * 500 000 rows a second) and the collector's buffer never fills:
 * what is measured is the recording of every event, not dropping them.
 * Prints min, median and 90th percentile ns per call (per pair). */

#include <nvtx3/nvToolsExt.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define PER_ROUND 1000

static double
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int
compare_double (const void *a,
                const void *b)
{
  double x = *(const double *) a;
  double y = *(const double *) b;

  return (x > y) - (x < y);
}

int
main (int    argc,
      char **argv)
{
  static const char * const names[] = { "push + pop", "mark", "start + end" };
  int rounds = argc > 1 ? atoi (argv[1]) : 100;
  struct timespec pause = { 0, 20 * 1000 * 1000 };
  double *samples[3];

  if (rounds < 1)
    {
      fprintf (stderr, "usage: ks-bench-nvtx [ROUNDS]\n");
      return 2;
    }
  for (int k = 0; k < 3; k++)
    samples[k] = calloc ((size_t) rounds, sizeof (double));

  for (int r = 0; r < rounds; r++)
    {
      double t0 = now_ns ();

      for (int i = 0; i < PER_ROUND; i++)
        {
          nvtxRangePushA ("step");
          nvtxRangePop ();
        }
      samples[0][r] = (now_ns () - t0) / PER_ROUND;

      t0 = now_ns ();
      for (int i = 0; i < PER_ROUND; i++)
        nvtxMarkA ("tick");
      samples[1][r] = (now_ns () - t0) / PER_ROUND;

      t0 = now_ns ();
      for (int i = 0; i < PER_ROUND; i++)
        nvtxRangeEnd (nvtxRangeStartA ("load"));
      samples[2][r] = (now_ns () - t0) / PER_ROUND;

      nanosleep (&pause, NULL);
    }

  printf ("| call | min ns | median ns | p90 ns |\n|---|---|---|---|\n");
  for (int k = 0; k < 3; k++)
    {
      qsort (samples[k], (size_t) rounds, sizeof (double), compare_double);
      printf ("| %s | %.0f | %.0f | %.0f |\n", names[k], samples[k][0],
              samples[k][rounds / 2], samples[k][rounds * 9 / 10]);
      free (samples[k]);
    }
  return 0;
}
