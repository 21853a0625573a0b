/* ks-bench-ranks.c: a folder of N ranks, opened whole and summarised
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Writes N copies of a real rank (HTA's nccl_data, 9.3 MB of Kineto JSON
 * with 21 NCCL collectives) as rank-0.json … rank-N-1.json, each saying
 * its rank in distributedInfo, then measures in child processes (wall
 * time, peak resident memory):
 *
 *   folder:  ks_trace_load() of the folder and its analysis: what the
 *            window and `stats --report ranks FOLDER` do, every rank in
 *            one trace;
 *   ranks:   `kinescope-cli ranks --jobs J FOLDER`: a summary a rank, J at
 *            a time, then merged.
 *
 * Usage: ks-bench-ranks [N [J [SOURCE.json.gz]]]  (default 64, the cores,
 * KS_SHARED_DIR/corpus/hta/nccl_parser_config/nccl_data.json.gz); run
 * from the build folder, which holds src/cli/kinescope-cli.
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

/* The source with distributedInfo's rank and world size replaced. */
static void
write_rank (const char *text,
            const char *dir,
            guint       k,
            guint       n)
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
  g_string_append (out, world_end);
  if (!g_file_set_contents (path, out->str, out->len, &error))
    g_error ("%s", error->message);
}

static void
report (const char           *what,
        gint64                t0,
        const struct rusage  *ru)
{
  printf ("%-8s %8.2f s wall  %8.2f s CPU  peak RSS %7.1f MiB\n", what,
          (g_get_monotonic_time () - t0) / 1e6,
          ru->ru_utime.tv_sec + ru->ru_stime.tv_sec + (ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1e6,
          ru->ru_maxrss / 1024.0);
}

int
main (int   argc,
      char *argv[])
{
  guint n = argc > 1 ? (guint)atoi (argv[1]) : 64;
  guint jobs = argc > 2 ? (guint)atoi (argv[2]) : g_get_num_processors ();
  const char *shared = g_getenv ("KS_SHARED_DIR");
  g_autofree char *source = argc > 3 ? g_strdup (argv[3])
                                     : g_build_filename (shared ? shared : "../../shared", "corpus", "hta",
                                                         "nccl_parser_config", "nccl_data.json.gz", NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("ks-bench-ranks-XXXXXX", &error);
  g_autofree char *text = NULL;
  g_autofree char *jobs_text = g_strdup_printf ("%u", jobs);
  struct rusage ru;
  gint64 t0;
  int status;
  pid_t pid;

  if (dir == NULL || n == 0 || jobs == 0)
    g_error ("usage: ks-bench-ranks [N [J [SOURCE.json.gz]]]");
  text = read_gz (source);
  for (guint k = 0; k < n; k++)
    write_rank (text, dir, k, n);
  printf ("%u ranks of %.1f MB (%s), %u jobs\n", n, strlen (text) / 1e6, source, jobs);
  g_clear_pointer (&text, g_free);

  /* the whole folder in one trace */
  t0 = g_get_monotonic_time ();
  pid = fork ();
  if (pid == 0)
    {
      g_autoptr(GFile) folder = g_file_new_for_path (dir);
      g_autoptr(KsTrace) trace = ks_trace_load (folder, NULL, NULL, &error);
      g_autoptr(KsAnalysis) a = trace ? ks_analysis_compute (trace, NULL, NULL, NULL, &error) : NULL;
      guint rows;

      if (a == NULL)
        g_error ("%s", error->message);
      ks_analysis_get_rank_stats (a, &rows);
      _exit (rows == n ? 0 : 1);
    }
  if (wait4 (pid, &status, 0, &ru) != pid || !WIFEXITED (status) || WEXITSTATUS (status) != 0)
    g_error ("the folder load failed");
  report ("folder", t0, &ru);

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
