/* ks-json-source.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-json-reader"

/* Where the reader's text comes from: a mapped file (ks-json-mapped.c),
 * or a stream inflated by a thread of its own. Each block is
 * compacted and handed to the tokenizer; an error's offset in the
 * compacted text is mapped back to the file's here. */

#include "config.h"

#include <inttypes.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ks-gzip.h"
#include "ks-json-reader-private.h"
#include "ks-load-phases.h"

gboolean
ks_json_source_progress (Reader   *r,
                         guint64   done,
                         double    base,
                         double    span,
                         goffset   size,
                         GError  **error)
{
  if (r->progress != NULL && size > 0)
    ks_progress_set_fraction (r->progress, base + span * MIN (1.0, (double)done / (double)size));
  /* past the builder's limits the rest of the file would be read for nothing */
  return !g_cancellable_set_error_if_cancelled (r->cancellable, error) &&
         ks_trace_builder_check (r->builder, error);
}

/* The compacted text of a block, handed on; @n counts towards what
 * ks_json_past_value() compares. */
gboolean
ks_json_source_feed (Reader    *r,
                     guint8    *data,
                     gsize      n,
                     guint      seen,
                     gboolean   in_string,
                     GError   **error)
{
  r->text_fed += n;
  return ks_json_feed_block (r, data, n, seen, in_string, error);
}

/* Something other than white space came after the top-level value:
 * nothing more is read (a trace followed by gigabytes of NUL bytes must
 * cost no more than the trace). */
gboolean
ks_json_past_value (Reader *r)
{
  return r->value_done && r->text_fed > r->value_end;
}

static gssize
read_some (GInputStream  *stream,
           guint8        *buf,
           gsize          len,
           GCancellable  *cancellable,
           GError       **error)
{
  gsize got = 0;

  /* Fill the buffer: short reads would only make more yajl calls. */
  if (!g_input_stream_read_all (stream, buf, len, &got, cancellable, error))
    return -1;
  return got;
}

/* yajl parses the compacted text, so its offsets are mapped back to the
 * file's: only when there is an error, by reading the (seekable) stream
 * again and compacting it the same way up to the offending byte. */
static gboolean
locate_offset (GInputStream *stream,
               gboolean      gzip,
               guint64       target,
               guint64      *orig_out,
               guint64      *line_out)
{
  g_autofree guint8 *buf = NULL;
  g_autofree guint8 *out = NULL;
  g_autofree char *scratch = NULL;
  g_autoptr(KsGzip) gz = NULL;
  KsJsonCompactState state = { 0 };
  guint64 orig = 0, done = 0, lines = 1;
  gboolean first = TRUE;
  gssize n;

  if (!ks_json_stream_rewind (stream))
    return FALSE;

  buf = g_malloc (READ_CHUNK);
  scratch = g_malloc (READ_CHUNK + 16);
  if (gzip)
    {
      gz = ks_gzip_new ();
      out = g_malloc (READ_CHUNK);
    }

  while (done < target && (n = g_input_stream_read (stream, buf, READ_CHUNK, NULL, NULL)) > 0)
    {
      const guint8 *data = buf;
      gssize len = n;

      if (gz != NULL)
        ks_gzip_set_input (gz, buf, n);
      do
        {
          KsJsonCompactState before = state;
          gsize m;

          if (gz != NULL)
            {
              len = ks_gzip_inflate (gz, out, READ_CHUNK, NULL);
              if (len <= 0)
                break;
              data = out;
            }
          if (first)
            {
              gsize bom = ks_json_bom_length (data, len);

              first = FALSE;
              data += bom;
              len -= bom;
              orig += bom;
            }
          m = ks_json_compact (data, len, scratch, &state);
          if (done + m < target)
            {
              for (const guint8 *p = data; (p = memchr (p, '\n', data + len - p)) != NULL; p++)
                lines++;
              done += m;
              orig += len;
              continue;
            }
          /* the block with the target: byte by byte */
          state = before;
          for (gssize k = 0; k < len && done < target; k++)
            {
              gsize m1 = ks_json_compact (data + k, 1, scratch, &state);

              /* a separator comes out with the word after it but stands
               * for the white space before */
              if (m1 == 2 && done + 1 >= target)
                {
                  done++;
                  break;
                }
              done += m1;
              if (data[k] == '\n')
                lines++;
              orig++;
            }
          break;
        }
      while (gz != NULL && done < target);
    }

  *orig_out = orig;
  *line_out = lines;
  return TRUE;
}

/* Back to the start of @stream, to read it again; FALSE when it cannot
 * seek. */
gboolean
ks_json_stream_rewind (GInputStream *stream)
{
  return G_IS_SEEKABLE (stream) && g_seekable_can_seek (G_SEEKABLE (stream)) &&
         g_seekable_seek (G_SEEKABLE (stream), 0, G_SEEK_SET, NULL, NULL);
}

/* Rewrites the error of a failed parse with the line and byte of the
 * original file. */
void
ks_json_relocate_error (Reader        *r,
                        GInputStream  *stream,
                        gboolean       gzip,
                        GError       **error)
{
  guint64 orig = 0, line = 0;
  gboolean located;

  /* the file is read again, leniently, when it can be (see
   * ks_json_reader_load_stream()) */
  if ((!r->syntax_error && !r->nesting_error && !r->number_error) || error == NULL ||
      (r->lenient_fixable && stream != NULL && G_IS_SEEKABLE (stream) && g_seekable_can_seek (G_SEEKABLE (stream))))
    return;

  /* a number: its first byte (the white space before it is not its) */
  located = stream != NULL && locate_offset (stream, gzip, r->syntax_offset + (r->number_error ? 1 : 0),
                                             &orig, &line);
  if (located && r->number_error && orig > 0)
    orig--;
  g_clear_error (error);
  if (r->number_error && located)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                 _("%s: a number longer than %d bytes at line %" PRIu64 ", byte %" PRIu64),
                 r->name, MAX_NUMBER_LEN, line, orig);
  else if (r->number_error)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                 _("%s: a number longer than %d bytes"), r->name, MAX_NUMBER_LEN);
  else if (r->nesting_error && located)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                 _("%s: JSON nested deeper than %d levels at line %" PRIu64 ", byte %" PRIu64),
                 r->name, MAX_NESTING, line, orig);
  else if (r->nesting_error)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                 _("%s: JSON nested deeper than %d levels"), r->name, MAX_NESTING);
  else if (located)
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                 _("%s: invalid JSON at line %" PRIu64 ", byte %" PRIu64 ": %s"),
                 r->name, line, orig, r->syntax_text);
  else
    g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                 _("%s: invalid JSON: %s"), r->name, r->syntax_text);
}

/* Compressed input is inflated by a worker thread while this one parses:
 * the two halves of the work overlap on machines with two cores. Blocks
 * travel through two queues, full and free, and always come back. A
 * block that chunks are cut from is held by them until their parse has
 * copied their text (ks_json_feed_shared_block()), and comes back
 * through a third queue; the thread is given another in its place. In
 * the event array the blocks go uncompacted to the chunks cut from them
 * as they lie (gz_read_inflated()), and come back the same way. */

#define N_BLOCKS 4
/* From this many threads on the reading thread drops the white space of
 * a .json.gz, not the inflating thread, where the chunks' threads do not
 * (see gz_compaction()). */
#define GZ_COMPACT_READ_THREADS 8

/* Who drops a .json.gz's white space */
typedef enum
{
  GZ_COMPACT_INFLATE,  /* the inflating thread */
  GZ_COMPACT_READ,     /* the reading thread */
  GZ_COMPACT_CHUNKS,   /* the thread that parses each chunk: the event
                        * array is cut as it lies (ks_json_read_inflated()) */
} GzCompact;

typedef struct _GzSource GzSource;

typedef struct
{
  GzSource *src;
  guint8  *data;
  gssize   orig_len;     /* inflated bytes: > 0 data, 0 end, -1 error */
  gsize    len;          /* the same without white space (may be 0) */
  guint    seen;         /* and what ks_json_compact() saw in them */
  gboolean in_string;    /* the text ends inside a string */
  GError  *error;
  guint64  raw_read;     /* compressed bytes read so far */
} Block;

struct _GzSource
{
  GInputStream *stream;
  GCancellable *cancellable;
  KsGzip       *gz;
  guint8       *cbuf;
  gssize        first;       /* bytes already in cbuf, or -1 */
  gboolean      eof;
  gboolean      truncated;
  guint64       raw_read;
  GAsyncQueue  *full;
  GAsyncQueue  *free;
  GAsyncQueue  *returned;    /* blocks that chunks let go of */
  guint         n_made;      /* blocks, by the reading thread */
  gint          stop;
  gint          count_only;  /* past the trace: blocks are inflated, not compacted */
  gboolean      started;     /* the first block is out (it may start with a BOM) */
  gboolean      compacts;    /* this thread drops white space, not the reader */
  gsize         block_size;  /* of text inflated at a time */
  KsJsonCompactState  compact;
  /* this thread's time by phase (KINESCOPE_LOAD_PHASES) */
  KsPhaseClock  t_inflate;
  KsPhaseClock  t_compact;
  KsPhaseClock  t_wait;      /* for a block the parse gave back */
};

/* The last reference to a block's text went (a GBytes' free function,
 * on whichever thread let go of it). */
static void
gz_block_returned (gpointer data)
{
  Block *b = data;

  g_async_queue_push (b->src->returned, b);
}

/* A block for the thread to fill: one that chunks gave back, else new. */
static Block *
gz_spare_block (GzSource *src)
{
  Block *b = g_async_queue_try_pop (src->returned);

  if (b != NULL)
    return b;
  b = g_new0 (Block, 1);
  b->src = src;
  b->data = g_malloc (READ_CHUNK + 16);
  src->n_made++;
  return b;
}

/* Inflates the next block of output; 0 at the end of the data. */
static gssize
gz_source_next (GzSource  *src,
                guint8    *out,
                gsize      cap,
                GError   **error)
{
  gssize n;

  for (;;)
    {
      if (ks_gzip_get_avail_in (src->gz) == 0 && !src->eof)
        {
          gssize got;

          if (src->first >= 0)
            {
              got = src->first;
              src->first = -1;
            }
          else
            {
              got = read_some (src->stream, src->cbuf, READ_CHUNK, src->cancellable, error);
              if (got < 0)
                return -1;
              src->raw_read += got;
            }
          if (got == 0)
            src->eof = TRUE;
          else
            ks_gzip_set_input (src->gz, src->cbuf, got);
        }
      n = ks_gzip_inflate (src->gz, out, cap, error);
      if (n != 0 || src->eof || ks_gzip_get_avail_in (src->gz) > 0)
        break;
    }
  if (n == 0 && !ks_gzip_is_complete (src->gz))
    src->truncated = TRUE;
  return n;
}

/* Drops the white space of @b's inflated bytes in place: the length left. */
static gsize
gz_source_compact (GzSource *src,
                   Block    *b)
{
  gsize bom = src->started ? 0 : ks_json_bom_length (b->data, b->orig_len);

  src->started = TRUE;
  return ks_json_compact (b->data + bom, b->orig_len - bom, (char *)b->data, &src->compact);
}

/* Which thread drops the white space. On several threads the event
 * array is cut as it lies and each chunk compacted by the thread that
 * parses it, as a plain file's: the compaction is spread over the cores
 * instead of being one thread's serial work. Where it is not cut so
 * (KINESCOPE_JSON_CUT=compacted), on few threads the inflating thread
 * has time to spare while the parse keeps the cores busy; on many,
 * inflating alone is about as long as the reading thread's share of a
 * load, and the compaction is better beside the replay there.
 * KINESCOPE_GZ_COMPACT=inflate, =read or =chunks chooses, for
 * measurements. */
static GzCompact
gz_compaction (Reader *r)
{
  const char *env = g_getenv ("KINESCOPE_GZ_COMPACT");

  if (r->parallel == NULL || g_strcmp0 (env, "inflate") == 0)
    return GZ_COMPACT_INFLATE;
  if (g_strcmp0 (env, "read") == 0)
    return GZ_COMPACT_READ;
  if (g_strcmp0 (env, "chunks") == 0 || ks_json_cut_raw_wanted ())
    return GZ_COMPACT_CHUNKS;
  return ks_json_thread_count () < GZ_COMPACT_READ_THREADS ? GZ_COMPACT_INFLATE : GZ_COMPACT_READ;
}

static gpointer
gz_source_thread (gpointer data)
{
  GzSource *src = data;
  KsPhaseClock clock;

  for (;;)
    {
      Block *b;

      ks_phase_start (&clock);
      b = g_async_queue_pop (src->free);
      ks_phase_add (&clock, &src->t_wait);
      if (g_atomic_int_get (&src->stop))
        {
          g_async_queue_push (src->full, b);
          break;
        }
      b->error = NULL;
      ks_phase_start (&clock);
      b->orig_len = gz_source_next (src, b->data, src->block_size, &b->error);
      ks_phase_add (&clock, &src->t_inflate);
      /* White space is dropped here, on this thread's time: yajl then
       * has a fifth less to lex (Kineto indents its JSON). */
      b->len = 0;
      if (src->compacts)
        {
          if (b->orig_len > 0 && !g_atomic_int_get (&src->count_only))
            {
              ks_phase_start (&clock);
              b->len = gz_source_compact (src, b);
              ks_phase_add (&clock, &src->t_compact);
            }
          b->seen = ks_json_take_seen (&src->compact);
          b->in_string = src->compact.in_string;
        }
      /* compressed bytes inflated so far: finer than bytes read */
      b->raw_read = ks_gzip_get_total_in (src->gz);
      g_async_queue_push (src->full, b);
      if (b->orig_len <= 0)
        break;
    }
  return NULL;
}

typedef struct
{
  Reader   *r;
  GzSource *src;
  guint64  *raw_read;
} GzPull;

/* The next inflated block, as it is, for the text cut as it lies (a
 * KsJsonNextBlock): the thread fills another meanwhile. */
static GBytes *
gz_pull_block (gpointer   data,
               GError   **error)
{
  GzPull *pull = data;
  GzSource *src = pull->src;
  KsPhaseClock clock;
  Block *b;

  ks_phase_start (&clock);
  b = g_async_queue_pop (src->full);
  ks_json_parallel_note_input_wait (pull->r, &clock);
  if (b->orig_len <= 0)
    {
      /* the thread's last block */
      if (b->orig_len < 0)
        g_propagate_error (error, g_steal_pointer (&b->error));
      g_async_queue_push (src->free, b);
      return NULL;
    }
  *pull->raw_read = b->raw_read;
  g_async_queue_push (src->free, gz_spare_block (src));
  return g_bytes_new_with_free_func (b->data, b->orig_len, gz_block_returned, b);
}

/* The event array cut as it lies from @b on, each chunk compacted by the
 * thread that parses it (ks_json_read_inflated()); the text the cuts
 * leave, up to where the blocks taken in end, is compacted and fed here.
 * *@ended when the thread's last block was taken in. */
static gboolean
gz_read_inflated (Reader    *r,
                  GzSource  *src,
                  Block     *b,
                  guint64   *raw_read,
                  gboolean  *ended,
                  double     base,
                  double     span,
                  goffset    size,
                  GError   **error)
{
  GzPull pull = { r, src, raw_read };
  KsJsonInflated *t = ks_json_inflated_new (r->orig_offset, gz_pull_block, &pull);
  /* room for the compaction's whole-vector stores past its end */
  g_autofree guint8 *scratch = g_malloc (src->block_size + 64);
  guint64 pos = r->orig_offset, end;
  GError *inflate_error;
  gboolean ok;

  *raw_read = b->raw_read;
  g_async_queue_push (src->free, gz_spare_block (src));
  ks_json_inflated_append (t, g_bytes_new_with_free_func (b->data, b->orig_len, gz_block_returned, b));
  r->stream_state = src->compact;
  ok = ks_json_read_inflated (r, t, &pos, raw_read, base, span, size, error);
  end = ks_json_inflated_get_end (t);
  while (ok && pos < end)
    {
      gsize k = ks_json_inflated_read (t, scratch, MIN (end - pos, src->block_size), pos);

      r->orig_offset += k;
      pos += k;
      /* after the trace the inflated bytes are only counted */
      if (!ks_json_past_value (r))
        {
          guint8 *out = ks_json_block_buffer (r, scratch, k);
          gsize m = ks_json_compact (scratch, k, (char *) out, &r->stream_state);

          ok = ks_json_source_feed (r, out, m, ks_json_take_seen (&r->stream_state),
                                    r->stream_state.in_string, error);
        }
      ok = ok && ks_json_source_progress (r, *raw_read, base, span, size, error);
    }
  src->compact = r->stream_state;
  *ended = ks_json_inflated_ended (t);
  inflate_error = ks_json_inflated_take_error (t);
  if (inflate_error != NULL && ok)
    {
      g_propagate_prefixed_error (error, inflate_error, "%s: ", r->name);
      ok = FALSE;
    }
  else
    g_clear_error (&inflate_error);
  /* the blocks go back as the chunks that hold them are parsed */
  ks_json_inflated_free (t);
  return ok;
}

/* The whole of a gzip stream, inflated as the reader's own thread
 * inflates it; NULL when it is not gzip data, cannot be read, is
 * corrupt or ends early: the reader then reads the file itself, and says
 * what is wrong with it as it always does. */
GBytes *
ks_json_inflate_all (GInputStream *stream,
                     gsize         size_hint,
                     GCancellable *cancellable)
{
  g_autofree guint8 *cbuf = g_malloc (READ_CHUNK);
  g_autoptr(KsGzip) gz = ks_gzip_new ();
  g_autoptr(GByteArray) out = g_byte_array_sized_new (MIN (size_hint, (gsize)G_MAXUINT32));
  GzSource src = { 0 };

  src.stream = stream;
  src.cancellable = cancellable;
  src.gz = gz;
  src.cbuf = cbuf;
  src.first = read_some (stream, cbuf, READ_CHUNK, cancellable, NULL);
  if (src.first <= 0 || !ks_gzip_has_magic (cbuf, src.first))
    return NULL;
  for (;;)
    {
      gssize n;

      /* the same blocks the reader's inflating thread hands on; text
       * past what the trailer promised (a tail of NUL bytes, a bomb) is
       * left to the reader, which reads it without keeping it */
      if (out->len > G_MAXUINT32 - READ_CHUNK || out->len > size_hint + READ_CHUNK)
        return NULL;
      g_byte_array_set_size (out, out->len + READ_CHUNK);
      n = gz_source_next (&src, out->data + out->len - READ_CHUNK, READ_CHUNK, NULL);
      if (n < 0)
        return NULL;
      g_byte_array_set_size (out, out->len - READ_CHUNK + n);
      if (n == 0)
        break;
    }
  if (src.truncated)
    return NULL;
  return g_byte_array_free_to_bytes (g_steal_pointer (&out));
}

/* A new yajl handle for a document: the reader's own, or a parsing
 * worker's (which must lex exactly as the reader does). */
void
ks_json_start_parser (Reader *r)
{
  if (r->yajl != NULL)
    yajl_free (r->yajl);
  r->yajl = yajl_alloc (&r->cbs, NULL, r);
  yajl_config (r->yajl, yajl_allow_trailing_garbage, 1);
  /* invalid UTF-8 is replaced where strings are kept, not refused */
  yajl_config (r->yajl, yajl_dont_validate_strings, 1);
}

/* The warning for what came after the top-level value, which was not
 * read: from its first byte (found by compacting the text again up to
 * there) to the end of the file, or of the inflated text, which the
 * reader counted. */
static void
warn_trailing (Reader       *r,
               GInputStream *stream,
               gboolean      gzip)
{
  guint64 total = r->orig_offset;
  guint64 start, orig = 0, line = 0;

  /* a plain file ends where it ends: its size, not its bytes */
  if (!gzip)
    {
      if (G_IS_SEEKABLE (stream) && g_seekable_can_seek (G_SEEKABLE (stream)) &&
          g_seekable_seek (G_SEEKABLE (stream), 0, G_SEEK_END, NULL, NULL))
        total = MAX (total, (guint64) g_seekable_tell (G_SEEKABLE (stream)));
      else
        {
          g_autofree guint8 *buf = g_malloc (READ_CHUNK);
          gssize n;

          while ((n = g_input_stream_read (stream, buf, READ_CHUNK, r->cancellable, NULL)) > 0)
            total += n;
        }
    }
  /* the byte after the value's last one, plus one: the first byte of
   * what follows, white space skipped */
  if (locate_offset (stream, gzip, r->value_end + 1, &orig, &line) && orig > 0)
    start = orig - 1;
  else
    start = total - MIN (total, r->text_fed - r->value_end);
  start = MIN (start, total);
  ks_trace_builder_add_warning (r->builder,
                                g_dngettext (GETTEXT_PACKAGE,
                                             "%s: %" PRIu64 " byte after the trace was ignored (from byte %" PRIu64 ", line %" PRIu64 ")",
                                             "%s: %" PRIu64 " bytes after the trace were ignored (from byte %" PRIu64 ", line %" PRIu64 ")",
                                             total - start),
                                r->name, total - start, start, line);
}

static gboolean read_document (Reader        *r,
                               GInputStream  *stream,
                               goffset        size,
                               double         base,
                               double         span,
                               GError       **error);

/* Parses one JSON document from @stream into the builder. */
gboolean
ks_json_read_stream (Reader        *r,
                     GInputStream  *stream,
                     goffset        size,
                     double         base,
                     double         span,
                     GError       **error)
{
  gboolean ok = read_document (r, stream, size, base, span, error);

  /* a failed parse leaves chunks on the workers: they end here */
  ks_json_parallel_stop (r);
  return ok;
}

static gboolean
read_document (Reader        *r,
               GInputStream  *stream,
               goffset        size,
               double         base,
               double         span,
               GError       **error)
{
  /* 16 bytes of room for ks_json_compact() */
  g_autofree guint8 *cbuf = g_malloc (READ_CHUNK + 16);
  g_autoptr(KsGzip) gz = NULL;
  GError *local_error = NULL;
  gssize first;
  gboolean truncated = FALSE;
  guint64 raw_read = 0;
  yajl_status status;

  ks_json_reader_reset_file (r);
  ks_json_start_parser (r);
  ks_json_parallel_start (r, size);

  first = read_some (stream, cbuf, READ_CHUNK, r->cancellable, &local_error);
  if (first < 0)
    {
      g_propagate_prefixed_error (error, local_error, "%s: ", r->name);
      return FALSE;
    }
  if (first == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("%s: the file is empty"), r->name);
      return FALSE;
    }
  if (first >= 4 && memcmp (cbuf, "PK\x03\x04", 4) == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("%s: zip archives are not supported; extract the trace first"), r->name);
      return FALSE;
    }

  raw_read = first;
  if (r->progress != NULL)
    ks_progress_set_message (r->progress, _("Reading events…"));

  if (!ks_gzip_has_magic (cbuf, first))
    {
      gssize n = first;
      gsize bom = ks_json_bom_length (cbuf, first);
      gboolean mapped = FALSE;

      while (n > 0)
        {
          gsize m = ks_json_compact (cbuf + bom, n - bom, (char *)cbuf, &r->stream_state);

          bom = 0;
          if (!ks_json_source_feed (r, cbuf, m, ks_json_take_seen (&r->stream_state), r->stream_state.in_string, error))
            {
              ks_json_relocate_error (r, stream, FALSE, error);
              return FALSE;
            }
          r->orig_offset += n;
          if (!ks_json_source_progress (r, raw_read, base, span, size, error))
            return FALSE;
          if (ks_json_past_value (r))
            break;
          if (!mapped)
            {
              mapped = TRUE;
              if (!ks_json_read_mapped (r, stream, cbuf, &raw_read, base, span, size, error))
                return FALSE;
              if (ks_json_past_value (r))
                break;
            }
          n = read_some (stream, cbuf, READ_CHUNK, r->cancellable, &local_error);
          if (n < 0)
            {
              g_propagate_prefixed_error (error, local_error, "%s: ", r->name);
              return FALSE;
            }
          raw_read += n;
        }
      if (!ks_json_parallel_finish (r, error))
        {
          ks_json_relocate_error (r, stream, FALSE, error);
          return FALSE;
        }
    }
  else
    {
      GzSource src = { 0 };
      GThread *thread;
      gboolean ok = TRUE;
      GzCompact compaction;
      guint32 isize;

      /* chunks are sized by the text: at least four times the file */
      if (!ks_gzip_read_isize (stream, size, &isize, &local_error))
        {
          g_propagate_prefixed_error (error, local_error, "%s: ", r->name);
          return FALSE;
        }
      ks_json_parallel_set_size (r, MAX ((goffset) isize, size * 4));
      gz = ks_gzip_new ();
      src.stream = stream;
      src.cancellable = r->cancellable;
      src.gz = gz;
      src.cbuf = cbuf;
      src.first = first;
      src.raw_read = first;
      src.block_size = ks_json_block_size (r);
      compaction = gz_compaction (r);
      src.compacts = compaction == GZ_COMPACT_INFLATE;
      src.full = g_async_queue_new ();
      src.free = g_async_queue_new ();
      src.returned = g_async_queue_new ();
      for (guint i = 0; i < N_BLOCKS; i++)
        g_async_queue_push (src.free, gz_spare_block (&src));
      thread = g_thread_new ("ks-inflate", gz_source_thread, &src);

      for (;;)
        {
          KsPhaseClock clock;
          Block *b;

          ks_phase_start (&clock);
          b = g_async_queue_pop (src.full);
          ks_json_parallel_note_input_wait (r, &clock);

          if (b->orig_len < 0)
            {
              g_propagate_prefixed_error (error, b->error, "%s: ", r->name);
              b->error = NULL;
              ok = FALSE;
              g_async_queue_push (src.free, b);
              break;
            }
          if (b->orig_len == 0)
            {
              g_async_queue_push (src.free, b);
              break;
            }
          if (compaction == GZ_COMPACT_CHUNKS && !ks_json_past_value (r) && ks_json_par_raw_ready (r))
            {
              gboolean ended = FALSE;

              /* the blocks from this one on, as long as chunks are cut */
              ok = gz_read_inflated (r, &src, b, &raw_read, &ended, base, span, size, error);
              b = NULL;
              if (ok && ended)
                break;
            }
          else
            {
              raw_read = b->raw_read;
              r->orig_offset += b->orig_len;
            }
          if (b != NULL && !src.compacts && !ks_json_past_value (r))
            {
              b->len = gz_source_compact (&src, b);
              b->seen = ks_json_take_seen (&src.compact);
              b->in_string = src.compact.in_string;
            }
          /* after the trace the inflated bytes are only counted: the
           * warning says how many were ignored */
          if (b != NULL && !ks_json_past_value (r))
            {
              g_autoptr(GBytes) text = NULL;

              /* the chunks cut from it hold it: the thread fills another */
              g_async_queue_push (src.free, gz_spare_block (&src));
              text = g_bytes_new_with_free_func (b->data, b->len, gz_block_returned, b);
              r->text_fed += b->len;
              ok = ks_json_feed_shared_block (r, text, b->len, b->seen, b->in_string, error);
              b = NULL;
            }
          if (!ok || !ks_json_source_progress (r, raw_read, base, span, size, error))
            {
              ok = FALSE;
              g_atomic_int_set (&src.stop, 1);
              /* a block back, for the thread to find the stop if it waits
               * for one (one that chunks hold comes back elsewhere) */
              g_async_queue_push (src.free, b != NULL ? b : gz_spare_block (&src));
              break;
            }
          if (ks_json_past_value (r))
            g_atomic_int_set (&src.count_only, 1);
          if (b != NULL)
            g_async_queue_push (src.free, b);
        }

      g_thread_join (thread);
      /* whether the inflating thread or the parse sets the pace */
      ks_phase_print ("inflate: inflating", &src.t_inflate);
      ks_phase_print ("inflate: compaction", &src.t_compact);
      ks_phase_print ("inflate: waiting for the parse", &src.t_wait);
      /* every block made comes back: those inflated ahead, and those
       * that chunks still hold, as soon as their parse has copied their
       * text (the workers take every chunk dispatched) */
      for (guint back = 0; back < src.n_made; back++)
        {
          Block *b = g_async_queue_try_pop (src.full);

          if (b == NULL)
            b = g_async_queue_try_pop (src.free);
          if (b == NULL)
            b = g_async_queue_pop (src.returned);
          g_free (b->data);
          g_clear_error (&b->error);
          g_free (b);
        }
      g_async_queue_unref (src.full);
      g_async_queue_unref (src.free);
      g_async_queue_unref (src.returned);

      if (!ok || !ks_json_parallel_finish (r, error))
        {
          ks_json_relocate_error (r, stream, TRUE, error);
          return FALSE;
        }
      if (src.truncated)
        {
          truncated = TRUE;
          ks_trace_builder_add_warning (r->builder,
                                        _("%s: the compressed data ends early (at compressed byte %" PRIu64 "): the file was truncated"),
                                        r->name, ks_gzip_get_total_in (gz));
        }
    }

  if (!ks_json_parse_carry (r, error))
    {
      ks_json_relocate_error (r, stream, gz != NULL, error);
      return FALSE;
    }
  status = yajl_complete_parse (r->yajl);
  if (r->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&r->error));
      return FALSE;
    }
  if (r->top == 0)
    {
      if (truncated)
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     _("%s: the compressed file was truncated before any JSON"), r->name);
      else
        g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     _("%s: not a JSON file (nothing but white space)"), r->name);
      return FALSE;
    }
  if (status != yajl_status_ok)
    {
      if (!truncated)
        ks_trace_builder_add_warning (r->builder,
                                      _("%s: the file was truncated at byte %" PRIu64 "; the events before it were loaded"),
                                      r->name, r->orig_offset);
      truncated = TRUE;
    }

  if (truncated && r->n_events == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: the file was truncated at byte %" PRIu64 " before the first complete event"),
                   r->name, r->orig_offset);
      return FALSE;
    }
  if (r->top == 's')
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: not a trace: the JSON value is neither an object nor a list"), r->name);
      return FALSE;
    }
  if (r->top == '{' && !r->saw_events)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: not a trace: a JSON object without a \"traceEvents\" list "
                     "(an execution trace, a Google Cloud trace or other data?)"),
                   r->name);
      return FALSE;
    }
  if (r->n_events == 0 && r->n_items > 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: not a trace: none of the %" PRIu64 " items of the list is a trace event"),
                   r->name, r->n_items);
      return FALSE;
    }

  if (ks_json_past_value (r))
    warn_trailing (r, stream, gz != NULL);

  ks_json_close_open_slices (r);
  ks_json_link_flows (r);
  ks_json_apply_metadata (r);
  ks_json_report_problems (r);
  if (r->kineto)
    r->any_kineto = TRUE;

  return TRUE;
}
