/* ks-analysis-samples.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-analysis"

/* Sampled stacks by frame: for each thread, each (function, file, line)
 * with the running samples that had it innermost and those that had it
 * at all, and the waiting samples that had it: a thread asleep in
 * time.sleep() spends no CPU in the frame that called it. */

#include "config.h"

#include "ks-analysis-private.h"

typedef struct
{
  guint32 function;
  guint32 file;
  guint32 line;
} FrameKey;

static guint
frame_hash (gconstpointer p)
{
  const FrameKey *k = p;

  return (k->function * 2654435761u) ^ (k->file * 40503u) ^ k->line;
}

static gboolean
frame_equal (gconstpointer a,
             gconstpointer b)
{
  const FrameKey *x = a;
  const FrameKey *y = b;

  return x->function == y->function && x->file == y->file && x->line == y->line;
}

static int
compare_rows (gconstpointer a,
              gconstpointer b,
              gpointer      user_data)
{
  KsTrace *trace = user_data;
  const KsSampleStats *x = a;
  const KsSampleStats *y = b;
  int c;

  if (x->total != y->total)
    return x->total > y->total ? -1 : 1;
  if (x->self != y->self)
    return x->self > y->self ? -1 : 1;
  if (x->waiting != y->waiting)
    return x->waiting > y->waiting ? -1 : 1;
  if ((c = g_strcmp0 (ks_trace_string (trace, x->function), ks_trace_string (trace, y->function))) != 0)
    return c;
  if ((c = g_strcmp0 (ks_trace_string (trace, x->file), ks_trace_string (trace, y->file))) != 0)
    return c;
  return (x->line > y->line) - (x->line < y->line);
}

void
_ks_analysis_samples (KsAnalysis *self,
                      Context    *ctx)
{
  KsTrace *trace = ctx->trace;
  g_autoptr(GHashTable) rows = g_hash_table_new_full (frame_hash, frame_equal, g_free, NULL);
  /* per row of the thread: the last sample counted in its total */
  g_autoptr(GArray) last = g_array_new (FALSE, FALSE, sizeof (guint32));

  for (guint32 first = 0, k = 0; k <= trace->n_samples; k++)
    {
      guint32 base = self->samples->len;

      if (k < trace->n_samples && trace->samples[k].thread == trace->samples[first].thread)
        continue;
      if (k == first)
        continue;

      g_hash_table_remove_all (rows);
      g_array_set_size (last, 0);

      for (guint32 i = first; i < k; i++)
        {
          gboolean innermost = TRUE;
          gboolean waiting = trace->samples[i].waiting;

          /* the steady state's samples, as the operators' calls */
          if (_ks_context_in_warmup (ctx, trace->samples[i].ts))
            continue;

          for (guint32 n = trace->samples[i].node; n != KS_NO_INDEX; n = trace->stack_nodes[n].parent)
            {
              const KsStackNode *node = &trace->stack_nodes[n];
              FrameKey key = { node->function, node->file, node->line };
              gpointer found;
              guint32 row;
              KsSampleStats *st;

              if (g_hash_table_lookup_extended (rows, &key, NULL, &found))
                row = GPOINTER_TO_UINT (found);
              else
                {
                  KsSampleStats fresh = { trace->samples[i].thread, node->function, node->file, node->line, 0, 0, 0 };
                  guint32 never = G_MAXUINT32;

                  row = self->samples->len - base;
                  g_array_append_val (self->samples, fresh);
                  g_array_append_val (last, never);
                  g_hash_table_insert (rows, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (row));
                }
              st = &g_array_index (self->samples, KsSampleStats, base + row);
              if (innermost && !waiting)
                st->self++;
              innermost = FALSE;
              /* recursion: once a sample */
              if (g_array_index (last, guint32, row) != i)
                {
                  if (waiting)
                    st->waiting++;
                  else
                    st->total++;
                  g_array_index (last, guint32, row) = i;
                }
            }
        }

      g_qsort_with_data (&g_array_index (self->samples, KsSampleStats, base), self->samples->len - base,
                         sizeof (KsSampleStats), compare_rows, trace);
      first = k;
    }
}
