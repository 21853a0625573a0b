/* ks-gen-trace.c: scales a real PyTorch trace into a large one
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Repeats the events of a fixture (by default gpt_3steps) back to back,
 * shifting every timestamp by the length of the trace and every
 * correlation, External id and flow id by the largest id seen, until the
 * output reaches the requested size. Writes .json, or .json.gz (zlib
 * level 6) when the output name ends in .gz.
 *
 *   ks-gen-trace [--input FIXTURE] --size-mb N OUTPUT
 */

#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gio/gio.h>

static char *
load_text (const char  *path,
           gsize       *len,
           GError     **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GFileInputStream) raw = g_file_read (file, NULL, error);
  g_autoptr(GInputStream) in = NULL;
  g_autoptr(GOutputStream) out = g_memory_output_stream_new_resizable ();

  if (raw == NULL)
    return NULL;
  if (g_str_has_suffix (path, ".gz"))
    {
      g_autoptr(GZlibDecompressor) dec = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);

      in = g_converter_input_stream_new (G_INPUT_STREAM (raw), G_CONVERTER (dec));
    }
  else
    in = g_object_ref (G_INPUT_STREAM (raw));
  if (g_output_stream_splice (out, in, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, error) < 0)
    return NULL;
  *len = g_memory_output_stream_get_data_size (G_MEMORY_OUTPUT_STREAM (out));
  return g_memory_output_stream_steal_data (G_MEMORY_OUTPUT_STREAM (out));
}

/* Keys whose numeric value is shifted, and by what. */
typedef struct
{
  const char *key;
  gboolean    is_time;
} Shift;

static const Shift shifts[] = {
  { "\"ts\": ", TRUE },
  { "\"id\": ", FALSE },
  { "\"correlation\": ", FALSE },
  { "\"External id\": ", FALSE },
};

static const char *
match_shift (const char *p,
             const char *end,
             const Shift **which)
{
  for (guint k = 0; k < G_N_ELEMENTS (shifts); k++)
    {
      gsize n = strlen (shifts[k].key);

      if ((gsize)(end - p) > n && memcmp (p, shifts[k].key, n) == 0 &&
          (g_ascii_isdigit (p[n]) || p[n] == '-'))
        {
          *which = &shifts[k];
          return p + n;
        }
    }
  return NULL;
}

/* The largest integer part of a time and of an id in the body. */
static void
scan_body (const char *body,
           gsize       len,
           gint64     *t_min,
           gint64     *t_max,
           gint64     *id_max)
{
  const char *end = body + len;

  *t_min = G_MAXINT64;
  *t_max = G_MININT64;
  *id_max = 0;
  for (const char *p = body; p < end; p++)
    {
      const Shift *which = NULL;
      const char *num;
      gint64 v;

      if (*p != '"' || (num = match_shift (p, end, &which)) == NULL)
        continue;
      v = g_ascii_strtoll (num, NULL, 10);
      if (which->is_time)
        {
          *t_min = MIN (*t_min, v);
          *t_max = MAX (*t_max, v);
        }
      else
        *id_max = MAX (*id_max, v);
    }
}

static gboolean
write_shifted (GOutputStream  *out,
               const char     *body,
               gsize           len,
               gint64          dt,
               gint64          did,
               guint64        *written,
               GError        **error)
{
  g_autoptr(GString) buf = g_string_sized_new (len + len / 8);
  const char *end = body + len;
  const char *p = body;
  const char *copied = body;
  gsize n;

  while (p < end)
    {
      const Shift *which = NULL;
      const char *num;
      char *num_end;
      gint64 v;

      p = memchr (p, '"', end - p);
      if (p == NULL)
        break;
      num = match_shift (p, end, &which);
      if (num == NULL)
        {
          p++;
          continue;
        }
      v = g_ascii_strtoll (num, &num_end, 10);
      g_string_append_len (buf, copied, num - copied);
      g_string_append_printf (buf, "%" G_GINT64_FORMAT, v + (which->is_time ? dt : did));
      copied = p = num_end;
    }
  g_string_append_len (buf, copied, end - copied);

  if (!g_output_stream_write_all (out, buf->str, buf->len, &n, NULL, error))
    return FALSE;
  *written += n;
  return TRUE;
}

int
main (int    argc,
      char **argv)
{
  g_autofree char *input = NULL;
  gint64 size_mb = 0;
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GFile) out_file = NULL;
  g_autoptr(GOutputStream) out = NULL;
  g_autoptr(GFileOutputStream) file_out = NULL;
  const char *body_start, *body_end;
  gint64 t_min, t_max, id_max, period;
  guint64 written = 0, target;
  gsize len;
  guint reps = 0;
  const GOptionEntry entries[] = {
    { "input", 'i', 0, G_OPTION_ARG_FILENAME, &input, "Trace to repeat (default tests/data/gpt_3steps.pt.trace.json.gz)", "FILE" },
    { "size-mb", 's', 0, G_OPTION_ARG_INT64, &size_mb, "Uncompressed size to reach, in MB (10^6 bytes)", "N" },
    { NULL }
  };

  context = g_option_context_new ("OUTPUT.json[.gz] — generate a large PyTorch trace");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc != 2 || size_mb <= 0)
    {
      g_printerr ("%s\n", error ? error->message : "usage: ks-gen-trace [--input FILE] --size-mb N OUTPUT");
      return 2;
    }
  if (input == NULL)
    input = g_build_filename (SOURCE_ROOT, "tests", "data", "gpt_3steps.pt.trace.json.gz", NULL);

  text = load_text (input, &len, &error);
  if (text == NULL)
    {
      g_printerr ("%s: %s\n", input, error->message);
      return 1;
    }
  body_start = strstr (text, "\"traceEvents\": [");
  body_end = strrchr (text, ']');
  if (body_start == NULL || body_end == NULL)
    {
      g_printerr ("%s: not a Kineto trace\n", input);
      return 1;
    }
  body_start += strlen ("\"traceEvents\": [");
  while (body_end > body_start && body_end[-1] != '}')
    body_end--;

  scan_body (body_start, body_end - body_start, &t_min, &t_max, &id_max);
  /* whole microseconds: the integer part of the largest ts plus a gap */
  period = t_max - t_min + 1000;

  out_file = g_file_new_for_commandline_arg (argv[1]);
  file_out = g_file_replace (out_file, NULL, FALSE, G_FILE_CREATE_REPLACE_DESTINATION, NULL, &error);
  if (file_out == NULL)
    {
      g_printerr ("%s: %s\n", argv[1], error->message);
      return 1;
    }
  if (g_str_has_suffix (argv[1], ".gz"))
    {
      g_autoptr(GZlibCompressor) comp = g_zlib_compressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP, 6);

      out = g_converter_output_stream_new (G_OUTPUT_STREAM (file_out), G_CONVERTER (comp));
    }
  else
    out = g_object_ref (G_OUTPUT_STREAM (file_out));

  target = (guint64)size_mb * 1000000;
  if (!g_output_stream_write_all (out, text, body_start - text, NULL, NULL, &error))
    goto fail;
  written += body_start - text;

  while (written < target)
    {
      if (reps > 0 && !g_output_stream_write_all (out, ",\n", 2, NULL, NULL, &error))
        goto fail;
      if (!write_shifted (out, body_start, body_end - body_start, (gint64)reps * period,
                          (gint64)reps * (id_max + 1), &written, &error))
        goto fail;
      reps++;
    }

  if (!g_output_stream_write_all (out, "\n]}\n", 4, NULL, NULL, &error) ||
      !g_output_stream_close (out, NULL, &error))
    goto fail;

  printf ("%s: %u copies of %s, %" G_GUINT64_FORMAT " bytes of JSON\n",
          argv[1], reps, input, written + 4);
  return 0;

fail:
  g_printerr ("%s: %s\n", argv[1], error->message);
  return 1;
}
