/* test-memsnap-ui.c: a memory snapshot in the window
 *
 * memsnap_oom.pickle (tests/data) was dumped on an H200 at a
 * fragmentation OOM under a 600 MiB per-process fraction; torch's own
 * figures at the dump are in expected/memsnap_oom.json and its message
 * says: 28 MiB asked, 138.70 GiB free on the device (148932526080 bytes
 * in the pickle's oom entry), 276 MiB allocated
 * and 320 MiB reserved but unallocated. Clicking the OOM's mark shows
 * them on the Selection page with the advice, and the allocator drawn;
 * clicking a block names it.
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "ks-allocator-map.h"
#include "ks-format.h"
#include "ks-json-writer.h"
#include "ks-memory-blocks.h"
#include "ks-palette.h"
#include "ks-selection-page.h"
#include "ks-test-gtk.h"
#include "ks-test-window.h"
#include "ks-timeline-layout.h"
#include "ks-trace-loader.h"
#include "ks-window.h"

static char *
fixture_path (const char *name)
{
  return g_build_filename (g_getenv ("KS_FIXTURES_DIR"), name, NULL);
}

static yajl_val
torch_figures (void)
{
  g_autofree char *path = fixture_path ("expected/memsnap_oom.json");
  g_autofree char *text = NULL;
  g_autoptr(GError) error = NULL;
  yajl_val v;

  g_file_get_contents (path, &text, NULL, &error);
  g_assert_no_error (error);
  v = ks_json_parse (text, &error);
  g_assert_no_error (error);
  return v;
}

static KsWindow *
open_window (const char *name)
{
  g_autofree char *path = fixture_path (name);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  KsWindow *window = ks_window_new (NULL);

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (window, file);
  WAIT_FOR (ks_window_get_session (window) != NULL && ks_session_get_trace (ks_window_get_session (window)) != NULL);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  WAIT_FOR (gtk_widget_get_width (GTK_WIDGET (ks_window_get_timeline (window))) > 400);
  return window;
}

/* The window once the trace's page has faded in (the fade is driven by
 * frames, and the test clicks faster than it runs), with the Selection
 * page shown. */
static void
save_screenshot (KsWindow   *window,
                 const char *name)
{
  GtkWidget *stack = gtk_widget_get_ancestor (GTK_WIDGET (ks_window_get_timeline (window)), GTK_TYPE_STACK);

  ks_window_show_page (window, "selection");
  WAIT_FOR (stack == NULL || !gtk_stack_get_transition_running (GTK_STACK (stack)));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  ks_test_save_screenshot (GTK_WIDGET (window), name);
}

/* A size as the page writes it (a no-break space before the unit). */
static const char *
size_text (guint64 bytes)
{
  static char buf[8][64];
  static guint next;
  g_autofree char *text = ks_format_bytes (bytes);

  next = (next + 1) % G_N_ELEMENTS (buf);
  g_strlcpy (buf[next], text, sizeof buf[next]);
  return buf[next];
}

/* Pixels of the selection colour in rows @y0..@y1 of the timeline drawn. */
static guint
selection_pixels (KsTimeline *timeline,
                  int         y0,
                  int         y1)
{
  const KsTheme *theme = ks_theme_get (FALSE);
  int width = gtk_widget_get_width (GTK_WIDGET (timeline));
  int height = gtk_widget_get_height (GTK_WIDGET (timeline));
  GtkSnapshot *snapshot = gtk_snapshot_new ();
  g_autoptr(GskRenderNode) node = NULL;
  g_autoptr(GdkTexture) texture = NULL;
  g_autofree guchar *pixels = NULL;
  guint found = 0;

  GTK_WIDGET_GET_CLASS (timeline)->snapshot (GTK_WIDGET (timeline), snapshot);
  node = gtk_snapshot_free_to_node (snapshot);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (GTK_WIDGET (timeline))),
                                         node, &GRAPHENE_RECT_INIT (0, 0, width, height));
  pixels = g_malloc (4 * (gsize) width * height);
  gdk_texture_download (texture, pixels, 4 * width);
  for (int y = MAX (0, y0); y < MIN (height, y1); y++)
    for (int x = KS_HEADER_WIDTH; x < width; x++)
      {
        const guchar *p = pixels + (gsize) y * 4 * width + 4 * x;

        found += ABS (p[2] - (int) ((theme->selection >> 24) & 0xff)) <= 4 &&
                 ABS (p[1] - (int) ((theme->selection >> 16) & 0xff)) <= 4 &&
                 ABS (p[0] - (int) ((theme->selection >> 8) & 0xff)) <= 4;
      }
  return found;
}

static guint
find_blocks_row (KsTimelineLayout *layout)
{
  for (guint r = 0; r < ks_timeline_layout_get_n_rows (layout); r++)
    if (ks_timeline_layout_get_row (layout, r)->kind == KS_ROW_MEMORY_BLOCKS)
      return r;
  return KS_NO_INDEX;
}

static void
test_oom (void)
{
  KsWindow *window = open_window ("memsnap_oom.pickle");
  KsSession *session = ks_window_get_session (window);
  KsTimeline *timeline = ks_window_get_timeline (window);
  KsTrace *trace = ks_session_get_trace (session);
  KsSelectionPage *page = KS_SELECTION_PAGE (ks_window_get_page (window, "selection"));
  KsTimelineLayout *layout = ks_timeline_get_layout (timeline);
  yajl_val torch = torch_figures ();
  guint32 oom = KS_NO_INDEX, selected;
  g_autofree char *markup = NULL;
  g_autofree char *when = NULL;
  g_autofree char *group = NULL;
  GtkWidget *map;
  guint segments, blocks, holes;
  double x, y;

  for (guint32 i = 0; i < trace->n_instants; i++)
    if (g_str_equal (ks_trace_string (trace, trace->instants[i].category), "oom"))
      oom = i;
  g_assert_cmpuint (oom, !=, KS_NO_INDEX);

  /* The status bar counts the snapshot's allocations and frees: 36
   * alloc and 17 free_completed entries (python3's pickle over the file) */
  {
    GtkWidget *status = ks_test_find_label (GTK_WIDGET (window), "0 events (0 on the GPU)");

    g_assert_nonnull (status);
    g_assert_true (g_str_has_suffix (gtk_label_get_text (GTK_LABEL (status)), " · 53 memory events"));
  }

  /* The OOM's mark, on the allocator's row: its tooltip, then a click */
  ks_session_set_visible (session, trace->instants[oom].ts - 200000, trace->instants[oom].ts + 100000);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
  g_assert_true (ks_timeline_get_row_top (timeline, ks_timeline_layout_find_track_row (layout, trace->instants[oom].track), &y));
  x = ks_timeline_time_to_x (timeline, trace->instants[oom].ts) - 2;
  y += KS_ROW_PADDING + 3;
  markup = ks_timeline_dup_tooltip_markup (timeline, x, y, NULL);
  g_assert_nonnull (markup);
  g_assert_nonnull (strstr (markup, "Out of memory: 28.0"));
  g_assert_cmpstr (size_text (G_GUINT64_CONSTANT (148932526080)), ==, "138.7\u00a0GiB");
  ks_test_click_timeline (GTK_WIDGET (timeline), 1, x, y);
  g_assert_true (ks_session_get_selected_instant (session, &selected));
  g_assert_cmpuint (selected, ==, oom);
  g_assert_false (ks_session_get_selected_slice (session, NULL, NULL));

  /* What torch's message says */
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Out of Memory", "Requested"), ==, size_text (28 << 20));
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Out of Memory", "Device free memory"), ==,
                   size_text (G_GUINT64_CONSTANT (148932526080)));
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Out of Memory", "Free inside segments"), ==, size_text (320 << 20));
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Out of Memory", "Largest free block"), ==, size_text (20 << 20));
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Out of Memory", "Allocated"), ==, size_text (276 << 20));
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Out of Memory", "Cause"), ==, "Fragmentation");
  g_assert_nonnull (strstr (ks_selection_page_lookup_value (page, "Out of Memory", "Advice"),
                            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"));
  /* the frame that asked: main() at memsnap.py:68 */
  g_assert_nonnull (strstr (ks_selection_page_lookup_value (page, "Python Stack", "1"), "memsnap.py:68"));

  /* The allocator then, as torch dumped it right after */
  when = ks_time_format_timestamp (trace->instants[oom].ts);
  group = g_strdup_printf ("Allocator at %s", when);
  g_assert_cmpstr (ks_selection_page_lookup_value (page, group, "Segments"), ==, "4");
  g_assert_cmpint (g_ascii_strtoll (ks_selection_page_lookup_value (page, group, "Free holes"), NULL, 10), ==,
                   ks_json_get_int (torch, "inactive_blocks", -1));
  g_assert_cmpstr (ks_selection_page_lookup_value (page, group, "Largest free ÷ free"), ==, "6.2 %");
  map = ks_test_find_descendant (GTK_WIDGET (page), KS_TYPE_ALLOCATOR_MAP, NULL);
  g_assert_nonnull (map);
  ks_allocator_map_get_counts (KS_ALLOCATOR_MAP (map), &segments, &blocks, &holes);
  g_assert_cmpuint (segments, ==, ks_json_get_int (torch, "segments", -1));
  g_assert_cmpuint (blocks, ==, ks_json_get_int (torch, "active_blocks", -1));
  g_assert_cmpuint (holes, ==, ks_json_get_int (torch, "inactive_blocks", -1));
  {
    int natural;

    /* a bar of 14 pixels for each segment */
    gtk_widget_measure (map, GTK_ORIENTATION_VERTICAL, -1, NULL, &natural, NULL, NULL);
    g_assert_cmpint (natural, >=, 4 * 14);
  }
  save_screenshot (window, "memsnap-oom.png");

  yajl_tree_free (torch);
  gtk_window_destroy (GTK_WINDOW (window));
}

/* A click on the blocks row selects the block under it: half-way through
 * frag only 12 MiB blocks are live, drawn over the 20 MiB holes. */
static void
test_block (void)
{
  KsWindow *window = open_window ("memsnap_frag.pickle");
  KsSession *session = ks_window_get_session (window);
  KsTimeline *timeline = ks_window_get_timeline (window);
  KsTrace *trace = ks_session_get_trace (session);
  KsSelectionPage *page = KS_SELECTION_PAGE (ks_window_get_page (window, "selection"));
  KsTimelineLayout *layout = ks_timeline_get_layout (timeline);
  const KsMemoryBlockDevice *dev = &ks_memory_blocks_get (trace)->devices[0];
  guint r = find_blocks_row (layout);
  guint device = G_MAXUINT;
  guint32 block = KS_NO_INDEX;
  const KsMemoryBlock *b;
  g_autofree char *addr = NULL;
  double x, top;

  g_assert_cmpuint (r, !=, KS_NO_INDEX);
  g_assert_true (ks_timeline_get_row_top (timeline, r, &top));
  /* 500 µs after the first event: after the 20 MiB frees, before the 28 MiB segments */
  ks_session_set_visible (session, 0, trace->duration_ns);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
  x = ks_timeline_time_to_x (timeline, 500000);
  g_assert_cmpuint (selection_pixels (timeline, top, top + KS_BLOCKS_HEIGHT), ==, 0);
  for (int y = 3; y < KS_BLOCKS_HEIGHT - 3 && block == KS_NO_INDEX; y++)
    {
      ks_test_click_timeline (GTK_WIDGET (timeline), 1, x, top + y);
      ks_session_get_selected_memory_block (session, &device, &block);
    }
  g_assert_cmpuint (block, !=, KS_NO_INDEX);
  g_assert_cmpuint (device, ==, 0);
  b = &g_array_index (dev->blocks, KsMemoryBlock, block);
  g_assert_cmpint (b->size, ==, 12 << 20);
  g_assert_cmpint (b->start, <=, ks_timeline_x_to_time (timeline, x + 1));
  g_assert_true (!b->freed || b->end >= ks_timeline_x_to_time (timeline, x - 1));

  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Memory Block", "Size"), ==, size_text (12 << 20));
  /* outlined in the selection colour, all round: at least its width twice */
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
  g_assert_cmpuint (selection_pixels (timeline, top, top + KS_BLOCKS_HEIGHT), >=,
                    2 * (guint) (ks_timeline_time_to_x (timeline, MIN (b->end, trace->duration_ns)) -
                                 MAX (ks_timeline_time_to_x (timeline, b->start), KS_HEADER_WIDTH)) - 8);
  addr = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", b->addr);
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Memory Block", "Address"), ==, addr);
  g_assert_cmpstr (ks_selection_page_lookup_value (page, "Memory Block", "Freed at"), ==, "Never (live at the end)");
  g_assert_nonnull (strstr (ks_selection_page_lookup_value (page, "Python Stack", "main"), "memsnap.py:"));
  g_assert_nonnull (ks_test_find_descendant (GTK_WIDGET (page), KS_TYPE_ALLOCATOR_MAP, NULL));

  /* Away from any block (below the lowest address), the allocator at
   * the pointer: at 500 µs the one 512 MiB segment of frag, its 16 blocks
   * of 12 MiB and their 16 holes (4 of the 28 MiB segments come later) */
  {
    g_autofree char *markup = ks_timeline_dup_tooltip_markup (timeline, x, top + KS_BLOCKS_HEIGHT - 2, NULL);
    g_autofree char *allocated = ks_format_bytes (16 * (12 << 20));

    g_assert_nonnull (markup);
    g_assert_nonnull (strstr (markup, "(segments: 1)"));
    g_assert_nonnull (strstr (markup, "(blocks: 16)"));
    g_assert_nonnull (strstr (markup, allocated));
    g_assert_nonnull (strstr (markup, "(holes: 16)"));
  }

  /* A click on nothing clears it */
  ks_test_click_timeline (GTK_WIDGET (timeline), 1, x, top + KS_BLOCKS_HEIGHT + 400);
  g_assert_false (ks_session_get_selected_memory_block (session, NULL, NULL));

  gtk_window_destroy (GTK_WINDOW (window));
}

/* A profiler's trace opened with the snapshot of its run: the blocks on
 * the trace's axis, under the CPU threads, and one clicked. */
static void
test_with_trace (void)
{
  g_autofree char *trace_path = fixture_path ("memsnap_train.pt.trace.json.gz");
  g_autofree char *snap_path = fixture_path ("memsnap_train.pickle");
  g_autoptr(GFile) trace_file = g_file_new_for_path (trace_path);
  g_autoptr(GFile) snap_file = g_file_new_for_path (snap_path);
  GFile *pair[2] = { snap_file, trace_file };
  KsWindow *window = ks_window_new (NULL);
  KsSession *session;
  KsTimeline *timeline;
  KsTrace *trace;
  const KsMemoryBlockDevice *dev;
  guint snapshot = G_MAXUINT, r, device;
  guint32 block = KS_NO_INDEX;
  double top, x;

  g_assert_true (ks_trace_files_are_with_snapshot (pair, 2, &snapshot));
  g_assert_cmpuint (snapshot, ==, 0);
  pair[0] = trace_file;
  g_assert_false (ks_trace_files_are_with_snapshot (pair, 2, NULL));

  gtk_window_set_default_size (GTK_WINDOW (window), 1400, 860);
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open_with_snapshot (window, trace_file, snap_file);
  WAIT_FOR (ks_window_get_session (window) != NULL && ks_session_get_trace (ks_window_get_session (window)) != NULL);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  session = ks_window_get_session (window);
  timeline = ks_window_get_timeline (window);
  trace = ks_session_get_trace (session);
  g_assert_cmpint (trace->format, ==, KS_FORMAT_KINETO_JSON);
  g_assert_cmpstr (ks_trace_get_metadata (trace, "memory_snapshot"), ==, snap_path);
  dev = &ks_memory_blocks_get (trace)->devices[0];
  g_assert_cmpuint (dev->blocks->len, ==, 107);

  r = find_blocks_row (ks_timeline_get_layout (timeline));
  g_assert_cmpuint (r, !=, KS_NO_INDEX);
  save_screenshot (window, "memsnap-with-trace.png");

  /* a segment_alloc the profiler saw, marked along the row's top: its
   * tooltip says what it did; a click selects nothing */
  for (guint i = 0; i < dev->marks->len; i++)
    {
      const KsMemoryMark *m = &g_array_index (dev->marks, KsMemoryMark, i);
      g_autofree char *markup = NULL;

      if (m->time < 0 || m->time > trace->duration_ns)
        continue;
      ks_session_set_visible (session, m->time - 1000000, m->time + 1000000);
      ks_timeline_reveal_row (timeline, r);
      gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
      g_assert_true (ks_timeline_get_row_top (timeline, r, &top));
      x = ks_timeline_time_to_x (timeline, m->time);
      markup = ks_timeline_dup_tooltip_markup (timeline, x, top + 2, NULL);
      g_assert_nonnull (markup);
      g_assert_nonnull (strstr (markup, "segment_alloc"));
      ks_test_click_timeline (GTK_WIDGET (timeline), 1, x, top + 2);
      g_assert_false (ks_session_get_selected_memory_block (session, NULL, NULL));
      break;
    }

  /* the last block made, on the trace's axis: live at the end, clicked */
  ks_session_set_visible (session, g_array_index (dev->blocks, KsMemoryBlock, dev->blocks->len - 1).start,
                          trace->duration_ns);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
  ks_timeline_reveal_row (timeline, r);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (timeline));
  g_assert_true (ks_timeline_get_row_top (timeline, r, &top));
  x = ks_timeline_time_to_x (timeline, trace->duration_ns) - 4;
  for (int y = 3; y < KS_BLOCKS_HEIGHT - 3 && block == KS_NO_INDEX; y++)
    {
      ks_test_click_timeline (GTK_WIDGET (timeline), 1, x, top + y);
      ks_session_get_selected_memory_block (session, &device, &block);
    }
  g_assert_cmpuint (block, !=, KS_NO_INDEX);
  g_assert_cmpint (g_array_index (dev->blocks, KsMemoryBlock, block).end, >=,
                   (gint64) ks_timeline_x_to_time (timeline, x - 1));

  gtk_window_destroy (GTK_WINDOW (window));
}

/* "Add Memory Snapshot…" on a trace already open: the trace again, with
 * the snapshot's blocks. */
static void
test_add_snapshot (void)
{
  KsWindow *window = open_window ("memsnap_train.pt.trace.json.gz");
  g_autofree char *snap_path = fixture_path ("memsnap_train.pickle");
  g_autoptr(GFile) snap_file = g_file_new_for_path (snap_path);
  g_autofree char *uri = g_file_get_uri (snap_file);
  KsTrace *before = ks_session_get_trace (ks_window_get_session (window));

  g_assert_cmpuint (ks_memory_blocks_get (before)->n_devices, ==, 0);
  g_assert_cmpuint (find_blocks_row (ks_timeline_get_layout (ks_window_get_timeline (window))), ==, KS_NO_INDEX);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.add-memory-snapshot-file", "s", uri));
  WAIT_FOR (!ks_window_get_loading (window) && ks_window_get_session (window) != NULL &&
            ks_session_get_trace (ks_window_get_session (window)) != before &&
            ks_session_get_trace (ks_window_get_session (window)) != NULL);
  g_assert_cmpuint (ks_memory_blocks_get (ks_session_get_trace (ks_window_get_session (window)))->n_devices, ==, 1);
  g_assert_cmpuint (find_blocks_row (ks_timeline_get_layout (ks_window_get_timeline (window))), !=, KS_NO_INDEX);

  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int   argc,
      char *argv[])
{
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;

  g_test_add_func ("/memsnap-ui/oom", test_oom);
  g_test_add_func ("/memsnap-ui/block", test_block);
  g_test_add_func ("/memsnap-ui/with-trace", test_with_trace);
  g_test_add_func ("/memsnap-ui/add-snapshot", test_add_snapshot);

  return g_test_run ();
}
