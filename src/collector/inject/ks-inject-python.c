/* ks-inject-python.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Entry points for the Python side (src/collector/python), which loads
 * this library with ctypes from KINESCOPE_INJECT_LIBRARY. That is the
 * path CUDA, NVTX and LD_PRELOAD load it from, so the dynamic linker
 * hands back the copy already in the process and Python's samples share
 * its channel, string ids and capture range. */

#include "ks-inject-private.h"

#include <string.h>

KS_EXPORT int      ks_inject_python_begin        (void);
KS_EXPORT void     ks_inject_python_sampler_thread (void);
KS_EXPORT uint32_t ks_inject_python_intern       (const char     *text);
KS_EXPORT int      ks_inject_python_sample       (uint64_t        timestamp,
                                                  uint32_t        tid,
                                                  uint32_t        n_frames,
                                                  const uint32_t *frames);
KS_EXPORT void     ks_inject_python_allocator    (uint64_t        timestamp,
                                                  uint64_t        address,
                                                  int64_t         bytes,
                                                  int64_t         total_allocated,
                                                  int64_t         total_reserved,
                                                  uint32_t        device,
                                                  uint32_t        tid);
KS_EXPORT void     ks_inject_python_diag         (uint32_t        severity,
                                                  const char     *text);
KS_EXPORT void     ks_inject_python_flush        (void);
KS_EXPORT int      ks_inject_python_outside      (uint64_t        flag_address,
                                                  uint32_t        hexversion,
                                                  uint32_t        own_tid);
KS_EXPORT void     ks_inject_python_thread_name  (uint32_t        tid,
                                                  const char     *name);

/* 1 when this process is being recorded (the channel is up). */
KS_EXPORT int
ks_inject_python_begin (void)
{
  ks_inject_config_load ();
  if (!ks_inject_config.active)
    return 0;
  return ks_channel_start () ? 1 : 0;
}

/* The sampler's own thread: its sleeps are not the program's OS runtime
 * calls. Only the Python side's thread calls this, never one of the
 * program's. */
KS_EXPORT void
ks_inject_python_sampler_thread (void)
{
  ks_inject_internal_thread = 1;
}

KS_EXPORT uint32_t
ks_inject_python_intern (const char *text)
{
  if (!ks_inject_config.active)
    return 0;
  return ks_channel_intern (text);
}

KS_EXPORT int
ks_inject_python_sample (uint64_t        timestamp,
                         uint32_t        tid,
                         uint32_t        n_frames,
                         const uint32_t *frames)
{
  struct {
    KsWirePySample s;
    KsWirePyFrame  f[KS_WIRE_PY_MAX_FRAMES + 1];
  } msg;
  uint32_t size;

  /* n_frames 0 (frames NULL): the thread's previous stack again */
  if (!ks_inject_config.active || !ks_inject_capturing () || (frames == NULL && n_frames > 0))
    return 0;
  /* the innermost frames are the ones that say what runs */
  if (n_frames > KS_WIRE_PY_MAX_FRAMES)
    n_frames = KS_WIRE_PY_MAX_FRAMES;

  size = ks_wire_align ((uint32_t) (sizeof msg.s + n_frames * sizeof (KsWirePyFrame)));
  memset (&msg.s, 0, sizeof msg.s);
  msg.s.h.size = size;
  msg.s.h.type = KS_WIRE_PY_SAMPLE;
  msg.s.timestamp = timestamp;
  msg.s.tid = tid;
  msg.s.n_frames = n_frames;
  if (n_frames > 0)
    memcpy (msg.f, frames, n_frames * sizeof (KsWirePyFrame));
  /* padding to the 8-byte boundary */
  memset ((uint8_t *) &msg + sizeof msg.s + n_frames * sizeof (KsWirePyFrame), 0,
          size - sizeof msg.s - n_frames * sizeof (KsWirePyFrame));
  return ks_channel_emit (&msg, size) ? 1 : 0;
}

KS_EXPORT void
ks_inject_python_allocator (uint64_t timestamp,
                            uint64_t address,
                            int64_t  bytes,
                            int64_t  total_allocated,
                            int64_t  total_reserved,
                            uint32_t device,
                            uint32_t tid)
{
  KsWireAllocator msg;

  if (!ks_inject_config.active || !ks_inject_capturing ())
    return;
  memset (&msg, 0, sizeof msg);
  msg.h.size = sizeof msg;
  msg.h.type = KS_WIRE_ALLOCATOR;
  msg.timestamp = timestamp;
  msg.address = address;
  msg.bytes = bytes;
  msg.total_allocated = total_allocated;
  msg.total_reserved = total_reserved;
  msg.device_id = device;
  msg.tid = tid;
  ks_channel_emit (&msg, sizeof msg);
}

KS_EXPORT void
ks_inject_python_diag (uint32_t    severity,
                       const char *text)
{
  if (!ks_inject_config.active)
    return;
  ks_channel_diag (severity, KS_WIRE_DIAG_CODE_PYTHON, "%s", text != NULL ? text : "");
}

/* Before os._exit(), which skips the exit hook that drains the channel:
 * what was emitted so far reaches the recorder (bounded, as at exit). */
KS_EXPORT void
ks_inject_python_flush (void)
{
  if (!ks_inject_config.active)
    return;
  ks_channel_flush (2000);
}

/* Asks the recorder to read this process's stacks from outside: it
 * answers by writing KS_WIRE_PY_OUTSIDE_READ at @flag_address. 1 when
 * the request is on its way. */
KS_EXPORT int
ks_inject_python_outside (uint64_t flag_address,
                          uint32_t hexversion,
                          uint32_t own_tid)
{
  KsWirePyOutside msg;

  if (!ks_inject_config.active)
    return 0;
  memset (&msg, 0, sizeof msg);
  msg.h.size = sizeof msg;
  msg.h.type = KS_WIRE_PY_OUTSIDE;
  msg.flag_address = flag_address;
  msg.hexversion = hexversion;
  msg.own_tid = own_tid;
  if (!ks_channel_emit (&msg, sizeof msg))
    return 0;
  /* now: the recorder's answer is what the Python side waits for */
  ks_channel_flush (1000);
  return 1;
}

/* A thread's Python name (threading.Thread.name), which the recording
 * shows rather than the kernel's (all "python3"). */
KS_EXPORT void
ks_inject_python_thread_name (uint32_t    tid,
                              const char *name)
{
  KsWireThreadName msg;

  if (!ks_inject_config.active || name == NULL)
    return;
  memset (&msg, 0, sizeof msg);
  msg.h.type = KS_WIRE_THREAD_NAME;
  msg.tid = tid;
  ks_channel_emit_text (&msg, sizeof msg, name, strlen (name));
}
