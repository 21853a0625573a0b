/* test-nvsmi-reader.c: nvidia-smi logs (--query-gpu csv, dmon, pmon) as counter rows
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>
#include <glib/gstdio.h>

#include "ks-counter-names.h"
#include "ks-gpm.h"
#include "ks-nvsmi-reader.h"
#include "ks-trace-loader.h"

#define MIB (1024.0 * 1024.0)

static char *
corpus_file (const char *dir,
             const char *name)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  char *path;

  if (shared == NULL)
    return NULL;
  path = g_build_filename (shared, "corpus", dir, name, NULL);
  if (!g_file_test (path, G_FILE_TEST_IS_REGULAR))
    g_clear_pointer (&path, g_free);
  return path;
}

static const KsCounter *
find_counter (KsTrace    *trace,
              const char *name,
              gint32      device,
              guint32     process)
{
  for (guint32 i = 0; i < trace->n_counters; i++)
    {
      const KsCounter *c = &trace->counters[i];

      if (strcmp (ks_trace_string (trace, c->name), name) == 0 && c->device == device && c->process == process)
        return c;
    }
  return NULL;
}

static const KsCounter *
get_counter (KsTrace    *trace,
             const char *name,
             const char *unit,
             gint32      device)
{
  const KsCounter *c = find_counter (trace, name, device, KS_NO_INDEX);

  if (c == NULL)
    g_error ("no counter “%s” of GPU %d", name, device);
  g_assert_cmpstr (ks_trace_string (trace, c->unit), ==, unit);
  return c;
}

static const char *
warnings (KsTrace *trace)
{
  const char *w = g_hash_table_lookup (trace->metadata, "warnings");

  return w ? w : "";
}

/* Data lines of a csv: neither blank nor the header (which has no digit
 * in its first field). */
static GPtrArray *
data_rows (const char *text)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  GPtrArray *rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);

  for (char **l = lines; *l; l++)
    {
      g_strstrip (*l);
      if (**l == 0 || !g_ascii_isdigit (**l))
        continue;
      g_ptr_array_add (rows, g_strsplit (*l, ",", -1));
    }
  return rows;
}

static KsTrace *
load_text (const char           *text,
           const KsNvsmiOptions *options,
           GError              **error)
{
  return ks_nvsmi_reader_load_data (text, strlen (text), "test.log", options, NULL, NULL, error);
}

static KsTrace *
load_corpus (const char  *dir,
             const char  *name,
             char       **text)
{
  g_autofree char *path = corpus_file (dir, name);
  g_autoptr(GFile) file = NULL;
  g_autoptr(GError) error = NULL;
  KsTrace *trace;

  if (path == NULL)
    {
      g_test_skip ("the shared corpus (KS_SHARED_DIR/corpus/nvsmi_*) is absent");
      return NULL;
    }
  g_assert_true (g_file_get_contents (path, text, NULL, NULL));
  file = g_file_new_for_path (path);
  g_assert_cmpint (ks_trace_detect_format (file, NULL), ==, KS_FORMAT_NVIDIA_SMI);
  trace = ks_trace_load (file, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (trace->format, ==, KS_FORMAT_NVIDIA_SMI);
  return trace;
}

/* timestamp, index, name, utilization.gpu [%], utilization.memory [%],
 * memory.total [MiB], memory.used [MiB], temperature.gpu: one V100. */
static void
test_corpus_miris (void)
{
  g_autofree char *text = NULL;
  g_autoptr(KsTrace) trace = load_corpus ("nvsmi_miris", "gpu_log.csv", &text);
  g_autoptr(GPtrArray) rows = NULL;
  const KsCounter *util, *used, *temp;
  double temp_sum = 0, sum = 0;

  if (trace == NULL)
    return;
  rows = data_rows (text);
  g_assert_cmpuint (rows->len, >, 100);

  g_assert_cmpuint (trace->n_gpus, ==, 1);
  g_assert_cmpstr (ks_trace_string (trace, trace->gpus[0].name), ==, "Tesla V100S-PCIE-32GB");
  g_assert_cmpuint (trace->gpus[0].total_memory, ==, (guint64) (32768 * MIB));
  util = get_counter (trace, "GPU utilization", "%", 0);
  used = get_counter (trace, "GPU memory used", "bytes", 0);
  temp = get_counter (trace, "GPU temperature", "°C", 0);
  get_counter (trace, "GPU memory utilization", "%", 0);
  get_counter (trace, "GPU memory total", "bytes", 0);
  g_assert_cmpuint (util->n_samples, ==, rows->len);
  g_assert_cmpuint (used->n_samples, ==, rows->len);
  g_assert_cmpuint (temp->n_samples, ==, rows->len);
  g_assert_cmpfloat (used->value[0], ==, 1 * MIB);
  for (guint i = 0; i < rows->len; i++)
    {
      char **f = g_ptr_array_index (rows, i);

      temp_sum += g_ascii_strtod (f[7], NULL);
      sum += temp->value[i];
    }
  g_assert_cmpfloat (sum, ==, temp_sum);
  /* 2025/06/13 00:27:52.195 … 00:29:38.248 */
  g_assert_cmpint (trace->duration_ns, ==, 106053000000);
  g_assert_cmpint (util->ts[1] - util->ts[0], ==, 1001000000);
  g_assert_cmpstr (warnings (trace), ==, "");
}

/* A script's log: ISO 8601 times, its own "gpu" column before
 * nvidia-smi's, eight GPUs a sample, the last sample cut after GPU 2. */
static void
test_corpus_gpu_glasses (void)
{
  g_autofree char *text = NULL;
  g_autoptr(KsTrace) trace = load_corpus ("nvsmi_gpu_glasses", "nvidia_smi.csv", &text);
  g_autoptr(GPtrArray) rows = NULL;
  guint per_gpu[8] = { 0 };

  if (trace == NULL)
    return;
  rows = data_rows (text);
  for (guint i = 0; i < rows->len; i++)
    {
      char **f = g_ptr_array_index (rows, i);
      guint64 gpu = g_ascii_strtoull (f[1], NULL, 10);

      g_assert_cmpuint (gpu, <, 8);
      per_gpu[gpu]++;
    }
  g_assert_cmpuint (trace->n_gpus, ==, 8);
  for (int d = 0; d < 8; d++)
    {
      const KsCounter *power = get_counter (trace, "GPU power", "W", d);
      const KsCounter *used = get_counter (trace, "GPU memory used", "bytes", d);

      g_assert_cmpuint (power->n_samples, ==, per_gpu[d]);
      g_assert_cmpuint (used->n_samples, ==, per_gpu[d]);
      get_counter (trace, "GPU temperature", "°C", d);
      g_assert_cmpfloat (used->value[0], ==, 4 * MIB);
    }
  /* the first row: GPU 0, 74.01 W */
  g_assert_cmpfloat_with_epsilon (get_counter (trace, "GPU power", "W", 0)->value[0], 74.01, 1e-9);
  /* "index" is not taken as the device where "gpu" is */
  g_assert_nonnull (strstr (warnings (trace), "“index” is left out"));
  g_assert_null (find_counter (trace, "index", 0, KS_NO_INDEX));
  g_assert_cmpint (trace->duration_ns, ==, 8000000000);
}

/* noheader with units: the columns are named after their units. */
static void
test_corpus_plato (void)
{
  g_autofree char *text = NULL;
  g_autoptr(KsTrace) trace = load_corpus ("nvsmi_plato", "gpu_log.csv", &text);
  g_autoptr(GPtrArray) rows = NULL;
  const KsCounter *power;

  if (trace == NULL)
    return;
  rows = data_rows (text);
  g_assert_cmpuint (trace->n_gpus, ==, 1);
  power = get_counter (trace, "GPU power", "W", 0);
  g_assert_cmpuint (power->n_samples, ==, rows->len);
  g_assert_cmpuint (get_counter (trace, "GPU utilization", "%", 0)->n_samples, ==, rows->len);
  g_assert_cmpuint (get_counter (trace, "GPU memory used", "bytes", 0)->n_samples, ==, rows->len);
  g_assert_cmpfloat (get_counter (trace, "GPU memory used", "bytes", 0)->value[0], ==, 2 * MIB);
  g_assert_cmpfloat (get_counter (trace, "GPU memory total", "bytes", 0)->value[0], ==, 20146 * MIB);
  g_assert_cmpuint (get_counter (trace, "GPU temperature", "°C", 0)->n_samples, ==, rows->len);
  g_assert_cmpfloat_with_epsilon (power->value[0], 11.64, 1e-9);
  g_assert_nonnull (strstr (warnings (trace), "no header line: the columns were taken from their units as "
                                              "timestamp,utilization.gpu,utilization.memory,memory.used,"
                                              "memory.total,temperature.gpu,power.draw"));
}

/* Seconds since the epoch as the timestamp, nounits, a minute apart. */
static void
test_corpus_rectified (void)
{
  g_autofree char *text = NULL;
  g_autoptr(KsTrace) trace = load_corpus ("nvsmi_rectified_point_flow", "gpu_usage.csv", &text);
  g_autoptr(GPtrArray) rows = NULL;
  const KsCounter *util;
  double want = 0, got = 0;
  gint64 first, last;

  if (trace == NULL)
    return;
  rows = data_rows (text);
  util = get_counter (trace, "GPU utilization", "%", 0);
  g_assert_cmpuint (util->n_samples, ==, rows->len);
  for (guint i = 0; i < rows->len; i++)
    {
      want += g_ascii_strtod (((char **) g_ptr_array_index (rows, i))[3], NULL);
      got += util->value[i];
    }
  g_assert_cmpfloat (got, ==, want);
  first = g_ascii_strtoll (((char **) g_ptr_array_index (rows, 0))[0], NULL, 10);
  last = g_ascii_strtoll (((char **) g_ptr_array_index (rows, rows->len - 1))[0], NULL, 10);
  g_assert_cmpint (trace->duration_ns, ==, (last - first) * 1000000000);
  g_assert_cmpint (trace->start_utc_ns, ==, first * 1000000000);
}

static void
test_csv_variants (void)
{
  const char *with_units =
    "timestamp, index, utilization.gpu [%], memory.used [MiB], power.draw [W], clocks.sm [MHz]\n"
    "2026/01/02 03:04:05.000, 0, 50 %, 100 MiB, 200.50 W, 1980 MHz\n"
    "2026/01/02 03:04:05.000, 1, 10 %, 200 MiB, [N/A], 1410 MHz\n"
    "2026/01/02 03:04:06.000, 0, 60 %, 110 MiB, 210.00 W, 1980 MHz\n"
    "2026/01/02 03:04:06.000, 1, 20 %, 210 MiB, [N/A], 1410 MHz\n";
  const char *nounits =
    "timestamp, index, utilization.gpu [%], memory.used [MiB], power.draw [W], clocks.sm [MHz]\n"
    "2026/01/02 03:04:05.000, 0, 50, 100, 200.50, 1980\n"
    "2026/01/02 03:04:05.000, 1, 10, 200, [N/A], 1410\n"
    "2026/01/02 03:04:06.000, 0, 60, 110, 210.00, 1980\n"
    "2026/01/02 03:04:06.000, 1, 20, 210, [N/A], 1410\n";
  const char *noheader_nounits =
    "2026/01/02 03:04:05.000, 0, 50, 100, 200.50, 1980\n"
    "2026/01/02 03:04:05.000, 1, 10, 200, [N/A], 1410\n"
    "2026/01/02 03:04:06.000, 0, 60, 110, 210.00, 1980\n"
    "2026/01/02 03:04:06.000, 1, 20, 210, [N/A], 1410\n";
  KsNvsmiOptions columns = { 0, "timestamp,index,utilization.gpu,memory.used,power.draw,clocks.sm" };
  const char *texts[] = { with_units, nounits, noheader_nounits };
  const KsNvsmiOptions *options[] = { NULL, NULL, &columns };

  for (guint k = 0; k < G_N_ELEMENTS (texts); k++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(KsTrace) trace = load_text (texts[k], options[k], &error);
      const KsCounter *c;

      g_assert_no_error (error);
      g_assert_cmpuint (trace->n_gpus, ==, 2);
      c = get_counter (trace, "GPU utilization", "%", 1);
      g_assert_cmpuint (c->n_samples, ==, 2);
      g_assert_cmpfloat (c->value[0], ==, 10);
      g_assert_cmpfloat (c->value[1], ==, 20);
      g_assert_cmpint (c->ts[1] - c->ts[0], ==, 1000000000);
      c = get_counter (trace, "GPU memory used", "bytes", 0);
      g_assert_cmpfloat (c->value[1], ==, 110 * MIB);
      c = get_counter (trace, "GPU power", "W", 0);
      g_assert_cmpuint (c->n_samples, ==, 2);
      g_assert_cmpfloat (c->value[0], ==, 200.5);
      /* [N/A] is no sample */
      g_assert_null (find_counter (trace, "GPU power", 1, KS_NO_INDEX));
      g_assert_cmpfloat (get_counter (trace, "SM clock", "MHz", 1)->value[0], ==, 1410);
    }

  /* noheader, nounits and no --columns: nothing says what the columns are */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(KsTrace) trace = load_text (noheader_nounits, NULL, &error);

    g_assert_null (trace);
    g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
    g_assert_true (g_str_has_prefix (error->message, "test.log: line 1: "));
    g_assert_nonnull (strstr (error->message, "--columns="));
  }
}

/* Without the timestamp column: samples -l's interval apart, one row per
 * GPU each; a new sample starts when a GPU comes again. */
static void
test_csv_no_timestamp (void)
{
  const char *text =
    "index, utilization.gpu [%], temperature.gpu\n"
    "0, 10 %, 40\n1, 20 %, 41\n"
    "0, 30 %, 42\n1, 40 %, 43\n"
    "0, 50 %, 44\n1, 60 %, 45\n";
  const char *one_gpu = "utilization.gpu [%], memory.used [MiB]\n5 %, 1 MiB\n6 %, 2 MiB\n7 %, 3 MiB\n";
  double intervals[] = { 0, 0.5, 5 };

  for (guint k = 0; k < G_N_ELEMENTS (intervals); k++)
    {
      KsNvsmiOptions options = { intervals[k], NULL };
      double step = intervals[k] > 0 ? intervals[k] : 1;
      g_autoptr(GError) error = NULL;
      g_autoptr(KsTrace) trace = load_text (text, &options, &error);
      g_autofree char *said = g_strdup_printf ("samples are taken as %g s apart", step);
      const KsCounter *c;

      g_assert_no_error (error);
      g_assert_cmpuint (trace->n_gpus, ==, 2);
      c = get_counter (trace, "GPU utilization", "%", 1);
      g_assert_cmpuint (c->n_samples, ==, 3);
      g_assert_cmpint (c->ts[0], ==, 0);
      g_assert_cmpint (c->ts[2], ==, (gint64) (2 * step * 1e9));
      g_assert_cmpfloat (c->value[2], ==, 60);
      g_assert_cmpuint (get_counter (trace, "GPU temperature", "°C", 0)->n_samples, ==, 3);
      g_assert_nonnull (strstr (warnings (trace), said));
      g_assert_cmpint (trace->start_utc_ns, ==, 0);
    }

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(KsTrace) trace = load_text (one_gpu, NULL, &error);
    const KsCounter *c;

    g_assert_no_error (error);
    c = get_counter (trace, "GPU memory used", "bytes", 0);
    g_assert_cmpuint (c->n_samples, ==, 3);
    g_assert_cmpint (c->ts[2], ==, 2000000000);
  }
}

/* Several GPUs with the same time and no index: nvidia-smi's order. */
static void
test_csv_no_index (void)
{
  const char *text =
    "timestamp, name, utilization.gpu [%]\n"
    "2026/01/02 03:04:05.000, NVIDIA H200, 1 %\n"
    "2026/01/02 03:04:05.000, NVIDIA H200, 2 %\n"
    "2026/01/02 03:04:05.000, NVIDIA H200, 3 %\n"
    "2026/01/02 03:04:06.000, NVIDIA H200, 4 %\n"
    "2026/01/02 03:04:06.000, NVIDIA H200, 5 %\n"
    "2026/01/02 03:04:06.000, NVIDIA H200, 6 %\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (text, NULL, &error);

  g_assert_no_error (error);
  g_assert_cmpuint (trace->n_gpus, ==, 3);
  for (int d = 0; d < 3; d++)
    {
      const KsCounter *c = get_counter (trace, "GPU utilization", "%", d);

      g_assert_cmpuint (c->n_samples, ==, 2);
      g_assert_cmpfloat (c->value[0], ==, d + 1);
      g_assert_cmpfloat (c->value[1], ==, d + 4);
    }
}

static void
test_dmon (void)
{
  const char *plain =
    "# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk\n"
    "# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz\n"
    "    0    310     61     70     97     45      0      0      0      0   2619   1980\n"
    "    1    305     60      -     95     44      0      0      0      0   2619   1980\n"
    "    0    312     62     71     12     40      0      0      0      0   2619   1980\n"
    "    1    300     61      -     94     43      0      0      0      0   2619   1980\n"
    "# gpu    pwr  gtemp  mtemp     sm    mem    enc    dec    jpg    ofa   mclk   pclk\n"
    "# Idx      W      C      C      %      %      %      %      %      %    MHz    MHz\n"
    "    0    315     62     71     99     46      0      0      0      0   2619   1980\n"
    "    1    301     61      -     93     42      0      0      0      0   2619   1980\n";
  const char *dated =
    "#Date       Time        gpu     sm    mem     fb\n"
    "#YYYYMMDD   HH:MM:SS    Idx      %      %     MB\n"
    " 20260102   03:04:05      0     97     45  70000\n"
    " 20260102   03:04:07      0     12     40  70001\n"
    " 20260102   03:04:09      0     99     46  70002\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (plain, NULL, &error);
  g_autoptr(KsTrace) trace2 = NULL;
  const KsCounter *c;

  g_assert_cmpint (ks_trace_detect_format_from_data ((const guint8 *) plain, strlen (plain)), ==, KS_FORMAT_NVIDIA_SMI);
  g_assert_no_error (error);
  g_assert_cmpuint (trace->n_gpus, ==, 2);
  c = get_counter (trace, "GPU utilization", "%", 0);
  g_assert_cmpuint (c->n_samples, ==, 3);
  g_assert_cmpfloat (c->value[1], ==, 12);
  g_assert_cmpint (c->ts[2], ==, 2000000000);
  g_assert_cmpuint (get_counter (trace, "GPU power", "W", 1)->n_samples, ==, 3);
  g_assert_cmpuint (get_counter (trace, "GPU memory temperature", "°C", 0)->n_samples, ==, 3);
  g_assert_null (find_counter (trace, "GPU memory temperature", 1, KS_NO_INDEX));
  g_assert_cmpfloat (get_counter (trace, "Graphics clock", "MHz", 1)->value[0], ==, 1980);
  g_assert_nonnull (strstr (warnings (trace), "1 s apart"));

  trace2 = load_text (dated, NULL, &error);
  g_assert_no_error (error);
  c = get_counter (trace2, "GPU memory used", "bytes", 0);
  g_assert_cmpuint (c->n_samples, ==, 3);
  g_assert_cmpfloat (c->value[2], ==, 70002 * MIB);
  g_assert_cmpint (c->ts[2] - c->ts[0], ==, 4000000000);
  g_assert_cmpstr (warnings (trace2), ==, "");
}

static void
test_pmon (void)
{
  const char *text =
    "# gpu         pid   type     sm    mem    enc    dec    jpg    ofa    command\n"
    "# Idx           #    C/G      %      %      %      %      %      %    name\n"
    "    0      41235     C     95     40      -      -      -      -    python\n"
    "    0      41300     C      3      1      -      -      -      -    pt_data_worker\n"
    "    1          -     -      -      -      -      -      -      -    -\n"
    "    0      41235     C     90     38      -      -      -      -    python\n"
    "    0      41300     C      -      -      -      -      -      -    pt_data_worker\n"
    "    1      41400     C     50     20      -      -      -      -    my trainer\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (text, NULL, &error);
  guint32 p_python = KS_NO_INDEX, p_worker = KS_NO_INDEX, p_trainer = KS_NO_INDEX;
  const KsCounter *c;

  g_assert_no_error (error);
  g_assert_cmpuint (trace->n_processes, ==, 3);
  for (guint32 i = 0; i < trace->n_processes; i++)
    {
      const char *name = ks_trace_string (trace, trace->processes[i].name);

      if (trace->processes[i].pid == 41235)
        {
          g_assert_cmpstr (name, ==, "python");
          p_python = i;
        }
      else if (trace->processes[i].pid == 41300)
        p_worker = i;
      else if (trace->processes[i].pid == 41400)
        {
          g_assert_cmpstr (name, ==, "my trainer");
          p_trainer = i;
        }
    }
  g_assert_cmpuint (p_python, !=, KS_NO_INDEX);
  c = find_counter (trace, "SM utilization", 0, p_python);
  g_assert_nonnull (c);
  g_assert_cmpstr (ks_trace_string (trace, c->unit), ==, "%");
  g_assert_cmpuint (c->n_samples, ==, 2);
  g_assert_cmpfloat (c->value[0], ==, 95);
  g_assert_cmpfloat (c->value[1], ==, 90);
  g_assert_cmpint (c->ts[1] - c->ts[0], ==, 1000000000);
  c = find_counter (trace, "SM utilization", 0, p_worker);
  g_assert_cmpuint (c->n_samples, ==, 1);
  c = find_counter (trace, "Memory utilization", 1, p_trainer);
  g_assert_cmpuint (c->n_samples, ==, 1);
  g_assert_cmpint (c->ts[0], ==, 1000000000);
  /* a pmon log has no device rows */
  g_assert_null (find_counter (trace, "GPU utilization", 0, KS_NO_INDEX));
}

static void
expect_error (const char *text,
              const char *message)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (text, NULL, &error);

  g_assert_null (trace);
  g_assert_nonnull (error);
  if (strstr (error->message, message) == NULL)
    g_error ("“%s” does not say “%s”", error->message, message);
}

static void
test_bad_logs (void)
{
  /* headers that promise a log, rows that are not one */
  expect_error ("timestamp, index, utilization.gpu [%]\n2026/01/02 03:04:05.000, 0, 5 %\nhello world\n",
                "test.log: line 3: 1 fields where the header line has 3");
  expect_error ("index, utilization.gpu [%]\n0, 5 %\n0, lots\n",
                "test.log: line 3: “lots” is not a number (column “utilization.gpu”)");
  expect_error ("timestamp, index, utilization.gpu\nyesterday, 0, 5\n", "test.log: line 2: “yesterday” is not a timestamp");
  /* past 2100 (nanoseconds since 1970 near the builder's 2^62) */
  expect_error ("timestamp, index, utilization.gpu\n4052/01/02 03:04:05.000, 0, 97\n",
                "test.log: line 2: “4052/01/02 03:04:05.000” is not a timestamp");
  expect_error ("timestamp, index, utilization.gpu\n4052-01-02T03:04:05Z, 0, 97\n",
                "test.log: line 2: “4052-01-02T03:04:05Z” is not a timestamp");
  expect_error ("#Date Time gpu sm\n 40520102 03:04:05 0 5\n", "test.log: line 2: “40520102” is not a date");
  {
    /* 1970 to 2100 (4102444800 s) is 47482 days. 23:00 then 01:00 over
     * and over: a day passes at each 01:00, the rows from line 2 on. */
    const guint days = 4102444800u / 86400;
    g_autoptr(GString) text = g_string_new ("#Time gpu sm\n");
    KsNvsmiOptions slow = { 86400, NULL };
    g_autoptr(GString) many = g_string_new ("utilization.gpu\n");
    g_autoptr(GError) error = NULL;
    g_autoptr(KsTrace) trace = NULL;
    g_autofree char *at_day = g_strdup_printf ("test.log: line %u: the log's times run past the year 2100",
                                               2 * days - 1 + 2);
    g_autofree char *at_sample = g_strdup_printf ("test.log: line %u: the log's times run past the year 2100",
                                                  days + 2);

    for (guint i = 0; i < 2 * days + 10; i++)
      g_string_append (text, i % 2 ? " 01:00:00 0 5\n" : " 23:00:00 0 5\n");
    expect_error (text->str, at_day);
    /* a day between samples without times */
    for (guint i = 0; i < days + 10; i++)
      g_string_append (many, "5\n");
    trace = load_text (many->str, &slow, &error);
    g_assert_null (trace);
    g_assert_cmpstr (error->message, ==, at_sample);
  }
  /* a total memory beyond any GPU's does not fit the GPU's row */
  expect_error ("index, memory.total [MiB]\n0, 8e81 MiB\n",
                "test.log: line 2: “8e81 MiB” is out of range (column “memory.total”)");
  expect_error ("index, utilization.gpu\n0, -1e300\n",
                "test.log: line 2: “-1e300” is out of range (column “utilization.gpu”)");
  expect_error ("index, utilization.gpu\n-3, 5\n", "test.log: line 2: “-3” is not a GPU index");
  expect_error ("index, utilization.gpu\n99999, 5\n", "test.log: line 2: “99999” is not a GPU index");
  expect_error ("# gpu    pwr     sm\n# Idx      W      %\n 0 x 5\n", "test.log: line 3: “x” is not a number (column “pwr”)");
  expect_error ("# gpu    pwr     sm\n 0 1 2 3\n", "test.log: line 2: 4 fields where the header line has 3");
  expect_error ("# gpu  pid  type  sm  command\n 0 abc C 5 python\n", "test.log: line 2: “abc” is not a process id");
  expect_error ("# gpu    pwr     sm\n# something else\n", "test.log: line 2: a comment line that is neither");
  expect_error ("index, utilization.gpu\n", "test.log: an nvidia-smi log without samples");
  expect_error ("hello, world\n1, 2\n", "test.log: not an nvidia-smi log");

  /* a last line cut short is left out, with a warning */
  {
    const char *text = "index, utilization.gpu [%], memory.used [MiB]\n0, 5 %, 1 MiB\n0, 6 %, 2 MiB\n0, 7";
    g_autoptr(GError) error = NULL;
    g_autoptr(KsTrace) trace = load_text (text, NULL, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (get_counter (trace, "GPU utilization", "%", 0)->n_samples, ==, 2);
    g_assert_nonnull (strstr (warnings (trace), "line 4 is cut short"));
  }
}

/* Values in a unit other than their column's: converted when it is the
 * same quantity (kW, GHz), refused naming the line when it is not (MiB
 * in a % column), and never a hexadecimal, NaN or infinite number. */
static void
test_units (void)
{
  const char *text =
    "index, power.draw [W], clocks.sm [MHz], temperature.gpu, memory.used [MiB]\n"
    "0, 0.3 kW, 1.98 GHz, 45 C, 2 GiB\n"
    "0, 250 W, 1410 MHz, 46, 1024 KiB\n"
    "0, 1500 mW, 500 kHz, 47 °C, 3 MiB\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (text, NULL, &error);
  const KsCounter *c;

  g_assert_no_error (error);
  c = get_counter (trace, "GPU power", "W", 0);
  g_assert_cmpuint (c->n_samples, ==, 3);
  g_assert_cmpfloat_with_epsilon (c->value[0], 300, 1e-9);
  g_assert_cmpfloat (c->value[1], ==, 250);
  g_assert_cmpfloat_with_epsilon (c->value[2], 1.5, 1e-12);
  c = get_counter (trace, "SM clock", "MHz", 0);
  g_assert_cmpfloat_with_epsilon (c->value[0], 1980, 1e-9);
  g_assert_cmpfloat (c->value[1], ==, 1410);
  g_assert_cmpfloat_with_epsilon (c->value[2], 0.5, 1e-12);
  c = get_counter (trace, "GPU temperature", "°C", 0);
  g_assert_cmpfloat (c->value[0], ==, 45);
  g_assert_cmpfloat (c->value[2], ==, 47);
  c = get_counter (trace, "GPU memory used", "bytes", 0);
  g_assert_cmpfloat (c->value[0], ==, 2048 * MIB);
  g_assert_cmpfloat (c->value[1], ==, 1024 * 1024);
  g_assert_cmpfloat (c->value[2], ==, 3 * MIB);

  expect_error ("index, utilization.gpu [%]\n0, 5 %\n0, 5 MiB\n",
                "test.log: line 3: “5 MiB” is in a unit that column “utilization.gpu” cannot take");
  expect_error ("index, power.draw [W]\n0, 1.98 GHz\n",
                "test.log: line 2: “1.98 GHz” is in a unit that column “power.draw” cannot take");
  expect_error ("index, memory.used [MiB]\n0, 5 %\n",
                "test.log: line 2: “5 %” is in a unit that column “memory.used” cannot take");
  expect_error ("index, clocks.sm [MHz]\n0, 300 W\n",
                "test.log: line 2: “300 W” is in a unit that column “clocks.sm” cannot take");
  /* a field we do not know keeps its header's unit */
  expect_error ("index, utilization.gpu, power.max_limit [W]\n0, 5, 700 W\n0, 5, 5 %\n",
                "test.log: line 3: “5 %” is in a unit that column “power.max_limit” cannot take");
  expect_error ("index, utilization.gpu, encoder.stats.averageFps [fps]\n0, 5, 30 fps\n0, 5, 30 Hz\n",
                "test.log: line 3: “30 Hz” is in a unit that column “encoder.stats.averageFps” cannot take");
  expect_error ("index, utilization.gpu [%]\n0, 0x10 %\n",
                "test.log: line 2: “0x10 %” is not a number (column “utilization.gpu”)");
  expect_error ("index, utilization.gpu\n0, 0x10\n", "test.log: line 2: “0x10” is not a number");
  expect_error ("index, utilization.gpu\n0, nan\n", "test.log: line 2: “nan” is not a number");
  expect_error ("index, utilization.gpu\n0, inf\n", "test.log: line 2: “inf” is not a number");
  expect_error ("index, utilization.gpu\n0, 1e999\n", "test.log: line 2: “1e999” is not a number");
}

/* Rows whose time goes back, or whose times are of another kind than the
 * first rows' (a dmon header that changes mid-file), are left out with a
 * warning naming the first: the timeline stays seconds long, not years. */
static void
test_time_backwards (void)
{
  const char *csv =
    "timestamp, index, utilization.gpu [%]\n"
    "2025/06/13 00:00:00.000, 0, 10 %\n"
    "2025/06/13 00:00:01.000, 0, 20 %\n"
    "2019/06/13 00:00:02.000, 0, 99 %\n"
    "2019/06/13 00:00:03.000, 0, 98 %\n"
    "2025/06/13 00:00:03.000, 0, 30 %\n";
  /* dates, then times of day alone (counted from 1970), then dates */
  const char *dmon_dated_first =
    "#Date Time gpu sm\n"
    "#YYYYMMDD HH:MM:SS Idx %\n"
    " 20250613 00:00:00 0 10\n"
    " 20250613 00:00:01 0 20\n"
    "#Time gpu sm\n"
    "#HH:MM:SS Idx %\n"
    " 00:00:02 0 99\n"
    " 00:00:03 0 98\n"
    "#Date Time gpu sm\n"
    " 20250613 00:00:03 0 30\n";
  /* times of day, then dates: 57 years later */
  const char *dmon_time_first =
    "#Time gpu sm\n"
    " 00:00:00 0 10\n"
    " 00:00:01 0 20\n"
    " 00:00:03 0 30\n"
    "#Date Time gpu sm\n"
    " 20270613 00:00:04 0 99\n";
  const char *texts[] = { csv, dmon_dated_first, dmon_time_first };
  const char *said[] = {
    "test.log: line 4: the log's time goes back; rows earlier than the one before them were left out: 2",
    "test.log: line 7: the times are of another kind than the first rows' (dates, times of day or none); "
      "such rows were left out: 2",
    "test.log: line 6: the times are of another kind than the first rows' (dates, times of day or none); "
      "such rows were left out: 1",
  };

  for (guint k = 0; k < G_N_ELEMENTS (texts); k++)
    {
      g_autoptr(GError) error = NULL;
      g_autoptr(KsTrace) trace = load_text (texts[k], NULL, &error);
      const KsCounter *c;

      g_assert_no_error (error);
      c = get_counter (trace, "GPU utilization", "%", 0);
      g_assert_cmpuint (c->n_samples, ==, 3);
      g_assert_cmpfloat (c->value[0], ==, 10);
      g_assert_cmpfloat (c->value[1], ==, 20);
      g_assert_cmpfloat (c->value[2], ==, 30);
      g_assert_cmpint (c->ts[2] - c->ts[0], ==, 3 * G_GINT64_CONSTANT (1000000000));
      if (strstr (warnings (trace), said[k]) == NULL)
        g_error ("“%s” does not say “%s”", warnings (trace), said[k]);
    }

  /* time of day that goes back less than an hour: not the next day */
  {
    g_autoptr(GError) error = NULL;
    g_autoptr(KsTrace) trace = load_text ("#Time gpu sm\n 10:00:00 0 10\n 09:30:00 0 99\n 10:00:01 0 20\n",
                                          NULL, &error);

    g_assert_no_error (error);
    g_assert_cmpuint (get_counter (trace, "GPU utilization", "%", 0)->n_samples, ==, 2);
    g_assert_nonnull (strstr (warnings (trace), "test.log: line 3: the log's time goes back"));
  }
}

/* A column of numbers that turns to text keeps its numbers and counts
 * the rest; a column of text from its first row is no counter, silently. */
static void
test_column_turns_to_text (void)
{
  const char *text =
    "index, utilization.gpu [%], clocks.max.sm [MHz], pstate, mig.mode.pending\n"
    "0, 10 %, 1980 MHz, P0, Disabled\n"
    "0, 20 %, 1980 MHz, P0, Disabled\n"
    "0, 30 %, Unknown Error, P0, Disabled\n"
    "0, 40 %, Unknown Error, P0, Disabled\n"
    "0, 50 %, 1755 MHz, P0, Disabled\n";
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = load_text (text, NULL, &error);
  const KsCounter *c;

  g_assert_no_error (error);
  c = get_counter (trace, "clocks.max.sm", "MHz", 0);
  g_assert_cmpuint (c->n_samples, ==, 3);
  g_assert_cmpfloat (c->value[2], ==, 1755);
  g_assert_cmpuint (get_counter (trace, "GPU utilization", "%", 0)->n_samples, ==, 5);
  g_assert_null (find_counter (trace, "mig.mode.pending", 0, KS_NO_INDEX));
  g_assert_null (strstr (warnings (trace), "mig.mode"));
  g_assert_true (g_str_has_suffix (warnings (trace),
                   "\ntest.log: line 4: column “clocks.max.sm” turns to text (“Unknown Error”); values that are "
                   "not numbers were left out: 2"));
}

/* Through the loader, by content: a file named .json that is a log and
 * a .csv that is not. */
static void
test_loader (void)
{
  g_autofree char *dir = g_dir_make_tmp ("ks-nvsmi-XXXXXX", NULL);
  g_autofree char *log = g_build_filename (dir, "trace.json", NULL);
  g_autofree char *other = g_build_filename (dir, "gpu.csv", NULL);
  g_autofree char *bare = g_build_filename (dir, "bare.csv", NULL);
  g_autoptr(GFile) f_log = g_file_new_for_path (log);
  g_autoptr(GFile) f_other = g_file_new_for_path (other);
  g_autoptr(GFile) f_bare = g_file_new_for_path (bare);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsTrace) trace2 = NULL;
  KsTraceLoadOptions options = { 2.0, "index,utilization.gpu" };

  g_assert_true (g_file_set_contents (log, "utilization.gpu [%], memory.used [MiB]\n5 %, 1 MiB\n6 %, 2 MiB\n", -1, NULL));
  g_assert_true (g_file_set_contents (other, "a,b,c\n1,2,3\n", -1, NULL));
  g_assert_true (g_file_set_contents (bare, "0, 10\n1, 20\n0, 30\n1, 40\n", -1, NULL));

  trace = ks_trace_load (f_log, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpint (trace->format, ==, KS_FORMAT_NVIDIA_SMI);
  g_assert_cmpstr (ks_format_to_string (trace->format), ==, "nvidia-smi");

  g_assert_null (ks_trace_load (f_other, NULL, NULL, &error));
  g_assert_nonnull (strstr (error->message, "gpu.csv: not a trace file"));
  g_clear_error (&error);

  /* a log of bare numbers opens only when told its columns */
  g_assert_null (ks_trace_load (f_bare, NULL, NULL, &error));
  g_clear_error (&error);
  trace2 = ks_trace_load_with_options (f_bare, &options, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (trace2->n_gpus, ==, 2);
  g_assert_cmpint (get_counter (trace2, "GPU utilization", "%", 1)->ts[1], ==, 2000000000);

  g_unlink (log);
  g_unlink (other);
  g_unlink (bare);
  g_rmdir (dir);
}

static KsTrace *
load_data_file (const char  *name,
                char       **text)
{
  const char *dir = g_getenv ("KS_FIXTURES_DIR");
  g_autofree char *path = g_build_filename (dir ? dir : ".", name, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KsTrace *trace;

  g_assert_true (g_file_get_contents (path, text, NULL, NULL));
  g_assert_cmpint (ks_trace_detect_format (file, NULL), ==, KS_FORMAT_NVIDIA_SMI);
  trace = ks_trace_load (file, NULL, NULL, &error);
  g_assert_no_error (error);
  return trace;
}

/* Column @col of every data row of @text, summed (fields keep their
 * units: "99 %", "464.67 W"). @ws: the fields are split at white space
 * (dmon), else at commas. */
static double
column_sum (const char *text,
            guint       col,
            gboolean    ws,
            guint      *n_rows)
{
  g_auto(GStrv) lines = g_strsplit (text, "\n", -1);
  double sum = 0;

  *n_rows = 0;
  for (char **l = lines; *l; l++)
    {
      g_auto(GStrv) f = NULL;

      g_strstrip (*l);
      if (**l == 0 || !g_ascii_isdigit (**l))
        continue;
      f = ws ? g_regex_split_simple ("\\s+", *l, 0, 0) : g_strsplit (*l, ",", -1);
      g_assert_cmpuint (g_strv_length (f), >, col);
      /* dmon's "-": no value */
      if (strcmp (f[col], "-") == 0)
        continue;
      sum += g_ascii_strtod (f[col], NULL);
      (*n_rows)++;
    }
  return sum;
}

static double
counter_sum (const KsCounter *c)
{
  double sum = 0;

  for (guint32 i = 0; i < c->n_samples; i++)
    sum += c->value[i];
  return sum;
}

/* Logs of an H200 (driver 580) while a model trains (tests/gpu/capture-data.sh):
 * nvidia-smi's own header names ("clocks.current.sm [MHz]" for
 * clocks.sm, "power.draw [W]"), dmon -o DT, "[N/A]" for a fan the
 * GPU does not have, and kinescope-cli monitor's csv of the same run,
 * which has nvidia-smi's header and units. */
static void
test_h200_logs (void)
{
  static const struct { const char *file; const char *counter; const char *unit; guint col; gboolean ws; } cols[] = {
    { "nvsmi_h200_query.csv",   "GPU utilization", "%",   3, FALSE },
    { "nvsmi_h200_query.csv",   "GPU power",       "W",   8, FALSE },
    { "nvsmi_h200_query.csv",   "SM clock",        "MHz", 9, FALSE },
    { "nvsmi_h200_query.csv",   "GPU temperature", "°C",  7, FALSE },
    { "nvsmi_h200_monitor.csv", "GPU utilization", "%",   3, FALSE },
    { "nvsmi_h200_monitor.csv", "GPU power",       "W",   8, FALSE },
    { "nvsmi_h200_monitor.csv", "SM clock",        "MHz", 9, FALSE },
    { "nvsmi_h200_dmon.txt",    "GPU utilization", "%",   6, TRUE },
    { "nvsmi_h200_dmon.txt",    "GPU power",       "W",   3, TRUE },
    { "nvsmi_h200_dmon.txt",    "Graphics clock",  "MHz", 13, TRUE },
    /* dmon --gpm-metrics 1,2,3,4,5,10,11: the GPU's activity counters,
     * under the names a recording gives them; "-" before the first */
    { "nvsmi_h200_dmon_gpm.txt", "GPU utilization",   "%", 4, TRUE },
    { "nvsmi_h200_dmon_gpm.txt", "Graphics activity", "%", 12, TRUE },
    { "nvsmi_h200_dmon_gpm.txt", "SM activity",       "%", 13, TRUE },
    { "nvsmi_h200_dmon_gpm.txt", "SM occupancy",      "%", 14, TRUE },
    { "nvsmi_h200_dmon_gpm.txt", "Integer activity",  "%", 15, TRUE },
    { "nvsmi_h200_dmon_gpm.txt", "Tensor activity",   "%", 16, TRUE },
    { "nvsmi_h200_dmon_gpm.txt", "DRAM activity",     "%", 17, TRUE },
    { "nvsmi_h200_dmon_gpm.txt", "FP64 activity",     "%", 18, TRUE },
    { "nvsmi_h200_dmon_gpm_dt.txt", "SM activity",     "%", 10, TRUE },
    { "nvsmi_h200_dmon_gpm_dt.txt", "Tensor activity", "%", 13, TRUE },
  };
  g_autofree char *na_text = NULL;
  g_autoptr(KsTrace) na = NULL;

  for (guint i = 0; i < G_N_ELEMENTS (cols); i++)
    {
      g_autofree char *text = NULL;
      g_autoptr(KsTrace) trace = load_data_file (cols[i].file, &text);
      const KsCounter *c = get_counter (trace, cols[i].counter, cols[i].unit, 0);
      guint n;
      double want = column_sum (text, cols[i].col, cols[i].ws, &n);

      g_test_message ("%s: %s", cols[i].file, cols[i].counter);
      g_assert_cmpuint (trace->n_gpus, ==, 1);
      g_assert_cmpuint (c->n_samples, ==, n);
      g_assert_cmpfloat_with_epsilon (counter_sum (c), want, 1e-6);
      if (!cols[i].ws)
        {
          g_assert_cmpstr (ks_trace_string (trace, trace->gpus[0].name), ==, "NVIDIA H200");
          g_assert_cmpuint (trace->gpus[0].total_memory, ==, (guint64) (143771 * MIB));
          g_assert_cmpstr (warnings (trace), ==, "");
        }
    }

  /* index, power.draw [W], power.limit [W], clocks.current.sm [MHz],
   * clocks.max.sm [MHz], fan.speed [%]: 0, 691.45 W, 700.00 W, 1845 MHz, 1980 MHz, [N/A] */
  na = load_data_file ("nvsmi_h200_na.csv", &na_text);
  g_assert_cmpfloat_with_epsilon (get_counter (na, "GPU power", "W", 0)->value[0], 691.45, 1e-9);
  g_assert_cmpfloat (get_counter (na, "GPU power limit", "W", 0)->value[0], ==, 700);
  g_assert_cmpfloat (get_counter (na, "SM clock", "MHz", 0)->value[0], ==, 1845);
  g_assert_null (find_counter (na, "Fan speed", 0, KS_NO_INDEX));
}

/* The plain nvidia-smi table of an H200, once and repeated by -l 1: the
 * values of each table found again here by a regular expression over
 * the text, the processes table's memory per process. */
static void
test_table (void)
{
  static const char *const files[] = { "nvsmi_h200_plain.txt", "nvsmi_h200_plain_loop.txt" };

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autofree char *text = NULL;
      g_autoptr(KsTrace) trace = load_data_file (files[f], &text);
      g_autoptr(GRegex) gpu_re = g_regex_new ("^\\| N/A +(\\d+)C +P\\d+ +(\\d+)W / +(\\d+)W \\| +(\\d+)MiB / +(\\d+)MiB "
                                              "\\| +(\\d+)%", G_REGEX_MULTILINE, 0, NULL);
      g_autoptr(GRegex) proc_re = g_regex_new ("^\\| +0 +N/A +N/A +(\\d+) +C +(\\S+) +(\\d+)MiB \\|$",
                                               G_REGEX_MULTILINE, 0, NULL);
      g_autoptr(GMatchInfo) m = NULL;
      const KsCounter *util = get_counter (trace, "GPU utilization", "%", 0);
      const KsCounter *temp = get_counter (trace, "GPU temperature", "°C", 0);
      const KsCounter *power = get_counter (trace, "GPU power", "W", 0);
      const KsCounter *limit = get_counter (trace, "GPU power limit", "W", 0);
      const KsCounter *used = get_counter (trace, "GPU memory used", "bytes", 0);
      guint n = 0, n_proc = 0;

      g_assert_cmpint (trace->format, ==, KS_FORMAT_NVIDIA_SMI);
      g_assert_cmpstr (warnings (trace), ==, "");
      g_assert_cmpuint (trace->n_gpus, ==, 1);
      g_assert_cmpstr (ks_trace_string (trace, trace->gpus[0].name), ==, "NVIDIA H200");
      g_assert_cmpstr (ks_trace_get_metadata (trace, "driver_version"), ==, "580.159.04");
      /* the H200 has no fan: N/A, no row */
      g_assert_null (find_counter (trace, "Fan speed", 0, KS_NO_INDEX));
      for (g_regex_match (gpu_re, text, 0, &m); g_match_info_matches (m); g_match_info_next (m, NULL), n++)
        {
          g_auto(GStrv) v = g_match_info_fetch_all (m);

          g_assert_cmpuint (n, <, util->n_samples);
          g_assert_cmpfloat (temp->value[n], ==, g_ascii_strtod (v[1], NULL));
          g_assert_cmpfloat (power->value[n], ==, g_ascii_strtod (v[2], NULL));
          g_assert_cmpfloat (limit->value[n], ==, g_ascii_strtod (v[3], NULL));
          g_assert_cmpfloat (used->value[n], ==, g_ascii_strtod (v[4], NULL) * 1024 * 1024);
          g_assert_cmpuint (trace->gpus[0].total_memory, ==, g_ascii_strtoull (v[5], NULL, 10) << 20);
          g_assert_cmpfloat (util->value[n], ==, g_ascii_strtod (v[6], NULL));
          /* the tables are a second apart (the date line's seconds) */
          g_assert_cmpint (util->ts[n] - util->ts[0], ==, (gint64) n * 1000000000);
        }
      g_assert_cmpuint (n, ==, f == 0 ? 1 : 4);
      g_assert_cmpuint (util->n_samples, ==, n);
      g_clear_pointer (&m, g_match_info_unref);

      /* the processes table: python3's memory on GPU 0 */
      for (g_regex_match (proc_re, text, 0, &m); g_match_info_matches (m); g_match_info_next (m, NULL), n_proc++)
        {
          g_auto(GStrv) v = g_match_info_fetch_all (m);
          const KsCounter *c;

          g_assert_cmpuint (trace->n_processes, ==, 1);
          g_assert_cmpint (trace->processes[0].pid, ==, g_ascii_strtoll (v[1], NULL, 10));
          g_assert_cmpstr (ks_trace_string (trace, trace->processes[0].name), ==, v[2]);
          c = find_counter (trace, "GPU memory used", 0, 0);
          g_assert_nonnull (c);
          g_assert_cmpfloat (c->value[n_proc], ==, g_ascii_strtod (v[3], NULL) * 1024 * 1024);
        }
      /* once: no process was listed; -l 1: python3 in each table */
      g_assert_cmpuint (n_proc, ==, f == 0 ? 0 : 4);
      g_assert_cmpuint (trace->n_processes, ==, n_proc > 0 ? 1 : 0);
      g_assert_cmpuint (trace->n_counters, ==, n_proc > 0 ? 6 : 5);
    }
}

/* Bad and odd tables: cut short, without dates, damaged. */
static void
test_table_bad (void)
{
  g_autofree char *text = NULL;
  g_autoptr(KsTrace) whole = load_data_file ("nvsmi_h200_plain_loop.txt", &text);
  const char *last = g_strrstr (text, "|    0   N/A  N/A             836");
  g_autofree char *cut = g_strndup (text, last - text + 20);
  g_autofree char *undated = NULL;
  g_autofree char *damaged = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  KsNvsmiOptions options = { 2.0, NULL };

  /* the log still being written: the last process line is cut */
  trace = load_text (cut, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (get_counter (trace, "GPU utilization", "%", 0)->n_samples, ==, 4);
  g_assert_cmpuint (find_counter (trace, "GPU memory used", 0, 0)->n_samples, ==, 3);
  g_assert_nonnull (strstr (warnings (trace), "test.log: the last table is cut short"));
  g_clear_object (&trace);

  /* without the date lines: samples --interval apart, and said */
  {
    g_autoptr(GRegex) dates = g_regex_new ("^Fri Dec  4 16:42:\\d\\d 2026 *\\n", G_REGEX_MULTILINE, 0, NULL);

    undated = g_regex_replace_literal (dates, text, -1, 0, "", 0, NULL);
  }
  trace = load_text (undated, &options, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (get_counter (trace, "GPU utilization", "%", 0)->n_samples, ==, 4);
  g_assert_cmpint (get_counter (trace, "GPU utilization", "%", 0)->ts[3] -
                   get_counter (trace, "GPU utilization", "%", 0)->ts[0], ==, 6000000000);
  g_assert_nonnull (strstr (warnings (trace), "the log has no times: its samples are taken as 2 s apart"));
  g_clear_object (&trace);

  /* a temperature that is not one: the file and line are named */
  damaged = g_strdup (text);
  memcpy (strstr (damaged, "42C"), "4?C", 3);
  trace = load_text (damaged, NULL, &error);
  g_assert_null (trace);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_cmpstr (error->message, ==, "test.log: line 10: “4?C” is not a temperature");
  g_clear_error (&error);

  /* a table of no GPU, a GPU without its values line */
  trace = load_text ("+---+\n| NVIDIA-SMI 580.159.04 |\n+---+\n", NULL, &error);
  g_assert_null (trace);
  g_assert_cmpstr (error->message, ==, "test.log: an nvidia-smi log without samples");
  g_clear_error (&error);
  /* the second table ends after its GPU's name: the first one stays */
  *strstr (strstr (text, "| N/A") + 1, "| N/A") = 0;
  trace = load_text (text, NULL, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (get_counter (trace, "GPU utilization", "%", 0)->n_samples, ==, 1);
  g_assert_cmpstr (warnings (trace), ==, "test.log: the last table is cut short (the log was still being "
                                         "written); what it lacks was left out");
}

/* Every counter row the H200 logs give, and every GPM metric, is one
 * whose name a row label translates (ks-counter-names.c). */
static void
test_counter_names (void)
{
  static const char *const files[] = {
    "nvsmi_h200_plain_loop.txt", "nvsmi_h200_pmon.txt", "nvsmi_h200_dmon.txt", "nvsmi_h200_dmon_gpm.txt", "nvsmi_h200_dmon_gpm_dt.txt", "nvsmi_h200_memory.csv",
    "nvsmi_h200_monitor.csv", "nvsmi_h200_na.csv", "nvsmi_h200_query.csv",
  };
  const char *pmon =
    "# gpu         pid   type     sm    mem    enc    dec    jpg    ofa    command \n"
    "# Idx           #    C/G      %      %      %      %      %      %    name \n"
    "    0        836     C     97     51      -      -      -      -    python3        \n";
  const KsGpmField *gpm;
  guint n_gpm, n = 0;

  for (guint f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autofree char *text = NULL;
      g_autoptr(KsTrace) trace = load_data_file (files[f], &text);

      for (guint32 c = 0; c < trace->n_counters; c++, n++)
        {
          const char *name = ks_trace_string (trace, trace->counters[c].name);

          /* a column the reader does not know keeps the log's name
           * ("clocks.max.sm") */
          if (strchr (name, '.') == NULL && !ks_counter_name_is_known (name))
            g_error ("%s: the counter “%s” has no translated name", files[f], name);
        }
    }
  g_assert_cmpuint (n, >=, 30);

  {
    g_autoptr(GError) error = NULL;
    g_autoptr(KsTrace) trace = load_text (pmon, NULL, &error);

    g_assert_no_error (error);

    g_assert_cmpuint (trace->n_counters, >=, 2);
    for (guint32 c = 0; c < trace->n_counters; c++)
      g_assert_true (ks_counter_name_is_known (ks_trace_string (trace, trace->counters[c].name)));
  }

  gpm = ks_gpm_get_fields (&n_gpm);
  for (guint i = 0; i < n_gpm; i++)
    g_assert_true (ks_counter_name_is_known (gpm[i].counter));
  /* a row the file named itself stays as it is */
  g_assert_false (ks_counter_name_is_known ("loss"));
  g_assert_cmpstr (ks_counter_name_display ("loss"), ==, "loss");
}

int
main (int    argc,
      char **argv)
{
  /* nvidia-smi's times are local: the tests run in one zone */
  g_setenv ("TZ", "UTC", TRUE);
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/nvsmi/corpus/miris", test_corpus_miris);
  g_test_add_func ("/nvsmi/corpus/gpu-glasses", test_corpus_gpu_glasses);
  g_test_add_func ("/nvsmi/corpus/plato", test_corpus_plato);
  g_test_add_func ("/nvsmi/corpus/rectified-point-flow", test_corpus_rectified);
  g_test_add_func ("/nvsmi/csv/variants", test_csv_variants);
  g_test_add_func ("/nvsmi/csv/no-timestamp", test_csv_no_timestamp);
  g_test_add_func ("/nvsmi/csv/no-index", test_csv_no_index);
  g_test_add_func ("/nvsmi/dmon", test_dmon);
  g_test_add_func ("/nvsmi/h200-logs", test_h200_logs);
  g_test_add_func ("/nvsmi/pmon", test_pmon);
  g_test_add_func ("/nvsmi/bad-logs", test_bad_logs);
  g_test_add_func ("/nvsmi/units", test_units);
  g_test_add_func ("/nvsmi/time-backwards", test_time_backwards);
  g_test_add_func ("/nvsmi/column-turns-to-text", test_column_turns_to_text);
  g_test_add_func ("/nvsmi/loader", test_loader);
  g_test_add_func ("/nvsmi/counter-names", test_counter_names);
  g_test_add_func ("/nvsmi/table", test_table);
  g_test_add_func ("/nvsmi/table-bad", test_table_bad);

  return g_test_run ();
}
