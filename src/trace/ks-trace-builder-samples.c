/* ks-trace-builder-samples.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-trace-builder"

/* Sampled stacks: the prefix tree of their frames, the samples, and in
 * finish the flame-style KS_TRACK_SAMPLES track of each thread. A frame
 * whose samples were all taken while the thread waited (sleep, a lock,
 * I/O, the GIL) has the category KS_SAMPLE_WAITING_CATEGORY, which the
 * timeline draws dimmed; the innermost frame starts a new slice where
 * the thread goes from running to waiting or back. */

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "ks-json-writer.h"
#include "ks-trace-builder-private.h"

/* A thread with a single sample has no spacing to measure: its slices
 * last the recorder's default interval (1 kHz). */
#define DEFAULT_INTERVAL_NS G_GINT64_CONSTANT (1000000)
/* A pause longer than this many intervals without a sample ends every
 * slice one interval after the last sample before it. */
#define GAP_INTERVALS 4

void
_ks_builder_stack_node_key (KsTraceBuilder *self,
                            guint32         id,
                            Key            *key)
{
  const KsStackNode *n = &g_array_index (self->stack_nodes, KsStackNode, id);

  key->a = n->parent;
  key->b = (gint64) ((guint64) n->function << 32 | n->file);
  key->c = n->line;
}

/* The node of (@parent, @frame), made when new; KS_NO_INDEX past the
 * row limit. */
static guint32
stack_node (KsTraceBuilder      *self,
            guint32              parent,
            const KsSampleFrame *frame)
{
  Key key = { parent, (gint64) ((guint64) frame->function << 32 | frame->file), frame->line };
  guint32 id = _ks_builder_id_index_find (self, &self->stack_node_index, &key);
  KsStackNode node;

  if (id != KS_NO_INDEX)
    return id;
  if (self->stack_nodes->len >= KS_TRACE_BUILDER_MAX_ROWS)
    return KS_NO_INDEX;

  node.function = frame->function;
  node.file = frame->file;
  node.line = frame->line;
  node.parent = parent;
  node.depth = parent == KS_NO_INDEX ? 0 : g_array_index (self->stack_nodes, KsStackNode, parent).depth + 1;
  id = self->stack_nodes->len;
  g_array_append_val (self->stack_nodes, node);
  _ks_builder_id_index_add (self, &self->stack_node_index, id);
  return id;
}

gboolean
ks_trace_builder_add_sample (KsTraceBuilder      *self,
                             guint32              thread,
                             gint64               ts,
                             const KsSampleFrame *frames,
                             guint                n_frames)
{
  return ks_trace_builder_add_sample_full (self, thread, ts, FALSE, frames, n_frames);
}

gboolean
ks_trace_builder_add_sample_full (KsTraceBuilder      *self,
                                  guint32              thread,
                                  gint64               ts,
                                  gboolean             waiting,
                                  const KsSampleFrame *frames,
                                  guint                n_frames)
{
  guint32 node = KS_NO_INDEX;
  KsSample sample;

  g_return_val_if_fail (thread < self->threads->len, FALSE);

  if (self->failed != FAILED_NONE || n_frames == 0 || !time_ok (self, ts))
    return FALSE;
  if (self->samples->len >= KS_TRACE_BUILDER_MAX_ROWS)
    {
      self->samples_dropped++;
      return FALSE;
    }
  if (n_frames > KS_TRACE_MAX_STACK_DEPTH)
    {
      self->samples_cut++;
      n_frames = KS_TRACE_MAX_STACK_DEPTH;
    }

  /* outermost first down the tree */
  for (guint i = n_frames; i-- > 0;)
    if ((node = stack_node (self, node, &frames[i])) == KS_NO_INDEX)
      {
        self->samples_dropped++;
        return FALSE;
      }

  sample.ts = ts;
  sample.thread = thread;
  sample.waiting = waiting ? 1 : 0;
  sample.node = node;
  g_array_append_val (self->samples, sample);
  note_ts (self, ts);
  self->n_events++;
  return TRUE;
}

static int
compare_samples (gconstpointer a,
                 gconstpointer b)
{
  const KsSample *sa = a;
  const KsSample *sb = b;

  if (sa->thread != sb->thread)
    return sa->thread < sb->thread ? -1 : 1;
  return (sa->ts > sb->ts) - (sa->ts < sb->ts);
}

static int
compare_i64 (gconstpointer a,
             gconstpointer b)
{
  gint64 x = *(const gint64 *) a;
  gint64 y = *(const gint64 *) b;

  return (x > y) - (x < y);
}

/* The median spacing of @n samples (sorted by time). */
static gint64
sampling_interval (const KsSample *samples,
                   guint32         n)
{
  g_autofree gint64 *d = NULL;
  gint64 median;

  if (n < 2)
    return DEFAULT_INTERVAL_NS;
  d = g_new (gint64, n - 1);
  for (guint32 i = 1; i < n; i++)
    d[i - 1] = samples[i].ts - samples[i - 1].ts;
  qsort (d, n - 1, sizeof (gint64), compare_i64);
  median = d[(n - 1) / 2];
  return MAX (median, 1);
}

typedef struct
{
  guint32 node;
  gint64  start;
  guint32 samples;
  guint32 waiting;  /* of samples */
} OpenFrame;

static void
emit_frame (KsTraceBuilder  *self,
            guint32          track,
            const OpenFrame *open,
            gint64           end)
{
  const KsStackNode *n = &g_array_index (self->stack_nodes, KsStackNode, open->node);
  g_autoptr(KsJsonWriter) json = ks_json_writer_new ();
  const char *text;

  ks_json_begin_object (json, NULL);
  ks_json_string (json, "file", ks_trace_builder_get_string (self, n->file));
  ks_json_int (json, "line", n->line);
  ks_json_int (json, "samples", open->samples);
  if (open->waiting > 0)
    ks_json_int (json, "waiting", open->waiting);
  ks_json_end_object (json);
  text = ks_json_writer_get_text (json);

  ks_trace_builder_add_slice (self, track, open->start, end, KS_SLICE_SAMPLE, n->function,
                              open->waiting == open->samples
                              ? ks_trace_builder_intern (self, KS_SAMPLE_WAITING_CATEGORY) : 0, 0, 0,
                              ks_trace_builder_add_args (self, text, strlen (text)), NULL);
}

/* Ends the open frames from depth @from down, outer ones first: at equal
 * times a parent must arrive before its child to nest above it. */
static void
close_frames (KsTraceBuilder *self,
              guint32         track,
              OpenFrame      *open,
              guint          *n_open,
              guint           from,
              gint64          end)
{
  for (guint d = from; d < *n_open; d++)
    emit_frame (self, track, &open[d], end);
  *n_open = MIN (*n_open, from);
}

static void
thread_flame (KsTraceBuilder *self,
              const KsSample *samples,
              guint32         n)
{
  /* flame rows stop where track depths stop */
  OpenFrame open[MAX_DEPTH];
  guint32 path[KS_TRACE_MAX_STACK_DEPTH];
  guint n_open = 0;
  gint64 interval = sampling_interval (samples, n);
  guint32 thread_track, track;
  TrackBuilder *tb;

  thread_track = ks_trace_builder_get_thread_track (self, samples[0].thread);
  track = _ks_builder_new_track (self, KS_TRACK_SAMPLES);
  if (track == self->sink_track || thread_track == self->sink_track)
    return;
  tb = get_tb (self, track);
  tb->thread = samples[0].thread;
  tb->process = get_tb (self, thread_track)->process;
  tb->group = get_tb (self, thread_track)->group;
  tb->parent = thread_track;

  for (guint32 k = 0; k < n; k++)
    {
      guint len = 0, d = 0;

      if (k > 0 && samples[k].ts - samples[k - 1].ts > GAP_INTERVALS * interval)
        close_frames (self, track, open, &n_open, 0, samples[k - 1].ts + interval);

      for (guint32 node = samples[k].node; node != KS_NO_INDEX;
           node = g_array_index (self->stack_nodes, KsStackNode, node).parent)
        len++;
      len = MIN (len, KS_TRACE_MAX_STACK_DEPTH);
      d = len;
      for (guint32 node = samples[k].node; d > 0;
           node = g_array_index (self->stack_nodes, KsStackNode, node).parent)
        path[--d] = node;
      len = MIN (len, MAX_DEPTH);

      while (d < n_open && d < len && open[d].node == path[d])
        d++;
      /* the same innermost frame, all running until now and waiting
       * from here, or the other way round: a slice of its own */
      if (d == len && d > 0 && n_open == len
          && (samples[k].waiting ? open[d - 1].waiting == 0 : open[d - 1].waiting == open[d - 1].samples))
        d--;
      close_frames (self, track, open, &n_open, d, samples[k].ts);
      for (; n_open < len; n_open++)
        {
          open[n_open].node = path[n_open];
          open[n_open].start = samples[k].ts;
          open[n_open].samples = 0;
          open[n_open].waiting = 0;
        }
      for (guint i = 0; i < len; i++)
        {
          open[i].samples++;
          open[i].waiting += samples[k].waiting;
        }
    }
  close_frames (self, track, open, &n_open, 0, samples[n - 1].ts + interval);
}

/* Before the tracks are finished: sorts the samples and makes the
 * threads' sample tracks. */
void
_ks_builder_finish_samples (KsTraceBuilder *self)
{
  const KsSample *s;
  guint32 n = self->samples->len;

  if (self->samples_dropped > 0)
    {
      g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, self->samples_dropped);

      ks_trace_builder_add_warning (self, g_dngettext (GETTEXT_PACKAGE,
                                                       "%s stack sample past the limit of %u samples or "
                                                       "%u distinct frames was left out",
                                                       "%s stack samples past the limit of %u samples or "
                                                       "%u distinct frames were left out",
                                                       self->samples_dropped),
                                    count, KS_TRACE_BUILDER_MAX_ROWS, KS_TRACE_BUILDER_MAX_ROWS);
    }
  if (self->samples_cut > 0)
    {
      g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, self->samples_cut);

      ks_trace_builder_add_warning (self, g_dngettext (GETTEXT_PACKAGE,
                                                       "%s stack sample deeper than %u frames keeps "
                                                       "its innermost %u",
                                                       "%s stack samples deeper than %u frames keep "
                                                       "their innermost %u",
                                                       self->samples_cut),
                                    count, KS_TRACE_MAX_STACK_DEPTH, KS_TRACE_MAX_STACK_DEPTH);
    }

  if (n == 0)
    return;
  g_array_sort (self->samples, compare_samples);
  s = (const KsSample *) (gpointer) self->samples->data;
  /* Threads' own tracks first, then the sample tracks: the order a
   * .kscope copy, whose KS_TRACKS holds the former, makes them in. */
  for (guint32 k = 0; k < n; k++)
    if (k == 0 || s[k].thread != s[k - 1].thread)
      ks_trace_builder_get_thread_track (self, s[k].thread);
  for (guint32 first = 0, k = 1; k <= n; k++)
    if (k == n || s[k].thread != s[first].thread)
      {
        thread_flame (self, s + first, k - first);
        first = k;
      }
}

void
_ks_builder_take_samples (KsTraceBuilder *self,
                          KsTrace        *trace,
                          gint64          origin)
{
  trace->n_stack_nodes = self->stack_nodes->len;
  trace->stack_nodes = (KsStackNode *) (gpointer) g_array_free (g_steal_pointer (&self->stack_nodes), FALSE);
  trace->n_samples = self->samples->len;
  trace->samples = (KsSample *) (gpointer) g_array_free (g_steal_pointer (&self->samples), FALSE);
  for (guint32 i = 0; i < trace->n_samples; i++)
    trace->samples[i].ts -= origin;
}
