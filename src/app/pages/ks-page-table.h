/* ks-page-table.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

#include "ks-index-model.h"
#include "ks-report.h"

G_BEGIN_DECLS

/* The model chain of an analysis table: rows 0 .. n - 1 of a record
 * array, filtered by the page, sorted by the clicked column header.
 *
 * A table of more than KS_PAGE_TABLE_STEP rows takes them that many per
 * main-loop iteration, filtered as they come (a changed filter takes
 * them again), and sorts them in steps (GTK's incremental sort), so that
 * no dispatch handles every row and frames and input go on meanwhile;
 * until it is complete its page, when it belongs to a KsPage, is not
 * "filled". A smaller table is complete once its report is set. A view
 * never shown yet has no cells (they are made when it is first mapped)
 * and takes its rows from KS_PAGE_TABLE_FIRST_STEP on, twice as many
 * each iteration. */

#define KS_PAGE_TABLE_STEP 2048
#define KS_PAGE_TABLE_FIRST_STEP 64

typedef gboolean (*KsRowFilterFunc) (gpointer page,
                                     guint    index);

typedef struct
{
  GtkColumnView      *view;
  KsIndexModel       *model;
  GtkCustomFilter    *filter;
  GtkFilterListModel *filter_model;
  GtkSortListModel   *sort_model;
  GtkSingleSelection *selection;
  KsReport           *report;   /* what the report columns show, or NULL */
  gpointer            page;     /* the filter's data; held unfilled while busy */
  gboolean            busy;     /* rows still to add or to sort */
  gboolean            shown;    /* the view was mapped: it has cells */
  guint               freeze;   /* busy is not updated meanwhile */
  GMenu              *columns_menu;     /* every report column, for each header's menu */
  GSimpleActionGroup *columns_actions;  /* "columns.NAME": shown or hidden */
} KsPageTable;

void                 ks_page_table_init         (KsPageTable       *table,
                                                 GtkColumnView     *view,
                                                 KsRowFilterFunc    filter,
                                                 gpointer           page);
void                 ks_page_table_clear        (KsPageTable       *table);
void                 ks_page_table_refilter     (KsPageTable       *table);
/* Whether every row is added, filtered and sorted. */
gboolean             ks_page_table_get_complete (KsPageTable       *table);
/* Completes the table now: for a command that reads its rows. */
void                 ks_page_table_finish       (KsPageTable       *table);
/* Rows shown after filtering. */
guint                ks_page_table_get_n_shown  (KsPageTable       *table);
/* The record index of the row at @position as shown, or G_MAXUINT. */
guint                ks_page_table_get_index_at (KsPageTable       *table,
                                                 guint              position);
/* The position at which record @index is shown, or G_MAXUINT. */
guint                ks_page_table_find_index   (KsPageTable       *table,
                                                 guint              index);
/* Columns from the report model's descriptors: the title, the tooltip
 * (numbers: the metric's definition), the cell text (the report's human
 * form) and the sort (the report's typed compare) are the ones
 * kinescope-cli stats uses. The cells read the table's report, set with
 * ks_page_table_set_report(). */
GtkColumnViewColumn *ks_page_table_add_report_column  (KsPageTable          *table,
                                                       const KsReportColumn *column);
/* One column per descriptor the pages show, in the pages' order
 * (KS_REPORT_PAGE); each header's menu shows and hides them. */
void                 ks_page_table_add_report_columns (KsPageTable          *table,
                                                       const KsReportColumn *columns,
                                                       guint                 n);
/* Shows the columns of the descriptors @keys (NULL-terminated) and hides
 * the others, which the header's menu shows again. */
void                 ks_page_table_show_columns       (KsPageTable          *table,
                                                       const char *const    *keys);
/* The column added for descriptor @key, or NULL. */
GtkColumnViewColumn *ks_page_table_get_report_column  (KsPageTable          *table,
                                                       const char           *key);
/* The text column of descriptor @key wraps onto a second line when the
 * column is narrow, where the others are cut in the middle; call before
 * rows are shown. */
void                 ks_page_table_set_column_wrap    (KsPageTable          *table,
                                                       const char           *key);
/* Shows @report's rows (takes it; NULL: none). */
void                 ks_page_table_set_report         (KsPageTable          *table,
                                                       KsReport             *report);

/* Replaces *@needle by the case-folded text of @entry and filters again. */
void                 ks_page_table_search       (KsPageTable       *table,
                                                 char             **needle,
                                                 GtkEditable       *entry);
/* Whether case-folded @text holds @needle (already folded); an empty
 * needle matches everything. */
gboolean             ks_page_text_matches       (const char        *text,
                                                 const char        *needle);

G_END_DECLS
