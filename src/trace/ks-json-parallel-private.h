/* ks-json-parallel-private.h: the parallel JSON reader's chunks, pool
 * and state, shared by its main side (ks-json-parallel.c) and its
 * workers' side (ks-json-parallel-worker.c).
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-json-reader-private.h"
#include "ks-load-phases.h"

#define DEFAULT_CHUNK_BYTES (1024 * 1024)
#define MIN_CHUNK_BYTES     (128 * 1024)
#define IN_FLIGHT_SHARE     10    /* the chunks in flight: about this part of the text */
#define HELP_HEAD_ONLY_THREADS 8  /* see help_head_only() */
#define ARGS_THREAD_THREADS 4     /* see args_on_thread() */
#define THREAD_KEYS_THREADS 3     /* see ks_json_par_thread_keys() */
/* Open text that grows past this without a cut (one giant event, or
 * whatever follows the trace: gigabytes of NUL bytes) is parsed here:
 * memory stays bounded by the events, not by the file. */
#define MAX_OPEN_BYTES      (64 * 1024 * 1024)

enum
{
  MODE_HEAD,       /* before the event array: parsed here, watched for its start */
  MODE_EVENTS,     /* in it: cut into chunks */
  MODE_SERIAL,     /* after it, or not a case for chunks: parsed here */
};

/* The Event fields that point to a GString of the reader: a kept event
 * carries their text, and replaying it fills the reader's own. */
static const gsize event_strings[] = {
  G_STRUCT_OFFSET (Event, pid.str),
  G_STRUCT_OFFSET (Event, tid.str),
  G_STRUCT_OFFSET (Event, id),
  G_STRUCT_OFFSET (Event, bind_id),
  G_STRUCT_OFFSET (Event, arg_name),
  G_STRUCT_OFFSET (Event, labels),
  G_STRUCT_OFFSET (Event, counter_key[0]),
  G_STRUCT_OFFSET (Event, counter_key[1]),
  G_STRUCT_OFFSET (Event, counter_key[2]),
  G_STRUCT_OFFSET (Event, counter_key[3]),
  G_STRUCT_OFFSET (Event, counter_key[4]),
  G_STRUCT_OFFSET (Event, counter_key[5]),
  G_STRUCT_OFFSET (Event, counter_key[6]),
  G_STRUCT_OFFSET (Event, counter_key[7]),
};
G_STATIC_ASSERT (MAX_COUNTER_ARGS == 8);
G_STATIC_ASSERT (G_N_ELEMENTS (event_strings) <= 16);   /* Kept.strings_set */

#define EVENT_STRING(ev, i) (*(GString **) ((char *) (ev) + event_strings[i]))
/* the one of them that ks_json_handle_event() writes (an event without
 * a tid takes its pid's text): the replay empties it after every event */
#define EVENT_STRING_TID 1

/* The problem counts that the callbacks and the tokenizer keep (those
 * that ks_json_handle_event() keeps, n_empty_pending among them, are
 * kept by the replay on this thread). */
#define FOR_EACH_COUNT(X) \
  X (n_items) X (n_not_object) X (n_cut_strings) X (n_invalid_utf8) \
  X (n_bad_ts) X (n_no_ph) X (n_unmatched_end) X (n_unclosed) X (n_unknown_ph) \
  X (n_dropped_flows) X (n_too_deep) X (n_big_args) \
  X (n_trailing_commas) X (n_control_chars)

typedef struct
{
  guint8      field;        /* index in event_strings */
  guint32     len;
  const char *text;
} KeptString;

/* A worker reads each event into the next place of its chunk (the
 * Event with the worker's strings, as reset), and this thread replays
 * it from there: an Event is not copied between the cores. */
#define EVENTS_PER_BLOCK 256

G_STATIC_ASSERT (MAX_ARGS_LEN <= G_MAXUINT32);

typedef struct
{
  const char *args;
  guint32     args_len;     /* at most MAX_ARGS_LEN */
  guint32     n_local;      /* strings of the chunk numbered by then */
  guint32     strings_end;  /* its KeptStrings end here */
  guint32     prepared_at;  /* the args as ks_args_prepare() made them, */
  guint32     prepared_len; /* in the chunk's prepared (0: none) */
  guint32     thread_key;   /* its (pid, tid) in the chunk's ThreadKeys (0: none) */
  guint32     group;        /* its slice's track in the chunk's ChunkTracks (0: none) */
  guint16     strings_set;  /* bit i: event_strings[i] is among its KeptStrings */
  guint8      args_overflow : 1;
  guint8      args_ascii : 1;
  guint8      kineto : 1;   /* the reader's flag when the event closed */
  guint8      slice_args : 1;  /* gathered: its args go to the store, */
  guint8      big_args : 1;    /* ... are too large for it, */
  guint8      negative_dur : 1; /* ... its duration is negative */
  guint8      launch_flow : 1;  /* a kernel launch's flow event: counted only */
} Kept;

/* a chunk in flight holds one a kept event */
G_STATIC_ASSERT (sizeof (Kept) <= 40);

typedef struct
{
  const char *text;
  gsize       len;
  guint32     hash;
} LocalString;

/* Where a block of the source ended in a text: the tokenizer is handed
 * the blocks as they were compacted, each with what the compaction saw
 * in it (which of its fast paths hold) and whether it ends inside a
 * string. */
typedef struct
{
  gsize    end;
  guint    seen;
  gboolean in_string;
} Mark;

typedef struct _ThreadKeys ThreadKeys;
typedef struct _ChunkTracks ChunkTracks;
typedef struct _Parallel Parallel;

typedef struct _Chunk
{
  struct _Parallel *owner;
  const char   *name;
  guint64       offset;       /* of data[0] in the compacted text */
  GByteArray   *data;
  GArray       *marks;        /* Mark, inside data */
  guint         seen;         /* all of it */
  int           events_depth; /* 1 for a top-level array, 2 in {"traceEvents": */
  gboolean      prepare_args; /* the parse prepares the args (on a worker) */
  gboolean      last;         /* runs to the end of the text ... */
  gboolean      in_string;    /* ... which ends inside a string */
  /* the rest of the text, in a compacted block that the parse appends
   * to data (see ks_json_feed_shared_block()), or NULL */
  GBytes       *shared;
  gsize         shared_from;
  gsize         shared_len;
  /* or the file's bytes [raw_from, raw_to) as they lie, which the parse
   * compacts after data from raw_state (see ks-json-parallel-raw.c);
   * raw_to 0: none */
  guint64       raw_from;
  guint64       raw_to;
  KsJsonCompactState raw_state;
  KsJsonCompactState end_state;  /* the compaction's after raw_to */
  KsJsonInflated *held;       /* a .json.gz's blocks that hold the range, or NULL */
  gboolean      offset_pending;  /* offset is known at replay: 0 until then */

  /* filled by the worker */
  gboolean      done;
  gboolean      verifying;
  gboolean      ends_clean;   /* the text ends between two events */
  gboolean      events_end;   /* the array closes in it ... */
  guint64       events_end_offset;  /* ... at this `]` */
  GArray       *kept;         /* Kept */
  GPtrArray    *events;       /* blocks of EVENTS_PER_BLOCK Events: the kept events */
  GArray       *strings;      /* KeptString */
  GStringChunk *text;
  GByteArray   *prepared;     /* the kept events' args, prepared ... */
  KsArgsLocal  *args_local;   /* ... in the numbers of this dictionary */
  GArray       *local;        /* LocalString, numbered from 1 */
  ThreadKeys   *thread_keys;  /* the events' (pid, tid), or NULL */
  ChunkTracks  *tracks;       /* its complete events' slices by track, or NULL */
  guint32      *slots;        /* open addressing: local number, 0 empty */
  guint32       n_slots;
  GError       *error;
  gboolean      syntax_error;
  gboolean      nesting_error;
  gboolean      number_error;
  gboolean      lenient_fixable;  /* the error is one a lenient read repairs */
  guint64       syntax_offset;
  char         *syntax_text;
#define DECLARE_COUNT(n) guint64 n;
  FOR_EACH_COUNT (DECLARE_COUNT)
#undef DECLARE_COUNT

  /* filled while replaying */
  guint32      *map;          /* local number - 1 -> the builder's */
  guint32       n_mapped;
  guint32      *args_map;     /* args_local's numbers -> the store's */
  ThreadSlot   *thread_slots; /* thread_keys' numbers - 1 -> thread and track */
} Chunk;

/* The pool and its workers' readers, the main reader's for all its
 * files: a folder's files reuse the threads and the readers' caches. */
typedef struct _Workers
{
  GThreadPool  *pool;
  guint         n_threads;
  GMutex        lock;
  GCond         cond;         /* a chunk is done */
  GQueue        pending;      /* Chunk, dispatched and not started, under lock */
  GPtrArray    *readers;      /* Reader, spare, under lock */
} Workers;

struct _Parallel
{
  char         *name;         /* the file's, for the workers' messages */
  guint         n_threads;
  gsize         chunk_bytes;
  guint         in_flight;    /* chunks queued at most, see chunks_in_flight() */
  gboolean      lenient;      /* the workers read as the reader does */
  gboolean      help_head_only; /* waiting, this thread parses only the chunk it waits for */
  gboolean      thread_keys;  /* workers number the chunks' (pid, tid) pairs */
  gboolean      share_blocks; /* chunks take their text from the blocks */
  gboolean      chunk_tracks; /* ... and gather their slices by track */
  /* the text cut as it lies in the file (ks-json-parallel-raw.c) */
  int           raw_fd;       /* -1 when not, */
  KsJsonInflated *inflated;   /* ... or a .json.gz's inflated text */
  guint64       raw_start;    /* the file's offset where the next chunk's raw text starts, */
  KsJsonCompactState raw_state; /* ... the compaction's state there */
  guint64       replay_offset; /* the compacted offset of the next chunk replayed */
  gboolean      raw_gave_up;  /* a chunk parsed again grew too long: cut the compacted text */
  guint8       *probe;        /* file bytes where a cut is looked for */
  KsArgsStage  *args_stage;   /* the replay's args stored on their own thread, or NULL */
  int           mode;
  Workers      *workers;
  GQueue        queue;        /* Chunk, dispatched, in file order */
  /* the reader's own strings (event_strings[]), which a kept event
   * points to: its replay fills them */
  GString      *own[G_N_ELEMENTS (event_strings)];

  /* the text since the last cut, which ends where a block did */
  GByteArray   *open;
  GArray       *open_marks;
  guint64       open_offset;
  guint         open_seen;
  gboolean      open_in_string;
  gsize         search_from;
  gboolean      checked_first;
  int           events_depth;
  guint         n_chunks;
  guint         n_merged;
  guint         n_shared;     /* chunks that took their text from a block */
  guint         n_keyed;      /* chunks replayed with their pairs numbered, */
  guint64       n_pairs;      /* the pairs of those, */
  guint64       n_resolved;   /* and those that an event looked up */
  guint64       n_gathered;   /* slices gathered by track in replayed chunks, */
  guint64       n_taken;      /* of them added in bulk */

  /* this thread's time by phase (KINESCOPE_LOAD_PHASES) */
  KsPhaseClock  t_start;
  KsPhaseClock  t_replay;
  KsPhaseClock  t_here;       /* parsing chunks no worker took yet */
  KsPhaseClock  t_wait;
  KsPhaseClock  t_input;      /* for the next block of text */
  KsPhaseClock  t_cut;        /* taking a block in and cutting chunks off */

  /* buffers of replayed chunks, for the next ones: fresh memory is
   * paged in at a cost comparable to its parse */
  GPtrArray    *spare_data;
  GPtrArray    *spare_kept;
  GPtrArray    *spare_events;
  GPtrArray    *spare_strings;
  GPtrArray    *spare_prepared;
  GPtrArray    *spare_locals;
  GPtrArray    *spare_tracks;

  /* MODE_HEAD: a scan for the array's `[` */
  int           depth;
  int           top;
  gboolean      in_string;
  gboolean      escaped;
  guint8        history[16];  /* the last bytes of the blocks before */
  gsize         history_len;
};

/* ks-json-parallel-worker.c: a chunk parsed on a worker */
void     ks_json_par_run_chunk    (Chunk        *c);
void     ks_json_par_chunk_job    (gpointer      data,
                                   gpointer      user_data);
void     ks_json_par_mark_done    (Workers      *w,
                                   Chunk        *c);
gboolean ks_json_par_parse_pieces (Reader       *r,
                                   guint8       *data,
                                   gsize         len,
                                   const GArray *marks,
                                   guint         seen,
                                   gboolean      in_string,
                                   GError      **error);
void     ks_json_par_append_text  (GByteArray   *data,
                                   GArray       *marks,
                                   gboolean      comma,
                                   const guint8 *from,
                                   gsize         len,
                                   const GArray *from_marks,
                                   gsize         at);

/* ks-json-parallel.c */
gpointer ks_json_par_take_spare   (GPtrArray    *spares);
gboolean ks_json_par_replay       (Reader       *r,
                                   Parallel     *p,
                                   int           keep,
                                   GError      **error);
void     ks_json_par_wait_done    (Parallel     *p,
                                   Chunk        *c);
void     ks_json_par_chunk_free   (Chunk        *c);
/* A chunk that did not end between two events, @c, parsed again with
 * the next, @n: the chunk that takes their place (once @n is done),
 * which the caller fills; then parsed on this thread, @c and @n freed,
 * and put at the head of the queue. */
Chunk   *ks_json_par_merged_new   (Parallel     *p,
                                   Chunk        *c,
                                   Chunk        *n);
void     ks_json_par_merged_run   (Parallel     *p,
                                   Chunk        *m,
                                   Chunk        *c,
                                   Chunk        *n);

/* ks-json-parallel-raw.c: chunks cut from the file's text as it lies,
 * each compacted by the thread that parses it */
void     ks_json_par_raw_take_text (Chunk              *c);
void     ks_json_par_raw_resolve   (Parallel           *p,
                                    Chunk              *c);
void     ks_json_par_raw_merge     (Parallel           *p,
                                    Chunk              *c,
                                    Chunk              *n);
void     ks_json_par_raw_tail      (Reader             *r,
                                    Parallel           *p,
                                    Chunk              *c,
                                    GByteArray         *text,
                                    GArray             *marks,
                                    guint              *seen,
                                    gboolean           *in_string);

/* ks-json-parallel-shared.c: chunks that take their text from the
 * compacting thread's blocks */
gboolean ks_json_par_feed_shared  (Reader       *r,
                                   Parallel     *p,
                                   GBytes       *block,
                                   gsize         n,
                                   guint         seen,
                                   gboolean      in_string);
void     ks_json_par_take_text    (Chunk        *c);
Chunk   *ks_json_par_chunk_new    (Parallel     *p);
void     ks_json_par_dispatch     (Reader       *r,
                                   Parallel     *p,
                                   Chunk        *c);
const guint8 *ks_json_par_last_cut (const guint8 *data,
                                    gsize         n);

/* ks-json-threads-local.c: a chunk's (pid, tid) pairs numbered */
ThreadKeys *ks_json_thread_keys_new    (void);
void        ks_json_thread_keys_free   (ThreadKeys       *k);
guint32     ks_json_thread_keys_get_n  (const ThreadKeys *k);
guint32     ks_json_thread_keys_number (ThreadKeys       *k,
                                        const Event      *ev);
gboolean    ks_json_par_thread_keys    (guint             n_threads);
void        ks_json_par_note_pairs     (Parallel         *p,
                                        const Chunk      *c);

/* ks-json-chunk-tracks.c: a chunk's slices gathered by track on the
 * thread that parses it, added in bulk by the replay */
gboolean     ks_json_par_chunk_tracks       (void);
ChunkTracks *ks_json_chunk_tracks_new       (void);
void         ks_json_chunk_tracks_clear     (ChunkTracks  *t);
void         ks_json_chunk_tracks_free      (ChunkTracks  *t);
void         ks_json_chunk_tracks_keep      (Chunk        *c,
                                             const Event  *ev,
                                             Kept         *k);
void         ks_json_chunk_tracks_gather    (Chunk        *c);
gboolean     ks_json_chunk_tracks_begin     (Reader       *r,
                                             Chunk        *c);
gboolean     ks_json_chunk_tracks_take      (Reader       *r,
                                             Chunk        *c,
                                             const Kept   *k);
void         ks_json_chunk_tracks_before    (Reader       *r,
                                             Chunk        *c,
                                             const Kept   *k,
                                             const Event  *ev);
gboolean     ks_json_chunk_tracks_resolve   (Reader       *r,
                                             Chunk        *c,
                                             const Kept   *k);
void         ks_json_chunk_tracks_end       (Reader       *r,
                                             Chunk        *c,
                                             gboolean      complete);

/* The place of a chunk's @i-th event, its block made on first use. */
static inline Event *
ks_json_par_chunk_event (Chunk *c,
                         guint  i)
{
  guint b = i / EVENTS_PER_BLOCK;

  if (b >= c->events->len)
    g_ptr_array_add (c->events, g_new (Event, EVENTS_PER_BLOCK));
  return (Event *) c->events->pdata[b] + i % EVENTS_PER_BLOCK;
}
