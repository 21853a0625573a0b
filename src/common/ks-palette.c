/* ks-palette.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-palette"

#include "config.h"

#include <math.h>

#include "ks-palette.h"

static const KsTheme light_theme = {
  .dark = FALSE,
  .background = 0xffffffff,
  .foreground = 0x1e1e1eff,
  .dim_foreground = 0x5e5c64ff,
  .header_background = 0xf6f5f4ff,
  .group_background = 0xebebedff,
  .row_separator = 0xdeddda80,
  .grid = 0x00000014,
  .ruler_background = 0xfafafaff,
  .folded = 0x9a9996ff,
  .counter_fill = 0x3584e455,
  .counter_line = 0x1c71d8ff,
  .label_backdrop = 0xffffffd9,
  .selection = 0x000000ff,
  .range_fill = 0x3584e42a,
  .match_outline = 0xe5a50aff,
  .flow = 0xc01c28ff,
};

static const KsTheme dark_theme = {
  .dark = TRUE,
  .background = 0x1e1e1eff,
  .foreground = 0xf6f5f4ff,
  .dim_foreground = 0xb0afacff,
  .header_background = 0x2a2a2aff,
  .group_background = 0x333338ff,
  .row_separator = 0x45454a80,
  .grid = 0xffffff14,
  .ruler_background = 0x242424ff,
  .folded = 0x77767bff,
  .counter_fill = 0x62a0ea55,
  .counter_line = 0x99c1f1ff,
  .label_backdrop = 0x1e1e1ed9,
  .selection = 0xffffffff,
  .range_fill = 0x62a0ea30,
  .match_outline = 0xf8e45cff,
  .flow = 0xff7b63ff,
};

const KsTheme *
ks_theme_get (gboolean dark)
{
  return dark ? &dark_theme : &light_theme;
}

static KsColor
pack (double r,
      double g,
      double b,
      double a)
{
  return ((guint32)CLAMP (lround (r * 255), 0, 255) << 24) |
         ((guint32)CLAMP (lround (g * 255), 0, 255) << 16) |
         ((guint32)CLAMP (lround (b * 255), 0, 255) << 8) |
         (guint32)CLAMP (lround (a * 255), 0, 255);
}

KsColor
ks_color_from_hsl (double h,
                   double s,
                   double l)
{
  double c = (1 - fabs (2 * l - 1)) * s;
  double hp = fmod (h, 360.0) / 60.0;
  double x = c * (1 - fabs (fmod (hp, 2.0) - 1));
  double m = l - c / 2;
  double r = 0, g = 0, b = 0;

  if (hp < 1)      { r = c; g = x; }
  else if (hp < 2) { r = x; g = c; }
  else if (hp < 3) { g = c; b = x; }
  else if (hp < 4) { g = x; b = c; }
  else if (hp < 5) { r = x; b = c; }
  else             { r = c; b = x; }

  return pack (r + m, g + m, b + m, 1.0);
}

KsColor
ks_palette_text_color (KsColor background)
{
  double lum = 0.2126 * KS_COLOR_R (background) +
               0.7152 * KS_COLOR_G (background) +
               0.0722 * KS_COLOR_B (background);

  return lum > 0.55 ? 0x000000e0 : 0xffffffff;
}

KsColor
ks_color_shade (KsColor color,
                double  factor)
{
  return pack (KS_COLOR_R (color) * factor,
               KS_COLOR_G (color) * factor,
               KS_COLOR_B (color) * factor,
               KS_COLOR_A (color));
}

char *
ks_color_to_string (KsColor color)
{
  return g_strdup_printf ("#%08x", color);
}
