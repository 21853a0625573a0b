/* ks-json-writer.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-json-writer"

#include "config.h"

#include <math.h>
#include <string.h>

#include <gio/gio.h>
#include <glib/gi18n.h>
#include <yajl/yajl_gen.h>

#include "ks-json-writer.h"

struct _KsJsonWriter
{
  yajl_gen  gen;
  GString  *text;
};

/* yajl writes DEL and U+0080–U+009F as they are; they only occur inside
 * strings (everything else yajl writes is ASCII), and yajl hands a
 * string's bytes between escapes over in one piece, so a two-byte C1
 * character is never split across calls. */
static void
print_cb (void       *ctx,
          const char *str,
          size_t      len)
{
  GString *text = ctx;
  const char *run = str;
  const char *end = str + len;

  /* A control character's escape comes alone; written in lower case
   * as Kinescope always has. */
  if (len == 6 && strncmp (str, "\\u00", 4) == 0)
    {
      g_string_append_c (text, '\\');
      g_string_append_c (text, 'u');
      for (guint i = 2; i < 6; i++)
        g_string_append_c (text, g_ascii_tolower (str[i]));
      return;
    }

  for (const char *p = str; p < end; p++)
    {
      guchar c = (guchar)*p;

      if (c == 0x7f)
        {
          g_string_append_len (text, run, p - run);
          g_string_append (text, "\\u007f");
          run = p + 1;
        }
      else if (c == 0xc2 && p + 1 < end && (guchar)p[1] >= 0x80 && (guchar)p[1] <= 0x9f)
        {
          g_string_append_len (text, run, p - run);
          g_string_append_printf (text, "\\u%04x", (guchar)p[1]);
          p++;
          run = p + 1;
        }
    }
  g_string_append_len (text, run, end - run);
}

KsJsonWriter *
ks_json_writer_new (void)
{
  KsJsonWriter *self = g_new0 (KsJsonWriter, 1);

  self->text = g_string_new (NULL);
  self->gen = yajl_gen_alloc (NULL);
  yajl_gen_config (self->gen, yajl_gen_validate_utf8, 1);
  yajl_gen_config (self->gen, yajl_gen_print_callback, print_cb, self->text);
  return self;
}

void
ks_json_writer_free (KsJsonWriter *self)
{
  if (self == NULL)
    return;
  yajl_gen_free (self->gen);
  g_string_free (self->text, TRUE);
  g_free (self);
}

/* The writer is driven by code, not by data: a status other than OK is
 * a bug in the caller (a member outside an object, a value after the
 * end), never something a trace can cause. */
static void
check (yajl_gen_status status)
{
  if (status != yajl_gen_status_ok)
    g_error ("JSON writer misused (yajl_gen status %d)", status);
}

static void
gen_string (KsJsonWriter *self,
            const char   *s)
{
  g_autofree char *valid = NULL;

  if (!g_utf8_validate (s, -1, NULL))
    s = valid = g_utf8_make_valid (s, -1);
  check (yajl_gen_string (self->gen, (const unsigned char *)s, strlen (s)));
}

static void
gen_key (KsJsonWriter *self,
         const char   *key)
{
  if (key != NULL)
    gen_string (self, key);
}

void
ks_json_begin_object (KsJsonWriter *self,
                      const char   *key)
{
  gen_key (self, key);
  check (yajl_gen_map_open (self->gen));
}

void
ks_json_end_object (KsJsonWriter *self)
{
  check (yajl_gen_map_close (self->gen));
}

void
ks_json_begin_array (KsJsonWriter *self,
                     const char   *key)
{
  gen_key (self, key);
  check (yajl_gen_array_open (self->gen));
}

void
ks_json_end_array (KsJsonWriter *self)
{
  check (yajl_gen_array_close (self->gen));
}

void
ks_json_string (KsJsonWriter *self,
                const char   *key,
                const char   *value)
{
  gen_key (self, key);
  if (value == NULL)
    check (yajl_gen_null (self->gen));
  else
    gen_string (self, value);
}

void
ks_json_int (KsJsonWriter *self,
             const char   *key,
             gint64        value)
{
  gen_key (self, key);
  check (yajl_gen_integer (self->gen, value));
}

void
ks_json_double (KsJsonWriter *self,
                const char   *key,
                double        value,
                guint         decimals)
{
  char format[16];
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  gen_key (self, key);
  if (!isfinite (value))
    {
      check (yajl_gen_null (self->gen));
      return;
    }
  /* A fixed number of decimals, in the C locale: yajl_gen_double would
   * write %.20g. */
  g_snprintf (format, sizeof format, "%%.%uf", MIN (decimals, 17u));
  g_ascii_formatd (buf, sizeof buf, format, value);
  check (yajl_gen_number (self->gen, buf, strlen (buf)));
}

void
ks_json_bool (KsJsonWriter *self,
              const char   *key,
              gboolean      value)
{
  gen_key (self, key);
  check (yajl_gen_bool (self->gen, value != FALSE));
}

void
ks_json_null (KsJsonWriter *self,
              const char   *key)
{
  gen_key (self, key);
  check (yajl_gen_null (self->gen));
}

const char *
ks_json_writer_get_text (KsJsonWriter *self)
{
  return self->text->str;
}

char *
ks_json_writer_free_to_text (KsJsonWriter *self)
{
  char *text = g_string_free (self->text, FALSE);

  self->text = NULL;
  yajl_gen_free (self->gen);
  g_free (self);
  return text;
}

/* Whether @text nests arrays and objects at most @max_depth deep; a
 * scan that needs no stack, done before yajl builds a tree, which it
 * (and yajl_tree_free()) would walk by recursion. */
static gboolean
depth_within (const char *text,
              guint       max_depth)
{
  gboolean in_string = FALSE;
  guint depth = 0;

  for (const char *p = text; *p; p++)
    {
      if (in_string)
        {
          if (*p == '\\' && p[1] != 0)
            p++;
          else if (*p == '"')
            in_string = FALSE;
        }
      else if (*p == '"')
        in_string = TRUE;
      else if (*p == '[' || *p == '{')
        {
          if (++depth > max_depth)
            return FALSE;
        }
      else if ((*p == ']' || *p == '}') && depth > 0)
        depth--;
    }
  return TRUE;
}

yajl_val
ks_json_parse (const char  *text,
               GError     **error)
{
  char errbuf[256] = "";
  yajl_val root;

  if (!depth_within (text, KS_JSON_MAX_DEPTH))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("JSON nested deeper than %d levels"), KS_JSON_MAX_DEPTH);
      return NULL;
    }
  root = yajl_tree_parse (text, errbuf, sizeof errbuf);
  if (root == NULL)
    {
      g_strchomp (errbuf);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("Not valid JSON: %s"), errbuf);
    }
  return root;
}

static yajl_val
member (yajl_val    object,
        const char *key)
{
  if (!YAJL_IS_OBJECT (object))
    return NULL;
  for (size_t i = 0; i < object->u.object.len; i++)
    if (strcmp (object->u.object.keys[i], key) == 0)
      return object->u.object.values[i];
  return NULL;
}

const char *
ks_json_get_string (yajl_val    object,
                    const char *key)
{
  yajl_val v = member (object, key);

  return YAJL_IS_STRING (v) ? YAJL_GET_STRING (v) : NULL;
}

gint64
ks_json_get_int (yajl_val    object,
                 const char *key,
                 gint64      fallback)
{
  yajl_val v = member (object, key);

  return YAJL_IS_INTEGER (v) ? YAJL_GET_INTEGER (v) : fallback;
}

double
ks_json_get_double (yajl_val    object,
                    const char *key,
                    double      fallback)
{
  yajl_val v = member (object, key);

  return YAJL_IS_DOUBLE (v) ? YAJL_GET_DOUBLE (v) : fallback;
}

gboolean
ks_json_get_bool (yajl_val    object,
                  const char *key,
                  gboolean    fallback)
{
  yajl_val v = member (object, key);

  return YAJL_IS_TRUE (v) ? TRUE : YAJL_IS_FALSE (v) ? FALSE : fallback;
}

yajl_val
ks_json_get_array (yajl_val    object,
                   const char *key)
{
  yajl_val v = member (object, key);

  return YAJL_IS_ARRAY (v) ? v : NULL;
}
