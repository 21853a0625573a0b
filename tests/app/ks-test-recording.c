/* ks-test-recording.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <sqlite3.h>
#include <string.h>

#include "ks-test-gtk.h"
#include "ks-test-recording.h"

GtkWidget *
ks_test_template_child (gpointer    widget,
                        GType       type,
                        const char *name)
{
  GObject *object = gtk_widget_get_template_child (GTK_WIDGET (widget), type, name);

  g_assert_nonnull (object);
  return GTK_WIDGET (object);
}

static void
finished_cb (KsRecordingView *view,
             const char      *path,
             int              status,
             const char      *message,
             KsTestRun       *run)
{
  run->path = g_strdup (path);
  run->message = g_strdup (message);
  run->status = status;
  run->done = TRUE;
}

static void
start_cb (KsRecordDialog *dialog,
          char          **arguments,
          const char     *directory,
          char          **environment,
          KsTestRun      *run)
{
  g_autoptr(GError) error = NULL;

  run->view = ks_recording_view_new (NULL);
  g_object_ref_sink (run->view);
  g_signal_connect (run->view, "finished", G_CALLBACK (finished_cb), run);
  g_assert_true (ks_recording_view_start (run->view, (const char * const *) arguments, directory,
                                          (const char * const *) environment, &error));
  g_assert_no_error (error);
  gtk_window_present (GTK_WINDOW (run->view));
}

#define DIALOG_CHILD(name) ks_test_template_child (dialog, KS_TYPE_RECORD_DIALOG, name)

KsRecordDialog *
ks_test_record_dialog (const char *command,
                       const char *directory,
                       KsTestRun  *run)
{
  KsRecordDialog *dialog = ks_record_dialog_new (NULL);

  gtk_window_present (GTK_WINDOW (dialog));
  gtk_editable_set_text (GTK_EDITABLE (DIALOG_CHILD ("command_entry")), command);
  gtk_editable_set_text (GTK_EDITABLE (DIALOG_CHILD ("directory_entry")), directory);
  gtk_editable_set_text (GTK_EDITABLE (DIALOG_CHILD ("environment_entry")),
                         "KS_TEST_VALUE=hello KS_OTHER='two words'");
  gtk_check_button_set_active (GTK_CHECK_BUTTON (DIALOG_CHILD ("cuda_check")), FALSE);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (DIALOG_CHILD ("nvtx_check")), FALSE);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (DIALOG_CHILD ("osrt_check")), FALSE);
  gtk_check_button_set_active (GTK_CHECK_BUTTON (DIALOG_CHILD ("metrics_check")), TRUE);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (DIALOG_CHILD ("frequency_spin")), 20);
  g_signal_connect (dialog, "start", G_CALLBACK (start_cb), run);
  return dialog;
}

void
ks_test_run_wait_progress (KsTestRun *run)
{
  GtkLabel *gpu = GTK_LABEL (ks_test_template_child (run->view, KS_TYPE_RECORDING_VIEW, "gpu_label"));

  /* however long a loaded machine takes to start the recorder */
  KS_TEST_WAIT_FOR (run->done || g_str_equal (gtk_label_get_label (gpu), "37 %"), 30000);
}

void
ks_test_run_stop (KsTestRun *run)
{
  g_autofree char *complete = NULL;
  g_autofree char *reason = NULL;

  ks_test_run_wait_progress (run);
  g_assert_false (run->done);
  g_signal_emit_by_name (ks_test_template_child (run->view, KS_TYPE_RECORDING_VIEW, "stop_button"), "clicked");
  KS_TEST_WAIT_FOR (run->done, 30000);
  g_assert_cmpint (run->status, ==, 130);
  g_assert_nonnull (run->path);
  complete = ks_test_kscope_meta (run->path, "complete");
  reason = ks_test_kscope_meta (run->path, "end_reason");
  g_assert_cmpstr (complete, ==, "0");
  g_assert_cmpstr (reason, ==, "interrupted");
}

void
ks_test_run_clear (KsTestRun *run)
{
  if (run->view != NULL)
    {
      gtk_window_destroy (GTK_WINDOW (run->view));
      g_object_unref (run->view);
    }
  g_free (run->path);
  g_free (run->message);
  memset (run, 0, sizeof *run);
}

char *
ks_test_kscope_meta (const char *path,
                     const char *name)
{
  sqlite3 *db = NULL;
  sqlite3_stmt *s = NULL;
  char *value = NULL;

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  sqlite3_prepare_v2 (db, "SELECT value FROM KS_META WHERE name = ?", -1, &s, NULL);
  sqlite3_bind_text (s, 1, name, -1, SQLITE_STATIC);
  if (sqlite3_step (s) == SQLITE_ROW)
    value = g_strdup ((const char *) sqlite3_column_text (s, 0));
  sqlite3_finalize (s);
  sqlite3_close (db);
  return value;
}
