/* ks-json-inflated.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-json-reader"

/* A .json.gz's inflated text read by offset, as a plain file is read
 * with pread(), so that its event array is cut as it lies
 * (ks-json-parallel-raw.c).
 *
 * The text exists only as the inflating thread makes it, block by
 * block: the reading thread takes the blocks in as it looks for cuts
 * and keeps them from the first byte a chunk parsed again may need on.
 * A chunk cut from them holds the blocks of its range (a reference
 * each), which the thread that parses it copies and lets go of; a block
 * goes back to the inflating thread when the last reference does. */

#include "config.h"

#include <string.h>

#include "ks-json-reader-private.h"

typedef struct
{
  GBytes  *bytes;
  guint64  at;       /* of its first byte in the text */
} Piece;

struct _KsJsonInflated
{
  GArray          *pieces;   /* Piece, in order, without gaps */
  guint64          start;    /* of the first piece */
  guint64          end;      /* past the last */
  gboolean         ended;    /* no block comes after the last */
  GError          *error;    /* ... because of this one */
  KsJsonNextBlock  next;
  gpointer         next_data;
};

static void
clear_piece (gpointer data)
{
  g_bytes_unref (((Piece *) data)->bytes);
}

KsJsonInflated *
ks_json_inflated_new (guint64          offset,
                      KsJsonNextBlock  next,
                      gpointer         next_data)
{
  KsJsonInflated *t = g_new0 (KsJsonInflated, 1);

  t->pieces = g_array_new (FALSE, FALSE, sizeof (Piece));
  g_array_set_clear_func (t->pieces, clear_piece);
  t->start = t->end = offset;
  t->next = next;
  t->next_data = next_data;
  t->ended = next == NULL;
  return t;
}

void
ks_json_inflated_free (KsJsonInflated *t)
{
  if (t == NULL)
    return;
  g_array_unref (t->pieces);
  g_clear_error (&t->error);
  g_free (t);
}

/* @bytes as the text's next block: @t takes the reference. */
void
ks_json_inflated_append (KsJsonInflated *t,
                         GBytes         *bytes)
{
  Piece piece = { bytes, t->end };

  if (g_bytes_get_size (bytes) == 0)
    {
      g_bytes_unref (bytes);
      return;
    }
  t->end += g_bytes_get_size (bytes);
  g_array_append_val (t->pieces, piece);
}

/* Takes blocks in until the text reaches @offset or ends. */
static void
pull_to (KsJsonInflated *t,
         guint64         offset)
{
  while (!t->ended && t->end < offset)
    {
      GBytes *bytes = t->next (t->next_data, &t->error);

      if (bytes == NULL)
        t->ended = TRUE;
      else
        ks_json_inflated_append (t, bytes);
    }
}

/* The index of the piece that holds @offset (the first whose end is
 * past it); pieces->len if none. */
static guint
piece_at (const KsJsonInflated *t,
          guint64               offset)
{
  guint lo = 0, hi = t->pieces->len;

  while (lo < hi)
    {
      guint mid = (lo + hi) / 2;
      const Piece *p = &g_array_index (t->pieces, Piece, mid);

      if (p->at + g_bytes_get_size (p->bytes) <= offset)
        lo = mid + 1;
      else
        hi = mid;
    }
  return lo;
}

gsize
ks_json_inflated_read (KsJsonInflated *t,
                       guint8         *buf,
                       gsize           n,
                       guint64         offset)
{
  gsize done = 0;

  g_return_val_if_fail (offset >= t->start, 0);
  pull_to (t, offset + n);
  for (guint i = piece_at (t, offset); done < n && i < t->pieces->len; i++)
    {
      const Piece *p = &g_array_index (t->pieces, Piece, i);
      gsize size = 0;
      const guint8 *data = g_bytes_get_data (p->bytes, &size);
      gsize from = (gsize) (offset + done - p->at);
      gsize k = MIN (n - done, size - from);

      memcpy (buf + done, data + from, k);
      done += k;
    }
  return done;
}

KsJsonInflated *
ks_json_inflated_hold (KsJsonInflated *t,
                       guint64         from,
                       guint64         to)
{
  KsJsonInflated *held;

  g_return_val_if_fail (from >= t->start, NULL);
  held = ks_json_inflated_new (from, NULL, NULL);
  for (guint i = piece_at (t, from); i < t->pieces->len; i++)
    {
      const Piece *p = &g_array_index (t->pieces, Piece, i);
      Piece copy;

      if (p->at >= to)
        break;
      copy.bytes = g_bytes_ref (p->bytes);
      copy.at = p->at;
      if (held->pieces->len == 0)
        held->start = p->at;
      held->end = p->at + g_bytes_get_size (p->bytes);
      g_array_append_val (held->pieces, copy);
    }
  return held;
}

void
ks_json_inflated_drop (KsJsonInflated *t,
                       guint64         before)
{
  guint i = piece_at (t, before);

  if (i == 0)
    return;
  g_array_remove_range (t->pieces, 0, i);
  t->start = t->pieces->len > 0 ? g_array_index (t->pieces, Piece, 0).at : t->end;
}

guint64
ks_json_inflated_get_end (const KsJsonInflated *t)
{
  return t->end;
}

gboolean
ks_json_inflated_ended (const KsJsonInflated *t)
{
  return t->ended;
}

GError *
ks_json_inflated_take_error (KsJsonInflated *t)
{
  return g_steal_pointer (&t->error);
}
