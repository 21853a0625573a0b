/* ks-cli-info.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-cli-info"

#include "config.h"

#include <stdio.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ks-cli-common.h"
#include "ks-cli.h"
#include "ks-format.h"
#include "ks-trace-loader.h"

/* The summary counts of `info`. cpu_slice is every CPU-side slice that
 * is neither a CUDA API call nor an NVTX range: PyTorch operators, Python
 * frames, user annotations (record_function, ProfilerStep#), OS runtime
 * calls, Chrome async ranges and generic trace-event slices. */
typedef struct
{
  guint64 kernel;
  guint64 memcpy;
  guint64 memset;
  guint64 sync;
  guint64 cuda_api;
  guint64 cpu_slice;
  guint64 nvtx;
  guint64 gpu_annotation;
  guint64 flow;
  guint64 launch_flow;
  guint64 memory_event;
  guint64 counter_sample;
  guint64 instant;
} Summary;

static void
summarise (KsTrace *trace,
           Summary *s,
           KsTraceCounts *c)
{
  ks_trace_get_counts (trace, c);
  memset (s, 0, sizeof *s);
  s->kernel = c->by_kind[KS_SLICE_KERNEL];
  s->memcpy = c->by_kind[KS_SLICE_MEMCPY];
  s->memset = c->by_kind[KS_SLICE_MEMSET];
  s->sync = c->by_kind[KS_SLICE_SYNC];
  s->cuda_api = c->by_kind[KS_SLICE_CUDA_RUNTIME] + c->by_kind[KS_SLICE_CUDA_DRIVER];
  s->cpu_slice = c->by_kind[KS_SLICE_GENERIC] + c->by_kind[KS_SLICE_CPU_OP] +
                 c->by_kind[KS_SLICE_PYTHON] + c->by_kind[KS_SLICE_USER_ANNOTATION] +
                 c->by_kind[KS_SLICE_OSRT] + c->by_kind[KS_SLICE_ASYNC];
  s->nvtx = c->by_kind[KS_SLICE_NVTX];
  s->gpu_annotation = c->by_kind[KS_SLICE_GPU_ANNOTATION];
  s->flow = c->flows;
  s->launch_flow = c->launch_flows;
  s->memory_event = c->memory_events;
  s->counter_sample = c->counter_samples;
  s->instant = c->instants;
}

static guint
count_streams (KsTrace *trace)
{
  guint n = 0;

  for (guint32 t = 0; t < trace->n_tracks; t++)
    if (trace->tracks[t].kind == KS_TRACK_STREAM)
      n++;
  return n;
}

static void
print_json (const char *path,
            KsTrace    *trace,
            double      load_ms)
{
  g_autoptr(GString) out = g_string_new ("{");
  const char *warnings = ks_trace_get_metadata (trace, "warnings");
  KsTraceCounts c;
  Summary s;

  summarise (trace, &s, &c);

  g_string_append (out, "\"file\":");
  ks_cli_json_string (out, path);
  g_string_append (out, ",\"format\":");
  ks_cli_json_string (out, ks_format_to_string (trace->format));
  g_string_append_printf (out, ",\"duration_ns\":%" G_GINT64_FORMAT, trace->duration_ns);
  g_string_append_printf (out, ",\"start_utc_ns\":%" G_GINT64_FORMAT, trace->start_utc_ns);
  g_string_append_printf (out, ",\"processes\":%u,\"threads\":%u,\"gpus\":%u,\"streams\":%u,\"tracks\":%u",
                          trace->n_processes, trace->n_threads, trace->n_gpus,
                          count_streams (trace), trace->n_tracks);
  g_string_append_printf (out,
                          ",\"counts\":{\"kernel\":%" G_GUINT64_FORMAT ",\"memcpy\":%" G_GUINT64_FORMAT
                          ",\"memset\":%" G_GUINT64_FORMAT ",\"sync\":%" G_GUINT64_FORMAT
                          ",\"cuda_api\":%" G_GUINT64_FORMAT ",\"cpu_slice\":%" G_GUINT64_FORMAT
                          ",\"nvtx\":%" G_GUINT64_FORMAT ",\"gpu_annotation\":%" G_GUINT64_FORMAT
                          ",\"flow\":%" G_GUINT64_FORMAT ",\"launch_flow\":%" G_GUINT64_FORMAT
                          ",\"memory_event\":%" G_GUINT64_FORMAT ",\"counter_sample\":%" G_GUINT64_FORMAT
                          ",\"instant\":%" G_GUINT64_FORMAT "}",
                          s.kernel, s.memcpy, s.memset, s.sync, s.cuda_api, s.cpu_slice, s.nvtx,
                          s.gpu_annotation, s.flow, s.launch_flow, s.memory_event, s.counter_sample,
                          s.instant);
  g_string_append (out, ",\"by_kind\":{");
  for (guint k = 0; k < KS_N_SLICE_KINDS; k++)
    g_string_append_printf (out, "%s\"%s\":%" G_GUINT64_FORMAT, k ? "," : "",
                            ks_slice_kind_to_string (k), c.by_kind[k]);
  g_string_append (out, "},\"gpu_names\":[");
  for (guint32 i = 0; i < trace->n_gpus; i++)
    {
      if (i)
        g_string_append_c (out, ',');
      ks_cli_json_string (out, ks_trace_string (trace, trace->gpus[i].name));
    }
  g_string_append_printf (out, "],\"load_time_ms\":%.1f", load_ms);
  g_string_append (out, ",\"warnings\":[");
  if (warnings != NULL)
    {
      g_auto(GStrv) lines = g_strsplit (warnings, "\n", -1);

      for (guint i = 0; lines[i]; i++)
        {
          if (i)
            g_string_append_c (out, ',');
          ks_cli_json_string (out, lines[i]);
        }
    }
  g_string_append (out, "]}\n");
  ks_cli_write (stdout, out->str);
}

static void
print_text (const char *path,
            KsTrace    *trace,
            double      load_ms)
{
  const char *warnings = ks_trace_get_metadata (trace, "warnings");
  g_autofree char *duration = ks_time_format_duration (trace->duration_ns);
  g_autofree char *shown_path = ks_cli_escape (path);
  KsTraceCounts c;
  Summary s;

  summarise (trace, &s, &c);

  ks_cli_print ("%-16s %s\n", _("File:"), shown_path);
  ks_cli_print ("%-16s %s\n", _("Format:"), ks_format_to_string (trace->format));
  ks_cli_print ("%-16s %s (%" G_GINT64_FORMAT " ns)\n", _("Duration:"), duration, trace->duration_ns);
  if (trace->start_utc_ns != 0)
    {
      g_autoptr(GDateTime) dt = g_date_time_new_from_unix_utc (trace->start_utc_ns / 1000000000);

      if (dt != NULL)
        {
          g_autofree char *text = g_date_time_format_iso8601 (dt);

          ks_cli_print ("%-16s %s\n", _("Start:"), text);
        }
    }
  ks_cli_print ("%-16s %u\n", _("Processes:"), trace->n_processes);
  ks_cli_print ("%-16s %u\n", _("Threads:"), trace->n_threads);
  ks_cli_print ("%-16s %u\n", _("GPUs:"), trace->n_gpus);
  for (guint32 i = 0; i < trace->n_gpus; i++)
    {
      g_autofree char *name = ks_cli_escape (ks_trace_string (trace, trace->gpus[i].name));

      ks_cli_print ("  %d: %s\n", trace->gpus[i].device, name);
    }
  ks_cli_print ("%-16s %u\n", _("Streams:"), count_streams (trace));
  ks_cli_print ("%s\n", _("Events:"));
  ks_cli_print ("  %-22s %" G_GUINT64_FORMAT "\n", _("kernels"), s.kernel);
  ks_cli_print ("  %-22s %" G_GUINT64_FORMAT "\n", _("memcpy"), s.memcpy);
  ks_cli_print ("  %-22s %" G_GUINT64_FORMAT "\n", _("memset"), s.memset);
  ks_cli_print ("  %-22s %" G_GUINT64_FORMAT "\n", _("GPU synchronization"), s.sync);
  ks_cli_print ("  %-22s %" G_GUINT64_FORMAT "\n", _("CUDA API calls"), s.cuda_api);
  ks_cli_print ("  %-22s %" G_GUINT64_FORMAT "\n", _("CPU slices"), s.cpu_slice);
  ks_cli_print ("  %-22s %" G_GUINT64_FORMAT "\n", _("NVTX ranges"), s.nvtx);
  ks_cli_print ("  %-22s %" G_GUINT64_FORMAT "\n", _("GPU annotations"), s.gpu_annotation);
  ks_cli_print ("  %-22s %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT " %s)\n", _("flows"), s.flow,
                s.launch_flow, _("launch"));
  ks_cli_print ("  %-22s %" G_GUINT64_FORMAT "\n", _("memory events"), s.memory_event);
  ks_cli_print ("  %-22s %" G_GUINT64_FORMAT "\n", _("counter samples"), s.counter_sample);
  ks_cli_print ("  %-22s %" G_GUINT64_FORMAT "\n", _("instants"), s.instant);
  ks_cli_print ("%-16s %.1f ms\n", _("Load time:"), load_ms);
  if (warnings != NULL)
    ks_cli_print ("%s\n%s\n", _("Warnings:"), warnings);
}

int
ks_cli_info (int    argc,
             char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autofree char *format = NULL;
  g_auto(GStrv) files = NULL;
  gint64 t0;
  double load_ms;
  const GOptionEntry entries[] = {
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, N_("Output format: text (default) or json"), "text|json" },
    { G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &files, NULL, N_("FILE") },
    { NULL }
  };

  context = g_option_context_new (_("— describe a trace"));
  g_option_context_set_summary (context,
                                _("Prints the format, duration, processes, threads, GPUs, streams and\n"
                                  "event counts by kind of a trace (PyTorch/Chrome JSON, .kscope or an\n"
                                  "Nsight Systems SQLite export), and how long it took to load."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      ks_cli_printerr ("%s: %s\n", g_get_prgname (), error->message);
      return KS_CLI_USAGE;
    }
  if (files == NULL || files[0] == NULL || files[1] != NULL)
    {
      ks_cli_printerr (_("%s: expected exactly one FILE (see --help)\n"), g_get_prgname ());
      return KS_CLI_USAGE;
    }
  if (format != NULL && strcmp (format, "text") != 0 && strcmp (format, "json") != 0)
    {
      ks_cli_printerr (_("%s: unknown output format “%s” (text or json)\n"), g_get_prgname (), format);
      return KS_CLI_USAGE;
    }

  t0 = g_get_monotonic_time ();
  trace = ks_cli_load_trace ("info", files[0]);
  load_ms = (g_get_monotonic_time () - t0) / 1000.0;
  if (trace == NULL)
    return KS_CLI_FAILED;

  if (format != NULL && strcmp (format, "json") == 0)
    print_json (files[0], trace, load_ms);
  else
    print_text (files[0], trace, load_ms);
  return KS_CLI_OK;
}
