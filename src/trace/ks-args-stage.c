/* ks-args-stage.c: deferred args stored on a thread of their own
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Adding args to the store is a large part of a load's single-threaded
 * merge, and only its order matters: the store numbers a record by where
 * it starts and its values in the order they first appear. So a
 * producer (the JSON replay, ks-json-args-stage.c; the .kscope merge,
 * ks-sqlite-args.c) hands args over here and gives their slice an id of
 * 0, set once they are stored. A batch of them goes, with what they
 * point into, to a thread that stores it in order while the producer
 * fills the other batch. Anything else that touches the store first
 * stores everything handed over, through the builder's barrier: the
 * store is filled in one thread's order, with the records and ids that
 * one thread gives.
 */

#include "config.h"

#include "ks-args-stage.h"

static void
batch_init (KsArgsBatch *b)
{
  b->cap = 1024;
  b->entries = g_new (KsArgsDeferred, b->cap);
  b->held = g_ptr_array_sized_new (16);
}

static void
batch_clear (KsArgsBatch *b)
{
  g_free (b->entries);
  g_ptr_array_free (b->held, TRUE);
}

static void
store_batch (KsArgsStage *s,
             KsArgsBatch *b)
{
  for (guint i = 0; i < b->n; i++)
    {
      KsArgsDeferred *d = &b->entries[i];

      if (!ks_trace_builder_store_args (s->builder, d->text, d->len, d->local, d->map,
                                        d->record, d->record_len, &d->id))
        b->failed = TRUE;
    }
}

/* On the producer's thread: the ids into the slices, and what the batch
 * held released. */
static void
apply_batch (KsArgsStage *s,
             KsArgsBatch *b)
{
  guint32 track = KS_NO_INDEX, n_slices = 0;
  guint32 *args = NULL;

  /* Entries come in runs of a track's slices: its column is looked up
   * once a run, where a call a slice cost 34 instructions of the
   * loading thread's (7.0 M for a 100 MB trace's .kscope). */
  for (guint i = 0; i < b->n; i++)
    {
      const KsArgsDeferred *d = &b->entries[i];

      if (d->track == KS_NO_INDEX || d->id == 0)
        continue;
      if (d->track != track)
        {
          track = d->track;
          args = ks_trace_builder_get_slice_args_column (s->builder, track, &n_slices);
        }
      if (G_LIKELY (d->index < n_slices))
        args[d->index] = d->id;
      else
        ks_trace_builder_set_slice_args (s->builder, d->track, d->index, d->id);
    }
  if (b->failed)
    ks_trace_builder_fail_args (s->builder);
  b->failed = FALSE;
  b->n = 0;
  for (guint i = 0; i < b->held->len; i++)
    s->release (b->held->pdata[i], s->release_data);
  g_ptr_array_set_size (b->held, 0);
}

static gpointer
stage_thread (gpointer data)
{
  KsArgsStage *s = data;
  KsPhaseClock clock;

  g_mutex_lock (&s->lock);
  for (;;)
    {
      ks_phase_start (&clock);
      while (!s->quit && (!s->has_running || s->done))
        g_cond_wait (&s->cond, &s->lock);
      ks_phase_add (&clock, &s->t_idle);
      if (!s->has_running || s->done)
        break;
      g_mutex_unlock (&s->lock);
      ks_phase_start (&clock);
      store_batch (s, &s->running);
      ks_phase_add (&clock, &s->t_store);
      g_mutex_lock (&s->lock);
      s->done = TRUE;
      g_cond_broadcast (&s->cond);
    }
  g_mutex_unlock (&s->lock);
  return NULL;
}

/* Waits for the batch on the thread, sets its ids and releases what it
 * held. */
static void
finish_running (KsArgsStage *s)
{
  KsPhaseClock clock;

  if (!s->has_running)
    return;
  g_mutex_lock (&s->lock);
  if (!s->done)
    {
      ks_phase_start (&clock);
      while (!s->done)
        g_cond_wait (&s->cond, &s->lock);
      ks_phase_add (&clock, &s->t_wait);
    }
  s->has_running = FALSE;
  g_mutex_unlock (&s->lock);
  apply_batch (s, &s->running);
}

/* The builder's barrier: everything handed over is stored, in order,
 * before the store is touched here. */
static void
barrier (gpointer data,
         gpointer user_data)
{
  ks_args_stage_drain (data);
}

/* @release takes back what a batch held once its args are stored. */
KsArgsStage *
ks_args_stage_new (KsTraceBuilder     *builder,
                   const char         *thread_name,
                   KsArgsStageRelease  release,
                   gpointer            release_data)
{
  KsArgsStage *s = g_new0 (KsArgsStage, 1);

  s->builder = builder;
  s->release = release;
  s->release_data = release_data;
  g_mutex_init (&s->lock);
  g_cond_init (&s->cond);
  ks_trace_builder_set_args_barrier (builder, barrier, s);
  /* The thread and the first arrays are made now, before the load takes
   * its memory: GLib aborts where it cannot make a thread or grow an
   * array, and a load that runs out must say so instead (under `ulimit
   * -v` the lazily made thread was where it aborted). Without the
   * thread the args are stored on the producer's, at each hand-over. */
  batch_init (&s->current);
  batch_init (&s->running);
  s->thread = g_thread_try_new (thread_name, stage_thread, s, NULL);
  return s;
}

/* Stores everything handed over, here. */
void
ks_args_stage_drain (KsArgsStage *s)
{
  finish_running (s);
  s->n_here += s->current.n;
  store_batch (s, &s->current);
  apply_batch (s, &s->current);
}

void
ks_args_stage_free (KsArgsStage *s)
{
  if (s == NULL)
    return;
  ks_args_stage_drain (s);
  ks_trace_builder_set_args_barrier (s->builder, NULL, NULL);
  if (s->thread != NULL)
    {
      g_mutex_lock (&s->lock);
      s->quit = TRUE;
      g_cond_broadcast (&s->cond);
      g_mutex_unlock (&s->lock);
      g_thread_join (s->thread);
    }
  batch_clear (&s->current);
  batch_clear (&s->running);
  g_mutex_clear (&s->lock);
  g_cond_clear (&s->cond);
  g_free (s);
}

/* ks_args_stage_next() with the batch full. */
KsArgsDeferred *
ks_args_stage_grow (KsArgsStage *s)
{
  KsArgsBatch *b = &s->current;
  KsArgsDeferred *more = g_try_renew (KsArgsDeferred, b->entries, (gsize) b->cap * 2);

  /* out of memory: what was handed over is stored now, which empties
   * this batch (the load then fails where memory runs out) */
  if (more == NULL)
    ks_args_stage_drain (s);
  else
    {
      b->entries = more;
      b->cap *= 2;
    }
  return &b->entries[b->n++];
}

/* Room for @n more handed over without growing: a producer that adds
 * their slices later must not have the batch stored on the way, which
 * growing does when memory runs out. FALSE when there is no room to be
 * had. */
gboolean
ks_args_stage_reserve (KsArgsStage *s,
                       guint32      n)
{
  KsArgsBatch *b = &s->current;
  guint64 cap = b->cap;
  KsArgsDeferred *more;

  if ((guint64) b->n + n <= cap)
    return TRUE;
  while (cap < (guint64) b->n + n)
    cap *= 2;
  if (cap > G_MAXUINT32)
    return FALSE;
  more = g_try_renew (KsArgsDeferred, b->entries, cap);
  if (more == NULL)
    return FALSE;
  b->entries = more;
  b->cap = (guint) cap;
  return TRUE;
}

/* The last args handed over went to slice @index of @track. */
void
ks_args_stage_place (KsArgsStage *s,
                     guint32      track,
                     guint32      index)
{
  KsArgsDeferred *d;

  g_return_if_fail (s->current.n > 0);

  d = &s->current.entries[s->current.n - 1];
  d->track = track;
  d->index = index;
}

/* Whether the thread still stores the batch before. */
static gboolean
stage_busy (KsArgsStage *s)
{
  gboolean busy;

  if (!s->has_running)
    return FALSE;
  g_mutex_lock (&s->lock);
  busy = !s->done;
  g_mutex_unlock (&s->lock);
  return busy;
}

/* The args handed over so far go to be stored, with @held, which they
 * point into and which is released once they are. While the thread
 * still stores the batch before, this one grows to @grow_below args
 * rather than wait for it. */
void
ks_args_stage_submit (KsArgsStage *s,
                      gpointer     held,
                      guint        grow_below)
{
  KsArgsBatch spare;

  g_ptr_array_add (s->current.held, held);
  if (s->thread != NULL && s->current.n < grow_below && stage_busy (s))
    return;
  finish_running (s);
  if (s->current.n == 0 || s->thread == NULL)
    {
      ks_args_stage_drain (s);
      return;
    }
  s->n_thread += s->current.n;
  /* the stored batch's arrays, emptied, are the next ones to fill */
  spare = s->running;
  s->running = s->current;
  s->current = spare;
  g_mutex_lock (&s->lock);
  s->has_running = TRUE;
  s->done = FALSE;
  g_cond_broadcast (&s->cond);
  g_mutex_unlock (&s->lock);
}

/* The phases of KINESCOPE_LOAD_PHASES, under the names given; the
 * producer's waiting only where @waiting is not NULL. */
void
ks_args_stage_print_phases (KsArgsStage *s,
                            const char  *storing,
                            const char  *idle,
                            const char  *waiting)
{
  /* the thread waits for a batch now: its clocks are still */
  g_mutex_lock (&s->lock);
  ks_phase_print (storing, &s->t_store);
  ks_phase_print (idle, &s->t_idle);
  if (waiting != NULL)
    ks_phase_print (waiting, &s->t_wait);
  g_mutex_unlock (&s->lock);
}
