/* wire-resume.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Speaks the collector's wire protocol to $KINESCOPE_SOCKET itself, as the
 * injection library does when a program closed its socket but the
 * recorder has not seen that connection end yet:
 *
 *   connection 1: HELLO, string 1 "kept", a mark with it, DROPS (2), and
 *   the first 16 bytes of a second mark, cut short;
 *   connection 2, while 1 stays open: HELLO marked KS_WIRE_HELLO_RESUMED
 *   with connection 1's mono_ns, the second mark whole, a third, DROPS
 *   (3, the library's running total), BYE;
 *   connection 1 is closed 300 ms later, when the recorder has long
 *   seen the second HELLO.
 *
 * Besides, a Python sample of the main thread on connection 1 (string 1 as
 * its function and file) and on connection 2 a sample without frames,
 * which repeats it.
 *
 * So the recording holds 3 marks named "kept", one process, 3 dropped, and
 * 2 Python samples of one stack. */

#include "ks-wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static uint64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

static int
connect_recorder (void)
{
  const char *path = getenv (KS_ENV_SOCKET);
  struct sockaddr_un addr;
  int fd = socket (AF_UNIX, SOCK_STREAM, 0);

  if (path == NULL || fd < 0)
    exit (2);
  memset (&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  strncpy (addr.sun_path, path, sizeof addr.sun_path - 1);
  if (connect (fd, (struct sockaddr *) &addr, sizeof addr) != 0)
    exit (2);
  return fd;
}

static void
send_bytes (int         fd,
            const void *data,
            size_t      len)
{
  if (send (fd, data, len, MSG_NOSIGNAL) != (ssize_t) len)
    exit (2);
}

/* @msg with @text after its @fixed_size bytes, padded to 8 */
static void
send_text (int         fd,
           void       *msg,
           uint32_t    fixed_size,
           const char *text)
{
  uint8_t buf[256] = { 0 };
  uint32_t size = ks_wire_align (fixed_size + (uint32_t) strlen (text) + 1);

  ((KsWireHeader *) msg)->size = size;
  memcpy (buf, msg, fixed_size);
  memcpy (buf + fixed_size, text, strlen (text));
  send_bytes (fd, buf, size);
}

static void
hello (int      fd,
       uint64_t mono_ns,
       uint16_t flags)
{
  KsWireHello m;

  ks_wire_hello_init (&m, getpid ());
  m.h.reserved = flags;
  m.ppid = getppid ();
  m.mono_ns = mono_ns;
  send_text (fd, &m, sizeof m, "wire-resume");
}

static KsWireNvtx
mark (void)
{
  KsWireNvtx m;

  memset (&m, 0, sizeof m);
  m.h.size = sizeof m;
  m.h.type = KS_WIRE_NVTX;
  m.start = m.end = now_ns ();
  m.tid = (uint32_t) syscall (SYS_gettid);
  m.event_type = KS_NVTX_MARK;
  m.text_kind = KS_WIRE_NVTX_TEXT_REGISTERED;
  m.text_id = 1;
  return m;
}

/* A Python sample of this thread: string 1 in @n_frames (0 or 1) frames */
static void
py_sample (int      fd,
           uint32_t n_frames)
{
  struct {
    KsWirePySample s;
    KsWirePyFrame  f;
    uint32_t       pad;
  } m;

  memset (&m, 0, sizeof m);
  m.s.h.type = KS_WIRE_PY_SAMPLE;
  m.s.h.size = ks_wire_align ((uint32_t) (sizeof m.s + n_frames * sizeof m.f));
  m.s.timestamp = now_ns ();
  m.s.tid = (uint32_t) syscall (SYS_gettid);
  m.s.n_frames = n_frames;
  m.f = (KsWirePyFrame) { 1, 1, 7 };
  send_bytes (fd, &m, m.s.h.size);
}

static void
drops (int      fd,
       uint64_t channel_dropped)
{
  KsWireDrops m = { { sizeof m, KS_WIRE_DROPS, 0 } };

  m.channel_dropped = channel_dropped;
  send_bytes (fd, &m, sizeof m);
}

int
main (void)
{
  uint64_t first_hello = now_ns ();
  int first = connect_recorder ();
  int second;
  KsWireString string;
  KsWireNvtx m;
  KsWireBye bye = { { sizeof bye, KS_WIRE_BYE, 0 }, 0 };

  hello (first, first_hello, 0);
  memset (&string, 0, sizeof string);
  string.h.type = KS_WIRE_STRING;
  string.id = 1;
  send_text (first, &string, sizeof string, "kept");
  m = mark ();
  send_bytes (first, &m, sizeof m);
  py_sample (first, 1);
  drops (first, 2);
  m = mark ();
  send_bytes (first, &m, 16);

  second = connect_recorder ();
  hello (second, first_hello, KS_WIRE_HELLO_RESUMED);
  send_bytes (second, &m, sizeof m);
  m = mark ();
  send_bytes (second, &m, sizeof m);
  py_sample (second, 0);
  drops (second, 3);
  bye.timestamp = now_ns ();
  send_bytes (second, &bye, sizeof bye);
  close (second);
  usleep (300 * 1000);
  close (first);
  return 0;
}
