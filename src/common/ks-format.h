/* ks-format.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* How every part of Kinescope writes times and sizes for people: the
 * command line, the analysis' advice, the timeline and the pages. One
 * unit system: SI time units (ns, µs, ms, s, then min and h) and binary
 * byte units (KiB, MiB, GiB). Machine output (CSV, JSON) writes plain
 * integers instead. */

/* Tick spacing for a time axis: the smallest "nice" step (1, 2 or 5
 * times a power of ten nanoseconds; above ten seconds 15 s, 30 s, 1, 2,
 * 5, 10, 15, 30 min, 1, 2, 3, 6, 12 h, then days) whose ticks lie at
 * least @min_px apart when @span_ns covers @width_px pixels. */
gint64  ks_time_tick_step        (double  span_ns,
                                  double  width_px,
                                  double  min_px);

/* A tick label for time @t_ns on an axis with ticks every @step_ns
 * whose largest time (in magnitude) is @scale_ns: every label of one
 * axis gets the same unit, with as many decimals as the step needs. */
char   *ks_time_format_tick      (gint64  t_ns,
                                  gint64  step_ns,
                                  gint64  scale_ns);

/* A human duration with three significant digits: "850 ns",
 * "12.4 µs", "1.25 s", "2 min 03 s", "1 h 02 min". */
char   *ks_time_format_duration  (gint64  ns);

/* A point in time since the trace start, to the nanosecond:
 * "39.962350 ms" below one second, "12.000000001 s" from there. */
char   *ks_time_format_timestamp (gint64  ns);

/* A size in binary units: "512 bytes", "128.0 KiB", "3.4 MiB" (the
 * space before the unit does not break). */
char   *ks_format_bytes          (guint64 bytes);

/* Labels are cut to what can be drawn before Pango sees them: a name
 * of megabytes would take Pango minutes to lay out for a few hundred
 * pixels. Widgets (the selection page, tooltips, table cells) show at
 * most this many characters. */
#define KS_TEXT_MAX_CHARS 1024

/* The characters of a label @width_px wide: no glyph of the fonts
 * drawn is narrower than 2 px. */
#define KS_LABEL_MAX_CHARS(width_px) ((gsize) MAX ((width_px), 0) / 2 + 8)

/* @text (valid UTF-8) cut to at most @max_chars characters, "…" among
 * them: at the end, or in the @middle (the start and the end of a name
 * kept); NULL when it is short enough as it is. */
char   *ks_format_cut_text       (const char *text,
                                  gsize       max_chars,
                                  gboolean    middle);

/* ks_format_cut_text() as a new string, also when it is not cut. */
char   *ks_format_dup_cut_text   (const char *text,
                                  gsize       max_chars,
                                  gboolean    middle);

/* Parses "12.5ms", "3 s", "400us", "1500" (ns), "1.2e6ns". */
gboolean ks_time_parse           (const char *text,
                                  gint64     *ns);

G_END_DECLS
