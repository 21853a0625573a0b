/* test-cupti-decode.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* CUPTI activity records built by hand with the CUDA 13 layouts, walked
 * by the real libcupti (cuptiActivityGetNextRecord works without a GPU),
 * decoded into wire messages by the injection library's decoder, received
 * by the recorder and written to a .kscope: the whole path a GPU record
 * takes, checked row by row. */

#include "config.h"

#include <cupti.h>
#include <dlfcn.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <sqlite3.h>
#include <string.h>
#include <time.h>

#include "ks-inject-private.h"
#include "ks-record-session.h"

static guint8 *buffer;
static gsize   used;

static void *
add_record (gsize size)
{
  void *p;

  /* CUPTI keeps records 8-byte aligned */
  used = (used + 7) & ~(gsize) 7;
  p = buffer + used;
  memset (p, 0, size);
  used += size;
  return p;
}

static guint64
mono_now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (guint64) ts.tv_sec * 1000000000u + (guint64) ts.tv_nsec;
}

static gint64
q (sqlite3    *db,
   const char *sql)
{
  sqlite3_stmt *s = NULL;
  gint64 v = -1;

  if (sqlite3_prepare_v2 (db, sql, -1, &s, NULL) != SQLITE_OK)
    g_error ("%s: %s", sql, sqlite3_errmsg (db));
  if (sqlite3_step (s) == SQLITE_ROW)
    v = sqlite3_column_int64 (s, 0);
  sqlite3_finalize (s);
  return v;
}

static char *
qs (sqlite3    *db,
    const char *sql)
{
  sqlite3_stmt *s = NULL;
  char *v = NULL;

  if (sqlite3_prepare_v2 (db, sql, -1, &s, NULL) != SQLITE_OK)
    g_error ("%s: %s", sql, sqlite3_errmsg (db));
  if (sqlite3_step (s) == SQLITE_ROW && sqlite3_column_text (s, 0))
    v = g_strdup ((const char *) sqlite3_column_text (s, 0));
  sqlite3_finalize (s);
  return v;
}

static const char *cupti_library;

static void
test_decode (void)
{
  static const char spin_name[] = "_Z4spinyPi";
  static const char elementwise_name[] = "_ZN2at6native29vectorized_elementwise_kernelILi4ENS0_11FillFunctorIfEESt5arrayIPcLm1EEEEviT0_T1_";
  g_autofree char *dir = g_dir_make_tmp ("ks-test-decode-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "decode.kscope", NULL);
  g_autoptr(GError) error = NULL;
  KsRecordOptions options = { 0 };
  KsRecordSession *session;
  KsRecordConnection *conn;
  KsCuptiDecoder *decoder;
  KsOutBuf out = { 0 };
  KsWireHello hello = { { 0 } };
  CUpti_ActivityKernel10 *k;
  CUpti_ActivityMemcpy6 *m;
  CUpti_ActivityMemset4 *ms;
  CUpti_ActivityAPI *a;
  CUpti_ActivitySynchronization2 *sy;
  CUpti_ActivityMemory4 *mem;
  CUpti_ActivityDevice5 *d;
  CUpti_ActivityContext3 *c;
  CUpti_ActivityStream *st;
  void *cupti;
  guint64 t0;
  sqlite3 *db;
  g_autofree char *text = NULL;

  cupti = dlopen (cupti_library, RTLD_NOW | RTLD_LOCAL);
  if (cupti == NULL)
    {
      g_test_skip_printf ("libcupti could not be loaded: %s", dlerror ());
      return;
    }

  options.capture_range = (char *) "none";
  session = ks_record_session_new (path, &options, &error);
  g_assert_no_error (error);
  t0 = mono_now () + 1000000;

  buffer = g_malloc0 (1 << 20);
  used = 0;

  c = add_record (sizeof *c);
  c->kind = CUPTI_ACTIVITY_KIND_CONTEXT;
  c->contextId = 1;
  c->deviceId = 0;
  c->nullStreamId = 7;

  d = add_record (sizeof *d);
  d->kind = CUPTI_ACTIVITY_KIND_DEVICE;
  d->id = 0;
  d->name = "NVIDIA Test GPU";
  d->numMultiprocessors = 132;
  d->globalMemorySize = 150754820096ull;
  d->computeCapabilityMajor = 9;
  d->computeCapabilityMinor = 0;
  d->coreClockRate = 1980000;
  d->maxThreadsPerBlock = 1024;
  d->maxWarpsPerMultiprocessor = 64;
  d->numThreadsPerWarp = 32;
  d->maxRegistersPerBlock = 65536;
  d->maxRegistersPerMultiprocessor = 65536;
  d->maxSharedMemoryPerBlock = 49152;
  d->maxSharedMemoryPerMultiprocessor = 233472;
  memset (&d->uuid, 0xab, sizeof d->uuid);

  st = add_record (sizeof *st);
  st->kind = CUPTI_ACTIVITY_KIND_STREAM;
  st->contextId = 1;
  st->streamId = 13;
  st->priority = (uint32_t) -1;

  a = add_record (sizeof *a);
  a->kind = CUPTI_ACTIVITY_KIND_RUNTIME;
  a->cbid = CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
  a->start = t0;
  a->end = t0 + 4000;
  a->threadId = 4242;
  a->correlationId = 11;

  a = add_record (sizeof *a);
  a->kind = CUPTI_ACTIVITY_KIND_DRIVER;
  a->cbid = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel;
  a->start = t0 + 5000;
  a->end = t0 + 9000;
  a->threadId = 4243;
  a->correlationId = 12;
  a->returnValue = 0;

  k = add_record (sizeof *k);
  k->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k->start = t0 + 10000;
  k->end = t0 + 60000;
  k->deviceId = 0;
  k->contextId = 1;
  k->streamId = 13;
  k->correlationId = 11;
  k->gridX = 1; k->gridY = 1; k->gridZ = 1;
  k->blockX = 32; k->blockY = 1; k->blockZ = 1;
  k->registersPerThread = 16;
  k->staticSharedMemory = 48;
  k->dynamicSharedMemory = 1024;
  k->localMemoryTotal_v2 = 65536;
  k->gridId = 99;
  k->name = spin_name;

  k = add_record (sizeof *k);
  k->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k->start = t0 + 70000;
  k->end = t0 + 72000;
  k->contextId = 1;
  k->streamId = 14;
  k->correlationId = 12;
  k->gridX = 528; k->gridY = 1; k->gridZ = 1;
  k->blockX = 128; k->blockY = 1; k->blockZ = 1;
  k->name = elementwise_name;

  /* the same name again: sent once */
  k = add_record (sizeof *k);
  k->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k->start = t0 + 73000;
  k->end = t0 + 75000;
  k->contextId = 1;
  k->streamId = 14;
  k->correlationId = 13;
  k->name = elementwise_name;

  /* no timestamps: counted, not written */
  k = add_record (sizeof *k);
  k->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
  k->contextId = 1;
  k->streamId = 14;
  k->name = spin_name;

  m = add_record (sizeof *m);
  m->kind = CUPTI_ACTIVITY_KIND_MEMCPY;
  m->copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
  m->srcKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  m->dstKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m->bytes = 1 << 20;
  m->start = t0 + 80000;
  m->end = t0 + 120000;
  m->contextId = 1;
  m->streamId = 13;
  m->correlationId = 14;

  ms = add_record (sizeof *ms);
  ms->kind = CUPTI_ACTIVITY_KIND_MEMSET;
  ms->bytes = 512 << 10;
  ms->value = 0;
  ms->start = t0 + 130000;
  ms->end = t0 + 131000;
  ms->contextId = 1;
  ms->streamId = 14;
  ms->correlationId = 15;
  ms->memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;

  sy = add_record (sizeof *sy);
  sy->kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
  sy->type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
  sy->start = t0 + 132000;
  sy->end = t0 + 140000;
  sy->contextId = 1;
  sy->streamId = 13;
  sy->correlationId = 16;
  sy->cudaEventId = (uint32_t) -1;

  mem = add_record (sizeof *mem);
  mem->kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  mem->memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
  mem->memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  mem->address = 0x7f0000000000ull;
  mem->bytes = 1 << 20;
  mem->timestamp = t0 + 2000;

  mem = add_record (sizeof *mem);
  mem->kind = CUPTI_ACTIVITY_KIND_MEMORY2;
  mem->memoryOperationType = CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
  mem->memoryKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  mem->address = 0x7f0000000000ull;
  mem->bytes = 1 << 20;
  mem->timestamp = t0 + 150000;

  decoder = ks_cupti_decoder_new (cupti);
  g_assert_nonnull (decoder);
  g_assert_cmpuint (ks_cupti_decoder_decode (decoder, buffer, used, 0, &out), ==, 14);
  g_assert_cmpuint (ks_cupti_decoder_zero_time_records (decoder), ==, 1);

  conn = ks_record_connection_new (session);
  ks_wire_hello_init (&hello, 4242);
  g_assert_true (ks_record_connection_feed (conn, (const guint8 *) &hello, sizeof hello));
  /* in two pieces, split inside a message, as a socket may deliver it */
  g_assert_true (ks_record_connection_feed (conn, out.data, 37));
  g_assert_true (ks_record_connection_feed (conn, out.data + 37, out.len - 37));
  ks_record_connection_free (conn);
  g_assert_true (ks_record_session_finish (session, 0, TRUE, "test", &error));
  g_assert_no_error (error);
  ks_record_session_free (session);
  ks_cupti_decoder_free (decoder);
  free (out.data);
  g_free (buffer);

  g_assert_cmpint (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), ==, SQLITE_OK);
  g_assert_cmpint (q (db, "SELECT COUNT(*) FROM CUPTI_ACTIVITY_KIND_KERNEL"), ==, 3);
  text = qs (db, "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.demangledName WHERE k.correlationId = 11");
  g_assert_cmpstr (text, ==, "spin(unsigned long long, int*)");
  g_clear_pointer (&text, g_free);
  text = qs (db, "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName WHERE k.correlationId = 11");
  g_assert_cmpstr (text, ==, "spin");
  g_clear_pointer (&text, g_free);
  text = qs (db, "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName WHERE k.correlationId = 12");
  g_assert_cmpstr (text, ==, "vectorized_elementwise_kernel");
  g_clear_pointer (&text, g_free);
  text = qs (db, "SELECT s.value FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.mangledName WHERE k.correlationId = 13");
  g_assert_cmpstr (text, ==, elementwise_name);
  g_clear_pointer (&text, g_free);
  g_assert_cmpint (q (db, "SELECT COUNT(*) FROM StringIds WHERE value LIKE '%vectorized_elementwise_kernel%'"), ==, 3);
  g_assert_cmpint (q (db, "SELECT end - start FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId = 11"), ==, 50000);
  g_assert_cmpint (q (db, "SELECT gridX * 1000 + blockX FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId = 12"), ==, 528128);
  g_assert_cmpint (q (db, "SELECT registersPerThread + staticSharedMemory + dynamicSharedMemory FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId = 11"), ==, 16 + 48 + 1024);
  g_assert_cmpint (q (db, "SELECT localMemoryTotal FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId = 11"), ==, 65536);
  g_assert_cmpint (q (db, "SELECT gridId FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId = 11"), ==, 99);
  g_assert_cmpint (q (db, "SELECT globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE correlationId = 11"), ==, (gint64) 4242 << 24);
  /* launch → kernel through the correlation id, same process */
  g_assert_cmpint (q (db, "SELECT k.start - r.start FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN CUPTI_ACTIVITY_KIND_RUNTIME r "
                          "ON r.correlationId = k.correlationId AND r.globalTid / 16777216 = k.globalPid / 16777216 "
                          "WHERE k.correlationId = 11"), ==, 10000);
  text = qs (db, "SELECT s.value FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId WHERE r.eventClass = 0");
  g_assert_cmpstr (text, ==, "cudaLaunchKernel_v7000");
  g_clear_pointer (&text, g_free);
  text = qs (db, "SELECT s.value FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId WHERE r.eventClass = 1");
  g_assert_cmpstr (text, ==, "cuLaunchKernel");
  g_clear_pointer (&text, g_free);
  g_assert_cmpint (q (db, "SELECT globalTid FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 1"), ==, ((gint64) 4242 << 24) | 4243);
  /* Nsight's numbers: Pageable 0, Pinned 1, Device 2 (CUPTI: 1, 2, 3) */
  g_assert_cmpint (q (db, "SELECT bytes * 100 + copyKind * 10 + srcKind FROM CUPTI_ACTIVITY_KIND_MEMCPY"), ==, (1 << 20) * 100 + 10 + 1);
  g_assert_cmpint (q (db, "SELECT dstKind FROM CUPTI_ACTIVITY_KIND_MEMCPY"), ==, 2);
  text = qs (db, "SELECT s.label || ' -> ' || d.label FROM CUPTI_ACTIVITY_KIND_MEMCPY m "
                 "JOIN ENUM_CUDA_MEM_KIND s ON s.id = m.srcKind JOIN ENUM_CUDA_MEM_KIND d ON d.id = m.dstKind");
  g_assert_cmpstr (text, ==, "Pinned -> Device");
  g_clear_pointer (&text, g_free);
  g_assert_cmpint (q (db, "SELECT bytes FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE streamId = 14 AND memKind = 2"), ==, 512 << 10);
  /* CUPTI's Regular launch is 0, Nsight's 1 */
  text = qs (db, "SELECT e.label FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN ENUM_CUDA_KERNEL_LAUNCH_TYPE e "
                 "ON e.id = k.launchType WHERE k.correlationId = 11");
  g_assert_cmpstr (text, ==, "Regular");
  g_clear_pointer (&text, g_free);
  g_assert_cmpint (q (db, "SELECT syncType * 100 + streamId FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"), ==, 313);
  g_assert_cmpint (q (db, "SELECT eventId FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"), ==, -1);
  g_assert_cmpint (q (db, "SELECT COUNT(*) FROM TARGET_INFO_CUDA_STREAM WHERE streamId = 13 AND priority = -1 AND processId = 4242"), ==, 1);
  g_assert_cmpint (q (db, "SELECT SUM(bytes) FROM KS_MEMORY_EVENTS"), ==, 0);
  g_assert_cmpint (q (db, "SELECT MAX(totalAllocated) FROM KS_MEMORY_EVENTS"), ==, 1 << 20);
  g_assert_cmpint (q (db, "SELECT totalAllocated FROM KS_MEMORY_EVENTS WHERE bytes < 0"), ==, 0);
  text = qs (db, "SELECT name || ' ' || uuid || ' ' || smCount || ' ' || computeMajor || ' ' || clockRate FROM TARGET_INFO_GPU");
  g_assert_cmpstr (text, ==, "NVIDIA Test GPU GPU-abababab-abab-abab-abab-abababababab 132 9 1980000000");
  g_clear_pointer (&text, g_free);
  /* What an occupancy estimate needs. */
  text = qs (db, "SELECT maxThreadsPerBlock || ' ' || maxThreadsPerSm || ' ' || maxWarpsPerSm || ' ' || threadsPerWarp "
                 "|| ' ' || maxRegistersPerBlock || ' ' || maxRegistersPerSm || ' ' || maxShmemPerBlock "
                 "|| ' ' || maxShmemPerSm FROM TARGET_INFO_GPU");
  g_assert_cmpstr (text, ==, "1024 2048 64 32 65536 65536 49152 233472");
  g_clear_pointer (&text, g_free);
  sqlite3_close (db);
  g_unlink (path);
  g_rmdir (dir);
}

/* API rows from callbacks: driver calls inside a runtime call are left
 * out, as activity records leave them out, until the depth is lost to a
 * switch off and on; exits without a known start give no row. */
static void
test_api_callbacks (void)
{
  KsApiNesting n = { 0, 0 };
  CUpti_CallbackData data;
  KsWireApi msg;
  int runtime_error = 2;             /* cudaErrorMemoryAllocation */
  CUresult driver_error = CUDA_ERROR_INVALID_VALUE;

  g_assert_true (ks_api_nesting_keep (&n, 1, FALSE, TRUE));    /* cudaLaunchKernel enters */
  g_assert_false (ks_api_nesting_keep (&n, 1, TRUE, TRUE));    /* its cuLaunchKernel */
  g_assert_false (ks_api_nesting_keep (&n, 1, TRUE, FALSE));
  g_assert_true (ks_api_nesting_keep (&n, 1, FALSE, FALSE));   /* cudaLaunchKernel exits */
  g_assert_true (ks_api_nesting_keep (&n, 1, TRUE, TRUE));     /* Triton's own cuLaunchKernel */
  g_assert_true (ks_api_nesting_keep (&n, 1, TRUE, FALSE));
  g_assert_true (ks_api_nesting_keep (&n, 1, FALSE, FALSE));   /* an exit whose entry was missed */
  g_assert_cmpint (n.runtime_depth, ==, 0);
  g_assert_true (ks_api_nesting_keep (&n, 1, FALSE, TRUE));    /* entered, then switched off */
  g_assert_false (ks_api_nesting_keep (&n, 1, TRUE, TRUE));
  g_assert_true (ks_api_nesting_keep (&n, 2, TRUE, TRUE));     /* switched on again */

  memset (&data, 0, sizeof data);
  data.correlationId = 77;
  data.functionReturnValue = &runtime_error;
  g_assert_true (ks_api_message_from_callback (&msg, FALSE, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                                               &data, 1000, 2500, 4242, 9));
  g_assert_cmpuint (msg.h.type, ==, KS_WIRE_API);
  g_assert_cmpuint (msg.h.size, ==, sizeof msg);
  g_assert_cmpuint (msg.start, ==, 1000);
  g_assert_cmpuint (msg.end, ==, 2500);
  g_assert_cmpuint (msg.tid, ==, 4242);
  g_assert_cmpuint (msg.correlation_id, ==, 77);
  g_assert_cmpuint (msg.return_value, ==, 2);
  g_assert_cmpuint (msg.name_id, ==, 9);
  g_assert_cmpuint (msg.cbid, ==, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
  g_assert_cmpuint (msg.event_class, ==, KS_WIRE_API_RUNTIME);

  data.functionReturnValue = &driver_error;
  g_assert_true (ks_api_message_from_callback (&msg, TRUE, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
                                               &data, 5, 5, 1, 3));
  g_assert_cmpuint (msg.return_value, ==, CUDA_ERROR_INVALID_VALUE);
  g_assert_cmpuint (msg.event_class, ==, KS_WIRE_API_DRIVER);

  g_assert_false (ks_api_message_from_callback (&msg, TRUE, 1, &data, 0, 5, 1, 3));
  g_assert_false (ks_api_message_from_callback (&msg, TRUE, 1, &data, 6, 5, 1, 3));
}

/* The calls that get an API callback. Those PyTorch makes around every
 * kernel (cudaGetDevice 10 to 13 times, cuCtxGetDevice inside it,
 * cuDevicePrimaryCtxGetState, cuKernelGetName...) must get none, or CUPTI
 * steps into each of them; launches by either API, copies, sets,
 * synchronization and module loads must get one. */
static void
test_callback_choice (void)
{
  CUptiResult (*get_name) (CUpti_CallbackDomain, CUpti_CallbackId, const char **);
  const char *name;
  void *cupti = dlopen (cupti_library, RTLD_NOW | RTLD_LOCAL);
  static const char * const driver_wanted[] = {
    "cuLaunchKernel", "cuLaunchKernelEx", "cuMemcpyHtoDAsync_v2", "cuMemsetD8Async",
    "cuStreamSynchronize", "cuEventRecord", "cuMemAlloc_v2", "cuModuleLoadData", "cuLibraryLoadData",
  };
  static const char * const driver_unwanted[] = {
    "cuCtxGetDevice", "cuCtxGetDevice_v2", "cuDevicePrimaryCtxGetState", "cuKernelGetName",
    "cuKernelGetAttribute", "cuGetErrorString", "cuCtxGetCurrent", "cuDeviceGet",
    "cuDriverGetVersion", "cuCtxGetLimit", "cuStreamIsCapturing", "cuProfilerStart",
  };
  guint found = 0;
  guint wanted = 0;

  if (cupti == NULL)
    {
      g_test_skip_printf ("libcupti could not be loaded: %s", dlerror ());
      return;
    }
  get_name = dlsym (cupti, "cuptiGetCallbackName");
  g_assert_nonnull (get_name);

  g_assert_false (ks_api_wants_callback (FALSE, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020, "cudaGetDevice"));
  g_assert_false (ks_api_wants_callback (FALSE, CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020, NULL));
  g_assert_false (ks_api_wants_callback (FALSE, CUPTI_RUNTIME_TRACE_CBID_cudaStreamIsCapturing_v10000, NULL));
  g_assert_false (ks_api_wants_callback (FALSE, CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000, NULL));
  g_assert_true (ks_api_wants_callback (FALSE, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, NULL));
  g_assert_true (ks_api_wants_callback (FALSE, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060, NULL));
  g_assert_true (ks_api_wants_callback (FALSE, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, NULL));
  g_assert_true (ks_api_wants_callback (FALSE, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, NULL));

  for (guint cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; cbid++)
    {
      gboolean want;

      name = NULL;
      if (get_name (CUPTI_CB_DOMAIN_DRIVER_API, cbid, &name) != CUPTI_SUCCESS || name == NULL)
        continue;
      want = ks_api_wants_callback (TRUE, cbid, name);
      wanted += want;
      for (gsize i = 0; i < G_N_ELEMENTS (driver_wanted); i++)
        if (g_str_equal (name, driver_wanted[i]))
          {
            g_assert_true (want);
            found++;
          }
      for (gsize i = 0; i < G_N_ELEMENTS (driver_unwanted); i++)
        if (g_str_equal (name, driver_unwanted[i]))
          {
            g_assert_false (want);
            found++;
          }
    }
  /* Every listed name exists in this libcupti (cuCtxGetDevice has one
   * cbid per version, both listed, both found). */
  g_assert_cmpuint (found, ==, G_N_ELEMENTS (driver_wanted) + G_N_ELEMENTS (driver_unwanted));
  /* A chosen few, not the whole driver API. */
  g_assert_cmpuint (wanted, >, 50);
  g_assert_cmpuint (wanted, <, CUPTI_DRIVER_TRACE_CBID_SIZE / 3);
  dlclose (cupti);
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  if (argc < 2)
    g_error ("usage: test-cupti-decode LIBCUPTI");
  cupti_library = argv[1];
  g_test_add_func ("/collector/cupti/decode", test_decode);
  g_test_add_func ("/collector/cupti/api-callbacks", test_api_callbacks);
  g_test_add_func ("/collector/cupti/callback-choice", test_callback_choice);
  return g_test_run ();
}
