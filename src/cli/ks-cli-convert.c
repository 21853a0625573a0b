/* ks-cli-convert.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-cli-convert"

#include "config.h"

#include <stdio.h>

#include <glib/gi18n.h>

#include "ks-cli.h"
#include "ks-cli-common.h"
#include "ks-kscope-writer.h"
#include "ks-trace-loader.h"

int
ks_cli_convert (int    argc,
                char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) in = NULL;
  g_autoptr(GFile) out = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_auto(GStrv) files = NULL;
  g_autofree char *shown = NULL;
  gboolean force = FALSE;
  gint64 t0, t1;
  const char *warnings;
  const GOptionEntry entries[] = {
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force, N_("Replace OUTPUT when it exists"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, N_("INPUT OUTPUT.kscope") },
    { NULL }
  };

  context = g_option_context_new (_("— save a trace as .kscope"));
  g_option_context_set_summary (context,
                                _("Reads any trace Kinescope opens (PyTorch/Chrome JSON, .json.gz, a\n"
                                  "tensorboard_trace_handler folder, an Nsight Systems SQLite export) and\n"
                                  "writes it as a .kscope database."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  ks_cli_add_load_options (context);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      ks_cli_printerr ("%s: %s\n", g_get_prgname (), error->message);
      return KS_CLI_USAGE;
    }
  if (files == NULL || g_strv_length (files) != 2)
    {
      ks_cli_printerr (_("%s: expected INPUT and OUTPUT.kscope (see --help)\n"), g_get_prgname ());
      return KS_CLI_USAGE;
    }
  if (!g_str_has_suffix (files[1], ".kscope"))
    {
      ks_cli_printerr (_("%s: the output file name must end in .kscope: %s\n"), g_get_prgname (), files[1]);
      return KS_CLI_USAGE;
    }

  in = g_file_new_for_commandline_arg (files[0]);
  out = g_file_new_for_commandline_arg (files[1]);
  if (g_file_equal (in, out))
    {
      ks_cli_printerr (_("%s: INPUT and OUTPUT are the same file\n"), g_get_prgname ());
      return KS_CLI_USAGE;
    }
  /* Said before the long read; the writer checks again, atomically. */
  if (!force && g_file_query_exists (out, NULL))
    {
      ks_cli_printerr (_("kinescope-cli convert: %s exists (use --force to replace it)\n"), files[1]);
      return KS_CLI_FAILED;
    }

  /* Ctrl-C or a kill during the save leaves no hidden temporary file. */
  ks_kscope_write_remove_temp_on_signals ();

  t0 = g_get_monotonic_time ();
  trace = ks_cli_load_file (in, &error);
  if (trace == NULL)
    {
      ks_cli_printerr ("kinescope-cli convert: %s\n", error->message);
      return KS_CLI_FAILED;
    }
  t1 = g_get_monotonic_time ();

  /* The old file is replaced only by a complete new one: it survives a
   * full disk or a kill. */
  if (!ks_kscope_write_full (trace, out, force ? KS_KSCOPE_WRITE_REPLACE : KS_KSCOPE_WRITE_NONE,
                             NULL, NULL, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_EXISTS))
        ks_cli_printerr (_("kinescope-cli convert: %s exists (use --force to replace it)\n"), files[1]);
      else
        ks_cli_printerr ("kinescope-cli convert: %s\n", error->message);
      return KS_CLI_FAILED;
    }

  warnings = ks_trace_get_metadata (trace, "warnings");
  if (warnings != NULL)
    ks_cli_printerr ("%s\n%s\n", _("Warnings:"), warnings);
  shown = ks_cli_escape (files[1]);
  ks_cli_print (_("Wrote %s (%s, read in %.2f s, written in %.2f s)\n"), shown,
                ks_format_to_string (trace->format), (t1 - t0) / 1e6,
                (g_get_monotonic_time () - t1) / 1e6);
  return KS_CLI_OK;
}
