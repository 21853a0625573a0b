/* ks-args.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-args"

/* A record is a varint shape number, then one value per placeholder of
 * the shape:
 *
 *   SHAPE_NUMBER (0x01): a number. A canonical integer that fits int64
 *     (-?(0|[1-9][0-9]*)) is its zigzag shifted left one bit; any other
 *     number (1.5, -0, 1e3, a huge one) is (length << 1) | 1 and its
 *     bytes. Both are one varint of up to 65 bits.
 *   SHAPE_STRING (0x02): a string value (not a key), the dictionary
 *     number of the bytes between its quotes, escapes as they were.
 *
 * Compact valid JSON holds no byte below 0x20 outside its strings' escapes,
 * so the placeholders cannot be confused with the shape's own text. Shape
 * number 0 is a raw record: a varint length and the bytes, for whatever
 * the encoder does not take for a JSON object. Shapes and string values
 * share one dictionary of interned byte strings. */

#include "config.h"

#include <string.h>

#include "ks-args.h"
#include "ks-args-private.h"

#ifdef __SSE2__
# include <emmintrin.h>
#endif

/* Texts longer than this are kept raw: an encoding's scratch room is a
 * few times the text, and such args are rare and read whole. */
#define ENCODE_MAX (1024 * 1024)

/* Containers nest at most this deep in an encoded record (one bit each). */
#define DEPTH_MAX 64

/* Bytes that end a run of plain string bytes. */
static const guint8 string_stop[256] = {
  [0x00 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1,
};

static inline gboolean
is_digit (guint8 c)
{
  return c >= '0' && c <= '9';
}

static inline gboolean
is_hex (guint8 c)
{
  return is_digit (c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

/* Grows *@buf to hold @need bytes; FALSE when memory ran out. */
static gboolean
reserve (guint8 **buf,
         gsize   *cap,
         gsize    need)
{
  gsize grown = MAX (*cap, 4096);
  guint8 *p;

  if (need <= *cap)
    return TRUE;
  while (grown < need)
    grown *= 2;
  if (!(p = g_try_realloc (*buf, grown)))
    return FALSE;
  *buf = p;
  *cap = grown;
  return TRUE;
}

KsArgsStore *
ks_args_store_new (void)
{
  KsArgsStore *self = g_new0 (KsArgsStore, 1);

  /* never NULL, even for an empty first entry */
  self->dict_cap = 4096;
  self->dict = g_malloc (self->dict_cap);
  self->entries_cap = 256;
  self->entry_end = g_new (guint32, self->entries_cap);
  self->entry_end[0] = 0;
  self->n_entries = 1;
  self->mask = 511;
  self->slots = g_new0 (Slot, self->mask + 1);
  self->recent = g_new (Recent, N_RECENT);
  self->last_shapes = g_new0 (guint32, N_LAST_SHAPES);
  for (guint i = 0; i < N_RECENT; i++)
    self->recent[i].len = G_MAXUINT32;
  return self;
}

void
ks_args_store_free (KsArgsStore *self)
{
  if (self == NULL)
    return;
  g_free (self->data);
  g_free (self->dict);
  g_free (self->entry_end);
  g_free (self->slots);
  g_free (self->recent);
  g_free (self->last_shapes);
  g_free (self->scratch.shape);
  g_free (self->scratch.vals);
  g_free (self);
}

static gboolean
grow_index (KsArgsStore *self)
{
  guint32 size = (self->mask + 1) * 2;
  Slot *slots;

  if (size == 0 || !(slots = g_try_new0 (Slot, size)))
    return FALSE;
  for (guint32 i = 0; i <= self->mask; i++)
    {
      Slot s = self->slots[i];
      guint32 j;

      if (s.entry == 0)
        continue;
      for (j = s.hash & (size - 1); slots[j].entry != 0; j = (j + 1) & (size - 1))
        ;
      slots[j] = s;
    }
  g_free (self->slots);
  self->slots = slots;
  self->mask = size - 1;
  return TRUE;
}

/* The @n bytes at @p (n <= 8) as one word, the first in the lowest byte
 * and zeros past them, reading no byte past them. */
static inline guint64
short_word (const guint8 *p,
            gsize         n)
{
  guint32 lo, hi;

  if (n >= 4)
    {
      memcpy (&lo, p, 4);
      memcpy (&hi, p + n - 4, 4);
      return lo | (guint64) hi << (8 * (n - 4));
    }
  if (n == 0)
    return 0;
  return p[0] | (guint64) p[n / 2] << (8 * (n / 2)) | (guint64) p[n - 1] << (8 * (n - 1));
}

static guint32 intern_slow (KsArgsStore  *self,
                            const guint8 *p,
                            gsize         n);

/* The dictionary number of @p (@n bytes), added when new; 0 when the
 * dictionary cannot take it (past 4 GiB, or memory ran out). */
static inline guint32
intern (KsArgsStore  *self,
        const guint8 *p,
        gsize         n)
{
  if (n <= 8)
    {
      guint64 w = short_word (p, n);
      Recent *r = &self->recent[(((w * 0x9e3779b97f4a7c15ull) >> 54) ^ n) & (N_RECENT - 1)];
      guint32 e;

      if (r->word == w && r->len == n)
        return r->entry;
      if ((e = intern_slow (self, p, n)) != 0)
        {
          r->word = w;
          r->len = (guint32) n;
          r->entry = e;
        }
      return e;
    }
  return intern_slow (self, p, n);
}

static guint32
intern_slow (KsArgsStore  *self,
             const guint8 *p,
             gsize         n)
{
  guint32 h = hash_bytes (p, n);
  guint32 i = h & self->mask;
  guint32 e;

  for (;; i = (i + 1) & self->mask)
    {
      const Slot *s = &self->slots[i];

      if (s->entry == 0)
        break;
      if (s->hash == h)
        {
          guint32 from = self->entry_end[s->entry - 1];

          if (self->entry_end[s->entry] - from == n && memcmp (self->dict + from, p, n) == 0)
            return s->entry;
        }
    }

  /* Keep the table at most half full; a table that cannot grow is
   * still usable up to three quarters. */
  if ((gsize) self->n_entries * 2 > self->mask
      && !grow_index (self) && (gsize) self->n_entries * 4 > (gsize) self->mask * 3)
    return 0;
  if (self->dict_len + n >= G_MAXUINT32 || self->n_entries == G_MAXUINT32 - 1)
    return 0;
  if (!reserve (&self->dict, &self->dict_cap, self->dict_len + n))
    return 0;
  if (self->n_entries == self->entries_cap)
    {
      guint32 *grown = g_try_renew (guint32, self->entry_end, (gsize) self->entries_cap * 2);

      if (grown == NULL)
        return 0;
      self->entry_end = grown;
      self->entries_cap *= 2;
    }

  memcpy (self->dict + self->dict_len, p, n);
  self->dict_len += n;
  e = self->n_entries++;
  self->entry_end[e] = (guint32) self->dict_len;
  for (i = h & self->mask; self->slots[i].entry != 0; i = (i + 1) & self->mask)
    ;
  self->slots[i].hash = h;
  self->slots[i].entry = e;
  return e;
}

/* The first of 8 bytes that ends a run of plain string bytes, as its
 * high bit; 0 when none does. Borrows only run upwards, past the first. */
static inline guint64
string_stops (guint64 w)
{
  const guint64 ones = G_GUINT64_CONSTANT (0x0101010101010101);
  const guint64 highs = G_GUINT64_CONSTANT (0x8080808080808080);
  guint64 quote = w ^ (ones * '"');
  guint64 backslash = w ^ (ones * '\\');

  return ((quote - ones) & ~quote & highs) | ((backslash - ones) & ~backslash & highs)
         | ((w - ones * 0x20) & ~w & highs);
}

#ifdef __SSE2__
/* string_stops() for 16 bytes, as the bits of a mask. */
static inline int
string_stops16 (__m128i w)
{
  __m128i stops = _mm_or_si128 (_mm_or_si128 (_mm_cmpeq_epi8 (w, _mm_set1_epi8 ('"')),
                                              _mm_cmpeq_epi8 (w, _mm_set1_epi8 ('\\'))),
                                /* below 0x20: unsigned, as signed past a flip of the high bit */
                                _mm_cmplt_epi8 (_mm_xor_si128 (w, _mm_set1_epi8 ((char) 0x80)),
                                                _mm_set1_epi8 ((char) (0x20 ^ 0x80))));

  return _mm_movemask_epi8 (stops);
}
#endif

/* The end of a string whose opening quote is before @p (its closing
 * quote), or NULL when it is not a valid JSON string. */
static inline G_ALWAYS_INLINE const guint8 *
scan_string (const guint8 *p,
             const guint8 *end)
{
  while (p < end)
    {
      guint8 c;

#ifdef __SSE2__
      /* Sixteen bytes at a time: keys are most of the text. */
      while (end - p >= 16)
        {
          int mask = string_stops16 (_mm_loadu_si128 ((const __m128i *) p));

          if (mask != 0)
            {
              p += __builtin_ctz ((unsigned) mask);
              break;
            }
          p += 16;
        }
#endif
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
      /* Eight bytes at a time: keys are most of the text. */
      while (end - p >= 8 && !string_stop[*p])
        {
          guint64 w, stops;

          memcpy (&w, p, 8);
          if ((stops = string_stops (w)) != 0)
            {
              p += __builtin_ctzll (stops) / 8;
              break;
            }
          p += 8;
        }
      if (p == end)
        break;
#endif
      c = *p;
      if (G_LIKELY (!string_stop[c]))
        {
          p++;
          continue;
        }
      if (c == '"')
        return p;
      if (c != '\\' || end - p < 2)
        return NULL;
      c = p[1];
      if (c == 'u')
        {
          if (end - p < 6 || !is_hex (p[2]) || !is_hex (p[3]) || !is_hex (p[4]) || !is_hex (p[5]))
            return NULL;
          p += 6;
        }
      else if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' || c == 'r' || c == 't')
        p += 2;
      else
        return NULL;
    }
  return NULL;
}

/* The first of 8 bytes that is not a digit, as its high bit; 0 when all
 * are digits. */
static inline guint64
digit_stops (guint64 w)
{
  const guint64 ones = G_GUINT64_CONSTANT (0x0101010101010101);

  return ((w - ones * '0') | (w + ones * (0x7f - '9')) | w) & (ones * 0x80);
}

/* The value of 8 ASCII digits, the first in the lowest byte. */
static inline guint64
eight_digits (guint64 w)
{
  const guint64 mask = G_GUINT64_CONSTANT (0x000000ff000000ff);
  const guint64 mul1 = 100 + (G_GUINT64_CONSTANT (1000000) << 32);
  const guint64 mul2 = 1 + (G_GUINT64_CONSTANT (10000) << 32);

  w -= G_GUINT64_CONSTANT (0x3030303030303030);
  w = w * 10 + (w >> 8);
  return (((w & mask) * mul1) + (((w >> 16) & mask) * mul2)) >> 32;
}

/* Past the JSON number at @p, or NULL when there is none; @zz is the
 * zigzag of a canonical integer that fits int64, @is_int whether it is. */
static inline const guint8 *
scan_number (const guint8 *p,
             const guint8 *end,
             gboolean     *is_int,
             guint64      *zz)
{
  gboolean neg = *p == '-';
  const guint8 *digits;
  const guint8 *q;
  gboolean integral = TRUE;
  guint64 m = 0;
  gsize n;

  q = digits = p + neg;
  if (q == end || !is_digit (*q))
    return NULL;
  if (*q == '0')
    {
      q++;
      /* a plain 0 (or -0, which is not canonical) */
      if (q < end && *q != '.' && (*q | 0x20) != 'e')
        {
          *is_int = !neg;
          *zz = 0;
          return q;
        }
    }
  else
    {
#if G_BYTE_ORDER == G_LITTLE_ENDIAN
      /* Up to 8 digits without a branch a digit (most args' numbers) */
      if (end - q >= 8)
        {
          guint64 w, stops;
          guint k;

          memcpy (&w, q, 8);
          stops = digit_stops (w);
          k = stops ? (guint) __builtin_ctzll (stops) / 8 : 8;
          if (k < 8)
            w = (w << (8 - k) * 8) | (G_GUINT64_CONSTANT (0x3030303030303030) >> k * 8);
          m = eight_digits (w);
          q += k;
          /* fewer than 8 digits and no fraction or exponent: an integer that fits */
          if (k < 8 && *q != '.' && (*q | 0x20) != 'e')
            {
              *is_int = TRUE;
              *zz = neg ? 2 * m - 1 : 2 * m;
              return q;
            }
        }
#endif
      /* 19 digits cannot overflow 64 bits */
      for (; q < end && is_digit (*q); q++)
        if (q - digits < 19)
          m = m * 10 + (guint64) (*q - '0');
    }
  n = q - digits;
  if (q < end && *q == '.')
    {
      if (++q == end || !is_digit (*q))
        return NULL;
      while (q < end && is_digit (*q))
        q++;
      integral = FALSE;
    }
  if (q < end && (*q | 0x20) == 'e')
    {
      if (++q < end && (*q == '+' || *q == '-'))
        q++;
      if (q == end || !is_digit (*q))
        return NULL;
      while (q < end && is_digit (*q))
        q++;
      integral = FALSE;
    }

  /* "-0" would come back as "0" */
  *is_int = integral && n <= 19 && !(neg && *digits == '0')
            && (neg ? m <= (G_GUINT64_CONSTANT (1) << 63) : m < (G_GUINT64_CONSTANT (1) << 63));
  if (*is_int)
    *zz = neg ? 2 * m - 1 : 2 * m;
  return q;
}

/* Copies @n bytes from @p to @s, in words where the text goes on far
 * enough: @s has SHAPE_SLACK bytes of room past what it is sized for. */
#define SHAPE_SLACK 8

static inline void
copy_short (guint8       *s,
            const guint8 *p,
            gsize         n,
            const guint8 *end)
{
  if ((gsize) (end - p) < n + 7)
    {
      memcpy (s, p, n);
      return;
    }
  for (gsize i = 0; i < n; i += 8)
    memcpy (s + i, p + i, 8);
}

/* Encodes the JSON object @text into scratch->shape (@shape_len bytes)
 * and scratch->vals (@vals_len bytes) in one pass; FALSE when @text is
 * anything else, or a string value could not be interned. Without a
 * store, a string value is left for later (ks_args_store_add_prepared()):
 * the varints of its offset in @text and its length.
 *
 * A walk from value to value rather than a state machine: after a value
 * comes a comma or a close, after a key its colon and a value, so most
 * branches go the way they went last time. Text with white space is not
 * compact and is kept raw: the readers write args compact, and a check
 * for spaces between every two tokens would cost more than it saves. */
static inline G_ALWAYS_INLINE gboolean
encode (KsArgsStore   *self,
        KsArgsScratch *scratch,
        const guint8  *text,
        gsize          len,
        gsize         *shape_len,
        gsize         *vals_len)
{
  const guint8 *p = text;
  const guint8 *end = text + len;
  const guint8 *q;
  guint8 *s = scratch->shape;
  guint8 *v = scratch->vals;
  guint64 objects = 0;    /* one bit a level, 1 for an object */
  guint depth = 0;

  if (*p != '{')
    return FALSE;

value:
  if (p == end)
    return FALSE;
  switch (*p)
    {
    case '"':
      {
        guint32 e;

        if (!(q = scan_string (p + 1, end)))
          return FALSE;
        *s++ = SHAPE_STRING;
        if (self == NULL)
          {
            v = put_varint (v, (guint64) (p + 1 - text));
            v = put_varint (v, (guint64) (q - p - 1));
          }
        else if ((e = intern (self, p + 1, q - p - 1)) != 0)
          v = put_varint (v, e);
        else
          return FALSE;
        p = q + 1;
      }
      break;

    case '-': case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
      {
        gboolean is_int;
        guint64 zz;

        if (!(q = scan_number (p, end, &is_int, &zz)))
          return FALSE;
        *s++ = SHAPE_NUMBER;
        if (is_int)
          v = put_tagged (v, zz, 0);
        else
          {
            v = put_tagged (v, q - p, 1);
            memcpy (v, p, q - p);
            v += q - p;
          }
        p = q;
      }
      break;

    case '{':
    case '[':
      if (depth == DEPTH_MAX)
        return FALSE;
      objects = (objects << 1) | (*p == '{');
      depth++;
      *s++ = *p++;
          if (p < end && *p == ((objects & 1) ? '}' : ']'))
        goto close;
      if (objects & 1)
        goto key;
      goto value;

    case 't':
    case 'f':
    case 'n':
      {
        gsize n = *p == 'f' ? 5 : 4;

        if ((gsize) (end - p) < n || memcmp (p, *p == 't' ? "true" : *p == 'f' ? "false" : "null", n) != 0)
          return FALSE;
        memcpy (s, p, n);
        s += n;
        p += n;
      }
      break;

    default:
      return FALSE;
    }

after_value:
  if (p == end)
    return FALSE;
  if (*p == ',')
    {
      *s++ = *p++;
      if (objects & 1)
        goto key;
      goto value;
    }
  if (*p != ((objects & 1) ? '}' : ']'))
    return FALSE;

close:
  *s++ = *p++;
  objects >>= 1;
  if (--depth > 0)
    goto after_value;
  if (p != end)
    return FALSE;
  *shape_len = s - scratch->shape;
  *vals_len = v - scratch->vals;
  return TRUE;

key:
#ifdef __SSE2__
  /* A key of up to 13 bytes with its quotes and colon, in one load and
   * one store: the shape is never ahead of the text, so 16 bytes fit. */
  if (end - p >= 16 && *p == '"')
    {
      __m128i w = _mm_loadu_si128 ((const __m128i *) p);
      int mask = string_stops16 (w) & ~1;

      if (mask != 0)
        {
          guint k = __builtin_ctz ((unsigned) mask);

          if (p[k] == '"' && k < 15 && p[k + 1] == ':')
            {
              _mm_storeu_si128 ((__m128i *) s, w);
              s += k + 2;
              p += k + 2;
              goto value;
            }
        }
    }
#endif
  if (p == end || *p != '"' || !(q = scan_string (p + 1, end)))
    return FALSE;
  copy_short (s, p, q + 1 - p, end);
  s += q + 1 - p;
  p = q + 1;
  if (p == end || *p != ':')
    return FALSE;
  *s++ = *p++;
  goto value;

}

/* The number of the shape @shape (@n bytes): most texts have the shape
 * of one a little before them, found by its ends and length without
 * hashing all of it. */
static guint32
intern_shape (KsArgsStore  *self,
              const guint8 *shape,
              gsize         n)
{
  guint64 ends = short_word (shape, MIN (n, 8)) ^ (short_word (shape + n - MIN (n, 8), MIN (n, 8)) << 1);
  guint32 *last = &self->last_shapes[((ends ^ n) * 0x9e3779b97f4a7c15ull) >> 54 & (N_LAST_SHAPES - 1)];
  guint32 e = *last;

  if (e != 0 && self->entry_end[e] - self->entry_end[e - 1] == n
      && memcmp (self->dict + self->entry_end[e - 1], shape, n) == 0)
    return e;
  if ((e = intern (self, shape, n)) != 0)
    *last = e;
  return e;
}


/* Sizes @scratch for a text of @len bytes: FALSE when it cannot be. A
 * shape is never longer than its text; a value takes at most 3.5 times
 * the bytes of text it stands for (a "" of 2 bytes, 5 bytes of number; a
 * -0 of 2 bytes, 3 bytes; a string left for later, 4 bytes for 3). */
static gboolean
scratch_reserve (KsArgsScratch *scratch,
                 gsize          len)
{
  if (len > ENCODE_MAX)
    return FALSE;
  if (len > scratch->cap)
    {
      gsize cap = MAX (scratch->cap * 2, MAX (len, 1024));
      guint8 *shape = g_try_realloc (scratch->shape, cap + SHAPE_SLACK);
      guint8 *vals;

      if (shape != NULL)
        scratch->shape = shape;
      vals = shape != NULL ? g_try_realloc (scratch->vals, cap * 4 + 16) : NULL;
      if (vals != NULL)
        {
          scratch->vals = vals;
          scratch->cap = cap;
        }
    }
  return len <= scratch->cap;
}

/* Appends the record of a shape number (0: a raw record of @text) and
 * its values to the store. */
static gboolean
store_record (KsArgsStore  *self,
              guint32       shape,
              const guint8 *vals,
              gsize         vals_len,
              const char   *text,
              gsize         len,
              guint32      *id)
{
  guint8 head[20];
  guint8 *h = put_varint (head, shape);
  const guint8 *body = vals;
  gsize body_len = vals_len;

  if (shape == 0)
    {
      h = put_varint (h, len);
      body = (const guint8 *) text;
      body_len = len;
    }

  /* Ids are 32-bit; past 4 GiB of records args are not kept. */
  if ((guint64) self->len + (h - head) + body_len >= G_MAXUINT32)
    return TRUE;
  if (!reserve (&self->data, &self->cap, self->len + (h - head) + body_len))
    return FALSE;

  *id = (guint32) self->len + 1;
  memcpy (self->data + self->len, head, h - head);
  self->len += h - head;
  memcpy (self->data + self->len, body, body_len);
  self->len += body_len;
  return TRUE;
}

gboolean
ks_args_store_add (KsArgsStore *self,
                   const char  *text,
                   gsize        len,
                   guint32     *id)
{
  gsize shape_len, vals_len = 0;
  guint32 shape = 0;

  g_return_val_if_fail (self != NULL && self->slots != NULL, FALSE);

  *id = 0;
  if (text == NULL || len == 0)
    return TRUE;

  if (scratch_reserve (&self->scratch, len) &&
      encode (self, &self->scratch, (const guint8 *) text, len, &shape_len, &vals_len))
    shape = intern_shape (self, self->scratch.shape, shape_len);
  return store_record (self, shape, self->scratch.vals, vals_len, text, len, id);
}

KsArgsScratch *
ks_args_scratch_new (void)
{
  return g_new0 (KsArgsScratch, 1);
}

void
ks_args_scratch_free (KsArgsScratch *scratch)
{
  if (scratch == NULL)
    return;
  g_free (scratch->shape);
  g_free (scratch->vals);
  g_free (scratch->strings);
  g_free (scratch);
}

/* A prepared text is its shape, then the number of its string values,
 * then the values in the order of the text: before each string value the
 * length of the numbers since the one before (a varint) and those numbers
 * as they are stored, then the string's place in the text (two varints);
 * the numbers after the last string end it. The thread that adds it then
 * copies the numbers by runs and only interns the strings, without
 * walking the shape or the numbers again. */
gsize
ks_args_prepare (KsArgsScratch *scratch,
                 const char    *text,
                 gsize          len)
{
  guint8 head[10];
  const guint8 *s, *shape_end, *r;
  gsize size, prev = 0;

  if (text == NULL || len == 0 || !scratch_reserve (scratch, len) ||
      !encode (NULL, scratch, (const guint8 *) text, len, &scratch->shape_len, &scratch->vals_len))
    return 0;

  scratch->n_strings = 0;
  shape_end = scratch->shape + scratch->shape_len;
  r = scratch->vals;
  for (s = next_placeholder (scratch->shape, shape_end); s < shape_end; s = next_placeholder (s + 1, shape_end))
    {
      guint64 n, at;
      guint tag;

      if (*s == SHAPE_NUMBER)
        {
          r = get_tagged (r, &n, &tag);
          if (tag)
            r += n;
          continue;
        }
      if (scratch->n_strings == scratch->strings_cap)
        {
          gsize cap = MAX (scratch->strings_cap * 2, 16);
          guint32 *grown = g_try_renew (guint32, scratch->strings, cap * 2);

          if (grown == NULL)
            return 0;
          scratch->strings = grown;
          scratch->strings_cap = cap;
        }
      scratch->strings[2 * scratch->n_strings] = (guint32) (r - scratch->vals);
      r = get_varint (get_varint (r, &at), &n);
      scratch->strings[2 * scratch->n_strings + 1] = (guint32) (r - scratch->vals);
      scratch->n_strings++;
    }

  size = (put_varint (head, scratch->shape_len) - head) + scratch->shape_len
         + (put_varint (head, scratch->n_strings) - head) + scratch->vals_len;
  for (gsize k = 0; k < scratch->n_strings; k++)
    {
      size += put_varint (head, scratch->strings[2 * k] - prev) - head;
      prev = scratch->strings[2 * k + 1];
    }
  return size;
}

void
ks_args_prepared_write (const KsArgsScratch *scratch,
                        guint8              *out)
{
  guint8 *o = put_varint (out, scratch->shape_len);
  gsize prev = 0;

  memcpy (o, scratch->shape, scratch->shape_len);
  o = put_varint (o + scratch->shape_len, scratch->n_strings);
  for (gsize k = 0; k < scratch->n_strings; k++)
    {
      gsize start = scratch->strings[2 * k];
      gsize end = scratch->strings[2 * k + 1];

      o = put_varint (o, start - prev);
      memcpy (o, scratch->vals + prev, end - prev);
      o += end - prev;
      prev = end;
    }
  memcpy (o, scratch->vals + prev, scratch->vals_len - prev);
}

gboolean
ks_args_store_add_prepared (KsArgsStore  *self,
                            const char   *text,
                            gsize         len,
                            const guint8 *prepared,
                            gsize         prepared_len,
                            guint32      *id)
{
  const guint8 *end = prepared + prepared_len;
  const guint8 *shape, *r;
  guint64 shape_len, n_strings;
  guint8 *v;

  g_return_val_if_fail (self != NULL && self->slots != NULL, FALSE);

  if (prepared_len == 0 || !scratch_reserve (&self->scratch, len))
    return ks_args_store_add (self, text, len, id);

  *id = 0;
  shape = get_varint (prepared, &shape_len);
  r = get_varint (shape + shape_len, &n_strings);
  v = self->scratch.vals;

  /* The values in the order of the text (see ks_args_prepare()): its
   * strings interned as the one-step encoding interns them, so that the
   * dictionary, and with it every record, comes out the same. */
  for (guint64 k = 0; k < n_strings; k++)
    {
      guint64 run, at, n;
      guint32 e;

      r = get_varint (r, &run);
      memcpy (v, r, run);
      v += run;
      r = get_varint (get_varint (r + run, &at), &n);
      if ((e = intern (self, (const guint8 *) text + at, n)) == 0)
        return store_record (self, 0, NULL, 0, text, len, id);
      v = put_varint (v, e);
    }
  g_assert (r <= end);
  memcpy (v, r, end - r);
  v += end - r;

  return store_record (self, intern_shape (self, shape, shape_len), self->scratch.vals, v - self->scratch.vals,
                       text, len, id);
}

/* The store's number of entry @n of @local, looked up once a part:
 * strings in the order of the text, then the shape, as the one-step
 * encoding interns them, so that the dictionary comes out the same. */
static inline guint32
map_entry (KsArgsStore       *self,
           const KsArgsLocal *local,
           guint32           *map,
           guint64            n,
           gboolean           is_shape)
{
  const guint8 *p;
  gsize len;

  if (G_LIKELY (map[n] != 0))
    return map[n];
  p = ks_args_local_get_entry (local, (guint32) n, &len);
  map[n] = is_shape ? intern_shape (self, p, len) : intern (self, p, len);
  return map[n];
}

gboolean
ks_args_store_add_local (KsArgsStore       *self,
                         const KsArgsLocal *local,
                         guint32           *map,
                         const char        *text,
                         gsize              len,
                         const guint8      *record,
                         gsize              record_len,
                         guint32           *id)
{
  const guint8 *end, *r;
  guint64 shape, n_strings;
  guint8 *v;

  g_return_val_if_fail (self != NULL && self->slots != NULL, FALSE);

  if (record_len == 0 || !scratch_reserve (&self->scratch, len))
    return ks_args_store_add (self, text, len, id);

  *id = 0;
  end = record + record_len;
  r = get_varint (get_varint (record, &shape), &n_strings);
  v = self->scratch.vals;
  for (guint64 k = 0; k < n_strings; k++)
    {
      guint64 run, n;
      guint32 e;

      r = get_varint (r, &run);
      memcpy (v, r, run);
      v += run;
      r = get_varint (r + run, &n);
      if ((e = map_entry (self, local, map, n, FALSE)) == 0)
        return store_record (self, 0, NULL, 0, text, len, id);
      v = put_varint (v, e);
    }
  g_assert (r <= end);
  memcpy (v, r, end - r);
  v += end - r;

  return store_record (self, map_entry (self, local, map, shape, TRUE), self->scratch.vals,
                       v - self->scratch.vals, text, len, id);
}

void
ks_args_store_seal (KsArgsStore *self)
{
  g_return_if_fail (self != NULL);

  g_clear_pointer (&self->slots, g_free);
  g_clear_pointer (&self->recent, g_free);
  g_clear_pointer (&self->last_shapes, g_free);
  g_clear_pointer (&self->scratch.shape, g_free);
  g_clear_pointer (&self->scratch.vals, g_free);
  self->scratch.cap = 0;
  self->data = g_realloc (self->data, MAX (self->len, 1));
  self->cap = MAX (self->len, 1);
  self->dict = g_realloc (self->dict, MAX (self->dict_len, 1));
  self->dict_cap = MAX (self->dict_len, 1);
  self->entry_end = g_renew (guint32, self->entry_end, self->n_entries);
  self->entries_cap = self->n_entries;
}
