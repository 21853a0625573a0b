/* ks-cli-common.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-cli-common"

#include "config.h"

#include <gio/gio.h>

#include "ks-cli-common.h"
#include "ks-trace-loader.h"

KsTrace *
ks_cli_load_trace (const char *command,
                   const char *arg)
{
  g_autoptr(GFile) file = g_file_new_for_commandline_arg (arg);
  g_autoptr(GError) error = NULL;
  KsTrace *trace;

  trace = ks_trace_load (file, NULL, NULL, &error);
  if (trace == NULL)
    g_printerr ("kinescope-cli %s: %s\n", command, error->message);
  return trace;
}

void
ks_cli_json_string (GString    *out,
                    const char *s)
{
  g_string_append_c (out, '"');
  for (const char *p = s; p && *p; p++)
    {
      guchar c = *p;

      switch (c)
        {
        case '"': g_string_append (out, "\\\""); break;
        case '\\': g_string_append (out, "\\\\"); break;
        case '\n': g_string_append (out, "\\n"); break;
        case '\r': g_string_append (out, "\\r"); break;
        case '\t': g_string_append (out, "\\t"); break;
        default:
          if (c < 0x20)
            g_string_append_printf (out, "\\u%04x", c);
          else
            g_string_append_c (out, c);
        }
    }
  g_string_append_c (out, '"');
}
