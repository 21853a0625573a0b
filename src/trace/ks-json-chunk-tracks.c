/* ks-json-chunk-tracks.c: a chunk's slices gathered by track where it
 * is parsed, and added to the builder in bulk by the replay
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-json-reader"

/* Most events of a trace are complete events ("X") that become one
 * slice of a thread's or a GPU stream's track, and most of the replay's
 * time went to putting each back together and through
 * ks_json_handle_event() into ks_trace_builder_add_slice(). What such a
 * slice holds depends on its event alone; only which track its (pid,
 * tid) or stream becomes, the ids of its name and category and of its
 * args, and its place among the other slices of its track depend on the
 * order. So the thread that parses a chunk gathers the slices of its
 * plain complete events into columns, grouped by their pair or stream
 * (ks_json_chunk_tracks_keep(), _gather()). The replay goes through the
 * events in order as before; a gathered event whose group's track is
 * known costs it a count and its args' id, and the group's slices go to
 * the track in one ks_trace_builder_add_slices() per run. A group's track
 * is found at its first event in the chunk, in order, through the usual
 * look-up, so that processes, threads and tracks are made where they
 * were. Before any other event that may touch a track or the args store
 * (all but flow events and `{}`) the runs so far are added, so that each
 * track gets its slices in the file's order. Two groups of one chunk
 * that find the same track (a missing tid and the pid's number, a file
 * past the builder's limits) take the usual way from there on. The flow
 * events of kernel launches (Kineto's "ac2g", a sixth of its events),
 * which the usual way only counts, are only counted.
 *
 * Left to the usual way: events with a flow binding, thread times, an
 * MTIA category or a range profiler's kind, args that need repairs, and
 * times beyond the builder's range; in a file whose times are shifted
 * (a folder's files after the first, by their base times) a slice's
 * times are shifted and checked as it is taken, one that fails going
 * the usual way, and the launches' flow events go the usual way. */

#include "config.h"

#include <string.h>

#include "ks-json-parallel-private.h"

/* beyond this many streams in one chunk, more go the usual way: each
 * event's stream is found by a scan of the chunk's */
#define MAX_GPU_GROUPS 64

typedef struct
{
  guint32 thread_key;   /* its pair, or 0: a GPU stream's */
  int     gpu_kind;     /* see ks_json_gpu_key() */
  gint64  device;
  gint64  stream;
  guint32 first;        /* its slices in the columns, from here ... */
  guint32 n;            /* ... this many, in file order */

  /* the replay's */
  int     state;        /* GROUP_* */
  guint32 track;
  guint32 next;         /* taken */
  guint32 done;         /* added to the track */
  guint32 base;         /* the track's index of column slot 0 in this run */
} Group;

enum
{
  GROUP_UNRESOLVED = 0, /* its track not found yet in this chunk */
  GROUP_BULK,
  GROUP_DIRECT,         /* shares its track with another group: the usual way */
};

struct _ChunkTracks
{
  GArray     *groups;   /* Group; group g is groups[g - 1] */
  guint32    *by_key;   /* a thread key's group, 0 when none yet */
  guint32     n_by_key;
  guint32     gpu[MAX_GPU_GROUPS];
  guint32     n_gpu;
  guint32     last_gpu;
  guint32     n;        /* events gathered */
  gint64      min_ts;
  gint64      max_ts;

  /* the columns, by group, the GPU streams' first (their details for
   * those alone), args only where the replay stores them: in one block */
  guint8     *block;
  gsize       block_size;
  guint32     n_gpu_slices;
  gint64     *start;
  gint64     *end;
  guint32    *name;     /* the chunk's own numbers */
  guint32    *category;
  guint32    *correlation;
  guint32    *external_id;
  guint32    *args;
  guint8     *kind;
  KsGpuInfo  *gpu_info;

  /* the replay's */
  gboolean    on;
  gint64      shift;    /* the file's ts_offset */
  gboolean    refused;  /* the event taken last was refused: the usual way */
  guint32     n_refused; /* slots so passed over */
  GArray     *dirty;    /* groups taken from since the last add */
  GHashTable *by_track; /* track -> group */
};

/* Wherever the pairs are numbered (see ks_json_par_thread_keys()): the
 * groups are found through them. KINESCOPE_JSON_CHUNK_TRACKS=replay
 * turns it off, for tests and measurements. */
gboolean
ks_json_par_chunk_tracks (void)
{
  return g_strcmp0 (g_getenv ("KINESCOPE_JSON_CHUNK_TRACKS"), "replay") != 0;
}

ChunkTracks *
ks_json_chunk_tracks_new (void)
{
  ChunkTracks *t = g_new0 (ChunkTracks, 1);

  t->groups = g_array_new (FALSE, FALSE, sizeof (Group));
  t->min_ts = G_MAXINT64;
  t->max_ts = G_MININT64;
  return t;
}

/* @t emptied for another chunk, its columns kept: fresh memory is paged
 * in at a cost comparable to filling it. */
void
ks_json_chunk_tracks_clear (ChunkTracks *t)
{
  for (guint32 i = 0; i < t->groups->len; i++)
    {
      const Group *g = &g_array_index (t->groups, Group, i);

      if (g->thread_key != 0)
        t->by_key[g->thread_key] = 0;
    }
  g_array_set_size (t->groups, 0);
  t->n_gpu = 0;
  t->last_gpu = 0;
  t->n = 0;
  t->min_ts = G_MAXINT64;
  t->max_ts = G_MININT64;
  t->on = FALSE;
  t->refused = FALSE;
  t->n_refused = 0;
  if (t->dirty != NULL)
    g_array_set_size (t->dirty, 0);
  if (t->by_track != NULL)
    g_hash_table_remove_all (t->by_track);
}

void
ks_json_chunk_tracks_free (ChunkTracks *t)
{
  if (t == NULL)
    return;
  g_array_unref (t->groups);
  g_free (t->by_key);
  g_free (t->block);
  if (t->dirty != NULL)
    g_array_unref (t->dirty);
  if (t->by_track != NULL)
    g_hash_table_unref (t->by_track);
  g_free (t);
}

static inline gboolean
kind_is_gpu (KsSliceKind kind)
{
  return kind == KS_SLICE_KERNEL || kind == KS_SLICE_MEMCPY || kind == KS_SLICE_MEMSET ||
         kind == KS_SLICE_SYNC || kind == KS_SLICE_GPU_ANNOTATION;
}

static inline gboolean
in_range (gint64 ts)
{
  return ts > -KS_TRACE_BUILDER_MAX_ABS_TS && ts < KS_TRACE_BUILDER_MAX_ABS_TS;
}

static guint32
new_group (ChunkTracks *t,
           guint32      thread_key)
{
  Group g = { 0 };

  g.thread_key = thread_key;
  g_array_append_val (t->groups, g);
  return t->groups->len;
}

static guint32
thread_group (ChunkTracks *t,
              guint32      key)
{
  if (key >= t->n_by_key)
    {
      guint32 n = MAX (key + 1, t->n_by_key * 2);

      t->by_key = g_renew (guint32, t->by_key, n);
      memset (t->by_key + t->n_by_key, 0, (n - t->n_by_key) * sizeof (guint32));
      t->n_by_key = n;
    }
  if (t->by_key[key] == 0)
    t->by_key[key] = new_group (t, key);
  return t->by_key[key];
}

static guint32
gpu_group (ChunkTracks *t,
           const Event *ev,
           KsSliceKind  kind)
{
  int gpu_kind;
  gint64 device, stream;
  Group *g;
  guint32 id;

  ks_json_gpu_key (ev, kind, &gpu_kind, &device, &stream);
  for (guint32 i = 0; i < t->n_gpu; i++)
    {
      /* the stream of the event before first: they come in runs */
      id = t->gpu[(t->last_gpu + i) % t->n_gpu];
      g = &g_array_index (t->groups, Group, id - 1);
      if (g->gpu_kind == gpu_kind && g->device == device && g->stream == stream)
        {
          t->last_gpu = (t->last_gpu + i) % t->n_gpu;
          return id;
        }
    }
  if (t->n_gpu == MAX_GPU_GROUPS)
    return 0;
  id = new_group (t, 0);
  g = &g_array_index (t->groups, Group, id - 1);
  g->gpu_kind = gpu_kind;
  g->device = device;
  g->stream = stream;
  t->last_gpu = t->n_gpu;
  t->gpu[t->n_gpu++] = id;
  return id;
}

/* On the thread that parses the chunk, as it keeps @ev (its pid and tid
 * still in that thread's strings, its args in @k): the group of its
 * slice when the replay may take it in bulk. */
void
ks_json_chunk_tracks_keep (Chunk       *c,
                           const Event *ev,
                           Kept        *k)
{
  ChunkTracks *t = c->tracks;
  KsSliceKind kind = ev->kind;
  gboolean args;
  gint64 end;
  guint32 g;

  /* a flow event of a kernel launch, implied by the correlation ids:
   * ks_json_handle_event() counts it and notes its time, no more */
  if ((ev->ph == 's' || ev->ph == 't' || ev->ph == 'f') && ev->flow_cat == FLOW_CAT_LAUNCH && ev->has_ts &&
      !ev->bad_ts)
    {
      k->launch_flow = TRUE;
      t->min_ts = MIN (t->min_ts, ev->ts);
      t->max_ts = MAX (t->max_ts, ev->ts);
      return;
    }
  /* what ks_json_handle_event() and add_complete() do other than one
   * slice on a thread's or a stream's track */
  if (ev->ph != 'X' || !ev->has_ts || ev->bad_ts || ev->device_by_name || ev->has_bind_id ||
      ev->has_tts || ev->has_tdur || kind == KS_SLICE_ASYNC)
    return;
  /* the builder counts those it refuses */
  end = ev->ts;
  if (!in_range (ev->ts) ||
      (ev->has_dur && ev->dur > 0 && (__builtin_add_overflow (ev->ts, ev->dur, &end) || !in_range (end))))
    return;
  /* args the replay repairs first */
  args = ev->has_args && !k->args_overflow && k->args_len > 2;
  if (args && !k->args_ascii)
    return;

  if (kind_is_gpu (kind))
    g = gpu_group (t, ev, kind);
  else
    g = k->thread_key != 0 ? thread_group (t, k->thread_key) : 0;
  if (g == 0)
    return;
  k->group = g;
  k->slice_args = args;
  k->big_args = ev->has_args && k->args_overflow;
  k->negative_dur = ev->has_dur && ev->dur < 0;
  g_array_index (t->groups, Group, g - 1).n++;
  t->n++;
  t->min_ts = MIN (t->min_ts, ev->ts);
  t->max_ts = MAX (t->max_ts, end);
}

/* The columns in one block, grown as needed and kept with @t for the
 * next chunks: one allocation rather than one an array, outside the
 * heap the model grows in (glibc maps blocks this large apart). */
#define MIN_BLOCK (256 * 1024)
G_STATIC_ASSERT (sizeof (KsGpuInfo) % sizeof (gint64) == 0);

static void
columns_place (ChunkTracks *t,
               gboolean     args)
{
  gsize n = t->n;
  gsize need = n * (2 * sizeof (gint64) + (args ? 5 : 4) * sizeof (guint32) + 1) +
               t->n_gpu_slices * sizeof (KsGpuInfo);
  guint8 *at;

  if (need > t->block_size)
    {
      g_free (t->block);
      t->block_size = MAX (MAX (need, MIN_BLOCK), t->block_size * 2);
      t->block = g_malloc (t->block_size);
    }
  /* each column aligned as its type: the 8-byte ones first */
  at = t->block;
  t->start = (gint64 *) at;
  at += n * sizeof (gint64);
  t->end = (gint64 *) at;
  at += n * sizeof (gint64);
  t->gpu_info = (KsGpuInfo *) at;
  at += t->n_gpu_slices * sizeof (KsGpuInfo);
  t->name = (guint32 *) at;
  at += n * sizeof (guint32);
  t->category = (guint32 *) at;
  at += n * sizeof (guint32);
  t->correlation = (guint32 *) at;
  at += n * sizeof (guint32);
  t->external_id = (guint32 *) at;
  at += n * sizeof (guint32);
  t->args = NULL;
  if (args)
    {
      t->args = (guint32 *) at;
      at += n * sizeof (guint32);
    }
  t->kind = at;
}

/* After the parse, on the same thread: the gathered slices into their
 * groups' columns, each group's in file order. */
void
ks_json_chunk_tracks_gather (Chunk *c)
{
  ChunkTracks *t = c->tracks;
  g_autofree guint32 *at = NULL;
  guint32 first = 0;
  gboolean args = c->owner->args_stage == NULL;

  if (t->n == 0)
    return;
  at = g_new (guint32, t->groups->len);
  for (int gpu = 1; gpu >= 0; gpu--)
    {
      for (guint32 i = 0; i < t->groups->len; i++)
        {
          Group *g = &g_array_index (t->groups, Group, i);

          if ((g->thread_key == 0) == gpu)
            {
              g->first = at[i] = first;
              first += g->n;
            }
        }
      if (gpu)
        t->n_gpu_slices = first;
    }
  columns_place (t, args);

  for (guint e = 0; e < c->kept->len; e++)
    {
      const Kept *k = &g_array_index (c->kept, Kept, e);
      const Event *ev;
      guint32 s;

      if (k->group == 0)
        continue;
      ev = ks_json_par_chunk_event (c, e);
      s = at[k->group - 1]++;
      t->start[s] = ev->ts;
      t->end[s] = ev->has_dur && ev->dur > 0 ? ev->ts + ev->dur : ev->ts;
      t->name[s] = ev->name;
      t->category[s] = ev->cat;
      t->correlation[s] = ev->correlation;
      t->external_id[s] = ev->external_id;
      t->kind[s] = (guint8) ev->kind;
      if (args)
        t->args[s] = 0;
      if (s < t->n_gpu_slices)
        {
          KsGpuInfo *gpu = &t->gpu_info[s];

          /* as add_complete() fills it */
          if (ev->kind == KS_SLICE_KERNEL)
            {
              *gpu = ev->gpu;
              gpu->kernel.registers = ev->registers;
              gpu->kernel.shared_memory = (guint32) ev->shared_memory;
            }
          else if (ev->kind == KS_SLICE_MEMCPY || ev->kind == KS_SLICE_MEMSET)
            {
              memset (gpu, 0, sizeof *gpu);
              gpu->copy.bytes = ev->bytes;
              gpu->copy.copy_kind = ev->kind == KS_SLICE_MEMCPY ? ev->copy_kind : 0;
              gpu->copy.src_kind = ev->src_kind;
              gpu->copy.dst_kind = ev->dst_kind;
            }
          else
            memset (gpu, 0, sizeof *gpu);
        }
    }
}

/* Whether the replay of @c takes its gathered slices in bulk. */
gboolean
ks_json_chunk_tracks_begin (Reader *r,
                            Chunk  *c)
{
  ChunkTracks *t = c->tracks;

  if (t == NULL || (t->n == 0 && t->min_ts > t->max_ts))
    return FALSE;
  /* the args handed over name slices not added yet: the batch must not
   * be stored before they are */
  if (r->args_stage != NULL && !ks_args_stage_reserve (r->args_stage, t->n))
    return FALSE;
  if (t->dirty == NULL)
    t->dirty = g_array_new (FALSE, FALSE, sizeof (guint32));
  t->shift = r->ts_offset;
  t->on = TRUE;
  return TRUE;
}

/* The gathered slices taken so far, to their tracks. */
static void
flush (Reader      *r,
       Chunk       *c,
       ChunkTracks *t)
{
  KsSliceColumns columns = {
    t->start, t->end, t->name, t->category, t->correlation, t->external_id,
    r->args_stage == NULL ? t->args : NULL, t->kind, NULL,
  };

  for (guint i = 0; i < t->dirty->len; i++)
    {
      guint32 id = g_array_index (t->dirty, guint32, i);
      Group *g = &g_array_index (t->groups, Group, id - 1);
      guint32 from = g->first + g->done;
      guint32 at;

      /* a thread's track has no GPU details */
      columns.gpu = g->thread_key == 0 ? t->gpu_info : NULL;
      /* the args handed over were placed at base + slot: nothing else
       * adds to the track meanwhile (see ks_json_chunk_tracks_before()) */
      if (!ks_trace_builder_add_slices (r->builder, g->track, &columns, from, g->next - g->done, c->map, &at))
        {
          if (r->args_stage != NULL)
            ks_json_args_stage_unplace (r->args_stage, g->track, g->base + from);
        }
      else
        g_assert (at == g->base + from);
      g->done = g->next;
    }
  g_array_set_size (t->dirty, 0);
}

/* In a file whose times are shifted, the next slice of @g shifted as
 * ks_json_handle_event() and ks_trace_builder_add_slice() do, its times
 * noted; FALSE when they refuse it: the runs so far are added and its
 * slot is passed over, for the usual way to count it. */
static gboolean
shift_slot (Reader      *r,
            Chunk       *c,
            ChunkTracks *t,
            Group       *g)
{
  guint32 slot = g->first + g->next;
  gint64 dur = t->end[slot] - t->start[slot];
  gint64 start, end;

  if (!__builtin_add_overflow (t->start[slot], t->shift, &start) &&
      !__builtin_add_overflow (start, dur, &end) && in_range (start) && (end == start || in_range (end)))
    {
      t->start[slot] = start;
      t->end[slot] = end;
      r->min_ts = MIN (r->min_ts, start);
      r->max_ts = MAX (r->max_ts, end);
      return TRUE;
    }
  flush (r, c, t);
  g->next++;
  g->done = g->next;
  t->refused = TRUE;
  t->n_refused++;
  return FALSE;
}

/* The gathered event of @k, taken in bulk when its group's track is
 * known: what handling it would do on the reader (its counts and its
 * args, in order), its slice into the group's run; or a launch's flow
 * event, counted. FALSE: it goes through ks_json_chunk_tracks_resolve()
 * or the usual way. */
gboolean
ks_json_chunk_tracks_take (Reader     *r,
                           Chunk      *c,
                           const Kept *k)
{
  ChunkTracks *t = c->tracks;
  Group *g;
  guint32 slot;

  if (k->launch_flow)
    {
      /* its time shifted is the usual way's to note */
      if (G_UNLIKELY (t->shift != 0))
        return FALSE;
      if (G_UNLIKELY (r->n_empty_pending > 0))
        {
          r->n_no_ph += r->n_empty_pending;
          r->n_empty_pending = 0;
        }
      r->n_events++;
      return TRUE;
    }
  g = &((Group *) t->groups->data)[k->group - 1];
  if (G_UNLIKELY (g->state != GROUP_BULK))
    return FALSE;
  if (G_UNLIKELY (t->shift != 0) && !shift_slot (r, c, t, g))
    return FALSE;
  if (g->next == g->done)
    {
      /* a run begins: where it will go in the track */
      g_array_append_val (t->dirty, k->group);
      g->base = ks_trace_builder_get_track_n_slices (r->builder, g->track) - (g->first + g->done);
    }
  slot = g->first + g->next++;

  /* what ks_json_handle_event() counts (events, at the end) */
  if (G_UNLIKELY (r->n_empty_pending > 0))
    {
      r->n_no_ph += r->n_empty_pending;
      r->n_empty_pending = 0;
    }
  if (G_UNLIKELY (k->negative_dur | k->big_args))
    {
      r->n_negative_dur += k->negative_dur;
      r->n_big_args += k->big_args;
    }
  if (k->slice_args)
    {
      const guint8 *prepared = k->prepared_len > 0 ? c->prepared->data + k->prepared_at : NULL;

      /* as slice_args() and store_args() in ks-json-events.c; there is
       * room for it (ks_args_stage_reserve()), so the batch is not
       * stored before its slice is added */
      if (r->args_stage != NULL)
        ks_args_stage_defer (r->args_stage, k->args, k->args_len, prepared != NULL ? c->args_local : NULL,
                             c->args_map, prepared, k->prepared_len, g->track, g->base + slot);
      else if (prepared != NULL)
        t->args[slot] = ks_trace_builder_add_local_args (r->builder, k->args, k->args_len, c->args_local,
                                                         c->args_map, prepared, k->prepared_len);
      else
        t->args[slot] = ks_trace_builder_add_args (r->builder, k->args, k->args_len);
    }
  return TRUE;
}

/* Before the event of @k goes through ks_json_chunk_tracks_resolve() or
 * the usual way: the runs so far go to their tracks first, unless it is
 * an event that touches no track and no args (a flow event, `{}`). */
void
ks_json_chunk_tracks_before (Reader      *r,
                             Chunk       *c,
                             const Kept  *k,
                             const Event *ev)
{
  ChunkTracks *t = c->tracks;

  if (t->dirty->len == 0)
    return;
  if (k->group == 0 && (ev->ph == 's' || ev->ph == 't' || ev->ph == 'f' || ev->ph == 0))
    return;
  flush (r, c, t);
}

/* The first gathered event of its group in the chunk, put back together
 * as the usual way has it: its track found, in order, and the event
 * taken. FALSE: it goes the usual way. */
gboolean
ks_json_chunk_tracks_resolve (Reader     *r,
                              Chunk      *c,
                              const Kept *k)
{
  ChunkTracks *t = c->tracks;
  Group *g = &g_array_index (t->groups, Group, k->group - 1);
  gpointer other;

  if (t->refused)
    {
      /* take() refused it (its shifted times) */
      t->refused = FALSE;
      return FALSE;
    }
  if (g->state == GROUP_DIRECT)
    return FALSE;
  if (g->state == GROUP_UNRESOLVED)
    {
      if (g->thread_key != 0)
        ks_json_event_thread (r, &g->track);
      else
        g->track = ks_json_gpu_track (r, r->ev->kind);
      g->state = GROUP_BULK;
      if (t->by_track == NULL)
        t->by_track = g_hash_table_new (NULL, NULL);
      other = g_hash_table_lookup (t->by_track, GUINT_TO_POINTER (g->track + 1));
      if (other != NULL)
        {
          /* its slices and the other group's interleave in the track */
          g->state = GROUP_DIRECT;
          g_array_index (t->groups, Group, GPOINTER_TO_UINT (other) - 1).state = GROUP_DIRECT;
          return FALSE;
        }
      g_hash_table_insert (t->by_track, GUINT_TO_POINTER (g->track + 1), GUINT_TO_POINTER (k->group));
    }
  if (!ks_json_chunk_tracks_take (r, c, k))
    {
      t->refused = FALSE;
      return FALSE;
    }
  return TRUE;
}

/* After the replay of @c's events (@complete: all of them): the runs
 * left go to their tracks, and the reader notes their times. */
void
ks_json_chunk_tracks_end (Reader   *r,
                          Chunk    *c,
                          gboolean  complete)
{
  ChunkTracks *t = c->tracks;
  guint64 n_taken = 0;

  if (t == NULL || !t->on)
    return;
  flush (r, c, t);
  t->on = FALSE;
  for (guint32 i = 0; i < t->groups->len; i++)
    n_taken += g_array_index (t->groups, Group, i).next;
  n_taken -= t->n_refused;
  r->n_events += n_taken;
  c->owner->n_gathered += t->n;
  c->owner->n_taken += n_taken;
  /* every gathered event was taken or handled, and each notes its times
   * (shifted ones were noted as they were taken) */
  if (complete && t->shift == 0)
    {
      r->min_ts = MIN (r->min_ts, t->min_ts);
      r->max_ts = MAX (r->max_ts, t->max_ts);
    }
}
