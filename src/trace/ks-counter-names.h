/* ks-counter-names.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The GPU counter rows Kinescope names itself (the recorder's NVML rows,
 * nvidia-smi's columns, GPM's metrics) are kept in English in a trace,
 * as saved files and the CLI's JSON name them; a row label shows them in
 * the user's language. */

/* The name as the user reads it: @name translated when it is one of
 * those rows, else @name itself (a row a file named). */
const char *ks_counter_name_display (const char *name);
/* Whether @name is one of those rows. */
gboolean    ks_counter_name_is_known (const char *name);

G_END_DECLS
