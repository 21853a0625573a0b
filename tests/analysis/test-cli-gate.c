/* test-cli-gate.c: kinescope-cli diff --gate, --format markdown, and
 * kernels matched across names
 *
 * The runs are made from the fixtures: gpt_25steps.kscope cut into its
 * two halves, stretched in time by 6 % and 2 % (every timestamp of the
 * SQLite file scaled), its GPU renamed; mixer_compiled.pt.trace.json.gz
 * with its Triton kernels renamed. The step times the gate works on are
 * recomputed here from the SQLite rows, with the TensorBoard rule (a
 * step runs from the later of its NVTX range's start and the previous
 * step's end to the later of the range's end and the end of the GPU work
 * launched in it).
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <yajl/yajl_tree.h>

#include <gio/gio.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <sqlite3.h>

#include "cli-run.h"

#define FIXTURE "gpt_25steps.kscope"
#define N_STEPS 25
#define MEDIAN_NS 89897303

static char *tmp_dir;

static const char *
verdict_of (yajl_val root)
{
  yajl_val v = get (root, "gate", "verdict");

  g_assert_true (YAJL_IS_STRING (v));
  return YAJL_GET_STRING (v);
}

static gint64
gate_int (yajl_val    root,
          const char *key)
{
  yajl_val v = get (root, "gate", key);

  g_assert_true (YAJL_IS_INTEGER (v));
  return YAJL_GET_INTEGER (v);
}

static double
gate_double (yajl_val    root,
             const char *key)
{
  yajl_val v = get (root, "gate", key);

  g_assert_true (YAJL_IS_NUMBER (v));
  return YAJL_GET_DOUBLE (v);
}

/* The gate's reasons, joined by newlines. */
static char *
gate_reasons (yajl_val root)
{
  yajl_val reasons = get (root, "gate", "reasons");
  g_autoptr(GString) text = g_string_new (NULL);

  g_assert_true (YAJL_IS_ARRAY (reasons));
  for (guint i = 0; i < YAJL_GET_ARRAY (reasons)->len; i++)
    g_string_append_printf (text, "%s\n", YAJL_GET_STRING (YAJL_GET_ARRAY (reasons)->values[i]));
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* Derived traces */

static void
exec_sql (sqlite3    *db,
          const char *sql)
{
  char *message = NULL;

  if (sqlite3_exec (db, sql, NULL, NULL, &message) != SQLITE_OK)
    g_error ("%s: %s", sql, message);
}

/* A copy of the fixture in the test's folder, changed by @sql. */
static char *
derive (const char *name,
        const char *sql)
{
  g_autofree char *src_path = fixture (FIXTURE);
  g_autoptr(GFile) src = g_file_new_for_path (src_path);
  char *path = g_build_filename (tmp_dir, name, NULL);
  g_autoptr(GFile) dst = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  sqlite3 *db = NULL;

  g_file_copy (src, dst, G_FILE_COPY_OVERWRITE, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (path, 0644), ==, 0);
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  if (sql != NULL)
    exec_sql (db, sql);
  sqlite3_close (db);
  return path;
}

/* Every time of the trace scaled by @factor: each duration grows by it. */
static char *
stretch (const char *name,
         const char *factor,
         const char *then)
{
  static const char * const columns[][2] = {
    { "CUPTI_ACTIVITY_KIND_KERNEL", "start" }, { "CUPTI_ACTIVITY_KIND_KERNEL", "end" },
    { "CUPTI_ACTIVITY_KIND_RUNTIME", "start" }, { "CUPTI_ACTIVITY_KIND_RUNTIME", "end" },
    { "CUPTI_ACTIVITY_KIND_MEMCPY", "start" }, { "CUPTI_ACTIVITY_KIND_MEMCPY", "end" },
    { "CUPTI_ACTIVITY_KIND_MEMSET", "start" }, { "CUPTI_ACTIVITY_KIND_MEMSET", "end" },
    { "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "start" }, { "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "end" },
    { "NVTX_EVENTS", "start" }, { "NVTX_EVENTS", "end" },
    { "KS_COUNTER_SAMPLES", "timestamp" }, { "KS_MEMORY_EVENTS", "timestamp" },
    { "ANALYSIS_DETAILS", "duration" }, { "ANALYSIS_DETAILS", "startTime" }, { "ANALYSIS_DETAILS", "stopTime" },
  };
  g_autoptr(GString) sql = g_string_new ("BEGIN;");

  for (guint i = 0; i < G_N_ELEMENTS (columns); i++)
    g_string_append_printf (sql, "UPDATE %s SET \"%s\" = CAST(round(\"%s\" * %s) AS INTEGER);",
                            columns[i][0], columns[i][1], columns[i][1], factor);
  g_string_append_printf (sql, "COMMIT;%s", then != NULL ? then : "");
  return derive (name, sql->str);
}

/* SQL that keeps the first @n steps of a trace, or the rest (@first
 * FALSE): every row that starts on the other side of step n's NVTX
 * range removed. */
static char *
cut_sql (guint    n,
         gboolean first)
{
  static const char * const tables[][2] = {
    { "CUPTI_ACTIVITY_KIND_KERNEL", "start" }, { "CUPTI_ACTIVITY_KIND_RUNTIME", "start" },
    { "CUPTI_ACTIVITY_KIND_MEMCPY", "start" }, { "CUPTI_ACTIVITY_KIND_MEMSET", "start" },
    { "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "start" }, { "KS_COUNTER_SAMPLES", "timestamp" },
    { "NVTX_EVENTS", "start" },
  };
  GString *sql = g_string_new ("BEGIN;");

  for (guint i = 0; i < G_N_ELEMENTS (tables); i++)
    g_string_append_printf (sql, "DELETE FROM %s WHERE %s %s (SELECT start FROM NVTX_EVENTS WHERE text = 'step %u');",
                            tables[i][0], tables[i][1], first ? ">=" : "<", n);
  g_string_append (sql, "COMMIT;");
  return g_string_free (sql, FALSE);
}

static char *
half (const char *name,
      guint       n,
      gboolean    first)
{
  g_autofree char *sql = cut_sql (n, first);

  return derive (name, sql);
}

/* The step durations of @path by the TensorBoard rule, from its rows. */
static GArray *
steps_by_hand (const char *path)
{
  static const char sql[] =
    "WITH gpu AS (SELECT correlationId, end FROM CUPTI_ACTIVITY_KIND_KERNEL"
    " UNION ALL SELECT correlationId, end FROM CUPTI_ACTIVITY_KIND_MEMCPY"
    " UNION ALL SELECT correlationId, end FROM CUPTI_ACTIVITY_KIND_MEMSET)"
    " SELECT n.start, n.end, (SELECT max(g.end) FROM CUPTI_ACTIVITY_KIND_RUNTIME r"
    "  JOIN gpu g ON g.correlationId = r.correlationId"
    "  WHERE r.globalTid = n.globalTid AND r.start >= n.start AND r.start < n.end)"
    " FROM NVTX_EVENTS n WHERE n.text LIKE 'step %' ORDER BY n.start";
  GArray *durs = g_array_new (FALSE, FALSE, sizeof (gint64));
  sqlite3 *db = NULL;
  sqlite3_stmt *stmt = NULL;
  gint64 prev_end = G_MININT64;

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (db, sql, -1, &stmt, NULL), ==, SQLITE_OK);
  while (sqlite3_step (stmt) == SQLITE_ROW)
    {
      gint64 start = MAX (sqlite3_column_int64 (stmt, 0), prev_end);
      gint64 end = sqlite3_column_int64 (stmt, 1);
      gint64 dur;

      if (sqlite3_column_type (stmt, 2) != SQLITE_NULL)
        end = MAX (end, sqlite3_column_int64 (stmt, 2));
      dur = end - start;
      g_array_append_val (durs, dur);
      prev_end = end;
    }
  sqlite3_finalize (stmt);
  sqlite3_close (db);
  return durs;
}

static int
cmp_gint64 (gconstpointer a,
            gconstpointer b)
{
  gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;

  return (x > y) - (x < y);
}

/* The median, of an even count the mean of the middle two. */
static double
median (GArray *durs)
{
  g_autoptr(GArray) sorted = g_array_copy (durs);
  const gint64 *v = (const gint64 *)(gpointer)sorted->data;
  guint n = sorted->len;

  g_assert_cmpuint (n, >, 0);
  g_array_sort (sorted, cmp_gint64);
  return n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The gate's figures are those of the steps recomputed here. */
static void
assert_medians (yajl_val    root,
                const char *base,
                const char *new_path)
{
  g_autoptr(GArray) b = steps_by_hand (base);
  g_autoptr(GArray) n = steps_by_hand (new_path);
  double mb = median (b), mn = median (n);

  g_assert_cmpint (gate_int (root, "median_base_ns"), ==, llround (mb));
  g_assert_cmpint (gate_int (root, "median_new_ns"), ==, llround (mn));
  g_assert_cmpfloat_with_epsilon (gate_double (root, "change_pct"), 100 * (mn - mb) / mb, 0.0006);
  /* The interval is around the change. */
  g_assert_cmpfloat (gate_double (root, "ci_low_pct"), <=, gate_double (root, "change_pct") + 0.001);
  g_assert_cmpfloat (gate_double (root, "ci_high_pct"), >=, gate_double (root, "change_pct") - 0.001);
}

/* The fixture's steps by hand are what `stats` finds: the rule above is
 * the analysis's, so the figures below are independent of it. */
static void
test_fixture_steps (void)
{
  g_autofree char *path = fixture (FIXTURE);
  g_autoptr(GArray) durs = steps_by_hand (path);

  g_assert_cmpuint (durs->len, ==, N_STEPS);
  /* step 0 holds CUDA's initialisation; step 1 and 24 as the H200 ran them */
  g_assert_cmpint (g_array_index (durs, gint64, 0), ==, 2240166919);
  g_assert_cmpint (g_array_index (durs, gint64, 1), ==, 86860206);
  g_assert_cmpint (g_array_index (durs, gint64, 24), ==, 90454807);
  g_assert_cmpfloat (median (durs), ==, MEDIAN_NS);
}

/* Two halves of one run: the same code, the verdict is ok, even with a
 * gate below their difference, which is within the noise. */
static void
test_halves (void)
{
  g_autofree char *first = half ("first.kscope", 13, TRUE);
  g_autofree char *second = half ("second.kscope", 13, FALSE);
  g_autoptr(GArray) a = steps_by_hand (first);
  g_autoptr(GArray) b = steps_by_hand (second);
  yajl_val root;
  Run r;

  g_assert_cmpuint (a->len, ==, 13);
  g_assert_cmpuint (b->len, ==, 12);

  run_diff (&r, first, second, "--gate", "5", "--include-warmup", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  g_assert_cmpstr (verdict_of (root), ==, "ok");
  g_assert_cmpfloat (gate_double (root, "threshold_pct"), ==, 5.0);
  assert_medians (root, first, second);
  g_assert_cmpfloat (gate_double (root, "ci_low_pct"), <, 0);
  g_assert_cmpfloat (gate_double (root, "ci_high_pct"), >, 0);
  g_assert_cmpuint (YAJL_GET_ARRAY (get (root, "gate", "reasons"))->len, ==, 0);
  /* the halves differ by more than 1 %: only the interval keeps it ok */
  g_assert_cmpfloat (fabs (gate_double (root, "change_pct")), >, 1.0);
  yajl_tree_free (root);
  run_clear (&r);

  run_diff (&r, first, second, "--gate", "1", "--include-warmup", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  g_assert_cmpstr (verdict_of (root), ==, "ok");
  yajl_tree_free (root);
  run_clear (&r);

  /* The table ends with the verdict; without --gate, no verdict. */
  run_diff (&r, first, second, "--gate", "5", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\nOK: the median step went from "));
  run_clear (&r);
  run_diff (&r, first, second, "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.out, "\"gate\""));
  run_clear (&r);
}

/* The same run stretched by 6 %: regressed, every time. */
static void
test_stretched (void)
{
  g_autofree char *base = fixture (FIXTURE);
  g_autofree char *slow = stretch ("slow6.kscope", "1.06", NULL);
  g_autofree char *gate = NULL;
  yajl_val root;
  Run r, again;

  run_diff (&r, base, slow, "--gate", "5", "--include-warmup", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 1);
  root = parse (r.out);
  g_assert_cmpstr (verdict_of (root), ==, "regressed");
  assert_medians (root, base, slow);
  g_assert_cmpfloat_with_epsilon (gate_double (root, "change_pct"), 6.0, 0.01);
  g_assert_cmpfloat (gate_double (root, "ci_low_pct"), >, 0);
  g_assert_cmpuint (YAJL_GET_ARRAY (get (root, "gate", "reasons"))->len, ==, 0);
  gate = g_strndup (strstr (r.out, "\"gate\":"), strstr (r.out, "\"base\":") - strstr (r.out, "\"gate\":"));
  yajl_tree_free (root);

  /* A fixed seed: the same files, the same interval. */
  run_diff (&again, base, slow, "--gate", "5", "--include-warmup", "--format", "json", NULL);
  g_assert_cmpint (again.status, ==, 1);
  g_assert_nonnull (strstr (again.out, gate));
  run_clear (&again);
  run_clear (&r);

  /* The steady-state steps alone say the same. */
  run_diff (&r, base, slow, "--gate", "5", "--format", "json", "--report", "steps", NULL);
  g_assert_cmpint (r.status, ==, 1);
  root = parse (r.out);
  g_assert_cmpstr (verdict_of (root), ==, "regressed");
  yajl_tree_free (root);
  run_clear (&r);

  /* Under a higher gate it passes. */
  run_diff (&r, base, slow, "--gate", "10", "--format", "csv", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.err, "OK: the median step went from "));
  run_clear (&r);

  /* The comment for the pull request */
  run_diff (&r, base, slow, "--gate", "5", "--include-warmup", "--format", "markdown", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_true (g_str_has_prefix (r.out, "### Kinescope: step time\n\nRegressed: the median step went from "));
  g_assert_nonnull (strstr (r.out, "(+6.0 %, 95 % interval +"));
  g_assert_nonnull (strstr (r.out, "| Steady-state steps | 25 | 25 | |\n"));
  g_assert_nonnull (strstr (r.out, "**Largest kernel changes, per step**\n\n| Kernel | Baseline | New | Change | Matched by |\n"));
  g_assert_nonnull (strstr (r.out, "| Step time, median | 89.9 ms | 95.3 ms | +5.39 ms (+6.0 %) |\n"));
  g_assert_nonnull (strstr (r.out, "**Advice added** none\n"));
  /* The three largest kernel changes, in the order of the kernels list. */
  {
    yajl_val kernels;
    Run k;

    run_diff (&k, base, slow, "--report", "kernels", "--format", "json", NULL);
    g_assert_cmpint (k.status, ==, 0);
    root = parse (k.out);
    kernels = get (root, "kernels", NULL);
    g_assert_cmpuint (YAJL_GET_ARRAY (kernels)->len, >, 3);
    for (guint i = 0; i < 4; i++)
      {
        const char *name = YAJL_GET_STRING (get (YAJL_GET_ARRAY (kernels)->values[i], "name", NULL));
        g_autofree char *row = g_strdup_printf ("\n| `%s` |", name);
        const char *at = strstr (r.out, row);

        if (i < 3)
          g_assert_true (at != NULL && at < strstr (r.out, "**Largest operator changes"));
        else
          g_assert_null (at);
      }
    yajl_tree_free (root);
    run_clear (&k);
  }
  run_clear (&r);
}

/* A 2 % stretch: under a 5 % gate it is ok; against the other half of
 * the run, whose spread is larger than 2 %, it is not a regression even
 * under a 1 % gate. */
static void
test_stretched_2pct (void)
{
  g_autofree char *base = fixture (FIXTURE);
  g_autofree char *slow = stretch ("slow2.kscope", "1.02", NULL);
  g_autofree char *first = half ("first2.kscope", 13, TRUE);
  g_autofree char *rest = cut_sql (13, FALSE);
  g_autofree char *second = stretch ("second2.kscope", "1.02", rest);
  yajl_val root;
  Run r;

  run_diff (&r, base, slow, "--gate", "5", "--include-warmup", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  g_assert_cmpstr (verdict_of (root), ==, "ok");
  assert_medians (root, base, slow);
  g_assert_cmpfloat_with_epsilon (gate_double (root, "change_pct"), 2.0, 0.01);
  yajl_tree_free (root);
  run_clear (&r);

  run_diff (&r, first, second, "--gate", "1", "--include-warmup", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  g_assert_cmpstr (verdict_of (root), ==, "ok");
  assert_medians (root, first, second);
  g_assert_cmpfloat (gate_double (root, "change_pct"), >, 1.0);
  g_assert_cmpfloat (gate_double (root, "ci_low_pct"), <, 0);
  yajl_tree_free (root);
  run_clear (&r);
}

/* Different GPUs, world sizes, too few steps, no steps: inconclusive. */
static void
test_inconclusive (void)
{
  g_autofree char *base = fixture (FIXTURE);
  g_autofree char *a100 = derive ("a100.kscope", "UPDATE TARGET_INFO_GPU SET name = 'NVIDIA A100-SXM4-80GB'");
  g_autofree char *few = half ("few.kscope", 4, TRUE);
  g_autofree char *ddp = fixture ("ddp_gloo_2ranks.kscope");
  g_autofree char *no_steps = derive ("nosteps.kscope", "DELETE FROM NVTX_EVENTS WHERE text LIKE 'step %'");
  g_autofree char *reasons = NULL;
  yajl_val root;
  Run r;

  run_diff (&r, base, a100, "--gate", "5", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 3);
  root = parse (r.out);
  g_assert_cmpstr (verdict_of (root), ==, "inconclusive");
  reasons = gate_reasons (root);
  g_assert_cmpstr (reasons, ==, "The runs used different GPUs: NVIDIA H200 in the baseline, "
                                "NVIDIA A100-SXM4-80GB in the new run\n");
  /* the same steps: the figures are there, the verdict is not */
  g_assert_cmpfloat (gate_double (root, "change_pct"), ==, 0);
  yajl_tree_free (root);
  g_clear_pointer (&reasons, g_free);
  run_clear (&r);

  run_diff (&r, base, a100, "--gate", "5", NULL);
  g_assert_cmpint (r.status, ==, 3);
  g_assert_nonnull (strstr (r.out, "\nInconclusive: The runs used different GPUs: "));
  run_clear (&r);

  run_diff (&r, base, few, "--gate", "5", "--include-warmup", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 3);
  root = parse (r.out);
  reasons = gate_reasons (root);
  g_assert_true (g_str_has_suffix (reasons, "few.kscope has 4 steady-state steps; the gate needs at least 5\n"));
  g_assert_true (YAJL_IS_NULL (get (root, "gate", "ci_low_pct")));
  g_assert_true (YAJL_IS_NULL (get (root, "gate", "ci_high_pct")));
  yajl_tree_free (root);
  g_clear_pointer (&reasons, g_free);
  run_clear (&r);

  /* NVTX "iteration N" ranges against "step N": another unit of work */
  {
    g_autofree char *iterations = derive ("iterations.kscope",
                                          "UPDATE NVTX_EVENTS SET text = replace(text, 'step ', 'iteration ')"
                                          " WHERE text LIKE 'step %'");

    run_diff (&r, base, iterations, "--gate", "5", "--format", "json", NULL);
    g_assert_cmpint (r.status, ==, 3);
    root = parse (r.out);
    reasons = gate_reasons (root);
    g_assert_cmpstr (reasons, ==, "The steps do not match: “step N” in the baseline, “iteration N” in the new run\n");
    g_assert_cmpfloat (gate_double (root, "change_pct"), ==, 0);
    yajl_tree_free (root);
    g_clear_pointer (&reasons, g_free);
    run_clear (&r);
  }

  /* two ranks against one */
  run_diff (&r, base, ddp, "--gate", "5", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 3);
  root = parse (r.out);
  reasons = gate_reasons (root);
  g_assert_nonnull (strstr (reasons, "The runs had different world sizes: 1 ranks in the baseline, 2 in the new run\n"));
  yajl_tree_free (root);
  g_clear_pointer (&reasons, g_free);
  run_clear (&r);

  /* Without steps there is nothing to compare, unless the analysis
   * finds the steps from the trace's repetitions. */
  run_diff (&r, base, no_steps, "--gate", "5", "--format", "json", NULL);
  root = parse (r.out);
  if (YAJL_IS_NULL (get (root, "gate", "median_new_ns")))
    {
      g_assert_cmpint (r.status, ==, 3);
      reasons = gate_reasons (root);
      g_assert_nonnull (strstr (reasons, "nosteps.kscope has no steps: "));
    }
  yajl_tree_free (root);
  run_clear (&r);
}

static void
test_errors (void)
{
  g_autofree char *base = fixture (FIXTURE);
  Run r;

  /* Under a gate 1 is a regression: a file that cannot be read is 2. */
  run_diff (&r, base, "/nonexistent/new.kscope", "--gate", "5", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "/nonexistent/new.kscope"));
  run_clear (&r);
  run_diff (&r, base, base, "--gate", "5", "--device", "3", NULL);
  g_assert_cmpint (r.status, ==, 2);
  run_clear (&r);

  run_diff (&r, base, base, "--gate", "-1", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "--gate"));
  run_clear (&r);
  run_diff (&r, base, base, "--gate", "five", NULL);
  g_assert_cmpint (r.status, ==, 2);
  run_clear (&r);
  run_diff (&r, base, base, "--format", "markdown", "--report", "kernels", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "markdown"));
  run_clear (&r);

  /* A run against itself: no change, inside the gate. */
  run_diff (&r, base, base, "--gate", "0", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "\"change_pct\":0.000,"));
  run_clear (&r);

  /* Markdown without --gate: the figures, no verdict. */
  run_diff (&r, base, base, "--format", "markdown", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "### Kinescope: step time\n\n| | Baseline | New | Change |\n"));
  g_assert_null (strstr (r.out, "OK:"));
  g_assert_nonnull (strstr (r.out, "No change."));
  run_clear (&r);
}

/* Triton kernels renamed */

/* The names of the Triton kernels of a Kineto JSON text, in order. */
static GPtrArray *
triton_names (const char *text)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  static const char marker[] = "\"cat\": \"kernel\", \"name\": \"triton_";

  for (const char *p = strstr (text, marker); p != NULL; p = strstr (p + 1, marker))
    {
      const char *name = p + strlen (marker) - strlen ("triton_");
      g_autofree char *copy = g_strndup (name, strchr (name, '"') - name);
      gboolean seen = FALSE;

      for (guint i = 0; i < names->len; i++)
        seen |= strcmp (g_ptr_array_index (names, i), copy) == 0;
      if (!seen)
        g_ptr_array_add (names, g_steal_pointer (&copy));
    }
  return names;
}

/* "triton_poi_fused_gelu_1" as a later compilation names it: another
 * suffix. */
static char *
renamed (const char *name)
{
  const char *us = strrchr (name, '_');

  return g_strdup_printf ("%.*s_%06x%u", (int)(us - name), name, g_str_hash (name) & 0xffffff, 7u);
}

static char *
read_gz (const char *name)
{
  g_autofree char *path = fixture (name);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(GInputStream) raw = G_INPUT_STREAM (g_file_read (file, NULL, &error));
  g_autoptr(GZlibDecompressor) gz = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr(GInputStream) in = g_converter_input_stream_new (raw, G_CONVERTER (gz));
  g_autoptr(GOutputStream) mem = g_memory_output_stream_new_resizable ();

  g_assert_no_error (error);
  g_output_stream_splice (mem, in, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_write (mem, "", 1, NULL, NULL);
  return g_memory_output_stream_steal_data (G_MEMORY_OUTPUT_STREAM (mem));
}

/* @text with "PREFIX"NAME" as "PREFIX"RENAMED" for each Triton name. */
static char *
rename_all (const char *text,
            GPtrArray  *names,
            const char *prefix)
{
  char *out = g_strdup (text);

  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autofree char *to = renamed (name);
      g_autofree char *from_q = g_strdup_printf ("%s\"%s\"", prefix, name);
      g_autofree char *to_q = g_strdup_printf ("%s\"%s\"", prefix, to);
      g_auto(GStrv) parts = g_strsplit (out, from_q, -1);

      g_assert_cmpuint (g_strv_length (parts), >, 1);
      g_free (out);
      out = g_strjoinv (to_q, parts);
    }
  return out;
}

/* Every Triton kernel of the renamed run is paired with its original:
 * @how says by what, the calls and times are the same. */
static void
assert_renamed_match (const char *base,
                      const char *path,
                      GPtrArray  *names,
                      const char *how)
{
  yajl_val root, kernels;
  guint found = 0;
  Run r;

  run_diff (&r, base, path, "--report", "kernels", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  kernels = get (root, "kernels", NULL);
  for (guint i = 0; i < YAJL_GET_ARRAY (kernels)->len; i++)
    {
      yajl_val k = YAJL_GET_ARRAY (kernels)->values[i];
      const char *name = YAJL_GET_STRING (get (k, "name", NULL));
      yajl_val new_name = get (k, "new_name", NULL);

      g_assert_cmpstr (YAJL_GET_STRING (get (k, "status", NULL)), ==, "both");
      g_assert_cmpint (YAJL_GET_INTEGER (get (k, "base_calls", NULL)), ==, YAJL_GET_INTEGER (get (k, "new_calls", NULL)));
      g_assert_cmpint (YAJL_GET_INTEGER (get (k, "base_total_ns", NULL)), ==,
                       YAJL_GET_INTEGER (get (k, "new_total_ns", NULL)));
      if (!g_str_has_prefix (name, "triton_"))
        {
          g_assert_cmpstr (YAJL_GET_STRING (get (k, "match", NULL)), ==, "name");
          g_assert_true (YAJL_IS_NULL (new_name));
          continue;
        }
      {
        g_autofree char *expected = renamed (name);

        g_assert_cmpstr (YAJL_GET_STRING (get (k, "match", NULL)), ==, how);
        g_assert_true (YAJL_IS_STRING (new_name));
        g_assert_cmpstr (YAJL_GET_STRING (new_name), ==, expected);
      }
      found++;
    }
  g_assert_cmpuint (found, ==, names->len);
  yajl_tree_free (root);
  run_clear (&r);

  /* The table says how each pair was matched. */
  run_diff (&r, base, path, "--report", "kernels", "--limit", "0", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Matched by"));
  g_assert_nonnull (strstr (r.out, g_str_equal (how, "operator") ? "operator and order" : "normalised name"));
  g_assert_nonnull (strstr (r.out, "triton_poi_fused_gelu_1 → triton_poi_fused_gelu_"));
  run_clear (&r);
}

static void
test_triton_renamed (void)
{
  g_autofree char *base = fixture ("mixer_compiled.pt.trace.json.gz");
  g_autofree char *text = read_gz ("mixer_compiled.pt.trace.json.gz");
  g_autoptr(GPtrArray) names = triton_names (text);
  g_autoptr(GError) error = NULL;

  /* 22 Triton kernels (test-cli-stats' diff-compile counts them too) */
  g_assert_cmpuint (names->len, ==, 22);

  /* Only the kernels renamed: their launching operators still agree. */
  {
    g_autofree char *kernels_only = rename_all (text, names, "\"cat\": \"kernel\", \"name\": ");
    g_autofree char *path = g_build_filename (tmp_dir, "renamed_kernels.json", NULL);

    g_assert_true (g_file_set_contents (path, kernels_only, -1, &error));
    g_assert_no_error (error);
    assert_renamed_match (base, path, names, "operator");
  }
  /* The kernels and the operators named after them: by normalised name. */
  {
    g_autofree char *all = rename_all (text, names, "\"name\": ");
    g_autofree char *path = g_build_filename (tmp_dir, "renamed_all.json", NULL);

    g_assert_true (g_file_set_contents (path, all, -1, &error));
    g_assert_no_error (error);
    assert_renamed_match (base, path, names, "normalised");
  }
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("ks-gate-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/analysis/gate/fixture-steps", test_fixture_steps);
  g_test_add_func ("/analysis/gate/halves", test_halves);
  g_test_add_func ("/analysis/gate/stretched", test_stretched);
  g_test_add_func ("/analysis/gate/stretched-2pct", test_stretched_2pct);
  g_test_add_func ("/analysis/gate/inconclusive", test_inconclusive);
  g_test_add_func ("/analysis/gate/errors", test_errors);
  g_test_add_func ("/analysis/gate/triton-renamed", test_triton_renamed);
  status = g_test_run ();

  {
    g_autoptr(GDir) dir = g_dir_open (tmp_dir, 0, NULL);
    const char *name;

    while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *path = g_build_filename (tmp_dir, name, NULL);

        g_unlink (path);
      }
    g_rmdir (tmp_dir);
    g_free (tmp_dir);
  }
  return status;
}
