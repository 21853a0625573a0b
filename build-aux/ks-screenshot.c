/* ks-screenshot.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Takes the AppStream screenshots (the PNG files in data/screenshots) from the
 * application itself: opens the demo trace in a real window and renders
 * the window's content to PNG files with the window's own renderer.
 *
 *   xvfb-run -a -s "-screen 0 1920x1080x24" ks-screenshot TRACE OUTDIR
 *
 * or `meson compile -C _build screenshots`. With --tour it takes each
 * side page instead (NAME-summary.png ... NAME-selection.png), in the
 * style and size asked for, or the pages of --pages, then with --compare
 * the Compare view (NAME-compare.png): docs/screenshots/take.sh runs it
 * in light, dark, zh_CN and 800×600, and on an nvidia-smi log, a rank
 * folder and a before/after pair. */

#define G_LOG_DOMAIN "ks-screenshot"

#include "config.h"

#include <adwaita.h>
#include <stdio.h>

#include "ks-application.h"
#include "ks-paths.h"
#include "ks-window.h"

#define WIDTH  1600
#define HEIGHT 900

static void
iterate_for (guint ms)
{
  gint64 until = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < until)
    {
      while (g_main_context_iteration (NULL, FALSE))
        ;
      g_usleep (10000);
    }
}

static gboolean
save (GtkWidget  *window,
      const char *dir,
      const char *name,
      GError    **error)
{
  /* The window's content without the client-side shadow around it. */
  GtkWidget *content = gtk_widget_get_first_child (window);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GdkPaintable) paintable = gtk_widget_paintable_new (content);
  g_autoptr(GdkTexture) texture = NULL;
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  GskRenderNode *node;
  int w = gtk_widget_get_width (content);
  int h = gtk_widget_get_height (content);

  /* The window's own background lies outside its content: without it the
   * side panel would be transparent, which reads as white in the dark
   * style. libadwaita 1.2's window_bg_color. */
  {
    GdkRGBA bg;

    gdk_rgba_parse (&bg, adw_style_manager_get_dark (adw_style_manager_get_default ()) ? "#242424" : "#fafafa");
    gtk_snapshot_append_color (snapshot, &bg, &GRAPHENE_RECT_INIT (0, 0, w, h));
  }
  gdk_paintable_snapshot (paintable, snapshot, w, h);
  node = gtk_snapshot_free_to_node (snapshot);
  if (node == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: nothing was drawn", name);
      return FALSE;
    }

  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (window)), node,
                                         &GRAPHENE_RECT_INIT (0, 0, w, h));
  gsk_render_node_unref (node);

  if (!gdk_texture_save_to_png (texture, path))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: could not be written", path);
      return FALSE;
    }

  g_print ("%s: %d×%d\n", path, w, h);
  return TRUE;
}

/* The longest kernel of the trace, to show its details and launch flow. */
static gboolean
find_longest_kernel (KsTrace *trace,
                     guint32 *track_out,
                     guint32 *slice_out)
{
  gint64 best = -1;

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind != KS_TRACK_STREAM)
        continue;
      for (guint32 i = 0; i < track->n_slices; i++)
        if (track->slice_kind[i] == KS_SLICE_KERNEL && track->end[i] - track->start[i] > best)
          {
            best = track->end[i] - track->start[i];
            *track_out = t;
            *slice_out = i;
          }
    }

  return best >= 0;
}

/* The second ProfilerStep#N: a whole training step, for range statistics. */
static gboolean
find_step (KsTrace *trace,
           gint64  *start,
           gint64  *end)
{
  guint found = 0;

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind != KS_TRACK_THREAD)
        continue;
      for (guint32 i = 0; i < track->n_slices; i++)
        if (g_str_has_prefix (ks_trace_string (trace, track->name_id[i]), "ProfilerStep#") &&
            ++found == 2)
          {
            *start = track->start[i];
            *end = track->end[i];
            return TRUE;
          }
    }

  return FALSE;
}

/* Each side page in turn (or those of @only), a kernel selected for the
 * Selection page. */
static gboolean
tour (KsWindow          *window,
      const char        *dir,
      const char        *name,
      const char *const *only,
      GError           **error)
{
  static const char *const every_page[] = {
    "summary", "steps", "gaps", "operators", "kernels", "memory", "ranks", "communication", "tensor-cores",
    "queue", "memcpy-bandwidth", "kernel-sequences", "gpu-annotations", "profiler-ranges", "selection", NULL,
  };
  const char *const *pages = only != NULL ? only : every_page;
  KsSession *session = ks_window_get_session (window);
  KsTrace *trace = ks_session_get_trace (session);
  guint32 track = 0, slice = 0;

  for (guint i = 0; pages[i] != NULL; i++)
    {
      g_autofree char *file = g_strdup_printf ("%s-%s.png", name, pages[i]);

      if (g_str_equal (pages[i], "selection") && find_longest_kernel (trace, &track, &slice))
        {
          const KsTrack *t = &trace->tracks[track];
          gint64 dur = t->end[slice] - t->start[slice];

          ks_session_fit (session, t->start[slice] - 6 * dur, t->end[slice] + 2 * dur);
          ks_session_select_slice (session, track, slice);
        }
      if (ks_window_get_page (window, pages[i]) == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "no side page \"%s\"", pages[i]);
          return FALSE;
        }
      ks_window_show_page (window, pages[i]);
      iterate_for (1200);
      if (!save (GTK_WIDGET (window), dir, file, error))
        return FALSE;
    }
  return TRUE;
}

/* The trace shown compared with @other: the Compare view, as NAME-compare.png. */
static gboolean
compare (KsWindow    *window,
         const char  *other,
         const char  *dir,
         const char  *name,
         GError     **error)
{
  g_autoptr(GFile) file = g_file_new_for_commandline_arg (other);
  g_autofree char *uri = g_file_get_uri (file);
  g_autofree char *png = g_strdup_printf ("%s-compare.png", name);

  if (!gtk_widget_activate_action (GTK_WIDGET (window), "win.compare-file", "s", uri))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s: the window cannot compare", other);
      return FALSE;
    }
  while (ks_window_get_comparing (window))
    g_main_context_iteration (NULL, TRUE);
  if (ks_window_get_compare_view (window) == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED, "%s could not be compared", other);
      return FALSE;
    }
  iterate_for (1500);
  return save (GTK_WIDGET (window), dir, png, error);
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(KsApplication) app = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  KsWindow *window;
  KsSession *session;
  KsTrace *trace;
  guint32 track = 0, slice = 0;
  gint64 start = 0, end = 0;
  g_autofree char *tour_name = NULL;
  g_autofree char *size = NULL;
  g_autofree char *pages = NULL;
  g_autofree char *compare_with = NULL;
  g_auto(GStrv) only = NULL;
  gboolean dark = FALSE;
  int width = WIDTH, height = HEIGHT;
  const GOptionEntry entries[] = {
    { "tour", 0, 0, G_OPTION_ARG_STRING, &tour_name, "Take each side page, as NAME-PAGE.png", "NAME" },
    { "dark", 0, 0, G_OPTION_ARG_NONE, &dark, "In the dark style", NULL },
    { "size", 0, 0, G_OPTION_ARG_STRING, &size, "Window size (default 1600x900)", "WxH" },
    { "pages", 0, 0, G_OPTION_ARG_STRING, &pages, "With --tour, only these side pages", "PAGE,…" },
    { "compare", 0, 0, G_OPTION_ARG_FILENAME, &compare_with, "With --tour, then compare with FILE: NAME-compare.png", "FILE" },
    { NULL }
  };
  g_autoptr(GOptionContext) context = g_option_context_new ("TRACE OUTDIR");

  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc != 3 ||
      (size != NULL && sscanf (size, "%dx%d", &width, &height) != 2))
    {
      g_printerr ("Usage: ks-screenshot [--tour NAME [--pages PAGE,…] [--compare FILE]] [--dark] [--size WxH] "
                  "TRACE OUTDIR%s%s\n",
                  error != NULL ? ": " : "", error != NULL ? error->message : "");
      return 2;
    }

  /* Recent files of the screenshots stay out of the user's list. */
  g_set_prgname ("kinescope");
  if (g_getenv ("KS_SCREENSHOT_HOME") != NULL)
    g_setenv ("XDG_DATA_HOME", g_getenv ("KS_SCREENSHOT_HOME"), TRUE);

  /* In the user's language (LANGUAGE=zh_CN for the tour's Chinese pages). */
  ks_i18n_init ();
  gtk_init ();
  adw_init ();
  /* The screenshots show the default light style at scale 1. */
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (),
                                      dark ? ADW_COLOR_SCHEME_FORCE_DARK : ADW_COLOR_SCHEME_FORCE_LIGHT);
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);

  app = ks_application_new ();
  g_application_set_flags (G_APPLICATION (app),
                           g_application_get_flags (G_APPLICATION (app)) | G_APPLICATION_NON_UNIQUE);
  if (!g_application_register (G_APPLICATION (app), NULL, &error))
    {
      g_printerr ("ks-screenshot: %s\n", error->message);
      return 1;
    }

  window = ks_window_new (GTK_APPLICATION (app));
  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  gtk_window_present (GTK_WINDOW (window));

  file = g_file_new_for_commandline_arg (argv[1]);
  ks_window_open (window, file);
  while (ks_window_get_loading (window))
    g_main_context_iteration (NULL, TRUE);
  session = ks_window_get_session (window);
  if (session == NULL)
    {
      g_printerr ("ks-screenshot: %s could not be opened\n", argv[1]);
      return 1;
    }
  trace = ks_session_get_trace (session);
  iterate_for (1500);

  if (tour_name != NULL)
    {
      if (pages != NULL)
        only = g_strsplit (pages, ",", -1);
      if (!tour (window, argv[2], tour_name, (const char *const *)only, &error))
        goto failed;
      if (compare_with != NULL && !compare (window, compare_with, argv[2], tour_name, &error))
        goto failed;
      gtk_window_destroy (GTK_WINDOW (window));
      iterate_for (100);
      return 0;
    }

  /* 1. The whole trace, GPU idle while the DataLoader works, and the
   *    idle gaps ranked in the side panel. */
  ks_window_show_page (window, "gaps");
  iterate_for (1500);
  if (!save (GTK_WIDGET (window), argv[2], "timeline.png", &error))
    goto failed;

  /* 2. A kernel selected: its details and the arrow from its launch. */
  if (find_longest_kernel (trace, &track, &slice))
    {
      const KsTrack *t = &trace->tracks[track];
      gint64 dur = t->end[slice] - t->start[slice];

      ks_session_fit (session, t->start[slice] - 6 * dur, t->end[slice] + 2 * dur);
      ks_session_select_slice (session, track, slice);
      iterate_for (1500);
      if (!save (GTK_WIDGET (window), argv[2], "kernel.png", &error))
        goto failed;
    }

  /* 3. One training step selected as a range: its statistics. */
  if (find_step (trace, &start, &end))
    {
      ks_session_clear_selection (session);
      ks_session_fit (session, start, end);
      ks_session_select_range (session, start, end);
      iterate_for (2000);
      if (!save (GTK_WIDGET (window), argv[2], "range.png", &error))
        goto failed;
    }

  gtk_window_destroy (GTK_WINDOW (window));
  iterate_for (100);
  return 0;

failed:
  g_printerr ("ks-screenshot: %s\n", error->message);
  return 1;
}
