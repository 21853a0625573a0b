/* ks-sample-stack.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-trace.h"

G_BEGIN_DECLS

/* One frame of a Python samples row: a KS_SLICE_SAMPLE slice. */
typedef struct
{
  guint32     slice;
  const char *function;     /* the trace's string */
  char       *location;     /* "file:line", "file" when the line is unknown, or "" */
  guint64     samples;      /* samples with this frame in their stack, over the slice */
  guint64     waiting;      /* of those, taken while the thread waited */
} KsSampleStackFrame;

/* The stack that @slice of @track is the innermost frame of: @slice
 * first, then its callers out to the outermost frame. NULL when @slice
 * is not a KS_SLICE_SAMPLE slice. */
GArray *ks_sample_stack_new             (KsTrace                  *trace,
                                         guint32                   track,
                                         guint32                   slice);

/* "N samples" */
char   *ks_sample_stack_format_samples  (guint64                   samples);

G_END_DECLS
