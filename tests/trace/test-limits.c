/* test-limits.c: hostile sizes and times
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Traces with a million threads or streams, one more than the model
 * holds, and times at the ends of the int64 range. The files are written
 * by the tests themselves.
 */

#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <glib/gstdio.h>

#include "ks-trace-builder.h"
#include "ks-trace-loader.h"

#define MANY 1000000

typedef enum
{
  SHAPE_THREADS,       /* one X event on each of N tids of one pid */
  SHAPE_STREAMS,       /* one kernel on each of N "stream N" rows of GPU 0 */
} Shape;

/* Writes a JSON trace of @n events of @shape into a new temporary file;
 * returns its path. */
static char *
write_shape (Shape   shape,
             guint32 n)
{
  char *path = NULL;
  int fd = g_file_open_tmp (shape == SHAPE_THREADS ? "ks-threads-XXXXXX.json" : "ks-streams-XXXXXX.json",
                            &path, NULL);
  FILE *f = fdopen (fd, "w");

  g_assert_nonnull (f);
  fputs ("{\"traceEvents\":[\n", f);
  for (guint32 i = 0; i < n; i++)
    {
      if (shape == SHAPE_THREADS)
        fprintf (f, "%s{\"ph\":\"X\",\"name\":\"op\",\"pid\":1,\"tid\":%u,\"ts\":%u,\"dur\":1}",
                 i ? ",\n" : "", i + 1, i);
      else
        fprintf (f, "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,"
                 "\"tid\":\"stream %u\",\"ts\":%u,\"dur\":1}", i ? ",\n" : "", i + 1, i);
    }
  fputs ("]}\n", f);
  g_assert_cmpint (fclose (f), ==, 0);
  return path;
}

/* Loads the file at @path, which is removed. */
static KsTrace *
load_and_remove (const char  *path,
                 GError     **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  KsTrace *trace = ks_trace_load (file, NULL, NULL, error);

  g_unlink (path);
  return trace;
}

static KsTrace *
load_text (const char  *json,
           GError     **error)
{
  g_autofree char *path = NULL;
  int fd = g_file_open_tmp ("ks-times-XXXXXX.json", &path, NULL);

  g_assert_cmpint (fd, >=, 0);
  close (fd);
  g_assert_true (g_file_set_contents (path, json, -1, NULL));
  return load_and_remove (path, error);
}

static gint64
peak_rss_bytes (void)
{
  struct rusage usage;

  g_assert_cmpint (getrusage (RUSAGE_SELF, &usage), ==, 0);
  return (gint64)usage.ru_maxrss * 1024;
}

#if defined(__SANITIZE_ADDRESS__)
# define UNDER_ASAN 1
#elif defined(__has_feature)
# if __has_feature(address_sanitizer)
#  define UNDER_ASAN 1
# endif
#endif

/* A million threads with one slice each load, and each costs a few
 * hundred bytes at the peak of the load (3.1 KB before the builder kept
 * small tracks packed). Run in a child so that the peak is this load's. */
static void
test_million_threads (void)
{
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  KsTraceCounts counts;
  gint64 before, per_track;

  if (!g_test_subprocess ())
    {
      g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDOUT | G_TEST_SUBPROCESS_INHERIT_STDERR);
      g_test_trap_assert_passed ();
      return;
    }

  path = write_shape (SHAPE_THREADS, MANY);
  before = peak_rss_bytes ();
  trace = load_and_remove (path, &error);
  g_assert_no_error (error);

  g_assert_cmpuint (trace->n_processes, ==, 1);
  g_assert_cmpuint (trace->n_threads, ==, MANY);
  g_assert_cmpuint (trace->n_tracks, ==, MANY);
  ks_trace_get_counts (trace, &counts);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_GENERIC], ==, MANY);
  g_assert_cmpint (trace->duration_ns, ==, (gint64)MANY * 1000);
  for (guint32 i = 0; i < MANY; i += 99991)
    {
      const KsThread *thread = &trace->threads[i];
      const KsTrack *track = &trace->tracks[thread->track];

      g_assert_cmpint (thread->tid, ==, i + 1);
      g_assert_cmpuint (track->kind, ==, KS_TRACK_THREAD);
      g_assert_cmpuint (track->thread, ==, i);
      g_assert_cmpuint (track->n_slices, ==, 1);
      g_assert_cmpuint (track->max_depth, ==, 1);
      g_assert_cmpint (track->start[0], ==, (gint64)i * 1000);
      g_assert_cmpint (track->end[0], ==, (gint64)i * 1000 + 1000);
      g_assert_cmpstr (ks_trace_string (trace, track->name_id[0]), ==, "op");
      g_assert_cmpuint (ks_track_slice_at (track, (gint64)i * 1000 + 500, G_MAXUINT), ==, 0);
    }

  per_track = (peak_rss_bytes () - before) / MANY;
  g_test_message ("peak RSS of the load: %" G_GINT64_FORMAT " bytes a track", per_track);
#ifndef UNDER_ASAN
  g_assert_cmpint (per_track, <, 700);
#endif
}

/* One row more than the model holds: an error naming the file and the
 * limit, not an abort (2 million GPU streams used to abort in an
 * allocation under a 6 GiB limit). */
static void
test_too_many (gconstpointer data)
{
  Shape shape = GPOINTER_TO_INT (data);
  g_autofree char *path = write_shape (shape, MANY + 1);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_and_remove (path, &error);

  g_assert_null (trace);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, path));
  g_assert_nonnull (strstr (error->message, shape == SHAPE_THREADS ? "more than 1000000 threads"
                                                                 : "more than 1000000 tracks"));
}

/* Counters and processes have the same limit, for any reader. */
static void
test_builder_limits (void)
{
  struct { const char *name; const char *message; } cases[] = {
    { "processes", "more than 1000000 processes" },
    { "counters", "more than 1000000 counters" },
    { "async", "more than 1000000 tracks" },
  };

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(KsTrace) trace = NULL;
      KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_KSCOPE);
      guint32 p = ks_trace_builder_get_process (b, 1);

      ks_trace_builder_set_metadata (b, "source_name", "hostile.kscope");
      for (guint32 i = 0; i <= MANY; i++)
        {
          char name[16];
          guint32 id;

          g_snprintf (name, sizeof name, "r%u", i);
          if (c == 0)
            {
              id = ks_trace_builder_get_process (b, 2 + i);
              g_assert_cmpuint (id, <, ks_trace_builder_get_n_processes (b));
            }
          else if (c == 1)
            ks_trace_builder_add_counter_sample (b, ks_trace_builder_get_counter (b, name, "%", -1, p),
                                                 i, 1.0);
          else
            ks_trace_builder_add_slice (b, ks_trace_builder_get_async_track (b, p, name), i, i + 1,
                                        KS_SLICE_ASYNC, 0, 0, 0, 0, 0, NULL);
        }
      trace = ks_trace_builder_finish (b, NULL, &error);
      g_assert_null (trace);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
      g_assert_nonnull (strstr (error->message, "hostile.kscope: "));
      g_assert_nonnull (strstr (error->message, cases[c].message));
    }
}

/* baseTimeNanoseconds at the ends of the int64 range: the wall clock of
 * time 0 would overflow (and printed a negative start); it is dropped
 * with a warning and the trace loads. */
static void
test_base_time_overflow (void)
{
  const char *base[] = { "9223372036854775807", "-9223372036854775808", "9223372036854775000" };

  for (guint i = 0; i < G_N_ELEMENTS (base); i++)
    {
      g_autofree char *json = g_strdup_printf (
        "{\"schemaVersion\":1,\"baseTimeNanoseconds\":%s,\"traceEvents\":["
        "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1000000,\"dur\":5}]}",
        base[i]);
      g_autoptr(GError) error = NULL;
      g_autoptr(KsTrace) trace = load_text (json, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (trace->n_tracks, ==, 1);
      g_assert_cmpint (trace->origin_ns, ==, G_GINT64_CONSTANT (1000000000));
      g_assert_cmpint (trace->duration_ns, ==, 5000);
      g_assert_cmpint (trace->start_utc_ns, ==, 0);
      g_assert_nonnull (strstr (ks_trace_get_metadata (trace, "warnings"), "wall-clock start"));
    }
}

/* Timestamps and durations next to the int64 limits, in every kind of
 * event whose times reach the builder, in a trace whose own times are
 * microseconds since the epoch (as Kineto's): no arithmetic overflows
 * (the sanitizer build checks that; a flow from -9e18 ns overflowed when
 * shifted by the origin), impossible times are left out with a warning,
 * and what is left has sane times. */
static void
test_extreme_times (void)
{
#define T0 "17000000000000"   /* the trace's times are T0 followed by two digits */
  const char *json =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"name\":\"ok\",\"pid\":1,\"tid\":1,\"ts\":" T0 "10,\"dur\":5},"
    /* 9.2e18 µs does not fit in ns; INT64_MAX µs neither */
    "{\"ph\":\"X\",\"name\":\"far\",\"pid\":1,\"tid\":1,\"ts\":9223372036854775,\"dur\":1},"
    "{\"ph\":\"X\",\"name\":\"far\",\"pid\":1,\"tid\":1,\"ts\":9223372036854775807,\"dur\":1},"
    "{\"ph\":\"X\",\"name\":\"far\",\"pid\":1,\"tid\":1,\"ts\":-9223372036854775808,\"dur\":1},"
    /* ts fits, ts + dur does not; then it does, but past 2^62 ns */
    "{\"ph\":\"X\",\"name\":\"long\",\"pid\":1,\"tid\":1,\"ts\":" T0 "20,\"dur\":9223372036854775},"
    "{\"ph\":\"X\",\"name\":\"long\",\"pid\":1,\"tid\":1,\"ts\":4611686018427387,\"dur\":4611686018427387},"
    /* a negative duration: a zero-length slice; one past -2^63 ns: left out */
    "{\"ph\":\"X\",\"name\":\"neg\",\"pid\":1,\"tid\":1,\"ts\":" T0 "30,\"dur\":-5},"
    "{\"ph\":\"X\",\"name\":\"neg\",\"pid\":1,\"tid\":1,\"ts\":" T0 "40,\"dur\":-9223372036854776},"
    "{\"ph\":\"B\",\"name\":\"b\",\"pid\":1,\"tid\":2,\"ts\":-9000000000000000},"
    "{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":" T0 "10},"
    "{\"ph\":\"B\",\"name\":\"b2\",\"pid\":1,\"tid\":2,\"ts\":" T0 "11},"
    "{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":" T0 "12},"
    "{\"ph\":\"s\",\"cat\":\"fwd\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":" T0 "11},"
    "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"fwd\",\"id\":1,\"pid\":1,\"tid\":2,\"ts\":9000000000000000},"
    "{\"ph\":\"s\",\"cat\":\"fwd\",\"id\":2,\"pid\":1,\"tid\":1,\"ts\":-9000000000000000},"
    "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"fwd\",\"id\":2,\"pid\":1,\"tid\":2,\"ts\":" T0 "11.5},"
    "{\"ph\":\"s\",\"cat\":\"fwd\",\"id\":3,\"pid\":1,\"tid\":1,\"ts\":" T0 "11},"
    "{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"fwd\",\"id\":3,\"pid\":1,\"tid\":2,\"ts\":" T0 "11.5},"
    "{\"ph\":\"C\",\"name\":\"c\",\"pid\":1,\"ts\":9000000000000000,\"args\":{\"v\":1}},"
    "{\"ph\":\"C\",\"name\":\"c\",\"pid\":1,\"ts\":" T0 "13,\"args\":{\"v\":2}},"
    "{\"ph\":\"i\",\"name\":\"i\",\"pid\":1,\"tid\":1,\"ts\":-9000000000000000,\"s\":\"t\"},"
    "{\"ph\":\"i\",\"name\":\"i\",\"pid\":1,\"tid\":1,\"ts\":" T0 "14,\"s\":\"t\"},"
    "{\"ph\":\"b\",\"cat\":\"a\",\"name\":\"async\",\"id\":5,\"pid\":1,\"ts\":-9000000000000000},"
    "{\"ph\":\"e\",\"cat\":\"a\",\"name\":\"async\",\"id\":5,\"pid\":1,\"ts\":" T0 "15}"
    "]}";
#undef T0
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, &error);
  KsTraceCounts counts;

  g_assert_no_error (error);
  g_assert_cmpint (trace->origin_ns, ==, G_GINT64_CONSTANT (1700000000000010000));
  g_assert_cmpint (trace->duration_ns, ==, 20000);
  ks_trace_get_counts (trace, &counts);
  /* ok, neg and b2 */
  g_assert_cmpuint (counts.by_kind[KS_SLICE_GENERIC], ==, 3);
  g_assert_cmpuint (counts.by_kind[KS_SLICE_ASYNC], ==, 0);
  g_assert_cmpuint (counts.counter_samples, ==, 1);
  g_assert_cmpuint (counts.instants, ==, 1);
  /* only flow 3 has both ends inside the trace */
  g_assert_cmpuint (counts.flows, ==, 1);
  for (guint32 t = 0; t < trace->n_tracks; t++)
    for (guint32 i = 0; i < trace->tracks[t].n_slices; i++)
      {
        g_assert_cmpint (trace->tracks[t].start[i], >=, 0);
        g_assert_cmpint (trace->tracks[t].end[i], <=, trace->duration_ns);
      }
  g_assert_nonnull (strstr (ks_trace_get_metadata (trace, "warnings"), "events with impossible times"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/limits/million-threads", test_million_threads);
  g_test_add_data_func ("/limits/too-many-threads", GINT_TO_POINTER (SHAPE_THREADS), test_too_many);
  g_test_add_data_func ("/limits/too-many-streams", GINT_TO_POINTER (SHAPE_STREAMS), test_too_many);
  g_test_add_func ("/limits/builder", test_builder_limits);
  g_test_add_func ("/limits/base-time-overflow", test_base_time_overflow);
  g_test_add_func ("/limits/extreme-times", test_extreme_times);
  return g_test_run ();
}
