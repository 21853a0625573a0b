/* ks-test-window.h: what the window tests share
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "ks-session.h"
#include "ks-window.h"

G_BEGIN_DECLS

/* Expected values computed from the fixture JSON with a separate python3
 * script (durations are the JSON's microseconds, formatted to three
 * significant digits as the page shows them). */
#define LB_FILE          "loader_bound.pt.trace.json.gz"
#define LB_KERNEL_NAME   "sm80_xmma_wgrad_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nhwc_tilesize64x64x64_stage4_warpsize2x2x1_g1_tensor16x8x8_execute_kernel__5x_cudnn"
#define LB_MEMCPY_NAME   "Memcpy HtoD (Pageable -> Device)"
/* Union of all kernel intervals: 4600.263 µs. */
#define LB_KERNEL_UNION_NS 4600263.0

/* Runs the main loop until @cond holds or 20 s pass. */
#define WAIT_FOR(cond) KS_TEST_WAIT_FOR (cond, 20000)

/* A file of the fixtures folder (KS_FIXTURES_DIR). */
GFile     *ks_test_fixture         (const char *name);
/* Saves @widget drawn as NAME.png in KS_TEST_SCREENSHOT_DIR, when set. */
void       ks_test_save_screenshot (GtkWidget  *widget,
                                    const char *name);
/* A 1400×860 window showing the fixture @name, drawn, its timeline laid out. */
KsWindow  *ks_test_open_window     (const char *name);
/* A window showing @file once its session is there, drawn. */
KsWindow  *ks_test_open_file       (GFile      *file);
/* The first widget under @root (itself included) of the type named @type_name. */
GtkWidget *ks_test_find_child      (GtkWidget  *root,
                                    const char *type_name);
/* The longest slice named @name, and its track in @track_out. */
guint32    ks_test_find_longest    (KsTrace    *trace,
                                    const char *name,
                                    guint32    *track_out);
/* The session's visible span is @t0 .. @t1 (to a millionth of it). */
void       ks_test_assert_visible  (KsSession  *session,
                                    double      t0,
                                    double      t1);

G_END_DECLS
