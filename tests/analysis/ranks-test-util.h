/* ranks-test-util.h: corpus files, and folders of ranks written from one
 * real rank with known delays, for the ranks tests
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

#include "ks-trace.h"

#define SYNTH_BASE_NS G_GINT64_CONSTANT (1000000000000000)
#define SYNTH_RANKS 4
#define SYNTH_SLOW 2
#define SYNTH_DELAY_NS G_GINT64_CONSTANT (100000)
/* What rank @k of the synthetic folder must show, from @src alone. */
#define SYNTH_STEPS 3

typedef struct
{
  gint64 start;
  gint64 end;
} Span;

typedef struct
{
  gint64 window, comm, compute, covered, delays;
  guint64 collectives;
  /* per step, in time order: the same within it, and the delays of the
   * collectives that start in it */
  gint64 step_comm[SYNTH_STEPS], step_compute[SYNTH_STEPS], step_covered[SYNTH_STEPS], step_delays[SYNTH_STEPS];
} SynthExpected;

char *corpus_file (const char *relative);
gboolean have_corpus (const char *relative);
void remove_tree (const char *dir);
char *make_folder (const char *const *pairs);
KsTrace *load (const char *path);
void merge (GArray *spans);
void write_rank_on (const KsTrace *src, const char *dir, guint k, guint n, guint slow, gint64 delay, const char *host, gint64 clock_shift);
void write_rank (const KsTrace *src, const char *dir, guint k, guint n, guint slow, gint64 delay);
KsTrace *load_source_rank (void);
char *write_synthetic_folder (const KsTrace *src);
void synth_expected (const KsTrace *src, gboolean slow, SynthExpected *e);
