/* ks-recording-view.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-recording-view"

#include "config.h"

#include <glib/gi18n.h>
#include <glib-unix.h>
#include <signal.h>
#include <unistd.h>

#include <gio/gunixinputstream.h>

#include "ks-format.h"
#include "ks-gl-off.h"
#include "ks-paths.h"
#include "ks-recorder.h"
#include "ks-recording-view.h"

#define PROGRESS_FD 3

struct _KsRecordingView
{
  AdwWindow          parent_instance;

  AdwWindowTitle    *window_title;
  GtkLabel          *elapsed_label;
  GtkLabel          *status_label;
  GtkLevelBar       *gpu_level;
  GtkLabel          *gpu_label;
  GtkLevelBar       *memory_level;
  GtkLabel          *memory_label;
  GtkLabel          *events_label;
  GtkLabel          *processes_label;
  GtkButton         *stop_button;

  GSubprocess       *process;
  GDataInputStream  *progress;
  GInputStream      *errors;
  GString           *error_text;
  GCancellable      *cancellable;
  KsRecorder        *recorder;
  gboolean           heard;       /* a progress line came */
  gboolean           stopping;
  gboolean           exited;
  gboolean           progress_done; /* the progress pipe reached its end */
  gboolean           finished;
  int                status;
  gboolean           sandboxed;
};

G_DEFINE_FINAL_TYPE (KsRecordingView, ks_recording_view, ADW_TYPE_WINDOW)

enum {
  FINISHED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static char *
find_cli (void)
{
  const char *env = g_getenv ("KINESCOPE_CLI");
  g_autofree char *installed = g_build_filename (BINDIR, "kinescope-cli", NULL);
  g_autofree char *built = NULL;

  if (env != NULL && *env)
    return g_strdup (env);
  /* Run from the build tree (the README's first command): use the
   * kinescope-cli built beside us, not an installed one of another
   * version, nor none at all. */
  built = ks_paths_find_built ("src", "cli", "kinescope-cli", NULL);
  if (built != NULL && g_file_test (built, G_FILE_TEST_IS_EXECUTABLE))
    return g_steal_pointer (&built);
  if (g_file_test (installed, G_FILE_TEST_IS_EXECUTABLE))
    return g_steal_pointer (&installed);
  return g_strdup ("kinescope-cli");
}

/* The labels, from what the recorder says (its properties follow the
 * progress lines of ks-cli-record.c). */
static void
recorder_notify_cb (KsRecorder      *recorder,
                    GParamSpec      *pspec,
                    KsRecordingView *self)
{
  KsRecordStats stats;
  char text[64];
  int seconds;

  if (ks_recorder_get_state (recorder) == KS_RECORDER_STATE_IDLE)
    return;
  ks_recorder_get_stats (recorder, &stats);
  seconds = (int) stats.elapsed_s;
  g_snprintf (text, sizeof text, "%d:%02d", seconds / 60, seconds % 60);
  gtk_label_set_label (self->elapsed_label, text);
  g_snprintf (text, sizeof text, "%" G_GUINT64_FORMAT, stats.events);
  gtk_label_set_label (self->events_label, text);
  g_snprintf (text, sizeof text, "%u", stats.processes);
  gtk_label_set_label (self->processes_label, text);
  if (!self->stopping && !self->exited)
    gtk_label_set_label (self->status_label, _("Recording; the trace opens when the program ends"));

  /* the first GPU */
  if (stats.n_gpus > 0)
    {
      gint64 used = stats.gpus[0].memory_used;
      gint64 total = stats.gpus[0].memory_total;

      if (stats.gpus[0].utilization >= 0)
        {
          gtk_level_bar_set_value (self->gpu_level, (double) stats.gpus[0].utilization);
          g_snprintf (text, sizeof text, "%d %%", stats.gpus[0].utilization);
          gtk_label_set_label (self->gpu_label, text);
        }
      if (used >= 0 && total > 0)
        {
          g_autofree char *u = ks_format_bytes ((guint64) used);
          g_autofree char *t = ks_format_bytes ((guint64) total);
          g_autofree char *both = g_strdup_printf ("%s / %s", u, t);

          gtk_level_bar_set_value (self->memory_level, (double) used / (double) total);
          gtk_label_set_label (self->memory_label, both);
        }
    }
}

static void
show_progress (KsRecordingView *self,
               const char      *line)
{
  /* A line that is not a progress line is ignored. */
  if (ks_recorder_apply_progress (self->recorder, line))
    self->heard = TRUE;
}

static void read_progress (KsRecordingView *self);
static void finish (KsRecordingView *self);

static void
read_line_cb (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(KsRecordingView) self = user_data;
  g_autofree char *line = NULL;
  g_autoptr(GError) error = NULL;

  line = g_data_input_stream_read_line_finish_utf8 (G_DATA_INPUT_STREAM (source), result, NULL, &error);
  if (line == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      self->progress_done = TRUE;
      finish (self);
      return;
    }
  show_progress (self, line);
  read_progress (self);
}

static void
read_progress (KsRecordingView *self)
{
  g_data_input_stream_read_line_async (self->progress, G_PRIORITY_DEFAULT, self->cancellable,
                                       read_line_cb, g_object_ref (self));
}

static void read_errors (KsRecordingView *self);

static void
read_errors_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(KsRecordingView) self = user_data;
  g_autoptr(GBytes) bytes = NULL;

  bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (source), result, NULL);
  if (bytes == NULL || g_bytes_get_size (bytes) == 0)
    return;
  g_string_append_len (self->error_text, g_bytes_get_data (bytes, NULL), (gssize) g_bytes_get_size (bytes));
  /* keep the end: that is where the recorder's messages are */
  if (self->error_text->len > 8192)
    g_string_erase (self->error_text, 0, (gssize) (self->error_text->len - 4096));
  read_errors (self);
}

static void
read_errors (KsRecordingView *self)
{
  g_input_stream_read_bytes_async (self->errors, 4096, G_PRIORITY_DEFAULT, self->cancellable,
                                   read_errors_cb, g_object_ref (self));
}

/* The lines of the recorder's own messages, without the program's output. */
static char *
recorder_messages (KsRecordingView *self)
{
  g_auto(GStrv) lines = g_strsplit (self->error_text->str, "\n", -1);
  g_autoptr(GString) out = g_string_new (NULL);

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], "kinescope-cli") || g_str_has_prefix (lines[i], "Warning:")
        || g_str_has_prefix (lines[i], "Note:"))
      g_string_append_printf (out, "%s%s", out->len ? "\n" : "", lines[i]);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

/* flatpak-spawn's line when the host could not run the command (a
 * program not on the host's PATH, a missing folder): the reason, or NULL.
 * flatpak-spawn is not translated, so the prefix is stable. */
static char *
host_start_failure (KsRecordingView *self)
{
  static const char prefix[] = "Portal call failed: ";
  g_auto(GStrv) lines = g_strsplit (self->error_text->str, "\n", -1);

  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_prefix (lines[i], prefix))
      {
        const char *reason = lines[i] + strlen (prefix);

        /* the session helper's wrapping adds nothing for the user */
        if (g_str_has_prefix (reason, "Failed to start command: "))
          reason += strlen ("Failed to start command: ");
        return g_strdup (reason);
      }
  return NULL;
}

/* Runs once the recorder has exited and its progress pipe is drained:
 * its last line (which names the output) can come after the exit is
 * seen, and only the recorder holds the pipe (the program's descriptors
 * are closed when it is spawned), so the end of the pipe comes. */
static void
finish (KsRecordingView *self)
{
  g_autofree char *messages = NULL;
  int status = self->status;

  /* disposed: nobody is left to tell */
  if (!self->exited || !self->progress_done || self->finished || self->cancellable == NULL)
    return;
  self->finished = TRUE;

  messages = recorder_messages (self);
  if (self->sandboxed && !self->heard)
    {
      g_autofree char *reason = host_start_failure (self);

      /* flatpak-spawn could not start kinescope-cli on the host: say so,
       * not just "failed". */
      if (reason != NULL)
        {
          g_free (messages);
          messages = g_strdup_printf (_("kinescope-cli could not be started on the host: %s\n"
                                        "Recording from the Flatpak needs kinescope-cli installed on the host, "
                                        "on the PATH of the desktop session (for example in /usr/local/bin)."),
                                      reason);
        }
    }
  gtk_widget_set_sensitive (GTK_WIDGET (self->stop_button), FALSE);
  adw_window_title_set_title (self->window_title, _("Recording Finished"));
  if (ks_recorder_get_output (self->recorder) != NULL)
    gtk_label_set_label (self->status_label, messages && *messages ? messages : _("Opening the trace…"));
  else
    gtk_label_set_label (self->status_label, messages && *messages ? messages : _("The recording failed"));

  g_signal_emit (self, signals[FINISHED], 0, ks_recorder_get_output (self->recorder), status, messages);
}

static void
wait_cb (GObject      *source,
         GAsyncResult *result,
         gpointer      user_data)
{
  g_autoptr(KsRecordingView) self = user_data;

  g_subprocess_wait_finish (G_SUBPROCESS (source), result, NULL);
  self->exited = TRUE;
  self->status = -1;
  if (g_subprocess_get_if_exited (G_SUBPROCESS (source)))
    self->status = g_subprocess_get_exit_status (G_SUBPROCESS (source));
  finish (self);
}

/* Inside Flatpak the recorder runs on the host (see host_command ()).
 *
 * Test hook: KINESCOPE_TEST_FLATPAK_INFO names a file to use instead of
 * /.flatpak-info, so that a test can take the sandboxed branch outside
 * a sandbox, with a stand-in flatpak-spawn first in PATH. When it is
 * unset nothing changes: /.flatpak-info exists only inside Flatpak, and
 * flatpak-spawn is the runtime's, found through PATH. */
#define FLATPAK_SPAWN "flatpak-spawn"

static const char *
sandbox_info_path (void)
{
  const char *env = g_getenv ("KINESCOPE_TEST_FLATPAK_INFO");

  return env != NULL && *env ? env : "/.flatpak-info";
}

/* @path is @folder or inside it. */
static gboolean
path_within (const char *path,
             const char *folder)
{
  gsize len = strlen (folder);

  return strncmp (path, folder, len) == 0 && (path[len] == 0 || path[len] == '/');
}

/* Folders the sandbox does not share with the host, even with
 * --filesystem=host: the host would write the trace to its own folder of
 * that name, where the window cannot open it. Unless the user shared it
 * (flatpak override --filesystem=/tmp), which /.flatpak-info lists. */
static gboolean
sandbox_private_folder (GKeyFile   *info,
                        const char *directory)
{
  static const char * const private_folders[] = { "/tmp", "/var/tmp", "/app", "/usr", NULL };
  g_autofree char *path = g_canonicalize_filename (directory, NULL);
  g_auto(GStrv) shared = g_key_file_get_string_list (info, "Context", "filesystems", NULL, NULL);

  for (guint i = 0; private_folders[i] != NULL; i++)
    {
      if (!path_within (path, private_folders[i]))
        continue;
      for (guint j = 0; shared != NULL && shared[j] != NULL; j++)
        {
          g_autofree char *name = g_strdup (shared[j]);
          char *mode = strrchr (name, ':');

          /* /tmp, /tmp:rw, /tmp/shared:ro … */
          if (mode != NULL)
            *mode = 0;
          if (name[0] == '/' && path_within (path, name))
            return FALSE;
        }
      return TRUE;
    }
  return FALSE;
}

/* The command that starts kinescope-cli inside Flatpak: the program to
 * profile needs the host's Python, CUDA and driver, so kinescope-cli runs
 * there, found on the PATH of the desktop session (flatpak-session-helper
 * looks it up in its own environment). flatpak-spawn gives the host
 * command file descriptors 0–2 and those named by --forward-fd only, and
 * the environment of the session plus --env, not ours: the sandbox's
 * PATH and library paths would be wrong there. It forwards SIGINT (to
 * the host command's process group; kinescope-cli puts the program in a
 * group of its own) and SIGTERM, so Stop works as without Flatpak. */
static gboolean
host_command (GPtrArray           *argv,
              const char          *directory,
              const char * const  *environment,
              GError             **error)
{
  g_autoptr(GKeyFile) info = g_key_file_new ();
  g_autofree char *app_path = NULL;

  /* Unreadable, it still marks the sandbox; there is just no app-path. */
  if (g_key_file_load_from_file (info, sandbox_info_path (), G_KEY_FILE_NONE, NULL))
    app_path = g_key_file_get_string (info, "Instance", "app-path", NULL);

  if (sandbox_private_folder (info, directory))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("The working folder “%s” exists only inside Kinescope’s sandbox; the program runs on the host, "
                     "where that path is a different folder. Choose a folder in your home folder or on a shared disk."),
                   directory);
      return FALSE;
    }

  g_ptr_array_add (argv, g_strdup (FLATPAK_SPAWN));
  g_ptr_array_add (argv, g_strdup ("--host"));
  /* Should flatpak-spawn die (a Stop that comes before it knows the host
   * process kills it), the host command gets SIGINT and still writes its
   * trace, instead of recording on unseen. */
  g_ptr_array_add (argv, g_strdup ("--watch-bus"));
  g_ptr_array_add (argv, g_strdup_printf ("--forward-fd=%d", PROGRESS_FD));
  g_ptr_array_add (argv, g_strdup_printf ("--directory=%s", directory));
  /* Our collector library depends on libc only: a host kinescope-cli
   * without one of its own can load it from the installed Flatpak. */
  if (app_path != NULL)
    g_ptr_array_add (argv, g_strdup_printf ("--env=KINESCOPE_INJECT_FALLBACK_DIR=%s/lib/kinescope", app_path));
  for (guint i = 0; environment != NULL && environment[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup_printf ("--env=%s", environment[i]));
  g_ptr_array_add (argv, g_strdup ("kinescope-cli"));
  return TRUE;
}

gboolean
ks_recording_view_start (KsRecordingView     *self,
                         const char * const  *arguments,
                         const char          *directory,
                         const char * const  *environment,
                         GError             **error)
{
  g_autoptr(GSubprocessLauncher) launcher = NULL;
  g_autoptr(GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GInputStream) pipe_in = NULL;
  int fds[2];

  g_return_val_if_fail (KS_IS_RECORDING_VIEW (self), FALSE);
  g_return_val_if_fail (self->process == NULL, FALSE);

  self->sandboxed = g_file_test (sandbox_info_path (), G_FILE_TEST_EXISTS);
  if (self->sandboxed)
    {
      if (!host_command (argv, directory, environment, error))
        return FALSE;
    }
  else
    g_ptr_array_add (argv, find_cli ());

  if (!g_unix_open_pipe (fds, FD_CLOEXEC, error))
    return FALSE;

  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_take_fd (launcher, fds[1], PROGRESS_FD);
  ks_gl_off_restore_for_child (launcher);
  if (!self->sandboxed)
    {
      g_subprocess_launcher_set_cwd (launcher, directory);
      for (guint i = 0; environment != NULL && environment[i] != NULL; i++)
        {
          const char *eq = strchr (environment[i], '=');
          g_autofree char *name = NULL;

          if (eq == NULL)
            continue;
          name = g_strndup (environment[i], (gsize) (eq - environment[i]));
          g_subprocess_launcher_setenv (launcher, name, eq + 1, TRUE);
        }
    }

  g_ptr_array_add (argv, g_strdup (arguments[0]));
  g_ptr_array_add (argv, g_strdup ("--progress-fd"));
  g_ptr_array_add (argv, g_strdup_printf ("%d", PROGRESS_FD));
  for (guint i = 1; arguments[i] != NULL; i++)
    g_ptr_array_add (argv, g_strdup (arguments[i]));
  g_ptr_array_add (argv, NULL);

  self->process = g_subprocess_launcher_spawnv (launcher, (const char * const *) argv->pdata, error);
  if (self->process == NULL)
    {
      close (fds[0]);
      return FALSE;
    }

  pipe_in = g_unix_input_stream_new (fds[0], TRUE);
  self->progress = g_data_input_stream_new (pipe_in);
  self->errors = g_object_ref (g_subprocess_get_stderr_pipe (self->process));
  read_progress (self);
  read_errors (self);
  g_subprocess_wait_async (self->process, NULL, wait_cb, g_object_ref (self));
  return TRUE;
}

void
ks_recording_view_stop (KsRecordingView *self)
{
  g_return_if_fail (KS_IS_RECORDING_VIEW (self));

  if (self->process == NULL || self->stopping)
    return;
  self->stopping = TRUE;
  gtk_label_set_label (self->status_label, _("Stopping; waiting for the program to end…"));
  g_subprocess_send_signal (self->process, SIGINT);
}

const char *
ks_recording_view_get_output (KsRecordingView *self)
{
  g_return_val_if_fail (KS_IS_RECORDING_VIEW (self), NULL);
  return ks_recorder_get_output (self->recorder);
}

guint64
ks_recording_view_get_events (KsRecordingView *self)
{
  KsRecordStats stats;

  g_return_val_if_fail (KS_IS_RECORDING_VIEW (self), 0);
  ks_recorder_get_stats (self->recorder, &stats);
  return stats.events;
}

static void
stop_action (GtkWidget  *widget,
             const char *action_name,
             GVariant   *parameter)
{
  ks_recording_view_stop (KS_RECORDING_VIEW (widget));
}

static gboolean
ks_recording_view_close_request (GtkWindow *window)
{
  KsRecordingView *self = KS_RECORDING_VIEW (window);

  /* Closing the window while recording means Stop. */
  if (self->process != NULL && !self->exited)
    {
      ks_recording_view_stop (self);
      return TRUE;
    }
  return GTK_WINDOW_CLASS (ks_recording_view_parent_class)->close_request (window);
}

static void
ks_recording_view_dispose (GObject *object)
{
  KsRecordingView *self = KS_RECORDING_VIEW (object);

  g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_object (&self->progress);
  g_clear_object (&self->errors);
  g_clear_object (&self->process);
  /* kept until finalize: a late wait_cb() still asks it */
  g_signal_handlers_disconnect_by_data (self->recorder, self);
  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_RECORDING_VIEW);

  G_OBJECT_CLASS (ks_recording_view_parent_class)->dispose (object);
}

static void
ks_recording_view_finalize (GObject *object)
{
  KsRecordingView *self = KS_RECORDING_VIEW (object);

  g_string_free (self->error_text, TRUE);
  g_object_unref (self->recorder);

  G_OBJECT_CLASS (ks_recording_view_parent_class)->finalize (object);
}

static void
ks_recording_view_class_init (KsRecordingViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);
  GtkWindowClass *window_class = GTK_WINDOW_CLASS (klass);

  object_class->dispose = ks_recording_view_dispose;
  object_class->finalize = ks_recording_view_finalize;
  window_class->close_request = ks_recording_view_close_request;

  /**
   * KsRecordingView::finished:
   * @path: (nullable): the trace written, or %NULL when recording failed
   * @status: the exit status of kinescope-cli (the program's)
   * @message: (nullable): the recorder's warnings and errors
   */
  signals[FINISHED] = g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                    NULL, NULL, NULL, G_TYPE_NONE, 3,
                                    G_TYPE_STRING, G_TYPE_INT, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class, APP_RESOURCE_PATH "/ks-recording-view.ui");
  gtk_widget_class_bind_template_child (widget_class, KsRecordingView, window_title);
  gtk_widget_class_bind_template_child (widget_class, KsRecordingView, elapsed_label);
  gtk_widget_class_bind_template_child (widget_class, KsRecordingView, status_label);
  gtk_widget_class_bind_template_child (widget_class, KsRecordingView, gpu_level);
  gtk_widget_class_bind_template_child (widget_class, KsRecordingView, gpu_label);
  gtk_widget_class_bind_template_child (widget_class, KsRecordingView, memory_level);
  gtk_widget_class_bind_template_child (widget_class, KsRecordingView, memory_label);
  gtk_widget_class_bind_template_child (widget_class, KsRecordingView, events_label);
  gtk_widget_class_bind_template_child (widget_class, KsRecordingView, processes_label);
  gtk_widget_class_bind_template_child (widget_class, KsRecordingView, stop_button);

  gtk_widget_class_install_action (widget_class, "recording.stop", NULL, stop_action);
}

static void
ks_recording_view_init (KsRecordingView *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  self->cancellable = g_cancellable_new ();
  self->error_text = g_string_new (NULL);
  self->recorder = ks_recorder_new ();
  g_signal_connect (self->recorder, "notify", G_CALLBACK (recorder_notify_cb), self);
}

KsRecordingView *
ks_recording_view_new (GtkWindow *parent)
{
  return g_object_new (KS_TYPE_RECORDING_VIEW,
                       "transient-for", parent,
                       NULL);
}
