/* ks-record-writer.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "ks-wire.h"

G_BEGIN_DECLS

/* Writes a recording straight into a .kscope database (TRACE_FORMAT.md):
 * Nsight-compatible tables plus KS_*, defined by ks-kscope-schema.h as
 * for ks_kscope_write(), with CUPTI's enum values turned into Nsight's. Rows go into one open transaction
 * that is committed at least every 250 ms, so a recorder or a program that
 * is killed leaves a database holding everything up to the last commit,
 * with KS_META complete = 0 (written first, set to 1 by finish). Tables
 * are created when their first row arrives. Times are given as absolute
 * CLOCK_MONOTONIC ns and stored relative to the session start.
 *
 * Not thread-safe: one thread writes. At the first error (a full disk)
 * writing stops: the open transaction is rolled back, so the file holds
 * what the last commit did, every call after it is a no-op,
 * ks_record_writer_get_error() says what happened and finish() marks the
 * file as stopped there. */

typedef struct _KsRecordWriter KsRecordWriter;

/* KS_META keys of a recording, besides ks-kscope-schema.h's.
 * end_reason: why the recording ended (kebab-case):
 *   command-exited   the command exited by itself (complete = 1)
 *   command-killed   the command was killed by a signal (complete = 0)
 *   interrupted      the recorder was stopped: Ctrl+C, SIGTERM, SIGHUP,
 *                    the Stop button (complete = 0)
 *   duration         --duration ran out (complete = 1)
 *   spawn-failed     the command could not be started (the file is removed)
 *   disk-full        writing stopped: no space left or the file size limit
 *                    (complete = 0)
 *   write-failed     writing stopped for another reason (complete = 0)
 * With disk-full and write-failed, written_until_ns says up to when (from
 * the recording's start) the file holds events, unwritten_records how
 * many events arrived after that, and write_error the error. */
#define KS_RECORD_META_END_REASON    "end_reason"
#define KS_RECORD_META_WRITTEN_UNTIL "written_until_ns"
#define KS_RECORD_META_UNWRITTEN     "unwritten_records"
#define KS_RECORD_META_WRITE_ERROR   "write_error"

typedef struct
{
  guint64 kernels;
  guint64 memcpys;
  guint64 memsets;
  guint64 api_calls;
  guint64 syncs;
  guint64 memory_events;
  guint64 nvtx_ranges;
  guint64 nvtx_marks;
  guint64 osrt_calls;
  guint64 counter_samples;
  guint64 python_samples;
  /* Python samples not written: a repeat (no frames) on a thread whose
   * previous stack the recorder never had, or a stack past the limit */
  guint64 python_unknown_repeats;
  guint64 python_stacks_dropped;
  guint64 rows;
} KsRecordCounts;

/* The Python samples that were received but not written. */
static inline guint64
ks_record_counts_python_dropped (const KsRecordCounts *counts)
{
  return counts->python_unknown_repeats + counts->python_stacks_dropped;
}

KsRecordWriter *ks_record_writer_new            (const char          *path,
                                                 guint64              start_mono_ns,
                                                 gint64               start_utc_ns,
                                                 GError             **error);
void            ks_record_writer_free           (KsRecordWriter      *self);
const GError   *ks_record_writer_get_error      (KsRecordWriter      *self);
const KsRecordCounts *ks_record_writer_get_counts (KsRecordWriter    *self);

guint32         ks_record_writer_intern         (KsRecordWriter      *self,
                                                 const char          *text);
gboolean        ks_record_writer_commit_if_due  (KsRecordWriter      *self);
gboolean        ks_record_writer_commit         (KsRecordWriter      *self);
/* CLOCK_MONOTONIC ns of the last commit */
guint64         ks_record_writer_get_written_until (KsRecordWriter   *self);
/* Event rows that were not written because writing had stopped. */
guint64         ks_record_writer_get_unwritten  (KsRecordWriter      *self);
/* "disk-full" or "write-failed" once writing stopped, else NULL */
const char     *ks_record_writer_get_end_reason (KsRecordWriter      *self);

void            ks_record_writer_set_meta       (KsRecordWriter      *self,
                                                 const char          *name,
                                                 const char          *value);
void            ks_record_writer_add_capture_meta (KsRecordWriter    *self,
                                                 const char          *name,
                                                 const char          *value);
void            ks_record_writer_add_process    (KsRecordWriter      *self,
                                                 gint64               pid,
                                                 const char          *name);
/* The process's rank in a distributed job (KS_RANKS); @host may be "". */
void            ks_record_writer_add_rank       (KsRecordWriter      *self,
                                                 gint64               pid,
                                                 gint32               rank,
                                                 gint32               local_rank,
                                                 gint32               world_size,
                                                 gint32               local_world_size,
                                                 const char          *host);
/* A process that called exec() says hello again under its new name. */
void            ks_record_writer_rename_process (KsRecordWriter      *self,
                                                 gint64               pid,
                                                 const char          *name);
void            ks_record_writer_add_thread     (KsRecordWriter      *self,
                                                 gint64               pid,
                                                 gint64               tid,
                                                 const char          *name,
                                                 const char          *role);
void            ks_record_writer_add_kernel     (KsRecordWriter      *self,
                                                 gint64               pid,
                                                 const KsWireKernel  *k,
                                                 guint32              demangled_id,
                                                 guint32              short_id,
                                                 guint32              mangled_id);
void            ks_record_writer_add_memcpy     (KsRecordWriter      *self,
                                                 gint64               pid,
                                                 const KsWireMemcpy  *m);
void            ks_record_writer_add_memset     (KsRecordWriter      *self,
                                                 gint64               pid,
                                                 const KsWireMemset  *m);
void            ks_record_writer_add_api        (KsRecordWriter      *self,
                                                 gint64               pid,
                                                 const KsWireApi     *a,
                                                 guint32              name_id);
void            ks_record_writer_add_sync       (KsRecordWriter      *self,
                                                 gint64               pid,
                                                 guint32              device_id,
                                                 const KsWireSync    *s);
void            ks_record_writer_add_memory     (KsRecordWriter      *self,
                                                 gint64               pid,
                                                 gint64               tid,
                                                 guint64              timestamp,
                                                 gint                 device_id,
                                                 guint64              address,
                                                 gint64               bytes,
                                                 gint64               total_allocated);
/* Sampled Python stacks (ks-record-writer-samples.c). A stack is kept
 * once for the whole recording, whatever thread or process sent it, and
 * its SAMPLING_CALLCHAINS chain is written with its first sample. The
 * writer keeps at most KS_RECORD_MAX_STACK_NODES distinct frames (a frame
 * counts once under the same callers; about 30 bytes each); a stack that
 * would need more is KS_RECORD_STACK_DROPPED, and its samples are counted
 * (python_stacks_dropped), not written. */
typedef guint32 KsRecordStack;

#define KS_RECORD_STACK_NONE     0u
#define KS_RECORD_STACK_DROPPED  G_MAXUINT32
#define KS_RECORD_MAX_STACK_NODES 1000000u

/* The stack whose frames, innermost first, are StringIds ids of each
 * frame's function and file, and its line. */
KsRecordStack   ks_record_writer_intern_stack   (KsRecordWriter      *self,
                                                 guint                n_frames,
                                                 const guint32       *symbols,
                                                 const guint32       *modules,
                                                 const guint32       *lines);
/* A sample of @stack, taken while its thread waited (@waiting 1), ran
 * (0), or either (-1: not known); KS_RECORD_STACK_NONE (a repeat of a stack never
 * received) and KS_RECORD_STACK_DROPPED are counted, not written. */
void            ks_record_writer_add_python_sample (KsRecordWriter   *self,
                                                 gint64               pid,
                                                 guint64              timestamp,
                                                 gint64               tid,
                                                 KsRecordStack        stack,
                                                 gint                 waiting);
/* Lowers the limit on distinct frames (tests reach it with a few). */
void            ks_record_writer_set_stack_limit (KsRecordWriter     *self,
                                                 guint                max_nodes);
guint           ks_record_writer_get_stack_limit (KsRecordWriter     *self);
/* One event of PyTorch's caching allocator, with its totals. */
void            ks_record_writer_add_allocator  (KsRecordWriter        *self,
                                                 gint64                 pid,
                                                 const KsWireAllocator *a);
void            ks_record_writer_add_stream     (KsRecordWriter      *self,
                                                 gint64               pid,
                                                 const KsWireStream  *s);
void            ks_record_writer_add_nvtx       (KsRecordWriter      *self,
                                                 gint64               pid,
                                                 guint32              event_type,
                                                 guint64              start,
                                                 guint64              end,
                                                 gint64               tid,
                                                 gint64               end_tid,
                                                 guint64              range_id,
                                                 guint32              category,
                                                 gboolean             has_color,
                                                 guint32              color,
                                                 const char          *text,
                                                 guint32              text_id,
                                                 guint32              domain_id,
                                                 guint                payload_type,
                                                 guint64              payload);
void            ks_record_writer_add_osrt       (KsRecordWriter      *self,
                                                 gint64               pid,
                                                 const KsWireOsrt    *o);
guint32         ks_record_writer_add_counter    (KsRecordWriter      *self,
                                                 const char          *name,
                                                 const char          *unit,
                                                 gint                 device_id,
                                                 const char          *description);
void            ks_record_writer_add_sample     (KsRecordWriter      *self,
                                                 guint32              counter_id,
                                                 guint64              timestamp,
                                                 double               value);
void            ks_record_writer_add_diagnostic (KsRecordWriter      *self,
                                                 guint64              timestamp,
                                                 const char          *severity,
                                                 const char          *source,
                                                 const char          *text);

typedef struct
{
  gint     id;
  char    *name;
  char    *uuid;
  char    *bus_location;
  guint64  total_memory;
  guint64  memory_bandwidth;
  guint    sm_count;
  guint    compute_major;
  guint    compute_minor;
  guint    max_threads_per_block;
  guint    max_warps_per_sm;
  guint    max_shmem_per_sm;
  guint    max_registers_per_sm;
  guint    max_shmem_per_block;
  guint    max_registers_per_block;
  guint    threads_per_warp;
  guint64  clock_rate_hz;
  guint    l2_cache_size;
} KsRecordGpu;

void            ks_record_writer_add_gpu        (KsRecordWriter      *self,
                                                 const KsRecordGpu   *gpu);

/* Writes ANALYSIS_DETAILS, builds the indexes, sets complete and commits.
 * The database stays valid whatever @complete says. When writing stopped,
 * writes complete = 0, the end reason and where it stopped instead, and
 * returns the error. */
gboolean        ks_record_writer_finish         (KsRecordWriter      *self,
                                                 guint64              end_mono_ns,
                                                 gboolean             complete,
                                                 GError             **error);

G_END_DECLS
