/* test-sqlite-util.h: helpers of the tests that make SQLite files
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <sqlite3.h>

#include <glib.h>

static inline void
exec_sql (sqlite3    *db,
          const char *sql)
{
  char *msg = NULL;

  if (sqlite3_exec (db, sql, NULL, NULL, &msg) != SQLITE_OK)
    g_error ("%s: %s", sql, msg);
}

static inline void
copy_file (const char *from,
           const char *to)
{
  g_autofree char *contents = NULL;
  gsize size;

  g_assert_true (g_file_get_contents (from, &contents, &size, NULL));
  g_assert_true (g_file_set_contents (to, contents, size, NULL));
}
