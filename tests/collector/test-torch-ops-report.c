/* test-torch-ops-report.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Every operator row of a recording is accounted for by
 * `kinescope-cli stats --report operators`: torch-steps-app hands the
 * observer's entry points operators nested in one of their name, on
 * three threads, across a step's start and end, of zero length, in a
 * warm-up step, outside the steps, and 800 names built in one buffer;
 * recorded with
 * `kinescope-cli record -t nvtx`. The rows are counted here with SQL and
 * nesting worked out from their intervals, and per name the report's
 * calls and merged_calls, with the warm-up's operator_calls, must add up
 * to them, with and without --include-warmup.
 *
 * argv after the GTest options: kinescope-cli, the directory of
 * libkinescope-inject.so (or "-"), torch-steps-app, the fake NVML
 * library. */

#include "config.h"

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/wait.h>
#include <yajl/yajl_tree.h>

#include "test-record-sql.h"

static const char *cli_path;
static const char *inject_dir;
static const char *app_path;
static const char *fake_nvml;

typedef struct
{
  char   *name;
  gint64  start;
  gint64  end;
  gint64  tid;
} Row;

static void
row_clear (gpointer data)
{
  g_free (((Row *) data)->name);
}

static char *
run (const char * const *argv,
     const char         *cwd)
{
  g_auto(GStrv) env = g_get_environ ();
  g_autoptr(GError) error = NULL;
  g_autofree char *err = NULL;
  char *out = NULL;
  int status = 0;

  env = g_environ_setenv (env, "KINESCOPE_INJECT_DIR", inject_dir, TRUE);
  env = g_environ_setenv (env, "KINESCOPE_NVML_LIBRARY", fake_nvml, TRUE);
  env = g_environ_setenv (env, "LC_ALL", "C", TRUE);
  g_assert_true (g_spawn_sync (cwd, (char **) argv, env, 0, NULL, NULL, &out, &err, &status, &error));
  g_assert_no_error (error);
  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
    g_error ("%s %s failed: %s", argv[0], argv[1], err);
  return out;
}

/* The recording's operator rows (PyTorch's text: a name, then ", seq = "
 * or ", op_id = "), by thread and start, the outer first. */
static GArray *
operator_rows (sqlite3 *db)
{
  GArray *rows = g_array_new (FALSE, FALSE, sizeof (Row));
  sqlite3_stmt *stmt;

  g_array_set_clear_func (rows, row_clear);
  g_assert_cmpint (sqlite3_prepare_v2 (db, "SELECT COALESCE(text, (SELECT value FROM StringIds WHERE id = textId)), "
                                           "start, end, globalTid FROM NVTX_EVENTS WHERE eventType = 59 "
                                           "ORDER BY globalTid, start, end DESC",
                                       -1, &stmt, NULL), ==, SQLITE_OK);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      const char *text = (const char *) sqlite3_column_text (stmt, 0);
      const char *cut = text != NULL ? strstr (text, ", op_id = ") : NULL;
      const char *seq = text != NULL ? strstr (text, ", seq = ") : NULL;
      Row row;

      if (cut == NULL)
        continue;
      if (seq != NULL && seq < cut)
        cut = seq;
      row.name = g_strndup (text, cut - text);
      row.start = sqlite3_column_int64 (stmt, 1);
      row.end = sqlite3_column_int64 (stmt, 2);
      row.tid = sqlite3_column_int64 (stmt, 3);
      g_array_append_val (rows, row);
    }
  sqlite3_finalize (stmt);
  return rows;
}

/* The latest-starting operator row of the thread around row @i, -1 */
static gint
parent_of (GArray *rows,
           guint   i)
{
  const Row *r = &g_array_index (rows, Row, i);

  for (gint p = (gint) i - 1; p >= 0; p--)
    {
      const Row *q = &g_array_index (rows, Row, p);

      if (q->tid == r->tid && q->start <= r->start && r->end <= q->end)
        return p;
    }
  return -1;
}

/* Whether row @i has the name of its parent and is its only child */
static gboolean
nested_alone (GArray *rows,
              guint   i)
{
  gint p = parent_of (rows, i);
  guint children = 0;

  if (p < 0 || strcmp (g_array_index (rows, Row, p).name, g_array_index (rows, Row, i).name) != 0)
    return FALSE;
  for (guint k = p + 1; k < rows->len; k++)
    children += parent_of (rows, k) == p;
  return children == 1;
}

static yajl_val
report (const char *path,
        gboolean    include_warmup)
{
  const char *argv[] = { cli_path, "stats", "--report", "operators", "--format", "json", "--limit", "0",
                         include_warmup ? "--include-warmup" : path, include_warmup ? path : NULL, NULL };
  g_autofree char *out = run (argv, NULL);
  char errbuf[256];
  yajl_val root = yajl_tree_parse (out, errbuf, sizeof errbuf);

  if (root == NULL)
    g_error ("kinescope-cli stats: not JSON (%s): %s", errbuf, out);
  return root;
}

static gint64
member_int (yajl_val    v,
            const char *a,
            const char *b)
{
  const char *path[] = { a, b, NULL };
  yajl_val m = yajl_tree_get (v, path, yajl_t_number);

  if (m == NULL || !YAJL_IS_INTEGER (m))
    g_error ("no integer %s%s%s in the report", a, b ? "." : "", b ? b : "");
  return YAJL_GET_INTEGER (m);
}

/* Per name: the report's calls + merged_calls */
static GHashTable *
counted (yajl_val root)
{
  const char *path[] = { "operators", NULL };
  yajl_val list = yajl_tree_get (root, path, yajl_t_array);
  GHashTable *by_name = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  g_assert_nonnull (list);
  for (size_t i = 0; i < YAJL_GET_ARRAY (list)->len; i++)
    {
      yajl_val op = YAJL_GET_ARRAY (list)->values[i];
      const char *name_path[] = { "name", NULL };
      const char *name = YAJL_GET_STRING (yajl_tree_get (op, name_path, yajl_t_string));

      g_hash_table_insert (by_name, g_strdup (name),
                           GINT_TO_POINTER (member_int (op, "calls", NULL) + member_int (op, "merged_calls", NULL)));
    }
  return by_name;
}

static void
test_every_row_counted (void)
{
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autofree char *library = NULL;
  g_autofree char *out = NULL;
  g_autoptr(GArray) rows = NULL;
  g_autoptr(GHashTable) want = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) want_steady = g_hash_table_new (g_str_hash, g_str_equal);
  g_autoptr(GHashTable) got = NULL;
  g_autoptr(GHashTable) got_steady = NULL;
  GHashTableIter iter;
  gpointer key, value;
  yajl_val all, steady;
  const char *warmup_steps[] = { "warmup", "steps", NULL };
  yajl_val steps;
  gint64 step0_start, step0_end;
  guint in_warmup = 0, merged_fill = 0, n_ops = 0;
  sqlite3 *db;

  if (g_str_equal (inject_dir, "-"))
    {
      g_test_skip ("libkinescope-inject.so was not built (no CUDA toolkit)");
      return;
    }
  dir = g_dir_make_tmp ("ks-torch-ops-report-XXXXXX", NULL);
  path = g_build_filename (dir, "steps.kscope", NULL);
  library = g_build_filename (inject_dir, "libkinescope-inject.so", NULL);
  out = run ((const char *[]) { cli_path, "record", "-t", "nvtx", "-o", path, "--", app_path, library, NULL }, dir);

  db = open_db (path);
  rows = operator_rows (db);
  step0_start = query_int (db, "SELECT start FROM NVTX_EVENTS WHERE text = 'step 0'");
  step0_end = query_int (db, "SELECT end FROM NVTX_EVENTS WHERE text = 'step 0'");
  sqlite3_close (db);
  g_assert_cmpint (step0_end, >, step0_start);

  /* the rows, counted and nested here */
  for (guint i = 0; i < rows->len; i++)
    {
      const Row *r = &g_array_index (rows, Row, i);
      gboolean warm = r->start >= step0_start && r->start < step0_end;

      if (strstr (r->name, "::") == NULL)
        continue;
      n_ops++;
      g_hash_table_insert (want, r->name, GINT_TO_POINTER (GPOINTER_TO_INT (g_hash_table_lookup (want, r->name)) + 1));
      if (!warm)
        g_hash_table_insert (want_steady, r->name,
                             GINT_TO_POINTER (GPOINTER_TO_INT (g_hash_table_lookup (want_steady, r->name)) + 1));
      in_warmup += warm;
      merged_fill += g_str_equal (r->name, "aten::fill_") && nested_alone (rows, i);
    }
  /* what the program emitted (see torch-steps-app.c) */
  g_assert_cmpuint (n_ops, ==, 46 + 800);
  g_assert_cmpuint (g_hash_table_size (want), ==, 8 + 800);
  g_assert_cmpint (GPOINTER_TO_INT (g_hash_table_lookup (want, "test::distinct_799")), ==, 1);
  g_assert_cmpint (GPOINTER_TO_INT (g_hash_table_lookup (want, "aten::empty")), ==, 9);
  g_assert_cmpint (GPOINTER_TO_INT (g_hash_table_lookup (want, "aten::fill_")), ==, 8);
  g_assert_cmpint (GPOINTER_TO_INT (g_hash_table_lookup (want, "aten::copy_")), ==, 4);
  g_assert_cmpuint (merged_fill, ==, 4);
  g_assert_cmpuint (in_warmup, ==, 10);

  /* with the warm-up: every row of each name */
  all = report (path, TRUE);
  got = counted (all);
  g_assert_cmpuint (g_hash_table_size (got), ==, g_hash_table_size (want));
  g_hash_table_iter_init (&iter, want);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      if (GPOINTER_TO_INT (g_hash_table_lookup (got, key)) != GPOINTER_TO_INT (value))
        g_error ("%s: %d calls and merged calls in the report, %d rows", (const char *) key,
                 GPOINTER_TO_INT (g_hash_table_lookup (got, key)), GPOINTER_TO_INT (value));
    }
  g_assert_cmpint (member_int (all, "warmup", "operator_calls"), ==, 0);

  /* without: the rows outside step 0, and step 0's said */
  steady = report (path, FALSE);
  steps = yajl_tree_get (steady, warmup_steps, yajl_t_array);
  g_assert_nonnull (steps);
  g_assert_cmpuint (YAJL_GET_ARRAY (steps)->len, ==, 1);
  g_assert_cmpstr (YAJL_GET_STRING (YAJL_GET_ARRAY (steps)->values[0]), ==, "step 0");
  g_assert_cmpint (member_int (steady, "warmup", "operator_calls"), ==, in_warmup);
  got_steady = counted (steady);
  g_hash_table_iter_init (&iter, want_steady);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      if (GPOINTER_TO_INT (g_hash_table_lookup (got_steady, key)) != GPOINTER_TO_INT (value))
        g_error ("%s: %d calls and merged calls after the warm-up, %d rows", (const char *) key,
                 GPOINTER_TO_INT (g_hash_table_lookup (got_steady, key)), GPOINTER_TO_INT (value));
    }

  yajl_tree_free (all);
  yajl_tree_free (steady);
  g_remove (path);
  g_rmdir (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (argc < 5)
    g_error ("usage: test-torch-ops-report KINESCOPE-CLI INJECT-DIR TORCH-STEPS-APP FAKE-NVML");
  cli_path = argv[1];
  inject_dir = argv[2];
  app_path = argv[3];
  fake_nvml = argv[4];
  g_test_add_func ("/collector/torch-ops-report/every-row-counted", test_every_row_counted);
  return g_test_run ();
}
