/* test-hostile-input.c: files that are valid, or nearly, in ways no
 * writer of ours produces
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each file is built here and loaded through the same loader as
 * `kinescope-cli`, the window and the thumbnailer. Valid files must load
 * whole; what a file holds that cannot be kept is counted in a load
 * warning, never dropped in silence; a file that cannot be read fails
 * with a message naming the file and the problem.
 */

#include "config.h"

#include <sqlite3.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "ks-sqlite-reader.h"
#include "ks-trace-loader.h"

#include "test-hostile-util.h"

static char *base_dir;

static const char *
warnings (KsTrace *trace)
{
  const char *w = ks_trace_get_metadata (trace, "warnings");

  return w != NULL ? w : "";
}

static char *
write_file (const char *name,
            const void *data,
            gsize       len)
{
  char *path = g_build_filename (base_dir, name, NULL);

  g_assert_true (g_file_set_contents (path, data, len, NULL));
  return path;
}

static void
assert_contains (const char *text,
                 const char *part)
{
  if (strstr (text, part) == NULL)
    g_error ("“%s” does not say “%s”", text, part);
}

/* A gzip member of @text (RFC 1952) with @flags (FEXTRA 0x04, FNAME
 * 0x08, FCOMMENT 0x10, FHCRC 0x02) and a name of @name_len bytes. */
static GByteArray *
gzip_member (const char *text,
             guint8      flags,
             gsize       name_len)
{
  GByteArray *out = g_byte_array_new ();
  guint8 fixed[10] = { 0x1f, 0x8b, 8, flags, 0, 0, 0, 0, 0, 3 };
  guint8 buf[4096];
  z_stream z = { 0 };
  guint32 crc = crc32 (0, (const Bytef *) text, strlen (text));
  guint32 size = strlen (text);
  guint8 trailer[8];

  g_byte_array_append (out, fixed, sizeof fixed);
  if (flags & 0x04)
    g_byte_array_append (out, (const guint8 *) "\x06\x00" "AB\x02\x00xy", 8);
  if (flags & 0x08)
    {
      for (gsize i = 0; i < name_len; i++)
        g_byte_array_append (out, (const guint8 *) "n", 1);
      g_byte_array_append (out, (const guint8 *) "", 1);
    }
  if (flags & 0x10)
    g_byte_array_append (out, (const guint8 *) "a comment", 10);
  if (flags & 0x02)
    {
      guint16 hcrc = crc32 (0, out->data, out->len) & 0xffff;
      guint8 le[2] = { hcrc & 0xff, hcrc >> 8 };

      g_byte_array_append (out, le, 2);
    }
  g_assert_cmpint (deflateInit2 (&z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), ==, Z_OK);
  z.next_in = (Bytef *) text;
  z.avail_in = strlen (text);
  for (int ret = Z_OK; ret != Z_STREAM_END;)
    {
      z.next_out = buf;
      z.avail_out = sizeof buf;
      ret = deflate (&z, Z_FINISH);
      g_assert_true (ret == Z_OK || ret == Z_STREAM_END);
      g_byte_array_append (out, buf, sizeof buf - z.avail_out);
    }
  deflateEnd (&z);
  for (int i = 0; i < 4; i++)
    {
      trailer[i] = (crc >> (8 * i)) & 0xff;
      trailer[4 + i] = (size >> (8 * i)) & 0xff;
    }
  g_byte_array_append (out, trailer, sizeof trailer);
  return out;
}

static const char *two_slices =
  "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":5},"
  "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":3}]}";

/* A valid gzip file whose header names a 1 MB file (gzip -N keeps
 * names of any length) used to read as "truncated", then as a checksum
 * mismatch: its data starts past the first 64 KiB that are sniffed. */
static void
test_gzip_long_header (void)
{
  const struct { guint8 flags; gsize name_len; } cases[] = {
    { 0x08, 1000000 }, { 0x08, 65536 + 7 }, { 0x04 | 0x08 | 0x10 | 0x02, 12 }, { 0x04 | 0x10, 0 },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(GByteArray) gz = gzip_member (two_slices, cases[i].flags, cases[i].name_len);
      g_autofree char *name = g_strdup_printf ("header-%u.json.gz", i);
      g_autofree char *path = write_file (name, gz->data, gz->len);
      g_autoptr(GError) error = NULL;
      g_autoptr(KsTrace) trace = load (path, &error);

      g_assert_no_error (error);
      g_assert_cmpuint (count_slices (trace), ==, 2);
      g_assert_cmpint (trace->duration_ns, ==, 13000);
    }

  /* the header read apart, the trailer is still checked */
  {
    g_autoptr(GByteArray) gz = gzip_member (two_slices, 0x08, 1000000);
    g_autofree char *path = NULL;
    g_autoptr(GError) error = NULL;
    g_autoptr(KsTrace) trace = NULL;

    gz->data[gz->len - 8] ^= 1;
    path = write_file ("bad-crc.json.gz", gz->data, gz->len);
    trace = load (path, &error);
    g_assert_null (trace);
    assert_contains (error->message, "bad-crc.json.gz: gzip checksum mismatch");
  }
}

/* A header that never ends within 16 MiB is refused saying so. */
static void
test_gzip_endless_header (void)
{
  gsize len = 16 * 1024 * 1024 + 65536;
  g_autofree guint8 *data = g_malloc (len);
  g_autofree char *path = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;

  memset (data, 'n', len);
  memcpy (data, "\x1f\x8b\x08\x08\0\0\0\0\0\x03", 10);
  path = write_file ("endless.json.gz", data, len);
  trace = load (path, &error);
  g_assert_null (trace);
  assert_contains (error->message, "endless.json.gz: a gzip header (file name or comment) longer than 16 MiB");
}

/* PowerShell's `nvidia-smi --query-gpu=… > gpu.csv` writes UTF-16 with
 * a byte order mark: read like the UTF-8 log. */
static void
test_utf16_nvsmi (void)
{
  const char *text =
    "timestamp, index, utilization.gpu [%], memory.used [MiB]\r\n"
    "2025/06/13 00:00:00.000, 0, 10 %, 100 MiB\r\n"
    "2025/06/13 00:00:01.000, 0, 20 %, 200 MiB\r\n"
    "2025/06/13 00:00:02.000, 0, 30 %, 300 MiB\r\n";
  gsize n = strlen (text);

  for (int big = 0; big <= 1; big++)
    {
      g_autoptr(GByteArray) bytes = g_byte_array_new ();
      g_autofree char *name = g_strdup_printf ("gpu-utf16%s.csv", big ? "be" : "le");
      g_autofree char *path = NULL;
      g_autoptr(GError) error = NULL;
      g_autoptr(KsTrace) trace = NULL;
      const KsCounter *c = NULL;

      g_byte_array_append (bytes, (const guint8 *) (big ? "\xfe\xff" : "\xff\xfe"), 2);
      for (gsize i = 0; i < n; i++)
        {
          guint8 unit[2] = { big ? 0 : text[i], big ? text[i] : 0 };

          g_byte_array_append (bytes, unit, 2);
        }
      path = write_file (name, bytes->data, bytes->len);
      trace = load (path, &error);
      g_assert_no_error (error);
      g_assert_cmpint (trace->format, ==, KS_FORMAT_NVIDIA_SMI);
      for (guint32 i = 0; i < trace->n_counters; i++)
        if (strcmp (ks_trace_string (trace, trace->counters[i].name), "GPU memory used") == 0)
          c = &trace->counters[i];
      g_assert_nonnull (c);
      g_assert_cmpuint (c->n_samples, ==, 3);
      g_assert_cmpfloat (c->value[2], ==, 300.0 * 1024 * 1024);
      g_assert_cmpint (c->ts[2] - c->ts[0], ==, 2000000000);
    }

  /* UTF-16 that is no log says it is UTF-16 */
  {
    const guint8 json[] = { 0xff, 0xfe, '{', 0, '}', 0 };
    g_autofree char *path = write_file ("utf16.json", json, sizeof json);
    g_autoptr(GError) error = NULL;
    g_autoptr(KsTrace) trace = load (path, &error);

    g_assert_null (trace);
    assert_contains (error->message, "utf16.json: UTF-16 text that is not an nvidia-smi log");
  }
  /* an unpaired surrogate in a log */
  {
    const guint8 bad[] = { 0xff, 0xfe, 'i', 0, 'n', 0, 'd', 0, 'e', 0, 'x', 0, ',', 0, ' ', 0,
                           'u', 0, 't', 0, 'i', 0, 'l', 0, 'i', 0, 'z', 0, 'a', 0, 't', 0, 'i', 0, 'o', 0,
                           'n', 0, '.', 0, 'g', 0, 'p', 0, 'u', 0, '\n', 0, '0', 0, ',', 0, 0x00, 0xd8 };
    g_autofree char *path = write_file ("surrogate.csv", bad, sizeof bad);
    g_autoptr(GError) error = NULL;
    g_autoptr(KsTrace) trace = load (path, &error);

    g_assert_null (trace);
    assert_contains (error->message, "surrogate.csv: a UTF-16 text file that does not convert to UTF-8");
  }
}

/* A complete event with a negative duration is kept as an instant, as
 * Chrome draws it, and counted; counter values that are not numbers
 * ("NaN", "", "1e999", true) are counted, not dropped in silence. An
 * event whose arguments come before its phase is a counter only once
 * "ph" says so: the values of other events are not counted. */
static void
test_json_dropped_values (void)
{
  const char *json =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"name\":\"neg\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":-5},"
    "{\"ph\":\"X\",\"name\":\"neg2\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":-0.5},"
    "{\"ph\":\"X\",\"name\":\"ok\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":3},"
    "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":1,\"ts\":10,"
    "\"args\":{\"a\":\"NaN\",\"b\":\"\",\"c\":\"1e999\",\"d\":7,\"e\":\"8\",\"f\":true}},"
    "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":1,\"ts\":20,\"args\":{\"d\":9,\"e\":1e999}},"
    "{\"args\":{\"x\":\"NaN\"},\"ph\":\"X\",\"name\":\"args-first\",\"pid\":1,\"tid\":1,\"ts\":300,\"dur\":1}"
    "]}";
  g_autofree char *path = write_file ("dropped.json", json, strlen (json));
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load (path, &error);
  g_autofree char *neg = g_strdup_printf ("%s: 2 complete events with a negative duration were kept as zero-length", path);
  g_autofree char *values = g_strdup_printf ("%s: 5 counter values that are not numbers (or beyond a double's "
                                             "range) were left out", path);
  guint zero = 0;
  guint64 samples = 0;

  g_assert_no_error (error);
  g_assert_cmpuint (count_slices (trace), ==, 4);
  for (guint32 i = 0; i < trace->n_tracks; i++)
    for (guint32 k = 0; k < trace->tracks[i].n_slices; k++)
      zero += trace->tracks[i].start[k] == trace->tracks[i].end[k];
  g_assert_cmpuint (zero, ==, 2);
  for (guint32 i = 0; i < trace->n_counters; i++)
    samples += trace->counters[i].n_samples;
  /* d and e at 10, d at 20 */
  g_assert_cmpuint (samples, ==, 3);
  assert_contains (warnings (trace), neg);
  assert_contains (warnings (trace), values);
}

/* The same in a .kscope: slices whose end comes before their start, and
 * counter samples whose value is NULL (what SQLite keeps of a NaN), text
 * or infinite, are counted. The rows are changed with SQL here and the
 * counts taken from SQLite, apart from the reader. */
static void
test_kscope_dropped_values (void)
{
  g_autofree char *source = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "small_mlp_60steps.kscope", NULL);
  g_autofree char *path = g_build_filename (base_dir, "dropped.kscope", NULL);
  g_autofree char *contents = NULL;
  gsize len = 0;
  sqlite3 *db = NULL;
  int negative, nulls, texts, infinite;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autofree char *said_neg = NULL;
  g_autofree char *said_values = NULL;

  g_assert_true (g_file_get_contents (source, &contents, &len, NULL));
  g_assert_true (g_file_set_contents (path, contents, len, NULL));
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_exec (db, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET end = start - 1000 WHERE rowid % 97 = 0",
                                 NULL, NULL, NULL), ==, SQLITE_OK);
  negative = sqlite3_changes (db);
  g_assert_cmpint (sqlite3_exec (db, "UPDATE KS_COUNTER_SAMPLES SET value = NULL WHERE rowid % 50 = 0",
                                 NULL, NULL, NULL), ==, SQLITE_OK);
  nulls = sqlite3_changes (db);
  g_assert_cmpint (sqlite3_exec (db, "UPDATE KS_COUNTER_SAMPLES SET value = 'NaN' WHERE rowid % 50 = 1",
                                 NULL, NULL, NULL), ==, SQLITE_OK);
  texts = sqlite3_changes (db);
  g_assert_cmpint (sqlite3_exec (db, "UPDATE KS_COUNTER_SAMPLES SET value = 1e999 WHERE rowid % 50 = 2",
                                 NULL, NULL, NULL), ==, SQLITE_OK);
  infinite = sqlite3_changes (db);
  g_assert_cmpint (sqlite3_close (db), ==, SQLITE_OK);
  g_assert_cmpint (negative, >, 10);
  g_assert_cmpint (nulls, >, 5);

  trace = load (path, &error);
  g_assert_no_error (error);
  said_neg = g_strdup_printf ("%d slices that end before they start were kept as zero-length", negative);
  said_values = g_strdup_printf ("%d counter samples whose value is not a finite number were left out",
                                 nulls + texts + infinite);
  assert_contains (warnings (trace), said_neg);
  assert_contains (warnings (trace), said_values);
}

/* A folder that cannot be listed says so, not that it holds no traces.
 * Root reads any folder, so the load runs in a child that gives up root
 * first. */
static void
test_unreadable_folder (void)
{
  g_autofree char *locked = g_build_filename (base_dir, "locked", NULL);

  if (g_test_subprocess ())
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(KsTrace) trace = NULL;

      if (geteuid () == 0 && (setgid (65534) != 0 || setuid (65534) != 0))
        g_error ("could not give up root");
      trace = load (locked, &error);
      g_assert_null (trace);
      g_print ("%s\n", error->message);
      return;
    }

  g_assert_cmpint (g_mkdir (locked, 0755), ==, 0);
  g_assert_cmpint (g_chmod (base_dir, 0755), ==, 0);
  g_assert_cmpint (g_chmod (locked, 0), ==, 0);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  g_test_trap_assert_passed ();
  g_test_trap_assert_stdout ("*/locked: the folder cannot be read: permission denied*");
  g_assert_cmpint (g_chmod (locked, 0755), ==, 0);

  /* an empty folder still says it holds no traces */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(KsTrace) trace = load (locked, &error);

    g_assert_null (trace);
    assert_contains (error->message, "/locked: the folder holds no trace files");
  }
}

/* SQLite's advice for untrusted files: limits on a value's length, a
 * statement's and a table's columns, and cell sizes checked. A .kscope
 * with a 300-column table or a 40 MiB name is refused naming the file;
 * the test data, and every file of ours, is well within them. */
static void
test_sqlite_limits (void)
{
  g_autofree char *source = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "small_mlp_60steps.kscope", NULL);
  g_autofree char *contents = NULL;
  gsize len = 0;
  const struct { const char *name, *sql, *says; } cases[] = {
    { "wide.kscope", NULL, "wide.kscope” is damaged: malformed database schema (WIDE) - too many columns on WIDE" },
    { "long.kscope", "UPDATE StringIds SET value = printf('%.*c', 40 * 1024 * 1024, 'x') "
                     "WHERE id = (SELECT MIN(id) FROM StringIds)",
      "long.kscope”: it holds a value larger than 32 MiB" },
  };
  sqlite3 *db = NULL;

  g_assert_true (g_file_get_contents (source, &contents, &len, NULL));

  g_assert_cmpint (ks_sqlite_open_untrusted (source, &db), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_limit (db, SQLITE_LIMIT_LENGTH, -1), ==, 32 * 1024 * 1024);
  g_assert_cmpint (sqlite3_limit (db, SQLITE_LIMIT_SQL_LENGTH, -1), ==, 100000);
  g_assert_cmpint (sqlite3_limit (db, SQLITE_LIMIT_COLUMN, -1), ==, 256);
  {
    sqlite3_stmt *stmt = NULL;

    g_assert_cmpint (sqlite3_prepare_v2 (db, "PRAGMA cell_size_check", -1, &stmt, NULL), ==, SQLITE_OK);
    g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
    g_assert_cmpint (sqlite3_column_int (stmt, 0), ==, 1);
    sqlite3_finalize (stmt);
  }
  sqlite3_close (db);

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = write_file (cases[i].name, contents, len);
      g_autoptr(GString) sql = g_string_new (cases[i].sql);
      g_autoptr(GError) error = NULL;
      g_autoptr(KsTrace) trace = NULL;

      if (cases[i].sql == NULL)
        {
          g_string_append (sql, "CREATE TABLE WIDE (c0 INTEGER");
          for (int c = 1; c < 300; c++)
            g_string_append_printf (sql, ", c%d INTEGER", c);
          g_string_append (sql, ")");
        }
      g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
      g_assert_cmpint (sqlite3_exec (db, sql->str, NULL, NULL, NULL), ==, SQLITE_OK);
      g_assert_cmpint (sqlite3_close (db), ==, SQLITE_OK);
      trace = load (path, &error);
      g_assert_null (trace);
      assert_contains (error->message, cases[i].says);
      g_assert_cmpint (g_unlink (path), ==, 0);
    }
}

int
main (int    argc,
      char **argv)
{
  int ret;

  g_test_init (&argc, &argv, NULL);
  /* a subprocess works in its parent's folder, and leaves it */
  if (g_test_subprocess ())
    base_dir = g_strdup (g_getenv ("KS_HOSTILE_INPUT_DIR"));
  else
    base_dir = g_dir_make_tmp ("ks-hostile-input-XXXXXX", NULL);
  g_assert_nonnull (base_dir);
  g_setenv ("KS_HOSTILE_INPUT_DIR", base_dir, TRUE);

  g_test_add_func ("/hostile-input/gzip-long-header", test_gzip_long_header);
  g_test_add_func ("/hostile-input/gzip-endless-header", test_gzip_endless_header);
  g_test_add_func ("/hostile-input/utf16-nvsmi", test_utf16_nvsmi);
  g_test_add_func ("/hostile-input/json-dropped-values", test_json_dropped_values);
  g_test_add_func ("/hostile-input/kscope-dropped-values", test_kscope_dropped_values);
  g_test_add_func ("/hostile-input/unreadable-folder", test_unreadable_folder);
  g_test_add_func ("/hostile-input/sqlite-limits", test_sqlite_limits);

  ret = g_test_run ();
  if (!g_test_subprocess ())
    remove_tree (base_dir);
  return ret;
}
