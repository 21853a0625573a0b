/* ks-nvsmi-values.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-nvsmi-reader"

/* The text of nvidia-smi logs: times, values and their units, rows. */

#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <gio/gio.h>
#include <glib/gi18n.h>

#include "ks-nvsmi-private.h"

/* @dt in nanoseconds since 1970, or FALSE when it is out of that range. */
gboolean
ks_nvsmi_date_time_ns (GDateTime *dt,
                       gint64    *unix_ns)
{
  gint64 seconds = g_date_time_to_unix (dt);

  if (seconds < 0 || seconds >= KS_NVSMI_MAX_UNIX_SECONDS)
    return FALSE;
  *unix_ns = seconds * 1000000000 + (gint64) g_date_time_get_microsecond (dt) * 1000;
  return TRUE;
}

/* nvidia-smi's timestamp: "2025/06/13 00:27:52.195", local time. */
gboolean
ks_nvsmi_parse_time (const char *s,
                     gint64     *unix_ns)
{
  int y, mo, d, h, mi;
  double sec;
  char extra;
  g_autoptr(GTimeZone) tz = NULL;
  g_autoptr(GDateTime) dt = NULL;

  if (sscanf (s, "%4d/%2d/%2d %2d:%2d:%lf%c", &y, &mo, &d, &h, &mi, &sec, &extra) != 6)
    return FALSE;
  if (sec < 0 || sec >= 60)
    return FALSE;
  tz = g_time_zone_new_local ();
  dt = g_date_time_new (tz, y, mo, d, h, mi, sec);
  return dt != NULL && ks_nvsmi_date_time_ns (dt, unix_ns);
}

/* Any timestamp a log of nvidia-smi's columns carries: its own format,
 * ISO 8601 (scripts that rewrite it) or seconds since the epoch. */
gboolean
ks_nvsmi_parse_timestamp (const char *s,
                          gint64     *unix_ns)
{
  char *end;
  double v;

  if (ks_nvsmi_parse_time (s, unix_ns))
    return TRUE;
  if (strchr (s, 'T') != NULL && strchr (s, '-') != NULL)
    {
      g_autoptr(GTimeZone) tz = g_time_zone_new_local ();
      g_autoptr(GDateTime) dt = g_date_time_new_from_iso8601 (s, tz);

      return dt != NULL && ks_nvsmi_date_time_ns (dt, unix_ns);
    }
  errno = 0;
  v = g_ascii_strtod (s, &end);
  /* after 2001 and before 2100: a count of seconds, not some number */
  if (errno != 0 || end == s || *end != 0 || !(v >= 1e9 && v < KS_NVSMI_MAX_UNIX_SECONDS))
    return FALSE;
  *unix_ns = (gint64) llround (v * 1e9);
  return TRUE;
}

/* dmon/pmon -o D: "20250613", local midnight. */
gboolean
ks_nvsmi_parse_date (const char *s,
                     gint64     *unix_ns)
{
  int y, m, d;
  char extra;
  g_autoptr(GTimeZone) tz = NULL;
  g_autoptr(GDateTime) dt = NULL;

  if (sscanf (s, "%4d%2d%2d%c", &y, &m, &d, &extra) != 3)
    return FALSE;
  tz = g_time_zone_new_local ();
  dt = g_date_time_new (tz, y, m, d, 0, 0, 0);
  return dt != NULL && ks_nvsmi_date_time_ns (dt, unix_ns);
}

/* dmon/pmon -o T: "00:27:52", in seconds since midnight. */
gboolean
ks_nvsmi_parse_time_of_day (const char *s,
                            gint64     *seconds)
{
  int h, mi, sec;
  char extra;

  if (sscanf (s, "%2d:%2d:%2d%c", &h, &mi, &sec, &extra) != 3 || h > 23 || mi > 59 || sec > 60 ||
      h < 0 || mi < 0 || sec < 0)
    return FALSE;
  *seconds = h * 3600 + mi * 60 + sec;
  return TRUE;
}

gboolean
ks_nvsmi_is_missing (const char *s)
{
  return *s == 0 || strcmp (s, "-") == 0 || strcmp (s, "N/A") == 0 || (*s == '[' && g_str_has_suffix (s, "]"));
}

/* The units a value may carry in a column of each counter unit, and
 * what they are in that unit: nvidia-smi prints the column's own, other
 * tools and hand edits the rest. Memory columns are in MiB (their scale). */
static const struct
{
  const char *column;
  const char *unit;
  double      factor;
} units[] = {
  { "%",   "%",   1 },
  { "W",   "W",   1 },
  { "W",   "kW",  1e3 },
  { "W",   "mW",  1e-3 },
  { "MHz", "MHz", 1 },
  { "MHz", "GHz", 1e3 },
  { "MHz", "kHz", 1e-3 },
  { "°C",  "C",   1 },
  { "°C",  "°C",  1 },
  /* GPM traffic, whose columns are scaled to MB/s */
  { "bytes/s", "MB/s", 1 },
  { "bytes/s", "GB/s", 1e3 },
  { "bytes/s", "KB/s", 1e-3 },
};

static const struct
{
  const char *unit;
  double      bytes;
} memory_units[] = {
  { "B", 1 }, { "KiB", 1024.0 }, { "MiB", KS_NVSMI_MIB }, { "GiB", KS_NVSMI_MIB * 1024.0 },
  { "MB", KS_NVSMI_MIB },
};

/* The factor @suffix, printed after a value of a column of counter
 * unit @unit and @scale, stands for; FALSE for a unit the column cannot
 * take ("5 MiB" in a % column). A column whose unit is not in the table
 * (a field we do not know) takes its header's unit, or any without one. */
static gboolean
unit_factor (const char *suffix,
             const char *unit,
             double      scale,
             double     *factor)
{
  gboolean known = FALSE;

  if (scale == KS_NVSMI_MIB)
    {
      for (guint i = 0; i < G_N_ELEMENTS (memory_units); i++)
        if (strcmp (suffix, memory_units[i].unit) == 0)
          {
            *factor = memory_units[i].bytes;
            return TRUE;
          }
      return FALSE;
    }
  for (guint i = 0; unit != NULL && i < G_N_ELEMENTS (units); i++)
    if (strcmp (unit, units[i].column) == 0)
      {
        known = TRUE;
        if (strcmp (suffix, units[i].unit) == 0)
          {
            *factor = units[i].factor * scale;
            return TRUE;
          }
      }
  if (known || (unit != NULL && *unit != 0 && strcmp (suffix, unit) != 0))
    return FALSE;
  *factor = scale;
  return TRUE;
}

/* "37 %", "1 MiB", "75.20 W", "1410 MHz" or a bare number, in decimal:
 * strtod would also take "0x10", "nan" and "inf". */
KsNvsmiValue
ks_nvsmi_parse_value (const char *s,
                      const char *unit,
                      double      scale,
                      double     *value)
{
  char *end;
  double factor = scale;

  errno = 0;
  *value = g_ascii_strtod (s, &end);
  if (end == s || errno != 0 || !isfinite (*value))
    return KS_NVSMI_VALUE_NOT_NUMBER;
  for (const char *p = s; p < end; p++)
    if (!g_ascii_isdigit (*p) && strchr ("+-.eE", *p) == NULL)
      return KS_NVSMI_VALUE_NOT_NUMBER;
  while (*end == ' ')
    end++;
  if (*end != 0 && !unit_factor (end, unit, scale, &factor))
    return KS_NVSMI_VALUE_WRONG_UNIT;
  *value *= factor;
  return KS_NVSMI_VALUE_OK;
}

gboolean
ks_nvsmi_parse_int (const char *s,
                    gint64     *value)
{
  char *end;

  errno = 0;
  *value = g_ascii_strtoll (s, &end, 10);
  return end != s && *end == 0 && errno == 0;
}

char **
ks_nvsmi_split_csv (const char *line)
{
  char **fields = g_strsplit (line, ",", KS_NVSMI_MAX_COLUMNS + 1);

  for (char **f = fields; *f; f++)
    g_strstrip (*f);
  return fields;
}

char **
ks_nvsmi_split_ws (const char *line)
{
  g_autoptr(GPtrArray) out = g_ptr_array_new ();
  const char *p = line;

  while (*p && out->len <= KS_NVSMI_MAX_COLUMNS)
    {
      const char *start;

      while (*p == ' ' || *p == '\t')
        p++;
      if (*p == 0)
        break;
      start = p;
      while (*p && *p != ' ' && *p != '\t')
        p++;
      g_ptr_array_add (out, g_strndup (start, p - start));
    }
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (g_steal_pointer (&out), FALSE);
}

const char *
ks_nvsmi_skip_bom (const char *line)
{
  return g_str_has_prefix (line, "\xef\xbb\xbf") ? line + 3 : line;
}

/* PowerShell's `>` and Out-File write UTF-16 with a byte order mark. */
gboolean
ks_nvsmi_is_utf16 (const guint8 *data,
                   gsize         len)
{
  return len >= 2 && ((data[0] == 0xff && data[1] == 0xfe) || (data[0] == 0xfe && data[1] == 0xff));
}

/* @data, UTF-16 text with its byte order mark, as UTF-8; with
 * @first_line only up to the first line's end (for sniffing). */
char *
ks_nvsmi_utf16_to_utf8 (const guint8  *data,
                        gsize          len,
                        gboolean       first_line,
                        gsize         *out_len,
                        GError       **error)
{
  gboolean little = data[0] == 0xff;
  gsize n = (len - 2) / 2;
  g_autofree gunichar2 *text = NULL;
  glong written = 0;
  char *out;

  if (!first_line && len % 2 != 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("UTF-16 text of an odd number of bytes"));
      return NULL;
    }
  text = g_new (gunichar2, MAX (n, 1));
  for (gsize i = 0; i < n; i++)
    {
      const guint8 *p = data + 2 + 2 * i;

      text[i] = little ? (p[0] | (p[1] << 8)) : ((p[0] << 8) | p[1]);
      if (text[i] == 0)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                       _("UTF-16 text with a NUL character"));
          return NULL;
        }
      if (first_line && text[i] == '\n')
        {
          n = i;
          break;
        }
    }
  out = g_utf16_to_utf8 (text, n, NULL, &written, error);
  if (out == NULL)
    return NULL;
  if (out_len != NULL)
    *out_len = written;
  return out;
}

gboolean
ks_nvsmi_line_error (GError     **error,
                     const char  *name,
                     guint64      line,
                     const char  *format,
                     va_list      args)
{
  g_autofree char *message = g_strdup_vprintf (format, args);

  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("%s: line %" PRIu64 ": %s"), name, line, message);
  return FALSE;
}
