/* ks-render-cairo.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <cairo.h>

#include "ks-timeline-layout.h"

G_BEGIN_DECLS

typedef struct
{
  int           width;         /* whole picture, pixels */
  int           height;
  int           header_width;  /* the row label column */
  int           ruler_height;
  double        t0;            /* visible time range, ns */
  double        t1;
  double        scroll_y;      /* content offset of the first row shown */
  gboolean      dark;
  const guint8 *matches;       /* per string id, outlined; may be NULL */
} KsRenderOptions;

void      ks_render_options_init (KsRenderOptions        *options,
                                  KsTrace                *trace,
                                  int                     width,
                                  int                     height);
/* The time view of the options' time area. */
void      ks_render_options_view (const KsRenderOptions  *options,
                                  KsTimeView             *view);

/* Draws the ruler, the row labels and every row in view. */
void      ks_render_cairo        (KsTimelineLayout       *layout,
                                  cairo_t                *cr,
                                  const KsRenderOptions  *options);
gboolean  ks_render_png          (KsTimelineLayout       *layout,
                                  const KsRenderOptions  *options,
                                  const char             *filename,
                                  GError                **error);

G_END_DECLS
