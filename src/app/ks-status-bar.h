/* ks-status-bar.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "ks-session.h"

G_BEGIN_DECLS

/* The line at the foot of a window: what its session's trace holds
 * (events, GPU events, threads, duration, memory events, load
 * warnings) and, at the end, the selected slice and the range; or
 * "message" in their place while one is set (a comparison under way).
 * It follows "session" (may be NULL: nothing to say). */

#define KS_TYPE_STATUS_BAR (ks_status_bar_get_type ())

G_DECLARE_FINAL_TYPE (KsStatusBar, ks_status_bar, KS, STATUS_BAR, GtkBox)

GtkWidget  *ks_status_bar_new         (void);
KsSession  *ks_status_bar_get_session (KsStatusBar *self);
void        ks_status_bar_set_session (KsStatusBar *self,
                                       KsSession   *session);
const char *ks_status_bar_get_message (KsStatusBar *self);
void        ks_status_bar_set_message (KsStatusBar *self,
                                       const char  *message);

G_END_DECLS
