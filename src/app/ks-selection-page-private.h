/* ks-selection-page-private.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-selection-page.h"

G_BEGIN_DECLS

/* The Selection page is written in two files: ks-selection-page.c (the
 * page, slices and ranges) and ks-selection-memory.c (a memory
 * snapshot's instants and blocks, the allocator at their time). These
 * are the page's rows, shared. */

GtkWidget *_ks_selection_page_begin_group  (KsSelectionPage *self,
                                            const char      *title);
GtkWidget *_ks_selection_page_add_row      (KsSelectionPage *self,
                                            const char      *title,
                                            const char      *value);
void       _ks_selection_page_add_row_take (KsSelectionPage *self,
                                            const char      *title,
                                            char            *value);
/* A widget of its own under the groups so far. */
void       _ks_selection_page_append       (KsSelectionPage *self,
                                            GtkWidget       *widget);
void       _ks_selection_page_add_heading  (KsSelectionPage *self,
                                            const char      *text);

/* ks-selection-memory.c */
void       _ks_selection_page_add_instant  (KsSelectionPage *self,
                                            KsTrace         *trace,
                                            guint32          instant);
void       _ks_selection_page_add_memory_block (KsSelectionPage *self,
                                                KsTrace         *trace,
                                                guint            device,
                                                guint32          block);

G_END_DECLS
