/* test-early-cores.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The early loads keep off the main thread's core while GTK starts
 * (ks-early-cores.c): a thread that enters, and the threads it starts,
 * run on every allowed core but one; once released every one of them
 * has all of them again, a thread that enters later is not held, and a
 * thread whose cores were chosen otherwise keeps them. Linux, two cores
 * or more. */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "config.h"

#include <glib.h>
#include <sched.h>
#include <unistd.h>

#include "ks-early-cores.h"

typedef struct
{
  gboolean     enter;        /* calls ks_early_cores_enter() first */
  gboolean     child;        /* then starts a thread of its own */
  GAsyncQueue *tids;         /* each thread's id once it is set up */
  GAsyncQueue *end;          /* one token a thread: it may end */
} Worker;

static gpointer
child_thread (gpointer data)
{
  Worker *w = data;

  g_async_queue_push (w->tids, GINT_TO_POINTER (gettid ()));
  g_async_queue_pop (w->end);
  return NULL;
}

static gpointer
worker_thread (gpointer data)
{
  Worker *w = data;
  GThread *child = NULL;

  if (w->enter)
    ks_early_cores_enter ();
  g_async_queue_push (w->tids, GINT_TO_POINTER (gettid ()));
  if (w->child)
    child = g_thread_new ("child", child_thread, w);
  g_async_queue_pop (w->end);
  if (child != NULL)
    g_thread_join (child);
  return NULL;
}

static void
get_cores (pid_t      tid,
           cpu_set_t *set)
{
  g_assert_cmpint (sched_getaffinity (tid, sizeof *set, set), ==, 0);
}

static void
test_hold_and_release (void)
{
  cpu_set_t allowed, set, other;
  Worker held = { TRUE, TRUE, g_async_queue_new (), g_async_queue_new () };
  Worker plain = { FALSE, FALSE, g_async_queue_new (), g_async_queue_new () };
  Worker late = { TRUE, FALSE, g_async_queue_new (), g_async_queue_new () };
  GThread *held_thread, *plain_thread, *late_thread;
  pid_t held_tid, child_tid, plain_tid, late_tid;
  int lone = -1;

  get_cores (0, &allowed);
  if (CPU_COUNT (&allowed) < 2)
    {
      g_test_skip ("needs two cores or more");
      return;
    }

  g_assert_false (ks_early_cores_held ());
  ks_early_cores_hold ();
  g_assert_true (ks_early_cores_held ());

  /* a worker that enters, and the thread it starts: every allowed core
   * but one */
  held_thread = g_thread_new ("held", worker_thread, &held);
  held_tid = GPOINTER_TO_INT (g_async_queue_pop (held.tids));
  child_tid = GPOINTER_TO_INT (g_async_queue_pop (held.tids));
  get_cores (held_tid, &set);
  g_assert_cmpint (CPU_COUNT (&set), ==, CPU_COUNT (&allowed) - 1);
  CPU_AND (&other, &set, &allowed);
  g_assert_true (CPU_EQUAL (&other, &set));
  get_cores (child_tid, &other);
  g_assert_true (CPU_EQUAL (&other, &set));

  /* one that does not is not held */
  plain_thread = g_thread_new ("plain", worker_thread, &plain);
  plain_tid = GPOINTER_TO_INT (g_async_queue_pop (plain.tids));
  get_cores (plain_tid, &other);
  g_assert_true (CPU_EQUAL (&other, &allowed));
  /* its cores chosen otherwise: the main thread's alone (the one core
   * the held ones lack) */
  for (int cpu = 0; cpu < CPU_SETSIZE && lone < 0; cpu++)
    if (CPU_ISSET (cpu, &allowed) && !CPU_ISSET (cpu, &set))
      lone = cpu;
  g_assert_cmpint (lone, >=, 0);
  CPU_ZERO (&other);
  CPU_SET (lone, &other);
  g_assert_cmpint (sched_setaffinity (plain_tid, sizeof other, &other), ==, 0);

  /* released: the held ones have every core again, the other keeps its
   * own */
  ks_early_cores_release ();
  g_assert_false (ks_early_cores_held ());
  get_cores (held_tid, &set);
  g_assert_true (CPU_EQUAL (&set, &allowed));
  get_cores (child_tid, &set);
  g_assert_true (CPU_EQUAL (&set, &allowed));
  get_cores (plain_tid, &set);
  g_assert_cmpint (CPU_COUNT (&set), ==, 1);
  g_assert_true (CPU_ISSET (lone, &set));

  /* a worker that enters once released is not held */
  late_thread = g_thread_new ("late", worker_thread, &late);
  late_tid = GPOINTER_TO_INT (g_async_queue_pop (late.tids));
  get_cores (late_tid, &set);
  g_assert_true (CPU_EQUAL (&set, &allowed));

  g_async_queue_push (held.end, GINT_TO_POINTER (1));
  g_async_queue_push (held.end, GINT_TO_POINTER (1));
  g_async_queue_push (plain.end, GINT_TO_POINTER (1));
  g_async_queue_push (late.end, GINT_TO_POINTER (1));
  g_thread_join (held_thread);
  g_thread_join (plain_thread);
  g_thread_join (late_thread);
  g_async_queue_unref (held.tids);
  g_async_queue_unref (held.end);
  g_async_queue_unref (plain.tids);
  g_async_queue_unref (plain.end);
  g_async_queue_unref (late.tids);
  g_async_queue_unref (late.end);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/app/early-cores/hold-and-release", test_hold_and_release);
  return g_test_run ();
}
