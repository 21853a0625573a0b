/* ks-palette.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Colours are packed 0xRRGGBBAA so that per-string tables stay small. */
typedef guint32 KsColor;

#define KS_COLOR_R(c) ((((c) >> 24) & 0xff) / 255.0)
#define KS_COLOR_G(c) ((((c) >> 16) & 0xff) / 255.0)
#define KS_COLOR_B(c) ((((c) >>  8) & 0xff) / 255.0)
#define KS_COLOR_A(c) ((((c)      ) & 0xff) / 255.0)

typedef struct
{
  gboolean dark;
  KsColor  background;
  KsColor  foreground;
  KsColor  dim_foreground;
  KsColor  header_background;
  KsColor  group_background;
  KsColor  row_separator;
  KsColor  grid;
  KsColor  ruler_background;
  KsColor  folded;
  KsColor  counter_fill;
  KsColor  counter_line;
  KsColor  label_backdrop;   /* behind a label drawn over a graph */
  KsColor  selection;
  KsColor  range_fill;
  KsColor  match_outline;
  KsColor  flow;
} KsTheme;

const KsTheme *ks_theme_get             (gboolean     dark);

/* Colour from hue (degrees), saturation and lightness (0..1). */
KsColor        ks_color_from_hsl        (double       h,
                                         double       s,
                                         double       l);
/* Black or white, whichever reads better on @background. */
KsColor        ks_palette_text_color    (KsColor      background);
KsColor        ks_color_shade           (KsColor      color,
                                         double       factor);
char          *ks_color_to_string       (KsColor      color);

G_END_DECLS
