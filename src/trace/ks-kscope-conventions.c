/* ks-kscope-conventions.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-kscope-conventions"

#include "config.h"

#include <string.h>

#include "ks-kscope-conventions.h"

#define ANONYMOUS "(anonymous namespace)"

/* The rule is Nsight's, read off its exports: the last scope component
 * of the function name, so a member of a class template keeps the
 * member's name ("ns::Foo<int>::bar" is "bar", not "Foo"). Brackets are
 * counted so that template arguments holding parameter lists, lambdas
 * ("[lambda(int) (instance 1)]") or spaces do not end the name early. */
char *
ks_kscope_kernel_short_name (const char *demangled)
{
  const char *end = demangled + strlen (demangled);
  const char *begin = demangled;
  const char *p;
  int angle = 0;
  int paren = 0;

  /* the parameter list: the first '(' outside template arguments, but
   * not that of a scope like "(anonymous namespace)::" */
  for (p = demangled; *p; p++)
    {
      if (angle == 0 && g_str_has_prefix (p, ANONYMOUS))
        p += strlen (ANONYMOUS) - 1;
      else if (*p == '<')
        angle++;
      else if (*p == '>' && angle > 0)
        angle--;
      else if (*p == '(' && angle == 0 && p != demangled)
        {
          end = p;
          break;
        }
    }

  /* the function's own template arguments */
  if (end > demangled && end[-1] == '>')
    {
      int depth = 0;

      for (p = end - 1; p >= demangled; p--)
        {
          if (*p == '>')
            depth++;
          else if (*p == '<' && --depth == 0)
            break;
        }
      if (p >= demangled)
        end = p;
    }

  /* the last component: after the last "::" or space (the return type)
   * outside brackets */
  angle = paren = 0;
  for (p = demangled; p < end; p++)
    {
      if (*p == '<')
        angle++;
      else if (*p == '>' && angle > 0)
        angle--;
      else if (*p == '(')
        paren++;
      else if (*p == ')' && paren > 0)
        paren--;
      else if (angle == 0 && paren == 0)
        {
          if (*p == ':' && p + 1 < end && p[1] == ':')
            begin = p + 2;
          else if (*p == ' ')
            begin = p + 1;
        }
    }

  if (begin >= end)
    return g_strdup (demangled);
  return g_strndup (begin, (gsize) (end - begin));
}

/* Names first: a DataLoader worker is a process of its own, whose first
 * thread PyTorch renames, and it is a loader, not the job's main thread. */
const char *
ks_kscope_thread_role (gint64      pid,
                       gint64      tid,
                       const char *name)
{
  if (name != NULL)
    {
      if (g_str_has_prefix (name, "pt_data_worker") || strstr (name, "DataLoader") != NULL
          || strstr (name, "dataloader") != NULL)
        return "dataloader";
      if (g_str_has_prefix (name, "pt_autograd") || g_str_has_prefix (name, "autograd"))
        return "autograd";
    }
  if (tid == pid)
    return "main";
  return NULL;
}

/* The first slice of @track starting at or after @ts, or KS_NO_INDEX. */
static guint32
first_starting_from (const KsTrack *track,
                     gint64         ts)
{
  guint32 s = ks_track_first_starting_from (track, ts);

  return s < track->n_slices ? s : KS_NO_INDEX;
}

/* The trace builder binds flow ends by the same rule when it reads a
 * file (resolve_flow_ends() in ks-trace-builder-finish.c). */
guint32
ks_kscope_flow_end_slice (const KsTrack *track,
                          gint64         ts)
{
  guint32 s = ks_track_slice_at (track, ts, G_MAXUINT);

  return s != KS_NO_INDEX ? s : first_starting_from (track, ts);
}

void
ks_kscope_flow_end_slices (const KsTrack *track,
                           KsFlowEnd     *ends,
                           gsize          n)
{
  /* at each depth, the last slice starting by the time of the end: what
   * ks_track_slice_at() finds by a search a depth */
  g_autofree guint32 *last = g_new (guint32, MAX (track->max_depth, 1));
  guint32 next = 0;

  for (guint d = 0; d < track->max_depth; d++)
    last[d] = KS_NO_INDEX;
  for (gsize q = 0; q < n; q++)
    {
      gint64 t = ends[q].ts;
      guint32 found = KS_NO_INDEX;

      g_assert (q == 0 || ends[q - 1].ts <= t);
      for (; next < track->n_slices && track->start[next] <= t; next++)
        last[track->depth[next]] = next;
      for (guint d = 0; d < track->max_depth && last[d] != KS_NO_INDEX; d++)
        {
          guint32 s = last[d];

          if (track->end[s] > t || (track->end[s] == t && track->start[s] == t))
            found = s;
        }
      ends[q].slice = found != KS_NO_INDEX ? found : first_starting_from (track, t);
    }
}

gint64
ks_kscope_flow_end_time (const KsTrack *track,
                         guint32        slice)
{
  gint64 start = track->start[slice];
  gint64 end = track->end[slice];
  guint depth = track->depth[slice] + 1;

  if (ks_kscope_flow_end_slice (track, start) == slice)
    return start;
  if (start > G_MININT64 && ks_kscope_flow_end_slice (track, start - 1) == slice)
    return start - 1;

  if (depth < track->max_depth)
    {
      const guint32 *idx = track->by_depth[depth];
      guint32 n = track->n_by_depth[depth];
      guint32 k = ks_track_depth_lower_bound (track, depth, start);

      for (guint tries = 0; k < n && tries < 64; k++, tries++)
        {
          guint32 c = idx[k];

          if (track->start[c] >= end)
            break;
          if (track->end[c] < end && ks_kscope_flow_end_slice (track, track->end[c]) == slice)
            return track->end[c];
        }
    }

  if (end > start && ks_kscope_flow_end_slice (track, end - 1) == slice)
    return end - 1;

  return start;
}
