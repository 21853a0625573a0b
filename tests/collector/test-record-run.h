/* test-record-run.h: running a program to its end in the collector's tests
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <glib.h>

typedef struct
{
  int   status;   /* exit status */
  char *out;
  char *err;
} Result;

static inline void
result_clear (Result *r)
{
  g_free (r->out);
  g_free (r->err);
}

static inline void
limit_file_size (gpointer data)
{
  struct rlimit rl;

  rl.rlim_cur = rl.rlim_max = GPOINTER_TO_SIZE (data);
  setrlimit (RLIMIT_FSIZE, &rl);
}

/* Runs @argv in @dir with @env (NULL: ours) and, when @fsize_limit is not
 * 0, a file size limit of that many bytes; it must exit, not die of a
 * signal. @r gets its status and output. */
static inline void
run_in (Result      *r,
        const char  *dir,
        const char **argv,
        char       **env,
        gsize        fsize_limit)
{
  g_autoptr(GError) error = NULL;
  int wait_status = 0;

  memset (r, 0, sizeof *r);
  g_spawn_sync (dir, (char **) argv, env, 0,
                fsize_limit ? limit_file_size : NULL, GSIZE_TO_POINTER (fsize_limit),
                &r->out, &r->err, &wait_status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  r->status = WEXITSTATUS (wait_status);
}
