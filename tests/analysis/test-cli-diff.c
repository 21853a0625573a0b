/* test-cli-diff.c: kinescope-cli diff, its sides and its matching
 *
 * Each side of a diff must be what `stats` says of that trace; the
 * DataLoader figures are computed here from the raw JSON.
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>
#include <sys/wait.h>
#include <yajl/yajl_tree.h>

#include <gio/gio.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <unistd.h>

#include "cli-run.h"

/* A decimal number of microseconds ("5110153447431.893") as exact
 * nanoseconds, without the rounding of a double. */
static gint64
us_to_ns (yajl_val v)
{
  const char *s = YAJL_IS_NUMBER (v) ? v->u.number.r : NULL;
  const char *dot;
  gint64 ns;
  guint digits = 0;

  g_assert_nonnull (s);
  ns = g_ascii_strtoll (s, NULL, 10) * 1000;
  if ((dot = strchr (s, '.')) != NULL)
    {
      gint64 frac = 0;

      for (const char *c = dot + 1; g_ascii_isdigit (*c) && digits < 3; c++, digits++)
        frac = frac * 10 + (*c - '0');
      for (; digits < 3; digits++)
        frac *= 10;
      ns += frac;
    }
  return ns;
}

typedef struct
{
  gint64 start;
  gint64 end;
} Span;

static int
span_cmp (gconstpointer a,
          gconstpointer b)
{
  const Span *x = a, *y = b;

  return (x->start > y->start) - (x->start < y->start);
}

/* Length of the union of @spans inside [start, end). */
static gint64
union_within (GArray *spans,
              gint64  start,
              gint64  end)
{
  gint64 total = 0, cur_s = 0, cur_e = G_MININT64;

  g_array_sort (spans, span_cmp);
  for (guint i = 0; i <= spans->len; i++)
    {
      Span s = i < spans->len ? g_array_index (spans, Span, i) : (Span) { G_MAXINT64, G_MAXINT64 };

      s.start = MAX (s.start, start);
      s.end = MIN (s.end, end);
      if (i < spans->len && s.end <= s.start)
        continue;
      if (s.start > cur_e || i == spans->len)
        {
          if (cur_e > cur_s)
            total += cur_e - cur_s;
          cur_s = s.start;
          cur_e = s.end;
        }
      else
        cur_e = MAX (cur_e, s.end);
    }
  return total;
}

/* A gzipped JSON fixture, parsed whole by yajl (not by the reader). */
static yajl_val
parse_gz_fixture (const char *name)
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
  return parse (g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (mem)));
}

/* The DataLoader part of the step breakdown straight from the JSON:
 * per ProfilerStep#N on the CPU, the union of GPU work and CUDA runtime
 * calls, then the time that enumerate(DataLoader) spans add to it. */
static void
dataloader_by_hand (const char *name,
                    gint64     *dataloader_ns,
                    gint64     *steps_ns,
                    guint      *n_steps)
{
  g_autoptr(GArray) steps = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr(GArray) below = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr(GArray) with_dl = g_array_new (FALSE, FALSE, sizeof (Span));
  const char *events_path[] = { "traceEvents", NULL };
  yajl_val root = parse_gz_fixture (name), events;

  events = yajl_tree_get (root, events_path, yajl_t_array);
  g_assert_nonnull (events);
  for (guint i = 0; i < YAJL_GET_ARRAY (events)->len; i++)
    {
      yajl_val e = YAJL_GET_ARRAY (events)->values[i];
      const char *ph[] = { "ph", NULL }, *cat[] = { "cat", NULL }, *nm[] = { "name", NULL };
      const char *ts[] = { "ts", NULL }, *dur[] = { "dur", NULL };
      yajl_val p = yajl_tree_get (e, ph, yajl_t_string), c = yajl_tree_get (e, cat, yajl_t_string);
      yajl_val n = yajl_tree_get (e, nm, yajl_t_string);
      const char *category, *event_name;
      Span span;

      if (p == NULL || strcmp (p->u.string, "X") != 0 || c == NULL || n == NULL)
        continue;
      category = c->u.string;
      event_name = n->u.string;
      span.start = us_to_ns (yajl_tree_get (e, ts, yajl_t_any));
      span.end = span.start + us_to_ns (yajl_tree_get (e, dur, yajl_t_any));
      if (strcmp (category, "user_annotation") == 0 && g_str_has_prefix (event_name, "ProfilerStep#"))
        g_array_append_val (steps, span);
      else if (strcmp (category, "kernel") == 0 || strcmp (category, "gpu_memcpy") == 0
               || strcmp (category, "gpu_memset") == 0 || strcmp (category, "cuda_runtime") == 0
               || strcmp (category, "cuda_driver") == 0)
        g_array_append_val (below, span);
      else if ((strcmp (category, "user_annotation") == 0 || strcmp (category, "cpu_op") == 0)
               && g_str_has_prefix (event_name, "enumerate(DataLoader)"))
        g_array_append_val (with_dl, span);
    }
  g_array_append_vals (with_dl, below->data, below->len);
  *dataloader_ns = *steps_ns = 0;
  *n_steps = steps->len;
  for (guint i = 0; i < steps->len; i++)
    {
      Span s = g_array_index (steps, Span, i);

      *dataloader_ns += union_within (with_dl, s.start, s.end) - union_within (below, s.start, s.end);
      *steps_ns += s.end - s.start;
    }
  yajl_tree_free (root);
}

/* Two JSON values are the same value. */
static gboolean
json_equal (yajl_val a,
            yajl_val b)
{
  if (a->type != b->type)
    return FALSE;
  switch (a->type)
    {
    case yajl_t_string:
      return strcmp (a->u.string, b->u.string) == 0;
    case yajl_t_number:
      return strcmp (a->u.number.r, b->u.number.r) == 0;
    case yajl_t_object:
      if (a->u.object.len != b->u.object.len)
        return FALSE;
      for (gsize i = 0; i < a->u.object.len; i++)
        if (strcmp (a->u.object.keys[i], b->u.object.keys[i]) != 0
            || !json_equal (a->u.object.values[i], b->u.object.values[i]))
          return FALSE;
      return TRUE;
    case yajl_t_array:
      if (a->u.array.len != b->u.array.len)
        return FALSE;
      for (gsize i = 0; i < a->u.array.len; i++)
        if (!json_equal (a->u.array.values[i], b->u.array.values[i]))
          return FALSE;
      return TRUE;
    case yajl_t_true:
    case yajl_t_false:
    case yajl_t_null:
    case yajl_t_any:
    default:
      return TRUE;
    }
}

/* Each side of a diff is what `stats` says of that file alone: the GPU
 * objects, the memory devices, the step count and mean. */
static void
assert_sides_are_stats (yajl_val    diff,
                        const char *base_path,
                        const char *new_path)
{
  const char *paths[] = { base_path, new_path };
  const char *sides[] = { "base", "new" };

  for (guint s = 0; s < 2; s++)
    {
      yajl_val side = get (diff, sides[s], NULL), stats, memory, steps;
      Run r;
      Run m;
      gint64 sum = 0;
      guint n;

      run_cli (&r, paths[s], "--format", "json", NULL);
      g_assert_cmpint (r.status, ==, 0);
      stats = parse (r.out);
      g_assert_true (json_equal (get (side, "gpus", NULL), get (stats, "gpus", NULL)));
      steps = get (stats, "steps", NULL);
      n = YAJL_GET_ARRAY (steps)->len;
      g_assert_cmpint (get_int (side, "steps", NULL), ==, n);
      for (guint i = 0; i < n; i++)
        sum += get_int (item (steps, i), "dur_ns", NULL);
      if (n > 0)
        g_assert_cmpint (get_int (side, "step_mean_ns", NULL), ==, (sum + n / 2) / n);
      yajl_tree_free (stats);
      run_clear (&r);

      run_cli (&m, paths[s], "--report", "memory", "--format", "json", NULL);
      g_assert_cmpint (m.status, ==, 0);
      memory = parse (m.out);
      g_assert_true (json_equal (get (side, "memory", NULL), get (memory, "devices", NULL)));
      yajl_tree_free (memory);
      run_clear (&m);
    }
}

/* Moving loading to pinned workers: the DataLoader's share of the step
 * falls by what the JSON itself says, and the fix's advice goes away. */
static void
test_diff_loader (void)
{
  g_autofree char *base = fixture ("loader_bound.pt.trace.json.gz");
  g_autofree char *fixed = fixture ("workers_pinned.pt.trace.json.gz");
  gint64 dl[2], total[2];
  guint n[2];
  double share[2], got[2];
  yajl_val root, removed;
  gboolean dataloader_removed = FALSE;
  Run r;

  dataloader_by_hand ("loader_bound.pt.trace.json.gz", &dl[0], &total[0], &n[0]);
  dataloader_by_hand ("workers_pinned.pt.trace.json.gz", &dl[1], &total[1], &n[1]);
  g_assert_cmpuint (n[0], ==, 4);
  g_assert_cmpuint (n[1], ==, 4);
  /* ProfilerStep#2 of loader_bound, as test_summary_json has it */
  g_assert_cmpint (dl[0], >, 32317106);

  run_diff (&r, base, fixed, "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  g_assert_cmpstr (get_str (root, "per"), ==, "step");
  for (guint s = 0; s < 2; s++)
    {
      yajl_val side = get (root, s == 0 ? "base" : "new", NULL);

      share[s] = (double)dl[s] / total[s];
      g_assert_cmpint (get_int (side, "breakdown_per_step_ns", "dataloader"), ==, (dl[s] + 2) / 4);
      g_assert_cmpint (get_int (side, "step_mean_ns", NULL), ==, (total[s] + 2) / 4);
      got[s] = (double)get_int (side, "breakdown_per_step_ns", "dataloader") / get_int (side, "step_mean_ns", NULL);
    }
  g_test_message ("DataLoader share %.4f -> %.4f", share[0], share[1]);
  g_assert_cmpfloat_with_epsilon (got[0] - got[1], share[0] - share[1], 1e-6);
  g_assert_cmpfloat (share[0] - share[1], >, 0.1);
  assert_sides_are_stats (root, base, fixed);

  removed = get (get (root, "advice", NULL), "removed", NULL);
  for (guint i = 0; i < YAJL_GET_ARRAY (removed)->len; i++)
    dataloader_removed |= strcmp (get_str (item (removed, i), "rule"), "pageable-memcpy") == 0;
  g_assert_true (dataloader_removed);
  yajl_tree_free (root);
  run_clear (&r);

  /* The table says the same, per step. */
  run_diff (&r, base, fixed, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Times and counts are per step."));
  g_assert_nonnull (strstr (r.out, "Step breakdown, DataLoader"));
  g_assert_nonnull (strstr (r.out, "Advice removed:"));
  run_clear (&r);

  run_diff (&r, base, fixed, "--report", "steps", "--format", "csv", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_str_has_prefix (r.out, "step,base_name,base_dur_ns,new_name,new_dur_ns,change_ns,"));
  g_assert_nonnull (strstr (r.out, "\n1,ProfilerStep#2,39540550,ProfilerStep#2,"));
  run_clear (&r);
}

/* Kernels and operators matched by name: every call of each side is in
 * exactly one row, a name of one side only is added or removed. */
static void
assert_items_match (yajl_val    diff,
                    const char *list,
                    const char *stats_list,
                    const char *base_path,
                    const char *new_path,
                    const char *group_by)
{
  const char *paths[] = { base_path, new_path };
  const char *calls_key[] = { "base_calls", "new_calls" };
  yajl_val items = get (diff, list, NULL);
  g_autoptr(GHashTable) base_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) new_names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GHashTable *names[2] = { base_names, new_names };
  yajl_val stats[2];

  for (guint s = 0; s < 2; s++)
    {
      Run r;
      yajl_val rows;

      run_cli (&r, paths[s], "--report", stats_list, "--format", "json", "--group-by", group_by, NULL);
      g_assert_cmpint (r.status, ==, 0);
      stats[s] = parse (r.out);
      rows = get (stats[s], stats_list, NULL);
      for (guint i = 0; i < YAJL_GET_ARRAY (rows)->len; i++)
        {
          yajl_val row = item (rows, i);
          const char *dims_path[] = { "input_dims", NULL };
          yajl_val dims = yajl_tree_get (row, dims_path, yajl_t_string);
          char *key = g_strconcat (get_str (row, "name"), "|", dims ? YAJL_GET_STRING (dims) : "", NULL);

          g_hash_table_insert (names[s], key, GINT_TO_POINTER ((int)get_int (row, "calls", NULL)));
        }
      run_clear (&r);
    }

  g_assert_cmpuint (YAJL_GET_ARRAY (items)->len, >=, MAX (g_hash_table_size (names[0]), g_hash_table_size (names[1])));
  for (guint i = 0; i < YAJL_GET_ARRAY (items)->len; i++)
    {
      yajl_val row = item (items, i);
      const char *dims_path[] = { "input_dims", NULL }, *new_name_path[] = { "new_name", NULL };
      yajl_val dims = yajl_tree_get (row, dims_path, yajl_t_string);
      /* A kernel matched across names has the new run's name apart. */
      yajl_val new_name = yajl_tree_get (row, new_name_path, yajl_t_string);
      const char *status = get_str (row, "status");

      for (guint s = 0; s < 2; s++)
        {
          const char *name = s == 1 && new_name != NULL ? YAJL_GET_STRING (new_name) : get_str (row, "name");
          g_autofree char *key = g_strconcat (name, "|", dims ? YAJL_GET_STRING (dims) : "", NULL);
          gpointer calls;
          gboolean has = g_hash_table_lookup_extended (names[s], key, NULL, &calls);

          g_assert_cmpint (get_int (row, calls_key[s], NULL), ==, has ? GPOINTER_TO_INT (calls) : 0);
          g_hash_table_remove (names[s], key);
          if (!has)
            g_assert_cmpstr (status, ==, s == 0 ? "added" : "removed");
        }
    }
  /* Nothing left out */
  g_assert_cmpuint (g_hash_table_size (names[0]), ==, 0);
  g_assert_cmpuint (g_hash_table_size (names[1]), ==, 0);
  yajl_tree_free (stats[0]);
  yajl_tree_free (stats[1]);
}

static void
test_diff_matching (void)
{
  g_autofree char *base = fixture ("loader_bound.pt.trace.json.gz");
  g_autofree char *fixed = fixture ("workers_pinned.pt.trace.json.gz");
  yajl_val root, kernels;
  double last = G_MAXDOUBLE;
  Run r;

  run_diff (&r, base, fixed, "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  assert_items_match (root, "kernels", "kernels", base, fixed, "name");
  assert_items_match (root, "operators", "operators", base, fixed, "name");
  /* Largest change first; per step is the total over 4 steps. */
  kernels = get (root, "kernels", NULL);
  for (guint i = 0; i < YAJL_GET_ARRAY (kernels)->len; i++)
    {
      yajl_val k = item (kernels, i);
      double change = YAJL_GET_DOUBLE (get (k, "change_ns", NULL));

      g_assert_cmpfloat (fabs (change), <=, last);
      last = fabs (change);
      g_assert_cmpfloat_with_epsilon (change, (get_int (k, "new_total_ns", NULL) - get_int (k, "base_total_ns", NULL)) / 4.0,
                                      1e-3);
    }
  yajl_tree_free (root);
  run_clear (&r);

  run_diff (&r, base, fixed, "--format", "json", "--group-by", "shape", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  assert_items_match (root, "operators", "operators", base, fixed, "shape");
  yajl_tree_free (root);
  run_clear (&r);
}

/* torch.compile on the H200 (tests/gpu/capture.py, the same model eager
 * and compiled): every Triton kernel of the compiled run is added, with
 * the calls the JSON has, and none is in the eager run. */
static void
test_diff_compile (void)
{
  g_autofree char *base = fixture ("mixer_eager.pt.trace.json.gz");
  g_autofree char *compiled = fixture ("mixer_compiled.pt.trace.json.gz");
  const char *sides[] = { "mixer_eager.pt.trace.json.gz", "mixer_compiled.pt.trace.json.gz" };
  g_autoptr(GHashTable) triton = g_hash_table_new (g_str_hash, g_str_equal);
  yajl_val json[2], root, kernels;
  guint n_triton[2] = { 0, 0 }, found = 0;
  Run r;

  for (guint s = 0; s < 2; s++)
    {
      const char *events_path[] = { "traceEvents", NULL };
      yajl_val events;

      json[s] = parse_gz_fixture (sides[s]);
      events = yajl_tree_get (json[s], events_path, yajl_t_array);
      for (guint i = 0; i < YAJL_GET_ARRAY (events)->len; i++)
        {
          yajl_val e = YAJL_GET_ARRAY (events)->values[i];
          const char *cat_path[] = { "cat", NULL }, *name_path[] = { "name", NULL };
          yajl_val c = yajl_tree_get (e, cat_path, yajl_t_string), n = yajl_tree_get (e, name_path, yajl_t_string);
          const char *name = n != NULL ? n->u.string : NULL;

          if (c == NULL || name == NULL || strcmp (c->u.string, "kernel") != 0 || !g_str_has_prefix (name, "triton_"))
            continue;
          n_triton[s]++;
          if (s == 1)
            g_hash_table_insert (triton, (gpointer)name,
                                 GUINT_TO_POINTER (GPOINTER_TO_UINT (g_hash_table_lookup (triton, name)) + 1));
        }
    }
  g_assert_cmpuint (n_triton[0], ==, 0);
  g_assert_cmpuint (n_triton[1], ==, 245);
  g_assert_cmpuint (g_hash_table_size (triton), ==, 22);

  run_diff (&r, base, compiled, "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  assert_sides_are_stats (root, base, compiled);
  assert_items_match (root, "kernels", "kernels", base, compiled, "name");
  kernels = get (root, "kernels", NULL);
  for (guint i = 0; i < YAJL_GET_ARRAY (kernels)->len; i++)
    {
      yajl_val k = item (kernels, i);
      const char *name = get_str (k, "name");

      if (!g_str_has_prefix (name, "triton_"))
        continue;
      found++;
      g_assert_cmpstr (get_str (k, "status"), ==, "added");
      g_assert_cmpint (get_int (k, "base_calls", NULL), ==, 0);
      g_assert_cmpint (get_int (k, "new_calls", NULL), ==, GPOINTER_TO_UINT (g_hash_table_lookup (triton, name)));
    }
  g_assert_cmpuint (found, ==, 22);
  /* the fused run's steps are shorter (8.4 ms against 6.1 ms on the H200) */
  g_assert_cmpint (get_int (get (root, "new", NULL), "step_mean_ns", NULL), <,
                   get_int (get (root, "base", NULL), "step_mean_ns", NULL));
  yajl_tree_free (root);
  yajl_tree_free (json[0]);
  yajl_tree_free (json[1]);
  run_clear (&r);
}

/* HTA's trace_diff pair: an A100 rank against a V100 rank. */
static void
test_diff_hta (void)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  g_autofree char *base = g_build_filename (shared ? shared : ".", "corpus", "hta", "trace_diff", "control",
                                            "control.json.gz", NULL);
  g_autofree char *test = g_build_filename (shared ? shared : ".", "corpus", "hta", "trace_diff", "test",
                                            "test.json.gz", NULL);
  yajl_val root;
  Run r;

  if (!g_file_test (base, G_FILE_TEST_EXISTS) || !g_file_test (test, G_FILE_TEST_EXISTS))
    {
      g_test_skip ("HTA's trace_diff pair (KS_SHARED_DIR/corpus/hta/trace_diff) is not available");
      return;
    }
  run_diff (&r, base, test, "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  g_assert_cmpstr (get_str (root, "per"), ==, "step");
  assert_sides_are_stats (root, base, test);
  assert_items_match (root, "kernels", "kernels", base, test, "name");
  assert_items_match (root, "operators", "operators", base, test, "name");
  yajl_tree_free (root);
  run_clear (&r);
}

/* Traces without steps compare over their windows, and say so. */
static void
test_diff_windows (void)
{
  static const char before[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":100,\"dur\":30,"
    "\"args\":{\"device\":0,\"stream\":7}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":200,\"dur\":50,"
    "\"args\":{\"device\":0,\"stream\":7}}]}";
  static const char after[] =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":100,\"dur\":30,"
    "\"args\":{\"device\":0,\"stream\":7}},"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":0,\"tid\":7,\"ts\":200,\"dur\":40,"
    "\"args\":{\"device\":0,\"stream\":7}}]}";
  g_autofree char *dir = g_dir_make_tmp ("ks-diff-XXXXXX", NULL);
  g_autofree char *base = g_build_filename (dir, "before.json", NULL);
  g_autofree char *path = g_build_filename (dir, "after.json", NULL);
  g_autofree char *steps = fixture ("loader_bound.pt.trace.json.gz");
  yajl_val root, k;
  Run r;

  g_assert_true (g_file_set_contents (base, before, -1, NULL));
  g_assert_true (g_file_set_contents (path, after, -1, NULL));
  run_diff (&r, base, path, "--format", "json", "--report", "kernels", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  g_assert_cmpstr (get_str (root, "per"), ==, "window");
  g_assert_cmpuint (YAJL_GET_ARRAY (get (root, "kernels", NULL))->len, ==, 2);
  /* k1 lost 50 µs, k2 came with 40 µs: the larger change first */
  k = item (get (root, "kernels", NULL), 0);
  g_assert_cmpstr (get_str (k, "name"), ==, "k1");
  g_assert_cmpstr (get_str (k, "status"), ==, "both");
  g_assert_cmpint (get_int (k, "base_calls", NULL), ==, 2);
  g_assert_cmpint (get_int (k, "new_calls", NULL), ==, 1);
  g_assert_cmpfloat_with_epsilon (YAJL_GET_DOUBLE (get (k, "change_ns", NULL)), -50000, 1e-6);
  g_assert_cmpfloat_with_epsilon (YAJL_GET_DOUBLE (get (k, "ratio", NULL)), 0.375, 1e-6);
  k = item (get (root, "kernels", NULL), 1);
  g_assert_cmpstr (get_str (k, "name"), ==, "k2");
  g_assert_cmpstr (get_str (k, "status"), ==, "added");
  g_assert_cmpint (get_int (k, "new_total_ns", NULL), ==, 40000);
  g_assert_true (YAJL_IS_NULL (get (k, "ratio", NULL)));
  /* Per window: the totals themselves */
  g_assert_cmpfloat_with_epsilon (YAJL_GET_DOUBLE (get (k, "new_per_step_ns", NULL)), 40000, 1e-6);
  yajl_tree_free (root);
  run_clear (&r);

  /* One side with steps, the other without: windows too. */
  run_diff (&r, steps, path, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "No steps in one of the traces: times and counts are totals over each window."));
  run_clear (&r);
  g_unlink (base);
  g_unlink (path);
  g_rmdir (dir);
}

/* Two loops without steps (tests/data/README.md) compare per step: their
 * inferred steps, the warm-up of each left out unless asked. */
static void
test_diff_inferred (void)
{
  g_autofree char *slow = fixture ("nosteps_slow.pt.trace.json.gz");
  g_autofree char *fast = fixture ("nosteps_fast.pt.trace.json.gz");
  yajl_val root;
  Run r;

  run_diff (&r, slow, fast, NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "nosteps_slow.pt.trace.json.gz (4 steps, 1 warm-up step left out, "
                                   "inferred from the DataLoader's batches)\n"));
  g_assert_nonnull (strstr (r.out, "Times and counts are per step.\n"));
  run_clear (&r);

  run_diff (&r, slow, fast, "--include-warmup", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  g_assert_cmpstr (get_str (root, "per"), ==, "step");
  g_assert_cmpint (YAJL_GET_INTEGER (get (root, "base", "steps")), ==, 5);
  yajl_tree_free (root);
  run_clear (&r);
}

static void
test_diff_errors (void)
{
  g_autofree char *path = fixture ("loader_bound.pt.trace.json.gz");
  Run r;

  run_diff (&r, path, "/nonexistent/new.json", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "/nonexistent/new.json"));
  run_clear (&r);

  run_diff (&r, "/nonexistent/base.json", path, NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "/nonexistent/base.json"));
  run_clear (&r);

  run_diff (&r, path, NULL);
  g_assert_cmpint (r.status, ==, 2);
  run_clear (&r);
  run_diff (&r, path, path, path, NULL);
  g_assert_cmpint (r.status, ==, 2);
  run_clear (&r);

  run_diff (&r, path, path, "--report", "gaps", NULL);
  g_assert_cmpint (r.status, ==, 2);
  g_assert_nonnull (strstr (r.err, "gaps"));
  run_clear (&r);
  run_diff (&r, path, path, "--format", "xml", NULL);
  g_assert_cmpint (r.status, ==, 2);
  run_clear (&r);
  run_diff (&r, path, path, "--group-by", "colour", NULL);
  g_assert_cmpint (r.status, ==, 2);
  run_clear (&r);
  run_diff (&r, path, path, "--limit", "-1", NULL);
  g_assert_cmpint (r.status, ==, 2);
  run_clear (&r);

  run_diff (&r, path, path, "--device", "3", NULL);
  g_assert_cmpint (r.status, ==, 1);
  g_assert_nonnull (strstr (r.err, "GPU 3"));
  run_clear (&r);

  /* A trace against itself: nothing changed, nothing added or removed. */
  run_diff (&r, path, path, "--format", "json", "--device", "0", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_null (strstr (r.out, "\"added\":[{"));
  g_assert_null (strstr (r.out, "\"removed\":[{"));
  g_assert_null (strstr (r.out, "\"status\":\"added\""));
  run_clear (&r);

  run_diff (&r, "--help", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "--group-by"));
  run_clear (&r);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/analysis/cli/diff-loader", test_diff_loader);
  g_test_add_func ("/analysis/cli/diff-matching", test_diff_matching);
  g_test_add_func ("/analysis/cli/diff-compile", test_diff_compile);
  g_test_add_func ("/analysis/cli/diff-hta", test_diff_hta);
  g_test_add_func ("/analysis/cli/diff-windows", test_diff_windows);
  g_test_add_func ("/analysis/cli/diff-inferred", test_diff_inferred);
  g_test_add_func ("/analysis/cli/diff-errors", test_diff_errors);

  return g_test_run ();
}
