/* ks-record-connection.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* One process's connection: the wire messages (ks-wire.h) it sends,
 * decoded into rows of the recording. Its local string, domain and
 * context ids are mapped to the session's here. One file: handle_message()
 * is the whole protocol, one case per message type, and splitting it would
 * scatter what each message means. */

#define _GNU_SOURCE
#define G_LOG_DOMAIN "ks-record-session"

#include "config.h"

#include "ks-record-private.h"

#include "ks-kscope-conventions.h"
#include "ks-torch-nvtx.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Kernel names arrive mangled; demangle with the C++ runtime's
 * __cxa_demangle when it can be loaded. */
typedef char *(*DemangleFunc) (const char *, char *, size_t *, int *);

static DemangleFunc
get_demangler (void)
{
  static gsize once;
  static DemangleFunc func;

  if (g_once_init_enter (&once))
    {
      void *handle = dlopen ("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);

      if (handle != NULL)
        func = (DemangleFunc) dlsym (handle, "__cxa_demangle");
      g_once_init_leave (&once, 1);
    }
  return func;
}

KsRecordConnection *
ks_record_connection_new (KsRecordSession *session)
{
  KsRecordConnection *c = g_new0 (KsRecordConnection, 1);

  c->session = session;
  c->fd = -1;
  c->buffer = g_byte_array_new ();
  c->strings = g_hash_table_new (NULL, NULL);
  c->texts = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  c->kernels = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  c->domains = g_hash_table_new (NULL, NULL);
  c->contexts = g_hash_table_new (NULL, NULL);
  c->threads = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  c->nvtx_names = g_hash_table_new_full (NULL, NULL, NULL, g_free);
  c->py_stacks = g_hash_table_new (NULL, NULL);
  return c;
}

static void
connection_write_threads (KsRecordConnection *c)
{
  GHashTableIter iter;
  gpointer key;
  gpointer value;

  g_hash_table_iter_init (&iter, c->threads);
  while (g_hash_table_iter_next (&iter, &key, &value))
    {
      gint64 tid = GPOINTER_TO_INT (key);
      const char *name = g_hash_table_lookup (c->nvtx_names, key);

      if (name == NULL)
        name = value;
      ks_record_writer_add_thread (c->session->writer, c->pid, tid, name, ks_kscope_thread_role (c->pid, tid, name));
    }
  g_hash_table_remove_all (c->threads);
}

void
ks_record_connection_free (KsRecordConnection *c)
{
  if (c == NULL)
    return;
  /* a superseded connection's process goes on on its successor */
  if (c->hello && !c->superseded)
    ks_record_py_sampler_forget (c->session->py_sampler, c);
  if (c->hello)
    connection_write_threads (c);
  if (c->fd >= 0)
    close (c->fd);
  g_byte_array_unref (c->buffer);
  g_hash_table_unref (c->strings);
  g_hash_table_unref (c->texts);
  g_hash_table_unref (c->kernels);
  g_hash_table_unref (c->domains);
  g_hash_table_unref (c->contexts);
  g_hash_table_unref (c->threads);
  g_hash_table_unref (c->nvtx_names);
  g_hash_table_unref (c->py_stacks);
  g_free (c->name);
  g_free (c);
}

static void
see_thread (KsRecordConnection *c,
            guint32             tid)
{
  if (tid == 0 || g_hash_table_contains (c->threads, GUINT_TO_POINTER (tid)))
    return;
  g_hash_table_insert (c->threads, GUINT_TO_POINTER (tid), ks_record_proc_thread_name (c->pid, tid));
}

/* Whether the process at the other end of @c's socket is @pid. */
static gboolean
peer_is (KsRecordConnection *c,
         gint64              pid)
{
  struct ucred cred;
  socklen_t len = sizeof cred;

  if (c->fd < 0 || getsockopt (c->fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 || len != sizeof cred)
    return FALSE;
  return cred.pid == pid;
}

void
ks_record_connection_see_thread (KsRecordConnection *c,
                                 guint32             tid)
{
  see_thread (c, tid);
}

static guint32
global_string (KsRecordConnection *c,
               guint32             local_id)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (c->strings, GUINT_TO_POINTER (local_id)));
}

static const KernelNames *
kernel_names (KsRecordConnection *c,
              guint32             local_id)
{
  KsRecordWriter *w = c->session->writer;
  KernelNames *names = g_hash_table_lookup (c->kernels, GUINT_TO_POINTER (local_id));
  const char *mangled;
  DemangleFunc demangle;
  g_autofree char *shortname = NULL;
  char *demangled = NULL;
  int status = -1;

  if (names != NULL)
    return names;

  mangled = g_hash_table_lookup (c->texts, GUINT_TO_POINTER (local_id));
  if (mangled == NULL)
    mangled = "";
  demangle = get_demangler ();
  if (demangle != NULL && mangled[0] == '_' && mangled[1] == 'Z')
    demangled = demangle (mangled, NULL, NULL, &status);
  if (status != 0)
    g_clear_pointer (&demangled, free);

  names = g_new0 (KernelNames, 1);
  names->mangled = ks_record_writer_intern (w, mangled);
  names->demangled = demangled ? ks_record_writer_intern (w, demangled) : names->mangled;
  shortname = ks_kscope_kernel_short_name (demangled ? demangled : mangled);
  names->shortname = ks_record_writer_intern (w, shortname);
  free (demangled);
  g_hash_table_insert (c->kernels, GUINT_TO_POINTER (local_id), names);
  return names;
}

static const char *
severity_name (guint32 severity)
{
  switch (severity)
    {
    case KS_WIRE_DIAG_INFO: return "info";
    case KS_WIRE_DIAG_WARNING: return "warning";
    default: return "error";
    }
}

static const char *
msg_text (const KsWireHeader *h,
          gsize               fixed)
{
  const char *text = (const char *) h + fixed;

  if (h->size <= fixed)
    return "";
  /* The sender NUL-terminates; never trust it further than the size. */
  if (memchr (text, 0, h->size - fixed) == NULL)
    return "";
  return text;
}

#define NEED(type) G_STMT_START { if (h->size < sizeof (type)) return FALSE; } G_STMT_END

static void
bump_stat (KsRecordSession *self,
           guint64         *field,
           guint64          n)
{
  g_mutex_lock (&self->mutex);
  *field += n;
  g_mutex_unlock (&self->mutex);
}

/* Reads what @c has waiting, until the socket is empty or closed. */
static void
connection_drain (KsRecordConnection *c)
{
  g_autofree guint8 *buf = NULL;
  ssize_t r;

  if (c->fd < 0)
    return;
  buf = g_malloc (64 * 1024);
  while ((r = read (c->fd, buf, 64 * 1024)) > 0 || (r < 0 && errno == EINTR))
    if (r > 0 && !ks_record_connection_feed (c, buf, (gsize) r))
      break;
}

#define SWAP_FIELD(a, b, field) \
  G_STMT_START { __typeof__ ((a)->field) t_ = (a)->field; (a)->field = (b)->field; (b)->field = t_; } G_STMT_END

/* The program closed its socket and the library connected again
 * (ks-inject-channel.c): @c takes over the ids, domains, threads and
 * counters of the connection it had, found by pid and first HELLO. */
static void
connection_resume (KsRecordConnection *c)
{
  KsRecordSession *self = c->session;
  KsRecordConnection *old = NULL;
  gboolean was_detached = FALSE;

  for (guint i = 0; i < self->connections->len && old == NULL; i++)
    {
      KsRecordConnection *o = g_ptr_array_index (self->connections, i);

      if (o != c && o->hello && !o->bye && !o->superseded && o->pid == c->pid && o->hello_mono == c->hello_mono)
        old = o;
    }
  if (old != NULL)
    {
      /* Not closed here yet: what it sent before the close comes first.
       * A message cut short stays in its buffer; it is sent again whole. */
      connection_drain (old);
      old->superseded = TRUE;
    }
  else
    for (guint i = 0; i < self->detached->len; i++)
      {
        KsRecordConnection *o = g_ptr_array_index (self->detached, i);

        if (o->pid == c->pid && o->hello_mono == c->hello_mono)
          {
            old = g_ptr_array_steal_index_fast (self->detached, i);
            was_detached = TRUE;
            break;
          }
      }
  if (old == NULL)
    return;

  SWAP_FIELD (c, old, strings);
  SWAP_FIELD (c, old, texts);
  SWAP_FIELD (c, old, kernels);
  SWAP_FIELD (c, old, domains);
  SWAP_FIELD (c, old, contexts);
  SWAP_FIELD (c, old, threads);
  SWAP_FIELD (c, old, nvtx_names);
  /* a repeat after the reconnection is of the stack sent before it */
  SWAP_FIELD (c, old, py_stacks);
  memcpy (c->allocated, old->allocated, sizeof c->allocated);
  c->has_cuda = old->has_cuda;
  c->channel_dropped = old->channel_dropped;
  c->cupti_dropped = old->cupti_dropped;
  c->cupti_zero_time = old->cupti_zero_time;
  old->channel_dropped = old->cupti_dropped = old->cupti_zero_time = 0;
  /* its threads are @c's now */
  old->hello = FALSE;
  if (was_detached)
    ks_record_connection_free (old);
}

static gboolean
handle_message (KsRecordConnection *c,
                const KsWireHeader *h)
{
  KsRecordSession *self = c->session;
  KsRecordWriter *w = self->writer;

  if (!c->hello && h->type != KS_WIRE_HELLO)
    return FALSE;

  switch ((KsWireType) h->type)
    {
    case KS_WIRE_HELLO:
      {
        const KsWireHello *m = (const void *) h;

        NEED (KsWireHello);
        if (m->magic != KS_WIRE_MAGIC || m->version != KS_WIRE_VERSION || c->hello)
          return FALSE;
        c->hello = TRUE;
        c->pid = m->pid;
        c->hello_mono = m->mono_ns;
        c->name = g_strdup (msg_text (h, sizeof *m));
        ks_record_session_write_process (self, c->pid, c->name);
        if (h->reserved & KS_WIRE_HELLO_RESUMED)
          connection_resume (c);
        g_mutex_lock (&self->mutex);
        self->stats.processes = g_hash_table_size (self->processes);
        g_mutex_unlock (&self->mutex);
      }
      break;

    case KS_WIRE_STRING:
      {
        const KsWireString *m = (const void *) h;
        const char *text;

        NEED (KsWireString);
        text = msg_text (h, sizeof *m);
        g_hash_table_insert (c->strings, GUINT_TO_POINTER (m->id),
                             GUINT_TO_POINTER (ks_record_writer_intern (w, text)));
        g_hash_table_insert (c->texts, GUINT_TO_POINTER (m->id), g_strdup (text));
      }
      break;

    case KS_WIRE_THREAD_NAME:
      {
        const KsWireThreadName *m = (const void *) h;

        NEED (KsWireThreadName);
        see_thread (c, m->tid);
        g_hash_table_insert (c->nvtx_names, GUINT_TO_POINTER (m->tid), g_strdup (msg_text (h, sizeof *m)));
      }
      break;

    case KS_WIRE_KERNEL:
      {
        const KsWireKernel *m = (const void *) h;
        const KernelNames *names;

        NEED (KsWireKernel);
        if (m->start < self->filter_from)
          break;
        names = kernel_names (c, m->name_id);
        ks_record_writer_add_kernel (w, c->pid, m, names->demangled, names->shortname, names->mangled);
        bump_stat (self, &self->stats.kernels, 1);
      }
      break;

    case KS_WIRE_MEMCPY:
      NEED (KsWireMemcpy);
      if (((const KsWireMemcpy *) h)->start >= self->filter_from)
        ks_record_writer_add_memcpy (w, c->pid, (const void *) h);
      break;

    case KS_WIRE_MEMSET:
      NEED (KsWireMemset);
      if (((const KsWireMemset *) h)->start >= self->filter_from)
        ks_record_writer_add_memset (w, c->pid, (const void *) h);
      break;

    case KS_WIRE_API:
      {
        const KsWireApi *m = (const void *) h;

        NEED (KsWireApi);
        if (m->start < self->filter_from)
          break;
        see_thread (c, m->tid);
        ks_record_writer_add_api (w, c->pid, m, global_string (c, m->name_id));
      }
      break;

    case KS_WIRE_SYNC:
      {
        const KsWireSync *m = (const void *) h;

        NEED (KsWireSync);
        if (m->start < self->filter_from)
          break;
        ks_record_writer_add_sync (w, c->pid,
                                   GPOINTER_TO_UINT (g_hash_table_lookup (c->contexts, GUINT_TO_POINTER (m->context_id))),
                                   m);
      }
      break;

    case KS_WIRE_MEMORY:
      {
        const KsWireMemory *m = (const void *) h;
        guint dev;
        gint64 delta;

        NEED (KsWireMemory);
        dev = m->device_id < G_N_ELEMENTS (c->allocated) ? m->device_id : 0;
        delta = m->operation == KS_WIRE_MEMORY_FREE ? -(gint64) m->bytes : (gint64) m->bytes;
        c->allocated[dev] += delta;
        if (m->timestamp >= self->filter_from)
          ks_record_writer_add_memory (w, c->pid, c->pid, m->timestamp, (gint) m->device_id,
                                       m->address, delta, c->allocated[dev]);
      }
      break;

    case KS_WIRE_DEVICE:
      {
        const KsWireDevice *m = (const void *) h;
        KsRecordGpu *gpu;
        const guint8 *u;

        NEED (KsWireDevice);
        u = m->uuid;
        gpu = g_new0 (KsRecordGpu, 1);
        gpu->id = (gint) m->id;
        gpu->name = g_strdup (msg_text (h, sizeof *m));
        gpu->uuid = g_strdup_printf ("GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
                                     u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7],
                                     u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
        gpu->total_memory = m->total_memory;
        gpu->memory_bandwidth = m->memory_bandwidth;
        gpu->sm_count = m->sm_count;
        gpu->compute_major = m->compute_major;
        gpu->compute_minor = m->compute_minor;
        gpu->max_threads_per_block = m->max_threads_per_block;
        gpu->max_warps_per_sm = m->max_warps_per_sm;
        gpu->max_shmem_per_sm = m->max_shmem_per_sm;
        gpu->max_registers_per_sm = m->max_registers_per_sm;
        gpu->max_shmem_per_block = m->max_shmem_per_block;
        gpu->max_registers_per_block = m->max_registers_per_block;
        gpu->threads_per_warp = m->threads_per_warp;
        gpu->clock_rate_hz = (guint64) m->clock_rate_khz * 1000;
        gpu->l2_cache_size = m->l2_cache_size;
        g_ptr_array_add (self->cupti_gpus, gpu);
      }
      break;

    case KS_WIRE_CONTEXT:
      {
        const KsWireContext *m = (const void *) h;

        NEED (KsWireContext);
        g_hash_table_insert (c->contexts, GUINT_TO_POINTER (m->context_id), GUINT_TO_POINTER (m->device_id));
        if (!c->has_cuda)
          {
            c->has_cuda = TRUE;
            g_mutex_lock (&self->mutex);
            self->stats.cuda_processes++;
            g_mutex_unlock (&self->mutex);
          }
      }
      break;

    case KS_WIRE_STREAM:
      NEED (KsWireStream);
      ks_record_writer_add_stream (w, c->pid, (const void *) h);
      break;

    case KS_WIRE_NVTX:
      {
        const KsWireNvtx *m = (const void *) h;
        guint32 domain = 0;
        guint32 text_id = 0;
        const char *text = NULL;

        NEED (KsWireNvtx);
        if (m->start < self->filter_from && m->event_type != 33)
          break;
        see_thread (c, m->tid);
        if (m->domain_id != 0)
          domain = GPOINTER_TO_UINT (g_hash_table_lookup (c->domains, GUINT_TO_POINTER (m->domain_id)));
        if (m->text_kind == KS_WIRE_NVTX_TEXT_INLINE)
          text = msg_text (h, sizeof *m);
        else if (m->text_kind == KS_WIRE_NVTX_TEXT_REGISTERED)
          text_id = global_string (c, m->text_id);
        ks_record_writer_add_nvtx (w, c->pid, m->event_type, m->start, m->end, m->tid, m->end_tid,
                                   m->range_id, m->category, m->has_color, m->color, text, text_id,
                                   domain, m->payload_type, m->payload);
        if (m->event_type == KS_NVTX_PUSH_POP || m->event_type == KS_NVTX_START_END)
          bump_stat (self, &self->stats.nvtx_ranges, 1);
      }
      break;

    case KS_WIRE_TORCH_OP:
      {
        const KsWireTorchOp *m = (const void *) h;
        g_autofree gint64 *words = NULL;
        g_autofree char *text = NULL;
        const char *name;

        NEED (KsWireTorchOp);
        if (m->n_words > KS_WIRE_TORCH_MAX_WORDS || (h->size - sizeof *m) / sizeof (gint64) < m->n_words)
          return FALSE;
        if (m->start < self->filter_from)
          break;
        name = g_hash_table_lookup (c->texts, GUINT_TO_POINTER (m->name_id));
        see_thread (c, m->tid);
        /* the sizes may sit unaligned in the buffer */
        words = g_memdup2 (m + 1, m->n_words * sizeof (gint64));
        /* the range torch's NVTX emission would have given the operator */
        text = ks_torch_op_format (name ? name : "", m->seq, m->handle, m->flags & KS_WIRE_TORCH_OP_SHAPES,
                                   words, m->n_inputs, m->n_words, m->flags & KS_WIRE_TORCH_OP_TRUNCATED);
        ks_record_writer_add_nvtx (w, c->pid, KS_NVTX_PUSH_POP, m->start, m->end, m->tid, m->tid,
                                   0, 0, FALSE, 0, text, 0, 0, 0, 0);
        bump_stat (self, &self->stats.nvtx_ranges, 1);
      }
      break;

    case KS_WIRE_NVTX_DOMAIN:
      {
        const KsWireNvtxDomain *m = (const void *) h;
        guint32 global = self->next_domain++;

        NEED (KsWireNvtxDomain);
        g_hash_table_insert (c->domains, GUINT_TO_POINTER (m->domain_id), GUINT_TO_POINTER (global));
        ks_record_writer_add_nvtx (w, c->pid, KS_NVTX_DOMAIN, MAX (m->timestamp, self->start_mono), 0,
                                   m->tid, 0, 0, 0, FALSE, 0, msg_text (h, sizeof *m), 0, global, 0, 0);
      }
      break;

    case KS_WIRE_OSRT:
      {
        const KsWireOsrt *m = (const void *) h;

        NEED (KsWireOsrt);
        if (m->start < self->filter_from)
          break;
        see_thread (c, m->tid);
        ks_record_writer_add_osrt (w, c->pid, m);
      }
      break;

    case KS_WIRE_DROPS:
      {
        const KsWireDrops *m = (const void *) h;

        NEED (KsWireDrops);
        c->channel_dropped = m->channel_dropped;
        c->cupti_dropped = m->cupti_dropped;
        c->cupti_zero_time = m->cupti_zero_time;
      }
      break;

    case KS_WIRE_CAPTURE:
      {
        const KsWireCapture *m = (const void *) h;
        g_autofree char *text = NULL;

        NEED (KsWireCapture);
        ks_record_py_sampler_capture (self->py_sampler, c->pid, m->timestamp, m->state == KS_WIRE_CAPTURE_START);
        text = g_strdup_printf (m->state == KS_WIRE_CAPTURE_START
                                ? "capture range started in pid %" G_GINT64_FORMAT " (thread %u)"
                                : "capture range stopped in pid %" G_GINT64_FORMAT " (thread %u)",
                                c->pid, m->tid);
        ks_record_writer_add_diagnostic (w, m->timestamp, "info", "capture", text);
      }
      break;

    case KS_WIRE_DIAG:
      {
        const KsWireDiag *m = (const void *) h;
        const char *text;

        NEED (KsWireDiag);
        text = msg_text (h, sizeof *m);
        /* Facts about the set-up are capture settings, not problems. */
        if (m->code != KS_WIRE_DIAG_CODE_CUPTI_INFO)
          ks_record_writer_add_diagnostic (w, m->timestamp, severity_name (m->severity),
                                           m->code == KS_WIRE_DIAG_CODE_PYTHON ? "python" : "cupti", text);
        if (m->code == KS_WIRE_DIAG_CODE_OTHER_SUBSCRIBER)
          {
            g_mutex_lock (&self->mutex);
            if (self->cupti_conflict == NULL)
              self->cupti_conflict = g_strdup (text);
            g_mutex_unlock (&self->mutex);
          }
        else if (m->code == KS_WIRE_DIAG_CODE_CUPTI_INFO)
          ks_record_writer_add_capture_meta (w, "cupti", text);
      }
      break;

    case KS_WIRE_PY_SAMPLE:
      {
        const KsWirePySample *m = (const void *) h;
        const KsWirePyFrame *frames = (const void *) (m + 1);
        guint32 symbols[KS_WIRE_PY_MAX_FRAMES];
        guint32 modules[KS_WIRE_PY_MAX_FRAMES];
        guint32 lines[KS_WIRE_PY_MAX_FRAMES];

        KsRecordStack stack;

        NEED (KsWirePySample);
        /* the frames must lie inside the message */
        if (m->n_frames > KS_WIRE_PY_MAX_FRAMES
            || (h->size - sizeof *m) / sizeof (KsWirePyFrame) < m->n_frames)
          return FALSE;
        if (m->n_frames > 0)
          {
            for (guint i = 0; i < m->n_frames; i++)
              {
                KsWirePyFrame f;

                memcpy (&f, frames + i, sizeof f);
                symbols[i] = global_string (c, f.function_id);
                modules[i] = global_string (c, f.file_id);
                lines[i] = f.line;
              }
            stack = ks_record_writer_intern_stack (w, m->n_frames, symbols, modules, lines);
            /* kept before --delay's end too: a repeat after it needs it */
            g_hash_table_insert (c->py_stacks, GUINT_TO_POINTER (m->tid), GUINT_TO_POINTER (stack));
          }
        else
          stack = GPOINTER_TO_UINT (g_hash_table_lookup (c->py_stacks, GUINT_TO_POINTER (m->tid)));
        if (m->timestamp < self->filter_from)
          break;
        see_thread (c, m->tid);
        /* the process's own sampler cannot tell running from waiting */
        ks_record_writer_add_python_sample (w, c->pid, m->timestamp, m->tid, stack, -1);
        if (stack != KS_RECORD_STACK_NONE && stack != KS_RECORD_STACK_DROPPED)
          bump_stat (self, &self->stats.python_samples, 1);
      }
      break;

    case KS_WIRE_PY_OUTSIDE:
      {
        const KsWirePyOutside *m = (const void *) h;

        NEED (KsWirePyOutside);
        /* the recorder writes into the process that asks: only into the
         * one at the other end of this socket, whatever pid it claimed */
        if (self->options.python_sampling && peer_is (c, c->pid))
          ks_record_py_sampler_attach (self->py_sampler, c->pid, m->flag_address, m->own_tid);
      }
      break;

    case KS_WIRE_ALLOCATOR:
      {
        const KsWireAllocator *m = (const void *) h;

        NEED (KsWireAllocator);
        if (m->timestamp < self->filter_from)
          break;
        see_thread (c, m->tid);
        ks_record_writer_add_allocator (w, c->pid, m);
      }
      break;

    case KS_WIRE_RANK:
      {
        const KsWireRank *m = (const void *) h;

        NEED (KsWireRank);
        /* a rank from a broken or hostile library is left out, not guessed */
        if (m->rank < 0 || m->local_rank < -1 || m->world_size < 0 || m->local_world_size < 0)
          break;
        ks_record_writer_add_rank (w, c->pid, m->rank, m->local_rank, m->world_size,
                                   m->local_world_size, msg_text (h, sizeof *m));
      }
      break;

    case KS_WIRE_BYE:
      c->bye = TRUE;
      break;

    case KS_WIRE_N_TYPES:
    default:
      /* Unknown messages from a newer library are skipped. */
      break;
    }

  return TRUE;
}

gboolean
ks_record_connection_feed (KsRecordConnection *c,
                           const guint8       *data,
                           gsize               len)
{
  gsize offset = 0;
  gboolean ok = TRUE;

  g_byte_array_append (c->buffer, data, (guint) len);

  while (c->buffer->len - offset >= sizeof (KsWireHeader))
    {
      KsWireHeader h;

      memcpy (&h, c->buffer->data + offset, sizeof h);
      if (h.size < sizeof h || h.size > KS_WIRE_MAX_MESSAGE || h.size % 8 != 0)
        {
          ok = FALSE;
          break;
        }
      if (c->buffer->len - offset < h.size)
        break;
      if (!handle_message (c, (const KsWireHeader *) (c->buffer->data + offset)))
        {
          ok = FALSE;
          break;
        }
      offset += h.size;
    }

  g_byte_array_remove_range (c->buffer, 0, (guint) offset);
  g_mutex_lock (&c->session->mutex);
  c->session->stats.events = ks_record_writer_get_counts (c->session->writer)->rows;
  g_mutex_unlock (&c->session->mutex);
  return ok;
}

