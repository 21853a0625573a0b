/* ks-bench-critical-path.c: time of the critical path of every step
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Loads a trace, analyses it once (steps past warm-up and with it), then
 * times ks_critical_path_compute() over every step, without rules and
 * with --what-if RULES, --repeat times each; prints the fastest run in
 * CPU time of the computing thread (the machine is shared: wall time
 * says more about the neighbours).
 *
 *   ks-bench-critical-path [--repeat N] [--what-if RULES] FILE
 */

#include "config.h"

#include <stdio.h>
#include <time.h>

#include "ks-analysis.h"
#include "ks-critical-path.h"
#include "ks-trace-loader.h"

static double
thread_seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double
time_path (KsTrace        *trace,
           KsAnalysis     *analysis,
           const KsWhatIf *what_if,
           int             repeat,
           guint          *n_steps,
           guint64        *n_segments)
{
  double best = G_MAXDOUBLE;

  for (int r = 0; r < repeat; r++)
    {
      g_autoptr(GError) error = NULL;
      double t0 = thread_seconds ();
      g_autoptr(KsCriticalPath) path = ks_critical_path_compute (trace, analysis, NULL, what_if, NULL, &error);
      double s = thread_seconds () - t0;
      const KsPathStep *steps;

      if (path == NULL)
        g_error ("%s", error->message);
      best = MIN (best, s);
      steps = ks_critical_path_get_steps (path, n_steps);
      *n_segments = 0;
      for (guint i = 0; i < *n_steps; i++)
        *n_segments += steps[i].n_segments;
    }
  return best;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = g_option_context_new ("FILE");
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) analysis = NULL;
  g_autoptr(KsWhatIf) what_if = NULL;
  g_autofree char *rules = NULL;
  KsAnalysisOptions options;
  KsTraceCounts counts;
  guint64 slices = 0, n_segments = 0;
  guint n_steps = 0;
  int repeat = 3;
  double plain, retimed;
  const GOptionEntry entries[] = {
    { "repeat", 0, 0, G_OPTION_ARG_INT, &repeat, "Runs of each, the fastest printed (3)", "N" },
    { "what-if", 0, 0, G_OPTION_ARG_STRING, &rules, "Rules of the second timing (dataloader=0,launch=0.5)", "RULES" },
    { NULL }
  };

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc != 2 || repeat < 1)
    {
      g_printerr ("usage: ks-bench-critical-path [--repeat N] [--what-if RULES] FILE\n");
      return 2;
    }
  what_if = ks_what_if_parse (rules != NULL ? rules : "dataloader=0,launch=0.5", &error);
  if (what_if == NULL)
    {
      g_printerr ("%s\n", error->message);
      return 2;
    }

  file = g_file_new_for_commandline_arg (argv[1]);
  trace = ks_trace_load (file, NULL, NULL, &error);
  if (trace == NULL)
    {
      g_printerr ("%s: %s\n", argv[1], error->message);
      return 1;
    }
  ks_analysis_options_init (&options);
  options.include_warmup = TRUE;
  analysis = ks_analysis_compute (trace, &options, NULL, NULL, &error);
  if (analysis == NULL)
    {
      g_printerr ("%s: %s\n", argv[1], error->message);
      return 1;
    }
  ks_trace_get_counts (trace, &counts);
  for (guint k = 0; k < KS_N_SLICE_KINDS; k++)
    slices += counts.by_kind[k];

  plain = time_path (trace, analysis, NULL, repeat, &n_steps, &n_segments);
  retimed = time_path (trace, analysis, what_if, repeat, &n_steps, &n_segments);
  printf ("%s: %" G_GUINT64_FORMAT " slices, %u steps, %" G_GUINT64_FORMAT " path segments\n",
          argv[1], slices, n_steps, n_segments);
  printf ("  critical path: %.3f s CPU\n", plain);
  printf ("  with what-if %s: %.3f s CPU\n", ks_what_if_get_text (what_if), retimed);
  return 0;
}
