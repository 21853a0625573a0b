/* ks-json-args.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-json-reader"

/* Values that are not an event's own fields: the args the model keeps
 * columns for (External id, correlation, device, stream, grid, ...),
 * counter values, and the scalars of the top-level object. */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "ks-json-reader-private.h"

void
ks_json_event_reset (Event *ev)
{
  ev->ph = 0;
  ev->bp = 0;
  ev->scope = 0;
  ev->has_ts = ev->has_dur = ev->bad_ts = FALSE;
  ev->has_tts = ev->has_tdur = FALSE;
  ev->ts = ev->dur = 0;
  ev->name = ev->cat = 0;
  ev->kind = KS_SLICE_GENERIC;
  ev->name_special = NAME_PLAIN;
  ev->name_hint = NAME_HINT_NONE;
  ev->device_by_name = FALSE;
  ev->flow_cat = FLOW_CAT_OTHER;
  ev->pid.set = ev->tid.set = FALSE;
  ev->has_id = ev->id_local = ev->any_key = FALSE;
  ev->has_bind_id = ev->flow_in = ev->flow_out = FALSE;
  ev->has_args = FALSE;
  ev->external_id = ev->correlation = 0;
  ev->has_device = ev->has_stream = FALSE;
  memset (&ev->gpu, 0, sizeof ev->gpu);
  ev->registers = 0;
  ev->shared_memory = 0;
  ev->bytes = 0;
  ev->mem_bytes = 0;
  ev->addr = 0;
  ev->total_allocated = ev->total_reserved = -1;
  ev->device_type = -1;
  ev->device_id = -1;
  ev->has_arg_name = ev->has_labels = ev->has_sort_index = FALSE;
  ev->n_counter_args = 0;
  ev->n_bad_counter_values = 0;
  ev->copy_kind = ev->src_kind = ev->dst_kind = 0;
}

#undef KEY_IS

static void
set_arg (Reader     *r,
         gboolean    is_string,
         const char *s,
         gsize       len)
{
  Event *ev = r->ev;
  gint64 v = 0;
  gboolean is_int;

  if (r->arg == A_OTHER)
    return;
  is_int = !is_string && ks_json_parse_int64 (s, len, &v);

  switch (r->arg)
    {
    case A_EXTERNAL_ID:
      if (is_int)
        ev->external_id = to_u32 (v);
      break;
    case A_CORRELATION:
      if (is_int)
        ev->correlation = to_u32 (v);
      break;
    case A_DEVICE:
      if (is_int)
        {
          ev->has_device = TRUE;
          ev->device = v;
        }
      break;
    case A_STREAM:
      if (is_int)
        {
          ev->has_stream = TRUE;
          ev->stream = v;
        }
      break;
    case A_REGISTERS:
      if (is_int)
        ev->registers = (guint32)CLAMP (v, 0, G_MAXUINT16);
      break;
    case A_SHARED_MEMORY:
      if (is_int)
        ev->shared_memory = (guint64)CLAMP (v, 0, G_MAXUINT32);
      break;
    case A_BYTES:
      if (is_int && v >= 0)
        ev->bytes = (guint64)v;
      break;
    case A_MEM_BYTES:
      if (is_int)
        ev->mem_bytes = v;
      break;
    case A_ADDR:
      if (!is_string)
        ks_json_parse_uint64 (s, len, &ev->addr);
      break;
    case A_TOTAL_ALLOCATED:
      if (is_int)
        ev->total_allocated = v;
      break;
    case A_TOTAL_RESERVED:
      if (is_int)
        ev->total_reserved = v;
      break;
    case A_DEVICE_TYPE:
      if (is_int)
        ev->device_type = v;
      break;
    case A_DEVICE_ID:
      if (is_int)
        ev->device_id = v;
      break;
    case A_DIRECTION:
      if (is_string)
        ev->copy_kind = ks_json_copy_kind_from_direction (s, len);
      break;
    case A_NAME:
      if (is_string)
        {
          g_string_truncate (ev->arg_name, 0);
          ks_json_append_valid_utf8 (r, ev->arg_name, s, len);
          ev->has_arg_name = TRUE;
        }
      break;
    case A_LABELS:
      if (is_string)
        {
          g_string_truncate (ev->labels, 0);
          ks_json_append_valid_utf8 (r, ev->labels, s, len);
          ev->has_labels = TRUE;
        }
      break;
    case A_SORT_INDEX:
      /* written as a string too ("5") */
      if (is_string)
        is_int = ks_json_parse_int64 (s, len, &v);
      if (is_int)
        {
          ev->has_sort_index = TRUE;
          ev->sort_index = v;
        }
      break;
    case A_GRID:
    case A_BLOCK:
    case A_VALUE:
    case A_OTHER:
    default:
      break;
    }
}

static void
set_array_arg (Reader     *r,
               const char *s,
               gsize       len)
{
  gint64 v;
  int i = r->arg_index++;

  if (i > 2 || !ks_json_parse_int64 (s, len, &v))
    return;
  if (r->arg == A_GRID)
    r->ev->gpu.kernel.grid[i] = (guint32)CLAMP (v, 0, G_MAXUINT32);
  else
    r->ev->gpu.kernel.block[i] = (guint16)CLAMP (v, 0, G_MAXUINT16);
}

/* Values of the top-level object other than the events and the GPUs
 * (DevTools' "metadata", Kineto's "distributedInfo", "displayTimeUnit"):
 * kept in the trace's metadata under their dotted path. */
gboolean
ks_json_in_top_value (Reader *r)
{
  return r->top == '{' && r->depth >= 1 && !r->in_event && r->events_depth == 0 && r->gpu_depth == 0 &&
         (r->depth == 1 || r->top_key == K_OTHER || r->top_key == K_DISTRIBUTED);
}

/* The path of the element that comes now, in the container at depth @d:
 * an array's next index (an object's key has set it) */
static void
top_element (Reader *r,
             int     d)
{
  if (d > 1 && r->top_index[d] > 0)
    {
      g_string_truncate (r->top_key_text, r->top_path_len[d]);
      g_string_append_printf (r->top_key_text, ".%u", r->top_index[d]++ - 1);
    }
}

void
ks_json_top_key (Reader     *r,
                 const char *key,
                 gsize       len)
{
  g_string_truncate (r->top_key_text, r->depth > 1 ? r->top_path_len[r->depth] : 0);
  if (r->depth > 1)
    g_string_append_c (r->top_key_text, '.');
  ks_json_append_valid_utf8 (r, r->top_key_text, key, len);
}

/* An object or array has opened in a top-level value: r->depth is its */
void
ks_json_top_container (Reader   *r,
                       gboolean  array)
{
  int d = r->depth;

  top_element (r, d - 1);
  r->top_path_len[d] = r->top_key_text->len;
  r->top_index[d] = array ? 1 : 0;
}

/* A scalar of a top-level value (@s its text; true, false and null too) */
void
ks_json_top_value (Reader     *r,
                   const char *s,
                   gsize       len)
{
  g_autofree char *value = NULL;

  top_element (r, r->depth);
  if (r->top_key_text->len == 0)
    return;
  if (r->top_key_text->len > MAX_TOP_KEY_LEN || len > 4096 || r->n_top_values >= MAX_TOP_METADATA)
    {
      r->n_top_dropped++;
      return;
    }
  if (!r->text_ascii)
    s = ks_json_valid_utf8 (r, s, &len);
  value = g_strndup (s, len);
  ks_trace_builder_set_metadata (r->builder, r->top_key_text->str, value);
  r->n_top_values++;
}

static void
set_top_value (Reader     *r,
               gboolean    is_string,
               const char *s,
               gsize       len)
{
  if (r->top_key == K_BASE_TIME)
    {
      gint64 v;

      if (!is_string && ks_json_parse_int64 (s, len, &v))
        {
          r->have_base_time = TRUE;
          r->base_time = v;
          /* Files of one folder each count from their own base time. */
          if (r->have_base0 && __builtin_sub_overflow (v, r->base0, &r->ts_offset))
            r->ts_offset = 0;   /* absurd base times: the file's own clock */
        }
    }
  ks_json_top_value (r, s, len);
  /* the host of each file of a folder, for aligning their clocks */
  if (is_string && len < 256 && strcmp (r->top_key_text->str, "host_name") == 0)
    {
      g_autofree char *value = NULL;

      if (!r->text_ascii)
        s = ks_json_valid_utf8 (r, s, &len);
      value = g_strndup (s, len);
      ks_trace_builder_get_rank (r->builder, r->group)->host = ks_trace_builder_intern (r->builder, value);
    }
}

DistributedField
ks_json_classify_distributed (const unsigned char *key,
                              gsize                len)
{
  static const struct { const char *key; DistributedField field; } map[] = {
    { "rank", D_RANK }, { "world_size", D_WORLD_SIZE }, { "backend", D_BACKEND }, { "pg_count", D_PG_COUNT },
  };

  for (guint i = 0; i < G_N_ELEMENTS (map); i++)
    if (strlen (map[i].key) == len && memcmp (map[i].key, key, len) == 0)
      return map[i].field;
  return D_OTHER;
}

/* A member of distributedInfo: the rank of the file being read. */
static void
set_distributed_field (Reader     *r,
                       gboolean    is_string,
                       const char *s,
                       gsize       len)
{
  KsRank *rank = ks_trace_builder_get_rank (r->builder, r->group);
  gint64 v;

  if (r->dist_field == D_BACKEND && is_string && len < 64)
    {
      if (!r->text_ascii)
        s = ks_json_valid_utf8 (r, s, &len);
      rank->backend = ks_trace_builder_intern_len (r->builder, s, len);
      return;
    }
  /* a rank past int32 is damage, not a job: left unknown, and said */
  if (is_string || !ks_json_parse_int64 (s, len, &v) || v < 0 || v > G_MAXINT32)
    {
      if (r->dist_field == D_RANK)
        {
          g_autofree char *text = g_utf8_make_valid (s, MIN (len, 40));

          ks_trace_builder_add_warning (r->builder,
                                        _("%s: distributedInfo's rank “%s” is not a number from 0 to 2147483647; "
                                          "the file's rank comes from its name, if it says one"),
                                        r->name ? r->name : "", text);
        }
      return;
    }
  switch (r->dist_field)
    {
    case D_RANK:
      rank->rank = (gint32)v;
      rank->source = KS_RANK_FROM_DISTRIBUTED_INFO;
      break;
    case D_WORLD_SIZE: rank->world_size = (gint32)v; break;
    case D_PG_COUNT:   rank->n_process_groups = (guint32)v; break;
    case D_BACKEND:
    case D_OTHER:
    default:
      break;
    }
}

G_GNUC_NO_INLINE int
ks_json_on_scalar (Reader     *r,
                   gboolean    is_string,
                   const char *s,
                   gsize       len)
{
  int d = r->depth;

  /* an event's own fields (d == events_depth + 1) never come here:
   * cb_number() and cb_string() hand them to set_event_field() */
  if (r->in_event)
    {
      if (r->in_args)
        {
          if (d == r->events_depth + 2)
            {
              set_arg (r, is_string, s, len);
              if ((r->ev->ph == 'C' || r->ev->ph == 0) && r->ev->n_counter_args < MAX_COUNTER_ARGS)
                {
                  double v;

                  /* values written as strings count, as Chrome and Perfetto read them */
                  if (is_string ? ks_json_parse_number_text (s, len, &v) : ks_json_parse_double (s, len, &v))
                    r->ev->counter_value[r->ev->n_counter_args++] = v;
                  else
                    {
                      /* keep key and value aligned; counted once the
                       * event is known to be a counter */
                      g_string_truncate (r->ev->counter_key[r->ev->n_counter_args], 0);
                      r->ev->n_bad_counter_values++;
                    }
                }
            }
          else if (d == r->events_depth + 3 && (r->arg == A_GRID || r->arg == A_BLOCK) && !is_string)
            set_array_arg (r, s, len);
        }
      else if (r->in_id2 && d == r->events_depth + 2)
        ks_json_field_id (r, s, len);
      return 1;
    }

  if (r->events_depth > 0 && d == r->events_depth)
    {
      r->n_items++;
      r->n_not_object++;
      return 1;
    }
  if (r->gpu_depth > 0 && d == r->gpu_depth + 1)
    {
      ks_json_set_gpu_field (r, is_string, s, len);
      return 1;
    }
  /* distributedInfo's members are top-level values too (kept as metadata) */
  if (r->top_key == K_DISTRIBUTED && d == 2)
    set_distributed_field (r, is_string, s, len);
  if (ks_json_in_top_value (r))
    set_top_value (r, is_string, s, len);
  else if (d == 0)
    r->top = 's';
  return 1;
}

