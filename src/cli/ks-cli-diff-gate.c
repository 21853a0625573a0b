/* ks-cli-diff-gate.c: the verdict of kinescope-cli diff --gate
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-cli-diff"

#include "config.h"

#include <math.h>

#include "ks-cli-diff-gate.h"

void
ks_cli_diff_gate_json (KsJsonWriter *json,
                       const KsGate *gate)
{
  ks_json_begin_object (json, "gate");
  ks_json_string (json, "verdict", ks_gate_verdict_to_string (gate->verdict));
  ks_json_double (json, "threshold_pct", gate->threshold_pct, 2);
  if (gate->has_median)
    {
      ks_json_int (json, "median_base_ns", gate->median_ns[KS_COMPARE_BASE]);
      ks_json_int (json, "median_new_ns", gate->median_ns[KS_COMPARE_NEW]);
      ks_json_double (json, "change_pct", gate->change_pct, 3);
    }
  else
    {
      ks_json_null (json, "median_base_ns");
      ks_json_null (json, "median_new_ns");
      ks_json_null (json, "change_pct");
    }
  ks_json_double (json, "ci_low_pct", gate->has_interval ? gate->ci_low_pct : NAN, 3);
  ks_json_double (json, "ci_high_pct", gate->has_interval ? gate->ci_high_pct : NAN, 3);
  ks_json_begin_array (json, "reasons");
  for (guint i = 0; i < gate->reasons->len; i++)
    ks_json_string (json, NULL, g_ptr_array_index (gate->reasons, i));
  ks_json_end_array (json);
  ks_json_end_object (json);
}
