/* ks-test-recording.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "ks-record-dialog.h"
#include "ks-recording-view.h"

G_BEGIN_DECLS

/* One recording started from the Record dialog: the live view it opened
 * and what the view's "finished" signal said. */
typedef struct
{
  KsRecordingView *view;
  char            *path;
  char            *message;
  int              status;
  gboolean         done;
} KsTestRun;

/* A template child of @widget, asserted to exist. */
GtkWidget      *ks_test_template_child    (gpointer    widget,
                                           GType       type,
                                           const char *name);

/* A Record dialog for @command in @directory, with the environment
 * additions KS_TEST_VALUE=hello KS_OTHER='two words' and nothing traced
 * but GPU metrics at 20 Hz; Start opens a live view into @run. The caller
 * presses Start. */
KsRecordDialog *ks_test_record_dialog     (const char *command,
                                           const char *directory,
                                           KsTestRun  *run);

/* Waits until the live view has shown progress from the recorder (the
 * stand-in GPU's utilization), or the recording ended. */
void            ks_test_run_wait_progress (KsTestRun  *run);

/* Once the recording shows progress, presses Stop and checks what the
 * program's SIGINT leaves: status 130 and a trace that says it was
 * interrupted (complete = 0). */
void            ks_test_run_stop          (KsTestRun  *run);

void            ks_test_run_clear         (KsTestRun  *run);

/* The value of @name in the KS_META table of the .kscope at @path. */
char           *ks_test_kscope_meta       (const char *path,
                                           const char *name);

G_END_DECLS
