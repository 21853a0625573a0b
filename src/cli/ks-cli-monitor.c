/* ks-cli-monitor.c: kinescope-cli monitor
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-cli-monitor"

/* What `nvidia-smi -l 1` and `nvidia-smi pmon` show, from NVML (the
 * recorder's loader, ks-nvml.c): every GPU and its processes, once a
 * period, with the last minute's utilization as a sparkline. --format
 * csv prints what `nvidia-smi --query-gpu=… --format=csv` prints, so that
 * scripts written for it keep working; -o keeps the samples as counter
 * rows of a .kscope, with the names an nvidia-smi log is read into. */

#include "config.h"

#include <math.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <glib/gi18n.h>

#include "ks-cli.h"
#include "ks-cli-common.h"
#include "ks-cli-table.h"
#include "ks-format.h"
#include "ks-gpm.h"
#include "ks-kscope-writer.h"
#include "ks-nvml.h"
#include "ks-nvsmi-reader.h"
#include "ks-signals.h"
#include "ks-trace-builder.h"

#define DEFAULT_QUERY "timestamp,index,name,utilization.gpu,utilization.memory,memory.used,memory.total," \
                      "temperature.gpu,power.draw,clocks.sm"
#define SPARK_COLUMNS 60
#define MIB (1024.0 * 1024.0)

typedef enum
{
  Q_TIMESTAMP,
  Q_INDEX,
  Q_NAME,
  Q_UUID,
  Q_BUS_ID,
  Q_UTIL_GPU,
  Q_UTIL_MEMORY,
  Q_MEMORY_TOTAL,
  Q_MEMORY_USED,
  Q_MEMORY_FREE,
  Q_TEMPERATURE,
  Q_POWER,
  Q_SM_CLOCK,
  Q_MEMORY_RESERVED,
} Query;

/* then GPM, in the order of KsNvmlGpmMetric */
#define Q_GPM_FIRST (Q_MEMORY_RESERVED + 1)
#define Q_GPM_LAST (Q_GPM_FIRST + KS_NVML_GPM_N_METRICS - 1)

#define IS_GPM(q) ((q) >= Q_GPM_FIRST && (q) <= Q_GPM_LAST)
#define GPM_METRIC(q) ((KsNvmlGpmMetric) ((q) - Q_GPM_FIRST))

/* --query-gpu fields, as nvidia-smi names them in its header (the first
 * name) and accepts them (either). */
static const struct
{
  const char *name;
  const char *alias;
  const char *unit;
} query_fields[] = {
  [Q_TIMESTAMP]    = { "timestamp", NULL, NULL },
  [Q_INDEX]        = { "index", NULL, NULL },
  [Q_NAME]         = { "name", "gpu_name", NULL },
  [Q_UUID]         = { "uuid", "gpu_uuid", NULL },
  [Q_BUS_ID]       = { "pci.bus_id", "gpu_bus_id", NULL },
  [Q_UTIL_GPU]     = { "utilization.gpu", NULL, "%" },
  [Q_UTIL_MEMORY]  = { "utilization.memory", NULL, "%" },
  [Q_MEMORY_TOTAL] = { "memory.total", NULL, "MiB" },
  [Q_MEMORY_USED]  = { "memory.used", NULL, "MiB" },
  [Q_MEMORY_FREE]  = { "memory.free", NULL, "MiB" },
  [Q_TEMPERATURE]  = { "temperature.gpu", NULL, NULL },
  [Q_POWER]        = { "power.draw", NULL, "W" },
  [Q_SM_CLOCK]     = { "clocks.current.sm", "clocks.sm", "MHz" },
  [Q_MEMORY_RESERVED] = { "memory.reserved", NULL, "MiB" },
  [Q_GPM_FIRST + KS_NVML_GPM_SM_ACTIVE]     = { "sm_active", NULL, "%" },
  [Q_GPM_FIRST + KS_NVML_GPM_SM_OCCUPANCY]  = { "sm_occupancy", NULL, "%" },
  [Q_GPM_FIRST + KS_NVML_GPM_TENSOR_ACTIVE] = { "tensor_active", NULL, "%" },
  [Q_GPM_FIRST + KS_NVML_GPM_DRAM_ACTIVE]   = { "dram_active", NULL, "%" },
  [Q_GPM_FIRST + KS_NVML_GPM_FP16_ACTIVE]   = { "fp16_active", NULL, "%" },
  [Q_GPM_FIRST + KS_NVML_GPM_FP32_ACTIVE]   = { "fp32_active", NULL, "%" },
  [Q_GPM_FIRST + KS_NVML_GPM_FP64_ACTIVE]   = { "fp64_active", NULL, "%" },
  [Q_GPM_FIRST + KS_NVML_GPM_PCIE_TX]       = { "pcie_tx", NULL, "MB/s" },
  [Q_GPM_FIRST + KS_NVML_GPM_PCIE_RX]       = { "pcie_rx", NULL, "MB/s" },
  [Q_GPM_FIRST + KS_NVML_GPM_NVLINK_TX]     = { "nvlink_tx", NULL, "MB/s" },
  [Q_GPM_FIRST + KS_NVML_GPM_NVLINK_RX]     = { "nvlink_rx", NULL, "MB/s" },
};

G_STATIC_ASSERT (G_N_ELEMENTS (query_fields) == Q_GPM_LAST + 1);

/* The counters -o writes per GPU (the --query-gpu fields they come from:
 * ks_nvsmi_field_counter() names them as the reader does). */
static const Query counter_fields[] = {
  Q_UTIL_GPU, Q_UTIL_MEMORY, Q_MEMORY_USED, Q_MEMORY_RESERVED, Q_TEMPERATURE, Q_POWER, Q_SM_CLOCK,
  Q_GPM_FIRST + KS_NVML_GPM_SM_ACTIVE, Q_GPM_FIRST + KS_NVML_GPM_SM_OCCUPANCY,
  Q_GPM_FIRST + KS_NVML_GPM_TENSOR_ACTIVE, Q_GPM_FIRST + KS_NVML_GPM_DRAM_ACTIVE,
  Q_GPM_FIRST + KS_NVML_GPM_FP16_ACTIVE, Q_GPM_FIRST + KS_NVML_GPM_FP32_ACTIVE,
  Q_GPM_FIRST + KS_NVML_GPM_FP64_ACTIVE, Q_GPM_FIRST + KS_NVML_GPM_PCIE_TX, Q_GPM_FIRST + KS_NVML_GPM_PCIE_RX,
  Q_GPM_FIRST + KS_NVML_GPM_NVLINK_TX, Q_GPM_FIRST + KS_NVML_GPM_NVLINK_RX,
};

typedef struct
{
  KsNvml          *nvml;
  guint            n_gpus;
  double           interval;
  gint64           count;          /* samples to take, 0: until interrupted */
  gint64           taken;
  gboolean         csv;
  gboolean         header;
  gboolean         units;
  gboolean         tty;
  GArray          *query;          /* Query */
  GArray         **history;        /* per GPU: double utilization, -1 unknown */
  guint            history_len;
  KsTraceBuilder  *builder;        /* -o */
  GMainLoop       *loop;
  int              status;
} Monitor;

static gboolean
parse_query (const char  *list,
             GArray      *out,
             GError     **error)
{
  g_auto(GStrv) fields = g_strsplit (list, ",", -1);

  for (char **f = fields; *f; f++)
    {
      const char *name = g_strstrip (*f);
      gboolean found = FALSE;

      for (guint q = 0; q < G_N_ELEMENTS (query_fields) && !found; q++)
        if (strcmp (name, query_fields[q].name) == 0 ||
            (query_fields[q].alias != NULL && strcmp (name, query_fields[q].alias) == 0))
          {
            Query v = q;

            g_array_append_val (out, v);
            found = TRUE;
          }
      if (!found)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("“%s” is not a field the monitor can query (%s)"), name,
                       "timestamp, index, name, uuid, pci.bus_id, utilization.gpu, utilization.memory, "
                       "memory.total, memory.used, memory.free, memory.reserved, temperature.gpu, power.draw, "
                       "clocks.sm, sm_active, sm_occupancy, tensor_active, dram_active, fp16_active, fp32_active, "
                       "fp64_active, pcie_tx, pcie_rx, nvlink_tx, nvlink_rx");
          return FALSE;
        }
    }
  if (out->len == 0)
    {
      g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, _("--query-gpu names no field"));
      return FALSE;
    }
  return TRUE;
}

/* --format csv[,noheader][,nounits], as nvidia-smi takes it. */
static gboolean
parse_format (Monitor     *m,
              const char  *format,
              GError     **error)
{
  g_auto(GStrv) parts = g_strsplit (format, ",", -1);

  m->header = TRUE;
  m->units = TRUE;
  for (char **p = parts; *p; p++)
    {
      const char *part = g_strstrip (*p);

      if (strcmp (part, "csv") == 0)
        m->csv = TRUE;
      else if (strcmp (part, "noheader") == 0)
        m->header = FALSE;
      else if (strcmp (part, "nounits") == 0)
        m->units = FALSE;
      else if (strcmp (part, "table") != 0)
        {
          g_set_error (error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                       _("unknown format “%s” (table, or csv with noheader and nounits)"), part);
          return FALSE;
        }
    }
  return TRUE;
}

static void
append_timestamp (GString *out)
{
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *text = g_date_time_format (now, "%Y/%m/%d %H:%M:%S");

  g_string_append_printf (out, "%s.%03d", text, g_date_time_get_microsecond (now) / 1000);
}

/* The numeric field @q of a sample, in the unit nvidia-smi prints it in
 * (memory in MiB, traffic in MB/s), or FALSE when the GPU could not say. */
static gboolean
sample_value (const KsNvmlDevice *d,
              const KsNvmlSample *s,
              Query               q,
              double             *v)
{
  gboolean memory = s->fields & KS_NVML_HAS_MEMORY;

  if (IS_GPM (q))
    {
      KsNvmlGpmMetric g = GPM_METRIC (q);

      *v = KS_NVML_GPM_IS_RATE (g) ? s->gpm[g] / 1e6 : s->gpm[g];
      return (s->gpm_valid & (1u << g)) != 0;
    }
  switch (q)
    {
    case Q_UTIL_GPU: *v = s->utilization_gpu; return s->fields & KS_NVML_HAS_UTILIZATION;
    case Q_UTIL_MEMORY: *v = s->utilization_memory; return s->fields & KS_NVML_HAS_UTILIZATION;
    case Q_MEMORY_TOTAL:
      *v = (memory ? s->memory_total : d->total_memory) / MIB;
      return memory || d->total_memory > 0;
    case Q_MEMORY_USED: *v = s->memory_used / MIB; return memory;
    case Q_MEMORY_FREE:
      /* nvidia-smi's: neither used nor reserved */
      *v = (s->memory_total - MIN (s->memory_used + s->memory_reserved, s->memory_total)) / MIB;
      return memory;
    case Q_TEMPERATURE: *v = s->temperature; return s->fields & KS_NVML_HAS_TEMPERATURE;
    case Q_POWER: *v = s->power; return s->fields & KS_NVML_HAS_POWER;
    case Q_SM_CLOCK: *v = s->sm_clock; return s->fields & KS_NVML_HAS_SM_CLOCK;
    case Q_MEMORY_RESERVED: *v = s->memory_reserved / MIB; return s->fields & KS_NVML_HAS_RESERVED;
    case Q_TIMESTAMP: case Q_INDEX: case Q_NAME: case Q_UUID: case Q_BUS_ID:
    default: g_assert_not_reached ();
    }
  return FALSE;
}

/* One value as nvidia-smi's csv has it: "37 %", "1024 MiB", "123.45 W",
 * "55", "[N/A]" when the GPU cannot say. */
static void
append_value (Monitor            *m,
              GString            *out,
              Query               q,
              guint               gpu,
              const KsNvmlSample *s)
{
  const KsNvmlDevice *d = ks_nvml_get_device (m->nvml, gpu);
  const char *unit = m->units ? query_fields[q].unit : NULL;
  double v = 0;

  switch (q)
    {
    case Q_TIMESTAMP: append_timestamp (out); return;
    case Q_INDEX: g_string_append_printf (out, "%u", d->index); return;
    case Q_NAME: ks_cli_append_text (out, d->name ? d->name : "[N/A]", -1, KS_CLI_TEXT_ONE_LINE); return;
    case Q_UUID: ks_cli_append_text (out, d->uuid ? d->uuid : "[N/A]", -1, KS_CLI_TEXT_ONE_LINE); return;
    case Q_BUS_ID: ks_cli_append_text (out, d->bus_id ? d->bus_id : "[N/A]", -1, KS_CLI_TEXT_ONE_LINE); return;
    case Q_UTIL_GPU: case Q_UTIL_MEMORY: case Q_MEMORY_TOTAL: case Q_MEMORY_USED: case Q_MEMORY_FREE:
    case Q_TEMPERATURE: case Q_POWER: case Q_SM_CLOCK: case Q_MEMORY_RESERVED:
    default:
      break;
    }
  if (!sample_value (d, s, q, &v))
    {
      g_string_append (out, "[N/A]");
      return;
    }
  /* whole MiB, as nvidia-smi rounds down, but used and reserved memory
   * up (the H200's 615.06 MiB reserve reads 616 there); watts to the
   * hundredth; GPM to the nearest whole, as dmon --gpm-metrics prints it */
  if (IS_GPM (q))
    g_string_append_printf (out, "%.0f", v);
  else if (q == Q_MEMORY_USED || q == Q_MEMORY_RESERVED)
    g_string_append_printf (out, "%.0f", ceil (v));
  else
    g_string_append_printf (out, "%.*f", q == Q_POWER ? 2 : 0, q == Q_POWER ? v : floor (v));
  if (unit != NULL)
    g_string_append_printf (out, " %s", unit);
}

static void
print_csv_header (Monitor *m)
{
  g_autoptr(GString) out = g_string_new (NULL);

  for (guint i = 0; i < m->query->len; i++)
    {
      Query q = g_array_index (m->query, Query, i);

      if (i > 0)
        g_string_append (out, ", ");
      g_string_append (out, query_fields[q].name);
      if (m->units && query_fields[q].unit != NULL)
        g_string_append_printf (out, " [%s]", query_fields[q].unit);
    }
  g_string_append_c (out, '\n');
  fputs (out->str, stdout);
  fflush (stdout);
}

static void
append_sparkline (Monitor *m,
                  GString *out,
                  guint    gpu)
{
  static const char * const bars[] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
  GArray *h = m->history[gpu];
  guint per = (h->len + SPARK_COLUMNS - 1) / SPARK_COLUMNS;

  /* the last minute, at most 60 columns: each the highest of its samples */
  for (guint i = 0; per > 0 && i < h->len; i += per)
    {
      double v = -1;

      for (guint k = i; k < MIN (i + per, h->len); k++)
        v = MAX (v, g_array_index (h, double, k));
      if (v < 0)
        g_string_append_c (out, ' ');
      else
        g_string_append (out, bars[MIN ((int) (v * 8 / 100.0), 7)]);
    }
}

/* @width < 0: aligned left. Escaped, followed by a space. */
static void
append_cell (GString    *out,
             const char *text,
             int         width)
{
  ks_cli_table_cell (out, text, ABS (width), width > 0);
}

static void
remember (Monitor            *m,
          guint               gpu,
          const KsNvmlSample *s)
{
  GArray *h = m->history[gpu];
  double v = (s->fields & KS_NVML_HAS_UTILIZATION) ? s->utilization_gpu : -1;

  g_array_append_val (h, v);
  if (h->len > m->history_len)
    g_array_remove_range (h, 0, h->len - m->history_len);
}

/* "37 %", "55 °C", "-" when the GPU cannot say */
static char *
format_or_na (gboolean    have,
              double      value,
              int         decimals,
              const char *unit)
{
  return have ? g_strdup_printf ("%.*f %s", decimals, value, unit) : g_strdup ("-");
}

static void
print_table (Monitor       *m,
             KsNvmlSample  *samples,
             GArray       **processes)
{
  g_autoptr(GString) out = g_string_new (NULL);
  g_autoptr(GDateTime) now = g_date_time_new_now_local ();
  g_autofree char *when = g_date_time_format (now, "%Y-%m-%d %H:%M:%S");
  guint n_processes = 0;

  if (m->tty)
    g_string_append (out, "\033[H\033[2J");
  else if (m->taken > 1)
    g_string_append_c (out, '\n');
  g_string_append_printf (out, _("GPUs at %s (every %g s)\n"), when, m->interval);
  append_cell (out, _("GPU"), 3);
  append_cell (out, _("Name"), -24);
  append_cell (out, _("Util"), 6);
  append_cell (out, _("Mem"), 6);
  append_cell (out, _("SM act"), 7);
  append_cell (out, _("Tensor"), 7);
  append_cell (out, _("Memory used / total"), 21);
  append_cell (out, _("Temp"), 6);
  append_cell (out, _("Power"), 9);
  append_cell (out, _("SM clock"), 9);
  g_string_append_printf (out, "%s\n", _("Utilization, last minute"));
  for (guint i = 0; i < m->n_gpus; i++)
    {
      const KsNvmlDevice *d = ks_nvml_get_device (m->nvml, i);
      const KsNvmlSample *s = &samples[i];
      gboolean util = s->fields & KS_NVML_HAS_UTILIZATION, mem = s->fields & KS_NVML_HAS_MEMORY;
      g_autofree char *u = format_or_na (util, s->utilization_gpu, 0, "%");
      g_autofree char *um = format_or_na (util, s->utilization_memory, 0, "%");
      /* GPM: "N/A" as nvidia-smi writes it where the GPU has none */
      g_autofree char *sm = s->gpm_valid & (1u << KS_NVML_GPM_SM_ACTIVE)
                            ? g_strdup_printf ("%.0f %%", s->gpm[KS_NVML_GPM_SM_ACTIVE]) : g_strdup ("N/A");
      g_autofree char *tensor = s->gpm_valid & (1u << KS_NVML_GPM_TENSOR_ACTIVE)
                                ? g_strdup_printf ("%.0f %%", s->gpm[KS_NVML_GPM_TENSOR_ACTIVE]) : g_strdup ("N/A");
      g_autofree char *used = mem ? g_strdup_printf ("%.0f / %.0f MiB", ceil (s->memory_used / MIB),
                                                     floor (s->memory_total / MIB)) : g_strdup ("-");
      g_autofree char *t = format_or_na (s->fields & KS_NVML_HAS_TEMPERATURE, s->temperature, 0, "°C");
      g_autofree char *p = format_or_na (s->fields & KS_NVML_HAS_POWER, s->power, 1, "W");
      g_autofree char *c = format_or_na (s->fields & KS_NVML_HAS_SM_CLOCK, s->sm_clock, 0, "MHz");
      g_autofree char *index = g_strdup_printf ("%u", d->index);

      append_cell (out, index, 3);
      append_cell (out, d->name ? d->name : "", -24);
      append_cell (out, u, 6);
      append_cell (out, um, 6);
      append_cell (out, sm, 7);
      append_cell (out, tensor, 7);
      append_cell (out, used, 21);
      append_cell (out, t, 6);
      append_cell (out, p, 9);
      append_cell (out, c, 9);
      append_sparkline (m, out, i);
      g_string_append_c (out, '\n');
      n_processes += processes[i]->len;
    }

  g_string_append_c (out, '\n');
  if (n_processes == 0)
    g_string_append_printf (out, "%s\n", _("No process is using a GPU."));
  else
    {
      append_cell (out, _("GPU"), 3);
      append_cell (out, _("PID"), 8);
      append_cell (out, _("SM"), 5);
      append_cell (out, _("Mem"), 5);
      append_cell (out, _("Memory"), 10);
      g_string_append_printf (out, "%s\n", _("Process"));
    }
  for (guint i = 0; i < m->n_gpus; i++)
    for (guint k = 0; k < processes[i]->len; k++)
      {
        const KsNvmlProcess *p = &g_array_index (processes[i], KsNvmlProcess, k);
        g_autofree char *index = g_strdup_printf ("%u", ks_nvml_get_device (m->nvml, i)->index);
        g_autofree char *pid = g_strdup_printf ("%u", p->pid);
        g_autofree char *sm = format_or_na (p->sm_util >= 0, p->sm_util, 0, "%");
        g_autofree char *mu = format_or_na (p->memory_util >= 0, p->memory_util, 0, "%");
        g_autofree char *memory = format_or_na (p->used_memory != G_MAXUINT64, floor (p->used_memory / MIB), 0, "MiB");

        append_cell (out, index, 3);
        append_cell (out, pid, 8);
        append_cell (out, sm, 5);
        append_cell (out, mu, 5);
        append_cell (out, memory, 10);
        ks_cli_append_text (out, p->name[0] ? p->name : "-", -1, KS_CLI_TEXT_ONE_LINE);
        g_string_append_c (out, '\n');
      }
  /* text from the driver is escaped above: written as it is */
  fputs (out->str, stdout);
  fflush (stdout);
}

static void
print_csv (Monitor      *m,
           KsNvmlSample *samples)
{
  g_autoptr(GString) out = g_string_new (NULL);

  for (guint i = 0; i < m->n_gpus; i++)
    {
      for (guint k = 0; k < m->query->len; k++)
        {
          if (k > 0)
            g_string_append (out, ", ");
          append_value (m, out, g_array_index (m->query, Query, k), i, &samples[i]);
        }
      g_string_append_c (out, '\n');
    }
  fputs (out->str, stdout);
  fflush (stdout);
}

static void
add_sample (Monitor    *m,
            guint32     counter,
            gint64      ts,
            double      value)
{
  ks_trace_builder_add_counter_sample (m->builder, counter, ts, value);
}

/* The counter of @field (a --query-gpu field, or a pmon column for a
 * process) on GPU @gpu, named as the reader names it; @scale turns the
 * value nvidia-smi prints into the counter's unit. */
static guint32
get_counter (Monitor             *m,
             guint                gpu,
             KsNvsmiKind          kind,
             const char          *field,
             const KsNvmlProcess *p,
             double              *scale)
{
  const char *name, *unit;
  guint32 process = KS_NO_INDEX;

  if (!ks_nvsmi_field_counter (kind, field, &name, &unit, scale))
    g_assert_not_reached ();
  if (p != NULL)
    {
      process = ks_trace_builder_get_process (m->builder, p->pid);
      if (p->name[0] != 0)
        ks_trace_builder_set_process_info (m->builder, process, p->name, NULL, NULL, G_MININT32);
    }
  return ks_trace_builder_get_counter (m->builder, name, unit, (gint32) ks_nvml_get_device (m->nvml, gpu)->index,
                                       process);
}

/* The samples as the reader makes them of an nvidia-smi log: the same
 * counters, in bytes where memory. */
static void
keep (Monitor       *m,
      KsNvmlSample  *samples,
      GArray       **processes)
{
  gint64 ts = g_get_real_time () * 1000;

  for (guint i = 0; i < m->n_gpus; i++)
    {
      const KsNvmlDevice *d = ks_nvml_get_device (m->nvml, i);

      for (guint k = 0; k < G_N_ELEMENTS (counter_fields); k++)
        {
          Query q = counter_fields[k];
          const char *field = q == Q_SM_CLOCK ? "clocks.sm" : query_fields[q].name;
          double v, scale = 1;

          if (sample_value (d, &samples[i], q, &v))
            {
              guint32 counter = get_counter (m, i, KS_NVSMI_QUERY_CSV, field, NULL, &scale);

              add_sample (m, counter, ts, v * scale);
            }
        }
      for (guint k = 0; k < processes[i]->len; k++)
        {
          const KsNvmlProcess *p = &g_array_index (processes[i], KsNvmlProcess, k);
          double scale = 1;

          if (p->sm_util >= 0)
            add_sample (m, get_counter (m, i, KS_NVSMI_PMON, "sm", p, &scale), ts, p->sm_util);
          if (p->memory_util >= 0)
            add_sample (m, get_counter (m, i, KS_NVSMI_PMON, "mem", p, &scale), ts, p->memory_util);
          if (p->used_memory != G_MAXUINT64)
            add_sample (m, get_counter (m, i, KS_NVSMI_PMON, "fb", p, &scale), ts, (double) p->used_memory);
        }
    }
}

static gboolean
tick_cb (gpointer data)
{
  Monitor *m = data;
  g_autofree KsNvmlSample *samples = g_new0 (KsNvmlSample, MAX (m->n_gpus, 1));
  g_autofree GArray **processes = g_new0 (GArray *, MAX (m->n_gpus, 1));

  m->taken++;
  for (guint i = 0; i < m->n_gpus; i++)
    {
      ks_nvml_sample (m->nvml, i, &samples[i]);
      /* the csv has no processes: asked only when shown or kept */
      processes[i] = !m->csv || m->builder != NULL ? ks_nvml_get_processes (m->nvml, i)
                                                   : g_array_new (FALSE, TRUE, sizeof (KsNvmlProcess));
      remember (m, i, &samples[i]);
    }
  if (m->csv)
    print_csv (m, samples);
  else
    print_table (m, samples, processes);
  if (m->builder != NULL)
    keep (m, samples, processes);
  for (guint i = 0; i < m->n_gpus; i++)
    g_array_unref (processes[i]);

  if (m->count > 0 && m->taken >= m->count)
    {
      g_main_loop_quit (m->loop);
      return G_SOURCE_REMOVE;
    }
  return G_SOURCE_CONTINUE;
}

static gboolean
first_tick_cb (gpointer data)
{
  Monitor *m = data;
  guint ms = (guint) MAX (llround (m->interval * 1000), 1);

  if (tick_cb (m) == G_SOURCE_CONTINUE)
    g_timeout_add (ms, tick_cb, m);
  return G_SOURCE_REMOVE;
}

static gboolean
stop_cb (gpointer data)
{
  Monitor *m = data;

  g_main_loop_quit (m->loop);
  return G_SOURCE_CONTINUE;
}

static gboolean
write_kscope (Monitor    *m,
              const char *path,
              gboolean    force)
{
  g_autoptr(GFile) file = g_file_new_for_commandline_arg (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  KsTraceBuilder *b = g_steal_pointer (&m->builder);

  for (guint i = 0; i < m->n_gpus; i++)
    {
      const KsNvmlDevice *d = ks_nvml_get_device (m->nvml, i);
      KsGpu gpu = { 0 };

      gpu.device = (gint32) d->index;
      gpu.name = ks_trace_builder_intern (b, d->name ? d->name : "");
      gpu.total_memory = d->total_memory;
      ks_trace_builder_add_gpu (b, &gpu);
    }
  trace = ks_trace_builder_finish (b, NULL, &error);
  if (trace == NULL ||
      !ks_kscope_write_full (trace, file, force ? KS_KSCOPE_WRITE_REPLACE : KS_KSCOPE_WRITE_NONE, NULL, NULL,
                             &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_EXISTS))
        ks_cli_printerr (_("kinescope-cli monitor: %s exists (use --force to replace it)\n"), path);
      else
        ks_cli_printerr ("kinescope-cli monitor: %s\n", error->message);
      return FALSE;
    }
  return TRUE;
}

int
ks_cli_monitor (int    argc,
                char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *format = NULL;
  g_autofree char *query = NULL;
  g_autofree char *output = NULL;
  g_auto(GStrv) rest = NULL;
  gboolean force = FALSE;
  double interval = 1.0;
  gint64 count = 0;
  Monitor m = { 0 };
  guint sig_int, sig_term;
  const GOptionEntry entries[] = {
    { "loop", 'l', 0, G_OPTION_ARG_DOUBLE, &interval, N_("Seconds between samples (default 1)"), N_("SECONDS") },
    { "count", 'c', 0, G_OPTION_ARG_INT64, &count, N_("Take N samples, then stop (default: until Ctrl-C)"), "N" },
    { "format", 0, 0, G_OPTION_ARG_STRING, &format,
      N_("table (default), or csv[,noheader][,nounits] as nvidia-smi --format takes it"), "table|csv" },
    { "query-gpu", 0, 0, G_OPTION_ARG_STRING, &query,
      N_("The csv columns, as nvidia-smi --query-gpu takes them (default: timestamp, index, name, "
         "utilization.gpu, utilization.memory, memory.used, memory.total, temperature.gpu, power.draw, clocks.sm; "
         "also memory.reserved and the GPU's activity counters sm_active, sm_occupancy, tensor_active, "
         "dram_active, fp16_active, fp32_active, fp64_active, pcie_tx, pcie_rx, nvlink_tx, nvlink_rx)"),
      N_("LIST") },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, N_("Also keep the samples as counter rows in FILE.kscope"),
      N_("FILE") },
    { "force", 'f', 0, G_OPTION_ARG_NONE, &force, N_("Replace the -o file if it exists"), NULL },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &rest, NULL, NULL },
    { NULL }
  };

  context = g_option_context_new (_("— watch the GPUs and their processes"));
  g_option_context_set_summary (context,
                                _("Shows every GPU (utilization, SM and tensor activity, memory, temperature,\n"
                                  "power, SM clock) and the processes using it, refreshed every second, with\n"
                                  "the last minute's utilization; --format csv prints what nvidia-smi\n"
                                  "--query-gpu prints."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      ks_cli_printerr ("kinescope-cli monitor: %s\n", error->message);
      return KS_CLI_USAGE;
    }
  if (rest != NULL && rest[0] != NULL)
    {
      ks_cli_printerr (_("kinescope-cli monitor: unexpected argument “%s” (see --help)\n"), rest[0]);
      return KS_CLI_USAGE;
    }
  if (!(interval >= 0.05 && interval <= 86400) || count < 0)
    {
      ks_cli_printerr (_("kinescope-cli monitor: -l takes 0.05 to 86400 seconds, --count 0 or more\n"));
      return KS_CLI_USAGE;
    }
  m.query = g_array_new (FALSE, FALSE, sizeof (Query));
  if ((format != NULL && !parse_format (&m, format, &error)) ||
      !parse_query (query != NULL ? query : DEFAULT_QUERY, m.query, &error))
    {
      ks_cli_printerr ("kinescope-cli monitor: %s\n", error->message);
      g_array_unref (m.query);
      return KS_CLI_USAGE;
    }
  if (format == NULL)
    m.header = m.units = TRUE;
  if (output != NULL && !force && g_file_test (output, G_FILE_TEST_EXISTS))
    {
      ks_cli_printerr (_("kinescope-cli monitor: %s exists (use --force to replace it)\n"), output);
      g_array_unref (m.query);
      return KS_CLI_FAILED;
    }

  m.nvml = ks_nvml_open (&error);
  if (m.nvml == NULL)
    {
      g_autofree char *message = ks_nvml_unavailable_message (error);

      ks_cli_printerr ("kinescope-cli monitor: %s\n", message);
      g_array_unref (m.query);
      return KS_CLI_FAILED;
    }

  m.n_gpus = ks_nvml_get_n_devices (m.nvml);
  m.interval = interval;
  m.count = count;
  m.tty = isatty (STDOUT_FILENO);
  m.history_len = (guint) MAX (ceil (60.0 / interval), 1);
  m.history = g_new0 (GArray *, MAX (m.n_gpus, 1));
  for (guint i = 0; i < m.n_gpus; i++)
    m.history[i] = g_array_new (FALSE, FALSE, sizeof (double));
  if (output != NULL)
    {
      m.builder = ks_trace_builder_new (KS_FORMAT_KSCOPE);
      ks_trace_builder_set_start_utc (m.builder, 0);
      ks_trace_builder_set_metadata (m.builder, "source_name", "kinescope-cli monitor");
    }
  signal (SIGPIPE, SIG_IGN);

  if (m.csv && m.header)
    print_csv_header (&m);
  m.loop = g_main_loop_new (NULL, FALSE);
  /* Ctrl-C ends the monitor; the samples so far are still written */
  sig_int = ks_signals_add (SIGINT, stop_cb, &m);
  sig_term = ks_signals_add (SIGTERM, stop_cb, &m);
  g_idle_add (first_tick_cb, &m);
  g_main_loop_run (m.loop);
  ks_signals_remove (sig_int);
  ks_signals_remove (sig_term);

  m.status = KS_CLI_OK;
  if (output != NULL && !write_kscope (&m, output, force))
    m.status = KS_CLI_FAILED;

  g_clear_pointer (&m.builder, ks_trace_builder_free);
  for (guint i = 0; i < m.n_gpus; i++)
    g_array_unref (m.history[i]);
  g_free (m.history);
  g_array_unref (m.query);
  g_main_loop_unref (m.loop);
  ks_nvml_close (m.nvml);
  return m.status;
}
