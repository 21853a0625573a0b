/* ks-roofline.c: achieved FLOP rates, bandwidth and MFU over a trace
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include <glib/gi18n.h>
#include <math.h>
#include <string.h>

#include "ks-analysis-private.h"
#include "ks-roofline.h"

#define STACK_DEPTH 256

/* One operator call that has a cost. */
typedef struct
{
  guint32      name;
  const char  *dims;             /* interned "Input Dims" text, NULL none */
  guint32      track;
  guint32      slice;
  gint64       start;
  KsOpCost     cost;
  gint64       device_ns;        /* kernels, memcpy and memset it launched */
  gint64       kernel_ns;        /* of them, kernels */
  gboolean     superseded;       /* a nested call has the cost instead */
} Call;

/* A kernel and the call it inherits from. */
typedef struct
{
  guint32      track;
  guint32      slice;
  guint        call;
} Launch;

struct _KsRoofline
{
  GObject            parent_instance;

  KsTrace           *trace;
  KsPeak             peak;
  char              *device;
  char              *source;
  gboolean           peak_known;
  GArray            *operators[2];  /* KsRooflineRow by name, by name and shape */
  GArray            *kernels;       /* KsRooflineRow */
  GArray            *steps;         /* KsRooflineStep */
  GHashTable        *index[3];      /* "name\x1fdims" -> row + 1: by name, by shape, kernels */
  GStringChunk      *strings;
  gboolean           model_flops;
  gboolean           has_shapes;
  guint64            n_unfit;
};

G_DEFINE_FINAL_TYPE (KsRoofline, ks_roofline, G_TYPE_OBJECT)

static void
ks_roofline_finalize (GObject *object)
{
  KsRoofline *self = KS_ROOFLINE (object);

  g_clear_object (&self->trace);
  g_free (self->device);
  g_free (self->source);
  for (guint i = 0; i < 2; i++)
    g_clear_pointer (&self->operators[i], g_array_unref);
  g_clear_pointer (&self->kernels, g_array_unref);
  g_clear_pointer (&self->steps, g_array_unref);
  for (guint i = 0; i < 3; i++)
    g_clear_pointer (&self->index[i], g_hash_table_unref);
  g_clear_pointer (&self->strings, g_string_chunk_free);

  G_OBJECT_CLASS (ks_roofline_parent_class)->finalize (object);
}

static void
ks_roofline_class_init (KsRooflineClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = ks_roofline_finalize;
}

static void
ks_roofline_init (KsRoofline *self)
{
  for (guint i = 0; i < 2; i++)
    self->operators[i] = g_array_new (FALSE, TRUE, sizeof (KsRooflineRow));
  self->kernels = g_array_new (FALSE, TRUE, sizeof (KsRooflineRow));
  self->steps = g_array_new (FALSE, TRUE, sizeof (KsRooflineStep));
  self->strings = g_string_chunk_new (4096);
  for (guint i = 0; i < 3; i++)
    self->index[i] = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
}

/* The key of the pages' lookups; no dims and "" are the same. */
static char *
index_key (guint32     name,
           const char *dims)
{
  return g_strdup_printf ("%u\x1f%s", name, dims != NULL ? dims : "");
}

static void
index_rows (GHashTable *index,
            GArray     *rows)
{
  for (guint i = 0; i < rows->len; i++)
    {
      const KsRooflineRow *row = &g_array_index (rows, KsRooflineRow, i);

      g_hash_table_insert (index, index_key (row->name, row->input_dims), GUINT_TO_POINTER (i + 1));
    }
}

void
ks_roofline_rate_row (KsRooflineRow *row,
                      const KsPeak  *peak)
{
  double peak_tflops = ks_peak_get_tflops (peak, row->dtype);
  double ridge = ks_peak_get_ridge (peak, row->dtype);

  row->tflops = row->gbps = row->intensity = row->peak_pct = -1;
  row->bound = KS_BOUND_UNKNOWN;
  if (row->device_ns > 0)
    {
      /* FLOP (byte) per ns is GFLOP/s (GB/s) */
      row->tflops = row->flops / (double)row->device_ns / 1e3;
      if (row->bytes > 0)
        row->gbps = row->bytes / (double)row->device_ns;
    }
  if (row->bytes > 0)
    row->intensity = row->flops / (double)row->bytes;
  if (row->device_ns <= 0 || peak == NULL)
    return;

  if (row->flops > 0 && ridge > 0 && row->intensity >= ridge)
    {
      row->bound = KS_BOUND_COMPUTE;
      row->peak_pct = row->tflops / peak_tflops * 100;
    }
  else if (row->bytes > 0 && peak->gbps > 0 && (row->flops == 0 || ridge > 0))
    {
      row->bound = KS_BOUND_MEMORY;
      row->peak_pct = row->gbps / peak->gbps * 100;
    }
  else if (row->flops > 0 && peak_tflops > 0 && row->bytes == 0)
    row->peak_pct = row->tflops / peak_tflops * 100;
}

static int
compare_rows (gconstpointer a,
              gconstpointer b)
{
  const KsRooflineRow *x = a;
  const KsRooflineRow *y = b;

  if (x->device_ns != y->device_ns)
    return x->device_ns > y->device_ns ? -1 : 1;
  if (x->flops != y->flops)
    return x->flops > y->flops ? -1 : 1;
  if (x->name != y->name)
    return x->name < y->name ? -1 : 1;
  return g_strcmp0 (x->input_dims, y->input_dims);
}

/* Rows keyed by name (and dims), with each dtype's FLOPs to pick the
 * row's dtype from. */
typedef struct
{
  GArray     *rows;
  GHashTable *index;             /* key -> row + 1 */
  GArray     *dtype_flops;       /* guint64[KS_N_DTYPES] per row */
  gint64     *longest;           /* per row, grown with it */
  gsize       n_longest;
} Rows;

typedef struct
{
  guint32     name;
  const char *dims;              /* interned: compared by pointer */
} RowKey;

static guint
row_key_hash (gconstpointer p)
{
  const RowKey *k = p;

  return k->name * 2654435761u ^ g_direct_hash (k->dims);
}

static gboolean
row_key_equal (gconstpointer a,
               gconstpointer b)
{
  const RowKey *x = a;
  const RowKey *y = b;

  return x->name == y->name && x->dims == y->dims;
}

static void
rows_init (Rows   *rows,
           GArray *array)
{
  rows->rows = array;
  rows->index = g_hash_table_new_full (row_key_hash, row_key_equal, g_free, NULL);
  rows->dtype_flops = g_array_new (FALSE, TRUE, sizeof (guint64) * KS_N_DTYPES);
  rows->longest = NULL;
  rows->n_longest = 0;
}

static void
rows_add (Rows        *rows,
          guint32      name,
          const char  *dims,
          KsDtype      dtype,
          guint64      flops,
          guint64      bytes,
          gint64       device_ns,
          guint32      track,
          guint32      slice,
          gint64       dur)
{
  RowKey key = { name, dims };
  guint i = GPOINTER_TO_UINT (g_hash_table_lookup (rows->index, &key));
  KsRooflineRow *row;
  guint64 *by_dtype;

  if (i == 0)
    {
      KsRooflineRow empty = { .name = name, .input_dims = dims, .dtype = dtype };

      g_array_append_val (rows->rows, empty);
      g_array_set_size (rows->dtype_flops, rows->rows->len);
      i = rows->rows->len;
      g_hash_table_insert (rows->index, g_memdup2 (&key, sizeof key), GUINT_TO_POINTER (i));
      if (rows->n_longest < i)
        {
          rows->n_longest = MAX (64, rows->n_longest * 2);
          rows->longest = g_renew (gint64, rows->longest, rows->n_longest);
        }
      rows->longest[i - 1] = -1;
    }
  row = &g_array_index (rows->rows, KsRooflineRow, i - 1);
  by_dtype = (guint64 *)(void *)(rows->dtype_flops->data + (i - 1) * sizeof (guint64) * KS_N_DTYPES);
  row->calls++;
  row->flops += flops;
  row->bytes += bytes;
  row->device_ns += device_ns;
  by_dtype[dtype] += flops;
  if (dur > rows->longest[i - 1])
    {
      rows->longest[i - 1] = dur;
      row->longest_track = track;
      row->longest_slice = slice;
    }
}

static void
rows_finish (Rows         *rows,
             const KsPeak *peak)
{
  for (guint i = 0; i < rows->rows->len; i++)
    {
      KsRooflineRow *row = &g_array_index (rows->rows, KsRooflineRow, i);
      const guint64 *by_dtype = (const guint64 *)(void *)(rows->dtype_flops->data + i * sizeof (guint64) * KS_N_DTYPES);

      for (guint d = 1; d < KS_N_DTYPES; d++)
        if (by_dtype[d] > by_dtype[row->dtype])
          row->dtype = d;
      ks_roofline_rate_row (row, peak);
    }
  g_array_sort (rows->rows, compare_rows);
  g_hash_table_unref (rows->index);
  g_array_unref (rows->dtype_flops);
  g_free (rows->longest);
}

/* The interned "Input Dims" text of a call (@len bytes at @dims). */
static const char *
intern_dims (KsRoofline *self,
             GHashTable *interned,
             const char *dims,
             gsize       len)
{
  g_autofree char *text = NULL;
  const char *s;

  if (dims == NULL)
    return NULL;
  text = g_strndup (dims, len);
  s = g_hash_table_lookup (interned, text);
  if (s == NULL)
    {
      s = g_string_chunk_insert (self->strings, text);
      g_hash_table_add (interned, (gpointer)s);
    }
  return s;
}

static void
choose_peak (KsRoofline              *self,
             KsAnalysis              *analysis,
             const KsRooflineOptions *options)
{
  KsTrace *trace = self->trace;
  gint32 device = ks_analysis_get_options (analysis)->device;
  const KsGpu *gpu = device >= 0 ? ks_trace_find_gpu (trace, device) : (trace->n_gpus > 0 ? &trace->gpus[0] : NULL);
  const char *name = gpu != NULL ? ks_trace_string (trace, gpu->name) : NULL;
  const KsPeak *known = ks_peaks_lookup (name);
  gboolean overridden = FALSE;

  if (known != NULL)
    self->peak = *known;
  self->device = g_strdup (known != NULL ? known->device : (name != NULL && *name ? name : ""));
  self->source = g_strdup (known != NULL ? known->source : "");
  if (options != NULL)
    {
      for (guint d = 1; d < KS_N_DTYPES; d++)
        if (options->peak_tflops[d] > 0)
          {
            self->peak.tflops[d] = options->peak_tflops[d];
            overridden = TRUE;
          }
      if (options->peak_gbps > 0)
        {
          self->peak.gbps = options->peak_gbps;
          overridden = TRUE;
        }
    }
  if (overridden)
    {
      g_free (self->source);
      self->source = g_strdup (known != NULL ? _("the command line, over the built-in table") : _("the command line"));
    }
  self->peak.device = self->device;
  self->peak.source = self->source;
  for (guint d = 1; d < KS_N_DTYPES; d++)
    self->peak_known |= self->peak.tflops[d] > 0;
  self->peak_known |= self->peak.gbps > 0;
}

/* The launch flows of each thread track's slices: first[track][slice]
 * is a flow index or KS_NO_INDEX, next[flow] the next of that slice. */
static guint32 **
index_launches (KsTrace  *trace,
                guint32 **next_out)
{
  guint32 **first = g_new0 (guint32 *, MAX (trace->n_tracks, 1));
  guint32 *next = g_new (guint32, MAX (trace->n_flows, 1));

  for (guint32 f = trace->n_flows; f-- > 0;)
    {
      const KsFlow *flow = &trace->flows[f];
      const KsTrack *from;

      next[f] = KS_NO_INDEX;
      if (flow->kind != KS_FLOW_LAUNCH || flow->from_track >= trace->n_tracks)
        continue;
      from = &trace->tracks[flow->from_track];
      if (from->kind != KS_TRACK_THREAD || flow->from_slice >= from->n_slices)
        continue;
      if (first[flow->from_track] == NULL)
        {
          first[flow->from_track] = g_new (guint32, from->n_slices);
          memset (first[flow->from_track], 0xff, sizeof (guint32) * from->n_slices);
        }
      next[f] = first[flow->from_track][flow->from_slice];
      first[flow->from_track][flow->from_slice] = f;
    }
  *next_out = next;
  return first;
}

/* ks_flops_name_may_cost() of string @name, cached in @cache (0 not
 * asked yet, 1 no, 2 yes). */
static gboolean
name_may_cost (const KsTrace *trace,
               guint8        *cache,
               guint32        name)
{
  if (name >= trace->n_strings)
    return FALSE;
  if (cache[name] == 0)
    cache[name] = ks_flops_name_may_cost (ks_trace_string (trace, name)) ? 2 : 1;
  return cache[name] == 2;
}

/* Every operator call with a cost, the GPU work it launched, and the
 * kernels with the call they inherit from. */
static void
collect_calls (KsRoofline *self,
               KsAnalysis *analysis,
               gint32      device,
               GArray     *calls,
               GArray     *launches)
{
  KsTrace *trace = self->trace;
  g_autoptr(GString) scratch = g_string_new (NULL);
  g_autoptr(GHashTable) interned = g_hash_table_new (g_str_hash, g_str_equal);
  guint32 *next = NULL;
  guint32 **first = index_launches (trace, &next);
  g_autofree gboolean *tensor_cores = g_new0 (gboolean, MAX (trace->n_strings, 1));  /* per kernel name */
  g_autofree guint8 *may_cost = g_new0 (guint8, MAX (trace->n_strings, 1));  /* per name: 0 unknown, 1 no, 2 yes */
  guint n_kernels;
  const KsKernelStats *kernels = ks_analysis_get_kernels (analysis, &n_kernels);

  for (guint i = 0; i < n_kernels; i++)
    if (kernels[i].name < trace->n_strings)
      tensor_cores[kernels[i].name] = kernels[i].tensor_cores;

  for (guint32 t = 0; t < trace->n_tracks; t++)
    {
      const KsTrack *track = &trace->tracks[t];
      gint32 holder[STACK_DEPTH];       /* the innermost call with a cost at or above, -1 */
      gint32 own[STACK_DEPTH];          /* the call of the slice at this depth, -1 */
      gboolean authority[STACK_DEPTH];  /* a "flops" argument at or above */
      gboolean unfit[STACK_DEPTH];      /* a call whose shapes fit no formula at or above */

      if (track->kind != KS_TRACK_THREAD)
        continue;
      for (guint32 s = 0; s < track->n_slices; s++)
        {
          guint d = track->depth[s];
          KsOpCost cost;

          if (d >= STACK_DEPTH)
            continue;
          holder[d] = d > 0 ? holder[d - 1] : -1;
          authority[d] = d > 0 ? authority[d - 1] : FALSE;
          unfit[d] = d > 0 ? unfit[d - 1] : FALSE;
          own[d] = -1;

          /* most operators (views, allocations) never have a cost:
           * their args are not even decoded */
          if (track->slice_kind[s] == KS_SLICE_CPU_OP && track->args[s] != 0 &&
              name_may_cost (trace, may_cost, track->name_id[s]))
            {
              const char *args = ks_trace_slice_args (trace, track, s, scratch);
              const char *name = ks_trace_string (trace, track->name_id[s]);

              if (!self->has_shapes && ks_flops_args_have_shapes (args))
                self->has_shapes = TRUE;
              if (ks_flops_for_call (name, args, &cost) && !authority[d])
                {
                  Call call = { .name = track->name_id[s], .track = t, .slice = s,
                                .start = track->start[s], .cost = cost };

                  call.dims = intern_dims (self, interned, cost.dims, cost.dims_len);
                  /* counted once: the innermost call with FLOPs wins, or
                   * with bytes over one without FLOPs; a trace's own
                   * "flops" argument over its nested formulas */
                  for (guint j = 0; j < d; j++)
                    if (own[j] >= 0)
                      {
                        Call *outer = &g_array_index (calls, Call, own[j]);

                        if (cost.flops > 0 || outer->cost.flops == 0)
                          outer->superseded = TRUE;
                      }
                  own[d] = holder[d] = calls->len;
                  authority[d] = cost.source == KS_COST_ARGUMENT;
                  g_array_append_val (calls, call);
                }
              else if (cost.source == KS_COST_UNFIT)
                {
                  /* once a call: conv2d › convolution › _convolution › cudnn_convolution */
                  if (!unfit[d])
                    self->n_unfit++;
                  unfit[d] = TRUE;
                }
            }

          if (first[t] != NULL && holder[d] >= 0)
            for (guint32 f = first[t][s]; f != KS_NO_INDEX; f = next[f])
              {
                const KsFlow *flow = &trace->flows[f];
                const KsTrack *gpu = &trace->tracks[flow->to_track];
                KsSliceKind kind;
                gint64 dur;
                Call *call = &g_array_index (calls, Call, holder[d]);

                if (flow->to_slice >= gpu->n_slices || (device >= 0 && gpu->device != device))
                  continue;
                kind = gpu->slice_kind[flow->to_slice];
                dur = gpu->end[flow->to_slice] - gpu->start[flow->to_slice];
                if (kind != KS_SLICE_KERNEL && kind != KS_SLICE_MEMCPY && kind != KS_SLICE_MEMSET)
                  continue;
                call->device_ns += dur;
                if (kind == KS_SLICE_KERNEL)
                  {
                    Launch launch = { flow->to_track, flow->to_slice, holder[d] };
                    guint32 name = gpu->name_id[flow->to_slice];

                    /* float32 on tensor cores is TF32 (cuDNN's default for
                     * convolutions, allow_tf32 for matmuls): its peak is TF32's */
                    if (call->cost.dtype == KS_DTYPE_FP32 && name < trace->n_strings && tensor_cores[name])
                      call->cost.dtype = KS_DTYPE_TF32;

                    call->kernel_ns += dur;
                    g_array_append_val (launches, launch);
                  }
              }
        }
    }

  for (guint32 t = 0; t < trace->n_tracks; t++)
    g_free (first[t]);
  g_free (first);
  g_free (next);
}

static int
compare_call_start (gconstpointer a,
                    gconstpointer b)
{
  const Call *x = a;
  const Call *y = b;

  return (x->start > y->start) - (x->start < y->start);
}

static void
compute_steps (KsRoofline              *self,
               KsAnalysis              *analysis,
               const KsRooflineOptions *options,
               GArray                  *calls)
{
  guint n_steps;
  const KsStep *steps = ks_analysis_get_steps (analysis, &n_steps);
  gboolean include_warmup = ks_analysis_get_options (analysis)->include_warmup;

  g_array_sort (calls, compare_call_start);
  self->model_flops = options != NULL && options->model_flops_per_step > 0;
  for (guint i = 0; i < n_steps; i++)
    {
      const KsStep *st = &steps[i];
      KsRooflineStep step = { .name = st->name, .track = st->track, .slice = st->slice,
                              .start = st->start, .end = st->end, .mfu_pct = -1 };
      guint64 by_dtype[KS_N_DTYPES] = { 0 };
      guint lo = 0, hi = calls->len;
      double peak;

      /* initialisation and compilation are not the model's FLOPs rate */
      if (st->warmup && !include_warmup)
        continue;
      /* the first call at or after the step's start on the CPU */
      while (lo < hi)
        {
          guint mid = lo + (hi - lo) / 2;

          if (g_array_index (calls, Call, mid).start < st->host_start)
            lo = mid + 1;
          else
            hi = mid;
        }
      for (guint c = lo; c < calls->len && g_array_index (calls, Call, c).start < st->host_end; c++)
        {
          const Call *call = &g_array_index (calls, Call, c);

          if (!call->superseded)
            {
              step.flops += call->cost.flops;
              by_dtype[call->cost.dtype] += call->cost.flops;
            }
        }
      for (guint d = 1; d < KS_N_DTYPES; d++)
        if (by_dtype[d] > by_dtype[step.dtype])
          step.dtype = d;
      if (self->model_flops)
        step.flops = options->model_flops_per_step;
      peak = ks_peak_get_tflops (&self->peak, step.dtype);
      if (peak > 0 && step.end > step.start)
        step.mfu_pct = step.flops / (double)(step.end - step.start) / 1e3 / peak * 100;
      g_array_append_val (self->steps, step);
    }
}

static void
compute (KsRoofline              *self,
         KsAnalysis              *analysis,
         const KsRooflineOptions *options)
{
  KsTrace *trace = self->trace;
  gint32 device = ks_analysis_get_options (analysis)->device;
  g_autoptr(GArray) calls = g_array_new (FALSE, FALSE, sizeof (Call));
  g_autoptr(GArray) launches = g_array_new (FALSE, FALSE, sizeof (Launch));
  Rows by_name, by_shape, kernels;

  choose_peak (self, analysis, options);
  collect_calls (self, analysis, device, calls, launches);

  rows_init (&by_name, self->operators[0]);
  rows_init (&by_shape, self->operators[1]);
  rows_init (&kernels, self->kernels);
  for (guint i = 0; i < calls->len; i++)
    {
      const Call *c = &g_array_index (calls, Call, i);
      const KsTrack *track = &trace->tracks[c->track];
      gint64 dur = track->end[c->slice] - track->start[c->slice];

      if (c->superseded)
        continue;
      rows_add (&by_name, c->name, NULL, c->cost.dtype, c->cost.flops, c->cost.bytes, c->device_ns,
                c->track, c->slice, dur);
      rows_add (&by_shape, c->name, c->dims, c->cost.dtype, c->cost.flops, c->cost.bytes, c->device_ns,
                c->track, c->slice, dur);
    }
  /* kernels: their share of the call's cost by their time */
  for (guint i = 0; i < launches->len; i++)
    {
      const Launch *l = &g_array_index (launches, Launch, i);
      const Call *c = &g_array_index (calls, Call, l->call);
      const KsTrack *gpu = &trace->tracks[l->track];
      gint64 dur = gpu->end[l->slice] - gpu->start[l->slice];
      double share = c->kernel_ns > 0 ? dur / (double)c->kernel_ns : 0;

      if (c->superseded)
        continue;
      rows_add (&kernels, gpu->name_id[l->slice], NULL, c->cost.dtype,
                (guint64)llround (c->cost.flops * share), (guint64)llround (c->cost.bytes * share), dur,
                l->track, l->slice, dur);
    }
  rows_finish (&by_name, &self->peak);
  rows_finish (&by_shape, &self->peak);
  rows_finish (&kernels, &self->peak);
  index_rows (self->index[0], self->operators[0]);
  index_rows (self->index[1], self->operators[1]);
  index_rows (self->index[2], self->kernels);

  compute_steps (self, analysis, options, calls);
}

KsRoofline *
ks_roofline_new (KsTrace                 *trace,
                 KsAnalysis              *analysis,
                 const KsRooflineOptions *options)
{
  KsRoofline *self;

  g_return_val_if_fail (KS_IS_TRACE (trace), NULL);
  g_return_val_if_fail (KS_IS_ANALYSIS (analysis), NULL);

  self = g_object_new (KS_TYPE_ROOFLINE, NULL);
  self->trace = g_object_ref (trace);
  compute (self, analysis, options);
  return self;
}

typedef struct
{
  KsTrace           *trace;
  KsAnalysis        *analysis;
  KsRooflineOptions  options;
  gboolean           have_options;
} Job;

static void
job_free (gpointer data)
{
  Job *job = data;

  g_object_unref (job->trace);
  g_object_unref (job->analysis);
  g_free (job);
}

static void
roofline_thread (GTask        *task,
                 gpointer      source,
                 gpointer      task_data,
                 GCancellable *cancellable)
{
  Job *job = task_data;

  g_task_return_pointer (task, ks_roofline_new (job->trace, job->analysis, job->have_options ? &job->options : NULL),
                         g_object_unref);
}

void
ks_roofline_new_async (KsTrace                 *trace,
                       KsAnalysis              *analysis,
                       const KsRooflineOptions *options,
                       GCancellable            *cancellable,
                       GAsyncReadyCallback      callback,
                       gpointer                 user_data)
{
  g_autoptr(GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  Job *job = g_new0 (Job, 1);

  job->trace = g_object_ref (trace);
  job->analysis = g_object_ref (analysis);
  if (options != NULL)
    {
      job->options = *options;
      job->have_options = TRUE;
    }
  g_task_set_source_tag (task, ks_roofline_new_async);
  g_task_set_task_data (task, job, job_free);
  g_task_run_in_thread (task, roofline_thread);
}

KsRoofline *
ks_roofline_new_finish (GAsyncResult  *result,
                        GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/* What an analysis holds for ks_roofline_get_shared_async(). */
typedef struct
{
  KsRoofline *roofline;
  GPtrArray  *waiting;   /* GTask */
} Shared;

static void
shared_free (gpointer data)
{
  Shared *shared = data;

  g_clear_object (&shared->roofline);
  g_ptr_array_unref (shared->waiting);
  g_free (shared);
}

static void
shared_done_cb (GObject      *source,
                GAsyncResult *result,
                gpointer      user_data)
{
  g_autoptr(KsAnalysis) analysis = user_data;
  Shared *shared = g_object_get_data (G_OBJECT (analysis), "ks-roofline-shared");
  g_autoptr(GPtrArray) waiting = NULL;

  shared->roofline = ks_roofline_new_finish (result, NULL);
  waiting = g_steal_pointer (&shared->waiting);
  shared->waiting = g_ptr_array_new_with_free_func (g_object_unref);
  for (guint i = 0; i < waiting->len; i++)
    g_task_return_pointer (waiting->pdata[i], g_object_ref (shared->roofline), g_object_unref);
}

void
ks_roofline_get_shared_async (KsTrace             *trace,
                              KsAnalysis          *analysis,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GTask *task = g_task_new (NULL, cancellable, callback, user_data);
  Shared *shared = g_object_get_data (G_OBJECT (analysis), "ks-roofline-shared");

  g_task_set_source_tag (task, ks_roofline_get_shared_async);
  if (shared == NULL)
    {
      shared = g_new0 (Shared, 1);
      shared->waiting = g_ptr_array_new_with_free_func (g_object_unref);
      g_object_set_data_full (G_OBJECT (analysis), "ks-roofline-shared", shared, shared_free);
      /* not cancellable: other callers may be waiting for it */
      ks_roofline_new_async (trace, analysis, NULL, NULL, shared_done_cb, g_object_ref (analysis));
    }
  if (shared->roofline != NULL)
    {
      g_task_return_pointer (task, g_object_ref (shared->roofline), g_object_unref);
      g_object_unref (task);
      return;
    }
  g_ptr_array_add (shared->waiting, task);
}

KsRoofline *
ks_roofline_get_shared_finish (GAsyncResult  *result,
                               GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

KsTrace *
ks_roofline_get_trace (KsRoofline *self)
{
  return self->trace;
}

const KsPeak *
ks_roofline_get_peak (KsRoofline *self)
{
  return &self->peak;
}

gboolean
ks_roofline_peak_is_known (KsRoofline *self)
{
  return self->peak_known;
}

const KsRooflineRow *
ks_roofline_get_operators (KsRoofline *self,
                           gboolean    by_shape,
                           guint      *n)
{
  GArray *rows = self->operators[by_shape ? 1 : 0];

  *n = rows->len;
  return (const KsRooflineRow *)(void *)rows->data;
}

const KsRooflineRow *
ks_roofline_get_kernels (KsRoofline *self,
                         guint      *n)
{
  *n = self->kernels->len;
  return (const KsRooflineRow *)(void *)self->kernels->data;
}

static const KsRooflineRow *
find_row (GHashTable *index,
          GArray     *rows,
          guint32     name,
          const char *dims)
{
  g_autofree char *key = index_key (name, dims);
  guint i = GPOINTER_TO_UINT (g_hash_table_lookup (index, key));

  return i > 0 ? &g_array_index (rows, KsRooflineRow, i - 1) : NULL;
}

const KsRooflineRow *
ks_roofline_find_operator (KsRoofline *self,
                           guint32     name,
                           const char *input_dims)
{
  guint by_shape = input_dims != NULL ? 1 : 0;

  return find_row (self->index[by_shape], self->operators[by_shape], name, input_dims);
}

const KsRooflineRow *
ks_roofline_find_kernel (KsRoofline *self,
                         guint32     name)
{
  return find_row (self->index[2], self->kernels, name, NULL);
}

const KsRooflineStep *
ks_roofline_get_steps (KsRoofline *self,
                       guint      *n)
{
  *n = self->steps->len;
  return (const KsRooflineStep *)(void *)self->steps->data;
}

gboolean
ks_roofline_is_model_flops (KsRoofline *self)
{
  return self->model_flops;
}

gboolean
ks_roofline_has_shapes (KsRoofline *self)
{
  return self->has_shapes;
}

guint64
ks_roofline_get_n_unfit (KsRoofline *self)
{
  return self->n_unfit;
}

const char *
ks_roofline_no_shapes_text (void)
{
  return _("The trace records no operator input shapes, so no FLOPs or bytes: profile with "
           "torch.profiler.profile(record_shapes=True), or record with "
           "kinescope-cli record --pytorch=autograd-shapes-nvtx.");
}

char *
ks_roofline_get_advice (KsRoofline *self)
{
  GArray *rows = self->operators[0];

  for (guint i = 0; i < rows->len; i++)
    {
      const KsRooflineRow *row = &g_array_index (rows, KsRooflineRow, i);
      const char *name = ks_trace_string (self->trace, row->name);
      const char *dtype = ks_dtype_to_string (row->dtype);

      if (row->bound == KS_BOUND_UNKNOWN || row->peak_pct < 0)
        continue;
      if (row->bound == KS_BOUND_COMPUTE && row->peak_pct < 50)
        /* TRANSLATORS: "aten::mm runs at 12 % of the bf16 peak with intensity 300: …" */
        return g_strdup_printf (_("%s runs at %.0f %% of the %s peak with intensity %.0f: "
                                  "compute-bound shapes too small to fill the GPU"),
                                name, row->peak_pct, dtype, row->intensity);
      if (row->bound == KS_BOUND_COMPUTE)
        return g_strdup_printf (_("%s runs at %.0f %% of the %s peak with intensity %.0f: "
                                  "compute-bound near the GPU's limit, only less work makes it faster"),
                                name, row->peak_pct, dtype, row->intensity);
      if (row->flops > 0)
        return g_strdup_printf (_("%s runs at %.0f %% of the memory bandwidth with intensity %.1f: "
                                  "memory-bound, fusing it with its neighbours saves round trips to memory"),
                                name, row->peak_pct, row->intensity);
      return g_strdup_printf (_("%s runs at %.0f %% of the memory bandwidth: memory-bound, "
                                "fusing it with its neighbours saves round trips to memory"),
                              name, row->peak_pct);
    }
  return NULL;
}
