/* test-memsnap.c: PyTorch memory snapshots, the pickle reader and
 * stats --report memory-snapshot
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The snapshots in tests/data were dumped on an H200 by tests/gpu/memsnap.py,
 * each with torch's own figures at dump time in expected/memsnap_KIND.json: those
 * figures are the expected values here. Trace entry counts were read with
 * Python's pickle module.
 */

#include "config.h"

#include <string.h>

#include <gio/gio.h>
#include <glib/gstdio.h>
#include <sqlite3.h>

#include "ks-json-writer.h"
#include "ks-kscope-schema.h"
#include "ks-memsnap.h"
#include "ks-memsnap-reader.h"
#include "ks-pickle.h"
#include "ks-trace-loader.h"

static const char *cli_path;

static char *
fixture_path (const char *name)
{
  return g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);
}

static yajl_val
torch_figures (const char *kind)
{
  g_autofree char *name = g_strdup_printf ("expected/memsnap_%s.json", kind);
  g_autofree char *path = fixture_path (name);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  yajl_val v;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  v = ks_json_parse (text, &error);
  g_assert_no_error (error);
  return v;
}

static KsMemsnap *
load_snapshot (const char *kind)
{
  g_autofree char *name = g_strdup_printf ("memsnap_%s.pickle", kind);
  g_autofree char *path = fixture_path (name);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KsMemsnap *snap = ks_memsnap_load (file, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (snap);
  return snap;
}

/* The allocator at the dump, and the peak, against torch's own figures. */
static void
test_figures (gconstpointer data)
{
  const char *kind = data;
  g_autoptr(KsMemsnap) snap = load_snapshot (kind);
  g_autoptr(KsMemsnapReplay) replay = NULL;
  yajl_val torch = torch_figures (kind);
  const char *path[] = { "memory_stats", NULL };
  yajl_val stats = yajl_tree_get (torch, path, yajl_t_object);
  KsMemsnapState s;
  guint64 entries = strcmp (kind, "train") == 0 ? 300 : strcmp (kind, "oom") == 0 ? 75 : 74;

  g_assert_nonnull (stats);
  g_assert_cmpuint (ks_memsnap_get_n_devices (snap), ==, 1);
  g_assert_cmpuint (ks_memsnap_get_n_entries (snap), ==, entries);
  ks_memsnap_device_end_state (ks_memsnap_get_device (snap, 0), &s);
  g_assert_cmpint (s.segments, ==, ks_json_get_int (torch, "segments", -1));
  g_assert_cmpint (s.reserved_bytes, ==, ks_json_get_int (torch, "reserved_bytes", -1));
  g_assert_cmpint (s.allocated_bytes, ==, ks_json_get_int (torch, "allocated_bytes", -1));
  g_assert_cmpint (s.active_blocks, ==, ks_json_get_int (torch, "active_blocks", -1));
  g_assert_cmpint (s.inactive_blocks, ==, ks_json_get_int (torch, "inactive_blocks", -1));
  g_assert_cmpint (s.largest_free_bytes, ==, ks_json_get_int (torch, "largest_free_bytes", -1));
  g_assert_cmpint (s.free_bytes, ==, ks_json_get_int (torch, "free_bytes", -1));
  g_assert_cmpint (s.reserved_bytes, ==, ks_json_get_int (stats, "reserved_bytes.all.current", -1));
  g_assert_cmpint (s.allocated_bytes, ==, ks_json_get_int (stats, "allocated_bytes.all.current", -1));

  replay = ks_memsnap_replay (snap, 0);
  g_assert_cmpuint (replay->mismatched, ==, 0);
  g_assert_cmpuint (replay->points->len, ==, entries);
  /* The replay ends where the dump is. */
  g_assert_cmpint (g_array_index (replay->points, KsMemsnapPoint, entries - 1).allocated_bytes, ==, s.allocated_bytes);
  g_assert_cmpint (g_array_index (replay->points, KsMemsnapPoint, entries - 1).reserved_bytes, ==, s.reserved_bytes);
  g_assert_cmpint (replay->peak_allocated, ==, ks_json_get_int (stats, "allocated_bytes.all.peak", -1));
  yajl_tree_free (torch);
}

/* A fragmentation OOM: 320 MiB free inside the segments, no hole of 28 MiB. */
static void
test_oom (void)
{
  g_autoptr(KsMemsnap) snap = load_snapshot ("oom");
  g_autoptr(KsMemsnapReplay) replay = ks_memsnap_replay (snap, 0);
  yajl_val torch = torch_figures ("oom");
  const KsMemsnapOom *oom;
  const KsMemsnapStack *stack;

  g_assert_cmpuint (replay->ooms->len, ==, 1);
  oom = &g_array_index (replay->ooms, KsMemsnapOom, 0);
  g_assert_cmpint (oom->request_bytes, ==, 28 << 20);
  g_assert_cmpint (oom->device_free_bytes, ==, G_GINT64_CONSTANT (148932526080));
  /* torch's message: "320.00 MiB is reserved by PyTorch but unallocated" */
  g_assert_nonnull (strstr (ks_json_get_string (torch, "oom_message"), "320.00 MiB is reserved by PyTorch but unallocated"));
  g_assert_cmpint (oom->state.free_bytes, ==, 320 << 20);
  g_assert_cmpint (oom->state.largest_free_bytes, ==, 20 << 20);
  g_assert_cmpint (oom->state.allocated_bytes, ==, 276 << 20);
  g_assert_true (oom->fragmentation);
  stack = ks_memsnap_get_stack (snap, oom->stack);
  g_assert_nonnull (stack);
  g_assert_cmpstr (stack->frames[0].name, ==, "main");
  g_assert_cmpint (stack->frames[0].line, ==, 68);
  g_assert_true (g_str_has_suffix (stack->frames[0].file, "memsnap.py"));
  yajl_tree_free (torch);
}

/* The loader recognises a snapshot by its content and draws it as
 * memory events: one per alloc and free_completed. */
static void
test_load_as_trace (void)
{
  g_autofree char *path = fixture_path ("memsnap_frag.pickle");
  g_autofree char *copy = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autofree char *contents = NULL;
  gsize len;
  gint64 last_alloc = -1;
  guint allocs = 0, frees = 0;

  /* an unrelated name: the content decides */
  g_file_get_contents (path, &contents, &len, &error);
  g_assert_no_error (error);
  copy = g_build_filename (g_get_tmp_dir (), "ks-test-memsnap-XXXXXX.bin", NULL);
  g_close (g_mkstemp (copy), NULL);
  g_file_set_contents (copy, contents, len, &error);
  g_assert_no_error (error);
  file = g_file_new_for_path (copy);
  trace = ks_trace_load (file, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (trace->format, ==, KS_FORMAT_MEMORY_SNAPSHOT);
  for (guint i = 0; i < trace->n_memory_events; i++)
    {
      if (trace->memory_events[i].bytes > 0)
        allocs++;
      else
        frees++;
      g_assert_cmpint (trace->memory_events[i].device, ==, 0);
      last_alloc = trace->memory_events[i].total_allocated;
    }
  g_assert_cmpuint (allocs, ==, 36);
  g_assert_cmpuint (frees, ==, 17);
  g_assert_cmpint (last_alloc, ==, 276 << 20);
  g_assert_cmpuint (trace->n_instants, ==, 4);   /* the four segment_alloc */
  g_assert_cmpstr (g_hash_table_lookup (trace->metadata, "snapshot_trace_entries"), ==, "74");
  g_unlink (copy);
}

static void
expect_refused (const guint8 *data,
                gsize         len,
                const char   *needle)
{
  g_autoptr(GBytes) bytes = g_bytes_new (data, len);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsMemsnap) snap = ks_memsnap_new_from_bytes (bytes, "hostile.pickle", &error);

  g_assert_null (snap);
  g_assert_nonnull (error);
  g_assert_true (g_str_has_prefix (error->message, "hostile.pickle: "));
  if (needle != NULL && strstr (error->message, needle) == NULL)
    g_error ("“%s” does not say “%s”", error->message, needle);
}

/* Pickles that would run code are refused by the opcode's name, and
 * nothing runs: the command would have made a file. */
static void
test_hostile_code (void)
{
  g_autofree char *marker = g_build_filename (g_get_tmp_dir (), "ks-test-memsnap-pwned", NULL);
  g_autofree char *cmd = g_strdup_printf ("touch %s", marker);
  g_autoptr(GByteArray) p = g_byte_array_new ();
  /* pickle.dumps of os.system(cmd) with protocol 2: GLOBAL 'posix system', REDUCE */
  static const guint8 head[] = { 0x80, 0x02, 'c', 'p', 'o', 's', 'i', 'x', '\n', 's', 'y', 's', 't', 'e', 'm', '\n',
                                 'q', 0x00, 'X' };
  guint32 n = strlen (cmd);
  guint8 le[4] = { n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >> 24 };
  static const guint8 tail[] = { 0x85, 'R', '.' };
  static const guint8 stack_global[] = { 0x80, 0x04, 0x8c, 0x02, 'o', 's', 0x8c, 0x06, 's', 'y', 's', 't', 'e', 'm',
                                         0x93, 0x8c, 0x01, 'x', 0x85, 'R', '.' };
  static const guint8 build[] = { 0x80, 0x04, '}', '}', 'b', '.' };

  g_unlink (marker);
  g_byte_array_append (p, head, sizeof head);
  g_byte_array_append (p, le, 4);
  g_byte_array_append (p, (const guint8 *) cmd, n);
  g_byte_array_append (p, tail, sizeof tail);
  expect_refused (p->data, p->len, "GLOBAL");
  expect_refused (p->data, p->len, "nothing was run");
  expect_refused (stack_global, sizeof stack_global, "STACK_GLOBAL");
  expect_refused (build, sizeof build, "BUILD");
  g_assert_false (g_file_test (marker, G_FILE_TEST_EXISTS));
}

static gboolean
take_trace_entry (const KsPickleValue *dict,
                  guint64             *handle,
                  gpointer             user_data)
{
  guint *taken = user_data;

  if (ks_pickle_dict_get (dict, "action") == NULL)
    return FALSE;
  *handle = (*taken)++;
  return TRUE;
}

/* Trace entries are taken as the pickle builds them: their integers go
 * back to the reader, but never one that something else still holds. */
static void
test_take_entries (void)
{
  g_autofree char *path = fixture_path ("memsnap_train.pickle");
  g_autoptr(GMappedFile) mapped = g_mapped_file_new (path, FALSE, NULL);
  g_autoptr(GBytes) bytes = g_mapped_file_get_bytes (mapped);
  g_autoptr(KsPickle) whole = NULL;
  g_autoptr(KsPickle) lean = NULL;
  g_autoptr(KsPickle) shared = NULL;
  g_autoptr(GBytes) shared_bytes = NULL;
  g_autoptr(GError) error = NULL;
  const KsPickleValue *traces, *inner;
  guint taken = 0;
  gint64 n;
  /* [{"action": "alloc", "time_us": 1234 (memoized), "addr": 77}, [memo 0, 1, 2, 3, 4]] */
  static const guint8 pinned[] = {
    0x80, 0x04, ']', '(', '}', '(',
    0x8c, 6, 'a', 'c', 't', 'i', 'o', 'n', 0x8c, 5, 'a', 'l', 'l', 'o', 'c',
    0x8c, 7, 't', 'i', 'm', 'e', '_', 'u', 's', 'J', 0xd2, 0x04, 0, 0, 0x94,
    0x8c, 4, 'a', 'd', 'd', 'r', 'K', 77, 'u',
    ']', '(', 'h', 0, 'K', 1, 'K', 2, 'K', 3, 'K', 4, 'e',
    'e', '.' };

  whole = ks_pickle_load (bytes, path, &error);
  g_assert_no_error (error);
  lean = ks_pickle_load_full (bytes, path, KS_PICKLE_RELEASE_READ, take_trace_entry, &taken, &error);
  g_assert_no_error (error);
  /* the 300 entries Python's pickle module counts; their 1,200 numbers
   * (addr, size, stream, time_us, as Python counts them) are given back,
   * but for the few entries whose frames appear inline for the first time:
   * the frames' line numbers lie among the entry's own */
  g_assert_cmpuint (taken, ==, 300);
  g_assert_cmpuint (ks_pickle_get_n_values (whole) - ks_pickle_get_n_values (lean), <=, 1200);
  g_assert_cmpuint (ks_pickle_get_n_values (whole) - ks_pickle_get_n_values (lean), >=, 1100);
  traces = ks_pickle_index (ks_pickle_dict_get (ks_pickle_get_root (lean), "device_traces"), 0);
  g_assert_cmpuint (ks_pickle_len (traces), ==, 300);
  g_assert_cmpint (ks_pickle_index (traces, 0)->type, ==, KS_PICKLE_TAKEN);
  g_assert_cmpuint (ks_pickle_index (traces, 299)->handle, ==, 299);

  /* an empty file: refused, and no arithmetic on GBytes' NULL data */
  {
    g_autoptr(GBytes) empty = g_bytes_new (NULL, 0);
    g_autoptr(KsPickle) none = ks_pickle_load_full (empty, "empty.pickle", 0, take_trace_entry, &taken, &error);

    g_assert_null (none);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    g_assert_nonnull (strstr (error->message, "empty.pickle"));
    g_clear_error (&error);
  }

  taken = 0;
  shared_bytes = g_bytes_new_static (pinned, sizeof pinned);
  shared = ks_pickle_load_full (shared_bytes, "pinned.pickle", 0, take_trace_entry, &taken, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (taken, ==, 1);
  inner = ks_pickle_index (ks_pickle_get_root (shared), 1);
  g_assert_cmpuint (ks_pickle_len (inner), ==, 5);
  g_assert_true (ks_pickle_get_int (ks_pickle_index (inner, 0), &n));
  g_assert_cmpint (n, ==, 1234);
  g_assert_true (ks_pickle_get_int (ks_pickle_index (inner, 3), &n));
  g_assert_cmpint (n, ==, 3);
}

/* A .kscope with @blob (NULL: no row; "": no table) as its snapshot. */
static char *
kscope_with_snapshot (const char   *name,
                      const guint8 *blob,
                      gsize         len)
{
  char *path = g_build_filename (g_get_tmp_dir (), name, NULL);
  sqlite3 *db = NULL;
  sqlite3_stmt *s = NULL;

  g_unlink (path);
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "PRAGMA application_id = 1263747919", NULL, NULL, NULL), ==, SQLITE_OK);
  g_assert_cmpint (ks_kscope_schema_create_table (db, KS_KSCOPE_META), ==, SQLITE_OK);
  if (blob == NULL || len > 0)
    g_assert_cmpint (ks_kscope_schema_create_table (db, KS_KSCOPE_KS_CUDA_MEMORY_SNAPSHOTS), ==, SQLITE_OK);
  if (blob != NULL && len > 0)
    {
      g_assert_cmpint (sqlite3_prepare_v2 (db, "INSERT INTO KS_CUDA_MEMORY_SNAPSHOTS (globalPid, reason, timestamp, "
                                               "clockOffset, snapshot) VALUES (1, 'exit', 0, 0, ?)", -1, &s, NULL),
                       ==, SQLITE_OK);
      sqlite3_bind_blob (s, 1, blob, (int) len, SQLITE_STATIC);
      g_assert_cmpint (sqlite3_step (s), ==, SQLITE_DONE);
      sqlite3_finalize (s);
    }
  sqlite3_close (db);
  return path;
}

/* A recording's snapshot is read as the pickle it keeps: the same
 * figures, and the same refusals with the recording's name. */
static void
test_kscope (void)
{
  g_autofree char *pickle_path = fixture_path ("memsnap_frag.pickle");
  g_autofree char *pickle = NULL;
  gsize len;
  static const guint8 hostile[] = { 0x80, 0x02, 'c', 'p', 'o', 's', 'i', 'x', '\n', 's', 'y', 's', 't', 'e', 'm',
                                    '\n', 'X', 4, 0, 0, 0, 't', 'r', 'u', 'e', 0x85, 'R', '.' };
  static const struct { const char *name; const guint8 *blob; gsize len; const char *says; } bad[] = {
    { "ks-test-memsnap-hostile.kscope", hostile, sizeof hostile, "GLOBAL" },
    { "ks-test-memsnap-empty.kscope", NULL, 0, "holds no PyTorch memory snapshot (the program kept none" },
    { "ks-test-memsnap-none.kscope", (const guint8 *) "", 0, "holds no PyTorch memory snapshot (record with" },
  };

  g_assert_true (g_file_get_contents (pickle_path, &pickle, &len, NULL));
  {
    g_autofree char *path = kscope_with_snapshot ("ks-test-memsnap.kscope", (const guint8 *) pickle, len);
    g_autoptr(GFile) file = g_file_new_for_path (path);
    g_autoptr(GError) error = NULL;
    g_autoptr(KsMemsnap) from_kscope = ks_memsnap_load (file, NULL, &error);
    g_autoptr(KsMemsnap) from_pickle = load_snapshot ("frag");
    KsMemsnapState a, b;

    g_assert_no_error (error);
    g_assert_cmpuint (ks_memsnap_get_n_entries (from_kscope), ==, 74);
    ks_memsnap_device_end_state (ks_memsnap_get_device (from_kscope, 0), &a);
    ks_memsnap_device_end_state (ks_memsnap_get_device (from_pickle, 0), &b);
    g_assert_cmpmem (&a, sizeof a, &b, sizeof b);
    g_unlink (path);
  }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    {
      g_autofree char *path = kscope_with_snapshot (bad[i].name, bad[i].blob, bad[i].len);
      g_autoptr(GFile) file = g_file_new_for_path (path);
      g_autoptr(GError) error = NULL;
      g_autoptr(KsMemsnap) snap = ks_memsnap_load (file, NULL, &error);

      g_assert_null (snap);
      g_assert_nonnull (error);
      g_test_message ("%s", error->message);
      g_assert_nonnull (strstr (error->message, bad[i].name));
      g_assert_nonnull (strstr (error->message, bad[i].says));
      g_unlink (path);
    }
}

/* Deep nesting, huge lengths, memo tricks and every truncation of a real
 * snapshot: an error naming the file, never a crash. */
static void
test_hostile_shapes (void)
{
  g_autoptr(GByteArray) deep = g_byte_array_new ();
  g_autoptr(GByteArray) marks = g_byte_array_new ();
  static const guint8 proto[] = { 0x80, 0x04 };
  static const guint8 huge_str[] = { 0x80, 0x04, 0x8d, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x3f, 'a', '.' };
  static const guint8 huge_long[] = { 0x80, 0x04, 0x8b, 0xff, 0xff, 0xff, 0x7f, 0x00, '.' };
  static const guint8 neg_long[] = { 0x80, 0x04, 0x8b, 0xff, 0xff, 0xff, 0xff, 0x00, '.' };
  static const guint8 bad_get[] = { 0x80, 0x04, 'j', 0xff, 0xff, 0xff, 0x0f, '.' };
  static const guint8 self_list[] = { 0x80, 0x04, '}', 0x8c, 0x08, 's', 'e', 'g', 'm', 'e', 'n', 't', 's',
                                      ']', 0x94, 'h', 0x00, 'a', 's', '.' };
  static const guint8 no_stop[] = { 0x80, 0x04, '}' };
  g_autofree char *path = fixture_path ("memsnap_oom.pickle");
  g_autofree char *contents = NULL;
  gsize len;
  g_autoptr(GError) error = NULL;

  /* a million nested lists: ]]]...aaa */
  g_byte_array_append (deep, proto, 2);
  for (guint i = 0; i < 1000000; i++)
    g_byte_array_append (deep, (const guint8 *) "]", 1);
  for (guint i = 1; i < 1000000; i++)
    g_byte_array_append (deep, (const guint8 *) "a", 1);
  g_byte_array_append (deep, (const guint8 *) ".", 1);
  expect_refused (deep->data, deep->len, "no list of segments");

  g_byte_array_append (marks, proto, 2);
  for (guint i = 0; i < KS_PICKLE_MAX_MARKS + 1; i++)
    g_byte_array_append (marks, (const guint8 *) "(", 1);
  expect_refused (marks->data, marks->len, "nests deeper");

  expect_refused (huge_str, sizeof huge_str, "truncated");
  expect_refused (huge_long, sizeof huge_long, "truncated");
  expect_refused (neg_long, sizeof neg_long, "negative length");
  expect_refused (bad_get, sizeof bad_get, "memo");
  /* {"segments": L} where L contains itself: read, then refused as no snapshot */
  expect_refused (self_list, sizeof self_list, "segment");
  expect_refused (no_stop, sizeof no_stop, "STOP");

  g_file_get_contents (path, &contents, &len, &error);
  g_assert_no_error (error);
  for (gsize n = 0; n < len; n++)
    expect_refused ((const guint8 *) contents, n, NULL);
}

static int
run_cli (const char * const *args,
         char              **out,
         char              **err)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GSubprocess) proc = NULL;
  g_autoptr(GError) error = NULL;

  g_ptr_array_add (argv, (gpointer) cli_path);
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  proc = g_subprocess_newv ((const char * const *) argv->pdata,
                            G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, &error);
  g_assert_no_error (error);
  g_subprocess_communicate_utf8 (proc, NULL, NULL, out, err, &error);
  g_assert_no_error (error);
  return g_subprocess_get_exit_status (proc);
}

static void
test_cli_report (void)
{
  g_autofree char *path = fixture_path ("memsnap_oom.pickle");
  const char *json_args[] = { "stats", "--report", "memory-snapshot", "--format", "json", path, NULL };
  const char *table_args[] = { "stats", "--report", "memory-snapshot", path, NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *table = NULL;
  g_autofree char *table_err = NULL;
  const char *expect[] = {
    "\"devices\":[{\"device\":0,\"segments\":4,\"reserved_bytes\":624951296,\"allocated_bytes\":289406976,"
    "\"active_blocks\":19,\"inactive_blocks\":16,\"largest_free_bytes\":20971520,\"free_bytes\":335544320}]",
    "\"ooms\":[{\"device\":0,\"request_bytes\":29360128,\"free_bytes\":148932526080,\"largest_free_bytes\":20971520,",
    "\"cause\":\"fragmentation\",\"frames\":[{\"name\":\"main\",",
    "\"trace_entries\":75",
  };

  if (cli_path == NULL)
    {
      g_test_skip ("no kinescope-cli given");
      return;
    }
  g_assert_cmpint (run_cli (json_args, &out, &err), ==, 0);
  for (guint i = 0; i < G_N_ELEMENTS (expect); i++)
    if (strstr (out, expect[i]) == NULL)
      g_error ("%s\ndoes not hold\n%s", out, expect[i]);
  g_assert_cmpint (run_cli (table_args, &table, &table_err), ==, 0);
  g_assert_nonnull (strstr (table, "fragmentation"));
  g_assert_nonnull (strstr (table, "expandable_segments:True"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (argc > 1)
    cli_path = argv[1];
  g_test_add_data_func ("/memsnap/figures/frag", "frag", test_figures);
  g_test_add_data_func ("/memsnap/figures/oom", "oom", test_figures);
  g_test_add_data_func ("/memsnap/figures/train", "train", test_figures);
  g_test_add_func ("/memsnap/oom", test_oom);
  g_test_add_func ("/memsnap/load-as-trace", test_load_as_trace);
  g_test_add_func ("/memsnap/take-entries", test_take_entries);
  g_test_add_func ("/memsnap/kscope", test_kscope);
  g_test_add_func ("/memsnap/hostile/code", test_hostile_code);
  g_test_add_func ("/memsnap/hostile/shapes", test_hostile_shapes);
  g_test_add_func ("/memsnap/cli", test_cli_report);
  return g_test_run ();
}
