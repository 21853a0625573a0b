/* ks-palette.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-trace.h"

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

/* Stable colour for a slice name: the same name always gets the same
 * colour (a hash of the text, not of the id, so it holds across files). */
KsColor        ks_palette_name_color    (const char  *name,
                                         KsSliceKind  kind,
                                         gboolean     dark);
/* Colour for a GPU copy; memcpy by direction, memset its own hue. */
KsColor        ks_palette_copy_color    (KsSliceKind  kind,
                                         guint8       copy_kind,
                                         gboolean     dark);
/* Black or white, whichever reads better on @background. */
KsColor        ks_palette_text_color    (KsColor      background);
KsColor        ks_color_shade           (KsColor      color,
                                         double       factor);
char          *ks_color_to_string       (KsColor      color);

G_END_DECLS
