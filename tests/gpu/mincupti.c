/* mincupti.c: the least a CUPTI kernel tracer can do, as a floor for the
 * collector's overhead. A CUDA injection library of its own (not the
 * collector) that switches on CUPTI's concurrent-kernel, memcpy and memset
 * activity records and nothing else: no callbacks, no API records, no
 * clock, no channel. Completed buffers are only counted and reused.
 *
 *   gcc -O2 -shared -fPIC -I/usr/local/cuda/include -o mincupti.so mincupti.c -ldl -lpthread
 *   CUDA_INJECTION64_PATH=$PWD/mincupti.so PROGRAM
 *
 * MINCUPTI_HOOKS=keep leaves CUPTI's hooks on every runtime and driver
 * call, as a client that only enables the kinds gets them; by default
 * they are switched off call by call, as the collector does.
 * MINCUPTI_CALLBACKS=runtime|both subscribes a callback that does nothing
 * to the runtime (and driver) launch, memset, memcpy, event and stream
 * calls: what CUPTI's callback API costs without any work in it.
 * MINCUPTI_TOGGLE=1 has the kinds on only between cudaProfilerStart and
 * cudaProfilerStop, like kinescope-cli record --capture-range=cudaProfilerApi,
 * for on/off steps in one process. At exit the number of kernel records
 * goes to stderr (or to $MINCUPTI_OUT).
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define _GNU_SOURCE
#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "open-cupti.h"

#define BUFFER_SIZE (8u << 20)
#define POOL 4

static struct
{
  CUptiResult (*enable) (CUpti_ActivityKind);
  CUptiResult (*register_callbacks) (CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
  CUptiResult (*next_record) (uint8_t *, size_t, CUpti_Activity **);
  CUptiResult (*flush_all) (uint32_t);
  CUptiResult (*enable_runtime) (CUpti_CallbackId, uint8_t);
  CUptiResult (*enable_driver) (CUpti_CallbackId, uint8_t);
  CUptiResult (*set_attribute) (CUpti_ActivityAttribute, size_t *, void *);
  CUptiResult (*disable) (CUpti_ActivityKind);
  CUptiResult (*subscribe) (CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
  CUptiResult (*enable_callback) (uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain, CUpti_CallbackId);
  CUptiResult (*get_name) (CUpti_CallbackDomain, uint32_t, const char **);
} api;

static atomic_ulong kernels;
static atomic_ulong records;
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *pool[POOL];
static int pool_len;

static void CUPTIAPI
buffer_requested (uint8_t **buffer, size_t *size, size_t *max_records)
{
  uint8_t *b = NULL;

  pthread_mutex_lock (&pool_lock);
  if (pool_len > 0)
    b = pool[--pool_len];
  pthread_mutex_unlock (&pool_lock);
  /* Zeroed, as CUPTI is told (below). */
  if (b == NULL)
    b = calloc (1, BUFFER_SIZE);
  *buffer = b;
  *size = b ? BUFFER_SIZE : 0;
  *max_records = 0;
}

static void CUPTIAPI
buffer_completed (CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
  CUpti_Activity *r = NULL;

  while (api.next_record (buffer, valid, &r) == CUPTI_SUCCESS)
    {
      atomic_fetch_add_explicit (&records, 1, memory_order_relaxed);
      if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
        atomic_fetch_add_explicit (&kernels, 1, memory_order_relaxed);
    }
  /* CUPTI is told the buffers come zeroed (below), so zero it here, off
   * the application's threads, as the collector does. */
  memset (buffer, 0, valid);
  pthread_mutex_lock (&pool_lock);
  if (pool_len < POOL)
    {
      pool[pool_len++] = buffer;
      buffer = NULL;
    }
  pthread_mutex_unlock (&pool_lock);
  free (buffer);
}

static bool keep_hooks;
static pthread_mutex_t hooks_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hooks_cond = PTHREAD_COND_INITIALIZER;
static bool hooks_due;

static void
remove_hooks (void)
{
  if (keep_hooks)
    return;
  for (CUpti_CallbackId id = 1; id < CUPTI_RUNTIME_TRACE_CBID_SIZE; id++)
    api.enable_runtime (id, 0);
  for (CUpti_CallbackId id = 1; id < CUPTI_DRIVER_TRACE_CBID_SIZE; id++)
    api.enable_driver (id, 0);
}

/* Switching the hooks off from inside the cudaProfilerStart callback does
 * not hold; this thread does it right after. */
static void *
hooks_thread (void *data)
{
  for (;;)
    {
      pthread_mutex_lock (&hooks_lock);
      while (!hooks_due)
        pthread_cond_wait (&hooks_cond, &hooks_lock);
      hooks_due = false;
      pthread_mutex_unlock (&hooks_lock);
      remove_hooks ();
    }
  return NULL;
}

static void
set_kinds (bool on)
{
  static const CUpti_ActivityKind kinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
  };

  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    (on ? api.enable : api.disable) (kinds[i]);
  if (!on)
    api.flush_all (0);
  else
    {
      pthread_mutex_lock (&hooks_lock);
      hooks_due = true;
      pthread_cond_signal (&hooks_cond);
      pthread_mutex_unlock (&hooks_lock);
    }
}

static void CUPTIAPI
on_call (void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *cbdata)
{
  const CUpti_CallbackData *data = cbdata;

  if (userdata == NULL || domain != CUPTI_CB_DOMAIN_RUNTIME_API)
    return;
  if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000 && data->callbackSite == CUPTI_API_EXIT)
    set_kinds (true);
  else if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000 && data->callbackSite == CUPTI_API_ENTER)
    set_kinds (false);
}

static bool
is_traced_call (const char *name)
{
  static const char *const prefixes[] = {
    "cudaLaunch", "cudaMemset", "cudaMemcpy", "cudaEvent", "cudaStream",
    "cuLaunch", "cuMemset", "cuMemcpy", "cuEvent", "cuStream",
  };

  for (size_t i = 0; name != NULL && i < sizeof prefixes / sizeof prefixes[0]; i++)
    if (strncmp (name, prefixes[i], strlen (prefixes[i])) == 0)
      return true;
  return false;
}

/* One subscriber for both uses: CUPTI allows one per process. */
static void
subscribe_callbacks (bool toggle,
                     bool empty,
                     bool driver_too)
{
  CUpti_SubscriberHandle sub;

  if (!api.subscribe || !api.enable_callback || !api.get_name
      || api.subscribe (&sub, on_call, toggle ? &api : NULL) != CUPTI_SUCCESS)
    {
      fprintf (stderr, "mincupti: cannot subscribe to CUPTI\n");
      return;
    }
  if (toggle)
    {
      api.enable_callback (1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000);
      api.enable_callback (1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000);
    }
  if (!empty)
    return;
  for (CUpti_CallbackId id = 1; id < CUPTI_RUNTIME_TRACE_CBID_SIZE; id++)
    {
      const char *name = NULL;

      if (api.get_name (CUPTI_CB_DOMAIN_RUNTIME_API, id, &name) == CUPTI_SUCCESS && is_traced_call (name))
        api.enable_callback (1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, id);
    }
  for (CUpti_CallbackId id = 1; driver_too && id < CUPTI_DRIVER_TRACE_CBID_SIZE; id++)
    {
      const char *name = NULL;

      if (api.get_name (CUPTI_CB_DOMAIN_DRIVER_API, id, &name) == CUPTI_SUCCESS && is_traced_call (name))
        api.enable_callback (1, sub, CUPTI_CB_DOMAIN_DRIVER_API, id);
    }
}

static void
report (void)
{
  const char *path = getenv ("MINCUPTI_OUT");
  FILE *f;

  api.flush_all (1);
  f = path ? fopen (path, "w") : stderr;
  if (f == NULL)
    return;
  fprintf (f, "mincupti: %lu kernel records, %lu records\n",
           atomic_load (&kernels), atomic_load (&records));
  if (f != stderr)
    fclose (f);
}

int InitializeInjection (void) __attribute__((visibility ("default")));

int
InitializeInjection (void)
{
  const char *hooks = getenv ("MINCUPTI_HOOKS");
  const char *callbacks = getenv ("MINCUPTI_CALLBACKS");
  const char *toggle = getenv ("MINCUPTI_TOGGLE");
  uint8_t flag = 1;
  size_t n = sizeof flag;
  void *h;

  h = open_cupti ("mincupti");
  if (h == NULL)
    return 0;
  api.enable = dlsym (h, "cuptiActivityEnable");
  api.register_callbacks = dlsym (h, "cuptiActivityRegisterCallbacks");
  api.next_record = dlsym (h, "cuptiActivityGetNextRecord");
  api.flush_all = dlsym (h, "cuptiActivityFlushAll");
  api.enable_runtime = dlsym (h, "cuptiActivityEnableRuntimeApi");
  api.enable_driver = dlsym (h, "cuptiActivityEnableDriverApi");
  api.set_attribute = dlsym (h, "cuptiActivitySetAttribute");
  api.disable = dlsym (h, "cuptiActivityDisable");
  api.subscribe = dlsym (h, "cuptiSubscribe");
  api.enable_callback = dlsym (h, "cuptiEnableCallback");
  api.get_name = dlsym (h, "cuptiGetCallbackName");
  if (!api.enable || !api.register_callbacks || !api.next_record || !api.flush_all
      || !api.enable_runtime || !api.enable_driver || !api.set_attribute || !api.disable)
    {
      fprintf (stderr, "mincupti: this libcupti lacks the activity API\n");
      return 0;
    }

  api.set_attribute (CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER, &n, &flag);
  if (api.register_callbacks (buffer_requested, buffer_completed) != CUPTI_SUCCESS
      || api.enable (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS)
    {
      fprintf (stderr, "mincupti: cannot enable kernel records\n");
      return 0;
    }
  api.enable (CUPTI_ACTIVITY_KIND_MEMCPY);
  api.enable (CUPTI_ACTIVITY_KIND_MEMSET);

  keep_hooks = hooks != NULL && strcmp (hooks, "keep") == 0;
  remove_hooks ();
  if (toggle != NULL)
    {
      pthread_t t;

      pthread_create (&t, NULL, hooks_thread, NULL);
      pthread_detach (t);
    }
  if (callbacks != NULL || toggle != NULL)
    subscribe_callbacks (toggle != NULL, callbacks != NULL,
                         callbacks != NULL && strcmp (callbacks, "both") == 0);
  if (toggle != NULL)
    set_kinds (false);
  atexit (report);
  return 1;
}
