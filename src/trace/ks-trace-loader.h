/* ks-trace-loader.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-progress.h"
#include "ks-trace.h"

G_BEGIN_DECLS

/* Opening any supported trace: the format is recognised by content
 * (gzip magic, JSON sniffing, the SQLite header and tables, the header
 * line of an nvidia-smi log), never by the
 * file name alone. A folder of PyTorch profiler files
 * (tensorboard_trace_handler) opens as one trace. */

/* The format of @file, or KS_FORMAT_UNKNOWN with @error set naming the
 * file and why it is not a trace. */
KsFormat  ks_trace_detect_format  (GFile                *file,
                                   GError              **error);
/* The same from the first bytes of a file (at most the first 64 KiB are
 * looked at; gzip data is inflated first). SQLite data is reported as
 * KS_FORMAT_NSYS_SQLITE unless it carries the .kscope application id:
 * the tables are only checked by ks_trace_detect_format(). */
KsFormat  ks_trace_detect_format_from_data
                                  (const guint8         *data,
                                   gsize                 len);

/* What a file cannot say of itself. */
typedef struct
{
  /* Seconds between the samples of an nvidia-smi log without times
   * (-l's interval); 0 means 1 s. */
  double      nvsmi_interval;
  /* The --query-gpu columns of an nvidia-smi csv log without its header
   * line, comma-separated, or NULL. */
  const char *nvsmi_columns;
} KsTraceLoadOptions;

/* Loads @file synchronously, reporting to @progress (may be NULL). */
KsTrace  *ks_trace_load           (GFile                *file,
                                   KsProgress           *progress,
                                   GCancellable         *cancellable,
                                   GError              **error);
/* The same, with @options (may be NULL). */
KsTrace  *ks_trace_load_with_options
                                  (GFile                    *file,
                                   const KsTraceLoadOptions *options,
                                   KsProgress               *progress,
                                   GCancellable             *cancellable,
                                   GError                  **error);
/* Loads @file in a worker thread; @callback runs in the caller's main
 * context. */
/* Several JSON trace files (the ranks of one job) as one trace, a group
 * of rows each; one file is ks_trace_load(). A trace and a memory
 * snapshot of the same run (in either order) are the trace with the
 * snapshot's allocations on its time axis. */
KsTrace  *ks_trace_load_files     (GFile               **files,
                                   guint                 n_files,
                                   KsProgress           *progress,
                                   GCancellable         *cancellable,
                                   GError              **error);
/* Whether @files are a trace and a memory snapshot, in either order (the
 * snapshot's index in @snapshot): what ks_trace_load_files() puts on one
 * time axis. Reads the files' first bytes. */
gboolean  ks_trace_files_are_with_snapshot (GFile        **files,
                                            guint          n_files,
                                            guint         *snapshot);
void      ks_trace_load_async     (GFile                *file,
                                   KsProgress           *progress,
                                   GCancellable         *cancellable,
                                   GAsyncReadyCallback   callback,
                                   gpointer              user_data);
/* The same with @options (may be NULL), copied. */
void      ks_trace_load_with_options_async
                                  (GFile                    *file,
                                   const KsTraceLoadOptions *options,
                                   KsProgress               *progress,
                                   GCancellable             *cancellable,
                                   GAsyncReadyCallback       callback,
                                   gpointer                  user_data);
KsTrace  *ks_trace_load_finish    (GAsyncResult         *result,
                                   GError              **error);

G_END_DECLS
