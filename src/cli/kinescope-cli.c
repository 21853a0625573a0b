/* kinescope-cli.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "kinescope-cli"

#include "config.h"

#include <stdio.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ks-cli.h"
#include "ks-cli-common.h"
#include "ks-paths.h"
#include "ks-signals.h"

typedef struct
{
  const char *name;
  int       (*run) (int argc, char **argv);
  const char *summary;
} Command;

/* One line per subcommand; keep it sorted. */
static const Command commands[] = {
  { "convert", ks_cli_convert, N_("Save a trace (JSON, .json.gz, folder, Nsight SQLite) as .kscope") },
  { "diff", ks_cli_diff, N_("Compare two traces: did the change help, and why") },
  { "info", ks_cli_info, N_("Describe a trace: format, duration, processes, GPUs, event counts") },
  { "monitor", ks_cli_monitor, N_("Watch the GPUs and their processes, as nvidia-smi does; csv as --query-gpu prints it") },
  { "ranks", ks_cli_ranks, N_("Merge per-rank summaries of a distributed job into one Ranks report") },
  { "record", ks_cli_record, N_("Run a command with the collector and write a .kscope trace") },
#ifdef KS_HAVE_RENDER
  { "render", ks_cli_render, N_("Draw the timeline of a trace into a PNG") },
#endif
  { "stats", ks_cli_stats, N_("Where the time goes: GPU busy, idle gaps, steps, operators, kernels, memory, advice") },
};

static void
print_usage (FILE *out)
{
  g_autoptr(GString) text = g_string_new (NULL);

  g_string_append_printf (text, "%s\n  kinescope-cli COMMAND [OPTION…] [ARGUMENT…]\n\n%s\n",
                          _("Usage:"), _("Commands:"));
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    g_string_append_printf (text, "  %-10s %s\n", commands[i].name, _(commands[i].summary));
  g_string_append_printf (text, "\n%s\n", _("Run “kinescope-cli COMMAND --help” for the options of a command."));
  g_string_append_printf (text, "%s\n", _("Options: --help, --version"));
  ks_cli_write (out, text->str);
}

int
main (int    argc,
      char **argv)
{
  const char *name;

  /* before any thread: every later one inherits the blocked signals */
  ks_signals_init ();
  ks_i18n_init ();

  /* The program name is set once: "kinescope-cli COMMAND" for a
   * subcommand, so that its --help and messages name it. */
  if (argc < 2)
    {
      print_usage (stderr);
      return KS_CLI_USAGE;
    }

  name = argv[1];
  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    if (strcmp (commands[i].name, name) == 0)
      {
        g_autofree char *prgname = g_strdup_printf ("kinescope-cli %s", name);
        int status;

        g_set_prgname (prgname);
        ks_cli_catch_out_of_memory ();
        argv[1] = prgname;
        status = commands[i].run (argc - 1, argv + 1);
        argv[1] = (char *)name;
        return status;
      }

  g_set_prgname ("kinescope-cli");
  if (strcmp (name, "--help") == 0 || strcmp (name, "-h") == 0 || strcmp (name, "help") == 0)
    {
      print_usage (stdout);
      return KS_CLI_OK;
    }
  if (strcmp (name, "--version") == 0 || strcmp (name, "-V") == 0)
    {
      ks_cli_print ("kinescope-cli %s\n", PACKAGE_VERSION);
      return KS_CLI_OK;
    }

  ks_cli_printerr (_("kinescope-cli: unknown command “%s”\n\n"), name);
  print_usage (stderr);
  return KS_CLI_USAGE;
}
