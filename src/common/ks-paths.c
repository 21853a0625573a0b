/* ks-paths.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#define G_LOG_DOMAIN "ks-paths"

#include "config.h"

#include <glib/gi18n.h>
#include <locale.h>
#include <stdarg.h>

#include "ks-paths.h"

/* Programs lie at most this many folders below the build root
 * (tests/app/test-window, src/collector/record/...). */
#define MAX_DEPTH 4

static char *
find_build_root (void)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *dir = NULL;

  if (exe == NULL)
    return NULL;

  dir = g_path_get_dirname (exe);
  for (guint up = 0; up <= MAX_DEPTH; up++)
    {
      g_autofree char *marker = g_build_filename (dir, KS_BUILD_TREE_MARKER, NULL);
      char *parent;

      if (g_file_test (marker, G_FILE_TEST_IS_REGULAR))
        return g_steal_pointer (&dir);
      parent = g_path_get_dirname (dir);
      if (g_strcmp0 (parent, dir) == 0)
        {
          g_free (parent);
          break;
        }
      g_free (dir);
      dir = parent;
    }
  return NULL;
}

const char *
ks_paths_get_build_root (void)
{
  static gsize once;
  static char *root;

  if (g_once_init_enter (&once))
    {
      root = find_build_root ();
      g_once_init_leave (&once, 1);
    }
  return root;
}

char *
ks_paths_find_built (const char *first_element,
                     ...)
{
  const char *root = ks_paths_get_build_root ();
  g_autoptr(GPtrArray) parts = NULL;
  g_autofree char *path = NULL;
  va_list args;

  if (root == NULL)
    return NULL;

  parts = g_ptr_array_new ();
  g_ptr_array_add (parts, (gpointer)root);
  va_start (args, first_element);
  for (const char *e = first_element; e != NULL; e = va_arg (args, const char *))
    g_ptr_array_add (parts, (gpointer)e);
  va_end (args);
  g_ptr_array_add (parts, NULL);

  path = g_build_filenamev ((char **)parts->pdata);
  if (!g_file_test (path, G_FILE_TEST_EXISTS))
    return NULL;
  return g_steal_pointer (&path);
}

static gboolean
has_sitecustomize (const char *dir)
{
  g_autofree char *file = g_build_filename (dir, "sitecustomize.py", NULL);

  return g_file_test (file, G_FILE_TEST_IS_REGULAR);
}

char *
ks_paths_find_python_dir (const char *inject_dir)
{
  const char *env = g_getenv ("KINESCOPE_PYTHON_DIR");
  g_autofree char *built = NULL;
  g_autofree char *beside = NULL;
  g_autofree char *installed = NULL;

  if (env != NULL && *env)
    return has_sitecustomize (env) ? g_strdup (env) : NULL;

  /* Run from the build tree: the copy built beside us, as for the
   * injection library. */
  built = ks_paths_find_built ("src", "collector", "python", "sitecustomize.py", NULL);
  if (built != NULL)
    return g_path_get_dirname (built);

  if (inject_dir != NULL)
    {
      beside = g_build_filename (inject_dir, "python", NULL);
      if (has_sitecustomize (beside))
        return g_steal_pointer (&beside);
    }

  installed = g_build_filename (PKGLIBDIR, "python", NULL);
  if (has_sitecustomize (installed))
    return g_steal_pointer (&installed);
  return NULL;
}

const char *
ks_paths_get_locale_dir (void)
{
  static gsize once;
  static char *dir;

  if (g_once_init_enter (&once))
    {
      dir = ks_paths_find_built ("po", NULL);
      if (dir == NULL)
        dir = g_strdup (LOCALEDIR);
      g_once_init_leave (&once, 1);
    }
  return dir;
}

void
ks_i18n_init (void)
{
  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, ks_paths_get_locale_dir ());
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);
}
