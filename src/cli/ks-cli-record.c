/* ks-cli-record.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* kinescope-cli record: runs a command with the collector and writes a
 * .kscope, the way `nsys profile` does. Exits with the command's status
 * (128 + signal when it was killed, 127 when it was not found, 126 when
 * it cannot be run). */

#define G_LOG_DOMAIN "ks-cli-record"

#include "config.h"

#include "ks-cli.h"
#include "ks-cli-common.h"
#include "ks-format.h"
#include "ks-json-writer.h"
#include "ks-recorder.h"
#include "ks-signals.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <gio/gio.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* --duration's timer counts milliseconds in a guint: 49 days. */
#define MAX_DURATION_S 4294967u

typedef struct
{
  GMainLoop       *loop;
  KsRecorder      *recorder;
  KsRecordSession *session;
  int              progress_fd;
  char            *output;
  const char      *command;
  gboolean         write_failed;   /* and said so */
  gboolean         finished;
  guint            duration_id;
  int              status;
  GError          *error;          /* why the trace could not be finished */
} Record;

static gboolean
on_signal_cb (gpointer data)
{
  Record *r = data;

  if (r->progress_fd < 0)
    ks_cli_printerr (_("kinescope-cli record: stopping, waiting for the command to end…\n"));
  ks_recorder_stop (r->recorder, KS_RECORDER_STOP_INTERRUPTED);
  return G_SOURCE_CONTINUE;
}

static gboolean
duration_cb (gpointer data)
{
  Record *r = data;

  r->duration_id = 0;
  ks_recorder_stop (r->recorder, KS_RECORDER_STOP_DURATION);
  return G_SOURCE_REMOVE;
}

static void
write_progress (Record     *r,
                const char *line)
{
  gsize len = strlen (line);

  while (len > 0)
    {
      ssize_t n = write (r->progress_fd, line, len);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          r->progress_fd = -1;
          return;
        }
      line += n;
      len -= (gsize) n;
    }
}

/* Writing stopped (a full disk): the command goes on to its end, its
 * events no longer written. Says so once, with where the file ends. */
static void
report_write_failure (Record     *r,
                      const char *message)
{
  KsRecordStats stats;

  r->write_failed = TRUE;
  ks_record_session_get_stats (r->session, &stats);
  ks_cli_printerr ("kinescope-cli record: %s\n", message);
  if (r->finished || ks_recorder_get_state (r->recorder) >= KS_RECORDER_STATE_FINISHED)
    ks_cli_printerr (_("kinescope-cli record: the recording stopped at %.2f s, with %" PRIu64 " events in the file\n"),
                stats.written_until_s, stats.events);
  else
    ks_cli_printerr (_("kinescope-cli record: the recording stopped at %.2f s, with %" PRIu64 " events in the file; "
                  "%s keeps running, and what it does from now on is not recorded\n"),
                stats.written_until_s, stats.events, r->command);
}

static void
write_error_cb (KsRecorder *recorder,
                GParamSpec *pspec,
                gpointer    data)
{
  Record *r = data;
  g_autofree char *message = NULL;

  g_object_get (recorder, "write-error", &message, NULL);
  if (message != NULL && !r->write_failed)
    report_write_failure (r, message);
}

/* One progress line each time the recorder looks (twice a second). */
static void
elapsed_cb (KsRecorder *recorder,
            GParamSpec *pspec,
            gpointer    data)
{
  Record *r = data;
  KsRecorderState state = ks_recorder_get_state (recorder);
  g_autofree char *line = NULL;

  if (r->progress_fd < 0 || (state != KS_RECORDER_STATE_RECORDING && state != KS_RECORDER_STATE_STOPPING))
    return;
  line = ks_recorder_to_progress (recorder);
  write_progress (r, line);
}

static void
finished_cb (KsRecorder   *recorder,
             int           status,
             const GError *error,
             gpointer      data)
{
  Record *r = data;

  r->finished = TRUE;
  r->status = status;
  if (error != NULL)
    r->error = g_error_copy (error);
  g_main_loop_quit (r->loop);
}

static gboolean
parse_trace (const char     *value,
             KsRecordTrace  *trace,
             GError        **error)
{
  g_auto(GStrv) parts = g_strsplit (value, ",", -1);

  *trace = 0;
  for (guint i = 0; parts[i] != NULL; i++)
    {
      const char *p = g_strstrip (parts[i]);

      if (g_str_equal (p, "cuda"))
        *trace |= KS_RECORD_TRACE_CUDA;
      else if (g_str_equal (p, "nvtx"))
        *trace |= KS_RECORD_TRACE_NVTX;
      else if (g_str_equal (p, "osrt"))
        *trace |= KS_RECORD_TRACE_OSRT;
      else if (g_str_equal (p, "gpu-metrics"))
        *trace |= KS_RECORD_TRACE_GPU_METRICS;
      else if (g_str_equal (p, "none") || *p == 0)
        ;
      else
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("Unknown trace “%s” (use cuda, nvtx, osrt, gpu-metrics)"), p);
          return FALSE;
        }
    }
  return TRUE;
}

/* --OPTION=true|false; unset: true. */
static gboolean
parse_bool (const char *option,
            const char *value,
            gboolean   *out)
{
  if (value == NULL || g_str_equal (value, "true"))
    *out = TRUE;
  else if (g_str_equal (value, "false"))
    *out = FALSE;
  else
    {
      ks_cli_printerr (_("kinescope-cli record: %s must be true or false, not “%s”\n"), option, value);
      return FALSE;
    }
  return TRUE;
}

/* The first free reportN.kscope of the current folder, absolute. */
static char *
default_output (void)
{
  for (guint n = 1; ; n++)
    {
      g_autofree char *name = g_strdup_printf ("report%u.kscope", n);

      if (!g_file_test (name, G_FILE_TEST_EXISTS))
        return g_canonicalize_filename (name, NULL);
    }
}

static char *
format_size (const char *path)
{
  GStatBuf st;

  if (g_stat (path, &st) != 0)
    return g_strdup ("?");
  return ks_format_bytes ((guint64) st.st_size);
}

static void
print_summary (Record          *r,
               const char      *command,
               int              status,
               KsRecordTrace    trace)
{
  const KsRecordCounts *c = ks_record_session_get_counts (r->session);
  KsRecordStats stats;
  g_autofree char *size = format_size (r->output);
  g_autofree char *conflict = ks_record_session_dup_cupti_conflict (r->session);

  ks_record_session_get_stats (r->session, &stats);

  if (r->write_failed)
    ks_cli_printerr (_("Recording stopped at %.2f s: the trace could not be written; %s ended with status %d\n"),
                stats.written_until_s, command, status);
  else if (g_strcmp0 (ks_recorder_get_end_reason (r->recorder), "interrupted") == 0)
    ks_cli_printerr (_("Recording interrupted; %s ended with status %d\n"), command, status);
  else if (g_strcmp0 (ks_recorder_get_end_reason (r->recorder), "duration") == 0)
    ks_cli_printerr (_("Recording stopped after the requested duration; %s ended with status %d\n"), command, status);
  else
    ks_cli_printerr (_("Recording ended: %s exited with status %d\n"), command, status);

  ks_cli_printerr (_("  Duration          %.2f s\n"), stats.elapsed_s);
  ks_cli_printerr (_("  Processes         %u (%u using CUDA)\n"),
                    ks_record_session_get_n_processes (r->session), stats.cuda_processes);
  ks_cli_printerr (_("  Kernels           %" PRIu64 "\n"), c->kernels);
  ks_cli_printerr (_("  Memcpy / memset   %" PRIu64 " / %" PRIu64 "\n"), c->memcpys, c->memsets);
  ks_cli_printerr (_("  CUDA API calls    %" PRIu64 "\n"), c->api_calls);
  ks_cli_printerr (_("  NVTX ranges       %" PRIu64 " (%" PRIu64 " marks)\n"), c->nvtx_ranges, c->nvtx_marks);
  if (trace & KS_RECORD_TRACE_OSRT)
    ks_cli_printerr (_("  OS runtime calls  %" PRIu64 "\n"), c->osrt_calls);
  if (trace & KS_RECORD_TRACE_GPU_METRICS)
    ks_cli_printerr (_("  GPU samples       %" PRIu64 " (%u GPUs)\n"), c->counter_samples, stats.n_gpus);
  if (stats.python_skipped > 0)
    ks_cli_printerr (_("  Python samples    %" PRIu64 " (stacks read %" PRIu64 " times; %" PRIu64
                       " times not, outside the capture range)\n"),
                     c->python_samples, stats.python_reads, stats.python_skipped);
  else if (stats.python_reads > 0)
    ks_cli_printerr (_("  Python samples    %" PRIu64 " (stacks read %" PRIu64 " times)\n"),
                     c->python_samples, stats.python_reads);
  ks_cli_printerr (_("  Dropped           %" PRIu64 "\n"), ks_record_session_get_dropped (r->session));
  if (r->write_failed)
    ks_cli_printerr (_("  Not written       %" PRIu64 " (after %.2f s)\n"), stats.unwritten, stats.written_until_s);
  {
    g_autofree char *output = ks_cli_escape (r->output);

    ks_cli_printerr (_("  Output            %s (%s)\n"), output, size);
  }

  if (conflict != NULL)
    ks_cli_printerr (_("Warning: %s\n"), conflict);
  else if ((trace & KS_RECORD_TRACE_CUDA) && c->kernels == 0 && c->api_calls == 0 && c->memcpys == 0)
    ks_cli_printerr (_("Note: no CUDA activity was recorded (the command made no CUDA calls that reached the collector)\n"));
}

/* Why @program cannot be started, with the shell's status for it (127
 * not found, 126 found but not runnable), or NULL when it can. */
static char *
command_problem (const char *program,
                 int        *status)
{
  g_autofree char *found = NULL;
  GStatBuf st;

  *status = 127;
  if (strchr (program, '/') == NULL)
    {
      found = g_find_program_in_path (program);
      return found == NULL ? g_strdup_printf (_("%s: command not found"), program) : NULL;
    }
  if (g_stat (program, &st) != 0)
    return g_strdup_printf ("%s: %s", program, g_strerror (errno));
  *status = 126;
  if (S_ISDIR (st.st_mode))
    return g_strdup_printf (_("%s: a folder, not a program"), program);
  if (!S_ISREG (st.st_mode) || g_access (program, X_OK) != 0)
    return g_strdup_printf (_("%s: not executable (no permission to run it)"), program);
  return NULL;
}

/* -o names a file, not only a folder: "" and "runs/" would make a
 * hidden ".kscope". */
static gboolean
output_names_file (const char *output)
{
  return *output != 0 && !g_str_has_suffix (output, G_DIR_SEPARATOR_S);
}

/* --progress-fd must be open for writing now: a number nothing has
 * opened would only fail once the recording runs. */
static gboolean
progress_fd_writable (int fd)
{
  int flags = fd >= 0 ? fcntl (fd, F_GETFL) : -1;

  return flags != -1 && (flags & O_ACCMODE) != O_RDONLY;
}

int
ks_cli_record (int    argc,
               char **argv)
{
  g_autofree char *output = NULL;
  g_autofree char *trace_text = NULL;
  g_autofree char *capture = NULL;
  double delay = 0;
  double duration = 0;
  int frequency = 10;
  gboolean force = FALSE;
  gboolean default_name;
  gboolean no_cuda_memory = FALSE;
  gint64 osrt_threshold = 10000;
  int progress_fd = -1;
  g_autofree char *pytorch = NULL;
  g_autofree char *pytorch_memory = NULL;
  gboolean memory_history = FALSE;
  g_autofree char *python_sampling = NULL;
  gint64 python_frequency = 1000;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, N_("Write the trace to FILE (default: reportN.kscope)"), N_("FILE") },
    { "trace", 't', 0, G_OPTION_ARG_STRING, &trace_text, N_("What to record: cuda,nvtx,osrt,gpu-metrics (default: cuda,nvtx,gpu-metrics)"), N_("LIST") },
    { "capture-range", 0, 0, G_OPTION_ARG_STRING, &capture, N_("none, cudaProfilerApi, or nvtx:NAME[@DOMAIN]"), N_("RANGE") },
    { "delay", 0, 0, G_OPTION_ARG_DOUBLE, &delay, N_("Keep only events after S seconds"), N_("S") },
    { "duration", 0, 0, G_OPTION_ARG_DOUBLE, &duration, N_("Stop recording (and the command) after S seconds"), N_("S") },
    { "gpu-metrics-frequency", 0, 0, G_OPTION_ARG_INT, &frequency, N_("NVML samples per second per GPU (1–100, default 10)"), N_("HZ") },
    { "osrt-threshold", 0, 0, G_OPTION_ARG_INT64, &osrt_threshold, N_("Record OS runtime calls lasting at least NS nanoseconds (default 10000)"), N_("NS") },
    { "no-cuda-memory", 0, 0, G_OPTION_ARG_NONE, &no_cuda_memory, N_("Do not record CUDA memory allocation events"), NULL },
    { "pytorch", 0, 0, G_OPTION_ARG_STRING, &pytorch, N_("PyTorch operators as NVTX ranges: autograd-nvtx, autograd-shapes-nvtx (with input shapes, costlier) or none (default autograd-nvtx)"), N_("MODE") },
    { "pytorch-memory", 0, 0, G_OPTION_ARG_STRING, &pytorch_memory, N_("Record PyTorch’s CUDA caching allocator: true or false (default true)"), N_("BOOL") },
    { "cuda-memory-history", 0, 0, G_OPTION_ARG_NONE, &memory_history, N_("Record PyTorch’s allocator history with Python stacks and keep its memory snapshots (at exit and at an out-of-memory error) in the file"), NULL },
    { "python-sampling", 0, 0, G_OPTION_ARG_STRING, &python_sampling, N_("Sample the Python call stacks of every thread: true or false (default true)"), N_("BOOL") },
    { "python-sampling-frequency", 0, 0, G_OPTION_ARG_INT64, &python_frequency, N_("Python stack samples per second (1–10000, default 1000)"), N_("HZ") },
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force, N_("Overwrite the output file"), NULL },
    { "progress-fd", 0, 0, G_OPTION_ARG_INT, &progress_fd, N_("Write progress as JSON lines to file descriptor FD"), N_("FD") },
    { NULL }
  };
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  KsRecordOptions options = { 0 };
  Record r = { 0 };
  char **command;
  gboolean ok;
  g_autofree char *write_error = NULL;
  guint sigint_id;
  guint sigterm_id;
  guint sighup_id;

  context = g_option_context_new (_("[--] COMMAND [ARGS…] — record a program’s GPU and CPU activity"));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  g_option_context_set_strict_posix (context, TRUE);
  g_option_context_set_summary (context,
                                _("Runs COMMAND with the Kinescope collector and writes a .kscope trace\n"
                                  "(CUDA kernels, copies, API calls, NVTX ranges, OS runtime calls and\n"
                                  "NVML GPU metrics). Exits with the command's exit status."));
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      ks_cli_printerr ("kinescope-cli record: %s\n", error->message);
      return 2;
    }

  command = argv + 1;
  if (command[0] != NULL && g_str_equal (command[0], "--"))
    command++;
  if (command[0] == NULL)
    {
      ks_cli_printerr (_("kinescope-cli record: no command given (kinescope-cli record -- COMMAND [ARGS…])\n"));
      return 2;
    }

  options.trace = KS_RECORD_TRACE_CUDA | KS_RECORD_TRACE_NVTX | KS_RECORD_TRACE_GPU_METRICS;
  if (trace_text != NULL && !parse_trace (trace_text, &options.trace, &error))
    {
      ks_cli_printerr ("kinescope-cli record: %s\n", error->message);
      return 2;
    }
  if (capture == NULL)
    capture = g_strdup ("none");
  if (!g_str_equal (capture, "none") && !g_str_equal (capture, "cudaProfilerApi")
      && !(g_str_has_prefix (capture, "nvtx:") && capture[5] != 0))
    {
      ks_cli_printerr (_("kinescope-cli record: unknown capture range “%s” (use none, cudaProfilerApi or nvtx:NAME)\n"), capture);
      return 2;
    }
  /* G_OPTION_ARG_DOUBLE takes "nan" and "inf" */
  if (!isfinite (delay) || !isfinite (duration) || duration > MAX_DURATION_S)
    {
      ks_cli_printerr (_("kinescope-cli record: --delay and --duration take a number of seconds "
                         "(--duration at most %u)\n"), MAX_DURATION_S);
      return 2;
    }
  if (output != NULL && !output_names_file (output))
    {
      ks_cli_printerr (_("kinescope-cli record: -o “%s” names no file\n"), output);
      return 2;
    }
  if (progress_fd != -1 && !progress_fd_writable (progress_fd))
    {
      ks_cli_printerr (_("kinescope-cli record: --progress-fd %d is not a file descriptor open for writing\n"),
                       progress_fd);
      return 2;
    }
  if (frequency < 1 || frequency > 100 || delay < 0 || duration < 0 || osrt_threshold < 0)
    {
      ks_cli_printerr (_("kinescope-cli record: --gpu-metrics-frequency must be 1–100; --delay, --duration and --osrt-threshold must not be negative\n"));
      return 2;
    }
  options.capture_range = capture;
  options.delay_s = delay;
  options.gpu_metrics_hz = (guint) frequency;
  options.osrt_threshold_ns = (guint64) osrt_threshold;
  options.cuda_memory = !no_cuda_memory;
  if (pytorch == NULL)
    pytorch = g_strdup (KS_PYTORCH_DEFAULT);
  if (!ks_record_pytorch_mode_is_valid (pytorch))
    {
      ks_cli_printerr (_("kinescope-cli record: unknown --pytorch “%s” (use autograd-shapes-nvtx, autograd-nvtx or none)\n"), pytorch);
      return 2;
    }
  if (!parse_bool ("--pytorch-memory", pytorch_memory, &options.pytorch_memory)
      || !parse_bool ("--python-sampling", python_sampling, &options.python_sampling))
    return 2;
  if (python_frequency < 1 || python_frequency > 10000)
    {
      ks_cli_printerr (_("kinescope-cli record: --python-sampling-frequency must be 1–10000\n"));
      return 2;
    }
  options.pytorch = pytorch;
  options.python_sampling_hz = (guint) python_frequency;
  options.cuda_memory_history = memory_history;

  default_name = output == NULL;
  if (default_name)
    output = default_output ();
  else if (!g_str_has_suffix (output, ".kscope"))
    {
      char *with_suffix = g_strconcat (output, ".kscope", NULL);

      g_free (output);
      output = with_suffix;
    }

  /* Absolute, so that the summary and the progress lines name it fully. */
  {
    char *absolute = g_canonicalize_filename (output, NULL);

    g_free (output);
    output = absolute;
  }

  {
    int status;
    g_autofree char *problem = command_problem (command[0], &status);

    if (problem != NULL)
      {
        ks_cli_printerr ("kinescope-cli record: %s\n", problem);
        return status;
      }
  }

  /* A file size limit must turn into a write error, not kill us. */
  signal (SIGXFSZ, SIG_IGN);
  signal (SIGPIPE, SIG_IGN);

  /* The output is claimed here, before the command starts: a second
   * recorder on it stops now. A default name taken meanwhile by another
   * recorder moves on to the next. */
  options.overwrite = force;
  while ((r.recorder = ks_recorder_new_for_file (output, &options, &error)) == NULL
         && default_name && g_error_matches (error, G_IO_ERROR, G_IO_ERROR_EXISTS))
    {
      g_clear_error (&error);
      g_free (output);
      output = default_output ();
    }
  if (r.recorder == NULL)
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_EXISTS))
        ks_cli_printerr (_("kinescope-cli record: “%s” already exists (use --force to overwrite it)\n"), output);
      else
        ks_cli_printerr ("kinescope-cli record: %s\n", error->message);
      return 1;
    }
  r.session = ks_recorder_get_session (r.recorder);
  if (ks_record_session_get_inject_dir (r.session) == NULL
      && (options.trace & (KS_RECORD_TRACE_CUDA | KS_RECORD_TRACE_NVTX | KS_RECORD_TRACE_OSRT)))
    ks_cli_printerr (_("kinescope-cli record: warning: libkinescope-inject.so was not found "
                        "(set KINESCOPE_INJECT_DIR); only GPU metrics are recorded\n"));

  r.output = output;
  r.command = command[0];
  r.progress_fd = progress_fd;
  r.loop = g_main_loop_new (NULL, FALSE);
  g_signal_connect (r.recorder, "notify::elapsed", G_CALLBACK (elapsed_cb), &r);
  g_signal_connect (r.recorder, "notify::write-error", G_CALLBACK (write_error_cb), &r);
  g_signal_connect (r.recorder, "finished", G_CALLBACK (finished_cb), &r);

  /* With a terminal, the command stays in our process group so that it
   * can read from it and gets Ctrl+C itself; otherwise it gets its own
   * group and the whole job is signalled at once. */
  if (!ks_recorder_spawn (r.recorder, (const char * const *) command, !isatty (STDIN_FILENO), &error))
    {
      ks_cli_printerr ("kinescope-cli record: %s: %s\n", command[0], error->message);
      g_object_unref (r.recorder);
      g_main_loop_unref (r.loop);
      return 127;
    }

  sigint_id = ks_signals_add (SIGINT, on_signal_cb, &r);
  sigterm_id = ks_signals_add (SIGTERM, on_signal_cb, &r);
  sighup_id = ks_signals_add (SIGHUP, on_signal_cb, &r);
  if (duration > 0)
    r.duration_id = g_timeout_add ((guint) (duration * 1000), duration_cb, &r);

  g_main_loop_run (r.loop);

  ks_signals_remove (sigint_id);
  ks_signals_remove (sigterm_id);
  ks_signals_remove (sighup_id);
  g_clear_handle_id (&r.duration_id, g_source_remove);

  ok = r.error == NULL;
  write_error = ks_record_session_dup_write_error (r.session);
  if (write_error != NULL && !r.write_failed)
    report_write_failure (&r, write_error);

  print_summary (&r, command[0], r.status, options.trace);
  /* finish() says when not even the reason could be written */
  if (!ok && g_strcmp0 (r.error->message, write_error) != 0)
    ks_cli_printerr ("kinescope-cli record: %s\n", r.error->message);
  if (r.progress_fd >= 0)
    {
      g_autofree char *line = ks_recorder_to_done (r.recorder, r.status, ks_recorder_get_complete (r.recorder) && ok);

      write_progress (&r, line);
    }

  g_object_unref (r.recorder);
  g_main_loop_unref (r.loop);
  g_clear_error (&r.error);
  /* the command's status, unless the trace could not be written */
  return ok ? r.status : 1;
}
