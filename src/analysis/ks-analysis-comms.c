/* ks-analysis-comms.c: collectives, ranks and stragglers
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "ks-analysis-private.h"
#include "ks-format.h"

const char *
ks_collective_kind_to_string (KsCollectiveKind kind)
{
  static const char * const names[] = {
    "allreduce", "allgather", "reduce_scatter", "all_to_all", "broadcast", "reduce",
    "send_recv", "barrier", "other",
  };

  G_STATIC_ASSERT (G_N_ELEMENTS (names) == KS_N_COLLECTIVE_KINDS);
  return kind < KS_N_COLLECTIVE_KINDS ? names[kind] : "other";
}

double
ks_collective_bus_factor (KsCollectiveKind kind,
                          guint32          n)
{
  if (n < 2)
    return 1.0;
  switch (kind)
    {
    case KS_COLLECTIVE_ALL_REDUCE:
      return 2.0 * (n - 1) / n;
    case KS_COLLECTIVE_ALL_GATHER:
    case KS_COLLECTIVE_REDUCE_SCATTER:
    case KS_COLLECTIVE_ALL_TO_ALL:
      return (double)(n - 1) / n;
    case KS_COLLECTIVE_BROADCAST:
    case KS_COLLECTIVE_REDUCE:
    case KS_COLLECTIVE_SEND_RECV:
    case KS_COLLECTIVE_BARRIER:
    case KS_COLLECTIVE_OTHER:
    case KS_N_COLLECTIVE_KINDS:
    default:
      return 1.0;
    }
}

/* The kind a name says: "ncclKernel_AllReduce_RING_LL_Sum_float(...)",
 * "ncclDevKernel_AllGather_RING_LL(...)", "c10d::allreduce_",
 * "nccl:_all_gather_base", "gloo:all_reduce", or record_param_comms's
 * "Collective name" ("allreduce", "_reduce_scatter_base"). Letters only,
 * lowered, so that every spelling meets. */
static gboolean
kind_from_name (const char *name,
                gsize       len,
                guint8     *kind)
{
  static const struct { const char *prefix; guint8 kind; } map[] = {
    { "allreduce", KS_COLLECTIVE_ALL_REDUCE },
    { "allgather", KS_COLLECTIVE_ALL_GATHER },
    { "reducescatter", KS_COLLECTIVE_REDUCE_SCATTER },
    { "alltoall", KS_COLLECTIVE_ALL_TO_ALL },
    { "broadcast", KS_COLLECTIVE_BROADCAST },
    { "reduce", KS_COLLECTIVE_REDUCE },
    { "sendrecv", KS_COLLECTIVE_SEND_RECV },
    { "send", KS_COLLECTIVE_SEND_RECV },
    { "recv", KS_COLLECTIVE_SEND_RECV },
    { "barrier", KS_COLLECTIVE_BARRIER },
  };
  char letters[32];
  guint n = 0;

  for (gsize i = 0; i < len && name[i] != '\0' && name[i] != '(' && n < sizeof letters - 1; i++)
    {
      if (g_ascii_isalpha (name[i]))
        letters[n++] = g_ascii_tolower (name[i]);
      else if (name[i] != '_' && n > 0)
        break;
    }
  letters[n] = '\0';
  for (guint i = 0; i < G_N_ELEMENTS (map); i++)
    if (g_str_has_prefix (letters, map[i].prefix))
      {
        *kind = map[i].kind;
        return TRUE;
      }
  return FALSE;
}

static gboolean
is_nccl_kernel (const char *name)
{
  return g_str_has_prefix (name, "ncclKernel_") || g_str_has_prefix (name, "ncclDevKernel_");
}

/* The collective a CPU span is, with the prefix that says so. */
typedef enum
{
  CPU_NONE = 0,
  CPU_PARAM_COMMS,   /* record_param_comms: the arguments */
  CPU_NCCL,          /* nccl:all_reduce: the input shapes */
  CPU_GLOO,          /* gloo:all_reduce: a CPU collective */
  CPU_C10D,          /* c10d::allreduce_ */
} CpuComm;

static CpuComm
cpu_comm_of (const char *name)
{
  if (strcmp (name, "record_param_comms") == 0)
    return CPU_PARAM_COMMS;
  if (g_str_has_prefix (name, "nccl:"))
    return CPU_NCCL;
  if (g_str_has_prefix (name, "gloo:"))
    return CPU_GLOO;
  if (g_str_has_prefix (name, "c10d::"))
    return CPU_C10D;
  return CPU_NONE;
}

static guint
dtype_size (const char *s,
            gsize       len)
{
  static const struct { const char *name; guint size; } map[] = {
    { "float", 4 }, { "float32", 4 }, { "int", 4 }, { "int32", 4 }, { "uint32", 4 },
    { "double", 8 }, { "float64", 8 }, { "long", 8 }, { "int64", 8 }, { "uint64", 8 },
    { "half", 2 }, { "float16", 2 }, { "bfloat16", 2 }, { "short", 2 }, { "int16", 2 },
    { "signed char", 1 }, { "unsigned char", 1 }, { "char", 1 }, { "byte", 1 }, { "bool", 1 },
    { "int8", 1 }, { "uint8", 1 }, { "int8_t", 1 }, { "uint8_t", 1 },
  };
  char lower[32];

  if (len >= sizeof lower)
    return 0;
  for (gsize i = 0; i < len; i++)
    lower[i] = g_ascii_tolower (s[i]);
  lower[len] = '\0';
  for (guint i = 0; i < G_N_ELEMENTS (map); i++)
    if (strcmp (lower, map[i].name) == 0)
      return map[i].size;
  if (g_str_has_prefix (lower, "float8"))
    return 1;
  return 0;
}

/* The elements of the first tensor of "Input Dims": [[2, 1024, 34820], ...]. */
static guint64
first_dims_elements (const char *text,
                     gsize       len)
{
  const char *p = text, *end = text + len;
  guint64 n = 1;
  gboolean any = FALSE;

  while (p < end && *p != '[')
    p++;
  p++;
  while (p < end && *p != '[' && *p != ']')
    p++;
  if (p >= end || *p != '[')
    return 0;
  p++;
  while (p < end && *p != ']')
    {
      if (g_ascii_isdigit (*p))
        {
          guint64 v = g_ascii_strtoull (p, (char **)&p, 10);

          if (v > 0 && n > G_MAXUINT64 / v)
            return 0;
          n *= v;
          any = TRUE;
        }
      else
        p++;
    }
  return any ? n : 0;
}

/* The first string of an "Input type" list: ["float", ...]. */
static guint
first_type_size (const char *text,
                 gsize       len)
{
  const char *q = memchr (text, '"', len);
  const char *e;

  if (q == NULL)
    return 0;
  e = memchr (q + 1, '"', len - (q + 1 - text));
  return e ? dtype_size (q + 1, e - (q + 1)) : 0;
}

/* In the analysis's strings: one pointer for equal texts. */
static const char *
intern_arg (KsAnalysis *self,
            const char *text,
            gsize       len)
{
  g_autofree char *s = g_strndup (text, len);

  return g_string_chunk_insert_const (self->strings, s);
}

/* What Kineto's arguments say of a collective (a kernel's own, or
 * record_param_comms's): kind, sizes, dtype, process group. */
static void
read_comm_args (KsAnalysis   *self,
                const char   *args,
                KsCollective *c,
                guint32       world_size)
{
  const char *v;
  gsize len;
  gint64 in = 0, out = 0, n = 0;
  guint size = 0;

  if (args == NULL)
    return;
  if ((v = ks_args_find (args, "Collective name", &len)) != NULL)
    kind_from_name (v, len, &c->kind);
  if ((v = ks_args_find (args, "dtype", &len)) != NULL)
    {
      size = dtype_size (v, len);
      c->dtype = intern_arg (self, v, len);
    }
  ks_args_get_int (args, "In msg nelems", &in);
  ks_args_get_int (args, "Out msg nelems", &out);
  if (size > 0 && MAX (in, out) > 0 && MAX (in, out) < G_MAXINT64 / 8)
    c->bytes = (guint64)MAX (in, out) * size;
  if (ks_args_get_int (args, "Group size", &n) && n > 0 && n <= G_MAXINT32)
    c->group_size = (guint32)n;
  else if (c->group_size == 0)
    c->group_size = world_size;
  if ((v = ks_args_find (args, "Process Group Name", &len)) != NULL && len < 256)
    c->process_group = intern_arg (self, v, len);
}

/* An nccl:* or gloo:* annotation's input shape, when no
 * record_param_comms said the size: the first input, times the ranks
 * for an all-gather (NCCL counts the gathered whole). */
static void
read_input_dims (KsAnalysis   *self,
                 const char   *args,
                 KsCollective *c)
{
  const char *dims, *types;
  gsize dims_len, types_len;
  guint64 elements;
  guint size;

  if (args == NULL || c->bytes > 0)
    return;
  dims = ks_args_find (args, "Input Dims", &dims_len);
  types = ks_args_find (args, "Input type", &types_len);
  if (dims == NULL || types == NULL)
    return;
  elements = first_dims_elements (dims, dims_len);
  size = first_type_size (types, types_len);
  if (elements == 0 || size == 0 || elements > G_MAXUINT64 / 8 / MAX (c->group_size, 1))
    return;
  c->bytes = elements * size;
  if (c->kind == KS_COLLECTIVE_ALL_GATHER && c->group_size > 1)
    c->bytes *= c->group_size;
  if (*c->dtype == '\0')
    {
      const char *q = memchr (types, '"', types_len);
      const char *e = q ? memchr (q + 1, '"', types_len - (q + 1 - types)) : NULL;

      if (e != NULL)
        c->dtype = intern_arg (self, q + 1, e - (q + 1));
    }
}

/* The CPU spans enclosing a launch: record_param_comms, nccl:*, c10d::. */
static void
read_cpu_side (KsAnalysis   *self,
               KsTrace      *trace,
               guint32       track_index,
               guint32       slice,
               KsCollective *c,
               guint32       world_size)
{
  const KsTrack *track = &trace->tracks[track_index];
  g_autoptr(GString) args_buf = g_string_new (NULL);
  g_autoptr(GString) shapes_buf = g_string_new (NULL);
  const char *shapes = NULL;
  gboolean have_params = FALSE;

  for (guint32 s = slice; s != KS_NO_INDEX; s = ks_track_parent_slice (track, s))
    {
      const char *name = ks_trace_string (trace, track->name_id[s]);
      guint8 kind;

      switch (cpu_comm_of (name))
        {
        case CPU_PARAM_COMMS:
          if (!have_params)
            read_comm_args (self, ks_trace_slice_args (trace, track, s, args_buf), c, world_size);
          have_params = TRUE;
          break;
        case CPU_NCCL:
        case CPU_GLOO:
          /* kept past the loop: its own buffer */
          if (shapes == NULL)
            shapes = ks_trace_slice_args (trace, track, s, shapes_buf);
          /* the annotation's name is the operation the user called:
           * all_to_all where the kernel is SendRecv */
          if (kind_from_name (name + 5, strlen (name + 5), &kind))
            c->kind = kind;
          break;
        case CPU_C10D:
        case CPU_NONE:
        default:
          break;
        }
    }
  if (c->group_size == 0)
    c->group_size = world_size;
  read_input_dims (self, shapes, c);
}

typedef struct
{
  Context    *ctx;
  KsAnalysis *self;
  guint32     n_groups;
  guint32    *rank_of_group;     /* group -> KsTrace.ranks index or KS_NO_INDEX */
  guint32     n_rows;            /* rank rows: n_ranks, or 1 */
  gboolean   *gpu_comms;         /* per rank row: has NCCL kernels */
  GHashTable *launch_by_ext;     /* (group << 32 | external id) -> (track << 32 | slice) + 1 of runtime calls */
} Comms;

static guint32
row_of_group (Comms   *cm,
              guint32  group)
{
  if (cm->ctx->trace->n_ranks == 0)
    return 0;
  return group < cm->n_groups ? cm->rank_of_group[group] : KS_NO_INDEX;
}

static guint32
world_size_of (Comms   *cm,
               guint32  row)
{
  KsTrace *trace = cm->ctx->trace;

  if (trace->n_ranks == 0 || row >= trace->n_ranks)
    return 0;
  return trace->ranks[row].world_size > 0 ? (guint32)trace->ranks[row].world_size : trace->n_ranks;
}

/* Runtime calls by External id, for kernels without a launch flow (HTA's
 * sampled traces keep the ids but drop the flows). */
static void
index_launches (Comms *cm)
{
  KsTrace *trace = cm->ctx->trace;

  cm->launch_by_ext = g_hash_table_new (g_int64_hash, g_int64_equal);
  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];

      if (track->kind != KS_TRACK_THREAD)
        continue;
      for (guint32 i = 0; i < track->n_slices; i++)
        if (track->slice_kind[i] == KS_SLICE_CUDA_RUNTIME && track->external_id[i] != 0)
          {
            gint64 *key = g_new (gint64, 2);

            key[0] = ((gint64)track->group << 32) | track->external_id[i];
            key[1] = (((gint64)t << 32) | i) + 1;
            g_hash_table_insert (cm->launch_by_ext, key, key);
          }
    }
}

static gboolean
find_launch (Comms         *cm,
             guint32        track_index,
             guint32        slice,
             guint32       *cpu_track,
             guint32       *cpu_slice)
{
  Context *ctx = cm->ctx;
  const KsTrack *track = &ctx->trace->tracks[track_index];
  gint64 key;
  const gint64 *found;

  if (ctx->launch_of_gpu[track_index] != NULL && ctx->launch_of_gpu[track_index][slice] != KS_NO_INDEX)
    {
      const KsFlow *flow = &ctx->trace->flows[ctx->launch_of_gpu[track_index][slice]];

      *cpu_track = flow->from_track;
      *cpu_slice = flow->from_slice;
      return TRUE;
    }
  if (track->external_id[slice] == 0)
    return FALSE;
  if (cm->launch_by_ext == NULL)
    index_launches (cm);
  key = ((gint64)track->group << 32) | track->external_id[slice];
  found = g_hash_table_lookup (cm->launch_by_ext, &key);
  if (found == NULL)
    return FALSE;
  *cpu_track = (guint32)((found[1] - 1) >> 32);
  *cpu_slice = (guint32)((found[1] - 1) & G_MAXUINT32);
  return TRUE;
}

/* A call of slice @i of @track, of no known kind, size or group yet. */
static void
collective_init (Comms        *cm,
                 KsCollective *c,
                 guint32       row,
                 guint32       track_index,
                 guint32       i,
                 gboolean      on_gpu)
{
  const KsTrack *track = &cm->ctx->trace->tracks[track_index];

  memset (c, 0, sizeof *c);
  c->rank = cm->ctx->trace->n_ranks > 0 ? row : KS_NO_INDEX;
  c->kind = KS_COLLECTIVE_OTHER;
  c->on_gpu = on_gpu;
  c->track = track_index;
  c->slice = i;
  c->start = track->start[i];
  c->end = track->end[i];
  c->wait_ns = -1;
  c->last_rank = KS_NO_INDEX;
  c->process_group = c->dtype = g_string_chunk_insert_const (cm->self->strings, "");
}

static void
collect_gpu (Comms *cm)
{
  KsTrace *trace = cm->ctx->trace;
  g_autoptr(GString) args = g_string_new (NULL);

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];
      guint32 row = row_of_group (cm, track->group);

      if (track->kind != KS_TRACK_STREAM || row == KS_NO_INDEX)
        continue;
      for (guint32 i = 0; i < track->n_slices; i++)
        {
          const char *name;
          KsCollective c;
          guint32 cpu_track, cpu_slice;

          if (track->slice_kind[i] != KS_SLICE_KERNEL)
            continue;
          name = ks_trace_string (trace, track->name_id[i]);
          if (!is_nccl_kernel (name))
            continue;
          collective_init (cm, &c, row, t, i, TRUE);
          kind_from_name (name + strcspn (name, "_") + 1, strlen (name), &c.kind);
          read_comm_args (cm->self, ks_trace_slice_args (trace, track, i, args), &c, world_size_of (cm, row));
          if (find_launch (cm, t, i, &cpu_track, &cpu_slice))
            read_cpu_side (cm->self, trace, cpu_track, cpu_slice, &c, world_size_of (cm, row));
          if (c.group_size == 0)
            c.group_size = world_size_of (cm, row);
          g_array_append_val (cm->self->collectives, c);
          cm->gpu_comms[row] = TRUE;
        }
    }
}

/* Ranks without NCCL kernels: gloo:* spans, else, on a rank with no GPU
 * work at all, the outermost c10d:: operations; they run on the CPU, so
 * their spans are the time. A rank with GPU work communicates through
 * its NCCL kernels: its c10d:: spans without any are no collective
 * (NCCL with one rank launches none). */
static void
collect_cpu (Comms *cm)
{
  KsTrace *trace = cm->ctx->trace;

  gboolean *has_gpu = g_new0 (gboolean, cm->n_rows);

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      guint32 row = row_of_group (cm, trace->tracks[t].group);

      if (trace->tracks[t].kind == KS_TRACK_STREAM && trace->tracks[t].n_slices > 0 && row != KS_NO_INDEX)
        has_gpu[row] = TRUE;
    }

  for (guint pass = 0; pass < 2; pass++)
    {
      gboolean *found = g_new0 (gboolean, cm->n_rows);

      for (guint i = 0; i < cm->self->collectives->len; i++)
        {
          const KsCollective *c = &g_array_index (cm->self->collectives, KsCollective, i);

          if (!c->on_gpu)
            found[c->rank == KS_NO_INDEX ? 0 : c->rank] = TRUE;
        }
      for (guint32 t = 0; t < trace->n_tracks; t++)
        {
          const KsTrack *track = &trace->tracks[t];
          guint32 row = row_of_group (cm, track->group);

          if (track->kind != KS_TRACK_THREAD || row == KS_NO_INDEX || cm->gpu_comms[row] || found[row] ||
              (pass == 1 && has_gpu[row]))
            continue;
          for (guint32 i = 0; i < track->n_slices; i++)
            {
              const char *name = ks_trace_string (trace, track->name_id[i]);
              CpuComm which = cpu_comm_of (name);
              guint32 parent;
              KsCollective c;

              if (which != (pass == 0 ? CPU_GLOO : CPU_C10D))
                continue;
              parent = ks_track_parent_slice (track, i);
              if (which == CPU_C10D && parent != KS_NO_INDEX
                  && cpu_comm_of (ks_trace_string (trace, track->name_id[parent])) == CPU_C10D)
                continue;
              collective_init (cm, &c, row, t, i, FALSE);
              kind_from_name (name + (which == CPU_GLOO ? 5 : 6), strlen (name), &c.kind);
              read_cpu_side (cm->self, trace, t, i, &c, world_size_of (cm, row));
              g_array_append_val (cm->self->collectives, c);
            }
        }
      g_free (found);
    }
  g_free (has_gpu);
}

/* A collective counts towards waiting when its rank was training: in one
 * of its steps. A recording of the whole program also has the start-up's
 * broadcasts and the closing barrier, where the ranks wait for the
 * slowest to start or to finish, not for the slowest step. */
static void
mark_in_steps (Comms *cm)
{
  KsTrace *trace = cm->ctx->trace;
  KsAnalysis *self = cm->self;
  gboolean *has_steps = g_new0 (gboolean, cm->n_rows);

  for (guint i = 0; i < self->steps->len; i++)
    {
      guint32 r = row_of_group (cm, trace->tracks[g_array_index (self->steps, KsStep, i).track].group);

      if (r != KS_NO_INDEX)
        has_steps[r] = TRUE;
    }
  for (guint c = 0; c < self->collectives->len; c++)
    {
      KsCollective *x = &g_array_index (self->collectives, KsCollective, c);
      guint32 r = x->rank == KS_NO_INDEX ? 0 : x->rank;

      x->in_steps = !has_steps[r];
      for (guint i = 0; i < self->steps->len && !x->in_steps; i++)
        {
          const KsStep *s = &g_array_index (self->steps, KsStep, i);

          x->in_steps = x->start >= s->start && x->start < s->end
                        && row_of_group (cm, trace->tracks[s->track].group) == r;
        }
    }
  g_free (has_steps);
}

static int
compare_collectives (gconstpointer a,
                     gconstpointer b)
{
  const KsCollective *ca = a;
  const KsCollective *cb = b;

  if (ca->rank != cb->rank)
    return ca->rank < cb->rank ? -1 : 1;
  if (ca->start != cb->start)
    return ca->start < cb->start ? -1 : 1;
  return (ca->end > cb->end) - (ca->end < cb->end);
}

static void
add_comm_stats (KsAnalysis *self)
{
  g_autoptr(GHashTable) index = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  GArray *rows = self->comm_stats;

  for (guint i = 0; i < self->collectives->len; i++)
    {
      const KsCollective *c = &g_array_index (self->collectives, KsCollective, i);
      g_autofree char *key = g_strdup_printf ("%u/%" G_GUINT64_FORMAT "/%u/%d", c->kind, c->bytes,
                                              c->group_size, c->on_gpu);
      gpointer found;
      KsCommStats *row;
      gint64 dur = c->end - c->start;

      if (g_hash_table_lookup_extended (index, key, NULL, &found))
        row = &g_array_index (rows, KsCommStats, GPOINTER_TO_UINT (found));
      else
        {
          KsCommStats fresh = { .kind = c->kind, .bytes = c->bytes, .group_size = c->group_size,
                                .on_gpu = c->on_gpu, .min_ns = G_MAXINT64 };

          g_hash_table_insert (index, g_steal_pointer (&key), GUINT_TO_POINTER (rows->len));
          g_array_append_val (rows, fresh);
          row = &g_array_index (rows, KsCommStats, rows->len - 1);
        }
      row->count++;
      row->total_ns += dur;
      row->min_ns = MIN (row->min_ns, dur);
      row->max_ns = MAX (row->max_ns, dur);
    }
  for (guint i = 0; i < rows->len; i++)
    {
      KsCommStats *row = &g_array_index (rows, KsCommStats, i);
      double mean = (double)row->total_ns / row->count;

      /* bytes per nanosecond are 10^9 bytes a second */
      row->algbw_gbps = row->bytes > 0 && mean > 0 ? row->bytes / mean : -1;
      row->busbw_gbps = row->algbw_gbps >= 0
                          ? row->algbw_gbps * ks_collective_bus_factor (row->kind, row->group_size)
                          : -1;
    }
}

static int
compare_comm_stats (gconstpointer a,
                    gconstpointer b)
{
  const KsCommStats *sa = a;
  const KsCommStats *sb = b;

  if (sa->total_ns != sb->total_ns)
    return sa->total_ns > sb->total_ns ? -1 : 1;
  if (sa->kind != sb->kind)
    return sa->kind < sb->kind ? -1 : 1;
  return (sa->bytes > sb->bytes) - (sa->bytes < sb->bytes);
}

typedef struct
{
  GArray *window;    /* KsTimeRange of its steps */
  GArray *kernels;   /* all kernels */
  GArray *busy;      /* kernels and copies, when the options count copies */
  GArray *compute;   /* kernels that are not collectives */
  GArray *comm;      /* collectives */
  gint64  first;
  gint64  last;
} RankRanges;

static gint64
measure_in (GArray     *ranges,
            KsRangeSet *window)
{
  KsRangeSet set;
  gint64 v;

  ks_range_set_init (&set);
  ks_range_set_add_unsorted (&set, (KsTimeRange *)(gpointer)ranges->data, ranges->len);
  ks_range_set_seal (&set);
  v = ks_range_set_measure_set (&set, window);
  ks_range_set_clear (&set);
  return v;
}

/* Each step of rank row @r: the same measures within it, and the wait of
 * the collectives that start in it. */
static void
add_rank_steps (Comms            *cm,
                guint             r,
                const KsRangeSet *comm,
                const KsRangeSet *compute,
                const KsRangeSet *both)
{
  KsTrace *trace = cm->ctx->trace;
  KsAnalysis *self = cm->self;
  const KsCollective *cs = (const KsCollective *)(gpointer)self->collectives->data;
  guint n_cs = self->collectives->len;

  for (guint i = 0; i < self->steps->len; i++)
    {
      const KsStep *s = &g_array_index (self->steps, KsStep, i);
      KsRankStep row;
      gint64 covered;

      if (row_of_group (cm, trace->tracks[s->track].group) != r || !ks_analysis_step_counts (self, s))
        continue;
      memset (&row, 0, sizeof row);
      row.rank_row = r;
      row.rank = trace->n_ranks > 0 ? trace->ranks[r].rank : -1;
      row.name = s->name;
      row.start = s->start;
      row.end = s->end;
      row.comm_ns = ks_range_set_measure (comm, s->start, s->end);
      row.compute_ns = ks_range_set_measure (compute, s->start, s->end);
      covered = row.comm_ns + row.compute_ns - ks_range_set_measure (both, s->start, s->end);
      row.exposed_comm_ns = row.comm_ns - covered;
      row.overlap_pct = row.comm_ns > 0 ? 100.0 * covered / row.comm_ns : 0;
      for (guint c = 0; c < n_cs; c++)
        if ((cs[c].rank == KS_NO_INDEX ? 0 : cs[c].rank) == r && cs[c].start >= s->start && cs[c].start < s->end
            && cs[c].wait_ns > 0)
          row.wait_ns += cs[c].wait_ns;
      g_array_append_val (self->rank_steps, row);
    }
}

static void
add_rank_stats (Comms        *cm,
                const gint64 *wait_caused,
                const gint64 *clock_offsets)
{
  KsTrace *trace = cm->ctx->trace;
  KsAnalysis *self = cm->self;
  RankRanges *rr = g_new0 (RankRanges, cm->n_rows);
  guint32 busy_kinds = ks_analysis_options_busy_kinds (&cm->ctx->options);

  for (guint r = 0; r < cm->n_rows; r++)
    {
      KsRankStats row;

      memset (&row, 0, sizeof row);
      row.rank_index = trace->n_ranks > 0 ? r : KS_NO_INDEX;
      row.rank = trace->n_ranks > 0 ? trace->ranks[r].rank : -1;
      if (trace->n_ranks > 0 && trace->ranks[r].file != 0)
        row.file = ks_trace_string (trace, trace->ranks[r].file);
      if (trace->n_ranks > 0 && trace->ranks[r].host != 0)
        row.host = ks_trace_string (trace, trace->ranks[r].host);
      row.clock_offset_ns = clock_offsets[r];
      row.wait_caused_ns = wait_caused[r];
      g_array_append_val (self->rank_stats, row);
      rr[r].window = g_array_new (FALSE, FALSE, sizeof (KsTimeRange));
      rr[r].kernels = g_array_new (FALSE, FALSE, sizeof (KsTimeRange));
      rr[r].compute = g_array_new (FALSE, FALSE, sizeof (KsTimeRange));
      rr[r].busy = g_array_new (FALSE, FALSE, sizeof (KsTimeRange));
      rr[r].comm = g_array_new (FALSE, FALSE, sizeof (KsTimeRange));
      rr[r].first = G_MAXINT64;
      rr[r].last = G_MININT64;
    }

  for (guint i = 0; i < self->steps->len; i++)
    {
      const KsStep *s = &g_array_index (self->steps, KsStep, i);
      guint32 r = row_of_group (cm, trace->tracks[s->track].group);
      KsTimeRange range = { s->start, s->end };
      KsRankStats *row;

      if (r == KS_NO_INDEX || !ks_analysis_step_counts (self, s))
        continue;
      row = &g_array_index (self->rank_stats, KsRankStats, r);
      row->steps++;
      row->step_mean_ns += s->end - s->start;   /* the sum until divided below */
      g_array_append_val (rr[r].window, range);
    }

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];
      guint32 r = row_of_group (cm, track->group);

      if (track->kind != KS_TRACK_STREAM || r == KS_NO_INDEX)
        continue;
      for (guint32 i = 0; i < track->n_slices; i++)
        {
          KsTimeRange range = { track->start[i], track->end[i] };

          /* busy time as the Summary counts it: with copies if asked */
          if (busy_kinds != KS_SLICE_KIND_BIT (KS_SLICE_KERNEL) &&
              (busy_kinds & KS_SLICE_KIND_BIT (track->slice_kind[i])))
            g_array_append_val (rr[r].busy, range);
          if (track->slice_kind[i] != KS_SLICE_KERNEL)
            continue;
          g_array_append_val (rr[r].kernels, range);
          if (!is_nccl_kernel (ks_trace_string (trace, track->name_id[i])))
            g_array_append_val (rr[r].compute, range);
          rr[r].first = MIN (rr[r].first, range.start);
          rr[r].last = MAX (rr[r].last, range.end);
        }
    }

  for (guint i = 0; i < self->collectives->len; i++)
    {
      const KsCollective *c = &g_array_index (self->collectives, KsCollective, i);
      guint r = c->rank == KS_NO_INDEX ? 0 : c->rank;
      KsTimeRange range = { c->start, c->end };
      KsRankStats *row = &g_array_index (self->rank_stats, KsRankStats, r);

      g_array_append_val (rr[r].comm, range);
      rr[r].first = MIN (rr[r].first, range.start);
      rr[r].last = MAX (rr[r].last, range.end);
      row->collectives++;
      if (c->wait_ns > 0 && c->in_steps)
        row->wait_ns += c->wait_ns;
    }

  for (guint r = 0; r < cm->n_rows; r++)
    {
      KsRankStats *row = &g_array_index (self->rank_stats, KsRankStats, r);
      KsRangeSet window, comm, compute;
      gint64 covered;

      ks_range_set_init (&window);
      if (rr[r].window->len > 0)
        ks_range_set_add_unsorted (&window, (KsTimeRange *)(gpointer)rr[r].window->data, rr[r].window->len);
      else if (rr[r].first < rr[r].last)
        ks_range_set_add (&window, rr[r].first, rr[r].last);
      ks_range_set_seal (&window);
      row->window_ns = ks_range_set_total (&window);
      if (row->steps > 0)
        row->step_mean_ns /= row->steps;

      for (guint i = 0; i < rr[r].kernels->len; i++)
        {
          const KsTimeRange *k = &g_array_index (rr[r].kernels, KsTimeRange, i);

          row->kernels++;
          row->kernel_time_ns += k->end - k->start;
        }
      ks_range_set_init (&comm);
      ks_range_set_add_unsorted (&comm, (KsTimeRange *)(gpointer)rr[r].comm->data, rr[r].comm->len);
      ks_range_set_seal (&comm);
      ks_range_set_init (&compute);
      ks_range_set_add_unsorted (&compute, (KsTimeRange *)(gpointer)rr[r].compute->data, rr[r].compute->len);
      ks_range_set_seal (&compute);
      /* without NCCL kernels every kernel is compute: one union, not two */
      if (row->window_ns == 0)
        row->busy_pct = 0;
      else if (rr[r].busy->len > 0)
        row->busy_pct = 100.0 * measure_in (rr[r].busy, &window) / row->window_ns;
      else if (rr[r].compute->len == rr[r].kernels->len)
        row->busy_pct = 100.0 * ks_range_set_measure_set (&compute, &window) / row->window_ns;
      else
        row->busy_pct = 100.0 * measure_in (rr[r].kernels, &window) / row->window_ns;
      row->compute_ns = ks_range_set_measure_set (&compute, &window);
      row->comm_ns = ks_range_set_measure_set (&comm, &window);
      {
        KsRangeSet covered_set;

        /* comm ∩ compute ∩ window, as |comm ∩ window| + |compute ∩ window| - |(comm ∪ compute) ∩ window| */
        ks_range_set_union (&comm, &compute, &covered_set);
        covered = row->comm_ns + row->compute_ns - ks_range_set_measure_set (&covered_set, &window);
        add_rank_steps (cm, r, &comm, &compute, &covered_set);
        ks_range_set_clear (&covered_set);
      }
      row->exposed_comm_ns = row->comm_ns - covered;
      row->overlap_pct = row->comm_ns > 0 ? 100.0 * covered / row->comm_ns : 0;

      ks_range_set_clear (&window);
      ks_range_set_clear (&comm);
      ks_range_set_clear (&compute);
      g_array_unref (rr[r].window);
      g_array_unref (rr[r].kernels);
      g_array_unref (rr[r].compute);
      g_array_unref (rr[r].busy);
      g_array_unref (rr[r].comm);
    }
  g_free (rr);
}

void
_ks_analysis_comms (KsAnalysis *self,
                    Context    *ctx)
{
  KsTrace *trace = ctx->trace;
  Comms cm = { ctx, self };
  gint64 *wait_caused;
  gint64 *clock_offsets;

  for (guint32 t = 0; t < trace->n_tracks; t++)
    cm.n_groups = MAX (cm.n_groups, trace->tracks[t].group + 1);
  cm.rank_of_group = g_new (guint32, MAX (cm.n_groups, 1));
  for (guint32 g = 0; g < cm.n_groups; g++)
    cm.rank_of_group[g] = ks_trace_rank_of_group (trace, g);
  cm.n_rows = MAX (trace->n_ranks, 1);
  cm.gpu_comms = g_new0 (gboolean, cm.n_rows);
  wait_caused = g_new0 (gint64, cm.n_rows);

  collect_gpu (&cm);
  collect_cpu (&cm);
  g_array_sort (self->collectives, compare_collectives);
  mark_in_steps (&cm);
  clock_offsets = g_new0 (gint64, cm.n_rows);
  if (trace->n_ranks > 1)
    {
      KsCollective *cs = (KsCollective *)(gpointer)self->collectives->data;
      guint32 *hosts = g_new (guint32, cm.n_rows);
      /* the folder's files are already on one clock by their base times
       * when they say them: offsets of 0 from there */
      gint64 *utc = trace->start_utc_ns != 0 ? g_new0 (gint64, cm.n_rows) : NULL;

      for (guint r = 0; r < cm.n_rows; r++)
        hosts[r] = trace->ranks[r].host != 0 ? trace->ranks[r].host : G_MAXUINT32;
      ks_collectives_number (cs, self->collectives->len);
      ks_collectives_align (cs, self->collectives->len, cm.n_rows, hosts, utc, clock_offsets, &self->clock);
      ks_collectives_match (cs, self->collectives->len, clock_offsets, wait_caused);
      g_free (hosts);
      g_free (utc);
    }
  else
    ks_collectives_number ((KsCollective *)(gpointer)self->collectives->data, self->collectives->len);
  add_comm_stats (self);
  g_array_sort (self->comm_stats, compare_comm_stats);
  add_rank_stats (&cm, wait_caused, clock_offsets);

  for (guint r = 0; r < self->rank_stats->len; r++)
    {
      const KsRankStats *row = &g_array_index (self->rank_stats, KsRankStats, r);

      if (row->wait_caused_ns > 0
          && (self->straggler == KS_NO_INDEX
              || row->wait_caused_ns > g_array_index (self->rank_stats, KsRankStats, self->straggler).wait_caused_ns))
        self->straggler = r;
    }

  if (cm.launch_by_ext != NULL)
    {
      GHashTableIter iter;
      gpointer key;

      g_hash_table_iter_init (&iter, cm.launch_by_ext);
      while (g_hash_table_iter_next (&iter, &key, NULL))
        g_free (key);
      g_hash_table_unref (cm.launch_by_ext);
    }
  g_free (cm.rank_of_group);
  g_free (cm.gpu_comms);
  g_free (wait_caused);
  g_free (clock_offsets);
}
