/* ks-memsnap.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "ks-memsnap.h"
#include "ks-pickle.h"

/* Devices past this are refused: a hostile "device" number must not make
 * the reader allocate for it. */
#define MAX_DEVICES 1024

typedef struct
{
  const KsPickleValue *frames;
  guint32              id;
} StackSeen;

#define STACKS_SEEN 256

struct _KsMemsnap
{
  GPtrArray    *devices;         /* KsMemsnapDevice */
  GPtrArray    *stacks;          /* KsMemsnapStack */
  GHashTable   *stack_ids;       /* frames list (KsPickleValue *) -> id + 1 */
  GHashTable   *stack_texts;     /* text -> id + 1: equal stacks share an id */
  GStringChunk *strings;
  char         *settings;
  guint64       n_entries;
  GArray       *taken;           /* KsMemsnapEntry read as the pickle built them */
  /* While reading: the action strings met (torch memoizes each once,
   * and the entries alternate among a few), and the stacks of recent
   * frames lists, found without hashing. */
  const KsPickleValue *action_values[KS_N_MEMSNAP_ACTIONS];
  StackSeen     stacks_seen[STACKS_SEEN];
  gint64        time_shift;
};

static const char * const action_names[KS_N_MEMSNAP_ACTIONS] = {
  "alloc", "free_requested", "free_completed", "segment_alloc", "segment_free",
  "segment_map", "segment_unmap", "snapshot", "oom", "other",
};

const char *
ks_memsnap_action_to_string (KsMemsnapAction action)
{
  return action < KS_N_MEMSNAP_ACTIONS ? action_names[action] : "other";
}

static KsMemsnapAction
action_from_value (const KsPickleValue *v)
{
  if (ks_pickle_str_equal (v, "free"))
    return KS_MEMSNAP_FREE_COMPLETED;
  for (guint i = 0; i < KS_MEMSNAP_OTHER; i++)
    if (ks_pickle_str_equal (v, action_names[i]))
      return i;
  return KS_MEMSNAP_OTHER;
}

/* @v's action, @v being one of the few strings a snapshot names them
 * with: compared as text once per string. */
static KsMemsnapAction
action_of (KsMemsnap           *self,
           const KsPickleValue *v)
{
  KsMemsnapAction action;

  if (v == NULL)
    return KS_MEMSNAP_OTHER;
  for (guint i = 0; i < KS_N_MEMSNAP_ACTIONS; i++)
    if (self->action_values[i] == v)
      return i;
  action = action_from_value (v);
  /* a file that spells an action anew each time is read by text */
  if (action != KS_MEMSNAP_OTHER && self->action_values[action] == NULL)
    self->action_values[action] = v;
  return action;
}

static void
device_free (gpointer data)
{
  KsMemsnapDevice *d = data;

  g_array_unref (d->segments);
  g_array_unref (d->blocks);
  g_array_unref (d->entries);
  g_free (d);
}

static void
stack_free (gpointer data)
{
  KsMemsnapStack *s = data;

  g_free (s->frames);
  g_free (s);
}

void
ks_memsnap_free (KsMemsnap *self)
{
  if (self == NULL)
    return;
  g_ptr_array_unref (self->devices);
  g_ptr_array_unref (self->stacks);
  g_hash_table_unref (self->stack_ids);
  g_hash_table_unref (self->stack_texts);
  g_string_chunk_free (self->strings);
  g_free (self->settings);
  if (self->taken != NULL)
    g_array_unref (self->taken);
  g_free (self);
}

static KsMemsnapDevice *
get_device (KsMemsnap *self,
            guint      device)
{
  while (self->devices->len <= device)
    {
      KsMemsnapDevice *d = g_new0 (KsMemsnapDevice, 1);

      d->device = self->devices->len;
      d->segments = g_array_new (FALSE, FALSE, sizeof (KsMemsnapSegment));
      d->blocks = g_array_new (FALSE, FALSE, sizeof (KsMemsnapBlock));
      d->entries = g_array_new (FALSE, FALSE, sizeof (KsMemsnapEntry));
      g_ptr_array_add (self->devices, d);
    }
  return g_ptr_array_index (self->devices, device);
}

static const char *
intern (KsMemsnap           *self,
        const KsPickleValue *v)
{
  g_autofree char *s = ks_pickle_dup_str (v);

  return g_string_chunk_insert_const (self->strings, s);
}

/* The id of a "frames" list: torch writes innermost first. */
static guint32
stack_id (KsMemsnap           *self,
          const KsPickleValue *frames)
{
  gpointer found;
  g_autoptr(GString) text = NULL;
  KsMemsnapStack *stack;
  StackSeen *seen;
  guint n = ks_pickle_len (frames);

  if (n == 0)
    return KS_MEMSNAP_NO_STACK;
  seen = &self->stacks_seen[((guintptr) frames / sizeof (KsPickleValue)) % STACKS_SEEN];
  if (seen->frames == frames)
    return seen->id;
  found = g_hash_table_lookup (self->stack_ids, frames);
  if (found != NULL)
    {
      *seen = (StackSeen) { frames, GPOINTER_TO_UINT (found) - 1 };
      return seen->id;
    }

  stack = g_new0 (KsMemsnapStack, 1);
  stack->frames = g_new0 (KsMemsnapFrame, n);
  text = g_string_new (NULL);
  for (guint i = 0; i < n; i++)
    {
      const KsPickleValue *f = ks_pickle_index (frames, i);
      KsMemsnapFrame *out = &stack->frames[stack->n_frames];

      if (f == NULL || f->type != KS_PICKLE_DICT)
        continue;
      out->name = intern (self, ks_pickle_dict_get (f, "name"));
      out->file = intern (self, ks_pickle_dict_get (f, "filename"));
      if (!ks_pickle_get_int (ks_pickle_dict_get (f, "line"), &out->line))
        out->line = 0;
      if (text->len > 0)
        g_string_append (text, " ← ");
      g_string_append_printf (text, "%s (%s:%" G_GINT64_FORMAT ")", out->name, out->file, out->line);
      stack->n_frames++;
    }
  stack->text = g_string_chunk_insert_const (self->strings, text->str);

  found = g_hash_table_lookup (self->stack_texts, stack->text);
  if (found != NULL)
    {
      stack_free (stack);
      g_hash_table_insert (self->stack_ids, (gpointer) frames, found);
      return GPOINTER_TO_UINT (found) - 1;
    }
  g_ptr_array_add (self->stacks, stack);
  g_hash_table_insert (self->stack_texts, (gpointer) stack->text, GUINT_TO_POINTER (self->stacks->len));
  g_hash_table_insert (self->stack_ids, (gpointer) frames, GUINT_TO_POINTER (self->stacks->len));
  return self->stacks->len - 1;
}

static gint64
int_or (const KsPickleValue *v,
        gint64               fallback)
{
  gint64 i;

  return ks_pickle_get_int (v, &i) ? i : fallback;
}

static gboolean
bad (GError    **error,
     const char *name,
     const char *what)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
               _("%s: not a PyTorch memory snapshot: %s"), name, what);
  return FALSE;
}

static gint
compare_segments (gconstpointer a,
                  gconstpointer b)
{
  const KsMemsnapSegment *x = a, *y = b;

  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static gint
compare_blocks (gconstpointer a,
                gconstpointer b)
{
  const KsMemsnapBlock *x = a, *y = b;

  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static gboolean
read_segments (KsMemsnap           *self,
               const KsPickleValue *segments,
               const char          *name,
               GError             **error)
{
  for (guint i = 0; i < ks_pickle_len (segments); i++)
    {
      const KsPickleValue *seg = ks_pickle_index (segments, i);
      const KsPickleValue *blocks = ks_pickle_dict_get (seg, "blocks");
      gint64 device = int_or (ks_pickle_dict_get (seg, "device"), -1);
      gint64 addr = int_or (ks_pickle_dict_get (seg, "address"), -1);
      gint64 total = int_or (ks_pickle_dict_get (seg, "total_size"), -1);
      KsMemsnapDevice *d;
      KsMemsnapSegment s = { 0 };
      guint64 at;

      if (seg == NULL || seg->type != KS_PICKLE_DICT || device < 0 || device >= MAX_DEVICES ||
          addr < 0 || total < 0)
        return bad (error, name, _("a segment without a device, address or size"));
      d = get_device (self, device);
      s.addr = addr;
      s.total = total;
      s.stream = int_or (ks_pickle_dict_get (seg, "stream"), 0);
      s.expandable = int_or (ks_pickle_dict_get (seg, "is_expandable"), 0) != 0;
      s.first_block = d->blocks->len;
      at = addr;
      for (guint j = 0; j < ks_pickle_len (blocks); j++)
        {
          const KsPickleValue *blk = ks_pickle_index (blocks, j);
          const KsPickleValue *state = ks_pickle_dict_get (blk, "state");
          KsMemsnapBlock b = { 0 };
          gint64 size = int_or (ks_pickle_dict_get (blk, "size"), -1);

          if (size < 0)
            return bad (error, name, _("a block without a size"));
          /* Older snapshots give no block address: blocks follow each other. */
          b.addr = (guint64) int_or (ks_pickle_dict_get (blk, "address"), (gint64) at);
          b.size = size;
          b.requested = int_or (ks_pickle_dict_get (blk, "requested_size"), size);
          b.stack = stack_id (self, ks_pickle_dict_get (blk, "frames"));
          if (ks_pickle_str_equal (state, "inactive"))
            b.state = KS_MEMSNAP_BLOCK_INACTIVE;
          else if (ks_pickle_str_equal (state, "active_pending_free"))
            b.state = KS_MEMSNAP_BLOCK_PENDING_FREE;
          else
            b.state = KS_MEMSNAP_BLOCK_ACTIVE;
          at = b.addr + (guint64) size;
          g_array_append_val (d->blocks, b);
          s.n_blocks++;
        }
      g_array_append_val (d->segments, s);
    }
  return TRUE;
}

static gboolean
key_is (const KsPickleValue *key,
        const char          *name,
        gsize                len)
{
  return key->str.len == len && memcmp (key->str.data, name, len) == 0;
}

/* One trace entry, or FALSE with the problem; *complete: whether it had
 * both an action and a time_us. One pass over the dict's keys (a lookup
 * per field costs a snapshot of millions of entries seconds), the last
 * value of a repeated key winning as in Python. */
static gboolean
read_entry (KsMemsnap           *self,
            const KsPickleValue *e,
            KsMemsnapEntry      *entry,
            gboolean            *complete,
            const char         **problem)
{
  const KsPickleValue *action = NULL, *time_us = NULL, *frames = NULL;
  guint n_items;

  *entry = (KsMemsnapEntry) { .device_free = -1 };
  *complete = FALSE;
  if (e == NULL || e->type != KS_PICKLE_DICT)
    {
      *problem = _("a trace entry that is not a dict");
      return FALSE;
    }
  n_items = ks_pickle_dict_size (e) * 2;
  for (guint i = 0; i + 1 < n_items; i += 2)
    {
      const KsPickleValue *k = g_ptr_array_index (e->items, i);
      const KsPickleValue *v = g_ptr_array_index (e->items, i + 1);

      if (k->type != KS_PICKLE_STR)
        continue;
      if (key_is (k, "action", 6))
        action = v;
      else if (key_is (k, "addr", 4))
        entry->addr = (guint64) int_or (v, 0);
      else if (key_is (k, "size", 4))
        entry->size = int_or (v, 0);
      else if (key_is (k, "time_us", 7))
        time_us = v;
      else if (key_is (k, "stream", 6))
        entry->stream = (gint32) int_or (v, 0);
      else if (key_is (k, "device_free", 11))
        entry->device_free = int_or (v, -1);
      else if (key_is (k, "frames", 6))
        frames = v;
    }
  *complete = action != NULL && time_us != NULL;
  entry->action = action_of (self, action);
  entry->time_us = CLAMP (int_or (time_us, 0), 0, KS_MEMSNAP_MAX_TIME_US);
  entry->stack = stack_id (self, frames);
  if (entry->size < 0 || entry->size > G_MAXINT64 / 2)
    {
      *problem = _("a trace entry with a negative size");
      return FALSE;
    }
  /* Block events give the size asked for; the allocator hands out
   * multiples of 512 bytes, which its figures count. */
  if (entry->action == KS_MEMSNAP_ALLOC || entry->action == KS_MEMSNAP_FREE_REQUESTED ||
      entry->action == KS_MEMSNAP_FREE_COMPLETED)
    entry->size = MAX (entry->size + 511, 512) / 512 * 512;
  return TRUE;
}

/* The pickle's KsPickleDictFunc: a dict with an action and a time_us is a
 * trace entry (no segment, block or frame has both); it is read here as
 * the pickle builds it, so the millions of them never exist as values.
 * One that does not read is left to read_traces(), which says why. */
static gboolean
take_entry (const KsPickleValue *dict,
            guint64             *handle,
            gpointer             user_data)
{
  KsMemsnap *self = user_data;
  KsMemsnapEntry entry;
  const char *problem;
  gboolean complete;

  if (!read_entry (self, dict, &entry, &complete, &problem) || !complete)
    return FALSE;
  *handle = self->taken->len;
  g_array_append_val (self->taken, entry);
  return TRUE;
}

/* Whether @list holds exactly the entries taken so far, in order. */
static gboolean
takes_all (KsMemsnap           *self,
           const KsPickleValue *list)
{
  guint n = ks_pickle_len (list);

  if (n != self->taken->len)
    return FALSE;
  for (guint i = 0; i < n; i++)
    {
      /* a list of n items: no bounds to check per item */
      const KsPickleValue *e = g_ptr_array_index (list->items, i);

      if (e == NULL || e->type != KS_PICKLE_TAKEN || e->handle != i)
        return FALSE;
    }
  return TRUE;
}

static gboolean
read_traces (KsMemsnap           *self,
             const KsPickleValue *traces,
             const char          *name,
             GError             **error)
{
  for (guint dev = 0; dev < ks_pickle_len (traces) && dev < MAX_DEVICES; dev++)
    {
      const KsPickleValue *list = ks_pickle_index (traces, dev);
      KsMemsnapDevice *d;

      if (ks_pickle_len (list) == 0)
        continue;
      d = get_device (self, dev);
      /* One device whose entries were all taken, in order (what torch
       * writes): they are its entries already, no copy needed (shared,
       * read-only, should another device's list be the same one). */
      if (d->entries->len == 0 && takes_all (self, list))
        {
          g_array_unref (d->entries);
          d->entries = g_array_ref (self->taken);
          self->n_entries += d->entries->len;
          continue;
        }
      for (guint i = 0, n = ks_pickle_len (list); i < n; i++)
        {
          const KsPickleValue *e = g_ptr_array_index (list->items, i);
          KsMemsnapEntry entry;
          const char *problem;
          gboolean complete;

          if (e != NULL && e->type == KS_PICKLE_TAKEN && e->handle < self->taken->len)
            entry = g_array_index (self->taken, KsMemsnapEntry, e->handle);
          else if (!read_entry (self, e, &entry, &complete, &problem))
            return bad (error, name, problem);
          g_array_append_val (d->entries, entry);
          self->n_entries++;
        }
    }
  return TRUE;
}

static void
read_settings (KsMemsnap           *self,
               const KsPickleValue *settings)
{
  g_autoptr(GString) s = g_string_new (NULL);

  if (settings == NULL || settings->type != KS_PICKLE_DICT)
    {
      self->settings = g_strdup ("");
      return;
    }
  for (guint i = 0; i + 1 < ks_pickle_dict_size (settings) * 2; i += 2)
    {
      const KsPickleValue *k = g_ptr_array_index (settings->items, i);
      const KsPickleValue *v = g_ptr_array_index (settings->items, i + 1);
      g_autofree char *key = ks_pickle_dup_str (k);
      gint64 n;

      if (v->type == KS_PICKLE_DICT || v->type == KS_PICKLE_LIST || v->type == KS_PICKLE_TUPLE)
        continue;
      if (s->len > 0)
        g_string_append (s, ", ");
      if (v->type == KS_PICKLE_STR)
        {
          g_autofree char *text = ks_pickle_dup_str (v);

          g_string_append_printf (s, "%s: “%s”", key, text);
        }
      else if (v->type == KS_PICKLE_BOOL)
        g_string_append_printf (s, "%s: %s", key, v->b ? "True" : "False");
      else if (v->type == KS_PICKLE_FLOAT)
        g_string_append_printf (s, "%s: %g", key, v->f);
      else if (ks_pickle_get_int (v, &n))
        g_string_append_printf (s, "%s: %" G_GINT64_FORMAT, key, n);
    }
  self->settings = g_string_free (g_steal_pointer (&s), FALSE);
}

static KsMemsnap *
new_from_bytes (GBytes         *bytes,
                const char     *name,
                KsPickleFlags   flags,
                GError        **error);

KsMemsnap *
ks_memsnap_new_from_bytes (GBytes      *bytes,
                           const char  *name,
                           GError     **error)
{
  return new_from_bytes (bytes, name, 0, error);
}

static KsMemsnap *
new_from_bytes (GBytes         *bytes,
                const char     *name,
                KsPickleFlags   flags,
                GError        **error)
{
  g_autoptr(KsPickle) pickle = NULL;
  g_autoptr(KsMemsnap) self = NULL;
  const KsPickleValue *root;
  const KsPickleValue *segments;
  const KsPickleValue *traces;

  if (!ks_pickle_has_magic (g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes)))
    {
      bad (error, name, _("not a Python pickle (a snapshot is the file torch.cuda.memory._dump_snapshot() writes)"));
      return NULL;
    }
  self = g_new0 (KsMemsnap, 1);
  self->devices = g_ptr_array_new_with_free_func (device_free);
  self->stacks = g_ptr_array_new_with_free_func (stack_free);
  self->stack_ids = g_hash_table_new (NULL, NULL);
  self->stack_texts = g_hash_table_new (g_str_hash, g_str_equal);
  self->strings = g_string_chunk_new (4096);
  self->taken = g_array_new (FALSE, FALSE, sizeof (KsMemsnapEntry));
  pickle = ks_pickle_load_full (bytes, name, flags, take_entry, self, error);
  if (pickle == NULL)
    return NULL;
  root = ks_pickle_get_root (pickle);
  segments = ks_pickle_dict_get (root, "segments");
  traces = ks_pickle_dict_get (root, "device_traces");
  if (root->type != KS_PICKLE_DICT || segments == NULL || segments->type != KS_PICKLE_LIST)
    {
      bad (error, name, _("the pickle holds no list of segments"));
      return NULL;
    }
  if (!read_segments (self, segments, name, error) || !read_traces (self, traces, name, error))
    return NULL;
  g_clear_pointer (&self->taken, g_array_unref);
  read_settings (self, ks_pickle_dict_get (root, "allocator_settings"));

  for (guint i = 0; i < self->devices->len; i++)
    {
      KsMemsnapDevice *d = g_ptr_array_index (self->devices, i);
      g_autoptr(GArray) blocks = g_array_new (FALSE, FALSE, sizeof (KsMemsnapBlock));

      /* Segments by address, each one's blocks by address after it. */
      g_array_sort (d->segments, compare_segments);
      for (guint s = 0; s < d->segments->len; s++)
        {
          KsMemsnapSegment *seg = &g_array_index (d->segments, KsMemsnapSegment, s);
          guint first = blocks->len;
          guint from = seg->first_block;

          seg->first_block = first;
          /* a segment without blocks: no pointer into an empty array */
          if (seg->n_blocks == 0)
            continue;
          g_array_append_vals (blocks, &g_array_index (d->blocks, KsMemsnapBlock, from), seg->n_blocks);
          qsort (&g_array_index (blocks, KsMemsnapBlock, first), seg->n_blocks,
                 sizeof (KsMemsnapBlock), compare_blocks);
        }
      g_array_unref (d->blocks);
      d->blocks = g_steal_pointer (&blocks);
    }
  /* Drop the lookups that point into the pickle, which goes now. */
  g_hash_table_remove_all (self->stack_ids);
  memset (self->stacks_seen, 0, sizeof self->stacks_seen);
  memset (self->action_values, 0, sizeof self->action_values);
  return g_steal_pointer (&self);
}

KsMemsnap *
ks_memsnap_load (GFile         *file,
                 GCancellable  *cancellable,
                 GError       **error)
{
  g_autofree char *name = g_file_get_parse_name (file);
  g_autofree char *path = g_file_get_path (file);
  g_autoptr(GMappedFile) mapped = NULL;
  g_autoptr(GBytes) bytes = NULL;
  g_autoptr(GError) local = NULL;

  if (path == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED, _("%s: not a local file"), name);
      return NULL;
    }
  mapped = g_mapped_file_new (path, FALSE, &local);
  if (mapped == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: %s", name, local->message);
      return NULL;
    }
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  if (ks_memsnap_is_kscope ((const guint8 *) g_mapped_file_get_contents (mapped),
                            g_mapped_file_get_length (mapped)))
    return ks_memsnap_load_kscope (path, name, NULL, error);
  bytes = g_mapped_file_get_bytes (mapped);
  return new_from_bytes (bytes, name, KS_PICKLE_RELEASE_READ, error);
}

guint
ks_memsnap_get_n_devices (KsMemsnap *self)
{
  return self->devices->len;
}

const KsMemsnapDevice *
ks_memsnap_get_device (KsMemsnap *self,
                       guint      i)
{
  g_return_val_if_fail (i < self->devices->len, NULL);
  return g_ptr_array_index (self->devices, i);
}

const KsMemsnapStack *
ks_memsnap_get_stack (KsMemsnap *self,
                      guint32    stack)
{
  if (stack >= self->stacks->len)
    return NULL;
  return g_ptr_array_index (self->stacks, stack);
}

guint64
ks_memsnap_get_n_entries (KsMemsnap *self)
{
  return self->n_entries;
}

gint64
ks_memsnap_get_time_shift (KsMemsnap *self)
{
  return self->time_shift;
}

void
ks_memsnap_set_time_shift (KsMemsnap *self,
                           gint64     shift_ns)
{
  self->time_shift = CLAMP (shift_ns, -KS_MEMSNAP_MAX_SHIFT_NS, KS_MEMSNAP_MAX_SHIFT_NS);
}

const char *
ks_memsnap_get_settings (KsMemsnap *self)
{
  return self->settings;
}
