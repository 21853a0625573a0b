/* ks-bench-clocks.c: what reading each clock costs on this machine
 *
 * The operator observer and the injector stamp every operator twice, so a
 * clock's cost is a recording's cost per operator. Prints ns per read for
 * the clocks a recording could use (and the TSC on x86-64, with the
 * frequency it ticks at), then the kernel's clock source: where that is
 * not "tsc" or "kvm-clock", clock_gettime() may leave the vDSO for a
 * system call (docs/performance.md, "The operator path's layers on the
 * H200 host").
 *
 *   ks-bench-clocks [READS]
 */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#define ROUNDS 3

static double
seconds (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC_RAW, &ts);
  return (double) ts.tv_sec + (double) ts.tv_nsec * 1e-9;
}

static void
print_file (const char *label,
            const char *path)
{
  char line[256] = "";
  FILE *f = fopen (path, "r");

  if (f != NULL)
    {
      if (fgets (line, sizeof line, f) == NULL)
        line[0] = '\0';
      fclose (f);
    }
  printf ("%s: %s%s", label, line[0] ? line : "(unknown)", line[0] ? "" : "\n");
}

int
main (int    argc,
      char **argv)
{
  static const struct { clockid_t id; const char *name; } clocks[] = {
    { CLOCK_MONOTONIC, "CLOCK_MONOTONIC" },
    { CLOCK_MONOTONIC_RAW, "CLOCK_MONOTONIC_RAW" },
    { CLOCK_REALTIME, "CLOCK_REALTIME" },
    { CLOCK_MONOTONIC_COARSE, "CLOCK_MONOTONIC_COARSE" },
  };
  long reads = argc > 1 ? strtol (argv[1], NULL, 10) : 2000000;
  volatile uint64_t sink = 0;

  if (reads <= 0)
    {
      fprintf (stderr, "ks-bench-clocks: READS must be a positive number\n");
      return 1;
    }

  for (size_t k = 0; k < sizeof clocks / sizeof clocks[0]; k++)
    for (int r = 0; r < ROUNDS; r++)
      {
        struct timespec ts;
        double a = seconds ();

        for (long i = 0; i < reads; i++)
          {
            clock_gettime (clocks[k].id, &ts);
            sink += (uint64_t) ts.tv_nsec;
          }
        printf ("%-24s %6.1f ns a read\n", clocks[k].name, (seconds () - a) * 1e9 / (double) reads);
      }

#if defined(__x86_64__)
  for (int r = 0; r < ROUNDS; r++)
    {
      double a = seconds ();

      for (long i = 0; i < reads; i++)
        sink += __rdtsc ();
      printf ("%-24s %6.1f ns a read\n", "rdtsc", (seconds () - a) * 1e9 / (double) reads);
    }
  {
    struct timespec pause = { 0, 200000000 };
    uint64_t t0 = __rdtsc ();
    double a = seconds ();

    nanosleep (&pause, NULL);
    printf ("TSC frequency: %.4f GHz\n", (double) (__rdtsc () - t0) / (seconds () - a) * 1e-9);
  }
#endif

  print_file ("clock source", "/sys/devices/system/clocksource/clocksource0/current_clocksource");
  print_file ("available", "/sys/devices/system/clocksource/clocksource0/available_clocksource");
  (void) sink;
  return 0;
}
