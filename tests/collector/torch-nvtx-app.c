/* torch-nvtx-app.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* A CPU-only program whose NVTX ranges are exactly the text PyTorch's
 * emit_nvtx(record_shapes=True) gives (getNvtxStr()), recorded by the
 * tests through NVTX_INJECTION64_PATH. Two steps, each:
 *
 *   main thread: push "step N" (a plain range) {
 *     enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__, op_id
 *     aten::linear, seq, op_id, sizes { aten::t, op_id, sizes;
 *                                        aten::addmm, seq, op_id, sizes, input_op_ids }
 *     "my block, part 2", op_id, sizes = []  { aten::relu, seq, op_id, sizes }
 *   }
 *   then a second thread runs the backward:
 *     autograd::engine::evaluate_function: ReluBackward0, seq (relu's) {
 *       ReluBackward0, seq { aten::threshold_backward, op_id, sizes } }
 *     autograd::engine::evaluate_function: AddmmBackward0, seq (addmm's)
 *
 * Every range lasts at least 200 µs. */

#include <nvtx3/nvToolsExt.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static int op_id = 1;
static int seq = 10;

static void
push (const char *format,
      ...) __attribute__ ((format (printf, 1, 2)));

static void
push (const char *format,
      ...)
{
  char text[512];
  va_list args;

  va_start (args, format);
  vsnprintf (text, sizeof text, format, args);
  va_end (args);
  nvtxRangePushA (text);
  usleep (200);
}

static void
pop (void)
{
  usleep (200);
  nvtxRangePop ();
}

typedef struct
{
  int relu_seq;
  int addmm_seq;
} Backward;

static void *
backward (void *data)
{
  Backward *b = data;

  push ("autograd::engine::evaluate_function: ReluBackward0, seq = %d, op_id = %d", b->relu_seq, op_id++);
  push ("ReluBackward0, seq = %d, op_id = %d", b->relu_seq, op_id++);
  push ("aten::threshold_backward, op_id = %d, sizes = [[8, 16], [8, 16], []]", op_id++);
  pop ();
  pop ();
  pop ();
  push ("autograd::engine::evaluate_function: AddmmBackward0, seq = %d, op_id = %d", b->addmm_seq, op_id++);
  pop ();
  return NULL;
}

int
main (void)
{
  for (int step = 0; step < 2; step++)
    {
      Backward b;
      pthread_t thread;
      int t_id;

      push ("step %d", step);
      push ("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__, op_id = %d", op_id++);
      pop ();
      push ("aten::linear, seq = %d, op_id = %d, sizes = [[8, 32], [16, 32], [16]]", seq, op_id++);
      t_id = op_id++;
      push ("aten::t, op_id = %d, sizes = [[16, 32]]", t_id);
      pop ();
      b.addmm_seq = ++seq;
      push ("aten::addmm, seq = %d, op_id = %d, sizes = [[16], [8, 32], [32, 16], [], []], "
            "input_op_ids = [(0,-1), (0,-1), (%d,0), (0,-1), (0,-1)]", b.addmm_seq, op_id++, t_id);
      pop ();
      pop ();
      push ("my block, part 2, op_id = %d, sizes = []", op_id++);
      b.relu_seq = ++seq;
      push ("aten::relu, seq = %d, op_id = %d, sizes = [[8, 16]]", b.relu_seq, op_id++);
      pop ();
      pop ();
      pop ();
      seq++;

      pthread_create (&thread, NULL, backward, &b);
      pthread_join (thread, NULL);
    }
  return 0;
}
