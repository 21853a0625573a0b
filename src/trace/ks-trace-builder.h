/* ks-trace-builder.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-args.h"
#include "ks-trace.h"

G_BEGIN_DECLS

/* Readers feed a KsTraceBuilder and finish it into an immutable KsTrace.
 * Times given to the builder are absolute nanoseconds on the file's clock;
 * ks_trace_builder_finish() shifts everything so the earliest event is 0.
 * Slices may arrive in any order: finish sorts each track and computes
 * nesting depths. A builder is used from one thread at a time. */

typedef struct _KsTraceBuilder KsTraceBuilder;

/* The most processes, threads, tracks and counters a trace can have:
 * far beyond real traces (a few thousand rows), and what keeps a hostile
 * file within memory. Past it the builder drops what it is given and
 * finish() fails with a message naming the file ("source_name") and the
 * limit. Each small track costs a few hundred bytes. */
#define KS_TRACE_BUILDER_MAX_ROWS 1000000u

/* Times this far or further from the clock's zero (2^62 ns, 146 years)
 * are refused and counted: see ks_trace_builder_add_slice(). */
#define KS_TRACE_BUILDER_MAX_ABS_TS (G_GINT64_CONSTANT (1) << 62)

KsTraceBuilder *ks_trace_builder_new              (KsFormat          format);
void            ks_trace_builder_free             (KsTraceBuilder   *self);

/* Strings: interned, id 0 is "". */
guint32         ks_trace_builder_intern           (KsTraceBuilder   *self,
                                                   const char       *str);
guint32         ks_trace_builder_intern_len       (KsTraceBuilder   *self,
                                                   const char       *str,
                                                   gsize             len);
/* The text of an interned string id ("" when out of range). */
const char     *ks_trace_builder_get_string       (KsTraceBuilder   *self,
                                                   guint32           id);
/* Args: a JSON object's text (copied), returns the value for KsTrack.args. */
guint32         ks_trace_builder_add_args         (KsTraceBuilder   *self,
                                                   const char       *json,
                                                   gsize             len);
/* The same, from what ks_args_prepare() made of @json on another thread
 * (@prepared_len 0: nothing). */
guint32         ks_trace_builder_add_prepared_args (KsTraceBuilder *self,
                                                    const char     *json,
                                                    gsize           len,
                                                    const guint8   *prepared,
                                                    gsize           prepared_len);
/* The same, from what ks_args_local_prepare() made of @json in @local on
 * another thread, through @map (see ks_args_store_add_local()). */
guint32         ks_trace_builder_add_local_args   (KsTraceBuilder    *self,
                                                   const char        *json,
                                                   gsize              len,
                                                   const KsArgsLocal *local,
                                                   guint32           *map,
                                                   const guint8      *record,
                                                   gsize              record_len);

/* For a reader that adds args on another thread (see
 * ks-json-args-stage.c): @barrier runs on the builder's thread before
 * any of the calls above touches the store, so that what was handed to
 * the other thread is stored first; NULL removes it. */
void            ks_trace_builder_set_args_barrier (KsTraceBuilder    *self,
                                                   GFunc              barrier,
                                                   gpointer           data);

/* Adds @json to the args store as ks_trace_builder_add_local_args()
 * (with @local NULL: as ks_trace_builder_add_args()), without the
 * barrier and without failing the builder: safe on another thread while
 * the builder's thread touches anything but the store. FALSE when
 * memory ran out. */
gboolean        ks_trace_builder_store_args       (KsTraceBuilder    *self,
                                                   const char        *json,
                                                   gsize              len,
                                                   const KsArgsLocal *local,
                                                   guint32           *map,
                                                   const guint8      *record,
                                                   gsize              record_len,
                                                   guint32           *id);

/* What ks_trace_builder_store_args() found: the memory ran out. */
void            ks_trace_builder_fail_args        (KsTraceBuilder    *self);

/* The number of slices of @track so far. */
/* Slices of one track in file order, in columns: see
 * ks_trace_builder_add_slices(). */
typedef struct
{
  const gint64    *start;
  const gint64    *end;         /* each at least its start */
  const guint32   *name;        /* in the caller's numbers: see @map */
  const guint32   *category;
  const guint32   *correlation;
  const guint32   *external_id;
  const guint32   *args;        /* NULL: none */
  const guint8    *kind;        /* KsSliceKind */
  const KsGpuInfo *gpu;         /* NULL: none */
} KsSliceColumns;

/* ks_trace_builder_add_slice() for the slices @from to @from + @n - 1 of
 * @columns in turn, whose times all lie within
 * KS_TRACE_BUILDER_MAX_ABS_TS: a reader's run of slices of one track in
 * one call. Names and categories are @map[id - 1] (0 stays 0), or, with
 * no @map, the builder's own ids. The
 * first one's index in the track is set in @first. FALSE, adding none,
 * when the builder has failed or memory ran out. */
gboolean        ks_trace_builder_add_slices       (KsTraceBuilder       *self,
                                                   guint32               track,
                                                   const KsSliceColumns *columns,
                                                   guint32               from,
                                                   guint32               n,
                                                   const guint32        *map,
                                                   guint32              *first);

/* Room for @n slices of @track in all, allocated now: a hint from a
 * reader that counted them ahead, so that the track does not grow by
 * doubling. More or fewer slices than reserved are added as usual; a
 * hint that cannot be allocated is ignored. */
void            ks_trace_builder_reserve_slices   (KsTraceBuilder       *self,
                                                   guint32               track,
                                                   guint64               n);

guint32         ks_trace_builder_get_track_n_slices (KsTraceBuilder *self,
                                                     guint32         track);

/* Sets the args of slice @index of @track, added before finish(). */
void            ks_trace_builder_set_slice_args   (KsTraceBuilder    *self,
                                                   guint32            track,
                                                   guint32            index,
                                                   guint32            args);
/* The args of @track's *@n_slices slices so far, for a caller that sets
 * many: valid until a slice is added to @track or the builder finishes. */
guint32        *ks_trace_builder_get_slice_args_column (KsTraceBuilder *self,
                                                        guint32         track,
                                                        guint32        *n_slices);

void            ks_trace_builder_set_metadata     (KsTraceBuilder   *self,
                                                   const char       *key,
                                                   const char       *value);
/* Something the reader skipped or repaired (a truncated file, unmatched
 * B/E events...): collected in the "warnings" metadata, one per line. */
void            ks_trace_builder_add_warning      (KsTraceBuilder   *self,
                                                   const char       *format,
                                                   ...) G_GNUC_PRINTF (2, 3);
void            ks_trace_builder_set_start_utc    (KsTraceBuilder   *self,
                                                   gint64            utc_ns_of_clock_zero);
/* Processes and threads are created on first use and found again by id. */
guint32         ks_trace_builder_get_process      (KsTraceBuilder   *self,
                                                   gint64            pid);
void            ks_trace_builder_set_process_info (KsTraceBuilder   *self,
                                                   guint32           process,
                                                   const char       *name,
                                                   const char       *label,
                                                   const char       *original,
                                                   gint32            sort_index);
guint32         ks_trace_builder_get_thread       (KsTraceBuilder   *self,
                                                   guint32           process,
                                                   gint64            tid);
/* The thread of (@process, @tid), or KS_NO_INDEX when there is none yet. */
guint32         ks_trace_builder_find_thread      (KsTraceBuilder   *self,
                                                   guint32           process,
                                                   gint64            tid);
void            ks_trace_builder_set_thread_info  (KsTraceBuilder   *self,
                                                   guint32           thread,
                                                   const char       *name,
                                                   const char       *original,
                                                   gint32            sort_index);
/* Processes and tracks created from now on belong to @group: correlation
 * ids link CPU calls to GPU work only within one group. Readers of a
 * folder use one group per file; SQLite readers one per process. */
void            ks_trace_builder_set_group        (KsTraceBuilder   *self,
                                                   guint32           group);
/* The rank of @group, to fill in: created with rank -1 (not a rank) and
 * valid until the next call. finish() keeps those given a rank. */
KsRank         *ks_trace_builder_get_rank         (KsTraceBuilder   *self,
                                                   guint32           group);
/* The rank in a file name: "rank3", "rank-3", "rank_3", "sampled_rank-1.json";
 * -1 when it names none. */
gint32          ks_trace_rank_from_file_name      (const char       *name);
guint32         ks_trace_builder_get_n_processes  (KsTraceBuilder   *self);
guint32         ks_trace_builder_get_n_threads    (KsTraceBuilder   *self);

/* Tracks. Each function finds the track for its key or creates it. */
guint32         ks_trace_builder_get_thread_track (KsTraceBuilder   *self,
                                                   guint32           thread);
guint32         ks_trace_builder_get_nvtx_track   (KsTraceBuilder   *self,
                                                   guint32           thread);
guint32         ks_trace_builder_get_stream_track (KsTraceBuilder   *self,
                                                   gint32            device,
                                                   gint64            stream);
guint32         ks_trace_builder_get_gpu_annotation_track
                                                  (KsTraceBuilder   *self,
                                                   gint32            device,
                                                   gint64            stream);
guint32         ks_trace_builder_get_async_track  (KsTraceBuilder   *self,
                                                   guint32           process,
                                                   const char       *name);
void            ks_trace_builder_set_track_sort_index
                                                  (KsTraceBuilder   *self,
                                                   guint32           track,
                                                   gint32            sort_index);

/* Adds a slice; @end < @start is clamped to @start. @gpu may be NULL
 * (it is only kept on stream tracks). Returns FALSE when the slice was
 * refused (the track is full: more than G_MAXUINT32 - 1 slices; a time
 * 2^62 ns or more from the clock's zero; the builder has failed). */
gboolean        ks_trace_builder_add_slice        (KsTraceBuilder   *self,
                                                   guint32           track,
                                                   gint64            start,
                                                   gint64            end,
                                                   KsSliceKind       kind,
                                                   guint32           name,
                                                   guint32           category,
                                                   guint32           correlation,
                                                   guint32           external_id,
                                                   guint32           args,
                                                   const KsGpuInfo  *gpu);

/* Begin/end pairing (ks-trace-builder-ranges.c). A range opened on
 * @stack (any number: a thread index, say) becomes a slice on its track
 * when ks_trace_builder_end_range() ends the innermost one of the stack,
 * with the begin's and the end's args merged; FALSE when the stack has
 * none open. ks_trace_builder_close_open_ranges() ends every range still
 * open at @end (or at its start, when later; @end then moves with it),
 * stack by stack, and returns how many it closed. */
typedef struct
{
  gint64       start;
  guint32      track;
  guint32      name;
  guint32      category;
  guint32      correlation;
  guint32      external_id;
  guint32      args;        /* interned args, used when args_text is NULL */
  char        *args_text;   /* args as JSON text: the builder takes it */
  KsSliceKind  kind;
  gboolean     has_thread_start;
  gint64       thread_start; /* the begin's thread time (trace-event "tts") */
} KsOpenRange;

guint           ks_trace_builder_get_n_open_ranges (KsTraceBuilder *self,
                                                    guint32         stack);
void            ks_trace_builder_begin_range       (KsTraceBuilder *self,
                                                    guint32         stack,
                                                    KsOpenRange    *range);
gboolean        ks_trace_builder_end_range         (KsTraceBuilder *self,
                                                    guint32         stack,
                                                    gint64          end,
                                                    char           *end_args_text);
/* ks_trace_builder_end_range() with the end's thread time (G_MININT64
 * when none): the slice's thread duration is the difference from the
 * begin's. */
gboolean        ks_trace_builder_end_range_thread_time
                                                   (KsTraceBuilder *self,
                                                    guint32         stack,
                                                    gint64          end,
                                                    char           *end_args_text,
                                                    gint64          end_thread_time);
guint64         ks_trace_builder_close_open_ranges (KsTraceBuilder *self,
                                                    gint64          end);

void            ks_trace_builder_add_gpu          (KsTraceBuilder   *self,
                                                   const KsGpu      *gpu);
/* A flow between the slices enclosing (from_track, from_ts) and
 * (to_track, to_ts), resolved in finish; dropped when either end lies in
 * no slice. Launch flows need not be added: finish links every CUDA API
 * slice to the GPU activity of the same process and correlation id. */
void            ks_trace_builder_add_flow         (KsTraceBuilder   *self,
                                                   guint32           from_track,
                                                   gint64            from_ts,
                                                   guint32           to_track,
                                                   gint64            to_ts,
                                                   guint32           category,
                                                   KsFlowKind        kind);
/* A flow between the slices spanning exactly [@from_start, @from_end)
 * and [@to_start, @to_end) (the outermost one where several do),
 * resolved in finish; dropped when either is not there. An end of
 * G_MININT64 stands for the slice enclosing that start instead, as in
 * ks_trace_builder_add_flow(). */
void            ks_trace_builder_add_slice_flow   (KsTraceBuilder   *self,
                                                   guint32           from_track,
                                                   gint64            from_start,
                                                   gint64            from_end,
                                                   guint32           to_track,
                                                   gint64            to_start,
                                                   gint64            to_end,
                                                   guint32           category,
                                                   KsFlowKind        kind);
/* The thread time (CPU time) of the slice spanning exactly [@start, @end)
 * on @track (the outermost where several do), resolved in finish;
 * dropped when there is none. @thread_start is on the thread's CPU clock
 * (G_MININT64 when unknown), @thread_duration -1 when unknown. */
void            ks_trace_builder_add_thread_time  (KsTraceBuilder   *self,
                                                   guint32           track,
                                                   gint64            start,
                                                   gint64            end,
                                                   gint64            thread_start,
                                                   gint64            thread_duration);
guint32         ks_trace_builder_get_counter      (KsTraceBuilder   *self,
                                                   const char       *name,
                                                   const char       *unit,
                                                   gint32            device,
                                                   guint32           process);
void            ks_trace_builder_add_counter_sample
                                                  (KsTraceBuilder   *self,
                                                   guint32           counter,
                                                   gint64            ts,
                                                   double            value);
/* How many memory events, flows and instants are coming, when the reader
 * knows: room is made for them at once. */
void            ks_trace_builder_expect           (KsTraceBuilder   *self,
                                                   guint64           memory_events,
                                                   guint64           flows,
                                                   guint64           instants);
void            ks_trace_builder_add_memory_event (KsTraceBuilder   *self,
                                                   const KsMemoryEvent *event);
/* A memory event of @process whose thread is unknown (a caching-allocator
 * event reported from Python): finish places it on the thread of the
 * process with the deepest KS_SLICE_CPU_OP containing its time, else on
 * the process's main thread (tid = pid), as a profiler that saw the
 * thread would have. */
void            ks_trace_builder_add_process_memory_event
                                                  (KsTraceBuilder   *self,
                                                   const KsMemoryEvent *event,
                                                   guint32           process);
void            ks_trace_builder_add_instant      (KsTraceBuilder   *self,
                                                   const KsInstant  *instant);

/* Sampled stacks (ks-trace-builder-samples.c). A sample of @thread at
 * @ts whose stack is @frames, innermost first (string ids; line 0 when
 * unknown). Stacks deeper than KS_TRACE_MAX_STACK_DEPTH keep their
 * innermost frames. Samples and stack nodes each count against
 * KS_TRACE_BUILDER_MAX_ROWS: past it a sample is left out (FALSE) and
 * finish() says how many in a load warning. finish() sorts the samples
 * by (thread, time) and draws each thread's as a KS_TRACK_SAMPLES track
 * under its thread track (see ks-trace.h). */
#define KS_TRACE_MAX_STACK_DEPTH 256u

typedef struct
{
  guint32 function;
  guint32 file;
  guint32 line;
} KsSampleFrame;

gboolean        ks_trace_builder_add_sample       (KsTraceBuilder   *self,
                                                   guint32           thread,
                                                   gint64            ts,
                                                   const KsSampleFrame *frames,
                                                   guint             n_frames);
/* A sample taken while its thread waited (@waiting) rather than ran. */
gboolean        ks_trace_builder_add_sample_full  (KsTraceBuilder   *self,
                                                   guint32           thread,
                                                   gint64            ts,
                                                   gboolean          waiting,
                                                   const KsSampleFrame *frames,
                                                   guint             n_frames);

guint64         ks_trace_builder_get_n_events     (KsTraceBuilder   *self);

/* FALSE, with @error set, once the trace went past a limit (see
 * KS_TRACE_BUILDER_MAX_ROWS) or memory ran out: a reader can stop there
 * instead of reading the rest for nothing. */
gboolean        ks_trace_builder_check            (KsTraceBuilder   *self,
                                                   GError          **error);

/* Whether finish() says, in one load warning, how many slices of threads
 * overlap the slice they start in only partly (naming the first), which
 * it places beside that slice rather than under it: for trace-event
 * files, whose complete events should nest or be apart (Kineto's Python
 * frames often overlap so). Off by default. */
void            ks_trace_builder_set_warn_overlaps (KsTraceBuilder  *self,
                                                    gboolean         warn);

/* Sorts, computes depths, links flows, shifts times and returns the trace.
 * The builder is consumed (freed) whether or not this succeeds. */
KsTrace        *ks_trace_builder_finish           (KsTraceBuilder   *self,
                                                   GCancellable     *cancellable,
                                                   GError          **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsTraceBuilder, ks_trace_builder_free)

G_END_DECLS
