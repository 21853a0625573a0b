/* ks-progress.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "ks-progress.h"

struct _KsProgress
{
  gatomicrefcount   ref_count;
  GMutex            mutex;
  double            fraction;
  char             *message;
  KsProgressNotify  notify;
  gpointer          notify_data;
  GDestroyNotify    notify_destroy;
};

KsProgress *
ks_progress_new (void)
{
  KsProgress *self = g_new0 (KsProgress, 1);

  g_atomic_ref_count_init (&self->ref_count);
  g_mutex_init (&self->mutex);
  return self;
}

KsProgress *
ks_progress_ref (KsProgress *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
ks_progress_unref (KsProgress *self)
{
  g_return_if_fail (self != NULL);

  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  if (self->notify_destroy)
    self->notify_destroy (self->notify_data);
  g_mutex_clear (&self->mutex);
  g_free (self->message);
  g_free (self);
}

void
ks_progress_set_notify (KsProgress       *self,
                        KsProgressNotify  notify,
                        gpointer          user_data,
                        GDestroyNotify    destroy)
{
  g_return_if_fail (self != NULL);

  g_mutex_lock (&self->mutex);
  if (self->notify_destroy)
    self->notify_destroy (self->notify_data);
  self->notify = notify;
  self->notify_data = user_data;
  self->notify_destroy = destroy;
  g_mutex_unlock (&self->mutex);
}

static void
ks_progress_emit (KsProgress *self)
{
  KsProgressNotify notify;
  gpointer data;

  g_mutex_lock (&self->mutex);
  notify = self->notify;
  data = self->notify_data;
  g_mutex_unlock (&self->mutex);

  if (notify)
    notify (self, data);
}

void
ks_progress_set_fraction (KsProgress *self,
                          double      fraction)
{
  gboolean changed;

  if (self == NULL)
    return;

  fraction = CLAMP (fraction, 0.0, 1.0);
  g_mutex_lock (&self->mutex);
  /* Only report visible steps so callers may update per event. */
  changed = (fraction - self->fraction >= 0.001 || fraction < self->fraction || fraction == 1.0)
            && fraction != self->fraction;
  if (changed)
    self->fraction = fraction;
  g_mutex_unlock (&self->mutex);

  if (changed)
    ks_progress_emit (self);
}

void
ks_progress_set_message (KsProgress *self,
                         const char *message)
{
  gboolean changed;

  if (self == NULL)
    return;

  g_mutex_lock (&self->mutex);
  changed = g_strcmp0 (self->message, message) != 0;
  if (changed)
    {
      g_free (self->message);
      self->message = g_strdup (message);
    }
  g_mutex_unlock (&self->mutex);

  if (changed)
    ks_progress_emit (self);
}

double
ks_progress_get_fraction (KsProgress *self)
{
  double ret;

  g_return_val_if_fail (self != NULL, 0.0);

  g_mutex_lock (&self->mutex);
  ret = self->fraction;
  g_mutex_unlock (&self->mutex);
  return ret;
}

char *
ks_progress_dup_message (KsProgress *self)
{
  char *ret;

  g_return_val_if_fail (self != NULL, NULL);

  g_mutex_lock (&self->mutex);
  ret = g_strdup (self->message);
  g_mutex_unlock (&self->mutex);
  return ret;
}
