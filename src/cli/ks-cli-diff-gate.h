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

G_END_DECLS
