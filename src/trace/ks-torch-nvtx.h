/* ks-torch-nvtx.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The text PyTorch's NVTX emission (torch.autograd.profiler.emit_nvtx,
 * nsys --pytorch=autograd-nvtx) gives each RecordFunction's range, built
 * by getNvtxStr():
 *
 *   NAME[, seq = N][, op_id = N][, sizes = [[2, 3], [], [4]]][, input_op_ids = [(12,0), (0,-1)]]
 *
 * NAME may itself contain ", ": the decorations are read from the
 * right, after the last ", op_id = " whose tail parses. A text without
 * op_id is not an operator (plain NVTX ranges stay NVTX ranges). */
typedef struct
{
  char    *name;        /* NAME */
  gint64   seq;         /* sequence number, -1 when none */
  gint64   op_id;       /* RecordFunction handle */
  char    *input_dims;  /* the sizes as compact JSON ("[[2,3],[],[4]]"), NULL when none */
  guint    n_inputs;    /* entries of input_op_ids */
  gboolean truncated;   /* the text ended inside its sizes or input ids */
} KsTorchOp;

/* TRUE, with @op filled (clear it), when @text is an operator's range. */
gboolean  ks_torch_nvtx_parse      (const char      *text,
                                    KsTorchOp       *op);
void      ks_torch_op_clear        (KsTorchOp       *op);
/* The text getNvtxStr() gives the operator @name with @seq (-1: none)
 * and @op_id (0: none) and, @with_sizes, its inputs' sizes: @words holds,
 * for each of @n_inputs inputs, its number of dimensions and then its
 * sizes (KsWireTorchOp's encoding). @truncated leaves the list open, as a
 * text cut at the NVTX message limit would. The inverse of
 * ks_torch_nvtx_parse() but for input_op_ids, which nothing reads. */
char     *ks_torch_op_format       (const char      *name,
                                    gint64           seq,
                                    guint64          op_id,
                                    gboolean         with_sizes,
                                    const gint64    *words,
                                    guint            n_inputs,
                                    guint            n_words,
                                    gboolean         truncated);
/* Whether the operator runs in the backward pass' engine. */
gboolean  ks_torch_op_is_backward  (const KsTorchOp *op);
/* The args a Kineto trace gives the operator: {"Sequence number": N,
 * "Input Dims": [...], "Record function id": N}. */
char     *ks_torch_op_args         (const KsTorchOp *op);

G_END_DECLS
