/* ks-cli-diff-gate.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "ks-compare.h"
#include "ks-gate.h"
#include "ks-json-writer.h"

G_BEGIN_DECLS

/* The "gate" member of the diff's JSON object. */
void ks_cli_diff_gate_json     (KsJsonWriter  *json,
                                const KsGate  *gate);
/* kinescope-cli diff --format markdown: a comment for a pull request.
 * The verdict only with --gate (@with_verdict), the step time with its
 * interval, the largest kernel and operator changes, the advice added
 * and removed. */
void ks_cli_diff_markdown      (GString       *out,
                                KsCompare     *compare,
                                const KsGate  *gate,
                                gboolean       with_verdict,
                                gboolean       by_shape);

G_END_DECLS
