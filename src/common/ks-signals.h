/* ks-signals.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* SIGINT, SIGTERM and SIGHUP, for a whole process. ks_signals_init(),
 * first in main() before any thread exists, blocks them, so that every
 * thread started later (a loader's pool, the folder's read-ahead, the
 * recorder's) inherits the mask; one thread of its own waits for them.
 * A signal with a handler (ks_signals_add()) runs that handler on the
 * main context; one without runs the cleanup (a save's temporary file)
 * and then its default action, so the exit status still tells the
 * signal. A signal ignored at start (nohup) stays ignored.
 *
 * A blocked mask is inherited across fork() and exec(): every forked
 * child gets the signals unblocked again (a pthread_atfork() handler),
 * so programs spawned through g_spawn, GSubprocess or GAppInfo (a
 * browser, the recorder) start as from a shell. posix_spawn() runs no
 * fork handlers: GLib takes that path only for G_SPAWN_LEAVE_DESCRIPTORS_OPEN
 * without a child setup, where ks_signals_child_setup() must be given. */
typedef void (*KsSignalCleanup) (void);

void  ks_signals_init        (void);
/* @func runs on the default main context, once per signal received. */
guint ks_signals_add         (int              signum,
                              GSourceFunc      func,
                              gpointer         user_data);
void  ks_signals_remove      (guint            id);
/* Run on the signal thread before a default action; may lock, not
 * allocate. */
void  ks_signals_set_cleanup (KsSignalCleanup  cleanup);
/* A GSpawnChildSetupFunc: a spawned program starts with the signals
 * unblocked, as a child of a shell would. */
void  ks_signals_child_setup (gpointer         user_data);

G_END_DECLS
