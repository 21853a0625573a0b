/* ks-rank-summaries.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-rank-summaries"

#include "config.h"

#include <string.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include "ks-json-reader.h"
#include "ks-rank-summaries.h"
#include "ks-trace-loader.h"

struct _KsRankSummaries
{
  GObject           parent_instance;

  GArray           *rows;        /* KsRankStats */
  GArray           *collectives; /* KsCollective, rank = row */
  GArray           *utc;         /* gint64 per row; G_MININT64 unknown */
  GStringChunk     *strings;
  GHashTable       *row_of_rank; /* rank -> row + 1 */
  GPtrArray        *row_source;  /* the trace or summary each row came from */
  GPtrArray        *left_out;    /* traces that name no rank, NULL-terminated */
  guint             straggler;
  KsClockAlignment  clock;
  guint64           json_bytes;
  guint64           bound;
};

G_DEFINE_FINAL_TYPE (KsRankSummaries, ks_rank_summaries, G_TYPE_OBJECT)

static void
ks_rank_summaries_finalize (GObject *object)
{
  KsRankSummaries *self = KS_RANK_SUMMARIES (object);

  g_array_unref (self->rows);
  g_array_unref (self->collectives);
  g_array_unref (self->utc);
  g_string_chunk_free (self->strings);
  g_hash_table_unref (self->row_of_rank);
  g_ptr_array_unref (self->row_source);
  g_ptr_array_unref (self->left_out);

  G_OBJECT_CLASS (ks_rank_summaries_parent_class)->finalize (object);
}

static void
ks_rank_summaries_class_init (KsRankSummariesClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ks_rank_summaries_finalize;
}

static void
ks_rank_summaries_init (KsRankSummaries *self)
{
  self->rows = g_array_new (FALSE, TRUE, sizeof (KsRankStats));
  self->collectives = g_array_new (FALSE, TRUE, sizeof (KsCollective));
  self->utc = g_array_new (FALSE, FALSE, sizeof (gint64));
  self->strings = g_string_chunk_new (1024);
  self->row_of_rank = g_hash_table_new (NULL, NULL);
  self->row_source = g_ptr_array_new_with_free_func (g_free);
  self->left_out = g_ptr_array_new_null_terminated (0, g_free, TRUE);
  self->straggler = KS_NO_INDEX;
  self->clock.method = KS_CLOCK_ONE_RANK;
  self->clock.skew_ns = -1;
}

KsRankSummaries *
ks_rank_summaries_new (void)
{
  return g_object_new (KS_TYPE_RANK_SUMMARIES, NULL);
}

static const char *
keep (KsRankSummaries *self,
      const char      *s)
{
  return s != NULL ? g_string_chunk_insert_const (self->strings, s) : NULL;
}

/* The waits are the merge's: a summary of one rank knows none. */
gboolean
ks_rank_summaries_add_row (KsRankSummaries    *self,
                           const char         *source,
                           const KsRankStats  *row,
                           gint64              utc_offset,
                           GError            **error)
{
  gpointer seen;
  KsRankStats copy = *row;

  g_return_val_if_fail (KS_IS_RANK_SUMMARIES (self), FALSE);

  seen = g_hash_table_lookup (self->row_of_rank, GINT_TO_POINTER (row->rank));
  if (seen != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: rank %d is also in %s"), source, row->rank,
                   (const char *)g_ptr_array_index (self->row_source, GPOINTER_TO_UINT (seen) - 1));
      return FALSE;
    }
  copy.rank_index = self->rows->len;
  copy.file = keep (self, row->file);
  copy.host = keep (self, row->host);
  copy.wait_ns = copy.wait_caused_ns = copy.clock_offset_ns = 0;
  g_hash_table_insert (self->row_of_rank, GINT_TO_POINTER (row->rank), GUINT_TO_POINTER (self->rows->len + 1));
  g_ptr_array_add (self->row_source, g_strdup (source));
  g_array_append_val (self->rows, copy);
  g_array_append_val (self->utc, utc_offset);
  return TRUE;
}

gboolean
ks_rank_summaries_add_collective (KsRankSummaries *self,
                                  gint64           rank,
                                  guint8           kind,
                                  const char      *group,
                                  gint64           start,
                                  gint64           end,
                                  gboolean         in_steps)
{
  gpointer row;
  KsCollective c;

  g_return_val_if_fail (KS_IS_RANK_SUMMARIES (self), FALSE);

  if (rank < 0 || rank > G_MAXINT32 || start == G_MININT64 || end < start)
    return FALSE;
  row = g_hash_table_lookup (self->row_of_rank, GINT_TO_POINTER ((gint)rank));
  if (row == NULL)
    return FALSE;
  memset (&c, 0, sizeof c);
  c.rank = GPOINTER_TO_UINT (row) - 1;
  c.kind = kind;
  c.start = start;
  c.end = end;
  c.process_group = keep (self, group != NULL ? group : "");
  c.dtype = keep (self, "");
  c.wait_ns = -1;
  c.last_rank = KS_NO_INDEX;
  c.in_steps = in_steps;
  g_array_append_val (self->collectives, c);
  return TRUE;
}

/* Traces summarised in parallel, each loaded, analysed and let go by one
 * worker: at most @jobs traces are in memory at once, the merge keeps
 * only their rows and calls. */
typedef struct
{
  KsRankSummaries         *self;
  const KsAnalysisOptions *options;
  KsProgress              *progress;
  GCancellable            *cancellable;
  gboolean                 skip_unranked;
  GMutex                   lock;
  GError                  *error;
  guint                    n_done;
  guint                    n_total;
} Pool;

static void
summarise_trace (gpointer data,
                 gpointer user_data)
{
  char *path = data;
  Pool *pool = user_data;
  g_autoptr(GFile) file = g_file_new_for_commandline_arg (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsAnalysis) analysis = NULL;
  const KsRankStats *rows;
  const KsCollective *cs;
  guint n_rows, n;
  gint64 utc;

  if (!g_cancellable_set_error_if_cancelled (pool->cancellable, &error))
    trace = ks_trace_load (file, NULL, pool->cancellable, &error);
  if (trace != NULL)
    analysis = ks_analysis_compute (trace, pool->options, NULL, pool->cancellable, &error);
  g_mutex_lock (&pool->lock);
  pool->n_done++;
  if (pool->progress != NULL)
    ks_progress_set_fraction (pool->progress, (double)pool->n_done / pool->n_total);
  if (pool->error != NULL)
    goto out;
  if (analysis == NULL)
    {
      pool->error = g_steal_pointer (&error);
      goto out;
    }
  rows = ks_analysis_get_rank_stats (analysis, &n_rows);
  utc = trace->start_utc_ns != 0 ? trace->start_utc_ns - trace->origin_ns : G_MININT64;
  for (guint r = 0; r < n_rows; r++)
    {
      if (rows[r].rank < 0 && pool->skip_unranked)
        {
          g_ptr_array_add (pool->self->left_out, g_strdup (path));
          goto out;
        }
      if (rows[r].rank < 0)
        {
          g_set_error (&pool->error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("%s: the trace names no rank (name the file rankN, or record with RANK set)"), path);
          goto out;
        }
      if (!ks_rank_summaries_add_row (pool->self, path, &rows[r], utc, &pool->error))
        goto out;
    }
  cs = ks_analysis_get_collectives (analysis, &n);
  for (guint i = 0; i < n; i++)
    ks_rank_summaries_add_collective (pool->self, trace->ranks[cs[i].rank].rank, cs[i].kind, cs[i].process_group,
                                      trace->origin_ns + cs[i].start, trace->origin_ns + cs[i].end, cs[i].in_steps);
out:
  g_mutex_unlock (&pool->lock);
  g_free (path);
}

gboolean
ks_rank_summaries_add_traces (KsRankSummaries          *self,
                              const char * const       *paths,
                              guint                     n_paths,
                              guint                     jobs,
                              gboolean                  skip_unranked,
                              const KsAnalysisOptions  *options,
                              KsProgress               *progress,
                              GCancellable             *cancellable,
                              GError                  **error)
{
  Pool pool = { self, options, progress, cancellable, skip_unranked };
  GThreadPool *workers;

  g_return_val_if_fail (KS_IS_RANK_SUMMARIES (self), FALSE);

  if (n_paths == 0)
    return TRUE;
  pool.n_total = n_paths;
  g_mutex_init (&pool.lock);
  workers = g_thread_pool_new (summarise_trace, &pool, MAX (MIN (jobs, n_paths), 1), TRUE, error);
  if (workers == NULL)
    {
      g_mutex_clear (&pool.lock);
      return FALSE;
    }
  for (guint i = 0; i < n_paths; i++)
    g_thread_pool_push (workers, g_strdup (paths[i]), NULL);
  g_thread_pool_free (workers, FALSE, TRUE);
  g_mutex_clear (&pool.lock);
  if (pool.error != NULL)
    {
      g_propagate_error (error, pool.error);
      return FALSE;
    }
  return TRUE;
}

/* Rows by rank, so calls of one rank are in its order whichever worker
 * added them first: ties broken by every field the match reads. */
static int
compare_by_row_then_start (gconstpointer a,
                           gconstpointer b)
{
  const KsCollective *x = a, *y = b;

  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  if (x->end != y->end)
    return x->end < y->end ? -1 : 1;
  if (x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1;
  return strcmp (x->process_group, y->process_group);
}

static int
compare_paths (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *)a, *(const char * const *)b);
}

static int
compare_rows_by_rank (gconstpointer a,
                      gconstpointer b)
{
  const KsRankStats *x = a, *y = b;

  return (x->rank > y->rank) - (x->rank < y->rank);
}

void
ks_rank_summaries_finish (KsRankSummaries *self)
{
  g_autoptr(GHashTable) host_ids = g_hash_table_new (g_str_hash, g_str_equal);
  guint n_rows = self->rows->len;
  guint *new_row = g_new (guint, MAX (n_rows, 1));
  gint64 *offsets = g_new0 (gint64, MAX (n_rows, 1));
  gint64 *caused = g_new0 (gint64, MAX (n_rows, 1));
  guint32 *hosts = g_new (guint32, MAX (n_rows, 1));
  gboolean all_utc = TRUE;

  g_return_if_fail (KS_IS_RANK_SUMMARIES (self));

  /* in the order given, whichever worker came first */
  g_ptr_array_sort (self->left_out, compare_paths);
  /* Rows by rank; the collectives, clocks and sources follow them. */
  g_array_sort (self->rows, compare_rows_by_rank);
  for (guint r = 0; r < n_rows; r++)
    new_row[g_array_index (self->rows, KsRankStats, r).rank_index] = r;
  for (guint i = 0; i < self->collectives->len; i++)
    {
      KsCollective *c = &g_array_index (self->collectives, KsCollective, i);

      c->rank = new_row[c->rank];
    }
  {
    g_autoptr(GArray) utc = g_array_copy (self->utc);
    GPtrArray *sources = g_ptr_array_new_full (n_rows, g_free);

    g_ptr_array_set_size (sources, n_rows);
    for (guint r = 0; r < n_rows; r++)
      {
        g_array_index (self->utc, gint64, new_row[r]) = g_array_index (utc, gint64, r);
        g_ptr_array_index (sources, new_row[r]) = g_steal_pointer (&g_ptr_array_index (self->row_source, r));
      }
    g_ptr_array_unref (self->row_source);
    self->row_source = sources;
    g_hash_table_remove_all (self->row_of_rank);
  }
  g_free (new_row);

  for (guint r = 0; r < n_rows; r++)
    {
      KsRankStats *row = &g_array_index (self->rows, KsRankStats, r);

      row->rank_index = r;
      g_hash_table_insert (self->row_of_rank, GINT_TO_POINTER (row->rank), GUINT_TO_POINTER (r + 1));
      hosts[r] = G_MAXUINT32;
      if (row->host != NULL)
        {
          if (!g_hash_table_contains (host_ids, row->host))
            g_hash_table_insert (host_ids, (gpointer)row->host, GUINT_TO_POINTER (g_hash_table_size (host_ids)));
          hosts[r] = GPOINTER_TO_UINT (g_hash_table_lookup (host_ids, row->host));
        }
      if (g_array_index (self->utc, gint64, r) == G_MININT64)
        all_utc = FALSE;
    }

  g_array_sort (self->collectives, compare_by_row_then_start);
  {
    KsCollective *cs = (KsCollective *)(gpointer)self->collectives->data;
    guint n = self->collectives->len;

    ks_collectives_number (cs, n);
    ks_collectives_align (cs, n, n_rows, hosts, all_utc ? (const gint64 *)(gpointer)self->utc->data : NULL,
                          offsets, &self->clock);
    ks_collectives_match (cs, n, offsets, caused);
    for (guint i = 0; i < n; i++)
      if (cs[i].wait_ns > 0 && cs[i].in_steps)
        g_array_index (self->rows, KsRankStats, cs[i].rank).wait_ns += cs[i].wait_ns;
  }
  self->straggler = KS_NO_INDEX;
  for (guint r = 0; r < n_rows; r++)
    {
      KsRankStats *row = &g_array_index (self->rows, KsRankStats, r);

      row->wait_caused_ns = caused[r];
      row->clock_offset_ns = offsets[r];
      if (caused[r] > 0 && (self->straggler == KS_NO_INDEX || caused[r] > caused[self->straggler]))
        self->straggler = r;
    }
  g_free (offsets);
  g_free (caused);
  g_free (hosts);
}

const KsRankStats *
ks_rank_summaries_get_rows (KsRankSummaries *self,
                            guint           *n_rows)
{
  g_return_val_if_fail (KS_IS_RANK_SUMMARIES (self), NULL);

  if (n_rows != NULL)
    *n_rows = self->rows->len;
  return (const KsRankStats *)(gpointer)self->rows->data;
}

const char *
ks_rank_summaries_get_source (KsRankSummaries *self,
                              guint            row)
{
  g_return_val_if_fail (KS_IS_RANK_SUMMARIES (self), NULL);
  g_return_val_if_fail (row < self->row_source->len, NULL);

  return g_ptr_array_index (self->row_source, row);
}

guint
ks_rank_summaries_get_straggler (KsRankSummaries *self)
{
  g_return_val_if_fail (KS_IS_RANK_SUMMARIES (self), KS_NO_INDEX);

  return self->straggler;
}

const KsClockAlignment *
ks_rank_summaries_get_clock (KsRankSummaries *self)
{
  g_return_val_if_fail (KS_IS_RANK_SUMMARIES (self), NULL);

  return &self->clock;
}

const char * const *
ks_rank_summaries_get_left_out (KsRankSummaries *self)
{
  g_return_val_if_fail (KS_IS_RANK_SUMMARIES (self), NULL);

  return self->left_out->len > 0 ? (const char * const *)self->left_out->pdata : NULL;
}

guint
ks_rank_summaries_get_n_collectives (KsRankSummaries *self)
{
  g_return_val_if_fail (KS_IS_RANK_SUMMARIES (self), 0);

  return self->collectives->len;
}

void
ks_rank_summaries_set_sizes (KsRankSummaries *self,
                             guint64          json_bytes,
                             guint64          bound)
{
  g_return_if_fail (KS_IS_RANK_SUMMARIES (self));

  self->json_bytes = json_bytes;
  self->bound = bound;
}

guint64
ks_rank_summaries_get_json_bytes (KsRankSummaries *self)
{
  g_return_val_if_fail (KS_IS_RANK_SUMMARIES (self), 0);

  return self->json_bytes;
}

guint64
ks_rank_summaries_get_bound (KsRankSummaries *self)
{
  g_return_val_if_fail (KS_IS_RANK_SUMMARIES (self), 0);

  return self->bound;
}

typedef struct
{
  GPtrArray         *paths;
  guint              jobs;
  KsAnalysisOptions  options;
  gboolean           have_options;
  KsProgress        *progress;
} ComputeData;

static void
compute_data_free (gpointer data)
{
  ComputeData *cd = data;

  g_ptr_array_unref (cd->paths);
  g_clear_pointer (&cd->progress, ks_progress_unref);
  g_free (cd);
}

static void
compute_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  ComputeData *cd = task_data;
  g_autoptr(KsRankSummaries) self = ks_rank_summaries_new ();
  GError *error = NULL;

  if (cd->progress != NULL)
    ks_progress_set_message (cd->progress, _("Summarising the ranks…"));
  if (!ks_rank_summaries_add_traces (self, (const char * const *)cd->paths->pdata, cd->paths->len,
                                     cd->jobs, TRUE, cd->have_options ? &cd->options : NULL,
                                     cd->progress, cancellable, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  ks_rank_summaries_finish (self);
  g_task_return_pointer (task, g_steal_pointer (&self), g_object_unref);
}

void
ks_rank_summaries_compute_async (GFile                   **files,
                                 guint                     n_files,
                                 guint                     jobs,
                                 const KsAnalysisOptions  *options,
                                 KsProgress               *progress,
                                 GCancellable             *cancellable,
                                 GAsyncReadyCallback       callback,
                                 gpointer                  user_data)
{
  g_autoptr(GTask) task = NULL;
  ComputeData *cd = g_new0 (ComputeData, 1);

  cd->paths = g_ptr_array_new_with_free_func (g_free);
  cd->jobs = MAX (jobs, 1);
  for (guint i = 0; i < n_files; i++)
    g_ptr_array_add (cd->paths, g_file_get_path (files[i]));
  if (options != NULL)
    {
      cd->options = *options;
      cd->have_options = TRUE;
    }
  cd->progress = progress != NULL ? ks_progress_ref (progress) : NULL;

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, ks_rank_summaries_compute_async);
  g_task_set_task_data (task, cd, compute_data_free);
  g_task_run_in_thread (task, compute_thread);
}

KsRankSummaries *
ks_rank_summaries_compute_finish (GAsyncResult  *result,
                                  GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == ks_rank_summaries_compute_async, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

guint64
ks_rank_summaries_memory_bound (gint64 setting_mb)
{
  const char *env = g_getenv ("KINESCOPE_FOLDER_MEMORY_MB");
  guint64 mb;
  long pages = sysconf (_SC_PHYS_PAGES);
  long page_size = sysconf (_SC_PAGESIZE);

  if (env != NULL && g_ascii_string_to_unsigned (env, 10, 0, G_MAXUINT64 >> 20, &mb, NULL))
    return mb << 20;
  if (setting_mb > 0)
    return (guint64)setting_mb << 20;
  if (pages <= 0 || page_size <= 0)
    return G_GUINT64_CONSTANT (2) << 30;
  return (guint64)pages * (guint64)page_size / 8;
}

guint64
ks_rank_summaries_json_size (GFile **files,
                             guint   n_files)
{
  guint64 total = 0;

  for (guint i = 0; i < n_files; i++)
    total += ks_json_file_text_size (files[i]);
  return total;
}

gboolean
ks_rank_summaries_over_bound (GFile   **files,
                              guint     n_files,
                              guint64   bound,
                              guint64  *json_bytes)
{
  guint64 bytes;

  if (json_bytes != NULL)
    *json_bytes = 0;
  if (n_files < 2)
    return FALSE;
  bytes = ks_rank_summaries_json_size (files, n_files);
  if (json_bytes != NULL)
    *json_bytes = bytes;
  return bytes > bound;
}

guint
ks_rank_summaries_plan_jobs (GFile   **files,
                             guint     n_files,
                             guint64   bound)
{
  guint64 largest = 1;
  guint threads = ks_json_reader_get_n_threads ();

  for (guint i = 0; i < n_files; i++)
    largest = MAX (largest, ks_json_file_text_size (files[i]));
  return (guint)CLAMP (bound / largest, 1, MAX (threads, 1));
}
