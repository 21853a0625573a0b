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
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "ks-kscope-conventions.h"
#include "ks-kscope-schema.h"
#include "ks-kscope-writer.h"
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
};

typedef struct
{
  sqlite3        *db;
  KsTrace        *trace;
  KsProgress     *progress;
  GCancellable   *cancellable;
  char           *display;          /* file name for messages */

  sqlite3_stmt   *stmts[KS_KSCOPE_N_TABLES];
  guint64         rows[KS_KSCOPE_N_TABLES];
  guint64         pending;          /* rows in the open transaction */
  guint64         done;
  guint64         total;

  gint64         *process_gpid;     /* per process */
  gint64         *thread_gtid;      /* per thread */
  gint64         *track_gpid;       /* per track: its process's globalPid, -1 when none */
  guint32       **launcher;         /* per stream track: launching process per slice */
  guint32         n_implied_flows;  /* leading flows that correlation ids recreate */

  GHashTable     *extra_strings;    /* char* -> id, for strings the trace lacks */
  guint32         next_string;
  GHashTable     *domains;          /* "gpid/category" -> domain id */
  guint32         next_domain;

  guint32         default_category[KS_N_SLICE_KINDS];
  const char     *complete;         /* KS_META complete once the last row is in */
} Writer;

static gboolean
set_sqlite_error (Writer  *w,
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

static gboolean
exec (Writer      *w,
      const char  *sql,
      GError     **error)
{
  int rc = sqlite3_exec (w->db, sql, NULL, NULL, NULL);

  if (rc != SQLITE_OK)
    return set_sqlite_error (w, rc, error);
  return TRUE;
}

static sqlite3_stmt *
table_stmt (Writer         *w,
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
      set_sqlite_error (w, rc, error);
      return NULL;
    }

  return w->stmts[id];
}

static gboolean
report_progress (Writer  *w,
                 GError **error)
{
  if (g_cancellable_set_error_if_cancelled (w->cancellable, error))
    return FALSE;
  if (w->progress != NULL && w->total > 0)
    ks_progress_set_fraction (w->progress, MIN (1.0, (double)w->done / (double)w->total));
  return TRUE;
}

static gboolean
insert_row (Writer        *w,
            KsKscopeTable        id,
            sqlite3_stmt  *stmt,
            GError       **error)
{
  int rc = sqlite3_step (stmt);

  sqlite3_reset (stmt);
  if (rc != SQLITE_DONE)
    return set_sqlite_error (w, rc, error);

  w->rows[id]++;
  if (++w->done % PROGRESS_ROWS == 0 && !report_progress (w, error))
    return FALSE;
  if (++w->pending >= BATCH_ROWS)
    {
      w->pending = 0;
      if (!exec (w, "COMMIT; BEGIN", error))
        return FALSE;
    }

  return TRUE;
}

static inline void
bind_i64 (sqlite3_stmt *stmt,
          int           col,
          gint64        value)
{
  sqlite3_bind_int64 (stmt, col, value);
}

static inline void
bind_null (sqlite3_stmt *stmt,
           int           col)
{
  sqlite3_bind_null (stmt, col);
}

/* 0 means "none" for correlation and external ids. */
static inline void
bind_nonzero (sqlite3_stmt *stmt,
              int           col,
              guint32       value)
{
  if (value != 0)
    sqlite3_bind_int64 (stmt, col, value);
  else
    sqlite3_bind_null (stmt, col);
}

static inline void
bind_text (sqlite3_stmt *stmt,
           int           col,
           const char   *text)
{
  if (text != NULL)
    sqlite3_bind_text (stmt, col, text, -1, SQLITE_STATIC);
  else
    sqlite3_bind_null (stmt, col);
}

/* A string that is not empty, or NULL. */
static inline void
bind_string (Writer       *w,
             sqlite3_stmt *stmt,
             int           col,
             guint32       id)
{
  if (id != 0)
    sqlite3_bind_text (stmt, col, ks_trace_string (w->trace, id), -1, SQLITE_STATIC);
  else
    sqlite3_bind_null (stmt, col);
}

static inline void
bind_gid (sqlite3_stmt *stmt,
          int           col,
          gint64        gid)
{
  if (gid >= 0)
    sqlite3_bind_int64 (stmt, col, gid);
  else
    sqlite3_bind_null (stmt, col);
}

/* The category column: NULL when it is what the table implies. */
static inline void
bind_category (Writer       *w,
               sqlite3_stmt *stmt,
               int           col,
               KsSliceKind   kind,
               guint32       category)
{
  if (category == w->default_category[kind])
    sqlite3_bind_null (stmt, col);
  else
    sqlite3_bind_int64 (stmt, col, category);
}

/* String ids: the trace's own ids, then new ones for strings made here. */
static gboolean
string_id (Writer      *w,
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

  if (!(stmt = table_stmt (w, KS_KSCOPE_STRING_IDS, error)))
    return FALSE;
  bind_i64 (stmt, 1, id);
  sqlite3_bind_text (stmt, 2, str, -1, SQLITE_TRANSIENT);
  if (!insert_row (w, KS_KSCOPE_STRING_IDS, stmt, error))
    return FALSE;

  *out_id = id;
  return TRUE;
}

static void
assign_ids (Writer *w)
{
  KsTrace *trace = w->trace;
  g_autoptr(GHashTable) used_pids = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr(GHashTable) used_tids = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autofree gint64 *enc_pid = g_new (gint64, MAX (trace->n_processes, 1));
  g_autofree gint64 *enc_tid = g_new (gint64, MAX (trace->n_threads, 1));
  gint64 next = KS_GID_LIMIT - 1;

  /* Real pids that fit keep their value; the others get the highest
   * free values, which real Linux pids (< 2^22) never reach. */
  for (guint32 p = 0; p < trace->n_processes; p++)
    {
      const KsProcess *proc = &trace->processes[p];

      enc_pid[p] = -1;
      if (proc->original == 0 && proc->pid >= 0 && proc->pid < KS_GID_LIMIT &&
          !g_hash_table_contains (used_pids, &proc->pid))
        {
          enc_pid[p] = proc->pid;
          g_hash_table_add (used_pids, &enc_pid[p]);
        }
    }
  for (guint32 p = 0; p < trace->n_processes; p++)
    {
      if (enc_pid[p] >= 0)
        continue;
      while (g_hash_table_contains (used_pids, &next))
        next--;
      enc_pid[p] = next--;
      g_hash_table_add (used_pids, &enc_pid[p]);
    }

  w->process_gpid = g_new (gint64, MAX (trace->n_processes, 1));
  for (guint32 p = 0; p < trace->n_processes; p++)
    w->process_gpid[p] = enc_pid[p] << KS_GID_PID_SHIFT;

  /* Thread ids: the same, within each process (the key holds both). */
  for (guint32 t = 0; t < trace->n_threads; t++)
    {
      const KsThread *thread = &trace->threads[t];

      enc_tid[t] = -1;
      if (thread->original == 0 && thread->tid >= 0 && thread->tid < KS_GID_LIMIT)
        {
          gint64 gtid = w->process_gpid[thread->process] | thread->tid;

          if (!g_hash_table_contains (used_tids, &gtid))
            {
              enc_tid[t] = gtid;
              g_hash_table_add (used_tids, &enc_tid[t]);
            }
        }
    }
  for (guint32 t = 0; t < trace->n_threads; t++)
    {
      gint64 gtid;

      if (enc_tid[t] >= 0)
        continue;
      gtid = w->process_gpid[trace->threads[t].process] | (KS_GID_LIMIT - 1);
      while (g_hash_table_contains (used_tids, &gtid))
        gtid--;
      enc_tid[t] = gtid;
      g_hash_table_add (used_tids, &enc_tid[t]);
    }

  w->thread_gtid = g_new (gint64, MAX (trace->n_threads, 1));
  memcpy (w->thread_gtid, enc_tid, sizeof (gint64) * trace->n_threads);
}

static inline gboolean
is_cuda_api (guint8 kind)
{
  return kind == KS_SLICE_CUDA_RUNTIME || kind == KS_SLICE_CUDA_DRIVER;
}

/* Which process launched each GPU activity, and how many of the trace's
 * flows are the launch flows that correlation ids give back on reading
 * (the builder's linking rule, replayed). */
static void
assign_launchers (Writer *w)
{
  KsTrace *trace = w->trace;
  g_autoptr(GHashTable) first_gpu = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr(GArray) keys = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autofree guint32 *first_process = g_new (guint32, MAX (trace->n_tracks, 1));
  g_autoptr(GHashTable) group_process = g_hash_table_new (g_direct_hash, g_direct_equal);
  guint32 implied = 0;

  w->launcher = g_new0 (guint32 *, MAX (trace->n_tracks, 1));
  w->track_gpid = g_new (gint64, MAX (trace->n_tracks, 1));

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      first_process[t] = KS_NO_INDEX;
      w->track_gpid[t] = track->process != KS_NO_INDEX ? w->process_gpid[track->process] : -1;

      if (track->kind != KS_TRACK_STREAM)
        continue;

      w->launcher[t] = g_new (guint32, MAX (track->n_slices, 1));
      for (guint32 i = 0; i < track->n_slices; i++)
        {
          w->launcher[t][i] = KS_NO_INDEX;
          if (track->correlation[i] != 0)
            {
              gint64 key = ((gint64)track->group << 32) | track->correlation[i];
              g_array_append_val (keys, key);
            }
        }
    }

  /* Keys live in @keys; fill the hash after the array stops moving. */
  {
    guint k = 0;

    for (guint32 t = 0; t < trace->n_tracks; t++)
      {
        const KsTrack *track = &trace->tracks[t];

        if (track->kind != KS_TRACK_STREAM)
          continue;
        for (guint32 i = 0; i < track->n_slices; i++)
          {
            if (track->correlation[i] == 0)
              continue;
            if (!g_hash_table_contains (first_gpu, &g_array_index (keys, gint64, k)))
              g_hash_table_insert (first_gpu, &g_array_index (keys, gint64, k),
                                   GSIZE_TO_POINTER (((gsize)t << 32 | i) + 1));
            k++;
          }
      }
  }

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind != KS_TRACK_THREAD || g_hash_table_size (first_gpu) == 0)
        continue;

      for (guint32 i = 0; i < track->n_slices; i++)
        {
          gint64 key = ((gint64)track->group << 32) | track->correlation[i];
          gpointer value;
          gsize v;
          guint32 to_track, to_slice;

          if (track->correlation[i] == 0 || !is_cuda_api (track->slice_kind[i]))
            continue;
          if (!(value = g_hash_table_lookup (first_gpu, &key)))
            continue;
          g_hash_table_remove (first_gpu, &key);
          implied++;

          v = GPOINTER_TO_SIZE (value) - 1;
          to_track = (guint32)(v >> 32);
          to_slice = (guint32)(v & 0xffffffff);
          w->launcher[to_track][to_slice] = track->process;
          if (first_process[to_track] == KS_NO_INDEX)
            first_process[to_track] = track->process;
        }
    }

  /* Per group, the first process that calls CUDA, else its first process. */
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind != KS_TRACK_THREAD || g_hash_table_contains (group_process, GUINT_TO_POINTER (track->group + 1)))
        continue;
      for (guint32 i = 0; i < track->n_slices; i++)
        if (is_cuda_api (track->slice_kind[i]))
          {
            g_hash_table_insert (group_process, GUINT_TO_POINTER (track->group + 1),
                                 GUINT_TO_POINTER (track->process + 1));
            break;
          }
    }
  for (guint32 p = 0; p < trace->n_processes; p++)
    if (!g_hash_table_contains (group_process, GUINT_TO_POINTER (trace->processes[p].group + 1)))
      g_hash_table_insert (group_process, GUINT_TO_POINTER (trace->processes[p].group + 1),
                           GUINT_TO_POINTER (p + 1));

  /* Activity whose launch is not in the trace belongs to the first
   * launching process of its stream, else to a process of its group. */
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];
      guint32 process = first_process[t];

      if (track->kind != KS_TRACK_STREAM)
        continue;

      if (process == KS_NO_INDEX)
        process = GPOINTER_TO_UINT (g_hash_table_lookup (group_process, GUINT_TO_POINTER (track->group + 1))) - 1;

      w->track_gpid[t] = process != KS_NO_INDEX ? w->process_gpid[process] : -1;
      for (guint32 i = 0; i < track->n_slices; i++)
        if (w->launcher[t][i] == KS_NO_INDEX)
          w->launcher[t][i] = process;
    }

  w->n_implied_flows = MIN (implied, trace->n_flows);
}

static gboolean
write_strings (Writer  *w,
               GError **error)
{
  sqlite3_stmt *stmt;

  if (!(stmt = table_stmt (w, KS_KSCOPE_STRING_IDS, error)))
    return FALSE;

  for (guint32 i = 0; i < w->trace->n_strings; i++)
    {
      bind_i64 (stmt, 1, i);
      bind_text (stmt, 2, w->trace->strings[i]);
      if (!insert_row (w, KS_KSCOPE_STRING_IDS, stmt, error))
        return FALSE;
    }

  return TRUE;
}

static gboolean
write_meta (Writer      *w,
            const char  *name,
            const char  *value,
            GError     **error)
{
  sqlite3_stmt *stmt;

  if (value == NULL)
    return TRUE;
  if (!(stmt = table_stmt (w, KS_KSCOPE_META, error)))
    return FALSE;
  sqlite3_bind_text (stmt, 1, name, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (stmt, 2, value, -1, SQLITE_TRANSIENT);
  return insert_row (w, KS_KSCOPE_META, stmt, error);
}

static const char *
source_format (KsTrace *trace)
{
  switch (trace->format)
    {
    case KS_FORMAT_KINETO_JSON: return "kineto-json";
    case KS_FORMAT_CHROME_JSON: return "chrome-json";
    case KS_FORMAT_NSYS_SQLITE: return "nsys-sqlite";
    case KS_FORMAT_KSCOPE:      return "kscope";
    case KS_FORMAT_UNKNOWN:
    default:                    return NULL;
    }
}

static gboolean
write_metadata (Writer  *w,
                GError **error)
{
  KsTrace *trace = w->trace;
  g_autofree char *version = g_strdup_printf ("%d", KS_KSCOPE_FORMAT_VERSION);
  g_autofree char *origin = g_strdup_printf ("%" G_GINT64_FORMAT, trace->origin_ns);
  g_autoptr(GList) keys = NULL;
  const char *value;
  /* Provenance survives a .kscope → .kscope copy unchanged. */
  const struct { const char *key; const char *fallback; } file_keys[] = {
    { KS_KSCOPE_META_PRODUCER, ks_kscope_producer () },
    { KS_KSCOPE_META_SOURCE_FORMAT, source_format (trace) },
    { KS_KSCOPE_META_SOURCE_NAME, NULL },
    { KS_KSCOPE_META_COMPLETE, "1" },
    { KS_KSCOPE_META_DROPPED_RECORDS, "0" },
    { KS_KSCOPE_META_CLOCK, "source" },
  };

  if (!write_meta (w, KS_KSCOPE_META_FORMAT_VERSION, version, error))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (file_keys); i++)
    {
      value = ks_trace_get_metadata (trace, file_keys[i].key);
      value = value ? value : file_keys[i].fallback;
      /* A file cut short by a kill says so: complete until the last
       * transaction sets the real value (see finish_complete()). */
      if (strcmp (file_keys[i].key, KS_KSCOPE_META_COMPLETE) == 0)
        {
          w->complete = value;
          value = "0";
        }
      if (!write_meta (w, file_keys[i].key, value, error))
        return FALSE;
    }
  /* Times are stored from the trace start; origin_ns places that start
   * on the source's own clock. */
  if (!write_meta (w, KS_KSCOPE_META_ORIGIN_NS, origin, error))
    return FALSE;

  keys = g_hash_table_get_keys (trace->metadata);
  keys = g_list_sort (keys, (GCompareFunc)strcmp);
  for (const GList *l = keys; l != NULL; l = l->next)
    {
      const char *key = l->data;
      g_autofree char *name = NULL;
      gboolean reserved = FALSE;

      /* Warnings go to KS_DIAGNOSTICS; the load time is the last load's. */
      if (strcmp (key, "warnings") == 0 || strcmp (key, "load_time_ms") == 0)
        continue;
      for (guint i = 0; ks_kscope_file_meta_keys[i] != NULL; i++)
        if (strcmp (key, ks_kscope_file_meta_keys[i]) == 0)
          reserved = TRUE;
      if (reserved)
        continue;

      name = g_strconcat (KS_KSCOPE_META_METADATA_PREFIX, key, NULL);
      if (!write_meta (w, name, g_hash_table_lookup (trace->metadata, key), error))
        return FALSE;
    }

  /* Load warnings are the diagnostics of a conversion. */
  value = ks_trace_get_metadata (trace, "warnings");
  if (value != NULL)
    {
      g_auto(GStrv) lines = g_strsplit (value, "\n", -1);
      sqlite3_stmt *stmt;

      if (!(stmt = table_stmt (w, KS_KSCOPE_KS_DIAGNOSTICS, error)))
        return FALSE;
      for (guint i = 0; lines[i] != NULL; i++)
        {
          bind_null (stmt, 1);
          bind_text (stmt, 2, KS_KSCOPE_SEVERITY_WARNING);
          bind_text (stmt, 3, "import");
          bind_text (stmt, 4, lines[i]);
          if (!insert_row (w, KS_KSCOPE_KS_DIAGNOSTICS, stmt, error))
            return FALSE;
        }
    }

  return TRUE;
}

static gboolean
write_processes_and_threads (Writer  *w,
                             GError **error)
{
  KsTrace *trace = w->trace;
  sqlite3_stmt *stmt;

  for (guint32 p = 0; p < trace->n_processes; p++)
    {
      const KsProcess *proc = &trace->processes[p];

      if (!(stmt = table_stmt (w, KS_KSCOPE_PROCESSES, error)))
        return FALSE;
      bind_i64 (stmt, 1, w->process_gpid[p]);
      bind_i64 (stmt, 2, w->process_gpid[p] >> KS_GID_PID_SHIFT);
      bind_string (w, stmt, 3, proc->name);
      if (!insert_row (w, KS_KSCOPE_PROCESSES, stmt, error))
        return FALSE;

      if (!(stmt = table_stmt (w, KS_KSCOPE_KS_PROCESSES, error)))
        return FALSE;
      bind_i64 (stmt, 1, w->process_gpid[p]);
      bind_i64 (stmt, 2, proc->pid);
      bind_string (w, stmt, 3, proc->original);
      bind_string (w, stmt, 4, proc->name);
      bind_string (w, stmt, 5, proc->label);
      bind_i64 (stmt, 6, proc->sort_index);
      bind_i64 (stmt, 7, proc->group);
      if (!insert_row (w, KS_KSCOPE_KS_PROCESSES, stmt, error))
        return FALSE;
    }

  for (guint32 t = 0; t < trace->n_threads; t++)
    {
      const KsThread *thread = &trace->threads[t];
      const KsProcess *proc = &trace->processes[thread->process];

      if (thread->name != 0)
        {
          if (!(stmt = table_stmt (w, KS_KSCOPE_THREAD_NAMES, error)))
            return FALSE;
          bind_i64 (stmt, 1, thread->name);
          bind_null (stmt, 2);
          bind_i64 (stmt, 3, w->thread_gtid[t]);
          if (!insert_row (w, KS_KSCOPE_THREAD_NAMES, stmt, error))
            return FALSE;
        }

      if (!(stmt = table_stmt (w, KS_KSCOPE_KS_THREADS, error)))
        return FALSE;
      bind_i64 (stmt, 1, w->thread_gtid[t]);
      bind_i64 (stmt, 2, proc->pid);
      bind_i64 (stmt, 3, thread->tid);
      bind_string (w, stmt, 4, proc->original);
      bind_string (w, stmt, 5, thread->original);
      bind_string (w, stmt, 6, thread->name);
      bind_text (stmt, 7, ks_kscope_thread_role (proc->pid, thread->tid, ks_trace_string (trace, thread->name)));
      bind_i64 (stmt, 8, w->process_gpid[thread->process]);
      bind_i64 (stmt, 9, thread->sort_index);
      if (!insert_row (w, KS_KSCOPE_KS_THREADS, stmt, error))
        return FALSE;
    }

  return TRUE;
}

static gboolean
write_session (Writer  *w,
               GError **error)
{
  KsTrace *trace = w->trace;
  sqlite3_stmt *stmt;

  if (trace->start_utc_ns != 0)
    {
      gint64 secs = trace->start_utc_ns / G_GINT64_CONSTANT (1000000000);
      g_autoptr(GDateTime) utc = g_date_time_new_from_unix_utc (secs);
      g_autoptr(GDateTime) local = utc ? g_date_time_to_local (utc) : NULL;
      g_autofree char *utc_text = utc ? g_date_time_format (utc, "%Y-%m-%dT%H:%M:%S") : NULL;
      g_autofree char *local_text = local ? g_date_time_format (local, "%Y-%m-%dT%H:%M:%S") : NULL;

      if (!(stmt = table_stmt (w, KS_KSCOPE_SESSION_START, error)))
        return FALSE;
      bind_i64 (stmt, 1, trace->start_utc_ns);
      bind_text (stmt, 2, utc_text);
      bind_text (stmt, 3, local_text);
      if (!insert_row (w, KS_KSCOPE_SESSION_START, stmt, error))
        return FALSE;
    }

  if (!(stmt = table_stmt (w, KS_KSCOPE_ANALYSIS_DETAILS, error)))
    return FALSE;
  bind_i64 (stmt, 1, 0);
  bind_i64 (stmt, 2, trace->duration_ns);
  bind_i64 (stmt, 3, 0);
  bind_i64 (stmt, 4, trace->duration_ns);
  return insert_row (w, KS_KSCOPE_ANALYSIS_DETAILS, stmt, error);
}

static gboolean
write_gpus (Writer  *w,
            GError **error)
{
  KsTrace *trace = w->trace;

  for (guint32 g = 0; g < trace->n_gpus; g++)
    {
      const KsGpu *gpu = &trace->gpus[g];
      sqlite3_stmt *stmt;

      if (!(stmt = table_stmt (w, KS_KSCOPE_GPU, error)))
        return FALSE;
      bind_i64 (stmt, 1, 0);
      bind_i64 (stmt, 2, gpu->device);
      bind_string (w, stmt, 3, gpu->name);
      bind_null (stmt, 4);
      bind_null (stmt, 5);
      bind_i64 (stmt, 6, (gint64)gpu->total_memory);
      bind_null (stmt, 7);
      bind_null (stmt, 8);
      bind_i64 (stmt, 9, gpu->sm_count);
      bind_null (stmt, 10);
      bind_i64 (stmt, 11, gpu->registers_per_block);
      bind_i64 (stmt, 12, gpu->shared_memory_per_block);
      bind_i64 (stmt, 13, gpu->shared_memory_per_sm);
      bind_i64 (stmt, 14, gpu->registers_per_sm);
      bind_i64 (stmt, 15, gpu->warp_size);
      if (gpu->warp_size > 0)
        bind_i64 (stmt, 16, gpu->max_threads_per_sm / gpu->warp_size);
      else
        bind_null (stmt, 16);
      bind_i64 (stmt, 17, gpu->max_threads_per_block);
      bind_i64 (stmt, 18, gpu->compute_major);
      bind_i64 (stmt, 19, gpu->compute_minor);
      bind_i64 (stmt, 20, gpu->max_threads_per_sm);
      if (!insert_row (w, KS_KSCOPE_GPU, stmt, error))
        return FALSE;
    }

  return TRUE;
}

static gint64
stream_to_nsys (gint64 stream)
{
  return stream == -1 ? KS_NSYS_NO_STREAM : stream;
}

static gboolean
write_tracks (Writer  *w,
              GError **error)
{
  KsTrace *trace = w->trace;
  sqlite3_stmt *stmt;

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (!(stmt = table_stmt (w, KS_KSCOPE_KS_TRACKS, error)))
        return FALSE;
      bind_i64 (stmt, 1, t);
      bind_text (stmt, 2, ks_sqlite_track_kinds[track->kind]);
      bind_string (w, stmt, 3, track->name);
      bind_gid (stmt, 4, w->track_gpid[t]);
      bind_gid (stmt, 5, track->thread != KS_NO_INDEX ? w->thread_gtid[track->thread] : -1);
      if (track->device >= 0 || track->kind == KS_TRACK_STREAM || track->kind == KS_TRACK_GPU_ANNOTATION)
        bind_i64 (stmt, 6, track->device);
      else
        bind_null (stmt, 6);
      if (track->kind == KS_TRACK_STREAM || track->kind == KS_TRACK_GPU_ANNOTATION)
        bind_i64 (stmt, 7, track->stream);
      else
        bind_null (stmt, 7);
      bind_i64 (stmt, 8, track->sort_index);
      if (track->parent != KS_NO_INDEX)
        bind_i64 (stmt, 9, track->parent);
      else
        bind_null (stmt, 9);
      bind_i64 (stmt, 10, track->group);
      if (!insert_row (w, KS_KSCOPE_KS_TRACKS, stmt, error))
        return FALSE;

      if (track->kind == KS_TRACK_STREAM)
        {
          if (!(stmt = table_stmt (w, KS_KSCOPE_CUDA_STREAM, error)))
            return FALSE;
          bind_i64 (stmt, 1, stream_to_nsys (track->stream));
          bind_i64 (stmt, 2, 0);
          bind_i64 (stmt, 3, 0);
          bind_i64 (stmt, 4, w->track_gpid[t] >= 0 ? w->track_gpid[t] >> KS_GID_PID_SHIFT : 0);
          bind_i64 (stmt, 5, 0);
          bind_i64 (stmt, 6, 0);
          bind_i64 (stmt, 7, 0);
          bind_i64 (stmt, 8, track->device);
          if (!insert_row (w, KS_KSCOPE_CUDA_STREAM, stmt, error))
            return FALSE;
        }
    }

  return TRUE;
}

static gboolean
nvtx_domain (Writer   *w,
             guint32   process,
             guint32   category,
             gint64   *out_domain,
             GError  **error)
{
  g_autofree char *key = NULL;
  gpointer value;
  sqlite3_stmt *stmt;
  gint64 gpid;
  guint32 domain;

  /* The default domain; "nvtx" is what reading gives back for it. */
  if (category == w->default_category[KS_SLICE_NVTX])
    {
      *out_domain = -1;
      return TRUE;
    }

  gpid = process != KS_NO_INDEX ? w->process_gpid[process] : 0;
  key = g_strdup_printf ("%" G_GINT64_FORMAT "/%u", gpid, category);
  if (g_hash_table_lookup_extended (w->domains, key, NULL, &value))
    {
      *out_domain = GPOINTER_TO_UINT (value);
      return TRUE;
    }

  domain = ++w->next_domain;
  g_hash_table_insert (w->domains, g_steal_pointer (&key), GUINT_TO_POINTER (domain));

  if (!(stmt = table_stmt (w, KS_KSCOPE_NVTX, error)))
    return FALSE;
  bind_i64 (stmt, 1, 0);
  bind_null (stmt, 2);
  bind_i64 (stmt, 3, KS_NSYS_NVTX_DOMAIN_CREATE);
  bind_text (stmt, 4, ks_trace_string (w->trace, category));
  bind_i64 (stmt, 5, gpid);
  bind_null (stmt, 6);
  bind_null (stmt, 7);
  bind_i64 (stmt, 8, domain);
  bind_null (stmt, 9);
  bind_null (stmt, 10);
  bind_null (stmt, 11);
  if (!insert_row (w, KS_KSCOPE_NVTX, stmt, error))
    return FALSE;

  *out_domain = domain;
  return TRUE;
}

static gboolean
write_ks_slice (Writer         *w,
                const KsTrack  *track,
                guint32         i,
                gint64          gtid,
                GError        **error)
{
  sqlite3_stmt *stmt;

  if (!(stmt = table_stmt (w, KS_KSCOPE_KS_SLICES, error)))
    return FALSE;
  bind_i64 (stmt, 1, track->start[i]);
  bind_i64 (stmt, 2, track->end[i]);
  bind_gid (stmt, 3, gtid);
  bind_i64 (stmt, 4, track->id);
  bind_i64 (stmt, 5, track->slice_kind[i]);
  bind_i64 (stmt, 6, track->name_id[i]);
  bind_i64 (stmt, 7, track->category[i]);
  bind_nonzero (stmt, 8, track->correlation[i]);
  bind_nonzero (stmt, 9, track->external_id[i]);
  bind_text (stmt, 10, ks_trace_slice_args (w->trace, track, i));
  return insert_row (w, KS_KSCOPE_KS_SLICES, stmt, error);
}

static gboolean
write_thread_slice (Writer         *w,
                    const KsTrack  *track,
                    guint32         i,
                    GError        **error)
{
  gint64 gtid = w->thread_gtid[track->thread];
  guint8 kind = track->slice_kind[i];
  sqlite3_stmt *stmt;

  switch (kind)
    {
    case KS_SLICE_CUDA_RUNTIME:
    case KS_SLICE_CUDA_DRIVER:
      if (!(stmt = table_stmt (w, KS_KSCOPE_RUNTIME, error)))
        return FALSE;
      bind_i64 (stmt, 1, track->start[i]);
      bind_i64 (stmt, 2, track->end[i]);
      bind_i64 (stmt, 3, kind == KS_SLICE_CUDA_DRIVER ? KS_NSYS_CLASS_CUDA_DRIVER : KS_NSYS_CLASS_CUDA_RUNTIME);
      bind_i64 (stmt, 4, gtid);
      bind_nonzero (stmt, 5, track->correlation[i]);
      bind_i64 (stmt, 6, track->name_id[i]);
      bind_category (w, stmt, 7, kind, track->category[i]);
      bind_nonzero (stmt, 8, track->external_id[i]);
      bind_text (stmt, 9, ks_trace_slice_args (w->trace, track, i));
      return insert_row (w, KS_KSCOPE_RUNTIME, stmt, error);

    case KS_SLICE_OSRT:
      if (!(stmt = table_stmt (w, KS_KSCOPE_OSRT, error)))
        return FALSE;
      bind_i64 (stmt, 1, track->start[i]);
      bind_i64 (stmt, 2, track->end[i]);
      bind_i64 (stmt, 3, gtid);
      bind_i64 (stmt, 4, track->name_id[i]);
      bind_i64 (stmt, 5, track->depth[i]);
      bind_category (w, stmt, 6, kind, track->category[i]);
      bind_nonzero (stmt, 7, track->correlation[i]);
      bind_nonzero (stmt, 8, track->external_id[i]);
      bind_text (stmt, 9, ks_trace_slice_args (w->trace, track, i));
      return insert_row (w, KS_KSCOPE_OSRT, stmt, error);

    default:
      return write_ks_slice (w, track, i, gtid, error);
    }
}

static gboolean
write_nvtx_slice (Writer         *w,
                  const KsTrack  *track,
                  guint32         i,
                  GError        **error)
{
  gint64 gtid = w->thread_gtid[track->thread];
  gint64 domain;
  gint64 type = KS_NSYS_NVTX_PUSH_POP;
  sqlite3_stmt *stmt;

  if (track->slice_kind[i] != KS_SLICE_NVTX)
    return write_ks_slice (w, track, i, gtid, error);

  if (!nvtx_domain (w, track->process, track->category[i], &domain, error))
    return FALSE;

  /* Push/pop ranges nest; one that outlives its parent was a start/end range. */
  if (track->depth[i] > 0)
    {
      guint32 parent = ks_track_parent_slice (track, i);

      if (parent != KS_NO_INDEX && track->end[i] > track->end[parent])
        type = KS_NSYS_NVTX_START_END;
    }

  if (!(stmt = table_stmt (w, KS_KSCOPE_NVTX, error)))
    return FALSE;
  bind_i64 (stmt, 1, track->start[i]);
  bind_i64 (stmt, 2, track->end[i]);
  bind_i64 (stmt, 3, type);
  bind_null (stmt, 4);
  bind_i64 (stmt, 5, gtid);
  if (type == KS_NSYS_NVTX_START_END)
    bind_i64 (stmt, 6, gtid);
  else
    bind_null (stmt, 6);
  bind_i64 (stmt, 7, track->name_id[i]);
  if (domain >= 0)
    bind_i64 (stmt, 8, domain);
  else
    bind_null (stmt, 8);
  bind_text (stmt, 9, ks_trace_slice_args (w->trace, track, i));
  bind_nonzero (stmt, 10, track->correlation[i]);
  bind_nonzero (stmt, 11, track->external_id[i]);
  return insert_row (w, KS_KSCOPE_NVTX, stmt, error);
}

/* The columns every GPU activity table starts with. */
static void
bind_gpu_columns (sqlite3_stmt  *stmt,
                  const KsTrack *track,
                  guint32        i,
                  gint64         gpid)
{
  bind_i64 (stmt, 1, track->start[i]);
  bind_i64 (stmt, 2, track->end[i]);
  bind_i64 (stmt, 3, track->device);
  bind_i64 (stmt, 4, stream_to_nsys (track->stream));
  bind_nonzero (stmt, 5, track->correlation[i]);
  bind_gid (stmt, 6, gpid);
}

/* A name the reader derives from the record itself is not stored. */
static void
bind_name_unless_implied (sqlite3_stmt *stmt,
                          int           col,
                          guint32       name_id,
                          const char   *name,
                          const char   *implied)
{
  if (strcmp (implied, name) != 0)
    bind_i64 (stmt, col, name_id);
  else
    bind_null (stmt, col);
}

/* Binds the columns every GPU activity table ends with, from @col on,
 * and inserts the row. */
static gboolean
insert_gpu_row (Writer         *w,
                KsKscopeTable   table,
                sqlite3_stmt   *stmt,
                int             col,
                const KsTrack  *track,
                guint32         i,
                GError        **error)
{
  bind_category (w, stmt, col, track->slice_kind[i], track->category[i]);
  bind_nonzero (stmt, col + 1, track->external_id[i]);
  bind_text (stmt, col + 2, ks_trace_slice_args (w->trace, track, i));
  return insert_row (w, table, stmt, error);
}

static gboolean
write_gpu_slice (Writer         *w,
                 guint32         t,
                 guint32         i,
                 GError        **error)
{
  const KsTrack *track = &w->trace->tracks[t];
  guint8 kind = track->slice_kind[i];
  const KsGpuInfo *info = &track->gpu[i];
  guint32 launcher = w->launcher[t][i];
  gint64 gpid = launcher != KS_NO_INDEX ? w->process_gpid[launcher] : -1;
  const char *name = ks_trace_string (w->trace, track->name_id[i]);
  sqlite3_stmt *stmt;

  switch (kind)
    {
    case KS_SLICE_KERNEL:
      {
        g_autofree char *short_name = ks_kscope_kernel_short_name (name);
        guint32 short_id;

        if (!string_id (w, short_name, &short_id, error))
          return FALSE;
        if (!(stmt = table_stmt (w, KS_KSCOPE_KERNEL, error)))
          return FALSE;
        bind_gpu_columns (stmt, track, i, gpid);
        bind_i64 (stmt, 7, track->name_id[i]);
        bind_i64 (stmt, 8, short_id);
        bind_i64 (stmt, 9, info->kernel.registers);
        bind_i64 (stmt, 10, info->kernel.grid[0]);
        bind_i64 (stmt, 11, info->kernel.grid[1]);
        bind_i64 (stmt, 12, info->kernel.grid[2]);
        bind_i64 (stmt, 13, info->kernel.block[0]);
        bind_i64 (stmt, 14, info->kernel.block[1]);
        bind_i64 (stmt, 15, info->kernel.block[2]);
        bind_i64 (stmt, 16, info->kernel.shared_memory);
        return insert_gpu_row (w, KS_KSCOPE_KERNEL, stmt, 17, track, i, error);
      }

    case KS_SLICE_MEMCPY:
      {
        g_autofree char *implied = ks_sqlite_memcpy_name (info);

        if (!(stmt = table_stmt (w, KS_KSCOPE_MEMCPY, error)))
          return FALSE;
        bind_gpu_columns (stmt, track, i, gpid);
        bind_i64 (stmt, 7, (gint64)info->copy.bytes);
        bind_i64 (stmt, 8, info->copy.copy_kind);
        bind_i64 (stmt, 9, ks_kscope_mem_kind_from_cupti (info->copy.src_kind));
        bind_i64 (stmt, 10, ks_kscope_mem_kind_from_cupti (info->copy.dst_kind));
        bind_name_unless_implied (stmt, 11, track->name_id[i], name, implied);
        return insert_gpu_row (w, KS_KSCOPE_MEMCPY, stmt, 12, track, i, error);
      }

    case KS_SLICE_MEMSET:
      {
        g_autofree char *implied = ks_sqlite_memset_name (info);

        if (!(stmt = table_stmt (w, KS_KSCOPE_MEMSET, error)))
          return FALSE;
        bind_gpu_columns (stmt, track, i, gpid);
        bind_i64 (stmt, 7, info->copy.value);
        bind_i64 (stmt, 8, (gint64)info->copy.bytes);
        bind_i64 (stmt, 9, ks_kscope_mem_kind_from_cupti (info->copy.dst_kind));
        bind_name_unless_implied (stmt, 10, track->name_id[i], name, implied);
        return insert_gpu_row (w, KS_KSCOPE_MEMSET, stmt, 11, track, i, error);
      }

    case KS_SLICE_SYNC:
      {
        gint64 type = ks_sqlite_sync_type (name);

        /* Sync records carry no copy details; anything else would be lost. */
        if (info->copy.bytes != 0 || info->copy.copy_kind || info->copy.src_kind ||
            info->copy.dst_kind || info->copy.value)
          break;

        if (!(stmt = table_stmt (w, KS_KSCOPE_SYNC, error)))
          return FALSE;
        bind_gpu_columns (stmt, track, i, gpid);
        bind_i64 (stmt, 7, type);
        bind_name_unless_implied (stmt, 8, track->name_id[i], name, ks_sqlite_sync_name (type));
        return insert_gpu_row (w, KS_KSCOPE_SYNC, stmt, 9, track, i, error);
      }

    default:
      break;
    }

  return write_ks_slice (w, track, i, -1, error);
}

static gboolean
write_slices (Writer  *w,
              GError **error)
{
  KsTrace *trace = w->trace;

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      for (guint32 i = 0; i < track->n_slices; i++)
        {
          gboolean ok;

          switch (track->kind)
            {
            case KS_TRACK_THREAD:
              ok = write_thread_slice (w, track, i, error);
              break;
            case KS_TRACK_NVTX:
              ok = write_nvtx_slice (w, track, i, error);
              break;
            case KS_TRACK_STREAM:
              ok = write_gpu_slice (w, t, i, error);
              break;
            case KS_TRACK_ASYNC:
            case KS_TRACK_GPU_ANNOTATION:
            case KS_N_TRACK_KINDS:
            default:
              ok = write_ks_slice (w, track, i,
                                   track->thread != KS_NO_INDEX ? w->thread_gtid[track->thread] : -1,
                                   error);
              break;
            }

          if (!ok)
            return FALSE;
        }
    }

  return TRUE;
}

static gboolean
write_flows (Writer  *w,
             GError **error)
{
  KsTrace *trace = w->trace;

  for (guint32 f = w->n_implied_flows; f < trace->n_flows; f++)
    {
      const KsFlow *flow = &trace->flows[f];
      const KsTrack *from = &trace->tracks[flow->from_track];
      const KsTrack *to = &trace->tracks[flow->to_track];
      sqlite3_stmt *stmt;

      if (!(stmt = table_stmt (w, KS_KSCOPE_KS_FLOWS, error)))
        return FALSE;
      bind_i64 (stmt, 1, f - w->n_implied_flows);
      bind_i64 (stmt, 2, flow->category);
      bind_i64 (stmt, 3, ks_kscope_flow_end_time (from, flow->from_slice));
      bind_gid (stmt, 4, from->kind == KS_TRACK_THREAD ? w->thread_gtid[from->thread] : -1);
      bind_i64 (stmt, 5, ks_kscope_flow_end_time (to, flow->to_slice));
      bind_gid (stmt, 6, to->kind == KS_TRACK_THREAD ? w->thread_gtid[to->thread] : -1);
      bind_i64 (stmt, 7, flow->from_track);
      bind_i64 (stmt, 8, flow->to_track);
      bind_i64 (stmt, 9, flow->kind);
      if (!insert_row (w, KS_KSCOPE_KS_FLOWS, stmt, error))
        return FALSE;
    }

  return TRUE;
}

static gboolean
write_counters (Writer  *w,
                GError **error)
{
  KsTrace *trace = w->trace;

  for (guint32 c = 0; c < trace->n_counters; c++)
    {
      const KsCounter *counter = &trace->counters[c];
      sqlite3_stmt *stmt;

      if (!(stmt = table_stmt (w, KS_KSCOPE_KS_COUNTERS, error)))
        return FALSE;
      bind_i64 (stmt, 1, c);
      bind_text (stmt, 2, ks_trace_string (trace, counter->name));
      bind_text (stmt, 3, ks_trace_string (trace, counter->unit));
      if (counter->device >= 0)
        bind_i64 (stmt, 4, counter->device);
      else
        bind_null (stmt, 4);
      bind_gid (stmt, 5, counter->process != KS_NO_INDEX ? w->process_gpid[counter->process] : -1);
      if (!insert_row (w, KS_KSCOPE_KS_COUNTERS, stmt, error))
        return FALSE;

      for (guint32 i = 0; i < counter->n_samples; i++)
        {
          if (!(stmt = table_stmt (w, KS_KSCOPE_KS_COUNTER_SAMPLES, error)))
            return FALSE;
          bind_i64 (stmt, 1, c);
          bind_i64 (stmt, 2, counter->ts[i]);
          sqlite3_bind_double (stmt, 3, counter->value[i]);
          if (!insert_row (w, KS_KSCOPE_KS_COUNTER_SAMPLES, stmt, error))
            return FALSE;
        }
    }

  return TRUE;
}

static gboolean
write_memory_events (Writer  *w,
                     GError **error)
{
  KsTrace *trace = w->trace;

  for (guint32 i = 0; i < trace->n_memory_events; i++)
    {
      const KsMemoryEvent *ev = &trace->memory_events[i];
      sqlite3_stmt *stmt;

      if (!(stmt = table_stmt (w, KS_KSCOPE_KS_MEMORY_EVENTS, error)))
        return FALSE;
      bind_i64 (stmt, 1, ev->ts);
      bind_gid (stmt, 2, ev->thread != KS_NO_INDEX ? w->thread_gtid[ev->thread] : -1);
      bind_i64 (stmt, 3, ev->device);
      bind_i64 (stmt, 4, (gint64)ev->address);
      bind_i64 (stmt, 5, ev->bytes);
      if (ev->total_allocated >= 0)
        bind_i64 (stmt, 6, ev->total_allocated);
      else
        bind_null (stmt, 6);
      if (ev->total_reserved >= 0)
        bind_i64 (stmt, 7, ev->total_reserved);
      else
        bind_null (stmt, 7);
      if (!insert_row (w, KS_KSCOPE_KS_MEMORY_EVENTS, stmt, error))
        return FALSE;
    }

  return TRUE;
}

static gboolean
write_instants (Writer  *w,
                GError **error)
{
  KsTrace *trace = w->trace;

  for (guint32 i = 0; i < trace->n_instants; i++)
    {
      const KsInstant *inst = &trace->instants[i];
      const KsTrack *track = inst->track != KS_NO_INDEX ? &trace->tracks[inst->track] : NULL;
      sqlite3_stmt *stmt;

      if (!(stmt = table_stmt (w, KS_KSCOPE_KS_INSTANTS, error)))
        return FALSE;
      bind_i64 (stmt, 1, inst->ts);
      bind_gid (stmt, 2, track && track->thread != KS_NO_INDEX ? w->thread_gtid[track->thread] : -1);
      if (track != NULL)
        bind_i64 (stmt, 3, inst->track);
      else
        bind_null (stmt, 3);
      bind_gid (stmt, 4, inst->process != KS_NO_INDEX ? w->process_gpid[inst->process] : -1);
      bind_i64 (stmt, 5, inst->name);
      bind_i64 (stmt, 6, inst->category);
      bind_text (stmt, 7, inst->args ? trace->args + (inst->args - 1) : NULL);
      if (!insert_row (w, KS_KSCOPE_KS_INSTANTS, stmt, error))
        return FALSE;
    }

  return TRUE;
}

static gboolean
write_enums (Writer  *w,
             GError **error)
{
  int rc = ks_kscope_schema_write_enums (w->db);

  if (rc != SQLITE_OK)
    return set_sqlite_error (w, rc, error);
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
          return set_sqlite_error (w, rc, error);
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
    return set_sqlite_error (w, rc, error);
  return TRUE;
}

static gboolean
write_all (Writer  *w,
           GError **error)
{
  int rc;

  /* A fresh temporary file that nobody else sees: no journal, no syncs
   * until the end; the rename is what makes it visible. */
  if (!exec (w, "PRAGMA page_size = 65536;"
                "PRAGMA journal_mode = OFF;"
                "PRAGMA synchronous = OFF;"
                "PRAGMA locking_mode = EXCLUSIVE;"
                "PRAGMA temp_store = MEMORY;"
                "PRAGMA cache_size = -65536;", error))
    return FALSE;
  rc = ks_kscope_schema_identify (w->db);
  if (rc != SQLITE_OK)
    return set_sqlite_error (w, rc, error);
  if (!exec (w, "BEGIN", error))
    return FALSE;

  /* KS_META first, committed on its own: from here on, a file left by
   * a process killed mid-write says complete=0. */
  if (!write_metadata (w, error) ||
      !exec (w, "COMMIT; BEGIN", error))
    return FALSE;
  w->pending = 0;

  if (!write_strings (w, error) ||
      !write_session (w, error) ||
      !write_processes_and_threads (w, error) ||
      !write_gpus (w, error) ||
      !write_tracks (w, error) ||
      !write_slices (w, error) ||
      !write_flows (w, error) ||
      !write_counters (w, error) ||
      !write_memory_events (w, error) ||
      !write_instants (w, error) ||
      !write_enums (w, error))
    return FALSE;

  if (!report_progress (w, error))
    return FALSE;
  if (w->progress != NULL)
    ks_progress_set_message (w->progress, _("Indexing"));

  if (!write_indexes (w, error) ||
      !finish_complete (w, error))
    return FALSE;

  return exec (w, "COMMIT", error);
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

/* The temporary file of the save in progress, for the signal handler:
 * a fixed buffer, since the handler may neither allocate nor lock. */
static char signal_temp[PATH_MAX];
static volatile sig_atomic_t signal_temp_set;
static gboolean signal_cleanup;

static const int cleanup_signals[] = { SIGINT, SIGTERM, SIGHUP };

static void
remove_temp_on_signal (int sig)
{
  int saved = errno;

  if (signal_temp_set)
    unlink (signal_temp);
  errno = saved;
  /* SA_RESETHAND restored the default action and @sig stays blocked
   * until this returns: then it ends the process as it would have. */
  raise (sig);
}

void
ks_kscope_write_remove_temp_on_signals (void)
{
  struct sigaction sa;

  memset (&sa, 0, sizeof sa);
  sa.sa_handler = remove_temp_on_signal;
  sa.sa_flags = SA_RESETHAND;
  sigemptyset (&sa.sa_mask);
  for (guint i = 0; i < G_N_ELEMENTS (cleanup_signals); i++)
    sigaddset (&sa.sa_mask, cleanup_signals[i]);

  for (guint i = 0; i < G_N_ELEMENTS (cleanup_signals); i++)
    {
      struct sigaction old;

      /* An ignored signal (nohup) stays ignored. */
      if (sigaction (cleanup_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
        continue;
      sigaction (cleanup_signals[i], &sa, NULL);
    }
  signal_cleanup = TRUE;
}

/* Blocks the cleanup signals while the temporary file's name and its
 * existence change together, so that the handler never sees one
 * without the other. */
static void
block_cleanup_signals (sigset_t *old)
{
  sigset_t set;

  sigemptyset (&set);
  for (guint i = 0; i < G_N_ELEMENTS (cleanup_signals); i++)
    sigaddset (&set, cleanup_signals[i]);
  pthread_sigmask (SIG_BLOCK, &set, old);
}

static void
track_temp (const char *path)
{
  sigset_t old;

  if (!signal_cleanup)
    return;
  block_cleanup_signals (&old);
  if (path != NULL && g_strlcpy (signal_temp, path, sizeof signal_temp) < sizeof signal_temp)
    signal_temp_set = 1;
  else
    signal_temp_set = 0;
  pthread_sigmask (SIG_SETMASK, &old, NULL);
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
  sigset_t old_mask;
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
  if (signal_cleanup)
    block_cleanup_signals (&old_mask);
  fd = g_mkstemp_full (tmpl, O_RDWR | O_CLOEXEC, 0644);
  if (fd < 0)
    {
      int saved = errno;

      if (signal_cleanup)
        pthread_sigmask (SIG_SETMASK, &old_mask, NULL);
      set_errno_error (saved, w.display, error);
      writer_clear (&w);
      return FALSE;
    }
  track_temp (tmpl);
  if (signal_cleanup)
    pthread_sigmask (SIG_SETMASK, &old_mask, NULL);
  g_close (fd, NULL);

  w.trace = trace;
  w.progress = progress;
  w.cancellable = cancellable;
  w.complete = "1";
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

  assign_ids (&w);
  assign_launchers (&w);

  rc = sqlite3_open_v2 (tmpl, &w.db, SQLITE_OPEN_READWRITE, NULL);
  if (rc != SQLITE_OK)
    set_sqlite_error (&w, rc, error);
  else if (write_all (&w, error))
    {
      for (guint i = 0; i < KS_KSCOPE_N_TABLES; i++)
        g_clear_pointer (&w.stmts[i], sqlite3_finalize);
      rc = sqlite3_close (w.db);
      w.db = NULL;
      if (rc != SQLITE_OK)
        set_sqlite_error (&w, rc, error);
      else if (sync_file (tmpl, w.display, error))
        {
          if (signal_cleanup)
            block_cleanup_signals (&old_mask);
          ok = publish (tmpl, path, (flags & KS_KSCOPE_WRITE_REPLACE) != 0, w.display, error);
          if (ok)
            track_temp (NULL);
          if (signal_cleanup)
            pthread_sigmask (SIG_SETMASK, &old_mask, NULL);
        }
    }

  writer_clear (&w);
  if (!ok)
    {
      g_unlink (tmpl);
      track_temp (NULL);
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
