/* ks-gpu-monitor.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define KS_TYPE_GPU_MONITOR (ks_gpu_monitor_get_type ())

G_DECLARE_FINAL_TYPE (KsGpuMonitor, ks_gpu_monitor, KS, GPU_MONITOR, AdwWindow)

/* Profile → GPU Monitor: every GPU's utilization, memory, power,
 * temperature and SM clock as live charts, and the processes using the
 * GPUs, sampled from NVML (the recorder's loader) once a second in a
 * worker thread. "Record…" asks @parent for its win.record action.
 * Closing the window stops the sampling. Without a driver it says what
 * `kinescope-cli monitor` says, on an AdwStatusPage. */
KsGpuMonitor *ks_gpu_monitor_new           (GtkWindow    *parent);
/* Milliseconds between samples (1000 unless set before the first). */
void          ks_gpu_monitor_set_interval  (KsGpuMonitor *self,
                                            guint         ms);
/* Samples shown so far; for tests and the window title. */
guint64       ks_gpu_monitor_get_n_samples (KsGpuMonitor *self);

G_END_DECLS
