/* ks-gzip.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-gzip"

#include "config.h"

#include <gio/gio.h>
#include <glib/gi18n.h>
#include <inttypes.h>
#include <string.h>

#if HAVE_ISAL
# include <isa-l/igzip_lib.h>
#else
# include <zlib.h>
#endif

#include "ks-gzip.h"

#if HAVE_ISAL
/* Where in a member's header the reader is: ISA-L's own header parser
 * fails on a file name or comment that spans its inputs (a 1 MB FNAME
 * read as a checksum mismatch), so the header is skipped here and ISA-L
 * inflates the deflate data and checks the trailer. */
enum
{
  HDR_FIXED,    /* ID1 ID2 CM FLG MTIME(4) XFL OS */
  HDR_XLEN,
  HDR_EXTRA,
  HDR_NAME,
  HDR_COMMENT,
  HDR_CRC,
  HDR_DONE,
};

#define FLAG_HCRC    0x02
#define FLAG_EXTRA   0x04
#define FLAG_NAME    0x08
#define FLAG_COMMENT 0x10
#endif

struct _KsGzip
{
#if HAVE_ISAL
  struct inflate_state state;
  int           hdr;          /* HDR_* */
  guint8        hdr_flags;
  guint         hdr_left;     /* bytes of the current part still to skip */
  guint8        hdr_fixed[10];
#else
  z_stream      z;
#endif
  const guint8 *in;
  gsize         in_len;
  guint64       total_in;
  gboolean      member_done;   /* between members: the next bytes decide */
  gboolean      finished;      /* trailing non-gzip bytes: ignore the rest */
  gboolean      started;       /* some member has begun */
};

static void
reset_member (KsGzip *self)
{
#if HAVE_ISAL
  isal_inflate_reset (&self->state);
  self->state.crc_flag = ISAL_GZIP_NO_HDR_VER;
  self->hdr = HDR_FIXED;
  self->hdr_left = sizeof self->hdr_fixed;
#else
  inflateReset (&self->z);
#endif
  self->member_done = FALSE;
}

KsGzip *
ks_gzip_new (void)
{
  KsGzip *self = g_new0 (KsGzip, 1);

#if HAVE_ISAL
  isal_inflate_init (&self->state);
  self->state.crc_flag = ISAL_GZIP_NO_HDR_VER;
  self->hdr = HDR_FIXED;
  self->hdr_left = sizeof self->hdr_fixed;
#else
  /* 15 + 16: gzip wrapper only */
  if (inflateInit2 (&self->z, 15 + 16) != Z_OK)
    g_error ("zlib initialisation failed");
#endif

  return self;
}

void
ks_gzip_free (KsGzip *self)
{
  if (self == NULL)
    return;
#if !HAVE_ISAL
  inflateEnd (&self->z);
#endif
  g_free (self);
}

void
ks_gzip_set_input (KsGzip       *self,
                   const guint8 *data,
                   gsize         len)
{
  self->in = data;
  self->in_len = len;
}

gsize
ks_gzip_get_avail_in (KsGzip *self)
{
  return self->in_len;
}

guint64
ks_gzip_get_total_in (KsGzip *self)
{
  return self->total_in;
}

gboolean
ks_gzip_is_complete (KsGzip *self)
{
  return self->finished || self->member_done;
}

static void
consume (KsGzip *self,
         gsize   n)
{
  self->in += n;
  self->in_len -= n;
  self->total_in += n;
}

#if HAVE_ISAL
/* The part of the header after @self->hdr that the flags ask for. */
static void
next_header_part (KsGzip *self)
{
  while (self->hdr != HDR_DONE)
    {
      self->hdr++;
      if ((self->hdr == HDR_XLEN && (self->hdr_flags & FLAG_EXTRA)) ||
          (self->hdr == HDR_NAME && (self->hdr_flags & FLAG_NAME)) ||
          (self->hdr == HDR_COMMENT && (self->hdr_flags & FLAG_COMMENT)) ||
          (self->hdr == HDR_CRC && (self->hdr_flags & FLAG_HCRC)))
        break;
      if (self->hdr == HDR_EXTRA && self->hdr_left > 0)
        break;
    }
  self->hdr_left = self->hdr == HDR_XLEN || self->hdr == HDR_CRC ? 2 : self->hdr_left;
}

/* Skips what of a member's header is in the input; FALSE on a header
 * that is not gzip's. */
static gboolean
skip_header (KsGzip  *self,
             GError **error)
{
  while (self->hdr != HDR_DONE && self->in_len > 0)
    {
      switch (self->hdr)
        {
        case HDR_FIXED:
          self->hdr_fixed[sizeof self->hdr_fixed - self->hdr_left] = self->in[0];
          consume (self, 1);
          if (--self->hdr_left > 0)
            break;
          if (self->hdr_fixed[0] != 0x1f || self->hdr_fixed[1] != 0x8b || self->hdr_fixed[2] != 8)
            {
              g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                           _("corrupt gzip data near compressed byte %" PRIu64), self->total_in);
              return FALSE;
            }
          self->hdr_flags = self->hdr_fixed[3];
          next_header_part (self);
          break;
        case HDR_XLEN:
          /* little-endian: the low byte first */
          if (self->hdr_left == 2)
            self->hdr_fixed[0] = self->in[0];
          else
            self->hdr_fixed[1] = self->in[0];
          consume (self, 1);
          if (--self->hdr_left > 0)
            break;
          self->hdr_left = self->hdr_fixed[0] | self->hdr_fixed[1] << 8;
          next_header_part (self);
          break;
        case HDR_EXTRA:
        case HDR_CRC:
          {
            gsize n = MIN (self->in_len, self->hdr_left);

            consume (self, n);
            self->hdr_left -= n;
            if (self->hdr_left == 0)
              next_header_part (self);
          }
          break;
        case HDR_NAME:
        case HDR_COMMENT:
          {
            const guint8 *nul = memchr (self->in, 0, self->in_len);

            consume (self, nul != NULL ? (gsize) (nul - self->in) + 1 : self->in_len);
            if (nul != NULL)
              next_header_part (self);
          }
          break;
        case HDR_DONE:
        default:
          break;
        }
    }
  return TRUE;
}
#endif

gssize
ks_gzip_inflate (KsGzip  *self,
                 guint8  *out,
                 gsize    out_len,
                 GError **error)
{
  gsize produced = 0;

  while (produced < out_len && self->in_len > 0 && !self->finished)
    {
      gsize before_in = self->in_len;
      gsize made;

      if (self->member_done)
        {
          /* Another member, or padding/garbage after the last one
           * (the second magic byte may still be in the next buffer). */
          if (self->in[0] != 0x1f || (self->in_len >= 2 && self->in[1] != 0x8b))
            {
              self->finished = TRUE;
              break;
            }
          reset_member (self);
        }

      self->started = TRUE;

#if HAVE_ISAL
      if (!skip_header (self, error))
        return -1;
      if (self->hdr != HDR_DONE)
        break;
      {
        int ret;
        gsize chunk = MIN (self->in_len, G_MAXUINT32);

        self->state.next_in = (guint8 *)self->in;
        self->state.avail_in = chunk;
        self->state.next_out = out + produced;
        self->state.avail_out = MIN (out_len - produced, G_MAXUINT32);

        ret = isal_inflate (&self->state);
        if (ret < 0)
          {
            /* where it stopped: what it took of this input, less the
             * bytes still unread in its bit buffer */
            gsize taken = MIN ((gsize)(self->state.next_in - self->in), chunk);
            gsize buffered = MAX (self->state.read_in_length, 0) / 8;

            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                         ret == ISAL_INCORRECT_CHECKSUM
                           ? _("gzip checksum mismatch near compressed byte %" PRIu64)
                           : _("corrupt gzip data near compressed byte %" PRIu64),
                         self->total_in + (taken - MIN (buffered, taken)));
            return -1;
          }
        made = (out_len - produced) - self->state.avail_out;
        consume (self, MIN ((gsize)(self->state.next_in - self->in), chunk));
        produced += made;
        if (self->state.block_state == ISAL_BLOCK_FINISH)
          self->member_done = TRUE;
      }
#else
      {
        int ret;
        gsize chunk = MIN (self->in_len, G_MAXUINT);

        self->z.next_in = (Bytef *)self->in;
        self->z.avail_in = chunk;
        self->z.next_out = out + produced;
        self->z.avail_out = MIN (out_len - produced, G_MAXUINT);

        ret = inflate (&self->z, Z_NO_FLUSH);
        made = (out_len - produced) - self->z.avail_out;
        /* on an error next_in stops at the byte zlib choked on */
        consume (self, chunk - self->z.avail_in);
        produced += made;

        if (ret == Z_STREAM_END)
          self->member_done = TRUE;
        else if (ret != Z_OK && ret != Z_BUF_ERROR)
          {
            g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                         _("corrupt gzip data near compressed byte %" PRIu64),
                         self->total_in);
            return -1;
          }
      }
#endif

      if (made == 0 && before_in == self->in_len && !self->member_done)
        break;
    }

  return produced;
}

gboolean
ks_gzip_read_isize (GInputStream  *stream,
                    goffset        size,
                    guint32       *isize,
                    GError       **error)
{
  GSeekable *seekable = G_IS_SEEKABLE (stream) ? G_SEEKABLE (stream) : NULL;
  guint8 tail[4];
  gsize got = 0;
  goffset at;

  *isize = 0;
  /* a header and a trailer at least */
  if (seekable == NULL || !g_seekable_can_seek (seekable) || size < 18)
    return TRUE;
  at = g_seekable_tell (seekable);
  if (g_seekable_seek (seekable, size - 4, G_SEEK_SET, NULL, NULL) &&
      g_input_stream_read_all (stream, tail, 4, &got, NULL, NULL) && got == 4)
    *isize = tail[0] | tail[1] << 8 | tail[2] << 16 | (guint32) tail[3] << 24;
  return g_seekable_seek (seekable, at, G_SEEK_SET, NULL, error);
}
