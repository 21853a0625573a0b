/* fuzz-memsnap.c: libFuzzer harness for the memory-snapshot reader
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Reads each input as a pickle and a PyTorch memory snapshot, replays the
 * allocator on every device, builds the trace and walks it, then the
 * blocks the timeline draws and the allocator at a few times. Seeds:
 * fuzz/corpus-memsnap (snapshots from an H200 and hostile pickles:
 * GLOBAL/REDUCE, deep nesting, huge lengths, memo tricks). See README.md,
 * "Fuzzing".
 */

#include "config.h"

#include <stdint.h>
#include <string.h>

#include "fuzz-common.h"
#include "ks-memory-blocks.h"
#include "ks-memsnap.h"
#include "ks-memsnap-reader.h"
#include "ks-pickle.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Every block and segment of @trace's snapshot, and the allocator at its
 * start, middle and end: the pieces of a layout lie inside its segments. */
static void
walk_blocks (KsTrace *trace)
{
  const KsMemoryBlocks *blocks = ks_memory_blocks_get (trace);

  for (guint d = 0; d < blocks->n_devices; d++)
    {
      const KsMemoryBlockDevice *dev = &blocks->devices[d];
      gint64 times[] = { 0, trace->duration_ns / 2, trace->duration_ns };

      for (guint i = 0; i < dev->blocks->len; i++)
        {
          const KsMemoryBlock *b = &g_array_index (dev->blocks, KsMemoryBlock, i);

          g_assert (b->start <= b->end && b->size >= 0);
          g_assert (ks_memory_blocks_position (dev, b->addr) <= dev->span);
        }
      for (guint k = 0; k < G_N_ELEMENTS (times); k++)
        {
          KsMemoryLayout *layout = ks_memory_blocks_layout_at (dev, times[k]);

          for (guint i = 0; i < layout->pieces->len; i++)
            g_assert (g_array_index (layout->pieces, KsMemoryPiece, i).segment < dev->segments->len);
          ks_memory_layout_free (layout);
        }
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  GBytes *bytes;
  GError *error = NULL;
  KsPickle *pickle;
  KsMemsnap *snap;
  KsTrace *trace;

  fuzz_init ();
  bytes = g_bytes_new (data, size);
  pickle = ks_pickle_load (bytes, "fuzz.pickle", &error);
  g_assert ((pickle == NULL) == (error != NULL));
  g_clear_error (&error);
  ks_pickle_free (pickle);

  snap = ks_memsnap_new_from_bytes (bytes, "fuzz.pickle", &error);
  g_bytes_unref (bytes);
  if (snap == NULL)
    {
      g_assert (error != NULL);
      g_assert (g_str_has_prefix (error->message, "fuzz.pickle: "));
      g_error_free (error);
      return 0;
    }
  for (guint d = 0; d < ks_memsnap_get_n_devices (snap); d++)
    {
      KsMemsnapReplay *replay = ks_memsnap_replay (snap, d);
      KsMemsnapState state;

      g_assert (replay->points->len == ks_memsnap_get_device (snap, d)->entries->len);
      ks_memsnap_device_end_state (ks_memsnap_get_device (snap, d), &state);
      ks_memsnap_replay_free (replay);
    }
  trace = ks_memsnap_reader_build (snap, "fuzz.pickle", NULL, &error);
  if (trace == NULL)
    {
      g_assert (error != NULL);
      g_error_free (error);
    }
  else
    {
      fuzz_walk_trace (trace, TRUE);
      ks_memsnap_reader_attach (trace, g_steal_pointer (&snap));
      walk_blocks (trace);
      g_object_unref (trace);
    }
  ks_memsnap_free (snap);
  return 0;
}
