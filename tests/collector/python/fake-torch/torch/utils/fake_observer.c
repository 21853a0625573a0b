/* fake_observer.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* A stand-in for kinescope_observer.cpp, built by the fake
 * torch.utils.cpp_extension.load(): the same entry points, and on start
 * the calls the real observer makes for two operators, an aten::fake_add
 * (seq 7, handle 1; one input of sizes [2, 3] when shapes are asked for)
 * around an aten::fake_inner (no seq, handle 2). Pauses are written to
 * $FAKE_TORCH_LOG as the fake torch logs its calls. */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef void (*EnterFunc) (const char *, int64_t, uint64_t, uint64_t, uint32_t, uint64_t,
                           uint32_t, const int64_t *, uint32_t, uint32_t);
typedef void (*ExitFunc) (uint64_t);

int  kinescope_observer_start (const char *library,
                               int         shapes);
void kinescope_observer_stop  (void);
void kinescope_observer_pause (int         paused);

static uint64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

__attribute__((visibility ("default"))) int
kinescope_observer_start (const char *library,
                          int         shapes)
{
  static const int64_t words[] = { 2, 2, 3 };
  void *lib = dlopen (library, RTLD_NOW);
  EnterFunc enter;
  ExitFunc leave;

  if (lib == NULL)
    return 0;
  enter = (EnterFunc) dlsym (lib, "ks_inject_torch_op_enter");
  leave = (ExitFunc) dlsym (lib, "ks_inject_torch_op_exit");
  if (enter == NULL || leave == NULL)
    return 0;
  enter ("aten::fake_add", 7, 1, 0, 0, now_ns (), shapes ? 1 : 0, shapes ? words : NULL,
         shapes ? 3 : 0, shapes ? 1 : 0);
  enter ("aten::fake_inner", -1, 2, 0, 0, now_ns (), 0, NULL, 0, shapes ? 1 : 0);
  leave (now_ns ());
  leave (now_ns ());
  return 1;
}

__attribute__((visibility ("default"))) void
kinescope_observer_stop (void)
{
}

__attribute__((visibility ("default"))) void
kinescope_observer_pause (int paused)
{
  const char *path = getenv ("FAKE_TORCH_LOG");
  FILE *f = path != NULL ? fopen (path, "a") : NULL;

  if (f == NULL)
    return;
  fprintf (f, "tid=%ld observer-%s\n", (long) syscall (SYS_gettid), paused ? "pause" : "resume");
  fclose (f);
}
