/* ks-cli-common.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-cli-common"

#include "config.h"

#include <string.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gi18n.h>

#include "ks-cli.h"
#include "ks-cli-common.h"
#include "ks-trace-loader.h"

/* What an nvidia-smi log cannot say of itself; one process, one parse. */
static double load_interval;
static char *load_columns;

void
ks_cli_add_load_options (GOptionContext *context)
{
  static const GOptionEntry entries[] = {
    { "interval", 0, 0, G_OPTION_ARG_DOUBLE, &load_interval,
      N_("Seconds between the samples of an nvidia-smi log without times (default 1, as -l 1)"), N_("SECONDS") },
    { "columns", 0, 0, G_OPTION_ARG_STRING, &load_columns,
      N_("The --query-gpu columns of an nvidia-smi csv log without its header line"), N_("LIST") },
    { NULL }
  };

  /* in the main group: --help lists them with the command's own */
  g_option_context_add_main_entries (context, entries, GETTEXT_PACKAGE);
}

/* Running out of memory. The loaders allocate what can be large with
 * g_try_malloc() and fail the load with "not enough memory"; anywhere
 * else GLib aborts when an allocation fails (under ulimit -v, say).
 * That abort is turned into the same message and exit status, made
 * beforehand, since the handler must not allocate. */
static GMutex  oom_lock;
static char   *oom_message;   /* atomic */
static guint   oom_loads;     /* loads under way, under oom_lock */

static void
set_oom_message (const char *name)
{
  GString *text = g_string_new (NULL);
  char *old;

  g_string_append_printf (text, "%s: ", g_get_prgname () != NULL ? g_get_prgname () : "kinescope-cli");
  if (name != NULL)
    {
      ks_cli_append_text (text, name, -1, KS_CLI_TEXT_ONE_LINE);
      g_string_append_printf (text, ": %s\n", _("not enough memory to read the trace"));
    }
  else
    g_string_append_printf (text, "%s\n", _("not enough memory"));
  old = g_atomic_pointer_exchange (&oom_message, g_string_free (text, FALSE));
  g_free (old);
}

static void
oom_handler (const char     *log_domain,
             GLogLevelFlags  level,
             const char     *message,
             gpointer        user_data)
{
  const char *text = g_atomic_pointer_get (&oom_message);

  if (text != NULL && message != NULL && strstr (message, "failed to allocate") != NULL)
    {
      G_GNUC_UNUSED gssize written = write (STDERR_FILENO, text, strlen (text));

      _exit (KS_CLI_FAILED);
    }
  g_log_default_handler (log_domain, level, message, user_data);
}

void
ks_cli_catch_out_of_memory (void)
{
  set_oom_message (NULL);
  g_log_set_handler ("GLib", G_LOG_LEVEL_ERROR | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION, oom_handler, NULL);
}

KsTrace *
ks_cli_load_file (GFile   *file,
                  GError **error)
{
  KsTraceLoadOptions options = { load_interval, load_columns };
  g_autofree char *name = g_file_get_parse_name (file);
  KsTrace *trace;

  /* the file is named while it is the only one being read */
  g_mutex_lock (&oom_lock);
  set_oom_message (oom_loads++ == 0 ? name : NULL);
  g_mutex_unlock (&oom_lock);
  trace = ks_trace_load_with_options (file, &options, NULL, NULL, error);
  g_mutex_lock (&oom_lock);
  oom_loads--;
  set_oom_message (NULL);
  g_mutex_unlock (&oom_lock);
  return trace;
}

KsTrace *
ks_cli_load_trace (const char *command,
                   const char *arg)
{
  g_autoptr(GFile) file = g_file_new_for_commandline_arg (arg);
  g_autoptr(GError) error = NULL;
  KsTrace *trace;

  trace = ks_cli_load_file (file, &error);
  if (trace == NULL)
    ks_cli_printerr ("kinescope-cli %s: %s\n", command, error->message);
  return trace;
}

gboolean
ks_cli_parse_choice (const char         *command,
                     const char         *option,
                     const char         *value,
                     const char * const *choices,
                     guint              *index)
{
  g_autofree char *list = NULL;

  if (value == NULL)
    return TRUE;
  for (guint i = 0; choices[i] != NULL; i++)
    if (strcmp (value, choices[i]) == 0)
      {
        *index = i;
        return TRUE;
      }
  list = g_strjoinv (", ", (char **)choices);
  ks_cli_printerr (_("kinescope-cli %s: unknown value “%s” of %s (%s)\n"), command, value, option, list);
  return FALSE;
}

KsTrace *
ks_cli_load_traces (const char         *command,
                    const char * const *args)
{
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GError) error = NULL;
  KsTrace *trace;

  /* one file takes the loading options (an nvidia-smi log's --interval) */
  if (args[0] != NULL && args[1] == NULL)
    return ks_cli_load_trace (command, args[0]);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (files, g_file_new_for_commandline_arg (args[i]));
  trace = ks_trace_load_files ((GFile **)files->pdata, files->len, NULL, NULL, &error);
  if (trace == NULL)
    ks_cli_printerr ("kinescope-cli %s: %s\n", command, error->message);
  return trace;
}

void
ks_cli_append_text (GString        *out,
                    const char     *s,
                    gssize          len,
                    KsCliTextFlags  flags)
{
  const char *p = s;
  const char *end;

  if (s == NULL)
    return;
  end = s + (len < 0 ? strlen (s) : (gsize)len);

  while (p < end)
    {
      const char *run = p;
      gunichar c;

      /* Plain text goes in one piece. */
      while (p < end && (guchar)*p >= 0x20 && (guchar)*p < 0x7f)
        p++;
      g_string_append_len (out, run, p - run);
      if (p == end)
        break;

      c = g_utf8_get_char_validated (p, end - p);
      if (c == (gunichar)-1 || c == (gunichar)-2)
        {
          g_string_append_printf (out, "\\x%02x", (guchar)*p);
          p++;
          continue;
        }
      if (c == '\n' && (flags & KS_CLI_TEXT_KEEP_NEWLINES))
        g_string_append_c (out, '\n');
      else if (c == '\n')
        g_string_append (out, "\\n");
      else if (c == '\r')
        g_string_append (out, "\\r");
      else if (c == '\t')
        g_string_append (out, "\\t");
      else if (c < 0x20 || c == 0x7f)
        g_string_append_printf (out, "\\x%02x", c);
      else if (c >= 0x80 && c <= 0x9f)
        g_string_append_printf (out, "\\u%04x", c);
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
      p = g_utf8_next_char (p);
    }
}

char *
ks_cli_escape (const char *s)
{
  GString *out = g_string_new (NULL);

  ks_cli_append_text (out, s, -1, KS_CLI_TEXT_ONE_LINE);
  return g_string_free (out, FALSE);
}

void
ks_cli_write (FILE       *stream,
              const char *text)
{
  g_autoptr(GString) out = g_string_sized_new (text ? strlen (text) : 0);

  ks_cli_append_text (out, text, -1, KS_CLI_TEXT_KEEP_NEWLINES);
  fwrite (out->str, 1, out->len, stream);
  fflush (stream);
}

static void G_GNUC_PRINTF (2, 0)
vprint (FILE       *stream,
        const char *format,
        va_list     ap)
{
  g_autofree char *text = g_strdup_vprintf (format, ap);

  ks_cli_write (stream, text);
}

void
ks_cli_print (const char *format,
              ...)
{
  va_list ap;

  va_start (ap, format);
  vprint (stdout, format, ap);
  va_end (ap);
}

void
ks_cli_printerr (const char *format,
                 ...)
{
  va_list ap;

  va_start (ap, format);
  vprint (stderr, format, ap);
  va_end (ap);
}
