/* ranks-test-util.c: corpus files, and folders of ranks written from one
 * real rank with known delays, for the ranks tests. The expected figures
 * come from the test's own interval arithmetic over the source rank.
 *
 * Copyright 2026 The Kinescope authors
 *
 * SPDX-License-Identifier: GPL-3.0-or-later
 */

#include "config.h"

#include <locale.h>
#include <math.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>
#include <sqlite3.h>

#include "ks-analysis.h"
#include "ks-json-reader.h"
#include "ks-json-writer.h"
#include "ks-rank-summaries.h"
#include "ks-report.h"
#include "ks-trace-builder.h"
#include "ks-trace-loader.h"
#ifdef KS_HAVE_RENDER
#include "ks-timeline-layout.h"
#endif

#include "ranks-test-util.h"

char *
corpus_file (const char *relative)
{
  const char *shared = g_getenv ("KS_SHARED_DIR");

  return g_build_filename (shared ? shared : ".", "corpus", "hta", relative, NULL);
}

gboolean
have_corpus (const char *relative)
{
  g_autofree char *path = corpus_file (relative);

  if (g_file_test (path, G_FILE_TEST_EXISTS))
    return TRUE;
  g_test_skip ("the corpus (KS_SHARED_DIR/corpus/hta) is not available");
  return FALSE;
}

void
remove_tree (const char *dir)
{
  g_autoptr(GDir) d = g_dir_open (dir, 0, NULL);
  const char *name;

  while (d != NULL && (name = g_dir_read_name (d)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_unlink (path);
    }
  g_rmdir (dir);
}

/* A folder of links: pairs of (corpus file, name in the folder). */
char *
make_folder (const char * const *pairs)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("ks-ranks-XXXXXX", &error);

  g_assert_no_error (error);
  for (guint i = 0; pairs[i] != NULL; i += 2)
    {
      g_autofree char *target = corpus_file (pairs[i]);
      g_autofree char *link = g_build_filename (dir, pairs[i + 1], NULL);

      g_assert_cmpint (symlink (target, link), ==, 0);
    }
  return dir;
}

KsTrace *
load (const char *path)
{
  g_autoptr(GFile) file = g_file_new_for_path (path);
  g_autoptr(GError) error = NULL;
  KsTrace *trace = ks_trace_load (file, NULL, NULL, &error);

  g_assert_no_error (error);
  g_assert_nonnull (trace);
  return trace;
}

/* Folders of ranks written from one real rank */

static int
compare_spans (gconstpointer a,
               gconstpointer b)
{
  const Span *x = a, *y = b;

  return (x->start > y->start) - (x->start < y->start);
}

/* The test's own union: sorted, merged in place. */
void
merge (GArray *spans)
{
  guint out = 0;

  g_array_sort (spans, compare_spans);
  for (guint i = 0; i < spans->len; i++)
    {
      Span s = g_array_index (spans, Span, i);

      if (out > 0 && s.start <= g_array_index (spans, Span, out - 1).end)
        {
          Span *last = &g_array_index (spans, Span, out - 1);

          last->end = MAX (last->end, s.end);
        }
      else
        g_array_index (spans, Span, out++) = s;
    }
  g_array_set_size (spans, out);
}

static gint64
overlap (GArray *a,
         GArray *b)
{
  guint i = 0, j = 0;
  gint64 total = 0;

  while (i < a->len && j < b->len)
    {
      const Span *x = &g_array_index (a, Span, i);
      const Span *y = &g_array_index (b, Span, j);
      gint64 lo = MAX (x->start, y->start), hi = MIN (x->end, y->end);

      if (hi > lo)
        total += hi - lo;
      if (x->end < y->end)
        i++;
      else
        j++;
    }
  return total;
}

static void
append_json_string (GString    *out,
                    const char *s)
{
  g_string_append_c (out, '"');
  for (; *s; s++)
    {
      if (*s == '"' || *s == '\\')
        g_string_append_printf (out, "\\%c", *s);
      else if ((guchar)*s < 0x20)
        g_string_append_printf (out, "\\u%04x", (guchar)*s);
      else
        g_string_append_c (out, *s);
    }
  g_string_append_c (out, '"');
}

static void
append_us (GString *out,
           gint64   ns)
{
  g_string_append_printf (out, "%" G_GINT64_FORMAT ".%03d", ns / 1000, (int)(ns % 1000));
}

static gboolean
is_nccl (const KsTrace *src,
         const KsTrack *track,
         guint32        i)
{
  return g_str_has_prefix (ks_trace_string (src, track->name_id[i]), "ncclKernel_");
}

/* How late rank @k's NCCL kernel @i starts: @delay for the slow rank,
 * less than the kernel's length (its end stays: a collective ends
 * together on every rank). */
static gint64
synth_delay (const KsTrack *track,
             guint32        i,
             gint64         delay)
{
  return MIN (delay, track->end[i] - track->start[i] - 1);
}

/* Rank @k of @n: the ProfilerSteps and the kernels (with their Kineto
 * arguments) of @src; the slow rank's NCCL kernels start @delay late. */
void
write_rank_on (const KsTrace *src,
               const char    *dir,
               guint          k,
               guint          n,
               guint          slow,
               gint64         delay,
               const char    *host,
               gint64         clock_shift)
{
  g_autoptr(GString) args_buf = g_string_new (NULL);
  g_autoptr(GString) out = g_string_new (NULL);
  g_autofree char *name = g_strdup_printf ("worker%u.pt.trace.json", k);
  g_autofree char *path = g_build_filename (dir, name, NULL);
  g_autoptr(GError) error = NULL;
  gboolean first = TRUE;

  g_string_append_printf (out, "{\"schemaVersion\": 1, \"distributedInfo\": {\"backend\": \"nccl\", "
                          "\"rank\": %u, \"world_size\": %u, \"pg_count\": 1}, ", k, n);
  if (host != NULL)
    g_string_append_printf (out, "\"host_name\": \"%s\", ", host);
  g_string_append (out, "\"traceEvents\": [\n");
  for (guint32 t = 0; t < src->n_tracks; t++)
    {
      const KsTrack *track = &src->tracks[t];

      for (guint32 i = 0; i < track->n_slices; i++)
        {
          const char *sname = ks_trace_string (src, track->name_id[i]);
          const char *args = ks_trace_slice_args (src, track, i, args_buf);
          gint64 start = track->start[i];

          if (track->kind == KS_TRACK_THREAD && g_str_has_prefix (sname, "ProfilerStep#"))
            g_string_append_printf (out, "%s{\"ph\": \"X\", \"cat\": \"user_annotation\", \"pid\": %u, \"tid\": %u, ",
                                    first ? "" : ",\n", 1000 + k, 1000 + k);
          else if (track->kind == KS_TRACK_STREAM && track->slice_kind[i] == KS_SLICE_KERNEL)
            {
              if (k == slow && is_nccl (src, track, i))
                start += synth_delay (track, i, delay);
              g_string_append_printf (out, "%s{\"ph\": \"X\", \"cat\": \"kernel\", \"pid\": %d, \"tid\": %" G_GINT64_FORMAT ", ",
                                      first ? "" : ",\n", track->device, track->stream);
            }
          else
            continue;
          first = FALSE;
          g_string_append (out, "\"name\": ");
          append_json_string (out, sname);
          g_string_append (out, ", \"ts\": ");
          append_us (out, SYNTH_BASE_NS + clock_shift + start);
          g_string_append (out, ", \"dur\": ");
          append_us (out, track->end[i] - start);
          if (args != NULL)
            g_string_append_printf (out, ", \"args\": %s", args);
          g_string_append_c (out, '}');
        }
    }
  g_string_append (out, "\n]}\n");
  g_file_set_contents (path, out->str, out->len, &error);
  g_assert_no_error (error);
}

void
write_rank (const KsTrace *src,
            const char    *dir,
            guint          k,
            guint          n,
            guint          slow,
            gint64         delay)
{
  write_rank_on (src, dir, k, n, slow, delay, NULL, 0);
}

KsTrace *
load_source_rank (void)
{
  g_autofree char *path = corpus_file ("nccl_parser_config/nccl_data.json.gz");

  return load (path);
}

char *
write_synthetic_folder (const KsTrace *src)
{
  g_autoptr(GError) error = NULL;
  char *dir = g_dir_make_tmp ("ks-ranks-synth-XXXXXX", &error);

  g_assert_no_error (error);
  for (guint k = 0; k < SYNTH_RANKS; k++)
    write_rank (src, dir, k, SYNTH_RANKS, SYNTH_SLOW, SYNTH_DELAY_NS);
  return dir;
}

/* What rank @k of the synthetic folder must show, from @src alone. */
void
synth_expected (const KsTrace *src,
                gboolean       slow,
                SynthExpected *e)
{
  g_autoptr(GArray) window = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr(GArray) comm = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr(GArray) compute = g_array_new (FALSE, FALSE, sizeof (Span));
  g_autoptr(GArray) both = g_array_new (FALSE, FALSE, sizeof (Span));

  memset (e, 0, sizeof *e);
  for (guint32 t = 0; t < src->n_tracks; t++)
    {
      const KsTrack *track = &src->tracks[t];

      for (guint32 i = 0; i < track->n_slices; i++)
        {
          Span s = { track->start[i], track->end[i] };

          if (track->kind == KS_TRACK_THREAD
              && g_str_has_prefix (ks_trace_string (src, track->name_id[i]), "ProfilerStep#"))
            g_array_append_val (window, s);
          if (track->kind != KS_TRACK_STREAM || track->slice_kind[i] != KS_SLICE_KERNEL)
            continue;
          if (is_nccl (src, track, i))
            {
              gint64 d = synth_delay (track, i, SYNTH_DELAY_NS);

              if (slow)
                s.start += d;
              e->delays += d;
              e->collectives++;
              g_array_append_val (comm, s);
            }
          else
            g_array_append_val (compute, s);
          g_array_append_val (both, s);
        }
    }
  merge (window);
  merge (comm);
  merge (compute);
  merge (both);
  for (guint i = 0; i < window->len; i++)
    e->window += g_array_index (window, Span, i).end - g_array_index (window, Span, i).start;
  e->comm = overlap (comm, window);
  e->compute = overlap (compute, window);
  e->covered = e->comm + e->compute - overlap (both, window);

  g_assert_cmpuint (window->len, ==, SYNTH_STEPS);
  for (guint k = 0; k < SYNTH_STEPS; k++)
    {
      g_autoptr(GArray) step = g_array_new (FALSE, FALSE, sizeof (Span));

      g_array_append_val (step, g_array_index (window, Span, k));
      e->step_comm[k] = overlap (comm, step);
      e->step_compute[k] = overlap (compute, step);
      e->step_covered[k] = e->step_comm[k] + e->step_compute[k] - overlap (both, step);
      for (guint32 t = 0; t < src->n_tracks; t++)
        {
          const KsTrack *track = &src->tracks[t];

          for (guint32 i = 0; track->kind == KS_TRACK_STREAM && i < track->n_slices; i++)
            {
              gint64 start = track->start[i];

              if (track->slice_kind[i] != KS_SLICE_KERNEL || !is_nccl (src, track, i))
                continue;
              if (slow)
                start += synth_delay (track, i, SYNTH_DELAY_NS);
              if (start >= g_array_index (step, Span, 0).start && start < g_array_index (step, Span, 0).end)
                e->step_delays[k] += synth_delay (track, i, SYNTH_DELAY_NS);
            }
        }
    }
}
