/* ks-test-samples.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "ks-test-samples.h"
#include "ks-trace-builder.h"

KsTrace *
ks_test_sampled_trace (void)
{
  g_autoptr(GError) error = NULL;
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_KSCOPE);
  guint32 p = ks_trace_builder_get_process (b, 4200);
  guint32 t = ks_trace_builder_get_thread (b, p, 4200);
  guint32 loader = ks_trace_builder_intern (b, KS_TEST_PY_LOADER);
  guint32 train = ks_trace_builder_intern (b, KS_TEST_PY_TRAIN);
  const KsSampleFrame decode[] = {
    { ks_trace_builder_intern (b, "decode_batch"), loader, 80 },
    { ks_trace_builder_intern (b, "load_batch"), loader, 57 },
    { ks_trace_builder_intern (b, "train"), train, 5 },
    { ks_trace_builder_intern (b, "<module>"), train, 10 },
  };
  const KsSampleFrame step[] = {
    { ks_trace_builder_intern (b, "step"), train, 31 },
    decode[2], decode[3],
  };
  KsTrace *trace;

  for (gint64 k = 0; k < 20; k++)
    g_assert_true (k < 10 ? ks_trace_builder_add_sample (b, t, 1000000 + k * 1000000, decode, G_N_ELEMENTS (decode))
                          : ks_trace_builder_add_sample (b, t, 1000000 + k * 1000000, step, G_N_ELEMENTS (step)));
  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);
  return trace;
}

KsTrace *
ks_test_waiting_trace (void)
{
  g_autoptr(GError) error = NULL;
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_KSCOPE);
  guint32 p = ks_trace_builder_get_process (b, 4200);
  guint32 t = ks_trace_builder_get_thread (b, p, 4200);
  guint32 train = ks_trace_builder_intern (b, KS_TEST_PY_TRAIN);
  const KsSampleFrame stack[] = {
    { ks_trace_builder_intern (b, "step"), train, 31 },
    { ks_trace_builder_intern (b, "train"), train, 5 },
    { ks_trace_builder_intern (b, "<module>"), train, 10 },
  };
  KsTrace *trace;

  for (gint64 k = 0; k < 30; k++)
    g_assert_true (ks_trace_builder_add_sample_full (b, t, 1000000 + k * 1000000, k >= 10 && k < 20,
                                                     stack, G_N_ELEMENTS (stack)));
  trace = ks_trace_builder_finish (b, NULL, &error);
  g_assert_no_error (error);
  return trace;
}

guint32
ks_test_find_sample_slice (KsTrace    *trace,
                           const char *name,
                           guint32    *track)
{
  for (guint32 t = 0; t < trace->n_tracks; t++)
    if (trace->tracks[t].kind == KS_TRACK_SAMPLES)
      for (guint32 i = 0; i < trace->tracks[t].n_slices; i++)
        if (g_str_equal (ks_trace_string (trace, trace->tracks[t].name_id[i]), name))
          {
            *track = t;
            return i;
          }
  g_assert_not_reached ();
  return KS_NO_INDEX;
}
