/* ks-analysis-annotations.c: HTA's GPU user-annotation breakdown
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include <string.h>

#include "ks-analysis-private.h"

static int
compare_annotations (gconstpointer a,
                     gconstpointer b)
{
  const KsGpuAnnotationStats *x = a;
  const KsGpuAnnotationStats *y = b;

  if (x->total_ns != y->total_ns)
    return x->total_ns > y->total_ns ? -1 : 1;
  if (x->device != y->device)
    return x->device < y->device ? -1 : 1;
  return (x->name > y->name) - (x->name < y->name);
}

void
_ks_analysis_annotations (KsAnalysis *self,
                          Context    *ctx)
{
  KsTrace *trace = ctx->trace;
  g_autoptr(GHashTable) index = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
  g_autoptr(GPtrArray) spans = g_ptr_array_new_with_free_func ((GDestroyNotify)g_array_unref);

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind != KS_TRACK_GPU_ANNOTATION || !_ks_context_device_wanted (ctx, track->device))
        continue;
      for (guint32 s = 0; s < track->n_slices; s++)
        {
          gint64 key = ((gint64)track->device << 32) | track->name_id[s];
          KsTimeRange r = { track->start[s], track->end[s] };
          gpointer found;
          KsGpuAnnotationStats *st;

          if (track->slice_kind[s] != KS_SLICE_GPU_ANNOTATION)
            continue;
          found = g_hash_table_lookup (index, &key);
          if (found == NULL)
            {
              KsGpuAnnotationStats fresh;

              memset (&fresh, 0, sizeof fresh);
              fresh.device = track->device;
              fresh.name = track->name_id[s];
              g_array_append_val (self->annotations, fresh);
              g_ptr_array_add (spans, g_array_new (FALSE, FALSE, sizeof (KsTimeRange)));
              found = GUINT_TO_POINTER (self->annotations->len);
              g_hash_table_insert (index, g_memdup2 (&key, sizeof key), found);
            }
          st = &g_array_index (self->annotations, KsGpuAnnotationStats, GPOINTER_TO_UINT (found) - 1);
          st->count++;
          st->total_ns += r.end - r.start;
          g_array_append_val (g_ptr_array_index (spans, GPOINTER_TO_UINT (found) - 1), r);
        }
    }

  /* the kernels' busy time under each name's spans, their union */
  for (guint i = 0; i < self->annotations->len; i++)
    {
      KsGpuAnnotationStats *st = &g_array_index (self->annotations, KsGpuAnnotationStats, i);
      GArray *ranges = g_ptr_array_index (spans, i);
      DeviceState *ds = _ks_context_find_device (ctx, st->device);
      KsRangeSet set;

      ks_range_set_init (&set);
      ks_range_set_add_unsorted (&set, (KsTimeRange *)(gpointer)ranges->data, ranges->len);
      ks_range_set_seal (&set);
      st->span_ns = ks_range_set_total (&set);
      if (ds != NULL)
        st->kernel_ns = ks_range_set_measure_set (&ds->kernels, &set);
      ks_range_set_clear (&set);
    }
  g_array_sort (self->annotations, compare_annotations);
}
