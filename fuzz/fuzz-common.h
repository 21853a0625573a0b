/* fuzz-common.h: what every libFuzzer harness does with a loaded trace
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-trace.h"

/* Makes GLib criticals and warnings abort, so that they count as findings. */
void        fuzz_init       (void);

/* A path named @name in a folder of its own, made on the first call and
 * removed, with the file, when the process exits. */
const char *fuzz_temp_file  (const char *name);

/* Walks @trace the way the views do and checks what they rely on: slices
 * with start <= end, name ids and flows in range, arguments as JSON
 * objects where the reader made them (@args_are_objects; a .kscope keeps
 * whatever text its file holds); then computes every analysis. */
void        fuzz_walk_trace (KsTrace    *trace,
                             gboolean    args_are_objects);
