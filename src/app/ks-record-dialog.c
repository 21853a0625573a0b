/* ks-record-dialog.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-record-dialog"

#include "config.h"

#include <glib/gi18n.h>

#include "ks-application.h"
#include "ks-record-dialog.h"

enum {
  CAPTURE_NONE,
  CAPTURE_CUDA_PROFILER_API,
  CAPTURE_NVTX,
};

/* The rows of pytorch_dropdown, as kinescope-cli record --pytorch names them */
static const char * const pytorch_modes[] = {
  "autograd-nvtx",
  "autograd-shapes-nvtx",
  "none",
};
#define PYTORCH_NONE 2

struct _KsRecordDialog
{
  AdwWindow        parent_instance;

  GtkEntry        *command_entry;
  GtkEntry        *directory_entry;
  GtkEntry        *environment_entry;
  GtkEntry        *output_entry;
  GtkCheckButton  *cuda_check;
  GtkCheckButton  *nvtx_check;
  GtkCheckButton  *osrt_check;
  GtkCheckButton  *metrics_check;
  GtkSpinButton   *frequency_spin;
  GtkDropDown     *capture_dropdown;
  AdwActionRow    *nvtx_row;
  GtkEntry        *nvtx_entry;
  GtkDropDown     *pytorch_dropdown;
  AdwActionRow    *pytorch_memory_row;
  GtkSwitch       *pytorch_memory_switch;
  AdwActionRow    *memory_history_row;
  GtkSwitch       *memory_history_switch;
  AdwActionRow    *sampling_row;
  GtkSwitch       *sampling_switch;
  GtkSpinButton   *sampling_frequency_spin;
  GtkLabel        *error_label;
  GtkButton       *start_button;

  GSettings       *settings;
  GtkFileChooserNative *chooser;

  /* The output file was typed or chosen, not the working folder's next
   * free reportN.kscope; @output_confirmed: chosen in the file chooser,
   * which asked before replacing it. */
  gboolean         output_custom;
  gboolean         output_confirmed;
  gboolean         setting_output;
};

G_DEFINE_FINAL_TYPE (KsRecordDialog, ks_record_dialog, ADW_TYPE_WINDOW)

enum {
  START,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* The remembered environment as the entry reads it back: words that the
 * shell would split or unquote are quoted, the others shown as typed. */
static char *
environment_to_text (char **environment)
{
  g_autoptr(GString) text = g_string_new (NULL);

  for (guint i = 0; environment != NULL && environment[i] != NULL; i++)
    {
      g_auto(GStrv) words = NULL;

      if (i > 0)
        g_string_append_c (text, ' ');
      if (g_shell_parse_argv (environment[i], NULL, &words, NULL) && g_strv_length (words) == 1 &&
          g_str_equal (words[0], environment[i]))
        g_string_append (text, environment[i]);
      else
        {
          g_autofree char *quoted = g_shell_quote (environment[i]);

          g_string_append (text, quoted);
        }
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

static gboolean
strv_has (char       **strv,
          const char  *word)
{
  return strv != NULL && g_strv_contains ((const char * const *) strv, word);
}

static void
update_sensitivity (KsRecordDialog *self)
{
  gtk_widget_set_visible (GTK_WIDGET (self->nvtx_row),
                          gtk_drop_down_get_selected (self->capture_dropdown) == CAPTURE_NVTX);
  gtk_widget_set_sensitive (GTK_WIDGET (self->frequency_spin),
                            gtk_check_button_get_active (self->metrics_check));
  /* The recorder takes allocator events only along with operators */
  gtk_widget_set_sensitive (GTK_WIDGET (self->pytorch_memory_row),
                            gtk_drop_down_get_selected (self->pytorch_dropdown) != PYTORCH_NONE);
  gtk_widget_set_sensitive (GTK_WIDGET (self->sampling_frequency_spin),
                            gtk_switch_get_active (self->sampling_switch));
}

/* What kinescope-cli record writes without -o, run in @directory: its
 * first free reportN.kscope, shown so that the user knows. */
static char *
default_output (const char *directory)
{
  for (guint n = 1; ; n++)
    {
      g_autofree char *name = g_strdup_printf ("report%u.kscope", n);
      g_autofree char *path = g_build_filename (directory, name, NULL);

      if (!g_file_test (path, G_FILE_TEST_EXISTS))
        return g_steal_pointer (&path);
    }
}

static void
set_output (KsRecordDialog *self,
            const char     *path)
{
  self->setting_output = TRUE;
  gtk_editable_set_text (GTK_EDITABLE (self->output_entry), path);
  self->setting_output = FALSE;
}

static void
directory_changed_cb (KsRecordDialog *self)
{
  const char *directory = gtk_editable_get_text (GTK_EDITABLE (self->directory_entry));
  g_autofree char *path = NULL;

  if (self->output_custom)
    return;
  path = g_file_test (directory, G_FILE_TEST_IS_DIR) ? default_output (directory) : g_strdup ("");
  set_output (self, path);
}

static void
output_changed_cb (KsRecordDialog *self)
{
  if (self->setting_output)
    return;
  /* typed: the user's own, and not confirmed for replacing */
  self->output_custom = TRUE;
  self->output_confirmed = FALSE;
}

/* The file to write, absolute (a relative one is in the working
 * folder, as the recorder takes it), with the suffix the recorder adds. */
static char *
output_path (KsRecordDialog *self)
{
  g_autofree char *text = g_strstrip (g_strdup (gtk_editable_get_text (GTK_EDITABLE (self->output_entry))));
  g_autofree char *path = NULL;

  if (*text == 0)
    return NULL;
  path = g_canonicalize_filename (text, gtk_editable_get_text (GTK_EDITABLE (self->directory_entry)));
  if (!g_str_has_suffix (path, ".kscope"))
    {
      char *with_suffix = g_strconcat (path, ".kscope", NULL);

      g_free (path);
      path = with_suffix;
    }
  return g_steal_pointer (&path);
}

static guint
pytorch_mode_index (const char *mode)
{
  for (guint i = 0; i < G_N_ELEMENTS (pytorch_modes); i++)
    if (g_str_equal (mode, pytorch_modes[i]))
      return i;
  return 0;
}

static void
load_settings (KsRecordDialog *self)
{
  g_autofree char *command = NULL;
  g_autofree char *directory = NULL;
  g_autofree char *capture = NULL;
  g_autofree char *pytorch = NULL;
  g_auto(GStrv) environment = NULL;
  g_auto(GStrv) trace = NULL;
  g_autofree char *env_text = NULL;

  if (self->settings == NULL)
    {
      gtk_check_button_set_active (self->cuda_check, TRUE);
      gtk_check_button_set_active (self->nvtx_check, TRUE);
      gtk_check_button_set_active (self->osrt_check, TRUE);
      gtk_check_button_set_active (self->metrics_check, TRUE);
      gtk_drop_down_set_selected (self->pytorch_dropdown, 0);
      gtk_switch_set_active (self->pytorch_memory_switch, TRUE);
      gtk_switch_set_active (self->memory_history_switch, FALSE);
      gtk_switch_set_active (self->sampling_switch, TRUE);
      gtk_spin_button_set_value (self->sampling_frequency_spin, 1000);
      gtk_editable_set_text (GTK_EDITABLE (self->directory_entry), g_get_home_dir ());
      return;
    }

  command = g_settings_get_string (self->settings, "record-command");
  directory = g_settings_get_string (self->settings, "record-directory");
  environment = g_settings_get_strv (self->settings, "record-environment");
  trace = g_settings_get_strv (self->settings, "record-trace");
  capture = g_settings_get_string (self->settings, "record-capture-range");

  gtk_editable_set_text (GTK_EDITABLE (self->command_entry), command);
  gtk_editable_set_text (GTK_EDITABLE (self->directory_entry), *directory ? directory : g_get_home_dir ());
  env_text = environment_to_text (environment);
  gtk_editable_set_text (GTK_EDITABLE (self->environment_entry), env_text);
  gtk_check_button_set_active (self->cuda_check, strv_has (trace, "cuda"));
  gtk_check_button_set_active (self->nvtx_check, strv_has (trace, "nvtx"));
  gtk_check_button_set_active (self->osrt_check, strv_has (trace, "osrt"));
  gtk_check_button_set_active (self->metrics_check, strv_has (trace, "gpu-metrics"));
  gtk_spin_button_set_value (self->frequency_spin,
                             g_settings_get_int (self->settings, "record-gpu-metrics-frequency"));
  pytorch = g_settings_get_string (self->settings, "record-pytorch");
  gtk_drop_down_set_selected (self->pytorch_dropdown, pytorch_mode_index (pytorch));
  gtk_switch_set_active (self->pytorch_memory_switch,
                         g_settings_get_boolean (self->settings, "record-pytorch-memory"));
  gtk_switch_set_active (self->memory_history_switch,
                         g_settings_get_boolean (self->settings, "record-cuda-memory-history"));
  gtk_switch_set_active (self->sampling_switch,
                         g_settings_get_boolean (self->settings, "record-python-sampling"));
  gtk_spin_button_set_value (self->sampling_frequency_spin,
                             g_settings_get_int (self->settings, "record-python-sampling-frequency"));

  if (g_str_equal (capture, "cudaProfilerApi"))
    gtk_drop_down_set_selected (self->capture_dropdown, CAPTURE_CUDA_PROFILER_API);
  else if (g_str_has_prefix (capture, "nvtx:"))
    {
      gtk_drop_down_set_selected (self->capture_dropdown, CAPTURE_NVTX);
      gtk_editable_set_text (GTK_EDITABLE (self->nvtx_entry), capture + 5);
    }
  else
    gtk_drop_down_set_selected (self->capture_dropdown, CAPTURE_NONE);
}

static char **
trace_list (KsRecordDialog *self)
{
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();

  if (gtk_check_button_get_active (self->cuda_check))
    g_strv_builder_add (builder, "cuda");
  if (gtk_check_button_get_active (self->nvtx_check))
    g_strv_builder_add (builder, "nvtx");
  if (gtk_check_button_get_active (self->osrt_check))
    g_strv_builder_add (builder, "osrt");
  if (gtk_check_button_get_active (self->metrics_check))
    g_strv_builder_add (builder, "gpu-metrics");
  return g_strv_builder_end (builder);
}

static char *
capture_range (KsRecordDialog *self)
{
  switch (gtk_drop_down_get_selected (self->capture_dropdown))
    {
    case CAPTURE_CUDA_PROFILER_API:
      return g_strdup ("cudaProfilerApi");
    case CAPTURE_NVTX:
      return g_strconcat ("nvtx:", gtk_editable_get_text (GTK_EDITABLE (self->nvtx_entry)), NULL);
    default:
      return g_strdup ("none");
    }
}

static const char *
pytorch_mode (KsRecordDialog *self)
{
  guint selected = gtk_drop_down_get_selected (self->pytorch_dropdown);

  return selected < G_N_ELEMENTS (pytorch_modes) ? pytorch_modes[selected] : pytorch_modes[0];
}

/* The Python options in the form kinescope-cli record takes them; an
 * option that its switch makes moot (memory without operators, the
 * frequency without sampling) is left to the recorder's rule. */
static void
add_python_arguments (KsRecordDialog *self,
                      GStrvBuilder   *builder)
{
  const char *pytorch = pytorch_mode (self);
  gboolean sampling = gtk_switch_get_active (self->sampling_switch);
  g_autofree char *pytorch_arg = g_strconcat ("--pytorch=", pytorch, NULL);

  g_strv_builder_add (builder, pytorch_arg);
  if (!g_str_equal (pytorch, "none"))
    g_strv_builder_add (builder, gtk_switch_get_active (self->pytorch_memory_switch)
                                 ? "--pytorch-memory=true" : "--pytorch-memory=false");
  g_strv_builder_add (builder, sampling ? "--python-sampling=true" : "--python-sampling=false");
  if (sampling)
    {
      g_autofree char *frequency = g_strdup_printf ("--python-sampling-frequency=%d",
                                                    gtk_spin_button_get_value_as_int (self->sampling_frequency_spin));

      g_strv_builder_add (builder, frequency);
    }
  if (gtk_switch_get_active (self->memory_history_switch))
    g_strv_builder_add (builder, "--cuda-memory-history");
}

static char **
parse_environment (KsRecordDialog  *self,
                   GError         **error)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (self->environment_entry));
  g_auto(GStrv) words = NULL;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *stripped = g_strstrip (g_strdup (text));
  int n = 0;

  if (*stripped == 0)
    return g_new0 (char *, 1);
  if (!g_shell_parse_argv (text, &n, &words, &local_error))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("The environment could not be read: %s"), local_error->message);
      return NULL;
    }
  for (int i = 0; i < n; i++)
    {
      const char *eq = strchr (words[i], '=');

      if (eq == NULL || eq == words[i])
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       _("“%s” is not a NAME=VALUE pair"), words[i]);
          return NULL;
        }
    }
  return g_steal_pointer (&words);
}

char **
ks_record_dialog_build_arguments (KsRecordDialog  *self,
                                  GError         **error)
{
  const char *command = gtk_editable_get_text (GTK_EDITABLE (self->command_entry));
  g_autoptr(GStrvBuilder) builder = g_strv_builder_new ();
  g_autoptr(GError) local_error = NULL;
  g_auto(GStrv) argv = NULL;
  g_auto(GStrv) trace = trace_list (self);
  g_autofree char *trace_text = NULL;
  g_autofree char *capture = capture_range (self);
  g_autofree char *frequency = NULL;
  g_autofree char *output = NULL;

  g_return_val_if_fail (KS_IS_RECORD_DIALOG (self), NULL);

  /* A number typed without Enter is not yet the spin buttons' value */
  gtk_spin_button_update (self->frequency_spin);
  gtk_spin_button_update (self->sampling_frequency_spin);

  if (!g_shell_parse_argv (command, NULL, &argv, &local_error))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("Enter the command line to record (%s)"), local_error->message);
      return NULL;
    }
  if (g_str_equal (capture, "nvtx:"))
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("Enter the name of the NVTX range that starts the recording"));
      return NULL;
    }

  /* The output file lies in it unless given whole: the folder first */
  if (!g_file_test (gtk_editable_get_text (GTK_EDITABLE (self->directory_entry)), G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("The working folder “%s” does not exist"),
                   gtk_editable_get_text (GTK_EDITABLE (self->directory_entry)));
      return NULL;
    }
  output = output_path (self);
  if (output == NULL)
    {
      g_set_error_literal (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                           _("Choose the file to save the recording to"));
      return NULL;
    }
  if (g_file_test (output, G_FILE_TEST_IS_DIR))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY,
                   _("“%s” is a folder: choose a file to save the recording to"), output);
      return NULL;
    }
  /* Replaced only when the file chooser asked first */
  if (g_file_test (output, G_FILE_TEST_EXISTS) && !self->output_confirmed)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                   _("“%s” already exists: choose another file"), output);
      return NULL;
    }

  trace_text = g_strv_length (trace) > 0 ? g_strjoinv (",", trace) : g_strdup ("none");
  frequency = g_strdup_printf ("%d", gtk_spin_button_get_value_as_int (self->frequency_spin));

  g_strv_builder_add_many (builder, "record", "-o", output, NULL);
  if (self->output_confirmed && g_file_test (output, G_FILE_TEST_EXISTS))
    g_strv_builder_add (builder, "--force");
  g_strv_builder_add_many (builder, "-t", trace_text, NULL);
  g_strv_builder_add (builder, "--capture-range");
  g_strv_builder_add (builder, capture);
  g_strv_builder_add_many (builder, "--gpu-metrics-frequency", frequency, NULL);
  add_python_arguments (self, builder);
  g_strv_builder_add (builder, "--");
  g_strv_builder_addv (builder, (const char **) argv);
  return g_strv_builder_end (builder);
}

static void
show_error (KsRecordDialog *self,
            const char     *message)
{
  gtk_label_set_label (self->error_label, message);
  gtk_widget_set_visible (GTK_WIDGET (self->error_label), TRUE);
}

static void
start_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  KsRecordDialog *self = KS_RECORD_DIALOG (widget);
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) args = NULL;
  g_auto(GStrv) environment = NULL;
  g_auto(GStrv) trace = NULL;
  g_autofree char *capture = NULL;
  const char *directory = gtk_editable_get_text (GTK_EDITABLE (self->directory_entry));

  args = ks_record_dialog_build_arguments (self, &error);
  if (args != NULL)
    environment = parse_environment (self, &error);
  if (error != NULL)
    {
      show_error (self, error->message);
      return;
    }

  if (self->settings != NULL)
    {
      trace = trace_list (self);
      capture = capture_range (self);
      /* No g_settings_delay(): the instance is the whole process's, and
       * delaying it would hold back every later write to it too. */
      g_settings_set_string (self->settings, "record-command",
                             gtk_editable_get_text (GTK_EDITABLE (self->command_entry)));
      g_settings_set_string (self->settings, "record-directory", directory);
      g_settings_set_strv (self->settings, "record-environment", (const char * const *) environment);
      g_settings_set_strv (self->settings, "record-trace", (const char * const *) trace);
      g_settings_set_string (self->settings, "record-capture-range", capture);
      g_settings_set_int (self->settings, "record-gpu-metrics-frequency",
                          gtk_spin_button_get_value_as_int (self->frequency_spin));
      g_settings_set_string (self->settings, "record-pytorch", pytorch_mode (self));
      g_settings_set_boolean (self->settings, "record-pytorch-memory",
                              gtk_switch_get_active (self->pytorch_memory_switch));
      g_settings_set_boolean (self->settings, "record-cuda-memory-history",
                              gtk_switch_get_active (self->memory_history_switch));
      g_settings_set_boolean (self->settings, "record-python-sampling",
                              gtk_switch_get_active (self->sampling_switch));
      g_settings_set_int (self->settings, "record-python-sampling-frequency",
                          gtk_spin_button_get_value_as_int (self->sampling_frequency_spin));
    }

  g_signal_emit (self, signals[START], 0, args, directory, environment);
  gtk_window_close (GTK_WINDOW (self));
}

static void
chooser_response_cb (KsRecordDialog       *self,
                     int                   response,
                     GtkFileChooserNative *chooser)
{
  g_autoptr(GFile) folder = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    folder = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
  if (folder != NULL && g_file_peek_path (folder) != NULL)
    gtk_editable_set_text (GTK_EDITABLE (self->directory_entry), g_file_peek_path (folder));
  g_clear_object (&self->chooser);
}

static void
choose_directory_cb (KsRecordDialog *self)
{
  g_clear_object (&self->chooser);
  self->chooser = gtk_file_chooser_native_new (_("Working Folder"), GTK_WINDOW (self),
                                               GTK_FILE_CHOOSER_ACTION_SELECT_FOLDER,
                                               _("_Select"), _("_Cancel"));
  g_signal_connect_object (self->chooser, "response", G_CALLBACK (chooser_response_cb),
                           self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

static void
output_chooser_response_cb (KsRecordDialog       *self,
                            int                   response,
                            GtkFileChooserNative *chooser)
{
  g_autoptr(GFile) file = NULL;

  if (response == GTK_RESPONSE_ACCEPT)
    file = gtk_file_chooser_get_file (GTK_FILE_CHOOSER (chooser));
  if (file != NULL && g_file_peek_path (file) != NULL)
    {
      set_output (self, g_file_peek_path (file));
      self->output_custom = TRUE;
      self->output_confirmed = TRUE;
    }
  g_clear_object (&self->chooser);
}

static void
choose_output_cb (KsRecordDialog *self)
{
  g_autofree char *path = output_path (self);
  g_autoptr(GFile) folder = NULL;
  g_autoptr(GtkFileFilter) filter = gtk_file_filter_new ();

  g_clear_object (&self->chooser);
  self->chooser = gtk_file_chooser_native_new (_("Save Recording As"), GTK_WINDOW (self),
                                               GTK_FILE_CHOOSER_ACTION_SAVE,
                                               _("_Save"), _("_Cancel"));
  gtk_file_filter_set_name (filter, _("Kinescope recordings"));
  gtk_file_filter_add_pattern (filter, "*.kscope");
  gtk_file_chooser_add_filter (GTK_FILE_CHOOSER (self->chooser), filter);
  if (path != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (path);
      g_autofree char *base = g_path_get_basename (path);

      folder = g_file_new_for_path (dir);
      if (g_file_query_exists (folder, NULL))
        gtk_file_chooser_set_current_folder (GTK_FILE_CHOOSER (self->chooser), folder, NULL);
      gtk_file_chooser_set_current_name (GTK_FILE_CHOOSER (self->chooser), base);
    }
  g_signal_connect_object (self->chooser, "response", G_CALLBACK (output_chooser_response_cb),
                           self, G_CONNECT_SWAPPED);
  gtk_native_dialog_show (GTK_NATIVE_DIALOG (self->chooser));
}

static void
ks_record_dialog_dispose (GObject *object)
{
  KsRecordDialog *self = KS_RECORD_DIALOG (object);

  g_clear_object (&self->settings);
  g_clear_object (&self->chooser);
  gtk_widget_dispose_template (GTK_WIDGET (self), KS_TYPE_RECORD_DIALOG);

  G_OBJECT_CLASS (ks_record_dialog_parent_class)->dispose (object);
}

static void
ks_record_dialog_class_init (KsRecordDialogClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = ks_record_dialog_dispose;

  /**
   * KsRecordDialog::start:
   * @arguments: arguments of kinescope-cli, from "record" on
   * @directory: the working folder
   * @environment: NAME=VALUE additions
   */
  signals[START] = g_signal_new ("start", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                 NULL, NULL, NULL, G_TYPE_NONE, 3,
                                 G_TYPE_STRV, G_TYPE_STRING, G_TYPE_STRV);

  gtk_widget_class_set_template_from_resource (widget_class, APP_RESOURCE_PATH "/ks-record-dialog.ui");
  gtk_widget_class_bind_template_child (widget_class, KsRecordDialog, command_entry);
  gtk_widget_class_bind_template_child (widget_class, KsRecordDialog, directory_entry);
  gtk_widget_class_bind_template_child (widget_class, KsRecordDialog, environment_entry);
  gtk_widget_class_bind_template_child (widget_class, KsRecordDialog, output_entry);
  gtk_widget_class_bind_template_child (widget_class, KsRecordDialog, cuda_check);
  gtk_widget_class_bind_template_child (widget_class, KsRecordDialog, nvtx_check);
  gtk_widget_class_bind_template_child (widget_class, KsRecordDialog, osrt_check);
  gtk_widget_class_bind_template_child (widget_class, KsRecordDialog, metrics_check);
  gtk_widget_class_bind_template_child (widget_class, KsRecordDialog, frequency_spin);
  gtk_widget_class_bind_template_child (widget_class, KsRecordDialog, capture_dropdown);
  gtk_widget_class_bind_template_child (widget_class, KsRecordDialog, nvtx_row);
  gtk_widget_class_bind_template_child (widget_class, KsRecordDialog, nvtx_entry);
  gtk_widget_class_bind_template_child (widget_class, KsRecordDialog, pytorch_dropdown);
  gtk_widget_class_bind_template_child (widget_class, KsRecordDialog, pytorch_memory_row);
  gtk_widget_class_bind_template_child (widget_class, KsRecordDialog, pytorch_memory_switch);
  gtk_widget_class_bind_template_child (widget_class, KsRecordDialog, memory_history_row);
  gtk_widget_class_bind_template_child (widget_class, KsRecordDialog, memory_history_switch);
  gtk_widget_class_bind_template_child (widget_class, KsRecordDialog, sampling_row);
  gtk_widget_class_bind_template_child (widget_class, KsRecordDialog, sampling_switch);
  gtk_widget_class_bind_template_child (widget_class, KsRecordDialog, sampling_frequency_spin);
  gtk_widget_class_bind_template_child (widget_class, KsRecordDialog, error_label);
  gtk_widget_class_bind_template_child (widget_class, KsRecordDialog, start_button);
  gtk_widget_class_bind_template_callback (widget_class, choose_directory_cb);
  gtk_widget_class_bind_template_callback (widget_class, choose_output_cb);

  gtk_widget_class_install_action (widget_class, "record.start", NULL, start_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_Escape, 0, "window.close", NULL);
}

static void
ks_record_dialog_init (KsRecordDialog *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));

  /* The application's: one GSettings per process */
  if (ks_application_get_settings () != NULL)
    self->settings = g_object_ref (ks_application_get_settings ());
  else
    g_warning ("GSettings schema %s is not installed; recording options are not remembered", APP_ID);
  /* Connected first: the remembered folder fills in the output file */
  g_signal_connect_object (self->directory_entry, "changed",
                           G_CALLBACK (directory_changed_cb), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->output_entry, "changed",
                           G_CALLBACK (output_changed_cb), self, G_CONNECT_SWAPPED);
  load_settings (self);
  update_sensitivity (self);
  g_signal_connect_object (self->capture_dropdown, "notify::selected",
                           G_CALLBACK (update_sensitivity), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->metrics_check, "notify::active",
                           G_CALLBACK (update_sensitivity), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->pytorch_dropdown, "notify::selected",
                           G_CALLBACK (update_sensitivity), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (self->sampling_switch, "notify::active",
                           G_CALLBACK (update_sensitivity), self, G_CONNECT_SWAPPED);
}

KsRecordDialog *
ks_record_dialog_new (GtkWindow *parent)
{
  return g_object_new (KS_TYPE_RECORD_DIALOG,
                       "transient-for", parent,
                       NULL);
}
