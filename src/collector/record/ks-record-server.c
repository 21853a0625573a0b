/* ks-record-server.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The socket traced processes connect to, and the receiving thread:
 * it owns the connections and the writer while it runs. */

#define _GNU_SOURCE
#define G_LOG_DOMAIN "ks-record-session"

#include "config.h"

#include "ks-record-private.h"

#include <errno.h>
#include <fcntl.h>
#include <gio/gio.h>
#include <glib/gi18n.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* How long a connection that ended without a goodbye waits to be
 * resumed; the library connects again within a tick or two. */
#define DETACHED_KEEP_US (5 * G_USEC_PER_SEC)

/* Done with @c: its drops join the total. */
static void
retire_connection (KsRecordSession    *self,
                   KsRecordConnection *c)
{
  self->dropped_total += c->channel_dropped + c->cupti_dropped;
  ks_record_connection_free (c);
}

/* With @may_resume, a connection that ended without a goodbye is kept a
 * while: the program may have closed the socket under the library, which
 * then connects again and resumes it (connection_resume()). */
static void
close_connection (KsRecordSession *self,
                  guint            index,
                  gboolean         may_resume)
{
  KsRecordConnection *c = g_ptr_array_steal_index (self->connections, index);

  if (may_resume && c->hello && !c->bye && !c->superseded)
    {
      close (c->fd);
      c->fd = -1;
      c->detached_at = g_get_monotonic_time ();
      g_ptr_array_add (self->detached, c);
    }
  else
    retire_connection (self, c);
  g_mutex_lock (&self->mutex);
  self->open_connections = self->connections->len;
  g_mutex_unlock (&self->mutex);
}

static void
expire_detached (KsRecordSession *self,
                 gint64           detached_before)
{
  for (guint i = self->detached->len; i > 0; i--)
    {
      KsRecordConnection *c = g_ptr_array_index (self->detached, i - 1);

      if (c->detached_at < detached_before)
        retire_connection (self, g_ptr_array_steal_index_fast (self->detached, i - 1));
    }
}

static guint64
count_dropped (KsRecordSession *self)
{
  guint64 n = self->dropped_total + ks_record_counts_python_dropped (ks_record_writer_get_counts (self->writer));

  for (guint i = 0; i < self->connections->len; i++)
    {
      KsRecordConnection *c = g_ptr_array_index (self->connections, i);

      n += c->channel_dropped + c->cupti_dropped;
    }
  for (guint i = 0; i < self->detached->len; i++)
    {
      KsRecordConnection *c = g_ptr_array_index (self->detached, i);

      n += c->channel_dropped + c->cupti_dropped;
    }
  return n;
}

static void
accept_connections (KsRecordSession *self)
{
  for (;;)
    {
      int fd = accept4 (self->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
      KsRecordConnection *c;

      if (fd < 0)
        break;
      if (self->connections->len >= MAX_CONNECTIONS)
        {
          close (fd);
          continue;
        }
      c = ks_record_connection_new (self);
      c->fd = fd;
      g_ptr_array_add (self->connections, c);
    }
  g_mutex_lock (&self->mutex);
  self->open_connections = self->connections->len;
  g_mutex_unlock (&self->mutex);
}

gpointer
ks_record_server_thread (gpointer data)
{
  KsRecordSession *self = data;
  g_autofree guint8 *buf = g_malloc (256 * 1024);
  g_autofree struct pollfd *fds = g_new0 (struct pollfd, MAX_CONNECTIONS + 2);

  for (;;)
    {
      guint n = self->connections->len;
      gboolean stopping;
      gint64 deadline;

      fds[0].fd = self->listen_fd;
      fds[0].events = POLLIN;
      fds[1].fd = self->wake_pipe[0];
      fds[1].events = POLLIN;
      for (guint i = 0; i < n; i++)
        {
          KsRecordConnection *c = g_ptr_array_index (self->connections, i);

          fds[i + 2].fd = c->fd;
          fds[i + 2].events = POLLIN;
          fds[i + 2].revents = 0;
        }

      poll (fds, n + 2, 100);

      if (fds[1].revents & POLLIN)
        {
          char drain[64];

          while (read (self->wake_pipe[0], drain, sizeof drain) > 0)
            ;
        }

      /* Oldest first, so that a process that came back on a new
       * connection (connection_resume()) has its earlier one read first;
       * closing waits for the end of the walk. */
      for (guint i = 0; i < n; i++)
        {
          KsRecordConnection *c = g_ptr_array_index (self->connections, i);

          if (c->superseded || !(fds[i + 2].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
          for (;;)
            {
              ssize_t r = read (c->fd, buf, 256 * 1024);

              if (r > 0)
                {
                  if (!ks_record_connection_feed (c, buf, (gsize) r))
                    {
                      g_autofree char *text = g_strdup_printf ("malformed data from pid %" G_GINT64_FORMAT
                                                               "; its connection was closed", c->pid);

                      ks_record_writer_add_diagnostic (self->writer, ks_record_now_mono (), "error", "recorder", text);
                      c->closing = CLOSING_MALFORMED;
                      break;
                    }
                  continue;
                }
              if (r < 0 && (errno == EAGAIN || errno == EINTR))
                break;
              c->closing = CLOSING_ENDED;
              break;
            }
        }
      for (guint i = n; i > 0; i--)
        {
          KsRecordConnection *c = g_ptr_array_index (self->connections, i - 1);

          if (c->superseded || c->closing != CLOSING_NOT)
            close_connection (self, i - 1, c->closing == CLOSING_ENDED);
        }

      if (fds[0].revents & POLLIN)
        accept_connections (self);
      expire_detached (self, g_get_monotonic_time () - DETACHED_KEEP_US);

      ks_record_sampler_write (self);
      ks_record_py_sampler_write (self->py_sampler);
      ks_record_proc_write_seen (self);
      ks_record_writer_commit_if_due (self->writer);

      g_mutex_lock (&self->mutex);
      stopping = self->stopping;
      deadline = self->stop_deadline_us;
      self->stats.events = ks_record_writer_get_counts (self->writer)->rows;
      self->stats.api_calls = ks_record_writer_get_counts (self->writer)->api_calls;
      self->stats.samples = ks_record_writer_get_counts (self->writer)->counter_samples;
      self->stats.dropped = count_dropped (self);
      /* Writing stopped: keep reading, so that no process ever waits for
       * us, and count what is not written. */
      ks_record_session_note_write_failure (self);
      g_mutex_unlock (&self->mutex);

      /* A process that connected after the poll (a forked child that
       * sent its events and exited just before the end) waits in the
       * backlog: it is read before the session ends. */
      if (stopping && self->connections->len == 0)
        accept_connections (self);
      if (stopping && (self->connections->len == 0 || g_get_monotonic_time () >= deadline))
        break;
    }

  /* what was sampled from outside is written with its connection */
  ks_record_py_sampler_stop (self->py_sampler);
  /* Connections still open at the deadline: keep what they sent. */
  while (self->connections->len > 0)
    close_connection (self, self->connections->len - 1, FALSE);
  expire_detached (self, G_MAXINT64);
  ks_record_py_sampler_finish (self->py_sampler);
  ks_record_sampler_write (self);
  return NULL;
}


/* The socket in a private folder of its own, and the pipe that wakes the
 * receiving thread. */
gboolean
ks_record_server_listen (KsRecordSession  *self,
                         GError          **error)
{
  struct sockaddr_un addr;

  self->socket_dir = g_dir_make_tmp ("kinescope-XXXXXX", error);
  if (self->socket_dir == NULL)
    return FALSE;
  self->socket_path = g_build_filename (self->socket_dir, "socket", NULL);

  self->listen_fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  memset (&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  g_strlcpy (addr.sun_path, self->socket_path, sizeof addr.sun_path);
  if (self->listen_fd < 0
      || bind (self->listen_fd, (struct sockaddr *) &addr, sizeof addr) != 0
      || listen (self->listen_fd, 128) != 0
      || pipe2 (self->wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0)
    {
      int saved = errno;

      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _("Could not create the recording socket %s: %s"),
                   self->socket_path, g_strerror (saved));
      return FALSE;
    }
  return TRUE;
}
