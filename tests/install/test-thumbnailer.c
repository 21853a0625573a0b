/* test-thumbnailer.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Runs kinescope-thumbnailer as a file manager does and checks the
 * picture: the requested size, and a drawn timeline (many colours, a good
 * share of the pixels unlike the background), not an empty canvas. Bad
 * input gives exit status 1, a message naming the file, and no file;
 * usage errors exit status 2. */

#include "config.h"

#include <cairo.h>
#include <gio/gio.h>
#include <glib/gstdio.h>

typedef struct
{
  int    width;
  int    height;
  guint  n_colors;
  double foreground_share;  /* pixels unlike the most common colour */
  double top_share;         /* the same, in the top quarter (GPU streams) */
} Picture;

static char *
thumbnailer_path (void)
{
  return g_build_filename (g_getenv ("KS_BUILD_ROOT"), "src", "thumbnailer",
                           "kinescope-thumbnailer", NULL);
}

static char *
fixture_path (const char *name)
{
  return g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);
}

static int
run_thumbnailer (const char * const *args,
                 char              **err)
{
  g_autofree char *exe = thumbnailer_path ();
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  int status = -1;

  g_ptr_array_add (argv, exe);
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (char *)args[i]);
  g_ptr_array_add (argv, NULL);

  g_spawn_sync (NULL, (char **)argv->pdata, NULL, G_SPAWN_DEFAULT, NULL, NULL,
                NULL, err, &status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (status));

  return WEXITSTATUS (status);
}

static void
read_picture (const char *png,
              Picture    *pic)
{
  cairo_surface_t *surface = cairo_image_surface_create_from_png (png);
  g_autoptr(GHashTable) colors = g_hash_table_new (NULL, NULL);
  guint32 background = 0;
  guint best = 0;
  guint64 unlike = 0, top_unlike = 0;
  const guint8 *data;
  int stride;
  GHashTableIter iter;
  gpointer key, value;

  g_assert_cmpint (cairo_surface_status (surface), ==, CAIRO_STATUS_SUCCESS);
  pic->width = cairo_image_surface_get_width (surface);
  pic->height = cairo_image_surface_get_height (surface);
  data = cairo_image_surface_get_data (surface);
  stride = cairo_image_surface_get_stride (surface);

  for (int y = 0; y < pic->height; y++)
    for (int x = 0; x < pic->width; x++)
      {
        guint32 px = *(const guint32 *)(data + y * stride + x * 4);
        guint n = GPOINTER_TO_UINT (g_hash_table_lookup (colors, GUINT_TO_POINTER (px)));

        g_hash_table_insert (colors, GUINT_TO_POINTER (px), GUINT_TO_POINTER (n + 1));
      }

  g_hash_table_iter_init (&iter, colors);
  while (g_hash_table_iter_next (&iter, &key, &value))
    if (GPOINTER_TO_UINT (value) > best)
      {
        best = GPOINTER_TO_UINT (value);
        background = GPOINTER_TO_UINT (key);
      }

  for (int y = 0; y < pic->height; y++)
    for (int x = 0; x < pic->width; x++)
      if (*(const guint32 *)(data + y * stride + x * 4) != background)
        {
          unlike++;
          if (y < pic->height / 4)
            top_unlike++;
        }

  pic->n_colors = g_hash_table_size (colors);
  pic->foreground_share = (double)unlike / (pic->width * pic->height);
  pic->top_share = (double)top_unlike / (pic->width * (pic->height / 4));
  cairo_surface_destroy (surface);
}

static char *
temp_png (const char *name)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = g_dir_make_tmp ("kinescope-thumb-XXXXXX", &error);

  g_assert_no_error (error);
  return g_build_filename (dir, name, NULL);
}

static void
remove_png (const char *png)
{
  g_autofree char *dir = g_path_get_dirname (png);

  g_unlink (png);
  g_rmdir (dir);
}

static void
check_fixture (const char *fixture,
               const char *size,
               int         expect_width,
               int         expect_height)
{
  g_autofree char *input = fixture_path (fixture);
  g_autofree char *png = temp_png ("thumb.png");
  g_autofree char *err = NULL;
  const char *args[] = { "-s", size, input, png, NULL };
  Picture pic;

  g_assert_cmpint (run_thumbnailer (args, &err), ==, 0);
  g_assert_true (g_file_test (png, G_FILE_TEST_IS_REGULAR));
  read_picture (png, &pic);

  g_test_message ("%s at %s: %dx%d, %u colours, %.1f %% drawn, %.1f %% of the top quarter",
                  fixture, size, pic.width, pic.height, pic.n_colors,
                  100 * pic.foreground_share, 100 * pic.top_share);
  g_assert_cmpint (pic.width, ==, expect_width);
  g_assert_cmpint (pic.height, ==, expect_height);
  /* A timeline: slices of many name colours over a good part of the picture. */
  g_assert_cmpuint (pic.n_colors, >=, 16);
  g_assert_cmpfloat (pic.foreground_share, >=, 0.10);
  /* GPU streams come first: the top of the picture holds slices too. */
  g_assert_cmpfloat (pic.top_share, >=, 0.05);

  remove_png (png);
}

static void
test_thumbnail_fixtures (void)
{
  check_fixture ("loader_bound.pt.trace.json.gz", "256", 256, 192);
  check_fixture ("gpt_3steps.pt.trace.json.gz", "128", 128, 96);
  check_fixture ("seed_cnn.pt.trace.json.gz", "512", 512, 384);
}

static void
test_thumbnail_uri (void)
{
  g_autofree char *input = fixture_path ("workers_pinned.pt.trace.json.gz");
  g_autofree char *uri = g_filename_to_uri (input, NULL, NULL);
  g_autofree char *png = temp_png ("thumb.png");
  g_autofree char *err = NULL;
  const char *args[] = { "-s", "256", uri, png, NULL };
  Picture pic;

  /* File managers may pass a URI (%u) rather than a path. */
  g_assert_cmpint (run_thumbnailer (args, &err), ==, 0);
  read_picture (png, &pic);
  g_assert_cmpint (pic.width, ==, 256);
  g_assert_cmpuint (pic.n_colors, >=, 16);
  remove_png (png);
}

static void
test_thumbnail_bad_input (void)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *png = temp_png ("thumb.png");
  g_autofree char *dir = g_path_get_dirname (png);
  g_autofree char *garbage = g_build_filename (dir, "garbage.kscope", NULL);
  g_autofree char *missing = g_build_filename (dir, "missing.kscope", NULL);
  g_autofree char *err = NULL;

  /* Not a trace at all: a clear error naming the file, no picture. */
  g_file_set_contents (garbage, "This is a text file, not a trace.\n", -1, &error);
  g_assert_no_error (error);

  {
    const char *args[] = { "-s", "256", garbage, png, NULL };

    g_assert_cmpint (run_thumbnailer (args, &err), ==, 1);
    g_assert_nonnull (strstr (err, "garbage.kscope"));
    g_assert_false (g_file_test (png, G_FILE_TEST_EXISTS));
    g_clear_pointer (&err, g_free);
  }

  {
    const char *args[] = { "-s", "256", missing, png, NULL };

    g_assert_cmpint (run_thumbnailer (args, &err), ==, 1);
    g_assert_nonnull (strstr (err, "missing.kscope"));
    g_assert_false (g_file_test (png, G_FILE_TEST_EXISTS));
    g_clear_pointer (&err, g_free);
  }

  g_unlink (garbage);
  g_rmdir (dir);
}

static void
test_thumbnail_usage (void)
{
  g_autofree char *input = fixture_path ("loader_bound.pt.trace.json.gz");
  g_autofree char *err = NULL;
  const char *one_arg[] = { input, NULL };
  const char *bad_size[] = { "-s", "2", input, "/nonexistent/x.png", NULL };
  const char *not_a_number[] = { "-s", "big", input, "/nonexistent/x.png", NULL };

  g_assert_cmpint (run_thumbnailer (one_arg, &err), ==, 2);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_thumbnailer (bad_size, &err), ==, 2);
  g_clear_pointer (&err, g_free);
  g_assert_cmpint (run_thumbnailer (not_a_number, &err), ==, 2);
}

static void
test_thumbnail_unwritable (void)
{
  g_autofree char *input = fixture_path ("loader_bound.pt.trace.json.gz");
  g_autofree char *err = NULL;
  const char *args[] = { "-s", "64", input, "/nonexistent-dir/thumb.png", NULL };

  g_assert_cmpint (run_thumbnailer (args, &err), ==, 1);
  g_assert_nonnull (strstr (err, "/nonexistent-dir/thumb.png"));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/thumbnailer/fixtures", test_thumbnail_fixtures);
  g_test_add_func ("/thumbnailer/uri", test_thumbnail_uri);
  g_test_add_func ("/thumbnailer/bad-input", test_thumbnail_bad_input);
  g_test_add_func ("/thumbnailer/usage", test_thumbnail_usage);
  g_test_add_func ("/thumbnailer/unwritable", test_thumbnail_unwritable);

  return g_test_run ();
}
