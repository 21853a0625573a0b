/* ks-cli-stats-ranks.c: stats of collectives and ranks
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* --report=comms and --report=ranks, and the Ranks report of a folder
 * merged from its ranks summarised one at a time. */

#define G_LOG_DOMAIN "ks-cli-stats"

#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ks-cli.h"
#include "ks-cli-stats-private.h"
#include "ks-format.h"
#include "ks-json-reader.h"
#include "ks-rank-summaries.h"
#include "ks-trace-loader.h"

/* Collectives by kind and size, with NCCL's bandwidths. */
void
ks_cli_stats_comms (Printer *p)
{
  g_autoptr(KsReport) comms = ks_report_new_comms (p->trace, p->analysis);

  if (p->format == KS_REPORT_JSON)
    json_list (p, comms, limited (p, comms->n_rows, 0));
  else if (p->format == KS_REPORT_CSV)
    write_list (p, comms, NULL, NULL, limited (p, comms->n_rows, 0));
  else if (comms->n_rows == 0)
    g_string_append_printf (p->out, "%s\n",
                            _("No collectives: the trace has no NCCL kernels and no gloo operations; c10d:: operations count only in a run without GPU work."));
  else
    write_list (p, comms, NULL, NULL, limited (p, comms->n_rows, 0));
}

void
ks_cli_write_clock (GString                *out,
                    KsJsonWriter           *json,
                    const KsClockAlignment *clock)
{
  static const char * const texts[] = {
    N_("Clock: one rank"),
    N_("Clock: the ranks share one"),
    N_("Clock: aligned by the collectives' ends"),
    N_("Clock: aligned by the files' UTC start (no collective matched)"),
  };

  if (json != NULL)
    {
      ks_json_begin_object (json, "clock");
      ks_json_string (json, "method", ks_clock_method_to_string (clock->method));
      if (clock->skew_ns >= 0)
        ks_json_int (json, "skew_ns", clock->skew_ns);
      else
        ks_json_null (json, "skew_ns");
      ks_json_end_object (json);
      return;
    }
  g_string_append (out, _(texts[MIN ((guint)clock->method, G_N_ELEMENTS (texts) - 1)]));
  if (clock->skew_ns >= 0 && clock->method != KS_CLOCK_ONE_RANK)
    {
      g_autofree char *skew = ks_time_format_duration (clock->skew_ns);

      g_string_append_printf (out, _(", residual skew %s"), skew);
    }
  g_string_append_c (out, '\n');
}

/* Every collective on the file's own clock, for merging the summaries
 * of ranks that ran stats apart. */
static void
write_collectives (Printer      *p,
                   KsJsonWriter *json)
{
  guint n;
  const KsCollective *cs = ks_analysis_get_collectives (p->analysis, &n);

  if (p->trace->start_utc_ns != 0)
    ks_json_int (json, "utc_offset_ns", p->trace->start_utc_ns - p->trace->origin_ns);
  else
    ks_json_null (json, "utc_offset_ns");
  ks_json_begin_array (json, "collectives");
  for (guint i = 0; i < n; i++)
    {
      ks_json_begin_object (json, NULL);
      if (cs[i].rank != KS_NO_INDEX)
        ks_json_int (json, "rank", p->trace->ranks[cs[i].rank].rank);
      else
        ks_json_null (json, "rank");
      ks_json_string (json, "kind", ks_collective_kind_to_string (cs[i].kind));
      ks_json_string (json, "group", cs[i].process_group);
      ks_json_int (json, "seq", cs[i].seq);
      ks_json_int (json, "start_ns", p->trace->origin_ns + cs[i].start);
      ks_json_int (json, "end_ns", p->trace->origin_ns + cs[i].end);
      ks_json_bool (json, "in_steps", cs[i].in_steps);
      ks_json_end_object (json);
    }
  ks_json_end_array (json);
}

void
ks_cli_write_straggler (GString       *out,
                        KsJsonWriter  *json,
                        gint64         rank,
                        gint64         wait_caused_ns)
{
  if (json != NULL)
    {
      if (rank < 0)
        {
          ks_json_null (json, "straggler");
          return;
        }
      ks_json_begin_object (json, "straggler");
      ks_json_int (json, "rank", rank);
      ks_json_int (json, "wait_caused_ns", wait_caused_ns);
      ks_json_end_object (json);
      return;
    }
  if (rank < 0)
    g_string_append_printf (out, "%s\n", _("Straggler: none (no rank waited for another)"));
  else
    {
      g_autofree char *caused = ks_time_format_duration (wait_caused_ns);

      g_string_append_printf (out, _("Straggler: rank %d, the others waited %s for it\n"),
                              (int)rank, caused);
    }
}

/* A row per rank, and the rank the others waited for most. */
void
ks_cli_stats_ranks (Printer *p)
{
  g_autoptr(KsReport) ranks = ks_report_new_ranks (p->trace, p->analysis);
  g_autoptr(KsReport) steps = ks_report_new_rank_steps (p->trace, p->analysis);
  guint straggler = ks_analysis_get_straggler (p->analysis);
  const KsRankStats *rows = ranks->rows;
  gint64 rank = straggler != KS_NO_INDEX ? rows[straggler].rank : -1;
  gint64 caused = straggler != KS_NO_INDEX ? rows[straggler].wait_caused_ns : 0;

  if (p->format == KS_REPORT_JSON)
    {
      g_autoptr(KsJsonWriter) json = ks_json_writer_new ();

      ks_json_begin_object (json, NULL);
      write_list (p, ranks, json, NULL, G_MAXUINT);
      ks_cli_write_straggler (NULL, json, rank, caused);
      ks_cli_write_clock (NULL, json, ks_analysis_get_clock_alignment (p->analysis));
      write_list (p, steps, json, NULL, limited (p, steps->n_rows, 0));
      if (p->collectives)
        write_collectives (p, json);
      json_finish (p, json);
    }
  else if (p->format == KS_REPORT_CSV)
    write_list (p, ranks, NULL, NULL, G_MAXUINT);
  else
    {
      write_list (p, ranks, NULL, NULL, G_MAXUINT);
      g_string_append_c (p->out, '\n');
      ks_cli_write_straggler (p->out, NULL, rank, caused);
      ks_cli_write_clock (p->out, NULL, ks_analysis_get_clock_alignment (p->analysis));
      if (steps->n_rows > 0)
        {
          guint shown = limited (p, steps->n_rows, 20);

          g_string_append_printf (p->out, "\n%s\n", _("Per rank and step:"));
          write_list (p, steps, NULL, NULL, shown);
          if (shown < steps->n_rows)
            g_string_append_printf (p->out, _("… %u more (use --limit)\n"), steps->n_rows - shown);
        }
    }
}

/* The trace files of a job's ranks named by @args: a folder's, or
 * several files; NULL for anything else (one file, a folder among
 * files: ks_cli_load_traces() says what is wrong with those). */
static GPtrArray *
rank_files (const char * const *args)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; args[i] != NULL; i++)
    {
      GFile *file = g_file_new_for_commandline_arg (args[i]);

      g_ptr_array_add (files, file);
      if (g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, NULL) == G_FILE_TYPE_DIRECTORY)
        return args[1] == NULL ? ks_json_list_trace_files (file, NULL, NULL) : NULL;
    }
  return files->len > 1 ? g_steal_pointer (&files) : NULL;
}

/* Past the memory bound (ks_rank_summaries_memory_bound()) the Ranks
 * report of a folder is merged from its ranks summarised one at a time,
 * as the window does; FALSE when the files are within it and are loaded
 * whole. The per-step rows need the whole job: they are left out. */
gboolean
ks_cli_stats_ranks_summarised (Printer                 *p,
                               const char * const      *args,
                               const KsAnalysisOptions *options,
                               int                     *status)
{
  g_autoptr(GPtrArray) files = rank_files (args);
  g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(KsRankSummaries) summaries = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *json_size = NULL;
  g_autofree char *bound_size = NULL;
  guint64 bound = ks_rank_summaries_memory_bound (0);
  guint64 json_bytes;

  if (files == NULL || !ks_rank_summaries_over_bound ((GFile **)files->pdata, files->len, bound, &json_bytes))
    return FALSE;
  for (guint i = 0; i < files->len; i++)
    g_ptr_array_add (paths, g_file_get_path (g_ptr_array_index (files, i)));
  summaries = ks_rank_summaries_new ();
  if (!ks_rank_summaries_add_traces (summaries, (const char * const *)paths->pdata, paths->len,
                                     ks_rank_summaries_plan_jobs ((GFile **)files->pdata, files->len, bound),
                                     TRUE, options, NULL, NULL, &error))
    {
      ks_cli_printerr ("kinescope-cli stats: %s\n", error->message);
      *status = KS_CLI_FAILED;
      return TRUE;
    }
  ks_rank_summaries_finish (summaries);
  ks_cli_write_rank_summaries (p->out, summaries, p->format);
  ks_cli_write (stdout, p->out->str);
  for (const char * const *left = ks_rank_summaries_get_left_out (summaries); left != NULL && *left; left++)
    ks_cli_printerr (_("kinescope-cli stats: %s: the trace names no rank; it is left out of the Ranks report\n"), *left);
  json_size = g_format_size (json_bytes);
  bound_size = g_format_size (bound);
  ks_cli_printerr (_("kinescope-cli stats: %s of JSON is over the memory bound of %s (KINESCOPE_FOLDER_MEMORY_MB): "
                     "the %u ranks were summarised one at a time, without the per-step rows\n"),
                   json_size, bound_size, files->len);
  *status = KS_CLI_OK;
  return TRUE;
}
