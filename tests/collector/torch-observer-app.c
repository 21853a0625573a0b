/* torch-observer-app.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* A CPU-only program that emits what PyTorch emits for a few training
 * steps, two ways:
 *
 *   torch-observer-app nvtx [--shapes]
 *     NVTX ranges with the text torch's emit_nvtx gives (getNvtxStr());
 *   torch-observer-app observer [--shapes] [LIBRARY]
 *     the calls our RecordFunction observer (kinescope_observer.cpp)
 *     makes into libkinescope-inject.so (LIBRARY, or
 *     $KINESCOPE_INJECT_LIBRARY), found with dlopen()/dlsym() as it
 *     finds them: each operator's name pointer, sequence number, handle,
 *     forward thread id, scope, and its inputs' sizes with --shapes.
 *
 * Both give the same operators: each step runs, on the main thread,
 *
 *   enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__ (user scope)
 *   aten::linear { aten::t; aten::addmm }
 *   my block (user scope) { aten::relu }
 *
 * and then the backward on a second thread (the autograd engine's):
 *
 *   autograd::engine::evaluate_function: ReluBackward0 {
 *     ReluBackward0 { aten::threshold_backward } }
 *   autograd::engine::evaluate_function: AddmmBackward0
 *
 * The evaluate_function names are built in a buffer that is reused for
 * both, as torch builds them in a std::string per call: the same pointer
 * with another name. Every operator lasts at least 200 µs. */

#include <nvtx3/nvToolsExt.h>

#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* at::RecordScope */
enum { SCOPE_FUNCTION = 0, SCOPE_BACKWARD_FUNCTION = 1, SCOPE_USER = 7 };
#define FLAG_SHAPES 0x1u

typedef void (*EnterFunc) (const char *, int64_t, uint64_t, uint64_t, uint32_t, uint64_t,
                           uint32_t, const int64_t *, uint32_t, uint32_t);
typedef void (*ExitFunc) (uint64_t);

static int observer;
static int shapes;
static EnterFunc enter_func;
static ExitFunc exit_func;
static uint64_t next_handle = 1;
static int64_t next_seq = 10;
static const uint64_t main_thread_id = 1;

static uint64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* One operator starting: @sizes lists each input's dimensions, -1 ending
 * an input, -2 ending the list (the words the observer sends). */
static uint64_t
enter (const char    *name,
       int64_t        seq,
       uint64_t       fwd_thread_id,
       uint32_t       scope,
       const int64_t *sizes)
{
  uint64_t handle = next_handle++;
  int64_t words[64];
  uint32_t n_words = 0, n_inputs = 0;

  if (shapes && sizes != NULL)
    for (const int64_t *p = sizes; *p != -2; p++)
      {
        uint32_t at = n_words++;

        words[at] = 0;
        for (; *p >= 0; p++)
          {
            words[n_words++] = *p;
            words[at]++;
          }
        n_inputs++;
      }

  if (observer)
    enter_func (name, seq, handle, fwd_thread_id, scope, now_ns (), n_inputs, words, n_words,
                shapes ? FLAG_SHAPES : 0);
  else
    {
      /* getNvtxStr() */
      char text[512];
      int len = snprintf (text, sizeof text, "%s", name);
      uint32_t w = 0;

      if (seq >= 0)
        len += snprintf (text + len, sizeof text - len, ", seq = %" PRId64, seq);
      len += snprintf (text + len, sizeof text - len, ", op_id = %" PRIu64, handle);
      if (n_inputs > 0)
        {
          len += snprintf (text + len, sizeof text - len, ", sizes = [");
          for (uint32_t i = 0; i < n_inputs; i++)
            {
              int64_t ndim = words[w++];

              len += snprintf (text + len, sizeof text - len, "%s[", i > 0 ? ", " : "");
              for (int64_t d = 0; d < ndim; d++)
                len += snprintf (text + len, sizeof text - len, "%s%" PRId64, d > 0 ? ", " : "", words[w++]);
              len += snprintf (text + len, sizeof text - len, "]");
            }
          len += snprintf (text + len, sizeof text - len, "]");
          /* what the observer leaves out: nothing reads it */
          snprintf (text + len, sizeof text - len, ", input_op_ids = [(0,-1), (0,-1)]");
        }
      nvtxRangePushA (text);
    }
  usleep (200);
  return handle;
}

static void
leave (void)
{
  usleep (200);
  if (observer)
    exit_func (now_ns ());
  else
    nvtxRangePop ();
}

typedef struct
{
  int64_t relu_seq;
  int64_t addmm_seq;
} Backward;

static void *
backward (void *data)
{
  Backward *b = data;
  static const int64_t grad_sizes[] = { 8, 16, -1, 8, 16, -1, -1, -2 };
  char name[128];

  snprintf (name, sizeof name, "autograd::engine::evaluate_function: %s", "ReluBackward0");
  enter (name, b->relu_seq, main_thread_id, SCOPE_BACKWARD_FUNCTION, NULL);
  enter ("ReluBackward0", b->relu_seq, main_thread_id, SCOPE_BACKWARD_FUNCTION, NULL);
  enter ("aten::threshold_backward", -1, 0, SCOPE_FUNCTION, grad_sizes);
  leave ();
  leave ();
  leave ();
  snprintf (name, sizeof name, "autograd::engine::evaluate_function: %s", "AddmmBackward0");
  enter (name, b->addmm_seq, main_thread_id, SCOPE_BACKWARD_FUNCTION, NULL);
  leave ();
  return NULL;
}

int
main (int    argc,
      char **argv)
{
  static const int64_t linear_sizes[] = { 8, 32, -1, 16, 32, -1, 16, -1, -2 };
  static const int64_t t_sizes[] = { 16, 32, -1, -2 };
  static const int64_t addmm_sizes[] = { 16, -1, 8, 32, -1, 32, 16, -1, -1, -1, -2 };
  static const int64_t relu_sizes[] = { 8, 16, -1, -2 };
  const char *library;
  int arg = 2;

  if (argc < 2 || (strcmp (argv[1], "nvtx") != 0 && strcmp (argv[1], "observer") != 0))
    {
      fprintf (stderr, "usage: torch-observer-app nvtx|observer [--shapes] [LIBRARY]\n");
      return 2;
    }
  observer = strcmp (argv[1], "observer") == 0;
  if (arg < argc && strcmp (argv[arg], "--shapes") == 0)
    {
      shapes = 1;
      arg++;
    }

  if (observer)
    {
      int (*begin) (void);
      void *lib;

      library = arg < argc ? argv[arg] : getenv ("KINESCOPE_INJECT_LIBRARY");
      if (library == NULL || (lib = dlopen (library, RTLD_NOW)) == NULL)
        {
          fprintf (stderr, "torch-observer-app: no libkinescope-inject.so: %s\n", dlerror ());
          return 1;
        }
      begin = (int (*) (void)) dlsym (lib, "ks_inject_torch_begin");
      enter_func = (EnterFunc) dlsym (lib, "ks_inject_torch_op_enter");
      exit_func = (ExitFunc) dlsym (lib, "ks_inject_torch_op_exit");
      if (begin == NULL || enter_func == NULL || exit_func == NULL || begin () != 1)
        {
          fprintf (stderr, "torch-observer-app: the observer's entry points are not there or not recording\n");
          return 1;
        }
    }

  for (int step = 0; step < 2; step++)
    {
      Backward b;
      pthread_t thread;

      enter ("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", -1, 0, SCOPE_USER, NULL);
      leave ();
      enter ("aten::linear", next_seq, 0, SCOPE_FUNCTION, linear_sizes);
      enter ("aten::t", -1, 0, SCOPE_FUNCTION, t_sizes);
      leave ();
      b.addmm_seq = ++next_seq;
      enter ("aten::addmm", b.addmm_seq, 0, SCOPE_FUNCTION, addmm_sizes);
      leave ();
      leave ();
      enter ("my block", -1, 0, SCOPE_USER, NULL);
      b.relu_seq = ++next_seq;
      enter ("aten::relu", b.relu_seq, 0, SCOPE_FUNCTION, relu_sizes);
      leave ();
      leave ();
      next_seq++;

      pthread_create (&thread, NULL, backward, &b);
      pthread_join (thread, NULL);
    }
  return 0;
}
