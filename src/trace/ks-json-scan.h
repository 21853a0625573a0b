/* ks-json-scan.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <string.h>

#include <glib.h>

G_BEGIN_DECLS

/* What ks_json_compact() saw, for the slower checks that only some blocks
 * need (see feed_text()). */
enum
{
  KS_JSON_SEEN_NON_ASCII = 1 << 0,   /* a byte above 0x7f */
  KS_JSON_SEEN_BACKSLASH = 1 << 1,   /* an escape in a string */
  KS_JSON_SEEN_LETTER    = 1 << 2,   /* N or I outside strings: NaN, Infinity */
  KS_JSON_SEEN_LONG_WORD = 1 << 3,   /* 64 bytes of one number or word */
};

/* Lexer state of ks_json_compact() between calls. */
typedef struct
{
  gboolean in_string;
  gboolean escape;
  gboolean prev_word;   /* the last byte was part of a number or literal */
  gboolean pending;     /* in white space after one: a separator if a word follows */
  guint8   sep;         /* the last byte of that white space */
  guint8   seen;        /* SEEN_*, gathered until the caller clears them */
} KsJsonCompactState;

gboolean     ks_json_parse_int64       (const char         *s,
                                        gsize               len,
                                        gint64             *out);
gboolean     ks_json_parse_uint64      (const char         *s,
                                        gsize               len,
                                        guint64            *out);
gboolean     ks_json_parse_double      (const char         *s,
                                        gsize               len,
                                        double             *out);
gboolean     ks_json_parse_number_text (const char         *s,
                                        gsize               len,
                                        double             *out);
gboolean     ks_json_parse_us          (const char         *s,
                                        gsize               len,
                                        gint64             *out_ns);
int          ks_json_utf8_sequence     (const guint8       *p,
                                        gsize               n);
gsize        ks_json_utf8_valid_prefix (const guint8       *p,
                                        gsize               n);
gboolean     ks_json_hex4              (const guint8       *p,
                                        guint              *out);
gssize       ks_json_find_string_end   (const guint8       *p,
                                        gsize               n,
                                        gboolean           *escaped);
gsize        ks_json_string_cut_point  (const guint8       *p,
                                        gsize               n);
const char  *ks_json_nonfinite_string  (const guint8       *p,
                                        gsize               len);
void         ks_json_compact_init      (void);
gsize        ks_json_compact           (const guint8       *p,
                                        gsize               n,
                                        char               *out_start,
                                        KsJsonCompactState *state);
gsize        ks_json_open_token_start  (const guint8       *p,
                                        gsize               from,
                                        gsize               n,
                                        gboolean            in_string,
                                        gboolean           *is_string);

/* Inline: the reader calls these per byte or per key. */

/* Unaligned little-endian loads. */
static inline guint64
ks_json_load64 (const guint8 *p)
{
  guint64 v;

  memcpy (&v, p, 8);
  return v;
}

static inline guint32
ks_json_load32 (const guint8 *p)
{
  guint32 v;

  memcpy (&v, p, 4);
  return v;
}

static inline gboolean
ks_json_is_ascii (const guint8 *p,
          gsize         n)
{
  guint64 any = 0;
  gsize i = 0;

  for (; i + 8 <= n; i += 8)
    any |= ks_json_load64 (p + i);
  for (; i < n; i++)
    any |= p[i];
  return (any & G_GUINT64_CONSTANT (0x8080808080808080)) == 0;
}

static inline gboolean
ks_json_is_word_byte (guint8 c)
{
  return g_ascii_isalnum (c) || c == '.' || c == '+' || c == '-';
}

/* The length of a UTF-8 byte order mark at @p (some editors and tools
 * write one): skipped. */
static inline gsize
ks_json_bom_length (const guint8 *p,
            gsize         n)
{
  return n >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf ? 3 : 0;
}

G_END_DECLS
