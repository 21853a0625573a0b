/* ks-rank-summaries.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-analysis.h"

G_BEGIN_DECLS

/* The Ranks report of a job built from its ranks one at a time: each
 * rank's trace is loaded, analysed and let go (a few at once, on a pool
 * of threads), and only its row and its collectives are kept; the
 * collectives of all ranks are then matched, the clocks aligned and the
 * waits counted as ks_analysis_compute() does over the whole job. What
 * `kinescope-cli ranks` merges, and what the window and `stats --report
 * ranks` show for a folder too large to hold whole (see
 * ks_rank_summaries_memory_bound()).
 *
 * Rows are added with add_row() (from a summary or a trace), then
 * finish() sorts them by rank and fills in the waits; the getters are
 * valid after finish(). */

#define KS_TYPE_RANK_SUMMARIES (ks_rank_summaries_get_type ())

G_DECLARE_FINAL_TYPE (KsRankSummaries, ks_rank_summaries, KS, RANK_SUMMARIES, GObject)

KsRankSummaries        *ks_rank_summaries_new             (void);
/* A row of rank @row->rank (its strings copied) from @source, a trace
 * or a summary file; an error when another source gave that rank.
 * @utc_offset: the wall clock of the source's time 0, G_MININT64 when
 * unknown. */
gboolean                ks_rank_summaries_add_row         (KsRankSummaries          *self,
                                                           const char               *source,
                                                           const KsRankStats        *row,
                                                           gint64                    utc_offset,
                                                           GError                  **error);
/* A collective of rank @rank on its source's clock; FALSE when the rank
 * has no row or the times are not a span. @in_steps: as KsCollective's. */
gboolean                ks_rank_summaries_add_collective  (KsRankSummaries          *self,
                                                           gint64                    rank,
                                                           guint8                    kind,
                                                           const char               *group,
                                                           gint64                    start,
                                                           gint64                    end,
                                                           gboolean                  in_steps);
/* Loads and analyses the traces @paths (files, not folders), @jobs at
 * a time, and adds their rows and collectives. A trace that names no
 * rank is an error, or with @skip_unranked left out as the whole load
 * of a folder leaves it out of the Ranks report (see
 * ks_rank_summaries_get_left_out()). Call it from one thread. */
gboolean                ks_rank_summaries_add_traces      (KsRankSummaries          *self,
                                                           const char * const       *paths,
                                                           guint                     n_paths,
                                                           guint                     jobs,
                                                           gboolean                  skip_unranked,
                                                           const KsAnalysisOptions  *options,
                                                           KsProgress               *progress,
                                                           GCancellable             *cancellable,
                                                           GError                  **error);
void                    ks_rank_summaries_finish          (KsRankSummaries          *self);

/* By rank, after finish(). */
const KsRankStats      *ks_rank_summaries_get_rows        (KsRankSummaries          *self,
                                                           guint                    *n_rows);
/* The trace or summary row @row came from. */
const char             *ks_rank_summaries_get_source      (KsRankSummaries          *self,
                                                           guint                     row);
/* The row the others waited for most, or KS_NO_INDEX. */
guint                   ks_rank_summaries_get_straggler   (KsRankSummaries          *self);
const KsClockAlignment *ks_rank_summaries_get_clock       (KsRankSummaries          *self);
/* The traces left out for naming no rank (paths, in their order), or
 * NULL when none was. */
const char * const     *ks_rank_summaries_get_left_out    (KsRankSummaries          *self);
guint                   ks_rank_summaries_get_n_collectives
                                                          (KsRankSummaries          *self);
/* The JSON the folder holds, and the bound it was over, as given to
 * set_sizes() (0 when not set). */
void                    ks_rank_summaries_set_sizes       (KsRankSummaries          *self,
                                                           guint64                   json_bytes,
                                                           guint64                   bound);
guint64                 ks_rank_summaries_get_json_bytes  (KsRankSummaries          *self);
guint64                 ks_rank_summaries_get_bound       (KsRankSummaries          *self);

/* The summaries of @files (a job's trace files) on a thread, @jobs at a
 * time (see ks_rank_summaries_plan_jobs()), reporting to @progress. */
void                    ks_rank_summaries_compute_async   (GFile                   **files,
                                                           guint                     n_files,
                                                           guint                     jobs,
                                                           const KsAnalysisOptions  *options,
                                                           KsProgress               *progress,
                                                           GCancellable             *cancellable,
                                                           GAsyncReadyCallback       callback,
                                                           gpointer                  user_data);
KsRankSummaries        *ks_rank_summaries_compute_finish  (GAsyncResult             *result,
                                                           GError                  **error);

/* The most JSON text (bytes, inflated) that is loaded as one trace when
 * a job's ranks are opened together; past it only summaries are made.
 * KINESCOPE_FOLDER_MEMORY_MB when set (0: always summaries), else
 * @setting_mb when above 0, else an eighth of the machine's memory:
 * a trace's model takes about half its JSON, and the window holds the
 * analysis and a layout besides. */
guint64                 ks_rank_summaries_memory_bound    (gint64                    setting_mb);
/* The JSON text @files hold: a .json.gz counts its inflated size (the
 * gzip trailer's, at least the compressed size). */
guint64                 ks_rank_summaries_json_size       (GFile                   **files,
                                                           guint                     n_files);
/* Whether @files, the ranks of a job, are over @bound. One file never
 * is: it has no ranks to load one by one. */
gboolean                ks_rank_summaries_over_bound      (GFile                   **files,
                                                           guint                     n_files,
                                                           guint64                   bound,
                                                           guint64                  *json_bytes);

/* How many of @files to summarise at once: one a thread of a load
 * (KINESCOPE_THREADS, else the cores), but no more than the largest of
 * them fits in @bound that many times, so that the traces held at once
 * stay within it. At least one. */
guint                   ks_rank_summaries_plan_jobs       (GFile                   **files,
                                                           guint                     n_files,
                                                           guint64                   bound);

G_END_DECLS
