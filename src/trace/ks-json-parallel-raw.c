/* ks-json-parallel-raw.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-json-reader"

/* Chunks cut from a plain file's text as it lies, each compacted by the
 * thread that parses it.
 *
 * Dropping the white space was one thread's work ahead of the cutting
 * (ks-json-mapped.c): on the 16-core host the longest serial stretch
 * the reading thread waited on. Here the reading thread looks only at
 * the bytes around each cut, in the file as it is: a `}` followed, past
 * white space, by `,`, `{` and `"`. A chunk is a range of the file; the
 * thread that parses it reads it (pread(): a file truncated meanwhile
 * only ends sooner) and compacts it in place before its parse.
 *
 * The compaction of a range depends on the state it starts in (inside a
 * string or not, a number before it). Between two events of the array
 * that state is the one at the start of a text, so each chunk but the
 * first starts from it: a guess, which holds exactly when the cut falls
 * between two events. The worker of the chunk before checks that as it
 * checks every cut (a `]` after its text must close the array), and a
 * chunk that does not end there is parsed again with the file's text up
 * to the end of the next chunk, compacted on from the state its own
 * compaction ended in; the text after the array is compacted the same
 * way. So the text parsed is the one the single thread compacts, byte
 * for byte.
 *
 * A chunk's place in the compacted text, which its errors give, is
 * known only once the chunks before it are compacted: its worker counts
 * from 0, and the replay, which takes the chunks in order, adds where
 * it starts. KINESCOPE_JSON_CUT=compacted cuts the compacted text
 * instead, as before.
 *
 * A .json.gz's inflated text is cut the same way
 * (ks_json_read_inflated()): its blocks, read by offset through
 * ks-json-inflated.c, take the file's place, and a chunk holds those of
 * its range until its thread has copied them. */

#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include "ks-json-parallel-private.h"

/* the file's bytes read at a time to look for a cut: a few events'
 * worth first, more while none is found */
#define PROBE_FIRST (4 * 1024)
#define PROBE_BYTES (64 * 1024)
/* how far past a chunk's size a .json.gz's text is looked through for
 * a cut (its blocks are kept meanwhile); past it the rest is compacted
 * on the reading thread and cut as before */
#define INFLATED_LOOK (4 * 1024 * 1024)
/* A chunk parsed again with the next that grows past this many chunks'
 * text (or the floor) ends the cuts as it lies: where most cuts fall
 * inside strings (every event's string ending in `},{`), each is parsed
 * again with the next, and again, the text growing each time. The
 * compacted text is cut from its last `},{"` back, which such strings
 * do not fool as often. */
#define RAW_MERGED_CHUNKS 4
#define RAW_MERGED_FLOOR  (256 * 1024)

gboolean
ks_json_cut_raw_wanted (void)
{
  return g_strcmp0 (g_getenv ("KINESCOPE_JSON_CUT"), "compacted") != 0;
}

/* pread() of @n bytes at @offset; fewer where the file ends. */
static gsize
read_at (int      fd,
         guint8  *buf,
         gsize    n,
         guint64  offset)
{
  gsize done = 0;

  while (done < n)
    {
      ssize_t k = pread (fd, buf + done, n - done, (off_t) (offset + done));

      if (k < 0 && errno == EINTR)
        continue;
      if (k <= 0)
        break;
      done += (gsize) k;
    }
  return done;
}

/* The text's bytes [@offset, @offset + @n) as they lie, for @c (NULL:
 * on the reading thread): the file's, or a .json.gz's inflated blocks,
 * those that @c holds on the thread that parses it. */
static gsize
text_at (Parallel    *p,
         const Chunk *c,
         guint8      *buf,
         gsize        n,
         guint64      offset)
{
  if (c != NULL && c->held != NULL)
    return ks_json_inflated_read (c->held, buf, n, offset);
  if (p->inflated != NULL)
    return ks_json_inflated_read (p->inflated, buf, n, offset);
  return read_at (p->raw_fd, buf, n, offset);
}

/* The text's bytes [@from, @to) compacted from @state after @data,
 * marked as a block of their own when @marks; the bytes read. */
static gsize
compact_range (Parallel           *p,
               const Chunk        *c,
               guint64             from,
               guint64             to,
               KsJsonCompactState *state,
               GByteArray         *data,
               GArray             *marks,
               guint              *seen)
{
  gsize base = data->len, got, m;
  Mark mark;

  /* room for the compaction's whole-vector stores past its end */
  g_byte_array_set_size (data, base + (to - from) + 64);
  got = text_at (p, c, data->data + base, to - from, from);
  m = ks_json_compact (data->data + base, got, (char *) data->data + base, state);
  g_byte_array_set_size (data, base + m);
  mark.end = base + m;
  mark.seen = ks_json_take_seen (state);
  mark.in_string = state->in_string;
  if (marks != NULL)
    g_array_append_val (marks, mark);
  *seen |= mark.seen;
  return got;
}

static inline gboolean
is_space (guint8 c)
{
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* Whether `},{"` with white space between follows the `}` at @d[@i]:
 * 1, with *@next at its `{`; 0 if not; -1 if @n bytes do not tell. */
static int
cut_at (const guint8 *d,
        gsize         i,
        gsize         n,
        gsize        *next)
{
  static const guint8 want[] = { ',', '{', '"' };

  i++;
  for (guint k = 0; k < G_N_ELEMENTS (want); k++)
    {
      while (i < n && is_space (d[i]))
        i++;
      if (i >= n)
        return -1;
      if (d[i] != want[k])
        return 0;
      if (want[k] == '{')
        *next = i;
      i++;
    }
  return 1;
}

/* The first cut whose `}` lies in [@from, @limit) of the file: its
 * offset in *@brace and that of the next event's `{` in *@next. */
static gboolean
find_cut (Parallel *p,
          guint64   from,
          guint64   limit,
          guint64  *brace,
          guint64  *next)
{
  gsize want = PROBE_FIRST;

  for (; from < limit; want = MIN (2 * want, PROBE_BYTES))
    {
      gsize n = text_at (p, NULL, p->probe, want, from);
      const guint8 *d = p->probe, *b = d;
      gsize end = MIN (n, limit - from), again = end;

      while ((b = memchr (b, '}', end - (b - d))) != NULL)
        {
          gsize at = 0;
          int hit = cut_at (d, b - d, n, &at);

          if (hit > 0)
            {
              *brace = from + (guint64) (b - d);
              *next = from + at;
              return TRUE;
            }
          /* the white space runs past the probe: read on from the `}`
           * (a probe's worth of it is passed over) */
          if (hit < 0 && n == want && b > d)
            {
              again = b - d;
              break;
            }
          b++;
        }
      if (n < want)
        return FALSE;
      from += again;
    }
  return FALSE;
}

void
ks_json_par_raw_take_text (Chunk *c)
{
  KsJsonCompactState state;
  gsize got;

  if (c->raw_to == 0)
    return;
  state = c->raw_state;
  got = compact_range (c->owner, c, c->raw_from, c->raw_to, &state, c->data, NULL, &c->seen);
  /* copied: the blocks go back to the inflating thread when the
   * reading thread lets go of them too */
  g_clear_pointer (&c->held, ks_json_inflated_free);
  /* a file truncated meanwhile ends here */
  c->raw_to = c->raw_from + got;
  c->end_state = state;
}

void
ks_json_par_raw_resolve (Parallel *p,
                         Chunk    *c)
{
  if (c->raw_to == 0)
    return;
  if (c->offset_pending)
    {
      guint64 base = p->replay_offset;

      /* its worker counted from 0 */
      c->offset_pending = FALSE;
      c->offset = base;
      if (c->events_end)
        c->events_end_offset += base;
      if (c->error != NULL)
        {
          c->syntax_offset += base;
          if (c->syntax_error && c->syntax_text != NULL)
            {
              g_free (c->error->message);
              c->error->message = g_strdup_printf (_("%s: invalid JSON at byte %" PRIu64 ": %s"),
                                                   c->name, c->syntax_offset, c->syntax_text);
            }
        }
    }
  /* the comma of the cut is nobody's */
  p->replay_offset = c->offset + c->data->len + 1;
}

/* @c (compacted) with a block mark at its end: its text is followed by
 * text compacted apart. */
static void
append_whole (GByteArray  *data,
              GArray      *marks,
              const Chunk *c)
{
  Mark m = { 0, c->seen, c->end_state.in_string };

  ks_json_par_append_text (data, marks, FALSE, c->data->data, c->data->len, c->marks, 0);
  m.end = data->len;
  g_array_append_val (marks, m);
}

void
ks_json_par_raw_merge (Parallel *p,
                       Chunk    *c,
                       Chunk    *n)
{
  Chunk *m;

  if (!p->raw_gave_up && c->data->len > MAX (RAW_MERGED_CHUNKS * p->chunk_bytes, RAW_MERGED_FLOOR))
    {
      g_debug ("%s: cuts as it lies given up: a chunk parsed again grew to %u bytes", p->name, c->data->len);
      p->raw_gave_up = TRUE;
    }
  if (n == NULL)
    {
      /* the next chunk is not cut yet: @c's text is the open text, and
       * the next cut's raw text starts where @c's ended */
      g_byte_array_set_size (p->open, 0);
      g_array_set_size (p->open_marks, 0);
      append_whole (p->open, p->open_marks, c);
      p->open_offset = c->offset;
      p->open_seen = c->seen;
      p->open_in_string = c->end_state.in_string;
      p->raw_start = c->raw_to;
      p->raw_state = c->end_state;
      p->replay_offset = c->offset;
      ks_json_par_chunk_free (c);
      return;
    }

  m = ks_json_par_merged_new (p, c, n);
  append_whole (m->data, m->marks, c);
  m->seen = c->seen;
  m->raw_from = c->raw_to;
  m->raw_to = MAX (n->raw_to, c->raw_to);
  m->raw_state = c->end_state;
  ks_json_par_merged_run (p, m, c, n);
}

void
ks_json_par_raw_tail (Reader      *r,
                      Parallel    *p,
                      Chunk       *c,
                      GByteArray  *text,
                      GArray      *marks,
                      guint       *seen,
                      gboolean    *in_string)
{
  KsJsonCompactState state = c->end_state;
  Chunk *n;

  /* the chunks after it were compacted from a guess: the file's text
   * after @c is compacted again, on from where @c's ended */
  while ((n = g_queue_pop_head (&p->queue)) != NULL)
    {
      ks_json_par_wait_done (p, n);
      ks_json_par_chunk_free (n);
    }
  {
    Mark m = { text->len, *seen, c->end_state.in_string };

    g_array_append_val (marks, m);
  }
  if (p->raw_start > c->raw_to)
    compact_range (p, NULL, c->raw_to, p->raw_start, &state, text, marks, seen);
  *in_string = state.in_string;
  r->stream_state = state;
  r->text_fed = c->events_end_offset + text->len;
}

gboolean
ks_json_par_raw_ready (Reader *r)
{
  Parallel *p = r->parallel;

  return p != NULL && p->mode == MODE_EVENTS && p->checked_first && !p->raw_gave_up && ks_json_cut_raw_wanted ();
}

/* The blocks of a .json.gz's text that no chunk parsed again and no
 * text after the array can need any more let go of: those before the
 * end of the first chunk cut as it lies still queued (see
 * ks_json_par_raw_merge(), ks_json_par_raw_tail()). */
static void
drop_inflated (Parallel *p)
{
  guint64 keep = p->raw_start;

  for (GList *l = p->queue.head; l != NULL; l = l->next)
    {
      const Chunk *c = l->data;

      if (c->raw_to > 0)
        {
          keep = MIN (keep, c->raw_to);
          break;
        }
    }
  ks_json_inflated_drop (p->inflated, keep);
}

/* The cuts from p->raw_start on, up to @end (G_MAXUINT64: where the
 * text ends), each chunk dispatched and the chunks replayed as they
 * are done; FALSE on an error, the chunks stopped. */
static gboolean
cut_text (Reader   *r,
          Parallel *p,
          guint64   end,
          guint64  *raw_read,
          double    base,
          double    span,
          goffset   size,
          GError  **error)
{
  /* a .json.gz's blocks looked through are kept: not as far */
  guint64 look = p->inflated != NULL ? p->chunk_bytes + INFLATED_LOOK : MAX_OPEN_BYTES;
  gboolean ok = TRUE;
  guint n_cut = 0;

  p->raw_state = r->stream_state;
  p->replay_offset = p->open_offset;
  p->probe = g_malloc (PROBE_BYTES);

  while (ok && p->mode == MODE_EVENTS && !p->raw_gave_up)
    {
      guint64 from = p->raw_start, brace, next;
      KsPhaseClock clock;
      Chunk *c;

      ks_phase_start (&clock);
      if (end < from + p->chunk_bytes + 4 ||
          !find_cut (p, from + p->chunk_bytes - 1, MIN (end, from + look), &brace, &next))
        {
          ks_phase_add (&clock, &p->t_cut);
          break;
        }
      c = ks_json_par_chunk_new (p);
      if (p->open->len > 0)
        {
          /* the compacted text before it (after the array's `[`, or a
           * chunk that did not end between two events) */
          GByteArray *spare = c->data;
          GArray *spare_marks = c->marks;

          c->data = p->open;
          c->marks = p->open_marks;
          p->open = spare;
          p->open_marks = spare_marks;
          c->offset = p->open_offset;
          c->seen = p->open_seen;
          p->open_seen = 0;
        }
      else
        c->offset_pending = TRUE;
      c->raw_from = from;
      c->raw_to = brace + 1;
      c->raw_state = p->raw_state;
      if (p->inflated != NULL)
        c->held = ks_json_inflated_hold (p->inflated, from, brace + 1);
      /* between two events, if the cut is right: as at the start */
      memset (&p->raw_state, 0, sizeof p->raw_state);
      p->raw_start = next;
      ks_json_par_dispatch (r, p, c);
      ks_phase_add (&clock, &p->t_cut);
      n_cut++;
      r->orig_offset += next - from;
      /* a .json.gz's progress is its compressed bytes, which its blocks
       * advance */
      if (p->inflated == NULL)
        *raw_read += next - from;
      ok = ks_json_source_progress (r, *raw_read, base, span, size, error) &&
           ks_json_par_replay (r, p, p->in_flight, error);
      if (p->inflated != NULL)
        drop_inflated (p);
    }
  /* once the chunks cut are replayed, the state where the rest starts
   * is known: the caller compacts it on from there */
  if (ok && p->mode == MODE_EVENTS)
    ok = ks_json_par_replay (r, p, 0, error);
  g_debug ("%s: %u chunks cut from the %s as it lies", r->name, n_cut,
           p->inflated != NULL ? "inflated text" : "file's text");
  g_clear_pointer (&p->probe, g_free);
  if (!ok)
    {
      /* no chunk reads the text after this */
      ks_json_parallel_stop (r);
      return FALSE;
    }
  if (p->mode == MODE_EVENTS)
    {
      r->stream_state = p->raw_state;
      if (p->open->len == 0)
        p->open_offset = p->replay_offset;
      r->text_fed = p->open_offset + p->open->len;
    }
  return TRUE;
}

gboolean
ks_json_read_raw (Reader   *r,
                  int       fd,
                  goffset  *pos,
                  goffset   end,
                  guint64  *raw_read,
                  double    base,
                  double    span,
                  goffset   size,
                  GError  **error)
{
  Parallel *p = r->parallel;
  gboolean ok;

  if (!ks_json_par_raw_ready (r) || *pos >= end)
    return TRUE;
  p->raw_fd = fd;
  p->raw_start = (guint64) *pos;
  ok = cut_text (r, p, (guint64) end, raw_read, base, span, size, error);
  if (!ok)
    return FALSE;
  *pos = (goffset) p->raw_start;
  p->raw_fd = -1;
  return TRUE;
}

gboolean
ks_json_read_inflated (Reader          *r,
                       KsJsonInflated  *t,
                       guint64         *pos,
                       guint64         *raw_read,
                       double           base,
                       double           span,
                       goffset          size,
                       GError         **error)
{
  Parallel *p = r->parallel;
  gboolean ok;

  if (!ks_json_par_raw_ready (r))
    return TRUE;
  p->inflated = t;
  p->raw_start = *pos;
  ok = cut_text (r, p, G_MAXUINT64, raw_read, base, span, size, error);
  if (!ok)
    return FALSE;
  *pos = p->raw_start;
  p->inflated = NULL;
  return TRUE;
}
