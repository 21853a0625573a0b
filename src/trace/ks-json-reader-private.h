/* ks-json-reader-private.h: what the files of the JSON reader share
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <yajl/yajl_parse.h>

#include "ks-args.h"
#include "ks-args-stage.h"
#include "ks-json-reader.h"
#include "ks-json-scan.h"
#include "ks-load-phases.h"
#include "ks-trace-builder.h"

G_BEGIN_DECLS

#define READ_CHUNK      (1024 * 1024)
#define MAX_NESTING     128
#define MAX_ARGS_LEN    (1024 * 1024)
#define MAX_NUMBER_LEN  4096                 /* longer numbers (or words) stop the load */
#define MAX_STRING_LEN  (16 * 1024 * 1024)   /* longer strings are cut there */
#define MAX_OPEN_SLICES 4096
#define MAX_COUNTER_ARGS 8
#define MAX_TOP_METADATA 4096                /* values of top-level keys kept */
#define MAX_TOP_KEY_LEN  256
#define SYNTHETIC_ID_BASE 0x800000   /* above Linux pid_max (2^22), within 24 bits */

typedef enum
{
  F_OTHER = 0,
  F_PH,
  F_NAME,
  F_CAT,
  F_PID,
  F_TID,
  F_TS,
  F_DUR,
  F_TTS,
  F_TDUR,
  F_ID,
  F_ID2,
  F_BIND_ID,
  F_FLOW_IN,
  F_FLOW_OUT,
  F_BP,
  F_S,
  F_ARGS,
} Field;

typedef enum
{
  A_OTHER = 0,
  A_EXTERNAL_ID,
  A_CORRELATION,
  A_DEVICE,
  A_STREAM,
  A_GRID,
  A_BLOCK,
  A_REGISTERS,
  A_SHARED_MEMORY,
  A_BYTES,             /* memcpy/memset "bytes" */
  A_MEM_BYTES,         /* [memory] "Bytes" */
  A_ADDR,
  A_TOTAL_ALLOCATED,
  A_TOTAL_RESERVED,
  A_DEVICE_TYPE,
  A_DEVICE_ID,
  A_NAME,
  A_LABELS,
  A_SORT_INDEX,
  A_VALUE,
  A_DIRECTION,         /* MTIA DMA "direction" */
} Arg;

typedef enum
{
  K_OTHER = 0,
  K_TRACE_EVENTS,
  K_DEVICE_PROPERTIES,
  K_BASE_TIME,
  K_KINETO_HINT,       /* schemaVersion and friends */
  K_DISTRIBUTED,       /* distributedInfo: the rank of the file */
} TopKey;

typedef enum
{
  D_OTHER = 0,
  D_RANK,
  D_WORLD_SIZE,
  D_BACKEND,
  D_PG_COUNT,
} DistributedField;

typedef enum
{
  G_OTHER = 0,
  G_ID,
  G_NAME,
  G_TOTAL_MEM,
  G_MAJOR,
  G_MINOR,
  G_MAX_THREADS_BLOCK,
  G_MAX_THREADS_SM,
  G_REGS_BLOCK,
  G_REGS_SM,
  G_WARP,
  G_SHMEM_BLOCK,
  G_SHMEM_SM,
  G_NUM_SMS,
} GpuField;

typedef struct
{
  gboolean set;
  gboolean is_string;
  gint64   num;
  GString *str;
} Ident;

typedef struct
{
  char     ph;
  char     bp;
  char     scope;
  gboolean has_ts;
  gboolean has_dur;
  gboolean bad_ts;
  gint64   ts;
  gint64   dur;
  gboolean has_tts;         /* thread time (CPU time), ns */
  gboolean has_tdur;
  gint64   tts;
  gint64   tdur;
  guint32  name;
  guint32  cat;
  KsSliceKind kind;
  int      name_special;      /* NAME_* below */
  guint8   name_hint;         /* NAME_HINT_* below */
  gboolean device_by_name;    /* the category's kind follows the name (MTIA) */
  guint8   flow_cat;          /* FLOW_CAT_* of its category */
  Ident    pid;
  Ident    tid;
  gboolean has_id;
  gboolean id_local;        /* the id is id2.local: of the process only */
  gboolean any_key;         /* the object is not {} */
  GString *id;
  gboolean has_bind_id;     /* flows v2: bind_id with flow_in / flow_out */
  GString *bind_id;
  gboolean flow_in;
  gboolean flow_out;

  /* from args */
  gboolean has_args;
  guint32  external_id;
  guint32  correlation;
  gboolean has_device;
  gint64   device;
  gboolean has_stream;
  gint64   stream;
  KsGpuInfo gpu;
  guint32  registers;
  guint64  shared_memory;
  guint64  bytes;
  gint64   mem_bytes;
  guint64  addr;
  gint64   total_allocated;
  gint64   total_reserved;
  gint64   device_type;
  gint64   device_id;
  GString *arg_name;
  gboolean has_arg_name;
  GString *labels;
  gboolean has_labels;
  gboolean has_sort_index;
  gint64   sort_index;
  guint    n_counter_args;
  guint    n_bad_counter_values; /* not numbers, or beyond a double */
  GString *counter_key[MAX_COUNTER_ARGS];
  double   counter_value[MAX_COUNTER_ARGS];
  guint8   copy_kind;
  guint8   src_kind;
  guint8   dst_kind;
} Event;

/* What an MTIA device event's name says about its kind. */
enum
{
  NAME_HINT_NONE = 0,
  NAME_HINT_DMA,
  NAME_HINT_EVENT_WAIT,
};

enum
{
  NAME_PLAIN = 0,
  NAME_MEMORY,
  NAME_PROCESS_NAME,
  NAME_PROCESS_LABELS,
  NAME_PROCESS_SORT_INDEX,
  NAME_THREAD_NAME,
  NAME_THREAD_SORT_INDEX,
};

typedef struct
{
  gint64   ts;
  guint32  name;
  guint32  cat;
  guint32  args;
  guint32  correlation;
  guint32  external_id;
  guint8   kind;
  guint32  root;             /* async: name of the outermost open range */
  guint32  process;          /* whose row it is drawn on: where it began */
} AsyncRange;

/* An id that is a plain decimal number is its own key; any other id text
 * is numbered through Reader.flow_ids, tagged with the top bit. */
#define FLOW_ID_TEXT (G_GUINT64_CONSTANT (1) << 63)

/* Flows v2 are keyed by bind_id alone: their points are grouped under
 * this in place of a category id. */
#define FLOW_V2_GROUP G_MAXUINT32

typedef struct
{
  guint64 id;
  guint32 group;             /* the category, or FLOW_V2_GROUP */
  guint32 cat;
  guint32 track;
  gint64  ts;
  gint64  end;               /* v2 on a complete slice: its end, else G_MININT64 */
  char    phase;             /* s, t, f; v2: 'O' out, 'I' in, 'T' both */
} FlowPoint;

typedef struct
{
  int      type;             /* NAME_PROCESS_* / NAME_THREAD_* */
  gboolean pid_is_string;
  gint64   pid;
  char    *pid_str;
  gboolean tid_is_string;
  gint64   tid;
  char    *tid_str;
  char    *value;
  gint64   sort_index;
} Metadata;

#define THREAD_CACHE_SIZE 4

typedef struct
{
  gboolean valid;
  gint64   pid;
  gint64   tid;
  guint32  thread;
  guint32  track;
} ThreadCache;

/* A chunk's (pid, tid) pair as the replay resolved it: see
 * ks-json-threads-local.c */
typedef struct
{
  guint32 thread;   /* + 1; 0 until its first event is resolved */
  guint32 track;
} ThreadSlot;

#define INTERN_CACHE_SIZE 8192

typedef struct
{
  const char *str;
  gsize       len;
  guint32     id;
  guint32     gen;          /* valid while it is Reader.intern_gen */
} InternSlot;

typedef struct
{
  KsTraceBuilder *builder;
  const char     *name;           /* for messages */
  KsProgress     *progress;
  GCancellable   *cancellable;
  GError         *error;          /* set by callbacks to stop the parse */

  yajl_handle     yajl;
  const guint8   *buf;
  gsize           buf_len;
  guint64         buf_offset;     /* decompressed offset of buf[0] */

  /* structure */
  int             depth;
  int             top;            /* 0 none, '{' or '[' */
  int             events_depth;   /* depth at which event objects open, 0 when not in the events array */
  gboolean        saw_events;     /* a traceEvents array (or top-level array) was opened */
  int             gpu_depth;
  TopKey          top_key;
  GString        *top_key_text;  /* the dotted path of a top-level value */
  /* per depth, in a top-level value: the path's length, and for an
   * array the index of its next element + 1 (0 in an object) */
  guint           top_path_len[MAX_NESTING + 1];
  guint           top_index[MAX_NESTING + 1];
  guint           n_top_values;
  guint64         n_top_dropped;
  DistributedField dist_field;    /* the member of distributedInfo being read */
  gboolean        in_event;
  Field           field;
  gboolean        in_args;
  gboolean        in_id2;
  Arg             arg;
  int             arg_index;
  GpuField        gpu_field;
  KsGpu           gpu;

  /* args capture */
  GString        *args;
  gsize           args_from;      /* offset in buf where the pending capture starts */
  gboolean        args_overflow;
  yajl_callbacks  cbs;            /* what yajl calls; see mute_scalars() */
  gboolean        scalars_muted;
  const char     *args_direct;    /* the args text when it lies whole in buf */
  gsize           args_direct_len;
  /* replaying a chunk: what a worker's ks_args_prepare() made of
   * args_direct (NULL: nothing), so that only the interning is left
   * for this thread */
  const guint8   *args_prepared;  /* a worker's record of args_direct, */
  gsize           args_prepared_len;
  const KsArgsLocal *args_local;  /* in the numbers of its chunk, */
  guint32        *args_map;       /* which map to the store's */
  KsArgsScratch  *args_scratch;   /* a worker's, for ks_args_prepare() */
  KsArgsStage    *args_stage;     /* replaying a chunk: where its args go, or NULL */
  ThreadSlot     *thread_slot;    /* replaying a chunk: the event's pair, or NULL */

  Event          *ev;             /* the event being read: ev_own, or on a
                                   * worker a place in its chunk */
  Event           ev_own;

  /* per file */
  guint32         group;
  gint64          ts_offset;
  gboolean        have_base_time;
  gint64          base_time;
  gboolean        kineto;
  gint64          min_ts;
  gint64          max_ts;
  guint64         n_items;
  guint64         n_events;
  GHashTable     *pid_map;        /* gint64* -> process + 1 */
  GHashTable     *pid_str_map;    /* char* -> process + 1 */
  GHashTable     *tid_str_map;    /* char* -> synthetic tid */
  GHashTable     *open_async;     /* char* key -> GArray of AsyncRange */
  GArray         *flows;          /* FlowPoint, grouped by (cat, id) at the end */
  GHashTable     *flow_ids;       /* char* id text -> index + 1 */
  GArray         *metadata;       /* Metadata */
  GByteArray     *kind_by_cat;    /* cat id -> kind + 1, 0 when not seen */
#define CAT_BY_NAME 0x80          /* in kind_by_cat: the name decides (MTIA) */
#define CAT_FLOW_SHIFT 5          /* in kind_by_cat: the FLOW_CAT_* there */
#define CAT_KIND_MASK 0x1f        /* in kind_by_cat: the kind + 1 */

  /* small caches in front of the hash tables */
  ThreadCache     thread_cache[THREAD_CACHE_SIZE];
  guint           thread_cache_next;
  gint64          cache_gpu_device;
  gint64          cache_gpu_stream;
  int             cache_gpu_kind;
  guint32         cache_gpu_track;

  /* whole load */
  GHashTable     *used_pids;      /* pids of earlier files (folder loads) */
  GArray         *gpus;           /* KsGpu, the last description of each device */
  GHashTable     *gpu_index;      /* device -> index in gpus + 1 */
  gboolean        have_base0;     /* wall clock of the first file's clock zero */
  gint64          base0;
  guint32         next_synthetic;
  gboolean        any_kineto;

  /* problems, reported once as warnings */
  guint64         n_bad_ts;
  guint64         n_no_ph;
  guint64         n_empty_pending;  /* {} items, not said when they are the last */
  guint64         n_not_object;
  guint64         n_unmatched_end;
  guint64         n_unclosed;
  guint64         n_unknown_ph;
  guint64         n_dropped_flows;
  guint64         n_too_deep;
  guint64         n_big_args;
  guint64         n_cut_strings;
  guint64         n_invalid_utf8; /* sequences replaced with U+FFFD */
  guint64         n_negative_dur; /* complete events kept as zero-length */
  guint64         n_bad_counter_values;
  GString        *unknown_phases;
  gboolean        syntax_error;   /* parse stopped by invalid JSON ... */
  gboolean        nesting_error;  /* ... or by too deep nesting ... */
  gboolean        number_error;   /* ... or by a number over MAX_NUMBER_LEN */
  guint64         syntax_offset;  /* where, in the compacted text */
  /* Trailing commas and raw control characters in strings, which Chrome
   * and Perfetto accept: the first read stops at one (lenient_fixable)
   * and the file is read again with lenient set (see lenient_feed()). */
  gboolean        lenient;
  gboolean        lenient_fixable;
  gboolean        lenient_in_string;
  gboolean        lenient_escape;
  gboolean        held_comma;
  guint8          lenient_prev;   /* the last byte outside strings */
  const guint8   *lenient_piece;  /* what feed_lenient() feeds now */
  guint64         n_trailing_commas;
  guint64         n_control_chars;
  KsJsonCompactState    stream_state;   /* white space is dropped before yajl sees it */
  guint64         orig_offset;    /* bytes of the original text parsed */
  guint64         text_fed;       /* bytes of compacted text handed on */
  gboolean        value_done;     /* the top-level value has closed ... */
  guint64         value_end;      /* ... where the compacted text after it starts */
  char           *syntax_text;

  /* A token that a block boundary cuts is held back and handed to yajl
   * whole: see ks_json_parse_chunk(). */
  GByteArray     *carry;
  gboolean        carry_string;   /* a string (else a number or a literal) */
  gsize           carry_quote;    /* where in carry a string starts (see ks_json_parse_chunk()) */
  guint64         carry_offset;   /* where carry starts in the compacted text */
  gboolean        skip_string;    /* in the rest of a string cut at MAX_STRING_LEN ... */
  gboolean        skip_escaped;   /* ... after an unpaired backslash */
  gboolean        text_ascii;     /* the text yajl parses now has no byte above 0x7f */
  gboolean        args_ascii;     /* nor had the args text captured so far */
  GString        *utf8_scratch;

  /* names repeat: a direct-mapped cache in front of the builder's table */
  InternSlot      intern_cache[INTERN_CACHE_SIZE];
  guint32         intern_gen;     /* a worker's cache empties a chunk at a time */

  /* parsing on several threads: see ks-json-parallel.c */
  struct _Parallel *parallel;     /* the main reader's splitter, or NULL */
  goffset          load_size;     /* the text of all the files of the load, when more than one */
  struct _Workers *workers;       /* its threads, for all its files, or NULL */
  struct _Chunk   *chunk;         /* a worker's chunk: events are kept, not handled */
} Reader;

/* What yajl calls (ks-json-callbacks.c); see mute_scalars(). */
extern const yajl_callbacks ks_json_callbacks;

void ks_json_reader_fail (Reader     *r,
                          const char *format,
                          ...) G_GNUC_PRINTF (2, 3);

static inline guint32
to_u32 (gint64 v)
{
  return v >= 0 && v <= G_MAXUINT32 ? (guint32)v : 0;
}
/* ks-json-reader.c */

void ks_json_reader_reset_file (Reader *r);

Reader *ks_json_reader_new (KsTraceBuilder *builder,
                            KsProgress     *progress,
                            GCancellable   *cancellable);

void ks_json_reader_free (Reader *r);

void ks_json_finish_file (Reader  *r,
                          gboolean first_file);

KsTrace *ks_json_finish_trace (Reader        *r,
                               GError       **error);

/* ks-json-source.c */

gboolean ks_json_stream_rewind (GInputStream *stream);

GBytes *ks_json_inflate_all (GInputStream *stream,
                             gsize         size_hint,
                             GCancellable *cancellable);

void ks_json_relocate_error (Reader        *r,
                             GInputStream  *stream,
                             gboolean       gzip,
                             GError       **error);

gboolean ks_json_read_stream (Reader        *r,
                              GInputStream  *stream,
                              goffset        size,
                              double         base,
                              double         span,
                              GError       **error);

/* Reports @done bytes of @size read: FALSE when the load is cancelled or
 * past the builder's limits. */
gboolean ks_json_source_progress (Reader   *r,
                                  guint64   done,
                                  double    base,
                                  double    span,
                                  goffset   size,
                                  GError  **error);

/* Hands @n bytes of compacted text on to the parse. */
gboolean ks_json_source_feed (Reader    *r,
                              guint8    *data,
                              gsize      n,
                              guint      seen,
                              gboolean   in_string,
                              GError   **error);

/* Something other than white space came after the top-level value. */
gboolean ks_json_past_value (Reader *r);

/* ks-json-mapped.c */

/* Parses the rest of a regular file through a mapping, from the
 * stream's position; files that cannot be mapped are left to read(). */
gboolean ks_json_read_mapped (Reader        *r,
                              GInputStream  *stream,
                              guint8        *cbuf,
                              guint64       *raw_read,
                              double         base,
                              double         span,
                              goffset        size,
                              GError       **error);

/* ks-json-tokenizer.c */

const char *ks_json_valid_utf8 (Reader     *r,
                                const char *s,
                                gsize      *len);

void ks_json_append_valid_utf8 (Reader     *r,
                                GString    *to,
                                const char *s,
                                gsize       len);

guint64 ks_json_current_offset (Reader *r);

void ks_json_args_append (Reader       *r,
                          const guint8 *p,
                          gsize         n);

gboolean ks_json_parse_chunk (Reader        *r,
                              guint8        *data,
                              gsize          n,
                              guint          seen,
                              gboolean       in_string,
                              GError       **error);

gboolean ks_json_parse_carry (Reader  *r,
                              GError **error);

guint ks_json_take_seen (KsJsonCompactState *state);

/* ks-json-callbacks.c */

guint32 ks_json_intern (Reader     *r,
                        const char *s,
                        gsize       len);

void ks_json_ident_set_text (Reader     *r,
                             Ident      *id,
                             const char *s,
                             gsize       len);

int ks_json_field_id (Reader     *r,
                      const char *s,
                      gsize       len);

/* ks-json-kineto.c */

void ks_json_parse_copy_name (Event      *ev,
                              const char *s,
                              gsize       len);

KsSliceKind ks_json_device_kind        (const Event *ev);
guint8      ks_json_copy_kind_from_direction (const char *s,
                                              gsize       len);
gboolean    ks_json_category_kind_by_name (const char *cat,
                                           gsize       len);
KsSliceKind ks_json_kind_from_category (const char *cat,
                                        gsize       len,
                                        gboolean   *kineto);

/* What a category says of its flows: Kineto's CPU launch -> GPU work
 * flows, implied by the correlation ids and not stored, are in
 * FLOW_CAT_LAUNCH ones, and in FLOW_CAT_ASYNC ones in a Kineto trace. */
enum
{
  FLOW_CAT_OTHER,
  FLOW_CAT_LAUNCH,
  FLOW_CAT_ASYNC,
};

guint8 ks_json_flow_category (const char *cat,
                              gsize       len);

void    ks_json_gpu_key   (const Event *ev,
                           KsSliceKind  kind,
                           int         *kind_out,
                           gint64      *device_out,
                           gint64      *stream_out);
guint32 ks_json_gpu_track (Reader      *r,
                           KsSliceKind  kind);

/* The file's base name and the rank its name gives, for r->group. */
void ks_json_note_file_rank (Reader     *r,
                             const char *path);
DistributedField ks_json_classify_distributed (const unsigned char *key,
                                               gsize                len);
void ks_json_set_gpu_field (Reader     *r,
                            gboolean    is_string,
                            const char *s,
                            gsize       len);

void ks_json_remember_gpu (Reader *r);

int ks_json_compare_gpu_devices (gconstpointer a,
                                 gconstpointer b);

/* ks-json-folder.c */

KsTrace *ks_json_load_folder (GFile         *folder,
                              KsProgress    *progress,
                              GCancellable  *cancellable,
                              GError       **error);

/* ks-json-args.c */

void ks_json_event_reset (Event *ev);

gboolean ks_json_in_top_value (Reader *r);

void ks_json_top_key (Reader     *r,
                      const char *key,
                      gsize       len);

void ks_json_top_container (Reader   *r,
                            gboolean  array);

void ks_json_top_value (Reader     *r,
                        const char *s,
                        gsize       len);

int ks_json_on_scalar (Reader     *r,
                       gboolean    is_string,
                       const char *s,
                       gsize       len);

/* ks-json-events.c */

guint32 ks_json_event_thread_lookup (Reader  *r,
                                     guint32 *track);

/* The thread (and its track) of the current event: in a chunk's replay
 * the slot of its (pid, tid) once an event of the chunk resolved it,
 * inline, as most events take it (see ks-json-threads-local.c). */
static inline guint32
ks_json_event_thread (Reader  *r,
                      guint32 *track)
{
  const ThreadSlot *slot = r->thread_slot;

  if (slot != NULL && slot->thread != 0 && r->ev->pid.set && r->ev->tid.set)
    {
      *track = slot->track;
      return slot->thread - 1;
    }
  return ks_json_event_thread_lookup (r, track);
}

void ks_json_metadata_clear (gpointer data);

void ks_json_apply_metadata (Reader *r);

void ks_json_handle_event (Reader *r);

void ks_json_close_open_slices (Reader *r);

void ks_json_report_problems (Reader *r);

/* ks-json-parallel.c */

/* KINESCOPE_THREADS, else the cores. */
guint ks_json_thread_count (void);

/* @size: the file's, or 0 when unknown */
void ks_json_parallel_start (Reader  *r,
                             goffset  size);
/* The text turned out to be about @size bytes (a compressed file's). */
void ks_json_parallel_set_size (Reader  *r,
                                goffset  size);

/* How much text to compact at a time: READ_CHUNK, or a chunk's worth
 * while the event array may be cut, so that a chunk takes its text
 * where it was compacted. */
gsize ks_json_block_size (Reader *r);

/* Where the next block of at most @n compacted bytes goes: @buf, or the
 * end of the text being cut into chunks, which takes it without a copy. */
guint8 *ks_json_block_buffer (Reader *r,
                              guint8 *buf,
                              gsize   n);

gboolean ks_json_feed_block (Reader        *r,
                             guint8        *data,
                             gsize          n,
                             guint          seen,
                             gboolean       in_string,
                             GError       **error);

/* ks_json_feed_block() for the first @n bytes of @block, a compacted
 * block that is not written again while a reference is held: chunks cut
 * from it keep one and copy their text on the thread that parses them,
 * instead of this thread copying the block into the text it cuts. */
gboolean ks_json_feed_shared_block (Reader   *r,
                                    GBytes   *block,
                                    gsize     n,
                                    guint     seen,
                                    gboolean  in_string,
                                    GError  **error);

gboolean ks_json_parallel_finish (Reader  *r,
                                  GError **error);

/* Cuts the event array's text from @fd at *@pos on as it lies in the
 * file, each chunk compacted by the thread that parses it, and replays
 * the chunks; *@pos is left where the text not cut yet starts, which
 * the caller compacts and feeds as before from r->stream_state. Does
 * nothing where the text is not cut so (KINESCOPE_JSON_CUT=compacted,
 * one thread, outside the array). */
gboolean ks_json_read_raw (Reader   *r,
                           int       fd,
                           goffset  *pos,
                           goffset   end,
                           guint64  *raw_read,
                           double    base,
                           double    span,
                           goffset   size,
                           GError  **error);

/* ks-json-inflated.c: a .json.gz's inflated text read by offset, which
 * the reading thread takes in block by block from the inflating thread
 * as it reads further */
typedef struct _KsJsonInflated KsJsonInflated;

/* The text's next block as inflated (not written again while a
 * reference is held); NULL at its end, or with @error set. */
typedef GBytes *(*KsJsonNextBlock) (gpointer   data,
                                    GError   **error);

KsJsonInflated *ks_json_inflated_new        (guint64               offset,
                                             KsJsonNextBlock       next,
                                             gpointer              next_data);
void            ks_json_inflated_free       (KsJsonInflated       *t);
void            ks_json_inflated_append     (KsJsonInflated       *t,
                                             GBytes               *bytes);
/* The text's bytes [@offset, @offset + @n) copied to @buf, blocks taken
 * in as needed; fewer where the text ends. */
gsize           ks_json_inflated_read       (KsJsonInflated       *t,
                                             guint8               *buf,
                                             gsize                 n,
                                             guint64               offset);
/* A text of its own that holds the blocks of [@from, @to) of @t (taken
 * in already): read on another thread while @t takes more in. */
KsJsonInflated *ks_json_inflated_hold       (KsJsonInflated       *t,
                                             guint64               from,
                                             guint64               to);
/* The blocks that end before @before let go of. */
void            ks_json_inflated_drop       (KsJsonInflated       *t,
                                             guint64               before);
/* Where the blocks taken in end. */
guint64         ks_json_inflated_get_end    (const KsJsonInflated *t);
/* Whether no block comes after them (the end of the text, or an error). */
gboolean        ks_json_inflated_ended      (const KsJsonInflated *t);
GError         *ks_json_inflated_take_error (KsJsonInflated       *t);

/* ks_json_read_raw() for a .json.gz: its inflated text cut as it lies
 * from *@pos on, each chunk copied and compacted by the thread that
 * parses it; *@pos is left where the text not cut yet starts, which the
 * caller compacts from r->stream_state. *@raw_read is the caller's,
 * which @t's blocks advance. */
gboolean ks_json_read_inflated (Reader          *r,
                                KsJsonInflated  *t,
                                guint64         *pos,
                                guint64         *raw_read,
                                double           base,
                                double           span,
                                goffset          size,
                                GError         **error);

/* Whether the event array is cut as it lies (KINESCOPE_JSON_CUT not
 * =compacted). */
gboolean ks_json_cut_raw_wanted (void);

/* Whether the text that comes next is cut as it lies (in the event
 * array, on several threads, KINESCOPE_JSON_CUT not =compacted). */
gboolean ks_json_par_raw_ready (Reader *r);

/* The reading thread waited, since @clock started, for a block from the
 * thread that maps or inflates the text (KINESCOPE_LOAD_PHASES). */
void ks_json_parallel_note_input_wait (Reader             *r,
                                       const KsPhaseClock *clock);

void ks_json_parallel_stop (Reader *r);

/* ks-json-args-stage.c: the replay's args stored on a thread of their
 * own, a KsArgsStage whose batches hold the chunks they point into (the
 * rest is ks_args_stage_defer(), _place(), _reserve(), _submit(),
 * _drain()) */
KsArgsStage *ks_json_args_stage_new      (KsTraceBuilder     *builder);
void         ks_json_args_stage_free     (KsArgsStage        *s);
guint32      ks_json_args_stage_defer    (KsArgsStage        *s,
                                          const char         *text,
                                          gsize               len,
                                          const KsArgsLocal  *local,
                                          guint32            *map,
                                          const guint8       *record,
                                          gsize               record_len);
void         ks_json_args_stage_unplace  (KsArgsStage        *s,
                                          guint32             track,
                                          guint32             index);
void         ks_json_args_stage_print_phases (KsArgsStage    *s,
                                              KsPhaseClock   *read_wait);

/* The threads of the reader's splitters, when it is done with them. */
void ks_json_parallel_free_workers (Reader *r);

guint32 ks_json_chunk_intern (Reader     *r,
                              const char *s,
                              gsize       len);

const char *ks_json_chunk_string (Reader  *r,
                                  guint32  id);

void ks_json_chunk_keep_event (Reader *r);

int ks_json_chunk_events_end (Reader *r);

/* ks-json-source.c */

void ks_json_start_parser (Reader *r);

/* ks-json-flows.c */

void ks_json_handle_flow (Reader *r);

void ks_json_handle_bound_flow (Reader  *r,
                                guint32  track,
                                gint64   ts,
                                gint64   end);

void ks_json_link_flows (Reader *r);

G_END_DECLS
