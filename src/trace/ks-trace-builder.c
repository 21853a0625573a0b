/* ks-trace-builder.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-trace-builder"

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include <glib/gi18n.h>

#include "ks-trace-builder.h"
#include "ks-trace-private.h"

#define MAX_DEPTH 255

typedef struct
{
  KsTrack  meta;            /* columns unused while building */
  guint32  cap;
  guint32  ready;           /* slices whose column pages are paged in */
  gint64  *start;
  gint64  *end;
  guint32 *name_id;
  guint32 *category;
  guint32 *correlation;
  guint32 *external_id;
  guint32 *args;
  guint8  *slice_kind;
  KsGpuInfo *gpu;
  gboolean sorted;
  gint64   last_start;
  gint64   last_end;
} TrackBuilder;

typedef struct
{
  guint32 from_track;
  guint32 to_track;
  gint64  from_ts;
  gint64  to_ts;
  guint32 category;
  guint8  kind;
} PendingFlow;

typedef struct
{
  guint32 a;
  gint64  b;
  gint64  c;
} Key;

typedef struct
{
  GArray  *ts;
  GArray  *value;
  gboolean sorted;
} CounterSamples;

struct _KsTraceBuilder
{
  KsFormat      format;
  GStringChunk *chunk;
  GPtrArray    *strings;        /* const char*, owned by chunk */
  GHashTable   *string_index;   /* const char* -> id */
  char         *args;           /* NUL-separated JSON texts */
  gsize         args_len;
  gsize         args_cap;
  gsize         args_ready;     /* bytes of args known to be paged in */

  GArray       *processes;      /* KsProcess */
  GHashTable   *process_index;  /* gint64* pid -> index + 1 */
  GArray       *threads;        /* KsThread */
  GHashTable   *thread_index;   /* Key(process, tid) -> index + 1 */
  GArray       *nvtx_tracks;    /* per thread: nvtx track + 1 */
  GPtrArray    *tracks;         /* TrackBuilder */
  GHashTable   *track_index;    /* Key(kind|group, device, stream) -> index + 1 */
  GHashTable   *async_index;    /* "process\x1fname" -> index + 1 */
  GArray       *gpus;           /* KsGpu */
  GArray       *flows;          /* PendingFlow */
  GArray       *counters;       /* KsCounter (samples kept apart) */
  GPtrArray    *counter_samples;/* CounterSamples */
  GHashTable   *counter_index;  /* "name\x1fdevice\x1fprocess" -> index + 1 */
  GArray       *memory_events;  /* KsMemoryEvent */
  GArray       *instants;       /* KsInstant */
  GHashTable   *metadata;

  guint32       group;
  gint64        min_ts;
  gint64        max_ts;
  guint64       out_of_range;   /* events left out by time_ok() */
  gint64        start_utc;
  gboolean      have_start_utc;
  guint64       n_events;
};

static guint
key_hash (gconstpointer p)
{
  const Key *k = p;

  return (guint)(k->a * 2654435761u) ^ g_int64_hash (&k->b) ^ (g_int64_hash (&k->c) * 31);
}

static gboolean
key_equal (gconstpointer a,
           gconstpointer b)
{
  const Key *ka = a;
  const Key *kb = b;

  return ka->a == kb->a && ka->b == kb->b && ka->c == kb->c;
}

static Key *
key_new (guint32 a,
         gint64  b,
         gint64  c)
{
  Key *k = g_new (Key, 1);

  k->a = a;
  k->b = b;
  k->c = c;
  return k;
}

static void
track_builder_free (gpointer data)
{
  TrackBuilder *tb = data;

  g_free (tb->start);
  g_free (tb->end);
  g_free (tb->name_id);
  g_free (tb->category);
  g_free (tb->correlation);
  g_free (tb->external_id);
  g_free (tb->args);
  g_free (tb->slice_kind);
  g_free (tb->gpu);
  g_free (tb);
}

static void
counter_samples_free (gpointer data)
{
  CounterSamples *cs = data;

  if (cs->ts)
    g_array_unref (cs->ts);
  if (cs->value)
    g_array_unref (cs->value);
  g_free (cs);
}

KsTraceBuilder *
ks_trace_builder_new (KsFormat format)
{
  KsTraceBuilder *self = g_new0 (KsTraceBuilder, 1);

  self->format = format;
  self->chunk = g_string_chunk_new (64 * 1024);
  self->strings = g_ptr_array_new ();
  self->string_index = g_hash_table_new (g_str_hash, g_str_equal);
  self->args_cap = 4096;
  self->args = g_malloc (self->args_cap);
  self->processes = g_array_new (FALSE, TRUE, sizeof (KsProcess));
  self->process_index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  self->threads = g_array_new (FALSE, TRUE, sizeof (KsThread));
  self->thread_index = g_hash_table_new_full (key_hash, key_equal, g_free, NULL);
  self->nvtx_tracks = g_array_new (FALSE, TRUE, sizeof (guint32));
  self->tracks = g_ptr_array_new_with_free_func (track_builder_free);
  self->track_index = g_hash_table_new_full (key_hash, key_equal, g_free, NULL);
  self->async_index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->gpus = g_array_new (FALSE, TRUE, sizeof (KsGpu));
  self->flows = g_array_new (FALSE, FALSE, sizeof (PendingFlow));
  self->counters = g_array_new (FALSE, TRUE, sizeof (KsCounter));
  self->counter_samples = g_ptr_array_new_with_free_func (counter_samples_free);
  self->counter_index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->memory_events = g_array_new (FALSE, FALSE, sizeof (KsMemoryEvent));
  self->instants = g_array_new (FALSE, FALSE, sizeof (KsInstant));
  self->metadata = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->min_ts = G_MAXINT64;
  self->max_ts = G_MININT64;

  /* id 0 is the empty string */
  g_ptr_array_add (self->strings, g_string_chunk_insert_const (self->chunk, ""));
  g_hash_table_insert (self->string_index, self->strings->pdata[0], GUINT_TO_POINTER (0));

  return self;
}

void
ks_trace_builder_free (KsTraceBuilder *self)
{
  if (self == NULL)
    return;

  g_clear_pointer (&self->chunk, g_string_chunk_free);
  g_clear_pointer (&self->strings, g_ptr_array_unref);
  g_clear_pointer (&self->string_index, g_hash_table_unref);
  g_clear_pointer (&self->args, g_free);
  g_clear_pointer (&self->processes, g_array_unref);
  g_clear_pointer (&self->process_index, g_hash_table_unref);
  g_clear_pointer (&self->threads, g_array_unref);
  g_clear_pointer (&self->thread_index, g_hash_table_unref);
  g_clear_pointer (&self->nvtx_tracks, g_array_unref);
  g_clear_pointer (&self->tracks, g_ptr_array_unref);
  g_clear_pointer (&self->track_index, g_hash_table_unref);
  g_clear_pointer (&self->async_index, g_hash_table_unref);
  g_clear_pointer (&self->gpus, g_array_unref);
  g_clear_pointer (&self->flows, g_array_unref);
  g_clear_pointer (&self->counters, g_array_unref);
  g_clear_pointer (&self->counter_samples, g_ptr_array_unref);
  g_clear_pointer (&self->counter_index, g_hash_table_unref);
  g_clear_pointer (&self->memory_events, g_array_unref);
  g_clear_pointer (&self->instants, g_array_unref);
  g_clear_pointer (&self->metadata, g_hash_table_unref);
  g_free (self);
}

/* Times 2^62 ns (146 years) or more from the clock's zero are refused,
 * so that any two times of a trace differ by less than G_MAXINT64: a
 * damaged timestamp must not overflow every duration. */
#define MAX_ABS_TS (G_GINT64_CONSTANT (1) << 62)

static inline gboolean
time_ok (KsTraceBuilder *self,
         gint64          ts)
{
  if (G_LIKELY (ts > -MAX_ABS_TS && ts < MAX_ABS_TS))
    return TRUE;
  self->out_of_range++;
  return FALSE;
}

static inline void
note_ts (KsTraceBuilder *self,
         gint64          ts)
{
  if (ts < self->min_ts)
    self->min_ts = ts;
  if (ts > self->max_ts)
    self->max_ts = ts;
}

guint32
ks_trace_builder_intern (KsTraceBuilder *self,
                         const char     *str)
{
  gpointer value;
  const char *copy;
  guint32 id;

  if (str == NULL || *str == 0)
    return 0;

  if (g_hash_table_lookup_extended (self->string_index, str, NULL, &value))
    return GPOINTER_TO_UINT (value);

  copy = g_string_chunk_insert_const (self->chunk, str);
  id = self->strings->len;
  g_ptr_array_add (self->strings, (gpointer)copy);
  g_hash_table_insert (self->string_index, (gpointer)copy, GUINT_TO_POINTER (id));
  return id;
}

guint32
ks_trace_builder_intern_len (KsTraceBuilder *self,
                             const char     *str,
                             gsize           len)
{
  char buf[256];
  g_autofree char *heap = NULL;
  char *s;

  if (len < sizeof buf)
    {
      memcpy (buf, str, len);
      buf[len] = 0;
      s = buf;
    }
  else
    s = heap = g_strndup (str, len);

  /* Embedded NULs end the string: names are C strings everywhere. */
  return ks_trace_builder_intern (self, s);
}

const char *
ks_trace_builder_get_string (KsTraceBuilder *self,
                             guint32         id)
{
  return id < self->strings->len ? g_ptr_array_index (self->strings, id) : "";
}

#ifndef MADV_POPULATE_WRITE
# define MADV_POPULATE_WRITE 23
#endif
#define ARGS_PAGE_IN (512 * 1024)

/* Pages in the whole pages of [@from, @to) with one call: on a virtual
 * machine a page fault per 4 KiB costs several times more. */
static void
page_in (const void *from,
         const void *to)
{
  static gboolean unsupported;
  guintptr page = 4096;
  guintptr a = ((guintptr) from + page - 1) & ~(page - 1);
  guintptr b = (guintptr) to & ~(page - 1);

  if (b > a && !unsupported && madvise ((void *) a, b - a, MADV_POPULATE_WRITE) != 0 && errno == EINVAL)
    unsupported = TRUE;
}

/* Argument text is most of a trace's memory (a hundred bytes an event),
 * written once from front to back: paged in 512 KiB ahead. Small steps
 * keep what is paged in past the end small. */
static void
args_page_in (KsTraceBuilder *self,
              gsize           needed)
{
  gsize to;

  if (needed <= self->args_ready)
    return;
  to = MIN (self->args_ready + ARGS_PAGE_IN, self->args_cap);
  page_in (self->args + self->args_ready, self->args + to);
  self->args_ready = MAX (needed, to);
}

/* The columns of a large track likewise, 16 Ki slices ahead. Small tracks
 * are left to page faults: they share heap pages. */
#define TRACK_PAGE_IN_MIN (16 * 1024)
#define TRACK_PAGE_IN     (16 * 1024)

static void
track_page_in (TrackBuilder *tb,
               guint32       n)
{
  guint32 to = (guint32) MIN ((guint64) n + TRACK_PAGE_IN, tb->cap);

#define PAGE_IN_COLUMN(col) page_in (tb->col + n, tb->col + to)
  PAGE_IN_COLUMN (start);
  PAGE_IN_COLUMN (end);
  PAGE_IN_COLUMN (name_id);
  PAGE_IN_COLUMN (category);
  PAGE_IN_COLUMN (correlation);
  PAGE_IN_COLUMN (external_id);
  PAGE_IN_COLUMN (args);
  PAGE_IN_COLUMN (slice_kind);
  if (tb->gpu != NULL)
    PAGE_IN_COLUMN (gpu);
#undef PAGE_IN_COLUMN
  tb->ready = to;
}

/* Room for @n more elements of @array, paged in. */
static void
array_reserve (GArray *array,
               guint64 n)
{
  guint len = array->len;
  gsize size = g_array_get_element_size (array);

  if (n < TRACK_PAGE_IN_MIN || n > G_MAXUINT - len)
    return;
  g_array_set_size (array, len + (guint) n);
  page_in (array->data + (gsize) len * size, array->data + (gsize) array->len * size);
  g_array_set_size (array, len);
}

void
ks_trace_builder_expect (KsTraceBuilder *self,
                         guint64         memory_events,
                         guint64         flows,
                         guint64         instants)
{
  array_reserve (self->memory_events, memory_events);
  array_reserve (self->flows, flows);
  array_reserve (self->instants, instants);
}

guint32
ks_trace_builder_add_args (KsTraceBuilder *self,
                           const char     *json,
                           gsize           len)
{
  guint32 offset;

  if (json == NULL || len == 0)
    return 0;

  /* Offsets are 32-bit; past 4 GiB of arguments we stop keeping them. */
  if ((guint64)self->args_len + len + 1 >= G_MAXUINT32)
    return 0;

  if (self->args_len + len + 1 > self->args_cap)
    {
      while (self->args_len + len + 1 > self->args_cap)
        self->args_cap *= 2;
      self->args = g_realloc (self->args, self->args_cap);
      self->args_ready = MIN (self->args_ready, self->args_len);
    }
  args_page_in (self, self->args_len + len + 1);

  offset = self->args_len;
  memcpy (self->args + offset, json, len);
  self->args[offset + len] = '\0';
  self->args_len += len + 1;
  return offset + 1;
}

void
ks_trace_builder_set_metadata (KsTraceBuilder *self,
                               const char     *key,
                               const char     *value)
{
  g_return_if_fail (key != NULL);

  if (value == NULL)
    g_hash_table_remove (self->metadata, key);
  else
    g_hash_table_insert (self->metadata, g_strdup (key), g_strdup (value));
}

void
ks_trace_builder_add_warning (KsTraceBuilder *self,
                              const char     *format,
                              ...)
{
  g_autofree char *text = NULL;
  const char *old;
  va_list args;

  va_start (args, format);
  text = g_strdup_vprintf (format, args);
  va_end (args);

  old = g_hash_table_lookup (self->metadata, "warnings");
  if (old != NULL)
    {
      g_autofree char *joined = g_strconcat (old, "\n", text, NULL);
      ks_trace_builder_set_metadata (self, "warnings", joined);
    }
  else
    ks_trace_builder_set_metadata (self, "warnings", text);
}

void
ks_trace_builder_set_start_utc (KsTraceBuilder *self,
                                gint64          utc_ns_of_clock_zero)
{
  self->start_utc = utc_ns_of_clock_zero;
  self->have_start_utc = TRUE;
}

void
ks_trace_builder_set_group (KsTraceBuilder *self,
                            guint32         group)
{
  self->group = group;
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
  gpointer value = g_hash_table_lookup (self->process_index, &pid);
  KsProcess p = { 0 };
  gint64 *key;

  if (value != NULL)
    return GPOINTER_TO_UINT (value) - 1;

  p.pid = pid;
  p.group = self->group;
  g_array_append_val (self->processes, p);
  key = g_new (gint64, 1);
  *key = pid;
  g_hash_table_insert (self->process_index, key, GUINT_TO_POINTER (self->processes->len));
  return self->processes->len - 1;
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
ks_trace_builder_get_thread (KsTraceBuilder *self,
                             guint32         process,
                             gint64          tid)
{
  Key key = { process, tid, 0 };
  gpointer value = g_hash_table_lookup (self->thread_index, &key);
  KsThread t = { 0 };
  guint32 none = 0;

  g_return_val_if_fail (process < self->processes->len, KS_NO_INDEX);

  if (value != NULL)
    return GPOINTER_TO_UINT (value) - 1;

  t.process = process;
  t.tid = tid;
  t.track = KS_NO_INDEX;
  g_array_append_val (self->threads, t);
  g_array_append_val (self->nvtx_tracks, none);
  g_hash_table_insert (self->thread_index, key_new (process, tid, 0),
                       GUINT_TO_POINTER (self->threads->len));
  return self->threads->len - 1;
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

static guint32
new_track (KsTraceBuilder *self,
           KsTrackKind     kind)
{
  TrackBuilder *tb = g_new0 (TrackBuilder, 1);

  tb->meta.kind = kind;
  tb->meta.id = self->tracks->len;
  tb->meta.process = KS_NO_INDEX;
  tb->meta.thread = KS_NO_INDEX;
  tb->meta.parent = KS_NO_INDEX;
  tb->meta.device = -1;
  tb->meta.stream = -1;
  tb->meta.group = self->group;
  tb->sorted = TRUE;
  tb->last_start = G_MININT64;
  tb->last_end = G_MAXINT64;
  g_ptr_array_add (self->tracks, tb);
  return tb->meta.id;
}

static inline TrackBuilder *
get_tb (KsTraceBuilder *self,
        guint32         track)
{
  return g_ptr_array_index (self->tracks, track);
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

  id = new_track (self, KS_TRACK_THREAD);
  tb = get_tb (self, id);
  tb->meta.thread = thread;
  tb->meta.process = t->process;
  tb->meta.group = g_array_index (self->processes, KsProcess, t->process).group;
  t->track = id;
  return id;
}

guint32
ks_trace_builder_get_nvtx_track (KsTraceBuilder *self,
                                 guint32         thread)
{
  guint32 *slot;
  TrackBuilder *tb;
  guint32 id, parent;

  g_return_val_if_fail (thread < self->threads->len, KS_NO_INDEX);

  slot = &g_array_index (self->nvtx_tracks, guint32, thread);
  if (*slot != 0)
    return *slot - 1;

  parent = ks_trace_builder_get_thread_track (self, thread);
  id = new_track (self, KS_TRACK_NVTX);
  tb = get_tb (self, id);
  tb->meta.thread = thread;
  tb->meta.process = get_tb (self, parent)->meta.process;
  tb->meta.group = get_tb (self, parent)->meta.group;
  tb->meta.parent = parent;
  tb->meta.name = ks_trace_builder_intern (self, "NVTX");
  /* the slot array may have moved while interning? no: separate array */
  g_array_index (self->nvtx_tracks, guint32, thread) = id + 1;
  return id;
}

static guint32
get_gpu_track (KsTraceBuilder *self,
               KsTrackKind     kind,
               gint32          device,
               gint64          stream)
{
  Key key = { ((guint32)kind << 24) | self->group, device, stream };
  gpointer value = g_hash_table_lookup (self->track_index, &key);
  TrackBuilder *tb;
  guint32 id;

  if (value != NULL)
    return GPOINTER_TO_UINT (value) - 1;

  id = new_track (self, kind);
  tb = get_tb (self, id);
  tb->meta.device = device;
  tb->meta.stream = stream;
  g_hash_table_insert (self->track_index, key_new (key.a, key.b, key.c), GUINT_TO_POINTER (id + 1));
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

  get_tb (self, id)->meta.parent = parent;
  return id;
}

guint32
ks_trace_builder_get_async_track (KsTraceBuilder *self,
                                  guint32         process,
                                  const char     *name)
{
  g_autofree char *key = g_strdup_printf ("%u\x1f%s", process, name ? name : "");
  gpointer value = g_hash_table_lookup (self->async_index, key);
  TrackBuilder *tb;
  guint32 id;

  if (value != NULL)
    return GPOINTER_TO_UINT (value) - 1;

  id = new_track (self, KS_TRACK_ASYNC);
  tb = get_tb (self, id);
  tb->meta.process = process;
  tb->meta.name = ks_trace_builder_intern (self, name);
  g_hash_table_insert (self->async_index, g_steal_pointer (&key), GUINT_TO_POINTER (id + 1));
  return id;
}

void
ks_trace_builder_set_track_sort_index (KsTraceBuilder *self,
                                       guint32         track,
                                       gint32          sort_index)
{
  g_return_if_fail (track < self->tracks->len);
  get_tb (self, track)->meta.sort_index = sort_index;
}

static gboolean
track_grow (TrackBuilder *tb)
{
  guint64 cap = tb->cap ? (guint64)tb->cap * 2 : 64;

  if (cap > G_MAXUINT32 - 1)
    cap = G_MAXUINT32 - 1;
  if (cap <= tb->cap)
    return FALSE;

  tb->start = g_renew (gint64, tb->start, cap);
  tb->end = g_renew (gint64, tb->end, cap);
  tb->name_id = g_renew (guint32, tb->name_id, cap);
  tb->category = g_renew (guint32, tb->category, cap);
  tb->correlation = g_renew (guint32, tb->correlation, cap);
  tb->external_id = g_renew (guint32, tb->external_id, cap);
  tb->args = g_renew (guint32, tb->args, cap);
  tb->slice_kind = g_renew (guint8, tb->slice_kind, cap);
  if (tb->meta.kind == KS_TRACK_STREAM)
    tb->gpu = g_renew (KsGpuInfo, tb->gpu, cap);
  tb->cap = cap;
  return TRUE;
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

  if (!time_ok (self, start) || (end > start && !time_ok (self, end)))
    return FALSE;
  tb = get_tb (self, track);
  n = tb->meta.n_slices;
  if (n == tb->cap && !track_grow (tb))
    return FALSE;
  if (n >= tb->ready && tb->cap >= TRACK_PAGE_IN_MIN)
    track_page_in (tb, n);

  if (end < start)
    end = start;

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

  if (start < tb->last_start || (start == tb->last_start && end > tb->last_end))
    tb->sorted = FALSE;
  tb->last_start = start;
  tb->last_end = end;
  tb->meta.n_slices = n + 1;

  note_ts (self, start);
  note_ts (self, end);
  self->n_events++;
  return TRUE;
}

void
ks_trace_builder_add_gpu (KsTraceBuilder *self,
                          const KsGpu    *gpu)
{
  /* readers that add them in device order never search */
  if (self->gpus->len == 0 || g_array_index (self->gpus, KsGpu, self->gpus->len - 1).device < gpu->device)
    {
      g_array_append_val (self->gpus, *gpu);
      return;
    }
  for (guint i = 0; i < self->gpus->len; i++)
    {
      KsGpu *g = &g_array_index (self->gpus, KsGpu, i);

      if (g->device == gpu->device)
        {
          *g = *gpu;
          return;
        }
    }
  g_array_append_val (self->gpus, *gpu);
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
  PendingFlow f = { from_track, to_track, from_ts, to_ts, category, kind };

  g_return_if_fail (from_track < self->tracks->len);
  g_return_if_fail (to_track < self->tracks->len);

  g_array_append_val (self->flows, f);
  self->n_events++;
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

  if (value != NULL)
    return GPOINTER_TO_UINT (value) - 1;

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

  g_hash_table_insert (self->counter_index, g_steal_pointer (&key),
                       GUINT_TO_POINTER (self->counters->len));
  return self->counters->len - 1;
}

void
ks_trace_builder_add_counter_sample (KsTraceBuilder *self,
                                     guint32         counter,
                                     gint64          ts,
                                     double          value)
{
  CounterSamples *cs;

  g_return_if_fail (counter < self->counters->len);

  if (!time_ok (self, ts))
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
  if (!time_ok (self, event->ts))
    return;
  g_array_append_val (self->memory_events, *event);
  note_ts (self, event->ts);
  self->n_events++;
}

void
ks_trace_builder_add_instant (KsTraceBuilder  *self,
                              const KsInstant *instant)
{
  if (!time_ok (self, instant->ts))
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

/* Finishing */

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
  guint32 n = tb->meta.n_slices;
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

#define SHRINK(type, column) \
  (type *)(n ? g_realloc (tb->column, sizeof (type) * n) : (g_free (tb->column), g_malloc (sizeof (type))))

/* Moves the builder's columns into @track, with depths and per-depth
 * indexes, times shifted by @origin. */
static void
track_finish (TrackBuilder *tb,
              KsTrack      *track,
              gint64        origin)
{
  guint32 n = tb->meta.n_slices;
  guint32 counts[MAX_DEPTH + 1] = { 0 };
  gint64 stack[MAX_DEPTH + 1];
  guint32 sp = 0;
  guint32 max_depth = 0;
  guint32 *all;

  track_sort (tb);

  *track = tb->meta;
  track->start = SHRINK (gint64, start);
  track->end = SHRINK (gint64, end);
  track->name_id = SHRINK (guint32, name_id);
  track->category = SHRINK (guint32, category);
  track->correlation = SHRINK (guint32, correlation);
  track->external_id = SHRINK (guint32, external_id);
  track->args = SHRINK (guint32, args);
  track->slice_kind = SHRINK (guint8, slice_kind);
  track->gpu = tb->gpu ? SHRINK (KsGpuInfo, gpu) : NULL;
  tb->start = tb->end = NULL;
  tb->name_id = tb->category = tb->correlation = tb->external_id = tb->args = NULL;
  tb->slice_kind = NULL;
  tb->gpu = NULL;
  tb->cap = tb->ready = 0;

  track->depth = g_new (guint8, MAX (n, 1));
  if (n >= TRACK_PAGE_IN_MIN)
    page_in (track->depth, track->depth + n);

  for (guint32 i = 0; i < n; i++)
    {
      gint64 s = track->start[i];
      gint64 e = track->end[i];

      while (sp > 0 && stack[sp - 1] <= s)
        sp--;

      /* Slices deeper than MAX_DEPTH share the last level; they are
       * drawn there but may be missed by range queries. */
      if (sp > MAX_DEPTH)
        sp = MAX_DEPTH;
      track->depth[i] = sp;
      counts[sp]++;
      if (sp + 1 > max_depth)
        max_depth = sp + 1;
      stack[sp++] = e;

      track->start[i] = s - origin;
      track->end[i] = e - origin;
    }

  track->max_depth = max_depth;
  track->by_depth = g_new0 (guint32 *, MAX (max_depth, 1));
  track->n_by_depth = g_new0 (guint32, MAX (max_depth, 1));

  all = g_new (guint32, MAX (n, 1));
  if (n >= TRACK_PAGE_IN_MIN)
    page_in (all, all + n);
  if (max_depth > 0)
    {
      guint32 offset = 0;

      for (guint32 d = 0; d < max_depth; d++)
        {
          track->by_depth[d] = all + offset;
          offset += counts[d];
        }
      for (guint32 i = 0; i < n; i++)
        {
          guint8 d = track->depth[i];

          track->by_depth[d][track->n_by_depth[d]++] = i;
        }
    }
  else
    {
      track->by_depth[0] = all;
    }
}

#undef SHRINK

static int
compare_gpus (gconstpointer a,
              gconstpointer b)
{
  const KsGpu *ga = a;
  const KsGpu *gb = b;

  return (ga->device > gb->device) - (ga->device < gb->device);
}

static gboolean
array_is_sorted (GArray       *array,
                 GCompareFunc  compare)
{
  gsize size = g_array_get_element_size (array);

  for (guint i = 1; i < array->len; i++)
    if (compare (array->data + (gsize) (i - 1) * size, array->data + (gsize) i * size) > 0)
      return FALSE;
  return TRUE;
}

static int
compare_memory_events (gconstpointer a,
                       gconstpointer b)
{
  const KsMemoryEvent *ea = a;
  const KsMemoryEvent *eb = b;

  return (ea->ts > eb->ts) - (ea->ts < eb->ts);
}

static int
compare_instants (gconstpointer a,
                  gconstpointer b)
{
  const KsInstant *ea = a;
  const KsInstant *eb = b;

  return (ea->ts > eb->ts) - (ea->ts < eb->ts);
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

/* The slice a flow end binds to: the deepest one enclosing @ts, else the
 * first one starting at or after it (Chrome's binding for "f" events). */
static guint32
flow_slice (const KsTrack *track,
            gint64         ts)
{
  guint32 s = ks_track_slice_at (track, ts, G_MAXUINT);

  if (s == KS_NO_INDEX && track->n_slices > 0)
    {
      guint32 lo = 0, hi = track->n_slices;

      while (lo < hi)
        {
          guint32 mid = lo + (hi - lo) / 2;

          if (track->start[mid] < ts)
            lo = mid + 1;
          else
            hi = mid;
        }
      if (lo < track->n_slices)
        s = lo;
    }

  return s;
}

typedef struct
{
  guint64 key;     /* group << 32 | correlation */
  guint64 where;   /* track << 32 | slice */
} CorrEntry;

static int
compare_corr (gconstpointer a,
              gconstpointer b)
{
  const CorrEntry *ea = a;
  const CorrEntry *eb = b;

  if (ea->key != eb->key)
    return ea->key < eb->key ? -1 : 1;
  return (ea->where > eb->where) - (ea->where < eb->where);
}

static void
link_flows (KsTraceBuilder *self,
            KsTrace        *trace)
{
  g_autoptr(GArray) gpu = g_array_new (FALSE, FALSE, sizeof (CorrEntry));
  g_autoptr(GArray) flows = g_array_new (FALSE, FALSE, sizeof (KsFlow));
  g_autofree guint8 *linked = NULL;
  guint32 launch_cat = 0;
  guint n_gpu = 0;
  guint64 n_stream_slices = 0;

  for (guint32 t = 0; t < trace->n_tracks; t++)
    if (trace->tracks[t].kind == KS_TRACK_STREAM)
      n_stream_slices += trace->tracks[t].n_slices;
  array_reserve (gpu, n_stream_slices);
  array_reserve (flows, self->flows->len + n_stream_slices);

  /* GPU side: (group, correlation) -> (track, slice) of the first
   * activity, as a sorted array: far cheaper than a hash table of
   * millions of allocated keys. */
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind != KS_TRACK_STREAM)
        continue;

      for (guint32 i = 0; i < track->n_slices; i++)
        if (track->correlation[i] != 0)
          {
            CorrEntry e = { (guint64)track->group << 32 | track->correlation[i], (guint64)t << 32 | i };

            g_array_append_val (gpu, e);
          }
    }
  if (!array_is_sorted (gpu, compare_corr))
    g_array_sort (gpu, compare_corr);
  /* the first activity of each id stays */
  for (guint k = 0; k < gpu->len; k++)
    if (n_gpu == 0 || g_array_index (gpu, CorrEntry, n_gpu - 1).key != g_array_index (gpu, CorrEntry, k).key)
      g_array_index (gpu, CorrEntry, n_gpu++) = g_array_index (gpu, CorrEntry, k);
  g_array_set_size (gpu, n_gpu);
  linked = g_new0 (guint8, MAX (n_gpu, 1));

  for (guint32 t = 0; n_gpu > 0 && t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind != KS_TRACK_THREAD)
        continue;

      for (guint32 i = 0; i < track->n_slices; i++)
        {
          guint64 key = (guint64)track->group << 32 | track->correlation[i];
          const CorrEntry *e = (const CorrEntry *)(gpointer)gpu->data;
          guint lo = 0, hi = n_gpu;
          KsFlow f;

          if (track->correlation[i] == 0 ||
              (track->slice_kind[i] != KS_SLICE_CUDA_RUNTIME &&
               track->slice_kind[i] != KS_SLICE_CUDA_DRIVER))
            continue;

          while (lo < hi)
            {
              guint mid = lo + (hi - lo) / 2;

              if (e[mid].key < key)
                lo = mid + 1;
              else
                hi = mid;
            }
          /* Each GPU activity has one launch; later API calls with the
           * same id (rare, broken files) do not link again. */
          if (lo == n_gpu || e[lo].key != key || linked[lo])
            continue;
          linked[lo] = 1;

          if (launch_cat == 0)
            launch_cat = ks_trace_builder_intern (self, "ac2g");

          f.from_track = t;
          f.from_slice = i;
          f.to_track = (guint32)(e[lo].where >> 32);
          f.to_slice = (guint32)(e[lo].where & 0xffffffff);
          f.category = launch_cat;
          f.kind = KS_FLOW_LAUNCH;
          g_array_append_val (flows, f);
        }
    }

  for (guint i = 0; i < self->flows->len; i++)
    {
      const PendingFlow *pf = &g_array_index (self->flows, PendingFlow, i);
      KsFlow f;

      f.from_track = pf->from_track;
      f.to_track = pf->to_track;
      f.from_slice = flow_slice (&trace->tracks[pf->from_track], pf->from_ts - trace->origin_ns);
      f.to_slice = flow_slice (&trace->tracks[pf->to_track], pf->to_ts - trace->origin_ns);
      f.category = pf->category;
      f.kind = pf->kind;
      if (f.from_slice == KS_NO_INDEX || f.to_slice == KS_NO_INDEX)
        continue;
      g_array_append_val (flows, f);
    }

  trace->n_flows = flows->len;
  trace->flows = (KsFlow *)(gpointer)g_array_free (g_steal_pointer (&flows), FALSE);
}

KsTrace *
ks_trace_builder_finish (KsTraceBuilder  *self,
                         GCancellable    *cancellable,
                         GError         **error)
{
  g_autoptr(KsTraceBuilder) builder = self;
  g_autoptr(KsTrace) trace = NULL;
  gint64 origin;
  GHashTableIter iter;
  gpointer key, value;

  g_return_val_if_fail (self != NULL, NULL);

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
    trace->start_utc_ns = self->start_utc + origin;

  /* Tracks */
  trace->n_tracks = self->tracks->len;
  trace->tracks = g_new0 (KsTrack, MAX (trace->n_tracks, 1));
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      track_finish (get_tb (self, t), &trace->tracks[t], origin);
    }
  g_ptr_array_set_size (self->tracks, 0);

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

  /* Memory events and instants: stable sort by time, unless they came in
   * order (as a .kscope and most profilers give them) */
  if (!array_is_sorted (self->memory_events, compare_memory_events))
    g_array_sort (self->memory_events, compare_memory_events);
  trace->n_memory_events = self->memory_events->len;
  trace->memory_events = (KsMemoryEvent *)(gpointer)g_array_free (g_steal_pointer (&self->memory_events), FALSE);
  for (guint32 i = 0; i < trace->n_memory_events; i++)
    trace->memory_events[i].ts -= origin;

  if (!array_is_sorted (self->instants, compare_instants))
    g_array_sort (self->instants, compare_instants);
  trace->n_instants = self->instants->len;
  trace->instants = (KsInstant *)(gpointer)g_array_free (g_steal_pointer (&self->instants), FALSE);
  for (guint32 i = 0; i < trace->n_instants; i++)
    trace->instants[i].ts -= origin;

  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;

  link_flows (self, trace);

  /* Strings last: link_flows may intern. */
  trace->n_strings = self->strings->len;
  trace->strings = (const char **)g_ptr_array_free (g_steal_pointer (&self->strings), FALSE);
  trace->storage = g_steal_pointer (&self->chunk);
  trace->string_index = g_steal_pointer (&self->string_index);

  trace->args_len = self->args_len;
  trace->args = g_realloc (g_steal_pointer (&self->args), MAX (self->args_len, 1));

  g_hash_table_iter_init (&iter, self->metadata);
  while (g_hash_table_iter_next (&iter, &key, &value))
    g_hash_table_insert (trace->metadata, g_strdup (key), g_strdup (value));

  return g_steal_pointer (&trace);
}
