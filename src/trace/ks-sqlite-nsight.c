/* ks-sqlite-nsight.c: the tables of an Nsight Systems export
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * StringIds, TARGET_INFO_*, CUPTI_ACTIVITY_KIND_*, NVTX_EVENTS, OSRT_API,
 * the library tables, GPU metrics and CUDA memory usage, as
 * `nsys export --type sqlite` writes them (schema 2.x and 3.x). A .kscope
 * holds its CUDA activity and NVTX ranges in the same tables, with a few
 * columns of its own (categoryId, externalId, args, nameId), so these
 * readers serve both kinds of file.
 *
 * One file of about a thousand lines: the table readers share its string
 * lookups (StringIds, API names), stream tracks and the column readers for
 * a .kscope's extra columns, which no other part of the reader uses.
 */

#define G_LOG_DOMAIN "ks-sqlite-reader"

#include "config.h"

#include <string.h>

#include <glib/gi18n.h>

#include "ks-sqlite-reader-private.h"
#include "ks-torch-nvtx.h"

/* Strings */

/* sid()'s lookup on a miss: interns the text on first use. */
guint32
_ks_sqlite_sid_slow (KsSqliteReader *r,
                     gint64          id)
{
  const char *value = NULL;
  guint32 bid;

  if (id >= 0 && id < r->n_dense)
    value = r->svalues ? r->svalues[id] : NULL;
  else if (r->sparse_map != NULL)
    {
      gpointer v = g_hash_table_lookup (r->sparse_map, &id);

      if (v != NULL)
        return GPOINTER_TO_UINT (v) - 1;
      value = g_hash_table_lookup (r->sparse_values, &id);
    }

  if (value == NULL)
    {
      r->unknown_strings++;
      bid = 0;
    }
  else
    bid = ks_trace_builder_intern (r->b, value);

  if (id >= 0 && id < r->n_dense)
    r->smap[id] = bid;
  else if (r->sparse_map != NULL)
    {
      gint64 *key = g_new (gint64, 1);

      *key = id;
      g_hash_table_insert (r->sparse_map, key, GUINT_TO_POINTER (bid + 1));
    }

  return bid;
}

gboolean
_ks_sqlite_nsight_load_strings (KsSqliteReader  *r,
                                GError         **error)
{
  static const char * const columns[] = { "id", "value" };
  sqlite3_stmt *stmt = NULL;
  KsSqliteResult found;
  gint64 max_id = -1, count = 0;
  gboolean failed = FALSE;

  if (sqlite3_prepare_v2 (r->db, "SELECT max(id), count(*) FROM StringIds", -1, &stmt, NULL) != SQLITE_OK ||
      sqlite3_step (stmt) != SQLITE_ROW)
    {
      int rc = sqlite3_errcode (r->db);

      sqlite3_finalize (stmt);
      return _ks_sqlite_set_error (r, rc, error);
    }
  max_id = col_null (stmt, 0) ? -1 : col_i64 (stmt, 0);
  count = col_i64 (stmt, 1);
  sqlite3_finalize (stmt);

  r->chunk = g_string_chunk_new (64 * 1024);

  /* Ids are dense in every file seen; a sparse (or hostile) numbering
   * must not make us allocate by the largest id. */
  if (max_id >= 0 && max_id < 2 * count + 1024 && max_id < (1 << 28))
    {
      r->n_dense = max_id + 1;
      r->smap = g_new (guint32, r->n_dense);
      memset (r->smap, 0xff, sizeof (guint32) * r->n_dense);
      if (!r->kscope)
        r->svalues = g_new0 (const char *, r->n_dense);
    }
  else
    {
      r->sparse_values = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
      r->sparse_map = g_hash_table_new_full (g_int64_hash, g_int64_equal, g_free, NULL);
    }

  if ((found = _ks_sqlite_select (r, "StringIds", columns, 2, 2, NULL, &stmt, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;

  while (ks_sqlite_next_row (r, stmt, &failed, error))
    {
      gint64 id = col_i64 (stmt, 0);
      const char *value = (const char *)sqlite3_column_text (stmt, 1);

      if (value == NULL)
        value = "";

      if (id >= 0 && id < r->n_dense)
        {
          /* Our own files use every string: intern now, skip the copy. */
          if (r->kscope)
            r->smap[id] = ks_trace_builder_intern (r->b, value);
          else
            r->svalues[id] = g_string_chunk_insert (r->chunk, value);
        }
      else if (r->sparse_values != NULL)
        {
          gint64 *key = g_new (gint64, 1);

          *key = id;
          g_hash_table_insert (r->sparse_values, key, g_string_chunk_insert (r->chunk, value));
        }

      if (!ks_sqlite_row_done (r, error))
        {
          failed = TRUE;
          break;
        }
    }
  sqlite3_finalize (stmt);

  return !failed;
}

/* The text of StringIds row @id, or NULL. */
static char *
string_text (KsSqliteReader *r,
             gint64          id)
{
  sqlite3_stmt *stmt = NULL;
  char *text = NULL;

  if (id >= 0 && id < r->n_dense && r->svalues != NULL)
    return g_strdup (r->svalues[id]);
  if (r->sparse_values != NULL)
    return g_strdup (g_hash_table_lookup (r->sparse_values, &id));

  if (sqlite3_prepare_v2 (r->db, "SELECT value FROM StringIds WHERE id = ?", -1, &stmt, NULL) == SQLITE_OK)
    {
      sqlite3_bind_int64 (stmt, 1, id);
      if (sqlite3_step (stmt) == SQLITE_ROW)
        text = g_strdup ((const char *)sqlite3_column_text (stmt, 0));
    }
  sqlite3_finalize (stmt);
  return text;
}

/* CUDA API names: Nsight stores "cudaLaunchKernel_v7000"; show the name. */
static guint32
api_sid (KsSqliteReader *r,
         gint64          id)
{
  g_autofree char *name = NULL;
  gpointer value;
  guint32 bid;
  gint64 *key;

  /* a thread's calls are mostly the same call: the lookup was a fifth
   * of a .kscope's CUDA call on the loading thread */
  if (r->last_api_bid != KS_SQLITE_NONE && id == r->last_api_id)
    return r->last_api_bid;
  if ((value = g_hash_table_lookup (r->api_names, &id)) != NULL)
    {
      r->last_api_id = id;
      r->last_api_bid = GPOINTER_TO_UINT (value) - 1;
      return r->last_api_bid;
    }

  bid = sid (r, id);
  if (bid != 0 && (name = string_text (r, id)) != NULL)
    {
      gsize len = strlen (name);
      const char *p = name + len;

      /* Nsight's suffix is a CUDA version (_v3020, _v11000); a short one
       * is part of the API's own name (cuMemAlloc_v2). */
      while (p > name && g_ascii_isdigit (p[-1]))
        p--;
      if (name + len - p >= 4 && p - name >= 3 && p[-1] == 'v' && p[-2] == '_')
        bid = ks_trace_builder_intern_len (r->b, name, (p - 2) - name);
    }

  key = g_new (gint64, 1);
  *key = id;
  g_hash_table_insert (r->api_names, key, GUINT_TO_POINTER (bid + 1));
  return bid;
}

/* GPU streams */

static guint32
group_of (KsSqliteReader *r,
          gint64          gpid)
{
  return _ks_sqlite_reader_process (r, gpid)->group;
}

static guint32
stream_track (KsSqliteReader    *r,
              const KsSqliteRow *row,
              int                gpid_col,
              gint64             device,
              gint64             stream)
{
  gboolean orphan = row_null (row, gpid_col);
  gint64 gpid = orphan ? -1 : row_i64 (row, gpid_col);
  guint32 group = 0;

  if (stream == KS_NSYS_NO_STREAM)
    stream = -1;
  device = CLAMP (device, G_MININT32, G_MAXINT32);

  if (r->last_stream_track != KS_SQLITE_NONE && r->last_stream_key[0] == gpid &&
      r->last_stream_key[1] == device && r->last_stream_key[2] == stream)
    return r->last_stream_track;

  if (!orphan)
    group = group_of (r, gpid);
  else if (r->orphan_streams != NULL)
    {
      g_autofree char *key = ks_sqlite_orphan_stream_key (device, stream);
      gpointer value;

      if (g_hash_table_lookup_extended (r->orphan_streams, key, NULL, &value))
        group = GPOINTER_TO_UINT (value);
    }

  ks_trace_builder_set_group (r->b, group);
  r->last_stream_key[0] = gpid;
  r->last_stream_key[1] = device;
  r->last_stream_key[2] = stream;
  r->last_stream_track = ks_trace_builder_get_stream_track (r->b, (gint32)device, stream);
  return r->last_stream_track;
}

/* The category column of a .kscope row, else what the table implies. */
static inline guint32
row_category (KsSqliteReader    *r,
              const KsSqliteRow *row,
              int                col,
              KsSliceKind        kind)
{
  if (r->kscope && !row_null (row, col))
    return sid (r, row_i64 (row, col));
  return r->category[kind];
}

static inline guint32
row_ext (KsSqliteReader    *r,
         const KsSqliteRow *row,
         int                col)
{
  return r->kscope ? row_u32 (row, col) : 0;
}

/* Nsight's export metadata: the product and schema versions. */
gboolean
_ks_sqlite_nsight_load_export_meta (KsSqliteReader  *r,
                                    GError         **error)
{
  static const char * const columns[] = { "name", "value" };
  const char *table = _ks_sqlite_has_table (r, "META_DATA_EXPORT") ? "META_DATA_EXPORT" : "EXPORT_META_DATA";
  sqlite3_stmt *stmt;
  KsSqliteResult found;
  gboolean failed = FALSE;

  if ((found = _ks_sqlite_select (r, table, columns, 2, 2, NULL, &stmt, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;

  while (ks_sqlite_next_row (r, stmt, &failed, error))
    {
      const char *name = (const char *)sqlite3_column_text (stmt, 0);
      const char *value = (const char *)sqlite3_column_text (stmt, 1);

      if (name == NULL || value == NULL)
        continue;
      if (strcmp (name, "EXPORT_PRODUCT_VERSION") == 0)
        ks_trace_builder_set_metadata (r->b, "nsys_version", value);
      else if (strcmp (name, "EXPORT_SCHEMA_VERSION") == 0)
        ks_trace_builder_set_metadata (r->b, "nsys_schema_version", value);
    }

  return ks_sqlite_finish (stmt, failed);
}

/* Nsight lists every process of the machine; names are kept aside and
 * given to the processes that turn out to have events. */
gboolean
_ks_sqlite_nsight_load_process_names (KsSqliteReader  *r,
                                      GError         **error)
{
  static const char * const columns[] = { "globalPid", "name", "pid" };
  sqlite3_stmt *stmt;
  KsSqliteResult found;
  gboolean failed = FALSE;

  if ((found = _ks_sqlite_select (r, "PROCESSES", columns, G_N_ELEMENTS (columns), 2, NULL,
                                  &stmt, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;

  while (ks_sqlite_next_row (r, stmt, &failed, error))
    {
      const char *name = (const char *)sqlite3_column_text (stmt, 1);
      gint64 *key;

      if (name == NULL || *name == 0)
        continue;
      key = g_new (gint64, 1);
      *key = ks_sqlite_gid_process (col_i64 (stmt, 0));
      g_hash_table_insert (r->process_names, key, g_strdup (name));
    }

  return ks_sqlite_finish (stmt, failed);
}

gboolean
_ks_sqlite_nsight_load_thread_names (KsSqliteReader  *r,
                                     GError         **error)
{
  static const char * const columns[] = { "globalTid", "nameId" };
  sqlite3_stmt *stmt;
  KsSqliteResult found;
  gboolean failed = FALSE;

  if ((found = _ks_sqlite_select (r, "ThreadNames", columns, 2, 2, NULL, &stmt, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;

  while (ks_sqlite_next_row (r, stmt, &failed, error))
    {
      gint64 *key = g_new (gint64, 1);

      *key = col_i64 (stmt, 0);
      g_hash_table_insert (r->thread_names, key, GSIZE_TO_POINTER ((gsize)col_i64 (stmt, 1)));
    }

  return ks_sqlite_finish (stmt, failed);
}

gboolean
_ks_sqlite_nsight_load_gpus (KsSqliteReader  *r,
                             GError         **error)
{
  static const char * const columns[] = {
    "id", "name", "totalMemory", "smCount", "computeMajor", "computeMinor",
    "maxThreadsPerBlock", "maxWarpsPerSm", "threadsPerWarp", "maxRegistersPerBlock",
    "maxRegistersPerSm", "maxShmemPerBlock", "maxShmemPerSm", "maxThreadsPerSm",
  };
  sqlite3_stmt *stmt;
  KsSqliteResult found;
  gboolean failed = FALSE;

  if ((found = _ks_sqlite_select (r, "TARGET_INFO_GPU", columns, G_N_ELEMENTS (columns), 1, NULL, &stmt, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;

  while (ks_sqlite_next_row (r, stmt, &failed, error))
    {
      KsGpu gpu = { 0 };
      const char *name = (const char *)sqlite3_column_text (stmt, 1);

      gpu.device = (gint32)CLAMP (col_i64 (stmt, 0), G_MININT32, G_MAXINT32);
      gpu.name = name ? ks_trace_builder_intern (r->b, name) : 0;
      gpu.total_memory = (guint64)col_i64 (stmt, 2);
      gpu.sm_count = col_u32 (stmt, 3);
      gpu.compute_major = col_u32 (stmt, 4);
      gpu.compute_minor = col_u32 (stmt, 5);
      gpu.max_threads_per_block = col_u32 (stmt, 6);
      gpu.warp_size = col_u32 (stmt, 8);
      gpu.registers_per_block = col_u32 (stmt, 9);
      gpu.registers_per_sm = col_u32 (stmt, 10);
      gpu.shared_memory_per_block = col_u32 (stmt, 11);
      gpu.shared_memory_per_sm = col_u32 (stmt, 12);
      if (!col_null (stmt, 13))
        gpu.max_threads_per_sm = col_u32 (stmt, 13);
      else
        gpu.max_threads_per_sm = col_u32 (stmt, 7) * gpu.warp_size;
      ks_trace_builder_add_gpu (r->b, &gpu);
    }

  return ks_sqlite_finish (stmt, failed);
}

gboolean
_ks_sqlite_nsight_load_session (KsSqliteReader  *r,
                                GError         **error)
{
  static const char * const columns[] = { "utcEpochNs" };
  sqlite3_stmt *stmt;
  KsSqliteResult found;
  gboolean failed = FALSE;

  if ((found = _ks_sqlite_select (r, "TARGET_INFO_SESSION_START_TIME", columns, 1, 1, NULL, &stmt, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;

  if (ks_sqlite_next_row (r, stmt, &failed, error) && !col_null (stmt, 0))
    {
      gint64 utc = CLAMP (col_i64 (stmt, 0), -KS_SQLITE_TS_LIMIT, KS_SQLITE_TS_LIMIT);

      ks_trace_builder_set_start_utc (r->b, utc - r->shift);
    }

  return ks_sqlite_finish (stmt, failed);
}

/* Slice tables */

static char *
domain_key (gint64 gtid,
            gint64 domain)
{
  return g_strdup_printf ("%" G_GINT64_FORMAT "/%" G_GINT64_FORMAT, ks_sqlite_gid_process (gtid), domain);
}

/* The range of an NVTX_EVENTS row (start 0, end 2, correlation 8,
 * external id 9) as a slice of @kind on @track. */
static void
nvtx_range (KsSqliteReader    *r,
            const KsSqliteRow *row,
            guint32            track,
            KsSliceKind        kind,
            guint32            name,
            guint32            category,
            guint32            args)
{
  if (row_null (row, 2))
    {
      /* Never closed: it lasts to the end of the trace. */
      KsOpenRange open = { 0 };

      open.start = row_ts (r, row, 0);
      open.track = track;
      open.name = name;
      open.category = category;
      open.correlation = row_ext (r, row, 8);
      open.external_id = row_ext (r, row, 9);
      open.args = args;
      open.kind = kind;
      /* one stack, so that they close in the order they came */
      ks_trace_builder_begin_range (r->b, 0, &open);
    }
  else
    add_slice (r, track, row_ts (r, row, 0), row_ts (r, row, 2), kind,
               name, category, row_ext (r, row, 8), row_ext (r, row, 9), args, NULL);
}

/* An operator with a sequence number, for the forward -> backward flows. */
typedef struct
{
  gint64  process;          /* globalPid */
  gint64  seq;
  gint64  start;
  gint64  end;
  guint32 thread;
  guint32 track;
  gboolean backward;
} TorchSeq;

/* A range of PyTorch's NVTX emission becomes the operator (or
 * record_function annotation) a Kineto trace would have, on its thread. */
static void
torch_op (KsSqliteReader    *r,
          GArray            *ops,
          const KsSqliteRow *row,
          guint32            thread,
          KsTorchOp         *op)
{
  KsSliceKind kind = strstr (op->name, "::") != NULL ? KS_SLICE_CPU_OP : KS_SLICE_USER_ANNOTATION;
  guint32 track = ks_trace_builder_get_thread_track (r->b, thread);
  guint32 name = ks_trace_builder_intern (r->b, op->name);
  guint32 category = ks_trace_builder_intern (r->b, kind == KS_SLICE_CPU_OP ? "cpu_op" : "user_annotation");
  g_autofree char *json = ks_torch_op_args (op);
  guint32 args = ks_trace_builder_add_args (r->b, json, strlen (json));
  gint64 start = row_ts (r, row, 0);

  nvtx_range (r, row, track, kind, name, category, args);
  if (op->seq >= 0 && !row_null (row, 2))
    {
      TorchSeq e;

      e.process = ks_sqlite_gid_process (row_i64 (row, 3));
      e.seq = op->seq;
      e.start = start;
      e.end = MAX (row_ts (r, row, 2), start);
      e.thread = thread;
      e.track = track;
      e.backward = ks_torch_op_is_backward (op);
      g_array_append_val (ops, e);
    }
}

static int
compare_torch_seq (gconstpointer a,
                   gconstpointer b)
{
  const TorchSeq *x = a;
  const TorchSeq *y = b;

  if (x->process != y->process)
    return x->process < y->process ? -1 : 1;
  if (x->seq != y->seq)
    return x->seq < y->seq ? -1 : 1;
  if (x->start != y->start)
    return x->start < y->start ? -1 : 1;
  return (x->end < y->end) - (x->end > y->end);
}

/* Forward -> backward, as Kineto links them: from the outermost forward
 * operator with the sequence number on another thread than the
 * backward's to each "autograd::engine::evaluate_function: ..." with it. */
static void
link_fwdbwd (KsSqliteReader *r,
             GArray         *ops)
{
  const TorchSeq *e = (const TorchSeq *) (gpointer) ops->data;
  guint32 category = 0;

  if (ops->len == 0)
    return;
  g_array_sort (ops, compare_torch_seq);
  for (guint first = 0, k = 1; k <= ops->len; k++)
    {
      if (k < ops->len && e[k].process == e[first].process && e[k].seq == e[first].seq)
        continue;
      for (guint b = first; b < k; b++)
        {
          if (!e[b].backward)
            continue;
          /* sorted by start, longer first: the first is the outermost */
          for (guint f = first; f < k; f++)
            if (!e[f].backward && e[f].thread != e[b].thread)
              {
                if (category == 0)
                  category = ks_trace_builder_intern (r->b, "fwdbwd");
                ks_trace_builder_add_slice_flow (r->b, e[f].track, e[f].start, e[f].end,
                                                 e[b].track, e[b].start, e[b].end, category, KS_FLOW_OTHER);
                break;
              }
        }
      first = k;
    }
}

gboolean
_ks_sqlite_nsight_load_nvtx (KsSqliteReader  *r,
                             GError         **error)
{
  static const char * const columns[] = {
    "start", "eventType", "end", "globalTid", "text", "textId", "domainId", "jsonText",
    "correlationId", "externalId",
  };
  g_autoptr(GHashTable) domains = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, NULL);
  sqlite3_stmt *stmt;
  KsSqliteScan *scan;
  KsSqliteRow row;
  KsSqliteResult found;
  gboolean failed = FALSE;
  gint64 last_domain = G_MININT64;
  gint64 last_domain_process = G_MININT64;
  guint32 last_domain_category = 0;
  g_autoptr(GArray) ops = g_array_new (FALSE, FALSE, sizeof (TorchSeq));

  /* Domain names and NVTX thread names first: ranges refer to them. */
  if ((found = _ks_sqlite_select (r, "NVTX_EVENTS", columns, G_N_ELEMENTS (columns), 2,
                                  "eventType IN (39, 75)", &stmt, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;

  while (ks_sqlite_next_row (r, stmt, &failed, error))
    {
      const char *text = (const char *)sqlite3_column_text (stmt, 4);

      if (col_i64 (stmt, 1) == KS_NSYS_NVTX_DOMAIN_CREATE)
        {
          guint32 name = text ? ks_trace_builder_intern (r->b, text) : sid (r, col_i64 (stmt, 5));

          g_hash_table_insert (domains, domain_key (col_i64 (stmt, 3), col_i64 (stmt, 6)),
                               GUINT_TO_POINTER (name));
        }
      else
        {
          char *name = text ? g_strdup (text) : string_text (r, col_i64 (stmt, 5));
          gint64 *key = g_new (gint64, 1);

          *key = col_i64 (stmt, 3);
          g_hash_table_insert (r->nvtx_thread_names, key, name);
        }
    }
  if (!ks_sqlite_finish (stmt, failed))
    return FALSE;

  /* text and jsonText are read as text */
  if ((found = _ks_sqlite_scan_open (r, "NVTX_EVENTS", columns, G_N_ELEMENTS (columns), 2, "iiiitiiaii",
                                     "eventType IN (34, 59, 60, 65, 70, 71)", &scan, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;

  KS_SQLITE_SCAN_ROWS (r, scan, row, failed, error)
    {
      gint64 type = row_i64 (&row, 1);
      gint64 gtid = row_i64 (&row, 3);
      const char *text = row_text (&row, 4);
      guint32 name = text ? 0 : sid (r, row_i64 (&row, 5));
      guint32 category = r->category[KS_SLICE_NVTX];
      guint32 thread = _ks_sqlite_reader_thread (r, gtid);
      guint32 track;
      guint32 args;
      KsTorchOp op;

      /* PyTorch's operators, before their text is interned: an op_id
       * makes each one unique. */
      if ((type == KS_NSYS_NVTX_PUSH_POP || type == KS_NSYS_NVTXT_PUSH_POP) &&
          ks_torch_nvtx_parse (text ? text : ks_trace_builder_get_string (r->b, name), &op))
        {
          torch_op (r, ops, &row, thread, &op);
          ks_torch_op_clear (&op);
          continue;
        }

      if (text != NULL)
        name = ks_trace_builder_intern (r->b, text);
      track = ks_trace_builder_get_nvtx_track (r->b, thread);
      args = r->kscope ? row_args (r, &row, 7) : 0;

      if (!row_null (&row, 6))
        {
          gint64 domain = row_i64 (&row, 6);

          /* Ranges of one domain and process come in runs. */
          if (domain != last_domain || ks_sqlite_gid_process (gtid) != last_domain_process)
            {
              g_autofree char *key = domain_key (gtid, domain);
              gpointer value;

              last_domain = domain;
              last_domain_process = ks_sqlite_gid_process (gtid);
              last_domain_category = category;
              if (g_hash_table_lookup_extended (domains, key, NULL, &value))
                last_domain_category = GPOINTER_TO_UINT (value);
            }
          category = last_domain_category;
        }

      if (type == KS_NSYS_NVTX_MARK || type == KS_NSYS_NVTXT_MARK)
        {
          KsInstant inst = { 0 };

          inst.ts = row_ts (r, &row, 0);
          inst.track = track;
          inst.process = _ks_sqlite_reader_process (r, gtid)->process;
          inst.name = name;
          inst.category = category;
          inst.args = args;
          ks_trace_builder_add_instant (r->b, &inst);
        }
      else
        nvtx_range (r, &row, track, KS_SLICE_NVTX, name, category, args);
    }

  _ks_sqlite_scan_free (scan);
  if (failed)
    return FALSE;
  link_fwdbwd (r, ops);
  return TRUE;
}

static guint32
memcpy_name (KsSqliteReader  *r,
             const KsGpuInfo *info)
{
  guint32 *slot = &r->memcpy_names[MIN (info->copy.copy_kind, 10)][MIN (info->copy.src_kind, 7)][MIN (info->copy.dst_kind, 7)];

  if (*slot == KS_SQLITE_NONE)
    {
      g_autofree char *name = ks_sqlite_memcpy_name (info);

      *slot = ks_trace_builder_intern (r->b, name);
    }
  return *slot;
}

static guint32
memset_name (KsSqliteReader  *r,
             const KsGpuInfo *info)
{
  guint32 *slot = &r->memset_names[MIN (info->copy.dst_kind, 7)];

  if (*slot == KS_SQLITE_NONE)
    {
      g_autofree char *name = ks_sqlite_memset_name (info);

      *slot = ks_trace_builder_intern (r->b, name);
    }
  return *slot;
}

static guint32
sync_name (KsSqliteReader *r,
           gint64          type)
{
  guint i = type >= 0 && type < (gint64)G_N_ELEMENTS (ks_sqlite_sync_names) ? (guint)type : 0;

  if (r->sync_names[i] == KS_SQLITE_NONE)
    r->sync_names[i] = ks_trace_builder_intern (r->b, ks_sqlite_sync_names[i]);
  return r->sync_names[i];
}

/* The name column of a .kscope GPU row, else the name its details imply. */
static inline gboolean
row_name (KsSqliteReader    *r,
          const KsSqliteRow *row,
          int                col,
          guint32           *name)
{
  if (r->kscope && !row_null (row, col))
    {
      *name = sid (r, row_i64 (row, col));
      return TRUE;
    }
  return FALSE;
}

static inline guint8
mem_kind (KsSqliteReader *r,
          gint64          id)
{
  return id >= 0 && id < (gint64)G_N_ELEMENTS (r->mem_kinds) ? r->mem_kinds[id] : KS_MEM_UNKNOWN;
}

/* Memory kinds are numbered as the file's ENUM_CUDA_MEM_KIND says (Nsight
 * counts from Pageable = 0, CUPTI from Unknown = 0); without that table,
 * as Nsight numbers them. */
gboolean
_ks_sqlite_nsight_load_mem_kinds (KsSqliteReader  *r,
                                  GError         **error)
{
  static const struct { const char *suffix; KsMemoryKind kind; } names[] = {
    { "DEVICE_STATIC", KS_MEM_DEVICE_STATIC }, { "MANAGED_STATIC", KS_MEM_MANAGED_STATIC },
    { "PAGEABLE", KS_MEM_PAGEABLE }, { "PINNED", KS_MEM_PINNED }, { "DEVICE", KS_MEM_DEVICE },
    { "ARRAY", KS_MEM_ARRAY }, { "MANAGED", KS_MEM_MANAGED },
  };
  static const char * const columns[] = { "id", "name" };
  sqlite3_stmt *stmt;
  KsSqliteResult found;
  gboolean failed = FALSE;

  for (guint i = 0; i < G_N_ELEMENTS (r->mem_kinds); i++)
    r->mem_kinds[i] = ks_kscope_mem_kind_to_cupti (i);

  if ((found = _ks_sqlite_select (r, "ENUM_CUDA_MEM_KIND", columns, 2, 2, NULL, &stmt, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;

  while (ks_sqlite_next_row (r, stmt, &failed, error))
    {
      gint64 id = col_i64 (stmt, 0);
      const char *name = (const char *)sqlite3_column_text (stmt, 1);
      guint8 kind = KS_MEM_UNKNOWN;

      if (id < 0 || id >= (gint64)G_N_ELEMENTS (r->mem_kinds) || name == NULL)
        continue;
      for (guint i = 0; i < G_N_ELEMENTS (names); i++)
        if (g_str_has_suffix (name, names[i].suffix))
          {
            kind = names[i].kind;
            break;
          }
      r->mem_kinds[id] = kind;
    }

  return ks_sqlite_finish (stmt, failed);
}

/* Slice tables, read side by side with KS_SLICES (ks-sqlite-reader.c) */

static guint32
runtime_track (KsSqliteReader    *r,
               const KsSqliteRow *row)
{
  return ks_trace_builder_get_thread_track (r->b, _ks_sqlite_reader_thread (r, row_i64 (row, 4)));
}

static void
runtime_emit (KsSqliteReader    *r,
              const KsSqliteRow *row,
              guint32            track,
              gint64             start,
              gint64             end)
{
  gint64 klass = row_i64 (row, 3);
  KsSliceKind kind = klass == KS_NSYS_CLASS_CUDA_DRIVER || klass == 13
                     ? KS_SLICE_CUDA_DRIVER : KS_SLICE_CUDA_RUNTIME;

  add_slice (r, track, start, end, kind,
             api_sid (r, row_i64 (row, 2)), row_category (r, row, 6, kind),
             row_u32 (row, 5), row_ext (r, row, 7),
             r->kscope ? row_args (r, row, 8) : 0, NULL);
}

static guint32
osrt_track (KsSqliteReader    *r,
            const KsSqliteRow *row)
{
  return ks_trace_builder_get_thread_track (r->b, _ks_sqlite_reader_thread (r, row_i64 (row, 3)));
}

static void
osrt_emit (KsSqliteReader    *r,
           const KsSqliteRow *row,
           guint32            track,
           gint64             start,
           gint64             end)
{
  add_slice (r, track, start, end, KS_SLICE_OSRT,
             sid (r, row_i64 (row, 2)), row_category (r, row, 4, KS_SLICE_OSRT),
             row_ext (r, row, 5), row_ext (r, row, 6),
             r->kscope ? row_args (r, row, 7) : 0, NULL);
}

/* cuBLAS and cuDNN calls (CUBLAS_EVENTS, CUDNN_EVENTS): library API
 * ranges on the calling thread. */
static void
library_emit (KsSqliteReader    *r,
              const KsSqliteRow *row,
              guint32            track,
              gint64             start,
              gint64             end,
              const char        *category)
{
  add_slice (r, track, start, end, KS_SLICE_GENERIC, sid (r, row_i64 (row, 2)),
             ks_trace_builder_intern (r->b, category), 0, 0, 0, NULL);
}

static void
cublas_emit (KsSqliteReader    *r,
             const KsSqliteRow *row,
             guint32            track,
             gint64             start,
             gint64             end)
{
  library_emit (r, row, track, start, end, "cublas");
}

static void
cudnn_emit (KsSqliteReader    *r,
            const KsSqliteRow *row,
            guint32            track,
            gint64             start,
            gint64             end)
{
  library_emit (r, row, track, start, end, "cudnn");
}

/* GPU tables: deviceId, streamId, globalPid in columns 2, 3, 5. */
static guint32
gpu_track (KsSqliteReader    *r,
           const KsSqliteRow *row)
{
  return stream_track (r, row, 5, row_i64 (row, 2), row_i64 (row, 3));
}

static void
kernel_emit (KsSqliteReader    *r,
             const KsSqliteRow *row,
             guint32            track,
             gint64             start,
             gint64             end)
{
  KsGpuInfo info;
  guint32 name = row_null (row, 6) ? sid (r, row_i64 (row, 7)) : sid (r, row_i64 (row, 6));

  memset (&info, 0, sizeof info);
  info.kernel.grid[0] = row_u32 (row, 9);
  info.kernel.grid[1] = row_u32 (row, 10);
  info.kernel.grid[2] = row_u32 (row, 11);
  info.kernel.block[0] = (guint16)row_i64 (row, 12);
  info.kernel.block[1] = (guint16)row_i64 (row, 13);
  info.kernel.block[2] = (guint16)row_i64 (row, 14);
  info.kernel.registers = (guint16)row_i64 (row, 8);
  info.kernel.shared_memory = row_u32 (row, 15) + row_u32 (row, 16);

  add_slice (r, track, start, end, KS_SLICE_KERNEL, name,
             row_category (r, row, 17, KS_SLICE_KERNEL), row_u32 (row, 4),
             row_ext (r, row, 18), r->kscope ? row_args (r, row, 19) : 0, &info);
}

static void
memcpy_emit (KsSqliteReader    *r,
             const KsSqliteRow *row,
             guint32            track,
             gint64             start,
             gint64             end)
{
  KsGpuInfo info;
  guint32 name;

  memset (&info, 0, sizeof info);
  info.copy.bytes = (guint64)row_i64 (row, 6);
  info.copy.copy_kind = ks_sqlite_copy_kind_from_nsys (row_i64 (row, 7));
  info.copy.src_kind = row_null (row, 8) ? KS_MEM_UNKNOWN : mem_kind (r, row_i64 (row, 8));
  info.copy.dst_kind = row_null (row, 9) ? KS_MEM_UNKNOWN : mem_kind (r, row_i64 (row, 9));
  if (!row_name (r, row, 10, &name))
    name = memcpy_name (r, &info);

  add_slice (r, track, start, end, KS_SLICE_MEMCPY, name,
             row_category (r, row, 11, KS_SLICE_MEMCPY), row_u32 (row, 4),
             row_ext (r, row, 12), r->kscope ? row_args (r, row, 13) : 0, &info);
}

static void
memset_emit (KsSqliteReader    *r,
             const KsSqliteRow *row,
             guint32            track,
             gint64             start,
             gint64             end)
{
  KsGpuInfo info;
  guint32 name;

  memset (&info, 0, sizeof info);
  info.copy.value = (guint8)row_i64 (row, 6);
  info.copy.bytes = (guint64)row_i64 (row, 7);
  info.copy.dst_kind = row_null (row, 8) ? KS_MEM_UNKNOWN : mem_kind (r, row_i64 (row, 8));
  if (!row_name (r, row, 9, &name))
    name = memset_name (r, &info);

  add_slice (r, track, start, end, KS_SLICE_MEMSET, name,
             row_category (r, row, 10, KS_SLICE_MEMSET), row_u32 (row, 4),
             row_ext (r, row, 11), r->kscope ? row_args (r, row, 12) : 0, &info);
}

static void
sync_emit (KsSqliteReader    *r,
           const KsSqliteRow *row,
           guint32            track,
           gint64             start,
           gint64             end)
{
  guint32 name;

  if (!row_name (r, row, 7, &name))
    name = sync_name (r, row_i64 (row, 6));

  add_slice (r, track, start, end, KS_SLICE_SYNC, name,
             row_category (r, row, 8, KS_SLICE_SYNC), row_u32 (row, 4),
             row_ext (r, row, 9), r->kscope ? row_args (r, row, 10) : 0, NULL);
}

static const char * const runtime_columns[] = {
  "start", "end", "nameId", "eventClass", "globalTid", "correlationId",
  "categoryId", "externalId", "args",
};
static const char * const osrt_columns[] = {
  "start", "end", "nameId", "globalTid", "categoryId", "correlationId", "externalId", "args",
};
static const char * const library_columns[] = {
  "start", "end", "nameId", "globalTid",
};
static const char * const kernel_columns[] = {
  "start", "end", "deviceId", "streamId", "correlationId", "globalPid",
  "demangledName", "shortName", "registersPerThread", "gridX", "gridY", "gridZ",
  "blockX", "blockY", "blockZ", "staticSharedMemory", "dynamicSharedMemory",
  "categoryId", "externalId", "args",
};
static const char * const memcpy_columns[] = {
  "start", "end", "deviceId", "streamId", "correlationId", "globalPid",
  "bytes", "copyKind", "srcKind", "dstKind", "nameId", "categoryId", "externalId", "args",
};
static const char * const memset_columns[] = {
  "start", "end", "deviceId", "streamId", "correlationId", "globalPid",
  "value", "bytes", "memKind", "nameId", "categoryId", "externalId", "args",
};
static const char * const sync_columns[] = {
  "start", "end", "deviceId", "streamId", "correlationId", "globalPid",
  "syncType", "nameId", "categoryId", "externalId", "args",
};

/* CUDA calls, OS runtime and library calls on the threads; kernels,
 * copies, memsets and syncs on the GPU streams. */
gboolean
_ks_sqlite_nsight_add_slice_sources (KsSqliteReader   *r,
                                     KsSqliteSources  *sources,
                                     GError          **error)
{
#define ADD(table, columns, n_required, track_func, emit_func)                                     \
  _ks_sqlite_add_source (r, sources, table, columns, G_N_ELEMENTS (columns), n_required, NULL,    \
                         track_func, emit_func, error)

  return ADD ("CUPTI_ACTIVITY_KIND_RUNTIME", runtime_columns, 3, runtime_track, runtime_emit) &&
         ADD ("OSRT_API", osrt_columns, 3, osrt_track, osrt_emit) &&
         ADD ("CUBLAS_EVENTS", library_columns, 4, osrt_track, cublas_emit) &&
         ADD ("CUDNN_EVENTS", library_columns, 4, osrt_track, cudnn_emit) &&
         ADD ("CUPTI_ACTIVITY_KIND_KERNEL", kernel_columns, 4, gpu_track, kernel_emit) &&
         ADD ("CUPTI_ACTIVITY_KIND_MEMCPY", memcpy_columns, 4, gpu_track, memcpy_emit) &&
         ADD ("CUPTI_ACTIVITY_KIND_MEMSET", memset_columns, 4, gpu_track, memset_emit) &&
         ADD ("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", sync_columns, 4, gpu_track, sync_emit);

#undef ADD
}

/* Nsight GPU metrics (--gpu-metrics-device): the low 32 bits of typeId
 * are the GPU. */
typedef struct
{
  gint64  type;
  gint64  metric;
  guint32 counter;
} Metric;

static guint
metric_hash (gconstpointer p)
{
  const Metric *m = p;

  return g_int64_hash (&m->type) ^ (g_int64_hash (&m->metric) * 31);
}

static gboolean
metric_equal (gconstpointer a,
              gconstpointer b)
{
  const Metric *ma = a;
  const Metric *mb = b;

  return ma->type == mb->type && ma->metric == mb->metric;
}

/* Nsight GPU metrics (--gpu-metrics-device): the low 32 bits of typeId
 * are the GPU. Samples of all metrics interleave, so the lookup per row
 * allocates nothing. */
gboolean
_ks_sqlite_nsight_load_gpu_metrics (KsSqliteReader  *r,
                                    GError         **error)
{
  static const char * const columns[] = { "typeId", "metricId", "metricName" };
  static const char * const sample_columns[] = { "timestamp", "typeId", "metricId", "value" };
  g_autoptr(GHashTable) ids = g_hash_table_new_full (metric_hash, metric_equal, g_free, NULL);
  sqlite3_stmt *stmt;
  KsSqliteScan *scan;
  KsSqliteRow row;
  KsSqliteResult found;
  gboolean failed = FALSE;

  if (!_ks_sqlite_has_table (r, "GPU_METRICS"))
    return TRUE;
  if ((found = _ks_sqlite_select (r, "TARGET_INFO_GPU_METRICS", columns, 3, 3, NULL, &stmt, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;

  while (ks_sqlite_next_row (r, stmt, &failed, error))
    {
      const char *name = (const char *)sqlite3_column_text (stmt, 2);
      g_autofree char *unit = NULL;
      const char *open, *close;
      gint32 device = (gint32)(col_i64 (stmt, 0) & 0xffffffff);
      Metric *m;

      if (name == NULL)
        continue;
      /* "SM Active [Throughput %]": the unit is in the brackets. */
      if ((open = strrchr (name, '[')) && (close = strchr (open, ']')))
        unit = g_strndup (open + 1, close - open - 1);

      m = g_new (Metric, 1);
      m->type = col_i64 (stmt, 0);
      m->metric = col_i64 (stmt, 1);
      m->counter = ks_trace_builder_get_counter (r->b, name, unit, device, KS_NO_INDEX);
      g_hash_table_replace (ids, m, m);
    }
  if (!ks_sqlite_finish (stmt, failed))
    return FALSE;

  if ((found = _ks_sqlite_scan_open (r, "GPU_METRICS", sample_columns, 4, 4, "iiir", NULL,
                                     &scan, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;

  KS_SQLITE_SCAN_ROWS (r, scan, row, failed, error)
    {
      Metric key = { row_i64 (&row, 1), row_i64 (&row, 2), 0 };
      const Metric *m = g_hash_table_lookup (ids, &key);

      if (m == NULL)
        {
          r->skipped++;
          continue;
        }
      ks_trace_builder_add_counter_sample (r->b, m->counter, row_ts (r, &row, 0), row_double (&row, 3));
    }

  _ks_sqlite_scan_free (scan);
  return !failed;
}

/* Nsight's CUDA memory usage (--cuda-memory-usage): 0 allocates, 1 frees. */
gboolean
_ks_sqlite_nsight_load_memory_usage (KsSqliteReader  *r,
                                     GError         **error)
{
  static const char * const columns[] = {
    "start", "deviceId", "address", "bytes", "memoryOperationType",
  };
  KsSqliteScan *scan;
  KsSqliteRow row;
  KsSqliteResult found;
  gboolean failed;

  if ((found = _ks_sqlite_scan_open (r, "CUDA_GPU_MEMORY_USAGE_EVENTS", columns, G_N_ELEMENTS (columns), 5, "iiiii",
                                     NULL, &scan, error)) != KS_SQLITE_READ)
    return found == KS_SQLITE_ABSENT;

  KS_SQLITE_SCAN_ROWS (r, scan, row, failed, error)
    {
      KsMemoryEvent ev = { 0 };
      gint64 bytes = row_i64 (&row, 3);

      ev.ts = row_ts (r, &row, 0);
      ev.thread = KS_NO_INDEX;
      ev.device = (gint16)row_i64 (&row, 1);
      ev.address = (guint64)row_i64 (&row, 2);
      ev.bytes = row_i64 (&row, 4) == 1 ? -bytes : bytes;
      ev.total_allocated = -1;
      ev.total_reserved = -1;
      ks_trace_builder_add_memory_event (r->b, &ev);
    }

  _ks_sqlite_scan_free (scan);
  return !failed;
}

/* Nsight names: given to the processes and threads that have events. */
void
_ks_sqlite_nsight_apply_names (KsSqliteReader *r)
{
  GHashTableIter iter;
  gpointer key, value;

  if (!r->have_ks_processes)
    {
      g_hash_table_iter_init (&iter, r->procs);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          const char *name = g_hash_table_lookup (r->process_names, key);
          const KsSqliteProc *proc = value;

          if (name != NULL)
            ks_trace_builder_set_process_info (r->b, proc->process, name, NULL, NULL, G_MININT32);
        }
    }

  if (!r->have_ks_threads)
    {
      g_hash_table_iter_init (&iter, r->threads);
      while (g_hash_table_iter_next (&iter, &key, &value))
        {
          guint32 thread = GPOINTER_TO_UINT (value) - 1;
          gpointer name_id;
          g_autofree char *name = NULL;

          if (g_hash_table_lookup_extended (r->thread_names, key, NULL, &name_id))
            name = string_text (r, (gint64)GPOINTER_TO_SIZE (name_id));
          if (name == NULL)
            name = g_strdup (g_hash_table_lookup (r->nvtx_thread_names, key));
          if (name != NULL)
            ks_trace_builder_set_thread_info (r->b, thread, name, NULL, G_MININT32);
        }
    }
}
