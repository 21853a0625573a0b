/* torch-steps-app.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* A CPU-only program that hands libkinescope-inject.so (LIBRARY, or
 * $KINESCOPE_INJECT_LIBRARY) operators through the entry points of our
 * RecordFunction observer, as torch-observer-app does, in the shapes a
 * training job gives them and that the operators report must each
 * account for (counted, merged with a call of the same name, or left out
 * with the warm-up):
 *
 *   torch-steps-app [LIBRARY]
 *
 * Before the steps, on the main thread: aten::empty (building the model).
 * Four steps, NVTX ranges "step 0" .. "step 3"; step 0 also holds a 400 ms
 * record_function("autotune") (one-time work, so step 0 is the warm-up:
 * over twice the later steps' median of a few ms even when a loaded
 * machine holds two of them back by a hundred ms or more).
 * Each step, on the main thread:
 *
 *   aten::to, started before the step's range and ended inside it
 *   aten::fill_ { aten::fill_ }          nested alone in one of its name
 *   aten::add { aten::add; aten::empty } nested in one of its name, not alone
 *   aten::empty, zero length (its start is its end)
 *
 * and on a second thread (the autograd engine's), joined before the step
 * ends:
 *
 *   autograd::engine::evaluate_function: AddmmBackward0 {
 *     AddmmBackward0 { aten::mm; aten::mm } }
 *
 * and on a third thread (a pin-memory thread), started in the step and
 * ended after it: aten::copy_. After the steps: aten::item, then 800
 * zero-length operators test::distinct_0 .. _799, each name built in
 * the same buffer. Every other operator lasts at least 200 µs. */

#include <nvtx3/nvToolsExt.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define N_DISTINCT 800

/* at::RecordScope */
enum { SCOPE_FUNCTION = 0, SCOPE_BACKWARD_FUNCTION = 1, SCOPE_USER = 7 };

typedef void (*EnterFunc) (const char *, int64_t, uint64_t, uint64_t, uint32_t, uint64_t,
                           uint32_t, const int64_t *, uint32_t, uint32_t);
typedef void (*ExitFunc) (uint64_t);

static EnterFunc enter_func;
static ExitFunc exit_func;
static uint64_t next_handle = 1;
static int64_t next_seq = 10;
static pthread_mutex_t handle_lock = PTHREAD_MUTEX_INITIALIZER;
static const uint64_t main_thread_id = 1;

static uint64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

static void
enter_at (const char *name,
          int64_t     seq,
          uint64_t    fwd_thread_id,
          uint32_t    scope,
          uint64_t    start)
{
  uint64_t handle;

  pthread_mutex_lock (&handle_lock);
  handle = next_handle++;
  pthread_mutex_unlock (&handle_lock);
  enter_func (name, seq, handle, fwd_thread_id, scope, start, 0, NULL, 0, 0);
}

static void
enter (const char *name,
       int64_t     seq,
       uint64_t    fwd_thread_id,
       uint32_t    scope)
{
  enter_at (name, seq, fwd_thread_id, scope, now_ns ());
  usleep (200);
}

static void
leave (void)
{
  usleep (200);
  exit_func (now_ns ());
}

static void *
backward (void *data)
{
  int64_t seq = *(int64_t *) data;

  enter ("autograd::engine::evaluate_function: AddmmBackward0", seq, main_thread_id, SCOPE_BACKWARD_FUNCTION);
  enter ("AddmmBackward0", seq, main_thread_id, SCOPE_BACKWARD_FUNCTION);
  enter ("aten::mm", -1, 0, SCOPE_FUNCTION);
  leave ();
  enter ("aten::mm", -1, 0, SCOPE_FUNCTION);
  leave ();
  leave ();
  leave ();
  return NULL;
}

typedef struct
{
  pthread_mutex_t lock;
  pthread_cond_t  cond;
  int             step_ended;
} PinMemory;

/* Starts an operator at once and ends it once the step has ended. */
static void *
pin_memory (void *data)
{
  PinMemory *pm = data;

  enter ("aten::copy_", -1, 0, SCOPE_FUNCTION);
  pthread_mutex_lock (&pm->lock);
  while (!pm->step_ended)
    pthread_cond_wait (&pm->cond, &pm->lock);
  pthread_mutex_unlock (&pm->lock);
  leave ();
  return NULL;
}

int
main (int    argc,
      char **argv)
{
  const char *library = argc > 1 ? argv[1] : getenv ("KINESCOPE_INJECT_LIBRARY");
  int (*begin) (void);
  void *lib;

  if (library == NULL || (lib = dlopen (library, RTLD_NOW)) == NULL)
    {
      fprintf (stderr, "torch-steps-app: no libkinescope-inject.so: %s\n", dlerror ());
      return 1;
    }
  begin = (int (*) (void)) dlsym (lib, "ks_inject_torch_begin");
  enter_func = (EnterFunc) dlsym (lib, "ks_inject_torch_op_enter");
  exit_func = (ExitFunc) dlsym (lib, "ks_inject_torch_op_exit");
  if (begin == NULL || enter_func == NULL || exit_func == NULL || begin () != 1)
    {
      fprintf (stderr, "torch-steps-app: the observer's entry points are not there or not recording\n");
      return 1;
    }

  enter ("aten::empty", -1, 0, SCOPE_FUNCTION);
  leave ();

  for (int step = 0; step < 4; step++)
    {
      PinMemory pm = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 };
      pthread_t autograd_thread, pin_thread;
      char label[16];
      int64_t seq;
      uint64_t t;

      enter ("aten::to", next_seq++, 0, SCOPE_FUNCTION);
      snprintf (label, sizeof label, "step %d", step);
      nvtxRangePushA (label);
      leave ();
      pthread_create (&pin_thread, NULL, pin_memory, &pm);
      if (step == 0)
        {
          enter ("autotune", -1, 0, SCOPE_USER);
          usleep (400000);
          leave ();
        }

      enter ("aten::fill_", -1, 0, SCOPE_FUNCTION);
      enter ("aten::fill_", -1, 0, SCOPE_FUNCTION);
      leave ();
      leave ();

      seq = next_seq++;
      enter ("aten::add", seq, 0, SCOPE_FUNCTION);
      enter ("aten::add", -1, 0, SCOPE_FUNCTION);
      leave ();
      enter ("aten::empty", -1, 0, SCOPE_FUNCTION);
      leave ();
      leave ();

      t = now_ns ();
      enter_at ("aten::empty", -1, 0, SCOPE_FUNCTION, t);
      exit_func (t);

      pthread_create (&autograd_thread, NULL, backward, &seq);
      pthread_join (autograd_thread, NULL);
      nvtxRangePop ();

      pthread_mutex_lock (&pm.lock);
      pm.step_ended = 1;
      pthread_cond_signal (&pm.cond);
      pthread_mutex_unlock (&pm.lock);
      pthread_join (pin_thread, NULL);
    }

  enter ("aten::item", -1, 0, SCOPE_FUNCTION);
  leave ();

  /* more names than the injector keeps per thread, each built in the
   * same buffer as autograd builds its names */
  for (int i = 0; i < N_DISTINCT; i++)
    {
      char name[32];
      uint64_t t = now_ns ();

      snprintf (name, sizeof name, "test::distinct_%d", i);
      enter_at (name, -1, 0, SCOPE_FUNCTION, t);
      exit_func (t);
    }
  return 0;
}
