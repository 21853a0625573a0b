/* ks-memsnap-kscope.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* A recording's PyTorch memory snapshot (record --cuda-memory-history):
 * the pickle kept whole in KS_CUDA_MEMORY_SNAPSHOTS, read as the file
 * torch.cuda.memory._dump_snapshot() would have written. */

#include "config.h"

#include <glib/gi18n.h>
#include <sqlite3.h>
#include <string.h>

#include "ks-kscope-schema.h"
#include "ks-memsnap.h"

gboolean
ks_memsnap_is_kscope (const guint8 *data,
                      gsize         len)
{
  static const char magic[] = "SQLite format 3";

  return len >= sizeof magic && memcmp (data, magic, sizeof magic) == 0;
}

static KsMemsnap *
sqlite_failed (sqlite3     *db,
               const char  *name,
               GError     **error)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("%s: could not read its memory snapshot: %s"),
               name, db != NULL ? sqlite3_errmsg (db) : "out of memory");
  return NULL;
}

/* KS_META origin_ns: what the reader adds to every stored time. */
static gint64
origin_ns (sqlite3 *db)
{
  sqlite3_stmt *stmt = NULL;
  gint64 origin = 0;

  if (sqlite3_prepare_v2 (db, "SELECT value FROM KS_META WHERE name = ?", -1, &stmt, NULL) != SQLITE_OK)
    return 0;
  sqlite3_bind_text (stmt, 1, KS_KSCOPE_META_ORIGIN_NS, -1, SQLITE_STATIC);
  if (sqlite3_step (stmt) == SQLITE_ROW && sqlite3_column_text (stmt, 0) != NULL)
    origin = g_ascii_strtoll ((const char *) sqlite3_column_text (stmt, 0), NULL, 10);
  sqlite3_finalize (stmt);
  return origin;
}

KsMemsnap *
ks_memsnap_load_kscope (const char  *path,
                        const char  *name,
                        guint       *n_processes,
                        GError     **error)
{
  /* the first process that kept one: its snapshot at exit, else the one
   * of its last out-of-memory error */
  static const char sql[] =
    "SELECT snapshot, (SELECT COUNT(DISTINCT globalPid) FROM KS_CUDA_MEMORY_SNAPSHOTS), clockOffset "
    "FROM KS_CUDA_MEMORY_SNAPSHOTS "
    "WHERE globalPid = (SELECT globalPid FROM KS_CUDA_MEMORY_SNAPSHOTS ORDER BY rowid LIMIT 1) "
    "ORDER BY reason = 'exit' DESC, rowid DESC LIMIT 1";
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(KsMemsnap) snap = NULL;
  gint64 shift = 0;
  int rc;

  rc = sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL);
  if (rc != SQLITE_OK)
    {
      sqlite_failed (db, name, error);
      sqlite3_close (db);
      return NULL;
    }
  rc = sqlite3_prepare_v2 (db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", -1, &stmt, NULL);
  if (rc == SQLITE_OK)
    {
      sqlite3_bind_text (stmt, 1, ks_kscope_table_name (KS_KSCOPE_KS_CUDA_MEMORY_SNAPSHOTS), -1, SQLITE_STATIC);
      rc = sqlite3_step (stmt);
    }
  sqlite3_finalize (stmt);
  stmt = NULL;
  if (rc == SQLITE_DONE)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("%s: the recording holds no PyTorch memory snapshot (record with "
                     "kinescope-cli record --cuda-memory-history)"), name);
      sqlite3_close (db);
      return NULL;
    }
  if (rc != SQLITE_ROW || sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL) != SQLITE_OK)
    {
      sqlite_failed (db, name, error);
      sqlite3_close (db);
      return NULL;
    }
  rc = sqlite3_step (stmt);
  if (rc == SQLITE_ROW)
    {
      bytes = g_bytes_new (sqlite3_column_blob (stmt, 0), sqlite3_column_bytes (stmt, 0));
      if (n_processes != NULL)
        *n_processes = (guint) sqlite3_column_int (stmt, 1);
      shift = -CLAMP (sqlite3_column_int64 (stmt, 2), -KS_MEMSNAP_MAX_SHIFT_NS, KS_MEMSNAP_MAX_SHIFT_NS);
    }
  else if (rc != SQLITE_DONE)
    {
      sqlite_failed (db, name, error);
      sqlite3_finalize (stmt);
      sqlite3_close (db);
      return NULL;
    }
  sqlite3_finalize (stmt);
  shift += CLAMP (origin_ns (db), -KS_MEMSNAP_MAX_SHIFT_NS, KS_MEMSNAP_MAX_SHIFT_NS);
  sqlite3_close (db);
  if (bytes == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("%s: the recording holds no PyTorch memory snapshot (the program kept none: "
                     "it ended before CUDA started, or was killed)"), name);
      return NULL;
    }
  snap = ks_memsnap_new_from_bytes (bytes, name, error);
  if (snap != NULL)
    ks_memsnap_set_time_shift (snap, shift);
  return g_steal_pointer (&snap);
}
