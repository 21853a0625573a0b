/* ks-bench-record.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* How fast the recorder turns wire messages into .kscope rows: the
 * receiving thread's work per event (parse, intern, bind, insert, commit
 * every 250 ms), without sockets. A training step's worth of events is a
 * launch call plus its kernel; the table says how many such pairs per
 * second one recorder thread absorbs.
 *
 *   ks-bench-record [N_PAIRS]   (default 1000000) */

#include "config.h"

#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>
#include <time.h>

#include "ks-record-session.h"

static guint64
mono_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * 1000000000u + (guint64) ts.tv_nsec;
}

static void
append_string (GByteArray *out,
               guint32     id,
               const char *text)
{
  KsWireString msg = { { 0 } };
  guint8 zeros[8] = { 0 };
  gsize len = strlen (text);

  msg.h.type = KS_WIRE_STRING;
  msg.h.size = ks_wire_align ((guint32) (sizeof msg + len + 1));
  msg.id = id;
  g_byte_array_append (out, (const guint8 *) &msg, sizeof msg);
  g_byte_array_append (out, (const guint8 *) text, (guint) len);
  g_byte_array_append (out, zeros, msg.h.size - (guint) sizeof msg - (guint) len);
}

int
main (int    argc,
      char **argv)
{
  guint64 pairs = argc > 1 ? g_ascii_strtoull (argv[1], NULL, 10) : 1000000;
  g_autofree char *dir = g_dir_make_tmp ("ks-bench-record-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "bench.kscope", NULL);
  g_autoptr(GError) error = NULL;
  g_autoptr(GByteArray) batch = g_byte_array_new ();
  KsRecordOptions options = { 0 };
  KsRecordSession *session;
  KsRecordConnection *conn;
  KsWireHello hello = { { 0 } };
  guint64 t0;
  guint64 base;
  double feed_s;
  double finish_s;
  GStatBuf st;
  const guint batch_pairs = 4096;

  options.capture_range = (char *) "none";
  session = ks_record_session_new (path, &options, &error);
  g_assert_no_error (error);
  conn = ks_record_connection_new (session);
  ks_wire_hello_init (&hello, 1234);
  ks_record_connection_feed (conn, (const guint8 *) &hello, sizeof hello);

  /* 8 kernel names and the launch API name */
  for (guint i = 0; i < 8; i++)
    {
      g_autofree char *name = g_strdup_printf ("_ZN2at6native6kernelILi%uEEEvPf", i);

      append_string (batch, i + 1, name);
    }
  append_string (batch, 100, "cudaLaunchKernel_v7000");
  ks_record_connection_feed (conn, batch->data, batch->len);

  base = mono_now ();
  t0 = mono_now ();
  for (guint64 done = 0; done < pairs; done += batch_pairs)
    {
      g_byte_array_set_size (batch, 0);
      for (guint j = 0; j < batch_pairs && done + j < pairs; j++)
        {
          guint64 n = done + j;
          KsWireApi api = { { sizeof api, KS_WIRE_API, 0 } };
          KsWireKernel k = { { sizeof k, KS_WIRE_KERNEL, 0 } };

          api.start = base + n * 10000;
          api.end = api.start + 3000;
          api.tid = 1234;
          api.correlation_id = (guint32) n + 1;
          api.name_id = 100;
          k.start = api.start + 5000;
          k.end = k.start + 4000;
          k.stream_id = 7;
          k.context_id = 1;
          k.correlation_id = api.correlation_id;
          k.grid[0] = k.grid[1] = k.grid[2] = 1;
          k.block[0] = 128;
          k.block[1] = k.block[2] = 1;
          k.name_id = (guint32) (n % 8) + 1;
          g_byte_array_append (batch, (const guint8 *) &api, sizeof api);
          g_byte_array_append (batch, (const guint8 *) &k, sizeof k);
        }
      g_assert_true (ks_record_connection_feed (conn, batch->data, batch->len));
    }
  feed_s = (mono_now () - t0) / 1e9;

  t0 = mono_now ();
  ks_record_connection_free (conn);
  g_assert_true (ks_record_session_finish (session, 0, TRUE, "bench", &error));
  finish_s = (mono_now () - t0) / 1e9;
  ks_record_session_free (session);
  g_assert_cmpint (g_stat (path, &st), ==, 0);

  g_print ("| launch+kernel pairs | rows | receive+insert | rows/s | finish (indexes) | file |\n");
  g_print ("|---|---|---|---|---|---|\n");
  g_print ("| %" G_GUINT64_FORMAT " | %" G_GUINT64_FORMAT " | %.2f s | %.2f M | %.2f s | %.1f MB (%.0f B/row) |\n",
           pairs, 2 * pairs, feed_s, 2 * pairs / feed_s / 1e6, finish_s,
           st.st_size / 1e6, (double) st.st_size / (2.0 * pairs));
  g_unlink (path);
  g_rmdir (dir);
  return 0;
}
