/* ks-record-writer.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* One file: each add_*() is a row of one Nsight table, all sharing the
 * statement cache, the timed commits and the stop-on-first-write-error
 * rule; split, those rules would be spread over every part. */

#define G_LOG_DOMAIN "ks-record-writer"

#include "config.h"

#include "ks-record-writer.h"

#include "ks-kscope-schema.h"
#include "ks-record-writer-private.h"
#include "ks-trace.h"

#include <errno.h>
#include <gio/gio.h>
#include <glib/gi18n.h>
#include <sqlite3.h>
#include <string.h>

#define COMMIT_INTERVAL_US (250 * 1000)

/* The columns each table gets from a recording (see
 * ks_kscope_schema_prepare_insert()); parameters in this order. A table
 * missing here gets every column, in the order of its definition. */
static const char * const insert_columns[KS_KSCOPE_N_TABLES] = {
  [KS_KSCOPE_THREAD_NAMES] = "nameId, globalTid",
  [KS_KSCOPE_ANALYSIS_DETAILS] = "globalVid = 0, duration, startTime = 0, stopTime",
  [KS_KSCOPE_GPU] =
    "vmId = 0, id, name, busLocation, totalMemory, smCount, uuid, computeMajor, computeMinor, "
    "maxThreadsPerBlock, maxWarpsPerSm, maxShmemPerSm, maxRegistersPerSm, maxShmemPerBlock, "
    "maxRegistersPerBlock, threadsPerWarp, maxThreadsPerSm, clockRate, memoryBandwidth, l2CacheSize",
  [KS_KSCOPE_CUDA_STREAM] = "streamId, hwId = 0, vmId = 0, processId, contextId, priority, flag",
  [KS_KSCOPE_KERNEL] =
    "start, end, deviceId, contextId, streamId, correlationId, globalPid, demangledName, "
    "shortName, mangledName, launchType, cacheConfig, registersPerThread, gridX, gridY, gridZ, "
    "blockX, blockY, blockZ, staticSharedMemory, dynamicSharedMemory, localMemoryPerThread, "
    "localMemoryTotal, gridId, sharedMemoryExecuted, graphNodeId, graphId",
  [KS_KSCOPE_MEMCPY] =
    "start, end, deviceId, contextId, streamId, correlationId, globalPid, bytes, copyKind, "
    "srcKind, dstKind, srcDeviceId, dstDeviceId, graphNodeId, runtimeCorrelationId",
  [KS_KSCOPE_MEMSET] =
    "start, end, deviceId, contextId, streamId, correlationId, globalPid, value, bytes, "
    "graphNodeId, memKind",
  [KS_KSCOPE_RUNTIME] = "start, end, eventClass, globalTid, correlationId, nameId, returnValue",
  [KS_KSCOPE_SYNC] =
    "start, end, deviceId, contextId, streamId, correlationId, globalPid, syncType, eventId",
  [KS_KSCOPE_NVTX] =
    "start, end, eventType, rangeId, category, color, text, globalTid, endGlobalTid, textId, "
    "domainId, uint64Value, int64Value, doubleValue, uint32Value, int32Value, floatValue",
  [KS_KSCOPE_OSRT] =
    "start, end, eventClass = 27, globalTid, nameId, returnValue, nestingLevel = 0, callchainId = 0",
  [KS_KSCOPE_KS_THREADS] = "globalTid, pid, tid, name, role, globalPid",
  [KS_KSCOPE_KS_COUNTERS] = "id, name, unit, deviceId, description",
  [KS_KSCOPE_KS_MEMORY_EVENTS] =
    "timestamp, globalTid, deviceId, address, bytes, totalAllocated, totalReserved",
  [KS_KSCOPE_COMPOSITE_EVENTS] = "id, start, globalTid, callchainId, waiting, cpuCycles = 0",
  [KS_KSCOPE_SAMPLING_CALLCHAINS] = "id, symbol, module, stackDepth, lineNumber",
  [KS_KSCOPE_KS_RANKS] =
    "globalPid, groupId, rank, localRank, worldSize, localWorldSize, host, file, backend, source",
};

/* The tables whose rows are the program's events: what is not written
 * of them after a failure is counted. */
static const gboolean event_tables[KS_KSCOPE_N_TABLES] = {
  [KS_KSCOPE_KERNEL] = TRUE,
  [KS_KSCOPE_MEMCPY] = TRUE,
  [KS_KSCOPE_MEMSET] = TRUE,
  [KS_KSCOPE_RUNTIME] = TRUE,
  [KS_KSCOPE_SYNC] = TRUE,
  [KS_KSCOPE_NVTX] = TRUE,
  [KS_KSCOPE_OSRT] = TRUE,
  [KS_KSCOPE_KS_MEMORY_EVENTS] = TRUE,
  [KS_KSCOPE_KS_COUNTER_SAMPLES] = TRUE,
  [KS_KSCOPE_COMPOSITE_EVENTS] = TRUE,
};


static void
fail (KsRecordWriter *self)
{
  int code;
  int sys_errno;

  if (self->error != NULL)
    return;

  code = sqlite3_errcode (self->db);
  sys_errno = sqlite3_system_errno (self->db);
  g_debug ("SQLite error %d (extended %d), errno %d: %s", code, sqlite3_extended_errcode (self->db),
           sys_errno, sqlite3_errmsg (self->db));
  /* A short write (errno 0) means the file system took no more bytes. */
  if (code == SQLITE_FULL || sys_errno == ENOSPC || sys_errno == EFBIG || sys_errno == EDQUOT
      || (sqlite3_extended_errcode (self->db) == SQLITE_IOERR_WRITE && sys_errno == 0))
    g_set_error (&self->error, G_IO_ERROR, G_IO_ERROR_NO_SPACE,
                 _("Could not write “%s”: the disk is full or the file size limit was reached"),
                 self->path);
  else
    g_set_error (&self->error, G_IO_ERROR, G_IO_ERROR_FAILED,
                 _("Could not write “%s”: %s"), self->path, sqlite3_errmsg (self->db));

  /* Writing stops here: back to the last commit, which the file holds. */
  if (sqlite3_get_autocommit (self->db) == 0)
    sqlite3_exec (self->db, "ROLLBACK", NULL, NULL, NULL);
  self->counts = self->committed;
}

static gboolean
exec (KsRecordWriter *self,
      const char     *sql)
{
  if (self->error != NULL)
    return FALSE;
  if (sqlite3_exec (self->db, sql, NULL, NULL, NULL) != SQLITE_OK)
    {
      fail (self);
      return FALSE;
    }
  return TRUE;
}

/* Tables are created when their first row arrives. */
static sqlite3_stmt *
stmt (KsRecordWriter *self,
      KsKscopeTable   table)
{
  if (event_tables[table])
    self->events++;
  if (self->error != NULL)
    return NULL;
  if (self->stmts[table] == NULL)
    {
      if (ks_kscope_schema_create_table (self->db, table) != SQLITE_OK ||
          ks_kscope_schema_prepare_insert (self->db, table, insert_columns[table],
                                           &self->stmts[table]) != SQLITE_OK)
        {
          fail (self);
          return NULL;
        }
    }
  return self->stmts[table];
}

static void
step_uncounted (KsRecordWriter *self,
                sqlite3_stmt   *s)
{
  if (sqlite3_step (s) != SQLITE_DONE)
    fail (self);
  sqlite3_reset (s);
  sqlite3_clear_bindings (s);
}

static void
step (KsRecordWriter *self,
      sqlite3_stmt   *s)
{
  step_uncounted (self, s);
  self->counts.rows++;
}

/* Saturated: a time from a process that is 2^63 ns or more away from
 * the start (a garbled message) must not overflow. */
static inline gint64
rel (KsRecordWriter *self,
     guint64         t)
{
  if (t >= self->start_mono)
    return (gint64) MIN (t - self->start_mono, (guint64) G_MAXINT64);
  return -(gint64) MIN (self->start_mono - t, (guint64) G_MAXINT64);
}

sqlite3_stmt *
ks_record_writer_stmt (KsRecordWriter *self,
                       KsKscopeTable   table)
{
  return stmt (self, table);
}

void
ks_record_writer_step (KsRecordWriter *self,
                       sqlite3_stmt   *s,
                       gboolean        counted)
{
  if (counted)
    step (self, s);
  else
    step_uncounted (self, s);
}

gint64
ks_record_writer_rel (KsRecordWriter *self,
                      guint64         t)
{
  return rel (self, t);
}

/* The leading columns shared by the kernel, memcpy and memset tables;
 * returns the next column. */
static int
bind_gpu_activity (KsRecordWriter *self,
                   sqlite3_stmt   *s,
                   gint64          pid,
                   guint64         start,
                   guint64         end,
                   guint32         device_id,
                   guint32         context_id,
                   guint32         stream_id,
                   guint32         correlation_id)
{
  int i = 1;

  sqlite3_bind_int64 (s, i++, rel (self, start));
  sqlite3_bind_int64 (s, i++, rel (self, end));
  sqlite3_bind_int64 (s, i++, device_id);
  sqlite3_bind_int64 (s, i++, context_id);
  sqlite3_bind_int64 (s, i++, stream_id);
  sqlite3_bind_int64 (s, i++, correlation_id);
  sqlite3_bind_int64 (s, i++, ks_kscope_global_pid (pid));
  return i;
}

/* Text from the program (thread names, diagnostics) as UTF-8, which
 * SQLite's readers decode: bytes that are not are replaced. */
static void
bind_text_or_null (sqlite3_stmt *s,
                   int           i,
                   const char   *text)
{
  if (text == NULL)
    sqlite3_bind_null (s, i);
  else if (g_utf8_validate (text, -1, NULL))
    sqlite3_bind_text (s, i, text, -1, SQLITE_TRANSIENT);
  else
    sqlite3_bind_text (s, i, g_utf8_make_valid (text, -1), -1, g_free);
}

void
ks_record_writer_set_meta (KsRecordWriter *self,
                           const char     *name,
                           const char     *value)
{
  sqlite3_stmt *s;

  /* Kept for write_stop_meta(). */
  if (self->error != NULL)
    {
      g_ptr_array_add (self->pending_meta, g_strdup (name));
      g_ptr_array_add (self->pending_meta, g_strdup (value));
      return;
    }
  if ((s = stmt (self, KS_KSCOPE_META)) == NULL)
    return;
  sqlite3_bind_text (s, 1, name, -1, SQLITE_TRANSIENT);
  bind_text_or_null (s, 2, value);
  step_uncounted (self, s);
}

KsRecordWriter *
ks_record_writer_new (const char  *path,
                      guint64      start_mono_ns,
                      gint64       start_utc_ns,
                      GError     **error)
{
  KsRecordWriter *self;
  g_autoptr(GDateTime) utc = NULL;
  g_autoptr(GDateTime) local = NULL;
  g_autofree char *utc_text = NULL;
  g_autofree char *local_text = NULL;
  g_autofree char *version = NULL;
  sqlite3_stmt *s;
  int rc;

  self = g_new0 (KsRecordWriter, 1);
  self->path = g_strdup (path);
  self->strings = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->next_string = 1;
  self->next_counter = 1;
  self->start_mono = start_mono_ns;
  self->start_utc = start_utc_ns;
  self->pending_meta = g_ptr_array_new_with_free_func (g_free);
  self->stack_nodes = g_array_new (FALSE, FALSE, sizeof (KsRecordStackNode));
  self->max_stack_nodes = KS_RECORD_MAX_STACK_NODES;

  rc = sqlite3_open_v2 (path, &self->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
  if (rc != SQLITE_OK)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _("Could not create “%s”: %s"), path,
                   self->db ? sqlite3_errmsg (self->db) : sqlite3_errstr (rc));
      ks_record_writer_free (self);
      return NULL;
    }

  /* a reader of the file (kinescope-cli info, the window) may hold it
   * for a moment: wait for it rather than fail */
  sqlite3_busy_timeout (self->db, 1000);
  if (ks_kscope_schema_identify (self->db) != SQLITE_OK)
    fail (self);
  /* The journal stays between transactions (its header zeroed): on a
   * full disk, the rows that say the recording stopped still have room
   * in it. finish() deletes it. */
  exec (self, "PRAGMA journal_mode = PERSIST");
  exec (self, "PRAGMA synchronous = NORMAL");
  exec (self, "PRAGMA cache_size = -32768");

  /* complete = 0 until finish says otherwise: a recording cut short
   * says so. The lookup tables go in the first commit, so that every
   * state the file can be left in has them. */
  exec (self, "BEGIN");
  version = g_strdup_printf ("%d", KS_KSCOPE_FORMAT_VERSION);
  ks_record_writer_set_meta (self, KS_KSCOPE_META_FORMAT_VERSION, version);
  ks_record_writer_set_meta (self, KS_KSCOPE_META_PRODUCER, ks_kscope_producer ());
  ks_record_writer_set_meta (self, KS_KSCOPE_META_SOURCE_FORMAT, "cupti");
  ks_record_writer_set_meta (self, KS_KSCOPE_META_COMPLETE, "0");
  ks_record_writer_set_meta (self, KS_KSCOPE_META_DROPPED_RECORDS, "0");
  ks_record_writer_set_meta (self, KS_KSCOPE_META_CLOCK, "CLOCK_MONOTONIC");
  if (self->error == NULL && ks_kscope_schema_write_enums (self->db) != SQLITE_OK)
    fail (self);

  utc = g_date_time_new_from_unix_utc (start_utc_ns / 1000000000);
  local = utc ? g_date_time_to_local (utc) : NULL;
  utc_text = utc ? g_date_time_format_iso8601 (utc) : g_strdup ("");
  local_text = local ? g_date_time_format_iso8601 (local) : g_strdup ("");
  if ((s = stmt (self, KS_KSCOPE_SESSION_START)) != NULL)
    {
      sqlite3_bind_int64 (s, 1, start_utc_ns);
      sqlite3_bind_text (s, 2, utc_text, -1, SQLITE_TRANSIENT);
      sqlite3_bind_text (s, 3, local_text, -1, SQLITE_TRANSIENT);
      step_uncounted (self, s);
    }
  ks_record_writer_commit (self);

  if (self->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&self->error));
      ks_record_writer_free (self);
      return NULL;
    }

  return self;
}

void
ks_record_writer_free (KsRecordWriter *self)
{
  if (self == NULL)
    return;
  for (guint i = 0; i < KS_KSCOPE_N_TABLES; i++)
    g_clear_pointer (&self->stmts[i], sqlite3_finalize);
  if (self->db != NULL)
    {
      if (sqlite3_get_autocommit (self->db) == 0)
        sqlite3_exec (self->db, "COMMIT", NULL, NULL, NULL);
      sqlite3_close (self->db);
    }
  g_clear_pointer (&self->strings, g_hash_table_unref);
  g_clear_pointer (&self->pending_meta, g_ptr_array_unref);
  g_clear_pointer (&self->stack_nodes, g_array_unref);
  g_clear_pointer (&self->stack_slots, g_free);
  g_clear_error (&self->error);
  g_free (self->path);
  g_free (self);
}

const GError *
ks_record_writer_get_error (KsRecordWriter *self)
{
  return self->error;
}

const KsRecordCounts *
ks_record_writer_get_counts (KsRecordWriter *self)
{
  return &self->counts;
}

gboolean
ks_record_writer_commit (KsRecordWriter *self)
{
  if (self->error != NULL)
    return FALSE;
  if (sqlite3_get_autocommit (self->db) == 0 && !exec (self, "COMMIT"))
    return FALSE;
  self->last_commit_us = g_get_monotonic_time ();
  /* g_get_monotonic_time() is CLOCK_MONOTONIC, the recording's clock */
  self->committed_mono = (guint64) self->last_commit_us * 1000;
  self->committed = self->counts;
  self->committed_events = self->events;
  return exec (self, "BEGIN");
}

guint64
ks_record_writer_get_written_until (KsRecordWriter *self)
{
  return self->committed_mono;
}

guint64
ks_record_writer_get_unwritten (KsRecordWriter *self)
{
  return self->error != NULL ? self->events - self->committed_events : 0;
}

const char *
ks_record_writer_get_end_reason (KsRecordWriter *self)
{
  if (self->error == NULL)
    return NULL;
  return g_error_matches (self->error, G_IO_ERROR, G_IO_ERROR_NO_SPACE) ? "disk-full" : "write-failed";
}

gboolean
ks_record_writer_commit_if_due (KsRecordWriter *self)
{
  if (g_get_monotonic_time () - self->last_commit_us < COMMIT_INTERVAL_US)
    return self->error == NULL;
  return ks_record_writer_commit (self);
}

guint32
ks_record_writer_intern (KsRecordWriter *self,
                         const char     *text)
{
  g_autofree char *valid = NULL;
  gpointer value;
  sqlite3_stmt *s;
  guint32 id;

  if (text == NULL)
    text = "";
  /* Names come from the program (NVTX, threads, Python frames read from
   * its memory): StringIds holds UTF-8 text, as bind_text_or_null(). */
  if (!g_utf8_validate (text, -1, NULL))
    text = valid = g_utf8_make_valid (text, -1);
  if (g_hash_table_lookup_extended (self->strings, text, NULL, &value))
    return GPOINTER_TO_UINT (value);

  id = self->next_string++;
  g_hash_table_insert (self->strings, g_strdup (text), GUINT_TO_POINTER (id));
  if ((s = stmt (self, KS_KSCOPE_STRING_IDS)) != NULL)
    {
      sqlite3_bind_int64 (s, 1, id);
      sqlite3_bind_text (s, 2, text, -1, SQLITE_TRANSIENT);
      step (self, s);
    }
  return id;
}

void
ks_record_writer_add_capture_meta (KsRecordWriter *self,
                                   const char     *name,
                                   const char     *value)
{
  sqlite3_stmt *s = stmt (self, KS_KSCOPE_CAPTURE);

  if (s == NULL)
    return;
  sqlite3_bind_text (s, 1, name, -1, SQLITE_TRANSIENT);
  bind_text_or_null (s, 2, value);
  step (self, s);
}

void
ks_record_writer_add_process (KsRecordWriter *self,
                              gint64          pid,
                              const char     *name)
{
  sqlite3_stmt *s = stmt (self, KS_KSCOPE_PROCESSES);

  if (s == NULL)
    return;
  sqlite3_bind_int64 (s, 1, ks_kscope_global_pid (pid));
  sqlite3_bind_int64 (s, 2, pid);
  bind_text_or_null (s, 3, name);
  step (self, s);
}

void
ks_record_writer_add_rank (KsRecordWriter *self,
                           gint64          pid,
                           gint32          rank,
                           gint32          local_rank,
                           gint32          world_size,
                           gint32          local_world_size,
                           const char     *host)
{
  sqlite3_stmt *s = stmt (self, KS_KSCOPE_KS_RANKS);

  if (s == NULL)
    return;
  sqlite3_bind_int64 (s, 1, ks_kscope_global_pid (pid));
  sqlite3_bind_null (s, 2);
  sqlite3_bind_int (s, 3, rank);
  if (local_rank >= 0)
    sqlite3_bind_int (s, 4, local_rank);
  else
    sqlite3_bind_null (s, 4);
  if (world_size > 0)
    sqlite3_bind_int (s, 5, world_size);
  else
    sqlite3_bind_null (s, 5);
  if (local_world_size > 0)
    sqlite3_bind_int (s, 6, local_world_size);
  else
    sqlite3_bind_null (s, 6);
  bind_text_or_null (s, 7, host != NULL && *host ? host : NULL);
  sqlite3_bind_null (s, 8);
  sqlite3_bind_null (s, 9);
  sqlite3_bind_text (s, 10, ks_rank_source_to_string (KS_RANK_FROM_ENVIRONMENT), -1, SQLITE_STATIC);
  step (self, s);
}

void
ks_record_writer_rename_process (KsRecordWriter *self,
                                 gint64          pid,
                                 const char     *name)
{
  sqlite3_stmt *s = NULL;

  if (self->error != NULL || self->stmts[KS_KSCOPE_PROCESSES] == NULL)
    return;
  if (sqlite3_prepare_v2 (self->db, "UPDATE PROCESSES SET name = ? WHERE pid = ?", -1, &s, NULL) != SQLITE_OK)
    {
      fail (self);
      return;
    }
  bind_text_or_null (s, 1, name);
  sqlite3_bind_int64 (s, 2, pid);
  if (sqlite3_step (s) != SQLITE_DONE)
    fail (self);
  sqlite3_finalize (s);
}

void
ks_record_writer_add_thread (KsRecordWriter *self,
                             gint64          pid,
                             gint64          tid,
                             const char     *name,
                             const char     *role)
{
  sqlite3_stmt *s;
  guint32 name_id;

  if (name != NULL && *name)
    {
      name_id = ks_record_writer_intern (self, name);
      if ((s = stmt (self, KS_KSCOPE_THREAD_NAMES)) != NULL)
        {
          sqlite3_bind_int64 (s, 1, name_id);
          sqlite3_bind_int64 (s, 2, ks_kscope_global_tid (pid, tid));
          step (self, s);
        }
    }
  if ((s = stmt (self, KS_KSCOPE_KS_THREADS)) != NULL)
    {
      sqlite3_bind_int64 (s, 1, ks_kscope_global_tid (pid, tid));
      sqlite3_bind_int64 (s, 2, pid);
      sqlite3_bind_int64 (s, 3, tid);
      bind_text_or_null (s, 4, name);
      bind_text_or_null (s, 5, role);
      sqlite3_bind_int64 (s, 6, ks_kscope_global_pid (pid));
      step (self, s);
    }
}

void
ks_record_writer_add_kernel (KsRecordWriter     *self,
                             gint64              pid,
                             const KsWireKernel *k,
                             guint32             demangled_id,
                             guint32             short_id,
                             guint32             mangled_id)
{
  sqlite3_stmt *s = stmt (self, KS_KSCOPE_KERNEL);
  int i;

  if (s == NULL)
    return;
  i = bind_gpu_activity (self, s, pid, k->start, k->end, k->device_id,
                         k->context_id, k->stream_id, k->correlation_id);
  sqlite3_bind_int64 (s, i++, demangled_id);
  sqlite3_bind_int64 (s, i++, short_id);
  sqlite3_bind_int64 (s, i++, mangled_id);
  sqlite3_bind_int64 (s, i++, ks_kscope_launch_type_from_cupti (k->launch_type));
  sqlite3_bind_int64 (s, i++, k->cache_config);
  sqlite3_bind_int64 (s, i++, k->registers);
  for (int d = 0; d < 3; d++)
    sqlite3_bind_int64 (s, i++, k->grid[d]);
  for (int d = 0; d < 3; d++)
    sqlite3_bind_int64 (s, i++, k->block[d]);
  sqlite3_bind_int64 (s, i++, k->static_shared);
  sqlite3_bind_int64 (s, i++, k->dynamic_shared);
  sqlite3_bind_int64 (s, i++, k->local_per_thread);
  sqlite3_bind_int64 (s, i++, (gint64) k->local_total);
  sqlite3_bind_int64 (s, i++, k->grid_id);
  sqlite3_bind_int64 (s, i++, k->shared_executed);
  sqlite3_bind_int64 (s, i++, (gint64) k->graph_node_id);
  sqlite3_bind_int64 (s, i++, k->graph_id);
  step (self, s);
  self->counts.kernels++;
}

void
ks_record_writer_add_memcpy (KsRecordWriter     *self,
                             gint64              pid,
                             const KsWireMemcpy *m)
{
  sqlite3_stmt *s = stmt (self, KS_KSCOPE_MEMCPY);
  int i;

  if (s == NULL)
    return;
  i = bind_gpu_activity (self, s, pid, m->start, m->end, m->device_id,
                         m->context_id, m->stream_id, m->correlation_id);
  sqlite3_bind_int64 (s, i++, (gint64) m->bytes);
  sqlite3_bind_int64 (s, i++, ks_kscope_copy_kind_from_cupti (m->copy_kind));
  sqlite3_bind_int64 (s, i++, ks_kscope_mem_kind_from_cupti (m->src_kind));
  sqlite3_bind_int64 (s, i++, ks_kscope_mem_kind_from_cupti (m->dst_kind));
  sqlite3_bind_int64 (s, i++, m->src_device_id);
  sqlite3_bind_int64 (s, i++, m->dst_device_id);
  sqlite3_bind_int64 (s, i++, (gint64) m->graph_node_id);
  sqlite3_bind_int64 (s, i++, m->runtime_correlation_id);
  step (self, s);
  self->counts.memcpys++;
}

void
ks_record_writer_add_memset (KsRecordWriter     *self,
                             gint64              pid,
                             const KsWireMemset *m)
{
  sqlite3_stmt *s = stmt (self, KS_KSCOPE_MEMSET);
  int i;

  if (s == NULL)
    return;
  i = bind_gpu_activity (self, s, pid, m->start, m->end, m->device_id,
                         m->context_id, m->stream_id, m->correlation_id);
  sqlite3_bind_int64 (s, i++, m->value);
  sqlite3_bind_int64 (s, i++, (gint64) m->bytes);
  sqlite3_bind_int64 (s, i++, (gint64) m->graph_node_id);
  sqlite3_bind_int64 (s, i++, ks_kscope_mem_kind_from_cupti (m->mem_kind));
  step (self, s);
  self->counts.memsets++;
}

void
ks_record_writer_add_api (KsRecordWriter  *self,
                          gint64           pid,
                          const KsWireApi *a,
                          guint32          name_id)
{
  sqlite3_stmt *s = stmt (self, KS_KSCOPE_RUNTIME);
  int i = 1;

  if (s == NULL)
    return;
  sqlite3_bind_int64 (s, i++, rel (self, a->start));
  sqlite3_bind_int64 (s, i++, rel (self, a->end));
  sqlite3_bind_int64 (s, i++, a->event_class);
  sqlite3_bind_int64 (s, i++, ks_kscope_global_tid (pid, a->tid));
  sqlite3_bind_int64 (s, i++, a->correlation_id);
  sqlite3_bind_int64 (s, i++, name_id);
  sqlite3_bind_int64 (s, i++, a->return_value);
  step (self, s);
  self->counts.api_calls++;
}

void
ks_record_writer_add_sync (KsRecordWriter   *self,
                           gint64            pid,
                           guint32           device_id,
                           const KsWireSync *sy)
{
  sqlite3_stmt *s = stmt (self, KS_KSCOPE_SYNC);
  int i = 1;

  if (s == NULL)
    return;
  sqlite3_bind_int64 (s, i++, rel (self, sy->start));
  sqlite3_bind_int64 (s, i++, rel (self, sy->end));
  sqlite3_bind_int64 (s, i++, device_id);
  sqlite3_bind_int64 (s, i++, sy->context_id);
  /* CUPTI reports stream 0xFFFFFFFF for context-wide syncs */
  sqlite3_bind_int64 (s, i++, sy->stream_id == G_MAXUINT32 ? -1 : (gint64) sy->stream_id);
  sqlite3_bind_int64 (s, i++, sy->correlation_id);
  sqlite3_bind_int64 (s, i++, ks_kscope_global_pid (pid));
  sqlite3_bind_int64 (s, i++, ks_kscope_sync_type_from_cupti (sy->sync_type));
  sqlite3_bind_int64 (s, i++, sy->event_id == G_MAXUINT32 ? -1 : (gint64) sy->event_id);
  step (self, s);
  self->counts.syncs++;
}

void
ks_record_writer_add_memory (KsRecordWriter *self,
                             gint64          pid,
                             gint64          tid,
                             guint64         timestamp,
                             gint            device_id,
                             guint64         address,
                             gint64          bytes,
                             gint64          total_allocated)
{
  sqlite3_stmt *s = stmt (self, KS_KSCOPE_KS_MEMORY_EVENTS);
  int i = 1;

  if (s == NULL)
    return;
  sqlite3_bind_int64 (s, i++, rel (self, timestamp));
  sqlite3_bind_int64 (s, i++, ks_kscope_global_tid (pid, tid));
  sqlite3_bind_int64 (s, i++, device_id);
  sqlite3_bind_int64 (s, i++, (gint64) address);
  sqlite3_bind_int64 (s, i++, bytes);
  sqlite3_bind_int64 (s, i++, total_allocated);
  step (self, s);
  self->counts.memory_events++;
}

void
ks_record_writer_add_stream (KsRecordWriter     *self,
                             gint64              pid,
                             const KsWireStream *st)
{
  sqlite3_stmt *s = stmt (self, KS_KSCOPE_CUDA_STREAM);
  int i = 1;

  if (s == NULL)
    return;
  sqlite3_bind_int64 (s, i++, st->stream_id);
  sqlite3_bind_int64 (s, i++, pid);
  sqlite3_bind_int64 (s, i++, st->context_id);
  sqlite3_bind_int64 (s, i++, (gint32) st->priority);
  sqlite3_bind_int64 (s, i++, ks_kscope_stream_flag_from_cupti (st->flag));
  step (self, s);
}

void
ks_record_writer_add_nvtx (KsRecordWriter *self,
                           gint64          pid,
                           guint32         event_type,
                           guint64         start,
                           guint64         end,
                           gint64          tid,
                           gint64          end_tid,
                           guint64         range_id,
                           guint32         category,
                           gboolean        has_color,
                           guint32         color,
                           const char     *text,
                           guint32         text_id,
                           guint32         domain_id,
                           guint           payload_type,
                           guint64         payload)
{
  sqlite3_stmt *s = stmt (self, KS_KSCOPE_NVTX);
  int payload_col;

  if (s == NULL)
    return;
  sqlite3_bind_int64 (s, 1, rel (self, start));
  if (end != 0 && event_type != KS_NVTX_MARK && event_type != KS_NVTX_DOMAIN && event_type != 33)
    sqlite3_bind_int64 (s, 2, rel (self, end));
  sqlite3_bind_int64 (s, 3, event_type);
  if (event_type == KS_NVTX_START_END)
    sqlite3_bind_int64 (s, 4, (gint64) range_id);
  if (category != 0 || event_type == 33)
    sqlite3_bind_int64 (s, 5, category);
  if (has_color)
    sqlite3_bind_int64 (s, 6, color);
  bind_text_or_null (s, 7, text);
  sqlite3_bind_int64 (s, 8, ks_kscope_global_tid (pid, tid));
  if (event_type == KS_NVTX_START_END && end_tid != 0)
    sqlite3_bind_int64 (s, 9, ks_kscope_global_tid (pid, end_tid));
  if (text_id != 0)
    sqlite3_bind_int64 (s, 10, text_id);
  sqlite3_bind_int64 (s, 11, domain_id);

  /* NVTX_PAYLOAD_TYPE_*: 1 u64, 2 i64, 3 double, 4 u32, 5 i32, 6 float */
  payload_col = 11 + (int) payload_type;
  switch (payload_type)
    {
    case 1:
    case 2:
      sqlite3_bind_int64 (s, payload_col, (gint64) payload);
      break;
    case 3:
      {
        double d;

        memcpy (&d, &payload, sizeof d);
        sqlite3_bind_double (s, payload_col, d);
      }
      break;
    case 4:
      sqlite3_bind_int64 (s, payload_col, (guint32) payload);
      break;
    case 5:
      sqlite3_bind_int64 (s, payload_col, (gint32) (guint32) payload);
      break;
    case 6:
      {
        float f;
        guint32 bits = (guint32) payload;

        memcpy (&f, &bits, sizeof f);
        sqlite3_bind_double (s, payload_col, f);
      }
      break;
    default:
      break;
    }
  step (self, s);

  if (event_type == KS_NVTX_MARK)
    self->counts.nvtx_marks++;
  else if (event_type == KS_NVTX_PUSH_POP || event_type == KS_NVTX_START_END)
    self->counts.nvtx_ranges++;
}

static const char * const osrt_names[KS_OSRT_N_FUNCTIONS] = {
  [KS_OSRT_PTHREAD_MUTEX_LOCK] = "pthread_mutex_lock",
  [KS_OSRT_PTHREAD_COND_WAIT] = "pthread_cond_wait",
  [KS_OSRT_PTHREAD_COND_TIMEDWAIT] = "pthread_cond_timedwait",
  [KS_OSRT_PTHREAD_JOIN] = "pthread_join",
  [KS_OSRT_SEM_WAIT] = "sem_wait",
  [KS_OSRT_SEM_TIMEDWAIT] = "sem_timedwait",
  [KS_OSRT_NANOSLEEP] = "nanosleep",
  [KS_OSRT_CLOCK_NANOSLEEP] = "clock_nanosleep",
  [KS_OSRT_USLEEP] = "usleep",
  [KS_OSRT_SLEEP] = "sleep",
  [KS_OSRT_READ] = "read",
  [KS_OSRT_READV] = "readv",
  [KS_OSRT_PREAD] = "pread",
  [KS_OSRT_WRITE] = "write",
  [KS_OSRT_RECV] = "recv",
  [KS_OSRT_RECVFROM] = "recvfrom",
  [KS_OSRT_RECVMSG] = "recvmsg",
  [KS_OSRT_POLL] = "poll",
  [KS_OSRT_PPOLL] = "ppoll",
  [KS_OSRT_SELECT] = "select",
  [KS_OSRT_PSELECT] = "pselect",
  [KS_OSRT_EPOLL_WAIT] = "epoll_wait",
  [KS_OSRT_EPOLL_PWAIT] = "epoll_pwait",
  [KS_OSRT_ACCEPT] = "accept",
  [KS_OSRT_ACCEPT4] = "accept4",
  [KS_OSRT_CONNECT] = "connect",
  [KS_OSRT_WAITPID] = "waitpid",
};

void
ks_record_writer_add_osrt (KsRecordWriter   *self,
                           gint64            pid,
                           const KsWireOsrt *o)
{
  sqlite3_stmt *s;
  guint32 name_id;

  if (o->function >= KS_OSRT_N_FUNCTIONS)
    return;
  name_id = ks_record_writer_intern (self, osrt_names[o->function]);
  if ((s = stmt (self, KS_KSCOPE_OSRT)) == NULL)
    return;
  sqlite3_bind_int64 (s, 1, rel (self, o->start));
  sqlite3_bind_int64 (s, 2, rel (self, o->end));
  sqlite3_bind_int64 (s, 3, ks_kscope_global_tid (pid, o->tid));
  sqlite3_bind_int64 (s, 4, name_id);
  sqlite3_bind_int64 (s, 5, o->return_value);
  step (self, s);
  self->counts.osrt_calls++;
}

guint32
ks_record_writer_add_counter (KsRecordWriter *self,
                              const char     *name,
                              const char     *unit,
                              gint            device_id,
                              const char     *description)
{
  sqlite3_stmt *s = stmt (self, KS_KSCOPE_KS_COUNTERS);
  guint32 id = self->next_counter++;

  if (s == NULL)
    return id;
  sqlite3_bind_int64 (s, 1, id);
  sqlite3_bind_text (s, 2, name, -1, SQLITE_TRANSIENT);
  bind_text_or_null (s, 3, unit);
  if (device_id >= 0)
    sqlite3_bind_int64 (s, 4, device_id);
  bind_text_or_null (s, 5, description);
  step (self, s);
  return id;
}

void
ks_record_writer_add_sample (KsRecordWriter *self,
                             guint32         counter_id,
                             guint64         timestamp,
                             double          value)
{
  sqlite3_stmt *s = stmt (self, KS_KSCOPE_KS_COUNTER_SAMPLES);

  if (s == NULL)
    return;
  sqlite3_bind_int64 (s, 1, counter_id);
  sqlite3_bind_int64 (s, 2, rel (self, timestamp));
  sqlite3_bind_double (s, 3, value);
  step (self, s);
  self->counts.counter_samples++;
}

void
ks_record_writer_add_diagnostic (KsRecordWriter *self,
                                 guint64         timestamp,
                                 const char     *severity,
                                 const char     *source,
                                 const char     *text)
{
  sqlite3_stmt *s = stmt (self, KS_KSCOPE_KS_DIAGNOSTICS);

  if (s == NULL)
    return;
  sqlite3_bind_int64 (s, 1, timestamp ? rel (self, timestamp) : 0);
  bind_text_or_null (s, 2, severity);
  bind_text_or_null (s, 3, source);
  bind_text_or_null (s, 4, text);
  step (self, s);
}

void
ks_record_writer_add_gpu (KsRecordWriter    *self,
                          const KsRecordGpu *g)
{
  sqlite3_stmt *s = stmt (self, KS_KSCOPE_GPU);
  int i = 1;

  if (s == NULL)
    return;
  sqlite3_bind_int64 (s, i++, g->id);
  bind_text_or_null (s, i++, g->name);
  bind_text_or_null (s, i++, g->bus_location);
  sqlite3_bind_int64 (s, i++, (gint64) g->total_memory);
  sqlite3_bind_int64 (s, i++, g->sm_count);
  bind_text_or_null (s, i++, g->uuid);
  sqlite3_bind_int64 (s, i++, g->compute_major);
  sqlite3_bind_int64 (s, i++, g->compute_minor);
  sqlite3_bind_int64 (s, i++, g->max_threads_per_block);
  sqlite3_bind_int64 (s, i++, g->max_warps_per_sm);
  sqlite3_bind_int64 (s, i++, g->max_shmem_per_sm);
  sqlite3_bind_int64 (s, i++, g->max_registers_per_sm);
  sqlite3_bind_int64 (s, i++, g->max_shmem_per_block);
  sqlite3_bind_int64 (s, i++, g->max_registers_per_block);
  sqlite3_bind_int64 (s, i++, g->threads_per_warp);
  /* Two 32-bit values from the wire: their product fits in 64 unsigned bits. */
  sqlite3_bind_int64 (s, i++, (gint64) MIN ((guint64) g->max_warps_per_sm * g->threads_per_warp,
                                            (guint64) G_MAXINT64));
  sqlite3_bind_int64 (s, i++, (gint64) g->clock_rate_hz);
  sqlite3_bind_int64 (s, i++, (gint64) g->memory_bandwidth);
  sqlite3_bind_int64 (s, i++, g->l2_cache_size);
  step (self, s);
}

static void
create_indexes (KsRecordWriter *self)
{
  for (guint i = 0; i < KS_KSCOPE_N_TABLES; i++)
    if (self->error == NULL && self->stmts[i] != NULL &&
        ks_kscope_schema_create_indexes (self->db, i) != SQLITE_OK)
      fail (self);
}

/* After a failure: says in KS_META that the recording stops at the last
 * commit, and why. These few rows fit in KS_META's page and the kept
 * journal, so this works on a full disk too; when even that fails, the
 * file still says complete = 0, written with the first commit. */
static gboolean
write_stop_meta (KsRecordWriter *self)
{
  sqlite3_stmt *s = self->stmts[KS_KSCOPE_META];
  g_autofree char *until = g_strdup_printf ("%" G_GINT64_FORMAT, rel (self, self->committed_mono));
  g_autofree char *unwritten = g_strdup_printf ("%" G_GUINT64_FORMAT, ks_record_writer_get_unwritten (self));
  const char *last[] = {
    KS_KSCOPE_META_COMPLETE, "0",
    KS_RECORD_META_END_REASON, ks_record_writer_get_end_reason (self),
    KS_RECORD_META_WRITTEN_UNTIL, until,
    KS_RECORD_META_UNWRITTEN, unwritten,
    KS_RECORD_META_WRITE_ERROR, self->error->message,
  };
  gboolean ok = TRUE;

  /* these win over what the caller set */
  for (guint i = 0; i < G_N_ELEMENTS (last); i++)
    g_ptr_array_add (self->pending_meta, g_strdup (last[i]));

  if (s == NULL || sqlite3_exec (self->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
    return FALSE;
  for (guint i = 0; ok && i + 1 < self->pending_meta->len; i += 2)
    {
      sqlite3_bind_text (s, 1, g_ptr_array_index (self->pending_meta, i), -1, SQLITE_TRANSIENT);
      bind_text_or_null (s, 2, g_ptr_array_index (self->pending_meta, i + 1));
      ok = sqlite3_step (s) == SQLITE_DONE;
      sqlite3_reset (s);
      sqlite3_clear_bindings (s);
    }
  if (ok && sqlite3_exec (self->db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK)
    return TRUE;
  if (sqlite3_get_autocommit (self->db) == 0)
    sqlite3_exec (self->db, "ROLLBACK", NULL, NULL, NULL);
  return FALSE;
}

gboolean
ks_record_writer_finish (KsRecordWriter  *self,
                         guint64          end_mono_ns,
                         gboolean         complete,
                         GError         **error)
{
  gint64 duration = rel (self, end_mono_ns);
  sqlite3_stmt *s;

  if (self->error == NULL)
    {
      if ((s = stmt (self, KS_KSCOPE_ANALYSIS_DETAILS)) != NULL)
        {
          sqlite3_bind_int64 (s, 1, duration);
          sqlite3_bind_int64 (s, 2, duration);
          step_uncounted (self, s);
        }
      ks_record_writer_commit (self);
      create_indexes (self);
      ks_record_writer_set_meta (self, KS_KSCOPE_META_COMPLETE, complete ? "1" : "0");
      if (self->error == NULL && sqlite3_get_autocommit (self->db) == 0)
        exec (self, "COMMIT");
    }

  if (self->error != NULL)
    {
      GError *failure = g_error_copy (self->error);

      if (!write_stop_meta (self))
        {
          g_autofree char *message = g_strdup_printf (_("%s; the file says it is incomplete, but not why"),
                                                      failure->message);

          g_free (failure->message);
          failure->message = g_steal_pointer (&message);
        }
      sqlite3_exec (self->db, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL);
      g_propagate_error (error, failure);
      return FALSE;
    }
  /* Deletes the kept journal. All is committed: should that fail, an
   * empty journal stays beside the file, which readers ignore. */
  sqlite3_exec (self->db, "PRAGMA journal_mode = DELETE", NULL, NULL, NULL);
  return TRUE;
}
