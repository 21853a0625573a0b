/* ks-index-model.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-index-model"

#include "config.h"

#include "ks-index-model.h"

struct _KsIndexModel
{
  GObject parent_instance;
  guint   n;
};

static GType
ks_index_model_get_item_type (GListModel *model)
{
  return KS_TYPE_ROW_ITEM;
}

static guint
ks_index_model_get_n_items (GListModel *model)
{
  return KS_INDEX_MODEL (model)->n;
}

static gpointer
ks_index_model_get_item (GListModel *model,
                         guint       position)
{
  if (position >= KS_INDEX_MODEL (model)->n)
    return NULL;
  return ks_row_item_new (position);
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = ks_index_model_get_item_type;
  iface->get_n_items = ks_index_model_get_n_items;
  iface->get_item = ks_index_model_get_item;
}

G_DEFINE_FINAL_TYPE_WITH_CODE (KsIndexModel, ks_index_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

static void
ks_index_model_class_init (KsIndexModelClass *klass)
{
}

static void
ks_index_model_init (KsIndexModel *self)
{
}

KsIndexModel *
ks_index_model_new (void)
{
  return g_object_new (KS_TYPE_INDEX_MODEL, NULL);
}

void
ks_index_model_set_n (KsIndexModel *self,
                      guint         n)
{
  guint old;

  g_return_if_fail (KS_IS_INDEX_MODEL (self));

  old = self->n;
  self->n = n;
  if (old != 0 || n != 0)
    g_list_model_items_changed (G_LIST_MODEL (self), 0, old, n);
}
