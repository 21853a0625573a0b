/* ks-row-item.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* One row of an analysis table: the index of its record in the
 * analysis' array. Pages read the record through the index. */

#define KS_TYPE_ROW_ITEM (ks_row_item_get_type ())

G_DECLARE_FINAL_TYPE (KsRowItem, ks_row_item, KS, ROW_ITEM, GObject)

KsRowItem *ks_row_item_new       (guint      index);
guint      ks_row_item_get_index (KsRowItem *self);

G_END_DECLS
