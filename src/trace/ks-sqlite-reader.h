/* ks-sqlite-reader.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-progress.h"
#include "ks-trace.h"

G_BEGIN_DECLS

/* Loads a .kscope file or an Nsight Systems SQLite export
 * (`nsys export --type sqlite`, schema 2.x or 3.x). The file is opened
 * read-only and defensively; tables and columns are looked up by name.
 * Sets KsTrace.format to KS_FORMAT_KSCOPE or KS_FORMAT_NSYS_SQLITE. */
KsTrace *ks_sqlite_reader_load (GFile         *file,
                                KsProgress    *progress,
                                GCancellable  *cancellable,
                                GError       **error);

G_END_DECLS
