/* ks-json-tokenizer.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-json-reader"

/* Handing compacted text to yajl. A token that a block boundary cuts is
 * held back and given to yajl whole (ks_json_parse_chunk()), which keeps
 * long tokens linear and lets numbers be refused, and strings cut, at a
 * limit; NaN and Infinity become strings, lone escaped surrogates
 * U+FFFD, and a yajl error becomes a GError at its offset. */

#include "config.h"

#include <inttypes.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ks-json-reader-private.h"

/* @s itself when it is valid UTF-8, else a copy (in Reader.utf8_scratch,
 * valid until the next call) with each invalid sequence replaced by
 * U+FFFD, counted for the load's warning. yajl, told not to validate,
 * hands strings over as the file has them. */
const char *
ks_json_valid_utf8 (Reader     *r,
                    const char *s,
                    gsize      *len)
{
  const guint8 *p = (const guint8 *) s;
  gsize n = *len;
  gsize i = ks_json_utf8_valid_prefix (p, n);
  gsize done = 0;
  GString *out = r->utf8_scratch;

  if (i == n)
    return s;
  g_string_truncate (out, 0);
  while (i < n)
    {
      int k = ks_json_utf8_sequence (p + i, n - i);

      g_string_append_len (out, s + done, i - done);
      g_string_append (out, "\xef\xbf\xbd");
      r->n_invalid_utf8++;
      i += -k;
      done = i;
      i += ks_json_utf8_valid_prefix (p + i, n - i);
    }
  g_string_append_len (out, s + done, n - done);
  *len = out->len;
  return out->str;
}

/* g_string_append_len() of @s made valid UTF-8: for strings the reader
 * keeps. Text of pure ASCII, the usual case, needs no look. */
void
ks_json_append_valid_utf8 (Reader     *r,
                           GString    *to,
                           const char *s,
                           gsize       len)
{
  if (!r->text_ascii)
    s = ks_json_valid_utf8 (r, s, &len);
  g_string_append_len (to, s, len);
}

/* Escaped surrogates that do not pair become \ufffd, in place: yajl would
 * write a lone low one as invalid UTF-8, replace a lone high one by "?"
 * and drop the byte after it, and mix a high one with any \u escape that
 * follows. @p holds whole strings. */
static void
fix_escapes (Reader *r,
             guint8 *p,
             gsize   n)
{
  guint8 *end = p + n;
  guint8 *q = memchr (p, '\\', n);

  while (q != NULL)
    {
      guint8 *after = q;
      guint cp, low;

      while (after < end && *after == '\\')
        after++;
      /* an odd run ends in an escape; pairs are escaped backslashes */
      if (((after - q) & 1) != 0 && end - after >= 5 && after[0] == 'u' && ks_json_hex4 (after + 1, &cp)
          && (cp & 0xf800) == 0xd800)
        {
          if (cp < 0xdc00 && end - after >= 11 && after[5] == '\\' && after[6] == 'u'
              && ks_json_hex4 (after + 7, &low) && (low & 0xfc00) == 0xdc00)
            after += 11;
          else
            {
              memcpy (after + 1, "fffd", 4);
              r->n_invalid_utf8++;
              after += 5;
            }
        }
      q = after < end ? memchr (after, '\\', end - after) : NULL;
    }
}

void
ks_json_reader_fail (Reader     *r,
                     const char *format,
                     ...)
{
  g_autofree char *msg = NULL;
  va_list args;

  if (r->error != NULL)
    return;
  va_start (args, format);
  msg = g_strdup_vprintf (format, args);
  va_end (args);
  r->error = g_error_new (G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s: %s", r->name, msg);
}

guint64
ks_json_current_offset (Reader *r)
{
  return r->buf_offset + (r->yajl ? yajl_get_bytes_consumed (r->yajl) : 0);
}

void
ks_json_args_append (Reader       *r,
                     const guint8 *p,
                     gsize         n)
{
  if (r->args_overflow)
    return;
  if (r->args->len + n > MAX_ARGS_LEN)
    {
      r->args_overflow = TRUE;
      return;
    }

  /* the text yajl sees is compact already (see ks_json_compact()) */
  g_string_append_len (r->args, (const char *)p, n);
}

/* Whether the text yajl stopped at is one that lenient_feed() repairs:
 * a control character in a string, or a bracket after a comma. */
static gboolean
lenient_would_fix (Reader       *r,
                   const guint8 *data,
                   gsize         n,
                   const char   *message)
{
  gsize at = yajl_get_bytes_consumed (r->yajl);

  if (strstr (message, "invalid character inside string") != NULL)
    return TRUE;
  /* yajl has taken the bracket: the comma is before it */
  for (gsize k = MIN (at, n); k >= 2 && k + 2 > at; k--)
    if ((data[k - 1] == ']' || data[k - 1] == '}') && data[k - 2] == ',')
      return TRUE;
  return FALSE;
}

static gboolean feed_lenient (Reader        *r,
                              const guint8  *data,
                              gsize          n,
                              gboolean       ascii,
                              GError       **error);

/* Hands @n bytes of compacted text to yajl; they stand for @stream_len
 * bytes of it (a replacement token may differ in length). */
static gboolean
feed (Reader        *r,
      const guint8  *data,
      gsize          n,
      gsize          stream_len,
      gboolean       ascii,
      GError       **error)
{
  yajl_status status;

  if (n == 0)
    {
      r->buf_offset += stream_len;
      return TRUE;
    }
  if (G_UNLIKELY (r->lenient) && data != r->lenient_piece)
    {
      if (stream_len == n)
        return feed_lenient (r, data, n, ascii, error);
      /* a replacement token (NaN as a string): what feed_lenient() held
       * back goes first */
      if (r->held_comma)
        {
          r->held_comma = FALSE;
          r->lenient_piece = (const guint8 *) ",";
          if (!feed (r, r->lenient_piece, 1, 1, TRUE, error))
            return FALSE;
        }
      r->lenient_prev = '"';
      r->lenient_piece = data;
    }
  if (r->in_args)
    r->args_ascii &= ascii;
  r->text_ascii = ascii;
  r->buf = data;
  r->buf_len = n;
  status = yajl_parse (r->yajl, data, n);

  if (status == yajl_status_client_canceled || r->error != NULL)
    {
      g_propagate_error (error, g_steal_pointer (&r->error));
      return FALSE;
    }
  if (status == yajl_status_error)
    {
      guchar *msg = yajl_get_error (r->yajl, 0, data, n);
      g_autofree char *text = g_strstrip (g_strdup ((const char *)msg));
      guint64 offset = ks_json_current_offset (r);

      yajl_free_error (r->yajl, msg);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: invalid JSON at byte %" PRIu64 ": %s"),
                   r->name, offset, text);
      r->syntax_error = TRUE;
      r->syntax_offset = offset;
      r->lenient_fixable = !r->lenient && lenient_would_fix (r, data, n, text);
      g_free (r->syntax_text);
      r->syntax_text = g_steal_pointer (&text);
      return FALSE;
    }

  if (r->args_direct != NULL)
    {
      /* the text is about to be reused */
      g_string_append_len (r->args, r->args_direct, r->args_direct_len);
      r->args_direct = NULL;
    }
  if (r->in_args)
    {
      if (n > r->args_from)
        ks_json_args_append (r, data + r->args_from, n - r->args_from);
      r->args_from = 0;
    }
  r->buf_offset += stream_len;
  return TRUE;
}

/* The escape of a control character inside a string: valid JSON for the
 * args text, the character itself for yajl's callbacks. */
static const char *
control_escape (guint8 c,
                char   buf[8])
{
  switch (c)
    {
    case '\n': return "\\n";
    case '\t': return "\\t";
    case '\r': return "\\r";
    default:
      g_snprintf (buf, 8, "\\u%04x", c);
      return buf;
    }
}

/* feed() of text with what JSON refuses and Chrome accepts repaired: a
 * comma before a closing bracket is dropped and a raw control character
 * in a string escaped. The text goes to yajl in pieces between the
 * repairs, each standing for its own bytes, so that the offsets of
 * errors stay those of the file. Byte by byte: only files that need it
 * are read this way. */
static gboolean
feed_lenient (Reader        *r,
              const guint8  *data,
              gsize          n,
              gboolean       ascii,
              GError       **error)
{
  gsize from = 0;
  /* A string with repairs is gathered here and fed whole when it ends
   * (or the text does): yajl lexes a token that comes in several calls
   * from its start each time, so a piece per repair is quadratic. */
  g_autoptr(GByteArray) gathered = NULL;
  gsize gathered_bytes = 0;   /* the bytes of the file it stands for */

#define PIECE(p, len, stream) \
  G_STMT_START { \
    r->lenient_piece = (const guint8 *) (p); \
    if (!feed (r, (const guint8 *) (p), (len), (stream), ascii, error)) \
      return FALSE; \
  } G_STMT_END
#define FLUSH_GATHERED(upto) \
  G_STMT_START { \
    if (gathered_bytes > 0) \
      { \
        g_byte_array_append (gathered, data + from, (upto) - from); \
        gathered_bytes += (upto) - from; \
        from = (upto); \
        PIECE (gathered->data, gathered->len, gathered_bytes); \
        g_byte_array_set_size (gathered, 0); \
        gathered_bytes = 0; \
      } \
  } G_STMT_END

  for (gsize i = 0; i < n; i++)
    {
      guint8 c = data[i];

      if (r->lenient_in_string)
        {
          if (r->lenient_escape)
            r->lenient_escape = FALSE;
          else if (c == '\\')
            r->lenient_escape = TRUE;
          else if (c == '"')
            {
              r->lenient_in_string = FALSE;
              FLUSH_GATHERED (i + 1);
            }
          else if (c < 0x20)
            {
              char buf[8];
              const char *esc = control_escape (c, buf);

              if (gathered == NULL)
                gathered = g_byte_array_new ();
              g_byte_array_append (gathered, data + from, i - from);
              g_byte_array_append (gathered, (const guint8 *) esc, strlen (esc));
              gathered_bytes += i + 1 - from;
              from = i + 1;
              r->n_control_chars++;
            }
          continue;
        }
      if (r->held_comma)
        {
          r->held_comma = FALSE;
          if (c == ']' || c == '}')
            {
              r->n_trailing_commas++;
              PIECE (NULL, 0, 1);
            }
          else
            PIECE (",", 1, 1);
        }
      if (c == '"')
        r->lenient_in_string = TRUE;
      /* a comma after a comma or an opening bracket is no trailing
       * one: yajl says where it is. The text is compact, so what follows
       * a comma is the next byte; at the end of the text it is held. */
      else if (c == ',' && r->lenient_prev != '[' && r->lenient_prev != '{' && r->lenient_prev != ',')
        {
          if (i + 1 == n)
            {
              PIECE (data + from, i - from, i - from);
              r->held_comma = TRUE;
              from = i + 1;
            }
          else if (data[i + 1] == ']' || data[i + 1] == '}')
            {
              PIECE (data + from, i - from, i - from);
              PIECE (NULL, 0, 1);
              r->n_trailing_commas++;
              from = i + 1;
            }
        }
      r->lenient_prev = c;
    }
  FLUSH_GATHERED (n);
  PIECE (data + from, n - from, n - from);
#undef FLUSH_GATHERED
#undef PIECE
  r->lenient_piece = NULL;
  return TRUE;
}

/* The error for a number (or word) longer than MAX_NUMBER_LEN that
 * starts at @offset of the compacted text; ks_json_relocate_error() adds where. */
static gboolean
fail_long_number (Reader   *r,
                  guint64   offset,
                  GError  **error)
{
  r->number_error = TRUE;
  r->syntax_offset = offset;
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               _("%s: a number longer than %d bytes"), r->name, MAX_NUMBER_LEN);
  return FALSE;
}

static gboolean
feed_word (Reader        *r,
           const guint8  *p,
           gsize          len,
           GError       **error)
{
  const char *s = ks_json_nonfinite_string (p, len);

  if (s != NULL)
    return feed (r, (const guint8 *) s, strlen (s), len, TRUE, error);
  return feed (r, p, len, len, TRUE, error);
}

/* A string token, whole (or as much of it as the file has). */
static gboolean
feed_string (Reader        *r,
             GByteArray    *token,
             gsize          stream_len,
             GError       **error)
{
  if (memchr (token->data, '\\', token->len) != NULL)
    fix_escapes (r, token->data, token->len);
  return feed (r, token->data, token->len, stream_len, ks_json_is_ascii (token->data, token->len), error);
}

/* Text that starts and ends between tokens, with what ks_json_compact() saw
 * in it: escapes are checked, and the rare blocks with NaN, Infinity or
 * a long number are lexed here as well. */
static gboolean
feed_text (Reader        *r,
           guint8        *p,
           gsize          n,
           guint          seen,
           GError       **error)
{
  gboolean ascii = (seen & KS_JSON_SEEN_NON_ASCII) == 0;
  gsize from = 0, i = 0;

  if (seen & KS_JSON_SEEN_BACKSLASH)
    fix_escapes (r, p, n);
  if ((seen & (KS_JSON_SEEN_LETTER | KS_JSON_SEEN_LONG_WORD)) == 0)
    return feed (r, p, n, n, ascii, error);

  while (i < n)
    {
      const char *s;
      gsize j;

      if (p[i] == '"')
        {
          gboolean escaped = FALSE;
          gssize e = ks_json_find_string_end (p + i + 1, n - i - 1, &escaped);

          if (e < 0)
            break;
          i += e + 2;
          continue;
        }
      if (!ks_json_is_word_byte (p[i]))
        {
          i++;
          continue;
        }
      for (j = i + 1; j < n && ks_json_is_word_byte (p[j]); j++)
        ;
      if (j - i > MAX_NUMBER_LEN)
        return feed (r, p + from, i - from, i - from, ascii, error) &&
               fail_long_number (r, r->buf_offset, error);
      s = ks_json_nonfinite_string (p + i, j - i);
      if (s != NULL)
        {
          if (!feed (r, p + from, i - from, i - from, ascii, error) ||
              !feed (r, (const guint8 *) s, strlen (s), j - i, TRUE, error))
            return FALSE;
          from = j;
        }
      i = j;
    }
  return feed (r, p + from, n - from, n - from, ascii, error);
}

/* Empties the held-back token, and lets go of the room a long one took. */
static void
clear_carry (Reader *r)
{
  if (r->carry->len > 4 * READ_CHUNK)
    {
      g_byte_array_unref (r->carry);
      r->carry = g_byte_array_new ();
    }
  else
    g_byte_array_set_size (r->carry, 0);
}

/* The rest of the held-back token from the next block. Returns the bytes
 * of @data it takes (all of them while it goes on), or -1 on an error. */
static gssize
continue_carry (Reader        *r,
                guint8        *data,
                gsize          n,
                GError       **error)
{
  GByteArray *token = r->carry;
  gboolean escaped = FALSE;
  gssize e;
  gsize text, take, length, kept;
  guint64 stream_len;

  if (!r->carry_string)
    {
      gsize end = 0;

      while (end < n && ks_json_is_word_byte (data[end]))
        end++;
      if (token->len + end > MAX_NUMBER_LEN)
        {
          fail_long_number (r, r->carry_offset, error);
          return -1;
        }
      g_byte_array_append (token, data, end);
      if (end == n)
        return n;
      if (!feed_word (r, token->data, token->len, error))
        return -1;
      clear_carry (r);
      return end;
    }

  /* whether the text so far ends in an unpaired backslash */
  text = r->carry_quote + 1;
  for (gsize k = token->len; k > text && token->data[k - 1] == '\\'; k--)
    escaped = !escaped;
  e = ks_json_find_string_end (data, n, &escaped);
  take = e < 0 ? n : (gsize) e + 1;
  length = token->len - text + (e < 0 ? n : (gsize) e);   /* of the text, without quotes */

  if (length <= MAX_STRING_LEN)
    {
      g_byte_array_append (token, data, take);
      if (e < 0)
        return n;
      if (!feed_string (r, token, token->len, error))
        return -1;
      clear_carry (r);
      return take;
    }

  /* Too long: yajl gets the first MAX_STRING_LEN bytes of its text, and
   * the rest, up to the closing quote, is passed over. */
  stream_len = token->len + take;
  g_byte_array_append (token, data, MAX_STRING_LEN - (token->len - text));
  kept = text + ks_json_string_cut_point (token->data + text, token->len - text);
  g_byte_array_set_size (token, kept);
  g_byte_array_append (token, (const guint8 *) "\"", 1);
  r->n_cut_strings++;
  if (!feed_string (r, token, kept, error))
    return -1;
  clear_carry (r);
  r->buf_offset += stream_len - kept;
  if (e < 0)
    {
      r->skip_string = TRUE;
      r->skip_escaped = escaped;
    }
  return take;
}

/* Parses one block of compacted text; @seen and @in_string are what
 * ks_json_compact() saw in it and its state at the end.
 *
 * yajl keeps a token that a block cuts and lexes it again from its start
 * with every block that follows, which made long tokens quadratic (a
 * 64 MB number took 10 s). So the token that the end of a block cuts is
 * held back here (Reader.carry) and handed to yajl whole once it ends:
 * linear, and it lets a number be refused, and a string cut, at a limit. */
gboolean
ks_json_parse_chunk (Reader        *r,
                     guint8        *data,
                     gsize          n,
                     guint          seen,
                     gboolean       in_string,
                     GError       **error)
{
  gboolean is_string = FALSE;
  gsize i = 0, t;

  /* after the top-level value: neither parsed nor kept */
  if (r->value_done)
    {
      r->buf_offset += n;
      return TRUE;
    }
  if (r->skip_string)
    {
      gssize e = ks_json_find_string_end (data, n, &r->skip_escaped);

      if (e < 0)
        {
          r->buf_offset += n;
          return TRUE;
        }
      r->skip_string = FALSE;
      i = e + 1;
      r->buf_offset += i;
    }
  else if (r->carry->len > 0)
    {
      gssize used = continue_carry (r, data, n, error);

      if (used < 0)
        return FALSE;
      if (r->carry->len > 0 || r->skip_string)
        return TRUE;
      i = used;
    }

  t = ks_json_open_token_start (data, i, n, in_string, &is_string);
  /* The byte before a string (a colon, comma or bracket) is held back
   * with it: yajl copies the first token after the end of a text into a
   * buffer of its own, which for a long string would be another copy. */
  r->carry_quote = is_string && t > i && t < n ? 1 : 0;
  t -= r->carry_quote;
  if (!feed_text (r, data + i, t - i, seen, error))
    return FALSE;
  if (t < n && !r->value_done)
    {
      r->carry_string = is_string;
      r->carry_offset = r->buf_offset;
      g_byte_array_append (r->carry, data + t, n - t);
      if (!is_string && r->carry->len > MAX_NUMBER_LEN)
        return fail_long_number (r, r->carry_offset, error);
    }
  return TRUE;
}

/* At the end of the text: the token held back, cut short. */
gboolean
ks_json_parse_carry (Reader  *r,
                     GError **error)
{
  gboolean ok = TRUE;

  if (r->carry->len > 0 && !r->value_done)
    ok = r->carry_string ? feed_string (r, r->carry, r->carry->len, error)
                         : feed_word (r, r->carry->data, r->carry->len, error);
  clear_carry (r);
  /* a comma held back by feed_lenient() at the end of the text */
  if (ok && r->held_comma)
    {
      r->held_comma = FALSE;
      r->lenient_piece = (const guint8 *) ",";
      ok = feed (r, r->lenient_piece, 1, 1, TRUE, error);
    }
  return ok;
}

guint
ks_json_take_seen (KsJsonCompactState *state)
{
  guint seen = state->seen;

  state->seen = 0;
  return seen;
}
