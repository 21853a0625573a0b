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
 * tables are merged, row_args() hands a row's arguments to a
 * KsArgsStage (ks-args-stage.c; _ks_sqlite_args_defer() here) and its
 * slice gets an id of 0, set once the arguments are stored
 * (_ks_sqlite_args_place()). Each block, once its rows are merged, goes
 * with what was handed over so far to that stage's thread, which stores
 * it in order while the next rows are merged; the block's text,
 * dictionary and map, which the handed-over rows point into, come back
 * for another block once stored. Anything else that touches the store
 * first stores everything handed over, through the builder's barrier:
 * the store is filled in one thread's order, with the records and ids
 * that one thread gives. (The JSON import does the same with its
 * chunks, ks-json-args-stage.c.)
 */

#define G_LOG_DOMAIN "ks-sqlite-reader"

#include "config.h"

#include <string.h>

#include "ks-args-stage.h"
#include "ks-sqlite-reader-private.h"

/* Past this many arguments handed over, the merge waits for the thread
 * to take them */
#define BATCH_ARGS 16384

struct _KsSqliteArgs
{
  KsArgsStage *stage;
  GPtrArray   *spares;         /* KsSqliteArgsPart*, stored */
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

/* A block's part, its arguments stored, back to the spares. */
static void
release_part (gpointer part,
              gpointer user_data)
{
  KsSqliteArgs *a = user_data;

  g_ptr_array_add (a->spares, part);
}

KsSqliteArgs *
_ks_sqlite_args_new (KsTraceBuilder *builder)
{
  KsSqliteArgs *a = g_new0 (KsSqliteArgs, 1);

  a->spares = g_ptr_array_new_with_free_func ((GDestroyNotify) _ks_sqlite_args_part_free);
  a->stage = ks_args_stage_new (builder, "ks-sqlite-args", release_part, a);
  return a;
}

void
_ks_sqlite_args_drain (KsSqliteArgs *a)
{
  ks_args_stage_drain (a->stage);
}

void
_ks_sqlite_args_free (KsSqliteArgs *a)
{
  if (a == NULL)
    return;
  ks_args_stage_drain (a->stage);
  g_debug ("arguments: %" G_GUINT64_FORMAT " stored on their own thread, %" G_GUINT64_FORMAT
           " on the loading thread", a->stage->n_thread, a->stage->n_here);
  /* the parts it still holds go back to the spares */
  ks_args_stage_free (a->stage);
  g_ptr_array_unref (a->spares);
  g_free (a);
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
  ks_args_stage_defer (a->stage, text, len, local, map, record, record_len, KS_NO_INDEX, 0);
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
  const gint64 *v = batch->values + (gsize) from * batch->n_columns + col;
  const guint32 *nulls = batch->nulls + from;
  guint n_columns = batch->n_columns;
  KsArgsBatch *b = &a->stage->current;
  const char *base;
  const KsArgsLocal *local;
  guint32 *map;
  KsArgsDeferred *d;

  if (!ks_args_stage_reserve (a->stage, n))
    {
      /* no room to be had: one at a time, storing what was handed over
       * where memory runs out */
      for (guint i = 0; i < n; i++, v += n_columns)
        if (!((nulls[i] >> col) & 1))
          {
            const char *text = batch->text + *v;
            guint32 words[2];

            memcpy (words, text - sizeof words, sizeof words);
            ks_args_stage_defer (a->stage, text, words[0], batch->args_local, batch->args_map,
                                 (const guint8 *) text + words[0] + 1, words[1], track,
                                 track != KS_NO_INDEX ? first + i : 0);
          }
      return;
    }

  /* The batch's room taken once, its fields read once: filling the
   * entries one call at a time cost 63 instructions a row of the
   * loading thread's (13 M for a 100 MB trace's .kscope). */
  base = batch->text;
  local = batch->args_local;
  map = batch->args_map;
  d = b->entries + b->n;
  for (guint i = 0; i < n; i++, v += n_columns)
    {
      const char *text;
      guint32 words[2];

      if ((nulls[i] >> col) & 1)
        continue;
      /* as row_args() reads an 'a' column */
      text = base + *v;
      memcpy (words, text - sizeof words, sizeof words);
      d->text = text;
      d->record = (const guint8 *) text + words[0] + 1;
      d->local = local;
      d->map = map;
      d->len = words[0];
      d->record_len = words[1];
      d->track = track;
      d->index = track != KS_NO_INDEX ? first + i : 0;
      d->id = 0;
      d++;
    }
  b->n = (guint) (d - b->entries);
}

void
_ks_sqlite_args_place (KsSqliteArgs *a,
                       guint32       track,
                       guint32       index)
{
  ks_args_stage_place (a->stage, track, index);
}

void
_ks_sqlite_args_hand_over (KsSqliteArgs     *a,
                           KsSqliteArgsPart *part)
{
  /* while the thread still stores the batch before, this one grows by
   * a few blocks rather than wait for it */
  ks_args_stage_submit (a->stage, part, BATCH_ARGS);
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
  ks_args_stage_print_phases (a->stage, "args: storing, on their own thread",
                              "args: that thread waiting for a block",
                              "args: the loading thread waiting for that thread");
}
