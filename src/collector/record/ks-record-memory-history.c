/* ks-record-memory-history.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* record --cuda-memory-history: the Python side turns on PyTorch's
 * allocator history in the program and pickles the allocator's snapshot
 * (torch.cuda.memory._snapshot(), what _dump_snapshot() writes) into our
 * private folder at exit and at an out-of-memory error; the session keeps
 * each in KS_CUDA_MEMORY_SNAPSHOTS when the recording ends. A file is
 * renamed into place once whole, so one torn by a killed process is never
 * taken. */

#define G_LOG_DOMAIN "ks-record-session"

#include "config.h"

#include <errno.h>
#include <gio/gio.h>
#include <glib/gi18n.h>
#include <glib/gstdio.h>
#include <string.h>

#include "ks-record-private.h"
#include "ks-record-writer-private.h"
#include "ks-wire.h"

#define SNAPSHOT_FOLDER "memory-history"

void
ks_record_writer_add_memory_snapshot (KsRecordWriter *self,
                                      gint64          pid,
                                      const char     *reason,
                                      guint64         timestamp,
                                      gint64          clock_offset,
                                      GBytes         *pickle)
{
  sqlite3_stmt *s = ks_record_writer_stmt (self, KS_KSCOPE_KS_CUDA_MEMORY_SNAPSHOTS);
  gsize len;
  const void *data = g_bytes_get_data (pickle, &len);

  if (s == NULL)
    return;
  sqlite3_bind_int64 (s, 1, ks_kscope_global_pid (pid));
  sqlite3_bind_text (s, 2, reason, -1, SQLITE_TRANSIENT);
  sqlite3_bind_int64 (s, 3, ks_record_writer_rel (self, timestamp));
  sqlite3_bind_int64 (s, 4, clock_offset + (gint64) self->start_mono);
  sqlite3_bind_blob64 (s, 5, data != NULL ? data : "", len, SQLITE_STATIC);
  ks_record_writer_step (self, s, TRUE);
}

char *
ks_record_memory_history_dir (KsRecordSession *self)
{
  return g_build_filename (self->socket_dir, SNAPSHOT_FOLDER, NULL);
}

gboolean
ks_record_memory_history_prepare (KsRecordSession  *self,
                                  GError          **error)
{
  g_autofree char *dir = ks_record_memory_history_dir (self);

  if (g_mkdir (dir, 0700) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Could not make the folder for PyTorch’s memory snapshots “%s”: %s"),
                   dir, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}

static gint
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* PID-REASON-MONO_NS-OFFSET_NS.pickle; anything else is the temporary
 * file of a process that died writing it. */
static gboolean
parse_name (const char  *file,
            gint64      *pid,
            char       **reason,
            guint64     *mono,
            gint64      *offset)
{
  g_autofree char *s = NULL;
  char *dash, *end;

  if (!g_str_has_suffix (file, ".pickle"))
    return FALSE;
  s = g_strndup (file, strlen (file) - strlen (".pickle"));
  if ((dash = strrchr (s, '-')) == NULL)
    return FALSE;
  *dash = '\0';
  *offset = g_ascii_strtoll (dash + 1, &end, 10);
  if (end == dash + 1 || *end != '\0')
    return FALSE;
  if ((dash = strrchr (s, '-')) == NULL)
    return FALSE;
  *dash = '\0';
  *mono = g_ascii_strtoull (dash + 1, &end, 10);
  if (end == dash + 1 || *end != '\0')
    return FALSE;
  *pid = g_ascii_strtoll (s, &end, 10);
  if (end == s || *end != '-' || *pid <= 0)
    return FALSE;
  if (!g_str_equal (end + 1, "exit") && !g_str_equal (end + 1, "out-of-memory"))
    return FALSE;
  *reason = g_strdup (end + 1);
  return TRUE;
}

/* Keeps the snapshots the Python side left, in the order of their names
 * (by process, the exit one before the out-of-memory one), and empties the
 * folder. */
void
ks_record_memory_history_collect (KsRecordSession *self)
{
  g_autofree char *dir_path = ks_record_memory_history_dir (self);
  g_autoptr(GDir) dir = g_dir_open (dir_path, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  const char *name;

  if (dir == NULL)
    return;
  while ((name = g_dir_read_name (dir)) != NULL)
    g_ptr_array_add (names, g_strdup (name));
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len; i++)
    {
      const char *file = g_ptr_array_index (names, i);
      g_autofree char *path = g_build_filename (dir_path, file, NULL);
      g_autofree char *reason = NULL;
      g_autoptr(GMappedFile) mapped = NULL;
      g_autoptr(GBytes) bytes = NULL;
      g_autoptr(GError) error = NULL;
      gint64 pid, offset;
      guint64 mono;

      if (!parse_name (file, &pid, &reason, &mono, &offset))
        {
          g_unlink (path);
          continue;
        }
      mapped = g_mapped_file_new (path, FALSE, &error);
      if (mapped == NULL)
        {
          g_autofree char *text = g_strdup_printf ("PyTorch’s memory snapshot of process %" G_GINT64_FORMAT
                                                   " could not be read: %s", pid, error->message);

          ks_record_writer_add_diagnostic (self->writer, ks_record_now_mono (), "warning", "python", text);
        }
      else
        {
          bytes = g_mapped_file_get_bytes (mapped);
          ks_record_writer_add_memory_snapshot (self->writer, pid, reason, mono, offset, bytes);
        }
      g_unlink (path);
    }
}

void
ks_record_memory_history_remove (KsRecordSession *self)
{
  g_autofree char *dir_path = NULL;
  g_autoptr(GDir) dir = NULL;
  const char *name;

  if (self->socket_dir == NULL)
    return;
  dir_path = ks_record_memory_history_dir (self);
  dir = g_dir_open (dir_path, 0, NULL);
  if (dir == NULL)
    return;
  while ((name = g_dir_read_name (dir)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir_path, name, NULL);

      g_unlink (path);
    }
  g_rmdir (dir_path);
}
