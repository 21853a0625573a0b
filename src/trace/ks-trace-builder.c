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

#include "ks-kscope-conventions.h"
#include "ks-trace-builder.h"
#include "ks-trace-private.h"

#define MAX_DEPTH 255
#define PACKED_MAX KS_TRACK_PACKED_MAX

/* A track while it is built. Its columns are one block (a track of at
 * most PACKED_MAX slices: one allocation, grown from one slice) or one
 * array each (larger tracks: realloc() grows them in place, and they are
 * paged in ahead); the column pointers are valid either way. */
typedef struct
{
  guint8   kind;            /* KsTrackKind */
  guint8   sorted;
  guint32  name;
  guint32  process;
  guint32  thread;
  guint32  parent;
  gint32   device;
  gint32   sort_index;
  guint32  group;
  gint64   stream;
  guint32  n_slices;
  guint32  cap;             /* > PACKED_MAX: one array per column */
  guint32  ready;           /* slices whose column pages are paged in */
  gint64  *start;           /* packed: the block */
  gint64  *end;
  guint32 *name_id;
  guint32 *category;
  guint32 *correlation;
  guint32 *external_id;
  guint32 *args;
  guint8  *slice_kind;
  KsGpuInfo *gpu;           /* stream tracks only */
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

/* An open-addressing table of ids whose keys are read back from the
 * builder's own arrays: 4 to 8 bytes an entry, where a GHashTable with
 * an allocated key cost about 70. Slots hold id + 1, 0 when empty. */
typedef void (*KeyOfFunc) (KsTraceBuilder *self,
                           guint32         id,
                           Key            *key);

typedef struct
{
  guint32  *slots;
  guint32   size;           /* a power of two, or 0 */
  guint32   n;
  KeyOfFunc key_of;
} IdIndex;

typedef struct
{
  GArray  *ts;
  GArray  *value;
  gboolean sorted;
} CounterSamples;

/* What stopped the builder: past it, everything added is dropped and
 * finish() fails with a message that says which. */
typedef enum
{
  FAILED_NONE = 0,
  FAILED_PROCESSES,
  FAILED_THREADS,
  FAILED_TRACKS,
  FAILED_COUNTERS,
  FAILED_MEMORY,
} Failure;

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
  IdIndex       process_index;  /* by pid */
  GArray       *threads;        /* KsThread */
  IdIndex       thread_index;   /* by (process, tid) */
  GArray       *nvtx_tracks;    /* per thread: nvtx track + 1 */
  GArray       *tracks;         /* TrackBuilder */
  IdIndex       track_index;    /* GPU tracks by (kind, group, device, stream),
                                 * async tracks by (process, name) */
  GArray       *gpus;           /* KsGpu */
  GHashTable   *gpu_index;      /* device -> index + 1 */
  GArray       *flows;          /* PendingFlow */
  GArray       *counters;       /* KsCounter (samples kept apart) */
  GPtrArray    *counter_samples;/* CounterSamples */
  GHashTable   *counter_index;  /* "name\x1fdevice\x1fprocess" -> index + 1 */
  GArray       *memory_events;  /* KsMemoryEvent */
  GArray       *instants;       /* KsInstant */
  GHashTable   *metadata;

  /* One past the limit of each kind: see new_row() */
  guint32       sink_process;
  guint32       sink_thread;
  guint32       sink_track;
  guint32       sink_counter;
  Failure       failed;

  guint32       group;
  gint64        min_ts;
  gint64        max_ts;
  guint64       out_of_range;   /* events left out by time_ok() */
  gint64        start_utc;
  gboolean      have_start_utc;
  guint64       n_events;
};

static inline TrackBuilder *
get_tb (KsTraceBuilder *self,
        guint32         track)
{
  return &g_array_index (self->tracks, TrackBuilder, track);
}

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

static guint32
id_index_find (KsTraceBuilder *self,
               const IdIndex  *index,
               const Key      *key)
{
  if (index->n == 0)
    return KS_NO_INDEX;
  return *id_index_slot (self, index, key) - 1;
}

/* Adds @id, whose key is not in @index yet. At most 3/4 full; the
 * limits on ids keep the table below 2^21 slots. */
static void
id_index_add (KsTraceBuilder *self,
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

static void
process_key (KsTraceBuilder *self,
             guint32         id,
             Key            *key)
{
  key->a = 0;
  key->b = g_array_index (self->processes, KsProcess, id).pid;
  key->c = 0;
}

static void
thread_key (KsTraceBuilder *self,
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
static void
track_key (KsTraceBuilder *self,
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

static void
track_builder_clear (gpointer data)
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
  self->process_index.key_of = process_key;
  self->threads = g_array_new (FALSE, TRUE, sizeof (KsThread));
  self->thread_index.key_of = thread_key;
  self->nvtx_tracks = g_array_new (FALSE, TRUE, sizeof (guint32));
  self->tracks = g_array_new (FALSE, TRUE, sizeof (TrackBuilder));
  g_array_set_clear_func (self->tracks, track_builder_clear);
  self->track_index.key_of = track_key;
  self->gpus = g_array_new (FALSE, TRUE, sizeof (KsGpu));
  self->gpu_index = g_hash_table_new (NULL, NULL);
  self->flows = g_array_new (FALSE, FALSE, sizeof (PendingFlow));
  self->counters = g_array_new (FALSE, TRUE, sizeof (KsCounter));
  self->counter_samples = g_ptr_array_new_with_free_func (counter_samples_free);
  self->counter_index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->memory_events = g_array_new (FALSE, FALSE, sizeof (KsMemoryEvent));
  self->instants = g_array_new (FALSE, FALSE, sizeof (KsInstant));
  self->metadata = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->sink_process = self->sink_thread = self->sink_track = self->sink_counter = KS_NO_INDEX;
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
  g_clear_pointer (&self->process_index.slots, g_free);
  g_clear_pointer (&self->threads, g_array_unref);
  g_clear_pointer (&self->thread_index.slots, g_free);
  g_clear_pointer (&self->nvtx_tracks, g_array_unref);
  g_clear_pointer (&self->tracks, g_array_unref);
  g_clear_pointer (&self->track_index.slots, g_free);
  g_clear_pointer (&self->gpus, g_array_unref);
  g_clear_pointer (&self->gpu_index, g_hash_table_unref);
  g_clear_pointer (&self->flows, g_array_unref);
  g_clear_pointer (&self->counters, g_array_unref);
  g_clear_pointer (&self->counter_samples, g_ptr_array_unref);
  g_clear_pointer (&self->counter_index, g_hash_table_unref);
  g_clear_pointer (&self->memory_events, g_array_unref);
  g_clear_pointer (&self->instants, g_array_unref);
  g_clear_pointer (&self->metadata, g_hash_table_unref);
  g_free (self);
}

/* Limits */

gboolean
ks_trace_builder_check (KsTraceBuilder  *self,
                        GError         **error)
{
  const char *name;
  g_autofree char *events = NULL;
  g_autofree char *message = NULL;

  if (G_LIKELY (self->failed == FAILED_NONE))
    return TRUE;

  switch (self->failed)
    {
    case FAILED_PROCESSES:
      message = g_strdup_printf (_("more than %u processes, the most a trace can have"),
                                 KS_TRACE_BUILDER_MAX_ROWS);
      break;
    case FAILED_THREADS:
      message = g_strdup_printf (_("more than %u threads, the most a trace can have"),
                                 KS_TRACE_BUILDER_MAX_ROWS);
      break;
    case FAILED_TRACKS:
      message = g_strdup_printf (_("more than %u tracks (threads, GPU streams, NVTX and async rows), "
                                   "the most a trace can have"), KS_TRACE_BUILDER_MAX_ROWS);
      break;
    case FAILED_COUNTERS:
      message = g_strdup_printf (_("more than %u counters, the most a trace can have"),
                                 KS_TRACE_BUILDER_MAX_ROWS);
      break;
    case FAILED_MEMORY:
    case FAILED_NONE:
    default:
      events = g_strdup_printf ("%" G_GUINT64_FORMAT, self->n_events);
      message = g_strdup_printf (_("not enough memory for the trace (after %s events)"), events);
      break;
    }

  name = g_hash_table_lookup (self->metadata, "source_name");
  if (name != NULL && *name != 0)
    g_set_error (error, G_IO_ERROR, self->failed == FAILED_MEMORY ? G_IO_ERROR_FAILED : G_IO_ERROR_INVALID_DATA,
                 "%s: %s", name, message);
  else
    g_set_error_literal (error, G_IO_ERROR,
                         self->failed == FAILED_MEMORY ? G_IO_ERROR_FAILED : G_IO_ERROR_INVALID_DATA, message);
  return FALSE;
}

/* The index of a new row of a kind that has @n: @n, or past the limit
 * the kind's @sink (the builder fails then). The sink is made once, not
 * indexed, and handed out for every later key, so that readers keep
 * valid indexes until they stop. Returns FALSE when *id is an existing
 * row (the sink), TRUE when the caller appends it. */
static gboolean
new_row (KsTraceBuilder *self,
         guint           n,
         Failure         failure,
         guint32        *sink,
         guint32        *id)
{
  *id = n;
  if (G_LIKELY (n < KS_TRACE_BUILDER_MAX_ROWS))
    return TRUE;
  if (self->failed == FAILED_NONE)
    self->failed = failure;
  if (*sink != KS_NO_INDEX)
    {
      *id = *sink;
      return FALSE;
    }
  *sink = n;
  return TRUE;
}

static void
fail_memory (KsTraceBuilder *self)
{
  if (self->failed == FAILED_NONE)
    self->failed = FAILED_MEMORY;
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

/* Reservations on a count a file states are capped: the count is a
 * hint, and a hostile one must not make an allocation fail. */
#define RESERVE_MAX_BYTES ((gsize) 256 << 20)

/* Room for @n more elements of @array, paged in. */
static void
array_reserve (GArray *array,
               guint64 n)
{
  guint len = array->len;
  gsize size = g_array_get_element_size (array);

  n = MIN (n, RESERVE_MAX_BYTES / size);
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
      gsize cap = self->args_cap;
      char *grown;

      while (self->args_len + len + 1 > cap)
        cap *= 2;
      grown = g_try_realloc (self->args, cap);
      if (grown == NULL)
        {
          fail_memory (self);
          return 0;
        }
      self->args = grown;
      self->args_cap = cap;
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

/* Whether @line is one of the lines of @text. */
static gboolean
has_line (const char *text,
          const char *line)
{
  gsize len = strlen (line);

  for (const char *p = text; (p = strstr (p, line)) != NULL; p++)
    if ((p == text || p[-1] == '\n') && (p[len] == 0 || p[len] == '\n'))
      return TRUE;
  return FALSE;
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

  /* Once each: a .kscope copy keeps its source's load warnings among its
   * diagnostics, and the reader may find the same again. */
  old = g_hash_table_lookup (self->metadata, "warnings");
  if (old != NULL && has_line (old, text))
    return;
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
  Key key = { 0, pid, 0 };
  guint32 id = id_index_find (self, &self->process_index, &key);
  KsProcess p = { 0 };

  if (id != KS_NO_INDEX ||
      !new_row (self, self->processes->len, FAILED_PROCESSES, &self->sink_process, &id))
    return id;

  p.pid = pid;
  p.group = self->group;
  g_array_append_val (self->processes, p);
  if (id != self->sink_process)
    id_index_add (self, &self->process_index, id);
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

  return id_index_find (self, &self->thread_index, &key);
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
      !new_row (self, self->threads->len, FAILED_THREADS, &self->sink_thread, &id))
    return id;

  t.process = process;
  t.tid = tid;
  t.track = KS_NO_INDEX;
  g_array_append_val (self->threads, t);
  g_array_append_val (self->nvtx_tracks, none);
  if (id != self->sink_thread)
    id_index_add (self, &self->thread_index, id);
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

/* A new track, or the sink (see new_row()): callers leave the sink as it
 * is and out of their index. */
static guint32
new_track (KsTraceBuilder *self,
           KsTrackKind     kind)
{
  TrackBuilder tb = { 0 };
  guint32 id;

  if (!new_row (self, self->tracks->len, FAILED_TRACKS, &self->sink_track, &id))
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

  id = new_track (self, KS_TRACK_THREAD);
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
  id = new_track (self, KS_TRACK_NVTX);
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
  guint32 id = id_index_find (self, &self->track_index, &key);
  TrackBuilder *tb;

  if (id != KS_NO_INDEX)
    return id;

  id = new_track (self, kind);
  if (id == self->sink_track)
    return id;
  tb = get_tb (self, id);
  tb->device = device;
  tb->stream = stream;
  id_index_add (self, &self->track_index, id);
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
  guint32 id = id_index_find (self, &self->track_index, &key);
  TrackBuilder *tb;

  if (id != KS_NO_INDEX)
    return id;

  id = new_track (self, KS_TRACK_ASYNC);
  if (id == self->sink_track)
    return id;
  tb = get_tb (self, id);
  tb->process = process;
  tb->name = name_id;
  id_index_add (self, &self->track_index, id);
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
  grown.gpu = tb->gpu != NULL ? g_try_new (KsGpuInfo, cap) : NULL;
  grown.cap = cap;
  if (grown.start == NULL || grown.end == NULL || grown.name_id == NULL || grown.category == NULL ||
      grown.correlation == NULL || grown.external_id == NULL || grown.args == NULL ||
      grown.slice_kind == NULL || (tb->gpu != NULL && grown.gpu == NULL))
    {
      track_builder_clear (&grown);
      return FALSE;
    }

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

  if (cap <= PACKED_MAX)
    ok = track_repack (tb, cap);
  else if (tb->cap <= PACKED_MAX)
    ok = track_unpack (tb, cap);
  else
    ok = track_renew (tb, cap);

  if (!ok)
    fail_memory (self);
  return ok;
}

#undef RENEW_COLUMN

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
    track_page_in (tb, n);

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
  PendingFlow f = { from_track, to_track, from_ts, to_ts, category, kind };

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
  if (!new_row (self, self->counters->len, FAILED_COUNTERS, &self->sink_counter, &id))
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

/* Nesting depths of the slices (start, end)[perm[i]] (perm NULL: in
 * order), which are sorted; shifted by @origin into out_start/out_end
 * (which may be the input). counts[d] is the number at depth d. Returns
 * the deepest depth + 1, 0 for no slices. */
static guint32
track_depths (const gint64  *start,
              const gint64  *end,
              const guint32 *perm,
              guint32        n,
              gint64         origin,
              gint64        *out_start,
              gint64        *out_end,
              guint8        *depth,
              guint32       *counts)
{
  gint64 stack[MAX_DEPTH + 1];
  guint32 sp = 0;
  guint32 max_depth = 0;

  for (guint32 i = 0; i < n; i++)
    {
      guint32 k = perm ? perm[i] : i;
      gint64 s = start[k];
      gint64 e = end[k];

      while (sp > 0 && stack[sp - 1] <= s)
        sp--;

      /* Slices deeper than MAX_DEPTH share the last level; they are
       * drawn there but may be missed by range queries. */
      if (sp > MAX_DEPTH)
        sp = MAX_DEPTH;
      depth[i] = sp;
      counts[sp]++;
      if (sp + 1 > max_depth)
        max_depth = sp + 1;
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
                     Arena        *arena)
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
  track->max_depth = track_depths (tb->start, tb->end, perm, n, origin, start, end, depth, counts);
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

  track_builder_clear (tb);
}

#define SHRINK(type, column) \
  (type *)(n ? g_realloc (tb->column, sizeof (type) * n) : (g_free (tb->column), g_malloc (sizeof (type))))

/* A larger track: its own arrays move into @track (shrunk to size),
 * sorted, times shifted by @origin, with depths and per-depth index. */
static void
track_finish (TrackBuilder *tb,
              guint32       id,
              KsTrack      *track,
              gint64        origin)
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
    page_in (track->depth, track->depth + n);

  track->max_depth = track_depths (track->start, track->end, NULL, n, origin,
                                   track->start, track->end, track->depth, counts);
  track->by_depth = g_new0 (guint32 *, track->max_depth);
  track->n_by_depth = g_new0 (guint32, track->max_depth);

  all = g_new (guint32, n);
  if (n >= TRACK_PAGE_IN_MIN)
    page_in (all, all + n);
  track_index_depths (track, all, counts);
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
      f.from_slice = ks_kscope_flow_end_slice (&trace->tracks[pf->from_track], pf->from_ts - trace->origin_ns);
      f.to_slice = ks_kscope_flow_end_slice (&trace->tracks[pf->to_track], pf->to_ts - trace->origin_ns);
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
  Arena arena = { NULL, NULL, 0 };
  GHashTableIter iter;
  gpointer key, value;

  g_return_val_if_fail (self != NULL, NULL);

  if (!ks_trace_builder_check (self, error))
    return NULL;

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
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      TrackBuilder *tb = get_tb (self, t);

      if ((t & 0xfff) == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      if (tb->n_slices <= PACKED_MAX)
        track_finish_packed (tb, t, &trace->tracks[t], origin, &arena);
      else
        track_finish (tb, t, &trace->tracks[t], origin);
    }
  g_clear_pointer (&self->tracks, g_array_unref);

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
