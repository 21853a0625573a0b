/* ks-bench-compare.c: comparing two traces against loading both
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   ks-bench-compare [--repeat N] BASE NEW
 *
 * Times, in the same process and one after the other: loading and
 * analysing BASE, then NEW (what opening both costs, one by one), then
 * ks_compare_load() of the pair (both loaded and analysed at once, each
 * in its own thread, then matched), and the matching alone
 * (ks_compare_new() on the two analyses). One row per round with wall
 * clock and CPU seconds; with --repeat N, N rounds and a line of
 * medians. Both files are read once, untimed, first, so that every
 * load finds them in the page cache.
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <gio/gio.h>

#include "ks-compare.h"
#include "ks-trace-loader.h"

typedef struct
{
  double wall;
  double cpu;
} Cost;

static double
cpu_seconds (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static void
warm (const char *path)
{
  g_autofree char *data = NULL;
  gsize len;

  if (!g_file_get_contents (path, &data, &len, NULL))
    {
      fprintf (stderr, "ks-bench-compare: cannot read %s\n", path);
      exit (1);
    }
}

/* Loads and analyses @path; keeps the trace and its analysis in @trace
 * and @analysis for the matching. */
static void
load_one (const char  *path,
          KsTrace    **trace,
          KsAnalysis **analysis)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;

  *trace = ks_trace_load (file, NULL, NULL, &error);
  if (*trace != NULL)
    *analysis = ks_analysis_compute (*trace, NULL, NULL, NULL, &error);
  if (*trace == NULL || *analysis == NULL)
    {
      fprintf (stderr, "ks-bench-compare: %s\n", error->message);
      exit (1);
    }
}

static int
cmp_double (const void *a,
            const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;

  return (x > y) - (x < y);
}

static double
median (double *v,
        guint   n)
{
  qsort (v, n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int
main (int    argc,
      char **argv)
{
  int repeat = 1;
  const char *paths[2];
  g_autofree double *cols[6] = { NULL };
  GOptionEntry entries[] = {
    { "repeat", 'r', 0, G_OPTION_ARG_INT, &repeat, "Rounds (default 1)", "N" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("BASE NEW");
  g_autoptr(GError) error = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc != 3 || repeat < 1)
    {
      fprintf (stderr, "usage: ks-bench-compare [--repeat N] BASE NEW\n");
      return 2;
    }
  paths[0] = argv[1];
  paths[1] = argv[2];
  warm (paths[0]);
  warm (paths[1]);
  for (guint c = 0; c < G_N_ELEMENTS (cols); c++)
    cols[c] = g_new0 (double, repeat);

  printf ("%-6s %12s %12s %12s %12s %12s %12s\n", "round", "one-by-one s", "cpu s", "compare s", "cpu s",
          "matching ms", "ratio");
  for (int r = 0; r < repeat; r++)
    {
      KsTrace *traces[2] = { NULL };
      KsAnalysis *analyses[2] = { NULL };
      g_autoptr(GFile) base = g_file_new_for_path (paths[0]);
      g_autoptr(GFile) other = g_file_new_for_path (paths[1]);
      g_autoptr(KsCompare) loaded = NULL;
      g_autoptr(KsCompare) matched = NULL;
      gint64 t0;
      double c0;
      Cost seq, cmp;
      double match_ms;

      t0 = g_get_monotonic_time ();
      c0 = cpu_seconds ();
      for (guint s = 0; s < 2; s++)
        load_one (paths[s], &traces[s], &analyses[s]);
      seq.wall = (g_get_monotonic_time () - t0) / 1e6;
      seq.cpu = cpu_seconds () - c0;

      /* The matching alone, on analyses already there. */
      t0 = g_get_monotonic_time ();
      matched = ks_compare_new (traces[0], analyses[0], paths[0], traces[1], analyses[1], paths[1]);
      match_ms = (g_get_monotonic_time () - t0) / 1e3;
      g_clear_object (&matched);
      for (guint s = 0; s < 2; s++)
        {
          g_clear_object (&analyses[s]);
          g_clear_object (&traces[s]);
        }

      t0 = g_get_monotonic_time ();
      c0 = cpu_seconds ();
      loaded = ks_compare_load (base, other, NULL, NULL, &error);
      cmp.wall = (g_get_monotonic_time () - t0) / 1e6;
      cmp.cpu = cpu_seconds () - c0;
      if (loaded == NULL)
        {
          fprintf (stderr, "ks-bench-compare: %s\n", error->message);
          return 1;
        }

      cols[0][r] = seq.wall;
      cols[1][r] = seq.cpu;
      cols[2][r] = cmp.wall;
      cols[3][r] = cmp.cpu;
      cols[4][r] = match_ms;
      cols[5][r] = cmp.wall / seq.wall;
      printf ("%-6d %12.3f %12.3f %12.3f %12.3f %12.2f %12.3f\n", r + 1, seq.wall, seq.cpu, cmp.wall, cmp.cpu,
              match_ms, cols[5][r]);
      fflush (stdout);
    }
  if (repeat > 1)
    {
      printf ("%-6s", "median");
      for (guint c = 0; c < G_N_ELEMENTS (cols); c++)
        printf (c == 4 ? " %12.2f" : " %12.3f", median (cols[c], repeat));
      printf ("\n");
    }
  return 0;
}
