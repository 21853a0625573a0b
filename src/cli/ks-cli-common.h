/* ks-cli-common.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "ks-trace.h"

G_BEGIN_DECLS

/* Loads the trace named on the command line; on failure prints
 * "kinescope-cli COMMAND: message" on stderr and returns NULL. */
KsTrace *ks_cli_load_trace   (const char *command,
                              const char *arg);

/* Appends @s to @out as a quoted, escaped JSON string. */
void     ks_cli_json_string  (GString    *out,
                              const char *s);

G_END_DECLS
