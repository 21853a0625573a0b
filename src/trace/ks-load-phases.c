/* ks-load-phases.c: per-phase times of a load, for profiling
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdio.h>
#include <time.h>

#include "ks-load-phases.h"

gboolean
ks_load_phases_enabled (void)
{
  static gsize once = 0;
  static gboolean enabled;

  if (g_once_init_enter (&once))
    {
      const char *env = g_getenv ("KINESCOPE_LOAD_PHASES");

      enabled = env != NULL && *env != '\0' && g_strcmp0 (env, "0") != 0;
      g_once_init_leave (&once, 1);
    }
  return enabled;
}

static gint64
now_ns (clockid_t id)
{
  struct timespec ts;

  clock_gettime (id, &ts);
  return (gint64) ts.tv_sec * G_GINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

void
ks_phase_start (KsPhaseClock *clock)
{
  if (!ks_load_phases_enabled ())
    return;
  clock->wall_ns = now_ns (CLOCK_MONOTONIC);
  clock->cpu_ns = now_ns (CLOCK_THREAD_CPUTIME_ID);
}

void
ks_phase_add (const KsPhaseClock *clock,
              KsPhaseClock       *sum)
{
  if (!ks_load_phases_enabled ())
    return;
  sum->wall_ns += now_ns (CLOCK_MONOTONIC) - clock->wall_ns;
  sum->cpu_ns += now_ns (CLOCK_THREAD_CPUTIME_ID) - clock->cpu_ns;
}

void
ks_phase_print (const char         *name,
                const KsPhaseClock *sum)
{
  if (!ks_load_phases_enabled ())
    return;
  /* one write, so that lines of threads do not mix */
  fprintf (stderr, "load-phase\t%s\t%.6f\t%.6f\n", name, sum->wall_ns / 1e9, sum->cpu_ns / 1e9);
}

void
ks_phase_next (KsPhaseClock *clock,
               const char   *name)
{
  KsPhaseClock sum = { 0, 0 };

  if (!ks_load_phases_enabled ())
    return;
  ks_phase_add (clock, &sum);
  ks_phase_print (name, &sum);
  ks_phase_start (clock);
}
