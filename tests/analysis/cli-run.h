/* cli-run.h: running kinescope-cli from a test and reading its JSON
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <stdarg.h>
#include <yajl/yajl_tree.h>

#include <glib.h>

/* What one run of kinescope-cli gave: its exit status and output. */
typedef struct
{
  int   status;
  char *out;
  char *err;
} Run;

void        run_clear       (Run                *r);
/* Runs `kinescope-cli COMMAND ARGS…` with the C locale. */
void        run_command     (Run                *r,
                             const char         *command,
                             const char * const *args);
void        run_args        (Run                *r,
                             const char         *command,
                             const char         *first,
                             va_list             ap);
void        run_cli_command (Run                *r,
                             const char         *command,
                             const char         *first,
                             ...) G_GNUC_NULL_TERMINATED;
/* No sentinel check: `run_cli (r, NULL)` runs `stats` alone. */
void        run_cli         (Run                *r,
                             const char         *first,
                             ...);
void        run_diff        (Run                *r,
                             const char         *first,
                             ...) G_GNUC_NULL_TERMINATED;
/* @name in KS_FIXTURES_DIR. */
char       *fixture         (const char         *name);
/* The JSON of @text; the test fails when it is not JSON. */
yajl_val    parse           (const char         *text);
/* v[a][b] (b may be NULL), which must exist. */
yajl_val    get             (yajl_val            v,
                             const char         *a,
                             const char         *b);
gint64      get_int         (yajl_val            v,
                             const char         *a,
                             const char         *b);
const char *get_str         (yajl_val            v,
                             const char         *a);
/* The @i-th member of the array @v, which must have it. */
yajl_val    item            (yajl_val            v,
                             guint               i);
