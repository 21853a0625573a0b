/* ks-trace-search.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-trace-search"

#include "config.h"

#include <string.h>

#include "ks-trace-search.h"

/* Slices scanned between two looks at the cancellable. */
#define CANCEL_STRIDE (1u << 16)

struct _KsSearchResult
{
  char    *text;
  guint8  *names;
  guint32  n_names;
  guint    n_names_matched;
  GArray  *matches;   /* KsSearchMatch */
};

static void
search_result_clear (gpointer data)
{
  KsSearchResult *self = data;

  g_free (self->text);
  g_free (self->names);
  g_array_unref (self->matches);
}

KsSearchResult *
ks_search_result_ref (KsSearchResult *self)
{
  return g_atomic_rc_box_acquire (self);
}

void
ks_search_result_unref (KsSearchResult *self)
{
  g_atomic_rc_box_release_full (self, search_result_clear);
}

G_DEFINE_BOXED_TYPE (KsSearchResult, ks_search_result, ks_search_result_ref, ks_search_result_unref)

const char *
ks_search_result_get_text (KsSearchResult *self)
{
  g_return_val_if_fail (self != NULL, NULL);

  return self->text;
}

const guint8 *
ks_search_result_get_names (KsSearchResult *self,
                            guint32        *n_names)
{
  g_return_val_if_fail (self != NULL, NULL);

  if (n_names)
    *n_names = self->n_names;
  return self->names;
}

guint
ks_search_result_get_n_names_matched (KsSearchResult *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->n_names_matched;
}

guint
ks_search_result_get_n_matches (KsSearchResult *self)
{
  g_return_val_if_fail (self != NULL, 0);

  return self->matches->len;
}

const KsSearchMatch *
ks_search_result_get_match (KsSearchResult *self,
                            guint           i)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_return_val_if_fail (i < self->matches->len, NULL);

  return &g_array_index (self->matches, KsSearchMatch, i);
}

struct _KsTraceSearch
{
  GObject   parent_instance;

  KsTrace  *trace;
  GMutex    mutex;     /* guards folded while it is built */
  char    **folded;    /* per string id, built by the first search */
};

G_DEFINE_FINAL_TYPE (KsTraceSearch, ks_trace_search, G_TYPE_OBJECT)

static void
ks_trace_search_finalize (GObject *object)
{
  KsTraceSearch *self = (KsTraceSearch *)object;

  if (self->folded != NULL)
    {
      for (guint32 id = 0; id < self->trace->n_strings; id++)
        g_free (self->folded[id]);
      g_free (self->folded);
    }
  g_clear_object (&self->trace);
  g_mutex_clear (&self->mutex);

  G_OBJECT_CLASS (ks_trace_search_parent_class)->finalize (object);
}

static void
ks_trace_search_class_init (KsTraceSearchClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ks_trace_search_finalize;
}

static void
ks_trace_search_init (KsTraceSearch *self)
{
  g_mutex_init (&self->mutex);
}

KsTraceSearch *
ks_trace_search_new (KsTrace *trace)
{
  KsTraceSearch *self;

  g_return_val_if_fail (KS_IS_TRACE (trace), NULL);

  self = g_object_new (KS_TYPE_TRACE_SEARCH, NULL);
  self->trace = g_object_ref (trace);
  return self;
}

KsTrace *
ks_trace_search_get_trace (KsTraceSearch *self)
{
  g_return_val_if_fail (KS_IS_TRACE_SEARCH (self), NULL);

  return self->trace;
}

/* The folded names, built once: a later search (or one waiting on the
 * mutex meanwhile) reuses them. */
static char **
ensure_folded (KsTraceSearch *self)
{
  char **folded;

  g_mutex_lock (&self->mutex);
  if (self->folded == NULL)
    {
      folded = g_new0 (char *, MAX (1, self->trace->n_strings));
      for (guint32 id = 0; id < self->trace->n_strings; id++)
        folded[id] = g_utf8_casefold (self->trace->strings[id], -1);
      self->folded = folded;
    }
  folded = self->folded;
  g_mutex_unlock (&self->mutex);
  return folded;
}

static int
compare_matches (const KsSearchMatch *a,
                 const KsSearchMatch *b)
{
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  if (a->track != b->track)
    return a->track < b->track ? -1 : 1;
  return a->slice < b->slice ? -1 : a->slice > b->slice;
}

/* Merges the sorted runs of @matches (each track's matches are already
 * in time order) pairwise, looking at @cancellable between merges. */
static gboolean
merge_runs (GArray       *matches,
            GArray       *runs,
            GCancellable *cancellable)
{
  g_autofree KsSearchMatch *tmp = g_new (KsSearchMatch, MAX (1, matches->len));
  KsSearchMatch *src = (KsSearchMatch *)(void *)matches->data;
  KsSearchMatch *dst = tmp;
  guint *bounds = (guint *)(void *)runs->data;   /* n_runs + 1 offsets */
  guint n_runs = runs->len - 1;

  while (n_runs > 1)
    {
      guint out = 0;

      for (guint r = 0; r < n_runs; r += 2)
        {
          guint lo = bounds[r], mid = bounds[MIN (r + 1, n_runs)], hi = bounds[MIN (r + 2, n_runs)];
          guint i = lo, j = mid, k = lo;

          if (g_cancellable_is_cancelled (cancellable))
            return FALSE;
          while (i < mid && j < hi)
            dst[k++] = compare_matches (&src[j], &src[i]) < 0 ? src[j++] : src[i++];
          memcpy (&dst[k], &src[i], (mid - i) * sizeof *dst);
          k += mid - i;
          memcpy (&dst[k], &src[j], (hi - j) * sizeof *dst);
          bounds[out++] = lo;
        }
      bounds[out] = bounds[n_runs];
      n_runs = out;
      {
        KsSearchMatch *swap = src;

        src = dst;
        dst = swap;
      }
    }

  if (src != (KsSearchMatch *)(void *)matches->data)
    memcpy (matches->data, src, matches->len * sizeof *src);
  return TRUE;
}

KsSearchResult *
ks_trace_search_run (KsTraceSearch       *self,
                     const char          *text,
                     KsTraceSearchFlags   flags,
                     GCancellable        *cancellable,
                     GError             **error)
{
  g_autoptr(GRegex) re = NULL;
  g_autofree char *needle = NULL;
  g_autoptr(GArray) runs = NULL;
  g_autoptr(KsSearchResult) result = NULL;
  KsTrace *trace;
  char **folded = NULL;
  guint scanned = 0;

  g_return_val_if_fail (KS_IS_TRACE_SEARCH (self), NULL);
  g_return_val_if_fail (text != NULL, NULL);
  g_return_val_if_fail (!error || !*error, NULL);

  trace = self->trace;
  if (flags & KS_TRACE_SEARCH_REGEX)
    {
      re = g_regex_new (text, G_REGEX_CASELESS | G_REGEX_OPTIMIZE, 0, error);
      if (re == NULL)
        return NULL;
    }
  else
    {
      needle = g_utf8_casefold (text, -1);
      folded = ensure_folded (self);
    }

  result = g_atomic_rc_box_new0 (KsSearchResult);
  result->text = g_strdup (text);
  result->n_names = MAX (1, trace->n_strings);
  result->names = g_new0 (guint8, result->n_names);
  result->matches = g_array_new (FALSE, FALSE, sizeof (KsSearchMatch));

  /* Each distinct name once (id 0 is the empty name of no slice). */
  for (guint32 id = 1; id < trace->n_strings; id++)
    {
      if (re != NULL)
        result->names[id] = g_regex_match (re, trace->strings[id], 0, NULL);
      else
        result->names[id] = strstr (folded[id], needle) != NULL;
      result->n_names_matched += result->names[id];
      if ((id % CANCEL_STRIDE) == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
    }
  if (g_cancellable_set_error_if_cancelled (cancellable, error))
    return NULL;
  if (result->n_names_matched == 0)
    return g_steal_pointer (&result);

  /* Then the slices bearing them, one sorted run per track. */
  runs = g_array_new (FALSE, FALSE, sizeof (guint));
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];
      guint first = result->matches->len;

      for (guint32 i = 0; i < track->n_slices; i++)
        {
          if (result->names[track->name_id[i]])
            {
              KsSearchMatch m = { t, i, track->start[i] };

              g_array_append_val (result->matches, m);
            }
          if (++scanned % CANCEL_STRIDE == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
            return NULL;
        }
      if (result->matches->len > first)
        g_array_append_val (runs, first);
    }
  g_array_append_val (runs, result->matches->len);

  if (!merge_runs (result->matches, runs, cancellable))
    {
      g_cancellable_set_error_if_cancelled (cancellable, error);
      return NULL;
    }
  return g_steal_pointer (&result);
}

typedef struct
{
  char               *text;
  KsTraceSearchFlags  flags;
} SearchData;

static void
search_data_free (gpointer data)
{
  SearchData *sd = data;

  g_free (sd->text);
  g_free (sd);
}

static void
search_thread (GTask        *task,
               gpointer      source_object,
               gpointer      task_data,
               GCancellable *cancellable)
{
  SearchData *sd = task_data;
  GError *error = NULL;
  KsSearchResult *result = ks_trace_search_run (source_object, sd->text, sd->flags, cancellable, &error);

  if (result == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, result, (GDestroyNotify) ks_search_result_unref);
}

void
ks_trace_search_run_async (KsTraceSearch       *self,
                           const char          *text,
                           KsTraceSearchFlags   flags,
                           GCancellable        *cancellable,
                           GAsyncReadyCallback  callback,
                           gpointer             user_data)
{
  g_autoptr(GTask) task = NULL;
  SearchData *sd;

  g_return_if_fail (KS_IS_TRACE_SEARCH (self));
  g_return_if_fail (text != NULL);

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, ks_trace_search_run_async);
  /* a cancelled search reports so, even when it had finished */
  g_task_set_return_on_cancel (task, FALSE);
  g_task_set_check_cancellable (task, TRUE);
  sd = g_new0 (SearchData, 1);
  sd->text = g_strdup (text);
  sd->flags = flags;
  g_task_set_task_data (task, sd, search_data_free);
  g_task_run_in_thread (task, search_thread);
}

KsSearchResult *
ks_trace_search_run_finish (KsTraceSearch  *self,
                            GAsyncResult   *result,
                            GError        **error)
{
  g_return_val_if_fail (KS_IS_TRACE_SEARCH (self), NULL);
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}
