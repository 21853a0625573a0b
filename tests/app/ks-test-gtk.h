/* ks-test-gtk.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

/* Runs the main loop until @cond holds or @ms milliseconds pass, then
 * asserts @cond. */
#define KS_TEST_WAIT_FOR(cond, ms)                                        \
  G_STMT_START {                                                          \
    gboolean timed_out_ = FALSE;                                          \
    guint id_ = g_timeout_add ((ms), ks_test_timeout_cb, &timed_out_);    \
    while (!(cond) && !timed_out_)                                        \
      g_main_context_iteration (NULL, TRUE);                              \
    if (!timed_out_)                                                      \
      g_source_remove (id_);                                              \
    g_assert_true (cond);                                                 \
  } G_STMT_END

/* Initializes GTK and libadwaita for a test with isolated XDG folders;
 * without a display, prints a TAP skip line and returns FALSE (the test
 * then exits with 77). */
gboolean   ks_test_init_gtk        (int        *argc,
                                    char     ***argv);

/* Sets the gboolean at @data and removes itself. */
gboolean   ks_test_timeout_cb      (gpointer    data);

/* Runs the main loop for @ms milliseconds. */
void       ks_test_spin            (guint       ms);

/* The first descendant of @widget (depth first) of @type, and named
 * @name unless that is NULL. */
GtkWidget *ks_test_find_descendant (GtkWidget  *widget,
                                    GType       type,
                                    const char *name);

/* What an analysis page emitted, for its signals' handlers below: the
 * last "highlight" (a string id) and "navigate" (a range), and how many
 * times it navigated. */
typedef struct
{
  guint  highlighted;
  gint64 start;
  gint64 end;
  guint  n_navigate;
} KsTestPageEvents;

void       ks_test_page_navigate_cb  (GtkWidget        *page,
                                      gint64            start,
                                      gint64            end,
                                      KsTestPageEvents *ev);
void       ks_test_page_highlight_cb (GtkWidget        *page,
                                      guint             name,
                                      KsTestPageEvents *ev);
/* Runs the main loop until every analysis page under @widget shows its
 * session's latest analysis (a new one refills them one by one). */
void       ks_test_wait_pages_filled (GtkWidget      *widget);

/* Whether the shown columns of the column view in @page fit its width
 * (nothing to scroll sideways); says the widths in a test message. */
gboolean   ks_test_columns_fit     (GtkWidget  *page);

/* The first descendant label of @widget whose text starts with @prefix. */
GtkWidget *ks_test_find_label      (GtkWidget  *widget,
                                    const char *prefix);

/* Whether one of @widget's shortcut controllers binds @trigger ("F9",
 * "bracketright") to the action named @action_name. */
gboolean   ks_test_has_shortcut    (GtkWidget  *widget,
                                    const char *trigger,
                                    const char *action_name);

/* The menu @button opens, opened and closed again as a click does: a
 * button's menu is made when it first opens. NULL for a button whose
 * popover is not a menu. */
GMenuModel *ks_test_open_menu      (GtkMenuButton *button);

/* The event controller of @widget named @name; asserts there is one. */
GtkEventController *ks_test_find_controller (GtkWidget  *widget,
                                             const char *name);

/* A Chrome trace of @n pairs of nested slices on four threads, written
 * to a temporary file whose path is returned: big enough that a load
 * takes a while. */
char      *ks_test_write_big_trace (guint       n);

/* A click (@n_press presses) on the timeline at (@x, @y), through its
 * own motion and click controllers. */
void       ks_test_click_timeline  (GtkWidget  *timeline,
                                    int         n_press,
                                    double      x,
                                    double      y);

G_END_DECLS
