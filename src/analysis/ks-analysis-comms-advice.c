/* ks-analysis-comms-advice.c: what the collectives and ranks advise
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Exposed communication, stragglers and slow collectives, from what
 * ks-analysis-comms.c found. */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include <glib/gi18n.h>

#include "ks-analysis-private.h"
#include "ks-format.h"

/* Exposed communication above this share of a rank's step time is advice. */
#define EXPOSED_COMM_SHARE 0.10
/* Collectives of at least this size below this bus bandwidth are advice:
 * far below any NVLink or InfiniBand link. */
#define LOW_BW_MIN_BYTES (G_GUINT64_CONSTANT (1) << 20)
#define LOW_BW_GBPS 5.0
/* A straggler whose lateness costs the others this share of a step is advice. */
#define STRAGGLER_SHARE 0.05

static char *
rank_name (KsTrace           *trace,
           const KsRankStats *row)
{
  if (row->rank >= 0)
    return g_strdup_printf (_("rank %d"), row->rank);
  return g_strdup (_("the trace"));
}

static void
set_single_range (KsAdvice *advice,
                  gint64    start,
                  gint64    end)
{
  advice->n_ranges = 1;
  advice->ranges = g_new (KsTimeRange, 1);
  advice->ranges[0].start = start;
  advice->ranges[0].end = end;
}

void
_ks_analysis_comms_advice (KsAnalysis *self,
                           Context    *ctx)
{
  KsTrace *trace = ctx->trace;
  const KsRankStats *worst = NULL;
  guint n_exposed = 0;
  gint64 window_sum = 0;

  for (guint r = 0; r < self->rank_stats->len; r++)
    {
      const KsRankStats *row = &g_array_index (self->rank_stats, KsRankStats, r);

      window_sum += row->window_ns;
      if (row->window_ns > 0 && row->exposed_comm_ns > EXPOSED_COMM_SHARE * row->window_ns)
        {
          n_exposed++;
          if (worst == NULL || row->exposed_comm_ns * worst->window_ns > worst->exposed_comm_ns * row->window_ns)
            worst = row;
        }
    }
  if (worst != NULL)
    {
      g_autofree char *who = rank_name (trace, worst);
      g_autofree char *exposed = ks_time_format_duration (worst->exposed_comm_ns);
      g_autofree char *comm = ks_time_format_duration (worst->comm_ns);
      g_autofree char *window = ks_time_format_duration (worst->window_ns);
      KsAdvice *advice;

      advice = _ks_analysis_add_advice (self, "exposed-comm", -1,
                               g_strdup (_("Communication is not hidden behind compute")),
                               g_strdup_printf (_("For %.0f %% of the steps of %s no compute kernel runs while collectives do: the GPU waits for the network. Overlap communication with the backward pass (DDP's bucket_cap_mb, FSDP's prefetching), or send less (gradient compression, a larger batch per step)."),
                                                100.0 * worst->exposed_comm_ns / worst->window_ns, who),
                               g_strdup_printf (ngettext ("%s of %s communication is exposed in a %s window; %u rank is past %.0f %%.",
                                                          "%s of %s communication is exposed in a %s window; %u ranks are past %.0f %%.",
                                                          n_exposed),
                                                exposed, comm, window, n_exposed, 100 * EXPOSED_COMM_SHARE));
      advice->value = (double)worst->exposed_comm_ns / worst->window_ns;
    }

  if (self->straggler != KS_NO_INDEX && self->rank_stats->len > 1)
    {
      const KsRankStats *s = &g_array_index (self->rank_stats, KsRankStats, self->straggler);
      double mean_window = (double)window_sum / self->rank_stats->len;

      if (mean_window > 0 && s->wait_caused_ns > STRAGGLER_SHARE * mean_window)
        {
          g_autofree char *who = rank_name (trace, s);
          g_autofree char *caused = ks_time_format_duration (s->wait_caused_ns);
          const KsCollective *latest = NULL;
          KsAdvice *advice;

          advice = _ks_analysis_add_advice (self, "straggler", -1,
                                            g_strdup_printf (_("The other ranks wait for %s"), who),
                                            g_strdup_printf (_("%s arrives last at the collectives: every other rank waits for it. Look at what it does before them that the others do not (data loading, a larger share of the data, a slower GPU or host)."),
                                                             who),
                                            g_strdup_printf (_("The others waited %s in total for it (%.0f %% of a rank's window)."),
                                                             caused, 100.0 * s->wait_caused_ns / mean_window));
          advice->value = s->wait_caused_ns;
          /* its collective that the others waited longest for */
          for (guint i = 0; i < self->collectives->len; i++)
            {
              const KsCollective *c = &g_array_index (self->collectives, KsCollective, i);

              if (c->rank == s->rank_index && c->last_rank == s->rank_index
                  && (latest == NULL || c->start > latest->start))
                latest = c;
            }
          if (latest != NULL)
            set_single_range (advice, latest->start, latest->end);
        }
    }

  for (guint i = 0; i < self->comm_stats->len; i++)
    {
      const KsCommStats *row = &g_array_index (self->comm_stats, KsCommStats, i);
      g_autofree char *size = NULL;
      KsAdvice *advice;

      if (!row->on_gpu || row->bytes < LOW_BW_MIN_BYTES || row->busbw_gbps < 0 || row->busbw_gbps >= LOW_BW_GBPS)
        continue;
      size = ks_format_bytes (row->bytes);
      advice = _ks_analysis_add_advice (self, "low-bus-bandwidth", -1,
                               g_strdup_printf (_("%s of %s reach only %.2f GB/s"),
                                                ks_collective_kind_to_string (row->kind), size, row->busbw_gbps),
                               g_strdup (_("These collectives move data far below what NVLink or InfiniBand carry (tens to hundreds of GB/s): the ranks may talk over TCP or PCIe (check NCCL_DEBUG=INFO for the transport), or the time includes waiting for a late rank.")),
                               g_strdup_printf (ngettext ("%u call, bus bandwidth %.2f GB/s.",
                                                          "%u calls, bus bandwidth %.2f GB/s of the mean call.",
                                                          (gulong)MIN (row->count, G_MAXUINT)),
                                                (guint)MIN (row->count, G_MAXUINT), row->busbw_gbps));
      advice->value = row->busbw_gbps;
      break;
    }
}
