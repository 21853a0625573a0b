/* ks-window-status.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-window-status"

#include "config.h"

#include <glib/gi18n.h>
#include "ks-analysis.h"
#include "ks-format.h"
#include "ks-window-private.h"

/* What the window's title says about its trace, and the bar that asks
 * for the interval of an nvidia-smi log; the status bar and the
 * warnings banner are widgets of their own that follow the session. */

/* "format · duration", and the same GPU busy figure as the Summary page. */
void
_ks_window_update_subtitle (KsWindow *self)
{
  KsTrace *trace = ks_session_get_trace (self->session);
  KsAnalysis *analysis = ks_session_get_analysis (self->session);
  g_autofree char *dur = ks_time_format_duration (trace->duration_ns);
  g_autoptr(GString) subtitle = g_string_new (NULL);
  const KsGpuSummary *gpus = NULL;
  guint n_gpus = 0;

  g_string_printf (subtitle, "%s · %s", ks_format_to_string (trace->format), dur);
  if (analysis != NULL)
    gpus = ks_analysis_get_gpus (analysis, &n_gpus);
  for (guint i = 0; i < n_gpus; i++)
    {
      if (n_gpus == 1)
        g_string_append_printf (subtitle, _(" · GPU busy %.1f %%"), gpus[i].busy_pct);
      else
        g_string_append_printf (subtitle, _(" · GPU %d busy %.1f %%"), gpus[i].device, gpus[i].busy_pct);
    }
  adw_window_title_set_subtitle (self->window_title, subtitle->str);
}

/* An nvidia-smi log without times asks for its interval. */
void
_ks_window_update_interval_bar (KsWindow *self)
{
  KsTrace *trace = self->session != NULL ? ks_session_get_trace (self->session) : NULL;
  const char *interval = trace != NULL ? ks_trace_get_metadata (trace, "nvidia_smi_interval") : NULL;

  if (interval != NULL)
    ks_interval_bar_set_interval (self->interval_bar, g_ascii_strtod (interval, NULL));
  gtk_widget_set_visible (GTK_WIDGET (self->interval_bar), interval != NULL);
}
