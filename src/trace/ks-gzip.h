/* ks-gzip.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* A streaming gzip decoder (ISA-L's igzip when available, else zlib).
 * Input is pushed with ks_gzip_set_input() and output pulled with
 * ks_gzip_inflate(); concatenated gzip members are decoded as one
 * stream, as gzip(1) does. */

typedef struct _KsGzip KsGzip;

KsGzip   *ks_gzip_new           (void);
void      ks_gzip_free          (KsGzip        *self);
/* @data must stay valid until ks_gzip_get_avail_in() returns 0. */
void      ks_gzip_set_input     (KsGzip        *self,
                                 const guint8  *data,
                                 gsize          len);
gsize     ks_gzip_get_avail_in  (KsGzip        *self);
/* Decompresses into @out. Returns the number of bytes written (0 when
 * more input is needed or the stream has ended), or -1 with @error set
 * (G_IO_ERROR_INVALID_DATA) when the data is corrupt. */
gssize    ks_gzip_inflate       (KsGzip        *self,
                                 guint8        *out,
                                 gsize          out_len,
                                 GError       **error);
/* TRUE when the last member ended cleanly and nothing but padding or
 * trailing bytes followed: at end of input, FALSE means truncated. */
gboolean  ks_gzip_is_complete   (KsGzip        *self);
/* Compressed bytes consumed so far. */
guint64   ks_gzip_get_total_in  (KsGzip        *self);

/* The ISIZE of the last member of a gzip file of @size bytes read by
 * @stream (the inflated size modulo 4 GiB), 0 when it cannot be read;
 * @stream is left where it was. FALSE when it could not go back. */
gboolean  ks_gzip_read_isize    (GInputStream  *stream,
                                 goffset        size,
                                 guint32       *isize,
                                 GError       **error);

static inline gboolean
ks_gzip_has_magic (const guint8 *data,
                   gsize         len)
{
  return len >= 2 && data[0] == 0x1f && data[1] == 0x8b;
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsGzip, ks_gzip_free)

G_END_DECLS
