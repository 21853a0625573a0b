/* ks-json-callbacks.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-json-reader"

/* yajl's callbacks: a small state machine keyed on nesting depth tells
 * an event's own fields from its args and from the top level. An event's
 * fields are the hot path, so they are set here, inline, and everything
 * else goes to ks_json_on_scalar(). */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "ks-json-reader-private.h"

/* Whether @len bytes at @a and @b are equal. Up to 24 bytes by
 * overlapping loads, without a call: against a literal they fold into
 * constants, so that no path through the key callbacks calls memcmp
 * (which would make every call of them save registers), and the short
 * names and categories of the ks_json_intern cache are compared inline too. */
static inline gboolean
same_bytes (const guint8 *a,
            const guint8 *b,
            gsize         len)
{
  if (len > 24)
    return memcmp (a, b, len) == 0;
  if (len > 16)
    return ks_json_load64 (a) == ks_json_load64 (b) && ks_json_load64 (a + 8) == ks_json_load64 (b + 8) &&
           ks_json_load64 (a + len - 8) == ks_json_load64 (b + len - 8);
  if (len >= 8)
    return ks_json_load64 (a) == ks_json_load64 (b) && ks_json_load64 (a + len - 8) == ks_json_load64 (b + len - 8);
  if (len >= 4)
    return ks_json_load32 (a) == ks_json_load32 (b) && ks_json_load32 (a + len - 4) == ks_json_load32 (b + len - 4);
  for (gsize i = 0; i < len; i++)
    if (a[i] != b[i])
      return FALSE;
  return TRUE;
}

static inline gboolean
key_is (const unsigned char *key,
        size_t               len,
        const char          *lit,
        size_t               lit_len)
{
  return len == lit_len && same_bytes (key, (const guint8 *) lit, len);
}

guint32
ks_json_intern (Reader     *r,
                const char *s,
                gsize       len)
{
  guint64 h = len * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  InternSlot *slot;
  guint32 id;
  const char *text;

  if (len >= 8)
    {
      guint64 a = ks_json_load64 ((const guint8 *) s);
      guint64 b = ks_json_load64 ((const guint8 *) s + len - 8);
      guint64 c = ks_json_load64 ((const guint8 *) s + len / 2 - 4);

      h ^= a * G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
      h ^= b * G_GUINT64_CONSTANT (0xc4ceb9fe1a85ec53);
      h ^= c * G_GUINT64_CONSTANT (0x94d049bb133111eb);
    }
  else
    {
      guint64 a = 0;

      memcpy (&a, s, len);
      h ^= a * G_GUINT64_CONSTANT (0xff51afd7ed558ccd);
    }
  h ^= h >> 29;
  slot = &r->intern_cache[(h * G_GUINT64_CONSTANT (0xbf58476d1ce4e5b9)) >> 51];
  if (slot->gen == r->intern_gen && slot->len == len && same_bytes ((const guint8 *) slot->str, (const guint8 *) s, len))
    return slot->id;

  if (!r->text_ascii)
    {
      gsize valid_len = len;
      const char *valid = ks_json_valid_utf8 (r, s, &valid_len);

      /* the cache holds the file's text: not this */
      if (valid != s)
        return G_UNLIKELY (r->chunk != NULL) ? ks_json_chunk_intern (r, valid, valid_len)
                                             : ks_trace_builder_intern_len (r->builder, valid, valid_len);
    }
  /* a parsing worker numbers the strings of its chunk: see ks-json-parallel.c */
  if (G_UNLIKELY (r->chunk != NULL))
    {
      id = ks_json_chunk_intern (r, s, len);
      text = ks_json_chunk_string (r, id);
    }
  else
    {
      id = ks_trace_builder_intern_len (r->builder, s, len);
      text = ks_trace_builder_get_string (r->builder, id);
    }
  /* strings with a NUL inside were cut there: never cache them */
  if (strlen (text) == len)
    {
      slot->str = text;
      slot->len = len;
      slot->id = id;
      slot->gen = r->intern_gen;
    }
  return id;
}

#define KEY_IS(lit) key_is (key, len, lit, sizeof (lit) - 1)


static Field
classify_field (const unsigned char *key,
                size_t               len)
{
  switch (len)
    {
    case 1:
      if (key[0] == 's')
        return F_S;
      break;
    case 2:
      if (KEY_IS ("ph"))
        return F_PH;
      if (KEY_IS ("ts"))
        return F_TS;
      if (KEY_IS ("id"))
        return F_ID;
      if (KEY_IS ("bp"))
        return F_BP;
      break;
    case 3:
      if (KEY_IS ("pid"))
        return F_PID;
      if (KEY_IS ("tid"))
        return F_TID;
      if (KEY_IS ("cat"))
        return F_CAT;
      if (KEY_IS ("dur"))
        return F_DUR;
      if (KEY_IS ("id2"))
        return F_ID2;
      if (KEY_IS ("tts"))
        return F_TTS;
      break;
    case 4:
      if (KEY_IS ("name"))
        return F_NAME;
      if (KEY_IS ("args"))
        return F_ARGS;
      if (KEY_IS ("tdur"))
        return F_TDUR;
      break;
    case 7:
      if (KEY_IS ("bind_id"))
        return F_BIND_ID;
      if (KEY_IS ("flow_in"))
        return F_FLOW_IN;
      break;
    case 8:
      if (KEY_IS ("flow_out"))
        return F_FLOW_OUT;
      break;
    default:
      break;
    }
  return F_OTHER;
}

static Arg
classify_arg (const unsigned char *key,
              size_t               len)
{
  switch (len)
    {
    case 4:
      if (KEY_IS ("grid"))
        return A_GRID;
      if (KEY_IS ("Addr"))
        return A_ADDR;
      if (KEY_IS ("name"))
        return A_NAME;
      break;
    case 5:
      if (KEY_IS ("block"))
        return A_BLOCK;
      if (KEY_IS ("bytes"))
        return A_BYTES;
      if (KEY_IS ("Bytes"))
        return A_MEM_BYTES;
      if (KEY_IS ("value"))
        return A_VALUE;
      break;
    case 6:
      if (KEY_IS ("device"))
        return A_DEVICE;
      if (KEY_IS ("stream"))
        return A_STREAM;
      if (KEY_IS ("labels"))
        return A_LABELS;
      break;
    case 9:
      if (KEY_IS ("Device Id"))
        return A_DEVICE_ID;
      if (KEY_IS ("direction"))
        return A_DIRECTION;
      break;
    case 10:
      if (KEY_IS ("sort_index"))
        return A_SORT_INDEX;
      break;
    case 11:
      if (KEY_IS ("External id") || KEY_IS ("external id"))
        return A_EXTERNAL_ID;
      if (KEY_IS ("correlation"))
        return A_CORRELATION;
      if (KEY_IS ("Device Type"))
        return A_DEVICE_TYPE;
      break;
    case 13:
      if (KEY_IS ("shared memory"))
        return A_SHARED_MEMORY;
      break;
    case 14:
      if (KEY_IS ("Total Reserved"))
        return A_TOTAL_RESERVED;
      break;
    case 15:
      if (KEY_IS ("Total Allocated"))
        return A_TOTAL_ALLOCATED;
      break;
    case 20:
      if (KEY_IS ("registers per thread"))
        return A_REGISTERS;
      break;
    default:
      break;
    }
  return A_OTHER;
}

static GpuField
classify_gpu_field (const unsigned char *key,
                    size_t               len)
{
  static const struct { const char *key; GpuField field; } map[] = {
    { "id", G_ID }, { "name", G_NAME }, { "totalGlobalMem", G_TOTAL_MEM },
    { "computeMajor", G_MAJOR }, { "computeMinor", G_MINOR },
    { "maxThreadsPerBlock", G_MAX_THREADS_BLOCK },
    { "maxThreadsPerMultiprocessor", G_MAX_THREADS_SM },
    { "regsPerBlock", G_REGS_BLOCK }, { "regsPerMultiprocessor", G_REGS_SM },
    { "warpSize", G_WARP }, { "sharedMemPerBlock", G_SHMEM_BLOCK },
    { "sharedMemPerMultiprocessor", G_SHMEM_SM }, { "numSms", G_NUM_SMS },
  };

  for (guint i = 0; i < G_N_ELEMENTS (map); i++)
    if (key_is (key, len, map[i].key, strlen (map[i].key)))
      return map[i].field;
  return G_OTHER;
}

/* The values of an event's own fields, one out-of-line function each:
 * set_event_field() then only tail-calls, and the yajl callbacks that
 * inline it save no registers on their way. They return 1 for yajl. */
void
ks_json_ident_set_text (Reader     *r,
                        Ident      *id,
                        const char *s,
                        gsize       len)
{
  gint64 v;

  id->set = TRUE;
  if (ks_json_parse_int64 (s, len, &v))
    {
      id->is_string = FALSE;
      id->num = v;
    }
  else
    {
      id->is_string = TRUE;
      g_string_truncate (id->str, 0);
      ks_json_append_valid_utf8 (r, id->str, s, len);
    }
}

static G_GNUC_NO_INLINE int
field_name (Reader     *r,
            const char *s,
            gsize       len)
{
  Event *ev = r->ev;

  ev->name = ks_json_intern (r, s, len);
  if (len >= 6 && s[0] == 'M' && s[1] == 'e' && s[2] == 'm')
    ks_json_parse_copy_name (ev, s, len);
  else if (len >= 3 && s[0] == 'd' && s[1] == 'm' && s[2] == 'a')
    ev->name_hint = NAME_HINT_DMA;
  else if (len == 10 && memcmp (s, "event_wait", 10) == 0)
    ev->name_hint = NAME_HINT_EVENT_WAIT;
  else if (len == 8 && memcmp (s, "[memory]", 8) == 0)
    ev->name_special = NAME_MEMORY;
  else if (len == 12 && memcmp (s, "process_name", 12) == 0)
    ev->name_special = NAME_PROCESS_NAME;
  else if (len == 14 && memcmp (s, "process_labels", 14) == 0)
    ev->name_special = NAME_PROCESS_LABELS;
  else if (len == 18 && memcmp (s, "process_sort_index", 18) == 0)
    ev->name_special = NAME_PROCESS_SORT_INDEX;
  else if (len == 11 && memcmp (s, "thread_name", 11) == 0)
    ev->name_special = NAME_THREAD_NAME;
  else if (len == 17 && memcmp (s, "thread_sort_index", 17) == 0)
    ev->name_special = NAME_THREAD_SORT_INDEX;
  return 1;
}

G_STATIC_ASSERT (KS_N_SLICE_KINDS <= CAT_KIND_MASK && FLOW_CAT_ASYNC << CAT_FLOW_SHIFT < CAT_BY_NAME);

static G_GNUC_NO_INLINE int
field_cat (Reader     *r,
           const char *s,
           gsize       len)
{
  Event *ev = r->ev;

  ev->cat = ks_json_intern (r, s, len);
  /* kind_by_cat: the kind + 1, with CAT_BY_NAME when the name decides
   * and the FLOW_CAT_* of its flows */
  if (ev->cat < r->kind_by_cat->len && r->kind_by_cat->data[ev->cat] != 0)
    {
      guint8 v = r->kind_by_cat->data[ev->cat];

      ev->kind = (v & CAT_KIND_MASK) - 1;
      ev->device_by_name = (v & CAT_BY_NAME) != 0;
      ev->flow_cat = (v & ~CAT_BY_NAME) >> CAT_FLOW_SHIFT;
    }
  else
    {
      gboolean kineto = FALSE;

      ev->kind = ks_json_kind_from_category (s, len, &kineto);
      ev->device_by_name = ks_json_category_kind_by_name (s, len);
      ev->flow_cat = ks_json_flow_category (s, len);
      if (kineto)
        r->kineto = TRUE;
      if (ev->cat >= r->kind_by_cat->len)
        {
          guint old = r->kind_by_cat->len;

          g_byte_array_set_size (r->kind_by_cat, ev->cat + 1);
          memset (r->kind_by_cat->data + old, 0, r->kind_by_cat->len - old);
        }
      r->kind_by_cat->data[ev->cat] = (ev->kind + 1) | ev->flow_cat << CAT_FLOW_SHIFT |
                                      (ev->device_by_name ? CAT_BY_NAME : 0);
    }
  return 1;
}

static G_GNUC_NO_INLINE int
field_ident (Reader     *r,
             Ident      *id,
             const char *s,
             gsize       len)
{
  ks_json_ident_set_text (r, id, s, len);
  return 1;
}

static G_GNUC_NO_INLINE int
field_time (Event      *ev,
            gboolean   *has,
            gint64     *to,
            const char *s,
            gsize       len)
{
  if (ks_json_parse_us (s, len, to))
    *has = TRUE;
  else
    ev->bad_ts = TRUE;
  return 1;
}

/* A field kept as text: "id", "bind_id" */
static G_GNUC_NO_INLINE int
field_text (Reader     *r,
            gboolean   *has,
            GString    *to,
            const char *s,
            gsize       len)
{
  *has = TRUE;
  g_string_truncate (to, 0);
  ks_json_append_valid_utf8 (r, to, s, len);
  return 1;
}

/* Thread time: a value that does not read is left out, the event kept */
static G_GNUC_NO_INLINE int
field_thread_time (gboolean   *has,
                   gint64     *to,
                   const char *s,
                   gsize       len)
{
  *has = ks_json_parse_us (s, len, to);
  return 1;
}

int
ks_json_field_id (Reader     *r,
                  const char *s,
                  gsize       len)
{
  return field_text (r, &r->ev->has_id, r->ev->id, s, len);
}

/* Inlined into cb_number() and cb_string() whatever its size: it is the
 * path of every field of every event. */
static inline G_ALWAYS_INLINE int
set_event_field (Reader     *r,
                 gboolean    is_string,
                 const char *s,
                 gsize       len)
{
  Event *ev = r->ev;

  switch (r->field)
    {
    case F_PH:
      if (is_string && len >= 1)
        ev->ph = s[0];
      return 1;

    case F_NAME:
      return is_string ? field_name (r, s, len) : 1;

    case F_CAT:
      return is_string ? field_cat (r, s, len) : 1;

    case F_PID:
      return field_ident (r, &ev->pid, s, len);

    case F_TID:
      return field_ident (r, &ev->tid, s, len);

    case F_TS:
      return field_time (ev, &ev->has_ts, &ev->ts, s, len);

    case F_DUR:
      return field_time (ev, &ev->has_dur, &ev->dur, s, len);

    case F_TTS:
      return field_thread_time (&ev->has_tts, &ev->tts, s, len);

    case F_TDUR:
      return field_thread_time (&ev->has_tdur, &ev->tdur, s, len);

    case F_ID:
      return field_text (r, &ev->has_id, ev->id, s, len);

    case F_BIND_ID:
      return field_text (r, &ev->has_bind_id, ev->bind_id, s, len);

    case F_BP:
      if (is_string && len >= 1)
        ev->bp = s[0];
      return 1;

    case F_S:
      if (is_string && len >= 1)
        ev->scope = s[0];
      return 1;

    case F_FLOW_IN:
    case F_FLOW_OUT:
    case F_ID2:
    case F_ARGS:
    case F_OTHER:
    default:
      return 1;
    }
}

static int
literal (Reader     *r,
         const char *text)
{
  if (r->events_depth > 0 && !r->in_event && r->depth == r->events_depth)
    {
      r->n_items++;
      r->n_not_object++;
    }
  else if (r->depth == 0)
    r->top = 's';
  else if (ks_json_in_top_value (r))
    ks_json_top_value (r, text, strlen (text));
  else if (r->in_args && r->depth == r->events_depth + 2 && (r->ev->ph == 'C' || r->ev->ph == 0) &&
           r->ev->n_counter_args < MAX_COUNTER_ARGS)
    r->ev->n_bad_counter_values++;   /* a counter's true or null: no value */
  return 1;
}

static int
cb_null (void *ctx)
{
  return literal (ctx, "null");
}

static int
cb_boolean (void *ctx,
            int   value)
{
  Reader *r = ctx;

  if (r->in_event && r->depth == r->events_depth + 1)
    {
      if (r->field == F_FLOW_IN)
        r->ev->flow_in = value != 0;
      else if (r->field == F_FLOW_OUT)
        r->ev->flow_out = value != 0;
    }
  return literal (r, value ? "true" : "false");
}

/* Most values of a trace lie in arguments nothing reads (input shapes,
 * sequence numbers): they are only copied with the argument text. */
static inline gboolean
scalar_unused (const Reader *r)
{
  return r->in_args && r->arg == A_OTHER && r->ev->ph != 'C' && r->ev->ph != 0;
}

/* While scalar_unused() holds, mute_scalars() has taken these two off
 * yajl's table: they are called for values somebody reads. */
static int
cb_number (void       *ctx,
           const char *s,
           size_t      len)
{
  Reader *r = ctx;

  if (G_LIKELY (r->in_event) && r->depth == r->events_depth + 1)
    return set_event_field (r, FALSE, s, len);
  return ks_json_on_scalar (r, FALSE, s, len);
}

static int
cb_string (void                *ctx,
           const unsigned char *s,
           size_t               len)
{
  Reader *r = ctx;

  if (G_LIKELY (r->in_event) && r->depth == r->events_depth + 1)
    return set_event_field (r, TRUE, (const char *)s, len);
  return ks_json_on_scalar (r, TRUE, (const char *)s, len);
}

/* Scalars under an argument key nothing reads need no callback at all:
 * yajl skips a NULL one (and does not even decode such a string). yajl
 * keeps a pointer to r->cbs, so this takes effect at the next token. */
static int cb_start_array (void *ctx);
static int cb_end_array (void *ctx);

static inline void
mute_scalars (Reader   *r,
              gboolean  mute)
{
  if (mute == r->scalars_muted)
    return;
  r->scalars_muted = mute;
  r->cbs.yajl_null = mute ? NULL : cb_null;
  r->cbs.yajl_boolean = mute ? NULL : cb_boolean;
  r->cbs.yajl_number = mute ? NULL : cb_number;
  r->cbs.yajl_string = mute ? NULL : cb_string;
  r->cbs.yajl_start_array = mute ? NULL : cb_start_array;
  r->cbs.yajl_end_array = mute ? NULL : cb_end_array;
}

/* Keys of counter arguments are kept with their values. Out of line, like
 * the keys outside events, so that the hot path of cb_map_key() saves no
 * registers. */
static G_GNUC_NO_INLINE int
keep_counter_key (Reader              *r,
                  const unsigned char *key,
                  size_t               len)
{
  GString *k = r->ev->counter_key[r->ev->n_counter_args];

  g_string_truncate (k, 0);
  ks_json_append_valid_utf8 (r, k, (const char *)key, len);
  return 1;
}

static G_GNUC_NO_INLINE int
top_map_key (Reader              *r,
             const unsigned char *key,
             size_t               len)
{
  int d = r->depth;

  if (r->gpu_depth > 0 && d == r->gpu_depth + 1)
    r->gpu_field = classify_gpu_field (key, len);
  else if (ks_json_in_top_value (r) && d > 1)
    {
      if (r->top_key == K_DISTRIBUTED && d == 2)
        r->dist_field = ks_json_classify_distributed (key, len);
      ks_json_top_key (r, (const char *)key, len);
    }
  else if (r->top == '{' && d == 1)
    {
      ks_json_top_key (r, (const char *)key, len);
      if (key_is (key, len, "traceEvents", 11))
        r->top_key = K_TRACE_EVENTS;
      else if (key_is (key, len, "deviceProperties", 16) || key_is (key, len, "computeProperties", 17))
        {
          r->top_key = K_DEVICE_PROPERTIES;
          r->kineto = TRUE;
        }
      else if (key_is (key, len, "baseTimeNanoseconds", 19))
        {
          r->top_key = K_BASE_TIME;
          r->kineto = TRUE;
        }
      else if (key_is (key, len, "distributedInfo", 15))
        r->top_key = K_DISTRIBUTED;
      else if (key_is (key, len, "schemaVersion", 13))
        {
          r->top_key = K_KINETO_HINT;
          r->kineto = TRUE;
        }
      else
        r->top_key = K_OTHER;
    }
  return 1;
}

static int
cb_map_key (void                *ctx,
            const unsigned char *key,
            size_t               len)
{
  Reader *r = ctx;
  int d = r->depth;

  if (G_UNLIKELY (!r->in_event))
    return top_map_key (r, key, len);
  if (d == r->events_depth + 1)
    {
      r->field = classify_field (key, len);
      r->ev->any_key = TRUE;
    }
  else if (r->in_args && d == r->events_depth + 2)
    {
      r->arg = classify_arg (key, len);
      mute_scalars (r, scalar_unused (r));
      if (G_UNLIKELY (r->ev->ph == 'C' || r->ev->ph == 0) && r->ev->n_counter_args < MAX_COUNTER_ARGS)
        return keep_counter_key (r, key, len);
    }
  else if (G_UNLIKELY (r->in_id2) && d == r->events_depth + 2)
    r->ev->id_local = key_is (key, len, "local", 5);
  return 1;
}


static gboolean
check_depth (Reader *r)
{
  if (r->depth >= MAX_NESTING)
    {
      /* where: see ks_json_relocate_error() */
      r->nesting_error = TRUE;
      r->syntax_offset = ks_json_current_offset (r);
      ks_json_reader_fail (r, _("JSON nested deeper than %d levels"), MAX_NESTING);
      return FALSE;
    }
  return TRUE;
}

static int
cb_start_map (void *ctx)
{
  Reader *r = ctx;
  int d = r->depth;

  if (!check_depth (r))
    return 0;
  r->depth++;

  if (d == 0)
    {
      r->top = '{';
      return 1;
    }

  if (r->in_event)
    {
      if (d == r->events_depth + 1)
        {
          if (r->field == F_ARGS)
            {
              gsize consumed = yajl_get_bytes_consumed (r->yajl);

              r->in_args = TRUE;
              r->args_ascii = r->text_ascii;
              r->ev->has_args = TRUE;
              r->arg = A_OTHER;
              g_string_truncate (r->args, 0);
              r->args_from = consumed > 0 ? consumed - 1 : 0;
              r->args_overflow = FALSE;
              r->args_direct = NULL;
            }
          else if (r->field == F_ID2)
            r->in_id2 = TRUE;
        }
      return 1;
    }

  if (r->events_depth > 0 && d == r->events_depth)
    {
      r->in_event = TRUE;
      r->field = F_OTHER;
      r->args_direct = NULL;
      mute_scalars (r, FALSE);
      r->n_items++;
      ks_json_event_reset (r->ev);
      return 1;
    }

  if (ks_json_in_top_value (r))
    {
      ks_json_top_container (r, FALSE);
      return 1;
    }

  if (r->gpu_depth > 0 && d == r->gpu_depth)
    {
      memset (&r->gpu, 0, sizeof r->gpu);
      r->gpu.device = -1;
      r->gpu_field = G_OTHER;
    }
  return 1;
}

/* The top-level value closed: what follows it is not read (see
 * ks-json-source.c), only counted. */
static inline void
top_closed (Reader *r)
{
  if (r->depth == 0 && r->chunk == NULL)
    {
      r->value_done = TRUE;
      r->value_end = ks_json_current_offset (r);
    }
}

static int
cb_end_map (void *ctx)
{
  Reader *r = ctx;
  int d;

  r->depth--;
  d = r->depth;
  top_closed (r);

  if (r->in_event)
    {
      if (d == r->events_depth)
        {
          r->in_event = FALSE;
          if (G_UNLIKELY (r->chunk != NULL))
            ks_json_chunk_keep_event (r);
          else
            ks_json_handle_event (r);
          if (r->error != NULL)
            return 0;
        }
      else if (d == r->events_depth + 1)
        {
          if (r->in_args)
            {
              gsize consumed = yajl_get_bytes_consumed (r->yajl);

              mute_scalars (r, FALSE);
              /* usually the whole text lies in this block: used from
               * there unless the block ends before the event does */
              if (r->args->len == 0 && !r->args_overflow && consumed > r->args_from
                  && consumed - r->args_from <= MAX_ARGS_LEN)
                {
                  r->args_direct = (const char *)r->buf + r->args_from;
                  r->args_direct_len = consumed - r->args_from;
                }
              else if (consumed > r->args_from)
                ks_json_args_append (r, r->buf + r->args_from, consumed - r->args_from);
              r->in_args = FALSE;
            }
          r->in_id2 = FALSE;
        }
      return 1;
    }

  if (r->gpu_depth > 0 && d == r->gpu_depth && r->gpu.device >= 0)
    ks_json_remember_gpu (r);
  return 1;
}

static int
cb_start_array (void *ctx)
{
  Reader *r = ctx;
  int d = r->depth;

  if (!check_depth (r))
    return 0;
  r->depth++;

  if (d == 0)
    {
      r->top = '[';
      r->events_depth = 1;
      r->saw_events = TRUE;
      return 1;
    }

  if (r->in_event)
    {
      if (r->in_args && d == r->events_depth + 2)
        r->arg_index = 0;
      return 1;
    }

  if (r->events_depth > 0 && d == r->events_depth)
    {
      /* an array where an event should be */
      r->n_items++;
      r->n_not_object++;
      return 1;
    }

  if (r->top == '{' && d == 1)
    {
      if (r->top_key == K_TRACE_EVENTS && r->events_depth == 0)
        {
          r->events_depth = 2;
          r->saw_events = TRUE;
          return 1;
        }
      else if (r->top_key == K_DEVICE_PROPERTIES && r->gpu_depth == 0)
        {
          r->gpu_depth = 2;
          return 1;
        }
    }
  if (ks_json_in_top_value (r))
    ks_json_top_container (r, TRUE);
  return 1;
}

static int
cb_end_array (void *ctx)
{
  Reader *r = ctx;
  int d;

  r->depth--;
  d = r->depth;
  top_closed (r);

  if (!r->in_event)
    {
      if (r->events_depth > 0 && d == r->events_depth - 1)
        {
          r->events_depth = 0;
          if (G_UNLIKELY (r->chunk != NULL))
            return ks_json_chunk_events_end (r);
        }
      if (r->gpu_depth > 0 && d == r->gpu_depth - 1)
        r->gpu_depth = 0;
    }
  return 1;
}

const yajl_callbacks ks_json_callbacks = {
  cb_null,
  cb_boolean,
  NULL,
  NULL,
  cb_number,
  cb_string,
  cb_start_map,
  cb_map_key,
  cb_end_map,
  cb_start_array,
  cb_end_array,
};
