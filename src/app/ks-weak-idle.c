/* ks-weak-idle.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "ks-weak-idle.h"

typedef struct
{
  GWeakRef        widget;
  KsWeakIdleFunc  func;
} WeakIdle;

static gboolean
weak_idle_cb (gpointer data)
{
  WeakIdle *w = data;
  g_autoptr(GtkWidget) widget = g_weak_ref_get (&w->widget);

  if (widget != NULL && !gtk_widget_in_destruction (widget))
    w->func (widget);
  return G_SOURCE_REMOVE;
}

static void
weak_idle_free (gpointer data)
{
  WeakIdle *w = data;

  g_weak_ref_clear (&w->widget);
  g_free (w);
}

guint
ks_weak_idle_add (int             priority,
                  GtkWidget      *widget,
                  KsWeakIdleFunc  func)
{
  WeakIdle *w;

  g_return_val_if_fail (GTK_IS_WIDGET (widget), 0);
  g_return_val_if_fail (func != NULL, 0);

  w = g_new0 (WeakIdle, 1);
  g_weak_ref_init (&w->widget, widget);
  w->func = func;
  return g_idle_add_full (priority, weak_idle_cb, w, weak_idle_free);
}
