/* ks-timeline-steps.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-timeline"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>

#include "ks-timeline-private.h"

/* The steps the analysis marked: the warm-up tinted behind the rows with
 * its name at the top, so that the user sees what the figures leave out;
 * inferred steps outlined dotted, since no event of the trace is them. */

#define DOT 2
#define DOT_GAP 3

/* A dotted horizontal line from @x0 to @x1, clipped to [@lo, @hi). */
static void
dotted_h (GtkSnapshot *snapshot,
          double       x0,
          double       x1,
          double       y,
          double       lo,
          double       hi,
          KsColor      c)
{
  double from = MAX (x0, lo), to = MIN (x1, hi);

  /* dots on a grid from x0, so that they do not crawl while panning */
  if (from > x0)
    from = x0 + floor ((from - x0) / (DOT + DOT_GAP)) * (DOT + DOT_GAP);
  for (double x = from; x < to; x += DOT + DOT_GAP)
    append_rect (snapshot, x, y, MIN (DOT, to - x), 1, c);
}

static void
dotted_v (GtkSnapshot *snapshot,
          double       x,
          double       y0,
          double       y1,
          KsColor      c)
{
  for (double y = y0; y < y1; y += DOT + DOT_GAP)
    append_rect (snapshot, x, y, 1, MIN (DOT, y1 - y), c);
}

void
_ks_timeline_draw_steps (KsTimeline       *self,
                         GtkSnapshot      *snapshot,
                         PangoLayout      *pl,
                         const KsTheme    *theme,
                         const KsTimeView *view,
                         int               width,
                         int               height)
{
  KsAnalysis *analysis = ks_session_get_analysis (self->session);
  /* the foreground, faint: a tint that leaves the slices readable */
  KsColor tint = (theme->foreground & 0xffffff00) | 0x14;
  const KsStep *steps;
  double top = KS_RULER_HEIGHT, bottom = height;
  guint n;

  if (analysis == NULL)
    return;
  steps = ks_analysis_get_steps (analysis, &n);
  for (guint i = 0; i < n; i++)
    {
      double x0, x1;

      if (!steps[i].warmup && !steps[i].inferred)
        continue;
      x0 = KS_HEADER_WIDTH + (steps[i].start - view->t0) / view->ns_per_px;
      x1 = KS_HEADER_WIDTH + (steps[i].end - view->t0) / view->ns_per_px;
      if (x1 < KS_HEADER_WIDTH || x0 > width)
        continue;

      if (steps[i].warmup)
        {
          double a = MAX (x0, KS_HEADER_WIDTH), b = MIN (x1, width);

          append_rect (snapshot, a, top, MAX (1, b - a), bottom - top, tint);
          if (b - a > 40)
            _ks_timeline_draw_text (snapshot, pl, _("warm-up"), a + 4, top + 2, b - a - 8, 14,
                                    theme->dim_foreground);
        }
      if (steps[i].inferred)
        {
          dotted_h (snapshot, x0, x1, top, KS_HEADER_WIDTH, width, theme->dim_foreground);
          dotted_h (snapshot, x0, x1, bottom - 1, KS_HEADER_WIDTH, width, theme->dim_foreground);
          if (x0 >= KS_HEADER_WIDTH)
            dotted_v (snapshot, x0, top, bottom, theme->dim_foreground);
          if (x1 <= width)
            dotted_v (snapshot, x1 - 1, top, bottom, theme->dim_foreground);
        }
    }
}
