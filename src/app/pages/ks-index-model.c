/* ks-index-model.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-index-model"

#include "config.h"

#include "ks-index-model.h"

/* After GTK's own incremental sort (default-idle priority): a step is
 * added when the models above have taken the last one, and before the
 * hidden pages' refills (low priority). */
#define STEP_PRIORITY (G_PRIORITY_DEFAULT_IDLE + 10)

struct _KsIndexModel
{
  GObject    parent_instance;
  guint      n;        /* rows shown */
  guint      target;   /* rows set: n + pending */
  guint      first_step; /* rows of the first step; 0: step */
  guint      step;       /* most rows a step; each takes twice the last */
  guint      last_step;
  GPtrArray *items;    /* KsRowItem or NULL per row set, made on demand */
  guint      step_source;
};

enum { PROP_0, PROP_PENDING, N_PROPS };
static GParamSpec *properties[N_PROPS];

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
  KsIndexModel *self = KS_INDEX_MODEL (model);

  if (position >= self->n)
    return NULL;
  if (g_ptr_array_index (self->items, position) == NULL)
    g_ptr_array_index (self->items, position) = ks_row_item_new (position);
  return g_object_ref (g_ptr_array_index (self->items, position));
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

/* Shows rows up to @n of those set. */
static void
ks_index_model_grow (KsIndexModel *self,
                     guint         n)
{
  guint old = self->n;

  g_assert (n >= old && n <= self->target);
  if (n == old)
    return;
  self->n = n;
  g_list_model_items_changed (G_LIST_MODEL (self), old, 0, n - old);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PENDING]);
}

static gboolean
step_cb (gpointer data)
{
  KsIndexModel *self = data;

  self->last_step = MIN (self->last_step * 2, self->step);
  ks_index_model_grow (self, self->n + MIN (self->last_step, self->target - self->n));
  if (self->n < self->target)
    return G_SOURCE_CONTINUE;
  self->step_source = 0;
  return G_SOURCE_REMOVE;
}

static void
ks_index_model_dispose (GObject *object)
{
  KsIndexModel *self = (KsIndexModel *)object;

  g_clear_handle_id (&self->step_source, g_source_remove);
  g_clear_pointer (&self->items, g_ptr_array_unref);

  G_OBJECT_CLASS (ks_index_model_parent_class)->dispose (object);
}

static void
ks_index_model_get_property (GObject    *object,
                             guint       prop_id,
                             GValue     *value,
                             GParamSpec *pspec)
{
  KsIndexModel *self = KS_INDEX_MODEL (object);

  switch (prop_id)
    {
    case PROP_PENDING:
      g_value_set_uint (value, ks_index_model_get_pending (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_index_model_class_init (KsIndexModelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ks_index_model_dispose;
  object_class->get_property = ks_index_model_get_property;

  properties[PROP_PENDING] =
    g_param_spec_uint ("pending", NULL, NULL, 0, G_MAXUINT, 0,
                       (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

/* Rows not made yet are NULL */
static void
item_free (gpointer item)
{
  if (item != NULL)
    g_object_unref (item);
}

static void
ks_index_model_init (KsIndexModel *self)
{
  self->items = g_ptr_array_new_with_free_func (item_free);
}

KsIndexModel *
ks_index_model_new (void)
{
  return g_object_new (KS_TYPE_INDEX_MODEL, NULL);
}

/* Shows the first step of the rows set and schedules the others. */
static void
ks_index_model_start (KsIndexModel *self,
                      guint         old)
{
  guint now;

  self->last_step = self->first_step > 0 ? MIN (self->first_step, self->step) : self->step;
  now = self->step > 0 ? MIN (self->target, self->last_step) : self->target;
  g_clear_handle_id (&self->step_source, g_source_remove);
  self->n = now;
  if (old != 0 || now != 0)
    g_list_model_items_changed (G_LIST_MODEL (self), 0, old, now);
  if (self->n < self->target)
    {
      self->step_source = g_idle_add_full (STEP_PRIORITY, step_cb, self, NULL);
      g_source_set_static_name (g_main_context_find_source_by_id (NULL, self->step_source),
                                "[kinescope] table rows");
    }
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PENDING]);
}

void
ks_index_model_set_n (KsIndexModel *self,
                      guint         n)
{
  guint old;

  g_return_if_fail (KS_IS_INDEX_MODEL (self));

  old = self->n;
  /* New rows are new items: a selection must not take one for another */
  g_ptr_array_set_size (self->items, 0);
  g_ptr_array_set_size (self->items, n);
  self->target = n;
  ks_index_model_start (self, old);
}

void
ks_index_model_reset (KsIndexModel *self)
{
  g_return_if_fail (KS_IS_INDEX_MODEL (self));

  ks_index_model_start (self, self->n);
}

void
ks_index_model_set_steps (KsIndexModel *self,
                          guint         first,
                          guint         most)
{
  g_return_if_fail (KS_IS_INDEX_MODEL (self));

  self->first_step = first;
  self->step = most;
}

void
ks_index_model_take (KsIndexModel *self,
                     guint         n)
{
  g_return_if_fail (KS_IS_INDEX_MODEL (self));

  ks_index_model_grow (self, MAX (self->n, MIN (n, self->target)));
  if (self->n == self->target)
    g_clear_handle_id (&self->step_source, g_source_remove);
}

void
ks_index_model_finish (KsIndexModel *self)
{
  g_return_if_fail (KS_IS_INDEX_MODEL (self));

  g_clear_handle_id (&self->step_source, g_source_remove);
  ks_index_model_grow (self, self->target);
}

guint
ks_index_model_get_pending (KsIndexModel *self)
{
  g_return_val_if_fail (KS_IS_INDEX_MODEL (self), 0);

  return self->target - self->n;
}
