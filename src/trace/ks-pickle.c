/* ks-pickle.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <glib/gi18n.h>
#include <gio/gio.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ks-pickle.h"

/* Values are allocated in chunks that never move, so containers and the
 * memo can hold plain pointers; the document frees them in one pass,
 * whatever cycles or sharing the file made. Numbers (None, booleans,
 * integers, floats) have chunks of their own: Python never memoizes them,
 * so those a taken dict alone held lie together at the end of their
 * chunk, and go back to it (try_take()). */
#define CHUNK_VALUES 4096u

typedef struct
{
  GPtrArray     *chunks;          /* KsPickleValue[CHUNK_VALUES] each */
  KsPickleValue *chunk;           /* the last one */
  guint          in_chunk;        /* used values of the last chunk */
  guint64        n;
} Arena;

struct _KsPickle
{
  GBytes        *bytes;
  Arena          values;          /* str, bytes and containers */
  Arena          numbers;
  guint64        n_values;
  KsPickleValue *root;
};

/* The stack and the memo: pushed a few times per byte of a file of a
 * gigabyte, so without a call into GLib each time. */
typedef struct
{
  KsPickleValue **data;
  guint           len;
  guint           size;
} Values;

static void
values_grow (Values *values)
{
  values->size = MAX (64, 2 * values->size);
  values->data = g_renew (KsPickleValue *, values->data, values->size);
}

static inline void
values_push (Values        *values,
             KsPickleValue *v)
{
  if (G_UNLIKELY (values->len == values->size))
    values_grow (values);
  values->data[values->len++] = v;
}

typedef struct
{
  KsPickle     *doc;
  const char   *name;
  const guint8 *p;
  const guint8 *end;
  const guint8 *start;
  Values        stack;
  guint        *marks;            /* stack lengths at each MARK */
  guint         n_marks;
  guint         marks_size;
  Values        memo;             /* index -> value, dense from 0 (MEMOIZE) */
  GHashTable   *sparse_memo;      /* indices past the dense part (BINPUT n) */
  guint         n_sparse;         /* its size */
  KsPickleDictFunc take_dict;
  gpointer      take_data;
  GPtrArray    *scratch;          /* the items of a dict offered to take_dict */
  gboolean      release;          /* KS_PICKLE_RELEASE_READ */
  const guint8 *released;         /* up to where pages were given back */
} Unpickler;

/* Pages read are given back in steps of this (KS_PICKLE_RELEASE_READ). */
#define RELEASE_STEP (64u << 20)

static gboolean
is_container (const KsPickleValue *v)
{
  return v->type == KS_PICKLE_LIST || v->type == KS_PICKLE_TUPLE || v->type == KS_PICKLE_DICT;
}

static gboolean
is_number (KsPickleType type)
{
  return type == KS_PICKLE_NONE || type == KS_PICKLE_BOOL || type == KS_PICKLE_INT ||
         type == KS_PICKLE_BIG_INT || type == KS_PICKLE_FLOAT;
}

static KsPickleValue *
arena_last_chunk (Arena *a)
{
  return a->chunk;
}

static void
arena_grow (Arena *a)
{
  /* every value is set when made: the chunk need not be cleared */
  a->chunk = g_new (KsPickleValue, CHUNK_VALUES);
  g_ptr_array_add (a->chunks, a->chunk);
  a->in_chunk = 0;
}

static inline KsPickleValue *
new_value (KsPickle     *doc,
           KsPickleType  type)
{
  Arena *a = is_number (type) ? &doc->numbers : &doc->values;
  KsPickleValue *v;

  if (G_UNLIKELY (a->chunk == NULL || a->in_chunk == CHUNK_VALUES))
    arena_grow (a);
  v = &a->chunk[a->in_chunk++];
  a->n++;
  doc->n_values++;
  /* the slot may be one try_take() gave back */
  *v = (KsPickleValue) { .type = type };
  /* items are made with the first one (add_item()): a taken dict never
   * has any of its own */
  if (is_container (v))
    v->mark = (guint32) doc->numbers.n;
  return v;
}

static void
add_item (KsPickleValue *container,
          KsPickleValue *item)
{
  if (container->items == NULL)
    container->items = g_ptr_array_new ();
  g_ptr_array_add (container->items, item);
}

/* APPENDS: the batches of a list of millions in one copy each. */
static void
add_items (KsPickleValue  *container,
           KsPickleValue **items,
           guint           n)
{
  guint len;

  if (n == 0)
    return;
  if (container->items == NULL)
    container->items = g_ptr_array_sized_new (n);
  len = container->items->len;
  g_ptr_array_set_size (container->items, len + n);
  memcpy (&container->items->pdata[len], items, n * sizeof (gpointer));
}

static guint
n_items (const KsPickleValue *v)
{
  return v->items != NULL ? v->items->len : 0;
}

static void
arena_clear (Arena *a)
{
  for (guint c = 0; c < a->chunks->len; c++)
    {
      KsPickleValue *chunk = g_ptr_array_index (a->chunks, c);
      guint n = c + 1 == a->chunks->len ? a->in_chunk : CHUNK_VALUES;

      for (guint i = 0; i < n; i++)
        if (is_container (&chunk[i]) && chunk[i].items != NULL)
          g_ptr_array_unref (chunk[i].items);
      g_free (chunk);
    }
  g_ptr_array_unref (a->chunks);
}

void
ks_pickle_free (KsPickle *self)
{
  if (self == NULL)
    return;
  arena_clear (&self->values);
  arena_clear (&self->numbers);
  g_bytes_unref (self->bytes);
  g_free (self);
}

static const char *
opcode_name (guint8 op)
{
  switch (op)
    {
    case 'c': return "GLOBAL";
    case 0x93: return "STACK_GLOBAL";
    case 'R': return "REDUCE";
    case 'b': return "BUILD";
    case 'i': return "INST";
    case 'o': return "OBJ";
    case 0x81: return "NEWOBJ";
    case 0x92: return "NEWOBJ_EX";
    case 'P': return "PERSID";
    case 'Q': return "BINPERSID";
    case 0x82: return "EXT1";
    case 0x83: return "EXT2";
    case 0x84: return "EXT4";
    case 0x8f: return "EMPTY_SET";
    case 0x90: return "ADDITEMS";
    case 0x91: return "FROZENSET";
    case 0x96: return "BYTEARRAY8";
    case 0x97: return "NEXT_BUFFER";
    case 0x98: return "READONLY_BUFFER";
    case 'I': return "INT";
    case 'L': return "LONG";
    case 'F': return "FLOAT";
    case 'S': return "STRING";
    case 'T': return "BINSTRING";
    case 'U': return "SHORT_BINSTRING";
    case 'V': return "UNICODE";
    case 'd': return "DICT";
    case 'l': return "LIST";
    case 'p': return "PUT";
    case 'g': return "GET";
    default: return NULL;
    }
}

static gboolean
fail (Unpickler   *u,
      GError     **error,
      const char  *problem)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("%s: %s at byte %" PRIu64),
               u->name, problem, (guint64) (u->p - u->start));
  return FALSE;
}

static gboolean
need (Unpickler  *u,
      guint64     n,
      GError    **error)
{
  if ((guint64) (u->end - u->p) < n)
    return fail (u, error, _("the pickle ends in the middle of a value (truncated file)"));
  return TRUE;
}

/* Little-endian, @n bytes (at most 8) at @p, before @end. */
static inline guint64
read_le (const guint8 *p,
         guint         n,
         const guint8 *end)
{
  guint64 v = 0;

  /* one load where the file goes on past the eight bytes (always, but
   * at its very end): most integers of a snapshot are 4 to 7 bytes */
  if (G_LIKELY (end - p >= 8) && n > 0)
    {
      memcpy (&v, p, 8);
      v = GUINT64_FROM_LE (v);
      return n == 8 ? v : v & ((G_GUINT64_CONSTANT (1) << (8 * n)) - 1);
    }
  for (guint i = 0; i < n; i++)
    v |= (guint64) p[i] << (8 * i);
  return v;
}

static KsPickleValue *
pop (Unpickler *u)
{
  return u->stack.data[--u->stack.len];
}

static gboolean
pop_mark (Unpickler  *u,
          guint      *at,
          GError    **error)
{
  if (u->n_marks == 0)
    return fail (u, error, _("a pickle opcode needs a mark that was never set"));
  *at = u->marks[--u->n_marks];
  if (*at > u->stack.len)
    return fail (u, error, _("the pickle's stack is shorter than its mark"));
  return TRUE;
}

static void
push_string (Unpickler    *u,
             KsPickleType  type,
             guint64       len)
{
  KsPickleValue *v = new_value (u->doc, type);

  v->str.data = (const char *) u->p;
  v->str.len = len;
  u->p += len;
  values_push (&u->stack, v);
}

/* Python keeps the last value of a repeated key: entries are kept in
 * order and ks_pickle_dict_get() looks from the end. */
static void
dict_set (KsPickleValue *dict,
          KsPickleValue *key,
          KsPickleValue *value)
{
  add_item (dict, key);
  add_item (dict, value);
}

/* SETITEMS with the items stack[at..] on the empty @dict: offers the
 * filled dict to take_dict(). A taken dict keeps only its handle, and the
 * numbers made since the dict go back to their chunk when the dict was
 * their only holder: none memoized or duplicated (pinned), and every one
 * of them among these items (a number has one holder unless pinned).
 * Python writes a trace entry as EMPTY_DICT MEMOIZE MARK (key value)…
 * SETITEMS, its integers fresh, so each entry's integers are reused by
 * the next one. */
static void
try_take (Unpickler     *u,
          KsPickleValue *dict,
          guint          at)
{
  KsPickle *doc = u->doc;
  KsPickleValue *chunk = arena_last_chunk (&doc->numbers);
  KsPickleValue *first;
  guint64 handle = 0;
  guint32 after = (guint32) doc->numbers.n - dict->mark;
  guint mine = 0;
  gboolean reclaim;

  /* offered as a dict whose items are a scratch array, so that a dict
   * taken never allocates its own */
  g_ptr_array_set_size (u->scratch, u->stack.len - at);
  /* an empty SETITEMS leaves both arrays without data: NULL + 0 */
  if (u->stack.len > at)
    memcpy (u->scratch->pdata, &u->stack.data[at], (u->stack.len - at) * sizeof (gpointer));
  dict->items = u->scratch;
  if (!u->take_dict (dict, &handle, u->take_data))
    {
      dict->items = NULL;
      for (guint i = at; i < u->stack.len; i += 2)
        dict_set (dict, u->stack.data[i], u->stack.data[i + 1]);
      u->stack.len = at;
      return;
    }

  reclaim = after > 0 && chunk != NULL && after <= doc->numbers.in_chunk;
  first = reclaim ? chunk + doc->numbers.in_chunk - after : NULL;
  for (guint i = 0; i < after && reclaim; i++)
    reclaim = !first[i].pinned;
  for (guint i = 0; i < dict->items->len && reclaim; i++)
    {
      guintptr item = (guintptr) g_ptr_array_index (dict->items, i);

      if (item >= (guintptr) first && item < (guintptr) (first + after))
        mine++;
    }
  dict->items = NULL;
  dict->type = KS_PICKLE_TAKEN;
  dict->handle = handle;
  if (reclaim && mine == after)
    {
      doc->numbers.in_chunk -= after;
      doc->numbers.n -= after;
      doc->n_values -= after;
    }
  u->stack.len = at;
}

/* A file mapping's pages behind the reader go back to the kernel: a 1 GB
 * snapshot would otherwise stay whole in memory while it is read. A string
 * that points into them (a memoized key) reads its page in again. */
static void
release_read (Unpickler *u)
{
#ifdef MADV_DONTNEED
  guintptr page = (guintptr) sysconf (_SC_PAGESIZE);
  guintptr from = ((guintptr) u->released + page - 1) & ~(page - 1);
  guintptr to = (guintptr) u->p & ~(page - 1);

  if (to > from)
    madvise ((void *) from, to - from, MADV_DONTNEED);
#endif
  u->released = u->p;
}

static gboolean
run (Unpickler  *u,
     GError    **error)
{
  while (u->p < u->end)
    {
      guint8 op = *u->p++;
      guint64 n;
      guint at;
      KsPickleValue *v;

      if (G_UNLIKELY (u->release && (gsize) (u->p - u->released) > RELEASE_STEP))
        release_read (u);

      switch (op)
        {
        case 0x80: /* PROTO */
          if (!need (u, 1, error))
            return FALSE;
          if (u->p[0] < 2 || u->p[0] > 5)
            return fail (u, error, _("unsupported pickle protocol"));
          u->p++;
          break;
        case 0x95: /* FRAME: a length hint; the data follows inline */
          if (!need (u, 8, error))
            return FALSE;
          u->p += 8;
          break;
        case '.': /* STOP */
          if (u->stack.len != 1)
            return fail (u, error, _("the pickle does not end with exactly one value"));
          u->doc->root = pop (u);
          return TRUE;
        case '(': /* MARK */
          if (u->n_marks >= KS_PICKLE_MAX_MARKS)
            return fail (u, error, _("the pickle nests deeper than Kinescope reads"));
          if (G_UNLIKELY (u->n_marks == u->marks_size))
            {
              u->marks_size = MAX (16, 2 * u->marks_size);
              u->marks = g_renew (guint, u->marks, u->marks_size);
            }
          u->marks[u->n_marks++] = u->stack.len;
          break;
        case '0': /* POP */
          if (u->stack.len == 0)
            return fail (u, error, _("a pickle opcode found the stack empty"));
          pop (u);
          break;
        case '1': /* POP_MARK */
          if (!pop_mark (u, &at, error))
            return FALSE;
          u->stack.len = at;
          break;
        case '2': /* DUP */
          if (u->stack.len == 0)
            return fail (u, error, _("a pickle opcode found the stack empty"));
          v = u->stack.data[u->stack.len - 1];
          v->pinned = TRUE;
          values_push (&u->stack, v);
          break;
        case 'N':
          values_push (&u->stack, new_value (u->doc, KS_PICKLE_NONE));
          break;
        case 0x88: /* NEWTRUE */
        case 0x89: /* NEWFALSE */
          v = new_value (u->doc, KS_PICKLE_BOOL);
          v->b = op == 0x88;
          values_push (&u->stack, v);
          break;
        case 'J': /* BININT */
          if (!need (u, 4, error))
            return FALSE;
          v = new_value (u->doc, KS_PICKLE_INT);
          v->i = (gint32) (guint32) read_le (u->p, 4, u->end);
          u->p += 4;
          values_push (&u->stack, v);
          break;
        case 'K': /* BININT1 */
        case 'M': /* BININT2 */
          n = op == 'K' ? 1 : 2;
          if (!need (u, n, error))
            return FALSE;
          v = new_value (u->doc, KS_PICKLE_INT);
          v->i = (gint64) read_le (u->p, n, u->end);
          u->p += n;
          values_push (&u->stack, v);
          break;
        case 0x8a: /* LONG1 */
        case 0x8b: /* LONG4 */
          if (!need (u, op == 0x8a ? 1 : 4, error))
            return FALSE;
          n = op == 0x8a ? u->p[0] : (guint64) (gint32) (guint32) read_le (u->p, 4, u->end);
          u->p += op == 0x8a ? 1 : 4;
          if ((gint64) n < 0)
            return fail (u, error, _("a pickled integer has a negative length"));
          if (!need (u, n, error))
            return FALSE;
          if (n <= 8)
            {
              guint64 raw = read_le (u->p, n, u->end);

              if (n > 0 && n < 8 && (u->p[n - 1] & 0x80))
                raw |= G_MAXUINT64 << (8 * n);
              v = new_value (u->doc, KS_PICKLE_INT);
              v->i = (gint64) raw;
            }
          else
            v = new_value (u->doc, KS_PICKLE_BIG_INT);
          u->p += n;
          values_push (&u->stack, v);
          break;
        case 'G': /* BINFLOAT, big-endian */
          {
            guint64 bits = 0;

            if (!need (u, 8, error))
              return FALSE;
            for (guint i = 0; i < 8; i++)
              bits = bits << 8 | u->p[i];
            u->p += 8;
            v = new_value (u->doc, KS_PICKLE_FLOAT);
            memcpy (&v->f, &bits, sizeof v->f);
            values_push (&u->stack, v);
          }
          break;
        case 0x8c: /* SHORT_BINUNICODE */
        case 'C':  /* SHORT_BINBYTES */
          if (!need (u, 1, error))
            return FALSE;
          n = *u->p++;
          if (!need (u, n, error))
            return FALSE;
          push_string (u, op == 'C' ? KS_PICKLE_BYTES : KS_PICKLE_STR, n);
          break;
        case 'X': /* BINUNICODE */
        case 'B': /* BINBYTES */
        case 0x8d: /* BINUNICODE8 */
        case 0x8e: /* BINBYTES8 */
          {
            guint w = (op == 'X' || op == 'B') ? 4 : 8;

            if (!need (u, w, error))
              return FALSE;
            n = read_le (u->p, w, u->end);
            u->p += w;
            if (!need (u, n, error))
              return FALSE;
            push_string (u, (op == 'B' || op == 0x8e) ? KS_PICKLE_BYTES : KS_PICKLE_STR, n);
          }
          break;
        case '}':
          values_push (&u->stack, new_value (u->doc, KS_PICKLE_DICT));
          break;
        case ']':
          values_push (&u->stack, new_value (u->doc, KS_PICKLE_LIST));
          break;
        case ')':
          values_push (&u->stack, new_value (u->doc, KS_PICKLE_TUPLE));
          break;
        case 'a': /* APPEND */
          if (u->stack.len < 2)
            return fail (u, error, _("a pickle opcode found the stack empty"));
          v = pop (u);
          {
            KsPickleValue *list = u->stack.data[u->stack.len - 1];

            if (list->type != KS_PICKLE_LIST)
              return fail (u, error, _("a pickle appends to something that is not a list"));
            add_item (list, v);
          }
          break;
        case 'e': /* APPENDS */
        case 'u': /* SETITEMS */
          {
            KsPickleValue *target;

            if (!pop_mark (u, &at, error))
              return FALSE;
            if (at == 0)
              return fail (u, error, _("a pickle opcode found the stack empty"));
            target = u->stack.data[at - 1];
            if (op == 'e' && target->type != KS_PICKLE_LIST)
              return fail (u, error, _("a pickle appends to something that is not a list"));
            if (op == 'u' && (target->type != KS_PICKLE_DICT || (u->stack.len - at) % 2 != 0))
              return fail (u, error, _("a pickle sets items on something that is not a dict"));
            if (op == 'u' && u->take_dict != NULL && n_items (target) == 0)
              {
                try_take (u, target, at);
                break;
              }
            if (op == 'e')
              add_items (target, &u->stack.data[at], u->stack.len - at);
            else
              for (guint i = at; i < u->stack.len; i += 2)
                dict_set (target, u->stack.data[i], u->stack.data[i + 1]);
            u->stack.len = at;
          }
          break;
        case 's': /* SETITEM */
          {
            KsPickleValue *key, *dict;

            if (u->stack.len < 3)
              return fail (u, error, _("a pickle opcode found the stack empty"));
            v = pop (u);
            key = pop (u);
            dict = u->stack.data[u->stack.len - 1];
            if (dict->type != KS_PICKLE_DICT)
              return fail (u, error, _("a pickle sets items on something that is not a dict"));
            dict_set (dict, key, v);
          }
          break;
        case 't': /* TUPLE */
          if (!pop_mark (u, &at, error))
            return FALSE;
          v = new_value (u->doc, KS_PICKLE_TUPLE);
          for (guint i = at; i < u->stack.len; i++)
            add_item (v, u->stack.data[i]);
          u->stack.len = at;
          values_push (&u->stack, v);
          break;
        case 0x85: /* TUPLE1 */
        case 0x86: /* TUPLE2 */
        case 0x87: /* TUPLE3 */
          n = op - 0x84;
          if (u->stack.len < n)
            return fail (u, error, _("a pickle opcode found the stack empty"));
          v = new_value (u->doc, KS_PICKLE_TUPLE);
          for (guint i = u->stack.len - n; i < u->stack.len; i++)
            add_item (v, u->stack.data[i]);
          u->stack.len = u->stack.len - n;
          values_push (&u->stack, v);
          break;
        case 0x94: /* MEMOIZE */
        case 'q':  /* BINPUT */
        case 'r':  /* LONG_BINPUT */
          if (op == 0x94)
            n = u->memo.len + u->n_sparse; /* Python's len(memo) */
          else
            {
              guint w = op == 'q' ? 1 : 4;

              if (!need (u, w, error))
                return FALSE;
              n = read_le (u->p, w, u->end);
              u->p += w;
            }
          if (u->stack.len == 0)
            return fail (u, error, _("a pickle opcode found the stack empty"));
          if (n >= KS_PICKLE_MAX_MEMO)
            return fail (u, error, _("the pickle's memo is larger than Kinescope reads"));
          v = u->stack.data[u->stack.len - 1];
          v->pinned = TRUE;
          if (n < u->memo.len)
            u->memo.data[n] = v;
          else if (n == u->memo.len &&
                   (u->n_sparse == 0 || !g_hash_table_contains (u->sparse_memo, GUINT_TO_POINTER ((guint) n))))
            values_push (&u->memo, v);
          else
            {
              g_hash_table_insert (u->sparse_memo, GUINT_TO_POINTER ((guint) n), v);
              u->n_sparse = g_hash_table_size (u->sparse_memo);
            }
          break;
        case 'h': /* BINGET */
        case 'j': /* LONG_BINGET */
          {
            guint w = op == 'h' ? 1 : 4;

            if (!need (u, w, error))
              return FALSE;
            n = read_le (u->p, w, u->end);
            u->p += w;
            v = n < u->memo.len ? u->memo.data[n]
                                : u->n_sparse > 0 ? g_hash_table_lookup (u->sparse_memo, GUINT_TO_POINTER ((guint) n))
                                : NULL;
            if (v == NULL || n >= KS_PICKLE_MAX_MEMO)
              return fail (u, error, _("the pickle refers to a memo entry it never stored"));
            values_push (&u->stack, v);
          }
          break;
        default:
          {
            const char *opname = opcode_name (op);
            g_autofree char *what = NULL;

            u->p--;
            if (opname != NULL)
              what = g_strdup_printf (_("the pickle uses opcode %s, which a memory snapshot never holds "
                                        "(it could name or run Python code); nothing was run"), opname);
            else
              what = g_strdup_printf (_("unknown pickle opcode 0x%02x"), op);
            return fail (u, error, what);
          }
        }
    }
  return fail (u, error, _("the pickle ends without its STOP opcode (truncated file)"));
}

gboolean
ks_pickle_has_magic (const guint8 *data,
                     gsize         len)
{
  return len >= 2 && data[0] == 0x80 && data[1] >= 2 && data[1] <= 5;
}

KsPickle *
ks_pickle_load (GBytes      *bytes,
                const char  *name,
                GError     **error)
{
  return ks_pickle_load_full (bytes, name, 0, NULL, NULL, error);
}

KsPickle *
ks_pickle_load_full (GBytes            *bytes,
                     const char        *name,
                     KsPickleFlags      flags,
                     KsPickleDictFunc   take_dict,
                     gpointer           user_data,
                     GError           **error)
{
  g_autoptr(KsPickle) doc = g_new0 (KsPickle, 1);
  Unpickler u = { 0 };
  gsize len;
  gboolean ok;

  g_return_val_if_fail (bytes != NULL, NULL);

  doc->bytes = g_bytes_ref (bytes);
  doc->values.chunks = g_ptr_array_new ();
  doc->numbers.chunks = g_ptr_array_new ();
  u.doc = doc;
  u.name = name;
  u.start = u.p = g_bytes_get_data (bytes, &len);
  /* an empty GBytes has no data pointer, and NULL + 0 is undefined */
  if (u.p == NULL)
    u.start = u.p = (const guint8 *) "";
  u.end = u.p + len;
  u.sparse_memo = g_hash_table_new (NULL, NULL);
  u.take_dict = take_dict;
  u.take_data = user_data;
  u.scratch = g_ptr_array_new ();
  u.release = (flags & KS_PICKLE_RELEASE_READ) != 0;
  u.released = u.start;
  if (!ks_pickle_has_magic (u.p, len))
    ok = fail (&u, error, _("not a pickle of protocol 2 or later"));
  else
    ok = run (&u, error);
  g_free (u.stack.data);
  g_free (u.marks);
  g_free (u.memo.data);
  g_hash_table_unref (u.sparse_memo);
  g_ptr_array_unref (u.scratch);
  return ok ? g_steal_pointer (&doc) : NULL;
}

const KsPickleValue *
ks_pickle_get_root (KsPickle *self)
{
  return self->root;
}

guint64
ks_pickle_get_n_values (KsPickle *self)
{
  return self->n_values;
}

gboolean
ks_pickle_str_equal (const KsPickleValue *value,
                     const char          *s)
{
  gsize n = strlen (s);

  return value != NULL && value->type == KS_PICKLE_STR && value->str.len == n &&
         memcmp (value->str.data, s, n) == 0;
}

const KsPickleValue *
ks_pickle_dict_get (const KsPickleValue *dict,
                    const char          *key)
{
  gsize n;

  if (dict == NULL || dict->type != KS_PICKLE_DICT)
    return NULL;
  n = strlen (key);
  for (guint i = n_items (dict) / 2; i-- > 0;)
    {
      const KsPickleValue *k = g_ptr_array_index (dict->items, 2 * i);

      if (k->type == KS_PICKLE_STR && k->str.len == n && memcmp (k->str.data, key, n) == 0)
        return g_ptr_array_index (dict->items, 2 * i + 1);
    }
  return NULL;
}

char *
ks_pickle_dup_str (const KsPickleValue *value)
{
  if (value == NULL || (value->type != KS_PICKLE_STR && value->type != KS_PICKLE_BYTES))
    return g_strdup ("");
  return g_utf8_make_valid (value->str.data, value->str.len);
}

guint
ks_pickle_len (const KsPickleValue *value)
{
  if (value == NULL || (value->type != KS_PICKLE_LIST && value->type != KS_PICKLE_TUPLE))
    return 0;
  return n_items (value);
}

guint
ks_pickle_dict_size (const KsPickleValue *value)
{
  if (value == NULL || value->type != KS_PICKLE_DICT || value->items == NULL)
    return 0;
  return value->items->len / 2;
}

const KsPickleValue *
ks_pickle_index (const KsPickleValue *value,
                 guint                i)
{
  if (i >= ks_pickle_len (value))
    return NULL;
  return g_ptr_array_index (value->items, i);
}

gboolean
ks_pickle_get_int (const KsPickleValue *value,
                   gint64              *out)
{
  if (value == NULL)
    return FALSE;
  switch (value->type)
    {
    case KS_PICKLE_INT:
      *out = value->i;
      return TRUE;
    case KS_PICKLE_BOOL:
      *out = value->b ? 1 : 0;
      return TRUE;
    case KS_PICKLE_FLOAT:
      if (!(value->f > (double) G_MININT64 && value->f < (double) G_MAXINT64))
        return FALSE;
      *out = (gint64) value->f;
      return TRUE;
    case KS_PICKLE_NONE:
    case KS_PICKLE_BIG_INT:
    case KS_PICKLE_STR:
    case KS_PICKLE_BYTES:
    case KS_PICKLE_LIST:
    case KS_PICKLE_TUPLE:
    case KS_PICKLE_DICT:
    case KS_PICKLE_TAKEN:
    default:
      return FALSE;
    }
}
