/* ks-sqlite-memsnap.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* KS_CUDA_MEMORY_SNAPSHOTS (record --cuda-memory-history): the recording
 * says how many snapshots it keeps (metadata cuda_memory_snapshots), and
 * the out-of-memory errors of the one ks_memsnap_load() reads become
 * instants on that process's main thread, as in the snapshot opened alone.
 * The allocations themselves are the recording's KS_MEMORY_EVENTS. */

#define G_LOG_DOMAIN "ks-sqlite-reader"

#include "config.h"

#include <glib/gi18n.h>

#include "ks-kscope-schema.h"
#include "ks-memsnap-reader.h"
#include "ks-sqlite-reader-private.h"

gboolean
_ks_sqlite_kscope_load_memory_snapshots (KsSqliteReader  *r,
                                         GError         **error)
{
  /* as ks_memsnap_load_kscope() chooses */
  static const char sql[] =
    "SELECT snapshot, globalPid, clockOffset, (SELECT COUNT(*) FROM KS_CUDA_MEMORY_SNAPSHOTS) "
    "FROM KS_CUDA_MEMORY_SNAPSHOTS "
    "WHERE globalPid = (SELECT globalPid FROM KS_CUDA_MEMORY_SNAPSHOTS ORDER BY rowid LIMIT 1) "
    "ORDER BY reason = 'exit' DESC, rowid DESC LIMIT 1";
  sqlite3_stmt *stmt = NULL;
  g_autoptr(KsMemsnap) snap = NULL;
  g_autoptr(GError) local = NULL;
  g_autofree char *count = NULL;
  gint64 gpid, pid, offset;
  guint32 thread;

  if (!_ks_sqlite_has_table (r, ks_kscope_table_name (KS_KSCOPE_KS_CUDA_MEMORY_SNAPSHOTS)))
    return TRUE;
  if (sqlite3_prepare_v2 (r->db, sql, -1, &stmt, NULL) != SQLITE_OK)
    {
      ks_trace_builder_add_warning (r->b, _("%s: its PyTorch memory snapshots could not be read: %s"),
                                    r->display, sqlite3_errmsg (r->db));
      return TRUE;
    }
  if (sqlite3_step (stmt) != SQLITE_ROW)
    {
      sqlite3_finalize (stmt);
      return TRUE;
    }
  {
    g_autoptr(GBytes) bytes = g_bytes_new (sqlite3_column_blob (stmt, 0), sqlite3_column_bytes (stmt, 0));

    gpid = sqlite3_column_int64 (stmt, 1);
    offset = CLAMP (sqlite3_column_int64 (stmt, 2), -KS_MEMSNAP_MAX_SHIFT_NS, KS_MEMSNAP_MAX_SHIFT_NS);
    count = g_strdup_printf ("%d", sqlite3_column_int (stmt, 3));
    snap = ks_memsnap_new_from_bytes (bytes, r->display, &local);
  }
  sqlite3_finalize (stmt);
  ks_trace_builder_set_metadata (r->b, "cuda_memory_snapshots", count);
  if (snap == NULL)
    {
      /* the rest of the recording is whole: a warning, not a failure */
      ks_trace_builder_add_warning (r->b, _("A PyTorch memory snapshot of the recording was left out: %s"),
                                    local->message);
      return TRUE;
    }
  pid = ks_kscope_pid_of (gpid);
  thread = _ks_sqlite_reader_thread (r, ks_kscope_global_tid (pid, pid));
  ks_memsnap_reader_add_ooms (r->b, snap, ks_trace_builder_get_thread_track (r->b, thread),
                              _ks_sqlite_reader_process (r, gpid)->process,
                              CLAMP (r->shift - offset, -KS_MEMSNAP_MAX_SHIFT_NS, KS_MEMSNAP_MAX_SHIFT_NS));
  return TRUE;
}
