/* ks-trace-builder-tracks.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-trace-builder"

/* The add API: processes, threads and their tracks, found by key, and
 * the compact storage of a track's slices while it is built (one block
 * for small tracks, an array a column for large ones). */

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include <glib/gi18n.h>

#include "ks-trace-builder-private.h"

static inline guint64
mix64 (guint64 x)
{
  x ^= x >> 30;
  x *= G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9);
  x ^= x >> 27;
  x *= G_GUINT64_CONSTANT (0x94d049bb133111eb);
  x ^= x >> 31;
  return x;
}

static inline guint32
key_hash (const Key *k)
{
  return (guint32) mix64 (mix64 (mix64 (k->a) ^ (guint64) k->b) ^ (guint64) k->c);
}

static inline gboolean
key_equal (const Key *ka,
           const Key *kb)
{
  return ka->a == kb->a && ka->b == kb->b && ka->c == kb->c;
}

/* The slot of @key in @index: the one holding its id, or the empty one
 * where it goes. The index has at least one empty slot. */
static guint32 *
id_index_slot (KsTraceBuilder *self,
               const IdIndex  *index,
               const Key      *key)
{
  guint32 mask = index->size - 1;
  guint32 i = key_hash (key) & mask;

  for (;;)
    {
      guint32 v = index->slots[i];
      Key k;

      if (v == 0)
        return &index->slots[i];
      index->key_of (self, v - 1, &k);
      if (key_equal (&k, key))
        return &index->slots[i];
      i = (i + 1) & mask;
    }
}

guint32
_ks_builder_id_index_find (KsTraceBuilder *self,
               const IdIndex  *index,
               const Key      *key)
{
  if (index->n == 0)
    return KS_NO_INDEX;
  return *id_index_slot (self, index, key) - 1;
}

/* Adds @id, whose key is not in @index yet. At most 3/4 full; the
 * limits on ids keep the table below 2^21 slots. */
void
_ks_builder_id_index_add (KsTraceBuilder *self,
              IdIndex        *index,
              guint32         id)
{
  Key key;

  if ((guint64) (index->n + 1) * 4 > (guint64) index->size * 3)
    {
      IdIndex grown = { NULL, index->size ? index->size * 2 : 64, 0, index->key_of };

      grown.slots = g_new0 (guint32, grown.size);
      for (guint32 i = 0; i < index->size; i++)
        if (index->slots[i] != 0)
          {
            index->key_of (self, index->slots[i] - 1, &key);
            *id_index_slot (self, &grown, &key) = index->slots[i];
            grown.n++;
          }
      g_free (index->slots);
      *index = grown;
    }

  index->key_of (self, id, &key);
  *id_index_slot (self, index, &key) = id + 1;
  index->n++;
}

void
_ks_builder_process_key (KsTraceBuilder *self,
                         guint32         id,
                         Key            *key)
{
  key->a = 0;
  key->b = g_array_index (self->processes, KsProcess, id).pid;
  key->c = 0;
}

void
_ks_builder_thread_key (KsTraceBuilder *self,
                        guint32         id,
                        Key            *key)
{
  const KsThread *t = &g_array_index (self->threads, KsThread, id);

  key->a = t->process;
  key->b = t->tid;
  key->c = 0;
}

/* GPU tracks are found by kind, group, device and stream; async tracks
 * by process and name. */
void
_ks_builder_track_key (KsTraceBuilder *self,
                       guint32         id,
                       Key            *key)
{
  const TrackBuilder *tb = get_tb (self, id);

  if (tb->kind == KS_TRACK_ASYNC)
    {
      key->a = (guint32) KS_TRACK_ASYNC << 24;
      key->b = tb->process;
      key->c = tb->name;
    }
  else
    {
      key->a = ((guint32) tb->kind << 24) | tb->group;
      key->b = tb->device;
      key->c = tb->stream;
    }
}

/* Points the columns of a packed track at @block, of room for @cap. */
static void
track_set_block (TrackBuilder *tb,
                 guint8       *block,
                 guint32       cap)
{
  tb->start = (gint64 *)(gpointer) block;
  tb->end = tb->start + cap;
  block = (guint8 *)(tb->end + cap);
  if (tb->kind == KS_TRACK_STREAM)
    {
      tb->gpu = (KsGpuInfo *)(gpointer) block;
      block = (guint8 *)(tb->gpu + cap);
    }
  tb->name_id = (guint32 *)(gpointer) block;
  tb->category = tb->name_id + cap;
  tb->correlation = tb->category + cap;
  tb->external_id = tb->correlation + cap;
  tb->args = tb->external_id + cap;
  tb->slice_kind = (guint8 *)(tb->args + cap);
}

static gsize
track_block_size (guint8  kind,
                  guint32 cap)
{
  gsize per_slice = 2 * sizeof (gint64) + 5 * sizeof (guint32) + 1;

  if (kind == KS_TRACK_STREAM)
    per_slice += sizeof (KsGpuInfo);
  return per_slice * cap;
}

void
_ks_builder_track_builder_clear (gpointer data)
{
  TrackBuilder *tb = data;

  if (tb->cap > PACKED_MAX)
    {
      g_free (tb->end);
      g_free (tb->name_id);
      g_free (tb->category);
      g_free (tb->correlation);
      g_free (tb->external_id);
      g_free (tb->args);
      g_free (tb->slice_kind);
      g_free (tb->gpu);
    }
  g_free (tb->start);
  memset (tb, 0, sizeof *tb);
}

guint32
ks_trace_builder_get_n_processes (KsTraceBuilder *self)
{
  return self->processes->len;
}

guint32
ks_trace_builder_get_n_threads (KsTraceBuilder *self)
{
  return self->threads->len;
}

guint32
ks_trace_builder_get_process (KsTraceBuilder *self,
                              gint64          pid)
{
  Key key = { 0, pid, 0 };
  guint32 id = _ks_builder_id_index_find (self, &self->process_index, &key);
  KsProcess p = { 0 };

  if (id != KS_NO_INDEX ||
      !_ks_builder_new_row (self, self->processes->len, FAILED_PROCESSES, &self->sink_process, &id))
    return id;

  p.pid = pid;
  p.group = self->group;
  g_array_append_val (self->processes, p);
  if (id != self->sink_process)
    _ks_builder_id_index_add (self, &self->process_index, id);
  return id;
}

void
ks_trace_builder_set_process_info (KsTraceBuilder *self,
                                   guint32         process,
                                   const char     *name,
                                   const char     *label,
                                   const char     *original,
                                   gint32          sort_index)
{
  KsProcess *p;

  g_return_if_fail (process < self->processes->len);

  p = &g_array_index (self->processes, KsProcess, process);
  if (name != NULL)
    p->name = ks_trace_builder_intern (self, name);
  if (label != NULL)
    p->label = ks_trace_builder_intern (self, label);
  if (original != NULL)
    p->original = ks_trace_builder_intern (self, original);
  if (sort_index != G_MININT32)
    p->sort_index = sort_index;
}

guint32
ks_trace_builder_find_thread (KsTraceBuilder *self,
                              guint32         process,
                              gint64          tid)
{
  Key key = { process, tid, 0 };

  return _ks_builder_id_index_find (self, &self->thread_index, &key);
}

guint32
ks_trace_builder_get_thread (KsTraceBuilder *self,
                             guint32         process,
                             gint64          tid)
{
  guint32 id = ks_trace_builder_find_thread (self, process, tid);
  KsThread t = { 0 };
  guint32 none = 0;

  g_return_val_if_fail (process < self->processes->len, KS_NO_INDEX);

  if (id != KS_NO_INDEX ||
      !_ks_builder_new_row (self, self->threads->len, FAILED_THREADS, &self->sink_thread, &id))
    return id;

  t.process = process;
  t.tid = tid;
  t.track = KS_NO_INDEX;
  g_array_append_val (self->threads, t);
  g_array_append_val (self->nvtx_tracks, none);
  if (id != self->sink_thread)
    _ks_builder_id_index_add (self, &self->thread_index, id);
  return id;
}

void
ks_trace_builder_set_thread_info (KsTraceBuilder *self,
                                  guint32         thread,
                                  const char     *name,
                                  const char     *original,
                                  gint32          sort_index)
{
  KsThread *t;

  g_return_if_fail (thread < self->threads->len);

  t = &g_array_index (self->threads, KsThread, thread);
  if (name != NULL)
    t->name = ks_trace_builder_intern (self, name);
  if (original != NULL)
    t->original = ks_trace_builder_intern (self, original);
  if (sort_index != G_MININT32)
    t->sort_index = sort_index;
}

/* A new track, or the sink (see _ks_builder_new_row()): callers leave the sink as it
 * is and out of their index. */
guint32
_ks_builder_new_track (KsTraceBuilder *self,
           KsTrackKind     kind)
{
  TrackBuilder tb = { 0 };
  guint32 id;

  if (!_ks_builder_new_row (self, self->tracks->len, FAILED_TRACKS, &self->sink_track, &id))
    return id;

  tb.kind = kind;
  tb.process = KS_NO_INDEX;
  tb.thread = KS_NO_INDEX;
  tb.parent = KS_NO_INDEX;
  tb.device = -1;
  tb.stream = -1;
  tb.group = self->group;
  tb.sorted = TRUE;
  g_array_append_val (self->tracks, tb);
  return id;
}

guint32
ks_trace_builder_get_thread_track (KsTraceBuilder *self,
                                   guint32         thread)
{
  KsThread *t;
  TrackBuilder *tb;
  guint32 id;

  g_return_val_if_fail (thread < self->threads->len, KS_NO_INDEX);

  t = &g_array_index (self->threads, KsThread, thread);
  if (t->track != KS_NO_INDEX)
    return t->track;

  id = _ks_builder_new_track (self, KS_TRACK_THREAD);
  t->track = id;
  if (id == self->sink_track)
    return id;
  tb = get_tb (self, id);
  tb->thread = thread;
  tb->process = t->process;
  tb->group = g_array_index (self->processes, KsProcess, t->process).group;
  return id;
}

guint32
ks_trace_builder_get_nvtx_track (KsTraceBuilder *self,
                                 guint32         thread)
{
  guint32 *slot;
  TrackBuilder *tb;
  const TrackBuilder *ptb;
  guint32 id, parent, name;

  g_return_val_if_fail (thread < self->threads->len, KS_NO_INDEX);

  slot = &g_array_index (self->nvtx_tracks, guint32, thread);
  if (*slot != 0)
    return *slot - 1;

  parent = ks_trace_builder_get_thread_track (self, thread);
  name = ks_trace_builder_intern (self, "NVTX");
  id = _ks_builder_new_track (self, KS_TRACK_NVTX);
  g_array_index (self->nvtx_tracks, guint32, thread) = id + 1;
  if (id == self->sink_track || parent == self->sink_track)
    return id;
  tb = get_tb (self, id);
  ptb = get_tb (self, parent);
  tb->thread = thread;
  tb->process = ptb->process;
  tb->group = ptb->group;
  tb->parent = parent;
  tb->name = name;
  return id;
}

static guint32
get_gpu_track (KsTraceBuilder *self,
               KsTrackKind     kind,
               gint32          device,
               gint64          stream)
{
  Key key = { ((guint32)kind << 24) | self->group, device, stream };
  guint32 id = _ks_builder_id_index_find (self, &self->track_index, &key);
  TrackBuilder *tb;

  if (id != KS_NO_INDEX)
    return id;

  id = _ks_builder_new_track (self, kind);
  if (id == self->sink_track)
    return id;
  tb = get_tb (self, id);
  tb->device = device;
  tb->stream = stream;
  _ks_builder_id_index_add (self, &self->track_index, id);
  return id;
}

guint32
ks_trace_builder_get_stream_track (KsTraceBuilder *self,
                                   gint32          device,
                                   gint64          stream)
{
  return get_gpu_track (self, KS_TRACK_STREAM, device, stream);
}

guint32
ks_trace_builder_get_gpu_annotation_track (KsTraceBuilder *self,
                                           gint32          device,
                                           gint64          stream)
{
  guint32 parent = get_gpu_track (self, KS_TRACK_STREAM, device, stream);
  guint32 id = get_gpu_track (self, KS_TRACK_GPU_ANNOTATION, device, stream);

  if (id != self->sink_track)
    get_tb (self, id)->parent = parent;
  return id;
}

guint32
ks_trace_builder_get_async_track (KsTraceBuilder *self,
                                  guint32         process,
                                  const char     *name)
{
  guint32 name_id = ks_trace_builder_intern (self, name);
  Key key = { (guint32) KS_TRACK_ASYNC << 24, process, name_id };
  guint32 id = _ks_builder_id_index_find (self, &self->track_index, &key);
  TrackBuilder *tb;

  if (id != KS_NO_INDEX)
    return id;

  id = _ks_builder_new_track (self, KS_TRACK_ASYNC);
  if (id == self->sink_track)
    return id;
  tb = get_tb (self, id);
  tb->process = process;
  tb->name = name_id;
  _ks_builder_id_index_add (self, &self->track_index, id);
  return id;
}

void
ks_trace_builder_set_track_sort_index (KsTraceBuilder *self,
                                       guint32         track,
                                       gint32          sort_index)
{
  g_return_if_fail (track < self->tracks->len);
  get_tb (self, track)->sort_index = sort_index;
}

/* Moves a packed track into a block for @cap slices. */
static gboolean
track_repack (TrackBuilder *tb,
              guint32       cap)
{
  guint8 *block = g_try_malloc (track_block_size (tb->kind, cap));
  TrackBuilder old = *tb;
  guint32 n = tb->n_slices;

  if (block == NULL)
    return FALSE;
  track_set_block (tb, block, cap);
  if (n > 0)
    {
      memcpy (tb->start, old.start, n * sizeof (gint64));
      memcpy (tb->end, old.end, n * sizeof (gint64));
      memcpy (tb->name_id, old.name_id, n * sizeof (guint32));
      memcpy (tb->category, old.category, n * sizeof (guint32));
      memcpy (tb->correlation, old.correlation, n * sizeof (guint32));
      memcpy (tb->external_id, old.external_id, n * sizeof (guint32));
      memcpy (tb->args, old.args, n * sizeof (guint32));
      memcpy (tb->slice_kind, old.slice_kind, n);
      if (tb->gpu != NULL)
        memcpy (tb->gpu, old.gpu, n * sizeof (KsGpuInfo));
    }
  g_free (old.start);
  tb->cap = cap;
  return TRUE;
}

/* Gives a packed track an array per column, of room for @cap slices. */
static gboolean
track_unpack (TrackBuilder *tb,
              guint32       cap)
{
  guint32 n = tb->n_slices;
  TrackBuilder grown = *tb;

  grown.start = g_try_new (gint64, cap);
  grown.end = g_try_new (gint64, cap);
  grown.name_id = g_try_new (guint32, cap);
  grown.category = g_try_new (guint32, cap);
  grown.correlation = g_try_new (guint32, cap);
  grown.external_id = g_try_new (guint32, cap);
  grown.args = g_try_new (guint32, cap);
  grown.slice_kind = g_try_new (guint8, cap);
  /* by its kind: a track reserved before its first slice has no block */
  grown.gpu = tb->kind == KS_TRACK_STREAM ? g_try_new (KsGpuInfo, cap) : NULL;
  grown.cap = cap;
  if (grown.start == NULL || grown.end == NULL || grown.name_id == NULL || grown.category == NULL ||
      grown.correlation == NULL || grown.external_id == NULL || grown.args == NULL ||
      grown.slice_kind == NULL || (tb->kind == KS_TRACK_STREAM && grown.gpu == NULL))
    {
      _ks_builder_track_builder_clear (&grown);
      return FALSE;
    }

  if (n > 0)
    {
      memcpy (grown.start, tb->start, n * sizeof (gint64));
      memcpy (grown.end, tb->end, n * sizeof (gint64));
      memcpy (grown.name_id, tb->name_id, n * sizeof (guint32));
      memcpy (grown.category, tb->category, n * sizeof (guint32));
      memcpy (grown.correlation, tb->correlation, n * sizeof (guint32));
      memcpy (grown.external_id, tb->external_id, n * sizeof (guint32));
      memcpy (grown.args, tb->args, n * sizeof (guint32));
      memcpy (grown.slice_kind, tb->slice_kind, n);
      if (tb->gpu != NULL)
        memcpy (grown.gpu, tb->gpu, n * sizeof (KsGpuInfo));
    }
  g_free (tb->start);
  *tb = grown;
  return TRUE;
}

#define RENEW_COLUMN(type, column) \
  G_STMT_START {                                                   \
    type *grown = g_try_renew (type, tb->column, cap);             \
    if (grown == NULL)                                             \
      return FALSE;                                                \
    tb->column = grown;                                            \
  } G_STMT_END

/* Grows the arrays of a large track. A column already grown when a
 * later one fails is merely larger than cap. */
static gboolean
track_renew (TrackBuilder *tb,
             guint32       cap)
{
  RENEW_COLUMN (gint64, start);
  RENEW_COLUMN (gint64, end);
  RENEW_COLUMN (guint32, name_id);
  RENEW_COLUMN (guint32, category);
  RENEW_COLUMN (guint32, correlation);
  RENEW_COLUMN (guint32, external_id);
  RENEW_COLUMN (guint32, args);
  RENEW_COLUMN (guint8, slice_kind);
  if (tb->gpu != NULL)
    RENEW_COLUMN (KsGpuInfo, gpu);
  tb->cap = cap;
  return TRUE;
}

/* Room for @cap slices, more than the track has room for: FALSE when
 * memory ran out, the track as it was (or with some columns larger). */
static gboolean
track_resize (TrackBuilder *tb,
              guint32       cap)
{
  g_assert (cap > tb->cap);

  if (cap <= PACKED_MAX)
    return track_repack (tb, cap);
  if (tb->cap <= PACKED_MAX)
    return track_unpack (tb, cap);
  return track_renew (tb, cap);
}

/* Room for twice as many slices. FALSE when the track is full or memory
 * ran out (then the builder has failed). */
static gboolean
track_grow (KsTraceBuilder *self,
            TrackBuilder   *tb)
{
  guint64 cap = tb->cap ? (guint64)tb->cap * 2 : 1;
  gboolean ok;

  if (cap > G_MAXUINT32 - 1)
    cap = G_MAXUINT32 - 1;
  if (cap <= tb->cap)
    return FALSE;

  ok = track_resize (tb, (guint32) cap);
  if (!ok)
    _ks_builder_fail_memory (self);
  return ok;
}

#undef RENEW_COLUMN

gboolean
_ks_builder_track_grow (KsTraceBuilder *self,
                        TrackBuilder   *tb)
{
  return track_grow (self, tb);
}

gboolean
_ks_builder_track_resize (TrackBuilder *tb,
                          guint32       cap)
{
  return track_resize (tb, cap);
}

gboolean
ks_trace_builder_add_slice (KsTraceBuilder  *self,
                            guint32          track,
                            gint64           start,
                            gint64           end,
                            KsSliceKind      kind,
                            guint32          name,
                            guint32          category,
                            guint32          correlation,
                            guint32          external_id,
                            guint32          args,
                            const KsGpuInfo *gpu)
{
  TrackBuilder *tb;
  guint32 n;

  g_return_val_if_fail (track < self->tracks->len, FALSE);

  if (G_UNLIKELY (self->failed != FAILED_NONE))
    return FALSE;
  if (!time_ok (self, start) || (end > start && !time_ok (self, end)))
    return FALSE;
  tb = get_tb (self, track);
  n = tb->n_slices;
  if (n == tb->cap && !track_grow (self, tb))
    return FALSE;
  if (n >= tb->ready && tb->cap >= TRACK_PAGE_IN_MIN)
    _ks_builder_track_page_in (tb, n);

  if (end < start)
    end = start;

  if (n > 0 && (start < tb->start[n - 1] || (start == tb->start[n - 1] && end > tb->end[n - 1])))
    tb->sorted = FALSE;

  tb->start[n] = start;
  tb->end[n] = end;
  tb->name_id[n] = name;
  tb->category[n] = category;
  tb->correlation[n] = correlation;
  tb->external_id[n] = external_id;
  tb->args[n] = args;
  tb->slice_kind[n] = kind;
  if (tb->gpu != NULL)
    {
      if (gpu != NULL)
        tb->gpu[n] = *gpu;
      else
        memset (&tb->gpu[n], 0, sizeof (KsGpuInfo));
    }
  tb->n_slices = n + 1;

  note_ts (self, start);
  note_ts (self, end);
  self->n_events++;
  return TRUE;
}

void
ks_trace_builder_add_gpu (KsTraceBuilder *self,
                          const KsGpu    *gpu)
{
  /* A file may list a great many GPUs (or one many times): no scan. */
  gpointer key = GINT_TO_POINTER (gpu->device);
  guint index = GPOINTER_TO_UINT (g_hash_table_lookup (self->gpu_index, key));

  if (index != 0)
    {
      g_array_index (self->gpus, KsGpu, index - 1) = *gpu;
      return;
    }
  g_array_append_val (self->gpus, *gpu);
  g_hash_table_insert (self->gpu_index, key, GUINT_TO_POINTER (self->gpus->len));
}

void
ks_trace_builder_add_flow (KsTraceBuilder *self,
                           guint32         from_track,
                           gint64          from_ts,
                           guint32         to_track,
                           gint64          to_ts,
                           guint32         category,
                           KsFlowKind      kind)
{
  PendingFlow f = { from_track, to_track, from_ts, to_ts, G_MININT64, G_MININT64, category, kind };

  g_return_if_fail (from_track < self->tracks->len);
  g_return_if_fail (to_track < self->tracks->len);

  if (self->failed != FAILED_NONE)
    return;
  /* finish() shifts both ends by the origin */
  if (!time_ok (self, from_ts) || !time_ok (self, to_ts))
    return;
  g_array_append_val (self->flows, f);
  self->n_events++;
}

void
ks_trace_builder_add_slice_flow (KsTraceBuilder *self,
                                 guint32         from_track,
                                 gint64          from_start,
                                 gint64          from_end,
                                 guint32         to_track,
                                 gint64          to_start,
                                 gint64          to_end,
                                 guint32         category,
                                 KsFlowKind      kind)
{
  PendingFlow f = { from_track, to_track, from_start, to_start,
                    from_end == G_MININT64 ? G_MININT64 : MAX (from_end, from_start),
                    to_end == G_MININT64 ? G_MININT64 : MAX (to_end, to_start), category, kind };

  g_return_if_fail (from_track < self->tracks->len);
  g_return_if_fail (to_track < self->tracks->len);

  if (self->failed != FAILED_NONE)
    return;
  if (!time_ok (self, from_start) || !time_ok (self, to_start) ||
      (f.from_end != G_MININT64 && !time_ok (self, f.from_end)) ||
      (f.to_end != G_MININT64 && !time_ok (self, f.to_end)))
    return;
  g_array_append_val (self->flows, f);
  self->n_events++;
}

void
ks_trace_builder_add_thread_time (KsTraceBuilder *self,
                                  guint32         track,
                                  gint64          start,
                                  gint64          end,
                                  gint64          thread_start,
                                  gint64          thread_duration)
{
  PendingThreadTime tt = { track, start, MAX (end, start), thread_start, thread_duration };

  g_return_if_fail (track < self->tracks->len);

  if (self->failed != FAILED_NONE || !time_ok (self, start) || !time_ok (self, tt.end))
    return;
  g_array_append_val (self->thread_times, tt);
}

guint32
ks_trace_builder_get_counter (KsTraceBuilder *self,
                              const char     *name,
                              const char     *unit,
                              gint32          device,
                              guint32         process)
{
  g_autofree char *key = g_strdup_printf ("%s\x1f%d\x1f%u", name ? name : "", device, process);
  gpointer value = g_hash_table_lookup (self->counter_index, key);
  KsCounter c = { 0 };
  CounterSamples *cs;
  guint32 id;

  if (value != NULL)
    return GPOINTER_TO_UINT (value) - 1;
  if (!_ks_builder_new_row (self, self->counters->len, FAILED_COUNTERS, &self->sink_counter, &id))
    return id;

  c.name = ks_trace_builder_intern (self, name);
  c.unit = ks_trace_builder_intern (self, unit);
  c.device = device;
  c.process = process;
  g_array_append_val (self->counters, c);

  cs = g_new0 (CounterSamples, 1);
  cs->ts = g_array_new (FALSE, FALSE, sizeof (gint64));
  cs->value = g_array_new (FALSE, FALSE, sizeof (double));
  cs->sorted = TRUE;
  g_ptr_array_add (self->counter_samples, cs);

  if (id != self->sink_counter)
    g_hash_table_insert (self->counter_index, g_steal_pointer (&key), GUINT_TO_POINTER (id + 1));
  return id;
}

void
ks_trace_builder_add_counter_sample (KsTraceBuilder *self,
                                     guint32         counter,
                                     gint64          ts,
                                     double          value)
{
  CounterSamples *cs;

  g_return_if_fail (counter < self->counters->len);

  if (self->failed != FAILED_NONE || !time_ok (self, ts))
    return;
  cs = g_ptr_array_index (self->counter_samples, counter);
  if (cs->ts->len > 0 && g_array_index (cs->ts, gint64, cs->ts->len - 1) > ts)
    cs->sorted = FALSE;
  g_array_append_val (cs->ts, ts);
  g_array_append_val (cs->value, value);
  note_ts (self, ts);
  self->n_events++;
}

void
ks_trace_builder_add_memory_event (KsTraceBuilder      *self,
                                   const KsMemoryEvent *event)
{
  if (self->failed != FAILED_NONE || !time_ok (self, event->ts))
    return;
  g_array_append_val (self->memory_events, *event);
  note_ts (self, event->ts);
  self->n_events++;
}

void
ks_trace_builder_add_process_memory_event (KsTraceBuilder      *self,
                                           const KsMemoryEvent *event,
                                           guint32              process)
{
  KsMemoryEvent ev = *event;
  guint32 main;

  g_return_if_fail (process < self->processes->len);

  if (self->failed != FAILED_NONE || !time_ok (self, event->ts))
    return;
  /* Made now: finish cannot add threads, and the event falls back on it */
  main = ks_trace_builder_get_thread (self, process, g_array_index (self->processes, KsProcess, process).pid);
  if (main == KS_NO_INDEX)
    return;
  ev.thread = main | KS_BUILDER_UNPLACED;
  g_array_append_val (self->memory_events, ev);
  self->unplaced_memory++;
  note_ts (self, event->ts);
  self->n_events++;
}

void
ks_trace_builder_add_instant (KsTraceBuilder  *self,
                              const KsInstant *instant)
{
  if (self->failed != FAILED_NONE || !time_ok (self, instant->ts))
    return;
  g_array_append_val (self->instants, *instant);
  note_ts (self, instant->ts);
  self->n_events++;
}

guint64
ks_trace_builder_get_n_events (KsTraceBuilder *self)
{
  return self->n_events;
}

