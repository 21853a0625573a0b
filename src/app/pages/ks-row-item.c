/* ks-row-item.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-row-item"

#include "config.h"

#include "ks-row-item.h"

struct _KsRowItem
{
  GObject parent_instance;
  guint   index;
};

G_DEFINE_FINAL_TYPE (KsRowItem, ks_row_item, G_TYPE_OBJECT)

static void
ks_row_item_class_init (KsRowItemClass *klass)
{
}

static void
ks_row_item_init (KsRowItem *self)
{
}

KsRowItem *
ks_row_item_new (guint index)
{
  KsRowItem *self = g_object_new (KS_TYPE_ROW_ITEM, NULL);

  self->index = index;
  return self;
}

guint
ks_row_item_get_index (KsRowItem *self)
{
  g_return_val_if_fail (KS_IS_ROW_ITEM (self), 0);
  return self->index;
}
