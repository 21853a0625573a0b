/* ks-osrt.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* libkinescope-osrt.so: OS runtime tracing by LD_PRELOAD (`-t osrt`).
 *
 * Wraps the libc calls a CPU thread blocks in: lock and condition waits,
 * sleeps, reads, polls, accept/connect, waitpid. Each wrapper times the
 * real call with CLOCK_MONOTONIC and reports it through
 * libkinescope-inject.so's channel when it lasted at least the threshold
 * (KINESCOPE_OSRT_THRESHOLD_NS, 10 µs by default, like the usual
 * `nsys --osrt-threshold=10000`). pthread_mutex_lock is timed only when a
 * trylock fails, as Nsight Systems does, so uncontended locks cost one
 * trylock. Nothing runs at load time. */



#include "ks-wire.h"

#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KS_EXPORT __attribute__((visibility ("default")))

extern uint64_t ks_inject_osrt_threshold_ns (void);
extern void     ks_inject_osrt_record       (uint32_t function,
                                             uint64_t start,
                                             uint64_t end,
                                             int64_t  return_value);

static __thread int in_wrapper;
static uint64_t     threshold = 0;   /* 0: not read yet */

static inline uint64_t
now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;
}

static inline int
tracing (void)
{
  if (in_wrapper)
    return 0;
  if (__builtin_expect (threshold == 0, 0))
    {
      uint64_t t;

      in_wrapper = 1;
      t = ks_inject_osrt_threshold_ns ();
      in_wrapper = 0;
      threshold = t ? t : 1;
    }
  return threshold != UINT64_MAX;
}

static inline void
report (uint32_t function,
        uint64_t start,
        int64_t  ret)
{
  uint64_t end = now_ns ();
  int saved_errno;

  if (end - start < threshold)
    return;
  saved_errno = errno;
  in_wrapper = 1;
  ks_inject_osrt_record (function, start, end, ret);
  in_wrapper = 0;
  errno = saved_errno;
}

static void *
next_symbol (const char *name,
             const char *version)
{
  void *sym = NULL;

  if (version != NULL)
    sym = dlvsym (RTLD_NEXT, name, version);
  if (sym == NULL)
    sym = dlsym (RTLD_NEXT, name);
  return sym;
}

/* The real function, looked up once; a statement, so it must come after
 * the wrapper's declarations (there are none). */
#define REAL(name, version) \
  static __typeof__ (&name) real_##name; \
  if (__builtin_expect (real_##name == NULL, 0)) \
    real_##name = (__typeof__ (&name)) next_symbol (#name, version)

#define REAL2(name, version) \
  if (__builtin_expect (real_##name == NULL, 0)) \
    real_##name = (__typeof__ (&name)) next_symbol (#name, version)

/* Wraps a call whose result is an int or ssize_t. */
#define TIMED(function, call) \
  do { \
    uint64_t start_; \
    __typeof__ (call) ret_; \
    if (!tracing ()) \
      return call; \
    in_wrapper = 1; \
    start_ = now_ns (); \
    ret_ = call; \
    in_wrapper = 0; \
    report (function, start_, (int64_t) ret_); \
    return ret_; \
  } while (0)

KS_EXPORT int
pthread_mutex_lock (pthread_mutex_t *mutex)
{
  static __typeof__ (&pthread_mutex_lock) real_pthread_mutex_lock;
  static __typeof__ (&pthread_mutex_trylock) real_pthread_mutex_trylock;

  REAL2 (pthread_mutex_lock, NULL);
  REAL2 (pthread_mutex_trylock, NULL);

  if (!tracing ())
    return real_pthread_mutex_lock (mutex);
  if (real_pthread_mutex_trylock (mutex) == 0)
    return 0;
  TIMED (KS_OSRT_PTHREAD_MUTEX_LOCK, real_pthread_mutex_lock (mutex));
}

KS_EXPORT int
pthread_cond_wait (pthread_cond_t  *cond,
                   pthread_mutex_t *mutex)
{
  REAL (pthread_cond_wait, "GLIBC_2.3.2");
  TIMED (KS_OSRT_PTHREAD_COND_WAIT, real_pthread_cond_wait (cond, mutex));
}

KS_EXPORT int
pthread_cond_timedwait (pthread_cond_t        *cond,
                        pthread_mutex_t       *mutex,
                        const struct timespec *abstime)
{
  REAL (pthread_cond_timedwait, "GLIBC_2.3.2");
  TIMED (KS_OSRT_PTHREAD_COND_TIMEDWAIT, real_pthread_cond_timedwait (cond, mutex, abstime));
}

KS_EXPORT int
pthread_join (pthread_t   thread,
              void      **retval)
{
  REAL (pthread_join, NULL);
  TIMED (KS_OSRT_PTHREAD_JOIN, real_pthread_join (thread, retval));
}

KS_EXPORT int
sem_wait (sem_t *sem)
{
  REAL (sem_wait, NULL);
  TIMED (KS_OSRT_SEM_WAIT, real_sem_wait (sem));
}

KS_EXPORT int
sem_timedwait (sem_t                 *sem,
               const struct timespec *abstime)
{
  REAL (sem_timedwait, NULL);
  TIMED (KS_OSRT_SEM_TIMEDWAIT, real_sem_timedwait (sem, abstime));
}

KS_EXPORT int
nanosleep (const struct timespec *req,
           struct timespec       *rem)
{
  REAL (nanosleep, NULL);
  TIMED (KS_OSRT_NANOSLEEP, real_nanosleep (req, rem));
}

KS_EXPORT int
clock_nanosleep (clockid_t              clock_id,
                 int                    flags,
                 const struct timespec *req,
                 struct timespec       *rem)
{
  REAL (clock_nanosleep, NULL);
  TIMED (KS_OSRT_CLOCK_NANOSLEEP, real_clock_nanosleep (clock_id, flags, req, rem));
}

KS_EXPORT int
usleep (useconds_t usec)
{
  REAL (usleep, NULL);
  TIMED (KS_OSRT_USLEEP, real_usleep (usec));
}

KS_EXPORT unsigned int
sleep (unsigned int seconds)
{
  REAL (sleep, NULL);
  TIMED (KS_OSRT_SLEEP, real_sleep (seconds));
}

KS_EXPORT ssize_t
read (int     fd,
      void   *buf,
      size_t  count)
{
  REAL (read, NULL);
  TIMED (KS_OSRT_READ, real_read (fd, buf, count));
}

KS_EXPORT ssize_t
readv (int                 fd,
       const struct iovec *iov,
       int                 iovcnt)
{
  REAL (readv, NULL);
  TIMED (KS_OSRT_READV, real_readv (fd, iov, iovcnt));
}

KS_EXPORT ssize_t
pread (int     fd,
       void   *buf,
       size_t  count,
       off_t   offset)
{
  REAL (pread, NULL);
  TIMED (KS_OSRT_PREAD, real_pread (fd, buf, count, offset));
}

KS_EXPORT ssize_t
write (int         fd,
       const void *buf,
       size_t      count)
{
  REAL (write, NULL);
  TIMED (KS_OSRT_WRITE, real_write (fd, buf, count));
}

KS_EXPORT ssize_t
recv (int     fd,
      void   *buf,
      size_t  len,
      int     flags)
{
  REAL (recv, NULL);
  TIMED (KS_OSRT_RECV, real_recv (fd, buf, len, flags));
}

KS_EXPORT ssize_t
recvfrom (int              fd,
          void            *buf,
          size_t           len,
          int              flags,
          struct sockaddr *addr,
          socklen_t       *addrlen)
{
  REAL (recvfrom, NULL);
  TIMED (KS_OSRT_RECVFROM, real_recvfrom (fd, buf, len, flags, addr, addrlen));
}

KS_EXPORT ssize_t
recvmsg (int            fd,
         struct msghdr *msg,
         int            flags)
{
  REAL (recvmsg, NULL);
  TIMED (KS_OSRT_RECVMSG, real_recvmsg (fd, msg, flags));
}

KS_EXPORT int
poll (struct pollfd *fds,
      nfds_t         nfds,
      int            timeout)
{
  REAL (poll, NULL);
  TIMED (KS_OSRT_POLL, real_poll (fds, nfds, timeout));
}

KS_EXPORT int
ppoll (struct pollfd         *fds,
       nfds_t                 nfds,
       const struct timespec *timeout,
       const sigset_t        *sigmask)
{
  REAL (ppoll, NULL);
  TIMED (KS_OSRT_PPOLL, real_ppoll (fds, nfds, timeout, sigmask));
}

KS_EXPORT int
select (int             nfds,
        fd_set         *readfds,
        fd_set         *writefds,
        fd_set         *exceptfds,
        struct timeval *timeout)
{
  REAL (select, NULL);
  TIMED (KS_OSRT_SELECT, real_select (nfds, readfds, writefds, exceptfds, timeout));
}

KS_EXPORT int
pselect (int                    nfds,
         fd_set                *readfds,
         fd_set                *writefds,
         fd_set                *exceptfds,
         const struct timespec *timeout,
         const sigset_t        *sigmask)
{
  REAL (pselect, NULL);
  TIMED (KS_OSRT_PSELECT, real_pselect (nfds, readfds, writefds, exceptfds, timeout, sigmask));
}

KS_EXPORT int
epoll_wait (int                 epfd,
            struct epoll_event *events,
            int                 maxevents,
            int                 timeout)
{
  REAL (epoll_wait, NULL);
  TIMED (KS_OSRT_EPOLL_WAIT, real_epoll_wait (epfd, events, maxevents, timeout));
}

KS_EXPORT int
epoll_pwait (int                 epfd,
             struct epoll_event *events,
             int                 maxevents,
             int                 timeout,
             const sigset_t     *sigmask)
{
  REAL (epoll_pwait, NULL);
  TIMED (KS_OSRT_EPOLL_PWAIT, real_epoll_pwait (epfd, events, maxevents, timeout, sigmask));
}

KS_EXPORT int
accept (int              fd,
        struct sockaddr *addr,
        socklen_t       *addrlen)
{
  REAL (accept, NULL);
  TIMED (KS_OSRT_ACCEPT, real_accept (fd, addr, addrlen));
}

KS_EXPORT int
accept4 (int              fd,
         struct sockaddr *addr,
         socklen_t       *addrlen,
         int              flags)
{
  REAL (accept4, NULL);
  TIMED (KS_OSRT_ACCEPT4, real_accept4 (fd, addr, addrlen, flags));
}

KS_EXPORT int
connect (int                    fd,
         const struct sockaddr *addr,
         socklen_t              addrlen)
{
  REAL (connect, NULL);
  TIMED (KS_OSRT_CONNECT, real_connect (fd, addr, addrlen));
}

KS_EXPORT pid_t
waitpid (pid_t  pid,
         int   *status,
         int    options)
{
  REAL (waitpid, NULL);
  TIMED (KS_OSRT_WAITPID, real_waitpid (pid, status, options));
}
