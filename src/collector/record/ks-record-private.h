/* ks-record-private.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

/* What the files of a recording share: the session (ks-record-session.c)
 * owns the output and the threads; the server (ks-record-server.c) accepts
 * and reads connections, each decoded by ks-record-connection.c; the
 * /proc scan (ks-record-proc.c) and the NVML sampler (ks-record-sampler.c)
 * add processes and GPU counters. */

#include <glib.h>

#include "ks-nvml.h"
#include "ks-record-session.h"

G_BEGIN_DECLS

#define MAX_CONNECTIONS 1024

typedef struct _KsRecordPySampler KsRecordPySampler;

typedef struct
{
  guint64      timestamp;
  guint        gpu;
  KsNvmlSample sample;
} NvmlSampleItem;

typedef struct
{
  gint64  pid;
  char   *name;
} SeenProcess;

typedef struct
{
  guint32 demangled;
  guint32 shortname;
  guint32 mangled;
} KernelNames;

enum
{
  CLOSING_NOT,
  CLOSING_ENDED,       /* the process closed it */
  CLOSING_MALFORMED,   /* we close it: it sent what cannot be parsed */
};

struct _KsRecordConnection
{
  KsRecordSession *session;
  int              fd;
  GByteArray      *buffer;
  gint64           pid;
  char            *name;
  guint64          hello_mono;   /* a resumed connection's HELLO has the same */
  gboolean         hello;
  gboolean         bye;
  gboolean         superseded;   /* its process went on on a new connection */
  int              closing;      /* CLOSING_*, set while reading */
  gint64           detached_at;  /* closed without a goodbye, kept to be resumed */
  gboolean         has_cuda;
  GHashTable      *strings;      /* local id → global id */
  GHashTable      *texts;        /* local id → text (owned), for kernel names */
  GHashTable      *kernels;      /* local name id → KernelNames */
  GHashTable      *domains;      /* local domain → global domain */
  GHashTable      *contexts;     /* context → device */
  GHashTable      *threads;      /* tid → name (owned, may be NULL) */
  GHashTable      *nvtx_names;   /* tid → name given through NVTX */
  GHashTable      *py_stacks;    /* tid → KsRecordStack of its last Python sample */
  gint64           allocated[64];
  guint64          channel_dropped;
  guint64          cupti_dropped;
  guint64          cupti_zero_time;
};

struct _KsRecordSession
{
  KsRecordOptions  options;
  char            *output_path;
  char            *socket_dir;
  char            *socket_path;
  char            *inject_dir;
  char            *python_dir;      /* our sitecustomize, or NULL */
  int              listen_fd;
  int              claim_fd;      /* holds the output's lock: claim_output() */
  int              wake_pipe[2];
  KsRecordWriter  *writer;
  guint64          start_mono;
  guint64          filter_from;   /* events starting before are dropped (--delay) */

  GThread         *io_thread;
  GThread         *nvml_thread;
  GMutex           mutex;         /* protects the fields below */
  GCond            cond;
  gboolean         stop_nvml;
  gboolean         stopping;
  char            *write_error;   /* once writing stopped */
  gint64           stop_deadline_us;
  guint            open_connections;
  KsRecordStats    stats;
  char            *cupti_conflict;
  GAsyncQueue     *samples;
  GAsyncQueue     *seen_processes;   /* SeenProcess from the /proc scan */
  GHashTable      *scanned;          /* pid → TRUE, main thread only */

  GPtrArray       *connections;   /* owned by the IO thread until it exits */
  GPtrArray       *detached;      /* closed without BYE: may be resumed */
  GHashTable      *processes;     /* pid → TRUE, rows written */
  guint            n_cuda_processes;
  guint32          next_domain;
  GPid             command_pid;
  char            *command_name;

  KsNvml          *nvml;
  KsRecordPySampler *py_sampler;  /* Python stacks read from outside */
  GArray          *gpu_counters;  /* per NVML device: its counter ids (ks-record-sampler.c) */
  GPtrArray       *cupti_gpus;    /* KsRecordGpu* from CUPTI device records */
  GHashTable      *gpu_uuids;     /* uuid → TRUE */
  guint64          dropped_total;
};

/* ks-record-session.c */
guint64  ks_record_now_mono                    (void);
void     ks_record_session_write_process       (KsRecordSession    *self,
                                                gint64              pid,
                                                const char         *name);
/* Called with the mutex held, by the thread that writes. */
void     ks_record_session_note_write_failure  (KsRecordSession    *self);

/* ks-record-server.c */
gboolean ks_record_server_listen               (KsRecordSession    *self,
                                                GError            **error);
gpointer ks_record_server_thread               (gpointer            data);

/* ks-record-proc.c */
void     ks_record_seen_process_free           (gpointer            data);
char    *ks_record_proc_thread_name            (gint64              pid,
                                                guint32             tid);
void     ks_record_proc_write_seen             (KsRecordSession    *self);

/* ks-record-connection.c */
void     ks_record_connection_see_thread       (KsRecordConnection *c,
                                                guint32             tid);

/* ks-record-py-sampler.c: the writing thread calls all but new, stop
 * and free. */
KsRecordPySampler *ks_record_py_sampler_new    (KsRecordSession    *session);
void     ks_record_py_sampler_free             (KsRecordPySampler  *self);
/* Ends the sampling thread; what it sampled stays to be written. */
void     ks_record_py_sampler_stop             (KsRecordPySampler  *self);
/* Starts reading @pid's stacks, or says in a diagnostic why it cannot
 * (the process then samples itself). */
void     ks_record_py_sampler_attach           (KsRecordPySampler  *self,
                                                gint64              pid,
                                                guint64             flag_address,
                                                guint32             skip_tid);
void     ks_record_py_sampler_capture          (KsRecordPySampler  *self,
                                                gint64              pid,
                                                guint64             timestamp,
                                                gboolean            on);
void     ks_record_py_sampler_write            (KsRecordPySampler  *self);
/* @c ends: its process's samples are written now, no more taken. */
void     ks_record_py_sampler_forget           (KsRecordPySampler  *self,
                                                KsRecordConnection *c);
/* Stops sampling and writes every sample left. */
void     ks_record_py_sampler_finish           (KsRecordPySampler  *self);

/* ks-record-sampler.c */
void     ks_record_sampler_start               (KsRecordSession    *self);
void     ks_record_sampler_write               (KsRecordSession    *self);
void     ks_record_sampler_write_gpus          (KsRecordSession    *self);

G_END_DECLS
