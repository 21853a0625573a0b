/* test-record-sql.h: reading a recording back in the collector's tests
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>
#include <sqlite3.h>

static inline sqlite3 *
open_db (const char *path)
{
  sqlite3 *db = NULL;

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  return db;
}

/* The first column of the first row of @sql, -1 when there is none. */
static inline gint64
query_int (sqlite3    *db,
           const char *sql)
{
  sqlite3_stmt *s = NULL;
  gint64 value = -1;

  if (sqlite3_prepare_v2 (db, sql, -1, &s, NULL) != SQLITE_OK)
    g_error ("%s: %s", sql, sqlite3_errmsg (db));
  if (sqlite3_step (s) == SQLITE_ROW)
    value = sqlite3_column_int64 (s, 0);
  sqlite3_finalize (s);
  return value;
}

/* query_int() of the SQL that @format makes */
static inline gint64 query_intf (sqlite3    *db,
                                 const char *format,
                                 ...) G_GNUC_PRINTF (2, 3);

static inline gint64
query_intf (sqlite3    *db,
            const char *format,
            ...)
{
  g_autofree char *sql = NULL;
  va_list args;

  va_start (args, format);
  sql = g_strdup_vprintf (format, args);
  va_end (args);
  return query_int (db, sql);
}

/* The same as text (transfer full), NULL when there is none. */
static inline char *
query_text (sqlite3    *db,
            const char *sql)
{
  sqlite3_stmt *s = NULL;
  char *value = NULL;

  if (sqlite3_prepare_v2 (db, sql, -1, &s, NULL) != SQLITE_OK)
    g_error ("%s: %s", sql, sqlite3_errmsg (db));
  if (sqlite3_step (s) == SQLITE_ROW && sqlite3_column_text (s, 0) != NULL)
    value = g_strdup ((const char *) sqlite3_column_text (s, 0));
  sqlite3_finalize (s);
  return value;
}

/* The line of @file that ends with the comment "# @marker": where a test
 * program's samples or ranges must point. */
static inline guint
marker_line (const char *file,
             const char *marker)
{
  g_autofree char *text = NULL;
  g_autofree char *tag = g_strdup_printf ("# %s", marker);
  g_auto(GStrv) lines = NULL;

  g_assert_true (g_file_get_contents (file, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (g_str_has_suffix (lines[i], tag))
      return i + 1;
  g_assert_not_reached ();
}
