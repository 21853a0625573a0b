/* test-occupancy.c: estimated occupancy of kernel launches
 *
 * The hand-worked cases follow the CUDA Occupancy Calculator's rules.
 * The fixtures and the shared corpus check the estimate against the one
 * the PyTorch profiler wrote into each kernel event ("est. achieved
 * occupancy %", computed by CUDA's own calculator and rounded half up in
 * single precision), on H200, A100 and V100 GPUs.
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include "ks-analysis-private.h"
#include "ks-occupancy.h"
#include "ks-trace-loader.h"

/* The H200 of the fixtures, as its deviceProperties describe it. */
static const KsGpu h200 = {
  .sm_count = 132, .compute_major = 9, .compute_minor = 0,
  .max_threads_per_block = 1024, .max_threads_per_sm = 2048,
  .registers_per_block = 65536, .registers_per_sm = 65536,
  .shared_memory_per_block = 49152, .shared_memory_per_sm = 233472, .warp_size = 32,
};

static KsGpuInfo
launch (guint32 blocks,
        guint16 threads,
        guint16 registers,
        guint32 shared_memory)
{
  KsGpuInfo k = { .kernel = { { blocks, 1, 1 }, { threads, 1, 1 }, registers, shared_memory } };

  return k;
}

static void
check (const KsGpu     *gpu,
       KsGpuInfo        k,
       guint            active,
       KsOccupancyLimit limit,
       double           theoretical,
       double           achieved)
{
  KsOccupancy o;

  g_assert_true (ks_occupancy_compute (gpu, &k, &o));
  g_assert_cmpuint (o.active_blocks, ==, active);
  g_assert_cmpint (o.limit, ==, limit);
  g_assert_cmpfloat_with_epsilon (o.theoretical_pct, theoretical, 1e-9);
  g_assert_cmpfloat_with_epsilon (o.achieved_pct, achieved, 1e-9);
}

static void
test_rules (void)
{
  KsGpu unknown = h200;
  KsGpu sm86 = h200;
  KsGpuInfo k = launch (4096, 128, 32, 0);
  KsOccupancy o;

  /* 39 registers: 1 280 per warp, 12 warps per partition, 48 per SM,
   * 12 blocks of 4 warps. */
  check (&h200, launch (4096, 128, 39, 24), 12, KS_OCCUPANCY_LIMIT_REGISTERS, 75, 75);
  /* A small grid: 16 blocks over 132 SMs. */
  check (&h200, launch (16, 256, 56, 0), 4, KS_OCCUPANCY_LIMIT_REGISTERS, 50, 100.0 * 16 / 132 * 256 / 2048);
  /* cuBLAS-sized: 168 registers and 216 KiB of shared memory, opted in
   * beyond the default 48 KiB; one block of 12 warps per SM. */
  check (&h200, launch (132, 384, 168, 221420), 1, KS_OCCUPANCY_LIMIT_REGISTERS, 18.75, 18.75);
  /* Shared memory: 45 KiB + 1 KiB reserved per block, 4 blocks in 228 KiB
   * (5 without the reserved part). */
  check (&h200, launch (4096, 128, 32, 46080), 4, KS_OCCUPANCY_LIMIT_SHARED_MEMORY, 25, 25);
  /* Threads: two blocks of 1 024. */
  check (&h200, launch (4096, 1024, 0, 0), 2, KS_OCCUPANCY_LIMIT_WARPS, 100, 100);
  /* Block slots: 32 one-warp blocks. */
  check (&h200, launch (1 << 20, 32, 16, 0), 32, KS_OCCUPANCY_LIMIT_BLOCKS, 50, 50);
  /* 255 registers per thread for 1 024 threads do not fit in a block's
   * 64 Ki registers: the kernel could not have been launched. */
  check (&h200, launch (64, 1024, 255, 0), 0, KS_OCCUPANCY_LIMIT_REGISTERS, 0, 0);

  /* sm_86 holds 16 blocks and 1 536 threads per SM. */
  sm86.compute_major = 8;
  sm86.compute_minor = 6;
  sm86.max_threads_per_sm = 1536;
  sm86.shared_memory_per_sm = 102400;
  check (&sm86, launch (1 << 20, 32, 16, 0), 16, KS_OCCUPANCY_LIMIT_BLOCKS, 100.0 * 16 * 32 / 1536, 100.0 * 16 * 32 / 1536);

  /* Values no launch can have, as a damaged file may hold them. */
  check (&h200, launch (G_MAXUINT32, 1024, G_MAXUINT16, G_MAXUINT32), 0, KS_OCCUPANCY_LIMIT_REGISTERS, 0, 0);
  unknown.warp_size = G_MAXUINT32;
  unknown.max_threads_per_sm = G_MAXUINT32;
  g_assert_false (ks_occupancy_compute (&unknown, &k, &o));
  unknown = h200;

  /* Nothing is guessed when a property or the geometry is missing. */
  unknown.registers_per_sm = 0;
  g_assert_false (ks_occupancy_compute (&unknown, &k, &o));
  unknown = h200;
  unknown.compute_major = 2;
  g_assert_false (ks_occupancy_compute (&unknown, &k, &o));
  k.kernel.block[1] = 0;
  g_assert_false (ks_occupancy_compute (&h200, &k, &o));
}

typedef struct
{
  guint kernels;       /* kernel events with geometry, GPU and a profiler estimate */
  guint equal;         /* rounded half up, equal to the profiler's */
  guint half;          /* an exact half that single precision rounded down */
  guint large_shared;  /* over the default 48 KiB: the profiler says 0 */
} Tally;

static void
compare_with_profiler (const KsTrace *trace,
                       Tally         *t)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  for (guint i = 0; i < trace->n_tracks; i++)
    {
      const KsTrack *track = &trace->tracks[i];
      const KsGpu *gpu = ks_trace_find_gpu (trace, track->device);

      if (track->gpu == NULL || gpu == NULL)
        continue;

      for (guint32 s = 0; s < track->n_slices; s++)
        {
          const char *args = ks_trace_slice_args (trace, track, s, args_buf);
          double theirs;
          KsOccupancy o;

          if (track->slice_kind[s] != KS_SLICE_KERNEL || args == NULL
              || !ks_args_get_double (args, "est. achieved occupancy %", &theirs)
              || !ks_occupancy_compute (gpu, &track->gpu[s], &o))
            continue;
          t->kernels++;
          if (track->gpu[s].kernel.shared_memory > gpu->shared_memory_per_block)
            {
              g_assert_cmpfloat (theirs, ==, 0);
              g_assert_cmpfloat (o.achieved_pct, >, 0);
              t->large_shared++;
            }
          else if (floor (o.achieved_pct + 0.5) == theirs)
            t->equal++;
          else
            {
              g_assert_cmpfloat (o.achieved_pct - theirs, ==, 0.5);
              t->half++;
            }
        }
    }
}

static KsTrace *
load (const char *dir,
      const char *name)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KsTrace *trace = ks_trace_load (file, NULL, NULL, &error);

  g_assert_no_error (error);
  return trace;
}

typedef struct
{
  const char *file;
  Tally       expected;
} FileCase;

static void
check_files (const char     *dir,
             const FileCase *cases,
             guint           n)
{
  for (guint i = 0; i < n; i++)
    {
      g_autoptr(KsTrace) trace = load (dir, cases[i].file);
      Tally t = { 0 };

      compare_with_profiler (trace, &t);
      g_test_message ("%s: %u kernels", cases[i].file, t.kernels);
      g_assert_cmpuint (t.kernels, ==, cases[i].expected.kernels);
      g_assert_cmpuint (t.equal, ==, cases[i].expected.equal);
      g_assert_cmpuint (t.half, ==, cases[i].expected.half);
      g_assert_cmpuint (t.large_shared, ==, cases[i].expected.large_shared);
    }
}

static void
test_fixtures (void)
{
  const char *dir = g_getenv ("KS_FIXTURES_DIR");
  const FileCase cases[] = {
    { "gpt_3steps.pt.trace.json.gz", { 1737, 1392, 0, 345 } },
    { "loader_bound.pt.trace.json.gz", { 176, 164, 0, 12 } },
    { "seed_cnn.pt.trace.json.gz", { 210, 192, 0, 18 } },
    { "workers_pinned.pt.trace.json.gz", { 88, 88, 0, 0 } },
  };

  check_files (dir ? dir : ".", cases, G_N_ELEMENTS (cases));
}

/* A100 (sm_80) and V100 (sm_70) traces from other projects. */
static void
test_corpus (void)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  g_autofree char *corpus = shared ? g_build_filename (shared, "corpus", "hta", NULL) : NULL;
  const FileCase cases[] = {
    { "negative_queue_length_values_check/rank0.json.gz", { 6080, 6000, 0, 80 } },
    { "trace_diff/test/test.json.gz", { 9876, 9536, 340, 0 } },
    { "trace_diff/control/control.json.gz", { 8568, 7344, 0, 1224 } },
    { "nccl_parser_config/nccl_data.json.gz", { 2700, 2286, 0, 414 } },
    { "ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", { 4350, 4285, 65, 0 } },
  };

  if (corpus == NULL || !g_file_test (corpus, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("the shared corpus (KS_SHARED_DIR/corpus) is absent");
      return;
    }

  check_files (corpus, cases, G_N_ELEMENTS (cases));
}

/* The kernel table uses the estimate for every kernel; the one named
 * @prefix has @expected (its calls' time-weighted mean). */
static void
check_kernel_table (const char *file,
                    const char *prefix,
                    double      expected)
{
  const char *dir = g_getenv ("KS_FIXTURES_DIR");
  g_autoptr(KsTrace) trace = load (dir ? dir : ".", file);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsAnalysis) analysis = ks_analysis_compute (trace, NULL, NULL, NULL, &error);
  const KsKernelStats *kernels;
  gboolean seen = FALSE;
  guint n = 0;

  g_assert_no_error (error);
  kernels = ks_analysis_get_kernels (analysis, &n);
  g_assert_cmpuint (n, >, 10);
  for (guint i = 0; i < n; i++)
    {
      g_assert_cmpfloat (kernels[i].occupancy_pct, >=, 0);
      if (g_str_has_prefix (ks_trace_string (trace, kernels[i].name), prefix))
        {
          g_assert_cmpfloat_with_epsilon (kernels[i].occupancy_pct, expected, 1e-9);
          seen = TRUE;
        }
    }
  g_assert_true (seen);
}

static void
test_kernel_table (void)
{
  /* The fixture's large cuBLAS kernel: one block of 12 warps per SM,
   * where the profiler wrote 0. */
  check_kernel_table ("gpt_3steps.pt.trace.json.gz", "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", 18.75);
  /* A recording: the GPU's properties come from CUPTI, and no kernel
   * event carries an estimate of its own. 8 × 32 blocks of 64 threads
   * over 132 SMs, 12 of them fitting on one. */
  check_kernel_table ("small_mlp_60steps.kscope", "sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize32x32x8",
                      100.0 * 256 / 132 * 64 / 2048);
}

/* The GPU summary's SM efficiency and occupancy, against a separate
 * python3 implementation of the same rules over the fixture files
 * (window: the union of the steps; weights: each kernel's time in it). */
static void
test_gpu_summary (void)
{
  const char *dir = g_getenv ("KS_FIXTURES_DIR");
  const struct { const char *file; double sm_efficiency; double occupancy; } cases[] = {
    { "gpt_3steps.pt.trace.json.gz", 9.139563120, 53.298625875 },
    { "loader_bound.pt.trace.json.gz", 3.122472411, 54.839759315 },
    /* The GPU trails the CPU: the steps end with their kernels, so the
     * window holds all of them and the occupancy is the kernel table's
     * duration-weighted mean (49.26127 from its rounded JSON). */
    { "seed_cnn.pt.trace.json.gz", 31.987213486, 49.261273822 },
    { "workers_pinned.pt.trace.json.gz", 2.233534368, 55.014813896 },
    { "small_mlp_60steps.kscope", 2.664904892, 7.450110242 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(KsTrace) trace = load (dir ? dir : ".", cases[i].file);
      g_autoptr(KsAnalysis) analysis = NULL;
      const KsGpuSummary *gpu;
      KsAnalysisOptions options;

      /* over every step: the recording's warm-up counts too */
      ks_analysis_options_init (&options);
      options.include_warmup = TRUE;
      analysis = ks_analysis_compute (trace, &options, NULL, NULL, NULL);
      gpu = ks_analysis_get_gpu (analysis, 0);
      g_test_message ("%s: SM efficiency %.9f, occupancy %.9f", cases[i].file,
                      gpu->est_sm_efficiency_pct, gpu->est_occupancy_pct);
      g_assert_cmpfloat_with_epsilon (gpu->est_sm_efficiency_pct, cases[i].sm_efficiency, 1e-6);
      g_assert_cmpfloat_with_epsilon (gpu->est_occupancy_pct, cases[i].occupancy, 1e-6);
    }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/analysis/occupancy/rules", test_rules);
  g_test_add_func ("/analysis/occupancy/fixtures", test_fixtures);
  g_test_add_func ("/analysis/occupancy/corpus", test_corpus);
  g_test_add_func ("/analysis/occupancy/kernel-table", test_kernel_table);
  g_test_add_func ("/analysis/occupancy/gpu-summary", test_gpu_summary);
  return g_test_run ();
}
