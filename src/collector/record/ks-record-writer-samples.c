/* ks-record-writer-samples.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* What the Python side sends: sampled stacks, as Nsight stores its CPU
 * samples (COMPOSITE_EVENTS, one row per sample, and SAMPLING_CALLCHAINS,
 * one per frame of a chain), and PyTorch's caching-allocator events, which
 * carry the allocator's totals (KS_MEMORY_EVENTS with totalReserved).
 *
 * A chain is written once per distinct stack, not once per sample: a
 * thread at 1000 Hz in a 60-frame stack would otherwise write 60 000 rows
 * a second that say the same thing. The stacks are a prefix tree of
 * (caller, function, file, line) nodes in the writer's string ids, so the
 * same stack from any thread or process of the recording is the same
 * innermost node, and a node costs some 30 bytes however many stacks
 * pass through it. */

#define G_LOG_DOMAIN "ks-record-writer"

#include "config.h"

#include <string.h>

#include "ks-record-writer-private.h"

static inline guint32
node_hash (guint32 parent,
           guint32 function,
           guint32 file,
           guint32 line)
{
  guint64 h = ((guint64) parent << 32 | function) * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);

  h ^= ((guint64) file << 32 | line) * G_GUINT64_CONSTANT (0xC2B2AE3D27D4EB4F);
  h ^= h >> 31;
  return (guint32) (h ^ (h >> 32));
}

static void
stacks_grow (KsRecordWriter *self)
{
  guint32 n_slots = MAX (self->n_stack_slots * 2, 1024);
  guint32 *slots = g_new0 (guint32, n_slots);

  for (guint32 i = 0; i < self->stack_nodes->len; i++)
    {
      const KsRecordStackNode *n = &g_array_index (self->stack_nodes, KsRecordStackNode, i);
      guint32 at = node_hash (n->parent, n->function, n->file, n->line) & (n_slots - 1);

      while (slots[at] != 0)
        at = (at + 1) & (n_slots - 1);
      slots[at] = i + 1;
    }
  g_free (self->stack_slots);
  self->stack_slots = slots;
  self->n_stack_slots = n_slots;
}

/* The node of (@function, @file, @line) called from @parent, made when
 * new; KS_RECORD_STACK_DROPPED when the tree is full. */
static KsRecordStack
stack_node (KsRecordWriter *self,
            KsRecordStack   parent,
            guint32         function,
            guint32         file,
            guint32         line)
{
  guint32 at;
  KsRecordStackNode n = { parent, function, file, line, 0 };

  if (self->n_stack_slots == 0)
    stacks_grow (self);
  at = node_hash (parent, function, file, line) & (self->n_stack_slots - 1);
  for (;; at = (at + 1) & (self->n_stack_slots - 1))
    {
      guint32 slot = self->stack_slots[at];
      const KsRecordStackNode *o;

      if (slot == 0)
        break;
      o = &g_array_index (self->stack_nodes, KsRecordStackNode, slot - 1);
      if (o->parent == parent && o->function == function && o->file == file && o->line == line)
        return slot;
    }

  if (self->stack_nodes->len >= self->max_stack_nodes)
    return KS_RECORD_STACK_DROPPED;
  g_array_append_val (self->stack_nodes, n);
  self->stack_slots[at] = self->stack_nodes->len;
  /* at most half full, so that probes stay short */
  if (self->stack_nodes->len * 2 > self->n_stack_slots)
    stacks_grow (self);
  return self->stack_nodes->len;
}

KsRecordStack
ks_record_writer_intern_stack (KsRecordWriter *self,
                               guint           n_frames,
                               const guint32  *symbols,
                               const guint32  *modules,
                               const guint32  *lines)
{
  KsRecordStack node = KS_RECORD_STACK_NONE;

  /* outermost first, down the tree */
  for (guint i = n_frames; i-- > 0 && node != KS_RECORD_STACK_DROPPED;)
    node = stack_node (self, node, symbols[i], modules[i], lines[i]);
  return node;
}

void
ks_record_writer_set_stack_limit (KsRecordWriter *self,
                                  guint           max_nodes)
{
  self->max_stack_nodes = MIN (max_nodes, KS_RECORD_MAX_STACK_NODES);
}

guint
ks_record_writer_get_stack_limit (KsRecordWriter *self)
{
  return self->max_stack_nodes;
}

/* The chain of @stack, written with its first sample. */
static guint32
stack_chain (KsRecordWriter *self,
             KsRecordStack   stack)
{
  KsRecordStackNode *inner = &g_array_index (self->stack_nodes, KsRecordStackNode, stack - 1);
  sqlite3_stmt *f;
  guint depth = 0;

  if (inner->chain != 0)
    return inner->chain;
  if ((f = ks_record_writer_stmt (self, KS_KSCOPE_SAMPLING_CALLCHAINS)) == NULL)
    return 0;
  inner->chain = ++self->next_chain;
  for (KsRecordStack n = stack; n != KS_RECORD_STACK_NONE; depth++)
    {
      const KsRecordStackNode *node = &g_array_index (self->stack_nodes, KsRecordStackNode, n - 1);

      sqlite3_bind_int64 (f, 1, inner->chain);
      sqlite3_bind_int64 (f, 2, node->function);
      sqlite3_bind_int64 (f, 3, node->file);
      sqlite3_bind_int64 (f, 4, depth);
      sqlite3_bind_int64 (f, 5, node->line);
      /* the sample is the event; its frames are part of it */
      ks_record_writer_step (self, f, FALSE);
      n = node->parent;
    }
  return inner->chain;
}

void
ks_record_writer_add_python_sample (KsRecordWriter      *self,
                                    gint64               pid,
                                    guint64              timestamp,
                                    gint64               tid,
                                    KsRecordStack        stack,
                                    gint                 waiting)
{
  sqlite3_stmt *s = ks_record_writer_stmt (self, KS_KSCOPE_COMPOSITE_EVENTS);
  guint32 chain;

  if (s == NULL)
    return;
  if (stack == KS_RECORD_STACK_NONE)
    {
      self->counts.python_unknown_repeats++;
      return;
    }
  if (stack == KS_RECORD_STACK_DROPPED)
    {
      self->counts.python_stacks_dropped++;
      return;
    }
  if ((chain = stack_chain (self, stack)) == 0)
    return;
  sqlite3_bind_int64 (s, 1, ++self->next_sample);
  sqlite3_bind_int64 (s, 2, ks_record_writer_rel (self, timestamp));
  sqlite3_bind_int64 (s, 3, ks_kscope_global_tid (pid, tid));
  sqlite3_bind_int64 (s, 4, chain);
  if (waiting < 0)
    sqlite3_bind_null (s, 5);
  else
    sqlite3_bind_int64 (s, 5, waiting > 0);
  ks_record_writer_step (self, s, TRUE);
  self->counts.python_samples++;
}

void
ks_record_writer_add_allocator (KsRecordWriter        *self,
                                gint64                 pid,
                                const KsWireAllocator *a)
{
  sqlite3_stmt *s = ks_record_writer_stmt (self, KS_KSCOPE_KS_MEMORY_EVENTS);

  if (s == NULL)
    return;
  sqlite3_bind_int64 (s, 1, ks_record_writer_rel (self, a->timestamp));
  /* tid 0: the process (globalPid), the reader places it */
  sqlite3_bind_int64 (s, 2, ks_kscope_global_tid (pid, a->tid));
  sqlite3_bind_int64 (s, 3, a->device_id);
  sqlite3_bind_int64 (s, 4, (gint64) a->address);
  sqlite3_bind_int64 (s, 5, a->bytes);
  sqlite3_bind_int64 (s, 6, a->total_allocated);
  sqlite3_bind_int64 (s, 7, a->total_reserved);
  ks_record_writer_step (self, s, TRUE);
  self->counts.memory_events++;
}
