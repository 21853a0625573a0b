/* ks-json-kineto.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-json-reader"

/* The PyTorch Profiler (Kineto) dialect of the trace-event format: what a
 * category says about a slice, the copy and memory kinds in memcpy and
 * memset names, GPU stream tracks, and the deviceProperties list. */

#include "config.h"

#include <string.h>

#include "ks-json-reader-private.h"

/* Memcpy/memset names carry the copy and memory kinds:
 * "Memcpy HtoD (Pageable -> Device)", "Memset (Device)". */
static guint8
memory_kind_from_text (const char *s,
                       gsize       len)
{
  static const struct { const char *name; guint8 kind; } kinds[] = {
    { "Pageable", KS_MEM_PAGEABLE },
    { "Pinned", KS_MEM_PINNED },
    { "Device Static", KS_MEM_DEVICE_STATIC },
    { "Device", KS_MEM_DEVICE },
    { "Array", KS_MEM_ARRAY },
    { "Managed Static", KS_MEM_MANAGED_STATIC },
    { "Managed", KS_MEM_MANAGED },
  };

  while (len > 0 && s[0] == ' ')
    s++, len--;
  while (len > 0 && s[len - 1] == ' ')
    len--;
  for (guint i = 0; i < G_N_ELEMENTS (kinds); i++)
    if (strlen (kinds[i].name) == len && memcmp (kinds[i].name, s, len) == 0)
      return kinds[i].kind;
  return KS_MEM_UNKNOWN;
}

void
ks_json_parse_copy_name (Event      *ev,
                         const char *s,
                         gsize       len)
{
  static const char *copy_kinds[] = {
    NULL, "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP",
  };
  const char *open, *close, *arrow;
  gsize pos;

  if (len >= 11 && memcmp (s, "Memcpy ", 7) == 0)
    {
      for (guint k = 1; k < G_N_ELEMENTS (copy_kinds); k++)
        if (memcmp (s + 7, copy_kinds[k], 4) == 0)
          {
            ev->copy_kind = k;
            break;
          }
    }
  else if (!(len >= 6 && memcmp (s, "Memset", 6) == 0))
    return;

  open = memchr (s, '(', len);
  if (open == NULL)
    return;
  pos = open - s + 1;
  close = memchr (open, ')', len - (open - s));
  if (close == NULL)
    return;
  arrow = g_strstr_len (open, close - open, "->");
  if (arrow != NULL)
    {
      ev->src_kind = memory_kind_from_text (s + pos, arrow - (s + pos));
      ev->dst_kind = memory_kind_from_text (arrow + 2, close - (arrow + 2));
    }
  else
    ev->dst_kind = memory_kind_from_text (s + pos, close - (s + pos));
}

KsSliceKind
ks_json_kind_from_category (const char *cat,
                            gsize       len,
                            gboolean   *kineto)
{
  static const struct { const char *cat; KsSliceKind kind; } map[] = {
    { "cpu_op", KS_SLICE_CPU_OP },
    { "python_function", KS_SLICE_PYTHON },
    { "user_annotation", KS_SLICE_USER_ANNOTATION },
    { "cuda_runtime", KS_SLICE_CUDA_RUNTIME },
    { "cuda_driver", KS_SLICE_CUDA_DRIVER },
    { "gpu_user_annotation", KS_SLICE_GPU_ANNOTATION },
    { "kernel", KS_SLICE_KERNEL },
    { "gpu_memcpy", KS_SLICE_MEMCPY },
    { "gpu_memset", KS_SLICE_MEMSET },
    { "cuda_sync", KS_SLICE_SYNC },
    { "osrt", KS_SLICE_OSRT },
    /* Meta's MTIA accelerator: the runtime calls that launch work, and the
     * device's own work, which HTA counts as GPU kernels (its
     * KERNEL_CATEGORY_PATTERN); ks_json_device_kind() sorts the latter. */
    { "mtia_runtime", KS_SLICE_CUDA_RUNTIME },
    { "mtia_ccp_events", KS_SLICE_KERNEL },
    /* CUPTI range profiler measurements: rows of their own, never GPU
     * work (the ranges are kernel replays, not the kernels' timing) */
    { "cuda_profiler_range", KS_SLICE_ASYNC },
    /* PyTorch 1.8/1.9 names */
    { "Operator", KS_SLICE_CPU_OP },
    { "Runtime", KS_SLICE_CUDA_RUNTIME },
    { "Kernel", KS_SLICE_KERNEL },
    { "Memcpy", KS_SLICE_MEMCPY },
    { "Memset", KS_SLICE_MEMSET },
  };

  for (guint i = 0; i < G_N_ELEMENTS (map); i++)
    if (strlen (map[i].cat) == len && memcmp (map[i].cat, cat, len) == 0)
      {
        *kineto = TRUE;
        return map[i].kind;
      }
  return KS_SLICE_GENERIC;
}

/* An MTIA device event's kind from its name: "dma_request" (HTA's memory
 * kernels, `^dma`) is a copy, "event_wait" a wait on another stream (as
 * CUDA's "Stream Wait Event", kept out of busy time); the rest run code. */
KsSliceKind
ks_json_device_kind (const Event *ev)
{
  switch (ev->name_hint)
    {
    case NAME_HINT_DMA: return KS_SLICE_MEMCPY;
    case NAME_HINT_EVENT_WAIT: return KS_SLICE_SYNC;
    default: return KS_SLICE_KERNEL;
    }
}

gboolean
ks_json_category_kind_by_name (const char *cat,
                               gsize       len)
{
  return len == 15 && memcmp (cat, "mtia_ccp_events", 15) == 0;
}

/* MTIA's "direction" of a DMA request; the two the traces write. */
guint8
ks_json_copy_kind_from_direction (const char *s,
                                  gsize       len)
{
  if (len == 14 && memcmp (s, "HOST_TO_DEVICE", 14) == 0)
    return KS_COPY_HTOD;
  if (len == 14 && memcmp (s, "DEVICE_TO_HOST", 14) == 0)
    return KS_COPY_DTOH;
  return KS_COPY_UNKNOWN;
}

/* Flows that Kineto writes for CPU launch -> GPU work: implied by the
 * correlation ids, so not stored. Read from the category's text as the
 * model keeps it, up to a NUL in it; found once per category as the
 * category is read (on a worker in a parallel read), and the replay
 * only tests the result. */
guint8
ks_json_flow_category (const char *cat,
                       gsize       len)
{
  len = strnlen (cat, len);
  if ((len == 4 && memcmp (cat, "ac2g", 4) == 0) ||
      (len == 16 && memcmp (cat, "async_cpu_to_gpu", 16) == 0) ||
      (len == 9 && memcmp (cat, "async_gpu", 9) == 0))
    return FLOW_CAT_LAUNCH;
  if (len == 5 && memcmp (cat, "async", 5) == 0)
    return FLOW_CAT_ASYNC;
  return FLOW_CAT_OTHER;
}

/* The GPU row of a device event: its kind (1: annotations), device and
 * stream, from the event alone. */
void
ks_json_gpu_key (const Event *ev,
                 KsSliceKind  kind,
                 int         *kind_out,
                 gint64      *device_out,
                 gint64      *stream_out)
{
  gint64 device, stream;

  /* Kineto puts the device in "pid" and the stream in "tid" as well as
   * in args; annotations only have the former. */
  if (ev->has_device)
    device = ev->device;
  else if (ev->pid.set && !ev->pid.is_string)
    device = ev->pid.num;
  else
    device = 0;

  if (ev->has_stream)
    stream = ev->stream;
  else if (ev->tid.set && !ev->tid.is_string)
    stream = ev->tid.num;
  else if (ev->tid.set)
    {
      /* "stream 7" */
      const char *s = ev->tid.str->str;
      const char *digits = s + strcspn (s, "0123456789");

      stream = *digits ? g_ascii_strtoll (digits, NULL, 10) : 0;
    }
  else
    stream = 0;

  if (device < -1 || device > G_MAXINT16)
    device = -1;
  /* device-wide synchronisation: CUPTI's stream id -1 written unsigned */
  if (stream == G_MAXUINT32)
    stream = -1;
  *kind_out = kind == KS_SLICE_GPU_ANNOTATION ? 1 : 0;
  *device_out = device;
  *stream_out = stream;
}

guint32
ks_json_gpu_track (Reader      *r,
                   KsSliceKind  kind)
{
  gint64 device, stream;
  int track_kind;

  ks_json_gpu_key (r->ev, kind, &track_kind, &device, &stream);
  if (r->cache_gpu_kind == track_kind && r->cache_gpu_device == device && r->cache_gpu_stream == stream)
    return r->cache_gpu_track;

  r->cache_gpu_kind = track_kind;
  r->cache_gpu_device = device;
  r->cache_gpu_stream = stream;
  if (track_kind)
    r->cache_gpu_track = ks_trace_builder_get_gpu_annotation_track (r->builder, (gint32)device, stream);
  else
    r->cache_gpu_track = ks_trace_builder_get_stream_track (r->builder, (gint32)device, stream);
  return r->cache_gpu_track;
}

void
ks_json_set_gpu_field (Reader     *r,
                       gboolean    is_string,
                       const char *s,
                       gsize       len)
{
  gint64 v = 0;
  gboolean is_int = !is_string && ks_json_parse_int64 (s, len, &v);

  if (r->gpu_field == G_NAME)
    {
      if (is_string)
        r->gpu.name = ks_json_intern (r, s, len);
      return;
    }
  if (!is_int)
    return;

  switch (r->gpu_field)
    {
    case G_ID: r->gpu.device = (gint32)CLAMP (v, -1, G_MAXINT32); break;
    case G_TOTAL_MEM: r->gpu.total_memory = v > 0 ? (guint64)v : 0; break;
    case G_MAJOR: r->gpu.compute_major = to_u32 (v); break;
    case G_MINOR: r->gpu.compute_minor = to_u32 (v); break;
    case G_MAX_THREADS_BLOCK: r->gpu.max_threads_per_block = to_u32 (v); break;
    case G_MAX_THREADS_SM: r->gpu.max_threads_per_sm = to_u32 (v); break;
    case G_REGS_BLOCK: r->gpu.registers_per_block = to_u32 (v); break;
    case G_REGS_SM: r->gpu.registers_per_sm = to_u32 (v); break;
    case G_WARP: r->gpu.warp_size = to_u32 (v); break;
    case G_SHMEM_BLOCK: r->gpu.shared_memory_per_block = to_u32 (v); break;
    case G_SHMEM_SM: r->gpu.shared_memory_per_sm = to_u32 (v); break;
    case G_NUM_SMS: r->gpu.sm_count = to_u32 (v); break;
    case G_NAME:
    case G_OTHER:
    default:
      break;
    }
}
/* GPUs go to the builder once each, in device order, when the load ends:
 * a file may describe thousands, and repeat them. */
void
ks_json_remember_gpu (Reader *r)
{
  gpointer key = GINT_TO_POINTER (r->gpu.device);
  guint index = GPOINTER_TO_UINT (g_hash_table_lookup (r->gpu_index, key));

  if (index != 0)
    g_array_index (r->gpus, KsGpu, index - 1) = r->gpu;
  else
    {
      g_array_append_val (r->gpus, r->gpu);
      g_hash_table_insert (r->gpu_index, key, GUINT_TO_POINTER (r->gpus->len));
    }
}

int
ks_json_compare_gpu_devices (gconstpointer a,
                             gconstpointer b)
{
  const KsGpu *ga = a, *gb = b;

  return (ga->device > gb->device) - (ga->device < gb->device);
}
