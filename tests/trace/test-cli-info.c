/* test-cli-info.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

static const char *cli_path;

static int
run (const char  *const *args,
     char       **out,
     char       **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GError) error = NULL;

  g_ptr_array_add (argv, (gpointer)cli_path);
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer)args[i]);
  g_ptr_array_add (argv, NULL);

  proc = g_subprocess_newv ((const char * const *)argv->pdata,
                            G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, NULL, NULL, out, err, &error);
  g_assert_no_error (error);
  return g_subprocess_get_exit_status (proc);
}

static char *
fixture_path (const char *name)
{
  return g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);
}

static void
test_info_json (void)
{
  g_autofree char *path = fixture_path ("gpt_3steps.pt.trace.json.gz");
  const char *args[] = { "info", "--format", "json", path, NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  /* expected values computed from the fixture with Python */
  const char *expect[] = {
    "\"format\":\"kineto-json\"",
    "\"duration_ns\":287591754,",
    "\"processes\":2,",
    "\"threads\":3,",
    "\"gpus\":1,",
    "\"streams\":1,",
    "\"kernel\":1737,",
    "\"memcpy\":72,",
    "\"memset\":180,",
    "\"cuda_api\":2283,",            /* 1890 runtime + 393 driver */
    "\"cpu_slice\":25973,",          /* 14724 cpu_op + 11230 python + 18 user + 1 generic */
    "\"nvtx\":0,",
    "\"gpu_annotation\":12,",
    "\"flow\":3321,",                /* 1989 launch + 1332 fwdbwd */
    "\"memory_event\":4614,",
    "\"counter_sample\":0,",
    "\"instant\":2,",
    "\"stack_sample\":0}",
    "\"gpu_names\":[\"NVIDIA H200\"]",
    /* the file's top-level values, sorted */
    "\"metadata\":{\"baseTimeNanoseconds\":\"1790857026000000000\",\"cuda_driver_version\":\"13000\","
    "\"cuda_runtime_version\":\"13000\",\"cupti_version\":\"130001\",\"displayTimeUnit\":\"ms\","
    "\"profile_memory\":\"1\",\"record_shapes\":\"1\",\"schemaVersion\":\"1\","
    "\"traceName\":\"/tmp/log_gpt_3steps/vm_455.1795967182599601656.pt.trace.json\","
    "\"trace_id\":\"4E9E589288B54BAF9F9096E53D71E9AF\",\"with_stack\":\"1\"}",
  };

  g_assert_cmpint (run (args, &out, &err), ==, 0);
  g_assert_true (g_str_has_prefix (out, "{"));
  g_assert_true (g_str_has_suffix (out, "}\n"));
  g_assert_nonnull (strstr (out, "\"load_time_ms\":"));
  for (guint i = 0; i < G_N_ELEMENTS (expect); i++)
    if (strstr (out, expect[i]) == NULL)
      g_error ("“%s” missing from %s", expect[i], out);
}

static void
test_info_text (void)
{
  g_autofree char *path = fixture_path ("workers_pinned.pt.trace.json.gz");
  const char *args[] = { "info", path, NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;

  g_assert_cmpint (run (args, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "kineto-json"));
  g_assert_nonnull (strstr (out, "50309895 ns"));
  g_assert_nonnull (strstr (out, "NVIDIA H200"));
  g_assert_nonnull (strstr (out, "Load time:"));
  g_assert_nonnull (strstr (out, "\nMetadata:\n  baseTimeNanoseconds: "));
  g_assert_nonnull (strstr (out, "\n  displayTimeUnit: ms\n"));
}

/* convert writes a .kscope that info reads back with the same counts */
static void
test_convert (void)
{
  g_autofree char *path = fixture_path ("seed_cnn.pt.trace.json.gz");
  g_autofree char *dir = g_dir_make_tmp ("ks-convert-XXXXXX", NULL);
  g_autofree char *out_path = g_build_filename (dir, "seed.kscope", NULL);
  const char *convert[] = { "convert", path, out_path, NULL };
  const char *convert_force[] = { "convert", "--force", path, out_path, NULL };
  const char *bad_name[] = { "convert", path, "seed.sqlite", NULL };
  const char *info[] = { "info", "--format", "json", out_path, NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  const char *expect[] = {
    "\"format\":\"kscope\"",
    "\"duration_ns\":41607402,",
    "\"kernel\":210,",
    "\"memcpy\":6,",
    "\"memset\":21,",
    "\"cuda_api\":406,",
    "\"gpu_annotation\":6,",
    "\"flow\":285,",
    "\"memory_event\":408,",
  };

  g_assert_cmpint (run (convert, &out, &err), ==, 0);
  g_assert_nonnull (strstr (out, "seed.kscope"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* an existing output is kept unless --force */
  g_assert_cmpint (run (convert, &out, &err), ==, 1);
  g_assert_nonnull (strstr (err, "--force"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run (convert_force, &out, &err), ==, 0);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run (bad_name, &out, &err), ==, 2);
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  g_assert_cmpint (run (info, &out, &err), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (expect); i++)
    if (strstr (out, expect[i]) == NULL)
      g_error ("“%s” missing from %s", expect[i], out);

  g_unlink (out_path);
  g_rmdir (dir);
}

static void
test_exit_codes (void)
{
  const char *none[] = { NULL };
  const char *help[] = { "--help", NULL };
  const char *version[] = { "--version", NULL };
  const char *unknown[] = { "frobnicate", NULL };
  const char *info_help[] = { "info", "--help", NULL };
  const char *info_none[] = { "info", NULL };
  const char *info_bad_format[] = { "info", "--format", "xml", "x.json", NULL };
  const char *info_missing[] = { "info", "/nonexistent/x.pt.trace.json", NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;

#define RUN(args, status) \
  G_STMT_START { g_clear_pointer (&out, g_free); g_clear_pointer (&err, g_free); \
                 g_assert_cmpint (run (args, &out, &err), ==, status); } G_STMT_END

  RUN (none, 2);
  g_assert_nonnull (strstr (err, "info"));
  RUN (help, 0);
  g_assert_nonnull (strstr (out, "info"));
  RUN (version, 0);
  g_assert_cmpstr (out, ==, "kinescope-cli " PACKAGE_VERSION "\n");
  RUN (unknown, 2);
  g_assert_nonnull (strstr (err, "frobnicate"));
  RUN (info_help, 0);
  g_assert_nonnull (strstr (out, "--format"));
  RUN (info_none, 2);
  RUN (info_bad_format, 2);
  g_assert_nonnull (strstr (err, "xml"));
  RUN (info_missing, 1);
  g_assert_nonnull (strstr (err, "/nonexistent/x.pt.trace.json"));

#undef RUN
}

/* KINESCOPE_LOAD_PHASES=1: one line per phase on stderr, in the order
 * the load runs them, and the same output on stdout: a .json.gz (with
 * its inflating thread's phases, and the parallel reader's on several
 * threads) and a .kscope. */
static const char *const finish_phases[] = {
  "finish: samples and checks", "finish: small tracks", "finish: large tracks",
  "finish: overlaps and thread times", "finish: counters",
  "finish beside the tracks: memory, samples, instants", "finish: memory, samples, instants",
  "finish: flows", "finish: strings and arguments",
};
static const char *const inflate_phases[] = {
  "inflate: inflating", "inflate: compaction", "inflate: waiting for the parse",
};
static const char *const map_phases[] = {
  "map: compaction", "map: waiting for the parse",
};
static const char *const args_phases[] = {
  "args: storing", "args: waiting for the replay",
};
static const char *const read_phases[] = {
  "read: replaying events into the builder", "read: parsing chunks on this thread",
  "read: waiting for workers", "read: waiting for the input", "read: taking the text in, cutting chunks",
  "read: the rest (input, compaction, handing over)",
};

/* A .kscope's read, step by step on the loading thread; the arguments'
 * thread's before its slices step (four threads or more); the reading
 * threads' after the steps (two or more). */
static const char *const kscope_steps[] = {
  "read: references", "read: memory kinds", "read: GPUs", "read: session", "read: slices", "read: NVTX",
  "read: samples", "read: instants", "read: flows", "read: thread times", "read: counters", "read: GPU metrics",
  "read: memory events", "read: memory usage", "read: diagnostics", "read: ranks", "read: memory snapshots",
};
static const char *const kscope_args_phases[] = {
  "args: storing, on their own thread", "args: that thread waiting for a block",
  "args: the loading thread waiting for that thread",
};
static const char *const kscope_scan_phases[] = {
  "scan: the loading thread waiting for the reading threads", "scan: blocks read on the loading thread",
  "scan: blocks read ahead, the reading threads together",
};

/* @json without its "load_time_ms" member, which every run has its own */
static char *
without_load_time (const char *json)
{
  g_autoptr(GRegex) re = g_regex_new ("\"load_time_ms\":[0-9.]+,", 0, 0, NULL);
  char *cut = g_regex_replace_literal (re, json, -1, 0, "", 0, NULL);

  g_assert_nonnull (cut);
  g_assert_cmpuint (strlen (cut), <, strlen (json));
  return cut;
}

static void
check_phases (const char *path,
              const char *threads,
              const char *plain_out)
{
  const char *args[] = { "info", "--format", "json", path, NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *cut = NULL;
  g_autofree char *plain_cut = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  double read_parts = 0, read_wall = -1, finish_parts = 0, finish_wall = -1;
  guint k = 0;

  g_setenv ("KINESCOPE_THREADS", threads, TRUE);
  g_setenv ("KINESCOPE_LOAD_PHASES", "1", TRUE);
  g_assert_cmpint (run (args, &out, &err), ==, 0);
  g_unsetenv ("KINESCOPE_LOAD_PHASES");
  g_unsetenv ("KINESCOPE_THREADS");
  /* the same report, but for the time it took */
  cut = without_load_time (out);
  plain_cut = without_load_time (plain_out);
  g_assert_cmpstr (cut, ==, plain_cut);

  lines = g_strsplit (err, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_auto(GStrv) f = g_strsplit (lines[i], "\t", -1);
      double wall, cpu;

      if (!g_str_has_prefix (lines[i], "load-phase\t"))
        continue;
      g_assert_cmpuint (g_strv_length (f), ==, 4);
      wall = g_ascii_strtod (f[2], NULL);
      cpu = g_ascii_strtod (f[3], NULL);
      /* one thread's CPU time cannot pass its wall time (clock steps of
       * a microsecond aside) */
      g_assert_cmpfloat (wall, >=, 0);
      g_assert_cmpfloat (cpu, >=, 0);
      g_assert_cmpfloat (cpu, <=, wall + 1e-4);
      g_ptr_array_add (names, g_strdup (f[1]));
      if (g_str_has_prefix (f[1], "read: "))
        read_parts += wall;
      else if (g_str_has_prefix (f[1], "finish: "))
        finish_parts += wall;
      else if (strcmp (f[1], "read") == 0)
        read_wall = wall;
      else if (strcmp (f[1], "finish") == 0)
        finish_wall = wall;
    }

  /* the inflating thread's parts (a .gz) or the compacting thread's (a
   * plain file compacted before it is cut, on four threads or more;
   * cut as it lies, it has none), the args' thread's (four or
   * more), the read's parts (on several
   * threads), the read, finishing's parts, finishing */
  if (g_str_has_suffix (path, ".gz"))
    for (guint i = 0; i < G_N_ELEMENTS (inflate_phases); i++, k++)
      g_assert_cmpstr (k < names->len ? g_ptr_array_index (names, k) : "", ==, inflate_phases[i]);
  if (g_str_has_suffix (path, ".json") && atoi (threads) >= 4 &&
      g_strcmp0 (g_getenv ("KINESCOPE_JSON_CUT"), "compacted") == 0)
    for (guint i = 0; i < G_N_ELEMENTS (map_phases); i++, k++)
      g_assert_cmpstr (k < names->len ? g_ptr_array_index (names, k) : "", ==, map_phases[i]);
  /* the args' thread, from four threads on */
  if (atoi (threads) >= 4 && !g_str_has_suffix (path, ".kscope"))
    for (guint i = 0; i < G_N_ELEMENTS (args_phases); i++, k++)
      g_assert_cmpstr (k < names->len ? g_ptr_array_index (names, k) : "", ==, args_phases[i]);
  if (strcmp (threads, "1") != 0 && !g_str_has_suffix (path, ".kscope"))
    for (guint i = 0; i < G_N_ELEMENTS (read_phases); i++, k++)
      g_assert_cmpstr (k < names->len ? g_ptr_array_index (names, k) : "", ==, read_phases[i]);
  if (g_str_has_suffix (path, ".kscope"))
    {
      for (guint i = 0; i < G_N_ELEMENTS (kscope_steps); i++, k++)
        {
          if (strcmp (kscope_steps[i], "read: slices") == 0 && atoi (threads) >= 4)
            for (guint j = 0; j < G_N_ELEMENTS (kscope_args_phases); j++, k++)
              g_assert_cmpstr (k < names->len ? g_ptr_array_index (names, k) : "", ==, kscope_args_phases[j]);
          g_assert_cmpstr (k < names->len ? g_ptr_array_index (names, k) : "", ==, kscope_steps[i]);
        }
      if (strcmp (threads, "1") != 0)
        for (guint i = 0; i < G_N_ELEMENTS (kscope_scan_phases); i++, k++)
          g_assert_cmpstr (k < names->len ? g_ptr_array_index (names, k) : "", ==, kscope_scan_phases[i]);
    }
  g_assert_cmpstr (k < names->len ? g_ptr_array_index (names, k) : "", ==, "read");
  k++;
  for (guint i = 0; i < G_N_ELEMENTS (finish_phases); i++, k++)
    g_assert_cmpstr (k < names->len ? g_ptr_array_index (names, k) : "", ==, finish_phases[i]);
  g_assert_cmpstr (k < names->len ? g_ptr_array_index (names, k) : "", ==, "finish");
  g_assert_cmpuint (names->len, ==, k + 1);

  /* the parts are measured inside the whole */
  g_assert_cmpfloat (read_wall, >, 0);
  g_assert_cmpfloat (read_parts, <=, read_wall + 1e-4);
  g_assert_cmpfloat (finish_parts, <=, finish_wall + 1e-4);
}

/* The fixture @name inflated into @dir: a plain file. */
static char *
inflate_fixture (const char *name,
                 const char *dir)
{
  g_autofree char *gz = fixture_path (name);
  g_autofree char *base = g_path_get_basename (gz);
  char *path = g_build_filename (dir, base, NULL);
  g_autoptr(GFile) from = g_file_new_for_path (gz);
  g_autoptr(GFile) to = g_file_new_for_path (path);
  g_autoptr(GZlibDecompressor) gunzip = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr(GInputStream) in = NULL;
  g_autoptr(GInputStream) text = NULL;
  g_autoptr(GOutputStream) out = NULL;
  g_autoptr(GError) error = NULL;

  path[strlen (path) - 3] = '\0';   /* without .gz */
  g_clear_object (&to);
  to = g_file_new_for_path (path);
  in = G_INPUT_STREAM (g_file_read (from, NULL, &error));
  g_assert_no_error (error);
  text = g_converter_input_stream_new (in, G_CONVERTER (gunzip));
  out = G_OUTPUT_STREAM (g_file_replace (to, NULL, FALSE, G_FILE_CREATE_NONE, NULL, &error));
  g_assert_no_error (error);
  g_output_stream_splice (out, text, G_OUTPUT_STREAM_SPLICE_CLOSE_SOURCE | G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET,
                          NULL, &error);
  g_assert_no_error (error);
  return path;
}

static void
test_load_phases (void)
{
  g_autofree char *path = fixture_path ("gpt_3steps.pt.trace.json.gz");
  g_autofree char *kscope = fixture_path ("small_mlp_60steps.kscope");
  const char *args[] = { "info", "--format", "json", path, NULL };
  const char *kscope_args[] = { "info", "--format", "json", kscope, NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *kscope_out = NULL;
  g_autofree char *kscope_err = NULL;

  g_assert_cmpint (run (args, &out, &err), ==, 0);
  g_assert_null (strstr (err, "load-phase"));
  check_phases (path, "1", out);
  check_phases (path, "3", out);
  /* a .kscope: its read and finish, on any number of threads */
  g_assert_cmpint (run (kscope_args, &kscope_out, &kscope_err), ==, 0);
  check_phases (kscope, "1", kscope_out);
  check_phases (kscope, "3", kscope_out);
  check_phases (kscope, "4", kscope_out);

  /* a plain file (13 MB): on four threads, compacted before it is cut,
   * its compacting thread's parts; cut as it lies, none */
  {
    g_autofree char *dir = g_dir_make_tmp ("ks-phases-XXXXXX", NULL);
    g_autofree char *plain = inflate_fixture ("gpt_3steps.pt.trace.json.gz", dir);
    const char *plain_args[] = { "info", "--format", "json", plain, NULL };
    g_autofree char *plain_out = NULL;
    g_autofree char *plain_err = NULL;

    g_assert_cmpint (run (plain_args, &plain_out, &plain_err), ==, 0);
    check_phases (plain, "1", plain_out);
    check_phases (plain, "3", plain_out);
    check_phases (plain, "4", plain_out);
    g_setenv ("KINESCOPE_JSON_CUT", "compacted", TRUE);
    check_phases (plain, "4", plain_out);
    g_unsetenv ("KINESCOPE_JSON_CUT");
    g_unlink (plain);
    g_rmdir (dir);
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_assert_cmpint (argc, ==, 2);
  cli_path = argv[1];
  g_test_add_func ("/cli/info-json", test_info_json);
  g_test_add_func ("/cli/info-text", test_info_text);
  g_test_add_func ("/cli/convert", test_convert);
  g_test_add_func ("/cli/exit-codes", test_exit_codes);
  g_test_add_func ("/cli/load-phases", test_load_phases);
  return g_test_run ();
}
