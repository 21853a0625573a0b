/* ks-overview.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "ks-session.h"

G_BEGIN_DECLS

/* The strip above the timeline: GPU busy time across the whole trace
 * (CPU activity when there is no GPU), with a bracket around the visible
 * span. Clicking or dragging moves the view there. */

#define KS_TYPE_OVERVIEW (ks_overview_get_type ())

G_DECLARE_FINAL_TYPE (KsOverview, ks_overview, KS, OVERVIEW, GtkWidget)

GtkWidget *ks_overview_new         (void);
void       ks_overview_set_session (KsOverview *self,
                                    KsSession  *session);

G_END_DECLS
