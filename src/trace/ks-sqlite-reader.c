/* ks-sqlite-reader.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-sqlite-reader"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "ks-kscope-writer.h"
#include "ks-sqlite-private.h"
#include "ks-sqlite-reader.h"
#include "ks-trace-builder.h"
#include "ks-trace-private.h"

#define NONE        G_MAXUINT32
#define ROWS_PER_CHECK 16384
/* Timestamps are clamped to ±2^62 ns (146 years) so that no sum overflows. */
#define TS_LIMIT    (G_GINT64_CONSTANT (1) << 62)

typedef struct
{
  guint32 process;
  guint32 group;
} Proc;

typedef struct
{
  guint32 track;
  gint64  start;
  guint32 name;
  guint32 category;
  guint32 correlation;
  guint32 external_id;
  guint32 args;
} OpenRange;

typedef struct
{
  sqlite3        *db;
  char           *display;
  KsTraceBuilder *b;
  KsProgress     *progress;
  GCancellable   *cancellable;
  gboolean        kscope;
  gint64          shift;          /* added to every stored time */

  GHashTable     *tables;         /* table name -> GHashTable of column names */

  /* StringIds: dense arrays when the ids allow, else hash tables. */
  gint64          n_dense;
  guint32        *smap;           /* db id -> builder id, NONE while unresolved */
  const char    **svalues;        /* db id -> text (Nsight files, resolved lazily) */
  GHashTable     *sparse_values;  /* gint64 id -> char* */
  GHashTable     *sparse_map;     /* gint64 id -> builder id + 1 */
  GStringChunk   *chunk;
  GHashTable     *api_names;      /* gint64 db id -> builder id + 1, suffix stripped */
  guint64         unknown_strings;

  GHashTable     *procs;          /* gint64 globalPid -> Proc */
  GHashTable     *pid_owner;      /* gint64 pid -> gint64 globalPid */
  GHashTable     *threads;        /* gint64 globalTid -> thread + 1 */
  guint32         next_group;
  gboolean        have_ks_processes;
  gboolean        have_ks_threads;
  GHashTable     *process_names;  /* gint64 globalPid -> char* (Nsight PROCESSES) */
  GHashTable     *thread_names;   /* gint64 globalTid -> gint64 string id */
  GHashTable     *nvtx_thread_names; /* gint64 globalTid -> char* */

  guint32        *track_map;      /* KS_TRACKS.id -> builder track */
  guint32         n_track_map;
  GHashTable     *orphan_streams; /* "device/stream" -> group, streams of no process */

  /* Lookup caches: consecutive rows usually hit the same track. */
  gint64          last_gtid;
  guint32         last_thread;
  gint64          last_stream_key[3];
  guint32         last_stream_track;

  guint32         category[KS_N_SLICE_KINDS];
  guint32         memcpy_names[11][8][8];
  guint32         memset_names[8];
  guint32         sync_names[G_N_ELEMENTS (ks_sqlite_sync_names)];
  guint8          mem_kinds[16];  /* the file's memory kind ids -> KsMemoryKind */

  GArray         *open_ranges;    /* OpenRange */
  gint64          max_end;
  gboolean        have_end;

  guint64         rows_total;
  guint64         rows_done;
  guint64         skipped;

  gboolean        journal_beside; /* left in the middle of a write: not rolled back */
  gboolean        cut_short;      /* KS_META complete = 0 */
  char           *end_reason;     /* KS_META end_reason */
} Reader;

/* Errors */

static GError *
sqlite_error (Reader     *r,
              int         rc)
{
  const char *msg = r->db ? sqlite3_errmsg (r->db) : sqlite3_errstr (rc);

  switch (rc & 0xff)
    {
    case SQLITE_CORRUPT:
      /* What was half written is in the file: the journal was not replayed. */
      if (r->journal_beside)
        return g_error_new (G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                            _("“%s” is damaged: %s (it was left in the middle of a write, and its "
                              "-journal is not replayed)"), r->display, msg);
      return g_error_new (G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                          _("“%s” is damaged: %s"), r->display, msg);
    case SQLITE_NOTADB:
      return g_error_new (G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                          _("“%s” is not a SQLite database"), r->display);
    case SQLITE_INTERRUPT:
      return g_error_new (G_IO_ERROR, G_IO_ERROR_CANCELLED,
                          _("Loading “%s” was cancelled"), r->display);
    case SQLITE_NOMEM:
      return g_error_new (G_IO_ERROR, G_IO_ERROR_FAILED,
                          _("Could not read “%s”: out of memory"), r->display);
    default:
      return g_error_new (G_IO_ERROR, G_IO_ERROR_FAILED,
                          _("Could not read “%s”: %s"), r->display, msg);
    }
}

static gboolean
set_sqlite_error (Reader  *r,
                  int      rc,
                  GError **error)
{
  g_propagate_error (error, sqlite_error (r, rc));
  return FALSE;
}

/* Schema */

static gboolean
has_table (Reader     *r,
           const char *table)
{
  return g_hash_table_contains (r->tables, table);
}

static GHashTable *
table_columns (Reader      *r,
               const char  *table,
               GError     **error)
{
  GHashTable *columns;
  g_autofree char *sql = NULL;
  sqlite3_stmt *stmt = NULL;
  int rc;

  if (!g_hash_table_lookup_extended (r->tables, table, NULL, (gpointer *)&columns))
    return NULL;
  if (columns != NULL)
    return columns;

  sql = sqlite3_mprintf ("PRAGMA table_info(\"%w\")", table);
  rc = sqlite3_prepare_v2 (r->db, sql, -1, &stmt, NULL);
  sqlite3_free (g_steal_pointer (&sql));
  if (rc != SQLITE_OK)
    {
      set_sqlite_error (r, rc, error);
      return NULL;
    }

  columns = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      const char *name = (const char *)sqlite3_column_text (stmt, 1);

      if (name != NULL)
        g_hash_table_add (columns, g_strdup (name));
    }
  sqlite3_finalize (stmt);

  if (rc != SQLITE_DONE)
    {
      g_hash_table_unref (columns);
      set_sqlite_error (r, rc, error);
      return NULL;
    }

  g_hash_table_insert (r->tables, g_strdup (table), columns);
  return columns;
}

/* SELECT of @columns from @table, in that order; a column the table lacks
 * reads as NULL. Returns NULL without an error when the table is absent
 * or lacks one of the first @n_required columns. */
static sqlite3_stmt *
select_columns (Reader             *r,
                const char         *table,
                const char * const *columns,
                guint               n_columns,
                guint               n_required,
                const char         *where,
                GError            **error)
{
  GHashTable *have;
  g_autoptr(GString) sql = NULL;
  sqlite3_stmt *stmt = NULL;
  GError *local_error = NULL;
  int rc;

  if (!has_table (r, table))
    return NULL;
  if (!(have = table_columns (r, table, &local_error)))
    {
      g_propagate_error (error, local_error);
      return NULL;
    }

  for (guint i = 0; i < n_required; i++)
    if (!g_hash_table_contains (have, columns[i]))
      {
        ks_trace_builder_add_warning (r->b, _("Table %s has no column %s; it was skipped"),
                                      table, columns[i]);
        return NULL;
      }

  sql = g_string_new ("SELECT ");
  for (guint i = 0; i < n_columns; i++)
    {
      if (i > 0)
        g_string_append (sql, ", ");
      if (g_hash_table_contains (have, columns[i]))
        g_string_append_printf (sql, "\"%s\"", columns[i]);
      else
        g_string_append (sql, "NULL");
    }
  g_string_append_printf (sql, " FROM \"%s\"", table);
  if (where != NULL)
    g_string_append_printf (sql, " WHERE %s", where);

  /* Row order is the order things were written in; ask for it, unless the
   * table has no rowid. */
  rc = sqlite3_prepare_v2 (r->db, sql->str, -1, &stmt, NULL);
  if (rc == SQLITE_OK)
    {
      sqlite3_finalize (stmt);
      stmt = NULL;
      g_string_append (sql, " ORDER BY rowid");
      rc = sqlite3_prepare_v2 (r->db, sql->str, -1, &stmt, NULL);
      if (rc != SQLITE_OK)
        {
          g_string_truncate (sql, sql->len - strlen (" ORDER BY rowid"));
          rc = sqlite3_prepare_v2 (r->db, sql->str, -1, &stmt, NULL);
        }
    }

  if (rc != SQLITE_OK)
    {
      set_sqlite_error (r, rc, error);
      return NULL;
    }

  return stmt;
}

static gint64
table_rows (Reader     *r,
            const char *table)
{
  g_autofree char *sql = NULL;
  sqlite3_stmt *stmt = NULL;
  gint64 n = 0;

  if (!has_table (r, table))
    return 0;

  /* max(rowid) is a single b-tree descent, unlike count(*). */
  sql = g_strdup_printf ("SELECT max(rowid) FROM \"%s\"", table);
  if (sqlite3_prepare_v2 (r->db, sql, -1, &stmt, NULL) == SQLITE_OK &&
      sqlite3_step (stmt) == SQLITE_ROW)
    n = sqlite3_column_int64 (stmt, 0);
  sqlite3_finalize (stmt);
  return MAX (n, 0);
}

/* The size of the database, from its header's page count. */
static guint64
database_bytes (Reader *r)
{
  sqlite3_stmt *stmt = NULL;
  guint64 bytes = 0;

  if (sqlite3_prepare_v2 (r->db, "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()",
                          -1, &stmt, NULL) == SQLITE_OK &&
      sqlite3_step (stmt) == SQLITE_ROW)
    bytes = (guint64) MAX (sqlite3_column_int64 (stmt, 0), 0);
  sqlite3_finalize (stmt);
  return bytes;
}

/* Rows */

static gboolean
row_done (Reader  *r,
          GError **error)
{
  if (G_UNLIKELY (++r->rows_done % ROWS_PER_CHECK == 0))
    {
      if (g_cancellable_set_error_if_cancelled (r->cancellable, error))
        return FALSE;
      if (r->progress != NULL && r->rows_total > 0)
        ks_progress_set_fraction (r->progress,
                                  0.9 * MIN (1.0, (double)r->rows_done / (double)r->rows_total));
    }
  return TRUE;
}

/* Steps @stmt; FALSE at the end (with @error set when it failed). */
static inline gboolean
next_row (Reader        *r,
          sqlite3_stmt  *stmt,
          gboolean      *failed,
          GError       **error)
{
  int rc = sqlite3_step (stmt);

  if (G_LIKELY (rc == SQLITE_ROW))
    return TRUE;
  if (rc != SQLITE_DONE)
    {
      set_sqlite_error (r, rc, error);
      *failed = TRUE;
    }
  return FALSE;
}

static inline gboolean
col_null (sqlite3_stmt *stmt,
          int           col)
{
  return sqlite3_column_type (stmt, col) == SQLITE_NULL;
}

static inline gint64
col_i64 (sqlite3_stmt *stmt,
         int           col)
{
  return sqlite3_column_int64 (stmt, col);
}

static inline gint64
col_ts (Reader       *r,
        sqlite3_stmt *stmt,
        int           col)
{
  gint64 v = sqlite3_column_int64 (stmt, col);

  return CLAMP (v, -TS_LIMIT, TS_LIMIT) + r->shift;
}

static inline guint32
col_u32 (sqlite3_stmt *stmt,
         int           col)
{
  return (guint32)sqlite3_column_int64 (stmt, col);
}

static inline guint32
col_args (Reader       *r,
          sqlite3_stmt *stmt,
          int           col)
{
  const char *text = (const char *)sqlite3_column_text (stmt, col);

  /* strlen() rather than sqlite3_column_bytes(): argument text is kept
   * NUL-terminated anyway, and an API call costs more than the scan. */
  if (text == NULL)
    return 0;
  return ks_trace_builder_add_args (r->b, text, strlen (text));
}

/* Strings */

static guint32
sid_slow (Reader *r,
          gint64  id)
{
  const char *value = NULL;
  guint32 bid;

  if (id >= 0 && id < r->n_dense)
    value = r->svalues ? r->svalues[id] : NULL;
  else if (r->sparse_map != NULL)
    {
      gpointer v = g_hash_table_lookup (r->sparse_map, &id);

      if (v != NULL)
        return GPOINTER_TO_UINT (v) - 1;
      value = g_hash_table_lookup (r->sparse_values, &id);
    }

  if (value == NULL)
    {
      r->unknown_strings++;
      bid = 0;
    }
  else
    bid = ks_trace_builder_intern (r->b, value);

  if (id >= 0 && id < r->n_dense)
    r->smap[id] = bid;
  else if (r->sparse_map != NULL)
    {
      gint64 *key = g_new (gint64, 1);

      *key = id;
      g_hash_table_insert (r->sparse_map, key, GUINT_TO_POINTER (bid + 1));
    }

  return bid;
}

/* The builder's id for StringIds row @id. */
static inline guint32
sid (Reader *r,
     gint64  id)
{
  if (G_LIKELY (id >= 0 && id < r->n_dense && r->smap[id] != NONE))
    return r->smap[id];
  return sid_slow (r, id);
}

static gboolean
load_strings (Reader  *r,
              GError **error)
{
  static const char * const columns[] = { "id", "value" };
  sqlite3_stmt *stmt = NULL;
  gint64 max_id = -1, count = 0;
  gboolean failed = FALSE;

  if (sqlite3_prepare_v2 (r->db, "SELECT max(id), count(*) FROM StringIds", -1, &stmt, NULL) != SQLITE_OK ||
      sqlite3_step (stmt) != SQLITE_ROW)
    {
      int rc = sqlite3_errcode (r->db);

      sqlite3_finalize (stmt);
      return set_sqlite_error (r, rc, error);
    }
  max_id = col_null (stmt, 0) ? -1 : col_i64 (stmt, 0);
  count = col_i64 (stmt, 1);
  sqlite3_finalize (stmt);

  r->chunk = g_string_chunk_new (64 * 1024);

  /* Ids are dense in every file seen; a sparse (or hostile) numbering
   * must not make us allocate by the largest id. */
  if (max_id >= 0 && max_id < 2 * count + 1024 && max_id < (1 << 28))
    {
      r->n_dense = max_id + 1;
      r->smap = g_new (guint32, r->n_dense);
      memset (r->smap, 0xff, sizeof (guint32) * r->n_dense);
      if (!r->kscope)
        r->svalues = g_new0 (const char *, r->n_dense);
    }
  else
    {
      r->sparse_values = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
      r->sparse_map = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
    }

  if (!(stmt = select_columns (r, "StringIds", columns, 2, 2, NULL, error)))
    return error == NULL || *error == NULL;   /* skipped, with a warning */

  while (next_row (r, stmt, &failed, error))
    {
      gint64 id = col_i64 (stmt, 0);
      const char *value = (const char *)sqlite3_column_text (stmt, 1);

      if (value == NULL)
        value = "";

      if (id >= 0 && id < r->n_dense)
        {
          /* Our own files use every string: intern now, skip the copy. */
          if (r->kscope)
            r->smap[id] = ks_trace_builder_intern (r->b, value);
          else
            r->svalues[id] = g_string_chunk_insert (r->chunk, value);
        }
      else if (r->sparse_values != NULL)
        {
          gint64 *key = g_new (gint64, 1);

          *key = id;
          g_hash_table_insert (r->sparse_values, key, g_string_chunk_insert (r->chunk, value));
        }

      if (!row_done (r, error))
        {
          failed = TRUE;
          break;
        }
    }
  sqlite3_finalize (stmt);

  return !failed;
}

/* The text of StringIds row @id, or NULL. */
static char *
string_text (Reader *r,
             gint64  id)
{
  sqlite3_stmt *stmt = NULL;
  char *text = NULL;

  if (id >= 0 && id < r->n_dense && r->svalues != NULL)
    return g_strdup (r->svalues[id]);
  if (r->sparse_values != NULL)
    return g_strdup (g_hash_table_lookup (r->sparse_values, &id));

  if (sqlite3_prepare_v2 (r->db, "SELECT value FROM StringIds WHERE id = ?", -1, &stmt, NULL) == SQLITE_OK)
    {
      sqlite3_bind_int64 (stmt, 1, id);
      if (sqlite3_step (stmt) == SQLITE_ROW)
        text = g_strdup ((const char *)sqlite3_column_text (stmt, 0));
    }
  sqlite3_finalize (stmt);
  return text;
}

/* CUDA API names: Nsight stores "cudaLaunchKernel_v7000"; show the name. */
static guint32
api_sid (Reader *r,
         gint64  id)
{
  gpointer value = g_hash_table_lookup (r->api_names, &id);
  g_autofree char *name = NULL;
  guint32 bid;
  gint64 *key;

  if (value != NULL)
    return GPOINTER_TO_UINT (value) - 1;

  bid = sid (r, id);
  if (bid != 0 && (name = string_text (r, id)) != NULL)
    {
      gsize len = strlen (name);
      const char *p = name + len;

      /* Nsight's suffix is a CUDA version (_v3020, _v11000); a short one
       * is part of the API's own name (cuMemAlloc_v2). */
      while (p > name && g_ascii_isdigit (p[-1]))
        p--;
      if (name + len - p >= 4 && p - name >= 3 && p[-1] == 'v' && p[-2] == '_')
        bid = ks_trace_builder_intern_len (r->b, name, (p - 2) - name);
    }

  key = g_new (gint64, 1);
  *key = id;
  g_hash_table_insert (r->api_names, key, GUINT_TO_POINTER (bid + 1));
  return bid;
}

/* Processes, threads and tracks */

static gint64
gid_pid (gint64 gid)
{
  return ks_kscope_pid_of (gid);
}

static gint64
gid_process (gint64 gid)
{
  return gid & ~KS_GID_MASK;
}

static Proc *
register_process (Reader  *r,
                  gint64   gpid,
                  guint32  process,
                  guint32  group)
{
  gint64 *key = g_new (gint64, 1);
  Proc *proc = g_new (Proc, 1);

  *key = gpid;
  proc->process = process;
  proc->group = group;
  g_hash_table_insert (r->procs, key, proc);
  return proc;
}

/* The process of @gpid, created on first use with a group of its own:
 * correlation ids are unique within one process only. */
static Proc *
reader_process (Reader *r,
                gint64  gpid)
{
  Proc *proc;
  gint64 pid;
  gint64 *owner;
  guint32 group;

  gpid = gid_process (gpid);
  if ((proc = g_hash_table_lookup (r->procs, &gpid)))
    return proc;

  /* Two hosts or VMs may reuse a pid: keep them apart by the full id. */
  pid = gid_pid (gpid);
  if ((owner = g_hash_table_lookup (r->pid_owner, &pid)) != NULL && *owner != gpid)
    pid = gpid >> KS_GID_PID_SHIFT;
  else if (owner == NULL)
    {
      gint64 *key = g_new (gint64, 1);
      gint64 *value = g_new (gint64, 1);

      *key = pid;
      *value = gpid;
      g_hash_table_insert (r->pid_owner, key, value);
    }

  group = r->next_group++;
  ks_trace_builder_set_group (r->b, group);
  return register_process (r, gpid, ks_trace_builder_get_process (r->b, pid), group);
}

static void
register_thread (Reader  *r,
                 gint64   gtid,
                 guint32  thread)
{
  gint64 *key = g_new (gint64, 1);

  *key = gtid;
  g_hash_table_insert (r->threads, key, GUINT_TO_POINTER (thread + 1));
}

static guint32
reader_thread (Reader *r,
               gint64  gtid)
{
  gpointer value;
  Proc *proc;
  guint32 thread;

  if (gtid == r->last_gtid && r->last_thread != NONE)
    return r->last_thread;

  if ((value = g_hash_table_lookup (r->threads, &gtid)) != NULL)
    thread = GPOINTER_TO_UINT (value) - 1;
  else
    {
      proc = reader_process (r, gtid);
      thread = ks_trace_builder_get_thread (r->b, proc->process, gtid & KS_GID_MASK);
      register_thread (r, gtid, thread);
    }

  r->last_gtid = gtid;
  r->last_thread = thread;
  return thread;
}

static guint32
group_of (Reader *r,
          gint64  gpid)
{
  return reader_process (r, gpid)->group;
}

static guint32
stream_track (Reader       *r,
              sqlite3_stmt *stmt,
              int           gpid_col,
              gint64        device,
              gint64        stream)
{
  gboolean orphan = col_null (stmt, gpid_col);
  gint64 gpid = orphan ? -1 : col_i64 (stmt, gpid_col);
  guint32 group = 0;

  if (stream == KS_NSYS_NO_STREAM)
    stream = -1;
  device = CLAMP (device, G_MININT32, G_MAXINT32);

  if (r->last_stream_track != NONE && r->last_stream_key[0] == gpid &&
      r->last_stream_key[1] == device && r->last_stream_key[2] == stream)
    return r->last_stream_track;

  if (!orphan)
    group = group_of (r, gpid);
  else if (r->orphan_streams != NULL)
    {
      g_autofree char *key = g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, device, stream);
      gpointer value;

      if (g_hash_table_lookup_extended (r->orphan_streams, key, NULL, &value))
        group = GPOINTER_TO_UINT (value);
    }

  ks_trace_builder_set_group (r->b, group);
  r->last_stream_key[0] = gpid;
  r->last_stream_key[1] = device;
  r->last_stream_key[2] = stream;
  r->last_stream_track = ks_trace_builder_get_stream_track (r->b, (gint32)device, stream);
  return r->last_stream_track;
}

static inline void
add_slice (Reader          *r,
           guint32          track,
           gint64           start,
           gint64           end,
           KsSliceKind      kind,
           guint32          name,
           guint32          category,
           guint32          correlation,
           guint32          external_id,
           guint32          args,
           const KsGpuInfo *gpu)
{
  if (end < start)
    end = start;
  if (!r->have_end || end > r->max_end)
    {
      r->max_end = end;
      r->have_end = TRUE;
    }
  ks_trace_builder_add_slice (r->b, track, start, end, kind, name, category,
                              correlation, external_id, args, gpu);
}

/* The category column of a .kscope row, else what the table implies. */
static inline guint32
col_category (Reader       *r,
              sqlite3_stmt *stmt,
              int           col,
              KsSliceKind   kind)
{
  if (r->kscope && !col_null (stmt, col))
    return sid (r, col_i64 (stmt, col));
  return r->category[kind];
}

static inline guint32
col_ext (Reader       *r,
         sqlite3_stmt *stmt,
         int           col)
{
  return r->kscope ? col_u32 (stmt, col) : 0;
}

static gboolean
finish_stmt (Reader        *r,
             sqlite3_stmt  *stmt,
             gboolean       failed)
{
  sqlite3_finalize (stmt);
  return !failed;
}

#define READ_ROWS(stmt)                                   \
  for (gboolean failed_ = FALSE;                          \
       !failed_ && next_row (r, stmt, &failed_, error);   \
       failed_ = failed_ || !row_done (r, error))

/* KS_META */

static gboolean
load_meta (Reader  *r,
           GError **error)
{
  static const char * const columns[] = { "name", "value" };
  sqlite3_stmt *stmt;
  gboolean failed = FALSE;

  if (!(stmt = select_columns (r, "KS_META", columns, 2, 2, NULL, error)))
    return error == NULL || *error == NULL;

  while (next_row (r, stmt, &failed, error))
    {
      const char *name = (const char *)sqlite3_column_text (stmt, 0);
      const char *value = (const char *)sqlite3_column_text (stmt, 1);

      if (name == NULL || value == NULL)
        continue;

      if (strcmp (name, KS_KSCOPE_META_COMPLETE) == 0)
        r->cut_short = strcmp (value, "0") == 0;
      /* The recorder's row, or a copy's "metadata." one. */
      if (strcmp (name, KS_KSCOPE_META_END_REASON) == 0 ||
          strcmp (name, KS_KSCOPE_META_METADATA_PREFIX KS_KSCOPE_META_END_REASON) == 0)
        {
          g_free (r->end_reason);
          r->end_reason = g_strdup (value);
          ks_trace_builder_set_metadata (r->b, KS_KSCOPE_META_END_REASON, value);
        }

      if (strcmp (name, KS_KSCOPE_META_ORIGIN_NS) == 0)
        {
          gint64 origin = g_ascii_strtoll (value, NULL, 10);

          r->shift = CLAMP (origin, -TS_LIMIT, TS_LIMIT);
        }
      else if (g_str_has_prefix (name, KS_KSCOPE_META_METADATA_PREFIX))
        ks_trace_builder_set_metadata (r->b, name + strlen (KS_KSCOPE_META_METADATA_PREFIX), value);
      else
        {
          for (guint i = 0; ks_kscope_file_meta_keys[i] != NULL; i++)
            if (strcmp (name, ks_kscope_file_meta_keys[i]) == 0)
              ks_trace_builder_set_metadata (r->b, name, value);
        }
    }

  return finish_stmt (r, stmt, failed);
}

/* A recording that says complete = 0 was cut short; its end_reason (as
 * kinescope-cli record writes it, src/cli/ks-cli-record.c) says how. */
static void
warn_cut_short (Reader *r)
{
  static const struct { const char *reason; const char *text; } reasons[] = {
    { "interrupted", N_("The recording was cut short: it was interrupted (Ctrl+C or a stop signal to "
                        "the recorder) before the program ended") },
    { "command-killed", N_("The recording was cut short: the program was killed by a signal or crashed") },
    { "disk-full", N_("The recording was cut short: the disk was full (or a quota or file size limit "
                      "was reached), so writing stopped while the program ran on unrecorded") },
    { "write-failed", N_("The recording was cut short: the trace could not be written, so writing "
                         "stopped while the program ran on unrecorded") },
    { "spawn-failed", N_("The recording was cut short: the program could not be started") },
    { "command-exited", N_("The recording was cut short: the program exited before the recorder "
                           "finished the file") },
    { "duration", N_("The recording was cut short while it was stopping at the requested duration") },
  };
  g_autofree char *shown = NULL;

  if (!r->kscope || !r->cut_short)
    return;

  /* No reason: the recorder itself never got to finish the file. */
  if (r->end_reason == NULL)
    {
      ks_trace_builder_add_warning (r->b, "%s", _("The recording was cut short: the recorder stopped before it "
                                                  "finished the file (it was killed or crashed); what happened "
                                                  "after its last save is missing"));
      return;
    }
  for (guint i = 0; i < G_N_ELEMENTS (reasons); i++)
    if (strcmp (r->end_reason, reasons[i].reason) == 0)
      {
        ks_trace_builder_add_warning (r->b, "%s", _(reasons[i].text));
        return;
      }

  /* Someone else's text: one short line of it. */
  shown = g_utf8_make_valid (r->end_reason, MIN (strlen (r->end_reason), 80));
  g_strdelimit (shown, "\n\r\t", ' ');
  ks_trace_builder_add_warning (r->b, _("The recording was cut short (the recorder gave the reason “%s”)"), shown);
}

/* Nsight's export metadata: the product and schema versions. */
static gboolean
load_export_meta (Reader  *r,
                  GError **error)
{
  static const char * const columns[] = { "name", "value" };
  const char *table = has_table (r, "META_DATA_EXPORT") ? "META_DATA_EXPORT" : "EXPORT_META_DATA";
  sqlite3_stmt *stmt;
  gboolean failed = FALSE;

  if (!(stmt = select_columns (r, table, columns, 2, 2, NULL, error)))
    return error == NULL || *error == NULL;

  while (next_row (r, stmt, &failed, error))
    {
      const char *name = (const char *)sqlite3_column_text (stmt, 0);
      const char *value = (const char *)sqlite3_column_text (stmt, 1);

      if (name == NULL || value == NULL)
        continue;
      if (strcmp (name, "EXPORT_PRODUCT_VERSION") == 0)
        ks_trace_builder_set_metadata (r->b, "nsys_version", value);
      else if (strcmp (name, "EXPORT_SCHEMA_VERSION") == 0)
        ks_trace_builder_set_metadata (r->b, "nsys_schema_version", value);
    }

  return finish_stmt (r, stmt, failed);
}

static gboolean
load_processes (Reader  *r,
                GError **error)
{
  static const char * const ks_columns[] = {
    "globalPid", "pid", "originalPid", "name", "label", "sortIndex", "groupId",
  };
  static const char * const nsys_columns[] = { "globalPid", "name", "pid" };
  sqlite3_stmt *stmt;
  gboolean failed = FALSE;

  if ((stmt = select_columns (r, "KS_PROCESSES", ks_columns, G_N_ELEMENTS (ks_columns), 2, NULL, error)))
    {
      r->have_ks_processes = TRUE;
      while (next_row (r, stmt, &failed, error))
        {
          gint64 gpid = gid_process (col_i64 (stmt, 0));
          guint32 group = col_null (stmt, 6) ? r->next_group : col_u32 (stmt, 6);
          guint32 process;

          if (g_hash_table_contains (r->procs, &gpid))
            continue;
          ks_trace_builder_set_group (r->b, group);
          process = ks_trace_builder_get_process (r->b, col_i64 (stmt, 1));
          ks_trace_builder_set_process_info (r->b, process,
                                             (const char *)sqlite3_column_text (stmt, 3),
                                             (const char *)sqlite3_column_text (stmt, 4),
                                             (const char *)sqlite3_column_text (stmt, 2),
                                             col_null (stmt, 5) ? G_MININT32 : (gint32)col_i64 (stmt, 5));
          register_process (r, gpid, process, group);
          r->next_group = MAX (r->next_group, group + 1);
        }
      if (!finish_stmt (r, stmt, failed))
        return FALSE;
      return TRUE;
    }
  if (error != NULL && *error != NULL)
    return FALSE;

  /* Nsight lists every process of the machine; names are kept aside and
   * given to the processes that turn out to have events. */
  if (!(stmt = select_columns (r, "PROCESSES", nsys_columns, G_N_ELEMENTS (nsys_columns), 2, NULL, error)))
    return error == NULL || *error == NULL;

  while (next_row (r, stmt, &failed, error))
    {
      const char *name = (const char *)sqlite3_column_text (stmt, 1);
      gint64 *key;

      if (name == NULL || *name == 0)
        continue;
      key = g_new (gint64, 1);
      *key = gid_process (col_i64 (stmt, 0));
      g_hash_table_insert (r->process_names, key, g_strdup (name));
    }

  return finish_stmt (r, stmt, failed);
}

static gboolean
load_threads (Reader  *r,
              GError **error)
{
  static const char * const ks_columns[] = {
    "globalTid", "tid", "originalTid", "name", "sortIndex", "globalPid",
  };
  static const char * const nsys_columns[] = { "globalTid", "nameId" };
  sqlite3_stmt *stmt;
  gboolean failed = FALSE;

  if ((stmt = select_columns (r, "KS_THREADS", ks_columns, G_N_ELEMENTS (ks_columns), 2, NULL, error)))
    {
      r->have_ks_threads = TRUE;
      while (next_row (r, stmt, &failed, error))
        {
          gint64 gtid = col_i64 (stmt, 0);
          gint64 gpid = col_null (stmt, 5) ? gid_process (gtid) : col_i64 (stmt, 5);
          Proc *proc;
          guint32 thread;

          if (g_hash_table_contains (r->threads, &gtid))
            continue;
          proc = reader_process (r, gpid);
          thread = ks_trace_builder_get_thread (r->b, proc->process, col_i64 (stmt, 1));
          ks_trace_builder_set_thread_info (r->b, thread,
                                            (const char *)sqlite3_column_text (stmt, 3),
                                            (const char *)sqlite3_column_text (stmt, 2),
                                            col_null (stmt, 4) ? G_MININT32 : (gint32)col_i64 (stmt, 4));
          register_thread (r, gtid, thread);
        }
      if (!finish_stmt (r, stmt, failed))
        return FALSE;
      return TRUE;
    }
  if (error != NULL && *error != NULL)
    return FALSE;

  if (!(stmt = select_columns (r, "ThreadNames", nsys_columns, 2, 2, NULL, error)))
    return error == NULL || *error == NULL;

  while (next_row (r, stmt, &failed, error))
    {
      gint64 *key = g_new (gint64, 1);

      *key = col_i64 (stmt, 0);
      g_hash_table_insert (r->thread_names, key, GSIZE_TO_POINTER ((gsize)col_i64 (stmt, 1)));
    }

  return finish_stmt (r, stmt, failed);
}

static KsTrackKind
track_kind_from_string (const char *kind)
{
  for (guint i = 0; i < KS_N_TRACK_KINDS; i++)
    if (kind != NULL && strcmp (kind, ks_sqlite_track_kinds[i]) == 0)
      return i;
  return KS_N_TRACK_KINDS;
}

/* KS_TRACKS recreates the tracks in their saved order. */
static gboolean
load_tracks (Reader  *r,
             GError **error)
{
  static const char * const columns[] = {
    "id", "kind", "name", "globalPid", "globalTid", "deviceId", "streamId", "sortIndex", "groupId",
  };
  sqlite3_stmt *stmt;
  gboolean failed = FALSE;
  gint64 n = table_rows (r, "KS_TRACKS");

  if (!(stmt = select_columns (r, "KS_TRACKS", columns, G_N_ELEMENTS (columns), 2, NULL, error)))
    return error == NULL || *error == NULL;

  /* Our ids count from 0; anything else is refused rather than allocated. */
  r->n_track_map = (guint32)MIN (n + 1, 1 << 24);
  r->track_map = g_new (guint32, MAX (r->n_track_map, 1));
  memset (r->track_map, 0xff, sizeof (guint32) * MAX (r->n_track_map, 1));
  r->orphan_streams = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  while (next_row (r, stmt, &failed, error))
    {
      gint64 id = col_i64 (stmt, 0);
      KsTrackKind kind = track_kind_from_string ((const char *)sqlite3_column_text (stmt, 1));
      const char *name = (const char *)sqlite3_column_text (stmt, 2);
      guint32 group = col_u32 (stmt, 8);
      gint64 device = CLAMP (col_i64 (stmt, 5), G_MININT32, G_MAXINT32);
      gint64 stream = col_i64 (stmt, 6) == KS_NSYS_NO_STREAM ? -1 : col_i64 (stmt, 6);
      guint32 track = NONE;

      if (id < 0 || id >= r->n_track_map)
        {
          r->skipped++;
          continue;
        }

      switch (kind)
        {
        case KS_TRACK_THREAD:
        case KS_TRACK_NVTX:
          if (col_null (stmt, 4))
            break;
          track = reader_thread (r, col_i64 (stmt, 4));
          track = kind == KS_TRACK_THREAD ? ks_trace_builder_get_thread_track (r->b, track)
                                          : ks_trace_builder_get_nvtx_track (r->b, track);
          break;

        case KS_TRACK_STREAM:
        case KS_TRACK_GPU_ANNOTATION:
          ks_trace_builder_set_group (r->b, group);
          track = kind == KS_TRACK_STREAM ? ks_trace_builder_get_stream_track (r->b, (gint32)device, stream)
                                          : ks_trace_builder_get_gpu_annotation_track (r->b, (gint32)device, stream);
          if (kind == KS_TRACK_STREAM && col_null (stmt, 3))
            {
              char *key = g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, device, stream);

              if (!g_hash_table_contains (r->orphan_streams, key))
                g_hash_table_insert (r->orphan_streams, key, GUINT_TO_POINTER (group));
              else
                g_free (key);
            }
          break;

        case KS_TRACK_ASYNC:
          {
            guint32 process = col_null (stmt, 3) ? NONE : reader_process (r, col_i64 (stmt, 3))->process;

            if (process == NONE)
              break;
            ks_trace_builder_set_group (r->b, group);
            track = ks_trace_builder_get_async_track (r->b, process, name);
          }
          break;

        case KS_N_TRACK_KINDS:
        default:
          break;
        }

      if (track == NONE)
        {
          r->skipped++;
          continue;
        }

      r->track_map[id] = track;
      if (!col_null (stmt, 7))
        ks_trace_builder_set_track_sort_index (r->b, track, (gint32)col_i64 (stmt, 7));
    }

  return finish_stmt (r, stmt, failed);
}

static guint32
mapped_track (Reader       *r,
              sqlite3_stmt *stmt,
              int           track_col,
              int           gtid_col)
{
  if (!col_null (stmt, track_col))
    {
      gint64 id = col_i64 (stmt, track_col);

      if (id >= 0 && id < r->n_track_map && r->track_map[id] != NONE)
        return r->track_map[id];
    }
  if (gtid_col >= 0 && !col_null (stmt, gtid_col))
    return ks_trace_builder_get_thread_track (r->b, reader_thread (r, col_i64 (stmt, gtid_col)));
  return NONE;
}

static gboolean
load_gpus (Reader  *r,
           GError **error)
{
  static const char * const columns[] = {
    "id", "name", "totalMemory", "smCount", "computeMajor", "computeMinor",
    "maxThreadsPerBlock", "maxWarpsPerSm", "threadsPerWarp", "maxRegistersPerBlock",
    "maxRegistersPerSm", "maxShmemPerBlock", "maxShmemPerSm", "maxThreadsPerSm",
  };
  sqlite3_stmt *stmt;
  gboolean failed = FALSE;

  if (!(stmt = select_columns (r, "TARGET_INFO_GPU", columns, G_N_ELEMENTS (columns), 1, NULL, error)))
    return error == NULL || *error == NULL;

  while (next_row (r, stmt, &failed, error))
    {
      KsGpu gpu = { 0 };
      const char *name = (const char *)sqlite3_column_text (stmt, 1);

      gpu.device = (gint32)CLAMP (col_i64 (stmt, 0), G_MININT32, G_MAXINT32);
      gpu.name = name ? ks_trace_builder_intern (r->b, name) : 0;
      gpu.total_memory = (guint64)col_i64 (stmt, 2);
      gpu.sm_count = col_u32 (stmt, 3);
      gpu.compute_major = col_u32 (stmt, 4);
      gpu.compute_minor = col_u32 (stmt, 5);
      gpu.max_threads_per_block = col_u32 (stmt, 6);
      gpu.warp_size = col_u32 (stmt, 8);
      gpu.registers_per_block = col_u32 (stmt, 9);
      gpu.registers_per_sm = col_u32 (stmt, 10);
      gpu.shared_memory_per_block = col_u32 (stmt, 11);
      gpu.shared_memory_per_sm = col_u32 (stmt, 12);
      if (!col_null (stmt, 13))
        gpu.max_threads_per_sm = col_u32 (stmt, 13);
      else
        gpu.max_threads_per_sm = col_u32 (stmt, 7) * gpu.warp_size;
      ks_trace_builder_add_gpu (r->b, &gpu);
    }

  return finish_stmt (r, stmt, failed);
}

static gboolean
load_session (Reader  *r,
              GError **error)
{
  static const char * const columns[] = { "utcEpochNs" };
  sqlite3_stmt *stmt;
  gboolean failed = FALSE;

  if (!(stmt = select_columns (r, "TARGET_INFO_SESSION_START_TIME", columns, 1, 1, NULL, error)))
    return error == NULL || *error == NULL;

  if (next_row (r, stmt, &failed, error) && !col_null (stmt, 0))
    {
      gint64 utc = CLAMP (col_i64 (stmt, 0), -TS_LIMIT, TS_LIMIT);

      ks_trace_builder_set_start_utc (r->b, utc - r->shift);
    }

  return finish_stmt (r, stmt, failed);
}

/* Slice tables */

static char *
domain_key (gint64 gtid,
            gint64 domain)
{
  return g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, gid_process (gtid), domain);
}

static gboolean
load_nvtx (Reader  *r,
           GError **error)
{
  static const char * const columns[] = {
    "start", "eventType", "end", "globalTid", "text", "textId", "domainId", "jsonText",
    "correlationId", "externalId",
  };
  g_autoptr(GHashTable) domains = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sqlite3_stmt *stmt;
  gboolean failed = FALSE;
  gint64 last_domain = G_MININT64;
  gint64 last_domain_process = G_MININT64;
  guint32 last_domain_category = 0;

  /* Domain names and NVTX thread names first: ranges refer to them. */
  if (!(stmt = select_columns (r, "NVTX_EVENTS", columns, G_N_ELEMENTS (columns), 2,
                               "eventType IN (39, 75)", error)))
    return error == NULL || *error == NULL;

  while (next_row (r, stmt, &failed, error))
    {
      const char *text = (const char *)sqlite3_column_text (stmt, 4);

      if (col_i64 (stmt, 1) == KS_NSYS_NVTX_DOMAIN_CREATE)
        {
          guint32 name = text ? ks_trace_builder_intern (r->b, text) : sid (r, col_i64 (stmt, 5));

          g_hash_table_insert (domains, domain_key (col_i64 (stmt, 3), col_i64 (stmt, 6)),
                               GUINT_TO_POINTER (name));
        }
      else
        {
          char *name = text ? g_strdup (text) : string_text (r, col_i64 (stmt, 5));
          gint64 *key = g_new (gint64, 1);

          *key = col_i64 (stmt, 3);
          g_hash_table_insert (r->nvtx_thread_names, key, name);
        }
    }
  if (!finish_stmt (r, stmt, failed))
    return FALSE;

  if (!(stmt = select_columns (r, "NVTX_EVENTS", columns, G_N_ELEMENTS (columns), 2,
                               "eventType IN (34, 59, 60, 65, 70, 71)", error)))
    return error == NULL || *error == NULL;

  READ_ROWS (stmt)
    {
      gint64 type = col_i64 (stmt, 1);
      gint64 gtid = col_i64 (stmt, 3);
      const char *text = (const char *)sqlite3_column_text (stmt, 4);
      guint32 name = text ? ks_trace_builder_intern (r->b, text) : sid (r, col_i64 (stmt, 5));
      guint32 category = r->category[KS_SLICE_NVTX];
      guint32 thread = reader_thread (r, gtid);
      guint32 track = ks_trace_builder_get_nvtx_track (r->b, thread);
      guint32 args = r->kscope ? col_args (r, stmt, 7) : 0;

      if (!col_null (stmt, 6))
        {
          gint64 domain = col_i64 (stmt, 6);

          /* Ranges of one domain and process come in runs. */
          if (domain != last_domain || gid_process (gtid) != last_domain_process)
            {
              g_autofree char *key = domain_key (gtid, domain);
              gpointer value;

              last_domain = domain;
              last_domain_process = gid_process (gtid);
              last_domain_category = category;
              if (g_hash_table_lookup_extended (domains, key, NULL, &value))
                last_domain_category = GPOINTER_TO_UINT (value);
            }
          category = last_domain_category;
        }

      if (type == KS_NSYS_NVTX_MARK || type == KS_NSYS_NVTXT_MARK)
        {
          KsInstant inst = { 0 };

          inst.ts = col_ts (r, stmt, 0);
          inst.track = track;
          inst.process = reader_process (r, gtid)->process;
          inst.name = name;
          inst.category = category;
          inst.args = args;
          ks_trace_builder_add_instant (r->b, &inst);
        }
      else if (col_null (stmt, 2))
        {
          /* Never closed: it lasts to the end of the trace. */
          OpenRange open = { track, col_ts (r, stmt, 0), name, category,
                             col_ext (r, stmt, 8), col_ext (r, stmt, 9), args };

          g_array_append_val (r->open_ranges, open);
        }
      else
        add_slice (r, track, col_ts (r, stmt, 0), col_ts (r, stmt, 2), KS_SLICE_NVTX,
                   name, category, col_ext (r, stmt, 8), col_ext (r, stmt, 9), args, NULL);
    }

  return finish_stmt (r, stmt, error != NULL && *error != NULL);
}

static guint32
memcpy_name (Reader          *r,
             const KsGpuInfo *info)
{
  guint32 *slot = &r->memcpy_names[MIN (info->copy.copy_kind, 10)][MIN (info->copy.src_kind, 7)][MIN (info->copy.dst_kind, 7)];

  if (*slot == NONE)
    {
      g_autofree char *name = ks_sqlite_memcpy_name (info);

      *slot = ks_trace_builder_intern (r->b, name);
    }
  return *slot;
}

static guint32
memset_name (Reader          *r,
             const KsGpuInfo *info)
{
  guint32 *slot = &r->memset_names[MIN (info->copy.dst_kind, 7)];

  if (*slot == NONE)
    {
      g_autofree char *name = ks_sqlite_memset_name (info);

      *slot = ks_trace_builder_intern (r->b, name);
    }
  return *slot;
}

static guint32
sync_name (Reader *r,
           gint64  type)
{
  guint i = type >= 0 && type < (gint64)G_N_ELEMENTS (ks_sqlite_sync_names) ? (guint)type : 0;

  if (r->sync_names[i] == NONE)
    r->sync_names[i] = ks_trace_builder_intern (r->b, ks_sqlite_sync_names[i]);
  return r->sync_names[i];
}

/* The name column of a .kscope GPU row, else the name its details imply. */
static inline gboolean
col_name (Reader       *r,
          sqlite3_stmt *stmt,
          int           col,
          guint32      *name)
{
  if (r->kscope && !col_null (stmt, col))
    {
      *name = sid (r, col_i64 (stmt, col));
      return TRUE;
    }
  return FALSE;
}

static inline guint8
mem_kind (Reader *r,
          gint64  id)
{
  return id >= 0 && id < (gint64)G_N_ELEMENTS (r->mem_kinds) ? r->mem_kinds[id] : KS_MEM_UNKNOWN;
}

/* Memory kinds are numbered as the file's ENUM_CUDA_MEM_KIND says (Nsight
 * counts from Pageable = 0, CUPTI from Unknown = 0); without that table,
 * as Nsight numbers them. */
static gboolean
load_mem_kinds (Reader  *r,
                GError **error)
{
  static const struct { const char *suffix; KsMemoryKind kind; } names[] = {
    { "DEVICE_STATIC", KS_MEM_DEVICE_STATIC }, { "MANAGED_STATIC", KS_MEM_MANAGED_STATIC },
    { "PAGEABLE", KS_MEM_PAGEABLE }, { "PINNED", KS_MEM_PINNED }, { "DEVICE", KS_MEM_DEVICE },
    { "ARRAY", KS_MEM_ARRAY }, { "MANAGED", KS_MEM_MANAGED },
  };
  static const char * const columns[] = { "id", "name" };
  sqlite3_stmt *stmt;
  gboolean failed = FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (r->mem_kinds); i++)
    r->mem_kinds[i] = ks_kscope_mem_kind_to_cupti (i);

  if (!(stmt = select_columns (r, "ENUM_CUDA_MEM_KIND", columns, 2, 2, NULL, error)))
    return error == NULL || *error == NULL;

  while (next_row (r, stmt, &failed, error))
    {
      gint64 id = col_i64 (stmt, 0);
      const char *name = (const char *)sqlite3_column_text (stmt, 1);
      guint8 kind = KS_MEM_UNKNOWN;

      if (id < 0 || id >= (gint64)G_N_ELEMENTS (r->mem_kinds) || name == NULL)
        continue;
      for (guint i = 0; i < G_N_ELEMENTS (names); i++)
        if (g_str_has_suffix (name, names[i].suffix))
          {
            kind = names[i].kind;
            break;
          }
      r->mem_kinds[id] = kind;
    }

  return finish_stmt (r, stmt, failed);
}

/* The slice tables, merged
 *
 * A track's slices come from several tables (a thread's operators from
 * KS_SLICES, its CUDA calls from CUPTI_ACTIVITY_KIND_RUNTIME...), each
 * written track by track in time order. Reading the tables side by side
 * and always taking the row that comes first hands the builder every
 * track already sorted, which spares it a sort per track. */

typedef guint32 (*SourceTrack) (Reader       *r,
                                sqlite3_stmt *stmt);
typedef void    (*SourceEmit)  (Reader       *r,
                                sqlite3_stmt *stmt,
                                guint32       track,
                                gint64        start,
                                gint64        end);

typedef struct
{
  sqlite3_stmt *stmt;      /* NULL once the table is read */
  SourceTrack   track_of;  /* NONE skips the row */
  SourceEmit    emit;
  guint32       track;
  gint64        start;
  gint64        end;
} Source;

/* Rows known to name their track (trackId IS NOT NULL). */
static guint32
ks_slice_track_by_id (Reader       *r,
                      sqlite3_stmt *stmt)
{
  gint64 id = col_i64 (stmt, 3);

  if (id >= 0 && id < r->n_track_map && r->track_map[id] != NONE)
    return r->track_map[id];
  return NONE;
}

static guint32
ks_slice_track (Reader       *r,
                sqlite3_stmt *stmt)
{
  return mapped_track (r, stmt, 3, 2);
}

static void
ks_slice_emit (Reader       *r,
               sqlite3_stmt *stmt,
               guint32       track,
               gint64        start,
               gint64        end)
{
  gint64 kind = col_i64 (stmt, 4);

  if (kind < 0 || kind >= KS_N_SLICE_KINDS)
    kind = KS_SLICE_GENERIC;
  add_slice (r, track, start, end, kind, sid (r, col_i64 (stmt, 5)), sid (r, col_i64 (stmt, 6)),
             col_u32 (stmt, 7), col_u32 (stmt, 8), col_args (r, stmt, 9), NULL);
}

static guint32
runtime_track (Reader       *r,
               sqlite3_stmt *stmt)
{
  return ks_trace_builder_get_thread_track (r->b, reader_thread (r, col_i64 (stmt, 4)));
}

static void
runtime_emit (Reader       *r,
              sqlite3_stmt *stmt,
              guint32       track,
              gint64        start,
              gint64        end)
{
  gint64 klass = col_i64 (stmt, 3);
  KsSliceKind kind = klass == KS_NSYS_CLASS_CUDA_DRIVER || klass == 13
                     ? KS_SLICE_CUDA_DRIVER : KS_SLICE_CUDA_RUNTIME;

  add_slice (r, track, start, end, kind,
             api_sid (r, col_i64 (stmt, 2)), col_category (r, stmt, 6, kind),
             col_u32 (stmt, 5), col_ext (r, stmt, 7),
             r->kscope ? col_args (r, stmt, 8) : 0, NULL);
}

static guint32
osrt_track (Reader       *r,
            sqlite3_stmt *stmt)
{
  return ks_trace_builder_get_thread_track (r->b, reader_thread (r, col_i64 (stmt, 3)));
}

static void
osrt_emit (Reader       *r,
           sqlite3_stmt *stmt,
           guint32       track,
           gint64        start,
           gint64        end)
{
  add_slice (r, track, start, end, KS_SLICE_OSRT,
             sid (r, col_i64 (stmt, 2)), col_category (r, stmt, 4, KS_SLICE_OSRT),
             col_ext (r, stmt, 5), col_ext (r, stmt, 6),
             r->kscope ? col_args (r, stmt, 7) : 0, NULL);
}

/* cuBLAS and cuDNN calls (CUBLAS_EVENTS, CUDNN_EVENTS): library API
 * ranges on the calling thread. */
static void
library_emit (Reader       *r,
              sqlite3_stmt *stmt,
              guint32       track,
              gint64        start,
              gint64        end,
              const char   *category)
{
  add_slice (r, track, start, end, KS_SLICE_GENERIC, sid (r, col_i64 (stmt, 2)),
             ks_trace_builder_intern (r->b, category), 0, 0, 0, NULL);
}

static void
cublas_emit (Reader       *r,
             sqlite3_stmt *stmt,
             guint32       track,
             gint64        start,
             gint64        end)
{
  library_emit (r, stmt, track, start, end, "cublas");
}

static void
cudnn_emit (Reader       *r,
            sqlite3_stmt *stmt,
            guint32       track,
            gint64        start,
            gint64        end)
{
  library_emit (r, stmt, track, start, end, "cudnn");
}

/* GPU tables: deviceId, streamId, globalPid in columns 2, 3, 5. */
static guint32
gpu_track (Reader       *r,
           sqlite3_stmt *stmt)
{
  return stream_track (r, stmt, 5, col_i64 (stmt, 2), col_i64 (stmt, 3));
}

static void
kernel_emit (Reader       *r,
             sqlite3_stmt *stmt,
             guint32       track,
             gint64        start,
             gint64        end)
{
  KsGpuInfo info;
  guint32 name = col_null (stmt, 6) ? sid (r, col_i64 (stmt, 7)) : sid (r, col_i64 (stmt, 6));

  memset (&info, 0, sizeof info);
  info.kernel.grid[0] = col_u32 (stmt, 9);
  info.kernel.grid[1] = col_u32 (stmt, 10);
  info.kernel.grid[2] = col_u32 (stmt, 11);
  info.kernel.block[0] = (guint16)col_i64 (stmt, 12);
  info.kernel.block[1] = (guint16)col_i64 (stmt, 13);
  info.kernel.block[2] = (guint16)col_i64 (stmt, 14);
  info.kernel.registers = (guint16)col_i64 (stmt, 8);
  info.kernel.shared_memory = col_u32 (stmt, 15) + col_u32 (stmt, 16);

  add_slice (r, track, start, end, KS_SLICE_KERNEL, name,
             col_category (r, stmt, 17, KS_SLICE_KERNEL), col_u32 (stmt, 4),
             col_ext (r, stmt, 18), r->kscope ? col_args (r, stmt, 19) : 0, &info);
}

static void
memcpy_emit (Reader       *r,
             sqlite3_stmt *stmt,
             guint32       track,
             gint64        start,
             gint64        end)
{
  KsGpuInfo info;
  guint32 name;

  memset (&info, 0, sizeof info);
  info.copy.bytes = (guint64)col_i64 (stmt, 6);
  info.copy.copy_kind = ks_sqlite_copy_kind_from_nsys (col_i64 (stmt, 7));
  info.copy.src_kind = col_null (stmt, 8) ? KS_MEM_UNKNOWN : mem_kind (r, col_i64 (stmt, 8));
  info.copy.dst_kind = col_null (stmt, 9) ? KS_MEM_UNKNOWN : mem_kind (r, col_i64 (stmt, 9));
  if (!col_name (r, stmt, 10, &name))
    name = memcpy_name (r, &info);

  add_slice (r, track, start, end, KS_SLICE_MEMCPY, name,
             col_category (r, stmt, 11, KS_SLICE_MEMCPY), col_u32 (stmt, 4),
             col_ext (r, stmt, 12), r->kscope ? col_args (r, stmt, 13) : 0, &info);
}

static void
memset_emit (Reader       *r,
             sqlite3_stmt *stmt,
             guint32       track,
             gint64        start,
             gint64        end)
{
  KsGpuInfo info;
  guint32 name;

  memset (&info, 0, sizeof info);
  info.copy.value = (guint8)col_i64 (stmt, 6);
  info.copy.bytes = (guint64)col_i64 (stmt, 7);
  info.copy.dst_kind = col_null (stmt, 8) ? KS_MEM_UNKNOWN : mem_kind (r, col_i64 (stmt, 8));
  if (!col_name (r, stmt, 9, &name))
    name = memset_name (r, &info);

  add_slice (r, track, start, end, KS_SLICE_MEMSET, name,
             col_category (r, stmt, 10, KS_SLICE_MEMSET), col_u32 (stmt, 4),
             col_ext (r, stmt, 11), r->kscope ? col_args (r, stmt, 12) : 0, &info);
}

static void
sync_emit (Reader       *r,
           sqlite3_stmt *stmt,
           guint32       track,
           gint64        start,
           gint64        end)
{
  guint32 name;

  if (!col_name (r, stmt, 7, &name))
    name = sync_name (r, col_i64 (stmt, 6));

  add_slice (r, track, start, end, KS_SLICE_SYNC, name,
             col_category (r, stmt, 8, KS_SLICE_SYNC), col_u32 (stmt, 4),
             col_ext (r, stmt, 9), r->kscope ? col_args (r, stmt, 10) : 0, NULL);
}

static const char * const ks_slice_columns[] = {
  "start", "end", "globalTid", "trackId", "kind", "nameId", "categoryId",
  "correlationId", "externalId", "args",
};
/* When every row names its track the thread column is left unread: a
 * result column costs SQLite about as much as the builder spends on a row. */
static const char * const ks_slice_track_columns[] = {
  "start", "end", "", "trackId", "kind", "nameId", "categoryId",
  "correlationId", "externalId", "args",
};
static const char * const runtime_columns[] = {
  "start", "end", "nameId", "eventClass", "globalTid", "correlationId",
  "categoryId", "externalId", "args",
};
static const char * const osrt_columns[] = {
  "start", "end", "nameId", "globalTid", "categoryId", "correlationId", "externalId", "args",
};
static const char * const library_columns[] = {
  "start", "end", "nameId", "globalTid",
};
static const char * const kernel_columns[] = {
  "start", "end", "deviceId", "streamId", "correlationId", "globalPid",
  "demangledName", "shortName", "registersPerThread", "gridX", "gridY", "gridZ",
  "blockX", "blockY", "blockZ", "staticSharedMemory", "dynamicSharedMemory",
  "categoryId", "externalId", "args",
};
static const char * const memcpy_columns[] = {
  "start", "end", "deviceId", "streamId", "correlationId", "globalPid",
  "bytes", "copyKind", "srcKind", "dstKind", "nameId", "categoryId", "externalId", "args",
};
static const char * const memset_columns[] = {
  "start", "end", "deviceId", "streamId", "correlationId", "globalPid",
  "value", "bytes", "memKind", "nameId", "categoryId", "externalId", "args",
};
static const char * const sync_columns[] = {
  "start", "end", "deviceId", "streamId", "correlationId", "globalPid",
  "syncType", "nameId", "categoryId", "externalId", "args",
};

/* Steps @src to its next usable row; its stmt is NULL at the end. */
static gboolean
source_advance (Reader  *r,
                Source  *src,
                GError **error)
{
  for (;;)
    {
      int rc = sqlite3_step (src->stmt);
      guint32 track;

      if (rc != SQLITE_ROW)
        {
          g_clear_pointer (&src->stmt, sqlite3_finalize);
          if (rc != SQLITE_DONE)
            return set_sqlite_error (r, rc, error);
          return TRUE;
        }

      track = src->track_of (r, src->stmt);
      if (track != NONE)
        {
          src->track = track;
          src->start = col_ts (r, src->stmt, 0);
          src->end = MAX (col_ts (r, src->stmt, 1), src->start);
          return TRUE;
        }

      r->skipped++;
      if (!row_done (r, error))
        return FALSE;
    }
}

/* Builder order: by track, then start, longer first. */
static inline gboolean
source_before (const Source *a,
               const Source *b)
{
  if (a->track != b->track)
    return a->track < b->track;
  if (a->start != b->start)
    return a->start < b->start;
  return a->end > b->end;
}

/* Whether some KS_SLICES row lacks a track (older files). Usually none
 * does, and the slices are then read without a WHERE that tests every
 * row; an error here takes the careful way. */
static gboolean
slices_without_track (Reader *r)
{
  sqlite3_stmt *stmt = NULL;
  int rc = SQLITE_ERROR;

  if (sqlite3_prepare_v2 (r->db, "SELECT 1 FROM KS_SLICES WHERE trackId IS NULL LIMIT 1", -1, &stmt,
                          NULL) == SQLITE_OK)
    rc = sqlite3_step (stmt);
  sqlite3_finalize (stmt);
  return rc != SQLITE_DONE;
}

static gboolean
load_slices (Reader  *r,
             GError **error)
{
  GHashTable *ks_columns = table_columns (r, "KS_SLICES", NULL);
  gboolean by_track = r->track_map != NULL && ks_columns != NULL && g_hash_table_contains (ks_columns, "trackId");
  Source sources[10];
  guint n = 0;
  gboolean ok = TRUE;

#define ADD_SOURCE(table, columns, n_required, where, track_func, emit_func)                       \
  G_STMT_START {                                                                                   \
    sqlite3_stmt *stmt_ = select_columns (r, table, columns, G_N_ELEMENTS (columns), n_required,   \
                                          where, error);                                           \
    if (stmt_ == NULL && *error != NULL)                                                           \
      goto out;                                                                                    \
    if (stmt_ != NULL)                                                                             \
      {                                                                                            \
        sources[n].stmt = stmt_;                                                                   \
        sources[n].track_of = track_func;                                                          \
        sources[n].emit = emit_func;                                                               \
        n++;                                                                                       \
      }                                                                                            \
  } G_STMT_END

  if (by_track && !slices_without_track (r))
    ADD_SOURCE ("KS_SLICES", ks_slice_track_columns, 2, NULL, ks_slice_track_by_id, ks_slice_emit);
  else if (by_track)
    {
      ADD_SOURCE ("KS_SLICES", ks_slice_track_columns, 2, "trackId IS NOT NULL", ks_slice_track_by_id, ks_slice_emit);
      ADD_SOURCE ("KS_SLICES", ks_slice_columns, 2, "trackId IS NULL", ks_slice_track, ks_slice_emit);
    }
  else
    ADD_SOURCE ("KS_SLICES", ks_slice_columns, 2, NULL, ks_slice_track, ks_slice_emit);
  ADD_SOURCE ("CUPTI_ACTIVITY_KIND_RUNTIME", runtime_columns, 3, NULL, runtime_track, runtime_emit);
  ADD_SOURCE ("OSRT_API", osrt_columns, 3, NULL, osrt_track, osrt_emit);
  ADD_SOURCE ("CUBLAS_EVENTS", library_columns, 4, NULL, osrt_track, cublas_emit);
  ADD_SOURCE ("CUDNN_EVENTS", library_columns, 4, NULL, osrt_track, cudnn_emit);
  ADD_SOURCE ("CUPTI_ACTIVITY_KIND_KERNEL", kernel_columns, 4, NULL, gpu_track, kernel_emit);
  ADD_SOURCE ("CUPTI_ACTIVITY_KIND_MEMCPY", memcpy_columns, 4, NULL, gpu_track, memcpy_emit);
  ADD_SOURCE ("CUPTI_ACTIVITY_KIND_MEMSET", memset_columns, 4, NULL, gpu_track, memset_emit);
  ADD_SOURCE ("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", sync_columns, 4, NULL, gpu_track, sync_emit);

#undef ADD_SOURCE

  for (guint i = 0; i < n && ok; i++)
    ok = source_advance (r, &sources[i], error);

  while (ok)
    {
      Source *best = NULL;

      for (guint i = 0; i < n; i++)
        if (sources[i].stmt != NULL && (best == NULL || source_before (&sources[i], best)))
          best = &sources[i];
      if (best == NULL)
        break;

      best->emit (r, best->stmt, best->track, best->start, best->end);
      ok = row_done (r, error) && source_advance (r, best, error);
    }

out:
  for (guint i = 0; i < n; i++)
    g_clear_pointer (&sources[i].stmt, sqlite3_finalize);
  return ok && *error == NULL;
}

/* Everything else */

static gboolean
load_instants (Reader  *r,
               GError **error)
{
  static const char * const columns[] = {
    "timestamp", "globalTid", "trackId", "globalPid", "nameId", "categoryId", "args",
  };
  sqlite3_stmt *stmt;

  if (!(stmt = select_columns (r, "KS_INSTANTS", columns, G_N_ELEMENTS (columns), 1, NULL, error)))
    return error == NULL || *error == NULL;

  READ_ROWS (stmt)
    {
      KsInstant inst = { 0 };

      inst.ts = col_ts (r, stmt, 0);
      inst.track = mapped_track (r, stmt, 2, 1);
      inst.process = col_null (stmt, 3) ? KS_NO_INDEX : reader_process (r, col_i64 (stmt, 3))->process;
      inst.name = sid (r, col_i64 (stmt, 4));
      inst.category = sid (r, col_i64 (stmt, 5));
      inst.args = col_args (r, stmt, 6);
      ks_trace_builder_add_instant (r->b, &inst);
    }

  return finish_stmt (r, stmt, error != NULL && *error != NULL);
}

static gboolean
load_flows (Reader  *r,
            GError **error)
{
  static const char * const columns[] = {
    "fromTimestamp", "toTimestamp", "fromGlobalTid", "toGlobalTid", "categoryId",
    "fromTrackId", "toTrackId", "kind",
  };
  sqlite3_stmt *stmt;

  if (!(stmt = select_columns (r, "KS_FLOWS", columns, G_N_ELEMENTS (columns), 2, NULL, error)))
    return error == NULL || *error == NULL;

  READ_ROWS (stmt)
    {
      guint32 from = mapped_track (r, stmt, 5, 2);
      guint32 to = mapped_track (r, stmt, 6, 3);

      if (from == NONE || to == NONE)
        {
          r->skipped++;
          continue;
        }

      ks_trace_builder_add_flow (r->b, from, col_ts (r, stmt, 0), to, col_ts (r, stmt, 1),
                                 sid (r, col_i64 (stmt, 4)),
                                 col_i64 (stmt, 7) == KS_FLOW_LAUNCH ? KS_FLOW_LAUNCH : KS_FLOW_OTHER);
    }

  return finish_stmt (r, stmt, error != NULL && *error != NULL);
}

static gboolean
load_counters (Reader  *r,
               GError **error)
{
  static const char * const columns[] = { "id", "name", "unit", "deviceId", "globalPid" };
  static const char * const sample_columns[] = { "counterId", "timestamp", "value" };
  g_autoptr(GHashTable) ids = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  sqlite3_stmt *stmt;
  gboolean failed = FALSE;
  gint64 last_id = G_MININT64;
  guint32 last_counter = NONE;

  if (!(stmt = select_columns (r, "KS_COUNTERS", columns, G_N_ELEMENTS (columns), 2, NULL, error)))
    return error == NULL || *error == NULL;

  while (next_row (r, stmt, &failed, error))
    {
      gint64 *key = g_new (gint64, 1);
      guint32 process = col_null (stmt, 4) ? KS_NO_INDEX : reader_process (r, col_i64 (stmt, 4))->process;
      gint32 device = col_null (stmt, 3) ? -1 : (gint32)CLAMP (col_i64 (stmt, 3), G_MININT32, G_MAXINT32);
      guint32 counter = ks_trace_builder_get_counter (r->b,
                                                      (const char *)sqlite3_column_text (stmt, 1),
                                                      (const char *)sqlite3_column_text (stmt, 2),
                                                      device, process);

      *key = col_i64 (stmt, 0);
      g_hash_table_insert (ids, key, GUINT_TO_POINTER (counter + 1));
    }
  if (!finish_stmt (r, stmt, failed))
    return FALSE;

  if (!(stmt = select_columns (r, "KS_COUNTER_SAMPLES", sample_columns, 3, 2, NULL, error)))
    return error == NULL || *error == NULL;

  READ_ROWS (stmt)
    {
      gint64 id = col_i64 (stmt, 0);

      if (id != last_id)
        {
          gpointer value = g_hash_table_lookup (ids, &id);

          last_id = id;
          last_counter = value ? GPOINTER_TO_UINT (value) - 1 : NONE;
        }
      if (last_counter == NONE)
        {
          r->skipped++;
          continue;
        }
      ks_trace_builder_add_counter_sample (r->b, last_counter, col_ts (r, stmt, 1),
                                           sqlite3_column_double (stmt, 2));
    }

  return finish_stmt (r, stmt, error != NULL && *error != NULL);
}

/* Nsight GPU metrics (--gpu-metrics-device): the low 32 bits of typeId
 * are the GPU. */
typedef struct
{
  gint64  type;
  gint64  metric;
  guint32 counter;
} Metric;

static guint
metric_hash (gconstpointer p)
{
  const Metric *m = p;

  return g_int64_hash (&m->type) ^ (g_int64_hash (&m->metric) * 31);
}

static gboolean
metric_equal (gconstpointer a,
              gconstpointer b)
{
  const Metric *ma = a;
  const Metric *mb = b;

  return ma->type == mb->type && ma->metric == mb->metric;
}

/* Nsight GPU metrics (--gpu-metrics-device): the low 32 bits of typeId
 * are the GPU. Samples of all metrics interleave, so the lookup per row
 * allocates nothing. */
static gboolean
load_gpu_metrics (Reader  *r,
                  GError **error)
{
  static const char * const columns[] = { "typeId", "metricId", "metricName" };
  static const char * const sample_columns[] = { "timestamp", "typeId", "metricId", "value" };
  g_autoptr(GHashTable) ids = g_hash_table_new_full (metric_hash, metric_equal, g_free, NULL);
  sqlite3_stmt *stmt;
  gboolean failed = FALSE;

  if (!has_table (r, "GPU_METRICS"))
    return TRUE;
  if (!(stmt = select_columns (r, "TARGET_INFO_GPU_METRICS", columns, 3, 3, NULL, error)))
    return error == NULL || *error == NULL;

  while (next_row (r, stmt, &failed, error))
    {
      const char *name = (const char *)sqlite3_column_text (stmt, 2);
      g_autofree char *unit = NULL;
      const char *open, *close;
      gint32 device = (gint32)(col_i64 (stmt, 0) & 0xffffffff);
      Metric *m;

      if (name == NULL)
        continue;
      /* "SM Active [Throughput %]": the unit is in the brackets. */
      if ((open = strrchr (name, '[')) && (close = strchr (open, ']')))
        unit = g_strndup (open + 1, close - open - 1);

      m = g_new (Metric, 1);
      m->type = col_i64 (stmt, 0);
      m->metric = col_i64 (stmt, 1);
      m->counter = ks_trace_builder_get_counter (r->b, name, unit, device, KS_NO_INDEX);
      g_hash_table_replace (ids, m, m);
    }
  if (!finish_stmt (r, stmt, failed))
    return FALSE;

  if (!(stmt = select_columns (r, "GPU_METRICS", sample_columns, 4, 4, NULL, error)))
    return error == NULL || *error == NULL;

  READ_ROWS (stmt)
    {
      Metric key = { col_i64 (stmt, 1), col_i64 (stmt, 2), 0 };
      const Metric *m = g_hash_table_lookup (ids, &key);

      if (m == NULL)
        {
          r->skipped++;
          continue;
        }
      ks_trace_builder_add_counter_sample (r->b, m->counter, col_ts (r, stmt, 0),
                                           sqlite3_column_double (stmt, 3));
    }

  return finish_stmt (r, stmt, error != NULL && *error != NULL);
}

static gboolean
load_memory_events (Reader  *r,
                    GError **error)
{
  static const char * const columns[] = {
    "timestamp", "globalTid", "deviceId", "address", "bytes", "totalAllocated", "totalReserved",
  };
  static const char * const nsys_columns[] = {
    "start", "deviceId", "address", "bytes", "memoryOperationType",
  };
  sqlite3_stmt *stmt;

  if ((stmt = select_columns (r, "KS_MEMORY_EVENTS", columns, G_N_ELEMENTS (columns), 1, NULL, error)))
    {
      READ_ROWS (stmt)
        {
          KsMemoryEvent ev = { 0 };

          ev.ts = col_ts (r, stmt, 0);
          ev.thread = col_null (stmt, 1) ? KS_NO_INDEX : reader_thread (r, col_i64 (stmt, 1));
          ev.device = col_null (stmt, 2) ? -1 : (gint16)col_i64 (stmt, 2);
          ev.address = (guint64)col_i64 (stmt, 3);
          ev.bytes = col_i64 (stmt, 4);
          ev.total_allocated = col_null (stmt, 5) ? -1 : col_i64 (stmt, 5);
          ev.total_reserved = col_null (stmt, 6) ? -1 : col_i64 (stmt, 6);
          ks_trace_builder_add_memory_event (r->b, &ev);
        }
      if (!finish_stmt (r, stmt, error != NULL && *error != NULL))
        return FALSE;
    }
  if (error != NULL && *error != NULL)
    return FALSE;

  /* Nsight's CUDA memory usage (--cuda-memory-usage): 0 allocates, 1 frees. */
  if (!(stmt = select_columns (r, "CUDA_GPU_MEMORY_USAGE_EVENTS", nsys_columns,
                               G_N_ELEMENTS (nsys_columns), 5, NULL, error)))
    return error == NULL || *error == NULL;

  READ_ROWS (stmt)
    {
      KsMemoryEvent ev = { 0 };
      gint64 bytes = col_i64 (stmt, 3);

      ev.ts = col_ts (r, stmt, 0);
      ev.thread = KS_NO_INDEX;
      ev.device = (gint16)col_i64 (stmt, 1);
      ev.address = (guint64)col_i64 (stmt, 2);
      ev.bytes = col_i64 (stmt, 4) == 1 ? -bytes : bytes;
      ev.total_allocated = -1;
      ev.total_reserved = -1;
      ks_trace_builder_add_memory_event (r->b, &ev);
    }

  return finish_stmt (r, stmt, error != NULL && *error != NULL);
}

static gboolean
load_diagnostics (Reader  *r,
                  GError **error)
{
  static const char * const columns[] = { "severity", "text" };
  sqlite3_stmt *stmt;
  gboolean failed = FALSE;

  if (!(stmt = select_columns (r, "KS_DIAGNOSTICS", columns, 2, 2, NULL, error)))
    return error == NULL || *error == NULL;

  while (next_row (r, stmt, &failed, error))
    {
      const char *severity = (const char *)sqlite3_column_text (stmt, 0);
      const char *text = (const char *)sqlite3_column_text (stmt, 1);

      /* Informational rows (a capture range that started, a note on
       * the sampler) are part of the record, not a problem with it. */
      if (text == NULL || !ks_kscope_severity_is_problem (severity))
        continue;
      if (g_ascii_strcasecmp (severity, KS_KSCOPE_SEVERITY_WARNING) == 0)
        ks_trace_builder_add_warning (r->b, "%s", text);
      else
        ks_trace_builder_add_warning (r->b, "%s: %s", severity, text);
    }

  return finish_stmt (r, stmt, failed);
}

/* Opening */

static gboolean
check_header (const char  *path,
              const char  *display,
              GError     **error)
{
  char header[100];
  gssize n;
  int fd;
  int saved;

  if ((fd = _ks_trace_open_regular_file (path, display, error)) < 0)
    return FALSE;

  do
    n = read (fd, header, sizeof header);
  while (n < 0 && errno == EINTR);
  saved = errno;
  g_close (fd, NULL);

  if (n < 0)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Could not read “%s”: %s"), display, g_strerror (saved));
      return FALSE;
    }
  if (n == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("“%s” is empty"), display);
      return FALSE;
    }
  if (n < 16 || memcmp (header, "SQLite format 3", 16) != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("“%s” is not a SQLite database"), display);
      return FALSE;
    }

  return TRUE;
}

static int
interrupt_cb (void *data)
{
  return g_cancellable_is_cancelled (data) ? 1 : 0;
}

/* Whether @path has a non-empty file @suffix beside it: looked at with
 * lstat() only, so that nothing beside the input is followed or opened. */
static gboolean
nonempty_beside (const char *path,
                 const char *suffix)
{
  g_autofree char *name = g_strconcat (path, suffix, NULL);
  GStatBuf st;

  return g_lstat (name, &st) == 0 && st.st_size > 0;
}

/* A rollback journal is hot, by SQLite's own rule, only when its first
 * byte is not zero: the header's magic is written just before the first
 * page of the database file is changed, and a journal kept between
 * transactions (journal_mode = PERSIST, as the recorder keeps it) has its
 * header zeroed at each commit. Only that byte is read, from a regular
 * file that is not a link, without blocking. */
static gboolean
hot_journal_beside (const char *path)
{
  g_autofree char *name = g_strconcat (path, "-journal", NULL);
  guint8 head = 0;
  struct stat st;
  gboolean hot = FALSE;
  int fd;

  if (!nonempty_beside (path, "-journal"))
    return FALSE;
  fd = open (name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return TRUE;  /* there, but unreadable: it may be hot */
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    hot = TRUE;
  else
    hot = read (fd, &head, 1) != 1 || head != 0;
  close (fd);
  return hot;
}

int
ks_sqlite_open_untrusted (const char  *path,
                          sqlite3    **db)
{
  g_autofree char *absolute = g_canonicalize_filename (path, NULL);
  g_autofree char *escaped = g_uri_escape_string (absolute, "/", FALSE);
  g_autofree char *uri = g_strconcat ("file://", escaped, "?mode=ro&immutable=1", NULL);
  int rc;

  /* Immutable: no locks, no hot-journal check and so no rollback (which
   * writes the file, and deletes whatever file a journal names as its
   * super-journal), no -wal or -shm opened or created beside the file. */
  rc = sqlite3_open_v2 (uri, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL);
  if (rc != SQLITE_OK)
    return rc;

  /* Someone else's file: no triggers, views or schema-defined functions,
   * and no way for a query to write. */
  sqlite3_db_config (*db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
  sqlite3_db_config (*db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
  sqlite3_db_config (*db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, NULL);
  sqlite3_db_config (*db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, NULL);
  sqlite3_db_config (*db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, NULL);
  return sqlite3_exec (*db, "PRAGMA trusted_schema = OFF; PRAGMA query_only = ON;", NULL, NULL, NULL);
}

static gboolean
open_database (Reader      *r,
               const char  *path,
               GError     **error)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  /* A recording killed in the middle of a transaction leaves a hot
   * journal. It is not replayed: the file loads as it was left, with what
   * was committed and whatever part of the unfinished transaction SQLite
   * had already written into it. */
  r->journal_beside = hot_journal_beside (path);

  rc = ks_sqlite_open_untrusted (path, &r->db);
  if (rc != SQLITE_OK)
    return set_sqlite_error (r, rc, error);

  if (r->cancellable != NULL)
    sqlite3_progress_handler (r->db, 100000, interrupt_cb, r->cancellable);

  /* Reading the schema is the first access to the file's pages. */
  rc = sqlite3_prepare_v2 (r->db, "SELECT name FROM sqlite_master WHERE type = 'table'", -1, &stmt, NULL);
  if (rc != SQLITE_OK)
    return set_sqlite_error (r, rc, error);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      const char *name = (const char *)sqlite3_column_text (stmt, 0);

      if (name != NULL)
        g_hash_table_insert (r->tables, g_strdup (name), NULL);
    }
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    return set_sqlite_error (r, rc, error);

  rc = sqlite3_prepare_v2 (r->db, "PRAGMA application_id", -1, &stmt, NULL);
  if (rc == SQLITE_OK && sqlite3_step (stmt) == SQLITE_ROW)
    r->kscope = sqlite3_column_int64 (stmt, 0) == KS_KSCOPE_APPLICATION_ID;
  sqlite3_finalize (stmt);

  return TRUE;
}

static gboolean
check_trace (Reader  *r,
             GError **error)
{
  GHashTableIter iter;
  gpointer key;

  if (r->kscope)
    return TRUE;

  if (!has_table (r, "StringIds"))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("“%s” is a SQLite database but not a trace: it has no StringIds table"),
                   r->display);
      return FALSE;
    }

  g_hash_table_iter_init (&iter, r->tables);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    if (g_str_has_prefix (key, "CUPTI_ACTIVITY_KIND_") || strcmp (key, "NVTX_EVENTS") == 0)
      return TRUE;

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               _("“%s” is a SQLite database but not a trace: it has no CUPTI_ACTIVITY_KIND_* or NVTX_EVENTS table"),
               r->display);
  return FALSE;
}

static int
user_version (Reader *r)
{
  sqlite3_stmt *stmt = NULL;
  int version = 0;

  if (sqlite3_prepare_v2 (r->db, "PRAGMA user_version", -1, &stmt, NULL) == SQLITE_OK &&
      sqlite3_step (stmt) == SQLITE_ROW)
    version = sqlite3_column_int (stmt, 0);
  sqlite3_finalize (stmt);
  return version;
}

/* Nsight names: given to the processes and threads that have events. */
static void
apply_names (Reader *r)
{
  GHashTableIter iter;
  gpointer key, value;

  if (!r->have_ks_processes)
    {
      g_hash_table_iter_init (&iter, r->procs);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          const char *name = g_hash_table_lookup (r->process_names, key);
          const Proc *proc = value;

          if (name != NULL)
            ks_trace_builder_set_process_info (r->b, proc->process, name, NULL, NULL, G_MININT32);
        }
    }

  if (!r->have_ks_threads)
    {
      g_hash_table_iter_init (&iter, r->threads);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          guint32 thread = GPOINTER_TO_UINT (value) - 1;
          gpointer name_id;
          g_autofree char *name = NULL;

          if (g_hash_table_lookup_extended (r->thread_names, key, NULL, &name_id))
            name = string_text (r, (gint64)GPOINTER_TO_SIZE (name_id));
          if (name == NULL)
            name = g_strdup (g_hash_table_lookup (r->nvtx_thread_names, key));
          if (name != NULL)
            ks_trace_builder_set_thread_info (r->b, thread, name, NULL, G_MININT32);
        }
    }
}

static void
reader_clear (Reader *r)
{
  g_clear_pointer (&r->db, sqlite3_close);
  g_clear_pointer (&r->display, g_free);
  g_clear_pointer (&r->end_reason, g_free);
  g_clear_pointer (&r->b, ks_trace_builder_free);
  g_clear_pointer (&r->tables, g_hash_table_unref);
  g_clear_pointer (&r->smap, g_free);
  g_clear_pointer (&r->svalues, g_free);
  g_clear_pointer (&r->sparse_values, g_hash_table_unref);
  g_clear_pointer (&r->sparse_map, g_hash_table_unref);
  g_clear_pointer (&r->chunk, g_string_chunk_free);
  g_clear_pointer (&r->api_names, g_hash_table_unref);
  g_clear_pointer (&r->procs, g_hash_table_unref);
  g_clear_pointer (&r->pid_owner, g_hash_table_unref);
  g_clear_pointer (&r->threads, g_hash_table_unref);
  g_clear_pointer (&r->process_names, g_hash_table_unref);
  g_clear_pointer (&r->thread_names, g_hash_table_unref);
  g_clear_pointer (&r->nvtx_thread_names, g_hash_table_unref);
  g_clear_pointer (&r->track_map, g_free);
  g_clear_pointer (&r->orphan_streams, g_hash_table_unref);
  g_clear_pointer (&r->open_ranges, g_array_unref);
}

static void
columns_free (gpointer data)
{
  if (data != NULL)
    g_hash_table_unref (data);
}

static void
reader_init (Reader       *r,
             GFile        *file,
             KsProgress   *progress,
             GCancellable *cancellable)
{
  memset (r, 0, sizeof *r);
  r->display = g_file_get_parse_name (file);
  r->progress = progress;
  r->cancellable = cancellable;
  r->tables = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, columns_free);
  r->api_names = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  r->procs = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  r->pid_owner = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  r->threads = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  r->process_names = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  r->thread_names = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  r->nvtx_thread_names = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, g_free);
  r->open_ranges = g_array_new (FALSE, FALSE, sizeof (OpenRange));
  r->last_thread = NONE;
  r->last_stream_track = NONE;
  memset (r->memcpy_names, 0xff, sizeof r->memcpy_names);
  memset (r->memset_names, 0xff, sizeof r->memset_names);
  memset (r->sync_names, 0xff, sizeof r->sync_names);
}

typedef gboolean (*LoadFunc) (Reader *r, GError **error);

KsTrace *
ks_sqlite_reader_load (GFile         *file,
                       KsProgress    *progress,
                       GCancellable  *cancellable,
                       GError       **error)
{
  static const char * const counted[] = {
    "StringIds", "KS_SLICES", "CUPTI_ACTIVITY_KIND_RUNTIME", "OSRT_API", "NVTX_EVENTS",
    "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CUBLAS_EVENTS", "CUDNN_EVENTS", "KS_INSTANTS",
    "KS_FLOWS", "KS_COUNTER_SAMPLES",
    "GPU_METRICS", "KS_MEMORY_EVENTS", "CUDA_GPU_MEMORY_USAGE_EVENTS",
  };
  static const LoadFunc steps[] = {
    load_mem_kinds, load_gpus, load_session, load_slices, load_nvtx, load_instants, load_flows,
    load_counters, load_gpu_metrics, load_memory_events, load_diagnostics,
  };
  Reader r;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *path = NULL;
  KsTraceBuilder *builder;
  KsTrace *trace;
  int version;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  reader_init (&r, file, progress, cancellable);

  path = g_file_get_path (file);
  if (path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("Could not open “%s”: only local files can be opened"), r.display);
      reader_clear (&r);
      return NULL;
    }

  if (progress != NULL)
    {
      ks_progress_set_message (progress, _("Reading database"));
      ks_progress_set_fraction (progress, 0.0);
    }

  if (!check_header (path, r.display, &local_error) ||
      !open_database (&r, path, &local_error) ||
      !check_trace (&r, &local_error))
    goto failed;

  r.b = ks_trace_builder_new (r.kscope ? KS_FORMAT_KSCOPE : KS_FORMAT_NSYS_SQLITE);
  for (guint k = 0; k < KS_N_SLICE_KINDS; k++)
    r.category[k] = ks_trace_builder_intern (r.b, ks_sqlite_default_category (k));
  /* Our own files say where they came from (KS_META); an export is its own source. */
  if (!r.kscope)
    ks_trace_builder_set_metadata (r.b, "source_name", r.display);

  if (r.journal_beside)
    ks_trace_builder_add_warning (r.b, _("The file was left in the middle of a write (a -journal file "
                                         "is beside it); the journal was not replayed, so only what the "
                                         "database file itself holds was read"));
  if (nonempty_beside (path, "-wal"))
    ks_trace_builder_add_warning (r.b, _("Changes in the -wal file beside the database were not read; "
                                         "only what the database file itself holds was read"));

  if (r.kscope && (version = user_version (&r)) > KS_KSCOPE_FORMAT_VERSION)
    ks_trace_builder_add_warning (r.b, _("The file was written in a newer format (version %d); "
                                         "what this version does not know was left out"), version);

  for (guint i = 0; i < G_N_ELEMENTS (counted); i++)
    r.rows_total += table_rows (&r, counted[i]);
  if (r.kscope)
    {
      /* A hint, not a limit: at most one row per 16 bytes of the file
       * (these tables' rows are larger), so that a hostile max(rowid)
       * cannot make the builder reserve much. */
      guint64 most = database_bytes (&r) / 16;

      ks_trace_builder_expect (r.b, MIN ((guint64) table_rows (&r, "KS_MEMORY_EVENTS"), most),
                               MIN ((guint64) table_rows (&r, "KS_FLOWS"), most),
                               MIN ((guint64) table_rows (&r, "KS_INSTANTS"), most));
    }

  if (!load_meta (&r, &local_error))
    goto failed;
  warn_cut_short (&r);

  if ((!r.kscope && !load_export_meta (&r, &local_error)) ||
      (has_table (&r, "StringIds") && !load_strings (&r, &local_error)) ||
      !load_processes (&r, &local_error) ||
      !load_threads (&r, &local_error) ||
      !load_tracks (&r, &local_error))
    goto failed;

  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    if (!steps[i] (&r, &local_error))
      goto failed;

  for (guint i = 0; i < r.open_ranges->len; i++)
    {
      const OpenRange *o = &g_array_index (r.open_ranges, OpenRange, i);

      add_slice (&r, o->track, o->start, MAX (o->start, r.max_end), KS_SLICE_NVTX,
                 o->name, o->category, o->correlation, o->external_id, o->args, NULL);
    }
  if (r.open_ranges->len > 0)
    ks_trace_builder_add_warning (r.b, g_dngettext (GETTEXT_PACKAGE,
                                                    "%u NVTX range was never closed; it lasts to the end of the trace",
                                                    "%u NVTX ranges were never closed; they last to the end of the trace",
                                                    r.open_ranges->len),
                                  r.open_ranges->len);
  if (r.skipped > 0)
    {
      g_autofree char *n = g_strdup_printf ("%" G_GUINT64_FORMAT, r.skipped);

      ks_trace_builder_add_warning (r.b, _("%s rows referred to tracks, threads or counters "
                                           "that the file does not define and were skipped"), n);
    }
  if (r.unknown_strings > 0)
    {
      g_autofree char *n = g_strdup_printf ("%" G_GUINT64_FORMAT, r.unknown_strings);

      ks_trace_builder_add_warning (r.b, _("%s names referred to missing StringIds rows"), n);
    }

  apply_names (&r);

  if (progress != NULL)
    {
      ks_progress_set_message (progress, _("Building the timeline"));
      ks_progress_set_fraction (progress, 0.9);
    }

  /* The database is no longer needed while the builder sorts and links. */
  g_clear_pointer (&r.db, sqlite3_close);
  builder = g_steal_pointer (&r.b);
  trace = ks_trace_builder_finish (builder, cancellable, &local_error);
  if (trace == NULL)
    goto failed;

  reader_clear (&r);
  if (progress != NULL)
    ks_progress_set_fraction (progress, 1.0);
  return trace;

failed:
  reader_clear (&r);
  g_propagate_error (error, g_steal_pointer (&local_error));
  return NULL;
}
