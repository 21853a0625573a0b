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
 * million gaps costs nothing until it is sorted or scrolled. Each row is
 * one item for as long as the list holds it, so a selection follows its
 * row while a sort moves it.
 *
 * With steps, a long list takes its rows a step per main-loop iteration,
 * so that the models and views above it never take them all in one
 * dispatch; "pending" counts the rows still to come. */

#define KS_TYPE_INDEX_MODEL (ks_index_model_get_type ())

G_DECLARE_FINAL_TYPE (KsIndexModel, ks_index_model, KS, INDEX_MODEL, GObject)

KsIndexModel *ks_index_model_new         (void);
/* Replaces the rows with @n new ones (items-changed): the first step
 * of them now, the others in later main-loop iterations. */
void          ks_index_model_set_n       (KsIndexModel *self,
                                          guint         n);
/* Takes the same rows again, the same items, in steps: for a filter
 * above it that changed. */
void          ks_index_model_reset       (KsIndexModel *self);
/* Rows added per main-loop iteration: @first, then twice as many each
 * time up to @most; @most 0 (the default): all at once. */
void          ks_index_model_set_steps   (KsIndexModel *self,
                                          guint         first,
                                          guint         most);
/* Adds rows now, up to @n in all; the others still come in steps. */
void          ks_index_model_take        (KsIndexModel *self,
                                          guint         n);
/* Adds the rows still to come now. */
void          ks_index_model_finish      (KsIndexModel *self);
/* Rows set but not added yet. */
guint         ks_index_model_get_pending (KsIndexModel *self);

G_END_DECLS
