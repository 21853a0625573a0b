/* ks-kscope-writer-events.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The trace's events: GPU activity bound to its launching process,
 * tracks, slices, flows, counters, memory events and instants. */

#define G_LOG_DOMAIN "ks-kscope-writer"

#include "config.h"

#include <sqlite3.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ks-kscope-conventions.h"
#include "ks-kscope-writer-private.h"
#include "ks-sqlite-private.h"

static inline gboolean
is_cuda_api (guint8 kind)
{
  return kind == KS_SLICE_CUDA_RUNTIME || kind == KS_SLICE_CUDA_DRIVER;
}

/* Which process launched each GPU activity, and how many of the trace's
 * flows are the launch flows that correlation ids give back on reading
 * (the builder's linking rule, replayed). */
void
ks_kscope_writer_assign_launchers (Writer *w)
{
  KsTrace *trace = w->trace;
  g_autoptr(GHashTable) first_gpu = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr(GArray) keys = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autofree guint32 *first_process = g_new (guint32, MAX (trace->n_tracks, 1));
  g_autoptr(GHashTable) group_process = g_hash_table_new (g_direct_hash, g_direct_equal);
  guint32 implied = 0;

  w->launcher = g_new0 (guint32 *, MAX (trace->n_tracks, 1));
  w->track_gpid = g_new (gint64, MAX (trace->n_tracks, 1));

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      first_process[t] = KS_NO_INDEX;
      w->track_gpid[t] = track->process != KS_NO_INDEX ? w->process_gpid[track->process] : -1;

      if (track->kind != KS_TRACK_STREAM)
        continue;

      w->launcher[t] = g_new (guint32, MAX (track->n_slices, 1));
      for (guint32 i = 0; i < track->n_slices; i++)
        {
          w->launcher[t][i] = KS_NO_INDEX;
          if (track->correlation[i] != 0)
            {
              gint64 key = ((gint64)track->group << 32) | track->correlation[i];
              g_array_append_val (keys, key);
            }
        }
    }

  /* Keys live in @keys; fill the hash after the array stops moving. */
  for (guint k = 0; k < keys->len; k++)
    g_hash_table_insert (first_gpu, &g_array_index (keys, gint64, k), NULL);

  /* The first CUDA call with an id launched every activity of that id
   * (all of a CUDA graph's): its process, + 1. */
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind != KS_TRACK_THREAD || g_hash_table_size (first_gpu) == 0)
        continue;

      for (guint32 i = 0; i < track->n_slices; i++)
        {
          gint64 key = ((gint64)track->group << 32) | track->correlation[i];
          gpointer stored, value;

          if (track->correlation[i] == 0 || !is_cuda_api (track->slice_kind[i]))
            continue;
          if (!g_hash_table_lookup_extended (first_gpu, &key, &stored, &value) || value != NULL)
            continue;
          g_hash_table_insert (first_gpu, stored, GSIZE_TO_POINTER ((gsize)track->process + 1));
        }
    }

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind != KS_TRACK_STREAM)
        continue;
      for (guint32 i = 0; i < track->n_slices; i++)
        {
          gint64 key = ((gint64)track->group << 32) | track->correlation[i];
          gpointer value;

          if (track->correlation[i] == 0 || !(value = g_hash_table_lookup (first_gpu, &key)))
            continue;
          implied++;
          w->launcher[t][i] = (guint32)(GPOINTER_TO_SIZE (value) - 1);
          if (first_process[t] == KS_NO_INDEX)
            first_process[t] = w->launcher[t][i];
        }
    }

  /* Per group, the first process that calls CUDA, else its first process. */
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind != KS_TRACK_THREAD || g_hash_table_contains (group_process, GUINT_TO_POINTER (track->group + 1)))
        continue;
      for (guint32 i = 0; i < track->n_slices; i++)
        if (is_cuda_api (track->slice_kind[i]))
          {
            g_hash_table_insert (group_process, GUINT_TO_POINTER (track->group + 1),
                                 GUINT_TO_POINTER (track->process + 1));
            break;
          }
    }
  for (guint32 p = 0; p < trace->n_processes; p++)
    if (!g_hash_table_contains (group_process, GUINT_TO_POINTER (trace->processes[p].group + 1)))
      g_hash_table_insert (group_process, GUINT_TO_POINTER (trace->processes[p].group + 1),
                           GUINT_TO_POINTER (p + 1));

  /* Activity whose launch is not in the trace belongs to the first
   * launching process of its stream, else to a process of its group. */
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];
      guint32 process = first_process[t];

      if (track->kind != KS_TRACK_STREAM)
        continue;

      if (process == KS_NO_INDEX)
        process = GPOINTER_TO_UINT (g_hash_table_lookup (group_process, GUINT_TO_POINTER (track->group + 1))) - 1;

      w->track_gpid[t] = process != KS_NO_INDEX ? w->process_gpid[process] : -1;
      for (guint32 i = 0; i < track->n_slices; i++)
        if (w->launcher[t][i] == KS_NO_INDEX)
          w->launcher[t][i] = process;
    }

  w->n_implied_flows = MIN (implied, trace->n_flows);
}


static gint64
stream_to_nsys (gint64 stream)
{
  return stream == -1 ? KS_NSYS_NO_STREAM : stream;
}

gboolean
ks_kscope_writer_tracks (Writer  *w,
                         GError **error)
{
  KsTrace *trace = w->trace;
  sqlite3_stmt *stmt;

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      /* made again from the samples on load */
      if (track->kind == KS_TRACK_SAMPLES)
        continue;
      if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_KS_TRACKS, error)))
        return FALSE;
      bind_i64 (stmt, 1, t);
      bind_text (stmt, 2, ks_sqlite_track_kinds[track->kind]);
      bind_string (w, stmt, 3, track->name);
      bind_gid (stmt, 4, w->track_gpid[t]);
      bind_gid (stmt, 5, track->thread != KS_NO_INDEX ? w->thread_gtid[track->thread] : -1);
      if (track->device >= 0 || track->kind == KS_TRACK_STREAM || track->kind == KS_TRACK_GPU_ANNOTATION)
        bind_i64 (stmt, 6, track->device);
      else
        bind_null (stmt, 6);
      if (track->kind == KS_TRACK_STREAM || track->kind == KS_TRACK_GPU_ANNOTATION)
        bind_i64 (stmt, 7, track->stream);
      else
        bind_null (stmt, 7);
      bind_i64 (stmt, 8, track->sort_index);
      if (track->parent != KS_NO_INDEX)
        bind_i64 (stmt, 9, track->parent);
      else
        bind_null (stmt, 9);
      bind_i64 (stmt, 10, track->group);
      if (!ks_kscope_writer_insert_row (w, KS_KSCOPE_KS_TRACKS, stmt, error))
        return FALSE;

      if (track->kind == KS_TRACK_STREAM)
        {
          if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_CUDA_STREAM, error)))
            return FALSE;
          bind_i64 (stmt, 1, stream_to_nsys (track->stream));
          bind_i64 (stmt, 2, 0);
          bind_i64 (stmt, 3, 0);
          bind_i64 (stmt, 4, w->track_gpid[t] >= 0 ? w->track_gpid[t] >> KS_GID_PID_SHIFT : 0);
          bind_i64 (stmt, 5, 0);
          bind_i64 (stmt, 6, 0);
          bind_i64 (stmt, 7, 0);
          bind_i64 (stmt, 8, track->device);
          if (!ks_kscope_writer_insert_row (w, KS_KSCOPE_CUDA_STREAM, stmt, error))
            return FALSE;
        }
    }

  return TRUE;
}

static gboolean
nvtx_domain (Writer   *w,
             guint32   process,
             guint32   category,
             gint64   *out_domain,
             GError  **error)
{
  g_autofree char *key = NULL;
  gpointer value;
  sqlite3_stmt *stmt;
  gint64 gpid;
  guint32 domain;

  /* The default domain; "nvtx" is what reading gives back for it. */
  if (category == w->default_category[KS_SLICE_NVTX])
    {
      *out_domain = -1;
      return TRUE;
    }

  gpid = process != KS_NO_INDEX ? w->process_gpid[process] : 0;
  key = g_strdup_printf ("%" G_GINT64_FORMAT "/%u", gpid, category);
  if (g_hash_table_lookup_extended (w->domains, key, NULL, &value))
    {
      *out_domain = GPOINTER_TO_UINT (value);
      return TRUE;
    }

  domain = ++w->next_domain;
  g_hash_table_insert (w->domains, g_steal_pointer (&key), GUINT_TO_POINTER (domain));

  if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_NVTX, error)))
    return FALSE;
  bind_i64 (stmt, 1, 0);
  bind_null (stmt, 2);
  bind_i64 (stmt, 3, KS_NSYS_NVTX_DOMAIN_CREATE);
  bind_text (stmt, 4, ks_trace_string (w->trace, category));
  bind_i64 (stmt, 5, gpid);
  bind_null (stmt, 6);
  bind_null (stmt, 7);
  bind_i64 (stmt, 8, domain);
  bind_null (stmt, 9);
  bind_null (stmt, 10);
  bind_null (stmt, 11);
  if (!ks_kscope_writer_insert_row (w, KS_KSCOPE_NVTX, stmt, error))
    return FALSE;

  *out_domain = domain;
  return TRUE;
}

static gboolean
write_ks_slice (Writer         *w,
                const KsTrack  *track,
                guint32         i,
                gint64          gtid,
                GError        **error)
{
  sqlite3_stmt *stmt;

  if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_KS_SLICES, error)))
    return FALSE;
  bind_i64 (stmt, 1, track->start[i]);
  bind_i64 (stmt, 2, track->end[i]);
  bind_gid (stmt, 3, gtid);
  bind_i64 (stmt, 4, track->id);
  bind_i64 (stmt, 5, track->slice_kind[i]);
  bind_i64 (stmt, 6, track->name_id[i]);
  bind_i64 (stmt, 7, track->category[i]);
  bind_nonzero (stmt, 8, track->correlation[i]);
  bind_nonzero (stmt, 9, track->external_id[i]);
  bind_args (w, stmt, 10, track->args[i]);
  return ks_kscope_writer_insert_row (w, KS_KSCOPE_KS_SLICES, stmt, error);
}

static gboolean
write_thread_slice (Writer         *w,
                    const KsTrack  *track,
                    guint32         i,
                    GError        **error)
{
  gint64 gtid = w->thread_gtid[track->thread];
  guint8 kind = track->slice_kind[i];
  sqlite3_stmt *stmt;

  switch (kind)
    {
    case KS_SLICE_CUDA_RUNTIME:
    case KS_SLICE_CUDA_DRIVER:
      if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_RUNTIME, error)))
        return FALSE;
      bind_i64 (stmt, 1, track->start[i]);
      bind_i64 (stmt, 2, track->end[i]);
      bind_i64 (stmt, 3, kind == KS_SLICE_CUDA_DRIVER ? KS_NSYS_CLASS_CUDA_DRIVER : KS_NSYS_CLASS_CUDA_RUNTIME);
      bind_i64 (stmt, 4, gtid);
      bind_nonzero (stmt, 5, track->correlation[i]);
      bind_i64 (stmt, 6, track->name_id[i]);
      bind_category (w, stmt, 7, kind, track->category[i]);
      bind_nonzero (stmt, 8, track->external_id[i]);
      bind_args (w, stmt, 9, track->args[i]);
      return ks_kscope_writer_insert_row (w, KS_KSCOPE_RUNTIME, stmt, error);

    case KS_SLICE_OSRT:
      if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_OSRT, error)))
        return FALSE;
      bind_i64 (stmt, 1, track->start[i]);
      bind_i64 (stmt, 2, track->end[i]);
      bind_i64 (stmt, 3, gtid);
      bind_i64 (stmt, 4, track->name_id[i]);
      bind_i64 (stmt, 5, track->depth[i]);
      bind_category (w, stmt, 6, kind, track->category[i]);
      bind_nonzero (stmt, 7, track->correlation[i]);
      bind_nonzero (stmt, 8, track->external_id[i]);
      bind_args (w, stmt, 9, track->args[i]);
      return ks_kscope_writer_insert_row (w, KS_KSCOPE_OSRT, stmt, error);

    default:
      return write_ks_slice (w, track, i, gtid, error);
    }
}

/* Whether slice @i starts inside an earlier slice of its depth: one that
 * overlapped the slice it started in only partly was placed beside it.
 * Ends grow along a depth, so the first one ending after @i starts is
 * @i itself unless such a slice is there. */
static gboolean
overlaps_earlier (const KsTrack *track,
                  guint32        i)
{
  guint d = track->depth[i];
  guint32 k;

  if (track->end[i] <= track->start[i])
    return FALSE;
  k = ks_track_depth_lower_bound (track, d, track->start[i]);
  return k < track->n_by_depth[d] && track->by_depth[d][k] != i;
}

static gboolean
write_nvtx_slice (Writer         *w,
                  const KsTrack  *track,
                  guint32         i,
                  GError        **error)
{
  gint64 gtid = w->thread_gtid[track->thread];
  gint64 domain;
  gint64 type = KS_NSYS_NVTX_PUSH_POP;
  sqlite3_stmt *stmt;

  if (track->slice_kind[i] != KS_SLICE_NVTX)
    return write_ks_slice (w, track, i, gtid, error);

  if (!nvtx_domain (w, track->process, track->category[i], &domain, error))
    return FALSE;

  /* Push/pop ranges nest; one that outlives the range it started in was
   * a start/end range (placed beside that range, at its depth). */
  if (overlaps_earlier (track, i))
    type = KS_NSYS_NVTX_START_END;

  if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_NVTX, error)))
    return FALSE;
  bind_i64 (stmt, 1, track->start[i]);
  bind_i64 (stmt, 2, track->end[i]);
  bind_i64 (stmt, 3, type);
  bind_null (stmt, 4);
  bind_i64 (stmt, 5, gtid);
  if (type == KS_NSYS_NVTX_START_END)
    bind_i64 (stmt, 6, gtid);
  else
    bind_null (stmt, 6);
  bind_i64 (stmt, 7, track->name_id[i]);
  if (domain >= 0)
    bind_i64 (stmt, 8, domain);
  else
    bind_null (stmt, 8);
  bind_args (w, stmt, 9, track->args[i]);
  bind_nonzero (stmt, 10, track->correlation[i]);
  bind_nonzero (stmt, 11, track->external_id[i]);
  return ks_kscope_writer_insert_row (w, KS_KSCOPE_NVTX, stmt, error);
}

/* The columns every GPU activity table starts with. */
static void
bind_gpu_columns (sqlite3_stmt  *stmt,
                  const KsTrack *track,
                  guint32        i,
                  gint64         gpid)
{
  bind_i64 (stmt, 1, track->start[i]);
  bind_i64 (stmt, 2, track->end[i]);
  bind_i64 (stmt, 3, track->device);
  bind_i64 (stmt, 4, stream_to_nsys (track->stream));
  bind_nonzero (stmt, 5, track->correlation[i]);
  bind_gid (stmt, 6, gpid);
}

/* A name the reader derives from the record itself is not stored. */
static void
bind_name_unless_implied (sqlite3_stmt *stmt,
                          int           col,
                          guint32       name_id,
                          const char   *name,
                          const char   *implied)
{
  if (strcmp (implied, name) != 0)
    bind_i64 (stmt, col, name_id);
  else
    bind_null (stmt, col);
}

/* Binds the columns every GPU activity table ends with, from @col on,
 * and inserts the row. */
static gboolean
insert_gpu_row (Writer         *w,
                KsKscopeTable   table,
                sqlite3_stmt   *stmt,
                int             col,
                const KsTrack  *track,
                guint32         i,
                GError        **error)
{
  bind_category (w, stmt, col, track->slice_kind[i], track->category[i]);
  bind_nonzero (stmt, col + 1, track->external_id[i]);
  bind_args (w, stmt, col + 2, track->args[i]);
  return ks_kscope_writer_insert_row (w, table, stmt, error);
}

static gboolean
write_gpu_slice (Writer         *w,
                 guint32         t,
                 guint32         i,
                 GError        **error)
{
  const KsTrack *track = &w->trace->tracks[t];
  guint8 kind = track->slice_kind[i];
  const KsGpuInfo *info = &track->gpu[i];
  guint32 launcher = w->launcher[t][i];
  gint64 gpid = launcher != KS_NO_INDEX ? w->process_gpid[launcher] : -1;
  const char *name = ks_trace_string (w->trace, track->name_id[i]);
  sqlite3_stmt *stmt;

  switch (kind)
    {
    case KS_SLICE_KERNEL:
      {
        g_autofree char *short_name = ks_kscope_kernel_short_name (name);
        guint32 short_id;

        if (!ks_kscope_writer_string_id (w, short_name, &short_id, error))
          return FALSE;
        if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_KERNEL, error)))
          return FALSE;
        bind_gpu_columns (stmt, track, i, gpid);
        bind_i64 (stmt, 7, track->name_id[i]);
        bind_i64 (stmt, 8, short_id);
        bind_i64 (stmt, 9, info->kernel.registers);
        bind_i64 (stmt, 10, info->kernel.grid[0]);
        bind_i64 (stmt, 11, info->kernel.grid[1]);
        bind_i64 (stmt, 12, info->kernel.grid[2]);
        bind_i64 (stmt, 13, info->kernel.block[0]);
        bind_i64 (stmt, 14, info->kernel.block[1]);
        bind_i64 (stmt, 15, info->kernel.block[2]);
        bind_i64 (stmt, 16, info->kernel.shared_memory);
        return insert_gpu_row (w, KS_KSCOPE_KERNEL, stmt, 17, track, i, error);
      }

    case KS_SLICE_MEMCPY:
      {
        g_autofree char *implied = ks_sqlite_memcpy_name (info);

        if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_MEMCPY, error)))
          return FALSE;
        bind_gpu_columns (stmt, track, i, gpid);
        bind_i64 (stmt, 7, (gint64)info->copy.bytes);
        bind_i64 (stmt, 8, info->copy.copy_kind);
        bind_i64 (stmt, 9, ks_kscope_mem_kind_from_cupti (info->copy.src_kind));
        bind_i64 (stmt, 10, ks_kscope_mem_kind_from_cupti (info->copy.dst_kind));
        bind_name_unless_implied (stmt, 11, track->name_id[i], name, implied);
        return insert_gpu_row (w, KS_KSCOPE_MEMCPY, stmt, 12, track, i, error);
      }

    case KS_SLICE_MEMSET:
      {
        g_autofree char *implied = ks_sqlite_memset_name (info);

        if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_MEMSET, error)))
          return FALSE;
        bind_gpu_columns (stmt, track, i, gpid);
        bind_i64 (stmt, 7, info->copy.value);
        bind_i64 (stmt, 8, (gint64)info->copy.bytes);
        bind_i64 (stmt, 9, ks_kscope_mem_kind_from_cupti (info->copy.dst_kind));
        bind_name_unless_implied (stmt, 10, track->name_id[i], name, implied);
        return insert_gpu_row (w, KS_KSCOPE_MEMSET, stmt, 11, track, i, error);
      }

    case KS_SLICE_SYNC:
      {
        gint64 type = ks_sqlite_sync_type (name);

        /* Sync records carry no copy details; anything else would be lost. */
        if (info->copy.bytes != 0 || info->copy.copy_kind || info->copy.src_kind ||
            info->copy.dst_kind || info->copy.value)
          break;

        if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_SYNC, error)))
          return FALSE;
        bind_gpu_columns (stmt, track, i, gpid);
        bind_i64 (stmt, 7, type);
        bind_name_unless_implied (stmt, 8, track->name_id[i], name, ks_sqlite_sync_name (type));
        return insert_gpu_row (w, KS_KSCOPE_SYNC, stmt, 9, track, i, error);
      }

    default:
      break;
    }

  return write_ks_slice (w, track, i, -1, error);
}

/* The thread times of @track's slices (KS_SLICE_THREAD_TIMES) */
static gboolean
write_thread_times (Writer         *w,
                    const KsTrack  *track,
                    GError        **error)
{
  for (guint32 k = 0; k < track->n_thread_times; k++)
    {
      guint32 i = track->thread_time_slice[k];
      sqlite3_stmt *stmt;

      if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_KS_SLICE_THREAD_TIMES, error)))
        return FALSE;
      bind_i64 (stmt, 1, track->id);
      bind_i64 (stmt, 2, track->start[i]);
      bind_i64 (stmt, 3, track->end[i]);
      if (track->thread_start[k] != G_MININT64)
        bind_i64 (stmt, 4, track->thread_start[k]);
      else
        bind_null (stmt, 4);
      if (track->thread_duration[k] >= 0)
        bind_i64 (stmt, 5, track->thread_duration[k]);
      else
        bind_null (stmt, 5);
      if (!ks_kscope_writer_insert_row (w, KS_KSCOPE_KS_SLICE_THREAD_TIMES, stmt, error))
        return FALSE;
    }
  return TRUE;
}

gboolean
ks_kscope_writer_slices (Writer  *w,
                         GError **error)
{
  KsTrace *trace = w->trace;

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind == KS_TRACK_SAMPLES)
        continue;
      for (guint32 i = 0; i < track->n_slices; i++)
        {
          gboolean ok;

          switch (track->kind)
            {
            case KS_TRACK_THREAD:
              ok = write_thread_slice (w, track, i, error);
              break;
            case KS_TRACK_NVTX:
              ok = write_nvtx_slice (w, track, i, error);
              break;
            case KS_TRACK_STREAM:
              ok = write_gpu_slice (w, t, i, error);
              break;
            case KS_TRACK_ASYNC:
            case KS_TRACK_GPU_ANNOTATION:
            case KS_TRACK_SAMPLES:
            case KS_N_TRACK_KINDS:
            default:
              ok = write_ks_slice (w, track, i,
                                   track->thread != KS_NO_INDEX ? w->thread_gtid[track->thread] : -1,
                                   error);
              break;
            }

          if (!ok)
            return FALSE;
        }
      if (!write_thread_times (w, track, error))
        return FALSE;
    }

  return TRUE;
}

gboolean
ks_kscope_writer_flows (Writer  *w,
                        GError **error)
{
  KsTrace *trace = w->trace;

  for (guint32 f = w->n_implied_flows; f < trace->n_flows; f++)
    {
      const KsFlow *flow = &trace->flows[f];
      const KsTrack *from = &trace->tracks[flow->from_track];
      const KsTrack *to = &trace->tracks[flow->to_track];
      sqlite3_stmt *stmt;

      if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_KS_FLOWS, error)))
        return FALSE;
      bind_i64 (stmt, 1, f - w->n_implied_flows);
      bind_i64 (stmt, 2, flow->category);
      bind_i64 (stmt, 3, ks_kscope_flow_end_time (from, flow->from_slice));
      bind_gid (stmt, 4, from->kind == KS_TRACK_THREAD ? w->thread_gtid[from->thread] : -1);
      bind_i64 (stmt, 5, ks_kscope_flow_end_time (to, flow->to_slice));
      bind_gid (stmt, 6, to->kind == KS_TRACK_THREAD ? w->thread_gtid[to->thread] : -1);
      bind_i64 (stmt, 7, flow->from_track);
      bind_i64 (stmt, 8, flow->to_track);
      bind_i64 (stmt, 9, flow->kind);
      if (!ks_kscope_writer_insert_row (w, KS_KSCOPE_KS_FLOWS, stmt, error))
        return FALSE;
    }

  return TRUE;
}

gboolean
ks_kscope_writer_counters (Writer  *w,
                           GError **error)
{
  KsTrace *trace = w->trace;

  for (guint32 c = 0; c < trace->n_counters; c++)
    {
      const KsCounter *counter = &trace->counters[c];
      sqlite3_stmt *stmt;

      if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_KS_COUNTERS, error)))
        return FALSE;
      bind_i64 (stmt, 1, c);
      bind_text (stmt, 2, ks_trace_string (trace, counter->name));
      bind_text (stmt, 3, ks_trace_string (trace, counter->unit));
      if (counter->device >= 0)
        bind_i64 (stmt, 4, counter->device);
      else
        bind_null (stmt, 4);
      bind_gid (stmt, 5, counter->process != KS_NO_INDEX ? w->process_gpid[counter->process] : -1);
      if (!ks_kscope_writer_insert_row (w, KS_KSCOPE_KS_COUNTERS, stmt, error))
        return FALSE;

      for (guint32 i = 0; i < counter->n_samples; i++)
        {
          if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_KS_COUNTER_SAMPLES, error)))
            return FALSE;
          bind_i64 (stmt, 1, c);
          bind_i64 (stmt, 2, counter->ts[i]);
          sqlite3_bind_double (stmt, 3, counter->value[i]);
          if (!ks_kscope_writer_insert_row (w, KS_KSCOPE_KS_COUNTER_SAMPLES, stmt, error))
            return FALSE;
        }
    }

  return TRUE;
}

gboolean
ks_kscope_writer_memory_events (Writer  *w,
                                GError **error)
{
  KsTrace *trace = w->trace;

  for (guint32 i = 0; i < trace->n_memory_events; i++)
    {
      const KsMemoryEvent *ev = &trace->memory_events[i];
      sqlite3_stmt *stmt;

      if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_KS_MEMORY_EVENTS, error)))
        return FALSE;
      bind_i64 (stmt, 1, ev->ts);
      bind_gid (stmt, 2, ev->thread != KS_NO_INDEX ? w->thread_gtid[ev->thread] : -1);
      bind_i64 (stmt, 3, ev->device);
      bind_i64 (stmt, 4, (gint64)ev->address);
      bind_i64 (stmt, 5, ev->bytes);
      if (ev->total_allocated >= 0)
        bind_i64 (stmt, 6, ev->total_allocated);
      else
        bind_null (stmt, 6);
      if (ev->total_reserved >= 0)
        bind_i64 (stmt, 7, ev->total_reserved);
      else
        bind_null (stmt, 7);
      if (!ks_kscope_writer_insert_row (w, KS_KSCOPE_KS_MEMORY_EVENTS, stmt, error))
        return FALSE;
    }

  return TRUE;
}

gboolean
ks_kscope_writer_instants (Writer  *w,
                           GError **error)
{
  KsTrace *trace = w->trace;

  for (guint32 i = 0; i < trace->n_instants; i++)
    {
      const KsInstant *inst = &trace->instants[i];
      const KsTrack *track = inst->track != KS_NO_INDEX ? &trace->tracks[inst->track] : NULL;
      sqlite3_stmt *stmt;

      if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_KS_INSTANTS, error)))
        return FALSE;
      bind_i64 (stmt, 1, inst->ts);
      bind_gid (stmt, 2, track && track->thread != KS_NO_INDEX ? w->thread_gtid[track->thread] : -1);
      if (track != NULL)
        bind_i64 (stmt, 3, inst->track);
      else
        bind_null (stmt, 3);
      bind_gid (stmt, 4, inst->process != KS_NO_INDEX ? w->process_gpid[inst->process] : -1);
      bind_i64 (stmt, 5, inst->name);
      bind_i64 (stmt, 6, inst->category);
      bind_args (w, stmt, 7, inst->args);
      if (!ks_kscope_writer_insert_row (w, KS_KSCOPE_KS_INSTANTS, stmt, error))
        return FALSE;
    }

  return TRUE;
}


/* One chain: the stack whose innermost frame is @node, id @node + 1,
 * innermost at stackDepth 0, with our line. */
static gboolean
write_chain (Writer   *w,
             guint32   node,
             GError  **error)
{
  KsTrace *trace = w->trace;
  guint depth = 0;

  for (guint32 n = node; n != KS_NO_INDEX; n = trace->stack_nodes[n].parent, depth++)
    {
      const KsStackNode *frame = &trace->stack_nodes[n];
      sqlite3_stmt *stmt;

      if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_SAMPLING_CALLCHAINS, error)))
        return FALSE;
      bind_i64 (stmt, 1, (gint64) node + 1);
      bind_i64 (stmt, 2, frame->function);
      bind_i64 (stmt, 3, frame->file);
      bind_i64 (stmt, 4, depth);
      if (frame->line > 0)
        bind_i64 (stmt, 5, frame->line);
      else
        bind_null (stmt, 5);
      if (!ks_kscope_writer_insert_row (w, KS_KSCOPE_SAMPLING_CALLCHAINS, stmt, error))
        return FALSE;
    }
  return TRUE;
}

/* Sampled stacks as Nsight stores CPU samples, an event per sample, but
 * one callchain per distinct stack (not per sample), written with its
 * first sample: the stack nodes are a prefix tree, so a sample's
 * innermost node is its stack, and callchainId = node + 1. */
gboolean
ks_kscope_writer_samples (Writer  *w,
                          GError **error)
{
  KsTrace *trace = w->trace;
  g_autofree guint8 *written = g_new0 (guint8, MAX (trace->n_stack_nodes, 1));

  for (guint32 i = 0; i < trace->n_samples; i++)
    {
      const KsSample *sample = &trace->samples[i];
      sqlite3_stmt *stmt;

      if (!written[sample->node])
        {
          if (!write_chain (w, sample->node, error))
            return FALSE;
          written[sample->node] = TRUE;
        }
      if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_COMPOSITE_EVENTS, error)))
        return FALSE;
      bind_i64 (stmt, 1, i);
      bind_i64 (stmt, 2, sample->ts);
      bind_gid (stmt, 3, w->thread_gtid[sample->thread]);
      bind_i64 (stmt, 4, (gint64) sample->node + 1);
      bind_i64 (stmt, 5, sample->waiting);
      if (!ks_kscope_writer_insert_row (w, KS_KSCOPE_COMPOSITE_EVENTS, stmt, error))
        return FALSE;
    }

  return TRUE;
}
