/* ks-document-loader.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ks-analysis.h"
#include "ks-rank-summaries.h"
#include "ks-trace.h"

G_BEGIN_DECLS

#define KS_TYPE_DOCUMENT_LOADER (ks_document_loader_get_type ())

G_DECLARE_FINAL_TYPE (KsDocumentLoader, ks_document_loader, KS, DOCUMENT_LOADER, GObject)

/* What a load needs from the window and the settings, read on the main
 * thread before it starts. */
typedef struct
{
  /* Seconds between an nvidia-smi log's samples; 0: 1 s. */
  double            nvsmi_interval;
  /* The folder-memory-mb setting (see ks_rank_summaries_memory_bound()). */
  gint64            folder_memory_mb;
  /* For the summaries of a folder over that bound. */
  KsAnalysisOptions analysis;
  /* The memory snapshot of the file's run, put on its time axis; NULL:
   * none (borrowed: the loader keeps its own reference). */
  GFile            *snapshot;
} KsDocumentLoadOptions;

/* One file a window opens at a time, everything that touches the disk
 * in a worker: a folder is listed and its ranks sized there too. Its
 * properties ("file", "fraction", "message", "loading") follow the load
 * under way, on the main thread, for the window to bind. */
KsDocumentLoader *ks_document_loader_new         (void);
/* Loads @file (any trace, or a folder of a job's ranks), cancelling the
 * load before; @callback runs on the caller's main context. */
void              ks_document_loader_load_async  (KsDocumentLoader             *self,
                                                  GFile                        *file,
                                                  const KsDocumentLoadOptions  *options,
                                                  GAsyncReadyCallback           callback,
                                                  gpointer                      user_data);
/* The trace, or for a folder over the memory bound its ranks' summaries
 * (the other one NULL). FALSE with @error when the file cannot be read;
 * G_IO_ERROR_CANCELLED when cancelled or replaced by a newer load, which
 * is under way when "loading" is still TRUE. */
gboolean          ks_document_loader_load_finish (KsDocumentLoader             *self,
                                                  GAsyncResult                 *result,
                                                  KsTrace                     **trace,
                                                  KsRankSummaries             **summaries,
                                                  GError                      **error);
void              ks_document_loader_cancel      (KsDocumentLoader             *self);

/* The options of a file opened anew in a window that has no session yet:
 * the nvidia-smi log's samples 1 s apart, the folder bound and the
 * analysis options of @settings (NULL: the defaults), @snapshot. */
void              ks_document_load_options_init  (KsDocumentLoadOptions        *options,
                                                  GSettings                    *settings,
                                                  GFile                        *snapshot);

/* Starts loading @file with @options now, before any window asks for it
 * (the command line's files, at the application's start-up, while GTK
 * starts). The first ks_document_loader_load_async() of an equal file
 * with equal options, on any loader, adopts it: its progress, result and
 * cancellation become that loader's, and nothing is loaded twice. Main
 * thread only. */
void              ks_document_loader_start_early (GFile                        *file,
                                                  const KsDocumentLoadOptions  *options);
/* Cancels the early loads nobody adopted and lets them go (each is freed
 * once its worker has stopped); returns how many there were. */
guint             ks_document_loader_drop_early  (void);

/* What this process loaded through document loaders, for tests. */
typedef struct
{
  guint started;        /* workers started: loads asked for, early ones */
  guint early;          /* early loads started */
  guint adopted;        /* early loads a loader took over */
  guint dropped;        /* early loads cancelled unadopted */
  guint dropped_alive;  /* of those, not freed yet (worker running) */
} KsDocumentLoaderCounts;

void              ks_document_loader_get_counts  (KsDocumentLoaderCounts       *counts);

/* The file being loaded, else the one loaded last, or NULL. */
GFile            *ks_document_loader_get_file     (KsDocumentLoader            *self);
double            ks_document_loader_get_fraction (KsDocumentLoader            *self);
const char       *ks_document_loader_get_message  (KsDocumentLoader            *self);
gboolean          ks_document_loader_get_loading  (KsDocumentLoader            *self);

G_END_DECLS
