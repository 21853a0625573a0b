/* ks-args-stage.h: deferred args stored on a thread of their own
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-args.h"
#include "ks-load-phases.h"
#include "ks-trace-builder.h"

G_BEGIN_DECLS

/* One event's or row's args, handed over: stored on the thread, then its
 * id set into the slice that took it. */
typedef struct
{
  const char        *text;
  const guint8      *record;
  const KsArgsLocal *local;    /* NULL: encoded in one step */
  guint32           *map;
  guint32            len;
  guint32            record_len;
  guint32            track;    /* KS_NO_INDEX: no slice took it */
  guint32            index;
  guint32            id;
} KsArgsDeferred;

typedef struct
{
  KsArgsDeferred *entries;     /* n of cap: filled inline, where a
                                * GArray doubled the replay's cost of
                                * handing over (96 instructions an
                                * event against 48, callgrind) */
  guint           n;
  guint           cap;
  GPtrArray      *held;        /* what the entries point into, released once stored */
  gboolean        failed;      /* memory ran out */
} KsArgsBatch;

/* What a batch held (ks_args_stage_submit()) once its args are stored,
 * on the producer's thread. */
typedef void (*KsArgsStageRelease) (gpointer held,
                                    gpointer user_data);

typedef struct _KsArgsStage KsArgsStage;

struct _KsArgsStage
{
  KsTraceBuilder     *builder;
  GThread            *thread;
  GMutex              lock;
  GCond               cond;
  KsArgsBatch         current;     /* being filled by the producer */
  KsArgsBatch         running;     /* on the thread, or stored (done) */
  gboolean            has_running;
  gboolean            done;
  gboolean            quit;
  KsArgsStageRelease  release;
  gpointer            release_data;
  guint64             n_thread;    /* args stored on the thread ... */
  guint64             n_here;      /* ... and at a barrier on the producer's */

  KsPhaseClock        t_store;     /* the thread's time storing ... */
  KsPhaseClock        t_idle;      /* ... and waiting for a batch */
  KsPhaseClock        t_wait;      /* the producer's time waiting for it */
};

KsArgsStage    *ks_args_stage_new          (KsTraceBuilder     *builder,
                                            const char         *thread_name,
                                            KsArgsStageRelease  release,
                                            gpointer            release_data);
void            ks_args_stage_free         (KsArgsStage        *s);
void            ks_args_stage_drain        (KsArgsStage        *s);
KsArgsDeferred *ks_args_stage_grow         (KsArgsStage        *s);
gboolean        ks_args_stage_reserve      (KsArgsStage        *s,
                                            guint32             n);
void            ks_args_stage_place        (KsArgsStage        *s,
                                            guint32             track,
                                            guint32             index);
void            ks_args_stage_submit       (KsArgsStage        *s,
                                            gpointer            held,
                                            guint               grow_below);
void            ks_args_stage_print_phases (KsArgsStage        *s,
                                            const char         *storing,
                                            const char         *idle,
                                            const char         *waiting);

/* The next entry of the batch being filled, for the caller to fill in. */
static inline KsArgsDeferred *
ks_args_stage_next (KsArgsStage *s)
{
  KsArgsBatch *b = &s->current;

  if (G_UNLIKELY (b->n == b->cap))
    return ks_args_stage_grow (s);
  return &b->entries[b->n++];
}

/* Hands over args that slice @index of @track takes (KS_NO_INDEX: none,
 * or one placed later with ks_args_stage_place()). */
static inline void
ks_args_stage_defer (KsArgsStage       *s,
                     const char        *text,
                     guint32            len,
                     const KsArgsLocal *local,
                     guint32           *map,
                     const guint8      *record,
                     guint32            record_len,
                     guint32            track,
                     guint32            index)
{
  KsArgsDeferred *d = ks_args_stage_next (s);

  d->text = text;
  d->record = record;
  d->local = local;
  d->map = map;
  d->len = len;
  d->record_len = record_len;
  d->track = track;
  d->index = index;
  d->id = 0;
}

G_END_DECLS
