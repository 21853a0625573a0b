/* ks-cli-ranks.c: kinescope-cli ranks
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-cli-ranks"

#include "config.h"

#include <stdio.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ks-analysis.h"
#include "ks-cli.h"
#include "ks-cli-common.h"
#include "ks-cli-table.h"
#include "ks-format.h"
#include "ks-json-reader.h"
#include "ks-json-writer.h"
#include "ks-report.h"
#include "ks-trace-loader.h"

/* Merges the summaries that `kinescope-cli stats --report ranks --format
 * json --collectives` wrote for each rank (run apart, under the cluster's
 * scheduler) into the Ranks report of the job: the collectives of all of
 * them matched as in one folder, on one clock. */

typedef struct
{
  GArray       *rows;        /* KsRankStats */
  GArray       *collectives; /* KsCollective, rank = row */
  GArray       *utc;         /* gint64 per row; G_MININT64 unknown */
  GStringChunk *strings;
  GHashTable   *row_of_rank; /* rank -> row + 1 */
  GPtrArray    *row_file;    /* the summary each row came from */
} Merge;

static gboolean
kind_from_string (const char *s,
                  guint8     *kind)
{
  for (guint k = 0; k < KS_N_COLLECTIVE_KINDS; k++)
    if (strcmp (s, ks_collective_kind_to_string (k)) == 0)
      {
        *kind = k;
        return TRUE;
      }
  return FALSE;
}

static const char *
keep (Merge      *m,
      const char *s)
{
  return s != NULL ? g_string_chunk_insert_const (m->strings, s) : NULL;
}

/* A row of rank @row->rank from @path (its strings copied), or an error
 * when another file gave that rank. The waits are the merge's: a summary
 * of one rank knows none. */
static gboolean
add_row (Merge              *m,
         const char         *path,
         const KsRankStats  *row,
         gint64              utc_offset,
         GError            **error)
{
  gpointer seen = g_hash_table_lookup (m->row_of_rank, GINT_TO_POINTER (row->rank));
  KsRankStats copy = *row;

  if (seen != NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: rank %d is also in %s"), path, row->rank,
                   (const char *)g_ptr_array_index (m->row_file, GPOINTER_TO_UINT (seen) - 1));
      return FALSE;
    }
  copy.rank_index = m->rows->len;
  copy.file = keep (m, row->file);
  copy.host = keep (m, row->host);
  copy.wait_ns = copy.wait_caused_ns = copy.clock_offset_ns = 0;
  g_hash_table_insert (m->row_of_rank, GINT_TO_POINTER (row->rank), GUINT_TO_POINTER (m->rows->len + 1));
  g_ptr_array_add (m->row_file, g_strdup (path));
  g_array_append_val (m->rows, copy);
  g_array_append_val (m->utc, utc_offset);
  return TRUE;
}

/* A call of rank @rank on its file's clock. */
static gboolean
add_collective (Merge        *m,
                gint64        rank,
                guint8        kind,
                const char   *group,
                gint64        start,
                gint64        end,
                gboolean      in_steps)
{
  gpointer row = g_hash_table_lookup (m->row_of_rank, GINT_TO_POINTER ((gint)rank));
  KsCollective c;

  if (row == NULL || rank < 0 || rank > G_MAXINT32 || start == G_MININT64 || end < start)
    return FALSE;
  memset (&c, 0, sizeof c);
  c.rank = GPOINTER_TO_UINT (row) - 1;
  c.kind = kind;
  c.start = start;
  c.end = end;
  c.process_group = keep (m, group != NULL ? group : "");
  c.dtype = keep (m, "");
  c.wait_ns = -1;
  c.last_rank = KS_NO_INDEX;
  c.in_steps = in_steps;
  g_array_append_val (m->collectives, c);
  return TRUE;
}

static gboolean
read_rows (Merge       *m,
           const char  *path,
           yajl_val     root,
           gint64       utc_offset,
           GError     **error)
{
  yajl_val list = ks_json_get_array (root, "ranks");

  if (list == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: not a Ranks summary (no \"ranks\" list; write it with kinescope-cli stats --report ranks --format json)"),
                   path);
      return FALSE;
    }
  for (gsize i = 0; i < YAJL_GET_ARRAY (list)->len; i++)
    {
      yajl_val o = YAJL_GET_ARRAY (list)->values[i];
      KsRankStats row;
      gint64 rank = ks_json_get_int (o, "rank", -1);

      if (!YAJL_IS_OBJECT (o) || rank < 0 || rank > G_MAXINT32)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("%s: row %u of \"ranks\" has no rank (the trace said none: name the file rankN, or record with RANK set)"),
                       path, (guint)i + 1);
          return FALSE;
        }
      memset (&row, 0, sizeof row);
      row.rank = (gint32)rank;
      row.file = ks_json_get_string (o, "file");
      row.host = ks_json_get_string (o, "host");
      row.steps = (guint)ks_json_get_int (o, "steps", 0);
      row.step_mean_ns = ks_json_get_int (o, "step_mean_ns", 0);
      row.window_ns = ks_json_get_int (o, "window_ns", 0);
      row.kernels = (guint64)ks_json_get_int (o, "kernels", 0);
      row.kernel_time_ns = ks_json_get_int (o, "kernel_time_ns", 0);
      row.busy_pct = ks_json_get_double (o, "busy_pct", 0);
      row.compute_ns = ks_json_get_int (o, "compute_ns", 0);
      row.comm_ns = ks_json_get_int (o, "comm_ns", 0);
      row.exposed_comm_ns = ks_json_get_int (o, "exposed_comm_ns", 0);
      row.overlap_pct = ks_json_get_double (o, "overlap_pct", 0);
      row.collectives = (guint64)ks_json_get_int (o, "collectives", 0);
      if (!add_row (m, path, &row, utc_offset, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
read_collectives (Merge       *m,
                  const char  *path,
                  yajl_val     root,
                  GError     **error)
{
  yajl_val list = ks_json_get_array (root, "collectives");

  if (list == NULL)
    return TRUE;
  for (gsize i = 0; i < YAJL_GET_ARRAY (list)->len; i++)
    {
      yajl_val o = YAJL_GET_ARRAY (list)->values[i];
      const char *kind = ks_json_get_string (o, "kind");
      guint8 k;

      if (kind == NULL || !kind_from_string (kind, &k)
          || !add_collective (m, ks_json_get_int (o, "rank", -1), k, ks_json_get_string (o, "group"),
                              ks_json_get_int (o, "start_ns", G_MININT64), ks_json_get_int (o, "end_ns", G_MININT64),
                              ks_json_get_bool (o, "in_steps", TRUE)))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("%s: collective %u is not one (a known kind, a rank of the file, start_ns <= end_ns)"),
                       path, (guint)i + 1);
          return FALSE;
        }
    }
  return TRUE;
}

static gboolean
read_summary (Merge       *m,
              const char  *path,
              GError     **error)
{
  g_autofree char *text = NULL;
  yajl_val root;
  gboolean ok;
  gint64 utc;

  if (!g_file_get_contents (path, &text, NULL, error))
    return FALSE;
  root = ks_json_parse (text, error);
  if (root == NULL)
    {
      g_prefix_error (error, "%s: ", path);
      return FALSE;
    }
  utc = ks_json_get_int (root, "utc_offset_ns", G_MININT64);
  ok = read_rows (m, path, root, utc, error) && read_collectives (m, path, root, error);
  yajl_tree_free (root);
  return ok;
}

/* Traces summarised in parallel, each loaded, analysed and let go by one
 * worker: at most --jobs traces are in memory at once, the merge keeps
 * only their rows and calls. */
typedef struct
{
  Merge   *m;
  GMutex   lock;
  GError  *error;
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

  trace = ks_trace_load (file, NULL, NULL, &error);
  if (trace != NULL)
    analysis = ks_analysis_compute (trace, NULL, NULL, NULL, &error);
  g_mutex_lock (&pool->lock);
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
      if (rows[r].rank < 0)
        {
          g_set_error (&pool->error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("%s: the trace names no rank (name the file rankN, or record with RANK set)"), path);
          goto out;
        }
      if (!add_row (pool->m, path, &rows[r], utc, &pool->error))
        goto out;
    }
  cs = ks_analysis_get_collectives (analysis, &n);
  for (guint i = 0; i < n; i++)
    add_collective (pool->m, trace->ranks[cs[i].rank].rank, cs[i].kind, cs[i].process_group,
                    trace->origin_ns + cs[i].start, trace->origin_ns + cs[i].end, cs[i].in_steps);
out:
  g_mutex_unlock (&pool->lock);
  g_free (path);
}

/* A summary is what stats writes: it starts {"ranks": */
static gboolean
is_summary (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_commandline_arg (path);
  g_autoptr(GFileInputStream) in = g_file_read (file, NULL, NULL);
  char head[10] = { 0 };

  return in != NULL
         && g_input_stream_read (G_INPUT_STREAM (in), head, sizeof head - 1, NULL, NULL) == sizeof head - 1
         && memcmp (head, "{\"ranks\":", 9) == 0;
}

static gboolean
summarise_traces (Merge       *m,
                  GPtrArray   *traces,
                  guint        jobs,
                  GError     **error)
{
  Pool pool = { m };
  GThreadPool *workers;

  if (traces->len == 0)
    return TRUE;
  g_mutex_init (&pool.lock);
  workers = g_thread_pool_new (summarise_trace, &pool, MAX (MIN (jobs, traces->len), 1), TRUE, error);
  if (workers == NULL)
    return FALSE;
  for (guint i = 0; i < traces->len; i++)
    g_thread_pool_push (workers, g_strdup (g_ptr_array_index (traces, i)), NULL);
  g_thread_pool_free (workers, FALSE, TRUE);
  g_mutex_clear (&pool.lock);
  if (pool.error != NULL)
    {
      g_propagate_error (error, pool.error);
      return FALSE;
    }
  return TRUE;
}

static int
compare_by_row_then_start (gconstpointer a,
                           gconstpointer b)
{
  const KsCollective *x = a, *y = b;

  if (x->rank != y->rank)
    return x->rank < y->rank ? -1 : 1;
  return (x->start > y->start) - (x->start < y->start);
}

static int
compare_rows_by_rank (gconstpointer a,
                      gconstpointer b)
{
  const KsRankStats *x = a, *y = b;

  return (x->rank > y->rank) - (x->rank < y->rank);
}

int
ks_cli_ranks (int    argc,
              char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) files = NULL;
  g_autofree char *format = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(KsReport) report = NULL;
  g_autoptr(GHashTable) host_ids = g_hash_table_new (g_str_hash, g_str_equal);
  Merge m = { 0 };
  KsClockAlignment clock = { KS_CLOCK_ONE_RANK, -1 };
  gint64 *offsets, *caused;
  guint32 *hosts;
  gboolean all_utc = TRUE;
  guint straggler = KS_NO_INDEX;
  KsReportFormat fmt = KS_REPORT_TABLE;
  int status = KS_CLI_OK;
  int jobs = (int)g_get_num_processors ();
  g_autoptr(GPtrArray) traces = g_ptr_array_new_with_free_func (g_free);
  const GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, N_("Output format: table (default), csv or json"), "table|csv|json" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs,
      N_("Summarise this many traces at once (default: one a core); each holds one trace in memory"), "N" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, N_("SUMMARY.json|TRACE|FOLDER") },
    { NULL }
  };

  context = g_option_context_new (_("SUMMARY.json|TRACE|FOLDER… — the Ranks report of a job from per-rank summaries or traces"));
  g_option_context_set_summary (context,
                                _("Merges the summaries written on each rank's node by\n"
                                  "  kinescope-cli stats --report ranks --format json --collectives TRACE\n"
                                  "into one Ranks report: the collectives of all ranks are matched (the Nth\n"
                                  "call of a process group), the clocks of different hosts aligned by the\n"
                                  "collectives' ends, and the last rank to arrive named the straggler.\n"
                                  "Traces and folders of traces are summarised here, --jobs at a time."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      ks_cli_printerr ("kinescope-cli ranks: %s\n", error->message);
      return KS_CLI_USAGE;
    }
  if (files == NULL || files[0] == NULL || jobs < 1)
    {
      ks_cli_printerr (_("kinescope-cli ranks: expected one SUMMARY.json, trace or folder or more, and --jobs of 1 or more (see --help)\n"));
      return KS_CLI_USAGE;
    }
  if (format != NULL)
    {
      if (strcmp (format, "csv") == 0)
        fmt = KS_REPORT_CSV;
      else if (strcmp (format, "json") == 0)
        fmt = KS_REPORT_JSON;
      else if (strcmp (format, "table") != 0)
        {
          ks_cli_printerr (_("kinescope-cli ranks: unknown output format “%s” (table, csv or json)\n"), format);
          return KS_CLI_USAGE;
        }
    }

  m.rows = g_array_new (FALSE, TRUE, sizeof (KsRankStats));
  m.collectives = g_array_new (FALSE, TRUE, sizeof (KsCollective));
  m.utc = g_array_new (FALSE, FALSE, sizeof (gint64));
  m.strings = g_string_chunk_new (1024);
  m.row_of_rank = g_hash_table_new (NULL, NULL);
  m.row_file = g_ptr_array_new_with_free_func (g_free);

  for (guint i = 0; files[i] != NULL && status == KS_CLI_OK; i++)
    {
      g_autoptr(GFile) file = g_file_new_for_commandline_arg (files[i]);

      if (g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, NULL) == G_FILE_TYPE_DIRECTORY)
        {
          g_autoptr(GPtrArray) children = ks_json_list_trace_files (file, NULL, &error);

          for (guint c = 0; children != NULL && c < children->len; c++)
            g_ptr_array_add (traces, g_file_get_path (g_ptr_array_index (children, c)));
          if (children == NULL || children->len == 0)
            {
              ks_cli_printerr (_("kinescope-cli ranks: %s: no trace files (*.json, *.json.gz) in the folder\n"), files[i]);
              status = KS_CLI_FAILED;
            }
        }
      else if (is_summary (files[i]))
        {
          if (!read_summary (&m, files[i], &error))
            {
              ks_cli_printerr ("kinescope-cli ranks: %s\n", error->message);
              status = KS_CLI_FAILED;
            }
        }
      else
        g_ptr_array_add (traces, g_strdup (files[i]));
    }
  if (status == KS_CLI_OK && !summarise_traces (&m, traces, (guint)jobs, &error))
    {
      ks_cli_printerr ("kinescope-cli ranks: %s\n", error->message);
      status = KS_CLI_FAILED;
    }
  if (status != KS_CLI_OK)
    goto out;

  /* Rows by rank; the collectives follow their rows there. */
  {
    guint *new_row = g_new (guint, MAX (m.rows->len, 1));

    g_array_sort (m.rows, compare_rows_by_rank);
    for (guint r = 0; r < m.rows->len; r++)
      new_row[g_array_index (m.rows, KsRankStats, r).rank_index] = r;
    for (guint i = 0; i < m.collectives->len; i++)
      {
        KsCollective *c = &g_array_index (m.collectives, KsCollective, i);

        c->rank = new_row[c->rank];
      }
    {
      g_autoptr(GArray) utc = g_array_copy (m.utc);

      for (guint r = 0; r < m.rows->len; r++)
        g_array_index (m.utc, gint64, new_row[r]) = g_array_index (utc, gint64, r);
    }
    g_free (new_row);
  }

  offsets = g_new0 (gint64, MAX (m.rows->len, 1));
  caused = g_new0 (gint64, MAX (m.rows->len, 1));
  hosts = g_new (guint32, MAX (m.rows->len, 1));
  for (guint r = 0; r < m.rows->len; r++)
    {
      KsRankStats *row = &g_array_index (m.rows, KsRankStats, r);

      row->rank_index = r;
      hosts[r] = G_MAXUINT32;
      if (row->host != NULL)
        {
          if (!g_hash_table_contains (host_ids, row->host))
            g_hash_table_insert (host_ids, (gpointer)row->host, GUINT_TO_POINTER (g_hash_table_size (host_ids)));
          hosts[r] = GPOINTER_TO_UINT (g_hash_table_lookup (host_ids, row->host));
        }
      if (g_array_index (m.utc, gint64, r) == G_MININT64)
        all_utc = FALSE;
    }

  g_array_sort (m.collectives, compare_by_row_then_start);
  {
    KsCollective *cs = (KsCollective *)(gpointer)m.collectives->data;
    guint n = m.collectives->len;

    ks_collectives_number (cs, n);
    ks_collectives_align (cs, n, m.rows->len, hosts, all_utc ? (const gint64 *)(gpointer)m.utc->data : NULL,
                          offsets, &clock);
    ks_collectives_match (cs, n, offsets, caused);
    for (guint i = 0; i < n; i++)
      if (cs[i].wait_ns > 0 && cs[i].in_steps)
        g_array_index (m.rows, KsRankStats, cs[i].rank).wait_ns += cs[i].wait_ns;
  }
  for (guint r = 0; r < m.rows->len; r++)
    {
      KsRankStats *row = &g_array_index (m.rows, KsRankStats, r);

      row->wait_caused_ns = caused[r];
      row->clock_offset_ns = offsets[r];
      if (caused[r] > 0 && (straggler == KS_NO_INDEX || caused[r] > caused[straggler]))
        straggler = r;
    }

  report = ks_report_new_rank_rows ((const KsRankStats *)(gpointer)m.rows->data, m.rows->len);
  {
    gint64 s_rank = straggler != KS_NO_INDEX ? g_array_index (m.rows, KsRankStats, straggler).rank : -1;
    gint64 s_caused = straggler != KS_NO_INDEX ? caused[straggler] : 0;

    if (fmt == KS_REPORT_JSON)
      {
        g_autoptr(KsJsonWriter) json = ks_json_writer_new ();

        ks_json_begin_object (json, NULL);
        ks_report_write_json (report, json, NULL, G_MAXUINT);
        ks_cli_write_straggler (NULL, json, s_rank, s_caused);
        ks_cli_write_clock (NULL, json, &clock);
        ks_json_end_object (json);
        g_string_append (out, ks_json_writer_get_text (json));
        g_string_append_c (out, '\n');
      }
    else if (fmt == KS_REPORT_CSV)
      ks_report_write_csv (report, out, G_MAXUINT, ks_cli_csv_escape);
    else
      {
        ks_cli_table_write (report, out, G_MAXUINT);
        g_string_append_c (out, '\n');
        ks_cli_write_straggler (out, NULL, s_rank, s_caused);
        ks_cli_write_clock (out, NULL, &clock);
        if (m.collectives->len == 0 && m.rows->len > 1)
          g_string_append_printf (out, "%s\n",
                                  _("The summaries hold no collectives: write them with --collectives to know who waits for whom."));
      }
  }
  ks_cli_write (stdout, out->str);
  g_free (offsets);
  g_free (caused);
  g_free (hosts);

out:
  g_clear_pointer (&report, ks_report_free);
  g_array_unref (m.rows);
  g_array_unref (m.collectives);
  g_array_unref (m.utc);
  g_string_chunk_free (m.strings);
  g_hash_table_unref (m.row_of_rank);
  g_ptr_array_unref (m.row_file);
  return status;
}
