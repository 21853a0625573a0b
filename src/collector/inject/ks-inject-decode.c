/* ks-inject-decode.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* CUPTI activity records → wire messages.
 *
 * Buffers are walked with cuptiActivityGetNextRecord only: it knows each
 * record's real size, so a newer libcupti that appends fields to a record
 * still decodes. Only fields of the 13.0 layouts are read. Kernel and API
 * names are CUPTI-owned pointers; they are interned here, while valid, and
 * sent once as KS_WIRE_STRING. Records whose start and end are both 0
 * (CUPTI ran out of device buffers) are counted, never sent. */

#include "ks-inject-private.h"

#include <cupti.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_CACHE_SIZE 8192  /* power of two */
#define MAX_CBID        4096

typedef CUptiResult (*GetNextRecordFunc) (uint8_t *, size_t, CUpti_Activity **);
typedef CUptiResult (*GetCallbackNameFunc) (CUpti_CallbackDomain, uint32_t, const char **);

typedef struct
{
  const char *ptr;
  char       *copy;
  uint32_t    id;
} NameEntry;

struct _KsCuptiDecoder
{
  GetNextRecordFunc   next_record;
  GetCallbackNameFunc callback_name;
  NameEntry          *names;
  size_t              n_names;
  uint32_t            api_names[2][MAX_CBID];
  uint64_t            zero_time;
};

KsCuptiDecoder *
ks_cupti_decoder_new (void *cupti_handle)
{
  KsCuptiDecoder *self;

  self = calloc (1, sizeof *self);
  if (self == NULL)
    return NULL;
  self->next_record = (GetNextRecordFunc) dlsym (cupti_handle, "cuptiActivityGetNextRecord");
  self->callback_name = (GetCallbackNameFunc) dlsym (cupti_handle, "cuptiGetCallbackName");
  self->names = calloc (NAME_CACHE_SIZE, sizeof *self->names);
  if (self->next_record == NULL || self->names == NULL)
    {
      ks_cupti_decoder_free (self);
      return NULL;
    }
  return self;
}

void
ks_cupti_decoder_free (KsCuptiDecoder *self)
{
  if (self == NULL)
    return;
  if (self->names != NULL)
    for (size_t i = 0; i < NAME_CACHE_SIZE; i++)
      free (self->names[i].copy);
  free (self->names);
  free (self);
}

uint64_t
ks_cupti_decoder_zero_time_records (KsCuptiDecoder *self)
{
  return self ? self->zero_time : 0;
}

static uint32_t
emit_string (KsOutBuf   *out,
             const char *text)
{
  KsWireString msg;

  memset (&msg, 0, sizeof msg);
  msg.h.type = KS_WIRE_STRING;
  msg.id = ks_channel_new_string_id ();
  ks_outbuf_append_text (out, &msg, sizeof msg, text);
  return msg.id;
}

static uint32_t
hash_string (const char *s)
{
  uint32_t h = 2166136261u;

  for (; *s; s++)
    h = (h ^ (uint8_t) *s) * 16777619u;
  return h;
}

/* Kernel names: the pointer is stable for a function, the content is what
 * counts; a full table falls back to sending the string again. */
static uint32_t
intern_name (KsCuptiDecoder *self,
             KsOutBuf       *out,
             const char     *name)
{
  uint32_t h;

  if (name == NULL)
    name = "";
  h = hash_string (name) & (NAME_CACHE_SIZE - 1);
  for (size_t probe = 0; probe < 64; probe++)
    {
      NameEntry *e = &self->names[(h + probe) & (NAME_CACHE_SIZE - 1)];

      if (e->copy == NULL)
        {
          e->copy = strdup (name);
          e->ptr = name;
          e->id = emit_string (out, name);
          self->n_names++;
          return e->id;
        }
      if (e->ptr == name || strcmp (e->copy, name) == 0)
        return e->id;
    }
  return emit_string (out, name);
}

static uint32_t
api_name (KsCuptiDecoder *self,
          KsOutBuf       *out,
          int             driver,
          uint32_t        cbid)
{
  const char *name = NULL;
  char fallback[64];
  uint32_t id;

  if (cbid < MAX_CBID && self->api_names[driver][cbid] != 0)
    return self->api_names[driver][cbid];

  if (self->callback_name == NULL
      || self->callback_name (driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API,
                              cbid, &name) != CUPTI_SUCCESS
      || name == NULL)
    {
      snprintf (fallback, sizeof fallback, "%s API %u", driver ? "driver" : "runtime", cbid);
      name = fallback;
    }

  id = emit_string (out, name);
  if (cbid < MAX_CBID)
    self->api_names[driver][cbid] = id;
  return id;
}

static inline uint64_t
shift (uint64_t t,
       int64_t  offset)
{
  return (uint64_t) ((int64_t) t + offset);
}

/* Records whose start and end are both 0 (CUPTI ran out of device
 * buffers) are counted, never sent. */
static bool
no_time (KsCuptiDecoder *self,
         uint64_t        start,
         uint64_t        end)
{
  if (start != 0 || end != 0)
    return false;
  self->zero_time++;
  return true;
}

static void
message_init (void       *msg,
              uint32_t    size,
              KsWireType  type)
{
  KsWireHeader *h = msg;

  memset (msg, 0, size);
  h->size = size;
  h->type = type;
}

static void
decode_kernel (KsCuptiDecoder               *self,
               const CUpti_ActivityKernel10 *k,
               int64_t                       offset,
               KsOutBuf                     *out)
{
  KsWireKernel msg;

  if (no_time (self, k->start, k->end))
    return;
  message_init (&msg, sizeof msg, KS_WIRE_KERNEL);
  msg.name_id = intern_name (self, out, k->name);
  msg.start = shift (k->start, offset);
  msg.end = shift (k->end, offset);
  msg.device_id = k->deviceId;
  msg.context_id = k->contextId;
  msg.stream_id = k->streamId;
  msg.correlation_id = k->correlationId;
  msg.grid[0] = k->gridX;
  msg.grid[1] = k->gridY;
  msg.grid[2] = k->gridZ;
  msg.block[0] = k->blockX;
  msg.block[1] = k->blockY;
  msg.block[2] = k->blockZ;
  msg.static_shared = k->staticSharedMemory;
  msg.dynamic_shared = k->dynamicSharedMemory;
  msg.local_per_thread = k->localMemoryPerThread;
  msg.local_total = k->localMemoryTotal_v2 ? k->localMemoryTotal_v2 : k->localMemoryTotal;
  msg.shared_executed = k->sharedMemoryExecuted;
  msg.grid_id = k->gridId;
  msg.graph_node_id = k->graphNodeId;
  msg.graph_id = k->graphId;
  msg.registers = k->registersPerThread;
  msg.launch_type = k->launchType;
  msg.cache_config = k->cacheConfig.both;
  ks_outbuf_append (out, &msg, sizeof msg);
}

/* A copy on one device and a peer-to-peer copy: two CUPTI layouts, one
 * message; @msg holds what differs (the devices, the runtime's id). */
static void
decode_copy (KsCuptiDecoder *self,
             KsWireMemcpy   *msg,
             uint64_t        start,
             uint64_t        end,
             int64_t         offset,
             KsOutBuf       *out)
{
  if (no_time (self, start, end))
    return;
  msg->h.size = sizeof *msg;
  msg->h.type = KS_WIRE_MEMCPY;
  msg->start = shift (start, offset);
  msg->end = shift (end, offset);
  ks_outbuf_append (out, msg, sizeof *msg);
}

static void
decode_memcpy (KsCuptiDecoder              *self,
               const CUpti_ActivityMemcpy6 *m,
               int64_t                      offset,
               KsOutBuf                    *out)
{
  KsWireMemcpy msg = {
    .bytes = m->bytes,
    .graph_node_id = m->graphNodeId,
    .device_id = m->deviceId,
    .context_id = m->contextId,
    .stream_id = m->streamId,
    .correlation_id = m->correlationId,
    .runtime_correlation_id = m->runtimeCorrelationId,
    .src_device_id = m->deviceId,
    .dst_device_id = m->deviceId,
    .copy_kind = m->copyKind,
    .src_kind = m->srcKind,
    .dst_kind = m->dstKind,
    .flags = m->flags,
  };

  decode_copy (self, &msg, m->start, m->end, offset, out);
}

static void
decode_peer_copy (KsCuptiDecoder                  *self,
                  const CUpti_ActivityMemcpyPtoP4 *m,
                  int64_t                          offset,
                  KsOutBuf                        *out)
{
  KsWireMemcpy msg = {
    .bytes = m->bytes,
    .graph_node_id = m->graphNodeId,
    .device_id = m->deviceId,
    .context_id = m->contextId,
    .stream_id = m->streamId,
    .correlation_id = m->correlationId,
    .src_device_id = m->srcDeviceId,
    .dst_device_id = m->dstDeviceId,
    .copy_kind = m->copyKind,
    .src_kind = m->srcKind,
    .dst_kind = m->dstKind,
    .flags = m->flags,
  };

  decode_copy (self, &msg, m->start, m->end, offset, out);
}

static void
decode_memset (KsCuptiDecoder              *self,
               const CUpti_ActivityMemset4 *m,
               int64_t                      offset,
               KsOutBuf                    *out)
{
  KsWireMemset msg;

  if (no_time (self, m->start, m->end))
    return;
  message_init (&msg, sizeof msg, KS_WIRE_MEMSET);
  msg.start = shift (m->start, offset);
  msg.end = shift (m->end, offset);
  msg.bytes = m->bytes;
  msg.graph_node_id = m->graphNodeId;
  msg.device_id = m->deviceId;
  msg.context_id = m->contextId;
  msg.stream_id = m->streamId;
  msg.correlation_id = m->correlationId;
  msg.value = m->value;
  msg.mem_kind = m->memoryKind;
  ks_outbuf_append (out, &msg, sizeof msg);
}

static void
decode_api (KsCuptiDecoder          *self,
            const CUpti_ActivityAPI *a,
            int64_t                  offset,
            KsOutBuf                *out)
{
  int driver = a->kind == CUPTI_ACTIVITY_KIND_DRIVER;
  KsWireApi msg;

  message_init (&msg, sizeof msg, KS_WIRE_API);
  msg.name_id = api_name (self, out, driver, a->cbid);
  msg.start = shift (a->start, offset);
  msg.end = shift (a->end, offset);
  msg.tid = a->threadId;
  msg.correlation_id = a->correlationId;
  msg.return_value = a->returnValue;
  msg.cbid = a->cbid;
  msg.event_class = driver ? KS_WIRE_API_DRIVER : KS_WIRE_API_RUNTIME;
  ks_outbuf_append (out, &msg, sizeof msg);
}

static void
decode_sync (KsCuptiDecoder                       *self,
             const CUpti_ActivitySynchronization2 *s,
             int64_t                               offset,
             KsOutBuf                             *out)
{
  KsWireSync msg;

  if (no_time (self, s->start, s->end))
    return;
  message_init (&msg, sizeof msg, KS_WIRE_SYNC);
  msg.start = shift (s->start, offset);
  msg.end = shift (s->end, offset);
  msg.context_id = s->contextId;
  msg.stream_id = s->streamId;
  msg.correlation_id = s->correlationId;
  msg.sync_type = s->type;
  msg.event_id = s->cudaEventId;
  ks_outbuf_append (out, &msg, sizeof msg);
}

static void
decode_memory (const CUpti_ActivityMemory4 *m,
               int64_t                      offset,
               KsOutBuf                    *out)
{
  KsWireMemory msg;

  if (m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_INVALID)
    return;
  message_init (&msg, sizeof msg, KS_WIRE_MEMORY);
  msg.timestamp = shift (m->timestamp, offset);
  msg.address = m->address;
  msg.bytes = m->bytes;
  msg.device_id = m->deviceId;
  msg.context_id = m->contextId;
  msg.stream_id = m->streamId;
  msg.correlation_id = m->correlationId;
  msg.operation = m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE
                  ? KS_WIRE_MEMORY_FREE : KS_WIRE_MEMORY_ALLOC;
  msg.memory_kind = (uint8_t) m->memoryKind;
  ks_outbuf_append (out, &msg, sizeof msg);
}

static void
decode_device (const CUpti_ActivityDevice5 *d,
               KsOutBuf                    *out)
{
  KsWireDevice msg;

  /* The name follows: ks_outbuf_append_text sets the size. */
  message_init (&msg, sizeof msg, KS_WIRE_DEVICE);
  msg.total_memory = d->globalMemorySize;
  msg.memory_bandwidth = d->globalMemoryBandwidth;
  msg.id = d->id;
  msg.l2_cache_size = d->l2CacheSize;
  msg.sm_count = d->numMultiprocessors;
  msg.clock_rate_khz = d->coreClockRate;
  msg.compute_major = d->computeCapabilityMajor;
  msg.compute_minor = d->computeCapabilityMinor;
  msg.max_threads_per_block = d->maxThreadsPerBlock;
  msg.max_warps_per_sm = d->maxWarpsPerMultiprocessor;
  msg.max_shmem_per_sm = d->maxSharedMemoryPerMultiprocessor;
  msg.max_registers_per_sm = d->maxRegistersPerMultiprocessor;
  msg.threads_per_warp = d->numThreadsPerWarp;
  msg.max_blocks_per_sm = d->maxBlocksPerMultiprocessor;
  msg.max_registers_per_block = d->maxRegistersPerBlock;
  msg.max_shmem_per_block = d->maxSharedMemoryPerBlock;
  msg.constant_memory = d->constantMemorySize;
  memcpy (msg.uuid, &d->uuid, sizeof msg.uuid);
  ks_outbuf_append_text (out, &msg, sizeof msg, d->name);
}

static void
decode_context (const CUpti_ActivityContext3 *c,
                KsOutBuf                     *out)
{
  KsWireContext msg;

  message_init (&msg, sizeof msg, KS_WIRE_CONTEXT);
  msg.context_id = c->contextId;
  msg.device_id = c->deviceId;
  msg.null_stream_id = c->nullStreamId;
  ks_outbuf_append (out, &msg, sizeof msg);
}

static void
decode_stream (const CUpti_ActivityStream *s,
               KsOutBuf                   *out)
{
  KsWireStream msg;

  message_init (&msg, sizeof msg, KS_WIRE_STREAM);
  msg.context_id = s->contextId;
  msg.stream_id = s->streamId;
  msg.priority = s->priority;
  msg.flag = s->flag;
  ks_outbuf_append (out, &msg, sizeof msg);
}

size_t
ks_cupti_decoder_decode (KsCuptiDecoder *self,
                         uint8_t        *buffer,
                         size_t          valid_size,
                         int64_t         offset,
                         KsOutBuf       *out)
{
  CUpti_Activity *record = NULL;
  size_t n = 0;

  if (self == NULL || buffer == NULL || valid_size == 0)
    return 0;

  while (self->next_record (buffer, valid_size, &record) == CUPTI_SUCCESS)
    {
      const void *r = record;

      n++;
      switch ((int) record->kind)
        {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
          decode_kernel (self, r, offset, out);
          break;
        case CUPTI_ACTIVITY_KIND_MEMCPY:
          decode_memcpy (self, r, offset, out);
          break;
        case CUPTI_ACTIVITY_KIND_MEMCPY2:
          decode_peer_copy (self, r, offset, out);
          break;
        case CUPTI_ACTIVITY_KIND_MEMSET:
          decode_memset (self, r, offset, out);
          break;
        case CUPTI_ACTIVITY_KIND_RUNTIME:
        case CUPTI_ACTIVITY_KIND_DRIVER:
          decode_api (self, r, offset, out);
          break;
        case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
          decode_sync (self, r, offset, out);
          break;
        case CUPTI_ACTIVITY_KIND_MEMORY2:
          decode_memory (r, offset, out);
          break;
        case CUPTI_ACTIVITY_KIND_DEVICE:
          decode_device (r, out);
          break;
        case CUPTI_ACTIVITY_KIND_CONTEXT:
          decode_context (r, out);
          break;
        case CUPTI_ACTIVITY_KIND_STREAM:
          decode_stream (r, out);
          break;
        case CUPTI_ACTIVITY_KIND_OVERHEAD:
          /* CUPTI hands ownership of this pointer to the client. */
          free (((const CUpti_ActivityOverhead3 *) r)->overheadData);
          break;
        default:
          break;
        }
    }

  return n;
}

bool
ks_api_nesting_keep (KsApiNesting *nesting,
                     unsigned      generation,
                     bool          driver,
                     bool          enter)
{
  if (nesting->generation != generation)
    {
      nesting->generation = generation;
      nesting->runtime_depth = 0;
    }
  if (driver)
    return nesting->runtime_depth == 0;
  if (enter)
    nesting->runtime_depth++;
  else if (nesting->runtime_depth > 0)
    nesting->runtime_depth--;
  return true;
}

/* Fills @msg for the exit callback of a call entered at @start; FALSE for
 * a call entered before the callbacks went on, whose start is unknown. */
bool
ks_api_message_from_callback (KsWireApi  *msg,
                              bool        driver,
                              uint32_t    cbid,
                              const void *callback_data,
                              uint64_t    start,
                              uint64_t    end,
                              uint32_t    tid,
                              uint32_t    name_id)
{
  const CUpti_CallbackData *data = callback_data;

  if (start == 0 || start > end)
    return false;

  memset (msg, 0, sizeof *msg);
  msg->h.size = sizeof *msg;
  msg->h.type = KS_WIRE_API;
  msg->start = start;
  msg->end = end;
  msg->tid = tid;
  msg->correlation_id = data->correlationId;
  if (data->functionReturnValue != NULL)
    msg->return_value = driver ? (uint32_t) *(const CUresult *) data->functionReturnValue
                               : (uint32_t) *(const int *) data->functionReturnValue;
  msg->name_id = name_id;
  msg->cbid = cbid;
  msg->event_class = driver ? KS_WIRE_API_DRIVER : KS_WIRE_API_RUNTIME;
  return true;
}

/* Calls that happen constantly and say nothing about the workload: not
 * recorded, and with API callbacks not even intercepted. */
static const CUpti_CallbackId quiet_runtime[] = {
  CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,
  CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020,
  CUPTI_RUNTIME_TRACE_CBID_cudaPeekAtLastError_v3020,
  CUPTI_RUNTIME_TRACE_CBID_cudaStreamIsCapturing_v10000,
  CUPTI_RUNTIME_TRACE_CBID_cudaStreamGetCaptureInfo_v10010,
  CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020,
  CUPTI_RUNTIME_TRACE_CBID_cudaDeviceGetAttribute_v5000,
  CUPTI_RUNTIME_TRACE_CBID_cudaPointerGetAttributes_v4000,
  CUPTI_RUNTIME_TRACE_CBID_cudaFuncGetAttributes_v3020,
  CUPTI_RUNTIME_TRACE_CBID_cudaGetErrorString_v3020,
};

static const CUpti_CallbackId quiet_driver[] = {
  CUPTI_DRIVER_TRACE_CBID_cuCtxGetCurrent,
  CUPTI_DRIVER_TRACE_CBID_cuCtxGetDevice,
  CUPTI_DRIVER_TRACE_CBID_cuDevicePrimaryCtxGetState,
  CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress,
  CUPTI_DRIVER_TRACE_CBID_cuGetProcAddress_v2,
  CUPTI_DRIVER_TRACE_CBID_cuKernelGetAttribute,
  CUPTI_DRIVER_TRACE_CBID_cuCtxGetStreamPriorityRange,
  CUPTI_DRIVER_TRACE_CBID_cuKernelGetName,
  CUPTI_DRIVER_TRACE_CBID_cuGetErrorString,
  CUPTI_DRIVER_TRACE_CBID_cuGetErrorName,
  CUPTI_DRIVER_TRACE_CBID_cuDeviceGetAttribute,
  CUPTI_DRIVER_TRACE_CBID_cuPointerGetAttribute,
  CUPTI_DRIVER_TRACE_CBID_cuPointerGetAttributes,
  CUPTI_DRIVER_TRACE_CBID_cuFuncGetAttribute,
  CUPTI_DRIVER_TRACE_CBID_cuCtxGetFlags,
  CUPTI_DRIVER_TRACE_CBID_cuCtxGetId,
  CUPTI_DRIVER_TRACE_CBID_cuStreamGetId,
  CUPTI_DRIVER_TRACE_CBID_cuStreamGetCtx,
};

#define N_QUIET_RUNTIME (sizeof quiet_runtime / sizeof quiet_runtime[0])
#define N_QUIET_DRIVER  (sizeof quiet_driver / sizeof quiet_driver[0])

bool
ks_api_is_quiet (bool     driver,
                 uint32_t cbid)
{
  const CUpti_CallbackId *list = driver ? quiet_driver : quiet_runtime;
  size_t n = driver ? N_QUIET_DRIVER : N_QUIET_RUNTIME;

  for (size_t i = 0; i < n; i++)
    if (list[i] == cbid)
      return true;
  return false;
}

bool
ks_api_is_profiler (bool     driver,
                    uint32_t cbid)
{
  if (driver)
    return cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart || cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop;
  return cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000
         || cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000;
}

bool
ks_api_is_essential (const char *name)
{
  static const char * const keep[] = {
    "Launch", "Memcpy", "Memset", "Synchronize", "Malloc", "Free", "HostAlloc",
    "EventRecord", "EventQuery", "StreamWaitEvent", "Profiler", "MemPrefetch",
    "MemAlloc", "MemCreate", "MemMap", "MemUnmap", "MemRelease", "ModuleLoad", "LibraryLoad",
  };

  for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
    if (strstr (name, keep[i]) != NULL)
      return true;
  return false;
}

bool
ks_api_wants_callback (bool        driver,
                       uint32_t    cbid,
                       const char *name)
{
  if (ks_api_is_profiler (driver, cbid) || ks_api_is_quiet (driver, cbid))
    return false;
  return !driver || (name != NULL && ks_api_is_essential (name));
}
