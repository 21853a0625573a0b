/* ks-sample-stack.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-sample-stack"

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>
#include <yajl/yajl_tree.h>

#include "ks-json-writer.h"
#include "ks-sample-stack.h"

/* A samples row is a flame chart: a slice's callers are the slices
 * enclosing it, one lane up each, so its stack is read off the track
 * and the frame's file, line and count off its args. */

static void
frame_clear (gpointer data)
{
  KsSampleStackFrame *frame = data;

  g_free (frame->location);
}

static void
read_frame (KsTrace            *trace,
            const KsTrack      *track,
            guint32             slice,
            GString            *args,
            KsSampleStackFrame *frame)
{
  const char *json = ks_trace_slice_args (trace, track, slice, args);
  const char *file_path[] = { "file", NULL };
  const char *line_path[] = { "line", NULL };
  const char *samples_path[] = { "samples", NULL };
  const char *waiting_path[] = { "waiting", NULL };
  const char *file = NULL;
  gint64 line = 0;
  yajl_val root = NULL, v;

  frame->slice = slice;
  frame->function = ks_trace_string (trace, track->name_id[slice]);
  frame->samples = 0;
  frame->waiting = 0;
  if (json != NULL && *json != 0)
    root = ks_json_parse (json, NULL);
  if (root != NULL)
    {
      if ((v = yajl_tree_get (root, file_path, yajl_t_string)) != NULL)
        file = YAJL_GET_STRING (v);
      if ((v = yajl_tree_get (root, line_path, yajl_t_number)) != NULL && YAJL_IS_INTEGER (v))
        line = YAJL_GET_INTEGER (v);
      if ((v = yajl_tree_get (root, samples_path, yajl_t_number)) != NULL && YAJL_IS_INTEGER (v))
        frame->samples = (guint64)MAX (0, YAJL_GET_INTEGER (v));
      if ((v = yajl_tree_get (root, waiting_path, yajl_t_number)) != NULL && YAJL_IS_INTEGER (v))
        frame->waiting = (guint64)MAX (0, YAJL_GET_INTEGER (v));
    }

  if (file == NULL || *file == 0)
    frame->location = g_strdup ("");
  else if (line > 0)
    frame->location = g_strdup_printf ("%s:%" G_GINT64_FORMAT, file, line);
  else
    frame->location = g_strdup (file);
  yajl_tree_free (root);
}

GArray *
ks_sample_stack_new (KsTrace *trace,
                     guint32  track_index,
                     guint32  slice)
{
  const KsTrack *track;
  g_autoptr(GString) args = NULL;
  GArray *frames;

  g_return_val_if_fail (KS_IS_TRACE (trace), NULL);
  g_return_val_if_fail (track_index < trace->n_tracks, NULL);

  track = &trace->tracks[track_index];
  g_return_val_if_fail (slice < track->n_slices, NULL);
  if (track->slice_kind[slice] != KS_SLICE_SAMPLE)
    return NULL;

  frames = g_array_sized_new (FALSE, FALSE, sizeof (KsSampleStackFrame), track->depth[slice] + 1);
  g_array_set_clear_func (frames, frame_clear);
  args = g_string_new (NULL);
  for (guint32 s = slice; s != KS_NO_INDEX; s = ks_track_parent_slice (track, s))
    {
      KsSampleStackFrame frame;

      read_frame (trace, track, s, args, &frame);
      g_array_append_val (frames, frame);
    }
  return frames;
}

char *
ks_sample_stack_format_samples (guint64 samples)
{
  return g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%" PRIu64 " sample",
                                       "%" PRIu64 " samples", samples),
                          samples);
}
