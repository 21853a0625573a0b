/* ks-allocator-map.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "ks-memory-blocks.h"

G_BEGIN_DECLS

/* The caching allocator at one instant, drawn: a bar for each segment
 * live then, by address, cut into its blocks (coloured by the stack that
 * allocated them, as the timeline colours them) and its free holes
 * (left empty), so that a fragmented segment reads at a glance. */

#define KS_TYPE_ALLOCATOR_MAP (ks_allocator_map_get_type ())

G_DECLARE_FINAL_TYPE (KsAllocatorMap, ks_allocator_map, KS, ALLOCATOR_MAP, GtkWidget)

GtkWidget *ks_allocator_map_new        (void);
/* Shows @layout of @device (both kept by the caller's trace); @blocks
 * gives the stacks' colours; @highlight is a block to outline, or
 * KS_NO_INDEX. */
void       ks_allocator_map_set_layout (KsAllocatorMap             *self,
                                        const KsMemoryBlocks       *blocks,
                                        const KsMemoryBlockDevice  *device,
                                        KsMemoryLayout             *layout,
                                        guint32                     highlight);
/* The number of segments, blocks and holes drawn. */
void       ks_allocator_map_get_counts (KsAllocatorMap             *self,
                                        guint                      *segments,
                                        guint                      *blocks,
                                        guint                      *holes);

G_END_DECLS
