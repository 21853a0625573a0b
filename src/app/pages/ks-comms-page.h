/* ks-comms-page.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include "ks-page.h"

G_BEGIN_DECLS

/* Communication: the collectives by kind and message size, with calls,
 * time and NCCL's algorithm and bus bandwidth. */

#define KS_TYPE_COMMS_PAGE (ks_comms_page_get_type ())

G_DECLARE_FINAL_TYPE (KsCommsPage, ks_comms_page, KS, COMMS_PAGE, KsPage)

GtkWidget *ks_comms_page_new (void);

G_END_DECLS
