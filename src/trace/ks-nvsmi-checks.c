/* ks-nvsmi-checks.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-nvsmi-reader"

/* Rows and values of an nvidia-smi log that are left out and said so:
 * times that go back, times of another kind than the first header's,
 * a counter column that turns to text. A log with them still loads (it
 * is what was recorded), but nothing is dropped without a warning. */

#include "config.h"

#include <inttypes.h>

#include <glib/gi18n.h>

#include "ks-nvsmi-private.h"

/* FALSE when the row of @line, at @ts, is left out. @last_ts is the
 * last kept row's time (G_MININT64 before the first). Times that go
 * back (a clock set back, logs of two runs pasted together) or times
 * of another kind than the first rows' (dates, then times of day
 * counted from 1970) would stretch the timeline over years and fill it
 * with idle time. */
gboolean
ks_nvsmi_checks_time (KsNvsmiChecks *checks,
                      guint64        line,
                      KsNvsmiBasis   basis,
                      gint64         last_ts,
                      gint64         ts)
{
  if (checks->basis == KS_NVSMI_BASIS_UNSET)
    checks->basis = basis;
  if (basis != checks->basis)
    {
      if (checks->n_other_basis++ == 0)
        checks->other_basis_line = line;
      return FALSE;
    }
  if (ts < last_ts)
    {
      if (checks->n_backwards++ == 0)
        checks->backwards_line = line;
      return FALSE;
    }
  return TRUE;
}

/* @value of @column, a counter until then, is not a number. */
void
ks_nvsmi_checks_text (KsNvsmiChecks *checks,
                      guint64        line,
                      const char    *column,
                      const char    *value)
{
  if (checks->n_text++ > 0)
    return;
  checks->text_line = line;
  checks->text_column = g_strdup (column);
  checks->text_value = g_strdup (value);
}

void
ks_nvsmi_checks_warn (KsNvsmiChecks  *checks,
                      KsTraceBuilder *b,
                      const char     *name)
{
  if (checks->n_backwards > 0)
    ks_trace_builder_add_warning (b, _("%s: line %" PRIu64 ": the log's time goes back; rows earlier than "
                                       "the one before them were left out: %" PRIu64),
                                  name, checks->backwards_line, checks->n_backwards);
  if (checks->n_other_basis > 0)
    ks_trace_builder_add_warning (b, _("%s: line %" PRIu64 ": the times are of another kind than the first "
                                       "rows' (dates, times of day or none); such rows were left out: %" PRIu64),
                                  name, checks->other_basis_line, checks->n_other_basis);
  if (checks->n_text > 0)
    ks_trace_builder_add_warning (b, _("%s: line %" PRIu64 ": column “%s” turns to text (“%s”); values that "
                                       "are not numbers were left out: %" PRIu64),
                                  name, checks->text_line, checks->text_column, checks->text_value,
                                  checks->n_text);
}

void
ks_nvsmi_warn_untimed (KsTraceBuilder *b,
                       const char     *name,
                       double          interval)
{
  char text[G_ASCII_DTOSTR_BUF_SIZE];

  /* the window asks for another (its interval bar) */
  ks_trace_builder_set_metadata (b, "nvidia_smi_interval", g_ascii_dtostr (text, sizeof text, interval));
  ks_trace_builder_add_warning (b, _("%s: the log has no times: its samples are taken as %g s apart "
                                     "(nvidia-smi -l %g); give --interval for another"),
                                name, interval, interval);
}

void
ks_nvsmi_checks_clear (KsNvsmiChecks *checks)
{
  g_clear_pointer (&checks->text_column, g_free);
  g_clear_pointer (&checks->text_value, g_free);
}
