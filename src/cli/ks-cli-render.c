/* ks-cli-render.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-cli-render"

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ks-cli.h"
#include "ks-cli-common.h"
#include "ks-render.h"
#include "ks-trace-loader.h"

#define MAX_SIDE 16384

static gboolean
parse_size (const char *text,
            int        *width,
            int        *height)
{
  char *end = NULL;
  gint64 w, h = 0;

  w = g_ascii_strtoll (text, &end, 10);
  if (end == text || (*end != 'x' && *end != 'X'))
    return FALSE;
  text = end + 1;
  /* "1600x" leaves the height to the number of rows. */
  if (*text != 0)
    {
      h = g_ascii_strtoll (text, &end, 10);
      if (end == text || *end != 0 || h < 64 || h > MAX_SIDE)
        return FALSE;
    }
  if (w < KS_HEADER_WIDTH + 64 || w > MAX_SIDE)
    return FALSE;

  *width = (int)w;
  *height = (int)h;
  return TRUE;
}

static gboolean
parse_range (const char *text,
             gint64     *start,
             gint64     *end)
{
  g_auto(GStrv) parts = g_strsplit (text, ":", 2);

  if (g_strv_length (parts) != 2)
    return FALSE;
  if (!ks_time_parse (parts[0], start) || !ks_time_parse (parts[1], end))
    return FALSE;
  return *end > *start;
}

int
ks_cli_render (int    argc,
               char **argv)
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsTimelineLayout) layout = NULL;
  g_autofree char *output = NULL;
  g_autofree char *range = NULL;
  g_autofree char *size = NULL;
  gboolean dark = FALSE;
  KsRenderOptions options;
  int width = 1600, height = 0;
  gint64 start = 0, end = 0;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, N_("Write the picture to FILE (PNG)"), N_("FILE") },
    { "range", 0, 0, G_OPTION_ARG_STRING, &range,
      N_("Draw only START:END, times from the trace start with a unit (ns, us, ms, s), e.g. 1.5ms:3ms"), N_("START:END") },
    { "size", 0, 0, G_OPTION_ARG_STRING, &size,
      N_("Picture size in pixels (default 1600x, where no height means tall enough for every row)"), N_("WxH") },
    { "dark", 0, 0, G_OPTION_ARG_NONE, &dark, N_("Use the dark style"), NULL },
    { NULL }
  };

  context = g_option_context_new (_("FILE — draw the timeline of a trace into a PNG"));
  g_option_context_set_summary (context,
                                _("Draws the same swimlanes as the application, offscreen: GPU streams, "
                                  "CPU threads, NVTX ranges and counters, with the time ruler."));
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
  ks_cli_add_load_options (context);
  if (!g_option_context_parse (context, &argc, &argv, &error))
    {
      ks_cli_printerr ("%s: %s\n", g_get_prgname (), error->message);
      return KS_CLI_USAGE;
    }
  /* a second file: the memory snapshot of the trace's run */
  if (argc != 2 && argc != 3)
    {
      ks_cli_printerr (_("%s: expected one FILE, or a trace and the memory snapshot of its run (see --help)\n"),
                       g_get_prgname ());
      return KS_CLI_USAGE;
    }
  if (output == NULL)
    {
      ks_cli_printerr (_("%s: an output file is needed: -o out.png\n"), g_get_prgname ());
      return KS_CLI_USAGE;
    }
  if (size != NULL && !parse_size (size, &width, &height))
    {
      ks_cli_printerr (_("%s: invalid size “%s” (expected WxH, e.g. 1600x900)\n"), g_get_prgname (), size);
      return KS_CLI_USAGE;
    }
  if (range != NULL && !parse_range (range, &start, &end))
    {
      ks_cli_printerr (_("%s: invalid range “%s” (expected START:END with START < END, e.g. 10ms:20ms)\n"),
                        g_get_prgname (), range);
      return KS_CLI_USAGE;
    }

  {
    const char *files[] = { argv[1], argc == 3 ? argv[2] : NULL, NULL };

    trace = ks_cli_load_traces ("render", files);
  }
  if (trace == NULL)
    return KS_CLI_FAILED;

  layout = ks_timeline_layout_new (trace);
  if (height == 0)
    height = CLAMP (KS_RULER_HEIGHT + ks_timeline_layout_get_height (layout), 64, MAX_SIDE);

  ks_render_options_init (&options, trace, width, height);
  options.dark = dark;
  if (range != NULL)
    {
      options.t0 = start;
      options.t1 = end;
    }

  if (!ks_render_png (layout, &options, output, &error))
    {
      ks_cli_printerr ("kinescope-cli render: %s\n", error->message);
      return KS_CLI_FAILED;
    }

  return KS_CLI_OK;
}
