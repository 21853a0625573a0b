/* ks-record-proc.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* What /proc says about the job: the processes of the command that
 * never connect, and thread names. */

#define G_LOG_DOMAIN "ks-record-session"

#include "config.h"

#include "ks-record-private.h"

#include <stdio.h>
#include <string.h>

void
ks_record_seen_process_free (gpointer data)
{
  SeenProcess *p = data;

  g_free (p->name);
  g_free (p);
}

/* Same host: a thread's name is in /proc while it lives. */
char *
ks_record_proc_thread_name (gint64  pid,
                            guint32 tid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%" G_GINT64_FORMAT "/task/%u/comm", pid, tid);
  char *contents = NULL;

  if (g_file_get_contents (path, &contents, NULL, NULL))
    g_strchomp (contents);
  return contents;
}

void
ks_record_proc_write_seen (KsRecordSession *self)
{
  SeenProcess *p;

  while ((p = g_async_queue_try_pop (self->seen_processes)) != NULL)
    {
      ks_record_session_write_process (self, p->pid, p->name);
      ks_record_seen_process_free (p);
    }
  g_mutex_lock (&self->mutex);
  self->stats.processes = g_hash_table_size (self->processes);
  g_mutex_unlock (&self->mutex);
}

/* Processes of the job that never use CUDA or NVTX (DataLoader workers,
 * shells) never connect; they are found here, as descendants of the
 * command in /proc, so that PROCESSES lists the whole job. */
void
ks_record_session_scan_processes (KsRecordSession *self)
{
  g_autoptr(GHashTable) parent = g_hash_table_new (NULL, NULL);
  g_autoptr(GPtrArray) queue = g_ptr_array_new ();
  g_autoptr(GDir) dir = NULL;
  const char *entry;

  if (self->command_pid <= 0 || (dir = g_dir_open ("/proc", 0, NULL)) == NULL)
    return;

  while ((entry = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = NULL;
      g_autofree char *stat = NULL;
      const char *close_paren;
      gint64 pid;
      gint64 ppid = 0;

      if (!g_ascii_isdigit (entry[0]))
        continue;
      pid = g_ascii_strtoll (entry, NULL, 10);
      path = g_strdup_printf ("/proc/%s/stat", entry);
      if (!g_file_get_contents (path, &stat, NULL, NULL))
        continue;
      /* "pid (comm) state ppid ...": comm may hold spaces and parentheses */
      close_paren = strrchr (stat, ')');
      if (close_paren != NULL && sscanf (close_paren + 1, " %*c %" G_GINT64_FORMAT, &ppid) == 1)
        g_hash_table_insert (parent, GINT_TO_POINTER ((int) pid), GINT_TO_POINTER ((int) ppid));
    }

  g_ptr_array_add (queue, GINT_TO_POINTER ((int) self->command_pid));
  for (guint i = 0; i < queue->len; i++)
    {
      int pid = GPOINTER_TO_INT (g_ptr_array_index (queue, i));
      GHashTableIter iter;
      gpointer key;
      gpointer value;

      {
        g_autofree char *path = g_strdup_printf ("/proc/%d/comm", pid);
        g_autofree char *name = NULL;

        /* new, or renamed by exec() since the last scan */
        if (g_file_get_contents (path, &name, NULL, NULL)
            && g_strcmp0 (g_strchomp (name), g_hash_table_lookup (self->scanned, GINT_TO_POINTER (pid))) != 0)
          {
            SeenProcess *p = g_new0 (SeenProcess, 1);

            p->pid = pid;
            p->name = g_strdup (name);
            g_hash_table_insert (self->scanned, GINT_TO_POINTER (pid), g_steal_pointer (&name));
            g_async_queue_push (self->seen_processes, p);
          }
      }

      g_hash_table_iter_init (&iter, parent);
      while (g_hash_table_iter_next (&iter, &key, &value))
        if (GPOINTER_TO_INT (value) == pid)
          g_ptr_array_add (queue, key);
    }
}

