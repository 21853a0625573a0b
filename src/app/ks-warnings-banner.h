/* ks-warnings-banner.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "ks-session.h"

G_BEGIN_DECLS

/* The banner at the top of a window: its session's trace's load
 * warnings and what the analysis had to leave out, the first in full
 * width, a count of the others, all of them in the tooltip. Closed, it
 * stays closed until the session's next trace. It follows "session"
 * (may be NULL: nothing shown). */

#define KS_TYPE_WARNINGS_BANNER (ks_warnings_banner_get_type ())

G_DECLARE_FINAL_TYPE (KsWarningsBanner, ks_warnings_banner, KS, WARNINGS_BANNER, GtkWidget)

GtkWidget *ks_warnings_banner_new         (void);
KsSession *ks_warnings_banner_get_session (KsWarningsBanner *self);
void       ks_warnings_banner_set_session (KsWarningsBanner *self,
                                           KsSession        *session);

G_END_DECLS
