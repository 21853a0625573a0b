/* ks-cli-info-samples.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The achieved sampling rate of each thread: samples over the time from
 * its first to its last, and how many were taken while it waited. A rate
 * below the asked one says the sampler fell behind (an in-process one
 * waits for the GIL; one outside waits for a CPU). */

#include "config.h"

#include <inttypes.h>

#include <glib/gi18n.h>

#include "ks-cli-common.h"
#include "ks-cli-info-samples.h"

typedef struct
{
  guint32 thread;
  guint32 samples;
  guint32 waiting;
  double  rate_hz;   /* 0 with fewer than two samples */
} Rate;

static GArray *
thread_rates (KsTrace *trace)
{
  GArray *rates = g_array_new (FALSE, FALSE, sizeof (Rate));

  /* sorted by (thread, ts) */
  for (guint32 first = 0, k = 0; k <= trace->n_samples; k++)
    {
      Rate r = { 0 };
      gint64 span;

      if (k < trace->n_samples && trace->samples[k].thread == trace->samples[first].thread)
        continue;
      if (k == first)
        continue;
      r.thread = trace->samples[first].thread;
      r.samples = k - first;
      for (guint32 i = first; i < k; i++)
        r.waiting += trace->samples[i].waiting;
      span = trace->samples[k - 1].ts - trace->samples[first].ts;
      r.rate_hz = span > 0 ? (r.samples - 1) * 1e9 / (double) span : 0;
      g_array_append_val (rates, r);
      first = k;
    }
  return rates;
}

static char *
thread_label (KsTrace *trace,
              guint32  thread)
{
  const KsThread *th = &trace->threads[thread];

  if (th->name != 0)
    return g_strdup (ks_trace_string (trace, th->name));
  if (th->original != 0)
    return g_strdup (ks_trace_string (trace, th->original));
  return g_strdup_printf ("%" G_GINT64_FORMAT, th->tid);
}

void
ks_cli_info_samples_json (KsJsonWriter *json,
                          KsTrace      *trace)
{
  g_autoptr(GArray) rates = thread_rates (trace);

  ks_json_begin_array (json, "python_sampling");
  for (guint i = 0; i < rates->len; i++)
    {
      const Rate *r = &g_array_index (rates, Rate, i);
      g_autofree char *label = thread_label (trace, r->thread);

      ks_json_begin_object (json, NULL);
      ks_json_string (json, "thread", label);
      ks_json_int (json, "pid", trace->processes[trace->threads[r->thread].process].pid);
      ks_json_int (json, "tid", trace->threads[r->thread].tid);
      ks_json_int (json, "samples", r->samples);
      ks_json_int (json, "waiting", r->waiting);
      ks_json_double (json, "rate_hz", r->rate_hz, 1);
      ks_json_end_object (json);
    }
  ks_json_end_array (json);
}

void
ks_cli_info_samples_text (KsTrace *trace)
{
  g_autoptr(GArray) rates = thread_rates (trace);

  if (rates->len == 0)
    return;
  ks_cli_print ("%s\n", _("Stack sampling:"));
  for (guint i = 0; i < rates->len; i++)
    {
      const Rate *r = &g_array_index (rates, Rate, i);
      g_autofree char *label = thread_label (trace, r->thread);
      g_autofree char *shown = ks_cli_escape (label);

      /* TRANSLATORS: a thread, its id, its samples, how many of them were
       * taken while it waited, and the rate it was sampled at */
      ks_cli_print (_("  %s (tid %" PRId64 "): %u samples, %u waiting, %.1f Hz\n"), shown,
                    trace->threads[r->thread].tid, r->samples, r->waiting, r->rate_hz);
    }
}
