/* ks-analysis-operators.c: operator and kernel tables
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include <string.h>

#include "ks-analysis-private.h"

#define STACK_DEPTH 256

typedef struct
{
  guint32     name;
  const char *dims;
  gsize       len;
} ShapeKey;

static guint
shape_key_hash (gconstpointer p)
{
  const ShapeKey *k = p;
  guint h = k->name * 2654435761u;

  for (gsize i = 0; i < k->len; i++)
    h = h * 31 + (guchar)k->dims[i];
  return h;
}

static gboolean
shape_key_equal (gconstpointer a,
                 gconstpointer b)
{
  const ShapeKey *ka = a;
  const ShapeKey *kb = b;

  return ka->name == kb->name && ka->len == kb->len && memcmp (ka->dims, kb->dims, ka->len) == 0;
}

/* Whether an "Input type" list says float32 and nothing of lower precision. */
static void
input_precision (const char *args,
                 gboolean   *fp32,
                 gboolean   *lowp)
{
  gsize len;
  const char *types = ks_args_find (args, "Input type", &len);
  g_autofree char *text = NULL;

  *fp32 = *lowp = FALSE;
  if (types == NULL)
    return;
  text = g_strndup (types, len);
  *lowp = strstr (text, "Half") != NULL || strstr (text, "BFloat16") != NULL;
  *fp32 = !*lowp && strstr (text, "\"float\"") != NULL;
}

static int
compare_operators (gconstpointer a,
                   gconstpointer b)
{
  const KsOperatorStats *oa = a;
  const KsOperatorStats *ob = b;

  if (oa->device_total_ns != ob->device_total_ns)
    return oa->device_total_ns > ob->device_total_ns ? -1 : 1;
  if (oa->host_total_ns != ob->host_total_ns)
    return oa->host_total_ns > ob->host_total_ns ? -1 : 1;
  if (oa->name != ob->name)
    return oa->name < ob->name ? -1 : 1;
  if (oa->input_dims == NULL || ob->input_dims == NULL)
    return (oa->input_dims != NULL) - (ob->input_dims != NULL);
  return strcmp (oa->input_dims, ob->input_dims);
}

/* The Python frames around @slice, innermost first: the key of its
 * call stack (name, count, frames). */
static guint
python_stack (const KsTrack *track,
              guint32        slice,
              guint32       *key)
{
  guint n = 0;

  key[0] = track->name_id[slice];
  for (guint32 p = ks_track_parent_slice (track, slice);
       p != KS_NO_INDEX && n < KS_STACK_MAX_FRAMES;
       p = ks_track_parent_slice (track, p))
    if (track->slice_kind[p] == KS_SLICE_PYTHON && track->end[p] >= track->end[slice])
      key[2 + n++] = track->name_id[p];
  key[1] = n;
  return n;
}

static guint
stack_key_hash (gconstpointer p)
{
  const guint32 *k = p;

  return _ks_hash_words (k, 2 + k[1]);
}

static gboolean
stack_key_equal (gconstpointer a,
                 gconstpointer b)
{
  const guint32 *x = a;
  const guint32 *y = b;

  return x[1] == y[1] && memcmp (x, y, sizeof (guint32) * (2 + x[1])) == 0;
}

static int
compare_stacks (gconstpointer a,
                gconstpointer b)
{
  const KsOperatorStack *x = a;
  const KsOperatorStack *y = b;

  if (x->host_total_ns != y->host_total_ns)
    return x->host_total_ns > y->host_total_ns ? -1 : 1;
  return (x->name > y->name) - (x->name < y->name);
}

/* An operator nested alone in one of the same name (aten::div calling
 * aten::div): PyTorch's _remove_dup_nodes and the TensorBoard plugin
 * count the two as one call, so it is no call of its own. */
static gboolean
is_repeat (const KsTrack *track,
           guint32        slice,
           guint32        parent)
{
  guint32 next;

  if (parent == KS_NO_INDEX || ks_track_parent_slice (track, slice) != parent ||
      track->slice_kind[parent] != KS_SLICE_CPU_OP || track->name_id[parent] != track->name_id[slice])
    return FALSE;
  /* the parent's only child: none before it (it would come first in
   * start order) nor after it */
  if (slice != parent + 1)
    return FALSE;
  for (next = slice + 1; next < track->n_slices && track->depth[next] > track->depth[slice]; next++)
    ;
  return next >= track->n_slices || track->depth[next] <= track->depth[parent] ||
         track->start[next] >= track->end[parent];
}

static void
count_call (KsOperatorStats *op,
            const KsTrack   *track,
            guint32          slice,
            gint64           dur)
{
  gint64 thread_dur;

  op->calls++;
  op->host_total_ns += dur;
  op->host_self_ns += dur;
  if (track->n_thread_times > 0 && ks_track_get_thread_time (track, slice, NULL, &thread_dur) && thread_dur >= 0)
    {
      op->thread_total_ns += thread_dur;
      op->thread_calls++;
    }
}

void
_ks_analysis_operators (KsAnalysis *self,
                        Context    *ctx)
{
  KsTrace *trace = ctx->trace;
  g_autofree guint32 *by_name = g_new0 (guint32, MAX (trace->n_strings, 1)); /* index + 1 */
  g_autoptr(GHashTable) by_shape = g_hash_table_new_full (shape_key_hash, shape_key_equal, g_free, NULL);
  g_autoptr(GArray) longest_name = g_array_new (FALSE, TRUE, sizeof (gint64));
  g_autoptr(GArray) longest_shape = g_array_new (FALSE, TRUE, sizeof (gint64));
  GArray *longest[2] = { longest_name, longest_shape };
  GArray *ops_name = self->operators[KS_OPERATOR_BY_NAME];
  GArray *ops_shape = self->operators[KS_OPERATOR_BY_NAME_AND_SHAPE];
  g_autoptr(GHashTable) stacks = g_hash_table_new_full (stack_key_hash, stack_key_equal, g_free, NULL);
  g_autoptr(GString) args_buf = g_string_new (NULL);

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];
      const guint32 *launch = ctx->launch_of_cpu[t];
      guint32 group_name[STACK_DEPTH];
      guint32 group_shape[STACK_DEPTH];
      gint16 near_op[STACK_DEPTH];     /* depth of the nearest operator at or above, -1 */
      gint16 near_api[STACK_DEPTH];    /* depth of the nearest CUDA call at or above, -1 */
      gint16 tc_root[STACK_DEPTH];     /* depth of the outermost eligible operator, -1 */
      gboolean tc_fp32[STACK_DEPTH];
      guint32 stack[STACK_DEPTH];
      guint32 stack_row[STACK_DEPTH];  /* the outermost operator's call-stack row + 1, 0 none */
      guint32 last_tc_root = KS_NO_INDEX;
      gboolean skipped[STACK_DEPTH];

      if (track->kind != KS_TRACK_THREAD)
        continue;

      for (guint32 s = 0; s < track->n_slices; s++)
        {
          guint d = track->depth[s];
          gint16 parent_op = d > 0 ? near_op[d - 1] : -1;
          gint16 parent_api = d > 0 ? near_api[d - 1] : -1;
          gint16 parent_tc = d > 0 ? tc_root[d - 1] : -1;
          KsSliceKind kind = track->slice_kind[s];
          gint64 dur = track->end[s] - track->start[s];
          guint32 first_flow = KS_NO_INDEX;
          guint n_launched;

          if (d >= STACK_DEPTH)
            continue;
          /* a warm-up call, or one inside such a call */
          skipped[d] = _ks_context_in_warmup (ctx, track->start[s]) || (d > 0 && skipped[d - 1]);
          if (skipped[d])
            {
              /* counted, so that the report can say what it left out */
              if (kind == KS_SLICE_CPU_OP)
                self->warmup.operator_calls++;
              continue;
            }
          stack[d] = s;
          near_op[d] = parent_op;
          near_api[d] = parent_api;
          stack_row[d] = d > 0 ? stack_row[d - 1] : 0;
          tc_root[d] = parent_tc;
          tc_fp32[d] = d > 0 ? tc_fp32[d - 1] : FALSE;

          if (kind == KS_SLICE_CPU_OP && is_repeat (track, s, parent_op >= 0 ? stack[parent_op] : KS_NO_INDEX))
            {
              /* one call with its parent (PyTorch's _remove_dup_nodes):
               * what it holds and launches is the parent's */
              near_op[d] = parent_op;
              g_array_index (ops_name, KsOperatorStats, group_name[parent_op]).merged_calls++;
              g_array_index (ops_shape, KsOperatorStats, group_shape[parent_op]).merged_calls++;
            }
          else if (kind == KS_SLICE_CPU_OP)
            {
              const char *args = ks_trace_slice_args (trace, track, s, args_buf);
              guint32 name = track->name_id[s];
              ShapeKey key;
              gpointer found;
              gsize len = 0;
              KsOperatorStats *op;
              guint gi;

              /* by name */
              if (by_name[name] == 0)
                {
                  KsOperatorStats fresh = { 0 };
                  gint64 zero = -1;

                  fresh.name = name;
                  fresh.tc_eligible = (ctx->name_flags[name] & NAME_TC_ELIGIBLE) != 0;
                  fresh.longest_track = KS_NO_INDEX;
                  fresh.longest_slice = KS_NO_INDEX;
                  g_array_append_val (ops_name, fresh);
                  g_array_append_val (longest[0], zero);
                  by_name[name] = ops_name->len;
                }
              gi = by_name[name] - 1;
              op = &g_array_index (ops_name, KsOperatorStats, gi);
              count_call (op, track, s, dur);
              if (dur > g_array_index (longest[0], gint64, gi))
                {
                  g_array_index (longest[0], gint64, gi) = dur;
                  op->longest_track = t;
                  op->longest_slice = s;
                }
              group_name[d] = gi;

              /* by name and input shapes */
              key.name = name;
              key.dims = ks_args_find (args, "Input Dims", &len);
              key.len = key.dims ? len : 0;
              if (key.dims == NULL)
                key.dims = "";
              if (!g_hash_table_lookup_extended (by_shape, &key, NULL, &found))
                {
                  KsOperatorStats fresh = { 0 };
                  ShapeKey *stored = g_new (ShapeKey, 1);
                  gint64 zero = -1;

                  fresh.name = name;
                  fresh.tc_eligible = (ctx->name_flags[name] & NAME_TC_ELIGIBLE) != 0;
                  fresh.input_dims = g_string_chunk_insert_len (self->strings, key.dims, key.len);
                  fresh.longest_track = KS_NO_INDEX;
                  fresh.longest_slice = KS_NO_INDEX;
                  g_array_append_val (ops_shape, fresh);
                  g_array_append_val (longest[1], zero);
                  stored->name = name;
                  stored->dims = fresh.input_dims;
                  stored->len = key.len;
                  found = GUINT_TO_POINTER (ops_shape->len);
                  g_hash_table_insert (by_shape, stored, found);
                }
              gi = GPOINTER_TO_UINT (found) - 1;
              op = &g_array_index (ops_shape, KsOperatorStats, gi);
              count_call (op, track, s, dur);
              if (dur > g_array_index (longest[1], gint64, gi))
                {
                  g_array_index (longest[1], gint64, gi) = dur;
                  op->longest_track = t;
                  op->longest_slice = s;
                }
              group_shape[d] = gi;

              if (parent_op >= 0)
                {
                  g_array_index (ops_name, KsOperatorStats, group_name[parent_op]).host_self_ns -= dur;
                  g_array_index (ops_shape, KsOperatorStats, group_shape[parent_op]).host_self_ns -= dur;
                }
              near_op[d] = d;

              /* the outermost operator's Python call stack */
              if (parent_op < 0)
                {
                  guint32 skey[2 + KS_STACK_MAX_FRAMES];
                  gpointer row;

                  stack_row[d] = 0;
                  if (python_stack (track, s, skey) > 0)
                    {
                      if (!g_hash_table_lookup_extended (stacks, skey, NULL, &row))
                        {
                          KsOperatorStack fresh;

                          memset (&fresh, 0, sizeof fresh);
                          fresh.name = skey[0];
                          fresh.n_frames = skey[1];
                          memcpy (fresh.frames, skey + 2, sizeof (guint32) * skey[1]);
                          g_array_append_val (self->operator_stacks, fresh);
                          row = GUINT_TO_POINTER (self->operator_stacks->len);
                          g_hash_table_insert (stacks, g_memdup2 (skey, sizeof (guint32) * (2 + skey[1])), row);
                        }
                      stack_row[d] = GPOINTER_TO_UINT (row);
                      g_array_index (self->operator_stacks, KsOperatorStack, stack_row[d] - 1).calls++;
                      g_array_index (self->operator_stacks, KsOperatorStack, stack_row[d] - 1).host_total_ns += dur;
                    }
                }

              if (parent_tc < 0 && (ctx->name_flags[name] & NAME_TC_ELIGIBLE))
                {
                  gboolean fp32, lowp;

                  input_precision (args, &fp32, &lowp);
                  tc_root[d] = d;
                  tc_fp32[d] = fp32;
                  if (lowp)
                    ctx->tc_lowp_calls++;
                }
            }
          else if (kind == KS_SLICE_CUDA_RUNTIME || kind == KS_SLICE_CUDA_DRIVER)
            near_api[d] = d;

          /* PyTorch's self time (key_averages, the TensorBoard plugin):
           * the CUDA calls an operator made are its children too; the
           * outermost one counts, a driver call inside a runtime call
           * is already in it. */
          if ((kind == KS_SLICE_CUDA_RUNTIME || kind == KS_SLICE_CUDA_DRIVER) &&
              parent_op >= 0 && parent_api < parent_op)
            {
              g_array_index (ops_name, KsOperatorStats, group_name[parent_op]).host_self_ns -= dur;
              g_array_index (ops_shape, KsOperatorStats, group_shape[parent_op]).host_self_ns -= dur;
            }

          /* every operation a call launched: a graph launch has many */
          n_launched = (kind == KS_SLICE_CUDA_RUNTIME || kind == KS_SLICE_CUDA_DRIVER) && launch != NULL
                       ? _ks_call_launch_flows (ctx, t, s, &first_flow) : 0;
          for (guint32 f = first_flow; n_launched > 0 && f < first_flow + n_launched; f++)
            {
              const KsFlow *flow = &trace->flows[f];
              const KsTrack *gpu = &trace->tracks[flow->to_track];
              gint64 gd = gpu->end[flow->to_slice] - gpu->start[flow->to_slice];
              gint16 od = parent_op;
              gint64 tc;

              if (!_ks_context_device_wanted (ctx, gpu->device))
                continue;
              if (od >= 0)
                ctx->launch_operator[f] = track->name_id[stack[od]];
              tc = gpu->slice_kind[flow->to_slice] == KS_SLICE_KERNEL &&
                   _ks_name_uses_tensor_cores (ctx, gpu->name_id[flow->to_slice]) ? gd : 0;

              if (od >= 0)
                {
                  ctx->op_device_ns += gd;
                  g_array_index (ops_name, KsOperatorStats, group_name[od]).device_self_ns += gd;
                  g_array_index (ops_shape, KsOperatorStats, group_shape[od]).device_self_ns += gd;
                  g_array_index (ops_name, KsOperatorStats, group_name[od]).device_tc_self_ns += tc;
                  g_array_index (ops_shape, KsOperatorStats, group_shape[od]).device_tc_self_ns += tc;
                }
              while (od >= 0)
                {
                  g_array_index (ops_name, KsOperatorStats, group_name[od]).device_total_ns += gd;
                  g_array_index (ops_shape, KsOperatorStats, group_shape[od]).device_total_ns += gd;
                  g_array_index (ops_name, KsOperatorStats, group_name[od]).device_tc_total_ns += tc;
                  g_array_index (ops_shape, KsOperatorStats, group_shape[od]).device_tc_total_ns += tc;
                  od = od > 0 ? near_op[od - 1] : -1;
                }
              if (d > 0 && stack_row[d - 1] != 0)
                g_array_index (self->operator_stacks, KsOperatorStack, stack_row[d - 1] - 1).device_total_ns += gd;
              if (parent_tc >= 0)
                {
                  self->tensor_cores.eligible_ns += gd;
                  self->tensor_cores.eligible_tc_ns += tc;
                }

              if (parent_tc >= 0 && tc_fp32[d])
                {
                  guint32 root = stack[parent_tc];

                  ctx->tc_fp32_device_ns += gd;
                  if (root != last_tc_root)
                    {
                      KsTimeRange r = { track->start[root], track->end[root] };

                      g_array_append_val (ctx->tc_ranges, r);
                      last_tc_root = root;
                    }
                }
            }
        }
    }

  g_array_sort (ops_name, compare_operators);
  g_array_sort (ops_shape, compare_operators);
  g_array_sort (self->operator_stacks, compare_stacks);
}

/* Kernels */

typedef struct
{
  guint32 name;
  guint32 operator_name;
  guint32 grid[3];
  guint16 block[3];
  guint16 registers;
  guint32 shared_memory;
} GroupKey;

static guint
group_key_hash (gconstpointer p)
{
  return _ks_hash_words (p, sizeof (GroupKey) / sizeof (guint32));
}

static gboolean
group_key_equal (gconstpointer a,
                 gconstpointer b)
{
  return memcmp (a, b, sizeof (GroupKey)) == 0;
}

static void
count_in_group (GHashTable     *index,
                GArray         *groups,
                const GroupKey *key,
                gint64          dur)
{
  gpointer found;
  KsKernelGroup *g;

  if (!g_hash_table_lookup_extended (index, key, NULL, &found))
    {
      KsKernelGroup fresh;

      memset (&fresh, 0, sizeof fresh);
      fresh.name = key->name;
      fresh.operator_name = key->operator_name;
      memcpy (fresh.grid, key->grid, sizeof fresh.grid);
      memcpy (fresh.block, key->block, sizeof fresh.block);
      fresh.registers = key->registers;
      fresh.shared_memory = key->shared_memory;
      fresh.min_ns = G_MAXINT64;
      g_array_append_val (groups, fresh);
      found = GUINT_TO_POINTER (groups->len);
      g_hash_table_insert (index, g_memdup2 (key, sizeof *key), found);
    }
  g = &g_array_index (groups, KsKernelGroup, GPOINTER_TO_UINT (found) - 1);
  g->calls++;
  g->total_ns += dur;
  g->min_ns = MIN (g->min_ns, dur);
  g->max_ns = MAX (g->max_ns, dur);
}

static int
compare_groups (gconstpointer a,
                gconstpointer b)
{
  const KsKernelGroup *ga = a;
  const KsKernelGroup *gb = b;

  if (ga->total_ns != gb->total_ns)
    return ga->total_ns > gb->total_ns ? -1 : 1;
  if (ga->name != gb->name)
    return ga->name < gb->name ? -1 : 1;
  return (ga->operator_name > gb->operator_name) - (ga->operator_name < gb->operator_name);
}

static int
compare_kernels (gconstpointer a,
                 gconstpointer b)
{
  const KsKernelStats *ka = a;
  const KsKernelStats *kb = b;

  if (ka->total_ns != kb->total_ns)
    return ka->total_ns > kb->total_ns ? -1 : 1;
  return (ka->name > kb->name) - (ka->name < kb->name);
}

void
_ks_analysis_kernels (KsAnalysis *self,
                      Context    *ctx)
{
  KsTrace *trace = ctx->trace;
  g_autofree guint32 *by_name = g_new0 (guint32, MAX (trace->n_strings, 1));
  g_autoptr(GArray) occ_weight = g_array_new (FALSE, TRUE, sizeof (double));
  g_autoptr(GArray) occ_sum = g_array_new (FALSE, TRUE, sizeof (double));
  g_autoptr(GArray) waits = g_array_new (FALSE, TRUE, sizeof (double) * 2);  /* latency, queue sums */
  g_autoptr(GHashTable) by_operator = g_hash_table_new_full (group_key_hash, group_key_equal, g_free, NULL);
  g_autoptr(GHashTable) by_launch = g_hash_table_new_full (group_key_hash, group_key_equal, g_free, NULL);
  g_autoptr(GString) args = g_string_new (NULL);
  gint64 all = 0;

  for (guint d = 0; d < ctx->devices->len; d++)
    {
      DeviceState *ds = &g_array_index (ctx->devices, DeviceState, d);

      for (guint i = 0; i < ds->streams->len; i++)
        {
          guint32 t = g_array_index (ds->streams, guint32, i);
          const KsTrack *track = &trace->tracks[t];
          const KsGpu *gpu = ks_trace_find_gpu (trace, track->device);
          gint64 stream_end = G_MININT64;

          for (guint32 s = 0; s < track->n_slices; s++)
            {
              gint64 dur = track->end[s] - track->start[s];
              gint64 busy_until = stream_end;
              gint64 lat, queue;
              gboolean early;
              KsKernelStats *k;
              double occ, sm_eff;
              guint gi;

              if (GPU_WORK_KINDS & KIND_BIT (track->slice_kind[s]))
                stream_end = MAX (stream_end, track->end[s]);
              if (track->slice_kind[s] != KS_SLICE_KERNEL || _ks_context_in_warmup (ctx, track->start[s]))
                continue;

              if (by_name[track->name_id[s]] == 0)
                {
                  KsKernelStats fresh = { 0 };
                  double zero = 0;

                  fresh.name = track->name_id[s];
                  fresh.min_ns = G_MAXINT64;
                  fresh.occupancy_pct = -1;
                  if (track->gpu != NULL)
                    {
                      memcpy (fresh.grid, track->gpu[s].kernel.grid, sizeof fresh.grid);
                      memcpy (fresh.block, track->gpu[s].kernel.block, sizeof fresh.block);
                      fresh.registers = track->gpu[s].kernel.registers;
                    }
                  fresh.longest_track = t;
                  fresh.longest_slice = s;
                  fresh.first_start = G_MAXINT64;
                  fresh.last_end = G_MININT64;
                  g_array_append_val (self->kernels, fresh);
                  g_array_append_val (occ_weight, zero);
                  g_array_append_val (occ_sum, zero);
                  g_array_set_size (waits, waits->len + 1);
                  by_name[track->name_id[s]] = self->kernels->len;
                }
              gi = by_name[track->name_id[s]] - 1;
              k = &g_array_index (self->kernels, KsKernelStats, gi);

              k->calls++;
              k->total_ns += dur;
              k->first_start = MIN (k->first_start, track->start[s]);
              k->last_end = MAX (k->last_end, track->end[s]);
              k->tensor_cores = _ks_name_uses_tensor_cores (ctx, k->name);
              self->tensor_cores.n_kernels++;
              self->tensor_cores.kernel_ns += dur;
              if (k->tensor_cores)
                {
                  self->tensor_cores.n_tc_kernels++;
                  self->tensor_cores.tc_kernel_ns += dur;
                }
              if (dur < k->min_ns)
                k->min_ns = dur;
              if (dur > k->max_ns)
                {
                  k->max_ns = dur;
                  k->longest_track = t;
                  k->longest_slice = s;
                }
              if (track->gpu != NULL && !k->config_varies &&
                  (memcmp (k->grid, track->gpu[s].kernel.grid, sizeof k->grid) != 0 ||
                   memcmp (k->block, track->gpu[s].kernel.block, sizeof k->block) != 0 ||
                   k->registers != track->gpu[s].kernel.registers))
                k->config_varies = TRUE;

              _ks_kernel_estimates (trace, track, gpu, s, args, &occ, &sm_eff);
              if (occ >= 0)
                {
                  g_array_index (occ_weight, double, gi) += dur;
                  g_array_index (occ_sum, double, gi) += occ * dur;
                }
              {
                const guint32 *launch = ctx->launch_of_gpu[t];
                GroupKey key;

                memset (&key, 0, sizeof key);
                key.name = track->name_id[s];
                if (launch != NULL && launch[s] != KS_NO_INDEX)
                  key.operator_name = ctx->launch_operator[launch[s]];
                count_in_group (by_operator, self->kernel_groups[KS_KERNEL_BY_OPERATOR], &key, dur);
                key.operator_name = 0;
                if (track->gpu != NULL)
                  {
                    memcpy (key.grid, track->gpu[s].kernel.grid, sizeof key.grid);
                    memcpy (key.block, track->gpu[s].kernel.block, sizeof key.block);
                    key.registers = track->gpu[s].kernel.registers;
                    key.shared_memory = track->gpu[s].kernel.shared_memory;
                  }
                count_in_group (by_launch, self->kernel_groups[KS_KERNEL_BY_LAUNCH], &key, dur);
              }
              if (_ks_launch_wait (ctx, t, s, busy_until, &lat, &queue, &early))
                {
                  double *w = &g_array_index (waits, double, 2 * gi);

                  k->launched++;
                  w[0] += lat;
                  w[1] += queue;
                }
              all += dur;
            }
        }
    }

  for (guint i = 0; i < self->kernels->len; i++)
    {
      KsKernelStats *k = &g_array_index (self->kernels, KsKernelStats, i);
      double w = g_array_index (occ_weight, double, i);

      k->mean_ns = (double)k->total_ns / k->calls;
      k->share = all > 0 ? (double)k->total_ns / all : 0;
      if (w > 0)
        k->occupancy_pct = g_array_index (occ_sum, double, i) / w;
      k->mean_latency_ns = k->mean_queue_ns = -1;
      if (k->launched > 0)
        {
          k->mean_latency_ns = g_array_index (waits, double, 2 * i) / k->launched;
          k->mean_queue_ns = g_array_index (waits, double, 2 * i + 1) / k->launched;
        }
    }

  g_array_sort (self->kernel_groups[KS_KERNEL_BY_OPERATOR], compare_groups);
  g_array_sort (self->kernel_groups[KS_KERNEL_BY_LAUNCH], compare_groups);
  if (self->tensor_cores.kernel_ns > 0)
    self->tensor_cores.tc_share = (double)self->tensor_cores.tc_kernel_ns / self->tensor_cores.kernel_ns;
  g_array_sort (self->kernels, compare_kernels);
}
