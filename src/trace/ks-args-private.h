/* ks-args-private.h: the encoded argument store's layout, shared by its
 * encoding side (ks-args.c) and its decoding side (ks-args-decode.c)
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <string.h>

#include "ks-args.h"

/* The placeholders of a shape (see the record format in ks-args.c) */
#define SHAPE_NUMBER 0x01
#define SHAPE_STRING 0x02

typedef struct
{
  guint32 hash;
  guint32 entry;    /* 0 when the slot is empty */
} Slot;

/* A string of at most 8 bytes, as one word: most string values are
 * short ("float", "", "1"), and a word compares at once. */
typedef struct
{
  guint64 word;
  guint32 len;          /* G_MAXUINT32 when the slot is empty */
  guint32 entry;
} Recent;

#define N_RECENT 1024
#define N_LAST_SHAPES 1024

/* Room for one encoding: its shape and its values. */
struct _KsArgsScratch
{
  guint8  *shape;
  guint8  *vals;
  gsize    cap;           /* bytes of text it is sized for */
  gsize    shape_len;     /* of the last ks_args_prepare() */
  gsize    vals_len;
  guint32 *strings;       /* its string values: start and end in vals */
  gsize    n_strings;
  gsize    strings_cap;   /* pairs */
};

struct _KsArgsStore
{
  guint8  *data;          /* records; an id is an offset + 1 */
  gsize    len;
  gsize    cap;

  guint8  *dict;          /* the dictionary's bytes, entry after entry */
  gsize    dict_len;
  gsize    dict_cap;
  guint32 *entry_end;     /* entry e is dict[entry_end[e - 1], entry_end[e]) */
  guint32  n_entries;     /* entry 0 is the empty string, never looked up */
  guint32  entries_cap;

  Slot    *slots;         /* open addressing over the entries; NULL once sealed */
  Recent  *recent;        /* short strings seen last, before the table */
  guint32 *last_shapes;   /* by a shape's ends and length: its number */
  guint32  mask;

  KsArgsScratch scratch;  /* of one encoding */
};

static inline guint8 *
put_varint (guint8  *o,
            guint64  v)
{
  while (v >= 0x80)
    {
      *o++ = (guint8) (v | 0x80);
      v >>= 7;
    }
  *o++ = (guint8) v;
  return o;
}

static inline const guint8 *
get_varint (const guint8 *r,
            guint64      *v)
{
  guint64 x = 0;
  guint shift = 0;
  guint8 b;

  do
    {
      b = *r++;
      x |= (guint64) (b & 0x7f) << shift;
      shift += 7;
    }
  while (b & 0x80);
  *v = x;
  return r;
}

/* (v << 1) | tag as a varint: v may use all 64 bits. */
static inline guint8 *
put_tagged (guint8  *o,
            guint64  v,
            guint    tag)
{
  guint8 b = (guint8) (((v & 0x3f) << 1) | tag);

  v >>= 6;
  if (v == 0)
    {
      *o++ = b;
      return o;
    }
  *o++ = b | 0x80;
  return put_varint (o, v);
}

static inline const guint8 *
get_tagged (const guint8 *r,
            guint64      *v,
            guint        *tag)
{
  guint8 b = *r++;

  *tag = b & 1;
  *v = (b >> 1) & 0x3f;
  if (b & 0x80)
    {
      guint64 high;

      r = get_varint (r, &high);
      *v |= high << 6;
    }
  return r;
}

/* Eight bytes at a time; the table only needs its buckets spread. */
static inline guint32
hash_bytes (const guint8 *p,
            gsize         n)
{
  guint64 h = 0x9e3779b97f4a7c15ull ^ n;
  guint64 w = 0;

  if (n >= 8)
    {
      const guint8 *last = p + n - 8;

      /* the multiplications are independent of each other: no chain */
      for (; p < last; p += 8)
        {
          memcpy (&w, p, 8);
          h = ((h << 27) | (h >> 37)) ^ (w * 0xff51afd7ed558ccdull);
        }
      /* the last 8 bytes, overlapping what came before: the length is in h */
      memcpy (&w, last, 8);
    }
  else if (n >= 4)
    {
      guint32 lo, hi;

      memcpy (&lo, p, 4);
      memcpy (&hi, p + n - 4, 4);
      w = lo | (guint64) hi << 32;
    }
  else if (n > 0)
    w = p[0] | (guint64) p[n / 2] << 8 | (guint64) p[n - 1] << 16;
  h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 32;
  return (guint32) h;
}

/* Where the next placeholder of the shape [@s, @shape_end) is, or
 * @shape_end: eight bytes at a time. */
static inline const guint8 *
next_placeholder (const guint8 *s,
                  const guint8 *shape_end)
{
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
  const guint64 ones = G_GUINT64_CONSTANT (0x0101010101010101);

  while (shape_end - s >= 8)
    {
      guint64 w, stops;

      memcpy (&w, s, 8);
      if ((stops = (w - ones * (SHAPE_STRING + 1)) & ~w & (ones * 0x80)) != 0)
        return s + __builtin_ctzll (stops) / 8;
      s += 8;
    }
#endif
  while (s < shape_end && *s > SHAPE_STRING)
    s++;
  return s;
}
