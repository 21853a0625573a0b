/* ks-cli-common.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <stdio.h>

#include <gio/gio.h>

#include "ks-analysis.h"
#include "ks-json-writer.h"
#include "ks-rank-summaries.h"
#include "ks-report.h"
#include "ks-trace.h"

G_BEGIN_DECLS

/* Loads the trace named on the command line; on failure prints
 * "kinescope-cli COMMAND: message" on stderr and returns NULL. */
KsTrace *ks_cli_load_trace   (const char *command,
                              const char *arg);
/* The same for @file, with the options of ks_cli_add_load_options(). */
KsTrace *ks_cli_load_file    (GFile      *file,
                              GError    **error);
/* From here on, an allocation that fails prints "not enough memory"
 * (naming the trace being read) and exits with KS_CLI_FAILED, where
 * GLib would abort. */
void     ks_cli_catch_out_of_memory (void);
/* --interval and --columns (for nvidia-smi logs), for every subcommand
 * that loads a trace. */
void     ks_cli_add_load_options (GOptionContext *context);

/* @value (NULL: leave @index alone) as a position in the NULL-terminated
 * @choices; else prints "kinescope-cli COMMAND: OPTION takes a, b or c"
 * and returns FALSE. */
gboolean ks_cli_parse_choice (const char         *command,
                              const char         *option,
                              const char         *value,
                              const char * const *choices,
                              guint              *index);

typedef enum
{
  KS_CLI_TEXT_ONE_LINE      = 0,
  KS_CLI_TEXT_KEEP_NEWLINES = 1 << 0,
} KsCliTextFlags;

/* Appends @len bytes of @s (-1: up to the NUL) to @out with every control
 * character made visible, so that names from a trace cannot drive the
 * terminal (ESC [2J, OSC title strings, BEL...): \n, \r and \t as those
 * two characters, other C0 controls and DEL as \x1b, C1 controls
 * (U+0080–U+009F) as \u009b and bytes that are not UTF-8 as \xff. A
 * newline stays a newline with KS_CLI_TEXT_KEEP_NEWLINES. Every text
 * that kinescope-cli writes goes through here. */
/* The same for one file or several (the ranks of a job, as one trace). */
KsTrace *ks_cli_load_traces  (const char         *command,
                              const char * const *args);
void     ks_cli_append_text  (GString        *out,
                              const char     *s,
                              gssize          len,
                              KsCliTextFlags  flags);

/* @s escaped as ks_cli_append_text() does, on one line: for a table cell. */
char    *ks_cli_escape       (const char     *s);

/* Writes @text to @stream, escaped, newlines kept. */
void     ks_cli_write        (FILE           *stream,
                              const char     *text);

/* printf() and g_printerr() through ks_cli_write(). */
void     ks_cli_print        (const char     *format,
                              ...) G_GNUC_PRINTF (1, 2);
void     ks_cli_printerr     (const char     *format,
                              ...) G_GNUC_PRINTF (1, 2);

/* The straggler of a Ranks report: a "straggler" member of @json (null
 * when @rank < 0), else a line of text on @out. */
void     ks_cli_write_straggler (GString        *out,
                                 KsJsonWriter   *json,
                                 gint64          rank,
                                 gint64          wait_caused_ns);

/* The same for how the ranks' clocks were aligned: a "clock" member. */
void     ks_cli_write_clock     (GString                *out,
                                 KsJsonWriter           *json,
                                 const KsClockAlignment *clock);

/* The Ranks report of per-rank summaries (finished): rows, straggler,
 * clock, as `kinescope-cli ranks` prints it (ks-cli-ranks.c). */
void     ks_cli_write_rank_summaries (GString         *out,
                                      KsRankSummaries *summaries,
                                      KsReportFormat   format);

/* stats --report critical-path (ks-cli-critical-path.c): the path of
 * each step, or of @step_name's, and what @what_if (rules, or NULL)
 * would make of it. Returns the exit status. */
int      ks_cli_stats_critical_path  (KsTrace         *trace,
                                      KsAnalysis      *analysis,
                                      KsReportFormat   format,
                                      guint            limit,
                                      const char      *file,
                                      const char      *step_name,
                                      const char      *what_if,
                                      GString         *out);

/* ks-cli-steps.c: the warm-up line and the rule that inferred the steps,
 * as lines of @out; the "warmup" member of @json; the step table, its
 * first @shown rows and the mean of the steps that count. */
void     ks_cli_append_step_notes (GString        *out,
                                   KsTrace        *trace,
                                   KsAnalysis     *analysis);
void     ks_cli_json_warmup       (KsJsonWriter   *json,
                                   KsTrace        *trace,
                                   KsAnalysis     *analysis);
void     ks_cli_table_steps       (GString        *out,
                                   KsTrace        *trace,
                                   KsAnalysis     *analysis,
                                   guint           shown);

G_END_DECLS
