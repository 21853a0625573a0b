/* ks-memsnap-reader.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-memsnap.h"
#include "ks-trace.h"

G_BEGIN_DECLS

/* A memory snapshot as a trace: per device the caching allocator's
 * allocations and frees as memory events (so the timeline draws allocated,
 * reserved, and reserved but unallocated), segment events and
 * out-of-memory errors as instants with their figures in the args. */
KsTrace *ks_memsnap_reader_load      (GFile         *file,
                                      KsProgress    *progress,
                                      GCancellable  *cancellable,
                                      GError       **error);
KsTrace *ks_memsnap_reader_build     (KsMemsnap     *snap,
                                      const char    *name,
                                      GCancellable  *cancellable,
                                      GError       **error);

/* The snapshot a trace was read from (or was given with a trace of the
 * same run), kept with it for what the memory events do not say: each
 * block's stack and stream, the segments. Set once, before the trace is
 * shared; NULL when none. */
void       ks_memsnap_reader_attach       (KsTrace       *trace,
                                           KsMemsnap     *snap);
KsMemsnap *ks_memsnap_reader_get_snapshot (KsTrace       *trace);

G_END_DECLS
