/* ks-sqlite-args.c: the slices' arguments stored on a thread of their own
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Adding a slice's arguments to the store was the largest part of the
 * loading thread's merge of the slice tables, even with the strings
 * numbered in each block's dictionary on the reading threads; and only
 * the order of the additions matters: a record's id is where it starts,
 * a string's number the order it was first seen. So while the slice
 * tables are merged, row_args() hands a row's arguments here
 * (_ks_sqlite_args_defer()) and its slice gets an id of 0, set once the
 * arguments are stored (_ks_sqlite_args_place()). Each block, once its
 * rows are merged, goes with what was handed over so far to a thread
 * that stores it in order while the next rows are merged; the block's
 * text, dictionary and map, which the handed-over rows point into, come
 * back for another block once stored. Anything else that touches the
 * store first stores everything handed over, through the builder's
 * barrier: the store is filled in one thread's order, with the records
 * and ids that one thread gives. (The JSON import does the same with its
 * chunks, ks-json-args-stage.c.)
 */

#define G_LOG_DOMAIN "ks-sqlite-reader"

#include "config.h"

#include <string.h>

#include "ks-load-phases.h"
#include "ks-sqlite-reader-private.h"

/* Past this many arguments handed over, the merge waits for the thread
 * to take them */
#define BATCH_ARGS 16384

typedef struct
{
  const char        *text;
  const guint8      *record;
  const KsArgsLocal *local;    /* NULL: added in one step */
  guint32           *map;
  guint32            len;
  guint32            record_len;
  guint32            track;    /* KS_NO_INDEX: no slice took it */
  guint32            index;
  guint32            id;
} Deferred;

typedef struct
{
  Deferred  *entries;
  guint      n;
  guint      cap;
  GPtrArray *parts;            /* KsSqliteArgsPart*: back to the spares once stored */
  gboolean   failed;           /* memory ran out */
} Batch;

struct _KsSqliteArgs
{
  KsTraceBuilder *builder;
  GThread        *thread;
  GMutex          lock;
  GCond           cond;
  Batch           current;     /* being filled by the merge */
  Batch           running;     /* on the thread, or stored (done) */
  gboolean        has_running;
  gboolean        done;
  gboolean        quit;
  GPtrArray      *spares;      /* KsSqliteArgsPart*, stored */
  guint64         n_thread;    /* arguments stored on the thread ... */
  guint64         n_here;      /* ... and on the loading thread, at a barrier */

  KsPhaseClock    t_store;     /* the thread's time storing ... */
  KsPhaseClock    t_idle;      /* ... and waiting for a block */
  KsPhaseClock    t_wait;      /* the loading thread's time waiting for it */
};

void
_ks_sqlite_args_part_free (KsSqliteArgsPart *part)
{
  if (part == NULL)
    return;
  g_free (part->text);
  ks_args_local_free (part->local);
  g_free (part->map);
  g_free (part);
}

static void
batch_init (Batch *b)
{
  b->cap = 1024;
  b->entries = g_new (Deferred, b->cap);
  b->parts = g_ptr_array_new ();
}

static void
batch_clear (Batch *b)
{
  g_free (b->entries);
  g_ptr_array_free (b->parts, TRUE);
}

static void
store_batch (KsSqliteArgs *a,
             Batch        *b)
{
  for (guint i = 0; i < b->n; i++)
    {
      Deferred *d = &b->entries[i];

      if (!ks_trace_builder_store_args (a->builder, d->text, d->len, d->local, d->map,
                                        d->record, d->record_len, &d->id))
        b->failed = TRUE;
    }
}

/* On the loading thread: the ids into the slices, and the parts back. */
static void
apply_batch (KsSqliteArgs *a,
             Batch        *b)
{
  for (guint i = 0; i < b->n; i++)
    {
      const Deferred *d = &b->entries[i];

      if (d->track != KS_NO_INDEX && d->id != 0)
        ks_trace_builder_set_slice_args (a->builder, d->track, d->index, d->id);
    }
  if (b->failed)
    ks_trace_builder_fail_args (a->builder);
  b->failed = FALSE;
  b->n = 0;
  for (guint i = 0; i < b->parts->len; i++)
    g_ptr_array_add (a->spares, b->parts->pdata[i]);
  g_ptr_array_set_size (b->parts, 0);
}

static gpointer
args_thread (gpointer data)
{
  KsSqliteArgs *a = data;
  KsPhaseClock clock;

  g_mutex_lock (&a->lock);
  for (;;)
    {
      ks_phase_start (&clock);
      while (!a->quit && (!a->has_running || a->done))
        g_cond_wait (&a->cond, &a->lock);
      ks_phase_add (&clock, &a->t_idle);
      if (!a->has_running || a->done)
        break;
      g_mutex_unlock (&a->lock);
      ks_phase_start (&clock);
      store_batch (a, &a->running);
      ks_phase_add (&clock, &a->t_store);
      g_mutex_lock (&a->lock);
      a->done = TRUE;
      g_cond_broadcast (&a->cond);
    }
  g_mutex_unlock (&a->lock);
  return NULL;
}

/* Waits for the batch on the thread and sets its ids. */
static void
finish_running (KsSqliteArgs *a)
{
  KsPhaseClock clock;

  if (!a->has_running)
    return;
  g_mutex_lock (&a->lock);
  if (!a->done)
    {
      ks_phase_start (&clock);
      while (!a->done)
        g_cond_wait (&a->cond, &a->lock);
      ks_phase_add (&clock, &a->t_wait);
    }
  a->has_running = FALSE;
  g_mutex_unlock (&a->lock);
  apply_batch (a, &a->running);
}

/* The builder's barrier: everything handed over is stored, in order,
 * before the store is touched here. */
static void
barrier (gpointer data,
         gpointer user_data)
{
  _ks_sqlite_args_drain (data);
}

KsSqliteArgs *
_ks_sqlite_args_new (KsTraceBuilder *builder)
{
  KsSqliteArgs *a = g_new0 (KsSqliteArgs, 1);

  a->builder = builder;
  g_mutex_init (&a->lock);
  g_cond_init (&a->cond);
  batch_init (&a->current);
  batch_init (&a->running);
  a->spares = g_ptr_array_new_with_free_func ((GDestroyNotify) _ks_sqlite_args_part_free);
  ks_trace_builder_set_args_barrier (builder, barrier, a);
  /* Without the thread the arguments are stored at each hand-over, on
   * the loading thread, as without this stage. */
  a->thread = g_thread_try_new ("ks-sqlite-args", args_thread, a, NULL);
  return a;
}

void
_ks_sqlite_args_drain (KsSqliteArgs *a)
{
  finish_running (a);
  a->n_here += a->current.n;
  store_batch (a, &a->current);
  apply_batch (a, &a->current);
}

void
_ks_sqlite_args_free (KsSqliteArgs *a)
{
  if (a == NULL)
    return;
  _ks_sqlite_args_drain (a);
  ks_trace_builder_set_args_barrier (a->builder, NULL, NULL);
  g_debug ("arguments: %" G_GUINT64_FORMAT " stored on their own thread, %" G_GUINT64_FORMAT
           " on the loading thread", a->n_thread, a->n_here);
  if (a->thread != NULL)
    {
      g_mutex_lock (&a->lock);
      a->quit = TRUE;
      g_cond_broadcast (&a->cond);
      g_mutex_unlock (&a->lock);
      g_thread_join (a->thread);
    }
  batch_clear (&a->current);
  batch_clear (&a->running);
  g_ptr_array_unref (a->spares);
  g_mutex_clear (&a->lock);
  g_cond_clear (&a->cond);
  g_free (a);
}

/* The next entry of the batch being filled. */
static inline Deferred *
next_entry (KsSqliteArgs *a)
{
  Batch *b = &a->current;

  if (G_UNLIKELY (b->n == b->cap))
    {
      Deferred *more = g_try_renew (Deferred, b->entries, (gsize) b->cap * 2);

      /* out of memory: what was handed over is stored now, which
       * empties this batch (the load then fails where memory runs out) */
      if (more == NULL)
        _ks_sqlite_args_drain (a);
      else
        {
          b->entries = more;
          b->cap *= 2;
        }
    }
  return &b->entries[b->n++];
}

void
_ks_sqlite_args_defer (KsSqliteArgs      *a,
                       const char        *text,
                       guint32            len,
                       const KsArgsLocal *local,
                       guint32           *map,
                       const guint8      *record,
                       guint32            record_len)
{
  Deferred *d = next_entry (a);

  d->text = text;
  d->record = record;
  d->local = local;
  d->map = map;
  d->len = len;
  d->record_len = record_len;
  d->track = KS_NO_INDEX;
  d->index = 0;
  d->id = 0;
}

void
_ks_sqlite_args_defer_run (KsSqliteArgs        *a,
                           const KsSqliteBatch *batch,
                           guint                col,
                           guint                from,
                           guint                n,
                           guint32              track,
                           guint32              first)
{
  for (guint i = from; i < from + n; i++)
    {
      const gint64 *v = batch->values + (gsize) i * batch->n_columns;
      const char *text;
      guint32 words[2];
      Deferred *d;

      if ((batch->nulls[i] >> col) & 1)
        continue;
      /* as row_args() reads an 'a' column */
      text = batch->text + v[col];
      memcpy (words, text - sizeof words, sizeof words);
      d = next_entry (a);
      d->text = text;
      d->record = (const guint8 *) text + words[0] + 1;
      d->local = batch->args_local;
      d->map = batch->args_map;
      d->len = words[0];
      d->record_len = words[1];
      d->track = track;
      d->index = track != KS_NO_INDEX ? first + (i - from) : 0;
      d->id = 0;
    }
}

void
_ks_sqlite_args_place (KsSqliteArgs *a,
                       guint32       track,
                       guint32       index)
{
  Deferred *d;

  g_return_if_fail (a->current.n > 0);

  d = &a->current.entries[a->current.n - 1];
  d->track = track;
  d->index = index;
}

void
_ks_sqlite_args_hand_over (KsSqliteArgs     *a,
                           KsSqliteArgsPart *part)
{
  Batch spare;

  g_ptr_array_add (a->current.parts, part);
  if (a->thread == NULL)
    {
      _ks_sqlite_args_drain (a);
      return;
    }
  /* While the thread still stores the batch before, this one grows by
   * a few blocks rather than wait for it. */
  if (a->has_running && a->current.n < BATCH_ARGS)
    {
      gboolean busy;

      g_mutex_lock (&a->lock);
      busy = !a->done;
      g_mutex_unlock (&a->lock);
      if (busy)
        return;
    }
  finish_running (a);
  a->n_thread += a->current.n;
  /* the stored batch's arrays, emptied, are the next ones to fill */
  spare = a->running;
  a->running = a->current;
  a->current = spare;
  g_mutex_lock (&a->lock);
  a->has_running = TRUE;
  a->done = FALSE;
  g_cond_broadcast (&a->cond);
  g_mutex_unlock (&a->lock);
}

KsSqliteArgsPart *
_ks_sqlite_args_take_spare (KsSqliteArgs *a)
{
  if (a->spares->len == 0)
    return NULL;
  return g_ptr_array_steal_index_fast (a->spares, a->spares->len - 1);
}

void
_ks_sqlite_args_print_phases (KsSqliteArgs *a)
{
  /* the thread waits for a block now: its clocks are still */
  g_mutex_lock (&a->lock);
  ks_phase_print ("args: storing, on their own thread", &a->t_store);
  ks_phase_print ("args: that thread waiting for a block", &a->t_idle);
  ks_phase_print ("args: the loading thread waiting for that thread", &a->t_wait);
  g_mutex_unlock (&a->lock);
}
