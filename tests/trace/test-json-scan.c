/* test-json-scan.c: the JSON reader's pure scanning and number functions
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include <glib.h>

#include "ks-json-scan.h"

#define S(lit) (lit), (sizeof (lit) - 1)
#define B(lit) ((const guint8 *) (lit)), (sizeof (lit) - 1)

static void
test_parse_int64 (void)
{
  gint64 v = 7;

  g_assert_true (ks_json_parse_int64 (S ("0"), &v));
  g_assert_cmpint (v, ==, 0);
  g_assert_true (ks_json_parse_int64 (S ("-42"), &v));
  g_assert_cmpint (v, ==, -42);
  g_assert_true (ks_json_parse_int64 (S ("123456789012345678"), &v));
  g_assert_cmpint (v, ==, G_GINT64_CONSTANT (123456789012345678));
  g_assert_true (ks_json_parse_int64 (S ("9223372036854775807"), &v));
  g_assert_cmpint (v, ==, G_MAXINT64);
  g_assert_true (ks_json_parse_int64 (S ("-9223372036854775808"), &v));
  g_assert_cmpint (v, ==, G_MININT64);

  v = 7;
  g_assert_false (ks_json_parse_int64 (S ("9223372036854775808"), &v));
  g_assert_false (ks_json_parse_int64 (S ("-9223372036854775809"), &v));
  g_assert_false (ks_json_parse_int64 (S ("18446744073709551616"), &v));
  g_assert_false (ks_json_parse_int64 (S (""), &v));
  g_assert_false (ks_json_parse_int64 (S ("-"), &v));
  g_assert_false (ks_json_parse_int64 (S ("1.5"), &v));
  g_assert_false (ks_json_parse_int64 (S ("12a"), &v));
  g_assert_false (ks_json_parse_int64 (S ("+1"), &v));
  g_assert_false (ks_json_parse_int64 (S ("stream 7"), &v));
  g_assert_cmpint (v, ==, 7);   /* untouched on failure */
}

static void
test_parse_uint64 (void)
{
  guint64 v = 0;

  g_assert_true (ks_json_parse_uint64 (S ("18446744073709551615"), &v));
  g_assert_cmpuint (v, ==, G_MAXUINT64);
  g_assert_true (ks_json_parse_uint64 (S ("10159970886766084423"), &v));
  g_assert_cmpuint (v, ==, G_GUINT64_CONSTANT (10159970886766084423));
  g_assert_true (ks_json_parse_uint64 (S ("007"), &v));
  g_assert_cmpuint (v, ==, 7);
  g_assert_false (ks_json_parse_uint64 (S ("18446744073709551616"), &v));
  g_assert_false (ks_json_parse_uint64 (S ("-1"), &v));
  g_assert_false (ks_json_parse_uint64 (S (""), &v));
}

static void
test_parse_double (void)
{
  double d = 0;

  g_assert_true (ks_json_parse_double (S ("1.5e3"), &d));
  g_assert_cmpfloat (d, ==, 1500.0);
  g_assert_true (ks_json_parse_double (S ("-0.25"), &d));
  g_assert_cmpfloat (d, ==, -0.25);
  g_assert_false (ks_json_parse_double (S ("1e999"), &d));     /* not finite */
  g_assert_false (ks_json_parse_double (S ("NaN"), &d));
  g_assert_false (ks_json_parse_double (S ("1.5x"), &d));
  g_assert_false (ks_json_parse_double (S (""), &d));
  /* longer than its 64-byte buffer */
  g_assert_false (ks_json_parse_double (S ("1.000000000000000000000000000000000000000000000000000000000000000"), &d));
}

/* Numbers written as strings, as Perfetto's json_counter_args has them */
static void
test_parse_number_text (void)
{
  static const struct { const char *text; double value; } good[] = {
    { ".75", 0.75 }, { "246.", 246 }, { "01.23", 1.23 }, { "050", 50 }, { "+10.5", 10.5 },
    { "-3", -3 }, { "25.7", 25.7 }, { "1e3", 1000 }, { "2.5E-1", 0.25 },
  };
  static const char *bad[] = { "1.5e", "2e+", ".", "+", "-", "", "0x10", "inf", "nan", " 5", "5 ", "1.2.3", "1e999" };
  double d = 0;

  for (guint i = 0; i < G_N_ELEMENTS (good); i++)
    {
      g_assert_true (ks_json_parse_number_text (good[i].text, strlen (good[i].text), &d));
      g_assert_cmpfloat (d, ==, good[i].value);
    }
  for (guint i = 0; i < G_N_ELEMENTS (bad); i++)
    g_assert_false (ks_json_parse_number_text (bad[i], strlen (bad[i]), &d));
}

static void
test_parse_us (void)
{
  gint64 ns = 0;

  /* exact for plain decimals, far past double's 15-16 digits */
  g_assert_true (ks_json_parse_us (S ("5110156003714.387"), &ns));
  g_assert_cmpint (ns, ==, G_GINT64_CONSTANT (5110156003714387));
  g_assert_true (ks_json_parse_us (S ("1719853884000000.123"), &ns));
  g_assert_cmpint (ns, ==, G_GINT64_CONSTANT (1719853884000000123));
  g_assert_true (ks_json_parse_us (S ("0"), &ns));
  g_assert_cmpint (ns, ==, 0);
  g_assert_true (ks_json_parse_us (S ("-12.5"), &ns));
  g_assert_cmpint (ns, ==, -12500);
  g_assert_true (ks_json_parse_us (S ("000012"), &ns));
  g_assert_cmpint (ns, ==, 12000);
  /* past a nanosecond: rounded half up on the tenth */
  g_assert_true (ks_json_parse_us (S ("1.0004"), &ns));
  g_assert_cmpint (ns, ==, 1000);
  g_assert_true (ks_json_parse_us (S ("1.0005"), &ns));
  g_assert_cmpint (ns, ==, 1001);
  g_assert_true (ks_json_parse_us (S ("1.00059999"), &ns));
  g_assert_cmpint (ns, ==, 1001);
  /* exponents go through double */
  g_assert_true (ks_json_parse_us (S ("1.5e3"), &ns));
  g_assert_cmpint (ns, ==, 1500000);
  /* yajl never hands over "1.": strtod's reading stands */
  g_assert_true (ks_json_parse_us (S ("1."), &ns));
  g_assert_cmpint (ns, ==, 1000);
  g_assert_true (ks_json_parse_us (S ("1e-3"), &ns));
  g_assert_cmpint (ns, ==, 1);

  ns = 5;
  /* 17 digits: past the fast path, and past 9.2e18 ns */
  g_assert_false (ks_json_parse_us (S ("12345678901234567"), &ns));
  g_assert_false (ks_json_parse_us (S ("9300000000000000"), &ns));   /* over 9.2e18 ns */
  g_assert_false (ks_json_parse_us (S (""), &ns));
  g_assert_false (ks_json_parse_us (S ("-"), &ns));
  g_assert_false (ks_json_parse_us (S ("1.2.3"), &ns));
  g_assert_false (ks_json_parse_us (S ("abc"), &ns));
  g_assert_cmpint (ns, ==, 5);
}

static void
test_utf8 (void)
{
  g_assert_cmpint (ks_json_utf8_sequence (B ("a")), ==, 1);
  g_assert_cmpint (ks_json_utf8_sequence (B ("\xc3\xa9")), ==, 2);
  g_assert_cmpint (ks_json_utf8_sequence (B ("\xe4\xb8\xad")), ==, 3);
  g_assert_cmpint (ks_json_utf8_sequence (B ("\xf0\x9f\x98\x80")), ==, 4);
  /* overlong, surrogate, past U+10FFFF, stray continuation */
  g_assert_cmpint (ks_json_utf8_sequence (B ("\xc0\xaf")), ==, -1);
  g_assert_cmpint (ks_json_utf8_sequence (B ("\xe0\x80\x80")), ==, -1);
  g_assert_cmpint (ks_json_utf8_sequence (B ("\xed\xa0\x80")), ==, -1);
  g_assert_cmpint (ks_json_utf8_sequence (B ("\xf4\x90\x80\x80")), ==, -1);
  g_assert_cmpint (ks_json_utf8_sequence (B ("\xf5\x80")), ==, -1);
  g_assert_cmpint (ks_json_utf8_sequence (B ("\x80")), ==, -1);
  /* truncated: the maximal subpart */
  g_assert_cmpint (ks_json_utf8_sequence (B ("\xe4\xb8")), ==, -2);
  g_assert_cmpint (ks_json_utf8_sequence (B ("\xf0\x9f\x98x")), ==, -3);
  g_assert_cmpint (ks_json_utf8_sequence (B ("\xc3")), ==, -1);

  g_assert_cmpuint (ks_json_utf8_valid_prefix (B ("plain ascii text longer than 8")), ==, 30);
  g_assert_cmpuint (ks_json_utf8_valid_prefix (B ("abc\xc3\xa9" "def\xff" "g")), ==, 8);
  g_assert_cmpuint (ks_json_utf8_valid_prefix (B ("0123456789\xe4\xb8")), ==, 10);
  g_assert_cmpuint (ks_json_utf8_valid_prefix (B ("")), ==, 0);

  g_assert_true (ks_json_is_ascii (B ("0123456789abcdef")));
  g_assert_false (ks_json_is_ascii (B ("0123456789abcde\x80")));
  g_assert_false (ks_json_is_ascii (B ("\xc3\xa9")));
}

static void
test_hex4 (void)
{
  guint v = 0;

  g_assert_true (ks_json_hex4 ((const guint8 *) "d83D", &v));
  g_assert_cmpuint (v, ==, 0xd83d);
  g_assert_true (ks_json_hex4 ((const guint8 *) "00aF", &v));
  g_assert_cmpuint (v, ==, 0xaf);
  g_assert_false (ks_json_hex4 ((const guint8 *) "12g4", &v));
  g_assert_false (ks_json_hex4 ((const guint8 *) "12 4", &v));
}

static void
test_find_string_end (void)
{
  gboolean esc = FALSE;

  g_assert_cmpint (ks_json_find_string_end (B ("abc\"rest"), &esc), ==, 3);
  g_assert_false (esc);
  /* an escaped quote, then an escaped backslash before the real one */
  g_assert_cmpint (ks_json_find_string_end (B ("a\\\"b\\\\\"x"), &esc), ==, 6);
  /* no end: the last byte is an unpaired backslash ... */
  g_assert_cmpint (ks_json_find_string_end (B ("abc\\"), &esc), ==, -1);
  g_assert_true (esc);
  /* ... so the quote that starts the next block is escaped */
  g_assert_cmpint (ks_json_find_string_end (B ("\"x\""), &esc), ==, 2);
  g_assert_false (esc);
  g_assert_cmpint (ks_json_find_string_end (B ("ab\\\\"), &esc), ==, -1);
  g_assert_false (esc);
  esc = TRUE;
  g_assert_cmpint (ks_json_find_string_end (B (""), &esc), ==, -1);
  g_assert_true (esc);
}

static void
test_string_cut_point (void)
{
  g_assert_cmpuint (ks_json_string_cut_point (B ("abcdef")), ==, 6);
  /* not inside an escape */
  g_assert_cmpuint (ks_json_string_cut_point (B ("abc\\")), ==, 3);
  g_assert_cmpuint (ks_json_string_cut_point (B ("abc\\u00")), ==, 3);
  g_assert_cmpuint (ks_json_string_cut_point (B ("abc\\u00e9")), ==, 9);
  /* nor between the halves of a surrogate pair */
  g_assert_cmpuint (ks_json_string_cut_point (B ("ab\\ud83d")), ==, 2);
  g_assert_cmpuint (ks_json_string_cut_point (B ("ab\\ud83d\\ude00")), ==, 14);
  /* nor inside a UTF-8 sequence */
  g_assert_cmpuint (ks_json_string_cut_point (B ("ab\xe4\xb8")), ==, 2);
  g_assert_cmpuint (ks_json_string_cut_point (B ("ab\xe4\xb8\xad")), ==, 5);
  g_assert_cmpuint (ks_json_string_cut_point (B ("ab\xf0\x9f\x98")), ==, 2);
}

static void
test_nonfinite (void)
{
  g_assert_cmpstr (ks_json_nonfinite_string (B ("NaN")), ==, "\"NaN\"");
  g_assert_cmpstr (ks_json_nonfinite_string (B ("Infinity")), ==, "\"Infinity\"");
  g_assert_cmpstr (ks_json_nonfinite_string (B ("-Infinity")), ==, "\"-Infinity\"");
  g_assert_null (ks_json_nonfinite_string (B ("nan")));
  g_assert_null (ks_json_nonfinite_string (B ("+Infinity")));
  g_assert_null (ks_json_nonfinite_string (B ("Inf")));
}

static char *
compact_whole (const char          *text,
               gsize                chunk,
               KsJsonCompactState  *state)
{
  gsize n = strlen (text);
  char *out = g_malloc0 (n + 17);
  gsize len = 0;

  for (gsize at = 0; at < n; at += chunk)
    len += ks_json_compact ((const guint8 *) text + at, MIN (chunk, n - at), out + len, state);
  out[len] = 0;
  return out;
}

static void
test_compact (void)
{
  const char *in =
    "{ \"traceEvents\" : [\n  {\"ph\": \"X\", \"name\": \"a  b\\\" c\", \"ts\": 1 ,\"dur\" :2},\n"
    "  {\"args\": {\"v\": [1, 2,\t3], \"s\": \"\xc3\xa9  x\"}} ] }\n";
  const char *want =
    "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a  b\\\" c\",\"ts\":1,\"dur\":2},"
    "{\"args\":{\"v\":[1,2,3],\"s\":\"\xc3\xa9  x\"}}]}";

  ks_json_compact_init ();
  /* any split of the input gives the same output */
  for (gsize chunk = 1; chunk <= strlen (in); chunk++)
    {
      KsJsonCompactState st = { 0 };
      g_autofree char *out = compact_whole (in, chunk, &st);

      g_assert_cmpstr (out, ==, want);
      g_assert_false (st.in_string);
      g_assert_true ((st.seen & KS_JSON_SEEN_NON_ASCII) != 0);
      g_assert_true ((st.seen & KS_JSON_SEEN_BACKSLASH) != 0);
      g_assert_true ((st.seen & KS_JSON_SEEN_LETTER) == 0);
    }

  {
    /* white space between two words keeps its last byte */
    KsJsonCompactState st = { 0 };
    g_autofree char *out = compact_whole ("[1 \n\t2, NaN ]", 64, &st);

    g_assert_cmpstr (out, ==, "[1\t2,NaN]");
    g_assert_true ((st.seen & KS_JSON_SEEN_LETTER) != 0);
    g_assert_true ((st.seen & KS_JSON_SEEN_NON_ASCII) == 0);
  }
  {
    /* a number of 64 bytes and more is flagged when a block holds it */
    g_autofree char *digits = g_strnfill (100, '7');
    g_autofree char *text = g_strdup_printf ("[%s]", digits);

    for (gsize chunk = 1; chunk <= 102; chunk += 13)
      {
        KsJsonCompactState st = { 0 };
        g_autofree char *out = compact_whole (text, chunk, &st);

        g_assert_cmpstr (out, ==, text);
        if (chunk > 100)
          g_assert_true ((st.seen & KS_JSON_SEEN_LONG_WORD) != 0);
      }
  }
  {
    /* a string left open at the end of a block */
    KsJsonCompactState st = { 0 };
    g_autofree char *out = compact_whole ("{\"k\": \"open  ", 64, &st);

    g_assert_cmpstr (out, ==, "{\"k\":\"open  ");
    g_assert_true (st.in_string);
  }
}

static void
test_open_token_start (void)
{
  gboolean is_string = 7;

  g_assert_cmpuint (ks_json_open_token_start ((const guint8 *) "[1,2,345", 0, 8, FALSE, &is_string) , ==, 5);
  g_assert_false (is_string);
  g_assert_cmpuint (ks_json_open_token_start ((const guint8 *) "[1,2,", 0, 5, FALSE, &is_string), ==, 5);
  g_assert_cmpuint (ks_json_open_token_start ((const guint8 *) "[\"a\",\"bc", 0, 8, TRUE, &is_string), ==, 5);
  g_assert_true (is_string);
  /* an escaped quote does not open it */
  g_assert_cmpuint (ks_json_open_token_start ((const guint8 *) "[\"a\\\"b", 0, 6, TRUE, &is_string), ==, 1);
  /* nothing before @from counts */
  g_assert_cmpuint (ks_json_open_token_start ((const guint8 *) "123", 1, 3, FALSE, &is_string), ==, 1);
  g_assert_cmpuint (ks_json_open_token_start ((const guint8 *) "abc", 0, 3, TRUE, &is_string), ==, 3);
}

static void
test_small (void)
{
  g_assert_cmpuint (ks_json_bom_length (B ("\xef\xbb\xbf{}")), ==, 3);
  g_assert_cmpuint (ks_json_bom_length (B ("\xef\xbb")), ==, 0);
  g_assert_cmpuint (ks_json_bom_length (B ("{}")), ==, 0);
  g_assert_true (ks_json_is_word_byte ('7'));
  g_assert_true (ks_json_is_word_byte ('e'));
  g_assert_true (ks_json_is_word_byte ('-'));
  g_assert_true (ks_json_is_word_byte ('.'));
  g_assert_false (ks_json_is_word_byte (','));
  g_assert_false (ks_json_is_word_byte ('"'));
  g_assert_false (ks_json_is_word_byte (' '));
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/json-scan/parse-int64", test_parse_int64);
  g_test_add_func ("/json-scan/parse-uint64", test_parse_uint64);
  g_test_add_func ("/json-scan/parse-double", test_parse_double);
  g_test_add_func ("/json-scan/parse-number-text", test_parse_number_text);
  g_test_add_func ("/json-scan/parse-us", test_parse_us);
  g_test_add_func ("/json-scan/utf8", test_utf8);
  g_test_add_func ("/json-scan/hex4", test_hex4);
  g_test_add_func ("/json-scan/find-string-end", test_find_string_end);
  g_test_add_func ("/json-scan/string-cut-point", test_string_cut_point);
  g_test_add_func ("/json-scan/nonfinite", test_nonfinite);
  g_test_add_func ("/json-scan/compact", test_compact);
  g_test_add_func ("/json-scan/open-token-start", test_open_token_start);
  g_test_add_func ("/json-scan/small", test_small);
  return g_test_run ();
}
