/* ks-critical-path.c: the critical path of each step, what-if factors, the object
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-critical-path"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "ks-critical-path-private.h"

struct _KsCriticalPath
{
  GObject   parent_instance;

  KsTrace  *trace;
  KsWhatIf *what_if;
  GArray   *steps;          /* KsPathStep */
};

G_DEFINE_FINAL_TYPE (KsCriticalPath, ks_critical_path, G_TYPE_OBJECT)

const char *
ks_path_class_to_string (KsPathClass klass)
{
  static const char * const names[] = { "cpu", "python", "dataloader", "launch", "gpu", "copy", "sync", "comm" };

  g_return_val_if_fail (klass < KS_N_PATH_CLASSES, "");
  return names[klass];
}

const char *
ks_path_class_to_label (KsPathClass klass)
{
  static const char * const labels[] = {
    N_("CPU operators"), N_("Python"), N_("DataLoader"), N_("Launch overhead"),
    N_("GPU kernels"), N_("Copies"), N_("Sync wait"), N_("Communication"),
  };

  g_return_val_if_fail (klass < KS_N_PATH_CLASSES, "");
  return _(labels[klass]);
}

static guint8
classify_name (const char *s)
{
  static const char * const sync_names[] = {
    "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
    "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize", NULL
  };
  static const char * const comm_ops[] = { "c10d::", "gloo:", "nccl:", "record_param_comms", NULL };
  guint8 flags = 0;

  for (guint i = 0; sync_names[i] != NULL; i++)
    if (g_str_has_prefix (s, sync_names[i]))
      flags |= N_SYNC;
  /* cudaMemcpy, cuMemcpyDtoH_v2: the blocking copies */
  if ((g_str_has_prefix (s, "cudaMemcpy") || g_str_has_prefix (s, "cuMemcpy")) && strstr (s, "Async") == NULL)
    flags |= N_SYNC;
  if (g_str_has_prefix (s, "enumerate(DataLoader)"))
    flags |= N_DATALOADER;
  for (guint i = 0; comm_ops[i] != NULL; i++)
    if (g_str_has_prefix (s, comm_ops[i]))
      flags |= N_COMM;
  if (strstr (s, "nccl") != NULL && !g_str_has_prefix (s, "c10d::"))
    flags |= N_COMM;
  if (g_str_has_prefix (s, "cudaEventRecord") || g_str_has_prefix (s, "cuEventRecord"))
    flags |= N_EVENT_REC;
  if (g_str_has_prefix (s, "cudaStreamWaitEvent") || g_str_has_prefix (s, "cuStreamWaitEvent"))
    flags |= N_WAIT_EVENT;
  return flags;
}

static int
compare_corr (gconstpointer a,
              gconstpointer b)
{
  const CorrRef *ca = a;
  const CorrRef *cb = b;

  if (ca->key != cb->key)
    return ca->key < cb->key ? -1 : 1;
  if (ca->track != cb->track)
    return ca->track < cb->track ? -1 : 1;
  return (ca->slice > cb->slice) - (ca->slice < cb->slice);
}

void
_ks_path_builder_init (Builder        *b,
              KsTrace        *trace,
              const KsWhatIf *what_if)
{
  const KsWhatIfRule *rules = NULL;
  guint n_rules = 0, n_op = 0;
  g_autoptr(GPtrArray) op_specs = g_ptr_array_new_with_free_func ((GDestroyNotify)g_pattern_spec_free);
  g_autoptr(GPtrArray) kernel_specs = g_ptr_array_new_with_free_func ((GDestroyNotify)g_pattern_spec_free);
  g_autoptr(GArray) kernel_factors = g_array_new (FALSE, FALSE, sizeof (double));

  memset (b, 0, sizeof *b);
  b->trace = trace;
  b->copy_factor = b->launch_factor = b->dataloader_factor = 1.0;
  b->flags = g_new (guint8, MAX (trace->n_strings, 1));
  for (guint32 i = 0; i < trace->n_strings; i++)
    b->flags[i] = classify_name (trace->strings[i]);

  if (what_if != NULL)
    rules = ks_what_if_get_rules (what_if, &n_rules);
  for (guint i = 0; i < n_rules; i++)
    switch (rules[i].target)
      {
      case KS_WHAT_IF_OP:
        /* More op rules than fit a mask are ignored; nobody writes 32. */
        if (n_op < MAX_OP_RULES)
          {
            b->op_factor[n_op++] = rules[i].factor;
            g_ptr_array_add (op_specs, g_pattern_spec_new (rules[i].glob));
          }
        break;
      case KS_WHAT_IF_KERNEL:
        g_ptr_array_add (kernel_specs, g_pattern_spec_new (rules[i].glob));
        g_array_append_val (kernel_factors, rules[i].factor);
        break;
      case KS_WHAT_IF_COPY:       b->copy_factor *= rules[i].factor; break;
      case KS_WHAT_IF_LAUNCH:     b->launch_factor *= rules[i].factor; break;
      case KS_WHAT_IF_DATALOADER: b->dataloader_factor *= rules[i].factor; break;
      case KS_N_WHAT_IF_TARGETS:
      default:                    g_assert_not_reached ();
      }
  if (op_specs->len > 0)
    {
      b->op_rules = g_new0 (guint32, MAX (trace->n_strings, 1));
      for (guint32 s = 0; s < trace->n_strings; s++)
        for (guint i = 0; i < op_specs->len; i++)
          if (g_pattern_spec_match_string (op_specs->pdata[i], trace->strings[s]))
            b->op_rules[s] |= 1u << i;
    }
  if (kernel_specs->len > 0)
    {
      b->kernel_factor = g_new (double, MAX (trace->n_strings, 1));
      for (guint32 s = 0; s < trace->n_strings; s++)
        {
          b->kernel_factor[s] = 1.0;
          for (guint i = 0; i < kernel_specs->len; i++)
            if (g_pattern_spec_match_string (kernel_specs->pdata[i], trace->strings[s]))
              b->kernel_factor[s] *= g_array_index (kernel_factors, double, i);
        }
    }

  /* The GPU work of each launch, by correlation id: every op of a graph
   * launch shares the launch's id. */
  b->corr = g_array_new (FALSE, FALSE, sizeof (CorrRef));
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind != KS_TRACK_STREAM)
        continue;
      for (guint32 i = 0; i < track->n_slices; i++)
        if (track->correlation[i] != 0 && is_gpu_work (track->slice_kind[i]))
          {
            CorrRef r = { (guint64)track->group << 32 | track->correlation[i], t, i };

            g_array_append_val (b->corr, r);
          }
    }
  g_array_sort (b->corr, compare_corr);
}

void
_ks_path_builder_clear (Builder *b)
{
  g_clear_pointer (&b->flags, g_free);
  g_clear_pointer (&b->op_rules, g_free);
  g_clear_pointer (&b->kernel_factor, g_free);
  g_clear_pointer (&b->corr, g_array_unref);
}

static void
ks_critical_path_finalize (GObject *object)
{
  KsCriticalPath *self = KS_CRITICAL_PATH (object);

  for (guint i = 0; i < self->steps->len; i++)
    {
      KsPathStep *step = &g_array_index (self->steps, KsPathStep, i);

      g_free (step->items);
      g_free (step->segments);
    }
  g_clear_pointer (&self->steps, g_array_unref);
  g_clear_pointer (&self->what_if, ks_what_if_free);
  g_clear_object (&self->trace);

  G_OBJECT_CLASS (ks_critical_path_parent_class)->finalize (object);
}

static void
ks_critical_path_class_init (KsCriticalPathClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ks_critical_path_finalize;
}

static void
ks_critical_path_init (KsCriticalPath *self)
{
  self->steps = g_array_new (FALSE, TRUE, sizeof (KsPathStep));
}

static KsWhatIf *
what_if_copy (const KsWhatIf *what_if)
{
  return what_if != NULL ? ks_what_if_parse (ks_what_if_get_text (what_if), NULL) : NULL;
}

KsCriticalPath *
_ks_critical_path_compute_steps (KsTrace         *trace,
                                 const KsStep    *steps,
                                 guint            n_steps,
                                 gboolean         include_warmup,
                                 const char      *step_name,
                                 const KsWhatIf  *what_if,
                                 GCancellable    *cancellable,
                                 GError         **error)
{
  g_autoptr(KsCriticalPath) self = g_object_new (KS_TYPE_CRITICAL_PATH, NULL);
  KsStep whole = { 0 };
  Builder b;

  self->trace = g_object_ref (trace);
  self->what_if = what_if_copy (what_if);
  /* A trace without steps: its whole activity as one. */
  if (n_steps == 0 && step_name == NULL)
    {
      whole.track = whole.slice = KS_NO_INDEX;
      ks_trace_get_activity_span (trace, &whole.start, &whole.end);
      whole.host_start = whole.start;
      whole.host_end = whole.end;
      steps = &whole;
      n_steps = 1;
    }
  else if (!include_warmup)
    {
      /* Every step warm-up (a short trace): all of them rather than none. */
      include_warmup = TRUE;
      for (guint i = 0; i < n_steps; i++)
        if (!steps[i].warmup)
          include_warmup = FALSE;
    }
  _ks_path_builder_init (&b, trace, what_if);
  for (guint i = 0; i < n_steps; i++)
    {
      KsPathStep out;

      if (step_name != NULL ? strcmp (ks_trace_string (trace, steps[i].name), step_name) != 0
                            : (steps[i].warmup && !include_warmup))
        continue;
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        {
          _ks_path_builder_clear (&b);
          return NULL;
        }
      _ks_path_compute_step (&b, &steps[i], i, what_if != NULL, &out);
      g_array_append_val (self->steps, out);
    }
  _ks_path_builder_clear (&b);
  if (step_name != NULL && self->steps->len == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
                   _("the trace has no step named “%s”"), step_name);
      return NULL;
    }
  return g_steal_pointer (&self);
}

/* The path of a rank's step crosses to another rank where it waits in a
 * collective for that rank to arrive: per step, the rank whose arrival
 * kept it waiting longest on its path. */
static void
attribute_ranks (KsCriticalPath     *self,
                 const KsCollective *cs,
                 guint               n_cs)
{
  KsTrace *trace = self->trace;
  g_autofree gint64 *waited = g_new0 (gint64, MAX (trace->n_ranks, 1));

  for (guint i = 0; i < self->steps->len; i++)
    {
      KsPathStep *step = &g_array_index (self->steps, KsPathStep, i);

      if (step->rank < 0)
        continue;
      memset (waited, 0, MAX (trace->n_ranks, 1) * sizeof (gint64));
      for (guint k = 0; k < n_cs; k++)
        {
          const KsCollective *c = &cs[k];
          gint64 on_path = 0;

          if (c->rank == KS_NO_INDEX || trace->ranks[c->rank].rank != step->rank ||
              c->last_rank == KS_NO_INDEX || c->last_rank == c->rank || c->wait_ns <= 0 ||
              c->end <= step->start || c->start >= step->end)
            continue;
          for (guint s = 0; s < step->n_segments; s++)
            {
              const KsPathSegment *seg = &step->segments[s];

              if (seg->track == c->track && seg->start < c->end && seg->end > c->start)
                on_path += MIN (seg->end, c->end) - MAX (seg->start, c->start);
            }
          waited[c->last_rank] += MIN (on_path, c->wait_ns);
        }
      for (guint r = 0; r < trace->n_ranks; r++)
        if (waited[r] > step->set_by_wait_ns)
          {
            step->set_by_wait_ns = waited[r];
            step->set_by_rank = trace->ranks[r].rank;
          }
    }
}

KsCriticalPath *
ks_critical_path_compute (KsTrace         *trace,
                          KsAnalysis      *analysis,
                          const char      *step_name,
                          const KsWhatIf  *what_if,
                          GCancellable    *cancellable,
                          GError         **error)
{
  KsCriticalPath *self;
  const KsStep *steps;
  const KsCollective *cs;
  guint n_steps, n_cs;

  g_return_val_if_fail (KS_IS_TRACE (trace), NULL);
  g_return_val_if_fail (KS_IS_ANALYSIS (analysis), NULL);

  steps = ks_analysis_get_steps (analysis, &n_steps);
  self = _ks_critical_path_compute_steps (trace, steps, n_steps,
                                          ks_analysis_get_options (analysis)->include_warmup,
                                          step_name, what_if, cancellable, error);
  if (self != NULL && trace->n_ranks > 1)
    {
      cs = ks_analysis_get_collectives (analysis, &n_cs);
      attribute_ranks (self, cs, n_cs);
    }
  return self;
}

typedef struct
{
  KsTrace    *trace;
  KsAnalysis *analysis;
  char       *step_name;
  KsWhatIf   *what_if;
} TaskData;

static void
task_data_free (gpointer data)
{
  TaskData *d = data;

  g_object_unref (d->trace);
  g_object_unref (d->analysis);
  g_free (d->step_name);
  ks_what_if_free (d->what_if);
  g_free (d);
}

static void
compute_thread (GTask        *task,
                gpointer      source_object,
                gpointer      task_data,
                GCancellable *cancellable)
{
  TaskData *d = task_data;
  GError *error = NULL;
  KsCriticalPath *path = ks_critical_path_compute (d->trace, d->analysis, d->step_name, d->what_if,
                                                   cancellable, &error);

  if (path == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, path, g_object_unref);
}

void
ks_critical_path_compute_async (KsTrace             *trace,
                                KsAnalysis          *analysis,
                                const char          *step_name,
                                const KsWhatIf      *what_if,
                                GCancellable        *cancellable,
                                GAsyncReadyCallback  callback,
                                gpointer             user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  TaskData *d = g_new0 (TaskData, 1);

  d->trace = g_object_ref (trace);
  d->analysis = g_object_ref (analysis);
  d->step_name = g_strdup (step_name);
  d->what_if = what_if_copy (what_if);
  g_task_set_source_tag (task, ks_critical_path_compute_async);
  g_task_set_task_data (task, d, task_data_free);
  g_task_run_in_thread (task, compute_thread);
}

KsCriticalPath *
ks_critical_path_compute_finish (GAsyncResult  *result,
                                 GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

KsTrace *
ks_critical_path_get_trace (KsCriticalPath *self)
{
  return self->trace;
}

const KsWhatIf *
ks_critical_path_get_what_if (KsCriticalPath *self)
{
  return self->what_if;
}

const KsPathStep *
ks_critical_path_get_steps (KsCriticalPath *self,
                            guint          *n_steps)
{
  *n_steps = self->steps->len;
  return (const KsPathStep *)(gpointer)self->steps->data;
}

const KsPathStep *
ks_critical_path_find_step (KsCriticalPath *self,
                            guint           step)
{
  for (guint i = 0; i < self->steps->len; i++)
    if (g_array_index (self->steps, KsPathStep, i).step == step)
      return &g_array_index (self->steps, KsPathStep, i);
  return NULL;
}

void
ks_critical_path_get_totals (KsCriticalPath *self,
                             gint64         *dur_ns,
                             gint64         *path_ns,
                             gint64         *predicted_ns,
                             gint64         *by_class,
                             gint64         *predicted_by_class)
{
  gint64 d = 0, p = 0, q = 0;

  if (by_class != NULL)
    memset (by_class, 0, KS_N_PATH_CLASSES * sizeof (gint64));
  if (predicted_by_class != NULL)
    memset (predicted_by_class, 0, KS_N_PATH_CLASSES * sizeof (gint64));
  for (guint i = 0; i < self->steps->len; i++)
    {
      const KsPathStep *s = &g_array_index (self->steps, KsPathStep, i);

      d += s->dur_ns;
      p += s->path_ns;
      q += s->predicted_ns;
      for (guint k = 0; k < KS_N_PATH_CLASSES; k++)
        {
          if (by_class != NULL)
            by_class[k] += s->by_class[k];
          if (predicted_by_class != NULL)
            predicted_by_class[k] += s->predicted_by_class[k];
        }
    }
  if (dur_ns != NULL)
    *dur_ns = d;
  if (path_ns != NULL)
    *path_ns = p;
  if (predicted_ns != NULL)
    *predicted_ns = q;
}
