/* ks-sqlite-reader.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <sqlite3.h>

#include "ks-progress.h"
#include "ks-trace.h"

G_BEGIN_DECLS

/* Loads a .kscope file or an Nsight Systems SQLite export
 * (`nsys export --type sqlite`, schema 2.x or 3.x). The file is opened
 * read-only and defensively; tables and columns are looked up by name.
 * Sets KsTrace.format to KS_FORMAT_KSCOPE or KS_FORMAT_NSYS_SQLITE. */
KsTrace *ks_sqlite_reader_load (GFile         *file,
                                KsProgress    *progress,
                                GCancellable  *cancellable,
                                GError       **error);

/* Limits on a file that may be hostile: a value (strings from JSON are
 * cut at 16 MiB), a statement, a table's columns (Nsight's widest has
 * about 40). Past them a load fails naming the file. */
#define KS_SQLITE_LIMIT_LENGTH     (32 * 1024 * 1024)
#define KS_SQLITE_LIMIT_SQL_LENGTH 100000
#define KS_SQLITE_LIMIT_COLUMNS  256

/* Opens the database @path for reading only, as a file that may be
 * hostile: read-only and immutable (nothing beside it, such as a -journal
 * or a -wal, is read, replayed or created; the file itself is never
 * written), defensive, no triggers, views or extensions, with the limits
 * above and every page's cell sizes checked. Returns the
 * SQLite result code; *@db is set even when it fails, for
 * sqlite3_errmsg() and sqlite3_close(). */
int      ks_sqlite_open_untrusted (const char    *path,
                                   sqlite3      **db);

G_END_DECLS
