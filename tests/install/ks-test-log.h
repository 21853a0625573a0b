/* ks-test-log.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A log writer for tests that open the window: a layout warning GTK 4.8
 * gives while the window loads is not what they are about, so it is
 * printed, not fatal. Anything else stays fatal. */
GLogWriterOutput ks_test_log_writer (GLogLevelFlags   log_level,
                                     const GLogField *fields,
                                     gsize            n_fields,
                                     gpointer         user_data);

G_END_DECLS
