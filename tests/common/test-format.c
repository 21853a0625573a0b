/* test-format.c: how times and sizes are written (src/common)
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "ks-format.h"

#define US G_GINT64_CONSTANT (1000)
#define MS G_GINT64_CONSTANT (1000000)
#define S  G_GINT64_CONSTANT (1000000000)
#define MINUTE (60 * S)
#define H  (60 * MINUTE)

/* Compares and frees a formatted @text. */
static void
assert_text (char       *text,
             const char *expected)
{
  g_assert_cmpstr (text, ==, expected);
  g_free (text);
}

static void
test_ticks (void)
{
  /* 1 s over 1000 px, ticks >= 100 px apart: 100 ms. */
  g_assert_cmpint (ks_time_tick_step (1e9, 1000, 100), ==, 100000000);
  /* 3.3 ms: wanted 330 µs, next 1-2-5 step is 500 µs. */
  g_assert_cmpint (ks_time_tick_step (3.3e6, 1000, 100), ==, 500000);
  /* 1.5 µs: wanted 150 ns -> 200 ns. */
  g_assert_cmpint (ks_time_tick_step (1500, 1000, 100), ==, 200);
  /* Below a nanosecond per tick the step stays 1 ns. */
  g_assert_cmpint (ks_time_tick_step (7, 1000, 100), ==, 1);
  /* 2 h: wanted 12 min -> 15 min. */
  g_assert_cmpint (ks_time_tick_step (7.2e12, 1000, 100), ==, G_GINT64_CONSTANT (900000000000));
  /* 10 days: wanted 1 day. */
  g_assert_cmpint (ks_time_tick_step (864e12, 1000, 100), ==, G_GINT64_CONSTANT (86400000000000));

  {
    g_autofree char *a = ks_time_format_tick (1500000, 500000, 3000000);
    g_autofree char *b = ks_time_format_tick (2000000000, 1000000000, 5000000000);
    g_autofree char *c = ks_time_format_tick (1200, 200, 1400);
    g_autofree char *d = ks_time_format_tick (G_GINT64_CONSTANT (5400000000000), G_GINT64_CONSTANT (900000000000),
                                              G_GINT64_CONSTANT (7200000000000));
    g_autofree char *e = ks_time_format_tick (250000, 50000, 400000);
    /* Deep in a trace: 106.2 ms rather than 106200 µs, and the same unit
     * for 0 on that axis. */
    g_autofree char *f = ks_time_format_tick (106200000, 200000, 107000000);
    g_autofree char *g = ks_time_format_tick (0, 200000, 107000000);
    g_autofree char *h = ks_time_format_tick (300, 100, 800);

    g_assert_cmpstr (a, ==, "1.5 ms");
    g_assert_cmpstr (b, ==, "2 s");
    g_assert_cmpstr (c, ==, "1.2 µs");
    g_assert_cmpstr (d, ==, "1:30:00");
    g_assert_cmpstr (e, ==, "250 µs");
    g_assert_cmpstr (f, ==, "106.2 ms");
    g_assert_cmpstr (g, ==, "0.0 ms");
    g_assert_cmpstr (h, ==, "300 ns");
  }
  {
    g_autofree char *a = ks_time_format_duration (850);
    g_autofree char *b = ks_time_format_duration (12400);
    g_autofree char *c = ks_time_format_duration (1250000000);
    g_autofree char *d = ks_time_format_duration (G_GINT64_CONSTANT (123000000000));
    gint64 ns = 0;

    g_assert_cmpstr (a, ==, "850 ns");
    g_assert_cmpstr (b, ==, "12.4 µs");
    g_assert_cmpstr (c, ==, "1.25 s");
    g_assert_cmpstr (d, ==, "2 min 03 s");

    g_assert_true (ks_time_parse ("1.5ms", &ns));
    g_assert_cmpint (ns, ==, 1500000);
    g_assert_true (ks_time_parse ("400 us", &ns));
    g_assert_cmpint (ns, ==, 400000);
    g_assert_true (ks_time_parse ("1500", &ns));
    g_assert_cmpint (ns, ==, 1500);
    g_assert_false (ks_time_parse ("12 parsecs", &ns));
    g_assert_false (ks_time_parse ("", &ns));
  }
}

/* Every unit from nanoseconds to hours, three significant digits, and
 * where rounding carries into the next digit. */
static void
test_duration (void)
{
  assert_text (ks_time_format_duration (0), "0 ns");
  assert_text (ks_time_format_duration (1), "1 ns");
  assert_text (ks_time_format_duration (999), "999 ns");
  assert_text (ks_time_format_duration (1 * US), "1.00 µs");
  assert_text (ks_time_format_duration (1234), "1.23 µs");
  assert_text (ks_time_format_duration (9994), "9.99 µs");
  assert_text (ks_time_format_duration (9995), "10.0 µs");
  assert_text (ks_time_format_duration (99949), "99.9 µs");
  assert_text (ks_time_format_duration (99950), "100 µs");
  assert_text (ks_time_format_duration (246 * US), "246 µs");
  assert_text (ks_time_format_duration (999 * US), "999 µs");
  assert_text (ks_time_format_duration (1 * MS), "1.00 ms");
  assert_text (ks_time_format_duration (4600263), "4.60 ms");
  assert_text (ks_time_format_duration (32863000), "32.9 ms");
  assert_text (ks_time_format_duration (150213307), "150 ms");
  assert_text (ks_time_format_duration (1 * S), "1.00 s");
  assert_text (ks_time_format_duration (10271590981), "10.3 s");
  assert_text (ks_time_format_duration (59 * S), "59.0 s");
  assert_text (ks_time_format_duration (1 * MINUTE), "1 min 00 s");
  assert_text (ks_time_format_duration (123 * S), "2 min 03 s");
  assert_text (ks_time_format_duration (59 * MINUTE + 59 * S), "59 min 59 s");
  assert_text (ks_time_format_duration (1 * H), "1 h 00 min");
  assert_text (ks_time_format_duration (1 * H + 2 * MINUTE + 30 * S), "1 h 02 min");
  assert_text (ks_time_format_duration (49 * H), "49 h 00 min");
  assert_text (ks_time_format_duration (-850), "−850 ns");
  assert_text (ks_time_format_duration (-12400), "−12.4 µs");
  assert_text (ks_time_format_duration (-123 * S), "−2 min 03 s");
}

/* A point in the trace, to the nanosecond. */
static void
test_timestamp (void)
{
  assert_text (ks_time_format_timestamp (0), "0.000000 ms");
  assert_text (ks_time_format_timestamp (39962350), "39.962350 ms");
  assert_text (ks_time_format_timestamp (-1500), "−0.001500 ms");
  assert_text (ks_time_format_timestamp (999999999), "999.999999 ms");
  assert_text (ks_time_format_timestamp (1 * S), "1.000000000 s");
  assert_text (ks_time_format_timestamp (12 * S + 1), "12.000000001 s");
}

/* Binary units everywhere, with a space that does not break. */
static void
test_bytes (void)
{
  assert_text (ks_format_bytes (0), "0 bytes");
  assert_text (ks_format_bytes (1), "1 byte");
  assert_text (ks_format_bytes (1023), "1023 bytes");
  assert_text (ks_format_bytes (1024), "1.0\u00a0KiB");
  assert_text (ks_format_bytes (131072), "128.0\u00a0KiB");
  assert_text (ks_format_bytes (3538944), "3.4\u00a0MiB");
  assert_text (ks_format_bytes (G_GUINT64_CONSTANT (344562176)), "328.6\u00a0MiB");
  assert_text (ks_format_bytes (G_GUINT64_CONSTANT (85899345920)), "80.0\u00a0GiB");
  assert_text (ks_format_bytes (G_GUINT64_CONSTANT (1) << 40), "1.0\u00a0TiB");
}

/* Labels cut before Pango sees them: at most @max characters, "…"
 * among them, at the end or in the middle, never inside a character. */
static void
test_cut_text (void)
{
  g_autofree char *long_name = g_strnfill (8 << 20, 'n');
  char *cut;

  g_assert_null (ks_format_cut_text ("kernel", 6, FALSE));
  g_assert_null (ks_format_cut_text ("üüü", 3, TRUE));
  g_assert_null (ks_format_cut_text (NULL, 3, TRUE));
  assert_text (ks_format_cut_text ("abcdefgh", 5, FALSE), "abcd…");
  /* two characters before the ellipsis, two after */
  assert_text (ks_format_cut_text ("abcdefgh", 5, TRUE), "ab…gh");
  assert_text (ks_format_cut_text ("αβγδεζηθ", 4, FALSE), "αβγ…");
  assert_text (ks_format_cut_text ("αβγδεζηθ", 6, TRUE), "αβ…ζηθ");
  assert_text (ks_format_dup_cut_text ("short", 100, TRUE), "short");

  cut = ks_format_cut_text (long_name, KS_TEXT_MAX_CHARS, TRUE);
  g_assert_cmpint (g_utf8_strlen (cut, -1), ==, KS_TEXT_MAX_CHARS);
  g_assert_true (g_str_has_prefix (cut, "nnn") && g_str_has_suffix (cut, "nnn"));
  g_free (cut);

  /* a lead byte before the NUL: nothing is read past it */
  g_assert_null (ks_format_cut_text ("ab\xf0", 3, FALSE));
  assert_text (ks_format_cut_text ("abcd\xf0", 3, FALSE), "ab…");
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/format/ticks", test_ticks);
  g_test_add_func ("/format/duration", test_duration);
  g_test_add_func ("/format/timestamp", test_timestamp);
  g_test_add_func ("/format/bytes", test_bytes);
  g_test_add_func ("/format/cut-text", test_cut_text);

  return g_test_run ();
}
