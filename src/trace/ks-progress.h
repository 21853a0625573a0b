/* ks-progress.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Progress of a background job, written by the worker and read by
 * whoever shows it. Thread-safe; cheap to update often (the message is
 * only copied when it changes). */

typedef struct _KsProgress KsProgress;

typedef void (*KsProgressNotify) (KsProgress *progress,
                                  gpointer    user_data);

KsProgress *ks_progress_new          (void);
KsProgress *ks_progress_ref          (KsProgress       *self);
void        ks_progress_unref        (KsProgress       *self);
/* @notify is called from the worker's thread after each change. */
void        ks_progress_set_notify   (KsProgress       *self,
                                      KsProgressNotify  notify,
                                      gpointer          user_data,
                                      GDestroyNotify    destroy);
void        ks_progress_set_fraction (KsProgress       *self,
                                      double            fraction);
void        ks_progress_set_message  (KsProgress       *self,
                                      const char       *message);
double      ks_progress_get_fraction (KsProgress       *self);
char       *ks_progress_dup_message  (KsProgress       *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsProgress, ks_progress_unref)

G_END_DECLS
