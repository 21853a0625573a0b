/* test-analysis-fixture.h: hand-made traces for the analysis tests
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-analysis.h"
#include "ks-analysis-private.h"
#include "ks-report.h"
#include "ks-trace-builder.h"

/* Absolute times of the hand-made traces start here; the builder makes
 * the earliest event time 0. */
#define BASE G_GINT64_CONSTANT (1000000000)

typedef struct
{
  KsTraceBuilder *b;
  guint32         process;
  guint32         main_thread;
  guint32         main_track;
  guint32         second_thread;
  guint32         second_track;
  guint32         stream;
  guint32         corr;
} Fixture;

static inline void
fixture_init (Fixture *f)
{
  KsGpu gpu = { 0 };

  f->b = ks_trace_builder_new (KS_FORMAT_KINETO_JSON);
  f->process = ks_trace_builder_get_process (f->b, 100);
  f->main_thread = ks_trace_builder_get_thread (f->b, f->process, 100);
  f->main_track = ks_trace_builder_get_thread_track (f->b, f->main_thread);
  f->second_thread = ks_trace_builder_get_thread (f->b, f->process, 101);
  f->second_track = ks_trace_builder_get_thread_track (f->b, f->second_thread);
  f->stream = ks_trace_builder_get_stream_track (f->b, 0, 7);
  f->corr = 1;

  gpu.device = 0;
  gpu.name = ks_trace_builder_intern (f->b, "Test GPU");
  gpu.total_memory = 0;
  ks_trace_builder_add_gpu (f->b, &gpu);
}

static inline void
cpu (Fixture    *f,
     guint32     track,
     gint64      start,
     gint64      end,
     KsSliceKind kind,
     const char *name,
     const char *args)
{
  guint32 a = args ? ks_trace_builder_add_args (f->b, args, strlen (args)) : 0;

  ks_trace_builder_add_slice (f->b, track, BASE + start, BASE + end, kind,
                              ks_trace_builder_intern (f->b, name), 0, 0, 0, a, NULL);
}

static inline void
gpu_work (Fixture         *f,
          guint32          stream,
          gint64           start,
          gint64           end,
          KsSliceKind      kind,
          const char      *name,
          guint32          corr,
          const KsGpuInfo *info,
          const char      *args)
{
  guint32 a = args ? ks_trace_builder_add_args (f->b, args, strlen (args)) : 0;

  ks_trace_builder_add_slice (f->b, stream, BASE + start, BASE + end, kind,
                              ks_trace_builder_intern (f->b, name), 0, corr, 0, a, info);
}

/* A launch call on @track and the kernel it starts. */
static inline void
launch (Fixture    *f,
        guint32     track,
        gint64      api_start,
        gint64      api_end,
        const char *api,
        gint64      k_start,
        gint64      k_end,
        KsSliceKind kind,
        const char *kernel)
{
  guint32 corr = f->corr++;

  ks_trace_builder_add_slice (f->b, track, BASE + api_start, BASE + api_end, KS_SLICE_CUDA_RUNTIME,
                              ks_trace_builder_intern (f->b, api), 0, corr, 0, 0, NULL);
  gpu_work (f, f->stream, k_start, k_end, kind, kernel, corr, NULL, NULL);
}

static inline KsTrace *
fixture_finish (Fixture *f)
{
  g_autoptr(GError) error = NULL;
  KsTrace *trace = ks_trace_builder_finish (f->b, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

static inline KsAnalysis *
analyse (KsTrace  *trace,
         gint64    threshold_ns,
         gboolean  copies)
{
  g_autoptr(GError) error = NULL;
  KsAnalysisOptions options;
  KsAnalysis *analysis;

  ks_analysis_options_init (&options);
  options.gap_threshold_ns = threshold_ns;
  options.busy_includes_copies = copies;
  analysis = ks_analysis_compute (trace, &options, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (analysis);
  return analysis;
}

static inline const KsAdvice *
find_advice (KsAnalysis *analysis,
             const char *rule)
{
  guint n;
  const KsAdvice *advice = ks_analysis_get_advice (analysis, &n);

  for (guint i = 0; i < n; i++)
    if (g_str_equal (advice[i].rule, rule))
      return &advice[i];
  return NULL;
}
