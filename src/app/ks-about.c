/* ks-about.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-about"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>
#include <sqlite3.h>
#include <yajl/yajl_version.h>
#include <zlib.h>

#include "ks-about.h"

/**
 * ks_about_get_debug_info:
 *
 * The versions a bug report needs: Kinescope, the toolkit and the
 * libraries that read traces, as found at run time.
 *
 * Returns: (transfer full): plain text, one item per line
 */
char *
ks_about_get_debug_info (void)
{
  GString *str = g_string_new (NULL);
  int yajl = yajl_version ();

  g_string_append_printf (str, "Kinescope %s\n", PACKAGE_VERSION);
  g_string_append_printf (str, "GLib %u.%u.%u\n",
                          glib_major_version, glib_minor_version, glib_micro_version);
  g_string_append_printf (str, "GTK %u.%u.%u\n",
                          gtk_get_major_version (), gtk_get_minor_version (),
                          gtk_get_micro_version ());
  g_string_append_printf (str, "libadwaita %u.%u.%u\n",
                          adw_get_major_version (), adw_get_minor_version (),
                          adw_get_micro_version ());
  g_string_append_printf (str, "SQLite %s\n", sqlite3_libversion ());
  g_string_append_printf (str, "yajl %d.%d.%d\n", yajl / 10000, (yajl / 100) % 100, yajl % 100);
  g_string_append_printf (str, "zlib %s\n", zlibVersion ());
  g_string_append_printf (str, "gzip inflate: %s\n", HAVE_ISAL ? "ISA-L" : "zlib");
  if (g_file_test ("/.flatpak-info", G_FILE_TEST_EXISTS))
    g_string_append (str, "Flatpak\n");

  return g_string_free (str, FALSE);
}

/**
 * ks_about_window_new:
 * @transient_for: (nullable): the window it belongs to
 *
 * Returns: (transfer full): a new #AdwAboutWindow
 */
GtkWidget *
ks_about_window_new (GtkWindow *transient_for)
{
  static const char *developers[] = { "The Kinescope developers", NULL };
  g_autofree char *debug_info = ks_about_get_debug_info ();

  g_return_val_if_fail (!transient_for || GTK_IS_WINDOW (transient_for), NULL);

  return g_object_new (ADW_TYPE_ABOUT_WINDOW,
                       "transient-for", transient_for,
                       "modal", transient_for != NULL,
                       "application-icon", APP_ID,
                       "application-name", _("Kinescope"),
                       "comments", _("See where the time of a GPU training job goes"),
                       "version", PACKAGE_VERSION,
                       "developer-name", _("The Kinescope developers"),
                       "developers", developers,
                       "copyright", _("© 2026 The Kinescope developers"),
                       "license-type", GTK_LICENSE_GPL_3_0,
                       /* Translators: your name and e-mail, one translator per line */
                       "translator-credits", _("translator-credits"),
                       "debug-info", debug_info,
                       "debug-info-filename", "kinescope-debug-info.txt",
                       NULL);
}
