/* ks-record-py-sampler.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Python stacks sampled from outside: one thread of the recorder reads
 * every attached process's threads (ks-py-remote.c) at the asked rate,
 * and whether each runs (R in /proc/PID/task/TID/stat) or waits (S, D:
 * sleep, a lock, I/O, the GIL). The target pays nothing and no sample
 * waits for its GIL, so a thread spinning in pure Python gets the asked
 * rate, not the ~200 Hz the interpreter's switch interval lets an
 * in-process sampler have.
 *
 * The samples go through a queue to the thread that writes, which holds
 * each a while: a process's capture-range starts and stops arrive on its
 * connection up to a tick (50 ms) late, and a sample is kept only when
 * its process was capturing at its time. Outside a range, as far as the
 * marks that have arrived tell, a process is not read at all. */

#define _GNU_SOURCE
#define G_LOG_DOMAIN "ks-record-session"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gi18n.h>

#include "ks-py-remote.h"
#include "ks-record-private.h"
#include "ks-record-writer.h"

/* rounds a late sampling thread makes up */
#define CATCH_UP 4
/* how long a sample waits for its process's capture marks */
#define HOLD_NS G_GUINT64_CONSTANT (300000000)

typedef struct
{
  gint64      pid;
  guint32     skip_tid;   /* the Python side's own thread */
  KsPyRemote *remote;
  GHashTable *stat_fds;   /* tid → fd of /proc/PID/task/TID/stat, + 1 */
  GHashTable *seen;       /* tids of this round */
  gboolean    gone;
} Target;

typedef struct
{
  guint32 function;       /* ids in KsRecordPySampler.texts */
  guint32 file;
  guint32 line;
} ItemFrame;

typedef struct
{
  gint64    pid;
  guint64   timestamp;
  guint32   tid;
  gint      waiting;      /* 1 waits, 0 runs, -1 not known */
  char      comm[16];     /* the kernel's name of the thread then, or "" */
  guint     n_frames;
  ItemFrame frames[];
} Item;

typedef struct
{
  guint64  timestamp;
  gboolean on;
} Mark;

struct _KsRecordPySampler
{
  KsRecordSession *session;
  guint64          interval_ns;
  GThread         *thread;
  GMutex           mutex;     /* targets, stop, texts, live */
  GCond            cond;
  GPtrArray       *targets;
  gboolean         stop;
  GAsyncQueue     *items;
  /* the sampler thread's strings: id → text; text → id its own */
  GPtrArray       *texts;
  GHashTable      *text_ids;
  GHashTable      *live;      /* pid → 1 + whether it captures, by the last mark */

  /* the writing thread's */
  GQueue           pending;
  GArray          *writer_ids;  /* texts id → writer string id, 0 not yet */
  GHashTable      *marks;       /* pid → GArray of Mark */
  gboolean         initially_on;
};

static void
target_free (gpointer data)
{
  Target *t = data;
  GHashTableIter iter;
  gpointer fd;

  g_hash_table_iter_init (&iter, t->stat_fds);
  while (g_hash_table_iter_next (&iter, NULL, &fd))
    close (GPOINTER_TO_INT (fd) - 1);
  g_hash_table_unref (t->stat_fds);
  g_hash_table_unref (t->seen);
  ks_py_remote_free (t->remote);
  g_free (t);
}

KsRecordPySampler *
ks_record_py_sampler_new (KsRecordSession *session)
{
  KsRecordPySampler *self = g_new0 (KsRecordPySampler, 1);
  const char *range = session->options.capture_range;

  self->session = session;
  self->interval_ns = G_GUINT64_CONSTANT (1000000000) / MAX (session->options.python_sampling_hz, 1);
  g_mutex_init (&self->mutex);
  g_cond_init (&self->cond);
  self->targets = g_ptr_array_new_with_free_func (target_free);
  self->items = g_async_queue_new_full (g_free);
  self->texts = g_ptr_array_new_with_free_func (g_free);
  /* id 0 is no text */
  g_ptr_array_add (self->texts, g_strdup (""));
  self->text_ids = g_hash_table_new (g_str_hash, g_str_equal);
  self->live = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_queue_init (&self->pending);
  self->writer_ids = g_array_new (FALSE, TRUE, sizeof (guint32));
  self->marks = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, (GDestroyNotify) g_array_unref);
  /* as the injection library starts (ks_inject_config_load) */
  self->initially_on = range == NULL || *range == '\0' || g_str_equal (range, "none");
  return self;
}

void
ks_record_py_sampler_stop (KsRecordPySampler *self)
{
  g_mutex_lock (&self->mutex);
  self->stop = TRUE;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->mutex);
  if (self->thread != NULL)
    g_thread_join (g_steal_pointer (&self->thread));
}

void
ks_record_py_sampler_free (KsRecordPySampler *self)
{
  if (self == NULL)
    return;
  ks_record_py_sampler_stop (self);
  g_ptr_array_unref (self->targets);
  g_async_queue_unref (self->items);
  g_hash_table_unref (self->text_ids);
  g_hash_table_unref (self->live);
  g_ptr_array_unref (self->texts);
  g_queue_clear_full (&self->pending, g_free);
  g_array_unref (self->writer_ids);
  g_hash_table_unref (self->marks);
  g_mutex_clear (&self->mutex);
  g_cond_clear (&self->cond);
  g_free (self);
}

/* --- the sampling thread ------------------------------------------------- */

/* Called with the mutex held. */
static guint32
text_id (KsRecordPySampler *self,
         const char        *text)
{
  gpointer id;
  char *copy;

  if (g_hash_table_lookup_extended (self->text_ids, text, NULL, &id))
    return GPOINTER_TO_UINT (id);
  copy = g_strdup (text);
  g_ptr_array_add (self->texts, copy);
  g_hash_table_insert (self->text_ids, copy, GUINT_TO_POINTER (self->texts->len - 1));
  return self->texts->len - 1;
}

/* 1 waiting, 0 running, -1 not known: the state letter after the
 * command's closing parenthesis; the command itself, the thread's name
 * in the kernel, into @comm (a program names its threads when it likes:
 * a forked DataLoader worker after it connected). */
static gint
thread_waiting (Target  *t,
                guint32  tid,
                char     comm[16])
{
  gpointer stored = g_hash_table_lookup (t->stat_fds, GUINT_TO_POINTER (tid));
  int fd = GPOINTER_TO_INT (stored) - 1;
  char buf[512];
  ssize_t n;
  const char *paren, *open_paren;

  if (stored == NULL)
    {
      g_autofree char *path = g_strdup_printf ("/proc/%" G_GINT64_FORMAT "/task/%u/stat", t->pid, tid);

      if ((fd = open (path, O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
      g_hash_table_insert (t->stat_fds, GUINT_TO_POINTER (tid), GINT_TO_POINTER (fd + 1));
    }
  g_hash_table_add (t->seen, GUINT_TO_POINTER (tid));
  if ((n = pread (fd, buf, sizeof buf - 1, 0)) <= 0)
    return -1;
  buf[n] = '\0';
  if ((paren = strrchr (buf, ')')) == NULL || paren[1] != ' ' || paren[2] == '\0')
    return -1;
  if ((open_paren = strchr (buf, '(')) != NULL && open_paren < paren)
    {
      gsize len = MIN ((gsize) (paren - open_paren - 1), 15);

      memcpy (comm, open_paren + 1, len);
      comm[len] = '\0';
    }
  return paren[2] == 'R' ? 0 : 1;
}

typedef struct
{
  KsRecordPySampler *self;
  Target            *target;
  guint64            timestamp;
} Round;

static void
take_stack (const KsPyRemoteStack *stack,
            gpointer               user_data)
{
  Round *round = user_data;
  KsRecordPySampler *self = round->self;
  Item *item;

  if (stack->tid == round->target->skip_tid)
    return;
  item = g_malloc (sizeof (Item) + stack->n_frames * sizeof (ItemFrame));
  item->pid = round->target->pid;
  item->timestamp = round->timestamp;
  item->tid = stack->tid;
  item->comm[0] = '\0';
  item->waiting = thread_waiting (round->target, stack->tid, item->comm);
  item->n_frames = stack->n_frames;
  g_mutex_lock (&self->mutex);
  for (guint i = 0; i < stack->n_frames; i++)
    {
      item->frames[i].function = text_id (self, stack->frames[i].function);
      item->frames[i].file = text_id (self, stack->frames[i].file);
      item->frames[i].line = stack->frames[i].line;
    }
  g_mutex_unlock (&self->mutex);
  g_async_queue_push (self->items, item);
}

/* Closes the stat files of threads that were not in this round. */
static void
forget_threads (Target *t)
{
  GHashTableIter iter;
  gpointer tid;
  gpointer fd;

  g_hash_table_iter_init (&iter, t->stat_fds);
  while (g_hash_table_iter_next (&iter, &tid, &fd))
    if (!g_hash_table_contains (t->seen, tid))
      {
        close (GPOINTER_TO_INT (fd) - 1);
        g_hash_table_iter_remove (&iter);
      }
  g_hash_table_remove_all (t->seen);
}

static gpointer
sampler_thread (gpointer data)
{
  KsRecordPySampler *self = data;
  g_autoptr(GPtrArray) round = g_ptr_array_new ();
  guint64 next = ks_record_now_mono ();
  guint skipped;

  /* A measurement switch: on cores the job keeps busy, a woken sampler
   * takes a core from one of its threads for the round; SCHED_IDLE
   * never does, and gets the rate only where a core is free. */
  if (g_strcmp0 (g_getenv ("KINESCOPE_PYTHON_SAMPLER_POLICY"), "idle") == 0)
    {
      struct sched_param param = { 0 };
      pthread_setschedparam (pthread_self (), SCHED_IDLE, &param);
    }

  for (;;)
    {
      g_mutex_lock (&self->mutex);
      for (;;)
        {
          gint64 now_ns = (gint64) ks_record_now_mono ();

          if (self->stop)
            break;
          if (self->targets->len == 0)
            {
              g_cond_wait (&self->cond, &self->mutex);
              next = ks_record_now_mono ();
              continue;
            }
          if ((gint64) next <= now_ns)
            break;
          g_cond_wait_until (&self->cond, &self->mutex,
                             g_get_monotonic_time () + ((gint64) next - now_ns) / 1000);
        }
      if (self->stop)
        {
          g_mutex_unlock (&self->mutex);
          break;
        }
      g_ptr_array_set_size (round, 0);
      for (guint i = 0; i < self->targets->len; i++)
        {
          Target *t = g_ptr_array_index (self->targets, i);
          gpointer live = g_hash_table_lookup (self->live, &t->pid);

          if (live == NULL ? self->initially_on : GPOINTER_TO_INT (live) - 1)
            g_ptr_array_add (round, t);
        }
      skipped = self->targets->len - round->len;
      g_mutex_unlock (&self->mutex);

      g_mutex_lock (&self->session->mutex);
      self->session->stats.python_reads += round->len;
      self->session->stats.python_skipped += skipped;
      g_mutex_unlock (&self->session->mutex);

      /* targets are freed only by this thread (gone) or after it ends */
      for (guint i = 0; i < round->len; i++)
        {
          Round r = { self, g_ptr_array_index (round, i), ks_record_now_mono () };

          if (!ks_py_remote_sample (r.target->remote, take_stack, &r, NULL))
            r.target->gone = TRUE;
          forget_threads (r.target);
        }

      g_mutex_lock (&self->mutex);
      for (guint i = self->targets->len; i > 0; i--)
        if (((Target *) g_ptr_array_index (self->targets, i - 1))->gone)
          g_ptr_array_remove_index_fast (self->targets, i - 1);
      g_mutex_unlock (&self->mutex);

      next += self->interval_ns;
      /* A round a little late (this thread waited for a CPU) is made up
       * at once; one far behind is skipped: a burst of rounds after a
       * long stall would say what ran during it from what runs after. */
      if (next + CATCH_UP * self->interval_ns < ks_record_now_mono ())
        next = ks_record_now_mono () + self->interval_ns;
    }
  return NULL;
}

/* --- the writing thread --------------------------------------------------- */

typedef struct
{
  guint32  tid;
  gboolean found;
} Asker;

/* The thread that asked waits in Sampler._read_from_outside() of the
 * Python side: finding it there proves the layout end to end (thread
 * states, frames, code objects, strings, line tables). */
static void
find_asker (const KsPyRemoteStack *stack,
            gpointer               user_data)
{
  Asker *asker = user_data;

  if (stack->tid != asker->tid)
    return;
  for (guint i = 0; i < stack->n_frames; i++)
    if (g_str_equal (stack->frames[i].function, "Sampler._read_from_outside")
        && g_str_has_suffix (stack->frames[i].file, "_kinescope_python.py") && stack->frames[i].line > 0)
      asker->found = TRUE;
}

void
ks_record_py_sampler_attach (KsRecordPySampler *self,
                             gint64             pid,
                             guint64            flag_address,
                             guint32            skip_tid)
{
  KsRecordWriter *w = self->session->writer;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsPyRemote) remote = NULL;
  guint32 flag = 0;
  Target *t;

  remote = ks_py_remote_open ((pid_t) pid, &error);
  if (remote != NULL)
    {
      Asker asker = { skip_tid, FALSE };

      if (ks_py_remote_sample (remote, find_asker, &asker, &error) && !asker.found)
        g_set_error (&error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                     _("the stack of the thread that asked (%u) does not read as Python %u.%u's"),
                     skip_tid, ks_py_remote_get_version (remote) >> 24, ks_py_remote_get_version (remote) >> 16 & 0xff);
      if (error != NULL)
        g_clear_pointer (&remote, ks_py_remote_free);
    }
  if (remote != NULL && ks_py_remote_read_u32 ((pid_t) pid, flag_address, &flag, &error)
      && flag == KS_WIRE_PY_OUTSIDE_PENDING)
    ks_py_remote_write_u32 ((pid_t) pid, flag_address, KS_WIRE_PY_OUTSIDE_READ, &error);
  if (error != NULL)
    {
      /* where the memory can be written but not read as Python's (another
       * version), the process need not wait for an answer that will not
       * come; where it cannot be written, it stops waiting by itself */
      g_autofree char *text = g_strdup_printf (_("Python stacks of process %" PRId64 " are sampled "
                                                 "inside it, where samples wait for the GIL: %s"),
                                               pid, error->message);

      ks_py_remote_write_u32 ((pid_t) pid, flag_address, KS_WIRE_PY_OUTSIDE_INSIDE, NULL);
      ks_record_writer_add_diagnostic (w, ks_record_now_mono (), "warning", "python", text);
      return;
    }
  /* the Python side gave up waiting and samples itself */
  if (flag != KS_WIRE_PY_OUTSIDE_PENDING)
    return;

  t = g_new0 (Target, 1);
  t->pid = pid;
  t->skip_tid = skip_tid;
  t->remote = g_steal_pointer (&remote);
  t->stat_fds = g_hash_table_new (NULL, NULL);
  t->seen = g_hash_table_new (NULL, NULL);
  g_mutex_lock (&self->mutex);
  g_ptr_array_add (self->targets, t);
  if (self->thread == NULL && !self->stop)
    self->thread = g_thread_new ("ks-py-sampler", sampler_thread, self);
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->mutex);
}

void
ks_record_py_sampler_capture (KsRecordPySampler *self,
                              gint64             pid,
                              guint64            timestamp,
                              gboolean           on)
{
  GArray *marks = g_hash_table_lookup (self->marks, &pid);
  Mark m = { timestamp, on };

  g_mutex_lock (&self->mutex);
  g_hash_table_insert (self->live, g_memdup2 (&pid, sizeof pid), GINT_TO_POINTER (on ? 2 : 1));
  g_mutex_unlock (&self->mutex);

  if (marks == NULL)
    {
      marks = g_array_new (FALSE, FALSE, sizeof (Mark));
      g_hash_table_insert (self->marks, g_memdup2 (&pid, sizeof pid), marks);
    }
  g_array_append_val (marks, m);
}

static gboolean
capturing_at (KsRecordPySampler *self,
              gint64             pid,
              guint64            timestamp)
{
  GArray *marks = g_hash_table_lookup (self->marks, &pid);
  gboolean on = self->initially_on;

  for (guint i = 0; marks != NULL && i < marks->len; i++)
    if (g_array_index (marks, Mark, i).timestamp <= timestamp)
      on = g_array_index (marks, Mark, i).on;
  return on;
}

static guint32
writer_string (KsRecordPySampler *self,
               guint32            id)
{
  guint32 *slot;

  if (id >= self->writer_ids->len)
    g_array_set_size (self->writer_ids, id + 1);
  slot = &g_array_index (self->writer_ids, guint32, id);
  if (*slot == 0)
    {
      g_mutex_lock (&self->mutex);
      *slot = ks_record_writer_intern (self->session->writer, g_ptr_array_index (self->texts, id));
      g_mutex_unlock (&self->mutex);
    }
  return *slot;
}

static KsRecordConnection *
find_connection (KsRecordSession *session,
                 gint64           pid)
{
  GPtrArray *lists[] = { session->connections, session->detached };

  for (guint k = 0; k < G_N_ELEMENTS (lists); k++)
    for (guint i = 0; i < lists[k]->len; i++)
      {
        KsRecordConnection *c = g_ptr_array_index (lists[k], i);

        if (c->pid == pid && !c->superseded)
          return c;
      }
  return NULL;
}

static void
write_item (KsRecordPySampler  *self,
            KsRecordConnection *c,
            const Item         *item)
{
  KsRecordSession *session = self->session;
  KsRecordWriter *w = session->writer;
  guint32 symbols[KS_PY_REMOTE_MAX_FRAMES];
  guint32 modules[KS_PY_REMOTE_MAX_FRAMES];
  guint32 lines[KS_PY_REMOTE_MAX_FRAMES];
  KsRecordStack stack;

  if (c == NULL || item->timestamp < session->filter_from || !capturing_at (self, item->pid, item->timestamp))
    return;
  for (guint i = 0; i < item->n_frames; i++)
    {
      symbols[i] = writer_string (self, item->frames[i].function);
      modules[i] = writer_string (self, item->frames[i].file);
      lines[i] = item->frames[i].line;
    }
  stack = ks_record_writer_intern_stack (w, item->n_frames, symbols, modules, lines);
  ks_record_connection_see_thread (c, item->tid, item->comm);
  ks_record_writer_add_python_sample (w, item->pid, item->timestamp, item->tid, stack, item->waiting);
  if (stack != KS_RECORD_STACK_NONE && stack != KS_RECORD_STACK_DROPPED)
    {
      g_mutex_lock (&session->mutex);
      session->stats.python_samples++;
      g_mutex_unlock (&session->mutex);
    }
}

/* Writes the samples older than HOLD_NS, or all of them (@all), or those
 * of @ending's process whatever their age (@ending is no longer among the
 * session's connections). */
static void
write_pending (KsRecordPySampler  *self,
               gboolean            all,
               KsRecordConnection *ending)
{
  gint64 only_pid = ending != NULL ? ending->pid : 0;
  Item *item;
  guint64 before = ks_record_now_mono () - HOLD_NS;
  GList *l;
  gint64 last_pid = 0;
  KsRecordConnection *c = NULL;

  while ((item = g_async_queue_try_pop (self->items)) != NULL)
    g_queue_push_tail (&self->pending, item);
  for (l = self->pending.head; l != NULL;)
    {
      GList *next = l->next;

      item = l->data;
      if (all || item->pid == only_pid || item->timestamp < before)
        {
          if (item->pid != last_pid)
            {
              c = item->pid == only_pid ? ending : find_connection (self->session, item->pid);
              last_pid = item->pid;
            }
          write_item (self, c, item);
          g_queue_delete_link (&self->pending, l);
          g_free (item);
        }
      else if (only_pid <= 0)
        break;
      l = next;
    }
}

void
ks_record_py_sampler_write (KsRecordPySampler *self)
{
  write_pending (self, FALSE, NULL);
}

void
ks_record_py_sampler_forget (KsRecordPySampler  *self,
                             KsRecordConnection *c)
{
  gint64 pid = c->pid;

  g_mutex_lock (&self->mutex);
  for (guint i = 0; i < self->targets->len; i++)
    {
      Target *t = g_ptr_array_index (self->targets, i);

      /* freed by the sampling thread, which may be reading it */
      if (t->pid == pid)
        t->gone = TRUE;
    }
  g_mutex_unlock (&self->mutex);
  write_pending (self, FALSE, c);
}

void
ks_record_py_sampler_finish (KsRecordPySampler *self)
{
  ks_record_py_sampler_stop (self);
  write_pending (self, TRUE, NULL);
}
