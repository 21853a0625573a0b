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
 * So the replay of a chunk hands the args of its complete events to a
 * KsArgsStage (ks-args-stage.c; ks_json_args_stage_defer() here) and
 * gives the slice an id of 0, which is set when the chunk's args are
 * stored (ks_args_stage_place()); once the chunk is replayed its args
 * go to a thread of their own (ks_args_stage_submit()), which stores
 * them in order while the next chunk is replayed. Anything else that
 * adds args to the store (a B/E pair, an async range, an instant, the
 * args of a chunk that need repairs) first stores what was handed over,
 * through the builder's barrier, so that the store is filled in the
 * same order as by one thread: the same records, the same ids. A
 * chunk's text and records are kept until its args are stored: they
 * point into them. */

#include "config.h"

#include "ks-json-parallel-private.h"

/* A batch holds the chunk its args point into, freed once they are
 * stored. */
static void
release_chunk (gpointer chunk,
               gpointer user_data)
{
  ks_json_par_chunk_free (chunk);
}

KsArgsStage *
ks_json_args_stage_new (KsTraceBuilder *builder)
{
  return ks_args_stage_new (builder, "ks-json-args", release_chunk, NULL);
}

void
ks_json_args_stage_free (KsArgsStage *s)
{
  if (s == NULL)
    return;
  ks_args_stage_drain (s);
  g_debug ("args: stored %" G_GUINT64_FORMAT " on their own thread, %" G_GUINT64_FORMAT
           " on the reading thread at a barrier", s->n_thread, s->n_here);
  ks_args_stage_free (s);
}

guint32
ks_json_args_stage_defer (KsArgsStage       *s,
                          const char        *text,
                          gsize              len,
                          const KsArgsLocal *local,
                          guint32           *map,
                          const guint8      *record,
                          gsize              record_len)
{
  /* a chunk's text and records are far below 4 GiB each */
  g_assert (len <= G_MAXUINT32 && record_len <= G_MAXUINT32);
  ks_args_stage_defer (s, text, (guint32) len, record != NULL ? local : NULL, map, record,
                       (guint32) record_len, KS_NO_INDEX, 0);
  return 0;
}

/* The slices of @track from @index on were not added after all (the
 * builder failed): their args go nowhere. */
void
ks_json_args_stage_unplace (KsArgsStage *s,
                            guint32      track,
                            guint32      index)
{
  for (guint i = 0; i < s->current.n; i++)
    {
      KsArgsDeferred *d = &s->current.entries[i];

      if (d->track == track && d->index >= index)
        d->track = KS_NO_INDEX;
    }
}

void
ks_json_args_stage_print_phases (KsArgsStage  *s,
                                 KsPhaseClock *read_wait)
{
  ks_args_stage_print_phases (s, "args: storing", "args: waiting for the replay", NULL);
  read_wait->wall_ns += s->t_wait.wall_ns;
  read_wait->cpu_ns += s->t_wait.cpu_ns;
}
