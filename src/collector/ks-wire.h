/* ks-wire.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

/* The messages a traced process sends to `kinescope-cli record` over its
 * Unix socket. Both ends are built from this header and run on the same
 * host, so structs travel in native layout. Every message starts with a
 * KsWireHeader whose size covers the header, the fixed body and any
 * trailing NUL-terminated text, rounded up to 8 bytes.
 *
 * Strings: kernel and API names are sent once as KS_WIRE_STRING (id,
 * text) before the first record that uses the id; ids are unique within
 * one connection. Times are CLOCK_MONOTONIC nanoseconds (CUPTI is moved
 * onto that clock with a timestamp callback, or shifted by a measured
 * offset when the callback is refused).
 *
 * No GLib here: the injection library includes it too. */

#include <stdint.h>
#include <string.h>

#define KS_WIRE_MAGIC   0x4B535731u /* "KSW1" */
#define KS_WIRE_VERSION 1u
#define KS_WIRE_MAX_MESSAGE (64u * 1024u)
#define KS_WIRE_MAX_TEXT    4000u

typedef enum
{
  KS_WIRE_HELLO = 1,
  KS_WIRE_STRING,
  KS_WIRE_THREAD_NAME,
  KS_WIRE_KERNEL,
  KS_WIRE_MEMCPY,
  KS_WIRE_MEMSET,
  KS_WIRE_API,
  KS_WIRE_SYNC,
  KS_WIRE_MEMORY,
  KS_WIRE_DEVICE,
  KS_WIRE_CONTEXT,
  KS_WIRE_STREAM,
  KS_WIRE_NVTX,
  KS_WIRE_NVTX_DOMAIN,
  KS_WIRE_OSRT,
  KS_WIRE_DROPS,
  KS_WIRE_CAPTURE,
  KS_WIRE_DIAG,
  KS_WIRE_BYE,
  KS_WIRE_PY_SAMPLE,
  KS_WIRE_ALLOCATOR,
  KS_WIRE_RANK,
  KS_WIRE_TORCH_OP,
  KS_WIRE_PY_OUTSIDE,
  KS_WIRE_N_TYPES
} KsWireType;

typedef struct
{
  uint32_t size;
  uint16_t type;
  uint16_t reserved;
} KsWireHeader;

/* HELLO flags, in h.reserved */
#define KS_WIRE_HELLO_CUDA_INJECTED 0x1u  /* arrived through CUDA_INJECTION64_PATH */
/* The same process again on a new connection, its earlier one having been
 * closed under it (a program that closes every descriptor): ids, domains
 * and counters carry on from that connection, whose HELLO had the same
 * mono_ns. */
#define KS_WIRE_HELLO_RESUMED       0x2u

typedef struct
{
  KsWireHeader h;
  uint32_t magic;
  uint32_t version;
  int64_t  pid;
  int64_t  ppid;
  uint64_t mono_ns;
  uint64_t realtime_ns;
  /* followed by the process name (comm) */
} KsWireHello;

typedef struct
{
  KsWireHeader h;
  uint32_t id;
  uint32_t pad;
  /* followed by the text */
} KsWireString;

typedef struct
{
  KsWireHeader h;
  uint32_t tid;
  uint32_t pad;
  /* followed by the name */
} KsWireThreadName;

typedef struct
{
  KsWireHeader h;
  uint64_t start;
  uint64_t end;
  uint32_t device_id;
  uint32_t context_id;
  uint32_t stream_id;
  uint32_t correlation_id;
  int32_t  grid[3];
  int32_t  block[3];
  int32_t  static_shared;
  int32_t  dynamic_shared;
  uint32_t local_per_thread;
  uint32_t shared_executed;
  uint64_t local_total;
  int64_t  grid_id;
  uint64_t graph_node_id;
  uint32_t graph_id;
  uint32_t name_id;
  uint16_t registers;
  uint8_t  launch_type;
  uint8_t  cache_config;
  uint32_t pad;
} KsWireKernel;

typedef struct
{
  KsWireHeader h;
  uint64_t start;
  uint64_t end;
  uint64_t bytes;
  uint64_t graph_node_id;
  uint32_t device_id;
  uint32_t context_id;
  uint32_t stream_id;
  uint32_t correlation_id;
  uint32_t runtime_correlation_id;
  uint32_t src_device_id;
  uint32_t dst_device_id;
  uint8_t  copy_kind;
  uint8_t  src_kind;
  uint8_t  dst_kind;
  uint8_t  flags;
} KsWireMemcpy;

typedef struct
{
  KsWireHeader h;
  uint64_t start;
  uint64_t end;
  uint64_t bytes;
  uint64_t graph_node_id;
  uint32_t device_id;
  uint32_t context_id;
  uint32_t stream_id;
  uint32_t correlation_id;
  uint32_t value;
  uint16_t mem_kind;
  uint16_t pad;
} KsWireMemset;

#define KS_WIRE_API_RUNTIME 0
#define KS_WIRE_API_DRIVER  1

typedef struct
{
  KsWireHeader h;
  uint64_t start;
  uint64_t end;
  uint32_t tid;
  uint32_t correlation_id;
  uint32_t return_value;
  uint32_t name_id;
  uint32_t cbid;
  uint32_t event_class;   /* KS_WIRE_API_RUNTIME or _DRIVER */
} KsWireApi;

typedef struct
{
  KsWireHeader h;
  uint64_t start;
  uint64_t end;
  uint32_t context_id;
  uint32_t stream_id;
  uint32_t correlation_id;
  uint32_t sync_type;     /* CUpti_ActivitySynchronizationType */
  uint32_t event_id;
  uint32_t pad;
} KsWireSync;

#define KS_WIRE_MEMORY_ALLOC 1
#define KS_WIRE_MEMORY_FREE  2

typedef struct
{
  KsWireHeader h;
  uint64_t timestamp;
  uint64_t address;
  uint64_t bytes;
  uint32_t device_id;
  uint32_t context_id;
  uint32_t stream_id;
  uint32_t correlation_id;
  uint8_t  operation;     /* KS_WIRE_MEMORY_ALLOC / _FREE */
  uint8_t  memory_kind;
  uint8_t  pad[6];
} KsWireMemory;

typedef struct
{
  KsWireHeader h;
  uint64_t total_memory;
  uint64_t memory_bandwidth;
  uint32_t id;
  uint32_t l2_cache_size;
  uint32_t sm_count;
  uint32_t clock_rate_khz;
  uint32_t compute_major;
  uint32_t compute_minor;
  uint32_t max_threads_per_block;
  uint32_t max_warps_per_sm;
  uint32_t max_shmem_per_sm;
  uint32_t max_registers_per_sm;
  uint32_t threads_per_warp;
  uint32_t max_blocks_per_sm;
  uint32_t max_registers_per_block;
  uint32_t max_shmem_per_block;
  uint32_t constant_memory;
  uint32_t pad;
  uint8_t  uuid[16];
  /* followed by the device name */
} KsWireDevice;

typedef struct
{
  KsWireHeader h;
  uint32_t context_id;
  uint32_t device_id;
  uint32_t null_stream_id;
  uint32_t pad;
} KsWireContext;

typedef struct
{
  KsWireHeader h;
  uint32_t context_id;
  uint32_t stream_id;
  uint32_t priority;
  uint32_t flag;
} KsWireStream;

/* Nsight's NVTX_EVENTS.eventType values */
#define KS_NVTX_MARK       34
#define KS_NVTX_PUSH_POP   59
#define KS_NVTX_START_END  60
#define KS_NVTX_DOMAIN     75

#define KS_WIRE_NVTX_TEXT_NONE       0
#define KS_WIRE_NVTX_TEXT_INLINE     1
#define KS_WIRE_NVTX_TEXT_REGISTERED 2

typedef struct
{
  KsWireHeader h;
  uint64_t start;
  uint64_t end;           /* equal to start for marks */
  uint64_t range_id;
  uint64_t payload;       /* raw bits of the payload union */
  uint32_t tid;
  uint32_t end_tid;
  uint32_t event_type;    /* KS_NVTX_* */
  uint32_t domain_id;     /* 0: the default domain */
  uint32_t category;
  uint32_t color;
  uint32_t text_id;       /* with KS_WIRE_NVTX_TEXT_REGISTERED */
  uint8_t  has_color;
  uint8_t  payload_type;  /* NVTX_PAYLOAD_TYPE_*, 0 = none */
  uint8_t  text_kind;
  uint8_t  depth;
  /* followed by the message with KS_WIRE_NVTX_TEXT_INLINE */
} KsWireNvtx;

typedef struct
{
  KsWireHeader h;
  uint64_t timestamp;
  uint32_t domain_id;
  uint32_t tid;
  /* followed by the domain name */
} KsWireNvtxDomain;

typedef struct
{
  KsWireHeader h;
  uint64_t start;
  uint64_t end;
  int64_t  return_value;
  uint32_t tid;
  uint32_t function;      /* KsOsrtFunction */
} KsWireOsrt;

typedef struct
{
  KsWireHeader h;
  uint64_t channel_dropped;  /* events lost because the in-process buffer was full */
  uint64_t cupti_dropped;    /* records CUPTI reported as dropped */
  uint64_t cupti_zero_time;  /* GPU records without timestamps (skipped) */
} KsWireDrops;

#define KS_WIRE_CAPTURE_STOP  0
#define KS_WIRE_CAPTURE_START 1

typedef struct
{
  KsWireHeader h;
  uint64_t timestamp;
  uint32_t state;
  uint32_t tid;
} KsWireCapture;

#define KS_WIRE_DIAG_INFO    0
#define KS_WIRE_DIAG_WARNING 1
#define KS_WIRE_DIAG_ERROR   2

/* KS_WIRE_DIAG codes the recorder acts upon */
#define KS_WIRE_DIAG_CODE_GENERIC            0
#define KS_WIRE_DIAG_CODE_OTHER_SUBSCRIBER   1  /* another CUPTI client holds the subscriber slot */
#define KS_WIRE_DIAG_CODE_CUPTI_UNAVAILABLE  2
#define KS_WIRE_DIAG_CODE_CUPTI_INFO         3  /* version and path of the libcupti in use */
#define KS_WIRE_DIAG_CODE_PYTHON             4  /* from the Python side (sitecustomize) */

typedef struct
{
  KsWireHeader h;
  uint64_t timestamp;
  uint32_t severity;
  uint32_t code;
  /* followed by the text */
} KsWireDiag;

typedef struct
{
  KsWireHeader h;
  uint64_t timestamp;
} KsWireBye;

/* OS runtime functions; the names the recorder writes to OSRT_API */
typedef enum
{
  KS_OSRT_PTHREAD_MUTEX_LOCK = 0,
  KS_OSRT_PTHREAD_COND_WAIT,
  KS_OSRT_PTHREAD_COND_TIMEDWAIT,
  KS_OSRT_PTHREAD_JOIN,
  KS_OSRT_SEM_WAIT,
  KS_OSRT_SEM_TIMEDWAIT,
  KS_OSRT_NANOSLEEP,
  KS_OSRT_CLOCK_NANOSLEEP,
  KS_OSRT_USLEEP,
  KS_OSRT_SLEEP,
  KS_OSRT_READ,
  KS_OSRT_READV,
  KS_OSRT_PREAD,
  KS_OSRT_WRITE,
  KS_OSRT_RECV,
  KS_OSRT_RECVFROM,
  KS_OSRT_RECVMSG,
  KS_OSRT_POLL,
  KS_OSRT_PPOLL,
  KS_OSRT_SELECT,
  KS_OSRT_PSELECT,
  KS_OSRT_EPOLL_WAIT,
  KS_OSRT_EPOLL_PWAIT,
  KS_OSRT_ACCEPT,
  KS_OSRT_ACCEPT4,
  KS_OSRT_CONNECT,
  KS_OSRT_WAITPID,
  KS_OSRT_N_FUNCTIONS
} KsOsrtFunction;

static inline uint32_t
ks_wire_align (uint32_t size)
{
  return (size + 7u) & ~7u;
}

/* The header of the message at @data, when a whole one lies in the @len
 * bytes there (its size at least the header's); 0 otherwise. */
static inline int
ks_wire_whole_message (const uint8_t *data,
                       size_t         len,
                       KsWireHeader  *h)
{
  if (len < sizeof *h)
    return 0;
  memcpy (h, data, sizeof *h);
  return h->size >= sizeof *h && h->size <= len;
}

/* One sampled Python call stack of one thread, innermost frame first.
 * File and function names are KS_WIRE_STRING ids; line is the frame's
 * current line. Sent by the Python side (sitecustomize) through the
 * injection library's ks_inject_python_sample(). n_frames 0: the same
 * stack as this thread's previous sample on this connection (a thread
 * whose innermost frame has not moved costs one short message); the
 * recorder drops and counts one on a thread that sent no stack yet. */
#define KS_WIRE_PY_MAX_FRAMES 256u

typedef struct
{
  uint32_t file_id;
  uint32_t function_id;
  uint32_t line;
} KsWirePyFrame;

typedef struct
{
  KsWireHeader h;
  uint64_t timestamp;
  uint32_t tid;
  uint32_t n_frames;
  /* followed by n_frames KsWirePyFrame */
} KsWirePySample;

/* The Python side asks the recorder to read its stacks from outside
 * (ks-py-remote.c) rather than sample them in the process, which waits for
 * the GIL. The recorder that can writes 1 into the 32-bit flag at
 * flag_address; the Python side samples in the process when no 1 came
 * (it then writes 2 there, and the recorder leaves the process alone).
 * hexversion is the interpreter's sys.hexversion. */
typedef struct
{
  KsWireHeader h;
  uint64_t flag_address;
  uint32_t hexversion;
  uint32_t own_tid;       /* the Python side's thread that asks: not sampled */
} KsWirePyOutside;

#define KS_WIRE_PY_OUTSIDE_PENDING 0u
#define KS_WIRE_PY_OUTSIDE_READ    1u
#define KS_WIRE_PY_OUTSIDE_INSIDE  2u

/* One event of PyTorch's CUDA caching allocator: a block handed out
 * (bytes > 0) or given back (bytes < 0), with the allocator's totals for
 * the device after it. tid 0: the thread is not known (the allocator's
 * history does not say), the reader places it. */
typedef struct
{
  KsWireHeader h;
  uint64_t timestamp;
  uint64_t address;
  int64_t  bytes;
  int64_t  total_allocated;
  int64_t  total_reserved;
  uint32_t device_id;
  uint32_t tid;
} KsWireAllocator;

/* The process's place in a distributed job, from the environment
 * torchrun (and most launchers) give it; sent after HELLO when RANK is
 * set. */
typedef struct
{
  KsWireHeader h;
  int32_t rank;              /* RANK */
  int32_t local_rank;        /* LOCAL_RANK, -1 unset */
  int32_t world_size;        /* WORLD_SIZE, 0 unset */
  int32_t local_world_size;  /* LOCAL_WORLD_SIZE, 0 unset */
  /* followed by the host name */
} KsWireRank;

/* One PyTorch operator (a RecordFunction) from our observer extension
 * (src/collector/python/kinescope_observer.cpp) through
 * ks_inject_torch_op_enter()/_exit(): what torch's NVTX emission would
 * have formatted into its range text, sent as numbers. The recorder writes
 * it as that push/pop range, with that text, so that a recording holds
 * the same rows either way. name_id is a KS_WIRE_STRING id; seq -1: none.
 * With shapes (flags & KS_WIRE_TORCH_OP_SHAPES), the message is followed
 * by n_words int64: for each of n_inputs inputs its number of dimensions
 * and then its sizes (torch's inputSizes() with tensor lists flattened);
 * KS_WIRE_TORCH_OP_TRUNCATED: the inputs did not all fit. */
#define KS_WIRE_TORCH_OP_SHAPES    0x1u
#define KS_WIRE_TORCH_OP_TRUNCATED 0x2u
#define KS_WIRE_TORCH_MAX_WORDS    64u

typedef struct
{
  KsWireHeader h;
  uint64_t start;
  uint64_t end;
  uint64_t handle;           /* RecordFunction::handle(): NVTX's op_id */
  int64_t  seq;              /* RecordFunction::seqNr() */
  uint64_t fwd_thread_id;    /* forwardThreadId(): 0 outside the backward */
  uint32_t tid;
  uint32_t name_id;
  uint32_t n_inputs;
  uint32_t n_words;
  uint8_t  scope;            /* at::RecordScope */
  uint8_t  depth;
  uint8_t  flags;
  uint8_t  pad[5];
} KsWireTorchOp;

/* A HELLO for @pid without a name (h.size covers the fixed part only). */
static inline void
ks_wire_hello_init (KsWireHello *m,
                    int64_t      pid)
{
  memset (m, 0, sizeof *m);
  m->h.size = sizeof *m;
  m->h.type = KS_WIRE_HELLO;
  m->magic = KS_WIRE_MAGIC;
  m->version = KS_WIRE_VERSION;
  m->pid = pid;
}

/* Environment shared between the recorder and the injection library. */
#define KS_ENV_SOCKET          "KINESCOPE_SOCKET"
#define KS_ENV_TRACE           "KINESCOPE_TRACE"           /* cuda,nvtx,osrt */
#define KS_ENV_CAPTURE         "KINESCOPE_CAPTURE"         /* none | cudaProfilerApi | nvtx:NAME */
#define KS_ENV_CUPTI_PATH      "KINESCOPE_CUPTI_PATH"
#define KS_ENV_OSRT_THRESHOLD  "KINESCOPE_OSRT_THRESHOLD_NS"
#define KS_ENV_CUDA_MEMORY     "KINESCOPE_CUDA_MEMORY"     /* 0 | 1 */
/* The Python side: what sitecustomize turns on in Python processes,
 * "pytorch=autograd-shapes-nvtx|autograd-nvtx|none;memory=0|1;sampling=HZ" (HZ 0: off) */
#define KS_ENV_PYTHON          "KINESCOPE_PYTHON"
/* --pytorch when not given: operators without input shapes, whose
 * recording costs less than torch.profiler's (docs/performance.md); shapes
 * cost PyTorch more than the rest of the recording together. */
#define KS_PYTORCH_DEFAULT     "autograd-nvtx"
#define KS_ENV_INJECT_LIBRARY  "KINESCOPE_INJECT_LIBRARY" /* path of libkinescope-inject.so for ctypes */
