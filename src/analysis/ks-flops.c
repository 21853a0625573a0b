/* ks-flops.c: floating-point operations and bytes of one operator call
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-analysis"

#include "config.h"

#include <string.h>

#include "ks-analysis-private.h"
#include "ks-flops.h"

#define MAX_INPUTS 256   /* a fused Triton kernel can take a hundred */
#define MAX_RANK   8
#define MAX_TEXT   48

typedef struct
{
  int      rank;                  /* -1: not one tensor (a list of them, a scalar, nothing) */
  gint64   dims[MAX_RANK];
  guint64  numel;                 /* elements of every tensor in it, a list's too */
  guint    elem_size;             /* bytes per element, 0 when not a tensor type */
  KsDtype  dtype;
  gboolean is_list;               /* Input type "TensorList" or nested dims */
  char     concrete[MAX_TEXT];    /* its "Concrete Inputs" text, "" none */
} Input;

typedef struct
{
  guint    n;
  gboolean have_types;            /* recordings' NVTX shapes come without "Input type" */
  gboolean truncated;             /* more than MAX_INPUTS inputs */
  Input    in[MAX_INPUTS];        /* the first n set */
} Call;

static const char * const dtype_names[KS_N_DTYPES] = {
  NULL, "fp64", "fp32", "tf32", "fp16", "bf16", "fp8",
};

const char *
ks_dtype_to_string (KsDtype dtype)
{
  return dtype < KS_N_DTYPES ? dtype_names[dtype] : NULL;
}

KsDtype
ks_dtype_from_string (const char *s)
{
  for (guint i = 1; i < KS_N_DTYPES; i++)
    if (g_strcmp0 (s, dtype_names[i]) == 0)
      return i;
  return KS_DTYPE_UNKNOWN;
}

/* The PyTorch profiler's "Input type" spelling of a tensor's scalar type. */
static guint
type_size (const char *type,
           KsDtype    *dtype)
{
  static const struct { const char *name; guint size; KsDtype dtype; } types[] = {
    { "float", 4, KS_DTYPE_FP32 },
    { "double", 8, KS_DTYPE_FP64 },
    { "c10::Half", 2, KS_DTYPE_FP16 },
    { "c10::BFloat16", 2, KS_DTYPE_BF16 },
    { "c10::Float8_e4m3fn", 1, KS_DTYPE_FP8 },
    { "c10::Float8_e5m2", 1, KS_DTYPE_FP8 },
    { "c10::Float8_e4m3fnuz", 1, KS_DTYPE_FP8 },
    { "c10::Float8_e5m2fnuz", 1, KS_DTYPE_FP8 },
    { "long int", 8, KS_DTYPE_UNKNOWN },
    { "int", 4, KS_DTYPE_UNKNOWN },
    { "short int", 2, KS_DTYPE_UNKNOWN },
    { "signed char", 1, KS_DTYPE_UNKNOWN },
    { "unsigned char", 1, KS_DTYPE_UNKNOWN },
    { "bool", 1, KS_DTYPE_UNKNOWN },
    { "c10::complex<float>", 8, KS_DTYPE_UNKNOWN },
    { "c10::complex<double>", 16, KS_DTYPE_UNKNOWN },
  };

  *dtype = KS_DTYPE_UNKNOWN;
  for (guint i = 0; i < G_N_ELEMENTS (types); i++)
    if (strcmp (type, types[i].name) == 0)
      {
        *dtype = types[i].dtype;
        return types[i].size;
      }
  return 0;
}

static const char *
skip_space (const char *p,
            const char *end)
{
  while (p < end && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r'))
    p++;
  return p;
}

/* One JSON string at @p into @buf (truncated); the position after it. */
static const char *
parse_string (const char *p,
              const char *end,
              char       *buf,
              gsize       size)
{
  gsize n = 0;

  if (p >= end || *p != '"')
    return NULL;
  for (p++; p < end && *p != '"'; p++)
    {
      if (*p == '\\' && p + 1 < end)
        p++;
      if (n + 1 < size)
        buf[n++] = *p;
    }
  buf[n] = 0;
  return p < end ? p + 1 : NULL;
}

/* A list of strings (@v, @len bytes) into each input's type or
 * concrete value. */
static gboolean
parse_strings (const char *v,
               gsize       len,
               Call       *call,
               gboolean    types)
{
  const char *end = v + len;
  guint i = 0;

  if (v == NULL || len == 0 || *v != '[')
    return FALSE;
  for (const char *p = skip_space (v + 1, end); p < end && *p != ']'; i++)
    {
      char buf[MAX_TEXT];

      p = parse_string (p, end, buf, sizeof buf);
      if (p == NULL)
        return FALSE;
      if (i < call->n)
        {
          Input *in = &call->in[i];

          if (types)
            {
              in->elem_size = type_size (buf, &in->dtype);
              in->is_list = strcmp (buf, "TensorList") == 0 || strcmp (buf, "GenericList") == 0;
            }
          else
            memcpy (in->concrete, buf, sizeof buf);
        }
      p = skip_space (p, end);
      if (p < end && *p == ',')
        p = skip_space (p + 1, end);
    }
  return TRUE;
}

/* A list of integers "[1, 2]" (nested lists add up their products into
 * @numel); the position after it, NULL when malformed. */
static const char *
parse_dims (const char *p,
            const char *end,
            Input      *in,
            guint       depth)
{
  guint rank = 0;
  guint64 product = 1;
  gboolean nested = FALSE;

  if (p >= end || *p != '[' || depth > 4)
    return NULL;
  p = skip_space (p + 1, end);
  while (p < end && *p != ']')
    {
      if (*p == '[')
        {
          Input inner = { 0 };

          p = parse_dims (p, end, &inner, depth + 1);
          if (p == NULL)
            return NULL;
          nested = TRUE;
          in->numel += inner.numel;
        }
      else
        {
          char *num_end;
          gint64 d = g_ascii_strtoll (p, &num_end, 10);

          if (num_end == p || d < 0)
            return NULL;
          if (rank < MAX_RANK)
            in->dims[rank] = d;
          rank++;
          product = d != 0 && product > G_MAXUINT64 / (guint64)d ? G_MAXUINT64 : product * (guint64)d;
          p = num_end;
        }
      p = skip_space (p, end);
      if (p < end && *p == ',')
        p = skip_space (p + 1, end);
    }
  if (p >= end)
    return NULL;
  if (nested)
    in->rank = -1;
  else if (depth > 0)
    in->numel = product;
  else
    {
      in->rank = rank <= MAX_RANK ? (int)rank : -1;
      in->numel = product;
    }
  return p + 1;
}

/* The members of an args object that the costs read, found in one walk. */
typedef struct
{
  const char *dims, *types, *concrete, *flops, *backend;
  gsize       dims_len, types_len, concrete_len, flops_len, backend_len;
} Members;

static void
find_members (const char *args,
              Members    *m)
{
  static const struct { const char *key; gsize len; gsize value; gsize value_len; } keys[] = {
    { "Input Dims", 10, G_STRUCT_OFFSET (Members, dims), G_STRUCT_OFFSET (Members, dims_len) },
    { "Input type", 10, G_STRUCT_OFFSET (Members, types), G_STRUCT_OFFSET (Members, types_len) },
    { "Concrete Inputs", 15, G_STRUCT_OFFSET (Members, concrete), G_STRUCT_OFFSET (Members, concrete_len) },
    { "flops", 5, G_STRUCT_OFFSET (Members, flops), G_STRUCT_OFFSET (Members, flops_len) },
    { "kernel_backend", 14, G_STRUCT_OFFSET (Members, backend), G_STRUCT_OFFSET (Members, backend_len) },
  };
  KsArgsIter iter;
  const char *name, *value;
  gsize name_len, value_len;
  gboolean quoted;

  memset (m, 0, sizeof *m);
  if (!ks_args_iter_init (&iter, args))
    return;
  while (ks_args_iter_next (&iter, &name, &name_len, &value, &value_len, &quoted))
    for (guint k = 0; k < G_N_ELEMENTS (keys); k++)
      if (name_len == keys[k].len && memcmp (name, keys[k].key, name_len) == 0)
        {
          G_STRUCT_MEMBER (const char *, m, keys[k].value) = value;
          G_STRUCT_MEMBER (gsize, m, keys[k].value_len) = value_len;
        }
}

static gboolean
parse_call (const Members *m,
            Call          *call)
{
  const char *end = m->dims + m->dims_len;
  const char *p;

  /* only the inputs parsed are cleared: the whole array is 35 kB */
  call->n = 0;
  call->have_types = call->truncated = FALSE;
  if (m->dims == NULL || m->dims_len == 0 || *m->dims != '[')
    return FALSE;
  for (p = skip_space (m->dims + 1, end); p < end && *p != ']';)
    {
      Input scratch;
      Input *in = call->n < MAX_INPUTS ? &call->in[call->n] : &scratch;

      memset (in, 0, sizeof *in);
      p = parse_dims (p, end, in, 0);
      if (p == NULL)
        return FALSE;
      if (call->n < MAX_INPUTS)
        call->n++;
      else
        call->truncated = TRUE;
      p = skip_space (p, end);
      if (p < end && *p == ',')
        p = skip_space (p + 1, end);
    }
  call->have_types = parse_strings (m->types, m->types_len, call, TRUE);
  parse_strings (m->concrete, m->concrete_len, call, FALSE);
  return TRUE;
}

gboolean
ks_flops_args_have_shapes (const char *args)
{
  return args != NULL && ks_args_find (args, "Input Dims", NULL) != NULL;
}

/* Input @i when it is a tensor of rank @rank (-1: any rank). */
static const Input *
tensor (const Call *call,
        guint       i,
        int         rank)
{
  const Input *in;

  if (i >= call->n)
    return NULL;
  in = &call->in[i];
  if ((call->have_types && in->elem_size == 0) || in->is_list || in->rank < 0 || (rank >= 0 && in->rank != rank))
    return NULL;
  return in;
}

static guint64
tensor_bytes (const Input *in)
{
  return in != NULL ? in->numel * in->elem_size : 0;
}

/* All tensor inputs, lists too, each read once. */
static guint64
input_bytes (const Call *call)
{
  guint64 bytes = 0;

  for (guint i = 0; i < call->n; i++)
    bytes += call->in[i].numel * call->in[i].elem_size;
  return bytes;
}

static KsDtype
call_dtype (const Call *call)
{
  for (guint i = 0; i < call->n; i++)
    if (call->in[i].dtype != KS_DTYPE_UNKNOWN)
      return call->in[i].dtype;
  return KS_DTYPE_UNKNOWN;
}

static guint
call_elem_size (const Call *call)
{
  for (guint i = 0; i < call->n; i++)
    if (call->in[i].elem_size != 0)
      return call->in[i].elem_size;
  return 0;
}

/* Integers of a Concrete Inputs list "[1, 1]" (or one integer "1",
 * repeated) into @out[n]. */
static gboolean
concrete_ints (const Call *call,
               guint       i,
               gint64     *out,
               guint       n)
{
  const char *p;
  guint k = 0;

  if (i >= call->n || call->in[i].concrete[0] == 0)
    return FALSE;
  p = call->in[i].concrete;
  if (*p != '[')
    {
      char *end;
      gint64 v = g_ascii_strtoll (p, &end, 10);

      if (end == p)
        return FALSE;
      for (k = 0; k < n; k++)
        out[k] = v;
      return TRUE;
    }
  for (p++; *p != 0 && *p != ']' && k < n; k++)
    {
      char *end;

      out[k] = g_ascii_strtoll (p, &end, 10);
      if (end == p)
        return FALSE;
      p = end;
      while (*p == ',' || *p == ' ')
        p++;
    }
  /* a list of one value stands for every spatial dimension */
  for (guint j = k; k == 1 && j < n; j++)
    out[j] = out[0];
  return k == n || k == 1;
}

static gboolean
concrete_bool (const Call *call,
               guint       i,
               gboolean   *out)
{
  if (i >= call->n)
    return FALSE;
  if (strcmp (call->in[i].concrete, "True") == 0)
    *out = TRUE;
  else if (strcmp (call->in[i].concrete, "False") == 0)
    *out = FALSE;
  else
    return FALSE;
  return TRUE;
}

/* flop_counter.py: mm_flop, bmm_flop */
static guint64
matmul_flops (guint64 batch,
              guint64 m,
              guint64 k,
              guint64 n)
{
  return 2 * batch * m * k * n;
}

static gboolean
cost_mm (const Call *call,
         guint       a_index,
         KsOpCost   *cost)
{
  const Input *a = tensor (call, a_index, 2);
  const Input *b = tensor (call, a_index + 1, 2);

  if (a == NULL || b == NULL || a->dims[1] != b->dims[0])
    return FALSE;
  cost->flops = matmul_flops (1, a->dims[0], a->dims[1], b->dims[1]);
  cost->bytes = input_bytes (call) + (guint64)a->dims[0] * b->dims[1] * a->elem_size;
  return TRUE;
}

static gboolean
cost_bmm (const Call *call,
          guint       a_index,
          KsOpCost   *cost)
{
  const Input *a = tensor (call, a_index, 3);
  const Input *b = tensor (call, a_index + 1, 3);

  if (a == NULL || b == NULL || a->dims[0] != b->dims[0] || a->dims[2] != b->dims[1])
    return FALSE;
  cost->flops = matmul_flops (a->dims[0], a->dims[1], a->dims[2], b->dims[2]);
  cost->bytes = input_bytes (call) + (guint64)a->dims[0] * a->dims[1] * b->dims[2] * a->elem_size;
  return TRUE;
}

/* torch.matmul's broadcasting: 1-D operands gain a dimension of 1. */
static gboolean
cost_matmul (const Call *call,
             KsOpCost   *cost)
{
  const Input *a = tensor (call, 0, -1);
  const Input *b = tensor (call, 1, -1);
  guint64 m, k, n, batch = 1;
  int ra, rb;

  if (a == NULL || b == NULL || a->rank < 1 || b->rank < 1)
    return FALSE;
  ra = a->rank;
  rb = b->rank;
  m = ra >= 2 ? a->dims[ra - 2] : 1;
  k = a->dims[ra - 1];
  n = rb >= 2 ? b->dims[rb - 1] : 1;
  if ((guint64)(rb >= 2 ? b->dims[rb - 2] : b->dims[0]) != k)
    return FALSE;
  for (int i = 0; i < MAX (ra, rb) - 2; i++)
    {
      gint64 da = ra - 3 - i >= 0 ? a->dims[ra - 3 - i] : 1;
      gint64 db = rb - 3 - i >= 0 ? b->dims[rb - 3 - i] : 1;

      batch *= MAX (da, db);
    }
  cost->flops = matmul_flops (batch, m, k, n);
  cost->bytes = input_bytes (call) + batch * m * n * a->elem_size;
  return TRUE;
}

/* linear(input [..., K], weight [N, K], bias) */
static gboolean
cost_linear (const Call *call,
             KsOpCost   *cost)
{
  const Input *x = tensor (call, 0, -1);
  const Input *w = tensor (call, 1, 2);
  guint64 rows = 1;

  if (x == NULL || w == NULL || x->rank < 1 || x->dims[x->rank - 1] != w->dims[1])
    return FALSE;
  for (int i = 0; i < x->rank - 1; i++)
    rows *= x->dims[i];
  cost->flops = matmul_flops (1, rows, w->dims[1], w->dims[0]);
  cost->bytes = input_bytes (call) + rows * w->dims[0] * x->elem_size;
  return TRUE;
}

/* flop_counter.py's conv_flop_count: the spatial size of the output (of
 * the input when transposed) × the filter × batch × c_out × c_in × 2. */
static guint64
conv_flop_count (const gint64 *x,
                 const gint64 *w,
                 const gint64 *out,
                 int           rank,
                 gboolean      transposed)
{
  const gint64 *conv = transposed ? x : out;
  guint64 flops = 2 * (guint64)x[0] * w[0] * w[1];

  for (int i = 2; i < rank; i++)
    flops *= (guint64)conv[i] * w[i];
  return flops;
}

typedef struct
{
  int     stride, padding, dilation, transposed, output_padding;
} ConvArgs;

/* Argument positions of the convolution operators (-1: absent). */
static const struct
{
  const char *name;
  ConvArgs    at;
} conv_layouts[] = {
  { "convolution",                 { 3, 4, 5, 6, 7 } },
  { "_convolution",                { 3, 4, 5, 6, 7 } },
  { "conv1d",                      { 3, 4, 5, -1, -1 } },
  { "conv2d",                      { 3, 4, 5, -1, -1 } },
  { "conv3d",                      { 3, 4, 5, -1, -1 } },
  { "cudnn_convolution",           { 3, 2, 4, -1, -1 } },
  { "cudnn_convolution_transpose", { 4, 2, 5, -2, 3 } },  /* -2: always transposed */
  { "conv_transpose1d",            { 3, 4, 7, -2, 5 } },
  { "conv_transpose2d",            { 3, 4, 7, -2, 5 } },
  { "conv_transpose3d",            { 3, 4, 7, -2, 5 } },
  { "_slow_conv2d_forward",        { 4, 5, -1, -1, -1 } },
};

static gboolean
cost_conv (const Call     *call,
           const ConvArgs *at,
           KsOpCost       *cost)
{
  const Input *x = tensor (call, 0, -1);
  const Input *w = tensor (call, 1, -1);
  gint64 stride[MAX_RANK], padding[MAX_RANK], dilation[MAX_RANK], out_pad[MAX_RANK];
  gint64 out[MAX_RANK];
  gboolean transposed = at->transposed == -2;
  int spatial;
  guint64 out_numel = 1;

  if (x == NULL || w == NULL || x->rank < 3 || x->rank != w->rank)
    return FALSE;
  spatial = x->rank - 2;
  for (int i = 0; i < spatial; i++)
    stride[i] = dilation[i] = 1, padding[i] = out_pad[i] = 0;
  if (at->stride >= 0 && !concrete_ints (call, at->stride, stride, spatial))
    return FALSE;
  if (at->padding >= 0 && !concrete_ints (call, at->padding, padding, spatial))
    return FALSE;   /* padding="same" and the like: no formula here */
  if (at->dilation >= 0 && !concrete_ints (call, at->dilation, dilation, spatial))
    return FALSE;
  if (at->transposed >= 0 && !concrete_bool (call, at->transposed, &transposed))
    return FALSE;
  if (at->output_padding >= 0)
    concrete_ints (call, at->output_padding, out_pad, spatial);

  /* the output's shape: N, C_out, spatial */
  out[0] = x->dims[0];
  out[1] = transposed ? w->dims[1] : w->dims[0];
  for (int i = 0; i < spatial; i++)
    {
      gint64 in = x->dims[2 + i], k = w->dims[2 + i];

      if (transposed)
        out[2 + i] = (in - 1) * stride[i] - 2 * padding[i] + dilation[i] * (k - 1) + out_pad[i] + 1;
      else if (stride[i] > 0)
        out[2 + i] = (in + 2 * padding[i] - dilation[i] * (k - 1) - 1) / stride[i] + 1;
      else
        return FALSE;
      if (out[2 + i] <= 0)
        return FALSE;
    }
  for (int i = 0; i < x->rank; i++)
    out_numel *= out[i];
  cost->flops = conv_flop_count (x->dims, w->dims, out, x->rank, transposed);
  cost->bytes = input_bytes (call) + out_numel * x->elem_size;
  return TRUE;
}

/* convolution_backward(grad_out, input, weight, bias_sizes, stride,
 * padding, dilation, transposed, output_padding, groups, output_mask):
 * flop_counter.py's conv_backward_flop. */
static gboolean
cost_conv_backward (const Call *call,
                    KsOpCost   *cost)
{
  const Input *g = tensor (call, 0, -1);
  const Input *x = tensor (call, 1, -1);
  const Input *w = tensor (call, 2, -1);
  gboolean transposed = FALSE;
  gboolean mask[3] = { TRUE, TRUE, FALSE };
  int rank;

  if (g == NULL || x == NULL || w == NULL || g->rank < 3 || g->rank != x->rank || x->rank != w->rank)
    return FALSE;
  rank = g->rank;
  concrete_bool (call, 7, &transposed);
  if (call->n > 10 && call->in[10].concrete[0] == '[')
    {
      const char *p = call->in[10].concrete + 1;

      for (guint i = 0; i < 3 && *p != 0; i++)
        {
          while (*p == ' ' || *p == ',')
            p++;
          mask[i] = g_str_has_prefix (p, "True");
          while (*p != 0 && *p != ',' && *p != ']')
            p++;
        }
    }

  cost->flops = 0;
  cost->bytes = input_bytes (call);
  if (mask[0])
    {
      /* the input's gradient is a transposed convolution of grad_out */
      cost->flops += conv_flop_count (g->dims, w->dims, x->dims, rank, !transposed);
      cost->bytes += tensor_bytes (x);
    }
  if (mask[1])
    {
      gint64 tg[MAX_RANK], tx[MAX_RANK], tw[MAX_RANK];

      /* t(): the first two dimensions swapped */
      memcpy (tg, g->dims, sizeof tg);
      memcpy (tx, x->dims, sizeof tx);
      memcpy (tw, w->dims, sizeof tw);
      tg[0] = g->dims[1], tg[1] = g->dims[0];
      tx[0] = x->dims[1], tx[1] = x->dims[0];
      tw[0] = w->dims[1], tw[1] = w->dims[0];
      if (transposed)
        cost->flops += conv_flop_count (tg, tx, tw, rank, FALSE);
      else
        cost->flops += conv_flop_count (tx, tg, tw, rank, FALSE);
      cost->bytes += tensor_bytes (w);
    }
  if (mask[2])
    cost->bytes += (guint64)g->dims[1] * g->elem_size;
  return TRUE;
}

/* flop_counter.py's sdpa_flop_count and sdpa_backward_flop_count, over
 * [batch, heads, seq, dim] (@bshd: [batch, seq, heads, dim], the layout
 * of _flash_attention_forward and _efficient_attention_forward). */
static gboolean
cost_attention (const Call *call,
                gboolean    backward,
                gboolean    bshd,
                KsOpCost   *cost)
{
  guint first = backward ? 1 : 0;
  const Input *q = tensor (call, first, 4);
  const Input *k = tensor (call, first + 1, 4);
  const Input *v = tensor (call, first + 2, 4);
  guint64 b, h, s_q, s_k, d_q, d_v;

  if (q == NULL || k == NULL || v == NULL)
    return FALSE;
  b = q->dims[0];
  h = bshd ? q->dims[2] : q->dims[1];
  s_q = bshd ? q->dims[1] : q->dims[2];
  s_k = bshd ? k->dims[1] : k->dims[2];
  d_q = q->dims[3];
  d_v = v->dims[3];
  if (d_q != (guint64)k->dims[3])
    return FALSE;
  if (backward)
    {
      cost->flops = matmul_flops (b * h, s_q, d_q, s_k)     /* the scores again */
                    + matmul_flops (b * h, s_q, d_v, s_k)   /* grad scores */
                    + matmul_flops (b * h, s_k, s_q, d_v)   /* grad v */
                    + matmul_flops (b * h, s_q, s_k, d_q)   /* grad q */
                    + matmul_flops (b * h, d_q, s_q, s_k);  /* grad k */
      /* q, k, v, out and grad_out read; grad q, k and v written */
      cost->bytes = input_bytes (call) + tensor_bytes (q) + tensor_bytes (k) + tensor_bytes (v);
    }
  else
    {
      cost->flops = matmul_flops (b * h, s_q, d_q, s_k) + matmul_flops (b * h, s_q, s_k, d_v);
      cost->bytes = input_bytes (call) + b * h * s_q * d_v * q->elem_size;
    }
  return TRUE;
}

/* Operators that read their tensors once and write an output as large as
 * their largest input; in-place ones (a trailing "_") write their first.
 * The _foreach_ operators are not here: the profiler records no shapes
 * for tensor lists. */
static const char * const elementwise[] = {
  "abs", "add", "add_", "addcdiv_", "addcmul_", "bernoulli_", "clamp", "clamp_", "clamp_min", "copy_",
  "cos", "div", "div_", "dropout", "elu", "eq", "erf", "exp", "fill_", "gelu", "gelu_backward", "ge",
  "gt", "hardtanh", "le", "leaky_relu", "lerp_", "log", "log_softmax", "_log_softmax",
  "_log_softmax_backward_data", "lt", "masked_fill", "masked_fill_", "maximum", "minimum", "mse_loss",
  "mse_loss_backward", "mul", "mul_", "native_batch_norm", "native_batch_norm_backward", "native_dropout",
  "native_dropout_backward", "native_layer_norm", "native_layer_norm_backward", "ne", "neg", "pow", "reciprocal",
  "relu", "relu_", "rsqrt", "rsub", "sigmoid", "sigmoid_backward", "silu", "silu_", "silu_backward", "sin",
  "softmax", "_softmax", "_softmax_backward_data", "sqrt", "sub", "sub_", "tanh", "tanh_backward",
  "threshold_backward", "where", "zero_", "cudnn_batch_norm", "cudnn_batch_norm_backward",
  "native_group_norm", "native_group_norm_backward", "_fused_rms_norm", "cat",
};

/* Operators whose output is much smaller than their input: their input
 * is read, the output left out. Gathers (index_select, nll_loss) are in
 * neither list: they read a part of their input that the shapes do not
 * tell. */
static const char * const reductions[] = {
  "amax", "amin", "argmax", "argmin", "max", "mean", "min", "norm", "linalg_vector_norm", "std", "sum",
  "var", "var_mean", "all", "any", "prod",
};

static gboolean
in_list (const char * const *list,
         gsize               n,
         const char         *name)
{
  for (gsize i = 0; i < n; i++)
    if (strcmp (list[i], name) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
cost_bytes (const Call *call,
            const char *op,
            KsOpCost   *cost)
{
  gboolean in_place = g_str_has_suffix (op, "_");
  guint64 largest = 0;

  cost->flops = 0;
  cost->bytes = input_bytes (call);
  if (cost->bytes == 0)
    return FALSE;
  if (in_list (reductions, G_N_ELEMENTS (reductions), op))
    return TRUE;
  if (strcmp (op, "fill_") == 0 || strcmp (op, "zero_") == 0)
    return (cost->bytes = tensor_bytes (&call->in[0])) > 0;   /* written, not read */
  if (in_place)
    largest = call->in[0].numel;
  else
    for (guint i = 0; i < call->n; i++)
      if (call->in[i].elem_size != 0)
        largest = MAX (largest, call->in[i].numel);
  cost->bytes += largest * call_elem_size (call);
  return TRUE;
}

/* Whether operator @op (without "aten::") has a formula. */
static gboolean
has_formula (const char *op)
{
  static const char * const names[] = {
    "mm", "addmm", "_addmm_activation", "bmm", "baddbmm", "matmul", "linear", "convolution_backward",
  };

  if (in_list (names, G_N_ELEMENTS (names), op))
    return TRUE;
  if (strstr (op, "attention") != NULL && strstr (op, "nested") == NULL)
    return TRUE;
  for (guint i = 0; i < G_N_ELEMENTS (conv_layouts); i++)
    if (strcmp (op, conv_layouts[i].name) == 0)
      return TRUE;
  return FALSE;
}

gboolean
ks_flops_name_may_cost (const char *name)
{
  const char *op = name;

  if (name == NULL)
    return FALSE;
  if (g_str_has_prefix (name, "triton_"))
    return TRUE;
  if (g_str_has_prefix (op, "aten::"))
    op += strlen ("aten::");
  return has_formula (op) || in_list (elementwise, G_N_ELEMENTS (elementwise), op) ||
         in_list (reductions, G_N_ELEMENTS (reductions), op);
}

gboolean
ks_flops_for_call (const char *name,
                   const char *args,
                   KsOpCost   *cost)
{
  Call call;
  Members m;
  const char *op = name;
  double flops;
  gboolean ok = FALSE;

  memset (cost, 0, sizeof *cost);
  if (name == NULL || args == NULL)
    return FALSE;

  find_members (args, &m);
  parse_call (&m, &call);
  cost->dtype = call_dtype (&call);
  cost->dims = m.dims;
  cost->dims_len = m.dims_len;

  /* with_flops (and the like) counted it already */
  if (ks_args_parse_double (m.flops, m.flops_len, &flops) && flops >= 1 && flops < 1e19)
    {
      cost->flops = (guint64)flops;
      cost->bytes = input_bytes (&call);
      cost->source = KS_COST_ARGUMENT;
      return TRUE;
    }
  if (call.n == 0)
    return FALSE;
  if (call.truncated)
    {
      /* its bytes would be short: left out, and counted */
      cost->source = KS_COST_UNFIT;
      return FALSE;
    }

  /* Inductor's Triton kernels: each pointer argument read or written once */
  if (m.backend != NULL && m.backend_len == 6 && memcmp (m.backend, "triton", 6) == 0)
    {
      cost->bytes = input_bytes (&call);
      cost->source = KS_COST_BYTES;
      return cost->bytes > 0;
    }

  if (g_str_has_prefix (op, "aten::"))
    op += strlen ("aten::");

  if (strcmp (op, "mm") == 0)
    ok = cost_mm (&call, 0, cost);
  else if (strcmp (op, "addmm") == 0 || strcmp (op, "_addmm_activation") == 0)
    ok = cost_mm (&call, 1, cost);
  else if (strcmp (op, "bmm") == 0)
    ok = cost_bmm (&call, 0, cost);
  else if (strcmp (op, "baddbmm") == 0)
    ok = cost_bmm (&call, 1, cost);
  else if (strcmp (op, "matmul") == 0)
    ok = cost_matmul (&call, cost);
  else if (strcmp (op, "linear") == 0)
    ok = cost_linear (&call, cost);
  else if (strcmp (op, "convolution_backward") == 0)
    ok = cost_conv_backward (&call, cost);
  else if (strstr (op, "attention") != NULL && strstr (op, "nested") == NULL)
    {
      gboolean backward = g_str_has_suffix (op, "_backward");
      gboolean bshd = strcmp (op, "_flash_attention_forward") == 0 || strcmp (op, "_flash_attention_backward") == 0 ||
                      strcmp (op, "_efficient_attention_forward") == 0 ||
                      strcmp (op, "_efficient_attention_backward") == 0;

      ok = cost_attention (&call, backward, bshd, cost);
    }
  else
    {
      for (guint i = 0; i < G_N_ELEMENTS (conv_layouts); i++)
        if (strcmp (op, conv_layouts[i].name) == 0)
          {
            ok = cost_conv (&call, &conv_layouts[i].at, cost);
            cost->source = ok ? KS_COST_FORMULA : KS_COST_UNFIT;
            return ok;
          }
      if (in_list (elementwise, G_N_ELEMENTS (elementwise), op) ||
          in_list (reductions, G_N_ELEMENTS (reductions), op))
        {
          cost->source = KS_COST_BYTES;
          return cost_bytes (&call, op, cost);
        }
      return FALSE;
    }
  cost->source = ok ? KS_COST_FORMULA : KS_COST_UNFIT;
  return ok;
}
