/* ks-json-folder.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-json-reader"

/* A tensorboard_trace_handler folder: one trace file a rank, loaded into
 * one trace, each file a group of its own. A file that cannot be read is
 * a warning as long as one can.
 *
 * The files load in parallel: while one is parsed (its event array on
 * the chunk workers of ks-json-parallel.c) and put into the model, the
 * gzip files after it are read and inflated on a pool of their own, up
 * to a file a thread and PREFETCH_BUDGET bytes ahead. Each file then
 * goes through the one reader in file order, from its inflated text,
 * so the trace is the one a load on one thread builds (the model's
 * strings, processes and clocks follow the files' order). A file whose
 * inflation fails or ends early is read as on one thread, which says
 * what is wrong with it. */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "ks-gzip.h"
#include "ks-json-reader-private.h"
#include "ks-load-phases.h"

/* the most inflated text held ahead of the reader */
#define PREFETCH_BUDGET (G_GUINT64_CONSTANT (1) << 30)

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

/* The size of a file's text: a gzip file's ISIZE (the text modulo
 * 4 GiB), when it is larger than the file. */
static guint64
file_text_size (GFile    *file,
                gboolean *gzip)
{
  g_autoptr(GFileInfo) info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_SIZE,
                                                 G_FILE_QUERY_INFO_NONE, NULL, NULL);
  g_autoptr(GFileInputStream) in = NULL;
  guint64 size = info != NULL ? (guint64)g_file_info_get_size (info) : 0;
  guint8 head[2];
  guint32 isize;

  *gzip = FALSE;
  if (size < 18 || (in = g_file_read (file, NULL, NULL)) == NULL ||
      g_input_stream_read (G_INPUT_STREAM (in), head, 2, NULL, NULL) != 2 ||
      !ks_gzip_has_magic (head, 2) ||
      !ks_gzip_read_isize (G_INPUT_STREAM (in), size, &isize, NULL))
    return size;
  *gzip = TRUE;
  return MAX (size, isize);
}

guint
ks_json_reader_get_n_threads (void)
{
  return ks_json_thread_count ();
}

guint64
ks_json_file_text_size (GFile *file)
{
  gboolean gzip;

  g_return_val_if_fail (G_IS_FILE (file), 0);

  return file_text_size (file, &gzip);
}

typedef struct
{
  GFile    *file;
  gboolean  gzip;
  guint64   estimate;      /* its inflated size */
  gboolean  dispatched;
  gboolean  done;
  GBytes   *text;          /* inflated, or NULL: the reader reads the file */
} Ahead;

typedef struct
{
  GThreadPool  *pool;
  GMutex        lock;
  GCond         cond;
  GCancellable *cancellable;
  Ahead        *items;
  guint         n_items;
  guint         next;          /* the next file to consider */
  guint         max_ahead;
  guint64       outstanding;   /* estimates of the files inflated, not yet read */
  guint         n_used;
} Prefetch;

static void
inflate_job (gpointer data,
             gpointer user_data)
{
  Ahead *a = data;
  Prefetch *p = user_data;
  g_autoptr(GFileInputStream) in = NULL;
  GBytes *text = NULL;

  if (!g_cancellable_is_cancelled (p->cancellable) && (in = g_file_read (a->file, p->cancellable, NULL)) != NULL)
    text = ks_json_inflate_all (G_INPUT_STREAM (in), a->estimate, p->cancellable);
  g_mutex_lock (&p->lock);
  a->text = text;
  a->done = TRUE;
  g_cond_broadcast (&p->cond);
  g_mutex_unlock (&p->lock);
}

/* NULL on one thread, or for a single file. */
static Prefetch *
prefetch_new (GFile        **files,
              guint          n_files,
              GCancellable  *cancellable)
{
  guint threads = ks_json_thread_count ();
  Prefetch *p;

  if (threads <= 1 || n_files < 2)
    return NULL;
  p = g_new0 (Prefetch, 1);
  g_mutex_init (&p->lock);
  g_cond_init (&p->cond);
  p->cancellable = cancellable;
  p->max_ahead = threads - 1;
  p->pool = g_thread_pool_new (inflate_job, p, p->max_ahead, FALSE, NULL);
  p->items = g_new0 (Ahead, n_files);
  p->n_items = n_files;
  for (guint i = 0; i < n_files; i++)
    {
      p->items[i].file = files[i];
      p->items[i].estimate = file_text_size (files[i], &p->items[i].gzip);
    }
  return p;
}

/* Before file @i is read: the gzip files after it go to the pool, as
 * many as there are threads and the budget allows. */
static void
prefetch_dispatch (Prefetch *p,
                   guint     i)
{
  if (p == NULL)
    return;
  p->next = MAX (p->next, i + 1);
  while (p->next < p->n_items && p->next <= i + p->max_ahead)
    {
      Ahead *a = &p->items[p->next];

      if (a->gzip && a->estimate <= PREFETCH_BUDGET)
        {
          if (p->outstanding + a->estimate > PREFETCH_BUDGET)
            break;
          a->dispatched = TRUE;
          p->outstanding += a->estimate;
          g_thread_pool_push (p->pool, a, NULL);
        }
      p->next++;
    }
}

/* The inflated text of file @i, or NULL. */
static GBytes *
prefetch_take (Prefetch *p,
               guint     i)
{
  Ahead *a;
  GBytes *text;

  if (p == NULL || !p->items[i].dispatched)
    return NULL;
  a = &p->items[i];
  g_mutex_lock (&p->lock);
  while (!a->done)
    g_cond_wait (&p->cond, &p->lock);
  text = g_steal_pointer (&a->text);
  g_mutex_unlock (&p->lock);
  a->dispatched = FALSE;
  p->outstanding -= a->estimate;
  if (text != NULL)
    p->n_used++;
  return text;
}

static void
prefetch_free (Prefetch   *p,
               const char *source_name)
{
  if (p == NULL)
    return;
  /* files not started are dropped; running ones finish first */
  g_thread_pool_free (p->pool, TRUE, TRUE);
  g_debug ("%s: %u of %u files inflated ahead on %u threads", source_name, p->n_used, p->n_items, p->max_ahead);
  for (guint i = 0; i < p->n_items; i++)
    g_clear_pointer (&p->items[i].text, g_bytes_unref);
  g_free (p->items);
  g_mutex_clear (&p->lock);
  g_cond_clear (&p->cond);
  g_free (p);
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
  Prefetch *prefetch;
  KsPhaseClock clock;

  ks_phase_start (&clock);
  for (guint i = 0; i < n_files; i++)
    {
      g_autoptr(GFileInfo) info = g_file_query_info (files[i],
                                                     G_FILE_ATTRIBUTE_STANDARD_SIZE,
                                                     G_FILE_QUERY_INFO_NONE, cancellable, NULL);
      goffset size = info ? g_file_info_get_size (info) : 0;

      g_array_append_val (sizes, size);
      total += size;
    }

  prefetch = prefetch_new (files, n_files, cancellable);
  builder = ks_trace_builder_new (KS_FORMAT_KINETO_JSON);
  r = ks_json_reader_new (builder, progress, cancellable);
  r->lenient = lenient;
  /* with more than one thread, the folder's text bounds its chunks in flight */
  for (guint i = 0; prefetch != NULL && i < n_files; i++)
    r->load_size += (goffset) prefetch->items[i].estimate;
  ks_trace_builder_set_metadata (builder, "source_name", source_name);

  for (guint i = 0; i < n_files; i++)
    {
      GFile *file = files[i];
      g_autofree char *name = g_file_get_parse_name (file);
      g_autoptr(GInputStream) stream = NULL;
      g_autoptr(GBytes) text = NULL;
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
      prefetch_dispatch (prefetch, i);
      text = prefetch_take (prefetch, i);
      if (text != NULL)
        stream = g_memory_input_stream_new_from_bytes (text);
      else
        stream = G_INPUT_STREAM (g_file_read (file, cancellable, &local_error));
      if (stream != NULL &&
          ks_json_read_stream (r, stream, text != NULL ? (goffset)g_bytes_get_size (text) : size,
                               base, span, &local_error))
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

  ks_phase_next (&clock, "read");
  trace = ks_json_finish_trace (r, error);
  ks_phase_next (&clock, "finish");

out:
  prefetch_free (prefetch, source_name);
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
