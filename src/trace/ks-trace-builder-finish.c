/* ks-trace-builder-finish.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-trace-builder"

/* Finishing a trace: each track sorted and nested (depths and the
 * per-depth index), counters sorted, instants and memory events sorted
 * beside the tracks (ks-trace-builder-timed.c), and flows and
 * correlations linked to the slices at their ends
 * (ks-trace-builder-flows.c). */

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include <glib/gi18n.h>

#include "ks-json-reader.h"
#include "ks-kscope-conventions.h"
#include "ks-load-phases.h"
#include "ks-trace-builder-private.h"

/* Start first; at equal starts parents (longer) before children; then
 * the order of arrival. */
static inline gboolean
slice_before (const TrackBuilder *tb,
              guint32             a,
              guint32             b)
{
  if (tb->start[a] != tb->start[b])
    return tb->start[a] < tb->start[b];
  if (tb->end[a] != tb->end[b])
    return tb->end[a] > tb->end[b];
  return a < b;
}

/* A natural merge sort of @perm: profilers write each thread's events
 * almost in order (a few out-of-order stretches), so the runs already in
 * order are few and long and merging them is close to one pass. Random
 * input costs what a merge sort costs. */
static void
sort_slices (const TrackBuilder *tb,
             guint32            *perm,
             guint32             n)
{
  g_autoptr(GArray) runs = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autofree guint32 *tmp = NULL;
  guint32 *src = perm;
  guint32 *dst;

  for (guint32 i = 0; i < n; i++)
    if (i == 0 || slice_before (tb, src[i], src[i - 1]))
      g_array_append_val (runs, i);
  if (runs->len < 2)
    return;

  tmp = g_new (guint32, n);
  dst = tmp;
  while (runs->len > 1)
    {
      guint32 *bounds = (guint32 *)runs->data;
      guint32 n_runs = runs->len;
      guint32 kept = 0;
      guint32 *swap;

      for (guint32 r = 0; r < n_runs; r += 2)
        {
          guint32 lo = bounds[r];
          guint32 mid = r + 1 < n_runs ? bounds[r + 1] : n;
          guint32 hi = r + 2 < n_runs ? bounds[r + 2] : n;
          guint32 i = lo, j = mid, k = lo;

          while (i < mid && j < hi)
            dst[k++] = slice_before (tb, src[j], src[i]) ? src[j++] : src[i++];
          while (i < mid)
            dst[k++] = src[i++];
          while (j < hi)
            dst[k++] = src[j++];
          bounds[kept++] = lo;
        }
      g_array_set_size (runs, kept);
      swap = src;
      src = dst;
      dst = swap;
    }
  if (src != perm)
    memcpy (perm, src, sizeof (guint32) * n);
}

/* Position i takes the element at perm[i]. The column is gathered into
 * @spare (allocated on first use) and its old storage becomes the spare
 * of the next column of the same element size: one new array per size
 * instead of one per column, fewer pages to fault in. */
#define PERMUTE(type, column, spare)                           \
  G_STMT_START {                                               \
    type *dst = spare ? (type *)spare : g_new (type, n);       \
    for (guint32 i = 0; i < n; i++)                            \
      dst[i] = tb->column[perm[i]];                            \
    spare = tb->column;                                        \
    tb->column = dst;                                          \
  } G_STMT_END

static void
track_sort (TrackBuilder *tb)
{
  guint32 n = tb->n_slices;
  g_autofree guint32 *perm = NULL;
  g_autofree gpointer spare8 = NULL;
  g_autofree gpointer spare4 = NULL;
  g_autofree gpointer spare1 = NULL;
  g_autofree gpointer spare_gpu = NULL;

  if (tb->sorted || n < 2)
    return;

  perm = g_new (guint32, n);
  for (guint32 i = 0; i < n; i++)
    perm[i] = i;
  sort_slices (tb, perm, n);

  PERMUTE (gint64, start, spare8);
  PERMUTE (gint64, end, spare8);
  PERMUTE (guint32, name_id, spare4);
  PERMUTE (guint32, category, spare4);
  PERMUTE (guint32, correlation, spare4);
  PERMUTE (guint32, external_id, spare4);
  PERMUTE (guint32, args, spare4);
  PERMUTE (guint8, slice_kind, spare1);
  if (tb->gpu != NULL)
    PERMUTE (KsGpuInfo, gpu, spare_gpu);
}

#undef PERMUTE

/* Slices that start inside another and end after it: counted, and the
 * first one (in sorted order) kept for the load's warning. */
typedef struct
{
  guint64 n;
  guint32 slice;
  guint32 parent;
} Overlaps;

/* Nesting depths of the slices (start, end)[perm[i]] (perm NULL: in
 * order), which are sorted; shifted by @origin into out_start/out_end
 * (which may be the input). counts[d] is the number at depth d. Returns
 * the deepest depth + 1, 0 for no slices. Intervals are closed on the
 * left and open on the right, except that slices of no duration at one
 * time stack (as Perfetto nests them); a slice that ends after the one
 * it starts in is placed at that one's depth. @overlaps, unless NULL,
 * gets those partial overlaps. */
static guint32
track_depths (const gint64  *start,
              const gint64  *end,
              const guint32 *perm,
              guint32        n,
              gint64         origin,
              gint64        *out_start,
              gint64        *out_end,
              guint8        *depth,
              guint32       *counts,
              Overlaps      *overlaps)
{
  gint64 stack[MAX_DEPTH + 1];
  gint64 stack_start[MAX_DEPTH + 1];
  guint32 stack_index[MAX_DEPTH + 1];
  guint32 sp = 0;
  guint32 max_depth = 0;

  for (guint32 i = 0; i < n; i++)
    {
      guint32 k = perm ? perm[i] : i;
      gint64 s = start[k];
      gint64 e = end[k];

      while (sp > 0 && stack[sp - 1] <= s &&
             !(stack[sp - 1] == s && stack_start[sp - 1] == s && e == s))
        sp--;
      /* One that ends after the slice it starts in goes beside it, as
       * Perfetto draws it: under it, each such slice (a Python frame
       * ending just after the next profiler step begins) would push all
       * that follows a row down, a staircase. */
      if (sp > 0 && e > stack[sp - 1])
        {
          if (overlaps != NULL && overlaps->n++ == 0)
            {
              overlaps->slice = i;
              overlaps->parent = stack_index[sp - 1];
            }
          while (sp > 0 && e > stack[sp - 1])
            sp--;
        }

      /* Slices deeper than MAX_DEPTH share the last level; they are
       * drawn there but may be missed by range queries. */
      if (sp > MAX_DEPTH)
        sp = MAX_DEPTH;
      depth[i] = sp;
      counts[sp]++;
      if (sp + 1 > max_depth)
        max_depth = sp + 1;
      stack_start[sp] = s;
      stack_index[sp] = i;
      stack[sp++] = e;

      /* both within MAX_ABS_TS of 0: no overflow */
      out_start[i] = s - origin;
      out_end[i] = e - origin;
    }

  return max_depth;
}

/* Fills by_depth[] (pointing into @all, n_slices long) and n_by_depth[]
 * (zeroed) of @track from its depths and the @counts of each. */
static void
track_index_depths (KsTrack       *track,
                    guint32       *all,
                    const guint32 *counts)
{
  guint32 offset = 0;

  track->by_depth[0] = all;
  for (guint32 d = 0; d < track->max_depth; d++)
    {
      track->by_depth[d] = all + offset;
      offset += counts[d];
    }
  for (guint32 i = 0; i < track->n_slices; i++)
    {
      guint8 d = track->depth[i];

      track->by_depth[d][track->n_by_depth[d]++] = i;
    }
}

static void
track_copy_meta (const TrackBuilder *tb,
                 guint32             id,
                 KsTrack            *track)
{
  track->kind = tb->kind;
  track->id = id;
  track->name = tb->name;
  track->process = tb->process;
  track->thread = tb->thread;
  track->parent = tb->parent;
  track->device = tb->device;
  track->stream = tb->stream;
  track->sort_index = tb->sort_index;
  track->group = tb->group;
  track->n_slices = tb->n_slices;
}

/* The trace's blocks for small tracks: carved from blocks of 64 KiB
 * growing to 4 MiB, freed with the trace. */
typedef struct
{
  GPtrArray *blocks;
  guint8    *pos;
  gsize      left;
} Arena;

#define ARENA_BLOCK_MIN (64 * 1024)
#define ARENA_BLOCK_MAX (4 * 1024 * 1024)

static gpointer
arena_alloc (Arena *arena,
             gsize  size)
{
  gpointer p;

  size = (size + 7) & ~(gsize) 7;
  if (size > arena->left)
    {
      gsize block = MIN ((gsize) ARENA_BLOCK_MIN << MIN (arena->blocks->len, 6), ARENA_BLOCK_MAX);

      block = MAX (block, size);
      arena->pos = g_malloc (block);
      arena->left = block;
      g_ptr_array_add (arena->blocks, arena->pos);
    }
  p = arena->pos;
  arena->pos += size;
  arena->left -= size;
  return p;
}

/* A track of at most PACKED_MAX slices: sorted, depths and index
 * computed, and copied with its times shifted by @origin into one piece
 * of @arena. The builder's block is freed. */
static void
track_finish_packed (TrackBuilder *tb,
                     guint32       id,
                     KsTrack      *track,
                     gint64        origin,
                     Arena        *arena,
                     Overlaps     *overlaps)
{
  guint32 n = tb->n_slices;
  guint32 perm[PACKED_MAX];
  gint64 start[PACKED_MAX];
  gint64 end[PACKED_MAX];
  guint8 depth[PACKED_MAX];
  guint32 counts[PACKED_MAX + 1] = { 0 };
  guint32 depths;
  gsize size;
  guint8 *p;

  g_assert (n <= PACKED_MAX);

  for (guint32 i = 0; i < n; i++)
    perm[i] = i;
  if (!tb->sorted)
    sort_slices (tb, perm, n);

  track_copy_meta (tb, id, track);
  track->max_depth = track_depths (tb->start, tb->end, perm, n, origin, start, end, depth, counts, overlaps);
  depths = MAX (track->max_depth, 1);

  /* by size of element, so that each column is aligned */
  size = n * 2 * sizeof (gint64) + depths * sizeof (guint32 *) +
         n * 6 * sizeof (guint32) + depths * sizeof (guint32) + n * 2;
  if (tb->gpu != NULL)
    size += n * sizeof (KsGpuInfo);
  p = arena_alloc (arena, size);

  track->start = (gint64 *)(gpointer) p;
  track->end = track->start + n;
  p = (guint8 *)(track->end + n);
  if (tb->gpu != NULL)
    {
      track->gpu = (KsGpuInfo *)(gpointer) p;
      p = (guint8 *)(track->gpu + n);
    }
  track->by_depth = (guint32 **)(gpointer) p;
  track->name_id = (guint32 *)(gpointer)(track->by_depth + depths);
  track->category = track->name_id + n;
  track->correlation = track->category + n;
  track->external_id = track->correlation + n;
  track->args = track->external_id + n;
  track->n_by_depth = track->args + n + n;    /* the index lies between */
  track->slice_kind = (guint8 *)(track->n_by_depth + depths);
  track->depth = track->slice_kind + n;

  memcpy (track->start, start, n * sizeof (gint64));
  memcpy (track->end, end, n * sizeof (gint64));
  memcpy (track->depth, depth, n);
  for (guint32 i = 0; i < n; i++)
    {
      guint32 k = perm[i];

      track->name_id[i] = tb->name_id[k];
      track->category[i] = tb->category[k];
      track->correlation[i] = tb->correlation[k];
      track->external_id[i] = tb->external_id[k];
      track->args[i] = tb->args[k];
      track->slice_kind[i] = tb->slice_kind[k];
      if (tb->gpu != NULL)
        track->gpu[i] = tb->gpu[k];
    }
  memset (track->n_by_depth, 0, depths * sizeof (guint32));
  track_index_depths (track, track->args + n, counts);

  _ks_builder_track_builder_clear (tb);
}

#define SHRINK(type, column) \
  (type *)(n ? g_realloc (tb->column, sizeof (type) * n) : (g_free (tb->column), g_malloc (sizeof (type))))

/* A larger track: its own arrays move into @track (shrunk to size),
 * sorted, times shifted by @origin, with depths and per-depth index. */
static void
track_finish (TrackBuilder *tb,
              guint32       id,
              KsTrack      *track,
              gint64        origin,
              Overlaps     *overlaps)
{
  guint32 n = tb->n_slices;
  guint32 counts[MAX_DEPTH + 1] = { 0 };
  guint32 *all;

  g_assert (tb->cap > PACKED_MAX && n > PACKED_MAX);

  track_sort (tb);

  track_copy_meta (tb, id, track);
  track->start = SHRINK (gint64, start);
  track->end = SHRINK (gint64, end);
  track->name_id = SHRINK (guint32, name_id);
  track->category = SHRINK (guint32, category);
  track->correlation = SHRINK (guint32, correlation);
  track->external_id = SHRINK (guint32, external_id);
  track->args = SHRINK (guint32, args);
  track->slice_kind = SHRINK (guint8, slice_kind);
  track->gpu = tb->gpu ? SHRINK (KsGpuInfo, gpu) : NULL;
  memset (tb, 0, sizeof *tb);

  track->depth = g_new (guint8, n);
  if (n >= TRACK_PAGE_IN_MIN)
    _ks_builder_page_in (track->depth, track->depth + n);

  track->max_depth = track_depths (track->start, track->end, NULL, n, origin,
                                   track->start, track->end, track->depth, counts, overlaps);
  track->by_depth = g_new0 (guint32 *, track->max_depth);
  track->n_by_depth = g_new0 (guint32, track->max_depth);

  all = g_new (guint32, n);
  if (n >= TRACK_PAGE_IN_MIN)
    _ks_builder_page_in (all, all + n);
  track_index_depths (track, all, counts);
}

#undef SHRINK

/* The tracks of more than PACKED_MAX slices, finished on as many
 * threads as a JSON read takes: sorting and nesting a few large threads
 * is most of finishing a trace, and each track is its own. */
typedef struct
{
  KsTraceBuilder *self;
  KsTrace        *trace;
  const guint32  *tracks;     /* largest first */
  guint           n;
  gint            next;       /* atomic: the next of @tracks to take */
  gint64          origin;
  Overlaps       *checks;
} LargeTracks;

static gpointer
finish_large_job (gpointer data)
{
  LargeTracks *lt = data;
  guint i;

  while ((i = (guint) g_atomic_int_add (&lt->next, 1)) < lt->n)
    {
      guint32 t = lt->tracks[i];
      TrackBuilder *tb = get_tb (lt->self, t);
      Overlaps *check = lt->self->warn_overlaps && tb->kind == KS_TRACK_THREAD ? &lt->checks[t] : NULL;

      track_finish (tb, t, &lt->trace->tracks[t], lt->origin, check);
    }
  return NULL;
}

static int
compare_by_slices (gconstpointer a,
                   gconstpointer b,
                   gpointer      user_data)
{
  KsTraceBuilder *self = user_data;
  guint32 na = get_tb (self, *(const guint32 *) a)->n_slices;
  guint32 nb = get_tb (self, *(const guint32 *) b)->n_slices;

  return (na < nb) - (na > nb);
}

static void
finish_large_tracks (KsTraceBuilder *self,
                     KsTrace        *trace,
                     guint32        *tracks,
                     guint           n,
                     gint64          origin,
                     Overlaps       *checks)
{
  LargeTracks lt = { self, trace, tracks, n, 0, origin, checks };
  guint n_threads = MIN (ks_json_reader_get_n_threads (), n);
  g_autofree GThread **threads = g_new0 (GThread *, MAX (n_threads, 1));

  g_qsort_with_data (tracks, n, sizeof *tracks, compare_by_slices, self);
  for (guint k = 1; k < n_threads; k++)
    threads[k] = g_thread_try_new ("ks-finish", finish_large_job, &lt, NULL);
  finish_large_job (&lt);
  for (guint k = 1; k < n_threads; k++)
    if (threads[k] != NULL)
      g_thread_join (threads[k]);
}

static int
compare_gpus (gconstpointer a,
              gconstpointer b)
{
  const KsGpu *ga = a;
  const KsGpu *gb = b;

  return (ga->device > gb->device) - (ga->device < gb->device);
}

static int
compare_samples (gconstpointer a,
                 gconstpointer b,
                 gpointer      user_data)
{
  const gint64 *ts = user_data;
  guint32 ia = *(const guint32 *)a;
  guint32 ib = *(const guint32 *)b;

  if (ts[ia] != ts[ib])
    return ts[ia] < ts[ib] ? -1 : 1;
  return (ia > ib) - (ia < ib);
}

/* The outermost slice of @track spanning exactly [@start, @end) (times
 * relative to the origin), or KS_NO_INDEX. */
guint32
_ks_builder_exact_slice (const KsTrack *track,
                         gint64         start,
                         gint64         end)
{
  guint32 lo = ks_track_first_starting_from (track, start);

  /* at equal starts longer ones come first */
  for (; lo < track->n_slices && track->start[lo] == start && track->end[lo] >= end; lo++)
    if (track->end[lo] == end)
      return lo;
  return KS_NO_INDEX;
}

typedef struct
{
  guint32 track;
  guint32 slice;
  gint64  thread_start;
  gint64  thread_duration;
} ThreadTime;

static int
compare_thread_times (gconstpointer a,
                      gconstpointer b)
{
  const ThreadTime *ta = a, *tb = b;

  if (ta->track != tb->track)
    return ta->track < tb->track ? -1 : 1;
  return (ta->slice > tb->slice) - (ta->slice < tb->slice);
}

/* The pending thread times onto their slices: each track's sparse side
 * table (the first one given for a slice counts). */
static void
resolve_thread_times (KsTraceBuilder *self,
                      KsTrace        *trace)
{
  g_autoptr(GArray) found = g_array_new (FALSE, FALSE, sizeof (ThreadTime));

  for (guint i = 0; i < self->thread_times->len; i++)
    {
      const PendingThreadTime *p = &g_array_index (self->thread_times, PendingThreadTime, i);
      ThreadTime tt = { p->track, 0, p->thread_start, p->thread_duration };

      tt.slice = _ks_builder_exact_slice (&trace->tracks[p->track], p->start - trace->origin_ns, p->end - trace->origin_ns);
      if (tt.slice != KS_NO_INDEX)
        g_array_append_val (found, tt);
    }
  g_array_sort (found, compare_thread_times);

  for (guint i = 0; i < found->len;)
    {
      const ThreadTime *first = &g_array_index (found, ThreadTime, i);
      KsTrack *track = &trace->tracks[first->track];
      guint j = i, n = 0;

      for (; j < found->len && g_array_index (found, ThreadTime, j).track == first->track; j++)
        n++;
      track->thread_time_slice = g_new (guint32, n);
      track->thread_start = g_new (gint64, n);
      track->thread_duration = g_new (gint64, n);
      for (guint k = i; k < j; k++)
        {
          const ThreadTime *tt = &g_array_index (found, ThreadTime, k);
          guint32 m = track->n_thread_times;

          if (m > 0 && track->thread_time_slice[m - 1] == tt->slice)
            continue;
          track->thread_time_slice[m] = tt->slice;
          track->thread_start[m] = tt->thread_start;
          track->thread_duration[m] = tt->thread_duration;
          track->n_thread_times++;
        }
      i = j;
    }
}

void
ks_trace_builder_set_warn_overlaps (KsTraceBuilder *self,
                                    gboolean        warn)
{
  self->warn_overlaps = warn;
}

/* One load warning for the slices of threads that overlap the slice
 * they start in only partly: they are drawn beside it, at its depth. */
/* A slice's name as a message quotes it: at most 80 characters. */
static char *
quoted_name (KsTraceBuilder *self,
             guint32         id)
{
  const char *name = ks_trace_builder_get_string (self, id);
  g_autofree char *start = NULL;

  if (g_utf8_strlen (name, 400) <= 80)
    return g_strdup (name);
  start = g_utf8_substring (name, 0, 79);
  return g_strconcat (start, "…", NULL);
}

static void
warn_overlaps (KsTraceBuilder *self,
               KsTrace        *trace,
               const Overlaps *o,
               guint32         t)
{
  const KsTrack *track = &trace->tracks[t];
  const char *source = g_hash_table_lookup (self->metadata, "source_name");
  g_autofree char *at = g_strdup_printf ("%.3f", track->start[o->slice] / 1000.0);
  g_autofree char *n = g_strdup_printf ("%" G_GUINT64_FORMAT, o->n);
  g_autofree char *name = quoted_name (self, track->name_id[o->slice]);
  g_autofree char *parent = quoted_name (self, track->name_id[o->parent]);

  /* "50.000" µs reads as 50 */
  if (strchr (at, '.') != NULL)
    {
      char *end = at + strlen (at);

      while (end[-1] == '0')
        *--end = 0;
      if (end[-1] == '.')
        end[-1] = 0;
    }
  ks_trace_builder_add_warning (self, g_dngettext (GETTEXT_PACKAGE,
                                                   "%s: %s slice overlaps the slice it starts in only partly "
                                                   "(“%s” at %s µs, in “%s”); it is drawn beside it, at its depth",
                                                   "%s: %s slices overlap the slice they start in only partly "
                                                   "(the first: “%s” at %s µs, in “%s”); each is drawn beside it, at its depth",
                                                   o->n),
                                source != NULL ? source : "", n, name, at, parent);
}

static int
compare_ranks (gconstpointer a,
               gconstpointer b)
{
  const KsRank *ra = a;
  const KsRank *rb = b;

  if (ra->rank != rb->rank)
    return ra->rank < rb->rank ? -1 : 1;
  return (ra->group > rb->group) - (ra->group < rb->group);
}

/* The groups given a rank, by rank. Two files of one rank (a job run
 * twice into one folder) are both kept and said. */
static void
take_ranks (KsTraceBuilder *self,
            KsTrace        *trace)
{
  GArray *kept = g_array_new (FALSE, FALSE, sizeof (KsRank));

  for (guint i = 0; i < self->ranks->len; i++)
    {
      const KsRank *rank = &g_array_index (self->ranks, KsRank, i);
      gboolean has_rows = FALSE;

      /* a rank of no process (a damaged .kscope naming another group)
       * has nothing to show */
      for (guint p = 0; p < trace->n_processes && !has_rows; p++)
        has_rows = trace->processes[p].group == rank->group;
      if (rank->rank >= 0 && has_rows)
        g_array_append_val (kept, *rank);
    }
  g_array_sort (kept, compare_ranks);
  for (guint i = 1; i < kept->len; i++)
    {
      const KsRank *a = &g_array_index (kept, KsRank, i - 1);
      const KsRank *b = &g_array_index (kept, KsRank, i);

      if (a->rank == b->rank)
        ks_trace_builder_add_warning (self, _("%s and %s both say they are rank %d"),
                                      ks_trace_builder_get_string (self, a->file),
                                      ks_trace_builder_get_string (self, b->file), a->rank);
    }
  trace->n_ranks = kept->len;
  trace->ranks = (KsRank *)(gpointer)g_array_free (kept, FALSE);
}

KsTrace *
ks_trace_builder_finish (KsTraceBuilder  *self,
                         GCancellable    *cancellable,
                         GError         **error)
{
  g_autoptr(KsTraceBuilder) builder = self;
  g_autoptr(KsTrace) trace = NULL;
  gint64 origin;
  Arena arena = { NULL, NULL, 0 };
  GHashTableIter iter;
  gpointer key, value;
  Overlaps overlaps = { 0 };
  guint32 overlaps_track = 0;
  g_autofree Overlaps *checks = NULL;
  g_autoptr(GArray) large = NULL;
  KsPhaseClock clock;
  KsBuilderTimed *timed;

  g_return_val_if_fail (self != NULL, NULL);

  ks_phase_start (&clock);

  if (self->failed == FAILED_NONE)
    _ks_builder_finish_samples (self);
  if (!ks_trace_builder_check (self, error))
    return NULL;
  ks_phase_next (&clock, "finish: samples and checks");

  trace = g_object_new (KS_TYPE_TRACE, NULL);
  trace->format = self->format;
  if (self->out_of_range > 0)
    {
      g_autofree char *n = g_strdup_printf ("%" G_GUINT64_FORMAT, self->out_of_range);

      ks_trace_builder_add_warning (self, g_dngettext (GETTEXT_PACKAGE,
                                                       "%s event with an impossible time (146 years or "
                                                       "more from the clock's zero) was left out",
                                                       "%s events with impossible times (146 years or "
                                                       "more from the clock's zero) were left out",
                                                       self->out_of_range), n);
    }

  origin = self->min_ts == G_MAXINT64 ? 0 : self->min_ts;
  trace->origin_ns = origin;
  trace->duration_ns = self->max_ts >= self->min_ts ? self->max_ts - self->min_ts : 0;
  if (self->have_start_utc)
    {
      gint64 utc;

      /* A damaged base time (baseTimeNanoseconds near the ends of int64)
       * would overflow or give a date before 1970. */
      if (__builtin_add_overflow (self->start_utc, origin, &utc) || utc < 0)
        ks_trace_builder_add_warning (self, _("The wall-clock start time of the trace is out of range "
                                              "and was left out"));
      else
        trace->start_utc_ns = utc;
    }

  /* Tracks */
  arena.blocks = g_ptr_array_new_with_free_func (g_free);
  trace->track_storage = arena.blocks;
  trace->n_tracks = self->tracks->len;
  trace->tracks = g_new0 (KsTrack, MAX (trace->n_tracks, 1));
  checks = g_new0 (Overlaps, MAX (trace->n_tracks, 1));
  large = g_array_new (FALSE, FALSE, sizeof (guint32));
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      TrackBuilder *tb = get_tb (self, t);
      /* on threads, where events should nest or be apart */
      Overlaps *check = self->warn_overlaps && tb->kind == KS_TRACK_THREAD ? &checks[t] : NULL;

      if ((t & 0xfff) == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      if (tb->n_slices <= PACKED_MAX)
        track_finish_packed (tb, t, &trace->tracks[t], origin, &arena, check);
      else
        g_array_append_val (large, t);
    }
  ks_phase_next (&clock, "finish: small tracks");
  /* the memory events, samples and instants meanwhile */
  timed = _ks_builder_timed_start (self, trace, origin);
  finish_large_tracks (self, trace, (guint32 *)(gpointer) large->data, large->len, origin, checks);
  ks_phase_next (&clock, "finish: large tracks");
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const Overlaps *o = &checks[t];

      if (o->n > 0 && overlaps.n == 0)
        {
          overlaps = *o;
          overlaps_track = t;
        }
      else
        overlaps.n += o->n;
    }
  g_clear_pointer (&self->tracks, g_array_unref);
  if (overlaps.n > 0)
    warn_overlaps (self, trace, &overlaps, overlaps_track);
  resolve_thread_times (self, trace);
  ks_phase_next (&clock, "finish: overlaps and thread times");

  /* Strings (before flows intern "ac2g": keep strings open until the end) */
  trace->n_processes = self->processes->len;
  trace->processes = (KsProcess *)(gpointer)g_array_free (g_steal_pointer (&self->processes), FALSE);
  trace->n_threads = self->threads->len;
  trace->threads = (KsThread *)(gpointer)g_array_free (g_steal_pointer (&self->threads), FALSE);
  g_array_sort (self->gpus, compare_gpus);
  trace->n_gpus = self->gpus->len;
  trace->gpus = (KsGpu *)(gpointer)g_array_free (g_steal_pointer (&self->gpus), FALSE);

  /* Counters */
  trace->n_counters = self->counters->len;
  trace->counters = (KsCounter *)(gpointer)g_array_free (g_steal_pointer (&self->counters), FALSE);
  for (guint32 c = 0; c < trace->n_counters; c++)
    {
      CounterSamples *cs = g_ptr_array_index (self->counter_samples, c);
      KsCounter *counter = &trace->counters[c];
      guint32 n = cs->ts->len;

      counter->n_samples = n;
      counter->ts = (gint64 *)(gpointer)g_array_free (g_steal_pointer (&cs->ts), FALSE);
      counter->value = (double *)(gpointer)g_array_free (g_steal_pointer (&cs->value), FALSE);

      if (!cs->sorted)
        {
          g_autofree guint32 *perm = g_new (guint32, n);
          g_autofree gint64 *ts = g_new (gint64, n);
          g_autofree double *val = g_new (double, n);

          for (guint32 i = 0; i < n; i++)
            perm[i] = i;
          g_qsort_with_data (perm, n, sizeof (guint32), compare_samples, counter->ts);
          for (guint32 i = 0; i < n; i++)
            {
              ts[i] = counter->ts[perm[i]];
              val[i] = counter->value[perm[i]];
            }
          memcpy (counter->ts, ts, n * sizeof (gint64));
          memcpy (counter->value, val, n * sizeof (double));
        }

      for (guint32 i = 0; i < n; i++)
        counter->ts[i] -= origin;
    }

  ks_phase_next (&clock, "finish: counters");

  /* Memory events and instants: finished beside the tracks */
  _ks_builder_timed_finish (g_steal_pointer (&timed));

  ks_phase_next (&clock, "finish: memory, samples, instants");
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  take_ranks (self, trace);
  _ks_builder_link_flows (self, trace);
  ks_phase_next (&clock, "finish: flows");

  /* Strings last: link_flows may intern. */
  trace->n_strings = self->strings->len;
  trace->strings = (const char **)g_ptr_array_free (g_steal_pointer (&self->strings), FALSE);
  trace->storage = g_steal_pointer (&self->chunk);
  /* the long ones are freed with the tracks' blocks */
  g_ptr_array_extend_and_steal (trace->track_storage, g_steal_pointer (&self->long_strings));
  trace->string_index = g_steal_pointer (&self->string_index);

  _ks_builder_args_barrier (self);
  trace->args = g_steal_pointer (&self->args);
  ks_args_store_seal (trace->args);

  g_hash_table_iter_init (&iter, self->metadata);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_hash_table_insert (trace->metadata, g_strdup (key), g_strdup (value));
  ks_phase_next (&clock, "finish: strings and arguments");

  return g_steal_pointer (&trace);
}
