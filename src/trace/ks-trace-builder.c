/* ks-trace-builder.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-trace-builder"

/* The builder's state and lifetime, its limits and the errors past them,
 * strings, args, metadata and warnings. Processes, threads, tracks and
 * the add API are in ks-trace-builder-tracks.c, finishing (sort, nest,
 * link flows) in ks-trace-builder-finish.c. */

#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include <glib/gi18n.h>

#include "ks-trace-builder-private.h"

/* Stacks of open ranges are NULL while empty. */
static void
free_range_stack (gpointer data)
{
  if (data != NULL)
    g_array_unref (data);
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
  self->long_strings = g_ptr_array_new_with_free_func (g_free);
  self->strings = g_ptr_array_new ();
  self->string_index = g_hash_table_new (g_str_hash, g_str_equal);
  self->args = ks_args_store_new ();
  self->processes = g_array_new (FALSE, TRUE, sizeof (KsProcess));
  self->process_index.key_of = _ks_builder_process_key;
  self->threads = g_array_new (FALSE, TRUE, sizeof (KsThread));
  self->thread_index.key_of = _ks_builder_thread_key;
  self->nvtx_tracks = g_array_new (FALSE, TRUE, sizeof (guint32));
  self->tracks = g_array_new (FALSE, TRUE, sizeof (TrackBuilder));
  g_array_set_clear_func (self->tracks, _ks_builder_track_builder_clear);
  self->track_index.key_of = _ks_builder_track_key;
  self->gpus = g_array_new (FALSE, TRUE, sizeof (KsGpu));
  self->gpu_index = g_hash_table_new (NULL, NULL);
  self->flows = g_array_new (FALSE, FALSE, sizeof (PendingFlow));
  self->thread_times = g_array_new (FALSE, FALSE, sizeof (PendingThreadTime));
  self->counters = g_array_new (FALSE, TRUE, sizeof (KsCounter));
  self->counter_samples = g_ptr_array_new_with_free_func (counter_samples_free);
  self->counter_index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  self->memory_events = g_array_new (FALSE, FALSE, sizeof (KsMemoryEvent));
  self->instants = g_array_new (FALSE, FALSE, sizeof (KsInstant));
  self->ranks = g_array_new (FALSE, FALSE, sizeof (KsRank));
  self->metadata = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  self->open_ranges = g_ptr_array_new_with_free_func (free_range_stack);
  self->stack_nodes = g_array_new (FALSE, FALSE, sizeof (KsStackNode));
  self->stack_node_index.key_of = _ks_builder_stack_node_key;
  self->samples = g_array_new (FALSE, FALSE, sizeof (KsSample));
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
  g_clear_pointer (&self->long_strings, g_ptr_array_unref);
  g_clear_pointer (&self->strings, g_ptr_array_unref);
  g_clear_pointer (&self->string_index, g_hash_table_unref);
  g_clear_pointer (&self->args, ks_args_store_free);
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
  g_clear_pointer (&self->thread_times, g_array_unref);
  g_clear_pointer (&self->counters, g_array_unref);
  g_clear_pointer (&self->counter_samples, g_ptr_array_unref);
  g_clear_pointer (&self->counter_index, g_hash_table_unref);
  g_clear_pointer (&self->memory_events, g_array_unref);
  g_clear_pointer (&self->instants, g_array_unref);
  g_clear_pointer (&self->ranks, g_array_unref);
  g_clear_pointer (&self->metadata, g_hash_table_unref);
  g_clear_pointer (&self->open_ranges, g_ptr_array_unref);
  g_clear_pointer (&self->stack_nodes, g_array_unref);
  g_clear_pointer (&self->stack_node_index.slots, g_free);
  g_clear_pointer (&self->samples, g_array_unref);
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
gboolean
_ks_builder_new_row (KsTraceBuilder *self,
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

void
_ks_builder_fail_memory (KsTraceBuilder *self)
{
  if (self->failed == FAILED_NONE)
    self->failed = FAILED_MEMORY;
}

guint32
ks_trace_builder_intern (KsTraceBuilder *self,
                         const char     *str)
{
  gpointer value;
  const char *copy;
  guint32 id;
  gsize len;

  if (str == NULL || *str == 0)
    return 0;

  if (g_hash_table_lookup_extended (self->string_index, str, NULL, &value))
    return GPOINTER_TO_UINT (value);

  len = strlen (str);
  if (len >= LONG_STRING)
    {
      /* g_string_chunk_insert_const() would abort where it cannot
       * allocate; the load says "not enough memory" instead */
      char *own = g_try_malloc (len + 1);

      if (own == NULL)
        {
          _ks_builder_fail_memory (self);
          return 0;
        }
      memcpy (own, str, len + 1);
      g_ptr_array_add (self->long_strings, own);
      copy = own;
    }
  else
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

/* Pages in the whole pages of [@from, @to) with one call: on a virtual
 * machine a page fault per 4 KiB costs several times more. */
void
_ks_builder_page_in (const void *from,
                     const void *to)
{
  static gboolean unsupported;
  guintptr page = 4096;
  guintptr a = ((guintptr) from + page - 1) & ~(page - 1);
  guintptr b = (guintptr) to & ~(page - 1);

  if (b > a && !unsupported && madvise ((void *) a, b - a, MADV_POPULATE_WRITE) != 0 && errno == EINVAL)
    unsupported = TRUE;
}

/* The columns of a large track likewise (TRACK_PAGE_IN_MIN). */

void
_ks_builder_track_page_in (TrackBuilder *tb,
                           guint32       n)
{
  guint32 to = (guint32) MIN ((guint64) n + TRACK_PAGE_IN, tb->cap);

#define PAGE_IN_COLUMN(col) _ks_builder_page_in (tb->col + n, tb->col + to)
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
void
_ks_builder_array_reserve (GArray *array,
                           guint64 n)
{
  guint len = array->len;
  gsize size = g_array_get_element_size (array);

  n = MIN (n, RESERVE_MAX_BYTES / size);
  if (n < TRACK_PAGE_IN_MIN || n > G_MAXUINT - len)
    return;
  g_array_set_size (array, len + (guint) n);
  _ks_builder_page_in (array->data + (gsize) len * size, array->data + (gsize) array->len * size);
  g_array_set_size (array, len);
}

void
ks_trace_builder_expect (KsTraceBuilder *self,
                         guint64         memory_events,
                         guint64         flows,
                         guint64         instants)
{
  _ks_builder_array_reserve (self->memory_events, memory_events);
  _ks_builder_array_reserve (self->flows, flows);
  _ks_builder_array_reserve (self->instants, instants);
}

guint32
ks_trace_builder_add_args (KsTraceBuilder *self,
                           const char     *json,
                           gsize           len)
{
  guint32 id;

  _ks_builder_args_barrier (self);
  if (!ks_args_store_add (self->args, json, len, &id))
    _ks_builder_fail_memory (self);
  return id;
}

guint32
ks_trace_builder_add_prepared_args (KsTraceBuilder *self,
                                    const char     *json,
                                    gsize           len,
                                    const guint8   *prepared,
                                    gsize           prepared_len)
{
  guint32 id;

  _ks_builder_args_barrier (self);
  if (!ks_args_store_add_prepared (self->args, json, len, prepared, prepared_len, &id))
    _ks_builder_fail_memory (self);
  return id;
}

guint32
ks_trace_builder_add_local_args (KsTraceBuilder    *self,
                                 const char        *json,
                                 gsize              len,
                                 const KsArgsLocal *local,
                                 guint32           *map,
                                 const guint8      *record,
                                 gsize              record_len)
{
  guint32 id;

  _ks_builder_args_barrier (self);
  if (!ks_args_store_add_local (self->args, local, map, json, len, record, record_len, &id))
    _ks_builder_fail_memory (self);
  return id;
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

KsRank *
ks_trace_builder_get_rank (KsTraceBuilder *self,
                           guint32         group)
{
  KsRank fresh = { .group = group, .rank = -1, .local_rank = -1 };

  for (guint i = 0; i < self->ranks->len; i++)
    if (g_array_index (self->ranks, KsRank, i).group == group)
      return &g_array_index (self->ranks, KsRank, i);
  g_array_append_val (self->ranks, fresh);
  return &g_array_index (self->ranks, KsRank, self->ranks->len - 1);
}

gint32
ks_trace_rank_from_file_name (const char *name)
{
  const char *p = name;

  /* "rank" as a word of its own or after a separator, so that
   * "frank2.json" is not rank 2 */
  while ((p = strstr (p, "rank")) != NULL)
    {
      const char *d = p + 4;
      gint64 v = 0;

      if (p > name && g_ascii_isalnum (p[-1]))
        {
          p = d;
          continue;
        }
      if (*d == '-' || *d == '_')
        d++;
      if (!g_ascii_isdigit (*d))
        {
          p = d;
          continue;
        }
      while (g_ascii_isdigit (*d) && v <= G_MAXINT32)
        v = v * 10 + (*d++ - '0');
      if (v <= G_MAXINT32 && !g_ascii_isalpha (*d))
        return (gint32)v;
      p = d;
    }
  return -1;
}

void
ks_trace_builder_set_group (KsTraceBuilder *self,
                            guint32         group)
{
  self->group = group;
}

void
ks_trace_builder_set_args_barrier (KsTraceBuilder *self,
                                   GFunc           barrier,
                                   gpointer        data)
{
  g_return_if_fail (self != NULL);

  self->args_barrier = barrier;
  self->args_barrier_data = data;
}

gboolean
ks_trace_builder_store_args (KsTraceBuilder    *self,
                             const char        *json,
                             gsize              len,
                             const KsArgsLocal *local,
                             guint32           *map,
                             const guint8      *record,
                             gsize              record_len,
                             guint32           *id)
{
  if (local != NULL)
    return ks_args_store_add_local (self->args, local, map, json, len, record, record_len, id);
  return ks_args_store_add (self->args, json, len, id);
}

void
ks_trace_builder_fail_args (KsTraceBuilder *self)
{
  _ks_builder_fail_memory (self);
}

guint32
ks_trace_builder_get_track_n_slices (KsTraceBuilder *self,
                                     guint32         track)
{
  g_return_val_if_fail (track < self->tracks->len, 0);

  return get_tb (self, track)->n_slices;
}

void
ks_trace_builder_set_slice_args (KsTraceBuilder *self,
                                 guint32         track,
                                 guint32         index,
                                 guint32         args)
{
  TrackBuilder *tb;

  g_return_if_fail (track < self->tracks->len);
  tb = get_tb (self, track);
  g_return_if_fail (index < tb->n_slices);
  tb->args[index] = args;
}

guint32 *
ks_trace_builder_get_slice_args_column (KsTraceBuilder *self,
                                        guint32         track,
                                        guint32        *n_slices)
{
  TrackBuilder *tb;

  *n_slices = 0;
  g_return_val_if_fail (track < self->tracks->len, NULL);
  tb = get_tb (self, track);
  *n_slices = tb->n_slices;
  return tb->args;
}
