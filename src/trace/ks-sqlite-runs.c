/* ks-sqlite-runs.c: a batch's slices gathered by track, added in runs
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Once the arguments were stored on a thread of their own, merging the
 * slice tables and adding each slice to the builder was most of what
 * the loading thread did for a row (ks-sqlite-reader.c, "The slice
 * tables, merged"). A .kscope's KS_SLICES rows name their track, and
 * the table is written track by track: so the thread that reads a
 * batch of its rows also works out each row's track, times, kind and
 * ids, in the columns ks_trace_builder_add_slices() takes, and how many
 * rows after it stay on its track (_ks_sqlite_runs_gather()). The
 * merge then takes a table's rows a run at a time: as many as stay on
 * the track and ahead of the other tables' first row, the names, the
 * categories and the arguments done in the run's order, and the run
 * added in one call (_ks_sqlite_runs_take()). The slices, their order
 * in each track, the string, args and slice ids are those of taking the
 * rows one by one. KINESCOPE_SQLITE_RUNS=rows takes them one by one.
 */

#define G_LOG_DOMAIN "ks-sqlite-reader"

#include "config.h"

#include <string.h>

#include "ks-sqlite-reader-private.h"

/* KS_SLICES' columns as _ks_sqlite_kscope_add_slice_sources() reads them */
enum
{
  COL_START,
  COL_END,
  COL_GTID,
  COL_TRACK,
  COL_KIND,
  COL_NAME,
  COL_CATEGORY,
  COL_CORRELATION,
  COL_EXTERNAL_ID,
  COL_ARGS,
};

gboolean
_ks_sqlite_runs_enabled (void)
{
  return g_strcmp0 (g_getenv ("KINESCOPE_SQLITE_RUNS"), "rows") != 0;
}

/* KINESCOPE_SQLITE_RUNS=rows: one by one; =runs: in runs, the tracks
 * doubled as they fill; else (=sized) the tracks sized ahead too. */
gboolean
_ks_sqlite_runs_sized (void)
{
  const char *env = g_getenv ("KINESCOPE_SQLITE_RUNS");

  return g_strcmp0 (env, "rows") != 0 && g_strcmp0 (env, "runs") != 0;
}

void
_ks_sqlite_runs_clear (KsSqliteRuns *runs)
{
  g_clear_pointer (&runs->block, g_free);
  memset (runs, 0, sizeof *runs);
}

/* One allocation for the columns of @n rows. */
static gboolean
runs_reserve (KsSqliteRuns *runs,
              guint         n)
{
  gsize per_row = 2 * sizeof (gint64) + 8 * sizeof (guint32) + 1;
  guint8 *p;

  /* a block of no rows has its columns too: negative[0] is written */
  if (n <= runs->cap && runs->block != NULL)
    return TRUE;
  n = MAX (n, 64);
  g_free (runs->block);
  if ((runs->block = g_try_malloc ((gsize) n * per_row + sizeof (guint32))) == NULL)
    {
      runs->cap = 0;
      return FALSE;
    }
  p = runs->block;
  runs->start = (gint64 *) p, p += (gsize) n * sizeof (gint64);
  runs->end = (gint64 *) p, p += (gsize) n * sizeof (gint64);
  runs->track = (guint32 *) p, p += (gsize) n * sizeof (guint32);
  runs->left = (guint32 *) p, p += (gsize) n * sizeof (guint32);
  runs->negative = (guint32 *) p, p += (gsize) (n + 1) * sizeof (guint32);
  runs->name = (guint32 *) p, p += (gsize) n * sizeof (guint32);
  runs->category = (guint32 *) p, p += (gsize) n * sizeof (guint32);
  runs->correlation = (guint32 *) p, p += (gsize) n * sizeof (guint32);
  runs->external_id = (guint32 *) p, p += (gsize) n * sizeof (guint32);
  runs->args = (guint32 *) p, p += (gsize) n * sizeof (guint32);
  runs->kind = p;
  runs->cap = n;
  return TRUE;
}

static inline gboolean
in_range (gint64 ts)
{
  return ts > -KS_TRACE_BUILDER_MAX_ABS_TS && ts < KS_TRACE_BUILDER_MAX_ABS_TS;
}

/* On the thread that read the batch. What it reads of @r (the tracks'
 * map, the shift) is set before the slice tables are opened. A row is
 * left to the usual way (track KS_SQLITE_NONE here) when it names no
 * track or the builder would refuse its times, which it counts. */
gboolean
_ks_sqlite_runs_gather (const KsSqliteReader *r,
                        KsSqliteRuns         *runs,
                        const gint64         *values,
                        guint                 n_columns,
                        guint                 n_rows)
{
  runs->n = 0;
  if (!runs_reserve (runs, n_rows))
    return FALSE;

  runs->negative[0] = 0;
  for (guint i = 0; i < n_rows; i++)
    {
      const gint64 *v = values + (gsize) i * n_columns;
      gint64 id = v[COL_TRACK];
      gint64 start = CLAMP (v[COL_START], -KS_SQLITE_TS_LIMIT, KS_SQLITE_TS_LIMIT) + r->shift;
      gint64 end = CLAMP (v[COL_END], -KS_SQLITE_TS_LIMIT, KS_SQLITE_TS_LIMIT) + r->shift;
      gint64 kind = v[COL_KIND];
      guint32 track = KS_SQLITE_NONE;

      if (id >= 0 && id < r->n_track_map)
        track = r->track_map[id];
      /* kept as zero-length, and counted, as source_advance() does */
      runs->negative[i + 1] = runs->negative[i] + (end < start);
      end = MAX (end, start);
      if (!in_range (start) || (end > start && !in_range (end)))
        track = KS_SQLITE_NONE;
      runs->track[i] = track;
      runs->start[i] = start;
      runs->end[i] = end;
      runs->kind[i] = kind < 0 || kind >= KS_N_SLICE_KINDS ? KS_SLICE_GENERIC : (guint8) kind;
      runs->correlation[i] = (guint32) v[COL_CORRELATION];
      runs->external_id[i] = (guint32) v[COL_EXTERNAL_ID];
    }

  /* how many rows from each one on stay on its track */
  for (guint i = n_rows; i-- > 0;)
    {
      if (runs->track[i] == KS_SQLITE_NONE)
        runs->left[i] = 0;
      else if (i + 1 < n_rows && runs->track[i + 1] == runs->track[i])
        runs->left[i] = runs->left[i + 1] + 1;
      else
        runs->left[i] = 1;
    }
  runs->n = n_rows;
  return TRUE;
}

/* Whether the gathered row @i comes before @next's row: source_ahead()
 * of ks-sqlite-reader.c, @first telling which table comes first on a tie. */
static inline gboolean
row_ahead (const KsSqliteRuns   *runs,
           guint                 i,
           const KsSqliteSource *next,
           gboolean              first)
{
  if (runs->start[i] != next->start)
    return runs->start[i] < next->start;
  if (runs->end[i] != next->end)
    return runs->end[i] > next->end;
  return first;
}

guint
_ks_sqlite_runs_take (KsSqliteReader       *r,
                      KsSqliteSource       *best,
                      const KsSqliteSource *next)
{
  KsSqliteBatch batch;
  KsSqliteRuns *runs;
  KsSliceColumns columns;
  KsSqliteRow row;
  guint32 track = best->track;
  guint at, n, first = 0;
  guint64 negative;
  gint64 max_end = G_MININT64;
  gboolean deferring = r->args_stage != NULL;
  gboolean added;

  if (!_ks_sqlite_scan_batch (best->scan, &batch) || batch.runs == NULL)
    return 0;
  runs = batch.runs;
  at = batch.at;
  if (at >= runs->n || runs->track[at] != track || runs->left[at] < 2)
    return 0;

  /* the run, cut where another table's row comes first on this track */
  n = runs->left[at];
  if (next != NULL && next->track == track)
    {
      gboolean ahead_on_tie = best < next;
      guint k = 1;

      while (k < n && row_ahead (runs, at + k, next, ahead_on_tie))
        k++;
      n = k;
    }
  if (n < 2)
    return 0;

  /* names, categories and arguments in the order of the rows */
  for (guint i = at; i < at + n; i++)
    {
      const gint64 *v = batch.values + (gsize) i * batch.n_columns;

      runs->name[i] = sid (r, v[COL_NAME]);
      runs->category[i] = sid (r, v[COL_CATEGORY]);
      max_end = MAX (max_end, runs->end[i]);
    }
  if (deferring)
    /* handed over below, once the slices have their places */
    memset (runs->args + at, 0, n * sizeof (guint32));
  else
    {
      row.text = batch.text;
      row.args_local = batch.args_local;
      row.args_map = batch.args_map;
      for (guint i = at; i < at + n; i++)
        {
          row.v = batch.values + (gsize) i * batch.n_columns;
          row.nulls = batch.nulls[i];
          runs->args[i] = row_args (r, &row, COL_ARGS);
        }
    }
  /* the first row's was counted when it was read */
  negative = runs->negative[at + n] - runs->negative[at + 1];

  columns.start = runs->start;
  columns.end = runs->end;
  columns.name = runs->name;
  columns.category = runs->category;
  columns.correlation = runs->correlation;
  columns.external_id = runs->external_id;
  columns.args = runs->args;
  columns.kind = runs->kind;
  columns.gpu = NULL;
  added = ks_trace_builder_add_slices (r->b, track, &columns, at, n, NULL, &first);

  if (deferring)
    _ks_sqlite_args_defer_run (r->args_stage, &batch, COL_ARGS, at, n, added ? track : KS_NO_INDEX, first);

  r->n_runs++;
  r->n_run_slices += n;
  r->negative_durations += negative;
  if (!r->have_end || max_end > r->max_end)
    {
      r->max_end = max_end;
      r->have_end = TRUE;
    }
  /* the first row was delivered; the run's others are taken here */
  _ks_sqlite_scan_skip (best->scan, n - 1);
  return n;
}
