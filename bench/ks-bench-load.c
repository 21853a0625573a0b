/* ks-bench-load.c: how fast traces load and how much memory they keep
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   ks-bench-load [--gzip-baseline] [--yajl-baseline] [--repeat N] FILE...
 *
 * Each file is loaded in a child process of its own (so that the peak
 * RSS is that file's) and gets one row: file and JSON size, events, wall
 * and CPU time of the load, MB of JSON per wall second and per CPU
 * second, events per second, model bytes per event with strings and
 * args (B/ev) and without (B/ev*), peak RSS and peak RSS per event. With
 * --gzip-baseline, .gz files are also timed with `gzip -dc FILE >
 * /dev/null` (wall clock) and the ratio of the load to it is printed;
 * with --yajl-baseline, the rate of yajl alone with empty callbacks over
 * the same bytes (the ceiling for a yajl-based reader) is added. With
 * --repeat N, every file is loaded N times (one row each) and a line
 * with the best and the median MB per CPU second follows: one load on a
 * shared machine varies by several percent.
 *
 * Every file is read once, untimed, before it is loaded (and before the
 * baselines run), so that all of them find it in the page cache, as when
 * a trace is opened a second time: the numbers are those of the parser,
 * not of the disk. (A machine that pages out cold page cache, such as a
 * virtual machine with DAMON reclaim, would otherwise make the first
 * load of a file read it from disk.)
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

#include <yajl/yajl_parse.h>

#include "ks-gzip.h"
#include "ks-trace-loader.h"

static guint64
json_size (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileInputStream) in = g_file_read (file, NULL, NULL);
  g_autoptr(KsGzip) gz = NULL;
  g_autofree guint8 *buf = g_malloc (1 << 20);
  g_autofree guint8 *out = g_malloc (1 << 20);
  guint64 total = 0;
  gssize n;

  if (in == NULL)
    return 0;
  if (!g_str_has_suffix (path, ".gz"))
    {
      g_autoptr(GFileInfo) info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_SIZE, 0, NULL, NULL);

      return info ? g_file_info_get_size (info) : 0;
    }
  gz = ks_gzip_new ();
  while ((n = g_input_stream_read (G_INPUT_STREAM (in), buf, 1 << 20, NULL, NULL)) > 0)
    {
      gssize got;

      ks_gzip_set_input (gz, buf, n);
      while ((got = ks_gzip_inflate (gz, out, 1 << 20, NULL)) > 0)
        total += got;
      if (got < 0)
        break;
    }
  return total;
}

/* The ceiling: yajl alone, with callbacks that do nothing, over the
 * same (decompressed) bytes; CPU seconds. */
static int noop (void *ctx) { return 1; }
static int noop_bool (void *ctx, int b) { return 1; }
static int noop_num (void *ctx, const char *s, size_t l) { return 1; }
static int noop_str (void *ctx, const unsigned char *s, size_t l) { return 1; }

static double
yajl_baseline (const char *path)
{
  static const yajl_callbacks cb = {
    noop, noop_bool, NULL, NULL, noop_num, noop_str, noop, noop_str, noop, noop, noop,
  };
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileInputStream) in = g_file_read (file, NULL, NULL);
  g_autoptr(KsGzip) gz = g_str_has_suffix (path, ".gz") ? ks_gzip_new () : NULL;
  g_autofree guint8 *buf = g_malloc (1 << 20);
  g_autofree guint8 *out = g_malloc (1 << 20);
  yajl_handle h = yajl_alloc (&cb, NULL, NULL);
  struct rusage ru0, ru1;
  gssize n;

  if (in == NULL)
    return -1;
  yajl_config (h, yajl_allow_trailing_garbage, 1);
  getrusage (RUSAGE_SELF, &ru0);
  while ((n = g_input_stream_read (G_INPUT_STREAM (in), buf, 1 << 20, NULL, NULL)) > 0)
    {
      if (gz == NULL)
        {
          yajl_parse (h, buf, n);
          continue;
        }
      ks_gzip_set_input (gz, buf, n);
      for (gssize got; (got = ks_gzip_inflate (gz, out, 1 << 20, NULL)) > 0;)
        yajl_parse (h, out, got);
    }
  yajl_complete_parse (h);
  getrusage (RUSAGE_SELF, &ru1);
  yajl_free (h);
  return (ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) + (ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e6 +
         (ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) + (ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;
}

static double
gzip_baseline (const char *path)
{
  g_autofree char *cmd = g_strdup_printf ("gzip -dc '%s' > /dev/null", path);
  const char *argv[] = { "/bin/sh", "-c", cmd, NULL };
  gint64 t0 = g_get_monotonic_time ();
  int status;

  if (!g_spawn_sync (NULL, (char **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL, &status, NULL) ||
      status != 0)
    return -1;
  return (g_get_monotonic_time () - t0) / 1e6;
}

static gboolean with_yajl;

static void
warm_page_cache (const char *path)
{
  g_autofree guint8 *buf = g_malloc (1 << 20);
  int fd = open (path, O_RDONLY);

  if (fd < 0)
    return;
  posix_fadvise (fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  while (read (fd, buf, 1 << 20) > 0)
    ;
  close (fd);
}

static int
measure (const char *path,
         gboolean    baseline,
         int         report_fd)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileInfo) info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_SIZE, 0, NULL, NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  guint64 json = json_size (path);
  double gz_s = -1;
  struct rusage ru0, ru1;
  gint64 t0, t1;
  KsTraceCounts c;
  guint64 events = 0;
  gsize total, strings;
  double secs, cpu;

  warm_page_cache (path);
  if (baseline && g_str_has_suffix (path, ".gz"))
    gz_s = gzip_baseline (path);

  getrusage (RUSAGE_SELF, &ru0);
  t0 = g_get_monotonic_time ();
  trace = ks_trace_load (file, NULL, NULL, &error);
  t1 = g_get_monotonic_time ();
  getrusage (RUSAGE_SELF, &ru1);
  if (trace == NULL)
    {
      g_printerr ("%s\n", error->message);
      return 1;
    }

  ks_trace_get_counts (trace, &c);
  for (guint k = 0; k < KS_N_SLICE_KINDS; k++)
    events += c.by_kind[k];
  events += c.flows + c.memory_events + c.counter_samples + c.instants;

  total = ks_trace_get_memory_size (trace, &strings);
  secs = (t1 - t0) / 1e6;
  cpu = (ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) + (ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e6 +
        (ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) + (ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;

  printf ("%-22s %8.1f %8.1f %9.2f %7.2f %7.2f %7.1f %7.1f %8.2f %6.1f %7.1f %8.1f %8.0f",
          g_path_get_basename (path),
          (info ? g_file_info_get_size (info) : 0) / 1e6,
          json / 1e6, events / 1e6, secs, cpu, json / 1e6 / secs, json / 1e6 / cpu,
          events / secs / 1e6,
          (double)total / events, (double)(total - strings) / events,
          ru1.ru_maxrss / 1024.0, ru1.ru_maxrss * 1024.0 / events);
  if (gz_s >= 0)
    printf (" %11.2f %6.2fx", gz_s, secs / gz_s);
  else if (baseline)
    printf (" %11s %7s", "", "");
  if (with_yajl)
    printf (" %10.1f", json / 1e6 / yajl_baseline (path));
  printf ("\n");
  fflush (stdout);
  if (report_fd >= 0)
    {
      double rate = json / 1e6 / cpu;

      if (write (report_fd, &rate, sizeof rate) != sizeof rate)
        return 1;
    }
  return 0;
}

static int
compare_doubles (gconstpointer a,
                 gconstpointer b)
{
  double x = *(const double *)a;
  double y = *(const double *)b;

  return (x > y) - (x < y);
}

int
main (int    argc,
      char **argv)
{
  gboolean baseline = FALSE;
  int first = 1;
  int status = 0;
  int repeat = 1;

  for (; first < argc && g_str_has_prefix (argv[first], "--"); first++)
    {
      if (strcmp (argv[first], "--gzip-baseline") == 0)
        baseline = TRUE;
      else if (strcmp (argv[first], "--yajl-baseline") == 0)
        with_yajl = TRUE;
      else if (strcmp (argv[first], "--repeat") == 0 && first + 1 < argc && atoi (argv[first + 1]) > 0)
        repeat = atoi (argv[++first]);
      else
        {
          g_printerr ("ks-bench-load: unknown option %s\n", argv[first]);
          return 2;
        }
    }
  if (first >= argc)
    {
      g_printerr ("usage: ks-bench-load [--gzip-baseline] [--yajl-baseline] [--repeat N] FILE...\n");
      return 2;
    }

  printf ("%-22s %8s %8s %9s %7s %7s %7s %7s %8s %6s %7s %8s %8s%s%s\n",
          "file", "file MB", "JSON MB", "M events", "wall s", "cpu s", "MB/s", "MB/cpu-s",
          "Mev/s", "B/ev", "B/ev*", "peak MiB", "RSS B/ev", baseline ? "  gzip -dc s  ratio" : "",
          with_yajl ? " yajl MB/cpu-s" : "");
  fflush (stdout);

  for (int i = first; i < argc; i++)
    {
      g_autoptr(GArray) rates = g_array_new (FALSE, FALSE, sizeof (double));

      for (int k = 0; k < repeat; k++)
        {
          int fds[2];
          pid_t pid;
          int st;
          double rate;

          if (pipe (fds) != 0)
            return 1;
          pid = fork ();
          if (pid == 0)
            {
              close (fds[0]);
              _exit (measure (argv[i], baseline, fds[1]));
            }
          close (fds[1]);
          if (read (fds[0], &rate, sizeof rate) == sizeof rate)
            g_array_append_val (rates, rate);
          close (fds[0]);
          waitpid (pid, &st, 0);
          if (!WIFEXITED (st) || WEXITSTATUS (st) != 0)
            status = 1;
        }
      if (repeat > 1 && rates->len > 0)
        {
          g_autofree char *name = g_path_get_basename (argv[i]);

          g_array_sort (rates, compare_doubles);
          printf ("%-22s %u loads: MB per CPU second best %.1f, median %.1f, worst %.1f\n", name, rates->len,
                  g_array_index (rates, double, rates->len - 1),
                  g_array_index (rates, double, rates->len / 2),
                  g_array_index (rates, double, 0));
          fflush (stdout);
        }
    }
  return status;
}
