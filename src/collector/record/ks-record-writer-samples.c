/* ks-record-writer-samples.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* What the Python side sends: sampled stacks, as Nsight stores its CPU
 * samples (COMPOSITE_EVENTS, one row per sample, and SAMPLING_CALLCHAINS,
 * one per frame), and PyTorch's caching-allocator events, which carry the
 * allocator's totals (KS_MEMORY_EVENTS with totalReserved). */

#define G_LOG_DOMAIN "ks-record-writer"

#include "config.h"

#include "ks-record-writer-private.h"

void
ks_record_writer_add_python_sample (KsRecordWriter      *self,
                                    gint64               pid,
                                    guint64              timestamp,
                                    gint64               tid,
                                    guint                n_frames,
                                    const guint32       *symbols,
                                    const guint32       *modules,
                                    const guint32       *lines)
{
  sqlite3_stmt *s = ks_record_writer_stmt (self, KS_KSCOPE_COMPOSITE_EVENTS);
  sqlite3_stmt *f;
  gint64 id;

  if (s == NULL)
    return;
  id = ++self->next_sample;
  sqlite3_bind_int64 (s, 1, id);
  sqlite3_bind_int64 (s, 2, ks_record_writer_rel (self, timestamp));
  sqlite3_bind_int64 (s, 3, ks_kscope_global_tid (pid, tid));
  ks_record_writer_step (self, s, TRUE);

  f = ks_record_writer_stmt (self, KS_KSCOPE_SAMPLING_CALLCHAINS);
  for (guint depth = 0; f != NULL && depth < n_frames; depth++)
    {
      sqlite3_bind_int64 (f, 1, id);
      sqlite3_bind_int64 (f, 2, symbols[depth]);
      sqlite3_bind_int64 (f, 3, modules[depth]);
      sqlite3_bind_int64 (f, 4, depth);
      sqlite3_bind_int64 (f, 5, lines[depth]);
      /* the sample is the event; its frames are part of it */
      ks_record_writer_step (self, f, FALSE);
    }
  self->counts.python_samples++;
}

void
ks_record_writer_add_allocator (KsRecordWriter        *self,
                                gint64                 pid,
                                const KsWireAllocator *a)
{
  sqlite3_stmt *s = ks_record_writer_stmt (self, KS_KSCOPE_KS_MEMORY_EVENTS);

  if (s == NULL)
    return;
  sqlite3_bind_int64 (s, 1, ks_record_writer_rel (self, a->timestamp));
  /* tid 0: the process (globalPid), the reader places it */
  sqlite3_bind_int64 (s, 2, ks_kscope_global_tid (pid, a->tid));
  sqlite3_bind_int64 (s, 3, a->device_id);
  sqlite3_bind_int64 (s, 4, (gint64) a->address);
  sqlite3_bind_int64 (s, 5, a->bytes);
  sqlite3_bind_int64 (s, 6, a->total_allocated);
  sqlite3_bind_int64 (s, 7, a->total_reserved);
  ks_record_writer_step (self, s, TRUE);
  self->counts.memory_events++;
}
