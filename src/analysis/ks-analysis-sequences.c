/* ks-analysis-sequences.c: the most frequent runs of consecutive kernels
 * on a stream, candidates for fusion or a CUDA graph
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include <string.h>

#include "ks-analysis-private.h"

/* Sequences kept: the most frequent, so that a trace of a million
 * distinct runs does not keep them all. */
#define MAX_SEQUENCES 100

typedef struct
{
  guint32 names[KS_SEQUENCE_LENGTH];
} Key;

static guint
key_hash (gconstpointer p)
{
  return _ks_hash_words (((const Key *)p)->names, KS_SEQUENCE_LENGTH);
}

static gboolean
key_equal (gconstpointer a,
           gconstpointer b)
{
  return memcmp (a, b, sizeof (Key)) == 0;
}

static int
compare_sequences (gconstpointer a,
                   gconstpointer b)
{
  const KsKernelSequence *sa = a;
  const KsKernelSequence *sb = b;

  if (sa->count != sb->count)
    return sa->count > sb->count ? -1 : 1;
  if (sa->total_ns != sb->total_ns)
    return sa->total_ns > sb->total_ns ? -1 : 1;
  return (sa->first_start > sb->first_start) - (sa->first_start < sb->first_start);
}

/* The innermost operator around the call that launched kernel @slice
 * of stream @track, 0 when none is known. */
static guint32
launching_operator (Context *ctx,
                    guint32  track,
                    guint32  slice)
{
  const guint32 *launch = ctx->launch_of_gpu[track];
  const KsFlow *flow;
  const KsTrack *cpu;
  guint32 op;

  if (launch == NULL || launch[slice] == KS_NO_INDEX)
    return 0;
  flow = &ctx->trace->flows[launch[slice]];
  cpu = &ctx->trace->tracks[flow->from_track];
  /* up from the call itself: a Python frame that ended as the call
   * began does not hide the operator around it */
  op = ks_track_parent_slice (cpu, flow->from_slice);
  while (op != KS_NO_INDEX && cpu->slice_kind[op] != KS_SLICE_CPU_OP)
    op = ks_track_parent_slice (cpu, op);
  return op != KS_NO_INDEX ? cpu->name_id[op] : 0;
}

void
_ks_analysis_sequences (KsAnalysis *self,
                        Context    *ctx)
{
  KsTrace *trace = ctx->trace;
  g_autoptr(GHashTable) index = g_hash_table_new_full (key_hash, key_equal, g_free, NULL);
  g_autoptr(GArray) all = g_array_new (FALSE, TRUE, sizeof (KsKernelSequence));

  for (guint d = 0; d < ctx->devices->len; d++)
    {
      DeviceState *ds = &g_array_index (ctx->devices, DeviceState, d);

      for (guint i = 0; i < ds->streams->len; i++)
        {
          guint32 t = g_array_index (ds->streams, guint32, i);
          const KsTrack *track = &trace->tracks[t];
          guint32 window[KS_SEQUENCE_LENGTH];   /* the last kernels, oldest first */
          guint n = 0;

          for (guint32 s = 0; s < track->n_slices; s++)
            {
              Key key;
              gpointer found;
              KsKernelSequence *seq;
              gint64 total = 0;

              if (track->slice_kind[s] != KS_SLICE_KERNEL)
                continue;
              if (n == KS_SEQUENCE_LENGTH)
                memmove (window, window + 1, sizeof (guint32) * (KS_SEQUENCE_LENGTH - 1));
              else
                n++;
              window[n - 1] = s;
              if (n < KS_SEQUENCE_LENGTH)
                continue;

              for (guint k = 0; k < KS_SEQUENCE_LENGTH; k++)
                {
                  key.names[k] = track->name_id[window[k]];
                  total += track->end[window[k]] - track->start[window[k]];
                }
              if (!g_hash_table_lookup_extended (index, &key, NULL, &found))
                {
                  KsKernelSequence fresh;

                  memset (&fresh, 0, sizeof fresh);
                  memcpy (fresh.names, key.names, sizeof fresh.names);
                  fresh.device = ds->device;
                  fresh.first_track = t;
                  fresh.first_slice = window[0];
                  fresh.first_start = track->start[window[0]];
                  for (guint k = 0; k < KS_SEQUENCE_LENGTH; k++)
                    fresh.operators[k] = launching_operator (ctx, t, window[k]);
                  g_array_append_val (all, fresh);
                  found = GUINT_TO_POINTER (all->len);
                  g_hash_table_insert (index, g_memdup2 (&key, sizeof key), found);
                }
              seq = &g_array_index (all, KsKernelSequence, GPOINTER_TO_UINT (found) - 1);
              seq->count++;
              seq->total_ns += total;
              seq->last_end = MAX (seq->last_end, track->end[window[KS_SEQUENCE_LENGTH - 1]]);
            }
        }
    }

  g_array_sort (all, compare_sequences);
  for (guint i = 0; i < all->len && i < MAX_SEQUENCES; i++)
    {
      KsKernelSequence *seq = &g_array_index (all, KsKernelSequence, i);

      /* once is not a pattern */
      if (seq->count < 2)
        break;
      g_array_append_val (self->sequences, *seq);
    }
}
