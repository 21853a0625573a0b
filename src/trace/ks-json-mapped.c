/* ks-json-mapped.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-json-reader"

/* A plain file's text, mapped a window at a time and compacted either on
 * the reading thread, block by block before it is parsed, or on a thread
 * of its own a few blocks ahead (on many threads, where the reading
 * thread's own work sets the pace of a load). */

#include "config.h"

#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gio/gfiledescriptorbased.h>

#include "ks-json-reader-private.h"
#include "ks-load-phases.h"

/* Plain files are mapped a window at a time rather than read(): yajl
 * parses a compacted copy either way, so mapping saves the kernel's copy
 * of every byte (a few percent of a load). Only ks_json_compact()
 * touches the mapping. If another program truncates the file meanwhile,
 * that access raises SIGBUS; the handler jumps back out of the compaction
 * (which holds no locks and allocates nothing) and the file is treated as
 * ending there, like any file cut short. */

#define MAP_WINDOW (8 * 1024 * 1024)
#define MAP_ALIGN  (2 * 1024 * 1024)   /* where the page cache holds huge pages */

static __thread sigjmp_buf *bus_jump;
static struct sigaction     bus_previous;

static void
on_sigbus (int        sig,
           siginfo_t *info,
           void      *context)
{
  sigjmp_buf *jump = bus_jump;

  if (jump != NULL)
    {
      bus_jump = NULL;
      siglongjmp (*jump, 1);
    }
  /* not ours: the previous disposition handles the fault when it
   * happens again on return */
  sigaction (SIGBUS, &bus_previous, NULL);
}

static gboolean
sigbus_guard_init (void)
{
  static gsize done;
  static gboolean ok;

  if (g_once_init_enter (&done))
    {
      struct sigaction sa = { 0 };

      sa.sa_sigaction = on_sigbus;
      sa.sa_flags = SA_SIGINFO | SA_NODEFER;
      sigemptyset (&sa.sa_mask);
      ok = sigaction (SIGBUS, &sa, &bus_previous) == 0;
      g_once_init_leave (&done, 1);
    }
  return ok;
}

/* ks_json_compact() over mapped bytes; FALSE (and @state untouched) when
 * the bytes vanished under it. */
static gboolean
compact_mapped (const guint8 *p,
                gsize         n,
                char         *out,
                KsJsonCompactState *state,
                gsize        *written)
{
  sigjmp_buf jump;
  KsJsonCompactState saved = *state;

  if (sigsetjmp (jump, 0) != 0)
    {
      *state = saved;
      return FALSE;
    }
  bus_jump = &jump;
  *written = ks_json_compact (p, n, out, state);
  bus_jump = NULL;
  return TRUE;
}

/* The compaction on a thread of its own: it maps the windows and drops
 * the white space of each block into one of a few buffers, which travel
 * to the reading thread and back through two queues, full and free, as
 * a .json.gz's inflated blocks do. The reading thread then cuts, replays
 * and parses what the workers left; the text it is handed is the same,
 * block for block, as it would have compacted itself. It does not copy
 * a block: the chunks cut from it hold it until their parse has copied
 * their text (ks_json_feed_shared_block()), and it goes back to the free
 * queue when the last lets go. So the thread is given another block in
 * its place, one that chunks gave back or a new one: as many circulate
 * as before (the compaction's lead), and one more exists for each chunk
 * in flight that has not copied its text yet. */

#define N_MAPPED_BLOCKS 4
/* From this many threads on (KINESCOPE_JSON_COMPACT=thread or =read
 * chooses): below it the cores are busy with the parse, and the thread
 * would only add a copy of the text. */
#define COMPACT_THREAD_THREADS 4

typedef enum
{
  BLOCK_TEXT,
  BLOCK_END,       /* the mapping ends (or could not be made) here */
  BLOCK_CUT,       /* the file was truncated under the mapping */
} BlockKind;

typedef struct _MappedSource MappedSource;

typedef struct
{
  MappedSource       *src;
  guint8             *data;
  gsize               len;      /* compacted bytes */
  gsize               raw;      /* bytes of the file they stand for */
  guint               seen;
  KsJsonCompactState  state;    /* the compaction's, after the block */
  BlockKind           kind;
} MappedBlock;

struct _MappedSource
{
  int                 fd;
  goffset             pos;
  goffset             end;
  gsize               block_size;
  KsJsonCompactState  state;
  GAsyncQueue        *full;
  GAsyncQueue        *free;
  GAsyncQueue        *returned;  /* blocks that chunks let go of */
  gint                stop;
  guint               n_made;     /* blocks, by the reading thread */
  /* this thread's time by phase (KINESCOPE_LOAD_PHASES) */
  KsPhaseClock        t_compact;
  KsPhaseClock        t_wait;     /* for a block the parse gave back */
};

/* Pushed to the free queue to wake the thread when the reading stops. */
static MappedBlock wake_block;

static gboolean
compacts_on_thread (Reader *r)
{
  const char *env = g_getenv ("KINESCOPE_JSON_COMPACT");

  if (g_strcmp0 (env, "thread") == 0)
    return TRUE;
  if (g_strcmp0 (env, "read") == 0)
    return FALSE;
  return r->parallel != NULL && ks_json_thread_count () >= COMPACT_THREAD_THREADS;
}

/* The next free block, or NULL when the reading thread stopped. */
static MappedBlock *
take_free (MappedSource *src)
{
  KsPhaseClock clock;
  MappedBlock *b;

  ks_phase_start (&clock);
  b = g_async_queue_pop (src->free);
  ks_phase_add (&clock, &src->t_wait);
  if (g_atomic_int_get (&src->stop))
    {
      /* every block made is collected at the end */
      if (b != &wake_block)
        g_async_queue_push (src->free, b);
      return NULL;
    }
  return b;
}

/* The last reference to a block's text went (a GBytes' free function,
 * on whichever thread let go of it). */
static void
block_returned (gpointer data)
{
  MappedBlock *b = data;

  g_async_queue_push (b->src->returned, b);
}

/* A block for the thread to fill: one that chunks gave back, else new. */
static MappedBlock *
spare_block (MappedSource *src)
{
  MappedBlock *b = g_async_queue_try_pop (src->returned);

  if (b != NULL)
    return b;
  b = g_new0 (MappedBlock, 1);
  b->src = src;
  /* room for the compaction's whole-vector stores past its end */
  b->data = g_malloc (src->block_size + 64);
  src->n_made++;
  return b;
}

static gpointer
mapped_source_thread (gpointer data)
{
  MappedSource *src = data;
  goffset pos = src->pos;
  MappedBlock *b = NULL;
  KsPhaseClock clock;
  gboolean cut = FALSE;

  while (pos < src->end && !cut)
    {
      goffset start = pos & ~(goffset) (MAP_ALIGN - 1);
      gsize len = (gsize) MIN ((goffset) MAP_WINDOW, src->end - start);
      guint8 *map = mmap (NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, src->fd, start);

      if (map == MAP_FAILED)
        break;
      for (gsize off = (gsize) (pos - start); off < len;)
        {
          gsize k, m = 0;

          if (b == NULL)
            {
              if ((b = take_free (src)) == NULL)
                {
                  munmap (map, len);
                  return NULL;
                }
              b->len = b->raw = 0;
              b->seen = 0;
            }
          /* the compacted text never grows: this much more fits */
          k = MIN (src->block_size - b->len, len - off);
          ks_phase_start (&clock);
          cut = !compact_mapped (map + off, k, (char *) b->data + b->len, &src->state, &m);
          ks_phase_add (&clock, &src->t_compact);
          if (cut)
            break;
          b->len += m;
          b->raw += k;
          b->seen |= ks_json_take_seen (&src->state);
          b->state = src->state;
          pos += k;
          off += k;
          /* blocks of about a chunk's compacted text, so that a chunk
           * is cut from each (ks_json_feed_shared_block()) */
          if (src->block_size - b->len < src->block_size / 8)
            {
              b->kind = BLOCK_TEXT;
              g_async_queue_push (src->full, g_steal_pointer (&b));
            }
        }
      munmap (map, len);
    }
  if (b != NULL && b->raw > 0)
    {
      b->kind = BLOCK_TEXT;
      g_async_queue_push (src->full, g_steal_pointer (&b));
    }
  /* where the text ends, or was truncated under the mapping */
  if (b == NULL)
    b = take_free (src);
  if (b != NULL)
    {
      b->kind = cut ? BLOCK_CUT : BLOCK_END;
      b->raw = b->len = 0;
      b->seen = ks_json_take_seen (&src->state);
      b->state = src->state;
      g_async_queue_push (src->full, b);
    }
  return NULL;
}

/* ks_json_read_mapped() with the compaction on a thread of its own. */
static gboolean
read_compacted (Reader        *r,
                GInputStream  *stream,
                int            fd,
                goffset        pos,
                goffset        end,
                guint64       *raw_read,
                double         base,
                double         span,
                goffset        size,
                GError       **error)
{
  MappedSource src = { 0 };
  MappedBlock *b = NULL;
  GThread *thread;
  gboolean ok = TRUE, done = FALSE, relocate = FALSE;
  guint n_blocks = 0;

  src.fd = fd;
  src.pos = pos;
  src.end = end;
  src.block_size = ks_json_block_size (r);
  src.state = r->stream_state;
  src.full = g_async_queue_new ();
  src.free = g_async_queue_new ();
  src.returned = g_async_queue_new ();
  for (guint i = 0; i < N_MAPPED_BLOCKS; i++)
    g_async_queue_push (src.free, spare_block (&src));
  thread = g_thread_new ("ks-compact", mapped_source_thread, &src);

  for (;;)
    {
      KsPhaseClock clock;
      g_autoptr(GBytes) text = NULL;
      gsize raw;
      gboolean fed;

      ks_phase_start (&clock);
      b = g_async_queue_pop (src.full);
      ks_json_parallel_note_input_wait (r, &clock);
      r->stream_state = b->state;
      if (b->kind != BLOCK_TEXT)
        {
          g_async_queue_push (src.free, b);
          break;
        }
      /* the chunks cut from it hold it: the thread fills another */
      g_async_queue_push (src.free, spare_block (&src));
      raw = b->raw;
      text = g_bytes_new_with_free_func (b->data, b->len, block_returned, b);
      r->text_fed += b->len;
      fed = ks_json_feed_shared_block (r, text, b->len, b->seen, b->state.in_string, error);
      g_clear_pointer (&text, g_bytes_unref);
      if (!fed)
        {
          ok = FALSE;
          relocate = TRUE;
          break;
        }
      n_blocks++;
      r->orig_offset += raw;
      *raw_read += raw;
      pos += raw;
      if (!ks_json_source_progress (r, *raw_read, base, span, size, error))
        {
          ok = FALSE;
          break;
        }
      if (ks_json_past_value (r))
        {
          done = TRUE;
          break;
        }
    }

  /* the thread may wait for a free block: it finds the stop */
  g_atomic_int_set (&src.stop, 1);
  g_async_queue_push (src.free, &wake_block);
  g_thread_join (thread);
  g_debug ("%s: %u blocks compacted on a thread of their own, in %u buffers", r->name, n_blocks, src.n_made);
  ks_phase_print ("map: compaction", &src.t_compact);
  ks_phase_print ("map: waiting for the parse", &src.t_wait);
  /* every block made comes back: those compacted ahead, and those that
   * chunks still hold, as soon as their parse has copied their text
   * (the workers take every chunk dispatched, this thread or not) */
  for (guint back = 0; back < src.n_made;)
    {
      b = g_async_queue_try_pop (src.full);
      if (b == NULL)
        b = g_async_queue_try_pop (src.free);
      if (b == NULL)
        b = g_async_queue_pop (src.returned);
      if (b == &wake_block)
        continue;
      g_free (b->data);
      g_free (b);
      back++;
    }
  g_async_queue_unref (src.full);
  g_async_queue_unref (src.free);
  g_async_queue_unref (src.returned);

  if (relocate)
    ks_json_relocate_error (r, stream, FALSE, error);
  if (!ok)
    return FALSE;
  if (done)
    return TRUE;
  return g_seekable_seek (G_SEEKABLE (stream), pos, G_SEEK_SET, r->cancellable, error);
}

/* Parses the rest of a regular file's text through the mapping, from the
 * stream's position up to the size the file has now; the stream is left
 * after what was parsed, so that reading on picks up anything appended
 * since. Files that cannot be mapped are left to read(). */
gboolean
ks_json_read_mapped (Reader        *r,
                     GInputStream  *stream,
                     guint8        *cbuf,
                     guint64       *raw_read,
                     double         base,
                     double         span,
                     goffset        size,
                     GError       **error)
{
  struct stat st;
  goffset pos, end, first;
  int fd;

  if (!G_IS_FILE_DESCRIPTOR_BASED (stream) || !G_IS_SEEKABLE (stream)
      || !sigbus_guard_init ())
    return TRUE;
  fd = g_file_descriptor_based_get_fd (G_FILE_DESCRIPTOR_BASED (stream));
  pos = g_seekable_tell (G_SEEKABLE (stream));
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || pos < 0 || (goffset) lseek (fd, 0, SEEK_CUR) != pos)
    return TRUE;
  end = st.st_size;
  /* the event array cut as it lies (ks-json-parallel-raw.c): what it
   * leaves, the text after the last cut, is compacted here */
  first = pos;
  if (!ks_json_read_raw (r, fd, &pos, end, raw_read, base, span, size, error))
    {
      ks_json_relocate_error (r, stream, FALSE, error);
      return FALSE;
    }
  if (ks_json_past_value (r))
    return TRUE;
  if (pos == first && compacts_on_thread (r))
    return read_compacted (r, stream, fd, pos, end, raw_read, base, span, size, error);

  while (pos < end)
    {
      goffset start = pos & ~(goffset) (MAP_ALIGN - 1);
      gsize len = (gsize) MIN ((goffset) MAP_WINDOW, end - start);
      guint8 *map = mmap (NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, start);
      gboolean cut = FALSE;

      if (map == MAP_FAILED)
        break;
      for (gsize off = (gsize) (pos - start); off < len;)
        {
          gsize k = MIN (ks_json_block_size (r), len - off);
          gsize m = 0;
          guint8 *out = ks_json_block_buffer (r, cbuf, k);

          if (!compact_mapped (map + off, k, (char *) out, &r->stream_state, &m))
            {
              /* truncated meanwhile: the text ends here */
              cut = TRUE;
              end = pos;
              break;
            }
          if (!ks_json_source_feed (r, out, m, ks_json_take_seen (&r->stream_state), r->stream_state.in_string, error))
            {
              munmap (map, len);
              ks_json_relocate_error (r, stream, FALSE, error);
              return FALSE;
            }
          r->orig_offset += k;
          *raw_read += k;
          pos += k;
          off += k;
          if (!ks_json_source_progress (r, *raw_read, base, span, size, error))
            {
              munmap (map, len);
              return FALSE;
            }
          if (ks_json_past_value (r))
            {
              munmap (map, len);
              return TRUE;
            }
        }
      munmap (map, len);
      if (cut)
        break;
    }

  return g_seekable_seek (G_SEEKABLE (stream), pos, G_SEEK_SET, r->cancellable, error);
}

