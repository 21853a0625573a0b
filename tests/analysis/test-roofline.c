/* test-roofline.c: the peak table, FLOP formulas on odd input, and the
 * roofline over the H200 fixtures
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include "ks-flops.h"
#include "ks-peaks.h"
#include "ks-report-roofline.h"
#include "ks-roofline.h"
#include "ks-trace-loader.h"

static KsTrace *
load_fixture (const char *name)
{
  const char *dir = g_getenv ("KS_FIXTURES_DIR");
  g_autofree char *path = g_build_filename (dir ? dir : ".", name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KsTrace *trace = ks_trace_load (file, NULL, NULL, &error);

  g_assert_no_error (error);
  return trace;
}

static KsAnalysis *
analyse (KsTrace *trace)
{
  g_autoptr(GError) error = NULL;
  KsAnalysisOptions options;
  KsAnalysis *analysis;

  ks_analysis_options_init (&options);
  analysis = ks_analysis_compute (trace, &options, NULL, NULL, &error);
  g_assert_no_error (error);
  return analysis;
}

static void
test_peak_table (void)
{
  static const struct { const char *name; const char *device; double bf16; double fp32; double gbps; } cases[] = {
    /* as deviceProperties and NVML spell them */
    { "NVIDIA H200", "NVIDIA H200", 989.5, 67, 4800 },
    { "NVIDIA H200 NVL", "NVIDIA H200 NVL", 835.5, 60, 4800 },
    { "NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM", 989.5, 67, 3350 },
    { "NVIDIA H100 PCIe", "NVIDIA H100 PCIe", 756, 51, 2000 },
    { "NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB SXM", 312, 19.5, 2039 },
    { "NVIDIA A100-SXM4-40GB", "NVIDIA A100 40GB", 312, 19.5, 1555 },
    { "NVIDIA A100 80GB PCIe", "NVIDIA A100 80GB PCIe", 312, 19.5, 1935 },
    { "NVIDIA B200", "NVIDIA B200", 2250, 75, 8000 },
    { "NVIDIA L4", "NVIDIA L4", 121, 30.3, 300 },
    { "NVIDIA L40S", "NVIDIA L40S", 362, 91.6, 864 },
    { "NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 4090", 165.2, 82.6, 1008 },
    { "AMD Instinct MI250X", "AMD Instinct MI250X", 383, 95.7, 3276.8 },
    { "AMD Instinct MI250", "AMD Instinct MI250", 362.1, 90.5, 3276.8 },
    { "AMD Instinct MI300X", "AMD Instinct MI300X", 1307.4, 163.4, 5300 },
    { "Tesla V100-SXM2-32GB", "NVIDIA V100 SXM2", 0, 15.7, 900 },
    { "Tesla V100-PCIE-16GB", "NVIDIA V100 PCIe", 0, 14, 900 },
  };
  guint n;
  const KsPeak *table = ks_peaks_get_table (&n);

  g_assert_cmpuint (n, ==, 17);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      const KsPeak *peak = ks_peaks_lookup (cases[i].name);

      g_assert_nonnull (peak);
      g_assert_cmpstr (peak->device, ==, cases[i].device);
      g_assert_cmpfloat (ks_peak_get_tflops (peak, KS_DTYPE_BF16), ==, cases[i].bf16);
      g_assert_cmpfloat (ks_peak_get_tflops (peak, KS_DTYPE_FP32), ==, cases[i].fp32);
      g_assert_cmpfloat (peak->gbps, ==, cases[i].gbps);
      g_assert_true (peak->source != NULL && *peak->source != 0);
    }
  /* every entry says where its numbers come from and has a bandwidth */
  for (guint i = 0; i < n; i++)
    g_assert_true (table[i].source[0] != 0 && table[i].gbps > 0 && table[i].tflops[KS_DTYPE_FP32] > 0);

  /* "L4" is a word: not in "L40" */
  g_assert_null (ks_peaks_lookup ("NVIDIA L40"));
  g_assert_null (ks_peaks_lookup ("Tesla P100-PCIE-16GB"));
  /* no bf16 on a V100: no peak, and no TF32 either (fp32's) */
  g_assert_cmpfloat (ks_peak_get_tflops (ks_peaks_lookup ("Tesla V100-SXM2-16GB"), KS_DTYPE_BF16), ==, 0);
  g_assert_cmpfloat (ks_peak_get_tflops (ks_peaks_lookup ("Tesla V100-DGXS-32GB"), KS_DTYPE_TF32), ==, 15.7);
  g_assert_null (ks_peaks_lookup (""));
  g_assert_null (ks_peaks_lookup (NULL));
  /* tf32 falls back to fp32 where there is no TF32 (MI250) */
  g_assert_cmpfloat (ks_peak_get_tflops (ks_peaks_lookup ("AMD Instinct MI250"), KS_DTYPE_TF32), ==, 90.5);
  /* ridge: 989.5 TFLOP/s over 4.8 TB/s */
  g_assert_cmpfloat_with_epsilon (ks_peak_get_ridge (ks_peaks_lookup ("NVIDIA H200"), KS_DTYPE_BF16),
                                  989.5e12 / 4800e9, 1e-9);
}

static void
test_formulas (void)
{
  KsOpCost cost;

  /* mm [64, 128] x [128, 32] in bf16: 2·64·128·32; bytes (64·128 + 128·32 + 64·32)·2 */
  g_assert_true (ks_flops_for_call ("aten::mm",
                                    "{\"Input Dims\": [[64, 128], [128, 32]], \"Input type\": [\"c10::BFloat16\", \"c10::BFloat16\"], "
                                    "\"Concrete Inputs\": [\"\", \"\"]}", &cost));
  g_assert_cmpuint (cost.flops, ==, 2 * 64 * 128 * 32);
  g_assert_cmpuint (cost.bytes, ==, (64 * 128 + 128 * 32 + 64 * 32) * 2);
  g_assert_cmpint (cost.dtype, ==, KS_DTYPE_BF16);
  g_assert_cmpint (cost.source, ==, KS_COST_FORMULA);

  /* the trace's own count wins (with_flops, Inductor) */
  g_assert_true (ks_flops_for_call ("aten::conv2d", "{\"Input Dims\": [[1, 3, 8, 8]], \"Input type\": [\"float\"], \"flops\": 12345}",
                                    &cost));
  g_assert_cmpuint (cost.flops, ==, 12345);
  g_assert_cmpint (cost.source, ==, KS_COST_ARGUMENT);

  /* a recording's NVTX shapes have no types: FLOPs without bytes */
  g_assert_true (ks_flops_for_call ("aten::bmm", "{\"Input Dims\": [[4, 8, 16], [4, 16, 2]]}", &cost));
  g_assert_cmpuint (cost.flops, ==, 2 * 4 * 8 * 16 * 2);
  g_assert_cmpuint (cost.bytes, ==, 0);
  g_assert_cmpint (cost.dtype, ==, KS_DTYPE_UNKNOWN);

  /* strided, dilated, grouped convolution: conv2d(x [2, 8, 33, 33], w [16, 4, 3, 3], stride 2,
   * padding 1, dilation 2, groups 2): out 16 × 16; 2·2·16·4·9·256 */
  g_assert_true (ks_flops_for_call ("aten::convolution",
                                    "{\"Input Dims\": [[2, 8, 33, 33], [16, 4, 3, 3], [16], [], [], [], [], [], []], "
                                    "\"Input type\": [\"float\", \"float\", \"float\", \"ScalarList\", \"ScalarList\", \"ScalarList\", \"Scalar\", \"ScalarList\", \"Scalar\"], "
                                    "\"Concrete Inputs\": [\"\", \"\", \"\", \"[2, 2]\", \"[1, 1]\", \"[2, 2]\", \"False\", \"[0, 0]\", \"2\"]}",
                                    &cost));
  g_assert_cmpuint (cost.flops, ==, 2ull * 2 * 16 * 4 * 9 * 16 * 16);

  /* shapes that fit no formula: left out and said so, never a crash */
  g_assert_false (ks_flops_for_call ("aten::mm", "{\"Input Dims\": [[4, 5], [6, 7]], \"Input type\": [\"float\", \"float\"]}", &cost));
  g_assert_cmpint (cost.source, ==, KS_COST_UNFIT);
  g_assert_false (ks_flops_for_call ("aten::mm", "{\"Input Dims\": [[4, 5], [5", &cost));
  g_assert_false (ks_flops_for_call ("aten::conv2d",
                                     "{\"Input Dims\": [[1, 3, 8, 8], [4, 3, 3, 3], [], [], [], [], []], "
                                     "\"Input type\": [\"float\", \"float\", \"\", \"ScalarList\", \"String\", \"ScalarList\", \"Scalar\"], "
                                     "\"Concrete Inputs\": [\"\", \"\", \"\", \"[1, 1]\", \"'same'\", \"[1, 1]\", \"1\"]}", &cost));
  g_assert_cmpint (cost.source, ==, KS_COST_UNFIT);
  g_assert_false (ks_flops_for_call ("aten::view", "{\"Input Dims\": [[4, 5], []]}", &cost));
  g_assert_cmpint (cost.source, ==, KS_COST_NONE);
  g_assert_false (ks_flops_for_call ("aten::mm", "not json", &cost));
  /* a fused Triton kernel of more inputs than are read: left out, not short */
  {
    g_autoptr(GString) args = g_string_new ("{\"kernel_backend\": \"triton\", \"Input Dims\": [[4]");

    for (guint i = 1; i < 300; i++)
      g_string_append (args, ", [4]");
    g_string_append (args, "], \"Input type\": [\"float\"]}");
    g_assert_false (ks_flops_for_call ("triton_poi_fused_0", args->str, &cost));
    g_assert_cmpint (cost.source, ==, KS_COST_UNFIT);
    g_string_truncate (args, 0);
    g_string_append (args, "{\"kernel_backend\": \"triton\", \"Input Dims\": [[4], [8, 2]], \"Input type\": [\"float\", \"c10::Half\"]}");
    g_assert_true (ks_flops_for_call ("triton_poi_fused_0", args->str, &cost));
    g_assert_cmpuint (cost.bytes, ==, 4 * 4 + 16 * 2);
  }

  /* elementwise: read every input, write the largest; in place: the first */
  g_assert_true (ks_flops_for_call ("aten::add", "{\"Input Dims\": [[8, 4], [4], []], \"Input type\": [\"float\", \"float\", \"Scalar\"]}",
                                    &cost));
  g_assert_cmpuint (cost.flops, ==, 0);
  g_assert_cmpuint (cost.bytes, ==, (32 + 4 + 32) * 4);
  g_assert_true (ks_flops_for_call ("aten::fill_", "{\"Input Dims\": [[8, 4], []], \"Input type\": [\"c10::Half\", \"Scalar\"]}",
                                    &cost));
  g_assert_cmpuint (cost.bytes, ==, 32 * 2);
}

/* Kernels inherit their call's FLOPs split by time: over each operator,
 * its kernels' FLOPs add up to its own (rounding aside). */
static void
test_fixture (void)
{
  g_autoptr(KsTrace) trace = load_fixture ("shapes_bf16.pt.trace.json.gz");
  g_autoptr(KsAnalysis) analysis = analyse (trace);
  g_autoptr(KsRoofline) roofline = ks_roofline_new (trace, analysis, NULL);
  guint n_ops, n_shapes, n_kernels, n_steps;
  const KsRooflineRow *ops = ks_roofline_get_operators (roofline, FALSE, &n_ops);
  const KsRooflineRow *shapes = ks_roofline_get_operators (roofline, TRUE, &n_shapes);
  const KsRooflineRow *kernels = ks_roofline_get_kernels (roofline, &n_kernels);
  const KsRooflineStep *steps = ks_roofline_get_steps (roofline, &n_steps);
  guint64 op_flops = 0, shape_flops = 0, kernel_flops = 0;
  guint64 shape_calls_mm = 0;
  const KsRooflineRow *mm = ks_roofline_find_operator (roofline, ks_trace_lookup_string (trace, "aten::mm"), NULL);
  g_autofree char *advice = ks_roofline_get_advice (roofline);

  g_assert_true (ks_roofline_has_shapes (roofline));
  g_assert_true (ks_roofline_peak_is_known (roofline));
  g_assert_cmpstr (ks_roofline_get_peak (roofline)->device, ==, "NVIDIA H200");
  g_assert_cmpuint (ks_roofline_get_n_unfit (roofline), ==, 0);
  g_assert_false (ks_roofline_is_model_flops (roofline));
  for (guint i = 0; i < n_ops; i++)
    op_flops += ops[i].flops;
  for (guint i = 0; i < n_shapes; i++)
    {
      shape_flops += shapes[i].flops;
      g_assert_nonnull (shapes[i].input_dims);
      if (shapes[i].name == mm->name)
        shape_calls_mm += shapes[i].calls;
    }
  for (guint i = 0; i < n_kernels; i++)
    kernel_flops += kernels[i].flops;
  /* FlopCounterMode: 21185675264 a step (shapes_bf16_flops.json), 3 steps */
  g_assert_cmpuint (op_flops, ==, 3 * G_GUINT64_CONSTANT (21185675264));
  g_assert_cmpuint (shape_flops, ==, op_flops);
  g_assert_cmpuint (shape_calls_mm, ==, mm->calls);
  g_assert_cmpuint (mm->calls, ==, 36);
  g_assert_cmpfloat (fabs ((double)kernel_flops - (double)op_flops), <=, n_kernels);
  g_assert_cmpuint (n_steps, ==, 3);
  for (guint i = 0; i < n_steps; i++)
    {
      double want = steps[i].flops / (double)(steps[i].end - steps[i].start) / 1e3 / 989.5 * 100;

      g_assert_cmpuint (steps[i].flops, ==, G_GUINT64_CONSTANT (21185675264));
      g_assert_cmpint (steps[i].dtype, ==, KS_DTYPE_BF16);
      g_assert_cmpfloat_with_epsilon (steps[i].mfu_pct, want, 1e-9);
    }
  g_assert_nonnull (advice);
  g_assert_true (g_str_has_prefix (advice, ks_trace_string (trace, ops[0].name)));
}

/* A recording with operators but no shapes has no costs, and says so. */
static void
test_no_shapes (void)
{
  g_autoptr(KsTrace) trace = load_fixture ("small_mlp_60steps.kscope");
  g_autoptr(KsAnalysis) analysis = analyse (trace);
  g_autoptr(KsRoofline) roofline = ks_roofline_new (trace, analysis, NULL);
  guint n;

  g_assert_false (ks_roofline_has_shapes (roofline));
  ks_roofline_get_operators (roofline, FALSE, &n);
  g_assert_cmpuint (n, ==, 0);
  g_assert_null (ks_roofline_get_advice (roofline));
  g_assert_nonnull (strstr (ks_roofline_no_shapes_text (), "record_shapes=True"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/roofline/peak-table", test_peak_table);
  g_test_add_func ("/roofline/formulas", test_formulas);
  g_test_add_func ("/roofline/fixture", test_fixture);
  g_test_add_func ("/roofline/no-shapes", test_no_shapes);

  return g_test_run ();
}
