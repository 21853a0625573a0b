/* ks-sqlite-util.c: opening a SQLite file that may be hostile, its
 * errors, its schema, and SELECTs of columns looked up by name
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-sqlite-reader"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "ks-sqlite-reader.h"
#include "ks-sqlite-reader-private.h"
#include "ks-trace-private.h"

/* Errors */

static GError *
sqlite_error (KsSqliteReader *r,
              int             rc,
              const char     *msg)
{
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
    case SQLITE_TOOBIG:
      return g_error_new (G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                          _("Could not read “%s”: it holds a value larger than %d MiB"),
                          r->display, KS_SQLITE_LIMIT_LENGTH >> 20);
    default:
      return g_error_new (G_IO_ERROR, G_IO_ERROR_FAILED,
                          _("Could not read “%s”: %s"), r->display, msg);
    }
}

/* Sets @error from SQLite's result @rc; returns FALSE. */
gboolean
_ks_sqlite_set_error (KsSqliteReader  *r,
                      int              rc,
                      GError         **error)
{
  g_propagate_error (error, sqlite_error (r, rc, r->db ? sqlite3_errmsg (r->db) : sqlite3_errstr (rc)));
  return FALSE;
}

/* The same, with the message of another connection to the file. */
gboolean
_ks_sqlite_set_error_message (KsSqliteReader  *r,
                              int              rc,
                              const char      *msg,
                              GError         **error)
{
  g_propagate_error (error, sqlite_error (r, rc, msg != NULL ? msg : sqlite3_errstr (rc)));
  return FALSE;
}

/* Schema */

gboolean
_ks_sqlite_has_table (KsSqliteReader *r,
                      const char     *table)
{
  return g_hash_table_contains (r->tables, table);
}

/* The column names of @table (owned by the reader), or ABSENT when
 * there is no such table. */
KsSqliteResult
_ks_sqlite_table_columns (KsSqliteReader  *r,
                          const char      *table,
                          GHashTable     **columns,
                          GError         **error)
{
  g_autofree char *sql = NULL;
  sqlite3_stmt *stmt = NULL;
  GHashTable *names;
  int rc;

  *columns = NULL;
  if (!g_hash_table_lookup_extended (r->tables, table, NULL, (gpointer *)&names))
    return KS_SQLITE_ABSENT;
  if (names != NULL)
    {
      *columns = names;
      return KS_SQLITE_READ;
    }

  sql = sqlite3_mprintf ("PRAGMA table_info(\"%w\")", table);
  rc = sqlite3_prepare_v2 (r->db, sql, -1, &stmt, NULL);
  sqlite3_free (g_steal_pointer (&sql));
  if (rc != SQLITE_OK)
    {
      _ks_sqlite_set_error (r, rc, error);
      return KS_SQLITE_FAILED;
    }

  names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      const char *name = (const char *)sqlite3_column_text (stmt, 1);

      if (name != NULL)
        g_hash_table_add (names, g_strdup (name));
    }
  sqlite3_finalize (stmt);

  if (rc != SQLITE_DONE)
    {
      g_hash_table_unref (names);
      _ks_sqlite_set_error (r, rc, error);
      return KS_SQLITE_FAILED;
    }

  g_hash_table_insert (r->tables, g_strdup (table), names);
  *columns = names;
  return KS_SQLITE_READ;
}

/* A SELECT of @columns from @table, in that order, into *@stmt; a column
 * the table lacks reads as NULL. ABSENT when there is no such table, or
 * when it lacks one of the first @n_required columns (with a warning). */
KsSqliteResult
_ks_sqlite_select (KsSqliteReader      *r,
                   const char          *table,
                   const char * const  *columns,
                   guint                n_columns,
                   guint                n_required,
                   const char          *where,
                   sqlite3_stmt       **stmt,
                   GError             **error)
{
  GHashTable *have;
  g_autoptr(GString) sql = NULL;
  KsSqliteResult result;
  int rc;

  *stmt = NULL;
  if ((result = _ks_sqlite_table_columns (r, table, &have, error)) != KS_SQLITE_READ)
    return result;

  for (guint i = 0; i < n_required; i++)
    if (!g_hash_table_contains (have, columns[i]))
      {
        ks_trace_builder_add_warning (r->b, _("Table %s has no column %s; it was skipped"),
                                      table, columns[i]);
        return KS_SQLITE_ABSENT;
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
  rc = sqlite3_prepare_v2 (r->db, sql->str, -1, stmt, NULL);
  if (rc == SQLITE_OK)
    {
      g_clear_pointer (stmt, sqlite3_finalize);
      g_string_append (sql, " ORDER BY rowid");
      rc = sqlite3_prepare_v2 (r->db, sql->str, -1, stmt, NULL);
      if (rc != SQLITE_OK)
        {
          g_string_truncate (sql, sql->len - strlen (" ORDER BY rowid"));
          rc = sqlite3_prepare_v2 (r->db, sql->str, -1, stmt, NULL);
        }
    }

  if (rc != SQLITE_OK)
    {
      g_clear_pointer (stmt, sqlite3_finalize);
      _ks_sqlite_set_error (r, rc, error);
      return KS_SQLITE_FAILED;
    }

  return KS_SQLITE_READ;
}

/* The number of rows @table has at most, 0 when it is absent. */
gint64
_ks_sqlite_table_rows (KsSqliteReader *r,
                       const char     *table)
{
  g_autofree char *sql = NULL;
  sqlite3_stmt *stmt = NULL;
  gint64 n = 0;

  if (!_ks_sqlite_has_table (r, table))
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
guint64
_ks_sqlite_database_bytes (KsSqliteReader *r)
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

void
_ks_sqlite_report_progress (KsSqliteReader *r)
{
  if (r->progress != NULL && r->rows_total > 0)
    ks_progress_set_fraction (r->progress,
                              0.9 * MIN (1.0, (double)r->rows_done / (double)r->rows_total));
}

/* Opening */

/* Whether @path is a regular file that starts like a SQLite database. */
gboolean
_ks_sqlite_check_header (const char  *path,
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
gboolean
_ks_sqlite_nonempty_beside (const char *path,
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

  if (!_ks_sqlite_nonempty_beside (path, "-journal"))
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
  /* SQLite's advice for untrusted files: no value, statement (the
   * schema's are parsed too) or table wider than any file of ours or
   * Nsight's holds, and every page's cells checked before use */
  sqlite3_limit (*db, SQLITE_LIMIT_LENGTH, KS_SQLITE_LIMIT_LENGTH);
  sqlite3_limit (*db, SQLITE_LIMIT_SQL_LENGTH, KS_SQLITE_LIMIT_SQL_LENGTH);
  sqlite3_limit (*db, SQLITE_LIMIT_COLUMN, KS_SQLITE_LIMIT_COLUMNS);
  return sqlite3_exec (*db, "PRAGMA trusted_schema = OFF; PRAGMA query_only = ON; PRAGMA cell_size_check = ON;",
                       NULL, NULL, NULL);
}

/* Opens @path as r->db and reads which tables it has. */
gboolean
_ks_sqlite_open (KsSqliteReader  *r,
                 const char      *path,
                 GError         **error)
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
    return _ks_sqlite_set_error (r, rc, error);

  if (r->cancellable != NULL)
    sqlite3_progress_handler (r->db, 100000, interrupt_cb, r->cancellable);

  /* Reading the schema is the first access to the file's pages. */
  rc = sqlite3_prepare_v2 (r->db, "SELECT name FROM sqlite_master WHERE type = 'table'", -1, &stmt, NULL);
  if (rc != SQLITE_OK)
    return _ks_sqlite_set_error (r, rc, error);
  while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      const char *name = (const char *)sqlite3_column_text (stmt, 0);

      if (name != NULL)
        g_hash_table_insert (r->tables, g_strdup (name), NULL);
    }
  sqlite3_finalize (stmt);
  if (rc != SQLITE_DONE)
    return _ks_sqlite_set_error (r, rc, error);

  rc = sqlite3_prepare_v2 (r->db, "PRAGMA application_id", -1, &stmt, NULL);
  if (rc == SQLITE_OK && sqlite3_step (stmt) == SQLITE_ROW)
    r->kscope = sqlite3_column_int64 (stmt, 0) == KS_KSCOPE_APPLICATION_ID;
  sqlite3_finalize (stmt);

  return TRUE;
}

int
_ks_sqlite_user_version (KsSqliteReader *r)
{
  sqlite3_stmt *stmt = NULL;
  int version = 0;

  if (sqlite3_prepare_v2 (r->db, "PRAGMA user_version", -1, &stmt, NULL) == SQLITE_OK &&
      sqlite3_step (stmt) == SQLITE_ROW)
    version = sqlite3_column_int (stmt, 0);
  sqlite3_finalize (stmt);
  return version;
}
