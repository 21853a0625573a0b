/* fuzz-record-wire.c: libFuzzer harness for what the recorder receives
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every profiled process sends the recorder a stream of wire messages
 * (src/collector/ks-wire.h). Each input is such a stream, after a valid
 * HELLO, fed in two pieces as a socket may split it; its times count from
 * the start of the recording (see rebase_times()). The recorder must
 * close the connection on malformed data, never crash, and whatever it
 * wrote must finish into a file the SQLite reader loads without an error.
 *
 * KS_FUZZ_WRITE_SEEDS=DIR writes a few valid streams into DIR and exits:
 * launches with their kernels and names, nested NVTX ranges, the rest of
 * the message types, the Python side's samples (with repeats of a
 * stack) and allocator events, and operators from the RecordFunction
 * observer. See README.md, "Fuzzing".
 */

#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "fuzz-common.h"
#include "ks-record-session.h"
#include "ks-sqlite-reader.h"
#include "ks-wire.h"

int LLVMFuzzerInitialize (int *argc, char ***argv);
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static GByteArray *
stream_add (GByteArray *s,
            void       *msg,
            uint32_t    fixed_size,
            uint16_t    type,
            const char *text)
{
  KsWireHeader *h = msg;
  uint32_t text_len = text ? (uint32_t) strlen (text) + 1 : 0;
  static const guint8 zeros[8];

  h->type = type;
  h->size = ks_wire_align (fixed_size + text_len);
  g_byte_array_append (s, msg, fixed_size);
  if (text_len)
    g_byte_array_append (s, (const guint8 *) text, text_len);
  g_byte_array_append (s, zeros, h->size - fixed_size - text_len);
  return s;
}

static void
write_seed (const char *dir,
            const char *name,
            GByteArray *s)
{
  g_autofree char *path = g_build_filename (dir, name, NULL);

  g_assert (g_file_set_contents (path, (const char *) s->data, s->len, NULL));
  g_byte_array_unref (s);
}

static void
write_seeds (const char *dir)
{
  uint64_t t = 1000000000u;   /* 1 s after the recording starts: rebase_times() */
  GByteArray *s;

  g_mkdir_with_parents (dir, 0755);

  /* Two launches, one by the runtime, one by the driver, with kernels. */
  s = g_byte_array_new ();
  {
    KsWireString str = { { 0 } };
    KsWireThreadName tn = { { 0 } };
    KsWireApi api = { { 0 } };
    KsWireKernel k = { { 0 } };
    KsWireMemcpy m = { { 0 } };

    str.id = 1;
    stream_add (s, &str, sizeof str, KS_WIRE_STRING, "cudaLaunchKernel_v7000");
    str.id = 2;
    stream_add (s, &str, sizeof str, KS_WIRE_STRING, "_Z4spinyPi");
    str.id = 3;
    stream_add (s, &str, sizeof str, KS_WIRE_STRING, "cuLaunchKernel");
    tn.tid = 4242;
    stream_add (s, &tn, sizeof tn, KS_WIRE_THREAD_NAME, "main");
    for (uint32_t i = 0; i < 2; i++)
      {
        api.start = t + 1000 + i * 10000;
        api.end = api.start + 3000;
        api.tid = 4242;
        api.correlation_id = 10 + i;
        api.name_id = i ? 3 : 1;
        api.event_class = i ? KS_WIRE_API_DRIVER : KS_WIRE_API_RUNTIME;
        stream_add (s, &api, sizeof api, KS_WIRE_API, NULL);
        k.start = api.end + 2000;
        k.end = k.start + 5000;
        k.stream_id = 7;
        k.correlation_id = api.correlation_id;
        k.name_id = 2;
        k.grid[0] = k.grid[1] = k.grid[2] = 1;
        k.block[0] = 32;
        k.block[1] = k.block[2] = 1;
        stream_add (s, &k, sizeof k, KS_WIRE_KERNEL, NULL);
      }
    m.start = t + 30000;
    m.end = t + 31000;
    m.bytes = 4096;
    m.stream_id = 13;
    m.correlation_id = 20;
    m.copy_kind = 1;
    stream_add (s, &m, sizeof m, KS_WIRE_MEMCPY, NULL);
  }
  write_seed (dir, "launches", s);

  /* NVTX: a domain, nested push/pop ranges, a start/end range, a mark. */
  s = g_byte_array_new ();
  {
    KsWireNvtxDomain d = { { 0 } };
    KsWireNvtx n = { { 0 } };

    d.timestamp = t;
    d.domain_id = 1;
    d.tid = 4242;
    stream_add (s, &d, sizeof d, KS_WIRE_NVTX_DOMAIN, "selftest");
    n.tid = n.end_tid = 4242;
    n.text_kind = KS_WIRE_NVTX_TEXT_INLINE;
    n.event_type = KS_NVTX_PUSH_POP;
    n.start = t + 100;
    n.end = t + 900;
    n.depth = 1;
    n.domain_id = 1;
    n.has_color = 1;
    n.color = 0xff00ff00;
    stream_add (s, &n, sizeof n, KS_WIRE_NVTX, "inner");
    n.start = t + 50;
    n.end = t + 1000;
    n.depth = 0;
    stream_add (s, &n, sizeof n, KS_WIRE_NVTX, "outer");
    n.event_type = KS_NVTX_START_END;
    n.range_id = 7;
    n.start = t + 500;
    n.end = t + 5000;
    n.end_tid = 4243;
    n.payload_type = 4;
    n.payload = 42;
    stream_add (s, &n, sizeof n, KS_WIRE_NVTX, "copies");
    n.event_type = KS_NVTX_MARK;
    n.start = n.end = t + 6000;
    stream_add (s, &n, sizeof n, KS_WIRE_NVTX, "done");
  }
  write_seed (dir, "nvtx", s);

  /* The other message types. */
  s = g_byte_array_new ();
  {
    KsWireDevice dev = { { 0 } };
    KsWireContext ctx = { { 0 } };
    KsWireStream st = { { 0 } };
    KsWireMemory mem = { { 0 } };
    KsWireMemset ms = { { 0 } };
    KsWireSync sy = { { 0 } };
    KsWireOsrt os = { { 0 } };
    KsWireCapture cap = { { 0 } };
    KsWireDrops dr = { { 0 } };
    KsWireDiag dg = { { 0 } };
    KsWireHeader bye = { 0 };

    dev.id = 0;
    dev.sm_count = 132;
    dev.total_memory = 1ull << 37;
    stream_add (s, &dev, sizeof dev, KS_WIRE_DEVICE, "NVIDIA H200");
    ctx.context_id = 1;
    ctx.null_stream_id = 7;
    stream_add (s, &ctx, sizeof ctx, KS_WIRE_CONTEXT, NULL);
    st.context_id = 1;
    st.stream_id = 13;
    stream_add (s, &st, sizeof st, KS_WIRE_STREAM, NULL);
    mem.timestamp = t + 10;
    mem.address = 0x7f0000000000ull;
    mem.bytes = 1 << 20;
    mem.operation = KS_WIRE_MEMORY_ALLOC;
    stream_add (s, &mem, sizeof mem, KS_WIRE_MEMORY, NULL);
    mem.timestamp = t + 9000;
    mem.operation = KS_WIRE_MEMORY_FREE;
    stream_add (s, &mem, sizeof mem, KS_WIRE_MEMORY, NULL);
    ms.start = t + 100;
    ms.end = t + 200;
    ms.bytes = 512;
    ms.stream_id = 13;
    stream_add (s, &ms, sizeof ms, KS_WIRE_MEMSET, NULL);
    sy.start = t + 300;
    sy.end = t + 800;
    sy.stream_id = 13;
    sy.sync_type = 3;
    stream_add (s, &sy, sizeof sy, KS_WIRE_SYNC, NULL);
    os.start = t + 1000;
    os.end = t + 90000;
    os.tid = 4242;
    os.function = 1;
    stream_add (s, &os, sizeof os, KS_WIRE_OSRT, NULL);
    cap.timestamp = t + 2000;
    cap.state = KS_WIRE_CAPTURE_START;
    stream_add (s, &cap, sizeof cap, KS_WIRE_CAPTURE, NULL);
    dr.channel_dropped = 3;
    stream_add (s, &dr, sizeof dr, KS_WIRE_DROPS, NULL);
    dg.timestamp = t + 3000;
    dg.severity = KS_WIRE_DIAG_WARNING;
    stream_add (s, &dg, sizeof dg, KS_WIRE_DIAG, "something to say");
    stream_add (s, &bye, sizeof bye, KS_WIRE_BYE, NULL);
  }
  write_seed (dir, "other", s);

  /* The Python side: names, a shallow and a deepest stack, repeats of a
   * stack, allocator events of two devices. */
  s = g_byte_array_new ();
  {
    KsWireString str = { { 0 } };
    struct {
      KsWirePySample s;
      KsWirePyFrame  f[KS_WIRE_PY_MAX_FRAMES];
    } py;
    KsWireAllocator al = { { 0 } };

    str.id = 1;
    stream_add (s, &str, sizeof str, KS_WIRE_STRING, "/srv/train.py");
    str.id = 2;
    stream_add (s, &str, sizeof str, KS_WIRE_STRING, "Trainer.step");
    str.id = 3;
    stream_add (s, &str, sizeof str, KS_WIRE_STRING, "<module>");
    memset (&py, 0, sizeof py);
    py.s.timestamp = t + 100;
    py.s.tid = 4242;
    py.s.n_frames = 2;
    py.f[0] = (KsWirePyFrame) { 1, 2, 57 };
    py.f[1] = (KsWirePyFrame) { 1, 3, 120 };
    stream_add (s, &py, sizeof py.s + 2 * sizeof py.f[0], KS_WIRE_PY_SAMPLE, NULL);
    /* no frames: the thread's previous stack again; on a thread that
     * sent none, counted and dropped */
    py.s.timestamp = t + 600;
    py.s.n_frames = 0;
    stream_add (s, &py, sizeof py.s, KS_WIRE_PY_SAMPLE, NULL);
    py.s.tid = 4243;
    stream_add (s, &py, sizeof py.s, KS_WIRE_PY_SAMPLE, NULL);
    py.s.tid = 4242;
    py.s.timestamp = t + 1100;
    py.s.n_frames = KS_WIRE_PY_MAX_FRAMES;
    for (guint i = 0; i < KS_WIRE_PY_MAX_FRAMES; i++)
      py.f[i] = (KsWirePyFrame) { 1, 2 + (i % 2), i };
    stream_add (s, &py, sizeof py, KS_WIRE_PY_SAMPLE, NULL);
    al.timestamp = t + 2000;
    al.address = 0x7f0000000000;
    al.bytes = 512;
    al.total_allocated = 512;
    al.total_reserved = 2 << 20;
    stream_add (s, &al, sizeof al, KS_WIRE_ALLOCATOR, NULL);
    al.timestamp = t + 3000;
    al.bytes = -512;
    al.total_allocated = 0;
    al.device_id = 1;
    al.tid = 4242;
    stream_add (s, &al, sizeof al, KS_WIRE_ALLOCATOR, NULL);
  }
  write_seed (dir, "python", s);

  /* PyTorch operators from the RecordFunction observer: one inside
   * another, with sizes, with sizes cut short, and one whose name was
   * never sent. */
  s = g_byte_array_new ();
  {
    KsWireString str = { { 0 } };
    struct {
      KsWireTorchOp m;
      int64_t       words[KS_WIRE_TORCH_MAX_WORDS];
    } op;

    str.id = 1;
    stream_add (s, &str, sizeof str, KS_WIRE_STRING, "aten::linear");
    str.id = 2;
    stream_add (s, &str, sizeof str, KS_WIRE_STRING, "aten::addmm");
    memset (&op, 0, sizeof op);
    op.m.start = t + 200;
    op.m.end = t + 300;
    op.m.handle = 2;
    op.m.seq = 11;
    op.m.tid = 4242;
    op.m.name_id = 2;
    op.m.depth = 1;
    op.m.flags = KS_WIRE_TORCH_OP_SHAPES;
    op.m.n_inputs = 2;
    op.m.n_words = 5;
    memcpy (op.words, (int64_t[]) { 1, 16, 2, 8, 32 }, 5 * sizeof (int64_t));
    stream_add (s, &op, sizeof op.m + 5 * sizeof (int64_t), KS_WIRE_TORCH_OP, NULL);
    op.m.start = t + 100;
    op.m.end = t + 400;
    op.m.handle = 1;
    op.m.seq = 10;
    op.m.name_id = 1;
    op.m.depth = 0;
    op.m.flags = KS_WIRE_TORCH_OP_SHAPES | KS_WIRE_TORCH_OP_TRUNCATED;
    op.m.n_inputs = 1;
    op.m.n_words = 3;
    stream_add (s, &op, sizeof op.m + 3 * sizeof (int64_t), KS_WIRE_TORCH_OP, NULL);
    op.m.start = t + 500;
    op.m.end = t + 600;
    op.m.seq = -1;
    op.m.name_id = 9;
    op.m.flags = 0;
    op.m.n_inputs = 0;
    op.m.n_words = 0;
    stream_add (s, &op, sizeof op.m, KS_WIRE_TORCH_OP, NULL);
  }
  write_seed (dir, "torch-ops", s);
}

static void
add_time (guint8   *msg,
          gsize     offset,
          uint64_t  base)
{
  uint64_t v;

  memcpy (&v, msg + offset, sizeof v);
  v += base;
  memcpy (msg + offset, &v, sizeof v);
}

/* Times in the inputs count from the start of the recording, so that the
 * seeds' events (1 s after it) are not dropped as older than the
 * recording; the messages that parse get @base added to their times. */
static void
rebase_times (guint8   *data,
              gsize     size,
              uint64_t  base)
{
  gsize offset = 0;
  KsWireHeader h;

  while (ks_wire_whole_message (data + offset, size - offset, &h))
    {
      switch (h.type)
        {
        case KS_WIRE_KERNEL: case KS_WIRE_MEMCPY: case KS_WIRE_MEMSET: case KS_WIRE_API:
        case KS_WIRE_SYNC: case KS_WIRE_NVTX: case KS_WIRE_OSRT: case KS_WIRE_TORCH_OP:
          if (h.size >= sizeof h + 16)
            {
              add_time (data + offset, sizeof h, base);
              add_time (data + offset, sizeof h + 8, base);
            }
          break;
        case KS_WIRE_MEMORY: case KS_WIRE_NVTX_DOMAIN: case KS_WIRE_CAPTURE: case KS_WIRE_DIAG:
        case KS_WIRE_PY_SAMPLE: case KS_WIRE_ALLOCATOR:
          if (h.size >= sizeof h + 8)
            add_time (data + offset, sizeof h, base);
          break;
        default:
          break;
        }
      offset += h.size;
    }
}

int
LLVMFuzzerInitialize (int    *argc,
                      char ***argv)
{
  const char *seeds = g_getenv ("KS_FUZZ_WRITE_SEEDS");

  if (seeds != NULL)
    {
      write_seeds (seeds);
      printf ("seeds written to %s\n", seeds);
      exit (0);
    }
  return 0;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  const char *path = fuzz_temp_file ("wire.kscope");
  KsRecordOptions options = { 0 };
  g_autoptr(GFile) file = NULL;
  GError *error = NULL;
  KsRecordSession *session;
  KsRecordConnection *conn;
  KsWireHello hello = { { 0 } };
  KsTrace *trace;
  gsize split = size > 0 ? data[0] % (size + 1) : 0;
  g_autofree guint8 *copy = g_malloc (size + 1);   /* not NULL when empty */
  uint64_t base = (uint64_t) g_get_monotonic_time () * 1000;   /* CLOCK_MONOTONIC, as the recorder's */

  fuzz_init ();
  g_unlink (path);

  options.capture_range = (char *) "none";
  options.trace = KS_RECORD_TRACE_CUDA | KS_RECORD_TRACE_NVTX | KS_RECORD_TRACE_OSRT;
  session = ks_record_session_new (path, &options, &error);
  g_assert_no_error (error);

  conn = ks_record_connection_new (session);
  ks_wire_hello_init (&hello, 4242);
  g_assert (ks_record_connection_feed (conn, (const guint8 *) &hello, sizeof hello));
  if (size > 0)
    memcpy (copy, data, size);
  rebase_times (copy, size, base);
  if (ks_record_connection_feed (conn, copy, split))
    ks_record_connection_feed (conn, copy + split, size - split);
  ks_record_connection_free (conn);

  g_assert (ks_record_session_finish (session, 0, TRUE, "fuzz", &error));
  g_assert_no_error (error);
  ks_record_session_free (session);

  file = g_file_new_for_path (path);
  trace = ks_sqlite_reader_load (file, NULL, NULL, &error);
  if (error != NULL)
    g_error ("%s", error->message);
  fuzz_walk_trace (trace, FALSE);
  g_object_unref (trace);
  return 0;
}
