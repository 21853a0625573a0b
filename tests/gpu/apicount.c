/* apicount.c: how often a program calls each CUDA runtime and driver
 * function, and how many of the driver calls are made inside a runtime
 * call. A CUDA injection library of its own (not the collector), for
 * weighing which CUPTI callbacks a recording pays for:
 *
 *   gcc -O2 -shared -fPIC -I/usr/local/cuda/include -o apicount.so apicount.c -ldl
 *   CUDA_INJECTION64_PATH=$PWD/apicount.so APICOUNT_OUT=counts.tsv PROGRAM
 *
 * Writes "domain<TAB>name<TAB>calls<TAB>inside a runtime call" per
 * function called at least once, when the process exits. Every callback
 * of both domains is on, so the program runs slower; only counts matter.
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define _GNU_SOURCE
#include <cupti.h>
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "open-cupti.h"

#define TABLE 4096

static atomic_ulong calls[2][TABLE];
static atomic_ulong nested[2][TABLE];
static __thread int runtime_depth;
static CUptiResult (*get_name) (CUpti_CallbackDomain, CUpti_CallbackId, const char **);

static void CUPTIAPI
on_call (void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *cbdata)
{
  const CUpti_CallbackData *data = cbdata;
  int driver = domain == CUPTI_CB_DOMAIN_DRIVER_API;

  if (cbid >= TABLE || (domain != CUPTI_CB_DOMAIN_RUNTIME_API && !driver))
    return;
  if (data->callbackSite == CUPTI_API_EXIT)
    {
      if (!driver && runtime_depth > 0)
        runtime_depth--;
      return;
    }
  atomic_fetch_add_explicit (&calls[driver][cbid], 1, memory_order_relaxed);
  if (driver && runtime_depth > 0)
    atomic_fetch_add_explicit (&nested[driver][cbid], 1, memory_order_relaxed);
  if (!driver)
    runtime_depth++;
}

static void
write_counts (void)
{
  const char *path = getenv ("APICOUNT_OUT");
  FILE *f = path ? fopen (path, "w") : stderr;

  if (f == NULL)
    return;
  for (int d = 0; d < 2; d++)
    for (unsigned i = 0; i < TABLE; i++)
      {
        const char *name = NULL;
        unsigned long n = atomic_load (&calls[d][i]);

        if (n == 0)
          continue;
        if (get_name (d ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, i, &name) != CUPTI_SUCCESS)
          name = "?";
        fprintf (f, "%s\t%s\t%lu\t%lu\n", d ? "driver" : "runtime", name, n,
                 atomic_load (&nested[d][i]));
      }
  if (f != stderr)
    fclose (f);
}

int InitializeInjection (void) __attribute__((visibility ("default")));

int
InitializeInjection (void)
{
  CUptiResult (*subscribe) (CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
  CUptiResult (*enable_domain) (uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain);
  CUpti_SubscriberHandle sub;
  void *h;

  h = open_cupti ("apicount");
  if (h == NULL)
    return 0;
  subscribe = dlsym (h, "cuptiSubscribe");
  enable_domain = dlsym (h, "cuptiEnableDomain");
  get_name = dlsym (h, "cuptiGetCallbackName");
  if (!subscribe || !enable_domain || !get_name || subscribe (&sub, on_call, NULL) != CUPTI_SUCCESS)
    {
      fprintf (stderr, "apicount: cannot subscribe to CUPTI\n");
      return 0;
    }
  enable_domain (1, sub, CUPTI_CB_DOMAIN_RUNTIME_API);
  enable_domain (1, sub, CUPTI_CB_DOMAIN_DRIVER_API);
  atexit (write_counts);
  return 1;
}
