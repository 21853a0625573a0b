/* ks-py-remote.c
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

/* Reading CPython's frames from outside: _PyRuntime from the ELF symbol
 * table of the executable or libpython the process has mapped, then
 * interpreters → thread states → current frame → previous frames, each
 * frame's code object for its names and location table, cached by
 * address and checked on each use against the object's pointers to its
 * names and table (read for a whole stack in one call): a code object
 * freed and another made at its address must not keep the old names.
 *
 * The offsets are CPython's for x86-64 and aarch64 release builds of 3.11
 * and 3.12 (both LP64, the same layout); 3.13 and 3.14 publish theirs in
 * _Py_DebugOffsets at the start of _PyRuntime, whose own layout changed
 * between them (fields were added in the middle), so each has its word
 * indices here; free-threaded builds and later versions are refused, and
 * the Python side samples those in the process. Every read may fail or
 * race with the target, so every pointer is checked and every walk is
 * bounded. */

#define _GNU_SOURCE
#define G_LOG_DOMAIN "ks-record-session"

#include "config.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include <glib/gi18n.h>
#include <gio/gio.h>

#include "ks-py-remote.h"

#define MAX_INTERPRETERS 64
#define MAX_THREADS      4096
#define MAX_STRING       4096
#define MAX_LINETABLE    (1u << 20)
#define MAX_CODES        200000
/* Frames live in their thread's data stack, callers just below callees:
 * one read of the pages under a frame usually holds its callers too. */
#define FRAME_WINDOW     8192
#define PAGE_MASK_       (~(guint64) 4095)

typedef struct
{
  guint32 version;              /* major << 8 | minor */
  gsize   runtime_interp_head;  /* _PyRuntime.interpreters.head */
  gsize   interp_next;
  gsize   interp_threads_head;
  gsize   ts_next;
  gsize   ts_interp;
  gsize   ts_cframe;            /* 3.11, 3.12: the _PyCFrame; 0: none */
  gsize   ts_current_frame;     /* 3.13+: the frame itself */
  gsize   ts_native_thread_id;
  gsize   ts_size;              /* what is read of a thread state */
  gsize   cframe_current;
  gsize   frame_code;
  gsize   frame_previous;
  gsize   frame_instr;          /* prev_instr: the instruction running */
  gsize   frame_owner;
  gint    owner_shim;           /* frames owned by this or more are the
                                 * interpreter's entry shims; -1 none */
  gsize   frame_size;
  gsize   code_filename;
  gsize   code_qualname;
  gsize   code_linetable;
  gsize   code_firstlineno;
  gsize   code_adaptive;        /* the first code unit */
  gsize   ascii_size;           /* sizeof (PyASCIIObject) */
  gsize   compact_size;         /* sizeof (PyCompactUnicodeObject) */
  gsize   str_length;
  gsize   str_state;
  gsize   bytes_size;
  gsize   bytes_data;
  guint64 code_tag_mask;        /* 3.14: f_executable is a tagged reference */
} Layout;

/* From the headers of 3.11.7 (offsetof) and of 3.12 (Include/internal
 * pycore_runtime.h, pycore_interp.h, cpython/pystate.h, pycore_frame.h,
 * cpython/code.h, cpython/unicodeobject.h); the same through each
 * series, which keeps its ABI. */
static const Layout layouts[] = {
  { 0x030b, 40, 0, 16, 8, 16, 56, 0, 160, 168, 8, 32, 48, 56, 69, -1, 72, 112, 128, 136, 72, 184, 48, 72,
    16, 32, 16, 32, 0 },
  { 0x030c, 40, 0, 72, 8, 16, 56, 0, 144, 152, 0, 0, 8, 56, 70, 3, 72, 112, 128, 136, 68, 192, 40, 56,
    16, 32, 16, 32, 0 },
};

/* Word indices in _Py_DebugOffsets (pycore_runtime.h of 3.13,
 * pycore_debug_offsets.h of 3.14): after cookie, version and
 * free_threaded come the runtime, interpreter, thread, frame and code
 * object sections, each a size then offsets, and later those of bytes and
 * str objects. */
typedef struct
{
  guint32 version;
  guint   interpreters_head;
  guint   interp_next, interp_threads_head;
  guint   ts_next, ts_interp, ts_current_frame, ts_native_thread_id;
  guint   frame_previous, frame_executable, frame_instr, frame_owner;
  guint   code_filename, code_name, code_qualname, code_linetable, code_firstlineno, code_adaptive;
  guint   bytes_size, bytes_data;
  guint   str_state, str_length, str_ascii_size;
  guint   n_words;
} DebugWords;

static const DebugWords debug_words[] = {
  { 0x030d, 5, 8, 9, 21, 22, 23, 25, 29, 30, 31, 33, 35, 36, 37, 38, 39, 43, 65, 66, 68, 69, 70, 71 },
  { 0x030e, 5, 8, 9, 24, 25, 26, 28, 32, 33, 34, 36, 40, 41, 42, 43, 44, 48, 75, 76, 78, 79, 80, 81 },
};

#define DEBUG_COOKIE "xdebugpy"

/* co_filename, co_name, co_qualname, co_linetable: adjacent in 3.11
 * and 3.12 */
#define CODE_IDENT_SIZE 32

typedef struct
{
  guint8  ident[CODE_IDENT_SIZE];
  char   *function;
  char   *file;
  guint32 first_line;
  guint8 *table;
  gsize   table_len;
} Code;

struct _KsPyRemote
{
  pid_t         pid;
  guint32       hexversion;
  const Layout *layout;
  Layout        published;      /* 3.13+: from _Py_DebugOffsets */
  guint64       runtime;
  GHashTable   *codes;      /* code object address → Code */
  GPtrArray    *stale;      /* replaced Codes, freed after the round */
  KsPyRemoteStack stack;
  guint8        idents[KS_PY_REMOTE_MAX_FRAMES][CODE_IDENT_SIZE];
  guint8        window[FRAME_WINDOW];
  guint64       window_start;   /* the address window[0] was read from */
  gsize         window_len;     /* 0: nothing read this walk */
};

static void
code_free (gpointer data)
{
  Code *c = data;

  g_free (c->function);
  g_free (c->file);
  g_free (c->table);
  g_free (c);
}

static gboolean
read_mem (KsPyRemote *self,
          guint64     address,
          gpointer    buffer,
          gsize       len)
{
  struct iovec local = { buffer, len };
  struct iovec remote = { GSIZE_TO_POINTER ((gsize) address), len };

  if (address == 0)
    return FALSE;
  return process_vm_readv (self->pid, &local, 1, &remote, 1, 0) == (ssize_t) len;
}

static inline guint64
u64_at (const guint8 *block,
        gsize         offset)
{
  guint64 v;

  memcpy (&v, block + offset, sizeof v);
  return v;
}

static inline guint32
u32_at (const guint8 *block,
        gsize         offset)
{
  guint32 v;

  memcpy (&v, block + offset, sizeof v);
  return v;
}

/* --- finding _PyRuntime ------------------------------------------------ */

typedef struct
{
  guint64 runtime;
  guint64 version;
  gboolean found_runtime;
  gboolean found_version;
  gboolean exec;            /* ET_EXEC: symbols are absolute */
  guint64 first_vaddr;      /* of the first PT_LOAD, page-aligned */
} Symbols;

/* _PyRuntime and Py_Version in @path's .symtab or .dynsym. */
static gboolean
elf_symbols (const char *path,
             Symbols    *out,
             GError    **error)
{
  g_autoptr(GMappedFile) file = g_mapped_file_new (path, FALSE, error);
  const guint8 *data;
  gsize size;
  const Elf64_Ehdr *eh;

  memset (out, 0, sizeof *out);
  if (file == NULL)
    return FALSE;
  data = (const guint8 *) g_mapped_file_get_contents (file);
  size = g_mapped_file_get_length (file);
  eh = (const Elf64_Ehdr *) (gconstpointer) data;
  if (size < sizeof *eh || memcmp (eh->e_ident, ELFMAG, SELFMAG) != 0
      || eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof (Elf64_Shdr)
      || eh->e_phentsize != sizeof (Elf64_Phdr)
      || eh->e_shoff > size || (guint64) eh->e_shnum * sizeof (Elf64_Shdr) > size - eh->e_shoff
      || eh->e_phoff > size || (guint64) eh->e_phnum * sizeof (Elf64_Phdr) > size - eh->e_phoff)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, _("“%s” is not a 64-bit ELF file"), path);
      return FALSE;
    }
  out->exec = eh->e_type == ET_EXEC;
  for (guint i = 0; i < eh->e_phnum; i++)
    {
      Elf64_Phdr ph;

      memcpy (&ph, data + eh->e_phoff + i * sizeof ph, sizeof ph);
      if (ph.p_type == PT_LOAD)
        {
          out->first_vaddr = ph.p_vaddr & ~(guint64) 0xfff;
          break;
        }
    }

  for (guint i = 0; i < eh->e_shnum; i++)
    {
      Elf64_Shdr sh;
      Elf64_Shdr strtab;

      memcpy (&sh, data + eh->e_shoff + i * sizeof sh, sizeof sh);
      if ((sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || sh.sh_link >= eh->e_shnum
          || sh.sh_offset > size || sh.sh_size > size - sh.sh_offset)
        continue;
      memcpy (&strtab, data + eh->e_shoff + sh.sh_link * sizeof strtab, sizeof strtab);
      if (strtab.sh_offset > size || strtab.sh_size > size - strtab.sh_offset)
        continue;
      for (guint64 k = 0; k + sizeof (Elf64_Sym) <= sh.sh_size; k += sizeof (Elf64_Sym))
        {
          Elf64_Sym sym;
          const char *name;

          memcpy (&sym, data + sh.sh_offset + k, sizeof sym);
          if (sym.st_name == 0 || sym.st_name >= strtab.sh_size || sym.st_value == 0)
            continue;
          name = (const char *) data + strtab.sh_offset + sym.st_name;
          /* both names are short: bounded by the table's end */
          if (strtab.sh_size - sym.st_name < sizeof "_PyRuntime")
            continue;
          if (strcmp (name, "_PyRuntime") == 0)
            {
              out->runtime = sym.st_value;
              out->found_runtime = TRUE;
            }
          else if (strcmp (name, "Py_Version") == 0)
            {
              out->version = sym.st_value;
              out->found_version = TRUE;
            }
        }
    }
  return TRUE;
}

/* The executable and every libpython the process maps, with the address
 * their first page is mapped at. */
static gboolean
find_runtime (KsPyRemote  *self,
              GError     **error)
{
  g_autofree char *maps_path = g_strdup_printf ("/proc/%d/maps", (int) self->pid);
  g_autofree char *exe_link = g_strdup_printf ("/proc/%d/exe", (int) self->pid);
  g_autofree char *exe = g_file_read_link (exe_link, NULL);
  g_autofree char *maps = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(GHashTable) tried = g_hash_table_new (g_str_hash, g_str_equal);

  if (!g_file_get_contents (maps_path, &maps, NULL, error))
    return FALSE;
  lines = g_strsplit (maps, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      guint64 start, offset;
      char *path;
      const char *base;
      Symbols syms;
      g_autoptr(GError) local = NULL;
      guint64 bias;
      guint32 version = 0;

      if (sscanf (lines[i], "%" G_GINT64_MODIFIER "x-%*x %*s %" G_GINT64_MODIFIER "x",
                  &start, &offset) != 2 || offset != 0 || (path = strchr (lines[i], '/')) == NULL)
        continue;
      base = strrchr (path, '/') + 1;
      if (g_hash_table_contains (tried, path)
          || !(g_strcmp0 (path, exe) == 0 || g_str_has_prefix (base, "libpython3")))
        continue;
      g_hash_table_add (tried, path);
      if (!elf_symbols (path, &syms, &local) || !syms.found_runtime)
        continue;
      bias = syms.exec ? 0 : start - syms.first_vaddr;
      self->runtime = bias + syms.runtime;
      if (!syms.found_version || !read_mem (self, bias + syms.version, &version, sizeof version))
        {
          g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                       _("%s has no Py_Version: Python before 3.11"), path);
          return FALSE;
        }
      self->hexversion = version;
      return TRUE;
    }
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND,
               _("no _PyRuntime symbol in the executable or a libpython of process %d"), (int) self->pid);
  return FALSE;
}

/* 3.13 and 3.14: the layout from the _Py_DebugOffsets the process
 * publishes, or FALSE when there is none this reader knows. */
static gboolean
read_published (KsPyRemote *self,
                guint32     minor)
{
  const DebugWords *w = NULL;
  guint64 words[96];
  Layout *l = &self->published;
  gsize max_ts, max_frame;

  for (guint i = 0; i < G_N_ELEMENTS (debug_words); i++)
    if (debug_words[i].version == minor)
      w = &debug_words[i];
  if (w == NULL || !read_mem (self, self->runtime, words, w->n_words * sizeof (guint64))
      || memcmp (words, DEBUG_COOKIE, 8) != 0 || (words[1] >> 16 & 0xffff) != minor
      /* free-threaded: other objects, other frames */
      || words[2] != 0)
    return FALSE;

  memset (l, 0, sizeof *l);
  l->version = minor;
  l->runtime_interp_head = words[w->interpreters_head];
  l->interp_next = words[w->interp_next];
  l->interp_threads_head = words[w->interp_threads_head];
  l->ts_next = words[w->ts_next];
  l->ts_interp = words[w->ts_interp];
  l->ts_current_frame = words[w->ts_current_frame];
  l->ts_native_thread_id = words[w->ts_native_thread_id];
  l->frame_code = words[w->frame_executable];
  l->frame_previous = words[w->frame_previous];
  l->frame_instr = words[w->frame_instr];
  l->frame_owner = words[w->frame_owner];
  /* FRAME_OWNED_BY_CSTACK (3.13), _INTERPRETER and _CSTACK (3.14) */
  l->owner_shim = 3;
  l->code_filename = words[w->code_filename];
  l->code_qualname = words[w->code_qualname];
  l->code_linetable = words[w->code_linetable];
  l->code_firstlineno = words[w->code_firstlineno];
  l->code_adaptive = words[w->code_adaptive];
  l->ascii_size = words[w->str_ascii_size];
  /* PyCompactUnicodeObject: utf8_length and utf8 after the ASCII part */
  l->compact_size = l->ascii_size + 16;
  l->str_length = words[w->str_length];
  l->str_state = words[w->str_state];
  l->bytes_size = words[w->bytes_size];
  l->bytes_data = words[w->bytes_data];
  /* _PyStackRef's tag bits */
  l->code_tag_mask = minor >= 0x030e ? 7 : 0;

  max_ts = MAX (MAX (l->ts_next, l->ts_interp), MAX (l->ts_current_frame, l->ts_native_thread_id));
  max_frame = MAX (MAX (l->frame_code, l->frame_previous), MAX (l->frame_instr, l->frame_owner));
  l->ts_size = max_ts + 8;
  l->frame_size = max_frame + 8;
  /* what this reader's buffers hold, and the four code fields it checks
   * side by side (CODE_IDENT_SIZE) */
  return l->ts_size <= 256 && l->frame_size <= 128 && l->code_adaptive <= 256 && l->ascii_size <= 72
         && l->str_length + 8 <= l->ascii_size && l->str_state + 4 <= l->ascii_size
         && l->bytes_size + 8 <= 32 && l->code_firstlineno + 4 <= l->code_adaptive
         && words[w->code_name] == l->code_filename + 8 && l->code_qualname == l->code_filename + 16
         && l->code_linetable == l->code_filename + 24;
}

KsPyRemote *
ks_py_remote_open (pid_t    pid,
                   GError **error)
{
  g_autoptr(KsPyRemote) self = g_new0 (KsPyRemote, 1);
  guint32 minor;
  guint8 head[8];
  guint8 ts[256];
  guint64 interp;

  self->pid = pid;
  self->codes = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, code_free);
  self->stale = g_ptr_array_new_with_free_func (code_free);
  if (!find_runtime (self, error))
    return NULL;
  minor = self->hexversion >> 16 & 0xffff;
  for (guint i = 0; i < G_N_ELEMENTS (layouts); i++)
    if (layouts[i].version == minor)
      self->layout = &layouts[i];
  if (self->layout == NULL && read_published (self, minor))
    self->layout = &self->published;
  if (self->layout == NULL)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED,
                   _("no frame layout for Python %u.%u"), minor >> 8, minor & 0xff);
      return NULL;
    }
  /* the layout checks itself: the first thread state points back at its
   * interpreter */
  if (!read_mem (self, self->runtime + self->layout->runtime_interp_head, head, sizeof head))
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                   _("cannot read the memory of process %d: %s"), (int) pid, g_strerror (errno));
      return NULL;
    }
  interp = u64_at (head, 0);
  if (!read_mem (self, interp + self->layout->interp_threads_head, head, sizeof head)
      || !read_mem (self, u64_at (head, 0), ts, self->layout->ts_size)
      || u64_at (ts, self->layout->ts_interp) != interp)
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA,
                   _("the thread states of process %d are not where Python %u.%u keeps them"),
                   (int) pid, minor >> 8, minor & 0xff);
      return NULL;
    }
  return g_steal_pointer (&self);
}

void
ks_py_remote_free (KsPyRemote *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->codes, g_hash_table_unref);
  g_clear_pointer (&self->stale, g_ptr_array_unref);
  g_free (self);
}

guint32
ks_py_remote_get_version (KsPyRemote *self)
{
  return self->hexversion;
}

gboolean
ks_py_remote_write_u32 (pid_t       pid,
                        guint64     address,
                        guint32     value,
                        GError    **error)
{
  struct iovec local = { &value, sizeof value };
  struct iovec remote = { GSIZE_TO_POINTER ((gsize) address), sizeof value };

  if (process_vm_writev (pid, &local, 1, &remote, 1, 0) != (ssize_t) sizeof value)
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                   _("cannot write to the memory of process %d: %s"), (int) pid, g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

gboolean
ks_py_remote_read_u32 (pid_t       pid,
                       guint64     address,
                       guint32    *value,
                       GError    **error)
{
  KsPyRemote probe = { .pid = pid };

  if (!read_mem (&probe, address, value, sizeof *value))
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                   _("cannot read the memory of process %d: %s"), (int) pid, g_strerror (errno));
      return FALSE;
    }
  return TRUE;
}

/* --- code objects -------------------------------------------------------- */

/* A str object's text, or NULL: compact strings only, which every code
 * object's names are. */
static char *
read_str (KsPyRemote *self,
          guint64     address)
{
  const Layout *l = self->layout;
  guint8 head[72];
  gint64 length;
  guint32 state, kind;
  g_autofree guint8 *data = NULL;
  GString *out;

  if (!read_mem (self, address, head, l->ascii_size))
    return NULL;
  length = (gint64) u64_at (head, l->str_length);
  state = u32_at (head, l->str_state);
  kind = state >> 2 & 7;
  if (length < 0 || length > MAX_STRING || !(state >> 5 & 1) || (kind != 1 && kind != 2 && kind != 4))
    return NULL;
  if (state >> 6 & 1)
    {
      char *text = g_malloc (length + 1);

      if (!read_mem (self, address + l->ascii_size, text, length) && length > 0)
        {
          g_free (text);
          return NULL;
        }
      text[length] = '\0';
      /* an object freed while it was read holds anything: an ASCII
       * string that is not ASCII text is not one */
      for (gint64 i = 0; i < length; i++)
        if ((guint8) text[i] >= 0x80 || (guint8) text[i] < 0x20)
          {
            g_free (text);
            return NULL;
          }
      return text;
    }
  data = g_malloc (length * kind + 1);
  if (length > 0 && !read_mem (self, address + l->compact_size, data, length * kind))
    return NULL;
  out = g_string_sized_new (length + 8);
  for (gint64 i = 0; i < length; i++)
    {
      gunichar ch = kind == 1 ? data[i] : kind == 2 ? ((guint16 *) (gpointer) data)[i]
                                                    : ((guint32 *) (gpointer) data)[i];

      g_string_append_unichar (out, g_unichar_validate (ch) ? ch : 0xfffd);
    }
  return g_string_free (out, FALSE);
}

/* @ident: the code object's CODE_IDENT_SIZE bytes at co_filename, as
 * read now */
static const Code *
code_info (KsPyRemote   *self,
           guint64       address,
           const guint8 *ident)
{
  const Layout *l = self->layout;
  Code *c = g_hash_table_lookup (self->codes, &address);
  guint8 head[256];
  guint8 bytes[32];
  guint64 table;
  gint64 table_len;
  gpointer old_key, old;

  if (c != NULL && memcmp (c->ident, ident, CODE_IDENT_SIZE) == 0)
    return c;
  if (!read_mem (self, address, head, l->code_adaptive)
      || memcmp (head + l->code_filename, ident, CODE_IDENT_SIZE) != 0)
    return NULL;
  c = g_new0 (Code, 1);
  memcpy (c->ident, ident, CODE_IDENT_SIZE);
  c->function = read_str (self, u64_at (head, l->code_qualname));
  c->file = read_str (self, u64_at (head, l->code_filename));
  c->first_line = u32_at (head, l->code_firstlineno);
  table = u64_at (head, l->code_linetable);
  /* a bytes object */
  if (read_mem (self, table, bytes, sizeof bytes) && (table_len = (gint64) u64_at (bytes, l->bytes_size)) > 0
      && table_len <= MAX_LINETABLE)
    {
      c->table = g_malloc (table_len);
      if (read_mem (self, table + l->bytes_data, c->table, table_len))
        c->table_len = table_len;
      else
        g_clear_pointer (&c->table, g_free);
    }
  if (c->function == NULL || c->file == NULL)
    {
      /* freed under us, or not a code object: not cached */
      code_free (c);
      return NULL;
    }
  /* an entry of another code object that was at this address: frames of
   * this round may still point at its names */
  if (g_hash_table_steal_extended (self->codes, &address, &old_key, &old))
    {
      g_free (old_key);
      g_ptr_array_add (self->stale, old);
    }
  g_hash_table_insert (self->codes, g_memdup2 (&address, sizeof address), c);
  return c;
}

static guint
read_varint (const guint8 *p,
             gsize         len,
             gsize        *at)
{
  guint value = 0;
  guint shift = 0;

  while (*at < len)
    {
      guint8 b = p[(*at)++];

      value |= (guint) (b & 63) << shift;
      if (!(b & 64) || shift > 24)
        break;
      shift += 6;
    }
  return value;
}

static gint
read_svarint (const guint8 *p,
              gsize         len,
              gsize        *at)
{
  guint u = read_varint (p, len, at);

  return (u & 1) ? -(gint) (u >> 1) : (gint) (u >> 1);
}

/* Objects/locations.md of CPython 3.11+: entries of (code, length in code
 * units), a first byte with the top bit set. */
guint32
ks_py_remote_line_for (const guint8 *table,
                       gsize         len,
                       guint32       first_line,
                       gint64        index)
{
  gint64 line = first_line;
  gint64 unit = 0;
  gsize at = 0;

  if (index < 0)
    return first_line;
  while (at < len)
    {
      guint8 first = table[at++];
      guint code = first >> 3 & 15;
      gint64 length = (first & 7) + 1;
      gint delta = 0;
      gboolean has_line = TRUE;

      if (!(first & 128))
        break;
      switch (code)
        {
        case 15:              /* no location */
          has_line = FALSE;
          break;
        case 14:              /* long form */
          delta = read_svarint (table, len, &at);
          read_varint (table, len, &at);
          read_varint (table, len, &at);
          read_varint (table, len, &at);
          break;
        case 13:              /* no column */
          delta = read_svarint (table, len, &at);
          break;
        case 10: case 11: case 12:  /* one line, two column bytes */
          delta = code - 10;
          at += 2;
          break;
        default:              /* short form, one column byte */
          at += 1;
          break;
        }
      line += delta;
      if (index < unit + length)
        return has_line && line > 0 && line <= G_MAXUINT32 ? (guint32) line : 0;
      unit += length;
    }
  return 0;
}

/* --- the walk ------------------------------------------------------------- */

/* The @len bytes of the frame at @address, from the window when it
 * holds them, else read with the pages below it (or alone). */
static const guint8 *
frame_bytes (KsPyRemote *self,
             guint64     address,
             gsize       len)
{
  guint64 end = address + len;
  guint64 start;

  /* a pointer read mid-update can be anything: one that wraps is none */
  if (end < address)
    {
      self->window_len = 0;
      return NULL;
    }
  if (address >= self->window_start && end <= self->window_start + self->window_len && self->window_len > 0)
    return self->window + (address - self->window_start);
  start = (end > FRAME_WINDOW ? end - FRAME_WINDOW : 0) & PAGE_MASK_;
  if (start > address)
    start = address;
  /* the pages below may not be mapped: then the frame alone */
  if (end - start > FRAME_WINDOW || !read_mem (self, start, self->window, end - start))
    {
      start = address;
      if (!read_mem (self, start, self->window, len))
        {
          self->window_len = 0;
          return NULL;
        }
    }
  self->window_start = start;
  self->window_len = end - start;
  return self->window + (address - start);
}

static void
walk_frames (KsPyRemote *self,
             guint64     frame)
{
  const Layout *l = self->layout;
  KsPyRemoteStack *stack = &self->stack;
  guint64 codes[KS_PY_REMOTE_MAX_FRAMES];
  guint64 instrs[KS_PY_REMOTE_MAX_FRAMES];
  struct iovec local[KS_PY_REMOTE_MAX_FRAMES];
  struct iovec remote[KS_PY_REMOTE_MAX_FRAMES];
  const guint8 *block;
  guint n = 0;
  guint hops = 0;
  ssize_t got;

  stack->n_frames = 0;
  /* what was read for another thread or round may have changed */
  self->window_len = 0;
  /* bounded: a cycle read mid-update must not loop */
  while (frame != 0 && n < KS_PY_REMOTE_MAX_FRAMES && hops++ < 4 * KS_PY_REMOTE_MAX_FRAMES)
    {
      if ((block = frame_bytes (self, frame, l->frame_size)) == NULL)
        break;
      codes[n] = u64_at (block, l->frame_code) & ~l->code_tag_mask;
      instrs[n] = u64_at (block, l->frame_instr);
      frame = u64_at (block, l->frame_previous);
      if (l->owner_shim >= 0 && block[l->frame_owner] >= l->owner_shim)
        continue;
      n++;
    }
  if (n == 0)
    return;

  /* every code object's names, as they are now, in one call */
  for (guint i = 0; i < n; i++)
    {
      local[i].iov_base = self->idents[i];
      local[i].iov_len = CODE_IDENT_SIZE;
      remote[i].iov_base = GSIZE_TO_POINTER ((gsize) (codes[i] + l->code_filename));
      remote[i].iov_len = CODE_IDENT_SIZE;
    }
  got = process_vm_readv (self->pid, local, n, remote, n, 0);
  if (got < 0)
    return;
  /* a partial read stops at the first object it could not read */
  n = MIN (n, (guint) (got / CODE_IDENT_SIZE));

  for (guint i = 0; i < n; i++)
    {
      const Code *c = code_info (self, codes[i], self->idents[i]);
      KsPyRemoteFrame *f;

      if (c == NULL)
        continue;
      f = &stack->frames[stack->n_frames++];
      f->function = c->function;
      f->file = c->file;
      f->line = ks_py_remote_line_for (c->table, c->table_len, c->first_line,
                                       ((gint64) instrs[i] - (gint64) (codes[i] + l->code_adaptive)) / 2);
    }
}

gboolean
ks_py_remote_sample (KsPyRemote     *self,
                     KsPyRemoteFunc  func,
                     gpointer        user_data,
                     GError        **error)
{
  const Layout *l = self->layout;
  guint8 ptr[8];
  guint64 interp;

  /* between rounds, when no frame points at a Code */
  g_ptr_array_set_size (self->stale, 0);
  /* a long run with much generated code: start again rather than grow */
  if (g_hash_table_size (self->codes) >= MAX_CODES)
    g_hash_table_remove_all (self->codes);
  if (!read_mem (self, self->runtime + l->runtime_interp_head, ptr, sizeof ptr))
    {
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (errno),
                   _("cannot read the memory of process %d: %s"), (int) self->pid, g_strerror (errno));
      return FALSE;
    }
  interp = u64_at (ptr, 0);
  for (guint n_interp = 0; interp != 0 && n_interp < MAX_INTERPRETERS; n_interp++)
    {
      guint64 ts = 0;

      if (read_mem (self, interp + l->interp_threads_head, ptr, sizeof ptr))
        ts = u64_at (ptr, 0);
      for (guint n = 0; ts != 0 && n < MAX_THREADS; n++)
        {
          guint8 block[256];
          guint64 native;

          if (!read_mem (self, ts, block, l->ts_size))
            break;
          ts = u64_at (block, l->ts_next);
          native = u64_at (block, l->ts_native_thread_id);
          if (native == 0 || native > G_MAXUINT32)
            continue;
          if (l->ts_cframe == 0)
            memcpy (ptr, block + l->ts_current_frame, sizeof ptr);
          else if (!read_mem (self, u64_at (block, l->ts_cframe) + l->cframe_current, ptr, sizeof ptr))
            continue;
          walk_frames (self, u64_at (ptr, 0));
          if (self->stack.n_frames == 0)
            continue;
          self->stack.tid = (guint32) native;
          func (&self->stack, user_data);
        }
      if (!read_mem (self, interp + l->interp_next, ptr, sizeof ptr))
        break;
      interp = u64_at (ptr, 0);
    }
  return TRUE;
}
