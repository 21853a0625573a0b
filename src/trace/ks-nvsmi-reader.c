/* ks-nvsmi-reader.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-nvsmi-reader"

/* nvidia-smi logs as counter rows (see ks-nvsmi-reader.h). The file is
 * read line by line from memory: logs are text of at most a few tens of
 * MiB (a day at -l 1 on eight GPUs). Every row must parse: a file that
 * starts like a log but is not one fails naming the line, except a last
 * line cut short (the log was still being written), which is left out
 * with a warning. */

#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ks-gpm.h"
#include "ks-nvsmi-private.h"
#include "ks-nvsmi-reader.h"
#include "ks-trace-builder.h"

/* Larger files are not nvidia-smi logs anyone took. */
#define MAX_FILE_SIZE (1024 * 1024 * 1024)
/* Device indices beyond this are not a GPU's. */
#define MAX_DEVICE 1023
/* The largest value a counter takes (bytes, %, W, MHz). */
#define MAX_VALUE 1e18
#define MIB KS_NVSMI_MIB

/* What a column is. */
typedef enum
{
  COL_IGNORED,      /* text nvidia-smi prints that is no counter */
  COL_COUNTER,      /* a known numeric field */
  COL_UNKNOWN,      /* a field we do not know: a counter while its values are numbers */
  COL_TIMESTAMP,
  COL_DATE,         /* dmon/pmon -o D: YYYYMMDD */
  COL_TIME,         /* dmon/pmon -o T: HH:MM:SS */
  COL_DEVICE,       /* index (csv), gpu (dmon, pmon) */
  COL_DEVICE_ID,    /* uuid, pci.bus_id: a device when no index is given */
  COL_NAME,
  COL_MEMORY_TOTAL, /* a counter that also sets the GPU's total memory */
  COL_PID,
  COL_COMMAND,
} ColumnKind;

typedef struct
{
  char       *field;
  char       *unit;       /* from the header's [unit] or dmon's unit line, or NULL */
  ColumnKind  kind;
  const char *counter;    /* counter name */
  const char *counter_unit;
  double      scale;
  GArray     *ids;        /* guint32 counter + 1 per device, 0 when not made yet */
  gboolean    numbers;    /* a value of it was read as a number */
} Column;

typedef struct
{
  const char *field;
  const char *counter;
  const char *unit;
  double      scale;
} Field;

/* --query-gpu fields read as counters: the recorder's names for the
 * five it samples (ks-record-sampler.c), the same style for the rest. */
static const Field query_fields[] = {
  { "utilization.gpu",         "GPU utilization",          "%",     1 },
  { "utilization.memory",      "GPU memory utilization",   "%",     1 },
  { "memory.used",             "GPU memory used",          "bytes", MIB },
  { "memory.total",            "GPU memory total",         "bytes", MIB },
  { "memory.free",             "GPU memory free",          "bytes", MIB },
  { "memory.reserved",         "GPU memory reserved",      "bytes", MIB },
  { "temperature.gpu",         "GPU temperature",          "°C",    1 },
  { "temperature.memory",      "GPU memory temperature",   "°C",    1 },
  { "power.draw",              "GPU power",                "W",     1 },
  { "power.draw.instant",      "GPU power",                "W",     1 },
  { "power.draw.average",      "GPU power (average)",      "W",     1 },
  { "power.limit",             "GPU power limit",          "W",     1 },
  { "clocks.sm",               "SM clock",                 "MHz",   1 },
  { "clocks.current.sm",       "SM clock",                 "MHz",   1 },
  { "clocks.gr",               "Graphics clock",           "MHz",   1 },
  { "clocks.current.graphics", "Graphics clock",           "MHz",   1 },
  { "clocks.mem",              "Memory clock",             "MHz",   1 },
  { "clocks.current.memory",   "Memory clock",             "MHz",   1 },
  { "fan.speed",               "Fan speed",                "%",     1 },
  { "utilization.encoder",     "Encoder utilization",      "%",     1 },
  { "utilization.decoder",     "Decoder utilization",      "%",     1 },
};

/* dmon's columns (-s pucvmet): sm is NVML's utilization.gpu, fb MiB. */
static const Field dmon_fields[] = {
  { "sm",    "GPU utilization",        "%",     1 },
  { "mem",   "GPU memory utilization", "%",     1 },
  { "pwr",   "GPU power",              "W",     1 },
  { "gtemp", "GPU temperature",        "°C",    1 },
  { "mtemp", "GPU memory temperature", "°C",    1 },
  { "pclk",  "Graphics clock",         "MHz",   1 },
  { "mclk",  "Memory clock",           "MHz",   1 },
  { "enc",   "Encoder utilization",    "%",     1 },
  { "dec",   "Decoder utilization",    "%",     1 },
  { "jpg",   "JPEG utilization",       "%",     1 },
  { "ofa",   "OFA utilization",        "%",     1 },
  { "fb",    "GPU memory used",        "bytes", MIB },
  { "bar1",  "BAR1 memory used",       "bytes", MIB },
  { "ccpm",  "Protected memory used",  "bytes", MIB },
};

/* pmon's: per process on a GPU. */
static const Field pmon_fields[] = {
  { "sm",    "SM utilization",         "%",     1 },
  { "mem",   "Memory utilization",     "%",     1 },
  { "enc",   "Encoder utilization",    "%",     1 },
  { "dec",   "Decoder utilization",    "%",     1 },
  { "jpg",   "JPEG utilization",       "%",     1 },
  { "ofa",   "OFA utilization",        "%",     1 },
  { "fb",    "GPU memory used",        "bytes", MIB },
  { "ccpm",  "Protected memory used",  "bytes", MIB },
};

/* Text columns of --query-gpu that are no counter. */
static const char * const text_fields[] = {
  "driver_version", "count", "name", "serial", "uuid", "pci.bus_id", "pci.domain", "pci.bus",
  "pci.device", "pci.device_id", "pci.sub_device_id", "vbios_version", "pstate",
  "compute_mode", "persistence_mode", "display_mode", "display_active", "mig.mode.current",
  "gpu_name", "gpu_bus_id", "gpu_serial", "gpu_uuid",
};

typedef struct
{
  const char          *name;
  const char          *data;
  gsize                len;
  const char          *pos;
  guint64              line;
  KsNvsmiKind          kind;
  double               interval;
  KsTraceBuilder      *b;
  GPtrArray           *columns;    /* Column */
  gboolean             has_header;
  gboolean             have_time;
  int                  device_col;
  int                  device_id_col;
  GHashTable          *device_ids; /* uuid → device + 1 */
  GHashTable          *gpus;       /* device → KsGpu* */
  GHashTable          *pmon_counters; /* "pid\x1fgpu\x1fcol" → id + 1 */
  /* sample grouping */
  gint64               sample;
  gint64               last_ts;
  gint64               day_offset;
  gint64               last_time_of_day;
  int                  last_device;
  GHashTable          *in_sample;  /* keys seen in the current sample */
  char                *last_time_text; /* the timestamp last parsed */
  gint64               last_time_ns;
  guint64              rows;
  guint64              missing;
  guint64              cut;
  KsNvsmiChecks        checks;
} Reader;

static void
column_free (gpointer data)
{
  Column *c = data;

  g_free (c->field);
  g_free (c->unit);
  g_clear_pointer (&c->ids, g_array_unref);
  g_free (c);
}

static const Field *
find_field (const Field *fields,
            guint        n,
            const char  *name)
{
  for (guint i = 0; i < n; i++)
    if (g_ascii_strcasecmp (fields[i].field, name) == 0)
      return &fields[i];
  return NULL;
}

gboolean
ks_nvsmi_field_counter (KsNvsmiKind  kind,
                        const char  *field,
                        const char **name,
                        const char **unit,
                        double      *scale)
{
  const Field *f = NULL;

  if (kind == KS_NVSMI_DMON)
    f = find_field (dmon_fields, G_N_ELEMENTS (dmon_fields), field);
  else if (kind == KS_NVSMI_PMON)
    f = find_field (pmon_fields, G_N_ELEMENTS (pmon_fields), field);
  else
    f = find_field (query_fields, G_N_ELEMENTS (query_fields), field);

  /* GPM: dmon --gpm-metrics columns, the monitor's --query-gpu names */
  if (f == NULL && kind != KS_NVSMI_PMON)
    {
      const KsGpmField *g = ks_gpm_find_field (field, kind == KS_NVSMI_DMON);

      if (g == NULL)
        return FALSE;
      if (name)
        *name = g->counter;
      if (unit)
        *unit = g->unit;
      if (scale)
        *scale = g->query_scale;
      return TRUE;
    }
  if (f == NULL)
    return FALSE;
  if (name)
    *name = f->counter;
  if (unit)
    *unit = f->unit;
  if (scale)
    *scale = f->scale;
  return TRUE;
}

static gboolean
is_text_field (const char *field)
{
  for (guint i = 0; i < G_N_ELEMENTS (text_fields); i++)
    if (g_ascii_strcasecmp (text_fields[i], field) == 0)
      return TRUE;
  return FALSE;
}

/* A known --query-gpu field, counter or not. */
static gboolean
is_query_field (const char *field)
{
  return find_field (query_fields, G_N_ELEMENTS (query_fields), field) != NULL ||
         ks_gpm_find_field (field, FALSE) != NULL || is_text_field (field) || g_ascii_strcasecmp (field, "index") == 0 ||
         g_ascii_strcasecmp (field, "timestamp") == 0;
}

/* Splits "utilization.gpu [%]" into its field and unit. */
static void
split_header_field (const char  *text,
                    char       **field,
                    char       **unit)
{
  const char *open = strchr (text, '[');

  *unit = NULL;
  if (open != NULL && g_str_has_suffix (text, "]"))
    {
      *field = g_strstrip (g_strndup (text, open - text));
      *unit = g_strstrip (g_strndup (open + 1, strlen (open + 1) - 1));
    }
  else
    *field = g_strstrip (g_strdup (text));
}

/* A field name as --query-gpu spells them: letters, digits, '.', '_'. */
static gboolean
looks_like_field (const char *text)
{
  g_autofree char *field = NULL;
  g_autofree char *unit = NULL;

  split_header_field (text, &field, &unit);
  if (*field == 0 || !g_ascii_isalpha (*field))
    return FALSE;
  for (const char *p = field; *p; p++)
    if (!g_ascii_isalnum (*p) && *p != '.' && *p != '_')
      return FALSE;
  return TRUE;
}

static gboolean
fail (Reader     *r,
      GError    **error,
      const char *format,
      ...) G_GNUC_PRINTF (3, 4);

static gboolean
fail (Reader     *r,
      GError    **error,
      const char *format,
      ...)
{
  va_list args;

  va_start (args, format);
  ks_nvsmi_line_error (error, r->name, r->line, format, args);
  va_end (args);
  return FALSE;
}

/* The next line, without its end; FALSE at the end of the data. */
static gboolean
next_line (Reader   *r,
           char    **out,
           gboolean *complete)
{
  const char *end = r->data + r->len;
  const char *nl;
  gsize n;

  if (r->pos >= end)
    return FALSE;
  nl = memchr (r->pos, '\n', end - r->pos);
  n = (nl ? nl : end) - r->pos;
  *complete = nl != NULL;
  if (n > 0 && r->pos[n - 1] == '\r')
    n--;
  *out = g_strndup (r->pos, n);
  r->pos = nl ? nl + 1 : end;
  r->line++;
  return TRUE;
}

/* A data row of a csv log without its header: an nvidia-smi timestamp
 * first, or values with nvidia-smi's units. */
static gboolean
looks_like_row (char **fields)
{
  guint n = g_strv_length (fields);
  guint with_unit = 0;
  gint64 t;

  if (n < 2)
    return FALSE;
  if (ks_nvsmi_parse_time (fields[0], &t))
    return TRUE;
  for (guint i = 0; i < n; i++)
    {
      char *end;

      g_ascii_strtod (fields[i], &end);
      if (end != fields[i] && (strcmp (end, " %") == 0 || strcmp (end, " MiB") == 0 ||
                               strcmp (end, " W") == 0 || strcmp (end, " MHz") == 0))
        with_unit++;
    }
  return with_unit >= 2;
}

/* Field names, two of them nvidia-smi's, one of those a counter: a
 * "timestamp, index" line alone is no log of anything. */
static gboolean
is_csv_header (char **fields)
{
  guint known = 0, counters = 0, n = 0;

  for (char **f = fields; *f; f++, n++)
    {
      g_autofree char *field = NULL;
      g_autofree char *unit = NULL;

      if (!looks_like_field (*f))
        return FALSE;
      split_header_field (*f, &field, &unit);
      if (is_query_field (field))
        known++;
      if (ks_nvsmi_field_counter (KS_NVSMI_QUERY_CSV, field, NULL, NULL, NULL))
        counters++;
    }
  return n >= 1 && known >= MIN (n, 2) && counters >= 1;
}

static KsNvsmiKind
sniff_line (const char *line,
            gboolean    have_columns)
{
  line = ks_nvsmi_skip_bom (line);
  if (*line == '#')
    {
      g_auto(GStrv) tokens = ks_nvsmi_split_ws (line + 1);
      gboolean gpu = FALSE, pid = FALSE, metric = FALSE;

      for (char **t = tokens; *t; t++)
        {
          if (strcmp (*t, "gpu") == 0)
            gpu = TRUE;
          else if (strcmp (*t, "pid") == 0)
            pid = TRUE;
          else if (find_field (dmon_fields, G_N_ELEMENTS (dmon_fields), *t) != NULL)
            metric = TRUE;
        }
      if (gpu && pid)
        return KS_NVSMI_PMON;
      if (gpu && metric)
        return KS_NVSMI_DMON;
      return KS_NVSMI_NONE;
    }
  else
    {
      g_auto(GStrv) fields = ks_nvsmi_split_csv (line);

      if (is_csv_header (fields) || looks_like_row (fields) || (have_columns && fields[0] != NULL))
        return KS_NVSMI_QUERY_CSV;
    }
  return KS_NVSMI_NONE;
}

KsNvsmiKind
ks_nvsmi_sniff (const guint8 *data,
                gsize         len,
                gboolean      have_columns)
{
  const char *p = (const char *) data;
  const char *end = p + len;

  if (ks_nvsmi_table_sniff (p, len))
    return KS_NVSMI_TABLE;
  if (ks_nvsmi_is_utf16 (data, len))
    {
      g_autofree char *line = ks_nvsmi_utf16_to_utf8 (data, len, TRUE, NULL, NULL);

      return line != NULL ? sniff_line (g_strstrip (line), have_columns) : KS_NVSMI_NONE;
    }
  /* the first line that is not blank */
  while (p < end)
    {
      const char *nl = memchr (p, '\n', end - p);
      gsize n = (nl ? nl : end) - p;
      g_autofree char *line = NULL;

      if (memchr (p, 0, n) != NULL)
        return KS_NVSMI_NONE;
      line = g_strstrip (g_strndup (p, n));
      if (*line != 0)
        return g_utf8_validate (line, -1, NULL) ? sniff_line (line, have_columns) : KS_NVSMI_NONE;
      if (nl == NULL)
        break;
      p = nl + 1;
    }
  return KS_NVSMI_NONE;
}

static Column *
add_column (Reader     *r,
            const char *text,
            const char *unit)
{
  Column *c = g_new0 (Column, 1);
  const char *field;

  if (unit != NULL)
    {
      c->field = g_strdup (text);
      c->unit = g_strdup (unit);
    }
  else
    split_header_field (text, &c->field, &c->unit);
  field = c->field;
  c->scale = 1;

  if (ks_nvsmi_field_counter (r->kind, field, &c->counter, &c->counter_unit, &c->scale))
    {
      c->kind = COL_COUNTER;
      if (g_ascii_strcasecmp (field, "memory.total") == 0)
        c->kind = COL_MEMORY_TOTAL;
    }
  else if (g_ascii_strcasecmp (field, "timestamp") == 0)
    c->kind = COL_TIMESTAMP;
  else if (r->kind != KS_NVSMI_QUERY_CSV && g_ascii_strcasecmp (field, "Date") == 0)
    c->kind = COL_DATE;
  else if (r->kind != KS_NVSMI_QUERY_CSV && g_ascii_strcasecmp (field, "Time") == 0)
    c->kind = COL_TIME;
  else if (g_ascii_strcasecmp (field, "gpu") == 0 || g_ascii_strcasecmp (field, "index") == 0)
    c->kind = COL_DEVICE;
  else if (g_ascii_strcasecmp (field, "uuid") == 0 || g_ascii_strcasecmp (field, "pci.bus_id") == 0 ||
           g_ascii_strcasecmp (field, "gpu_uuid") == 0 || g_ascii_strcasecmp (field, "gpu_bus_id") == 0)
    c->kind = COL_DEVICE_ID;
  else if (g_ascii_strcasecmp (field, "name") == 0 || g_ascii_strcasecmp (field, "gpu_name") == 0)
    c->kind = COL_NAME;
  else if (r->kind == KS_NVSMI_PMON && strcmp (field, "pid") == 0)
    c->kind = COL_PID;
  else if (r->kind == KS_NVSMI_PMON && (strcmp (field, "command") == 0 || strcmp (field, "type") == 0))
    c->kind = strcmp (field, "command") == 0 ? COL_COMMAND : COL_IGNORED;
  else if (is_text_field (field))
    c->kind = COL_IGNORED;
  else
    {
      /* counted under the name the log gives it */
      c->kind = COL_UNKNOWN;
      c->counter = c->field;
      c->counter_unit = c->unit;
    }
  c->ids = g_array_new (FALSE, TRUE, sizeof (guint32));
  g_ptr_array_add (r->columns, c);
  return c;
}

/* Which column names the device: "gpu" where a log has it (dmon, pmon,
 * and scripts that add it before --query-gpu's own columns), else
 * "index"; the other one is then left out. */
static gboolean
settle_columns (Reader  *r,
                GError **error)
{
  int gpu = -1, index = -1;

  r->device_col = -1;
  r->device_id_col = -1;
  r->have_time = FALSE;
  for (guint i = 0; i < r->columns->len; i++)
    {
      Column *c = g_ptr_array_index (r->columns, i);

      if (c->kind == COL_DEVICE && g_ascii_strcasecmp (c->field, "gpu") == 0 && gpu < 0)
        gpu = i;
      else if (c->kind == COL_DEVICE && index < 0)
        index = i;
      else if (c->kind == COL_DEVICE)
        c->kind = COL_IGNORED;
      else if (c->kind == COL_DEVICE_ID && r->device_id_col < 0)
        r->device_id_col = i;
      else if (c->kind == COL_TIMESTAMP || c->kind == COL_TIME)
        r->have_time = TRUE;
    }
  if (gpu >= 0 && index >= 0)
    {
      ((Column *) g_ptr_array_index (r->columns, index))->kind = COL_IGNORED;
      ks_trace_builder_add_warning (r->b, _("%s: both a “gpu” and an “index” column: the GPUs are told apart by “gpu”, “index” is left out"),
                                    r->name);
    }
  r->device_col = gpu >= 0 ? gpu : index;
  if (r->kind == KS_NVSMI_PMON && r->device_col < 0)
    return fail (r, error, _("a pmon header line without its “gpu” column"));
  return TRUE;
}

static KsGpu *
get_gpu (Reader *r,
         gint64  device)
{
  KsGpu *gpu = g_hash_table_lookup (r->gpus, GINT_TO_POINTER ((int) device));

  if (gpu == NULL)
    {
      gpu = g_new0 (KsGpu, 1);
      gpu->device = (gint32) device;
      g_hash_table_insert (r->gpus, GINT_TO_POINTER ((int) device), gpu);
    }
  return gpu;
}

static guint32
device_counter (Reader *r,
                Column *c,
                gint64  device)
{
  guint32 *id;

  if (c->ids->len <= device)
    g_array_set_size (c->ids, device + 1);
  id = &g_array_index (c->ids, guint32, device);
  if (*id == 0)
    *id = ks_trace_builder_get_counter (r->b, c->counter, c->counter_unit, (gint32) device, KS_NO_INDEX) + 1;
  return *id - 1;
}

static guint32
process_counter (Reader  *r,
                 guint    col,
                 gint64   device,
                 gint64   pid,
                 guint32  process)
{
  Column *c = g_ptr_array_index (r->columns, col);
  g_autofree char *key = g_strdup_printf ("%" G_GINT64_FORMAT "\x1f%" G_GINT64_FORMAT "\x1f%u", pid, device, col);
  gpointer value = g_hash_table_lookup (r->pmon_counters, key);
  guint32 id;

  if (value != NULL)
    return GPOINTER_TO_UINT (value) - 1;
  id = ks_trace_builder_get_counter (r->b, c->counter, c->counter_unit, (gint32) device, process);
  g_hash_table_insert (r->pmon_counters, g_steal_pointer (&key), GUINT_TO_POINTER (id + 1));
  return id;
}

/* The sample a row without a time belongs to: a new one starts when a
 * key (the device; the device and pid for pmon) comes again, or, for
 * pmon, when the GPU order wraps. */
static gint64
untimed_ts (Reader     *r,
            gint64      device,
            const char *pid)
{
  g_autofree char *key = g_strdup_printf ("%" G_GINT64_FORMAT "\x1f%s", device, pid ? pid : "");

  if (g_hash_table_contains (r->in_sample, key) ||
      (r->kind == KS_NVSMI_PMON && device < r->last_device))
    {
      g_hash_table_remove_all (r->in_sample);
      r->sample++;
    }
  g_hash_table_add (r->in_sample, g_steal_pointer (&key));
  r->last_device = (int) device;
  if (r->sample * r->interval >= KS_NVSMI_MAX_UNIX_SECONDS)
    return -1;
  return (gint64) llround (r->sample * r->interval * 1e9);
}

/* dmon/pmon "-o T" without "-o D": times of day; a day passes when the
 * time goes back by more than an hour. */
static gint64
time_of_day (Reader *r,
             gint64  seconds)
{
  if (r->last_time_of_day >= 0 && seconds + 3600 < r->last_time_of_day)
    r->day_offset += 86400;
  r->last_time_of_day = seconds;
  if (r->day_offset >= KS_NVSMI_MAX_UNIX_SECONDS)
    return -1;
  return (r->day_offset + seconds) * G_GINT64_CONSTANT (1000000000);
}

static gboolean
read_row (Reader   *r,
          char    **fields,
          guint     n,
          GError  **error)
{
  gint64 device = 0, ts = 0, pid = -1;
  gboolean have_ts = FALSE, have_date = FALSE;
  KsNvsmiBasis basis;
  gint64 date_ns = 0, tod_seconds = -1;
  const char *pid_text = NULL;
  const char *command = NULL;
  guint32 process = KS_NO_INDEX;
  KsGpu *gpu;

  if (n != r->columns->len)
    return fail (r, error, _("%u fields where the header line has %u"), n, r->columns->len);

  for (guint i = 0; i < n; i++)
    {
      Column *c = g_ptr_array_index (r->columns, i);
      const char *v = fields[i];

      switch (c->kind)
        {
        case COL_TIMESTAMP:
          /* every GPU of a sample has the same time: parsed once */
          if (r->last_time_text == NULL || strcmp (v, r->last_time_text) != 0)
            {
              if (!ks_nvsmi_parse_timestamp (v, &r->last_time_ns))
                return fail (r, error, _("“%s” is not a timestamp"), v);
              g_free (r->last_time_text);
              r->last_time_text = g_strdup (v);
            }
          ts = r->last_time_ns;
          have_ts = TRUE;
          break;
        case COL_DATE:
          if (!ks_nvsmi_parse_date (v, &date_ns))
            return fail (r, error, _("“%s” is not a date (YYYYMMDD)"), v);
          have_date = TRUE;
          break;
        case COL_TIME:
          if (!ks_nvsmi_parse_time_of_day (v, &tod_seconds))
            return fail (r, error, _("“%s” is not a time (HH:MM:SS)"), v);
          break;
        case COL_DEVICE:
          if ((int) i == r->device_col && (!ks_nvsmi_parse_int (v, &device) || device < 0 || device > MAX_DEVICE))
            return fail (r, error, _("“%s” is not a GPU index"), v);
          break;
        case COL_PID:
          if (strcmp (v, "-") != 0 && (!ks_nvsmi_parse_int (v, &pid) || pid < 0))
            return fail (r, error, _("“%s” is not a process id"), v);
          pid_text = v;
          break;
        case COL_COMMAND:
          command = v;
          break;
        case COL_IGNORED:
        case COL_COUNTER:
        case COL_UNKNOWN:
        case COL_DEVICE_ID:
        case COL_NAME:
        case COL_MEMORY_TOTAL:
        default:
          break;
        }
    }

  if (r->device_col < 0 && r->device_id_col >= 0)
    {
      const char *id = fields[r->device_id_col];
      gpointer known = g_hash_table_lookup (r->device_ids, id);

      if (known == NULL)
        {
          if (g_hash_table_size (r->device_ids) > MAX_DEVICE)
            return fail (r, error, _("more than %d GPUs"), MAX_DEVICE + 1);
          known = GUINT_TO_POINTER (g_hash_table_size (r->device_ids) + 1);
          g_hash_table_insert (r->device_ids, g_strdup (id), known);
        }
      device = GPOINTER_TO_UINT (known) - 1;
    }
  else if (r->device_col < 0 && have_ts)
    {
      /* nvidia-smi prints one row per GPU, in order, with the same time */
      if (r->rows > 0 && ts == r->last_ts)
        device = r->last_device + 1;
      if (device > MAX_DEVICE)
        return fail (r, error, _("more than %d GPUs"), MAX_DEVICE + 1);
    }

  if (have_date && tod_seconds >= 0)
    ts = date_ns + tod_seconds * G_GINT64_CONSTANT (1000000000);
  else if (tod_seconds >= 0)
    ts = time_of_day (r, tod_seconds);
  else if (!have_ts)
    ts = untimed_ts (r, device, pid_text);
  /* times of day that go back again and again, countless samples far
   * apart: past the range of the clock */
  if (ts < 0)
    return fail (r, error, _("the log's times run past the year 2100"));

  /* times that go back, or of another kind than the first rows':
   * left out, counted */
  basis = have_ts || (have_date && tod_seconds >= 0) ? KS_NVSMI_BASIS_WALL :
          tod_seconds >= 0 ? KS_NVSMI_BASIS_DAY : KS_NVSMI_BASIS_SAMPLES;
  if (!ks_nvsmi_checks_time (&r->checks, r->line, basis, r->rows > 0 ? r->last_ts : G_MININT64, ts))
    return TRUE;
  r->last_ts = ts;
  r->last_device = (int) device;
  r->rows++;

  gpu = get_gpu (r, device);
  if (r->kind == KS_NVSMI_PMON)
    {
      if (pid < 0)
        return TRUE;   /* no process on that GPU in that sample */
      process = ks_trace_builder_get_process (r->b, pid);
      if (command != NULL && !ks_nvsmi_is_missing (command))
        ks_trace_builder_set_process_info (r->b, process, command, NULL, NULL, G_MININT32);
    }

  for (guint i = 0; i < n; i++)
    {
      Column *c = g_ptr_array_index (r->columns, i);
      const char *v = fields[i];
      KsNvsmiValue parsed;
      double value;

      if (c->kind == COL_NAME && !ks_nvsmi_is_missing (v))
        gpu->name = ks_trace_builder_intern (r->b, v);
      if (c->kind != COL_COUNTER && c->kind != COL_MEMORY_TOTAL && c->kind != COL_UNKNOWN)
        continue;
      if (ks_nvsmi_is_missing (v))
        {
          r->missing++;
          continue;
        }
      parsed = ks_nvsmi_parse_value (v, c->counter_unit, c->scale, &value);
      /* "0.3 kW" is 300 W, but "5 MiB" is no percentage: read as 5 %
       * it would be a wrong figure no warning could mend */
      if (parsed == KS_NVSMI_VALUE_WRONG_UNIT)
        return fail (r, error, _("“%s” is in a unit that column “%s” cannot take"), v, c->field);
      if (parsed != KS_NVSMI_VALUE_OK)
        {
          if (c->kind == COL_UNKNOWN && r->kind == KS_NVSMI_QUERY_CSV && c->numbers)
            {
              /* a counter that turns to text mid-file: its values that
               * are numbers are kept, the others counted */
              ks_nvsmi_checks_text (&r->checks, r->line, c->field, v);
              continue;
            }
          if (c->kind == COL_UNKNOWN && r->kind == KS_NVSMI_QUERY_CSV)
            {
              /* a text field we do not know ("Enabled", "P0"): no counter */
              c->kind = COL_IGNORED;
              continue;
            }
          return fail (r, error, _("“%s” is not a number (column “%s”)"), v, c->field);
        }
      /* an exabyte, a billion percent: no GPU's; and beyond 2^64 bytes
       * the total memory would not fit the GPU's row */
      if (fabs (value) > MAX_VALUE)
        return fail (r, error, _("“%s” is out of range (column “%s”)"), v, c->field);
      c->numbers = TRUE;
      if (c->kind == COL_MEMORY_TOTAL)
        gpu->total_memory = (guint64) MAX (value, 0);
      if (process != KS_NO_INDEX)
        ks_trace_builder_add_counter_sample (r->b, process_counter (r, i, device, pid, process), ts, value);
      else
        ks_trace_builder_add_counter_sample (r->b, device_counter (r, c, device), ts, value);
    }
  return TRUE;
}

static gboolean
set_columns_csv (Reader  *r,
                 char   **fields,
                 GError **error)
{
  g_ptr_array_set_size (r->columns, 0);
  for (char **f = fields; *f; f++)
    {
      if (r->columns->len >= KS_NVSMI_MAX_COLUMNS)
        return fail (r, error, _("more than %d columns"), KS_NVSMI_MAX_COLUMNS);
      add_column (r, *f, NULL);
    }
  return settle_columns (r, error);
}

/* dmon/pmon: "# gpu pwr …" or "#Date Time gpu …"; the units line
 * "# Idx W …" after it. */
static gboolean
read_comment (Reader     *r,
              const char *line,
              GError    **error)
{
  g_auto(GStrv) tokens = ks_nvsmi_split_ws (line + 1);
  guint n = g_strv_length (tokens);

  if (n == 0)
    return TRUE;
  if (g_strv_contains ((const char * const *) tokens, "gpu"))
    {
      if (r->columns->len == n)
        {
          gboolean same = TRUE;

          for (guint i = 0; i < n && same; i++)
            same = strcmp (((Column *) g_ptr_array_index (r->columns, i))->field, tokens[i]) == 0;
          if (same)
            return TRUE;   /* the header nvidia-smi repeats */
        }
      g_ptr_array_set_size (r->columns, 0);
      for (guint i = 0; i < n; i++)
        {
          if (r->columns->len >= KS_NVSMI_MAX_COLUMNS)
            return fail (r, error, _("more than %d columns"), KS_NVSMI_MAX_COLUMNS);
          add_column (r, tokens[i], "");
        }
      r->has_header = TRUE;
      return settle_columns (r, error);
    }
  if (r->columns->len == n && g_strv_contains ((const char * const *) tokens, "Idx"))
    {
      for (guint i = 0; i < n; i++)
        {
          Column *c = g_ptr_array_index (r->columns, i);

          g_free (c->unit);
          c->unit = g_strdup (tokens[i]);
          if (c->kind == COL_UNKNOWN)
            c->counter_unit = c->unit;
        }
      return TRUE;
    }
  return fail (r, error, _("a comment line that is neither a %s header nor its units"),
               r->kind == KS_NVSMI_DMON ? "dmon" : "pmon");
}

/* pmon's command is the rest of the row: it may hold spaces. */
static char **
split_pmon (Reader     *r,
            const char *line)
{
  g_auto(GStrv) tokens = ks_nvsmi_split_ws (line);
  guint n = g_strv_length (tokens);
  guint want = r->columns->len;
  GPtrArray *out;

  if (want == 0 || n <= want ||
      ((Column *) g_ptr_array_index (r->columns, want - 1))->kind != COL_COMMAND)
    return g_steal_pointer (&tokens);
  out = g_ptr_array_new ();
  for (guint i = 0; i + 1 < want; i++)
    g_ptr_array_add (out, g_strdup (tokens[i]));
  g_ptr_array_add (out, g_strjoinv (" ", tokens + want - 1));
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}

/* A csv log without its header line (noheader) and without --columns:
 * the columns are named after their units, in the order --query-gpu
 * lists are usually written; the load warning says which were taken,
 * since only the command that took the log knows. Without units
 * nothing tells the columns apart. */
static gboolean
infer_columns (Reader  *r,
               char   **fields,
               GError **error)
{
  static const char * const percent[] = { "utilization.gpu", "utilization.memory", "fan.speed" };
  static const char * const clocks[] = { "clocks.sm", "clocks.mem" };
  static const char * const watts[] = { "power.draw", "power.limit" };
  g_autoptr(GString) names = g_string_new (NULL);
  guint n_percent = 0, n_clocks = 0, n_watts = 0, n_mib = 0, n_bare = 0, n = g_strv_length (fields);
  int first_mib = -1, second_mib = -1;
  gint64 t;

  for (guint i = 0; i < n; i++)
    {
      const char *f = fields[i];
      const char *field = NULL;
      char *end;
      double v = g_ascii_strtod (f, &end);

      if (i == 0 && ks_nvsmi_parse_time (f, &t))
        field = "timestamp";
      else if (end == f)
        field = n_bare == 0 && i <= 1 ? "name" : NULL;
      else if (strcmp (end, " %") == 0 && n_percent < G_N_ELEMENTS (percent))
        field = percent[n_percent++];
      else if (strcmp (end, " MHz") == 0 && n_clocks < G_N_ELEMENTS (clocks))
        field = clocks[n_clocks++];
      else if (strcmp (end, " W") == 0 && n_watts < G_N_ELEMENTS (watts))
        field = watts[n_watts++];
      else if (strcmp (end, " MiB") == 0 && n_mib < 2)
        {
          /* of used and total, total is the larger */
          if (n_mib++ == 0)
            {
              for (guint k = i + 1; k < n && second_mib < 0; k++)
                if (g_str_has_suffix (fields[k], " MiB"))
                  second_mib = k;
              field = second_mib >= 0 && v > g_ascii_strtod (fields[second_mib], NULL) ? "memory.total" : "memory.used";
            }
          else
            field = strcmp (((Column *) g_ptr_array_index (r->columns, first_mib))->field, "memory.used") == 0 ?
                    "memory.total" : "memory.used";
          if (first_mib < 0)
            first_mib = i;
        }
      else if (*end == 0 && n_bare++ == 0)
        field = "temperature.gpu";

      if (field == NULL)
        {
          g_ptr_array_set_size (r->columns, 0);
          return fail (r, error, _("an nvidia-smi csv log without its header line whose column %u (“%s”) tells "
                                   "nothing of what it is: give the columns as --query-gpu had them "
                                   "(--columns=timestamp,utilization.gpu,…)"), i + 1, f);
        }
      add_column (r, field, NULL);
    }
  for (guint i = 0; i < r->columns->len; i++)
    g_string_append_printf (names, "%s%s", i ? "," : "", ((Column *) g_ptr_array_index (r->columns, i))->field);
  ks_trace_builder_add_warning (r->b, _("%s: no header line: the columns were taken from their units as %s; "
                                        "give --columns if they were others"), r->name, names->str);
  return settle_columns (r, error);
}

static gboolean
read_lines (Reader        *r,
            const KsNvsmiOptions *options,
            KsProgress    *progress,
            GCancellable  *cancellable,
            GError       **error)
{
  char *raw;
  gboolean complete;

  if (r->kind == KS_NVSMI_QUERY_CSV && options != NULL && options->columns != NULL)
    {
      g_auto(GStrv) fields = ks_nvsmi_split_csv (options->columns);

      if (!set_columns_csv (r, fields, error))
        return FALSE;
    }

  while (next_line (r, &raw, &complete))
    {
      g_autofree char *line = raw;
      const char *text = r->line == 1 ? ks_nvsmi_skip_bom (line) : line;
      g_auto(GStrv) fields = NULL;
      guint n;

      if ((r->line & 0xfff) == 0)
        {
          if (g_cancellable_set_error_if_cancelled (cancellable, error))
            return FALSE;
          if (progress != NULL)
            ks_progress_set_fraction (progress, (double) (r->pos - r->data) / MAX (r->len, 1));
        }
      if (!g_utf8_validate (text, -1, NULL))
        return fail (r, error, _("not UTF-8 text"));
      if (*text == 0 || strspn (text, " \t") == strlen (text))
        continue;

      if (r->kind != KS_NVSMI_QUERY_CSV && text[0] == '#')
        {
          if (!read_comment (r, text, error))
            return FALSE;
          continue;
        }
      if (r->kind == KS_NVSMI_QUERY_CSV && r->columns->len == 0)
        {
          fields = ks_nvsmi_split_csv (text);
          if (is_csv_header (fields))
            {
              if (!set_columns_csv (r, fields, error))
                return FALSE;
              r->has_header = TRUE;
              continue;
            }
          if (!looks_like_row (fields))
            return fail (r, error, _("neither the header line of an nvidia-smi csv log nor one of its rows"));
          if (!infer_columns (r, fields, error))
            return FALSE;
        }
      if (r->kind != KS_NVSMI_QUERY_CSV && r->columns->len == 0)
        return fail (r, error, _("a row before the %s header line"), r->kind == KS_NVSMI_DMON ? "dmon" : "pmon");

      if (r->kind == KS_NVSMI_QUERY_CSV)
        {
          if (fields == NULL)
            fields = ks_nvsmi_split_csv (text);
          /* the header again (logs appended to by several runs); rows
           * start with a digit */
          if (r->has_header && g_ascii_isalpha (text[0]) && is_csv_header (fields))
            continue;
        }
      else
        fields = r->kind == KS_NVSMI_PMON ? split_pmon (r, text) : ks_nvsmi_split_ws (text);
      n = g_strv_length (fields);

      if (!complete && n < r->columns->len)
        {
          r->cut++;
          break;
        }
      if (!read_row (r, fields, n, error))
        return FALSE;
      if (!ks_trace_builder_check (r->b, error))
        return FALSE;
    }
  return TRUE;
}

KsTrace *
ks_nvsmi_reader_load_data (const char            *data,
                           gsize                  len,
                           const char            *name,
                           const KsNvsmiOptions  *options,
                           KsProgress            *progress,
                           GCancellable          *cancellable,
                           GError               **error)
{
  Reader r = { 0 };
  g_autofree char *utf8 = NULL;
  GHashTableIter iter;
  gpointer value;
  gboolean ok;
  KsTrace *trace;

  /* PowerShell's `nvidia-smi … > log.csv` writes UTF-16 */
  if (ks_nvsmi_is_utf16 ((const guint8 *) data, len))
    {
      g_autoptr(GError) local_error = NULL;

      utf8 = ks_nvsmi_utf16_to_utf8 ((const guint8 *) data, len, FALSE, &len, &local_error);
      if (utf8 == NULL)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("%s: a UTF-16 text file that does not "
                                                                     "convert to UTF-8: %s"),
                       name, local_error->message);
          return NULL;
        }
      data = utf8;
    }
  r.name = name;
  r.data = data;
  r.len = len;
  r.pos = data;
  r.kind = ks_nvsmi_sniff ((const guint8 *) data, len, options != NULL && options->columns != NULL);
  r.interval = options != NULL && options->interval > 0 ? options->interval : 1.0;
  r.last_time_of_day = -1;
  r.last_device = -1;

  if (r.kind == KS_NVSMI_NONE)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: not an nvidia-smi log (no --query-gpu csv, dmon or pmon header line)"), name);
      return NULL;
    }
  if (options != NULL && (options->interval < 0 || options->interval > 86400 || isnan (options->interval)))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("%s: the interval must be between 0 and 86400 seconds"), name);
      return NULL;
    }

  if (r.kind == KS_NVSMI_TABLE)
    return ks_nvsmi_table_load (data, len, name, r.interval, cancellable, error);

  r.b = ks_trace_builder_new (KS_FORMAT_NVIDIA_SMI);
  r.columns = g_ptr_array_new_with_free_func (column_free);
  r.device_ids = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  r.gpus = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  r.pmon_counters = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  r.in_sample = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  ks_trace_builder_set_metadata (r.b, "source_name", name);
  ks_trace_builder_set_metadata (r.b, "nvidia_smi_log",
                                 r.kind == KS_NVSMI_DMON ? "dmon" : r.kind == KS_NVSMI_PMON ? "pmon" : "query-gpu");

  ok = read_lines (&r, options, progress, cancellable, error);
  if (ok && r.rows == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: an nvidia-smi log without samples"), name);
      ok = FALSE;
    }

  if (ok)
    {
      g_hash_table_iter_init (&iter, r.gpus);
      while (g_hash_table_iter_next (&iter, NULL, &value))
        ks_trace_builder_add_gpu (r.b, value);
      if (r.have_time)
        {
          /* a log with dates is on the wall clock; -o T alone is not */
          for (guint i = 0; i < r.columns->len; i++)
            if (((Column *) g_ptr_array_index (r.columns, i))->kind == COL_TIMESTAMP ||
                ((Column *) g_ptr_array_index (r.columns, i))->kind == COL_DATE)
              {
                ks_trace_builder_set_start_utc (r.b, 0);
                break;
              }
        }
      else
        ks_nvsmi_warn_untimed (r.b, name, r.interval);
      ks_nvsmi_checks_warn (&r.checks, r.b, name);
      if (r.cut > 0)
        ks_trace_builder_add_warning (r.b, _("%s: line %" PRIu64 " is cut short (the log was still "
                                             "being written): left out"),
                                      name, r.line);
    }

  g_ptr_array_unref (r.columns);
  g_hash_table_unref (r.device_ids);
  g_hash_table_unref (r.gpus);
  g_hash_table_unref (r.pmon_counters);
  g_hash_table_unref (r.in_sample);
  g_free (r.last_time_text);
  ks_nvsmi_checks_clear (&r.checks);

  if (!ok)
    {
      ks_trace_builder_free (r.b);
      return NULL;
    }
  trace = ks_trace_builder_finish (r.b, cancellable, error);
  return trace;
}

KsTrace *
ks_nvsmi_reader_load (GFile                 *file,
                      const KsNvsmiOptions  *options,
                      KsProgress            *progress,
                      GCancellable          *cancellable,
                      GError               **error)
{
  g_autofree char *name = g_file_get_parse_name (file);
  g_autoptr(GFileInfo) info = NULL;
  g_autofree char *data = NULL;
  gsize len = 0;
  GError *local_error = NULL;

  info = g_file_query_info (file, G_FILE_ATTRIBUTE_STANDARD_SIZE, G_FILE_QUERY_INFO_NONE, cancellable, NULL);
  if (info != NULL && g_file_info_get_size (info) > MAX_FILE_SIZE)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: larger than 1 GiB, too large for an nvidia-smi log"), name);
      return NULL;
    }
  if (!g_file_load_contents (file, cancellable, &data, &len, NULL, &local_error))
    {
      g_propagate_prefixed_error (error, local_error, "%s: ", name);
      return NULL;
    }
  return ks_nvsmi_reader_load_data (data, len, name, options, progress, cancellable, error);
}
