/* ks-roofline.h: achieved FLOP rates, bandwidth and MFU over a trace
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gio/gio.h>

#include "ks-analysis.h"
#include "ks-flops.h"
#include "ks-peaks.h"

G_BEGIN_DECLS

/* The roofline of a trace: every operator call's FLOPs and bytes (see
 * ks_flops_for_call(), counted once at the innermost operator that has
 * them), the GPU time it launched, and rates against the analysed GPU's
 * peak. Kernels inherit the FLOPs and bytes of the operator that
 * launched them, split by their time when it launched several. */

typedef enum
{
  KS_BOUND_UNKNOWN = 0,
  KS_BOUND_MEMORY,
  KS_BOUND_COMPUTE,
} KsBound;

typedef struct
{
  guint32     name;              /* string id: the operator or the kernel */
  const char *input_dims;        /* operators by shape: their "Input Dims" text, else NULL */
  KsDtype     dtype;             /* of most of its FLOPs (of its first call when none) */
  guint64     calls;
  guint64     flops;
  guint64     bytes;
  gint64      device_ns;         /* GPU time it launched */
  /* < 0 when unknown */
  double      tflops;
  double      gbps;
  double      intensity;         /* FLOP per byte */
  double      peak_pct;          /* of the roof at its intensity: the dtype's peak or the bandwidth */
  KsBound     bound;
  guint32     longest_track;     /* its longest call: the operator's slice or the kernel */
  guint32     longest_slice;
} KsRooflineRow;

typedef struct
{
  guint32     name;              /* string id of the step's slice */
  guint32     track;
  guint32     slice;
  gint64      start;             /* the step's span (KsStep) */
  gint64      end;
  guint64     flops;             /* the model's (--model-flops-per-step) or its operators' */
  KsDtype     dtype;             /* the peak it is measured against */
  double      mfu_pct;           /* < 0 when no peak is known */
} KsRooflineStep;

typedef struct
{
  double      peak_tflops[KS_N_DTYPES]; /* > 0: overrides the table's */
  double      peak_gbps;                /* > 0: overrides the table's */
  guint64     model_flops_per_step;     /* 0: the summed operator FLOPs (hardware FLOPs) */
} KsRooflineOptions;

#define KS_TYPE_ROOFLINE (ks_roofline_get_type ())

G_DECLARE_FINAL_TYPE (KsRoofline, ks_roofline, KS, ROOFLINE, GObject)

/* Holds @trace; reads @analysis' options and steps, warm-up steps left
 * out unless its options include them. @options may be NULL. */
KsRoofline           *ks_roofline_new             (KsTrace                  *trace,
                                                   KsAnalysis               *analysis,
                                                   const KsRooflineOptions  *options);
void                  ks_roofline_new_async       (KsTrace                  *trace,
                                                   KsAnalysis               *analysis,
                                                   const KsRooflineOptions  *options,
                                                   GCancellable             *cancellable,
                                                   GAsyncReadyCallback       callback,
                                                   gpointer                  user_data);
KsRoofline           *ks_roofline_new_finish      (GAsyncResult             *result,
                                                   GError                  **error);

/* The roofline of @analysis with the built-in peaks, computed once in a
 * worker and shared by every caller (the pages). Main thread only. */
void                  ks_roofline_get_shared_async  (KsTrace                  *trace,
                                                     KsAnalysis               *analysis,
                                                     GCancellable             *cancellable,
                                                     GAsyncReadyCallback       callback,
                                                     gpointer                  user_data);
KsRoofline           *ks_roofline_get_shared_finish (GAsyncResult             *result,
                                                     GError                  **error);

KsTrace              *ks_roofline_get_trace       (KsRoofline *self);
/* The peak used: the table's for the analysed GPU, with the overrides;
 * its rates 0 when unknown. */
const KsPeak         *ks_roofline_get_peak        (KsRoofline *self);
gboolean              ks_roofline_peak_is_known   (KsRoofline *self);
/* Operators by time, by name or by name and input shapes. */
const KsRooflineRow  *ks_roofline_get_operators   (KsRoofline *self,
                                                   gboolean    by_shape,
                                                   guint      *n);
const KsRooflineRow  *ks_roofline_get_kernels     (KsRoofline *self,
                                                   guint      *n);
const KsRooflineRow  *ks_roofline_find_operator   (KsRoofline *self,
                                                   guint32     name,
                                                   const char *input_dims);
const KsRooflineRow  *ks_roofline_find_kernel     (KsRoofline *self,
                                                   guint32     name);
/* The steps that are not warm-up (all of them when the analysis'
 * options include the warm-up). */
const KsRooflineStep *ks_roofline_get_steps       (KsRoofline *self,
                                                   guint      *n);
/* Whether the steps' FLOPs are the model's (MFU) or the operators'
 * (hardware FLOPs utilisation). */
gboolean              ks_roofline_is_model_flops  (KsRoofline *self);
/* Whether some operator call records input shapes. */
gboolean              ks_roofline_has_shapes      (KsRoofline *self);
/* Calls whose shapes fit no formula, or with more inputs than are read
 * (left out), counted once however deeply nested. */
guint64               ks_roofline_get_n_unfit     (KsRoofline *self);
/* Translated one-line advice on the operator with the most GPU time, or
 * NULL; and the sentence a trace without shapes gets. */
char                 *ks_roofline_get_advice      (KsRoofline *self);
const char           *ks_roofline_no_shapes_text  (void);

/* Rates of @row against @peak (fills tflops...bound). */
void                  ks_roofline_rate_row        (KsRooflineRow *row,
                                                   const KsPeak  *peak);

G_END_DECLS
