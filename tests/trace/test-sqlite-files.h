/* test-sqlite-files.h: finding, loading and looking into SQLite traces
 * (Nsight exports and .kscope files) in the reader's tests
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <string.h>
#include <glib/gstdio.h>

#include "ks-sqlite-reader.h"

#define GPID(vm, pid)       (((gint64)(vm) << 48) | ((gint64)(pid) << 24))
#define GTID(vm, pid, tid)  (GPID (vm, pid) | (tid))

/* @first… under KS_SHARED_DIR; NULL when it is absent. */
static inline char *
shared_path (const char *first,
             ...)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  va_list args;
  char *rest, *path;

  if (shared == NULL)
    return NULL;

  va_start (args, first);
  rest = g_build_filename_valist (first, &args);
  va_end (args);
  path = g_build_filename (shared, rest, NULL);
  g_free (rest);

  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    g_clear_pointer (&path, g_free);
  return path;
}

static inline char *
cloverleaf_path (void)
{
  return shared_path ("corpus", "pipit", "cloverleaf-nsys", "perlmutter-cloverleaf-cuda.sqlite", NULL);
}

static inline char *
temp_path (const char *name)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-sqlite-XXXXXX", NULL);

  g_assert_nonnull (dir);
  return g_build_filename (dir, name, NULL);
}

static inline void
remove_path (const char *path)
{
  g_autofree char *dir = g_path_get_dirname (path);

  g_unlink (path);
  g_rmdir (dir);
}

static inline KsTrace *
load (const char  *path,
      GError     **error)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);

  return ks_sqlite_reader_load (file, NULL, NULL, error);
}

static inline const KsTrack *
find_stream (KsTrace *trace,
             guint32  process_group,
             gint32   device,
             gint64   stream)
{
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind == KS_TRACK_STREAM && track->group == process_group &&
          track->device == device && track->stream == stream)
        return track;
    }
  return NULL;
}

static inline guint
count_named (KsTrace    *trace,
             KsSliceKind kind,
             const char *name)
{
  guint n = 0;

  for (guint32 t = 0; t < trace->n_tracks; t++)
    for (guint32 i = 0; i < trace->tracks[t].n_slices; i++)
      if (trace->tracks[t].slice_kind[i] == kind &&
          strcmp (ks_trace_string (trace, trace->tracks[t].name_id[i]), name) == 0)
        n++;
  return n;
}

static inline gint64
sum_duration (KsTrace    *trace,
              KsSliceKind kind)
{
  gint64 sum = 0;

  for (guint32 t = 0; t < trace->n_tracks; t++)
    for (guint32 i = 0; i < trace->tracks[t].n_slices; i++)
      if (trace->tracks[t].slice_kind[i] == kind)
        sum += trace->tracks[t].end[i] - trace->tracks[t].start[i];
  return sum;
}

static inline guint32
find_thread (KsTrace *trace,
             gint64   tid)
{
  for (guint32 t = 0; t < trace->n_threads; t++)
    if (trace->threads[t].tid == tid)
      return t;
  return KS_NO_INDEX;
}
