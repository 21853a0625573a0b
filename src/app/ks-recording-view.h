/* ks-recording-view.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define KS_TYPE_RECORDING_VIEW (ks_recording_view_get_type ())

G_DECLARE_FINAL_TYPE (KsRecordingView, ks_recording_view, KS, RECORDING_VIEW, AdwWindow)

/* The live view of a recording: runs `kinescope-cli record --progress-fd 3`
 * as a child process (through `flatpak-spawn --host` inside Flatpak) and
 * shows elapsed time, GPU utilization and memory, events and processes
 * from its progress lines. Stop sends SIGINT; ::finished (path or NULL,
 * exit status, message) is emitted when the recorder has exited. */
KsRecordingView *ks_recording_view_new      (GtkWindow            *parent);
gboolean         ks_recording_view_start    (KsRecordingView      *self,
                                             const char * const   *arguments,
                                             const char           *directory,
                                             const char * const   *environment,
                                             GError              **error);
void             ks_recording_view_stop     (KsRecordingView      *self);
const char      *ks_recording_view_get_output (KsRecordingView    *self);
guint64          ks_recording_view_get_events (KsRecordingView    *self);

G_END_DECLS
