/* selftest.cu
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Known GPU work for checking the collector (check_selftest.py):
 *
 *   domains "selftest" and "other"; streams s0, s1
 *   push "all"
 *   for i in 0..99:
 *     i == 10: cudaProfilerStart ()   i == 20: cudaProfilerStop ()
 *     push "iter"
 *       spin<<<1, 32, 0, s[i % 2]>>> (50 µs)
 *       cudaMemcpyAsync (1 MiB, pinned → device, s0)
 *       cudaMemsetAsync (512 KiB, s1)
 *       domain "selftest": push "sub" / pop
 *       cudaStreamSynchronize (s0); cudaStreamSynchronize (s1)
 *     pop
 *   pop
 *   domain "other": start "copies" { 256 KiB pageable HtoD, DtoH } end
 *   mark "done"
 *
 * Build: nvcc -O2 -o selftest selftest.cu -ldl */

#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  fprintf (stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString (e_)); exit (1); } } while (0)

__global__ void
spin (unsigned long long ns, int *out)
{
  unsigned long long start;
  unsigned long long now;

  asm volatile ("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do
    asm volatile ("mov.u64 %0, %%globaltimer;" : "=l"(now));
  while (now - start < ns);
  if (threadIdx.x == 0)
    out[0] = (int) (now - start);
}

static nvtxEventAttributes_t
attributes (const char *message)
{
  nvtxEventAttributes_t a;

  memset (&a, 0, sizeof a);
  a.version = NVTX_VERSION;
  a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  a.messageType = NVTX_MESSAGE_TYPE_ASCII;
  a.message.ascii = message;
  a.colorType = NVTX_COLOR_ARGB;
  a.color = 0xFF3366CC;
  return a;
}

int
main (void)
{
  const size_t copy_bytes = 1 << 20;
  const size_t set_bytes = 512 << 10;
  const size_t pageable_bytes = 256 << 10;
  cudaStream_t s[2];
  nvtxDomainHandle_t selftest;
  nvtxDomainHandle_t other;
  nvtxEventAttributes_t a;
  nvtxRangeId_t id;
  void *pinned;
  void *pageable;
  void *d_copy;
  void *d_set;
  int *d_out;

  CHECK (cudaFree (0));
  CHECK (cudaStreamCreate (&s[0]));
  CHECK (cudaStreamCreate (&s[1]));
  CHECK (cudaMallocHost (&pinned, copy_bytes));
  pageable = malloc (pageable_bytes);
  memset (pageable, 1, pageable_bytes);
  memset (pinned, 2, copy_bytes);
  CHECK (cudaMalloc (&d_copy, copy_bytes));
  CHECK (cudaMalloc (&d_set, set_bytes));
  CHECK (cudaMalloc (&d_out, sizeof (int)));

  selftest = nvtxDomainCreateA ("selftest");
  other = nvtxDomainCreateA ("other");

  nvtxRangePushA ("all");
  for (int i = 0; i < 100; i++)
    {
      if (i == 10)
        CHECK (cudaProfilerStart ());
      if (i == 20)
        CHECK (cudaProfilerStop ());

      nvtxRangePushA ("iter");
      spin<<<1, 32, 0, s[i % 2]>>> (50000, d_out);
      CHECK (cudaGetLastError ());
      CHECK (cudaMemcpyAsync (d_copy, pinned, copy_bytes, cudaMemcpyHostToDevice, s[0]));
      CHECK (cudaMemsetAsync (d_set, 0, set_bytes, s[1]));
      a = attributes ("sub");
      nvtxDomainRangePushEx (selftest, &a);
      nvtxDomainRangePop (selftest);
      CHECK (cudaStreamSynchronize (s[0]));
      CHECK (cudaStreamSynchronize (s[1]));
      nvtxRangePop ();
    }
  nvtxRangePop ();

  a = attributes ("copies");
  id = nvtxDomainRangeStartEx (other, &a);
  CHECK (cudaMemcpy (d_copy, pageable, pageable_bytes, cudaMemcpyHostToDevice));
  CHECK (cudaMemcpy (pageable, d_copy, pageable_bytes, cudaMemcpyDeviceToHost));
  nvtxDomainRangeEnd (other, id);
  nvtxMarkA ("done");

  CHECK (cudaDeviceSynchronize ());
  CHECK (cudaFree (d_copy));
  CHECK (cudaFree (d_set));
  CHECK (cudaFree (d_out));
  CHECK (cudaFreeHost (pinned));
  free (pageable);
  printf ("selftest done\n");
  return 0;
}
