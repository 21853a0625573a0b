/* ks-early-cores.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* While GTK and libadwaita start, the loads begun before them (the
 * command line's files) leave the main thread's core to it; once GTK has
 * started they have every core again. On Linux, with two cores or more
 * allowed; elsewhere these do nothing. */

/* On the main thread, before the first early load starts: the core it
 * runs on is kept for it until ks_early_cores_release(). */
void      ks_early_cores_hold      (void);
/* On an early load's worker, as it starts: it, and the threads it
 * starts, keep off the main thread's core while it is held. */
void      ks_early_cores_enter     (void);
/* On the main thread, once GTK has started: every thread of the process
 * may run on every core the process may use again. */
void      ks_early_cores_release   (void);
/* Whether the main thread's core is held now. */
gboolean  ks_early_cores_held      (void);

G_END_DECLS
