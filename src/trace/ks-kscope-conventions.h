/* ks-kscope-conventions.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "ks-trace.h"

G_BEGIN_DECLS

/* What a .kscope says beyond its schema, in one place: both writers
 * (kinescope-cli convert through ks-kscope-writer.c, and record through
 * the collector's ks-record-writer.c) name kernels, label threads and bind
 * flows by these rules, so that a trace reads the same however it was
 * made. */

/* Nsight Systems' shortName for a kernel: the unqualified function name,
 * without return type, scope, template arguments and parameters.
 * "void ns::Foo<int>::bar(int)" → "bar";
 * "void clover::par_ranged1d_kernel<…>(clover::Range1d, T1)" →
 * "par_ranged1d_kernel". A name that is not a C++ signature is kept. */
char        *ks_kscope_kernel_short_name  (const char    *demangled);

/* KS_THREADS.role from what PyTorch names its threads ("dataloader",
 * "autograd"), else "main" for a process's first thread, else NULL. */
const char  *ks_kscope_thread_role        (gint64         pid,
                                           gint64         tid,
                                           const char    *name);

/* The slice a KS_FLOWS end at @ts binds to on reading: the deepest slice
 * of @track containing @ts, else the first starting at or after it, else
 * KS_NO_INDEX. */
guint32      ks_kscope_flow_end_slice     (const KsTrack *track,
                                           gint64         ts);

/* A flow end to bind: @slice is filled in, @tag is the caller's. */
typedef struct
{
  gint64  ts;
  guint32 tag;
  guint32 slice;
} KsFlowEnd;

/* ks_kscope_flow_end_slice() for each of @ends, sorted by ts: one pass
 * over @track, for files with many flows. */
void         ks_kscope_flow_end_slices    (const KsTrack *track,
                                           KsFlowEnd     *ends,
                                           gsize          n);
/* A time to write for a flow end that binds back to @slice: its start, or
 * a moment inside it that none of its children covers. */
gint64       ks_kscope_flow_end_time      (const KsTrack *track,
                                           guint32        slice);

G_END_DECLS
