/* ks-args-decode.c: the text of an encoded args record
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-args"

#include "config.h"

#include <string.h>

#include "ks-args-private.h"

static inline char *
format_int (char    *end,
            guint64  zz)
{
  guint64 m = (zz >> 1) + (zz & 1);
  char *o = end;

  do
    {
      *--o = (char) ('0' + m % 10);
      m /= 10;
    }
  while (m != 0);
  if (zz & 1)
    *--o = '-';
  return o;
}

/* Room for @need more bytes in @out past @at; its text may move. */
static inline char *
out_reserve (GString *out,
             gsize    at,
             gsize    need)
{
  if (at + need >= out->allocated_len)
    {
      out->len = at;
      g_string_set_size (out, at + need);
    }
  return out->str;
}


void
ks_args_store_append (const KsArgsStore *self,
                      guint32            id,
                      GString           *out)
{
  const guint8 *r;
  const guint8 *s, *shape_end;
  guint64 shape;
  gsize at;
  char *o;

  g_return_if_fail (self != NULL && id != 0 && id <= self->len);

  r = get_varint (self->data + id - 1, &shape);
  if (shape == 0)
    {
      guint64 n;

      r = get_varint (r, &n);
      g_string_append_len (out, (const char *) r, n);
      return;
    }

  /* Written in place: appending a piece at a time costs more than the
   * walk. */
  s = self->dict + self->entry_end[shape - 1];
  shape_end = self->dict + self->entry_end[shape];
  at = out->len;
  o = out_reserve (out, at, (shape_end - s) + 64);
  while (s < shape_end)
    {
      const guint8 *run = s;
      guint64 x;

      s = next_placeholder (s, shape_end);
      o = out_reserve (out, at, (s - run) + 24);
      memcpy (o + at, run, s - run);
      at += s - run;
      if (s == shape_end)
        break;
      if (*s++ == SHAPE_NUMBER)
        {
          guint tag;

          r = get_tagged (r, &x, &tag);
          if (tag)
            {
              o = out_reserve (out, at, x);
              memcpy (o + at, r, x);
              at += x;
              r += x;
            }
          else
            {
              char buf[24];
              char *from = format_int (buf + sizeof buf, x);

              /* 24 bytes are reserved past every run */
              memcpy (o + at, from, buf + sizeof buf - from);
              at += buf + sizeof buf - from;
            }
        }
      else
        {
          guint32 from, n;

          r = get_varint (r, &x);
          from = self->entry_end[x - 1];
          n = self->entry_end[x] - from;
          o = out_reserve (out, at, n + 2);
          o[at++] = '"';
          memcpy (o + at, self->dict + from, n);
          at += n;
          o[at++] = '"';
        }
    }
  out->len = at;
  out->str[at] = '\0';
}

const char *
ks_args_store_get (const KsArgsStore *self,
                   guint32            id,
                   GString           *scratch)
{
  g_string_truncate (scratch, 0);
  if (id == 0)
    return NULL;
  ks_args_store_append (self, id, scratch);
  return scratch->str;
}

gsize
ks_args_store_get_memory_size (const KsArgsStore *self)
{
  gsize size = sizeof *self + self->cap + self->dict_cap;

  size += (gsize) self->entries_cap * sizeof (guint32);
  if (self->slots != NULL)
    size += ((gsize) self->mask + 1) * sizeof (Slot) + N_RECENT * sizeof (Recent)
            + N_LAST_SHAPES * sizeof (guint32);
  size += self->scratch.cap * 5 + 16;
  return size;
}
