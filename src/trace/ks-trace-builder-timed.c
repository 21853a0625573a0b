/* ks-trace-builder-timed.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-trace-builder"

/* Finishing the memory events, stack samples and instants: sorted by
 * time (unless they came in order) and made relative to the origin. On
 * the 1 GB trace that took 0.02 s, serial, after the tracks were
 * finished, though it needs nothing of them: a Kineto trace's memory
 * events come out of order and are sorted. It now runs on a thread of
 * its own while the tracks are finished; placing the events that named
 * no thread, which looks at the finished tracks, waits for both. */

#include "config.h"

#include "ks-load-phases.h"
#include "ks-trace-builder-private.h"

struct _KsBuilderTimed
{
  KsTraceBuilder *self;
  KsTrace        *trace;
  gint64          origin;
  GThread        *thread;
  KsPhaseClock    t_sort;     /* the thread's time */
};

gboolean
_ks_builder_array_is_sorted (GArray       *array,
                             GCompareFunc  compare)
{
  gsize size = g_array_get_element_size (array);

  for (guint i = 1; i < array->len; i++)
    if (compare (array->data + (gsize) (i - 1) * size, array->data + (gsize) i * size) > 0)
      return FALSE;
  return TRUE;
}

static int
compare_memory_events (gconstpointer a,
                       gconstpointer b)
{
  const KsMemoryEvent *ea = a;
  const KsMemoryEvent *eb = b;

  return (ea->ts > eb->ts) - (ea->ts < eb->ts);
}

static int
compare_instants (gconstpointer a,
                  gconstpointer b)
{
  const KsInstant *ea = a;
  const KsInstant *eb = b;

  return (ea->ts > eb->ts) - (ea->ts < eb->ts);
}

/* Memory events and instants: stable sort by time, unless they came in
 * order (as a .kscope and most profilers give them). Touches only these
 * arrays of @self and @trace, and the samples. */
static gpointer
timed_job (gpointer data)
{
  KsBuilderTimed *t = data;
  KsTraceBuilder *self = t->self;
  KsTrace *trace = t->trace;
  KsPhaseClock clock;

  ks_phase_start (&clock);
  if (!_ks_builder_array_is_sorted (self->memory_events, compare_memory_events))
    g_array_sort (self->memory_events, compare_memory_events);
  trace->n_memory_events = self->memory_events->len;
  trace->memory_events = (KsMemoryEvent *)(gpointer)g_array_free (g_steal_pointer (&self->memory_events), FALSE);
  for (guint32 i = 0; i < trace->n_memory_events; i++)
    trace->memory_events[i].ts -= t->origin;

  _ks_builder_take_samples (self, trace, t->origin);

  if (!_ks_builder_array_is_sorted (self->instants, compare_instants))
    g_array_sort (self->instants, compare_instants);
  trace->n_instants = self->instants->len;
  trace->instants = (KsInstant *)(gpointer)g_array_free (g_steal_pointer (&self->instants), FALSE);
  for (guint32 i = 0; i < trace->n_instants; i++)
    trace->instants[i].ts -= t->origin;
  ks_phase_add (&clock, &t->t_sort);
  return NULL;
}

KsBuilderTimed *
_ks_builder_timed_start (KsTraceBuilder *self,
                         KsTrace        *trace,
                         gint64          origin)
{
  KsBuilderTimed *t = g_new0 (KsBuilderTimed, 1);

  t->self = self;
  t->trace = trace;
  t->origin = origin;
  /* without a thread, here (GLib aborts where g_thread_new() fails) */
  t->thread = g_thread_try_new ("ks-finish-timed", timed_job, t, NULL);
  if (t->thread == NULL)
    timed_job (t);
  return t;
}

/* The thread of an allocator event that named none: of its process's
 * threads, the one whose deepest operator contains the event's time
 * (the operator that allocated), else the stand-in main thread. */
static void
place_memory_events (KsTrace *trace)
{
  g_autofree GPtrArray **by_process = g_new0 (GPtrArray *, MAX (trace->n_processes, 1));

  for (guint32 i = 0; i < trace->n_threads; i++)
    {
      guint32 p = trace->threads[i].process;

      if (p >= trace->n_processes || trace->threads[i].track == KS_NO_INDEX)
        continue;
      if (by_process[p] == NULL)
        by_process[p] = g_ptr_array_new ();
      g_ptr_array_add (by_process[p], &trace->tracks[trace->threads[i].track]);
    }

  for (guint32 e = 0; e < trace->n_memory_events; e++)
    {
      KsMemoryEvent *ev = &trace->memory_events[e];
      guint32 main, p;
      int best_depth = -1;

      /* KS_NO_INDEX (no thread) has the bit set too */
      if (ev->thread == KS_NO_INDEX || !(ev->thread & KS_BUILDER_UNPLACED))
        continue;
      main = ev->thread & ~KS_BUILDER_UNPLACED;
      ev->thread = main;
      if (main >= trace->n_threads)
        {
          ev->thread = KS_NO_INDEX;
          continue;
        }
      p = trace->threads[main].process;
      if (p >= trace->n_processes || by_process[p] == NULL)
        continue;
      for (guint k = 0; k < by_process[p]->len; k++)
        {
          const KsTrack *track = g_ptr_array_index (by_process[p], k);
          guint32 s = ks_track_operator_at (track, ev->ts);

          if (s != KS_NO_INDEX && track->depth[s] > best_depth)
            {
              best_depth = track->depth[s];
              ev->thread = track->thread;
            }
        }
    }

  for (guint32 p = 0; p < trace->n_processes; p++)
    g_clear_pointer (&by_process[p], g_ptr_array_unref);
}

void
_ks_builder_timed_finish (KsBuilderTimed *t)
{
  if (t->thread != NULL)
    g_thread_join (t->thread);
  ks_phase_print ("finish beside the tracks: memory, samples, instants", &t->t_sort);
  /* the tracks, threads and processes are the trace's by now */
  if (t->self->unplaced_memory > 0)
    place_memory_events (t->trace);
  g_free (t);
}
