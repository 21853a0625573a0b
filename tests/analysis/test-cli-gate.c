/* test-cli-gate.c: kinescope-cli diff, kernels matched across names
 *
 * The runs are made from the fixtures: mixer_compiled.pt.trace.json.gz
 * with its Triton kernels renamed.
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <yajl/yajl_tree.h>

#include <gio/gio.h>
#include <glib.h>
#include <glib/gstdio.h>


typedef struct
{
  int   status;
  char *out;
  char *err;
} Run;

static char *tmp_dir;

static void
run_clear (Run *r)
{
  g_free (r->out);
  g_free (r->err);
}

/* `kinescope-cli diff ARGS…` with the C locale. */
static void
run_diff (Run        *r,
          const char *first,
          ...)
{
  const char *root = g_getenv ("KS_BUILD_ROOT");
  g_autofree char *cli = g_build_filename (root ? root : ".", "src", "cli", "kinescope-cli", NULL);
  g_autoptr(GPtrArray) argv = g_ptr_array_new ();
  g_autoptr(GError) error = NULL;
  g_auto(GStrv) envp = g_environ_setenv (g_get_environ (), "LC_ALL", "C", TRUE);
  int wait_status = 0;
  va_list ap;

  g_ptr_array_add (argv, cli);
  g_ptr_array_add (argv, (char *)"diff");
  va_start (ap, first);
  for (const char *arg = first; arg != NULL; arg = va_arg (ap, const char *))
    g_ptr_array_add (argv, (char *)arg);
  va_end (ap);
  g_ptr_array_add (argv, NULL);

  memset (r, 0, sizeof *r);
  g_spawn_sync (NULL, (char **)argv->pdata, envp, G_SPAWN_DEFAULT, NULL, NULL, &r->out, &r->err, &wait_status,
                &error);
  g_assert_no_error (error);
  g_assert_true (WIFEXITED (wait_status));
  r->status = WEXITSTATUS (wait_status);
}

static char *
fixture (const char *name)
{
  const char *dir = g_getenv ("KS_FIXTURES_DIR");

  return g_build_filename (dir ? dir : ".", name, NULL);
}

static yajl_val
parse (const char *text)
{
  char errbuf[256];
  yajl_val v = yajl_tree_parse (text, errbuf, sizeof errbuf);

  if (v == NULL)
    g_error ("invalid JSON: %s\n%s", errbuf, text);
  return v;
}

static yajl_val
get (yajl_val    v,
     const char *a,
     const char *b)
{
  const char *path[] = { a, b, NULL };
  yajl_val r = yajl_tree_get (v, path, yajl_t_any);

  g_assert_nonnull (r);
  return r;
}

/* Triton kernels renamed */

/* The names of the Triton kernels of a Kineto JSON text, in order. */
static GPtrArray *
triton_names (const char *text)
{
  GPtrArray *names = g_ptr_array_new_with_free_func (g_free);
  static const char marker[] = "\"cat\": \"kernel\", \"name\": \"triton_";

  for (const char *p = strstr (text, marker); p != NULL; p = strstr (p + 1, marker))
    {
      const char *name = p + strlen (marker) - strlen ("triton_");
      g_autofree char *copy = g_strndup (name, strchr (name, '"') - name);
      gboolean seen = FALSE;

      for (guint i = 0; i < names->len; i++)
        seen |= strcmp (g_ptr_array_index (names, i), copy) == 0;
      if (!seen)
        g_ptr_array_add (names, g_steal_pointer (&copy));
    }
  return names;
}

/* "triton_poi_fused_gelu_1" as a later compilation names it: another
 * suffix. */
static char *
renamed (const char *name)
{
  const char *us = strrchr (name, '_');

  return g_strdup_printf ("%.*s_%06x%u", (int)(us - name), name, g_str_hash (name) & 0xffffff, 7u);
}

static char *
read_gz (const char *name)
{
  g_autofree char *path = fixture (name);
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(GInputStream) raw = G_INPUT_STREAM (g_file_read (file, NULL, &error));
  g_autoptr(GZlibDecompressor) gz = g_zlib_decompressor_new (G_ZLIB_COMPRESSOR_FORMAT_GZIP);
  g_autoptr(GInputStream) in = g_converter_input_stream_new (raw, G_CONVERTER (gz));
  g_autoptr(GOutputStream) mem = g_memory_output_stream_new_resizable ();

  g_assert_no_error (error);
  g_output_stream_splice (mem, in, G_OUTPUT_STREAM_SPLICE_CLOSE_TARGET, NULL, &error);
  g_assert_no_error (error);
  g_output_stream_write (mem, "", 1, NULL, NULL);
  return g_memory_output_stream_steal_data (G_MEMORY_OUTPUT_STREAM (mem));
}

/* @text with "PREFIX"NAME" as "PREFIX"RENAMED" for each Triton name. */
static char *
rename_all (const char *text,
            GPtrArray  *names,
            const char *prefix)
{
  char *out = g_strdup (text);

  for (guint i = 0; i < names->len; i++)
    {
      const char *name = g_ptr_array_index (names, i);
      g_autofree char *to = renamed (name);
      g_autofree char *from_q = g_strdup_printf ("%s\"%s\"", prefix, name);
      g_autofree char *to_q = g_strdup_printf ("%s\"%s\"", prefix, to);
      g_auto(GStrv) parts = g_strsplit (out, from_q, -1);

      g_assert_cmpuint (g_strv_length (parts), >, 1);
      g_free (out);
      out = g_strjoinv (to_q, parts);
    }
  return out;
}

/* Every Triton kernel of the renamed run is paired with its original:
 * @how says by what, the calls and times are the same. */
static void
assert_renamed_match (const char *base,
                      const char *path,
                      GPtrArray  *names,
                      const char *how)
{
  yajl_val root, kernels;
  guint found = 0;
  Run r;

  run_diff (&r, base, path, "--report", "kernels", "--format", "json", NULL);
  g_assert_cmpint (r.status, ==, 0);
  root = parse (r.out);
  kernels = get (root, "kernels", NULL);
  for (guint i = 0; i < YAJL_GET_ARRAY (kernels)->len; i++)
    {
      yajl_val k = YAJL_GET_ARRAY (kernels)->values[i];
      const char *name = YAJL_GET_STRING (get (k, "name", NULL));
      yajl_val new_name = get (k, "new_name", NULL);

      g_assert_cmpstr (YAJL_GET_STRING (get (k, "status", NULL)), ==, "both");
      g_assert_cmpint (YAJL_GET_INTEGER (get (k, "base_calls", NULL)), ==, YAJL_GET_INTEGER (get (k, "new_calls", NULL)));
      g_assert_cmpint (YAJL_GET_INTEGER (get (k, "base_total_ns", NULL)), ==,
                       YAJL_GET_INTEGER (get (k, "new_total_ns", NULL)));
      if (!g_str_has_prefix (name, "triton_"))
        {
          g_assert_cmpstr (YAJL_GET_STRING (get (k, "match", NULL)), ==, "name");
          g_assert_true (YAJL_IS_NULL (new_name));
          continue;
        }
      {
        g_autofree char *expected = renamed (name);

        g_assert_cmpstr (YAJL_GET_STRING (get (k, "match", NULL)), ==, how);
        g_assert_true (YAJL_IS_STRING (new_name));
        g_assert_cmpstr (YAJL_GET_STRING (new_name), ==, expected);
      }
      found++;
    }
  g_assert_cmpuint (found, ==, names->len);
  yajl_tree_free (root);
  run_clear (&r);

  /* The table says how each pair was matched. */
  run_diff (&r, base, path, "--report", "kernels", "--limit", "0", NULL);
  g_assert_cmpint (r.status, ==, 0);
  g_assert_nonnull (strstr (r.out, "Matched by"));
  g_assert_nonnull (strstr (r.out, g_str_equal (how, "operator") ? "operator and order" : "normalised name"));
  g_assert_nonnull (strstr (r.out, "triton_poi_fused_gelu_1 → triton_poi_fused_gelu_"));
  run_clear (&r);
}

static void
test_triton_renamed (void)
{
  g_autofree char *base = fixture ("mixer_compiled.pt.trace.json.gz");
  g_autofree char *text = read_gz ("mixer_compiled.pt.trace.json.gz");
  g_autoptr(GPtrArray) names = triton_names (text);
  g_autoptr(GError) error = NULL;

  /* 22 Triton kernels (test-cli-stats' diff-compile counts them too) */
  g_assert_cmpuint (names->len, ==, 22);

  /* Only the kernels renamed: their launching operators still agree. */
  {
    g_autofree char *kernels_only = rename_all (text, names, "\"cat\": \"kernel\", \"name\": ");
    g_autofree char *path = g_build_filename (tmp_dir, "renamed_kernels.json", NULL);

    g_assert_true (g_file_set_contents (path, kernels_only, -1, &error));
    g_assert_no_error (error);
    assert_renamed_match (base, path, names, "operator");
  }
  /* The kernels and the operators named after them: by normalised name. */
  {
    g_autofree char *all = rename_all (text, names, "\"name\": ");
    g_autofree char *path = g_build_filename (tmp_dir, "renamed_all.json", NULL);

    g_assert_true (g_file_set_contents (path, all, -1, &error));
    g_assert_no_error (error);
    assert_renamed_match (base, path, names, "normalised");
  }
}

int
main (int    argc,
      char **argv)
{
  g_autoptr(GError) error = NULL;
  int status;

  g_test_init (&argc, &argv, NULL);
  tmp_dir = g_dir_make_tmp ("ks-gate-XXXXXX", &error);
  g_assert_no_error (error);

  g_test_add_func ("/analysis/gate/triton-renamed", test_triton_renamed);
  status = g_test_run ();

  {
    g_autoptr(GDir) dir = g_dir_open (tmp_dir, 0, NULL);
    const char *name;

    while (dir != NULL && (name = g_dir_read_name (dir)) != NULL)
      {
        g_autofree char *path = g_build_filename (tmp_dir, name, NULL);

        g_unlink (path);
      }
    g_rmdir (tmp_dir);
    g_free (tmp_dir);
  }
  return status;
}
