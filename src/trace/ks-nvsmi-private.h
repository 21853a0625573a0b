/* ks-nvsmi-private.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ks-trace-builder.h"

G_BEGIN_DECLS

/* The text-level pieces of the nvidia-smi reader (ks-nvsmi-values.c):
 * times, values with their units, splitting rows. */

#define KS_NVSMI_MAX_COLUMNS 256
#define KS_NVSMI_MIB (1024.0 * 1024.0)
/* Times from 1970 to 2100, in seconds: their nanoseconds are well
 * within what the builder keeps (2^62 ns), and no log has others. */
#define KS_NVSMI_MAX_UNIX_SECONDS G_GINT64_CONSTANT (4102444800)

typedef enum
{
  KS_NVSMI_VALUE_OK,
  KS_NVSMI_VALUE_NOT_NUMBER,  /* text, hex, NaN, infinity, beyond a double */
  KS_NVSMI_VALUE_WRONG_UNIT,  /* a number in a unit its column cannot take */
} KsNvsmiValue;

gboolean      ks_nvsmi_date_time_ns   (GDateTime   *dt,
                                       gint64      *unix_ns);
gboolean      ks_nvsmi_parse_time     (const char  *s,
                                       gint64      *unix_ns);
gboolean      ks_nvsmi_parse_timestamp (const char *s,
                                       gint64      *unix_ns);
gboolean      ks_nvsmi_parse_date     (const char  *s,
                                       gint64      *unix_ns);
gboolean      ks_nvsmi_parse_time_of_day (const char *s,
                                       gint64      *seconds);
gboolean      ks_nvsmi_is_missing     (const char  *s);
KsNvsmiValue  ks_nvsmi_parse_value    (const char  *s,
                                       const char  *unit,
                                       double       scale,
                                       double      *value);
gboolean      ks_nvsmi_parse_int      (const char  *s,
                                       gint64      *value);
char        **ks_nvsmi_split_csv      (const char  *line);
char        **ks_nvsmi_split_ws       (const char  *line);
const char   *ks_nvsmi_skip_bom       (const char  *line);
gboolean      ks_nvsmi_is_utf16       (const guint8 *data,
                                       gsize        len);
char         *ks_nvsmi_utf16_to_utf8  (const guint8 *data,
                                       gsize        len,
                                       gboolean     first_line,
                                       gsize       *out_len,
                                       GError     **error);

/* What the times of a row are counted from. */
typedef enum
{
  KS_NVSMI_BASIS_UNSET,
  KS_NVSMI_BASIS_WALL,     /* timestamp, or dmon/pmon's date and time */
  KS_NVSMI_BASIS_DAY,      /* dmon/pmon's time of day alone */
  KS_NVSMI_BASIS_SAMPLES,  /* no time: samples an interval apart */
} KsNvsmiBasis;

/* Rows and values the reader leaves out (ks-nvsmi-checks.c), counted
 * for the load warnings, each kind with the first line. */
typedef struct
{
  KsNvsmiBasis basis;
  guint64      n_backwards;
  guint64      backwards_line;
  guint64      n_other_basis;
  guint64      other_basis_line;
  guint64      n_text;
  guint64      text_line;
  char        *text_column;
  char        *text_value;
} KsNvsmiChecks;

gboolean      ks_nvsmi_checks_time    (KsNvsmiChecks  *checks,
                                       guint64         line,
                                       KsNvsmiBasis    basis,
                                       gint64          last_ts,
                                       gint64          ts);
void          ks_nvsmi_checks_text    (KsNvsmiChecks  *checks,
                                       guint64         line,
                                       const char     *column,
                                       const char     *value);
void          ks_nvsmi_checks_warn    (KsNvsmiChecks  *checks,
                                       KsTraceBuilder *b,
                                       const char     *name);
void          ks_nvsmi_checks_clear   (KsNvsmiChecks  *checks);
/* A log without times: its samples @interval apart, said in a load
 * warning and kept in the "nvidia_smi_interval" metadata. */
void          ks_nvsmi_warn_untimed   (KsTraceBuilder *b,
                                       const char     *name,
                                       double          interval);

/* The plain `nvidia-smi` table, once or repeated (ks-nvsmi-table.c). */
gboolean      ks_nvsmi_table_sniff    (const char    *data,
                                       gsize          len);
KsTrace      *ks_nvsmi_table_load     (const char    *data,
                                       gsize          len,
                                       const char    *name,
                                       double         interval,
                                       GCancellable  *cancellable,
                                       GError       **error);

/* "NAME: line N: MESSAGE" as @error, for every nvidia-smi reader; FALSE. */
gboolean       ks_nvsmi_line_error   (GError        **error,
                                      const char     *name,
                                      guint64         line,
                                      const char     *format,
                                      va_list         args) G_GNUC_PRINTF (4, 0);

G_END_DECLS
