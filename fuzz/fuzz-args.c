/* fuzz-args.c: libFuzzer harness for the encoded argument store
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Adds the input as one args text, then each of its lines as one (so that
 * records share shapes and strings in the dictionary), and checks that
 * every one decodes to its exact bytes, before and after the store is
 * sealed; and that a twin store that takes each text in two steps
 * (ks_args_prepare(), then ks_args_store_add_prepared()) gives it the same
 * id, and so does a third that takes them all as one part of a parallel
 * read (ks_args_local_prepare(), then ks_args_store_add_local()). See
 * README.md, "Fuzzing".
 */

#include "config.h"

#include <stdint.h>
#include <string.h>

#include "fuzz-common.h"
#include "ks-args.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

#define MAX_TEXTS 256

static void
check (const KsArgsStore *store,
       guint32            id,
       const uint8_t     *text,
       size_t             len,
       GString           *out)
{
  if (len == 0)
    {
      g_assert (id == 0);
      return;
    }
  g_assert (id != 0);
  g_assert (ks_args_store_get (store, id, out) == out->str);
  g_assert (out->len == len && memcmp (out->str, text, len) == 0);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  KsArgsStore *store, *twin, *parts;
  KsArgsScratch *scratch;
  KsArgsLocal *local;
  GByteArray *records;
  guint32 *map;
  gsize record_at[MAX_TEXTS + 1];
  GString *out;
  guint32 ids[MAX_TEXTS];
  size_t from[MAX_TEXTS], len[MAX_TEXTS];
  guint n = 0;

  fuzz_init ();

  store = ks_args_store_new ();
  twin = ks_args_store_new ();
  parts = ks_args_store_new ();
  scratch = ks_args_scratch_new ();
  local = ks_args_local_new ();
  records = g_byte_array_new ();
  out = g_string_new (NULL);
  from[n] = 0;
  len[n++] = size;
  for (size_t at = 0; at < size && n < MAX_TEXTS;)
    {
      const uint8_t *nl = memchr (data + at, '\n', size - at);
      size_t end = nl != NULL ? (size_t) (nl - data) : size;

      from[n] = at;
      len[n++] = end - at;
      at = end + 1;
    }
  for (guint i = 0; i < n; i++)
    {
      gsize prepared_len = ks_args_prepare (scratch, (const char *) data + from[i], len[i]);
      guint8 *prepared = g_malloc (MAX (prepared_len, 1));
      guint32 twin_id;

      g_assert (ks_args_store_add (store, (const char *) data + from[i], len[i], &ids[i]));
      check (store, ids[i], data + from[i], len[i], out);
      if (prepared_len > 0)
        ks_args_prepared_write (scratch, prepared);
      g_assert (ks_args_store_add_prepared (twin, (const char *) data + from[i], len[i], prepared, prepared_len,
                                            &twin_id));
      g_assert (twin_id == ids[i]);
      g_free (prepared);
    }
  g_assert (ks_args_store_get_memory_size (twin) == ks_args_store_get_memory_size (store));

  /* the texts as one part of a parallel read: all prepared against a
   * dictionary of their own, then added through its map */
  for (guint i = 0; i < n; i++)
    {
      record_at[i] = records->len;
      ks_args_local_prepare (local, scratch, (const char *) data + from[i], len[i], records);
    }
  record_at[n] = records->len;
  map = g_new0 (guint32, ks_args_local_get_n_entries (local) + 1);
  for (guint i = 0; i < n; i++)
    {
      gsize record_len = record_at[i + 1] - record_at[i];
      guint32 part_id;

      g_assert (ks_args_store_add_local (parts, local, map, (const char *) data + from[i], len[i],
                                         record_len > 0 ? records->data + record_at[i] : NULL, record_len,
                                         &part_id));
      g_assert (part_id == ids[i]);
      check (parts, part_id, data + from[i], len[i], out);
    }
  g_assert (ks_args_store_get_memory_size (parts) == ks_args_store_get_memory_size (store));
  g_free (map);
  ks_args_store_seal (store);
  for (guint i = 0; i < n; i++)
    check (store, ids[i], data + from[i], len[i], out);

  g_string_free (out, TRUE);
  ks_args_scratch_free (scratch);
  ks_args_local_free (local);
  g_byte_array_unref (records);
  ks_args_store_free (parts);
  ks_args_store_free (twin);
  ks_args_store_free (store);
  return 0;
}
