/* ks-memsnap-reader.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <inttypes.h>

#include "ks-format.h"
#include "ks-json-writer.h"
#include "ks-memsnap-reader.h"
#include "ks-trace-builder.h"

/* The snapshot names no process: the allocator gets one of its own. */
#define ALLOCATOR_PID 0

static void
add_stack_args (KsJsonWriter *json,
                KsMemsnap    *snap,
                guint32       stack)
{
  const KsMemsnapStack *s = ks_memsnap_get_stack (snap, stack);

  if (s != NULL)
    ks_json_string (json, "stack", s->text);
}

static void
add_instant (KsTraceBuilder *b,
             guint32         track,
             guint32         process,
             gint64          ts,
             const char     *name,
             const char     *category,
             const char     *args)
{
  KsInstant in = { 0 };

  in.ts = ts;
  in.track = track;
  in.process = process;
  in.name = ks_trace_builder_intern (b, name);
  in.category = ks_trace_builder_intern (b, category);
  in.args = ks_trace_builder_add_args (b, args, strlen (args));
  ks_trace_builder_add_instant (b, &in);
}

static void
add_oom (KsTraceBuilder     *b,
         KsMemsnap          *snap,
         guint32             track,
         guint32             process,
         const KsMemsnapOom *oom)
{
  g_autoptr(KsJsonWriter) json = ks_json_writer_new ();
  g_autofree char *request = ks_format_bytes (oom->request_bytes);
  g_autofree char *name = g_strdup_printf (_("Out of memory: %s requested"), request);

  ks_json_begin_object (json, NULL);
  ks_json_int (json, "request_bytes", oom->request_bytes);
  ks_json_int (json, "device_free_bytes", oom->device_free_bytes);
  ks_json_int (json, "reserved_bytes", oom->state.reserved_bytes);
  ks_json_int (json, "allocated_bytes", oom->state.allocated_bytes);
  ks_json_int (json, "free_bytes", oom->state.free_bytes);
  ks_json_int (json, "largest_free_bytes", oom->state.largest_free_bytes);
  ks_json_string (json, "cause", oom->fragmentation ? "fragmentation" : "demand");
  add_stack_args (json, snap, oom->stack);
  ks_json_end_object (json);
  add_instant (b, track, process, oom->time_us * 1000, name, "oom", ks_json_writer_get_text (json));
}

KsTrace *
ks_memsnap_reader_build (KsMemsnap     *snap,
                         const char    *name,
                         GCancellable  *cancellable,
                         GError       **error)
{
  g_autoptr(KsTraceBuilder) b = ks_trace_builder_new (KS_FORMAT_MEMORY_SNAPSHOT);
  guint32 process = ks_trace_builder_get_process (b, ALLOCATOR_PID);
  guint32 thread = ks_trace_builder_get_thread (b, process, ALLOCATOR_PID);
  guint32 track = ks_trace_builder_get_thread_track (b, thread);
  guint64 events = 0, mismatched = 0, ooms = 0, segments = 0;
  g_autofree char *n_entries = NULL;
  g_autofree char *n_segments = NULL;
  g_autofree char *n_ooms = NULL;

  ks_trace_builder_set_process_info (b, process, _("PyTorch caching allocator"), NULL, NULL, 0);
  ks_trace_builder_set_thread_info (b, thread, _("Allocator history"), NULL, 0);
  ks_trace_builder_set_metadata (b, "source_name", name);

  for (guint d = 0; d < ks_memsnap_get_n_devices (snap); d++)
    {
      const KsMemsnapDevice *dev = ks_memsnap_get_device (snap, d);
      g_autoptr(KsMemsnapReplay) replay = NULL;
      const KsMemsnapEntry *entries = (const KsMemsnapEntry *) dev->entries->data;

      segments += dev->segments->len;
      if (dev->entries->len == 0)
        continue;
      if (g_cancellable_set_error_if_cancelled (cancellable, error))
        return NULL;
      replay = ks_memsnap_replay (snap, d);
      mismatched += replay->mismatched;
      for (guint i = 0; i < dev->entries->len; i++)
        {
          const KsMemsnapEntry *e = &entries[i];
          const KsMemsnapPoint *p = &g_array_index (replay->points, KsMemsnapPoint, i);
          KsMemoryEvent ev = { 0 };

          if (e->action == KS_MEMSNAP_SEGMENT_ALLOC || e->action == KS_MEMSNAP_SEGMENT_FREE ||
              e->action == KS_MEMSNAP_SEGMENT_MAP || e->action == KS_MEMSNAP_SEGMENT_UNMAP)
            {
              g_autoptr(KsJsonWriter) json = ks_json_writer_new ();
              g_autofree char *size = ks_format_bytes (e->size);
              g_autofree char *label = g_strdup_printf ("%s %s (GPU %u)", ks_memsnap_action_to_string (e->action),
                                                        size, dev->device);

              ks_json_begin_object (json, NULL);
              ks_json_int (json, "device", dev->device);
              ks_json_int (json, "address", (gint64) e->addr);
              ks_json_int (json, "bytes", e->size);
              ks_json_int (json, "reserved_bytes", p->reserved_bytes);
              add_stack_args (json, snap, e->stack);
              ks_json_end_object (json);
              add_instant (b, track, process, e->time_us * 1000, label, "segment",
                           ks_json_writer_get_text (json));
              continue;
            }
          if (e->action != KS_MEMSNAP_ALLOC && e->action != KS_MEMSNAP_FREE_COMPLETED)
            continue;
          ev.ts = e->time_us * 1000;
          ev.address = e->addr;
          ev.bytes = e->action == KS_MEMSNAP_ALLOC ? e->size : -e->size;
          ev.total_allocated = p->allocated_bytes;
          ev.total_reserved = p->reserved_bytes;
          ev.thread = thread;
          ev.device = (gint16) dev->device;
          ks_trace_builder_add_memory_event (b, &ev);
          events++;
        }
      for (guint i = 0; i < replay->ooms->len; i++)
        add_oom (b, snap, track, process, &g_array_index (replay->ooms, KsMemsnapOom, i));
      ooms += replay->ooms->len;
      if (!ks_trace_builder_check (b, error))
        return NULL;
    }

  if (events == 0 && ooms == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("%s: the snapshot holds no allocator history (record it with "
                     "torch.cuda.memory._record_memory_history() before the dump); "
                     "kinescope-cli stats --report memory-snapshot still reads its %" PRIu64 " segments"),
                   name, segments);
      return NULL;
    }
  if (mismatched > 0)
    ks_trace_builder_add_warning (b, _("%s: %" PRIu64 " allocator events do not fit the segments at the "
                                       "dump (an allocation of a live block or a free of one not live); "
                                       "the curves count them as recorded"),
                                  name, mismatched);
  n_entries = g_strdup_printf ("%" G_GUINT64_FORMAT, ks_memsnap_get_n_entries (snap));
  n_segments = g_strdup_printf ("%" G_GUINT64_FORMAT, segments);
  n_ooms = g_strdup_printf ("%" G_GUINT64_FORMAT, ooms);
  ks_trace_builder_set_metadata (b, "snapshot_trace_entries", n_entries);
  ks_trace_builder_set_metadata (b, "snapshot_segments", n_segments);
  ks_trace_builder_set_metadata (b, "snapshot_out_of_memory", n_ooms);
  ks_trace_builder_set_metadata (b, "allocator_settings", ks_memsnap_get_settings (snap));
  /* time_us is µs since the epoch: clock zero is the epoch. */
  ks_trace_builder_set_start_utc (b, 0);
  return ks_trace_builder_finish (g_steal_pointer (&b), cancellable, error);
}

KsTrace *
ks_memsnap_reader_load (GFile         *file,
                        KsProgress    *progress,
                        GCancellable  *cancellable,
                        GError       **error)
{
  g_autoptr(KsMemsnap) snap = ks_memsnap_load (file, cancellable, error);
  g_autofree char *name = g_file_get_parse_name (file);
  KsTrace *trace;

  if (snap == NULL)
    return NULL;
  if (progress != NULL)
    ks_progress_set_fraction (progress, 0.5);
  trace = ks_memsnap_reader_build (snap, name, cancellable, error);
  if (trace != NULL)
    ks_memsnap_reader_attach (trace, g_steal_pointer (&snap));
  return trace;
}

#define SNAPSHOT_KEY "ks-memsnap"

void
ks_memsnap_reader_attach (KsTrace   *trace,
                          KsMemsnap *snap)
{
  g_return_if_fail (KS_IS_TRACE (trace));

  g_object_set_data_full (G_OBJECT (trace), SNAPSHOT_KEY, snap, (GDestroyNotify) ks_memsnap_free);
}

KsMemsnap *
ks_memsnap_reader_get_snapshot (KsTrace *trace)
{
  g_return_val_if_fail (KS_IS_TRACE (trace), NULL);

  return g_object_get_data (G_OBJECT (trace), SNAPSHOT_KEY);
}
