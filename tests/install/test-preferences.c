/* test-preferences.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* The Preferences window edits the GSettings keys the analyses read, in
 * both directions: widgets write the keys, and key changes show in the
 * widgets, and the open window's analyses follow. Runs under Xvfb with the
 * schema compiled into the build tree. */

#include "config.h"

#define G_SETTINGS_ENABLE_BACKEND
#include <adwaita.h>
#include <gio/gsettingsbackend.h>

#include "ks-application.h"
#include "ks-preferences-window.h"
#include "ks-test-log.h"
#include "ks-window.h"

static GSettings *
new_settings (void)
{
  g_autoptr(GSettingsBackend) backend = g_memory_settings_backend_new ();

  return g_settings_new_with_backend (APP_ID, backend);
}

static GtkWidget *
find_widget (GtkWidget  *root,
             GType       type,
             const char *title)
{
  GtkWidget *child;

  if (G_TYPE_CHECK_INSTANCE_TYPE (root, type))
    {
      if (title == NULL)
        return root;
      if (ADW_IS_PREFERENCES_ROW (root) &&
          g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (root)), title) == 0)
        return root;
    }

  for (child = gtk_widget_get_first_child (root); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_widget (child, type, title);

      if (found)
        return found;
    }

  return NULL;
}

static void
iterate (void)
{
  while (g_main_context_iteration (NULL, FALSE))
    ;
}

static void
test_preferences_defaults (void)
{
  g_autoptr(GSettings) settings = new_settings ();
  GtkWidget *window = ks_preferences_window_new (NULL, settings);
  GtkWidget *spin_row, *copies_row, *order_row;
  GtkWidget *spin, *sw;

  gtk_window_present (GTK_WINDOW (window));
  iterate ();

  g_assert_true (ks_preferences_window_get_settings (KS_PREFERENCES_WINDOW (window)) == settings);

  spin_row = find_widget (window, ADW_TYPE_ACTION_ROW, "Minimum Gap");
  copies_row = find_widget (window, ADW_TYPE_ACTION_ROW, "Count Memory Copies as Busy");
  order_row = find_widget (window, ADW_TYPE_COMBO_ROW, "Gap List Order");
  g_assert_nonnull (spin_row);
  g_assert_nonnull (copies_row);
  g_assert_nonnull (order_row);

  spin = find_widget (spin_row, GTK_TYPE_SPIN_BUTTON, NULL);
  sw = find_widget (copies_row, GTK_TYPE_SWITCH, NULL);
  g_assert_nonnull (spin);
  g_assert_nonnull (sw);

  /* The schema's defaults are shown. */
  g_assert_cmpfloat_with_epsilon (gtk_spin_button_get_value (GTK_SPIN_BUTTON (spin)), 10.0, 1e-9);
  g_assert_false (gtk_switch_get_active (GTK_SWITCH (sw)));
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (order_row)), ==, 0);

  gtk_window_destroy (GTK_WINDOW (window));
  iterate ();
}

static void
test_preferences_write_settings (void)
{
  g_autoptr(GSettings) settings = new_settings ();
  GtkWidget *window = ks_preferences_window_new (NULL, settings);
  GtkWidget *spin, *sw, *order_row;
  g_autofree char *order = NULL;

  gtk_window_present (GTK_WINDOW (window));
  iterate ();

  spin = find_widget (find_widget (window, ADW_TYPE_ACTION_ROW, "Minimum Gap"),
                      GTK_TYPE_SPIN_BUTTON, NULL);
  sw = find_widget (find_widget (window, ADW_TYPE_ACTION_ROW, "Count Memory Copies as Busy"),
                    GTK_TYPE_SWITCH, NULL);
  order_row = find_widget (window, ADW_TYPE_COMBO_ROW, "Gap List Order");

  /* Activating the switch, as a click or the space bar does. */
  gtk_widget_activate (sw);
  iterate ();
  g_assert_true (gtk_switch_get_active (GTK_SWITCH (sw)));
  g_assert_true (g_settings_get_boolean (settings, "busy-includes-copies"));

  sw = find_widget (find_widget (window, ADW_TYPE_ACTION_ROW, "Include the Warm-Up"), GTK_TYPE_SWITCH, NULL);
  g_assert_false (gtk_switch_get_active (GTK_SWITCH (sw)));
  gtk_widget_activate (sw);
  iterate ();
  g_assert_true (g_settings_get_boolean (settings, "include-warmup"));

  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), 250.5);
  iterate ();
  g_assert_cmpfloat_with_epsilon (g_settings_get_double (settings, "gap-threshold-us"), 250.5, 1e-9);

  spin = find_widget (find_widget (window, ADW_TYPE_ACTION_ROW, "Kernel Wait Threshold"),
                      GTK_TYPE_SPIN_BUTTON, NULL);
  g_assert_cmpfloat_with_epsilon (gtk_spin_button_get_value (GTK_SPIN_BUTTON (spin)), 30.0, 1e-9);
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), 5.0);
  iterate ();
  g_assert_cmpfloat_with_epsilon (g_settings_get_double (settings, "kernel-wait-us"), 5.0, 1e-9);
  g_settings_reset (settings, "kernel-wait-us");

  adw_combo_row_set_selected (ADW_COMBO_ROW (order_row), 1);
  iterate ();
  order = g_settings_get_string (settings, "gap-order");
  g_assert_cmpstr (order, ==, "time");

  gtk_window_destroy (GTK_WINDOW (window));
  iterate ();
}

static void
test_preferences_follow_settings (void)
{
  g_autoptr(GSettings) settings = new_settings ();
  GtkWidget *window;
  GtkWidget *spin, *sw, *order_row;

  /* Values set before the window opens, and changed while it is open. */
  g_settings_set_string (settings, "gap-order", "time");
  window = ks_preferences_window_new (NULL, settings);
  gtk_window_present (GTK_WINDOW (window));
  iterate ();

  spin = find_widget (find_widget (window, ADW_TYPE_ACTION_ROW, "Minimum Gap"),
                      GTK_TYPE_SPIN_BUTTON, NULL);
  sw = find_widget (find_widget (window, ADW_TYPE_ACTION_ROW, "Count Memory Copies as Busy"),
                    GTK_TYPE_SWITCH, NULL);
  order_row = find_widget (window, ADW_TYPE_COMBO_ROW, "Gap List Order");
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (order_row)), ==, 1);

  g_settings_set_double (settings, "gap-threshold-us", 1000.0);
  g_settings_set_boolean (settings, "busy-includes-copies", TRUE);
  g_settings_set_string (settings, "gap-order", "duration");
  iterate ();

  g_assert_cmpfloat_with_epsilon (gtk_spin_button_get_value (GTK_SPIN_BUTTON (spin)), 1000.0, 1e-9);
  g_assert_true (gtk_switch_get_active (GTK_SWITCH (sw)));
  g_assert_cmpuint (adw_combo_row_get_selected (ADW_COMBO_ROW (order_row)), ==, 0);

  /* The schema's range bounds the threshold. */
  {
    g_autoptr(GSettingsSchema) schema = NULL;
    g_autoptr(GSettingsSchemaKey) key = NULL;

    g_object_get (settings, "settings-schema", &schema, NULL);
    key = g_settings_schema_get_key (schema, "gap-threshold-us");
    g_assert_false (g_settings_schema_key_range_check (key, g_variant_new_double (-1.0)));
    g_assert_true (g_settings_schema_key_range_check (key, g_variant_new_double (10.0)));
  }

  gtk_window_destroy (GTK_WINDOW (window));
  iterate ();
}

/* The schema holds exactly the keys the application reads, with their
 * types and defaults. */
static void
test_schema_keys (void)
{
  static const struct {
    const char *name;
    const char *type;
    const char *default_value;
  } expected[] = {
    { "busy-includes-copies", "b", "false" },
    { "folder-memory-mb", "i", "0" },
    { "gap-order", "s", "'duration'" },
    { "gap-threshold-us", "d", "10.0" },
    { "include-warmup", "b", "false" },
    { "kernel-wait-us", "d", "30.0" },
    { "record-capture-range", "s", "'none'" },
    { "record-command", "s", "''" },
    { "record-cuda-memory-history", "b", "false" },
    { "record-directory", "s", "''" },
    { "record-environment", "as", "@as []" },
    { "record-gpu-metrics-frequency", "i", "10" },
    { "record-python-sampling", "b", "true" },
    { "record-python-sampling-frequency", "i", "1000" },
    { "record-pytorch", "s", "'autograd-nvtx'" },
    { "record-pytorch-memory", "b", "true" },
    { "record-trace", "as", "['cuda', 'nvtx', 'osrt']" },
    { "window-height", "i", "800" },
    { "window-maximized", "b", "false" },
    { "window-width", "i", "1280" },
  };
  GSettingsSchemaSource *source = g_settings_schema_source_get_default ();
  g_autoptr(GSettingsSchema) schema = g_settings_schema_source_lookup (source, APP_ID, TRUE);
  g_auto(GStrv) keys = NULL;

  g_assert_nonnull (schema);
  g_assert_cmpstr (g_settings_schema_get_path (schema), ==, "/org/kinescope/Kinescope/");

  keys = g_settings_schema_list_keys (schema);
  g_assert_cmpuint (g_strv_length (keys), ==, G_N_ELEMENTS (expected));

  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    {
      g_autoptr(GSettingsSchemaKey) key = NULL;
      g_autoptr(GVariant) value = NULL;
      g_autofree char *printed = NULL;

      g_assert_true (g_settings_schema_has_key (schema, expected[i].name));
      key = g_settings_schema_get_key (schema, expected[i].name);
      g_assert_cmpstr (g_variant_type_peek_string (g_settings_schema_key_get_value_type (key)), ==,
                       expected[i].type);
      value = g_settings_schema_key_get_default_value (key);
      printed = g_variant_print (value, TRUE);
      g_assert_cmpstr (printed, ==, expected[i].default_value);
    }

  /* the Python options take what kinescope-cli record takes */
  {
    g_autoptr(GSettingsSchemaKey) frequency = g_settings_schema_get_key (schema, "record-python-sampling-frequency");
    g_autoptr(GSettingsSchemaKey) pytorch = g_settings_schema_get_key (schema, "record-pytorch");
    g_autoptr(GVariant) lowest = g_variant_ref_sink (g_variant_new_int32 (1));
    g_autoptr(GVariant) highest = g_variant_ref_sink (g_variant_new_int32 (10000));
    g_autoptr(GVariant) zero = g_variant_ref_sink (g_variant_new_int32 (0));
    g_autoptr(GVariant) above = g_variant_ref_sink (g_variant_new_int32 (10001));
    g_autoptr(GVariant) none = g_variant_ref_sink (g_variant_new_string ("none"));
    g_autoptr(GVariant) shapes = g_variant_ref_sink (g_variant_new_string ("autograd-nvtx"));
    g_autoptr(GVariant) other = g_variant_ref_sink (g_variant_new_string ("cuda"));

    g_assert_true (g_settings_schema_key_range_check (frequency, lowest));
    g_assert_true (g_settings_schema_key_range_check (frequency, highest));
    g_assert_false (g_settings_schema_key_range_check (frequency, zero));
    g_assert_false (g_settings_schema_key_range_check (frequency, above));
    g_assert_true (g_settings_schema_key_range_check (pytorch, none));
    g_assert_true (g_settings_schema_key_range_check (pytorch, shapes));
    g_assert_false (g_settings_schema_key_range_check (pytorch, other));
  }
}

static gboolean
has_label_with_prefix (GtkWidget  *widget,
                       const char *prefix)
{
  GtkWidget *child;

  if (GTK_IS_LABEL (widget) && g_str_has_prefix (gtk_label_get_text (GTK_LABEL (widget)), prefix))
    return TRUE;
  for (child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    if (has_label_with_prefix (child, prefix))
      return TRUE;
  return FALSE;
}

/* Waits for the analyses, which run in the background, to show @prefix. */
static gboolean
wait_for_label (GtkWidget  *widget,
                const char *prefix)
{
  gint64 deadline = g_get_monotonic_time () + 30 * G_USEC_PER_SEC;

  while (!has_label_with_prefix (widget, prefix) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
  return has_label_with_prefix (widget, prefix);
}

/* What the Preferences window changes reaches the analyses in the open
 * window. Expected numbers computed independently from the fixture: GPU
 * idle intervals inside the ProfilerStep spans longer than 10 µs: 133,
 * 100 µs: 56, 1 ms: 5; busy (kernels) 3.3 %, with copies 4.4 %. */
static void
test_preferences_applied (void)
{
  g_autofree char *path = g_build_filename (g_getenv ("KS_FIXTURES_DIR"),
                                            "loader_bound.pt.trace.json.gz", NULL);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(KsApplication) app = ks_application_new ();
  g_autoptr(GSettings) settings = g_settings_new (APP_ID);
  g_autoptr(GError) error = NULL;
  GtkWidget *window, *gaps, *summary, *prefs, *spin, *sw;
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;

  g_settings_reset (settings, "gap-threshold-us");
  g_settings_reset (settings, "busy-includes-copies");

  g_application_set_flags (G_APPLICATION (app),
                           g_application_get_flags (G_APPLICATION (app)) | G_APPLICATION_NON_UNIQUE);
  g_application_register (G_APPLICATION (app), NULL, &error);
  g_assert_no_error (error);

  window = GTK_WIDGET (ks_window_new (GTK_APPLICATION (app)));
  gtk_window_present (GTK_WINDOW (window));
  ks_window_open (KS_WINDOW (window), file);
  while (ks_window_get_loading (KS_WINDOW (window)) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);

  gaps = ks_window_get_page (KS_WINDOW (window), "gaps");
  summary = ks_window_get_page (KS_WINDOW (window), "summary");
  g_assert_nonnull (gaps);
  g_assert_nonnull (summary);
  g_assert_true (wait_for_label (gaps, "133 gaps longer than"));
  g_assert_true (wait_for_label (summary, "3.3 %"));

  /* Through the Preferences window's own widgets. */
  prefs = ks_preferences_window_new (GTK_WINDOW (window), NULL);
  gtk_window_present (GTK_WINDOW (prefs));
  iterate ();
  spin = find_widget (find_widget (prefs, ADW_TYPE_ACTION_ROW, "Minimum Gap"), GTK_TYPE_SPIN_BUTTON, NULL);
  sw = find_widget (find_widget (prefs, ADW_TYPE_ACTION_ROW, "Count Memory Copies as Busy"),
                    GTK_TYPE_SWITCH, NULL);

  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), 1000.0);
  g_assert_true (wait_for_label (gaps, "5 gaps longer than"));
  gtk_spin_button_set_value (GTK_SPIN_BUTTON (spin), 100.0);
  g_assert_true (wait_for_label (gaps, "56 gaps longer than"));

  gtk_widget_activate (sw);
  g_assert_true (wait_for_label (summary, "4.4 %"));
  gtk_widget_activate (sw);
  g_assert_true (wait_for_label (summary, "3.3 %"));

  gtk_window_destroy (GTK_WINDOW (prefs));
  gtk_window_destroy (GTK_WINDOW (window));
  iterate ();
  g_settings_reset (settings, "gap-threshold-us");
  g_settings_reset (settings, "busy-includes-copies");
}

int
main (int   argc,
      char *argv[])
{
  g_log_set_writer_func (ks_test_log_writer, NULL, NULL);
  gtk_test_init (&argc, &argv, NULL);
  adw_init ();
  /* A switch flips at the end of its animation; no animations, no waiting. */
  g_object_set (gtk_settings_get_default (), "gtk-enable-animations", FALSE, NULL);

  g_test_add_func ("/preferences/schema-keys", test_schema_keys);
  g_test_add_func ("/preferences/defaults", test_preferences_defaults);
  g_test_add_func ("/preferences/write-settings", test_preferences_write_settings);
  g_test_add_func ("/preferences/follow-settings", test_preferences_follow_settings);
  g_test_add_func ("/preferences/applied", test_preferences_applied);

  return g_test_run ();
}
