/* ks-inject-private.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

/* Internals of libkinescope-inject.so. Plain C and libc only: this code
 * runs inside the profiled program. */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ks-wire.h"

#define KS_EXPORT __attribute__((visibility ("default")))

/* ks-inject.c: configuration and life cycle */
typedef struct
{
  bool     active;            /* KINESCOPE_SOCKET is set */
  bool     trace_cuda;
  bool     trace_nvtx;
  bool     trace_osrt;
  bool     cuda_memory;
  int      capture_mode;      /* KS_CAPTURE_* */
  char     capture_nvtx[256]; /* message that opens the capture range */
  uint64_t osrt_threshold_ns;
  char     socket_path[108];
  /* RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE at start; rank -1 unset */
  int32_t  rank;
  int32_t  local_rank;
  int32_t  world_size;
  int32_t  local_world_size;
} KsInjectConfig;

enum
{
  KS_CAPTURE_NONE = 0,
  KS_CAPTURE_CUDA_PROFILER_API,
  KS_CAPTURE_NVTX,
};

extern KsInjectConfig ks_inject_config;

void     ks_inject_config_load     (void);
uint64_t ks_inject_now             (void);
uint64_t ks_inject_parse_u64       (const char *text,
                                    uint64_t    fallback);
uint32_t ks_inject_gettid          (void);
bool     ks_inject_capturing       (void);
uint64_t ks_inject_last_capture_stop (void);
void     ks_inject_set_capturing   (bool     on,
                                    uint64_t timestamp);
void     ks_inject_ensure_exit_hook (void);

/* ks-inject-channel.c: in-process buffer drained to the recorder by one
 * thread of the library. Producers never block on I/O: when the buffer is
 * full the event is dropped and counted. */
bool     ks_channel_start          (void);
bool     ks_channel_emit           (const void *msg,
                                    uint32_t    size);
bool     ks_channel_emit_text      (void       *msg,
                                    uint32_t    fixed_size,
                                    const char *text,
                                    size_t      text_len);
void     ks_channel_flush          (unsigned    timeout_ms);
void     ks_channel_close          (unsigned    timeout_ms);
void     ks_channel_after_fork     (void);
uint32_t ks_channel_new_string_id  (void);
uint32_t ks_channel_intern         (const char *text);
void     ks_channel_diag           (uint32_t    severity,
                                    uint32_t    code,
                                    const char *format,
                                    ...) __attribute__((format (printf, 3, 4)));
extern __thread int ks_inject_internal_thread;

/* Output buffer for the decoder: decoded records are appended here and
 * then handed to the channel in one piece. */
typedef struct
{
  uint8_t *data;
  size_t   len;
  size_t   cap;
} KsOutBuf;

/* Hook the sender thread calls on every wake-up, after draining the
 * buffer, so the CUPTI side can decode completed activity buffers on that
 * thread; what it appends to @out is sent next. */
typedef void (*KsChannelPollFunc) (KsOutBuf *out);
void     ks_channel_set_poll_func  (KsChannelPollFunc func);
void     ks_channel_wake           (void);
void     ks_channel_count_drop     (void);
void     ks_channel_set_cupti_drops (uint64_t dropped,
                                     uint64_t zero_time);

void ks_outbuf_append (KsOutBuf   *out,
                       const void *msg,
                       uint32_t    size);
void ks_outbuf_append_text (KsOutBuf   *out,
                            void       *msg,
                            uint32_t    fixed_size,
                            const char *text);
void ks_outbuf_clear (KsOutBuf *out);

/* ks-inject-cupti.c */
bool ks_cupti_init            (void);
void ks_cupti_flush           (bool forced);
void ks_cupti_capture_changed (bool on);
void ks_cupti_after_fork      (void);

/* The decoder is separate from the tracer so that tests can feed it
 * buffers built by hand. @cupti_handle is a dlopen() handle of libcupti
 * (for cuptiActivityGetNextRecord and cuptiGetCallbackName). */
typedef struct _KsCuptiDecoder KsCuptiDecoder;

KsCuptiDecoder *ks_cupti_decoder_new     (void *cupti_handle);
void            ks_cupti_decoder_free    (KsCuptiDecoder *decoder);
size_t          ks_cupti_decoder_decode  (KsCuptiDecoder *decoder,
                                          uint8_t        *buffer,
                                          size_t          valid_size,
                                          int64_t         clock_offset,
                                          KsOutBuf       *out);
uint64_t        ks_cupti_decoder_zero_time_records (KsCuptiDecoder *decoder);

/* API rows from CUPTI callbacks. The driver calls a runtime call makes
 * inside reach the callback too; activity records leave them out, and so
 * does ks_api_nesting_keep(). @generation restarts the depth each time
 * the callbacks go on (exits may have been missed while off). */
typedef struct
{
  unsigned generation;
  int      runtime_depth;
} KsApiNesting;

bool ks_api_nesting_keep      (KsApiNesting             *nesting,
                               unsigned                  generation,
                               bool                      driver,
                               bool                      enter);
/* Which calls get an API callback: every runtime call but the quiet ones
 * (constant queries such as cudaGetDevice, which PyTorch makes about 13
 * times per kernel), and the driver calls that launch, copy, set, wait,
 * allocate or load, by @name (how Triton and torch.compile launch). Never
 * the profiler start/stop calls: their callbacks are on all the time, for
 * the capture range. */
bool ks_api_is_quiet          (bool                      driver,
                               uint32_t                  cbid);
bool ks_api_is_profiler       (bool                      driver,
                               uint32_t                  cbid);
bool ks_api_is_essential      (const char               *name);
bool ks_api_wants_callback    (bool                      driver,
                               uint32_t                  cbid,
                               const char               *name);
bool ks_api_message_from_callback (KsWireApi           *msg,
                                   bool                 driver,
                                   uint32_t             cbid,
                                   const void          *callback_data,
                                   uint64_t             start,
                                   uint64_t             end,
                                   uint32_t             tid,
                                   uint32_t             name_id);

/* ks-inject-nvtx.c */
void ks_nvtx_after_fork (void);

/* ks-inject-torch.c */
void ks_torch_after_fork (void);
void ks_torch_capture_changed (void);
