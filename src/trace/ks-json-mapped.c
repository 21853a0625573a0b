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
 * block for block, as it would have compacted itself. */

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

typedef struct
{
  guint8             *data;
  gsize               len;      /* compacted bytes */
  gsize               raw;      /* bytes of the file they stand for */
  guint               seen;
  KsJsonCompactState  state;    /* the compaction's, after the block */
  BlockKind           kind;
} MappedBlock;

typedef struct
{
  int                 fd;
  goffset             pos;
  goffset             end;
  gsize               block_size;
  KsJsonCompactState  state;
  GAsyncQueue        *full;
  GAsyncQueue        *free;
  gint                stop;
  /* this thread's time by phase (KINESCOPE_LOAD_PHASES) */
  KsPhaseClock        t_compact;
  KsPhaseClock        t_wait;     /* for a block the parse gave back */
} MappedSource;

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
    return NULL;
  return b;
}

static gpointer
mapped_source_thread (gpointer data)
{
  MappedSource *src = data;
  goffset pos = src->pos;
  MappedBlock *b;
  KsPhaseClock clock;

  while (pos < src->end)
    {
      goffset start = pos & ~(goffset) (MAP_ALIGN - 1);
      gsize len = (gsize) MIN ((goffset) MAP_WINDOW, src->end - start);
      guint8 *map = mmap (NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, src->fd, start);

      if (map == MAP_FAILED)
        break;
      for (gsize off = (gsize) (pos - start); off < len;)
        {
          gsize k = MIN (src->block_size, len - off);

          if ((b = take_free (src)) == NULL)
            {
              munmap (map, len);
              return NULL;
            }
          ks_phase_start (&clock);
          b->kind = compact_mapped (map + off, k, (char *) b->data, &src->state, &b->len) ? BLOCK_TEXT : BLOCK_CUT;
          ks_phase_add (&clock, &src->t_compact);
          b->raw = b->kind == BLOCK_TEXT ? k : 0;
          b->seen = ks_json_take_seen (&src->state);
          b->state = src->state;
          g_async_queue_push (src->full, b);
          if (b->kind == BLOCK_CUT)
            {
              munmap (map, len);
              return NULL;
            }
          pos += k;
          off += k;
        }
      munmap (map, len);
    }
  if ((b = take_free (src)) != NULL)
    {
      b->kind = BLOCK_END;
      b->raw = b->len = 0;
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
  MappedBlock blocks[N_MAPPED_BLOCKS];
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
  for (guint i = 0; i < N_MAPPED_BLOCKS; i++)
    {
      /* room for the compaction's whole-vector stores past its end */
      blocks[i].data = g_malloc (src.block_size + 64);
      g_async_queue_push (src.free, &blocks[i]);
    }
  thread = g_thread_new ("ks-compact", mapped_source_thread, &src);

  for (;;)
    {
      KsPhaseClock clock;

      ks_phase_start (&clock);
      b = g_async_queue_pop (src.full);
      ks_json_parallel_note_input_wait (r, &clock);
      r->stream_state = b->state;
      if (b->kind != BLOCK_TEXT)
        break;
      if (!ks_json_source_feed (r, b->data, b->len, b->seen, b->state.in_string, error))
        {
          ok = FALSE;
          relocate = TRUE;
          break;
        }
      n_blocks++;
      r->orig_offset += b->raw;
      *raw_read += b->raw;
      pos += b->raw;
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
      g_async_queue_push (src.free, b);
    }

  /* a block back, for the thread to find the stop when it waits for one */
  if (b->kind == BLOCK_TEXT)
    {
      g_atomic_int_set (&src.stop, 1);
      g_async_queue_push (src.free, b);
    }
  g_thread_join (thread);
  g_debug ("%s: %u blocks compacted on a thread of their own", r->name, n_blocks);
  ks_phase_print ("map: compaction", &src.t_compact);
  ks_phase_print ("map: waiting for the parse", &src.t_wait);
  for (guint i = 0; i < N_MAPPED_BLOCKS; i++)
    g_free (blocks[i].data);
  g_async_queue_unref (src.full);
  g_async_queue_unref (src.free);

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
  goffset pos, end;
  int fd;

  if (!G_IS_FILE_DESCRIPTOR_BASED (stream) || !G_IS_SEEKABLE (stream)
      || !sigbus_guard_init ())
    return TRUE;
  fd = g_file_descriptor_based_get_fd (G_FILE_DESCRIPTOR_BASED (stream));
  pos = g_seekable_tell (G_SEEKABLE (stream));
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || pos < 0 || (goffset) lseek (fd, 0, SEEK_CUR) != pos)
    return TRUE;
  end = st.st_size;
  if (compacts_on_thread (r))
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

