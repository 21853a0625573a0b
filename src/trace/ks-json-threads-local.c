/* ks-json-threads-local.c: the (pid, tid) pairs of a chunk numbered on
 * the thread that parses it
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-json-reader"

/* Finding an event's thread and track in the replay hashes its pid and
 * tid (strings through the reader's tables, numbers through the
 * builder's index, a cache of four pairs in front). Which pair an event
 * names does not depend on the order, only which thread it becomes: so
 * a worker numbers the pairs of its chunk as it keeps their events, and
 * the replay resolves each number once, at its first event, through the
 * usual look-up. That look-up makes the thread where it makes it in the
 * single-threaded read (the first event of the pair that needs one), so
 * processes and threads are numbered as before; the chunk's later events
 * of the pair take the slot. */

#include "config.h"

#include <string.h>

#include "ks-json-parallel-private.h"

enum
{
  IDENT_UNSET,
  IDENT_NUMBER,
  IDENT_TEXT,
};

typedef struct
{
  gint64  pid;          /* the number, or the text's start in bytes */
  gint64  tid;
  guint32 pid_len;      /* of the text */
  guint32 tid_len;
  guint8  pid_kind;     /* IDENT_* */
  guint8  tid_kind;
  guint32 hash;
} Key;

struct _ThreadKeys
{
  GArray     *keys;     /* Key; number n is keys[n - 1] */
  GByteArray *text;     /* the texts of string pids and tids */
  guint32    *slots;    /* open addressing: number, 0 when empty */
  guint32     mask;
  guint32     recent[2]; /* the numbers of the last two pairs seen, last first */
};

ThreadKeys *
ks_json_thread_keys_new (void)
{
  ThreadKeys *k = g_new0 (ThreadKeys, 1);

  k->keys = g_array_new (FALSE, FALSE, sizeof (Key));
  k->text = g_byte_array_new ();
  k->mask = 15;
  k->slots = g_new0 (guint32, k->mask + 1);
  return k;
}

void
ks_json_thread_keys_free (ThreadKeys *k)
{
  if (k == NULL)
    return;
  g_array_unref (k->keys);
  g_byte_array_unref (k->text);
  g_free (k->slots);
  g_free (k);
}

guint32
ks_json_thread_keys_get_n (const ThreadKeys *k)
{
  return k->keys->len;
}

static inline guint8
ident_kind (const Ident *id)
{
  return !id->set ? IDENT_UNSET : id->is_string ? IDENT_TEXT : IDENT_NUMBER;
}

static inline guint32
mix (guint64 h,
     guint64 v)
{
  h = (h ^ v) * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  return (guint32) (h ^ (h >> 32));
}

static guint32
hash_text (guint32     h,
           const char *s,
           gsize       len)
{
  for (gsize i = 0; i < len; i++)
    h = (h ^ (guint8) s[i]) * 16777619u;
  return h;
}

/* The key of @ev's pair, its texts not copied yet (a text's start is
 * then its own pointer). */
static void
make_key (Key         *key,
          const Event *ev)
{
  key->pid_kind = ident_kind (&ev->pid);
  key->tid_kind = ident_kind (&ev->tid);
  key->pid = key->pid_kind == IDENT_NUMBER ? ev->pid.num : 0;
  key->tid = key->tid_kind == IDENT_NUMBER ? ev->tid.num : 0;
  key->pid_len = key->pid_kind == IDENT_TEXT ? (guint32) ev->pid.str->len : 0;
  key->tid_len = key->tid_kind == IDENT_TEXT ? (guint32) ev->tid.str->len : 0;
  key->hash = mix (mix (key->pid_kind | key->tid_kind << 2, (guint64) key->pid), (guint64) key->tid);
  if (key->pid_kind == IDENT_TEXT)
    key->hash = hash_text (key->hash, ev->pid.str->str, key->pid_len);
  if (key->tid_kind == IDENT_TEXT)
    key->hash = hash_text (key->hash ^ 0x5bd1e995u, ev->tid.str->str, key->tid_len);
}

static gboolean
same_text (const ThreadKeys *k,
           guint8            kind,
           gint64            at,
           guint32           len,
           const GString    *str)
{
  /* an empty text has no bytes in k->text, whose data may be NULL */
  return kind != IDENT_TEXT || (len == str->len && (len == 0 || memcmp (k->text->data + at, str->str, len) == 0));
}

/* Whether number @n is the pair of @ev (whose key is @key). */
static gboolean
same_pair (const ThreadKeys *k,
           guint32           n,
           const Key        *key,
           const Event      *ev)
{
  const Key *o = &g_array_index (k->keys, Key, n - 1);

  return o->hash == key->hash && o->pid_kind == key->pid_kind && o->tid_kind == key->tid_kind &&
         (key->pid_kind != IDENT_NUMBER || o->pid == key->pid) &&
         (key->tid_kind != IDENT_NUMBER || o->tid == key->tid) &&
         o->pid_len == key->pid_len && o->tid_len == key->tid_len &&
         same_text (k, o->pid_kind, o->pid, o->pid_len, ev->pid.str) &&
         same_text (k, o->tid_kind, o->tid, o->tid_len, ev->tid.str);
}

static void
grow (ThreadKeys *k)
{
  guint32 mask = k->mask * 2 + 1;

  g_free (k->slots);
  k->slots = g_new0 (guint32, mask + 1);
  k->mask = mask;
  for (guint32 n = 1; n <= k->keys->len; n++)
    {
      guint32 i = g_array_index (k->keys, Key, n - 1).hash & mask;

      while (k->slots[i] != 0)
        i = (i + 1) & mask;
      k->slots[i] = n;
    }
}

static inline guint32
seen (ThreadKeys *k,
      guint32     n)
{
  if (n != k->recent[0])
    {
      k->recent[1] = k->recent[0];
      k->recent[0] = n;
    }
  return n;
}

/* The number of @ev's (pid, tid) in @k, from 1, as the event comes (its
 * pid and tid as read, before an event without a tid takes its pid's). */
guint32
ks_json_thread_keys_number (ThreadKeys  *k,
                            const Event *ev)
{
  Key key;
  guint32 i;

  /* a thread's events come in runs, or two in turn (Kineto's CPU
   * operators and their kernels' stream): most name a recent pair */
  if (ev->pid.set && !ev->pid.is_string && ev->tid.set && !ev->tid.is_string)
    for (guint j = 0; j < G_N_ELEMENTS (k->recent) && k->recent[j] != 0; j++)
      {
        const Key *o = &g_array_index (k->keys, Key, k->recent[j] - 1);

        if (o->pid_kind == IDENT_NUMBER && o->tid_kind == IDENT_NUMBER &&
            o->pid == ev->pid.num && o->tid == ev->tid.num)
          return seen (k, k->recent[j]);
      }

  make_key (&key, ev);
  if ((k->keys->len + 1) * 2 > k->mask + 1)
    grow (k);
  for (i = key.hash & k->mask; k->slots[i] != 0; i = (i + 1) & k->mask)
    if (same_pair (k, k->slots[i], &key, ev))
      return seen (k, k->slots[i]);

  if (key.pid_kind == IDENT_TEXT)
    {
      key.pid = k->text->len;
      g_byte_array_append (k->text, (const guint8 *) ev->pid.str->str, key.pid_len);
    }
  if (key.tid_kind == IDENT_TEXT)
    {
      key.tid = k->text->len;
      g_byte_array_append (k->text, (const guint8 *) ev->tid.str->str, key.tid_len);
    }
  g_array_append_val (k->keys, key);
  k->slots[i] = k->keys->len;
  return seen (k, k->keys->len);
}

/* Whether workers number their chunks' pairs: from THREAD_KEYS_THREADS
 * threads on, as they prepare the args; on two the cores are busy
 * parsing, and the numbering costs a worker about what it saves the
 * replay. KINESCOPE_JSON_THREAD_KEYS=chunk or =replay chooses, for
 * tests and measurements. */
gboolean
ks_json_par_thread_keys (guint n_threads)
{
  const char *env = g_getenv ("KINESCOPE_JSON_THREAD_KEYS");

  if (g_strcmp0 (env, "chunk") == 0)
    return TRUE;
  if (g_strcmp0 (env, "replay") == 0)
    return FALSE;
  return n_threads >= THREAD_KEYS_THREADS;
}

/* For the reader's debug line: the pairs of @c replayed, and how many
 * of them an event looked up. */
void
ks_json_par_note_pairs (Parallel    *p,
                        const Chunk *c)
{
  guint32 n;

  if (c->thread_keys == NULL)
    return;
  n = ks_json_thread_keys_get_n (c->thread_keys);
  p->n_keyed++;
  p->n_pairs += n;
  for (guint32 i = 0; i < n; i++)
    if (c->thread_slots[i].thread != 0)
      p->n_resolved++;
}
