/* ks-kscope-writer.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-kscope-schema.h"
#include "ks-progress.h"
#include "ks-trace.h"

G_BEGIN_DECLS

/* Saves @trace as a .kscope database (see TRACE_FORMAT.md). The file is
 * written beside @file under a temporary name and renamed over it when
 * complete, so @file is either the old file or the whole new one. */
gboolean ks_kscope_write (KsTrace       *trace,
                          GFile         *file,
                          KsProgress    *progress,
                          GCancellable  *cancellable,
                          GError       **error);

G_END_DECLS
