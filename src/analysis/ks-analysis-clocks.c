/* ks-analysis-clocks.c: ranks' clocks aligned by their collectives
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Each collective call numbered per process group, the clocks of the
 * ranks aligned on the calls' ends, and each call's straggler. */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include "ks-analysis-private.h"

const char *
ks_clock_method_to_string (KsClockMethod method)
{
  switch (method)
    {
    case KS_CLOCK_SHARED:      return "shared";
    case KS_CLOCK_COLLECTIVES: return "collectives";
    case KS_CLOCK_UTC:         return "utc";
    case KS_CLOCK_ONE_RANK:
    default:                   return "one_rank";
    }
}

void
ks_collectives_number (KsCollective *cs,
                       guint         n)
{
  g_autoptr(GHashTable) next_seq = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *key = g_strdup_printf ("%u\x1f%s", cs[i].rank, cs[i].process_group);

      cs[i].seq = GPOINTER_TO_UINT (g_hash_table_lookup (next_seq, key));
      g_hash_table_replace (next_seq, g_steal_pointer (&key), GUINT_TO_POINTER (cs[i].seq + 1));
    }
}

/* The calls of the job: the indexes of the Nth call of a process group
 * on each rank, where all are of one kind (else the traces do not hold
 * the same calls: sampled, or cut at different places). */
static GPtrArray *
job_calls (const KsCollective *cs,
           guint               n)
{
  g_autoptr(GHashTable) index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GPtrArray *calls = g_ptr_array_new_with_free_func ((GDestroyNotify)g_array_unref);
  GPtrArray *kept = g_ptr_array_new_with_free_func ((GDestroyNotify)g_array_unref);

  for (guint i = 0; i < n; i++)
    {
      g_autofree char *key = g_strdup_printf ("%s\x1f%u", cs[i].process_group, cs[i].seq);
      gpointer at;
      GArray *members;

      if (g_hash_table_lookup_extended (index, key, NULL, &at))
        members = g_ptr_array_index (calls, GPOINTER_TO_UINT (at));
      else
        {
          members = g_array_new (FALSE, FALSE, sizeof (guint));
          g_hash_table_insert (index, g_steal_pointer (&key), GUINT_TO_POINTER (calls->len));
          g_ptr_array_add (calls, members);
        }
      g_array_append_val (members, i);
    }
  for (guint c = 0; c < calls->len; c++)
    {
      GArray *members = g_ptr_array_index (calls, c);
      gboolean same_kind = members->len >= 2;

      for (guint m = 1; m < members->len && same_kind; m++)
        if (cs[g_array_index (members, guint, m)].kind != cs[g_array_index (members, guint, 0)].kind)
          same_kind = FALSE;
      if (same_kind)
        g_ptr_array_add (kept, g_array_ref (members));
    }
  g_ptr_array_unref (calls);
  return kept;
}

static int
compare_int64 (gconstpointer a,
               gconstpointer b)
{
  gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;

  return (x > y) - (x < y);
}

static gint64
median (GArray *values)
{
  g_array_sort (values, compare_int64);
  return g_array_index (values, gint64, values->len / 2);
}

/* Clocks whose collectives' ends agree this closely are one clock. */
#define SHARED_CLOCK_NS G_GINT64_CONSTANT (1000000)

void
ks_collectives_align (const KsCollective *cs,
                      guint               n,
                      guint               n_rows,
                      const guint32      *hosts,
                      const gint64       *utc_offsets,
                      gint64             *offsets,
                      KsClockAlignment   *alignment)
{
  g_autoptr(GPtrArray) calls = NULL;
  GArray **diffs = g_new0 (GArray *, n_rows);
  gboolean any = FALSE, shifted = FALSE;

  memset (offsets, 0, sizeof (gint64) * n_rows);
  alignment->method = KS_CLOCK_ONE_RANK;
  alignment->skew_ns = -1;
  if (n_rows < 2)
    {
      g_free (diffs);
      return;
    }

  /* end of row 0's call minus the end of each other rank's, per call */
  calls = job_calls (cs, n);
  for (guint c = 0; c < calls->len; c++)
    {
      GArray *members = g_ptr_array_index (calls, c);
      const KsCollective *ref = NULL;

      for (guint m = 0; m < members->len; m++)
        if (cs[g_array_index (members, guint, m)].rank == 0)
          ref = &cs[g_array_index (members, guint, m)];
      if (ref == NULL)
        continue;
      for (guint m = 0; m < members->len; m++)
        {
          const KsCollective *x = &cs[g_array_index (members, guint, m)];
          /* ranks of one host share a clock: their differences are the host's */
          guint32 row = x->rank;
          gint64 d = ref->end - x->end;

          if (row == 0 || row >= n_rows)
            continue;
          if (hosts != NULL && hosts[row] != G_MAXUINT32)
            for (guint32 r = 0; r < n_rows; r++)
              if (hosts[r] == hosts[row])
                {
                  row = r;
                  break;
                }
          if (diffs[row] == NULL)
            diffs[row] = g_array_new (FALSE, FALSE, sizeof (gint64));
          g_array_append_val (diffs[row], d);
          any = TRUE;
        }
    }

  if (!any)
    {
      /* nothing to align on: the files' UTC start when they say it */
      alignment->method = utc_offsets != NULL ? KS_CLOCK_UTC : KS_CLOCK_SHARED;
      for (guint r = 0; r < n_rows && utc_offsets != NULL; r++)
        offsets[r] = utc_offsets[r] - utc_offsets[0];
      g_free (diffs);
      return;
    }

  for (guint r = 1; r < n_rows; r++)
    {
      guint32 first = r;

      if (hosts != NULL && hosts[r] != G_MAXUINT32)
        for (guint32 q = 0; q < n_rows; q++)
          if (hosts[q] == hosts[r])
            {
              first = q;
              break;
            }
      if (first == 0 && hosts != NULL && hosts[r] != G_MAXUINT32)
        offsets[r] = 0;                       /* row 0's host */
      else if (first != r)
        offsets[r] = offsets[first];
      else if (diffs[r] != NULL)
        offsets[r] = median (diffs[r]);
      else if (utc_offsets != NULL)
        offsets[r] = utc_offsets[r] - utc_offsets[0];
      if (offsets[r] > SHARED_CLOCK_NS || offsets[r] < -SHARED_CLOCK_NS)
        shifted = TRUE;
    }
  if (!shifted)
    memset (offsets, 0, sizeof (gint64) * n_rows);
  alignment->method = shifted ? KS_CLOCK_COLLECTIVES : KS_CLOCK_SHARED;

  /* what is left: per host the median distance of the ends after the shift */
  alignment->skew_ns = 0;
  for (guint r = 1; r < n_rows; r++)
    {
      if (diffs[r] == NULL)
        continue;
      for (guint i = 0; i < diffs[r]->len; i++)
        {
          gint64 *d = &g_array_index (diffs[r], gint64, i);

          *d = ABS (*d - offsets[r]);
        }
      alignment->skew_ns = MAX (alignment->skew_ns, median (diffs[r]));
      g_array_unref (diffs[r]);
    }
  g_free (diffs);
}

/* The last to start a call is its straggler; the others wait from their
 * start until it arrives (at most their call's duration: a rank cannot
 * wait past its own end). Arrivals on row 0's clock. */
void
ks_collectives_match (KsCollective *cs,
                      guint         n,
                      const gint64 *offsets,
                      gint64       *wait_caused)
{
  g_autoptr(GPtrArray) calls = job_calls (cs, n);

  for (guint c = 0; c < calls->len; c++)
    {
      GArray *members = g_ptr_array_index (calls, c);
      const KsCollective *last = NULL;
      gint64 last_arrival = G_MININT64;

      for (guint m = 0; m < members->len; m++)
        {
          const KsCollective *x = &cs[g_array_index (members, guint, m)];
          gint64 arrival = x->start + offsets[x->rank];

          if (arrival > last_arrival)
            {
              last = x;
              last_arrival = arrival;
            }
        }
      for (guint m = 0; m < members->len; m++)
        {
          KsCollective *x = &cs[g_array_index (members, guint, m)];

          x->last_rank = last->rank;
          x->wait_ns = CLAMP (last_arrival - (x->start + offsets[x->rank]), 0, x->end - x->start);
          if (x->in_steps)
            wait_caused[last->rank] += x->wait_ns;
        }
    }
}
