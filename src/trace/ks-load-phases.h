/* ks-load-phases.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Where a load's time goes, phase by phase: with KINESCOPE_LOAD_PHASES=1
 * in the environment every phase prints one line on stderr,
 *
 *   load-phase	NAME	WALL_S	CPU_S
 *
 * (tab-separated; CPU is that of the thread that ran the phase, so a
 * phase that waits for other threads shows their work in WALL only).
 * Without it the clocks are not read. */

typedef struct
{
  gint64 wall_ns;
  gint64 cpu_ns;
} KsPhaseClock;

gboolean ks_load_phases_enabled (void);
/* Starts @clock (when enabled). */
void     ks_phase_start         (KsPhaseClock       *clock);
/* Adds the time since ks_phase_start() to @sum (when enabled). */
void     ks_phase_add           (const KsPhaseClock *clock,
                                 KsPhaseClock       *sum);
/* Prints @sum as phase @name. */
void     ks_phase_print         (const char         *name,
                                 const KsPhaseClock *sum);
/* Prints the time since ks_phase_start() as phase @name and starts
 * @clock again, for phases that follow one another. */
void     ks_phase_next          (KsPhaseClock       *clock,
                                 const char         *name);

G_END_DECLS
