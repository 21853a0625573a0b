/* ks-analysis-gaps.c: idle gaps, their class (HTA's rule) and what the
 * launching CPU thread was doing meanwhile
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include <glib/gi18n.h>
#include <stdlib.h>
#include <string.h>

#include "ks-analysis-private.h"

typedef struct
{
  Context *ctx;
  gint64   r0;
  gint64   r1;
  gint64   sync_total;
  guint32  sync_best;
  gint64   sync_best_ov;
  guint32  dl_best;
  gint64   dl_best_ov;
  guint32  osrt_best;
  gint64   osrt_best_ov;
  guint32  op_inner;            /* shortest operator covering half the region */
  gint64   op_inner_dur;
  guint32  py_inner;
  gint64   py_inner_dur;
  guint32  busiest;             /* operator/frame overlapping the region most */
  gint64   busiest_ov;
  gboolean busiest_is_op;
} Probe;

static inline gboolean
covers_half (const Probe *p,
             gint64       ov)
{
  return ov * 2 >= p->r1 - p->r0;
}

static gboolean
probe_thread_cb (const KsTrack *track,
                 guint32        s,
                 gpointer       user_data)
{
  Probe *p = user_data;
  gint64 ov = MIN (track->end[s], p->r1) - MAX (track->start[s], p->r0);
  gint64 dur = track->end[s] - track->start[s];
  guint16 flags = p->ctx->name_flags[track->name_id[s]];

  if (ov <= 0)
    return TRUE;

  switch ((KsSliceKind)track->slice_kind[s])
    {
    case KS_SLICE_CUDA_RUNTIME:
    case KS_SLICE_CUDA_DRIVER:
      if (flags & NAME_SYNC)
        {
          p->sync_total += ov;
          if (ov > p->sync_best_ov)
            {
              p->sync_best_ov = ov;
              p->sync_best = s;
            }
        }
      break;

    case KS_SLICE_OSRT:
      if (ov > p->osrt_best_ov)
        {
          p->osrt_best_ov = ov;
          p->osrt_best = s;
        }
      break;

    case KS_SLICE_CPU_OP:
    case KS_SLICE_USER_ANNOTATION:
    case KS_SLICE_GENERIC:
      if (flags & NAME_DATALOADER)
        {
          if (ov > p->dl_best_ov)
            {
              p->dl_best_ov = ov;
              p->dl_best = s;
            }
          break;
        }
      if (flags & NAME_PROFILER_STEP)
        break;
      if (covers_half (p, ov) && (p->op_inner == KS_NO_INDEX || dur < p->op_inner_dur))
        {
          p->op_inner = s;
          p->op_inner_dur = dur;
        }
      if (ov > p->busiest_ov || (ov == p->busiest_ov && !p->busiest_is_op))
        {
          p->busiest_ov = ov;
          p->busiest = s;
          p->busiest_is_op = TRUE;
        }
      break;

    case KS_SLICE_PYTHON:
      if (covers_half (p, ov) && (p->py_inner == KS_NO_INDEX || dur < p->py_inner_dur))
        {
          p->py_inner = s;
          p->py_inner_dur = dur;
        }
      if (ov > p->busiest_ov && !p->busiest_is_op)
        {
          p->busiest_ov = ov;
          p->busiest = s;
        }
      break;

    case KS_SLICE_NVTX:
    case KS_SLICE_ASYNC:
    case KS_SLICE_GPU_ANNOTATION:
    case KS_SLICE_KERNEL:
    case KS_SLICE_MEMCPY:
    case KS_SLICE_MEMSET:
    case KS_SLICE_SYNC:
    case KS_SLICE_SAMPLE:
    case KS_N_SLICE_KINDS:
    default:
      break;
    }

  return TRUE;
}

typedef struct
{
  gint64        r0;
  gint64        r1;
  guint32       inner;
  gint64        inner_dur;
  const guint16 *name_flags;
} NvtxProbe;

static gboolean
probe_nvtx_cb (const KsTrack *track,
               guint32        s,
               gpointer       user_data)
{
  NvtxProbe *p = user_data;
  gint64 ov = MIN (track->end[s], p->r1) - MAX (track->start[s], p->r0);
  gint64 dur = track->end[s] - track->start[s];

  /* The step itself is not what the thread was doing in it. */
  if (p->name_flags[track->name_id[s]] & NAME_STEP_RANGE)
    return TRUE;
  if (ov * 2 >= p->r1 - p->r0 && ov > 0 && (p->inner == KS_NO_INDEX || dur < p->inner_dur))
    {
      p->inner = s;
      p->inner_dur = dur;
    }
  return TRUE;
}

typedef struct
{
  gint64  r0;
  gint64  r1;
  guint32 inner;
} SampleProbe;

/* Frames nest by depth in a flame track: the deepest one covering half
 * the region is the innermost frame the thread spent it in. */
static gboolean
probe_samples_cb (const KsTrack *track,
                  guint32        s,
                  gpointer       user_data)
{
  SampleProbe *p = user_data;
  gint64 ov = MIN (track->end[s], p->r1) - MAX (track->start[s], p->r0);

  if (track->slice_kind[s] == KS_SLICE_SAMPLE && ov > 0 && ov * 2 >= p->r1 - p->r0 &&
      (p->inner == KS_NO_INDEX || track->depth[s] > track->depth[p->inner]))
    p->inner = s;
  return TRUE;
}

/* The innermost sampled frame of @thread in the region, KS_NO_INDEX when
 * its samples name none. */
static guint32
sampled_frame (Context *ctx,
               guint32  thread,
               gint64   r0,
               gint64   r1,
               guint32 *out_track)
{
  SampleProbe p = { r0, r1, KS_NO_INDEX };

  *out_track = thread < ctx->trace->n_threads ? ctx->samples_of_thread[thread] : KS_NO_INDEX;
  if (*out_track != KS_NO_INDEX)
    ks_track_foreach_in_range (&ctx->trace->tracks[*out_track], r0, r1, probe_samples_cb, &p);
  return p.inner;
}

/* The thread of @thread's process whose tid is the pid: Python's main
 * thread, which the sampler sees while another thread (autograd's, a
 * launcher's) makes the CUDA calls. */
static guint32
main_thread_of (const KsTrace *trace,
                guint32        thread)
{
  guint32 process = trace->threads[thread].process;

  if (process >= trace->n_processes)
    return KS_NO_INDEX;
  for (guint32 i = 0; i < trace->n_threads; i++)
    if (trace->threads[i].process == process && trace->threads[i].tid == trace->processes[process].pid)
      return i;
  return KS_NO_INDEX;
}

static void
attribute (Context *ctx,
           KsGap   *gap,
           gint64   r0,
           gint64   r1)
{
  KsTrace *trace = ctx->trace;
  const KsTrack *track;
  guint32 track_id;
  guint32 nvtx_track;
  NvtxProbe np = { r0, r1, KS_NO_INDEX, 0, ctx->name_flags };
  guint32 frame, frame_track, main;
  Probe p;

  gap->cause = KS_GAP_CAUSE_UNKNOWN;
  gap->cause_name = 0;
  gap->cause_track = KS_NO_INDEX;
  gap->cause_slice = KS_NO_INDEX;

  /* Kineto flushing its buffers stalls the launching thread: the gap is
   * the profiler's, not that of the operator it happened to run in. */
  if (ctx->overhead_set.n > 0 &&
      ks_range_set_measure (&ctx->overhead_set, gap->start, gap->end) * 2 >= gap->end - gap->start)
    {
      gint64 best = -1;

      gap->cause = KS_GAP_CAUSE_PROFILER;
      for (guint i = 0; i < ctx->overhead->len; i++)
        {
          const guint32 *ref = &g_array_index (ctx->overhead, guint32, 2 * i);
          const KsTrack *t = &trace->tracks[ref[0]];
          gint64 ov = MIN (t->end[ref[1]], gap->end) - MAX (t->start[ref[1]], gap->start);

          if (ov > best)
            {
              best = ov;
              gap->cause_track = ref[0];
              gap->cause_slice = ref[1];
              gap->cause_name = t->name_id[ref[1]];
            }
        }
      return;
    }

  if (gap->thread >= trace->n_threads)
    return;
  track_id = trace->threads[gap->thread].track;

  memset (&p, 0, sizeof p);
  p.ctx = ctx;
  p.r0 = r0;
  p.r1 = r1;
  p.sync_best = p.dl_best = p.osrt_best = KS_NO_INDEX;
  p.op_inner = p.py_inner = p.busiest = KS_NO_INDEX;
  if (track_id != KS_NO_INDEX)
    {
      track = &trace->tracks[track_id];
      ks_track_foreach_in_range (track, r0, r1, probe_thread_cb, &p);
    }

  nvtx_track = ctx->nvtx_of_thread[gap->thread];
  if (nvtx_track != KS_NO_INDEX)
    ks_track_foreach_in_range (&trace->tracks[nvtx_track], r0, r1, probe_nvtx_cb, &np);

#define SET_CAUSE(c, t, s)                          \
  G_STMT_START {                                    \
    gap->cause = (c);                               \
    gap->cause_track = (t);                         \
    gap->cause_slice = (s);                         \
    gap->cause_name = trace->tracks[t].name_id[s];  \
  } G_STMT_END

  if (covers_half (&p, p.sync_total) && p.sync_best != KS_NO_INDEX)
    SET_CAUSE (KS_GAP_CAUSE_SYNC, track_id, p.sync_best);
  else if (p.dl_best != KS_NO_INDEX && covers_half (&p, p.dl_best_ov))
    SET_CAUSE (KS_GAP_CAUSE_DATALOADER, track_id, p.dl_best);
  else if (p.osrt_best != KS_NO_INDEX && covers_half (&p, p.osrt_best_ov))
    SET_CAUSE (KS_GAP_CAUSE_OSRT, track_id, p.osrt_best);
  else if (np.inner != KS_NO_INDEX && (p.op_inner == KS_NO_INDEX || np.inner_dur <= p.op_inner_dur))
    SET_CAUSE (KS_GAP_CAUSE_NVTX, nvtx_track, np.inner);
  else if (p.op_inner != KS_NO_INDEX)
    SET_CAUSE (KS_GAP_CAUSE_OPERATOR, track_id, p.op_inner);
  else if (p.py_inner != KS_NO_INDEX)
    SET_CAUSE (KS_GAP_CAUSE_PYTHON, track_id, p.py_inner);
  else if (p.busiest != KS_NO_INDEX)
    SET_CAUSE (KS_GAP_CAUSE_CPU_BUSY, track_id, p.busiest);
  else if ((frame = sampled_frame (ctx, gap->thread, r0, r1, &frame_track)) != KS_NO_INDEX)
    SET_CAUSE (KS_GAP_CAUSE_PYTHON, frame_track, frame);
  else if ((main = main_thread_of (trace, gap->thread)) != KS_NO_INDEX && main != gap->thread &&
           (frame = sampled_frame (ctx, main, r0, r1, &frame_track)) != KS_NO_INDEX)
    SET_CAUSE (KS_GAP_CAUSE_PYTHON, frame_track, frame);
  else
    gap->cause = KS_GAP_CAUSE_NO_CPU_ACTIVITY;

#undef SET_CAUSE
}

/* The GPU work on @ds that starts first at or after @t. */
static gboolean
find_next_work (Context     *ctx,
                DeviceState *ds,
                gint64       t,
                guint32     *out_track,
                guint32     *out_slice)
{
  gint64 best = G_MAXINT64;

  *out_track = *out_slice = KS_NO_INDEX;
  for (guint i = 0; i < ds->streams->len; i++)
    {
      guint32 tid = g_array_index (ds->streams, guint32, i);
      const KsTrack *track = &ctx->trace->tracks[tid];
      guint32 lo = ks_track_first_starting_from (track, t);

      for (; lo < track->n_slices && track->start[lo] < best; lo++)
        if (GPU_WORK_KINDS & KIND_BIT (track->slice_kind[lo]))
          {
            best = track->start[lo];
            *out_track = tid;
            *out_slice = lo;
            break;
          }
    }
  return *out_track != KS_NO_INDEX;
}

/* The GPU work on @ds that ends last at or before @t. */
static gboolean
find_prev_work (Context     *ctx,
                DeviceState *ds,
                gint64       t,
                guint32     *out_track,
                guint32     *out_slice)
{
  gint64 best = G_MININT64;

  *out_track = *out_slice = KS_NO_INDEX;
  for (guint i = 0; i < ds->streams->len; i++)
    {
      guint32 tid = g_array_index (ds->streams, guint32, i);
      const KsTrack *track = &ctx->trace->tracks[tid];

      for (guint d = 0; d < track->max_depth; d++)
        {
          guint32 k = ks_track_depth_lower_bound (track, d, t);

          while (k > 0)
            {
              guint32 s = track->by_depth[d][--k];

              if (track->end[s] <= best)
                break;
              if (GPU_WORK_KINDS & KIND_BIT (track->slice_kind[s]))
                {
                  best = track->end[s];
                  *out_track = tid;
                  *out_slice = s;
                  break;
                }
            }
        }
    }
  return *out_track != KS_NO_INDEX;
}

static guint32
launch_thread (Context *ctx,
               guint32  track,
               guint32  slice,
               guint32 *launch_track,
               guint32 *launch_slice)
{
  const guint32 *launch = ctx->launch_of_gpu[track];
  const KsFlow *flow;

  if (launch == NULL || launch[slice] == KS_NO_INDEX)
    return KS_NO_INDEX;
  flow = &ctx->trace->flows[launch[slice]];
  if (launch_track != NULL)
    {
      *launch_track = flow->from_track;
      *launch_slice = flow->from_slice;
    }
  return ctx->trace->tracks[flow->from_track].thread;
}

static void
classify_gap (Context     *ctx,
              DeviceState *ds,
              KsGap       *gap)
{
  KsTrace *trace = ctx->trace;
  gint64 r0 = gap->start, r1 = gap->end;

  gap->klass = KS_GAP_OTHER;
  gap->thread = KS_NO_INDEX;
  gap->launch_track = gap->launch_slice = KS_NO_INDEX;

  if (find_next_work (ctx, ds, gap->end, &gap->next_track, &gap->next_slice))
    gap->thread = launch_thread (ctx, gap->next_track, gap->next_slice,
                                 &gap->launch_track, &gap->launch_slice);

  if (gap->launch_track != KS_NO_INDEX)
    {
      gint64 api_start = trace->tracks[gap->launch_track].start[gap->launch_slice];

      if (api_start > gap->start)
        {
          gap->klass = KS_GAP_HOST_WAIT;
          /* What kept the thread from starting the launch */
          r1 = MIN (api_start, gap->end);
        }
      else if (gap->end - gap->start < ctx->options.kernel_wait_ns)
        gap->klass = KS_GAP_KERNEL_WAIT;
    }
  else
    {
      guint32 pt, ps;

      /* Unknown launch: look at the thread that launched the work before. */
      if (find_prev_work (ctx, ds, gap->start, &pt, &ps))
        gap->thread = launch_thread (ctx, pt, ps, NULL, NULL);
      if (gap->thread == KS_NO_INDEX)
        for (guint i = 0; i < ctx->step_refs->len; i++)
          {
            const KsStep *step = &g_array_index (ctx->step_refs, KsStep, i);

            if (step->start <= gap->start && step->end >= gap->end)
              {
                gap->thread = trace->tracks[step->track].thread;
                break;
              }
          }
    }

  attribute (ctx, gap, r0, r1);
  _ks_gap_other_threads (ctx, gap, r0, r1);
}

static int
compare_gaps (gconstpointer a,
              gconstpointer b)
{
  const KsGap *ga = a;
  const KsGap *gb = b;

  if (ga->start != gb->start)
    return ga->start < gb->start ? -1 : 1;
  return (ga->device > gb->device) - (ga->device < gb->device);
}

static int
compare_by_duration (gconstpointer a,
                     gconstpointer b,
                     gpointer      user_data)
{
  const KsGap *gaps = user_data;
  const KsGap *ga = &gaps[*(const guint *)a];
  const KsGap *gb = &gaps[*(const guint *)b];
  gint64 da = ga->end - ga->start;
  gint64 db = gb->end - gb->start;

  if (da != db)
    return da > db ? -1 : 1;
  if (ga->start != gb->start)
    return ga->start < gb->start ? -1 : 1;
  return (ga->device > gb->device) - (ga->device < gb->device);
}

static int
compare_causes (gconstpointer a,
                gconstpointer b)
{
  const KsGapCauseTotal *ca = a;
  const KsGapCauseTotal *cb = b;

  if (ca->total_ns != cb->total_ns)
    return ca->total_ns > cb->total_ns ? -1 : 1;
  if (ca->cause != cb->cause)
    return ca->cause < cb->cause ? -1 : 1;
  if (ca->name != cb->name)
    return ca->name < cb->name ? -1 : 1;
  /* the same function sampled at different places: first seen first */
  if (ca->track != cb->track)
    return ca->track < cb->track ? -1 : 1;
  return (ca->slice > cb->slice) - (ca->slice < cb->slice);
}

void
_ks_analysis_gaps (KsAnalysis *self,
                   Context    *ctx)
{
  g_autoptr(GHashTable) causes = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func (g_free);
  gint64 threshold = MAX (ctx->options.gap_threshold_ns, 0);
  KsGap *gaps;

  for (guint d = 0; d < ctx->devices->len; d++)
    {
      DeviceState *ds = &g_array_index (ctx->devices, DeviceState, d);
      const KsRangeSet *a = &ds->activity;
      guint j = 0;

      for (guint w = 0; w < ds->window.n; w++)
        {
          gint64 w0 = ds->window.r[w].start;
          gint64 w1 = ds->window.r[w].end;
          gint64 cur = w0;

          while (j < a->n && a->r[j].end <= w0)
            j++;

          for (;; j++)
            {
              gint64 next = (j < a->n && a->r[j].start < w1) ? a->r[j].start : w1;

              if (next - cur > threshold)
                {
                  KsGap gap;

                  memset (&gap, 0, sizeof gap);
                  gap.start = cur;
                  gap.end = next;
                  gap.device = ds->device;
                  g_array_append_val (self->gaps, gap);
                }
              if (!(j < a->n && a->r[j].start < w1))
                break;
              cur = MAX (cur, a->r[j].end);
              if (a->r[j].end > w1)
                break;
            }
        }
    }

  g_array_sort (self->gaps, compare_gaps);
  gaps = (KsGap *)(gpointer)self->gaps->data;

  for (guint i = 0; i < self->gaps->len; i++)
    {
      KsGap *gap = &gaps[i];
      DeviceState *ds = _ks_context_find_device (ctx, gap->device);
      KsGpuSummary *sum = (KsGpuSummary *)ks_analysis_get_gpu (self, gap->device);
      gint64 dur = gap->end - gap->start;
      KsGapCauseTotal *total;
      g_autofree char *key = NULL;

      classify_gap (ctx, ds, gap);

      sum->n_gaps++;
      sum->gap_total_ns += dur;
      sum->largest_gap_ns = MAX (sum->largest_gap_ns, dur);
      sum->gap_class_ns[gap->klass] += dur;

      /* A sampled frame is its function at one place in one file */
      key = g_strdup_printf ("%u %u", gap->cause, gap->cause_name);
      if (gap->cause == KS_GAP_CAUSE_PYTHON)
        {
          g_autofree char *where = ks_gap_cause_format_name (ctx->trace, gap->cause, gap->cause_name,
                                                             gap->cause_track, gap->cause_slice);
          g_autofree char *plain = key;

          key = g_strdup_printf ("%s %s", plain, where);
        }
      total = g_hash_table_lookup (causes, key);
      if (total == NULL)
        {
          g_ptr_array_add (keys, g_strdup (key));
          total = g_new0 (KsGapCauseTotal, 1);
          total->cause = gap->cause;
          total->name = gap->cause_name;
          total->track = gap->cause_track;
          total->slice = gap->cause_slice;
          g_hash_table_insert (causes, g_steal_pointer (&key), total);
        }
      total->count++;
      total->total_ns += dur;
      total->largest_ns = MAX (total->largest_ns, dur);
    }

  for (guint i = 0; i < keys->len; i++)
    g_array_append_vals (self->gap_causes, g_hash_table_lookup (causes, g_ptr_array_index (keys, i)), 1);
  g_array_sort (self->gap_causes, compare_causes);

  self->gaps_by_duration = g_new (guint, MAX (self->gaps->len, 1));
  for (guint i = 0; i < self->gaps->len; i++)
    self->gaps_by_duration[i] = i;
  g_qsort_with_data (self->gaps_by_duration, self->gaps->len, sizeof (guint),
                     compare_by_duration, gaps);
}

/* Formatting a gap's cause */

char *
ks_gap_cause_format_name (const KsTrace *trace,
                          KsGapCause     cause,
                          guint32        name,
                          guint32        track,
                          guint32        slice)
{
  const KsTrack *t;
  const char *args, *file;
  g_autoptr(GString) args_buf = NULL;
  g_autofree char *path = NULL;
  g_autofree char *base = NULL;
  gint64 line = 0;
  gsize len;

  g_return_val_if_fail (trace != NULL, g_strdup (""));

  if (cause != KS_GAP_CAUSE_PYTHON || track >= trace->n_tracks)
    return g_strdup (ks_trace_string (trace, name));
  t = &trace->tracks[track];
  if (slice >= t->n_slices || t->slice_kind[slice] != KS_SLICE_SAMPLE)
    return g_strdup (ks_trace_string (trace, name));

  /* A sampled frame keeps where it was in its args */
  args_buf = g_string_new (NULL);
  args = ks_trace_slice_args (trace, t, slice, args_buf);
  file = args != NULL ? ks_args_find (args, "file", &len) : NULL;
  if (file == NULL || !ks_args_get_int (args, "line", &line))
    return g_strdup (ks_trace_string (trace, name));
  {
    g_autofree char *escaped = g_strndup (file, len);

    path = g_strcompress (escaped);
  }
  base = g_path_get_basename (path);
  return g_strdup_printf ("%s:%" G_GINT64_FORMAT " %s", base, line, ks_trace_string (trace, name));
}

char *
ks_gap_cause_format (const KsTrace *trace,
                     KsGapCause     cause,
                     guint32        name,
                     guint32        track,
                     guint32        slice)
{
  g_autofree char *what = ks_gap_cause_format_name (trace, cause, name, track, slice);

  if (what[0] == 0)
    return g_strdup (ks_gap_cause_get_title (cause));
  /* TRANSLATORS: a gap's cause, then what it names: "Python: loader.py:57 decode_batch" */
  return g_strdup_printf (C_("gap cause", "%s: %s"), ks_gap_cause_get_title (cause), what);
}
