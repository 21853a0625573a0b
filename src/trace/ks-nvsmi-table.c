/* ks-nvsmi-table.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-nvsmi-reader"

/* The plain `nvidia-smi` table, once or repeated (`nvidia-smi -l 1 >
 * log.txt`): each table is a sample. Per GPU, its two lines
 *   |   0  NVIDIA H200                    On  |   00000000:00:06.0 Off |   0 |
 *   | N/A   62C    P0            693W /  700W |   25121MiB / 143771MiB |  99%  Default |
 * give the rows a --query-gpu log gives (fan, temperature, power and its
 * limit, memory used and total, utilization); the processes table gives
 * each process its GPU memory, a counter of the process on that GPU.
 * The line before a table, "Fri Dec  4 16:42:55 2026", is its time
 * (local, to the second). */

#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ks-nvsmi-private.h"

typedef enum
{
  PART_NONE,       /* between tables, or in the header */
  PART_GPUS,       /* after the GPU table's "|===" line */
  PART_PROCESSES,  /* after the processes table's "|===" line */
} Part;

typedef struct
{
  const char     *name;
  KsTraceBuilder *b;
  double          interval;
  guint64         line;
  Part            part;
  gboolean        in_processes;  /* "| Processes:" seen in this table */
  gint64          ts;            /* this table's time */
  gboolean        have_ts;
  guint64         tables;
  gint64          device;        /* the GPU whose values line comes next, -1 */
  GHashTable     *gpus;          /* device → KsGpu* */
  GHashTable     *counters;      /* "name\x1fdevice\x1fprocess" → id + 1 */
  guint64         cut;           /* tables cut short at the end */
  guint64         samples;
  KsNvsmiChecks   checks;
  gboolean        skip_table;    /* its time went back: left out */
} Table;

/* "Fri Dec  4 16:42:55 2026", local time. */
static gboolean
parse_date_line (const char *line,
                 gint64     *unix_ns)
{
  static const char *const months[] = {
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
  };
  char weekday[4], month[4];
  int day, hour, minute, second, year, month_index = -1;
  char rest;
  g_autoptr(GDateTime) dt = NULL;

  if (sscanf (line, "%3s %3s %d %d:%d:%d %d %c", weekday, month, &day, &hour, &minute, &second, &year, &rest) != 7)
    return FALSE;
  for (guint i = 0; i < G_N_ELEMENTS (months); i++)
    if (strcmp (month, months[i]) == 0)
      month_index = (int) i + 1;
  if (month_index < 0)
    return FALSE;
  dt = g_date_time_new_local (year, month_index, day, hour, minute, second);
  return dt != NULL && ks_nvsmi_date_time_ns (dt, unix_ns);
}

gboolean
ks_nvsmi_table_sniff (const char *data,
                      gsize       len)
{
  const char *p = data;
  const char *end = data + MIN (len, 4096);
  guint lines = 0;

  /* the date line, the table's top border, then its title */
  while (p < end && lines < 4)
    {
      const char *nl = memchr (p, '\n', end - p);
      gsize n = (nl ? nl : end) - p;
      g_autofree char *line = g_strstrip (g_strndup (p, n));

      if (*line != 0)
        {
          gint64 ns;

          lines++;
          if (g_str_has_prefix (line, "| NVIDIA-SMI "))
            return TRUE;
          if (!g_str_has_prefix (line, "+-") && !(lines == 1 && parse_date_line (line, &ns)))
            return FALSE;
        }
      if (nl == NULL)
        break;
      p = nl + 1;
    }
  return FALSE;
}

static gboolean
fail (Table      *t,
      GError    **error,
      const char *format,
      ...) G_GNUC_PRINTF (3, 4);

static gboolean
fail (Table      *t,
      GError    **error,
      const char *format,
      ...)
{
  va_list args;

  va_start (args, format);
  ks_nvsmi_line_error (error, t->name, t->line, format, args);
  va_end (args);
  return FALSE;
}

static KsGpu *
get_gpu (Table  *t,
         gint64  device)
{
  KsGpu *gpu = g_hash_table_lookup (t->gpus, GINT_TO_POINTER ((int) device));

  if (gpu == NULL)
    {
      gpu = g_new0 (KsGpu, 1);
      gpu->device = (gint32) device;
      g_hash_table_insert (t->gpus, GINT_TO_POINTER ((int) device), gpu);
    }
  return gpu;
}

static void
add_sample (Table      *t,
            const char *counter,
            const char *unit,
            gint64      device,
            guint32     process,
            double      value)
{
  g_autofree char *key = g_strdup_printf ("%s\x1f%" G_GINT64_FORMAT "\x1f%u", counter, device, process);
  gpointer found = g_hash_table_lookup (t->counters, key);
  guint32 id;

  if (found != NULL)
    id = GPOINTER_TO_UINT (found) - 1;
  else
    {
      id = ks_trace_builder_get_counter (t->b, counter, unit, (gint32) device, process);
      g_hash_table_insert (t->counters, g_steal_pointer (&key), GUINT_TO_POINTER (id + 1));
    }
  ks_trace_builder_add_counter_sample (t->b, id, t->ts, value);
  t->samples++;
}

/* A value of the table: "62C", "693W", "25121MiB", "99%"; "N/A" is
 * FALSE with @missing set. */
static gboolean
parse_value (const char *text,
             const char *unit,
             double      scale,
             double     *value,
             gboolean   *missing)
{
  *missing = ks_nvsmi_is_missing (text);
  if (*missing)
    return FALSE;
  return ks_nvsmi_parse_value (text, unit, scale, value) == KS_NVSMI_VALUE_OK;
}

/* The cells of a table line between its '|'s, stripped. */
static char **
split_cells (const char *line)
{
  g_autofree char *inner = g_strndup (line + 1, strlen (line) - 2);
  char **cells = g_strsplit (inner, "|", -1);

  for (char **c = cells; *c; c++)
    g_strstrip (*c);
  return cells;
}

/* "|   0  NVIDIA H200                    On  |   00000000:00:06.0 Off |   0 |" */
static gboolean
read_gpu_line (Table   *t,
               char   **cells,
               GError **error)
{
  g_auto(GStrv) words = ks_nvsmi_split_ws (cells[0]);
  guint n = g_strv_length (words);
  gint64 device;
  KsGpu *gpu;

  if (n < 2 || !ks_nvsmi_parse_int (words[0], &device) || device < 0 || device > 4095)
    return fail (t, error, _("“%s” is not a GPU's index and name"), cells[0]);
  gpu = get_gpu (t, device);
  if (gpu->name == 0)
    {
      /* the name lies between the index and the persistence mode */
      g_autofree char *name = g_strjoinv (" ", words + 1);

      if (n >= 3 && (strcmp (words[n - 1], "On") == 0 || strcmp (words[n - 1], "Off") == 0))
        name[strlen (name) - strlen (words[n - 1]) - 1] = 0;
      gpu->name = ks_trace_builder_intern (t->b, name);
    }
  t->device = device;
  return TRUE;
}

/* "| N/A   62C    P0            693W /  700W |   25121MiB / 143771MiB |     99%      Default |" */
static gboolean
read_values_line (Table   *t,
                  char   **cells,
                  GError **error)
{
  g_auto(GStrv) first = ks_nvsmi_split_ws (cells[0]);
  g_auto(GStrv) memory = ks_nvsmi_split_ws (cells[1]);
  g_auto(GStrv) util = ks_nvsmi_split_ws (cells[2]);
  gint64 device = t->device;
  gboolean missing;
  double v;

  t->device = -1;
  /* fan, temperature, performance state, power "W / W" */
  if (g_strv_length (first) < 6 || strcmp (first[4], "/") != 0 || g_strv_length (memory) != 3 ||
      strcmp (memory[1], "/") != 0 || util[0] == NULL)
    return fail (t, error, _("GPU %d's values line does not read as nvidia-smi's "
                             "(fan, temperature, power, memory, utilization)"), (int) device);

  if (parse_value (first[0], "%", 1, &v, &missing))
    add_sample (t, "Fan speed", "%", device, KS_NO_INDEX, v);
  if (parse_value (first[1], "°C", 1, &v, &missing))
    add_sample (t, "GPU temperature", "°C", device, KS_NO_INDEX, v);
  else if (!missing)
    return fail (t, error, _("“%s” is not a temperature"), first[1]);
  if (parse_value (first[3], "W", 1, &v, &missing))
    add_sample (t, "GPU power", "W", device, KS_NO_INDEX, v);
  else if (!missing)
    return fail (t, error, _("“%s” is not a power"), first[3]);
  if (parse_value (first[5], "W", 1, &v, &missing))
    add_sample (t, "GPU power limit", "W", device, KS_NO_INDEX, v);
  if (parse_value (memory[0], "bytes", KS_NVSMI_MIB, &v, &missing))
    add_sample (t, "GPU memory used", "bytes", device, KS_NO_INDEX, v);
  else if (!missing)
    return fail (t, error, _("“%s” is not an amount of memory"), memory[0]);
  if (parse_value (memory[2], "bytes", KS_NVSMI_MIB, &v, &missing))
    get_gpu (t, device)->total_memory = (guint64) MAX (v, 0);
  if (parse_value (util[0], "%", 1, &v, &missing))
    add_sample (t, "GPU utilization", "%", device, KS_NO_INDEX, v);
  else if (!missing)
    return fail (t, error, _("“%s” is not a utilization"), util[0]);
  return TRUE;
}

/* "|    0   N/A  N/A             836      C   python3      872MiB |" */
static gboolean
read_process_line (Table   *t,
                   char   **cells,
                   GError **error)
{
  g_auto(GStrv) words = ks_nvsmi_split_ws (cells[0]);
  guint n = g_strv_length (words);
  gint64 device, pid;
  guint32 process;
  g_autofree char *command = NULL;
  g_autofree char *used = NULL;
  gboolean missing;
  double v;

  if (g_str_has_prefix (cells[0], "No running processes found"))
    return TRUE;
  /* gpu, gi, ci, pid, type, name (may hold spaces), memory */
  if (n < 7 || !ks_nvsmi_parse_int (words[0], &device) || device < 0 || device > 4095 ||
      !ks_nvsmi_parse_int (words[3], &pid))
    return fail (t, error, _("“%s” does not read as a process of nvidia-smi's table"), cells[0]);
  process = ks_trace_builder_get_process (t->b, pid);
  /* the command is the words between the type and the memory */
  used = g_steal_pointer (&words[n - 1]);
  command = g_strjoinv (" ", words + 5);
  if (*command != 0)
    ks_trace_builder_set_process_info (t->b, process, command, NULL, NULL, G_MININT32);
  if (parse_value (used, "bytes", KS_NVSMI_MIB, &v, &missing))
    add_sample (t, "GPU memory used", "bytes", device, process, v);
  else if (!missing)
    return fail (t, error, _("“%s” is not an amount of memory"), used);
  return TRUE;
}

static gboolean
read_line (Table      *t,
           const char *line,
           GError    **error)
{
  g_auto(GStrv) cells = NULL;
  gint64 ns;

  if (*line == 0)
    return TRUE;
  if (parse_date_line (line, &ns))
    {
      /* the next table's time */
      t->part = PART_NONE;
      t->in_processes = FALSE;
      t->skip_table = !ks_nvsmi_checks_time (&t->checks, t->line, KS_NVSMI_BASIS_WALL,
                                             t->tables > 0 ? t->ts : G_MININT64, ns);
      if (!t->skip_table)
        {
          t->ts = ns;
          t->have_ts = TRUE;
        }
      return TRUE;
    }
  if (g_str_has_prefix (line, "| NVIDIA-SMI "))
    {
      /* a new table: without a date line before it, an interval later */
      if (!t->have_ts || (t->tables > 0 && t->part != PART_NONE))
        {
          if (t->checks.basis == KS_NVSMI_BASIS_WALL)
            return fail (t, error, _("a table without the date line the others have"));
          t->checks.basis = KS_NVSMI_BASIS_SAMPLES;
          t->ts = (gint64) (t->tables * t->interval * G_GINT64_CONSTANT (1000000000));
        }
      if (t->device >= 0)
        return fail (t, error, _("a table begins before GPU %d's values line"), (int) t->device);
      t->tables++;
      t->part = PART_NONE;
      t->in_processes = FALSE;
      if (t->tables == 1)
        {
          const char *driver = strstr (line, "Driver Version:");

          if (driver != NULL)
            {
              g_auto(GStrv) words = ks_nvsmi_split_ws (driver + strlen ("Driver Version:"));

              if (words[0] != NULL)
                ks_trace_builder_set_metadata (t->b, "driver_version", words[0]);
            }
        }
      return TRUE;
    }
  if (g_str_has_prefix (line, "+"))
    {
      /* a border: a GPU's rows end at it, and so does a table */
      if (t->device >= 0)
        return fail (t, error, _("GPU %d has no values line"), (int) t->device);
      return TRUE;
    }
  if (!g_str_has_prefix (line, "|") || !g_str_has_suffix (line, "|") || strlen (line) < 2)
    return fail (t, error, _("“%s” is not a line of nvidia-smi's table"), line);
  if (t->tables == 0)
    return fail (t, error, _("a table line before the table's “NVIDIA-SMI” title"));
  if (g_str_has_prefix (line, "|==="))
    {
      t->part = t->in_processes ? PART_PROCESSES : PART_GPUS;
      return TRUE;
    }
  if (g_str_has_prefix (line, "| Processes:"))
    {
      t->in_processes = TRUE;
      t->part = PART_NONE;
      return TRUE;
    }
  if (t->part == PART_NONE || t->skip_table)
    return TRUE;

  cells = split_cells (line);
  if (t->part == PART_PROCESSES)
    return read_process_line (t, cells, error);
  if (g_strv_length (cells) < 3)
    return fail (t, error, _("a GPU line of %u cells, not 3"), g_strv_length (cells));
  if (t->device >= 0)
    return read_values_line (t, cells, error);
  if (*cells[0] == 0)
    return TRUE;    /* MIG M. */
  return read_gpu_line (t, cells, error);
}

KsTrace *
ks_nvsmi_table_load (const char    *data,
                     gsize          len,
                     const char    *name,
                     double         interval,
                     GCancellable  *cancellable,
                     GError       **error)
{
  Table t = { 0 };
  const char *p = data;
  const char *end = data + len;
  GHashTableIter iter;
  gpointer value;
  gboolean ok = TRUE;

  t.name = name;
  t.interval = interval;
  t.device = -1;
  t.b = ks_trace_builder_new (KS_FORMAT_NVIDIA_SMI);
  t.gpus = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  t.counters = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  ks_trace_builder_set_metadata (t.b, "source_name", name);
  ks_trace_builder_set_metadata (t.b, "nvidia_smi_log", "table");

  while (ok && p < end)
    {
      const char *nl = memchr (p, '\n', end - p);
      g_autofree char *line = g_strstrip (g_strndup (p, (nl ? nl : end) - p));

      t.line++;
      p = nl ? nl + 1 : end;
      if ((t.line & 0xfff) == 0 && g_cancellable_set_error_if_cancelled (cancellable, error))
        ok = FALSE;
      /* the last table cut short (the log still being written) */
      else if (nl == NULL && *line != 0 && (!g_str_has_prefix (line, "+") || t.device >= 0))
        t.cut++;
      else
        ok = read_line (&t, line, error);
    }
  if (ok && t.device >= 0)
    t.cut++;
  if (ok && t.tables == 0)
    ok = fail (&t, error, _("no table"));
  if (ok && t.samples == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("%s: an nvidia-smi log without samples"), name);
      ok = FALSE;
    }

  if (ok)
    {
      g_hash_table_iter_init (&iter, t.gpus);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        ks_trace_builder_add_gpu (t.b, value);
      if (t.checks.basis == KS_NVSMI_BASIS_WALL)
        ks_trace_builder_set_start_utc (t.b, 0);
      else
        ks_nvsmi_warn_untimed (t.b, name, interval);
      ks_nvsmi_checks_warn (&t.checks, t.b, name);
      if (t.cut > 0)
        ks_trace_builder_add_warning (t.b, _("%s: the last table is cut short (the log was still being "
                                             "written); what it lacks was left out"),
                                      name);
    }

  g_hash_table_unref (t.gpus);
  g_hash_table_unref (t.counters);
  ks_nvsmi_checks_clear (&t.checks);
  if (!ok)
    {
      ks_trace_builder_free (t.b);
      return NULL;
    }
  return ks_trace_builder_finish (t.b, cancellable, error);
}
