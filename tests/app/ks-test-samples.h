/* ks-test-samples.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-trace.h"

G_BEGIN_DECLS

#define KS_TEST_PY_LOADER "/work/job/loader.py"
#define KS_TEST_PY_TRAIN  "/work/job/train.py"

/* One Python thread (pid = tid = 4200) sampled every millisecond from
 * 1 ms for 20 ms: ten samples in decode_batch (loader.py:80) under
 * load_batch (loader.py:57), then ten in step (train.py:31); all under
 * train (train.py:5) under <module> (train.py:10). */
KsTrace *ks_test_sampled_trace     (void);

/* One Python thread (pid = tid = 4200) sampled every millisecond from
 * 1 ms for 30 ms in step (train.py:31) under train (train.py:5) under
 * <module> (train.py:10): running for ten samples, waiting for the next
 * ten, running for the last ten. */
KsTrace *ks_test_waiting_trace     (void);

/* The first slice named @name on a Python samples track. */
guint32  ks_test_find_sample_slice (KsTrace    *trace,
                                    const char *name,
                                    guint32    *track);

G_END_DECLS
