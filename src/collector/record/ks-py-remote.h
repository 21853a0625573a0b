/* ks-py-remote.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

/* The Python call stacks of another process, read from its memory with
 * process_vm_readv(), as py-spy and Austin read them: the recorder is the
 * target's parent (or an ancestor), which needs no ptrace permission
 * under Yama's ptrace_scope 0 and 1. The target never stops and never
 * gives up its GIL for it. */

#include <glib.h>
#include <sys/types.h>

G_BEGIN_DECLS

typedef struct _KsPyRemote KsPyRemote;

typedef struct
{
  const char *function;   /* owned by the KsPyRemote (its code cache) */
  const char *file;
  guint32     line;
} KsPyRemoteFrame;

#define KS_PY_REMOTE_MAX_FRAMES 256u

typedef struct
{
  guint32         tid;      /* the kernel's id (native_thread_id) */
  guint           n_frames;
  KsPyRemoteFrame frames[KS_PY_REMOTE_MAX_FRAMES];  /* innermost first */
} KsPyRemoteStack;

/* Called for each thread with a Python frame; @stack is valid during the
 * call only. */
typedef void (*KsPyRemoteFunc) (const KsPyRemoteStack *stack,
                                gpointer               user_data);

/* Finds _PyRuntime in the python executable or the libpython that @pid
 * has mapped, and the layout of its version (3.11, 3.12). Fails with a
 * GError that says why (not Python, another version, memory not
 * readable). */
KsPyRemote *ks_py_remote_open        (pid_t            pid,
                                      GError         **error);
void        ks_py_remote_free        (KsPyRemote      *self);
/* sys.hexversion of the target */
guint32     ks_py_remote_get_version (KsPyRemote      *self);
/* Each thread's stack, as it is now. FALSE (with @error) when the
 * process's memory can no longer be read: it exited. */
gboolean    ks_py_remote_sample      (KsPyRemote      *self,
                                      KsPyRemoteFunc   func,
                                      gpointer         user_data,
                                      GError         **error);
/* Writes @value at @address in process @pid: the Python side's flag that
 * says who samples its stacks. */
gboolean    ks_py_remote_write_u32   (pid_t            pid,
                                      guint64          address,
                                      guint32          value,
                                      GError         **error);
gboolean    ks_py_remote_read_u32    (pid_t            pid,
                                      guint64          address,
                                      guint32         *value,
                                      GError         **error);

/* The line of code unit @index in a CPython 3.11+ location table
 * (co_linetable), counting from @first_line; @first_line for a frame that
 * has not started (@index < 0). Exposed for the tests. */
guint32     ks_py_remote_line_for    (const guint8    *table,
                                      gsize            len,
                                      guint32          first_line,
                                      gint64           index);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsPyRemote, ks_py_remote_free)

G_END_DECLS
