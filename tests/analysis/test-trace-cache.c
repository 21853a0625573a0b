/* test-trace-cache.c: values kept with a trace, a lock per trace and key
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * While one trace's value is being built (here held inside its build
 * until the test lets it go), another trace's value, and the same
 * trace's value of another key, are made and returned at once: nothing
 * waits for the build in progress. Two threads asking for the value being
 * built get the one value, built once.
 */

#include "config.h"

#include "ks-analysis-private.h"
#include "ks-trace-builder.h"

static GMutex gate_mutex;
static GCond gate_cond;
static gboolean building;     /* the slow build has started */
static gboolean released;     /* the test lets it finish */
static guint n_slow_builds;

static KsTrace *
new_trace (void)
{
  KsTraceBuilder *b = ks_trace_builder_new (KS_FORMAT_KINETO_JSON);
  g_autoptr(GError) error = NULL;
  KsTrace *trace = ks_trace_builder_finish (b, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

static gpointer
build_slow (KsTrace *trace)
{
  g_mutex_lock (&gate_mutex);
  n_slow_builds++;
  building = TRUE;
  g_cond_broadcast (&gate_cond);
  while (!released)
    g_cond_wait (&gate_cond, &gate_mutex);
  g_mutex_unlock (&gate_mutex);
  return g_strdup ("slow");
}

static gpointer
build_quick (KsTrace *trace)
{
  return g_strdup ("quick");
}

static gpointer
get_slow_thread (gpointer data)
{
  return _ks_trace_get_cached (data, "test-slow", build_slow, g_free);
}

static void
test_per_trace_locks (void)
{
  g_autoptr(KsTrace) one = new_trace ();
  g_autoptr(KsTrace) other = new_trace ();
  GThread *first, *second;
  gpointer a, b;

  first = g_thread_new ("slow-1", get_slow_thread, one);
  g_mutex_lock (&gate_mutex);
  while (!building)
    g_cond_wait (&gate_cond, &gate_mutex);
  g_mutex_unlock (&gate_mutex);
  /* a second reader of the same value waits for the same build */
  second = g_thread_new ("slow-2", get_slow_thread, one);

  /* the build of "test-slow" on @one is in progress: these do not wait */
  g_assert_cmpstr (_ks_trace_get_cached (other, "test-slow", build_quick, g_free), ==, "quick");
  g_assert_cmpstr (_ks_trace_get_cached (one, "test-quick", build_quick, g_free), ==, "quick");

  g_mutex_lock (&gate_mutex);
  released = TRUE;
  g_cond_broadcast (&gate_cond);
  g_mutex_unlock (&gate_mutex);
  a = g_thread_join (first);
  b = g_thread_join (second);
  g_assert_cmpstr (a, ==, "slow");
  g_assert_true (a == b);
  g_assert_cmpuint (n_slow_builds, ==, 1);
  /* kept: asked again, the same value without a build */
  g_assert_true (_ks_trace_get_cached (one, "test-slow", build_quick, g_free) == a);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/trace-cache/per-trace-locks", test_per_trace_locks);

  return g_test_run ();
}
