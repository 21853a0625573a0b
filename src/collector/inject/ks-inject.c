/* ks-inject.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Entry points of libkinescope-inject.so.
 *
 * The CUDA driver calls InitializeInjection() during cuInit when
 * CUDA_INJECTION64_PATH names this library; every NVTX-instrumented
 * module calls InitializeInjectionNvtx2() (ks-inject-nvtx.c) at its first
 * NVTX call when NVTX_INJECTION64_PATH does. Nothing happens at load time:
 * no constructor, no thread, so that processes which never use CUDA or
 * NVTX (shells, DataLoader workers) are left alone. */

#include "ks-inject-private.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

KsInjectConfig ks_inject_config;

static pthread_once_t config_once = PTHREAD_ONCE_INIT;
static atomic_bool    capturing;
static atomic_uint_fast64_t last_capture_stop;
static atomic_bool    exit_hook_done;
static atomic_int     cuda_init_pid;

static bool
list_has (const char *list,
          const char *word)
{
  size_t n = strlen (word);
  const char *p = list;

  while (p != NULL && *p)
    {
      if (strncmp (p, word, n) == 0 && (p[n] == 0 || p[n] == ','))
        return true;
      p = strchr (p, ',');
      if (p != NULL)
        p++;
    }
  return false;
}

static int32_t
env_int32 (const char *name,
           int32_t     fallback)
{
  uint64_t v = ks_inject_parse_u64 (getenv (name), UINT64_MAX);

  return v <= INT32_MAX ? (int32_t) v : fallback;
}

static void
config_load_once (void)
{
  const char *socket_path = getenv (KS_ENV_SOCKET);
  const char *trace = getenv (KS_ENV_TRACE);
  const char *capture = getenv (KS_ENV_CAPTURE);
  const char *threshold = getenv (KS_ENV_OSRT_THRESHOLD);
  const char *memory = getenv (KS_ENV_CUDA_MEMORY);
  KsInjectConfig *c = &ks_inject_config;

  memset (c, 0, sizeof *c);
  if (socket_path == NULL || !*socket_path || strlen (socket_path) >= sizeof c->socket_path)
    return;

  c->active = true;
  strcpy (c->socket_path, socket_path);
  if (trace == NULL)
    trace = "cuda,nvtx";
  c->trace_cuda = list_has (trace, "cuda");
  c->trace_nvtx = list_has (trace, "nvtx");
  c->trace_osrt = list_has (trace, "osrt");
  c->cuda_memory = memory == NULL || strcmp (memory, "0") != 0;
  c->osrt_threshold_ns = ks_inject_parse_u64 (threshold, 10000);

  if (capture == NULL || strcmp (capture, "none") == 0 || !*capture)
    c->capture_mode = KS_CAPTURE_NONE;
  else if (strcmp (capture, "cudaProfilerApi") == 0)
    c->capture_mode = KS_CAPTURE_CUDA_PROFILER_API;
  else if (strncmp (capture, "nvtx:", 5) == 0)
    {
      c->capture_mode = KS_CAPTURE_NVTX;
      strncpy (c->capture_nvtx, capture + 5, sizeof c->capture_nvtx - 1);
    }

  /* a rank of a distributed job: what torchrun and Slurm launchers set */
  c->rank = env_int32 ("RANK", -1);
  c->local_rank = env_int32 ("LOCAL_RANK", -1);
  c->world_size = env_int32 ("WORLD_SIZE", 0);
  c->local_world_size = env_int32 ("LOCAL_WORLD_SIZE", 0);

  atomic_store (&capturing, c->capture_mode == KS_CAPTURE_NONE);
}

/* A decimal number from the environment; @fallback when unset, empty or
 * not a number. Not strtoull(): built against glibc 2.38 or later with
 * _GNU_SOURCE it becomes __isoc23_strtoull, which the older glibc of the
 * host (the library is loaded into programs there, also from the Flatpak)
 * does not have. */
uint64_t
ks_inject_parse_u64 (const char *text,
                     uint64_t    fallback)
{
  uint64_t v = 0;

  if (text == NULL || *text == '\0')
    return fallback;
  for (const char *p = text; *p != '\0'; p++)
    {
      if (*p < '0' || *p > '9' || v > (UINT64_MAX - (uint64_t) (*p - '0')) / 10)
        return fallback;
      v = v * 10 + (uint64_t) (*p - '0');
    }
  return v;
}

void
ks_inject_config_load (void)
{
  pthread_once (&config_once, config_load_once);
}

uint64_t
ks_inject_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

/* Bumped in every forked child: a thread's cached tid is stale there.
 * (getpid() is a system call since glibc 2.25, too slow for each NVTX
 * call.) */
static atomic_uint     fork_generation = 1;
static pthread_once_t  fork_watch_once = PTHREAD_ONCE_INIT;

static void
bump_fork_generation (void)
{
  atomic_fetch_add_explicit (&fork_generation, 1, memory_order_relaxed);
}

static void
watch_forks (void)
{
  pthread_atfork (NULL, NULL, bump_fork_generation);
}

uint32_t
ks_inject_gettid (void)
{
  static __thread uint32_t cached_tid;
  static __thread unsigned cached_generation;   /* 0: not cached */
  unsigned generation = atomic_load_explicit (&fork_generation, memory_order_relaxed);

  if (__builtin_expect (cached_generation != generation, 0))
    {
      pthread_once (&fork_watch_once, watch_forks);
      cached_tid = (uint32_t) syscall (SYS_gettid);
      cached_generation = generation;
    }
  return cached_tid;
}

bool
ks_inject_capturing (void)
{
  return atomic_load_explicit (&capturing, memory_order_relaxed);
}

uint64_t
ks_inject_last_capture_stop (void)
{
  return atomic_load (&last_capture_stop);
}

void
ks_inject_set_capturing (bool     on,
                         uint64_t timestamp)
{
  KsWireCapture msg;

  if (atomic_exchange (&capturing, on) == on)
    return;
  if (!on)
    atomic_store (&last_capture_stop, timestamp);

  memset (&msg, 0, sizeof msg);
  msg.h.size = sizeof msg;
  msg.h.type = KS_WIRE_CAPTURE;
  msg.timestamp = timestamp;
  msg.state = on ? KS_WIRE_CAPTURE_START : KS_WIRE_CAPTURE_STOP;
  msg.tid = ks_inject_gettid ();
  ks_channel_emit (&msg, sizeof msg);
  /* The recorder reads Python stacks only while a process captures: the
   * sooner it knows, the fewer samples a range misses at its start. */
  ks_channel_wake ();

  ks_cupti_capture_changed (on);
  ks_torch_capture_changed ();
}

static void
at_exit (void)
{
  /* Forced flush: returns buffers with incomplete records too. Then the
   * sender thread drains everything and says goodbye; bounded, so that a
   * stuck recorder cannot hold the exit of the program. */
  ks_cupti_flush (true);
  ks_channel_close (5000);
}

void
ks_inject_ensure_exit_hook (void)
{
  if (!atomic_exchange (&exit_hook_done, true))
    atexit (at_exit);
}

KS_EXPORT int InitializeInjection (void);

KS_EXPORT int
InitializeInjection (void)
{
  int pid = (int) getpid ();

  ks_inject_config_load ();
  if (!ks_inject_config.active || !ks_inject_config.trace_cuda)
    return 1;

  /* Once per process; a child forked from an initialized parent cannot
   * use CUDA, but one forked before cuInit may call us again. */
  if (atomic_exchange (&cuda_init_pid, pid) == pid)
    return 1;

  if (!ks_channel_start ())
    return 1;

  ks_cupti_init ();
  return 1;
}

/* For libkinescope-osrt.so, which is preloaded and reports through our
 * channel. */
KS_EXPORT uint64_t ks_inject_osrt_threshold_ns (void);
KS_EXPORT void     ks_inject_osrt_record       (uint32_t function,
                                                uint64_t start,
                                                uint64_t end,
                                                int64_t  return_value);

KS_EXPORT uint64_t
ks_inject_osrt_threshold_ns (void)
{
  ks_inject_config_load ();
  if (!ks_inject_config.active || !ks_inject_config.trace_osrt)
    return UINT64_MAX;
  return ks_inject_config.osrt_threshold_ns;
}

KS_EXPORT void
ks_inject_osrt_record (uint32_t function,
                       uint64_t start,
                       uint64_t end,
                       int64_t  return_value)
{
  KsWireOsrt msg;

  /* Our own threads' waits are not the program's. */
  if (ks_inject_internal_thread || !ks_inject_capturing ())
    return;

  memset (&msg, 0, sizeof msg);
  msg.h.size = sizeof msg;
  msg.h.type = KS_WIRE_OSRT;
  msg.start = start;
  msg.end = end;
  msg.return_value = return_value;
  msg.tid = ks_inject_gettid ();
  msg.function = function;
  ks_channel_emit (&msg, sizeof msg);
}
