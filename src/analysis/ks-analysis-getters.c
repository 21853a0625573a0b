/* ks-analysis-getters.c: what the passes found, for readers
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include "ks-analysis-private.h"

/* Getters */

const KsAnalysisOptions *
ks_analysis_get_options (KsAnalysis *self)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  return &self->options;
}

#define RETURN_ARRAY(array, type, n_out)          \
  G_STMT_START {                                  \
    if (n_out != NULL)                            \
      *n_out = (array)->len;                      \
    return (array)->len ? (const type *)(gpointer)(array)->data : NULL; \
  } G_STMT_END

const KsGpuSummary *
ks_analysis_get_gpus (KsAnalysis *self,
                      guint      *n_gpus)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->gpus, KsGpuSummary, n_gpus);
}

const KsGpuSummary *
ks_analysis_get_gpu (KsAnalysis *self,
                     gint32      device)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);

  for (guint i = 0; i < self->gpus->len; i++)
    if (g_array_index (self->gpus, KsGpuSummary, i).device == device)
      return &g_array_index (self->gpus, KsGpuSummary, i);
  return NULL;
}

const KsTraceBusy *
ks_analysis_get_trace_busy (KsAnalysis *self)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);

  return &self->trace_busy;
}

const KsStep *
ks_analysis_get_steps (KsAnalysis *self,
                       guint      *n_steps)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->steps, KsStep, n_steps);
}

const KsGap *
ks_analysis_get_gaps (KsAnalysis *self,
                      guint      *n_gaps)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->gaps, KsGap, n_gaps);
}

const guint *
ks_analysis_get_gaps_by_duration (KsAnalysis *self,
                                  guint      *n_gaps)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);

  if (n_gaps != NULL)
    *n_gaps = self->gaps->len;
  return self->gaps_by_duration;
}

const KsGapCauseTotal *
ks_analysis_get_gap_causes (KsAnalysis *self,
                            guint      *n_causes)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->gap_causes, KsGapCauseTotal, n_causes);
}

const KsSampleStats *
ks_analysis_get_sample_stats (KsAnalysis *self,
                              guint      *n_rows)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->samples, KsSampleStats, n_rows);
}

const KsOperatorStats *
ks_analysis_get_operators (KsAnalysis         *self,
                           KsOperatorGrouping  grouping,
                           guint              *n_operators)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  g_return_val_if_fail (grouping <= KS_OPERATOR_BY_NAME_AND_SHAPE, NULL);
  RETURN_ARRAY (self->operators[grouping], KsOperatorStats, n_operators);
}

const KsKernelStats *
ks_analysis_get_kernels (KsAnalysis *self,
                         guint      *n_kernels)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->kernels, KsKernelStats, n_kernels);
}

const KsLaunchLatency *
ks_analysis_get_launch_latency (KsAnalysis *self)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  return &self->latency;
}

const KsKernelGroup *
ks_analysis_get_kernel_groups (KsAnalysis       *self,
                               KsKernelGrouping  grouping,
                               guint            *n_groups)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  g_return_val_if_fail (grouping < KS_N_KERNEL_GROUPINGS, NULL);
  RETURN_ARRAY (self->kernel_groups[grouping], KsKernelGroup, n_groups);
}

const KsLaunchLatency *
ks_analysis_get_queue_time (KsAnalysis *self)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  return &self->queue;
}

const KsTensorCores *
ks_analysis_get_tensor_cores (KsAnalysis *self)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  return &self->tensor_cores;
}

const KsCopyRate *
ks_analysis_get_copies (KsAnalysis *self,
                        guint      *n_copies)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->copies, KsCopyRate, n_copies);
}

const KsCopyKindStats *
ks_analysis_get_copy_kinds (KsAnalysis *self,
                            guint      *n_kinds)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->copy_kinds, KsCopyKindStats, n_kinds);
}

const KsKernelSequence *
ks_analysis_get_kernel_sequences (KsAnalysis *self,
                                  guint      *n_sequences)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->sequences, KsKernelSequence, n_sequences);
}

const KsProfilerCounter *
ks_analysis_get_profiler_counters (KsAnalysis *self,
                                   guint      *n_counters)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->profiler_counters, KsProfilerCounter, n_counters);
}

const KsProfilerRanges *
ks_analysis_get_profiler_ranges (KsAnalysis *self)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  return &self->profiler_ranges;
}

const KsGpuAnnotationStats *
ks_analysis_get_gpu_annotations (KsAnalysis *self,
                                 guint      *n_annotations)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->annotations, KsGpuAnnotationStats, n_annotations);
}

const KsQueueStats *
ks_analysis_get_queues (KsAnalysis *self,
                        guint      *n_queues)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->queues, KsQueueStats, n_queues);
}

const KsMemoryCurve *
ks_analysis_get_memory_curves (KsAnalysis *self,
                               guint      *n_curves)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->memory, KsMemoryCurve, n_curves);
}

const KsGpuUtilization *
ks_analysis_get_utilization (KsAnalysis *self,
                             guint      *n_gpus)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->utilization, KsGpuUtilization, n_gpus);
}

const KsIdleStretch *
ks_analysis_get_idle_stretches (KsAnalysis *self,
                                guint      *n_stretches)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->idle_stretches, KsIdleStretch, n_stretches);
}

const KsAllocation *
ks_analysis_get_allocations (KsAnalysis *self,
                             guint      *n_allocations)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->allocations, KsAllocation, n_allocations);
}

const KsOperatorStack *
ks_analysis_get_operator_stacks (KsAnalysis *self,
                                 guint      *n_stacks)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->operator_stacks, KsOperatorStack, n_stacks);
}

const KsOperatorMemory *
ks_analysis_get_operator_memory (KsAnalysis *self,
                                 guint      *n_operators)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->operator_memory, KsOperatorMemory, n_operators);
}

const KsAdvice *
ks_analysis_get_advice (KsAnalysis *self,
                        guint      *n_advice)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->advice, KsAdvice, n_advice);
}

const KsCollective *
ks_analysis_get_collectives (KsAnalysis *self,
                             guint      *n_collectives)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->collectives, KsCollective, n_collectives);
}

const KsCommStats *
ks_analysis_get_comm_stats (KsAnalysis *self,
                            guint      *n_rows)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->comm_stats, KsCommStats, n_rows);
}

const KsRankStats *
ks_analysis_get_rank_stats (KsAnalysis *self,
                            guint      *n_rows)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->rank_stats, KsRankStats, n_rows);
}

const KsClockAlignment *
ks_analysis_get_clock_alignment (KsAnalysis *self)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  return &self->clock;
}

const KsRankStep *
ks_analysis_get_rank_steps (KsAnalysis *self,
                            guint      *n_rows)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);
  RETURN_ARRAY (self->rank_steps, KsRankStep, n_rows);
}

guint
ks_analysis_get_straggler (KsAnalysis *self)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), KS_NO_INDEX);
  return self->straggler;
}

guint
ks_analysis_get_n_ignored_memory_events (KsAnalysis *self)
{
  g_return_val_if_fail (KS_IS_ANALYSIS (self), 0);

  return self->n_ignored_memory;
}

const char * const *
ks_analysis_get_warnings (KsAnalysis *self)
{
  static const char * const none[] = { NULL };

  g_return_val_if_fail (KS_IS_ANALYSIS (self), NULL);

  /* A null-terminated array that never grew has no pdata yet. */
  if (self->warnings->pdata == NULL)
    return none;
  return (const char * const *)self->warnings->pdata;
}
