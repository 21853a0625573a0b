/* ks-kscope-writer.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-kscope-schema.h"
#include "ks-progress.h"
#include "ks-trace.h"

G_BEGIN_DECLS

typedef enum
{
  KS_KSCOPE_WRITE_NONE    = 0,
  /* Replace @file when it exists; without it an existing file (even one
   * that appears while the trace is being written) is left alone and the
   * write fails with G_IO_ERROR_EXISTS. */
  KS_KSCOPE_WRITE_REPLACE = 1 << 0,
} KsKscopeWriteFlags;

/* Saves @trace as a .kscope database (see TRACE_FORMAT.md). The file is
 * written beside @file under a temporary name (.NAME.XXXXXX) and renamed
 * to @file when complete, so @file is either the old file or the whole
 * new one; on any failure or cancellation the temporary file is removed.
 * Until its last transaction the temporary file says complete=0 in
 * KS_META, so that one left by a killed process does not pass for a
 * whole trace. */
gboolean ks_kscope_write_full (KsTrace             *trace,
                               GFile               *file,
                               KsKscopeWriteFlags   flags,
                               KsProgress          *progress,
                               GCancellable        *cancellable,
                               GError             **error);

/* ks_kscope_write_full() with KS_KSCOPE_WRITE_REPLACE. */
gboolean ks_kscope_write      (KsTrace             *trace,
                               GFile               *file,
                               KsProgress          *progress,
                               GCancellable        *cancellable,
                               GError             **error);

/* For a command line program that called ks_signals_init (): SIGINT,
 * SIGTERM and SIGHUP without a handler remove the temporary file of a
 * save in progress before their default action ends the process (so its
 * exit status still tells the signal). Saves from several threads at
 * once are not tracked: a program that calls this saves from one thread. */
void     ks_kscope_write_remove_temp_on_signals (void);

G_END_DECLS
