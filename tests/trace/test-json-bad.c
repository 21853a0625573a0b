/* test-json-bad.c: JSON the reader must refuse or repair: syntax errors, truncation,
 * hostile numbers, strings and bytes, gzip damage
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

static void
test_bad_empty (void)
{
  assert_load_fails ("", 0, "empty");
  assert_load_fails ("   \n\t ", -1, "white space");
}

static void
test_bad_not_trace (void)
{
  /* a PyTorch execution trace and a Google Cloud trace */
  assert_load_fails ("{\"schema\":\"1.0.1\",\"pid\":1,\"nodes\":[{\"id\":1}]}", -1, "not a trace");
  assert_load_fails ("{\"projectId\":\"p\",\"spans\":[{\"spanId\":\"1\"}]}", -1, "traceEvents");
  assert_load_fails ("[[1,2,3],[4,5,6]]", -1, "not a trace");
  assert_load_fails ("42", -1, "neither an object nor a list");
  assert_load_fails ("\"traceEvents\"", -1, "neither an object nor a list");
}

/* White space is dropped before parsing: positions must still be the
 * file's, also past the 1 MiB read blocks, and "1 2" must not become 12. */
static void
test_bad_syntax_far (void)
{
  g_autoptr(GString) json = g_string_new ("[\n");
  g_autofree char *expect = NULL;
  gsize prefix;
  guint lines = 2;

  while (json->len < 3 * 1024 * 1024)
    {
      g_string_append (json, "  {\"ph\": \"X\", \"name\": \"a b\", \"ts\": 1.5, \"dur\": 2 },\n");
      lines++;
    }
  prefix = json->len;
  g_string_append (json, "  {\"ph\" \"X\"}]");
  /* yajl stops after the token "X": 2 spaces + {"ph" "X" */
  expect = g_strdup_printf ("invalid JSON at line %u, byte %" G_GSIZE_FORMAT ":", lines, prefix + 11);
  assert_load_fails (json->str, json->len, expect);

  assert_load_fails ("[{\"ph\":\"X\",\"ts\":1 2}]", -1, "invalid JSON at line 1, byte 18");
  /* the error is at the second number, after all the white space */
  assert_load_fails ("[{\"ph\":\"X\",\"ts\":1 \n 2}]", -1, "invalid JSON at line 2, byte 20");
  assert_load_fails ("[{\"ph\":\"X\",\"ts\":1,\"a\":true\n\tfalse}]", -1, "invalid JSON at line 2, byte ");
}

/* Two words that only white space parts must stay apart wherever the
 * 64-, 16- and 1-byte loops meet them; in a subprocess the same again
 * without AVX-512. */
static void
test_bad_words_apart (void)
{
  static const char *bad[] = { "1 2", "1\t\t-2", "tru e", "true false", "nu\nll", "1.5 e3", "1 )" };

  if (g_test_subprocess () || g_getenv ("KS_JSON_NO_AVX512") == NULL)
    {
      for (guint b = 0; b < G_N_ELEMENTS (bad); b++)
        for (guint pad = 0; pad < 140; pad += 3)
          {
            g_autoptr(GString) json = g_string_new ("[");
            g_autoptr(GError) error = NULL;
            g_autoptr(KsTrace) trace = NULL;

            g_string_append_printf (json, "%*s{\"ph\":\"X\",\"name\":\"%*s\",\"ts\":0,\"args\":{\"v\":%s}}]",
                                    (int)pad, "", (int)(pad % 70), "", bad[b]);
            trace = load_text (json->str, json->len, &error);
            g_assert_null (trace);
            g_assert_nonnull (strstr (error->message, "invalid JSON"));
          }
      if (g_test_subprocess ())
        return;
    }

  trap_without_avx512 ();
}

static void
test_bad_syntax (void)
{
  static const char nul[] = "[{\"ph\":\"X\",\"ts\":1,\"dur\":1},\0{\"ph\":\"X\"}]";

  assert_load_fails (nul, sizeof nul - 1, "invalid JSON at line 1, byte 28");
  assert_load_fails ("[\n{\"ph\":\"X\",\"ts\":1},\n\n{\"ph\" \"X\"}]", -1, "invalid JSON at line 4, byte 31");
  assert_load_fails ("[{\"ph\":\"X\",\"ts\":1,,}]", -1, "invalid JSON");
  assert_load_fails ("{\"traceEvents\":[{\"ph\":\"X\" \"ts\":1}]}", -1, "invalid JSON");
}

/* the same through gzip: the line is found by inflating again */
static void
test_bad_syntax_gzip (void)
{
  const char *json = "{\"traceEvents\":[\n{\"ph\":\"X\",\"ts\":1},\n{\"ph\":\"X\",,}]}";
  g_autoptr(GZlibCompressor) comp = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 6);
  g_autoptr(GInputStream) raw = g_memory_input_stream_new_from_data (json, strlen (json), NULL);
  g_autoptr(GInputStream) in = g_converter_input_stream_new (raw, G_CONVERTER (comp));
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autofree char *path = NULL;

  g_output_stream_splice (out, in, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, &error);
  g_assert_no_error (error);
  path = write_temp ("syntax.json.gz", g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out)),
                     g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out)));
  trace = load_path (path, &error);
  g_assert_null (trace);
  g_assert_nonnull (error);
  g_assert_true (g_str_has_prefix (error->message, path));
  g_assert_nonnull (strstr (error->message, "invalid JSON at line 3, byte "));
  remove_temp (path);
}

static void
test_bad_deep_nesting (void)
{
  g_autoptr(GString) json = g_string_new ("[{\"ph\":\"X\",\"ts\":1,\"args\":");

  for (guint i = 0; i < 100000; i++)
    g_string_append (json, "[");
  assert_load_fails (json->str, json->len, "nested deeper than");
}

static void
test_bad_types_and_numbers (void)
{
  const char *json =
    "{\"traceEvents\":["
    "{\"ph\":\"X\",\"name\":\"ok\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},"
    "{\"ph\":\"X\",\"name\":\"bad-ts\",\"pid\":1,\"tid\":1,\"ts\":\"soon\",\"dur\":1},"
    "{\"ph\":\"X\",\"name\":\"huge-ts\",\"pid\":1,\"tid\":1,\"ts\":1e400,\"dur\":1},"
    "{\"ph\":\"X\",\"name\":\"huge-dur\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":9e300},"
    "{\"ph\":\"X\",\"name\":\"no-ts\",\"pid\":1,\"tid\":1},"
    "{\"ph\":\"X\",\"name\":\"obj-pid\",\"pid\":{\"a\":1},\"tid\":[1],\"ts\":3,\"dur\":1,\"args\":[1,2]},"
    "{\"ph\":\"X\",\"name\":\"big-args\",\"pid\":1,\"tid\":1,\"ts\":4,\"dur\":1,"
    "\"args\":{\"correlation\":18446744073709551616,\"External id\":-5,\"v\":1e400,\"w\":123456789012345678901234567890}},"
    "{\"ph\":5,\"name\":7,\"cat\":[],\"pid\":1.5,\"tid\":true,\"ts\":5},"
    "{\"name\":\"no-phase\",\"ts\":6},"
    "{\"ph\":\"O\",\"name\":\"snapshot\",\"id\":1,\"ts\":6},"
    "17, null, \"text\", [1],"
    "{\"ph\":\"X\",\"name\":\"string-ts\",\"pid\":\"1\",\"tid\":\"1\",\"ts\":\"7\",\"dur\":\"0.5\"}"
    "]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);
  KsTraceCounts c;

  g_assert_no_error (error);
  ks_trace_get_counts (trace, &c);
  /* ok, obj-pid, big-args, string-ts */
  g_assert_cmpuint (c.by_kind[KS_SLICE_GENERIC], ==, 4);
  g_assert_nonnull (strstr (warnings (trace), "4 events without a valid timestamp"));
  g_assert_nonnull (strstr (warnings (trace), "2 objects without a phase"));
  g_assert_nonnull (strstr (warnings (trace), "4 items of the event list are not objects"));
  g_assert_nonnull (strstr (warnings (trace), "unsupported phases"));
  for (guint32 t = 0; t < trace->n_tracks; t++)
    for (guint32 i = 0; i < trace->tracks[t].n_slices; i++)
      {
        g_assert_cmpuint (trace->tracks[t].correlation[i], ==, 0);
        g_assert_cmpuint (trace->tracks[t].external_id[i], ==, 0);
      }
}

static void
test_truncated_json (void)
{
  g_autofree char *path = fixture_path ("seed_cnn.pt.trace.json.gz");
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileInputStream) raw = g_file_read (file, NULL, NULL);
  g_autoptr(GZlibDecompressor) dec = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr(GInputStream) in = g_converter_input_stream_new (G_INPUT_STREAM (raw), G_CONVERTER (dec));
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) full = NULL;
  g_autoptr(KsTrace) cut = NULL;
  const char *text;
  gsize len, at;
  KsTraceCounts cf, cc;

  g_output_stream_splice (out, in, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, &error);
  g_assert_no_error (error);
  text = g_memory_output_stream_get_data (G_MEMORY_OUTPUT_STREAM (out));
  len = g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out));

  full = load_text (text, len, &error);
  g_assert_no_error (error);

  /* cut in the middle of an event, as a crashed profiler leaves it */
  at = len / 2;
  while (text[at] != '"')
    at++;
  cut = load_text (text, at + 3, &error);
  g_assert_no_error (error);
  ks_trace_get_counts (full, &cf);
  ks_trace_get_counts (cut, &cc);
  g_assert_cmpuint (cc.by_kind[KS_SLICE_CPU_OP] + cc.by_kind[KS_SLICE_PYTHON], >, 0);
  g_assert_cmpuint (cc.by_kind[KS_SLICE_PYTHON], <, cf.by_kind[KS_SLICE_PYTHON]);
  {
    g_autofree char *expect = g_strdup_printf ("truncated at byte %" G_GSIZE_FORMAT, at + 3);

    g_assert_nonnull (strstr (warnings (cut), expect));
  }

  /* cut before any event */
  g_clear_object (&cut);
  cut = load_text (text, 40, &error);
  g_assert_null (cut);
  g_assert_nonnull (strstr (error->message, "truncated"));
}

static void
test_truncated_gzip (void)
{
  g_autofree char *path = fixture_path ("loader_bound.pt.trace.json.gz");
  g_autofree char *data = NULL;
  g_autofree char *cut_path = NULL;
  g_autofree char *bad_path = NULL;
  g_autofree char *tiny_path = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  gsize len;

  g_assert_true (g_file_get_contents (path, &data, &len, NULL));

  cut_path = write_temp ("cut.json.gz", data, len * 2 / 3);
  trace = load_path (cut_path, &error);
  g_assert_no_error (error);
  g_assert_nonnull (strstr (warnings (trace), "compressed data ends early"));
  g_assert_nonnull (strstr (warnings (trace), cut_path));
  g_assert_cmpuint (trace->tracks[0].n_slices, >, 0);
  remove_temp (cut_path);

  /* corrupt deflate data in the middle */
  memset (data + len / 2, 0xff, 64);
  bad_path = write_temp ("bad.json.gz", data, len);
  g_clear_object (&trace);
  trace = load_path (bad_path, &error);
  g_assert_null (trace);
  g_assert_nonnull (error);
  g_assert_true (g_str_has_prefix (error->message, bad_path));
  g_assert_nonnull (strstr (error->message, "gzip"));
  g_clear_error (&error);
  remove_temp (bad_path);

  /* a gzip header and nothing else */
  tiny_path = write_temp ("tiny.json.gz", data, 12);
  trace = load_path (tiny_path, &error);
  g_assert_null (trace);
  g_assert_nonnull (strstr (error->message, "truncated"));
  remove_temp (tiny_path);
}

static void
test_bad_files (void)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autofree char *empty = write_temp ("empty.json", "", 0);
  g_autofree char *zip = write_temp ("trace.zip", "PK\x03\x04 rest of a zip", 18);
  g_autofree char *csv = write_temp ("gpu.csv", "timestamp, index\n1, 2\n", 22);
  g_autofree char *dir = g_dir_make_tmp ("ks-empty-XXXXXX", NULL);

  trace = load_path ("/nonexistent/trace.json", &error);
  g_assert_null (trace);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_true (g_str_has_prefix (error->message, "/nonexistent/trace.json: "));
  g_clear_error (&error);

  trace = load_path (empty, &error);
  g_assert_null (trace);
  g_assert_nonnull (strstr (error->message, "empty"));
  g_assert_true (g_str_has_prefix (error->message, empty));
  g_clear_error (&error);

  trace = load_path (zip, &error);
  g_assert_null (trace);
  g_assert_nonnull (strstr (error->message, "zip archives are not supported"));
  g_clear_error (&error);

  trace = load_path (csv, &error);
  g_assert_null (trace);
  g_assert_nonnull (strstr (error->message, "not a trace file"));
  g_clear_error (&error);

  trace = load_path (dir, &error);
  g_assert_null (trace);
  g_assert_nonnull (strstr (error->message, "no trace files"));
  g_clear_error (&error);

  remove_temp (empty);
  remove_temp (zip);
  remove_temp (csv);
  g_rmdir (dir);
}

/* Hostile and broken files */

#define READ_BLOCK (1024 * 1024)   /* the reader's */

/* Compresses @len bytes at @data as one gzip member with zlib, ending a
 * deflate block (Z_FULL_FLUSH: byte-aligned, no back references across
 * it) after every @flush_every input bytes; the compressed offsets where
 * the blocks after those flushes start go to @flush_points. */
static GByteArray *
gzip_with_flushes (const char *data,
                   gsize       len,
                   gsize       flush_every,
                   GArray     *flush_points)
{
  GByteArray *out = g_byte_array_new ();
  z_stream z = { 0 };
  guint8 buf[64 * 1024];
  gsize done = 0;
  int ret;

  g_assert_cmpint (deflateInit2 (&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), ==, Z_OK);
  do
    {
      gsize n = MIN (flush_every, len - done);
      int flush = done + n < len ? Z_FULL_FLUSH : Z_FINISH;

      z.next_in = (Bytef *)data + done;
      z.avail_in = n;
      do
        {
          z.next_out = buf;
          z.avail_out = sizeof buf;
          ret = deflate (&z, flush);
          g_assert_cmpint (ret, !=, Z_STREAM_ERROR);
          g_byte_array_append (out, buf, sizeof buf - z.avail_out);
        }
      while (z.avail_out == 0);
      done += n;
      if (flush == Z_FULL_FLUSH && flush_points != NULL)
        {
          guint64 at = out->len;

          g_array_append_val (flush_points, at);
        }
    }
  while (done < len);
  g_assert_cmpint (ret, ==, Z_STREAM_END);
  deflateEnd (&z);
  return out;
}

static char *
write_temp_gzip (const char *name,
                 const char *data,
                 gsize       len)
{
  g_autoptr(GByteArray) gz = gzip_with_flushes (data, len, G_MAXSIZE, NULL);

  return write_temp (name, gz->data, gz->len);
}

/* Every string of the model and every argument text is valid UTF-8. */
static void
assert_model_utf8 (KsTrace *trace)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  for (guint32 i = 0; i < trace->n_strings; i++)
    g_assert_true (g_utf8_validate (ks_trace_string (trace, i), -1, NULL));
  for (guint32 t = 0; t < trace->n_tracks; t++)
    for (guint32 i = 0; i < trace->tracks[t].n_slices; i++)
      {
        const char *args = ks_trace_slice_args (trace, &trace->tracks[t], i, args_buf);

        g_assert_true (args == NULL || g_utf8_validate (args, -1, NULL));
      }
}

static guint32
find_slice (KsTrace        *trace,
            const char     *name,
            const KsTrack **track_out)
{
  for (guint32 t = 0; t < trace->n_tracks; t++)
    for (guint32 i = 0; i < trace->tracks[t].n_slices; i++)
      if (g_str_equal (ks_trace_string (trace, trace->tracks[t].name_id[i]), name))
        {
          *track_out = &trace->tracks[t];
          return i;
        }
  g_error ("no slice named “%s”", name);
}

#define FFFD "\xef\xbf\xbd"

/* Invalid UTF-8 and unpaired surrogates, wherever the reader keeps
 * strings, become U+FFFD (one per maximal invalid subsequence, as
 * Python's errors="replace" does); the file loads, with one warning that
 * counts them. */
static void
test_invalid_utf8 (void)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  const char *json =
    "{\"traceEvents\":["
    /* raw bytes: a stray byte (twice), an overlong '/', CESU-8, beyond U+10FFFF, a cut sequence */
    "{\"ph\":\"X\",\"name\":\"bad \xff name\",\"cat\":\"c\xc0\xaf" "at\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,"
    "\"cname\":\"\xff\",\"args\":{\"s\":\"a\xff" "b\",\"k\xfe\":1,\"e\":\"\\udfff\"}},"
    "{\"ph\":\"X\",\"name\":\"bad \xff name\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1},"
    "{\"ph\":\"X\",\"name\":\"cesu \xed\xa0\xbd\xed\xb8\x80\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1},"
    "{\"ph\":\"X\",\"name\":\"big \xf4\x90\x80\x80\",\"pid\":1,\"tid\":1,\"ts\":4,\"dur\":1},"
    "{\"ph\":\"X\",\"name\":\"cut \xe6\x97!\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":1},"
    /* escapes: a lone low and a lone high surrogate, a high one before a non-surrogate, a pair */
    "{\"ph\":\"X\",\"name\":\"k \\udfff\",\"cat\":\"kernel\",\"pid\":0,\"tid\":7,\"ts\":6,\"dur\":1,"
    "\"args\":{\"device\":0,\"stream\":7}},"
    "{\"ph\":\"X\",\"name\":\"h \\ud800x\",\"pid\":1,\"tid\":1,\"ts\":7,\"dur\":1},"
    "{\"ph\":\"X\",\"name\":\"p \\uD800\\u0041\",\"pid\":1,\"tid\":1,\"ts\":8,\"dur\":1},"
    "{\"ph\":\"X\",\"name\":\"ok \\ud83d\\ude00 \xe6\x97\xb6\",\"pid\":1,\"tid\":1,\"ts\":9,\"dur\":1},"
    "{\"ph\":\"X\",\"name\":\"hh \\ud800\\ud800\\udc00\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":1},"
    /* metadata, a string pid, a counter */
    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"proc \xff\"}},"
    "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"thr \xe6\x97\xb6\"}},"
    "{\"ph\":\"X\",\"name\":\"s\",\"pid\":\"pid\xff\",\"tid\":1,\"ts\":11,\"dur\":1},"
    "{\"ph\":\"C\",\"name\":\"ctr\xff\",\"pid\":1,\"ts\":12,\"args\":{\"v\xfe\":1,\"w\":2}}"
    "],\"meta\xff\":\"v\xfe\",\"deviceProperties\":[{\"id\":0,\"name\":\"GPU \xff\",\"numSms\":132}]}";
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (json, -1, &error);
  const KsTrack *track;
  guint32 i, p;
  gboolean found = FALSE;
  guint n_counters = 0;

  g_assert_no_error (error);
  assert_model_utf8 (trace);

  i = find_slice (trace, "bad " FFFD " name", &track);
  g_assert_cmpstr (ks_trace_string (trace, track->category[i]), ==, "c" FFFD FFFD "at");
  g_assert_cmpstr (ks_trace_slice_args (trace, track, i, args_buf), ==, "{\"s\":\"a" FFFD "b\",\"k" FFFD "\":1,\"e\":\"\\ufffd\"}");
  find_slice (trace, "cesu " FFFD FFFD FFFD FFFD FFFD FFFD, &track);
  find_slice (trace, "big " FFFD FFFD FFFD FFFD, &track);
  find_slice (trace, "cut " FFFD "!", &track);
  i = find_slice (trace, "k " FFFD, &track);
  g_assert_cmpuint (track->kind, ==, KS_TRACK_STREAM);
  find_slice (trace, "h " FFFD "x", &track);
  find_slice (trace, "p " FFFD "A", &track);
  find_slice (trace, "ok \xf0\x9f\x98\x80 \xe6\x97\xb6", &track);
  find_slice (trace, "hh " FFFD "\xf0\x90\x80\x80", &track);

  p = ks_trace_find_process (trace, 1);
  g_assert_cmpuint (p, !=, KS_NO_INDEX);
  g_assert_cmpstr (ks_trace_string (trace, trace->processes[p].name), ==, "proc " FFFD);
  for (guint32 t = 0; t < trace->n_threads; t++)
    if (trace->threads[t].process == p && trace->threads[t].tid == 1)
      g_assert_cmpstr (ks_trace_string (trace, trace->threads[t].name), ==, "thr \xe6\x97\xb6");
  for (guint32 k = 0; k < trace->n_processes; k++)
    if (g_strcmp0 (ks_trace_string (trace, trace->processes[k].original), "pid" FFFD) == 0)
      found = TRUE;
  g_assert_true (found);
  for (guint32 c = 0; c < trace->n_counters; c++)
    {
      const char *name = ks_trace_string (trace, trace->counters[c].name);

      g_assert_true (g_str_equal (name, "ctr" FFFD " v" FFFD) || g_str_equal (name, "ctr" FFFD " w"));
      n_counters++;
    }
  g_assert_cmpuint (n_counters, ==, 2);
  g_assert_cmpstr (ks_trace_get_metadata (trace, "meta" FFFD), ==, "v" FFFD);
  g_assert_cmpuint (trace->n_gpus, ==, 1);
  g_assert_cmpstr (ks_trace_string (trace, trace->gpus[0].name), ==, "GPU " FFFD);

  /* name 1+1, cat 2, args 3, cesu 6, big 4, cut 1, escapes 1+1+1+1,
   * process name 1, pid 1, counter 1+1, metadata 1+1, GPU 1; not the
   * "cname" nothing keeps */
  g_assert_nonnull (strstr (warnings (trace),
                            "inline.json: 29 invalid UTF-8 sequences or unpaired surrogates were replaced with U+FFFD"));
}

/* Python's json.dump writes NaN, Infinity and -Infinity; files may start
 * with a UTF-8 byte order mark. In arguments they stay (as strings, so
 * that the argument text is JSON); as a time they make the event
 * invalid. Plain, mapped and gzip input alike. */
static void
test_nan_infinity_bom (void)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  const char *json =
    "\xef\xbb\xbf{\"traceEvents\": [\n"
    "{\"ph\": \"X\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 2, "
    "\"args\": {\"loss\": NaN, \"hi\": Infinity, \"lo\": -Infinity, \"n\": [NaN, 1, -Infinity]}},\n"
    "{\"ph\": \"X\", \"name\": \"nan-ts\", \"pid\": 1, \"tid\": 1, \"ts\": NaN, \"dur\": 1},\n"
    "{\"ph\": \"X\", \"name\": \"inf-dur\", \"pid\": 1, \"tid\": 1, \"ts\": 3, \"dur\": Infinity},\n"
    "{\"ph\": \"i\", \"name\": \"neg-inf-ts\", \"pid\": 1, \"tid\": 1, \"ts\": -Infinity},\n"
    "{\"ph\": \"C\", \"name\": \"c\", \"pid\": 1, \"ts\": 4, \"args\": {\"v\": NaN, \"w\": 5}},\n"
    "{\"ph\": \"X\", \"name\": \"b\", \"pid\": 1, \"tid\": 1, \"ts\": 5, \"dur\": 1}\n"
    "], \"score\": NaN}\n";
  g_autofree char *path = write_temp ("nan.json", json, strlen (json));
  g_autofree char *gz_path = write_temp_gzip ("nan.json.gz", json, strlen (json));

  for (guint how = 0; how < 3; how++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(KsTrace) trace = how == 0 ? load_text (json, -1, &error)
                                          : load_path (how == 1 ? path : gz_path, &error);
      const KsTrack *track;

      g_assert_no_error (error);
      track = only_thread_track (trace);
      g_assert_cmpuint (track->n_slices, ==, 2);
      g_assert_cmpstr (ks_trace_string (trace, track->name_id[0]), ==, "a");
      g_assert_cmpstr (ks_trace_slice_args (trace, track, 0, args_buf), ==,
                       "{\"loss\":\"NaN\",\"hi\":\"Infinity\",\"lo\":\"-Infinity\",\"n\":[\"NaN\",1,\"-Infinity\"]}");
      g_assert_cmpstr (ks_trace_string (trace, track->name_id[1]), ==, "b");
      g_assert_cmpuint (trace->n_instants, ==, 0);
      g_assert_cmpuint (trace->n_counters, ==, 1);
      g_assert_cmpuint (trace->counters[0].n_samples, ==, 1);
      g_assert_cmpfloat (trace->counters[0].value[0], ==, 5.0);
      g_assert_cmpstr (ks_trace_get_metadata (trace, "score"), ==, "NaN");
      g_assert_nonnull (strstr (warnings (trace), "3 events without a valid timestamp or duration were skipped"));
    }
  remove_temp (path);
  remove_temp (gz_path);

  /* positions of later errors are still the file's */
  assert_load_fails ("\xef\xbb\xbf[{\"ph\":\"X\",\"ts\":1,\"args\":{\"v\":-Infinity}},\n{\"ph\" \"X\"}]", -1,
                     "invalid JSON at line 2, byte 55");
  /* words that are not these stay errors */
  assert_load_fails ("[{\"ph\":\"X\",\"ts\":1,\"args\":{\"v\":NaNa}}]", -1, "invalid JSON");
  assert_load_fails ("[{\"ph\":\"X\",\"ts\":1,\"args\":{\"v\":+Infinity}}]", -1, "invalid JSON");
  assert_load_fails ("[{\"ph\":\"X\",\"ts\":1,\"args\":{\"v\":Inf}}]", -1, "invalid JSON");
}

/* A number token far beyond any real one is refused, naming the file and
 * where it starts, wherever the read blocks cut it; one at the limit loads. */
static void
test_long_number (void)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  static const gsize lengths[] = { 64 * 1024 * 1024, 3 * 1024 * 1024 + 5, 4097 };

  for (guint k = 0; k < G_N_ELEMENTS (lengths); k++)
    {
      g_autoptr(GString) json = g_string_new ("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},\n"
                                              "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1,"
                                              "\"args\":{\"x\":");
      g_autofree char *expect = g_strdup_printf ("a number longer than 4096 bytes at line 2, byte %" G_GSIZE_FORMAT,
                                                 json->len);

      for (gsize i = 0; i < lengths[k]; i++)
        g_string_append_c (json, '1' + i % 9);
      g_string_append (json, "}}]");
      assert_load_fails (json->str, json->len, expect);
    }

  /* read where something reads it (the timestamp), through a mapped file */
  {
    g_autoptr(GString) json = g_string_new ("[{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":");
    g_autofree char *path = NULL;
    g_autofree char *expect = g_strdup_printf ("a number longer than 4096 bytes at line 1, byte %" G_GSIZE_FORMAT,
                                               json->len);
    g_autoptr(GError) error = NULL;
    g_autoptr(KsTrace) trace = NULL;

    for (guint i = 0; i < 5000; i++)
      g_string_append_c (json, '7');
    g_string_append (json, "}]");
    path = write_temp ("long-ts.json", json->str, json->len);
    trace = load_path (path, &error);
    g_assert_null (trace);
    g_assert_true (g_str_has_prefix (error->message, path));
    g_assert_nonnull (strstr (error->message, expect));
    remove_temp (path);
  }

  /* at the limit: kept in the argument text */
  {
    g_autoptr(GString) json = g_string_new ("[{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,"
                                            "\"args\":{\"x\":-");
    g_autoptr(GError) error = NULL;
    g_autoptr(KsTrace) trace = NULL;
    const char *args;

    for (guint i = 0; i < 4095; i++)
      g_string_append_c (json, '3');
    g_string_append (json, "}}]");
    trace = load_text (json->str, json->len, &error);
    g_assert_no_error (error);
    args = ks_trace_slice_args (trace, only_thread_track (trace), 0, args_buf);
    g_assert_cmpuint (strlen (args), ==, strlen ("{\"x\":}") + 4096);
  }
}

/* A string past 16 MiB is cut there (never inside a character or an
 * escape), with one warning; what follows it loads, and positions after
 * it are still the file's. */
static void
test_long_string (void)
{
  static const struct { const char *unit; gsize expect_len; const char *expect_unit; } cases[] = {
    { "a", 16 * 1024 * 1024, "a" },
    { "\xe6\x97\xb6", 16 * 1024 * 1024 - 1, "\xe6\x97\xb6" },
    /* 2796202 whole escapes fit in 16 MiB */
    { "\\u00e9", 2796202 * 2, "\xc3\xa9" },
    { "\\\\", 8 * 1024 * 1024, "\\" },
  };

  for (guint k = 0; k < G_N_ELEMENTS (cases); k++)
    {
      gsize unit_len = strlen (cases[k].unit);
      g_autoptr(GString) json = g_string_new ("[{\"ph\":\"X\",\"name\":\"");
      g_autoptr(GError) error = NULL;
      g_autoptr(KsTrace) trace = NULL;
      const KsTrack *track;
      const char *name;

      while (json->len < 20 * 1000 * 1000)
        g_string_append_len (json, cases[k].unit, unit_len);
      g_string_append (json, "\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},\n"
                             "{\"ph\":\"X\",\"name\":\"after\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1}]");
      trace = load_text (json->str, json->len, &error);
      g_assert_no_error (error);
      track = only_thread_track (trace);
      g_assert_cmpuint (track->n_slices, ==, 2);
      name = ks_trace_string (trace, track->name_id[0]);
      g_assert_cmpuint (strlen (name), ==, cases[k].expect_len);
      g_assert_true (g_utf8_validate (name, -1, NULL));
      g_assert_true (g_str_has_suffix (name, cases[k].expect_unit));
      g_assert_cmpstr (ks_trace_string (trace, track->name_id[1]), ==, "after");
      g_assert_nonnull (strstr (warnings (trace), "inline.json: 1 strings longer than 16 MiB were cut to their first 16 MiB"));
    }

  /* an error after a cut string */
  {
    g_autoptr(GString) json = g_string_new ("[{\"ph\":\"X\",\"name\":\"");
    g_autofree char *expect = NULL;

    for (guint i = 0; i < 17 * 1024 * 1024; i++)
      g_string_append_c (json, 'a' + i % 26);
    g_string_append (json, "\",\"ts\":1},\n{\"ph\" \"X\"}]");
    expect = g_strdup_printf ("invalid JSON at line 2, byte %" G_GSIZE_FORMAT, json->len - 2);
    assert_load_fails (json->str, json->len, expect);
  }
}

/* Every hostile token above, cut by the end of a read block at each of
 * its bytes in turn: the same model every time. */
static void
test_tokens_across_blocks (void)
{
  const char *hostile =
    "{\"ph\": \"X\", \"name\": \"n\\u00e9 \\ud83d\\ude00 \\udfff \\ud800\\\\u0041 \xe6\x97\xb6 \xff\xc0\xaf end\", "
    "\"cat\": \"c\\\\\\\\\\\"q\", \"pid\": 1, \"tid\": 1, \"ts\": 1.5, \"dur\": 2, "
    "\"args\": {\"v\": NaN, \"w\": [Infinity, -Infinity, true, false, null, -1.25e-3], "
    "\"s\": \"\\\\\\\\\\\\\\\\\\\"\xed\xa0\x80 x\", "
    "\"long\": 1234567890123456789012345678901234567890123456789012345678901234567890123456789012345}}, "
    "{\"ph\": \"C\", \"name\": \"ctr\", \"pid\": 1, \"ts\": 3, \"args\": {\"a\": NaN, \"b\": 7}}, "
    "{\"ph\": \"X\", \"name\": \"nan\", \"pid\": 1, \"tid\": 1, \"ts\": NaN, \"dur\": 1}, ";
  g_autofree char *expect = NULL;
  gsize hostile_len = strlen (hostile);
  const gsize head = 4;   /* the byte order mark and "[" */

  /* the first block ends from 100 bytes before the hostile events to
   * past them; white space fills it */
  for (gsize pad = READ_BLOCK - head - 100; pad <= READ_BLOCK - head + hostile_len; pad++)
    {
      g_autoptr(GString) json = g_string_new ("\xef\xbb\xbf[");
      g_autoptr(GError) error = NULL;
      g_autoptr(KsTrace) trace = NULL;
      g_autofree char *digest = NULL;
      g_autofree char *all = NULL;

      g_string_append_printf (json, "%*s%s", (int)pad, "", hostile);
      g_string_append (json, "{\"ph\": \"i\", \"name\": \"end\", \"pid\": 1, \"tid\": 1, \"ts\": 0}]");
      trace = load_text (json->str, json->len, &error);
      g_assert_no_error (error);
      assert_model_utf8 (trace);
      digest = slices_digest (trace);
      g_assert_cmpuint (trace->n_counters, ==, 1);
      g_assert_cmpuint (trace->counters[0].n_samples, ==, 1);
      all = g_strdup_printf ("%s\n%s\n%g", digest, warnings (trace), trace->counters[0].value[0]);
      if (expect == NULL)
        {
          g_test_message ("%s", all);
          expect = g_steal_pointer (&all);
        }
      else
        g_assert_cmpstr (all, ==, expect);
    }
  g_assert_true (g_str_has_prefix (expect, "1 slices "));
  g_assert_nonnull (strstr (expect, "inline.json: 8 invalid UTF-8 sequences"));
  g_assert_nonnull (strstr (expect, "1 events without a valid timestamp"));
}

/* The same files through the 16-byte white-space dropping (no AVX-512):
 * it notes NaN, long numbers and bytes above 0x7f on its own. */
static void
test_hostile_16_byte_path (void)
{
  if (g_test_subprocess ())
    {
      test_invalid_utf8 ();
      test_nan_infinity_bom ();
      test_long_number ();
      return;
    }

  if (!have_avx512 ())
    {
      g_test_skip ("this processor has no AVX-512 VBMI2: the other tests took the 16-byte path");
      return;
    }
  trap_without_avx512 ();
}

/* A damaged gzip block: the error names a compressed offset near it. */
static void
test_gzip_corrupt_offset (void)
{
  g_autoptr(GString) json = g_string_new ("[\n");
  g_autoptr(GArray) flushes = g_array_new (FALSE, FALSE, sizeof (guint64));
  g_autoptr(GByteArray) gz = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autofree char *path = NULL;
  const char *near;
  guint64 at, reported;
  guint n;

  for (n = 0; json->len < 6 * 1024 * 1024; n++)
    g_string_append_printf (json, "{\"ph\":\"X\",\"name\":\"op %u\",\"pid\":1,\"tid\":1,\"ts\":%u,\"dur\":1},\n",
                            (n * 2654435761u) % 100003, n * 3);
  g_string_append (json, "{\"ph\":\"i\",\"name\":\"end\",\"pid\":1,\"tid\":1,\"ts\":0}]");
  gz = gzip_with_flushes (json->str, json->len, 64 * 1024, flushes);
  g_assert_cmpuint (flushes->len, >, 20);
  /* a block header of type 3 (reserved) in the middle of the file */
  at = g_array_index (flushes, guint64, flushes->len / 2);
  g_assert_cmpuint (at, >, 100000);
  gz->data[at] = 0xff;
  path = write_temp ("flipped.json.gz", gz->data, gz->len);

  trace = load_path (path, &error);
  g_assert_null (trace);
  g_assert_nonnull (error);
  g_test_message ("%s (block at %" G_GUINT64_FORMAT ")", error->message, at);
  g_assert_true (g_str_has_prefix (error->message, path));
  near = strstr (error->message, "near compressed byte ");
  g_assert_nonnull (near);
  reported = g_ascii_strtoull (near + strlen ("near compressed byte "), NULL, 10);
  g_assert_cmpuint (reported + 16, >=, at);
  g_assert_cmpuint (reported, <=, at + 16);
  remove_temp (path);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/json/bad/empty", test_bad_empty);
  g_test_add_func ("/json/bad/not-trace", test_bad_not_trace);
  g_test_add_func ("/json/bad/syntax", test_bad_syntax);
  g_test_add_func ("/json/bad/syntax-gzip", test_bad_syntax_gzip);
  g_test_add_func ("/json/bad/syntax-far", test_bad_syntax_far);
  g_test_add_func ("/json/bad/deep-nesting", test_bad_deep_nesting);
  g_test_add_func ("/json/bad/words-apart", test_bad_words_apart);
  g_test_add_func ("/json/bad/types-and-numbers", test_bad_types_and_numbers);
  g_test_add_func ("/json/bad/truncated-json", test_truncated_json);
  g_test_add_func ("/json/bad/truncated-gzip", test_truncated_gzip);
  g_test_add_func ("/json/bad/files", test_bad_files);
  g_test_add_func ("/json/bad/invalid-utf8", test_invalid_utf8);
  g_test_add_func ("/json/nan-infinity-bom", test_nan_infinity_bom);
  g_test_add_func ("/json/bad/long-number", test_long_number);
  g_test_add_func ("/json/bad/long-string", test_long_string);
  g_test_add_func ("/json/bad/tokens-across-blocks", test_tokens_across_blocks);
  g_test_add_func ("/json/bad/hostile-16-byte-path", test_hostile_16_byte_path);
  g_test_add_func ("/json/bad/gzip-corrupt-offset", test_gzip_corrupt_offset);

  return g_test_run ();
}
