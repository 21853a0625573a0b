/* ks-sqlite-kscope.c: the KS_* tables of a .kscope
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a .kscope holds beyond the Nsight tables it shares with an export
 * (ks-sqlite-nsight.c): its metadata, processes, threads and tracks as
 * they were saved, the other slices, instants, flows, counters, memory
 * events and diagnostics (docs/kscope-format.md).
 */

#define G_LOG_DOMAIN "ks-sqlite-reader"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ks-sqlite-reader-private.h"

/* KS_META */

gboolean
_ks_sqlite_kscope_load_meta (KsSqliteReader  *r,
                             GError         **error)
{
  static const char * const columns[] = { "name", "value" };
  sqlite3_stmt *stmt;
  KsSqliteResult found;
  gboolean failed = FALSE;

  if ((found = _ks_sqlite_select (r, "KS_META", columns, 2, 2, NULL, &stmt, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;

  while (ks_sqlite_next_row (r, stmt, &failed, error))
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

          r->shift = CLAMP (origin, -KS_SQLITE_TS_LIMIT, KS_SQLITE_TS_LIMIT);
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

  return ks_sqlite_finish (stmt, failed);
}

/* A recording that says complete = 0 was cut short; its end_reason (as
 * kinescope-cli record writes it, src/cli/ks-cli-record.c) says how. */
void
_ks_sqlite_kscope_warn_cut_short (KsSqliteReader *r)
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

/* The processes as saved; ABSENT sends the reader to Nsight's PROCESSES. */
KsSqliteResult
_ks_sqlite_kscope_load_processes (KsSqliteReader  *r,
                                  GError         **error)
{
  static const char * const columns[] = {
    "globalPid", "pid", "originalPid", "name", "label", "sortIndex", "groupId",
  };
  sqlite3_stmt *stmt;
  KsSqliteResult found;
  gboolean failed = FALSE;

  if ((found = _ks_sqlite_select (r, "KS_PROCESSES", columns, G_N_ELEMENTS (columns), 2, NULL,
                                  &stmt, error)) != KS_SQLITE_READ)
    return found;

  r->have_ks_processes = TRUE;
  while (ks_sqlite_next_row (r, stmt, &failed, error))
    {
      gint64 gpid = ks_sqlite_gid_process (col_i64 (stmt, 0));
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
      _ks_sqlite_register_process (r, gpid, process, group);
      r->next_group = MAX (r->next_group, group + 1);
    }

  return ks_sqlite_finish (stmt, failed) ? KS_SQLITE_READ : KS_SQLITE_FAILED;
}

/* The threads as saved; ABSENT sends the reader to Nsight's ThreadNames. */
KsSqliteResult
_ks_sqlite_kscope_load_threads (KsSqliteReader  *r,
                                GError         **error)
{
  static const char * const columns[] = {
    "globalTid", "tid", "originalTid", "name", "sortIndex", "globalPid",
  };
  sqlite3_stmt *stmt;
  KsSqliteResult found;
  gboolean failed = FALSE;

  if ((found = _ks_sqlite_select (r, "KS_THREADS", columns, G_N_ELEMENTS (columns), 2, NULL,
                                  &stmt, error)) != KS_SQLITE_READ)
    return found;

  r->have_ks_threads = TRUE;
  while (ks_sqlite_next_row (r, stmt, &failed, error))
    {
      gint64 gtid = col_i64 (stmt, 0);
      gint64 gpid = col_null (stmt, 5) ? ks_sqlite_gid_process (gtid) : col_i64 (stmt, 5);
      KsSqliteProc *proc;
      guint32 thread;

      if (g_hash_table_contains (r->threads, &gtid))
        continue;
      proc = _ks_sqlite_reader_process (r, gpid);
      thread = ks_trace_builder_get_thread (r->b, proc->process, col_i64 (stmt, 1));
      ks_trace_builder_set_thread_info (r->b, thread,
                                        (const char *)sqlite3_column_text (stmt, 3),
                                        (const char *)sqlite3_column_text (stmt, 2),
                                        col_null (stmt, 4) ? G_MININT32 : (gint32)col_i64 (stmt, 4));
      _ks_sqlite_register_thread (r, gtid, thread);
    }

  return ks_sqlite_finish (stmt, failed) ? KS_SQLITE_READ : KS_SQLITE_FAILED;
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
gboolean
_ks_sqlite_kscope_load_tracks (KsSqliteReader  *r,
                               GError         **error)
{
  static const char * const columns[] = {
    "id", "kind", "name", "globalPid", "globalTid", "deviceId", "streamId", "sortIndex", "groupId",
  };
  sqlite3_stmt *stmt;
  KsSqliteResult found;
  gboolean failed = FALSE;
  gint64 n = _ks_sqlite_table_rows (r, "KS_TRACKS");

  if ((found = _ks_sqlite_select (r, "KS_TRACKS", columns, G_N_ELEMENTS (columns), 2, NULL, &stmt, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;

  /* Our ids count from 0; anything else is refused rather than allocated. */
  r->n_track_map = (guint32)MIN (n + 1, 1 << 24);
  r->track_map = g_new (guint32, MAX (r->n_track_map, 1));
  memset (r->track_map, 0xff, sizeof (guint32) * MAX (r->n_track_map, 1));
  r->orphan_streams = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  while (ks_sqlite_next_row (r, stmt, &failed, error))
    {
      gint64 id = col_i64 (stmt, 0);
      KsTrackKind kind = track_kind_from_string ((const char *)sqlite3_column_text (stmt, 1));
      const char *name = (const char *)sqlite3_column_text (stmt, 2);
      guint32 group = col_u32 (stmt, 8);
      gint64 device = CLAMP (col_i64 (stmt, 5), G_MININT32, G_MAXINT32);
      gint64 stream = col_i64 (stmt, 6) == KS_NSYS_NO_STREAM ? -1 : col_i64 (stmt, 6);
      guint32 track = KS_SQLITE_NONE;

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
          track = _ks_sqlite_reader_thread (r, col_i64 (stmt, 4));
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
              char *key = ks_sqlite_orphan_stream_key (device, stream);

              if (!g_hash_table_contains (r->orphan_streams, key))
                g_hash_table_insert (r->orphan_streams, key, GUINT_TO_POINTER (group));
              else
                g_free (key);
            }
          break;

        case KS_TRACK_ASYNC:
          {
            guint32 process = col_null (stmt, 3) ? KS_SQLITE_NONE : _ks_sqlite_reader_process (r, col_i64 (stmt, 3))->process;

            if (process == KS_SQLITE_NONE)
              break;
            ks_trace_builder_set_group (r->b, group);
            track = ks_trace_builder_get_async_track (r->b, process, name);
          }
          break;

        case KS_TRACK_SAMPLES:

        case KS_N_TRACK_KINDS:
        default:
          break;
        }

      if (track == KS_SQLITE_NONE)
        {
          r->skipped++;
          continue;
        }

      r->track_map[id] = track;
      if (!col_null (stmt, 7))
        ks_trace_builder_set_track_sort_index (r->b, track, (gint32)col_i64 (stmt, 7));
    }

  return ks_sqlite_finish (stmt, failed);
}

static guint32
mapped_track (KsSqliteReader    *r,
              const KsSqliteRow *row,
              int                track_col,
              int                gtid_col)
{
  if (!row_null (row, track_col))
    {
      gint64 id = row_i64 (row, track_col);

      if (id >= 0 && id < r->n_track_map && r->track_map[id] != KS_SQLITE_NONE)
        return r->track_map[id];
    }
  if (gtid_col >= 0 && !row_null (row, gtid_col))
    return ks_trace_builder_get_thread_track (r->b, _ks_sqlite_reader_thread (r, row_i64 (row, gtid_col)));
  return KS_SQLITE_NONE;
}

/* Slices */

/* Rows known to name their track (trackId IS NOT NULL). */
static guint32
ks_slice_track_by_id (KsSqliteReader    *r,
                      const KsSqliteRow *row)
{
  gint64 id = row_i64 (row, 3);

  if (id >= 0 && id < r->n_track_map && r->track_map[id] != KS_SQLITE_NONE)
    return r->track_map[id];
  return KS_SQLITE_NONE;
}

static guint32
ks_slice_track (KsSqliteReader    *r,
                const KsSqliteRow *row)
{
  return mapped_track (r, row, 3, 2);
}

static void
ks_slice_emit (KsSqliteReader    *r,
               const KsSqliteRow *row,
               guint32            track,
               gint64             start,
               gint64             end)
{
  gint64 kind = row_i64 (row, 4);

  if (kind < 0 || kind >= KS_N_SLICE_KINDS)
    kind = KS_SLICE_GENERIC;
  add_slice (r, track, start, end, kind, sid (r, row_i64 (row, 5)), sid (r, row_i64 (row, 6)),
             row_u32 (row, 7), row_u32 (row, 8), row_args (r, row, 9), NULL);
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

/* Whether some KS_SLICES row lacks a track (older files). Usually none
 * does, and the slices are then read without a WHERE that tests every
 * row; an error here takes the careful way. */
static gboolean
slices_without_track (KsSqliteReader *r)
{
  sqlite3_stmt *stmt = NULL;
  int rc = SQLITE_ERROR;

  if (sqlite3_prepare_v2 (r->db, "SELECT 1 FROM KS_SLICES WHERE trackId IS NULL LIMIT 1", -1, &stmt,
                          NULL) == SQLITE_OK)
    rc = sqlite3_step (stmt);
  sqlite3_finalize (stmt);
  return rc != SQLITE_DONE;
}

/* KS_SLICES: the slices that no Nsight table holds. */
gboolean
_ks_sqlite_kscope_add_slice_sources (KsSqliteReader   *r,
                                     KsSqliteSources  *sources,
                                     GError          **error)
{
  GHashTable *columns;
  KsSqliteResult found;
  gboolean by_track;

  if ((found = _ks_sqlite_table_columns (r, "KS_SLICES", &columns, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;
  by_track = r->track_map != NULL && g_hash_table_contains (columns, "trackId");

#define ADD(columns, where, track_func)                                                            \
  _ks_sqlite_add_source (r, sources, "KS_SLICES", columns, G_N_ELEMENTS (columns), 2, where,       \
                         track_func, ks_slice_emit, error)

#define ADD_RUNS(where)                                                                            \
  _ks_sqlite_add_runs_source (r, sources, "KS_SLICES", ks_slice_track_columns,                     \
                              G_N_ELEMENTS (ks_slice_track_columns), where, ks_slice_track_by_id,  \
                              ks_slice_emit, error)

  if (by_track && !slices_without_track (r))
    return ADD_RUNS (NULL);
  if (by_track)
    return ADD_RUNS ("trackId IS NOT NULL") &&
           ADD (ks_slice_columns, "trackId IS NULL", ks_slice_track);
  return ADD (ks_slice_columns, NULL, ks_slice_track);

#undef ADD
#undef ADD_RUNS
}

/* Instants, flows, counters, memory events, diagnostics */

gboolean
_ks_sqlite_kscope_load_instants (KsSqliteReader  *r,
                                 GError         **error)
{
  static const char * const columns[] = {
    "timestamp", "globalTid", "trackId", "globalPid", "nameId", "categoryId", "args",
  };
  KsSqliteScan *scan;
  KsSqliteRow row;
  KsSqliteResult found;
  gboolean failed;

  if ((found = _ks_sqlite_scan_open (r, "KS_INSTANTS", columns, G_N_ELEMENTS (columns), 1, "iiiiiia", NULL,
                                     &scan, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;

  KS_SQLITE_SCAN_ROWS (r, scan, row, failed, error)
    {
      KsInstant inst = { 0 };

      inst.ts = row_ts (r, &row, 0);
      inst.track = mapped_track (r, &row, 2, 1);
      inst.process = row_null (&row, 3) ? KS_NO_INDEX : _ks_sqlite_reader_process (r, row_i64 (&row, 3))->process;
      inst.name = sid (r, row_i64 (&row, 4));
      inst.category = sid (r, row_i64 (&row, 5));
      inst.args = row_args (r, &row, 6);
      ks_trace_builder_add_instant (r->b, &inst);
    }

  _ks_sqlite_scan_free (scan);
  return !failed;
}

gboolean
_ks_sqlite_kscope_load_thread_times (KsSqliteReader  *r,
                                     GError         **error)
{
  static const char * const columns[] = { "trackId", "start", "end", "threadStart", "threadDuration" };
  KsSqliteScan *scan;
  KsSqliteRow row;
  KsSqliteResult found;
  gboolean failed;

  if ((found = _ks_sqlite_scan_open (r, "KS_SLICE_THREAD_TIMES", columns, G_N_ELEMENTS (columns), 3, "iiiii", NULL,
                                     &scan, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;

  KS_SQLITE_SCAN_ROWS (r, scan, row, failed, error)
    {
      guint32 track = mapped_track (r, &row, 0, -1);

      if (track == KS_SQLITE_NONE)
        {
          r->skipped++;
          continue;
        }
      ks_trace_builder_add_thread_time (r->b, track, row_ts (r, &row, 1), row_ts (r, &row, 2),
                                        row_null (&row, 3) ? G_MININT64 : row_i64 (&row, 3),
                                        row_null (&row, 4) ? -1 : MAX (row_i64 (&row, 4), -1));
    }

  _ks_sqlite_scan_free (scan);
  return !failed;
}

gboolean
_ks_sqlite_kscope_load_flows (KsSqliteReader  *r,
                              GError         **error)
{
  static const char * const columns[] = {
    "fromTimestamp", "toTimestamp", "fromGlobalTid", "toGlobalTid", "categoryId",
    "fromTrackId", "toTrackId", "kind",
  };
  KsSqliteScan *scan;
  KsSqliteRow row;
  KsSqliteResult found;
  gboolean failed;

  if ((found = _ks_sqlite_scan_open (r, "KS_FLOWS", columns, G_N_ELEMENTS (columns), 2, "iiiiiiii", NULL,
                                     &scan, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;

  KS_SQLITE_SCAN_ROWS (r, scan, row, failed, error)
    {
      guint32 from = mapped_track (r, &row, 5, 2);
      guint32 to = mapped_track (r, &row, 6, 3);

      if (from == KS_SQLITE_NONE || to == KS_SQLITE_NONE)
        {
          r->skipped++;
          continue;
        }

      ks_trace_builder_add_flow (r->b, from, row_ts (r, &row, 0), to, row_ts (r, &row, 1),
                                 sid (r, row_i64 (&row, 4)),
                                 row_i64 (&row, 7) == KS_FLOW_LAUNCH ? KS_FLOW_LAUNCH : KS_FLOW_OTHER);
    }

  _ks_sqlite_scan_free (scan);
  return !failed;
}

gboolean
_ks_sqlite_kscope_load_counters (KsSqliteReader  *r,
                                 GError         **error)
{
  static const char * const columns[] = { "id", "name", "unit", "deviceId", "globalPid" };
  static const char * const sample_columns[] = { "counterId", "timestamp", "value" };
  g_autoptr(GHashTable) ids = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  sqlite3_stmt *stmt;
  KsSqliteScan *scan;
  KsSqliteRow row;
  KsSqliteResult found;
  gboolean failed = FALSE;
  gint64 last_id = G_MININT64;
  guint32 last_counter = KS_SQLITE_NONE;

  if ((found = _ks_sqlite_select (r, "KS_COUNTERS", columns, G_N_ELEMENTS (columns), 2, NULL, &stmt, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;

  while (ks_sqlite_next_row (r, stmt, &failed, error))
    {
      gint64 *key = g_new (gint64, 1);
      guint32 process = col_null (stmt, 4) ? KS_NO_INDEX : _ks_sqlite_reader_process (r, col_i64 (stmt, 4))->process;
      gint32 device = col_null (stmt, 3) ? -1 : (gint32)CLAMP (col_i64 (stmt, 3), G_MININT32, G_MAXINT32);
      guint32 counter = ks_trace_builder_get_counter (r->b,
                                                      (const char *)sqlite3_column_text (stmt, 1),
                                                      (const char *)sqlite3_column_text (stmt, 2),
                                                      device, process);

      *key = col_i64 (stmt, 0);
      g_hash_table_insert (ids, key, GUINT_TO_POINTER (counter + 1));
    }
  if (!ks_sqlite_finish (stmt, failed))
    return FALSE;

  if ((found = _ks_sqlite_scan_open (r, "KS_COUNTER_SAMPLES", sample_columns, 3, 2, "iir", NULL,
                                     &scan, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;

  KS_SQLITE_SCAN_ROWS (r, scan, row, failed, error)
    {
      gint64 id = row_i64 (&row, 0);

      if (id != last_id)
        {
          gpointer value = g_hash_table_lookup (ids, &id);

          last_id = id;
          last_counter = value ? GPOINTER_TO_UINT (value) - 1 : KS_SQLITE_NONE;
        }
      if (last_counter == KS_SQLITE_NONE)
        {
          r->skipped++;
          continue;
        }
      /* NULL (what SQLite makes of NaN), text, or 1e999 read as infinity */
      if (row_null (&row, 2) || !isfinite (row_double (&row, 2)))
        {
          r->null_values++;
          continue;
        }
      ks_trace_builder_add_counter_sample (r->b, last_counter, row_ts (r, &row, 1), row_double (&row, 2));
    }

  _ks_sqlite_scan_free (scan);
  return !failed;
}

gboolean
_ks_sqlite_kscope_load_memory_events (KsSqliteReader  *r,
                                      GError         **error)
{
  static const char * const columns[] = {
    "timestamp", "globalTid", "deviceId", "address", "bytes", "totalAllocated", "totalReserved",
  };
  KsSqliteScan *scan;
  KsSqliteRow row;
  KsSqliteResult found;
  gboolean failed;

  if ((found = _ks_sqlite_scan_open (r, "KS_MEMORY_EVENTS", columns, G_N_ELEMENTS (columns), 1, "iiiiiii", NULL,
                                     &scan, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;

  KS_SQLITE_SCAN_ROWS (r, scan, row, failed, error)
    {
      KsMemoryEvent ev = { 0 };

      ev.ts = row_ts (r, &row, 0);
      ev.device = row_null (&row, 2) ? -1 : (gint16)row_i64 (&row, 2);
      ev.address = (guint64)row_i64 (&row, 3);
      ev.bytes = row_i64 (&row, 4);
      ev.total_allocated = row_null (&row, 5) ? -1 : row_i64 (&row, 5);
      ev.total_reserved = row_null (&row, 6) ? -1 : row_i64 (&row, 6);
      /* A caching-allocator event that did not know its thread names
       * only its process (tid 0): the builder finds the thread. */
      if (!row_null (&row, 1) && ev.total_reserved >= 0 && (row_i64 (&row, 1) & KS_GID_MASK) == 0)
        {
          ev.thread = KS_NO_INDEX;
          ks_trace_builder_add_process_memory_event (r->b, &ev, _ks_sqlite_reader_process (r, row_i64 (&row, 1))->process);
        }
      else
        {
          ev.thread = row_null (&row, 1) ? KS_NO_INDEX : _ks_sqlite_reader_thread (r, row_i64 (&row, 1));
          ks_trace_builder_add_memory_event (r->b, &ev);
        }
    }

  _ks_sqlite_scan_free (scan);
  return !failed;
}

gboolean
_ks_sqlite_kscope_load_diagnostics (KsSqliteReader  *r,
                                    GError         **error)
{
  static const char * const columns[] = { "severity", "text" };
  sqlite3_stmt *stmt;
  KsSqliteResult found;
  gboolean failed = FALSE;

  if ((found = _ks_sqlite_select (r, "KS_DIAGNOSTICS", columns, 2, 2, NULL, &stmt, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;

  while (ks_sqlite_next_row (r, stmt, &failed, error))
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

  return ks_sqlite_finish (stmt, failed);
}


/* KS_RANKS: the rank of each process of a recording (RANK / LOCAL_RANK of
 * its environment), or of each file of a converted folder (groupId). */
gboolean
_ks_sqlite_kscope_load_ranks (KsSqliteReader  *r,
                              GError         **error)
{
  static const char * const columns[] = {
    "rank", "globalPid", "groupId", "localRank", "worldSize", "host", "file", "backend", "source",
  };
  sqlite3_stmt *stmt;
  KsSqliteResult found;
  gboolean failed = FALSE;

  if ((found = _ks_sqlite_select (r, "KS_RANKS", columns, G_N_ELEMENTS (columns), 1, NULL, &stmt, error))
      != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;

  while (ks_sqlite_next_row (r, stmt, &failed, error))
    {
      gint64 rank_number = col_i64 (stmt, 0);
      const char *source = (const char *)sqlite3_column_text (stmt, 8);
      guint32 group;
      KsRank *rank;

      /* a rank past int32 or below 0 is damage: the row is left out */
      if (col_null (stmt, 0) || rank_number < 0 || rank_number > G_MAXINT32)
        continue;
      if (!col_null (stmt, 2))
        group = col_u32 (stmt, 2);
      else if (!col_null (stmt, 1))
        group = _ks_sqlite_reader_process (r, col_i64 (stmt, 1))->group;
      else
        continue;
      rank = ks_trace_builder_get_rank (r->b, group);
      rank->rank = (gint32)rank_number;
      rank->source = KS_RANK_FROM_ENVIRONMENT;
      if (source != NULL && strcmp (source, ks_rank_source_to_string (KS_RANK_FROM_DISTRIBUTED_INFO)) == 0)
        rank->source = KS_RANK_FROM_DISTRIBUTED_INFO;
      else if (source != NULL && strcmp (source, ks_rank_source_to_string (KS_RANK_FROM_FILE_NAME)) == 0)
        rank->source = KS_RANK_FROM_FILE_NAME;
      if (!col_null (stmt, 3) && col_i64 (stmt, 3) >= 0 && col_i64 (stmt, 3) <= G_MAXINT32)
        rank->local_rank = (gint32)col_i64 (stmt, 3);
      if (!col_null (stmt, 4) && col_i64 (stmt, 4) > 0 && col_i64 (stmt, 4) <= G_MAXINT32)
        rank->world_size = (gint32)col_i64 (stmt, 4);
      for (guint c = 5; c <= 7; c++)
        {
          const char *text = (const char *)sqlite3_column_text (stmt, c);
          guint32 id;

          if (text == NULL || !g_utf8_validate (text, -1, NULL) || strlen (text) > 4096)
            continue;
          id = ks_trace_builder_intern (r->b, text);
          if (c == 5)
            rank->host = id;
          else if (c == 6)
            rank->file = id;
          else
            rank->backend = id;
        }
    }

  return ks_sqlite_finish (stmt, failed);
}
