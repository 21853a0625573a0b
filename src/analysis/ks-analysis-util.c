/* ks-analysis-util.c: argument lookup, selection
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ks-analysis-private.h"
#include "ks-occupancy.h"

/* Arguments */

static const char *
skip_ws (const char *p)
{
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    p++;
  return p;
}

/* Past the string starting at the quote @p. */
static const char *
skip_string (const char *p)
{
  p++;
  while (*p && *p != '"')
    {
      if (*p == '\\' && p[1])
        p++;
      p++;
    }
  return *p ? p + 1 : p;
}

/* Past the value starting at @p. */
static const char *
skip_value (const char *p)
{
  int depth = 0;

  if (*p == '"')
    return skip_string (p);

  while (*p)
    {
      if (*p == '"')
        {
          p = skip_string (p);
          continue;
        }
      if (*p == '[' || *p == '{')
        depth++;
      else if (*p == ']' || *p == '}')
        {
          if (depth == 0)
            return p;
          depth--;
          if (depth == 0)
            return p + 1;
        }
      else if (*p == ',' && depth == 0)
        return p;
      p++;
    }
  return p;
}

/* A walk over the members of the object, each name read as a string
 * (with its escapes) and each value skipped whole, so that a nested
 * member or a string holding the key's text is never taken for the
 * top-level member. Linear in the text; no allocation (the analyses call
 * it for every kernel and operator). */
gboolean
ks_args_iter_init (KsArgsIter *iter,
                   const char *json)
{
  const char *p = json != NULL ? skip_ws (json) : NULL;

  iter->p = p;
  iter->done = p == NULL || *p != '{';
  return !iter->done;
}

gboolean
ks_args_iter_next (KsArgsIter  *iter,
                   const char **name,
                   gsize       *name_len,
                   const char **value,
                   gsize       *value_len,
                   gboolean    *quoted)
{
  const char *p, *name_end, *value_end;

  if (iter->done)
    return FALSE;
  /* past the '{', or the ',' after the previous member */
  p = skip_ws (iter->p + 1);
  iter->done = TRUE;
  if (*p != '"')
    return FALSE;
  *name = p + 1;
  name_end = skip_string (p);
  if (*name_end == '\0')
    return FALSE;  /* cut inside a name */
  *name_len = name_end - 1 - *name;
  p = skip_ws (name_end);
  if (*p != ':')
    return FALSE;
  *value = skip_ws (p + 1);
  value_end = skip_value (*value);
  p = skip_ws (value_end);
  if (*p == ',')
    {
      iter->p = p;
      iter->done = FALSE;
    }
  while (value_end > *value && (value_end[-1] == ' ' || value_end[-1] == '\t' ||
                                value_end[-1] == '\n' || value_end[-1] == '\r'))
    value_end--;
  *quoted = **value == '"' && value_end - *value >= 2;
  if (*quoted)
    {
      (*value)++;
      value_end--;
    }
  *value_len = value_end - *value;
  return TRUE;
}

const char *
ks_args_find (const char *json,
              const char *key,
              gsize      *len)
{
  gsize key_len = strlen (key);
  KsArgsIter iter;
  const char *name, *value;
  gsize name_len, value_len;
  gboolean quoted;

  if (!ks_args_iter_init (&iter, json))
    return NULL;
  while (ks_args_iter_next (&iter, &name, &name_len, &value, &value_len, &quoted))
    if (name_len == key_len && memcmp (name, key, key_len) == 0)
      {
        if (len != NULL)
          *len = value_len;
        return value;
      }

  return NULL;
}

/* A number of at most 63 characters at @v. */
gboolean
ks_args_parse_double (const char *v,
                      gsize       len,
                      double     *value)
{
  char buf[64];
  char *end;

  if (v == NULL || len == 0 || len >= sizeof buf)
    return FALSE;
  memcpy (buf, v, len);
  buf[len] = 0;
  *value = g_ascii_strtod (buf, &end);
  return end != buf;
}

gboolean
ks_args_get_int (const char *json,
                 const char *key,
                 gint64     *value)
{
  double d;

  if (!ks_args_get_double (json, key, &d))
    return FALSE;
  *value = (gint64)d;
  return TRUE;
}

gboolean
ks_args_get_double (const char *json,
                    const char *key,
                    double     *value)
{
  gsize len = 0;
  const char *v = ks_args_find (json, key, &len);

  return ks_args_parse_double (v, len, value);
}

/* Selection (Hoare's quickselect with median-of-three pivots) */

gint64
_ks_select_nth (gint64 *v,
                gsize   n,
                gsize   k)
{
  gsize lo = 0, hi = n - 1;

  g_assert (n > 0 && k < n);

  while (hi > lo)
    {
      gsize mid = lo + (hi - lo) / 2;
      gint64 a = v[lo], b = v[mid], c = v[hi];
      gint64 pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
      gsize i = lo, j = hi;

      while (i <= j)
        {
          while (v[i] < pivot)
            i++;
          while (v[j] > pivot)
            j--;
          if (i <= j)
            {
              gint64 t = v[i];

              v[i] = v[j];
              v[j] = t;
              i++;
              if (j == 0)
                break;
              j--;
            }
        }
      if (k <= j)
        hi = j;
      else if (k >= i)
        lo = i;
      else
        return v[k];
    }
  return v[k];
}

/* Computed from the launch and the GPU where both are known, so that
 * recordings, Nsight exports and PyTorch traces get the same figures;
 * otherwise what the PyTorch profiler wrote into the event. */
void
_ks_kernel_estimates (const KsTrace *trace,
                      const KsTrack *track,
                      const KsGpu   *gpu,
                      guint32        slice,
                      GString       *scratch,
                      double        *occupancy_pct,
                      double        *sm_efficiency_pct)
{
  const char *args;
  KsOccupancy o;
  double v;

  *occupancy_pct = -1;
  *sm_efficiency_pct = -1;
  if (gpu != NULL && track->gpu != NULL && ks_occupancy_compute (gpu, &track->gpu[slice], &o))
    {
      const guint32 *grid = track->gpu[slice].kernel.grid;

      *occupancy_pct = o.achieved_pct;
      *sm_efficiency_pct = 100.0 * MIN ((double) grid[0] * grid[1] * grid[2] / gpu->sm_count, 1.0);
      return;
    }
  args = ks_trace_slice_args (trace, track, slice, scratch);
  if (args == NULL)
    return;
  if (ks_args_get_double (args, "est. achieved occupancy %", &v))
    *occupancy_pct = v;
  if (ks_args_get_double (args, "blocks per SM", &v) && v >= 0)
    *sm_efficiency_pct = 100.0 * MIN (v, 1.0);
}

guint
_ks_hash_words (const guint32 *words,
                guint          n)
{
  guint h = 2166136261u;

  for (guint i = 0; i < n; i++)
    h = (h ^ words[i]) * 16777619u;
  return h;
}

/* Values kept with a trace */

/* Guards only the making of the per-trace tables of locks, never a build:
 * a value being built for one trace holds that trace's lock for its key
 * alone, so that the timeline's layout of one trace never waits for
 * another trace's (or another key's) series. */
static GMutex locks_mutex;

static void
lock_free (gpointer data)
{
  GMutex *lock = data;

  g_mutex_clear (lock);
  g_free (lock);
}

/* The lock of @quark's value on @trace, made on first use. */
static GMutex *
cache_lock_for (KsTrace *trace,
                GQuark   quark)
{
  static GQuark locks_quark;
  GHashTable *locks;
  GMutex *lock;

  g_mutex_lock (&locks_mutex);
  if (locks_quark == 0)
    locks_quark = g_quark_from_static_string ("ks-trace-cache-locks");
  locks = g_object_get_qdata (G_OBJECT (trace), locks_quark);
  if (locks == NULL)
    {
      locks = g_hash_table_new_full (NULL, NULL, NULL, lock_free);
      g_object_set_qdata_full (G_OBJECT (trace), locks_quark, locks, (GDestroyNotify)g_hash_table_unref);
    }
  lock = g_hash_table_lookup (locks, GUINT_TO_POINTER (quark));
  if (lock == NULL)
    {
      lock = g_new0 (GMutex, 1);
      g_mutex_init (lock);
      g_hash_table_insert (locks, GUINT_TO_POINTER (quark), lock);
    }
  g_mutex_unlock (&locks_mutex);
  return lock;
}

gpointer
_ks_trace_get_cached (KsTrace        *trace,
                      const char     *key,
                      gpointer      (*build) (KsTrace *trace),
                      GDestroyNotify  free)
{
  GQuark quark = g_quark_from_static_string (key);
  GMutex *lock = cache_lock_for (trace, quark);
  gpointer value;

  /* A build may ask for another key's value: that takes another lock. */
  g_mutex_lock (lock);
  value = g_object_get_qdata (G_OBJECT (trace), quark);
  if (value == NULL)
    {
      value = build (trace);
      g_object_set_qdata_full (G_OBJECT (trace), quark, value, free);
    }
  g_mutex_unlock (lock);
  return value;
}
