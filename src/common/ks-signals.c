/* ks-signals.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-signals"

#include "config.h"

#include <pthread.h>
#include <signal.h>

#include "ks-signals.h"

static const int handled[] = { SIGINT, SIGTERM, SIGHUP };

typedef struct
{
  guint        id;
  int          signum;
  GSourceFunc  func;
  gpointer     user_data;
} Handler;

static GMutex lock;
static GArray *handlers;          /* Handler, under lock */
static guint next_id = 1;
static KsSignalCleanup cleanup_func;
static gboolean initialised;

static void
fill_set (sigset_t *set)
{
  sigemptyset (set);
  for (guint i = 0; i < G_N_ELEMENTS (handled); i++)
    sigaddset (set, handled[i]);
}

/* On the main context: the handler, unless it was removed meanwhile. */
static gboolean
dispatch_cb (gpointer data)
{
  guint id = GPOINTER_TO_UINT (data);
  GSourceFunc func = NULL;
  gpointer user_data = NULL;

  g_mutex_lock (&lock);
  for (guint i = 0; i < handlers->len; i++)
    if (g_array_index (handlers, Handler, i).id == id)
      {
        func = g_array_index (handlers, Handler, i).func;
        user_data = g_array_index (handlers, Handler, i).user_data;
      }
  g_mutex_unlock (&lock);
  if (func != NULL)
    func (user_data);
  return G_SOURCE_REMOVE;
}

static void
default_action (int signum)
{
  sigset_t set;

  if (cleanup_func != NULL)
    cleanup_func ();
  /* Unblocked on this thread alone, with the default action: raise()
   * then ends the process as the signal would have. */
  signal (signum, SIG_DFL);
  sigemptyset (&set);
  sigaddset (&set, signum);
  pthread_sigmask (SIG_UNBLOCK, &set, NULL);
  raise (signum);
}

static gpointer
signal_thread (gpointer data)
{
  sigset_t set;

  fill_set (&set);
  for (;;)
    {
      int signum = 0;
      guint id = 0;

      if (sigwait (&set, &signum) != 0)
        continue;
      g_mutex_lock (&lock);
      for (guint i = 0; i < handlers->len && id == 0; i++)
        if (g_array_index (handlers, Handler, i).signum == signum)
          id = g_array_index (handlers, Handler, i).id;
      g_mutex_unlock (&lock);
      if (id == 0)
        default_action (signum);
      else
        g_idle_add_full (G_PRIORITY_HIGH, dispatch_cb, GUINT_TO_POINTER (id), NULL);
    }
  return NULL;
}

/* In the child of every fork(), before its exec: GLib's g_spawn and
 * GSubprocess reset these signals' handlers but not the mask. */
static void
atfork_child (void)
{
  ks_signals_child_setup (NULL);
}

void
ks_signals_init (void)
{
  sigset_t set;

  g_return_if_fail (!initialised);

  initialised = TRUE;
  handlers = g_array_new (FALSE, FALSE, sizeof (Handler));
  fill_set (&set);
  pthread_sigmask (SIG_BLOCK, &set, NULL);
  pthread_atfork (NULL, NULL, atfork_child);
  g_thread_unref (g_thread_new ("ks-signals", signal_thread, NULL));
}

guint
ks_signals_add (int          signum,
                GSourceFunc  func,
                gpointer     user_data)
{
  Handler h = { 0, signum, func, user_data };

  g_return_val_if_fail (initialised, 0);
  g_return_val_if_fail (func != NULL, 0);

  g_mutex_lock (&lock);
  h.id = next_id++;
  g_array_append_val (handlers, h);
  g_mutex_unlock (&lock);
  return h.id;
}

void
ks_signals_remove (guint id)
{
  g_return_if_fail (initialised);

  g_mutex_lock (&lock);
  for (guint i = 0; i < handlers->len; i++)
    if (g_array_index (handlers, Handler, i).id == id)
      {
        g_array_remove_index (handlers, i);
        break;
      }
  g_mutex_unlock (&lock);
}

void
ks_signals_set_cleanup (KsSignalCleanup cleanup)
{
  cleanup_func = cleanup;
}

void
ks_signals_child_setup (gpointer user_data)
{
  sigset_t set;

  /* async-signal-safe: between fork and exec */
  fill_set (&set);
  pthread_sigmask (SIG_UNBLOCK, &set, NULL);
}
