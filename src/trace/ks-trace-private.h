/* ks-trace-private.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-trace.h"

G_BEGIN_DECLS

/* Tracks of at most this many slices keep their columns, depths and
 * per-depth index in blocks the trace shares (KsTrace.track_storage);
 * larger ones have an array of their own for each. Nearly every track of
 * a trace with a million threads is small, and an allocation per column
 * would cost more than the slices. */
#define KS_TRACK_PACKED_MAX 64

static inline gboolean
_ks_track_is_packed (const KsTrack *track)
{
  return track->n_slices <= KS_TRACK_PACKED_MAX;
}

void _ks_track_clear (KsTrack *track);

int  _ks_trace_open_regular_file (const char  *path,
                                  const char  *display,
                                  GError     **error);

G_END_DECLS
