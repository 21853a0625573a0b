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
#include "ks-cli-info-samples.h"
#include "ks-cli.h"
#include "ks-format.h"
#include "ks-json-writer.h"
#include "ks-kscope-schema.h"
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
  guint64 sample;
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
  s->sample = c->samples;
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

/* The keys of what the source file itself said about the trace (its
 * top-level values: "displayTimeUnit", "metadata.source", ...), sorted;
 * not the load's own notes nor a .kscope file's provenance. */
static GList *
source_metadata_keys (KsTrace *trace)
{
  GList *keys = g_list_sort (g_hash_table_get_keys (trace->metadata), (GCompareFunc) strcmp);
  GList *l = keys;

  while (l != NULL)
    {
      GList *next = l->next;
      const char *key = l->data;
      gboolean internal = strcmp (key, "warnings") == 0 || strcmp (key, "load_time_ms") == 0;

      for (guint i = 0; ks_kscope_file_meta_keys[i] != NULL; i++)
        internal |= strcmp (key, ks_kscope_file_meta_keys[i]) == 0;
      if (internal)
        keys = g_list_delete_link (keys, l);
      l = next;
    }
  return keys;
}

static void
print_json (const char *path,
            KsTrace    *trace,
            double      load_ms)
{
  g_autoptr(KsJsonWriter) json = ks_json_writer_new ();
  const char *warnings = ks_trace_get_metadata (trace, "warnings");
  g_autoptr(GList) keys = source_metadata_keys (trace);
  KsTraceCounts c;
  Summary s;
  const struct { const char *key; const guint64 *value; } counts[] = {
    { "kernel", &s.kernel }, { "memcpy", &s.memcpy }, { "memset", &s.memset }, { "sync", &s.sync },
    { "cuda_api", &s.cuda_api }, { "cpu_slice", &s.cpu_slice }, { "nvtx", &s.nvtx },
    { "gpu_annotation", &s.gpu_annotation }, { "flow", &s.flow }, { "launch_flow", &s.launch_flow },
    { "memory_event", &s.memory_event }, { "counter_sample", &s.counter_sample }, { "instant", &s.instant },
    { "stack_sample", &s.sample },
  };

  summarise (trace, &s, &c);

  ks_json_begin_object (json, NULL);
  ks_json_string (json, "file", path);
  ks_json_string (json, "format", ks_format_to_string (trace->format));
  ks_json_int (json, "duration_ns", trace->duration_ns);
  ks_json_int (json, "start_utc_ns", trace->start_utc_ns);
  ks_json_int (json, "processes", trace->n_processes);
  ks_json_int (json, "threads", trace->n_threads);
  ks_json_int (json, "gpus", trace->n_gpus);
  ks_json_int (json, "streams", count_streams (trace));
  ks_json_int (json, "tracks", trace->n_tracks);
  ks_json_begin_object (json, "counts");
  for (guint i = 0; i < G_N_ELEMENTS (counts); i++)
    ks_json_int (json, counts[i].key, *counts[i].value);
  ks_json_end_object (json);
  ks_json_begin_object (json, "by_kind");
  for (guint k = 0; k < KS_N_SLICE_KINDS; k++)
    ks_json_int (json, ks_slice_kind_to_string (k), c.by_kind[k]);
  ks_json_end_object (json);
  ks_json_begin_array (json, "gpu_names");
  for (guint32 i = 0; i < trace->n_gpus; i++)
    ks_json_string (json, NULL, ks_trace_string (trace, trace->gpus[i].name));
  ks_json_end_array (json);
  /* the ranks of a distributed job, by rank */
  ks_json_begin_array (json, "ranks");
  for (guint32 i = 0; i < trace->n_ranks; i++)
    {
      const KsRank *rank = &trace->ranks[i];

      ks_json_begin_object (json, NULL);
      ks_json_int (json, "rank", rank->rank);
      if (rank->world_size > 0)
        ks_json_int (json, "world_size", rank->world_size);
      else
        ks_json_null (json, "world_size");
      ks_json_string (json, "source", ks_rank_source_to_string (rank->source));
      if (rank->file != 0)
        ks_json_string (json, "file", ks_trace_string (trace, rank->file));
      else
        ks_json_null (json, "file");
      ks_json_end_object (json);
    }
  ks_json_end_array (json);
  ks_cli_info_samples_json (json, trace);
  ks_json_double (json, "load_time_ms", load_ms, 1);
  ks_json_begin_object (json, "metadata");
  for (const GList *l = keys; l != NULL; l = l->next)
    ks_json_string (json, l->data, ks_trace_get_metadata (trace, l->data));
  ks_json_end_object (json);
  ks_json_begin_array (json, "warnings");
  if (warnings != NULL)
    {
      g_auto(GStrv) lines = g_strsplit (warnings, "\n", -1);

      for (guint i = 0; lines[i]; i++)
        ks_json_string (json, NULL, lines[i]);
    }
  ks_json_end_array (json);
  ks_json_end_object (json);
  ks_cli_print ("%s\n", ks_json_writer_get_text (json));
}

static void
print_text (const char *path,
            KsTrace    *trace,
            double      load_ms)
{
  const char *warnings = ks_trace_get_metadata (trace, "warnings");
  g_autofree char *duration = ks_time_format_duration (trace->duration_ns);
  g_autofree char *shown_path = ks_cli_escape (path);
  g_autoptr(GList) keys = source_metadata_keys (trace);
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
  if (trace->n_ranks > 0)
    ks_cli_print (_("%-16s %u (rank %d to %d)\n"), _("Ranks:"), trace->n_ranks,
                  trace->ranks[0].rank, trace->ranks[trace->n_ranks - 1].rank);
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
  ks_cli_print ("  %-22s %" G_GUINT64_FORMAT "\n", _("stack samples"), s.sample);
  ks_cli_info_samples_text (trace);
  ks_cli_print ("%-16s %.1f ms\n", _("Load time:"), load_ms);
  if (keys != NULL)
    ks_cli_print ("%s\n", _("Metadata:"));
  for (const GList *l = keys; l != NULL; l = l->next)
    {
      g_autofree char *key = ks_cli_escape (l->data);
      g_autofree char *value = ks_cli_escape (ks_trace_get_metadata (trace, l->data));

      ks_cli_print ("  %s: %s\n", key, value);
    }
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
  ks_cli_add_load_options (context);
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
