/* ks-analysis-missing.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* What a recording lacks and why: kinescope-cli record takes PyTorch's
 * operators and Python samples only when asked (and older versions
 * never did), so an empty Operators page should name the option that
 * records them rather than send the user to record with it at all. */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include <glib/gi18n.h>

#include "ks-analysis-private.h"

static gboolean
is_recording (KsTrace *trace)
{
  const char *producer = ks_trace_get_metadata (trace, "producer");

  return producer != NULL && g_str_has_prefix (producer, "kinescope");
}

const char *
ks_analysis_explain_missing (KsTrace       *trace,
                             KsMissingData  what)
{
  g_return_val_if_fail (KS_IS_TRACE (trace), NULL);

  if (!is_recording (trace))
    return NULL;
  switch (what)
    {
    case KS_MISSING_OPERATORS:
      return _("This recording has no PyTorch operators: it was made with kinescope-cli record --pytorch=none, "
               "or by an older recorder. Record again with --pytorch=autograd-nvtx (the default) to see which "
               "operators the time goes to.");
    case KS_MISSING_PYTHON_SAMPLES:
      return _("This recording has no Python samples: it was made with kinescope-cli record "
               "--python-sampling=false, or by an older recorder. Record again with --python-sampling=true "
               "(the default) to see the Python frames.");
    default:
      g_return_val_if_reached (NULL);
    }
}
