/* ks-cli-diff-gate.c: the verdict of kinescope-cli diff --gate, and the
 * pull-request comment of --format markdown
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-cli-diff"

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ks-cli-common.h"
#include "ks-cli-diff-gate.h"
#include "ks-format.h"

/* Rows of each list in the comment: a review shows the largest only. */
#define MARKDOWN_TOP 3
/* Longer names are cut: a C++ kernel name can fill a screen. */
#define MARKDOWN_NAME_CHARS 80

void
ks_cli_diff_gate_json (KsJsonWriter *json,
                       const KsGate *gate)
{
  ks_json_begin_object (json, "gate");
  ks_json_string (json, "verdict", ks_gate_verdict_to_string (gate->verdict));
  ks_json_double (json, "threshold_pct", gate->threshold_pct, 2);
  if (gate->has_median)
    {
      ks_json_int (json, "median_base_ns", gate->median_ns[KS_COMPARE_BASE]);
      ks_json_int (json, "median_new_ns", gate->median_ns[KS_COMPARE_NEW]);
      ks_json_double (json, "change_pct", gate->change_pct, 3);
    }
  else
    {
      ks_json_null (json, "median_base_ns");
      ks_json_null (json, "median_new_ns");
      ks_json_null (json, "change_pct");
    }
  ks_json_double (json, "ci_low_pct", gate->has_interval ? gate->ci_low_pct : NAN, 3);
  ks_json_double (json, "ci_high_pct", gate->has_interval ? gate->ci_high_pct : NAN, 3);
  ks_json_begin_array (json, "reasons");
  for (guint i = 0; i < gate->reasons->len; i++)
    ks_json_string (json, NULL, g_ptr_array_index (gate->reasons, i));
  ks_json_end_array (json);
  ks_json_end_object (json);
}

/* "+1.20 ms", "−300 µs", "0 ns". */
static char *
signed_duration (double ns)
{
  g_autofree char *text = ks_time_format_duration (llround (fabs (ns)));

  return g_strconcat (ns > 0 ? "+" : ns < 0 ? "−" : "", text, NULL);
}

/* A name from a trace as inline code in a table cell: escaped, cut,
 * without the backquotes and bars that would end the code or the cell. */
static void
append_code (GString    *out,
             const char *name)
{
  g_autofree char *escaped = ks_cli_escape (name);
  glong len = g_utf8_strlen (escaped, -1);

  g_string_append_c (out, '`');
  for (const char *p = escaped; *p != '\0' && g_utf8_pointer_to_offset (escaped, p) < MARKDOWN_NAME_CHARS;
       p = g_utf8_next_char (p))
    {
      if (*p == '`')
        g_string_append_c (out, '\'');
      else if (*p == '|')
        g_string_append (out, "\\|");
      else
        g_string_append_len (out, p, g_utf8_next_char (p) - p);
    }
  if (len > MARKDOWN_NAME_CHARS)
    g_string_append (out, "…");
  g_string_append_c (out, '`');
}

static void
append_items (GString             *out,
              gboolean             kernels,
              const char          *title,
              const char          *column,
              const KsCompareItem *items,
              guint                n)
{
  guint shown = 0;

  g_string_append_printf (out, "\n**%s**\n\n", title);
  for (guint i = 0; i < n && shown < MARKDOWN_TOP; i++)
    {
      const KsCompareItem *item = &items[i];
      g_autofree char *base = ks_time_format_duration (llround (item->per_step_ns[KS_COMPARE_BASE]));
      g_autofree char *new_time = ks_time_format_duration (llround (item->per_step_ns[KS_COMPARE_NEW]));
      g_autofree char *change = signed_duration (item->change_ns);

      if (item->change_ns == 0)
        break;
      if (shown++ == 0)
        {
          g_string_append_printf (out, "| %s | %s | %s | %s |", column, _("Baseline"), _("New"), _("Change"));
          if (kernels)
            g_string_append_printf (out, " %s |", _("Matched by"));
          g_string_append_printf (out, "\n|---|---:|---:|---:|%s\n", kernels ? "---|" : "");
        }
      g_string_append (out, "| ");
      append_code (out, item->name);
      if (item->other_name != NULL)
        {
          g_string_append (out, " → ");
          append_code (out, item->other_name);
        }
      g_string_append_printf (out, " | %s | %s | %s |", base, new_time, change);
      if (kernels)
        g_string_append_printf (out, " %s |", ks_compare_item_get_match_title (item));
      g_string_append_c (out, '\n');
    }
  if (shown == 0)
    g_string_append_printf (out, "%s\n", _("No change."));
}

static void
append_advice (GString    *out,
               KsCompare  *compare,
               gboolean    added)
{
  guint side = added ? KS_COMPARE_NEW : KS_COMPARE_BASE;
  guint n_all, n;
  const KsAdvice *all = ks_analysis_get_advice (ks_compare_get_analysis (compare, side), &n_all);
  const guint *rows = ks_compare_get_advice (compare, added, &n);

  g_string_append_printf (out, "\n**%s**", added ? _("Advice added") : _("Advice removed"));
  if (n == 0)
    {
      g_string_append_printf (out, " %s\n", _("none"));
      return;
    }
  g_string_append (out, "\n\n");
  for (guint i = 0; i < n; i++)
    {
      const KsAdvice *a = &all[rows[i]];
      g_autofree char *title = ks_cli_escape (a->title);

      g_string_append_printf (out, "- %s", title);
      if (a->device >= 0)
        g_string_append_printf (out, _(" (GPU %d)"), a->device);
      g_string_append_printf (out, " `%s`\n", a->rule);
    }
}

void
ks_cli_diff_markdown (GString      *out,
                      KsCompare    *compare,
                      const KsGate *gate,
                      gboolean      with_verdict,
                      gboolean      by_shape)
{
  const KsCompareItem *items;
  guint n;

  g_string_append_printf (out, "### %s\n\n", _("Kinescope: step time"));
  if (with_verdict)
    {
      g_autofree char *verdict = ks_gate_format_verdict (gate);

      g_string_append_printf (out, "%s\n\n", verdict);
    }

  g_string_append_printf (out, "| | %s | %s | %s |\n|---|---:|---:|---:|\n", _("Baseline"), _("New"), _("Change"));
  g_string_append_printf (out, "| %s | %u | %u | |\n", _("Steady-state steps"),
                          gate->n_steps[KS_COMPARE_BASE], gate->n_steps[KS_COMPARE_NEW]);
  if (gate->has_median)
    {
      g_autofree char *base = ks_time_format_duration (gate->median_ns[KS_COMPARE_BASE]);
      g_autofree char *new_median = ks_time_format_duration (gate->median_ns[KS_COMPARE_NEW]);
      g_autofree char *change = signed_duration (gate->median_ns[KS_COMPARE_NEW] - gate->median_ns[KS_COMPARE_BASE]);

      g_autofree char *pct = ks_gate_format_pct (gate->change_pct);

      g_string_append_printf (out, "| %s | %s | %s | %s (%s) |\n", _("Step time, median"),
                              base, new_median, change, pct);
    }
  if (gate->has_interval)
    {
      g_autofree char *low = ks_gate_format_pct (gate->ci_low_pct);
      g_autofree char *high = ks_gate_format_pct (gate->ci_high_pct);

      g_string_append_printf (out, "| %s | | | %s … %s |\n", _("Interval of the change, 95 %"), low, high);
    }
  if (!with_verdict && gate->reasons->len > 0)
    for (guint i = 0; i < gate->reasons->len; i++)
      g_string_append_printf (out, "\n> %s", (const char *)g_ptr_array_index (gate->reasons, i));
  if (!with_verdict && gate->reasons->len > 0)
    g_string_append_c (out, '\n');

  items = ks_compare_get_kernels (compare, &n);
  append_items (out, TRUE, _("Largest kernel changes, per step"), _("Kernel"), items, n);
  items = ks_compare_get_operators (compare, by_shape ? KS_OPERATOR_BY_NAME_AND_SHAPE : KS_OPERATOR_BY_NAME, &n);
  append_items (out, FALSE, _("Largest operator changes, device time per step"), _("Operator"), items, n);
  append_advice (out, compare, TRUE);
  append_advice (out, compare, FALSE);
}
