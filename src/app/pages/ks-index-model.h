/* ks-index-model.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ks-row-item.h"

G_BEGIN_DECLS

/* A list of KsRowItem 0 .. n - 1, made on demand, so a table of a
 * million gaps costs nothing until it is sorted or scrolled. */

#define KS_TYPE_INDEX_MODEL (ks_index_model_get_type ())

G_DECLARE_FINAL_TYPE (KsIndexModel, ks_index_model, KS, INDEX_MODEL, GObject)

KsIndexModel *ks_index_model_new    (void);
/* Replaces the rows with @n new ones (items-changed). */
void          ks_index_model_set_n  (KsIndexModel *self,
                                     guint         n);

G_END_DECLS
