/* ks-inject-nvtx.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* NVTX injection: our own InitializeInjectionNvtx2, as Nsight Systems has.
 * One file: the handlers fill one export table and share the per-thread
 * and process-wide range state.
 *
 * Every module built with the header-only NVTX3 calls it once at its
 * first NVTX call (torch, libtorch_cuda, NCCL, the program itself...), and
 * gets our handlers written into its function table. Push/pop ranges are
 * kept on a per-thread stack and sent complete at the pop; start/end
 * ranges in a process-wide table, since the end may come from another
 * thread. Messages are copied at once: Python's strings die right after
 * the call. */

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include "ks-inject-private.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define MAX_DEPTH      128
#define MAX_MESSAGE    512
#define MAX_DOMAINS    256
#define START_TABLE    4096   /* power of two */

typedef struct
{
  uint64_t start;
  uint64_t payload;
  uint32_t domain_id;
  uint32_t category;
  uint32_t color;
  uint32_t text_id;
  uint32_t tid;
  uint8_t  has_color;
  uint8_t  payload_type;
  uint8_t  text_kind;
  uint8_t  is_trigger;
  uint16_t text_len;
  char     text[MAX_MESSAGE];
} OpenRange;

typedef struct
{
  int       depth;
  int       overflow;          /* pushes beyond MAX_DEPTH, popped silently */
  OpenRange ranges[MAX_DEPTH];
} RangeStack;

typedef struct
{
  uint64_t  id;                /* 0: free slot */
  OpenRange range;
} StartedRange;

static __thread RangeStack *tls_stack;
static pthread_key_t        stack_key;
static pthread_once_t       stack_key_once = PTHREAD_ONCE_INIT;

static pthread_mutex_t      domain_mutex = PTHREAD_MUTEX_INITIALIZER;
static char                *domain_names[MAX_DOMAINS];
static uint32_t             n_domains;

static pthread_mutex_t      start_mutex = PTHREAD_MUTEX_INITIALIZER;
static StartedRange        *started;
static atomic_uint_fast64_t next_range_id = 1;
static atomic_uint          trigger_domain;
static atomic_bool          nvtx_exit_hooked;

static void
free_stack (void *data)
{
  free (data);
}

static void
make_stack_key (void)
{
  pthread_key_create (&stack_key, free_stack);
}

static RangeStack *
get_stack (void)
{
  if (tls_stack == NULL)
    {
      pthread_once (&stack_key_once, make_stack_key);
      tls_stack = calloc (1, sizeof *tls_stack);
      if (tls_stack != NULL)
        pthread_setspecific (stack_key, tls_stack);
    }
  return tls_stack;
}

static size_t
utf8_from_wide (const wchar_t *w,
                char          *out,
                size_t         size)
{
  size_t n = 0;

  for (; w != NULL && *w; w++)
    {
      uint32_t c = (uint32_t) *w;
      char buf[4];
      size_t len;

      if (c < 0x80)
        {
          buf[0] = (char) c;
          len = 1;
        }
      else if (c < 0x800)
        {
          buf[0] = (char) (0xC0 | (c >> 6));
          buf[1] = (char) (0x80 | (c & 0x3F));
          len = 2;
        }
      else if (c < 0x10000)
        {
          buf[0] = (char) (0xE0 | (c >> 12));
          buf[1] = (char) (0x80 | ((c >> 6) & 0x3F));
          buf[2] = (char) (0x80 | (c & 0x3F));
          len = 3;
        }
      else
        {
          buf[0] = (char) (0xF0 | ((c >> 18) & 0x07));
          buf[1] = (char) (0x80 | ((c >> 12) & 0x3F));
          buf[2] = (char) (0x80 | ((c >> 6) & 0x3F));
          buf[3] = (char) (0x80 | (c & 0x3F));
          len = 4;
        }
      if (n + len >= size)
        break;
      memcpy (out + n, buf, len);
      n += len;
    }
  out[n] = 0;
  return n;
}

static void
set_text_ascii (OpenRange  *r,
                const char *text)
{
  size_t len = text ? strlen (text) : 0;

  if (len >= MAX_MESSAGE)
    len = MAX_MESSAGE - 1;
  memcpy (r->text, text ? text : "", len);
  r->text[len] = 0;
  r->text_len = (uint16_t) len;
  r->text_kind = KS_WIRE_NVTX_TEXT_INLINE;
}

static void
fill_from_attributes (OpenRange                   *r,
                      const nvtxEventAttributes_t *a)
{
  r->text_kind = KS_WIRE_NVTX_TEXT_NONE;
  r->text_len = 0;
  r->text[0] = 0;
  if (a == NULL || a->size < 16)
    return;

  r->category = a->category;
  if (a->colorType == NVTX_COLOR_ARGB)
    {
      r->has_color = 1;
      r->color = a->color;
    }
  if (a->size >= 32 && a->payloadType > 0 && a->payloadType <= NVTX_PAYLOAD_TYPE_FLOAT)
    {
      r->payload_type = (uint8_t) a->payloadType;
      memcpy (&r->payload, &a->payload, sizeof r->payload);
    }
  if (a->size >= 48)
    {
      switch (a->messageType)
        {
        case NVTX_MESSAGE_TYPE_ASCII:
          set_text_ascii (r, a->message.ascii);
          break;
        case NVTX_MESSAGE_TYPE_UNICODE:
          r->text_len = (uint16_t) utf8_from_wide (a->message.unicode, r->text, MAX_MESSAGE);
          r->text_kind = KS_WIRE_NVTX_TEXT_INLINE;
          break;
        case NVTX_MESSAGE_TYPE_REGISTERED:
          r->text_id = (uint32_t) (uintptr_t) a->message.registered;
          r->text_kind = KS_WIRE_NVTX_TEXT_REGISTERED;
          break;
        default:
          break;
        }
    }
}

static void
init_range (OpenRange *r,
            uint32_t   domain_id)
{
  r->start = ks_inject_now ();
  r->payload = 0;
  r->domain_id = domain_id;
  r->category = 0;
  r->color = 0;
  r->text_id = 0;
  r->tid = ks_inject_gettid ();
  r->has_color = 0;
  r->payload_type = 0;
  r->text_kind = KS_WIRE_NVTX_TEXT_NONE;
  r->is_trigger = 0;
  r->text_len = 0;
  r->text[0] = 0;
}

static void
emit_range (const OpenRange *r,
            uint32_t         event_type,
            uint64_t         end,
            uint32_t         end_tid,
            uint64_t         range_id,
            int              depth)
{
  KsWireNvtx msg;

  memset (&msg, 0, sizeof msg);
  msg.h.type = KS_WIRE_NVTX;
  msg.start = r->start;
  msg.end = end;
  msg.range_id = range_id;
  msg.payload = r->payload;
  msg.tid = r->tid;
  msg.end_tid = end_tid;
  msg.event_type = event_type;
  msg.domain_id = r->domain_id;
  msg.category = r->category;
  msg.color = r->color;
  msg.text_id = r->text_id;
  msg.has_color = r->has_color;
  msg.payload_type = r->payload_type;
  msg.text_kind = r->text_kind;
  msg.depth = (uint8_t) (depth < 255 ? depth : 255);
  ks_channel_emit_text (&msg, sizeof msg,
                        r->text_kind == KS_WIRE_NVTX_TEXT_INLINE ? r->text : NULL,
                        r->text_kind == KS_WIRE_NVTX_TEXT_INLINE ? r->text_len : 0);
}

/* A range is kept when it overlaps the capture window. */
static bool
in_capture (const OpenRange *r)
{
  return ks_inject_capturing () || ks_inject_last_capture_stop () > r->start;
}

static bool
is_trigger (const OpenRange *r)
{
  uint32_t want_domain;
  const char *want;
  const char *at;
  size_t len;

  if (ks_inject_config.capture_mode != KS_CAPTURE_NVTX || r->text_kind != KS_WIRE_NVTX_TEXT_INLINE)
    return false;

  /* NAME or NAME@DOMAIN, as nsys' --nvtx-capture */
  want = ks_inject_config.capture_nvtx;
  at = strchr (want, '@');
  len = at ? (size_t) (at - want) : strlen (want);
  if (r->text_len != len || memcmp (r->text, want, len) != 0)
    return false;
  want_domain = atomic_load (&trigger_domain);
  if (at != NULL)
    return want_domain != 0 && r->domain_id == want_domain;
  return true;
}

static void
maybe_open_capture (OpenRange *r)
{
  if (!ks_inject_capturing () && is_trigger (r))
    {
      r->is_trigger = 1;
      ks_inject_set_capturing (true, r->start);
    }
}

static void
maybe_close_capture (const OpenRange *r,
                     uint64_t         end)
{
  if (r->is_trigger)
    ks_inject_set_capturing (false, end);
}

/* The slot the next push of this thread fills in place (a range is
 * 560 bytes, not worth a copy per push), or NULL when there is no stack
 * or it is too deep (counted as a drop; push_refused() gives the level). */
static OpenRange *
push_slot (RangeStack **stack,
           uint32_t     domain_id)
{
  RangeStack *s = get_stack ();

  *stack = s;
  if (s == NULL)
    return NULL;
  if (s->depth >= MAX_DEPTH)
    {
      s->overflow++;
      ks_channel_count_drop ();
      return NULL;
    }
  init_range (&s->ranges[s->depth], domain_id);
  return &s->ranges[s->depth];
}

static int
push_done (RangeStack *s)
{
  maybe_open_capture (&s->ranges[s->depth]);
  return s->depth++;
}

static int
push_refused (RangeStack *s)
{
  return s == NULL ? -1 : s->depth + s->overflow - 1;
}

static int
pop_range (uint32_t domain_id)
{
  RangeStack *s = get_stack ();
  uint64_t end = ks_inject_now ();
  OpenRange *r;
  int i;

  if (s == NULL)
    return -1;
  if (s->overflow > 0)
    {
      s->overflow--;
      return s->depth + s->overflow;
    }

  /* The innermost open range of that domain. */
  for (i = s->depth - 1; i >= 0; i--)
    if (s->ranges[i].domain_id == domain_id)
      break;
  if (i < 0)
    return -1;

  r = &s->ranges[i];
  if (in_capture (r))
    emit_range (r, KS_NVTX_PUSH_POP, end, r->tid, 0, i);
  maybe_close_capture (r, end);

  if (i != s->depth - 1)
    memmove (&s->ranges[i], &s->ranges[i + 1], (size_t) (s->depth - 1 - i) * sizeof *r);
  s->depth--;
  return i;
}

static uint64_t
start_range (OpenRange *tmpl)
{
  uint64_t id = atomic_fetch_add (&next_range_id, 1);
  size_t slot;

  maybe_open_capture (tmpl);

  pthread_mutex_lock (&start_mutex);
  if (started == NULL)
    started = calloc (START_TABLE, sizeof *started);
  if (started == NULL)
    {
      pthread_mutex_unlock (&start_mutex);
      return id;
    }
  for (size_t probe = 0; probe < START_TABLE; probe++)
    {
      slot = (id + probe) & (START_TABLE - 1);
      if (started[slot].id == 0)
        {
          started[slot].id = id;
          started[slot].range = *tmpl;
          pthread_mutex_unlock (&start_mutex);
          return id;
        }
    }
  pthread_mutex_unlock (&start_mutex);
  ks_channel_count_drop ();
  return id;
}

static void
end_range (uint64_t id)
{
  uint64_t end = ks_inject_now ();
  OpenRange r;
  bool found = false;

  pthread_mutex_lock (&start_mutex);
  if (started != NULL)
    for (size_t probe = 0; probe < START_TABLE; probe++)
      {
        size_t slot = (id + probe) & (START_TABLE - 1);

        if (started[slot].id == id)
          {
            r = started[slot].range;
            started[slot].id = 0;
            found = true;
            break;
          }
      }
  pthread_mutex_unlock (&start_mutex);

  if (!found)
    return;
  if (in_capture (&r))
    emit_range (&r, KS_NVTX_START_END, end, ks_inject_gettid (), id, 0);
  maybe_close_capture (&r, end);
}

static void
mark (OpenRange *r)
{
  if (ks_inject_capturing ())
    emit_range (r, KS_NVTX_MARK, r->start, r->tid, 0, 0);
}

/* Start/end ranges still open at exit are written without an end. */
static void
nvtx_at_exit (void)
{
  if (started == NULL)
    return;
  pthread_mutex_lock (&start_mutex);
  for (size_t i = 0; i < START_TABLE; i++)
    if (started[i].id != 0)
      {
        if (in_capture (&started[i].range))
          emit_range (&started[i].range, KS_NVTX_START_END, 0, 0, started[i].id, 0);
        started[i].id = 0;
      }
  pthread_mutex_unlock (&start_mutex);
}

static inline uint32_t
domain_id_of (nvtxDomainHandle_t domain)
{
  return (uint32_t) (uintptr_t) domain;
}

/* Handlers */

static void
h_MarkEx (const nvtxEventAttributes_t *a)
{
  OpenRange r;

  init_range (&r, 0);
  fill_from_attributes (&r, a);
  mark (&r);
}

static void
h_MarkA (const char *message)
{
  OpenRange r;

  init_range (&r, 0);
  set_text_ascii (&r, message);
  mark (&r);
}

static void
h_MarkW (const wchar_t *message)
{
  OpenRange r;

  init_range (&r, 0);
  r.text_len = (uint16_t) utf8_from_wide (message, r.text, MAX_MESSAGE);
  r.text_kind = KS_WIRE_NVTX_TEXT_INLINE;
  mark (&r);
}

static nvtxRangeId_t
h_RangeStartEx (const nvtxEventAttributes_t *a)
{
  OpenRange r;

  init_range (&r, 0);
  fill_from_attributes (&r, a);
  return start_range (&r);
}

static nvtxRangeId_t
h_RangeStartA (const char *message)
{
  OpenRange r;

  init_range (&r, 0);
  set_text_ascii (&r, message);
  return start_range (&r);
}

static nvtxRangeId_t
h_RangeStartW (const wchar_t *message)
{
  OpenRange r;

  init_range (&r, 0);
  r.text_len = (uint16_t) utf8_from_wide (message, r.text, MAX_MESSAGE);
  r.text_kind = KS_WIRE_NVTX_TEXT_INLINE;
  return start_range (&r);
}

static void
h_RangeEnd (nvtxRangeId_t id)
{
  end_range (id);
}

static int
h_RangePushEx (const nvtxEventAttributes_t *a)
{
  RangeStack *s;
  OpenRange *r = push_slot (&s, 0);

  if (r == NULL)
    return push_refused (s);
  fill_from_attributes (r, a);
  return push_done (s);
}

static int
h_RangePushA (const char *message)
{
  RangeStack *s;
  OpenRange *r = push_slot (&s, 0);

  if (r == NULL)
    return push_refused (s);
  set_text_ascii (r, message);
  return push_done (s);
}

static int
h_RangePushW (const wchar_t *message)
{
  RangeStack *s;
  OpenRange *r = push_slot (&s, 0);

  if (r == NULL)
    return push_refused (s);
  r->text_len = (uint16_t) utf8_from_wide (message, r->text, MAX_MESSAGE);
  r->text_kind = KS_WIRE_NVTX_TEXT_INLINE;
  return push_done (s);
}

static int
h_RangePop (void)
{
  return pop_range (0);
}

static void
name_category (uint32_t    domain_id,
               uint32_t    category,
               const char *name)
{
  OpenRange r;

  init_range (&r, domain_id);
  r.category = category;
  set_text_ascii (&r, name);
  emit_range (&r, 33, r.start, r.tid, 0, 0);
}

static void
h_NameCategoryA (uint32_t    category,
                 const char *name)
{
  name_category (0, category, name);
}

static void
h_NameCategoryW (uint32_t       category,
                 const wchar_t *name)
{
  char buf[MAX_MESSAGE];

  utf8_from_wide (name, buf, sizeof buf);
  name_category (0, category, buf);
}

static void
name_thread (uint32_t    tid,
             const char *name)
{
  KsWireThreadName msg;

  memset (&msg, 0, sizeof msg);
  msg.h.type = KS_WIRE_THREAD_NAME;
  msg.tid = tid;
  ks_channel_emit_text (&msg, sizeof msg, name, name ? strlen (name) : 0);
}

static void
h_NameOsThreadA (uint32_t    tid,
                 const char *name)
{
  name_thread (tid, name);
}

static void
h_NameOsThreadW (uint32_t       tid,
                 const wchar_t *name)
{
  char buf[MAX_MESSAGE];

  utf8_from_wide (name, buf, sizeof buf);
  name_thread (tid, buf);
}

static void
h_DomainMarkEx (nvtxDomainHandle_t           domain,
                const nvtxEventAttributes_t *a)
{
  OpenRange r;

  init_range (&r, domain_id_of (domain));
  fill_from_attributes (&r, a);
  mark (&r);
}

static nvtxRangeId_t
h_DomainRangeStartEx (nvtxDomainHandle_t           domain,
                      const nvtxEventAttributes_t *a)
{
  OpenRange r;

  init_range (&r, domain_id_of (domain));
  fill_from_attributes (&r, a);
  return start_range (&r);
}

static void
h_DomainRangeEnd (nvtxDomainHandle_t domain,
                  nvtxRangeId_t      id)
{
  end_range (id);
}

static int
h_DomainRangePushEx (nvtxDomainHandle_t           domain,
                     const nvtxEventAttributes_t *a)
{
  RangeStack *s;
  OpenRange *r = push_slot (&s, domain_id_of (domain));

  if (r == NULL)
    return push_refused (s);
  fill_from_attributes (r, a);
  return push_done (s);
}

static int
h_DomainRangePop (nvtxDomainHandle_t domain)
{
  return pop_range (domain_id_of (domain));
}

static void
h_DomainNameCategoryA (nvtxDomainHandle_t domain,
                       uint32_t           category,
                       const char        *name)
{
  name_category (domain_id_of (domain), category, name);
}

static void
h_DomainNameCategoryW (nvtxDomainHandle_t domain,
                       uint32_t           category,
                       const wchar_t     *name)
{
  char buf[MAX_MESSAGE];

  utf8_from_wide (name, buf, sizeof buf);
  name_category (domain_id_of (domain), category, buf);
}

static nvtxStringHandle_t
h_DomainRegisterStringA (nvtxDomainHandle_t domain,
                         const char        *string)
{
  return (nvtxStringHandle_t) (uintptr_t) ks_channel_intern (string);
}

static nvtxStringHandle_t
h_DomainRegisterStringW (nvtxDomainHandle_t domain,
                         const wchar_t     *string)
{
  char buf[MAX_MESSAGE];

  utf8_from_wide (string, buf, sizeof buf);
  return (nvtxStringHandle_t) (uintptr_t) ks_channel_intern (buf);
}

static nvtxDomainHandle_t
create_domain (const char *name)
{
  KsWireNvtxDomain msg;
  uint32_t id = 0;
  bool created = false;
  const char *at;

  if (name == NULL)
    name = "";

  pthread_mutex_lock (&domain_mutex);
  for (uint32_t i = 0; i < n_domains; i++)
    if (strcmp (domain_names[i], name) == 0)
      {
        id = i + 1;
        break;
      }
  if (id == 0 && n_domains < MAX_DOMAINS)
    {
      domain_names[n_domains] = strdup (name);
      if (domain_names[n_domains] != NULL)
        {
          id = ++n_domains;
          created = true;
        }
    }
  pthread_mutex_unlock (&domain_mutex);

  if (created)
    {
      memset (&msg, 0, sizeof msg);
      msg.h.type = KS_WIRE_NVTX_DOMAIN;
      msg.timestamp = ks_inject_now ();
      msg.domain_id = id;
      msg.tid = ks_inject_gettid ();
      ks_channel_emit_text (&msg, sizeof msg, name, strlen (name));

      at = strchr (ks_inject_config.capture_nvtx, '@');
      if (ks_inject_config.capture_mode == KS_CAPTURE_NVTX && at != NULL && strcmp (at + 1, name) == 0)
        atomic_store (&trigger_domain, id);
    }

  return (nvtxDomainHandle_t) (uintptr_t) id;
}

static nvtxDomainHandle_t
h_DomainCreateA (const char *name)
{
  return create_domain (name);
}

static nvtxDomainHandle_t
h_DomainCreateW (const wchar_t *name)
{
  char buf[MAX_MESSAGE];

  utf8_from_wide (name, buf, sizeof buf);
  return create_domain (buf);
}

static void
h_DomainDestroy (nvtxDomainHandle_t domain)
{
  /* Handles stay valid: records may still refer to them. */
}

static void
h_Initialize (const void *reserved)
{
}

static void
set_slot (NvtxFunctionTable   table,
          unsigned int        size,
          unsigned int        cbid,
          NvtxFunctionPointer fn)
{
  if (cbid < size && table[cbid] != NULL)
    *table[cbid] = fn;
}

#define SLOT(table, size, id, fn) set_slot (table, size, id, (NvtxFunctionPointer) (fn))

void
ks_nvtx_after_fork (void)
{
  pthread_mutex_init (&start_mutex, NULL);
  pthread_mutex_init (&domain_mutex, NULL);
  if (started != NULL)
    memset (started, 0, START_TABLE * sizeof *started);
}

KS_EXPORT int InitializeInjectionNvtx2 (NvtxGetExportTableFunc_t get_export_table);

KS_EXPORT int
InitializeInjectionNvtx2 (NvtxGetExportTableFunc_t get_export_table)
{
  const NvtxExportTableCallbacks *callbacks;
  const NvtxExportTableVersionInfo *version;
  NvtxFunctionTable table = NULL;
  unsigned int size = 0;

  ks_inject_config_load ();
  if (!ks_inject_config.active || !ks_inject_config.trace_nvtx)
    return 0;

  callbacks = (const NvtxExportTableCallbacks *) get_export_table (NVTX_ETID_CALLBACKS);
  if (callbacks == NULL || callbacks->GetModuleFunctionTable == NULL)
    return 0;

  if (callbacks->GetModuleFunctionTable (NVTX_CB_MODULE_CORE, &table, &size) && table != NULL)
    {
      SLOT (table, size, NVTX_CBID_CORE_MarkEx, h_MarkEx);
      SLOT (table, size, NVTX_CBID_CORE_MarkA, h_MarkA);
      SLOT (table, size, NVTX_CBID_CORE_MarkW, h_MarkW);
      SLOT (table, size, NVTX_CBID_CORE_RangeStartEx, h_RangeStartEx);
      SLOT (table, size, NVTX_CBID_CORE_RangeStartA, h_RangeStartA);
      SLOT (table, size, NVTX_CBID_CORE_RangeStartW, h_RangeStartW);
      SLOT (table, size, NVTX_CBID_CORE_RangeEnd, h_RangeEnd);
      SLOT (table, size, NVTX_CBID_CORE_RangePushEx, h_RangePushEx);
      SLOT (table, size, NVTX_CBID_CORE_RangePushA, h_RangePushA);
      SLOT (table, size, NVTX_CBID_CORE_RangePushW, h_RangePushW);
      SLOT (table, size, NVTX_CBID_CORE_RangePop, h_RangePop);
      SLOT (table, size, NVTX_CBID_CORE_NameCategoryA, h_NameCategoryA);
      SLOT (table, size, NVTX_CBID_CORE_NameCategoryW, h_NameCategoryW);
      SLOT (table, size, NVTX_CBID_CORE_NameOsThreadA, h_NameOsThreadA);
      SLOT (table, size, NVTX_CBID_CORE_NameOsThreadW, h_NameOsThreadW);
    }

  table = NULL;
  size = 0;
  if (callbacks->GetModuleFunctionTable (NVTX_CB_MODULE_CORE2, &table, &size) && table != NULL)
    {
      SLOT (table, size, NVTX_CBID_CORE2_DomainMarkEx, h_DomainMarkEx);
      SLOT (table, size, NVTX_CBID_CORE2_DomainRangeStartEx, h_DomainRangeStartEx);
      SLOT (table, size, NVTX_CBID_CORE2_DomainRangeEnd, h_DomainRangeEnd);
      SLOT (table, size, NVTX_CBID_CORE2_DomainRangePushEx, h_DomainRangePushEx);
      SLOT (table, size, NVTX_CBID_CORE2_DomainRangePop, h_DomainRangePop);
      SLOT (table, size, NVTX_CBID_CORE2_DomainNameCategoryA, h_DomainNameCategoryA);
      SLOT (table, size, NVTX_CBID_CORE2_DomainNameCategoryW, h_DomainNameCategoryW);
      SLOT (table, size, NVTX_CBID_CORE2_DomainRegisterStringA, h_DomainRegisterStringA);
      SLOT (table, size, NVTX_CBID_CORE2_DomainRegisterStringW, h_DomainRegisterStringW);
      SLOT (table, size, NVTX_CBID_CORE2_DomainCreateA, h_DomainCreateA);
      SLOT (table, size, NVTX_CBID_CORE2_DomainCreateW, h_DomainCreateW);
      SLOT (table, size, NVTX_CBID_CORE2_DomainDestroy, h_DomainDestroy);
      SLOT (table, size, NVTX_CBID_CORE2_Initialize, h_Initialize);
    }

  version = (const NvtxExportTableVersionInfo *) get_export_table (NVTX_ETID_VERSIONINFO);
  if (version != NULL && version->SetInjectionNvtxVersion != NULL)
    version->SetInjectionNvtxVersion (NVTX_VERSION);

  /* Connect now, so that a process using only NVTX shows up even before
   * its first range ends; the channel's exit hook is registered first and
   * so runs after ours. */
  ks_channel_start ();
  if (!atomic_exchange (&nvtx_exit_hooked, true))
    atexit (nvtx_at_exit);
  return 1;
}
