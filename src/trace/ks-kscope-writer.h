/* ks-kscope-writer.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-progress.h"
#include "ks-trace.h"

G_BEGIN_DECLS

/* The .kscope format: application id "KSCO", schema version 1. */
#define KS_KSCOPE_APPLICATION_ID 0x4B53434F
#define KS_KSCOPE_FORMAT_VERSION 1

/* Saves @trace as a .kscope database (see TRACE_FORMAT.md). The file is
 * written beside @file under a temporary name and renamed over it when
 * complete, so @file is either the old file or the whole new one. */
gboolean ks_kscope_write (KsTrace       *trace,
                          GFile         *file,
                          KsProgress    *progress,
                          GCancellable  *cancellable,
                          GError       **error);

G_END_DECLS
