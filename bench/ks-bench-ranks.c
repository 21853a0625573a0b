/* ks-bench-ranks.c: a folder of N ranks, opened whole and summarised
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Writes N copies of a real rank (HTA's nccl_data, 9.3 MB of Kineto JSON
 * with 21 NCCL collectives; with --size-mb S, that rank scaled to S MB by
 * bench/ks-gen-trace) as rank-0.json … rank-N-1.json, each saying its
 * rank in distributedInfo, the last one arriving --delay-us D late at
 * every NCCL kernel (the straggler, which each measure must name), then
 * measures in child processes (wall time, peak resident memory):
 *
 *   folder:     ks_trace_load() of the folder and its analysis: every rank
 *               in one trace, what the window and `stats --report ranks
 *               FOLDER` do within the memory bound;
 *   summaries:  ks_rank_summaries_add_traces() on J threads and the Ranks
 *               report: what the window does past the bound before it
 *               shows the Ranks page (and stats --report ranks);
 *   ranks:      `kinescope-cli ranks --jobs J FOLDER`.
 *
 * Usage: ks-bench-ranks [--size-mb S] [--delay-us D] [--no-folder]
 *                       [N [J [SOURCE.json.gz]]]
 * (default 64 ranks, J the cores, D 100 µs,
 * KS_SHARED_DIR/corpus/hta/nccl_parser_config/nccl_data.json.gz); run
 * from the build folder, which holds src/cli/kinescope-cli and
 * bench/ks-gen-trace.
 */

#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "ks-analysis.h"
#include "ks-json-reader.h"
#include "ks-rank-summaries.h"
#include "ks-report.h"
#include "ks-trace-loader.h"

static char *
read_gz (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(GFileInputStream) raw = g_file_read (file, NULL, &error);
  g_autoptr(GZlibDecompressor) z = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr(GInputStream) in = NULL;
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();

  if (raw == NULL)
    g_error ("%s: %s", path, error->message);
  in = g_converter_input_stream_new (G_INPUT_STREAM (raw), G_CONVERTER (z));
  if (g_output_stream_splice (out, in, G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE, NULL, &error) < 0)
    g_error ("%s: %s", path, error->message);
  g_output_stream_write (out, "", 1, NULL, NULL);
  g_output_stream_close (out, NULL, NULL);
  return g_memory_output_stream_steal_data (G_MEMORY_OUTPUT_STREAM (out));
}

/* @text with @delay_us added to the start of every NCCL kernel. */
static void
append_delayed (GString    *out,
                const char *text,
                double      delay_us)
{
  static const char mark[] = "\"cat\": \"kernel\", \"name\": \"nccl";
  const char *p = text;
  const char *hit;

  while (delay_us > 0 && (hit = strstr (p, mark)) != NULL)
    {
      const char *ts = strstr (hit, "\"ts\": ");
      char *end;
      double v;

      if (ts == NULL)
        break;
      ts += strlen ("\"ts\": ");
      v = g_ascii_strtod (ts, &end);
      g_string_append_len (out, p, ts - p);
      g_string_append_printf (out, "%.3f", v + delay_us);
      p = end;
    }
  g_string_append (out, p);
}

/* The source with distributedInfo's rank and world size replaced, its
 * collectives @delay_us late. */
static void
write_rank (const char *text,
            const char *dir,
            guint       k,
            guint       n,
            double      delay_us)
{
  const char *info = strstr (text, "\"distributedInfo\"");
  const char *rank = info ? strstr (info, "\"rank\": ") : NULL;
  const char *rank_end, *world, *world_end;
  g_autoptr(GString) out = g_string_new (NULL);
  g_autofree char *name = g_strdup_printf ("rank-%u.json", k);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;

  if (rank == NULL || (world = strstr (rank, "\"world_size\": ")) == NULL)
    g_error ("the source has no distributedInfo with a rank and a world size");
  rank_end = rank + strlen ("\"rank\": ");
  while (g_ascii_isdigit (*rank_end))
    rank_end++;
  world_end = world + strlen ("\"world_size\": ");
  while (g_ascii_isdigit (*world_end))
    world_end++;
  g_string_append_len (out, text, rank - text);
  g_string_append_printf (out, "\"rank\": %u", k);
  g_string_append_len (out, rank_end, world - rank_end);
  g_string_append_printf (out, "\"world_size\": %u", n);
  append_delayed (out, world_end, delay_us);
  if (!g_file_set_contents (path, out->str, out->len, &error))
    g_error ("%s", error->message);
}

static void
report (const char           *what,
        gint64                t0,
        const struct rusage  *ru)
{
  printf ("%-10s %8.2f s wall  %8.2f s CPU  peak RSS %7.1f MiB\n", what,
          (g_get_monotonic_time () - t0) / 1e6,
          ru->ru_utime.tv_sec + ru->ru_stime.tv_sec + (ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e6,
          ru->ru_maxrss / 1024.0);
}

/* The source rank scaled to @size_mb MB by bench/ks-gen-trace. */
static char *
scaled_source (const char *source,
               guint       size_mb,
               const char *dir)
{
  g_autofree char *out = g_build_filename (dir, "source.json", NULL);
  g_autofree char *size = g_strdup_printf ("%u", size_mb);
  const char *argv[] = { "bench/ks-gen-trace", "--input", source, "--size-mb", size, out, NULL };
  g_autoptr(GError) error = NULL;
  char *text = NULL;
  int status = 0;

  if (!g_spawn_sync (NULL, (char **)argv, NULL, G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL, NULL, &status, &error) ||
      !g_spawn_check_wait_status (status, &error) ||
      !g_file_get_contents (out, &text, NULL, &error))
    g_error ("bench/ks-gen-trace (run from the build folder): %s", error->message);
  g_unlink (out);
  return text;
}

/* The exit status of a measure: 0, or 2 when the straggler is not the
 * rank made late. */
static int
straggler_status (gint64 straggler,
                  guint  n,
                  double delay_us)
{
  return delay_us <= 0 || n < 2 || straggler == (gint64)n - 1 ? 0 : 2;
}

int
main (int   argc,
      char *argv[])
{
  int size_mb = 0;
  double delay_us = 100;
  gboolean no_folder = FALSE;
  const GOptionEntry entries[] = {
    { "size-mb", 0, 0, G_OPTION_ARG_INT, &size_mb, "Scale the rank to this many MB", "S" },
    { "delay-us", 0, 0, G_OPTION_ARG_DOUBLE, &delay_us, "The last rank's lateness at each collective", "D" },
    { "no-folder", 0, 0, G_OPTION_ARG_NONE, &no_folder, "Do not load the folder as one trace", NULL },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("[N [J [SOURCE.json.gz]]]");
  g_autoptr(GError) error = NULL;
  guint n, jobs;
  const char *shared = g_getenv ("KS_SHARED_DIR");
  g_autofree char *source = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *text = NULL;
  g_autofree char *jobs_text = NULL;
  struct rusage ru;
  gint64 t0;
  int status;
  pid_t pid;

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || size_mb < 0)
    g_error ("usage: ks-bench-ranks [--size-mb S] [--delay-us D] [--no-folder] [N [J [SOURCE.json.gz]]]");
  n = argc > 1 ? (guint)atoi (argv[1]) : 64;
  jobs = argc > 2 ? (guint)atoi (argv[2]) : g_get_num_processors ();
  source = argc > 3 ? g_strdup (argv[3])
                    : g_build_filename (shared ? shared : "../../shared", "corpus", "hta",
                                        "nccl_parser_config", "nccl_data.json.gz", NULL);
  dir = g_dir_make_tmp ("ks-bench-ranks-XXXXXX", &error);
  jobs_text = g_strdup_printf ("%u", jobs);
  if (dir == NULL || n == 0 || jobs == 0)
    g_error ("usage: ks-bench-ranks [--size-mb S] [--delay-us D] [--no-folder] [N [J [SOURCE.json.gz]]]");
  text = size_mb > 0 ? scaled_source (source, size_mb, dir) : read_gz (source);
  for (guint k = 0; k < n; k++)
    write_rank (text, dir, k, n, k == n - 1 ? delay_us : 0);
  printf ("%u ranks of %.1f MB (%s), %u jobs, rank %u %.0f µs late\n", n, strlen (text) / 1e6, source, jobs,
          n - 1, delay_us);
  fflush (stdout);
  g_clear_pointer (&text, g_free);

  /* the whole folder in one trace */
  if (!no_folder)
    {
      t0 = g_get_monotonic_time ();
      pid = fork ();
      if (pid == 0)
        {
          g_autoptr(GFile) folder = g_file_new_for_path (dir);
          g_autoptr(KsTrace) trace = ks_trace_load (folder, NULL, NULL, &error);
          g_autoptr(KsAnalysis) a = trace ? ks_analysis_compute (trace, NULL, NULL, NULL, &error) : NULL;
          const KsRankStats *rows;
          guint n_rows, s;

          if (a == NULL)
            g_error ("%s", error->message);
          rows = ks_analysis_get_rank_stats (a, &n_rows);
          s = ks_analysis_get_straggler (a);
          _exit (n_rows != n ? 1 : straggler_status (s != KS_NO_INDEX ? rows[s].rank : -1, n, delay_us));
        }
      if (wait4 (pid, &status, 0, &ru) != pid || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
        g_error ("the folder load failed, or named another straggler");
      report ("folder", t0, &ru);
    }

  /* the window past the memory bound: summaries, then the Ranks page */
  t0 = g_get_monotonic_time ();
  pid = fork ();
  if (pid == 0)
    {
      g_autoptr(GFile) folder = g_file_new_for_path (dir);
      g_autoptr(GPtrArray) files = ks_json_list_trace_files (folder, NULL, &error);
      g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
      g_autoptr(KsRankSummaries) summaries = ks_rank_summaries_new ();
      g_autoptr(KsReport) report = NULL;
      const KsRankStats *rows;
      guint n_rows, s;

      for (guint i = 0; files != NULL && i < files->len; i++)
        g_ptr_array_add (paths, g_file_get_path (g_ptr_array_index (files, i)));
      if (!ks_rank_summaries_add_traces (summaries, (const char * const *)paths->pdata, paths->len, jobs,
                                         TRUE, NULL, NULL, NULL, &error))
        g_error ("%s", error->message);
      ks_rank_summaries_finish (summaries);
      rows = ks_rank_summaries_get_rows (summaries, &n_rows);
      report = ks_report_new_rank_rows (rows, n_rows);
      s = ks_rank_summaries_get_straggler (summaries);
      _exit (n_rows != n ? 1 : straggler_status (s != KS_NO_INDEX ? rows[s].rank : -1, n, delay_us));
    }
  if (wait4 (pid, &status, 0, &ru) != pid || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
    g_error ("the summaries failed, or named another straggler");
  report ("summaries", t0, &ru);

  /* a summary a rank, then merged */
  t0 = g_get_monotonic_time ();
  pid = fork ();
  if (pid == 0)
    {
      int null = open ("/dev/null", O_WRONLY);

      dup2 (null, 1);
      execl ("src/cli/kinescope-cli", "kinescope-cli", "ranks", "--jobs", jobs_text, dir, (char *)NULL);
      _exit (127);
    }
  if (wait4 (pid, &status, 0, &ru) != pid || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
    g_error ("kinescope-cli ranks failed (run from the build folder)");
  report ("ranks", t0, &ru);

  for (guint k = 0; k < n; k++)
    {
      g_autofree char *name = g_strdup_printf ("rank-%u.json", k);
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (dir);
  return 0;
}
