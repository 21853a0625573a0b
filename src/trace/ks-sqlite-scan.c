/* ks-sqlite-scan.c: a table's rows, read ahead on other threads
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * SQLite steps a statement on one thread, and stepping and reading the
 * columns is about half of reloading a .kscope. A scan cuts its table
 * into blocks of rowids. Reader threads, each with a connection of its
 * own to the file, read the next blocks ahead into batches (columns as
 * sqlite3_column_int64() or _double() gives them, text copied, a trace's
 * arguments prepared for the builder's store), and the loading thread
 * takes the rows block after block: the rows and their
 * order are those of one SELECT ... ORDER BY rowid. A block no thread has
 * started yet is read by the loading thread itself, on its own
 * connection, rather than waited for. One thread alone reads the SELECT
 * as it is, a batch at a time.
 *
 * A damaged b-tree can hold rowids out of order, and a search by rowid
 * then skips or repeats rows that a plain scan reads once. So each row's
 * rowid must lie in its block and follow the one before, and a thread
 * counts the table's rows meanwhile: on any difference, or an error in
 * a block, the reader loads the file again on one thread
 * (_ks_sqlite_scan_next() sets r->again), which says what one thread says.
 *
 * The arguments' shapes and string values are numbered in a dictionary
 * of the block's own (ks_args_local_prepare()), so that the loading
 * thread looks each of them up in the store once a block rather than
 * at every row (ks_args_store_add_local(), through the block's map).
 * KINESCOPE_SQLITE_ARGS=prepared has them prepared as offsets into the
 * text instead (ks_args_prepare()), every string then interned by the
 * loading thread: the way before, kept to compare. When the arguments
 * are stored on a thread of their own (ks-sqlite-args.c), a block's
 * text, dictionary and map go with its rows' arguments once the block
 * is merged, and a stored one's come back for the next block.
 */

#define G_LOG_DOMAIN "ks-sqlite-reader"

#include "config.h"

#include <string.h>

#include "ks-args.h"
#include "ks-json-scan.h"
#include "ks-load-phases.h"
#include "ks-sqlite-reader.h"
#include "ks-sqlite-reader-private.h"

/* Rowids a block spans. Each block costs a descent of the b-tree and a
 * wakeup; a batch of 4096 rows is 0.3–0.7 MB. */
#define DEFAULT_BLOCK_ROWS 4096
/* A batch that holds this much text ends early; the rest of its block
 * is read by the loading thread when it gets there. */
#define BATCH_TEXT_BYTES   (8 << 20)
#define MAX_SCANS          32

typedef enum
{
  BLOCK_IDLE,     /* not submitted */
  BLOCK_QUEUED,   /* waiting for a reader thread */
  BLOCK_RUNNING,  /* being read */
  BLOCK_DONE,
} BlockState;

typedef struct
{
  KsSqliteScan *scan;
  gint64        lo;        /* rowids [lo, hi] */
  gint64        hi;
  BlockState    state;     /* under the workers' mutex */
  gint64       *values;    /* n_columns a row */
  guint32      *nulls;     /* a bit a column */
  guint         n_rows;
  guint         cap_rows;
  char         *text;
  gsize         text_len;
  gsize         text_cap;
  gboolean      more;      /* the batch filled up before the block's end */
  gint64        skip;      /* rows of the block in the batches before */
  gint64        last_rowid;/* of the block's rows read so far... */
  gboolean      any;       /* ...if any */
  gboolean      census;    /* not a block: the count of the scan's rows */
  gint64        count;
  int           rc;        /* SQLITE_DONE, or how reading failed */
  char         *errmsg;
  guint         n_invalid; /* arguments of the batch that were not UTF-8 */
  KsArgsLocal  *local;     /* the arguments' dictionary of the batch... */
  gboolean      local_used;/* ...when its records are numbered in it */
  guint32      *map;       /* its numbers -> the store's, for the loading thread */
  gsize         map_cap;
  KsSqliteRuns  runs;      /* the batch's slices by track... */
  gboolean      gathered;  /* ...when it was gathered */
} Block;

struct _KsSqliteScan
{
  KsSqliteReader *r;
  char           *sql;         /* the ranged SELECT */
  char           *count_sql;
  guint           n_columns;
  guint32         absent_mask; /* columns the table lacks: always NULL */
  guint8          ints[32];    /* the columns read as integers */
  guint           n_ints;
  guint8          texts[32];   /* as text */
  guint           n_texts;
  guint32         args_mask;   /* text columns that are a trace's arguments */
  guint8          reals[32];   /* and as doubles */
  guint           n_reals;
  gboolean        ranged;      /* FALSE: one statement read start to end */
  gboolean        gather;      /* each batch gathered into runs of slices */
  sqlite3_stmt   *stmt;        /* on r->db, for the blocks read here */
  sqlite3_stmt   *rest;        /* the rest of a block whose batch filled up */
  sqlite3_stmt   *count;       /* the census, when no thread took it */

  gint64          first;       /* the table's rowids */
  gint64          last;
  gint64          n_blocks;
  gint64          next;        /* the next block to hand out */
  gint64          submitted;   /* blocks [0, submitted) have a slot */
  Block          *window;      /* block k in window[k % n_window] */
  guint           n_window;
  Block          *current;
  guint           pos;
  Block           census;
  guint64         delivered;   /* rows handed out */
};

struct _KsSqliteWorkers
{
  GMutex    mutex;
  GCond     cond;              /* a block is done, or a job queued */
  GQueue    jobs;              /* Block* in the order they are wanted */
  gboolean  stopping;
  char     *path;
  GThread **threads;
  guint     n_threads;
  gboolean  prepare_args;      /* the threads prepare the arguments too... */
  gboolean  args_local;        /* ...numbered in each block's dictionary */
  guint     read_ahead;        /* blocks the threads read */
  guint     read_here;         /* and the loading thread */
  /* KINESCOPE_LOAD_PHASES: the loading thread's time waiting and
   * reading blocks itself, and the reading threads' time, summed */
  KsPhaseClock waited;
  KsPhaseClock here;
  KsPhaseClock ahead;
};

static gsize
block_rows (void)
{
  const char *env = g_getenv ("KINESCOPE_SQLITE_BLOCK_ROWS");
  guint64 v;

  /* small blocks are for the tests: every row near a boundary */
  if (env != NULL && g_ascii_string_to_unsigned (env, 10, 1, 1 << 20, &v, NULL))
    return (gsize) v;
  return DEFAULT_BLOCK_ROWS;
}

/* Reading a block, on any thread */

/* How a reading thread prepares the arguments of a block's rows: in the
 * block's dictionary, with @record, or, without, as ks_args_prepare()
 * gives them. */
typedef struct
{
  KsArgsScratch *scratch;
  GByteArray    *record;
} Preparer;

static gboolean
block_reserve (Block *b,
               gsize  text)
{
  guint n_columns = b->scan->n_columns;

  if (b->n_rows == b->cap_rows)
    {
      guint cap = MAX (64, b->cap_rows * 2);

      b->values = g_try_renew (gint64, b->values, (gsize) cap * n_columns);
      b->nulls = g_try_renew (guint32, b->nulls, cap);
      if (b->values == NULL || b->nulls == NULL)
        return FALSE;
      b->cap_rows = cap;
    }
  if (b->text_len + text > b->text_cap)
    {
      gsize cap = MAX (b->text_len + text, MAX (4096, b->text_cap * 2));

      if ((b->text = g_try_realloc (b->text, cap)) == NULL)
        return FALSE;
      b->text_cap = cap;
    }
  return TRUE;
}

/* Appends @stmt's row to @b: FALSE when memory ran out. */
/* A text column's text is copied with its NUL; an arguments column's
 * after two 32-bit words, the text's length and that of what @prep
 * prepared it to, which follows the NUL (0: not prepared, when read
 * without one). */
static gboolean
block_add_row (Block        *b,
               sqlite3_stmt *stmt,
               Preparer     *prep)
{
  const KsSqliteScan *scan = b->scan;
  gint64 *v;
  guint32 nulls = scan->absent_mask;

  if (!block_reserve (b, 0))
    return FALSE;
  v = b->values + (gsize) b->n_rows * scan->n_columns;
  memset (v, 0, sizeof (gint64) * scan->n_columns);

  /* Each call costs about as much as the builder spends on a row: NULL
   * reads as 0, so only a 0 asks for the type. */
  for (guint i = 0; i < scan->n_ints; i++)
    {
      guint c = scan->ints[i];

      if ((v[c] = sqlite3_column_int64 (stmt, c)) == 0 && sqlite3_column_type (stmt, c) == SQLITE_NULL)
        nulls |= 1u << c;
    }
  for (guint i = 0; i < scan->n_reals; i++)
    {
      guint c = scan->reals[i];
      double d = sqlite3_column_double (stmt, c);

      /* NULL (SQLite's NaN), or text and blobs, which read as 0: no value */
      if (d == 0.0 && sqlite3_column_type (stmt, c) != SQLITE_FLOAT && sqlite3_column_type (stmt, c) != SQLITE_INTEGER)
        nulls |= 1u << c;
      memcpy (&v[c], &d, sizeof d);
    }
  for (guint i = 0; i < scan->n_texts; i++)
    {
      guint c = scan->texts[i];
      const char *text = (const char *) sqlite3_column_text (stmt, c);
      g_autofree char *valid = NULL;
      guint32 words[2];
      gsize len;

      if (text == NULL)
        {
          nulls |= 1u << c;
          continue;
        }
      len = (gsize) sqlite3_column_bytes (stmt, c);
      words[1] = 0;
      if (scan->args_mask & (1u << c))
        {
          /* arguments end at their first NUL, as the builder takes them */
          len = strlen (text);
          /* and are shown by widgets, which take only UTF-8 */
          if (!ks_json_is_ascii ((const guint8 *) text, len) && !g_utf8_validate_len (text, len, NULL))
            {
              text = valid = g_utf8_make_valid (text, len);
              len = strlen (text);
              b->n_invalid++;
            }
          words[0] = (guint32) MIN (len, G_MAXUINT32);
          if (prep == NULL)
            words[1] = 0;
          else if (prep->record != NULL)
            {
              /* emptied in place: g_byte_array_set_size() would go
               * through g_array_remove_range() at every row */
              prep->record->len = 0;
              words[1] = (guint32) ks_args_local_prepare (b->local, prep->scratch, text, len, prep->record);
            }
          else
            words[1] = (guint32) ks_args_prepare (prep->scratch, text, len);
          if (!block_reserve (b, sizeof words + len + 1 + words[1]))
            return FALSE;
          memcpy (b->text + b->text_len, words, sizeof words);
          b->text_len += sizeof words;
          if (words[1] > 0 && prep->record != NULL)
            memcpy (b->text + b->text_len + len + 1, prep->record->data, words[1]);
          else if (words[1] > 0)
            ks_args_prepared_write (prep->scratch, (guint8 *) b->text + b->text_len + len + 1);
        }
      else if (!block_reserve (b, len + 1))
        return FALSE;
      memcpy (b->text + b->text_len, text, len + 1);
      v[c] = (gint64) b->text_len;
      b->text_len += len + 1 + words[1];
    }
  b->nulls[b->n_rows++] = nulls;
  return TRUE;
}

/* Reads @b's rows with @stmt, a statement of its scan on @db: a ranged
 * one from b->lo (past b->skip rows, when it takes an offset), an
 * unranged one from where it stopped. */
static void
block_read (Block        *b,
            sqlite3      *db,
            sqlite3_stmt *stmt,
            Preparer     *prep)
{
  const KsSqliteScan *scan = b->scan;
  gsize most_rows = scan->ranged ? G_MAXSIZE : block_rows ();
  int rc = SQLITE_DONE;

  /* a dictionary a batch: the loading thread maps it batch by batch */
  b->local_used = prep != NULL && prep->record != NULL && scan->args_mask != 0;
  if (b->local_used && b->local == NULL)
    b->local = ks_args_local_new ();
  else if (b->local_used)
    ks_args_local_clear (b->local);

  b->n_rows = 0;
  b->text_len = 0;
  b->n_invalid = 0;
  b->more = FALSE;
  b->rc = SQLITE_DONE;
  g_clear_pointer (&b->errmsg, g_free);

  if (scan->ranged)
    {
      sqlite3_reset (stmt);
      sqlite3_bind_int64 (stmt, 1, b->lo);
      sqlite3_bind_int64 (stmt, 2, b->hi);
      if (sqlite3_bind_parameter_count (stmt) == 3)
        sqlite3_bind_int64 (stmt, 3, b->skip);
    }

  while (!b->more && (rc = sqlite3_step (stmt)) == SQLITE_ROW)
    {
      if (scan->ranged)
        {
          gint64 rowid = sqlite3_column_int64 (stmt, scan->n_columns);

          if (rowid < b->lo || rowid > b->hi || (b->any && rowid <= b->last_rowid))
            {
              rc = SQLITE_CORRUPT;
              break;
            }
          b->last_rowid = rowid;
          b->any = TRUE;
        }
      if (!block_add_row (b, stmt, prep))
        {
          rc = SQLITE_NOMEM;
          break;
        }
      b->more = b->text_len >= BATCH_TEXT_BYTES || b->n_rows >= most_rows;
    }
  if (b->more)
    rc = SQLITE_DONE;
  /* on this thread, off the loading thread's path */
  b->gathered = scan->gather && rc == SQLITE_DONE &&
                _ks_sqlite_runs_gather (scan->r, &b->runs, b->values, scan->n_columns, b->n_rows);

  if (rc != SQLITE_DONE)
    {
      b->rc = rc;
      b->errmsg = g_strdup (rc == SQLITE_NOMEM || rc == SQLITE_CORRUPT ? sqlite3_errstr (rc) : sqlite3_errmsg (db));
    }
  if (scan->ranged)
    sqlite3_reset (stmt);
}

/* The census: how many rows the scan's SELECT has. */
static void
census_read (Block        *b,
             sqlite3      *db,
             sqlite3_stmt *stmt)
{
  int rc = sqlite3_step (stmt);

  b->rc = SQLITE_DONE;
  g_clear_pointer (&b->errmsg, g_free);
  if (rc == SQLITE_ROW)
    b->count = sqlite3_column_int64 (stmt, 0);
  else
    {
      b->rc = rc == SQLITE_DONE ? SQLITE_CORRUPT : rc;
      b->errmsg = g_strdup (sqlite3_errmsg (db));
    }
  sqlite3_reset (stmt);
}

/* Runs job @b, a block or a census, with @stmt, its statement on @db;
 * @prep prepares the arguments of a block's rows, or NULL. */
static void
job_run (Block        *b,
         sqlite3      *db,
         sqlite3_stmt *stmt,
         Preparer     *prep)
{
  if (stmt == NULL)
    {
      b->n_rows = 0;
      b->more = FALSE;
      b->rc = sqlite3_errcode (db) != SQLITE_OK ? sqlite3_errcode (db) : SQLITE_ERROR;
      g_free (b->errmsg);
      b->errmsg = g_strdup (sqlite3_errmsg (db));
    }
  else if (b->census)
    census_read (b, db, stmt);
  else
    block_read (b, db, stmt, prep);
}

/* The reader threads */

typedef struct
{
  KsSqliteWorkers *w;
  sqlite3         *db;
  GHashTable      *stmts;   /* SQL -> its statement on db */
  Preparer         prep;
} Worker;

static sqlite3_stmt *
worker_stmt (Worker     *self,
             const char *sql)
{
  sqlite3_stmt *stmt = g_hash_table_lookup (self->stmts, sql);

  if (stmt == NULL && sqlite3_prepare_v2 (self->db, sql, -1, &stmt, NULL) == SQLITE_OK)
    g_hash_table_insert (self->stmts, g_strdup (sql), stmt);
  return stmt;
}

static gpointer
worker_main (gpointer data)
{
  Worker self = { data, NULL, NULL, { NULL, NULL } };
  KsSqliteWorkers *w = self.w;
  KsPhaseClock clock;

  /* Without a connection of its own the thread reads nothing; the
   * loading thread reads the blocks it leaves. */
  if (ks_sqlite_open_untrusted (w->path, &self.db) != SQLITE_OK)
    {
      g_clear_pointer (&self.db, sqlite3_close);
      return NULL;
    }
  self.stmts = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, (GDestroyNotify) sqlite3_finalize);
  self.prep.scratch = ks_args_scratch_new ();
  if (w->args_local)
    self.prep.record = g_byte_array_new ();

  g_mutex_lock (&w->mutex);
  for (;;)
    {
      sqlite3_stmt *stmt;
      Block *b;

      while (!w->stopping && g_queue_is_empty (&w->jobs))
        g_cond_wait (&w->cond, &w->mutex);
      if (w->stopping)
        break;

      b = g_queue_pop_head (&w->jobs);
      b->state = BLOCK_RUNNING;
      g_mutex_unlock (&w->mutex);

      ks_phase_start (&clock);
      stmt = worker_stmt (&self, b->census ? b->scan->count_sql : b->scan->sql);
      job_run (b, self.db, stmt, w->prepare_args ? &self.prep : NULL);

      g_mutex_lock (&w->mutex);
      ks_phase_add (&clock, &w->ahead);
      b->state = BLOCK_DONE;
      w->read_ahead++;
      g_cond_broadcast (&w->cond);
    }
  g_mutex_unlock (&w->mutex);

  g_hash_table_unref (self.stmts);
  ks_args_scratch_free (self.prep.scratch);
  if (self.prep.record != NULL)
    g_byte_array_unref (self.prep.record);
  sqlite3_close (self.db);
  return NULL;
}

KsSqliteWorkers *
_ks_sqlite_workers_new (const char      *path,
                        guint            n_threads,
                        KsSqliteArgsWay  way)
{
  KsSqliteWorkers *w = g_new0 (KsSqliteWorkers, 1);

  g_mutex_init (&w->mutex);
  g_cond_init (&w->cond);
  g_queue_init (&w->jobs);
  w->path = g_strdup (path);
  /* With one, it has as much to do as the loading thread: preparing
   * there would only add the handover. */
  w->prepare_args = n_threads >= 2;
  w->args_local = way != KS_SQLITE_ARGS_PREPARED;
  w->threads = g_new0 (GThread *, MAX (n_threads, 1));
  for (guint i = 0; i < n_threads; i++)
    {
      GThread *thread = g_thread_try_new ("ks-sqlite-scan", worker_main, w, NULL);

      if (thread != NULL)
        w->threads[w->n_threads++] = thread;
    }
  return w;
}

void
_ks_sqlite_workers_print_phases (KsSqliteWorkers *w)
{
  g_mutex_lock (&w->mutex);
  /* not "read: ": these lie within the read's steps, or on other threads */
  ks_phase_print ("scan: the loading thread waiting for the reading threads", &w->waited);
  ks_phase_print ("scan: blocks read on the loading thread", &w->here);
  ks_phase_print ("scan: blocks read ahead, the reading threads together", &w->ahead);
  g_mutex_unlock (&w->mutex);
}

void
_ks_sqlite_workers_free (KsSqliteWorkers *w)
{
  g_mutex_lock (&w->mutex);
  w->stopping = TRUE;
  g_cond_broadcast (&w->cond);
  g_mutex_unlock (&w->mutex);
  for (guint i = 0; i < w->n_threads; i++)
    g_thread_join (w->threads[i]);
  /* for the tests: the threads did read */
  g_debug ("%s: %u blocks read ahead on %u threads, %u here", w->path, w->read_ahead, w->n_threads, w->read_here);

  g_queue_clear (&w->jobs);
  g_mutex_clear (&w->mutex);
  g_cond_clear (&w->cond);
  g_free (w->threads);
  g_free (w->path);
  g_free (w);
}

/* Scans */

/* Whether @table's rowids can be cut into blocks: it has them (the
 * statement with ORDER BY rowid prepared), no column of its own hides
 * them, and there are no more of them than the file has bytes (a hostile
 * max(rowid) would make a scan of empty blocks). */
static gboolean
can_cut (KsSqliteReader *r,
         const char     *table,
         GHashTable     *columns,
         gint64         *first,
         gint64         *last)
{
  static const char * const hiding[] = { "rowid", "_rowid_", "oid" };
  g_autofree char *sql = NULL;
  sqlite3_stmt *stmt = NULL;
  GHashTableIter iter;
  gpointer name;
  gboolean ok = FALSE;

  g_hash_table_iter_init (&iter, columns);
  while (g_hash_table_iter_next (&iter, &name, NULL))
    for (guint i = 0; i < G_N_ELEMENTS (hiding); i++)
      if (g_ascii_strcasecmp (name, hiding[i]) == 0)
        return FALSE;

  /* one aggregate a SELECT: each is then a single descent of the b-tree */
  sql = sqlite3_mprintf ("SELECT (SELECT min(rowid) FROM \"%w\"), (SELECT max(rowid) FROM \"%w\")", table, table);
  if (sql != NULL && sqlite3_prepare_v2 (r->db, sql, -1, &stmt, NULL) == SQLITE_OK &&
      sqlite3_step (stmt) == SQLITE_ROW &&
      sqlite3_column_type (stmt, 0) == SQLITE_INTEGER && sqlite3_column_type (stmt, 1) == SQLITE_INTEGER)
    {
      *first = sqlite3_column_int64 (stmt, 0);
      *last = sqlite3_column_int64 (stmt, 1);
      ok = *last >= *first && (guint64) *last - (guint64) *first < _ks_sqlite_database_bytes (r);
    }
  sqlite3_finalize (stmt);
  sqlite3_free (g_steal_pointer (&sql));
  return ok;
}

/* Gives block @k a slot and, with reader threads, queues it. */
static void
submit (KsSqliteScan *s,
        gint64        k)
{
  KsSqliteWorkers *w = s->r->workers;
  Block *b = &s->window[k % s->n_window];
  KsSqliteArgsPart *part;

  /* memory that arguments stored on their own thread are done with */
  if (b->text == NULL && s->r->args_stage != NULL && (part = _ks_sqlite_args_take_spare (s->r->args_stage)) != NULL)
    {
      b->text = part->text;
      b->text_cap = part->text_cap;
      b->local = part->local;
      b->map = part->map;
      b->map_cap = part->map_cap;
      g_free (part);
    }

  b->lo = s->first + k * (gint64) block_rows ();
  b->skip = 0;
  b->any = FALSE;
  b->hi = k == s->n_blocks - 1 ? s->last : b->lo + (gint64) block_rows () - 1;
  b->state = BLOCK_QUEUED;
  if (!s->ranged)
    return;

  g_mutex_lock (&w->mutex);
  g_queue_push_tail (&w->jobs, b);
  g_cond_signal (&w->cond);
  g_mutex_unlock (&w->mutex);
}

KsSqliteResult
_ks_sqlite_scan_open_gathering (KsSqliteReader      *r,
                                const char          *table,
                                const char * const  *columns,
                                guint                n_columns,
                                guint                n_required,
                                const char          *types,
                                const char          *where,
                                gboolean             gather,
                                KsSqliteScan       **scan,
                                GError             **error)
{
  g_autoptr(GString) sql = NULL;
  sqlite3_stmt *stmt;
  KsSqliteScan *s;
  GHashTable *have;
  KsSqliteResult found;
  guint n_threads = r->workers != NULL ? r->workers->n_threads : 0;

  g_assert (n_columns <= KS_SQLITE_MAX_COLUMNS && strlen (types) == n_columns);

  *scan = NULL;
  if ((found = _ks_sqlite_select (r, table, columns, n_columns, n_required, where,
                                  &stmt, error)) != KS_SQLITE_READ)
    return found;
  /* the columns were read for the SELECT */
  _ks_sqlite_table_columns (r, table, &have, NULL);

  s = g_new0 (KsSqliteScan, 1);
  s->r = r;
  s->n_columns = n_columns;
  s->gather = gather;
  for (guint c = 0; c < n_columns; c++)
    if (!g_hash_table_contains (have, columns[c]))
      s->absent_mask |= 1u << c;
    else if (types[c] == 't' || types[c] == 'a')
      {
        s->texts[s->n_texts++] = c;
        if (types[c] == 'a')
          s->args_mask |= 1u << c;
      }
    else if (types[c] == 'r')
      s->reals[s->n_reals++] = c;
    else
      s->ints[s->n_ints++] = c;
  /* Alone, the loading thread reads the SELECT as it is: testing each
   * row against a block's range costs a twentieth of a reload. */
  s->ranged = n_threads > 0 && strstr (sqlite3_sql (stmt), " ORDER BY rowid") != NULL &&
              can_cut (r, table, have, &s->first, &s->last);

  if (!s->ranged)
    {
      /* the SELECT as it is, read from start to end here */
      s->stmt = stmt;
      s->n_blocks = 1;
    }
  else
    {
      /* The same SELECT for the rowids [?1, ?2], with each row's rowid;
       * past ?3 of them; and its count. */
      const char *text = sqlite3_sql (stmt);
      g_autoptr(GString) filter = g_string_new (NULL);

      g_string_append_printf (filter, " FROM \"%s\"", table);
      if (where != NULL)
        g_string_append_printf (filter, " WHERE (%s)", where);
      s->count_sql = g_strconcat ("SELECT count(*)", filter->str, NULL);

      sql = g_string_new_len (text, strstr (text, " FROM \"") - text);
      g_string_append_printf (sql, ", rowid FROM \"%s\" WHERE rowid >= ?1 AND rowid <= ?2", table);
      if (where != NULL)
        g_string_append_printf (sql, " AND (%s)", where);
      g_string_append (sql, " ORDER BY rowid");
      sqlite3_finalize (stmt);
      s->sql = g_strdup (sql->str);
      g_string_append (sql, " LIMIT -1 OFFSET ?3");
      if (sqlite3_prepare_v2 (r->db, s->sql, -1, &s->stmt, NULL) != SQLITE_OK ||
          sqlite3_prepare_v2 (r->db, sql->str, -1, &s->rest, NULL) != SQLITE_OK ||
          sqlite3_prepare_v2 (r->db, s->count_sql, -1, &s->count, NULL) != SQLITE_OK)
        {
          _ks_sqlite_set_error (r, sqlite3_errcode (r->db), error);
          _ks_sqlite_scan_free (s);
          return KS_SQLITE_FAILED;
        }
      s->n_blocks = (gint64) (((guint64) s->last - (guint64) s->first) / block_rows () + 1);

      /* the census goes first, to be done by the time the rows are */
      s->census.scan = s;
      s->census.census = TRUE;
      s->census.state = BLOCK_QUEUED;
      g_mutex_lock (&r->workers->mutex);
      g_queue_push_tail (&r->workers->jobs, &s->census);
      g_cond_signal (&r->workers->cond);
      g_mutex_unlock (&r->workers->mutex);
    }

  /* Two blocks a thread in flight, counting at most the default number
   * of reading threads: the slice tables' scans are open side by side,
   * and more threads share their blocks rather than add to them (each
   * more block of every scan costs about 1 MiB of a large trace). */
  s->n_window = n_threads == 0 ? 1 : (guint) MIN (s->n_blocks, 2 * (MIN (n_threads, KS_SQLITE_MAX_WORKERS) + 1));
  s->window = g_new0 (Block, s->n_window);
  for (guint i = 0; i < s->n_window; i++)
    s->window[i].scan = s;
  for (s->submitted = 0; s->submitted < s->n_window; s->submitted++)
    submit (s, s->submitted);

  *scan = s;
  return KS_SQLITE_READ;
}

KsSqliteResult
_ks_sqlite_scan_open (KsSqliteReader      *r,
                      const char          *table,
                      const char * const  *columns,
                      guint                n_columns,
                      guint                n_required,
                      const char          *types,
                      const char          *where,
                      KsSqliteScan       **scan,
                      GError             **error)
{
  return _ks_sqlite_scan_open_gathering (r, table, columns, n_columns, n_required, types, where, FALSE, scan, error);
}

/* The statement on r->db that reads job @b here. */
static sqlite3_stmt *
here_stmt (Block *b)
{
  return b->census ? b->scan->count : b->scan->stmt;
}

/* Waits for job @b, running it here when no thread has taken it, and
 * running the next queued jobs here while a thread runs it. */
static void
job_wait (KsSqliteScan *s,
          Block        *b)
{
  KsSqliteWorkers *w = s->r->workers;
  KsPhaseClock clock;

  if (!s->ranged)
    {
      block_read (b, s->r->db, s->stmt, NULL);
      b->state = BLOCK_DONE;
      return;
    }

  g_mutex_lock (&w->mutex);
  while (b->state != BLOCK_DONE)
    {
      Block *job = b->state == BLOCK_QUEUED ? b : g_queue_peek_head (&w->jobs);

      ks_phase_start (&clock);
      if (job == NULL)
        {
          g_cond_wait (&w->cond, &w->mutex);
          ks_phase_add (&clock, &w->waited);
          continue;
        }
      g_queue_remove (&w->jobs, job);
      job->state = BLOCK_RUNNING;
      g_mutex_unlock (&w->mutex);
      job_run (job, s->r->db, here_stmt (job), NULL);
      g_mutex_lock (&w->mutex);
      ks_phase_add (&clock, &w->here);
      job->state = BLOCK_DONE;
      w->read_here++;
    }
  g_mutex_unlock (&w->mutex);
}

/* Whether a ranged scan read every row of its SELECT once; if not, the
 * file is read again on one thread. */
static gboolean
scan_complete (KsSqliteScan  *s,
               Block         *failed_block,
               GError       **error)
{
  const char *msg;
  int rc;

  if (failed_block == NULL)
    {
      job_wait (s, &s->census);
      if (s->census.rc == SQLITE_DONE && (guint64) s->census.count == s->delivered)
        return TRUE;
      failed_block = &s->census;
    }

  rc = failed_block->rc != SQLITE_DONE ? failed_block->rc : SQLITE_CORRUPT;
  msg = failed_block->rc != SQLITE_DONE ? failed_block->errmsg : sqlite3_errstr (rc);
  if (s->ranged)
    s->r->again = TRUE;
  _ks_sqlite_set_error_message (s->r, rc, msg, error);
  return FALSE;
}

/* Empties block @b's map for its dictionary: each of its numbers is
 * looked up in the store when first met. */
static void
block_map (Block *b)
{
  gsize n = (gsize) ks_args_local_get_n_entries (b->local) + 1;

  if (n > b->map_cap)
    {
      b->map_cap = MAX (n, b->map_cap * 2);
      g_free (b->map);
      b->map = g_new (guint32, b->map_cap);
    }
  memset (b->map, 0, n * sizeof (guint32));
}

/* Block @b's rows are merged: while the arguments are stored on their
 * own thread, its text, dictionary and map, which they point into, go
 * with them, and @b reads into other memory. */
static void
block_hand_over (KsSqliteScan *s,
                 Block        *b)
{
  KsSqliteArgsPart *part;

  if (s->r->args_stage == NULL || s->args_mask == 0)
    return;
  part = g_new (KsSqliteArgsPart, 1);
  part->text = g_steal_pointer (&b->text);
  part->text_cap = b->text_cap;
  part->local = g_steal_pointer (&b->local);
  part->map = g_steal_pointer (&b->map);
  part->map_cap = b->map_cap;
  b->text_cap = b->text_len = b->map_cap = 0;
  _ks_sqlite_args_hand_over (s->r->args_stage, part);
}

gboolean
_ks_sqlite_scan_next (KsSqliteScan  *s,
                      KsSqliteRow   *row,
                      gboolean      *failed,
                      GError       **error)
{
  Block *b = s->current;

  while (b == NULL || s->pos >= b->n_rows)
    {
      if (b != NULL)
        {
          if (b->rc != SQLITE_DONE)
            {
              *failed = !scan_complete (s, b, error);
              return FALSE;
            }

          s->r->invalid_args += b->n_invalid;
          b->n_invalid = 0;
          s->pos = 0;
          if (b->more)
            {
              /* A batch that filled up: the rest of its block, here
               * (an unranged statement goes on where it stopped). */
              b->skip += b->n_rows;
              block_hand_over (s, b);
              block_read (b, s->r->db, s->ranged ? s->rest : s->stmt, NULL);
              continue;
            }

          block_hand_over (s, b);
          b->state = BLOCK_IDLE;
          s->current = b = NULL;
          s->next++;
          if (s->submitted < s->n_blocks)
            submit (s, s->submitted++);
        }

      if (s->next >= s->n_blocks)
        {
          *failed = s->ranged && !scan_complete (s, NULL, error);
          return FALSE;
        }

      b = s->current = &s->window[s->next % s->n_window];
      s->pos = 0;
      job_wait (s, b);
      if (b->local_used)
        block_map (b);
    }

  row->v = b->values + (gsize) s->pos * s->n_columns;
  row->nulls = b->nulls[s->pos];
  row->text = b->text;
  row->args_local = b->local_used ? b->local : NULL;
  row->args_map = b->map;
  s->pos++;
  s->delivered++;
  return TRUE;
}

gboolean
_ks_sqlite_scan_batch (KsSqliteScan  *s,
                       KsSqliteBatch *batch)
{
  Block *b = s->current;

  if (b == NULL || s->pos == 0)
    return FALSE;
  batch->runs = b->gathered ? &b->runs : NULL;
  batch->at = s->pos - 1;
  batch->values = b->values;
  batch->n_columns = s->n_columns;
  batch->nulls = b->nulls;
  batch->text = b->text;
  batch->args_local = b->local_used ? b->local : NULL;
  batch->args_map = b->map;
  return TRUE;
}

void
_ks_sqlite_scan_skip (KsSqliteScan *s,
                      guint         n)
{
  g_return_if_fail (s->current != NULL && s->pos + n <= s->current->n_rows);

  s->pos += n;
  s->delivered += n;
}

/* Takes @b out of the queue, or waits until no thread is running it. */
static void
job_cancel (KsSqliteWorkers *w,
            Block           *b)
{
  if (b->state == BLOCK_QUEUED)
    {
      g_queue_remove (&w->jobs, b);
      b->state = BLOCK_IDLE;
    }
  while (b->state == BLOCK_RUNNING)
    g_cond_wait (&w->cond, &w->mutex);
}

void
_ks_sqlite_scan_free (KsSqliteScan *s)
{
  KsSqliteWorkers *w;

  if (s == NULL)
    return;

  /* No thread may still be reading into the window. */
  if ((w = s->r->workers) != NULL && s->ranged)
    {
      g_mutex_lock (&w->mutex);
      for (guint i = 0; i < s->n_window; i++)
        job_cancel (w, &s->window[i]);
      job_cancel (w, &s->census);
      g_mutex_unlock (&w->mutex);
    }
  /* Arguments handed over may point into the block being merged: its
   * memory goes with them (the blocks before it went when merged, those
   * after it were not merged). */
  if (s->current != NULL)
    block_hand_over (s, s->current);

  for (guint i = 0; i < s->n_window; i++)
    {
      g_free (s->window[i].values);
      g_free (s->window[i].nulls);
      g_free (s->window[i].text);
      g_free (s->window[i].errmsg);
      ks_args_local_free (s->window[i].local);
      g_free (s->window[i].map);
      _ks_sqlite_runs_clear (&s->window[i].runs);
    }
  g_free (s->census.errmsg);
  g_free (s->window);
  sqlite3_finalize (s->stmt);
  sqlite3_finalize (s->rest);
  sqlite3_finalize (s->count);
  g_free (s->sql);
  g_free (s->count_sql);
  g_free (s);
}
