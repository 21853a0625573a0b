/* ks-recorder.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ks-record-session.h"

G_BEGIN_DECLS

#define KS_TYPE_RECORDER_STATE (ks_recorder_state_get_type ())
#define KS_TYPE_RECORDER (ks_recorder_get_type ())

G_DECLARE_FINAL_TYPE (KsRecorder, ks_recorder, KS, RECORDER, GObject)

typedef enum
{
  KS_RECORDER_STATE_IDLE,
  KS_RECORDER_STATE_RECORDING,
  KS_RECORDER_STATE_STOPPING,     /* asked to stop; the command is ending */
  KS_RECORDER_STATE_FINISHED,     /* the trace is written */
  KS_RECORDER_STATE_FAILED,       /* no trace, or one that could not be finished */
} KsRecorderState;

typedef enum
{
  KS_RECORDER_STOP_INTERRUPTED,
  KS_RECORDER_STOP_DURATION,
} KsRecorderStop;

GType            ks_recorder_state_get_type (void) G_GNUC_CONST;

/* A recording as a GObject, without GTK: its state, elapsed time, counts
 * and GPUs are properties, notified from the main context, and ::finished
 * (exit status, error or NULL) says when it has ended.
 *
 * It runs a recording itself (new_for_file(), then spawn()): the session
 * claims the output at once, the command gets its own environment, Stop
 * sends SIGINT, then SIGTERM and SIGKILL three seconds apart. Or it shows
 * one that `kinescope-cli record --progress-fd` runs elsewhere (new(),
 * then apply_progress() for each line; the window does this, since inside
 * Flatpak the recorder runs on the host). to_progress() writes those lines. */
KsRecorder      *ks_recorder_new            (void);
KsRecorder      *ks_recorder_new_for_file   (const char            *output,
                                             const KsRecordOptions *options,
                                             GError               **error);
gboolean         ks_recorder_spawn          (KsRecorder            *self,
                                             const char * const    *argv,
                                             gboolean               own_group,
                                             GError               **error);
void             ks_recorder_stop           (KsRecorder            *self,
                                             KsRecorderStop         reason);

KsRecorderState  ks_recorder_get_state      (KsRecorder            *self);
double           ks_recorder_get_elapsed    (KsRecorder            *self);
const char      *ks_recorder_get_output     (KsRecorder            *self);
/* The session, while it runs in this process (new_for_file()), or NULL. */
KsRecordSession *ks_recorder_get_session    (KsRecorder            *self);
/* The latest statistics (what the properties say). */
void             ks_recorder_get_stats      (KsRecorder            *self,
                                             KsRecordStats         *stats);
/* Whether the command ran to its end (or to the requested duration). */
gboolean         ks_recorder_get_complete   (KsRecorder            *self);
const char      *ks_recorder_get_end_reason (KsRecorder            *self);

/* The progress protocol of `kinescope-cli record --progress-fd`: one JSON
 * object a line. */
char            *ks_recorder_to_progress    (KsRecorder            *self);
char            *ks_recorder_to_done        (KsRecorder            *self,
                                             int                    exit_status,
                                             gboolean               complete);
/* FALSE for a line that is not a progress line (the line is ignored). */
gboolean         ks_recorder_apply_progress (KsRecorder            *self,
                                             const char            *line);
/* A recording shown from progress lines: its recorder has exited. */
void             ks_recorder_set_finished   (KsRecorder            *self,
                                             int                    exit_status,
                                             const GError          *error);

G_END_DECLS
