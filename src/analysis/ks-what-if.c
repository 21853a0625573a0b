/* ks-what-if.c: the rules of a what-if on the critical path
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gi18n.h>

#include "ks-critical-path.h"

struct _KsWhatIf
{
  char   *text;
  GArray *rules;   /* KsWhatIfRule */
};

static const struct {
  const char     *prefix;
  KsWhatIfTarget  target;
  gboolean        glob;
} targets[] = {
  { "op:", KS_WHAT_IF_OP, TRUE },
  { "kernel:", KS_WHAT_IF_KERNEL, TRUE },
  { "copy=", KS_WHAT_IF_COPY, FALSE },
  { "launch=", KS_WHAT_IF_LAUNCH, FALSE },
  { "dataloader=", KS_WHAT_IF_DATALOADER, FALSE },
};

static gboolean
starts_rule (const char *p)
{
  while (*p == ' ')
    p++;
  for (guint i = 0; i < G_N_ELEMENTS (targets); i++)
    if (g_str_has_prefix (p, targets[i].prefix))
      return TRUE;
  return FALSE;
}

static void
clear_rule (gpointer data)
{
  KsWhatIfRule *rule = data;

  g_clear_pointer (&rule->glob, g_free);
}

/* One rule, @text stripped of surrounding spaces. */
static gboolean
parse_rule (KsWhatIf    *self,
            const char  *text,
            GError     **error)
{
  KsWhatIfRule rule = { 0 };
  const char *eq = strrchr (text, '=');
  const char *rest = NULL;
  char *end = NULL;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (targets); i++)
    if (g_str_has_prefix (text, targets[i].prefix))
      break;
  if (i == G_N_ELEMENTS (targets) || eq == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("what-if rule “%s”: expected op:GLOB=FACTOR, kernel:GLOB=FACTOR, copy=FACTOR, launch=FACTOR or dataloader=FACTOR"),
                   text);
      return FALSE;
    }
  rule.target = targets[i].target;
  rest = text + strlen (targets[i].prefix);
  if (targets[i].glob)
    {
      if (eq <= rest)
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                       _("what-if rule “%s”: the name pattern is empty"), text);
          return FALSE;
        }
      rule.glob = g_strndup (rest, eq - rest);
    }
  else if (eq != rest - 1)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("what-if rule “%s”: expected op:GLOB=FACTOR, kernel:GLOB=FACTOR, copy=FACTOR, launch=FACTOR or dataloader=FACTOR"),
                   text);
      return FALSE;
    }
  rule.factor = g_ascii_strtod (eq + 1, &end);
  if (end == eq + 1 || *end != '\0' || !isfinite (rule.factor) || rule.factor < 0 || rule.factor > 1e6)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("what-if rule “%s”: the factor must be a number of 0 or more (0 removes the work, 0.5 halves it)"),
                   text);
      g_free (rule.glob);
      return FALSE;
    }
  g_array_append_val (self->rules, rule);
  return TRUE;
}

KsWhatIf *
ks_what_if_parse (const char  *text,
                  GError     **error)
{
  g_autoptr(KsWhatIf) self = g_new0 (KsWhatIf, 1);
  const char *p = text;

  g_return_val_if_fail (text != NULL, NULL);

  self->text = g_strstrip (g_strdup (text));
  self->rules = g_array_new (FALSE, TRUE, sizeof (KsWhatIfRule));
  g_array_set_clear_func (self->rules, clear_rule);

  while (*p != '\0')
    {
      const char *q = p;
      g_autofree char *rule = NULL;

      /* A comma ends the rule only where the next one starts. */
      while (*q != '\0' && !(*q == ',' && starts_rule (q + 1)))
        q++;
      rule = g_strstrip (g_strndup (p, q - p));
      if (*rule != '\0' && !parse_rule (self, rule, error))
        return NULL;
      p = *q == ',' ? q + 1 : q;
    }
  if (self->rules->len == 0)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT,
                   _("what-if: no rule given (e.g. dataloader=0 or kernel:*gemm*=0.5)"));
      return NULL;
    }
  return g_steal_pointer (&self);
}

void
ks_what_if_free (KsWhatIf *self)
{
  if (self == NULL)
    return;
  g_free (self->text);
  g_clear_pointer (&self->rules, g_array_unref);
  g_free (self);
}

const char *
ks_what_if_get_text (const KsWhatIf *self)
{
  return self->text;
}

const KsWhatIfRule *
ks_what_if_get_rules (const KsWhatIf *self,
                      guint          *n_rules)
{
  *n_rules = self->rules->len;
  return (const KsWhatIfRule *)(gpointer)self->rules->data;
}
