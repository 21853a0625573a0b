/* test-cli-render.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <cairo.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include <string.h>

static const char *cli;

static int
run (char       **out_err,
     const char  *first,
     ...)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  const char *arg;
  va_list ap;
  int status = 0;

  g_ptr_array_add (args, (char *)cli);
  g_ptr_array_add (args, (char *)"render");
  va_start (ap, first);
  for (arg = first; arg != NULL; arg = va_arg (ap, const char *))
    g_ptr_array_add (args, (char *)arg);
  va_end (ap);
  g_ptr_array_add (args, NULL);

  g_spawn_sync (NULL, (char **)args->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, out_err, &status, &error);
  g_assert_no_error (error);
  return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

static char *
fixture (const char *name)
{
  return g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);
}

static void
test_render (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-cli-render-XXXXXX", NULL);
  g_autofree char *out = g_build_filename (dir, "out.png", NULL);
  g_autofree char *trace = fixture ("gpt_3steps.pt.trace.json.gz");
  g_autofree char *err = NULL;
  cairo_surface_t *surface;
  guint8 *data;
  int stride, saturated = 0;

  g_assert_cmpint (run (&err, trace, "-o", out, "--size", "1280x720", "--range", "10ms:30ms", NULL), ==, 0);
  surface = cairo_image_surface_create_from_png (out);
  g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);
  g_assert_cmpint (cairo_image_surface_get_width (surface), ==, 1280);
  g_assert_cmpint (cairo_image_surface_get_height (surface), ==, 720);

  /* Slices are drawn: a good share of the time area is saturated colour. */
  data = cairo_image_surface_get_data (surface);
  stride = cairo_image_surface_get_stride (surface);
  for (int y = 30; y < 720; y += 2)
    for (int x = 230; x < 1280; x += 2)
      {
        guint32 p = *(guint32 *)(data + y * stride + x * 4);
        int r = (p >> 16) & 0xff, g = (p >> 8) & 0xff, b = p & 0xff;

        if (ABS (r - g) > 24 || ABS (g - b) > 24 || ABS (r - b) > 24)
          saturated++;
      }
  g_assert_cmpint (saturated, >, 20000);
  cairo_surface_destroy (surface);

  /* Without a height the picture is as tall as the rows. */
  g_assert_cmpint (run (NULL, trace, "-o", out, "--size", "900x", NULL), ==, 0);
  surface = cairo_image_surface_create_from_png (out);
  g_assert_cmpint (cairo_image_surface_get_width (surface), ==, 900);
  g_assert_cmpint (cairo_image_surface_get_height (surface), >, 720);
  cairo_surface_destroy (surface);

  g_unlink (out);
  g_rmdir (dir);
}

static void
test_errors (void)
{
  g_autofree char *trace = fixture ("seed_cnn.pt.trace.json.gz");
  g_autofree char *err = NULL;

  /* Usage errors: 2. */
  g_assert_cmpint (run (NULL, trace, NULL), ==, 2);
  g_assert_cmpint (run (NULL, trace, "-o", "/tmp/x.png", "--range", "5ms:3ms", NULL), ==, 2);
  g_assert_cmpint (run (NULL, trace, "-o", "/tmp/x.png", "--size", "tiny", NULL), ==, 2);

  /* A file that is not a trace: 1, and the message names it. */
  g_assert_cmpint (run (&err, "/nonexistent/trace.json", "-o", "/tmp/x.png", NULL), ==, 1);
  g_assert_nonnull (strstr (err, "trace.json"));
  g_clear_pointer (&err, g_free);

  /* An output that cannot be written: 1. */
  g_assert_cmpint (run (&err, trace, "-o", "/nonexistent/dir/x.png", NULL), ==, 1);
  g_assert_nonnull (strstr (err, "x.png"));
}

/* A memory snapshot: the allocations drawn by address below the curves.
 * The 512 MiB segment of frag holds its blocks for most of the run: the
 * blocks row (the picture's lowest 160 pixels) is mostly colour. */
static void
test_render_memsnap (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-cli-render-XXXXXX", NULL);
  g_autofree char *out = g_build_filename (dir, "out.png", NULL);
  g_autofree char *trace = fixture ("memsnap_frag.pickle");
  cairo_surface_t *surface;
  guint8 *data;
  int stride, height, saturated = 0, total = 0;

  g_assert_cmpint (run (NULL, trace, "-o", out, "--size", "1000x", NULL), ==, 0);
  surface = cairo_image_surface_create_from_png (out);
  g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);
  height = cairo_image_surface_get_height (surface);
  data = cairo_image_surface_get_data (surface);
  stride = cairo_image_surface_get_stride (surface);
  for (int y = height - 158; y < height - 2; y++)
    for (int x = 230; x < 1000; x++)
      {
        guint32 p = *(guint32 *)(data + y * stride + x * 4);
        int r = (p >> 16) & 0xff, g = (p >> 8) & 0xff, b = p & 0xff;

        saturated += ABS (r - g) > 24 || ABS (g - b) > 24 || ABS (r - b) > 24;
        total++;
      }
  g_assert_cmpint (saturated, >, total / 4);
  /* frag's first block is the whole 512 MiB segment, from the start: the
   * first column holds it over 512 of the rows' 596 MiB */
  saturated = 0;
  for (int y = height - 158; y < height - 2; y++)
    {
      guint32 p = *(guint32 *)(data + y * stride + 222 * 4);
      int r = (p >> 16) & 0xff, g = (p >> 8) & 0xff, b = p & 0xff;

      saturated += ABS (r - g) > 24 || ABS (g - b) > 24 || ABS (r - b) > 24;
    }
  g_assert_cmpint (saturated, >=, (int) (156.0 * 512 / 596) - 2);
  cairo_surface_destroy (surface);
  g_unlink (out);
  g_rmdir (dir);
}

/* A profiler's trace and the snapshot of its run: one picture, the
 * blocks row under the trace's rows; a snapshot of another run is
 * refused, naming both files. */
static void
test_render_with_snapshot (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-cli-render-XXXXXX", NULL);
  g_autofree char *out = g_build_filename (dir, "out.png", NULL);
  g_autofree char *trace = fixture ("memsnap_train.pt.trace.json.gz");
  g_autofree char *other = fixture ("gpt_3steps.pt.trace.json.gz");
  g_autofree char *snap = fixture ("memsnap_train.pickle");
  g_autofree char *err = NULL;
  cairo_surface_t *surface;
  int with, alone;

  g_assert_cmpint (run (NULL, trace, "-o", out, "--size", "800x", NULL), ==, 0);
  surface = cairo_image_surface_create_from_png (out);
  alone = cairo_image_surface_get_height (surface);
  cairo_surface_destroy (surface);
  g_assert_cmpint (run (NULL, trace, snap, "-o", out, "--size", "800x", NULL), ==, 0);
  surface = cairo_image_surface_create_from_png (out);
  g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);
  with = cairo_image_surface_get_height (surface);
  cairo_surface_destroy (surface);
  /* one more row: the blocks, 160 pixels */
  g_assert_cmpint (with - alone, ==, 160);

  g_assert_cmpint (run (&err, other, snap, "-o", out, NULL), ==, 1);
  g_assert_nonnull (strstr (err, "do not overlap in time"));
  g_assert_nonnull (strstr (err, "gpt_3steps.pt.trace.json.gz"));
  g_assert_nonnull (strstr (err, "memsnap_train.pickle"));
  g_unlink (out);
  g_rmdir (dir);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_assert_cmpint (argc, ==, 2);
  cli = argv[1];

  g_test_add_func ("/cli/render/png", test_render);
  g_test_add_func ("/cli/render/errors", test_errors);
  g_test_add_func ("/cli/render/memory-snapshot", test_render_memsnap);
  g_test_add_func ("/cli/render/with-snapshot", test_render_with_snapshot);

  return g_test_run ();
}
