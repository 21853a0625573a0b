/* ks-timeline-layout-rows.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-timeline-layout"

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "ks-counter-names.h"
#include "ks-format.h"
#include "ks-timeline-layout-private.h"

/* The rows: GPUs (counters, then streams with their annotation rows),
 * then processes (threads with their NVTX rows, async rows, counters,
 * memory), then whatever belongs to neither; and their labels. */

/* The largest of @c's byte samples, as a label says it. */
static char *
peak_bytes (const KsCounter *c)
{
  double max = 0;

  for (guint32 i = 0; i < c->n_samples; i++)
    max = MAX (max, c->value[i]);
  return ks_format_bytes ((guint64)max);
}

static char *
memory_label (const KsMemorySeries *m)
{
  g_autofree char *peak = peak_bytes (&m->allocated);

  /* What the allocator handed out, not the process's memory use. */
  if (m->device < 0)
    return g_strdup_printf (_("Allocated on CPU, peak %s"), peak);
  return g_strdup_printf (_("Allocated on GPU %d, peak %s"), m->device, peak);
}

/* Reserved minus allocated: what the caching allocator keeps from the
 * device without handing it out, the memory fragmentation leaves idle. */
static char *
unused_label (const KsMemorySeries *m)
{
  g_autofree char *peak = peak_bytes (&m->unused);

  return g_strdup_printf (_("Reserved, not allocated, on GPU %d, peak %s"), m->device, peak);
}

/* The allocations of @device's snapshot by address, under its memory
 * curves; once. */
static guint add_row (KsTimelineLayout *self, KsRowKind kind, guint32 index, guint group,
                      guint16 indent, char *label);

static void
add_block_rows (KsTimelineLayout *self,
                gint32            device,
                guint             group,
                guint8           *placed)
{
  for (guint i = 0; i < self->blocks->n_devices; i++)
    {
      if (placed[i] || (device >= 0 && self->blocks->devices[i].device != device))
        continue;
      placed[i] = TRUE;
      add_row (self, KS_ROW_MEMORY_BLOCKS, i, group, 1,
               g_strdup_printf (_("Blocks on GPU %d by address"), self->blocks->devices[i].device));
    }
}

/* Where a process goes among the others. */
typedef enum
{
  PROCESS_WORKLOAD = 0,
  PROCESS_PROFILER,          /* Kineto's overhead (pid -1) and "Spans" processes */
  PROCESS_LAUNCHER,          /* a shell or shim that only started the job */
} ProcessKind;

typedef struct
{
  KsTrace *trace;
  gint64  *gpu_ns;           /* per process: GPU time of what it launched */
  guint8  *kind;             /* per process: ProcessKind */
} ProcessOrder;

static gboolean
is_overhead_process (const KsTrace   *trace,
                     const KsProcess *proc)
{
  const char *name = ks_trace_string (trace, proc->name);

  return proc->pid == -1 && (*name == 0 || strstr (name, "Overhead") != NULL);
}

static gboolean
is_spans_process (const KsTrace   *trace,
                  const KsProcess *proc)
{
  const char *orig = ks_trace_string (trace, proc->original);

  /* Kineto names it "Spans"; in 2021, "Traces". */
  return g_str_equal (orig, "Spans") || g_str_equal (orig, "Traces");
}

static ProcessKind
process_kind (const KsTrace *trace,
              guint32        p,
              gint64         gpu_ns)
{
  /* Programs that run another one and wait: pyenv's and conda's shims
   * are bash scripts, and a recording sees each of them. */
  static const char *const launchers[] = {
    "bash", "sh", "dash", "zsh", "fish", "env", "pyenv", "conda", "timeout", "nohup", "time", "xargs",
  };
  const KsProcess *proc = &trace->processes[p];
  const char *name = ks_trace_string (trace, proc->name);

  if (is_overhead_process (trace, proc) || is_spans_process (trace, proc))
    return PROCESS_PROFILER;
  if (gpu_ns == 0)
    for (guint i = 0; i < G_N_ELEMENTS (launchers); i++)
      if (g_str_equal (name, launchers[i]))
        return PROCESS_LAUNCHER;
  return PROCESS_WORKLOAD;
}

static int
compare_gint32 (gint32 a,
                gint32 b)
{
  return a < b ? -1 : a > b;
}

static int
compare_gint64 (gint64 a,
                gint64 b)
{
  return a < b ? -1 : a > b;
}

/* The workload first, the processes that used the GPU most ahead; then
 * the profiler's own; the launchers last. */
static int
compare_processes (gconstpointer a,
                   gconstpointer b,
                   gpointer      user_data)
{
  ProcessOrder *order = user_data;
  KsTrace *trace = order->trace;
  guint32 ia = *(const guint32 *)a, ib = *(const guint32 *)b;
  const KsProcess *pa = &trace->processes[ia];
  const KsProcess *pb = &trace->processes[ib];
  int r;

  if ((r = compare_gint32 (order->kind[ia], order->kind[ib])))
    return r;
  if ((r = compare_gint64 (order->gpu_ns[ib], order->gpu_ns[ia])))
    return r;
  if ((r = compare_gint32 (pa->sort_index, pb->sort_index)))
    return r;
  if ((r = compare_gint32 (pa->group, pb->group)))
    return r;
  return compare_gint64 (pa->pid, pb->pid);
}

static int
compare_tracks (gconstpointer a,
                gconstpointer b,
                gpointer      user_data)
{
  KsTrace *trace = user_data;
  const KsTrack *ta = &trace->tracks[*(const guint32 *)a];
  const KsTrack *tb = &trace->tracks[*(const guint32 *)b];
  int r;

  if ((r = compare_gint32 (ta->kind, tb->kind)))
    return r;
  if (ta->kind == KS_TRACK_THREAD && ta->thread != KS_NO_INDEX && tb->thread != KS_NO_INDEX)
    {
      const KsThread *ha = &trace->threads[ta->thread];
      const KsThread *hb = &trace->threads[tb->thread];

      if ((r = compare_gint32 (ha->sort_index, hb->sort_index)))
        return r;
      if ((r = compare_gint64 (ha->tid, hb->tid)))
        return r;
    }
  if ((r = compare_gint32 (ta->sort_index, tb->sort_index)))
    return r;
  if ((r = compare_gint32 (ta->group, tb->group)))
    return r;
  if ((r = compare_gint64 (ta->stream, tb->stream)))
    return r;
  return compare_gint32 (ta->id, tb->id);
}

static void
array_unref0 (gpointer data)
{
  if (data != NULL)
    g_array_unref (data);
}

static guint
add_row (KsTimelineLayout *self,
         KsRowKind         kind,
         guint32           index,
         guint             group,
         guint16           indent,
         char             *label)
{
  KsRow row = { 0 };

  row.kind = kind;
  row.index = index;
  row.group = group == KS_NO_INDEX ? self->rows->len : group;
  row.indent = indent;
  row.label = label;
  row.y = -1;
  row.expanded = TRUE;
  row.n_lanes = 1;

  switch (kind)
    {
    case KS_ROW_GROUP:
      row.height = KS_GROUP_HEIGHT;
      break;

    case KS_ROW_SLICES:
      row.n_lanes = MAX (1, self->trace->tracks[index].max_depth);
      row.height = row.n_lanes * KS_LANE_HEIGHT + 2 * KS_ROW_PADDING;
      self->track_rows[index] = self->rows->len;
      break;

    case KS_ROW_MEMORY_BLOCKS:
      row.height = KS_BLOCKS_HEIGHT;
      break;

    case KS_ROW_COUNTER:
      {
        const KsCounter *c = layout_counter (self, index);
        double lo = 0, hi = 0;

        for (guint32 i = 0; i < c->n_samples; i++)
          {
            if (isfinite (c->value[i]))
              {
                lo = MIN (lo, c->value[i]);
                hi = MAX (hi, c->value[i]);
              }
          }
        if (hi <= lo)
          hi = lo + 1;
        row.counter_min = lo;
        row.counter_max = hi;
        row.height = KS_COUNTER_HEIGHT;
        self->counter_rows[index] = self->rows->len;
      }
      break;

    default:
      g_assert_not_reached ();
    }

  g_array_append_val (self->rows, row);
  return self->rows->len - 1;
}

static char *
track_label (KsTrace       *trace,
             const KsTrack *track)
{
  const char *name = ks_trace_string (trace, track->name);

  switch (track->kind)
    {
    case KS_TRACK_THREAD:
      if (track->thread != KS_NO_INDEX)
        {
          const KsThread *th = &trace->threads[track->thread];
          const char *tname = ks_trace_string (trace, th->name);
          const char *orig = ks_trace_string (trace, th->original);

          g_autofree char *tid = *orig ? g_strdup (orig) : g_strdup_printf ("%" G_GINT64_FORMAT, th->tid);

          const KsProcess *proc = &trace->processes[th->process];

          if (is_spans_process (trace, proc))
            return *orig ? g_strdup_printf (_("profiling windows (%s)"), orig) : g_strdup (_("profiling windows"));
          if (th->tid == 0 && *tname == 0 && *orig == 0)
            {
              if (is_overhead_process (trace, proc))
                return g_strdup (_("profiler overhead"));
              /* Nsight puts a process's calls seen on no thread on tid 0. */
              if (trace->format == KS_FORMAT_NSYS_SQLITE)
                return g_strdup (_("calls without a thread"));
            }

          /* Kineto names threads "thread 455 (python3)" already: said
           * again in the user's language. */
          if (*tname && strstr (tname, tid) != NULL)
            {
              g_autofree char *prefix = g_strconcat ("thread ", tid, NULL);
              size_t n = strlen (prefix), len = strlen (tname);

              if (g_str_equal (tname, prefix))
                return g_strdup_printf (_("thread %" PRId64), th->tid);
              if (g_str_has_prefix (tname, prefix) && len > n + 3 &&
                  strncmp (tname + n, " (", 2) == 0 && tname[len - 1] == ')')
                {
                  g_autofree char *inner = g_strndup (tname + n + 2, len - n - 3);

                  return g_strdup_printf (_("thread %s (%s)"), tid, inner);
                }
              return g_strdup (tname);
            }
          if (*tname)
            return g_strdup_printf ("%s (%s)", tname, tid);
          if (*orig)
            return g_strdup (orig);
          return g_strdup_printf (_("thread %" PRId64), th->tid);
        }
      break;

    case KS_TRACK_STREAM:
      /* CUPTI reports device-wide synchronization on no stream. */
      if (*name == 0 && track->stream < 0)
        return g_strdup (_("device-wide synchronization"));
      if (*name == 0)
        return g_strdup_printf (_("stream %" PRId64), track->stream);
      break;

    case KS_TRACK_GPU_ANNOTATION:
      if (*name == 0)
        return g_strdup_printf (_("annotations, stream %" PRId64), track->stream);
      break;

    case KS_TRACK_NVTX:
      if (*name == 0)
        return g_strdup (_("NVTX"));
      break;

    case KS_TRACK_SAMPLES:
      if (ks_trace_samples_are_python (trace))
        return g_strdup (_("Python samples"));
      /* Nsight samples the CPU: native frames, Python's only as the
       * interpreter's C functions */
      return g_strdup (_("CPU samples"));

    case KS_TRACK_ASYNC:
      /* the JSON reader's row of range-profiler measurements */
      if (g_str_equal (name, "cuda_profiler_range"))
        return g_strdup (_("CUPTI range profiler"));
      break;

    case KS_N_TRACK_KINDS:
    default:
      break;
    }

  if (*name)
    return g_strdup (name);
  return g_strdup_printf (_("track %u"), track->id);
}

static char *
counter_label (KsTrace         *trace,
               const KsCounter *c)
{
  const char *unit = ks_trace_string (trace, c->unit);
  /* the trace keeps NVML's and nvidia-smi's English names; the label
   * is the user's language */
  const char *name = ks_counter_name_display (ks_trace_string (trace, c->name));
  g_autofree char *on_gpu = NULL;

  /* a process's counter on one GPU (pmon's) says which */
  if (c->device >= 0 && c->process < trace->n_processes)
    /* TRANSLATORS: a process's counter on one GPU, e.g. "SM utilization on GPU 0" */
    name = on_gpu = g_strdup_printf (_("%s on GPU %d"), name, c->device);
  if (*unit)
    return g_strdup_printf ("%s (%s)", name, unit);
  return g_strdup (name);
}

static gboolean
queued_behind (const KsCounter *queue)
{
  for (guint32 i = 0; i < queue->n_samples; i++)
    if (queue->value[i] > 1)
      return TRUE;
  return FALSE;
}

/* The GPU-series rows of stream @track (its queue length: under the
 * stream and its annotation rows, where the eye looks for why the stream
 * is busy) or, with @track KS_NO_INDEX, of GPU @device of rank group
 * @rank (KS_NO_INDEX: of any) not placed yet (the achieved bandwidth of
 * each copy kind). */
static void
add_series_rows (KsTimelineLayout *self,
                 gint32            device,
                 guint32           track,
                 guint32           rank,
                 guint             group,
                 guint16           indent)
{
  guint32 first = self->trace->n_counters + self->memory->len;

  for (guint i = 0; i < self->gpu->n_series; i++)
    {
      const KsGpuSeries *g = &self->gpu->series[i];
      char *label;

      if (g->track != track || g->device != device || self->counter_rows[first + i] != KS_NO_INDEX ||
          (track == KS_NO_INDEX && rank != KS_NO_INDEX && g->group != rank))
        continue;
      /* a stream that never had more than its running operation queued
       * (a recorded job's many side streams) would only add an empty row */
      if (g->kind == KS_GPU_SERIES_QUEUE && !queued_behind (&g->counter))
        continue;
      if (g->kind == KS_GPU_SERIES_QUEUE)
        label = g_strdup_printf (_("queue length, stream %" PRId64), self->trace->tracks[track].stream);
      else
        /* TRANSLATORS: %s is a copy kind: HtoD, DtoH, DtoD... */
        label = g_strdup_printf (_("%s copy bandwidth (GB/s)"), ks_copy_kind_to_string (g->copy_kind));
      add_row (self, KS_ROW_COUNTER, first + i, group, indent, label);
    }
}

/* Whether GPU @device has bandwidth rows no rank took. */
static gboolean
has_bandwidth_rows (KsTimelineLayout *self,
                    gint32            device)
{
  guint32 first = self->trace->n_counters + self->memory->len;

  for (guint i = 0; i < self->gpu->n_series; i++)
    if (self->gpu->series[i].kind == KS_GPU_SERIES_COPY_BANDWIDTH && self->gpu->series[i].device == device &&
        self->counter_rows[first + i] == KS_NO_INDEX)
      return TRUE;
  return FALSE;
}

static void
add_track_with_children (KsTimelineLayout *self,
                         guint32           track,
                         guint             group,
                         guint16           indent,
                         GPtrArray        *children,
                         guint8           *placed)
{
  KsTrace *trace = self->trace;

  if (placed[track])
    return;
  placed[track] = TRUE;
  add_row (self, KS_ROW_SLICES, track, group, indent,
           track_label (trace, &trace->tracks[track]));

  if (children != NULL && children->pdata[track] != NULL)
    {
      GArray *kids = children->pdata[track];

      for (guint i = 0; i < kids->len; i++)
        add_track_with_children (self, g_array_index (kids, guint32, i), group,
                                 indent + 1, NULL, placed);
    }
  if (trace->tracks[track].kind == KS_TRACK_STREAM)
    add_series_rows (self, trace->tracks[track].device, track, KS_NO_INDEX, group, indent);
}

static char *
gpu_label (KsTrace *trace,
           gint32   device)
{
  const KsGpu *gpu = ks_trace_find_gpu (trace, device);

  if (gpu != NULL && *ks_trace_string (trace, gpu->name))
    return g_strdup_printf (_("GPU %d · %s"), device, ks_trace_string (trace, gpu->name));
  return g_strdup_printf (_("GPU %d"), device);
}

static char *
process_label (KsTrace *trace,
               guint32  p)
{
  const KsProcess *proc = &trace->processes[p];
  const char *name = ks_trace_string (trace, proc->name);
  const char *label = ks_trace_string (trace, proc->label);
  const char *orig = ks_trace_string (trace, proc->original);
  g_autofree char *pid = *orig ? g_strdup (orig) : g_strdup_printf ("%" G_GINT64_FORMAT, proc->pid);

  guint32 rank = trace->n_ranks > 1 ? ks_trace_rank_of_group (trace, proc->group) : KS_NO_INDEX;
  g_autofree char *text = NULL;

  if (is_overhead_process (trace, proc))
    return g_strdup (_("Profiler overhead"));
  if (is_spans_process (trace, proc))
    return g_strdup (_("Profiler spans"));
  if (*name && *label)
    text = g_strdup_printf (_("%s (pid %s, %s)"), name, pid, label);
  else if (*name)
    text = g_strdup_printf (_("%s (pid %s)"), name, pid);
  else
    text = g_strdup_printf (_("process %s"), pid);
  /* the rows of one rank of a job say whose they are */
  if (rank != KS_NO_INDEX)
    return g_strdup_printf (_("rank %d · %s"), trace->ranks[rank].rank, text);
  return g_steal_pointer (&text);
}

static int
compare_devices (gconstpointer a,
                 gconstpointer b)
{
  return compare_gint32 (*(const gint32 *)a, *(const gint32 *)b);
}

static int
compare_counters (gconstpointer a,
                  gconstpointer b,
                  gpointer      user_data)
{
  KsTrace *trace = user_data;
  const KsCounter *ca = &trace->counters[*(const guint32 *)a];
  const KsCounter *cb = &trace->counters[*(const guint32 *)b];

  return g_strcmp0 (ks_trace_string (trace, ca->name), ks_trace_string (trace, cb->name));
}

void
_ks_timeline_layout_build_rows (KsTimelineLayout *self)
{
  KsTrace *trace = self->trace;
  g_autoptr(GArray) devices = g_array_new (FALSE, FALSE, sizeof (gint32));
  g_autoptr(GArray) order = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) procs = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) counters = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GPtrArray) children = g_ptr_array_new_full (trace->n_tracks, array_unref0);
  g_autofree guint8 *placed = g_new0 (guint8, MAX (1, trace->n_tracks));
  g_autofree guint8 *counter_placed = g_new0 (guint8, MAX (1, trace->n_counters));
  g_autofree guint8 *blocks_placed = g_new0 (guint8, MAX (1, self->blocks->n_devices));
  guint other_group = KS_NO_INDEX;
  guint launcher_group = KS_NO_INDEX;
  ProcessOrder porder;
  GArray **proc_tracks;
  GArray **proc_counters;

  g_ptr_array_set_size (children, trace->n_tracks);

  /* All tracks in display order; children (NVTX under threads,
   * annotations under streams) are attached to their parent. */
  for (guint32 t = 0; t < trace->n_tracks; t++)
    g_array_append_val (order, t);
  g_array_sort_with_data (order, compare_tracks, trace);
  for (guint i = 0; i < order->len; i++)
    {
      guint32 t = g_array_index (order, guint32, i);
      const KsTrack *track = &trace->tracks[t];

      if (track->parent != KS_NO_INDEX && track->parent < trace->n_tracks && track->parent != t)
        {
          if (children->pdata[track->parent] == NULL)
            children->pdata[track->parent] = g_array_new (FALSE, FALSE, sizeof (guint32));
          g_array_append_val ((GArray *)children->pdata[track->parent], t);
        }
    }

  /* GPUs: every device that has a stream, a counter or a description. */
  for (guint32 t = 0; t < trace->n_tracks; t++)
    if (trace->tracks[t].device >= 0)
      g_array_append_val (devices, trace->tracks[t].device);
  for (guint32 c = 0; c < trace->n_counters; c++)
    if (trace->counters[c].device >= 0)
      g_array_append_val (devices, trace->counters[c].device);
  g_array_sort (devices, compare_devices);

  /* The ranks of a job each have their GPUs (device 0 of every host
   * is another GPU): a group a rank and device, before the others. */
  for (guint32 r = 0; trace->n_ranks > 1 && r < trace->n_ranks; r++)
    for (guint i = 0; i < devices->len; i++)
      {
        gint32 dev = g_array_index (devices, gint32, i);
        guint group = G_MAXUINT;

        if (i > 0 && g_array_index (devices, gint32, i - 1) == dev)
          continue;
        /* streams, then annotation rows whose stream has no activity */
        for (guint j = 0; j < 2 * order->len; j++)
          {
            guint32 t = g_array_index (order, guint32, j % order->len);
            const KsTrack *track = &trace->tracks[t];

            if (track->kind != (j < order->len ? KS_TRACK_STREAM : KS_TRACK_GPU_ANNOTATION)
                || track->device != dev || track->group != trace->ranks[r].group || placed[t])
              continue;
            if (group == G_MAXUINT)
              {
                g_autofree char *gpu = gpu_label (trace, dev);

                group = add_row (self, KS_ROW_GROUP, (guint32)dev, KS_NO_INDEX, 0,
                                 g_strdup_printf (_("rank %d · %s"), trace->ranks[r].rank, gpu));
                g_array_index (self->rows, KsRow, group).group_kind = KS_GROUP_GPU;
              }
            add_track_with_children (self, t, group, 1, children, placed);
          }
        /* the bandwidth of this rank's GPU, under its streams */
        if (group != G_MAXUINT)
          add_series_rows (self, dev, KS_NO_INDEX, trace->ranks[r].group, group, 1);
      }

  for (guint i = 0; i < devices->len; i++)
    {
      gint32 dev = g_array_index (devices, gint32, i);
      guint group;
      gboolean left = FALSE;

      if (i > 0 && g_array_index (devices, gint32, i - 1) == dev)
        continue;
      /* with ranks, only what no rank took (counters, rows of no rank) */
      for (guint32 t = 0; t < trace->n_tracks && !left; t++)
        left = trace->tracks[t].device == dev && !placed[t];
      for (guint32 c = 0; c < trace->n_counters && !left; c++)
        left = trace->counters[c].device == dev;
      left = left || has_bandwidth_rows (self, dev);
      if (trace->n_ranks > 1 && !left)
        continue;

      group = add_row (self, KS_ROW_GROUP, (guint32)dev, KS_NO_INDEX, 0, gpu_label (trace, dev));
      g_array_index (self->rows, KsRow, group).group_kind = KS_GROUP_GPU;

      g_array_set_size (counters, 0);
      /* a process's counters on this GPU (pmon's) go to its group */
      for (guint32 c = 0; c < trace->n_counters; c++)
        if (trace->counters[c].device == dev && trace->counters[c].process >= trace->n_processes)
          g_array_append_val (counters, c);
      g_array_sort_with_data (counters, compare_counters, trace);
      for (guint j = 0; j < counters->len; j++)
        {
          guint32 c = g_array_index (counters, guint32, j);

          counter_placed[c] = TRUE;
          add_row (self, KS_ROW_COUNTER, c, group, 1, counter_label (trace, &trace->counters[c]));
        }

      for (guint j = 0; j < order->len; j++)
        {
          guint32 t = g_array_index (order, guint32, j);
          const KsTrack *track = &trace->tracks[t];

          if (track->kind == KS_TRACK_STREAM && track->device == dev && !placed[t])
            add_track_with_children (self, t, group, 1, children, placed);
        }
      /* Annotation rows whose stream has no activity of its own. */
      for (guint j = 0; j < order->len; j++)
        {
          guint32 t = g_array_index (order, guint32, j);
          const KsTrack *track = &trace->tracks[t];

          if (track->kind == KS_TRACK_GPU_ANNOTATION && track->device == dev && !placed[t])
            add_track_with_children (self, t, group, 1, children, placed);
        }
      /* under the streams whose copies they measure */
      add_series_rows (self, dev, KS_NO_INDEX, KS_NO_INDEX, group, 1);
    }

  /* Processes, in the order of their GPU use: the GPU time of what
   * their threads launched. */
  porder.trace = trace;
  porder.gpu_ns = g_new0 (gint64, MAX (1, trace->n_processes));
  porder.kind = g_new0 (guint8, MAX (1, trace->n_processes));
  for (guint32 f = 0; f < trace->n_flows; f++)
    {
      const KsFlow *flow = &trace->flows[f];
      const KsTrack *from = &trace->tracks[flow->from_track];
      const KsTrack *to = &trace->tracks[flow->to_track];

      if (flow->kind == KS_FLOW_LAUNCH && from->process < trace->n_processes)
        porder.gpu_ns[from->process] += to->end[flow->to_slice] - to->start[flow->to_slice];
    }
  for (guint32 p = 0; p < trace->n_processes; p++)
    {
      porder.kind[p] = process_kind (trace, p, porder.gpu_ns[p]);
      g_array_append_val (procs, p);
    }
  g_array_sort_with_data (procs, compare_processes, &porder);

  /* Tracks and counters bucketed by process first, so that thousands
   * of processes and threads cost one pass. */
  proc_tracks = g_new0 (GArray *, MAX (1, trace->n_processes));
  proc_counters = g_new0 (GArray *, MAX (1, trace->n_processes));
  for (guint j = 0; j < order->len; j++)
    {
      guint32 t = g_array_index (order, guint32, j);
      const KsTrack *track = &trace->tracks[t];

      if (placed[t] || track->process >= trace->n_processes || track->device >= 0)
        continue;
      if (track->parent != KS_NO_INDEX && track->parent < trace->n_tracks && track->parent != t)
        continue;
      if (proc_tracks[track->process] == NULL)
        proc_tracks[track->process] = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_array_append_val (proc_tracks[track->process], t);
    }
  for (guint32 c = 0; c < trace->n_counters; c++)
    {
      guint32 p = trace->counters[c].process;

      if (counter_placed[c] || p >= trace->n_processes)
        continue;
      if (proc_counters[p] == NULL)
        proc_counters[p] = g_array_new (FALSE, FALSE, sizeof (guint32));
      g_array_append_val (proc_counters[p], c);
    }

  for (guint i = 0; i < procs->len; i++)
    {
      guint32 p = g_array_index (procs, guint32, i);
      guint group;

      /* a process with nothing but a name (a trace-event file's
       * metadata) is an empty group, as Perfetto shows it */
      if (proc_tracks[p] == NULL && proc_counters[p] == NULL && trace->processes[p].name == 0)
        continue;

      /* Launchers share one closed group, a row each, named for the process. */
      if (porder.kind[p] == PROCESS_LAUNCHER && proc_counters[p] == NULL)
        {
          if (launcher_group == KS_NO_INDEX)
            {
              guint n_launchers = 0;

              for (guint k = i; k < procs->len; k++)
                n_launchers += porder.kind[g_array_index (procs, guint32, k)] == PROCESS_LAUNCHER &&
                               proc_tracks[g_array_index (procs, guint32, k)] != NULL;
              launcher_group = add_row (self, KS_ROW_GROUP, 0, KS_NO_INDEX, 0,
                                        g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "Launchers (%u process)",
                                                                      "Launchers (%u processes)", n_launchers),
                                                         n_launchers));
              g_array_index (self->rows, KsRow, launcher_group).group_kind = KS_GROUP_OTHER;
              g_array_index (self->rows, KsRow, launcher_group).expanded = FALSE;
            }
          for (guint j = 0; j < proc_tracks[p]->len; j++)
            {
              guint32 t = g_array_index (proc_tracks[p], guint32, j);
              GArray *kids = children->pdata[t];
              g_autofree char *plabel = process_label (trace, p);
              g_autofree char *tlabel = track_label (trace, &trace->tracks[t]);

              placed[t] = TRUE;
              add_row (self, KS_ROW_SLICES, t, launcher_group, 1,
                       proc_tracks[p]->len == 1 ? g_steal_pointer (&plabel)
                                                : g_strdup_printf ("%s · %s", plabel, tlabel));
              for (guint k = 0; kids != NULL && k < kids->len; k++)
                add_track_with_children (self, g_array_index (kids, guint32, k), launcher_group, 2, NULL, placed);
            }
          continue;
        }

      group = add_row (self, KS_ROW_GROUP, p, KS_NO_INDEX, 0, process_label (trace, p));
      g_array_index (self->rows, KsRow, group).group_kind = KS_GROUP_PROCESS;

      for (guint j = 0; proc_tracks[p] != NULL && j < proc_tracks[p]->len; j++)
        add_track_with_children (self, g_array_index (proc_tracks[p], guint32, j), group, 1, children, placed);

      for (guint j = 0; proc_counters[p] != NULL && j < proc_counters[p]->len; j++)
        {
          guint32 c = g_array_index (proc_counters[p], guint32, j);

          counter_placed[c] = TRUE;
          add_row (self, KS_ROW_COUNTER, c, group, 1, counter_label (trace, &trace->counters[c]));
        }

      for (guint j = 0; j < self->memory->len; j++)
        {
          const KsMemorySeries *m = g_array_index (self->memory, const KsMemorySeries *, j);

          if (m->process != p)
            continue;
          add_row (self, KS_ROW_COUNTER, trace->n_counters + j, group, 1, memory_label (m));
          if (m->unused.n_samples > 0)
            add_row (self, KS_ROW_COUNTER, layout_first_unused (self) + j, group, 1, unused_label (m));
          add_block_rows (self, m->device, group, blocks_placed);
        }
    }

  for (guint32 p = 0; p < trace->n_processes; p++)
    {
      g_clear_pointer (&proc_tracks[p], g_array_unref);
      g_clear_pointer (&proc_counters[p], g_array_unref);
    }
  g_free (proc_tracks);
  g_free (proc_counters);
  g_free (porder.gpu_ns);
  g_free (porder.kind);

  /* Whatever belongs to no process or GPU. */
  for (guint j = 0; j < order->len; j++)
    {
      guint32 t = g_array_index (order, guint32, j);

      if (placed[t])
        continue;
      if (other_group == KS_NO_INDEX)
        {
          other_group = add_row (self, KS_ROW_GROUP, 0, KS_NO_INDEX, 0, g_strdup (_("Other")));
          g_array_index (self->rows, KsRow, other_group).group_kind = KS_GROUP_OTHER;
        }
      add_track_with_children (self, t, other_group, 1, NULL, placed);
    }
  for (guint32 c = 0; c < trace->n_counters; c++)
    {
      if (counter_placed[c])
        continue;
      if (other_group == KS_NO_INDEX)
        {
          other_group = add_row (self, KS_ROW_GROUP, 0, KS_NO_INDEX, 0, g_strdup (_("Counters")));
          g_array_index (self->rows, KsRow, other_group).group_kind = KS_GROUP_OTHER;
        }
      add_row (self, KS_ROW_COUNTER, c, other_group, 1, counter_label (trace, &trace->counters[c]));
    }
  for (guint i = 0; i < self->blocks->n_devices; i++)
    if (!blocks_placed[i])
      {
        if (other_group == KS_NO_INDEX)
          {
            other_group = add_row (self, KS_ROW_GROUP, 0, KS_NO_INDEX, 0, g_strdup (_("Other")));
            g_array_index (self->rows, KsRow, other_group).group_kind = KS_GROUP_OTHER;
          }
        add_block_rows (self, -1, other_group, blocks_placed);
      }
}
