/* main.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include "ks-application.h"
#include "ks-paths.h"
#include "ks-signals.h"

int
main (int   argc,
      char *argv[])
{
  g_autoptr(KsApplication) app = NULL;

  /* before GTK starts a thread: each inherits the blocked mask */
  ks_signals_init ();
  ks_i18n_init ();

  app = ks_application_new ();
  return g_application_run (G_APPLICATION (app), argc, argv);
}
