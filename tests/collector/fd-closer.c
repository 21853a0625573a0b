/* fd-closer.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* A program that closes every file descriptor it did not open itself, as
 * daemons and Python's os.closerange() do, while being recorded:
 *
 *   domain "fd-domain", a registered string "kept", one mark with it and
 *   2 × nanosleep (20 ms, then 120 ms so the collector sends what it has);
 *   then every descriptor above 2 is closed: argv[1] = "close" with
 *   close() on each, "close-range" with one close_range();
 *   then a socket pair of its own (it takes the lowest numbers, where the
 *   collector's socket may have been), and 20 × (nanosleep 2 ms, mark
 *   "kept" in "fd-domain"), and a last nanosleep of 100 ms;
 *   exits 4 if anything arrived on its socket pair that it did not send,
 *   else prints "done" and exits 0.
 *
 * So a recording with -t nvtx,osrt holds 23 nanosleep calls and 21 marks. */

#include <nvtx3/nvToolsExt.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void
sleep_ms (long ms)
{
  struct timespec ts = { 0, ms * 1000 * 1000 };

  nanosleep (&ts, NULL);
}

static void
mark (nvtxDomainHandle_t domain,
      nvtxStringHandle_t text)
{
  nvtxEventAttributes_t attr;

  memset (&attr, 0, sizeof attr);
  attr.version = NVTX_VERSION;
  attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  attr.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  attr.message.registered = text;
  nvtxDomainMarkEx (domain, &attr);
}

int
main (int    argc,
      char **argv)
{
  const char *mode = argc > 1 ? argv[1] : "close";
  nvtxDomainHandle_t domain;
  nvtxStringHandle_t kept;
  int pair[2];
  char byte;

  domain = nvtxDomainCreateA ("fd-domain");
  kept = nvtxDomainRegisterStringA (domain, "kept");
  mark (domain, kept);
  sleep_ms (20);
  sleep_ms (120);

  if (strcmp (mode, "close-range") == 0)
    {
      if (close_range (3, ~0u, 0) != 0)
        return 2;
    }
  else
    {
      struct rlimit rl;

      getrlimit (RLIMIT_NOFILE, &rl);
      for (int fd = 3; fd < (int) rl.rlim_cur; fd++)
        close (fd);
    }

  if (socketpair (AF_UNIX, SOCK_STREAM, 0, pair) != 0)
    return 2;

  for (int i = 0; i < 20; i++)
    {
      sleep_ms (2);
      mark (domain, kept);
    }

  /* Nothing was written to either end: whatever is there is not ours. */
  sleep_ms (100);
  if (recv (pair[0], &byte, 1, MSG_DONTWAIT) >= 0 || recv (pair[1], &byte, 1, MSG_DONTWAIT) >= 0)
    {
      fprintf (stderr, "fd-closer: data arrived on a socket nobody wrote to\n");
      return 4;
    }

  printf ("done\n");
  return 0;
}
