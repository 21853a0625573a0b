/* ks-cli-info-samples.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-json-writer.h"
#include "ks-trace.h"

G_BEGIN_DECLS

/* kinescope-cli info: the sampling rate each thread with stack samples
 * got, as a "python_sampling" array or as text lines. */
void ks_cli_info_samples_json (KsJsonWriter *json,
                               KsTrace      *trace);
void ks_cli_info_samples_text (KsTrace      *trace);

G_END_DECLS
