/* test-pages-fill.c: a long table takes, filters and sorts its rows over
 * several main-loop iterations, and its page is "filled" once it is
 * complete
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <adwaita.h>

#include "ks-report.h"
#include "ks-session.h"
#include "ks-test-gtk.h"
#include "ks-trace-loader.h"
#include "pages/ks-memory-page.h"
#include "pages/ks-page-table.h"
#include "pages/ks-row-item.h"
#include "pages/ks-summary-page.h"

/* gpt_3steps, computed independently from the JSON with python3: its
 * [memory] events with Bytes > 0 on device 0, their bytes summed, the
 * largest and the smallest; and the host's (device -1) 3 of 4 bytes. */
#define GPT_FILE            "gpt_3steps.pt.trace.json.gz"
#define GPT_GPU_ALLOCATIONS 2304
#define GPT_GPU_BYTES       G_GUINT64_CONSTANT (14339078144)
#define GPT_GPU_LARGEST     139264000
#define GPT_GPU_SMALLEST    512
#define GPT_HOST_ALLOCATIONS 3

#define WAIT_FOR(cond) KS_TEST_WAIT_FOR (cond, 30000)

typedef struct
{
  KsTrace            *trace;
  KsAnalysis         *analysis;
  const KsAllocation *allocs;
  guint               n_allocs;
  GtkWidget          *window;
  GtkWidget          *page;
  GtkColumnView      *view;
  GListModel         *model;
  guint               n_filled;    /* "filled" notified TRUE */
  guint               n_unfilled;  /* "filled" notified FALSE */
} Fixture;

static void
filled_cb (KsPage     *page,
           GParamSpec *pspec,
           Fixture    *f)
{
  if (ks_page_get_filled (page))
    f->n_filled++;
  else
    f->n_unfilled++;
}

static void
fixture_set_up (Fixture       *f,
                gconstpointer  data)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), GPT_FILE, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;

  f->trace = ks_trace_load (file, NULL, NULL, &error);
  g_assert_no_error (error);
  f->analysis = ks_analysis_compute (f->trace, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  f->allocs = ks_analysis_get_allocations (f->analysis, &f->n_allocs);
  /* more rows than one step takes */
  g_assert_cmpuint (f->n_allocs, ==, GPT_GPU_ALLOCATIONS + GPT_HOST_ALLOCATIONS);
  g_assert_cmpuint (f->n_allocs, >, KS_PAGE_TABLE_STEP);

  f->page = ks_memory_page_new ();
  f->window = gtk_window_new ();
  gtk_window_set_default_size (GTK_WINDOW (f->window), 600, 700);
  gtk_window_set_child (GTK_WINDOW (f->window), f->page);
  gtk_window_present (GTK_WINDOW (f->window));
  gtk_test_widget_wait_for_draw (f->window);
  f->view = GTK_COLUMN_VIEW (ks_test_find_descendant (f->page, GTK_TYPE_COLUMN_VIEW, NULL));
  f->model = G_LIST_MODEL (gtk_column_view_get_model (f->view));
  g_signal_connect (f->page, "notify::filled", G_CALLBACK (filled_cb), f);
}

static void
fixture_tear_down (Fixture       *f,
                   gconstpointer  data)
{
  gtk_window_destroy (GTK_WINDOW (f->window));
  g_clear_object (&f->analysis);
  g_clear_object (&f->trace);
}

/* Iterates the main loop until the page is filled; returns how many
 * iterations that took. */
static guint
wait_filled (Fixture *f)
{
  guint iterations = 0;

  WAIT_FOR ((iterations++, ks_page_get_filled (KS_PAGE (f->page))));
  return iterations;
}

static const KsAllocation *
shown_allocation (Fixture *f,
                  guint    position)
{
  g_autoptr(KsRowItem) item = g_list_model_get_item (f->model, position);

  g_assert_nonnull (item);
  g_assert_cmpuint (ks_row_item_get_index (item), <, f->n_allocs);
  return &f->allocs[ks_row_item_get_index (item)];
}

static GtkColumnViewColumn *
find_column (Fixture    *f,
             const char *key)
{
  GListModel *columns = gtk_column_view_get_columns (f->view);

  for (guint i = 0; i < g_list_model_get_n_items (columns); i++)
    {
      g_autoptr(GtkColumnViewColumn) column = g_list_model_get_item (columns, i);

      if (g_strcmp0 (g_object_get_data (G_OBJECT (column), "ks-report-key"), key) == 0)
        return column;
    }
  g_assert_not_reached ();
  return NULL;
}

/* The refill shows the first step of rows at once and the rest in later
 * iterations; once filled, every allocation of GPU 0 is there. */
static void
test_refill (Fixture       *f,
             gconstpointer  data)
{
  guint64 bytes = 0;
  guint iterations;

  ks_page_set_analysis (KS_PAGE (f->page), f->trace, f->analysis);
  g_assert_false (ks_page_get_filled (KS_PAGE (f->page)));
  g_assert_cmpuint (f->n_unfilled, ==, 1);
  /* no more than the first step so far */
  g_assert_cmpuint (g_list_model_get_n_items (f->model), <=, KS_PAGE_TABLE_STEP);

  iterations = wait_filled (f);
  g_test_message ("filled after %u main-loop iterations", iterations);
  /* at least the step that adds the last rows, in an iteration of its own */
  g_assert_cmpuint (iterations, >=, 2);
  g_assert_cmpuint (f->n_filled, ==, 1);

  g_assert_cmpuint (g_list_model_get_n_items (f->model), ==, GPT_GPU_ALLOCATIONS);
  for (guint i = 0; i < GPT_GPU_ALLOCATIONS; i++)
    {
      const KsAllocation *a = shown_allocation (f, i);

      g_assert_cmpint (a->device, ==, 0);
      bytes += a->bytes;
    }
  g_assert_cmpuint (bytes, ==, GPT_GPU_BYTES);
}

/* A sort by a column header runs in steps too, and ends in the right
 * order; the selected row stays selected wherever it moves. */
static void
test_sort (Fixture       *f,
           gconstpointer  data)
{
  GtkColumnViewColumn *size = find_column (f, "bytes");
  GtkSingleSelection *selection;
  const KsAllocation *selected;
  guint position;
  guint iterations;

  ks_page_set_analysis (KS_PAGE (f->page), f->trace, f->analysis);
  wait_filled (f);

  /* the 1,000th allocation of GPU 0 in allocation order */
  selection = GTK_SINGLE_SELECTION (gtk_column_view_get_model (f->view));
  gtk_single_selection_set_selected (selection, 999);
  selected = shown_allocation (f, 999);

  gtk_column_view_sort_by_column (f->view, size, GTK_SORT_DESCENDING);
  g_assert_false (ks_page_get_filled (KS_PAGE (f->page)));
  iterations = wait_filled (f);
  g_test_message ("sorted after %u main-loop iterations", iterations);
  g_assert_cmpuint (iterations, >=, 2);

  g_assert_cmpuint (g_list_model_get_n_items (f->model), ==, GPT_GPU_ALLOCATIONS);
  g_assert_cmpint (shown_allocation (f, 0)->bytes, ==, GPT_GPU_LARGEST);
  g_assert_cmpint (shown_allocation (f, GPT_GPU_ALLOCATIONS - 1)->bytes, ==, GPT_GPU_SMALLEST);
  for (guint i = 1; i < GPT_GPU_ALLOCATIONS; i++)
    g_assert_cmpint (shown_allocation (f, i - 1)->bytes, >=, shown_allocation (f, i)->bytes);

  position = gtk_single_selection_get_selected (selection);
  g_assert_cmpuint (position, !=, GTK_INVALID_LIST_POSITION);
  g_assert_true (shown_allocation (f, position) == selected);
}

/* Another device in the page's drop-down filters the rows again, in
 * steps: the host's 3 allocations, then GPU 0's 2,304 again. */
static void
test_filter (Fixture       *f,
             gconstpointer  data)
{
  GtkWidget *dropdown = ks_test_find_descendant (f->page, GTK_TYPE_DROP_DOWN, NULL);
  guint host = G_MAXUINT;
  GListModel *devices;

  ks_page_set_analysis (KS_PAGE (f->page), f->trace, f->analysis);
  wait_filled (f);

  g_assert_true (gtk_widget_get_visible (dropdown));
  devices = gtk_drop_down_get_model (GTK_DROP_DOWN (dropdown));
  for (guint i = 0; i < g_list_model_get_n_items (devices); i++)
    if (g_strcmp0 (gtk_string_list_get_string (GTK_STRING_LIST (devices), i), "Host") == 0)
      host = i;
  g_assert_cmpuint (host, !=, G_MAXUINT);

  gtk_drop_down_set_selected (GTK_DROP_DOWN (dropdown), host);
  g_assert_false (ks_page_get_filled (KS_PAGE (f->page)));
  g_assert_cmpuint (wait_filled (f), >=, 2);
  g_assert_cmpuint (g_list_model_get_n_items (f->model), ==, GPT_HOST_ALLOCATIONS);
  for (guint i = 0; i < GPT_HOST_ALLOCATIONS; i++)
    {
      g_assert_cmpint (shown_allocation (f, i)->device, ==, -1);
      g_assert_cmpint (shown_allocation (f, i)->bytes, ==, 4);
    }

  gtk_drop_down_set_selected (GTK_DROP_DOWN (dropdown), host == 0 ? 1 : 0);
  wait_filled (f);
  g_assert_cmpuint (g_list_model_get_n_items (f->model), ==, GPT_GPU_ALLOCATIONS);
}

static gboolean
keep_all (gpointer page,
          guint    index)
{
  return TRUE;
}

/* What reads every row at once (a command before the table is complete)
 * completes it on the spot. */
static void
test_finish (Fixture       *f,
             gconstpointer  data)
{
  KsPageTable table = { 0 };
  g_autoptr(GtkWidget) view = g_object_ref_sink (gtk_column_view_new (NULL));
  guint n_columns;
  const KsReportColumn *columns = ks_report_allocation_columns (&n_columns);

  /* A table of its own, not a page's: nothing holds a page */
  ks_page_table_init (&table, GTK_COLUMN_VIEW (view), keep_all, NULL);
  ks_page_table_add_report_columns (&table, columns, n_columns);
  ks_page_table_set_report (&table, ks_report_new_allocations (f->trace, f->analysis));
  g_assert_false (ks_page_table_get_complete (&table));
  g_assert_cmpuint (ks_page_table_get_n_shown (&table), <=, KS_PAGE_TABLE_STEP);

  ks_page_table_finish (&table);
  g_assert_true (ks_page_table_get_complete (&table));
  g_assert_cmpuint (ks_page_table_get_n_shown (&table), ==, f->n_allocs);
  for (guint i = 0; i < f->n_allocs; i++)
    g_assert_cmpuint (ks_page_table_get_index_at (&table, i), ==, i);

  /* A sort under way ends at once too, in order: the largest first */
  gtk_column_view_sort_by_column (GTK_COLUMN_VIEW (view), ks_page_table_get_report_column (&table, "bytes"),
                                  GTK_SORT_DESCENDING);
  g_assert_false (ks_page_table_get_complete (&table));
  ks_page_table_finish (&table);
  g_assert_true (ks_page_table_get_complete (&table));
  g_assert_cmpuint (ks_page_table_get_n_shown (&table), ==, f->n_allocs);
  g_assert_cmpint (f->allocs[ks_page_table_get_index_at (&table, 0)].bytes, ==, GPT_GPU_LARGEST);
  for (guint i = 1; i < f->n_allocs; i++)
    g_assert_cmpint (f->allocs[ks_page_table_get_index_at (&table, i - 1)].bytes, >=,
                     f->allocs[ks_page_table_get_index_at (&table, i)].bytes);

  ks_page_table_clear (&table);
}

static guint
count_labels (GtkWidget *widget)
{
  guint n = GTK_IS_LABEL (widget) ? 1 : 0;

  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    n += count_labels (c);
  return n;
}

/* A table filled while hidden takes its first rows few at a time and
 * has no cells yet: it makes them when first shown, the first row's
 * among them. */
static void
test_cells_when_shown (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), GPT_FILE, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = ks_trace_load (file, NULL, NULL, &error);
  g_autoptr(KsAnalysis) analysis = NULL;
  g_autoptr(KsReport) report = NULL;
  g_autoptr(KsRowItem) first = NULL;
  g_autofree char *first_text = NULL;
  const KsReportColumn *columns;
  GtkWidget *window = gtk_window_new ();
  GtkWidget *stack = gtk_stack_new ();
  GtkWidget *page = ks_memory_page_new ();
  GtkWidget *view;
  GListModel *model;
  guint n_columns;
  guint labels_hidden;

  g_assert_no_error (error);
  analysis = ks_analysis_compute (trace, NULL, NULL, NULL, &error);
  g_assert_no_error (error);
  report = ks_report_new_allocations (trace, analysis);
  columns = ks_report_allocation_columns (&n_columns);

  gtk_stack_add_named (GTK_STACK (stack), gtk_label_new ("Elsewhere"), "other");
  gtk_stack_add_named (GTK_STACK (stack), page, "memory");
  gtk_stack_set_visible_child_name (GTK_STACK (stack), "other");
  gtk_window_set_default_size (GTK_WINDOW (window), 800, 700);
  gtk_window_set_child (GTK_WINDOW (window), stack);
  gtk_window_present (GTK_WINDOW (window));
  gtk_test_widget_wait_for_draw (window);

  view = ks_test_find_descendant (page, GTK_TYPE_COLUMN_VIEW, NULL);
  model = G_LIST_MODEL (gtk_column_view_get_model (GTK_COLUMN_VIEW (view)));
  ks_page_set_analysis (KS_PAGE (page), trace, analysis);
  /* its rows are widgets even without cells: few at first */
  g_assert_cmpuint (g_list_model_get_n_items (model), <=, KS_PAGE_TABLE_FIRST_STEP);
  WAIT_FOR (ks_page_get_filled (KS_PAGE (page)));
  g_assert_cmpuint (g_list_model_get_n_items (model), ==, GPT_GPU_ALLOCATIONS);
  /* the headers' titles only */
  labels_hidden = count_labels (view);
  g_assert_cmpuint (labels_hidden, <=, n_columns);

  first = g_list_model_get_item (model, 0);
  first_text = ks_report_get_text (report, ks_report_find_column (columns, n_columns, "bytes"),
                                   ks_row_item_get_index (first));
  g_assert_null (ks_test_find_label (view, first_text));

  gtk_stack_set_visible_child_name (GTK_STACK (stack), "memory");
  gtk_test_widget_wait_for_draw (window);
  g_assert_cmpuint (count_labels (view), >, labels_hidden + 4 * 10);
  g_assert_nonnull (ks_test_find_label (view, first_text));

  gtk_window_destroy (GTK_WINDOW (window));
}

static void
count_frame_cb (GdkFrameClock *clock,
                guint         *n_frames)
{
  (*n_frames)++;
}

/* The titles and subtitles of the rows under @widget, in order. */
static void
collect_rows (GtkWidget *widget,
              GString   *out)
{
  if (ADW_IS_ACTION_ROW (widget))
    g_string_append_printf (out, "%s | %s\n",
                            adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)),
                            adw_action_row_get_subtitle (ADW_ACTION_ROW (widget)));
  for (GtkWidget *c = gtk_widget_get_first_child (widget); c != NULL; c = gtk_widget_get_next_sibling (c))
    collect_rows (c, out);
}

/* The Summary in view of a session adds its sections one a frame, so
 * that no frame lays them all out, and is filled once the last is in;
 * then it shows what a Summary filled at once shows. */
static void
test_summary_sections (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), GPT_FILE, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = ks_trace_load (file, NULL, NULL, &error);
  g_autoptr(KsSession) session = NULL;
  g_autoptr(GString) stepped = g_string_new (NULL);
  g_autoptr(GString) at_once = g_string_new (NULL);
  GtkWidget *page = ks_summary_page_new ();
  GtkWidget *other = ks_summary_page_new ();
  GtkWidget *window = gtk_window_new ();
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 0);
  guint n_frames = 0;
  guint frames_at_refill;

  g_assert_no_error (error);
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 800);
  gtk_box_append (GTK_BOX (box), page);
  gtk_box_append (GTK_BOX (box), other);
  gtk_window_set_child (GTK_WINDOW (window), box);
  gtk_window_present (GTK_WINDOW (window));
  gtk_test_widget_wait_for_draw (window);
  g_signal_connect (gtk_widget_get_frame_clock (window), "after-paint", G_CALLBACK (count_frame_cb), &n_frames);

  session = ks_session_new (trace);
  ks_page_set_session (KS_PAGE (page), session);
  WAIT_FOR (ks_page_get_analysis (KS_PAGE (page)) != NULL);
  frames_at_refill = n_frames;
  g_assert_false (ks_page_get_filled (KS_PAGE (page)));
  WAIT_FOR (ks_page_get_filled (KS_PAGE (page)));
  g_test_message ("sections added over %u frames", n_frames - frames_at_refill);
  /* five sections: the first with the refill, one a frame after it */
  g_assert_cmpuint (n_frames - frames_at_refill, >=, 4);
  collect_rows (page, stepped);

  ks_page_set_analysis (KS_PAGE (other), trace, ks_session_get_analysis (session));
  g_assert_true (ks_page_get_filled (KS_PAGE (other)));
  collect_rows (other, at_once);
  g_assert_cmpuint (stepped->len, >, 0);
  g_assert_cmpstr (stepped->str, ==, at_once->str);

  gtk_window_destroy (GTK_WINDOW (window));
}

/* The Summary while its session's trace is analysed, up to its turn to
 * refill after the analysis came: "Analysing…", never the empty
 * window's "No Analysis Yet". */
static void
status_at_analysis_cb (KsSession  *session,
                       GParamSpec *pspec,
                       char      **title)
{
  GtkWidget *page = g_object_get_data (G_OBJECT (session), "summary");
  GtkWidget *status = ks_test_find_descendant (page, ADW_TYPE_STATUS_PAGE, NULL);

  if (*title == NULL && ks_session_get_analysis (session) != NULL)
    {
      g_assert_null (ks_page_get_analysis (KS_PAGE (page)));
      *title = g_strdup (adw_status_page_get_title (ADW_STATUS_PAGE (status)));
    }
}

static void
test_summary_waiting (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"), GPT_FILE, NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = ks_trace_load (file, NULL, NULL, &error);
  g_autoptr(KsSession) session = NULL;
  g_autofree char *title = NULL;
  GtkWidget *page = g_object_ref_sink (ks_summary_page_new ());
  GtkWidget *status = ks_test_find_descendant (page, ADW_TYPE_STATUS_PAGE, NULL);

  g_assert_no_error (error);
  g_assert_cmpstr (adw_status_page_get_title (ADW_STATUS_PAGE (status)), ==, "No Analysis Yet");

  /* as the side panel has it */
  session = ks_session_new (trace);
  g_object_bind_property (session, "busy", page, "busy", G_BINDING_SYNC_CREATE);
  g_object_set_data (G_OBJECT (session), "summary", page);
  /* after the page took busy's fall, before its turn to refill */
  g_signal_connect_after (session, "notify::busy", G_CALLBACK (status_at_analysis_cb), &title);
  ks_page_set_session (KS_PAGE (page), session);
  WAIT_FOR (ks_page_get_filled (KS_PAGE (page)) && ks_page_get_analysis (KS_PAGE (page)) != NULL);
  g_assert_cmpstr (title, ==, "Analysing…");

  g_signal_handlers_disconnect_by_data (session, &title);
  ks_page_set_session (KS_PAGE (page), NULL);
  g_object_unref (page);
}

int
main (int   argc,
      char *argv[])
{
  if (!ks_test_init_gtk (&argc, &argv))
    return 77;

  g_test_add ("/app/pages/fill/refill", Fixture, NULL, fixture_set_up, test_refill, fixture_tear_down);
  g_test_add ("/app/pages/fill/sort", Fixture, NULL, fixture_set_up, test_sort, fixture_tear_down);
  g_test_add ("/app/pages/fill/filter", Fixture, NULL, fixture_set_up, test_filter, fixture_tear_down);
  g_test_add ("/app/pages/fill/finish", Fixture, NULL, fixture_set_up, test_finish, fixture_tear_down);
  g_test_add_func ("/app/pages/fill/cells-when-shown", test_cells_when_shown);
  g_test_add_func ("/app/pages/fill/summary-sections", test_summary_sections);
  g_test_add_func ("/app/pages/fill/summary-waiting", test_summary_waiting);

  return g_test_run ();
}
