/* ks-cli-memsnap.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-report.h"

G_BEGIN_DECLS

/* stats --report memory-snapshot: the allocator at the end of a snapshot
 * per device, its peak with the live blocks by Python stack, the blocks
 * never freed and each out-of-memory error. Returns the exit status. */
int ks_cli_stats_memory_snapshot (const char     *path,
                                  KsReportFormat  format,
                                  guint           limit);

G_END_DECLS
