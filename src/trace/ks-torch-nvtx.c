/* ks-torch-nvtx.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-torch-nvtx"

/* Decoding PyTorch's operator NVTX text into an operator: see
 * ks-torch-nvtx.h for the grammar. */

#include "config.h"

#include <errno.h>
#include <string.h>

#include "ks-torch-nvtx.h"

#define OP_ID " op_id = "
#define SEQ ", seq = "
#define SIZES ", sizes = "
#define INPUTS ", input_op_ids = "
/* deeper lists are not shapes */
#define MAX_NESTING 16

/* A decimal integer (optionally negative) at *p: moved past it. */
static gboolean
parse_int (const char **p,
           gint64      *value)
{
  const char *s = *p;
  char *end = NULL;
  gint64 v;

  if (!(g_ascii_isdigit (*s) || (*s == '-' && g_ascii_isdigit (s[1]))))
    return FALSE;
  errno = 0;
  v = g_ascii_strtoll (s, &end, 10);
  if (errno != 0 || end == s)
    return FALSE;
  *value = v;
  *p = end;
  return TRUE;
}

static gboolean
skip_spaces (const char **p)
{
  while (**p == ' ')
    (*p)++;
  return TRUE;
}

/* A list of integers or of such lists, "[[2, 3], [], [4]]", copied to
 * @out compactly. */
static gboolean
parse_shape (const char **p,
             GString     *out,
             guint        nesting,
             gboolean    *ran_out)
{
  const char *s = *p;

  if (*s == 0)
    *ran_out = TRUE;
  if (*s != '[' || nesting > MAX_NESTING)
    return FALSE;
  g_string_append_c (out, '[');
  s++;
  skip_spaces (&s);
  if (*s != ']')
    for (;;)
      {
        gint64 v;

        if (*s == '[')
          {
            if (!parse_shape (&s, out, nesting + 1, ran_out))
              return FALSE;
          }
        else if (parse_int (&s, &v))
          g_string_append_printf (out, "%" G_GINT64_FORMAT, v);
        else
          {
            *ran_out |= *s == 0 || (*s == '-' && s[1] == 0);
            return FALSE;
          }
        skip_spaces (&s);
        if (*s == ']')
          break;
        if (*s != ',')
          {
            *ran_out |= *s == 0;
            return FALSE;
          }
        g_string_append_c (out, ',');
        s++;
        skip_spaces (&s);
      }
  g_string_append_c (out, ']');
  *p = s + 1;
  return TRUE;
}

/* "[(12,0), (0,-1)]": how many pairs. */
static gboolean
parse_inputs (const char **p,
              guint       *n,
              gboolean    *ran_out)
{
  const char *s = *p;
  gboolean ok = FALSE;

  *n = 0;
  if (*s++ != '[')
    goto out;
  skip_spaces (&s);
  if (*s != ']')
    for (;;)
      {
        gint64 a, b;

        if (*s++ != '(' || !parse_int (&s, &a) || !skip_spaces (&s) || *s++ != ',' ||
            !skip_spaces (&s) || !parse_int (&s, &b) || *s++ != ')')
          goto out;
        (*n)++;
        skip_spaces (&s);
        if (*s == ']')
          break;
        if (*s++ != ',')
          goto out;
        skip_spaces (&s);
      }
  *p = s + 1;
  ok = TRUE;
out:
  /* the text ends inside the list (s may be one past its NUL) */
  if (!ok && (gsize) (s - *p) >= strlen (*p))
    *ran_out = TRUE;
  return ok;
}

/* What follows ", op_id = " at @tail, to the end of the text. */
static gboolean
parse_tail (const char *tail,
            KsTorchOp  *op)
{
  const char *s = tail;
  g_autoptr(GString) dims = NULL;

  if (!g_ascii_isdigit (*s) || !parse_int (&s, &op->op_id))
    return FALSE;
  /* A text cut at the recorder's NVTX message limit (512 bytes: the
   * sizes and input ids of an operator on many tensors) ends inside a
   * list: still the operator, without what was cut. */
  if (g_str_has_prefix (s, SIZES))
    {
      gboolean ran_out = FALSE;

      s += strlen (SIZES);
      dims = g_string_new (NULL);
      if (!parse_shape (&s, dims, 0, &ran_out))
        {
          if (!ran_out)
            return FALSE;
          op->truncated = TRUE;
          return TRUE;
        }
    }
  if (g_str_has_prefix (s, INPUTS))
    {
      gboolean ran_out = FALSE;

      s += strlen (INPUTS);
      if (!parse_inputs (&s, &op->n_inputs, &ran_out))
        {
          if (!ran_out)
            return FALSE;
          op->n_inputs = 0;
          op->truncated = TRUE;
        }
      else if (*s != 0)
        return FALSE;
      op->input_dims = dims ? g_string_free (g_steal_pointer (&dims), FALSE) : NULL;
      return TRUE;
    }
  if (*s != 0)
    return FALSE;
  op->input_dims = dims ? g_string_free (g_steal_pointer (&dims), FALSE) : NULL;
  return TRUE;
}

gboolean
ks_torch_nvtx_parse (const char *text,
                     KsTorchOp  *op)
{
  const char *at = NULL;
  gsize name_len;

  memset (op, 0, sizeof *op);
  op->seq = -1;
  if (text == NULL)
    return FALSE;

  /* the last ", op_id = " whose tail parses */
  for (const char *p = strstr (text, "," OP_ID); p != NULL; p = strstr (p + 1, "," OP_ID))
    at = p;
  while (at != NULL)
    {
      if (at > text && parse_tail (at + strlen ("," OP_ID), op))
        break;
      op->n_inputs = 0;
      /* an earlier one, in a name */
      {
        const char *prev = NULL;

        for (const char *p = strstr (text, "," OP_ID); p != NULL && p < at; p = strstr (p + 1, "," OP_ID))
          prev = p;
        at = prev;
      }
    }
  if (at == NULL)
    return FALSE;

  name_len = at - text;
  /* ", seq = N" right before */
  for (const char *p = text; (p = strstr (p, SEQ)) != NULL && p < at; p++)
    {
      const char *s = p + strlen (SEQ);
      gint64 seq;

      if (g_ascii_isdigit (*s) && parse_int (&s, &seq) && s == at && p > text)
        {
          op->seq = seq;
          name_len = p - text;
          break;
        }
    }
  op->name = g_strndup (text, name_len);
  return TRUE;
}

void
ks_torch_op_clear (KsTorchOp *op)
{
  g_clear_pointer (&op->name, g_free);
  g_clear_pointer (&op->input_dims, g_free);
}

gboolean
ks_torch_op_is_backward (const KsTorchOp *op)
{
  return g_str_has_prefix (op->name, "autograd::engine::evaluate_function: ");
}

char *
ks_torch_op_args (const KsTorchOp *op)
{
  GString *s = g_string_new ("{");

  if (op->seq >= 0)
    g_string_append_printf (s, "\"Sequence number\":%" G_GINT64_FORMAT ",", op->seq);
  if (op->input_dims != NULL)
    g_string_append_printf (s, "\"Input Dims\":%s,", op->input_dims);
  g_string_append_printf (s, "\"Record function id\":%" G_GINT64_FORMAT "}", op->op_id);
  return g_string_free (s, FALSE);
}

char *
ks_torch_op_format (const char   *name,
                    gint64        seq,
                    guint64       op_id,
                    gboolean      with_sizes,
                    const gint64 *words,
                    guint         n_inputs,
                    guint         n_words,
                    gboolean      truncated)
{
  GString *s = g_string_new (name);
  guint w = 0;

  if (seq >= 0)
    g_string_append_printf (s, SEQ "%" G_GINT64_FORMAT, seq);
  if (op_id > 0)
    g_string_append_printf (s, "," OP_ID "%" G_GUINT64_FORMAT, op_id);
  /* torch leaves out an empty list */
  if (!with_sizes || (n_inputs == 0 && !truncated))
    return g_string_free (s, FALSE);

  g_string_append (s, SIZES "[");
  for (guint i = 0; i < n_inputs && w < n_words; i++)
    {
      gint64 ndim = words[w++];

      if (i > 0)
        g_string_append (s, ", ");
      g_string_append_c (s, '[');
      for (gint64 d = 0; d < ndim && w < n_words; d++)
        g_string_append_printf (s, d > 0 ? ", %" G_GINT64_FORMAT : "%" G_GINT64_FORMAT, words[w++]);
      g_string_append_c (s, ']');
    }
  if (!truncated)
    g_string_append_c (s, ']');
  return g_string_free (s, FALSE);
}
