/* test-sqlite-compare.h: model equality for the SQLite round-trip tests
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <string.h>

#include "ks-trace.h"

/* Keys a .kscope reader adds: where the file came from. */
static const char * const provenance_keys[] = {
  "producer", "source_format", "source_name", "complete", "dropped_records", "clock",
};

static gboolean
is_provenance_key (const char *key)
{
  for (guint i = 0; i < G_N_ELEMENTS (provenance_keys); i++)
    if (strcmp (key, provenance_keys[i]) == 0)
      return TRUE;
  return FALSE;
}

#define assert_same_string(a, ida, b, idb) \
  g_assert_cmpstr (ks_trace_string ((a), (ida)), ==, ks_trace_string ((b), (idb)))

static void
assert_same_args (KsTrace *a,
                  guint32  args_a,
                  KsTrace *b,
                  guint32  args_b)
{
  g_autoptr(GString) buf_a = g_string_new (NULL);
  g_autoptr(GString) buf_b = g_string_new (NULL);

  g_assert_cmpstr (ks_trace_args (a, args_a, buf_a), ==, ks_trace_args (b, args_b, buf_b));
}

static void
assert_same_gpu_info (KsSliceKind      kind,
                      const KsGpuInfo *a,
                      const KsGpuInfo *b)
{
  if (kind == KS_SLICE_KERNEL)
    {
      for (guint k = 0; k < 3; k++)
        {
          g_assert_cmpuint (a->kernel.grid[k], ==, b->kernel.grid[k]);
          g_assert_cmpuint (a->kernel.block[k], ==, b->kernel.block[k]);
        }
      g_assert_cmpuint (a->kernel.registers, ==, b->kernel.registers);
      g_assert_cmpuint (a->kernel.shared_memory, ==, b->kernel.shared_memory);
    }
  else
    {
      g_assert_cmpuint (a->copy.bytes, ==, b->copy.bytes);
      g_assert_cmpuint (a->copy.copy_kind, ==, b->copy.copy_kind);
      g_assert_cmpuint (a->copy.src_kind, ==, b->copy.src_kind);
      g_assert_cmpuint (a->copy.dst_kind, ==, b->copy.dst_kind);
      g_assert_cmpuint (a->copy.value, ==, b->copy.value);
    }
}

/* Everything the model holds, compared by value (string ids differ
 * between the two traces, their texts must not). With @exact_metadata
 * FALSE, @b may hold provenance keys that @a lacks. */
static void
assert_traces_equal (KsTrace  *a,
                     KsTrace  *b,
                     gboolean  exact_metadata)
{
  GHashTableIter iter;
  gpointer key, value;

  g_assert_cmpint (a->duration_ns, ==, b->duration_ns);
  g_assert_cmpint (a->start_utc_ns, ==, b->start_utc_ns);
  g_assert_cmpint (a->origin_ns, ==, b->origin_ns);

  g_assert_cmpuint (a->n_processes, ==, b->n_processes);
  for (guint32 p = 0; p < a->n_processes; p++)
    {
      const KsProcess *pa = &a->processes[p];
      const KsProcess *pb = &b->processes[p];

      g_assert_cmpint (pa->pid, ==, pb->pid);
      assert_same_string (a, pa->name, b, pb->name);
      assert_same_string (a, pa->label, b, pb->label);
      assert_same_string (a, pa->original, b, pb->original);
      g_assert_cmpint (pa->sort_index, ==, pb->sort_index);
      g_assert_cmpuint (pa->group, ==, pb->group);
    }

  g_assert_cmpuint (a->n_threads, ==, b->n_threads);
  for (guint32 t = 0; t < a->n_threads; t++)
    {
      const KsThread *ta = &a->threads[t];
      const KsThread *tb = &b->threads[t];

      g_assert_cmpuint (ta->process, ==, tb->process);
      g_assert_cmpint (ta->tid, ==, tb->tid);
      assert_same_string (a, ta->name, b, tb->name);
      assert_same_string (a, ta->original, b, tb->original);
      g_assert_cmpint (ta->sort_index, ==, tb->sort_index);
      g_assert_cmpuint (ta->track, ==, tb->track);
    }

  g_assert_cmpuint (a->n_tracks, ==, b->n_tracks);
  for (guint32 t = 0; t < a->n_tracks; t++)
    {
      const KsTrack *ta = &a->tracks[t];
      const KsTrack *tb = &b->tracks[t];

      g_assert_cmpint (ta->kind, ==, tb->kind);
      g_assert_cmpuint (ta->id, ==, tb->id);
      assert_same_string (a, ta->name, b, tb->name);
      g_assert_cmpuint (ta->process, ==, tb->process);
      g_assert_cmpuint (ta->thread, ==, tb->thread);
      g_assert_cmpuint (ta->parent, ==, tb->parent);
      g_assert_cmpint (ta->device, ==, tb->device);
      g_assert_cmpint (ta->stream, ==, tb->stream);
      g_assert_cmpint (ta->sort_index, ==, tb->sort_index);
      g_assert_cmpuint (ta->group, ==, tb->group);
      g_assert_cmpuint (ta->n_slices, ==, tb->n_slices);
      g_assert_cmpuint (ta->max_depth, ==, tb->max_depth);
      g_assert_true ((ta->gpu == NULL) == (tb->gpu == NULL));

      for (guint32 d = 0; d < ta->max_depth; d++)
        g_assert_cmpuint (ta->n_by_depth[d], ==, tb->n_by_depth[d]);

      for (guint32 i = 0; i < ta->n_slices; i++)
        {
          g_assert_cmpint (ta->start[i], ==, tb->start[i]);
          g_assert_cmpint (ta->end[i], ==, tb->end[i]);
          assert_same_string (a, ta->name_id[i], b, tb->name_id[i]);
          assert_same_string (a, ta->category[i], b, tb->category[i]);
          g_assert_cmpuint (ta->correlation[i], ==, tb->correlation[i]);
          g_assert_cmpuint (ta->external_id[i], ==, tb->external_id[i]);
          assert_same_args (a, ta->args[i], b, tb->args[i]);
          g_assert_cmpuint (ta->slice_kind[i], ==, tb->slice_kind[i]);
          g_assert_cmpuint (ta->depth[i], ==, tb->depth[i]);
          if (ta->gpu != NULL)
            assert_same_gpu_info (ta->slice_kind[i], &ta->gpu[i], &tb->gpu[i]);
        }
    }

  g_assert_cmpuint (a->n_gpus, ==, b->n_gpus);
  for (guint32 g = 0; g < a->n_gpus; g++)
    {
      const KsGpu *ga = &a->gpus[g];
      const KsGpu *gb = &b->gpus[g];

      g_assert_cmpint (ga->device, ==, gb->device);
      assert_same_string (a, ga->name, b, gb->name);
      g_assert_cmpuint (ga->total_memory, ==, gb->total_memory);
      g_assert_cmpuint (ga->sm_count, ==, gb->sm_count);
      g_assert_cmpuint (ga->compute_major, ==, gb->compute_major);
      g_assert_cmpuint (ga->compute_minor, ==, gb->compute_minor);
      g_assert_cmpuint (ga->max_threads_per_block, ==, gb->max_threads_per_block);
      g_assert_cmpuint (ga->max_threads_per_sm, ==, gb->max_threads_per_sm);
      g_assert_cmpuint (ga->registers_per_block, ==, gb->registers_per_block);
      g_assert_cmpuint (ga->registers_per_sm, ==, gb->registers_per_sm);
      g_assert_cmpuint (ga->shared_memory_per_block, ==, gb->shared_memory_per_block);
      g_assert_cmpuint (ga->shared_memory_per_sm, ==, gb->shared_memory_per_sm);
      g_assert_cmpuint (ga->warp_size, ==, gb->warp_size);
    }

  g_assert_cmpuint (a->n_flows, ==, b->n_flows);
  for (guint32 f = 0; f < a->n_flows; f++)
    {
      const KsFlow *fa = &a->flows[f];
      const KsFlow *fb = &b->flows[f];

      g_assert_cmpuint (fa->from_track, ==, fb->from_track);
      g_assert_cmpuint (fa->from_slice, ==, fb->from_slice);
      g_assert_cmpuint (fa->to_track, ==, fb->to_track);
      g_assert_cmpuint (fa->to_slice, ==, fb->to_slice);
      assert_same_string (a, fa->category, b, fb->category);
      g_assert_cmpuint (fa->kind, ==, fb->kind);
    }

  g_assert_cmpuint (a->n_counters, ==, b->n_counters);
  for (guint32 c = 0; c < a->n_counters; c++)
    {
      const KsCounter *ca = &a->counters[c];
      const KsCounter *cb = &b->counters[c];

      assert_same_string (a, ca->name, b, cb->name);
      assert_same_string (a, ca->unit, b, cb->unit);
      g_assert_cmpint (ca->device, ==, cb->device);
      g_assert_cmpuint (ca->process, ==, cb->process);
      g_assert_cmpuint (ca->n_samples, ==, cb->n_samples);
      for (guint32 i = 0; i < ca->n_samples; i++)
        {
          g_assert_cmpint (ca->ts[i], ==, cb->ts[i]);
          g_assert_cmpfloat (ca->value[i], ==, cb->value[i]);
        }
    }

  /* samples: times, threads and whole stacks */
  g_assert_cmpuint (a->n_samples, ==, b->n_samples);
  g_assert_cmpuint (a->n_stack_nodes, ==, b->n_stack_nodes);
  for (guint32 i = 0; i < a->n_samples; i++)
    {
      guint32 na = a->samples[i].node, nb = b->samples[i].node;

      g_assert_cmpint (a->samples[i].ts, ==, b->samples[i].ts);
      g_assert_cmpuint (a->samples[i].thread, ==, b->samples[i].thread);
      for (; na != KS_NO_INDEX && nb != KS_NO_INDEX; na = a->stack_nodes[na].parent, nb = b->stack_nodes[nb].parent)
        {
          assert_same_string (a, a->stack_nodes[na].function, b, b->stack_nodes[nb].function);
          assert_same_string (a, a->stack_nodes[na].file, b, b->stack_nodes[nb].file);
          g_assert_cmpuint (a->stack_nodes[na].line, ==, b->stack_nodes[nb].line);
        }
      g_assert_cmpuint (na, ==, nb);
    }

  g_assert_cmpuint (a->n_memory_events, ==, b->n_memory_events);
  for (guint32 i = 0; i < a->n_memory_events; i++)
    {
      const KsMemoryEvent *ea = &a->memory_events[i];
      const KsMemoryEvent *eb = &b->memory_events[i];

      g_assert_cmpint (ea->ts, ==, eb->ts);
      g_assert_cmpuint (ea->address, ==, eb->address);
      g_assert_cmpint (ea->bytes, ==, eb->bytes);
      g_assert_cmpint (ea->total_allocated, ==, eb->total_allocated);
      g_assert_cmpint (ea->total_reserved, ==, eb->total_reserved);
      g_assert_cmpuint (ea->thread, ==, eb->thread);
      g_assert_cmpint (ea->device, ==, eb->device);
    }

  g_assert_cmpuint (a->n_instants, ==, b->n_instants);
  for (guint32 i = 0; i < a->n_instants; i++)
    {
      const KsInstant *ia = &a->instants[i];
      const KsInstant *ib = &b->instants[i];

      g_assert_cmpint (ia->ts, ==, ib->ts);
      g_assert_cmpuint (ia->track, ==, ib->track);
      g_assert_cmpuint (ia->process, ==, ib->process);
      assert_same_string (a, ia->name, b, ib->name);
      assert_same_string (a, ia->category, b, ib->category);
      assert_same_args (a, ia->args, b, ib->args);
    }

  g_hash_table_iter_init (&iter, a->metadata);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      if (strcmp (key, "load_time_ms") == 0)
        continue;
      g_assert_cmpstr (g_hash_table_lookup (b->metadata, key), ==, value);
    }
  g_hash_table_iter_init (&iter, b->metadata);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      if (strcmp (key, "load_time_ms") == 0 || g_hash_table_contains (a->metadata, key))
        continue;
      if (exact_metadata || !is_provenance_key (key))
        g_error ("metadata key %s = %s appeared on reading", (const char *)key, (const char *)value);
    }
}
