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

#include "ks-format.h"
#include "ks-selection-page.h"
#include "ks-test-gtk.h"
#include "ks-window.h"

/* Runs the main loop until @cond holds or 60 s pass. */
#define WAIT_FOR(cond) KS_TEST_WAIT_FOR (cond, 60000)

#define LONG_NAME_BYTES (8 << 20)

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

/* Before, the bytes went to the label as they were, and Pango refused
 * them; they are repaired as the file is read. */
static void
test_args_utf8 (void)
{
  g_autofree char *path = recording_with ("utf8-args.kscope",
                                          "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET args = "
                                          "CAST(X'7B2261223A2268C3FF69222C2262223A22C3BC227D' AS TEXT) "
                                          "WHERE rowid = (SELECT MIN(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL)");
  KsWindow *window = open_window (path);
  KsSelectionPage *page;
  guint32 track = 0, slice = 0;

  g_assert_true (find_kernel_with_args (ks_session_get_trace (ks_window_get_session (window)), &track, &slice));
  page = click_slice (window, track, slice);
  /* {"a":"h\xc3\xffi","b":"ü"}: two invalid sequences, and a valid ü */
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Arguments", "a"), ==, "h\ufffd\ufffdi");
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Arguments", "b"), ==, "ü");
  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
}

/* The label of a widget under @root whose text starts with @prefix. */
static GtkWidget *
find_label_with_prefix (GtkWidget  *root,
                        const char *prefix)
{
  if (GTK_IS_LABEL (root) && g_str_has_prefix (gtk_label_get_text (GTK_LABEL (root)), prefix))
    return root;
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    {
      GtkWidget *found = find_label_with_prefix (c, prefix);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The widgets under @root whose text or tooltip runs past @max_chars
 * characters, counted in @n (with their names in the log). */
static void
count_long_texts (GtkWidget *root,
                  glong      max_chars,
                  guint     *n)
{
  const char *tooltip = gtk_widget_get_tooltip_text (root);

  if ((GTK_IS_LABEL (root) && g_utf8_strlen (gtk_label_get_text (GTK_LABEL (root)), -1) > max_chars) ||
      (tooltip != NULL && g_utf8_strlen (tooltip, -1) > max_chars))
    {
      g_test_message ("%s under %s has a text of %ld characters", G_OBJECT_TYPE_NAME (root),
                      G_OBJECT_TYPE_NAME (gtk_widget_get_parent (root)),
                      GTK_IS_LABEL (root) ? g_utf8_strlen (gtk_label_get_text (GTK_LABEL (root)), -1) : -1);
      (*n)++;
    }
  for (GtkWidget *c = gtk_widget_get_first_child (root); c != NULL; c = gtk_widget_get_next_sibling (c))
    count_long_texts (c, max_chars, n);
}

/* A kernel named with 8 MiB of "n": before, the window froze in Pango
 * for minutes; the timeline, its tooltip and the selection page draw a
 * cut name now, and the page keeps the whole one. */
static void
test_long_name (void)
{
  g_autofree char *path = NULL;
  g_autofree char *markup = NULL;
  KsWindow *window;
  KsSelectionPage *page;
  KsTimeline *timeline;
  KsTrace *trace;
  GtkWidget *heading;
  guint32 track = 0, slice = 0;
  double x, y;
  guint n_long = 0;
  gint64 start = g_get_monotonic_time ();

  path = recording_with ("long-name.kscope",
                         "UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET args = '{\"x\":1}' "
                         "WHERE rowid = (SELECT MIN(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL);"
                         "UPDATE StringIds SET value = printf('%.*c', 8388608, 'n') WHERE id IN "
                         "(SELECT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL "
                         " WHERE rowid = (SELECT MIN(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL) "
                         " UNION SELECT shortName FROM CUPTI_ACTIVITY_KIND_KERNEL "
                         " WHERE rowid = (SELECT MIN(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL))");
  window = open_window (path);
  timeline = ks_window_get_timeline (window);
  trace = ks_session_get_trace (ks_window_get_session (window));
  g_assert_true (find_kernel_with_args (trace, &track, &slice));
  g_assert_cmpuint (strlen (ks_trace_string (trace, trace->tracks[track].name_id[slice])), ==, LONG_NAME_BYTES);

  page = click_slice (window, track, slice);
  g_assert_cmpuint (strlen (ks_selection_page_lookup_value (page, "Slice", "Name")), ==, LONG_NAME_BYTES);
  heading = find_label_with_prefix (GTK_WIDGET (page), "nnnn");
  g_assert_nonnull (heading);
  g_assert_cmpuint (g_utf8_strlen (gtk_label_get_text (GTK_LABEL (heading)), -1), <=, KS_TEXT_MAX_CHARS);
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (heading)), "…"));

  g_assert_true (ks_timeline_get_slice_point (timeline, track, slice, &x, &y));
  markup = ks_timeline_dup_tooltip_markup (timeline, x, y, NULL);
  g_assert_nonnull (markup);
  g_assert_true (g_str_has_prefix (markup, "<b>nnnn"));
  g_assert_cmpuint (strlen (markup), <, KS_TEXT_MAX_CHARS + 200);

  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  /* nowhere in the window: a sentence of the advice may quote the cut name */
  count_long_texts (GTK_WIDGET (window), 4 * KS_TEXT_MAX_CHARS, &n_long);
  g_assert_cmpuint (n_long, ==, 0);
  g_test_message ("opened, drawn and selected in %.1f s", (g_get_monotonic_time () - start) / 1e6);
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
  g_test_add_func ("/app/hostile-window/args-utf8", test_args_utf8);
  g_test_add_func ("/app/hostile-window/long-name", test_long_name);

  status = g_test_run ();
  g_rmdir (base_dir);
  g_free (base_dir);
  return status;
}
