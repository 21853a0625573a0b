/* kinescope-thumbnailer.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Draws a small picture of a trace's timeline for file managers, as
 * described by data/kinescope.thumbnailer:
 *
 *   kinescope-thumbnailer -s SIZE INPUT OUTPUT
 *
 * The whole trace is laid out on a larger canvas, as the window would show
 * it, and scaled down, so that the picture keeps the shape of the timeline:
 * GPU streams on top, CPU threads below, idle time as empty space. */

#define G_LOG_DOMAIN "kinescope-thumbnailer"

#include "config.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include "ks-paths.h"
#include "ks-render.h"
#include "ks-signals.h"
#include "ks-trace-loader.h"

/* The canvas the timeline is drawn on before scaling, 4:3. */
#define CANVAS_WIDTH   1024
#define CANVAS_HEIGHT  768
#define MIN_SIZE       16
#define MAX_SIZE       1024

typedef struct
{
  GMainLoop    *loop;
  GCancellable *cancellable;
  KsTrace      *trace;
  GError       *error;
  gboolean      timed_out;
} Load;

static void
load_cb (GObject      *object,
         GAsyncResult *result,
         gpointer      user_data)
{
  Load *load = user_data;

  load->trace = ks_trace_load_finish (result, &load->error);
  g_main_loop_quit (load->loop);
}

static gboolean
load_timeout_cb (gpointer user_data)
{
  Load *load = user_data;

  load->timed_out = TRUE;
  g_cancellable_cancel (load->cancellable);

  return G_SOURCE_REMOVE;
}

/* Loads @file, giving up after @timeout_s seconds: a thumbnailer must never
 * keep a file manager waiting on a huge or hostile file. */
static KsTrace *
load_trace (GFile   *file,
            guint    timeout_s,
            GError **error)
{
  g_autoptr(GMainLoop) loop = g_main_loop_new (NULL, FALSE);
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  Load load = { loop, cancellable, NULL, NULL, FALSE };
  guint timeout_id;

  timeout_id = g_timeout_add_seconds (timeout_s, load_timeout_cb, &load);
  ks_trace_load_async (file, NULL, cancellable, load_cb, &load);
  g_main_loop_run (loop);
  if (!load.timed_out)
    g_source_remove (timeout_id);

  if (load.trace == NULL)
    {
      if (load.timed_out)
        {
          g_autofree char *name = g_file_get_parse_name (file);

          g_clear_error (&load.error);
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_TIMED_OUT,
                       _("%s: reading the trace took longer than %u seconds"),
                       name, timeout_s);
        }
      else
        g_propagate_error (error, load.error);
    }

  return load.trace;
}

/* The deadline covers drawing too: laying out a hostile trace can take
 * as long as reading it. Drawing cannot be cancelled, so SIGALRM ends
 * the program, with the message made beforehand (a signal handler may
 * not allocate) and without a half-written picture. */
static char *draw_timeout_message;
static char *draw_output;

static void
draw_timeout_cb (int sig)
{
  G_GNUC_UNUSED gssize written = write (STDERR_FILENO, draw_timeout_message, strlen (draw_timeout_message));

  unlink (draw_output);
  _exit (1);
}

static void
arm_draw_deadline (GFile      *file,
                   const char *output,
                   guint       timeout_s,
                   gint64      started)
{
  g_autofree char *name = g_file_get_parse_name (file);
  g_autofree char *message = g_strdup_printf (_("%s: drawing the trace took longer than %u seconds"), name, timeout_s);
  gint64 left = timeout_s - (g_get_monotonic_time () - started) / G_USEC_PER_SEC;
  struct sigaction sa = { 0 };

  draw_timeout_message = g_strdup_printf ("kinescope-thumbnailer: %s\n", message);
  draw_output = g_strdup (output);
  sa.sa_handler = draw_timeout_cb;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGALRM, &sa, NULL);
  alarm ((guint) MAX (left, 1));
}

static gboolean
trace_has_events (KsTrace *trace)
{
  for (guint i = 0; i < trace->n_tracks; i++)
    {
      if (trace->tracks[i].n_slices > 0)
        return TRUE;
    }

  return trace->n_counters > 0;
}

static gboolean
write_thumbnail (KsTrace     *trace,
                 int          size,
                 const char  *output,
                 GError     **error)
{
  g_autoptr(KsTimelineLayout) layout = ks_timeline_layout_new (trace);
  KsRenderOptions options;
  cairo_surface_t *surface;
  cairo_status_t status;
  cairo_t *cr;
  double scale = (double)size / CANVAS_WIDTH;
  int width = size;
  int height = MAX (1, (int)(CANVAS_HEIGHT * scale + 0.5));

  ks_render_options_init (&options, trace, CANVAS_WIDTH, CANVAS_HEIGHT);
  /* No row labels and no ruler: at thumbnail size they are noise. */
  options.header_width = 0;
  options.ruler_height = 0;

  surface = cairo_image_surface_create (CAIRO_FORMAT_ARGB32, width, height);
  cr = cairo_create (surface);
  cairo_scale (cr, scale, scale);
  ks_render_cairo (layout, cr, &options);
  cairo_destroy (cr);

  status = cairo_surface_write_to_png (surface, output);
  cairo_surface_destroy (surface);

  if (status != CAIRO_STATUS_SUCCESS)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_FAILED,
                   _("%s: cannot write the thumbnail: %s"),
                   output, cairo_status_to_string (status));
      return FALSE;
    }

  return TRUE;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(GFile) file = NULL;
  g_auto(GStrv) args = NULL;
  int size = 256;
  int timeout_s = 30;
  gint64 started;
  gboolean ok;
  const GOptionEntry entries[] = {
    { "size", 's', 0, G_OPTION_ARG_INT, &size,
      N_("Width of the thumbnail in pixels (16 to 1024)"), N_("SIZE") },
    { "timeout", 't', 0, G_OPTION_ARG_INT, &timeout_s,
      N_("Give up after this many seconds"), N_("SECONDS") },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &args, NULL, N_("INPUT OUTPUT") },
    { NULL }
  };

  /* before the loader's threads: the file manager's SIGTERM ends us
   * through one thread, as it would without them */
  ks_signals_init ();
  ks_i18n_init ();

  context = g_option_context_new (NULL);
  g_option_context_set_translation_domain (context, GETTEXT_PACKAGE);
  g_option_context_set_summary (context,
                                _("Draws a picture of a trace’s timeline (.kscope, PyTorch, Nsight SQLite) into a PNG file."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);

  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      g_printerr ("kinescope-thumbnailer: %s\n", error->message);
      return 2;
    }

  if (args == NULL || g_strv_length (args) != 2)
    {
      g_printerr ("%s\n", _("Usage: kinescope-thumbnailer [-s SIZE] INPUT OUTPUT"));
      return 2;
    }

  if (size < MIN_SIZE || size > MAX_SIZE || timeout_s < 1)
    {
      g_printerr (_("kinescope-thumbnailer: size must be between %d and %d pixels\n"),
                  MIN_SIZE, MAX_SIZE);
      return 2;
    }

  /* File managers pass a path (%i) or a URI (%u). */
  file = g_file_new_for_commandline_arg (args[0]);
  started = g_get_monotonic_time ();

  if (!(trace = load_trace (file, timeout_s, &error)))
    {
      g_printerr ("kinescope-thumbnailer: %s\n", error->message);
      return 1;
    }

  if (!trace_has_events (trace))
    {
      g_autofree char *name = g_file_get_parse_name (file);

      g_printerr (_("kinescope-thumbnailer: %s: the trace holds no events to draw\n"), name);
      return 1;
    }

  arm_draw_deadline (file, args[1], timeout_s, started);
  ok = write_thumbnail (trace, size, args[1], &error);
  /* done in time: the picture stays, whenever the program then ends */
  alarm (0);
  if (!ok)
    {
      g_printerr ("kinescope-thumbnailer: %s\n", error->message);
      return 1;
    }

  return 0;
}
