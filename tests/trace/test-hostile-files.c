/* test-hostile-files.c: files that came from someone else
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   test-hostile-files --tap KINESCOPE-CLI [KINESCOPE-THUMBNAILER]
 *
 * A downloaded .kscope is opened by `kinescope-cli info`, by the window
 * and by the thumbnailer as soon as a file manager shows its folder.
 * Whatever lies beside it (a rollback journal naming a "super-journal",
 * a -journal that is a symlink to a huge sparse file, a -wal) must not
 * be replayed, followed, copied or written, and the folder must be left
 * exactly as it was. Special files (FIFOs, devices) are refused without
 * blocking. A recording cut short says why in the load warnings.
 *
 * Every hostile file is made here, by the test: the journal with SQLite's
 * own format (https://www.sqlite.org/fileformat.html, "The Rollback
 * Journal"), and checked first to do what it is meant to do to a
 * read-write connection, so that the test cannot pass by a journal that
 * SQLite would ignore anyway.
 *
 * TMPDIR is set to a regular file for the whole run: nothing may be
 * copied to a temporary directory while a trace is read, and an attempt
 * fails the load.
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <gio/gio.h>
#include <glib/gstdio.h>

#include "ks-kscope-writer.h"
#include "ks-trace-loader.h"

#include "test-hostile-util.h"
#include "test-sqlite-util.h"

#define TOOL_TIMEOUT_S 30

static const char *cli_path;
static const char *thumbnailer_path;
static char *base_dir;

/* Helpers */

/* A fresh directory of the run's own. */
static char *
make_dir (const char *name)
{
  static guint serial;
  g_autofree char *leaf = g_strdup_printf ("%s-%u", name, serial++);
  char *dir = g_build_filename (base_dir, leaf, NULL);

  g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
  return dir;
}

/* The recording of the test data, copied into @dir as @name. */
static char *
copy_recording (const char *dir,
                const char *name)
{
  g_autofree char *src = fixture_path ("small_mlp_60steps.kscope");
  char *path = g_build_filename (dir, name, NULL);

  copy_file (src, path);
  return path;
}

static void
exec_on (const char *path,
         const char *sql)
{
  sqlite3 *db = NULL;

  g_assert_cmpint (sqlite3_open (path, &db), ==, SQLITE_OK);
  exec_sql (db, sql);
  g_assert_cmpint (sqlite3_close (db), ==, SQLITE_OK);
}

static int
compare_names (gconstpointer a,
               gconstpointer b)
{
  return strcmp (*(const char * const *) a, *(const char * const *) b);
}

/* The names in @dir, sorted, one per line, with each entry's size. */
static char *
listing (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  GString *out = g_string_new (NULL);
  const char *name;

  g_assert_nonnull (d);
  while ((name = g_dir_read_name (d)))
    {
      g_autofree char *child = g_build_filename (dir, name, NULL);
      GStatBuf st;

      g_assert_cmpint (g_lstat (child, &st), ==, 0);
      g_ptr_array_add (names, g_strdup_printf ("%s %" G_GINT64_FORMAT, name, (gint64) st.st_size));
    }
  g_ptr_array_sort (names, compare_names);
  for (guint i = 0; i < names->len; i++)
    g_string_append_printf (out, "%s\n", (const char *) g_ptr_array_index (names, i));
  return g_string_free (out, FALSE);
}

static char *
contents_of (const char *path,
             gsize      *size)
{
  char *contents = NULL;

  g_assert_true (g_file_get_contents (path, &contents, size, NULL));
  return contents;
}

static guint
count_kind (KsTrace    *trace,
            KsSliceKind kind)
{
  KsTraceCounts counts;

  ks_trace_get_counts (trace, &counts);
  return counts.by_kind[kind];
}

static guint
count_lines_with (const char *text,
                  const char *needle)
{
  g_auto(GStrv) lines = g_strsplit (text ? text : "", "\n", -1);
  guint n = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    if (strstr (lines[i], needle) != NULL)
      n++;
  return n;
}

static int
run_tool (const char * const *argv,
          char              **out,
          char              **err)
{
  return run_tool_with (argv, NULL, 0, TOOL_TIMEOUT_S, out, err);
}

static int
run_info (const char  *path,
          char       **out,
          char       **err)
{
  const char *argv[] = { cli_path, "info", path, NULL };

  return run_tool (argv, out, err);
}

/* Draws a thumbnail of @path into @png; FALSE when there is no
 * thumbnailer in this build. */
static gboolean
run_thumbnailer (const char  *path,
                 const char  *png,
                 int         *status,
                 char       **err)
{
  /* A short timeout of its own, well within ours. */
  const char *argv[] = { thumbnailer_path, "-s", "128", "-t", "10", path, png, NULL };

  if (thumbnailer_path == NULL || *thumbnailer_path == 0)
    return FALSE;
  *status = run_tool (argv, NULL, err);
  return TRUE;
}

/* The super-journal attack */

static void
put_be32 (GByteArray *out,
          guint32     v)
{
  guint8 b[4] = { v >> 24, v >> 16, v >> 8, v };

  g_byte_array_append (out, b, 4);
}

static const guint8 journal_magic[8] = { 0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7 };

/* A hot rollback journal for @db that holds no pages and ends with a
 * super-journal pointer to @super: a journal header (no records, the
 * database's own size, so that a rollback changes no page) and the
 * pointer the pager writes last (the lock-byte page number, the name, its
 * length and checksum, the magic). Rolling it back "finishes" the
 * multi-database transaction by deleting @super. */
static void
write_super_journal (const char *db,
                     const char *super)
{
  g_autofree char *journal = g_strconcat (db, "-journal", NULL);
  g_autofree char *contents = NULL;
  g_autoptr(GByteArray) out = g_byte_array_new ();
  gsize size;
  guint32 page_size, n_pages, checksum = 0;
  gsize len = strlen (super);

  contents = contents_of (db, &size);
  g_assert_cmpuint (size, >=, 100);
  page_size = ((guint8) contents[16] << 8) | (guint8) contents[17];
  if (page_size == 1)
    page_size = 65536;
  n_pages = ((guint32) (guint8) contents[28] << 24) | ((guint8) contents[29] << 16) |
            ((guint8) contents[30] << 8) | (guint8) contents[31];
  g_assert_cmpuint (n_pages, ==, size / page_size);

  g_byte_array_append (out, journal_magic, 8);
  put_be32 (out, 0);           /* records */
  put_be32 (out, 0x2a2a2a2a);  /* checksum seed */
  put_be32 (out, n_pages);     /* database size before the transaction */
  put_be32 (out, 512);         /* sector size */
  put_be32 (out, page_size);
  g_byte_array_set_size (out, 512);
  memset (out->data + 28, 0, 512 - 28);

  put_be32 (out, 0x40000000 / page_size + 1);
  g_byte_array_append (out, (const guint8 *) super, len);
  for (gsize i = 0; i < len; i++)
    checksum += (guint32) (gint32) (signed char) super[i];
  put_be32 (out, (guint32) len);
  put_be32 (out, checksum);
  g_byte_array_append (out, journal_magic, 8);

  g_assert_true (g_file_set_contents (journal, (const char *) out->data, out->len, NULL));
}

/* The journal does what it is made for: a read-write connection rolls it
 * back and deletes the file it names. */
static void
check_journal_deletes (const char *dir,
                       const char *db_src)
{
  g_autofree char *db = g_build_filename (dir, "proof.kscope", NULL);
  g_autofree char *decoy = g_build_filename (dir, "decoy.txt", NULL);
  sqlite3 *conn = NULL;
  sqlite3_stmt *stmt = NULL;

  copy_file (db_src, db);
  g_assert_true (g_file_set_contents (decoy, "decoy\n", -1, NULL));
  write_super_journal (db, decoy);

  g_assert_cmpint (sqlite3_open_v2 (db, &conn, SQLITE_OPEN_READWRITE, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_prepare_v2 (conn, "SELECT count(*) FROM sqlite_master", -1, &stmt, NULL), ==, SQLITE_OK);
  g_assert_cmpint (sqlite3_step (stmt), ==, SQLITE_ROW);
  sqlite3_finalize (stmt);
  sqlite3_close (conn);
  g_assert_false (g_file_test (decoy, G_FILE_TEST_EXISTS));

  g_unlink (db);
}

static void
test_super_journal (void)
{
  g_autofree char *dir = make_dir ("super-journal");
  g_autofree char *path = copy_recording (dir, "downloaded.kscope");
  g_autofree char *journal = g_strconcat (path, "-journal", NULL);
  g_autofree char *victim = g_build_filename (dir, "precious.txt", NULL);
  g_autofree char *png_dir = make_dir ("super-journal-png");
  g_autofree char *png = g_build_filename (png_dir, "thumb.png", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *db_before = NULL;
  g_autofree char *journal_before = NULL;
  g_autofree char *db_after = NULL;
  g_autofree char *journal_after = NULL;
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr(KsTrace) reference = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  gsize db_size, journal_size, size;
  int status;

  check_journal_deletes (dir, path);

  reference = load (path, &error);
  g_assert_no_error (error);
  g_assert_null (ks_trace_get_metadata (reference, "warnings"));

  g_assert_true (g_file_set_contents (victim, "the user's own file\n", -1, NULL));
  write_super_journal (path, victim);
  before = listing (dir);
  db_before = contents_of (path, &db_size);
  journal_before = contents_of (journal, &journal_size);

  /* The library, as the window opens it. */
  trace = load (path, &error);
  g_assert_no_error (error);
  g_assert_true (g_file_test (victim, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpuint (count_kind (trace, KS_SLICE_KERNEL), ==, count_kind (reference, KS_SLICE_KERNEL));
  g_assert_cmpuint (count_lines_with (ks_trace_get_metadata (trace, "warnings"), "middle of a write"), ==, 1);

  /* kinescope-cli info */
  g_assert_cmpint (run_info (path, &out, &err), ==, 0);
  g_assert_true (g_file_test (victim, G_FILE_TEST_IS_REGULAR));
  g_assert_nonnull (strstr (out, "middle of a write"));

  /* The thumbnailer, as a file manager runs it on the folder. */
  if (run_thumbnailer (path, png, &status, &err))
    {
      g_assert_cmpint (status, ==, 0);
      g_assert_true (g_file_test (png, G_FILE_TEST_IS_REGULAR));
      g_assert_true (g_file_test (victim, G_FILE_TEST_IS_REGULAR));
    }
  else
    g_test_message ("no thumbnailer in this build");

  /* Nothing beside the file was touched, and nothing was added. */
  after = listing (dir);
  g_assert_cmpstr (after, ==, before);
  g_free (contents_of (victim, &size));
  g_assert_cmpuint (size, ==, strlen ("the user's own file\n"));
  db_after = contents_of (path, &size);
  g_assert_cmpuint (size, ==, db_size);
  g_assert_cmpint (memcmp (db_after, db_before, size), ==, 0);
  journal_after = contents_of (journal, &size);
  g_assert_cmpuint (size, ==, journal_size);
  g_assert_cmpint (memcmp (journal_after, journal_before, size), ==, 0);

  remove_tree (dir);
  remove_tree (png_dir);
}

/* A -journal that is a symlink to a 1 GiB sparse file: not followed, not
 * copied (TMPDIR is not a directory: a copy would fail the load). */
static void
test_journal_symlink (void)
{
  g_autofree char *dir = make_dir ("journal-symlink");
  g_autofree char *path = copy_recording (dir, "trace.kscope");
  g_autofree char *journal = g_strconcat (path, "-journal", NULL);
  g_autofree char *sparse = g_build_filename (dir, "huge.bin", NULL);
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autofree char *out = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  GStatBuf st;
  int fd;

  fd = g_open (sparse, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  g_assert_cmpint (fd, >=, 0);
  /* A first byte that makes the journal look hot, and a hole of 1 GiB. */
  g_assert_cmpint (write (fd, "\xd9", 1), ==, 1);
  g_assert_cmpint (ftruncate (fd, G_GINT64_CONSTANT (1) << 30), ==, 0);
  g_close (fd, NULL);
  g_assert_cmpint (symlink ("huge.bin", journal), ==, 0);
  before = listing (dir);

  trace = load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count_lines_with (ks_trace_get_metadata (trace, "warnings"), "middle of a write"), ==, 1);

  g_assert_cmpint (run_info (path, &out, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "middle of a write"));

  after = listing (dir);
  g_assert_cmpstr (after, ==, before);
  g_assert_cmpint (g_stat (sparse, &st), ==, 0);
  g_assert_cmpint (st.st_size, ==, G_GINT64_CONSTANT (1) << 30);

  remove_tree (dir);
}

/* WAL mode */

/* A copy of the recording in WAL mode; with @wal_changes, a -wal beside
 * it holds a transaction that deleted every kernel, never checkpointed. */
static char *
make_wal_recording (const char *dir,
                    gboolean    wal_changes)
{
  g_autofree char *scratch_dir = make_dir ("wal-scratch");
  g_autofree char *scratch = copy_recording (scratch_dir, "live.kscope");
  g_autofree char *scratch_wal = g_strconcat (scratch, "-wal", NULL);
  char *path = g_build_filename (dir, "wal.kscope", NULL);
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_autofree char *header = NULL;
  gsize size;
  sqlite3 *db = NULL;

  exec_on (scratch, "PRAGMA journal_mode = WAL");
  header = contents_of (scratch, &size);
  g_assert_cmpint (header[18], ==, 2);
  g_assert_cmpint (header[19], ==, 2);
  g_assert_false (g_file_test (scratch_wal, G_FILE_TEST_EXISTS));

  if (!wal_changes)
    copy_file (scratch, path);
  else
    {
      g_assert_cmpint (sqlite3_open (scratch, &db), ==, SQLITE_OK);
      exec_sql (db, "PRAGMA wal_autocheckpoint = 0; DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL");
      /* Copied while the connection is open: the -wal is not yet folded in. */
      copy_file (scratch, path);
      copy_file (scratch_wal, wal);
      exec_sql (db, "PRAGMA wal_checkpoint(TRUNCATE)");
      sqlite3_close (db);
      g_assert_cmpint (g_file_get_contents (wal, &header, &size, NULL), ==, TRUE);
      g_assert_cmpuint (size, >, 0);
    }

  remove_tree (scratch_dir);
  return path;
}

static void
test_wal (void)
{
  g_autofree char *dir = make_dir ("wal");
  g_autofree char *path = make_wal_recording (dir, FALSE);
  g_autofree char *src = fixture_path ("small_mlp_60steps.kscope");
  g_autofree char *before = listing (dir);
  g_autofree char *after = NULL;
  g_autofree char *out = NULL;
  g_autoptr(KsTrace) reference = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsTrace) again = NULL;
  g_autoptr(GError) error = NULL;

  reference = load (src, &error);
  g_assert_no_error (error);

  trace = load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count_kind (trace, KS_SLICE_KERNEL), ==, count_kind (reference, KS_SLICE_KERNEL));
  g_assert_cmpuint (count_kind (trace, KS_SLICE_KERNEL), ==, 1978);
  g_assert_null (ks_trace_get_metadata (trace, "warnings"));
  after = listing (dir);
  g_assert_cmpstr (after, ==, before);

  /* On read-only media: the same, and nothing can be created anyway. */
  g_assert_cmpint (g_chmod (dir, 0555), ==, 0);
  again = load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count_kind (again, KS_SLICE_KERNEL), ==, 1978);
  g_assert_cmpint (run_info (path, &out, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "kernels"));
  g_clear_pointer (&after, g_free);
  after = listing (dir);
  g_assert_cmpstr (after, ==, before);
  g_assert_cmpint (g_chmod (dir, 0755), ==, 0);

  remove_tree (dir);
}

/* A -wal with changes beside the file: they are not read, and the load
 * says so. */
static void
test_wal_left_beside (void)
{
  g_autofree char *dir = make_dir ("wal-beside");
  g_autofree char *path = make_wal_recording (dir, TRUE);
  g_autofree char *wal = g_strconcat (path, "-wal", NULL);
  g_autofree char *before = listing (dir);
  g_autofree char *after = NULL;
  g_autofree char *wal_before = NULL;
  g_autofree char *wal_after = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(GError) error = NULL;
  gsize wal_size, size;

  wal_before = contents_of (wal, &wal_size);
  trace = load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count_kind (trace, KS_SLICE_KERNEL), ==, 1978);
  g_assert_cmpuint (count_lines_with (ks_trace_get_metadata (trace, "warnings"), "-wal"), ==, 1);

  after = listing (dir);
  g_assert_cmpstr (after, ==, before);
  wal_after = contents_of (wal, &size);
  g_assert_cmpuint (size, ==, wal_size);
  g_assert_cmpint (memcmp (wal_after, wal_before, size), ==, 0);

  remove_tree (dir);
}

/* File names that mean something in a URI: the name is passed to SQLite
 * as one, and must open that file and no other. The decoy is what an
 * unescaped "a%20b?c#d ü.kscope" names ("a b", then a query). */
static void
test_uri_characters (void)
{
  g_autofree char *dir = make_dir ("uri");
  g_autofree char *path = copy_recording (dir, "a%20b?c#d ü.kscope");
  g_autofree char *decoy = copy_recording (dir, "a b");
  g_autofree char *cyrillic = copy_recording (dir, "трасса 100%.kscope");
  g_autofree char *before = NULL;
  g_autofree char *after = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsTrace) other = NULL;
  g_autoptr(GError) error = NULL;

  exec_on (decoy, "DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL");
  before = listing (dir);

  trace = load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count_kind (trace, KS_SLICE_KERNEL), ==, 1978);
  other = load (cyrillic, &error);
  g_assert_no_error (error);
  g_assert_cmpuint (count_kind (other, KS_SLICE_KERNEL), ==, 1978);

  after = listing (dir);
  g_assert_cmpstr (after, ==, before);
  remove_tree (dir);
}

/* Special files */

typedef struct
{
  GFile    *file;
  KsTrace  *trace;
  GError   *error;
  gboolean  done;
  GMutex    mutex;
  GCond     cond;
} Blocking;

static gpointer
load_thread (gpointer data)
{
  Blocking *b = data;
  KsTrace *trace;
  GError *error = NULL;

  trace = ks_trace_load (b->file, NULL, NULL, &error);
  g_mutex_lock (&b->mutex);
  b->trace = trace;
  b->error = error;
  b->done = TRUE;
  g_cond_signal (&b->cond);
  g_mutex_unlock (&b->mutex);
  return NULL;
}

/* ks_trace_load() of @path in a thread, given 10 s. When it blocks in a
 * FIFO's open() the FIFO is opened for writing and closed, which lets the
 * load go on, and the test fails. */
static GError *
load_special (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  Blocking b = { file, NULL, NULL, FALSE };
  GThread *thread;
  gint64 deadline = g_get_monotonic_time () + 10 * G_TIME_SPAN_SECOND;
  GError *error;

  g_mutex_init (&b.mutex);
  g_cond_init (&b.cond);
  thread = g_thread_new ("load", load_thread, &b);
  g_mutex_lock (&b.mutex);
  while (!b.done)
    if (!g_cond_wait_until (&b.cond, &b.mutex, deadline))
      break;
  if (!b.done)
    {
      int fd;

      g_test_fail_printf ("ks_trace_load (%s) blocked", path);
      g_mutex_unlock (&b.mutex);
      fd = g_open (path, O_WRONLY | O_NONBLOCK, 0);
      if (fd >= 0)
        g_close (fd, NULL);
      g_mutex_lock (&b.mutex);
    }
  g_mutex_unlock (&b.mutex);
  g_thread_join (thread);
  g_mutex_clear (&b.mutex);
  g_cond_clear (&b.cond);

  g_assert_null (b.trace);
  error = b.error;
  g_assert_nonnull (error);
  return error;
}

static void
assert_special_refused (const char *path,
                        const char *kind)
{
  g_autofree char *base = g_path_get_basename (path);
  g_autoptr(GError) error = load_special (path);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;

  g_test_message ("%s", error->message);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_REGULAR_FILE);
  g_assert_nonnull (strstr (error->message, base));
  g_assert_nonnull (strstr (error->message, kind));

  g_assert_cmpint (run_info (path, &out, &err), ==, 1);
  g_assert_nonnull (strstr (err, base));
  g_assert_nonnull (strstr (err, kind));
}

static void
test_fifo (void)
{
  g_autofree char *dir = make_dir ("fifo");
  g_autofree char *fifo = g_build_filename (dir, "pipe.kscope", NULL);
  g_autofree char *link = g_build_filename (dir, "link.json", NULL);
  g_autofree char *png = g_build_filename (dir, "thumb.png", NULL);
  g_autofree char *err = NULL;
  int status;

  g_assert_cmpint (mkfifo (fifo, 0644), ==, 0);
  assert_special_refused (fifo, "named pipe");

  /* A symlink to one is the same. */
  g_assert_cmpint (symlink ("pipe.kscope", link), ==, 0);
  assert_special_refused (link, "named pipe");

  if (run_thumbnailer (fifo, png, &status, &err))
    {
      g_assert_cmpint (status, ==, 1);
      g_assert_nonnull (strstr (err, "pipe.kscope"));
      g_assert_nonnull (strstr (err, "named pipe"));
      g_assert_false (g_file_test (png, G_FILE_TEST_EXISTS));
    }

  remove_tree (dir);
}

static void
test_device (void)
{
  if (!g_file_test ("/dev/null", G_FILE_TEST_EXISTS))
    {
      g_test_skip ("no /dev/null");
      return;
    }
  assert_special_refused ("/dev/null", "character device");
  if (g_file_test ("/dev/zero", G_FILE_TEST_EXISTS))
    assert_special_refused ("/dev/zero", "character device");
}

/* Recordings cut short */

static const struct
{
  const char *end_reason;  /* NULL: no end_reason row */
  const char *complete;
  const char *warning;     /* NULL: none */
} cut_short[] = {
  { "interrupted", "0",
    "The recording was cut short: it was interrupted (Ctrl+C or a stop signal to the recorder) before the program ended" },
  { "command-killed", "0",
    "The recording was cut short: the program was killed by a signal or crashed" },
  { "disk-full", "0",
    "The recording was cut short: the disk was full (or a quota or file size limit was reached), so writing "
    "stopped while the program ran on unrecorded" },
  { "write-failed", "0",
    "The recording was cut short: the trace could not be written, so writing stopped while the program ran "
    "on unrecorded" },
  { "spawn-failed", "0",
    "The recording was cut short: the program could not be started" },
  { "command-exited", "0",
    "The recording was cut short: the program exited before the recorder finished the file" },
  { "duration", "0",
    "The recording was cut short while it was stopping at the requested duration" },
  { NULL, "0",
    "The recording was cut short: the recorder stopped before it finished the file (it was killed or crashed); "
    "what happened after its last save is missing" },
  { "out-of-cheese", "0",
    "The recording was cut short (the recorder gave the reason “out-of-cheese”)" },
  { "duration", "1", NULL },
  { "command-exited", "1", NULL },
  { "command-killed", NULL, NULL },
};

static void
test_cut_short (void)
{
  g_autofree char *dir = make_dir ("cut-short");

  for (guint i = 0; i < G_N_ELEMENTS (cut_short); i++)
    {
      g_autofree char *name = g_strdup_printf ("cut-%u.kscope", i);
      g_autofree char *path = copy_recording (dir, name);
      g_autofree char *sql = NULL;
      g_autoptr(KsTrace) trace = NULL;
      g_autoptr(GError) error = NULL;
      const char *warnings;

      sql = sqlite3_mprintf ("DELETE FROM KS_META WHERE name IN ('complete', 'end_reason');"
                             "INSERT INTO KS_META SELECT 'complete', %Q WHERE %Q IS NOT NULL;"
                             "INSERT INTO KS_META SELECT 'end_reason', %Q WHERE %Q IS NOT NULL;",
                             cut_short[i].complete, cut_short[i].complete,
                             cut_short[i].end_reason, cut_short[i].end_reason);
      exec_on (path, sql);
      sqlite3_free (g_steal_pointer (&sql));

      trace = load (path, &error);
      g_assert_no_error (error);
      warnings = ks_trace_get_metadata (trace, "warnings");
      g_test_message ("%s, complete %s: %s", cut_short[i].end_reason, cut_short[i].complete, warnings);
      if (cut_short[i].warning == NULL)
        g_assert_null (warnings);
      else
        g_assert_cmpstr (warnings, ==, cut_short[i].warning);
    }

  remove_tree (dir);
}

/* kinescope-cli info says it; a copy saved with ks_kscope_write() says it
 * once, with the same reason. */
static void
test_cut_short_info_and_copy (void)
{
  g_autofree char *dir = make_dir ("cut-short-info");
  g_autofree char *path = copy_recording (dir, "interrupted.kscope");
  g_autofree char *copy = g_build_filename (dir, "copy.kscope", NULL);
  g_autoptr(GFile) out_file = g_file_new_for_path (copy);
  g_autofree char *out = NULL;
  g_autoptr(KsTrace) trace = NULL;
  g_autoptr(KsTrace) again = NULL;
  g_autoptr(GError) error = NULL;
  const char *json_argv[] = { cli_path, "info", "--format", "json", path, NULL };
  const char *stats_argv[] = { cli_path, "stats", "--format", "json", path, NULL };
  g_autofree char *err = NULL;
  g_autofree char *expected = NULL;

  exec_on (path, "UPDATE KS_META SET value = '0' WHERE name = 'complete';"
                 "UPDATE KS_META SET value = 'interrupted' WHERE name = 'end_reason';");

  g_assert_cmpint (run_info (path, &out, NULL), ==, 0);
  g_assert_nonnull (strstr (out, cut_short[0].warning));
  g_clear_pointer (&out, g_free);
  g_assert_cmpint (run_tool (json_argv, &out, NULL), ==, 0);
  g_assert_nonnull (strstr (out, "\"warnings\":[\"The recording was cut short: it was interrupted"));
  g_clear_pointer (&out, g_free);

  /* stats says it on stderr, so that its JSON stays clean */
  g_assert_cmpint (run_tool (stats_argv, &out, &err), ==, 0);
  g_assert_null (strstr (out, "cut short"));
  expected = g_strdup_printf ("Warning: %s\n", cut_short[0].warning);
  g_assert_nonnull (strstr (err, expected));

  trace = load (path, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ks_trace_get_metadata (trace, "end_reason"), ==, "interrupted");
  g_assert_true (ks_kscope_write (trace, out_file, NULL, NULL, &error));
  g_assert_no_error (error);
  again = load (copy, &error);
  g_assert_no_error (error);
  g_assert_cmpstr (ks_trace_get_metadata (again, "warnings"), ==, cut_short[0].warning);

  remove_tree (dir);
}

int
main (int   argc,
      char *argv[])
{
  const char *real_tmp = g_getenv ("TMPDIR");
  g_autofree char *tmpdir = NULL;
  int status;

  /* Before anything asks GLib for the temporary directory: it keeps the
   * first answer. */
  base_dir = g_build_filename (real_tmp && *real_tmp ? real_tmp : "/tmp", "ks-hostile-XXXXXX", NULL);
  g_assert_nonnull (g_mkdtemp (base_dir));
  tmpdir = g_build_filename (base_dir, "TMPDIR-is-a-file", NULL);
  g_assert_true (g_file_set_contents (tmpdir, "", 0, NULL));
  g_setenv ("TMPDIR", tmpdir, TRUE);

  g_test_init (&argc, &argv, NULL);
  if (argc < 2)
    g_error ("usage: %s [--tap] KINESCOPE-CLI [KINESCOPE-THUMBNAILER]", argv[0]);
  cli_path = argv[1];
  thumbnailer_path = argc > 2 ? argv[2] : NULL;

  g_test_add_func ("/hostile/super-journal", test_super_journal);
  g_test_add_func ("/hostile/journal-symlink", test_journal_symlink);
  g_test_add_func ("/hostile/wal", test_wal);
  g_test_add_func ("/hostile/wal-left-beside", test_wal_left_beside);
  g_test_add_func ("/hostile/uri-characters", test_uri_characters);
  g_test_add_func ("/hostile/fifo", test_fifo);
  g_test_add_func ("/hostile/device", test_device);
  g_test_add_func ("/hostile/cut-short", test_cut_short);
  g_test_add_func ("/hostile/cut-short-info-and-copy", test_cut_short_info_and_copy);

  status = g_test_run ();

  g_unlink (tmpdir);
  g_rmdir (base_dir);
  g_free (base_dir);
  return status;
}
