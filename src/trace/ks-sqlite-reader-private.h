/* ks-sqlite-reader-private.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <sqlite3.h>

#include "ks-progress.h"
#include "ks-sqlite-private.h"
#include "ks-trace-builder.h"

G_BEGIN_DECLS

/* The SQLite reader, in parts that share this state:
 *
 *   ks-sqlite-util.c    opening a file that may be hostile, errors, the
 *                       schema, SELECTs of columns looked up by name
 *   ks-sqlite-nsight.c  the tables of an Nsight Systems export, which a
 *                       .kscope shares (StringIds, CUPTI_ACTIVITY_KIND_*,
 *                       NVTX_EVENTS, OSRT_API, TARGET_INFO_*...)
 *   ks-sqlite-kscope.c  the KS_* tables of a .kscope
 *   ks-sqlite-reader.c  processes and threads of both, the slice tables
 *                       merged, and the steps run in order
 *   ks-sqlite-scan.c    the rows of the large tables, read ahead on
 *                       threads of their own
 *   ks-sqlite-args.c    the slices' arguments, stored on a thread of
 *                       their own while the slice tables are merged
 *   ks-sqlite-runs.c    KS_SLICES gathered by track where they are
 *                       read, and added to the builder in runs
 *   ks-sqlite-reserve.c each track of a .kscope sized once, ahead
 *
 * Every function that can fail returns FALSE (or KS_SQLITE_FAILED) with
 * *error set, and only then: a table that is absent, or that lacks a
 * column it cannot be read without (a warning says so), is not a failure. */

#define KS_SQLITE_NONE           G_MAXUINT32
#define KS_SQLITE_ROWS_PER_CHECK 16384
#define KS_SQLITE_MAX_WORKERS    5    /* reading threads, up to seven threads */
#define KS_SQLITE_MAX_READERS_MANY 10 /* and from eight on */
/* Timestamps are clamped to ±2^62 ns (146 years) so that no sum overflows. */
#define KS_SQLITE_TS_LIMIT       (G_GINT64_CONSTANT (1) << 62)

typedef enum
{
  KS_SQLITE_READ,    /* the table is there (a SELECT: its statement is ready) */
  KS_SQLITE_ABSENT,  /* no such table, or it lacks a column it needs (warned) */
  KS_SQLITE_FAILED,  /* *error is set */
} KsSqliteResult;

typedef struct
{
  guint32 process;
  guint32 group;
} KsSqliteProc;

/* A row of a scan (ks-sqlite-scan.c): column c is NULL when bit c of
 * @nulls is set, else v[c] is its sqlite3_column_int64(), for a text
 * column the offset of its NUL-terminated text in @text, for a real one
 * the bits of its double. Its arguments are numbered in @args_local,
 * when not NULL, which @args_map turns into the store's numbers. */
typedef struct
{
  const gint64      *v;
  guint32            nulls;
  const char        *text;
  const KsArgsLocal *args_local;
  guint32           *args_map;
} KsSqliteRow;

/* A batch of KS_SLICES rows gathered by the thread that read it
 * (ks-sqlite-runs.c): each row's track (KS_SQLITE_NONE: taken the usual
 * way), times, kind and ids in the columns ks_trace_builder_add_slices()
 * takes, and @left, the rows from it on that stay on its track. The
 * loading thread fills in the names, categories and arguments. */
typedef struct
{
  gint64  *start;
  gint64  *end;
  guint32 *track;
  guint32 *left;
  guint32 *negative;   /* rows before each one (n + 1) whose end was before their start */
  guint32 *name;
  guint32 *category;
  guint32 *correlation;
  guint32 *external_id;
  guint32 *args;
  guint8  *kind;
  guint    n;
  guint    cap;
  gpointer block;      /* the columns' memory */
} KsSqliteRuns;

/* The batch a scan's current row is in (_ks_sqlite_scan_batch()): row
 * @at of it, which the gathered @runs describe when not NULL. */
typedef struct
{
  KsSqliteRuns      *runs;
  guint              at;
  const gint64      *values;
  guint              n_columns;
  const guint32     *nulls;
  const char        *text;
  const KsArgsLocal *args_local;
  guint32           *args_map;
} KsSqliteBatch;

typedef struct _KsSqliteScan    KsSqliteScan;
typedef struct _KsSqliteWorkers KsSqliteWorkers;
typedef struct _KsSqliteArgs    KsSqliteArgs;
typedef struct _KsSqliteHints   KsSqliteHints;

/* How the arguments of the rows reach the store (KINESCOPE_SQLITE_ARGS):
 * prepared on the reading threads as offsets into their text, every
 * string interned by the loading thread; numbered in each block's
 * dictionary; or that, and stored on a thread of their own while the
 * slice tables are merged (ks-sqlite-args.c). */
typedef enum
{
  KS_SQLITE_ARGS_PREPARED,
  KS_SQLITE_ARGS_LOCAL,
  KS_SQLITE_ARGS_THREAD,
} KsSqliteArgsWay;

typedef struct
{
  sqlite3        *db;
  KsSqliteWorkers *workers;       /* the scans' reader threads, or NULL */
  KsSqliteArgsWay args_way;
  gboolean        reserve;        /* tracks sized ahead (ks-sqlite-reserve.c)... */
  KsSqliteHints  *hints_job;      /* ...counted on a thread of their own, or NULL... */
  guint64        *hints;          /* ...for this many slices each, while the slices are read */
  guint32         n_hints;
  gboolean        runs;           /* KS_SLICES gathered by track (ks-sqlite-runs.c)... */
  guint64         n_runs;         /* ...the runs added... */
  guint64         n_run_slices;   /* ...and their slices */
  KsSqliteArgs   *args_stage;     /* merging the slice tables: where row_args() hands over */
  gboolean        args_deferred;  /* the last row_args() handed its row over */
  gboolean        again;          /* they failed: read the file on one thread */
  char           *display;
  KsTraceBuilder *b;
  KsProgress     *progress;
  GCancellable   *cancellable;
  gboolean        kscope;
  gint64          shift;          /* added to every stored time */

  GHashTable     *tables;         /* table name -> GHashTable of column names */

  /* StringIds: dense arrays when the ids allow, else hash tables. */
  gint64          n_dense;
  guint32        *smap;           /* db id -> builder id, KS_SQLITE_NONE while unresolved */
  const char    **svalues;        /* db id -> text (Nsight files, resolved lazily) */
  GHashTable     *sparse_values;  /* gint64 id -> char* */
  GHashTable     *sparse_map;     /* gint64 id -> builder id + 1 */
  GStringChunk   *chunk;
  GHashTable     *api_names;      /* gint64 db id -> builder id + 1, suffix stripped */
  guint64         unknown_strings;
  guint64         invalid_args;   /* arguments that were not UTF-8, repaired */

  GHashTable     *procs;          /* gint64 globalPid -> KsSqliteProc */
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
  gint64          last_api_id;    /* and the same CUDA call */
  guint32         last_api_bid;

  guint32         category[KS_N_SLICE_KINDS];
  guint32         memcpy_names[11][8][8];
  guint32         memset_names[8];
  guint32         sync_names[G_N_ELEMENTS (ks_sqlite_sync_names)];
  guint8          mem_kinds[16];  /* the file's memory kind ids -> KsMemoryKind */

  gint64          max_end;
  gboolean        have_end;

  guint64         rows_total;
  guint64         rows_done;
  guint64         skipped;
  guint64         negative_durations; /* slices kept as zero-length */
  guint64         null_values;        /* counter samples without a number, left out */

  gboolean        journal_beside; /* left in the middle of a write: not rolled back */
  gboolean        cut_short;      /* KS_META complete = 0 */
  char           *end_reason;     /* KS_META end_reason */
} KsSqliteReader;

/* ks-sqlite-util.c */

gboolean       _ks_sqlite_set_error        (KsSqliteReader      *r,
                                            int                  rc,
                                            GError             **error);
gboolean       _ks_sqlite_set_error_message (KsSqliteReader     *r,
                                            int                  rc,
                                            const char          *msg,
                                            GError             **error);
gboolean       _ks_sqlite_check_header     (const char          *path,
                                            const char          *display,
                                            GError             **error);
gboolean       _ks_sqlite_nonempty_beside  (const char          *path,
                                            const char          *suffix);
gboolean       _ks_sqlite_open             (KsSqliteReader      *r,
                                            const char          *path,
                                            GError             **error);
gboolean       _ks_sqlite_has_table        (KsSqliteReader      *r,
                                            const char          *table);
KsSqliteResult _ks_sqlite_table_columns    (KsSqliteReader      *r,
                                            const char          *table,
                                            GHashTable         **columns,
                                            GError             **error);
KsSqliteResult _ks_sqlite_select           (KsSqliteReader      *r,
                                            const char          *table,
                                            const char * const  *columns,
                                            guint                n_columns,
                                            guint                n_required,
                                            const char          *where,
                                            sqlite3_stmt       **stmt,
                                            GError             **error);
gint64         _ks_sqlite_table_rows       (KsSqliteReader      *r,
                                            const char          *table);
guint64        _ks_sqlite_database_bytes   (KsSqliteReader      *r);
int            _ks_sqlite_user_version     (KsSqliteReader      *r);
void           _ks_sqlite_report_progress  (KsSqliteReader      *r);

/* ks-sqlite-scan.c */

/* @n_threads threads reading blocks of the scans of @path's reader,
 * preparing the arguments as @way says. */
KsSqliteWorkers *_ks_sqlite_workers_new  (const char          *path,
                                          guint                n_threads,
                                          KsSqliteArgsWay      way);
void             _ks_sqlite_workers_free (KsSqliteWorkers     *workers);
/* Prints the phases of @workers' reading (KINESCOPE_LOAD_PHASES). */
void             _ks_sqlite_workers_print_phases (KsSqliteWorkers *workers);
/* The rows _ks_sqlite_select() would give, in its order. @types has a
 * letter a column: 'i' read as an integer, 'r' as a double, 't' as
 * text, 'a' as a trace's arguments (text, for row_args()). */
KsSqliteResult   _ks_sqlite_scan_open    (KsSqliteReader      *r,
                                          const char          *table,
                                          const char * const  *columns,
                                          guint                n_columns,
                                          guint                n_required,
                                          const char          *types,
                                          const char          *where,
                                          KsSqliteScan       **scan,
                                          GError             **error);
/* The same, each batch also gathered into runs of slices on the thread
 * that reads it when @gather: KS_SLICES' columns, as ks-sqlite-runs.c
 * reads them. */
KsSqliteResult   _ks_sqlite_scan_open_gathering (KsSqliteReader      *r,
                                                 const char          *table,
                                                 const char * const  *columns,
                                                 guint                n_columns,
                                                 guint                n_required,
                                                 const char          *types,
                                                 const char          *where,
                                                 gboolean             gather,
                                                 KsSqliteScan       **scan,
                                                 GError             **error);
/* Sets @row to the next row (valid until the next call): FALSE at the
 * end, with *@failed and @error set when reading failed. */
gboolean         _ks_sqlite_scan_next    (KsSqliteScan        *scan,
                                          KsSqliteRow         *row,
                                          gboolean            *failed,
                                          GError             **error);
void             _ks_sqlite_scan_free    (KsSqliteScan        *scan);
/* The batch of the row _ks_sqlite_scan_next() gave last: FALSE when
 * there is none. */
gboolean         _ks_sqlite_scan_batch   (KsSqliteScan        *scan,
                                          KsSqliteBatch       *batch);
/* Passes over the @n rows after it in its batch, taken with it. */
void             _ks_sqlite_scan_skip    (KsSqliteScan        *scan,
                                          guint                n);

/* ks-sqlite-args.c: the slices' arguments stored on a thread of their
 * own. A part is the memory of a block that rows handed over point
 * into: its text, its dictionary and its map. */
typedef struct
{
  char        *text;
  gsize        text_cap;
  KsArgsLocal *local;
  guint32     *map;
  gsize        map_cap;
} KsSqliteArgsPart;

KsSqliteArgs     *_ks_sqlite_args_new          (KsTraceBuilder    *builder);
void              _ks_sqlite_args_free         (KsSqliteArgs      *args);
/* Stores everything handed over, here. */
void              _ks_sqlite_args_drain        (KsSqliteArgs      *args);
/* Hands over a row's arguments (as row_args() finds them: @local NULL
 * when they were not numbered in a dictionary); the slice that takes
 * them says where it is with _ks_sqlite_args_place(). */
void              _ks_sqlite_args_defer        (KsSqliteArgs      *args,
                                                const char        *text,
                                                guint32            len,
                                                const KsArgsLocal *local,
                                                guint32           *map,
                                                const guint8      *record,
                                                guint32            record_len);
void              _ks_sqlite_args_place        (KsSqliteArgs      *args,
                                                guint32            track,
                                                guint32            index);
/* Both for the @n rows of @batch from @from on, whose arguments are in
 * column @col: slices @first... of @track (KS_NO_INDEX: none took them). */
void              _ks_sqlite_args_defer_run    (KsSqliteArgs        *args,
                                                const KsSqliteBatch *batch,
                                                guint                col,
                                                guint                from,
                                                guint                n,
                                                guint32              track,
                                                guint32              first);
/* The rows handed over so far go to be stored, with @part, which they
 * point into and which comes back as a spare once they are stored. */
void              _ks_sqlite_args_hand_over    (KsSqliteArgs      *args,
                                                KsSqliteArgsPart  *part);
/* A part stored, for a block to read into, or NULL. */
KsSqliteArgsPart *_ks_sqlite_args_take_spare   (KsSqliteArgs      *args);
void              _ks_sqlite_args_part_free    (KsSqliteArgsPart  *part);
void              _ks_sqlite_args_print_phases (KsSqliteArgs      *args);

/* ks-sqlite-samples.c */

gboolean       _ks_sqlite_load_samples     (KsSqliteReader      *r,
                                            GError             **error);

/* ks-sqlite-reader.c: processes, threads and the slice merge */

KsSqliteProc  *_ks_sqlite_register_process (KsSqliteReader      *r,
                                            gint64               gpid,
                                            guint32              process,
                                            guint32              group);
KsSqliteProc  *_ks_sqlite_reader_process   (KsSqliteReader      *r,
                                            gint64               gpid);
void           _ks_sqlite_register_thread  (KsSqliteReader      *r,
                                            gint64               gtid,
                                            guint32              thread);
guint32        _ks_sqlite_reader_thread    (KsSqliteReader      *r,
                                            gint64               gtid);

/* A slice table read side by side with the others (ks-sqlite-reader.c,
 * "The slice tables, merged"): @track_of gives a row's track, or
 * KS_SQLITE_NONE to skip it; @emit hands the row to the builder. */
typedef guint32 (*KsSqliteSourceTrack) (KsSqliteReader    *r,
                                        const KsSqliteRow *row);
typedef void    (*KsSqliteSourceEmit)  (KsSqliteReader    *r,
                                        const KsSqliteRow *row,
                                        guint32            track,
                                        gint64             start,
                                        gint64             end);

typedef struct
{
  KsSqliteScan        *scan;      /* NULL once the table is read */
  KsSqliteRow          row;
  KsSqliteSourceTrack  track_of;
  KsSqliteSourceEmit   emit;
  gboolean             runs;      /* its batches gathered: taken in runs */
  guint32              track;
  gint64               start;
  gint64               end;
} KsSqliteSource;

#define KS_SQLITE_MAX_SOURCES 10
#define KS_SQLITE_MAX_COLUMNS 31   /* of a scan */

typedef struct
{
  KsSqliteSource source[KS_SQLITE_MAX_SOURCES];
  guint          n;
} KsSqliteSources;

/* Adds @table's rows (columns 0 and 1 are start and end) to @sources;
 * an absent table adds nothing. A column named "args" is read as text,
 * the others as integers. */
gboolean _ks_sqlite_add_source (KsSqliteReader      *r,
                                KsSqliteSources     *sources,
                                const char          *table,
                                const char * const  *columns,
                                guint                n_columns,
                                guint                n_required,
                                const char          *where,
                                KsSqliteSourceTrack  track_of,
                                KsSqliteSourceEmit   emit,
                                GError             **error);

/* ks-sqlite-reserve.c: before the slice tables, each track of a
 * .kscope given room for the slices its tables' indexes say it has,
 * counted on a thread of their own (_ks_sqlite_hints_start(), with the
 * file's path, as soon as it is open) or, without one, here */
KsSqliteHints *_ks_sqlite_hints_start (const char *path);
void     _ks_sqlite_hints_free     (KsSqliteHints  *hints);
void     _ks_sqlite_reserve_tracks (KsSqliteReader *r);
/* Once the slice tables are read: says (g_debug) how many tracks got
 * as many slices as they were sized for. */
void     _ks_sqlite_reserve_report (KsSqliteReader *r);

/* ks-sqlite-runs.c: KS_SLICES gathered by track, added in runs */

/* FALSE when KINESCOPE_SQLITE_RUNS=rows: one slice at a time */
gboolean _ks_sqlite_runs_enabled (void);
/* Whether the tracks are sized ahead (ks-sqlite-reserve.c): not with
 * KINESCOPE_SQLITE_RUNS=rows or =runs, the ways before */
gboolean _ks_sqlite_runs_sized   (void);
/* On the thread that read a batch: its @n_rows rows of @values into
 * @runs. FALSE when memory ran out (the rows go the usual way). */
gboolean _ks_sqlite_runs_gather  (const KsSqliteReader *r,
                                  KsSqliteRuns         *runs,
                                  const gint64         *values,
                                  guint                 n_columns,
                                  guint                 n_rows);
void     _ks_sqlite_runs_clear   (KsSqliteRuns         *runs);
/* Adds @best's row and those after it in its run that come before
 * @next's (NULL: no other table has rows left), and passes over them in
 * its scan: the rows taken, 0 when @best's row is to be added alone. */
guint    _ks_sqlite_runs_take    (KsSqliteReader       *r,
                                  KsSqliteSource       *best,
                                  const KsSqliteSource *next);

/* The same for KS_SLICES rows that name their track: gathered on the
 * reading threads and taken in runs (ks-sqlite-runs.c), unless
 * KINESCOPE_SQLITE_RUNS=rows. */
gboolean _ks_sqlite_add_runs_source (KsSqliteReader      *r,
                                     KsSqliteSources     *sources,
                                     const char          *table,
                                     const char * const  *columns,
                                     guint                n_columns,
                                     const char          *where,
                                     KsSqliteSourceTrack  track_of,
                                     KsSqliteSourceEmit   emit,
                                     GError             **error);

/* ks-sqlite-nsight.c */

guint32  _ks_sqlite_sid_slow                    (KsSqliteReader  *r,
                                                 gint64           id);
gboolean _ks_sqlite_nsight_load_export_meta     (KsSqliteReader  *r,
                                                 GError         **error);
gboolean _ks_sqlite_nsight_load_strings         (KsSqliteReader  *r,
                                                 GError         **error);
gboolean _ks_sqlite_nsight_load_process_names   (KsSqliteReader  *r,
                                                 GError         **error);
gboolean _ks_sqlite_nsight_load_thread_names    (KsSqliteReader  *r,
                                                 GError         **error);
gboolean _ks_sqlite_nsight_load_mem_kinds       (KsSqliteReader  *r,
                                                 GError         **error);
gboolean _ks_sqlite_nsight_load_gpus            (KsSqliteReader  *r,
                                                 GError         **error);
gboolean _ks_sqlite_nsight_load_session         (KsSqliteReader  *r,
                                                 GError         **error);
gboolean _ks_sqlite_nsight_add_slice_sources    (KsSqliteReader  *r,
                                                 KsSqliteSources *sources,
                                                 GError         **error);
gboolean _ks_sqlite_nsight_load_nvtx            (KsSqliteReader  *r,
                                                 GError         **error);
gboolean _ks_sqlite_nsight_load_gpu_metrics     (KsSqliteReader  *r,
                                                 GError         **error);
gboolean _ks_sqlite_nsight_load_memory_usage    (KsSqliteReader  *r,
                                                 GError         **error);
void     _ks_sqlite_nsight_apply_names          (KsSqliteReader  *r);

/* ks-sqlite-kscope.c */

gboolean       _ks_sqlite_kscope_load_meta          (KsSqliteReader  *r,
                                                     GError         **error);
void           _ks_sqlite_kscope_warn_cut_short     (KsSqliteReader  *r);
KsSqliteResult _ks_sqlite_kscope_load_processes     (KsSqliteReader  *r,
                                                     GError         **error);
KsSqliteResult _ks_sqlite_kscope_load_threads       (KsSqliteReader  *r,
                                                     GError         **error);
gboolean       _ks_sqlite_kscope_load_tracks        (KsSqliteReader  *r,
                                                     GError         **error);
gboolean       _ks_sqlite_kscope_add_slice_sources  (KsSqliteReader  *r,
                                                     KsSqliteSources *sources,
                                                     GError         **error);
gboolean       _ks_sqlite_kscope_load_instants      (KsSqliteReader  *r,
                                                     GError         **error);
gboolean       _ks_sqlite_kscope_load_flows         (KsSqliteReader  *r,
                                                     GError         **error);
gboolean       _ks_sqlite_kscope_load_thread_times  (KsSqliteReader  *r,
                                                     GError         **error);
gboolean       _ks_sqlite_kscope_load_counters      (KsSqliteReader  *r,
                                                     GError         **error);
gboolean       _ks_sqlite_kscope_load_memory_events (KsSqliteReader  *r,
                                                     GError         **error);
gboolean       _ks_sqlite_kscope_load_diagnostics   (KsSqliteReader  *r,
                                                     GError         **error);
/* ks-sqlite-memsnap.c */
gboolean       _ks_sqlite_kscope_load_memory_snapshots (KsSqliteReader  *r,
                                                     GError         **error);
gboolean       _ks_sqlite_kscope_load_ranks         (KsSqliteReader  *r,
                                                     GError         **error);

/* Rows and columns, on every row of every table: inline. The column
 * readers keep short names, as they are on nearly every line of the
 * table readers. */

/* Counts a row read; checks for cancellation and reports progress now
 * and then. FALSE, with @error set, when cancelled. */
static inline gboolean
ks_sqlite_row_done (KsSqliteReader  *r,
                    GError         **error)
{
  if (G_UNLIKELY (++r->rows_done % KS_SQLITE_ROWS_PER_CHECK == 0))
    {
      if (g_cancellable_set_error_if_cancelled (r->cancellable, error))
        return FALSE;
      _ks_sqlite_report_progress (r);
    }
  return TRUE;
}

/* ks_sqlite_row_done() for @n rows taken at once. */
static inline gboolean
ks_sqlite_rows_done (KsSqliteReader  *r,
                     guint            n,
                     GError         **error)
{
  guint64 before = r->rows_done;

  r->rows_done += n;
  if (G_UNLIKELY (before / KS_SQLITE_ROWS_PER_CHECK != r->rows_done / KS_SQLITE_ROWS_PER_CHECK))
    {
      if (g_cancellable_set_error_if_cancelled (r->cancellable, error))
        return FALSE;
      _ks_sqlite_report_progress (r);
    }
  return TRUE;
}

/* Steps @stmt: TRUE on a row; FALSE at the end, with *@failed and @error
 * set when stepping failed. */
static inline gboolean
ks_sqlite_next_row (KsSqliteReader  *r,
                    sqlite3_stmt    *stmt,
                    gboolean        *failed,
                    GError         **error)
{
  int rc = sqlite3_step (stmt);

  if (G_LIKELY (rc == SQLITE_ROW))
    return TRUE;
  if (rc != SQLITE_DONE)
    {
      _ks_sqlite_set_error (r, rc, error);
      *failed = TRUE;
    }
  return FALSE;
}

/* Finalizes @stmt: the result of the loop that read it. */
static inline gboolean
ks_sqlite_finish (sqlite3_stmt *stmt,
                  gboolean      failed)
{
  sqlite3_finalize (stmt);
  return !failed;
}

/* The rows of @scan, one per pass into @row, with a check for
 * cancellation after each; @failed says at the end whether it stopped on
 * an error. */
#define KS_SQLITE_SCAN_ROWS(r, scan, row, failed, error)                \
  for (failed = FALSE;                                                  \
       !failed && _ks_sqlite_scan_next (scan, &row, &failed, error);    \
       failed = failed || !ks_sqlite_row_done (r, error))

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

static inline guint32
col_u32 (sqlite3_stmt *stmt,
         int           col)
{
  return (guint32)sqlite3_column_int64 (stmt, col);
}

/* The same for a scan's rows. */

static inline gboolean
row_null (const KsSqliteRow *row,
          int                col)
{
  return (row->nulls >> col) & 1;
}

static inline gint64
row_i64 (const KsSqliteRow *row,
         int                col)
{
  return row->v[col];
}

static inline gint64
row_ts (KsSqliteReader    *r,
        const KsSqliteRow *row,
        int                col)
{
  gint64 v = row->v[col];

  return CLAMP (v, -KS_SQLITE_TS_LIMIT, KS_SQLITE_TS_LIMIT) + r->shift;
}

static inline guint32
row_u32 (const KsSqliteRow *row,
         int                col)
{
  return (guint32)row->v[col];
}

static inline double
row_double (const KsSqliteRow *row,
            int                col)
{
  double d;

  memcpy (&d, &row->v[col], sizeof d);
  return d;
}

static inline const char *
row_text (const KsSqliteRow *row,
          int                col)
{
  return row_null (row, col) ? NULL : row->text + row->v[col];
}

/* An 'a' column's text comes after its length and the length of what it
 * was prepared to, which follows it (ks-sqlite-scan.c). While the slice
 * tables are merged the arguments are handed over to be stored on a
 * thread of their own, with an id of 0 here: the slice added next, by
 * add_slice() in whose arguments this is called, takes them. */
static inline guint32
row_args (KsSqliteReader    *r,
          const KsSqliteRow *row,
          int                col)
{
  const char *text = row_text (row, col);
  guint32 words[2];

  r->args_deferred = FALSE;
  if (text == NULL)
    return 0;
  memcpy (words, text - sizeof words, sizeof words);
  if (r->args_stage != NULL)
    {
      _ks_sqlite_args_defer (r->args_stage, text, words[0], row->args_local, row->args_map,
                             (const guint8 *) text + words[0] + 1, words[1]);
      r->args_deferred = TRUE;
      return 0;
    }
  if (row->args_local != NULL)
    return ks_trace_builder_add_local_args (r->b, text, words[0], row->args_local, row->args_map,
                                            (const guint8 *) text + words[0] + 1, words[1]);
  return ks_trace_builder_add_prepared_args (r->b, text, words[0], (const guint8 *) text + words[0] + 1, words[1]);
}

/* The builder's id for StringIds row @id. */
static inline guint32
sid (KsSqliteReader *r,
     gint64          id)
{
  if (G_LIKELY (id >= 0 && id < r->n_dense && r->smap[id] != KS_SQLITE_NONE))
    return r->smap[id];
  return _ks_sqlite_sid_slow (r, id);
}

/* The process part of a globalPid or globalTid. */
static inline gint64
ks_sqlite_gid_process (gint64 gid)
{
  return gid & ~KS_GID_MASK;
}

/* The key of KsSqliteReader.orphan_streams. */
static inline char *
ks_sqlite_orphan_stream_key (gint64 device,
                             gint64 stream)
{
  return g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, device, stream);
}

static inline void
add_slice (KsSqliteReader  *r,
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
  gboolean deferred = r->args_deferred;

  r->args_deferred = FALSE;
  if (end < start)
    end = start;
  if (!r->have_end || end > r->max_end)
    {
      r->max_end = end;
      r->have_end = TRUE;
    }
  if (ks_trace_builder_add_slice (r->b, track, start, end, kind, name, category,
                                  correlation, external_id, args, gpu) && deferred)
    _ks_sqlite_args_place (r->args_stage, track, ks_trace_builder_get_track_n_slices (r->b, track) - 1);
}

G_END_DECLS
