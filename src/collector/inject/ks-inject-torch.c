/* ks-inject-torch.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Entry points for our RecordFunction observer (kinescope_observer.cpp,
 * built against the program's own torch by the Python side), which finds
 * them with dlsym(). Each operator arrives as numbers and a name pointer:
 * nothing is formatted here, and the name is interned once per pointer.
 * Like NVTX push/pop ranges, operators are kept on a per-thread stack
 * and sent complete when they end; the recorder writes them as the range
 * torch's NVTX emission would have given. */

#include "ks-inject-private.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH   128
#define NAME_SLOTS  256   /* power of two */
#define TEXT_SLOTS  1024  /* power of two; filled to 3/4 at most */

/* A name pointer and what it pointed to when it was seen: a
 * RecordFunction's name is an operator schema's string, which lives as
 * long as the operator, or the RecordFunction's own std::string (autograd
 * nodes, record_function() labels), whose storage the next one reuses for
 * another name: a short name sits in the string itself, on the stack, at
 * the same address for every backward node of a depth. The text tells
 * those apart. */
typedef struct
{
  const char *ptr;
  const char *text;            /* the TextSlot's copy */
  uint32_t    id;
} NameSlot;

/* The names this thread has interned, by their text: a name that comes
 * back at a reused address costs a hash and a compare here, not the
 * channel's lock and a copy. */
typedef struct
{
  char     *text;
  uint32_t  hash;
  uint32_t  id;
} TextSlot;

typedef struct
{
  KsWireTorchOp msg;
  int64_t       words[KS_WIRE_TORCH_MAX_WORDS];
} OpenOp;

typedef struct
{
  int      depth;
  int      overflow;           /* enters beyond MAX_DEPTH, exited silently */
  unsigned generation;         /* of name_generation: ids and tid valid */
  uint32_t tid;
  uint32_t n_texts;
  NameSlot names[NAME_SLOTS];
  TextSlot texts[TEXT_SLOTS];
  OpenOp   ops[MAX_DEPTH];
} TorchThread;

static __thread TorchThread *tls_thread;
static pthread_key_t         thread_key;
static pthread_once_t        thread_key_once = PTHREAD_ONCE_INIT;
/* Bumped in a forked child: string ids belong to a connection. */
static atomic_uint           name_generation = 1;
/* The observer's: told when the capture range opens or closes. */
static void (*_Atomic capture_watcher) (void);

KS_EXPORT int  ks_inject_torch_begin    (void);
KS_EXPORT int  ks_inject_torch_capturing (void);
KS_EXPORT void ks_inject_torch_watch_capture (void (*changed) (void));
KS_EXPORT void ks_inject_torch_op_enter (const char    *name,
                                         int64_t        seq,
                                         uint64_t       handle,
                                         uint64_t       fwd_thread_id,
                                         uint32_t       scope,
                                         uint64_t       start,
                                         uint32_t       n_inputs,
                                         const int64_t *words,
                                         uint32_t       n_words,
                                         uint32_t       flags);
KS_EXPORT void ks_inject_torch_op_exit  (uint64_t       end);

static void
forget_names (TorchThread *t)
{
  for (size_t i = 0; i < TEXT_SLOTS; i++)
    free (t->texts[i].text);
  memset (t->names, 0, sizeof t->names);
  memset (t->texts, 0, sizeof t->texts);
  t->n_texts = 0;
}

static void
free_thread (void *data)
{
  TorchThread *t = data;

  forget_names (t);
  free (t);
}

static void
make_thread_key (void)
{
  pthread_key_create (&thread_key, free_thread);
}

static TorchThread *
get_thread (void)
{
  TorchThread *t = tls_thread;
  unsigned generation;

  if (t == NULL)
    {
      pthread_once (&thread_key_once, make_thread_key);
      t = tls_thread = calloc (1, sizeof *tls_thread);
      if (t == NULL)
        return NULL;
      pthread_setspecific (thread_key, t);
    }
  /* after a fork: the child's connection knows none of the ids */
  generation = atomic_load_explicit (&name_generation, memory_order_relaxed);
  if (t->generation != generation)
    {
      forget_names (t);
      t->tid = ks_inject_gettid ();
      t->generation = generation;
    }
  return t;
}

/* FNV-1a of the length and the last 16 bytes: names that differ share a
 * prefix ("autograd::engine::evaluate_function: ", "aten::") far more
 * often than an ending, and a byte loop over the whole name cost more
 * than the rest of an operator. Equal hashes are compared in full. */
static uint32_t
text_hash (const char *text)
{
  size_t len = strlen (text);
  const unsigned char *p = (const unsigned char *) text + (len > 16 ? len - 16 : 0);
  uint32_t h = (2166136261u ^ (uint32_t) len) * 16777619u;

  for (; *p; p++)
    h = (h ^ *p) * 16777619u;
  return h;
}

/* The id of @name's text, interned through the channel the first time */
static const TextSlot *
text_id (TorchThread *t,
         const char  *name)
{
  static const TextSlot none = { NULL, 0, 0 };
  uint32_t hash = text_hash (name);
  size_t i = hash & (TEXT_SLOTS - 1);
  TextSlot *slot;

  for (; t->texts[i].text != NULL; i = (i + 1) & (TEXT_SLOTS - 1))
    if (t->texts[i].hash == hash && strcmp (t->texts[i].text, name) == 0)
      return &t->texts[i];

  slot = &t->texts[i];
  /* a thread with this many names: the channel's table alone */
  if (t->n_texts >= TEXT_SLOTS / 4 * 3)
    {
      static __thread TextSlot unkept;

      unkept.id = ks_channel_intern (name);
      return unkept.id != 0 ? &unkept : &none;
    }
  slot->id = ks_channel_intern (name);
  if (slot->id == 0 || (slot->text = strdup (name)) == NULL)
    {
      slot->id = 0;
      return &none;
    }
  slot->hash = hash;
  t->n_texts++;
  return slot;
}

static uint32_t
name_id (TorchThread *t,
         const char  *name)
{
  uintptr_t p = (uintptr_t) name;
  NameSlot *slot = &t->names[((p >> 4) ^ (p >> 12)) & (NAME_SLOTS - 1)];
  const TextSlot *text;

  if (slot->ptr == name && strcmp (slot->text, name) == 0)
    return slot->id;

  text = text_id (t, name);
  /* only a kept text can vouch for the pointer next time */
  if (text->text == NULL)
    {
      slot->ptr = NULL;
      return text->id;
    }
  slot->ptr = name;
  slot->text = text->text;
  slot->id = text->id;
  return slot->id;
}

void
ks_torch_after_fork (void)
{
  atomic_fetch_add_explicit (&name_generation, 1, memory_order_relaxed);
}

/* 1 when operators sent here are recorded: the Python side then uses the
 * observer instead of NVTX emission. Operators are NVTX ranges to the
 * recording, so they follow -t nvtx as torch's NVTX ranges do. */
KS_EXPORT int
ks_inject_torch_begin (void)
{
  ks_inject_config_load ();
  if (!ks_inject_config.active || !ks_inject_config.trace_nvtx)
    return 0;
  return ks_channel_start () ? 1 : 0;
}

/* 1 while operators are recorded. The observer asks this in its own
 * lock each time it is told of a change, so that the newest state
 * wins whichever thread tells it. */
KS_EXPORT int
ks_inject_torch_capturing (void)
{
  return ks_inject_capturing () ? 1 : 0;
}

/* Outside a capture range the observer takes its callback out of torch's
 * RecordFunction: an operator then costs the program what it costs
 * without a recorder, not a callback that drops it. */
KS_EXPORT void
ks_inject_torch_watch_capture (void (*changed) (void))
{
  atomic_store (&capture_watcher, changed);
  if (changed != NULL)
    changed ();
}

void
ks_torch_capture_changed (void)
{
  void (*changed) (void) = atomic_load (&capture_watcher);

  if (changed != NULL)
    changed ();
}

KS_EXPORT void
ks_inject_torch_op_enter (const char    *name,
                          int64_t        seq,
                          uint64_t       handle,
                          uint64_t       fwd_thread_id,
                          uint32_t       scope,
                          uint64_t       start,
                          uint32_t       n_inputs,
                          const int64_t *words,
                          uint32_t       n_words,
                          uint32_t       flags)
{
  TorchThread *t = get_thread ();
  OpenOp *op;
  uint32_t kept_inputs = 0;
  uint32_t kept_words = 0;

  if (t == NULL)
    return;
  if (t->depth >= MAX_DEPTH)
    {
      t->overflow++;
      ks_channel_count_drop ();
      return;
    }

  op = &t->ops[t->depth++];
  memset (&op->msg, 0, sizeof op->msg);
  op->msg.h.type = KS_WIRE_TORCH_OP;
  op->msg.start = start;
  op->msg.handle = handle;
  op->msg.seq = seq;
  op->msg.fwd_thread_id = fwd_thread_id;
  op->msg.tid = t->tid;
  op->msg.name_id = name != NULL ? name_id (t, name) : 0;
  op->msg.scope = (uint8_t) scope;
  op->msg.depth = (uint8_t) (t->depth - 1 < 255 ? t->depth - 1 : 255);
  op->msg.flags = (uint8_t) (flags & (KS_WIRE_TORCH_OP_SHAPES | KS_WIRE_TORCH_OP_TRUNCATED));

  /* whole inputs only: each is its number of dimensions, then its sizes */
  if ((flags & KS_WIRE_TORCH_OP_SHAPES) && words != NULL)
    {
      while (kept_inputs < n_inputs && kept_words < n_words)
        {
          int64_t ndim = words[kept_words];

          if (ndim < 0 || (uint64_t) ndim >= n_words - kept_words
              || kept_words + 1 + (uint64_t) ndim > KS_WIRE_TORCH_MAX_WORDS)
            break;
          memcpy (op->words + kept_words, words + kept_words, (size_t) (ndim + 1) * sizeof *words);
          kept_words += 1 + (uint32_t) ndim;
          kept_inputs++;
        }
      if (kept_inputs < n_inputs)
        op->msg.flags |= KS_WIRE_TORCH_OP_TRUNCATED;
    }
  op->msg.n_inputs = kept_inputs;
  op->msg.n_words = kept_words;
}

KS_EXPORT void
ks_inject_torch_op_exit (uint64_t end)
{
  TorchThread *t = tls_thread;
  OpenOp *op;

  if (t == NULL || (t->depth == 0 && t->overflow == 0))
    return;
  if (t->overflow > 0)
    {
      t->overflow--;
      return;
    }

  op = &t->ops[--t->depth];
  /* kept when it overlaps the capture range, as NVTX ranges are */
  if (op->msg.name_id == 0 || !(ks_inject_capturing () || ks_inject_last_capture_stop () > op->msg.start))
    {
      if (op->msg.name_id == 0)
        ks_channel_count_drop ();
      return;
    }
  op->msg.end = end;
  op->msg.h.size = (uint32_t) (sizeof op->msg + op->msg.n_words * sizeof (int64_t));
  ks_channel_emit (op, op->msg.h.size);
}
