/* test-raw-trace.h: a trace whose events are parted by every kind of
 * white space and whose strings hold cuts' look-alikes, for the tests of
 * chunks cut from the text as it lies (a plain file's, a .json.gz's)
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <string.h>

#include <glib.h>

#include "ks-args.h"
#include "ks-trace.h"

/* White space between two events, in the shapes writers use: none,
 * a newline, CRLF, indentation, spaces around the comma. */
static const char *const test_raw_trace_between[] = {
  ",", ",\n", ",\r\n", "\r\n,\r\n", " , ", ",\n  ", "\t,\t", "\n,\n\n",
};

/* One complete event @i, indented or not, whose strings hold what a cut
 * looks for (`},{"`, with white space too), white space of their own,
 * escaped quotes and backslashes, and whose args hold arrays of objects
 * (`}, {"` one level down): cuts fall inside them now and then. */
static inline void
test_raw_trace_append_event (GString *s,
                             guint    i)
{
  const char *nl = i % 3 == 0 ? "\r\n    " : i % 3 == 1 ? "\n  " : "";

  g_string_append_printf (s, "{%s\"ph\": \"X\",%s\"name\": \"op %u\",%s\"pid\": 1, \"tid\": %u,%s"
                          "\"ts\": %u,%s\"dur\": %u", nl, nl, i % 41, nl, 1 + i % 3, nl, 10 * i, nl, 3 + i % 5);
  switch (i % 7)
    {
    case 0:
      g_string_append_printf (s, ",%s\"args\": {\"s\": \"a},{\\\"b\\\": %u},{\\\"\"}", nl, i);
      break;
    case 1:
      g_string_append_printf (s, ",%s\"args\": {\"s\": \"x}, {\\\"y\\\"\", \"t\": \"  two  spaces \\t %u \"}", nl, i);
      break;
    case 2:
      g_string_append_printf (s, ",%s\"args\": {\"l\": [{\"a\": %u}, {\"b\": \"c\"},\r\n {\"d\": [1, 2]}]}", nl, i);
      break;
    case 3:
      g_string_append_printf (s, ",%s\"args\": {\"e\": \"ends in a backslash \\\\\", \"f\": \"},{\"}", nl);
      break;
    case 4:
      g_string_append_printf (s, ",%s\"args\": {\"n\": [%u , %u ,\t%u]}", nl, i, i + 1, i + 2);
      break;
    default:
      break;
    }
  g_string_append_printf (s, "%s}", i % 3 == 0 ? "\r\n" : "");
}

/* A trace of @n events past the first MiB (which is read, not cut), in
 * an object with text after the array that holds cuts' look-alikes too;
 * twice a run of white space longer than the reader's look for a cut. */
static inline GString *
test_raw_trace (guint n)
{
  GString *s = g_string_new ("{\"schemaVersion\": 1,\r\n \"traceEvents\": [\r\n");

  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append (s, test_raw_trace_between[i % G_N_ELEMENTS (test_raw_trace_between)]);
      if (i == n / 3 || i == 2 * n / 3)
        {
          for (guint k = 0; k < 80 * 1024 / 8; k++)
            g_string_append (s, k % 2 ? " \r\n \t  " : "        ");
        }
      test_raw_trace_append_event (s, i);
    }
  g_string_append (s, "\r\n],\r\n\"otherData\": {\"s\": \"},{\\\"\", \"l\": [{\"a\": 1}, {\"b\": 2}],\n"
                      "\"t\": \"x},{\", \"u\": \" spaced  out \"},\n"
                      "\"deviceProperties\": [{\"id\": 0}, {\"id\": 1}]}\r\n");
  return s;
}

/* A trace of @n events each of whose args ends in a string ending in
 * `},{`: a cut looked for forward from anywhere in an event finds the
 * look-alike inside the string before the `},{"` that parts two events. */
static inline GString *
test_raw_trace_look_alikes (guint n)
{
  GString *s = g_string_new ("[");

  for (guint i = 0; i < n; i++)
    g_string_append_printf (s, "%s{\"ph\": \"X\", \"name\": \"op %u\", \"pid\": 1, \"tid\": 1, \"ts\": %u, "
                            "\"dur\": 1, \"args\": {\"f\": \"},{\"}}", i > 0 ? ", " : "", i % 7, 3 * i);
  g_string_append (s, "]");
  return s;
}

/* The model of test_raw_trace (@n): every slice named "op N", and in
 * the args of every seventh event (i % 7 == 1) the white space inside
 * strings kept, outside dropped, arrays of objects and escapes whole. */
static inline void
test_raw_trace_check_model (KsTrace *trace,
                            guint    n)
{
  g_autoptr(GString) scratch = g_string_new (NULL);
  guint n_slices = 0, n_spaces = 0, n_arrays = 0, n_backslash = 0, n_want = 0;

  for (guint i = 0; i < n; i++)
    n_want += i % 7 == 1;
  for (guint t = 0; t < trace->n_tracks; t++)
    for (guint i = 0; i < trace->tracks[t].n_slices; i++)
      {
        const KsTrack *track = &trace->tracks[t];
        const char *args = ks_args_store_get (trace->args, track->args[i], scratch);

        g_assert_true (g_str_has_prefix (ks_trace_string (trace, track->name_id[i]), "op "));
        n_slices++;
        if (args == NULL)
          continue;
        /* white space inside strings kept, outside dropped */
        n_spaces += strstr (args, "\"  two  spaces \\t ") != NULL;
        n_arrays += strstr (args, "\"l\":[{\"a\":") != NULL && strstr (args, "},{\"b\":\"c\"},{\"d\":[1,2]}]") != NULL;
        n_backslash += strstr (args, "\"ends in a backslash \\\\\",\"f\":\"},{\"") != NULL;
      }
  g_assert_cmpuint (n_slices, ==, n);
  g_assert_cmpuint (n_spaces, ==, n_want);
  g_assert_cmpuint (n_arrays, ==, n_want);
  g_assert_cmpuint (n_backslash, ==, n_want);
}
