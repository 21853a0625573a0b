/* ks-json-scan.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Pure functions over JSON text: numbers, UTF-8, string ends and the
 * white-space compaction that runs before yajl. None of them keeps
 * state of its own, so each is unit tested (tests/trace/test-json-scan.c).
 *
 * It is one file of over 800 lines because of the white-space compaction:
 * its AVX-512, SSSE3 and scalar paths must give the same bytes for any
 * split of the input, and are easiest to keep so side by side. */

#include "config.h"

#include <math.h>
#include <string.h>

#ifdef __SSE2__
# include <emmintrin.h>
#endif

#include "ks-json-scan.h"

gboolean
ks_json_parse_int64 (const char *s,
                     gsize       len,
                     gint64     *out)
{
  gboolean neg = FALSE;
  guint64 v = 0;
  gsize i = 0;

  if (len == 0)
    return FALSE;
  if (s[0] == '-')
    {
      neg = TRUE;
      i = 1;
      if (len == 1)
        return FALSE;
    }
  if (len - i <= 18)
    {
      /* below 10^18: no overflow check per digit */
      for (; i < len; i++)
        {
          guint d = (guchar)s[i] - '0';

          if (d > 9)
            return FALSE;
          v = v * 10 + d;
        }
      *out = neg ? -(gint64)v : (gint64)v;
      return TRUE;
    }
  for (; i < len; i++)
    {
      guint d = (guchar)s[i] - '0';

      if (d > 9)
        return FALSE;
      if (v > (G_MAXUINT64 - d) / 10)
        return FALSE;
      v = v * 10 + d;
    }
  if (neg)
    {
      if (v > (guint64)G_MAXINT64 + 1)
        return FALSE;
      *out = (gint64)(0 - v);
    }
  else
    {
      if (v > G_MAXINT64)
        return FALSE;
      *out = (gint64)v;
    }
  return TRUE;
}

/* The value of eight ASCII decimal digits at @s, if they are that. */
static inline gboolean
eight_digits (const char *s,
              guint64    *value)
{
  guint64 v = ks_json_load64 ((const guint8 *) s);

  /* every byte 0x30..0x39: high nibble 3, and adding 6 stays below 0x40 */
  if ((v & G_GUINT64_CONSTANT (0xF0F0F0F0F0F0F0F0)) != G_GUINT64_CONSTANT (0x3030303030303030)
      || ((v + G_GUINT64_CONSTANT (0x0606060606060606)) & G_GUINT64_CONSTANT (0xF0F0F0F0F0F0F0F0))
         != G_GUINT64_CONSTANT (0x3030303030303030))
    return FALSE;
  /* little-endian: the first digit is the lowest byte */
  v -= G_GUINT64_CONSTANT (0x3030303030303030);
  v = (v * 10 + (v >> 8)) & G_GUINT64_CONSTANT (0x00FF00FF00FF00FF);
  v = (v * 100 + (v >> 16)) & G_GUINT64_CONSTANT (0x0000FFFF0000FFFF);
  v = (v * 10000 + (v >> 32)) & G_GUINT64_CONSTANT (0x00000000FFFFFFFF);
  *value = v;
  return TRUE;
}

gboolean
ks_json_parse_uint64 (const char *s,
                      gsize       len,
                      guint64    *out)
{
  guint64 v = 0;

  if (len == 0)
    return FALSE;
  for (gsize i = 0; i < len; i++)
    {
      guint d = (guchar)s[i] - '0';

      if (d > 9)
        return FALSE;
      if (i >= 19 && v > (G_MAXUINT64 - d) / 10)
        return FALSE;
      v = v * 10 + d;
    }
  *out = v;
  return TRUE;
}

gboolean
ks_json_parse_double (const char *s,
                      gsize       len,
                      double     *out)
{
  char buf[64];
  char *end = NULL;
  double v;

  if (len == 0 || len >= sizeof buf)
    return FALSE;
  memcpy (buf, s, len);
  buf[len] = 0;
  v = g_ascii_strtod (buf, &end);
  if (end != buf + len || !isfinite (v))
    return FALSE;
  *out = v;
  return TRUE;
}

/* A number written as a string ("25.7", ".75", "246.", "050", "+10.5"),
 * as writers of counters and metadata quote them: a sign, digits with at
 * most one point (at least one digit), and an exponent with digits. Hex,
 * words (inf, nan) and white space are not numbers here. */
gboolean
ks_json_parse_number_text (const char *s,
                           gsize       len,
                           double     *out)
{
  gsize i = 0, digits = 0;

  if (i < len && (s[i] == '+' || s[i] == '-'))
    i++;
  for (; i < len && g_ascii_isdigit (s[i]); i++)
    digits++;
  if (i < len && s[i] == '.')
    for (i++; i < len && g_ascii_isdigit (s[i]); i++)
      digits++;
  if (digits == 0)
    return FALSE;
  if (i < len && (s[i] == 'e' || s[i] == 'E'))
    {
      gsize exp_digits = 0;

      i++;
      if (i < len && (s[i] == '+' || s[i] == '-'))
        i++;
      for (; i < len && g_ascii_isdigit (s[i]); i++)
        exp_digits++;
      if (exp_digits == 0)
        return FALSE;
    }
  return i == len && ks_json_parse_double (s, len, out);
}

/* Microseconds as JSON number text to integer nanoseconds, exactly for
 * plain decimals ("5110156003714.387"), through double otherwise. */
gboolean
ks_json_parse_us (const char *s,
                  gsize       len,
                  gint64     *out_ns)
{
  gboolean neg = FALSE;
  guint64 ip = 0;
  guint64 frac = 0;
  guint nfrac = 0;
  gsize i = 0;
  gsize end;
  gint64 ns;

  if (len > 0 && s[0] == '-')
    {
      neg = TRUE;
      i = 1;
    }
  if (i >= len)
    return FALSE;

  /* leading zeros, then at most 16 digits without overflow checks */
  while (i < len && s[i] == '0')
    i++;
  end = MIN (len, i + 16);
  /* timestamps have 13 or more digits: eight at a time */
  while (i + 8 <= end)
    {
      guint64 eight;

      if (!eight_digits (s + i, &eight))
        break;
      ip = ip * 100000000u + eight;
      i += 8;
    }
  for (; i < end; i++)
    {
      guint d = (guchar)s[i] - '0';

      if (d > 9)
        break;
      ip = ip * 10 + d;
    }
  if (i == end && i < len && (guint)((guchar)s[i] - '0') <= 9)
    goto slow;
  if (ip > (guint64)(G_MAXINT64 - 1000) / 1000)
    goto slow;
  if (i < len && s[i] == '.')
    {
      i++;
      if (i >= len)
        goto slow;
      for (; i < len; i++)
        {
          guint d = (guchar)s[i] - '0';

          if (d > 9)
            break;
          if (nfrac < 4)
            {
              frac = frac * 10 + d;
              nfrac++;
            }
        }
    }
  if (i != len)
    goto slow;

  while (nfrac < 4)
    {
      frac *= 10;
      nfrac++;
    }
  /* frac is in 0.1 ns units: round half up */
  ns = (gint64)(ip * 1000 + (frac + 5) / 10);
  *out_ns = neg ? -ns : ns;
  return TRUE;

slow:
  {
    double v;

    if (!ks_json_parse_double (s, len, &v))
      return FALSE;
    v *= 1000.0;
    if (!(v > -9.2e18 && v < 9.2e18))
      return FALSE;
    *out_ns = (gint64)llround (v);
    return TRUE;
  }
}

/* The length of the well-formed UTF-8 sequence at @p (Unicode's table
 * 3-7: no overlong forms, no surrogates, nothing past U+10FFFF), or
 * minus the length of the ill-formed bytes there that one U+FFFD
 * replaces (its maximal subpart, as Python and browsers count). */
int
ks_json_utf8_sequence (const guint8 *p,
                       gsize         n)
{
  guint8 c = p[0], lo = 0x80, hi = 0xbf;
  int need;

  if (c < 0x80)
    return 1;
  if (c < 0xc2)
    return -1;
  if (c < 0xe0)
    need = 1;
  else if (c < 0xf0)
    {
      need = 2;
      if (c == 0xe0)
        lo = 0xa0;
      else if (c == 0xed)
        hi = 0x9f;
    }
  else if (c < 0xf5)
    {
      need = 3;
      if (c == 0xf0)
        lo = 0x90;
      else if (c == 0xf4)
        hi = 0x8f;
    }
  else
    return -1;

  if (n < 2 || p[1] < lo || p[1] > hi)
    return -1;
  for (int k = 2; k <= need; k++)
    if ((gsize) k >= n || (p[k] & 0xc0) != 0x80)
      return -k;
  return need + 1;
}

/* How many bytes at the start of @p are valid UTF-8. */
gsize
ks_json_utf8_valid_prefix (const guint8 *p,
                           gsize         n)
{
  gsize i = 0;

  while (i < n)
    {
      int k;

      while (i + 8 <= n && (ks_json_load64 (p + i) & G_GUINT64_CONSTANT (0x8080808080808080)) == 0)
        i += 8;
      if (i < n && p[i] < 0x80)
        {
          i++;
          continue;
        }
      if (i >= n)
        break;
      k = ks_json_utf8_sequence (p + i, n - i);
      if (k < 0)
        return i;
      i += k;
    }
  return n;
}

gboolean
ks_json_hex4 (const guint8 *p,
              guint        *out)
{
  guint v = 0;

  for (guint k = 0; k < 4; k++)
    {
      guint c = p[k] | 0x20;
      guint d;

      if (p[k] >= '0' && p[k] <= '9')
        d = p[k] - '0';
      else if (c >= 'a' && c <= 'f')
        d = c - 'a' + 10;
      else
        return FALSE;
      v = v << 4 | d;
    }
  *out = v;
  return TRUE;
}

/* The index of the quote that ends a string whose text goes on at @p, or
 * -1 when @p ends first; *escaped tells whether the byte before @p was an
 * unpaired backslash, and at -1 whether the last byte of @p is. */
gssize
ks_json_find_string_end (const guint8 *p,
                         gsize         n,
                         gboolean     *escaped)
{
  gsize from = 0, i, run = 0;
  const guint8 *q;

  if (*escaped)
    {
      if (n == 0)
        return -1;
      from = 1;
      *escaped = FALSE;
    }
  for (i = from; (q = memchr (p + i, '"', n - i)) != NULL; i = (q - p) + 1)
    {
      gsize k = q - p;

      run = 0;
      while (k - run > from && p[k - run - 1] == '\\')
        run++;
      if ((run & 1) == 0)
        return k;
    }
  run = 0;
  while (n - run > from && p[n - run - 1] == '\\')
    run++;
  *escaped = (run & 1) != 0;
  return -1;
}

/* Where to cut the text of a string of @n bytes at @p, at most @n: not
 * inside an escape or a UTF-8 sequence, nor between the two escapes of a
 * surrogate pair. */
gsize
ks_json_string_cut_point (const guint8 *p,
                          gsize         n)
{
  const guint8 *q;
  gsize i = 0, high_at = G_MAXSIZE;
  guint cp;

  while ((q = memchr (p + i, '\\', n - i)) != NULL)
    {
      gsize b = q - p;
      gsize len = b + 1 < n && p[b + 1] == 'u' ? 6 : 2;

      if (b + len > n)
        {
          n = b;
          break;
        }
      /* a high surrogate: its pair must come along */
      high_at = len == 6 && ks_json_hex4 (p + b + 2, &cp) && cp >= 0xd800 && cp < 0xdc00 ? b : G_MAXSIZE;
      i = b + len;
      if (i >= n)
        break;
    }
  if (high_at != G_MAXSIZE && high_at + 6 == n)
    n = high_at;

  for (gsize k = 1; k <= 3 && k <= n; k++)
    {
      guint8 c = p[n - k];

      if (c < 0x80)
        break;
      if (c >= 0xc0)
        {
          if (k < (gsize) (c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2))
            n -= k;
          break;
        }
    }
  return n;
}

/* NaN, Infinity and -Infinity, which Python's json module writes, as the
 * strings that yajl parses in their place; NULL for other words. */
const char *
ks_json_nonfinite_string (const guint8 *p,
                          gsize         len)
{
  if (len == 3 && memcmp (p, "NaN", 3) == 0)
    return "\"NaN\"";
  if (len == 8 && memcmp (p, "Infinity", 8) == 0)
    return "\"Infinity\"";
  if (len == 9 && memcmp (p, "-Infinity", 9) == 0)
    return "\"-Infinity\"";
  return NULL;
}

#if defined(__SSE2__) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
# define KS_HAVE_SSSE3_DISPATCH 1
# include <immintrin.h>

/* For each 8-bit keep mask, the indices of the kept bytes, packed to the
 * front: one pshufb then moves 8 bytes at once. */
static guint64 compact_index[256];
static gboolean have_ssse3;
static gboolean have_avx512;

void
ks_json_compact_init (void)
{
  static gsize done;

  if (g_once_init_enter (&done))
    {
      for (guint m = 0; m < 256; m++)
        {
          guint64 idx = 0;
          guint k = 0;

          for (guint b = 0; b < 8; b++)
            if (m & (1u << b))
              idx |= (guint64)b << (8 * k++);
          for (; k < 8; k++)
            idx |= (guint64)0x80 << (8 * k);
          compact_index[m] = idx;
        }
      have_ssse3 = __builtin_cpu_supports ("ssse3") && __builtin_cpu_supports ("popcnt");
      have_avx512 = __builtin_cpu_supports ("avx512bw") && __builtin_cpu_supports ("avx512vbmi2")
                    && __builtin_cpu_supports ("pclmul") && __builtin_cpu_supports ("popcnt")
                    /* for comparing the two paths */
                    && g_getenv ("KS_JSON_NO_AVX512") == NULL;
      g_once_init_leave (&done, 1);
    }
}

__attribute__((target ("ssse3,popcnt")))
static char *
compact16_ssse3 (char    *out,
                 __m128i  v,
                 guint    keep)
{
  guint lo = keep & 0xff;
  guint hi = keep >> 8;
  __m128i idx = _mm_set_epi64x ((gint64)(compact_index[hi] + G_GUINT64_CONSTANT (0x0808080808080808)),
                                (gint64)compact_index[lo]);
  __m128i packed = _mm_shuffle_epi8 (v, idx);
  guint n_lo = __builtin_popcount (lo);

  _mm_storel_epi64 ((void *)out, packed);
  _mm_storel_epi64 ((void *)(out + n_lo), _mm_srli_si128 (packed, 8));
  return out + n_lo + __builtin_popcount (hi);
}

/* ks_json_compact() 64 bytes at a time: the same masks as its 16-byte loop,
 * a carry-less multiply for the prefix XOR of the quotes, and VBMI2's
 * byte compress for the packing. Stops before the first block with a
 * backslash (the byte loop handles escapes). Returns the bytes consumed. */
__attribute__((target ("avx512f,avx512bw,avx512vbmi2,pclmul,popcnt")))
static gsize
compact64_avx512 (const guint8  *p,
                  gsize          n,
                  char         **outp,
                  KsJsonCompactState  *st)
{
  const __m512i quote = _mm512_set1_epi8 ('"');
  const __m512i backslash = _mm512_set1_epi8 ('\\');
  /* Bytes are classified by two table lookups, one per nibble, ANDed
   * (as simdjson does): bit 0 tab, newline, carriage return; bit 1 space;
   * bit 2 quote and comma; bit 3 colon; bit 4 brackets and braces. Any
   * other byte outside a string is taken for part of a word: a superset
   * of the number and literal characters, which is all the separator
   * rule below needs (in valid JSON no two words meet). Bit 5 marks N
   * and I, which are part of a word too. */
#define LO_NIBBLES 2, 0, 4, 0, 0, 0, 0, 0, 0, 33, 9, 16, 4, 17, 32, 0
#define HI_NIBBLES 1, 0, 6, 8, 32, 16, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0
  static const guint8 lo_bytes[64] __attribute__ ((aligned (64))) = { LO_NIBBLES, LO_NIBBLES, LO_NIBBLES, LO_NIBBLES };
  static const guint8 hi_bytes[64] __attribute__ ((aligned (64))) = { HI_NIBBLES, HI_NIBBLES, HI_NIBBLES, HI_NIBBLES };
#undef LO_NIBBLES
#undef HI_NIBBLES
  const __m512i lo_table = _mm512_load_si512 ((const void *) lo_bytes);
  const __m512i hi_table = _mm512_load_si512 ((const void *) hi_bytes);
  const __m512i nibble = _mm512_set1_epi8 (0x0f);
  const __m512i white_bits = _mm512_set1_epi8 (3);
  const __m512i class_bits = _mm512_set1_epi8 (31);
  const __m512i letter_bits = _mm512_set1_epi8 (32);
  const __m128i ones = _mm_set1_epi8 (-1);
  guint64 high = 0, letters = 0, long_words = 0;
  gboolean in_string = st->in_string;
  gboolean prev_word = st->prev_word;
  gboolean pending = st->pending;
  guint8 sep = st->sep;
  char *out = *outp;
  gsize i = 0;

  while (i + 64 <= n)
    {
      __m512i v = _mm512_loadu_si512 ((const void *)(p + i));
      __m512i cls;
      guint64 quotes, white, word, inside, white_out, starts, runs, keep;

      /* the hardware prefetcher stops at page boundaries */
      _mm_prefetch ((const char *)p + i + 1024, _MM_HINT_T0);
      if (_mm512_cmpeq_epi8_mask (v, backslash) != 0)
        break;
      quotes = _mm512_cmpeq_epi8_mask (v, quote);
      cls = _mm512_and_si512 (_mm512_shuffle_epi8 (lo_table, _mm512_and_si512 (v, nibble)),
                              _mm512_shuffle_epi8 (hi_table, _mm512_and_si512 (_mm512_srli_epi16 (v, 4), nibble)));
      white = _mm512_test_epi8_mask (cls, white_bits);
      word = ~(guint64) _mm512_test_epi8_mask (cls, class_bits);
      inside = (guint64)_mm_cvtsi128_si64 (_mm_clmulepi64_si128 (_mm_cvtsi64_si128 ((gint64)quotes), ones, 0));
      if (in_string)
        inside = ~inside;
      high |= _mm512_movepi8_mask (v);
      letters |= _mm512_test_epi8_mask (cls, letter_bits) & ~inside;
      long_words |= (word & ~inside) == ~(guint64) 0;
      white_out = white & ~inside;
      keep = ~white_out;
      starts = ((word << 1) | (prev_word || pending ? 1 : 0)) & white_out;
      runs = ((white_out + starts) ^ white_out) & white_out;
      if (pending && (word & 1) != 0)
        *out++ = sep;
      keep |= runs & (word >> 1);
      pending = (runs >> 63) != 0;
      sep = p[i + 63];
      _mm512_storeu_si512 ((void *)out, _mm512_maskz_compress_epi8 (keep, v));
      out += __builtin_popcountll (keep);
      if (__builtin_popcountll (quotes) & 1)
        in_string = !in_string;
      prev_word = (word >> 63) != 0;
      i += 64;
    }

  st->in_string = in_string;
  st->prev_word = prev_word;
  st->pending = pending;
  st->sep = sep;
  st->seen |= (high != 0 ? KS_JSON_SEEN_NON_ASCII : 0) | (letters != 0 ? KS_JSON_SEEN_LETTER : 0) |
              (long_words != 0 ? KS_JSON_SEEN_LONG_WORD : 0);
  *outp = out;
  return i;
}
#else
void
ks_json_compact_init (void)
{
}
#endif

/* Copies JSON text from @p to @out without the white space outside
 * strings, except that white space between two numbers or literals
 * becomes its last byte, so that "1 2" does not become "12" before it
 * has been parsed. Valid JSON never has such a pair, so argument text cut
 * from the result is compact JSON as it is. @state carries the lexer state from one call to the
 * next; any split of the input gives the same output. @out may be @p (it
 * never gets ahead of the input) and needs 16 bytes of room past the
 * result. Returns the bytes written. */
gsize
ks_json_compact (const guint8 *p,
                 gsize         n,
                 char         *out_start,
                 KsJsonCompactState *state)
{
  gboolean in_string = state->in_string;
  gboolean escape = state->escape;
  gboolean prev_word = state->prev_word;
  gboolean pending = state->pending;
  guint8 sep = state->sep;
  guint seen = state->seen;
  guint word_blocks = 0;     /* 16-byte blocks in a row of nothing but a word */
  char *out = out_start;
  gsize i = 0;
#ifdef __SSE2__
  const __m128i quote = _mm_set1_epi8 ('"');
  const __m128i upper_n = _mm_set1_epi8 ('N');
  const __m128i upper_i = _mm_set1_epi8 ('I');
  __m128i high = _mm_setzero_si128 ();   /* the OR of all blocks: their top bits */
  const __m128i backslash = _mm_set1_epi8 ('\\');
  const __m128i space = _mm_set1_epi8 (' ');
  const __m128i newline = _mm_set1_epi8 ('\n');
  const __m128i tab = _mm_set1_epi8 ('\t');
  const __m128i cr = _mm_set1_epi8 ('\r');
  const __m128i dot = _mm_set1_epi8 ('.');
  const __m128i plus = _mm_set1_epi8 ('+');
  const __m128i minus = _mm_set1_epi8 ('-');
  const __m128i lower_bit = _mm_set1_epi8 (0x20);
  const __m128i before_0 = _mm_set1_epi8 ('0' - 1);
  const __m128i after_9 = _mm_set1_epi8 ('9' + 1);
  const __m128i before_a = _mm_set1_epi8 ('a' - 1);
  const __m128i after_z = _mm_set1_epi8 ('z' + 1);
#endif

  if (escape && n > 0)
    {
      if (p[0] >= 0x80)
        seen |= KS_JSON_SEEN_NON_ASCII;
      *out++ = p[i++];
      escape = FALSE;
      prev_word = FALSE;
    }

  while (i < n)
    {
      gsize stop = n;

#ifdef KS_HAVE_SSSE3_DISPATCH
      if (have_avx512 && i + 64 <= n)
        {
          KsJsonCompactState st = { in_string, FALSE, prev_word, pending, sep, seen };
          gsize done = compact64_avx512 (p + i, n - i, &out, &st);

          in_string = st.in_string;
          prev_word = st.prev_word;
          pending = st.pending;
          sep = st.sep;
          seen = st.seen;
          i += done;
          if (done > 0)
            continue;
        }
#endif
#ifdef __SSE2__
      if (i + 16 <= n)
        {
          __m128i v = _mm_loadu_si128 ((const void *)(p + i));

          if (_mm_movemask_epi8 (_mm_cmpeq_epi8 (v, backslash)) == 0)
            {
              /* Bytes > 0x7f are negative to the signed compares, so
               * they never fall in the ASCII ranges. */
              __m128i lower = _mm_or_si128 (v, lower_bit);
              __m128i word = _mm_or_si128 (_mm_or_si128 (_mm_and_si128 (_mm_cmpgt_epi8 (v, before_0),
                                                                        _mm_cmpgt_epi8 (after_9, v)),
                                                         _mm_and_si128 (_mm_cmpgt_epi8 (lower, before_a),
                                                                        _mm_cmpgt_epi8 (after_z, lower))),
                                           _mm_or_si128 (_mm_cmpeq_epi8 (v, dot),
                                                         _mm_or_si128 (_mm_cmpeq_epi8 (v, plus),
                                                                       _mm_cmpeq_epi8 (v, minus))));
              guint word_bits = (guint)_mm_movemask_epi8 (word);
              guint quotes = (guint)_mm_movemask_epi8 (_mm_cmpeq_epi8 (v, quote));
              guint white = (guint)_mm_movemask_epi8 (_mm_or_si128 (_mm_or_si128 (_mm_cmpeq_epi8 (v, space),
                                                                                  _mm_cmpeq_epi8 (v, newline)),
                                                                    _mm_or_si128 (_mm_cmpeq_epi8 (v, tab),
                                                                                  _mm_cmpeq_epi8 (v, cr))));
              guint inside, white_out, starts, runs, keep;
              gboolean odd_quotes;

              /* Without escapes, the bytes inside strings are those after
               * an odd number of quotes: a prefix XOR of the quote bits. */
              inside = quotes;
              inside ^= inside << 1;
              inside ^= inside << 2;
              inside ^= inside << 4;
              inside ^= inside << 8;
              /* bit 15 is the parity of the block's quotes */
              odd_quotes = (inside & 0x8000) != 0;
              if (in_string)
                inside = ~inside;
              high = _mm_or_si128 (high, v);
              if (((guint)_mm_movemask_epi8 (_mm_or_si128 (_mm_cmpeq_epi8 (v, upper_n), _mm_cmpeq_epi8 (v, upper_i)))
                   & ~inside & 0xffff) != 0)
                seen |= KS_JSON_SEEN_LETTER;
              word_blocks = (word_bits & ~inside & 0xffff) == 0xffff ? word_blocks + 1 : 0;
              if (word_blocks >= 4)
                seen |= KS_JSON_SEEN_LONG_WORD;
              white_out = white & ~inside & 0xffff;
              keep = ~white_out & 0xffff;
              /* runs of white space that follow a word byte: adding
               * their first bits carries through each run */
              starts = ((word_bits << 1) | (prev_word || pending ? 1 : 0)) & white_out;
              runs = ((white_out + starts) ^ white_out) & white_out;
              if (pending && (word_bits & 1) != 0)
                *out++ = sep;
              /* the last byte of a run, where a word follows it */
              keep |= runs & (word_bits >> 1);
              pending = (runs & 0x8000) != 0;
              sep = p[i + 15];
              if (keep == 0xffff)
                _mm_storeu_si128 ((void *)out, v), out += 16;
#ifdef KS_HAVE_SSSE3_DISPATCH
              else if (have_ssse3)
                out = compact16_ssse3 (out, v, keep);
#endif
              else
                while (keep != 0)
                  {
                    *out++ = p[i + __builtin_ctz (keep)];
                    keep &= keep - 1;
                  }
              if (odd_quotes)
                in_string = !in_string;
              prev_word = (word_bits & 0x8000) != 0;
              i += 16;
              continue;
            }
          stop = i + 16;
          word_blocks = 0;
        }
#endif

      while (i < stop)
        {
          guint8 c = p[i++];
          gboolean word = ks_json_is_word_byte (c);

          if (c >= 0x80)
            seen |= KS_JSON_SEEN_NON_ASCII;
          if (in_string)
            {
              *out++ = c;
              if (c == '"')
                in_string = FALSE;
              else if (c == '\\')
                {
                  seen |= KS_JSON_SEEN_BACKSLASH;
                  if (i < n)
                    {
                      c = p[i++];
                      *out++ = c;
                      word = ks_json_is_word_byte (c);
                      if (c >= 0x80)
                        seen |= KS_JSON_SEEN_NON_ASCII;
                    }
                  else
                    escape = TRUE;
                }
            }
          else if (c == ' ' || c == '\n' || c == '\r' || c == '\t')
            {
              pending = prev_word || pending;
              sep = c;
            }
          else
            {
              if (pending && word)
                *out++ = sep;
              pending = FALSE;
              *out++ = c;
              if (c == '"')
                in_string = TRUE;
              else if (c == 'N' || c == 'I')
                seen |= KS_JSON_SEEN_LETTER;
            }
          prev_word = word;
        }
    }

  state->in_string = in_string;
  state->escape = escape;
  state->prev_word = prev_word;
#ifdef __SSE2__
  if (_mm_movemask_epi8 (high) != 0)
    seen |= KS_JSON_SEEN_NON_ASCII;
#endif
  state->pending = pending;
  state->sep = sep;
  state->seen = seen;
  return out - out_start;
}

/* Where the token that the end of a block cuts starts, or @n when the
 * block ends between tokens; @from is between tokens. */
gsize
ks_json_open_token_start (const guint8 *p,
                          gsize         from,
                          gsize         n,
                          gboolean      in_string,
                          gboolean     *is_string)
{
  if (in_string)
    {
      /* the last quote that is not escaped opens it */
      for (gsize k = n; k > from; k--)
        if (p[k - 1] == '"')
          {
            gsize run = 0;

            while (k - 1 - run > from && p[k - 2 - run] == '\\')
              run++;
            if ((run & 1) == 0)
              {
                *is_string = TRUE;
                return k - 1;
              }
          }
      /* not in a string after all (invalid JSON): yajl will say so */
      return n;
    }
  if (n > from && ks_json_is_word_byte (p[n - 1]))
    {
      gsize k = n - 1;

      while (k > from && ks_json_is_word_byte (p[k - 1]))
        k--;
      *is_string = FALSE;
      return k;
    }
  return n;
}
