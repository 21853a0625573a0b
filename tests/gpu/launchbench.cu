/* launchbench.cu
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The CPU time of single CUDA calls, for the recording's cost per call.
 *
 *   launchbench [--toggle] [--rounds N] [--block B] [--cpu C]
 *
 * For each kind of call (an empty kernel launch by the runtime and by the
 * driver, a 4 KiB memset, an event record, an event query, cudaGetDevice,
 * cudaGetLastError, an NVTX push/pop pair) it times blocks of B calls with
 * CLOCK_MONOTONIC, the stream synchronized outside the timed part. The
 * last two rows are GPU time: B kernels queued behind a 5 ms spin kernel,
 * timed between two CUDA events, so that what tracing adds on the GPU to
 * each kernel shows apart from the CPU's launch cost; empty kernels of one
 * block, then kernels of 1 024 blocks doing a little arithmetic, the size
 * of a small training model's elementwise kernels. With
 * --toggle every round runs its blocks once between cudaProfilerStart and
 * cudaProfilerStop and once after, so that a recording with
 * --capture-range=cudaProfilerApi is on and off in the same process.
 * With --cpu the timing thread runs on CPU C alone once CUDA has started
 * (its own threads and the collector's keep their CPUs). Prints, per
 * call, the median ns per call over the blocks of each phase.
 *
 * Build: nvcc -O2 -o launchbench launchbench.cu -lcuda -ldl */

#include <cuda.h>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vector>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf (stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString (e_)); exit (1); } } while (0)

__global__ void
empty (int *p, int a, int b, int c)
{
  if (p != nullptr && threadIdx.x == 1024)
    p[0] = a + b + c;
}

__global__ void
spin (long long cycles)
{
  long long t0 = clock64 ();

  while (clock64 () - t0 < cycles)
    ;
}

__global__ void
work (float *p, int n)
{
  float x = threadIdx.x;

  for (int i = 0; i < n; i++)
    x = x * 0.999f + 1.0f;
  if (x == -1.0f)
    p[0] = x;
}

static double
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e9 + ts.tv_nsec;
}

enum { OP_LAUNCH, OP_CU_LAUNCH, OP_MEMSET, OP_EVENT_RECORD, OP_EVENT_QUERY,
       OP_GET_DEVICE, OP_GET_LAST_ERROR, OP_NVTX, OP_GPU_KERNEL, OP_GPU_WIDE, N_OPS };

static const char * const op_names[N_OPS] = {
  "cudaLaunchKernel", "cuLaunchKernel", "cudaMemsetAsync", "cudaEventRecord",
  "cudaEventQuery", "cudaGetDevice", "cudaGetLastError", "nvtx push+pop",
  "kernel, GPU time",
  "wide kernel, GPU",
};

int
main (int    argc,
      char **argv)
{
  bool toggle = false;
  int rounds = 20;
  int block = 200;
  int cpu = -1;
  cudaStream_t s;
  cudaEvent_t ev;
  cudaEvent_t gpu_start;
  cudaEvent_t gpu_end;
  int clock_khz;
  CUfunction fn;
  int *buf;
  int dev;
  std::vector<double> samples[2][N_OPS];

  for (int i = 1; i < argc; i++)
    {
      if (strcmp (argv[i], "--toggle") == 0)
        toggle = true;
      else if (strcmp (argv[i], "--rounds") == 0 && i + 1 < argc)
        rounds = atoi (argv[++i]);
      else if (strcmp (argv[i], "--block") == 0 && i + 1 < argc)
        block = atoi (argv[++i]);
      else if (strcmp (argv[i], "--cpu") == 0 && i + 1 < argc)
        cpu = atoi (argv[++i]);
      else
        {
          fprintf (stderr, "usage: launchbench [--toggle] [--rounds N] [--block B] [--cpu C]\n");
          return 2;
        }
    }

  CHECK (cudaStreamCreateWithFlags (&s, cudaStreamNonBlocking));
  CHECK (cudaEventCreateWithFlags (&ev, cudaEventDisableTiming));
  CHECK (cudaEventCreate (&gpu_start));
  CHECK (cudaEventCreate (&gpu_end));
  CHECK (cudaDeviceGetAttribute (&clock_khz, cudaDevAttrClockRate, 0));
  CHECK (cudaMalloc (&buf, 4096));
  CHECK (cudaGetFuncBySymbol (&fn, (const void *) empty));
  if (toggle)
    CHECK (cudaProfilerStop ());
  if (cpu >= 0)
    {
      cpu_set_t set;

      CPU_ZERO (&set);
      CPU_SET (cpu, &set);
      if (sched_setaffinity (0, sizeof set, &set) != 0)
        perror ("sched_setaffinity");
    }

  /* Warm up: module load, first launches. */
  for (int i = 0; i < 100; i++)
    empty<<<1, 32, 0, s>>> (buf, 1, 2, 3);
  CHECK (cudaStreamSynchronize (s));

  for (int r = 0; r < rounds + 1; r++)
    for (int phase = 0; phase < 2; phase++)
      {
        if (toggle && phase == 0)
          CHECK (cudaProfilerStart ());
        for (int op = 0; op < N_OPS; op++)
          {
            int a = 1, b = 2, c = 3;
            void *params[] = { &buf, &a, &b, &c };
            double t0;
            double t1;

            CHECK (cudaEventRecord (ev, s));
            CHECK (cudaStreamSynchronize (s));
            if (op == OP_GPU_KERNEL || op == OP_GPU_WIDE)
              {
                float ms = 0;

                spin<<<1, 1, 0, s>>> (5LL * clock_khz);
                CHECK (cudaEventRecord (gpu_start, s));
                for (int i = 0; i < block; i++)
                  if (op == OP_GPU_WIDE)
                    work<<<1024, 256, 0, s>>> ((float *) buf, 64);
                  else
                    empty<<<1, 32, 0, s>>> (buf, a, b, c);
                CHECK (cudaEventRecord (gpu_end, s));
                CHECK (cudaEventSynchronize (gpu_end));
                CHECK (cudaEventElapsedTime (&ms, gpu_start, gpu_end));
                if (r > 0)
                  samples[phase][op].push_back (ms * 1e6 / block);
                continue;
              }
            t0 = now_ns ();
            for (int i = 0; i < block; i++)
              switch (op)
                {
                case OP_LAUNCH: empty<<<1, 32, 0, s>>> (buf, a, b, c); break;
                case OP_CU_LAUNCH: cuLaunchKernel (fn, 1, 1, 1, 32, 1, 1, 0, s, params, NULL); break;
                case OP_MEMSET: cudaMemsetAsync (buf, 0, 4096, s); break;
                case OP_EVENT_RECORD: cudaEventRecord (ev, s); break;
                case OP_EVENT_QUERY: cudaEventQuery (ev); break;
                case OP_GET_DEVICE: cudaGetDevice (&dev); break;
                case OP_GET_LAST_ERROR: cudaGetLastError (); break;
                case OP_NVTX: nvtxRangePushA ("x"); nvtxRangePop (); break;
                }
            t1 = now_ns ();
            CHECK (cudaStreamSynchronize (s));
            if (r > 0)   /* round 0 warms up each phase */
              samples[phase][op].push_back ((t1 - t0) / block);
          }
        if (toggle && phase == 0)
          CHECK (cudaProfilerStop ());
      }

  printf ("%-18s %10s %10s\n", "call", toggle ? "on ns" : "A ns", toggle ? "off ns" : "B ns");
  for (int op = 0; op < N_OPS; op++)
    {
      double m[2];

      for (int phase = 0; phase < 2; phase++)
        {
          std::vector<double> &v = samples[phase][op];

          std::sort (v.begin (), v.end ());
          m[phase] = v[v.size () / 2];
        }
      printf ("%-18s %10.0f %10.0f\n", op_names[op], m[0], m[1]);
    }
  return 0;
}
