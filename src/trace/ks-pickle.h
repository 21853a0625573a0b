/* ks-pickle.h
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* A reader for the data-only subset of Python's pickle format that
 * torch.cuda.memory._dump_snapshot() writes (protocols 2 to 5): None,
 * booleans, integers, floats, str, bytes, lists, tuples and dicts, with
 * the memo. Opcodes that name or call Python code (GLOBAL, STACK_GLOBAL,
 * REDUCE, BUILD, INST, OBJ, NEWOBJ, persistent ids, extensions) are
 * refused with their name: nothing in a file can run anything.
 *
 * Values live in the document and are freed with it; strings point into
 * the document's bytes and are not NUL-terminated. A container may hold
 * a value more than once (the memo), or itself: readers walk the structure
 * they expect, never the whole graph. */

typedef enum
{
  KS_PICKLE_NONE,
  KS_PICKLE_BOOL,
  KS_PICKLE_INT,
  KS_PICKLE_BIG_INT,       /* an integer outside gint64: its value is not kept */
  KS_PICKLE_FLOAT,
  KS_PICKLE_STR,
  KS_PICKLE_BYTES,
  KS_PICKLE_LIST,
  KS_PICKLE_TUPLE,
  KS_PICKLE_DICT,
  KS_PICKLE_TAKEN,         /* a dict a KsPickleDictFunc took: only its handle is kept */
} KsPickleType;

typedef struct _KsPickleValue KsPickleValue;

struct _KsPickleValue
{
  guint8       type;             /* KsPickleType */
  guint8       pinned;           /* memoized or duplicated: referenced more than once */
  guint32      mark;             /* LIST, TUPLE, DICT: numbers made before it (ks-pickle.c) */
  union {
    gboolean  b;
    gint64    i;
    double    f;
    struct {
      const char *data;
      gsize       len;
    } str;                       /* STR (UTF-8 as written) and BYTES */
    GPtrArray *items;            /* LIST and TUPLE; DICT: key, value, key, value… */
    guint64    handle;           /* TAKEN */
  };
};

typedef struct _KsPickle KsPickle;

/* Limits against hostile files: the memo and the mark stack. */
#define KS_PICKLE_MAX_MARKS  100000u
#define KS_PICKLE_MAX_MEMO   (1u << 28)

KsPickle            *ks_pickle_load         (GBytes         *bytes,
                                             const char     *name,
                                             GError        **error);

/* Called when a SETITEMS opcode has filled an empty dict, before the next
 * opcode. Returning TRUE takes the dict: the function has copied what it
 * needs into @handle's storage, the dict becomes a TAKEN value with that
 * handle, and its items (and the integers it alone held) are freed right
 * away. A snapshot's millions of trace entries cost the reader a few
 * bytes each this way instead of a tree of values. */
typedef gboolean   (*KsPickleDictFunc)      (const KsPickleValue *dict,
                                             guint64             *handle,
                                             gpointer             user_data);

typedef enum
{
  /* @bytes are a read-only mapping of a file (GMappedFile): the pages
   * read are given back to the kernel as the reading goes on */
  KS_PICKLE_RELEASE_READ = 1 << 0,
} KsPickleFlags;

KsPickle            *ks_pickle_load_full    (GBytes           *bytes,
                                             const char       *name,
                                             KsPickleFlags     flags,
                                             KsPickleDictFunc  take_dict,
                                             gpointer          user_data,
                                             GError          **error);
void                 ks_pickle_free         (KsPickle       *self);
const KsPickleValue *ks_pickle_get_root     (KsPickle       *self);
guint64              ks_pickle_get_n_values (KsPickle       *self);

/* Whether @data starts like a pickle of protocol 2 or later. */
gboolean             ks_pickle_has_magic    (const guint8   *data,
                                             gsize           len);

/* Lookups on a DICT whose keys are str; NULL when absent or not a dict. */
const KsPickleValue *ks_pickle_dict_get     (const KsPickleValue *dict,
                                             const char          *key);
gboolean             ks_pickle_str_equal    (const KsPickleValue *value,
                                             const char          *s);
/* A STR's text as a new NUL-terminated string, invalid UTF-8 replaced. */
char                *ks_pickle_dup_str      (const KsPickleValue *value);
guint                ks_pickle_len          (const KsPickleValue *value);
/* A DICT's number of entries (items holds key, value, …); 0 otherwise. */
guint                ks_pickle_dict_size    (const KsPickleValue *value);
const KsPickleValue *ks_pickle_index        (const KsPickleValue *value,
                                             guint                i);
/* INT as gint64 (a BOOL as 0 or 1, a FLOAT truncated); FALSE otherwise. */
gboolean             ks_pickle_get_int      (const KsPickleValue *value,
                                             gint64              *out);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (KsPickle, ks_pickle_free)

G_END_DECLS
