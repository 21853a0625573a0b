/* ks-json-parallel-worker.c: the parallel JSON reader's workers: each
 * parses a chunk of the event array into events kept in place, with the
 * chunk's own string numbers, for the main side to replay in order.
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-json-reader"

#include "config.h"

#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* memmem() */
#endif
#include <string.h>

#include "ks-json-parallel-private.h"

static guint32
hash_bytes (const char *s,
            gsize       len)
{
  guint32 h = 2166136261u;

  for (gsize i = 0; i < len; i++)
    h = (h ^ (guint8) s[i]) * 16777619u;
  return h;
}

static void
grow_slots (Chunk *c)
{
  guint32 n = c->n_slots ? c->n_slots * 2 : 256;

  g_free (c->slots);
  c->slots = g_new0 (guint32, n);
  c->n_slots = n;
  for (guint32 id = 1; id <= c->local->len; id++)
    {
      guint32 i = g_array_index (c->local, LocalString, id - 1).hash & (n - 1);

      while (c->slots[i] != 0)
        i = (i + 1) & (n - 1);
      c->slots[i] = id;
    }
}

/* ks_json_intern() on a worker: the chunk's own numbers, from 1, in the
 * order the strings first appear; the builder's are given on replay. */
guint32
ks_json_chunk_intern (Reader     *r,
                      const char *s,
                      gsize       len)
{
  Chunk *c = r->chunk;
  guint32 h = hash_bytes (s, len);
  guint32 i;
  LocalString ls;

  if ((c->local->len + 1) * 2 > c->n_slots)
    grow_slots (c);
  for (i = h & (c->n_slots - 1); c->slots[i] != 0; i = (i + 1) & (c->n_slots - 1))
    {
      LocalString *o = &g_array_index (c->local, LocalString, c->slots[i] - 1);

      if (o->hash == h && o->len == len && memcmp (o->text, s, len) == 0)
        return c->slots[i];
    }
  ls.text = g_string_chunk_insert_len (c->text, s, len);
  ls.len = len;
  ls.hash = h;
  g_array_append_val (c->local, ls);
  c->slots[i] = c->local->len;
  return c->local->len;
}

const char *
ks_json_chunk_string (Reader  *r,
                      guint32  id)
{
  return g_array_index (r->chunk->local, LocalString, id - 1).text;
}


/* The worker's next event goes to the next place of its chunk. */
static void
next_event (Reader *w)
{
  Chunk *c = w->chunk;

  w->ev = ks_json_par_chunk_event (c, c->kept->len);
  memcpy (w->ev, &w->ev_own, sizeof (Event));
}

/* The args walked here and their values numbered in the chunk's own
 * dictionary: the replay looks each of them up in the store once. */
static void
prepare_args (Reader *r,
              Chunk  *c,
              Kept   *k)
{
  gsize at = c->prepared->len, n;

  if (r->args_scratch == NULL)
    r->args_scratch = ks_args_scratch_new ();
  n = ks_args_local_prepare (c->args_local, r->args_scratch, k->args, k->args_len, c->prepared);
  if (n == 0)
    return;
  if (c->prepared->len > G_MAXUINT32)
    {
      /* added in one step on replay (its values stay in the chunk's
       * dictionary, unused) */
      g_byte_array_set_size (c->prepared, at);
      return;
    }
  k->prepared_at = (guint32) at;
  k->prepared_len = (guint32) n;
}

/* The event's args text, kept with it (and prepared where the chunk's
 * are). */
static void
keep_args (Reader *r,
           Chunk  *c,
           Kept   *k)
{
  if (r->args_direct != NULL)
    {
      k->args_len = (guint32) r->args_direct_len;
      /* the chunk's text lives until it is replayed */
      if ((const guint8 *) r->args_direct >= c->data->data &&
          (const guint8 *) r->args_direct + k->args_len <= c->data->data + c->data->len)
        k->args = r->args_direct;
      else
        k->args = g_string_chunk_insert_len (c->text, r->args_direct, k->args_len);
    }
  else if (r->args->len > 0)
    {
      k->args_len = (guint32) r->args->len;
      k->args = g_string_chunk_insert_len (c->text, r->args->str, k->args_len);
    }
  k->args_overflow = r->args_overflow;
  k->args_ascii = r->args_ascii;
  /* The walk over the args text and the look-up of its values, most of
   * adding it to the store, are done here; the replay maps the values
   * through the chunk's dictionary and looks up only those new to the
   * chunk. Text that the replay repairs
   * (not valid UTF-8) or drops is left to it, and so is all of it in a
   * chunk the reading thread parses itself. */
  if (c->prepare_args && c->args_local != NULL && r->ev->has_args && !k->args_overflow && k->args_ascii && k->args_len > 2)
    prepare_args (r, c, k);
}

/* In place of ks_json_handle_event(): the event stays where it was read,
 * with what it points to, and the next one goes to the next place. Its
 * strings are kept apart, and it is pointed to the replaying reader's
 * own strings, which the replay fills: the replay does not write to the
 * cache lines of every event that this thread wrote. */
void
ks_json_chunk_keep_event (Reader *r)
{
  Chunk *c = r->chunk;
  GString *const *own = c->owner->own;
  Kept k = { 0 };

  /* its pid and tid still in the worker's strings */
  if (c->thread_keys != NULL)
    k.thread_key = ks_json_thread_keys_number (c->thread_keys, r->ev);
  keep_args (r, c, &k);
  if (c->tracks != NULL)
    ks_json_chunk_tracks_keep (c, r->ev, &k);
  for (guint i = 0; i < G_N_ELEMENTS (event_strings); i++)
    {
      GString *s = EVENT_STRING (r->ev, i);

      if (s->len > 0)
        {
          KeptString ks = { i, s->len, g_string_chunk_insert_len (c->text, s->str, s->len) };

          g_array_append_val (c->strings, ks);
          k.strings_set |= 1u << i;
          /* the next event starts from empty strings, so that only
           * what it sets itself is kept with it */
          g_string_truncate (s, 0);
        }
      EVENT_STRING (r->ev, i) = own[i];
    }
  k.strings_end = c->strings->len;
  k.kineto = r->kineto;
  k.n_local = c->local->len;
  g_array_append_val (c->kept, k);
  next_event (r);
}

/* The array closed: on a worker the text after it is not its to parse. */
int
ks_json_chunk_events_end (Reader *r)
{
  Chunk *c = r->chunk;

  if (c->verifying)
    c->ends_clean = TRUE;
  else
    {
      c->events_end = TRUE;
      c->events_end_offset = ks_json_current_offset (r) - 1;
    }
  if (r->error == NULL)
    r->error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_CANCELLED, "the end of the event array");
  return 0;
}

/* Appends @from from byte @at on to @data and @marks (after a comma of a
 * cut when @comma). */
void
ks_json_par_append_text (GByteArray   *data,
                         GArray       *marks,
                         gboolean      comma,
                         const guint8 *from,
                         gsize         len,
                         const GArray *from_marks,
                         gsize         at)
{
  gsize base;

  if (comma)
    g_byte_array_append (data, (const guint8 *) ",", 1);
  base = data->len;
  g_byte_array_append (data, from + at, len - at);
  for (guint i = 0; from_marks != NULL && i < from_marks->len; i++)
    {
      Mark m = g_array_index (from_marks, Mark, i);

      if (m.end <= at)
        continue;
      m.end = m.end - at + base;
      g_array_append_val (marks, m);
    }
}

/* ks_json_parse_chunk() over @data block by block; the last piece (after
 * the last mark) with @seen and @in_string. */
gboolean
ks_json_par_parse_pieces (Reader        *r,
                          guint8        *data,
                          gsize          len,
                          const GArray  *marks,
                          guint          seen,
                          gboolean       in_string,
                          GError       **error)
{
  gsize from = 0;

  for (guint i = 0; marks != NULL && i < marks->len; i++)
    {
      const Mark *m = &g_array_index (marks, Mark, i);

      if (m->end <= from || m->end >= len)
        continue;
      if (!ks_json_parse_chunk (r, data + from, m->end - from, m->seen, m->in_string, error))
        return FALSE;
      from = m->end;
    }
  return from >= len || ks_json_parse_chunk (r, data + from, len - from, seen, in_string, error);
}

/* A worker's reader, as new: one per chunk would page in its caches
 * every time. */
static Reader *
take_reader (Parallel *p)
{
  Reader *w;

  g_mutex_lock (&p->workers->lock);
  w = ks_json_par_take_spare (p->workers->readers);
  g_mutex_unlock (&p->workers->lock);
  if (w == NULL)
    return ks_json_reader_new (NULL, NULL, NULL);

  ks_json_reader_reset_file (w);
  /* the cache points into the last chunk's strings */
  if (++w->intern_gen == 0)
    {
      memset (w->intern_cache, 0, sizeof w->intern_cache);
      w->intern_gen = 1;
    }
  for (guint i = 0; i < G_N_ELEMENTS (event_strings); i++)
    g_string_truncate (EVENT_STRING (&w->ev_own, i), 0);
  g_clear_pointer (&w->syntax_text, g_free);
  g_clear_error (&w->error);
  return w;
}

static void
give_back_reader (Parallel *p,
                  Reader   *w)
{
  g_mutex_lock (&p->workers->lock);
  g_ptr_array_add (p->workers->readers, w);
  g_mutex_unlock (&p->workers->lock);
}

void
ks_json_par_run_chunk (Chunk *c)
{
  Reader *w = take_reader (c->owner);
  guint8 wrapper[] = "{\"traceEvents\":[";
  gsize wrapper_len = c->events_depth == 2 ? strlen ((const char *) wrapper) : 1;
  GError *error = NULL;
  gboolean ok;

  if (c->events_depth != 2)
    wrapper[0] = '[';
  ks_json_par_take_text (c);
  c->local = g_array_new (FALSE, FALSE, sizeof (LocalString));
  c->text = g_string_chunk_new (64 * 1024);
  /* on this thread too, where the numbering costs about what it saves:
   * the same work whoever parses the chunk */
  if (c->owner->thread_keys)
    c->thread_keys = ks_json_thread_keys_new ();

  w->name = c->name;
  w->chunk = c;
  next_event (w);
  w->lenient = c->owner->lenient;
  ks_json_start_parser (w);
  /* offsets in the whole text: errors say where they are in the file */
  w->buf_offset = c->offset - wrapper_len;
  ok = ks_json_parse_chunk (w, wrapper, wrapper_len, 0, FALSE, &error) &&
       ks_json_par_parse_pieces (w, c->data->data, c->data->len, c->marks, c->seen, c->last && c->in_string, &error);
  if (ok && c->last)
    {
      ok = ks_json_parse_carry (w, &error);
      if (ok)
        {
          yajl_complete_parse (w->yajl);
          if (w->error != NULL)
            {
              g_propagate_error (&error, g_steal_pointer (&w->error));
              ok = FALSE;
            }
        }
    }
  else if (ok && w->depth == w->events_depth && !w->in_event && w->carry->len == 0 && !w->skip_string)
    {
      c->verifying = TRUE;
      yajl_parse (w->yajl, (const guint8 *) "]", 1);
      c->verifying = FALSE;
      g_clear_error (&w->error);
    }

  if (!ok && !c->events_end)
    {
      c->error = g_steal_pointer (&error);
      c->syntax_error = w->syntax_error;
      c->nesting_error = w->nesting_error;
      c->number_error = w->number_error;
      c->lenient_fixable = w->lenient_fixable;
      c->syntax_offset = w->syntax_offset;
      c->syntax_text = g_steal_pointer (&w->syntax_text);
    }
  g_clear_error (&error);
#define TAKE_COUNT(n) c->n = w->n;
  FOR_EACH_COUNT (TAKE_COUNT)
#undef TAKE_COUNT
  g_free (c->slots);
  c->slots = NULL;
  if (c->tracks != NULL)
    ks_json_chunk_tracks_gather (c);
  w->chunk = NULL;
  w->ev = &w->ev_own;
  give_back_reader (c->owner, w);
}

/* The next chunk not started, taken; NULL when there is none. */
static Chunk *
take_pending (Workers *w)
{
  Chunk *c;

  g_mutex_lock (&w->lock);
  c = g_queue_pop_head (&w->pending);
  g_mutex_unlock (&w->lock);
  return c;
}

void
ks_json_par_mark_done (Workers *w,
                       Chunk   *c)
{
  /* after this, @c and its owner may be gone */
  g_mutex_lock (&w->lock);
  c->done = TRUE;
  g_cond_broadcast (&w->cond);
  g_mutex_unlock (&w->lock);
}

/* A pool task stands for a chunk dispatched: it parses the first one
 * not started, if the reading thread has not taken them all. */
void
ks_json_par_chunk_job (gpointer data,
                       gpointer user_data)
{
  Workers *w = data;
  Chunk *c = take_pending (w);

  if (c == NULL)
    return;
  ks_json_par_run_chunk (c);
  ks_json_par_mark_done (w, c);
}

