/* ks-document-loader.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-document-loader"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "ks-document-loader.h"
#include "ks-early-cores.h"
#include "ks-json-reader.h"
#include "ks-memory-blocks.h"
#include "ks-progress.h"
#include "ks-session.h"
#include "ks-trace-loader.h"

struct _KsDocumentLoader
{
  GObject        parent_instance;

  GFile         *file;
  double         fraction;
  char          *message;
  GCancellable  *cancellable;   /* the load under way; NULL when none */
  gpointer       relay;         /* its progress */
};

G_DEFINE_FINAL_TYPE (KsDocumentLoader, ks_document_loader, G_TYPE_OBJECT)

enum {
  PROP_0,
  PROP_FILE,
  PROP_FRACTION,
  PROP_MESSAGE,
  PROP_LOADING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Progress travels from the worker to the loader through this relay:
 * the worker schedules at most one idle at a time, and the idle finds
 * the loader through a weak reference, so neither side has to outlive
 * the other. A relay is of one load: a newer one's replaces it.
 *
 * The loader hears of it at most every RELAY_INTERVAL_US: each change
 * draws a frame of the progress page, and the load changes its fraction
 * every chunk, so the window drew as fast as it could throughout the
 * load, on the cores the load needs (with GTK's GL renderer drawn in
 * software, 60-75 ms of them a frame on two cores). Five a second is
 * as often as a percentage is read. */
#define RELAY_INTERVAL_US (200 * G_TIME_SPAN_MILLISECOND)

typedef struct
{
  gatomicrefcount ref_count;
  GWeakRef        loader;
  KsProgress     *progress;   /* not owned: the load's data holds it */
  gint            pending;
  gint64          told_us;    /* main thread: when the loader last heard */
} ProgressRelay;

static ProgressRelay *
relay_ref (ProgressRelay *relay)
{
  g_atomic_ref_count_inc (&relay->ref_count);
  return relay;
}

static void
relay_unref (gpointer data)
{
  ProgressRelay *relay = data;

  if (g_atomic_ref_count_dec (&relay->ref_count))
    {
      g_weak_ref_clear (&relay->loader);
      g_free (relay);
    }
}

static void
set_progress (KsDocumentLoader *self,
              double            fraction,
              const char       *message)
{
  if (self->fraction != fraction)
    {
      self->fraction = fraction;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FRACTION]);
    }
  if (g_strcmp0 (self->message, message) != 0)
    {
      g_free (self->message);
      self->message = g_strdup (message);
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MESSAGE]);
    }
}

static gboolean
relay_idle_cb (gpointer data)
{
  ProgressRelay *relay = data;
  g_autoptr(KsDocumentLoader) self = NULL;
  gint64 now = g_get_monotonic_time ();

  /* too soon: told once the interval is over, still pending meanwhile */
  if (relay->told_us != 0 && now - relay->told_us < RELAY_INTERVAL_US)
    {
      guint ms = (guint) ((relay->told_us + RELAY_INTERVAL_US - now + 999) / 1000);

      g_timeout_add_full (G_PRIORITY_LOW, ms, relay_idle_cb, relay_ref (relay), relay_unref);
      return G_SOURCE_REMOVE;
    }
  relay->told_us = now;

  self = g_weak_ref_get (&relay->loader);
  g_atomic_int_set (&relay->pending, 0);

  if (self != NULL && self->relay == relay)
    {
      g_autofree char *message = ks_progress_dup_message (relay->progress);

      set_progress (self, ks_progress_get_fraction (relay->progress), message ? message : "");
    }

  return G_SOURCE_REMOVE;
}

static void
relay_notify_cb (KsProgress *progress,
                 gpointer    user_data)
{
  ProgressRelay *relay = user_data;

  if (g_atomic_int_compare_and_exchange (&relay->pending, 0, 1))
    g_idle_add_full (G_PRIORITY_LOW, relay_idle_cb, relay_ref (relay), relay_unref);
}

/* One load: its worker, then for a folder over the memory bound the
 * ranks' summaries. It outlives the loader that asked for it until its
 * worker returns, and it may start with no loader at all (an early load,
 * ks_document_loader_start_early()) and be adopted by one later. Its
 * references are taken and dropped on the main thread; while a task
 * waits for its result the two hold each other, until it is returned. */
typedef struct
{
  gatomicrefcount        ref_count;
  GFile                 *file;
  KsDocumentLoadOptions  options;
  KsProgress            *progress;
  GCancellable          *cancellable;

  /* a folder over the memory bound: its trace files, how many to
   * summarise at once, and its sizes */
  GPtrArray             *job;
  guint                  jobs;
  guint64                bound;
  guint64                json_bytes;

  /* the result, once the load ended (done) */
  gboolean               done;
  GError                *error;
  KsTrace               *trace;
  KsRankSummaries       *summaries;

  /* the loader's task, which the result goes to; NULL for an early load
   * nobody adopted yet */
  GTask                 *task;
  gboolean               dropped;   /* an early load nobody adopted */
  gboolean               early;     /* begun before GTK started */
} Load;

/* Loads of this process, for tests (ks_document_loader_get_counts()). */
static KsDocumentLoaderCounts counts;

/* The early loads nobody adopted yet, oldest first; main thread only. */
static GQueue early_loads = G_QUEUE_INIT;

static Load *
load_ref (Load *load)
{
  g_atomic_ref_count_inc (&load->ref_count);
  return load;
}

static void
load_unref (gpointer data)
{
  Load *load = data;

  if (!g_atomic_ref_count_dec (&load->ref_count))
    return;
  if (load->dropped)
    counts.dropped_alive--;
  g_clear_object (&load->file);
  g_clear_object (&load->options.snapshot);
  g_clear_pointer (&load->progress, ks_progress_unref);
  g_clear_object (&load->cancellable);
  g_clear_pointer (&load->job, g_ptr_array_unref);
  g_clear_error (&load->error);
  g_clear_object (&load->trace);
  g_clear_object (&load->summaries);
  g_free (load);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (Load, load_unref)

/* On the worker: whether @d's file is a folder over the memory bound
 * (listing it and reading its files' gzip trailers), else its trace. */
static void
size_and_load_thread (GTask        *task,
                      gpointer      source_object,
                      gpointer      task_data,
                      GCancellable *cancellable)
{
  Load *d = task_data;
  KsTraceLoadOptions trace_options = { d->options.nvsmi_interval, NULL };
  g_autoptr(GError) error = NULL;

  /* off the main thread's core while GTK starts, with the threads the
   * load starts */
  if (d->early)
    ks_early_cores_enter ();

  if (g_file_query_file_type (d->file, G_FILE_QUERY_INFO_NONE, cancellable) == G_FILE_TYPE_DIRECTORY)
    {
      g_autoptr(GPtrArray) files = NULL;

      ks_progress_set_message (d->progress, _("Listing the folder…"));
      /* a folder that cannot be listed is the trace loader's to explain */
      files = ks_json_list_trace_files (d->file, cancellable, NULL);
      d->bound = ks_rank_summaries_memory_bound (d->options.folder_memory_mb);
      if (files != NULL &&
          ks_rank_summaries_over_bound ((GFile **) files->pdata, files->len, d->bound, &d->json_bytes))
        {
          d->jobs = ks_rank_summaries_plan_jobs ((GFile **) files->pdata, files->len, d->bound);
          d->job = g_steal_pointer (&files);
          g_task_return_boolean (task, TRUE);
          return;
        }
      ks_progress_set_message (d->progress, _("Reading…"));
    }

  if (d->options.snapshot != NULL)
    {
      GFile *pair[] = { d->file, d->options.snapshot };

      d->trace = ks_trace_load_files (pair, G_N_ELEMENTS (pair), d->progress, cancellable, &error);
    }
  else
    d->trace = ks_trace_load_with_options (d->file, &trace_options, d->progress, cancellable, &error);
  if (d->trace == NULL)
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  /* what the timeline asks for first, built here rather than on the
   * main thread */
  ks_memory_blocks_prepare (d->trace, &d->options.analysis, cancellable);
  g_task_return_boolean (task, TRUE);
}

/* The result of @load, which has ended, to its loader's task. */
static void
return_result (Load *load)
{
  g_autoptr(GTask) task = g_steal_pointer (&load->task);

  if (load->error != NULL)
    g_task_return_error (task, g_steal_pointer (&load->error));
  else
    g_task_return_boolean (task, TRUE);
}

/* @load ended, well or not (@error). An early load nobody adopted
 * keeps its result for the loader that will. */
static void
end_pipeline (Load   *load,
              GError *error)
{
  load->done = TRUE;
  load->error = error;
  if (load->task != NULL)
    return_result (load);
}

static void
summaries_cb (GObject      *object,
              GAsyncResult *result,
              gpointer      user_data)
{
  g_autoptr(Load) d = user_data;
  GError *error = NULL;

  d->summaries = ks_rank_summaries_compute_finish (result, &error);
  if (d->summaries != NULL)
    ks_rank_summaries_set_sizes (d->summaries, d->json_bytes, d->bound);
  end_pipeline (d, error);
}

static void
sized_cb (GObject      *object,
          GAsyncResult *result,
          gpointer      user_data)
{
  g_autoptr(Load) d = user_data;
  GError *error = NULL;

  if (!g_task_propagate_boolean (G_TASK (result), &error) || d->job == NULL)
    {
      end_pipeline (d, error);
      return;
    }

  ks_rank_summaries_compute_async ((GFile **) d->job->pdata, d->job->len, d->jobs, &d->options.analysis,
                                   d->progress, d->cancellable, summaries_cb, load_ref (d));
}

/* A load of @file with @options, its worker started; @early: begun
 * before GTK started. */
static Load *
load_start (GFile                       *file,
            const KsDocumentLoadOptions *options,
            gboolean                     early)
{
  g_autoptr(GTask) sizing = NULL;
  Load *load = g_new0 (Load, 1);

  g_atomic_ref_count_init (&load->ref_count);
  load->file = g_object_ref (file);
  load->options = *options;
  if (options->snapshot != NULL)
    load->options.snapshot = g_object_ref (options->snapshot);
  load->progress = ks_progress_new ();
  load->cancellable = g_cancellable_new ();
  load->early = early;

  /* the worker's task shares the load, its callback holds it */
  sizing = g_task_new (NULL, load->cancellable, sized_cb, load_ref (load));
  g_task_set_source_tag (sizing, size_and_load_thread);
  g_task_set_task_data (sizing, load, NULL);
  g_task_run_in_thread (sizing, size_and_load_thread);
  counts.started++;
  return load;
}

static gboolean
load_options_equal (const KsDocumentLoadOptions *a,
                    const KsDocumentLoadOptions *b)
{
  if ((a->snapshot == NULL) != (b->snapshot == NULL) ||
      (a->snapshot != NULL && !g_file_equal (a->snapshot, b->snapshot)))
    return FALSE;
  return a->nvsmi_interval == b->nvsmi_interval && a->folder_memory_mb == b->folder_memory_mb &&
         ks_analysis_options_equal (&a->analysis, &b->analysis);
}

/* The early load of @file with @options, taken from the list; NULL when
 * there is none. */
static Load *
take_early (GFile                       *file,
            const KsDocumentLoadOptions *options)
{
  for (GList *l = early_loads.head; l != NULL; l = l->next)
    {
      Load *load = l->data;

      if (g_file_equal (load->file, file) && load_options_equal (&load->options, options))
        {
          g_queue_delete_link (&early_loads, l);
          counts.adopted++;
          return load;
        }
    }
  return NULL;
}

void
ks_document_load_options_init (KsDocumentLoadOptions *options,
                               GSettings             *settings,
                               GFile                 *snapshot)
{
  g_return_if_fail (options != NULL);
  g_return_if_fail (settings == NULL || G_IS_SETTINGS (settings));

  memset (options, 0, sizeof *options);
  if (settings != NULL)
    options->folder_memory_mb = g_settings_get_int (settings, "folder-memory-mb");
  ks_session_options_from_settings (settings, &options->analysis);
  options->snapshot = snapshot;
}

void
ks_document_loader_start_early (GFile                       *file,
                                const KsDocumentLoadOptions *options)
{
  Load *load;

  g_return_if_fail (G_IS_FILE (file));
  g_return_if_fail (options != NULL);

  load = load_start (file, options, TRUE);
  counts.early++;
  g_queue_push_tail (&early_loads, load);
}

guint
ks_document_loader_drop_early (void)
{
  guint n = 0;
  Load *load;

  while ((load = g_queue_pop_head (&early_loads)) != NULL)
    {
      /* its worker's callback holds it until the worker stops */
      g_cancellable_cancel (load->cancellable);
      load->dropped = TRUE;
      counts.dropped++;
      counts.dropped_alive++;
      load_unref (load);
      n++;
    }
  return n;
}

void
ks_document_loader_get_counts (KsDocumentLoaderCounts *out)
{
  g_return_if_fail (out != NULL);

  *out = counts;
}

/* The load under way ends: its last progress is shown (the worker's
 * last notification may not have come through yet), then nothing more
 * comes. */
static void
end_load (KsDocumentLoader *self)
{
  ProgressRelay *relay = self->relay;

  if (relay != NULL)
    {
      g_autofree char *message = ks_progress_dup_message (relay->progress);

      set_progress (self, ks_progress_get_fraction (relay->progress), message ? message : "");
    }
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->relay, relay_unref);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);
}

void
ks_document_loader_load_async (KsDocumentLoader            *self,
                               GFile                       *file,
                               const KsDocumentLoadOptions *options,
                               GAsyncReadyCallback          callback,
                               gpointer                     user_data)
{
  g_autoptr(GTask) task = NULL;
  g_autoptr(Load) load = NULL;
  ProgressRelay *relay;
  gboolean was_loading, adopted;

  g_return_if_fail (KS_IS_DOCUMENT_LOADER (self));
  g_return_if_fail (G_IS_FILE (file));
  g_return_if_fail (options != NULL);

  was_loading = self->cancellable != NULL;
  if (was_loading)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->relay, relay_unref);

  /* the command line's file may be loading since the start-up */
  load = take_early (file, options);
  adopted = load != NULL;
  if (!adopted)
    load = load_start (file, options, FALSE);
  self->cancellable = g_object_ref (load->cancellable);

  relay = g_new0 (ProgressRelay, 1);
  g_atomic_ref_count_init (&relay->ref_count);
  g_weak_ref_init (&relay->loader, self);
  relay->progress = load->progress;
  self->relay = relay;
  ks_progress_set_notify (load->progress, relay_notify_cb, relay_ref (relay), relay_unref);

  if (g_set_object (&self->file, file))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILE]);
  set_progress (self, 0, _("Reading…"));
  if (adopted)
    {
      /* its progress so far */
      g_autofree char *message = ks_progress_dup_message (load->progress);

      if (message != NULL)
        set_progress (self, ks_progress_get_fraction (load->progress), message);
    }
  if (!was_loading)
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LOADING]);

  task = g_task_new (self, self->cancellable, callback, user_data);
  g_task_set_source_tag (task, ks_document_loader_load_async);
  g_task_set_task_data (task, load_ref (load), load_unref);
  load->task = g_object_ref (task);
  /* an early load that has ended already: its result, at the main
   * loop's next iteration as any other */
  if (load->done)
    return_result (load);
}

gboolean
ks_document_loader_load_finish (KsDocumentLoader  *self,
                                GAsyncResult      *result,
                                KsTrace          **trace,
                                KsRankSummaries  **summaries,
                                GError           **error)
{
  GTask *task = G_TASK (result);
  Load *d;

  g_return_val_if_fail (KS_IS_DOCUMENT_LOADER (self), FALSE);
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  g_return_val_if_fail (g_task_get_source_tag (task) == ks_document_loader_load_async, FALSE);

  /* the load under way ended; an older one's end changes nothing */
  if (self->cancellable != NULL && g_task_get_cancellable (task) == self->cancellable)
    end_load (self);

  if (!g_task_propagate_boolean (task, error))
    return FALSE;

  d = g_task_get_task_data (task);
  if (trace != NULL)
    *trace = g_steal_pointer (&d->trace);
  if (summaries != NULL)
    *summaries = g_steal_pointer (&d->summaries);
  return TRUE;
}

void
ks_document_loader_cancel (KsDocumentLoader *self)
{
  g_return_if_fail (KS_IS_DOCUMENT_LOADER (self));

  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
}

GFile *
ks_document_loader_get_file (KsDocumentLoader *self)
{
  g_return_val_if_fail (KS_IS_DOCUMENT_LOADER (self), NULL);

  return self->file;
}

double
ks_document_loader_get_fraction (KsDocumentLoader *self)
{
  g_return_val_if_fail (KS_IS_DOCUMENT_LOADER (self), 0);

  return self->fraction;
}

const char *
ks_document_loader_get_message (KsDocumentLoader *self)
{
  g_return_val_if_fail (KS_IS_DOCUMENT_LOADER (self), NULL);

  return self->message;
}

gboolean
ks_document_loader_get_loading (KsDocumentLoader *self)
{
  g_return_val_if_fail (KS_IS_DOCUMENT_LOADER (self), FALSE);

  return self->cancellable != NULL;
}

static void
ks_document_loader_get_property (GObject    *object,
                                 guint       prop_id,
                                 GValue     *value,
                                 GParamSpec *pspec)
{
  KsDocumentLoader *self = KS_DOCUMENT_LOADER (object);

  switch (prop_id)
    {
    case PROP_FILE:
      g_value_set_object (value, self->file);
      break;

    case PROP_FRACTION:
      g_value_set_double (value, self->fraction);
      break;

    case PROP_MESSAGE:
      g_value_set_string (value, self->message);
      break;

    case PROP_LOADING:
      g_value_set_boolean (value, ks_document_loader_get_loading (self));
      break;

    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
ks_document_loader_dispose (GObject *object)
{
  KsDocumentLoader *self = KS_DOCUMENT_LOADER (object);

  /* the worker's task holds no reference back: it just stops */
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_pointer (&self->relay, relay_unref);

  G_OBJECT_CLASS (ks_document_loader_parent_class)->dispose (object);
}

static void
ks_document_loader_finalize (GObject *object)
{
  KsDocumentLoader *self = KS_DOCUMENT_LOADER (object);

  g_clear_object (&self->file);
  g_clear_pointer (&self->message, g_free);

  G_OBJECT_CLASS (ks_document_loader_parent_class)->finalize (object);
}

static void
ks_document_loader_class_init (KsDocumentLoaderClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = ks_document_loader_dispose;
  object_class->finalize = ks_document_loader_finalize;
  object_class->get_property = ks_document_loader_get_property;

  properties[PROP_FILE] =
    g_param_spec_object ("file", NULL, NULL, G_TYPE_FILE,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_FRACTION] =
    g_param_spec_double ("fraction", NULL, NULL, 0, 1, 0,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_MESSAGE] =
    g_param_spec_string ("message", NULL, NULL, NULL,
                         (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  properties[PROP_LOADING] =
    g_param_spec_boolean ("loading", NULL, NULL, FALSE,
                          (G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS));
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
ks_document_loader_init (KsDocumentLoader *self)
{
}

KsDocumentLoader *
ks_document_loader_new (void)
{
  return g_object_new (KS_TYPE_DOCUMENT_LOADER, NULL);
}
