/* ks-trace-loader.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-trace-loader"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include <gio/gunixinputstream.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <sqlite3.h>

#include "ks-gzip.h"
#include "ks-json-reader.h"
#include "ks-memsnap-reader.h"
#include "ks-nvsmi-private.h"
#include "ks-nvsmi-reader.h"
#include "ks-pickle.h"
#include "ks-sqlite-reader.h"
#include "ks-trace-loader.h"
#include "ks-trace-private.h"

#define SNIFF_LEN (64 * 1024)
#define SQLITE_MAGIC "SQLite format 3"

static gboolean
is_sqlite (const guint8 *data,
           gsize         len)
{
  return len >= 16 && memcmp (data, SQLITE_MAGIC, 16) == 0;
}

static gboolean
is_kscope (const guint8 *data,
           gsize         len)
{
  /* PRAGMA application_id, big-endian at offset 68: "KSCO" */
  return is_sqlite (data, len) && len >= 72 && memcmp (data + 68, "KSCO", 4) == 0;
}

static gboolean
contains (const guint8 *data,
          gsize         len,
          const char   *needle)
{
  gsize n = strlen (needle);
  const guint8 *p = data;
  const guint8 *end = data + len;

  while (end - p >= (gssize)n)
    {
      p = memchr (p, needle[0], end - p - n + 1);
      if (p == NULL)
        return FALSE;
      if (memcmp (p, needle, n) == 0)
        return TRUE;
      p++;
    }
  return FALSE;
}

static KsFormat
sniff_json (const guint8 *data,
            gsize         len)
{
  static const char *kineto_marks[] = {
    "\"schemaVersion\"", "\"deviceProperties\"", "\"computeProperties\"",
    "\"baseTimeNanoseconds\"", "\"cpu_op\"", "\"cuda_runtime\"", "\"python_function\"",
    "\"user_annotation\"", "\"gpu_memcpy\"", "\"Operator\"", "\"ProfilerStep#",
  };
  gsize i = 0;

  /* UTF-8 byte order mark */
  if (len >= 3 && data[0] == 0xef && data[1] == 0xbb && data[2] == 0xbf)
    i = 3;
  while (i < len && g_ascii_isspace (data[i]))
    i++;
  if (i >= len || (data[i] != '{' && data[i] != '['))
    return KS_FORMAT_UNKNOWN;

  for (guint k = 0; k < G_N_ELEMENTS (kineto_marks); k++)
    if (contains (data, len, kineto_marks[k]))
      return KS_FORMAT_KINETO_JSON;
  return KS_FORMAT_CHROME_JSON;
}

KsFormat
ks_trace_detect_format_from_data (const guint8 *data,
                                  gsize         len)
{
  KsFormat format;

  if (len == 0)
    return KS_FORMAT_UNKNOWN;
  if (is_kscope (data, len))
    return KS_FORMAT_KSCOPE;
  /* Any pickle: the snapshot reader names what else it holds. */
  if (ks_pickle_has_magic (data, len))
    return KS_FORMAT_MEMORY_SNAPSHOT;
  if (is_sqlite (data, len))
    return KS_FORMAT_NSYS_SQLITE;
  if (ks_gzip_has_magic (data, len))
    {
      g_autoptr(KsGzip) gz = ks_gzip_new ();
      g_autofree guint8 *out = g_malloc (SNIFF_LEN);
      gssize n;

      ks_gzip_set_input (gz, data, len);
      n = ks_gzip_inflate (gz, out, SNIFF_LEN, NULL);
      if (n <= 0)
        return KS_FORMAT_UNKNOWN;
      return sniff_json (out, n);
    }
  format = sniff_json (data, len);
  if (format == KS_FORMAT_UNKNOWN && ks_nvsmi_sniff (data, len, FALSE) != KS_NVSMI_NONE)
    format = KS_FORMAT_NVIDIA_SMI;
  return format;
}

/* A gzip member's header may carry a file name or a comment of any
 * length, so its first output can lie past the first SNIFF_LEN bytes:
 * reading on is bounded by this much header. */
#define MAX_GZIP_HEADER (16 * 1024 * 1024)

/* The first output of the gzip file whose first @len bytes are in
 * @data (reused as a buffer) and the rest in @stream. */
static gssize
inflate_start (GInputStream  *stream,
               guint8        *data,
               gsize          len,
               guint8        *out,
               gboolean      *complete,
               gboolean      *long_header,
               GError       **error)
{
  g_autoptr(KsGzip) gz = ks_gzip_new ();
  gsize total = len;
  gssize n;

  ks_gzip_set_input (gz, data, len);
  n = ks_gzip_inflate (gz, out, SNIFF_LEN, error);
  while (n == 0 && !ks_gzip_is_complete (gz) && len == SNIFF_LEN && total < MAX_GZIP_HEADER)
    {
      if (!g_input_stream_read_all (stream, data, SNIFF_LEN, &len, NULL, error))
        return -1;
      total += len;
      ks_gzip_set_input (gz, data, len);
      n = ks_gzip_inflate (gz, out, SNIFF_LEN, error);
    }
  *complete = ks_gzip_is_complete (gz);
  *long_header = n == 0 && !*complete && total >= MAX_GZIP_HEADER;
  return n;
}

static void
set_not_regular (const char  *display,
                 mode_t       mode,
                 GError     **error)
{
  if (S_ISFIFO (mode))
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                 _("%s: a named pipe (FIFO), not a trace file; only regular files and folders can be opened"),
                 display);
  else if (S_ISCHR (mode))
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                 _("%s: a character device, not a trace file; only regular files and folders can be opened"),
                 display);
  else if (S_ISBLK (mode))
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                 _("%s: a block device, not a trace file; only regular files and folders can be opened"),
                 display);
  else if (S_ISSOCK (mode))
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                 _("%s: a socket, not a trace file; only regular files and folders can be opened"),
                 display);
  else
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE,
                 _("%s: a special file, not a trace file; only regular files and folders can be opened"),
                 display);
}

/* Opens @path for reading, or fails with an error naming @display.
 * Only a regular file opens (a symlink to one too: the user chose it): a
 * FIFO would block open() and every read() for good, and opening a
 * device can act on it, so the type is checked before the open, and
 * again on the open file, in case it was swapped in between; O_NONBLOCK
 * keeps that open from waiting on a FIFO. */
int
_ks_trace_open_regular_file (const char  *path,
                             const char  *display,
                             GError     **error)
{
  GStatBuf st;
  int fd, saved;

  if (g_stat (path, &st) != 0)
    {
      saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "%s: %s", display, g_strerror (saved));
      return -1;
    }
  if (S_ISDIR (st.st_mode))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_IS_DIRECTORY,
                   _("%s: a folder, not a trace file"), display);
      return -1;
    }
  if (!S_ISREG (st.st_mode))
    {
      set_not_regular (display, st.st_mode, error);
      return -1;
    }

  fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0);
  if (fd < 0)
    {
      saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   "%s: %s", display, g_strerror (saved));
      return -1;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      set_not_regular (display, st.st_mode, error);
      g_close (fd, NULL);
      return -1;
    }
  return fd;
}

/* A database without our application id is an Nsight Systems export
 * when it has StringIds and CUPTI or NVTX tables (TRACE_FORMAT.md). */
static gboolean
check_nsys_tables (GFile   *file,
                   const char *name,
                   GError **error)
{
  g_autofree char *path = g_file_get_path (file);
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  gboolean strings = FALSE, activity = FALSE;
  int rc;

  if (path == NULL)
    return TRUE;   /* not a local file: the reader will tell */

  rc = ks_sqlite_open_untrusted (path, &db);
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2 (db, "SELECT name FROM sqlite_master WHERE type = 'table'", -1, &stmt, NULL);
  if (rc != SQLITE_OK)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: cannot read the SQLite database: %s"), name,
                   db ? sqlite3_errmsg (db) : sqlite3_errstr (rc));
      sqlite3_close (db);
      return FALSE;
    }
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      const char *table = (const char *)sqlite3_column_text (stmt, 0);

      if (table == NULL)
        continue;
      if (strcmp (table, "StringIds") == 0)
        strings = TRUE;
      else if (g_str_has_prefix (table, "CUPTI_ACTIVITY_KIND_") || strcmp (table, "NVTX_EVENTS") == 0)
        activity = TRUE;
    }
  if (rc != SQLITE_DONE)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: cannot read the SQLite database: %s"), name, sqlite3_errmsg (db));
      sqlite3_finalize (stmt);
      sqlite3_close (db);
      return FALSE;
    }
  sqlite3_finalize (stmt);
  sqlite3_close (db);

  if (!strings || !activity)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: a SQLite database but not a trace: it has no %s"), name,
                   !strings ? "StringIds table" : "CUPTI_ACTIVITY_KIND_* or NVTX_EVENTS table");
      return FALSE;
    }
  return TRUE;
}

static KsFormat detect_format (GFile    *file,
                               gboolean  have_columns,
                               GError  **error);

KsFormat
ks_trace_detect_format (GFile   *file,
                        GError **error)
{
  return detect_format (file, FALSE, error);
}

static KsFormat
detect_format (GFile    *file,
               gboolean  have_columns,
               GError  **error)
{
  g_autofree char *name = NULL;
  g_autofree char *path = NULL;
  g_autoptr(GInputStream) stream = NULL;
  g_autofree guint8 *data = NULL;
  GError *local_error = NULL;
  gsize len = 0;
  KsFormat format;

  g_return_val_if_fail (G_IS_FILE (file), KS_FORMAT_UNKNOWN);

  name = g_file_get_parse_name (file);

  if (g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, NULL) == G_FILE_TYPE_DIRECTORY)
    {
      g_autoptr(GFileEnumerator) children = NULL;

      /* a folder that cannot be listed says why, not that it is empty */
      children = g_file_enumerate_children (file, G_FILE_ATTRIBUTE_STANDARD_NAME, G_FILE_QUERY_INFO_NONE,
                                            NULL, &local_error);
      if (children == NULL)
        {
          if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED))
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED,
                         _("%s: the folder cannot be read: permission denied"), name);
          else
            g_set_error (error, G_IO_ERROR, local_error->code, _("%s: the folder cannot be read: %s"),
                         name, local_error->message);
          g_clear_error (&local_error);
          return KS_FORMAT_UNKNOWN;
        }
      if (!ks_json_reader_is_trace_folder (file))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                       _("%s: the folder holds no trace files (*.json, *.json.gz)"), name);
          return KS_FORMAT_UNKNOWN;
        }
      return KS_FORMAT_KINETO_JSON;
    }

  path = g_file_get_path (file);
  if (path != NULL)
    {
      int fd = _ks_trace_open_regular_file (path, name, error);

      if (fd < 0)
        return KS_FORMAT_UNKNOWN;
      stream = g_unix_input_stream_new (fd, TRUE);
    }
  else
    {
      /* Not a local file (a GVfs location): no FIFOs there, but the type
       * is asked all the same. */
      g_autoptr(GFileInfo) info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_TYPE,
                                                     G_FILE_QUERY_INFO_NONE, NULL, NULL);

      if (info != NULL && g_file_info_get_file_type (info) == G_FILE_TYPE_SPECIAL)
        {
          set_not_regular (name, 0, error);
          return KS_FORMAT_UNKNOWN;
        }
      stream = G_INPUT_STREAM (g_file_read (file, NULL, &local_error));
      if (stream == NULL)
        {
          g_propagate_prefixed_error (error, local_error, "%s: ", name);
          return KS_FORMAT_UNKNOWN;
        }
    }
  data = g_malloc (SNIFF_LEN);
  if (!g_input_stream_read_all (stream, data, SNIFF_LEN, &len, NULL, &local_error))
    {
      g_propagate_prefixed_error (error, local_error, "%s: ", name);
      return KS_FORMAT_UNKNOWN;
    }

  if (len == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("%s: the file is empty"), name);
      return KS_FORMAT_UNKNOWN;
    }
  if (len >= 4 && memcmp (data, "PK\x03\x04", 4) == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("%s: zip archives are not supported; extract the trace first"), name);
      return KS_FORMAT_UNKNOWN;
    }

  format = ks_trace_detect_format_from_data (data, len);
  /* --columns: a csv log without header or units, which nothing else
   * tells from any other csv */
  if (format == KS_FORMAT_UNKNOWN && have_columns && ks_nvsmi_sniff (data, len, TRUE) != KS_NVSMI_NONE)
    format = KS_FORMAT_NVIDIA_SMI;
  if (format == KS_FORMAT_NSYS_SQLITE && !check_nsys_tables (file, name, error))
    return KS_FORMAT_UNKNOWN;
  if (format == KS_FORMAT_UNKNOWN)
    {
      if (ks_gzip_has_magic (data, len))
        {
          g_autofree guint8 *out = g_malloc (SNIFF_LEN);
          g_autoptr(GError) gz_error = NULL;
          gboolean complete = FALSE, long_header = FALSE;
          gssize n;

          n = inflate_start (stream, data, len, out, &complete, &long_header, &gz_error);
          if (n > 0)
            format = sniff_json (out, n);
          if (format != KS_FORMAT_UNKNOWN)
            ;
          else if (n < 0)
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: %s", name, gz_error->message);
          else if (long_header)
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                         _("%s: a gzip header (file name or comment) longer than %d MiB"),
                         name, MAX_GZIP_HEADER >> 20);
          else if (n == 0 && !complete)
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                         _("%s: the compressed file was truncated before any data"), name);
          else
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                         _("%s: compressed data that is not a JSON trace"), name);
        }
      else if (ks_nvsmi_is_utf16 (data, len))
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     _("%s: UTF-16 text that is not an nvidia-smi log; only UTF-8 text is read as a trace"),
                     name);
      else
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     _("%s: not a trace file: neither JSON, gzip-compressed JSON, a SQLite database, an nvidia-smi log nor a PyTorch memory snapshot"),
                     name);
    }
  return format;
}

KsTrace *
ks_trace_load (GFile         *file,
               KsProgress    *progress,
               GCancellable  *cancellable,
               GError       **error)
{
  return ks_trace_load_with_options (file, NULL, progress, cancellable, error);
}

KsTrace *
ks_trace_load_with_options (GFile                    *file,
                            const KsTraceLoadOptions *options,
                            KsProgress               *progress,
                            GCancellable             *cancellable,
                            GError                  **error)
{
  KsFormat format;
  KsTrace *trace;
  gint64 t0 = g_get_monotonic_time ();
  KsNvsmiOptions nvsmi = { 0 };

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  if (options != NULL)
    {
      nvsmi.interval = options->nvsmi_interval;
      nvsmi.columns = options->nvsmi_columns;
    }
  format = detect_format (file, nvsmi.columns != NULL, error);

  switch (format)
    {
    case KS_FORMAT_KINETO_JSON:
    case KS_FORMAT_CHROME_JSON:
      trace = ks_json_reader_load (file, progress, cancellable, error);
      break;

    case KS_FORMAT_KSCOPE:
    case KS_FORMAT_NSYS_SQLITE:
      trace = ks_sqlite_reader_load (file, progress, cancellable, error);
      break;

    case KS_FORMAT_NVIDIA_SMI:
      trace = ks_nvsmi_reader_load (file, &nvsmi, progress, cancellable, error);
      break;

    case KS_FORMAT_MEMORY_SNAPSHOT:
      trace = ks_memsnap_reader_load (file, progress, cancellable, error);
      break;

    case KS_FORMAT_UNKNOWN:
    default:
      return NULL;
    }

  if (trace != NULL)
    {
      g_autofree char *ms = g_strdup_printf ("%.1f", (g_get_monotonic_time () - t0) / 1000.0);

      g_hash_table_replace (trace->metadata, g_strdup ("load_time_ms"), g_steal_pointer (&ms));
      if (progress != NULL)
        ks_progress_set_fraction (progress, 1.0);
    }
  return trace;
}

/* A trace and a memory snapshot of the same run: the snapshot's
 * allocations on the trace's time axis. Its time_us is the wall clock the
 * profiler's trace has (baseTimeNanoseconds), so the two must overlap in
 * time there. */
static KsTrace *
load_with_snapshot (GFile         *trace_file,
                    GFile         *snap_file,
                    KsProgress    *progress,
                    GCancellable  *cancellable,
                    GError       **error)
{
  g_autofree char *trace_name = g_file_get_parse_name (trace_file);
  g_autofree char *snap_name = g_file_get_parse_name (snap_file);
  g_autoptr(KsMemsnap) snap = ks_memsnap_load (snap_file, cancellable, error);
  g_autoptr(KsTrace) trace = NULL;
  gint64 first = G_MAXINT64, last = G_MININT64;

  if (snap == NULL)
    return NULL;
  trace = ks_trace_load (trace_file, progress, cancellable, error);
  if (trace == NULL)
    return NULL;
  if (trace->start_utc_ns == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: the trace has no wall clock (baseTimeNanoseconds) to put the memory snapshot %s on"),
                   trace_name, snap_name);
      return NULL;
    }
  for (guint d = 0; d < ks_memsnap_get_n_devices (snap); d++)
    {
      const KsMemsnapDevice *dev = ks_memsnap_get_device (snap, d);

      for (guint i = 0; i < dev->entries->len; i++)
        {
          gint64 t = g_array_index (dev->entries, KsMemsnapEntry, i).time_us;

          first = MIN (first, t);
          last = MAX (last, t);
        }
    }
  if (first > last)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: the snapshot holds no allocator history to put on the trace's time axis"), snap_name);
      return NULL;
    }
  /* µs since the epoch, against the trace's span in ns since the epoch */
  if (last > G_MAXINT64 / 1000 || first < 0 ||
      first * 1000 > trace->start_utc_ns + trace->duration_ns || last * 1000 < trace->start_utc_ns)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s and %s do not overlap in time: they are not of the same run"), snap_name, trace_name);
      return NULL;
    }
  g_hash_table_replace (trace->metadata, g_strdup ("memory_snapshot"), g_strdup (snap_name));
  ks_memsnap_reader_attach (trace, g_steal_pointer (&snap));
  return g_steal_pointer (&trace);
}

KsTrace *
ks_trace_load_files (GFile         **files,
                     guint           n_files,
                     KsProgress     *progress,
                     GCancellable   *cancellable,
                     GError        **error)
{
  g_autoptr(GString) names = g_string_new (NULL);
  KsTrace *trace;
  guint snap;

  g_return_val_if_fail (n_files > 0, NULL);

  if (n_files == 1)
    return ks_trace_load (files[0], progress, cancellable, error);

  if (ks_trace_files_are_with_snapshot (files, n_files, &snap))
    return load_with_snapshot (files[1 - snap], files[snap], progress, cancellable, error);

  /* The ranks of a job: PyTorch Profiler (or Chrome) JSON files, each a
   * file of its own; a folder or a recording is a job by itself. */
  for (guint i = 0; i < n_files; i++)
    {
      g_autofree char *name = g_file_get_parse_name (files[i]);
      KsFormat format;

      if (g_file_query_file_type (files[i], G_FILE_QUERY_INFO_NONE, NULL) == G_FILE_TYPE_DIRECTORY)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       _("%s: a folder; open a folder by itself, or its files together"), name);
          return NULL;
        }
      format = ks_trace_detect_format (files[i], error);
      if (format == KS_FORMAT_UNKNOWN)
        return NULL;
      if (format != KS_FORMAT_KINETO_JSON && format != KS_FORMAT_CHROME_JSON)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                       _("%s: a %s file; only JSON traces (a file a rank) can be opened together"),
                       name, ks_format_to_string (format));
          return NULL;
        }
      if (i < 3)
        g_string_append_printf (names, "%s%s", i > 0 ? ", " : "", name);
    }
  if (n_files > 3)
    g_string_append_printf (names, _(", … (%u files)"), n_files);

  trace = ks_json_reader_load_files (files, n_files, names->str, progress, cancellable, error);
  if (trace != NULL && progress != NULL)
    ks_progress_set_fraction (progress, 1.0);
  return trace;
}

typedef struct
{
  GFile              *file;
  KsProgress         *progress;
  KsTraceLoadOptions  options;
  char               *columns;   /* options.nvsmi_columns, owned */
} LoadData;

static void
load_data_free (gpointer data)
{
  LoadData *ld = data;

  g_clear_object (&ld->file);
  g_clear_pointer (&ld->progress, ks_progress_unref);
  g_free (ld->columns);
  g_free (ld);
}

static void
load_thread (GTask        *task,
             gpointer      source_object,
             gpointer      task_data,
             GCancellable *cancellable)
{
  LoadData *ld = task_data;
  GError *error = NULL;
  KsTrace *trace = ks_trace_load_with_options (ld->file, &ld->options, ld->progress, cancellable, &error);

  if (trace == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, trace, g_object_unref);
}

void
ks_trace_load_async (GFile               *file,
                     KsProgress          *progress,
                     GCancellable        *cancellable,
                     GAsyncReadyCallback  callback,
                     gpointer             user_data)
{
  ks_trace_load_with_options_async (file, NULL, progress, cancellable, callback, user_data);
}

void
ks_trace_load_with_options_async (GFile                    *file,
                                  const KsTraceLoadOptions *options,
                                  KsProgress               *progress,
                                  GCancellable             *cancellable,
                                  GAsyncReadyCallback       callback,
                                  gpointer                  user_data)
{
  g_autoptr(GTask) task = NULL;
  LoadData *ld;

  g_return_if_fail (G_IS_FILE (file));

  ld = g_new0 (LoadData, 1);
  ld->file = g_object_ref (file);
  ld->progress = progress ? ks_progress_ref (progress) : NULL;
  if (options != NULL)
    {
      ld->options.nvsmi_interval = options->nvsmi_interval;
      ld->options.nvsmi_columns = ld->columns = g_strdup (options->nvsmi_columns);
    }

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, ks_trace_load_async);
  g_task_set_task_data (task, ld, load_data_free);
  g_task_run_in_thread (task, load_thread);
}

gboolean
ks_trace_files_are_with_snapshot (GFile **files,
                                  guint   n_files,
                                  guint  *snapshot)
{
  KsFormat a, b;

  if (n_files != 2)
    return FALSE;
  a = ks_trace_detect_format (files[0], NULL);
  b = ks_trace_detect_format (files[1], NULL);
  if (a == KS_FORMAT_UNKNOWN || b == KS_FORMAT_UNKNOWN ||
      (a == KS_FORMAT_MEMORY_SNAPSHOT) == (b == KS_FORMAT_MEMORY_SNAPSHOT))
    return FALSE;
  if (snapshot != NULL)
    *snapshot = a == KS_FORMAT_MEMORY_SNAPSHOT ? 0 : 1;
  return TRUE;
}

KsTrace *
ks_trace_load_finish (GAsyncResult  *result,
                      GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == ks_trace_load_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
