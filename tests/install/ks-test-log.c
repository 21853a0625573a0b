/* ks-test-log.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ks-test-log.h"

GLogWriterOutput
ks_test_log_writer (GLogLevelFlags   log_level,
                    const GLogField *fields,
                    gsize            n_fields,
                    gpointer         user_data)
{
  for (gsize i = 0; i < n_fields; i++)
    if (g_strcmp0 (fields[i].key, "MESSAGE") == 0 && fields[i].length < 0 &&
        (log_level & G_LOG_LEVEL_WARNING) != 0 &&
        strstr (fields[i].value, "but sizes must be >= 0") != NULL)
      {
        g_printerr ("%s\n", (const char *)fields[i].value);
        return G_LOG_WRITER_HANDLED;
      }

  return g_log_writer_default (log_level, fields, n_fields, user_data);
}
