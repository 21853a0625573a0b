/* test-hostile-inputs.c: contents made to hurt
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   test-hostile-inputs --tap KINESCOPE-CLI [KINESCOPE-THUMBNAILER]
 *
 * A trace followed by gigabytes of NUL bytes (a sparse file, or a few
 * megabytes of gzip), a Ranks summary nested 300,000 arrays deep, a FIFO
 * given to `ranks`, names of 8 MiB, arguments that are not UTF-8 and a
 * load under a memory limit: each is read in bounded time and memory,
 * or refused with a message that names the file, never a crash or a
 * hang. Every input is made here, by the test.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "ks-trace-loader.h"

#include "test-hostile-util.h"
#include "test-sqlite-util.h"

#define TOOL_TIMEOUT_S 60
#define N_EVENTS       500

static const char *cli_path;
static const char *thumbnailer_path;
static char *base_dir;

/* Helpers */

static char *
temp_path (const char *name)
{
  return g_build_filename (base_dir, name, NULL);
}

/* A trace of @n complete events on one thread, event i named "step i". */
static GString *
make_trace (guint n)
{
  GString *text = g_string_new ("{\"traceEvents\":[");

  for (guint i = 0; i < n; i++)
    g_string_append_printf (text, "%s{\"name\":\"step %u\",\"ph\":\"X\",\"ts\":%u,\"dur\":5,\"pid\":1,\"tid\":1}",
                            i > 0 ? "," : "", i, i * 10);
  g_string_append (text, "],\"displayTimeUnit\":\"ns\"}");
  return text;
}

/* The peak resident size of this process so far, in MiB. */
static long
peak_rss_mib (void)
{
  struct rusage ru;

  g_assert_cmpint (getrusage (RUSAGE_SELF, &ru), ==, 0);
  return ru.ru_maxrss / 1024;
}

static int
run_tool (const char * const *argv,
          char              **out,
          char              **err)
{
  return run_tool_with (argv, NULL, 0, TOOL_TIMEOUT_S, out, err);
}

/* Draws a thumbnail of @path into @png within @timeout_s; FALSE when
 * there is no thumbnailer in this build. */
static gboolean
run_thumbnailer (const char  *path,
                 const char  *png,
                 const char  *timeout_s,
                 int         *status,
                 char       **err)
{
  const char *argv[] = { thumbnailer_path, "-s", "128", "-t", timeout_s, path, png, NULL };

  if (thumbnailer_path == NULL || *thumbnailer_path == 0)
    return FALSE;
  *status = run_tool (argv, NULL, err);
  return TRUE;
}

/* @png exists and is a PNG picture @width pixels wide (its IHDR). */
static void
assert_drawn (const char *png,
              guint32     width)
{
  g_autofree char *contents = NULL;
  const guint8 *b;
  gsize size;

  g_assert_true (g_file_get_contents (png, &contents, &size, NULL));
  g_assert_cmpuint (size, >, 24);
  g_assert_cmpmem (contents, 8, "\x89PNG\r\n\x1a\n", 8);
  g_assert_cmpmem (contents + 12, 4, "IHDR", 4);
  b = (const guint8 *) contents + 16;
  g_assert_cmpuint ((guint32) b[0] << 24 | (guint32) b[1] << 16 | (guint32) b[2] << 8 | b[3], ==, width);
}

/* A trace followed by NUL bytes */

static void
assert_tail_warning (KsTrace    *trace,
                     const char *path,
                     guint64     tail,
                     guint64     from)
{
  const char *warnings = ks_trace_get_metadata (trace, "warnings");
  g_autofree char *expected = g_strdup_printf ("%s: %" PRIu64 " bytes after the trace were ignored (from byte %"
                                               PRIu64 ", line 1)", path, tail, from);

  g_test_message ("%s", warnings);
  g_assert_nonnull (warnings);
  g_assert_nonnull (strstr (warnings, expected));
}

/* 4 GiB of holes: no disk. Before, the reader copied every NUL byte of
 * it into one buffer, which overflowed at 4 GiB; now it stops at the
 * first one and counts the rest from the file's size. */
static void
test_nul_tail_sparse (void)
{
  g_autoptr(GString) text = make_trace (N_EVENTS);
  g_autofree char *path = temp_path ("nul-tail.kscope");
  g_autofree char *png = temp_path ("nul-tail.png");
  g_autofree char *out = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  const guint64 tail = (G_GUINT64_CONSTANT (1) << 32) + 4096;
  const char *argv[] = { cli_path, "info", path, NULL };
  g_autofree char *expected = NULL;
  int fd, status;

  fd = g_open (path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  g_assert_cmpint (fd, >=, 0);
  g_assert_cmpint (write (fd, text->str, text->len), ==, (gssize) text->len);
  if (ftruncate (fd, (off_t) (text->len + tail)) != 0)
    {
      g_close (fd, NULL);
      g_test_skip_printf ("cannot make a sparse file of 4 GiB here: %s", g_strerror (errno));
      return;
    }
  g_close (fd, NULL);

  trace = load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count_slices (trace), ==, N_EVENTS);
  assert_tail_warning (trace, path, tail, text->len);
  /* bounded by the events: far below the file */
  g_test_message ("peak RSS %ld MiB", peak_rss_mib ());
  g_assert_cmpint (peak_rss_mib (), <, 512);

  g_assert_cmpint (run_tool (argv, &out, NULL), ==, 0);
  expected = g_strdup_printf ("%" PRIu64 " bytes after the trace were ignored", tail);
  g_assert_nonnull (strstr (out, expected));

  /* as a file manager would have it drawn */
  if (run_thumbnailer (path, png, "20", &status, NULL))
    {
      g_assert_cmpint (status, ==, 0);
      assert_drawn (png, 128);
      g_unlink (png);
    }
  g_unlink (path);
}

/* 512 MiB of NUL bytes in half a megabyte of gzip: the inflated bytes
 * are counted, neither compacted nor kept. */
/* @parts written through a gzip compressor (level 1) into @path; a NULL
 * text stands for 1 MiB of NUL bytes. */
static void
write_gzip (const char         *path,
            const char * const *parts,
            guint               n_parts)
{
  g_autoptr(GZlibCompressor) compressor = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 1);
  g_autoptr(GOutputStream) mem = g_memory_output_stream_new_resizable ();
  g_autoptr(GOutputStream) out = g_converter_output_stream_new (mem, G_CONVERTER (compressor));
  g_autofree char *zeros = g_malloc0 (1 << 20);
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < n_parts; i++)
    g_assert_true (g_output_stream_write_all (out, parts[i] != NULL ? parts[i] : zeros,
                                              parts[i] != NULL ? strlen (parts[i]) : 1 << 20, NULL, NULL, &error));
  g_assert_true (g_output_stream_close (out, NULL, &error));
  g_assert_no_error (error);
  g_test_message ("%s: %" G_GSIZE_FORMAT " bytes of gzip", path,
                  g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (mem)));
  g_assert_true (g_file_set_contents (path, g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (mem)),
                                      g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (mem)), NULL));
}

/* 512 MiB of NUL bytes in half a megabyte of gzip: the inflated bytes
 * are counted, neither compacted nor kept. */
static void
test_nul_tail_gzip (void)
{
  g_autoptr(GString) text = make_trace (N_EVENTS);
  g_autofree char *path = temp_path ("nul-tail.json.gz");
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  const guint tail_mib = 512;
  const char **parts = g_new0 (const char *, tail_mib + 1);

  parts[0] = text->str;
  write_gzip (path, parts, tail_mib + 1);
  g_free (parts);

  trace = load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count_slices (trace), ==, N_EVENTS);
  assert_tail_warning (trace, path, (guint64) tail_mib << 20, text->len);
  g_test_message ("peak RSS %ld MiB", peak_rss_mib ());
  g_assert_cmpint (peak_rss_mib (), <, 450);
  g_unlink (path);
}

/* The count starts at the first byte that is not white space, and any
 * garbage counts, not only NUL bytes; white space alone is no warning. */
static void
test_tail_after_white_space (void)
{
  g_autoptr(GString) text = make_trace (N_EVENTS);
  g_autofree char *path = temp_path ("tail.json");
  g_autoptr(GString) contents = g_string_new (text->str);
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsTrace) clean = NULL;
  g_autoptr(GError) error = NULL;
  const char *warnings;
  g_autofree char *expected = NULL;

  g_string_append (contents, " \n\t\n");
  g_assert_true (g_file_set_contents (path, contents->str, contents->len, NULL));
  clean = load (path, &error);
  g_assert_no_error (error);
  g_assert_null (ks_trace_get_metadata (clean, "warnings"));

  /* a second trace glued on: its events are not read */
  g_string_append (contents, text->str);
  g_assert_true (g_file_set_contents (path, contents->str, contents->len, NULL));
  trace = load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count_slices (trace), ==, N_EVENTS);
  warnings = ks_trace_get_metadata (trace, "warnings");
  expected = g_strdup_printf ("%s: %" G_GSIZE_FORMAT " bytes after the trace were ignored (from byte %" G_GSIZE_FORMAT
                              ", line 3)", path, text->len, text->len + 4);
  g_assert_cmpstr (warnings, ==, expected);
  g_unlink (path);
}

/* One event of 80 MiB among 20,000: the text since the last cut grows
 * past 64 MiB, and the loading thread parses the rest of the file
 * itself. The .kscope saved is the one a single thread writes, byte for
 * byte. */
static void
test_giant_event (void)
{
  g_autofree char *path = temp_path ("giant-event.json");
  g_autofree char *one = temp_path ("giant-1.kscope");
  g_autofree char *four = temp_path ("giant-4.kscope");
  g_autofree char *big = g_strnfill (80 << 20, 'x');
  g_autoptr(GString) text = g_string_new ("{\"traceEvents\":[");
  g_autofree char *a = NULL;
  g_autofree char *b = NULL;
  gsize a_len, b_len;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(GError) error = NULL;

  for (guint i = 0; i < 20000; i++)
    {
      g_string_append_printf (text, "%s{\"name\":\"op %u\",\"ph\":\"X\",\"ts\":%u,\"dur\":5,\"pid\":1,\"tid\":%u}",
                              i > 0 ? "," : "", i % 7, i * 10, 1 + i % 2);
      if (i == 10000)
        g_string_append_printf (text, ",{\"name\":\"huge\",\"ph\":\"X\",\"ts\":5,\"dur\":1,\"pid\":1,\"tid\":9,"
                                "\"args\":{\"s\":\"%s\"}}", big);
    }
  g_string_append (text, "]}");
  g_assert_true (g_file_set_contents (path, text->str, text->len, NULL));

  for (guint i = 0; i < 2; i++)
    {
      const char *argv[] = { cli_path, "convert", path, i == 0 ? one : four, NULL };
      const char *env[] = { "KINESCOPE_THREADS", i == 0 ? "1" : "4", NULL };

      g_assert_cmpint (run_tool_with (argv, env, 0, TOOL_TIMEOUT_S, NULL, NULL), ==, 0);
    }
  g_assert_true (g_file_get_contents (one, &a, &a_len, NULL));
  g_assert_true (g_file_get_contents (four, &b, &b_len, NULL));
  g_assert_cmpmem (a, a_len, b, b_len);

  trace = load (four, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count_slices (trace), ==, 20001);
  g_unlink (path);
  g_unlink (one);
  g_unlink (four);
}

/* kinescope-cli ranks */

/* Before, yajl_tree_free() recursed 300,000 deep and overflowed the stack. */
static void
test_ranks_deep_summary (void)
{
  g_autofree char *path = temp_path ("deep-summary.json");
  g_autoptr(GString) text = g_string_new ("{\"ranks\":");
  g_autofree char *err = NULL;
  g_autofree char *expected = NULL;
  const char *argv[] = { cli_path, "ranks", path, NULL };

  for (guint i = 0; i < 300000; i++)
    g_string_append_c (text, '[');
  g_assert_true (g_file_set_contents (path, text->str, text->len, NULL));

  g_assert_cmpint (run_tool (argv, NULL, &err), ==, 1);
  expected = g_strdup_printf ("kinescope-cli ranks: %s: JSON nested deeper than 128 levels\n", path);
  g_assert_cmpstr (err, ==, expected);
  g_unlink (path);
}

/* Before, `ranks` opened the FIFO to look for {"ranks": and blocked
 * until a writer came; the other entry points refuse FIFOs. */
static void
test_ranks_fifo (void)
{
  g_autofree char *path = temp_path ("pipe.json");
  g_autofree char *err = NULL;
  const char *argv[] = { cli_path, "ranks", path, NULL };

  g_assert_cmpint (mkfifo (path, 0644), ==, 0);
  /* a run that blocks is killed, and fails the test */
  g_assert_cmpint (run_tool (argv, NULL, &err), ==, 1);
  g_assert_nonnull (strstr (err, path));
  g_assert_nonnull (strstr (err, "named pipe"));
  g_unlink (path);
}

/* Names of 8 MiB */

/* Thirty slices with names of 8 MiB in 250 KB of gzip: before, Pango
 * laid out each whole name to draw a label of a few hundred pixels, two
 * minutes of the thumbnailer. */
static char *
write_long_names (guint n_slices)
{
  char *path = temp_path ("long-names.json.gz");
  g_autoptr(GString) text = g_string_new ("{\"traceEvents\":[");
  g_autofree char *name = g_strnfill (8 << 20, 'n');
  const char *parts[1];

  for (guint i = 0; i < n_slices; i++)
    g_string_append_printf (text, "%s{\"name\":\"%s%u\",\"ph\":\"X\",\"ts\":%u,\"dur\":900,\"pid\":1,\"tid\":1}",
                            i > 0 ? "," : "", name, i, i * 1000);
  g_string_append (text, "]}");
  parts[0] = text->str;
  write_gzip (path, parts, 1);
  return path;
}

static void
test_long_names (void)
{
  g_autofree char *path = write_long_names (30);
  g_autofree char *png = temp_path ("long-names.png");
  g_autofree char *render_png = temp_path ("long-names-render.png");
  const char *argv[] = { cli_path, "render", "-o", render_png, "--size", "1600x600", path, NULL };
  gint64 start = g_get_monotonic_time ();
  g_autofree char *err = NULL;
  int status;

  /* the thumbnailer's deadline covers the drawing: 20 s, of which the
   * load takes a few */
  if (run_thumbnailer (path, png, "20", &status, &err))
    {
      g_assert_cmpint (status, ==, 0);
      assert_drawn (png, 128);
      g_unlink (png);
    }
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_tool (argv, NULL, &err), ==, 0);
  assert_drawn (render_png, 1600);
  g_test_message ("drawn twice in %.1f s", (g_get_monotonic_time () - start) / 1e6);
  g_unlink (render_png);
  g_unlink (path);
}

/* Under `ulimit -v`: before, GLib aborted in g_string_chunk_insert_const()
 * (SIGTRAP). 300 MB cannot hold the 240 MiB of names and their copies
 * on the way: the load fails with its own message, on one thread (where
 * the builder runs out) and on eight (where a reading thread may run
 * out first), never a signal. */
static void
test_memory_limit (void)
{
  g_autofree char *path = write_long_names (30);
  g_autofree char *expected = g_strdup_printf ("kinescope-cli info: %s: not enough memory", path);
  const char *argv[] = { cli_path, "info", path, NULL };
  const char *threads[] = { "1", "8" };

#if defined(__SANITIZE_ADDRESS__)
  g_test_skip ("AddressSanitizer reserves more address space than the limit");
  return;
#endif
  for (guint i = 0; i < G_N_ELEMENTS (threads); i++)
    {
      const char *env[] = { "KINESCOPE_THREADS", threads[i], NULL };
      g_autofree char *err = NULL;

      g_assert_cmpint (run_tool_with (argv, env, 300000, TOOL_TIMEOUT_S, NULL, &err), ==, 1);
      g_assert_true (g_str_has_prefix (err, expected));
    }
  g_unlink (path);
}

/* Arguments that are not UTF-8 */

/* A .kscope's arguments reach the selection page as they are stored;
 * bytes that are not UTF-8 would reach Pango. They are repaired as the
 * file is read, each invalid sequence a U+FFFD (as Python's "replace"
 * does it), and counted. */
static void
test_kscope_args_utf8 (void)
{
  g_autofree char *src = fixture_path ("small_mlp_60steps.kscope");
  g_autofree char *path = temp_path ("bad-args.kscope");
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GString) scratch = g_string_new (NULL);
  sqlite3 *db = NULL;
  guint found = 0;

  copy_file (src, path);
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  /* {"a":"h\xc3\xffi"} on three kernels, {"b":"ü"} (valid) on a fourth */
  exec_sql (db, "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET args = CAST(X'7B2261223A2268C3FF69227D' AS TEXT) "
                "WHERE rowid IN (SELECT rowid FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid LIMIT 3);"
                "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET args = '{\"b\":\"ü\"}' "
                "WHERE rowid = (SELECT rowid FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY rowid LIMIT 1 OFFSET 3);");
  g_assert_cmpint (sqlite3_close (db), ==, SQLITE_OK);

  trace = load (path, &error);
  g_assert_no_error (error);
  for (guint t = 0; t < trace->n_tracks; t++)
    for (guint32 s = 0; s < trace->tracks[t].n_slices; s++)
      {
        const char *args = ks_trace_slice_args (trace, &trace->tracks[t], s, scratch);

        if (args == NULL)
          continue;
        g_assert_true (g_utf8_validate (args, -1, NULL));
        if (strstr (args, "\"a\"") != NULL)
          {
            g_assert_cmpstr (args, ==, "{\"a\":\"h\xef\xbf\xbd\xef\xbf\xbdi\"}");
            found++;
          }
      }
  g_assert_cmpuint (found, ==, 3);
  g_assert_cmpstr (ks_trace_get_metadata (trace, "warnings"), ==,
                   "3 slices' arguments were not valid UTF-8; each invalid byte sequence was replaced with U+FFFD");
  g_unlink (path);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  g_test_init (&argc, &argv, NULL);
  if (argc < 2)
    g_error ("usage: %s [--tap] KINESCOPE-CLI [KINESCOPE-THUMBNAILER]", argv[0]);
  cli_path = argv[1];
  thumbnailer_path = argc > 2 ? argv[2] : NULL;
  base_dir = g_dir_make_tmp ("ks-hostile-inputs-XXXXXX", NULL);
  g_assert_nonnull (base_dir);

  /* first: they check the peak memory of this process */
  g_test_add_func ("/hostile-inputs/nul-tail-sparse", test_nul_tail_sparse);
  g_test_add_func ("/hostile-inputs/nul-tail-gzip", test_nul_tail_gzip);
  g_test_add_func ("/hostile-inputs/tail-after-white-space", test_tail_after_white_space);
  g_test_add_func ("/hostile-inputs/giant-event", test_giant_event);
  g_test_add_func ("/hostile-inputs/ranks-deep-summary", test_ranks_deep_summary);
  g_test_add_func ("/hostile-inputs/ranks-fifo", test_ranks_fifo);
  g_test_add_func ("/hostile-inputs/long-names", test_long_names);
  g_test_add_func ("/hostile-inputs/memory-limit", test_memory_limit);
  g_test_add_func ("/hostile-inputs/kscope-args-utf8", test_kscope_args_utf8);

  status = g_test_run ();

  g_rmdir (base_dir);
  g_free (base_dir);
  return status;
}
