/* test-render-memsnap.c: a memory snapshot's allocations by address and
 * its instants on the timeline, and the allocator's state at an instant.
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The snapshots in tests/data were dumped on an H200 with torch's own
 * figures at dump time in expected/memsnap_KIND.json. The block counts
 * below were counted in the pickles with python3 (pickle.load; one block
 * per "alloc" of device_traces[0], no free_completed without its alloc,
 * no live block of the dump outside the history): frag and oom 36, train
 * 107; frag's 4 segments (3 of 28 MiB, one of 512 MiB) never touch. */

#include "config.h"

#include <cairo.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>
#include <yajl/yajl_tree.h>

#include "ks-json-writer.h"
#include "ks-memory-blocks.h"
#include "ks-render-cairo.h"
#include "test-render-util.h"

static yajl_val
torch_figures (const char *kind)
{
  g_autofree char *name = g_strdup_printf ("expected/memsnap_%s.json", kind);
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  yajl_val v;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  v = ks_json_parse (text, &error);
  g_assert_no_error (error);
  return v;
}

/* Every allocation is a block, and the blocks live at the trace's end
 * cut the segments as torch's dump does. */
static void
test_blocks_end (gconstpointer data)
{
  const char *kind = data;
  g_autofree char *name = g_strdup_printf ("memsnap_%s.pickle", kind);
  g_autoptr(KsTrace) trace = load_fixture (name);
  const KsMemoryBlocks *blocks = ks_memory_blocks_get (trace);
  const KsMemoryBlockDevice *dev;
  g_autoptr(KsMemoryLayout) layout = NULL;
  yajl_val torch = torch_figures (kind);
  gint64 covered = 0;

  g_assert_cmpuint (blocks->n_devices, ==, 1);
  dev = &blocks->devices[0];
  g_assert_cmpint (dev->device, ==, 0);
  g_assert_cmpuint (dev->blocks->len, ==, strcmp (kind, "train") == 0 ? 107 : 36);
  g_assert_cmpuint (dev->segments->len, ==, ks_json_get_int (torch, "segments", -1));
  for (guint i = 0; i < dev->blocks->len; i++)
    {
      const KsMemoryBlock *b = &g_array_index (dev->blocks, KsMemoryBlock, i);

      g_assert_cmpint (b->start, <=, b->end);
      g_assert_cmpint (b->end, <=, trace->duration_ns);
      g_assert_cmpint (b->size, >, 0);
      if (i > 0)
        g_assert_cmpint (g_array_index (dev->blocks, KsMemoryBlock, i - 1).start, <=, b->start);
    }

  layout = ks_memory_blocks_layout_at (dev, trace->duration_ns);
  g_assert_cmpint (layout->state.segments, ==, ks_json_get_int (torch, "segments", -1));
  g_assert_cmpint (layout->state.reserved_bytes, ==, ks_json_get_int (torch, "reserved_bytes", -1));
  g_assert_cmpint (layout->state.allocated_bytes, ==, ks_json_get_int (torch, "allocated_bytes", -1));
  g_assert_cmpint (layout->state.active_blocks, ==, ks_json_get_int (torch, "active_blocks", -1));
  g_assert_cmpint (layout->state.inactive_blocks, ==, ks_json_get_int (torch, "inactive_blocks", -1));
  g_assert_cmpint (layout->state.largest_free_bytes, ==, ks_json_get_int (torch, "largest_free_bytes", -1));
  g_assert_cmpint (layout->state.free_bytes, ==, ks_json_get_int (torch, "free_bytes", -1));

  /* The pieces tile the segments: blocks and holes, by address. */
  for (guint i = 0; i < layout->pieces->len; i++)
    {
      const KsMemoryPiece *p = &g_array_index (layout->pieces, KsMemoryPiece, i);

      covered += p->size;
      if (i > 0)
        {
          const KsMemoryPiece *q = &g_array_index (layout->pieces, KsMemoryPiece, i - 1);

          g_assert_cmpuint (q->addr + (guint64) q->size, <=, p->addr);
        }
    }
  g_assert_cmpint (covered, ==, layout->state.reserved_bytes);
  g_assert_cmpuint (layout->pieces->len, ==, layout->state.active_blocks + layout->state.inactive_blocks);
  yajl_tree_free (torch);
}

/* At the out-of-memory error the allocator is as torch's message says:
 * 320 MiB reserved and unallocated, no hole of the 28 MiB asked. */
static void
test_oom_state (void)
{
  g_autoptr(KsTrace) trace = load_fixture ("memsnap_oom.pickle");
  const KsMemoryBlockDevice *dev = &ks_memory_blocks_get (trace)->devices[0];
  g_autoptr(KsMemoryLayout) layout = NULL;
  const KsInstant *oom = NULL;

  for (guint32 i = 0; i < trace->n_instants; i++)
    if (g_str_equal (ks_trace_string (trace, trace->instants[i].category), "oom"))
      {
        g_assert_null (oom);
        oom = &trace->instants[i];
      }
  g_assert_nonnull (oom);
  layout = ks_memory_blocks_layout_at (dev, oom->ts);
  g_assert_cmpint (layout->state.free_bytes, ==, 320 << 20);
  g_assert_cmpint (layout->state.largest_free_bytes, ==, 20 << 20);
  g_assert_cmpint (layout->state.allocated_bytes, ==, 276 << 20);
}

static guint
find_row (KsTimelineLayout *layout,
          KsRowKind         kind)
{
  for (guint r = 0; r < ks_timeline_layout_get_n_rows (layout); r++)
    if (ks_timeline_layout_get_row (layout, r)->kind == kind)
      return r;
  return KS_NO_INDEX;
}

static gboolean
saturated (guint32 p)
{
  int r = (p >> 24) & 0xff, g = (p >> 16) & 0xff, b = (p >> 8) & 0xff;

  return ABS (r - g) > 24 || ABS (g - b) > 24 || ABS (r - b) > 24;
}

/* A snapshot opened alone marks its segment events and errors as the
 * instants of its own row, not again on the blocks row. */
static void
test_blocks_no_marks (void)
{
  g_autoptr(KsTrace) trace = load_fixture ("memsnap_oom.pickle");
  g_autoptr(KsTimelineLayout) layout = ks_timeline_layout_new (trace);
  const KsTheme *theme = ks_theme_get (FALSE);
  KsTimeView view = { 0, trace->duration_ns / 1000.0, 1010 };
  KsPrims prims;

  /* 4 segment_alloc and the OOM, counted in the pickle */
  g_assert_cmpuint (ks_memory_blocks_get (trace)->devices[0].marks->len, ==, 5);
  ks_prims_init (&prims);
  ks_timeline_layout_build_prims (layout, find_row (layout, KS_ROW_MEMORY_BLOCKS), &view, theme, NULL, &prims);
  for (guint i = 0; i < prims.rects->len; i++)
    {
      KsColor c = g_array_index (prims.rects, KsPrimRect, i).color;

      g_assert_cmpuint (c, !=, ks_timeline_layout_category_color ("segment", theme));
      g_assert_cmpuint (c, !=, ks_timeline_layout_category_color ("oom", theme));
    }
  ks_prims_clear (&prims);
}

/* The picture: half-way through frag (500 µs after its first event, after
 * the 20 MiB blocks were freed, before the 28 MiB segments), the 16 live
 * 12 MiB blocks are drawn and the 20 MiB holes between them are left
 * grey; a point on a block names it. */
static void
test_blocks_png (void)
{
  g_autoptr(KsTrace) trace = load_fixture ("memsnap_frag.pickle");
  g_autoptr(KsTimelineLayout) layout = ks_timeline_layout_new (trace);
  const KsMemoryBlockDevice *dev = &ks_memory_blocks_get (trace)->devices[0];
  guint r = find_row (layout, KS_ROW_MEMORY_BLOCKS);
  const KsRow *row;
  KsRenderOptions options;
  KsTimeView view;
  KsBlockHit hit;
  cairo_surface_t *surface;
  cairo_t *cr;
  int x, top, filled = 0, runs = 0, hits = 0;
  gboolean in_run = FALSE;
  double px_per_block = 156.0 * (12 << 20) / 624951296;

  g_assert_cmpuint (r, !=, KS_NO_INDEX);
  row = ks_timeline_layout_get_row (layout, r);
  g_assert_cmpint (row->height, ==, KS_BLOCKS_HEIGHT);
  /* the four segments never touch: four bands, their bytes */
  g_assert_cmpuint (dev->bands->len, ==, 4);
  g_assert_cmpuint (dev->span, ==, 624951296);

  ks_render_options_init (&options, trace, 1200, 0);
  options.height = KS_RULER_HEIGHT + ks_timeline_layout_get_height (layout);
  surface = cairo_image_surface_create (CAIRO_FORMAT_RGB24, options.width, options.height);
  cr = cairo_create (surface);
  ks_render_cairo (layout, cr, &options);
  cairo_destroy (cr);
  cairo_surface_flush (surface);
  ks_render_options_view (&options, &view);

  x = options.header_width + (int) ((500000.0 - view.t0) / view.ns_per_px);
  top = options.ruler_height + row->y;
  for (int y = top + 2; y < top + row->height - 2; y++)
    {
      gboolean on = saturated (pixel_at (surface, x, y));

      filled += on;
      runs += on && !in_run;
      in_run = on;
    }
  /* each block a pixel short of its height, set apart by the holes */
  g_assert_cmpint (runs, ==, 16);
  g_assert_cmpint (filled, >=, (int) (16 * (px_per_block - 2)));
  g_assert_cmpint (filled, <=, (int) (16 * (px_per_block + 1)));
  cairo_surface_destroy (surface);

  for (int y = 2; y < row->height - 2; y++)
    if (ks_timeline_layout_hit_block (layout, r, &view, x - options.header_width, y, &hit))
      {
        const KsMemoryBlock *b = &g_array_index (dev->blocks, KsMemoryBlock, hit.block);

        g_assert_cmpuint (hit.device, ==, 0);
        g_assert_cmpint (b->size, ==, 12 << 20);
        g_assert_cmpint (b->start, <=, 500000);
        g_assert_cmpint (b->end, >, 500000);
        hits++;
      }
  g_assert_cmpint (hits, >=, 16 * 2);
  g_assert_false (ks_timeline_layout_hit_block (layout, r, &view, 1, 1, &hit));
}

/* Millions of blocks fold: a picture of blocks narrower than a pixel draws
 * runs, not a rectangle each. */
static void
test_blocks_fold (void)
{
  g_autoptr(KsTrace) trace = load_fixture ("memsnap_train.pickle");
  g_autoptr(KsTimelineLayout) layout = ks_timeline_layout_new (trace);
  guint r = find_row (layout, KS_ROW_MEMORY_BLOCKS);
  const KsMemoryBlockDevice *dev = &ks_memory_blocks_get (trace)->devices[0];
  const KsTheme *theme = ks_theme_get (FALSE);
  KsTimeView view = { 0, trace->duration_ns / 100.0, 100 };
  KsPrims prims;
  guint folded = 0, drawn = 0;

  ks_prims_init (&prims);
  ks_timeline_layout_build_prims (layout, r, &view, theme, NULL, &prims);
  for (guint i = 0; i < prims.rects->len; i++)
    {
      const KsPrimRect *pr = &g_array_index (prims.rects, KsPrimRect, i);

      folded += pr->color == theme->folded;
      drawn += pr->color != theme->folded && pr->color != theme->row_separator &&
               (pr->color & 0xff) == 0xff;
    }
  /* 100 columns over 4 s: the training steps' blocks, milliseconds long,
   * fold; those that live for seconds are drawn */
  g_assert_cmpuint (folded, >, 0);
  g_assert_cmpuint (drawn, >, 0);
  g_assert_cmpuint (drawn, <, dev->blocks->len);
  ks_prims_clear (&prims);
}

/* Instants are drawn as marks on their row: the OOM in red, and a click
 * there finds it. */
static void
test_instant_marks (void)
{
  g_autoptr(KsTrace) trace = load_fixture ("memsnap_oom.pickle");
  g_autoptr(KsTimelineLayout) layout = ks_timeline_layout_new (trace);
  const KsTheme *theme = ks_theme_get (FALSE);
  KsTimeView view = { 0, trace->duration_ns / 1000.0, 1010 };
  guint32 track = trace->instants[0].track;
  guint r = ks_timeline_layout_find_track_row (layout, track);
  guint32 oom = KS_NO_INDEX, segments = 0, red = 0;
  KsPrims prims;
  KsInstantHit hit;
  double x;

  for (guint32 i = 0; i < trace->n_instants; i++)
    {
      const char *category = ks_trace_string (trace, trace->instants[i].category);

      g_assert_cmpuint (trace->instants[i].track, ==, track);
      if (g_str_equal (category, "oom"))
        oom = i;
      segments += g_str_equal (category, "segment");
    }
  /* 4 segment_alloc events and the OOM (counted in the pickle) */
  g_assert_cmpuint (segments, ==, 4);
  g_assert_cmpuint (oom, !=, KS_NO_INDEX);
  g_assert_cmpuint (ks_timeline_layout_track_instants (layout, track), ==, 5);

  ks_prims_init (&prims);
  ks_timeline_layout_build_prims (layout, r, &view, theme, NULL, &prims);
  for (guint i = 0; i < prims.rects->len; i++)
    red += g_array_index (prims.rects, KsPrimRect, i).color == ks_timeline_layout_instant_color (layout, oom, theme);
  /* a pin and its head */
  g_assert_cmpuint (red, ==, 2);
  ks_prims_clear (&prims);

  x = (trace->instants[oom].ts - view.t0) / view.ns_per_px;
  g_assert_true (ks_timeline_layout_hit_instant (layout, r, &view, x + 2, KS_ROW_PADDING + 3, &hit));
  g_assert_cmpuint (hit.instant, ==, oom);
  g_assert_cmpuint (hit.count, ==, 1);
  g_assert_false (ks_timeline_layout_hit_instant (layout, r, &view, x + 30, KS_ROW_PADDING + 3, &hit));
}

/* The snapshot opened with the profiler's trace of the same run: its
 * allocations on the trace's time axis, each inside the operator that
 * made it. Counted with python3 on the two files (an alloc matched to
 * the profiler's [memory] event of its address and size, rounded up to
 * 512 bytes as the allocator does, on GPU 0 within 50 µs, time_us against
 * ts + baseTimeNanoseconds): 103 of the 107 allocations have one (the 4
 * others were made before the profiler started), all 103 inside the
 * innermost cpu_op around it. */
static void
test_with_profiler (void)
{
  g_autofree char *snap_path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "memsnap_train.pickle", NULL);
  g_autofree char *trace_path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "memsnap_train.pt.trace.json.gz", NULL);
  GFile *files[2] = { g_file_new_for_path (snap_path), g_file_new_for_path (trace_path) };
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = ks_trace_load_files (files, 2, NULL, NULL, &error);
  g_autoptr(KsTimelineLayout) layout = NULL;
  const KsMemoryBlockDevice *dev;
  guint matched = 0, inside = 0;

  g_assert_no_error (error);
  g_assert_cmpint (trace->format, ==, KS_FORMAT_KINETO_JSON);
  g_assert_cmpuint (ks_memory_blocks_get (trace)->n_devices, ==, 1);
  dev = &ks_memory_blocks_get (trace)->devices[0];
  g_assert_cmpuint (dev->blocks->len, ==, 107);

  for (guint i = 0; i < dev->blocks->len; i++)
    {
      const KsMemoryBlock *b = &g_array_index (dev->blocks, KsMemoryBlock, i);
      const KsMemoryEvent *best = NULL;
      const KsTrack *track;
      guint32 op = KS_NO_INDEX;

      for (guint32 e = 0; e < trace->n_memory_events; e++)
        {
          const KsMemoryEvent *ev = &trace->memory_events[e];

          if (ev->device == 0 && ev->address == b->addr && ev->bytes == b->size &&
              ABS (ev->ts - b->start) <= 50000 &&
              (best == NULL || ABS (ev->ts - b->start) < ABS (best->ts - b->start)))
            best = ev;
        }
      if (best == NULL)
        continue;
      matched++;
      g_assert_cmpuint (best->thread, <, trace->n_threads);
      track = &trace->tracks[trace->threads[best->thread].track];
      for (guint32 s = 0; s < track->n_slices; s++)
        if (track->slice_kind[s] == KS_SLICE_CPU_OP && track->start[s] <= best->ts && best->ts <= track->end[s] &&
            (op == KS_NO_INDEX || track->end[s] - track->start[s] < track->end[op] - track->start[op]))
          op = s;
      g_assert_cmpuint (op, !=, KS_NO_INDEX);
      inside += track->start[op] <= b->start && b->start <= track->end[op];
    }
  g_assert_cmpuint (matched, ==, 103);
  g_assert_cmpuint (inside, ==, 103);

  /* and the timeline draws them, with the snapshot's 13 segment_alloc
   * events (none of them the trace's instants) along the row's top: 10
   * of them inside the profiler's span (counted with python3, time_us
   * against the trace's first and last ts + baseTimeNanoseconds) */
  layout = ks_timeline_layout_new (trace);
  g_assert_cmpuint (find_row (layout, KS_ROW_MEMORY_BLOCKS), !=, KS_NO_INDEX);
  g_assert_cmpuint (dev->marks->len, ==, 13);
  {
    const KsTheme *theme = ks_theme_get (FALSE);
    KsTimeView view = { 0, trace->duration_ns / 1000.0, 1000 };
    KsColor amber = ks_timeline_layout_category_color ("segment", theme);
    KsPrims prims;
    guint marks = 0, in_span = 0;
    KsBlockHit hit;

    for (guint i = 0; i < dev->marks->len; i++)
      in_span += g_array_index (dev->marks, KsMemoryMark, i).time >= 0 &&
                 g_array_index (dev->marks, KsMemoryMark, i).time <= trace->duration_ns;
    g_assert_cmpuint (in_span, ==, 10);
    ks_prims_init (&prims);
    ks_timeline_layout_build_prims (layout, find_row (layout, KS_ROW_MEMORY_BLOCKS), &view, theme, NULL, &prims);
    for (guint i = 0; i < prims.rects->len; i++)
      marks += g_array_index (prims.rects, KsPrimRect, i).color == amber;
    g_assert_cmpuint (marks, ==, 10);
    ks_prims_clear (&prims);

    /* a mark is hit over its pixels, and says which it is */
    for (guint i = 0; i < dev->marks->len; i++)
      {
        const KsMemoryMark *m = &g_array_index (dev->marks, KsMemoryMark, i);

        if (m->time < 0 || m->time > trace->duration_ns)
          continue;
        g_assert_true (ks_timeline_layout_hit_block (layout, find_row (layout, KS_ROW_MEMORY_BLOCKS), &view,
                                                     floor (m->time / view.ns_per_px) + 1, 2, &hit));
        g_assert_cmpuint (hit.block, ==, KS_NO_INDEX);
        g_assert_cmpuint (hit.mark, !=, KS_NO_INDEX);
        break;
      }
  }

  /* a snapshot of another time is refused, naming both */
  g_object_unref (files[1]);
  g_clear_object (&trace);
  trace_path = (g_free (trace_path), g_build_filename (g_getenv ("KS_FIXTURES_DIR"), "gpt_3steps.pt.trace.json.gz", NULL));
  files[1] = g_file_new_for_path (trace_path);
  trace = ks_trace_load_files (files, 2, NULL, NULL, &error);
  g_assert_null (trace);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
  g_assert_nonnull (strstr (error->message, "memsnap_train.pickle"));
  g_assert_nonnull (strstr (error->message, "gpt_3steps.pt.trace.json.gz"));
  g_object_unref (files[0]);
  g_object_unref (files[1]);
}

/* The blocks, segments, bands and marks as memory-blocks-reference.py
 * prints them. */
static char *
blocks_text (KsTrace *trace)
{
  const KsMemoryBlocks *blocks = ks_memory_blocks_get (trace);
  GString *out = g_string_new (NULL);

  for (guint d = 0; d < blocks->n_devices; d++)
    {
      const KsMemoryBlockDevice *dev = &blocks->devices[d];

      g_string_append_printf (out, "dev %d end %" G_GINT64_FORMAT " long %" G_GINT64_FORMAT "\n", dev->device,
                              dev->end, dev->long_ns);
      for (guint i = 0; i < dev->blocks->len; i++)
        {
          const KsMemoryBlock *b = &g_array_index (dev->blocks, KsMemoryBlock, i);
          const KsMemsnapStack *stack = ks_memsnap_get_stack (blocks->snap, b->stack);

          g_string_append_printf (out, "b %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GUINT64_FORMAT " %"
                                  G_GINT64_FORMAT " %s %d %d %" G_GINT64_FORMAT "\n",
                                  b->start, b->end, b->addr, b->size, stack != NULL ? stack->text : "-",
                                  b->stream, b->freed, dev->max_end[i]);
        }
      for (guint i = 0; i < dev->segments->len; i++)
        {
          const KsMemoryBlock *b = &g_array_index (dev->segments, KsMemoryBlock, i);

          g_string_append_printf (out, "s %" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GUINT64_FORMAT " %"
                                  G_GINT64_FORMAT " %d %d\n", b->start, b->end, b->addr, b->size, b->stream, b->freed);
        }
      for (guint i = 0; i < dev->bands->len; i++)
        {
          const KsMemoryBand *b = &g_array_index (dev->bands, KsMemoryBand, i);

          g_string_append_printf (out, "n %" G_GUINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GUINT64_FORMAT "\n",
                                  b->addr, b->size, b->offset);
        }
      for (guint i = 0; i < dev->marks->len; i++)
        {
          const KsMemoryMark *m = &g_array_index (dev->marks, KsMemoryMark, i);

          g_string_append_printf (out, "m %" G_GINT64_FORMAT " %u\n", m->time, m->entry);
        }
    }
  return g_string_free (out, FALSE);
}

/* The blocks equal those Python's own pickle reader gives with the
 * pairing written out plainly (memory-blocks-reference.py): every
 * allocation paired with the next free at its address, in trace order,
 * sorted by start, address and the entry that ended it. memsnap_edge
 * holds the cases a pairing can get wrong (make-memsnap-edge.py). */
static void
test_blocks_reference (gconstpointer data)
{
  const char *kind = data;
  g_autofree char *name = g_strdup_printf ("memsnap_%s.pickle", kind);
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);
  g_autofree char *script = g_test_build_filename (G_TEST_DIST, "app", "memory-blocks-reference.py", NULL);
  const char *argv[] = { "python3", script, path, NULL };
  g_autoptr(KsTrace) trace = load_fixture (name);
  g_autofree char *mine = blocks_text (trace);
  g_autofree char *expected = NULL;
  g_autofree char *err = NULL;
  g_autoptr(GError) error = NULL;
  int wait_status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &expected, &err, &wait_status, &error);
  g_assert_no_error (error);
  if (!WIFEXITED (wait_status) || WEXITSTATUS (wait_status) != 0)
    g_error ("memory-blocks-reference.py failed: %s", err);
  /* a fixture with nothing to compare would pass */
  g_assert_cmpuint (strlen (expected), >, 1000);
  g_assert_cmpstr (mine, ==, expected);
}

/* The level of detail a frame of @view uses, as the row picks it: the
 * coarsest whose buckets are a quarter of a pixel or less. */
static const KsMemoryLodLevel *
view_level (const KsMemoryBlockDevice *dev,
            const KsTimeView          *view)
{
  const KsMemoryLodLevel *level = NULL;

  for (guint k = 0; k < dev->n_lod; k++)
    if (4.0 * dev->lod[k].bucket_ns <= view->ns_per_px)
      level = &dev->lod[k];
  return level;
}

/* The folded pixels a frame takes from the coverage kept per time bucket
 * are those of the walk of every block in view, but for a run's edge
 * that a block within one bucket of a column's edge moves by a pixel:
 * no covered pixel lost, and each one added is one that the walk covers
 * with the view moved by a bucket either way. frag and oom fold next to
 * nothing: train and edge, whose many short blocks fold, are checked. */
static void
test_blocks_lod (gconstpointer data)
{
  const char *kind = data;
  g_autofree char *name = g_strdup_printf ("memsnap_%s.pickle", kind);
  g_autoptr(KsTrace) trace = load_fixture (name);
  g_autoptr(KsTimelineLayout) layout = ks_timeline_layout_new (trace);
  const KsMemoryBlockDevice *dev = &ks_memory_blocks_get (trace)->devices[0];
  /* the whole snapshot, halves, tenths and a fortieth, at two widths */
  const double spans[] = { 1, 0.5, 0.1, 0.025 };
  const double starts[] = { 0, 0.3, 0.9 };
  const int widths[] = { 1600, 400 };
  guint views = 0, covered = 0, added = 0;

  g_assert_cmpuint (dev->n_lod, >, 1);
  for (guint k = 1; k < dev->n_lod; k++)
    g_assert_cmpint (dev->lod[k].bucket_ns, ==, 2 * dev->lod[k - 1].bucket_ns);
  for (guint w = 0; w < G_N_ELEMENTS (widths); w++)
    for (guint s = 0; s < G_N_ELEMENTS (spans); s++)
      for (guint p = 0; p < G_N_ELEMENTS (starts) && starts[p] + spans[s] <= 1; p++)
        {
          KsTimeView view = { trace->duration_ns * starts[p], trace->duration_ns * spans[s] / widths[w], widths[w] };
          const KsMemoryLodLevel *level = view_level (dev, &view);
          gsize n = (gsize) view.width * KS_BLOCKS_HEIGHT;
          g_autofree guint8 *lod = g_new (guint8, n);
          g_autofree guint8 *exact = g_new (guint8, n);
          g_autofree guint8 *before = g_new (guint8, n);
          g_autofree guint8 *after = g_new (guint8, n);
          KsTimeView moved = view;

          if (level == NULL)
            {
              /* too narrow for any level: the frame walks every block */
              g_assert_false (ks_timeline_layout_block_cover (layout, 0, &view, FALSE, lod));
              continue;
            }
          views++;
          g_assert_true (ks_timeline_layout_block_cover (layout, 0, &view, FALSE, lod));
          g_assert_false (ks_timeline_layout_block_cover (layout, 0, &view, TRUE, exact));
          moved.t0 = view.t0 - level->bucket_ns;
          ks_timeline_layout_block_cover (layout, 0, &moved, TRUE, before);
          moved.t0 = view.t0 + level->bucket_ns;
          ks_timeline_layout_block_cover (layout, 0, &moved, TRUE, after);
          for (gsize i = 0; i < n; i++)
            {
              if (exact[i] && !lod[i])
                g_error ("%s, view %g+%g: pixel (%d, %d) of the walk lost", kind, starts[p], spans[s],
                         (int) (i % view.width), (int) (i / view.width));
              if (lod[i] && !exact[i] && !before[i] && !after[i])
                g_error ("%s, view %g+%g: pixel (%d, %d) no block within a bucket covers", kind, starts[p],
                         spans[s], (int) (i % view.width), (int) (i / view.width));
              covered += exact[i];
              added += lod[i] && !exact[i];
            }
        }
  g_test_message ("%s: %u views from the coverage, %u pixels of the walk, %u added at run edges", kind, views,
                  covered, added);
  /* the whole snapshot at both widths at least, with something folded */
  g_assert_cmpuint (views, >=, 2);
  g_assert_cmpuint (covered, >, 100);
  g_assert_cmpuint (added * 50, <, covered);
}

/* The blocks of a window of time: exactly those live in it, each once,
 * whatever window, on snapshots whose first blocks live to the end or
 * not. The long blocks are those over long_ns. */
static void
test_block_iter (gconstpointer data)
{
  const char *kind = data;
  g_autofree char *name = g_strdup_printf ("memsnap_%s.pickle", kind);
  g_autoptr(KsTrace) trace = load_fixture (name);
  const KsMemoryBlocks *blocks = ks_memory_blocks_get (trace);
  guint n_long = 0;

  for (guint d = 0; d < blocks->n_devices; d++)
    {
      const KsMemoryBlockDevice *dev = &blocks->devices[d];
      g_autofree guint8 *seen = g_new0 (guint8, dev->blocks->len);
      gint64 span = MAX (1, dev->end);

      for (guint i = 0, l = 0; i < dev->blocks->len; i++)
        {
          const KsMemoryBlock *b = &g_array_index (dev->blocks, KsMemoryBlock, i);
          gboolean is_long = l < dev->long_blocks->len && g_array_index (dev->long_blocks, guint32, l) == i;

          g_assert_cmpint (is_long, ==, b->end - b->start > dev->long_ns);
          l += is_long;
        }
      n_long += dev->long_blocks->len;

      for (guint w = 0; w < 400; w++)
        {
          /* windows of 1/1000 to all of the span, from before it to past it */
          gint64 len = span / (1 + (w % 7) * 150);
          gint64 t0 = -span / 10 + (gint64) (w / 7) * (span + span / 5) / (400 / 7);
          gint64 t1 = t0 + len;
          KsMemoryBlockIter iter;
          guint i, got = 0, want = 0;

          memset (seen, 0, dev->blocks->len);
          ks_memory_block_iter_init (&iter, dev, t0, t1);
          while (ks_memory_block_iter_next (&iter, &i))
            {
              const KsMemoryBlock *b = &g_array_index (dev->blocks, KsMemoryBlock, i);

              g_assert_cmpuint (seen[i], ==, 0);
              seen[i] = 1;
              g_assert_true (b->start <= t1 && b->end >= t0);
              got++;
            }
          for (i = 0; i < dev->blocks->len; i++)
            {
              const KsMemoryBlock *b = &g_array_index (dev->blocks, KsMemoryBlock, i);

              want += b->start <= t1 && b->end >= t0;
            }
          g_assert_cmpuint (got, ==, want);
        }
    }
  /* the edge snapshot's dump holds blocks live from before its history
   * to its end */
  if (strcmp (kind, "edge") == 0)
    g_assert_cmpuint (n_long, >, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_data_func ("/render-memsnap/blocks-end/frag", "frag", test_blocks_end);
  g_test_add_data_func ("/render-memsnap/blocks-end/oom", "oom", test_blocks_end);
  g_test_add_data_func ("/render-memsnap/blocks-end/train", "train", test_blocks_end);
  g_test_add_func ("/render-memsnap/oom-state", test_oom_state);
  g_test_add_func ("/render-memsnap/blocks-png", test_blocks_png);
  g_test_add_func ("/render-memsnap/blocks-fold", test_blocks_fold);
  g_test_add_func ("/render-memsnap/instant-marks", test_instant_marks);
  g_test_add_func ("/render-memsnap/with-profiler", test_with_profiler);
  g_test_add_func ("/render-memsnap/no-marks-alone", test_blocks_no_marks);
  g_test_add_data_func ("/render-memsnap/blocks-reference/frag", "frag", test_blocks_reference);
  g_test_add_data_func ("/render-memsnap/blocks-reference/oom", "oom", test_blocks_reference);
  g_test_add_data_func ("/render-memsnap/blocks-reference/train", "train", test_blocks_reference);
  g_test_add_data_func ("/render-memsnap/blocks-reference/edge", "edge", test_blocks_reference);
  g_test_add_data_func ("/render-memsnap/block-iter/train", "train", test_block_iter);
  g_test_add_data_func ("/render-memsnap/block-iter/edge", "edge", test_block_iter);
  g_test_add_data_func ("/render-memsnap/block-iter/frag", "frag", test_block_iter);
  g_test_add_data_func ("/render-memsnap/blocks-lod/train", "train", test_blocks_lod);
  g_test_add_data_func ("/render-memsnap/blocks-lod/edge", "edge", test_blocks_lod);

  return g_test_run ();
}
