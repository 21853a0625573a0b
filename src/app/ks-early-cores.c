/* ks-early-cores.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* `kinescope FILE` starts the file's load before GTK starts, on as many
 * threads as there are cores. GTK's and libadwaita's start-up is one
 * stretch of the main thread without its main loop (about 80 ms of CPU on
 * the 2-core development machine); beside the load's threads it got two
 * thirds of a core and took twice as long. Keeping the load off the main
 * thread's core for that stretch gives it its core and costs the load
 * nothing it could have had: the core is busy either way. Priorities
 * could not do it: a thread made nicer cannot be made less nice again
 * without privileges, and the load's threads live on in GLib's pools;
 * CPU affinity can be given back. */

#define G_LOG_DOMAIN "ks-early-cores"

#include "config.h"

#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* sched_getcpu(), CPU_SET() */
#endif

#include <stdlib.h>

#ifdef __linux__
#include <dirent.h>
#include <sched.h>
#endif

#include "ks-early-cores.h"

static GMutex lock;
static gboolean held;             /* under lock */

#ifdef __linux__
static cpu_set_t allowed;         /* the process's cores at the hold */
static cpu_set_t others;          /* those but the main thread's */
static int main_cpu;              /* the one kept for the main thread */

/* Gives the threads kept off the main thread's core every core again;
 * TRUE when there was one. A thread started meanwhile by one not yet
 * given them has the held set too: the caller goes over the threads
 * until none has. Threads whose cores someone else chose are left. */
static gboolean
release_pass (void)
{
  gboolean changed = FALSE;
  struct dirent *entry;
  DIR *dir = opendir ("/proc/self/task");

  if (dir == NULL)
    return FALSE;
  while ((entry = readdir (dir)) != NULL)
    {
      pid_t tid = (pid_t) atoi (entry->d_name);
      cpu_set_t now;

      if (tid <= 0 || sched_getaffinity (tid, sizeof now, &now) != 0 || !CPU_EQUAL (&now, &others))
        continue;
      /* a thread that has just ended cannot be given anything */
      if (sched_setaffinity (tid, sizeof allowed, &allowed) == 0)
        changed = TRUE;
    }
  closedir (dir);
  return changed;
}
#endif

void
ks_early_cores_hold (void)
{
#ifdef __linux__
  g_mutex_lock (&lock);
  if (!held && sched_getaffinity (0, sizeof allowed, &allowed) == 0 && CPU_COUNT (&allowed) > 1)
    {
      main_cpu = sched_getcpu ();
      held = main_cpu >= 0 && CPU_ISSET (main_cpu, &allowed);
      others = allowed;
      if (held)
        CPU_CLR (main_cpu, &others);
    }
  g_mutex_unlock (&lock);
#endif
}

void
ks_early_cores_enter (void)
{
#ifdef __linux__
  g_mutex_lock (&lock);
  /* under the lock: a release cannot pass this thread before it is held */
  if (held && sched_setaffinity (0, sizeof others, &others) != 0)
    g_debug ("Could not keep an early load off the main thread's core");
  g_mutex_unlock (&lock);
#endif
}

void
ks_early_cores_release (void)
{
#ifdef __linux__
  g_mutex_lock (&lock);
  if (held)
    {
      held = FALSE;
      for (guint pass = 0; pass < 16 && release_pass (); pass++)
        ;
    }
  g_mutex_unlock (&lock);
#endif
}

gboolean
ks_early_cores_held (void)
{
  gboolean ret;

  g_mutex_lock (&lock);
  ret = held;
  g_mutex_unlock (&lock);
  return ret;
}
