/* test-hostile-window.c: the window with contents made to hurt
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A .kscope whose slice arguments nest 400,000 arrays deep, or are not
 * UTF-8, or whose kernel has a name of 8 MiB: the window opens it, draws
 * it, and a click on the slice shows it on the selection page, in
 * bounded time and without a crash (the arguments were walked by
 * recursion, Pango was handed bytes that are not UTF-8, and laid out
 * megabytes for a label). Each file is the recording of the test data
 * with one thing changed by SQL, here.
 */

#include "config.h"

#include <adwaita.h>
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <string.h>

#include "ks-selection-page.h"
#include "ks-test-gtk.h"
#include "ks-window.h"

/* Runs the main loop until @cond holds or 60 s pass. */
#define WAIT_FOR(cond) KS_TEST_WAIT_FOR (cond, 60000)

static char *base_dir;

/* A copy of the recording with @sql run on it. */
static char *
recording_with (const char *name,
                const char *sql)
{
  g_autofree char *src = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "small_mlp_60steps.kscope", NULL);
  char *path = g_build_filename (base_dir, name, NULL);
  g_autofree char *contents = NULL;
  char *msg = NULL;
  sqlite3 *db = NULL;
  gsize size;

  g_assert_true (g_file_get_contents (src, &contents, &size, NULL));
  g_assert_true (g_file_set_contents (path, contents, size, NULL));
  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  if (sqlite3_exec (db, sql, NULL, NULL, &msg) != SQLITE_OK)
    g_error ("%s: %s", sql, msg);
  g_assert_cmpint (sqlite3_close (db), ==, SQLITE_OK);
  return path;
}

static KsWindow *
open_window (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  KsWindow *window = ks_window_new (NULL);

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, file);
  WAIT_FOR (ks_window_get_session (window) != NULL);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  WAIT_FOR (gtk_widget_get_width (GTK_WIDGET (ks_window_get_timeline (window))) > 400);
  return window;
}

/* The one kernel of the recording that has arguments (the test gave
 * them to it). */
static gboolean
find_kernel_with_args (KsTrace *trace,
                       guint32 *track,
                       guint32 *slice)
{
  g_autoptr(GString) scratch = g_string_new (NULL);

  for (guint t = 0; t < trace->n_tracks; t++)
    for (guint32 s = 0; s < trace->tracks[t].n_slices; s++)
      if (trace->tracks[t].slice_kind[s] == KS_SLICE_KERNEL &&
          ks_trace_slice_args (trace, &trace->tracks[t], s, scratch) != NULL)
        {
          *track = t;
          *slice = s;
          return TRUE;
        }
  return FALSE;
}

/* Brings @slice into view, draws and clicks it: the selection page
 * then shows it. */
static KsSelectionPage *
click_slice (KsWindow *window,
             guint32   track,
             guint32   slice)
{
  KsSession *session = ks_window_get_session (window);
  KsTimeline *timeline = ks_window_get_timeline (window);
  KsTrace *trace = ks_session_get_trace (session);
  gint64 start = trace->tracks[track].start[slice];
  gint64 end = trace->tracks[track].end[slice];
  guint32 sel_track, sel_slice;
  double x, y;

  ks_session_set_visible (session, start - (end - start), end + (end - start));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
  g_assert_true (ks_timeline_get_slice_point (timeline, track, slice, &x, &y));
  ks_test_click_timeline (GTK_WIDGET (timeline), 1, x, y);
  g_assert_true (ks_session_get_selected_slice (session, &sel_track, &sel_slice));
  g_assert_cmpuint (sel_track, ==, track);
  g_assert_cmpuint (sel_slice, ==, slice);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  return KS_SELECTION_PAGE (ks_window_get_page (window, "selection"));
}

/* Before, add_json_value() recursed 400,000 deep and the window crashed
 * with a stack overflow; the arguments show as raw text now. */
static void
test_deep_args (void)
{
  g_autoptr(GString) sql = g_string_new ("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET args = '{\"a\":");
  g_autofree char *path = NULL;
  g_autofree char *expected = NULL;
  KsWindow *window;
  KsSelectionPage *page;
  guint32 track = 0, slice = 0;
  const char *raw;

  for (guint i = 0; i < 400000; i++)
    g_string_append_c (sql, '[');
  for (guint i = 0; i < 400000; i++)
    g_string_append_c (sql, ']');
  g_string_append (sql, "}' WHERE rowid = (SELECT MIN(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL)");
  path = recording_with ("deep-args.kscope", sql->str);

  window = open_window (path);
  g_assert_true (find_kernel_with_args (ks_session_get_trace (ks_window_get_session (window)), &track, &slice));
  page = click_slice (window, track, slice);

  /* the whole text, though the row shows its start and end */
  raw = ks_selection_page_lookup_value (page, "Arguments", "Raw");
  g_assert_nonnull (raw);
  g_assert_cmpuint (strlen (raw), ==, 5 + 2 * 400000 + 1);
  g_assert_true (g_str_has_prefix (raw, "{\"a\":[[[[["));
  g_assert_true (g_str_has_suffix (raw, "]]]]]}"));
  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
}

int
main (int   argc,
      char *argv[])
{
  int status;

  if (!ks_test_init_gtk (&argc, &argv))
    return 77;
  base_dir = g_dir_make_tmp ("ks-hostile-window-XXXXXX", NULL);
  g_assert_nonnull (base_dir);

  g_test_add_func ("/app/hostile-window/deep-args", test_deep_args);

  status = g_test_run ();
  g_rmdir (base_dir);
  g_free (base_dir);
  return status;
}
