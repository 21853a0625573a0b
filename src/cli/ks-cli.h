/* ks-cli.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Exit status of every subcommand. */
#define KS_CLI_OK     0   /* done */
#define KS_CLI_FAILED 1   /* the operation failed: bad file, write error... */
#define KS_CLI_USAGE  2   /* wrong options or arguments */

/* Each subcommand gets argv with argv[0] set to "kinescope-cli NAME". */
int ks_cli_convert (int    argc,
                    char **argv);
int ks_cli_diff    (int    argc,
                    char **argv);
int ks_cli_info    (int    argc,
                    char **argv);
int ks_cli_monitor (int    argc,
                    char **argv);
int ks_cli_ranks   (int    argc,
                    char **argv);
int ks_cli_record  (int    argc,
                    char **argv);
int ks_cli_render  (int    argc,
                    char **argv);
int ks_cli_stats   (int    argc,
                    char **argv);

G_END_DECLS
