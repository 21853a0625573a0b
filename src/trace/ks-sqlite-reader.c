/* ks-sqlite-reader.c: the reader of .kscope files and Nsight exports
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Opens the file (ks-sqlite-util.c) and runs the steps that read its
 * tables (ks-sqlite-nsight.c, ks-sqlite-kscope.c) in order; what both
 * kinds of table share, the processes and threads their ids name and the
 * slice tables read side by side, is here.
 */

#define G_LOG_DOMAIN "ks-sqlite-reader"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "ks-json-reader.h"
#include "ks-load-phases.h"
#include "ks-sqlite-reader.h"
#include "ks-sqlite-reader-private.h"

/* Processes and threads, of both kinds of table */

KsSqliteProc *
_ks_sqlite_register_process (KsSqliteReader *r,
                             gint64          gpid,
                             guint32         process,
                             guint32         group)
{
  gint64 *key = g_new (gint64, 1);
  KsSqliteProc *proc = g_new (KsSqliteProc, 1);

  *key = gpid;
  proc->process = process;
  proc->group = group;
  g_hash_table_insert (r->procs, key, proc);
  return proc;
}

/* The process of @gpid, created on first use with a group of its own:
 * correlation ids are unique within one process only. */
KsSqliteProc *
_ks_sqlite_reader_process (KsSqliteReader *r,
                           gint64          gpid)
{
  KsSqliteProc *proc;
  gint64 pid;
  gint64 *owner;
  guint32 group;

  gpid = ks_sqlite_gid_process (gpid);
  if ((proc = g_hash_table_lookup (r->procs, &gpid)))
    return proc;

  /* Two hosts or VMs may reuse a pid: keep them apart by the full id. */
  pid = ks_kscope_pid_of (gpid);
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
  return _ks_sqlite_register_process (r, gpid, ks_trace_builder_get_process (r->b, pid), group);
}

void
_ks_sqlite_register_thread (KsSqliteReader *r,
                            gint64          gtid,
                            guint32         thread)
{
  gint64 *key = g_new (gint64, 1);

  *key = gtid;
  g_hash_table_insert (r->threads, key, GUINT_TO_POINTER (thread + 1));
}

guint32
_ks_sqlite_reader_thread (KsSqliteReader *r,
                          gint64          gtid)
{
  gpointer value;
  KsSqliteProc *proc;
  guint32 thread;

  if (gtid == r->last_gtid && r->last_thread != KS_SQLITE_NONE)
    return r->last_thread;

  if ((value = g_hash_table_lookup (r->threads, &gtid)) != NULL)
    thread = GPOINTER_TO_UINT (value) - 1;
  else
    {
      proc = _ks_sqlite_reader_process (r, gtid);
      thread = ks_trace_builder_get_thread (r->b, proc->process, gtid & KS_GID_MASK);
      _ks_sqlite_register_thread (r, gtid, thread);
    }

  r->last_gtid = gtid;
  r->last_thread = thread;
  return thread;
}

/* The slice tables, merged
 *
 * A track's slices come from several tables (a thread's operators from
 * KS_SLICES, its CUDA calls from CUPTI_ACTIVITY_KIND_RUNTIME...), each
 * written track by track in time order. Reading the tables side by side
 * and always taking the row that comes first hands the builder every
 * track already sorted, which spares it a sort per track. */

/* Moves @src to its next usable row; its scan is NULL at the end. */
static gboolean
source_advance (KsSqliteReader  *r,
                KsSqliteSource  *src,
                GError         **error)
{
  gboolean failed = FALSE;

  while (_ks_sqlite_scan_next (src->scan, &src->row, &failed, error))
    {
      guint32 track = src->track_of (r, &src->row);

      if (track != KS_SQLITE_NONE)
        {
          src->track = track;
          src->start = row_ts (r, &src->row, 0);
          src->end = row_ts (r, &src->row, 1);
          /* kept, as the JSON reader keeps them, and counted */
          if (src->end < src->start)
            {
              r->negative_durations++;
              src->end = src->start;
            }
          return TRUE;
        }

      r->skipped++;
      if (!ks_sqlite_row_done (r, error))
        return FALSE;
    }

  g_clear_pointer (&src->scan, _ks_sqlite_scan_free);
  return !failed;
}

/* Builder order: by track, then start, longer first. */
static inline gboolean
source_before (const KsSqliteSource *a,
               const KsSqliteSource *b)
{
  if (a->track != b->track)
    return a->track < b->track;
  if (a->start != b->start)
    return a->start < b->start;
  return a->end > b->end;
}

/* The order rows are taken in: builder order, and on a tie the table
 * added first (@a and @b are in one array). */
static inline gboolean
source_ahead (const KsSqliteSource *a,
              const KsSqliteSource *b)
{
  return source_before (a, b) || (!source_before (b, a) && a < b);
}

/* Adds the rows of @table to @sources, in the order the tables are to be
 * preferred when rows tie; an absent table adds nothing. */
static gboolean
add_source (KsSqliteReader       *r,
            KsSqliteSources      *sources,
            const char           *table,
            const char * const   *columns,
            guint                 n_columns,
            guint                 n_required,
            const char           *where,
            KsSqliteSourceTrack   track_of,
            KsSqliteSourceEmit    emit,
            gboolean              runs,
            GError              **error)
{
  KsSqliteSource *src;
  KsSqliteScan *scan;
  KsSqliteResult found;
  char types[KS_SQLITE_MAX_COLUMNS + 1];

  g_assert (sources->n < KS_SQLITE_MAX_SOURCES && n_columns <= KS_SQLITE_MAX_COLUMNS);

  for (guint i = 0; i < n_columns; i++)
    types[i] = strcmp (columns[i], "args") == 0 ? 'a' : 'i';
  types[n_columns] = 0;
  found = _ks_sqlite_scan_open_gathering (r, table, columns, n_columns, n_required, types, where, runs, &scan,
                                          error);
  if (found != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;

  src = &sources->source[sources->n++];
  src->scan = scan;
  src->track_of = track_of;
  src->emit = emit;
  src->runs = runs;
  return TRUE;
}

gboolean
_ks_sqlite_add_source (KsSqliteReader       *r,
                       KsSqliteSources      *sources,
                       const char           *table,
                       const char * const   *columns,
                       guint                 n_columns,
                       guint                 n_required,
                       const char           *where,
                       KsSqliteSourceTrack   track_of,
                       KsSqliteSourceEmit    emit,
                       GError              **error)
{
  return add_source (r, sources, table, columns, n_columns, n_required, where, track_of, emit, FALSE, error);
}

gboolean
_ks_sqlite_add_runs_source (KsSqliteReader       *r,
                            KsSqliteSources      *sources,
                            const char           *table,
                            const char * const   *columns,
                            guint                 n_columns,
                            const char           *where,
                            KsSqliteSourceTrack   track_of,
                            KsSqliteSourceEmit    emit,
                            GError              **error)
{
  /* Strings numbered sparsely are interned as rows first name them, in
   * the order ks_slice_emit() looks them up: one by one. */
  return add_source (r, sources, table, columns, n_columns, 2, where, track_of, emit,
                     r->runs && r->sparse_map == NULL, error);
}

/* KINESCOPE_SQLITE_ARGS=prepared, local or thread; by default the
 * arguments are stored on their own thread from four threads on. On
 * fewer the cores are busy reading, and the same work on one more
 * thread gains nothing. */
static KsSqliteArgsWay
args_way (guint n_threads)
{
  const char *env = g_getenv ("KINESCOPE_SQLITE_ARGS");

  if (g_strcmp0 (env, "prepared") == 0)
    return KS_SQLITE_ARGS_PREPARED;
  if (g_strcmp0 (env, "local") == 0)
    return KS_SQLITE_ARGS_LOCAL;
  if (g_strcmp0 (env, "thread") == 0 || n_threads >= 4)
    return KS_SQLITE_ARGS_THREAD;
  return KS_SQLITE_ARGS_LOCAL;
}

/* The reading threads of a load on @n_threads threads (more than one).
 * Up to seven threads, all but the loading thread, at most five. Past
 * that the loading thread's own work is shorter than the reading (with
 * the arguments on their own thread: callgrind, about 157 M instructions
 * against 1,633 M of reading for a 106 MB trace), so up to ten read,
 * one core left to the arguments' thread. KINESCOPE_SQLITE_READERS sets
 * the most instead (bench/reload-curve.sh compares). */
static guint
n_readers (guint n_threads)
{
  const char *env = g_getenv ("KINESCOPE_SQLITE_READERS");
  guint64 v;

  if (env != NULL && g_ascii_string_to_unsigned (env, 10, 1, 64, &v, NULL))
    return MIN (n_threads - 1, (guint) v);
  if (n_threads >= 8)
    return MIN (n_threads - 2, KS_SQLITE_MAX_READERS_MANY);
  return MIN (n_threads - 1, KS_SQLITE_MAX_WORKERS);
}

static gboolean
load_slices (KsSqliteReader  *r,
             GError         **error)
{
  KsSqliteSources sources;
  gboolean ok;

  /* with the reading threads: the arguments come numbered from them
   * (an Nsight export's slice tables have none) */
  if (r->args_way == KS_SQLITE_ARGS_THREAD && r->workers != NULL && r->kscope)
    r->args_stage = _ks_sqlite_args_new (r->b);
  _ks_sqlite_reserve_tracks (r);
  sources.n = 0;
  ok = _ks_sqlite_kscope_add_slice_sources (r, &sources, error) &&
       _ks_sqlite_nsight_add_slice_sources (r, &sources, error);

  for (guint i = 0; i < sources.n && ok; i++)
    ok = source_advance (r, &sources.source[i], error);

  while (ok)
    {
      KsSqliteSource *best = NULL;
      KsSqliteSource *next = NULL;

      /* the first row, and the first of the other tables' */
      for (guint i = 0; i < sources.n; i++)
        {
          KsSqliteSource *src = &sources.source[i];

          if (src->scan == NULL)
            continue;
          if (best == NULL || source_ahead (src, best))
            {
              next = best;
              best = src;
            }
          else if (next == NULL || source_ahead (src, next))
            next = src;
        }
      if (best == NULL)
        break;

      /* Tables are written track by track: a table's rows usually come
       * in runs ahead of all the others', taken without comparing them
       * all again. */
      do
        {
          guint taken = best->runs ? _ks_sqlite_runs_take (r, best, next) : 0;

          if (taken == 0)
            {
              best->emit (r, &best->row, best->track, best->start, best->end);
              taken = 1;
            }
          ok = ks_sqlite_rows_done (r, taken, error) && source_advance (r, best, error);
        }
      while (ok && best->scan != NULL && (next == NULL || source_ahead (best, next)));
    }

  for (guint i = 0; i < sources.n; i++)
    g_clear_pointer (&sources.source[i].scan, _ks_sqlite_scan_free);
  _ks_sqlite_reserve_report (r);
  /* for the tests: the runs were taken */
  g_debug ("%s: %" G_GUINT64_FORMAT " slices added in %" G_GUINT64_FORMAT " runs", r->display, r->n_run_slices,
           r->n_runs);
  if (r->args_stage != NULL)
    {
      _ks_sqlite_args_drain (r->args_stage);
      _ks_sqlite_args_print_phases (r->args_stage);
      g_clear_pointer (&r->args_stage, _ks_sqlite_args_free);
    }
  return ok;
}

static gboolean
check_trace (KsSqliteReader  *r,
             GError         **error)
{
  GHashTableIter iter;
  gpointer key;

  if (r->kscope)
    return TRUE;

  if (!_ks_sqlite_has_table (r, "StringIds"))
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

/* NVTX ranges that were never closed last to the end of the trace, which
 * is known only once every table is read: NVTX_EVENTS only opens them in
 * the builder (ks-sqlite-nsight.c), and the builder closes them. */
static void
close_open_ranges (KsSqliteReader *r)
{
  guint n = (guint) ks_trace_builder_close_open_ranges (r->b, r->max_end);

  if (n > 0)
    ks_trace_builder_add_warning (r->b, g_dngettext (GETTEXT_PACKAGE,
                                                     "%u NVTX range was never closed; it lasts to the end of the trace",
                                                     "%u NVTX ranges were never closed; they last to the end of the trace",
                                                     n),
                                  n);
}

static void
reader_clear (KsSqliteReader *r)
{
  g_clear_pointer (&r->workers, _ks_sqlite_workers_free);
  g_clear_pointer (&r->hints_job, _ks_sqlite_hints_free);
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
  g_clear_pointer (&r->hints, g_free);
  g_clear_pointer (&r->orphan_streams, g_hash_table_unref);
}

static void
columns_free (gpointer data)
{
  if (data != NULL)
    g_hash_table_unref (data);
}

static void
reader_init (KsSqliteReader *r,
             GFile          *file,
             KsProgress     *progress,
             GCancellable   *cancellable)
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
  r->last_thread = KS_SQLITE_NONE;
  r->last_stream_track = KS_SQLITE_NONE;
  r->last_api_bid = KS_SQLITE_NONE;
  memset (r->memcpy_names, 0xff, sizeof r->memcpy_names);
  memset (r->memset_names, 0xff, sizeof r->memset_names);
  memset (r->sync_names, 0xff, sizeof r->sync_names);
}

typedef gboolean (*LoadFunc) (KsSqliteReader *r, GError **error);

/* The steps after the processes, threads and tracks, in order: each
 * returns FALSE with its error set, or TRUE when it read its tables or
 * found none of them. */
typedef gboolean (*LoadStep) (KsSqliteReader  *r,
                              GError         **error);

/* Each with its phase (KINESCOPE_LOAD_PHASES): the loading thread's
 * time, step by step. */
static const struct
{
  LoadStep    run;
  const char *phase;
} steps[] = {
  { _ks_sqlite_nsight_load_mem_kinds, "read: memory kinds" },
  { _ks_sqlite_nsight_load_gpus, "read: GPUs" },
  { _ks_sqlite_nsight_load_session, "read: session" },
  { load_slices, "read: slices" },
  { _ks_sqlite_nsight_load_nvtx, "read: NVTX" },
  { _ks_sqlite_load_samples, "read: samples" },
  { _ks_sqlite_kscope_load_instants, "read: instants" },
  { _ks_sqlite_kscope_load_flows, "read: flows" },
  { _ks_sqlite_kscope_load_thread_times, "read: thread times" },
  { _ks_sqlite_kscope_load_counters, "read: counters" },
  { _ks_sqlite_nsight_load_gpu_metrics, "read: GPU metrics" },
  { _ks_sqlite_kscope_load_memory_events, "read: memory events" },
  { _ks_sqlite_nsight_load_memory_usage, "read: memory usage" },
  { _ks_sqlite_kscope_load_diagnostics, "read: diagnostics" },
  { _ks_sqlite_kscope_load_ranks, "read: ranks" },
  { _ks_sqlite_kscope_load_memory_snapshots, "read: memory snapshots" },
};

/* Metadata, strings, processes, threads and tracks: what the rows of
 * the other tables refer to. */
static gboolean
load_references (KsSqliteReader  *r,
                 GError         **error)
{
  KsSqliteResult found;

  if (!_ks_sqlite_kscope_load_meta (r, error))
    return FALSE;
  _ks_sqlite_kscope_warn_cut_short (r);

  if (!r->kscope && !_ks_sqlite_nsight_load_export_meta (r, error))
    return FALSE;
  if (_ks_sqlite_has_table (r, "StringIds") && !_ks_sqlite_nsight_load_strings (r, error))
    return FALSE;

  /* A .kscope's own tables, else the names Nsight keeps aside. */
  if ((found = _ks_sqlite_kscope_load_processes (r, error)) == KS_SQLITE_FAILED ||
      (found == KS_SQLITE_ABSENT && !_ks_sqlite_nsight_load_process_names (r, error)))
    return FALSE;
  if ((found = _ks_sqlite_kscope_load_threads (r, error)) == KS_SQLITE_FAILED ||
      (found == KS_SQLITE_ABSENT && !_ks_sqlite_nsight_load_thread_names (r, error)))
    return FALSE;

  return _ks_sqlite_kscope_load_tracks (r, error);
}

static void
warn_unresolved (KsSqliteReader *r)
{
  if (r->skipped > 0)
    {
      g_autofree char *n = g_strdup_printf ("%" G_GUINT64_FORMAT, r->skipped);

      ks_trace_builder_add_warning (r->b, _("%s rows referred to tracks, threads, counters or "
                                            "call chains that the file does not define and were skipped"), n);
    }
  if (r->negative_durations > 0)
    {
      g_autofree char *n = g_strdup_printf ("%" G_GUINT64_FORMAT, r->negative_durations);

      ks_trace_builder_add_warning (r->b, _("%s slices that end before they start were kept as zero-length"), n);
    }
  if (r->null_values > 0)
    {
      g_autofree char *n = g_strdup_printf ("%" G_GUINT64_FORMAT, r->null_values);

      ks_trace_builder_add_warning (r->b, _("%s counter samples whose value is not a finite number were left out"), n);
    }
  if (r->unknown_strings > 0)
    {
      g_autofree char *n = g_strdup_printf ("%" G_GUINT64_FORMAT, r->unknown_strings);

      ks_trace_builder_add_warning (r->b, _("%s names referred to missing StringIds rows"), n);
    }
  if (r->invalid_args > 0)
    {
      g_autofree char *n = g_strdup_printf ("%" G_GUINT64_FORMAT, r->invalid_args);

      ks_trace_builder_add_warning (r->b, g_dngettext (GETTEXT_PACKAGE,
                                                       "%s slice's arguments were not valid UTF-8; each invalid byte "
                                                       "sequence was replaced with U+FFFD",
                                                       "%s slices' arguments were not valid UTF-8; each invalid byte "
                                                       "sequence was replaced with U+FFFD",
                                                       r->invalid_args), n);
    }
}

/* Loads @file, reading ahead on @n_threads threads; *@again says,
 * when it fails, that the reading ahead failed and one thread may not. */
static KsTrace *
load (GFile         *file,
      KsProgress    *progress,
      GCancellable  *cancellable,
      guint          n_threads,
      gboolean      *again,
      GError       **error)
{
  static const char * const counted[] = {
    "StringIds", "KS_SLICES", "CUPTI_ACTIVITY_KIND_RUNTIME", "OSRT_API", "NVTX_EVENTS",
    "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
    "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CUBLAS_EVENTS", "CUDNN_EVENTS", "KS_INSTANTS",
    "KS_FLOWS", "KS_COUNTER_SAMPLES",
    "GPU_METRICS", "KS_MEMORY_EVENTS", "CUDA_GPU_MEMORY_USAGE_EVENTS", "COMPOSITE_EVENTS",
    "SAMPLING_CALLCHAINS",
  };
  KsSqliteReader r;
  g_autoptr(GError) local_error = NULL;
  g_autofree char *path = NULL;
  KsTraceBuilder *builder;
  KsTrace *trace;
  int version;
  KsPhaseClock clock, step_clock;

  reader_init (&r, file, progress, cancellable);
  ks_phase_start (&clock);
  ks_phase_start (&step_clock);

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

  if (!_ks_sqlite_check_header (path, r.display, &local_error) ||
      !_ks_sqlite_open (&r, path, &local_error) ||
      !check_trace (&r, &local_error))
    goto failed;

  r.args_way = args_way (n_threads);
  r.runs = _ks_sqlite_runs_enabled ();
  r.reserve = _ks_sqlite_runs_sized ();
  if (n_threads > 1)
    r.workers = _ks_sqlite_workers_new (path, n_readers (n_threads), r.args_way);
  /* the tracks' counts, while the references are read */
  if (n_threads > 1 && r.kscope && r.reserve && _ks_sqlite_has_table (&r, "KS_TRACKS"))
    r.hints_job = _ks_sqlite_hints_start (path);

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
  if (_ks_sqlite_nonempty_beside (path, "-wal"))
    ks_trace_builder_add_warning (r.b, _("Changes in the -wal file beside the database were not read; "
                                         "only what the database file itself holds was read"));

  if (r.kscope && (version = _ks_sqlite_user_version (&r)) > KS_KSCOPE_FORMAT_VERSION)
    ks_trace_builder_add_warning (r.b, _("The file was written in a newer format (version %d); "
                                         "what this version does not know was left out"), version);

  for (guint i = 0; i < G_N_ELEMENTS (counted); i++)
    r.rows_total += _ks_sqlite_table_rows (&r, counted[i]);
  if (r.kscope)
    {
      /* A hint, not a limit: at most one row per 16 bytes of the file
       * (these tables' rows are larger), so that a hostile max(rowid)
       * cannot make the builder reserve much. */
      guint64 most = _ks_sqlite_database_bytes (&r) / 16;

      ks_trace_builder_expect (r.b, MIN ((guint64) _ks_sqlite_table_rows (&r, "KS_MEMORY_EVENTS"), most),
                               MIN ((guint64) _ks_sqlite_table_rows (&r, "KS_FLOWS"), most),
                               MIN ((guint64) _ks_sqlite_table_rows (&r, "KS_INSTANTS"), most));
    }

  if (!load_references (&r, &local_error))
    goto failed;
  ks_phase_next (&step_clock, "read: references");
  for (guint i = 0; i < G_N_ELEMENTS (steps); i++)
    {
      if (!steps[i].run (&r, &local_error))
        goto failed;
      ks_phase_next (&step_clock, steps[i].phase);
    }
  /* what the loading thread waited for the reading threads, and read
   * itself, within the steps above */
  if (r.workers != NULL)
    _ks_sqlite_workers_print_phases (r.workers);

  close_open_ranges (&r);
  warn_unresolved (&r);
  _ks_sqlite_nsight_apply_names (&r);

  if (progress != NULL)
    {
      ks_progress_set_message (progress, _("Building the timeline"));
      ks_progress_set_fraction (progress, 0.9);
    }

  /* The database is no longer needed while the builder sorts and links. */
  g_clear_pointer (&r.workers, _ks_sqlite_workers_free);
  g_clear_pointer (&r.db, sqlite3_close);
  builder = g_steal_pointer (&r.b);
  ks_phase_next (&clock, "read");
  trace = ks_trace_builder_finish (builder, cancellable, &local_error);
  if (trace == NULL)
    goto failed;
  ks_phase_next (&clock, "finish");

  reader_clear (&r);
  if (progress != NULL)
    ks_progress_set_fraction (progress, 1.0);
  return trace;

failed:
  *again = r.again;
  reader_clear (&r);
  g_propagate_error (error, g_steal_pointer (&local_error));
  return NULL;
}

KsTrace *
ks_sqlite_reader_load (GFile         *file,
                       KsProgress    *progress,
                       GCancellable  *cancellable,
                       GError       **error)
{
  g_autoptr(GError) local_error = NULL;
  gboolean again = FALSE;
  KsTrace *trace;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  /* The large tables are read ahead on other cores (ks-sqlite-scan.c);
   * past a few threads the loading thread, which takes the rows, is
   * what bounds the reload. What reading ahead cannot read, because
   * the file is damaged, is read again on one thread, as it reads it. */
  trace = load (file, progress, cancellable, ks_json_reader_get_n_threads (), &again, &local_error);
  if (trace == NULL && again && !g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_autofree char *display = g_file_get_parse_name (file);

      g_debug ("%s: read again on one thread: %s", display, local_error->message);
      g_clear_error (&local_error);
      trace = load (file, progress, cancellable, 1, &again, &local_error);
    }
  if (trace == NULL)
    g_propagate_error (error, g_steal_pointer (&local_error));
  return trace;
}
