/* ks-json-reader.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-json-reader"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "ks-json-reader-private.h"
#include "ks-load-phases.h"

/* The reader is a push parser: yajl calls back for every token and a
 * small state machine keyed on nesting depth picks out the events. One
 * event's fields are collected in Event and turned into model rows when
 * its object closes; "args" are copied as compact JSON text straight from
 * the input bytes, so nothing is reformatted. The work is spread over
 * files named after their jobs:
 *
 *   ks-json-scan.c       numbers, UTF-8, white-space compaction (pure)
 *   ks-json-source.c     mapped file, stream or gzip thread; error offsets
 *   ks-json-parallel.c   the event array cut into chunks parsed on every core
 *   ks-json-tokenizer.c  whole tokens to yajl, long ones limited
 *   ks-json-callbacks.c  yajl callbacks and an event's own fields
 *   ks-json-args.c       args and top-level values
 *   ks-json-events.c     trace-event semantics into the builder
 *   ks-json-flows.c      flow events, chained per (category, id)
 *   ks-json-kineto.c     the PyTorch Profiler dialect
 *   ks-json-folder.c     tensorboard_trace_handler folders
 *
 * This file holds the reader's state and the entry points. */


void
ks_json_reader_reset_file (Reader *r)
{
  ks_json_parallel_stop (r);
  g_hash_table_remove_all (r->pid_map);
  g_hash_table_remove_all (r->pid_str_map);
  g_hash_table_remove_all (r->tid_str_map);
  g_hash_table_remove_all (r->open_async);
  g_array_set_size (r->flows, 0);
  g_hash_table_remove_all (r->flow_ids);
  g_array_set_size (r->metadata, 0);
  g_byte_array_set_size (r->kind_by_cat, 0);

  r->depth = 0;
  r->top = 0;
  r->events_depth = 0;
  r->saw_events = FALSE;
  r->gpu_depth = 0;
  r->top_key = K_OTHER;
  r->n_top_values = 0;
  r->n_top_dropped = 0;
  r->in_event = FALSE;
  r->in_args = FALSE;
  r->args_direct = NULL;
  r->cbs = ks_json_callbacks;
  r->scalars_muted = FALSE;
  r->in_id2 = FALSE;
  r->syntax_error = FALSE;
  r->nesting_error = FALSE;
  r->number_error = FALSE;
  r->lenient_fixable = FALSE;
  r->lenient_in_string = FALSE;
  r->lenient_escape = FALSE;
  r->held_comma = FALSE;
  r->lenient_prev = 0;
  r->lenient_piece = NULL;
  r->n_trailing_commas = r->n_control_chars = 0;
  g_byte_array_set_size (r->carry, 0);
  r->skip_string = FALSE;
  r->text_ascii = TRUE;
  r->args_ascii = TRUE;
  memset (&r->stream_state, 0, sizeof r->stream_state);
  r->orig_offset = 0;
  r->text_fed = 0;
  r->value_done = FALSE;
  r->value_end = 0;
  r->buf_offset = 0;
  r->ts_offset = 0;
  r->have_base_time = FALSE;
  r->kineto = FALSE;
  r->min_ts = G_MAXINT64;
  r->max_ts = G_MININT64;
  r->n_items = 0;
  r->n_events = 0;
  memset (r->thread_cache, 0, sizeof r->thread_cache);
  r->cache_gpu_kind = -1;
  r->n_empty_pending = 0;
  r->n_bad_ts = r->n_no_ph = r->n_not_object = r->n_unmatched_end = 0;
  r->n_unclosed = r->n_unknown_ph = r->n_dropped_flows = r->n_too_deep = r->n_big_args = 0;
  r->n_negative_dur = r->n_bad_counter_values = 0;
  r->n_cut_strings = r->n_invalid_utf8 = 0;
  g_string_truncate (r->unknown_phases, 0);
}

static void
free_stack (gpointer data)
{
  if (data != NULL)
    g_array_unref (data);
}

Reader *
ks_json_reader_new (KsTraceBuilder *builder,
                    KsProgress     *progress,
                    GCancellable   *cancellable)
{
  Reader *r = g_new0 (Reader, 1);

  ks_json_compact_init ();
  r->builder = builder;
  r->progress = progress;
  r->cancellable = cancellable;
  r->top_key_text = g_string_new (NULL);
  r->args = g_string_sized_new (4096);
  r->ev = &r->ev_own;
  r->intern_gen = 1;
  r->ev_own.pid.str = g_string_new (NULL);
  r->ev_own.tid.str = g_string_new (NULL);
  r->ev_own.id = g_string_new (NULL);
  r->ev_own.bind_id = g_string_new (NULL);
  r->ev_own.arg_name = g_string_new (NULL);
  r->ev_own.labels = g_string_new (NULL);
  for (guint i = 0; i < MAX_COUNTER_ARGS; i++)
    r->ev_own.counter_key[i] = g_string_new (NULL);
  r->pid_map = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  r->pid_str_map = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  r->tid_str_map = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  r->open_async = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, free_stack);
  r->flows = g_array_new (FALSE, FALSE, sizeof (FlowPoint));
  r->flow_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  r->metadata = g_array_new (FALSE, FALSE, sizeof (Metadata));
  g_array_set_clear_func (r->metadata, ks_json_metadata_clear);
  r->kind_by_cat = g_byte_array_new ();
  r->used_pids = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  r->gpus = g_array_new (FALSE, FALSE, sizeof (KsGpu));
  r->gpu_index = g_hash_table_new (g_direct_hash, g_direct_equal);
  r->unknown_phases = g_string_new (NULL);
  r->carry = g_byte_array_new ();
  r->utf8_scratch = g_string_new (NULL);
  r->next_synthetic = SYNTHETIC_ID_BASE;
  ks_json_reader_reset_file (r);
  return r;
}

void
ks_json_reader_free (Reader *r)
{
  ks_json_parallel_free_workers (r);
  g_string_free (r->top_key_text, TRUE);
  g_string_free (r->args, TRUE);
  g_string_free (r->ev_own.pid.str, TRUE);
  g_string_free (r->ev_own.tid.str, TRUE);
  g_string_free (r->ev_own.id, TRUE);
  g_string_free (r->ev_own.bind_id, TRUE);
  g_string_free (r->ev_own.arg_name, TRUE);
  g_string_free (r->ev_own.labels, TRUE);
  for (guint i = 0; i < MAX_COUNTER_ARGS; i++)
    g_string_free (r->ev_own.counter_key[i], TRUE);
  g_hash_table_unref (r->pid_map);
  g_hash_table_unref (r->pid_str_map);
  g_hash_table_unref (r->tid_str_map);
  g_hash_table_unref (r->open_async);
  g_array_unref (r->flows);
  g_hash_table_unref (r->flow_ids);
  g_array_unref (r->metadata);
  g_byte_array_unref (r->kind_by_cat);
  g_hash_table_unref (r->used_pids);
  g_array_unref (r->gpus);
  g_hash_table_unref (r->gpu_index);
  g_string_free (r->unknown_phases, TRUE);
  g_byte_array_unref (r->carry);
  g_string_free (r->utf8_scratch, TRUE);
  g_free (r->syntax_text);
  g_clear_pointer (&r->args_scratch, ks_args_scratch_free);
  g_clear_error (&r->error);
  if (r->yajl != NULL)
    yajl_free (r->yajl);
  g_free (r);
}

/* Once per file, after parsing: pids of this file are taken for the
 * next ones, and the clock's wall time is noted. */
void
ks_json_finish_file (Reader  *r,
                     gboolean first_file)
{
  GHashTableIter iter;
  gpointer key;

  g_hash_table_iter_init (&iter, r->pid_map);
  while (g_hash_table_iter_next (&iter, &key, NULL))
    g_hash_table_add (r->used_pids, g_memdup2 (key, sizeof (gint64)));

  if (r->have_base_time && !r->have_base0)
    {
      r->have_base0 = TRUE;
      r->base0 = r->base_time;
      ks_trace_builder_set_start_utc (r->builder, r->base_time);
    }
  else if (first_file && !r->have_base_time && r->kineto && r->min_ts > 1000000000000000000ll)
    {
      /* Kineto without a base time writes microseconds since the epoch. */
      r->have_base0 = TRUE;
      r->base0 = 0;
      ks_trace_builder_set_start_utc (r->builder, 0);
    }
}

KsTrace *
ks_json_finish_trace (Reader        *r,
                      GError       **error)
{
  KsTraceBuilder *builder = g_steal_pointer (&r->builder);
  KsTrace *trace;
  gboolean kineto = r->any_kineto;

  g_array_sort (r->gpus, ks_json_compare_gpu_devices);
  for (guint i = 0; i < r->gpus->len; i++)
    ks_trace_builder_add_gpu (builder, &g_array_index (r->gpus, KsGpu, i));

  ks_trace_builder_set_warn_overlaps (builder, TRUE);
  if (r->progress != NULL)
    ks_progress_set_message (r->progress, _("Indexing…"));
  trace = ks_trace_builder_finish (builder, r->cancellable, error);
  if (trace != NULL)
    trace->format = kineto ? KS_FORMAT_KINETO_JSON : KS_FORMAT_CHROME_JSON;
  return trace;
}

static KsTrace *
load_stream (GInputStream  *stream,
             const char    *name,
             goffset        size,
             KsProgress    *progress,
             GCancellable  *cancellable,
             gboolean       lenient,
             gboolean      *fixable,
             GError       **error)
{
  KsTraceBuilder *builder = ks_trace_builder_new (KS_FORMAT_CHROME_JSON);
  Reader *r = ks_json_reader_new (builder, progress, cancellable);
  KsTrace *trace = NULL;
  KsPhaseClock clock;

  r->name = name ? name : "";
  r->lenient = lenient;
  ks_trace_builder_set_metadata (builder, "source_name", r->name);
  ks_json_note_file_rank (r, r->name);
  ks_phase_start (&clock);
  if (ks_json_read_stream (r, stream, size, 0.0, 0.95, error))
    {
      ks_phase_next (&clock, "read");
      ks_json_finish_file (r, TRUE);
      trace = ks_json_finish_trace (r, error);
      ks_phase_next (&clock, "finish");
    }
  *fixable = r->lenient_fixable;

  if (r->builder != NULL)
    ks_trace_builder_free (r->builder);
  ks_json_reader_free (r);
  return trace;
}

KsTrace *
ks_json_reader_load_stream (GInputStream  *stream,
                            const char    *name,
                            goffset        size,
                            KsProgress    *progress,
                            GCancellable  *cancellable,
                            GError       **error)
{
  GError *local_error = NULL;
  gboolean fixable = FALSE;
  KsTrace *trace;

  g_return_val_if_fail (G_IS_INPUT_STREAM (stream), NULL);

  trace = load_stream (stream, name, size, progress, cancellable, FALSE, &fixable, &local_error);
  /* Trailing commas or raw control characters: read again, leniently.
   * The usual file pays nothing for the repairs. */
  if (trace == NULL && fixable && ks_json_stream_rewind (stream))
    {
      g_clear_error (&local_error);
      trace = load_stream (stream, name, size, progress, cancellable, TRUE, &fixable, &local_error);
    }
  if (local_error != NULL)
    g_propagate_error (error, local_error);
  return trace;
}

gboolean
ks_json_reader_is_trace_folder (GFile *file)
{
  g_autoptr(GPtrArray) files = NULL;

  if (g_file_query_file_type (file, G_FILE_QUERY_INFO_NONE, NULL) != G_FILE_TYPE_DIRECTORY)
    return FALSE;
  files = ks_json_list_trace_files (file, NULL, NULL);
  return files != NULL && files->len > 0;
}

KsTrace *
ks_json_reader_load (GFile         *file,
                     KsProgress    *progress,
                     GCancellable  *cancellable,
                     GError       **error)
{
  g_autoptr(GFileInputStream) stream = NULL;
  g_autoptr(GFileInfo) info = NULL;
  g_autofree char *name = NULL;
  GError *local_error = NULL;

  g_return_val_if_fail (G_IS_FILE (file), NULL);

  name = g_file_get_parse_name (file);
  info = g_file_query_info (file,
                            G_FILE_ATTRIBUTE_STANDARD_TYPE "," G_FILE_ATTRIBUTE_STANDARD_SIZE,
                            G_FILE_QUERY_INFO_NONE, cancellable, &local_error);
  if (info == NULL)
    {
      g_propagate_prefixed_error (error, local_error, "%s: ", name);
      return NULL;
    }
  if (g_file_info_get_file_type (info) == G_FILE_TYPE_DIRECTORY)
    return ks_json_load_folder (file, progress, cancellable, error);

  stream = g_file_read (file, cancellable, &local_error);
  if (stream == NULL)
    {
      g_propagate_prefixed_error (error, local_error, "%s: ", name);
      return NULL;
    }

  return ks_json_reader_load_stream (G_INPUT_STREAM (stream), name, g_file_info_get_size (info),
                                     progress, cancellable, error);
}
