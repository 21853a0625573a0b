/* ks-kscope-schema.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>
#include <sqlite3.h>

G_BEGIN_DECLS

/* The .kscope schema (TRACE_FORMAT.md, docs/kscope-format.md), in one
 * place for every writer: ks_kscope_write() saving a loaded trace and the
 * recorder writing while a program runs. Table definitions, ENUM_* rows,
 * indexes, KS_META keys and id encodings live here only, so that files
 * from both writers have the same tables with the same columns. */

/* application id "KSCO", schema version 1 */
#define KS_KSCOPE_APPLICATION_ID 0x4B53434F
#define KS_KSCOPE_FORMAT_VERSION 1

typedef enum
{
  KS_KSCOPE_STRING_IDS,
  KS_KSCOPE_PROCESSES,
  KS_KSCOPE_THREAD_NAMES,
  KS_KSCOPE_SESSION_START,
  KS_KSCOPE_ANALYSIS_DETAILS,
  KS_KSCOPE_GPU,
  KS_KSCOPE_CUDA_STREAM,
  KS_KSCOPE_KERNEL,
  KS_KSCOPE_MEMCPY,
  KS_KSCOPE_MEMSET,
  KS_KSCOPE_RUNTIME,
  KS_KSCOPE_SYNC,
  KS_KSCOPE_NVTX,
  KS_KSCOPE_OSRT,
  KS_KSCOPE_CAPTURE,
  KS_KSCOPE_META,
  KS_KSCOPE_KS_PROCESSES,
  KS_KSCOPE_KS_THREADS,
  KS_KSCOPE_KS_TRACKS,
  KS_KSCOPE_KS_SLICES,
  KS_KSCOPE_KS_INSTANTS,
  KS_KSCOPE_KS_FLOWS,
  KS_KSCOPE_KS_COUNTERS,
  KS_KSCOPE_KS_COUNTER_SAMPLES,
  KS_KSCOPE_KS_MEMORY_EVENTS,
  KS_KSCOPE_KS_DIAGNOSTICS,
  KS_KSCOPE_COMPOSITE_EVENTS,
  KS_KSCOPE_SAMPLING_CALLCHAINS,
  KS_KSCOPE_KS_SLICE_THREAD_TIMES,
  KS_KSCOPE_KS_RANKS,
  KS_KSCOPE_KS_CUDA_MEMORY_SNAPSHOTS,
  KS_KSCOPE_N_TABLES
} KsKscopeTable;

/* KS_META keys */
#define KS_KSCOPE_META_FORMAT_VERSION  "format_version"
#define KS_KSCOPE_META_PRODUCER        "producer"
#define KS_KSCOPE_META_SOURCE_FORMAT   "source_format"
#define KS_KSCOPE_META_SOURCE_NAME     "source_name"
#define KS_KSCOPE_META_COMPLETE        "complete"
#define KS_KSCOPE_META_DROPPED_RECORDS "dropped_records"
#define KS_KSCOPE_META_CLOCK           "clock"
#define KS_KSCOPE_META_ORIGIN_NS       "origin_ns"
/* what the Python side of a recording turned on (KINESCOPE_PYTHON) */
#define KS_KSCOPE_META_PYTHON          "python"
/* why a recording ended (kinescope-cli record); a loaded trace has it in
 * its metadata, and a copy keeps it as "metadata.end_reason" */
#define KS_KSCOPE_META_END_REASON      "end_reason"
/* one KS_META row per metadata entry of a trace: "metadata.KEY" */
#define KS_KSCOPE_META_METADATA_PREFIX "metadata."

/* The keys that describe the file rather than the trace; a loaded trace
 * has them in its metadata under the same names. NULL-terminated. */
extern const char * const ks_kscope_file_meta_keys[];

/* KS_DIAGNOSTICS.severity */
#define KS_KSCOPE_SEVERITY_INFO    "info"
#define KS_KSCOPE_SEVERITY_WARNING "warning"
#define KS_KSCOPE_SEVERITY_ERROR   "error"

gboolean     ks_kscope_severity_is_problem     (const char     *severity);

/* "kinescope-cli VERSION" */
const char  *ks_kscope_producer                (void);

/* globalTid = (hw << 56) | (vm << 48) | (pid << 24) | tid; globalPid has
 * tid 0. Kinescope writes hardware and VM ids 0. */
#define KS_GID_PID_SHIFT 24
#define KS_GID_MASK      G_GINT64_CONSTANT (0xffffff)
#define KS_GID_LIMIT     G_GINT64_CONSTANT (0x1000000)

static inline gint64
ks_kscope_global_pid (gint64 pid)
{
  return (pid & KS_GID_MASK) << KS_GID_PID_SHIFT;
}

static inline gint64
ks_kscope_global_tid (gint64 pid,
                      gint64 tid)
{
  return ks_kscope_global_pid (pid) | (tid & KS_GID_MASK);
}

static inline gint64
ks_kscope_pid_of (gint64 gid)
{
  return (gid >> KS_GID_PID_SHIFT) & KS_GID_MASK;
}

/* ENUM_CUDA_MEM_KIND: Nsight counts from Pageable = 0 and puts Unknown
 * at 7; CUPTI (and the model's KsMemoryKind) has Unknown = 0. */
#define KS_KSCOPE_MEM_KIND_UNKNOWN 7

gint64       ks_kscope_mem_kind_from_cupti     (guint           kind);
guint        ks_kscope_mem_kind_to_cupti       (gint64          kind);
/* ENUM_CUDA_MEMCPY_OPER: the same numbers as CUPTI for 0 … 10; Nsight
 * adds 11 … 13 for unified memory migrations. */
gint64       ks_kscope_copy_kind_from_cupti    (guint           kind);
/* ENUM_CUPTI_SYNC_TYPE: CUPTI's numbers. */
gint64       ks_kscope_sync_type_from_cupti    (guint           type);
/* ENUM_CUDA_KERNEL_LAUNCH_TYPE: Nsight has Unknown = 0, Regular = 1;
 * CUPTI starts at Regular = 0. */
gint64       ks_kscope_launch_type_from_cupti  (guint           type);
/* ENUM_CUPTI_STREAM_TYPE: CUPTI's numbers. */
gint64       ks_kscope_stream_flag_from_cupti  (guint           flag);

const char  *ks_kscope_table_name              (KsKscopeTable   table);

/* Functions that touch the database return an SQLite result code. */

/* The application id and user_version pragmas. */
int          ks_kscope_schema_identify         (sqlite3        *db);
int          ks_kscope_schema_create_table     (sqlite3        *db,
                                                KsKscopeTable   table);
/* @columns lists the columns to fill, comma-separated; "name = SQL" puts
 * a constant (without commas) in that column, every other name gets a
 * parameter, numbered in the order of @columns. Columns left out are
 * NULL. With @columns NULL every column gets a parameter, in the order of
 * the table. KS_META rows replace an earlier row of the same name. */
int          ks_kscope_schema_prepare_insert   (sqlite3        *db,
                                                KsKscopeTable   table,
                                                const char     *columns,
                                                sqlite3_stmt  **stmt);
/* The indexes of @table; run once its rows are written. */
int          ks_kscope_schema_create_indexes   (sqlite3        *db,
                                                KsKscopeTable   table);
/* Every ENUM_* table with its rows. */
int          ks_kscope_schema_write_enums      (sqlite3        *db);

G_END_DECLS
