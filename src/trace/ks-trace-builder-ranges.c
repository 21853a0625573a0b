/* ks-trace-builder-ranges.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-trace-builder"

/* Begin/end pairing. A reader opens ranges on a stack of its choosing
 * (the JSON reader's B events on their thread, the SQLite reader's
 * unclosed NVTX ranges all on one) and ends the innermost; whatever is
 * still open when the reader's input ends lasts to the end of the trace. */

#include "config.h"

#include <string.h>

#include "ks-trace-builder-private.h"

static void
open_range_clear (gpointer data)
{
  KsOpenRange *o = data;

  g_clear_pointer (&o->args_text, g_free);
}

static GArray *
range_stack (KsTraceBuilder *self,
             guint32         stack,
             gboolean        create)
{
  GArray *ranges;

  if (stack >= self->open_ranges->len)
    {
      if (!create)
        return NULL;
      g_ptr_array_set_size (self->open_ranges, stack + 1);
    }
  ranges = g_ptr_array_index (self->open_ranges, stack);
  if (ranges == NULL && create)
    {
      ranges = g_array_new (FALSE, FALSE, sizeof (KsOpenRange));
      g_array_set_clear_func (ranges, open_range_clear);
      g_ptr_array_index (self->open_ranges, stack) = ranges;
    }
  return ranges;
}

/* The args of a closed range: the union of the begin's and the end's
 * objects (Chrome merges them), interned now. Args the begin had interned
 * already are decoded to be merged, and encoded again. */
static guint32
range_args (KsTraceBuilder *self,
            KsOpenRange    *o,
            const char     *end_text)
{
  g_autofree char *begin = g_steal_pointer (&o->args_text);
  g_autofree char *merged = NULL;
  const char *text;

  if (begin == NULL && end_text == NULL)
    return o->args;
  if (begin == NULL && o->args != 0)
    {
      GString *decoded = g_string_new (NULL);

      _ks_builder_args_barrier (self);
      ks_args_store_append (self->args, o->args, decoded);
      begin = g_string_free (decoded, FALSE);
    }
  if (begin != NULL && end_text != NULL)
    text = merged = g_strdup_printf ("%.*s,%s", (int) strlen (begin) - 1, begin, end_text + 1);
  else
    text = begin != NULL ? begin : end_text;
  return ks_trace_builder_add_args (self, text, strlen (text));
}

guint
ks_trace_builder_get_n_open_ranges (KsTraceBuilder *self,
                                    guint32         stack)
{
  GArray *ranges = range_stack (self, stack, FALSE);

  return ranges != NULL ? ranges->len : 0;
}

void
ks_trace_builder_begin_range (KsTraceBuilder *self,
                              guint32         stack,
                              KsOpenRange    *range)
{
  GArray *ranges = range_stack (self, stack, TRUE);

  g_array_append_val (ranges, *range);
  range->args_text = NULL;
}

gboolean
ks_trace_builder_end_range (KsTraceBuilder *self,
                            guint32         stack,
                            gint64          end,
                            char           *end_args_text)
{
  return ks_trace_builder_end_range_thread_time (self, stack, end, end_args_text, G_MININT64);
}

gboolean
ks_trace_builder_end_range_thread_time (KsTraceBuilder *self,
                                        guint32         stack,
                                        gint64          end,
                                        char           *end_args_text,
                                        gint64          end_thread_time)
{
  g_autofree char *end_text = end_args_text;
  GArray *ranges = range_stack (self, stack, FALSE);
  KsOpenRange *o;

  if (ranges == NULL || ranges->len == 0)
    return FALSE;
  o = &g_array_index (ranges, KsOpenRange, ranges->len - 1);
  ks_trace_builder_add_slice (self, o->track, o->start, end, o->kind, o->name, o->category,
                              o->correlation, o->external_id, range_args (self, o, end_text), NULL);
  if (o->has_thread_start)
    ks_trace_builder_add_thread_time (self, o->track, o->start, end, o->thread_start,
                                      end_thread_time != G_MININT64 && end_thread_time >= o->thread_start
                                        ? end_thread_time - o->thread_start : -1);
  g_array_set_size (ranges, ranges->len - 1);
  /* Only open ranges cost memory: with a million threads, empty stacks
   * would cost as much as the rest of the model. */
  if (ranges->len == 0)
    g_clear_pointer (&g_ptr_array_index (self->open_ranges, stack), g_array_unref);
  return TRUE;
}

guint64
ks_trace_builder_close_open_ranges (KsTraceBuilder *self,
                                    gint64          end)
{
  guint64 n = 0;

  for (guint s = 0; s < self->open_ranges->len; s++)
    {
      GArray *ranges = g_ptr_array_index (self->open_ranges, s);

      if (ranges == NULL)
        continue;
      for (guint i = 0; i < ranges->len; i++)
        {
          KsOpenRange *o = &g_array_index (ranges, KsOpenRange, i);

          /* the end of the trace moves with a range that starts past it */
          end = MAX (end, o->start);
          ks_trace_builder_add_slice (self, o->track, o->start, end, o->kind, o->name,
                                      o->category, o->correlation, o->external_id,
                                      range_args (self, o, NULL), NULL);
          n++;
        }
    }
  g_ptr_array_set_size (self->open_ranges, 0);
  return n;
}
