/* ks-json-parallel.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-json-reader"

/* The trace-event array parsed on every core. yajl is most of a load,
 * and an event's parse depends on nothing before it, so the array is cut
 * into chunks of at most 1 MiB (see chunk_bytes()) at the text
 * `},{"`, and each chunk is tokenized and run through the callbacks on a
 * thread of a pool (a yajl handle and a Reader of its own, opened as if
 * just inside the array). A worker does not handle its events: it reads
 * each into a place of its own in the chunk and keeps it there, with its
 * strings, its args text and the names and categories numbered within
 * the chunk. This thread replays the chunks in file order through
 * ks_json_handle_event(), so the model is the one the single-threaded
 * parse builds (the same strings in the same order, pairs, flows and
 * async ranges across chunks) while the next chunks are parsed. The
 * pool has a thread less than the read: this thread is the last one,
 * and parses the chunks not started yet whenever it would wait.
 *
 * `},{"` may lie inside a string or deeper in an event; a cut there is
 * found out afterwards: the worker of the chunk before it hands yajl a
 * `]` after its text, which closes the array only if the text ended
 * between two events. A chunk that does not end there is parsed again
 * together with the next one. The cut starts out right: the text before
 * the array is parsed here, up to its `[`, and the state of the reader
 * checked after it.
 *
 * When a worker's chunk closes the array, the rest of the text
 * (deviceProperties and the like) is parsed here, as are files whose
 * array does not start with an object. KINESCOPE_THREADS=1 reads as
 * before.
 *
 * The workers of a lenient read (trailing commas, raw control
 * characters) read leniently too, and a worker's error says whether a
 * lenient read would repair it, as this thread's does.
 *
 * A field added to Event that points to a GString belongs in
 * event_strings[] below, one that holds a number of ks_json_intern() is
 * mapped in replay_events() as name and cat are, and a problem count
 * that the callbacks keep belongs in FOR_EACH_COUNT(). */

#include "config.h"

#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* memmem() */
#endif
#include <string.h>

#include "ks-json-parallel-private.h"

guint
ks_json_thread_count (void)
{
  const char *env = g_getenv ("KINESCOPE_THREADS");
  guint64 v;

  if (env != NULL && g_ascii_string_to_unsigned (env, 10, 1, 1024, &v, NULL))
    return (guint) v;
  return MAX (1, g_get_num_processors ());
}

/* The chunks in flight (one a thread and one more) hold their text, its
 * events and what the allocator keeps of them: about seven times the
 * text each, measured. A trace is cut so that they stay near a tenth of
 * its size (1 MiB at most, 128 KiB at least): a small trace is cut
 * finer, and so is one on more threads. Each chunk costs a wakeup and
 * its strings numbered anew, so they are no finer than that. */
static gsize
chunk_bytes (guint   n_threads,
             goffset size)
{
  const char *env = g_getenv ("KINESCOPE_JSON_CHUNK_BYTES");
  guint64 v;

  /* small chunks are for the tests: cuts fall everywhere */
  if (env != NULL && g_ascii_string_to_unsigned (env, 10, 1, G_MAXINT32, &v, NULL))
    return (gsize) v;
  if (size <= 0)
    return DEFAULT_CHUNK_BYTES;
  return CLAMP ((guint64) size / (IN_FLIGHT_SHARE * 7 * (n_threads + 1)), MIN_CHUNK_BYTES, DEFAULT_CHUNK_BYTES);
}

/* How many chunks may be in flight: one a thread and one more, fewer
 * when chunks of the smallest size would hold more than that share of
 * the trace (a small trace on many threads). */
static guint
chunks_in_flight (guint   n_threads,
                  goffset size,
                  gsize   chunk)
{
  if (size <= 0 || chunk != MIN_CHUNK_BYTES)
    return n_threads + 1;
  return (guint) CLAMP ((guint64) size / (IN_FLIGHT_SHARE * 7 * chunk), 2, n_threads + 1);
}

/* The chunks in flight of @p: one fewer while the args' thread holds a
 * replayed chunk, so that as many are held as without it. */
static guint
in_flight (Parallel *p,
           goffset   size)
{
  guint n = chunks_in_flight (p->n_threads, size, p->chunk_bytes);

  return p->args_stage != NULL ? MAX (2, n - 1) : n;
}

/* Whether this thread, waiting for a chunk, parses only that one (see
 * wait_done()): from HELP_HEAD_ONLY_THREADS threads on, where the
 * workers have time to spare and this thread sets the pace (on the
 * 16-core host it spent a quarter of a load parsing chunks ahead); on
 * fewer it is a good part of the parse. KINESCOPE_JSON_HELP=head or =any
 * chooses, for measurements. */
static gboolean
help_head_only (guint n_threads)
{
  const char *env = g_getenv ("KINESCOPE_JSON_HELP");

  if (g_strcmp0 (env, "head") == 0)
    return TRUE;
  if (g_strcmp0 (env, "any") == 0)
    return FALSE;
  return n_threads >= HELP_HEAD_ONLY_THREADS;
}

/* Whether the replay's args are stored on a thread of their own (see
 * ks-json-args-stage.c): from ARGS_THREAD_THREADS threads on, where
 * the replay sets the pace; on fewer the cores are busy parsing and the
 * thread would only take turns with them. KINESCOPE_JSON_ARGS=thread or
 * =replay chooses, for tests and measurements. */
static gboolean
args_on_thread (guint n_threads)
{
  const char *env = g_getenv ("KINESCOPE_JSON_ARGS");

  if (g_strcmp0 (env, "thread") == 0)
    return TRUE;
  if (g_strcmp0 (env, "replay") == 0)
    return FALSE;
  return n_threads >= ARGS_THREAD_THREADS;
}

gpointer
ks_json_par_take_spare (GPtrArray *spares)
{
  return spares->len > 0 ? g_ptr_array_steal_index_fast (spares, spares->len - 1) : NULL;
}

Chunk *
ks_json_par_chunk_new (Parallel *p)
{
  Chunk *c = g_new0 (Chunk, 1);

  c->owner = p;
  c->name = p->name;
  /* Preparing the args on a worker costs more in all than encoding them
   * in the replay, and pays where the reading thread sets the pace:
   * from three threads on, as for a .kscope. */
  c->prepare_args = p->n_threads >= 3;
  c->events_depth = p->events_depth;
  c->data = ks_json_par_take_spare (p->spare_data);
  if (c->data == NULL)
    c->data = g_byte_array_new ();
  c->kept = ks_json_par_take_spare (p->spare_kept);
  if (c->kept == NULL)
    c->kept = g_array_new (FALSE, FALSE, sizeof (Kept));
  c->events = ks_json_par_take_spare (p->spare_events);
  if (c->events == NULL)
    c->events = g_ptr_array_new_with_free_func (g_free);
  c->strings = ks_json_par_take_spare (p->spare_strings);
  if (c->strings == NULL)
    c->strings = g_array_new (FALSE, FALSE, sizeof (KeptString));
  c->prepared = ks_json_par_take_spare (p->spare_prepared);
  if (c->prepared == NULL)
    c->prepared = g_byte_array_new ();
  if (c->prepare_args)
    {
      c->args_local = ks_json_par_take_spare (p->spare_locals);
      if (c->args_local == NULL)
        c->args_local = ks_args_local_new ();
    }
  if (p->thread_keys && p->chunk_tracks)
    {
      c->tracks = ks_json_par_take_spare (p->spare_tracks);
      if (c->tracks == NULL)
        c->tracks = ks_json_chunk_tracks_new ();
    }
  c->marks = g_array_new (FALSE, FALSE, sizeof (Mark));
  return c;
}

static void
give_back (GPtrArray *spares,
           gpointer   array,
           guint      limit)
{
  if (array != NULL && spares->len < limit)
    g_ptr_array_add (spares, array);
  else if (array != NULL)
    g_array_unref (array);   /* a GByteArray is a GArray underneath */
}

/* The replayed events of @c, most of its memory, go back for the next
 * chunks: what its args point to (its text, records and dictionary)
 * stays until they are stored. */
static void
chunk_drop_events (Chunk *c)
{
  Parallel *p = c->owner;
  guint limit = p->in_flight + 1;   /* the chunks in flight, and the one being cut */

  if (c->kept != NULL)
    g_array_set_size (c->kept, 0);
  if (c->strings != NULL)
    g_array_set_size (c->strings, 0);
  give_back (p->spare_kept, g_steal_pointer (&c->kept), limit);
  if (c->events != NULL && p->spare_events->len < limit)
    g_ptr_array_add (p->spare_events, g_steal_pointer (&c->events));
  else if (c->events != NULL)
    g_ptr_array_unref (g_steal_pointer (&c->events));
  give_back (p->spare_strings, g_steal_pointer (&c->strings), limit);
  if (c->tracks != NULL && p->spare_tracks->len < limit)
    {
      ks_json_chunk_tracks_clear (c->tracks);
      g_ptr_array_add (p->spare_tracks, g_steal_pointer (&c->tracks));
    }
  g_clear_pointer (&c->tracks, ks_json_chunk_tracks_free);
}

void
ks_json_par_chunk_free (Chunk *c)
{
  Parallel *p = c->owner;
  guint limit = p->in_flight + 1;   /* the chunks in flight, and the one being cut */

  chunk_drop_events (c);
  g_clear_pointer (&c->shared, g_bytes_unref);
  g_clear_pointer (&c->held, ks_json_inflated_free);
  if (c->data != NULL)
    g_byte_array_set_size (c->data, 0);
  give_back (p->spare_data, c->data, limit);
  if (c->prepared != NULL)
    g_byte_array_set_size (c->prepared, 0);
  give_back (p->spare_prepared, c->prepared, limit);
  if (c->args_local != NULL && p->spare_locals->len < limit)
    {
      ks_args_local_clear (c->args_local);
      g_ptr_array_add (p->spare_locals, c->args_local);
    }
  else
    ks_args_local_free (c->args_local);
  g_free (c->args_map);
  if (c->marks != NULL)
    g_array_unref (c->marks);
  if (c->local != NULL)
    g_array_unref (c->local);
  if (c->text != NULL)
    g_string_chunk_free (c->text);
  g_free (c->slots);
  g_free (c->map);
  ks_json_thread_keys_free (c->thread_keys);
  g_free (c->thread_slots);
  g_clear_error (&c->error);
  g_free (c->syntax_text);
  g_free (c);
}

/* Main side */

void
ks_json_parallel_free_workers (Reader *r)
{
  Workers *w = r->workers;

  ks_json_parallel_stop (r);
  if (w == NULL)
    return;
  r->workers = NULL;
  if (w->pool != NULL)
    g_thread_pool_free (w->pool, FALSE, TRUE);
  g_ptr_array_unref (w->readers);
  g_assert (g_queue_is_empty (&w->pending));
  g_mutex_clear (&w->lock);
  g_cond_clear (&w->cond);
  g_free (w);
}

void
ks_json_parallel_start (Reader  *r,
                        goffset  size)
{
  Parallel *p;
  guint n = ks_json_thread_count ();

  ks_json_parallel_stop (r);
  if (n <= 1 || r->chunk != NULL)
    return;
  p = g_new0 (Parallel, 1);
  p->name = g_strdup (r->name);
  p->n_threads = n;
  p->chunk_bytes = chunk_bytes (n, size);
  /* a folder's small files share the bound of the whole folder */
  p->lenient = r->lenient;
  p->help_head_only = help_head_only (n);
  p->thread_keys = ks_json_par_thread_keys (n);
  /* KINESCOPE_JSON_BLOCKS=copy copies the blocks as before, for
   * measurements */
  p->share_blocks = g_strcmp0 (g_getenv ("KINESCOPE_JSON_BLOCKS"), "copy") != 0;
  p->chunk_tracks = ks_json_par_chunk_tracks ();
  if (args_on_thread (n))
    p->args_stage = ks_json_args_stage_new (r->builder);
  p->in_flight = in_flight (p, MAX (size, r->load_size));
  p->mode = MODE_HEAD;
  p->raw_fd = -1;
  ks_phase_start (&p->t_start);
  if (r->workers == NULL)
    {
      r->workers = g_new0 (Workers, 1);
      g_mutex_init (&r->workers->lock);
      g_cond_init (&r->workers->cond);
      g_queue_init (&r->workers->pending);
      r->workers->readers = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_json_reader_free);
    }
  p->workers = r->workers;
  g_queue_init (&p->queue);
  for (guint i = 0; i < G_N_ELEMENTS (event_strings); i++)
    p->own[i] = EVENT_STRING (&r->ev_own, i);
  p->open = g_byte_array_new ();
  p->spare_data = g_ptr_array_new_with_free_func ((GDestroyNotify) g_byte_array_unref);
  p->spare_kept = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  p->spare_events = g_ptr_array_new_with_free_func ((GDestroyNotify) g_ptr_array_unref);
  p->spare_strings = g_ptr_array_new_with_free_func ((GDestroyNotify) g_array_unref);
  p->spare_prepared = g_ptr_array_new_with_free_func ((GDestroyNotify) g_byte_array_unref);
  p->spare_locals = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_args_local_free);
  p->spare_tracks = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_json_chunk_tracks_free);
  r->parallel = p;
}

void
ks_json_parallel_set_size (Reader  *r,
                           goffset  size)
{
  Parallel *p = r->parallel;

  /* before the first cut */
  if (p == NULL || p->n_chunks > 0)
    return;
  p->chunk_bytes = chunk_bytes (p->n_threads, size);
  p->in_flight = in_flight (p, MAX (size, r->load_size));
}

/* Waits for @c to be done, parsing the chunks not started meanwhile:
 * this thread would otherwise sleep while work waits for a worker (and
 * a wakeup costs about as much as a small chunk's parse). With
 * help_head_only it parses @c if no worker took it, and no other: where
 * this thread sets the pace of a load, a chunk it parses ahead delays
 * the replay, and its args are encoded in the replay. */
void
ks_json_par_wait_done (Parallel *p,
                       Chunk    *c)
{
  Workers *w = p->workers;
  Chunk *next;
  KsPhaseClock clock;

  for (;;)
    {
      g_mutex_lock (&w->lock);
      if (c->done)
        break;
      if (!p->help_head_only || g_queue_peek_head (&w->pending) == c)
        next = g_queue_pop_head (&w->pending);
      else
        next = NULL;
      if (next == NULL)
        {
          ks_phase_start (&clock);
          while (!c->done)
            g_cond_wait (&w->cond, &w->lock);
          ks_phase_add (&clock, &p->t_wait);
          break;
        }
      g_mutex_unlock (&w->lock);
      /* here the args are encoded once, in the replay */
      next->prepare_args = FALSE;
      ks_phase_start (&clock);
      ks_json_par_run_chunk (next);
      ks_phase_add (&clock, &p->t_here);
      ks_json_par_mark_done (w, next);
    }
  g_mutex_unlock (&w->lock);
}

static gboolean
is_done (Parallel *p,
         Chunk    *c)
{
  gboolean done;

  g_mutex_lock (&p->workers->lock);
  done = c->done;
  g_mutex_unlock (&p->workers->lock);
  return done;
}

void
ks_json_parallel_stop (Reader *r)
{
  Parallel *p = r->parallel;
  Workers *w;
  Chunk *c;

  if (p == NULL)
    return;
  r->parallel = NULL;
  /* the chunk on the args' thread is freed when its args are stored */
  g_clear_pointer (&p->args_stage, ks_json_args_stage_free);
  w = p->workers;
  /* chunks not started are dropped; running ones finish first */
  g_mutex_lock (&w->lock);
  for (GList *l = w->pending.head; l != NULL;)
    {
      GList *next = l->next;

      if (((Chunk *) l->data)->owner == p)
        {
          ((Chunk *) l->data)->done = TRUE;
          g_queue_delete_link (&w->pending, l);
        }
      l = next;
    }
  g_mutex_unlock (&w->lock);
  while ((c = g_queue_pop_head (&p->queue)) != NULL)
    {
      ks_json_par_wait_done (p, c);
      ks_json_par_chunk_free (c);
    }
  g_byte_array_unref (p->open);
  if (p->open_marks != NULL)
    g_array_unref (p->open_marks);
  g_ptr_array_unref (p->spare_data);
  g_ptr_array_unref (p->spare_kept);
  g_ptr_array_unref (p->spare_events);
  g_ptr_array_unref (p->spare_strings);
  g_ptr_array_unref (p->spare_prepared);
  g_ptr_array_unref (p->spare_locals);
  g_ptr_array_unref (p->spare_tracks);
  g_free (p->name);
  g_free (p);
}

void
ks_json_par_dispatch (Reader   *r,
                      Parallel *p,
                      Chunk    *c)
{
  Workers *w = p->workers;

  if (w->pool == NULL)
    w->pool = g_thread_pool_new (ks_json_par_chunk_job, NULL, p->n_threads - 1, FALSE, NULL);
  else if (w->n_threads != p->n_threads)
    g_thread_pool_set_max_threads (w->pool, p->n_threads - 1, NULL);
  w->n_threads = p->n_threads;
  g_queue_push_tail (&p->queue, c);
  g_mutex_lock (&w->lock);
  g_queue_push_tail (&w->pending, c);
  g_mutex_unlock (&w->lock);
  g_thread_pool_push (w->pool, w, NULL);
  p->n_chunks++;
}

/* The head's scan: the index of the `[` that opens the event array in
 * @data, or -1. The reader's state confirms it after the parse. */
static gssize
scan_head (Parallel     *p,
           const guint8 *data,
           gsize         n)
{
  static const char key[] = "\"traceEvents\":";
  const gsize key_len = sizeof key - 1;
  gssize found = -1;
  gsize i;

  for (i = 0; i < n && found < 0; i++)
    {
      guint8 ch = data[i];

      if (p->in_string)
        {
          if (p->escaped)
            p->escaped = FALSE;
          else if (ch == '\\')
            p->escaped = TRUE;
          else if (ch == '"')
            p->in_string = FALSE;
          continue;
        }
      switch (ch)
        {
        case '"':
          p->in_string = TRUE;
          break;
        case '{':
        case '[':
          if (p->depth == 0 && p->top == 0)
            p->top = ch;
          if (ch == '[' && p->depth == 0 && p->top == '[')
            found = i;
          else if (ch == '[' && p->depth == 1 && p->top == '{')
            {
              guint8 before[sizeof key];
              gsize have = MIN (i, key_len), from_history = key_len - have;

              if (from_history <= p->history_len)
                {
                  memcpy (before, p->history + p->history_len - from_history, from_history);
                  memcpy (before + from_history, data + i - have, have);
                  if (memcmp (before, key, key_len) == 0)
                    found = i;
                }
            }
          p->depth++;
          break;
        case '}':
        case ']':
          p->depth--;
          break;
        default:
          break;
        }
    }

  if (found < 0)
    {
      /* keep the last bytes for a key that the next block ends */
      gsize keep = MIN (n, sizeof p->history);
      gsize old = MIN (p->history_len, sizeof p->history - keep);

      memmove (p->history, p->history + p->history_len - old, old);
      memcpy (p->history + old, data + n - keep, keep);
      p->history_len = old + keep;
    }
  return found;
}

static void
open_reset (Parallel *p,
            guint64   offset)
{
  if (p->open != NULL)
    g_byte_array_unref (p->open);
  p->open = g_byte_array_new ();
  if (p->open_marks != NULL)
    g_array_unref (p->open_marks);
  p->open_marks = g_array_new (FALSE, FALSE, sizeof (Mark));
  p->open_offset = offset;
  p->open_seen = 0;
  p->search_from = 0;
}

/* The rest of the text goes to this thread's parser, from @offset:
 * @text stands for the compacted text there. */
static gboolean
parse_here (Reader      *r,
            Parallel    *p,
            GByteArray  *text,
            GArray      *marks,
            guint64      offset,
            guint        seen,
            gboolean     in_string,
            GError     **error)
{
  p->mode = MODE_SERIAL;
  r->buf_offset = offset;
  return ks_json_par_parse_pieces (r, text->data, text->len, marks, seen, in_string, error);
}

static void
take_counts (Reader *r,
             Chunk  *c)
{
#define ADD_COUNT(n) r->n += c->n;
  FOR_EACH_COUNT (ADD_COUNT)
#undef ADD_COUNT
}

/* ks_json_handle_event() for the events of @c, in order. */
static gboolean
replay_events (Reader  *r,
               Chunk   *c,
               GError **error)
{
  GString *const *own = c->owner->own;
  guint from = 0;
  guint32 filled = 0;   /* own[] that may hold text: bit i for own[i] */
  gboolean text_ascii = r->text_ascii;
  gboolean ok = TRUE;
  gboolean bulk;

  if (c->local->len > 0)
    c->map = g_new (guint32, c->local->len);
  if (c->args_local != NULL)
    c->args_map = g_new0 (guint32, ks_args_local_get_n_entries (c->args_local) + 1);
  if (c->thread_keys != NULL)
    c->thread_slots = g_new0 (ThreadSlot, ks_json_thread_keys_get_n (c->thread_keys) + 1);

  /* the chunk's strings are valid UTF-8 already */
  r->text_ascii = TRUE;
  r->args_stage = c->owner->args_stage;
  for (guint i = 0; i < G_N_ELEMENTS (event_strings); i++)
    g_string_truncate (own[i], 0);
  bulk = ks_json_chunk_tracks_begin (r, c);
  for (guint e = 0; ok && e < c->kept->len; e++)
    {
      const Kept *k = &g_array_index (c->kept, Kept, e);
      Event *ev = ks_json_par_chunk_event (c, e);

      /* the builder numbers strings in the order they first appear */
      for (; c->n_mapped < k->n_local; c->n_mapped++)
        {
          LocalString *ls = &g_array_index (c->local, LocalString, c->n_mapped);

          c->map[c->n_mapped] = ks_json_intern (r, ls->text, ls->len);
        }
      if (k->kineto)
        r->kineto = TRUE;
      /* a slice gathered by track where the chunk was parsed
       * (ks-json-chunk-tracks.c): its strings are not needed */
      if (bulk)
        {
          if ((k->group != 0 || k->launch_flow) && ks_json_chunk_tracks_take (r, c, k))
            {
              from = k->strings_end;
              continue;
            }
          ks_json_chunk_tracks_before (r, c, k, ev);
        }

      /* this thread's strings, which the worker pointed the event to,
       * emptied of what the event before left in them (what it set, and
       * what ks_json_handle_event() wrote: an event without a tid takes
       * its pid's text), then this one's */
      for (; filled != 0; filled &= filled - 1)
        {
          GString *s = own[__builtin_ctz (filled)];

          if (s->len > 0)
            g_string_truncate (s, 0);
        }
      filled = k->strings_set | 1u << EVENT_STRING_TID;
      for (; from < k->strings_end; from++)
        {
          KeptString *ks = &g_array_index (c->strings, KeptString, from);

          g_string_append_len (own[ks->field], ks->text, ks->len);
        }
      if (ev->name != 0)
        ev->name = c->map[ev->name - 1];
      if (ev->cat != 0)
        ev->cat = c->map[ev->cat - 1];
      r->args_direct = k->args != NULL ? k->args : "";
      r->args_direct_len = k->args_len;
      r->args_overflow = k->args_overflow;
      r->args_ascii = k->args_ascii;
      r->args_prepared = k->prepared_len > 0 ? c->prepared->data + k->prepared_at : NULL;
      r->args_prepared_len = k->prepared_len;
      r->args_local = c->args_local;
      r->args_map = c->args_map;
      r->thread_slot = k->thread_key != 0 ? &c->thread_slots[k->thread_key - 1] : NULL;

      r->ev = ev;
      if (!bulk || k->group == 0 || !ks_json_chunk_tracks_resolve (r, c, k))
        ks_json_handle_event (r);
      r->ev = &r->ev_own;
      r->thread_slot = NULL;
      r->args_direct = NULL;
      r->args_prepared = NULL;
      r->args_prepared_len = 0;
      r->args_local = NULL;
      r->args_map = NULL;
      if (r->error != NULL)
        {
          g_propagate_error (error, g_steal_pointer (&r->error));
          ok = FALSE;
        }
    }
  if (bulk)
    ks_json_chunk_tracks_end (r, c, ok);
  r->args_stage = NULL;
  ks_json_par_note_pairs (c->owner, c);
  if (!ok)
    {
      r->text_ascii = text_ascii;
      return FALSE;
    }
  /* names of an event that the end of the text cut short: the builder
   * has them in the single-threaded parse too */
  for (; c->n_mapped < c->local->len; c->n_mapped++)
    {
      LocalString *ls = &g_array_index (c->local, LocalString, c->n_mapped);

      c->map[c->n_mapped] = ks_json_intern (r, ls->text, ls->len);
    }
  r->text_ascii = text_ascii;
  take_counts (r, c);
  return TRUE;
}

/* @c ends in the array's `]`: the text from there on, with the chunks
 * after it and the open text, is parsed here. */
static gboolean
parse_tail (Reader   *r,
            Parallel *p,
            Chunk    *c,
            GError  **error)
{
  g_autoptr(GByteArray) text = g_byte_array_new ();
  g_autoptr(GArray) marks = g_array_new (FALSE, FALSE, sizeof (Mark));
  gsize at = (gsize) (c->events_end_offset - c->offset);
  guint seen = c->seen;
  gboolean in_string = c->last && c->in_string;
  Chunk *n;

  ks_json_par_append_text (text, marks, FALSE, c->data->data, c->data->len, c->marks, at);
  /* cut as it lies: the text after @c is compacted again from the file */
  if (c->raw_to > 0)
    ks_json_par_raw_tail (r, p, c, text, marks, &seen, &in_string);
  while ((n = g_queue_pop_head (&p->queue)) != NULL)
    {
      ks_json_par_wait_done (p, n);
      /* with the comma of the cut */
      ks_json_par_append_text (text, marks, TRUE, n->data->data, n->data->len, n->marks, 0);
      seen |= n->seen;
      in_string = n->last && n->in_string;
      ks_json_par_chunk_free (n);
    }
  if (p->open->len > 0)
    {
      ks_json_par_append_text (text, marks, TRUE, p->open->data, p->open->len, p->open_marks, 0);
      seen |= p->open_seen;
      in_string = p->open_in_string;
    }
  open_reset (p, 0);
  return parse_here (r, p, text, marks, c->events_end_offset, seen, in_string, error);
}

/* @c does not end between two events: it is parsed again with the text
 * after it. */
static void
merge_with_next (Reader   *r,
                 Parallel *p,
                 Chunk    *c)
{
  Chunk *n = g_queue_pop_head (&p->queue);
  Chunk *m;

  p->n_merged++;
  if (c->raw_to > 0)
    {
      ks_json_par_raw_merge (p, c, n);
      return;
    }
  if (n == NULL)
    {
      /* the next is the open text */
      GByteArray *open = g_byte_array_sized_new (c->data->len + 1 + p->open->len);
      GArray *marks = g_array_new (FALSE, FALSE, sizeof (Mark));

      ks_json_par_append_text (open, marks, FALSE, c->data->data, c->data->len, c->marks, 0);
      ks_json_par_append_text (open, marks, TRUE, p->open->data, p->open->len, p->open_marks, 0);
      g_byte_array_unref (p->open);
      g_array_unref (p->open_marks);
      p->open = open;
      p->open_marks = marks;
      p->open_offset = c->offset;
      p->open_seen |= c->seen;
      /* not at the same place again */
      p->search_from = c->data->len;
      ks_json_par_chunk_free (c);
      return;
    }

  m = ks_json_par_merged_new (p, c, n);
  ks_json_par_append_text (m->data, m->marks, FALSE, c->data->data, c->data->len, c->marks, 0);
  ks_json_par_append_text (m->data, m->marks, TRUE, n->data->data, n->data->len, n->marks, 0);
  m->seen = c->seen | n->seen;
  m->last = n->last;
  m->in_string = n->in_string;
  ks_json_par_merged_run (p, m, c, n);
}

Chunk *
ks_json_par_merged_new (Parallel *p,
                        Chunk    *c,
                        Chunk    *n)
{
  Chunk *m;

  ks_json_par_wait_done (p, n);
  m = ks_json_par_chunk_new (p);
  m->events_depth = c->events_depth;
  m->offset = c->offset;
  return m;
}

void
ks_json_par_merged_run (Parallel *p,
                        Chunk    *m,
                        Chunk    *c,
                        Chunk    *n)
{
  ks_json_par_chunk_free (c);
  ks_json_par_chunk_free (n);
  /* rare: on this thread, rather than behind the queue */
  m->prepare_args = FALSE;
  ks_json_par_run_chunk (m);
  m->done = TRUE;
  g_queue_push_head (&p->queue, m);
}

/* Replays the chunks at the head of the queue that are done, and waits
 * for the head while more than @keep are queued (0: until all are
 * replayed). */
gboolean
ks_json_par_replay (Reader   *r,
                    Parallel *p,
                    int       keep,
                    GError  **error)
{
  Chunk *c;
  KsPhaseClock clock;
  gboolean ok;

  while ((c = g_queue_peek_head (&p->queue)) != NULL)
    {
      if (!is_done (p, c))
        {
          if ((int) g_queue_get_length (&p->queue) <= keep)
            break;
          ks_json_par_wait_done (p, c);
        }
      ks_json_par_raw_resolve (p, c);
      if (c->error == NULL && !c->events_end && !c->last && !c->ends_clean)
        {
          g_queue_pop_head (&p->queue);
          merge_with_next (r, p, c);
          continue;
        }

      g_queue_pop_head (&p->queue);
      ks_phase_start (&clock);
      ok = replay_events (r, c, error);
      /* the args of a chunk that is not freed here are stored first */
      if (p->args_stage != NULL && (!ok || c->error != NULL || c->events_end))
        ks_args_stage_drain (p->args_stage);
      ks_phase_add (&clock, &p->t_replay);
      if (!ok)
        {
          ks_json_par_chunk_free (c);
          return FALSE;
        }
      if (c->error != NULL)
        {
          r->syntax_error = c->syntax_error;
          r->nesting_error = c->nesting_error;
          r->number_error = c->number_error;
          r->lenient_fixable = c->lenient_fixable;
          r->syntax_offset = c->syntax_offset;
          g_free (r->syntax_text);
          r->syntax_text = g_steal_pointer (&c->syntax_text);
          g_propagate_error (error, g_steal_pointer (&c->error));
          ks_json_par_chunk_free (c);
          return FALSE;
        }
      if (c->events_end)
        {
          ok = parse_tail (r, p, c, error);
          ks_json_par_chunk_free (c);
          return ok;
        }
      if (p->args_stage != NULL)
        {
          chunk_drop_events (c);
          ks_args_stage_submit (p->args_stage, c, 0);
        }
      else
        ks_json_par_chunk_free (c);
    }
  return TRUE;
}

/* The marks of the open text after its first @n bytes went. */
static void
drop_marks (Parallel *p,
            gsize     n)
{
  guint keep = 0;

  p->open_seen = 0;
  for (guint i = 0; i < p->open_marks->len; i++)
    {
      Mark m = g_array_index (p->open_marks, Mark, i);

      if (m.end <= n)
        continue;
      m.end -= n;
      p->open_seen |= m.seen;
      g_array_index (p->open_marks, Mark, keep++) = m;
    }
  g_array_set_size (p->open_marks, keep);
}

/* Cuts chunks off the open text while it is long enough. */
static void
cut_chunks (Reader   *r,
            Parallel *p)
{
  gsize start = 0;
  guint mark = 0;

  while (p->open->len - start >= p->chunk_bytes + 4)
    {
      gsize from = start + MAX (p->search_from, p->chunk_bytes - 1);
      const guint8 *hit = NULL;
      gsize at;
      Chunk *c;

      /* the last cut of the open text is its last `},{"`, so that the
       * chunk takes the open text and only the event cut short is
       * copied; cuts before it come at every chunk_bytes */
      if (from >= p->open->len)
        hit = NULL;
      else if (start == 0 && p->open->len - from < 2 * p->chunk_bytes)
        hit = ks_json_par_last_cut (p->open->data + from, p->open->len - from);
      else
        hit = memmem (p->open->data + from, p->open->len - from, "},{\"", 4);

      if (hit == NULL)
        {
          p->search_from = p->open->len - start - 3;
          break;
        }
      at = hit - p->open->data;
      c = ks_json_par_chunk_new (p);
      c->offset = p->open_offset;
      c->seen = 0;
      for (; mark < p->open_marks->len; mark++)
        {
          Mark m = g_array_index (p->open_marks, Mark, mark);

          c->seen |= m.seen;
          if (m.end >= at + 1)
            break;
          m.end -= start;
          g_array_append_val (c->marks, m);
        }
      /* the comma between the two events is nobody's */
      p->open_offset += at + 2 - start;
      p->search_from = 0;
      if (start == 0 && p->open->len - (at + 2) <= at + 1)
        {
          /* the chunk takes the open text itself, which is the larger
           * part: this thread copies only the rest */
          GByteArray *rest = c->data;

          g_byte_array_append (rest, p->open->data + at + 2, p->open->len - (at + 2));
          c->data = p->open;
          g_byte_array_set_size (c->data, at + 1);
          p->open = rest;
          drop_marks (p, at + 2);
          mark = 0;
        }
      else
        {
          g_byte_array_append (c->data, p->open->data + start, at + 1 - start);
          start = at + 2;
        }
      ks_json_par_dispatch (r, p, c);
    }

  if (start > 0)
    {
      g_byte_array_remove_range (p->open, 0, start);
      drop_marks (p, start);
    }
}

/* The open text is too long for a chunk: once the chunks before it are
 * replayed, this thread's parser stands just inside the array, where
 * the open text starts, and takes it and the rest of the file. */
static gboolean
parse_open_here (Reader   *r,
                 Parallel *p,
                 GError  **error)
{
  g_autoptr(GByteArray) text = NULL;
  g_autoptr(GArray) marks = NULL;
  guint64 offset;
  guint seen;

  if (!ks_json_par_replay (r, p, 0, error))
    return FALSE;
  /* the array may have closed in a chunk (parse_tail() took the rest) */
  if (p->mode != MODE_EVENTS)
    return TRUE;
  text = g_steal_pointer (&p->open);
  marks = g_steal_pointer (&p->open_marks);
  offset = p->open_offset;
  seen = p->open_seen;
  open_reset (p, 0);
  return parse_here (r, p, text, marks, offset, seen, p->open_in_string, error);
}

gsize
ks_json_block_size (Reader *r)
{
  Parallel *p = r->parallel;

  if (p == NULL || p->mode == MODE_SERIAL)
    return READ_CHUNK;
  return CLAMP (p->chunk_bytes, 64 * 1024, READ_CHUNK);
}

guint8 *
ks_json_block_buffer (Reader *r,
                      guint8 *buf,
                      gsize   n)
{
  Parallel *p = r->parallel;
  guint len;

  if (p == NULL || p->mode != MODE_EVENTS)
    return buf;
  /* room for the compaction's whole-vector stores past its end */
  len = p->open->len;
  g_byte_array_set_size (p->open, len + n + 64);
  g_byte_array_set_size (p->open, len);
  return p->open->data + len;
}

gboolean
ks_json_feed_block (Reader        *r,
                    guint8        *data,
                    gsize          n,
                    guint          seen,
                    gboolean       in_string,
                    GError       **error)
{
  Parallel *p = r->parallel;
  KsPhaseClock clock;

  if (p == NULL || p->mode == MODE_SERIAL)
    return ks_json_parse_chunk (r, data, n, seen, in_string, error);

  if (p->mode == MODE_HEAD)
    {
      gssize at = scan_head (p, data, n);

      if (at < 0)
        return ks_json_parse_chunk (r, data, n, seen, in_string, error);
      if (!ks_json_parse_chunk (r, data, at + 1, seen, FALSE, error))
        return FALSE;
      data += at + 1;
      n -= at + 1;
      if (!(r->events_depth > 0 && r->depth == r->events_depth && !r->in_event && r->error == NULL &&
            r->carry->len == 0 && !r->skip_string))
        {
          p->mode = MODE_SERIAL;
          return ks_json_parse_chunk (r, data, n, seen, in_string, error);
        }
      p->mode = MODE_EVENTS;
      p->events_depth = r->events_depth;
      open_reset (p, r->buf_offset);
    }

  ks_phase_start (&clock);
  {
    Mark m = { p->open->len + n, seen, in_string };

    /* (an empty array may have no storage yet) */
    if (p->open->data != NULL && data == p->open->data + p->open->len)
      g_byte_array_set_size (p->open, p->open->len + n);   /* compacted in place */
    else
      g_byte_array_append (p->open, data, n);
    g_array_append_val (p->open_marks, m);
    p->open_seen |= seen;
    p->open_in_string = in_string;
  }

  if (!p->checked_first && p->open->len > 0)
    {
      p->checked_first = TRUE;
      /* an empty array, or one that starts with something else */
      if (p->open->data[0] != '{')
        {
          g_autoptr(GByteArray) text = g_steal_pointer (&p->open);
          g_autoptr(GArray) marks = g_steal_pointer (&p->open_marks);
          guint64 offset = p->open_offset;
          guint open_seen = p->open_seen;

          open_reset (p, 0);
          return parse_here (r, p, text, marks, offset, open_seen, in_string, error);
        }
    }

  cut_chunks (r, p);
  ks_phase_add (&clock, &p->t_cut);
  if (p->open->len > MAX_OPEN_BYTES)
    return parse_open_here (r, p, error);
  /* a bounded number of chunks in flight: their text and events */
  return ks_json_par_replay (r, p, p->in_flight, error);
}

void
ks_json_parallel_note_input_wait (Reader             *r,
                                  const KsPhaseClock *clock)
{
  if (r->parallel != NULL)
    ks_phase_add (clock, &r->parallel->t_input);
}

/* At the end of the text: the open text is the last chunk, and all are
 * replayed. */
gboolean
ks_json_parallel_finish (Reader  *r,
                         GError **error)
{
  Parallel *p = r->parallel;
  gboolean ok = TRUE;

  if (p == NULL)
    return TRUE;
  while (ok && p->mode == MODE_EVENTS && (p->open->len > 0 || !g_queue_is_empty (&p->queue)))
    {
      if (p->open->len > 0)
        {
          Chunk *c = ks_json_par_chunk_new (p);

          c->offset = p->open_offset;
          g_byte_array_unref (c->data);
          g_array_unref (c->marks);
          c->data = g_steal_pointer (&p->open);
          c->marks = g_steal_pointer (&p->open_marks);
          c->seen = p->open_seen;
          c->last = TRUE;
          c->in_string = p->open_in_string;
          open_reset (p, 0);
          ks_json_par_dispatch (r, p, c);
        }
      ok = ks_json_par_replay (r, p, 0, error);
    }
  g_debug ("%s: %u chunks on %u threads, %u cuts not between events", r->name, p->n_chunks, p->n_threads, p->n_merged);
  g_debug ("%s: compacted blocks gave %u chunks their text", r->name, p->n_shared);
  if (p->thread_keys)
    g_debug ("%s: thread pairs numbered in %u chunks, %" G_GUINT64_FORMAT " pairs, %" G_GUINT64_FORMAT " resolved",
             r->name, p->n_keyed, p->n_pairs, p->n_resolved);
  if (p->chunk_tracks)
    g_debug ("%s: slices gathered by track %" G_GUINT64_FORMAT ", added in bulk %" G_GUINT64_FORMAT,
             r->name, p->n_gathered, p->n_taken);
  if (ks_load_phases_enabled ())
    {
      KsPhaseClock rest = { 0, 0 };

      ks_phase_add (&p->t_start, &rest);
      if (p->args_stage != NULL)
        {
          ks_args_stage_drain (p->args_stage);
          ks_json_args_stage_print_phases (p->args_stage, &p->t_wait);
        }
      ks_phase_print ("read: replaying events into the builder", &p->t_replay);
      ks_phase_print ("read: parsing chunks on this thread", &p->t_here);
      ks_phase_print ("read: waiting for workers", &p->t_wait);
      ks_phase_print ("read: waiting for the input", &p->t_input);
      ks_phase_print ("read: taking the text in, cutting chunks", &p->t_cut);
      rest.wall_ns -= p->t_replay.wall_ns + p->t_here.wall_ns + p->t_wait.wall_ns + p->t_input.wall_ns + p->t_cut.wall_ns;
      rest.cpu_ns -= p->t_replay.cpu_ns + p->t_here.cpu_ns + p->t_wait.cpu_ns + p->t_input.cpu_ns + p->t_cut.cpu_ns;
      ks_phase_print ("read: the rest (input, compaction, handing over)", &rest);
    }
  ks_json_parallel_stop (r);
  return ok;
}
