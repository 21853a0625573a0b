/* ks-window-status.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-window-status"

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>

#include "ks-analysis.h"
#include "ks-format.h"
#include "ks-window-private.h"

/* What the window says about its trace: the subtitle, the status bar
 * and the warnings banner. */

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

void
_ks_window_set_status (KsWindow *self)
{
  KsTrace *trace;
  guint64 events, gpu;
  guint32 track, slice;
  gint64 start, end;
  g_autofree char *dur = NULL;
  g_autofree char *text = NULL;
  g_autoptr(GString) detail = g_string_new (NULL);
  const char *warnings;

  /* (a job's summaries leave the session without a trace) */
  if (self->session == NULL || ks_session_get_trace (self->session) == NULL)
    {
      gtk_label_set_label (self->status_label, "");
      gtk_label_set_label (self->status_detail, "");
      return;
    }

  trace = ks_session_get_trace (self->session);
  events = self->n_events;
  gpu = self->n_gpu_events;

  dur = ks_time_format_duration (trace->duration_ns);
  text = g_strdup_printf (_("%" PRIu64 " events (%" PRIu64 " on the GPU) · %u threads · %s"),
                          events, gpu, trace->n_threads, dur);
  /* a memory snapshot holds allocations and frees, not slices */
  if (trace->n_memory_events > 0)
    {
      g_autofree char *with = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s · %u memory event",
                                                            "%s · %u memory events", trace->n_memory_events),
                                               text, trace->n_memory_events);

      g_free (text);
      text = g_steal_pointer (&with);
    }

  warnings = ks_trace_get_metadata (trace, "warnings");
  if (warnings != NULL && *warnings)
    {
      g_auto(GStrv) lines = g_strsplit (warnings, "\n", -1);
      g_autofree char *full = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s · %u load warning",
                                                            "%s · %u load warnings", g_strv_length (lines)),
                                               text, g_strv_length (lines));

      gtk_widget_set_tooltip_text (GTK_WIDGET (self->status_label), warnings);
      g_free (text);
      text = g_steal_pointer (&full);
    }
  gtk_label_set_label (self->status_label, text);

  if (ks_session_get_selected_slice (self->session, &track, &slice))
    {
      g_autofree char *d = ks_time_format_duration (trace->tracks[track].end[slice] - trace->tracks[track].start[slice]);
      g_autofree char *name = ks_format_dup_cut_text (ks_trace_string (trace, trace->tracks[track].name_id[slice]),
                                                      KS_TEXT_MAX_CHARS, TRUE);

      g_string_append_printf (detail, _("Selected: %s (%s)"), name, d);
    }
  if (ks_session_get_range (self->session, &start, &end))
    {
      g_autofree char *d = ks_time_format_duration (end - start);

      if (detail->len)
        g_string_append (detail, " · ");
      g_string_append_printf (detail, _("Range: %s"), d);
    }
  gtk_label_set_label (self->status_detail, detail->str);
}

/* The banner lists the trace's load warnings and what the analysis had
 * to leave out: the first in full width, a count of the others, all of
 * them in the tooltip. */
void
_ks_window_update_warnings (KsWindow   *self,
                            KsAnalysis *analysis)
{
  g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *all = NULL;
  const char *warnings;

  if (self->session != NULL && ks_session_get_trace (self->session) != NULL)
    {
      warnings = ks_trace_get_metadata (ks_session_get_trace (self->session), "warnings");
      if (warnings != NULL && *warnings)
        {
          g_auto(GStrv) split = g_strsplit (warnings, "\n", -1);

          for (guint i = 0; split[i] != NULL; i++)
            if (*split[i])
              g_ptr_array_add (lines, g_strdup (split[i]));
        }
      for (const char * const *w = analysis ? ks_analysis_get_warnings (analysis) : NULL; w && *w; w++)
        g_ptr_array_add (lines, g_strdup (*w));
    }

  /* an nvidia-smi log without times asks for its interval */
  {
    KsTrace *trace = self->session != NULL ? ks_session_get_trace (self->session) : NULL;
    const char *interval = trace != NULL ? ks_trace_get_metadata (trace, "nvidia_smi_interval") : NULL;

    if (interval != NULL)
      ks_interval_bar_set_interval (self->interval_bar, g_ascii_strtod (interval, NULL));
    gtk_widget_set_visible (GTK_WIDGET (self->interval_bar), interval != NULL);
  }

  if (lines->len == 0)
    {
      gtk_revealer_set_reveal_child (self->warnings_revealer, FALSE);
      gtk_label_set_text (self->warnings_label, "");
      gtk_label_set_text (self->warnings_more, "");
      gtk_widget_set_tooltip_text (self->warnings_box, NULL);
      return;
    }

  gtk_label_set_text (self->warnings_label, g_ptr_array_index (lines, 0));
  if (lines->len > 1)
    {
      g_autofree char *more = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "and %u more warning",
                                                            "and %u more warnings", lines->len - 1),
                                               lines->len - 1);

      gtk_label_set_text (self->warnings_more, more);
    }
  else
    gtk_label_set_text (self->warnings_more, "");
  g_ptr_array_add (lines, NULL);
  all = g_strjoinv ("\n", (char **)lines->pdata);
  gtk_widget_set_tooltip_text (self->warnings_box, all);
  gtk_revealer_set_reveal_child (self->warnings_revealer, !self->warnings_closed);
}
