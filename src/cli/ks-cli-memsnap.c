/* ks-cli-memsnap.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>

#include "ks-cli.h"
#include "ks-cli-common.h"
#include "ks-cli-memsnap.h"
#include "ks-cli-table.h"
#include "ks-format.h"
#include "ks-memsnap.h"

typedef struct
{
  KsMemsnap       *snap;
  GPtrArray       *replays;      /* KsMemsnapReplay per device */
  KsReportFormat   format;
  guint            limit;
  GString         *out;
} Report;

static const char *
stack_text (Report  *r,
            guint32  stack)
{
  const KsMemsnapStack *s = ks_memsnap_get_stack (r->snap, stack);

  return s != NULL ? s->text : "";
}

static void
json_state (KsJsonWriter         *json,
            const KsMemsnapState *s)
{
  ks_json_int (json, "segments", s->segments);
  ks_json_int (json, "reserved_bytes", s->reserved_bytes);
  ks_json_int (json, "allocated_bytes", s->allocated_bytes);
  ks_json_int (json, "active_blocks", s->active_blocks);
  ks_json_int (json, "inactive_blocks", s->inactive_blocks);
  ks_json_int (json, "largest_free_bytes", s->largest_free_bytes);
  ks_json_int (json, "free_bytes", s->free_bytes);
}

static void
json_frames (KsJsonWriter *json,
             Report       *r,
             guint32       stack)
{
  const KsMemsnapStack *s = ks_memsnap_get_stack (r->snap, stack);

  ks_json_begin_array (json, "frames");
  for (guint i = 0; s != NULL && i < s->n_frames; i++)
    {
      ks_json_begin_object (json, NULL);
      ks_json_string (json, "name", s->frames[i].name);
      ks_json_string (json, "filename", s->frames[i].file);
      ks_json_int (json, "line", s->frames[i].line);
      ks_json_end_object (json);
    }
  ks_json_end_array (json);
}

static void
json_groups (KsJsonWriter *json,
             Report       *r,
             const char   *key,
             GArray       *groups)
{
  guint n = r->limit > 0 ? MIN (r->limit, groups->len) : groups->len;

  ks_json_begin_array (json, key);
  for (guint i = 0; i < n; i++)
    {
      const KsMemsnapGroup *g = &g_array_index (groups, KsMemsnapGroup, i);

      ks_json_begin_object (json, NULL);
      ks_json_string (json, "stack", stack_text (r, g->stack));
      ks_json_int (json, "bytes", g->bytes);
      ks_json_int (json, "blocks", g->blocks);
      json_frames (json, r, g->stack);
      ks_json_end_object (json);
    }
  ks_json_end_array (json);
}

static void
write_json (Report *r)
{
  g_autoptr(KsJsonWriter) json = ks_json_writer_new ();

  ks_json_begin_object (json, NULL);
  ks_json_int (json, "trace_entries", ks_memsnap_get_n_entries (r->snap));
  ks_json_string (json, "allocator_settings", ks_memsnap_get_settings (r->snap));
  ks_json_begin_array (json, "devices");
  for (guint d = 0; d < ks_memsnap_get_n_devices (r->snap); d++)
    {
      const KsMemsnapDevice *dev = ks_memsnap_get_device (r->snap, d);
      KsMemsnapState s;

      ks_memsnap_device_end_state (dev, &s);
      ks_json_begin_object (json, NULL);
      ks_json_int (json, "device", dev->device);
      json_state (json, &s);
      ks_json_end_object (json);
    }
  ks_json_end_array (json);

  ks_json_begin_array (json, "peak");
  for (guint d = 0; d < r->replays->len; d++)
    {
      KsMemsnapReplay *rp = g_ptr_array_index (r->replays, d);

      ks_json_begin_object (json, NULL);
      ks_json_int (json, "device", rp->device);
      ks_json_int (json, "allocated_bytes", rp->peak_allocated);
      ks_json_int (json, "time_us", rp->peak_time_us);
      json_groups (json, r, "by_stack", rp->peak_groups);
      ks_json_end_object (json);
    }
  ks_json_end_array (json);

  ks_json_begin_array (json, "never_freed");
  for (guint d = 0; d < r->replays->len; d++)
    {
      KsMemsnapReplay *rp = g_ptr_array_index (r->replays, d);

      ks_json_begin_object (json, NULL);
      ks_json_int (json, "device", rp->device);
      json_groups (json, r, "by_stack", rp->end_groups);
      ks_json_end_object (json);
    }
  ks_json_end_array (json);

  ks_json_begin_array (json, "ooms");
  for (guint d = 0; d < r->replays->len; d++)
    {
      KsMemsnapReplay *rp = g_ptr_array_index (r->replays, d);

      for (guint i = 0; i < rp->ooms->len; i++)
        {
          const KsMemsnapOom *o = &g_array_index (rp->ooms, KsMemsnapOom, i);

          ks_json_begin_object (json, NULL);
          ks_json_int (json, "device", o->device);
          ks_json_int (json, "request_bytes", o->request_bytes);
          ks_json_int (json, "free_bytes", o->device_free_bytes);
          ks_json_int (json, "largest_free_bytes", o->state.largest_free_bytes);
          ks_json_int (json, "allocator_free_bytes", o->state.free_bytes);
          ks_json_int (json, "reserved_bytes", o->state.reserved_bytes);
          ks_json_int (json, "allocated_bytes", o->state.allocated_bytes);
          ks_json_int (json, "time_us", o->time_us);
          ks_json_string (json, "cause", o->fragmentation ? "fragmentation" : "demand");
          json_frames (json, r, o->stack);
          ks_json_end_object (json);
        }
    }
  ks_json_end_array (json);
  ks_cli_json_finish (r->out, json);
}

static void
cell (Report     *r,
      const char *text,
      int         width,
      gboolean    right)
{
  if (r->format == KS_REPORT_CSV)
    {
      if (r->out->len > 0 && r->out->str[r->out->len - 1] != '\n')
        g_string_append_c (r->out, ',');
      ks_cli_csv_escape (r->out, text);
    }
  else if (width == 0)
    ks_cli_append_text (r->out, text, -1, KS_CLI_TEXT_ONE_LINE); /* the last column: whole */
  else
    ks_cli_table_cell (r->out, text, width, right);
}

static void
end_row (Report *r)
{
  if (r->format == KS_REPORT_CSV)
    g_string_append_c (r->out, '\n');
  else
    ks_cli_table_end_row (r->out);
}

static void
bytes_cell (Report *r,
            gint64  bytes,
            int     width)
{
  g_autofree char *text = r->format == KS_REPORT_CSV ? g_strdup_printf ("%" G_GINT64_FORMAT, bytes)
                                                      : ks_format_bytes (MAX (bytes, 0));

  cell (r, text, width, TRUE);
}

static void
int_cell (Report *r,
          gint64  n,
          int     width)
{
  g_autofree char *text = g_strdup_printf ("%" G_GINT64_FORMAT, n);

  cell (r, text, width, TRUE);
}

static void
section (Report     *r,
         const char *title)
{
  if (r->out->len > 0)
    g_string_append_c (r->out, '\n');
  if (r->format == KS_REPORT_TABLE)
    g_string_append_printf (r->out, "%s\n", title);
}

static void
write_groups (Report     *r,
              gint        device,
              GArray     *groups)
{
  guint n = r->limit > 0 ? MIN (r->limit, groups->len) : (r->format == KS_REPORT_TABLE ? MIN (10, groups->len) : groups->len);

  for (guint i = 0; i < n; i++)
    {
      const KsMemsnapGroup *g = &g_array_index (groups, KsMemsnapGroup, i);

      int_cell (r, device, 6);
      bytes_cell (r, g->bytes, 11);
      int_cell (r, g->blocks, 6);
      cell (r, g->stack == KS_MEMSNAP_NO_STACK ? _("(no stack recorded)") : stack_text (r, g->stack), 0, FALSE);
      end_row (r);
    }
}

static void
write_text (Report *r)
{
  section (r, _("Allocator at the end of the snapshot"));
  cell (r, _("Device"), 6, TRUE); cell (r, _("Segments"), 8, TRUE); cell (r, _("Reserved"), 11, TRUE);
  cell (r, _("Allocated"), 11, TRUE); cell (r, _("Active blocks"), 13, TRUE);
  cell (r, _("Free holes"), 10, TRUE); cell (r, _("Free"), 11, TRUE); cell (r, _("Largest free"), 12, TRUE);
  end_row (r);
  for (guint d = 0; d < ks_memsnap_get_n_devices (r->snap); d++)
    {
      const KsMemsnapDevice *dev = ks_memsnap_get_device (r->snap, d);
      KsMemsnapState s;

      ks_memsnap_device_end_state (dev, &s);
      int_cell (r, dev->device, 6); int_cell (r, s.segments, 8); bytes_cell (r, s.reserved_bytes, 11);
      bytes_cell (r, s.allocated_bytes, 11); int_cell (r, s.active_blocks, 13);
      int_cell (r, s.inactive_blocks, 10); bytes_cell (r, s.free_bytes, 11); bytes_cell (r, s.largest_free_bytes, 12);
      end_row (r);
    }

  section (r, _("Live at the peak, by Python stack"));
  cell (r, _("Device"), 6, TRUE); cell (r, _("Bytes"), 11, TRUE); cell (r, _("Blocks"), 6, TRUE);
  cell (r, _("Stack"), 0, FALSE); end_row (r);
  for (guint d = 0; d < r->replays->len; d++)
    {
      KsMemsnapReplay *rp = g_ptr_array_index (r->replays, d);

      write_groups (r, rp->device, rp->peak_groups);
    }

  section (r, _("Never freed (live at the end), by Python stack"));
  cell (r, _("Device"), 6, TRUE); cell (r, _("Bytes"), 11, TRUE); cell (r, _("Blocks"), 6, TRUE);
  cell (r, _("Stack"), 0, FALSE); end_row (r);
  for (guint d = 0; d < r->replays->len; d++)
    {
      KsMemsnapReplay *rp = g_ptr_array_index (r->replays, d);

      write_groups (r, rp->device, rp->end_groups);
    }

  section (r, _("Out-of-memory errors"));
  cell (r, _("Device"), 6, TRUE); cell (r, _("Requested"), 11, TRUE); cell (r, _("Device free"), 11, TRUE);
  cell (r, _("Allocator free"), 14, TRUE); cell (r, _("Largest free"), 12, TRUE); cell (r, _("Cause"), 13, FALSE);
  cell (r, _("Stack"), 0, FALSE); end_row (r);
  for (guint d = 0; d < r->replays->len; d++)
    {
      KsMemsnapReplay *rp = g_ptr_array_index (r->replays, d);

      for (guint i = 0; i < rp->ooms->len; i++)
        {
          const KsMemsnapOom *o = &g_array_index (rp->ooms, KsMemsnapOom, i);

          int_cell (r, o->device, 6); bytes_cell (r, o->request_bytes, 11); bytes_cell (r, o->device_free_bytes, 11);
          bytes_cell (r, o->state.free_bytes, 14); bytes_cell (r, o->state.largest_free_bytes, 12);
          /* Translators: the cause of an out-of-memory error: free memory
           * cut into holes too small, or more demand than memory */
          cell (r, o->fragmentation ? _("fragmentation") : _("demand"), 13, FALSE);
          cell (r, stack_text (r, o->stack), 0, FALSE);
          end_row (r);
          if (r->format == KS_REPORT_TABLE && o->fragmentation)
            g_string_append (r->out,
                             _("  Enough memory was free inside the allocator's segments, but no free block was large enough:\n"
                               "  the memory is fragmented. Try PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True.\n"));
        }
    }
}

int
ks_cli_stats_memory_snapshot (const char     *path,
                              KsReportFormat  format,
                              guint           limit)
{
  g_autoptr(GFile) file = g_file_new_for_commandline_arg (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsMemsnap) snap = ks_memsnap_load (file, NULL, &error);
  g_autoptr(GPtrArray) replays = NULL;
  g_autoptr(GString) out = g_string_new (NULL);
  Report r = { 0 };

  if (snap == NULL)
    {
      ks_cli_printerr ("kinescope-cli stats: %s\n", error->message);
      return KS_CLI_FAILED;
    }
  replays = g_ptr_array_new_with_free_func ((GDestroyNotify) ks_memsnap_replay_free);
  for (guint d = 0; d < ks_memsnap_get_n_devices (snap); d++)
    if (ks_memsnap_get_device (snap, d)->entries->len > 0 ||
        ks_memsnap_get_device (snap, d)->segments->len > 0)
      g_ptr_array_add (replays, ks_memsnap_replay (snap, d));
  r.snap = snap;
  r.replays = replays;
  r.format = format;
  r.limit = limit;
  r.out = out;
  if (format == KS_REPORT_JSON)
    write_json (&r);
  else
    write_text (&r);
  ks_cli_write (stdout, out->str);
  return KS_CLI_OK;
}
