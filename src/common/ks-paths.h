/* ks-paths.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Where a Kinescope program finds its own files (message catalogues, the
 * injection library, kinescope-cli, the demo trace): under the install
 * prefix, or in the build tree when it runs from there (the README's
 * first command, the tests). The build tree is recognised at run time
 * from the program's own location, by the marker file that the build
 * writes at its root; no build path is compiled in, so installed
 * binaries name no build folder. */

#define KS_BUILD_TREE_MARKER "kinescope-build-tree"

/* The root of the build tree the running program lies in, or NULL when
 * it runs installed. */
const char *ks_paths_get_build_root (void);

/* A file or folder of that build tree (path elements below its root,
 * NULL-terminated) when the program runs from it and the path exists;
 * else NULL. */
char       *ks_paths_find_built     (const char *first_element,
                                     ...) G_GNUC_NULL_TERMINATED G_GNUC_MALLOC;

/* The message catalogues: <build>/po (which the build lays out as
 * LANG/LC_MESSAGES/kinescope.mo) from the build tree, else LOCALEDIR. */
const char *ks_paths_get_locale_dir (void);

/* The folder of the recorder's Python side (sitecustomize.py and
 * _kinescope_python.py): $KINESCOPE_PYTHON_DIR, else the build tree's
 * src/collector/python when the program runs from it, else @inject_dir's
 * python/ (the installed layout, also the Flatpak's copy seen from the
 * host), else PKGLIBDIR/python. NULL when none has sitecustomize.py.
 * Transfer full. */
char       *ks_paths_find_python_dir (const char *inject_dir) G_GNUC_MALLOC;

/* The locale from the environment and our text domain, bound to
 * ks_paths_get_locale_dir(): the first thing each program's main() does. */
void        ks_i18n_init            (void);

G_END_DECLS
