/* ks-args-local.c: arguments prepared against a dictionary of their own
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* A part of a file's events (a chunk, on the thread that parses it)
 * numbers the shapes and string values of its args in a dictionary of
 * its own. The store's thread then turns those numbers into its own
 * through a map (ks_args_store_add_local() in ks-args.c): a value that
 * the part repeats is looked up in the store once, not at every event,
 * and the look-ups that remain are those of values new to the part.
 *
 * A record prepared here is the number of its shape, then the number of
 * its string values, then the values in the order of the text: before
 * each string value the length of the numbers since the one before (a
 * varint) and those numbers as they are stored, then the string's
 * number; the numbers after the last string end it. */

#include "config.h"

#include "ks-args-private.h"

typedef struct
{
  guint32 start;          /* in bytes */
  guint32 len;
  guint32 hash;
} Entry;

struct _KsArgsLocal
{
  GByteArray *bytes;      /* the entries' bytes, one after another */
  GArray     *entries;    /* Entry; number n is entries[n - 1] */
  guint32    *slots;      /* open addressing: number, 0 when empty */
  guint32     mask;
};

/* Past this many entries a part prepares no more texts: the store's
 * thread adds them in one step, as it does the others it reads itself. */
#define MAX_ENTRIES (G_MAXUINT32 / 4)

KsArgsLocal *
ks_args_local_new (void)
{
  KsArgsLocal *local = g_new0 (KsArgsLocal, 1);

  local->bytes = g_byte_array_new ();
  local->entries = g_array_new (FALSE, FALSE, sizeof (Entry));
  local->mask = 255;
  local->slots = g_new0 (guint32, local->mask + 1);
  return local;
}

void
ks_args_local_free (KsArgsLocal *local)
{
  if (local == NULL)
    return;
  g_byte_array_unref (local->bytes);
  g_array_unref (local->entries);
  g_free (local->slots);
  g_free (local);
}

void
ks_args_local_clear (KsArgsLocal *local)
{
  g_return_if_fail (local != NULL);

  g_byte_array_set_size (local->bytes, 0);
  g_array_set_size (local->entries, 0);
  memset (local->slots, 0, (local->mask + 1) * sizeof (guint32));
}

guint32
ks_args_local_get_n_entries (const KsArgsLocal *local)
{
  g_return_val_if_fail (local != NULL, 0);

  return local->entries->len;
}

const guint8 *
ks_args_local_get_entry (const KsArgsLocal *local,
                         guint32            n,
                         gsize             *len)
{
  const Entry *e;

  g_return_val_if_fail (local != NULL && n >= 1 && n <= local->entries->len, NULL);

  e = &g_array_index (local->entries, Entry, n - 1);
  *len = e->len;
  return local->bytes->data + e->start;
}

static void
grow (KsArgsLocal *local)
{
  guint32 mask = local->mask * 2 + 1;

  g_free (local->slots);
  local->slots = g_new0 (guint32, mask + 1);
  local->mask = mask;
  for (guint32 n = 1; n <= local->entries->len; n++)
    {
      guint32 i = g_array_index (local->entries, Entry, n - 1).hash & mask;

      while (local->slots[i] != 0)
        i = (i + 1) & mask;
      local->slots[i] = n;
    }
}

/* The number of @p (@n bytes) in @local, added when new; 0 when the
 * part is full. */
static guint32
intern (KsArgsLocal  *local,
        const guint8 *p,
        gsize         n)
{
  guint32 h = hash_bytes (p, n);
  guint32 i;
  Entry e;

  for (i = h & local->mask; local->slots[i] != 0; i = (i + 1) & local->mask)
    {
      const Entry *o = &g_array_index (local->entries, Entry, local->slots[i] - 1);

      if (o->hash == h && o->len == n && memcmp (local->bytes->data + o->start, p, n) == 0)
        return local->slots[i];
    }
  if (local->entries->len >= MAX_ENTRIES || (guint64) local->bytes->len + n >= G_MAXUINT32)
    return 0;
  e.start = local->bytes->len;
  e.len = (guint32) n;
  e.hash = h;
  g_byte_array_append (local->bytes, p, n);
  g_array_append_val (local->entries, e);
  local->slots[i] = local->entries->len;
  /* at most half full */
  if ((guint64) local->entries->len * 2 > local->mask)
    grow (local);
  return local->entries->len;
}

gsize
ks_args_local_prepare (KsArgsLocal   *local,
                       KsArgsScratch *scratch,
                       const char    *text,
                       gsize          len,
                       GByteArray    *out)
{
  gsize at = out->len, prev = 0;
  guint32 shape;
  guint8 *o;

  g_return_val_if_fail (local != NULL && scratch != NULL && out != NULL, 0);

  if (ks_args_prepare (scratch, text, len) == 0)
    return 0;
  if ((shape = intern (local, scratch->shape, scratch->shape_len)) == 0)
    return 0;

  /* the values less the strings' places, and at most 10 bytes of run
   * length and 5 of number a string, and the head */
  g_byte_array_set_size (out, at + 20 + scratch->vals_len + scratch->n_strings * 15);
  o = put_varint (out->data + at, shape);
  o = put_varint (o, scratch->n_strings);
  for (gsize k = 0; k < scratch->n_strings; k++)
    {
      gsize start = scratch->strings[2 * k];
      const guint8 *r = scratch->vals + start;
      guint64 from, n;
      guint32 e;

      r = get_varint (get_varint (r, &from), &n);
      if ((e = intern (local, (const guint8 *) text + from, n)) == 0)
        {
          g_byte_array_set_size (out, at);
          return 0;
        }
      o = put_varint (o, start - prev);
      memcpy (o, scratch->vals + prev, start - prev);
      o = put_varint (o + (start - prev), e);
      prev = scratch->strings[2 * k + 1];
    }
  memcpy (o, scratch->vals + prev, scratch->vals_len - prev);
  o += scratch->vals_len - prev;
  g_byte_array_set_size (out, o - out->data);
  return out->len - at;
}
