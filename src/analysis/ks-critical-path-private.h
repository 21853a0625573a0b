/* ks-critical-path-private.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-critical-path.h"

G_BEGIN_DECLS

/* Shared by ks-critical-path.c (the object, the rules' factors per name)
 * and ks-critical-path-graph.c (the graph of a step and its path). */

#define TOP_ITEMS 50
#define MAX_OP_RULES 32

/* What a name means to the graph. */
enum
{
  N_SYNC        = 1 << 0,   /* the CPU waits for the GPU in it */
  N_DATALOADER  = 1 << 1,
  N_COMM        = 1 << 2,   /* a collective: NCCL kernel, c10d/gloo operator */
  N_EVENT_REC   = 1 << 3,   /* cudaEventRecord */
  N_WAIT_EVENT  = 1 << 4,   /* cudaStreamWaitEvent */
};

typedef struct
{
  guint64 key;              /* group << 32 | correlation */
  guint32 track;
  guint32 slice;
} CorrRef;

/* Shared by the steps of one computation. */
typedef struct
{
  KsTrace        *trace;
  guint8         *flags;          /* per string id */
  guint32        *op_rules;       /* per string id: the op rules matching it, NULL without */
  double         *kernel_factor;  /* per string id, NULL without kernel rules */
  double          op_factor[MAX_OP_RULES];
  double          copy_factor;
  double          launch_factor;
  double          dataloader_factor;
  GArray         *corr;           /* CorrRef, by key */
} Builder;

static inline gboolean
is_gpu_work (guint8 kind)
{
  return kind == KS_SLICE_KERNEL || kind == KS_SLICE_MEMCPY || kind == KS_SLICE_MEMSET;
}

void _ks_path_builder_init  (Builder        *b,
                             KsTrace        *trace,
                             const KsWhatIf *what_if);
void _ks_path_builder_clear (Builder        *b);
/* The path of @step (index @index), re-timed too when @what_if. */
void _ks_path_compute_step  (const Builder  *b,
                             const KsStep   *step,
                             guint           index,
                             gboolean        what_if,
                             KsPathStep     *out);

G_END_DECLS
