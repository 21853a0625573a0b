/* ks-selection-memory.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-selection-page"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <string.h>
#include <yajl/yajl_tree.h>

#include "ks-allocator-map.h"
#include "ks-format.h"
#include "ks-json-writer.h"
#include "ks-memory-series.h"
#include "ks-selection-page-private.h"

/* The Selection page of a memory snapshot's instants (an out-of-memory
 * error, a segment event) and blocks: what it was, and the allocator at
 * its time — its figures, its segments drawn by address, and, at an
 * error, what held the memory. */

#define TOP_STACKS 5

static const KsMemoryBlockDevice *
find_device (const KsMemoryBlocks *blocks,
             gint64                device)
{
  for (guint i = 0; i < blocks->n_devices; i++)
    if (blocks->devices[i].device == device)
      return &blocks->devices[i];
  /* an error names no device: a snapshot of one device is the one */
  return blocks->n_devices == 1 && device < 0 ? &blocks->devices[0] : NULL;
}

static char *
bytes (gint64 n)
{
  return ks_format_bytes ((guint64) MAX (0, n));
}

/* The fragmentation figures of an allocator state. */
static void
add_state (KsSelectionPage      *self,
           const char           *title,
           const KsMemsnapState *s)
{
  _ks_selection_page_begin_group (self, title);
  _ks_selection_page_add_row_take (self, _("Segments"), g_strdup_printf ("%u", s->segments));
  _ks_selection_page_add_row_take (self, _("Reserved"), bytes (s->reserved_bytes));
  _ks_selection_page_add_row_take (self, _("Allocated"), bytes (s->allocated_bytes));
  _ks_selection_page_add_row_take (self, _("Free inside segments"), bytes (s->free_bytes));
  _ks_selection_page_add_row_take (self, _("Largest free block"), bytes (s->largest_free_bytes));
  _ks_selection_page_add_row_take (self, _("Largest free ÷ free"),
                                   s->free_bytes > 0
                                   ? g_strdup_printf ("%.1f %%", 100.0 * s->largest_free_bytes / s->free_bytes)
                                   : g_strdup ("—"));
  _ks_selection_page_add_row_take (self, _("Free holes"), g_strdup_printf ("%u", s->inactive_blocks));
  _ks_selection_page_add_row_take (self, _("Blocks per segment"),
                                   s->segments > 0
                                   ? g_strdup_printf ("%.1f", (double) s->active_blocks / s->segments)
                                   : g_strdup ("—"));
}

/* The allocator at @t: its figures and its segments drawn. */
static void
add_allocator_at (KsSelectionPage           *self,
                  const KsMemoryBlocks      *blocks,
                  const KsMemoryBlockDevice *dev,
                  const char                *title,
                  gint64                     t,
                  guint32                    highlight)
{
  KsMemoryLayout *layout = ks_memory_blocks_layout_at (dev, t);
  GtkWidget *map = ks_allocator_map_new ();

  add_state (self, title, &layout->state);
  gtk_widget_set_tooltip_text (map, _("Each segment by address: blocks in the colour of the stack that "
                                      "allocated them, free holes empty"));
  gtk_accessible_update_property (GTK_ACCESSIBLE (map), GTK_ACCESSIBLE_PROPERTY_LABEL, title, -1);
  ks_allocator_map_set_layout (KS_ALLOCATOR_MAP (map), blocks, dev, layout, highlight);
  _ks_selection_page_append (self, map);
}

/* The time of the device's largest allocated total, from its curve. */
static gboolean
peak_time (KsTrace *trace,
           gint     device,
           gint64  *t)
{
  const KsMemorySeriesSet *set = ks_memory_series_get (trace);
  double max = -1;

  for (guint i = 0; i < set->n_series; i++)
    {
      const KsCounter *c = &set->series[i].allocated;

      if (set->series[i].device != device)
        continue;
      for (guint32 k = 0; k < c->n_samples; k++)
        if (c->value[k] > max)
          {
            max = c->value[k];
            *t = c->ts[k];
          }
    }
  return max >= 0;
}

static void
add_peak (KsSelectionPage           *self,
          KsTrace                   *trace,
          const KsMemoryBlocks      *blocks,
          const KsMemoryBlockDevice *dev)
{
  g_autofree char *when = NULL;
  g_autofree char *title = NULL;
  gint64 t = 0;

  if (!peak_time (trace, dev->device, &t))
    return;
  when = ks_time_format_timestamp (t);
  title = g_strdup_printf (_("Allocator at the Peak, %s"), when);
  add_allocator_at (self, blocks, dev, title, t, KS_NO_INDEX);
}

static void
add_frames (KsSelectionPage      *self,
            const KsMemsnapStack *stack)
{
  _ks_selection_page_begin_group (self, _("Python Stack"));
  if (stack == NULL || stack->n_frames == 0)
    {
      _ks_selection_page_add_row (self, _("Stack"), _("None recorded (before the history began, or "
                                                       "recorded without stacks)"));
      return;
    }
  for (guint i = 0; i < stack->n_frames; i++)
    _ks_selection_page_add_row_take (self, stack->frames[i].name,
                                     g_strdup_printf ("%s:%" G_GINT64_FORMAT, stack->frames[i].file,
                                                      stack->frames[i].line));
}

/* The same from an instant's args: "name (file:line) ← …". */
static void
add_frames_text (KsSelectionPage *self,
                 const char      *text)
{
  g_auto(GStrv) frames = NULL;

  _ks_selection_page_begin_group (self, _("Python Stack"));
  if (text == NULL || *text == 0)
    {
      _ks_selection_page_add_row (self, _("Stack"), _("None recorded"));
      return;
    }
  frames = g_strsplit (text, " ← ", -1);
  for (guint i = 0; frames[i] != NULL; i++)
    {
      g_autofree char *n = g_strdup_printf ("%u", i + 1);

      _ks_selection_page_add_row (self, n, frames[i]);
    }
}

typedef struct
{
  guint32 stack;
  gint64  bytes;
  guint   blocks;
} Held;

static gint
compare_held (gconstpointer a,
              gconstpointer b)
{
  const Held *x = a, *y = b;

  if (x->bytes != y->bytes)
    return x->bytes > y->bytes ? -1 : 1;
  return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/* What held the memory at @t, by the stack that allocated it. */
static void
add_held (KsSelectionPage           *self,
          const KsMemoryBlocks      *blocks,
          const KsMemoryBlockDevice *dev,
          gint64                     t)
{
  g_autoptr(KsMemoryLayout) layout = ks_memory_blocks_layout_at (dev, t);
  g_autoptr(GHashTable) by_stack = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  g_autoptr(GArray) held = g_array_new (FALSE, FALSE, sizeof (Held));
  GHashTableIter it;
  Held *h;

  for (guint i = 0; i < layout->pieces->len; i++)
    {
      const KsMemoryPiece *p = &g_array_index (layout->pieces, KsMemoryPiece, i);
      const KsMemoryBlock *b;

      if (p->block == KS_NO_INDEX)
        continue;
      b = &g_array_index (dev->blocks, KsMemoryBlock, p->block);
      h = g_hash_table_lookup (by_stack, GUINT_TO_POINTER (b->stack));
      if (h == NULL)
        {
          h = g_new0 (Held, 1);
          h->stack = b->stack;
          g_hash_table_insert (by_stack, GUINT_TO_POINTER (b->stack), h);
        }
      h->bytes += b->size;
      h->blocks++;
    }
  g_hash_table_iter_init (&it, by_stack);
  while (g_hash_table_iter_next (&it, NULL, (gpointer *) &h))
    g_array_append_val (held, *h);
  g_array_sort (held, compare_held);

  _ks_selection_page_begin_group (self, _("What Held the Memory, by Stack"));
  for (guint i = 0; i < MIN (held->len, TOP_STACKS); i++)
    {
      const Held *e = &g_array_index (held, Held, i);
      const KsMemsnapStack *stack = ks_memsnap_get_stack (blocks->snap, e->stack);
      g_autofree char *size = bytes (e->bytes);

      _ks_selection_page_add_row_take (self, stack != NULL ? stack->text : _("(no stack recorded)"),
                                       g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "%s in %u block",
                                                                     "%s in %u blocks", e->blocks),
                                                        size, e->blocks));
    }
}

static void
add_oom (KsSelectionPage *self,
         yajl_val         args)
{
  gint64 request = ks_json_get_int (args, "request_bytes", 0);
  gint64 device_free = ks_json_get_int (args, "device_free_bytes", -1);
  gint64 free_bytes = ks_json_get_int (args, "free_bytes", 0);
  gboolean fragmentation = g_strcmp0 (ks_json_get_string (args, "cause"), "fragmentation") == 0;
  g_autofree char *req = bytes (request);
  g_autofree char *fb = bytes (free_bytes);

  _ks_selection_page_begin_group (self, _("Out of Memory"));
  _ks_selection_page_add_row (self, _("Requested"), req);
  _ks_selection_page_add_row_take (self, _("Device free memory"),
                                   device_free >= 0 ? bytes (device_free) : g_strdup (_("Unknown")));
  _ks_selection_page_add_row (self, _("Free inside segments"), fb);
  _ks_selection_page_add_row_take (self, _("Largest free block"),
                                   bytes (ks_json_get_int (args, "largest_free_bytes", 0)));
  _ks_selection_page_add_row_take (self, _("Reserved"), bytes (ks_json_get_int (args, "reserved_bytes", 0)));
  _ks_selection_page_add_row_take (self, _("Allocated"), bytes (ks_json_get_int (args, "allocated_bytes", 0)));
  /* Translators: the cause of an out-of-memory error */
  _ks_selection_page_add_row (self, _("Cause"), fragmentation ? _("Fragmentation") : _("Demand"));
  if (fragmentation)
    _ks_selection_page_add_row_take (self, _("Advice"),
                                     g_strdup_printf (_("%s was free inside the allocator's segments, but no free "
                                                        "block held %s: the memory is fragmented. Try "
                                                        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True."),
                                                      fb, req));
  else
    _ks_selection_page_add_row_take (self, _("Advice"),
                                     g_strdup_printf (_("The program asked for more than the device had: %s more. "
                                                        "Below is what held the memory, by the stack that "
                                                        "allocated it; free or shrink the largest."), req));
  add_frames_text (self, ks_json_get_string (args, "stack"));
}

static void
add_segment_event (KsSelectionPage *self,
                   const char      *name,
                   yajl_val         args)
{
  g_autofree char *size = bytes (ks_json_get_int (args, "bytes", 0));
  g_autofree char *reserved = bytes (ks_json_get_int (args, "reserved_bytes", 0));
  g_autofree char *addr = g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", ks_json_get_int (args, "address", 0));
  gboolean grows = g_str_has_prefix (name, "segment_alloc") || g_str_has_prefix (name, "segment_map");

  _ks_selection_page_begin_group (self, _("Segment Event"));
  _ks_selection_page_add_row_take (self, _("What it did"),
                                   grows
                                   ? g_strdup_printf (_("The allocator took %s more from the device (cudaMalloc) "
                                                        "at %s: none of its free blocks was large enough. "
                                                        "Reserved after: %s"), size, addr, reserved)
                                   : g_strdup_printf (_("The allocator gave %s at %s back to the device (cudaFree): "
                                                        "torch.cuda.empty_cache(), or a retry after an allocation "
                                                        "failed. Reserved after: %s"), size, addr, reserved));
  _ks_selection_page_add_row (self, _("Address"), addr);
  _ks_selection_page_add_row (self, _("Size"), size);
  _ks_selection_page_add_row (self, _("Reserved after"), reserved);
}

void
_ks_selection_page_add_instant (KsSelectionPage *self,
                                KsTrace         *trace,
                                guint32          instant)
{
  const KsInstant *in = &trace->instants[instant];
  const char *name = ks_trace_string (trace, in->name);
  const char *category = ks_trace_string (trace, in->category);
  const KsMemoryBlocks *blocks = ks_memory_blocks_get (trace);
  const KsMemoryBlockDevice *dev = NULL;
  g_autoptr(GString) scratch = g_string_new (NULL);
  const char *text = ks_trace_args (trace, in->args, scratch);
  yajl_val args = text != NULL ? ks_json_parse (text, NULL) : NULL;
  gboolean oom = g_str_equal (category, "oom");

  _ks_selection_page_add_heading (self, name);
  _ks_selection_page_begin_group (self, _("Event"));
  _ks_selection_page_add_row (self, _("Name"), name);
  _ks_selection_page_add_row (self, _("Category"), category);
  _ks_selection_page_add_row_take (self, _("Time"), ks_time_format_timestamp (in->ts));

  if (args != NULL && YAJL_IS_OBJECT (args) && (oom || g_str_equal (category, "segment")))
    {
      dev = find_device (blocks, ks_json_get_int (args, "device", -1));
      if (oom)
        add_oom (self, args);
      else
        add_segment_event (self, name, args);
    }
  else if (text != NULL)
    {
      _ks_selection_page_begin_group (self, _("Arguments"));
      _ks_selection_page_add_row (self, _("Raw"), text);
    }

  if (dev != NULL)
    {
      g_autofree char *when = ks_time_format_timestamp (in->ts);
      g_autofree char *title = g_strdup_printf (_("Allocator at %s"), when);

      if (oom && g_strcmp0 (ks_json_get_string (args, "cause"), "fragmentation") != 0)
        add_held (self, blocks, dev, in->ts);
      add_allocator_at (self, blocks, dev, title, in->ts, KS_NO_INDEX);
      add_peak (self, trace, blocks, dev);
    }
  yajl_tree_free (args);
}

void
_ks_selection_page_add_memory_block (KsSelectionPage *self,
                                     KsTrace         *trace,
                                     guint            device,
                                     guint32          block)
{
  const KsMemoryBlocks *blocks = ks_memory_blocks_get (trace);
  const KsMemoryBlockDevice *dev = &blocks->devices[device];
  const KsMemoryBlock *b = &g_array_index (dev->blocks, KsMemoryBlock, block);
  g_autofree char *size = bytes (b->size);
  g_autofree char *heading = g_strdup_printf (_("Block of %s"), size);
  g_autofree char *when = ks_time_format_timestamp (b->start);
  g_autofree char *title = g_strdup_printf (_("Allocator When It Was Allocated, %s"), when);

  _ks_selection_page_add_heading (self, heading);
  _ks_selection_page_begin_group (self, _("Memory Block"));
  _ks_selection_page_add_row (self, _("Size"), size);
  _ks_selection_page_add_row_take (self, _("Address"), g_strdup_printf ("0x%" G_GINT64_MODIFIER "x", b->addr));
  _ks_selection_page_add_row_take (self, _("Device"), g_strdup_printf (_("GPU %d"), dev->device));
  _ks_selection_page_add_row_take (self, _("Stream"), g_strdup_printf ("%d", b->stream));
  _ks_selection_page_add_row_take (self, _("Allocated at"), ks_time_format_timestamp (b->start));
  _ks_selection_page_add_row_take (self, _("Freed at"),
                                   b->freed ? ks_time_format_timestamp (b->end) : g_strdup (_("Never (live at the end)")));
  _ks_selection_page_add_row_take (self, _("Lifetime"), ks_time_format_duration (b->end - b->start));
  add_frames (self, ks_memsnap_get_stack (blocks->snap, b->stack));
  add_allocator_at (self, blocks, dev, title, b->start, block);
  add_peak (self, trace, blocks, dev);
}
