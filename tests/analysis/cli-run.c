/* cli-run.c: running kinescope-cli from a test and reading its JSON
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>
#include <sys/wait.h>

#include "cli-run.h"

void
run_clear (Run *r)
{
  g_free (r->out);
  g_free (r->err);
}

/* Runs `kinescope-cli COMMAND ARGS…` with the C locale. */
void
run_command (Run                *r,
             const char         *command,
             const char * const *args)
{
  const char *root = g_getenv ("KS_BUILD_ROOT");
  g_autofree char *cli = g_build_filename (root ? root : ".", "src", "cli", "kinescope-cli", NULL);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) envp = NULL;
  int wait_status = 0;

  g_ptr_array_add (argv, cli);
  g_ptr_array_add (argv, (char *)command);
  for (guint i = 0; args[i] != NULL; i++)
    g_ptr_array_add (argv, (char *)args[i]);
  g_ptr_array_add (argv, NULL);

  /* Numbers in tables follow the locale: pin it */
  envp = g_environ_setenv (g_get_environ (), "LC_ALL", "C", TRUE);
  memset (r, 0, sizeof *r);
  g_spawn_sync (NULL, (char **)argv->pdata, envp, G_SPAWN_DEFAULT, NULL, NULL,
                &r->out, &r->err, &wait_status, &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  r->status = WEXITSTATUS (wait_status);
}

/* `kinescope-cli COMMAND` with the NULL-terminated arguments of @ap. */
void
run_args (Run        *r,
          const char *command,
          const char *first,
          va_list     ap)
{
  g_autoptr(GPtrArray) args = g_ptr_array_new ();

  for (const char *arg = first; arg != NULL; arg = va_arg (ap, const char *))
    g_ptr_array_add (args, (char *)arg);
  g_ptr_array_add (args, NULL);
  run_command (r, command, (const char * const *)args->pdata);
}


char *
fixture (const char *name)
{
  const char *dir = g_getenv ("KS_FIXTURES_DIR");

  return g_build_filename (dir ? dir : ".", name, NULL);
}

yajl_val
parse (const char *text)
{
  char errbuf[256];
  yajl_val v = yajl_tree_parse (text, errbuf, sizeof errbuf);

  if (v == NULL)
    g_error ("invalid JSON: %s\n%s", errbuf, text);
  return v;
}

yajl_val
get (yajl_val    v,
     const char *a,
     const char *b)
{
  const char *path[] = { a, b, NULL };
  yajl_val r = yajl_tree_get (v, path, yajl_t_any);

  g_assert_nonnull (r);
  return r;
}

gint64
get_int (yajl_val    v,
         const char *a,
         const char *b)
{
  yajl_val r = get (v, a, b);

  g_assert_true (YAJL_IS_INTEGER (r));
  return YAJL_GET_INTEGER (r);
}

const char *
get_str (yajl_val    v,
         const char *a)
{
  yajl_val r = get (v, a, NULL);

  g_assert_true (YAJL_IS_STRING (r));
  return r->u.string;
}

yajl_val
item (yajl_val v,
      guint    i)
{
  g_assert_true (YAJL_IS_ARRAY (v));
  g_assert_cmpuint (i, <, YAJL_GET_ARRAY (v)->len);
  return YAJL_GET_ARRAY (v)->values[i];
}

/* `kinescope-cli COMMAND FIRST …` (NULL-terminated). */
void
run_cli_command (Run        *r,
                 const char *command,
                 const char *first,
                 ...)
{
  va_list ap;

  va_start (ap, first);
  run_args (r, command, first, ap);
  va_end (ap);
}

/* `kinescope-cli stats FIRST …` (NULL-terminated). */
void
run_cli (Run        *r,
         const char *first,
         ...)
{
  va_list ap;

  va_start (ap, first);
  run_args (r, "stats", first, ap);
  va_end (ap);
}

/* `kinescope-cli diff FIRST …` (NULL-terminated). */
void
run_diff (Run        *r,
          const char *first,
          ...)
{
  va_list ap;

  va_start (ap, first);
  run_args (r, "diff", first, ap);
  va_end (ap);
}
