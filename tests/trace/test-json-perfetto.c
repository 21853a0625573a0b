/* test-json-perfetto.c: trace-event JSON read as Perfetto reads it: flows v2, counter
 * strings, lenient syntax, metadata, threads, partial overlap, async scopes
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>
#include <unistd.h>
#include <gio/gunixinputstream.h>
#include <glib/gstdio.h>
#include <zlib.h>

#include "ks-json-reader.h"
#include "ks-kscope-writer.h"
#include "ks-trace-loader.h"

#include "test-json-util.h"

/* Flows v2, in the shape of Perfetto's flow_events_json_v2: slices carry
 * "bind_id" with "flow_out" (a flow leaves here), "flow_in" (one arrives)
 * or both (a step). Arrivals take the flow from the last slice that sent
 * the id, so one sender fans out to several; the slice is the one with
 * the bind_id, not a child starting at its time. Events are in no time
 * order. */
static void
test_flows_v2 (void)
{
  const char *json =
    "{\"traceEvents\":["
    "{\"cat\":\"ipc\",\"pid\":15902,\"tid\":15903,\"ts\":3002,\"ph\":\"X\",\"name\":\"SenderA\",\"args\":{},"
    "\"dur\":10,\"bind_id\":\"0x402\",\"flow_out\":true},"
    "{\"cat\":\"ipc\",\"pid\":15903,\"tid\":15904,\"ts\":0,\"ph\":\"X\",\"name\":\"SenderB\",\"args\":{},"
    "\"dur\":10,\"bind_id\":\"0x403\",\"flow_out\":true,\"flow_in\":false},"
    "{\"cat\":\"ipc\",\"pid\":15875,\"tid\":15895,\"ts\":1001,\"ph\":\"X\",\"name\":\"Blergh\",\"args\":{},"
    "\"dur\":100,\"bind_id\":\"0x403\",\"flow_in\":true},"
    "{\"cat\":\"ipc\",\"pid\":15774,\"tid\":15794,\"ts\":3200,\"ph\":\"X\",\"name\":\"OtherSlice\",\"args\":{},"
    "\"dur\":500,\"bind_id\":\"0x402\",\"flow_in\":true,\"flow_out\":true},"
    "{\"cat\":\"ipc\",\"pid\":15874,\"tid\":15894,\"ts\":3331,\"ph\":\"X\",\"name\":\"SomeSlice\",\"args\":{},"
    "\"dur\":400,\"bind_id\":\"0x402\",\"flow_in\":true},"
    "{\"cat\":\"ipc\",\"pid\":15875,\"tid\":15895,\"ts\":3333,\"ph\":\"B\",\"name\":\"SomeOtherSlice\",\"args\":{},"
    "\"bind_id\":\"0x402\",\"flow_in\":true},"
    "{\"cat\":\"ipc\",\"pid\":15875,\"tid\":15895,\"ts\":3366,\"dur\":0,\"ph\":\"i\",\"name\":\"SomeOtherSliceInstant\",\"args\":{}},"
    "{\"cat\":\"ipc\",\"pid\":15875,\"tid\":15895,\"ts\":4330,\"ph\":\"E\",\"name\":\"SomeOtherSlice\",\"args\":{}},"
    /* an async range receives too */
    "{\"cat\":\"ipc\",\"pid\":15875,\"ts\":2000,\"ph\":\"b\",\"id\":\"0x1\",\"name\":\"AsyncRecv\",\"bind_id\":\"0x403\",\"flow_in\":true},"
    "{\"cat\":\"ipc\",\"pid\":15875,\"ts\":2100,\"ph\":\"e\",\"id\":\"0x1\",\"name\":\"AsyncRecv\"},"
    /* a chain by number, written backwards: c1 > c2 > c3 > c4 */
    "{\"cat\":\"ipc\",\"pid\":1,\"tid\":2,\"ts\":130,\"ph\":\"X\",\"name\":\"c4\",\"dur\":5,\"bind_id\":7,\"flow_in\":true},"
    "{\"cat\":\"ipc\",\"pid\":1,\"tid\":1,\"ts\":120,\"ph\":\"X\",\"name\":\"c3\",\"dur\":5,\"bind_id\":7,\"flow_in\":true,\"flow_out\":true},"
    "{\"cat\":\"ipc\",\"pid\":1,\"tid\":2,\"ts\":110,\"ph\":\"X\",\"name\":\"c2\",\"dur\":5,\"bind_id\":7,\"flow_out\":true,\"flow_in\":true},"
    "{\"cat\":\"ipc\",\"pid\":1,\"tid\":1,\"ts\":100,\"ph\":\"X\",\"name\":\"c1\",\"dur\":5,\"bind_id\":7,\"flow_out\":true},"
    /* the sender encloses a child that starts with it: the flow is the sender's */
    "{\"cat\":\"ipc\",\"pid\":1,\"tid\":1,\"ts\":200,\"ph\":\"X\",\"name\":\"outer\",\"dur\":50,\"bind_id\":\"9\",\"flow_out\":true},"
    "{\"cat\":\"ipc\",\"pid\":1,\"tid\":1,\"ts\":200,\"ph\":\"X\",\"name\":\"inner\",\"dur\":10},"
    "{\"cat\":\"ipc\",\"pid\":1,\"tid\":2,\"ts\":300,\"ph\":\"X\",\"name\":\"dst\",\"dur\":5,\"bind_id\":\"9\",\"flow_in\":true},"
    /* no direction: no flow; an arrival nothing sent: skipped, said so */
    "{\"cat\":\"ipc\",\"pid\":1,\"tid\":1,\"ts\":400,\"ph\":\"X\",\"name\":\"nodir\",\"dur\":5,\"bind_id\":\"9\"},"
    "{\"cat\":\"ipc\",\"pid\":1,\"tid\":2,\"ts\":410,\"ph\":\"X\",\"name\":\"orphan\",\"dur\":5,\"bind_id\":\"0x77\",\"flow_in\":true}"
    "]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);
  g_autofree char *pairs = NULL;

  g_assert_no_error (error);
  pairs = flow_pairs (trace, "ipc");
  g_assert_cmpstr (pairs, ==,
                   "OtherSlice>SomeOtherSlice OtherSlice>SomeSlice SenderA>OtherSlice SenderB>AsyncRecv "
                   "SenderB>Blergh c1>c2 c2>c3 c3>c4 outer>dst");
  g_assert_nonnull (strstr (warnings (trace), "1 flow events without an id or a partner were skipped"));
}

/* The flows of one category between two slices, in a trace that is
 * Kineto's (a cpu_op first) or not: the number of flows kept. */
static guint
flows_of_category (const char *cat,
                   gboolean    kineto)
{
  g_autofree char *json = g_strdup_printf (
    "{\"traceEvents\":["
    "{\"cat\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":1,\"ph\":\"X\",\"name\":\"first\",\"dur\":1},"
    "{\"cat\":\"c\",\"pid\":1,\"tid\":1,\"ts\":5,\"ph\":\"X\",\"name\":\"src\",\"dur\":10},"
    "{\"cat\":\"c\",\"pid\":1,\"tid\":2,\"ts\":18,\"ph\":\"X\",\"name\":\"dst\",\"dur\":10},"
    "{\"cat\":\"%s\",\"pid\":1,\"tid\":1,\"ts\":10,\"ph\":\"s\",\"id\":1,\"name\":\"f\"},"
    "{\"cat\":\"%s\",\"pid\":1,\"tid\":2,\"ts\":20,\"ph\":\"f\",\"bp\":\"e\",\"id\":1,\"name\":\"f\"}"
    "]}", kineto ? "cpu_op" : "plain", cat, cat);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);

  g_assert_no_error (error);
  return trace->n_flows;
}

/* Kineto's flows from a CPU launch to its GPU work are implied by the
 * correlation ids and not stored: "ac2g", "async_cpu_to_gpu" and
 * "async_gpu" in any trace (the name as the model keeps it, up to a
 * NUL), "async" only in a Kineto trace. Every other category's flows
 * are kept. */
static void
test_launch_flow_categories (void)
{
  static const struct
  {
    const char *cat;
    guint       plain;
    guint       kineto;
  } cases[] = {
    { "ac2g", 0, 0 },
    { "async_cpu_to_gpu", 0, 0 },
    { "async_gpu", 0, 0 },
    { "ac2g\\u0000tail", 0, 0 },
    { "async", 1, 0 },
    { "asyncx", 1, 1 },
    { "ac2", 1, 1 },
    { "fwdbwd", 1, 1 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_test_message ("category %s", cases[i].cat);
      g_assert_cmpuint (flows_of_category (cases[i].cat, FALSE), ==, cases[i].plain);
      g_assert_cmpuint (flows_of_category (cases[i].cat, TRUE), ==, cases[i].kineto);
    }
}

/* Counter values written as strings, in the shape of Perfetto's
 * json_counter_args and json_metadata: what reads as a number is a
 * sample, the rest is skipped; a single series keeps its key
 * (counters_json_counters: "ctr cats"). */
static void
test_counter_strings (void)
{
  const char *json =
    "["
    "{\"ph\":\"C\",\"pid\":300,\"tid\":301,\"ts\":3000,\"name\":\"Edge\",\"cat\":\"counters_str\",\"args\":{"
    "\"leading_dot\":\".75\",\"trailing_dot\":\"246.\",\"leading_zero_float\":\"01.23\","
    "\"leading_zero_int_str\":\"050\",\"incomplete_exp\":\"1.5e\",\"exp_no_digit\":\"2e+\",\"just_dot\":\".\","
    "\"plus_val\":\"+10.5\",\"just_plus\":\"+\",\"just_minus\":\"-\",\"hex\":\"0x10\",\"word\":\"inf\"}},"
    "{\"pid\":\"1000\",\"name\":\"ctr\",\"ph\":\"C\",\"ts\":3000,\"args\":{\"cats\":0}},"
    "{\"pid\":\"1000\",\"name\":\"ctr\",\"ph\":\"C\",\"ts\":3010,\"args\":{\"cats\":10}},"
    "{\"pid\":\"1000\",\"name\":\"ctr\",\"ph\":\"C\",\"ts\":3020,\"args\":{\"cats\":\"0\"}},"
    "{\"ph\":\"C\",\"pid\":30,\"tid\":31,\"ts\":3000,\"name\":\"MyCounters\",\"id\":\"g1\",\"args\":{"
    "\"counter1_float\":100.5,\"counter2_int\":-50,\"counter3_str_num\":\"25.7\"}},"
    /* sort indices written as strings */
    "{\"ph\":\"X\",\"pid\":30,\"tid\":31,\"ts\":3000,\"dur\":1,\"name\":\"x\"},"
    "{\"ph\":\"M\",\"pid\":30,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":\"-2\"}},"
    "{\"ph\":\"M\",\"pid\":30,\"tid\":31,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":\"5\"}}"
    "]";
  static const struct { const char *name, *samples; } expect[] = {
    { "Edge leading_dot", "0=0.75" },
    { "Edge trailing_dot", "0=246" },
    { "Edge leading_zero_float", "0=1.23" },
    { "Edge leading_zero_int_str", "0=50" },
    { "Edge plus_val", "0=10.5" },
    { "ctr cats", "0=0 10000=10 20000=0" },
    { "MyCounters g1 counter1_float", "0=100.5" },
    { "MyCounters g1 counter2_int", "0=-50" },
    { "MyCounters g1 counter3_str_num", "0=25.7" },
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);
  guint32 p;

  g_assert_no_error (error);
  g_assert_cmpuint (trace->n_counters, ==, G_N_ELEMENTS (expect));
  for (guint i = 0; i < G_N_ELEMENTS (expect); i++)
    {
      g_autofree char *samples = counter_samples (trace, expect[i].name);

      g_assert_cmpstr (samples, ==, expect[i].samples);
    }
  p = ks_trace_find_process (trace, 30);
  g_assert_cmpint (trace->processes[p].sort_index, ==, -2);
  g_assert_cmpuint (trace->n_threads, ==, 1);
  g_assert_cmpint (trace->threads[0].sort_index, ==, 5);
}

/* What Chrome and Perfetto accept though JSON does not: trailing commas
 * (json_trailing_comma, args_ordered) and raw control characters in
 * strings (json_pid_tid_zero). Read with one load warning; the args keep
 * valid JSON (the character escaped). */
static void
test_lenient_syntax (void)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  const char *trailing =
    "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n"
    "{\"name\":\"Foo\",\"ph\":\"X\",\"tid\":0,\"ts\":3473608.458,\"dur\":295555.500},\n"
    "{\"name\":\"Bar\",\"ph\":\"X\",\"tid\":0,\"ts\":4890.000,\"dur\":3764289.708},\n"
    "]}";
  const char *in_args =
    "[\n"
    "  {\"name\":\"Event1\",\"cat\":\"C\",\"ph\":\"b\",\"ts\":40000,\"pid\":1,\"id\":1,\n"
    "   \"args\":{\"02.step2\":2,}},\n"
    "  {\"name\":\"Event2\",\"cat\":\"C\",\"ph\":\"b\",\"ts\":40000,\"pid\":2,\"id\":1,\n"
    "   \"args\":{\"01.step1\":1,\n \"02.step2\":2 , }}\n"
    "]";
  const char *control =
    "{\"traceEvents\":[{\"cat\":\"Reeq\",\"pid\":0,\"tid\":0,\"ts\":0,\"ph\":\"X\",\"dur\":1,"
    "\"name\":\"Routine\tControl\",\"args\":{\"raw\":\"ID: 760, cc \n\",\"bell\":\"\x07\"}}]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (trailing, -1, &error);
  const KsTrack *track;
  KsTraceCounts c;

  g_assert_no_error (error);
  track = only_thread_track (trace);
  g_assert_cmpuint (track->n_slices, ==, 2);
  g_assert_cmpstr (ks_trace_string (trace, track->name_id[0]), ==, "Bar");
  g_assert_cmpint (track->start[0], ==, 0);
  g_assert_cmpint (track->end[0], ==, 3764289708);
  g_assert_cmpstr (ks_trace_string (trace, track->name_id[1]), ==, "Foo");
  g_assert_cmpint (track->start[1], ==, 3473608458 - 4890000);
  g_assert_cmpint (track->end[1] - track->start[1], ==, 295555500);
  g_assert_cmpuint (n_warnings (trace), ==, 1);
  g_assert_nonnull (strstr (warnings (trace), "1 trailing commas"));
  g_clear_object (&trace);

  trace = load_text (in_args, -1, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (n_warnings (trace), ==, 2);   /* and the two ranges left open */
  g_assert_nonnull (strstr (warnings (trace), "2 trailing commas"));
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *async = &trace->tracks[t];

      g_assert_cmpuint (async->n_slices, ==, 1);
      if (g_str_equal (ks_trace_string (trace, async->name_id[0]), "Event1"))
        g_assert_cmpstr (ks_trace_slice_args (trace, async, 0, args_buf), ==, "{\"02.step2\":2}");
      else
        g_assert_cmpstr (ks_trace_slice_args (trace, async, 0, args_buf), ==, "{\"01.step1\":1,\"02.step2\":2}");
    }
  g_clear_object (&trace);

  trace = load_text (control, -1, &error);
  g_assert_no_error (error);
  track = only_thread_track (trace);
  g_assert_cmpstr (ks_trace_string (trace, track->name_id[0]), ==, "Routine\tControl");
  g_assert_cmpstr (ks_trace_slice_args (trace, track, 0, args_buf), ==, "{\"raw\":\"ID: 760, cc \\n\",\"bell\":\"\\u0007\"}");
  g_assert_cmpuint (n_warnings (trace), ==, 1);
  g_assert_nonnull (strstr (warnings (trace), "3 control characters"));

  /* what is broken still is, where it is: line 3, after a trailing comma */
  assert_load_fails ("[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,},\n"
                     "{\"ph\":\"X\",\"name\":\"a\nb\",\"ts\":1},\n"
                     "{\"ph\":\"X\" \"ts\":1}]", -1, "invalid JSON at line 4, byte 76:");
  assert_load_fails ("[{\"ph\":\"X\",,\"ts\":1}]", -1, "invalid JSON at line 1, byte 12:");
  assert_load_fails ("[,]", -1, "invalid JSON at line 1, byte 2:");
  g_clear_object (&trace);

  /* a comma that ends a 1 MiB block of the reader, before NaN (read as a
   * string) at the start of the next */
  {
    const char *head = "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"args\":{\"s\":\"";
    const char *tail = "\",\"v\":[1,";
    g_autoptr(GString) big = g_string_new (head);

    while (big->len < 1024 * 1024 - strlen (tail))
      g_string_append_c (big, 'x');
    g_string_append (big, tail);
    g_assert_cmpuint (big->len, ==, 1024 * 1024);
    g_string_append (big, "NaN,]}},]");
    trace = load_text (big->str, big->len, &error);
    g_assert_no_error (error);
    g_assert_nonnull (strstr (warnings (trace), ": not strict JSON, read as Chrome reads it: 2 trailing commas"));
    track = only_thread_track (trace);
    g_assert_true (g_str_has_suffix (ks_trace_slice_args (trace, track, 0, args_buf), "\"v\":[1,\"NaN\"]}"));
    g_clear_object (&trace);
  }

  /* from a pipe, which cannot be read again: refused, saying why */
  {
    int fds[2];
    g_autoptr(GInputStream) pipe_in = NULL;

    g_assert_cmpint (pipe (fds), ==, 0);
    g_assert_cmpint (write (fds[1], trailing, strlen (trailing)), ==, (gssize) strlen (trailing));
    close (fds[1]);
    pipe_in = g_unix_input_stream_new (fds[0], TRUE);
    g_assert_null (ks_json_reader_load_stream (pipe_in, "pipe.json", -1, NULL, NULL, &error));
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    g_assert_cmpstr (error->message, ==, "pipe.json: invalid JSON: parse error: unallowed token at this point in JSON text");
    g_clear_error (&error);
  }

  /* in a folder: the other file's events are there once */
  {
    g_autofree char *dir = g_dir_make_tmp ("ks-folder-XXXXXX", NULL);
    g_autofree char *a = g_build_filename (dir, "a.json", NULL);
    g_autofree char *b = g_build_filename (dir, "b.json", NULL);
    g_autoptr(GFile) folder = g_file_new_for_path (dir);

    g_assert_true (g_file_set_contents (a, "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}]", -1, NULL));
    g_assert_true (g_file_set_contents (b, trailing, -1, NULL));
    trace = ks_trace_load (folder, NULL, NULL, &error);
    g_assert_no_error (error);
    g_assert_cmpuint (trace->n_threads, ==, 2);
    ks_trace_get_counts (trace, &c);
    g_assert_cmpuint (c.by_kind[KS_SLICE_GENERIC], ==, 3);
    g_assert_cmpuint (n_warnings (trace), ==, 1);
    g_assert_nonnull (strstr (warnings (trace), "b.json: not strict JSON"));
    g_unlink (a);
    g_unlink (b);
    g_rmdir (dir);
  }
  assert_load_fails ("[{\"ph\":\"X\",\"ts\":1,},,]", -1, "invalid JSON at line 1, byte 21:");
}

/* The top-level "metadata" object of DevTools traces, in the shape of
 * Perfetto's json_trace_metadata, and every other top-level key: kept
 * in the trace's metadata, nested keys joined with dots (array elements
 * by index), and so in a .kscope file. */
static void
test_top_level_metadata (void)
{
  const char *json =
    "{\"metadata\":{\"source\":\"DevTools\",\"startTime\":\"2023-09-21T21:04:15.706Z\",\"cpuThrottling\":1,"
    "\"networkThrottling\":\"No throttling\",\"hardwareConcurrency\":12,\"nested\":{\"a\":{\"b\":true}},"
    "\"list\":[1.5,\"two\",{\"three\":null},[4]]},"
    "\"traceEvents\":[{\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":10,\"name\":\"slice\",\"ph\":\"X\",\"cat\":\"cat\"}],"
    "\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":0},\"flag\":false,\"empty\":{}}";
  static const char *expect[][2] = {
    { "metadata.source", "DevTools" },
    { "metadata.startTime", "2023-09-21T21:04:15.706Z" },
    { "metadata.cpuThrottling", "1" },
    { "metadata.networkThrottling", "No throttling" },
    { "metadata.hardwareConcurrency", "12" },
    { "metadata.nested.a.b", "true" },
    { "metadata.list.0", "1.5" },
    { "metadata.list.1", "two" },
    { "metadata.list.2.three", "null" },
    { "metadata.list.3.0", "4" },
    { "distributedInfo.backend", "nccl" },
    { "distributedInfo.rank", "0" },
    { "flag", "false" },
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(KsTrace) again = NULL;

  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (expect); i++)
    g_assert_cmpstr (ks_trace_get_metadata (trace, expect[i][0]), ==, expect[i][1]);
  g_assert_null (ks_trace_get_metadata (trace, "metadata"));
  g_assert_null (ks_trace_get_metadata (trace, "empty"));
  g_assert_cmpstr (warnings (trace), ==, "");

  path = write_temp ("meta.kscope", "", 0);
  file = g_file_new_for_path (path);
  g_assert_true (ks_kscope_write (trace, file, NULL, NULL, &error));
  g_assert_no_error (error);
  again = ks_trace_load (file, NULL, NULL, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < G_N_ELEMENTS (expect); i++)
    g_assert_cmpstr (ks_trace_get_metadata (again, expect[i][0]), ==, expect[i][1]);
  remove_temp (path);
  g_clear_object (&trace);

  /* a hostile file's values are bounded, and it says so */
  {
    g_autoptr(GString) big = g_string_new ("{\"traceEvents\":[{\"ph\":\"X\",\"ts\":0,\"name\":\"a\"}],\"m\":{");

    for (guint i = 0; i < 4097; i++)
      g_string_append_printf (big, "\"k%u\":%u,", i, i);
    g_string_append (big, "\"");
    for (guint i = 0; i < 300; i++)
      g_string_append_c (big, 'x');
    g_string_append (big, "\":1}}");
    trace = load_text (big->str, big->len, &error);
    g_assert_no_error (error);
    g_assert_cmpstr (ks_trace_get_metadata (trace, "m.k4095"), ==, "4095");
    g_assert_null (ks_trace_get_metadata (trace, "m.k4096"));
    g_assert_nonnull (strstr (warnings (trace), ": 2 top-level values past the first 4096"));
  }
}

/* The slice of @track named @name, or KS_NO_INDEX */
static guint32
slice_named (KsTrace       *trace,
             const KsTrack *track,
             const char    *name)
{
  for (guint32 i = 0; i < track->n_slices; i++)
    if (g_str_equal (ks_trace_string (trace, track->name_id[i]), name))
      return i;
  return KS_NO_INDEX;
}

/* Threads, pids and nesting as Perfetto reads them: an event without a
 * tid is on the thread tid = pid (x_event_order, json_metadata); slices
 * of no duration at one time stack, one on the other, and under a longer
 * slice starting then, but not under one ending then. */
static void
test_perfetto_threads (void)
{
  const char *json =
    "["
    "{\"name\":\"Child\",\"ph\":\"X\",\"ts\":1,\"dur\":5,\"pid\":1},"
    "{\"name\":\"Parent\",\"ph\":\"X\",\"ts\":1,\"dur\":10,\"pid\":1,\"tid\":1},"
    "{\"name\":\"PidOnly\",\"ph\":\"X\",\"ts\":2,\"dur\":1,\"pid\":33},"
    "{\"name\":\"Nothing\",\"ph\":\"X\",\"ts\":3,\"dur\":1},"
    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":33,\"args\":{\"name\":\"main of 33\"}},"
    /* at 20: two instants stack; at 30 one under a slice that starts
     * there; at 41 one after a slice that ends there */
    "{\"name\":\"i1\",\"ph\":\"X\",\"ts\":20,\"dur\":0,\"pid\":1,\"tid\":1},"
    "{\"name\":\"i2\",\"ph\":\"X\",\"ts\":20,\"pid\":1,\"tid\":1},"
    "{\"name\":\"i3\",\"ph\":\"X\",\"ts\":30,\"dur\":0,\"pid\":1,\"tid\":1},"
    "{\"name\":\"long\",\"ph\":\"X\",\"ts\":30,\"dur\":11,\"pid\":1,\"tid\":1},"
    "{\"name\":\"i4\",\"ph\":\"X\",\"ts\":41,\"dur\":0,\"pid\":1,\"tid\":1},"
    "{}"
    "]";
  static const struct { const char *name; guint depth; } depths[] = {
    { "Parent", 0 }, { "Child", 1 }, { "i1", 0 }, { "i2", 1 }, { "long", 0 }, { "i3", 1 }, { "i4", 0 },
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);
  const KsTrack *track = NULL;
  guint32 p33;

  g_assert_no_error (error);
  /* (1, 1), (33, 33), (0, 0) */
  g_assert_cmpuint (trace->n_threads, ==, 3);
  for (guint32 i = 0; i < trace->n_threads; i++)
    {
      const KsThread *t = &trace->threads[i];

      g_assert_cmpint (t->tid, ==, trace->processes[t->process].pid);
      if (t->tid == 1)
        track = &trace->tracks[t->track];
      if (t->tid == 33)
        g_assert_cmpstr (ks_trace_string (trace, t->name), ==, "main of 33");
    }
  p33 = ks_trace_find_process (trace, 33);
  g_assert_cmpuint (p33, !=, KS_NO_INDEX);
  g_assert_nonnull (track);
  g_assert_cmpuint (track->n_slices, ==, G_N_ELEMENTS (depths));
  for (guint i = 0; i < G_N_ELEMENTS (depths); i++)
    {
      guint32 k = slice_named (trace, track, depths[i].name);

      g_assert_cmpuint (k, !=, KS_NO_INDEX);
      g_assert_cmpuint (track->depth[k], ==, depths[i].depth);
    }
  /* the trailing {} is no problem */
  g_assert_cmpstr (warnings (trace), ==, "");
}

/* Complete events that overlap the slice they start in only partly (Perfetto's
 * overlapping_complete_event): kept, drawn beside it at its depth, and said
 * once, with the names. An empty object that is not the last one is still
 * said. */
static void
test_partial_overlap (void)
{
  const char *json =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"ts\":100,\"dur\":100,\"pid\":1,\"tid\":1,\"name\":\"outer\"},"
    "{\"ph\":\"X\",\"ts\":150,\"dur\":100,\"pid\":1,\"tid\":1,\"name\":\"inner\"},"
    "{},"
    "{\"ph\":\"X\",\"ts\":300,\"dur\":100,\"pid\":1,\"tid\":2,\"name\":\"a\"},"
    "{\"ph\":\"X\",\"ts\":350,\"dur\":100,\"pid\":1,\"tid\":2,\"name\":\"b\"}"
    "]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);
  KsTraceCounts c;

  g_assert_no_error (error);
  ks_trace_get_counts (trace, &c);
  g_assert_cmpuint (c.by_kind[KS_SLICE_GENERIC], ==, 4);
  g_assert_cmpuint (n_warnings (trace), ==, 2);
  g_assert_nonnull (strstr (warnings (trace), "1 objects without a phase"));
  g_assert_nonnull (strstr (warnings (trace),
                            "2 slices overlap the slice they start in only partly (the first: "
                            "“inner” at 50 µs, in “outer”); each is drawn beside it, at its depth"));
  for (guint32 i = 0; i < trace->n_threads; i++)
    {
      const KsTrack *track = &trace->tracks[trace->threads[i].track];

      g_assert_cmpuint (track->n_slices, ==, 2);
      g_assert_cmpuint (track->max_depth, ==, 1);
      g_assert_cmpuint (track->depth[0], ==, 0);
      g_assert_cmpuint (track->depth[1], ==, 0);
    }
}

/* A name the overlap message quotes is cut to 80 characters: a file can
 * name a slice with megabytes. */
static void
test_partial_overlap_long_name (void)
{
  g_autofree char *outer = g_strnfill (100000, 'o');
  g_autofree char *i99 = g_strnfill (99, 'i');
  g_autofree char *o79 = g_strnfill (79, 'o');
  g_autofree char *i78 = g_strnfill (78, 'i');
  g_autofree char *inner = g_strconcat ("é", i99, NULL);
  g_autofree char *json = g_strdup_printf ("[{\"ph\":\"X\",\"ts\":100,\"dur\":100,\"pid\":1,\"tid\":1,\"name\":\"%s\"},"
                                           "{\"ph\":\"X\",\"ts\":150,\"dur\":100,\"pid\":1,\"tid\":1,\"name\":\"%s\"}]",
                                           outer, inner);
  g_autofree char *outer_80 = g_strconcat ("“", o79, "…”", NULL);
  g_autofree char *inner_80 = g_strconcat ("“é", i78, "…”", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (n_warnings (trace), ==, 1);
  g_assert_nonnull (strstr (warnings (trace), outer_80));
  g_assert_nonnull (strstr (warnings (trace), inner_80));
  g_assert_cmpuint (strlen (warnings (trace)), <, 400);
}

/* Async ranges pair by category and id across processes when the id is
 * global ("id", "id2": {"global"}), within the process for "id2":
 * {"local"} (Perfetto's json_id2_*): a range that begins in one process
 * and ends in another is one slice, on the row of the process it began
 * in. */
static void
test_async_scope (void)
{
  const char *json =
    "["
    "{\"name\":\"write\",\"ph\":\"b\",\"cat\":\"io\",\"pid\":2,\"tid\":2,\"ts\":10,\"id2\":{\"global\":1}},"
    "{\"name\":\"write\",\"ph\":\"e\",\"cat\":\"io\",\"pid\":3,\"tid\":3,\"ts\":20,\"id2\":{\"global\":1}},"
    "{\"name\":\"req\",\"ph\":\"b\",\"cat\":\"net\",\"pid\":2,\"ts\":30,\"id\":\"0x5\"},"
    "{\"name\":\"mark\",\"ph\":\"n\",\"cat\":\"net\",\"pid\":4,\"ts\":35,\"id\":\"0x5\"},"
    "{\"name\":\"req\",\"ph\":\"e\",\"cat\":\"net\",\"pid\":3,\"ts\":40,\"id\":\"0x5\"},"
    /* the same id in another category: not the same range */
    "{\"name\":\"other\",\"ph\":\"b\",\"cat\":\"disk\",\"pid\":2,\"ts\":50,\"id\":\"0x5\"},"
    "{\"name\":\"other\",\"ph\":\"e\",\"cat\":\"disk\",\"pid\":2,\"ts\":55,\"id\":\"0x5\"},"
    /* local ids: two ranges, one per process, each closed by its own */
    "{\"name\":\"loc\",\"ph\":\"b\",\"cat\":\"c\",\"pid\":2,\"ts\":60,\"id2\":{\"local\":\"0x7\"}},"
    "{\"name\":\"loc\",\"ph\":\"b\",\"cat\":\"c\",\"pid\":3,\"ts\":61,\"id2\":{\"local\":\"0x7\"}},"
    "{\"name\":\"loc\",\"ph\":\"e\",\"cat\":\"c\",\"pid\":3,\"ts\":70,\"id2\":{\"local\":\"0x7\"}},"
    "{\"name\":\"loc\",\"ph\":\"e\",\"cat\":\"c\",\"pid\":2,\"ts\":80,\"id2\":{\"local\":\"0x7\"}}"
    "]";
  /* name, pid of its row, start and end (ns from the trace's start at 10 us) */
  static const struct { const char *name; gint64 pid, start, end; } expect[] = {
    { "write", 2, 0, 10000 }, { "req", 2, 20000, 30000 }, { "other", 2, 40000, 45000 },
    { "loc", 2, 50000, 70000 }, { "loc", 3, 51000, 60000 },
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);
  guint found = 0;

  g_assert_no_error (error);
  g_assert_cmpstr (warnings (trace), ==, "");
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind != KS_TRACK_ASYNC)
        continue;
      for (guint32 i = 0; i < track->n_slices; i++)
        for (guint k = 0; k < G_N_ELEMENTS (expect); k++)
          if (g_str_equal (ks_trace_string (trace, track->name_id[i]), expect[k].name) &&
              trace->processes[track->process].pid == expect[k].pid &&
              track->start[i] == expect[k].start)
            {
              g_assert_cmpint (track->end[i], ==, expect[k].end);
              found++;
            }
    }
  g_assert_cmpuint (found, ==, G_N_ELEMENTS (expect));
  /* the mark of "req" is on its row, in process 2 */
  g_assert_cmpuint (trace->n_instants, ==, 1);
  g_assert_cmpint (trace->processes[trace->instants[0].process].pid, ==, 2);
}

/* Thread time (CPU time): "tts" and "tdur" of complete events, numbers
 * or strings (string_tts_and_tdur), a begin's and an end's "tts" for a
 * B/E pair (flow_events_json_v2's SomeOtherSlice), a start without a
 * duration (json_extreme_vals); kept per slice and in a .kscope file. */
static void
test_thread_time (void)
{
  const char *json =
    "["
    "{\"ph\":\"X\",\"pid\":10,\"tid\":15,\"ts\":\"400\",\"dur\":\"100\",\"tts\":\"390.5\",\"tdur\":\"80.5\",\"name\":\"Strings\"},"
    "{\"ph\":\"X\",\"pid\":10,\"tid\":15,\"ts\":0,\"dur\":10,\"tts\":1,\"tdur\":5,\"name\":\"SenderB\"},"
    "{\"ph\":\"X\",\"pid\":10,\"tid\":15,\"ts\":1001,\"dur\":100,\"name\":\"Blergh\"},"
    "{\"ph\":\"B\",\"pid\":10,\"tid\":15,\"ts\":3333,\"name\":\"SomeOtherSlice\",\"tts\":3335},"
    "{\"ph\":\"E\",\"pid\":10,\"tid\":15,\"ts\":4330,\"tts\":4331},"
    "{\"ph\":\"X\",\"pid\":10,\"tid\":15,\"ts\":5000,\"dur\":50,\"name\":\"NoTdur\",\"tts\":1290},"
    "{\"ph\":\"X\",\"pid\":10,\"tid\":15,\"ts\":6000,\"dur\":50,\"name\":\"BadTts\",\"tts\":\"soon\"},"
    /* the same span as its parent: the outermost has it */
    "{\"ph\":\"X\",\"pid\":10,\"tid\":15,\"ts\":7000,\"dur\":50,\"name\":\"Outer\",\"tts\":7,\"tdur\":3},"
    "{\"ph\":\"X\",\"pid\":10,\"tid\":15,\"ts\":7000,\"dur\":50,\"name\":\"Inner\"}"
    "]";
  /* name, thread start (ns), thread duration (ns); G_MININT64: none */
  static const struct { const char *name; gint64 start, duration; } expect[] = {
    { "Strings", 390500, 80500 }, { "SenderB", 1000, 5000 }, { "Blergh", G_MININT64, 0 },
    { "SomeOtherSlice", 3335000, 996000 }, { "NoTdur", 1290000, -1 }, { "BadTts", G_MININT64, 0 },
    { "Outer", 7000, 3000 }, { "Inner", G_MININT64, 0 },
  };
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);
  g_autoptr(KsTrace) again = NULL;
  g_autofree char *path = write_temp ("tt.kscope", "", 0);
  g_autoptr(GFile) file = g_file_new_for_path (path);

  g_assert_no_error (error);
  g_assert_true (ks_kscope_write (trace, file, NULL, NULL, &error));
  again = ks_trace_load (file, NULL, NULL, &error);
  g_assert_no_error (error);
  remove_temp (path);

  for (guint pass = 0; pass < 2; pass++)
    {
      KsTrace *t = pass == 0 ? trace : again;
      const KsTrack *track = only_thread_track (t);

      g_assert_cmpuint (track->n_thread_times, ==, 5);
      for (guint i = 0; i < G_N_ELEMENTS (expect); i++)
        {
          guint32 k = slice_named (t, track, expect[i].name);
          gint64 start = 0, duration = 0;

          g_assert_cmpuint (k, !=, KS_NO_INDEX);
          if (expect[i].start == G_MININT64)
            {
              g_assert_false (ks_track_get_thread_time (track, k, &start, &duration));
              continue;
            }
          g_assert_true (ks_track_get_thread_time (track, k, &start, &duration));
          g_assert_cmpint (start, ==, expect[i].start);
          g_assert_cmpint (duration, ==, expect[i].duration);
        }
    }
}

/* A long string full of raw control characters is repaired in one
 * piece: 200,000 of them in a 400 kB name load at once (they were fed to
 * yajl a piece per character, which it lexes from the token's start each
 * time: minutes). As a file and as a stream, on one thread and on all. */
static void
test_lenient_long_string (void)
{
  g_autoptr(GString) json = g_string_new ("[{\"ph\":\"X\",\"name\":\"");
  g_autoptr(GString) want = g_string_new (NULL);
  g_autoptr(GError) error = NULL;
  g_autofree char *path = NULL;

  for (guint i = 0; i < 200000; i++)
    {
      g_string_append (json, "a\x01");
      g_string_append (want, "a\x01");
    }
  g_string_append (json, "\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1},]");
  path = write_temp ("long-control.json", json->str, json->len);

  for (guint pass = 0; pass < 2; pass++)
    {
      g_autoptr(KsTrace) trace = pass == 0 ? load_text (json->str, json->len, &error) : load_path (path, &error);
      const KsTrack *track;

      g_assert_no_error (error);
      track = only_thread_track (trace);
      g_assert_cmpstr (ks_trace_string (trace, track->name_id[0]), ==, want->str);
      g_assert_cmpuint (n_warnings (trace), ==, 1);
      g_assert_nonnull (strstr (warnings (trace), "1 trailing comma"));
      g_assert_nonnull (strstr (warnings (trace), "200000 control characters"));
    }
  remove_temp (path);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/json/perfetto/flows-v2", test_flows_v2);
  g_test_add_func ("/json/perfetto/launch-flow-categories", test_launch_flow_categories);
  g_test_add_func ("/json/perfetto/counter-strings", test_counter_strings);
  g_test_add_func ("/json/perfetto/lenient-syntax", test_lenient_syntax);
  g_test_add_func ("/json/perfetto/lenient-long-string", test_lenient_long_string);
  g_test_add_func ("/json/perfetto/top-level-metadata", test_top_level_metadata);
  g_test_add_func ("/json/perfetto/threads", test_perfetto_threads);
  g_test_add_func ("/json/perfetto/partial-overlap", test_partial_overlap);
  g_test_add_func ("/json/perfetto/partial-overlap-long-name", test_partial_overlap_long_name);
  g_test_add_func ("/json/perfetto/async-scope", test_async_scope);
  g_test_add_func ("/json/perfetto/thread-time", test_thread_time);

  return g_test_run ();
}
