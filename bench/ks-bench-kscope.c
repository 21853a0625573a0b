/* ks-bench-kscope.c: saving as .kscope, and reloading it versus importing
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   ks-bench-kscope [--repeat N] [--keep] FILE...
 *
 * For each trace file: the import time (the file's own reader, through
 * ks_trace_load), the time to save it as .kscope and the file size, and
 * the time to load that .kscope again. Each time is the best of N runs
 * (default 3) with the file in the page cache, as when a user opens a
 * trace a second time; CPU seconds (all threads) are given beside the
 * wall-clock seconds. The .kscope goes beside the input unless
 * $KS_BENCH_DIR names another folder.
 */

#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "ks-kscope-writer.h"
#include "ks-sqlite-reader.h"
#include "ks-trace-loader.h"

static double
now (void)
{
  return g_get_monotonic_time () / 1e6;
}

/* CPU seconds of the process, all threads: less sensitive than the wall
 * clock to other work on the machine. */
static double
cpu_now (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static guint64
count_events (KsTrace *trace)
{
  KsTraceCounts counts;
  guint64 n = 0;

  ks_trace_get_counts (trace, &counts);
  for (guint k = 0; k < KS_N_SLICE_KINDS; k++)
    n += counts.by_kind[k];
  return n + counts.flows + counts.memory_events + counts.counter_samples + counts.instants;
}

static goffset
file_size (const char *path)
{
  GStatBuf st;

  return g_stat (path, &st) == 0 ? st.st_size : 0;
}

int
main (int    argc,
      char **argv)
{
  int repeat = 3;
  gboolean keep = FALSE;
  GOptionEntry entries[] = {
    { "repeat", 'r', 0, G_OPTION_ARG_INT, &repeat, "Runs per measurement (best is kept)", "N" },
    { "keep", 'k', 0, G_OPTION_ARG_NONE, &keep, "Keep the .kscope files", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("FILE… — .kscope save and reload times");
  g_autoptr(GError) error = NULL;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc < 2 || repeat < 1)
    {
      g_printerr ("%s\n", error ? error->message : "usage: ks-bench-kscope [--repeat N] FILE…");
      return 2;
    }

  printf ("| file | input MB | events | import s (CPU) | save s | .kscope MB | reload s (CPU) | import / reload (CPU) |\n");
  printf ("|---|---:|---:|---:|---:|---:|---:|---:|\n");

  for (int i = 1; i < argc; i++)
    {
      g_autoptr(GFile) input = g_file_new_for_commandline_arg (argv[i]);
      g_autofree char *base = g_file_get_basename (input);
      g_autofree char *out_dir = g_strdup (g_getenv ("KS_BENCH_DIR"));
      g_autofree char *out_path = NULL;
      g_autoptr(GFile) out = NULL;
      g_autoptr(KsTrace) trace = NULL;
      double import_s = G_MAXDOUBLE, save_s = G_MAXDOUBLE, reload_s = G_MAXDOUBLE;
      double import_cpu = G_MAXDOUBLE, reload_cpu = G_MAXDOUBLE;
      guint64 events = 0;

      if (out_dir == NULL)
        {
          g_autofree char *in_path = g_file_get_path (input);

          out_dir = g_path_get_dirname (in_path);
        }
      out_path = g_strdup_printf ("%s/%s.bench.kscope", out_dir, base);
      out = g_file_new_for_path (out_path);

      for (int r = 0; r < repeat; r++)
        {
          double t0 = now ();
          double c0 = cpu_now ();

          g_clear_object (&trace);
          trace = ks_trace_load (input, NULL, NULL, &error);
          if (trace == NULL)
            {
              g_printerr ("%s\n", error->message);
              return 1;
            }
          import_s = MIN (import_s, now () - t0);
          import_cpu = MIN (import_cpu, cpu_now () - c0);
        }
      events = count_events (trace);

      for (int r = 0; r < repeat; r++)
        {
          double t0 = now ();

          if (!ks_kscope_write (trace, out, NULL, NULL, &error))
            {
              g_printerr ("%s\n", error->message);
              return 1;
            }
          save_s = MIN (save_s, now () - t0);
        }
      g_clear_object (&trace);

      for (int r = 0; r < repeat; r++)
        {
          double t0 = now ();
          double c0 = cpu_now ();
          g_autoptr(KsTrace) back = ks_sqlite_reader_load (out, NULL, NULL, &error);
          double cpu = cpu_now () - c0;

          if (back == NULL)
            {
              g_printerr ("%s\n", error->message);
              return 1;
            }
          reload_s = MIN (reload_s, now () - t0);
          reload_cpu = MIN (reload_cpu, cpu);
          if (count_events (back) != events)
            {
              g_printerr ("%s: %" G_GUINT64_FORMAT " events after reloading, %" G_GUINT64_FORMAT " before\n",
                          base, count_events (back), events);
              return 1;
            }
        }

      printf ("| %s | %.1f | %" G_GUINT64_FORMAT " | %.3f (%.3f) | %.3f | %.1f | %.3f (%.3f) | %.1f× (%.1f×) |\n",
              base, file_size (argv[i]) / 1e6, events, import_s, import_cpu, save_s,
              file_size (out_path) / 1e6, reload_s, reload_cpu,
              import_s / reload_s, import_cpu / reload_cpu);
      fflush (stdout);

      if (!keep)
        g_unlink (out_path);
    }

  return 0;
}
