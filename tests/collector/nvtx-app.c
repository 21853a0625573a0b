/* nvtx-app.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* A CPU-only program with known NVTX activity, recorded by the collector
 * tests through NVTX_INJECTION64_PATH (no GPU involved):
 *
 *   main thread, default domain: push "outer" { 3 × push "inner" / pop },
 *     pop; mark "tick"; start "async" ended by a second thread;
 *   domain "ksdomain": push "d-range" (ARGB 0xFF00FF00, category 7,
 *     payload int64 -42), mark with a registered string "registered";
 *   a second thread named "worker" via nvtxNameOsThreadA;
 *   a wide-character mark L"wïde ✓", category 7 named "seven", a
 *   start/end range "measured" with a double payload 2.5;
 *   argv[1] = "sleep" adds 5 × 20 ms nanosleep and one contended mutex
 *   (for -t osrt); "forever" then blocks until killed; "many" pushes
 *   40000 more ranges in 20 bursts 100 ms apart (to fill a file within a
 *   few commits) and prints "many: done" at its end; "fork" pushes
 *   "parent-range" around a forked child that pushes "child-range";
 *   "deep" nests 130 "deep" ranges, 2 more than the collector keeps, and
 *   exits 3 if a push or pop returns a level other than NVTX's. */

#include <nvtx3/nvToolsExt.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static nvtxRangeId_t async_id;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int lock_held;

static void *
worker (void *data)
{
  nvtxNameOsThreadA ((uint32_t) syscall (SYS_gettid), "worker");
  nvtxRangeEnd (async_id);
  nvtxRangePushA ("worker-range");
  if (data != NULL)
    {
      /* Hold the lock the main thread is about to wait for. */
      pthread_mutex_lock (&lock);
      atomic_store (&lock_held, 1);
      usleep (30000);
      pthread_mutex_unlock (&lock);
    }
  nvtxRangePop ();
  return NULL;
}

int
main (int    argc,
      char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "";
  nvtxDomainHandle_t domain;
  nvtxStringHandle_t registered;
  nvtxEventAttributes_t attr;
  pthread_t thread;
  struct timespec ts = { 0, 20 * 1000 * 1000 };

  nvtxRangePushA ("outer");
  for (int i = 0; i < 3; i++)
    {
      nvtxRangePushA ("inner");
      nvtxRangePop ();
    }
  nvtxRangePop ();
  nvtxMarkA ("tick");

  async_id = nvtxRangeStartA ("async");

  nvtxMarkW (L"w\u00efde \u2713");
  nvtxNameCategoryA (7, "seven");
  memset (&attr, 0, sizeof attr);
  attr.version = NVTX_VERSION;
  attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attr.payloadType = NVTX_PAYLOAD_TYPE_DOUBLE;
  attr.payload.dValue = 2.5;
  attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attr.message.ascii = "measured";
  nvtxRangeEnd (nvtxRangeStartEx (&attr));

  domain = nvtxDomainCreateA ("ksdomain");
  registered = nvtxDomainRegisterStringA (domain, "registered");
  memset (&attr, 0, sizeof attr);
  attr.version = NVTX_VERSION;
  attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attr.category = 7;
  attr.colorType = NVTX_COLOR_ARGB;
  attr.color = 0xFF00FF00;
  attr.payloadType = NVTX_PAYLOAD_TYPE_INT64;
  attr.payload.llValue = -42;
  attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
  attr.message.ascii = "d-range";
  nvtxDomainRangePushEx (domain, &attr);

  memset (&attr, 0, sizeof attr);
  attr.version = NVTX_VERSION;
  attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attr.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  attr.message.registered = registered;
  nvtxDomainMarkEx (domain, &attr);
  nvtxDomainRangePop (domain);

  if (strcmp (mode, "sleep") == 0 || strcmp (mode, "forever") == 0)
    {
      for (int i = 0; i < 5; i++)
        nanosleep (&ts, NULL);
      pthread_create (&thread, NULL, worker, (void *) 1);
      /* Wait for the worker to hold the lock, on a busy machine too,
       * without a call the collector would record. */
      while (!atomic_load (&lock_held))
        ;
      pthread_mutex_lock (&lock);
      pthread_mutex_unlock (&lock);
    }
  else
    pthread_create (&thread, NULL, worker, NULL);
  pthread_join (thread, NULL);

  if (strcmp (mode, "fork") == 0)
    {
      pid_t child;

      nvtxRangePushA ("parent-range");
      child = fork ();
      if (child == 0)
        {
          nvtxRangePushA ("child-range");
          nvtxRangePop ();
          exit (0);
        }
      waitpid (child, NULL, 0);
      nvtxRangePop ();
    }

  if (strcmp (mode, "deep") == 0)
    {
      for (int i = 0; i < 130; i++)
        if (nvtxRangePushA ("deep") != i)
          return 3;
      for (int i = 129; i >= 0; i--)
        if (nvtxRangePop () != i)
          return 3;
    }

  if (strcmp (mode, "many") == 0)
    {
      struct timespec pause_ts = { 0, 100 * 1000 * 1000 };

      for (int burst = 0; burst < 20; burst++)
        {
          for (int i = 0; i < 2000; i++)
            {
              nvtxRangePushA ("a fairly long range name that makes the file grow quickly");
              nvtxRangePop ();
            }
          nanosleep (&pause_ts, NULL);
        }
      printf ("many: done\n");
    }

  if (strcmp (mode, "forever") == 0)
    {
      nvtxRangePushA ("waiting");
      printf ("ready\n");
      fflush (stdout);
      for (;;)
        pause ();
    }

  return 0;
}
