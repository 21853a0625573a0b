/* ks-summary-ranks.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

#include "ks-page.h"

G_BEGIN_DECLS

/* The Summary of a job of several ranks: one GPU card and one series of
 * step bars per rank, where one card per device would add the ranks'
 * figures up (ranks that share a GPU number, as every single-GPU rank
 * does, would read as one GPU). */

/* Whether @analysis holds more than one rank. */
gboolean ks_summary_ranks_split     (KsAnalysis          *analysis);
/* Appends a card per rank to @box: its GPU busy share over its steps,
 * kernels, steps and communication. */
void     ks_summary_ranks_add_gpus  (KsPage              *page,
                                     GtkBox              *box,
                                     KsTrace             *trace,
                                     KsAnalysis          *analysis);
/* Adds to @group one labelled step chart per rank: its steps in order,
 * each bar with its tooltip and a click that goes to the step. */
void     ks_summary_ranks_add_steps (KsPage              *page,
                                     AdwPreferencesGroup *group,
                                     KsTrace             *trace,
                                     KsAnalysis          *analysis);

G_END_DECLS
