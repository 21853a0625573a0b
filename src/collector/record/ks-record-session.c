/* ks-record-session.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define _GNU_SOURCE
#define G_LOG_DOMAIN "ks-record-session"

#include "config.h"

#include "ks-record-private.h"

#include "ks-kscope-schema.h"
#include "ks-paths.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *
find_inject_dir (void)
{
  static gsize once;
  static char *built_dir;
  const char *env = g_getenv ("KINESCOPE_INJECT_DIR");
  g_autofree char *installed = NULL;

  if (env != NULL && *env)
    return env;

  /* Run from the build tree: the library built beside us, not an
   * installed one of another version. */
  if (g_once_init_enter (&once))
    {
      g_autofree char *built = ks_paths_find_built ("src", "collector", "inject",
                                                    "libkinescope-inject.so", NULL);

      if (built != NULL)
        built_dir = g_path_get_dirname (built);
      g_once_init_leave (&once, 1);
    }
  if (built_dir != NULL)
    return built_dir;

  installed = g_build_filename (PKGLIBDIR, "libkinescope-inject.so", NULL);
  if (g_file_test (installed, G_FILE_TEST_EXISTS))
    return PKGLIBDIR;
  /* Set by the Flatpak'ed window: the sandbox's copy, seen from the host,
   * for a host kinescope-cli built without the CUDA toolkit. */
  env = g_getenv ("KINESCOPE_INJECT_FALLBACK_DIR");
  if (env != NULL && *env)
    return env;
  return NULL;
}

guint64
ks_record_now_mono (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * G_GUINT64_CONSTANT (1000000000) + (guint64) ts.tv_nsec;
}

static gint64
now_utc_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_REALTIME, &ts);
  return (gint64) ts.tv_sec * G_GINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

/* 0 once @fd holds the claim, EAGAIN when another recording does, or an
 * errno. Read-only, it takes a shared lock: enough to learn that nobody
 * writes the file. */
static int
lock_output (int      fd,
             gboolean writable)
{
  struct flock fl = { .l_type = writable ? F_WRLCK : F_RDLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };

  if (fcntl (fd, F_OFD_SETLK, &fl) == 0)
    return 0;
  /* before Linux 3.15: a process lock, which SQLite's close() of the
   * file would drop, but it closes it only when we are done */
  if (errno == EINVAL && fcntl (fd, F_SETLK, &fl) == 0)
    return 0;
  /* a file system without locks: O_EXCL alone guards the file */
  if (errno == ENOLCK || errno == EOPNOTSUPP || errno == ENOSYS)
    return 0;
  return errno == EACCES ? EAGAIN : errno;
}

static gboolean
output_in_use (int fd)
{
  struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 1 };

  if (fcntl (fd, F_OFD_GETLK, &fl) != 0 && (errno != EINVAL || fcntl (fd, F_GETLK, &fl) != 0))
    return FALSE;
  return fl.l_type != F_UNLCK;
}

static gboolean
same_file (int         fd,
           const char *path)
{
  GStatBuf a;
  GStatBuf b;

  return fstat (fd, &a) == 0 && g_stat (path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static void
remove_sidecars (const char *path)
{
  static const char * const suffixes[] = { "-journal", "-wal", "-shm" };

  for (guint i = 0; i < G_N_ELEMENTS (suffixes); i++)
    {
      g_autofree char *sidecar = g_strconcat (path, suffixes[i], NULL);

      g_unlink (sidecar);
    }
}

/* One recording per file: claims @path before anything starts, with a
 * lock on its first byte held until the session is freed. It is an
 * open-file-description lock, which SQLite's own locks and closes in this
 * process leave alone; SQLite locks bytes from 1 GiB on, so readers of
 * the file are not in the way either. A new file is created with O_EXCL;
 * one that exists is replaced only with @overwrite and only when nobody
 * holds its lock, by removing it and creating it anew, so that two
 * recorders never write one file. Returns the locked descriptor, or -1. */
static int
claim_output (const char  *path,
              gboolean     overwrite,
              GError     **error)
{
  for (guint attempt = 0; attempt < 8; attempt++)
    {
      int fd = open (path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      gboolean created = fd >= 0;
      gboolean writable = TRUE;
      int err;

      if (fd < 0 && errno == EEXIST)
        {
          fd = open (path, O_RDWR | O_CLOEXEC);
          if (fd < 0 && errno == EACCES)
            {
              writable = FALSE;
              fd = open (path, O_RDONLY | O_CLOEXEC);
            }
          /* removed meanwhile, or a link to nothing: O_EXCL refuses
           * to create through it, so it would look busy for ever */
          if (fd < 0 && errno == ENOENT)
            {
              GStatBuf st;

              if (g_lstat (path, &st) != 0 || !S_ISLNK (st.st_mode))
                continue;
              if (!overwrite)
                {
                  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                               _("“%s” is a symbolic link to a file that does not exist; a recording is "
                                 "never written through a link"), path);
                  return -1;
                }
              if (g_unlink (path) != 0 && errno != ENOENT)
                {
                  err = errno;
                  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (err),
                               _("Could not remove “%s”: %s"), path, g_strerror (err));
                  return -1;
                }
              continue;
            }
        }
      if (fd < 0)
        {
          err = errno;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (err),
                       _("Could not create “%s”: %s"), path, g_strerror (err));
          return -1;
        }

      /* Only looking: a lock taken here could stop a recorder that has
       * just created the file and is about to lock it. */
      if (!created && !overwrite)
        {
          gboolean busy = output_in_use (fd);

          close (fd);
          if (busy)
            break;
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS, _("“%s” already exists"), path);
          return -1;
        }

      err = lock_output (fd, writable);
      if (err == 0 && !same_file (fd, path))
        {
          /* replaced between open and lock: look again */
          close (fd);
          continue;
        }
      if (err == 0 && created)
        return fd;
      close (fd);
      if (err == EAGAIN)
        break;
      if (err != 0)
        {
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (err),
                       _("Could not create “%s”: %s"), path, g_strerror (err));
          return -1;
        }
      /* Nobody records into it: replace it, with what SQLite kept beside it. */
      if (g_unlink (path) != 0 && errno != ENOENT)
        {
          err = errno;
          g_set_error (error, G_IO_ERROR, g_io_error_from_errno (err),
                       _("Could not remove “%s”: %s"), path, g_strerror (err));
          return -1;
        }
      remove_sidecars (path);
    }

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_BUSY, _("“%s” is being written by another recording"), path);
  return -1;
}

KsRecordSession *
ks_record_session_new (const char             *output_path,
                       const KsRecordOptions  *options,
                       GError                **error)
{
  KsRecordSession *self;
  g_autoptr(GError) local_error = NULL;
  const char *inject_dir;

  self = g_new0 (KsRecordSession, 1);
  self->options = *options;
  self->options.capture_range = g_strdup (options->capture_range ? options->capture_range : "none");
  self->options.pytorch = g_strdup (options->pytorch ? options->pytorch : KS_PYTORCH_DEFAULT);
  if (self->options.python_sampling_hz == 0)
    self->options.python_sampling_hz = 1000;
  self->output_path = g_strdup (output_path);
  self->listen_fd = -1;
  self->claim_fd = -1;
  self->wake_pipe[0] = self->wake_pipe[1] = -1;
  g_mutex_init (&self->mutex);
  g_cond_init (&self->cond);
  self->samples = g_async_queue_new_full (g_free);
  self->seen_processes = g_async_queue_new_full (ks_record_seen_process_free);
  self->scanned = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  self->connections = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_record_connection_free);
  self->detached = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_record_connection_free);
  self->processes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  self->gpu_counters = g_array_new (FALSE, TRUE, sizeof (guint32));
  self->cupti_gpus = g_ptr_array_new ();
  self->gpu_uuids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->next_domain = 1;
  self->py_sampler = ks_record_py_sampler_new (self);

  inject_dir = find_inject_dir ();
  self->inject_dir = g_strdup (inject_dir);
  if (inject_dir != NULL)
    self->python_dir = ks_paths_find_python_dir (inject_dir);

  self->claim_fd = claim_output (output_path, options->overwrite, error);
  if (self->claim_fd < 0)
    goto fail;

  if (!ks_record_server_listen (self, error))
    goto fail;

  self->start_mono = ks_record_now_mono ();
  self->filter_from = self->start_mono + (guint64) (options->delay_s * 1e9);
  self->writer = ks_record_writer_new (output_path, self->start_mono, now_utc_ns (), error);
  if (self->writer == NULL)
    goto fail;

  if (options->trace & KS_RECORD_TRACE_GPU_METRICS)
    {
      self->nvml = ks_nvml_open (&local_error);
      if (self->nvml == NULL)
        ks_record_writer_add_diagnostic (self->writer, self->start_mono, "warning", "nvml",
                                         local_error->message);
    }

  return self;

fail:
  /* ours, and empty */
  if (self->claim_fd >= 0)
    ks_record_session_remove_output (self);
  ks_record_session_free (self);
  return NULL;
}

void
ks_record_session_remove_output (KsRecordSession *self)
{
  g_unlink (self->output_path);
  remove_sidecars (self->output_path);
}

const char *
ks_record_session_get_inject_dir (KsRecordSession *self)
{
  return self->inject_dir;
}

static char **
prepend_path (char       **env,
              const char  *var,
              const char  *path)
{
  const char *old = g_environ_getenv (env, var);
  g_autofree char *value = NULL;

  if (old != NULL && *old)
    value = g_strconcat (path, ":", old, NULL);
  else
    value = g_strdup (path);
  return g_environ_setenv (env, var, value, TRUE);
}

char **
ks_record_session_build_environ (KsRecordSession  *self,
                                 char            **env)
{
  KsRecordTrace t = self->options.trace;
  g_autoptr(GString) trace = g_string_new (NULL);
  g_autofree char *inject = NULL;
  g_autofree char *osrt = NULL;
  g_autofree char *threshold = NULL;
  g_autofree char *python = NULL;

  env = g_environ_setenv (env, KS_ENV_SOCKET, self->socket_path, TRUE);
  if (t & KS_RECORD_TRACE_CUDA)
    g_string_append (trace, "cuda,");
  if (t & KS_RECORD_TRACE_NVTX)
    g_string_append (trace, "nvtx,");
  if (t & KS_RECORD_TRACE_OSRT)
    g_string_append (trace, "osrt,");
  if (trace->len > 0)
    g_string_truncate (trace, trace->len - 1);
  env = g_environ_setenv (env, KS_ENV_TRACE, trace->str, TRUE);
  env = g_environ_setenv (env, KS_ENV_CAPTURE, self->options.capture_range, TRUE);
  env = g_environ_setenv (env, KS_ENV_CUDA_MEMORY, self->options.cuda_memory ? "1" : "0", TRUE);
  threshold = g_strdup_printf ("%" G_GUINT64_FORMAT, self->options.osrt_threshold_ns);
  env = g_environ_setenv (env, KS_ENV_OSRT_THRESHOLD, threshold, TRUE);

  if (self->inject_dir == NULL)
    return env;

  inject = g_build_filename (self->inject_dir, "libkinescope-inject.so", NULL);
  osrt = g_build_filename (self->inject_dir, "libkinescope-osrt.so", NULL);
  if (t & KS_RECORD_TRACE_CUDA)
    env = g_environ_setenv (env, "CUDA_INJECTION64_PATH", inject, TRUE);
  if (t & KS_RECORD_TRACE_NVTX)
    env = g_environ_setenv (env, "NVTX_INJECTION64_PATH", inject, TRUE);
  /* Preloaded so that a second CUPTI client in the program is noticed
   * the moment it subscribes (see ks-inject-cupti.c). */
  if (t & KS_RECORD_TRACE_OSRT)
    env = prepend_path (env, "LD_PRELOAD", osrt);
  if (t & KS_RECORD_TRACE_CUDA)
    env = prepend_path (env, "LD_PRELOAD", inject);

  /* The Python side: our sitecustomize first on the path (it takes
   * itself off again and runs the program's own), and the library it
   * reports through, by the same path as above, so that ctypes gets the
   * copy CUDA or NVTX loaded. */
  python = ks_record_options_to_python (&self->options);
  if (python != NULL && self->python_dir != NULL)
    {
      env = prepend_path (env, "PYTHONPATH", self->python_dir);
      env = g_environ_setenv (env, KS_ENV_PYTHON, python, TRUE);
      env = g_environ_setenv (env, KS_ENV_INJECT_LIBRARY, inject, TRUE);
    }
  return env;
}

gboolean
ks_record_pytorch_mode_is_valid (const char *value)
{
  return g_strcmp0 (value, "autograd-shapes-nvtx") == 0 || g_strcmp0 (value, "autograd-nvtx") == 0
         || g_strcmp0 (value, "none") == 0;
}

char *
ks_record_options_to_python (const KsRecordOptions *options)
{
  const char *pytorch = options->pytorch != NULL ? options->pytorch : KS_PYTORCH_DEFAULT;
  gboolean memory = options->pytorch_memory && !g_str_equal (pytorch, "none");
  guint hz = options->python_sampling ? (options->python_sampling_hz ? options->python_sampling_hz : 1000) : 0;

  if (g_str_equal (pytorch, "none") && hz == 0)
    return NULL;
  return g_strdup_printf ("pytorch=%s;memory=%d;sampling=%u", pytorch, memory ? 1 : 0, hz);
}

void
ks_record_session_write_process (KsRecordSession *self,
                                 gint64           pid,
                                 const char      *name)
{
  gint64 *key;
  const char *old;

  if (g_hash_table_lookup_extended (self->processes, &pid, NULL, (gpointer *) &old))
    {
      if (name != NULL && g_strcmp0 (old, name) != 0)
        {
          ks_record_writer_rename_process (self->writer, pid, name);
          g_hash_table_insert (self->processes, g_memdup2 (&pid, sizeof pid), g_strdup (name));
        }
      return;
    }
  key = g_new (gint64, 1);
  *key = pid;
  g_hash_table_insert (self->processes, key, g_strdup (name));
  ks_record_writer_add_process (self->writer, pid, name);
}

void
ks_record_session_set_command (KsRecordSession    *self,
                               GPid                pid,
                               const char * const *argv)
{
  g_autofree char *line = NULL;
  g_autofree char *base = NULL;

  self->command_pid = pid;
  base = g_path_get_basename (argv[0]);
  self->command_name = g_strdup (base);
  line = g_strjoinv (" ", (char **) argv);
  ks_record_writer_add_capture_meta (self->writer, "command", line);
  ks_record_writer_set_meta (self->writer, "source_name", line);
}

/* Called with the mutex held, by the thread that writes. */
void
ks_record_session_note_write_failure (KsRecordSession *self)
{
  const GError *error = ks_record_writer_get_error (self->writer);

  if (error == NULL)
    return;
  if (self->write_error == NULL)
    self->write_error = g_strdup (error->message);
  self->stats.written_until_s = (ks_record_writer_get_written_until (self->writer) - self->start_mono) / 1e9;
  self->stats.unwritten = ks_record_writer_get_unwritten (self->writer);
}

char *
ks_record_trace_to_string (KsRecordTrace trace)
{
  GString *s = g_string_new (NULL);

  if (trace & KS_RECORD_TRACE_CUDA)
    g_string_append (s, "cuda,");
  if (trace & KS_RECORD_TRACE_NVTX)
    g_string_append (s, "nvtx,");
  if (trace & KS_RECORD_TRACE_OSRT)
    g_string_append (s, "osrt,");
  if (trace & KS_RECORD_TRACE_GPU_METRICS)
    g_string_append (s, "gpu-metrics,");
  if (s->len > 0)
    g_string_truncate (s, s->len - 1);
  return g_string_free (s, FALSE);
}

char *
ks_record_session_dup_write_error (KsRecordSession *self)
{
  char *message;

  g_mutex_lock (&self->mutex);
  message = g_strdup (self->write_error);
  g_mutex_unlock (&self->mutex);
  return message;
}

void
ks_record_session_start (KsRecordSession *self)
{
  if (self->io_thread != NULL)
    return;
  ks_record_sampler_start (self);
  self->io_thread = g_thread_new ("ks-record-io", ks_record_server_thread, self);
}

void
ks_record_session_get_stats (KsRecordSession *self,
                             KsRecordStats   *stats)
{
  g_mutex_lock (&self->mutex);
  *stats = self->stats;
  g_mutex_unlock (&self->mutex);
  stats->elapsed_s = (ks_record_now_mono () - self->start_mono) / 1e9;
}

char *
ks_record_session_dup_cupti_conflict (KsRecordSession *self)
{
  char *ret;

  g_mutex_lock (&self->mutex);
  ret = g_strdup (self->cupti_conflict);
  g_mutex_unlock (&self->mutex);
  return ret;
}

guint
ks_record_session_get_open_connections (KsRecordSession *self)
{
  guint n;

  g_mutex_lock (&self->mutex);
  n = self->open_connections;
  g_mutex_unlock (&self->mutex);
  return n;
}

gboolean
ks_record_session_finish (KsRecordSession  *self,
                          guint             grace_ms,
                          gboolean          complete,
                          const char       *end_reason,
                          GError          **error)
{
  g_autofree char *dropped = NULL;
  const KsRecordCounts *counts;
  char wake = 1;
  gboolean ok;

  ks_record_session_start (self);

  g_mutex_lock (&self->mutex);
  self->stopping = TRUE;
  self->stop_deadline_us = g_get_monotonic_time () + (gint64) grace_ms * 1000;
  self->stop_nvml = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->mutex);
  if (write (self->wake_pipe[1], &wake, 1) < 0)
    {
      /* The pipe is full: the thread is awake anyway. */
    }

  if (self->nvml_thread != NULL)
    g_thread_join (g_steal_pointer (&self->nvml_thread));
  g_thread_join (g_steal_pointer (&self->io_thread));
  ks_record_sampler_write (self);
  ks_record_proc_write_seen (self);

  if (self->command_pid > 0 && !g_hash_table_contains (self->processes, &(gint64) { self->command_pid }))
    ks_record_session_write_process (self, self->command_pid, self->command_name);
  ks_record_sampler_write_gpus (self);

  counts = ks_record_writer_get_counts (self->writer);
  dropped = g_strdup_printf ("%" G_GUINT64_FORMAT, self->dropped_total + ks_record_counts_python_dropped (counts));
  ks_record_writer_set_meta (self->writer, "dropped_records", dropped);
  if (self->dropped_total > 0)
    {
      g_autofree char *text = g_strdup_printf ("%" G_GUINT64_FORMAT " events were dropped "
                                               "(in-process buffers full or CUPTI buffers exhausted)",
                                               self->dropped_total);

      ks_record_writer_add_diagnostic (self->writer, ks_record_now_mono (), "warning", "recorder", text);
    }
  if (counts->python_unknown_repeats > 0)
    {
      g_autofree char *text = g_strdup_printf ("%" G_GUINT64_FORMAT " Python samples repeated a thread's previous "
                                               "stack before the recorder had one; they were dropped",
                                               counts->python_unknown_repeats);

      ks_record_writer_add_diagnostic (self->writer, ks_record_now_mono (), "warning", "python", text);
    }
  if (counts->python_stacks_dropped > 0)
    {
      g_autofree char *text = g_strdup_printf ("%" G_GUINT64_FORMAT " Python samples were dropped: their stacks "
                                               "would have gone past the %u distinct stack frames the recorder keeps",
                                               counts->python_stacks_dropped, ks_record_writer_get_stack_limit (self->writer));

      ks_record_writer_add_diagnostic (self->writer, ks_record_now_mono (), "warning", "python", text);
    }
  if (end_reason != NULL)
    ks_record_writer_set_meta (self->writer, KS_RECORD_META_END_REASON, end_reason);
  {
    g_autofree char *trace = ks_record_trace_to_string (self->options.trace);

    ks_record_writer_add_capture_meta (self->writer, "trace", trace);
  }
  ks_record_writer_add_capture_meta (self->writer, "capture_range", self->options.capture_range);
  {
    g_autofree char *python = ks_record_options_to_python (&self->options);
    g_autofree char *hz = g_strdup_printf ("%u", self->options.python_sampling_hz);

    ks_record_writer_add_capture_meta (self->writer, "pytorch", self->options.pytorch);
    ks_record_writer_add_capture_meta (self->writer, "pytorch_memory",
                                       self->options.pytorch_memory ? "true" : "false");
    ks_record_writer_add_capture_meta (self->writer, "python_sampling",
                                       self->options.python_sampling ? "true" : "false");
    ks_record_writer_add_capture_meta (self->writer, "python_sampling_frequency", hz);
    /* what the Python side was told; "none" when it was not started */
    ks_record_writer_set_meta (self->writer, KS_KSCOPE_META_PYTHON,
                               python != NULL && self->python_dir != NULL ? python : "none");
  }

  ok = ks_record_writer_finish (self->writer, ks_record_now_mono (), complete, error);
  g_mutex_lock (&self->mutex);
  ks_record_session_note_write_failure (self);
  /* the final counts, all threads done */
  counts = ks_record_writer_get_counts (self->writer);
  self->stats.events = counts->rows;
  self->stats.api_calls = counts->api_calls;
  self->stats.samples = counts->counter_samples;
  self->stats.dropped = self->dropped_total + ks_record_counts_python_dropped (counts);
  self->stats.processes = g_hash_table_size (self->processes);
  g_mutex_unlock (&self->mutex);
  return ok;
}

const KsRecordCounts *
ks_record_session_get_counts (KsRecordSession *self)
{
  return ks_record_writer_get_counts (self->writer);
}

guint
ks_record_session_get_n_processes (KsRecordSession *self)
{
  return g_hash_table_size (self->processes);
}

guint64
ks_record_session_get_dropped (KsRecordSession *self)
{
  return self->dropped_total + ks_record_counts_python_dropped (ks_record_writer_get_counts (self->writer));
}

void
ks_record_session_free (KsRecordSession *self)
{
  if (self == NULL)
    return;
  if (self->io_thread != NULL)
    {
      g_autoptr(GError) ignored = NULL;

      ks_record_session_finish (self, 0, FALSE, NULL, &ignored);
    }
  g_clear_pointer (&self->writer, ks_record_writer_free);
  /* after SQLite let go of the file */
  if (self->claim_fd >= 0)
    close (self->claim_fd);
  g_clear_pointer (&self->nvml, ks_nvml_close);
  if (self->listen_fd >= 0)
    close (self->listen_fd);
  if (self->wake_pipe[0] >= 0)
    close (self->wake_pipe[0]);
  if (self->wake_pipe[1] >= 0)
    close (self->wake_pipe[1]);
  if (self->socket_path != NULL)
    g_unlink (self->socket_path);
  if (self->socket_dir != NULL)
    g_rmdir (self->socket_dir);
  for (guint i = 0; i < self->cupti_gpus->len; i++)
    {
      KsRecordGpu *gpu = g_ptr_array_index (self->cupti_gpus, i);

      g_free (gpu->name);
      g_free (gpu->uuid);
      g_free (gpu->bus_location);
      g_free (gpu);
    }
  g_ptr_array_unref (self->cupti_gpus);
  ks_record_py_sampler_stop (self->py_sampler);
  g_ptr_array_unref (self->connections);
  g_ptr_array_unref (self->detached);
  g_hash_table_unref (self->gpu_uuids);
  ks_record_py_sampler_free (self->py_sampler);
  g_hash_table_destroy (self->processes);
  g_array_unref (self->gpu_counters);
  g_async_queue_unref (self->samples);
  g_async_queue_unref (self->seen_processes);
  g_hash_table_unref (self->scanned);
  g_mutex_clear (&self->mutex);
  g_cond_clear (&self->cond);
  g_free (self->options.capture_range);
  g_free (self->options.pytorch);
  g_free (self->python_dir);
  g_free (self->output_path);
  g_free (self->socket_dir);
  g_free (self->socket_path);
  g_free (self->inject_dir);
  g_free (self->command_name);
  g_free (self->write_error);
  g_free (self);
}
