/* ks-inject-channel.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The way out of the traced process. One file because the buffer, the
 * sender thread and the reconnection share state that no other part of
 * the library may see or lock.
 *
 * Application threads append finished messages to an in-memory buffer
 * under a spin lock (a memcpy, no system call). One thread of the
 * library swaps the buffer every tick (50 ms, or sooner when it fills
 * past half) and writes it to the recorder's Unix socket. When the buffer
 * is full the event is dropped and counted, so a slow recorder costs
 * events, never the application's time.
 *
 * The program may close the socket under us: daemons and Python's
 * os.closerange() close every descriptor they did not open, and what they
 * open next takes the lowest free numbers, ours among them. So the socket
 * is moved near the top of the first 1024 descriptors, away from those
 * numbers, and before each write the sender checks with fstat() that the
 * descriptor still is our socket (same device and inode). When it is not,
 * the number is the program's now and is left alone: the sender connects
 * again with a HELLO marked KS_WIRE_HELLO_RESUMED, so that the recorder
 * carries the process's string ids, domains and counters on, and sends
 * again from the first message the recorder did not get whole. What was
 * sent before the close waits in the recorder's socket buffer, so nothing
 * is lost; what cannot be delivered is counted as dropped. That costs one
 * fstat() per write. Wrapping close(), close_range() and closefrom()
 * instead would work only when preloaded, would cost every close of the
 * program and would still miss the raw system calls. What is left is a
 * program that puts a socket of its own on that very number between the
 * check and the write, which needs it to fill a thousand descriptors or
 * dup2() onto ours; send() refuses anything that is not a socket. */

#include "ks-inject-private.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define BUFFER_SIZE   (8u * 1024u * 1024u)
#define TICK_NS       (50u * 1000u * 1000u)

enum { STATE_IDLE = 0, STATE_STARTING, STATE_RUNNING, STATE_DEAD };

__thread int ks_inject_internal_thread;

static atomic_flag       buf_lock = ATOMIC_FLAG_INIT;
static uint8_t          *front;
static uint8_t          *back;
static size_t            front_len;
static atomic_int        state;
static int               sock_fd = -1;
static dev_t             sock_dev;
static ino_t             sock_ino;
static uint64_t          hello_mono;     /* mono_ns of the first HELLO, to resume with */
static bool              recorder_gone;  /* it closed our connection: stop */
static pid_t             owner_pid;
static pthread_t         sender;
static pthread_mutex_t   wake_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t    wake_cond = PTHREAD_COND_INITIALIZER;
static pthread_cond_t    done_cond = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t   start_mutex = PTHREAD_MUTEX_INITIALIZER;
static bool              wake_pending;
static bool              stop_requested;
static uint64_t          flush_requested;
static uint64_t          flush_done;
static bool              sender_exited;
static atomic_uint_fast64_t dropped;
static atomic_uint_fast64_t cupti_dropped;
static atomic_uint_fast64_t cupti_zero_time;
static atomic_uint       next_string_id = 1;
static KsChannelPollFunc poll_func;
static KsOutBuf          decode_out;

/* Registered NVTX strings and CUPTI names share one id space; the table
 * below serves ks_channel_intern(), under a mutex. It is hashed (open
 * addressing into intern_slots, index + 1, 0 empty): the Python side
 * interns every file and function name it samples, tens of thousands in a
 * program that imports torch. */
typedef struct
{
  char     *text;
  uint32_t  id;
  uint32_t  hash;
} InternEntry;

static pthread_mutex_t intern_mutex = PTHREAD_MUTEX_INITIALIZER;
static InternEntry    *intern_table;
static size_t          intern_len;
static size_t          intern_cap;
static uint32_t       *intern_slots;
static size_t          intern_n_slots;   /* a power of two, or 0 */

static uint32_t
intern_hash (const char *text)
{
  uint32_t h = 2166136261u;     /* FNV-1a */

  for (const unsigned char *p = (const unsigned char *) text; *p; p++)
    h = (h ^ *p) * 16777619u;
  return h;
}

/* The slot holding @text, or the empty slot where it would go. */
static size_t
intern_find_slot (const char *text,
                  uint32_t    hash)
{
  size_t mask = intern_n_slots - 1;

  for (size_t i = hash & mask;; i = (i + 1) & mask)
    {
      uint32_t e = intern_slots[i];

      if (e == 0 || (intern_table[e - 1].hash == hash && strcmp (intern_table[e - 1].text, text) == 0))
        return i;
    }
}

/* Room for one more entry at under half load; false when out of memory. */
static bool
intern_reserve (void)
{
  if (intern_len == intern_cap)
    {
      size_t cap = intern_cap ? intern_cap * 2 : 64;
      InternEntry *table = realloc (intern_table, cap * sizeof *table);

      if (table == NULL)
        return false;
      intern_table = table;
      intern_cap = cap;
    }
  if ((intern_len + 1) * 2 > intern_n_slots)
    {
      size_t n = intern_n_slots ? intern_n_slots * 2 : 128;
      uint32_t *slots = calloc (n, sizeof *slots);

      if (slots == NULL)
        return false;
      free (intern_slots);
      intern_slots = slots;
      intern_n_slots = n;
      for (size_t i = 0; i < intern_len; i++)
        intern_slots[intern_find_slot (intern_table[i].text, intern_table[i].hash)] = (uint32_t) i + 1;
    }
  return true;
}

static inline void
lock_buffer (void)
{
  while (atomic_flag_test_and_set_explicit (&buf_lock, memory_order_acquire))
    sched_yield ();
}

static inline void
unlock_buffer (void)
{
  atomic_flag_clear_explicit (&buf_lock, memory_order_release);
}

void
ks_outbuf_append (KsOutBuf   *out,
                  const void *msg,
                  uint32_t    size)
{
  if (out->len + size > out->cap)
    {
      size_t cap = out->cap ? out->cap * 2 : 256 * 1024;
      uint8_t *data;

      while (cap < out->len + size)
        cap *= 2;
      data = realloc (out->data, cap);
      if (data == NULL)
        return;
      out->data = data;
      out->cap = cap;
    }
  memcpy (out->data + out->len, msg, size);
  out->len += size;
}

void
ks_outbuf_append_text (KsOutBuf   *out,
                       void       *msg,
                       uint32_t    fixed_size,
                       const char *text)
{
  size_t text_len = text ? strlen (text) : 0;
  uint32_t size;
  uint8_t zeros[8] = { 0 };

  if (text_len > KS_WIRE_MAX_TEXT)
    text_len = KS_WIRE_MAX_TEXT;
  size = ks_wire_align (fixed_size + (uint32_t) text_len + 1);
  ((KsWireHeader *) msg)->size = size;
  ks_outbuf_append (out, msg, fixed_size);
  if (text_len)
    ks_outbuf_append (out, text, (uint32_t) text_len);
  ks_outbuf_append (out, zeros, size - fixed_size - (uint32_t) text_len);
}

void
ks_outbuf_clear (KsOutBuf *out)
{
  out->len = 0;
}

static bool
socket_still_ours (void)
{
  struct stat st;

  return sock_fd >= 0 && fstat (sock_fd, &st) == 0 && S_ISSOCK (st.st_mode)
         && st.st_dev == sock_dev && st.st_ino == sock_ino;
}

/* Writes @len bytes; 0, or the errno that stopped it with *@sent bytes
 * out. */
static int
send_raw (const uint8_t *data,
          size_t         len,
          size_t        *sent)
{
  *sent = 0;
  while (*sent < len)
    {
      ssize_t n = send (sock_fd, data + *sent, len - *sent, MSG_NOSIGNAL);

      if (n < 0)
        {
          struct pollfd pfd = { sock_fd, POLLOUT, 0 };

          if (errno == EINTR)
            continue;
          /* The program made every descriptor non-blocking. */
          if (errno == EAGAIN)
            {
              poll (&pfd, 1, 100);
              continue;
            }
          return errno;
        }
      *sent += (size_t) n;
    }
  return 0;
}

/* The length of the whole messages @data starts with, at most @len;
 * *@n gets their number. */
static size_t
whole_messages (const uint8_t *data,
                size_t         len,
                uint64_t      *n)
{
  size_t offset = 0;
  KsWireHeader h;

  *n = 0;
  while (ks_wire_whole_message (data + offset, len - offset, &h))
    {
      offset += h.size;
      (*n)++;
    }
  return offset;
}

/* Moves @fd near the top of the first 1024 descriptors (or of a lower
 * limit), where nothing the program opens next will land. Not higher:
 * the kernel's table grows to the largest number in use. */
static int
move_out_of_the_way (int fd)
{
  struct rlimit rl;
  rlim_t top = 1024;
  int moved;

  if (getrlimit (RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < top)
    top = rl.rlim_cur;
  if (top < 64 || fd >= (int) top - 32)
    return fd;
  moved = fcntl (fd, F_DUPFD_CLOEXEC, (int) top - 32);
  if (moved < 0)
    return fd;
  close (fd);
  return moved;
}

static void
read_comm (char   *name,
           size_t  size)
{
  int fd = open ("/proc/self/comm", O_RDONLY | O_CLOEXEC);
  ssize_t n = -1;

  if (fd >= 0)
    {
      n = read (fd, name, size - 1);
      close (fd);
    }
  if (n <= 0)
    n = 0;
  name[n] = 0;
  if (n > 0 && name[n - 1] == '\n')
    name[n - 1] = 0;
}

/* The rank the environment gave the process, with the host's name: the
 * recorder keeps them with the process. */
static int
send_rank (void)
{
  KsWireRank m;
  char host[65];
  uint8_t msg[sizeof m + sizeof host + 8];
  uint32_t size;
  size_t sent;

  memset (&m, 0, sizeof m);
  memset (host, 0, sizeof host);
  if (gethostname (host, sizeof host - 1) != 0)
    host[0] = 0;
  m.h.type = KS_WIRE_RANK;
  m.rank = ks_inject_config.rank;
  m.local_rank = ks_inject_config.local_rank;
  m.world_size = ks_inject_config.world_size;
  m.local_world_size = ks_inject_config.local_world_size;
  size = ks_wire_align ((uint32_t) (sizeof m + strlen (host) + 1));
  m.h.size = size;
  memset (msg, 0, sizeof msg);
  memcpy (msg, &m, sizeof m);
  memcpy (msg + sizeof m, host, strlen (host));
  return send_raw (msg, size, &sent);
}

/* Connects and says HELLO (with @flags); 0 or an errno. */
static int
connect_and_hello (uint16_t flags)
{
  struct sockaddr_un addr;
  KsWireHello hello;
  struct timespec ts;
  struct stat st;
  char comm[64];
  uint8_t msg[sizeof hello + 72];
  uint32_t size;
  size_t sent;
  int fd;
  int err;

  sock_fd = -1;
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return errno;

  memset (&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  memcpy (addr.sun_path, ks_inject_config.socket_path, sizeof addr.sun_path - 1);
  if (connect (fd, (struct sockaddr *) &addr, sizeof addr) != 0 || fstat (fd, &st) != 0)
    {
      err = errno;
      close (fd);
      return err;
    }
  fd = move_out_of_the_way (fd);
  sock_fd = fd;
  sock_dev = st.st_dev;
  sock_ino = st.st_ino;

  if (!(flags & KS_WIRE_HELLO_RESUMED))
    hello_mono = ks_inject_now ();
  ks_wire_hello_init (&hello, getpid ());
  hello.h.reserved = flags;
  hello.ppid = getppid ();
  hello.mono_ns = hello_mono;
  clock_gettime (CLOCK_REALTIME, &ts);
  hello.realtime_ns = (uint64_t) ts.tv_sec * 1000000000ull + (uint64_t) ts.tv_nsec;

  read_comm (comm, sizeof comm);
  size = ks_wire_align ((uint32_t) (sizeof hello + strlen (comm) + 1));
  hello.h.size = size;
  memset (msg, 0, sizeof msg);
  memcpy (msg, &hello, sizeof hello);
  memcpy (msg + sizeof hello, comm, strlen (comm));

  err = send_raw (msg, size, &sent);
  if (err == 0 && ks_inject_config.rank >= 0)
    err = send_rank ();
  if (err != 0)
    {
      close (sock_fd);
      sock_fd = -1;
    }
  return err;
}

/* After a write failed with @err: true when a new connection took over. */
static bool
reconnect_after (int err)
{
  /* The recorder closed the connection: it is gone or refused us. */
  if (err == EPIPE || err == ECONNRESET || err == ENOTCONN)
    {
      recorder_gone = true;
      return false;
    }
  /* Not ours any more: the program closed it (EBADF), or the number holds
   * something of the program's. Never close it. */
  if (socket_still_ours ())
    return false;
  err = connect_and_hello (KS_WIRE_HELLO_RESUMED);
  if (err == ECONNREFUSED || err == ENOENT)
    recorder_gone = true;
  return err == 0;
}

/* Sends whole messages; false when some could not be delivered, which
 * are then counted as dropped when they are events (@events). */
static bool
deliver (const uint8_t *data,
         size_t         len,
         bool           events)
{
  size_t done = 0;
  bool resumed = false;

  while (done < len)
    {
      size_t sent = 0;
      uint64_t n;
      int err = socket_still_ours () ? send_raw (data + done, len - done, &sent) : EBADF;

      if (err == 0)
        return true;
      /* A message cut short is sent again whole: the recorder throws the
       * piece away with the connection it came on. */
      done += whole_messages (data + done, sent, &n);
      if (resumed || !reconnect_after (err))
        {
          whole_messages (data + done, len - done, &n);
          if (events)
            atomic_fetch_add (&dropped, n);
          return false;
        }
      resumed = true;
    }
  return true;
}

static uint64_t
total_drops (void)
{
  return atomic_load (&dropped) + atomic_load (&cupti_dropped) + atomic_load (&cupti_zero_time);
}

static bool
send_drops (void)
{
  KsWireDrops msg = { { sizeof msg, KS_WIRE_DROPS, 0 } };

  msg.channel_dropped = atomic_load (&dropped);
  msg.cupti_dropped = atomic_load (&cupti_dropped);
  msg.cupti_zero_time = atomic_load (&cupti_zero_time);
  return deliver ((const uint8_t *) &msg, sizeof msg, false);
}

static void
drain_once (void)
{
  uint8_t *data;
  size_t len;

  lock_buffer ();
  data = front;
  len = front_len;
  front = back;
  front_len = 0;
  back = data;
  unlock_buffer ();

  if (len > 0)
    deliver (data, len, true);

  if (poll_func != NULL)
    {
      ks_outbuf_clear (&decode_out);
      poll_func (&decode_out);
      if (decode_out.len > 0)
        deliver (decode_out.data, decode_out.len, true);
    }
}

static void *
sender_thread (void *data)
{
  uint64_t last_drops = 0;

  ks_inject_internal_thread = 1;

  for (;;)
    {
      struct timespec deadline;
      uint64_t serving;
      bool stopping;
      uint64_t now_drops;

      pthread_mutex_lock (&wake_mutex);
      if (!wake_pending && !stop_requested && flush_requested == flush_done)
        {
          clock_gettime (CLOCK_REALTIME, &deadline);
          deadline.tv_nsec += TICK_NS;
          if (deadline.tv_nsec >= 1000000000L)
            {
              deadline.tv_sec++;
              deadline.tv_nsec -= 1000000000L;
            }
          pthread_cond_timedwait (&wake_cond, &wake_mutex, &deadline);
        }
      wake_pending = false;
      serving = flush_requested;
      stopping = stop_requested;
      pthread_mutex_unlock (&wake_mutex);

      drain_once ();
      if (recorder_gone)
        break;

      now_drops = total_drops ();
      if ((now_drops != last_drops || stopping) && send_drops ())
        last_drops = now_drops;

      pthread_mutex_lock (&wake_mutex);
      flush_done = serving;
      pthread_cond_broadcast (&done_cond);
      pthread_mutex_unlock (&wake_mutex);

      if (stopping)
        {
          KsWireBye bye = { { sizeof bye, KS_WIRE_BYE, 0 }, ks_inject_now () };

          drain_once ();
          if (total_drops () != last_drops)
            send_drops ();
          deliver ((const uint8_t *) &bye, sizeof bye, false);
          break;
        }
    }

  /* Whatever happened, nobody waits for this thread any longer. */
  atomic_store (&state, STATE_DEAD);
  pthread_mutex_lock (&wake_mutex);
  sender_exited = true;
  flush_done = flush_requested;
  pthread_cond_broadcast (&done_cond);
  pthread_mutex_unlock (&wake_mutex);
  return NULL;
}

static void
after_fork_child (void)
{
  /* The parent's thread does not exist here and its socket belongs to the
   * parent's stream: start over lazily, as a new process. */
  if (socket_still_ours ())
    close (sock_fd);
  sock_fd = -1;
  recorder_gone = false;
  atomic_flag_clear (&buf_lock);
  front_len = 0;
  pthread_mutex_init (&wake_mutex, NULL);
  pthread_mutex_init (&start_mutex, NULL);
  pthread_mutex_init (&intern_mutex, NULL);
  pthread_cond_init (&wake_cond, NULL);
  pthread_cond_init (&done_cond, NULL);
  wake_pending = false;
  stop_requested = false;
  sender_exited = false;
  flush_requested = flush_done = 0;
  atomic_store (&dropped, 0);
  atomic_store (&cupti_dropped, 0);
  atomic_store (&cupti_zero_time, 0);
  poll_func = NULL;
  /* Interned strings were sent on the parent's connection. */
  for (size_t i = 0; i < intern_len; i++)
    free (intern_table[i].text);
  intern_len = 0;
  if (intern_slots != NULL)
    memset (intern_slots, 0, intern_n_slots * sizeof *intern_slots);
  atomic_store (&state, STATE_IDLE);
  ks_cupti_after_fork ();
  ks_nvtx_after_fork ();
  ks_torch_after_fork ();
}

void
ks_channel_after_fork (void)
{
  after_fork_child ();
}

bool
ks_channel_start (void)
{
  static bool atfork_done;
  int s = atomic_load_explicit (&state, memory_order_acquire);
  bool ok = false;

  if (s == STATE_RUNNING)
    return true;
  if (s == STATE_DEAD || !ks_inject_config.active)
    return false;

  ks_inject_internal_thread++;
  pthread_mutex_lock (&start_mutex);

  s = atomic_load (&state);
  if (s == STATE_RUNNING)
    {
      ok = true;
      goto out;
    }
  if (s == STATE_DEAD)
    goto out;

  if (!atfork_done)
    {
      pthread_atfork (NULL, NULL, after_fork_child);
      atfork_done = true;
    }

  if (front == NULL)
    {
      front = malloc (BUFFER_SIZE);
      back = malloc (BUFFER_SIZE);
    }
  if (front == NULL || back == NULL || connect_and_hello (0) != 0)
    {
      atomic_store (&state, STATE_DEAD);
      goto out;
    }

  owner_pid = getpid ();
  if (pthread_create (&sender, NULL, sender_thread, NULL) != 0)
    {
      atomic_store (&state, STATE_DEAD);
      goto out;
    }

  atomic_store_explicit (&state, STATE_RUNNING, memory_order_release);
  ks_inject_ensure_exit_hook ();
  ok = true;

out:
  pthread_mutex_unlock (&start_mutex);
  ks_inject_internal_thread--;
  return ok;
}

void
ks_channel_wake (void)
{
  pthread_mutex_lock (&wake_mutex);
  wake_pending = true;
  pthread_cond_signal (&wake_cond);
  pthread_mutex_unlock (&wake_mutex);
}

void
ks_channel_count_drop (void)
{
  atomic_fetch_add_explicit (&dropped, 1, memory_order_relaxed);
}

void
ks_channel_set_cupti_drops (uint64_t n_dropped,
                            uint64_t zero_time)
{
  atomic_store (&cupti_dropped, n_dropped);
  atomic_store (&cupti_zero_time, zero_time);
}

/* Room for @size bytes at the end of the front buffer, the buffer lock
 * held; NULL (lock released, drop counted) when it is full or the channel
 * cannot start. emit_commit() ends it. */
static uint8_t *
emit_reserve (uint32_t size)
{
  if (atomic_load_explicit (&state, memory_order_acquire) != STATE_RUNNING
      && !ks_channel_start ())
    return NULL;

  lock_buffer ();
  if (front_len + size > BUFFER_SIZE)
    {
      unlock_buffer ();
      ks_channel_count_drop ();
      return NULL;
    }
  return front + front_len;
}

static void
emit_commit (uint32_t size)
{
  bool need_wake = front_len < BUFFER_SIZE / 2 && front_len + size >= BUFFER_SIZE / 2;

  front_len += size;
  unlock_buffer ();
  if (need_wake)
    ks_channel_wake ();
}

bool
ks_channel_emit (const void *msg,
                 uint32_t    size)
{
  uint8_t *dst = emit_reserve (size);

  if (dst == NULL)
    return false;
  memcpy (dst, msg, size);
  emit_commit (size);
  return true;
}

bool
ks_channel_emit_text (void       *msg,
                      uint32_t    fixed_size,
                      const char *text,
                      size_t      text_len)
{
  uint32_t size;
  uint8_t *dst;

  if (fixed_size > sizeof (KsWireNvtx))
    return false;
  if (text_len > KS_WIRE_MAX_TEXT)
    text_len = KS_WIRE_MAX_TEXT;
  size = ks_wire_align (fixed_size + (uint32_t) text_len + 1);
  ((KsWireHeader *) msg)->size = size;

  /* Straight into the buffer: the text is copied once. */
  dst = emit_reserve (size);
  if (dst == NULL)
    return false;
  memcpy (dst, msg, fixed_size);
  if (text_len)
    memcpy (dst + fixed_size, text, text_len);
  memset (dst + fixed_size + text_len, 0, size - fixed_size - text_len);
  emit_commit (size);
  return true;
}

void
ks_channel_set_poll_func (KsChannelPollFunc func)
{
  poll_func = func;
}

static void
wait_for (uint64_t   ticket,
          unsigned   timeout_ms)
{
  struct timespec deadline;

  clock_gettime (CLOCK_REALTIME, &deadline);
  deadline.tv_sec += timeout_ms / 1000;
  deadline.tv_nsec += (long) (timeout_ms % 1000) * 1000000L;
  if (deadline.tv_nsec >= 1000000000L)
    {
      deadline.tv_sec++;
      deadline.tv_nsec -= 1000000000L;
    }

  while (flush_done < ticket && !sender_exited)
    if (pthread_cond_timedwait (&done_cond, &wake_mutex, &deadline) == ETIMEDOUT)
      break;
}

void
ks_channel_flush (unsigned timeout_ms)
{
  uint64_t ticket;

  if (atomic_load (&state) != STATE_RUNNING || owner_pid != getpid ())
    return;

  ks_inject_internal_thread++;
  pthread_mutex_lock (&wake_mutex);
  ticket = ++flush_requested;
  wake_pending = true;
  pthread_cond_signal (&wake_cond);
  wait_for (ticket, timeout_ms);
  pthread_mutex_unlock (&wake_mutex);
  ks_inject_internal_thread--;
}

void
ks_channel_close (unsigned timeout_ms)
{
  bool exited;

  if (atomic_load (&state) != STATE_RUNNING || owner_pid != getpid ())
    return;

  ks_inject_internal_thread++;
  pthread_mutex_lock (&wake_mutex);
  stop_requested = true;
  wake_pending = true;
  pthread_cond_signal (&wake_cond);
  wait_for (UINT64_MAX, timeout_ms);
  exited = sender_exited;
  pthread_mutex_unlock (&wake_mutex);

  if (exited)
    pthread_join (sender, NULL);
  ks_inject_internal_thread--;
}

uint32_t
ks_channel_new_string_id (void)
{
  return atomic_fetch_add (&next_string_id, 1);
}

uint32_t
ks_channel_intern (const char *text)
{
  KsWireString msg;
  uint32_t id = 0;
  uint32_t hash;
  size_t slot;
  size_t len;

  if (text == NULL)
    text = "";

  hash = intern_hash (text);
  ks_inject_internal_thread++;
  pthread_mutex_lock (&intern_mutex);
  if (!intern_reserve ())
    goto out;
  slot = intern_find_slot (text, hash);
  if (intern_slots[slot] != 0)
    {
      id = intern_table[intern_slots[slot] - 1].id;
      goto out;
    }

  id = ks_channel_new_string_id ();
  intern_table[intern_len].text = strdup (text);
  intern_table[intern_len].id = id;
  intern_table[intern_len].hash = hash;
  if (intern_table[intern_len].text == NULL)
    {
      id = 0;
      goto out;
    }
  intern_slots[slot] = (uint32_t) intern_len + 1;
  intern_len++;

  memset (&msg, 0, sizeof msg);
  msg.h.type = KS_WIRE_STRING;
  msg.id = id;
  len = strlen (text);
  if (!ks_channel_emit_text (&msg, sizeof msg, text, len))
    {
      /* Unsent: forget it so that a later call tries again. */
      free (intern_table[--intern_len].text);
      intern_slots[slot] = 0;
      id = 0;
    }

out:
  pthread_mutex_unlock (&intern_mutex);
  ks_inject_internal_thread--;
  return id;
}

void
ks_channel_diag (uint32_t    severity,
                 uint32_t    code,
                 const char *format,
                 ...)
{
  KsWireDiag msg;
  char text[1024];
  va_list args;

  va_start (args, format);
  vsnprintf (text, sizeof text, format, args);
  va_end (args);

  memset (&msg, 0, sizeof msg);
  msg.h.type = KS_WIRE_DIAG;
  msg.timestamp = ks_inject_now ();
  msg.severity = severity;
  msg.code = code;
  ks_channel_emit_text (&msg, sizeof msg, text, strlen (text));
}
