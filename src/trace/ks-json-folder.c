/* ks-json-folder.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-json-reader"

/* A tensorboard_trace_handler folder: one trace file a rank, loaded into
 * one trace, each file a group of its own. A file that cannot be read is
 * a warning as long as one can. */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "ks-json-reader-private.h"

static gboolean
is_trace_name (const char *name)
{
  return g_str_has_suffix (name, ".json") || g_str_has_suffix (name, ".json.gz");
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *)a, *(const char * const *)b);
}

void
ks_json_note_file_rank (Reader     *r,
                        const char *path)
{
  g_autofree char *base = g_path_get_basename (path);
  KsRank *rank = ks_trace_builder_get_rank (r->builder, r->group);
  gint32 from_name = ks_trace_rank_from_file_name (base);

  rank->file = ks_trace_builder_intern (r->builder, base);
  if (from_name >= 0)
    {
      rank->rank = from_name;
      rank->source = KS_RANK_FROM_FILE_NAME;
    }
}

GPtrArray *
ks_json_list_trace_files (GFile         *folder,
                          GCancellable  *cancellable,
                          GError       **error)
{
  g_autoptr(GFileEnumerator) children = NULL;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GPtrArray *files;

  children = g_file_enumerate_children (folder,
                                        G_FILE_ATTRIBUTE_STANDARD_NAME ","
                                        G_FILE_ATTRIBUTE_STANDARD_TYPE,
                                        G_FILE_QUERY_INFO_NONE, cancellable, error);
  if (children == NULL)
    return NULL;

  for (;;)
    {
      GFileInfo *info = NULL;

      if (!g_file_enumerator_iterate (children, &info, NULL, cancellable, error))
        return NULL;
      if (info == NULL)
        break;
      if (g_file_info_get_file_type (info) == G_FILE_TYPE_REGULAR &&
          is_trace_name (g_file_info_get_name (info)))
        g_ptr_array_add (names, g_strdup (g_file_info_get_name (info)));
    }

  g_ptr_array_sort (names, compare_names);
  files = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < names->len; i++)
    g_ptr_array_add (files, g_file_get_child (folder, g_ptr_array_index (names, i)));
  return files;
}

KsTrace *
ks_json_load_folder (GFile         *folder,
                     KsProgress    *progress,
                     GCancellable  *cancellable,
                     GError       **error)
{
  g_autoptr(GPtrArray) files = NULL;
  g_autofree char *folder_name = g_file_get_parse_name (folder);

  files = ks_json_list_trace_files (folder, cancellable, error);
  if (files == NULL)
    {
      g_prefix_error (error, "%s: ", folder_name);
      return NULL;
    }
  if (files->len == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("%s: the folder holds no trace files (*.json, *.json.gz)"), folder_name);
      return NULL;
    }
  return ks_json_reader_load_files ((GFile **)files->pdata, files->len, folder_name,
                                    progress, cancellable, error);
}

static KsTrace *
load_files (GFile         **files,
            guint           n_files,
            const char     *source_name,
            KsProgress     *progress,
            GCancellable   *cancellable,
            gboolean        lenient,
            gboolean       *fixable,
            GError        **error)
{
  g_autoptr(GArray) sizes = g_array_new (FALSE, TRUE, sizeof (goffset));
  KsTraceBuilder *builder;
  Reader *r;
  KsTrace *trace = NULL;
  goffset total = 0, done = 0;
  guint loaded = 0;
  g_autoptr(GString) failures = g_string_new (NULL);

  for (guint i = 0; i < n_files; i++)
    {
      g_autoptr(GFileInfo) info = g_file_query_info (files[i],
                                                     G_FILE_ATTRIBUTE_STANDARD_SIZE,
                                                     G_FILE_QUERY_INFO_NONE, cancellable, NULL);
      goffset size = info ? g_file_info_get_size (info) : 0;

      g_array_append_val (sizes, size);
      total += size;
    }

  builder = ks_trace_builder_new (KS_FORMAT_KINETO_JSON);
  r = ks_json_reader_new (builder, progress, cancellable);
  r->lenient = lenient;
  ks_trace_builder_set_metadata (builder, "source_name", source_name);

  for (guint i = 0; i < n_files; i++)
    {
      GFile *file = files[i];
      g_autofree char *name = g_file_get_parse_name (file);
      g_autoptr(GFileInputStream) stream = NULL;
      GError *local_error = NULL;
      goffset size = g_array_index (sizes, goffset, i);
      double base = total > 0 ? 0.95 * done / total : 0;
      double span = total > 0 ? 0.95 * size / total : 0;

      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        goto out;

      r->name = name;
      r->group = i;
      ks_trace_builder_set_group (builder, i);
      ks_json_note_file_rank (r, name);

      /* Each rank's file has its own base time: align them on the first. */
      stream = g_file_read (file, cancellable, &local_error);
      if (stream != NULL &&
          ks_json_read_stream (r, G_INPUT_STREAM (stream), size, base, span, &local_error))
        {
          ks_json_finish_file (r, loaded == 0);
          loaded++;
        }
      else if (g_error_matches (local_error, G_IO_ERROR, G_IO_ERROR_CANCELLED) || r->lenient_fixable)
        {
          *fixable = r->lenient_fixable;
          g_propagate_error (error, local_error);
          goto out;
        }
      else
        {
          if (stream == NULL)
            g_prefix_error (&local_error, "%s: ", name);
          /* a file that could not be read is no rank of the job */
          ks_trace_builder_get_rank (builder, i)->rank = -1;
          if (failures->len > 0)
            g_string_append_c (failures, '\n');
          g_string_append (failures, local_error->message);
          ks_trace_builder_add_warning (builder, "%s", local_error->message);
          g_clear_error (&local_error);
        }
      done += size;
      r->name = NULL;
    }

  if (loaded == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: none of the trace files could be read:\n%s"), source_name, failures->str);
      goto out;
    }

  trace = ks_json_finish_trace (r, error);

out:
  if (r->builder != NULL)
    ks_trace_builder_free (r->builder);
  ks_json_reader_free (r);
  return trace;
}

KsTrace *
ks_json_reader_load_files (GFile         **files,
                           guint           n_files,
                           const char     *source_name,
                           KsProgress     *progress,
                           GCancellable   *cancellable,
                           GError        **error)
{
  GError *local_error = NULL;
  gboolean fixable = FALSE;
  KsTrace *trace = load_files (files, n_files, source_name, progress, cancellable, FALSE, &fixable, &local_error);

  /* a file with trailing commas or raw control characters: the files
   * are read again, leniently (see ks_json_reader_load_stream()) */
  if (trace == NULL && fixable)
    {
      g_clear_error (&local_error);
      trace = load_files (files, n_files, source_name, progress, cancellable, TRUE, &fixable, &local_error);
    }
  if (local_error != NULL)
    g_propagate_error (error, local_error);
  return trace;
}
