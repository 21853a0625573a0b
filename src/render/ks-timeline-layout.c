/* ks-timeline-layout.c
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

#include "ks-format.h"
#include "ks-memory-series.h"
#include "ks-timeline-layout.h"

struct _KsTimelineLayout
{
  KsTrace *trace;
  GArray  *rows;               /* KsRow */
  GArray  *visible;            /* guint row indices */
  int      height;
  guint   *track_rows;         /* track -> row */
  guint   *counter_rows;       /* counter -> row; memory series after the trace's counters */
  KsColor *name_colors[2];     /* per string id, light and dark; 0 = not yet computed */
  GArray  *memory;             /* const KsMemorySeries *, counter index trace->n_counters + i */
};

static const KsCounter *
layout_counter (KsTimelineLayout *self,
                guint32           index)
{
  if (index < self->trace->n_counters)
    return &self->trace->counters[index];
  return &g_array_index (self->memory, const KsMemorySeries *, index - self->trace->n_counters)->allocated;
}

static guint32
n_layout_counters (KsTimelineLayout *self)
{
  return self->trace->n_counters + self->memory->len;
}

/* The memory series that belong to a process, drawn as counter rows of
 * allocated bytes under it. */
static void
find_memory_series (KsTimelineLayout *self)
{
  const KsMemorySeriesSet *set = ks_memory_series_get (self->trace);

  self->memory = g_array_new (FALSE, FALSE, sizeof (const KsMemorySeries *));
  for (guint i = 0; i < set->n_series; i++)
    if (set->series[i].process != KS_NO_INDEX)
      {
        const KsMemorySeries *m = &set->series[i];

        g_array_append_val (self->memory, m);
      }
}

static char *
memory_label (const KsMemorySeries *m)
{
  g_autofree char *peak = NULL;
  double max = 0;

  for (guint32 i = 0; i < m->allocated.n_samples; i++)
    max = MAX (max, m->allocated.value[i]);
  peak = ks_format_bytes ((guint64)max);
  if (m->device < 0)
    return g_strdup_printf (_("CPU memory, peak %s"), peak);
  return g_strdup_printf (_("GPU %d memory, peak %s"), m->device, peak);
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

static int
compare_processes (gconstpointer a,
                   gconstpointer b,
                   gpointer      user_data)
{
  KsTrace *trace = user_data;
  const KsProcess *pa = &trace->processes[*(const guint32 *)a];
  const KsProcess *pb = &trace->processes[*(const guint32 *)b];
  int r;

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

          /* Kineto names threads "thread 455 (python3)" already. */
          if (*tname && strstr (tname, tid) != NULL)
            return g_strdup (tname);
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

    case KS_TRACK_ASYNC:
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

  if (*unit)
    return g_strdup_printf ("%s (%s)", ks_trace_string (trace, c->name), unit);
  return g_strdup (ks_trace_string (trace, c->name));
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

  if (*name && *label)
    return g_strdup_printf (_("%s (pid %s, %s)"), name, pid, label);
  if (*name)
    return g_strdup_printf (_("%s (pid %s)"), name, pid);
  return g_strdup_printf (_("process %s"), pid);
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

static void
build_rows (KsTimelineLayout *self)
{
  KsTrace *trace = self->trace;
  g_autoptr(GArray) devices = g_array_new (FALSE, FALSE, sizeof (gint32));
  g_autoptr(GArray) order = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) procs = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GArray) counters = g_array_new (FALSE, FALSE, sizeof (guint32));
  g_autoptr(GPtrArray) children = g_ptr_array_new_full (trace->n_tracks, array_unref0);
  g_autofree guint8 *placed = g_new0 (guint8, MAX (1, trace->n_tracks));
  g_autofree guint8 *counter_placed = g_new0 (guint8, MAX (1, trace->n_counters));
  guint other_group = KS_NO_INDEX;
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

  for (guint i = 0; i < devices->len; i++)
    {
      gint32 dev = g_array_index (devices, gint32, i);
      guint group;

      if (i > 0 && g_array_index (devices, gint32, i - 1) == dev)
        continue;

      group = add_row (self, KS_ROW_GROUP, (guint32)dev, KS_NO_INDEX, 0, gpu_label (trace, dev));
      g_array_index (self->rows, KsRow, group).group_kind = KS_GROUP_GPU;

      g_array_set_size (counters, 0);
      for (guint32 c = 0; c < trace->n_counters; c++)
        if (trace->counters[c].device == dev)
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

          if (track->kind == KS_TRACK_STREAM && track->device == dev)
            add_track_with_children (self, t, group, 1, children, placed);
        }
      /* Annotation rows whose stream has no activity of its own. */
      for (guint j = 0; j < order->len; j++)
        {
          guint32 t = g_array_index (order, guint32, j);
          const KsTrack *track = &trace->tracks[t];

          if (track->kind == KS_TRACK_GPU_ANNOTATION && track->device == dev)
            add_track_with_children (self, t, group, 1, children, placed);
        }
    }

  /* Processes. */
  for (guint32 p = 0; p < trace->n_processes; p++)
    g_array_append_val (procs, p);
  g_array_sort_with_data (procs, compare_processes, trace);

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

      if (proc_tracks[p] == NULL && proc_counters[p] == NULL)
        continue;

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

          if (m->process == p)
            add_row (self, KS_ROW_COUNTER, trace->n_counters + j, group, 1, memory_label (m));
        }
    }

  for (guint32 p = 0; p < trace->n_processes; p++)
    {
      g_clear_pointer (&proc_tracks[p], g_array_unref);
      g_clear_pointer (&proc_counters[p], g_array_unref);
    }
  g_free (proc_tracks);
  g_free (proc_counters);

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
}

static void
relayout (KsTimelineLayout *self)
{
  int y = 0;

  g_array_set_size (self->visible, 0);

  for (guint i = 0; i < self->rows->len; i++)
    {
      KsRow *row = &g_array_index (self->rows, KsRow, i);
      const KsRow *group = &g_array_index (self->rows, KsRow, row->group);

      if (row->kind != KS_ROW_GROUP && !group->expanded)
        {
          row->y = -1;
          continue;
        }
      row->y = y;
      y += row->height;
      g_array_append_val (self->visible, i);
    }

  self->height = y;
}

KsTimelineLayout *
ks_timeline_layout_new (KsTrace *trace)
{
  KsTimelineLayout *self;

  g_return_val_if_fail (KS_IS_TRACE (trace), NULL);

  self = g_new0 (KsTimelineLayout, 1);
  self->trace = g_object_ref (trace);
  self->rows = g_array_new (FALSE, TRUE, sizeof (KsRow));
  self->visible = g_array_new (FALSE, FALSE, sizeof (guint));
  self->track_rows = g_new (guint, MAX (1, trace->n_tracks));
  find_memory_series (self);
  self->counter_rows = g_new (guint, MAX (1, n_layout_counters (self)));
  memset (self->track_rows, 0xff, sizeof (guint) * MAX (1, trace->n_tracks));
  memset (self->counter_rows, 0xff, sizeof (guint) * MAX (1, n_layout_counters (self)));

  build_rows (self);
  relayout (self);

  return self;
}

void
ks_timeline_layout_free (KsTimelineLayout *self)
{
  if (self == NULL)
    return;

  for (guint i = 0; i < self->rows->len; i++)
    g_free (g_array_index (self->rows, KsRow, i).label);
  g_array_unref (self->rows);
  g_array_unref (self->visible);
  g_free (self->track_rows);
  g_free (self->counter_rows);
  g_array_unref (self->memory);
  g_free (self->name_colors[0]);
  g_free (self->name_colors[1]);
  g_object_unref (self->trace);
  g_free (self);
}

KsTrace *
ks_timeline_layout_get_trace (KsTimelineLayout *self)
{
  return self->trace;
}

guint
ks_timeline_layout_get_n_rows (KsTimelineLayout *self)
{
  return self->rows->len;
}

const KsRow *
ks_timeline_layout_get_row (KsTimelineLayout *self,
                            guint             row)
{
  g_return_val_if_fail (row < self->rows->len, NULL);

  return &g_array_index (self->rows, KsRow, row);
}

guint
ks_timeline_layout_find_track_row (KsTimelineLayout *self,
                                   guint32           track)
{
  if (track >= self->trace->n_tracks)
    return KS_NO_INDEX;
  return self->track_rows[track];
}

guint
ks_timeline_layout_find_counter_row (KsTimelineLayout *self,
                                     guint32           counter)
{
  if (counter >= self->trace->n_counters)
    return KS_NO_INDEX;
  return self->counter_rows[counter];
}

const KsCounter *
ks_timeline_layout_get_counter (KsTimelineLayout *self,
                                guint32           index)
{
  g_return_val_if_fail (index < n_layout_counters (self), NULL);

  return layout_counter (self, index);
}

gboolean
ks_timeline_layout_counter_is_bytes (KsTimelineLayout *self,
                                     guint32           index)
{
  const char *unit;

  g_return_val_if_fail (index < n_layout_counters (self), FALSE);

  if (index >= self->trace->n_counters)
    return TRUE;
  unit = ks_trace_string (self->trace, self->trace->counters[index].unit);
  return g_str_equal (unit, "bytes") || g_str_equal (unit, "B");
}

void
ks_timeline_layout_set_expanded (KsTimelineLayout *self,
                                 guint             row,
                                 gboolean          expanded)
{
  KsRow *r;

  g_return_if_fail (row < self->rows->len);

  r = &g_array_index (self->rows, KsRow, row);
  if (r->kind != KS_ROW_GROUP || r->expanded == !!expanded)
    return;
  r->expanded = !!expanded;
  relayout (self);
}

guint
ks_timeline_layout_get_n_visible (KsTimelineLayout *self)
{
  return self->visible->len;
}

guint
ks_timeline_layout_get_visible (KsTimelineLayout *self,
                                guint             position)
{
  g_return_val_if_fail (position < self->visible->len, KS_NO_INDEX);

  return g_array_index (self->visible, guint, position);
}

int
ks_timeline_layout_get_height (KsTimelineLayout *self)
{
  return self->height;
}

guint
ks_timeline_layout_position_at_y (KsTimelineLayout *self,
                                  double            y)
{
  guint lo = 0, hi = self->visible->len;

  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      const KsRow *row = &g_array_index (self->rows, KsRow, g_array_index (self->visible, guint, mid));

      if (row->y + row->height > y)
        hi = mid;
      else
        lo = mid + 1;
    }

  return lo;
}

guint
ks_timeline_layout_row_at_y (KsTimelineLayout *self,
                             double            y)
{
  guint pos = ks_timeline_layout_position_at_y (self, y);
  guint r;

  if (y < 0 || pos >= self->visible->len)
    return KS_NO_INDEX;
  r = g_array_index (self->visible, guint, pos);
  if (g_array_index (self->rows, KsRow, r).y > y)
    return KS_NO_INDEX;
  return r;
}

int
ks_timeline_layout_lane_y (guint depth)
{
  return KS_ROW_PADDING + depth * KS_LANE_HEIGHT;
}

/* First index in by_depth[depth][from..n) whose slice ends at or after @t. */
static guint32
end_lower_bound (const KsTrack *track,
                 const guint32 *idx,
                 guint32        from,
                 guint32        n,
                 double         t)
{
  guint32 lo = from, hi = n;

  while (lo < hi)
    {
      guint32 mid = lo + (hi - lo) / 2;

      if ((double)track->end[idx[mid]] < t)
        lo = mid + 1;
      else
        hi = mid;
    }

  return lo;
}

void
ks_lod_slices (const KsTrack    *track,
               guint             depth,
               const KsTimeView *view,
               double            fold_px,
               GArray           *items)
{
  const guint32 *idx;
  guint32 n, i;
  double t0, t1, min_ns, nspp;

  if (depth >= track->max_depth || view->width <= 0 || view->ns_per_px <= 0)
    return;

  idx = track->by_depth[depth];
  n = track->n_by_depth[depth];
  nspp = view->ns_per_px;
  t0 = view->t0;
  t1 = view->t0 + view->width * nspp;
  min_ns = fold_px * nspp;

  /* First slice ending at or after t0 (zero-length slices at t0 count). */
  i = end_lower_bound (track, idx, 0, n, t0);

  while (i < n)
    {
      guint32 s = idx[i];
      double start = track->start[s];
      double end = track->end[s];
      KsLodItem item;

      if (start > t1)
        break;

      item.first = s;
      item.last = s;
      item.count = 1;
      item.pos = i;
      item.depth = depth;
      item.folded = FALSE;

      if (end - start >= min_ns)
        {
          i++;
        }
      else
        {
          /* Fold: jump over every slice that ends before the fold's end
           * plus the minimum width, then keep going while the next slice
           * is small and close (Tracy's PreprocessZoneLevel). */
          double rend = end;
          guint32 first_i = i;

          i++;
          for (;;)
            {
              guint32 j = end_lower_bound (track, idx, i, n, rend + min_ns);
              guint32 c;
              double cs, ce;

              if (j > i)
                {
                  rend = MAX (rend, (double)track->end[idx[j - 1]]);
                  i = j;
                }
              if (i >= n)
                break;
              c = idx[i];
              cs = track->start[c];
              ce = track->end[c];
              if (cs > t1 || cs - rend >= min_ns || ce - cs >= min_ns)
                break;
              rend = MAX (rend, ce);
              i++;
            }

          item.last = idx[i - 1];
          item.count = i - first_i;
          item.folded = item.count > 1;
          end = rend;
        }

      item.x0 = (start - t0) / nspp;
      item.x1 = (end - t0) / nspp;
      if (item.folded && item.x1 - item.x0 < fold_px)
        item.x1 = item.x0 + fold_px;
      g_array_append_val (items, item);
    }
}

void
ks_lod_counter (const KsCounter  *counter,
                const KsTimeView *view,
                float            *col_min,
                float            *col_max,
                gboolean         *has)
{
  guint32 lo = 0, hi = counter->n_samples;
  gboolean have_carry = FALSE;
  double carry = 0;

  /* First sample at or after t0; the one before it holds at t0. */
  while (lo < hi)
    {
      guint32 mid = lo + (hi - lo) / 2;

      if ((double)counter->ts[mid] < view->t0)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo > 0)
    {
      have_carry = TRUE;
      carry = counter->value[lo - 1];
    }

  for (int col = 0; col < view->width; col++)
    {
      double col_end = view->t0 + (col + 1) * view->ns_per_px;
      double vmin = carry, vmax = carry;
      gboolean any = have_carry;

      while (lo < counter->n_samples && (double)counter->ts[lo] < col_end)
        {
          double v = counter->value[lo++];

          if (!isfinite (v))
            continue;
          if (!any)
            vmin = vmax = v;
          vmin = MIN (vmin, v);
          vmax = MAX (vmax, v);
          carry = v;
          any = have_carry = TRUE;
        }

      has[col] = any;
      col_min[col] = vmin;
      col_max[col] = vmax;
    }
}

KsColor
ks_timeline_layout_slice_color (KsTimelineLayout *self,
                                const KsTrack    *track,
                                guint32           slice,
                                gboolean          dark)
{
  KsSliceKind kind = track->slice_kind[slice];
  guint32 name = track->name_id[slice];
  KsColor *cache;

  if (kind == KS_SLICE_MEMCPY || kind == KS_SLICE_MEMSET)
    return ks_palette_copy_color (kind, track->gpu != NULL ? track->gpu[slice].copy.copy_kind : 0, dark);

  if (self->name_colors[dark ? 1 : 0] == NULL)
    self->name_colors[dark ? 1 : 0] = g_new0 (KsColor, MAX (1, self->trace->n_strings));
  cache = self->name_colors[dark ? 1 : 0];

  if (name >= self->trace->n_strings)
    return ks_palette_name_color ("", kind, dark);
  if (cache[name] == 0)
    cache[name] = ks_palette_name_color (ks_trace_string (self->trace, name), kind, dark);
  return cache[name];
}

void
ks_prims_init (KsPrims *prims)
{
  prims->rects = g_array_new (FALSE, FALSE, sizeof (KsPrimRect));
  prims->texts = g_array_new (FALSE, FALSE, sizeof (KsPrimText));
  prims->strings = g_string_chunk_new (256);
}

void
ks_prims_clear (KsPrims *prims)
{
  g_clear_pointer (&prims->rects, g_array_unref);
  g_clear_pointer (&prims->texts, g_array_unref);
  g_clear_pointer (&prims->strings, g_string_chunk_free);
}

void
ks_prims_reset (KsPrims *prims)
{
  g_array_set_size (prims->rects, 0);
  g_array_set_size (prims->texts, 0);
  g_string_chunk_clear (prims->strings);
}

static inline void
push_rect (KsPrims *prims,
           float    x,
           float    y,
           float    w,
           float    h,
           KsColor  color)
{
  KsPrimRect r = { x, y, w, h, color };

  g_array_append_val (prims->rects, r);
}

static inline void
push_text (KsPrims    *prims,
           float       x,
           float       y,
           float       w,
           float       h,
           KsColor     color,
           const char *text,
           gboolean    bold)
{
  KsPrimText t = { x, y, w, h, color, text, bold };

  g_array_append_val (prims->texts, t);
}

/* Ticks at least this far apart; a label gets this width less a margin. */
#define TICK_MIN_PX   110
#define TICK_LABEL_PX 105

gint64
ks_time_view_tick_step (const KsTimeView *view)
{
  return ks_time_tick_step (view->ns_per_px * view->width, view->width, TICK_MIN_PX);
}

void
ks_timeline_layout_build_ruler (const KsTimeView *view,
                                const KsTheme    *theme,
                                int               width,
                                int               height,
                                int               header_width,
                                int               ruler_height,
                                KsPrims          *prims)
{
  double span = view->ns_per_px * view->width;
  double t1 = view->t0 + span;
  gint64 step = ks_time_view_tick_step (view);
  /* Minor ticks split 1-2-5 steps in fifths or halves, when 4 px apart. */
  gint64 minor = step % 5 == 0 ? step / 5 : step / 2;
  gint64 scale = (gint64)MAX (fabs (view->t0), fabs (t1));
  gint64 t;

  push_rect (prims, 0, 0, width, ruler_height, theme->ruler_background);
  push_rect (prims, 0, ruler_height - 1, width, 1, theme->row_separator);

  if (minor > 0 && span / minor < view->width / 4.0)
    for (t = (gint64)floor (view->t0 / minor) * minor; t <= t1; t += minor)
      {
        double x = floor (header_width + (t - view->t0) / view->ns_per_px);

        if (x >= header_width)
          push_rect (prims, x, ruler_height - 5, 1, 4, theme->dim_foreground);
      }

  for (t = (gint64)floor (view->t0 / step) * step; t <= t1; t += step)
    {
      double x = floor (header_width + (t - view->t0) / view->ns_per_px);
      g_autofree char *label = NULL;

      if (x < header_width)
        continue;
      label = ks_time_format_tick (t, step, scale);
      push_rect (prims, x, 2, 1, ruler_height - 3, theme->dim_foreground);
      push_rect (prims, x, ruler_height, 1, height - ruler_height, theme->grid);
      push_text (prims, x + 3, 0, TICK_LABEL_PX, ruler_height - 4, theme->foreground,
                 g_string_chunk_insert (prims->strings, label), FALSE);
    }

  push_rect (prims, 0, 0, header_width, ruler_height, theme->header_background);
}

void
ks_timeline_layout_build_header (KsTimelineLayout *self,
                                 guint             r,
                                 const KsTheme    *theme,
                                 int               width,
                                 int               header_width,
                                 KsPrims          *prims)
{
  const KsRow *row;

  g_return_if_fail (r < self->rows->len);

  row = &g_array_index (self->rows, KsRow, r);
  if (row->kind == KS_ROW_GROUP)
    {
      g_autofree char *text = g_strdup_printf ("%s %s", row->expanded ? "▾" : "▸", row->label);

      push_rect (prims, 0, 0, width, row->height, theme->group_background);
      push_text (prims, 6, 0, width - 12, row->height, theme->foreground,
                 g_string_chunk_insert (prims->strings, text), TRUE);
    }
  else
    push_text (prims, 6 + row->indent * 12, KS_ROW_PADDING, header_width - 12 - row->indent * 12,
               MIN (KS_LANE_HEIGHT, row->height), theme->dim_foreground, row->label, FALSE);
  push_rect (prims, 0, row->height - 1, width, 1, theme->row_separator);
}

/* Matches too small to draw on their own: a tick of the match colour,
 * at least 2 px wide, where each one lies inside its folded block (one
 * per pixel column at most). */
static void
push_folded_matches (const KsTrack    *track,
                     guint             depth,
                     const KsLodItem  *it,
                     const KsTimeView *view,
                     const guint8     *matches,
                     float             y,
                     float             h,
                     KsColor           color,
                     KsPrims          *prims)
{
  const guint32 *idx = track->by_depth[depth];
  float last_x = -G_MAXFLOAT;

  for (guint32 k = it->pos; k < it->pos + it->count; k++)
    {
      guint32 s = idx[k];
      float x0, x1;

      if (!matches[track->name_id[s]])
        continue;
      x0 = (track->start[s] - view->t0) / view->ns_per_px;
      x1 = (track->end[s] - view->t0) / view->ns_per_px;
      x0 = MAX (MIN (x0, it->x1 - 2), it->x0);
      if (x0 < last_x + 2 || x0 > view->width + 2)
        continue;
      x1 = MAX (x1, x0 + 2);
      push_rect (prims, x0, y, x1 - x0, h, color);
      last_x = x0;

      /* Nothing more can be drawn in these 2 px: skip the slices that end
       * there, so that a fold of millions costs a tick per column. */
      {
        guint32 next = ks_track_depth_lower_bound (track, depth,
                                                   (gint64)ceil (view->t0 + (last_x + 2) * view->ns_per_px));

        if (next > k + 1)
          k = next - 1;
      }
    }
}

static void
build_slice_prims (KsTimelineLayout *self,
                   const KsRow      *row,
                   const KsTimeView *view,
                   const KsTheme    *theme,
                   const guint8     *matches,
                   KsPrims          *prims)
{
  const KsTrack *track = &self->trace->tracks[row->index];
  g_autoptr(GArray) items = g_array_new (FALSE, FALSE, sizeof (KsLodItem));
  float xmax = view->width + 2;

  for (guint d = 0; d < track->max_depth; d++)
    {
      float lane_y = ks_timeline_layout_lane_y (d);

      g_array_set_size (items, 0);
      ks_lod_slices (track, d, view, KS_FOLD_MIN_PX, items);

      for (guint i = 0; i < items->len; i++)
        {
          const KsLodItem *it = &g_array_index (items, KsLodItem, i);
          KsSliceKind kind = track->slice_kind[it->first];
          KsColor color = ks_timeline_layout_slice_color (self, track, it->first, theme->dark);
          float x0 = MAX (it->x0, -2.0f);
          float x1 = MIN (it->x1, xmax);
          float y = lane_y;
          float h = KS_LANE_HEIGHT - 1;
          float w;

          if (x1 - x0 < 1.0f)
            x1 = x0 + 1.0f;
          w = x1 - x0;

          /* Copies are drawn as a narrower bar so they read apart from
           * kernels even where colours are hard to tell. */
          if (kind == KS_SLICE_MEMCPY || kind == KS_SLICE_MEMSET)
            {
              y += 4;
              h -= 8;
            }

          if (it->folded)
            color = ks_color_shade (color, theme->dark ? 0.8 : 0.88);

          push_rect (prims, x0, y, w, h, color);

          if (it->folded)
            {
              /* A thin line across the top marks a folded block. */
              push_rect (prims, x0, y, w, 2, theme->folded);
            }
          else if (w >= KS_LABEL_MIN_PX)
            {
              KsPrimText t;
              float lx0 = MAX (x0, 0.0f);
              float lx1 = MIN (x1, (float)view->width);

              if (lx1 - lx0 >= KS_LABEL_MIN_PX)
                {
                  t.x = lx0 + 3;
                  t.y = y;
                  t.w = lx1 - lx0 - 6;
                  t.h = h;
                  t.color = ks_palette_text_color (color);
                  t.text = ks_trace_string (self->trace, track->name_id[it->first]);
                  t.bold = FALSE;
                  g_array_append_val (prims->texts, t);
                }
            }

          if (matches != NULL && !it->folded && matches[track->name_id[it->first]])
            {
              KsColor oc = theme->match_outline;

              push_rect (prims, x0, y, w, 2, oc);
              push_rect (prims, x0, y + h - 2, w, 2, oc);
              push_rect (prims, x0, y, MIN (2, w), h, oc);
              push_rect (prims, x1 - MIN (2, w), y, MIN (2, w), h, oc);
            }
          else if (matches != NULL && it->folded)
            push_folded_matches (track, d, it, view, matches, y, h, theme->match_outline, prims);
        }
    }
}

static void
build_counter_prims (KsTimelineLayout *self,
                     const KsRow      *row,
                     const KsTimeView *view,
                     const KsTheme    *theme,
                     KsPrims          *prims)
{
  const KsCounter *counter = layout_counter (self, row->index);
  g_autofree float *mins = g_new (float, MAX (1, view->width));
  g_autofree float *maxs = g_new (float, MAX (1, view->width));
  g_autofree gboolean *has = g_new (gboolean, MAX (1, view->width));
  double top = 3, bottom = row->height - 3;
  double scale = (bottom - top) / (row->counter_max - row->counter_min);
  int run_start = -1;
  float run_y = 0;

  ks_lod_counter (counter, view, mins, maxs, has);

  for (int col = 0; col <= view->width; col++)
    {
      gboolean valid = col < view->width && has[col];
      float y_hi = valid ? bottom - (maxs[col] - row->counter_min) * scale : 0;
      float y_lo = valid ? bottom - (mins[col] - row->counter_min) * scale : 0;

      /* Area: merge columns of equal height into one rectangle. */
      if (run_start >= 0 && (!valid || fabsf (y_hi - run_y) >= 0.5f))
        {
          push_rect (prims, run_start, run_y, col - run_start, bottom - run_y, theme->counter_fill);
          run_start = -1;
        }
      if (valid && run_start < 0)
        {
          run_start = col;
          run_y = y_hi;
        }

      /* Line: the min..max extent of the column, at least one pixel. */
      if (valid)
        push_rect (prims, col, y_hi - 0.5f, 1, MAX (1.5f, y_lo - y_hi + 1.0f), theme->counter_line);
    }
}

void
ks_timeline_layout_build_prims (KsTimelineLayout *self,
                                guint             row_index,
                                const KsTimeView *view,
                                const KsTheme    *theme,
                                const guint8     *matches,
                                KsPrims          *prims)
{
  const KsRow *row;

  g_return_if_fail (row_index < self->rows->len);

  row = &g_array_index (self->rows, KsRow, row_index);

  switch (row->kind)
    {
    case KS_ROW_SLICES:
      build_slice_prims (self, row, view, theme, matches, prims);
      break;

    case KS_ROW_COUNTER:
      build_counter_prims (self, row, view, theme, prims);
      break;

    case KS_ROW_GROUP:
    default:
      break;
    }
}

gboolean
ks_timeline_layout_hit (KsTimelineLayout *self,
                        guint             row_index,
                        const KsTimeView *view,
                        double            x,
                        double            y_in_row,
                        KsHit            *hit)
{
  const KsRow *row;
  const KsTrack *track;
  g_autoptr(GArray) items = NULL;
  int depth;
  guint lo, hi;

  g_return_val_if_fail (row_index < self->rows->len, FALSE);

  row = &g_array_index (self->rows, KsRow, row_index);
  if (row->kind != KS_ROW_SLICES)
    return FALSE;

  track = &self->trace->tracks[row->index];
  depth = (int)floor ((y_in_row - KS_ROW_PADDING) / KS_LANE_HEIGHT);
  if (depth < 0 || depth >= (int)track->max_depth)
    return FALSE;

  items = g_array_new (FALSE, FALSE, sizeof (KsLodItem));
  ks_lod_slices (track, depth, view, KS_FOLD_MIN_PX, items);

  /* Items are in x order; find the last one starting at or before x. */
  lo = 0;
  hi = items->len;
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;

      if (g_array_index (items, KsLodItem, mid).x0 <= x)
        lo = mid + 1;
      else
        hi = mid;
    }

  for (guint k = lo > 0 ? lo - 1 : 0; k < items->len && k <= lo; k++)
    {
      const KsLodItem *it = &g_array_index (items, KsLodItem, k);

      /* Slices thinner than a pixel are drawn one pixel wide. */
      if (x >= it->x0 - 0.5 && x < MAX (it->x1, it->x0 + 1) + 0.5)
        {
          hit->track = row->index;
          hit->slice = it->first;
          hit->last = it->last;
          hit->count = it->count;
          hit->start = track->start[it->first];
          hit->end = MAX (track->end[it->first], track->end[it->last]);
          hit->x0 = it->x0;
          hit->x1 = it->x1;
          hit->depth = depth;
          return TRUE;
        }
    }

  return FALSE;
}
