/* ks-kscope-writer-meta.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The trace's ids, strings, metadata, processes, threads and GPUs. */

#define G_LOG_DOMAIN "ks-kscope-writer"

#include "config.h"

#include <sqlite3.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ks-kscope-conventions.h"
#include "ks-kscope-writer-private.h"
#include "ks-sqlite-private.h"

void
ks_kscope_writer_assign_ids (Writer *w)
{
  KsTrace *trace = w->trace;
  g_autoptr(GHashTable) used_pids = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autoptr(GHashTable) used_tids = g_hash_table_new (g_int64_hash, g_int64_equal);
  g_autofree gint64 *enc_pid = g_new (gint64, MAX (trace->n_processes, 1));
  g_autofree gint64 *enc_tid = g_new (gint64, MAX (trace->n_threads, 1));
  gint64 next = KS_GID_LIMIT - 1;

  /* Real pids that fit keep their value; the others get the highest
   * free values, which real Linux pids (< 2^22) never reach. */
  for (guint32 p = 0; p < trace->n_processes; p++)
    {
      const KsProcess *proc = &trace->processes[p];

      enc_pid[p] = -1;
      if (proc->original == 0 && proc->pid >= 0 && proc->pid < KS_GID_LIMIT &&
          !g_hash_table_contains (used_pids, &proc->pid))
        {
          enc_pid[p] = proc->pid;
          g_hash_table_add (used_pids, &enc_pid[p]);
        }
    }
  for (guint32 p = 0; p < trace->n_processes; p++)
    {
      if (enc_pid[p] >= 0)
        continue;
      while (g_hash_table_contains (used_pids, &next))
        next--;
      enc_pid[p] = next--;
      g_hash_table_add (used_pids, &enc_pid[p]);
    }

  w->process_gpid = g_new (gint64, MAX (trace->n_processes, 1));
  for (guint32 p = 0; p < trace->n_processes; p++)
    w->process_gpid[p] = enc_pid[p] << KS_GID_PID_SHIFT;

  /* Thread ids: the same, within each process (the key holds both). */
  for (guint32 t = 0; t < trace->n_threads; t++)
    {
      const KsThread *thread = &trace->threads[t];

      enc_tid[t] = -1;
      if (thread->original == 0 && thread->tid >= 0 && thread->tid < KS_GID_LIMIT)
        {
          gint64 gtid = w->process_gpid[thread->process] | thread->tid;

          if (!g_hash_table_contains (used_tids, &gtid))
            {
              enc_tid[t] = gtid;
              g_hash_table_add (used_tids, &enc_tid[t]);
            }
        }
    }
  for (guint32 t = 0; t < trace->n_threads; t++)
    {
      gint64 gtid;

      if (enc_tid[t] >= 0)
        continue;
      gtid = w->process_gpid[trace->threads[t].process] | (KS_GID_LIMIT - 1);
      while (g_hash_table_contains (used_tids, &gtid))
        gtid--;
      enc_tid[t] = gtid;
      g_hash_table_add (used_tids, &enc_tid[t]);
    }

  w->thread_gtid = g_new (gint64, MAX (trace->n_threads, 1));
  memcpy (w->thread_gtid, enc_tid, sizeof (gint64) * trace->n_threads);
}


gboolean
ks_kscope_writer_strings (Writer  *w,
                          GError **error)
{
  sqlite3_stmt *stmt;

  if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_STRING_IDS, error)))
    return FALSE;

  for (guint32 i = 0; i < w->trace->n_strings; i++)
    {
      bind_i64 (stmt, 1, i);
      bind_text (stmt, 2, w->trace->strings[i]);
      if (!ks_kscope_writer_insert_row (w, KS_KSCOPE_STRING_IDS, stmt, error))
        return FALSE;
    }

  return TRUE;
}

static gboolean
write_meta (Writer      *w,
            const char  *name,
            const char  *value,
            GError     **error)
{
  sqlite3_stmt *stmt;

  if (value == NULL)
    return TRUE;
  if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_META, error)))
    return FALSE;
  sqlite3_bind_text (stmt, 1, name, -1, SQLITE_TRANSIENT);
  sqlite3_bind_text (stmt, 2, value, -1, SQLITE_TRANSIENT);
  return ks_kscope_writer_insert_row (w, KS_KSCOPE_META, stmt, error);
}

static const char *
source_format (KsTrace *trace)
{
  switch (trace->format)
    {
    case KS_FORMAT_KINETO_JSON: return "kineto-json";
    case KS_FORMAT_CHROME_JSON: return "chrome-json";
    case KS_FORMAT_NSYS_SQLITE: return "nsys-sqlite";
    case KS_FORMAT_NVIDIA_SMI: return "nvidia-smi";
    case KS_FORMAT_MEMORY_SNAPSHOT: return "memory-snapshot";
    case KS_FORMAT_KSCOPE:      return "kscope";
    case KS_FORMAT_UNKNOWN:
    default:                    return NULL;
    }
}

gboolean
ks_kscope_writer_metadata (Writer  *w,
                           GError **error)
{
  KsTrace *trace = w->trace;
  g_autofree char *version = g_strdup_printf ("%d", KS_KSCOPE_FORMAT_VERSION);
  g_autofree char *origin = g_strdup_printf ("%" G_GINT64_FORMAT, trace->origin_ns);
  g_autoptr(GList) keys = NULL;
  const char *value;
  /* Provenance survives a .kscope → .kscope copy unchanged. */
  const struct { const char *key; const char *fallback; } file_keys[] = {
    { KS_KSCOPE_META_PRODUCER, ks_kscope_producer () },
    { KS_KSCOPE_META_SOURCE_FORMAT, source_format (trace) },
    { KS_KSCOPE_META_SOURCE_NAME, NULL },
    { KS_KSCOPE_META_COMPLETE, "1" },
    { KS_KSCOPE_META_DROPPED_RECORDS, "0" },
    { KS_KSCOPE_META_CLOCK, "source" },
  };

  if (!write_meta (w, KS_KSCOPE_META_FORMAT_VERSION, version, error))
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (file_keys); i++)
    {
      value = ks_trace_get_metadata (trace, file_keys[i].key);
      value = value ? value : file_keys[i].fallback;
      /* A file cut short by a kill says so: complete until the last
       * transaction sets the real value (see finish_complete()). */
      if (strcmp (file_keys[i].key, KS_KSCOPE_META_COMPLETE) == 0)
        {
          w->complete = value;
          value = "0";
        }
      if (!write_meta (w, file_keys[i].key, value, error))
        return FALSE;
    }
  /* Times are stored from the trace start; origin_ns places that start
   * on the source's own clock. */
  if (!write_meta (w, KS_KSCOPE_META_ORIGIN_NS, origin, error))
    return FALSE;

  keys = g_hash_table_get_keys (trace->metadata);
  keys = g_list_sort (keys, (GCompareFunc)strcmp);
  for (const GList *l = keys; l != NULL; l = l->next)
    {
      const char *key = l->data;
      g_autofree char *name = NULL;
      gboolean reserved = FALSE;

      /* Warnings go to KS_DIAGNOSTICS; the load time is the last load's. */
      if (strcmp (key, "warnings") == 0 || strcmp (key, "load_time_ms") == 0)
        continue;
      for (guint i = 0; ks_kscope_file_meta_keys[i] != NULL; i++)
        if (strcmp (key, ks_kscope_file_meta_keys[i]) == 0)
          reserved = TRUE;
      if (reserved)
        continue;

      name = g_strconcat (KS_KSCOPE_META_METADATA_PREFIX, key, NULL);
      if (!write_meta (w, name, g_hash_table_lookup (trace->metadata, key), error))
        return FALSE;
    }

  /* Load warnings are the diagnostics of a conversion. */
  value = ks_trace_get_metadata (trace, "warnings");
  if (value != NULL)
    {
      g_auto(GStrv) lines = g_strsplit (value, "\n", -1);
      sqlite3_stmt *stmt;

      if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_KS_DIAGNOSTICS, error)))
        return FALSE;
      for (guint i = 0; lines[i] != NULL; i++)
        {
          bind_null (stmt, 1);
          bind_text (stmt, 2, KS_KSCOPE_SEVERITY_WARNING);
          bind_text (stmt, 3, "import");
          bind_text (stmt, 4, lines[i]);
          if (!ks_kscope_writer_insert_row (w, KS_KSCOPE_KS_DIAGNOSTICS, stmt, error))
            return FALSE;
        }
    }

  return TRUE;
}

gboolean
ks_kscope_writer_processes_and_threads (Writer  *w,
                                        GError **error)
{
  KsTrace *trace = w->trace;
  sqlite3_stmt *stmt;

  for (guint32 p = 0; p < trace->n_processes; p++)
    {
      const KsProcess *proc = &trace->processes[p];

      if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_PROCESSES, error)))
        return FALSE;
      bind_i64 (stmt, 1, w->process_gpid[p]);
      bind_i64 (stmt, 2, w->process_gpid[p] >> KS_GID_PID_SHIFT);
      bind_string (w, stmt, 3, proc->name);
      if (!ks_kscope_writer_insert_row (w, KS_KSCOPE_PROCESSES, stmt, error))
        return FALSE;

      if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_KS_PROCESSES, error)))
        return FALSE;
      bind_i64 (stmt, 1, w->process_gpid[p]);
      bind_i64 (stmt, 2, proc->pid);
      bind_string (w, stmt, 3, proc->original);
      bind_string (w, stmt, 4, proc->name);
      bind_string (w, stmt, 5, proc->label);
      bind_i64 (stmt, 6, proc->sort_index);
      bind_i64 (stmt, 7, proc->group);
      if (!ks_kscope_writer_insert_row (w, KS_KSCOPE_KS_PROCESSES, stmt, error))
        return FALSE;
    }

  for (guint32 t = 0; t < trace->n_threads; t++)
    {
      const KsThread *thread = &trace->threads[t];
      const KsProcess *proc = &trace->processes[thread->process];

      if (thread->name != 0)
        {
          if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_THREAD_NAMES, error)))
            return FALSE;
          bind_i64 (stmt, 1, thread->name);
          bind_null (stmt, 2);
          bind_i64 (stmt, 3, w->thread_gtid[t]);
          if (!ks_kscope_writer_insert_row (w, KS_KSCOPE_THREAD_NAMES, stmt, error))
            return FALSE;
        }

      if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_KS_THREADS, error)))
        return FALSE;
      bind_i64 (stmt, 1, w->thread_gtid[t]);
      bind_i64 (stmt, 2, proc->pid);
      bind_i64 (stmt, 3, thread->tid);
      bind_string (w, stmt, 4, proc->original);
      bind_string (w, stmt, 5, thread->original);
      bind_string (w, stmt, 6, thread->name);
      bind_text (stmt, 7, ks_kscope_thread_role (proc->pid, thread->tid, ks_trace_string (trace, thread->name)));
      bind_i64 (stmt, 8, w->process_gpid[thread->process]);
      bind_i64 (stmt, 9, thread->sort_index);
      if (!ks_kscope_writer_insert_row (w, KS_KSCOPE_KS_THREADS, stmt, error))
        return FALSE;
    }

  /* The ranks of a folder's files, by group: a converted job keeps them */
  for (guint32 i = 0; i < trace->n_ranks; i++)
    {
      const KsRank *rank = &trace->ranks[i];

      if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_KS_RANKS, error)))
        return FALSE;
      bind_null (stmt, 1);
      bind_i64 (stmt, 2, rank->group);
      bind_i64 (stmt, 3, rank->rank);
      if (rank->local_rank >= 0)
        bind_i64 (stmt, 4, rank->local_rank);
      else
        bind_null (stmt, 4);
      if (rank->world_size > 0)
        bind_i64 (stmt, 5, rank->world_size);
      else
        bind_null (stmt, 5);
      bind_null (stmt, 6);
      bind_string (w, stmt, 7, rank->host);
      bind_string (w, stmt, 8, rank->file);
      bind_string (w, stmt, 9, rank->backend);
      bind_text (stmt, 10, ks_rank_source_to_string (rank->source));
      if (!ks_kscope_writer_insert_row (w, KS_KSCOPE_KS_RANKS, stmt, error))
        return FALSE;
    }

  return TRUE;
}

gboolean
ks_kscope_writer_session (Writer  *w,
                          GError **error)
{
  KsTrace *trace = w->trace;
  sqlite3_stmt *stmt;

  if (trace->start_utc_ns != 0)
    {
      gint64 secs = trace->start_utc_ns / G_GINT64_CONSTANT (1000000000);
      g_autoptr(GDateTime) utc = g_date_time_new_from_unix_utc (secs);
      g_autoptr(GDateTime) local = utc ? g_date_time_to_local (utc) : NULL;
      g_autofree char *utc_text = utc ? g_date_time_format (utc, "%Y-%m-%dT%H:%M:%S") : NULL;
      g_autofree char *local_text = local ? g_date_time_format (local, "%Y-%m-%dT%H:%M:%S") : NULL;

      if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_SESSION_START, error)))
        return FALSE;
      bind_i64 (stmt, 1, trace->start_utc_ns);
      bind_text (stmt, 2, utc_text);
      bind_text (stmt, 3, local_text);
      if (!ks_kscope_writer_insert_row (w, KS_KSCOPE_SESSION_START, stmt, error))
        return FALSE;
    }

  if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_ANALYSIS_DETAILS, error)))
    return FALSE;
  bind_i64 (stmt, 1, 0);
  bind_i64 (stmt, 2, trace->duration_ns);
  bind_i64 (stmt, 3, 0);
  bind_i64 (stmt, 4, trace->duration_ns);
  return ks_kscope_writer_insert_row (w, KS_KSCOPE_ANALYSIS_DETAILS, stmt, error);
}

gboolean
ks_kscope_writer_gpus (Writer  *w,
                       GError **error)
{
  KsTrace *trace = w->trace;

  for (guint32 g = 0; g < trace->n_gpus; g++)
    {
      const KsGpu *gpu = &trace->gpus[g];
      sqlite3_stmt *stmt;

      if (!(stmt = ks_kscope_writer_table_stmt (w, KS_KSCOPE_GPU, error)))
        return FALSE;
      bind_i64 (stmt, 1, 0);
      bind_i64 (stmt, 2, gpu->device);
      bind_string (w, stmt, 3, gpu->name);
      bind_null (stmt, 4);
      bind_null (stmt, 5);
      bind_i64 (stmt, 6, (gint64)gpu->total_memory);
      bind_null (stmt, 7);
      bind_null (stmt, 8);
      bind_i64 (stmt, 9, gpu->sm_count);
      bind_null (stmt, 10);
      bind_i64 (stmt, 11, gpu->registers_per_block);
      bind_i64 (stmt, 12, gpu->shared_memory_per_block);
      bind_i64 (stmt, 13, gpu->shared_memory_per_sm);
      bind_i64 (stmt, 14, gpu->registers_per_sm);
      bind_i64 (stmt, 15, gpu->warp_size);
      if (gpu->warp_size > 0)
        bind_i64 (stmt, 16, gpu->max_threads_per_sm / gpu->warp_size);
      else
        bind_null (stmt, 16);
      bind_i64 (stmt, 17, gpu->max_threads_per_block);
      bind_i64 (stmt, 18, gpu->compute_major);
      bind_i64 (stmt, 19, gpu->compute_minor);
      bind_i64 (stmt, 20, gpu->max_threads_per_sm);
      if (!ks_kscope_writer_insert_row (w, KS_KSCOPE_GPU, stmt, error))
        return FALSE;
    }

  return TRUE;
}

