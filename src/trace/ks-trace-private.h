/* ks-trace-private.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-trace.h"

G_BEGIN_DECLS

void _ks_track_clear (KsTrack *track);

int  _ks_trace_open_regular_file (const char  *path,
                                  const char  *display,
                                  GError     **error);

G_END_DECLS
