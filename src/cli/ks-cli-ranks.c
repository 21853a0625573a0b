/* ks-cli-ranks.c: kinescope-cli ranks
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-cli-ranks"

#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <glib/gstdio.h>

#include "ks-analysis.h"
#include "ks-cli.h"
#include "ks-cli-common.h"
#include "ks-cli-table.h"
#include "ks-format.h"
#include "ks-json-reader.h"
#include "ks-json-writer.h"
#include "ks-report.h"
#include "ks-rank-summaries.h"
#include "ks-trace-loader.h"

/* Merges the summaries that `kinescope-cli stats --report ranks --format
 * json --collectives` wrote for each rank (run apart, under the cluster's
 * scheduler) into the Ranks report of the job: the collectives of all of
 * them matched as in one folder, on one clock. */

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

static gboolean
read_rows (KsRankSummaries *m,
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
      if (!ks_rank_summaries_add_row (m, path, &row, utc_offset, error))
        return FALSE;
    }
  return TRUE;
}

static gboolean
read_collectives (KsRankSummaries *m,
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
          || !ks_rank_summaries_add_collective (m, ks_json_get_int (o, "rank", -1), k, ks_json_get_string (o, "group"),
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
read_summary (KsRankSummaries *m,
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

/* A summary is what stats writes: it starts {"ranks": — in a regular
 * file. Opening a FIFO would block until a writer came, so the file is
 * opened without blocking and looked at first; anything else goes to
 * the loader, which refuses it and says what it is. */
static gboolean
is_summary (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_commandline_arg (path);
  g_autofree char *local = g_file_get_path (file);
  char head[10] = { 0 };
  struct stat st;
  gboolean found;
  int fd;

  if (local == NULL)
    return FALSE;
  fd = g_open (local, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
  if (fd < 0)
    return FALSE;
  found = fstat (fd, &st) == 0 && S_ISREG (st.st_mode)
          && read (fd, head, sizeof head - 1) == sizeof head - 1
          && memcmp (head, "{\"ranks\":", 9) == 0;
  g_close (fd, NULL);
  return found;
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
  g_autoptr(KsRankSummaries) m = ks_rank_summaries_new ();
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
          if (!read_summary (m, files[i], &error))
            {
              ks_cli_printerr ("kinescope-cli ranks: %s\n", error->message);
              status = KS_CLI_FAILED;
            }
        }
      else
        g_ptr_array_add (traces, g_strdup (files[i]));
    }
  if (status == KS_CLI_OK &&
      !ks_rank_summaries_add_traces (m, (const char * const *)traces->pdata, traces->len, (guint)jobs,
                                     FALSE, NULL, NULL, NULL, &error))
    {
      ks_cli_printerr ("kinescope-cli ranks: %s\n", error->message);
      status = KS_CLI_FAILED;
    }
  if (status != KS_CLI_OK)
    return status;

  ks_rank_summaries_finish (m);
  ks_cli_write_rank_summaries (out, m, fmt);
  if (fmt == KS_REPORT_TABLE && ks_rank_summaries_get_n_collectives (m) == 0)
    {
      guint n_rows;

      ks_rank_summaries_get_rows (m, &n_rows);
      if (n_rows > 1)
        g_string_append_printf (out, "%s\n",
                                _("The summaries hold no collectives: write them with --collectives to know who waits for whom."));
    }
  ks_cli_write (stdout, out->str);
  return status;
}

/* The Ranks report of @m: its rows, the straggler and the clock. */
void
ks_cli_write_rank_summaries (GString         *out,
                             KsRankSummaries *m,
                             KsReportFormat   fmt)
{
  g_autoptr(KsReport) report = NULL;
  guint n_rows;
  const KsRankStats *rows = ks_rank_summaries_get_rows (m, &n_rows);
  guint straggler = ks_rank_summaries_get_straggler (m);
  gint64 s_rank = straggler != KS_NO_INDEX ? rows[straggler].rank : -1;
  gint64 s_caused = straggler != KS_NO_INDEX ? rows[straggler].wait_caused_ns : 0;
  const KsClockAlignment *clock = ks_rank_summaries_get_clock (m);

  report = ks_report_new_rank_rows (rows, n_rows);
  if (fmt == KS_REPORT_JSON)
    {
      g_autoptr(KsJsonWriter) json = ks_json_writer_new ();

      ks_json_begin_object (json, NULL);
      ks_report_write_json (report, json, NULL, G_MAXUINT);
      ks_cli_write_straggler (NULL, json, s_rank, s_caused);
      ks_cli_write_clock (NULL, json, clock);
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
      ks_cli_write_clock (out, NULL, clock);
    }
}
