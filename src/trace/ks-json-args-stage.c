/* ks-json-args-stage.c: the replay's args stored on a thread of their own
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-json-reader"

/* Adding an event's args to the store was most of the replay of the
 * parallel reader (callgrind: 214 of 278 M instructions of the reading
 * thread's replay on two threads, about half with the args prepared on
 * the workers), and only its order matters: the store numbers a record
 * by where it starts and its values in the order they first appear.
 * So the replay of a chunk hands the args of its complete events here
 * (ks_json_args_stage_defer()) and gives the slice an id of 0, which is
 * set when the chunk's args are stored (ks_json_args_stage_place());
 * once the chunk is replayed its args go to a thread of their own,
 * which stores them in order while the next chunk is replayed. Anything
 * else that adds args to the store (a B/E pair, an async range, an
 * instant, the args of a chunk that need repairs) first stores what was
 * handed over, through the builder's barrier, so that the store is
 * filled in the same order as by one thread: the same records, the same
 * ids. A chunk's text and records are kept until its args are stored:
 * they point into them. */

#include "config.h"

#include "ks-json-reader-private.h"

typedef struct
{
  const char        *text;
  const guint8      *record;
  const KsArgsLocal *local;    /* NULL: encoded here in one step */
  guint32           *map;
  guint32            len;
  guint32            record_len;
  guint32            track;    /* KS_NO_INDEX: no slice took it */
  guint32            index;
  guint32            id;
} Deferred;

typedef struct
{
  Deferred       *entries;     /* n of cap: filled inline, where a
                                * GArray doubled the replay's cost of
                                * handing over (96 instructions an
                                * event against 48, callgrind) */
  guint           n;
  guint           cap;
  gpointer        owner;       /* freed once stored */
  GDestroyNotify  release;
  gboolean        failed;      /* memory ran out */
} Batch;

struct _ArgsStage
{
  KsTraceBuilder *builder;
  GThread        *thread;
  GMutex          lock;
  GCond           cond;
  Batch           current;     /* being filled by the replay */
  Batch           running;     /* on the thread, or stored (done) */
  gboolean        has_running;
  gboolean        done;
  gboolean        quit;
  guint64         n_thread;    /* args stored on the thread ... */
  guint64         n_here;      /* ... and at a barrier on the replay's */

  KsPhaseClock    t_store;     /* the thread's time storing ... */
  KsPhaseClock    t_idle;      /* ... and waiting for a chunk */
  KsPhaseClock    t_wait;      /* the replay's time waiting for it */
};

static void
store_batch (ArgsStage *s,
             Batch     *b)
{
  for (guint i = 0; i < b->n; i++)
    {
      Deferred *d = &b->entries[i];

      if (!ks_trace_builder_store_args (s->builder, d->text, d->len, d->local, d->map,
                                        d->record, d->record_len, &d->id))
        b->failed = TRUE;
    }
}

/* On the replay's thread: the ids into the slices. */
static void
apply_batch (ArgsStage *s,
             Batch     *b)
{
  for (guint i = 0; i < b->n; i++)
    {
      const Deferred *d = &b->entries[i];

      if (d->track != KS_NO_INDEX && d->id != 0)
        ks_trace_builder_set_slice_args (s->builder, d->track, d->index, d->id);
    }
  if (b->failed)
    ks_trace_builder_fail_args (s->builder);
  b->failed = FALSE;
  b->n = 0;
}

static gpointer
stage_thread (gpointer data)
{
  ArgsStage *s = data;
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

/* Waits for the batch on the thread, sets its ids and frees its chunk. */
static void
finish_running (ArgsStage *s)
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
  if (s->running.release != NULL)
    s->running.release (s->running.owner);
  s->running.owner = NULL;
  s->running.release = NULL;
}

/* The builder's barrier: everything handed over is stored, in order,
 * before the store is touched here. */
static void
barrier (gpointer data,
         gpointer user_data)
{
  ks_json_args_stage_drain (data);
}

ArgsStage *
ks_json_args_stage_new (KsTraceBuilder *builder)
{
  ArgsStage *s = g_new0 (ArgsStage, 1);

  s->builder = builder;
  g_mutex_init (&s->lock);
  g_cond_init (&s->cond);
  ks_trace_builder_set_args_barrier (builder, barrier, s);
  /* The thread and the first arrays are made now, before the load takes
   * its memory: GLib aborts where it cannot make a thread or grow an
   * array, and a load that runs out must say so instead (under `ulimit
   * -v` the lazily made thread was where it aborted). Without the
   * thread the args are stored on the replay's, as with fewer threads. */
  s->current.cap = s->running.cap = 1024;
  s->current.entries = g_new (Deferred, s->current.cap);
  s->running.entries = g_new (Deferred, s->running.cap);
  s->thread = g_thread_try_new ("ks-json-args", stage_thread, s, NULL);
  return s;
}

void
ks_json_args_stage_drain (ArgsStage *s)
{
  finish_running (s);
  s->n_here += s->current.n;
  store_batch (s, &s->current);
  apply_batch (s, &s->current);
}

void
ks_json_args_stage_free (ArgsStage *s)
{
  if (s == NULL)
    return;
  ks_json_args_stage_drain (s);
  ks_trace_builder_set_args_barrier (s->builder, NULL, NULL);
  g_debug ("args: stored %" G_GUINT64_FORMAT " on their own thread, %" G_GUINT64_FORMAT
           " on the reading thread at a barrier", s->n_thread, s->n_here);
  if (s->thread != NULL)
    {
      g_mutex_lock (&s->lock);
      s->quit = TRUE;
      g_cond_broadcast (&s->cond);
      g_mutex_unlock (&s->lock);
      g_thread_join (s->thread);
    }
  g_free (s->current.entries);
  g_free (s->running.entries);
  g_mutex_clear (&s->lock);
  g_cond_clear (&s->cond);
  g_free (s);
}

guint32
ks_json_args_stage_defer (ArgsStage         *s,
                          const char        *text,
                          gsize              len,
                          const KsArgsLocal *local,
                          guint32           *map,
                          const guint8      *record,
                          gsize              record_len)
{
  Batch *b = &s->current;
  Deferred *d;

  /* a chunk's text and records are far below 4 GiB each */
  g_assert (len <= G_MAXUINT32 && record_len <= G_MAXUINT32);
  if (G_UNLIKELY (b->n == b->cap))
    {
      Deferred *more = g_try_renew (Deferred, b->entries, b->cap * 2);

      /* out of memory: what was handed over is stored now, which
       * empties this batch (the load then fails where memory runs out) */
      if (more == NULL)
        ks_json_args_stage_drain (s);
      else
        {
          b->entries = more;
          b->cap *= 2;
        }
    }
  d = &b->entries[b->n++];
  d->text = text;
  d->record = record;
  d->local = record != NULL ? local : NULL;
  d->map = map;
  d->len = (guint32) len;
  d->record_len = (guint32) record_len;
  d->track = KS_NO_INDEX;
  d->index = 0;
  d->id = 0;
  return 0;
}

void
ks_json_args_stage_place (ArgsStage *s,
                          guint32    track,
                          guint32    index)
{
  Deferred *d;

  g_return_if_fail (s->current.n > 0);

  d = &s->current.entries[s->current.n - 1];
  d->track = track;
  d->index = index;
}

/* Room for @n more handed over without growing: a replay that adds
 * their slices later (ks_json_args_stage_defer_at()) must not have the
 * batch stored on the way, which growing does when memory runs out.
 * FALSE when there is no room to be had. */
gboolean
ks_json_args_stage_reserve (ArgsStage *s,
                            guint32    n)
{
  Batch *b = &s->current;
  guint64 cap = b->cap;
  Deferred *more;

  if ((guint64) b->n + n <= cap)
    return TRUE;
  while (cap < (guint64) b->n + n)
    cap *= 2;
  if (cap > G_MAXUINT32)
    return FALSE;
  more = g_try_renew (Deferred, b->entries, cap);
  if (more == NULL)
    return FALSE;
  b->entries = more;
  b->cap = (guint) cap;
  return TRUE;
}

/* ks_json_args_stage_defer() and _place() in one, for a slice that is
 * added later, where it will be: a replay that made room for them first
 * (ks_json_args_stage_reserve()) hands over a chunk's worth in turn. */
void
ks_json_args_stage_defer_at (ArgsStage         *s,
                             const char        *text,
                             guint32            len,
                             const KsArgsLocal *local,
                             guint32           *map,
                             const guint8      *record,
                             guint32            record_len,
                             guint32            track,
                             guint32            index)
{
  Batch *b = &s->current;
  Deferred *d;

  g_assert (b->n < b->cap);
  d = &b->entries[b->n++];
  d->text = text;
  d->record = record;
  d->local = record != NULL ? local : NULL;
  d->map = map;
  d->len = len;
  d->record_len = record_len;
  d->track = track;
  d->index = index;
  d->id = 0;
}

/* The slices of @track from @index on were not added after all (the
 * builder failed): their args go nowhere. */
void
ks_json_args_stage_unplace (ArgsStage *s,
                            guint32    track,
                            guint32    index)
{
  for (guint i = 0; i < s->current.n; i++)
    {
      Deferred *d = &s->current.entries[i];

      if (d->track == track && d->index >= index)
        d->track = KS_NO_INDEX;
    }
}

void
ks_json_args_stage_submit (ArgsStage      *s,
                           gpointer        owner,
                           GDestroyNotify  release)
{
  Batch spare;

  finish_running (s);
  if (s->current.n == 0)
    {
      release (owner);
      return;
    }
  if (s->thread == NULL)
    {
      ks_json_args_stage_drain (s);
      release (owner);
      return;
    }
  s->n_thread += s->current.n;
  /* the stored batch's array, emptied, is the next one to fill */
  spare = s->running;
  s->running = s->current;
  s->running.owner = owner;
  s->running.release = release;
  s->current = spare;
  g_mutex_lock (&s->lock);
  s->has_running = TRUE;
  s->done = FALSE;
  g_cond_broadcast (&s->cond);
  g_mutex_unlock (&s->lock);
}

void
ks_json_args_stage_print_phases (ArgsStage    *s,
                                 KsPhaseClock *read_wait)
{
  /* the thread waits for a chunk now: its clocks are still */
  g_mutex_lock (&s->lock);
  ks_phase_print ("args: storing", &s->t_store);
  ks_phase_print ("args: waiting for the replay", &s->t_idle);
  g_mutex_unlock (&s->lock);
  read_wait->wall_ns += s->t_wait.wall_ns;
  read_wait->cpu_ns += s->t_wait.cpu_ns;
}
