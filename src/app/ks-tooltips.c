/* ks-tooltips.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* GTK 4.8 sizes a tooltip by the number of characters of its text: its
 * label wraps at max-width-chars = MIN (characters, 50), and a "char" is
 * as wide as a Latin letter. A Chinese character is two of those, so a
 * tooltip of n Chinese characters wraps after n / 2 of them: "侧边栏 (F9)"
 * takes two lines and a two-character tooltip is a column of one character
 * a line. GTK has no setting for it; the label of the tooltip window is
 * given the text's width in display columns instead, whenever GTK changes
 * its text or its width. */

#define G_LOG_DOMAIN "ks-tooltips"

#include "config.h"

#include "ks-tooltips.h"

/* GTK's own limit: longer texts wrap at this many columns. */
#define MAX_COLUMNS 50

guint
ks_tooltips_text_columns (const char *text)
{
  guint n = 0;

  for (const char *p = text; p != NULL && *p; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (g_unichar_iszerowidth (c))
        continue;
      n += g_unichar_iswide (c) ? 2 : 1;
    }
  return n;
}

static void
fit_label (GtkLabel *label)
{
  int columns;

  /* A text with line breaks is not wrapped: GTK turns wrapping off. */
  if (!gtk_label_get_wrap (label))
    return;
  /* One column to spare: the width of a "char" is an average. */
  columns = MIN (ks_tooltips_text_columns (gtk_label_get_text (label)) + 1, MAX_COLUMNS);
  if (gtk_label_get_max_width_chars (label) != columns)
    gtk_label_set_max_width_chars (label, columns);
}

static void
label_changed_cb (GtkLabel   *label,
                  GParamSpec *pspec,
                  gpointer    user_data)
{
  fit_label (label);
}

static GtkWidget *
find_label (GtkWidget *widget)
{
  if (GTK_IS_LABEL (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_label (child);

      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Every widget's "map": the tooltip window is GTK's private type, found by
 * its name; its label is followed from its first showing on. */
static gboolean
map_hook (GSignalInvocationHint *ihint,
          guint                  n_param_values,
          const GValue          *param_values,
          gpointer               data)
{
  static GType tooltip_window_type;
  GObject *object = g_value_get_object (&param_values[0]);
  GtkWidget *label;

  if (tooltip_window_type == 0)
    tooltip_window_type = g_type_from_name ("GtkTooltipWindow");
  if (tooltip_window_type == 0 || G_OBJECT_TYPE (object) != tooltip_window_type ||
      g_object_get_data (object, "ks-tooltip-label") != NULL)
    return TRUE;

  label = find_label (GTK_WIDGET (object));
  if (label == NULL)
    return TRUE;
  g_object_set_data (object, "ks-tooltip-label", label);
  g_signal_connect (label, "notify::label", G_CALLBACK (label_changed_cb), NULL);
  g_signal_connect (label, "notify::wrap", G_CALLBACK (label_changed_cb), NULL);
  g_signal_connect (label, "notify::max-width-chars", G_CALLBACK (label_changed_cb), NULL);
  fit_label (GTK_LABEL (label));
  return TRUE;
}

void
ks_tooltips_init (void)
{
  static gsize done;

  if (g_once_init_enter (&done))
    {
      /* The signal exists once the class does; it is kept for the process. */
      g_type_class_ref (GTK_TYPE_WIDGET);
      g_signal_add_emission_hook (g_signal_lookup ("map", GTK_TYPE_WIDGET), 0, map_hook, NULL, NULL);
      g_once_init_leave (&done, 1);
    }
}
