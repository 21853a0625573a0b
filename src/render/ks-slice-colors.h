/* ks-slice-colors.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-palette.h"
#include "ks-trace.h"

G_BEGIN_DECLS

/* Stable colour for a slice name: the same name always gets the same
 * colour (a hash of the text, not of the id, so it holds across files). */
KsColor        ks_palette_name_color    (const char  *name,
                                         KsSliceKind  kind,
                                         gboolean     dark);
/* @color faded toward the row's background: a sampled frame the thread
 * was waiting in (sleep, a lock, I/O, the GIL), not running. */
KsColor        ks_palette_waiting_color (KsColor      color,
                                         gboolean     dark);
/* Colour for a GPU copy; memcpy by direction, memset its own hue. */
KsColor        ks_palette_copy_color    (KsSliceKind  kind,
                                         guint8       copy_kind,
                                         gboolean     dark);

G_END_DECLS
