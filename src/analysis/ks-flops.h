/* ks-flops.h: floating-point operations and bytes of one operator call
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The element types that the peak table has a rate for. */
typedef enum
{
  KS_DTYPE_UNKNOWN = 0,
  KS_DTYPE_FP64,
  KS_DTYPE_FP32,
  KS_DTYPE_TF32,
  KS_DTYPE_FP16,
  KS_DTYPE_BF16,
  KS_DTYPE_FP8,
  KS_N_DTYPES
} KsDtype;

typedef enum
{
  KS_COST_NONE = 0,
  KS_COST_FORMULA,     /* a matmul, convolution or attention formula */
  KS_COST_BYTES,       /* elementwise, reduction or Triton kernel: bytes only */
  KS_COST_ARGUMENT,    /* the trace's own "flops" argument (with_flops) */
  KS_COST_UNFIT,       /* shapes that fit no formula, or too many inputs (returns FALSE) */
} KsCostSource;

typedef struct
{
  guint64      flops;
  guint64      bytes;    /* tensors read and written, each once */
  KsDtype      dtype;    /* of the first floating-point tensor input */
  KsCostSource source;
  const char  *dims;     /* the "Input Dims" text inside the args given, NULL none */
  gsize        dims_len;
} KsOpCost;

/* "fp32", "bf16"...; NULL for KS_DTYPE_UNKNOWN. */
const char *ks_dtype_to_string   (KsDtype     dtype);
KsDtype     ks_dtype_from_string (const char *s);

/* The cost of one call of operator @name from its args text (the
 * PyTorch profiler's "Input Dims", "Input type" and "Concrete Inputs",
 * or a "flops" argument): PyTorch's flop counter's formulas
 * (torch/utils/flop_counter.py) for mm, addmm, bmm, baddbmm, matmul,
 * linear, convolutions forward and backward and scaled-dot-product,
 * flash, efficient and cuDNN attention forward and backward; bytes of
 * elementwise operators and reductions. FALSE when @name has no formula
 * or its shapes do not fit one. */
gboolean    ks_flops_for_call    (const char  *name,
                                  const char  *args,
                                  KsOpCost    *cost);

/* Whether operator @name can have a cost: FALSE for every operator
 * that ks_flops_for_call() counts nothing for (views, allocations...),
 * unless a "flops" argument says otherwise (which only PyTorch's
 * with_flops operators carry). */
gboolean    ks_flops_name_may_cost (const char *name);

/* Whether @args records input shapes ("Input Dims"). */
gboolean    ks_flops_args_have_shapes (const char *args);

G_END_DECLS
