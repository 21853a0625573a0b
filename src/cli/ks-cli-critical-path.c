/* ks-cli-critical-path.c: kinescope-cli stats --report critical-path
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-cli-stats"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "ks-cli.h"
#include "ks-cli-common.h"
#include "ks-cli-table.h"
#include "ks-critical-path.h"
#include "ks-format.h"

#define TOP_DEFAULT 10
#define NAME_WIDTH 44

/* A folder of ranks has each step once a rank. */
static gboolean
has_ranks (const KsPathStep *steps,
           guint             n)
{
  for (guint i = 0; i < n; i++)
    if (steps[i].rank >= 0)
      return TRUE;
  return FALSE;
}

static void
json_classes (KsJsonWriter *json,
              const gint64 *by_class)
{
  ks_json_begin_object (json, "by_class");
  for (guint k = 0; k < KS_N_PATH_CLASSES; k++)
    ks_json_int (json, ks_path_class_to_string (k), by_class[k]);
  ks_json_end_object (json);
}

static void
write_json (KsCriticalPath *path,
            guint           top,
            GString        *out)
{
  KsTrace *trace = ks_critical_path_get_trace (path);
  const KsWhatIf *what_if = ks_critical_path_get_what_if (path);
  g_autoptr(KsJsonWriter) json = ks_json_writer_new ();
  guint n;
  const KsPathStep *steps = ks_critical_path_get_steps (path, &n);

  ks_json_begin_object (json, NULL);
  ks_json_begin_array (json, "steps");
  for (guint i = 0; i < n; i++)
    {
      ks_json_begin_object (json, NULL);
      ks_json_string (json, "name", ks_trace_string (trace, steps[i].name));
      ks_json_int (json, "dur_ns", steps[i].dur_ns);
      ks_json_int (json, "path_ns", steps[i].path_ns);
      json_classes (json, steps[i].by_class);
      ks_json_begin_array (json, "top");
      for (guint k = 0; k < MIN (steps[i].n_items, top); k++)
        {
          ks_json_begin_object (json, NULL);
          ks_json_string (json, "name", ks_trace_string (trace, steps[i].items[k].name));
          ks_json_string (json, "class", ks_path_class_to_string (steps[i].items[k].klass));
          ks_json_int (json, "ns", steps[i].items[k].ns);
          ks_json_end_object (json);
        }
      ks_json_end_array (json);
      ks_json_end_object (json);
    }
  ks_json_end_array (json);
  if (what_if != NULL)
    {
      ks_json_begin_object (json, "what_if");
      ks_json_string (json, "rules", ks_what_if_get_text (what_if));
      ks_json_begin_array (json, "steps");
      for (guint i = 0; i < n; i++)
        {
          ks_json_begin_object (json, NULL);
          ks_json_string (json, "name", ks_trace_string (trace, steps[i].name));
          ks_json_int (json, "dur_ns", steps[i].dur_ns);
          ks_json_int (json, "predicted_ns", steps[i].predicted_ns);
          json_classes (json, steps[i].predicted_by_class);
          ks_json_end_object (json);
        }
      ks_json_end_array (json);
      ks_json_end_object (json);
    }
  ks_cli_json_finish (out, json);
}

static void
write_csv (KsCriticalPath *path,
           GString        *out)
{
  KsTrace *trace = ks_critical_path_get_trace (path);
  gboolean what_if = ks_critical_path_get_what_if (path) != NULL;
  guint n;
  const KsPathStep *steps = ks_critical_path_get_steps (path, &n);
  gboolean ranks = has_ranks (steps, n);

  g_string_append (out, ranks ? "rank,step,dur_ns,path_ns,set_by_rank,set_by_wait_ns" : "step,dur_ns,path_ns");
  for (guint k = 0; k < KS_N_PATH_CLASSES; k++)
    g_string_append_printf (out, ",%s_ns", ks_path_class_to_string (k));
  if (what_if)
    {
      g_string_append (out, ",predicted_ns");
      for (guint k = 0; k < KS_N_PATH_CLASSES; k++)
        g_string_append_printf (out, ",predicted_%s_ns", ks_path_class_to_string (k));
    }
  g_string_append_c (out, '\n');
  for (guint i = 0; i < n; i++)
    {
      if (ranks)
        g_string_append_printf (out, "%d,", steps[i].rank);
      ks_cli_csv_escape (out, ks_trace_string (trace, steps[i].name));
      g_string_append_printf (out, ",%" G_GINT64_FORMAT ",%" G_GINT64_FORMAT, steps[i].dur_ns, steps[i].path_ns);
      if (ranks)
        g_string_append_printf (out, ",%d,%" G_GINT64_FORMAT, steps[i].set_by_rank, steps[i].set_by_wait_ns);
      for (guint k = 0; k < KS_N_PATH_CLASSES; k++)
        g_string_append_printf (out, ",%" G_GINT64_FORMAT, steps[i].by_class[k]);
      if (what_if)
        {
          g_string_append_printf (out, ",%" G_GINT64_FORMAT, steps[i].predicted_ns);
          for (guint k = 0; k < KS_N_PATH_CLASSES; k++)
            g_string_append_printf (out, ",%" G_GINT64_FORMAT, steps[i].predicted_by_class[k]);
        }
      g_string_append_c (out, '\n');
    }
}

static int
compare_items (gconstpointer a,
               gconstpointer b)
{
  const KsPathItem *ia = a;
  const KsPathItem *ib = b;

  if (ia->ns != ib->ns)
    return ia->ns > ib->ns ? -1 : 1;
  return (ia->name > ib->name) - (ia->name < ib->name);
}

/* The items of every step's path summed by name and class. */
static GArray *
sum_items (const KsPathStep *steps,
           guint             n)
{
  g_autoptr(GHashTable) index = g_hash_table_new (NULL, NULL);
  GArray *items = g_array_new (FALSE, FALSE, sizeof (KsPathItem));

  for (guint i = 0; i < n; i++)
    for (guint k = 0; k < steps[i].n_items; k++)
      {
        const KsPathItem *it = &steps[i].items[k];
        gpointer key = GSIZE_TO_POINTER ((gsize)it->name << 8 | it->klass);
        guint idx = GPOINTER_TO_UINT (g_hash_table_lookup (index, key));

        if (idx == 0)
          {
            KsPathItem copy = *it;

            copy.ns = 0;
            g_array_append_val (items, copy);
            idx = items->len;
            g_hash_table_insert (index, key, GUINT_TO_POINTER (idx));
          }
        g_array_index (items, KsPathItem, idx - 1).ns += it->ns;
      }
  g_array_sort (items, compare_items);
  return items;
}

/* A trace without steps has one row, for the whole trace. */
static const char *
step_label (KsTrace          *trace,
            const KsPathStep *step)
{
  return step->name != 0 ? ks_trace_string (trace, step->name) : _("(whole trace)");
}

static void
percent_cell (GString *out,
              gint64   part,
              gint64   whole,
              int      width)
{
  g_autofree char *text = whole > 0 ? g_strdup_printf ("%.1f %%", 100.0 * part / whole) : g_strdup ("–");

  ks_cli_table_cell (out, text, width, TRUE);
}

static void
write_table (KsCriticalPath *path,
             guint           top,
             GString        *out)
{
  KsTrace *trace = ks_critical_path_get_trace (path);
  const KsWhatIf *what_if = ks_critical_path_get_what_if (path);
  guint n;
  const KsPathStep *steps = ks_critical_path_get_steps (path, &n);
  g_autoptr(GArray) items = NULL;
  gint64 dur = 0, path_ns = 0, predicted = 0;
  gint64 by_class[KS_N_PATH_CLASSES];
  gboolean ranks = has_ranks (steps, n);

  if (n == 0)
    {
      g_string_append_printf (out, "%s\n", _("No steps: the trace has no steps past warm-up, so it has no critical path."));
      return;
    }
  ks_critical_path_get_totals (path, &dur, &path_ns, &predicted, by_class, NULL);

  g_string_append_printf (out, ngettext ("Critical path of %u step: its share by class\n",
                                         "Critical path of %u steps: its share by class\n", n), n);
  if (ranks)
    ks_cli_table_cell (out, _("Rank"), 5, TRUE);
  ks_cli_table_cell (out, _("Step"), 20, FALSE);
  ks_cli_table_cell (out, _("Duration"), 10, TRUE);
  ks_cli_table_cell (out, _("Path"), 10, TRUE);
  if (ranks)
    ks_cli_table_cell (out, _("Set by"), 7, TRUE);
  for (guint k = 0; k < KS_N_PATH_CLASSES; k++)
    ks_cli_table_cell (out, ks_path_class_to_string (k), 11, TRUE);
  ks_cli_table_end_row (out);
  for (guint i = 0; i < n; i++)
    {
      g_autofree char *d = ks_time_format_duration (steps[i].dur_ns);
      g_autofree char *p = ks_time_format_duration (steps[i].path_ns);
      g_autofree char *r = g_strdup_printf ("%d", steps[i].rank);

      if (ranks)
        ks_cli_table_cell (out, r, 5, TRUE);
      ks_cli_table_cell (out, step_label (trace, &steps[i]), 20, FALSE);
      g_autofree char *set_by = g_strdup_printf ("%d", steps[i].set_by_rank);

      ks_cli_table_cell (out, d, 10, TRUE);
      ks_cli_table_cell (out, p, 10, TRUE);
      if (ranks)
        ks_cli_table_cell (out, set_by, 7, TRUE);
      for (guint k = 0; k < KS_N_PATH_CLASSES; k++)
        percent_cell (out, steps[i].by_class[k], steps[i].path_ns, 11);
      ks_cli_table_end_row (out);
    }

  items = sum_items (steps, n);
  g_string_append_printf (out, "\n%s\n", _("Longest on the path, over these steps:"));
  ks_cli_table_cell (out, _("Name"), NAME_WIDTH, FALSE);
  ks_cli_table_cell (out, _("Class"), 11, FALSE);
  ks_cli_table_cell (out, _("Time"), 10, TRUE);
  ks_cli_table_cell (out, _("Of path"), 9, TRUE);
  ks_cli_table_end_row (out);
  for (guint i = 0; i < MIN (items->len, top); i++)
    {
      const KsPathItem *it = &g_array_index (items, KsPathItem, i);
      g_autofree char *t = ks_time_format_duration (it->ns);

      ks_cli_table_cell (out, ks_trace_string (trace, it->name), NAME_WIDTH, FALSE);
      ks_cli_table_cell (out, ks_path_class_to_string (it->klass), 11, FALSE);
      ks_cli_table_cell (out, t, 10, TRUE);
      percent_cell (out, it->ns, path_ns, 9);
      ks_cli_table_end_row (out);
    }

  if (what_if != NULL)
    {
      g_autofree char *before = ks_time_format_duration (dur / n);
      g_autofree char *after = ks_time_format_duration (predicted / n);

      g_string_append_printf (out, "\n%s ", _("What if"));
      ks_cli_append_text (out, ks_what_if_get_text (what_if), -1, KS_CLI_TEXT_ONE_LINE);
      g_string_append_printf (out, _(": steps would take %s instead of %s on average\n"), after, before);
      if (ranks)
        ks_cli_table_cell (out, _("Rank"), 5, TRUE);
      ks_cli_table_cell (out, _("Step"), 20, FALSE);
      ks_cli_table_cell (out, _("Duration"), 10, TRUE);
      ks_cli_table_cell (out, _("Predicted"), 10, TRUE);
      ks_cli_table_cell (out, _("Change"), 9, TRUE);
      ks_cli_table_end_row (out);
      for (guint i = 0; i < n; i++)
        {
          g_autofree char *d = ks_time_format_duration (steps[i].dur_ns);
          g_autofree char *p = ks_time_format_duration (steps[i].predicted_ns);
          g_autofree char *c = steps[i].dur_ns > 0
                                 ? g_strdup_printf ("%+.1f %%", 100.0 * (steps[i].predicted_ns - steps[i].dur_ns) / steps[i].dur_ns)
                                 : g_strdup ("–");
          g_autofree char *r = g_strdup_printf ("%d", steps[i].rank);

          if (ranks)
            ks_cli_table_cell (out, r, 5, TRUE);
          ks_cli_table_cell (out, step_label (trace, &steps[i]), 20, FALSE);
          ks_cli_table_cell (out, d, 10, TRUE);
          ks_cli_table_cell (out, p, 10, TRUE);
          ks_cli_table_cell (out, c, 9, TRUE);
          ks_cli_table_end_row (out);
        }
    }
}

int
ks_cli_stats_critical_path (KsTrace        *trace,
                            KsAnalysis     *analysis,
                            KsReportFormat  format,
                            guint           limit,
                            const char     *file,
                            const char     *step_name,
                            const char     *what_if_text,
                            GString        *out)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(KsWhatIf) what_if = NULL;
  g_autoptr(KsCriticalPath) path = NULL;
  guint top = limit > 0 ? limit : TOP_DEFAULT;

  if (what_if_text != NULL)
    {
      what_if = ks_what_if_parse (what_if_text, &error);
      if (what_if == NULL)
        {
          ks_cli_printerr ("kinescope-cli stats: %s\n", error->message);
          return KS_CLI_USAGE;
        }
    }
  path = ks_critical_path_compute (trace, analysis, step_name, what_if, NULL, &error);
  if (path == NULL)
    {
      ks_cli_printerr ("kinescope-cli stats: %s: %s\n", file, error->message);
      return KS_CLI_FAILED;
    }
  if (format == KS_REPORT_JSON)
    write_json (path, top, out);
  else if (format == KS_REPORT_CSV)
    write_csv (path, out);
  else
    write_table (path, top, out);
  return KS_CLI_OK;
}
