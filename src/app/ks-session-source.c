/* ks-session-source.c: where the session's trace comes from: its file,
 * or a job over the memory bound with the rank it holds
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-session"

#include "config.h"

#include "ks-session-private.h"

/* The file, the summaries, the folder and the rows are the session's,
 * not a window's: the title, the Compare view and both Ranks pages
 * follow them, and the window only says which file is loading. */

GFile *
ks_session_get_file (KsSession *self)
{
  g_return_val_if_fail (KS_IS_SESSION (self), NULL);

  return self->file;
}

void
ks_session_set_file (KsSession *self,
                     GFile     *file)
{
  g_return_if_fail (KS_IS_SESSION (self));
  g_return_if_fail (!file || G_IS_FILE (file));

  if (g_set_object (&self->file, file))
    g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_FILE]);
}

void
ks_session_set_job (KsSession       *self,
                    KsRankSummaries *summaries,
                    GFile           *file)
{
  gboolean changed;

  g_return_if_fail (KS_IS_SESSION (self));
  g_return_if_fail (!summaries || KS_IS_RANK_SUMMARIES (summaries));
  g_return_if_fail (!file || G_IS_FILE (file));

  g_object_freeze_notify (G_OBJECT (self));
  /* the row first: a page that follows the summaries reads it */
  ks_session_set_loaded_row (self, KS_NO_INDEX);
  changed = g_set_object (&self->summaries, summaries);
  if (g_set_object (&self->job_file, file))
    g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_JOB_FILE]);
  if (changed)
    g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_SUMMARIES]);
  g_object_thaw_notify (G_OBJECT (self));
}

KsRankSummaries *
ks_session_get_summaries (KsSession *self)
{
  g_return_val_if_fail (KS_IS_SESSION (self), NULL);

  return self->summaries;
}

GFile *
ks_session_get_job_file (KsSession *self)
{
  g_return_val_if_fail (KS_IS_SESSION (self), NULL);

  return self->job_file;
}

guint
ks_session_get_loaded_row (KsSession *self)
{
  g_return_val_if_fail (KS_IS_SESSION (self), KS_NO_INDEX);

  return self->loaded_row;
}

void
ks_session_set_loaded_row (KsSession *self,
                           guint      row)
{
  g_return_if_fail (KS_IS_SESSION (self));

  if (self->loaded_row == row)
    return;
  self->loaded_row = row;
  g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_LOADED_ROW]);
}

guint
ks_session_get_loading_row (KsSession *self)
{
  g_return_val_if_fail (KS_IS_SESSION (self), KS_NO_INDEX);

  return self->loading_row;
}

void
ks_session_set_loading_row (KsSession *self,
                            guint      row)
{
  g_return_if_fail (KS_IS_SESSION (self));

  if (self->loading_row == row)
    return;
  self->loading_row = row;
  g_object_notify_by_pspec (G_OBJECT (self), ks_session_properties[PROP_LOADING_ROW]);
}
