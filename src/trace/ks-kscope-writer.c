/* ks-kscope-writer.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-kscope-writer"

#define _GNU_SOURCE  /* renameat2() */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "ks-kscope-schema.h"
#include "ks-kscope-writer.h"
#include "ks-kscope-writer-private.h"
#include "ks-signals.h"
#include "ks-sqlite-private.h"

/* Rows per transaction: large enough that commits cost nothing, small
 * enough that SQLite's dirty page cache stays bounded. */
#define BATCH_ROWS 262144
/* Rows between two looks at the progress and the cancellable. */
#define PROGRESS_ROWS 16384

/* The columns each table gets from a saved trace (see
 * ks_kscope_schema_prepare_insert()); parameters in this order. A table
 * missing here gets every column, in the order of its definition. */

static const char * const insert_columns[KS_KSCOPE_N_TABLES] = {
  [KS_KSCOPE_KERNEL] =
    "start, end, deviceId, contextId = 0, streamId, correlationId, globalPid, demangledName, "
    "shortName, launchType = 0, registersPerThread, gridX, gridY, gridZ, blockX, blockY, blockZ, "
    "staticSharedMemory, dynamicSharedMemory = 0, localMemoryPerThread = 0, localMemoryTotal = 0, "
    "gridId = 0, categoryId, externalId, args",
  [KS_KSCOPE_MEMCPY] =
    "start, end, deviceId, contextId = 0, streamId, correlationId, globalPid, bytes, copyKind, "
    "srcKind, dstKind, nameId, categoryId, externalId, args",
  [KS_KSCOPE_MEMSET] =
    "start, end, deviceId, contextId = 0, streamId, correlationId, globalPid, value, bytes, "
    "memKind, nameId, categoryId, externalId, args",
  [KS_KSCOPE_RUNTIME] =
    "start, end, eventClass, globalTid, correlationId, nameId, returnValue = 0, categoryId, "
    "externalId, args",
  [KS_KSCOPE_SYNC] =
    "start, end, deviceId, contextId = 0, streamId, correlationId, globalPid, syncType, "
    "eventId = 4294967295, nameId, categoryId, externalId, args",
  [KS_KSCOPE_NVTX] =
    "start, end, eventType, text, globalTid, endGlobalTid, textId, domainId, jsonText, "
    "correlationId, externalId",
  [KS_KSCOPE_OSRT] =
    "start, end, eventClass = 27, globalTid, nameId, returnValue = 0, nestingLevel, "
    "callchainId = 0, categoryId, correlationId, externalId, args",
  [KS_KSCOPE_KS_COUNTERS] = "id, name, unit, deviceId, globalPid",
  [KS_KSCOPE_COMPOSITE_EVENTS] = "id, start, globalTid, callchainId, waiting, cpuCycles = 0",
  [KS_KSCOPE_SAMPLING_CALLCHAINS] = "id, symbol, module, stackDepth, lineNumber",
};


gboolean
ks_kscope_writer_sqlite_error (Writer  *w,
                               int      rc,
                               GError **error)
{
  int saved = errno;  /* before anything else: the failed write's reason */
  const char *msg = w->db ? sqlite3_errmsg (w->db) : sqlite3_errstr (rc);
  int code = G_IO_ERROR_FAILED;
  int ext = w->db ? sqlite3_extended_errcode (w->db) : rc;
  int sys = w->db ? sqlite3_system_errno (w->db) : 0;

  if (rc == SQLITE_FULL)
    code = G_IO_ERROR_NO_SPACE;
  else if (rc == SQLITE_PERM || rc == SQLITE_READONLY || rc == SQLITE_CANTOPEN)
    code = G_IO_ERROR_PERMISSION_DENIED;

  /* SQLite says "disk I/O error"; the system says why (EFBIG, EIO...). */
  if (sys == 0 && (ext == SQLITE_IOERR_WRITE || ext == SQLITE_IOERR_FSYNC || ext == SQLITE_IOERR_TRUNCATE))
    sys = saved;
  if ((rc & 0xff) == SQLITE_IOERR && sys != 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (sys),
                   _("Could not write “%s”: %s (%s)"), w->display, msg, g_strerror (sys));
      return FALSE;
    }

  g_set_error (error, G_IO_ERROR, code,
               _("Could not write “%s”: %s"), w->display, msg);
  return FALSE;
}

gboolean
ks_kscope_writer_exec (Writer      *w,
                       const char  *sql,
                       GError     **error)
{
  int rc = sqlite3_exec (w->db, sql, NULL, NULL, NULL);

  if (rc != SQLITE_OK)
    return ks_kscope_writer_sqlite_error (w, rc, error);
  return TRUE;
}

sqlite3_stmt *
ks_kscope_writer_table_stmt (Writer         *w,
                             KsKscopeTable   id,
                             GError        **error)
{
  int rc;

  if (w->stmts[id] != NULL)
    return w->stmts[id];

  /* Tables are created on their first row, so absent means empty. */
  rc = ks_kscope_schema_create_table (w->db, id);
  if (rc == SQLITE_OK)
    rc = ks_kscope_schema_prepare_insert (w->db, id, insert_columns[id], &w->stmts[id]);
  if (rc != SQLITE_OK)
    {
      ks_kscope_writer_sqlite_error (w, rc, error);
      return NULL;
    }

  return w->stmts[id];
}

gboolean
ks_kscope_writer_report_progress (Writer  *w,
                                  GError **error)
{
  if (g_cancellable_set_error_if_cancelled (w->cancellable, error))
    return FALSE;
  if (w->progress != NULL && w->total > 0)
    ks_progress_set_fraction (w->progress, MIN (1.0, (double)w->done / (double)w->total));
  return TRUE;
}

gboolean
ks_kscope_writer_insert_row (Writer        *w,
                             KsKscopeTable        id,
                             sqlite3_stmt  *stmt,
                             GError       **error)
{
  int rc = sqlite3_step (stmt);

  sqlite3_reset (stmt);
  if (rc != SQLITE_DONE)
    return ks_kscope_writer_sqlite_error (w, rc, error);

  w->rows[id]++;
  if (++w->done % PROGRESS_ROWS == 0 && !ks_kscope_writer_report_progress (w, error))
    return FALSE;
  if (++w->pending >= BATCH_ROWS)
    {
      w->pending = 0;
      if (!ks_kscope_writer_exec (w, "COMMIT; BEGIN", error))
        return FALSE;
    }

  return TRUE;
}

/* String ids: the trace's own ids, then new ones for strings made here. */
gboolean
ks_kscope_writer_string_id (Writer      *w,
                            const char  *str,
                            guint32     *out_id,
                            GError     **error)
{
  guint32 id = ks_trace_lookup_string (w->trace, str);
  gpointer value;
  sqlite3_stmt *stmt;

  if (id != KS_NO_INDEX)
    {
      *out_id = id;
      return TRUE;
    }

  if (g_hash_table_lookup_extended (w->extra_strings, str, NULL, &value))
    {
      *out_id = GPOINTER_TO_UINT (value);
      return TRUE;
    }

  id = w->next_string++;
  g_hash_table_insert (w->extra_strings, g_strdup (str), GUINT_TO_POINTER (id));

  if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_STRING_IDS, error)))
    return FALSE;
  bind_i64 (stmt, 1, id);
  sqlite3_bind_text (stmt, 2, str, -1, SQLITE_TRANSIENT);
  if (!ks_kscope_writer_insert_row (w, KS_KSCOPE_STRING_IDS, stmt, error))
    return FALSE;

  *out_id = id;
  return TRUE;
}


static gboolean
write_enums (Writer  *w,
             GError **error)
{
  int rc = ks_kscope_schema_write_enums (w->db);

  if (rc != SQLITE_OK)
    return ks_kscope_writer_sqlite_error (w, rc, error);
  return TRUE;
}

static gboolean
write_indexes (Writer  *w,
               GError **error)
{
  for (guint i = 0; i < KS_KSCOPE_N_TABLES; i++)
    if (w->rows[i] > 0)
      {
        int rc = ks_kscope_schema_create_indexes (w->db, i);

        if (rc != SQLITE_OK)
          return ks_kscope_writer_sqlite_error (w, rc, error);
      }
  return TRUE;
}

/* In the last transaction: the file holds everything, so it may say
 * what the trace says about being complete. */
static gboolean
finish_complete (Writer  *w,
                 GError **error)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  rc = sqlite3_prepare_v2 (w->db, "UPDATE KS_META SET value = ? WHERE name = '" KS_KSCOPE_META_COMPLETE "'",
                           -1, &stmt, NULL);
  if (rc == SQLITE_OK)
    {
      sqlite3_bind_text (stmt, 1, w->complete, -1, SQLITE_STATIC);
      rc = sqlite3_step (stmt);
      if (rc == SQLITE_DONE)
        rc = SQLITE_OK;
    }
  sqlite3_finalize (stmt);
  if (rc != SQLITE_OK)
    return ks_kscope_writer_sqlite_error (w, rc, error);
  return TRUE;
}

static gboolean
write_all (Writer  *w,
           GError **error)
{
  int rc;

  /* A fresh temporary file that nobody else sees: no journal, no syncs
   * until the end; the rename is what makes it visible. */
  if (!ks_kscope_writer_exec (w, "PRAGMA page_size = 65536;"
                "PRAGMA journal_mode = OFF;"
                "PRAGMA synchronous = OFF;"
                "PRAGMA locking_mode = EXCLUSIVE;"
                "PRAGMA temp_store = MEMORY;"
                "PRAGMA cache_size = -65536;", error))
    return FALSE;
  rc = ks_kscope_schema_identify (w->db);
  if (rc != SQLITE_OK)
    return ks_kscope_writer_sqlite_error (w, rc, error);
  if (!ks_kscope_writer_exec (w, "BEGIN", error))
    return FALSE;

  /* KS_META first, committed on its own: from here on, a file left by
   * a process killed mid-write says complete=0. */
  if (!ks_kscope_writer_metadata (w, error) ||
      !ks_kscope_writer_exec (w, "COMMIT; BEGIN", error))
    return FALSE;
  w->pending = 0;

  if (!ks_kscope_writer_strings (w, error) ||
      !ks_kscope_writer_session (w, error) ||
      !ks_kscope_writer_processes_and_threads (w, error) ||
      !ks_kscope_writer_gpus (w, error) ||
      !ks_kscope_writer_tracks (w, error) ||
      !ks_kscope_writer_slices (w, error) ||
      !ks_kscope_writer_flows (w, error) ||
      !ks_kscope_writer_counters (w, error) ||
      !ks_kscope_writer_memory_events (w, error) ||
      !ks_kscope_writer_instants (w, error) ||
      !ks_kscope_writer_samples (w, error) ||
      !write_enums (w, error))
    return FALSE;

  if (!ks_kscope_writer_report_progress (w, error))
    return FALSE;
  if (w->progress != NULL)
    ks_progress_set_message (w->progress, _("Indexing"));

  if (!write_indexes (w, error) ||
      !finish_complete (w, error))
    return FALSE;

  return ks_kscope_writer_exec (w, "COMMIT", error);
}

static void
writer_clear (Writer *w)
{
  for (guint i = 0; i < KS_KSCOPE_N_TABLES; i++)
    g_clear_pointer (&w->stmts[i], sqlite3_finalize);
  g_clear_pointer (&w->db, sqlite3_close);
  if (w->launcher != NULL)
    for (guint32 t = 0; t < w->trace->n_tracks; t++)
      g_free (w->launcher[t]);
  g_clear_pointer (&w->launcher, g_free);
  g_clear_pointer (&w->process_gpid, g_free);
  g_clear_pointer (&w->thread_gtid, g_free);
  g_clear_pointer (&w->track_gpid, g_free);
  g_clear_pointer (&w->extra_strings, g_hash_table_unref);
  g_clear_pointer (&w->domains, g_hash_table_unref);
  g_clear_pointer (&w->display, g_free);
  if (w->args != NULL)
    g_string_free (g_steal_pointer (&w->args), TRUE);
}

static gboolean
sync_file (const char  *path,
           const char  *display,
           GError     **error)
{
  int fd = g_open (path, O_RDONLY | O_CLOEXEC, 0);
  int saved;

  if (fd >= 0 && fsync (fd) == 0)
    return g_close (fd, error);

  saved = errno;
  if (fd >= 0)
    g_close (fd, NULL);
  g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
               _("Could not write “%s”: %s"), display, g_strerror (saved));
  return FALSE;
}

/* The temporary file of the save in progress, for the cleanup that the
 * signal thread (ks-signals.c) runs before a signal's default action: a
 * fixed buffer, since the cleanup may not allocate. */
static char signal_temp[PATH_MAX];
static gboolean signal_temp_set;
static gboolean signal_cleanup;
/* Held while the temporary file's name and its existence change
 * together, so that the cleanup never sees one without the other. */
static GMutex temp_lock;

static void
remove_temp (void)
{
  g_mutex_lock (&temp_lock);
  if (signal_temp_set)
    unlink (signal_temp);
  signal_temp_set = FALSE;
  g_mutex_unlock (&temp_lock);
}

void
ks_kscope_write_remove_temp_on_signals (void)
{
  ks_signals_set_cleanup (remove_temp);
  signal_cleanup = TRUE;
}

/* Under temp_lock */
static void
track_temp (const char *path)
{
  if (path != NULL && g_strlcpy (signal_temp, path, sizeof signal_temp) < sizeof signal_temp)
    signal_temp_set = TRUE;
  else
    signal_temp_set = FALSE;
}

static gboolean
set_errno_error (int          saved,
                 const char  *display,
                 GError     **error)
{
  if (saved == EEXIST)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS,
                 _("Could not write “%s”: the file already exists"), display);
  else
    g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                 _("Could not write “%s”: %s"), display, g_strerror (saved));
  return FALSE;
}

/* Gives the finished temporary file its name: over an old file when
 * @replace, else only if the name is free, decided atomically by the
 * kernel (a file that appeared during the save is never replaced). */
static gboolean
publish (const char  *temp,
         const char  *path,
         gboolean     replace,
         const char  *display,
         GError     **error)
{
  struct stat st;
  int saved;

  if (replace)
    {
      if (g_rename (temp, path) == 0)
        return TRUE;
      return set_errno_error (errno, display, error);
    }

#if HAVE_RENAMEAT2
  if (renameat2 (AT_FDCWD, temp, AT_FDCWD, path, RENAME_NOREPLACE) == 0)
    return TRUE;
  saved = errno;
  /* EINVAL: a file system without RENAME_NOREPLACE; try a hard link. */
  if (saved != EINVAL && saved != ENOSYS && saved != EOPNOTSUPP)
    return set_errno_error (saved, display, error);
#endif

  /* link() fails with EEXIST as atomically; the temporary name goes after. */
  if (link (temp, path) == 0)
    {
      g_unlink (temp);
      return TRUE;
    }
  saved = errno;
  if (saved != EPERM && saved != ENOSYS && saved != EOPNOTSUPP && saved != EXDEV)
    return set_errno_error (saved, display, error);

  /* Neither (FAT, some network file systems): look, then rename. */
  if (g_lstat (path, &st) == 0)
    return set_errno_error (EEXIST, display, error);
  if (g_rename (temp, path) == 0)
    return TRUE;
  return set_errno_error (errno, display, error);
}

gboolean
ks_kscope_write_full (KsTrace             *trace,
                      GFile               *file,
                      KsKscopeWriteFlags   flags,
                      KsProgress          *progress,
                      GCancellable        *cancellable,
                      GError             **error)
{
  Writer w = { 0 };
  g_autofree char *path = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *base = NULL;
  g_autofree char *tmpl = NULL;
  gboolean ok = FALSE;
  int fd;
  int rc;

  g_return_val_if_fail (KS_IS_TRACE (trace), FALSE);
  g_return_val_if_fail (G_IS_FILE (file), FALSE);

  w.display = g_file_get_parse_name (file);
  path = g_file_get_path (file);
  if (path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("Could not write “%s”: only local files can be written"), w.display);
      writer_clear (&w);
      return FALSE;
    }

  dir = g_path_get_dirname (path);
  base = g_path_get_basename (path);
  tmpl = g_strdup_printf ("%s/.%s.XXXXXX", dir, base);
  g_mutex_lock (&temp_lock);
  fd = g_mkstemp_full (tmpl, O_RDWR | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      int saved = errno;

      g_mutex_unlock (&temp_lock);
      set_errno_error (saved, w.display, error);
      writer_clear (&w);
      return FALSE;
    }
  if (signal_cleanup)
    track_temp (tmpl);
  g_mutex_unlock (&temp_lock);
  g_close (fd, NULL);

  w.trace = trace;
  w.progress = progress;
  w.cancellable = cancellable;
  w.complete = "1";
  w.args = g_string_new (NULL);
  w.extra_strings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  w.next_string = MAX (trace->n_strings, 1);
  w.domains = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  for (guint k = 0; k < KS_N_SLICE_KINDS; k++)
    {
      const char *cat = ks_sqlite_default_category (k);

      w.default_category[k] = *cat ? ks_trace_lookup_string (trace, cat) : KS_NO_INDEX;
    }

  w.total = trace->n_strings + trace->n_processes + trace->n_threads + trace->n_tracks +
            trace->n_flows + trace->n_memory_events + trace->n_instants;
  for (guint32 t = 0; t < trace->n_tracks; t++)
    w.total += trace->tracks[t].n_slices;
  for (guint32 c = 0; c < trace->n_counters; c++)
    w.total += trace->counters[c].n_samples;

  if (progress != NULL)
    {
      ks_progress_set_message (progress, _("Saving"));
      ks_progress_set_fraction (progress, 0.0);
    }

  ks_kscope_writer_assign_ids (&w);
  ks_kscope_writer_assign_launchers (&w);

  rc = sqlite3_open_v2 (tmpl, &w.db, SQLITE_OPEN_READWRITE, NULL);
  if (rc != SQLITE_OK)
    ks_kscope_writer_sqlite_error (&w, rc, error);
  else if (write_all (&w, error))
    {
      for (guint i = 0; i < KS_KSCOPE_N_TABLES; i++)
        g_clear_pointer (&w.stmts[i], sqlite3_finalize);
      rc = sqlite3_close (w.db);
      w.db = NULL;
      if (rc != SQLITE_OK)
        ks_kscope_writer_sqlite_error (&w, rc, error);
      else if (sync_file (tmpl, w.display, error))
        {
          g_mutex_lock (&temp_lock);
          ok = publish (tmpl, path, (flags & KS_KSCOPE_WRITE_REPLACE) != 0, w.display, error);
          if (ok)
            track_temp (NULL);
          g_mutex_unlock (&temp_lock);
        }
    }

  writer_clear (&w);
  if (!ok)
    {
      g_mutex_lock (&temp_lock);
      g_unlink (tmpl);
      track_temp (NULL);
      g_mutex_unlock (&temp_lock);
    }
  else if (progress != NULL)
    ks_progress_set_fraction (progress, 1.0);

  return ok;
}

gboolean
ks_kscope_write (KsTrace       *trace,
                 GFile         *file,
                 KsProgress    *progress,
                 GCancellable  *cancellable,
                 GError       **error)
{
  return ks_kscope_write_full (trace, file, KS_KSCOPE_WRITE_REPLACE, progress, cancellable, error);
}

