/* ks-record-dialog.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define KS_TYPE_RECORD_DIALOG (ks_record_dialog_get_type ())

G_DECLARE_FINAL_TYPE (KsRecordDialog, ks_record_dialog, KS, RECORD_DIALOG, AdwWindow)

/* "Record New Session…": asks for the command line, working folder,
 * output file (shown: the folder's first free reportN.kscope unless
 * typed or chosen; passed as -o), environment additions, what to trace,
 * the capture range and the GPU metrics rate, remembered in GSettings
 * between runs (the output file is not). Start emits
 * ::start (arguments of `kinescope-cli` beginning with "record", the
 * working folder, NAME=VALUE additions) and closes the dialog. */
KsRecordDialog  *ks_record_dialog_new             (GtkWindow       *parent);
char           **ks_record_dialog_build_arguments (KsRecordDialog  *self,
                                                   GError         **error);

G_END_DECLS
