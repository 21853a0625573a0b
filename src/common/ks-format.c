/* ks-format.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-format"

#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ks-format.h"

#define NS_PER_US  G_GINT64_CONSTANT (1000)
#define NS_PER_MS  G_GINT64_CONSTANT (1000000)
#define NS_PER_S   G_GINT64_CONSTANT (1000000000)
#define NS_PER_MIN (60 * NS_PER_S)
#define NS_PER_H   (60 * NS_PER_MIN)
#define NS_PER_DAY (24 * NS_PER_H)

static const gint64 long_steps[] = {
  15 * NS_PER_S, 30 * NS_PER_S,
  NS_PER_MIN, 2 * NS_PER_MIN, 5 * NS_PER_MIN, 10 * NS_PER_MIN,
  15 * NS_PER_MIN, 30 * NS_PER_MIN,
  NS_PER_H, 2 * NS_PER_H, 3 * NS_PER_H, 6 * NS_PER_H, 12 * NS_PER_H,
  NS_PER_DAY,
};

gint64
ks_time_tick_step (double span_ns,
                   double width_px,
                   double min_px)
{
  double wanted;
  gint64 pow10 = 1;

  if (width_px <= 0 || span_ns <= 0)
    return 1;

  wanted = span_ns * min_px / width_px;
  if (wanted <= 1)
    return 1;

  if (wanted <= 10 * NS_PER_S)
    {
      for (;;)
        {
          if (pow10 >= wanted)
            return pow10;
          if (2 * pow10 >= wanted)
            return 2 * pow10;
          if (5 * pow10 >= wanted)
            return 5 * pow10;
          pow10 *= 10;
        }
    }

  for (guint i = 0; i < G_N_ELEMENTS (long_steps); i++)
    if (long_steps[i] >= wanted)
      return long_steps[i];

  /* Days: 1-2-5 in whole days. */
  pow10 = NS_PER_DAY;
  for (;;)
    {
      if (pow10 >= wanted)
        return pow10;
      if (2 * pow10 >= wanted)
        return 2 * pow10;
      if (5 * pow10 >= wanted)
        return 5 * pow10;
      if (pow10 > G_MAXINT64 / 100)
        return pow10;
      pow10 *= 10;
    }
}

static int
decimals_for (gint64 step,
              gint64 unit)
{
  int d = 0;

  while (step < unit && d < 9)
    {
      unit /= 10;
      d++;
    }
  /* 2 × 10^k and 5 × 10^k steps need the digit of 10^k only. */
  while (d > 0 && step % unit != 0)
    {
      unit /= 10;
      d++;
    }
  return d;
}

char *
ks_time_format_tick (gint64 t,
                     gint64 step,
                     gint64 scale)
{
  static const gint64 units[] = { 1, NS_PER_US, NS_PER_MS, NS_PER_S };
  static const char * const names[] = { "ns", "µs", "ms", "s" };
  const char *sign = t < 0 ? "−" : "";
  gint64 a = t < 0 ? -t : t;
  guint u = 0;

  if (step <= 0)
    step = 1;
  scale = MAX (ABS (scale), a);

  if (step >= NS_PER_MIN || (scale >= NS_PER_H && step % NS_PER_S == 0))
    {
      gint64 h = a / NS_PER_H;
      gint64 m = (a / NS_PER_MIN) % 60;
      gint64 sec = (a / NS_PER_S) % 60;

      if (h > 0 || scale >= NS_PER_H)
        return g_strdup_printf ("%s%" G_GINT64_FORMAT ":%02" G_GINT64_FORMAT ":%02" G_GINT64_FORMAT,
                                sign, h, m, sec);
      return g_strdup_printf ("%s%" G_GINT64_FORMAT ":%02" G_GINT64_FORMAT, sign, m, sec);
    }

  /* The largest unit that the step reaches half of (a 500 µs step reads
   * 0.5 ms, 1 ms, 1.5 ms); then, while the labels of this axis would
   * need four digits or more before the point, a larger unit with at
   * most three decimals (106.2 ms rather than 106200 µs). */
  while (u + 1 < G_N_ELEMENTS (units) && 2 * step >= units[u + 1])
    u++;
  while (u + 1 < G_N_ELEMENTS (units) && scale / units[u] >= 1000 &&
         decimals_for (step, units[u + 1]) <= 3)
    u++;

  if (u == 0)
    return g_strdup_printf ("%s%" G_GINT64_FORMAT " ns", sign, a);
  return g_strdup_printf ("%s%.*f %s", sign, decimals_for (step, units[u]),
                          (double)a / units[u], names[u]);
}

char *
ks_time_format_duration (gint64 ns)
{
  const char *sign = ns < 0 ? "−" : "";
  guint64 a = ns < 0 ? -(guint64)ns : (guint64)ns;
  double v;
  const char *unit;

  if (a >= NS_PER_H)
    return g_strdup_printf ("%s%" G_GUINT64_FORMAT " h %02" G_GUINT64_FORMAT " min",
                            sign, a / NS_PER_H, (a / NS_PER_MIN) % 60);
  if (a >= NS_PER_MIN)
    return g_strdup_printf ("%s%" G_GUINT64_FORMAT " min %02" G_GUINT64_FORMAT " s",
                            sign, a / NS_PER_MIN, (a / NS_PER_S) % 60);
  if (a < NS_PER_US)
    return g_strdup_printf ("%s%" G_GUINT64_FORMAT " ns", sign, a);

  if (a >= NS_PER_S)
    v = (double)a / NS_PER_S, unit = "s";
  else if (a >= NS_PER_MS)
    v = (double)a / NS_PER_MS, unit = "ms";
  else
    v = (double)a / NS_PER_US, unit = "µs";

  /* Three significant digits; rounding may reach 1000 of a unit. */
  if (v >= 99.95)
    return g_strdup_printf ("%s%.0f %s", sign, v, unit);
  if (v >= 9.995)
    return g_strdup_printf ("%s%.1f %s", sign, v, unit);
  return g_strdup_printf ("%s%.2f %s", sign, v, unit);
}

char *
ks_time_format_timestamp (gint64 ns)
{
  const char *sign = ns < 0 ? "−" : "";
  guint64 a = ns < 0 ? -(guint64)ns : (guint64)ns;

  if (a < NS_PER_S)
    return g_strdup_printf ("%s%" G_GUINT64_FORMAT ".%06" G_GUINT64_FORMAT " ms",
                            sign, a / NS_PER_MS, a % NS_PER_MS);
  return g_strdup_printf ("%s%" G_GUINT64_FORMAT ".%09" G_GUINT64_FORMAT " s",
                          sign, a / NS_PER_S, a % NS_PER_S);
}

char *
ks_format_bytes (guint64 bytes)
{
  return g_format_size_full (bytes, G_FORMAT_SIZE_IEC_UNITS);
}

gboolean
ks_time_parse (const char *text,
               gint64     *ns)
{
  char *end = NULL;
  double v;
  double mult = 1;

  g_return_val_if_fail (text != NULL, FALSE);

  while (g_ascii_isspace (*text))
    text++;
  if (*text == 0)
    return FALSE;

  v = g_ascii_strtod (text, &end);
  if (end == text || !isfinite (v))
    return FALSE;
  while (g_ascii_isspace (*end))
    end++;

  if (*end == 0 || strcmp (end, "ns") == 0)
    mult = 1;
  else if (strcmp (end, "us") == 0 || strcmp (end, "µs") == 0)
    mult = NS_PER_US;
  else if (strcmp (end, "ms") == 0)
    mult = NS_PER_MS;
  else if (strcmp (end, "s") == 0)
    mult = NS_PER_S;
  else if (strcmp (end, "min") == 0)
    mult = NS_PER_MIN;
  else if (strcmp (end, "h") == 0)
    mult = NS_PER_H;
  else
    return FALSE;

  v *= mult;
  if (v > (double)G_MAXINT64 || v < (double)G_MININT64)
    return FALSE;
  *ns = (gint64)llround (v);
  return TRUE;
}

/* The character after @p's: by bytes, so that invalid UTF-8 cannot take
 * it past the NUL. */
static inline const char *
next_char (const char *p)
{
  p++;
  while ((*p & 0xc0) == 0x80)
    p++;
  return p;
}

char *
ks_format_cut_text (const char *text,
                    gsize       max_chars,
                    gboolean    middle)
{
  const char *p = text;
  const char *cut = NULL;
  const char *tail;
  gsize n = 0, keep;
  GString *out;

  if (text == NULL)
    return NULL;
  /* bytes are at least characters: most labels end here */
  if (strnlen (text, max_chars + 1) <= max_chars)
    return NULL;
  max_chars = MAX (max_chars, 2);
  keep = middle ? (max_chars - 1) / 2 : max_chars - 1;
  while (*p && n < max_chars)
    {
      if (n == keep)
        cut = p;
      p = next_char (p);
      n++;
    }
  if (*p == 0)
    return NULL;

  out = g_string_new_len (text, cut - text);
  g_string_append (out, "…");
  if (middle)
    {
      /* the end: as many characters back from it */
      tail = text + strlen (text);
      for (gsize k = 0; k < max_chars - 1 - keep && tail > cut; k++)
        {
          tail--;
          while (tail > cut && (*tail & 0xc0) == 0x80)
            tail--;
        }
      g_string_append (out, tail);
    }
  return g_string_free (out, FALSE);
}

char *
ks_format_dup_cut_text (const char *text,
                        gsize       max_chars,
                        gboolean    middle)
{
  char *cut = ks_format_cut_text (text, max_chars, middle);

  return cut != NULL ? cut : g_strdup (text != NULL ? text : "");
}
