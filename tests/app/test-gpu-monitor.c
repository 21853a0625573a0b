/* test-gpu-monitor.c: Profile → GPU Monitor against the stand-in NVML, and without a driver
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <dlfcn.h>
#include <math.h>
#include <string.h>
#include <glib/gstdio.h>

#include "ks-gpu-chart.h"
#include "ks-gpu-monitor.h"
#include "ks-interval-bar.h"
#include "ks-overview.h"
#include "ks-record-dialog.h"
#include "ks-session.h"
#include "ks-test-gtk.h"
#include "ks-window.h"

static const char *fake_nvml;

static gpointer
find_toplevel (GType type)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr(GObject) window = g_list_model_get_item (toplevels, i);

      if (G_TYPE_CHECK_INSTANCE_TYPE (window, type))
        return window;
    }
  return NULL;
}

static GtkWidget *
find_label (GtkWidget  *widget,
            const char *text)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found;

      if (GTK_IS_LABEL (child) && strcmp (gtk_label_get_text (GTK_LABEL (child)), text) == 0)
        return child;
      if ((found = find_label (child, text)) != NULL)
        return found;
    }
  return NULL;
}

static gboolean
has_label (GtkWidget  *widget,
           const char *text)
{
  return find_label (widget, text) != NULL;
}

static void
collect_charts (GtkWidget *widget,
                GPtrArray *out)
{
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      if (KS_IS_GPU_CHART (child))
        g_ptr_array_add (out, child);
      collect_charts (child, out);
    }
}

static gboolean
profile_menu_has (GMenuModel *menu,
                  const char *action)
{
  for (int i = 0; i < g_menu_model_get_n_items (menu); i++)
    {
      g_autofree char *name = NULL;
      g_autoptr(GMenuModel) section = g_menu_model_get_item_link (menu, i, G_MENU_LINK_SECTION);

      if (g_menu_model_get_item_attribute (menu, i, G_MENU_ATTRIBUTE_ACTION, "s", &name) && strcmp (name, action) == 0)
        return TRUE;
      if (section != NULL && profile_menu_has (section, action))
        return TRUE;
    }
  return FALSE;
}

/* The menu item opens the monitor; it samples both GPUs and the two
 * processes of GPU 0; Record… opens the record dialog; closing the
 * window stops the sampling (the window is freed: no timer, no worker
 * holds it). */
static void
test_fake_nvml (void)
{
  KsWindow *window;
  GtkWidget *menu_button;
  KsGpuMonitor *monitor;
  KsRecordDialog *dialog;
  g_autoptr(GPtrArray) charts = g_ptr_array_new ();
  KsGpuChart *util0, *temp1, *sm0, *tensor0, *sm1;
  GtkWidget *na;
  guint64 n;
  void *handle;
  unsigned int (*calls) (void);
  unsigned int before;

  if (fake_nvml == NULL)
    {
      g_test_skip ("no stand-in NVML given");
      return;
    }
  g_setenv ("KINESCOPE_NVML_LIBRARY", fake_nvml, TRUE);

  window = ks_window_new (NULL);
  gtk_window_present (GTK_WINDOW (window));
  menu_button = ks_test_find_descendant (GTK_WIDGET (window), GTK_TYPE_MENU_BUTTON, NULL);
  g_assert_nonnull (menu_button);
  for (; menu_button != NULL; menu_button = gtk_widget_get_next_sibling (menu_button))
    if (GTK_IS_MENU_BUTTON (menu_button) && ks_test_open_menu (GTK_MENU_BUTTON (menu_button)) != NULL &&
        profile_menu_has (gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (menu_button)), "win.record"))
      break;
  g_assert_nonnull (menu_button);
  g_assert_true (profile_menu_has (gtk_menu_button_get_menu_model (GTK_MENU_BUTTON (menu_button)), "win.gpu-monitor"));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.gpu-monitor", NULL));
  monitor = find_toplevel (KS_TYPE_GPU_MONITOR);
  g_assert_nonnull (monitor);
  g_assert_true (gtk_window_get_transient_for (GTK_WINDOW (monitor)) == GTK_WINDOW (window));
  ks_gpu_monitor_set_interval (monitor, 100);
  KS_TEST_WAIT_FOR (ks_gpu_monitor_get_n_samples (monitor) >= 3, 10000);

  g_assert_true (has_label (GTK_WIDGET (monitor), "GPU 0: Fake GPU 0"));
  g_assert_true (has_label (GTK_WIDGET (monitor), "GPU 1: Fake GPU 1"));
  g_assert_true (has_label (GTK_WIDGET (monitor), "37 %"));
  g_assert_true (has_label (GTK_WIDGET (monitor), "73 %"));
  g_assert_true (has_label (GTK_WIDGET (monitor), "1.0 / 80.0 GiB"));
  g_assert_true (has_label (GTK_WIDGET (monitor), "55 °C"));
  g_assert_true (has_label (GTK_WIDGET (monitor), "123.5 W"));
  g_assert_true (has_label (GTK_WIDGET (monitor), "1410 MHz"));
  g_assert_true (has_label (GTK_WIDGET (monitor), "4242"));
  g_assert_true (has_label (GTK_WIDGET (monitor), "python3"));
  g_assert_true (has_label (GTK_WIDGET (monitor), "pt_data_worker"));
  g_assert_true (has_label (GTK_WIDGET (monitor), "30 %"));
  g_assert_true (has_label (GTK_WIDGET (monitor), "2048 MiB"));
  g_assert_true (has_label (GTK_WIDGET (monitor), "2 GPUs"));
  /* GPM: GPU 0's SM and tensor activity; GPU 1 has none, and says why */
  g_assert_true (has_label (GTK_WIDGET (monitor), "SM activity"));
  g_assert_true (has_label (GTK_WIDGET (monitor), "Tensor activity"));
  g_assert_true (has_label (GTK_WIDGET (monitor), "12 %"));
  g_assert_true (has_label (GTK_WIDGET (monitor), "4 %"));
  na = find_label (GTK_WIDGET (monitor), "N/A");
  g_assert_nonnull (na);
  g_assert_nonnull (strstr (gtk_widget_get_tooltip_text (na), "GPU 1 has no GPM counters (Hopper"));

  /* seven charts a GPU, one value a sample; GPU 1 has no temperature
   * and no GPM */
  n = ks_gpu_monitor_get_n_samples (monitor);
  collect_charts (GTK_WIDGET (monitor), charts);
  g_assert_cmpuint (charts->len, ==, 14);
  util0 = g_ptr_array_index (charts, 0);
  sm0 = g_ptr_array_index (charts, 1);
  tensor0 = g_ptr_array_index (charts, 2);
  sm1 = g_ptr_array_index (charts, 7 + 1);
  temp1 = g_ptr_array_index (charts, 7 + 5);
  g_assert_cmpuint (ks_gpu_chart_get_n_values (util0), ==, n);
  g_assert_cmpfloat (ks_gpu_chart_get_value (util0, 0), ==, 37);
  g_assert_cmpfloat (ks_gpu_chart_get_value (sm0, n - 1), ==, 12.25);
  g_assert_cmpfloat (ks_gpu_chart_get_value (tensor0, n - 1), ==, 3.75);
  g_assert_true (isnan (ks_gpu_chart_get_value (sm1, n - 1)));
  g_assert_true (isnan (ks_gpu_chart_get_value (temp1, 0)));
  g_assert_cmpfloat (ks_gpu_chart_get_value (g_ptr_array_index (charts, 6), 0), ==, 1410);

  /* Record… is the window's record action */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (monitor), "monitor.record", NULL));
  dialog = find_toplevel (KS_TYPE_RECORD_DIALOG);
  g_assert_nonnull (dialog);
  gtk_window_destroy (GTK_WINDOW (dialog));

  /* the stand-in counts its calls: they stop with the window */
  handle = dlopen (fake_nvml, RTLD_NOW | RTLD_NOLOAD);
  g_assert_nonnull (handle);
  calls = dlsym (handle, "fake_nvml_utilization_calls");
  g_assert_nonnull (calls);
  before = calls ();
  KS_TEST_WAIT_FOR (calls () > before, 20000);
  g_object_add_weak_pointer (G_OBJECT (monitor), (gpointer *) &monitor);
  gtk_window_close (GTK_WINDOW (monitor));
  KS_TEST_WAIT_FOR (monitor == NULL, 5000);
  before = calls ();
  ks_test_spin (500);
  g_assert_cmpuint (calls (), ==, before);
  dlclose (handle);

  gtk_window_destroy (GTK_WINDOW (window));
}

/* Without a driver: what kinescope-cli monitor says, on a status page. */
static void
test_no_driver (void)
{
  KsGpuMonitor *monitor;
  GtkWidget *status, *button;
  GtkStack *stack;
  const char *text;

  g_setenv ("KINESCOPE_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", TRUE);
  monitor = ks_gpu_monitor_new (NULL);
  gtk_window_present (GTK_WINDOW (monitor));
  stack = GTK_STACK (ks_test_find_descendant (GTK_WIDGET (monitor), GTK_TYPE_STACK, NULL));
  KS_TEST_WAIT_FOR (g_strcmp0 (gtk_stack_get_visible_child_name (stack), "unavailable") == 0, 5000);
  status = ks_test_find_descendant (GTK_WIDGET (monitor), ADW_TYPE_STATUS_PAGE, NULL);
  text = adw_status_page_get_description (ADW_STATUS_PAGE (status));
  g_assert_nonnull (strstr (text, "No NVIDIA driver"));
  g_assert_nonnull (strstr (text, "libnvidia-ml.so.1"));
  g_assert_nonnull (strstr (text, "Install the driver"));
  g_assert_cmpstr (adw_status_page_get_title (ADW_STATUS_PAGE (status)), ==, "No NVIDIA Driver");
  /* no window to record from: the button is off */
  button = ks_test_find_descendant (GTK_WIDGET (monitor), GTK_TYPE_BUTTON, NULL);
  g_assert_cmpstr (gtk_actionable_get_action_name (GTK_ACTIONABLE (button)), ==, "monitor.record");
  g_assert_false (gtk_widget_get_sensitive (button));
  g_assert_cmpuint (ks_gpu_monitor_get_n_samples (monitor), ==, 0);

  g_object_add_weak_pointer (G_OBJECT (monitor), (gpointer *) &monitor);
  gtk_window_destroy (GTK_WINDOW (monitor));
  KS_TEST_WAIT_FOR (monitor == NULL, 5000);
}

/* An nvidia-smi log opens in the window like a trace: counter rows,
 * and the advice its utilization calls for on the summary page. */
static void
test_log_in_window (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-nvsmi-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "gpu_log.csv", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  KsWindow *window = ks_window_new (NULL);
  KsSession *session;
  KsTrace *trace;
  GtkWidget *summary;

  g_assert_true (g_file_set_contents (path,
                                      "timestamp, index, name, utilization.gpu [%], memory.used [MiB]\n"
                                      "2026/01/02 03:04:05.000, 0, NVIDIA H200, 10 %, 100 MiB\n"
                                      "2026/01/02 03:04:06.000, 0, NVIDIA H200, 20 %, 100 MiB\n"
                                      "2026/01/02 03:04:07.000, 0, NVIDIA H200, 90 %, 100 MiB\n"
                                      "2026/01/02 03:04:08.000, 0, NVIDIA H200, 5 %, 100 MiB\n", -1, NULL));
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, file);
  KS_TEST_WAIT_FOR (ks_window_get_session (window) != NULL, 20000);
  session = ks_window_get_session (window);
  KS_TEST_WAIT_FOR (ks_session_get_analysis (session) != NULL, 20000);
  trace = ks_session_get_trace (session);
  g_assert_cmpint (trace->format, ==, KS_FORMAT_NVIDIA_SMI);
  g_assert_cmpuint (trace->n_counters, ==, 2);
  g_assert_false (ks_window_is_empty (window));
  summary = ks_window_get_page (window, "summary");
  KS_TEST_WAIT_FOR (ks_test_find_descendant (summary, ADW_TYPE_EXPANDER_ROW, "low-gpu-utilization") != NULL, 20000);

  gtk_window_destroy (GTK_WINDOW (window));
  g_unlink (path);
  g_rmdir (dir);
}

static KsWindow *
open_fixture (const char *name)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  KsWindow *window = ks_window_new (NULL);

  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, file);
  KS_TEST_WAIT_FOR (ks_window_get_session (window) != NULL, 20000);
  KS_TEST_WAIT_FOR (ks_session_get_analysis (ks_window_get_session (window)) != NULL, 20000);
  /* the side pages fill one per main-loop iteration after that */
  ks_test_wait_pages_filled (GTK_WIDGET (window));
  return window;
}

/* The counter rows in the timeline under the group row labelled @group. */
static GPtrArray *
rows_of_group (KsWindow   *window,
               const char *group)
{
  KsTimelineLayout *layout = ks_timeline_get_layout (ks_window_get_timeline (window));
  GPtrArray *labels = g_ptr_array_new ();
  guint g = G_MAXUINT;

  for (guint r = 0; r < ks_timeline_layout_get_n_rows (layout); r++)
    {
      const KsRow *row = ks_timeline_layout_get_row (layout, r);

      if (row->kind == KS_ROW_GROUP && g_str_equal (row->label, group))
        g = r;
      else if (row->kind == KS_ROW_COUNTER && row->group == g)
        g_ptr_array_add (labels, row->label);
    }
  g_assert_cmpuint (g, !=, G_MAXUINT);
  return labels;
}

/* nvidia-smi pmon on an H200 (tests/data/nvsmi_h200_pmon.txt): the
 * process's group holds its rows on the GPU; the GPU's holds none. */
static void
test_pmon_in_window (void)
{
  KsWindow *window = open_fixture ("nvsmi_h200_pmon.txt");
  KsTrace *trace = ks_session_get_trace (ks_window_get_session (window));
  g_autoptr(GPtrArray) process = rows_of_group (window, "python3 (pid 836)");
  g_autoptr(GPtrArray) gpu = NULL;

  g_assert_cmpuint (trace->n_processes, ==, 1);
  /* sm and mem have numbers; enc, dec, jpg and ofa are "-" throughout */
  g_assert_cmpuint (process->len, ==, 2);
  g_assert_cmpstr (process->pdata[0], ==, "SM utilization on GPU 0 (%)");
  g_assert_cmpstr (process->pdata[1], ==, "Memory utilization on GPU 0 (%)");
  for (guint i = 0; i < ks_timeline_layout_get_n_rows (ks_timeline_get_layout (ks_window_get_timeline (window))); i++)
    {
      const KsRow *row = ks_timeline_layout_get_row (ks_timeline_get_layout (ks_window_get_timeline (window)), i);

      if (row->kind == KS_ROW_GROUP && row->group_kind == KS_GROUP_GPU)
        gpu = rows_of_group (window, row->label);
    }
  g_assert_true (gpu == NULL || gpu->len == 0);

  gtk_window_destroy (GTK_WINDOW (window));
}

/* The plain nvidia-smi table repeated by -l 1 on an H200: utilization
 * 0, 0, 99 and 98 % a second apart (tests/data/nvsmi_h200_plain_loop.txt).
 * The Summary leads with the sampled figures, not "No GPU activity", and
 * the strip above the timeline shows the utilization. */
static void
test_table_summary_strip (void)
{
  static const double util[] = { 0, 0, 99, 98 };
  KsWindow *window = open_fixture ("nvsmi_h200_plain_loop.txt");
  KsAnalysis *analysis = ks_session_get_analysis (ks_window_get_session (window));
  GtkWidget *summary = ks_window_get_page (window, "summary");
  const KsTraceBusy *tb = ks_analysis_get_trace_busy (analysis);
  KsOverview *overview;
  const float *columns = NULL;
  guint n_columns = 0;
  GtkWidget *row;
  g_autofree char *mean = NULL;

  /* each sample holds a second, the last as long as the one before */
  mean = g_strdup_printf ("%.1f %%", (util[0] + util[1] + util[2] + util[3]) / 4);
  ks_window_show_page (window, "summary");
  gtk_test_widget_wait_for_draw (summary);
  g_assert_null (ks_test_find_descendant (summary, ADW_TYPE_ACTION_ROW, "no-gpu-row"));
  row = ks_test_find_descendant (summary, ADW_TYPE_ACTION_ROW, "utilization-row");
  g_assert_nonnull (row);
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, "GPU 0 · NVIDIA H200");
  g_assert_nonnull (ks_test_find_label (row, mean));
  /* under 50 % and under 30 %: the two first seconds of four */
  g_assert_cmpstr (adw_action_row_get_subtitle (ADW_ACTION_ROW (row)), ==,
                   "Under 50 % for 2.00 s (50.0 %) · under 30 % for 2.00 s (50.0 %) · "
                   "longest stretch under 50 %: 2.00 s");

  /* the strip: the trace spans the tables' 3 s, idle for 2 s, then 99 % */
  g_assert_false (tb->gpu);
  g_assert_true (tb->utilization);
  overview = KS_OVERVIEW (ks_test_find_descendant (GTK_WIDGET (window), KS_TYPE_OVERVIEW, NULL));
  g_assert_nonnull (overview);
  KS_TEST_WAIT_FOR (gtk_widget_get_width (GTK_WIDGET (overview)) > KS_HEADER_WIDTH + 300, 20000);
  /* drawn until its columns are those of its width: each draw is a frame */
  for (gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC; g_get_monotonic_time () < deadline; )
    {
      columns = ks_overview_get_columns (overview, &n_columns);
      if (columns != NULL && n_columns == (guint)(gtk_widget_get_width (GTK_WIDGET (overview)) - KS_HEADER_WIDTH))
        break;
      gtk_widget_queue_draw (GTK_WIDGET (overview));
      gtk_test_widget_wait_for_draw (GTK_WIDGET (overview));
    }
  g_assert_nonnull (columns);
  for (guint c = 0; c < n_columns; c++)
    {
      double t0 = 3.0 * c / n_columns, t1 = 3.0 * (c + 1) / n_columns;

      if (t1 <= 2.0)
        g_assert_cmpfloat (columns[c], ==, 0);
      else if (t0 >= 2.0)
        g_assert_cmpfloat_with_epsilon (columns[c], util[2] / 100, 1e-4);
    }

  gtk_window_destroy (GTK_WINDOW (window));

  /* one table at 99 %: the rules found nothing, and say so */
  window = open_fixture ("nvsmi_h200_plain.txt");
  summary = ks_window_get_page (window, "summary");
  ks_window_show_page (window, "summary");
  gtk_test_widget_wait_for_draw (summary);
  row = ks_test_find_descendant (summary, ADW_TYPE_ACTION_ROW, "utilization-row");
  g_assert_nonnull (row);
  g_assert_nonnull (ks_test_find_label (row, "99.0 %"));
  row = ks_test_find_descendant (summary, ADW_TYPE_ACTION_ROW, "no-advice-row");
  g_assert_nonnull (row);
  g_assert_cmpstr (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (row)), ==, "No rule found a problem");
  gtk_window_destroy (GTK_WINDOW (window));
}

static const KsCounter *
utilization_of (KsWindow *window)
{
  KsTrace *trace = ks_session_get_trace (ks_window_get_session (window));

  for (guint32 c = 0; c < trace->n_counters; c++)
    if (g_str_equal (ks_trace_string (trace, trace->counters[c].name), "GPU utilization"))
      return &trace->counters[c];
  g_assert_not_reached ();
}

/* dmon without -o T has no times: the bar above the timeline asks for
 * the interval and reloads the log with it; a log with times has none. */
static void
test_interval_bar (void)
{
  KsWindow *window = open_fixture ("nvsmi_h200_dmon_gpm.txt");
  GtkWidget *bar = ks_test_find_descendant (GTK_WIDGET (window), KS_TYPE_INTERVAL_BAR, NULL);
  GtkWidget *spin = ks_test_find_descendant (bar, GTK_TYPE_SPIN_BUTTON, "interval-spin");
  GtkWidget *reload = ks_test_find_descendant (bar, GTK_TYPE_BUTTON, "interval-reload");
  g_autoptr(GFile) timed = NULL;
  const KsCounter *c;
  KsTrace *before;

  g_assert_nonnull (spin);
  g_assert_nonnull (reload);
  KS_TEST_WAIT_FOR (gtk_widget_get_mapped (bar), 20000);
  g_assert_nonnull (ks_test_find_label (bar, "This log has no times: its samples are taken as 1 s apart. "
                                             "Sampled at another interval (nvidia-smi -l, dmon -d)?"));
  c = utilization_of (window);
  g_assert_cmpuint (c->n_samples, ==, 8);
  g_assert_cmpint (c->ts[7] - c->ts[0], ==, 7 * G_GINT64_CONSTANT (1000000000));
  /* the interval it was read with: nothing to reload */
  g_assert_false (gtk_widget_get_sensitive (reload));

  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), 2.5);
  g_assert_true (gtk_widget_get_sensitive (reload));
  before = ks_session_get_trace (ks_window_get_session (window));
  g_signal_emit_by_name (reload, "clicked");
  KS_TEST_WAIT_FOR (!ks_window_get_loading (window) &&
                    ks_session_get_trace (ks_window_get_session (window)) != before, 20000);
  c = utilization_of (window);
  g_assert_cmpuint (c->n_samples, ==, 8);
  g_assert_cmpint (c->ts[7] - c->ts[0], ==, 7 * G_GINT64_CONSTANT (2500000000));
  g_assert_cmpfloat (ks_interval_bar_get_interval (KS_INTERVAL_BAR (bar)), ==, 2.5);
  g_assert_nonnull (ks_test_find_label (bar, "This log has no times: its samples are taken as 2.5 s apart. "
                                             "Sampled at another interval (nvidia-smi -l, dmon -d)?"));
  g_assert_false (gtk_widget_get_sensitive (reload));
  g_assert_true (gtk_widget_get_visible (bar));

  /* the table's date lines are its times */
  timed = g_file_new_build_filename (g_getenv ("KS_FIXTURES_DIR"), "nvsmi_h200_plain_loop.txt", NULL);
  before = ks_session_get_trace (ks_window_get_session (window));
  ks_window_open (window, timed);
  KS_TEST_WAIT_FOR (!ks_window_get_loading (window) &&
                    ks_session_get_trace (ks_window_get_session (window)) != before, 20000);
  g_assert_false (gtk_widget_get_visible (bar));

  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;
  if (argc > 1)
    fake_nvml = argv[1];

  g_test_add_func ("/app/gpu-monitor/fake-nvml", test_fake_nvml);
  g_test_add_func ("/app/gpu-monitor/no-driver", test_no_driver);
  g_test_add_func ("/app/nvsmi-log/window", test_log_in_window);
  g_test_add_func ("/app/nvsmi-log/pmon", test_pmon_in_window);
  g_test_add_func ("/app/nvsmi-log/table-summary-strip", test_table_summary_strip);
  g_test_add_func ("/app/nvsmi-log/interval-bar", test_interval_bar);

  return g_test_run ();
}
