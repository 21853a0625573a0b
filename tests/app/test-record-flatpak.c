/* test-record-flatpak.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The Profile menu's recording as the Flatpak runs it, under Xvfb: a
 * stand-in /.flatpak-info (KINESCOPE_TEST_FLATPAK_INFO) sends the live
 * view through `flatpak-spawn --host`, and a stand-in flatpak-spawn,
 * first in PATH, runs the "host" kinescope-cli the way the real one does
 * (see fake-flatpak-spawn.c). Checks what flatpak-spawn is given, that
 * the progress pipe, the working folder and the environment get through,
 * that the trace opens, that Stop reaches the host recorder, and the
 * messages when the host cannot run kinescope-cli or the folder is
 * private to the sandbox.
 *
 * argv after the GTest options: kinescope-cli, the stand-in
 * flatpak-spawn, the fake NVML library. */

#include "config.h"

#include <adwaita.h>
#include <errno.h>
#include <glib/gstdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "ks-application.h"
#include "ks-test-gtk.h"
#include "ks-test-recording.h"
#include "ks-window.h"

static char *work_dir;     /* the working folder */
static char *app_path;     /* [Instance] app-path of the stand-in info */
static char *host_bin;     /* flatpak-spawn and kinescope-cli */
static char *spawn_bin;    /* flatpak-spawn only */
static char *spawn_log;
static char *info_path;

/* Fills the dialog and presses Start. */
static void
start_recording (const char *command,
                 const char *directory,
                 KsTestRun  *run)
{
  KsRecordDialog *dialog = ks_test_record_dialog (command, directory, run);

  g_signal_emit_by_name (ks_test_template_child (dialog, KS_TYPE_RECORD_DIALOG, "start_button"), "clicked");
  g_assert_nonnull (run->view);
}

/* The arguments flatpak-spawn was started with, last time. */
static char **
last_spawn_arguments (void)
{
  g_autofree char *text = NULL;
  g_auto(GStrv) runs = NULL;
  guint n;

  g_assert_true (g_file_get_contents (spawn_log, &text, NULL, NULL));
  runs = g_strsplit (text, "\n\n", -1);
  n = g_strv_length (runs);
  /* the log ends with an empty line: the last element is "" */
  g_assert_cmpuint (n, >=, 2);
  g_assert_cmpstr (runs[n - 1], ==, "");
  return g_strsplit (runs[n - 2], "\n", -1);
}

static char *
read_file (const char *name)
{
  g_autofree char *path = g_build_filename (work_dir, name, NULL);
  char *text = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  return text;
}

static void
test_record (void)
{
  KsTestRun run = { 0 };
  const char *command = "sh -c 'pwd -P > where; "
                        "printf \"%s\\n\" \"$KINESCOPE_INJECT_FALLBACK_DIR\" \"$KS_TEST_VALUE $KS_OTHER\" > env; "
                        "sleep 1.2'";
  g_auto(GStrv) args = NULL;
  g_autofree char *expected_fallback = g_strdup_printf ("--env=KINESCOPE_INJECT_FALLBACK_DIR=%s/lib/kinescope", app_path);
  g_autofree char *expected_directory = g_strdup_printf ("--directory=%s", work_dir);
  g_autofree char *expected_env = g_strdup_printf ("%s/lib/kinescope\nhello two words\n", app_path);
  g_autofree char *real_work_dir = NULL;
  g_autofree char *where = NULL;
  g_autofree char *expected_where = NULL;
  g_autofree char *env = NULL;
  g_autofree char *complete = NULL;
  g_autoptr(GFile) file = NULL;
  KsWindow *window;
  guint n, dashes;

  start_recording (command, work_dir, &run);
  KS_TEST_WAIT_FOR (run.done, 30000);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (run.path);

  /* what flatpak-spawn was asked to do */
  args = last_spawn_arguments ();
  n = g_strv_length (args);
  g_assert_cmpuint (n, >, 11);
  g_assert_cmpstr (args[0], ==, "--host");
  g_assert_cmpstr (args[1], ==, "--watch-bus");
  g_assert_cmpstr (args[2], ==, "--forward-fd=3");
  g_assert_cmpstr (args[3], ==, expected_directory);
  g_assert_cmpstr (args[4], ==, expected_fallback);
  g_assert_cmpstr (args[5], ==, "--env=KS_TEST_VALUE=hello");
  g_assert_cmpstr (args[6], ==, "--env=KS_OTHER=two words");
  /* a name for the host's PATH, not the build tree's or the sandbox's path */
  g_assert_cmpstr (args[7], ==, "kinescope-cli");
  g_assert_cmpstr (args[8], ==, "record");
  g_assert_cmpstr (args[9], ==, "--progress-fd");
  g_assert_cmpstr (args[10], ==, "3");
  for (dashes = 11; dashes < n && !g_str_equal (args[dashes], "--"); dashes++)
    ;
  g_assert_cmpuint (dashes + 4, ==, n);
  g_assert_cmpstr (args[dashes + 1], ==, "sh");
  g_assert_cmpstr (args[dashes + 2], ==, "-c");
  g_assert_true (g_str_has_prefix (args[dashes + 3], "pwd -P > where; "));

  /* the program ran in the working folder, with the environment */
  real_work_dir = realpath (work_dir, NULL);
  where = read_file ("where");
  expected_where = g_strconcat (real_work_dir, "\n", NULL);
  g_assert_cmpstr (where, ==, expected_where);
  env = read_file ("env");
  g_assert_cmpstr (env, ==, expected_env);

  /* progress came through the forwarded descriptor */
  g_assert_cmpstr (gtk_label_get_label (GTK_LABEL (ks_test_template_child (run.view, KS_TYPE_RECORDING_VIEW, "gpu_label"))), ==, "37 %");
  g_assert_cmpuint (ks_recording_view_get_events (run.view), >, 0);

  /* the trace is complete and opens */
  g_assert_true (g_str_has_prefix (run.path, work_dir));
  g_assert_true (g_str_has_suffix (run.path, "/report1.kscope"));
  complete = ks_test_kscope_meta (run.path, "complete");
  g_assert_cmpstr (complete, ==, "1");
  window = ks_window_new (NULL);
  gtk_window_present (GTK_WINDOW (window));
  file = g_file_new_for_path (run.path);
  ks_window_open (window, file);
  KS_TEST_WAIT_FOR (!ks_window_is_empty (window), 30000);
  gtk_window_destroy (GTK_WINDOW (window));

  ks_test_run_clear (&run);
}

static void
set_true (gboolean *flag)
{
  *flag = TRUE;
}

/* The dialog reads and writes the application's GSettings, the one
 * instance of the process, and leaves it writing through: what it saves
 * is there at once, and so is what others write after it. A remembered
 * environment with spaces and quotes in its values comes back as it was. */
static void
test_shared_settings (void)
{
  GSettings *settings = ks_application_get_settings ();
  g_autoptr(GSettings) other = NULL;
  g_autofree char *command = NULL;
  g_autofree char *directory = NULL;
  g_auto(GStrv) environment = NULL;
  static const char * const remembered[] = { "PLAIN=1", "SPACED=two words", "QUOTED=it's \"so\"", "EMPTY=", NULL };
  KsRecordDialog *dialog;
  gboolean started = FALSE;
  guint refs;

  g_assert_nonnull (settings);
  g_settings_set_string (settings, "record-command", "python3 train.py --epochs 1");
  g_settings_set_strv (settings, "record-environment", remembered);
  refs = G_OBJECT (settings)->ref_count;
  dialog = ks_record_dialog_new (NULL);
  gtk_window_present (GTK_WINDOW (dialog));
  g_signal_connect_swapped (dialog, "start", G_CALLBACK (set_true), &started);
  /* it holds the application's instance, not one of its own */
  g_assert_cmpuint (G_OBJECT (settings)->ref_count, ==, refs + 1);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (ks_test_template_child (dialog, KS_TYPE_RECORD_DIALOG,
                                                                                "command_entry"))),
                   ==, "python3 train.py --epochs 1");
  /* the plain one as typed, the others quoted */
  g_assert_true (g_str_has_prefix (gtk_editable_get_text (GTK_EDITABLE (ks_test_template_child (dialog,
                                                                                                KS_TYPE_RECORD_DIALOG,
                                                                                                "environment_entry"))),
                                   "PLAIN=1 "));

  gtk_editable_set_text (GTK_EDITABLE (ks_test_template_child (dialog, KS_TYPE_RECORD_DIALOG, "command_entry")),
                         "python3 train.py --epochs 2");
  gtk_editable_set_text (GTK_EDITABLE (ks_test_template_child (dialog, KS_TYPE_RECORD_DIALOG, "directory_entry")),
                         work_dir);
  g_signal_emit_by_name (ks_test_template_child (dialog, KS_TYPE_RECORD_DIALOG, "start_button"), "clicked");
  g_assert_true (started);
  command = g_settings_get_string (settings, "record-command");
  directory = g_settings_get_string (settings, "record-directory");
  g_assert_cmpstr (command, ==, "python3 train.py --epochs 2");
  g_assert_cmpstr (directory, ==, work_dir);
  environment = g_settings_get_strv (settings, "record-environment");
  g_assert_true (g_strv_equal ((const char * const *) environment, remembered));
  g_assert_false (g_settings_get_has_unapplied (settings));

  g_settings_set_double (settings, "gap-threshold-us", 250.0);
  other = g_settings_new (APP_ID);
  g_assert_cmpfloat (g_settings_get_double (other, "gap-threshold-us"), ==, 250.0);
  g_settings_reset (settings, "gap-threshold-us");
  g_settings_reset (settings, "record-command");
  g_settings_reset (settings, "record-directory");
  g_settings_reset (settings, "record-environment");
}

/* Stop sends SIGINT to flatpak-spawn, which is not the recorder: only
 * its forwarding reaches kinescope-cli on the host. */
static void
test_stop (void)
{
  KsTestRun run = { 0 };

  start_recording ("sleep 60", work_dir, &run);
  /* progress comes back through the forwarded descriptor first */
  ks_test_run_stop (&run);
  ks_test_run_clear (&run);
}

/* No kinescope-cli on the host: the view ends with a message that says
 * so, instead of a bare "failed". */
static void
test_no_host_cli (void)
{
  KsTestRun run = { 0 };
  g_autofree char *saved_path = g_strdup (g_getenv ("PATH"));
  const char *status;

  g_setenv ("PATH", spawn_bin, TRUE);
  start_recording ("true", work_dir, &run);
  g_setenv ("PATH", saved_path, TRUE);
  KS_TEST_WAIT_FOR (run.done, 30000);
  g_assert_cmpint (run.status, ==, 1);
  g_assert_null (run.path);
  g_assert_nonnull (run.message);
  g_assert_true (g_str_has_prefix (run.message, "kinescope-cli could not be started on the host: "));
  /* the host's reason follows, without the session helper's wrapping */
  g_assert_true (g_str_has_prefix (run.message + strlen ("kinescope-cli could not be started on the host: "),
                                   "Failed to execute child process"));
  status = gtk_label_get_label (GTK_LABEL (ks_test_template_child (run.view, KS_TYPE_RECORDING_VIEW, "status_label")));
  g_assert_cmpstr (status, ==, run.message);
  g_assert_false (gtk_widget_get_sensitive (ks_test_template_child (run.view, KS_TYPE_RECORDING_VIEW, "stop_button")));

  ks_test_run_clear (&run);
}

static gsize
log_size (void)
{
  GStatBuf st;

  return g_stat (spawn_log, &st) == 0 ? (gsize) st.st_size : 0;
}

/* /tmp in the sandbox is not the host's: refused before anything runs,
 * unless /.flatpak-info says that the user shared it. */
static void
test_private_folder (void)
{
  KsRecordingView *view = ks_recording_view_new (NULL);
  const char *arguments[] = { "record", "--", "true", NULL };
  g_autoptr(GError) error = NULL;
  g_autofree char *tmp = g_strdup ("/tmp/ks-test-flatpak-XXXXXX");
  g_autofree char *shared_info = g_build_filename (work_dir, "shared-tmp.flatpak-info", NULL);
  g_autofree char *private_info = g_build_filename (work_dir, "private-tmp.flatpak-info", NULL);
  gsize before = log_size ();
  KsTestRun run = { 0 };

  g_assert_nonnull (g_mkdtemp (tmp));
  g_object_ref_sink (view);
  /* the default of a sandbox: /tmp not shared */
  g_assert_true (g_file_set_contents (private_info, "[Context]\nfilesystems=host;xdg-run/gvfsd;\n", -1, NULL));
  g_setenv ("KINESCOPE_TEST_FLATPAK_INFO", private_info, TRUE);
  g_assert_false (ks_recording_view_start (view, arguments, tmp, NULL, &error));
  g_setenv ("KINESCOPE_TEST_FLATPAK_INFO", info_path, TRUE);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_assert_nonnull (strstr (error->message, tmp));
  g_assert_cmpuint (log_size (), ==, before);
  g_object_unref (view);
  g_unlink (private_info);

  /* shared with flatpak override --filesystem=/tmp */
  g_assert_true (g_file_set_contents (shared_info,
                                      "[Context]\nfilesystems=host;/tmp:rw;\n", -1, NULL));
  g_setenv ("KINESCOPE_TEST_FLATPAK_INFO", shared_info, TRUE);
  start_recording ("true", tmp, &run);
  g_setenv ("KINESCOPE_TEST_FLATPAK_INFO", info_path, TRUE);
  KS_TEST_WAIT_FOR (run.done, 30000);
  g_assert_cmpint (run.status, ==, 0);
  g_assert_nonnull (run.path);
  g_assert_true (g_str_has_prefix (run.path, tmp));
  g_assert_cmpuint (log_size (), >, before);
  g_unlink (run.path);
  g_rmdir (tmp);
  ks_test_run_clear (&run);
  g_unlink (shared_info);
}

static void
remove_tree (const char *path)
{
  g_autoptr(GDir) dir = g_dir_open (path, 0, NULL);
  const char *name;

  while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *child_path = g_build_filename (path, name, NULL);

      if (g_file_test (child_path, G_FILE_TEST_IS_DIR) && !g_file_test (child_path, G_FILE_TEST_IS_SYMLINK))
        remove_tree (child_path);
      else
        g_unlink (child_path);
    }
  g_rmdir (path);
}

static void
link_program (const char *dir,
              const char *name,
              const char *target)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  if (symlink (target, path) != 0)
    g_error ("symlink %s: %s", path, g_strerror (errno));
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *root = NULL;
  g_autofree char *info = NULL;
  g_autofree char *path = NULL;
  g_autofree char *cli = NULL;
  g_autofree char *spawn = NULL;
  int ret;

  g_setenv ("GSETTINGS_BACKEND", "memory", TRUE);
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;
  if (argc < 4)
    g_error ("usage: test-record-flatpak KINESCOPE_CLI FAKE_FLATPAK_SPAWN FAKE_NVML");
  g_unsetenv ("KINESCOPE_CLI");
  g_setenv ("KINESCOPE_NVML_LIBRARY", argv[3], TRUE);

  /* The build tree may lie in /tmp, which a sandbox keeps to itself: the
   * stand-in sandbox shares /tmp and /var/tmp with the host (as after
   * flatpak override --filesystem=/tmp), and test_private_folder checks
   * the refusal without that. */
  root = g_build_filename (g_getenv ("G_TEST_BUILDDIR") ? g_getenv ("G_TEST_BUILDDIR") : ".",
                           "ks-test-flatpak-XXXXXX", NULL);
  g_assert_nonnull (g_mkdtemp (root));
  work_dir = g_build_filename (root, "work folder", NULL);
  app_path = g_build_filename (root, "app", "files", NULL);
  host_bin = g_build_filename (root, "host-bin", NULL);
  spawn_bin = g_build_filename (root, "spawn-bin", NULL);
  spawn_log = g_build_filename (root, "flatpak-spawn.log", NULL);
  info_path = g_build_filename (root, "flatpak-info", NULL);
  g_assert_cmpint (g_mkdir (work_dir, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (host_bin, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (spawn_bin, 0755), ==, 0);
  cli = g_canonicalize_filename (argv[1], NULL);
  spawn = g_canonicalize_filename (argv[2], NULL);
  link_program (host_bin, "flatpak-spawn", spawn);
  link_program (host_bin, "kinescope-cli", cli);
  link_program (spawn_bin, "flatpak-spawn", spawn);

  info = g_strdup_printf ("[Application]\nname=" APP_ID "\n\n"
                          "[Instance]\napp-path=%s\n\n"
                          "[Context]\nfilesystems=host;xdg-run/gvfsd;/tmp:rw;/var/tmp:rw;\n", app_path);
  g_assert_true (g_file_set_contents (info_path, info, -1, NULL));
  g_setenv ("KINESCOPE_TEST_FLATPAK_INFO", info_path, TRUE);
  g_setenv ("KS_TEST_FLATPAK_SPAWN_LOG", spawn_log, TRUE);
  path = g_strdup_printf ("%s:%s", host_bin, g_getenv ("PATH"));
  g_setenv ("PATH", path, TRUE);

  g_test_add_func ("/app/record-flatpak/record", test_record);
  g_test_add_func ("/app/record-flatpak/stop", test_stop);
  g_test_add_func ("/app/record-flatpak/no-host-cli", test_no_host_cli);
  g_test_add_func ("/app/record-flatpak/private-folder", test_private_folder);
  g_test_add_func ("/app/record-flatpak/shared-settings", test_shared_settings);
  ret = g_test_run ();

  remove_tree (root);
  return ret;
}
