/* test-analysis-memory.c: memory analyses on hand-made traces
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "test-analysis-fixture.h"

/* Memory */

static void
add_mem (Fixture *f,
         gint64   ts,
         guint64  address,
         gint64   bytes,
         gint64   allocated,
         gint64   reserved)
{
  KsMemoryEvent ev = { 0 };

  ev.ts = BASE + ts;
  ev.address = address;
  ev.bytes = bytes;
  ev.total_allocated = allocated;
  ev.total_reserved = reserved;
  ev.thread = f->main_thread;
  ev.device = 0;
  ks_trace_builder_add_memory_event (f->b, &ev);
}

static void
test_memory (void)
{
  Fixture f;
  KsGpu gpu = { 0 };
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  const KsMemoryCurve *curves;
  const KsAllocation *allocs;
  const KsAdvice *advice;
  guint n;

  f.b = ks_trace_builder_new (KS_FORMAT_KINETO_JSON);
  f.process = ks_trace_builder_get_process (f.b, 100);
  f.main_thread = ks_trace_builder_get_thread (f.b, f.process, 100);
  f.main_track = ks_trace_builder_get_thread_track (f.b, f.main_thread);
  f.stream = ks_trace_builder_get_stream_track (f.b, 0, 7);
  gpu.device = 0;
  gpu.total_memory = 2100;
  ks_trace_builder_add_gpu (f.b, &gpu);

  cpu (&f, f.main_track, 0, 1000, KS_SLICE_USER_ANNOTATION, "ProfilerStep#1", NULL);
  cpu (&f, f.main_track, 50, 120, KS_SLICE_CPU_OP, "aten::zeros", NULL);
  cpu (&f, f.main_track, 150, 250, KS_SLICE_CPU_OP, "aten::empty", NULL);
  gpu_work (&f, f.stream, 0, 1000, KS_SLICE_KERNEL, "k", 0, NULL, NULL);
  add_mem (&f, 100, 0x10, 1000, 1000, 2000);
  add_mem (&f, 200, 0x20, 500, 1500, 2000);
  add_mem (&f, 300, 0x10, -1000, 500, 2000);
  add_mem (&f, 400, 0x10, 300, 800, 2000);
  trace = fixture_finish (&f);
  a = analyse (trace, 10000, FALSE);

  curves = ks_analysis_get_memory_curves (a, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpint (curves->device, ==, 0);
  g_assert_cmpuint (curves->n_points, ==, 4);
  g_assert_cmpint (curves->points[2].allocated, ==, 500);
  g_assert_cmpint (curves->peak_allocated, ==, 1500);
  g_assert_cmpint (curves->peak_allocated_ts, ==, 200);
  g_assert_cmpstr (ks_trace_string (trace, curves->peak_operator), ==, "aten::empty");
  g_assert_cmpint (curves->peak_reserved, ==, 2000);
  g_assert_cmpuint (curves->total_memory, ==, 2100);

  allocs = ks_analysis_get_allocations (a, &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpint (allocs[0].bytes, ==, 1000);
  g_assert_cmpint (allocs[0].free_ts, ==, 300);
  g_assert_cmpint (allocs[0].lifetime_ns, ==, 200);
  g_assert_cmpstr (ks_trace_string (trace, allocs[0].operator_name), ==, "aten::zeros");
  g_assert_cmpint (allocs[1].free_ts, ==, -1);
  g_assert_cmpint (allocs[1].lifetime_ns, ==, -1);
  g_assert_cmpint (allocs[2].alloc_ts, ==, 400);
  g_assert_cmpint (allocs[2].free_ts, ==, -1);
  g_assert_cmpuint (allocs[2].operator_name, ==, 0);

  /* 2000 of 2100 bytes reserved: above 90 % */
  advice = find_advice (a, "memory-capacity");
  g_assert_nonnull (advice);
  g_assert_cmpint (advice->ranges[0].start, ==, 100);
  /* GPU fully busy: no utilization advice */
  g_assert_null (find_advice (a, "low-gpu-busy"));
  g_assert_null (find_advice (a, "launch-bound"));
}

/* A hostile trace's 9.2 EB allocation (INT64_MAX bytes) and totals no
 * machine has: they are left out, counted, and the peak is that of the
 * plausible events; nothing overflows (run under -fsanitize=undefined). */
static void
test_memory_impossible (void)
{
  Fixture f;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  const KsMemoryCurve *curves;
  const KsAllocation *allocs;
  guint n;

  fixture_init (&f);
  cpu (&f, f.main_track, 0, 1000, KS_SLICE_USER_ANNOTATION, "ProfilerStep#1", NULL);
  gpu_work (&f, f.stream, 0, 1000, KS_SLICE_KERNEL, "k", 0, NULL, NULL);
  /* Without totals the curve is the running sum of the sizes. */
  add_mem (&f, 100, 0x10, 1000, -1, -1);
  add_mem (&f, 200, 0x20, G_MAXINT64, -1, -1);
  add_mem (&f, 300, 0x30, 500, -1, -1);
  add_mem (&f, 400, 0x20, -G_MAXINT64, -1, -1);
  add_mem (&f, 500, 0x40, G_MININT64, -1, -1);
  add_mem (&f, 600, 0x50, 8, G_MAXINT64, G_MAXINT64);
  add_mem (&f, 700, 0x30, -500, -1, -1);
  trace = fixture_finish (&f);
  a = analyse (trace, 10000, FALSE);

  curves = ks_analysis_get_memory_curves (a, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (curves->n_points, ==, 3);
  g_assert_cmpint (curves->peak_allocated, ==, 1500);
  g_assert_cmpint (curves->peak_allocated_ts, ==, 300);
  g_assert_cmpint (curves->points[2].allocated, ==, 1000);
  g_assert_cmpint (curves->peak_reserved, ==, -1);

  allocs = ks_analysis_get_allocations (a, &n);
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpint (allocs[0].bytes, ==, 1000);
  g_assert_cmpint (allocs[1].bytes, ==, 500);
  g_assert_cmpint (allocs[1].lifetime_ns, ==, 400);

  g_assert_cmpuint (ks_analysis_get_n_ignored_memory_events (a), ==, 4);
  {
    const char * const *warnings = ks_analysis_get_warnings (a);

    g_assert_nonnull (warnings);
    g_assert_nonnull (warnings[0]);
    g_assert_nonnull (strstr (warnings[0], "4 memory events"));
    g_assert_null (warnings[1]);
  }
}

/* Allocator counters with impossible values: left out the same way. */
static void
test_memory_impossible_counters (void)
{
  Fixture f;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  const KsMemoryCurve *curves;
  guint32 counter;
  guint n;

  fixture_init (&f);
  gpu_work (&f, f.stream, 0, 1000, KS_SLICE_KERNEL, "k", 0, NULL, NULL);
  counter = ks_trace_builder_get_counter (f.b, "Memory Allocated", "bytes", 0, KS_NO_INDEX);
  ks_trace_builder_add_counter_sample (f.b, counter, BASE + 100, 2048);
  ks_trace_builder_add_counter_sample (f.b, counter, BASE + 200, 1e30);
  ks_trace_builder_add_counter_sample (f.b, counter, BASE + 300, NAN);
  ks_trace_builder_add_counter_sample (f.b, counter, BASE + 400, 4096);
  trace = fixture_finish (&f);
  a = analyse (trace, 10000, FALSE);

  curves = ks_analysis_get_memory_curves (a, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpuint (curves->n_points, ==, 2);
  g_assert_cmpint (curves->peak_allocated, ==, 4096);
  g_assert_cmpuint (ks_analysis_get_n_ignored_memory_events (a), ==, 2);
}

/* Pageable copies and tiny kernels */

static void
test_pageable_and_tiny (void)
{
  Fixture f;
  KsGpuInfo pageable = { 0 };
  KsGpuInfo pinned = { 0 };
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) a = NULL;
  const KsAdvice *advice;
  guint32 corr = 1000;

  fixture_init (&f);
  cpu (&f, f.main_track, 0, 2000000, KS_SLICE_USER_ANNOTATION, "ProfilerStep#1", NULL);
  /* 100 kernels of 2 µs, one every 20 µs: 10 % busy */
  for (guint i = 0; i < 100; i++)
    launch (&f, f.main_track, 20000 * i + 1000, 20000 * i + 5000, "cudaLaunchKernel",
            20000 * i + 10000, 20000 * i + 12000, KS_SLICE_KERNEL, "tiny");

  pageable.copy.bytes = 4096;
  pageable.copy.copy_kind = KS_COPY_HTOD;
  pageable.copy.src_kind = KS_MEM_PAGEABLE;
  pageable.copy.dst_kind = KS_MEM_DEVICE;
  pinned = pageable;
  pinned.copy.src_kind = KS_MEM_PINNED;
  ks_trace_builder_add_slice (f.b, f.main_track, BASE + 2001000, BASE + 2002000, KS_SLICE_CUDA_RUNTIME,
                              ks_trace_builder_intern (f.b, "cudaMemcpyAsync"), 0, corr, 0, 0, NULL);
  ks_trace_builder_add_slice (f.b, f.stream, BASE + 2003000, BASE + 2004000, KS_SLICE_MEMCPY,
                              ks_trace_builder_intern (f.b, "Memcpy HtoD (Pageable -> Device)"), 0, corr, 0, 0, &pageable);
  ks_trace_builder_add_slice (f.b, f.main_track, BASE + 2005000, BASE + 2006000, KS_SLICE_CUDA_RUNTIME,
                              ks_trace_builder_intern (f.b, "cudaMemcpyAsync"), 0, corr + 1, 0, 0, NULL);
  ks_trace_builder_add_slice (f.b, f.stream, BASE + 2007000, BASE + 2009000, KS_SLICE_MEMCPY,
                              ks_trace_builder_intern (f.b, "Memcpy HtoD (Pinned -> Device)"), 0, corr + 1, 0, 0, &pinned);
  trace = fixture_finish (&f);
  a = analyse (trace, 10000, FALSE);

  advice = find_advice (a, "launch-bound");
  g_assert_nonnull (advice);
  g_assert_nonnull (strstr (advice->evidence, "100 kernels"));

  advice = find_advice (a, "pageable-memcpy");
  g_assert_nonnull (advice);
  g_assert_cmpuint (advice->n_ranges, ==, 1);
  g_assert_cmpint (advice->ranges[0].start, ==, 2003000);
  g_assert_cmpint (advice->ranges[0].end, ==, 2004000);
  g_test_message ("%s", advice->evidence);
  g_assert_nonnull (strstr (advice->evidence, "1 asynchronous copy"));
  g_assert_nonnull (strstr (advice->evidence, "4.0\u00a0KiB, 1.00 µs"));

  g_assert_null (find_advice (a, "dataloader"));
  g_assert_null (find_advice (a, "sync-calls"));
  g_assert_null (find_advice (a, "amp"));
}

/* Device filter, cache, async */

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/analysis/memory", test_memory);
  g_test_add_func ("/analysis/memory-impossible", test_memory_impossible);
  g_test_add_func ("/analysis/memory-impossible-counters", test_memory_impossible_counters);
  g_test_add_func ("/analysis/pageable-and-tiny", test_pageable_and_tiny);

  return g_test_run ();
}
