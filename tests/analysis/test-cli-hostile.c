/* test-cli-hostile.c: kinescope-cli on names and paths that try to
 * drive a terminal or break CSV and JSON, and on invalid UTF-8
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

#include "cli-run.h"

/* Names that try to drive the terminal: ESC sequences (clear screen,
 * colours, an OSC window title ended by BEL), CR, tab, DEL, the C1
 * control U+009B (CSI), and commas, quotes and a newline for CSV. */
static const char hostile_trace[] =
  "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":0,\"name\":\"\\u001b[5mGPU\\u0007\","
  "\"totalGlobalMem\":1000000000,\"computeMajor\":9,\"computeMinor\":0,\"maxThreadsPerBlock\":1024,"
  "\"maxThreadsPerMultiprocessor\":2048,\"regsPerBlock\":65536,\"warpSize\":32,\"sharedMemPerBlock\":49152,"
  "\"numSms\":132}],\"traceEvents\":["
  "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":10,\"tid\":0,\"args\":{\"name\":\"\\u001b[2Jproc\"}},"
  "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":10,\"tid\":11,\"args\":{\"name\":\"\\u001b]0;pwned\\u0007main\\tthread\"}},"
  "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":10,\"tid\":11,\"ts\":1000,\"dur\":400},"
  "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":10,\"tid\":11,\"ts\":1400,\"dur\":400},"
  "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"\\u001b[31maten::evil,\\\"op\\\"\\nline2\",\"pid\":10,\"tid\":11,"
  "\"ts\":1010,\"dur\":100,\"args\":{\"External id\":1,\"Input Dims\":[[2,3]]}},"
  "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":10,\"tid\":11,\"ts\":1020,\"dur\":10,"
  "\"args\":{\"External id\":1,\"correlation\":10}},"
  "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"\\u001b[2Jevil_kernel\\u009b31m\\r\",\"pid\":0,\"tid\":7,\"ts\":1040,"
  "\"dur\":20,\"args\":{\"External id\":1,\"device\":0,\"stream\":7,\"correlation\":10,\"grid\":[1,1,1],"
  "\"block\":[32,1,1],\"registers per thread\":16}},"
  "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"\\u001b[1mwaiting\\u007f\",\"pid\":10,\"tid\":11,\"ts\":1200,\"dur\":500,"
  "\"args\":{\"External id\":2}},"
  "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":10,\"tid\":11,\"ts\":1690,\"dur\":5,"
  "\"args\":{\"External id\":2,\"correlation\":11}},"
  "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\\u001b[0m\",\"pid\":0,\"tid\":7,\"ts\":1700,\"dur\":50,"
  "\"args\":{\"External id\":2,\"device\":0,\"stream\":7,\"correlation\":11,\"grid\":[1,1,1],\"block\":[32,1,1],"
  "\"registers per thread\":16}},"
  "{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\",\"pid\":0,\"tid\":7,"
  "\"ts\":1100,\"dur\":80,\"args\":{\"device\":0,\"stream\":7,\"correlation\":12,\"bytes\":1048576}},"
  "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":10,\"tid\":11,\"ts\":1050,"
  "\"args\":{\"Bytes\":4096,\"Device Id\":0,\"Device Type\":1,\"Addr\":4096,\"Total Allocated\":4096,"
  "\"Total Reserved\":8192}},"
  "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":10,\"tid\":11,\"ts\":1300,"
  "\"args\":{\"Bytes\":-4096,\"Device Id\":0,\"Device Type\":1,\"Addr\":4096,\"Total Allocated\":0,"
  "\"Total Reserved\":8192}}]}";

#define EVIL_KERNEL    "\x1b[2Jevil_kernel\xc2\x9b" "31m\r"
#define EVIL_OPERATOR  "\x1b[31maten::evil,\"op\"\nline2"
#define SHOWN_KERNEL   "\\x1b[2Jevil_kernel\\u009b31m\\r"
#define SHOWN_OPERATOR "\\x1b[31maten::evil,\"op\"\\nline2"

/* No byte a terminal acts on: no C0 control but the newline, no DEL, no
 * C1 control (U+0080–U+009F), and valid UTF-8. */
static void
assert_inert (const char *what,
              const char *text)
{
  g_assert_nonnull (text);
  if (!g_utf8_validate (text, -1, NULL))
    g_error ("%s: not UTF-8:\n%s", what, text);
  for (const guchar *p = (const guchar *)text; *p; p++)
    if ((*p < 0x20 && *p != '\n') || *p == 0x7f || (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f))
      g_error ("%s: control character 0x%02x at byte %d of:\n%s", what, *p == 0xc2 ? p[1] : *p,
               (int)((const char *)p - text), text);
}

/* RFC 4180 records; NULL when @text is not well-formed CSV. */
static GPtrArray *
parse_csv (const char *text)
{
  g_autoptr(GPtrArray) records = g_ptr_array_new_with_free_func ((GDestroyNotify)g_ptr_array_unref);
  GPtrArray *record = NULL;
  const char *p = text;

  while (*p)
    {
      GString *field = g_string_new (NULL);

      if (record == NULL)
        {
          record = g_ptr_array_new_with_free_func (g_free);
          g_ptr_array_add (records, record);
        }
      if (*p == '"')
        {
          for (p++; ; p++)
            {
              if (*p == '\0')
                {
                  g_string_free (field, TRUE);
                  return NULL;
                }
              if (*p == '"' && p[1] == '"')
                g_string_append_c (field, *p++);
              else if (*p == '"')
                break;
              else
                g_string_append_c (field, *p);
            }
          p++;
        }
      else
        for (; *p && *p != ',' && *p != '\n'; p++)
          {
            if (*p == '"' || *p == '\r')
              {
                g_string_free (field, TRUE);
                return NULL;
              }
            g_string_append_c (field, *p);
          }
      g_ptr_array_add (record, g_string_free (field, FALSE));
      if (*p == ',')
        p++;
      else if (*p == '\n')
        {
          p++;
          record = NULL;
        }
      else if (*p != '\0')
        return NULL;
    }
  return g_steal_pointer (&records);
}

/* The array @key of the JSON object @text has an item named @name. */
static void
assert_json_lists_name (const char *text,
                        const char *key,
                        const char *name)
{
  yajl_val root = parse (text);
  yajl_val list = get (root, key, NULL);
  gboolean found = FALSE;

  for (guint i = 0; i < YAJL_GET_ARRAY (list)->len; i++)
    found |= g_strcmp0 (get_str (item (list, i), "name"), name) == 0;
  if (!found)
    g_error ("no %s named %s in %s", key, name, text);
  yajl_tree_free (root);
}

static char *
write_hostile_trace (const char *dir)
{
  char *path = g_build_filename (dir, "hostile.json", NULL);

  g_assert_true (g_file_set_contents (path, hostile_trace, -1, NULL));
  return path;
}

/* Every report, in every format, of a trace whose names hold terminal
 * escape sequences: tables and CSV show them escaped, CSV parses, JSON
 * parses and keeps the names exactly. */
static void
test_hostile_names (void)
{
  static const char * const reports[] = { "summary", "gaps", "operators", "kernels", "memory", "advice", "steps",
                                          "tensor-cores", "queue" };
  g_autofree char *dir = g_dir_make_tmp ("ks-hostile-XXXXXX", NULL);
  g_autofree char *path = write_hostile_trace (dir);
  Run r;

  for (guint i = 0; i < G_N_ELEMENTS (reports); i++)
    {
      g_autoptr(GPtrArray) csv = NULL;
      g_autofree char *what = NULL;
      yajl_val root;

      run_cli (&r, path, "--report", reports[i], NULL);
      g_assert_cmpint (r.status, ==, 0);
      what = g_strdup_printf ("--report %s (table)", reports[i]);
      assert_inert (what, r.out);
      assert_inert (what, r.err);
      run_clear (&r);

      run_cli (&r, path, "--report", reports[i], "--format", "csv", NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_free (what);
      what = g_strdup_printf ("--report %s --format csv", reports[i]);
      assert_inert (what, r.out);
      csv = parse_csv (r.out);
      if (csv == NULL)
        g_error ("%s: not CSV:\n%s", what, r.out);
      g_assert_cmpuint (csv->len, >=, 2);
      for (guint row = 1; row < csv->len; row++)
        g_assert_cmpuint (((GPtrArray *)csv->pdata[row])->len, ==, ((GPtrArray *)csv->pdata[0])->len);
      run_clear (&r);

      run_cli (&r, path, "--report", reports[i], "--format", "json", NULL);
      g_assert_cmpint (r.status, ==, 0);
      g_free (what);
      what = g_strdup_printf ("--report %s --format json", reports[i]);
      assert_inert (what, r.out);
      root = parse (r.out);
      yajl_tree_free (root);
      run_clear (&r);
    }

  /* The names are there, visibly escaped, each on its row. */
  run_cli (&r, path, "--report", "kernels", NULL);
  g_assert_nonnull (strstr (r.out, " " SHOWN_KERNEL "\n"));
  run_clear (&r);
  run_cli (&r, path, "--report", "operators", NULL);
  g_assert_nonnull (strstr (r.out, " " SHOWN_OPERATOR "\n"));
  run_clear (&r);
  run_cli (&r, path, NULL);
  g_assert_nonnull (strstr (r.out, "GPU 0: \\x1b[5mGPU\\x07\n"));
  run_clear (&r);
  run_cli (&r, path, "--report", "gaps", "--format", "csv", NULL);
  /* the thread, then what another thread did meanwhile: nothing here */
  g_assert_nonnull (strstr (r.out, ",\\x1b]0;pwned\\x07main\\tthread (11),\n"));
  run_clear (&r);

  /* CSV keeps the newline, quoted; the rest escaped. */
  run_cli (&r, path, "--report", "operators", "--format", "csv", NULL);
  {
    g_autoptr(GPtrArray) csv = parse_csv (r.out);
    GPtrArray *row = NULL;

    for (guint i = 1; i < csv->len; i++)
      if (strstr (((GPtrArray *)csv->pdata[i])->pdata[0], "evil") != NULL)
        row = csv->pdata[i];
    g_assert_nonnull (row);
    g_assert_cmpstr (row->pdata[0], ==, "\\x1b[31maten::evil,\"op\"\nline2");
  }
  run_clear (&r);

  /* JSON holds the names as they are. */
  run_cli (&r, path, "--report", "kernels", "--format", "json", NULL);
  assert_json_lists_name (r.out, "kernels", EVIL_KERNEL);
  run_clear (&r);
  run_cli (&r, path, "--report", "operators", "--format", "json", NULL);
  assert_json_lists_name (r.out, "operators", EVIL_OPERATOR);
  run_clear (&r);

  /* info, as text and as JSON */
  {
    const char *text_args[] = { path, NULL };
    const char *json_args[] = { "--format", "json", path, NULL };
    yajl_val root;

    run_command (&r, "info", text_args);
    g_assert_cmpint (r.status, ==, 0);
    assert_inert ("info", r.out);
    g_assert_nonnull (strstr (r.out, "  0: \\x1b[5mGPU\\x07\n"));
    run_clear (&r);

    run_command (&r, "info", json_args);
    g_assert_cmpint (r.status, ==, 0);
    assert_inert ("info --format json", r.out);
    root = parse (r.out);
    g_assert_cmpstr (YAJL_GET_STRING (item (get (root, "gpu_names", NULL), 0)), ==, "\x1b[5mGPU\x07");
    yajl_tree_free (root);
    run_clear (&r);
  }

  g_unlink (path);
  g_rmdir (dir);
}

/* Messages on stderr name files and arguments escaped too. */
static void
test_hostile_messages (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-hostile-XXXXXX", NULL);
  g_autofree char *bad = g_build_filename (dir, "\x1b[2Jbad\x07.json", NULL);
  g_autofree char *out = g_build_filename (dir, "out.kscope", NULL);
  const char *stats_args[] = { bad, NULL };
  const char *info_args[] = { bad, NULL };
  const char *convert_args[] = { bad, out, NULL };
  const char *render_args[] = { bad, "-o", out, NULL };
  const char *report_args[] = { bad, "--report", "\x1b[2Jall", NULL };
  const char *none[] = { NULL };
  static const char * const commands[] = { "stats", "info", "convert", "render" };
  const char * const *args[] = { stats_args, info_args, convert_args, render_args };
  Run r;

  g_assert_true (g_file_set_contents (bad, "{\"traceEvents\": [ not json", -1, NULL));

  for (guint i = 0; i < G_N_ELEMENTS (commands); i++)
    {
      run_command (&r, commands[i], args[i]);
      g_assert_cmpint (r.status, !=, 0);
      assert_inert (commands[i], r.err);
      /* The file is named (as a URI: GIO's parse name escapes it). render
       * is built with the GUI only. */
      if (strstr (r.err, "unknown command") == NULL)
        g_assert_nonnull (strstr (r.err, "%1B%5B2Jbad%07.json"));
      run_clear (&r);
    }

  run_command (&r, "stats", report_args);
  g_assert_cmpint (r.status, ==, 2);
  assert_inert ("stats --report", r.err);
  g_assert_nonnull (strstr (r.err, "\\x1b[2Jall"));
  run_clear (&r);

  run_command (&r, "\x1b]0;title\x07", none);
  g_assert_cmpint (r.status, ==, 2);
  assert_inert ("unknown command", r.err);
  g_assert_nonnull (strstr (r.err, "\\x1b]0;title\\x07"));
  run_clear (&r);

  g_unlink (bad);
  g_rmdir (dir);
}

/* The kernels report of the hostile trace, exactly: the table header
 * and cells placed by the column descriptors, CSV with the three-axis
 * columns expanded, JSON members named by the keys. */
static void
test_report_exact (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-hostile-XXXXXX", NULL);
  g_autofree char *path = write_hostile_trace (dir);
  Run r;

  run_cli (&r, path, "--report", "kernels", "--format", "csv", NULL);
  g_assert_cmpstr (r.out, ==,
                   "name,calls,total_ns,mean_ns,min_ns,max_ns,share,grid_x,grid_y,grid_z,block_x,block_y,block_z,"
                   "registers,est_occupancy_pct,mean_latency_ns,mean_queue_ns\n"
                   "k2\\x1b[0m,1,50000,50000.0000,50000,50000,0.7143,1,1,1,32,1,1,16,,5000.0000,0.0000\n"
                   SHOWN_KERNEL ",1,20000,20000.0000,20000,20000,0.2857,1,1,1,32,1,1,16,,10000.0000,0.0000\n");
  run_clear (&r);

  run_cli (&r, path, "--report", "kernels", "--format", "json", NULL);
  g_assert_true (g_str_has_prefix (r.out,
                                   "{\"kernels\":[{\"name\":\"k2\\u001b[0m\",\"calls\":1,\"total_ns\":50000,"
                                   "\"mean_ns\":50000.0000,\"min_ns\":50000,\"max_ns\":50000,\"share\":0.7143,"
                                   "\"grid\":[1,1,1],\"block\":[32,1,1],\"registers\":16,\"config_varies\":false,"
                                   "\"est_occupancy_pct\":null,\"mean_latency_ns\":5000.0000,"
                                   "\"mean_queue_ns\":0.0000},"));
  run_clear (&r);

  run_cli (&r, path, "--report", "kernels", NULL);
  g_assert_true (g_str_has_prefix (r.out,
                                   "  Calls       Total        Mean         Min         Max   Share  Occ. Grid   "
                                   "        Block        Regs Kernel\n"));
  g_assert_nonnull (strstr (r.out, "  71.4 %     - 1×1×1          32×1×1         16 k2\\x1b[0m\n"));
  run_clear (&r);

  g_unlink (path);
  g_rmdir (dir);
}

/* Records `true` into @name in a new folder named after @dir_template
 * with --progress-fd: every line parses as JSON, the last one names the
 * file exactly, and nothing written can drive a terminal. */
static void
check_progress (const char *dir_template,
                const char *name)
{
  g_autofree char *dir = g_dir_make_tmp (dir_template, NULL);
  g_autofree char *out = g_build_filename (dir, name, NULL);
  const char *args[] = { "--progress-fd", "1", "-o", out, "--", "true", NULL };
  g_auto(GStrv) lines = NULL;
  yajl_val done;
  Run r;

  run_command (&r, "record", args);
  g_assert_cmpint (r.status, ==, 0);
  lines = g_strsplit (g_strstrip (r.out), "\n", -1);
  for (guint i = 0; lines[i]; i++)
    yajl_tree_free (parse (lines[i]));
  done = parse (lines[g_strv_length (lines) - 1]);
  g_assert_cmpstr (get_str (done, "state"), ==, "done");
  g_assert_cmpstr (get_str (done, "output"), ==, out);
  yajl_tree_free (done);
  assert_inert ("record --progress-fd", r.out);
  assert_inert ("record", r.err);
  run_clear (&r);

  g_unlink (out);
  g_rmdir (dir);
}

/* An output name with control characters and a newline keeps the
 * progress lines valid, one object a line. */
static void
test_hostile_progress (void)
{
  check_progress ("ks-hostile-XXXXXX", "\x1b[2Jrec\nord\x7f.kscope");
}

/* A folder named 训练 and a file name with a quote and a backslash. */
static void
test_progress_path (void)
{
  check_progress ("ks-训练-XXXXXX", "a\"b\\c.kscope");
}

/* Invalid UTF-8 in a trace's names (here a code point past U+10FFFF, an
 * encoded surrogate and an escaped one, which yajl lets through) never
 * reaches the JSON output: the reader replaced it with U+FFFD. */
static void
test_invalid_utf8 (void)
{
  static const char trace[] =
    "{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\xf4\x90\x80\x80\\udfff\",\"pid\":0,\"tid\":7,"
    "\"ts\":10,\"dur\":5,\"args\":{\"device\":0,\"stream\":7}}],"
    "\"deviceProperties\":[{\"id\":0,\"name\":\"H\xed\xa0\x80\",\"numSms\":132}]}";
  g_autoptr(GError) error = NULL;
  g_autofree char *tmp = NULL;
  int fd = g_file_open_tmp ("ks-utf8-XXXXXX.json", &tmp, &error);
  yajl_val root;
  Run r;

  g_assert_no_error (error);
  close (fd);
  g_assert_true (g_file_set_contents (tmp, trace, -1, NULL));
  run_cli (&r, tmp, "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_true (g_utf8_validate (r.out, -1, NULL));
  root = parse (r.out);
  g_assert_cmpstr (YAJL_GET_STRING (get (item (get (root, "gpus", NULL), 0), "name", NULL)), ==,
                   "H\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  g_assert_cmpstr (YAJL_GET_STRING (get (item (get (root, "top_kernels", NULL), 0), "name", NULL)), ==,
                   "k\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
  yajl_tree_free (root);
  run_clear (&r);
  g_unlink (tmp);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/analysis/cli/hostile-names", test_hostile_names);
  g_test_add_func ("/analysis/cli/hostile-messages", test_hostile_messages);
  g_test_add_func ("/analysis/cli/hostile-progress", test_hostile_progress);
  g_test_add_func ("/analysis/cli/progress-path", test_progress_path);
  g_test_add_func ("/analysis/cli/report-exact", test_report_exact);
  g_test_add_func ("/analysis/cli/invalid-utf8", test_invalid_utf8);

  return g_test_run ();
}
