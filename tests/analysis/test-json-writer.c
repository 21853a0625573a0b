/* test-json-writer.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <math.h>

#include <gio/gio.h>

#include "ks-json-writer.h"

/* Exact text: compact, C0 controls as lower-case \u escapes, DEL and C1
 * controls escaped, bytes that are not UTF-8 as U+FFFD, fixed decimals. */
static void
test_write (void)
{
  g_autoptr(KsJsonWriter) json = ks_json_writer_new ();

  ks_json_begin_object (json, NULL);
  ks_json_string (json, "path", "/tmp/训练/a\"b\\c");
  ks_json_string (json, "evil", "\x1b[2J\x7f\xc2\x9b" "x\xff");
  ks_json_double (json, "pct", 12.345678, 4);
  ks_json_double (json, "nan", NAN, 4);
  ks_json_begin_array (json, "list");
  ks_json_int (json, NULL, -3);
  ks_json_bool (json, NULL, TRUE);
  ks_json_string (json, NULL, NULL);
  ks_json_end_array (json);
  ks_json_end_object (json);
  g_assert_cmpstr (ks_json_writer_get_text (json), ==,
                   "{\"path\":\"/tmp/训练/a\\\"b\\\\c\",\"evil\":\"\\u001b[2J\\u007f\\u009bx\xef\xbf\xbd\","
                   "\"pct\":12.3457,\"nan\":null,\"list\":[-3,true,null]}");
}

/* A progress line as ks-cli-record.c writes it reads back exactly,
 * \u escapes included (the old reader's g_strcompress() dropped them). */
static void
test_read (void)
{
  const char *line = "{\"state\":\"done\",\"output\":\"/tmp/\\u001b\\u8bad\\u7ec3/\\\"q\\\\.kscope\","
                     "\"elapsed\":1.500,\"gpus\":[{\"utilization\":7}]}";
  g_autoptr(GError) error = NULL;
  yajl_val root = ks_json_parse (line, &error);
  yajl_val gpus;

  g_assert_no_error (error);
  g_assert_cmpstr (ks_json_get_string (root, "state"), ==, "done");
  g_assert_cmpstr (ks_json_get_string (root, "output"), ==, "/tmp/\x1b训练/\"q\\.kscope");
  g_assert_cmpfloat (ks_json_get_double (root, "elapsed", -1), ==, 1.5);
  g_assert_cmpint (ks_json_get_int (root, "events", -1), ==, -1);
  gpus = ks_json_get_array (root, "gpus");
  g_assert_nonnull (gpus);
  g_assert_cmpint (ks_json_get_int (YAJL_GET_ARRAY (gpus)->values[0], "utilization", -1), ==, 7);
  yajl_tree_free (root);

  g_assert_null (ks_json_parse ("{\"state\":\"done\",\"output\":\"/tmp/x", &error));
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/analysis/json-writer/write", test_write);
  g_test_add_func ("/analysis/json-writer/read", test_read);

  return g_test_run ();
}
