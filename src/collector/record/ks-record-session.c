/* ks-record-session.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define _GNU_SOURCE
#define G_LOG_DOMAIN "ks-record-session"

#include "config.h"

#include "ks-record-session.h"

#include "ks-nvml.h"
#include "ks-paths.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MAX_CONNECTIONS 1024

typedef struct
{
  guint64      timestamp;
  guint        gpu;
  KsNvmlSample sample;
} NvmlSampleItem;

typedef struct
{
  gint64  pid;
  char   *name;
} SeenProcess;

static void
seen_process_free (gpointer data)
{
  SeenProcess *p = data;

  g_free (p->name);
  g_free (p);
}

typedef struct
{
  guint32 demangled;
  guint32 shortname;
  guint32 mangled;
} KernelNames;

enum
{
  CLOSING_NOT,
  CLOSING_ENDED,       /* the process closed it */
  CLOSING_MALFORMED,   /* we close it: it sent what cannot be parsed */
};

struct _KsRecordConnection
{
  KsRecordSession *session;
  int              fd;
  GByteArray      *buffer;
  gint64           pid;
  char            *name;
  guint64          hello_mono;   /* a resumed connection's HELLO has the same */
  gboolean         hello;
  gboolean         bye;
  gboolean         superseded;   /* its process went on on a new connection */
  int              closing;      /* CLOSING_*, set while reading */
  gint64           detached_at;  /* closed without a goodbye, kept to be resumed */
  gboolean         has_cuda;
  GHashTable      *strings;      /* local id → global id */
  GHashTable      *texts;        /* local id → text (owned), for kernel names */
  GHashTable      *kernels;      /* local name id → KernelNames */
  GHashTable      *domains;      /* local domain → global domain */
  GHashTable      *contexts;     /* context → device */
  GHashTable      *threads;      /* tid → name (owned, may be NULL) */
  GHashTable      *nvtx_names;   /* tid → name given through NVTX */
  gint64           allocated[64];
  guint64          channel_dropped;
  guint64          cupti_dropped;
  guint64          cupti_zero_time;
};

struct _KsRecordSession
{
  KsRecordOptions  options;
  char            *output_path;
  char            *socket_dir;
  char            *socket_path;
  char            *inject_dir;
  int              listen_fd;
  int              claim_fd;      /* holds the output's lock: claim_output() */
  int              wake_pipe[2];
  KsRecordWriter  *writer;
  guint64          start_mono;
  guint64          filter_from;   /* events starting before are dropped (--delay) */

  GThread         *io_thread;
  GThread         *nvml_thread;
  GMutex           mutex;         /* protects the fields below */
  GCond            cond;
  gboolean         stop_nvml;
  gboolean         stopping;
  char            *write_error;   /* once writing stopped */
  gint64           stop_deadline_us;
  guint            open_connections;
  KsRecordStats    stats;
  char            *cupti_conflict;
  GAsyncQueue     *samples;
  GAsyncQueue     *seen_processes;   /* SeenProcess from the /proc scan */
  GHashTable      *scanned;          /* pid → TRUE, main thread only */

  GPtrArray       *connections;   /* owned by the IO thread until it exits */
  GPtrArray       *detached;      /* closed without BYE: may be resumed */
  GHashTable      *processes;     /* pid → TRUE, rows written */
  guint            n_cuda_processes;
  guint32          next_domain;
  GPid             command_pid;
  char            *command_name;

  KsNvml          *nvml;
  GArray          *gpu_counters;  /* per NVML device: 5 counter ids */
  GPtrArray       *cupti_gpus;    /* KsRecordGpu* from CUPTI device records */
  GHashTable      *gpu_uuids;     /* uuid → TRUE */
  guint64          dropped_total;
};

/* Kernel names arrive mangled; demangle with the C++ runtime's
 * __cxa_demangle when it can be loaded. */
typedef char *(*DemangleFunc) (const char *, char *, size_t *, int *);

static DemangleFunc
get_demangler (void)
{
  static gsize once;
  static DemangleFunc func;

  if (g_once_init_enter (&once))
    {
      void *handle = dlopen ("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);

      if (handle != NULL)
        func = (DemangleFunc) dlsym (handle, "__cxa_demangle");
      g_once_init_leave (&once, 1);
    }
  return func;
}

/* "void ns::kern<float, 4>(float*, int)" → "kern" (Nsight's shortName) */
static char *
short_kernel_name (const char *demangled)
{
  const char *end = demangled + strlen (demangled);
  const char *p;
  const char *start;
  int depth = 0;

  /* cut the parameter list: the last '(' at template depth 0 */
  for (p = demangled; *p; p++)
    {
      if (*p == '<')
        depth++;
      else if (*p == '>')
        depth--;
      else if (*p == '(' && depth == 0 && p != demangled)
        {
          end = p;
          break;
        }
    }
  /* drop trailing template arguments */
  if (end > demangled && end[-1] == '>')
    {
      depth = 0;
      for (p = end - 1; p >= demangled; p--)
        {
          if (*p == '>')
            depth++;
          else if (*p == '<' && --depth == 0)
            break;
        }
      if (p >= demangled)
        end = p;
    }
  /* last component after "::" or a space (return type) at depth 0 */
  start = demangled;
  depth = 0;
  for (p = demangled; p < end; p++)
    {
      if (*p == '<')
        depth++;
      else if (*p == '>')
        depth--;
      else if (depth == 0 && *p == ':' && p + 1 < end && p[1] == ':')
        start = p + 2;
      else if (depth == 0 && *p == ' ')
        start = p + 1;
    }
  if (start >= end)
    return g_strdup (demangled);
  return g_strndup (start, (gsize) (end - start));
}

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

static guint64
now_mono (void)
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
          /* removed meanwhile */
          if (fd < 0 && errno == ENOENT)
            continue;
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
  struct sockaddr_un addr;
  g_autoptr(GError) local_error = NULL;
  const char *inject_dir;

  self = g_new0 (KsRecordSession, 1);
  self->options = *options;
  self->options.capture_range = g_strdup (options->capture_range ? options->capture_range : "none");
  self->output_path = g_strdup (output_path);
  self->listen_fd = -1;
  self->claim_fd = -1;
  self->wake_pipe[0] = self->wake_pipe[1] = -1;
  g_mutex_init (&self->mutex);
  g_cond_init (&self->cond);
  self->samples = g_async_queue_new_full (g_free);
  self->seen_processes = g_async_queue_new_full (seen_process_free);
  self->scanned = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  self->connections = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_record_connection_free);
  self->detached = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_record_connection_free);
  self->processes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  self->gpu_counters = g_array_new (FALSE, TRUE, sizeof (guint32));
  self->cupti_gpus = g_ptr_array_new ();
  self->gpu_uuids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->next_domain = 1;

  inject_dir = find_inject_dir ();
  self->inject_dir = g_strdup (inject_dir);

  self->claim_fd = claim_output (output_path, options->overwrite, error);
  if (self->claim_fd < 0)
    goto fail;

  self->socket_dir = g_dir_make_tmp ("kinescope-XXXXXX", error);
  if (self->socket_dir == NULL)
    goto fail;
  self->socket_path = g_build_filename (self->socket_dir, "socket", NULL);

  self->listen_fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  memset (&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  g_strlcpy (addr.sun_path, self->socket_path, sizeof addr.sun_path);
  if (self->listen_fd < 0
      || bind (self->listen_fd, (struct sockaddr *) &addr, sizeof addr) != 0
      || listen (self->listen_fd, 128) != 0
      || pipe2 (self->wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Could not create the recording socket %s: %s"),
                   self->socket_path, g_strerror (saved));
      goto fail;
    }

  self->start_mono = now_mono ();
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
  return env;
}

static void
write_process (KsRecordSession *self,
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

/* Connections */

KsRecordConnection *
ks_record_connection_new (KsRecordSession *session)
{
  KsRecordConnection *c = g_new0 (KsRecordConnection, 1);

  c->session = session;
  c->fd = -1;
  c->buffer = g_byte_array_new ();
  c->strings = g_hash_table_new (NULL, NULL);
  c->texts = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  c->kernels = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  c->domains = g_hash_table_new (NULL, NULL);
  c->contexts = g_hash_table_new (NULL, NULL);
  c->threads = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  c->nvtx_names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  return c;
}

/* KS_THREADS.role, from what PyTorch names its threads */
static const char *
thread_role (gint64      pid,
             gint64      tid,
             const char *name)
{
  if (name != NULL && g_str_has_prefix (name, "pt_data_worker"))
    return "dataloader";
  if (name != NULL && (g_str_has_prefix (name, "pt_autograd") || g_str_has_prefix (name, "autograd")))
    return "autograd";
  if (tid == pid)
    return "main";
  return NULL;
}

static void
connection_write_threads (KsRecordConnection *c)
{
  GHashTableIter iter;
  gpointer key;
  gpointer value;

  g_hash_table_iter_init (&iter, c->threads);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      gint64 tid = GPOINTER_TO_INT (key);
      const char *name = g_hash_table_lookup (c->nvtx_names, key);

      if (name == NULL)
        name = value;
      ks_record_writer_add_thread (c->session->writer, c->pid, tid, name, thread_role (c->pid, tid, name));
    }
  g_hash_table_remove_all (c->threads);
}

void
ks_record_connection_free (KsRecordConnection *c)
{
  if (c == NULL)
    return;
  if (c->hello)
    connection_write_threads (c);
  if (c->fd >= 0)
    close (c->fd);
  g_byte_array_unref (c->buffer);
  g_hash_table_unref (c->strings);
  g_hash_table_unref (c->texts);
  g_hash_table_unref (c->kernels);
  g_hash_table_unref (c->domains);
  g_hash_table_unref (c->contexts);
  g_hash_table_unref (c->threads);
  g_hash_table_unref (c->nvtx_names);
  g_free (c->name);
  g_free (c);
}

static void
see_thread (KsRecordConnection *c,
            guint32             tid)
{
  g_autofree char *path = NULL;
  char *contents = NULL;

  if (tid == 0 || g_hash_table_contains (c->threads, GUINT_TO_POINTER (tid)))
    return;
  /* Same host: the name is in /proc while the thread lives. */
  path = g_strdup_printf ("/proc/%" G_GINT64_FORMAT "/task/%u/comm", c->pid, tid);
  if (g_file_get_contents (path, &contents, NULL, NULL))
    g_strchomp (contents);
  g_hash_table_insert (c->threads, GUINT_TO_POINTER (tid), contents);
}

static guint32
global_string (KsRecordConnection *c,
               guint32             local_id)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (c->strings, GUINT_TO_POINTER (local_id)));
}

static const KernelNames *
kernel_names (KsRecordConnection *c,
              guint32             local_id)
{
  KsRecordWriter *w = c->session->writer;
  KernelNames *names = g_hash_table_lookup (c->kernels, GUINT_TO_POINTER (local_id));
  const char *mangled;
  DemangleFunc demangle;
  g_autofree char *shortname = NULL;
  char *demangled = NULL;
  int status = -1;

  if (names != NULL)
    return names;

  mangled = g_hash_table_lookup (c->texts, GUINT_TO_POINTER (local_id));
  if (mangled == NULL)
    mangled = "";
  demangle = get_demangler ();
  if (demangle != NULL && mangled[0] == '_' && mangled[1] == 'Z')
    demangled = demangle (mangled, NULL, NULL, &status);
  if (status != 0)
    g_clear_pointer (&demangled, free);

  names = g_new0 (KernelNames, 1);
  names->mangled = ks_record_writer_intern (w, mangled);
  names->demangled = demangled ? ks_record_writer_intern (w, demangled) : names->mangled;
  shortname = short_kernel_name (demangled ? demangled : mangled);
  names->shortname = ks_record_writer_intern (w, shortname);
  free (demangled);
  g_hash_table_insert (c->kernels, GUINT_TO_POINTER (local_id), names);
  return names;
}

static const char *
severity_name (guint32 severity)
{
  switch (severity)
    {
    case KS_WIRE_DIAG_INFO: return "info";
    case KS_WIRE_DIAG_WARNING: return "warning";
    default: return "error";
    }
}

static const char *
msg_text (const KsWireHeader *h,
          gsize               fixed)
{
  const char *text = (const char *) h + fixed;

  if (h->size <= fixed)
    return "";
  /* The sender NUL-terminates; never trust it further than the size. */
  if (memchr (text, 0, h->size - fixed) == NULL)
    return "";
  return text;
}

#define NEED(type) G_STMT_START { if (h->size < sizeof (type)) return FALSE; } G_STMT_END

static void
bump_stat (KsRecordSession *self,
           guint64         *field,
           guint64          n)
{
  g_mutex_lock (&self->mutex);
  *field += n;
  g_mutex_unlock (&self->mutex);
}

/* Reads what @c has waiting, until the socket is empty or closed. */
static void
connection_drain (KsRecordConnection *c)
{
  g_autofree guint8 *buf = NULL;
  ssize_t r;

  if (c->fd < 0)
    return;
  buf = g_malloc (64 * 1024);
  while ((r = read (c->fd, buf, 64 * 1024)) > 0 || (r < 0 && errno == EINTR))
    if (r > 0 && !ks_record_connection_feed (c, buf, (gsize) r))
      break;
}

#define SWAP_FIELD(a, b, field) \
  G_STMT_START { __typeof__ ((a)->field) t_ = (a)->field; (a)->field = (b)->field; (b)->field = t_; } G_STMT_END

/* The program closed its socket and the library connected again
 * (ks-inject-channel.c): @c takes over the ids, domains, threads and
 * counters of the connection it had, found by pid and first HELLO. */
static void
connection_resume (KsRecordConnection *c)
{
  KsRecordSession *self = c->session;
  KsRecordConnection *old = NULL;
  gboolean was_detached = FALSE;

  for (guint i = 0; i < self->connections->len && old == NULL; i++)
    {
      KsRecordConnection *o = g_ptr_array_index (self->connections, i);

      if (o != c && o->hello && !o->bye && !o->superseded && o->pid == c->pid && o->hello_mono == c->hello_mono)
        old = o;
    }
  if (old != NULL)
    {
      /* Not closed here yet: what it sent before the close comes first.
       * A message cut short stays in its buffer; it is sent again whole. */
      connection_drain (old);
      old->superseded = TRUE;
    }
  else
    for (guint i = 0; i < self->detached->len; i++)
      {
        KsRecordConnection *o = g_ptr_array_index (self->detached, i);

        if (o->pid == c->pid && o->hello_mono == c->hello_mono)
          {
            old = g_ptr_array_steal_index_fast (self->detached, i);
            was_detached = TRUE;
            break;
          }
      }
  if (old == NULL)
    return;

  SWAP_FIELD (c, old, strings);
  SWAP_FIELD (c, old, texts);
  SWAP_FIELD (c, old, kernels);
  SWAP_FIELD (c, old, domains);
  SWAP_FIELD (c, old, contexts);
  SWAP_FIELD (c, old, threads);
  SWAP_FIELD (c, old, nvtx_names);
  memcpy (c->allocated, old->allocated, sizeof c->allocated);
  c->has_cuda = old->has_cuda;
  c->channel_dropped = old->channel_dropped;
  c->cupti_dropped = old->cupti_dropped;
  c->cupti_zero_time = old->cupti_zero_time;
  old->channel_dropped = old->cupti_dropped = old->cupti_zero_time = 0;
  /* its threads are @c's now */
  old->hello = FALSE;
  if (was_detached)
    ks_record_connection_free (old);
}

static gboolean
handle_message (KsRecordConnection *c,
                const KsWireHeader *h)
{
  KsRecordSession *self = c->session;
  KsRecordWriter *w = self->writer;

  if (!c->hello && h->type != KS_WIRE_HELLO)
    return FALSE;

  switch ((KsWireType) h->type)
    {
    case KS_WIRE_HELLO:
      {
        const KsWireHello *m = (const void *) h;

        NEED (KsWireHello);
        if (m->magic != KS_WIRE_MAGIC || m->version != KS_WIRE_VERSION || c->hello)
          return FALSE;
        c->hello = TRUE;
        c->pid = m->pid;
        c->hello_mono = m->mono_ns;
        c->name = g_strdup (msg_text (h, sizeof *m));
        write_process (self, c->pid, c->name);
        if (h->reserved & KS_WIRE_HELLO_RESUMED)
          connection_resume (c);
        g_mutex_lock (&self->mutex);
        self->stats.processes = g_hash_table_size (self->processes);
        g_mutex_unlock (&self->mutex);
      }
      break;

    case KS_WIRE_STRING:
      {
        const KsWireString *m = (const void *) h;
        const char *text;

        NEED (KsWireString);
        text = msg_text (h, sizeof *m);
        g_hash_table_insert (c->strings, GUINT_TO_POINTER (m->id),
                             GUINT_TO_POINTER (ks_record_writer_intern (w, text)));
        g_hash_table_insert (c->texts, GUINT_TO_POINTER (m->id), g_strdup (text));
      }
      break;

    case KS_WIRE_THREAD_NAME:
      {
        const KsWireThreadName *m = (const void *) h;

        NEED (KsWireThreadName);
        see_thread (c, m->tid);
        g_hash_table_insert (c->nvtx_names, GUINT_TO_POINTER (m->tid), g_strdup (msg_text (h, sizeof *m)));
      }
      break;

    case KS_WIRE_KERNEL:
      {
        const KsWireKernel *m = (const void *) h;
        const KernelNames *names;

        NEED (KsWireKernel);
        if (m->start < self->filter_from)
          break;
        names = kernel_names (c, m->name_id);
        ks_record_writer_add_kernel (w, c->pid, m, names->demangled, names->shortname, names->mangled);
        bump_stat (self, &self->stats.kernels, 1);
      }
      break;

    case KS_WIRE_MEMCPY:
      NEED (KsWireMemcpy);
      if (((const KsWireMemcpy *) h)->start >= self->filter_from)
        ks_record_writer_add_memcpy (w, c->pid, (const void *) h);
      break;

    case KS_WIRE_MEMSET:
      NEED (KsWireMemset);
      if (((const KsWireMemset *) h)->start >= self->filter_from)
        ks_record_writer_add_memset (w, c->pid, (const void *) h);
      break;

    case KS_WIRE_API:
      {
        const KsWireApi *m = (const void *) h;

        NEED (KsWireApi);
        if (m->start < self->filter_from)
          break;
        see_thread (c, m->tid);
        ks_record_writer_add_api (w, c->pid, m, global_string (c, m->name_id));
      }
      break;

    case KS_WIRE_SYNC:
      {
        const KsWireSync *m = (const void *) h;

        NEED (KsWireSync);
        if (m->start < self->filter_from)
          break;
        ks_record_writer_add_sync (w, c->pid,
                                   GPOINTER_TO_UINT (g_hash_table_lookup (c->contexts, GUINT_TO_POINTER (m->context_id))),
                                   m);
      }
      break;

    case KS_WIRE_MEMORY:
      {
        const KsWireMemory *m = (const void *) h;
        guint dev;
        gint64 delta;

        NEED (KsWireMemory);
        dev = m->device_id < G_N_ELEMENTS (c->allocated) ? m->device_id : 0;
        delta = m->operation == KS_WIRE_MEMORY_FREE ? -(gint64) m->bytes : (gint64) m->bytes;
        c->allocated[dev] += delta;
        if (m->timestamp >= self->filter_from)
          ks_record_writer_add_memory (w, c->pid, c->pid, m->timestamp, (gint) m->device_id,
                                       m->address, delta, c->allocated[dev]);
      }
      break;

    case KS_WIRE_DEVICE:
      {
        const KsWireDevice *m = (const void *) h;
        KsRecordGpu *gpu;
        const guint8 *u;

        NEED (KsWireDevice);
        u = m->uuid;
        gpu = g_new0 (KsRecordGpu, 1);
        gpu->id = (gint) m->id;
        gpu->name = g_strdup (msg_text (h, sizeof *m));
        gpu->uuid = g_strdup_printf ("GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                                     u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7],
                                     u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
        gpu->total_memory = m->total_memory;
        gpu->memory_bandwidth = m->memory_bandwidth;
        gpu->sm_count = m->sm_count;
        gpu->compute_major = m->compute_major;
        gpu->compute_minor = m->compute_minor;
        gpu->max_threads_per_block = m->max_threads_per_block;
        gpu->max_warps_per_sm = m->max_warps_per_sm;
        gpu->max_shmem_per_sm = m->max_shmem_per_sm;
        gpu->max_registers_per_sm = m->max_registers_per_sm;
        gpu->max_shmem_per_block = m->max_shmem_per_block;
        gpu->max_registers_per_block = m->max_registers_per_block;
        gpu->threads_per_warp = m->threads_per_warp;
        gpu->clock_rate_hz = (guint64) m->clock_rate_khz * 1000;
        gpu->l2_cache_size = m->l2_cache_size;
        g_ptr_array_add (self->cupti_gpus, gpu);
      }
      break;

    case KS_WIRE_CONTEXT:
      {
        const KsWireContext *m = (const void *) h;

        NEED (KsWireContext);
        g_hash_table_insert (c->contexts, GUINT_TO_POINTER (m->context_id), GUINT_TO_POINTER (m->device_id));
        if (!c->has_cuda)
          {
            c->has_cuda = TRUE;
            g_mutex_lock (&self->mutex);
            self->stats.cuda_processes++;
            g_mutex_unlock (&self->mutex);
          }
      }
      break;

    case KS_WIRE_STREAM:
      NEED (KsWireStream);
      ks_record_writer_add_stream (w, c->pid, (const void *) h);
      break;

    case KS_WIRE_NVTX:
      {
        const KsWireNvtx *m = (const void *) h;
        guint32 domain = 0;
        guint32 text_id = 0;
        const char *text = NULL;

        NEED (KsWireNvtx);
        if (m->start < self->filter_from && m->event_type != 33)
          break;
        see_thread (c, m->tid);
        if (m->domain_id != 0)
          domain = GPOINTER_TO_UINT (g_hash_table_lookup (c->domains, GUINT_TO_POINTER (m->domain_id)));
        if (m->text_kind == KS_WIRE_NVTX_TEXT_INLINE)
          text = msg_text (h, sizeof *m);
        else if (m->text_kind == KS_WIRE_NVTX_TEXT_REGISTERED)
          text_id = global_string (c, m->text_id);
        ks_record_writer_add_nvtx (w, c->pid, m->event_type, m->start, m->end, m->tid, m->end_tid,
                                   m->range_id, m->category, m->has_color, m->color, text, text_id,
                                   domain, m->payload_type, m->payload);
        if (m->event_type == KS_NVTX_PUSH_POP || m->event_type == KS_NVTX_START_END)
          bump_stat (self, &self->stats.nvtx_ranges, 1);
      }
      break;

    case KS_WIRE_NVTX_DOMAIN:
      {
        const KsWireNvtxDomain *m = (const void *) h;
        guint32 global = self->next_domain++;

        NEED (KsWireNvtxDomain);
        g_hash_table_insert (c->domains, GUINT_TO_POINTER (m->domain_id), GUINT_TO_POINTER (global));
        ks_record_writer_add_nvtx (w, c->pid, KS_NVTX_DOMAIN, MAX (m->timestamp, self->start_mono), 0,
                                   m->tid, 0, 0, 0, FALSE, 0, msg_text (h, sizeof *m), 0, global, 0, 0);
      }
      break;

    case KS_WIRE_OSRT:
      {
        const KsWireOsrt *m = (const void *) h;

        NEED (KsWireOsrt);
        if (m->start < self->filter_from)
          break;
        see_thread (c, m->tid);
        ks_record_writer_add_osrt (w, c->pid, m);
      }
      break;

    case KS_WIRE_DROPS:
      {
        const KsWireDrops *m = (const void *) h;

        NEED (KsWireDrops);
        c->channel_dropped = m->channel_dropped;
        c->cupti_dropped = m->cupti_dropped;
        c->cupti_zero_time = m->cupti_zero_time;
      }
      break;

    case KS_WIRE_CAPTURE:
      {
        const KsWireCapture *m = (const void *) h;
        g_autofree char *text = NULL;

        NEED (KsWireCapture);
        text = g_strdup_printf (m->state == KS_WIRE_CAPTURE_START
                                ? "capture range started in pid %" G_GINT64_FORMAT " (thread %u)"
                                : "capture range stopped in pid %" G_GINT64_FORMAT " (thread %u)",
                                c->pid, m->tid);
        ks_record_writer_add_diagnostic (w, m->timestamp, "info", "capture", text);
      }
      break;

    case KS_WIRE_DIAG:
      {
        const KsWireDiag *m = (const void *) h;
        const char *text;

        NEED (KsWireDiag);
        text = msg_text (h, sizeof *m);
        /* Facts about the set-up are capture settings, not problems. */
        if (m->code != KS_WIRE_DIAG_CODE_CUPTI_INFO)
          ks_record_writer_add_diagnostic (w, m->timestamp, severity_name (m->severity), "cupti", text);
        if (m->code == KS_WIRE_DIAG_CODE_OTHER_SUBSCRIBER)
          {
            g_mutex_lock (&self->mutex);
            if (self->cupti_conflict == NULL)
              self->cupti_conflict = g_strdup (text);
            g_mutex_unlock (&self->mutex);
          }
        else if (m->code == KS_WIRE_DIAG_CODE_CUPTI_INFO)
          ks_record_writer_add_capture_meta (w, "cupti", text);
      }
      break;

    case KS_WIRE_BYE:
      c->bye = TRUE;
      break;

    case KS_WIRE_N_TYPES:
    default:
      /* Unknown messages from a newer library are skipped. */
      break;
    }

  return TRUE;
}

gboolean
ks_record_connection_feed (KsRecordConnection *c,
                           const guint8       *data,
                           gsize               len)
{
  gsize offset = 0;
  gboolean ok = TRUE;

  g_byte_array_append (c->buffer, data, (guint) len);

  while (c->buffer->len - offset >= sizeof (KsWireHeader))
    {
      KsWireHeader h;

      memcpy (&h, c->buffer->data + offset, sizeof h);
      if (h.size < sizeof h || h.size > KS_WIRE_MAX_MESSAGE || h.size % 8 != 0)
        {
          ok = FALSE;
          break;
        }
      if (c->buffer->len - offset < h.size)
        break;
      if (!handle_message (c, (const KsWireHeader *) (c->buffer->data + offset)))
        {
          ok = FALSE;
          break;
        }
      offset += h.size;
    }

  g_byte_array_remove_range (c->buffer, 0, (guint) offset);
  g_mutex_lock (&c->session->mutex);
  c->session->stats.events = ks_record_writer_get_counts (c->session->writer)->rows;
  g_mutex_unlock (&c->session->mutex);
  return ok;
}

/* NVML sampling thread */

static void
create_gpu_counters (KsRecordSession *self)
{
  static const struct { const char *name; const char *unit; const char *description; } defs[] = {
    { "GPU utilization", "%", "NVML utilization.gpu: share of the last sample period in which a kernel ran" },
    { "GPU memory used", "bytes", "NVML memory.used" },
    { "GPU temperature", "°C", "NVML temperature.gpu" },
    { "GPU power", "W", "NVML power.draw" },
    { "SM clock", "MHz", "NVML clocks.current.sm" },
  };
  guint n = ks_nvml_get_n_devices (self->nvml);

  for (guint i = 0; i < n; i++)
    {
      const KsNvmlDevice *d = ks_nvml_get_device (self->nvml, i);

      for (guint k = 0; k < G_N_ELEMENTS (defs); k++)
        {
          guint32 id = ks_record_writer_add_counter (self->writer, defs[k].name, defs[k].unit,
                                                     (gint) d->index, defs[k].description);
          g_array_append_val (self->gpu_counters, id);
        }
      if (i < G_N_ELEMENTS (self->stats.gpus))
        {
          g_strlcpy (self->stats.gpus[i].name, d->name ? d->name : "", sizeof self->stats.gpus[i].name);
          self->stats.gpus[i].utilization = -1;
          self->stats.gpus[i].memory_used = -1;
          self->stats.gpus[i].memory_total = (gint64) d->total_memory;
        }
    }
  self->stats.n_gpus = MIN (n, G_N_ELEMENTS (self->stats.gpus));
}

static gpointer
nvml_thread (gpointer data)
{
  KsRecordSession *self = data;
  guint hz = self->options.gpu_metrics_hz ? self->options.gpu_metrics_hz : 10;
  gint64 period_us = G_USEC_PER_SEC / hz;
  gint64 next = g_get_monotonic_time ();
  guint n = ks_nvml_get_n_devices (self->nvml);

  for (;;)
    {
      g_mutex_lock (&self->mutex);
      while (!self->stop_nvml && g_get_monotonic_time () < next)
        g_cond_wait_until (&self->cond, &self->mutex, next);
      if (self->stop_nvml)
        {
          g_mutex_unlock (&self->mutex);
          break;
        }
      g_mutex_unlock (&self->mutex);

      for (guint i = 0; i < n; i++)
        {
          NvmlSampleItem *item = g_new0 (NvmlSampleItem, 1);

          item->gpu = i;
          item->timestamp = now_mono ();
          if (ks_nvml_sample (self->nvml, i, &item->sample))
            {
              g_mutex_lock (&self->mutex);
              if (i < G_N_ELEMENTS (self->stats.gpus))
                {
                  if (item->sample.fields & KS_NVML_HAS_UTILIZATION)
                    self->stats.gpus[i].utilization = (gint) item->sample.utilization_gpu;
                  if (item->sample.fields & KS_NVML_HAS_MEMORY)
                    {
                      self->stats.gpus[i].memory_used = (gint64) item->sample.memory_used;
                      self->stats.gpus[i].memory_total = (gint64) item->sample.memory_total;
                    }
                }
              g_mutex_unlock (&self->mutex);
              g_async_queue_push (self->samples, item);
            }
          else
            g_free (item);
        }

      next += period_us;
      /* Never try to catch up after a stall. */
      if (next < g_get_monotonic_time ())
        next = g_get_monotonic_time () + period_us;
    }
  return NULL;
}

static void
write_seen_processes (KsRecordSession *self)
{
  SeenProcess *p;

  while ((p = g_async_queue_try_pop (self->seen_processes)) != NULL)
    {
      write_process (self, p->pid, p->name);
      seen_process_free (p);
    }
  g_mutex_lock (&self->mutex);
  self->stats.processes = g_hash_table_size (self->processes);
  g_mutex_unlock (&self->mutex);
}

static void
write_samples (KsRecordSession *self)
{
  NvmlSampleItem *item;

  while ((item = g_async_queue_try_pop (self->samples)) != NULL)
    {
      const KsNvmlSample *s = &item->sample;
      guint base = item->gpu * 5;

      if (base + 4 < self->gpu_counters->len && item->timestamp >= self->filter_from)
        {
          guint32 *ids = &g_array_index (self->gpu_counters, guint32, base);

          if (s->fields & KS_NVML_HAS_UTILIZATION)
            ks_record_writer_add_sample (self->writer, ids[0], item->timestamp, s->utilization_gpu);
          if (s->fields & KS_NVML_HAS_MEMORY)
            ks_record_writer_add_sample (self->writer, ids[1], item->timestamp, (double) s->memory_used);
          if (s->fields & KS_NVML_HAS_TEMPERATURE)
            ks_record_writer_add_sample (self->writer, ids[2], item->timestamp, s->temperature);
          if (s->fields & KS_NVML_HAS_POWER)
            ks_record_writer_add_sample (self->writer, ids[3], item->timestamp, s->power);
          if (s->fields & KS_NVML_HAS_SM_CLOCK)
            ks_record_writer_add_sample (self->writer, ids[4], item->timestamp, s->sm_clock);
        }
      g_free (item);
    }
}

/* Receiving thread: owns the connections and the writer while it runs. */

/* How long a connection that ended without a goodbye waits to be
 * resumed; the library connects again within a tick or two. */
#define DETACHED_KEEP_US (5 * G_USEC_PER_SEC)

/* Done with @c: its drops join the total. */
static void
retire_connection (KsRecordSession    *self,
                   KsRecordConnection *c)
{
  self->dropped_total += c->channel_dropped + c->cupti_dropped;
  ks_record_connection_free (c);
}

/* With @may_resume, a connection that ended without a goodbye is kept a
 * while: the program may have closed the socket under the library, which
 * then connects again and resumes it (connection_resume()). */
static void
close_connection (KsRecordSession *self,
                  guint            index,
                  gboolean         may_resume)
{
  KsRecordConnection *c = g_ptr_array_steal_index (self->connections, index);

  if (may_resume && c->hello && !c->bye && !c->superseded)
    {
      close (c->fd);
      c->fd = -1;
      c->detached_at = g_get_monotonic_time ();
      g_ptr_array_add (self->detached, c);
    }
  else
    retire_connection (self, c);
  g_mutex_lock (&self->mutex);
  self->open_connections = self->connections->len;
  g_mutex_unlock (&self->mutex);
}

static void
expire_detached (KsRecordSession *self,
                 gint64           detached_before)
{
  for (guint i = self->detached->len; i > 0; i--)
    {
      KsRecordConnection *c = g_ptr_array_index (self->detached, i - 1);

      if (c->detached_at < detached_before)
        retire_connection (self, g_ptr_array_steal_index_fast (self->detached, i - 1));
    }
}

static guint64
count_dropped (KsRecordSession *self)
{
  guint64 n = self->dropped_total;

  for (guint i = 0; i < self->connections->len; i++)
    {
      KsRecordConnection *c = g_ptr_array_index (self->connections, i);

      n += c->channel_dropped + c->cupti_dropped;
    }
  for (guint i = 0; i < self->detached->len; i++)
    {
      KsRecordConnection *c = g_ptr_array_index (self->detached, i);

      n += c->channel_dropped + c->cupti_dropped;
    }
  return n;
}

static void
accept_connections (KsRecordSession *self)
{
  for (;;)
    {
      int fd = accept4 (self->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
      KsRecordConnection *c;

      if (fd < 0)
        break;
      if (self->connections->len >= MAX_CONNECTIONS)
        {
          close (fd);
          continue;
        }
      c = ks_record_connection_new (self);
      c->fd = fd;
      g_ptr_array_add (self->connections, c);
    }
  g_mutex_lock (&self->mutex);
  self->open_connections = self->connections->len;
  g_mutex_unlock (&self->mutex);
}

/* Called with the mutex held, by the thread that writes. */
static void
note_write_failure (KsRecordSession *self)
{
  const GError *error = ks_record_writer_get_error (self->writer);

  if (error == NULL)
    return;
  if (self->write_error == NULL)
    self->write_error = g_strdup (error->message);
  self->stats.written_until_s = (ks_record_writer_get_written_until (self->writer) - self->start_mono) / 1e9;
  self->stats.unwritten = ks_record_writer_get_unwritten (self->writer);
}

static gpointer
io_thread (gpointer data)
{
  KsRecordSession *self = data;
  g_autofree guint8 *buf = g_malloc (256 * 1024);
  g_autofree struct pollfd *fds = g_new0 (struct pollfd, MAX_CONNECTIONS + 2);

  for (;;)
    {
      guint n = self->connections->len;
      gboolean stopping;
      gint64 deadline;

      fds[0].fd = self->listen_fd;
      fds[0].events = POLLIN;
      fds[1].fd = self->wake_pipe[0];
      fds[1].events = POLLIN;
      for (guint i = 0; i < n; i++)
        {
          KsRecordConnection *c = g_ptr_array_index (self->connections, i);

          fds[i + 2].fd = c->fd;
          fds[i + 2].events = POLLIN;
          fds[i + 2].revents = 0;
        }

      poll (fds, n + 2, 100);

      if (fds[1].revents & POLLIN)
        {
          char drain[64];

          while (read (self->wake_pipe[0], drain, sizeof drain) > 0)
            ;
        }

      /* Oldest first, so that a process that came back on a new
       * connection (connection_resume()) has its earlier one read first;
       * closing waits for the end of the walk. */
      for (guint i = 0; i < n; i++)
        {
          KsRecordConnection *c = g_ptr_array_index (self->connections, i);

          if (c->superseded || !(fds[i + 2].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
          for (;;)
            {
              ssize_t r = read (c->fd, buf, 256 * 1024);

              if (r > 0)
                {
                  if (!ks_record_connection_feed (c, buf, (gsize) r))
                    {
                      g_autofree char *text = g_strdup_printf ("malformed data from pid %" G_GINT64_FORMAT
                                                               "; its connection was closed", c->pid);

                      ks_record_writer_add_diagnostic (self->writer, now_mono (), "error", "recorder", text);
                      c->closing = CLOSING_MALFORMED;
                      break;
                    }
                  continue;
                }
              if (r < 0 && (errno == EAGAIN || errno == EINTR))
                break;
              c->closing = CLOSING_ENDED;
              break;
            }
        }
      for (guint i = n; i > 0; i--)
        {
          KsRecordConnection *c = g_ptr_array_index (self->connections, i - 1);

          if (c->superseded || c->closing != CLOSING_NOT)
            close_connection (self, i - 1, c->closing == CLOSING_ENDED);
        }

      if (fds[0].revents & POLLIN)
        accept_connections (self);
      expire_detached (self, g_get_monotonic_time () - DETACHED_KEEP_US);

      write_samples (self);
      write_seen_processes (self);
      ks_record_writer_commit_if_due (self->writer);

      g_mutex_lock (&self->mutex);
      stopping = self->stopping;
      deadline = self->stop_deadline_us;
      self->stats.events = ks_record_writer_get_counts (self->writer)->rows;
      self->stats.dropped = count_dropped (self);
      /* Writing stopped: keep reading, so that no process ever waits for
       * us, and count what is not written. */
      note_write_failure (self);
      g_mutex_unlock (&self->mutex);

      if (stopping && (self->connections->len == 0 || g_get_monotonic_time () >= deadline))
        break;
    }

  /* Connections still open at the deadline: keep what they sent. */
  while (self->connections->len > 0)
    close_connection (self, self->connections->len - 1, FALSE);
  expire_detached (self, G_MAXINT64);
  write_samples (self);
  return NULL;
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
  if (self->nvml != NULL)
    {
      create_gpu_counters (self);
      self->nvml_thread = g_thread_new ("ks-nvml", nvml_thread, self);
    }
  self->io_thread = g_thread_new ("ks-record-io", io_thread, self);
}

/* Processes of the job that never use CUDA or NVTX (DataLoader workers,
 * shells) never connect; they are found here, as descendants of the
 * command in /proc, so that PROCESSES lists the whole job. */
void
ks_record_session_scan_processes (KsRecordSession *self)
{
  g_autoptr(GHashTable) parent = g_hash_table_new (NULL, NULL);
  g_autoptr(GPtrArray) queue = g_ptr_array_new ();
  g_autoptr(GDir) dir = NULL;
  const char *entry;

  if (self->command_pid <= 0 || (dir = g_dir_open ("/proc", 0, NULL)) == NULL)
    return;

  while ((entry = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autofree char *stat = NULL;
      const char *close_paren;
      gint64 pid;
      gint64 ppid = 0;

      if (!g_ascii_isdigit (entry[0]))
        continue;
      pid = g_ascii_strtoll (entry, NULL, 10);
      path = g_strdup_printf ("/proc/%s/stat", entry);
      if (!g_file_get_contents (path, &stat, NULL, NULL))
        continue;
      /* "pid (comm) state ppid ...": comm may hold spaces and parentheses */
      close_paren = strrchr (stat, ')');
      if (close_paren != NULL && sscanf (close_paren + 1, " %*c %" G_GINT64_FORMAT, &ppid) == 1)
        g_hash_table_insert (parent, GINT_TO_POINTER ((int) pid), GINT_TO_POINTER ((int) ppid));
    }

  g_ptr_array_add (queue, GINT_TO_POINTER ((int) self->command_pid));
  for (guint i = 0; i < queue->len; i++)
    {
      int pid = GPOINTER_TO_INT (g_ptr_array_index (queue, i));
      GHashTableIter iter;
      gpointer key;
      gpointer value;

      {
        g_autofree char *path = g_strdup_printf ("/proc/%d/comm", pid);
        g_autofree char *name = NULL;

        /* new, or renamed by exec() since the last scan */
        if (g_file_get_contents (path, &name, NULL, NULL)
            && g_strcmp0 (g_strchomp (name), g_hash_table_lookup (self->scanned, GINT_TO_POINTER (pid))) != 0)
          {
            SeenProcess *p = g_new0 (SeenProcess, 1);

            p->pid = pid;
            p->name = g_strdup (name);
            g_hash_table_insert (self->scanned, GINT_TO_POINTER (pid), g_steal_pointer (&name));
            g_async_queue_push (self->seen_processes, p);
          }
      }

      g_hash_table_iter_init (&iter, parent);
      while (g_hash_table_iter_next (&iter, &key, &value))
        if (GPOINTER_TO_INT (value) == pid)
          g_ptr_array_add (queue, key);
    }
}

void
ks_record_session_get_stats (KsRecordSession *self,
                             KsRecordStats   *stats)
{
  g_mutex_lock (&self->mutex);
  *stats = self->stats;
  g_mutex_unlock (&self->mutex);
  stats->elapsed_s = (now_mono () - self->start_mono) / 1e9;
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

static void
write_gpus (KsRecordSession *self)
{
  GHashTable *written = g_hash_table_new (g_str_hash, g_str_equal);
  guint n_nvml = self->nvml ? ks_nvml_get_n_devices (self->nvml) : 0;

  /* CUPTI knows the CUDA ordinal and the hardware details; NVML the PCI
   * location. Joined by UUID, never by index (CUDA_VISIBLE_DEVICES). */
  for (guint i = 0; i < self->cupti_gpus->len; i++)
    {
      KsRecordGpu *gpu = g_ptr_array_index (self->cupti_gpus, i);

      if (g_hash_table_contains (written, gpu->uuid))
        continue;
      for (guint k = 0; k < n_nvml; k++)
        {
          const KsNvmlDevice *d = ks_nvml_get_device (self->nvml, k);

          if (d->uuid != NULL && g_ascii_strcasecmp (d->uuid, gpu->uuid) == 0)
            {
              gpu->bus_location = g_strdup (d->bus_id);
              if ((gint) d->index != gpu->id)
                {
                  g_autofree char *sql_note = g_strdup_printf ("NVML device %u is CUDA device %d (%s)",
                                                               d->index, gpu->id, gpu->uuid);

                  ks_record_writer_add_diagnostic (self->writer, 0, "info", "nvml", sql_note);
                }
            }
        }
      ks_record_writer_add_gpu (self->writer, gpu);
      g_hash_table_add (written, gpu->uuid);
    }

  for (guint k = 0; k < n_nvml; k++)
    {
      const KsNvmlDevice *d = ks_nvml_get_device (self->nvml, k);
      gboolean known = FALSE;

      for (guint i = 0; i < self->cupti_gpus->len; i++)
        {
          KsRecordGpu *gpu = g_ptr_array_index (self->cupti_gpus, i);

          if (d->uuid != NULL && g_ascii_strcasecmp (d->uuid, gpu->uuid) == 0)
            known = TRUE;
        }
      if (!known)
        {
          KsRecordGpu gpu = { 0 };

          gpu.id = (gint) d->index;
          gpu.name = d->name;
          gpu.uuid = d->uuid;
          gpu.bus_location = d->bus_id;
          gpu.total_memory = d->total_memory;
          ks_record_writer_add_gpu (self->writer, &gpu);
        }
    }
  g_hash_table_unref (written);
}

gboolean
ks_record_session_finish (KsRecordSession  *self,
                          guint             grace_ms,
                          gboolean          complete,
                          const char       *end_reason,
                          GError          **error)
{
  g_autofree char *dropped = NULL;
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
  write_samples (self);
  write_seen_processes (self);

  if (self->command_pid > 0 && !g_hash_table_contains (self->processes, &(gint64) { self->command_pid }))
    write_process (self, self->command_pid, self->command_name);
  write_gpus (self);

  dropped = g_strdup_printf ("%" G_GUINT64_FORMAT, self->dropped_total);
  ks_record_writer_set_meta (self->writer, "dropped_records", dropped);
  if (self->dropped_total > 0)
    {
      g_autofree char *text = g_strdup_printf ("%" G_GUINT64_FORMAT " events were dropped "
                                               "(in-process buffers full or CUPTI buffers exhausted)",
                                               self->dropped_total);

      ks_record_writer_add_diagnostic (self->writer, now_mono (), "warning", "recorder", text);
    }
  if (end_reason != NULL)
    ks_record_writer_set_meta (self->writer, KS_RECORD_META_END_REASON, end_reason);
  {
    g_autofree char *trace = ks_record_trace_to_string (self->options.trace);

    ks_record_writer_add_capture_meta (self->writer, "trace", trace);
  }
  ks_record_writer_add_capture_meta (self->writer, "capture_range", self->options.capture_range);

  ok = ks_record_writer_finish (self->writer, now_mono (), complete, error);
  g_mutex_lock (&self->mutex);
  note_write_failure (self);
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
  return self->dropped_total;
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
  g_ptr_array_unref (self->connections);
  g_ptr_array_unref (self->detached);
  g_hash_table_unref (self->gpu_uuids);
  g_hash_table_destroy (self->processes);
  g_array_unref (self->gpu_counters);
  g_async_queue_unref (self->samples);
  g_async_queue_unref (self->seen_processes);
  g_hash_table_unref (self->scanned);
  g_mutex_clear (&self->mutex);
  g_cond_clear (&self->cond);
  g_free (self->options.capture_range);
  g_free (self->output_path);
  g_free (self->socket_dir);
  g_free (self->socket_path);
  g_free (self->inject_dir);
  g_free (self->command_name);
  g_free (self->write_error);
  g_free (self);
}
