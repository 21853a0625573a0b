/* fuzz-nvsmi-reader.c: libFuzzer harness for the nvidia-smi log reader
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reads each input with ks_nvsmi_reader_load_data() twice: as the loader
 * would (the log says what it is), and with --columns and --interval
 * given, as for a csv log without its header; then walks the trace.
 * Seeds: fuzz/corpus-nvsmi (--query-gpu csv with and without header,
 * units and times, dmon, pmon). See README.md, "Fuzzing".
 */

#include "config.h"

#include <stdint.h>
#include <string.h>

#include "fuzz-common.h"
#include "ks-nvsmi-reader.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static void
read_once (const uint8_t        *data,
           size_t                size,
           const KsNvsmiOptions *options)
{
  GError *error = NULL;
  KsTrace *trace = ks_nvsmi_reader_load_data ((const char *) data, size, "fuzz.log", options, NULL, NULL, &error);

  if (trace == NULL)
    {
      g_assert (error != NULL);
      g_assert (g_str_has_prefix (error->message, "fuzz.log: "));
      g_error_free (error);
      return;
    }
  g_assert (error == NULL);
  /* only counters, each sorted in time */
  for (guint32 i = 0; i < trace->n_counters; i++)
    for (guint32 k = 1; k < trace->counters[i].n_samples; k++)
      g_assert (trace->counters[i].ts[k - 1] <= trace->counters[i].ts[k]);
  fuzz_walk_trace (trace, TRUE);
  g_object_unref (trace);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const KsNvsmiOptions columns = { 0.25, "timestamp,index,name,utilization.gpu,memory.used,power.draw" };

  fuzz_init ();
  read_once (data, size, NULL);
  read_once (data, size, &columns);
  return 0;
}
