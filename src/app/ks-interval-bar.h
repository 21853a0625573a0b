/* ks-interval-bar.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* The load info bar of an nvidia-smi log without times: its samples were
 * taken an interval apart (-l, dmon's -d), which the log does not say;
 * the bar asks for it and emits ::reload with it, as `--interval` does
 * for the CLI. */
#define KS_TYPE_INTERVAL_BAR (ks_interval_bar_get_type ())

G_DECLARE_FINAL_TYPE (KsIntervalBar, ks_interval_bar, KS, INTERVAL_BAR, GtkBox)

GtkWidget *ks_interval_bar_new          (void);
double     ks_interval_bar_get_interval (KsIntervalBar *self);
void       ks_interval_bar_set_interval (KsIntervalBar *self,
                                         double         interval);

G_END_DECLS
