/* ks-json-parallel-shared.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-json-reader"

/* Chunks that take their text from the compacting thread's blocks.
 *
 * Where a plain file's white space is dropped on a thread of its own
 * (ks-json-mapped.c), the reading thread copied every compacted block
 * into the text it cuts: on many threads, where the reading thread sets
 * the pace, that copy was most of its work besides the replay (0.115 of
 * 0.139 CPU s for 1 GB on eight threads). Here a block is cut where it
 * lies: the first chunk cut from it takes the open text before it (the
 * event the last block cut short) as its data, and every chunk keeps a
 * reference to the block and the range of its text in it, which the
 * thread that parses the chunk appends to its data first (on a worker,
 * in parallel). Only what follows the block's last cut is copied here,
 * the start of the next chunk.
 *
 * The chunks are cut at the same text, `},{"`, with the same rule as
 * cut_chunks() (the last cut of the block when it holds less than two
 * chunks, else the first past a chunk's size), and checked as every cut
 * is: a chunk that does not end between two events is parsed again with
 * the next one, from their data, which by then holds the text. */

#include "config.h"

#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* memmem() */
#endif
#include <string.h>

#include "ks-json-parallel-private.h"

/* The cut at or after @from in @data[0, @n), by cut_chunks()'s rule:
 * the last one when the rest holds less than two chunks, else the
 * first; NULL if none. */
static const guint8 *
find_cut (Parallel     *p,
          const guint8 *data,
          gsize         from,
          gsize         n)
{
  if (from >= n)
    return NULL;
  if (n - from < 2 * p->chunk_bytes)
    return ks_json_par_last_cut (data + from, n - from);
  return memmem (data + from, n - from, "},{\"", 4);
}

static Chunk *
shared_chunk (Reader   *r,
              Parallel *p,
              GBytes   *block,
              gsize     from,
              gsize     end,
              guint     seen)
{
  Chunk *c = ks_json_par_chunk_new (p);

  c->offset = p->open_offset;
  c->seen = seen;
  c->shared = g_bytes_ref (block);
  c->shared_from = from;
  c->shared_len = end - from;
  p->n_shared++;
  return c;
}

/* Cuts what it can of @block; FALSE, having done nothing, when no cut
 * lies in it where one is due (the block then goes into the open text
 * as any other). */
gboolean
ks_json_par_feed_shared (Reader   *r,
                         Parallel *p,
                         GBytes   *block,
                         gsize     n,
                         guint     seen,
                         gboolean  in_string)
{
  const guint8 *data = g_bytes_get_data (block, NULL);
  /* a block holds about a chunk's text (ks-json-mapped.c): its last cut
   * ends a chunk from half a chunk on, rather than the next block's */
  gsize due = MAX (p->search_from, p->chunk_bytes / 2);
  const guint8 *hit;
  gsize at, pos;
  Chunk *c;

  if (p->open->len + n < due + 4)
    return FALSE;
  /* the first chunk ends in this block, past where one is due */
  hit = find_cut (p, data, due > p->open->len ? due - p->open->len : 0, n);
  if (hit == NULL)
    return FALSE;
  at = hit - data;

  /* it takes the open text as its data, and its marks (each ends
   * before the block), without a copy */
  c = shared_chunk (r, p, block, 0, at + 1, p->open_seen | seen);
  {
    GByteArray *spare = c->data;
    GArray *spare_marks = c->marks;

    c->data = p->open;
    c->marks = p->open_marks;
    p->open = spare;
    p->open_marks = spare_marks;
  }
  /* the comma between the two events is nobody's */
  p->open_offset += c->data->len + at + 2;
  ks_json_par_dispatch (r, p, c);

  /* the chunks that lie whole in the block */
  for (pos = at + 2; n - pos >= p->chunk_bytes + 4; pos = at + 2)
    {
      hit = find_cut (p, data, pos + p->chunk_bytes - 1, n);
      if (hit == NULL)
        break;
      at = hit - data;
      c = shared_chunk (r, p, block, pos, at + 1, seen);
      p->open_offset += at + 2 - pos;
      ks_json_par_dispatch (r, p, c);
    }

  /* the start of the next chunk */
  {
    Mark m = { n - pos, seen, in_string };

    g_byte_array_set_size (p->open, 0);
    g_byte_array_append (p->open, data + pos, n - pos);
    g_array_set_size (p->open_marks, 0);
    g_array_append_val (p->open_marks, m);
    p->open_seen = seen;
    p->open_in_string = in_string;
    p->search_from = 0;
  }
  return TRUE;
}

/* Before @c is parsed: its text from the block, after its data. */
void
ks_json_par_take_text (Chunk *c)
{
  ks_json_par_raw_take_text (c);
  if (c->shared == NULL)
    return;
  g_byte_array_append (c->data, (const guint8 *) g_bytes_get_data (c->shared, NULL) + c->shared_from,
                       c->shared_len);
  g_clear_pointer (&c->shared, g_bytes_unref);
}

/* The last `},{"` in @data, or NULL. */
const guint8 *
ks_json_par_last_cut (const guint8 *data,
                      gsize         n)
{
  while (n >= 4)
    {
      const guint8 *brace = memrchr (data, '}', n - 3);

      if (brace == NULL)
        return NULL;
      if (brace[1] == ',' && brace[2] == '{' && brace[3] == '"')
        return brace;
      n = brace - data + 3;
    }
  return NULL;
}

gboolean
ks_json_feed_shared_block (Reader   *r,
                           GBytes   *block,
                           gsize     n,
                           guint     seen,
                           gboolean  in_string,
                           GError  **error)
{
  Parallel *p = r->parallel;
  KsPhaseClock clock;
  gboolean cut;

  /* the head and the array's first bytes are looked at where they are
   * copied: those go as any block */
  if (p == NULL || p->mode != MODE_EVENTS || !p->checked_first || !p->share_blocks)
    return ks_json_feed_block (r, (guint8 *) g_bytes_get_data (block, NULL), n, seen, in_string, error);
  ks_phase_start (&clock);
  cut = ks_json_par_feed_shared (r, p, block, n, seen, in_string);
  ks_phase_add (&clock, &p->t_cut);
  if (!cut)
    return ks_json_feed_block (r, (guint8 *) g_bytes_get_data (block, NULL), n, seen, in_string, error);
  return ks_json_par_replay (r, p, p->in_flight, error);
}
