/* test-render-util.h: what the rendering tests share
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-render.h"
#include "ks-trace-loader.h"

static inline KsTrace *
load_fixture (const char *name)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KsTrace *trace = ks_trace_load (file, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

static inline guint32
pixel_at (cairo_surface_t *surface,
          int              x,
          int              y)
{
  guint8 *data = cairo_image_surface_get_data (surface);
  int stride = cairo_image_surface_get_stride (surface);
  guint32 argb = *(guint32 *)(data + y * stride + x * 4);

  /* ARGB32 (opaque here) to 0xRRGGBBAA. */
  return ((argb & 0xffffff) << 8) | 0xff;
}

static inline gboolean
has_text (const KsPrims *prims,
          const char    *text)
{
  for (guint i = 0; i < prims->texts->len; i++)
    if (g_strcmp0 (g_array_index (prims->texts, KsPrimText, i).text, text) == 0)
      return TRUE;
  return FALSE;
}
