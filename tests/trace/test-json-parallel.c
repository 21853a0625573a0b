/* test-json-parallel.c: the JSON reader on several threads builds the
 * model that it builds on one
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>
#include <glib/gstdio.h>
#include <zlib.h>

#include "ks-kscope-writer.h"
#include "ks-trace-loader.h"

/* Chunk sizes: one event a chunk (cuts after every event), a few, and
 * the size that puts cuts inside strings and args now and then. */
static const char *const small_chunks[] = { "1", "61", "4096" };

static char *tmp_dir;
static guint n_debug_chunks;   /* from the reader's debug line of the last load */
static guint n_debug_merged;
static gboolean saw_debug;

/* The reader's debug line after a load on several threads: how many
 * chunks it cut, and how many cuts it found inside an event. */
static void
log_handler (const char     *domain,
             GLogLevelFlags  level,
             const char     *message,
             gpointer        user_data)
{
  const char *p = g_strrstr (message, ": ");
  guint threads;

  if (p != NULL && sscanf (p + 2, "%u chunks on %u threads, %u cuts", &n_debug_chunks, &threads,
                           &n_debug_merged) == 3)
    saw_debug = TRUE;
}

/* The .kscope of @path loaded with @threads threads and chunks of @chunk
 * bytes (NULL: the default), or "error: " and the message. */
static GBytes *
load_dump (const char *path,
           const char *threads,
           const char *chunk)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autofree char *out = g_build_filename (tmp_dir, "dump.kscope", NULL);
  g_autoptr(GFile) out_file = g_file_new_for_path (out);
  char *data = NULL;
  gsize len = 0;

  g_setenv ("KINESCOPE_THREADS", threads, TRUE);
  if (chunk != NULL)
    g_setenv ("KINESCOPE_JSON_CHUNK_BYTES", chunk, TRUE);
  else
    g_unsetenv ("KINESCOPE_JSON_CHUNK_BYTES");
  saw_debug = FALSE;
  n_debug_chunks = n_debug_merged = 0;
  trace = ks_trace_load (file, NULL, NULL, &error);
  g_unsetenv ("KINESCOPE_THREADS");
  g_unsetenv ("KINESCOPE_JSON_CHUNK_BYTES");
  if (trace == NULL)
    {
      char *text = g_strdup_printf ("error: %s", error->message);

      return g_bytes_new_take (text, strlen (text));
    }
  g_unlink (out);
  g_assert_true (ks_kscope_write (trace, out_file, NULL, NULL, &error));
  g_assert_no_error (error);
  g_assert_true (g_file_get_contents (out, &data, &len, NULL));
  g_unlink (out);
  return g_bytes_new_take (data, len);
}

static void
assert_same_bytes (const char *path,
                   GBytes     *serial,
                   GBytes     *parallel,
                   const char *chunk)
{
  if (!g_bytes_equal (serial, parallel))
    {
      gsize a, b;
      const char *sa = g_bytes_get_data (serial, &a);
      const char *sb = g_bytes_get_data (parallel, &b);

      g_test_message ("%s, chunks of %s bytes: serial %.200s (%" G_GSIZE_FORMAT " bytes), "
                      "parallel %.200s (%" G_GSIZE_FORMAT " bytes)",
                      path, chunk ? chunk : "default", a > 6 && memcmp (sa, "error:", 6) == 0 ? sa : "a trace", a,
                      b > 6 && memcmp (sb, "error:", 6) == 0 ? sb : "a trace", b);
      g_assert_not_reached ();
    }
}

/* Loads @path on one thread and on three with every chunk size of
 * @chunks: the same dump, byte for byte, or the same error. Returns
 * the largest number of chunks that a load used. */
static guint
check_same (const char        *path,
            const char *const *chunks,
            guint              n_chunks)
{
  g_autoptr(GBytes) serial = load_dump (path, "1", NULL);
  guint most = 0;

  g_assert_false (saw_debug);
  for (guint i = 0; i <= n_chunks; i++)
    {
      const char *chunk = i < n_chunks ? chunks[i] : NULL;
      g_autoptr(GBytes) parallel = load_dump (path, "3", chunk);

      assert_same_bytes (path, serial, parallel, chunk);
      most = MAX (most, n_debug_chunks);
    }
  return most;
}

static GPtrArray *
list_json (const char *dir,
           gboolean    recursive,
           GPtrArray  *into)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  if (into == NULL)
    into = g_ptr_array_new_with_free_func (g_free);
  if (d == NULL)
    return into;
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        {
          if (recursive)
            list_json (path, TRUE, into);
        }
      else if (g_str_has_suffix (name, ".json") || g_str_has_suffix (name, ".json.gz"))
        g_ptr_array_add (into, g_steal_pointer (&path));
    }
  g_ptr_array_sort (into, (GCompareFunc) g_strcmp0);
  return into;
}

static void
test_fixtures (void)
{
  g_autoptr(GPtrArray) files = list_json (g_getenv ("KS_FIXTURES_DIR"), FALSE, NULL);

  g_assert_cmpuint (files->len, ==, 4);
  for (guint i = 0; i < files->len; i++)
    {
      guint most = check_same (files->pdata[i], small_chunks, G_N_ELEMENTS (small_chunks));

      /* one event a chunk: thousands of them */
      g_assert_cmpuint (most, >, 1000);
    }
}

static void
test_fuzz_seeds (void)
{
  g_autofree char *dir = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "..", "..", "fuzz", "corpus", NULL);
  g_autoptr(GPtrArray) files = list_json (dir, FALSE, NULL);
  guint with_chunks = 0;

  g_assert_cmpuint (files->len, >=, 20);
  for (guint i = 0; i < files->len; i++)
    if (check_same (files->pdata[i], small_chunks, G_N_ELEMENTS (small_chunks)) > 1)
      with_chunks++;
  /* the seeds of more than one event (7 have one, or none) */
  g_assert_cmpuint (with_chunks, >=, 16);
}

static void
test_corpus (void)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  g_autofree char *dir = shared ? g_build_filename (shared, "corpus", NULL) : NULL;
  g_autoptr(GPtrArray) files = NULL;
  static const char *const chunks[] = { "4096" };

  if (dir == NULL || !g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("the shared corpus is absent (KS_SHARED_DIR/corpus)");
      return;
    }
  files = list_json (dir, TRUE, NULL);
  g_assert_cmpuint (files->len, >, 0);
  for (guint i = 0; i < files->len; i++)
    check_same (files->pdata[i], chunks, G_N_ELEMENTS (chunks));
}

/* A trace whose events pair, chain and nest across any cut: B/E pairs
 * on two threads, async ranges, flows, counters, metadata, and strings
 * and args that hold the text of a cut, `},{"`. */
static GString *
tricky_trace (guint n)
{
  GString *s = g_string_new ("{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"G\"}],\n"
                             "\"traceEvents\": [\n");

  for (guint i = 0; i < n; i++)
    {
      guint tid = 1 + i % 2;

      if (i > 0)
        g_string_append (s, ",\n");
      switch (i % 9)
        {
        case 0:
          g_string_append_printf (s, "{\"ph\": \"B\", \"name\": \"step %u\", \"pid\": 1, \"tid\": %u, \"ts\": %u}",
                                  i / 9, tid, i * 10);
          break;
        case 1:
          g_string_append_printf (s, "{\"name\": \"odd },{\\\"name\\\": 1 %u\", \"cat\": \"ends like a cut },{\", "
                                  "\"ph\": \"X\", \"pid\": 1, "
                                  "\"tid\": %u, \"ts\": %u, \"dur\": 3, "
                                  "\"args\": {\"list\": [{\"a\": %u},{\"b\": \"x\"}], \"External id\": %u}}",
                                  i % 5, tid, i * 10, i, i);
          break;
        case 2:
          g_string_append_printf (s, "{\"ph\": \"b\", \"cat\": \"c%u\", \"id\": \"0x%x\", \"name\": \"req\", "
                                  "\"pid\": 1, \"tid\": %u, \"ts\": %u}", i % 3, i % 7, tid, i * 10);
          break;
        case 3:
          g_string_append_printf (s, "{\"ph\": \"s\", \"cat\": \"flow\", \"id\": %u, \"name\": \"f\", "
                                  "\"pid\": 1, \"tid\": %u, \"ts\": %u}", i, tid, i * 10);
          break;
        case 4:
          g_string_append_printf (s, "{\"ph\": \"C\", \"name\": \"mem\", \"pid\": 1, \"ts\": %u, "
                                  "\"args\": {\"used\": %u, \"free\": %u.5}}", i * 10, i, i);
          break;
        case 5:
          g_string_append_printf (s, "{\"ph\": \"f\", \"bp\": \"e\", \"cat\": \"flow\", \"id\": %u, \"name\": \"f\", "
                                  "\"pid\": 1, \"tid\": %u, \"ts\": %u}", i - 2, 3 - tid, i * 10 + 5);
          break;
        case 6:
          g_string_append_printf (s, "{\"ph\": \"e\", \"cat\": \"c%u\", \"id\": \"0x%x\", \"name\": \"req\", "
                                  "\"pid\": 1, \"tid\": %u, \"ts\": %u}", (i - 4) % 3, (i - 4) % 7, tid, i * 10);
          break;
        case 7:
          g_string_append_printf (s, "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": 1, \"tid\": %u, "
                                  "\"args\": {\"name\": \"w\\u00e9 %u\"}}", tid, i);
          break;
        default:
          g_string_append_printf (s, "{\"ph\": \"E\", \"pid\": 1, \"tid\": %u, \"ts\": %u, \"cat\": \"kernel\"}",
                                  1 + (i - 8) % 2, i * 10 + 7);
          break;
        }
    }
  g_string_append (s, "\n],\n\"baseTimeNanoseconds\": 1700000000000000000, \"displayTimeUnit\": \"ns\"}\n");
  return s;
}

static char *
write_file (const char *name,
            const char *data,
            gsize       len)
{
  char *path = g_build_filename (tmp_dir, name, NULL);

  g_assert_true (g_file_set_contents (path, data, len, NULL));
  return path;
}

static char *
write_gzip (const char *name,
            const char *data,
            gsize       len)
{
  char *path = g_build_filename (tmp_dir, name, NULL);
  gzFile gz = gzopen (path, "wb");

  g_assert_nonnull (gz);
  g_assert_cmpint (gzwrite (gz, data, len), ==, (int) len);
  g_assert_cmpint (gzclose (gz), ==, Z_OK);
  return path;
}

static void
test_across_cuts (void)
{
  g_autoptr(GString) s = tricky_trace (3000);
  g_autofree char *path = write_file ("tricky.json", s->str, s->len);
  g_autofree char *gz = write_gzip ("tricky.json.gz", s->str, s->len);
  g_autofree char *array = NULL;
  g_autoptr(GString) top = NULL;
  g_autofree char *first = NULL;
  const char *events;
  static const char *const chunks[] = { "1", "7", "200", "4096" };
  gboolean merged = FALSE;

  /* more cuts than events: some fall inside an event */
  g_assert_cmpuint (check_same (path, small_chunks, G_N_ELEMENTS (small_chunks)), >, 3000);
  check_same (gz, chunks, G_N_ELEMENTS (chunks));

  /* cuts inside the strings and args that look like one are found out */
  for (guint i = 0; i < G_N_ELEMENTS (chunks); i++)
    {
      g_autoptr(GBytes) serial = load_dump (path, "1", NULL);
      g_autoptr(GBytes) parallel = load_dump (path, "2", chunks[i]);

      assert_same_bytes (path, serial, parallel, chunks[i]);
      g_assert_true (saw_debug);
      merged |= n_debug_merged > 0;
    }
  g_assert_true (merged);

  /* the same events as a top-level array, and with the array first */
  events = strchr (strstr (s->str, "\"traceEvents\""), '[');
  top = g_string_new_len (events, strrchr (s->str, ']') + 1 - events);
  array = write_file ("array.json", top->str, top->len);
  check_same (array, chunks, G_N_ELEMENTS (chunks));
  g_string_prepend (top, "{\"traceEvents\":");
  g_string_append (top, ", \"deviceProperties\": [{\"id\": 0, \"name\": \"G\"},{\"id\": 1, \"name\": \"H\"}]}");
  first = write_file ("first.json", top->str, top->len);
  check_same (first, chunks, G_N_ELEMENTS (chunks));
}

/* Invalid text in the middle of the array: the same error, with the
 * same line and byte, from one thread or several. */
static void
test_errors (void)
{
  static const char *const faults[] = {
    "{\"ph\": \"X\",, \"ts\": 1}",                 /* a syntax error */
    "{\"ph\": \"X\", \"ts\": 1]",                   /* a bracket that does not close */
    "{\"ph\": \"X\", \"ts\": tru}",                 /* a bad word */
    "DEEP",                                        /* nesting deeper than the limit */
    "LONG",                                        /* a number longer than the limit */
    "{\"ph\": \"X\", \"ts\": 1}, ]",               /* a trailing comma */
  };

  for (guint f = 0; f < G_N_ELEMENTS (faults); f++)
    {
      g_autoptr(GString) s = tricky_trace (900);
      g_autofree char *name = g_strdup_printf ("fault%u.json", f);
      g_autofree char *path = NULL;
      char *at = strstr (s->str, "{\"ph\": \"C\", \"name\": \"mem\", \"pid\": 1, \"ts\": 4000");
      GString *fault = g_string_new (NULL);
      g_autoptr(GBytes) serial = NULL;
      gsize len;
      const char *text;

      g_assert_nonnull (at);
      if (strcmp (faults[f], "DEEP") == 0)
        {
          g_string_append (fault, "{\"ph\": \"X\", \"ts\": 1, \"args\": ");
          for (guint i = 0; i < 200; i++)
            g_string_append_c (fault, '[');
        }
      else if (strcmp (faults[f], "LONG") == 0)
        {
          g_string_append (fault, "{\"ph\": \"X\", \"ts\": 1");
          for (guint i = 0; i < 5000; i++)
            g_string_append_c (fault, '7');
          g_string_append (fault, "}");
        }
      else
        g_string_append (fault, faults[f]);
      g_string_append (fault, ",\n");
      g_string_insert (s, at - s->str, fault->str);
      g_string_free (fault, TRUE);
      path = write_file (name, s->str, s->len);

      serial = load_dump (path, "1", NULL);
      text = g_bytes_get_data (serial, &len);
      g_assert_true (g_str_has_prefix (text, "error: "));
      g_assert_nonnull (strstr (text, name));
      g_assert_nonnull (strstr (text, " at line "));
      check_same (path, small_chunks, G_N_ELEMENTS (small_chunks));
    }
}

/* A file cut short anywhere: the same events and warnings, or the same
 * error. */
static void
test_truncated (void)
{
  g_autoptr(GString) s = tricky_trace (300);
  static const char *const chunks[] = { "1", "300" };

  for (guint i = 1; i <= 23; i++)
    {
      gsize len = s->len * i / 24 + i;
      g_autofree char *name = g_strdup_printf ("cut%u.json", i);
      g_autofree char *path = write_file (name, s->str, len);
      g_autofree char *gz_name = g_strdup_printf ("cut%u.json.gz", i);
      g_autofree char *gz = write_gzip (gz_name, s->str, len);

      check_same (path, chunks, G_N_ELEMENTS (chunks));
      check_same (gz, chunks, G_N_ELEMENTS (chunks));
    }
}

/* A folder: a file whose error stops its parse with chunks still on the
 * workers, between two good ones. The same trace, with the same
 * warning, on one thread and on several. */
static void
test_folder (void)
{
  g_autofree char *dir = g_build_filename (tmp_dir, "folder", NULL);
  g_autoptr(GString) good = tricky_trace (2000);
  g_autoptr(GString) bad = tricky_trace (2000);
  g_autofree char *a = g_build_filename (dir, "a.pt.trace.json", NULL);
  g_autofree char *b = g_build_filename (dir, "b.pt.trace.json", NULL);
  g_autofree char *c = g_build_filename (dir, "c.pt.trace.json", NULL);
  static const char *const chunks[] = { "1", "4096" };
  char *at;

  g_assert_cmpint (g_mkdir (dir, 0700), ==, 0);
  at = strstr (bad->str, "\"ts\": 200}");
  g_assert_nonnull (at);
  memcpy (at, "\"ts\": 2;0}", 10);
  g_assert_true (g_file_set_contents (a, good->str, good->len, NULL));
  g_assert_true (g_file_set_contents (b, bad->str, bad->len, NULL));
  g_assert_true (g_file_set_contents (c, good->str, good->len, NULL));
  check_same (dir, chunks, G_N_ELEMENTS (chunks));
  g_unlink (a);
  g_unlink (b);
  g_unlink (c);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  int ret;

  g_setenv ("G_MESSAGES_DEBUG", "ks-json-reader", TRUE);
  g_test_init (&argc, &argv, NULL);
  g_log_set_handler ("ks-json-reader", G_LOG_LEVEL_DEBUG, log_handler, NULL);
  tmp_dir = g_dir_make_tmp ("ks-json-parallel-XXXXXX", NULL);

  g_test_add_func ("/json-parallel/fixtures", test_fixtures);
  g_test_add_func ("/json-parallel/fuzz-seeds", test_fuzz_seeds);
  g_test_add_func ("/json-parallel/corpus", test_corpus);
  g_test_add_func ("/json-parallel/across-cuts", test_across_cuts);
  g_test_add_func ("/json-parallel/errors", test_errors);
  g_test_add_func ("/json-parallel/truncated", test_truncated);
  g_test_add_func ("/json-parallel/folder", test_folder);
  ret = g_test_run ();

  {
    g_autoptr(GDir) d = g_dir_open (tmp_dir, 0, NULL);
    const char *name;

    while (d != NULL && (name = g_dir_read_name (d)) != NULL)
      {
        g_autofree char *p = g_build_filename (tmp_dir, name, NULL);

        g_unlink (p);
      }
    g_rmdir (tmp_dir);
  }
  return ret;
}
