/* test-args.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <string.h>

#include "ks-args.h"
#include "ks-trace-loader.h"

/* The store's contract: every byte string comes back as it went in. And
 * a twin store that takes each text in two steps (prepared, as on a
 * reading thread, then added) gives every text the same id and ends up
 * the same size: the same dictionary and records. So does a third that
 * takes them by parts of PART_TEXTS texts, each part prepared against a
 * dictionary of its own and then added through its map, as the chunks
 * of a parallel JSON read are. */
#define PART_TEXTS 7

typedef struct
{
  KsArgsStore   *store;
  KsArgsStore   *twin;
  KsArgsStore   *parts;
  KsArgsScratch *scratch;
  KsArgsLocal   *local;
  guint          part_from;   /* the first text of the part not added yet */
  guint          n_prepared;  /* texts of all parts that were prepared */
  GPtrArray     *texts;   /* GBytes, as added */
  GArray        *ids;     /* guint32 */
} Roundtrip;

static void
roundtrip_init (Roundtrip *rt)
{
  rt->store = ks_args_store_new ();
  rt->twin = ks_args_store_new ();
  rt->parts = ks_args_store_new ();
  rt->scratch = ks_args_scratch_new ();
  rt->local = ks_args_local_new ();
  rt->part_from = 0;
  rt->n_prepared = 0;
  rt->texts = g_ptr_array_new_with_free_func ((GDestroyNotify) g_bytes_unref);
  rt->ids = g_array_new (FALSE, FALSE, sizeof (guint32));
}

static void
roundtrip_clear (Roundtrip *rt)
{
  g_clear_pointer (&rt->store, ks_args_store_free);
  g_clear_pointer (&rt->twin, ks_args_store_free);
  g_clear_pointer (&rt->parts, ks_args_store_free);
  g_clear_pointer (&rt->scratch, ks_args_scratch_free);
  g_clear_pointer (&rt->local, ks_args_local_free);
  g_clear_pointer (&rt->texts, g_ptr_array_unref);
  g_clear_pointer (&rt->ids, g_array_unref);
}

static void
assert_text (const KsArgsStore *store,
             guint32            id,
             GBytes            *text,
             GString           *scratch)
{
  gsize len;
  const char *want = g_bytes_get_data (text, &len);

  g_assert_cmpuint (id, !=, 0);
  /* appended after what is there: the prefix stays */
  g_string_assign (scratch, "<");
  ks_args_store_append (store, id, scratch);
  if (scratch->len != len + 1 || memcmp (scratch->str + 1, want, len) != 0)
    g_error ("decoded %u bytes “%s”, added %u bytes “%.*s”", (guint) scratch->len - 1, scratch->str + 1,
             (guint) len, (int) len, want);
  g_assert_cmpint (scratch->str[0], ==, '<');
}

/* The texts since the last part, as one part: all prepared against a
 * dictionary emptied first, then all added through its map; each gets
 * the id the one-step store gave it. */
static void
roundtrip_add_part (Roundtrip *rt)
{
  g_autoptr(GByteArray) records = g_byte_array_new ();
  g_autoptr(GArray) at = g_array_new (FALSE, FALSE, sizeof (gsize));
  g_autofree guint32 *map = NULL;
  guint n = rt->texts->len - rt->part_from;

  ks_args_local_clear (rt->local);
  g_assert_cmpuint (ks_args_local_get_n_entries (rt->local), ==, 0);
  for (guint i = 0; i < n; i++)
    {
      gsize len, from = records->len;
      const char *text = g_bytes_get_data (rt->texts->pdata[rt->part_from + i], &len);
      gsize got = ks_args_local_prepare (rt->local, rt->scratch, text, len, records);

      g_assert_cmpuint (records->len, ==, from + got);
      /* prepared in a part as in two steps */
      g_assert_cmpint (got > 0, ==, ks_args_prepare (rt->scratch, text, len) > 0);
      rt->n_prepared += got > 0;
      g_array_append_val (at, from);
    }
  {
    gsize end = records->len;

    g_array_append_val (at, end);
  }
  map = g_new0 (guint32, ks_args_local_get_n_entries (rt->local) + 1);
  for (guint i = 0; i < n; i++)
    {
      gsize len;
      const char *text = g_bytes_get_data (rt->texts->pdata[rt->part_from + i], &len);
      gsize from = g_array_index (at, gsize, i), to = g_array_index (at, gsize, i + 1);
      guint32 id;

      g_assert_true (ks_args_store_add_local (rt->parts, rt->local, map, text, len, records->data + from,
                                              to - from, &id));
      g_assert_cmpuint (id, ==, g_array_index (rt->ids, guint32, rt->part_from + i));
    }
  rt->part_from = rt->texts->len;
}

/* Adds @len bytes of @text and checks them back at once. */
static void
roundtrip_add (Roundtrip  *rt,
               const char *text,
               gsize       len)
{
  g_autoptr(GString) scratch = g_string_new (NULL);
  GBytes *bytes = g_bytes_new (text, len);
  gsize prepared_len = ks_args_prepare (rt->scratch, text, len);
  g_autofree guint8 *prepared = g_malloc (MAX (prepared_len, 1));
  guint32 id, twin_id;

  g_assert_true (ks_args_store_add (rt->store, text, len, &id));
  assert_text (rt->store, id, bytes, scratch);
  if (prepared_len > 0)
    ks_args_prepared_write (rt->scratch, prepared);
  g_assert_true (ks_args_store_add_prepared (rt->twin, text, len, prepared, prepared_len, &twin_id));
  g_assert_cmpuint (twin_id, ==, id);
  g_ptr_array_add (rt->texts, bytes);
  g_array_append_val (rt->ids, id);
  if (rt->texts->len - rt->part_from == PART_TEXTS)
    roundtrip_add_part (rt);
}

/* Checks every text again: the dictionary and the records grew since, and
 * a sealed store has given back its index and spare room. */
static void
roundtrip_check_all (Roundtrip *rt)
{
  g_autoptr(GString) scratch = g_string_new (NULL);

  if (rt->part_from < rt->texts->len)
    roundtrip_add_part (rt);
  for (guint pass = 0; pass < 2; pass++)
    {
      g_assert_cmpuint (ks_args_store_get_memory_size (rt->twin), ==, ks_args_store_get_memory_size (rt->store));
      g_assert_cmpuint (ks_args_store_get_memory_size (rt->parts), ==, ks_args_store_get_memory_size (rt->store));
      for (guint i = 0; i < rt->ids->len; i++)
        {
          assert_text (rt->store, g_array_index (rt->ids, guint32, i), rt->texts->pdata[i], scratch);
          assert_text (rt->twin, g_array_index (rt->ids, guint32, i), rt->texts->pdata[i], scratch);
          assert_text (rt->parts, g_array_index (rt->ids, guint32, i), rt->texts->pdata[i], scratch);
        }
      ks_args_store_seal (rt->store);
      ks_args_store_seal (rt->twin);
      ks_args_store_seal (rt->parts);
    }
}

static const char *const cases[] = {
  "{}", "[]", "{\"a\":[]}", "{\"a\":{}}", "{\"a\":[{},[],[[]],{\"b\":{}}]}",
  "{\"External id\":12,\"cbid\":211,\"correlation\":13}",
  "{\"grid\":[1,2,3],\"block\":[128,1,1],\"name\":\"k\",\"x\":true,\"y\":false,\"z\":null}",
  /* numbers at and past the int64 limits, and the ones kept as text */
  "{\"n\":0}", "{\"n\":-0}", "{\"n\":01}", "{\"n\":00}", "{\"n\":-01}", "{\"n\":1.0}", "{\"n\":-0.0}",
  "{\"n\":1e3}", "{\"n\":1E+3}", "{\"n\":-1.5e-7}", "{\"n\":0e0}", "{\"n\":1.5}",
  "{\"n\":9223372036854775807}", "{\"n\":-9223372036854775808}",
  "{\"n\":9223372036854775808}", "{\"n\":-9223372036854775809}",
  "{\"n\":18446744073709551615}", "{\"n\":18446744073709551616}",
  "{\"n\":99999999999999999999}", "{\"n\":1000000000000000000}", "{\"n\":-999999999999999999}",
  "{\"n\":123456789012345678901234567890}",
  "{\"n\":1.}", "{\"n\":.5}", "{\"n\":-}", "{\"n\":+1}", "{\"n\":1e}", "{\"n\":1e+}", "{\"n\":--1}",
  "{\"n\":0x10}", "{\"n\":1.5.2}", "{\"n\":NaN}", "{\"n\":Infinity}", "{\"n\":-Infinity}",
  "{\"n\":[1,-1,63,64,-64,-65,8191,8192,-8192]}",
  /* escapes inside strings, and bad ones */
  "{\"s\":\"a\\\"b\"}", "{\"s\":\"\\\\\"}", "{\"s\":\"\\u0001\\u0002\"}", "{\"s\":\"\\/\\b\\f\\n\\r\\t\"}",
  "{\"s\":\"\\u00zz\"}", "{\"s\":\"\\x\"}", "{\"s\":\"\\u12\"}", "{\"s\":\"\\\"}", "{\"s\":\"ab}",
  "{\"\\u0001\":\"\\u0002\"}", "{\"s\":\"\\\\u0001\"}",
  /* placeholders' own bytes as text: not valid JSON, kept raw */
  "{\"s\":\"\x01\"}", "{\"s\":\"\x02\"}", "{\"\x01\":1}", "{\x01}", "\x01", "\x02\x01",
  /* keys that look like values, values that look like keys */
  "{\"1\":1,\"true\":\"false\",\"null\":null,\"-0\":\"-0\"}", "{\"a\":\"b\",\"b\":\"a\"}",
  "{\"a\":[\"a\",\"b\",\"a\"]}", "{\"a\":\"\",\"\":\"a\"}",
  /* literals, whole and not */
  "{\"t\":tru}", "{\"t\":nul}", "{\"t\":falsey}", "{\"t\":True}", "{\"t\":true1}", "{\"t\":t}",
  /* structure */
  "{", "}", "{\"a\":1", "{\"a\":1}}", "{\"a\":[1}", "{\"a\":{1]}", "{\"a\" 1}", "{\"a\":1,}", "{,}", "{:}",
  "{\"a\":}", "{\"a\"}", "{1:2}", "{\"a\":1 \"b\":2}", "{\"a\":1}{}", "{\"a\":[1,]}", "{\"a\":[,1]}",
  "[1]", "\"s\"", "1", "null", " {}", "{} ", "{}\n", "{ \"a\" : [ 1 , \"x\" ] }", "{\t}", "{\r\n}",
  "{\"a\":1}x", "x", "{\"a\":\"\xc3\xa9\xe2\x82\xac\xff\xfe\"}", "{\"\xff\":1}",
};

static void
test_args_cases (void)
{
  Roundtrip rt;

  roundtrip_init (&rt);
  /* first in a new store: an empty string value before any shape */
  roundtrip_add (&rt, "{\"\":\"\"}", 7);
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    roundtrip_add (&rt, cases[i], strlen (cases[i]));
  /* NUL bytes: text is bytes, not a C string */
  roundtrip_add (&rt, "{\"a\":\"\0\"}", 9);
  roundtrip_add (&rt, "\0", 1);
  roundtrip_add (&rt, "{}\0{}", 5);
  /* nothing to keep */
  {
    guint32 id = 7;
    g_autoptr(GString) scratch = g_string_new ("x");

    g_assert_true (ks_args_store_add (rt.store, "{}", 0, &id));
    g_assert_cmpuint (id, ==, 0);
    g_assert_null (ks_args_store_get (rt.store, 0, scratch));
    g_assert_cmpuint (scratch->len, ==, 0);
  }
  roundtrip_check_all (&rt);
  /* the parts took at least the compact JSON objects prepared (36 of
   * the texts, by Python's strict json.loads), the rest in one step */
  g_assert_cmpuint (rt.n_prepared, >=, 36);

  roundtrip_clear (&rt);
}

/* Nesting up to the encoder's depth and past it, and a text too long to
 * encode. */
static void
test_args_deep_and_long (void)
{
  Roundtrip rt;

  roundtrip_init (&rt);
  for (guint depth = 60; depth <= 70; depth++)
    {
      g_autoptr(GString) s = g_string_new ("{\"a\":");

      for (guint i = 1; i < depth; i++)
        g_string_append (s, i % 2 ? "[" : "{\"b\":");
      g_string_append (s, "1");
      for (guint i = depth - 1; i >= 1; i--)
        g_string_append (s, i % 2 ? "]" : "}");
      g_string_append (s, "}");
      roundtrip_add (&rt, s->str, s->len);
    }
  for (guint n = 1000; n <= 400000; n *= 20)
    {
      g_autoptr(GString) s = g_string_new ("{\"v\":[");

      for (guint i = 0; i < n; i++)
        g_string_append_printf (s, "%s%u,\"s%u\"", i ? "," : "", i * 7919, i % 100);
      g_string_append (s, "]}");
      roundtrip_add (&rt, s->str, s->len);
    }
  roundtrip_check_all (&rt);
  roundtrip_clear (&rt);
}

/* Bytes drawn mostly from JSON's own, and valid args with one byte
 * changed, dropped or doubled. */
static void
test_args_random (void)
{
  static const char alphabet[] = "{}[]\":,0123456789.eE+-\\utfnrasl \x01\x02\xff";
  static const char *const seeds[] = {
    "{\"External id\":4711,\"cbid\":211,\"correlation\":-13}",
    "{\"Python parent id\":1,\"Python id\":2,\"Ev Idx\":3}",
    "{\"a\":[1.5,\"x\\\"y\",{\"b\":null}],\"c\":\"\\u00e9\",\"d\":-9223372036854775808}",
  };
  g_autoptr(GRand) rand = g_rand_new_with_seed (20261202);
  Roundtrip rt;
  char buf[96];

  roundtrip_init (&rt);
  for (guint i = 0; i < 20000; i++)
    {
      guint len = g_rand_int_range (rand, 1, sizeof buf);

      for (guint k = 0; k < len; k++)
        buf[k] = g_rand_int_range (rand, 0, 8) == 0 ? (char) g_rand_int_range (rand, 0, 256)
                                                    : alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)];
      if (g_rand_boolean (rand))
        buf[0] = '{';
      roundtrip_add (&rt, buf, len);
    }
  for (guint i = 0; i < 20000; i++)
    {
      const char *seed = seeds[i % G_N_ELEMENTS (seeds)];
      gsize len = strlen (seed);
      guint at = g_rand_int_range (rand, 0, len);
      g_autoptr(GString) s = g_string_new_len (seed, len);

      switch (g_rand_int_range (rand, 0, 3))
        {
        case 0:
          s->str[at] = g_rand_boolean (rand) ? alphabet[g_rand_int_range (rand, 0, sizeof alphabet - 1)]
                                             : (char) g_rand_int_range (rand, 0, 256);
          break;
        case 1:
          g_string_erase (s, at, 1);
          break;
        default:
          g_string_insert_c (s, at, s->str[at]);
          break;
        }
      if (s->len > 0)
        roundtrip_add (&rt, s->str, s->len);
    }
  roundtrip_check_all (&rt);
  roundtrip_clear (&rt);
}

/* Args of one shape that differ in their numbers take a few bytes each:
 * the shape once, then a varint a number. */
static void
test_args_compact (void)
{
  g_autoptr(KsArgsStore) store = ks_args_store_new ();
  g_autoptr(GString) text = g_string_new (NULL);
  g_autoptr(GString) scratch = g_string_new (NULL);
  const guint n = 100000;
  gsize text_bytes = 0;
  guint32 first = 0, last = 0;

  for (guint i = 0; i < n; i++)
    {
      guint32 id;

      g_string_printf (text, "{\"External id\":%u,\"cbid\":211,\"correlation\":%u,\"stream\":\"%s\"}",
                       1000 + i, 5000 + 2 * i, i % 2 ? "s7" : "s20");
      text_bytes += text->len;
      g_assert_true (ks_args_store_add (store, text->str, text->len, &id));
      if (i == 0)
        first = id;
      last = id;
    }
  ks_args_store_seal (store);
  /* the shape 1 byte, the numbers 3, 2 and 3 bytes, the string 1 */
  g_assert_cmpuint (ks_args_store_get_memory_size (store), <=, (gsize) n * 10 + 4096);
  g_assert_cmpuint (text_bytes, >, (gsize) n * 65);
  g_assert_cmpstr (ks_args_store_get (store, first, scratch), ==,
                   "{\"External id\":1000,\"cbid\":211,\"correlation\":5000,\"stream\":\"s20\"}");
  g_assert_cmpstr (ks_args_store_get (store, last, scratch), ==,
                   "{\"External id\":100999,\"cbid\":211,\"correlation\":204998,\"stream\":\"s7\"}");

  /* an integer at the limits is one varint of 10 bytes, not its text */
  {
    g_autoptr(KsArgsStore) limits = ks_args_store_new ();

    for (guint i = 0; i < 1000; i++)
      {
        const char *t = i % 2 ? "{\"v\":-9223372036854775808}" : "{\"v\":9223372036854775807}";
        guint32 id;

        g_assert_true (ks_args_store_add (limits, t, strlen (t), &id));
        g_assert_cmpstr (ks_args_store_get (limits, id, scratch), ==, t);
      }
    ks_args_store_seal (limits);
    g_assert_cmpuint (ks_args_store_get_memory_size (limits), <, 1000 * 11 + 512);
  }
}

static guint
check_trace_file (const char *path,
                  gsize      *text_bytes,
                  gsize      *store_bytes)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  g_autoptr(KsTrace) trace = ks_trace_load (file, NULL, NULL, &error);
  g_autoptr(GString) scratch = g_string_new (NULL);
  Roundtrip rt;
  guint n = 0;

  if (trace == NULL)
    return 0;
  roundtrip_init (&rt);
  for (guint32 t = 0; t < trace->n_tracks; t++)
    for (guint32 i = 0; i < trace->tracks[t].n_slices; i++)
      if (ks_trace_slice_args (trace, &trace->tracks[t], i, scratch) != NULL)
        {
          roundtrip_add (&rt, scratch->str, scratch->len);
          *text_bytes += scratch->len + 1;
          n++;
        }
  for (guint32 i = 0; i < trace->n_instants; i++)
    if (ks_trace_args (trace, trace->instants[i].args, scratch) != NULL)
      {
        roundtrip_add (&rt, scratch->str, scratch->len);
        *text_bytes += scratch->len + 1;
        n++;
      }
  roundtrip_check_all (&rt);
  roundtrip_clear (&rt);
  if (trace->args != NULL)
    *store_bytes += ks_args_store_get_memory_size (trace->args);
  return n;
}

static void
test_args_fixtures (void)
{
  const char *dir = g_getenv ("KS_FIXTURES_DIR");
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;
  gsize text_bytes = 0, store_bytes = 0;
  guint n = 0;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (g_str_has_suffix (name, ".json.gz") || g_str_has_suffix (name, ".kscope"))
        n += check_trace_file (path, &text_bytes, &store_bytes);
    }
  g_test_message ("%u args, %" G_GSIZE_FORMAT " bytes of text in %" G_GSIZE_FORMAT " bytes", n,
                  text_bytes, store_bytes);
  g_assert_cmpuint (n, >, 100000);
  /* about 15 bytes an event where the text takes 140 */
  g_assert_cmpuint (store_bytes * 4, <, text_bytes);
}

static void
list_traces (const char *dir,
             GPtrArray  *into)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      if (g_file_test (path, G_FILE_TEST_IS_DIR))
        list_traces (path, into);
      else if (g_str_has_suffix (name, ".json") || g_str_has_suffix (name, ".json.gz")
               || g_str_has_suffix (name, ".sqlite"))
        g_ptr_array_add (into, g_steal_pointer (&path));
    }
}

static void
test_args_corpus (void)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");
  g_autofree char *dir = shared ? g_build_filename (shared, "corpus", NULL) : NULL;
  g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func (g_free);
  gsize text_bytes = 0, store_bytes = 0;
  guint n = 0;

  if (dir == NULL || !g_file_test (dir, G_FILE_TEST_IS_DIR))
    {
      g_test_skip ("the shared corpus is absent (KS_SHARED_DIR/corpus)");
      return;
    }
  list_traces (dir, files);
  g_assert_cmpuint (files->len, >, 0);
  for (guint i = 0; i < files->len; i++)
    n += check_trace_file (files->pdata[i], &text_bytes, &store_bytes);
  g_test_message ("%u files, %u args", files->len, n);
  g_assert_cmpuint (n, >, 0);
}

int
main (int   argc,
      char *argv[])
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/args/cases", test_args_cases);
  g_test_add_func ("/args/deep-and-long", test_args_deep_and_long);
  g_test_add_func ("/args/random", test_args_random);
  g_test_add_func ("/args/compact", test_args_compact);
  g_test_add_func ("/args/fixtures", test_args_fixtures);
  g_test_add_func ("/args/corpus", test_args_corpus);
  return g_test_run ();
}
