/* test-cli-monitor.c: kinescope-cli monitor against the stand-in NVML (fake-nvml.c)
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <glib/gstdio.h>

#include "ks-nvsmi-reader.h"
#include "ks-trace-loader.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

static const char *cli_path;
static const char *fake_nvml;

static char *
monitor (const char  *library,
         const char **args,
         char       **err,
         int         *status)
{
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_auto(GStrv) env = g_get_environ ();
  g_autoptr(GError) error = NULL;
  char *out = NULL;
  int wait_status;

  env = g_environ_setenv (env, "KINESCOPE_NVML_LIBRARY", library, TRUE);
  g_ptr_array_add (argv, (gpointer) cli_path);
  g_ptr_array_add (argv, (gpointer) "monitor");
  for (guint i = 0; args[i]; i++)
    g_ptr_array_add (argv, (gpointer) args[i]);
  g_ptr_array_add (argv, NULL);
  g_assert_true (g_spawn_sync (NULL, (char **) argv->pdata, env, G_SPAWN_DEFAULT, NULL, NULL, &out, err,
                               &wait_status, &error));
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  *status = WEXITSTATUS (wait_status);
  return out;
}

static const KsCounter *find_counter (KsTrace    *trace,
                                     const char *name,
                                     gint32      device,
                                     gint64      pid);

static gboolean
check_setup (void)
{
  if (cli_path == NULL || fake_nvml == NULL)
    {
      g_test_skip ("usage: test-cli-monitor KINESCOPE_CLI FAKE_NVML");
      return FALSE;
    }
  return TRUE;
}

static void
test_no_driver (void)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status;

  if (!check_setup ())
    return;
  out = monitor ("/nonexistent/libnvidia-ml.so.1", (const char *[]) { "--count", "1", NULL }, &err, &status);
  g_assert_cmpint (status, ==, 1);
  g_assert_cmpstr (out, ==, "");
  g_assert_nonnull (strstr (err, "kinescope-cli monitor: No NVIDIA driver"));
  g_assert_nonnull (strstr (err, "libnvidia-ml.so.1"));
  g_assert_nonnull (strstr (err, "Install the driver"));
}

/* The header and rows nvidia-smi --query-gpu=… --format=csv prints; and
 * the reader opens the output as the log it is. */
static void
test_csv (void)
{
  const char *header = "timestamp, index, name, utilization.gpu [%], utilization.memory [%], memory.used [MiB], "
                       "memory.total [MiB], temperature.gpu, power.draw [W], clocks.current.sm [MHz]\n";
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *bare = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  int status;

  if (!check_setup ())
    return;
  out = monitor (fake_nvml, (const char *[]) { "--format", "csv", "--count", "3", "-l", "0.05", NULL }, &err, &status);
  g_assert_cmpint (status, ==, 0);
  g_assert_true (g_str_has_prefix (out, header));
  lines = g_strsplit (out, "\n", -1);
  g_assert_cmpuint (g_strv_length (lines), ==, 1 + 3 * 2 + 1);
  g_assert_cmpstr (lines[7], ==, "");
  for (guint i = 1; i <= 6; i++)
    {
      /* after the timestamp, "2026/01/02 03:04:05.678, " */
      const char *rest = lines[i] + strlen ("2026/01/02 03:04:05.678, ");

      g_assert_cmpuint (strlen (lines[i]), >, 25);
      g_assert_cmpint (lines[i][4], ==, '/');
      g_assert_cmpint (lines[i][23], ==, ',');
      if (i % 2 == 1)
        g_assert_cmpstr (rest, ==, "0, Fake GPU 0, 37 %, 5 %, 1024 MiB, 81920 MiB, 55, 123.46 W, 1410 MHz");
      else
        g_assert_cmpstr (rest, ==, "1, Fake GPU 1, 73 %, 5 %, 2048 MiB, 81920 MiB, [N/A], 123.46 W, 1410 MHz");
    }

  trace = ks_nvsmi_reader_load_data (out, strlen (out), "monitor.csv", NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (trace->n_gpus, ==, 2);
  for (guint32 i = 0; i < trace->n_counters; i++)
    if (strcmp (ks_trace_string (trace, trace->counters[i].name), "SM clock") == 0)
      g_assert_cmpuint (trace->counters[i].n_samples, ==, 3);

  bare = monitor (fake_nvml, (const char *[]) { "--format", "csv,noheader,nounits", "--query-gpu",
                                                "index,uuid,memory.free,clocks.sm", "--count", "1", NULL },
                  &err, &status);
  g_assert_cmpint (status, ==, 0);
  /* free: 80 GiB less used (1 and 2 GiB) and the driver's 615.06 MiB */
  g_assert_cmpstr (bare, ==, "0, GPU-00000000-0000-0000-0000-000000000000, 80280, 1410\n"
                             "1, GPU-00000000-0000-0000-0000-000000000001, 79256, 1410\n");
}

/* The GPU's activity counters and memory.reserved: GPU 0 has GPM, GPU 1
 * not ("[N/A]" as nvidia-smi writes a field a GPU lacks); traffic in
 * MB/s (the stand-in's 100 and 250 MiB/s: 104.9 and 262.1 MB/s); no
 * NVLink on either. memory.used is nvidia-smi's, without the 615.06 MiB
 * the driver reserves, which reads 616 MiB: nvidia-smi rounds up. */
static void
test_gpm (void)
{
  const char *query = "index,memory.used,memory.reserved,sm_active,sm_occupancy,tensor_active,dram_active,"
                      "fp16_active,fp32_active,fp64_active,pcie_tx,pcie_rx,nvlink_tx,nvlink_rx";
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autofree char *off = NULL;
  g_autofree char *err2 = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  int status;

  if (!check_setup ())
    return;
  out = monitor (fake_nvml, (const char *[]) { "--format", "csv", "--query-gpu", query, "--count", "2", "-l", "0.05",
                                               NULL }, &err, &status);
  g_assert_cmpint (status, ==, 0);
  g_assert_cmpstr (out, ==,
                   "index, memory.used [MiB], memory.reserved [MiB], sm_active [%], sm_occupancy [%], "
                   "tensor_active [%], dram_active [%], fp16_active [%], fp32_active [%], fp64_active [%], "
                   "pcie_tx [MB/s], pcie_rx [MB/s], nvlink_tx [MB/s], nvlink_rx [MB/s]\n"
                   "0, 1024 MiB, 616 MiB, 12 %, 8 %, 4 %, 21 %, 1 %, 2 %, 0 %, 105 MB/s, 262 MB/s, [N/A], [N/A]\n"
                   "1, 2048 MiB, 616 MiB, [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], "
                   "[N/A]\n"
                   "0, 1024 MiB, 616 MiB, 12 %, 8 %, 4 %, 21 %, 1 %, 2 %, 0 %, 105 MB/s, 262 MB/s, [N/A], [N/A]\n"
                   "1, 2048 MiB, 616 MiB, [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], [N/A], "
                   "[N/A]\n");

  /* read back as the counter rows of a recording */
  trace = ks_nvsmi_reader_load_data (out, strlen (out), "gpm.csv", NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (find_counter (trace, "SM activity", 0, -1)->value[1], ==, 12);
  g_assert_cmpuint (find_counter (trace, "Tensor activity", 0, -1)->n_samples, ==, 2);
  g_assert_cmpfloat (find_counter (trace, "PCIe received", 0, -1)->value[0], ==, 262e6);
  g_assert_cmpfloat (find_counter (trace, "GPU memory reserved", 1, -1)->value[0], ==, 616 * 1048576.0);
  g_assert_null (find_counter (trace, "SM activity", 1, -1));
  g_assert_null (find_counter (trace, "NVLink sent", 0, -1));

  /* switched off by hand (overhead comparisons): no GPM call at all */
  g_setenv ("KINESCOPE_NVML_GPM", "0", TRUE);
  off = monitor (fake_nvml, (const char *[]) { "--format", "csv,noheader", "--query-gpu", "index,sm_active,memory.used",
                                               "--count", "1", NULL }, &err2, &status);
  g_unsetenv ("KINESCOPE_NVML_GPM");
  g_assert_cmpint (status, ==, 0);
  g_assert_cmpstr (off, ==, "0, [N/A], 1024 MiB\n1, [N/A], 2048 MiB\n");
}

/* nvidia-smi's own log of memory.used and memory.reserved on the H200
 * (driver 580): the monitor's header for the same fields is the same,
 * and the log reads into the rows the monitor's -o writes. */
static void
test_h200_memory (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "nvsmi_h200_memory.csv", NULL);
  g_autofree char *text = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GFile) file = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  int status;

  if (!check_setup ())
    return;
  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  out = monitor (fake_nvml, (const char *[]) { "--format", "csv", "--query-gpu",
                                               "timestamp,memory.used,memory.reserved,memory.total", "--count", "1",
                                               NULL }, &err, &status);
  g_assert_cmpint (status, ==, 0);
  g_assert_true (g_str_has_prefix (out, lines[0]));
  g_assert_cmpint (out[strlen (lines[0])], ==, '\n');

  /* 2026/12/04 16:42:52.647, 25121 MiB, 616 MiB, 143771 MiB */
  file = g_file_new_for_path (path);
  trace = ks_trace_load (file, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpfloat (find_counter (trace, "GPU memory used", 0, -1)->value[0], ==, 25121 * 1048576.0);
  g_assert_cmpfloat (find_counter (trace, "GPU memory reserved", 0, -1)->value[0], ==, 616 * 1048576.0);
}

static void
test_bad_options (void)
{
  const char **cases[] = {
    (const char *[]) { "--query-gpu", "index,fan.wobble", NULL },
    (const char *[]) { "--format", "xml", NULL },
    (const char *[]) { "-l", "0", NULL },
    (const char *[]) { "--count", "-1", NULL },
    (const char *[]) { "stray", NULL },
  };

  if (!check_setup ())
    return;
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *err = NULL;
      g_autofree char *out = NULL;
      int status;

      out = monitor (fake_nvml, cases[i], &err, &status);
      g_assert_cmpint (status, ==, 2);
      g_assert_true (g_str_has_prefix (err, "kinescope-cli monitor: "));
    }
}

/* Every GPU, its processes as pmon shows them, the sparkline growing by
 * one bar a sample: 37 % is "▃", 73 % "▆". */
static void
test_table (void)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status;

  if (!check_setup ())
    return;
  out = monitor (fake_nvml, (const char *[]) { "--count", "3", "-l", "0.05", NULL }, &err, &status);
  g_assert_cmpint (status, ==, 0);
  /* not a terminal: frames one after the other, no escape codes */
  g_assert_null (strchr (out, '\033'));
  g_assert_nonnull (strstr (out, "Fake GPU 0"));
  g_assert_nonnull (strstr (out, "1024 / 81920 MiB  55 °C   123.5 W  1410 MHz ▃▃▃\n"));
  g_assert_nonnull (strstr (out, "2048 / 81920 MiB      -   123.5 W  1410 MHz ▆▆▆\n"));
  g_assert_nonnull (strstr (out, "  0     4242  30 %   4 %   2048 MiB python3\n"));
  g_assert_nonnull (strstr (out, "  0     4343   7 %   1 %    512 MiB pt_data_worker\n"));
  g_assert_nonnull (strstr (out, " ▃\n"));
  g_assert_nonnull (strstr (out, " ▃▃\n"));
  /* SM and tensor activity beside utilization; GPU 1 has no GPM */
  g_assert_nonnull (strstr (out, " 37 %    5 %    12 %     4 %      1024 / 81920 MiB"));
  g_assert_nonnull (strstr (out, " 73 %    5 %     N/A     N/A      2048 / 81920 MiB"));
}

static const KsCounter *
find_counter (KsTrace    *trace,
              const char *name,
              gint32      device,
              gint64      pid)
{
  for (guint32 i = 0; i < trace->n_counters; i++)
    {
      const KsCounter *c = &trace->counters[i];
      gint64 cpid = c->process == KS_NO_INDEX ? -1 : trace->processes[c->process].pid;

      if (strcmp (ks_trace_string (trace, c->name), name) == 0 && c->device == device && cpid == pid)
        return c;
    }
  return NULL;
}

static void
check_kscope (const char *path,
              guint       n_samples)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = ks_trace_load (file, NULL, NULL, &error);
  const KsCounter *c;

  g_assert_no_error (error);
  g_assert_cmpuint (trace->n_gpus, ==, 2);
  c = find_counter (trace, "GPU utilization", 0, -1);
  g_assert_nonnull (c);
  g_assert_cmpstr (ks_trace_string (trace, c->unit), ==, "%");
  if (n_samples > 0)
    g_assert_cmpuint (c->n_samples, ==, n_samples);
  g_assert_cmpuint (c->n_samples, >=, 1);
  g_assert_cmpfloat (c->value[0], ==, 37);
  c = find_counter (trace, "GPU memory used", 1, -1);
  g_assert_cmpstr (ks_trace_string (trace, c->unit), ==, "bytes");
  g_assert_cmpfloat (c->value[0], ==, 2 * GIB);
  g_assert_nonnull (find_counter (trace, "SM clock", 1, -1));
  g_assert_nonnull (find_counter (trace, "GPU power", 0, -1));
  /* GPU 1 has no temperature sensor */
  g_assert_nonnull (find_counter (trace, "GPU temperature", 0, -1));
  g_assert_null (find_counter (trace, "GPU temperature", 1, -1));
  c = find_counter (trace, "SM utilization", 0, 4242);
  g_assert_nonnull (c);
  g_assert_cmpfloat (c->value[0], ==, 30);
  c = find_counter (trace, "GPU memory used", 0, 4343);
  g_assert_cmpfloat (c->value[0], ==, 0.5 * GIB);
  /* GPM of GPU 0, under the names a recording gives them */
  c = find_counter (trace, "SM activity", 0, -1);
  g_assert_nonnull (c);
  g_assert_cmpstr (ks_trace_string (trace, c->unit), ==, "%");
  g_assert_cmpfloat (c->value[0], ==, 12.25);
  g_assert_cmpfloat_with_epsilon (find_counter (trace, "PCIe sent", 0, -1)->value[0], 100 * 1048576.0, 1e-3);
  g_assert_null (find_counter (trace, "SM activity", 1, -1));
  g_assert_cmpfloat (find_counter (trace, "GPU memory reserved", 1, -1)->value[0], ==, 644939776.0);
  for (guint32 i = 0; i < trace->n_processes; i++)
    if (trace->processes[i].pid == 4242)
      g_assert_cmpstr (ks_trace_string (trace, trace->processes[i].name), ==, "python3");
}

static void
test_output (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-monitor-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "gpus.kscope", NULL);
  g_autofree char *out = NULL;
  g_autofree char *out2 = NULL;
  g_autofree char *err = NULL;
  g_autofree char *err2 = NULL;
  int status;

  if (!check_setup ())
    return;
  out = monitor (fake_nvml, (const char *[]) { "--format", "csv", "--count", "3", "-l", "0.05", "-o", path, NULL },
                 &err, &status);
  g_assert_cmpint (status, ==, 0);
  check_kscope (path, 3);

  /* an existing file is kept unless --force */
  out2 = monitor (fake_nvml, (const char *[]) { "--count", "1", "-o", path, NULL }, &err2, &status);
  g_assert_cmpint (status, ==, 1);
  g_assert_nonnull (strstr (err2, "exists (use --force to replace it)"));
  g_assert_cmpstr (out2, ==, "");
  check_kscope (path, 3);

  g_unlink (path);
  g_rmdir (dir);
}

static gboolean
kill_cb (gpointer data)
{
  kill (GPOINTER_TO_INT (data), SIGINT);
  return G_SOURCE_REMOVE;
}

static void
exit_cb (GPid     pid,
         gint     wait_status,
         gpointer data)
{
  int *status = data;

  *status = WIFEXITED (wait_status) ? WEXITSTATUS (wait_status) : 128 + WTERMSIG (wait_status);
  g_spawn_close_pid (pid);
}

/* Ctrl-C ends a monitor without --count; its samples are written. */
static void
test_interrupt (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-monitor-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "gpus.kscope", NULL);
  g_auto(GStrv) env = g_get_environ ();
  g_autoptr(GError) error = NULL;
  const char *argv[] = { cli_path, "monitor", "--format", "csv", "-l", "0.05", "-o", path, NULL };
  GPid pid;
  int status = -1;

  if (!check_setup ())
    return;
  env = g_environ_setenv (env, "KINESCOPE_NVML_LIBRARY", fake_nvml, TRUE);
  g_assert_true (g_spawn_async (NULL, (char **) argv, env, G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL,
                                NULL, NULL, &pid, &error));
  g_assert_no_error (error);
  g_child_watch_add (pid, exit_cb, &status);
  g_timeout_add (500, kill_cb, GINT_TO_POINTER (pid));
  while (status < 0)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (status, ==, 0);
  check_kscope (path, 0);

  g_unlink (path);
  g_rmdir (dir);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (argc > 2)
    {
      cli_path = argv[1];
      fake_nvml = argv[2];
    }

  g_test_add_func ("/monitor/no-driver", test_no_driver);
  g_test_add_func ("/monitor/csv", test_csv);
  g_test_add_func ("/monitor/bad-options", test_bad_options);
  g_test_add_func ("/monitor/table", test_table);
  g_test_add_func ("/monitor/gpm", test_gpm);
  g_test_add_func ("/monitor/h200-memory", test_h200_memory);
  g_test_add_func ("/monitor/output", test_output);
  g_test_add_func ("/monitor/interrupt", test_interrupt);

  return g_test_run ();
}
