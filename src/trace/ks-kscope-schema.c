/* ks-kscope-schema.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-kscope-schema"

#include "config.h"

#include <string.h>

#include "ks-kscope-schema.h"
#include "ks-trace.h"

typedef struct
{
  const char *name;
  const char *columns;  /* CREATE TABLE body */
  const char *indexes;  /* run after the data, may be NULL */
} TableDef;

/* Nsight tables keep Nsight's column names and order (schema 3.x); the
 * columns after theirs (categoryId, externalId, args, nameId where Nsight
 * has none...) hold what Kinescope has and Nsight lacks, NULL when they
 * add nothing. */
static const TableDef tables[KS_KSCOPE_N_TABLES] = {
  [KS_KSCOPE_STRING_IDS] = { "StringIds",
    "id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL", NULL },
  [KS_KSCOPE_PROCESSES] = { "PROCESSES",
    "globalPid INTEGER, pid INTEGER, name TEXT", NULL },
  [KS_KSCOPE_THREAD_NAMES] = { "ThreadNames",
    "nameId INTEGER NOT NULL, priority INTEGER, globalTid INTEGER", NULL },
  [KS_KSCOPE_SESSION_START] = { "TARGET_INFO_SESSION_START_TIME",
    "utcEpochNs INTEGER, utcTime TEXT, localTime TEXT", NULL },
  [KS_KSCOPE_ANALYSIS_DETAILS] = { "ANALYSIS_DETAILS",
    "globalVid INTEGER NOT NULL, duration INTEGER NOT NULL, startTime INTEGER NOT NULL, "
    "stopTime INTEGER NOT NULL", NULL },
  [KS_KSCOPE_GPU] = { "TARGET_INFO_GPU",
    "vmId INTEGER NOT NULL, id INTEGER NOT NULL, name TEXT, busLocation TEXT, "
    "l2CacheSize INTEGER, totalMemory INTEGER, memoryBandwidth INTEGER, clockRate INTEGER, "
    "smCount INTEGER, uuid TEXT, maxRegistersPerBlock INTEGER, maxShmemPerBlock INTEGER, "
    "maxShmemPerSm INTEGER, maxRegistersPerSm INTEGER, threadsPerWarp INTEGER, "
    "maxWarpsPerSm INTEGER, maxThreadsPerBlock INTEGER, computeMajor INTEGER, "
    "computeMinor INTEGER, maxThreadsPerSm INTEGER", NULL },
  [KS_KSCOPE_CUDA_STREAM] = { "TARGET_INFO_CUDA_STREAM",
    "streamId INTEGER NOT NULL, hwId INTEGER NOT NULL, vmId INTEGER NOT NULL, "
    "processId INTEGER NOT NULL, contextId INTEGER NOT NULL, priority INTEGER NOT NULL, "
    "flag INTEGER NOT NULL, deviceId INTEGER", NULL },
  [KS_KSCOPE_KERNEL] = { "CUPTI_ACTIVITY_KIND_KERNEL",
    "start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, "
    "contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, "
    "globalPid INTEGER, demangledName INTEGER NOT NULL, shortName INTEGER NOT NULL, "
    "mangledName INTEGER, launchType INTEGER, cacheConfig INTEGER, "
    "registersPerThread INTEGER NOT NULL, "
    "gridX INTEGER NOT NULL, gridY INTEGER NOT NULL, gridZ INTEGER NOT NULL, "
    "blockX INTEGER NOT NULL, blockY INTEGER NOT NULL, blockZ INTEGER NOT NULL, "
    "staticSharedMemory INTEGER NOT NULL, dynamicSharedMemory INTEGER NOT NULL, "
    "localMemoryPerThread INTEGER NOT NULL, localMemoryTotal INTEGER NOT NULL, "
    "gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER, graphNodeId INTEGER, "
    "graphId INTEGER, categoryId INTEGER, externalId INTEGER, args TEXT",
    "CREATE INDEX CUPTI_ACTIVITY_KIND_KERNEL_stream ON CUPTI_ACTIVITY_KIND_KERNEL (deviceId, streamId, start);"
    "CREATE INDEX CUPTI_ACTIVITY_KIND_KERNEL_correlation ON CUPTI_ACTIVITY_KIND_KERNEL (globalPid, correlationId);" },
  [KS_KSCOPE_MEMCPY] = { "CUPTI_ACTIVITY_KIND_MEMCPY",
    "start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, "
    "contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, "
    "globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL, srcKind INTEGER, "
    "dstKind INTEGER, srcDeviceId INTEGER, dstDeviceId INTEGER, graphNodeId INTEGER, "
    "runtimeCorrelationId INTEGER, nameId INTEGER, categoryId INTEGER, externalId INTEGER, "
    "args TEXT",
    "CREATE INDEX CUPTI_ACTIVITY_KIND_MEMCPY_stream ON CUPTI_ACTIVITY_KIND_MEMCPY (deviceId, streamId, start);"
    "CREATE INDEX CUPTI_ACTIVITY_KIND_MEMCPY_correlation ON CUPTI_ACTIVITY_KIND_MEMCPY (globalPid, correlationId);" },
  [KS_KSCOPE_MEMSET] = { "CUPTI_ACTIVITY_KIND_MEMSET",
    "start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, "
    "contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, "
    "globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL, graphNodeId INTEGER, "
    "memKind INTEGER, nameId INTEGER, categoryId INTEGER, externalId INTEGER, args TEXT",
    "CREATE INDEX CUPTI_ACTIVITY_KIND_MEMSET_stream ON CUPTI_ACTIVITY_KIND_MEMSET (deviceId, streamId, start);"
    "CREATE INDEX CUPTI_ACTIVITY_KIND_MEMSET_correlation ON CUPTI_ACTIVITY_KIND_MEMSET (globalPid, correlationId);" },
  [KS_KSCOPE_RUNTIME] = { "CUPTI_ACTIVITY_KIND_RUNTIME",
    "start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, "
    "globalTid INTEGER, correlationId INTEGER, nameId INTEGER NOT NULL, "
    "returnValue INTEGER NOT NULL, callchainId INTEGER, "
    "categoryId INTEGER, externalId INTEGER, args TEXT",
    "CREATE INDEX CUPTI_ACTIVITY_KIND_RUNTIME_thread ON CUPTI_ACTIVITY_KIND_RUNTIME (globalTid, start);"
    "CREATE INDEX CUPTI_ACTIVITY_KIND_RUNTIME_correlation ON CUPTI_ACTIVITY_KIND_RUNTIME (correlationId, globalTid);" },
  [KS_KSCOPE_SYNC] = { "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
    "start INTEGER NOT NULL, end INTEGER NOT NULL, deviceId INTEGER NOT NULL, "
    "contextId INTEGER NOT NULL, streamId INTEGER NOT NULL, correlationId INTEGER, "
    "globalPid INTEGER, syncType INTEGER NOT NULL, eventId INTEGER NOT NULL, "
    "nameId INTEGER, categoryId INTEGER, externalId INTEGER, args TEXT",
    "CREATE INDEX CUPTI_ACTIVITY_KIND_SYNCHRONIZATION_stream ON CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (deviceId, streamId, start);"
    "CREATE INDEX CUPTI_ACTIVITY_KIND_SYNCHRONIZATION_correlation ON CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (globalPid, correlationId);" },
  [KS_KSCOPE_NVTX] = { "NVTX_EVENTS",
    "start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER, "
    "category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, "
    "textId INTEGER, domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, "
    "doubleValue REAL, uint32Value INTEGER, int32Value INTEGER, floatValue REAL, "
    "jsonText TEXT, correlationId INTEGER, externalId INTEGER",
    "CREATE INDEX NVTX_EVENTS_thread ON NVTX_EVENTS (globalTid, start);" },
  [KS_KSCOPE_OSRT] = { "OSRT_API",
    "start INTEGER NOT NULL, end INTEGER NOT NULL, eventClass INTEGER NOT NULL, "
    "globalTid INTEGER, nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, "
    "nestingLevel INTEGER, callchainId INTEGER NOT NULL, "
    "categoryId INTEGER, correlationId INTEGER, externalId INTEGER, args TEXT",
    "CREATE INDEX OSRT_API_thread ON OSRT_API (globalTid, start);" },
  [KS_KSCOPE_CAPTURE] = { "META_DATA_CAPTURE",
    "name TEXT NOT NULL, value TEXT", NULL },
  [KS_KSCOPE_META] = { "KS_META",
    "name TEXT PRIMARY KEY, value TEXT", NULL },
  [KS_KSCOPE_KS_PROCESSES] = { "KS_PROCESSES",
    "globalPid INTEGER NOT NULL, pid INTEGER NOT NULL, originalPid TEXT, name TEXT, "
    "label TEXT, sortIndex INTEGER, groupId INTEGER", NULL },
  [KS_KSCOPE_KS_THREADS] = { "KS_THREADS",
    "globalTid INTEGER NOT NULL, pid INTEGER, tid INTEGER, originalPid TEXT, "
    "originalTid TEXT, name TEXT, role TEXT, globalPid INTEGER, sortIndex INTEGER", NULL },
  [KS_KSCOPE_KS_TRACKS] = { "KS_TRACKS",
    "id INTEGER PRIMARY KEY, kind TEXT NOT NULL, name TEXT, globalPid INTEGER, "
    "globalTid INTEGER, deviceId INTEGER, streamId INTEGER, sortIndex INTEGER, "
    "parentId INTEGER, groupId INTEGER", NULL },
  [KS_KSCOPE_KS_SLICES] = { "KS_SLICES",
    "start INTEGER NOT NULL, end INTEGER NOT NULL, globalTid INTEGER, trackId INTEGER, "
    "kind INTEGER NOT NULL, nameId INTEGER, categoryId INTEGER, correlationId INTEGER, "
    "externalId INTEGER, args TEXT",
    "CREATE INDEX KS_SLICES_thread ON KS_SLICES (globalTid, start);"
    "CREATE INDEX KS_SLICES_track ON KS_SLICES (trackId, start);" },
  [KS_KSCOPE_KS_INSTANTS] = { "KS_INSTANTS",
    "timestamp INTEGER NOT NULL, globalTid INTEGER, trackId INTEGER, globalPid INTEGER, "
    "nameId INTEGER, categoryId INTEGER, args TEXT",
    "CREATE INDEX KS_INSTANTS_time ON KS_INSTANTS (timestamp);" },
  [KS_KSCOPE_KS_FLOWS] = { "KS_FLOWS",
    "id INTEGER PRIMARY KEY, categoryId INTEGER, fromTimestamp INTEGER NOT NULL, "
    "fromGlobalTid INTEGER, toTimestamp INTEGER NOT NULL, toGlobalTid INTEGER, "
    "fromTrackId INTEGER, toTrackId INTEGER, kind INTEGER", NULL },
  [KS_KSCOPE_KS_COUNTERS] = { "KS_COUNTERS",
    "id INTEGER PRIMARY KEY, name TEXT NOT NULL, unit TEXT, deviceId INTEGER, "
    "globalPid INTEGER, description TEXT", NULL },
  [KS_KSCOPE_KS_COUNTER_SAMPLES] = { "KS_COUNTER_SAMPLES",
    "counterId INTEGER NOT NULL, timestamp INTEGER NOT NULL, value REAL",
    "CREATE INDEX KS_COUNTER_SAMPLES_counter ON KS_COUNTER_SAMPLES (counterId, timestamp);" },
  [KS_KSCOPE_KS_MEMORY_EVENTS] = { "KS_MEMORY_EVENTS",
    "timestamp INTEGER NOT NULL, globalTid INTEGER, deviceId INTEGER, address INTEGER, "
    "bytes INTEGER, totalAllocated INTEGER, totalReserved INTEGER",
    "CREATE INDEX KS_MEMORY_EVENTS_time ON KS_MEMORY_EVENTS (timestamp);" },
  [KS_KSCOPE_KS_DIAGNOSTICS] = { "KS_DIAGNOSTICS",
    "timestamp INTEGER, severity TEXT, source TEXT, text TEXT", NULL },
  /* Sampled call stacks, as Nsight stores its CPU samples: one event per
   * sample, one callchain row per frame (stackDepth 0 innermost).
   * lineNumber and callchainId are ours: the Python frame's current line,
   * and the SAMPLING_CALLCHAINS id of the sample's stack. Nsight's id of a
   * chain is its event's; ours is shared by every sample of the same
   * stack, written once, so SQL joins SAMPLING_CALLCHAINS.id =
   * COMPOSITE_EVENTS.callchainId (without the column: = id). waiting is
   * ours too: 1 when the thread was waiting (sleep, a lock, I/O, the GIL)
   * as it was sampled, 0 when it ran, NULL when not known. */
  [KS_KSCOPE_COMPOSITE_EVENTS] = { "COMPOSITE_EVENTS",
    "id INTEGER NOT NULL PRIMARY KEY, start INTEGER NOT NULL, cpu INTEGER, "
    "threadState INTEGER, globalTid INTEGER, cpuCycles INTEGER NOT NULL, callchainId INTEGER, "
    "waiting INTEGER",
    "CREATE INDEX COMPOSITE_EVENTS_thread ON COMPOSITE_EVENTS (globalTid, start);" },
  [KS_KSCOPE_SAMPLING_CALLCHAINS] = { "SAMPLING_CALLCHAINS",
    "id INTEGER NOT NULL, symbol INTEGER NOT NULL, module INTEGER NOT NULL, "
    "kernelMode INTEGER, thumbCode INTEGER, unresolved INTEGER, specialEntry INTEGER, "
    "originalIP INTEGER, unwindMethod INTEGER, stackDepth INTEGER NOT NULL, "
    "lineNumber INTEGER, PRIMARY KEY (id, stackDepth)", NULL },
  /* Thread time (CPU time, trace-event "tts"/"tdur") of the few slices
   * that have it: the slice on trackId spanning exactly [start, end)
   * (the outermost where several do, as KS_FLOWS ends bind), in any of
   * the slice tables; threadStart on the thread's CPU clock, NULL when
   * unknown, as threadDuration. Added in schema 1 without a new version:
   * a reader that does not know the table loses only the thread times. */
  [KS_KSCOPE_KS_SLICE_THREAD_TIMES] = { "KS_SLICE_THREAD_TIMES",
    "trackId INTEGER NOT NULL, start INTEGER NOT NULL, end INTEGER NOT NULL, "
    "threadStart INTEGER, threadDuration INTEGER", NULL },
  [KS_KSCOPE_KS_RANKS] = { "KS_RANKS",
    "globalPid INTEGER, groupId INTEGER, rank INTEGER NOT NULL, localRank INTEGER, "
    "worldSize INTEGER, localWorldSize INTEGER, host TEXT, file TEXT, backend TEXT, source TEXT", NULL },
};

const char * const ks_kscope_file_meta_keys[] = {
  KS_KSCOPE_META_PRODUCER, KS_KSCOPE_META_SOURCE_FORMAT, KS_KSCOPE_META_SOURCE_NAME,
  KS_KSCOPE_META_COMPLETE, KS_KSCOPE_META_DROPPED_RECORDS, KS_KSCOPE_META_CLOCK,
  NULL
};

typedef struct
{
  gint64 id;
  const char *name;
  const char *label;
} EnumRow;

/* Rows as Nsight Systems' own exports have them. */
static const EnumRow enum_mem_kind[] = {
  { 0, "CUDA_MEMOPR_MEMORY_KIND_PAGEABLE", "Pageable" },
  { 1, "CUDA_MEMOPR_MEMORY_KIND_PINNED", "Pinned" },
  { 2, "CUDA_MEMOPR_MEMORY_KIND_DEVICE", "Device" },
  { 3, "CUDA_MEMOPR_MEMORY_KIND_ARRAY", "Array" },
  { 4, "CUDA_MEMOPR_MEMORY_KIND_MANAGED", "Managed" },
  { 5, "CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC", "Device Static" },
  { 6, "CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC", "Managed Static" },
  { 7, "CUDA_MEMOPR_MEMORY_KIND_UNKNOWN", "Unknown" },
  { 0, NULL, NULL }
};

static const EnumRow enum_memcpy_oper[] = {
  { 0, "CUDA_MEMCPY_KIND_UNKNOWN", "Unknown" },
  { 1, "CUDA_MEMCPY_KIND_HTOD", "Host-to-Device" },
  { 2, "CUDA_MEMCPY_KIND_DTOH", "Device-to-Host" },
  { 3, "CUDA_MEMCPY_KIND_HTOA", "Host-to-Array" },
  { 4, "CUDA_MEMCPY_KIND_ATOH", "Array-to-Host" },
  { 5, "CUDA_MEMCPY_KIND_ATOA", "Array-to-Array" },
  { 6, "CUDA_MEMCPY_KIND_ATOD", "Array-to-Device" },
  { 7, "CUDA_MEMCPY_KIND_DTOA", "Device-to-Array" },
  { 8, "CUDA_MEMCPY_KIND_DTOD", "Device-to-Device" },
  { 9, "CUDA_MEMCPY_KIND_HTOH", "Host-to-Host" },
  { 10, "CUDA_MEMCPY_KIND_PTOP", "Peer-to-Peer" },
  { 11, "CUDA_MEMCPY_KIND_UVM_HTOD", "Unified Host-to-Device" },
  { 12, "CUDA_MEMCPY_KIND_UVM_DTOH", "Unified Device-to-Host" },
  { 13, "CUDA_MEMCPY_KIND_UVM_DTOD", "Unified Device-to-Device" },
  { 0, NULL, NULL }
};

static const EnumRow enum_sync_type[] = {
  { 0, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN", "Unknown" },
  { 1, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE", "Event sync" },
  { 2, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT", "Stream wait sync" },
  { 3, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE", "Stream sync" },
  { 4, "CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE", "Context sync" },
  { 0, NULL, NULL }
};

static const EnumRow enum_launch_type[] = {
  { 0, "CUDA_KERNEL_LAUNCH_TYPE_UNKNOWN", "Unknown" },
  { 1, "CUDA_KERNEL_LAUNCH_TYPE_REGULAR", "Regular" },
  { 2, "CUDA_KERNEL_LAUNCH_TYPE_COOPERATIVE_SINGLE_DEVICE", "Coop Single Device" },
  { 3, "CUDA_KERNEL_LAUNCH_TYPE_COOPERATIVE_MULTI_DEVICE", "Coop Multi Device" },
  { 0, NULL, NULL }
};

static const EnumRow enum_stream_type[] = {
  { 0, "CUPTI_ACTIVITY_STREAM_CREATE_FLAG_UNKNOWN", "Unknown stream type" },
  { 1, "CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT", "Default stream" },
  { 2, "CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING", "Non-blocking stream" },
  { 3, "CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL", "Null stream" },
  { 0, NULL, NULL }
};

static const EnumRow enum_event_class[] = {
  { 0, "TRACE_PROCESS_EVENT_CUDA_RUNTIME", "CUDA runtime" },
  { 1, "TRACE_PROCESS_EVENT_CUDA_DRIVER", "CUDA driver" },
  { 13, "TRACE_PROCESS_EVENT_CUDA_EGL_DRIVER", "CUDA EGL driver" },
  { 27, "TRACE_PROCESS_EVENT_OS_RUNTIME", "OSRT runtime" },
  { 28, "TRACE_PROCESS_EVENT_CUDNN", "cuDNN" },
  { 29, "TRACE_PROCESS_EVENT_CUBLAS", "cuBLAS" },
  { 31, "TRACE_PROCESS_EVENT_OS_RUNTIME_START", "OSRT start" },
  { 32, "TRACE_PROCESS_EVENT_OS_RUNTIME_FINISH", "OSRT finish" },
  { 0, NULL, NULL }
};

static const EnumRow enum_event_type[] = {
  { 33, "NvtxCategory", "NvtxCategory" },
  { 34, "NvtxMark", "NvtxMark" },
  { 39, "NvtxThread", "NvtxThread" },
  { 59, "NvtxPushPopRange", "NvtxPushPopRange" },
  { 60, "NvtxStartEndRange", "NvtxStartEndRange" },
  { 70, "NvtxtPushPopRange", "NvtxtPushPopRange" },
  { 71, "NvtxtStartEndRange", "NvtxtStartEndRange" },
  { 75, "NvtxDomainCreate", "NvtxDomainCreate" },
  { 76, "NvtxDomainDestroy", "NvtxDomainDestroy" },
  { 0, NULL, NULL }
};

typedef struct
{
  const char *name;
  const EnumRow *rows;
} EnumTable;

static const EnumTable enum_tables[] = {
  { "ENUM_CUDA_MEM_KIND", enum_mem_kind },
  { "ENUM_CUDA_MEMCPY_OPER", enum_memcpy_oper },
  { "ENUM_CUPTI_SYNC_TYPE", enum_sync_type },
  { "ENUM_CUDA_KERNEL_LAUNCH_TYPE", enum_launch_type },
  { "ENUM_CUPTI_STREAM_TYPE", enum_stream_type },
  { "ENUM_NSYS_EVENT_CLASS", enum_event_class },
  { "ENUM_NSYS_EVENT_TYPE", enum_event_type },
};

/* KS_SLICES.kind: the model's KsSliceKind */
static const char * const slice_kind_labels[KS_N_SLICE_KINDS] = {
  "Generic", "CPU operator", "Python function", "User annotation", "CUDA runtime",
  "CUDA driver", "NVTX range", "OS runtime", "Async", "GPU annotation", "Kernel",
  "Memcpy", "Memset", "Synchronization", "Python sample",
};

gboolean
ks_kscope_severity_is_problem (const char *severity)
{
  return severity != NULL &&
         (g_ascii_strcasecmp (severity, KS_KSCOPE_SEVERITY_WARNING) == 0 ||
          g_ascii_strcasecmp (severity, KS_KSCOPE_SEVERITY_ERROR) == 0);
}

const char *
ks_kscope_producer (void)
{
  return "kinescope-cli " PACKAGE_VERSION;
}

gint64
ks_kscope_mem_kind_from_cupti (guint kind)
{
  if (kind == 0 || kind > 7)
    return KS_KSCOPE_MEM_KIND_UNKNOWN;
  return (gint64)kind - 1;
}

guint
ks_kscope_mem_kind_to_cupti (gint64 kind)
{
  if (kind < 0 || kind >= KS_KSCOPE_MEM_KIND_UNKNOWN)
    return 0;
  return (guint)kind + 1;
}

gint64
ks_kscope_copy_kind_from_cupti (guint kind)
{
  return kind <= 10 ? (gint64)kind : 0;
}

gint64
ks_kscope_sync_type_from_cupti (guint type)
{
  return type <= 4 ? (gint64)type : 0;
}

gint64
ks_kscope_launch_type_from_cupti (guint type)
{
  return type <= 2 ? (gint64)type + 1 : 0;
}

gint64
ks_kscope_stream_flag_from_cupti (guint flag)
{
  return flag <= 3 ? (gint64)flag : 0;
}

const char *
ks_kscope_table_name (KsKscopeTable table)
{
  g_return_val_if_fail (table < KS_KSCOPE_N_TABLES, NULL);

  return tables[table].name;
}

int
ks_kscope_schema_identify (sqlite3 *db)
{
  g_autofree char *sql = g_strdup_printf ("PRAGMA application_id = %d; PRAGMA user_version = %d;",
                                          KS_KSCOPE_APPLICATION_ID, KS_KSCOPE_FORMAT_VERSION);

  return sqlite3_exec (db, sql, NULL, NULL, NULL);
}

int
ks_kscope_schema_create_table (sqlite3       *db,
                               KsKscopeTable  table)
{
  g_autofree char *sql = NULL;

  g_return_val_if_fail (table < KS_KSCOPE_N_TABLES, SQLITE_MISUSE);

  sql = g_strdup_printf ("CREATE TABLE %s (%s)", tables[table].name, tables[table].columns);
  return sqlite3_exec (db, sql, NULL, NULL, NULL);
}

int
ks_kscope_schema_prepare_insert (sqlite3        *db,
                                 KsKscopeTable   table,
                                 const char     *columns,
                                 sqlite3_stmt  **stmt)
{
  g_auto(GStrv) items = NULL;
  g_autoptr(GString) names = NULL;
  g_autoptr(GString) values = NULL;
  g_autofree char *sql = NULL;

  g_return_val_if_fail (table < KS_KSCOPE_N_TABLES, SQLITE_MISUSE);

  names = g_string_new (NULL);
  values = g_string_new (NULL);

  if (columns != NULL)
    {
      items = g_strsplit (columns, ",", -1);
      for (guint i = 0; items[i] != NULL; i++)
        {
          char *item = g_strstrip (items[i]);
          char *eq = strchr (item, '=');

          g_string_append (names, i > 0 ? ", " : " (");
          if (i > 0)
            g_string_append (values, ", ");
          if (eq != NULL)
            {
              *eq = '\0';
              g_string_append (names, g_strchomp (item));
              g_string_append (values, g_strchug (eq + 1));
            }
          else
            {
              g_string_append (names, item);
              g_string_append_c (values, '?');
            }
        }
      g_string_append_c (names, ')');
    }
  else
    {
      /* The definitions hold no commas but those between columns. */
      for (const char *p = tables[table].columns; *p; p++)
        if (*p == ',')
          g_string_append (values, "?, ");
      g_string_append_c (values, '?');
    }

  /* KS_META holds one value per name: a later one replaces it. */
  sql = g_strdup_printf ("INSERT%s INTO %s%s VALUES (%s)",
                         table == KS_KSCOPE_META ? " OR REPLACE" : "",
                         tables[table].name, names->str, values->str);
  return sqlite3_prepare_v3 (db, sql, -1, SQLITE_PREPARE_PERSISTENT, stmt, NULL);
}

int
ks_kscope_schema_create_indexes (sqlite3       *db,
                                 KsKscopeTable  table)
{
  g_return_val_if_fail (table < KS_KSCOPE_N_TABLES, SQLITE_MISUSE);

  if (tables[table].indexes == NULL)
    return SQLITE_OK;
  return sqlite3_exec (db, tables[table].indexes, NULL, NULL, NULL);
}

static void
append_enum_table (GString    *sql,
                   const char *name)
{
  g_string_append_printf (sql, "CREATE TABLE %s (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);",
                          name);
}

int
ks_kscope_schema_write_enums (sqlite3 *db)
{
  g_autoptr(GString) sql = g_string_new (NULL);

  for (guint i = 0; i < G_N_ELEMENTS (enum_tables); i++)
    {
      append_enum_table (sql, enum_tables[i].name);
      for (const EnumRow *row = enum_tables[i].rows; row->name != NULL; row++)
        g_string_append_printf (sql, "INSERT INTO %s VALUES (%" G_GINT64_FORMAT ", '%s', '%s');",
                                enum_tables[i].name, row->id, row->name, row->label);
    }

  append_enum_table (sql, "ENUM_KS_SLICE_KIND");
  for (guint i = 0; i < KS_N_SLICE_KINDS; i++)
    g_string_append_printf (sql, "INSERT INTO ENUM_KS_SLICE_KIND VALUES (%u, '%s', '%s');",
                            i, ks_slice_kind_to_string (i), slice_kind_labels[i]);

  return sqlite3_exec (db, sql->str, NULL, NULL, NULL);
}
