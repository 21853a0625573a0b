/* ks-recorder.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-recorder"

#include "config.h"

#include "ks-recorder.h"

#include "ks-json-writer.h"
#include "ks-signals.h"

#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef enum
{
  END_NONE,
  END_COMMAND_EXITED,
  END_INTERRUPTED,
  END_DURATION,
} EndReason;

struct _KsRecorder
{
  GObject          parent_instance;

  KsRecordSession *session;
  char            *output;
  KsRecorderState  state;
  KsRecordStats    stats;
  char            *write_error;

  GPid             pid;
  gboolean         own_group;
  gboolean         child_done;
  int              wait_status;
  EndReason        end;
  int              escalation;     /* 0: SIGINT sent, 1: SIGTERM sent, 2: SIGKILL sent */
  guint            escalate_id;
  guint            tick_id;
  gboolean         complete;
  const char      *end_reason;

  /* the Python side's options (KsRecordOptions) */
  char            *pytorch;
  gboolean         pytorch_memory;
  gboolean         python_sampling;
  guint            python_sampling_frequency;
};

G_DEFINE_ENUM_TYPE (KsRecorderState, ks_recorder_state,
                    G_DEFINE_ENUM_VALUE (KS_RECORDER_STATE_IDLE, "idle"),
                    G_DEFINE_ENUM_VALUE (KS_RECORDER_STATE_RECORDING, "recording"),
                    G_DEFINE_ENUM_VALUE (KS_RECORDER_STATE_STOPPING, "stopping"),
                    G_DEFINE_ENUM_VALUE (KS_RECORDER_STATE_FINISHED, "finished"),
                    G_DEFINE_ENUM_VALUE (KS_RECORDER_STATE_FAILED, "failed"))

G_DEFINE_FINAL_TYPE (KsRecorder, ks_recorder, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_STATE,
  PROP_ELAPSED,
  PROP_OUTPUT,
  PROP_EVENTS,
  PROP_PROCESSES,
  PROP_CUDA_PROCESSES,
  PROP_KERNELS,
  PROP_API_CALLS,
  PROP_NVTX_RANGES,
  PROP_SAMPLES,
  PROP_DROPPED,
  PROP_GPUS,
  PROP_WRITE_ERROR,
  PROP_PYTORCH,
  PROP_PYTORCH_MEMORY,
  PROP_PYTHON_SAMPLING,
  PROP_PYTHON_SAMPLING_FREQUENCY,
  N_PROPS
};

enum
{
  FINISHED,
  N_SIGNALS
};

static GParamSpec *properties[N_PROPS];
static guint signals[N_SIGNALS];

static void
set_state (KsRecorder      *self,
           KsRecorderState  state)
{
  if (self->state == state)
    return;
  self->state = state;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATE]);
}

static gboolean
same_gpus (const KsRecordStats *a,
           const KsRecordStats *b)
{
  if (a->n_gpus != b->n_gpus)
    return FALSE;
  for (guint i = 0; i < a->n_gpus; i++)
    if (strcmp (a->gpus[i].name, b->gpus[i].name) != 0 || a->gpus[i].utilization != b->gpus[i].utilization
        || a->gpus[i].memory_used != b->gpus[i].memory_used || a->gpus[i].memory_total != b->gpus[i].memory_total)
      return FALSE;
  return TRUE;
}

/* Takes @stats, notifying what changed (once each, after all are set). */
static void
set_stats (KsRecorder          *self,
           const KsRecordStats *stats)
{
  KsRecordStats old = self->stats;

  self->stats = *stats;
  g_object_freeze_notify (G_OBJECT (self));
#define NOTIFY_IF_CHANGED(field, prop) \
  if (old.field != stats->field) g_object_notify_by_pspec (G_OBJECT (self), properties[prop])
  NOTIFY_IF_CHANGED (elapsed_s, PROP_ELAPSED);
  NOTIFY_IF_CHANGED (events, PROP_EVENTS);
  NOTIFY_IF_CHANGED (processes, PROP_PROCESSES);
  NOTIFY_IF_CHANGED (cuda_processes, PROP_CUDA_PROCESSES);
  NOTIFY_IF_CHANGED (kernels, PROP_KERNELS);
  NOTIFY_IF_CHANGED (api_calls, PROP_API_CALLS);
  NOTIFY_IF_CHANGED (nvtx_ranges, PROP_NVTX_RANGES);
  NOTIFY_IF_CHANGED (samples, PROP_SAMPLES);
  NOTIFY_IF_CHANGED (dropped, PROP_DROPPED);
#undef NOTIFY_IF_CHANGED
  if (!same_gpus (&old, stats))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_GPUS]);
  g_object_thaw_notify (G_OBJECT (self));
}

static void
refresh (KsRecorder *self)
{
  KsRecordStats stats;

  ks_record_session_get_stats (self->session, &stats);
  set_stats (self, &stats);
  if (self->write_error == NULL)
    {
      self->write_error = ks_record_session_dup_write_error (self->session);
      if (self->write_error != NULL)
        g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_WRITE_ERROR]);
    }
}

static gboolean
tick_cb (gpointer data)
{
  KsRecorder *self = data;

  ks_record_session_scan_processes (self->session);
  refresh (self);
  return G_SOURCE_CONTINUE;
}

static void
signal_command (KsRecorder *self,
                int         signo)
{
  if (self->child_done || self->pid <= 0)
    return;
  /* The whole job: DataLoader workers and torchrun ranks too. */
  if (self->own_group)
    kill (-self->pid, signo);
  else
    kill (self->pid, signo);
}

static gboolean
escalate_cb (gpointer data)
{
  KsRecorder *self = data;

  if (self->child_done)
    {
      self->escalate_id = 0;
      return G_SOURCE_REMOVE;
    }
  self->escalation++;
  signal_command (self, self->escalation == 1 ? SIGTERM : SIGKILL);
  if (self->escalation >= 2)
    {
      self->escalate_id = 0;
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

void
ks_recorder_stop (KsRecorder     *self,
                  KsRecorderStop  reason)
{
  g_return_if_fail (KS_IS_RECORDER (self));

  if (self->session == NULL || self->child_done)
    return;
  if (self->end != END_NONE)
    {
      /* A second Ctrl+C: do not wait any longer. */
      if (reason == KS_RECORDER_STOP_INTERRUPTED)
        signal_command (self, SIGKILL);
      return;
    }
  self->end = reason == KS_RECORDER_STOP_DURATION ? END_DURATION : END_INTERRUPTED;
  set_state (self, KS_RECORDER_STATE_STOPPING);
  /* SIGINT first: Python turns it into KeyboardInterrupt and runs its
   * exit handlers, which flush the collector. */
  signal_command (self, SIGINT);
  self->escalate_id = g_timeout_add_seconds (3, escalate_cb, self);
}

static int
exit_status (int wait_status)
{
  if (WIFEXITED (wait_status))
    return WEXITSTATUS (wait_status);
  if (WIFSIGNALED (wait_status))
    return 128 + WTERMSIG (wait_status);
  return 1;
}

static void
child_exited_cb (GPid     pid,
                 int      wait_status,
                 gpointer data)
{
  g_autoptr(KsRecorder) self = g_object_ref (data);
  g_autoptr(GError) error = NULL;
  gboolean ok;

  self->child_done = TRUE;
  self->wait_status = wait_status;
  if (self->end == END_NONE)
    self->end = END_COMMAND_EXITED;
  g_spawn_close_pid (pid);
  g_clear_handle_id (&self->tick_id, g_source_remove);
  g_clear_handle_id (&self->escalate_id, g_source_remove);

  /* Cut short: the command was killed or crashed, or we were stopped. */
  self->complete = self->end == END_DURATION || (self->end == END_COMMAND_EXITED && !WIFSIGNALED (wait_status));
  switch (self->end)
    {
    case END_INTERRUPTED: self->end_reason = "interrupted"; break;
    case END_DURATION: self->end_reason = "duration"; break;
    case END_NONE:
    case END_COMMAND_EXITED:
    default:
      self->end_reason = WIFSIGNALED (wait_status) ? "command-killed" : "command-exited";
      break;
    }

  /* Processes of the job may still be sending their last buffers. When
   * writing stopped (perhaps only now), the file is still a recording:
   * what came before, marked as cut short there. */
  ok = ks_record_session_finish (self->session, 3000, self->complete, self->end_reason, &error);
  set_state (self, ok ? KS_RECORDER_STATE_FINISHED : KS_RECORDER_STATE_FAILED);
  /* the final counts, and a write error found only now */
  refresh (self);
  g_signal_emit (self, signals[FINISHED], 0, exit_status (wait_status), ok ? NULL : error);
}

static void
child_setup (gpointer data)
{
  if (GPOINTER_TO_INT (data))
    setpgid (0, 0);
  signal (SIGXFSZ, SIG_DFL);
  /* our process keeps them blocked for its signal thread; the command
   * starts as from a shell, so that Ctrl+C reaches it */
  ks_signals_child_setup (NULL);
}

gboolean
ks_recorder_spawn (KsRecorder          *self,
                   const char * const  *argv,
                   gboolean             own_group,
                   GError             **error)
{
  g_auto(GStrv) env = NULL;

  g_return_val_if_fail (KS_IS_RECORDER (self), FALSE);
  g_return_val_if_fail (self->session != NULL && self->pid == 0, FALSE);

  self->own_group = own_group;
  env = ks_record_session_build_environ (self->session, g_get_environ ());
  if (!g_spawn_async (NULL, (char **) argv, env,
                      G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_SEARCH_PATH_FROM_ENVP | G_SPAWN_CHILD_INHERITS_STDIN,
                      child_setup, GINT_TO_POINTER (own_group), &self->pid, error))
    {
      g_autoptr(GError) ignored = NULL;

      self->pid = 0;
      ks_record_session_finish (self->session, 0, FALSE, "spawn-failed", &ignored);
      ks_record_session_remove_output (self->session);
      set_state (self, KS_RECORDER_STATE_FAILED);
      return FALSE;
    }

  ks_record_session_set_command (self->session, self->pid, argv);
  ks_record_session_start (self->session);
  g_child_watch_add_full (G_PRIORITY_DEFAULT, self->pid, child_exited_cb, g_object_ref (self), g_object_unref);
  self->tick_id = g_timeout_add (500, tick_cb, self);
  set_state (self, KS_RECORDER_STATE_RECORDING);
  return TRUE;
}

void
ks_recorder_set_finished (KsRecorder   *self,
                          int           status,
                          const GError *error)
{
  g_return_if_fail (KS_IS_RECORDER (self));

  set_state (self, error == NULL && self->output != NULL ? KS_RECORDER_STATE_FINISHED : KS_RECORDER_STATE_FAILED);
  g_signal_emit (self, signals[FINISHED], 0, status, error);
}

/* Progress lines */

char *
ks_recorder_to_progress (KsRecorder *self)
{
  g_autoptr(KsJsonWriter) json = ks_json_writer_new ();
  const KsRecordStats *s = &self->stats;

  ks_json_begin_object (json, NULL);
  ks_json_string (json, "state", self->state == KS_RECORDER_STATE_STOPPING ? "stopping" : "recording");
  ks_json_double (json, "elapsed", s->elapsed_s, 3);
  ks_json_int (json, "events", s->events);
  ks_json_int (json, "processes", s->processes);
  ks_json_int (json, "cuda_processes", s->cuda_processes);
  ks_json_int (json, "kernels", s->kernels);
  ks_json_int (json, "api_calls", s->api_calls);
  ks_json_int (json, "nvtx_ranges", s->nvtx_ranges);
  ks_json_int (json, "samples", s->samples);
  ks_json_int (json, "dropped", s->dropped);
  ks_json_begin_array (json, "gpus");
  for (guint i = 0; i < s->n_gpus; i++)
    {
      ks_json_begin_object (json, NULL);
      ks_json_int (json, "index", i);
      ks_json_string (json, "name", s->gpus[i].name);
      ks_json_int (json, "utilization", s->gpus[i].utilization);
      ks_json_int (json, "memory_used", s->gpus[i].memory_used);
      ks_json_int (json, "memory_total", s->gpus[i].memory_total);
      ks_json_end_object (json);
    }
  ks_json_end_array (json);
  ks_json_end_object (json);
  return g_strconcat (ks_json_writer_get_text (json), "\n", NULL);
}

char *
ks_recorder_to_done (KsRecorder *self,
                     int         status,
                     gboolean    complete)
{
  g_autoptr(KsJsonWriter) json = ks_json_writer_new ();

  ks_json_begin_object (json, NULL);
  ks_json_string (json, "state", "done");
  ks_json_string (json, "output", self->output);
  ks_json_int (json, "exit_status", status);
  ks_json_bool (json, "complete", complete);
  ks_json_end_object (json);
  return g_strconcat (ks_json_writer_get_text (json), "\n", NULL);
}

gboolean
ks_recorder_apply_progress (KsRecorder *self,
                            const char *line)
{
  yajl_val root;
  const char *state;
  yajl_val gpus;
  KsRecordStats stats;

  g_return_val_if_fail (KS_IS_RECORDER (self), FALSE);

  /* A line that is not a JSON object with a state is not ours. */
  root = ks_json_parse (line, NULL);
  state = ks_json_get_string (root, "state");
  if (state == NULL)
    {
      yajl_tree_free (root);
      return FALSE;
    }

  if (g_str_equal (state, "done"))
    {
      const char *output = ks_json_get_string (root, "output");

      if (g_strcmp0 (output, self->output) != 0)
        {
          g_free (self->output);
          self->output = g_strdup (output);
          g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_OUTPUT]);
        }
      yajl_tree_free (root);
      return TRUE;
    }

  if (!g_str_equal (state, "recording") && !g_str_equal (state, "stopping"))
    {
      yajl_tree_free (root);
      return FALSE;
    }

  stats = self->stats;
  stats.elapsed_s = ks_json_get_double (root, "elapsed", stats.elapsed_s);
  stats.events = (guint64) ks_json_get_int (root, "events", 0);
  stats.processes = (guint) ks_json_get_int (root, "processes", 0);
  stats.cuda_processes = (guint) ks_json_get_int (root, "cuda_processes", 0);
  stats.kernels = (guint64) ks_json_get_int (root, "kernels", 0);
  stats.api_calls = (guint64) ks_json_get_int (root, "api_calls", 0);
  stats.nvtx_ranges = (guint64) ks_json_get_int (root, "nvtx_ranges", 0);
  stats.samples = (guint64) ks_json_get_int (root, "samples", 0);
  stats.dropped = (guint64) ks_json_get_int (root, "dropped", 0);
  gpus = ks_json_get_array (root, "gpus");
  stats.n_gpus = 0;
  for (guint i = 0; gpus != NULL && i < YAJL_GET_ARRAY (gpus)->len && i < G_N_ELEMENTS (stats.gpus); i++)
    {
      yajl_val gpu = YAJL_GET_ARRAY (gpus)->values[i];
      const char *name = ks_json_get_string (gpu, "name");

      g_strlcpy (stats.gpus[i].name, name != NULL ? name : "", sizeof stats.gpus[i].name);
      stats.gpus[i].utilization = (gint) ks_json_get_int (gpu, "utilization", -1);
      stats.gpus[i].memory_used = ks_json_get_int (gpu, "memory_used", -1);
      stats.gpus[i].memory_total = ks_json_get_int (gpu, "memory_total", -1);
      stats.n_gpus = i + 1;
    }
  set_stats (self, &stats);
  if (self->state == KS_RECORDER_STATE_IDLE)
    set_state (self, KS_RECORDER_STATE_RECORDING);
  yajl_tree_free (root);
  return TRUE;
}

/* GObject */

static GVariant *
gpus_variant (KsRecorder *self)
{
  GVariantBuilder b;

  g_variant_builder_init (&b, G_VARIANT_TYPE ("a(sixx)"));
  for (guint i = 0; i < self->stats.n_gpus; i++)
    g_variant_builder_add (&b, "(sixx)", self->stats.gpus[i].name, self->stats.gpus[i].utilization,
                           (gint64) self->stats.gpus[i].memory_used, (gint64) self->stats.gpus[i].memory_total);
  return g_variant_builder_end (&b);
}

static void
ks_recorder_get_property (GObject    *object,
                          guint       prop_id,
                          GValue     *value,
                          GParamSpec *pspec)
{
  KsRecorder *self = KS_RECORDER (object);

  switch (prop_id)
    {
    case PROP_STATE: g_value_set_enum (value, self->state); break;
    case PROP_ELAPSED: g_value_set_double (value, self->stats.elapsed_s); break;
    case PROP_OUTPUT: g_value_set_string (value, self->output); break;
    case PROP_EVENTS: g_value_set_uint64 (value, self->stats.events); break;
    case PROP_PROCESSES: g_value_set_uint (value, self->stats.processes); break;
    case PROP_CUDA_PROCESSES: g_value_set_uint (value, self->stats.cuda_processes); break;
    case PROP_KERNELS: g_value_set_uint64 (value, self->stats.kernels); break;
    case PROP_API_CALLS: g_value_set_uint64 (value, self->stats.api_calls); break;
    case PROP_NVTX_RANGES: g_value_set_uint64 (value, self->stats.nvtx_ranges); break;
    case PROP_SAMPLES: g_value_set_uint64 (value, self->stats.samples); break;
    case PROP_DROPPED: g_value_set_uint64 (value, self->stats.dropped); break;
    case PROP_GPUS: g_value_set_variant (value, gpus_variant (self)); break;
    case PROP_WRITE_ERROR: g_value_set_string (value, self->write_error); break;
    case PROP_PYTORCH: g_value_set_string (value, self->pytorch); break;
    case PROP_PYTORCH_MEMORY: g_value_set_boolean (value, self->pytorch_memory); break;
    case PROP_PYTHON_SAMPLING: g_value_set_boolean (value, self->python_sampling); break;
    case PROP_PYTHON_SAMPLING_FREQUENCY: g_value_set_uint (value, self->python_sampling_frequency); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_recorder_set_property (GObject      *object,
                          guint         prop_id,
                          const GValue *value,
                          GParamSpec   *pspec)
{
  KsRecorder *self = KS_RECORDER (object);

  switch (prop_id)
    {
    case PROP_PYTORCH:
      {
        const char *mode = g_value_get_string (value);

        if (mode == NULL)
          mode = KS_PYTORCH_DEFAULT;
        g_return_if_fail (ks_record_pytorch_mode_is_valid (mode));
        if (g_strcmp0 (self->pytorch, mode) != 0)
          {
            g_free (self->pytorch);
            self->pytorch = g_strdup (mode);
            g_object_notify_by_pspec (object, pspec);
          }
      }
      break;
    case PROP_PYTORCH_MEMORY:
      if (self->pytorch_memory != g_value_get_boolean (value))
        {
          self->pytorch_memory = g_value_get_boolean (value);
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    case PROP_PYTHON_SAMPLING:
      if (self->python_sampling != g_value_get_boolean (value))
        {
          self->python_sampling = g_value_get_boolean (value);
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    case PROP_PYTHON_SAMPLING_FREQUENCY:
      if (self->python_sampling_frequency != g_value_get_uint (value))
        {
          self->python_sampling_frequency = g_value_get_uint (value);
          g_object_notify_by_pspec (object, pspec);
        }
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_recorder_dispose (GObject *object)
{
  KsRecorder *self = KS_RECORDER (object);

  g_clear_handle_id (&self->tick_id, g_source_remove);
  g_clear_handle_id (&self->escalate_id, g_source_remove);
  G_OBJECT_CLASS (ks_recorder_parent_class)->dispose (object);
}

static void
ks_recorder_finalize (GObject *object)
{
  KsRecorder *self = KS_RECORDER (object);

  g_clear_pointer (&self->session, ks_record_session_free);
  g_free (self->output);
  g_free (self->write_error);
  g_free (self->pytorch);
  G_OBJECT_CLASS (ks_recorder_parent_class)->finalize (object);
}

static void
ks_recorder_class_init (KsRecorderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GParamFlags flags = G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS;

  object_class->get_property = ks_recorder_get_property;
  object_class->set_property = ks_recorder_set_property;
  object_class->dispose = ks_recorder_dispose;
  object_class->finalize = ks_recorder_finalize;

  properties[PROP_STATE] = g_param_spec_enum ("state", NULL, NULL, KS_TYPE_RECORDER_STATE,
                                              KS_RECORDER_STATE_IDLE, flags);
  properties[PROP_ELAPSED] = g_param_spec_double ("elapsed", NULL, NULL, 0, G_MAXDOUBLE, 0, flags);
  properties[PROP_OUTPUT] = g_param_spec_string ("output", NULL, NULL, NULL, flags);
  properties[PROP_EVENTS] = g_param_spec_uint64 ("events", NULL, NULL, 0, G_MAXUINT64, 0, flags);
  properties[PROP_PROCESSES] = g_param_spec_uint ("processes", NULL, NULL, 0, G_MAXUINT, 0, flags);
  properties[PROP_CUDA_PROCESSES] = g_param_spec_uint ("cuda-processes", NULL, NULL, 0, G_MAXUINT, 0, flags);
  properties[PROP_KERNELS] = g_param_spec_uint64 ("kernels", NULL, NULL, 0, G_MAXUINT64, 0, flags);
  properties[PROP_API_CALLS] = g_param_spec_uint64 ("api-calls", NULL, NULL, 0, G_MAXUINT64, 0, flags);
  properties[PROP_NVTX_RANGES] = g_param_spec_uint64 ("nvtx-ranges", NULL, NULL, 0, G_MAXUINT64, 0, flags);
  properties[PROP_SAMPLES] = g_param_spec_uint64 ("samples", NULL, NULL, 0, G_MAXUINT64, 0, flags);
  properties[PROP_DROPPED] = g_param_spec_uint64 ("dropped", NULL, NULL, 0, G_MAXUINT64, 0, flags);
  /* per GPU: name, utilization % (-1 unknown), memory used and total */
  properties[PROP_GPUS] = g_param_spec_variant ("gpus", NULL, NULL, G_VARIANT_TYPE ("a(sixx)"), NULL, flags);
  /* why writing stopped (a full disk); the command runs on unrecorded */
  properties[PROP_WRITE_ERROR] = g_param_spec_string ("write-error", NULL, NULL, NULL, flags);
  /* The Python side's options (kinescope-cli record --pytorch,
   * --pytorch-memory, --python-sampling, --python-sampling-frequency):
   * what the session was started with (new_for_file()), or what a
   * recording shown from progress lines is to be started with. */
  properties[PROP_PYTORCH] = g_param_spec_string ("pytorch", NULL, NULL, KS_PYTORCH_DEFAULT,
                                                  G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_PYTORCH_MEMORY] = g_param_spec_boolean ("pytorch-memory", NULL, NULL, TRUE,
                                                          G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_PYTHON_SAMPLING] = g_param_spec_boolean ("python-sampling", NULL, NULL, TRUE,
                                                           G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_PYTHON_SAMPLING_FREQUENCY] = g_param_spec_uint ("python-sampling-frequency", NULL, NULL, 1, 10000, 1000,
                                                                  G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * KsRecorder::finished:
   * @exit_status: the command's (128 + signal when it was killed)
   * @error: (nullable): why no complete trace was written
   */
  signals[FINISHED] = g_signal_new ("finished", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                    NULL, NULL, NULL, G_TYPE_NONE, 2, G_TYPE_INT, G_TYPE_ERROR);
}

static void
ks_recorder_init (KsRecorder *self)
{
  for (guint i = 0; i < G_N_ELEMENTS (self->stats.gpus); i++)
    self->stats.gpus[i].utilization = -1;
  self->pytorch = g_strdup (KS_PYTORCH_DEFAULT);
  self->pytorch_memory = TRUE;
  self->python_sampling = TRUE;
  self->python_sampling_frequency = 1000;
}

KsRecorder *
ks_recorder_new (void)
{
  return g_object_new (KS_TYPE_RECORDER, NULL);
}

KsRecorder *
ks_recorder_new_for_file (const char             *output,
                          const KsRecordOptions  *options,
                          GError                **error)
{
  KsRecordSession *session = ks_record_session_new (output, options, error);
  KsRecorder *self;

  if (session == NULL)
    return NULL;
  self = ks_recorder_new ();
  self->session = session;
  self->output = g_strdup (output);
  g_free (self->pytorch);
  self->pytorch = g_strdup (options->pytorch != NULL ? options->pytorch : KS_PYTORCH_DEFAULT);
  self->pytorch_memory = options->pytorch_memory;
  self->python_sampling = options->python_sampling;
  self->python_sampling_frequency = options->python_sampling_hz ? options->python_sampling_hz : 1000;
  return self;
}

KsRecorderState
ks_recorder_get_state (KsRecorder *self)
{
  g_return_val_if_fail (KS_IS_RECORDER (self), KS_RECORDER_STATE_IDLE);
  return self->state;
}

double
ks_recorder_get_elapsed (KsRecorder *self)
{
  g_return_val_if_fail (KS_IS_RECORDER (self), 0);
  return self->stats.elapsed_s;
}

const char *
ks_recorder_get_output (KsRecorder *self)
{
  g_return_val_if_fail (KS_IS_RECORDER (self), NULL);
  return self->output;
}

KsRecordSession *
ks_recorder_get_session (KsRecorder *self)
{
  g_return_val_if_fail (KS_IS_RECORDER (self), NULL);
  return self->session;
}

void
ks_recorder_get_stats (KsRecorder    *self,
                       KsRecordStats *stats)
{
  g_return_if_fail (KS_IS_RECORDER (self));
  *stats = self->stats;
}

gboolean
ks_recorder_get_complete (KsRecorder *self)
{
  g_return_val_if_fail (KS_IS_RECORDER (self), FALSE);
  return self->complete;
}

const char *
ks_recorder_get_end_reason (KsRecorder *self)
{
  g_return_val_if_fail (KS_IS_RECORDER (self), NULL);
  return self->end_reason;
}
