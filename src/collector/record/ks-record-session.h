/* ks-record-session.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "ks-record-writer.h"

G_BEGIN_DECLS

/* A recording: the socket traced processes connect to, the thread that
 * receives their messages and writes them (ks-record-writer), and the NVML
 * sampler. Spawning and ending the command is the caller's job (the CLI);
 * the session only hands out the environment the command needs. */

typedef enum
{
  KS_RECORD_TRACE_CUDA        = 1 << 0,
  KS_RECORD_TRACE_NVTX        = 1 << 1,
  KS_RECORD_TRACE_OSRT        = 1 << 2,
  KS_RECORD_TRACE_GPU_METRICS = 1 << 3,
} KsRecordTrace;

typedef struct
{
  KsRecordTrace trace;
  char         *capture_range;       /* "none", "cudaProfilerApi", "nvtx:NAME[@DOMAIN]" */
  double        delay_s;
  guint         gpu_metrics_hz;
  guint64       osrt_threshold_ns;
  gboolean      cuda_memory;
  gboolean      overwrite;           /* replace an existing output file */
  /* The Python side (KINESCOPE_PYTHON): PyTorch's NVTX emission
   * ("autograd-shapes-nvtx", "autograd-nvtx" or "none"; NULL: KS_PYTORCH_DEFAULT),
   * its caching-allocator events, and stack sampling at python_sampling_hz
   * (1–10000; 0 with python_sampling: 1000). */
  char         *pytorch;
  gboolean      pytorch_memory;
  /* torch.cuda.memory._record_memory_history(context="all") in the
   * program, its snapshots kept in the file (--cuda-memory-history) */
  gboolean      cuda_memory_history;
  gboolean      python_sampling;
  guint         python_sampling_hz;
} KsRecordOptions;

typedef struct
{
  double   elapsed_s;
  guint64  events;
  guint    processes;
  guint    cuda_processes;
  guint64  kernels;
  guint64  api_calls;
  guint64  nvtx_ranges;
  guint64  samples;         /* GPU counter samples */
  guint64  python_samples;  /* sampled Python stacks */
  guint64  python_reads;    /* a process's stacks read from outside */
  guint64  python_skipped;  /* ... not read: outside its capture range */
  guint64  dropped;
  /* once writing stopped: up to when the file holds events (from the
   * start), and how many arrived after */
  double   written_until_s;
  guint64  unwritten;
  guint    n_gpus;
  /* latest NVML sample per GPU, up to 8 */
  struct {
    char    name[96];
    gint    utilization;     /* -1 unknown */
    gint64  memory_used;     /* -1 unknown */
    gint64  memory_total;
  } gpus[8];
} KsRecordStats;

typedef struct _KsRecordSession KsRecordSession;

/* Fails at once, with G_IO_ERROR_BUSY, when another recording writes
 * @output_path, and with G_IO_ERROR_EXISTS when it exists and
 * options->overwrite is not set; the file is this session's until it is
 * freed. */
KsRecordSession *ks_record_session_new          (const char              *output_path,
                                                 const KsRecordOptions   *options,
                                                 GError                 **error);
void             ks_record_session_free         (KsRecordSession         *self);
/* Removes the output file (before free(): while it is still ours). */
void             ks_record_session_remove_output (KsRecordSession        *self);

/* Directory holding libkinescope-inject.so (and -osrt), or NULL. */
const char      *ks_record_session_get_inject_dir (KsRecordSession       *self);
char           **ks_record_session_build_environ (KsRecordSession        *self,
                                                 char                   **environ_);
/* Starts the receiving and sampling threads. */
void             ks_record_session_start        (KsRecordSession         *self);
/* The error that stopped writing (disk full...), or NULL. Recording goes
 * on without writing, so that the command runs to its end; finish() marks
 * the file. */
char            *ks_record_session_dup_write_error (KsRecordSession      *self);
char            *ks_record_trace_to_string      (KsRecordTrace            trace);
/* Whether @value is a --pytorch mode. */
gboolean         ks_record_pytorch_mode_is_valid (const char             *value);
/* KINESCOPE_PYTHON for @options, or NULL when the Python side has nothing
 * to do. */
char            *ks_record_options_to_python    (const KsRecordOptions   *options);
void             ks_record_session_set_command  (KsRecordSession         *self,
                                                 GPid                     pid,
                                                 const char * const      *argv);
/* Lists the command's descendants from /proc (call every few hundred ms). */
void             ks_record_session_scan_processes (KsRecordSession     *self);
void             ks_record_session_get_stats    (KsRecordSession         *self,
                                                 KsRecordStats           *stats);
/* Whether a process reported that another CUPTI client holds CUPTI;
 * returns the message (transfer full) or NULL. */
char            *ks_record_session_dup_cupti_conflict (KsRecordSession   *self);
guint            ks_record_session_get_open_connections (KsRecordSession *self);

/* Stops receiving (after waiting up to @grace_ms for connected processes
 * to finish sending), writes the rest and closes the file. */
gboolean         ks_record_session_finish       (KsRecordSession         *self,
                                                 guint                    grace_ms,
                                                 gboolean                 complete,
                                                 const char              *end_reason,
                                                 GError                 **error);
const KsRecordCounts *ks_record_session_get_counts (KsRecordSession      *self);
guint            ks_record_session_get_n_processes (KsRecordSession      *self);
guint64          ks_record_session_get_dropped  (KsRecordSession         *self);

/* Parses wire messages as if they came from a process: used by the
 * receiving thread, and by tests that feed decoded CUPTI buffers. */
typedef struct _KsRecordConnection KsRecordConnection;

KsRecordConnection *ks_record_connection_new    (KsRecordSession         *self);
gboolean         ks_record_connection_feed      (KsRecordConnection      *conn,
                                                 const guint8            *data,
                                                 gsize                    len);
void             ks_record_connection_free      (KsRecordConnection      *conn);

G_END_DECLS
