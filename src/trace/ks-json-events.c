/* ks-json-events.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-json-reader"

/* Trace-event semantics: each event, once its object closes, becomes
 * rows of the builder by its phase: complete slices, begin/end pairs
 * (paired by the builder), async ranges, instants, counters and metadata;
 * flows are in ks-json-flows.c. Processes and threads are numbered here,
 * and a file's problems reported once, as warnings. */

#include "config.h"

#include <inttypes.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ks-json-reader-private.h"

static inline gboolean
kind_is_gpu (KsSliceKind kind)
{
  return kind == KS_SLICE_KERNEL || kind == KS_SLICE_MEMCPY || kind == KS_SLICE_MEMSET ||
         kind == KS_SLICE_SYNC || kind == KS_SLICE_GPU_ANNOTATION;
}

/* Processes and threads */

static guint32
lookup_process (Reader   *r,
                Ident    *pid,
                gboolean  create)
{
  gpointer value;
  gint64 effective;
  guint32 process;
  g_autofree char *original = NULL;

  if (!pid->set)
    {
      /* Events without a pid belong to process 0. */
      pid->set = TRUE;
      pid->is_string = FALSE;
      pid->num = 0;
    }

  if (pid->is_string)
    value = g_hash_table_lookup (r->pid_str_map, pid->str->str);
  else
    value = g_hash_table_lookup (r->pid_map, &pid->num);
  if (value != NULL)
    return GPOINTER_TO_UINT (value) - 1;
  if (!create)
    return KS_NO_INDEX;

  if (pid->is_string)
    {
      effective = r->next_synthetic++;
      original = g_strdup (pid->str->str);
    }
  else if (g_hash_table_contains (r->used_pids, &pid->num))
    {
      /* Another file of the folder used this pid: keep them apart. */
      effective = r->next_synthetic++;
      original = g_strdup_printf ("%" G_GINT64_FORMAT, pid->num);
    }
  else
    effective = pid->num;

  process = ks_trace_builder_get_process (r->builder, effective);
  if (original != NULL)
    ks_trace_builder_set_process_info (r->builder, process, NULL, NULL, original, G_MININT32);

  if (pid->is_string)
    g_hash_table_insert (r->pid_str_map, g_strdup (pid->str->str), GUINT_TO_POINTER (process + 1));
  else
    g_hash_table_insert (r->pid_map, g_memdup2 (&pid->num, sizeof (gint64)), GUINT_TO_POINTER (process + 1));
  return process;
}

static guint32
lookup_thread_in (Reader   *r,
                  guint32   process,
                  Ident    *tid,
                  gboolean  create)
{
  gpointer value;
  gint64 effective;
  guint32 thread;
  gboolean synthetic = FALSE;

  if (!tid->set)
    {
      tid->set = TRUE;
      tid->is_string = FALSE;
      tid->num = 0;
    }

  if (tid->is_string)
    {
      value = g_hash_table_lookup (r->tid_str_map, tid->str->str);
      if (value == NULL)
        {
          if (!create)
            return KS_NO_INDEX;
          value = GSIZE_TO_POINTER ((gsize)r->next_synthetic++);
          g_hash_table_insert (r->tid_str_map, g_strdup (tid->str->str), value);
        }
      effective = (gint64)GPOINTER_TO_SIZE (value);
      synthetic = TRUE;
    }
  else
    effective = tid->num;

  /* The builder's own index: a second table here cost 60 bytes a thread. */
  thread = ks_trace_builder_find_thread (r->builder, process, effective);
  if (thread != KS_NO_INDEX || !create)
    return thread;

  thread = ks_trace_builder_get_thread (r->builder, process, effective);
  if (synthetic)
    ks_trace_builder_set_thread_info (r->builder, thread, NULL, tid->str->str, G_MININT32);
  return thread;
}

/* An event without a tid is on the thread tid = pid, as Chrome and
 * Perfetto place it: a process's main thread, not a thread 0 apart.
 * (The only string of a replayed event written here: see
 * EVENT_STRING_TID in ks-json-parallel-private.h.) */
static void
default_tid (Event *ev)
{
  if (ev->tid.set || !ev->pid.set)
    return;
  ev->tid.set = TRUE;
  ev->tid.is_string = ev->pid.is_string;
  ev->tid.num = ev->pid.num;
  g_string_assign (ev->tid.str, ev->pid.str->str);
}

/* An unset pid or tid is 0, as the look-ups below leave it. */
static inline void
ident_or_zero (Ident *id)
{
  if (!id->set)
    {
      id->set = TRUE;
      id->is_string = FALSE;
      id->num = 0;
    }
}

/* ks_json_event_thread() past its slot: in a chunk's replay through the
 * slot of its (pid, tid) once that is resolved (an event without a pid
 * or tid), otherwise through a small cache of numeric pairs: events come
 * from a few threads in turn (Kineto's main and autograd threads). */
guint32
ks_json_event_thread_lookup (Reader  *r,
                             guint32 *track)
{
  Event *ev = r->ev;
  ThreadSlot *slot = r->thread_slot;
  gboolean numeric;
  guint32 process, thread;
  ThreadCache *c;

  default_tid (ev);
  if (slot != NULL && slot->thread != 0)
    {
      ident_or_zero (&ev->pid);
      ident_or_zero (&ev->tid);
      *track = slot->track;
      return slot->thread - 1;
    }
  numeric = ev->pid.set && ev->tid.set && !ev->pid.is_string && !ev->tid.is_string;
  thread = KS_NO_INDEX;
  if (numeric)
    for (guint i = 0; i < THREAD_CACHE_SIZE; i++)
      {
        c = &r->thread_cache[i];
        if (c->valid && c->pid == ev->pid.num && c->tid == ev->tid.num)
          {
            *track = c->track;
            thread = c->thread;
            break;
          }
      }

  if (thread == KS_NO_INDEX)
    {
      process = lookup_process (r, &ev->pid, TRUE);
      thread = lookup_thread_in (r, process, &ev->tid, TRUE);
      *track = ks_trace_builder_get_thread_track (r->builder, thread);
      if (numeric)
        {
          c = &r->thread_cache[r->thread_cache_next++ % THREAD_CACHE_SIZE];
          c->valid = TRUE;
          c->pid = ev->pid.num;
          c->tid = ev->tid.num;
          c->thread = thread;
          c->track = *track;
        }
    }
  if (slot != NULL)
    {
      slot->thread = thread + 1;
      slot->track = *track;
    }
  return thread;
}

/* The text of the event's args (valid UTF-8), or NULL when it has none. */
static const char *
event_args_json (Reader *r,
                 gsize  *len)
{
  const char *text = r->args->str;

  *len = r->args->len;
  if (!r->ev->has_args)
    return NULL;
  if (r->args_overflow)
    {
      r->n_big_args++;
      return NULL;
    }
  if (r->args_direct != NULL)
    {
      text = r->args_direct;
      *len = r->args_direct_len;
    }
  if (*len <= 2)   /* {} */
    return NULL;
  return r->args_ascii ? text : ks_json_valid_utf8 (r, text, len);
}

static guint32
store_args (Reader     *r,
            const char *text,
            gsize       len)
{
  /* prepared on a worker from this very text */
  if (r->args_prepared != NULL && text == r->args_direct && len == r->args_direct_len)
    return ks_trace_builder_add_local_args (r->builder, text, len, r->args_local, r->args_map,
                                            r->args_prepared, r->args_prepared_len);
  return ks_trace_builder_add_args (r->builder, text, len);
}

static guint32
event_args (Reader *r)
{
  gsize len;
  const char *text = event_args_json (r, &len);

  return text != NULL ? store_args (r, text, len) : 0;
}

/* event_args() for the slice of a complete event: in a chunk's replay,
 * handed to the args' thread (*deferred set), the slice's id set there. */
static guint32
slice_args (Reader   *r,
            gboolean *deferred)
{
  gsize len;
  const char *text;

  if (r->args_stage == NULL)
    return event_args (r);
  text = event_args_json (r, &len);
  if (text == NULL)
    return 0;
  /* text that lives as long as its chunk, not a buffer of the reader's */
  if (text != r->args_direct || len != r->args_direct_len)
    return store_args (r, text, len);
  *deferred = TRUE;
  return ks_json_args_stage_defer (r->args_stage, text, len, r->args_local, r->args_map,
                                   r->args_prepared, r->args_prepared_len);
}

static void
add_slice (Reader          *r,
           guint32          track,
           gint64           ts,
           gint64           end,
           KsSliceKind      kind,
           const KsGpuInfo *gpu)
{
  Event *ev = r->ev;
  gboolean deferred = FALSE;
  guint32 args = slice_args (r, &deferred);

  if (ks_trace_builder_add_slice (r->builder, track, ts, end, kind, ev->name, ev->cat,
                                  ev->correlation, ev->external_id, args, gpu) && deferred)
    ks_args_stage_place (r->args_stage, track, ks_trace_builder_get_track_n_slices (r->builder, track) - 1);
}

/* The event's args as a new string, or NULL when it has none. */
static char *
event_args_text (Reader *r)
{
  gsize len;
  const char *text = event_args_json (r, &len);

  return text != NULL ? g_strndup (text, len) : NULL;
}

static inline void
note_time (Reader *r,
           gint64  ts)
{
  if (ts < r->min_ts)
    r->min_ts = ts;
  if (ts > r->max_ts)
    r->max_ts = ts;
}

static void
add_complete (Reader *r,
              gint64  ts,
              gint64  end)
{
  Event *ev = r->ev;
  KsSliceKind kind = ev->kind;
  guint32 track;

  if (G_UNLIKELY (ev->device_by_name))
    kind = ks_json_device_kind (ev);

  if (G_UNLIKELY (kind == KS_SLICE_ASYNC))
    {
      /* range profiler measurements: a row of the device's process
       * (Kineto's pid), named by the category */
      track = ks_trace_builder_get_async_track (r->builder, lookup_process (r, &ev->pid, TRUE),
                                                ks_trace_builder_get_string (r->builder, ev->cat));
      add_slice (r, track, ts, end, kind, NULL);
    }
  else if (kind_is_gpu (kind))
    {
      KsGpuInfo *gpu = &ev->gpu;

      track = ks_json_gpu_track (r, kind);
      if (kind == KS_SLICE_KERNEL)
        {
          gpu->kernel.registers = ev->registers;
          gpu->kernel.shared_memory = (guint32)ev->shared_memory;
        }
      else if (kind == KS_SLICE_MEMCPY || kind == KS_SLICE_MEMSET)
        {
          memset (gpu, 0, sizeof *gpu);
          gpu->copy.bytes = ev->bytes;
          gpu->copy.copy_kind = kind == KS_SLICE_MEMCPY ? ev->copy_kind : 0;
          gpu->copy.src_kind = ev->src_kind;
          gpu->copy.dst_kind = ev->dst_kind;
        }
      else
        memset (gpu, 0, sizeof *gpu);
      add_slice (r, track, ts, end, kind, gpu);
    }
  else
    {
      ks_json_event_thread (r, &track);
      add_slice (r, track, ts, end, kind, NULL);
    }
  if (G_UNLIKELY (ev->has_bind_id))
    ks_json_handle_bound_flow (r, track, ts, end);
  if (G_UNLIKELY (ev->has_tts || ev->has_tdur))
    ks_trace_builder_add_thread_time (r->builder, track, ts, end, ev->has_tts ? ev->tts : G_MININT64,
                                      ev->has_tdur && ev->tdur >= 0 ? ev->tdur : -1);
}

static void
handle_begin (Reader *r)
{
  Event *ev = r->ev;
  KsOpenRange o = { 0 };
  guint32 thread = ks_json_event_thread (r, &o.track);

  if (ks_trace_builder_get_n_open_ranges (r->builder, thread) >= MAX_OPEN_SLICES)
    {
      r->n_too_deep++;
      return;
    }
  o.start = ev->ts;
  o.name = ev->name;
  o.category = ev->cat;
  o.args_text = event_args_text (r);
  o.correlation = ev->correlation;
  o.external_id = ev->external_id;
  o.kind = kind_is_gpu (ev->kind) || ev->kind == KS_SLICE_ASYNC ? KS_SLICE_GENERIC : ev->kind;
  o.has_thread_start = ev->has_tts;
  o.thread_start = ev->tts;
  /* the slice's end is not known yet: the flow binds to the slice
   * enclosing its start */
  if (G_UNLIKELY (ev->has_bind_id))
    ks_json_handle_bound_flow (r, o.track, ev->ts, G_MININT64);
  ks_trace_builder_begin_range (r->builder, thread, &o);
}

/* The builder merges the args of a B/E pair: the union of both objects,
 * as Chrome does. */
static void
handle_end (Reader *r)
{
  guint32 track;
  guint32 thread = ks_json_event_thread (r, &track);

  if (ks_trace_builder_get_n_open_ranges (r->builder, thread) == 0)
    {
      r->n_unmatched_end++;
      return;
    }
  ks_trace_builder_end_range_thread_time (r->builder, thread, r->ev->ts, event_args_text (r),
                                          r->ev->has_tts ? r->ev->tts : G_MININT64);
}

/* Ranges pair by category and id: across processes when the id is
 * global ("id", id2.global), within the process for id2.local (and
 * without an id). */
static char *
async_key (Reader  *r,
           guint32  process)
{
  Event *ev = r->ev;

  if (ev->has_id && !ev->id_local)
    return g_strdup_printf ("g\x1f%u\x1f%s", ev->cat, ev->id->str);
  return g_strdup_printf ("%u\x1f%u\x1f%s", process, ev->cat, ev->has_id ? ev->id->str : "");
}

static guint32
async_track (Reader  *r,
             guint32  process,
             guint32  root)
{
  return ks_trace_builder_get_async_track (r->builder, process,
                                           ks_trace_builder_get_string (r->builder, root));
}

static void
handle_async (Reader *r,
              char    phase)   /* 'b', 'e' or 'n' */
{
  Event *ev = r->ev;
  guint32 process = lookup_process (r, &ev->pid, TRUE);
  g_autofree char *key = async_key (r, process);
  GArray *stack = g_hash_table_lookup (r->open_async, key);

  if (phase == 'b')
    {
      AsyncRange o = { 0 };

      if (stack == NULL)
        {
          stack = g_array_new (FALSE, FALSE, sizeof (AsyncRange));
          g_hash_table_insert (r->open_async, g_steal_pointer (&key), stack);
        }
      if (stack->len >= MAX_OPEN_SLICES)
        {
          r->n_too_deep++;
          return;
        }
      o.ts = ev->ts;
      o.name = ev->name;
      o.cat = ev->cat;
      o.args = event_args (r);
      o.correlation = ev->correlation;
      o.external_id = ev->external_id;
      o.kind = KS_SLICE_ASYNC;
      /* Nested ranges go on the row of the outermost one of their id,
       * when it is of their process (a global id is shared). */
      if (stack->len > 0 && g_array_index (stack, AsyncRange, 0).process == process)
        o.root = g_array_index (stack, AsyncRange, 0).root;
      else
        o.root = ev->name;
      o.process = process;
      g_array_append_val (stack, o);
      /* a v2 flow binds to the range's slice on its row */
      if (G_UNLIKELY (ev->has_bind_id))
        ks_json_handle_bound_flow (r, async_track (r, o.process, o.root), ev->ts, G_MININT64);
    }
  else if (phase == 'e')
    {
      AsyncRange *o;
      guint i;

      if (stack == NULL || stack->len == 0)
        {
          r->n_unmatched_end++;
          return;
        }
      /* Match by name when it has one, else the innermost; look only near
       * the top so that a hostile file cannot make this quadratic. */
      i = stack->len - 1;
      if (ev->name != 0)
        {
          for (guint j = stack->len; j > 0 && j + 64 > stack->len; j--)
            if (g_array_index (stack, AsyncRange, j - 1).name == ev->name)
              {
                i = j - 1;
                break;
              }
        }
      o = &g_array_index (stack, AsyncRange, i);
      ks_trace_builder_add_slice (r->builder, async_track (r, o->process, o->root),
                                  o->ts, ev->ts, KS_SLICE_ASYNC, o->name, o->cat,
                                  o->correlation, o->external_id, o->args, NULL);
      g_array_remove_index (stack, i);
      /* ids are often used once: keep only the open ones */
      if (stack->len == 0)
        g_hash_table_remove (r->open_async, key);
    }
  else
    {
      KsInstant inst = { 0 };
      const AsyncRange *outer = stack != NULL && stack->len > 0 ? &g_array_index (stack, AsyncRange, 0) : NULL;

      inst.ts = ev->ts;
      inst.process = outer != NULL ? outer->process : process;
      inst.track = async_track (r, inst.process, outer != NULL ? outer->root : ev->name);
      inst.name = ev->name;
      inst.category = ev->cat;
      inst.args = event_args (r);
      ks_trace_builder_add_instant (r->builder, &inst);
    }
}

static void
handle_instant (Reader *r)
{
  Event *ev = r->ev;
  KsInstant inst = { 0 };
  guint32 track;

  if (ev->name_special == NAME_MEMORY)
    {
      KsMemoryEvent m = { 0 };

      m.ts = ev->ts;
      m.address = ev->addr;
      m.bytes = ev->mem_bytes;
      m.total_allocated = ev->total_allocated;
      m.total_reserved = ev->total_reserved;
      m.thread = ks_json_event_thread (r, &track);
      /* c10::DeviceType: 0 is the CPU */
      m.device = ev->device_type == 0 || ev->device_type < 0 ? -1
                 : (gint16)CLAMP (ev->device_id, -1, G_MAXINT16);
      ks_trace_builder_add_memory_event (r->builder, &m);
      return;
    }

  inst.ts = ev->ts;
  inst.name = ev->name;
  inst.category = ev->cat;
  inst.args = event_args (r);
  inst.track = KS_NO_INDEX;
  inst.process = KS_NO_INDEX;
  /* scope: "g" global (no track, no process), "p" process, else thread */
  if (ev->scope == 'p')
    inst.process = lookup_process (r, &ev->pid, TRUE);
  else if (ev->scope != 'g')
    {
      ks_json_event_thread (r, &track);
      inst.track = track;
      inst.process = lookup_process (r, &ev->pid, TRUE);
    }
  ks_trace_builder_add_instant (r->builder, &inst);
}

static void
handle_counter (Reader *r)
{
  Event *ev = r->ev;
  guint32 process = lookup_process (r, &ev->pid, TRUE);
  const char *name = ks_trace_builder_get_string (r->builder, ev->name);
  g_autoptr(GString) full = g_string_new (NULL);

  r->n_bad_counter_values += ev->n_bad_counter_values;
  for (guint i = 0; i < ev->n_counter_args; i++)
    {
      guint32 counter;

      if (ev->counter_key[i]->len == 0)
        continue;
      /* "name [id] key", even for one series: a file's counters keep
       * their names when a later event adds a series */
      g_string_assign (full, name);
      if (ev->has_id)
        g_string_append_printf (full, " %s", ev->id->str);
      g_string_append_printf (full, " %s", ev->counter_key[i]->str);
      counter = ks_trace_builder_get_counter (r->builder, full->str, NULL, -1, process);
      ks_trace_builder_add_counter_sample (r->builder, counter, ev->ts, ev->counter_value[i]);
    }
}

void
ks_json_metadata_clear (gpointer data)
{
  Metadata *m = data;

  g_free (m->pid_str);
  g_free (m->tid_str);
  g_free (m->value);
}

static void
handle_metadata (Reader *r)
{
  Event *ev = r->ev;
  Metadata m = { 0 };

  switch (ev->name_special)
    {
    case NAME_PROCESS_NAME:
    case NAME_THREAD_NAME:
      if (!ev->has_arg_name)
        return;
      m.value = g_strndup (ev->arg_name->str, ev->arg_name->len);
      break;
    case NAME_PROCESS_LABELS:
      if (!ev->has_labels)
        return;
      m.value = g_strndup (ev->labels->str, ev->labels->len);
      break;
    case NAME_PROCESS_SORT_INDEX:
    case NAME_THREAD_SORT_INDEX:
      if (!ev->has_sort_index)
        return;
      m.sort_index = ev->sort_index;
      break;
    default:
      return;
    }

  m.type = ev->name_special;
  default_tid (ev);
  m.pid_is_string = ev->pid.set && ev->pid.is_string;
  m.pid = ev->pid.set ? ev->pid.num : 0;
  if (m.pid_is_string)
    m.pid_str = g_strdup (ev->pid.str->str);
  m.tid_is_string = ev->tid.set && ev->tid.is_string;
  m.tid = ev->tid.set ? ev->tid.num : 0;
  if (m.tid_is_string)
    m.tid_str = g_strdup (ev->tid.str->str);
  g_array_append_val (r->metadata, m);
}

/* Metadata events name processes and threads that have events; applied
 * at the end. A process that only has a name is made, an empty group as
 * Perfetto shows it; not in Kineto files, which name their GPUs as
 * "processes" whose events go to stream tracks. */
void
ks_json_apply_metadata (Reader *r)
{
  Ident pid = { 0 }, tid = { 0 };

  pid.str = g_string_new (NULL);
  tid.str = g_string_new (NULL);

  for (guint i = 0; i < r->metadata->len; i++)
    {
      Metadata *m = &g_array_index (r->metadata, Metadata, i);
      guint32 process, thread;
      gint32 sort = (gint32)CLAMP (m->sort_index, G_MININT32 + 1, G_MAXINT32);

      pid.set = TRUE;
      pid.is_string = m->pid_is_string;
      pid.num = m->pid;
      g_string_assign (pid.str, m->pid_str ? m->pid_str : "");
      process = lookup_process (r, &pid, m->type == NAME_PROCESS_NAME && !r->kineto);
      if (process == KS_NO_INDEX)
        continue;

      switch (m->type)
        {
        case NAME_PROCESS_NAME:
          ks_trace_builder_set_process_info (r->builder, process, m->value, NULL, NULL, G_MININT32);
          break;
        case NAME_PROCESS_LABELS:
          ks_trace_builder_set_process_info (r->builder, process, NULL, m->value, NULL, G_MININT32);
          break;
        case NAME_PROCESS_SORT_INDEX:
          ks_trace_builder_set_process_info (r->builder, process, NULL, NULL, NULL, sort);
          break;
        case NAME_THREAD_NAME:
        case NAME_THREAD_SORT_INDEX:
          tid.set = TRUE;
          tid.is_string = m->tid_is_string;
          tid.num = m->tid;
          g_string_assign (tid.str, m->tid_str ? m->tid_str : "");
          thread = lookup_thread_in (r, process, &tid, FALSE);
          if (thread == KS_NO_INDEX)
            break;
          if (m->type == NAME_THREAD_NAME)
            ks_trace_builder_set_thread_info (r->builder, thread, m->value, NULL, G_MININT32);
          else
            ks_trace_builder_set_thread_info (r->builder, thread, NULL, NULL, sort);
          break;
        default:
          break;
        }
    }

  g_string_free (pid.str, TRUE);
  g_string_free (tid.str, TRUE);
}

void
ks_json_handle_event (Reader *r)
{
  Event *ev = r->ev;
  gint64 ts, end;

  if (ev->ph == 0)
    {
      /* {} closes the list of some writers (JAX): said only when
       * something follows it */
      if (ev->any_key)
        {
          r->n_no_ph += 1 + r->n_empty_pending;
          r->n_empty_pending = 0;
        }
      else
        r->n_empty_pending++;
      return;
    }
  r->n_no_ph += r->n_empty_pending;
  r->n_empty_pending = 0;
  r->n_events++;

  if (ev->ph == 'M')
    {
      handle_metadata (r);
      return;
    }

  if (!ev->has_ts || ev->bad_ts)
    {
      r->n_bad_ts++;
      return;
    }

  if (__builtin_add_overflow (ev->ts, r->ts_offset, &ts))
    {
      r->n_bad_ts++;
      return;
    }
  ev->ts = ts;
  note_time (r, ts);

  switch (ev->ph)
    {
    case 'X':
      end = ts;
      /* Chrome draws it as an instant; kept so, and counted */
      if (ev->has_dur && ev->dur < 0)
        r->n_negative_dur++;
      if (ev->has_dur && ev->dur > 0)
        {
          if (__builtin_add_overflow (ts, ev->dur, &end))
            {
              r->n_bad_ts++;
              return;
            }
        }
      note_time (r, end);
      add_complete (r, ts, end);
      break;

    case 'B':
      handle_begin (r);
      break;

    case 'E':
      handle_end (r);
      break;

    case 'i':
    case 'I':
    case 'R':
      handle_instant (r);
      break;

    case 'C':
      handle_counter (r);
      break;

    case 'b':
    case 'S':
      handle_async (r, 'b');
      break;

    case 'e':
    case 'F':
      handle_async (r, 'e');
      break;

    case 'n':
    case 'T':
    case 'p':
      handle_async (r, 'n');
      break;

    case 's':
    case 't':
    case 'f':
      ks_json_handle_flow (r);
      break;

    default:
      /* Object snapshots (N/O/D), samples (P), marks of other tools:
       * nothing in the model holds them. */
      r->n_unknown_ph++;
      if (r->unknown_phases->len < 32 && strchr (r->unknown_phases->str, ev->ph) == NULL &&
          g_ascii_isprint (ev->ph))
        g_string_append_c (r->unknown_phases, ev->ph);
      break;
    }
}

/* Closes what B and b events left open at the last timestamp: B/E
 * pairs are the builder's, async ranges are kept here. */
void
ks_json_close_open_slices (Reader *r)
{
  GHashTableIter iter;
  gpointer key, value;

  r->n_unclosed += ks_trace_builder_close_open_ranges (r->builder, r->max_ts);

  g_hash_table_iter_init (&iter, r->open_async);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      GArray *stack = value;

      for (guint i = 0; i < stack->len; i++)
        {
          AsyncRange *o = &g_array_index (stack, AsyncRange, i);

          ks_trace_builder_add_slice (r->builder, async_track (r, o->process, o->root),
                                      o->ts, MAX (r->max_ts, o->ts), KS_SLICE_ASYNC,
                                      o->name, o->cat, o->correlation, o->external_id, o->args, NULL);
          r->n_unclosed++;
        }
      g_array_set_size (stack, 0);
    }
}

void
ks_json_report_problems (Reader *r)
{
  KsTraceBuilder *b = r->builder;

  if (r->n_bad_ts > 0)
    ks_trace_builder_add_warning (b, _("%s: %" PRIu64 " events without a valid timestamp or duration were skipped"),
                                  r->name, r->n_bad_ts);
  if (r->n_no_ph > 0)
    ks_trace_builder_add_warning (b, _("%s: %" PRIu64 " objects without a phase (\"ph\") were skipped"),
                                  r->name, r->n_no_ph);
  if (r->n_not_object > 0)
    ks_trace_builder_add_warning (b, _("%s: %" PRIu64 " items of the event list are not objects and were skipped"),
                                  r->name, r->n_not_object);
  if (r->n_unmatched_end > 0)
    ks_trace_builder_add_warning (b, _("%s: %" PRIu64 " end events had no matching begin and were ignored"),
                                  r->name, r->n_unmatched_end);
  if (r->n_unclosed > 0)
    ks_trace_builder_add_warning (b, _("%s: %" PRIu64 " begin events had no matching end and were closed at the end of the trace"),
                                  r->name, r->n_unclosed);
  if (r->n_too_deep > 0)
    ks_trace_builder_add_warning (b, _("%s: %" PRIu64 " begin events nested more than %d deep were skipped"),
                                  r->name, r->n_too_deep, MAX_OPEN_SLICES);
  if (r->n_dropped_flows > 0)
    ks_trace_builder_add_warning (b, _("%s: %" PRIu64 " flow events without an id or a partner were skipped"),
                                  r->name, r->n_dropped_flows);
  if (r->n_big_args > 0)
    ks_trace_builder_add_warning (b, _("%s: the arguments of %" PRIu64 " events were larger than %d bytes and were dropped"),
                                  r->name, r->n_big_args, MAX_ARGS_LEN);
  if (r->n_unknown_ph > 0)
    ks_trace_builder_add_warning (b, _("%s: %" PRIu64 " events of unsupported phases (%s) were ignored"),
                                  r->name, r->n_unknown_ph, r->unknown_phases->str);
  if (r->n_cut_strings > 0)
    ks_trace_builder_add_warning (b, _("%s: %" PRIu64 " strings longer than %d MiB were cut to their first %d MiB"),
                                  r->name, r->n_cut_strings, MAX_STRING_LEN >> 20, MAX_STRING_LEN >> 20);
  if (r->n_top_dropped > 0)
    ks_trace_builder_add_warning (b, _("%s: %" PRIu64 " top-level values past the first %d, or with a key longer "
                                       "than %d bytes or a text longer than 4096, were not kept"),
                                  r->name, r->n_top_dropped, MAX_TOP_METADATA, MAX_TOP_KEY_LEN);
  if (r->n_trailing_commas > 0 || r->n_control_chars > 0)
    ks_trace_builder_add_warning (b, _("%s: not strict JSON, read as Chrome reads it: %" PRIu64 " trailing commas "
                                       "were ignored and %" PRIu64 " control characters inside strings were "
                                       "taken as written"),
                                  r->name, r->n_trailing_commas, r->n_control_chars);
  if (r->n_negative_dur > 0)
    ks_trace_builder_add_warning (b, _("%s: %" PRIu64 " complete events with a negative duration were kept "
                                       "as zero-length"),
                                  r->name, r->n_negative_dur);
  if (r->n_bad_counter_values > 0)
    ks_trace_builder_add_warning (b, _("%s: %" PRIu64 " counter values that are not numbers (or beyond a "
                                       "double's range) were left out"),
                                  r->name, r->n_bad_counter_values);
  if (r->n_invalid_utf8 > 0)
    ks_trace_builder_add_warning (b, _("%s: %" PRIu64 " invalid UTF-8 sequences or unpaired surrogates were "
                                       "replaced with U+FFFD"),
                                  r->name, r->n_invalid_utf8);
}

