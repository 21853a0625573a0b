/* ks-analysis-warmup.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The warm-up: a recording starts at process launch, so its first step
 * holds CUDA module loading, handle creation, autotuning and the
 * allocator's growth. Those steps are marked here, and the passes after
 * this one leave them out of the figures unless the options include them. */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "ks-analysis-private.h"
#include "ks-format.h"

static const struct {
  const char *name;    /* N_(): the JSON's, untranslated */
  const char * const prefixes[12];
  const char * const fragments[6];   /* anywhere in the name */
} causes[KS_N_WARMUP_CAUSES] = {
  [KS_WARMUP_MODULE_LOADING] = {
    N_("CUDA module loading"),
    { "cuModuleLoad", "cuLibraryLoad", "cuModuleGetFunction", "cuModuleGetGlobal",
      "cuLibraryGetKernel", "cuLibraryGetModule", "cuKernelGetFunction", "cudaGetFuncBySymbol",
      "cuLinkComplete", "cuLinkAddData", NULL },
    { NULL } },
  [KS_WARMUP_CONTEXT] = {
    N_("CUDA context and library initialisation"),
    { "cuInit", "cuDevicePrimaryCtxRetain", "cuCtxCreate", "cudaSetDevice", "cublasCreate",
      "cublasLtCreate", "cudnnCreate", "cusparseCreate", "cusolverDnCreate", "cufftPlan", NULL },
    { NULL } },
  [KS_WARMUP_NCCL] = {
    N_("NCCL initialisation"),
    { "ncclCommInit", "ncclCommSplit", "ncclGetUniqueId", NULL },
    { NULL } },
  [KS_WARMUP_ALLOCATION] = {
    N_("Memory allocation"),
    { "cudaMalloc", "cuMemAlloc", "cuMemCreate", "cuMemMap", "cuMemAddressReserve",
      "cudaHostAlloc", "cuMemHostAlloc", "cudaHostRegister", "cuMemHostRegister", NULL },
    { NULL } },
  [KS_WARMUP_AUTOTUNING] = {
    N_("Autotuning"),
    { "cudnnFind", "cudnnGetConvolutionForwardAlgorithm", NULL },
    { "autotune", "benchmark_choice", NULL } },
  [KS_WARMUP_COMPILATION] = {
    N_("Compilation"),
    { "nvrtcCompileProgram", "nvJitLink", NULL },
    /* Python frames and profiler ranges of Dynamo, Inductor and Triton */
    { "_dynamo/convert_frame", "_inductor/", "compile_fx", "triton/compiler", "compile_inner", NULL } },
};

const char *
ks_warmup_cause_get_title (KsWarmupCause cause)
{
  g_return_val_if_fail (cause < KS_N_WARMUP_CAUSES, "");
  return _(causes[cause].name);
}

const char *
ks_warmup_cause_get_name (KsWarmupCause cause)
{
  g_return_val_if_fail (cause < KS_N_WARMUP_CAUSES, "");
  return causes[cause].name;
}

/* The cause a name is one-time work of, or KS_N_WARMUP_CAUSES. */
static guint8
classify (const char *s)
{
  for (guint c = 0; c < KS_N_WARMUP_CAUSES; c++)
    {
      for (guint i = 0; causes[c].prefixes[i] != NULL; i++)
        if (g_str_has_prefix (s, causes[c].prefixes[i]))
          return c;
      for (guint i = 0; causes[c].fragments[i] != NULL; i++)
        if (strstr (s, causes[c].fragments[i]) != NULL)
          return c;
    }
  return KS_N_WARMUP_CAUSES;
}

/* Per cause, the union of a process's one-time work on its CPU threads
 * (runtime and driver calls, operators, Python frames and samples). */
typedef struct
{
  KsRangeSet cause[KS_N_WARMUP_CAUSES];
  KsRangeSet any;
} OneTime;

/* The thread and sample tracks of each process: list[offset[p] ..
 * offset[p + 1]), so that a process's search reads its own tracks. */
typedef struct
{
  guint32 *offset;
  guint32 *list;
} ProcessTracks;

static void
process_tracks_init (ProcessTracks *pt,
                     KsTrace       *trace)
{
  g_autofree guint32 *fill = NULL;

  pt->offset = g_new0 (guint32, trace->n_processes + 2);
  pt->list = g_new (guint32, MAX (trace->n_tracks, 1));
  for (guint32 t = 0; t < trace->n_tracks; t++)
    if ((trace->tracks[t].kind == KS_TRACK_THREAD || trace->tracks[t].kind == KS_TRACK_SAMPLES) &&
        trace->tracks[t].process < trace->n_processes)
      pt->offset[trace->tracks[t].process + 1]++;
  for (guint32 p = 1; p <= trace->n_processes + 1; p++)
    pt->offset[p] += pt->offset[p - 1];
  fill = g_memdup2 (pt->offset, sizeof (guint32) * (trace->n_processes + 1));
  for (guint32 t = 0; t < trace->n_tracks; t++)
    if ((trace->tracks[t].kind == KS_TRACK_THREAD || trace->tracks[t].kind == KS_TRACK_SAMPLES) &&
        trace->tracks[t].process < trace->n_processes)
      pt->list[fill[trace->tracks[t].process]++] = t;
}

static void
one_time_build (Context             *ctx,
                const ProcessTracks *pt,
                guint32              process,
                guint8              *kind_of_name,
                OneTime             *ot)
{
  KsTrace *trace = ctx->trace;
  GArray *ranges[KS_N_WARMUP_CAUSES];
  g_autoptr(GArray) all = g_array_new (FALSE, FALSE, sizeof (KsTimeRange));

  for (guint c = 0; c < KS_N_WARMUP_CAUSES; c++)
    ranges[c] = g_array_new (FALSE, FALSE, sizeof (KsTimeRange));

  for (guint32 i = process < trace->n_processes ? pt->offset[process] : 0;
       process < trace->n_processes && i < pt->offset[process + 1]; i++)
    {
      const KsTrack *track = &trace->tracks[pt->list[i]];

      for (guint32 s = 0; s < track->n_slices; s++)
        {
          guint32 name = track->name_id[s];
          KsTimeRange r = { track->start[s], track->end[s] };

          /* 0: not classified yet; else the cause + 1 */
          if (kind_of_name[name] == 0)
            kind_of_name[name] = classify (ks_trace_string (trace, name)) + 1;
          if (kind_of_name[name] > KS_N_WARMUP_CAUSES || r.end <= r.start)
            continue;
          g_array_append_val (ranges[kind_of_name[name] - 1], r);
          g_array_append_val (all, r);
        }
    }

  for (guint c = 0; c < KS_N_WARMUP_CAUSES; c++)
    {
      ks_range_set_init (&ot->cause[c]);
      if (ranges[c]->len > 0)
        ks_range_set_add_unsorted (&ot->cause[c], (KsTimeRange *)(gpointer)ranges[c]->data, ranges[c]->len);
      ks_range_set_seal (&ot->cause[c]);
      g_array_unref (ranges[c]);
    }
  ks_range_set_init (&ot->any);
  if (all->len > 0)
    ks_range_set_add_unsorted (&ot->any, (KsTimeRange *)(gpointer)all->data, all->len);
  ks_range_set_seal (&ot->any);
}

static void
one_time_clear (OneTime *ot)
{
  for (guint c = 0; c < KS_N_WARMUP_CAUSES; c++)
    ks_range_set_clear (&ot->cause[c]);
  ks_range_set_clear (&ot->any);
}

/* The warm-up of one process, whose steps (indexes into ctx->step_refs,
 * in start order) are @idx: marks them, adds them to @spans, and keeps
 * the process's sums in self->warmup when its warm-up is the longest. */
static void
process_warmup (KsAnalysis          *self,
                Context             *ctx,
                const ProcessTracks *pt,
                guint32              process,
                const guint *idx,
                guint       n,
                guint8     *kind_of_name,
                GArray     *spans)
{
  KsStep *steps = (KsStep *)(gpointer)ctx->step_refs->data;
  g_autofree gint64 *durs = NULL;
  gint64 median, total = 0;
  OneTime ot;
  guint k;

  /* a median of the later steps needs two of them */
  if (n < 3)
    return;
  durs = g_new (gint64, n - 1);
  for (guint i = 1; i < n; i++)
    durs[i - 1] = steps[idx[i]].end - steps[idx[i]].start;
  median = _ks_select_nth (durs, n - 1, (n - 2) / 2);
  /* steps all alike, the common case: no need to look for one-time work */
  if ((double)(steps[idx[0]].end - steps[idx[0]].start) <= KS_WARMUP_FACTOR * median)
    return;

  one_time_build (ctx, pt, process, kind_of_name, &ot);
  /* at most half the steps: the rest is the steady state */
  for (k = 0; k < n / 2; k++)
    {
      KsStep *step = &steps[idx[k]];
      gint64 dur = step->end - step->start;
      gint64 one_time;

      if ((double)dur <= KS_WARMUP_FACTOR * median)
        break;
      one_time = ks_range_set_measure (&ot.any, step->start, step->end);
      if ((double)one_time < KS_WARMUP_ONE_TIME_SHARE * (dur - median))
        break;
      step->warmup = TRUE;
      total += dur;
      g_array_append_vals (spans, &(KsTimeRange) { step->start, step->end }, 1);
    }

  self->warmup.n_steps += k;
  if (k > 0 && total > self->warmup.dur_ns)
    {
      self->warmup.dur_ns = total;
      self->warmup.steady_median_ns = median;
      for (guint c = 0; c < KS_N_WARMUP_CAUSES; c++)
        {
          self->warmup.cause_ns[c] = 0;
          for (guint i = 0; i < k; i++)
            self->warmup.cause_ns[c] += ks_range_set_measure (&ot.cause[c], steps[idx[i]].start,
                                                              steps[idx[i]].end);
        }
    }
  one_time_clear (&ot);
}

typedef struct
{
  KsTrace      *trace;
  const KsStep *steps;
} SortBy;

/* By process, then in the steps' order (start order). */
static int
compare_by_process (gconstpointer a,
                    gconstpointer b,
                    gpointer      user_data)
{
  const SortBy *by = user_data;
  guint ia = *(const guint *)a, ib = *(const guint *)b;
  guint32 pa = by->trace->tracks[by->steps[ia].track].process;
  guint32 pb = by->trace->tracks[by->steps[ib].track].process;

  if (pa != pb)
    return pa < pb ? -1 : 1;
  return (ia > ib) - (ia < ib);
}

void
_ks_analysis_warmup (KsAnalysis *self,
                     Context    *ctx)
{
  KsTrace *trace = ctx->trace;
  KsStep *steps = (KsStep *)(gpointer)ctx->step_refs->data;
  guint n = ctx->step_refs->len;
  g_autofree guint8 *kind_of_name = g_new0 (guint8, MAX (trace->n_strings, 1));
  g_autofree guint *idx = g_new (guint, MAX (n, 1));
  g_autoptr(GArray) spans = g_array_new (FALSE, FALSE, sizeof (KsTimeRange));
  SortBy by = { trace, steps };
  ProcessTracks pt;

  self->step_rule = ctx->step_rule;
  self->step_rule_name = ctx->step_rule_name;
  ks_range_set_init (&ctx->warmup_set);

  /* each process's steps, in start order */
  process_tracks_init (&pt, trace);
  for (guint i = 0; i < n; i++)
    idx[i] = i;
  g_qsort_with_data (idx, n, sizeof (guint), compare_by_process, &by);
  for (guint first = 0, i = 1; i <= n; i++)
    if (i == n || trace->tracks[steps[idx[i]].track].process != trace->tracks[steps[idx[first]].track].process)
      {
        process_warmup (self, ctx, &pt, trace->tracks[steps[idx[first]].track].process, idx + first,
                        i - first, kind_of_name, spans);
        first = i;
      }

  g_free (pt.offset);
  g_free (pt.list);
  if (spans->len > 0)
    ks_range_set_add_unsorted (&ctx->warmup_set, (KsTimeRange *)(gpointer)spans->data, spans->len);
  ks_range_set_seal (&ctx->warmup_set);
  ctx->skip_warmup = spans->len > 0 && !ctx->options.include_warmup;
}

const KsWarmup *
ks_analysis_get_warmup (KsAnalysis *self)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  return &self->warmup;
}

const char *
ks_analysis_get_step_rule (KsAnalysis *self,
                           guint32    *name)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);

  if (name != NULL)
    *name = self->step_rule_name;
  return self->step_rule != NULL ? _(self->step_rule) : NULL;
}

gboolean
ks_analysis_step_counts (KsAnalysis   *self,
                         const KsStep *step)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), FALSE);
  g_return_val_if_fail (step != NULL, FALSE);

  return !step->warmup || self->options.include_warmup;
}

guint
ks_analysis_count_steps (KsAnalysis *self,
                         gint64     *mean_ns)
{
  guint n = 0;
  gint64 total = 0;

  g_return_val_if_fail (KS_IS_ANALYSIS (self), 0);

  for (guint i = 0; i < self->steps->len; i++)
    {
      const KsStep *step = &g_array_index (self->steps, KsStep, i);

      if (!ks_analysis_step_counts (self, step))
        continue;
      n++;
      total += step->end - step->start;
    }
  if (mean_ns != NULL)
    *mean_ns = n > 0 ? total / n : 0;
  return n;
}

/* The warm-up's causes, largest first, as indexes. */
guint
ks_warmup_sort_causes (const KsWarmup *warmup,
                       guint          *order)
{
  guint n = 0;

  for (guint c = 0; c < KS_N_WARMUP_CAUSES; c++)
    if (warmup->cause_ns[c] > 0)
      {
        guint j = n++;

        while (j > 0 && warmup->cause_ns[order[j - 1]] < warmup->cause_ns[c])
          {
            order[j] = order[j - 1];
            j--;
          }
        order[j] = c;
      }
  return n;
}

/* The warm-up steps' names, each once: the ranks of a job share them. */
GPtrArray *
ks_analysis_dup_warmup_names (KsAnalysis *self,
                              KsTrace    *trace)
{
  GPtrArray *names;
  guint n;
  const KsStep *steps;

  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);

  names = g_ptr_array_new_with_free_func (g_free);
  steps = ks_analysis_get_steps (self, &n);

  for (guint i = 0; i < n; i++)
    if (steps[i].warmup)
      {
        char *name = ks_analysis_dup_step_name (self, trace, i);

        if (g_ptr_array_find_with_equal_func (names, name, g_str_equal, NULL))
          g_free (name);
        else
          g_ptr_array_add (names, name);
      }
  return names;
}

char *
ks_analysis_format_warmup (KsAnalysis *self,
                           KsTrace    *trace)
{
  const KsWarmup *warmup;
  g_autoptr(GString) names = g_string_new (NULL);
  g_autoptr(GString) cause_text = g_string_new (NULL);
  g_autofree char *dur = NULL;
  g_autoptr(GPtrArray) listed = NULL;
  guint order[KS_N_WARMUP_CAUSES];
  guint n_causes;

  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);

  warmup = ks_analysis_get_warmup (self);
  if (warmup->n_steps == 0)
    return NULL;
  listed = ks_analysis_dup_warmup_names (self, trace);

  for (guint i = 0; i < MIN (listed->len, 3); i++)
    {
      if (names->len > 0)
        g_string_append (names, ", ");
      g_string_append (names, g_ptr_array_index (listed, i));
    }
  if (listed->len > 3)
    g_string_append (names, ", …");
  n_causes = ks_warmup_sort_causes (warmup, order);
  for (guint i = 0; i < n_causes; i++)
    {
      g_autofree char *d = ks_time_format_duration (warmup->cause_ns[order[i]]);

      /* TRANSLATORS: one cause of the warm-up and its time: "CUDA module loading 210 ms" */
      g_string_append_printf (cause_text, i == 0 ? C_("warm-up cause", "%s %s") : C_("warm-up cause", ", %s %s"),
                              ks_warmup_cause_get_title (order[i]), d);
    }
  dur = ks_time_format_duration (warmup->dur_ns);
  if (ks_analysis_get_options (self)->include_warmup)
    /* TRANSLATORS: "Warm-up: step 0, 486 ms (CUDA module loading 210 ms), included in the figures" */
    return g_strdup_printf (_("Warm-up: %s, %s (%s), included in the figures"), names->str, dur, cause_text->str);
  /* TRANSLATORS: "Warm-up: step 0, 486 ms (CUDA module loading 210 ms), left out of the figures below" */
  return g_strdup_printf (_("Warm-up: %s, %s (%s), left out of the figures below"), names->str, dur, cause_text->str);
}
