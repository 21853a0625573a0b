/* ks-nvsmi-reader.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-progress.h"
#include "ks-trace.h"

G_BEGIN_DECLS

/* The text nvidia-smi writes, read as GPU counter rows per device with
 * the names and units of the recorder's NVML rows ("GPU utilization" %,
 * "GPU memory used" bytes, "GPU temperature" °C, "GPU power" W,
 * "SM clock" MHz):
 *  - `--query-gpu=… --format=csv[,noheader][,nounits]`, any columns,
 *    with or without the timestamp column, one row per GPU a sample;
 *  - `nvidia-smi dmon` (one row per GPU a sample);
 *  - `nvidia-smi pmon` (one row per process a sample: per-process
 *    counters of that process on that GPU);
 *  - the plain `nvidia-smi` table, once or repeated with -l (a sample a
 *    table; the processes table's memory per process).
 * A log is recognised by its header line (or, without one, by the
 * nvidia-smi timestamp or units of its first row). */

typedef enum
{
  KS_NVSMI_NONE = 0,
  KS_NVSMI_QUERY_CSV,
  KS_NVSMI_DMON,
  KS_NVSMI_PMON,
  KS_NVSMI_TABLE,       /* the plain `nvidia-smi` table (ks-nvsmi-table.c) */
} KsNvsmiKind;

typedef struct
{
  /* Seconds between the samples of a log without times: what -l (or
   * dmon/pmon -d) was; 0 means 1 s, nvidia-smi's usual. */
  double      interval;
  /* The --query-gpu list of a csv log without its header line
   * ("timestamp,index,utilization.gpu,…"), or NULL. */
  const char *columns;
} KsNvsmiOptions;

/* The kind of log the first bytes of a file start, or KS_NVSMI_NONE.
 * With @have_columns any comma-separated first line is taken as a csv
 * log without its header. */
KsNvsmiKind ks_nvsmi_sniff              (const guint8          *data,
                                         gsize                  len,
                                         gboolean               have_columns);

/* Reads @file (@options may be NULL). Errors name the file and line. */
KsTrace    *ks_nvsmi_reader_load        (GFile                 *file,
                                         const KsNvsmiOptions  *options,
                                         KsProgress            *progress,
                                         GCancellable          *cancellable,
                                         GError               **error);
/* The same from memory; @name is used in messages. */
KsTrace    *ks_nvsmi_reader_load_data   (const char            *data,
                                         gsize                  len,
                                         const char            *name,
                                         const KsNvsmiOptions  *options,
                                         KsProgress            *progress,
                                         GCancellable          *cancellable,
                                         GError               **error);

/* The counter name and unit a column @field of a log of @kind (a
 * --query-gpu field without its " [unit]", a dmon or pmon column) is
 * read into, or FALSE for a field that is not a counter (index, name,
 * uuid, timestamp…) or not known. @scale turns its value, in the unit
 * nvidia-smi prints, into @unit. Shared with the live monitor, whose
 * counter rows use the same names. */
gboolean    ks_nvsmi_field_counter      (KsNvsmiKind            kind,
                                         const char            *field,
                                         const char           **name,
                                         const char           **unit,
                                         double                *scale);

G_END_DECLS
