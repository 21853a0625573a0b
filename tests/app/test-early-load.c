/* test-early-load.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* `kinescope FILE…` under Xvfb with G_DEBUG=fatal-criticals, run through
 * the real KsApplication (g_application_run with a command line): each
 * file's load starts at the application's start-up, before any window
 * exists, and the window made for the file adopts it rather than loading
 * the file again (src/app/ks-application.c, ks-document-loader.c). */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "config.h"

#include <adwaita.h>
#include <dirent.h>
#include <sched.h>
#include <stdlib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "ks-application.h"
#include "ks-document-loader.h"
#include "ks-early-cores.h"
#include "ks-memory-blocks.h"
#include "ks-test-gtk.h"
#include "ks-trace-loader.h"
#include "ks-window.h"

#define LB_FILE  "loader_bound.pt.trace.json.gz"
#define CNN_FILE "seed_cnn.pt.trace.json.gz"
/* a trace saved as .kscope */
#define KSCOPE_FILE "small_mlp_60steps.kscope"
/* a training run's trace and the memory snapshot taken in it */
#define SNAP_TRACE "memsnap_train.pt.trace.json.gz"
#define SNAP_FILE  "memsnap_train.pickle"
/* a job of two ranks: two files in the folder */
#define JOB_DIR     "ddp_gloo_2ranks"
#define JOB_N_RANKS 2

#define WAIT_FOR(cond) KS_TEST_WAIT_FOR (cond, 60000)

static char *
fixture_path (const char *name)
{
  return g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);
}

/* One run of the application on a command line, and what it saw. */
typedef struct
{
  const char * const     *paths;
  guint                   n_paths;
  guint                   n_windows;    /* 0: one a file */
  /* called in the "startup" handler, after the application's own */
  void                  (*at_startup) (void);

  GtkApplication         *app;
  KsDocumentLoaderCounts  before;       /* before the run */
  KsDocumentLoaderCounts  at_window;    /* when the first window was added */
  gboolean                had_window;   /* a window existed at start-up */
  gboolean                opened;       /* the application's open ran */
  gboolean                window_at_open; /* a window existed once it returned */
  KsDocumentLoaderCounts  at_end;       /* once every window had loaded */
  GPtrArray              *windows;      /* KsWindow, not owned */
  void                  (*check) (GtkApplication *app,
                                  gpointer        data);
  gpointer                check_data;
} Run;

static void
startup_cb (GApplication *app,
            Run          *run)
{
  run->had_window = gtk_application_get_windows (GTK_APPLICATION (app)) != NULL;
  if (run->at_startup != NULL)
    run->at_startup ();
}

/* The loads kept off the main thread's core while GTK started have every
 * core again once it has (ks-early-cores.c): every thread of the process
 * may run where the main thread may. */
static void
assert_no_thread_held (void)
{
  cpu_set_t allowed;
  DIR *dir = opendir ("/proc/self/task");
  struct dirent *entry;

  g_assert_false (ks_early_cores_held ());
  g_assert_nonnull (dir);
  g_assert_cmpint (sched_getaffinity (0, sizeof allowed, &allowed), ==, 0);
  while ((entry = readdir (dir)) != NULL)
    {
      cpu_set_t set;
      pid_t tid = (pid_t) atoi (entry->d_name);

      if (tid > 0 && sched_getaffinity (tid, sizeof set, &set) == 0)
        g_assert_true (CPU_EQUAL (&set, &allowed));
    }
  closedir (dir);
}

static void
startup_after_cb (GApplication *app,
                  Run          *run)
{
  /* GTK has started: nothing is held any more */
  assert_no_thread_held ();
}

/* At launch the windows come at the main loop's next iteration, not in
 * the stretch of GTK's start-up (ks_application_open()). */
static void
open_after_cb (GApplication  *app,
               GFile        **files,
               int            n_files,
               const char    *hint,
               Run           *run)
{
  run->opened = TRUE;
  run->window_at_open = gtk_application_get_windows (GTK_APPLICATION (app)) != NULL;
}

static gboolean
check_idle_cb (gpointer data)
{
  Run *run = data;
  GtkApplication *app = run->app;
  g_autoptr(GList) windows = NULL;

  /* every window gets its file's trace or its error */
  for (guint i = 0; i < run->windows->len; i++)
    WAIT_FOR (!ks_window_get_loading (run->windows->pdata[i]));
  run->check (app, run->check_data);
  ks_document_loader_get_counts (&run->at_end);

  windows = g_list_copy (gtk_application_get_windows (app));
  for (GList *l = windows; l != NULL; l = l->next)
    gtk_window_destroy (l->data);
  return G_SOURCE_REMOVE;
}

static void
window_added_cb (GtkApplication *app,
                 GtkWindow      *window,
                 Run            *run)
{
  if (!KS_IS_WINDOW (window))
    return;
  if (run->windows->len == 0)
    {
      ks_document_loader_get_counts (&run->at_window);
      g_idle_add (check_idle_cb, run);
    }
  g_ptr_array_add (run->windows, window);
}

static void
run_application (Run *run)
{
  g_autoptr(KsApplication) app = ks_application_new ();
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  int status;

  run->windows = g_ptr_array_new ();
  g_application_set_flags (G_APPLICATION (app), G_APPLICATION_HANDLES_OPEN | G_APPLICATION_NON_UNIQUE);
  g_signal_connect (app, "startup", G_CALLBACK (startup_cb), run);
  g_signal_connect (app, "window-added", G_CALLBACK (window_added_cb), run);
  g_signal_connect_after (app, "open", G_CALLBACK (open_after_cb), run);
  g_signal_connect_after (app, "startup", G_CALLBACK (startup_after_cb), run);

  g_ptr_array_add (argv, (char *) "kinescope");
  for (guint i = 0; i < run->n_paths; i++)
    g_ptr_array_add (argv, (char *) run->paths[i]);
  g_ptr_array_add (argv, NULL);

  run->app = GTK_APPLICATION (app);
  ks_document_loader_get_counts (&run->before);
  status = g_application_run (G_APPLICATION (app), (int) argv->len - 1, (char **) argv->pdata);
  run->app = NULL;
  g_assert_cmpint (status, ==, 0);
  g_assert_false (run->had_window);
  g_assert_true (run->opened);
  g_assert_false (run->window_at_open);
  assert_no_thread_held ();
  g_assert_cmpuint (run->windows->len, ==, run->n_windows ? run->n_windows : run->n_paths);
  g_clear_pointer (&run->windows, g_ptr_array_unref);
}

/* Each window shows its file's trace, the same as a headless load's. */
static void
check_traces (GtkApplication *app,
              gpointer        data)
{
  Run *run = data;

  for (guint i = 0; i < run->n_paths; i++)
    {
      g_autoptr(GFile) file = g_file_new_for_path (run->paths[i]);
      g_autoptr(GError) error = NULL;
      g_autoptr(KsTrace) expected = ks_trace_load (file, NULL, NULL, &error);
      g_autofree char *uri = g_file_get_uri (file);
      KsWindow *window = NULL;
      KsTraceCounts got, want;
      KsTrace *trace;

      g_assert_no_error (error);
      for (guint w = 0; w < run->windows->len; w++)
        if (ks_window_get_file (run->windows->pdata[w]) != NULL &&
            g_file_equal (ks_window_get_file (run->windows->pdata[w]), file))
          window = run->windows->pdata[w];
      g_assert_nonnull (window);
      g_assert_nonnull (ks_window_get_session (window));
      trace = ks_session_get_trace (ks_window_get_session (window));
      g_assert_nonnull (trace);
      ks_trace_get_counts (trace, &got);
      ks_trace_get_counts (expected, &want);
      g_assert_cmpmem (&got, sizeof got, &want, sizeof want);
      g_assert_cmpuint (trace->n_tracks, ==, expected->n_tracks);
      /* opened as any file is: listed among the recent ones, once drawn */
      WAIT_FOR (gtk_recent_manager_has_item (gtk_recent_manager_get_default (), uri));
    }
}

/* kinescope A B C: the three loads start at start-up, before the first
 * window exists; each file's window adopts its load (no load is started
 * again) and shows the trace: two JSON traces and a .kscope. */
static void
test_adopted (void)
{
  g_autofree char *a = fixture_path (LB_FILE);
  g_autofree char *b = fixture_path (CNN_FILE);
  g_autofree char *c = fixture_path (KSCOPE_FILE);
  const char *paths[] = { a, b, c };
  Run run = { paths, G_N_ELEMENTS (paths) };

  run.check = check_traces;
  run.check_data = &run;
  run_application (&run);

  /* all under way when the first window was made */
  g_assert_cmpuint (run.at_window.early - run.before.early, ==, 3);
  g_assert_cmpuint (run.at_window.started - run.before.started, ==, 3);
  g_assert_cmpuint (run.at_window.adopted - run.before.adopted, ==, 0);
  /* and the only loads of the run: one each, adopted */
  g_assert_cmpuint (run.at_end.started - run.before.started, ==, 3);
  g_assert_cmpuint (run.at_end.adopted - run.before.adopted, ==, 3);
  g_assert_cmpuint (run.at_end.dropped - run.before.dropped, ==, 0);
}

/* The window shows the trace with its snapshot on its time axis, as a
 * headless load of the two files together. */
static void
check_with_snapshot (GtkApplication *app,
                     gpointer        data)
{
  Run *run = data;
  KsWindow *window = run->windows->pdata[0];
  g_autoptr(GFile) trace_file = g_file_new_for_path (run->paths[0]);
  g_autoptr(GFile) snap_file = g_file_new_for_path (run->paths[1]);
  GFile *pair[] = { trace_file, snap_file };
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) expected = ks_trace_load_files (pair, G_N_ELEMENTS (pair), NULL, NULL, &error);
  KsTraceCounts got, want;
  KsTrace *trace;

  g_assert_no_error (error);
  g_assert_nonnull (ks_window_get_session (window));
  trace = ks_session_get_trace (ks_window_get_session (window));
  g_assert_nonnull (trace);
  ks_trace_get_counts (trace, &got);
  ks_trace_get_counts (expected, &want);
  g_assert_cmpmem (&got, sizeof got, &want, sizeof want);
  /* with the snapshot's blocks, as many as the headless load's */
  g_assert_nonnull (ks_memory_blocks_get (expected));
  g_assert_cmpuint (ks_memory_blocks_get (expected)->devices[0].blocks->len, >, 0);
  g_assert_cmpuint (ks_memory_blocks_get (trace)->devices[0].blocks->len, ==,
                    ks_memory_blocks_get (expected)->devices[0].blocks->len);
  g_assert_true (g_file_equal (ks_window_get_file (window), trace_file));
}

/* kinescope TRACE SNAPSHOT: one load of the two, adopted by one window. */
static void
test_with_snapshot (void)
{
  g_autofree char *trace = fixture_path (SNAP_TRACE);
  g_autofree char *snap = fixture_path (SNAP_FILE);
  const char *paths[] = { trace, snap };
  Run run = { paths, G_N_ELEMENTS (paths), 1 };

  run.check = check_with_snapshot;
  run.check_data = &run;
  run_application (&run);

  g_assert_cmpuint (run.at_window.early - run.before.early, ==, 1);
  g_assert_cmpuint (run.at_end.started - run.before.started, ==, 1);
  g_assert_cmpuint (run.at_end.adopted - run.before.adopted, ==, 1);
}

/* The job's Ranks page with a row a rank. */
static void
check_job (GtkApplication *app,
           gpointer        data)
{
  KsWindow *window = KS_WINDOW (gtk_application_get_windows (app)->data);
  guint n = 0;

  g_assert_nonnull (ks_window_get_summaries (window));
  ks_rank_summaries_get_rows (ks_window_get_summaries (window), &n);
  g_assert_cmpuint (n, ==, JOB_N_RANKS);
  g_assert_null (ks_session_get_trace (ks_window_get_session (window)));
}

/* kinescope FOLDER over the memory bound: listed, sized and summarised
 * by the early load, which the window adopts. */
static void
test_folder (void)
{
  g_autofree char *job = fixture_path (JOB_DIR);
  const char *paths[] = { job };
  Run run = { paths, 1 };

  g_setenv ("KINESCOPE_FOLDER_MEMORY_MB", "0", TRUE);
  run.check = check_job;
  run_application (&run);
  g_unsetenv ("KINESCOPE_FOLDER_MEMORY_MB");

  g_assert_cmpuint (run.at_window.early - run.before.early, ==, 1);
  g_assert_cmpuint (run.at_end.started - run.before.started, ==, 1);
  g_assert_cmpuint (run.at_end.adopted - run.before.adopted, ==, 1);
}

typedef struct
{
  const char *path;
  char       *message;   /* the headless load's error */
} BadFile;

/* The window's error dialog, as for a file opened from the window. */
static void
check_error_dialog (GtkApplication *app,
                    gpointer        data)
{
  BadFile *bad = data;
  GListModel *toplevels = gtk_window_get_toplevels ();
  g_autofree char *base = g_path_get_basename (bad->path);
  g_autofree char *heading = g_strdup_printf ("Could Not Open “%s”", base);
  KsWindow *window = KS_WINDOW (gtk_application_get_windows (app)->data);
  AdwMessageDialog *dialog = NULL;

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) w = g_list_model_get_item (toplevels, i);

      if (ADW_IS_MESSAGE_DIALOG (w))
        dialog = ADW_MESSAGE_DIALOG (w);
    }
  g_assert_nonnull (dialog);
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (dialog)) == GTK_WINDOW (window));
  g_assert_cmpstr (adw_message_dialog_get_heading (dialog), ==, heading);
  g_assert_cmpstr (adw_message_dialog_get_body (dialog), ==, bad->message);
  /* the window is back to its welcome page, with nothing shown */
  g_assert_true (ks_window_is_empty (window));
  g_assert_null (ks_window_get_session (window));
  gtk_window_destroy (GTK_WINDOW (dialog));
}

/* kinescope BAD: the early load fails; the window that adopts it shows
 * the error as it shows any load's, with the reader's message. */
static void
test_error (void)
{
  g_autofree char *path = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  const char *paths[1];
  BadFile bad = { 0 };
  Run run = { paths, 1 };
  int fd;

  /* a trace cut short in its first event */
  fd = g_file_open_tmp ("ks-early-bad-XXXXXX.json", &path, &error);
  g_assert_no_error (error);
  g_assert_cmpint (write (fd, "{\"traceEvents\": [ {\"ph\": \"X\", \"ts\": ", 37), ==, 37);
  close (fd);
  file = g_file_new_for_path (path);
  trace = ks_trace_load (file, NULL, NULL, &error);
  g_assert_null (trace);
  g_assert_nonnull (error);

  paths[0] = path;
  bad.path = path;
  bad.message = g_strdup (error->message);
  run.check = check_error_dialog;
  run.check_data = &bad;
  run_application (&run);

  g_assert_cmpuint (run.at_window.early - run.before.early, ==, 1);
  g_assert_cmpuint (run.at_end.started - run.before.started, ==, 1);
  g_assert_cmpuint (run.at_end.adopted - run.before.adopted, ==, 1);
  g_free (bad.message);
  g_unlink (path);
}

/* Another gap threshold than the early load was started with: the
 * window's load cannot take it over. */
static void
change_gap_threshold (void)
{
  GSettings *settings = ks_application_get_settings ();

  g_settings_set_double (settings, "gap-threshold-us", g_settings_get_double (settings, "gap-threshold-us") + 7);
}

/* An early load nobody adopts (the options changed between the start-up
 * and the window) is cancelled and freed once the files are open; the
 * window loads the file itself. */
static void
test_unadopted (void)
{
  g_autofree char *a = fixture_path (LB_FILE);
  const char *paths[] = { a };
  Run run = { paths, 1, 0, change_gap_threshold };
  KsDocumentLoaderCounts now;

  run.check = check_traces;
  run.check_data = &run;
  run_application (&run);

  g_assert_cmpuint (run.at_window.early - run.before.early, ==, 1);
  g_assert_cmpuint (run.at_end.started - run.before.started, ==, 2);
  g_assert_cmpuint (run.at_end.adopted - run.before.adopted, ==, 0);
  g_assert_cmpuint (run.at_end.dropped - run.before.dropped, ==, 1);
  /* its worker stopped, and it was freed before the run ended */
  ks_document_loader_get_counts (&now);
  g_assert_cmpuint (now.dropped_alive, ==, 0);
  g_settings_reset (ks_application_get_settings (), "gap-threshold-us");
}

int
main (int   argc,
      char *argv[])
{
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;

  g_test_add_func ("/app/early-load/adopted", test_adopted);
  g_test_add_func ("/app/early-load/with-snapshot", test_with_snapshot);
  g_test_add_func ("/app/early-load/folder", test_folder);
  g_test_add_func ("/app/early-load/error", test_error);
  g_test_add_func ("/app/early-load/unadopted", test_unadopted);

  return g_test_run ();
}
