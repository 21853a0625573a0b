/* ks-bench-open.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Opening a trace in the window, as `kinescope FILE` does, against the
 * same file's headless load in the same process; and how long the main
 * thread was kept from its main loop meanwhile.
 *
 *   xvfb-run -a -s "-screen 0 1920x1080x24" _build/bench/ks-bench-open FILE
 *
 * The last three lines:
 *   first-frame-ms N      launch (the application's run) to the end of the
 *                         first frame with the trace's timeline drawn
 *   load-ms N             ks_trace_load() of FILE, headless, before the window
 *   longest-stall-ms N    the longest stretch the main thread spent without
 *                         returning to its main loop's poll (so without
 *                         drawing a frame or reading input), from launch
 *                         until the first frame with the analysis shown
 *                         on every side page built (a page is built when
 *                         first shown: the Summary, and Selection)
 * Lines before them say when the window first drew, when the analysis
 * was shown, the loads of the run (window-loads N early N adopted N: the
 * file's load begins at the application's start-up, before GTK's, and
 * the window adopts it, so 1 1 1), every stall of 50 ms or more: when it
 * began and in which phase (startup: before the window's first frame;
 * loading: before the timeline's; analysing: until the analysis is
 * shown), and the longest stall that began once the timeline was drawn
 * (longest-stall-after-first-frame-ms: what is left once GTK's start-up
 * is over). The main thread's own CPU time is given beside them, from
 * launch to the window's first frame (window-first-frame-cpu-ms) and to
 * the first frame with rows (first-frame-cpu-ms), and in each stall
 * (cpu-ms): on a shared machine a stall much longer than its CPU time
 * waited for the cores (or the X server), one as long was work.
 */

#include "config.h"

#include <adwaita.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "ks-application.h"
#include "ks-document-loader.h"
#include "ks-trace-loader.h"
#include "ks-window.h"
#include "pages/ks-page.h"

/* A run that does not show the analysis in this time failed. */
#define GIVE_UP_S 300

static gint64 t_launch;
static gint64 t_window_frame = -1;    /* first frame of the window at all */
static gint64 t_first_frame = -1;     /* the trace's timeline drawn */
static gint64 t_analysis = -1;        /* the analysis shown */
/* the main thread's CPU time at launch and at those frames: on a shared
 * machine wall times vary with the load, its own CPU time much less */
static gint64 cpu_launch;
static gint64 cpu_window_frame;
static gint64 cpu_first_frame;

static GPollFunc default_poll;
static gboolean measuring;
static gint64 last_wake;              /* when poll last returned */
static gint64 last_wake_cpu;          /* the main thread's CPU time then */
static gint64 longest_stall;
static gint64 longest_stall_at;
static gint64 longest_stall_after_first_frame;
static GArray *stalls;                /* gint64 triples: start, length, CPU time */

#define STALL_LISTED_US 50000

/* The calling thread's CPU time, in microseconds. */
static gint64
thread_cpu_us (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return (gint64) ts.tv_sec * G_USEC_PER_SEC + ts.tv_nsec / 1000;
}

static void
note_stall (gint64 start,
            gint64 length,
            gint64 cpu)
{
  if (length > longest_stall)
    {
      longest_stall = length;
      longest_stall_at = start;
    }
  if (t_first_frame >= 0 && start >= t_first_frame && length > longest_stall_after_first_frame)
    longest_stall_after_first_frame = length;
  if (length >= STALL_LISTED_US)
    {
      g_array_append_val (stalls, start);
      g_array_append_val (stalls, length);
      g_array_append_val (stalls, cpu);
    }
}

/* Between a wake-up and the next poll the main thread runs sources:
 * that stretch is time in which it can neither draw nor take input. */
static gint
stall_poll (GPollFD *fds,
            guint    n_fds,
            gint     timeout)
{
  gint64 now = g_get_monotonic_time ();
  gint ret;

  if (measuring)
    note_stall (last_wake, now - last_wake, thread_cpu_us () - last_wake_cpu);
  ret = default_poll (fds, n_fds, timeout);
  last_wake = g_get_monotonic_time ();
  last_wake_cpu = thread_cpu_us ();
  return ret;
}

static double
ms_since_launch (gint64 t)
{
  return (t - t_launch) / 1000.0;
}

static const char *
phase_at (gint64 t)
{
  if (t_window_frame < 0 || t < t_window_frame)
    return "startup";
  if (t_first_frame < 0 || t < t_first_frame)
    return "loading";
  return "analysing";
}

static gboolean
timeline_drawn (KsWindow *window)
{
  KsSession *session = ks_window_get_session (window);
  GtkWidget *timeline = GTK_WIDGET (ks_window_get_timeline (window));

  return session != NULL && ks_session_get_trace (session) != NULL &&
         gtk_widget_get_mapped (timeline) && gtk_widget_get_width (timeline) > 0 &&
         gtk_widget_get_height (timeline) > 0;
}

/* Whether every side page under @widget shows the latest analysis: the
 * pages built refill one by one after it arrives. */
static gboolean
pages_filled (GtkWidget *widget)
{
  if (KS_IS_PAGE (widget) && !ks_page_get_filled (KS_PAGE (widget)))
    return FALSE;
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    if (!pages_filled (c))
      return FALSE;
  return TRUE;
}

/* A hidden page's refill need not draw anything: the frame that ends
 * the measurement is asked for once the last page is filled. */
static void
page_filled_cb (GObject    *page,
                GParamSpec *pspec,
                GtkWidget  *window)
{
  if (ks_page_get_filled (KS_PAGE (page)) && pages_filled (window))
    gtk_widget_queue_draw (window);
}

/* Pages are built when first shown: watched at every frame, once each. */
static void
watch_pages (GtkWidget *widget,
             GtkWidget *window)
{
  if (KS_IS_PAGE (widget) && g_object_get_data (G_OBJECT (widget), "ks-bench-watched") == NULL)
    {
      g_object_set_data (G_OBJECT (widget), "ks-bench-watched", GINT_TO_POINTER (1));
      g_signal_connect_object (widget, "notify::filled", G_CALLBACK (page_filled_cb), window, 0);
    }
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    watch_pages (c, window);
}

static void
after_paint_cb (GdkFrameClock *clock,
                KsWindow      *window)
{
  gint64 now = g_get_monotonic_time ();
  KsSession *session = ks_window_get_session (window);

  if (t_window_frame < 0)
    {
      t_window_frame = now;
      cpu_window_frame = thread_cpu_us ();
    }
  watch_pages (GTK_WIDGET (window), GTK_WIDGET (window));
  if (t_first_frame < 0 && timeline_drawn (window))
    {
      t_first_frame = now;
      cpu_first_frame = thread_cpu_us ();
    }
  if (t_first_frame >= 0 && t_analysis < 0 && session != NULL && ks_session_get_analysis (session) != NULL &&
      pages_filled (GTK_WIDGET (window)))
    {
      t_analysis = now;
      measuring = FALSE;
      /* the stretch under way when the analysis showed counts too */
      note_stall (last_wake, now - last_wake, thread_cpu_us () - last_wake_cpu);
      g_application_quit (G_APPLICATION (gtk_window_get_application (GTK_WINDOW (window))));
    }
}

static void
window_realize_cb (GtkWidget *widget)
{
  g_signal_connect (gtk_widget_get_frame_clock (widget), "after-paint", G_CALLBACK (after_paint_cb), widget);
  watch_pages (widget, widget);
}

static void
window_added_cb (GtkApplication *app,
                 GtkWindow      *window)
{
  g_signal_connect (window, "realize", G_CALLBACK (window_realize_cb), NULL);
}

static gboolean
give_up_cb (gpointer user_data)
{
  g_printerr ("ks-bench-open: the analysis was not shown within %d s\n", GIVE_UP_S);
  exit (1);
  return G_SOURCE_REMOVE;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GError) error = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsApplication) app = NULL;
  char *run_argv[3];
  gint64 t0, load_us;

  if (argc != 2)
    {
      g_printerr ("Usage: ks-bench-open FILE   (under xvfb-run or on a display)\n");
      return 2;
    }
  file = g_file_new_for_commandline_arg (argv[1]);

  /* Headless, as the command line loads it. */
  t0 = g_get_monotonic_time ();
  trace = ks_trace_load (file, NULL, NULL, &error);
  load_us = g_get_monotonic_time () - t0;
  if (trace == NULL)
    {
      g_printerr ("ks-bench-open: %s\n", error->message);
      return 1;
    }
  g_clear_object (&trace);

  /* Then the window, through the application as `kinescope FILE`. */
  stalls = g_array_new (FALSE, FALSE, sizeof (gint64));
  default_poll = g_main_context_get_poll_func (NULL);
  g_main_context_set_poll_func (NULL, stall_poll);

  app = ks_application_new ();
  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE);
  g_signal_connect (app, "window-added", G_CALLBACK (window_added_cb), NULL);
  g_timeout_add_seconds (GIVE_UP_S, give_up_cb, NULL);

  run_argv[0] = (char *) "kinescope";
  run_argv[1] = argv[1];
  run_argv[2] = NULL;
  t_launch = last_wake = g_get_monotonic_time ();
  cpu_launch = last_wake_cpu = thread_cpu_us ();
  measuring = TRUE;
  g_application_run (G_APPLICATION (app), 2, run_argv);

  if (t_first_frame < 0 || t_analysis < 0)
    {
      g_printerr ("ks-bench-open: the window closed before the analysis was shown\n");
      return 1;
    }

  printf ("file %s\n", argv[1]);
  printf ("window-first-frame-ms %.0f\n", ms_since_launch (t_window_frame));
  printf ("analysis-shown-ms %.0f\n", ms_since_launch (t_analysis));
  printf ("window-first-frame-cpu-ms %.0f\n", (cpu_window_frame - cpu_launch) / 1000.0);
  printf ("first-frame-cpu-ms %.0f\n", (cpu_first_frame - cpu_launch) / 1000.0);
  for (guint i = 0; i < stalls->len; i += 3)
    printf ("stall-ms %.0f at-ms %.0f %s cpu-ms %.0f\n", g_array_index (stalls, gint64, i + 1) / 1000.0,
            ms_since_launch (g_array_index (stalls, gint64, i)), phase_at (g_array_index (stalls, gint64, i)),
            g_array_index (stalls, gint64, i + 2) / 1000.0);
  {
    KsDocumentLoaderCounts counts;

    /* the window's load is the one started at the application's
     * start-up: one load in all, adopted */
    ks_document_loader_get_counts (&counts);
    printf ("window-loads %u early %u adopted %u\n", counts.started, counts.early, counts.adopted);
  }
  printf ("longest-stall-began-ms %.0f\n", ms_since_launch (longest_stall_at));
  printf ("longest-stall-after-first-frame-ms %.0f\n", longest_stall_after_first_frame / 1000.0);
  printf ("first-frame-ms %.0f\n", ms_since_launch (t_first_frame));
  printf ("load-ms %.0f\n", load_us / 1000.0);
  printf ("longest-stall-ms %.0f\n", longest_stall / 1000.0);
  return 0;
}
