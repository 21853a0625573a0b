/* ks-inject-cupti.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* CUPTI tracing: kernels, copies, memsets, synchronization and memory
 * from activity records; the CUDA API rows from callbacks (see
 * set_api_callbacks() for why). One file: all of it runs on the one CUPTI
 * subscriber, its callbacks and its activity buffers.
 *
 * libcupti is opened with dlopen, never linked: a PyTorch process already
 * maps its own copy (pip's nvidia/cu13/lib/libcupti.so.13) and a second
 * copy loaded by path would be a second, independent CUPTI whose records
 * never reach us. So the copy already mapped wins, then
 * $KINESCOPE_CUPTI_PATH, then the loader's search path.
 *
 * Activity buffers are handed out from bufferRequested and queued by
 * bufferCompleted; the channel's sender thread decodes them
 * (ks_cupti_decoder_decode), zeroes them and keeps a few for reuse. The
 * application's threads never decode.
 *
 * Switches for measuring the recording overhead (tests/gpu/overhead-matrix.sh,
 * tests/gpu/launchbench.cu), not for normal use:
 * KINESCOPE_CUPTI_API_SOURCE=activity (API rows from the activity kinds
 * RUNTIME and DRIVER);
 * KINESCOPE_CUPTI_RUNTIME, _DRIVER = 0 (no rows of that API) or, with
 * API_SOURCE=activity, select (only the calls ks_api_is_essential() keeps,
 * enabled by callback id with the kind off); KINESCOPE_CUPTI_API=essential
 * (API_SOURCE=activity: the kinds on, the other calls' records off);
 * KINESCOPE_CUPTI_SYNC=0;
 * KINESCOPE_CUPTI_POOL=0 (CUPTI zeroes fresh buffers itself);
 * KINESCOPE_CUPTI_BUFFER_KB, KINESCOPE_CUPTI_FLUSH_MS;
 * KINESCOPE_CUPTI_PINNED=1 (CUPTI's device buffers in pinned host memory);
 * KINESCOPE_CUPTI_PER_THREAD=0 (one activity buffer per context instead of
 * per thread); KINESCOPE_CUPTI_CLOCK=callback; KINESCOPE_CUPTI_KERNEL=serial
 * (CUPTI_ACTIVITY_KIND_KERNEL instead of CONCURRENT_KERNEL);
 * KINESCOPE_CUPTI_ACTIVITY=0 (no activity kinds: the API rows alone);
 * KINESCOPE_CUPTI_HOOKS (see remove_activity_hooks());
 * KINESCOPE_CUPTI_ALL_SYNC=0 (no records of event and stream queries
 * that find work unfinished); KINESCOPE_CUPTI_FLUSH_PERIOD_MS (CUPTI's
 * own worker thread period). */

#include "ks-inject-private.h"

#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CUPTI_BUFFER_SIZE     (8u * 1024u * 1024u)
#define CUPTI_MAX_OUTSTANDING 64   /* 512 MiB of host buffers at most */
#define FLUSH_INTERVAL_NS     (250u * 1000u * 1000u)
#define POOL_MAX              4    /* zeroed buffers kept for reuse */
#define CUPTI_CBID_TABLE      4096 /* above the largest runtime and driver callback ids */

typedef CUptiResult (*GetNextRecordFunc) (uint8_t *, size_t, CUpti_Activity **);
typedef CUptiResult (*GetCallbackNameFunc) (CUpti_CallbackDomain, uint32_t, const char **);

typedef struct
{
  CUptiResult (*GetVersion) (uint32_t *);
  CUptiResult (*GetTimestamp) (uint64_t *);
  CUptiResult (*SetThreadIdType) (CUpti_ActivityThreadIdType);
  CUptiResult (*RegisterTimestampCallback) (CUpti_TimestampCallbackFunc);
  CUptiResult (*Subscribe) (CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
  CUptiResult (*Subscribe_v2) (CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *, CUpti_SubscriberParams *);
  CUptiResult (*EnableCallback) (uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain, CUpti_CallbackId);
  CUptiResult (*ActivityRegisterCallbacks) (CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
  CUptiResult (*ActivityEnable) (CUpti_ActivityKind);
  CUptiResult (*ActivityDisable) (CUpti_ActivityKind);
  CUptiResult (*ActivityFlushAll) (uint32_t);
  CUptiResult (*ActivityGetNumDroppedRecords) (CUcontext, uint32_t, size_t *);
  CUptiResult (*ActivityEnableRuntimeApi) (CUpti_CallbackId, uint8_t);
  CUptiResult (*ActivityEnableDriverApi) (CUpti_CallbackId, uint8_t);
  CUptiResult (*ActivitySetAttribute) (CUpti_ActivityAttribute, size_t *, void *);
  CUptiResult (*ActivityEnableAllSyncRecords) (uint8_t);
  CUptiResult (*ActivityFlushPeriod) (uint32_t);
  CUptiResult (*GetResultString) (CUptiResult, const char **);
  GetNextRecordFunc   GetNextRecord;
  GetCallbackNameFunc GetCallbackName;
} CuptiApi;

typedef struct _QueuedBuffer QueuedBuffer;
struct _QueuedBuffer
{
  QueuedBuffer *next;
  uint8_t      *data;
  size_t        valid;
};

static void            *cupti_handle;
static CuptiApi         api;
static bool             tracing;
static CUpti_SubscriberHandle subscriber;
static int64_t          clock_offset;       /* added to CUPTI times when the callback was refused */
static pthread_mutex_t  queue_mutex = PTHREAD_MUTEX_INITIALIZER;
static QueuedBuffer    *queue_head;
static QueuedBuffer    *queue_tail;
static atomic_int       outstanding;
static atomic_uint_fast64_t dropped_records;
static KsCuptiDecoder  *decoder;
static uint64_t         last_flush_ns;
static char             foreign_client[128];
static __thread int     self_call;         /* inside our own call into libcupti */
static atomic_bool      foreign_reported;
static size_t           buffer_size = CUPTI_BUFFER_SIZE;
static uint64_t         flush_interval_ns = FLUSH_INTERVAL_NS;
static bool             use_pool;
static bool             api_by_callback;   /* API rows from callbacks, not activity records */
static atomic_bool      api_callbacks_on;
static atomic_bool      hooks_pending;     /* remove_activity_hooks() due on the sender thread */
static atomic_uint      api_generation;     /* bumped when the callbacks go on */
static _Atomic uint32_t api_name_ids[2][CUPTI_CBID_TABLE];
static bool             api_wanted[2][CUPTI_CBID_TABLE];   /* choose_api_callbacks() */
static pthread_mutex_t  pool_mutex = PTHREAD_MUTEX_INITIALIZER;
static uint8_t         *pool[POOL_MAX];
static int              pool_len;

static const CUpti_ActivityKind trace_kinds[] = {
  CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
  CUPTI_ACTIVITY_KIND_MEMCPY,
  CUPTI_ACTIVITY_KIND_MEMCPY2,
  CUPTI_ACTIVITY_KIND_MEMSET,
  CUPTI_ACTIVITY_KIND_RUNTIME,
  CUPTI_ACTIVITY_KIND_DRIVER,
  CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
};

static const char *
result_string (CUptiResult r)
{
  const char *s = NULL;

  if (api.GetResultString != NULL)
    api.GetResultString (r, &s);
  return s ? s : "unknown CUPTI error";
}

static void *
open_cupti (char   *where,
            size_t  where_size)
{
  const char *env = getenv (KS_ENV_CUPTI_PATH);
  void *handle;
  Dl_info info;
  void *sym;

  handle = dlopen ("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD);
  if (handle == NULL && env != NULL && *env)
    handle = dlopen (env, RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL)
    handle = dlopen ("libcupti.so.13", RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL)
    handle = dlopen ("libcupti.so", RTLD_NOW | RTLD_LOCAL);
  if (handle == NULL)
    return NULL;

  where[0] = 0;
  sym = dlsym (handle, "cuptiGetVersion");
  if (sym != NULL && dladdr (sym, &info) && info.dli_fname != NULL)
    snprintf (where, where_size, "%s", info.dli_fname);
  return handle;
}

#define LOAD(field, name) (api.field = (__typeof__ (api.field)) dlsym (cupti_handle, name))

static bool
load_api (void)
{
  LOAD (GetVersion, "cuptiGetVersion");
  LOAD (GetTimestamp, "cuptiGetTimestamp");
  LOAD (SetThreadIdType, "cuptiSetThreadIdType");
  LOAD (RegisterTimestampCallback, "cuptiActivityRegisterTimestampCallback");
  LOAD (Subscribe, "cuptiSubscribe");
  LOAD (Subscribe_v2, "cuptiSubscribe_v2");
  LOAD (EnableCallback, "cuptiEnableCallback");
  LOAD (ActivityRegisterCallbacks, "cuptiActivityRegisterCallbacks");
  LOAD (ActivityEnable, "cuptiActivityEnable");
  LOAD (ActivityDisable, "cuptiActivityDisable");
  LOAD (ActivityFlushAll, "cuptiActivityFlushAll");
  LOAD (ActivityGetNumDroppedRecords, "cuptiActivityGetNumDroppedRecords");
  LOAD (ActivityEnableRuntimeApi, "cuptiActivityEnableRuntimeApi");
  LOAD (ActivityEnableDriverApi, "cuptiActivityEnableDriverApi");
  LOAD (ActivityEnableAllSyncRecords, "cuptiActivityEnableAllSyncRecords");
  LOAD (ActivityFlushPeriod, "cuptiActivityFlushPeriod");
  LOAD (ActivitySetAttribute, "cuptiActivitySetAttribute");
  LOAD (GetResultString, "cuptiGetResultString");
  LOAD (GetNextRecord, "cuptiActivityGetNextRecord");
  LOAD (GetCallbackName, "cuptiGetCallbackName");

  return api.GetVersion && api.Subscribe && api.EnableCallback
         && api.ActivityRegisterCallbacks && api.ActivityEnable
         && api.ActivityDisable && api.ActivityFlushAll && api.GetNextRecord;
}

static uint64_t CUPTIAPI
timestamp_cb (void)
{
  return ks_inject_now ();
}

static void CUPTIAPI
buffer_requested (uint8_t **buffer,
                  size_t   *size,
                  size_t   *max_records)
{
  void *mem = NULL;

  *max_records = 0;
  *buffer = NULL;
  *size = 0;
  if (atomic_fetch_add (&outstanding, 1) >= CUPTI_MAX_OUTSTANDING)
    {
      /* A NULL buffer makes CUPTI drop records; it counts them. */
      atomic_fetch_sub (&outstanding, 1);
      return;
    }
  if (use_pool)
    {
      /* Already zeroed, and its pages already mapped, by the sender
       * thread: otherwise CUPTI zeroes every new buffer on the thread
       * that needs it, the application's, several times a second. */
      pthread_mutex_lock (&pool_mutex);
      if (pool_len > 0)
        mem = pool[--pool_len];
      pthread_mutex_unlock (&pool_mutex);
      if (mem == NULL)
        mem = calloc (1, buffer_size);
    }
  else if (posix_memalign (&mem, 8, buffer_size) != 0)
    mem = NULL;
  if (mem == NULL)
    {
      atomic_fetch_sub (&outstanding, 1);
      return;
    }
  *buffer = mem;
  *size = buffer_size;
}

/* Runs on the sender thread, after decoding; only this thread adds to
 * the pool, so room seen here is still there after the memset. */
static void
release_buffer (uint8_t *data)
{
  bool keep = false;

  if (use_pool)
    {
      pthread_mutex_lock (&pool_mutex);
      keep = pool_len < POOL_MAX;
      pthread_mutex_unlock (&pool_mutex);
    }
  if (!keep)
    {
      free (data);
      return;
    }
  memset (data, 0, buffer_size);
  pthread_mutex_lock (&pool_mutex);
  pool[pool_len++] = data;
  pthread_mutex_unlock (&pool_mutex);
}

static void CUPTIAPI
buffer_completed (CUcontext  ctx,
                  uint32_t   stream_id,
                  uint8_t   *buffer,
                  size_t     size,
                  size_t     valid)
{
  QueuedBuffer *q;
  size_t n = 0;

  if (api.ActivityGetNumDroppedRecords != NULL
      && api.ActivityGetNumDroppedRecords (ctx, stream_id, &n) == CUPTI_SUCCESS && n > 0)
    atomic_fetch_add (&dropped_records, n);

  if (buffer == NULL)
    return;

  q = malloc (sizeof *q);
  if (q == NULL)
    {
      free (buffer);
      atomic_fetch_sub (&outstanding, 1);
      return;
    }
  q->next = NULL;
  q->data = buffer;
  q->valid = valid;

  pthread_mutex_lock (&queue_mutex);
  if (queue_tail)
    queue_tail->next = q;
  else
    queue_head = q;
  queue_tail = q;
  pthread_mutex_unlock (&queue_mutex);

  ks_channel_wake ();
}

static void remove_activity_hooks (void);

/* Runs on the channel's sender thread. */
static void
poll_buffers (KsOutBuf *out)
{
  QueuedBuffer *list;
  uint64_t now = ks_inject_now ();

  if (atomic_exchange (&hooks_pending, false))
    remove_activity_hooks ();

  /* Partially filled buffers only come back when flushed. */
  if (tracing && now - last_flush_ns >= flush_interval_ns)
    {
      last_flush_ns = now;
      api.ActivityFlushAll (0);
    }

  pthread_mutex_lock (&queue_mutex);
  list = queue_head;
  queue_head = queue_tail = NULL;
  pthread_mutex_unlock (&queue_mutex);

  while (list != NULL)
    {
      QueuedBuffer *next = list->next;

      ks_cupti_decoder_decode (decoder, list->data, list->valid, clock_offset, out);
      release_buffer (list->data);
      free (list);
      atomic_fetch_sub (&outstanding, 1);
      list = next;
    }

  ks_channel_set_cupti_drops (atomic_load (&dropped_records),
                              ks_cupti_decoder_zero_time_records (decoder));
}

/* Switches the records of the essential calls of one domain on or off
 * (@essential) or those of every other call (!@essential). */
static void
set_apis (CUpti_CallbackDomain domain,
          bool                 essential,
          uint8_t              enable)
{
  const char *name;
  uint32_t size = domain == CUPTI_CB_DOMAIN_DRIVER_API ? CUPTI_DRIVER_TRACE_CBID_SIZE
                                                       : CUPTI_RUNTIME_TRACE_CBID_SIZE;
  CUptiResult (*set) (CUpti_CallbackId, uint8_t) =
    domain == CUPTI_CB_DOMAIN_DRIVER_API ? api.ActivityEnableDriverApi : api.ActivityEnableRuntimeApi;

  if (api.GetCallbackName == NULL || set == NULL)
    return;
  for (uint32_t cbid = 1; cbid < size; cbid++)
    {
      name = NULL;
      if (api.GetCallbackName (domain, cbid, &name) == CUPTI_SUCCESS
          && name != NULL && ks_api_is_essential (name) == essential)
        set (cbid, enable);
    }
}

/* Whether $name equals @value (unset: FALSE). */
static bool
env_flag (const char *name,
          const char *value)
{
  const char *v = getenv (name);

  return v != NULL && strcmp (v, value) == 0;
}

/* ks_api_wants_callback(), less what the experiment switches leave out,
 * for every call: decided once, since each capture range start asks for
 * all of them two or three times on the application's thread. */
static void
choose_api_callbacks (void)
{
  for (int driver = 0; driver < 2; driver++)
    {
      CUpti_CallbackDomain domain = driver ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
      uint32_t size = driver ? CUPTI_DRIVER_TRACE_CBID_SIZE : CUPTI_RUNTIME_TRACE_CBID_SIZE;

      if (env_flag (driver ? "KINESCOPE_CUPTI_DRIVER" : "KINESCOPE_CUPTI_RUNTIME", "0"))
        continue;
      for (uint32_t cbid = 1; cbid < size && cbid < CUPTI_CBID_TABLE; cbid++)
        {
          const char *name = NULL;

          if (api.GetCallbackName == NULL || api.GetCallbackName (domain, cbid, &name) != CUPTI_SUCCESS)
            name = NULL;
          api_wanted[driver][cbid] = ks_api_wants_callback (driver, cbid, name);
        }
    }
}

static bool
wants_api_callback (CUpti_CallbackDomain domain,
                    CUpti_CallbackId     cbid)
{
  return cbid < CUPTI_CBID_TABLE && api_wanted[domain == CUPTI_CB_DOMAIN_DRIVER_API][cbid];
}

/* Switches our API callbacks. A call without a callback passes CUPTI
 * untouched, which the activity kinds RUNTIME and DRIVER cannot offer:
 * with either on, CUPTI steps into every call of both APIs, cudaGetDevice
 * included, and into the driver calls inside each runtime call. */
static void
set_api_callbacks (bool on)
{
  if (on)
    atomic_fetch_add (&api_generation, 1);
  atomic_store (&api_callbacks_on, on);
  for (uint32_t cbid = 1; cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE; cbid++)
    if (wants_api_callback (CUPTI_CB_DOMAIN_RUNTIME_API, cbid))
      api.EnableCallback (on, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, cbid);
  for (uint32_t cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; cbid++)
    if (wants_api_callback (CUPTI_CB_DOMAIN_DRIVER_API, cbid))
      api.EnableCallback (on, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid);
}

/* Even with the kinds RUNTIME and DRIVER off, the other activity kinds
 * make CUPTI step into every runtime and driver call (cudaGetDevice took
 * 350 ns instead of 45, and PyTorch calls it 10 to 13 times per kernel)
 * until the call's activity records are switched off one by one. Our own
 * callbacks are not affected by these switches.
 * KINESCOPE_CUPTI_HOOKS: unwanted (default: the calls without a callback
 * of ours), all, quiet (the quiet lists only), keep (none). */
static void
remove_activity_hooks (void)
{
  const char *mode = getenv ("KINESCOPE_CUPTI_HOOKS");
  bool all = mode != NULL && strcmp (mode, "all") == 0;
  bool quiet = mode != NULL && strcmp (mode, "quiet") == 0;

  if ((mode != NULL && strcmp (mode, "keep") == 0)
      || api.ActivityEnableRuntimeApi == NULL || api.ActivityEnableDriverApi == NULL)
    return;
  for (uint32_t cbid = 1; cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE; cbid++)
    if (!ks_api_is_profiler (false, cbid)
        && (all || (quiet ? ks_api_is_quiet (false, cbid)
                          : !wants_api_callback (CUPTI_CB_DOMAIN_RUNTIME_API, cbid))))
      api.ActivityEnableRuntimeApi (cbid, 0);
  for (uint32_t cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; cbid++)
    if (!ks_api_is_profiler (true, cbid)
        && (all || (quiet ? ks_api_is_quiet (true, cbid)
                          : !wants_api_callback (CUPTI_CB_DOMAIN_DRIVER_API, cbid))))
      api.ActivityEnableDriverApi (cbid, 0);
}

static size_t
env_size (const char *name,
          size_t      fallback)
{
  return (size_t) ks_inject_parse_u64 (getenv (name), fallback);
}

static void
set_kind (CUpti_ActivityKind kind,
          bool               on)
{
  if (on)
    api.ActivityEnable (kind);
  else
    api.ActivityDisable (kind);
}

static void
enable_trace_kinds (bool on)
{
  /* KINESCOPE_CUPTI_RUNTIME / _DRIVER: 1 (all calls, the kind), select
   * (only the essential calls, by callback id, kind off), 0 (none). */
  bool runtime_select = env_flag ("KINESCOPE_CUPTI_RUNTIME", "select");
  bool driver_select = env_flag ("KINESCOPE_CUPTI_DRIVER", "select");
  bool no_activity = env_flag ("KINESCOPE_CUPTI_ACTIVITY", "0");

  for (size_t i = 0; i < sizeof trace_kinds / sizeof trace_kinds[0] && !no_activity; i++)
    {
      if (trace_kinds[i] == CUPTI_ACTIVITY_KIND_DRIVER
          && (env_flag ("KINESCOPE_CUPTI_DRIVER", "0") || driver_select || api_by_callback))
        continue;
      if (trace_kinds[i] == CUPTI_ACTIVITY_KIND_RUNTIME
          && (env_flag ("KINESCOPE_CUPTI_RUNTIME", "0") || runtime_select || api_by_callback))
        continue;
      if (trace_kinds[i] == CUPTI_ACTIVITY_KIND_SYNCHRONIZATION && env_flag ("KINESCOPE_CUPTI_SYNC", "0"))
        continue;
      if (trace_kinds[i] == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && env_flag ("KINESCOPE_CUPTI_KERNEL", "serial"))
        {
          set_kind (CUPTI_ACTIVITY_KIND_KERNEL, on);
          continue;
        }
      set_kind (trace_kinds[i], on);
    }
  if (ks_inject_config.cuda_memory && !no_activity)
    set_kind (CUPTI_ACTIVITY_KIND_MEMORY2, on);
  if (api_by_callback)
    {
      /* The per-call activity settings below are for the activity kinds;
       * with callbacks they would only add a second row per call. */
      set_api_callbacks (on);
      if (on)
        remove_activity_hooks ();
      return;
    }

  if (runtime_select)
    set_apis (CUPTI_CB_DOMAIN_RUNTIME_API, true, on);
  if (driver_select)
    set_apis (CUPTI_CB_DOMAIN_DRIVER_API, true, on);

  /* Per-cbid settings must follow the kind's enable, which resets them. */
  if (on && env_flag ("KINESCOPE_CUPTI_API", "essential"))
    {
      set_apis (CUPTI_CB_DOMAIN_RUNTIME_API, false, 0);
      set_apis (CUPTI_CB_DOMAIN_DRIVER_API, false, 0);
    }
  if (on && !runtime_select && api.ActivityEnableRuntimeApi != NULL)
    for (uint32_t cbid = 1; cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE; cbid++)
      if (ks_api_is_quiet (false, cbid))
        api.ActivityEnableRuntimeApi (cbid, 0);
  if (on && !driver_select && api.ActivityEnableDriverApi != NULL)
    for (uint32_t cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; cbid++)
      if (ks_api_is_quiet (true, cbid))
        api.ActivityEnableDriverApi (cbid, 0);
}

void
ks_cupti_capture_changed (bool on)
{
  if (!tracing)
    return;

  if (!on)
    {
      /* Records of the range must leave before the kinds are switched off. */
      api.ActivityFlushAll (0);
      enable_trace_kinds (false);
      ks_channel_wake ();
    }
  else
    {
      enable_trace_kinds (true);
      /* Switched on in the cudaProfilerStart callback, the kinds went on
       * hooking every call after remove_activity_hooks() (cudaGetDevice
       * 220-430 ns); run again from our own thread, the hooks stay off.
       * (With API rows from activity records, those calls' records are
       * wanted.) */
      if (api_by_callback)
        {
          atomic_store (&hooks_pending, true);
          ks_channel_wake ();
        }
    }
}

/* The name an activity record would give the call (cudaLaunchKernel_v7000). */
static uint32_t
api_name_id (CUpti_CallbackDomain      domain,
             CUpti_CallbackId          cbid,
             const CUpti_CallbackData *data)
{
  int driver = domain == CUPTI_CB_DOMAIN_DRIVER_API;
  const char *name = NULL;
  uint32_t id = cbid < CUPTI_CBID_TABLE
                ? atomic_load_explicit (&api_name_ids[driver][cbid], memory_order_relaxed) : 0;

  if (id != 0)
    return id;
  if (api.GetCallbackName == NULL || api.GetCallbackName (domain, cbid, &name) != CUPTI_SUCCESS
      || name == NULL)
    name = data->functionName;
  /* Two threads may both intern it; ks_channel_intern() gives both the
   * same id. */
  id = ks_channel_intern (name);
  if (cbid < CUPTI_CBID_TABLE)
    atomic_store_explicit (&api_name_ids[driver][cbid], id, memory_order_relaxed);
  return id;
}

/* One row of the CUDA API: the start is kept in CUPTI's per-call slot
 * from the entry to the exit callback. Both times come from our clock. */
static void
record_api_call (CUpti_CallbackDomain      domain,
                 CUpti_CallbackId          cbid,
                 const CUpti_CallbackData *data)
{
  static __thread KsApiNesting nesting;
  bool driver = domain == CUPTI_CB_DOMAIN_DRIVER_API;
  bool enter = data->callbackSite == CUPTI_API_ENTER;
  uint64_t end;
  KsWireApi msg;

  if (!ks_api_nesting_keep (&nesting, atomic_load_explicit (&api_generation, memory_order_relaxed),
                            driver, enter)
      || ks_inject_internal_thread)
    return;
  if (enter)
    {
      *data->correlationData = ks_inject_now ();
      return;
    }
  end = ks_inject_now ();
  if (ks_api_message_from_callback (&msg, driver, cbid, data, *data->correlationData, end,
                                    ks_inject_gettid (), api_name_id (domain, cbid, data)))
    ks_channel_emit (&msg, sizeof msg);
}

static void CUPTIAPI
api_callback (void                 *userdata,
              CUpti_CallbackDomain  domain,
              CUpti_CallbackId      cbid,
              const void           *cbdata)
{
  const CUpti_CallbackData *data = cbdata;
  bool is_start;
  bool is_stop;

  if (domain == CUPTI_CB_DOMAIN_RESOURCE)
    {
      if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING)
        api.ActivityFlushAll (0);
      return;
    }

  if (domain == CUPTI_CB_DOMAIN_DRIVER_API)
    {
      is_start = cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart;
      is_stop = cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop;
    }
  else
    {
      is_start = cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000;
      is_stop = cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000;
    }

  if (atomic_load_explicit (&api_callbacks_on, memory_order_relaxed))
    record_api_call (domain, cbid, data);
  if (!is_start && !is_stop)
    return;

  if (is_stop && data->callbackSite == CUPTI_API_ENTER)
    {
      /* Flushed on every cudaProfilerStop, with or without a capture range,
       * as nsys does. */
      api.ActivityFlushAll (0);
      ks_channel_wake ();
      if (ks_inject_config.capture_mode == KS_CAPTURE_CUDA_PROFILER_API)
        ks_inject_set_capturing (false, ks_inject_now ());
    }
  else if (is_start && data->callbackSite == CUPTI_API_EXIT
           && ks_inject_config.capture_mode == KS_CAPTURE_CUDA_PROFILER_API)
    ks_inject_set_capturing (true, ks_inject_now ());
}

static void
report_other_client (const char *name)
{
  if (atomic_exchange (&foreign_reported, true))
    return;
  ks_channel_diag (KS_WIRE_DIAG_ERROR, KS_WIRE_DIAG_CODE_OTHER_SUBSCRIBER,
                   "another CUPTI client%s%s%s such as torch.profiler is active in pid %d; "
                   "its kernels cannot be recorded",
                   name && *name ? " (" : "", name && *name ? name : "",
                   name && *name ? ")" : "", (int) getpid ());
}

bool
ks_cupti_init (void)
{
  char where[512];
  uint32_t version = 0;
  CUptiResult r;
  int64_t before;
  int64_t after;
  uint64_t cupti_now = 0;

  cupti_handle = open_cupti (where, sizeof where);
  if (cupti_handle == NULL)
    {
      ks_channel_diag (KS_WIRE_DIAG_ERROR, KS_WIRE_DIAG_CODE_CUPTI_UNAVAILABLE,
                       "libcupti.so.13 could not be loaded in pid %d: %s",
                       (int) getpid (), dlerror ());
      return false;
    }
  if (!load_api ())
    {
      ks_channel_diag (KS_WIRE_DIAG_ERROR, KS_WIRE_DIAG_CODE_CUPTI_UNAVAILABLE,
                       "%s lacks functions of the CUPTI 13 Activity API", where);
      return false;
    }
  api.GetVersion (&version);
  ks_channel_diag (KS_WIRE_DIAG_INFO, KS_WIRE_DIAG_CODE_CUPTI_INFO,
                   "CUPTI API version %u from %s", version, where);

  if (api.SetThreadIdType != NULL)
    api.SetThreadIdType (CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);

  /* One clock: CUPTI stamps with CLOCK_REALTIME by default. Its records
   * are shifted onto CLOCK_MONOTONIC by an offset measured here (cheap);
   * KINESCOPE_CUPTI_CLOCK=callback makes CUPTI call our clock instead,
   * which survives NTP steps but costs time in every launch. */
  if (!env_flag ("KINESCOPE_CUPTI_CLOCK", "callback")
      || api.RegisterTimestampCallback == NULL
      || api.RegisterTimestampCallback (timestamp_cb) != CUPTI_SUCCESS)
    {
      before = (int64_t) ks_inject_now ();
      if (api.GetTimestamp)
        api.GetTimestamp (&cupti_now);
      after = (int64_t) ks_inject_now ();
      clock_offset = (before + (after - before) / 2) - (int64_t) cupti_now;
      ks_channel_diag (KS_WIRE_DIAG_INFO, KS_WIRE_DIAG_CODE_CUPTI_INFO,
                       "CUPTI timestamps of pid %d shifted by %lld ns onto CLOCK_MONOTONIC",
                       (int) getpid (), (long long) clock_offset);
    }

  if (api.Subscribe_v2 != NULL)
    {
      CUpti_SubscriberParams params;
      char old_name[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 64];

      memset (&params, 0, sizeof params);
      memset (old_name, 0, sizeof old_name);
      params.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
      params.subscriberName = "Kinescope";
      params.oldSubscriberName = old_name;
      params.oldSubscriberSize = sizeof old_name;
      self_call++;
      r = api.Subscribe_v2 (&subscriber, api_callback, NULL, &params);
      self_call--;
      if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
        {
          snprintf (foreign_client, sizeof foreign_client, "%s", old_name);
          report_other_client (foreign_client);
          return false;
        }
    }
  else
    {
      self_call++;
      r = api.Subscribe (&subscriber, api_callback, NULL);
      self_call--;
      if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
        {
          report_other_client (NULL);
          return false;
        }
    }
  if (r != CUPTI_SUCCESS)
    {
      ks_channel_diag (KS_WIRE_DIAG_ERROR, KS_WIRE_DIAG_CODE_CUPTI_UNAVAILABLE,
                       "cuptiSubscribe failed in pid %d: %s", (int) getpid (), result_string (r));
      return false;
    }

  api.EnableCallback (1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStart);
  api.EnableCallback (1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuProfilerStop);
  api.EnableCallback (1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000);
  api.EnableCallback (1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000);
  api.EnableCallback (1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING);

  decoder = ks_cupti_decoder_new (cupti_handle);
  if (decoder == NULL)
    return false;

  buffer_size = env_size ("KINESCOPE_CUPTI_BUFFER_KB", CUPTI_BUFFER_SIZE / 1024) * 1024;
  if (buffer_size < 64 * 1024)
    buffer_size = CUPTI_BUFFER_SIZE;
  flush_interval_ns = env_size ("KINESCOPE_CUPTI_FLUSH_MS", FLUSH_INTERVAL_NS / 1000000) * 1000000;
  use_pool = !env_flag ("KINESCOPE_CUPTI_POOL", "0");
  api_by_callback = !env_flag ("KINESCOPE_CUPTI_API_SOURCE", "activity");
  choose_api_callbacks ();
  /* Attributes that CUPTI reads when the buffer callbacks are registered. */
  if (api.ActivitySetAttribute != NULL)
    {
      size_t n;
      uint8_t flag;

      if (use_pool)
        {
          flag = 1;
          n = sizeof flag;
          api.ActivitySetAttribute (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &n, &flag);
        }
      if (env_flag ("KINESCOPE_CUPTI_PINNED", "1"))
        {
          flag = 1;
          n = sizeof flag;
          api.ActivitySetAttribute (CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED, &n, &flag);
        }
      if (env_flag ("KINESCOPE_CUPTI_PER_THREAD", "0"))
        {
          flag = 0;
          n = sizeof flag;
          api.ActivitySetAttribute (CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, &n, &flag);
        }
    }

  self_call++;
  r = api.ActivityRegisterCallbacks (buffer_requested, buffer_completed);
  self_call--;
  if (r != CUPTI_SUCCESS)
    {
      ks_channel_diag (KS_WIRE_DIAG_ERROR, KS_WIRE_DIAG_CODE_CUPTI_UNAVAILABLE,
                       "cuptiActivityRegisterCallbacks failed in pid %d: %s",
                       (int) getpid (), result_string (r));
      return false;
    }

  /* Records made once at creation: on from the start, whatever the
   * capture range. */
  api.ActivityEnable (CUPTI_ACTIVITY_KIND_DEVICE);
  api.ActivityEnable (CUPTI_ACTIVITY_KIND_CONTEXT);
  api.ActivityEnable (CUPTI_ACTIVITY_KIND_STREAM);

  if (env_flag ("KINESCOPE_CUPTI_ALL_SYNC", "0") && api.ActivityEnableAllSyncRecords != NULL)
    api.ActivityEnableAllSyncRecords (0);
  if (getenv ("KINESCOPE_CUPTI_FLUSH_PERIOD_MS") != NULL && api.ActivityFlushPeriod != NULL)
    api.ActivityFlushPeriod ((uint32_t) env_size ("KINESCOPE_CUPTI_FLUSH_PERIOD_MS", 0));

  tracing = true;
  last_flush_ns = ks_inject_now ();
  ks_channel_set_poll_func (poll_buffers);

  if (ks_inject_capturing ())
    enable_trace_kinds (true);

  return true;
}

void
ks_cupti_flush (bool forced)
{
  if (tracing)
    api.ActivityFlushAll (forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
}

void
ks_cupti_after_fork (void)
{
  /* CUDA cannot be used in a child forked after cuInit; our CUPTI state
   * belongs to the parent. */
  tracing = false;
  atomic_store (&api_callbacks_on, false);
  memset (api_name_ids, 0, sizeof api_name_ids);
  queue_head = queue_tail = NULL;
  pthread_mutex_init (&queue_mutex, NULL);
  pthread_mutex_init (&pool_mutex, NULL);
}

/* Exported under CUPTI's own names and preloaded, so that a second CUPTI
 * client in the process (torch.profiler's kineto) is seen the moment it
 * starts. Letting it register its buffer callbacks would take the
 * activity stream away from us mid-run and leave both tools blind, so
 * while we trace, its registration is refused and reported. Our own calls
 * go through the dlsym'd pointers and never come here. */

static void *
next_symbol (const char *name)
{
  void *sym = dlsym (RTLD_NEXT, name);

  if (sym == NULL)
    {
      void *handle = dlopen ("libcupti.so.13", RTLD_NOW | RTLD_NOLOAD);

      if (handle != NULL)
        sym = dlsym (handle, name);
    }
  return sym;
}

static void
note_foreign_client (void)
{
  /* libcupti calling its own exported entry points from ours */
  if (self_call)
    return;
  ks_inject_config_load ();
  if (ks_inject_config.active && ks_inject_config.trace_cuda)
    report_other_client (NULL);
}

KS_EXPORT CUptiResult CUPTIAPI
cuptiSubscribe (CUpti_SubscriberHandle *handle,
                CUpti_CallbackFunc      callback,
                void                   *userdata)
{
  CUptiResult (*real) (CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);

  note_foreign_client ();
  if (tracing && !self_call)
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  real = (__typeof__ (real)) next_symbol ("cuptiSubscribe");
  return real ? real (handle, callback, userdata) : CUPTI_ERROR_NOT_INITIALIZED;
}

KS_EXPORT CUptiResult CUPTIAPI
cuptiSubscribe_v2 (CUpti_SubscriberHandle *handle,
                   CUpti_CallbackFunc      callback,
                   void                   *userdata,
                   CUpti_SubscriberParams *params)
{
  CUptiResult (*real) (CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *, CUpti_SubscriberParams *);

  note_foreign_client ();
  if (tracing && !self_call)
    {
      if (params != NULL && params->oldSubscriberName != NULL && params->oldSubscriberSize > 0)
        snprintf (params->oldSubscriberName, params->oldSubscriberSize, "CUPTI for Kinescope");
      return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    }
  real = (__typeof__ (real)) next_symbol ("cuptiSubscribe_v2");
  return real ? real (handle, callback, userdata, params) : CUPTI_ERROR_NOT_INITIALIZED;
}

KS_EXPORT CUptiResult CUPTIAPI
cuptiActivityRegisterCallbacks (CUpti_BuffersCallbackRequestFunc  requested,
                                CUpti_BuffersCallbackCompleteFunc completed)
{
  CUptiResult (*real) (CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);

  note_foreign_client ();
  if (tracing && !self_call)
    return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
  real = (__typeof__ (real)) next_symbol ("cuptiActivityRegisterCallbacks");
  return real ? real (requested, completed) : CUPTI_ERROR_NOT_INITIALIZED;
}
