/* ks-json-reader.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-progress.h"
#include "ks-trace.h"

G_BEGIN_DECLS

/* Reads PyTorch profiler (Kineto) and Chrome trace-event JSON, plain or
 * gzip-compressed, streaming: the file is never held in memory whole.
 * @file may also be a folder written by tensorboard_trace_handler: each
 * trace file in it becomes one process group of a single trace. */
KsTrace  *ks_json_reader_load         (GFile          *file,
                                       KsProgress     *progress,
                                       GCancellable   *cancellable,
                                       GError        **error);

/* The same from a stream; @name is used in messages, @size (or -1) for
 * the progress fraction. */
KsTrace  *ks_json_reader_load_stream  (GInputStream   *stream,
                                       const char     *name,
                                       goffset         size,
                                       KsProgress     *progress,
                                       GCancellable   *cancellable,
                                       GError        **error);

/* Several trace files of one job (a file a rank), each a group of its
 * own, on the clock of the first; @source_name names them in messages.
 * A file that cannot be read is a warning as long as one can. */
KsTrace  *ks_json_reader_load_files   (GFile         **files,
                                       guint           n_files,
                                       const char     *source_name,
                                       KsProgress     *progress,
                                       GCancellable   *cancellable,
                                       GError        **error);

/* The trace files (*.json, *.json.gz) of @folder, by name (GFile*). */
GPtrArray *ks_json_list_trace_files   (GFile         *folder,
                                       GCancellable  *cancellable,
                                       GError       **error);

/* The JSON text a trace file holds: its size, or for gzip data the
 * inflated size its trailer gives (modulo 4 GiB: at least the
 * compressed size). */
guint64   ks_json_file_text_size      (GFile         *file);

/* The threads a load uses: KINESCOPE_THREADS, else one a core. */
guint     ks_json_reader_get_n_threads (void);

/* TRUE when @file is a folder holding at least one trace file. */
gboolean  ks_json_reader_is_trace_folder (GFile       *file);

G_END_DECLS
