/* ks-sqlite-private.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <string.h>

#include "ks-kscope-schema.h"
#include "ks-trace.h"

G_BEGIN_DECLS

/* Conventions shared by the .kscope writer and the SQLite reader, so that
 * what one writes the other reads back the same. */

/* CUPTI's "no stream" (CUPTI_SYNCHRONIZATION_INVALID_VALUE); -1 in the model. */
#define KS_NSYS_NO_STREAM G_GINT64_CONSTANT (0xffffffff)

/* NVTX_EVENTS.eventType values (ENUM_NSYS_EVENT_TYPE). */
enum {
  KS_NSYS_NVTX_CATEGORY = 33,
  KS_NSYS_NVTX_MARK = 34,
  KS_NSYS_NVTX_THREAD = 39,
  KS_NSYS_NVTX_PUSH_POP = 59,
  KS_NSYS_NVTX_START_END = 60,
  KS_NSYS_NVTXT_MARK = 65,
  KS_NSYS_NVTXT_PUSH_POP = 70,
  KS_NSYS_NVTXT_START_END = 71,
  KS_NSYS_NVTX_DOMAIN_CREATE = 75,
};

/* CUPTI_ACTIVITY_KIND_RUNTIME / OSRT_API eventClass (ENUM_NSYS_EVENT_CLASS). */
enum {
  KS_NSYS_CLASS_CUDA_RUNTIME = 0,
  KS_NSYS_CLASS_CUDA_DRIVER = 1,
  KS_NSYS_CLASS_OSRT = 27,
};

/* The category a slice gets when its table says nothing more. */
static inline const char *
ks_sqlite_default_category (KsSliceKind kind)
{
  switch (kind)
    {
    case KS_SLICE_CUDA_RUNTIME: return "cuda_runtime";
    case KS_SLICE_CUDA_DRIVER:  return "cuda_driver";
    case KS_SLICE_KERNEL:       return "kernel";
    case KS_SLICE_MEMCPY:       return "gpu_memcpy";
    case KS_SLICE_MEMSET:       return "gpu_memset";
    case KS_SLICE_SYNC:         return "cuda_sync";
    case KS_SLICE_OSRT:         return "osrt";
    case KS_SLICE_NVTX:         return "nvtx";
    case KS_SLICE_GENERIC:
    case KS_SLICE_CPU_OP:
    case KS_SLICE_PYTHON:
    case KS_SLICE_USER_ANNOTATION:
    case KS_SLICE_ASYNC:
    case KS_SLICE_GPU_ANNOTATION:
    case KS_SLICE_SAMPLE:
    case KS_N_SLICE_KINDS:
    default:                    return "";
    }
}

static inline guint8
ks_sqlite_copy_kind_from_nsys (gint64 kind)
{
  switch (kind)
    {
    case 11: return KS_COPY_HTOD;  /* unified memory migrations */
    case 12: return KS_COPY_DTOH;
    case 13: return KS_COPY_DTOD;
    default:
      return kind >= 0 && kind <= KS_COPY_PTOP ? (guint8)kind : KS_COPY_UNKNOWN;
    }
}

/* ENUM_CUPTI_SYNC_TYPE, named as the PyTorch profiler names them. */
static const char * const ks_sqlite_sync_names[] = {
  "Sync", "Event Sync", "Stream Wait Event", "Stream Sync", "Context Sync",
};

static inline const char *
ks_sqlite_sync_name (gint64 type)
{
  if (type < 0 || type >= (gint64)G_N_ELEMENTS (ks_sqlite_sync_names))
    return ks_sqlite_sync_names[0];
  return ks_sqlite_sync_names[type];
}

static inline gint64
ks_sqlite_sync_type (const char *name)
{
  for (guint i = 1; i < G_N_ELEMENTS (ks_sqlite_sync_names); i++)
    if (strcmp (name, ks_sqlite_sync_names[i]) == 0)
      return i;
  return 0;
}

/* "Memcpy HtoD (Pageable -> Device)", as the PyTorch profiler writes it. */
static inline char *
ks_sqlite_memcpy_name (const KsGpuInfo *info)
{
  return g_strdup_printf ("Memcpy %s (%s -> %s)",
                          ks_copy_kind_to_string (info->copy.copy_kind),
                          ks_memory_kind_to_string (info->copy.src_kind),
                          ks_memory_kind_to_string (info->copy.dst_kind));
}

static inline char *
ks_sqlite_memset_name (const KsGpuInfo *info)
{
  return g_strdup_printf ("Memset (%s)", ks_memory_kind_to_string (info->copy.dst_kind));
}

static const char * const ks_sqlite_track_kinds[KS_N_TRACK_KINDS] = {
  [KS_TRACK_THREAD] = "thread",
  [KS_TRACK_NVTX] = "nvtx",
  [KS_TRACK_ASYNC] = "async",
  [KS_TRACK_STREAM] = "stream",
  [KS_TRACK_GPU_ANNOTATION] = "gpu_annotation",
  [KS_TRACK_SAMPLES] = "samples",
};

G_END_DECLS
