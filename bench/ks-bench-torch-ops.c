/* ks-bench-torch-ops.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* What recording one PyTorch operator costs the program on the
 * recorder's side, the two ways operators reach it, under
 * `kinescope-cli record -t nvtx` (docs/performance.md, "Where a
 * recording's cost goes"):
 *
 *   nvtx      the text torch's NVTX emission builds per operator
 *             (getNvtxStr(): name, seq, op_id, with --shapes the sizes)
 *             pushed and popped through NVTX to libkinescope-inject.so;
 *   observer  the calls our RecordFunction observer makes instead
 *             (ks_inject_torch_op_enter()/_exit(): a name pointer and
 *             numbers, the sizes as numbers).
 *
 *   ks-bench-torch-ops [--shapes] [ROUNDS] [LIBRARY]
 *
 * LIBRARY is libkinescope-inject.so (default $KINESCOPE_INJECT_LIBRARY,
 * which the recorder sets). Each round times 1000 operators each way
 * (an aten::addmm with five inputs, alternating with an
 * autograd::engine::evaluate_function name built in a reused buffer, as
 * autograd builds it), then sleeps 20 ms so that the recorder keeps up and
 * nothing is dropped; then the observer's two clock reads alone
 * ("clocks": the observer minus them is the injector's share). Prints
 * min, median and 90th percentile ns per operator. What torch itself spends (its RecordFunction, its string
 * formatting in C++) is not in here: tests/gpu/overhead-parts.sh measures
 * that on a GPU. */

#include <nvtx3/nvToolsExt.h>

#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PER_ROUND 1000

typedef void (*EnterFunc) (const char *, int64_t, uint64_t, uint64_t, uint32_t, uint64_t,
                           uint32_t, const int64_t *, uint32_t, uint32_t);
typedef void (*ExitFunc) (uint64_t);

/* aten::addmm's inputs: [16], [8, 32], [32, 16], [], [] */
static const int64_t words[] = { 1, 16, 2, 8, 32, 2, 32, 16, 0, 0 };

static uint64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static int
compare_double (const void *a,
                const void *b)
{
  double x = *(const double *) a;
  double y = *(const double *) b;

  return (x > y) - (x < y);
}

static const char *
op_name (int  i,
         char buffer[128])
{
  if (i % 2 == 0)
    return "aten::addmm";
  snprintf (buffer, 128, "autograd::engine::evaluate_function: %s", i % 4 == 1 ? "AddmmBackward0" : "ReluBackward0");
  return buffer;
}

static void
run_nvtx (int      shapes,
          uint64_t first_id)
{
  char buffer[128];

  for (int i = 0; i < PER_ROUND; i++)
    {
      char text[512];
      const char *name = op_name (i, buffer);
      int len = snprintf (text, sizeof text, "%s, seq = %d, op_id = %" PRIu64, name, 1000 + i, first_id + i);

      if (shapes)
        snprintf (text + len, sizeof text - len, ", sizes = [[16], [8, 32], [32, 16], [], []]");
      nvtxRangePushA (text);
      nvtxRangePop ();
    }
}

static void
run_observer (EnterFunc enter,
              ExitFunc  leave,
              int       shapes,
              uint64_t  first_id)
{
  char buffer[128];

  for (int i = 0; i < PER_ROUND; i++)
    {
      const char *name = op_name (i, buffer);

      enter (name, 1000 + i, first_id + i, 0, 0, now_ns (), shapes ? 5 : 0, shapes ? words : NULL,
             shapes ? (uint32_t) (sizeof words / sizeof words[0]) : 0, shapes ? 1 : 0);
      leave (now_ns ());
    }
}

/* What the observer spends before the injector: its two clock reads
 * and the name, so that observer minus this is the injector's share. */
static void
run_clocks (uint64_t *sink)
{
  char buffer[128];

  for (int i = 0; i < PER_ROUND; i++)
    {
      const char *name = op_name (i, buffer);

      *sink += now_ns () + (uintptr_t) name;
      *sink += now_ns ();
    }
}

static void
report (const char *label,
        double     *samples,
        int         rounds)
{
  qsort (samples, rounds, sizeof *samples, compare_double);
  printf ("%-10s min %7.1f  median %7.1f  p90 %7.1f ns per operator\n", label, samples[0],
          samples[rounds / 2], samples[rounds * 9 / 10]);
}

int
main (int    argc,
      char **argv)
{
  struct timespec pause = { 0, 20 * 1000 * 1000 };
  const char *library = getenv ("KINESCOPE_INJECT_LIBRARY");
  int (*begin) (void);
  EnterFunc enter;
  ExitFunc leave;
  double *nvtx_ns, *observer_ns, *clocks_ns;
  volatile uint64_t kept;
  uint64_t sink = 0;
  int shapes = 0, rounds = 100, arg = 1;
  uint64_t id = 1;
  void *lib;

  if (arg < argc && strcmp (argv[arg], "--shapes") == 0)
    {
      shapes = 1;
      arg++;
    }
  if (arg < argc)
    rounds = atoi (argv[arg++]);
  if (arg < argc)
    library = argv[arg++];
  if (rounds < 1 || library == NULL)
    {
      fprintf (stderr, "usage: ks-bench-torch-ops [--shapes] [ROUNDS] [LIBRARY]\n"
                       "(run under kinescope-cli record -t nvtx, or give LIBRARY)\n");
      return 2;
    }
  if ((lib = dlopen (library, RTLD_NOW)) == NULL)
    {
      fprintf (stderr, "ks-bench-torch-ops: %s\n", dlerror ());
      return 1;
    }
  begin = (int (*) (void)) dlsym (lib, "ks_inject_torch_begin");
  enter = (EnterFunc) dlsym (lib, "ks_inject_torch_op_enter");
  leave = (ExitFunc) dlsym (lib, "ks_inject_torch_op_exit");
  if (begin == NULL || enter == NULL || leave == NULL || begin () != 1)
    {
      fprintf (stderr, "ks-bench-torch-ops: not recorded: run it under kinescope-cli record -t nvtx\n");
      return 1;
    }

  nvtx_ns = calloc (rounds, sizeof *nvtx_ns);
  observer_ns = calloc (rounds, sizeof *observer_ns);
  clocks_ns = calloc (rounds, sizeof *clocks_ns);
  for (int r = 0; r < rounds; r++)
    {
      uint64_t t0 = now_ns ();

      run_nvtx (shapes, id);
      id += PER_ROUND;
      nvtx_ns[r] = (double) (now_ns () - t0) / PER_ROUND;
      nanosleep (&pause, NULL);

      t0 = now_ns ();
      run_observer (enter, leave, shapes, id);
      id += PER_ROUND;
      observer_ns[r] = (double) (now_ns () - t0) / PER_ROUND;
      nanosleep (&pause, NULL);

      t0 = now_ns ();
      run_clocks (&sink);
      clocks_ns[r] = (double) (now_ns () - t0) / PER_ROUND;
    }
  kept = sink;
  (void) kept;
  report ("nvtx", nvtx_ns, rounds);
  report ("observer", observer_ns, rounds);
  report ("clocks", clocks_ns, rounds);
  free (nvtx_ns);
  free (observer_ns);
  free (clocks_ns);
  return 0;
}
